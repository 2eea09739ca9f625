# shellcheck shell=bash
# t-lane.sh - the debug lane on the real cluster (sb/lane.h): a small,
# short job of a budget ranked below the running ones starts within
# seconds once the lane is on, by preempting a job past its min runtime;
# one association holds at most DebugLaneBudgetTRES in the lane at once.
# The cluster has 4 nodes x 8 GPUs; its budget.conf turns the lane off
# (DebugLaneTRES=0) so the other files test the other rules alone; these
# tests turn it on with the shipped bounds (8 GPUs, 15 minutes, 8 per
# association).

# lane_conf on|off - the cluster's budget.conf with the lane at the
# shipped defaults (on) or off.
lane_conf() {
	grep -v '^DebugLane' "$SB_CLUSTER_DIR/budget.conf.keep"
	[ "$1" = on ] || echo 'DebugLaneTRES=0'
}

# lane_pending_for SECONDS JOBID - the job stays pending that long.
lane_pending_for() {
	local end=$(( $(date +%s) + $1 )) s
	while [ "$(date +%s)" -lt "$end" ]; do
		s=$(job_field "$2" JobState)
		[ "$s" = PENDING ] || { say "$2 is $s, not pending"; return 1; }
		sleep 0.5
	done
}

# An over-share team's 1-GPU debug job on a full cluster: with the lane
# off it waits (the running jobs' budget ranks above it); with the lane on
# it starts within seconds by preempting one of them, past its min
# runtime, and `sbudget show job` says why it started.  A second team job
# that would take the team past DebugLaneBudgetTRES waits as its budget's.
test_lane_over_share_debug_job_starts_fast() {
	clear_cluster
	local t P A B b0 a=() b b2 b3 t_on t_b id hit=''
	t=$(date +%s); P=ln$t; A=ln$t-a; B=ln$t-b
	keep_budget_conf
	set_budget_conf "$(lane_conf off)" || return 1
	fresh_budgets "$P" "$A:100:sb-alice" "$B:1:sb-dave"
	# B uses 8 GPUs for 8 s: with 1/101 of the parent's share it ranks
	# below A for as long as this test runs
	b0=$(submit sb-dave -A "$B" -G 8 --min-runtime=0:05 --wrap 'sleep 8')
	wait_state "$b0" COMPLETED 40 || return 1
	mapfile -t a < <(fill_nodes sb-alice -A "$A" --min-runtime=0:03 --resumable --wrap 'sleep 300')
	wait_running "${a[@]}" || return 1
	wait_until $(( $(latest_start "${a[@]}") + 4 )) "A's jobs past their min runtime"
	b=$(submit sb-dave -A "$B" -G 1 --min-runtime=0:30 --wrap 'sleep 10')
	# lane off: B ranks below A, so its job waits
	lane_pending_for 6 "$b" || return 1
	sbudget_job_says "$b" "Lane: no: the debug lane is off" ||
		{ say "$("$SBUDGET" show job "$b")"; return 1; }
	for id in "${a[@]}"; do
		[ "$(restarts "$id")" = 0 ] || { say "$id preempted with the lane off"; return 1; }
	done
	# lane on: it enters at the next recalculation and preempts
	t_on=$(date +%s)
	set_budget_conf "$(lane_conf on)" || return 1
	wait_state "$b" RUNNING 20 || { say "$("$SBUDGET" show job "$b")"; return 1; }
	t_b=$(started "$b")
	say "the debug job started $((t_b - t_on)) s after the lane was turned on"
	[ $((t_b - t_on)) -le 10 ] || { say "more than 10 s"; return 1; }
	sbudget_job_says "$b" "Lane: started in the debug lane" ||
		{ say "$("$SBUDGET" show job "$b")"; return 1; }
	for id in "${a[@]}"; do
		[[ $(job_field "$id" SystemComment) == *"budget:preempted_by=$b,"* ]] && hit=$id
	done
	[ -n "$hit" ] || { say "no job of A names $b as its preemptor"; return 1; }
	say "$b preempted $hit"
	wait_state "$b" COMPLETED 60 || return 1
	# the bound: the first 8-GPU job fills B's lane, the second waits
	b2=$(submit sb-dave -A "$B" -G 8 --min-runtime=0:40 --wrap 'sleep 30')
	wait_state "$b2" RUNNING 20 || { say "$("$SBUDGET" show job "$b2")"; return 1; }
	b3=$(submit sb-dave -A "$B" -G 8 --min-runtime=0:40 --wrap 'sleep 30')
	lane_pending_for 6 "$b3" || return 1
	sbudget_job_says "$b3" "its association holds 8 of DebugLaneBudgetTRES=8" ||
		{ say "$("$SBUDGET" show job "$b3")"; return 1; }
	sbudget_job_says "$b2" "Lane: started in the debug lane" ||
		{ say "$("$SBUDGET" show job "$b2")"; return 1; }
	clear_cluster
}

# Bad lane settings are refused with the value named, and the controller
# keeps its previous settings.
test_lane_bad_conf_refused() {
	local mark
	keep_budget_conf
	mark=$(log_mark)
	printf '%s\nDebugLaneTRES=eight\n' "$(lane_conf on)" > "$SB_CLUSTER_DIR/budget.conf.new"
	mv -f "$SB_CLUSTER_DIR/budget.conf.new" "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	wait_log "$mark" "DebugLaneTRES='eight' is not accepted: give a whole number" 20 >/dev/null || return 1
	wait_log "$mark" "priority/budget: .*keeping the previous settings" 20 >/dev/null || return 1
	ctld_alive || { say "slurmctld died"; return 1; }
}
