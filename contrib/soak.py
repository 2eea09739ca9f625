#!/usr/bin/env python3
"""contrib/soak.py - drive a slurm-budget test cluster for a stated time with a
seeded random workload and seeded faults, checking invariants throughout.

Usage: contrib/soak.py [--minutes M] [--seed N] [--faults LIST] [--quiet-every M]
                       [--report FILE]
  Needs a running cluster of contrib/cluster.sh and its environment:
      eval "$(contrib/cluster.sh env)"; contrib/soak.py --minutes 5
  --minutes M     how long to drive the cluster (default 5; > 0, at most 1440)
  --seed N        seed of the workload and the faults (default 1; an integer)
  --faults LIST   comma-separated fault kinds (default: all of them):
                    failover  kill -9 of the primary slurmctld; the backup takes
                              over; the primary returns 10-20 s later
                    takeover  `scontrol takeover`; the primary returns 10-20 s later
                    slurmdbd  slurmdbd stopped for 10-20 s
                    mariadb   MariaDB stopped for 10-20 s
                    node      a node set DOWN for 10-20 s, then resumed
                    slurmd    a slurmd killed (kill -9), started again 10-20 s later
                    reconf    budget.conf changed (MaxMinRuntime), reconfigure
                    badconf   budget.conf made invalid, reconfigure, put back
                    share     a budget's RawShares changed (sacctmgr)
                  or "none".  Every kind occurs once, in a seeded order, before
                  any occurs again; 3-10 s between two faults.
  --quiet-every M a quiet point every M minutes besides the one at the end
                  (default 0: only at the end; else at least 1)
  --report FILE   also write the counts as JSON to FILE

The workload, from three fresh budgets (shares 3:2:1) under a new top-level
account: allocated resumable and non-resumable jobs, unallocated ones, job
arrays, interactive srun jobs, --no-requeue, --nice and --exclusive; 1-8 GPUs,
minimum runtimes of 10-40 s, 15-90 s of work, at most 12 jobs pending.

Checked at every poll (about every 2 s, also while a fault runs):
  * protected: a job preempted by preempt/budget (its SystemComment's
    budget:preempted_by=J,at=T) ran at least its minimum runtime (the
    AdminComment's min_runtime) before T, from the start of that run as
    slurmctld reported it;
  * responsive: `scontrol show job` answers within 10 s (but while a
    controller change is under way), and every daemon runs that no fault
    stopped (every 5 s).
At each quiet point (submissions stop, every job is cancelled, the cluster
idle, priority/budget has recalculated and sshare is steady):
  * charged once: every soak job (seen live or in slurmdbd) is in slurmdbd
    with every run closed, and its charge in priority/budget's ledger
    equals the GPU-seconds of its runs there, within one second of its GPUs
    per run.  Jobs slurmdbd cannot have whole because the backup had
    control (a run started or ended then; or the job existed then and
    slurmdbd lacks it, a start of it, or an end) are left out and
    counted: Slurm 26.05.3's backup sends nothing to slurmdbd;
  * preempted runs in slurmdbd ran their minimum runtime;
  * sbudget's RawUsage equals sshare's for every association (read again
    once on a difference: usage may age out of the window between the two),
    and each soak association's RawUsage equals the ledger's total, which
    equals the sum of its jobs' charges (allocated and unallocated apart).
A node Slurm itself drains after a fault ("Duplicate jobid": a job started
in the last second before a kill -9 is launched again by the next
controller) is resumed, as an operator would, and listed.  Every fault
kind runs at least once, even when that takes past the stated time.
Prints the counts (jobs by kind, faults by kind, preemptions, invariant
checks, violations); exits 0 when no invariant was violated, 1 on a
violation or when the soak could not go on (said why), 2 on a usage error.
On exit (also on SIGTERM or SIGINT) it puts back what it changed: budget
.conf, daemons a fault stopped, a node it set down, the backup controller
as it was; its budgets stay, with RawShares 0.
"""

