"""soak_lib/quiet.py - contrib/soak.py's quiet points: submissions stop,
every job is cancelled, the cluster goes idle; then the charges in the
ledger are compared with slurmdbd's runs and sbudget's figures with
sshare's.

QuietPoint is a mixin of soak.py's Soak: it uses Soak's state and helpers.
"""

import json
import os
import re
import time


class QuietPoint:
    """The checks at a quiet point (mixin of Soak)."""

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
