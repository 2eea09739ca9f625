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

FAULT_KINDS = ["failover", "takeover", "slurmdbd", "mariadb", "node",
               "slurmd", "reconf", "badconf", "share"]
JOB_KINDS = ["allocated-resumable", "allocated-nonresumable", "unallocated",
             "array", "interactive", "no-requeue", "nice", "exclusive"]
NODES = ["gpu01", "gpu02", "gpu03", "gpu04"]
GPUS_PER_NODE = 8
MAX_PENDING = 12
POLL_SECS = 2.0
# Drain reasons Slurm itself sets after the faults the soak injects; a node
# drained for one of these is resumed.  Any other drain is left alone and
# reported.
SLURM_FAULT_DRAINS = ("Duplicate jobid", "Kill task failed")


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


class Soak:
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

    # ------------------------------------------------------------- faults
    def fault_thread(self, t_end):
        """Faults one at a time, every kind once (in a seeded order) before
        any repeats; the first round runs whole, later ones stop 30 s
        before @t_end."""
        order, rounds = [], 0
        while not self.stop_faults.is_set():
            if not order:
                if (rounds and time.time() > t_end - 30) or not self.args.faults:
                    return
                order = list(self.args.faults)
                self.fault_rng.shuffle(order)
                rounds += 1
            if rounds > 1 and time.time() > t_end - 30:
                return
            kind = order.pop(0)
            if self.stop_faults.wait(self.fault_rng.randint(3, 10)):
                return
            while self.quiet_wanted.is_set() and not self.stop_faults.is_set():
                time.sleep(0.5)
            with self.fault_lock:
                if self.stop_faults.is_set():
                    return
                t0 = time.time()
                self.log("fault %s" % kind)
                try:
                    ok = getattr(self, "fault_" + kind)()
                except Exception as e:  # a fault's step failed: say so, count it
                    ok = False
                    self.log("fault %s: %s" % (kind, e))
                with self.lock:
                    self.counts["faults"][kind] += 1
                self.fault_log.append({"kind": kind, "at": int(t0), "secs": int(time.time() - t0),
                                       "ok": bool(ok)})
                self.log("fault %s done in %d s%s" % (kind, time.time() - t0, "" if ok else " (FAILED)"))
                if not ok:
                    self.violation("fault %s: the cluster did not recover as expected" % kind)

    def wait_saved(self):
        """Wait until slurmctld has saved its job state after the pause
        began (a kill -9 loses what it has not saved), or 30 s: slurmctld
        saves within seconds of a change, so a file not saved since has
        nothing newer to save (26.05 saves an unchanged state only every
        300 s).  Always True: the wait is a courtesy, not a check."""
        t = int(time.time()) + 1
        time.sleep(1.5)
        st = os.path.join(self.dir, "state", "job_state")

        def saved():
            try:   # Slurm renames the file into place: it may be missing
                return os.path.getmtime(st) > t
            except OSError:
                return False
        if not self.wait_for("slurmctld to save its job state", saved, 30):
            self.log("no job-state save for 30 s: nothing changed since the last one")
        return True

    def set_no_ctld(self, v):
        with self.lock:
            self.no_ctld = v
            self.ctl_change_at = time.time()

    def to_backup(self, how):
        """Hand control to the backup (kill -9 of the primary, or scontrol
        takeover), run there 10-20 s, then the primary takes it back; the
        backup is replaced by a fresh one.  The cluster ends with the
        primary in control however a step fails."""
        self.pause.set()
        ok = False
        try:
            ok = self.wait_saved()
            mark = self.log_size(self.backup_log)
            with self.lock:
                self.expect_down.add("slurmctld")
                self.backup_windows.append([time.time(), None])
            self.set_no_ctld(True)
            if how == "kill":
                self.cluster_cmd("kill-ctld")
            else:
                self.run(["scontrol", "takeover"], timeout=60)
            ok = self.wait_for("the backup to take control",
                               lambda: self.log_has(self.backup_log, mark, r"Running as primary controller"), 60) and ok
            ok = self.wait_for("priority/budget on the backup",
                               lambda: self.log_has(self.backup_log, mark, r"priority/budget: loaded the ledger"), 60) and ok
            self.set_no_ctld(False)
            self.pause.clear()
            time.sleep(self.fault_rng.randint(10, 20))
            self.pause.set()
        finally:
            self.set_no_ctld(True)
            pm = self.log_size(self.ctld_log)
            rc, out = self.cluster_cmd("up", timeout=300)
            back = rc == 0 and self.wait_for(
                "the primary in control again",
                lambda: self.log_has(self.ctld_log, pm, r"Running as primary controller"), 90)
            back = back and self.wait_for(
                "priority/budget on the primary",
                lambda: self.log_has(self.ctld_log, pm, r"priority/budget: loaded the ledger"), 60)
            with self.lock:
                self.expect_down.discard("slurmctld")
                if self.backup_windows and self.backup_windows[-1][1] is None:
                    self.backup_windows[-1][1] = time.time() + 5
            self.set_no_ctld(False)
            try:
                self.fresh_backup()
            except RuntimeError as e:
                self.log(str(e))
                back = False
            self.pause.clear()
        return ok and back

    def fault_failover(self):
        return self.to_backup("kill")

    def fault_takeover(self):
        return self.to_backup("takeover")

    def stop_daemon(self, name, secs):
        pid = self.read_pid(name)
        if pid <= 0:
            raise RuntimeError("no pid for %s" % name)
        with self.lock:
            self.expect_down.add(name)
        try:
            os.kill(pid, signal.SIGTERM)
            self.wait_for(name + " to stop", lambda: not os.path.exists("/proc/%d" % pid), 30)
            time.sleep(secs)
        finally:
            rc, out = self.cluster_cmd("up")
            with self.lock:
                self.expect_down.discard(name)
        return rc == 0

    def fault_slurmdbd(self):
        return self.stop_daemon("slurmdbd", self.fault_rng.randint(10, 20))

    def fault_mariadb(self):
        return self.stop_daemon("mariadb", self.fault_rng.randint(10, 20))

    def node_up(self, node):
        rc, out = self.run(["sinfo", "-h", "-n", node, "-o", "%T"], timeout=20)
        st = out.strip()
        return rc == 0 and st != "" and not st.startswith(("down", "drain", "fail"))

    def fault_node(self):
        node = self.fault_rng.choice(NODES)
        self.downed_nodes.add(node)
        try:
            rc, _ = self.run(["scontrol", "update", "nodename=" + node, "state=down", "reason=soak"])
            time.sleep(self.fault_rng.randint(10, 20))
        finally:
            # ReturnToService may have brought it back already: then Slurm
            # refuses the resume, and the node is up all the same
            self.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        ok = rc == 0 and self.wait_for(node + " back up", lambda: self.node_up(node), 60)
        if ok:
            self.downed_nodes.discard(node)
        else:
            self.log("%s: %s" % (node, self.run(["sinfo", "-h", "-n", node, "-o", "%T %E"])[1].strip()))
        return ok

    def fault_slurmd(self):
        node = self.fault_rng.choice(NODES)
        name = "slurmd-" + node
        pid = self.read_pid(name)
        if pid <= 0:
            raise RuntimeError("no pid for " + name)
        with self.lock:
            self.expect_down.add(name)
        try:
            os.kill(pid, signal.SIGKILL)
            time.sleep(self.fault_rng.randint(10, 20))
        finally:
            rc, out = self.cluster_cmd("up")
            with self.lock:
                self.expect_down.discard(name)
        return rc == 0 and self.wait_for(node + " responding", lambda: self.node_up(node), 60)

    def write_conf(self, text):
        with open(self.conf + ".new", "w") as f:
            f.write(text)
        os.replace(self.conf + ".new", self.conf)

    def reconfigure_read(self, regex):
        """scontrol reconfigure; both controller plugins log REGEX after it."""
        mark = self.log_size(self.ctld_log)
        self.run(["scontrol", "reconfigure"], timeout=60)
        ok = True
        for who in ("priority/budget", "preempt/budget"):
            ok = ok and self.wait_for(who + " to read budget.conf", lambda w=who: self.log_has(
                self.ctld_log, mark, w + ": " + regex), 30)
        self.count("budget_conf")
        return ok

    def fault_reconf(self):
        v = self.fault_rng.choice(["7:59:00", "8:00:00", "6:00:00"])
        text = re.sub(r"(?m)^MaxMinRuntime=.*$", "MaxMinRuntime=" + v, self.conf_orig)
        self.write_conf(text)
        ok = self.reconfigure_read(r"read .*budget\.conf: .*MaxMinRuntime=" + v)
        if not ok:
            self.violation("budget.conf with MaxMinRuntime=%s: not read after reconfigure" % v)
        return ok

    def fault_badconf(self):
        try:
            self.write_conf(self.conf_orig + "\nMaxMinRuntime=banana\n")
            ok = self.reconfigure_read(r".*keeping the previous settings")
            if not ok:
                self.violation("an invalid budget.conf was not refused (keeping the previous settings)")
            time.sleep(self.fault_rng.randint(5, 10))
        finally:
            self.write_conf(self.conf_orig)
        return self.reconfigure_read(r"read .*budget\.conf: ") and ok

    def fault_share(self):
        acct = self.fault_rng.choice(sorted(self.accounts))
        share = self.fault_rng.randint(1, 5)
        rc, out = self.run(["sacctmgr", "-i", "modify", "account", acct, "set",
                            "fairshare=%d" % share], timeout=60)
        self.log("share of %s -> %d" % (acct, share))
        return rc == 0

    # -------------------------------------------------------- quiet point
    def quiet_point(self):
        """Called with fault_lock held: cancel everything, wait until the
        cluster is idle and slurmdbd and the ledger have it all, compare."""
        self.pause.set()
        with self.lock:
            self.counts["quiet_points"] += 1
        self.kill_sruns()
        for acct in self.accounts:
            self.run(["scancel", "-A", acct], timeout=30)
        if not self.wait_for("the soak's jobs to end", lambda: self.soak_jobs_queued() == 0, 120):
            self.violation("soak jobs still queued 120 s after scancel")
            return
        t0 = time.time()
        self.poll()    # the jobs' last states
        self.wait_for("slurmdbd to close the soak's runs", self.dbd_closed, 120)
        ledger = os.path.join(self.dir, "state", "budget_ledger.json")
        if not self.wait_for("a recalculation after the queue emptied",
                             lambda: os.path.getmtime(ledger) >= t0 + 2, 60):
            self.violation("priority/budget saved no ledger within 60 s of an idle queue")
        prev = None
        for _ in range(30):
            cur = self.run(["sshare", "-a", "-n", "-P", "-o", "Account,User,RawUsage"], timeout=30)[1]
            if cur == prev:
                break
            prev = cur
            time.sleep(2)
        else:
            self.log("sshare still changing after 60 s")
        self.check_charges(ledger)
        self.check_sbudget()

    def soak_jobs_queued(self):
        rc, out = self.run(["squeue", "-h", "-o", "%a"], timeout=30)
        if rc != 0:
            return 1
        return sum(1 for l in out.split() if l.startswith(self.parent + "-"))

    def sacct_runs(self):
        rc, out = self.run(["sacct", "-a", "-n", "-P", "-D", "-X", "-A", ",".join(self.accounts),
                            "-S", "now-2days", "-o",
                            "JobIDRaw,State,Start,End,ElapsedRaw,AllocTRES,AdminComment,Account,User"],
                           timeout=60)
        runs = {}
        for l in out.splitlines():
            f = l.split("|")
            if len(f) < 9 or not f[0].isdigit():
                continue
            runs.setdefault(int(f[0]), []).append(f)
        return runs

    def backup_touched(self, jid, rs):
        """slurmdbd may lack some of the job's records because the backup
        had control: a run (recorded or seen) started or ended then, or the
        job existed then and slurmdbd has no record of it, a run still open
        or a start missing (its submission, end or requeue happened on the
        backup).  A run that only spans a turn of
        the backup, started and ended by the primary, is recorded whole."""
        j = self.jobs.get(jid, {})
        for r in rs:
            for t in (self.epoch(r[2]), self.epoch(r[3])):
                if t is not None and self.window_open(t):
                    return True
        if any(self.window_open(t) for t in j.get("starts", ())):
            return True
        # a job submitted to the backup has no record of its submission in
        # slurmdbd: a later start by the primary may be missing there too
        missing = j.get("starts", set()) - {self.epoch(r[2]) for r in rs}
        return bool(j.get("backup")) and (not rs or bool(self.open_runs(rs)) or bool(missing))

    def open_runs(self, rs):
        return [r for r in rs if r[3] == "Unknown" or r[1].startswith(("RUNNING", "PENDING", "REQUEUED"))]

    def dbd_closed(self):
        runs = self.sacct_runs()
        for jid in set(runs) | set(self.jobs):
            if jid in self.checked:
                continue
            rs = runs.get(jid, [])
            if self.backup_touched(jid, rs):
                continue
            if not rs or self.open_runs(rs):
                return False
        return True

    def check_charges(self, ledger_path):
        """Every soak job not yet settled: in slurmdbd, runs closed, the
        ledger's charge = slurmdbd's GPU-seconds.  Keeps the ledger's
        per-association totals and per-job charges for check_sbudget()."""
        with open(ledger_path) as f:
            doc = json.load(f)
        now = time.time()
        # per association: (allocated, unallocated) TRES-seconds
        self.ledger_assoc = {a["id"]: (sum(b[1] for b in a["buckets"] if b[0] <= now),
                                       sum(b[2] for b in a["buckets"] if b[0] <= now))
                             for a in doc.get("associations", [])}
        charged = {}
        for job_id, _charged_at, c in doc.get("jobs", []):
            charged[job_id] = charged.get(job_id, 0) + c
        self.ledger_job = charged
        runs = self.sacct_runs()
        self.allocated_jobs = {jid for jid, j in self.jobs.items() if (j["minrt"] or 0) > 0}
        self.job_owner = {jid: (rs[0][7], rs[0][8]) for jid, rs in runs.items()}
        for jid, j in self.jobs.items():
            self.job_owner.setdefault(jid, j["owner"])
        compared = excluded = 0
        for jid in sorted(set(runs) | set(self.jobs)):
            if jid in self.checked:
                continue
            rs = runs.get(jid, [])
            self.checked.add(jid)
            if self.backup_touched(jid, rs):
                excluded += 1
                continue
            if not rs:
                self.violation("job %d (seen in slurmctld) is not in slurmdbd" % jid)
                continue
            if self.open_runs(rs):
                self.violation("job %d: slurmdbd has not closed its runs: %s"
                               % (jid, "; ".join("%s %s-%s" % (r[1], r[2], r[3]) for r in self.open_runs(rs))))
                continue
            missing = self.jobs.get(jid, {}).get("starts", set()) - {self.epoch(r[2]) for r in rs}
            if missing:
                self.violation("job %d: runs started at %s seen in slurmctld, not in slurmdbd"
                               % (jid, ", ".join(time.strftime("%H:%M:%S", time.localtime(t)) for t in sorted(missing))))
            # every run is charged: an allocated job's to its budget, an
            # unallocated one's as unallocated usage
            want = slack = 0
            for r in rs:
                mr = re.search(r"budget:min_runtime=(\d+)", r[6])
                minrt = int(mr.group(1)) if mr else 0
                if minrt > 0:
                    self.allocated_jobs.add(jid)
                g = re.search(r"gres/gpu=(\d+)", r[5])
                gpus = int(g.group(1)) if g else 0
                el = int(r[4] or 0)
                want += el * gpus
                slack += gpus
                if r[1].startswith("PREEMPTED"):
                    self.count("protected_sacct")
                    if el + 1 < minrt:
                        self.violation("slurmdbd: job %d run %s-%s preempted after %d s, inside its minimum runtime %d s"
                                       % (jid, r[2], r[3], el, minrt))
            got = charged.get(jid, 0)
            compared += 1
            if abs(got - want) > max(slack, 1):
                self.violation("job %d: ledger charged %.0f GPU-s, slurmdbd's runs %d (%s)"
                               % (jid, got, want, "; ".join("%s %s %s %s" % (r[1], r[2], r[4], r[5]) for r in rs)))
        self.count("charged_once", compared)
        with self.lock:
            self.counts["excluded_backup_jobs"] += excluded
        self.log("quiet point: %d jobs compared with slurmdbd, %d left out (ran while the backup may have had control)"
                 % (compared, excluded))

    def read_figures(self):
        sb = self.run(["sbudget", "-P", "-n", "show", "budget",
                       "format=Account,User,RawUsage,AssocId"], timeout=60)
        sh = self.run(["sshare", "-a", "-n", "-P", "-o", "Account,User,RawUsage"], timeout=60)
        if sb[0] != 0 or sh[0] != 0:
            return None, None, "sbudget (%d) or sshare (%d) failed: %s" % (sb[0], sh[0], (sb[1] + sh[1])[-300:])
        sbudget, sshare = {}, {}
        for l in sb[1].splitlines():
            f = l.split("|")
            if len(f) >= 4:
                sbudget[(f[0].strip(), f[1])] = (f[2], f[3])
        for l in sh[1].splitlines():
            f = l.split("|")
            if len(f) >= 3:
                sshare[(f[0].strip(), f[1])] = f[2]
        return sbudget, sshare, None

    def figure_diffs(self, sbudget, sshare):
        d = ["%s/%s: sbudget RawUsage %s, sshare %s" % (k[0], k[1], v[0], sshare.get(k))
             for k, v in sorted(sbudget.items()) if sshare.get(k) != v[0]]
        d += ["%s/%s: in sshare (RawUsage %s), not in sbudget" % (k[0], k[1], v)
              for k, v in sorted(sshare.items()) if k[0].startswith(self.parent) and k not in sbudget]
        return d

    def check_sbudget(self):
        """sbudget's RawUsage = sshare's everywhere; for the soak's
        associations, RawUsage = the ledger's total = its jobs' charges."""
        sbudget, sshare, err = self.read_figures()
        if err:
            self.violation(err)
            return
        diffs = self.figure_diffs(sbudget, sshare)
        if diffs:   # usage may have aged out of the window between the two
            self.log("sbudget and sshare differ (%s): reading both again" % diffs[0])
            sbudget, sshare, err = self.read_figures()
            diffs = [err] if err else self.figure_diffs(sbudget, sshare)
        for d in diffs:
            self.violation(d)
        self.count("sbudget_sshare", len(sbudget or {}))
        m = 0
        for (acct, user), (raw, aid) in sorted((sbudget or {}).items()):
            if not (user and acct.startswith(self.parent + "-") and aid.isdigit()):
                continue
            m += 1
            led, led_un = self.ledger_assoc.get(int(aid), (0.0, 0.0))
            mine = [jid for jid in self.ledger_job if self.job_owner.get(jid) == (acct, user)]
            jobs = sum(self.ledger_job[j] for j in mine if j in self.allocated_jobs)
            jobs_un = sum(self.ledger_job[j] for j in mine if j not in self.allocated_jobs)
            if abs(float(raw or 0) - led) > 1:
                self.violation("%s/%s: sshare RawUsage %s, ledger %.1f" % (acct, user, raw, led))
            if abs(led - jobs) > 1 + 1e-6 * led or abs(led_un - jobs_un) > 1 + 1e-6 * led_un:
                self.violation("%s/%s: ledger %.1f allocated and %.1f unallocated, its jobs' charges %.1f and %.1f"
                               % (acct, user, led, led_un, jobs, jobs_un))
        want = sum(len(u) for _, u in self.accounts.values())
        if m != want:
            self.violation("sbudget listed %d of the soak's %d user associations" % (m, want))
        self.count("sshare_ledger", m)

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
