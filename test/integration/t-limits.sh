# shellcheck shell=bash
# t-limits.sh - Slurm limits never let free occupancy block paid work
# (issue 12, kind 7): an association's GrpTRES counts the association's
# unallocated jobs, and Slurm's preemption does not look at limits, so
# preempt/budget's tick releases just enough unallocated jobs that count
# against the limit an allocated job pends behind (sb_limit_release(),
# doc/design.md "Slurm limits").  Uses clear_cluster, fresh_budgets and
# restarts from t-preempt.sh.  Every limit set here is reset when the test
# ends (the trap), however it ends: other tests share the cluster.

# limits_reset ACCOUNT... - no GrpTRES, no GrpJobs on the accounts.
limits_reset() {
	local acct
	for acct in "$@"; do
		sacctmgr -i modify account "$acct" set GrpTRES=gres/gpu=-1 GrpJobs=-1 >/dev/null 2>&1 || true
	done
}

# reason JOBID - the pending reason squeue shows.
reason() { squeue -h -j "$1" -o %r; }

# The issue's example: GrpTRES=gres/gpu=8 on an account whose two
# unallocated 4-GPU jobs (one resumable, one not) run; the account's
# allocated 8-GPU job starts within a few seconds: the resumable job is
# requeued, the other cancelled, both naming the allocated job; an
# unallocated job of another account (not counted by the limit) keeps
# running.
test_limits_unallocated_released() {
	clear_cluster
	local t P A u1 u2 o a t0 t1 mark
	t=$(date +%s); P=lim$t; A=lim$t-a
	# shellcheck disable=SC2064 # expand now
	trap "scancel -A '$A' 2>/dev/null; scancel -u sb-bob 2>/dev/null; limits_reset '$A'; sacctmgr -i modify account '$P' set fairshare=0 >/dev/null" EXIT
	fresh_budgets "$P" "$A:1:sb-alice"
	sacctmgr -i modify account "$A" set GrpTRES=gres/gpu=8 >/dev/null
	u1=$(submit sb-alice -A "$A" --min-runtime=0 --resumable -G 4 --wrap 'sleep 300')
	u2=$(submit sb-alice -A "$A" --min-runtime=0 -G 4 --wrap 'sleep 300')
	o=$(submit sb-bob --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u1" "$u2" "$o"
	mark=$(log_mark)
	t0=$(date +%s)
	a=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 15
	t1=$(started "$a")
	say "allocated job $a started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 5 ] || { say "took more than 5 s"; return 1; }
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=8 .*releasing JobId=$u1 " 5 >/dev/null
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=8 .*releasing JobId=$u2 " 5 >/dev/null
	# per contract: resumable requeued (back in the queue, same id),
	# not resumable cancelled
	wait_for 20 "job $u1 requeued once" _prints 1 restarts "$u1"
	case $(job_field "$u1" JobState) in
	PENDING|RUNNING|REQUEUED) ;;
	*) say "resumable victim $u1 is $(job_field "$u1" JobState)"; return 1 ;;
	esac
	wait_for 20 "job $u2 cancelled" job_gone "$u2"
	say "victims: $u1 $(job_field "$u1" JobState) (restarts $(restarts "$u1")), $u2 $(job_field "$u2" JobState)"
	[ "$(restarts "$u2")" = 0 ] || { say "not resumable $u2 was requeued"; return 1; }
	expect_in "$(job_field "$u1" SystemComment)" "budget:preempted_by=$a,"
	expect_in "$(job_field "$u2" SystemComment)" "budget:preempted_by=$a,"
	# the other account's unallocated job does not count: untouched
	[ "$(job_field "$o" JobState)" = RUNNING ] && [ "$(restarts "$o")" = 0 ] ||
		{ say "job $o of another account was released"; return 1; }
	clear_cluster
}

# Control: a limit filled by the account's OWN allocated work is Slurm's
# to enforce.  An allocated 8-GPU job past its min runtime holds the
# account's GrpTRES=gres/gpu=8; the account's second allocated job pends
# (AssocGrpGRES) and nothing is preempted, neither the allocated job nor
# the unallocated job of another account running beside it.
test_limits_own_allocated_kept() {
	clear_cluster
	local t P A x o y mark
	t=$(date +%s); P=lik$t; A=lik$t-a
	# shellcheck disable=SC2064 # expand now
	trap "scancel -A '$A' 2>/dev/null; scancel -u sb-bob 2>/dev/null; limits_reset '$A'; sacctmgr -i modify account '$P' set fairshare=0 >/dev/null" EXIT
	fresh_budgets "$P" "$A:1:sb-alice"
	sacctmgr -i modify account "$A" set GrpTRES=gres/gpu=8 >/dev/null
	x=$(submit sb-alice -A "$A" --min-runtime=0:02 --resumable -G 8 --wrap 'sleep 300')
	o=$(submit sb-bob --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$x" "$o"
	wait_until $(( $(started "$x") + 3 )) "past x's min runtime"
	mark=$(log_mark)
	y=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_eq 15 "job $y pending behind the account's limit" AssocGrpGRES reason "$y"
	# The observation: 8 ticks (1 s each) in which nothing may be
	# preempted (a sleep under test, not a wait).
	sleep 8
	[ "$(job_field "$y" JobState)" = PENDING ] || { say "job $y is $(job_field "$y" JobState)"; return 1; }
	[ "$(reason "$y")" = AssocGrpGRES ] || { say "job $y pends for $(reason "$y")"; return 1; }
	[ "$(restarts "$x")" = 0 ] && [ "$(job_field "$x" JobState)" = RUNNING ] ||
		{ say "the account's allocated job $x was preempted"; return 1; }
	[ "$(restarts "$o")" = 0 ] && [ "$(job_field "$o" JobState)" = RUNNING ] ||
		{ say "another account's job $o was preempted"; return 1; }
	no_log "$mark" "preempt/budget: .*releasing"
	no_log "$mark" "preempting JobId=($x|$o)"
	clear_cluster
}
