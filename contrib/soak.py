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
                  (default 0: only at the end)
  --report FILE   also write the counts as JSON to FILE

The workload, from three fresh budgets (shares 3:2:1) under a new top-level
account: allocated resumable and non-resumable jobs, unallocated ones, job
arrays, interactive srun jobs, --no-requeue, --nice and --exclusive; 1-8 GPUs,
minimum runtimes of 10-40 s, 15-90 s of work, at most 12 jobs pending.

Checked continuously (every poll, about every 2 s):
  * protected: a job preempted by preempt/budget (its SystemComment's
    budget:preempted_by=J,at=T) ran at least its minimum runtime (the
    AdminComment's min_runtime) before T;
  * responsive: squeue answers within 10 s (but while a controller is down
    on purpose), and every daemon runs that no fault stopped.
At each quiet point (submissions stop, every job is cancelled, the cluster
idle, priority/budget has recalculated and sshare is steady):
  * charged once: each job's charge in priority/budget's ledger equals the
    GPU-seconds of its allocated runs in slurmdbd, within one second of its
    GPUs per run (jobs with a run while the backup had control are left out
    and counted: Slurm 26.05.3's backup sends nothing to slurmdbd);
  * preempted runs in slurmdbd ran their minimum runtime;
  * sbudget's RawUsage equals sshare's for every association, and each soak
    association's RawUsage equals the sum of its jobs' ledger charges.
Prints the counts (jobs by kind, faults by kind, preemptions, invariant
checks, violations) and exits 1 if any invariant was violated, 2 on a usage
error.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import threading
import time

FAULT_KINDS = ["failover", "takeover", "slurmdbd", "mariadb", "node",
               "slurmd", "reconf", "badconf", "share"]
JOB_KINDS = ["allocated-resumable", "allocated-nonresumable", "unallocated",
             "array", "interactive", "no-requeue", "nice", "exclusive"]
NODES = ["gpu01", "gpu02", "gpu03", "gpu04"]
GPUS_PER_NODE = 8
MAX_PENDING = 12
POLL_SECS = 2.0


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
    if not 0 <= a.quiet_every <= 1440:
        die_usage("--quiet-every '%s': out of range (accepted: minutes, 0 to 1440; 0 = at the end only)" % raw)
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
        self.lock = threading.Lock()
        self.expect_down = set()     # daemons a fault stopped on purpose
        self.no_ctld = False         # no controller may answer now
        self.ctl_change_at = 0.0     # when no_ctld last changed
        self.backup_windows = []     # [start, end or None]: backup in control
        self.pause = threading.Event()   # submissions paused
        self.stop_faults = threading.Event()
        self.fault_lock = threading.Lock()  # held while a fault runs
        self.jobs = {}               # job id -> dict
        self.checked = set()         # job ids compared at a quiet point
        self.srun_procs = []
        self.counts = {"jobs": {k: 0 for k in JOB_KINDS}, "submit_refused": 0,
                       "faults": {k: 0 for k in FAULT_KINDS},
                       "preemptions": {"allocated": 0, "unallocated": 0},
                       "checks": {"protected_live": 0, "protected_sacct": 0,
                                  "responsive": 0, "daemons": 0,
                                  "charged_once": 0, "sbudget_sshare": 0,
                                  "sshare_ledger": 0, "budget_conf": 0},
                       "excluded_backup_jobs": 0, "quiet_points": 0,
                       "drained_by_slurm": [],
                       "violations": []}
        self.fault_log = []

    # ------------------------------------------------------------ helpers
    def log(self, msg):
        print("%s %s" % (time.strftime("%H:%M:%S"), msg), flush=True)

    def violation(self, msg):
        with self.lock:
            self.counts["violations"].append(msg)
        self.log("VIOLATION: " + msg)

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
        env = {"SB_BACKUP": "1"} if backup else {}
        return self.run([self.cluster] + list(a), timeout=timeout, env=env)

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

    def pid_alive(self, pidfile, comm):
        try:
            with open(pidfile) as f:
                pid = int(re.sub(r"\D", "", f.readline()) or 0)
            with open("/proc/%d/comm" % pid) as f:
                return f.read().strip() == comm
        except (OSError, ValueError):
            return False

    def daemon_pidfile(self, name):
        if name == "slurmctld-backup":
            return os.path.join(self.dir, "run-backup", "slurmctld.pid")
        return os.path.join(self.dir, "run", name + ".pid")

    def pings_up(self, n):
        rc, out = self.run(["scontrol", "ping"], timeout=20)
        return out.count("is UP") >= n

    # ------------------------------------------------------------- set-up
    def setup(self):
        rc, out = self.run(["scontrol", "ping"], timeout=20)
        if "UP" not in out:
            die_usage("slurmctld does not answer (scontrol ping: %s)" % out.strip())
        self.had_backup = self.pid_alive(self.daemon_pidfile("slurmctld-backup"), "slurmctld")
        if "failover" in self.args.faults or "takeover" in self.args.faults:
            self.fresh_backup()
        t = int(time.time())
        self.parent = "soak%d" % t
        self.accounts = {self.parent + "-a": (3, ["sb-alice", "sb-bob"]),
                         self.parent + "-b": (2, ["sb-carol"]),
                         self.parent + "-c": (1, ["sb-dave"])}
        self.run(["sacctmgr", "-i", "add", "account", self.parent, "parent=root",
                  "fairshare=1", "cluster=sbcluster"], check=True)
        for acct, (share, users) in self.accounts.items():
            self.run(["sacctmgr", "-i", "add", "account", acct, "parent=" + self.parent,
                      "fairshare=%d" % share, "cluster=sbcluster"], check=True)
            self.run(["sacctmgr", "-i", "add", "user", ",".join(users),
                      "account=" + acct, "cluster=sbcluster"], check=True)
        for acct, (share, users) in self.accounts.items():
            for u in users:
                if not self.wait_for("the association %s/%s in sshare" % (acct, u),
                                     lambda a=acct, u=u: self.sshare_has(a, u), 60):
                    raise RuntimeError("association %s/%s never reached slurmctld" % (acct, u))
        self.conf = os.path.join(self.dir, "budget.conf")
        with open(self.conf) as f:
            self.conf_orig = f.read()
        self.log("soak: budgets %s (%s), seed %d, %.1f min, faults %s"
                 % (self.parent, ", ".join("%s:%d" % (a, s) for a, (s, _) in self.accounts.items()),
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
        self.stop_faults.set()
        for p in self.srun_procs:
            if p.poll() is None:
                p.kill()
        for acct in self.accounts:
            self.run(["scancel", "-A", acct], timeout=30)
        with open(self.conf + ".new", "w") as f:
            f.write(self.conf_orig)
        os.replace(self.conf + ".new", self.conf)
        self.run(["scontrol", "reconfigure"], timeout=30)
        self.run(["sacctmgr", "-i", "modify", "account", self.parent, "set", "fairshare=0"], timeout=30)
        if not self.had_backup:
            self.cluster_cmd("up", backup=False)

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
            cmd = ["runuser", "-u", user, "--", "env", "SLURM_CONF=" + os.environ["SLURM_CONF"],
                   "srun", "--quiet"] + args + ["sleep", str(work)]
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 cwd=self.work)
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
            self.submitted_at = time.time()

    # ------------------------------------------------------------ polling
    def epoch(self, s):
        if not s or s in ("Unknown", "None", "N/A"):
            return None
        try:
            return int(time.mktime(time.strptime(s, "%Y-%m-%dT%H:%M:%S")))
        except ValueError:
            return None

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
        with self.lock:
            self.counts["checks"]["responsive"] += 1
        if dt > 10 and not no_ctld:
            self.violation("scontrol show job took %.1f s" % dt)
        pending = 0
        now = time.time()
        for line in out.splitlines():
            m = re.match(r"JobId=(\d+) ", line)
            if not m:
                continue
            jid = int(m.group(1))
            acct = re.search(r" Account=(\S+)", line)
            if not acct or not acct.group(1).startswith(self.parent):
                continue
            state = re.search(r" JobState=(\S+)", line).group(1)
            if state == "PENDING":
                pending += 1
            j = self.jobs.setdefault(jid, {"minrt": None, "start": None, "note": None,
                                           "starts": set(), "owner": None})
            if j["owner"] is None:
                u = re.search(r" UserId=([^( ]+)", line)
                j["owner"] = (acct.group(1), u.group(1) if u else "")
            mr = re.search(r"AdminComment=budget:min_runtime=(\d+)", line)
            if mr:
                j["minrt"] = int(mr.group(1))
            if state in ("RUNNING", "COMPLETING") or state.startswith("RUNNING"):
                st = self.epoch(re.search(r" StartTime=(\S+)", line).group(1))
                if st and state == "RUNNING":
                    j["start"] = st
                    j["starts"].add(st)
            note = re.search(r"SystemComment=budget:preempted_by=(\d+),at=(\d+)", line)
            if note:
                key = (note.group(1), note.group(2))
                if key != j["note"]:
                    j["note"] = key
                    self.check_preemption(jid, j, int(note.group(1)), int(note.group(2)))
        return pending

    def in_backup_window(self, t):
        """T (epoch seconds; None: not recorded) fell while a controller
        change was under way or the backup had control."""
        if t is None:
            return True
        with self.lock:
            for s, e in self.backup_windows:
                if t >= s - 1 and (e is None or t <= e):
                    return True
        return False

    def backup_touched(self, jid, rs):
        """A run of the job started or ended while the backup had control
        (Slurm 26.05.3's backup sends nothing to slurmdbd), or a start seen
        live lies there and slurmdbd has no run for it."""
        for r in rs:
            if r[1].startswith("RUNNING") or r[1].startswith("PENDING") or \
                    self.in_backup_window(self.epoch(r[2])) or self.in_backup_window(self.epoch(r[3])):
                return True
        recorded = {self.epoch(r[2]) for r in rs}
        return any(self.in_backup_window(st) for st in self.jobs.get(jid, {}).get("starts", set()) - recorded)

    def check_preemption(self, jid, j, by, at):
        minrt = j["minrt"] or 0
        with self.lock:
            self.counts["preemptions"]["allocated" if minrt > 0 else "unallocated"] += 1
        if j["start"] is None:
            self.log("job %d preempted by %d at %d: no start seen (checked in slurmdbd later)" % (jid, by, at))
            return
        with self.lock:
            self.counts["checks"]["protected_live"] += 1
        ran = at - j["start"]
        if ran + 1 < minrt:
            self.violation("job %d preempted by %d at %d after %d s, inside its minimum runtime %d s"
                           % (jid, by, at, ran, minrt))

    def check_daemons(self):
        names = ["munged", "mariadb", "slurmdbd", "slurmctld"] + ["slurmd-" + n for n in NODES]
        comm = {"mariadb": "mariadbd"}
        with self.lock:
            down = set(self.expect_down)
        for n in names:
            if n in down:
                continue
            c = comm.get(n, n.split("-")[0])
            if not self.pid_alive(self.daemon_pidfile(n), c):
                # a pid file may be rewritten at a restart: look twice
                time.sleep(1)
                with self.lock:
                    down = set(self.expect_down)
                if n not in down and not self.pid_alive(self.daemon_pidfile(n), c):
                    self.violation("daemon %s is not running and no fault stopped it" % n)
        with self.lock:
            self.counts["checks"]["daemons"] += 1
            if self.no_ctld:
                return
        # A node Slurm itself drained after a fault (e.g. "Duplicate jobid":
        # a job started in the last second before a kill -9 is started
        # again by the next controller) is resumed, as an operator would,
        # and counted.
        rc, out = self.run(["sinfo", "-h", "-N", "-o", "%N|%T|%E"], timeout=20)
        for l in out.splitlines() if rc == 0 else []:
            f = l.split("|")
            if len(f) == 3 and f[1].startswith("drain") and f[2] != "soak":
                self.log("%s drained by Slurm (%s): resumed" % (f[0], f[2]))
                with self.lock:
                    self.counts["drained_by_slurm"].append("%s: %s" % (f[0], f[2]))
                self.run(["scontrol", "update", "nodename=" + f[0], "state=resume"])

    # ------------------------------------------------------------- faults
    def fault_thread(self, t_end):
        order = []
        while not self.stop_faults.is_set() and time.time() < t_end - 30:
            if not order:
                order = list(self.args.faults)
                self.fault_rng.shuffle(order)
                if not order:
                    return
            kind = order.pop(0)
            if self.stop_faults.wait(self.fault_rng.randint(3, 10)):
                return
            if time.time() > t_end - 30:
                return
            with self.fault_lock:
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

    def saved_after_pause(self):
        """Pause submissions and wait until slurmctld has saved its job state
        after the last submission (a kill -9 loses what it has not saved)."""
        self.pause.set()
        t = int(time.time()) + 1
        time.sleep(1.5)
        st = os.path.join(self.dir, "state", "job_state")
        return self.wait_for("slurmctld to save its job state",
                             lambda: os.path.getmtime(st) > t, 30)

    def back_to_primary(self, mark):
        """Start the primary again; it takes control back from the backup."""
        pm = self.log_size(self.ctld_log)
        rc, out = self.cluster_cmd("up", timeout=300)
        ok = rc == 0 and self.wait_for(
            "the primary in control again",
            lambda: self.log_has(self.ctld_log, pm, r"Running as primary controller"), 90)
        ok = ok and self.wait_for("priority/budget on the primary",
                                  lambda: self.log_has(self.ctld_log, pm, r"priority/budget: loaded the ledger"), 60)
        with self.lock:
            self.expect_down.discard("slurmctld")
            self.no_ctld = False
            self.ctl_change_at = time.time()
            self.backup_windows[-1][1] = time.time() + 5
        # the backup that had control is replaced by a fresh one
        self.fresh_backup()
        self.pause.clear()
        return ok

    def fault_failover(self):
        self.saved_after_pause()
        mark = self.log_size(self.backup_log)
        with self.lock:
            self.expect_down.add("slurmctld")
            self.no_ctld = True
            self.ctl_change_at = time.time()
            self.backup_windows.append([time.time(), None])
        self.cluster_cmd("kill-ctld")
        ok = self.wait_for("the backup to take over",
                           lambda: self.log_has(self.backup_log, mark, r"Running as primary controller"), 60)
        ok = ok and self.wait_for("priority/budget on the backup",
                                  lambda: self.log_has(self.backup_log, mark, r"priority/budget: loaded the ledger"), 60)
        with self.lock:
            self.no_ctld = False
            self.ctl_change_at = time.time()
        self.pause.clear()
        time.sleep(self.fault_rng.randint(10, 20))
        self.pause.set()
        with self.lock:
            self.no_ctld = True
            self.ctl_change_at = time.time()
        return self.back_to_primary(mark) and ok

    def fault_takeover(self):
        self.saved_after_pause()
        mark = self.log_size(self.backup_log)
        with self.lock:
            self.expect_down.add("slurmctld")
            self.no_ctld = True
            self.ctl_change_at = time.time()
            self.backup_windows.append([time.time(), None])
        self.run(["scontrol", "takeover"], timeout=60)
        ok = self.wait_for("the backup to take control",
                           lambda: self.log_has(self.backup_log, mark, r"Running as primary controller"), 60)
        ok = ok and self.wait_for("priority/budget on the backup",
                                  lambda: self.log_has(self.backup_log, mark, r"priority/budget: loaded the ledger"), 60)
        with self.lock:
            self.no_ctld = False
            self.ctl_change_at = time.time()
        self.pause.clear()
        time.sleep(self.fault_rng.randint(10, 20))
        self.pause.set()
        with self.lock:
            self.no_ctld = True
            self.ctl_change_at = time.time()
        return self.back_to_primary(mark) and ok

    def stop_daemon(self, name, secs):
        pidfile = self.daemon_pidfile(name)
        with open(pidfile) as f:
            pid = int(re.sub(r"\D", "", f.readline()))
        with self.lock:
            self.expect_down.add(name)
        os.kill(pid, 15)
        self.wait_for(name + " to stop", lambda: not os.path.exists("/proc/%d" % pid), 30)
        time.sleep(secs)
        rc, out = self.cluster_cmd("up")
        with self.lock:
            self.expect_down.discard(name)
        return rc == 0

    def fault_slurmdbd(self):
        return self.stop_daemon("slurmdbd", self.fault_rng.randint(10, 20))

    def fault_mariadb(self):
        return self.stop_daemon("mariadb", self.fault_rng.randint(10, 20))

    def fault_node(self):
        node = self.fault_rng.choice(NODES)
        rc, _ = self.run(["scontrol", "update", "nodename=" + node, "state=down", "reason=soak"])
        time.sleep(self.fault_rng.randint(10, 20))
        # ReturnToService may have brought it back already: then Slurm
        # refuses the resume, and the node is up all the same
        self.run(["scontrol", "update", "nodename=" + node, "state=resume"])
        ok = rc == 0
        ok = ok and self.wait_for(node + " back up", lambda: self.node_up(node), 60)
        if not ok:
            self.log("%s: %s" % (node, self.run(["sinfo", "-h", "-n", node, "-o", "%T %E"])[1].strip()))
        return ok

    def node_up(self, node):
        rc, out = self.run(["sinfo", "-h", "-n", node, "-o", "%T"], timeout=20)
        return rc == 0 and out.strip() not in ("", "down", "down*", "drained", "draining") \
            and not out.strip().startswith("down")

    def fault_slurmd(self):
        node = self.fault_rng.choice(NODES)
        name = "slurmd-" + node
        with open(self.daemon_pidfile(name)) as f:
            pid = int(re.sub(r"\D", "", f.readline()))
        with self.lock:
            self.expect_down.add(name)
        os.kill(pid, 9)
        time.sleep(self.fault_rng.randint(10, 20))
        rc, out = self.cluster_cmd("up")
        with self.lock:
            self.expect_down.discard(name)
        return rc == 0 and self.wait_for(node + " responding", lambda: self.node_up(node), 60)

    def write_conf(self, text):
        with open(self.conf + ".new", "w") as f:
            f.write(text)
        os.replace(self.conf + ".new", self.conf)

    def reconfigure_read(self, regex):
        mark = self.log_size(self.ctld_log)
        self.run(["scontrol", "reconfigure"], timeout=60)
        ok = True
        for who in ("priority/budget", "preempt/budget"):
            ok = ok and self.wait_for(who + " to read budget.conf", lambda w=who: self.log_has(
                self.ctld_log, mark, w + ": " + regex), 30)
        with self.lock:
            self.counts["checks"]["budget_conf"] += 1
        return ok

    def fault_reconf(self):
        v = self.fault_rng.choice(["7:59:00", "8:00:00", "6:00:00"])
        text = re.sub(r"(?m)^MaxMinRuntime=.*$", "MaxMinRuntime=" + v, self.conf_orig)
        self.write_conf(text)
        ok = self.reconfigure_read(r"read .*budget\.conf: ")
        if not ok:
            self.violation("budget.conf with MaxMinRuntime=%s: not read after reconfigure" % v)
        return ok

    def fault_badconf(self):
        self.write_conf(self.conf_orig + "\nMaxMinRuntime=banana\n")
        ok = self.reconfigure_read(r".*keeping the previous settings")
        if not ok:
            self.violation("an invalid budget.conf was not refused (keeping the previous settings)")
        time.sleep(self.fault_rng.randint(5, 10))
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
        self.pause.set()
        with self.lock:
            self.counts["quiet_points"] += 1
        for p in self.srun_procs:
            if p.poll() is None:
                p.kill()
        for acct in self.accounts:
            self.run(["scancel", "-A", acct], timeout=30)
        if not self.wait_for("the soak's jobs to end", lambda: self.soak_jobs_queued() == 0, 120):
            self.violation("soak jobs still queued 120 s after scancel")
            return
        # recorded by slurmdbd (but runs of the backup), recalculated, steady
        t0 = time.time()
        self.wait_for("slurmdbd to close the soak's runs", self.dbd_closed, 120)
        ledger = os.path.join(self.dir, "state", "budget_ledger.json")
        self.wait_for("a recalculation after the queue emptied",
                      lambda: os.path.getmtime(ledger) >= t0 + 2, 60)
        prev = None
        for _ in range(30):
            cur = self.run(["sshare", "-a", "-n", "-P", "-o", "Account,User,RawUsage"], timeout=30)[1]
            if cur == prev:
                break
            prev = cur
            time.sleep(2)
        self.check_charges(ledger)
        self.check_sbudget()

    def soak_jobs_queued(self):
        rc, out = self.run(["squeue", "-h", "-o", "%a"], timeout=30)
        if rc != 0:
            return 1
        return sum(1 for l in out.split() if l.startswith(self.parent))

    def sacct_runs(self):
        rc, out = self.run(["sacct", "-a", "-n", "-P", "-D", "-X", "-A", ",".join(self.accounts),
                            "-S", "now-2days", "-o",
                            "JobIDRaw,State,Start,End,ElapsedRaw,AllocTRES,AdminComment,Account,User"], timeout=60)
        runs = {}
        for l in out.splitlines():
            f = l.split("|")
            if len(f) < 9 or not f[0].isdigit():
                continue
            runs.setdefault(int(f[0]), []).append(f)
        return runs

    def dbd_closed(self):
        for jid, rs in self.sacct_runs().items():
            if any(r[3] == "Unknown" for r in rs) and not self.backup_touched(jid, rs):
                return False
        return True

    def check_charges(self, ledger_path):
        """Each job's ledger charge against slurmdbd's runs; keeps the
        ledger's per-association totals and per-job charges for
        check_sbudget."""
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
            if j["owner"]:
                self.job_owner.setdefault(jid, j["owner"])
        compared = excluded = 0
        for jid, rs in sorted(runs.items()):
            if jid in self.checked:
                continue    # compared at an earlier quiet point
            self.checked.add(jid)
            if self.backup_touched(jid, rs):
                excluded += 1
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
                    with self.lock:
                        self.counts["checks"]["protected_sacct"] += 1
                    if el + 1 < minrt:
                        self.violation("slurmdbd: job %d run %s-%s preempted after %d s, inside its minimum runtime %d s"
                                       % (jid, r[2], r[3], el, minrt))
            got = charged.get(jid, 0)
            compared += 1
            if abs(got - want) > max(slack, 1):
                self.violation("job %d: ledger charged %.0f GPU-s, slurmdbd's allocated runs %d (%s)"
                               % (jid, got, want, "; ".join("%s %s %s %s" % (r[1], r[2], r[4], r[5]) for r in rs)))
        with self.lock:
            self.counts["checks"]["charged_once"] += compared
            self.counts["excluded_backup_jobs"] += excluded
        self.log("quiet point: %d jobs compared with slurmdbd, %d left out (a run while the backup had control)"
                 % (compared, excluded))

    def check_sbudget(self):
        """sbudget's RawUsage = sshare's everywhere; for the soak's
        associations, RawUsage = the ledger's total = its jobs' charges."""
        sb = self.run(["sbudget", "-P", "-n", "show", "budget",
                       "format=Account,User,RawUsage,AssocId"], timeout=60)
        sh = self.run(["sshare", "-a", "-n", "-P", "-o", "Account,User,RawUsage"], timeout=60)
        if sb[0] != 0 or sh[0] != 0:
            self.violation("sbudget (%d) or sshare (%d) failed: %s" % (sb[0], sh[0], (sb[1] + sh[1])[-300:]))
            return
        sshare = {}
        for l in sh[1].splitlines():
            f = l.split("|")
            if len(f) >= 3:
                sshare[(f[0].strip(), f[1])] = f[2]
        n = m = 0
        for l in sb[1].splitlines():
            f = l.split("|")
            if len(f) < 4:
                continue
            acct, user, raw, aid = f[0].strip(), f[1], f[2], f[3]
            n += 1
            if sshare.get((acct, user)) != raw:
                self.violation("%s/%s: sbudget RawUsage %s, sshare %s" % (acct, user, raw, sshare.get((acct, user))))
            if not (user and acct.startswith(self.parent) and aid.isdigit()):
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
        with self.lock:
            self.counts["checks"]["sbudget_sshare"] += n
            self.counts["checks"]["sshare_ledger"] += m

    # --------------------------------------------------------------- main
    def main(self):
        self.setup()
        t_start = time.time()
        t_end = t_start + self.args.minutes * 60
        ft = threading.Thread(target=self.fault_thread, args=(t_end,), daemon=True)
        ft.start()
        next_submit = next_quiet = 0
        if self.args.quiet_every > 0:
            next_quiet = t_start + self.args.quiet_every * 60
        next_daemons = 0
        try:
            while time.time() < t_end:
                pending = self.poll()
                now = time.time()
                if now >= next_daemons:
                    self.check_daemons()
                    next_daemons = now + 5
                if pending is not None and not self.pause.is_set() and now >= next_submit:
                    if pending < MAX_PENDING:
                        self.submit_one()
                    next_submit = now + self.rng.uniform(1, 4)
                if next_quiet and now >= next_quiet and now < t_end - 60:
                    with self.fault_lock:
                        self.quiet_point()
                    self.pause.clear()
                    next_quiet = time.time() + self.args.quiet_every * 60
                time.sleep(POLL_SECS)
            self.stop_faults.set()
            self.log("soak: time is up; waiting for the fault in progress")
            ft.join(300)
            self.pause.set()
            self.quiet_point()
            self.check_daemons()
        finally:
            self.teardown()
        self.report(time.time() - t_start)
        return 1 if self.counts["violations"] else 0

    def report(self, secs):
        c = self.counts
        total_jobs = sum(c["jobs"].values())
        checks = sum(c["checks"].values())
        print("== soak: %.1f min (seed %d)" % (secs / 60, self.args.seed))
        print("jobs submitted: %d (%s); refused at submission: %d"
              % (total_jobs, ", ".join("%s %d" % kv for kv in c["jobs"].items()), c["submit_refused"]))
        print("faults: %d (%s)" % (sum(c["faults"].values()),
                                   ", ".join("%s %d" % kv for kv in c["faults"].items() if kv[1])))
        print("preemptions seen: %d allocated, %d unallocated"
              % (c["preemptions"]["allocated"], c["preemptions"]["unallocated"]))
        print("invariant checks: %d (%s); jobs left out of the slurmdbd comparison: %d"
              % (checks, ", ".join("%s %d" % kv for kv in c["checks"].items()), c["excluded_backup_jobs"]))
        print("nodes Slurm drained after a fault (resumed): %d%s"
              % (len(c["drained_by_slurm"]), "".join("\n  " + d for d in c["drained_by_slurm"])))
        print("violations: %d" % len(c["violations"]))
        for v in c["violations"]:
            print("  " + v)
        if self.args.report:
            with open(self.args.report, "w") as f:
                json.dump({"seconds": int(secs), "seed": self.args.seed, "counts": c,
                           "faults": self.fault_log}, f, indent=1)


if __name__ == "__main__":
    sys.exit(Soak(parse_args(sys.argv[1:])).main())
