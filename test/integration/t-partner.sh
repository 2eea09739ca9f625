# shellcheck shell=bash
# t-partner.sh - the two controller plugins as partners: a job without a
# contract tag is unallocated in both (it never preempts, and is preempted
# at once), and preempt/budget without priority/budget degrades as
# documented (allocated jobs preempt unallocated ones, never allocated
# ones).  Reads only slurmctld.log lines written after each action.

# partner_log_absent OFFSET TEXT - no line after OFFSET contains TEXT.
partner_log_absent() {
	local line
	# grep alone decides: in a pipeline, tail killed by SIGPIPE after
	# grep's first match would fail it under pipefail, and a line that is
	# there would read as absent
	if line=$(grep -F -m 1 -- "$2" < <(tail -c +"$(($1 + 1))" "$(ctld_log)")); then
		say "unexpected slurmctld.log line: $line"
		return 1
	fi
}

# running_none IDS... - wait up to 30 s until none of the jobs holds GPUs.
running_none() {
	local i id busy
	for ((i = 0; i < 60; i++)); do
		busy=
		for id in "$@"; do
			case $(job_field "$id" JobState) in RUNNING | COMPLETING) busy=$id ;; esac
		done
		[ -z "$busy" ] && return 0
		sleep 0.5
	done
	say "job $busy still holds its GPUs after 30 s"
	return 1
}

# A job without a contract tag (here: submitted while job_submit/budget was
# not loaded, as a job started before the plugins were) is unallocated for
# both plugins: as a preemptor it never preempts (counted as allocated, it
# would preempt unallocated jobs), as a victim it is preempted at once by an
# allocated job although its submitter asked for 40 protected minutes.
test_partner_untagged_job_is_unallocated() {
	clear_cluster
	local u=() n a off victims=() id hit=0 line node
	cleanup_push "scontrol setdebug info; '$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	# job_submit/all_partitions instead of budget: nothing writes a tag
	with_extra_conf "JobSubmitPlugins=all_partitions"
	n=$(submit sb-alice -H --min-runtime=40 -G 8 --wrap 'sleep 5')
	for node in gpu01 gpu02 gpu03 gpu04; do
		victims+=("$(submit sb-alice -H -w "$node" -G 8 --min-runtime=40 --wrap 'sleep 300')")
	done
	off=$(partner_log_mark)
	with_extra_conf ""
	partner_log_wait "$off" "preempt/budget: using priority/budget's budget view" 30 >/dev/null
	for id in "$n" "${victims[@]}"; do
		[[ "$(job_field "$id" AdminComment)" != *budget:* ]] ||
			{ say "job $id has a contract tag: $(job_field "$id" AdminComment)"; return 1; }
	done

	# preemptor side: the cluster full of unallocated jobs
	mapfile -t u < <(fill_nodes sb-carol --min-runtime=0 --resumable --wrap 'sleep 300')
	wait_running "${u[@]}"
	scontrol setdebug debug2
	off=$(partner_log_mark)
	scontrol release "$n"
	line=$(partner_log_wait "$off" "JobId=$n may not preempt JobId=" 30)
	expect_in "$line" ": an unallocated job never preempts"
	scontrol setdebug info
	for id in "${u[@]}"; do
		if [ "$(job_field "$id" JobState)" != RUNNING ] || [ "$(restarts "$id")" != 0 ]; then
			say "unallocated job $id was disturbed by untagged job $n"
			return 1
		fi
	done
	[ "$(job_field "$n" JobState)" = PENDING ] || { say "untagged job $n: $(job_field "$n" JobState)"; return 1; }
	partner_log_absent "$off" "for JobId=$n "
	scancel "$n" "${u[@]}"
	running_none "$n" "${u[@]}"

	# victim side: no tag, no protection
	scontrol release "${victims[@]}"
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
	line=$(partner_log_wait "$off" "for JobId=$a " 10)
	expect_in "$line" "(unallocated, priority"
	clear_cluster
	cleanup_drop
}

# preempt/budget with PriorityType=priority/multifactor: one log line at
# load; allocated jobs preempt unallocated ones at once but never allocated
# ones (verdict: no budget standing is known).  The normal configuration is
# restored afterwards, and preempt/budget then finds priority/budget again.
test_partner_degraded_without_priority_budget() {
	clear_cluster
	local u=() v=() a b id off hit=0 line
	cleanup_push "scontrol setdebug info 2>/dev/null; '$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	off=$(partner_log_mark)
	# (multifactor with every weight 0 gives priority 0: held)
	with_extra_conf "PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=1000"
	partner_log_wait "$off" "preempt/budget: PriorityType is priority/multifactor, not priority/budget: " 10
	partner_log_absent "$CTLD_STARTED" "using priority/budget's budget view"

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
	scontrol release "$b"
	scontrol update jobid="$b" priority=1000000
	partner_log_wait "$off" "JobId=$b may not preempt JobId=${v[0]}: no budget standing is known" 30
	scontrol setdebug info
	for id in "${v[@]}"; do
		if [ "$(job_field "$id" JobState)" != RUNNING ] || [ "$(restarts "$id")" != 0 ]; then
			say "allocated job $id was preempted in degraded mode"
			return 1
		fi
	done
	[ "$(job_field "$b" JobState)" = PENDING ] || { say "job $b: $(job_field "$b" JobState)"; return 1; }
	clear_cluster

	# back to the normal configuration: the partner is found again
	off=$(partner_log_mark)
	with_extra_conf ""
	partner_log_wait "$CTLD_STARTED" "preempt/budget: using priority/budget's budget view" 30
	partner_log_absent "$CTLD_STARTED" "PriorityType is priority/multifactor"
	[ "$(scontrol show config | sed -n 's/^PriorityType *= *//p')" = priority/budget ] ||
		{ say "PriorityType not restored"; return 1; }
	cleanup_drop
}

# priority/budget without preempt/budget: a warning at start, and jobs are
# still ordered and run (nothing is preempted: an allocated job waits for
# an unallocated one to end).
test_partner_priority_alone() {
	clear_cluster
	local u=() a off id end first_end
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	off=$(partner_log_mark)
	with_extra_conf "PreemptType=preempt/none
PreemptMode=OFF"
	partner_log_wait "$off" "priority/budget: warning: PreemptType is preempt/none, not preempt/budget: " 10
	partner_log_absent "$CTLD_STARTED" "] preempt/budget: "
	mapfile -t u < <(fill_nodes sb-carol --min-runtime=0 --wrap 'sleep 8')
	wait_running "${u[@]}"
	a=$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 1')
	wait_state "$a" COMPLETED 60
	first_end=
	for id in "${u[@]}"; do
		[ "$(restarts "$id")" = 0 ] || { say "job $id was preempted without preempt/budget"; return 1; }
		end=$(date -d "$(job_field "$id" EndTime)" +%s)
		if [ -z "$first_end" ] || [ "$end" -lt "$first_end" ]; then first_end=$end; fi
	done
	[ "$(started "$a")" -ge "$first_end" ] ||
		{ say "job $a started at $(started "$a"), before the first unallocated job ended ($first_end)"; return 1; }
	off=$(partner_log_mark)
	with_extra_conf ""
	partner_log_wait "$off" "preempt/budget: using priority/budget's budget view" 30 >/dev/null
	cleanup_drop
}
