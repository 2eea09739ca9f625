# shellcheck shell=bash
# t-soak.sh - the soak's short form: contrib/soak.py drives the cluster for
# SB_SOAK_MINUTES (default 5; every fault kind runs once however long that takes) with a seeded random workload (every contract
# kind, arrays, interactive srun, --no-requeue, --nice, --exclusive) and
# seeded faults (failover and takeover to a backup slurmctld, slurmdbd and
# MariaDB stopped, a node down, a slurmd killed, budget.conf changed and
# broken, shares changed), checking its invariants throughout; the test
# passes when it reports no violation and every fault kind happened.
# Named test_zz_ to run last: Slurm 26.05.3's backup in control sends no
# job records to slurmdbd, and a later test would wait on those runs.

test_zz_soak_with_faults() {
	local out rc=0 report=$SB_CLUSTER_DIR/test-logs/soak.json
	rm -f "$report"
	out=$("$SB_REPO/contrib/soak.py" --minutes "${SB_SOAK_MINUTES:-5}" \
		--seed "${SB_SOAK_SEED:-1}" --report "$report" 2>&1) || rc=$?
	printf '%s\n' "$out" | sed -n '/^== soak/,$p' >&2
	[ "$rc" -eq 0 ] || { say "soak.py exited $rc"; printf '%s\n' "$out" | tail -n 30 >&2; return 1; }
	expect_in "$out" "violations: 0"
	# the report: every fault kind happened, jobs ran, invariants were checked
	python3 - "$report" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counts"]
missing = [k for k, n in c["faults"].items() if n == 0]
assert not missing, "fault kinds that did not happen: %s" % missing
ck = c["checks"]
assert sum(c["jobs"].values()) >= 20, c["jobs"]
assert ck["charged_once"] >= 10, ck
assert ck["charged_once"] >= c["excluded_backup_jobs"] / 2, (ck, c["excluded_backup_jobs"])
assert ck["protected_live"] >= 1 and ck["protected_sacct"] >= 1, ck
assert ck["sshare_ledger"] >= 4 and ck["sbudget_sshare"] > 0, ck
assert ck["budget_conf"] >= 3 and ck["daemons"] > 0 and ck["responsive"] > 0, ck
assert c["quiet_points"] >= 1, c
assert not c["violations"], c["violations"]
PY
}
