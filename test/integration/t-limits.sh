# shellcheck shell=bash
# t-limits.sh - Slurm limits never let free occupancy block paid work: an
# association's GrpTRES counts the association's unallocated jobs, and
# Slurm's preemption does not look at limits, so preempt/budget's tick
# releases just enough unallocated jobs that count against the limit an
# allocated job pends behind (sb_limit_release(), doc/design.md "Slurm
# limits").  Every limit set here is reset when the test ends
# (cleanup_push), however it ends: other tests share the cluster.

# limits_reset ACCOUNT... - no GrpTRES, no GrpJobs on the accounts.
limits_reset() {
	local acct
	for acct in "$@"; do
		sacctmgr -i modify account "$acct" set GrpTRES=gres/gpu=-1 GrpJobs=-1 >/dev/null 2>&1 || true
	done
}

# reason JOBID - the pending reason squeue shows.
reason() { squeue -h -j "$1" -o %r; }

# untouched JOBID - the job still runs its first run (never released).
untouched() {
	[ "$(job_field "$1" JobState)" = RUNNING ] && [ "$(restarts "$1")" = 0 ]
}

# The basic case: GrpTRES=gres/gpu=8 on an account whose two
# unallocated 4-GPU jobs (one resumable, one not) run; the account's
# allocated 8-GPU job starts within a few seconds: the resumable job is
# requeued, the other (--no-requeue: Slurm cannot requeue it) cancelled,
# both naming the allocated job; an
# unallocated job of another account (not counted by the limit) keeps
# running.
test_limits_unallocated_released() {
	clear_cluster
	local t P A u1 u2 o a t0 t1 mark
	t=$(date +%s); P=lim$t; A=lim$t-a
	cleanup_push "scancel -u sb-bob 2>/dev/null; limits_reset '$A'"
	fresh_budgets "$P" "$A:1:sb-alice"
	sacctmgr -i modify account "$A" set GrpTRES=gres/gpu=8 >/dev/null
	u1=$(submit sb-alice -A "$A" --min-runtime=0 --resumable -G 4 --wrap 'sleep 300')
	u2=$(submit sb-alice -A "$A" --min-runtime=0 --no-requeue -G 4 --wrap 'sleep 300')
	o=$(submit sb-bob --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u1" "$u2" "$o"
	mark=$(log_mark)
	a=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 15
	t0=$(submitted "$a") t1=$(started "$a")
	say "allocated job $a started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 5 ] || { say "took more than 5 s"; return 1; }
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=8 .*releasing JobId=$u1 " 5 >/dev/null
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=8 .*releasing JobId=$u2 " 5 >/dev/null
	# per contract: resumable requeued (back in the queue, same id),
	# --no-requeue cancelled
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
	untouched "$o" ||
		{ say "job $o of another account was released"; return 1; }
	clear_cluster
}

# The tick's walk in slices: slurmctld restarted with SB_TICK_SLICE_US=0
# (the read locks let go every 64 jobs read), 300 pending jobs ahead in
# job_list; an allocated job behind its association's GrpTRES, filled by
# the association's unallocated job, is still found and that job released,
# and the tick summary counts the walks in slices.  Then a malformed
# SB_TICK_SLICE_US is refused with an error naming it, the default kept.
test_limits_sliced_walk() {
	clear_cluster
	local t P A u a off i line
	t=$(date +%s); P=sl$t; A=sl$t-a
	cleanup_push "scancel -u sb-bob 2>/dev/null; limits_reset '$A'; '$SB_REPO/contrib/cluster.sh' restart-ctld >/dev/null 2>&1"
	fresh_budgets "$P" "$A:1:sb-alice"
	off=$(log_mark)
	SB_TICK_SLICE_US=0 "$SB_REPO/contrib/cluster.sh" restart-ctld >/dev/null
	wait_log "$off" "preempt/budget: the tick's walk of job_list lets go of slurmctld's locks after slices of 0 us \(SB_TICK_SLICE_US\)" 30 >/dev/null
	scontrol setdebug verbose
	for ((i = 0; i < 300; i++)); do
		submit sb-bob --begin=now+1hour --min-runtime=0 -G 1 --wrap 'sleep 1' >/dev/null
	done
	sacctmgr -i modify account "$A" set GrpTRES=gres/gpu=8 >/dev/null
	u=$(submit sb-alice -A "$A" --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u"
	off=$(log_mark)
	a=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_log "$off" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=8 .*releasing JobId=$u " 15 >/dev/null
	wait_state "$a" RUNNING 15
	# the summary every 60 ticks: walks that took more than one slice
	line=$(wait_log "$off" "preempt/budget: tick over 60 ticks: .*; slices of 0 us in [0-9]+ ticks" 75)
	say "$line"
	if ! [[ $line =~ slices\ of\ 0\ us\ in\ ([0-9]+)\ ticks ]] || [ "${BASH_REMATCH[1]}" -lt 1 ]; then
		say "no walk in slices counted"
		return 1
	fi
	off=$(log_mark)
	SB_TICK_SLICE_US=1ms "$SB_REPO/contrib/cluster.sh" restart-ctld >/dev/null
	wait_log "$off" "preempt/budget: SB_TICK_SLICE_US=1ms is not a whole number of microseconds from 0 to 1000000; the tick's walk uses slices of 800 us" 30 >/dev/null
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
	cleanup_push "scancel -u sb-bob 2>/dev/null; limits_reset '$A'"
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
	untouched "$x" ||
		{ say "the account's allocated job $x was preempted"; return 1; }
	untouched "$o" ||
		{ say "another account's job $o was preempted"; return 1; }
	no_log "$mark" "preempt/budget: .*releasing"
	no_log "$mark" "preempting JobId=($x|$o)"
	clear_cluster
}

# A limit on a parent account counts its sub-accounts: GrpTRES=gres/gpu=8
# on P; an unallocated 8-GPU job of sub-account B runs; an allocated
# 8-GPU job of sibling A starts within seconds, B's job released for it.
test_limits_parent_account_subtree() {
	clear_cluster
	local t P A B u a t0 t1 mark
	t=$(date +%s); P=lip$t; A=lip$t-a; B=lip$t-b
	cleanup_push "limits_reset '$P'"
	fresh_budgets "$P" "$A:1:sb-alice" "$B:1:sb-dave"
	sacctmgr -i modify account "$P" set GrpTRES=gres/gpu=8 >/dev/null
	u=$(submit sb-dave -A "$B" --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u"
	mark=$(log_mark)
	a=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 15
	t0=$(submitted "$a") t1=$(started "$a")
	say "allocated job $a of $A started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 5 ] || { say "took more than 5 s"; return 1; }
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $P GrpTRES gres/gpu=8 .*releasing JobId=$u " 5 >/dev/null
	wait_for 20 "job $u requeued once" _prints 1 restarts "$u"
	expect_in "$(job_field "$u" SystemComment)" "budget:preempted_by=$a,"
	clear_cluster
}

# qos_limit_seen QOS - slurmctld's assoc_mgr has the QOS with its GrpTRES
# on GPUs set (slurmdbd pushes it).
qos_limit_seen() {
	scontrol -o show assoc_mgr flags=qos qos="$1" | grep -q "QOS=$1(.*gres/gpu=8(" ||
		{ echo "assoc_mgr has no GrpTRES gres/gpu=8 on QOS $1"; return 1; }
}

# A QOS limit counts every account's jobs in the QOS: GrpTRES=gres/gpu=8
# on QOS Q; an unallocated 8-GPU job of account A in Q runs; an allocated
# 8-GPU job of account B in Q starts within seconds, A's job (not
# resumable, --no-requeue) cancelled for it.
test_limits_qos() {
	clear_cluster
	local t P A B Q u a t0 t1 mark
	t=$(date +%s); P=liq$t; A=liq$t-a; B=liq$t-b; Q=liq$t
	# the QOS after the jobs (fresh_budgets' cleanup, pushed later: run first)
	cleanup_push "sacctmgr -i delete qos '$Q' >/dev/null 2>&1 || sacctmgr -i modify qos '$Q' set GrpTRES=gres/gpu=-1 >/dev/null 2>&1"
	sacctmgr -i add qos "$Q" GrpTRES=gres/gpu=8 >/dev/null
	fresh_budgets "$P" "$A:1:sb-alice" "$B:1:sb-dave"
	sacctmgr -i modify user sb-alice where account="$A" set qos+="$Q" >/dev/null
	sacctmgr -i modify user sb-dave where account="$B" set qos+="$Q" >/dev/null
	wait_for 30 "QOS $Q in slurmctld" qos_limit_seen "$Q"
	wait_for 30 "sb-alice allowed QOS $Q in $A" as sb-alice sbatch --test-only -A "$A" --qos="$Q" --min-runtime=0 -G 8 --wrap true
	wait_for 30 "sb-dave allowed QOS $Q in $B" as sb-dave sbatch --test-only -A "$B" --qos="$Q" --min-runtime=0:20 -G 8 --wrap true
	u=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0 --no-requeue -G 8 --wrap 'sleep 300')
	wait_running "$u"
	mark=$(log_mark)
	a=$(submit sb-dave -A "$B" --qos="$Q" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 15
	t0=$(submitted "$a") t1=$(started "$a")
	say "allocated job $a of $B started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 5 ] || { say "took more than 5 s"; return 1; }
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind QOS $Q GrpTRES gres/gpu=8 .*releasing JobId=$u .*cancel" 5 >/dev/null
	wait_for 20 "job $u cancelled" job_gone "$u"
	expect_in "$(job_field "$u" SystemComment)" "budget:preempted_by=$a,"
	clear_cluster
}

# With PreemptGraceTime=30 the victim, unallocated, gets no grace time (only
# allocated resumable victims do: sb_preempt_grace), as for any preemption:
# it is released once (later ticks take nothing more), one job of the two
# that count against the limit is enough (either: they are taken in victim
# order, least work lost first, and a few seconds in, 4 GPUs x 2 s and 8
# GPUs x 1 s lose alike), and the allocated job starts well before the
# 30 s a grace time would have taken.
test_limits_grace_time() {
	clear_cluster
	keep_budget_conf
	set_budget_conf "$(grep -v '^PreemptGraceTime' "$SB_CLUSTER_DIR/budget.conf")
PreemptGraceTime=30"
	local t P A u1 u2 a t0 t1 mark n v kept
	t=$(date +%s); P=lig$t; A=lig$t-a
	cleanup_push "limits_reset '$A'"
	fresh_budgets "$P" "$A:1:sb-alice"
	sacctmgr -i modify account "$A" set GrpTRES=gres/gpu=12 >/dev/null
	u1=$(submit sb-alice -A "$A" --min-runtime=0 --resumable -G 4 --wrap 'sleep 300')
	u2=$(submit sb-alice -A "$A" --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u1" "$u2"
	mark=$(log_mark)
	t0=$(date +%s)
	# 12 in use, wants 4: one 4-GPU job is just enough
	a=$(submit sb-alice -A "$A" --min-runtime=0:20 -G 4 --wrap 'sleep 5')
	wait_state "$a" RUNNING 40
	t1=$(started "$a")
	say "allocated job $a started $((t1 - t0)) s after submission (PreemptGraceTime 30 s)"
	[ $((t1 - t0)) -lt 20 ] || { say "the unallocated victim was given a grace time"; return 1; }
	v=$(wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind association $A GrpTRES gres/gpu=12 .*releasing JobId=($u1|$u2) " 5 |
		sed -n 's/.*releasing JobId=\([0-9]*\) .*/\1/p')
	[ -n "$v" ] || { say "no release of $u1 or $u2 logged"; return 1; }
	if [ "$v" = "$u1" ]; then kept=$u2; else kept=$u1; fi
	wait_for 20 "job $v requeued once" _prints 1 restarts "$v"
	n=$(log_since "$mark" | grep -c "preempt/budget: JobId=$a (allocated) pends behind .*releasing") || true
	say "released $v; release lines for $a: $n"
	[ "$n" = 1 ] || { say "expected one release, saw $n"; return 1; }
	untouched "$kept" ||
		{ say "job $kept was released too: one was enough"; return 1; }
	clear_cluster
}

# A QOS per-user limit counts the user's jobs in the QOS: MaxTRESPerUser
# gres/gpu=8 on QOS Q; sb-alice's unallocated 8-GPU job in Q runs, and
# sb-dave's (another user, not counted); sb-alice's allocated 8-GPU job in Q
# starts within seconds, her unallocated job requeued, dave's untouched.
test_limits_qos_per_user() {
	clear_cluster
	local t P A Q u o a t0 t1 mark
	t=$(date +%s); P=liu$t; A=liu$t-a; Q=liu$t
	# the QOS after the jobs (fresh_budgets' cleanup, pushed later: run first)
	cleanup_push "sacctmgr -i delete qos '$Q' >/dev/null 2>&1 || sacctmgr -i modify qos '$Q' set MaxTRESPerUser=gres/gpu=-1 >/dev/null 2>&1"
	sacctmgr -i add qos "$Q" MaxTRESPerUser=gres/gpu=8 >/dev/null
	fresh_budgets "$P" "$A:1:sb-alice"
	sacctmgr -i add user sb-dave account="$A" cluster=sbcluster >/dev/null
	sacctmgr -i modify user sb-alice,sb-dave where account="$A" set qos+="$Q" >/dev/null
	wait_for 30 "sb-alice allowed QOS $Q in $A" as sb-alice sbatch --test-only -A "$A" --qos="$Q" --min-runtime=0 -G 8 --wrap true
	wait_for 30 "sb-dave allowed QOS $Q in $A" as sb-dave sbatch --test-only -A "$A" --qos="$Q" --min-runtime=0 -G 8 --wrap true
	u=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	o=$(submit sb-dave -A "$A" --qos="$Q" --min-runtime=0 --resumable -G 8 --wrap 'sleep 300')
	wait_running "$u" "$o"
	mark=$(log_mark)
	a=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:20 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 15
	t0=$(submitted "$a") t1=$(started "$a")
	say "allocated job $a started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 5 ] || { say "took more than 5 s"; return 1; }
	wait_log "$mark" "preempt/budget: JobId=$a \(allocated\) pends behind QOS $Q MaxTRESPerUser gres/gpu=8 .*releasing JobId=$u " 5 >/dev/null
	wait_for 20 "job $u requeued once" _prints 1 restarts "$u"
	untouched "$o" ||
		{ say "another user's job $o was released"; return 1; }
	clear_cluster
}
