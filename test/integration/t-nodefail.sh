# shellcheck shell=bash
# t-nodefail.sh - nodes failing under jobs: a node set DOWN under a
# protected allocated job and under an unallocated one.  Slurm decides what
# happens to the jobs (JobRequeue=1: their runs end NODE_FAIL and they are
# requeued); the plugins must stop charging at the failure, charge exactly
# what slurmdbd recorded, preempt nothing on their own, and the repair path
# must still work on a node back in service.

# nf_run_states JOBID - the states of the job's runs in slurmdbd, in order.
nf_run_states() { sacct -n -P -D -X -j "$1" -o State | paste -sd' '; }

test_node_down_under_protected_and_unallocated_jobs() {
	clear_cluster
	local t P A a u ca cu sa su rep
	t=$(date +%s); P=nf$t; A=nf$t-a
	cleanup_push "scontrol update nodename=gpu[01-02] state=resume 2>/dev/null || true"
	fresh_budgets "$P" "$A:1:sb-dave"
	# gpu01: allocated, inside a 10-minute minimum runtime (protected);
	# gpu02: unallocated
	a=$(submit sb-dave -A "$A" -w gpu01 -G 8 --min-runtime=10 --resumable --wrap 'sleep 300')
	u=$(submit sb-dave -A "$A" -w gpu02 -G 8 --min-runtime=0 --wrap 'sleep 300')
	wait_running "$a" "$u"
	wait_until $(( $(latest_start "$a" "$u") + 6 )) "both jobs have run 6 s"
	scontrol update nodename=gpu[01-02] state=down reason="nodefail test: node lost"
	# Slurm's decision: each run ends NODE_FAIL, the job is requeued
	# (JobRequeue=1) and pends for its node
	wait_for 30 "$a's and $u's runs to end NODE_FAIL in slurmdbd" \
		bash -c "sacct -n -P -D -X -j $a,$u -o State | grep -c '^NODE_FAIL' | grep -qx 2"
	wait_eq 30 "job $a requeued" 1 restarts "$a"
	wait_eq 30 "job $u requeued" 1 restarts "$u"
	say "runs: $a: $(nf_run_states "$a"); $u: $(nf_run_states "$u")"
	# not preempted: the failure stopped them, not preempt/budget
	[[ "$(job_field "$a" SystemComment)" != *preempted_by* ]] ||
		{ say "job $a has a preemption note: $(job_field "$a" SystemComment)"; return 1; }
	# pinned to the down nodes they would pend for good: cancel, then read
	# what was charged for the failed runs
	scancel "$a" "$u"
	ca=$(ledger_charged "$a"); cu=$(ledger_charged "$u")
	sa=$(charge_gpu_seconds "$a"); su=$(charge_gpu_seconds "$u")
	say "accrued: $a $ca GPU-s (slurmdbd $sa), $u $cu (slurmdbd $su)"
	# charging stopped at the failure: each run's whole recorded length
	# and nothing after it
	[ "$sa" -ge 48 ] && [ "$su" -ge 48 ] ||
		{ say "slurmdbd has $sa and $su GPU-s, not at least 6 s x 8 each"; return 1; }
	[ "$ca" = "$sa" ] && [ "$cu" = "$su" ] || { say "ledger and slurmdbd differ"; return 1; }
	# the budget is charged for the allocated run only (sshare and
	# sbudget, both from priority/budget's ledger and slurmdbd's records)
	wait_eq 30 "$A's RawUsage (sshare)" "$sa" raw_usage "$A"
	rep=$("$SB_BUILD_DIR/src/sbudget/sbudget" -P -n show budget account="$A" format=Account,User,DeliveredRaw,UnallocatedRaw |
		awk -F'|' '$2 == "" { print $3 "|" $4 }')
	[ "$rep" = "$sa|$su" ] || { say "sbudget Delivered|Unallocated $rep, slurmdbd $sa|$su"; return 1; }

	# back in service (ReturnToService=2 may have returned them when
	# their slurmd answered: resuming an idle node is refused), the
	# repair path: a job past its minimum runtime on gpu01, the node
	# drained for repair, the job released at once
	scontrol update nodename=gpu[01-02] state=resume 2>/dev/null || true
	wait_for 30 "gpu01 to take jobs" bash -c "sinfo -h -n gpu01 -o %T | grep -qx idle"
	a=$(submit sb-dave -A "$A" -w gpu01 -G 8 --min-runtime=0:02 --resumable --wrap 'sleep 120')
	wait_state "$a" RUNNING 30
	wait_until $(( $(started "$a") + 3 )) "past its minimum runtime"
	scontrol update nodename=gpu01 state=drain reason="repair: after the node failure"
	wait_eq 8 "job $a released for repair" 1 restarts "$a"
	expect_in "$(job_field "$a" SystemComment)" "budget:released_for_repair=gpu01"
	scancel "$a"
	scontrol update nodename=gpu01 state=resume 2>/dev/null || true
	clear_cluster
	nf_nodes_back
}

# nf_nodes_back - until every node is idle and responding (a node just
# resumed shows idle* for a few seconds).
nf_nodes_back() {
	wait_for 120 "every node idle and responding" bash -c '[ "$(sinfo -h -N -o %t | sort -u)" = idle ]'
}

# slurmd killed (kill -9) under a protected allocated job: slurmctld marks
# the node DOWN once it stops answering (SlurmdTimeout=60), Slurm ends the
# run NODE_FAIL and requeues the job; the ledger charges the run as
# slurmdbd recorded it (up to the node's failure as Slurm dates it, never
# the minutes after), and the node comes back with its slurmd ('up').
test_node_slurmd_killed_under_protected_job() {
	clear_cluster
	local t P A a pid ca sa
	t=$(date +%s); P=nk$t; A=nk$t-a
	fresh_budgets "$P" "$A:1:sb-dave"
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1 || true"
	a=$(submit sb-dave -A "$A" -w gpu03 -G 8 --min-runtime=10 --resumable --wrap 'sleep 600')
	wait_state "$a" RUNNING 30
	pid=$(head -n 1 "$SB_CLUSTER_DIR/run/slurmd-gpu03.pid" | tr -dc '0-9')
	[ -n "$pid" ] || { say "no slurmd pid for gpu03"; return 1; }
	kill -9 "$pid"
	# the job's processes go with their slurmstepd only when the node is
	# cleaned up; slurmctld notices the silence within SlurmdTimeout
	wait_for 150 "$a's run to end NODE_FAIL in slurmdbd" \
		bash -c "sacct -n -P -D -X -j $a -o State | grep -q '^NODE_FAIL'"
	say "runs of $a: $(nf_run_states "$a"); gpu03: $(sinfo -h -n gpu03 -o '%T %E')"
	scancel "$a"
	ca=$(ledger_charged "$a"); sa=$(charge_gpu_seconds "$a")
	say "ledger $ca GPU-s, slurmdbd $sa"
	[ "$sa" -gt 0 ] && [ "$ca" = "$sa" ] || { say "ledger $ca != slurmdbd $sa"; return 1; }
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	scontrol update nodename=gpu03 state=resume 2>/dev/null || true
	nf_nodes_back
}
