"""soak_lib/faults.py - the faults contrib/soak.py injects: the fault thread,
a controller change to the backup and back, daemons stopped and started,
a node down, budget.conf changed or made invalid, a RawShares change.

Faults is a mixin of soak.py's Soak: it uses Soak's state and helpers.
"""

import os
import re
import signal
import time

from soak_lib.common import NODES


class Faults:
    """The faults of the soak (mixin of Soak)."""

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
