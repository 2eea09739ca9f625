# shellcheck shell=bash
# t-wholenode.sh - the job's effective GPUs: whatever
# holds a GPU node's GPUs (--exclusive with one GPU or none, a partition
# with OverSubscribe=EXCLUSIVE) is charged, committed and judged by what it
# holds, running or pending, and is preemptable like any other job.

WN_SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}

# gpus_of JOBID - the GPUs `sbudget show job` says the job holds/will hold.
gpus_of() { "$WN_SBUDGET" -n -P show job "$1" format=GPUs; }

# alloc_gpus JOBID - gres/gpu in slurmdbd's AllocTRES of the job's run.
alloc_gpus() {
	sacct_field "$1" AllocTRES | tr ',' '\n' | sed -n 's/^gres\/gpu=//p'
}

# An --exclusive job (or one in an OverSubscribe=EXCLUSIVE partition)
# holds its node's 8 GPUs, with -G 1 or no GPU at all:
# sbudget says so while it is pending (the nodes it will hold) and
# running; it is charged 8 x the seconds it ran (the ledger agrees with
# sacct's AllocTRES x ElapsedRaw); past its minimum runtime a 1-GPU job
# of a better-placed budget preempts the GPU-less one.
test_exclusive_job_charged_node_gpus() {
	clear_cluster
	local t P V G e1 e0 p2 h out s_1 s_0 c_1 c_0 a_1 a_0
	t=$(date +%s); P=wn$t; V=wn$t-v; G=wn$t-g
	# the partition after the jobs (fresh_budgets' cleanup, pushed later: run first)
	cleanup_push "scontrol delete PartitionName=sb-excl >/dev/null 2>&1"
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	# pending (held): what its nodes will hold, not what it asks for
	scontrol delete PartitionName=sb-excl >/dev/null 2>&1 || true
	scontrol create PartitionName=sb-excl Nodes=ALL OverSubscribe=EXCLUSIVE State=UP >/dev/null
	h=$(submit sb-dave -A "$V" -p sb-excl -G 1 --min-runtime=0:05 --hold --wrap true)
	out=$(gpus_of "$h"); [ "$out" = 8 ] || { say "pending -G 1 in an OverSubscribe=EXCLUSIVE partition: sbudget says $out GPUs, want 8"; return 1; }
	scancel "$h"
	h=$(submit sb-dave -A "$V" --exclusive -G 1 --min-runtime=0:05 --hold --wrap true)
	out=$(gpus_of "$h"); [ "$out" = 8 ] || { say "pending --exclusive -G 1: sbudget says $out GPUs, want 8"; return 1; }
	scancel "$h"
	h=$(submit sb-dave -A "$V" --exclusive -N 2 --min-runtime=0:05 --hold --wrap true)
	out=$(gpus_of "$h"); [ "$out" = 16 ] || { say "pending --exclusive -N 2 (no GPU): sbudget says $out GPUs, want 16"; return 1; }
	scancel "$h"
	h=$(submit sb-dave -A "$V" -G 1 --min-runtime=0:05 --hold --wrap true)
	out=$(gpus_of "$h"); [ "$out" = 1 ] || { say "pending -G 1 (shared): sbudget says $out GPUs, want 1"; return 1; }
	scancel "$h"
	# running: the node's 8 GPUs
	e1=$(submit sb-dave -A "$V" -w gpu01 --exclusive -G 1 --min-runtime=0:05 --wrap 'sleep 300')
	# --no-requeue: its preemption cancels it (requeued, a pending e0
	# would start again on gpu02 and blur the charge compared below)
	e0=$(submit sb-dave -A "$V" -w gpu02 --exclusive --no-requeue --min-runtime=0:05 --wrap 'sleep 300')
	wait_running "$e1" "$e0"
	out=$(gpus_of "$e1"); [ "$out" = 8 ] || { say "running --exclusive -G 1: sbudget says $out GPUs"; return 1; }
	out=$(gpus_of "$e0"); [ "$out" = 8 ] || { say "running --exclusive, no GPU: sbudget says $out GPUs"; return 1; }
	# a 1-GPU job of a budget that never ran, pinned to the GPU-less
	# job's node: preempts it once its 5 s are over
	p2=$(submit sb-alice -A "$G" -w gpu02 -G 1 --min-runtime=0:05 --wrap 'sleep 300')
	wait_state "$p2" RUNNING 60
	job_gone "$e0" || { say "the GPU-less --exclusive job $e0 is still there: $(job_field "$e0" JobState)"; return 1; }
	[ "$(started "$p2")" -ge $(($(started "$e0") + 5 - 1)) ] || { say "preempted inside its minimum runtime"; return 1; }
	scancel "$e1" "$p2"
	wait_state "$e1" CANCELLED 30
	a_1=$(alloc_gpus "$e1"); a_0=$(alloc_gpus "$e0")
	s_1=$(( $(elapsed "$e1") * a_1 )); s_0=$(( $(elapsed "$e0") * a_0 ))
	c_1=$(ledger_charged "$e1"); c_0=$(ledger_charged "$e0")
	say "AllocTRES gres/gpu: $e1 $a_1, $e0 $a_0; sacct GPU-s $s_1, $s_0; ledger $c_1, $c_0"
	if [ "$a_1" != 8 ] || [ "$a_0" != 8 ]; then say "Slurm did not allocate the whole node's GPUs"; return 1; fi
	[ "$s_1" -gt 0 ] && [ "$s_0" -gt 0 ] || { say "slurmdbd has no run time of $e1 or $e0"; return 1; }
	[ "$c_1" = "$s_1" ] || { say "--exclusive -G 1 charged $c_1, held $s_1 GPU-s"; return 1; }
	[ "$c_0" = "$s_0" ] || { say "--exclusive without GPU charged $c_0, held $s_0 GPU-s"; return 1; }
	clear_cluster
}

