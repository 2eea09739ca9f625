# shellcheck shell=bash
# t-nodes.sh - jobs that need whole nodes (issue 11, "large jobs start"):
# an allocated two-node job starts by clearing the two nodes whose jobs may
# be preempted, and preempts nothing else.  Uses t-preempt.sh's helpers
# (clear_cluster, fresh_budgets, restarts); the cluster has 4 nodes x 8 GPUs.

# node_of JOBID - the node the (single-node) job runs on, or last ran on.
node_of() { job_field "$1" NodeList; }

# A 16-GPU job (-N 2, 8 GPUs per node) on a full cluster:
#   gpu01  eight 1-GPU unallocated jobs           (preemptable at once)
#   gpu02  one 8-GPU allocated job past its min runtime, of a budget that
#          ranks below the big job's                (preemptable)
#   gpu03  a 7-GPU allocated job of that budget inside a 10-minute min
#          runtime (protected) and a 1-GPU unallocated job (preemptable, but
#          freeing it does not free the node)
#   gpu04  an 8-GPU allocated job inside a 10-minute min runtime (protected)
# It must start on gpu01 and gpu02, preempting exactly the nine jobs there;
# gpu03's unallocated job, a candidate Slurm tries first, is not preempted
# (never a set larger than needed), nor are the protected jobs.
test_whole_node_job_clears_two_nodes() {
	clear_cluster
	local t P V G u=() p o=() big id n=0 nodes i
	t=$(date +%s); P=nodes$t; V=nodes$t-v; G=nodes$t-g
	# shellcheck disable=SC2064 # expand now
	trap "scancel -A '$V,$G' 2>/dev/null; scancel -u sb-carol 2>/dev/null; sacctmgr -i modify account '$P' set fairshare=0 >/dev/null" EXIT
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	for ((i = 0; i < 8; i++)); do
		u+=("$(submit sb-carol -w gpu01 -G 1 --min-runtime=0 --resumable --wrap 'sleep 300')")
	done
	p=$(submit sb-dave -A "$V" -w gpu02 -G 8 --min-runtime=0:03 --resumable --wrap 'sleep 300')
	o+=("$(submit sb-dave -A "$V" -w gpu03 -G 7 --min-runtime=10 --resumable --wrap 'sleep 300')")
	o+=("$(submit sb-carol -w gpu03 -G 1 --min-runtime=0 --resumable --wrap 'sleep 300')")
	o+=("$(submit sb-dave -A "$V" -w gpu04 -G 8 --min-runtime=10 --resumable --wrap 'sleep 300')")
	wait_running "${u[@]}" "$p" "${o[@]}"
	# past gpu02's job's 3 s min runtime, and V charged for its running
	# jobs at a recalculation, so G (never used) ranks above V
	wait_until $(( $(started "$p") + 4 )) "gpu02's job past its min runtime"
	wait_recalc_after "$(date +%s)"
	big=$(submit sb-alice -A "$G" -N 2 --gpus-per-node=8 --min-runtime=0:05 --wrap 'sleep 5')
	wait_state "$big" RUNNING 60 || {
		say "big job: $(job_field "$big" Reason); priorities: big $(prio "$big") victim $(prio "$p")"
		return 1
	}
	nodes=$(scontrol show hostnames "$(job_field "$big" NodeList)" | paste -sd, -)
	say "the 16-GPU job runs on $nodes"
	[ "$nodes" = gpu01,gpu02 ] || { say "expected gpu01,gpu02"; return 1; }
	for id in "${u[@]}" "$p"; do
		[ "$(restarts "$id")" != 0 ] && n=$((n + 1))
		expect_in "$(job_field "$id" SystemComment)" "budget:preempted_by=$big," || return 1
	done
	say "victims on gpu01 and gpu02: $n of 9"
	[ "$n" = 9 ] || return 1
	for id in "${o[@]}"; do
		[ "$(restarts "$id")" = 0 ] && [ "$(job_field "$id" JobState)" = RUNNING ] ||
			{ say "job $id on $(node_of "$id") was touched: $(job_field "$id" JobState), restarts $(restarts "$id")"; return 1; }
	done
	wait_state "$big" COMPLETED 60
	clear_cluster
}
