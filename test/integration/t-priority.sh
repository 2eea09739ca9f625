# shellcheck shell=bash
# t-priority.sh - priority/budget: charging, standing, in-team
# priority, persistence across a kill -9 of slurmctld.

# The same 8 GPUs, asked for four ways, charge the same; a CPU-only job 0.
test_charge_same_for_every_gpu_flag() {
	local ids=() id e c
	ids+=("$(submit sb-alice --min-runtime=0:05 --gres=gpu:8 --wrap 'sleep 3')")
	ids+=("$(submit sb-alice --min-runtime=0:05 --gpus=8 --wrap 'sleep 3')")
	ids+=("$(submit sb-alice --min-runtime=0:05 -N 1 --gpus-per-node=8 --wrap 'sleep 3')")
	ids+=("$(submit sb-alice --min-runtime=0:05 -N 1 -n 4 --gpus-per-task=2 --wrap 'sleep 3')")
	for id in "${ids[@]}"; do wait_state "$id" COMPLETED 90; done
	for id in "${ids[@]}"; do
		e=$(elapsed "$id"); c=$(ledger_charged "$id")
		say "job $id ran ${e}s, charged $c GPU-s"
		[ "$c" -eq $((8 * e)) ] || { say "expected $((8 * e))"; return 1; }
	done
	id=$(submit sb-alice --min-runtime=0:05 -n 2 --wrap 'sleep 2')
	wait_state "$id" COMPLETED 60
	c=$(ledger_charged "$id")
	[ "$c" -eq 0 ] || { say "CPU-only job charged $c"; return 1; }
}