import argparse
import json
import os
import random
import signal
import re
import subprocess
import sys
import threading
import time
import traceback

# The faults, the quiet points and the fixed settings are in soak_lib/, next
# to this file, whatever the working directory (and no __pycache__ there).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from soak_lib.common import (FAULT_KINDS, JOB_KINDS, NODES,  # noqa: E402
                             MAX_PENDING, POLL_SECS, SLURM_FAULT_DRAINS)
from soak_lib.faults import Faults  # noqa: E402
from soak_lib.quiet import QuietPoint  # noqa: E402


def die_usage(msg):
    print("soak.py: " + msg, file=sys.stderr)
    sys.exit(2)


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        die_usage("%s (accepted: --minutes M, --seed N, --faults LIST, "
                  "--quiet-every M, --report FILE, --help)" % message)


def parse_args(argv):
    p = _Parser(
        prog="soak.py", usage=argparse.SUPPRESS, add_help=True,
        formatter_class=argparse.RawDescriptionHelpFormatter, description=__doc__)
    p.add_argument("--minutes", default="5")
    p.add_argument("--seed", default="1")
    p.add_argument("--faults", default="all")
    p.add_argument("--quiet-every", default="0")
    p.add_argument("--report", default=None)
    a = p.parse_args(argv)
    raw = a.minutes
    try:
        a.minutes = float(raw)
    except ValueError:
        die_usage("--minutes '%s': not a number (accepted: minutes, > 0 and <= 1440)" % raw)
    if not 0 < a.minutes <= 1440:
        die_usage("--minutes '%s': out of range (accepted: > 0 and <= 1440)" % raw)
    try:
        a.seed = int(a.seed)
    except ValueError:
        die_usage("--seed '%s': not an integer" % a.seed)
    raw = a.quiet_every
    try:
        a.quiet_every = float(raw)
    except ValueError:
        die_usage("--quiet-every '%s': not a number (accepted: minutes >= 0)" % raw)
    if not (a.quiet_every == 0 or 1 <= a.quiet_every <= 1440):
        die_usage("--quiet-every '%s': out of range (accepted: 0 = at the end only, or minutes from 1 to 1440)" % raw)
    if a.faults == "all":
        a.faults = list(FAULT_KINDS)
    elif a.faults == "none":
        a.faults = []
    else:
        kinds = [k for k in a.faults.split(",")]
        for k in kinds:
            if k not in FAULT_KINDS:
                die_usage("--faults: unknown kind '%s' (accepted: %s, all, none)"
                          % (k, ", ".join(FAULT_KINDS)))
        a.faults = kinds
    return a


class Interrupted(Exception):
    """SIGTERM or SIGINT: stop, put the cluster back, report."""


