# shellcheck shell=bash
# t-partner.sh - the two controller plugins as partners: a job without a
# contract tag is unallocated in both (it never preempts, and is preempted
# at once), and preempt/budget without priority/budget degrades as
# documented (allocated jobs preempt unallocated ones, never allocated
# ones).  Uses clear_cluster, fill_nodes, wait_running and restarts from
# t-preempt.sh.  Reads only slurmctld.log lines written after each action.

ctld_log() { echo "$SB_CLUSTER_DIR/log/slurmctld.log"; }

# partner_log_mark - the log's size now: what a later wait reads from.
partner_log_mark() { stat -c %s "$(ctld_log)"; }

# partner_log_wait OFFSET TEXT [TIMEOUT] - poll (0.5 s) until a line written
# after byte OFFSET contains TEXT (fixed string); print the first such line.
partner_log_wait() {
	local off=$1 text=$2 t=${3:-30} i line
	for ((i = 0; i < t * 2; i++)); do
		line=$(tail -c +"$((off + 1))" "$(ctld_log)" | grep -F -m 1 -- "$text" || true)
		if [ -n "$line" ]; then
			printf '%s\n' "$line"
			return 0
		fi
		sleep 0.5
	done
	say "no slurmctld.log line with '$text' within ${t}s after offset $off"
	return 1
}

# partner_log_absent OFFSET TEXT - no line after OFFSET contains TEXT.
partner_log_absent() {
	if tail -c +"$(($1 + 1))" "$(ctld_log)" | grep -F -q -- "$2"; then
		say "unexpected slurmctld.log line: $(tail -c +"$(($1 + 1))" "$(ctld_log)" | grep -F -m 1 -- "$2")"
		return 1
	fi
}

# untagged USER ARGS... - submit held, replace the contract tag in the
# AdminComment as an administrator would (a job submitted around
# job_submit/budget has none), release it; prints the job id.
untagged() {
	local id
	id=$(submit "$1" -H "${@:2}")
	scontrol update jobid="$id" admincomment=imported-without-budget-tag
	[ "$(job_field "$id" AdminComment)" = imported-without-budget-tag ] || {
		say "job $id: AdminComment is '$(job_field "$id" AdminComment)', wanted the tag replaced"
		return 1
	}
	scontrol release "$id"
	echo "$id"
}

