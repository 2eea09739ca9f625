# shellcheck shell=bash
# t-semantics.sh - the contract holds for every way a job can be shaped
# the effective time limit (partition DefaultTime/MaxTime, accounting's
# MaxWall, --time-min), interactive jobs (--resumable needs a batch job),
# suspended time (scontrol suspend: neither charged nor protected) and
# priorities set by an administrator (read as the in-team part).

# A partition of its own for the duration of one test, created live with
# scontrol (no restart): DefaultTime 1 minute, MaxTime 5 minutes.
with_short_partition() {
	scontrol delete PartitionName=sb-short >/dev/null 2>&1 || true
	scontrol create PartitionName=sb-short Nodes=ALL DefaultTime=1 \
		MaxTime=5 State=UP >/dev/null
	cleanup_push 'scontrol delete PartitionName=sb-short >/dev/null 2>&1 || true'
	"$@"
}

_limit_from_partition() {
	local out id
	# no --time: the partition's DefaultTime (1 min) is the job's limit
	expect_fail out as sb-alice sbatch -p sb-short -G 1 --min-runtime=3 --wrap true
	expect_in "$out" "exceeds the time limit the job would get, 0:01:00 (partition 'sb-short' DefaultTime, as no --time was given)"
	expect_in "$out" "give --time (and --time-min) of at least 0:03:00"
	# above MaxTime (5 min) no --time helps: the advice is the cap
	expect_fail out as sb-alice sbatch -p sb-short -G 1 --min-runtime=8:00:00 --wrap true
	expect_in "$out" "min-runtime '8:00:00' (8:00:00) exceeds 0:05:00, the longest time limit this job can be given (partition 'sb-short' MaxTime): the protected slice could never be served; ask for at most 0:05:00"
	[[ "$out" != *"give --time"* ]] || { say "advises a --time above MaxTime: $out"; return 1; }
	# within it: accepted, and --time above DefaultTime lifts the bound
	id=$(submit sb-alice -p sb-short -G 1 --min-runtime=0:30 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=30,"
	scancel "$id"
	id=$(submit sb-alice -p sb-short -G 1 --time=4 --min-runtime=3 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=180,"
	scancel "$id"
	# several partitions: the shortest limit counts
	expect_fail out as sb-alice sbatch -p gpu,sb-short -G 1 --min-runtime=2 --wrap true
	expect_in "$out" "partition 'sb-short' DefaultTime"
	# ... but the longest cap: a --time that one of them allows serves it
	id=$(submit sb-alice -p sb-short,gpu -G 1 --time=30 --min-runtime=20 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=1200,"
	scancel "$id"
}

test_min_runtime_within_partition_default_time() {
	with_short_partition _limit_from_partition
}

# _max_wall_of ASSOC_FILTER... - the MaxWallPJ slurmctld holds for the
# association that scontrol show assoc_mgr selects (empty: none).
_max_wall_of() {
	scontrol -o show assoc_mgr flags=assoc "$@" | grep 'UserName=sb-alice(' | grep -o 'MaxWallPJ=[^ ]*' | head -n 1
}
_wall_is() { local w; w=$(_max_wall_of users=sb-alice accounts=phys-a); [ "$w" = "MaxWallPJ=$1" ] || { echo "$w"; return 1; }; }
_qos_wall_is() { scontrol -o show assoc_mgr flags=qos qos="$1" | grep -q "MaxWallPJ=$2" || { echo "QOS $1: no MaxWallPJ=$2"; return 1; }; }

# Accounting's MaxWall caps the time limit a job can get (Slurm gives a job
# without --time its MaxWall and never starts one above it): a minimum
# runtime above it is refused at submit, naming the association or QOS;
# the QOS's MaxWall, when set, is the one Slurm enforces.
test_min_runtime_within_max_wall() {
	local out id q=sbwall$$
	cleanup_push 'scancel -u sb-alice >/dev/null 2>&1; sacctmgr -i modify user sb-alice where account=phys-a set MaxWall=-1 qos-='"$q"' >/dev/null 2>&1; sacctmgr -i delete qos '"$q"' >/dev/null 2>&1; true'
	sacctmgr -i modify user sb-alice where account=phys-a set MaxWall=10 >/dev/null
	wait_for 30 "MaxWall=10 of sb-alice@phys-a in slurmctld" _wall_is 10
	expect_fail out as sb-alice sbatch -A phys-a -G 1 --min-runtime=15 --wrap true
	expect_in "$out" "min-runtime '15' (0:15:00) exceeds 0:10:00, the longest time limit this job can be given (MaxWall of user 'sb-alice' in account 'phys-a'): the protected slice could never be served; ask for at most 0:10:00"
	# --time does not lift it either
	expect_fail out as sb-alice sbatch -A phys-a -G 1 --time=30 --min-runtime=15 --wrap true
	expect_in "$out" "(MaxWall of user 'sb-alice' in account 'phys-a')"
	# at the cap: accepted, and Slurm gives the job MaxWall as its limit
	id=$(submit sb-alice -A phys-a -G 1 --min-runtime=10 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=600,"
	[ "$(job_field "$id" TimeLimit)" = "00:10:00" ] || { say "TimeLimit $(job_field "$id" TimeLimit), want MaxWall 00:10:00"; return 1; }
	scancel "$id"
	# a QOS of the job with its own MaxWall: that one is enforced
	sacctmgr -i add qos "$q" MaxWall=5 >/dev/null
	sacctmgr -i modify user sb-alice where account=phys-a set qos+="$q" >/dev/null
	wait_for 30 "QOS $q with MaxWall 5 in slurmctld" _qos_wall_is "$q" 5
	expect_fail out as sb-alice sbatch -A phys-a --qos="$q" -G 1 --min-runtime=8 --wrap true
	expect_in "$out" "exceeds 0:05:00, the longest time limit this job can be given (QOS '$q' MaxWall)"
	sacctmgr -i modify qos "$q" set MaxWall=20 >/dev/null
	wait_for 30 "QOS $q with MaxWall 20 in slurmctld" _qos_wall_is "$q" 20
	id=$(submit sb-alice -A phys-a --qos="$q" -G 1 --time=15 --min-runtime=15 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=900,"
	scancel "$id"
	# MaxWall cleared: no cap but the job's own --time
	sacctmgr -i modify user sb-alice where account=phys-a set MaxWall=-1 >/dev/null
	wait_for 30 "MaxWall of sb-alice@phys-a cleared in slurmctld" _wall_none
	id=$(submit sb-alice -A phys-a -G 1 --time=30 --min-runtime=15 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=900,"
	scancel "$id"
}
_wall_none() { local w; w=$(_max_wall_of users=sb-alice accounts=phys-a); case $w in MaxWallPJ=) return 0 ;; esac; echo "$w"; return 1; }

test_min_runtime_within_time_min() {
	local out id
	expect_fail out as sb-alice sbatch -G 1 --time=1:00:00 --time-min=5 --min-runtime=10 --wrap true
	expect_in "$out" "exceeds the time limit the job would get, 0:05:00 (--time-min: backfill may cut the job to it)"
	id=$(submit sb-alice -G 1 --time=1:00:00 --time-min=10 --min-runtime=10 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=600,"
	# a user may not lower TimeMin below the min runtime afterwards ...
	expect_fail out as sb-alice scontrol update jobid="$id" TimeMin=5
	[ "$(job_field "$id" TimeMin)" = "00:10:00" ] || { say "TimeMin changed: $(job_field "$id" TimeMin)"; return 1; }
	# ... nor the time limit
	expect_fail out as sb-alice scontrol update jobid="$id" TimeLimit=5
	scancel "$id"
}

test_resumable_needs_batch_job() {
	local out
	expect_fail out as sb-alice salloc -G 1 --min-runtime=0:05 --resumable true
	expect_in "$out" "--resumable needs a batch job: an interactive allocation (salloc, srun) cannot be requeued"
	expect_fail out as sb-alice srun -G 1 --min-runtime=0:05 --resumable true
	expect_in "$out" "--resumable needs a batch job"
	# the same without --resumable runs, and sbatch --resumable is fine
	as sb-alice salloc -G 1 --min-runtime=0:05 true
	as sb-alice srun -G 1 --min-runtime=0:05 true
}

# An interactive job (salloc, srun outside a batch job) cannot be requeued:
# when its protected slice ends, a preemption cancels it and its session is
# lost.  Its user is told InteractiveWarning before (here 0:20 before the
# end of a 0:40 slice), once, on the terminal of salloc/srun; a batch job
# with the same contract is not (it has no terminal).
test_interactive_warned_before_protection_ends() {
	clear_cluster
	local conf a s b ids t_a t_s msg n pa ps mark f id st
	conf=$(grep -v '^InteractiveWarning=' "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	set_budget_conf "$conf
InteractiveWarning=0:20"
	a=$WORK/warn-salloc.$$; s=$WORK/warn-srun.$$
	rm -f "$a" "$s"
	mark=$(log_mark)
	as sb-alice salloc -G 1 --min-runtime=0:40 sleep 50 > "$a" 2>&1 &
	pa=$!
	as sb-alice srun -G 1 --min-runtime=0:40 sleep 50 > "$s" 2>&1 &
	ps=$!
	b=$(submit sb-alice -G 1 --min-runtime=0:40 --wrap 'sleep 50')
	wait_for 20 "three running jobs of sb-alice" eval "[ \$(squeue -h -u sb-alice -t R -o %i | wc -l) = 3 ]"
	ids=$(squeue -h -u sb-alice -t R -o %i | sort -n | tr '\n' ' ')
	say "running: $ids (batch job $b)"
	# each terminal gets the warning, and not before start + 40 - 20
	wait_for 40 "the warning on salloc's terminal" grep -q "budget: job .*protected minimum runtime ends" "$a"
	t_a=$(date +%s)
	wait_for 10 "the warning on srun's terminal" grep -q "budget: job .*protected minimum runtime ends" "$s"
	t_s=$(date +%s)
	msg=$(grep -m 1 "protected minimum runtime" "$a")
	say "salloc printed at $t_a: $msg"
	expect_in "$msg" "may be cancelled at any time for a job of a better-placed budget"
	# each terminal's warning names its own job: not before its start +
	# 40 - 20 (whole seconds: 1 s of slack), not after its slice ended
	for f in "$a:$t_a" "$s:$t_s"; do
		id=$(grep -m 1 -o "budget: job [0-9]*" "${f%%:*}" | grep -o "[0-9]*$")
		[ -n "$id" ] && [ "$id" != "$b" ] && [[ " $ids " = *" $id "* ]] ||
			{ say "$(basename "${f%%:*}"): warning for job '$id', not one of the interactive jobs"; return 1; }
		st=$(started "$id")
		say "interactive job $id started $st: warning seen at ${f##*:}, its slice ends at $((st + 40))"
		[ "${f##*:}" -ge $((st + 19)) ] || { say "job $id warned before start + 40 - 20"; return 1; }
		[ "${f##*:}" -lt $((st + 40)) ] || { say "job $id warned after its protection ended"; return 1; }
	done
	# once: after the jobs ended, one warning on each terminal, and the
	# batch job had none
	wait "$pa" "$ps" || { say "salloc or srun failed"; cat "$a" "$s" >&2; return 1; }
	for f in "$a" "$s"; do
		n=$(grep -c "protected minimum runtime ends" "$f")
		[ "$n" = 1 ] || { say "$(basename "$f"): $n warnings"; cat "$f" >&2; return 1; }
	done
	no_log "$mark" "warned JobId=$b "
	rm -f "$a" "$s"
}

# gpu_seconds JOBID GPUS - what slurmdbd says every run segment of the job
# ran (ElapsedRaw leaves suspended time out), times GPUS.
gpu_seconds() {
	sacct -n -P -D -X -j "$1" -o ElapsedRaw | awk -v g="$2" '{ s += $1 } END { print s * g }'
}

# _ends_recorded JOBID... - slurmdbd has a record of each job, and an end
# for every run of it (else prints what it has).
_ends_recorded() {
	local id out
	for id in "$@"; do
		out=$(sacct -n -P -D -X -j "$id" -o End 2>/dev/null)
		[ -n "$out" ] && ! grep -q Unknown <<<"$out" ||
			{ echo "job $id: ends '$(tr '\n' ' ' <<<"$out")'"; return 1; }
	done
}

# Suspended time is neither run nor protection.  An allocated job (min
# runtime 20 s) suspended for 15 s is preemptable only from start + 20 s +
# the time it was suspended, and is charged only the seconds it ran; so is
# a job cancelled while suspended (Slurm ends it at its suspension).
test_suspended_time_not_charged_nor_protected() {
	clear_cluster
	local t P V G v w g t_start t_sus t_res sus t_g c_v c_w s_v s_w
	t=$(date +%s); P=sus$t; V=sus$t-v; G=sus$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	v=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:20 --resumable --wrap 'sleep 300')
	w=$(submit sb-dave -A "$V" -w gpu02 -G 2 --min-runtime=0:20 --wrap 'sleep 300')
	wait_running "$v" "$w"
	t_start=$(started "$v")
	sleep 3	# the scenario: it runs 3 s before it is suspended
	scontrol suspend "$v","$w"
	wait_state "$v" SUSPENDED 10
	# slurmctld's own times (SuspendTime is set at the suspension, then
	# at the resumption), not the clock around scontrol: on a loaded
	# machine scontrol may take seconds, which the job did not spend
	# suspended
	t_sus=$(date -d "$(job_field "$v" SuspendTime)" +%s)
	sleep 15	# the scenario: 15 s suspended
	scontrol resume "$v"
	wait_state "$v" RUNNING 10
	t_res=$(date -d "$(job_field "$v" SuspendTime)" +%s)
	sus=$((t_res - t_sus))
	# pinned to v's node, of a budget that never ran: outranks v
	g=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:05 --wrap 'sleep 5')
	say "victim $v started $t_start, suspended $t_sus..$t_res ($sus s), preemptor $g submitted at $(date +%s)"
	wait_state "$g" RUNNING 60
	t_g=$(started "$g")
	say "preemptor started $t_g: $((t_g - t_start)) s after the victim's start (min runtime 20 s + $sus s suspended)"
	[ "$(restarts "$v")" = 1 ] || { say "victim not preempted (restarts $(restarts "$v"))"; return 1; }
	# not at start + 20 (that ignores the suspension); allow 1 s for the
	# second boundaries of suspend/resume
	[ "$t_g" -ge $((t_start + 20 + sus - 1)) ] || { say "preempted inside its protection pushed by the suspension"; return 1; }
	scancel "$v" "$w"
	wait_state "$v" CANCELLED 30
	wait_state "$w" CANCELLED 30
	# slurmdbd has the end of every run (until then ElapsedRaw counts on)
	wait_for 30 "slurmdbd to record the ends of $v and $w" _ends_recorded "$v" "$w"
	s_v=$(gpu_seconds "$v" 8); s_w=$(gpu_seconds "$w" 2)
	c_v=$(ledger_charged "$v"); c_w=$(ledger_charged "$w")
	say "sacct (suspended time left out): $v $s_v GPU-s, $w $s_w GPU-s (suspended $(sacct -n -P -X -j "$w" -o Suspended | head -n 1))"
	say "ledger charged: $v $c_v, $w $c_w"
	[ "$s_v" -gt 0 ] && [ "$s_w" -gt 0 ] || { say "slurmdbd has no run time of $v or $w"; return 1; }
	[ "$c_v" = "$s_v" ] || { say "suspended victim charged $c_v, ran $s_v"; return 1; }
	[ "$c_w" = "$s_w" ] || { say "job cancelled while suspended charged $c_w, ran $s_w"; return 1; }
	clear_cluster
}

# An administrator's `scontrol update priority=N` is read as the job's
# in-team part: an allocated job keeps its tier (above every unallocated
# job) and its budget's standing, so a low number never stops it
# preempting, and a high number never lifts an unallocated job over
# allocated ones; within its budget, N orders it (N >= 1023: first).
test_admin_priority_keeps_tier_and_standing() {
	clear_cluster
	local t P V G v g g2 g3 u pg pg2 pg3 pu pv off tier=2147483648
	local log=$SB_CLUSTER_DIR/log/slurmctld.log
	t=$(date +%s); P=adm$t; V=adm$t-v; G=adm$t-g
	cleanup_push "scancel -u sb-carol 2>/dev/null"
	fresh_budgets "$P" "$V:1000:sb-dave" "$G:1000:sb-alice"
	v=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:05 --resumable --wrap 'sleep 120')
	wait_running "$v"
	# g is made eligible (StartTime=now) once the priorities are read: a
	# fixed --begin=now+12 could pass first on a loaded machine (g then
	# runs, and the victim is requeued, before they are read)
	g=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:05 --begin=now+600 --wrap 'sleep 5')
	g2=$(submit sb-alice -A "$G" -G 1 --min-runtime=0:05 --begin=now+600 --wrap true)
	g3=$(submit sb-alice -A "$G" -G 1 --min-runtime=0:05 --begin=now+600 --wrap true)
	u=$(submit sb-carol -G 1 --min-runtime=0 --begin=now+600 --wrap true)
	off=$(stat -c %s "$log")
	scontrol update jobid="$g" priority=5
	scontrol update jobid="$g3" priority=100000
	scontrol update jobid="$u" priority=4000000000
	wait_recalc_after "$(date +%s)"	# applied at the next recalculation
	pg=$(prio "$g"); pg2=$(prio "$g2"); pg3=$(prio "$g3"); pu=$(prio "$u"); pv=$(prio "$v")
	say "priorities: g(admin 5) $pg, g2(none) $pg2, g3(admin 100000) $pg3, unallocated u(admin 4e9) $pu, victim $pv"
	[ "$pg" -ge "$tier" ] || { say "allocated job lost its tier"; return 1; }
	[ "$pu" -lt "$tier" ] || { say "unallocated job lifted into the allocated tier"; return 1; }
	[ "$pg" -gt "$pu" ] || { say "unallocated job above an allocated one"; return 1; }
	[ $((pg >> 11)) = $((pg2 >> 11)) ] && [ $((pg3 >> 11)) = $((pg2 >> 11)) ] ||
		{ say "the budget's standing level changed with the admin priority"; return 1; }
	[ "$pg" -lt "$pg2" ] && [ "$pg2" -lt "$pg3" ] ||
		{ say "in-team order is not admin 5 < none < admin 100000"; return 1; }
	[ "$pg" -gt "$pv" ] || { say "preemptor not above the victim of the worse standing"; return 1; }
	expect_in "$(tail -c +$((off + 1)) "$log")" "JobId=$g: administrator's priority 5 read as in-team priority 5: its tier (allocated) and its budget's standing are kept"
	# and it still preempts once eligible
	scontrol update jobid="$g" StartTime=now
	wait_state "$g" RUNNING 40
	[ "$(restarts "$v")" = 1 ] || { say "victim not preempted"; return 1; }
	expect_in "$(job_field "$v" SystemComment)" "budget:preempted_by=$g,"
	clear_cluster
}

# ctld_thread_count NAME - how many of slurmctld's threads are named NAME.
ctld_thread_count() {
	local pid
	pid=$(ctld_pid)
	cat /proc/"$pid"/task/*/comm 2>/dev/null | grep -cx "$1" || true
}

# The plugins' threads carry names (top -H, ps -L, the benchmark): one
# recalculation thread and one preemption tick, also after a reconfigure
# (the tick is restarted: the old one must be gone).
test_plugin_threads_named() {
	local name i ok
	for name in sb_prio_calc sb_preempt_tick; do
		[ "$(ctld_thread_count "$name")" = 1 ] || { say "threads named $name: $(ctld_thread_count "$name")"; return 1; }
	done
	scontrol reconfigure
	for name in sb_prio_calc sb_preempt_tick; do
		ok=
		for ((i = 0; i < 20; i++)); do
			[ "$(ctld_thread_count "$name")" = 1 ] && { ok=1; break; }
			sleep 0.5
		done
		[ -n "$ok" ] || { say "after reconfigure, threads named $name: $(ctld_thread_count "$name")"; return 1; }
	done
	say "slurmctld threads: $(cat /proc/"$(ctld_pid)"/task/*/comm | sort | uniq -c | tr -s ' \n' ' ')"
}