class Soak(Faults, QuietPoint):
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.fault_rng = random.Random(args.seed * 7919 + 1)
        self.dir = os.environ.get("SB_CLUSTER_DIR")
        if not self.dir or not os.environ.get("SLURM_CONF"):
            die_usage("no cluster environment: run eval \"$(contrib/cluster.sh env)\" first")
        self.repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.cluster = os.path.join(self.repo, "contrib", "cluster.sh")
        self.work = os.path.join(self.dir, "work")
        self.ctld_log = os.path.join(self.dir, "log", "slurmctld.log")
        self.backup_log = os.path.join(self.dir, "log", "slurmctld-backup.log")
        self.conf = os.path.join(self.dir, "budget.conf")
        self.conf_orig = None        # budget.conf as found; None until read
        self.parent = None           # the soak's top-level account
        self.accounts = {}           # account -> (share, users)
        self.had_backup = None       # a backup slurmctld ran before the soak
        self.lock = threading.Lock()
        self.expect_down = set()     # daemons a fault stopped on purpose
        self.no_ctld = False         # no controller may answer now
        self.ctl_change_at = 0.0     # when no_ctld last changed
        self.backup_windows = []     # [start, end or None]: backup in control
        self.downed_nodes = set()    # nodes a fault set down, not yet back
        self.pause = threading.Event()   # submissions paused
        self.stop_faults = threading.Event()  # teardown: no more faults
        self.quiet_wanted = threading.Event()  # no new fault: a quiet point waits
        self.fault_lock = threading.Lock()  # held while a fault runs
        self.ft = None               # the fault thread
        self.jobs = {}               # job id -> dict (main thread only)
        self.checked = set()         # job ids settled at a quiet point
        self.srun_procs = []
        self.t_start = time.time()
        self.failed = None           # why the soak could not go on
        self.counts = {"jobs": {k: 0 for k in JOB_KINDS}, "submit_refused": 0,
                       "faults": {k: 0 for k in FAULT_KINDS},
                       "preemptions": {"allocated": 0, "unallocated": 0},
                       "checks": {"protected_live": 0, "protected_sacct": 0,
                                  "responsive": 0, "daemons": 0,
                                  "charged_once": 0, "sbudget_sshare": 0,
                                  "sshare_ledger": 0, "budget_conf": 0},
                       "excluded_backup_jobs": 0, "quiet_points": 0,
                       "drained_by_slurm": [], "drained_left_alone": [],
                       "violations": []}
        self.fault_log = []

    # ------------------------------------------------------------ helpers
    def log(self, msg):
        print("%s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    def violation(self, msg):
        with self.lock:
            self.counts["violations"].append(msg)
        self.log("VIOLATION: " + msg)

    def count(self, key, n=1):
        with self.lock:
            self.counts["checks"][key] += n

    def run(self, cmd, timeout=60, env=None, check=False):
        """Run CMD (a list); return (rc, stdout+stderr).  rc 124 on timeout."""
        e = dict(os.environ)
        if env:
            e.update(env)
        try:
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=timeout, env=e, text=True)
        except subprocess.TimeoutExpired:
            return 124, "timed out after %d s" % timeout
        if check and r.returncode != 0:
            raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stdout.strip()))
        return r.returncode, r.stdout

    def as_user(self, user, cmd, timeout=60):
        return self.run(["runuser", "-u", user, "--", "env",
                         "SLURM_CONF=" + os.environ["SLURM_CONF"]] + cmd, timeout=timeout)

    def cluster_cmd(self, *a, backup=True, timeout=300):
        """contrib/cluster.sh A..., with its backup controller (or without)."""
        env = {"SB_BACKUP": "1"} if backup else {}
        cmd = [self.cluster] + list(a)
        if not backup:
            cmd = ["env", "-u", "SB_BACKUP"] + cmd
        return self.run(cmd, timeout=timeout, env=env)

    def wait_for(self, what, fn, timeout):
        t_end = time.time() + timeout
        while time.time() < t_end:
            if fn():
                return True
            time.sleep(0.5)
        self.log("timed out after %d s waiting for %s" % (timeout, what))
        return False

    def log_size(self, path):
        try:
            return os.path.getsize(path)
        except OSError:
            return 0

    def log_has(self, path, offset, regex):
        try:
            with open(path, errors="replace") as f:
                f.seek(offset)
                return re.search(regex, f.read()) is not None
        except OSError:
            return False

    def read_pid(self, name):
        try:
            with open(self.daemon_pidfile(name)) as f:
                return int(re.sub(r"\D", "", f.readline()) or 0)
        except (OSError, ValueError):
            return 0

    def pid_alive(self, name, comm):
        pid = self.read_pid(name)
        try:
            with open("/proc/%d/comm" % pid) as f:
                return pid > 0 and f.read().strip() == comm
        except OSError:
            return False

    def daemon_pidfile(self, name):
        if name == "slurmctld-backup":
            return os.path.join(self.dir, "run-backup", "slurmctld.pid")
        return os.path.join(self.dir, "run", name + ".pid")

    def pings_up(self, n):
        rc, out = self.run(["scontrol", "ping"], timeout=20)
        return out.count("is UP") >= n

    def epoch(self, s):
        if not s or s in ("Unknown", "None", "N/A"):
            return None
        try:
            return int(time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S")))
        except ValueError:
            return None

    # ------------------------------------------------------------- set-up
    def setup(self):
        rc, out = self.run(["scontrol", "ping"], timeout=20)
        if "UP" not in out:
            raise RuntimeError("slurmctld does not answer (scontrol ping: %s)" % out.strip())
        with open(self.conf) as f:
            self.conf_orig = f.read()
        self.had_backup = self.pid_alive("slurmctld-backup", "slurmctld")
        if "failover" in self.args.faults or "takeover" in self.args.faults:
            self.fresh_backup()
        t = int(time.time())
        parent = "soak%d" % t
        accounts = {parent + "-a": (3, ["sb-alice", "sb-bob"]),
                    parent + "-b": (2, ["sb-carol"]),
                    parent + "-c": (1, ["sb-dave"])}
        self.run(["sacctmgr", "-i", "add", "account", parent, "parent=root",
                  "fairshare=1", "cluster=sbcluster"], check=True)
        self.parent = parent
        for acct, (share, users) in accounts.items():
            self.run(["sacctmgr", "-i", "add", "account", acct, "parent=" + parent,
                      "fairshare=%d" % share, "cluster=sbcluster"], check=True)
            self.accounts[acct] = (share, users)
            self.run(["sacctmgr", "-i", "add", "user", ",".join(users),
                      "account=" + acct, "cluster=sbcluster"], check=True)
        for acct, (share, users) in accounts.items():
            for u in users:
                if not self.wait_for("the association %s/%s in sshare" % (acct, u),
                                     lambda a=acct, u=u: self.sshare_has(a, u), 60):
                    raise RuntimeError("association %s/%s never reached slurmctld" % (acct, u))
        self.log("soak: budgets %s (%s), seed %d, %g min, faults %s"
                 % (parent, ", ".join("%s:%d" % (a, s) for a, (s, _) in accounts.items()),
                    self.args.seed, self.args.minutes, ",".join(self.args.faults) or "none"))

    def sshare_has(self, acct, user):
        rc, out = self.run(["sshare", "-n", "-P", "-A", acct, "-u", user, "-o", "Account,User"], timeout=20)
        return any(l.split("|")[1:2] == [user] for l in out.splitlines() if "|" in l)

    def fresh_backup(self):
        """A backup slurmctld that never had control (a backup process that
        had control once loses the slurmdbd records of its next turn)."""
        self.cluster_cmd("kill-backup")
        rc, out = self.cluster_cmd("up")
        if rc != 0:
            raise RuntimeError("cluster.sh up with a backup failed: " + out[-500:])
        if not self.wait_for("both controllers to answer", lambda: self.pings_up(2), 60):
            raise RuntimeError("the backup slurmctld does not answer")

    def teardown(self):
        """Put back what the soak changed; never raises."""
        self.stop_faults.set()
        if self.ft and self.ft.is_alive():
            self.log("teardown: waiting for the fault in progress")
            self.ft.join(600)
        steps = [
            ("stop the soak's interactive jobs", self.kill_sruns),
            ("cancel the soak's jobs", lambda: [self.run(["scancel", "-A", a], timeout=30)
                                               for a in self.accounts]),
            ("put budget.conf back", self.restore_conf),
            ("resume nodes set down", lambda: [self.run(["scontrol", "update", "nodename=" + n,
                                                         "state=resume"]) for n in list(self.downed_nodes)]),
            ("start daemons, the backup as found", lambda: self.had_backup is None or
             self.cluster_cmd("up", backup=bool(self.had_backup))),
            ("zero the soak's share", lambda: self.parent and self.run(
                ["sacctmgr", "-i", "modify", "account", self.parent, "set", "fairshare=0"], timeout=30)),
        ]
        for what, fn in steps:
            try:
                fn()
            except Exception as e:  # go on: put back as much as possible
                self.log("teardown: could not %s: %s" % (what, e))

    def kill_sruns(self):
        for p in self.srun_procs:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except OSError:
                    pass

    def restore_conf(self):
        if self.conf_orig is None:
            return
        with open(self.conf) as f:
            if f.read() == self.conf_orig:
                return
        self.write_conf(self.conf_orig)
        self.run(["scontrol", "reconfigure"], timeout=60)

    # ----------------------------------------------------------- workload
    def submit_one(self):
        r = self.rng
        kind = r.choice(JOB_KINDS)
        acct = r.choice(sorted(self.accounts))
        user = r.choice(self.accounts[acct][1])
        gpus = r.choice([1, 1, 2, 2, 4, 8])
        minrt = r.randint(10, 40)
        work = r.randint(15, 90)
        args = ["-A", acct, "-t", "5", "-G", str(1 if kind == "exclusive" else gpus)]
        if kind == "unallocated":
            args += ["--min-runtime=0"]
        elif kind == "allocated-resumable":
            args += ["--min-runtime=0:%d" % minrt, "--resumable"]
        else:
            args += ["--min-runtime=0:%d" % minrt]
        if kind == "array":
            args += ["--array=0-%d" % r.randint(1, 3)]
        elif kind == "no-requeue":
            args += ["--no-requeue"]
        elif kind == "nice":
            args += ["--nice=100"]
        elif kind == "exclusive":
            args += ["--exclusive"]
        if kind == "interactive":
            # srun waits for its allocation and runs the step: in the
            # background, in its own session (stopped as a group)
            cmd = ["runuser", "-u", user, "--", "env", "SLURM_CONF=" + os.environ["SLURM_CONF"],
                   "srun", "--quiet"] + args + ["sleep", str(work)]
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 cwd=self.work, start_new_session=True)
            self.srun_procs.append(p)
            with self.lock:
                self.counts["jobs"][kind] += 1
            return
        rc, out = self.as_user(user, ["sbatch", "--parsable", "-o", "/dev/null", "-D", self.work]
                               + args + ["--wrap", "sleep %d" % work], timeout=30)
        if rc != 0:
            with self.lock:
                self.counts["submit_refused"] += 1
            self.log("sbatch refused (%s): %s" % (kind, out.strip()[-200:]))
            return
        with self.lock:
            self.counts["jobs"][kind] += 1

    # ------------------------------------------------------------ polling
    def window_open(self, t):
        with self.lock:
            return any(t >= s - 1 and (e is None or t <= e) for s, e in self.backup_windows)

    def poll(self):
        """One look at every job: the protected check; returns the number
        of pending jobs, or None when no controller answered."""
        t0 = time.time()
        with self.lock:
            no_ctld = self.no_ctld
        rc, out = self.run(["scontrol", "-o", "show", "job"], timeout=30)
        dt = time.time() - t0
        with self.lock:
            # a controller changing during the call: clients retry
            no_ctld = no_ctld or self.no_ctld or self.ctl_change_at >= t0 - 1
        if rc != 0 and "No jobs in the system" not in out:
            if not no_ctld:
                self.violation("scontrol show job failed (%d) with a controller expected up: %s"
                               % (rc, out.strip()[-200:]))
            return None
        self.count("responsive")
        if dt > 10 and not no_ctld:
            self.violation("scontrol show job took %.1f s" % dt)
        pending = 0
        now = time.time()
        in_window = self.window_open(now)
        for line in out.splitlines():
            m = re.match(r"JobId=(\d+) ", line)
            acct = re.search(r" Account=(\S+)", line)
            if not m or not acct or not self.parent or \
                    not acct.group(1).startswith(self.parent + "-"):
                continue
            jid = int(m.group(1))
            state = re.search(r" JobState=(\S+)", line).group(1)
            if state == "PENDING":
                pending += 1
            j = self.jobs.get(jid)
            if j is None:
                u = re.search(r" UserId=([^( ]+)", line)
                j = self.jobs[jid] = {"minrt": None, "starts": set(), "note": None,
                                      "state": None, "backup": False,
                                      "owner": (acct.group(1), u.group(1) if u else "")}
            mr = re.search(r"AdminComment=budget:min_runtime=(\d+)", line)
            if mr:
                j["minrt"] = int(mr.group(1))
            # the note first: the run it ended is among the starts seen
            # before this poll, not one that began since
            note = re.search(r"SystemComment=budget:preempted_by=(\d+),at=(\d+)", line)
            if note:
                key = (int(note.group(1)), int(note.group(2)))
                if key != j["note"]:
                    j["note"] = key
                    self.check_preemption(jid, j, key[0], key[1])
            if state == "RUNNING":
                st = self.epoch(re.search(r" StartTime=(\S+)", line).group(1))
                if st:
                    j["starts"].add(st)
            # a job known to slurmctld while the backup may have control
            # (submitted, pending, running or ending then): its records
            # may reach slurmdbd late or never
            if in_window:
                j["backup"] = True
            j["state"] = state
        return pending

    def check_preemption(self, jid, j, by, at):
        minrt = j["minrt"] or 0
        with self.lock:
            self.counts["preemptions"]["allocated" if minrt > 0 else "unallocated"] += 1
        starts = [s for s in j["starts"] if s <= at]
        if not starts:
            self.log("job %d preempted by %d at %d: no start seen (checked in slurmdbd later)" % (jid, by, at))
            return
        self.count("protected_live")
        ran = at - max(starts)
        if ran + 1 < minrt:
            self.violation("job %d preempted by %d at %d after %d s, inside its minimum runtime %d s"
                           % (jid, by, at, ran, minrt))

    def check_daemons(self):
        names = ["munged", "mariadb", "slurmdbd", "slurmctld"] + ["slurmd-" + n for n in NODES]
        comm = {"mariadb": "mariadbd"}
        for n in names:
            with self.lock:
                if n in self.expect_down:
                    continue
            c = comm.get(n, n.split("-")[0])
            if not self.pid_alive(n, c):
                # a pid file may be rewritten at a restart: look twice
                time.sleep(1)
                with self.lock:
                    down = n in self.expect_down
                if not down and not self.pid_alive(n, c):
                    self.violation("daemon %s is not running and no fault stopped it" % n)
        self.count("daemons")
        with self.lock:
            if self.no_ctld:
                return
        rc, out = self.run(["sinfo", "-h", "-N", "-o", "%N|%T|%E"], timeout=20)
        for l in out.splitlines() if rc == 0 else []:
            f = l.split("|")
            if len(f) != 3 or not f[1].startswith("drain") or f[2] == "soak":
                continue
            item = "%s: %s" % (f[0], f[2])
            if f[2] in SLURM_FAULT_DRAINS:
                self.log("%s drained by Slurm (%s): resumed" % (f[0], f[2]))
                with self.lock:
                    self.counts["drained_by_slurm"].append(item)
                self.run(["scontrol", "update", "nodename=" + f[0], "state=resume"])
            elif item not in self.counts["drained_left_alone"]:
                self.log("%s drained (%s): left alone" % (f[0], f[2]))
                with self.lock:
                    self.counts["drained_left_alone"].append(item)

    # --------------------------------------------------------------- main
    def tick(self, submit):
        """One pass of the main loop: poll, daemons, maybe a submission."""
        pending = self.poll()
        now = time.time()
        if now >= self.next_daemons:
            self.check_daemons()
            self.next_daemons = now + 5
        if submit and pending is not None and not self.pause.is_set() and now >= self.next_submit:
            if pending < MAX_PENDING:
                self.submit_one()
            self.next_submit = now + self.rng.uniform(1, 4)
        time.sleep(POLL_SECS)

    def drive(self):
        t_end = self.t_start + self.args.minutes * 60
        self.ft = threading.Thread(target=self.fault_thread, args=(t_end,), daemon=True)
        self.ft.start()
        self.next_submit = self.next_daemons = 0
        every = self.args.quiet_every * 60
        next_quiet = self.t_start + every if every else None
        while time.time() < t_end:
            self.tick(submit=True)
            if next_quiet and time.time() >= t_end - 60:
                # too late for another: the one at the end follows
                next_quiet = None
                self.quiet_wanted.clear()
            elif next_quiet and time.time() >= next_quiet:
                # no new fault starts; the one running ends first, polled
                self.quiet_wanted.set()
                if self.fault_lock.acquire(blocking=False):
                    try:
                        self.quiet_point()
                    finally:
                        self.fault_lock.release()
                        self.quiet_wanted.clear()
                        self.pause.clear()
                    next_quiet = time.time() + every
        self.quiet_wanted.clear()
        self.log("soak: time is up; no new submission; faults left of the first round run")
        deadline = time.time() + 900
        while self.ft.is_alive() and time.time() < deadline:
            self.tick(submit=False)
        if self.ft.is_alive():
            self.violation("the fault in progress did not end within 15 minutes")
            self.stop_faults.set()
            return
        with self.fault_lock:
            self.quiet_point()
        self.check_daemons()

    def main(self):
        def interrupted(signum, frame):
            raise Interrupted(signal.Signals(signum).name)
        signal.signal(signal.SIGTERM, interrupted)
        signal.signal(signal.SIGINT, interrupted)
        try:
            self.setup()
            self.drive()
        except Interrupted as e:
            self.failed = "interrupted (%s)" % e
        except Exception as e:  # say why, put the cluster back, report
            self.failed = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
        finally:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            self.teardown()
            self.report(time.time() - self.t_start)
        return 1 if self.counts["violations"] or self.failed else 0

    def report(self, secs):
        c = self.counts
        total_jobs = sum(c["jobs"].values())
        checks = sum(c["checks"].values())
        print("== soak: %.1f min (seed %d)%s" % (secs / 60, self.args.seed,
                                                  "; STOPPED: " + self.failed if self.failed else ""))
        print("jobs submitted: %d (%s); refused at submission: %d"
              % (total_jobs, ", ".join("%s %d" % kv for kv in c["jobs"].items()), c["submit_refused"]))
        print("faults: %d (%s)" % (sum(c["faults"].values()),
                                   ", ".join("%s %d" % kv for kv in c["faults"].items() if kv[1])))
        print("preemptions seen: %d allocated, %d unallocated"
              % (c["preemptions"]["allocated"], c["preemptions"]["unallocated"]))
        print("invariant checks: %d (%s); quiet points: %d; jobs left out of the slurmdbd comparison: %d"
              % (checks, ", ".join("%s %d" % kv for kv in c["checks"].items()), c["quiet_points"],
                 c["excluded_backup_jobs"]))
        print("nodes Slurm drained after a fault (resumed): %d%s"
              % (len(c["drained_by_slurm"]), "".join("\n  " + d for d in c["drained_by_slurm"])))
        if c["drained_left_alone"]:
            print("nodes drained for other reasons (left alone): %s" % "; ".join(c["drained_left_alone"]))
        print("violations: %d" % len(c["violations"]))
        for v in c["violations"]:
            print("  " + v)
        if self.args.report:
            with open(self.args.report, "w") as f:
                json.dump({"seconds": int(secs), "seed": self.args.seed, "stopped": self.failed,
                           "counts": c, "faults": self.fault_log}, f, indent=1)


if __name__ == "__main__":
    sys.exit(Soak(parse_args(sys.argv[1:])).main())