# A pending --exclusive -G 1 job (or a -G 1 job in an OverSubscribe=EXCLUSIVE
# partition) is judged as the 8 GPUs it will hold.
# Budget V (4 x 8 GPUs, past their 5 s) has run about 32 x 20 GPU-s when
# budget G (same share, nothing run) asks: the reclaim rule's transfer is
# the preemptor's GPUs x its 5-minute minimum runtime, 300 GPU-s for a
# 1-GPU job (it preempts) but 2,400 for the exclusive one, more than V
# has used (it waits).  Judged as 1 GPU it would preempt too.
test_exclusive_preemptor_judged_by_node_gpus() {
	clear_cluster
	local t P V G x z y v mark used
	t=$(date +%s); P=wp$t; V=wp$t-v; G=wp$t-g
	cleanup_push "scontrol setdebug info; scontrol delete PartitionName=sb-excl >/dev/null 2>&1"
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	scontrol delete PartitionName=sb-excl >/dev/null 2>&1 || true
	scontrol create PartitionName=sb-excl Nodes=ALL OverSubscribe=EXCLUSIVE State=UP >/dev/null
	# shellcheck disable=SC2046 # one id per word
	set -- $(fill_nodes sb-dave -A "$V" --min-runtime=0:05 --resumable --wrap 'sleep 600')
	wait_running "$@"
	# V's charged usage past 1.5 x 300 GPU-s, far below 2,400
	wait_for 30 "budget $V to have used 450 GPU-s" _used_over "$V" 450
	# preempt/budget's verdicts are debug2 lines
	scontrol setdebug debug2
	mark=$(log_mark)
	# --exclusive, and a partition with OverSubscribe=EXCLUSIVE
	x=$(submit sb-alice -A "$G" --exclusive -G 1 --min-runtime=5 --time=10 --nice=10 --wrap 'sleep 300')
	z=$(submit sb-alice -A "$G" -p sb-excl -G 1 --min-runtime=5 --time=10 --nice=10 --wrap 'sleep 300')
	for v in "$x" "$z"; do
		wait_log "$mark" "JobId=$v may not preempt JobId=[0-9]+: reclaim rule: .* U [0-9]+\\+2400 < " 30 >/dev/null ||
			{ say "no reclaim verdict on $v with its 8 GPUs x 300 s"; log_since "$mark" | grep "JobId=$v may" | head -n 3 >&2; return 1; }
	done
	y=$(submit sb-alice -A "$G" -G 1 --min-runtime=5 --time=10 --wrap 'sleep 300')
	wait_state "$y" RUNNING 60
	used=$(raw_usage "$V")
	say "V used $used GPU-s when $y (1 GPU) started; $x: $(job_field "$x" JobState), $z: $(job_field "$z" JobState)"
	for v in "$x" "$z"; do
		[ "$(job_field "$v" JobState)" = PENDING ] || { say "the whole-node job $v did not wait: $(job_field "$v" JobState)"; return 1; }
		if log_since "$mark" | grep -E "JobId=$v may preempt" >&2; then
			say "$v was allowed to preempt"; return 1
		fi
		# what sbudget shows agrees: needs 8, held back by the reclaim rule
		expect_in "$("$WN_SBUDGET" -n -P show job "$v" format=WaitsFor)" "needs 8 gres/gpu"
	done
	scontrol setdebug info
	scancel "$x" "$z" "$y" "$@"
	clear_cluster
}
# A running --exclusive -G 1 job commits its node's 8 GPUs.  Budget G's
# exclusive job (5-minute minimum runtime) weighs 8 x 300 = 2,400 GPU-s
# (charged + committed) in the standing and the reclaim rule.  Once budget
# V (same share, 3 x 8 GPUs) has used more than G would weigh with that job
# committed as 1 GPU (G's RawUsage + 1 x the rest of its slice + the
# preemptor's 30 s), G's 1-GPU job would preempt one of V's; committed as
# 8 GPUs it may not (V's usage stays below 2,400 for 100 s).
test_exclusive_job_commits_node_gpus() {
	clear_cluster
	local t P V G x y n mark
	t=$(date +%s); P=wc$t; V=wc$t-v; G=wc$t-g
	cleanup_push "scontrol setdebug info"
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	x=$(submit sb-alice -A "$G" -w gpu01 --exclusive -G 1 --min-runtime=5 --time=10 --wrap 'sleep 600')
	set --
	for n in gpu02 gpu03 gpu04; do
		set -- "$@" "$(submit sb-dave -A "$V" -w "$n" -G 8 --min-runtime=0:05 --resumable --wrap 'sleep 600')"
	done
	wait_running "$x" "$@"
	wait_for 60 "budget $V to outweigh $G's usage with $x committed as 1 GPU" \
		_outweighs_one_gpu "$V" "$G" "$x"
	scontrol setdebug debug2
	mark=$(log_mark)
	y=$(submit sb-alice -A "$G" -G 1 --min-runtime=0:30 --time=10 --wrap 'sleep 300')
	say "$(_outweighs_one_gpu "$V" "$G" "$x")"
	# the standing already puts V first (G's usage counts 2,400), or the
	# reclaim rule shows it: U 2400-ish + 30
	wait_log "$mark" "JobId=$y may not preempt JobId=[0-9]+: (its budget's standing is at least the preemptor's|reclaim rule: .* U 2[34][0-9][0-9]\\+30 < )" 30 >/dev/null ||
		{ say "no verdict on $y against $G's 8-GPU commitment"; log_since "$mark" | grep "JobId=$y may" | head -n 3 >&2; return 1; }
	if log_since "$mark" | grep -E "JobId=$y may preempt" >&2; then
		say "$y was allowed to preempt"; return 1
	fi
	[ "$(job_field "$y" JobState)" = PENDING ] || { say "$y did not wait: $(job_field "$y" JobState)"; return 1; }
	scontrol setdebug info
	scancel "$x" "$y" "$@"
	clear_cluster
}
# _outweighs_one_gpu V G X - V's RawUsage is above G's plus 1 x the rest of
# X's 300 s slice plus 30 (and below 2,400: G with X at 8 GPUs still
# outweighs V); prints the figures.
_outweighs_one_gpu() {
	local uv ug rest
	uv=$(raw_usage "$1"); uv=${uv%%.*}; ug=$(raw_usage "$2"); ug=${ug%%.*}
	rest=$((300 - ($(date +%s) - $(started "$3"))))
	echo "RawUsage $1 ${uv:-?}, $2 ${ug:-?}; $3's rest ${rest} s"
	[ "${uv:-0}" -gt $((${ug:-0} + rest + 30)) ] && [ "${uv:-0}" -lt 2300 ]
}

# _used_over ACCOUNT N - sshare's RawUsage of ACCOUNT is above N.
_used_over() {
	local u
	u=$(raw_usage "$1"); u=${u%%.*}
	[ "${u:-0}" -gt "$2" ] || { echo "RawUsage ${u:-none}"; return 1; }
}