# A running or pending job without a valid tag is unallocated for both
# plugins: as a preemptor it never preempts (before issue 10 preempt/budget
# counted it as allocated and let it preempt unallocated jobs), as a victim
# it is preempted at once by an allocated job although its submitted
# contract asked for 40 minutes.
test_partner_untagged_job_is_unallocated() {
	clear_cluster
	local u=() n a off victims=() id hit=0 line
	trap 'scontrol setdebug info' EXIT
	# preemptor side: the cluster full of unallocated jobs
	mapfile -t u < <(fill_nodes sb-carol --min-runtime=0 --resumable --wrap 'sleep 300')
	wait_running "${u[@]}"
	scontrol setdebug debug2
	off=$(partner_log_mark)
	n=$(untagged sb-alice --min-runtime=40 -G 8 --wrap 'sleep 5')
	line=$(partner_log_wait "$off" "JobId=$n may not preempt JobId=" 30)
	expect_in "$line" ": an unallocated job never preempts"
	scontrol setdebug info
	for id in "${u[@]}"; do
		[ "$(job_field "$id" JobState)" = RUNNING ] && [ "$(restarts "$id")" = 0 ] ||
			{ say "unallocated job $id was disturbed by untagged job $n"; return 1; }
	done
	[ "$(job_field "$n" JobState)" = PENDING ] || { say "untagged job $n: $(job_field "$n" JobState)"; return 1; }
	partner_log_absent "$off" "for JobId=$n "
	scancel "$n"
	clear_cluster

	# victim side: untagged jobs asked for 40 protected minutes, get none
	mapfile -t victims < <(for node in gpu01 gpu02 gpu03 gpu04; do
		untagged sb-alice -w "$node" -G 8 --min-runtime=40 --resumable --wrap 'sleep 300'
	done)
	wait_running "${victims[@]}"
	off=$(partner_log_mark)
	a=$(submit sb-bob --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 20
	for id in "${victims[@]}"; do
		if [ "$(restarts "$id")" != 0 ] || [ "$(job_field "$id" JobState)" != RUNNING ]; then
			hit=$((hit + 1))
			expect_in "$(job_field "$id" SystemComment)" "budget:preempted_by=$a,"
		fi
	done
	[ "$hit" = 1 ] || { say "expected one untagged victim for job $a, got $hit"; return 1; }
	partner_log_wait "$off" "for JobId=$a " 10 | grep -q "(unallocated," ||
		{ say "the victim was not logged as unallocated"; return 1; }
	clear_cluster
}

# preempt/budget with PriorityType=priority/multifactor: one log line at
# load; allocated jobs preempt unallocated ones at once but never allocated
# ones (verdict: no budget standing is known).  The normal configuration is
# restored afterwards, and preempt/budget then finds priority/budget again.
test_partner_degraded_without_priority_budget() {
	clear_cluster
	local u=() v=() a b id off hit=0 line
	trap 'scontrol setdebug info 2>/dev/null; SB_SLURM_CONF_EXTRA= "$SB_REPO/contrib/cluster.sh" up >/dev/null 2>&1' EXIT
	off=$(partner_log_mark)
	SB_SLURM_CONF_EXTRA="PriorityType=priority/multifactor" "$SB_REPO/contrib/cluster.sh" up >/dev/null
	partner_log_wait "$off" "preempt/budget: PriorityType is priority/multifactor, not priority/budget: " 60
	partner_log_wait "$off" "slurmctld version" 60 >/dev/null
	partner_log_absent "$off" "using priority/budget's budget view"

	# an allocated job still preempts an unallocated one at once
	mapfile -t u < <(fill_nodes sb-carol --min-runtime=0 --resumable --wrap 'sleep 300')
	wait_running "${u[@]}"
	a=$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 300')
	wait_state "$a" RUNNING 20
	for id in "${u[@]}"; do
		[ "$(restarts "$id")" != 0 ] && hit=$((hit + 1))
	done
	[ "$hit" = 1 ] || { say "expected one unallocated victim for $a, got $hit"; return 1; }
	clear_cluster

	# but never an allocated one: past their 3 s minimum runtime and
	# outranked by an administrator's priority, they are kept
	mapfile -t v < <(fill_nodes sb-alice --min-runtime=0:03 --resumable --wrap 'sleep 300')
	wait_running "${v[@]}"
	scontrol setdebug debug2
	off=$(partner_log_mark)
	b=$(submit sb-bob -H --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	scontrol update jobid="$b" priority=1000000
	line=$(partner_log_wait "$off" "JobId=$b may not preempt JobId=" 30)
	expect_in "$line" ": no budget standing is known"
	scontrol setdebug info
	for id in "${v[@]}"; do
		[ "$(job_field "$id" JobState)" = RUNNING ] && [ "$(restarts "$id")" = 0 ] ||
			{ say "allocated job $id was preempted in degraded mode"; return 1; }
	done
	[ "$(job_field "$b" JobState)" = PENDING ] || { say "job $b: $(job_field "$b" JobState)"; return 1; }
	clear_cluster

	# back to the normal configuration: the partner is found again
	off=$(partner_log_mark)
	SB_SLURM_CONF_EXTRA= "$SB_REPO/contrib/cluster.sh" up >/dev/null
	partner_log_wait "$off" "preempt/budget: using priority/budget's budget view" 60
	partner_log_absent "$off" "PriorityType is priority/multifactor"
	[ "$(scontrol show config | sed -n 's/^PriorityType *= *//p')" = priority/budget ] ||
		{ say "PriorityType not restored"; return 1; }
	trap - EXIT
}