# A QOS's UsageFactor scales what its jobs are charged, as under
# priority/multifactor: 2 charges twice the GPU-seconds, 0 nothing (the job
# is still allocated and protected).  The QOSes stay (with their jobs in the
# window, a rebuild from slurmdbd reads their factors again: see
# test_usage_survives_restart_and_corrupt_file's rebuild).
test_charge_scaled_by_qos_usage_factor() {
	local q f id e c
	for q in sb-double:2 sb-free:0; do
		f=${q#*:}; q=${q%%:*}
		# created with its factor, or (a second run) still holding it
		sacctmgr -i add qos "$q" UsageFactor="$f" >/dev/null 2>&1 ||
			sacctmgr -i modify qos "$q" set UsageFactor="$f" >/dev/null
		[ "$(sacctmgr -n -P show qos "$q" format=UsageFactor)" = "$f.000000" ] ||
			{ say "QOS $q: UsageFactor $(sacctmgr -n -P show qos "$q" format=UsageFactor)"; return 1; }
		sacctmgr -i modify user sb-alice where account=phys-a set qos+="$q" >/dev/null
		# slurmdbd sends updates in order: once the job is accepted
		# with the QOS, slurmctld has the factor too
		wait_for 30 "sb-alice may use QOS $q" _qos_usable "$q"
		id=$(submit sb-alice -A phys-a --qos="$q" --min-runtime=0:05 -G 2 --wrap 'sleep 3')
		wait_state "$id" COMPLETED 90
		expect_in "$(job_field "$id" AdminComment)" "allocated=yes"
		e=$(elapsed "$id"); c=$(ledger_charged "$id")
		say "QOS $q (UsageFactor $f): job $id ran ${e}s on 2 GPUs, charged $c GPU-s"
		[ "$c" -eq $((2 * e * f)) ] || { say "expected $((2 * e * f))"; return 1; }
	done
}
_qos_usable() {
	local id
	id=$(submit sb-alice -A phys-a --qos="$1" --min-runtime=0:05 -G 2 --hold --wrap true) &&
		[ -n "$id" ] && scancel "$id"
}

# Unallocated work is recorded apart and never charged to a budget.
test_unallocated_charges_nothing() {
	local before after id
	before=$(raw_usage nobudget sb-carol)
	id=$(submit sb-carol --min-runtime=0 -G 8 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	wait_recalc_after "$(ended "$id")"	# its end is charged
	after=$(raw_usage nobudget sb-carol)
	say "nobudget/sb-carol RawUsage before $before after $after"
	[ "$before" = "$after" ] && [ "$after" = 0 ] || return 1
	# the ledger did see it, as unallocated
	grep -q "\[$id," "$SB_CLUSTER_DIR/state/budget_ledger.json" ||
		{ say "job $id is not in the saved ledger"; return 1; }
}

# A QOS's Priority orders jobs within their budget, as --nice does
# (sb_priority_in_team): the top QOS puts a job first in its team, never
# past another budget's job; sprio shows its part in the QOS column.
test_qos_priority_within_budget() {
	local hold a0 aq b pa0 paq pb sp q=sb-urgent
	# cleanup: the QOS's Priority first (a QOS with active jobs is not
	# deleted; it must not stay the top one), then the QOS
	cleanup_push 'scancel -u sb-alice >/dev/null 2>&1; scancel -u sb-bob >/dev/null 2>&1; sacctmgr -i modify qos '"$q"' set Priority=0 >/dev/null 2>&1; sacctmgr -i modify user sb-alice set qos-='"$q"' >/dev/null 2>&1; sacctmgr -i delete qos '"$q"' >/dev/null 2>&1; true'
	sacctmgr -i add qos "$q" Priority=100000 >/dev/null 2>&1 ||
		sacctmgr -i modify qos "$q" set Priority=100000 >/dev/null
	sacctmgr -i modify user sb-alice where account=phys-a set qos+="$q" >/dev/null
	wait_for 30 "sb-alice may use QOS $q" _qos_usable "$q"
	hold=$(submit sb-alice --min-runtime=0:40 -N 4 --gpus-per-node=8 --wrap 'sleep 40')
	wait_state "$hold" RUNNING 30
	a0=$(submit sb-alice -A phys-a --min-runtime=0:05 -G 1 --wrap true)
	aq=$(submit sb-alice -A phys-a --qos="$q" --min-runtime=0:05 -G 1 --nice=200 --wrap true)
	b=$(submit sb-bob --min-runtime=0:05 -G 1 --wrap true)
	wait_recalc_after "$(date +%s)"
	pa0=$(prio "$a0"); paq=$(prio "$aq"); pb=$(prio "$b")
	sp="$(sprio -h -j "$aq" -o '%Y %B %F %Q %S') $paq $(prio "$aq")"
	say "alice normal=$pa0 $q(nice 200)=$paq bob=$pb; sprio of the $q job, then squeue's priority twice: $sp"
	scancel "$hold" "$a0" "$aq" "$b"
	# 512 - 200 + 511 = 823 in-team: QOS 2 x 511, SITE 2 x 312; sprio's
	# PRIORITY is the sum of its columns, so it is compared with squeue's
	awk '{ if (($1 != $6 && $1 != $7) || $1 != $2 + $3 + $4 + $5 || $4 != 1022 || $5 != 624) exit 1 }' <<<"$sp" ||
		{ say "sprio's columns do not add up to the job's priority $paq with the QOS's part"; return 1; }
	[ "$paq" -gt "$pa0" ] || { say "the $q job is not before alice's normal one"; return 1; }
	if [ "$pa0" -gt "$pb" ]; then [ "$paq" -gt "$pb" ]; else [ "$paq" -lt "$pb" ]; fi ||
		{ say "the QOS moved alice's job across bob's"; return 1; }
}

# Allocated above unallocated; --nice reorders only within one association.
test_in_team_priority_reorders_only_own_team() {
	local hold a0 a1 b u
	# the hold is protected for the whole test: a better-placed pending
	# job must not preempt it and run before the priorities are read
	hold=$(submit sb-alice --min-runtime=0:40 -N 4 --gpus-per-node=8 --wrap 'sleep 40')
	wait_state "$hold" RUNNING 30
	a0=$(submit sb-alice --min-runtime=0:05 -G 1 --wrap true)
	a1=$(submit sb-alice --min-runtime=0:05 -G 1 --nice=100 --wrap true)
	b=$(submit sb-bob --min-runtime=0:05 -G 1 --wrap true)
	u=$(submit sb-bob --min-runtime=0 -G 1 --wrap true)
	# one recalculation after the submissions: priorities from the
	# standing now, and the scheduler has seen them
	wait_recalc_after "$(date +%s)"
	local pa0 pa1 pb pu
	pa0=$(prio "$a0"); pa1=$(prio "$a1"); pb=$(prio "$b"); pu=$(prio "$u")
	say "alice nice0=$pa0 nice100=$pa1 bob=$pb bob-unallocated=$pu"
	# sprio explains the number: its parts (tier, standing, in-team) add up
	local sp
	sp=$(sprio -h -j "$b" -o '%Y %B %F %S')
	# squeue's priority read before and after (a recalculation between)
	sp="$sp $pb $(prio "$b")"
	say "sprio of bob's job, then squeue's priority twice: $sp"
	scancel "$hold" "$a0" "$a1" "$b" "$u"
	awk '{ if (($1 != $5 && $1 != $6) || $1 != $2 + $3 + $4 || $2 != 2147483648 || $4 != 1024) exit 1 }' <<<"$sp"
	[ "$pa0" -gt "$pa1" ] || { say "nice did not lower alice's own job"; return 1; }
	# both of alice's jobs are on the same side of bob's
	if [ "$pa0" -gt "$pb" ]; then [ "$pa1" -gt "$pb" ]; else [ "$pa1" -lt "$pb" ]; fi ||
		{ say "nice moved alice's job across bob's"; return 1; }
	if [ "$pu" -ge "$pa1" ] || [ "$pu" -ge "$pb" ]; then
		say "unallocated job not below every allocated one"; return 1
	fi
}

# The budget with less usage relative to its share starts first: make bio
# clearly over-used (usage/share), then queue one whole-cluster job of each.
# Both are submitted held and released by one scontrol call: the scheduler
# sees them pending together, and the first submitted cannot start before
# the second exists.
test_less_used_budget_starts_first() {
	local warm w a b sa sb ua ub
	ua=$(raw_usage physics); ub=$(raw_usage bio)
	# bio's usage/share must exceed physics': ub/(1/4) > ua/(3/4)
	# (3 s more than that; 3 s if it already does: a second run)
	w=$(( (ua / 3 - ub) / 32 ))
	[ "$w" -gt 0 ] || w=0
	warm=$(submit sb-bob --min-runtime=0:05 -N 4 --gpus-per-node=8 --wrap "sleep $((w + 3))")
	wait_state "$warm" COMPLETED 120
	b=$(submit sb-bob -H --min-runtime=0:05 -N 4 --gpus-per-node=8 --wrap 'sleep 1')
	a=$(submit sb-dave -H --min-runtime=0:05 -N 4 --gpus-per-node=8 --wrap 'sleep 1')
	cleanup_push "scancel $a $b >/dev/null 2>&1; true"
	wait_recalc_after "$(date +%s)"	# the warm job's usage charged
	ua=$(raw_usage physics); ub=$(raw_usage bio)
	say "usage physics=$ua (share 3/4) bio=$ub (share 1/4)"
	[ $((ub * 3)) -gt "$ua" ] || { say "bio is not over-used: test set-up failed"; return 1; }
	scontrol release "$b,$a"
	wait_state "$a" COMPLETED 90
	wait_state "$b" COMPLETED 90
	sa=$(date -d "$(sacct_field "$a" Start)" +%s)
	sb=$(date -d "$(sacct_field "$b" Start)" +%s)
	say "dave (physics) started at $sa, bob (bio) at $sb"
	[ "$sa" -lt "$sb" ]
}

# Usage survives kill -9 of slurmctld; a job running across it is charged
# exactly once for every second it ran.
test_usage_survives_kill9() {
	local id before after c e mark
	id=$(submit sb-dave --min-runtime=0:05 -G 4 --wrap 'sleep 25')
	wait_state "$id" RUNNING 30
	# Let slurmctld save the job as running in its own state file first:
	# killed earlier, it recovers the job as pending and runs it again (a
	# second run, rightly charged too, that this test's count leaves out).
	wait_ctld_saved "$(date -d "$(job_field "$id" StartTime)" +%s)"
	wait_recalc_after "$(date +%s)"	# usage charged up to now
	before=$(raw_usage physics)
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld
	sleep 2	# the scenario: the controller stays down 2 s, the job runs on
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	# the reloaded ledger is published: one recalculation after loading it
	wait_log "$mark" "priority/budget: loaded the ledger" 30
	wait_recalc_after "$(date +%s)"
	after=$(raw_usage physics)
	say "physics RawUsage before kill $before, after restart $after"
	# nothing lost (the job kept running: usage only grows, by at most the
	# time the controller was down plus two periods of 4 GPUs)
	[ "$after" -ge "$before" ] && [ "$after" -le $((before + 4 * 30)) ] || return 1
	wait_state "$id" COMPLETED 60
	e=$(elapsed "$id"); c=$(ledger_charged "$id")
	say "job ran ${e}s on 4 GPUs, charged $c"
	[ "$c" -eq $((4 * e)) ]
}

# Two budgets 3:1 (convT-a, convT-b under convT) both keep the cluster full of
# allocated 2-GPU jobs; while both have demand, their charged GPU-seconds
# converge to 3:1 within 10%.
test_zconv_two_budgets_converge_3_to_1() {
	local i a=() b=() ua ub
	# fresh accounts each run (slurmdbd revives a deleted association's id)
	local t A B P
	t=$(date +%s); P=conv$t; A=conv$t-a; B=conv$t-b
	sacctmgr -i add account "$P" parent=root fairshare=1 cluster=sbcluster >/dev/null
	sacctmgr -i add account "$A" parent="$P" fairshare=3 cluster=sbcluster >/dev/null
	sacctmgr -i add account "$B" parent="$P" fairshare=1 cluster=sbcluster >/dev/null
	sacctmgr -i add user sb-alice account="$A" cluster=sbcluster >/dev/null
	sacctmgr -i add user sb-bob account="$B" cluster=sbcluster >/dev/null
	# shares 0 afterwards: the next tests see the same budget tree as before
	cleanup_push "sacctmgr -i modify account '$P' set fairshare=0 >/dev/null"
	# assoc_mgr learns the new associations from slurmdbd
	wait_assoc "$A" sb-alice
	wait_assoc "$B" sb-bob
	# 2-GPU jobs, 16 at once, of 2-8 s drawn alike for both (seeded): jobs
	# of one length would all end together and hand out the cluster in
	# batches of 16, too coarse for a run this short.
	# The minimum runtime is the whole job: protected and committed.
	local d
	RANDOM=42
	# Submitted held, released together: both queues are full from the
	# first second (no head start for whoever is submitted first).
	for ((i = 0; i < 250; i++)); do
		d=$((2 + RANDOM % 7))
		a+=("$(submit sb-alice -H -A "$A" --min-runtime=0:$d -G 2 --wrap "sleep $d")")
		d=$((2 + RANDOM % 7))
		b+=("$(submit sb-bob -H -A "$B" --min-runtime=0:$d -G 2 --wrap "sleep $d")")
	done
	scontrol release "$(IFS=,; echo "${a[*]},${b[*]}")"
	# The run lasts while both have demand: until $A has nothing left to
	# start.  Then $B's queue is cancelled, and what each was given until
	# then (the jobs started, charged in full once they end) is compared.
	wait_eq 200 "$A to have no job left to start (pending jobs)" 0 \
		eval "squeue -h -A '$A' -t PD -o %i | wc -l"
	scancel -A "$B" -t PD
	wait_eq 60 "the started jobs of $A and $B to end" "" squeue -h -A "$A,$B" -o %i
	wait_recalc_after "$(date +%s)"	# the last ends are charged
	ua=$(raw_usage "$A"); ub=$(raw_usage "$B")
	say "charged GPU-seconds of the jobs started while both queued: $A=$ua $B=$ub (shares 3:1)"
	awk -v a="$ua" -v b="$ub" 'BEGIN { r = a / b; print "    ratio " r; exit !(b > 0 && r >= 2.7 && r <= 3.3) }' >&2
}

# A missing, then a corrupt, ledger file: detected, and the window is
# rebuilt from slurmdbd's job records to the same usage.
test_ledger_rebuilt_from_slurmdbd() {
	local id before after f=$SB_CLUSTER_DIR/state/budget_ledger.json mark
	id=$(submit sb-bob --min-runtime=0:03 -G 4 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	# a save after the job's end (not after now: once the job has ended
	# nothing may change, and Slurm 26.05 then saves only every 300 s),
	# or slurmctld would recover the job as running
	wait_ctld_saved "$(ended "$id")"
	wait_recalc_after "$(ended "$id")"	# its end is charged
	before=$(raw_usage bio sb-bob)
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld
	rm -f "$f"
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$mark" "no saved ledger at $f: rebuilding the window from slurmdbd" 30
	wait_log "$mark" "rebuilt the window from [1-9][0-9]* finished job records" 30
	wait_recalc_after "$(date +%s)"	# the rebuilt usage is published
	after=$(raw_usage bio sb-bob)
	say "bio/sb-bob usage before $before, after a rebuild from slurmdbd $after"
	[ -n "$before" ] && [ "$before" -gt 0 ] || { say "bio/sb-bob has no usage to rebuild"; return 1; }
	[ "$before" = "$after" ] || return 1

	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld
	printf '{"format":"slurm-budget-ledger","version":1,"window":' > "$f"
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$mark" "budget_ledger\.json is corrupt" 30
	wait_log "$mark" "rebuilt the window from [1-9][0-9]* finished job records" 30
	wait_recalc_after "$(date +%s)"
	after=$(raw_usage bio sb-bob)
	say "after a corrupt file: $after"
	[ "$before" = "$after" ]
}

# scontrol reconfigure keeps the window's usage (nothing decays twice).
test_usage_survives_reconfigure() {
	local before after saved mark id
	saved=$(cat "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	# physics has usage in the window (this test may run first)
	id=$(submit sb-alice -A phys-a --min-runtime=0:03 -G 2 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	# nothing running, and the last ends charged
	wait_eq 60 "no job in the queue" "" squeue -h -o %i
	wait_recalc_after "$(ended "$id")"
	wait_recalc_after "$(date +%s)"
	before=$(raw_usage physics)
	scontrol reconfigure
	wait_recalc_after "$(date +%s)"	# a recalculation after it
	after=$(raw_usage physics)
	say "physics usage before $before, after reconfigure $after"
	[ -n "$before" ] && [ "$before" -gt 0 ] || { say "physics has no usage to keep"; return 1; }
	[ "$before" = "$after" ] || return 1
	# A changed BucketWidth is read and carries the usage over: to hour
	# buckets (the current hour's one holds all of it) and back to 30 s
	# ones (the open hour is spread up to now, not into minutes to come).
	_width_keeps_usage "$saved" 1:00:00 "$before" || return 1
	_width_keeps_usage "$saved" 0:00:30 "$before" || return 1
	ctld_alive
}
# _width_keeps_usage CONF WIDTH WANT - set BucketWidth=WIDTH in CONF; the
# physics usage must stay WANT (sshare rounds: +-1).
_width_keeps_usage() {
	local mark got
	mark=$(log_mark)
	set_budget_conf "$(sed "s/^BucketWidth=.*/BucketWidth=$2/" <<<"$1")"
	wait_log "$mark" "priority/budget: read .*BucketWidth=$2" || return 1
	wait_recalc_after "$(date +%s)"
	got=$(raw_usage physics)
	say "physics usage $3, with BucketWidth=$2 $got"
	[ "$got" -ge $(($3 - 1)) ] && [ "$got" -le $(($3 + 1)) ]
}

# Deleting an association keeps its usage with its budget: the parent's
# usage does not drop (no laundering usage by moving users around).
test_deleted_association_usage_stays_with_budget() {
	local id before after
	sacctmgr -i add user sb-dave account=phys-a cluster=sbcluster >/dev/null
	wait_assoc phys-a sb-dave
	id=$(submit sb-dave -A phys-a --min-runtime=0:03 -G 4 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	wait_recalc_after "$(ended "$id")"	# its end is charged
	before=$(raw_usage phys-a)
	sacctmgr -i delete user sb-dave account=phys-a cluster=sbcluster >/dev/null
	wait_eq 30 "the association phys-a/sb-dave gone from sshare" "" raw_usage phys-a sb-dave ||
		{ say "association still there"; return 1; }
	wait_recalc_after "$(date +%s)"	# priority/budget adopted the tree without it
	after=$(raw_usage phys-a)
	say "phys-a usage before deleting sb-dave's association $before, after $after"
	[ -n "$before" ] && [ "$before" -gt 0 ] || { say "phys-a has no usage"; return 1; }
	[ "$before" = "$after" ]
}

# priority/multifactor's weights mean nothing under priority/budget: a
# slurm.conf that still sets them is told so once at start, naming them;
# without them nothing is said.
test_multifactor_weights_warned() {
	local mark line
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	mark=$(log_mark)
	SB_SLURM_CONF_EXTRA="PriorityWeightAge=1000
PriorityWeightQOS=500" "$SB_REPO/contrib/cluster.sh" up >/dev/null
	line=$(wait_log "$mark" "priority/budget: warning: PriorityWeight" 30) || return 1
	say "$line"
	expect_in "$line" "warning: PriorityWeightAge=1000 PriorityWeightQOS=500: priority/multifactor's weights have no effect here"
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	ctld_alive
	# priority/budget's init has run once it read budget.conf
	wait_log "$mark" "priority/budget: read .*budget.conf" 30 >/dev/null || return 1
	no_log "$mark" "weights have no effect"
	cleanup_drop
}
