# shellcheck shell=bash
# t-nodes.sh - jobs that need whole nodes (large jobs start):
# an allocated two-node job starts by clearing the two nodes whose jobs may
# be preempted, and preempts nothing else.  The cluster has 4 nodes x 8
# GPUs.

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
	cleanup_push "scancel -u sb-carol 2>/dev/null"
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

# The cleared GPUs are kept for the big job while its victims are in their
# grace time.  With
# PreemptGraceTime=15 the layout above changes so that the nodes free at
# different times:
#   gpu01  eight 1-GPU unallocated jobs: no grace, requeued at once
#   gpu02  an 8-GPU allocated resumable job past its min runtime: 15 s of
#          grace before it is requeued
#   gpu03, gpu04  allocated jobs inside a 10-minute min runtime
# and eight 1-GPU unallocated jobs, not pinned, are queued behind the big
# job (submitted with it, while the cluster is still full).  For those 15 s
# gpu01 is idle and the queued jobs fit on it: none may start before the
# big job does (Slurm's main scheduler stops at the partition's first
# blocked job, backfill plans the big job's start at the end of the grace
# time), and the big job starts on gpu01 and gpu02.
test_cleared_nodes_kept_during_grace() {
	clear_cluster
	keep_budget_conf
	set_budget_conf "$(grep -v '^PreemptGraceTime' "$SB_CLUSTER_DIR/budget.conf")
PreemptGraceTime=15"
	local t P V G u=() p o=() q=() big id nodes i t_big s
	t=$(date +%s); P=keep$t; V=keep$t-v; G=keep$t-g
	cleanup_push "scancel -u sb-carol 2>/dev/null"
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	for ((i = 0; i < 8; i++)); do
		u+=("$(submit sb-carol -w gpu01 -G 1 --min-runtime=0 --resumable --wrap 'sleep 300')")
	done
	p=$(submit sb-dave -A "$V" -w gpu02 -G 8 --min-runtime=0:03 --resumable --wrap 'sleep 300')
	o+=("$(submit sb-dave -A "$V" -w gpu03 -G 8 --min-runtime=10 --resumable --wrap 'sleep 300')")
	o+=("$(submit sb-dave -A "$V" -w gpu04 -G 8 --min-runtime=10 --resumable --wrap 'sleep 300')")
	wait_running "${u[@]}" "$p" "${o[@]}"
	wait_until $(( $(started "$p") + 4 )) "gpu02's job past its min runtime"
	wait_recalc_after "$(date +%s)"
	big=$(submit sb-alice -A "$G" -N 2 --gpus-per-node=8 --min-runtime=0:05 --wrap 'sleep 5')
	for ((i = 0; i < 8; i++)); do
		q+=("$(submit sb-carol -G 1 --min-runtime=0 --resumable --wrap 'sleep 300')")
	done
	# the big job has started preempting: gpu02's job is in its grace time
	wait_for 30 "the big job to preempt gpu02's job" \
		bash -c "scontrol -o show job $p | grep -q 'budget:preempted_by=$big,'"
	# the window this test is about: gpu01 idle (its jobs requeued), the
	# big job still waiting for gpu02's, and the queued jobs eligible
	[ -z "$(squeue -h -t R -w gpu01 -o %i)" ] && [ "$(job_field "$big" JobState)" = PENDING ] || {
		say "no window: gpu01 runs $(squeue -h -t R -w gpu01 -o %i | paste -sd' '), the big job is $(job_field "$big" JobState)"
		return 1
	}
	say "gpu01 idle, the big job pending ($(job_field "$big" Reason)), 8 jobs queued behind it"
	wait_state "$big" RUNNING 60 || {
		say "big job: $(job_field "$big" Reason); queued: $(squeue -h -o '%i %T %N' | paste -sd' ')"
		return 1
	}
	t_big=$(started "$big")
	nodes=$(scontrol show hostnames "$(job_field "$big" NodeList)" | paste -sd, -)
	say "the 16-GPU job started at $t_big on $nodes, $(( t_big - $(submitted "$big") )) s after its submission"
	[ "$nodes" = gpu01,gpu02 ] || { say "expected gpu01,gpu02"; return 1; }
	for id in "${q[@]}"; do
		s=$(job_field "$id" StartTime)
		case $s in ''|Unknown|None) continue ;; esac
		[ "$(date -d "$s" +%s)" -ge "$t_big" ] ||
			{ say "queued job $id started at $s on $(node_of "$id"), before the big job ($t_big)"; return 1; }
		[ "$(job_field "$id" Restarts)" = 0 ] ||
			{ say "queued job $id was requeued: it ran before the big job started"; return 1; }
	done
	say "none of the 8 queued jobs started before the big job"
	wait_state "$big" COMPLETED 60
	clear_cluster
}
