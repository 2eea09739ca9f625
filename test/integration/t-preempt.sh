# shellcheck shell=bash
# t-preempt.sh - preempt/budget on the real cluster: the minimum-runtime
# contract, standing-ordered preemption, requeue keeping its place, exact
# charging of requeued jobs, automated repair and the grace signal.
# The cluster has 4 nodes x 8 GPUs; budget.conf preempts at once
# (PreemptGraceTime=0) and a requeued job may restart 6 s later
# (cred_expire=5).

# An allocated job preempts a running unallocated job at once; only as many
# victims as it needs; the victim, resumable, is requeued, later finishes,
# and is charged nothing.
test_preempt_unallocated_at_once() {
	clear_cluster
	local v=() id a t0 t1 victim="" n=0 before after
	before=$(raw_usage nobudget sb-carol)
	mapfile -t v < <(fill_nodes sb-carol --min-runtime=0 --resumable --wrap 'sleep 25')
	wait_running "${v[@]}"
	a=$(submit sb-alice --min-runtime=0:05 -G 2 --wrap 'sleep 5')
	wait_state "$a" RUNNING 10
	t0=$(submitted "$a") t1=$(started "$a")
	say "allocated job $a started $((t1 - t0)) s after submission"
	[ $((t1 - t0)) -le 4 ] || { say "took too long"; return 1; }
	for id in "${v[@]}"; do
		if [ "$(restarts "$id")" != 0 ]; then victim=$id; n=$((n + 1)); fi
	done
	say "victims: $n ($victim)"
	[ "$n" = 1 ] || { say "expected exactly one victim for 2 GPUs"; return 1; }
	expect_in "$(job_field "$victim" SystemComment)" "budget:preempted_by=$a,"
	# requeued, not cancelled, and it finishes later
	wait_state "$victim" COMPLETED 90
	after=$(raw_usage nobudget sb-carol)
	say "carol's charged usage before $before after $after"
	[ -n "$before" ] && [ -n "$after" ] || { say "sshare lists no nobudget/sb-carol"; return 1; }
	[ "$before" = "$after" ] || { say "unallocated work was charged"; return 1; }
	clear_cluster
}

# An allocated job is not preempted inside its min runtime; after it, a job
# of a budget with better standing preempts it and one with worse standing
# never does.  Its charge is exactly what it ran in all segments.
test_preempt_protected_then_standing() {
	clear_cluster
	local t P V G W v=() w0 g w id t_start t_first t_g victim="" n=0
	t=$(date +%s); P=pre$t; V=pre$t-v; G=pre$t-g; W=pre$t-w
	# G: never used, so ranks first; W: 1/1000 of V's share, with a little
	# usage, so it ranks below V once V runs; V: the victims.
	fresh_budgets "$P" "$V:1000:sb-dave" "$G:1000:sb-alice" "$W:1:sb-bob"
	w0=$(submit sb-bob -A "$W" --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	wait_state "$w0" COMPLETED 30
	wait_recalc_after "$(ended "$w0")"	# W's usage is charged
	[ "$(raw_usage "$W")" -gt 0 ] || { say "W's usage is $(raw_usage "$W") after its job"; return 1; }
	mapfile -t v < <(fill_nodes sb-dave -A "$V" --min-runtime=0:12 --resumable --wrap 'sleep 40')
	wait_running "${v[@]}"
	t_first=$(started "${v[0]}")
	for id in "${v[@]:1}"; do t=$(started "$id"); [ "$t" -lt "$t_first" ] && t_first=$t; done
	w=$(submit sb-bob -A "$W" --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	g=$(submit sb-alice -A "$G" --min-runtime=0:05 -G 8 --wrap 'sleep 10')
	# The observation: until 10 s after the first victim's start, inside
	# every victim's 12 s min runtime, nothing is preempted (a sleep
	# under test, not a wait).  Counted from the victims' start, not from
	# the submissions: on a loaded machine those may come seconds later,
	# and a fixed sleep then ends past the min runtime, when the good job
	# rightly runs.  Looked at by t_first + 12 (else the look came too
	# late to tell: the start times checked below still tell it).
	wait_until $((t_first + 10)) "10 s into the victims' min runtime"
	local seen=() seen_g
	for id in "${v[@]}"; do seen+=("$(restarts "$id")"); done
	seen_g=$(job_field "$g" JobState)
	if [ "$(date +%s)" -lt $((t_first + 12)) ]; then
		[ "${seen[*]}" = "0 0 0 0" ] || { say "preempted inside the min runtime: restarts ${seen[*]}"; return 1; }
		[ "$seen_g" = PENDING ] || { say "good job $seen_g inside the victims' min runtime"; return 1; }
	else
		say "looked at the victims only at $(date +%s), past $((t_first + 12)): the start times below decide"
	fi
	say "priorities: good $(prio "$g") worse $(prio "$w") victim $(prio "${v[0]}")"
	wait_state "$g" RUNNING 20
	t_g=$(started "$g")
	for id in "${v[@]}"; do
		if [ "$(restarts "$id")" != 0 ]; then victim=$id; n=$((n + 1)); fi
	done
	[ "$n" = 1 ] || { say "expected one victim, got $n"; return 1; }
	# the victim's own start: the four may start a second apart (they do
	# on Slurm 24.11), and the first to reach its min runtime is taken
	t_start=$(sacct -n -P -D -X -j "$victim" -o Start | head -n 1)
	t_start=$(date -d "$t_start" +%s)
	say "victim $victim started $t_start (min runtime 12 s), good job started $t_g"
	[ "$t_g" -ge $((t_start + 12)) ] || { say "preempted before start + min runtime"; return 1; }
	expect_in "$(job_field "$victim" SystemComment)" "budget:preempted_by=$g,"
	# the worse budget never preempts, though the victims are past their
	# min runtime (and when the good job ends after 10 s, the requeued
	# victim, eligible again after 6 s, outranks the worse job for it).
	# The observation: 8 s more in which nothing may happen (under test).
	sleep 8
	[ "$(job_field "$w" JobState)" = PENDING ] || { say "worse job $w is $(job_field "$w" JobState)"; return 1; }
	n=0
	for id in "${v[@]}"; do [ "$(restarts "$id")" = 0 ] || n=$((n + 1)); done
	[ "$n" = 1 ] || { say "the worse budget preempted: $n victims"; return 1; }
	# charging: every segment of the requeued victim, exactly
	scancel "$w"
	wait_state "$victim" COMPLETED 120
	local segs charged
	segs=$(sacct -n -P -D -X -j "$victim" -o ElapsedRaw | awk '{ s += $1 } END { print s * 8 }')
	charged=$(ledger_charged "$victim")
	say "victim $victim: sacct segments x 8 GPUs = $segs GPU-s; ledger charged $charged"
	[ "$segs" -gt 0 ] || { say "slurmdbd has no run of $victim"; return 1; }
	[ "$segs" = "$charged" ] || return 1
	clear_cluster
}

# A 1-GPU debug job (min runtime 15 s) on a full cluster starts within two
# scheduling cycles, taking unallocated capacity before allocated capacity
# that is past its min runtime.
test_preempt_debug_job_starts_fast() {
	clear_cluster
	local t P D B u=() d=() b t0 t1 id
	t=$(date +%s); P=dbg$t; D=dbg$t-d; B=dbg$t-b
	fresh_budgets "$P" "$D:1:sb-dave" "$B:1:sb-bob"
	mapfile -t u < <(for n in gpu01 gpu02; do submit sb-carol -w "$n" -G 8 --min-runtime=0 --resumable --wrap 'sleep 60'; done)
	mapfile -t d < <(for n in gpu03 gpu04; do submit sb-dave -A "$D" -w "$n" -G 8 --min-runtime=0:02 --resumable --wrap 'sleep 60'; done)
	wait_running "${u[@]}" "${d[@]}"
	# dave's jobs are past their min runtime (2 s) from the second after
	# the later one started
	wait_until $(( $(latest_start "${d[@]}") + 3 )) "past the min runtime"
	b=$(submit sb-bob -A "$B" --min-runtime=0:15 -G 1 --wrap 'sleep 15')
	wait_state "$b" RUNNING 10
	t0=$(submitted "$b") t1=$(started "$b")
	say "debug job started $((t1 - t0)) s after submission on $(job_field "$b" NodeList)"
	[ $((t1 - t0)) -le 2 ] || { say "more than two 1-second cycles"; return 1; }
	for id in "${d[@]}"; do
		[ "$(restarts "$id")" = 0 ] || { say "allocated $id preempted while unallocated work ran"; return 1; }
	done
	[ "$(restarts "${u[0]}")$(restarts "${u[1]}")" != 00 ] || { say "no unallocated victim"; return 1; }
	clear_cluster
}

# No loop: a best-effort job requeued after preemption never preempts the
# budgeted job that preempted it, and each victim is preempted once in the
# contention episode.
test_preempt_no_loop() {
	clear_cluster
	local u=() a id
	mapfile -t u < <(fill_nodes sb-carol --min-runtime=0 --resumable --wrap 'sleep 20')
	wait_running "${u[@]}"
	a=$(submit sb-alice --min-runtime=0:03 -G 8 -w gpu01 --wrap 'sleep 30')
	wait_state "$a" RUNNING 30
	# The observation (under test, not a wait): until 12 s after the
	# preemptor's start (counted from its start, not from when the poll
	# saw it: it runs 30 s, so it still runs when it is looked at), well
	# past its min runtime and the victim's requeue delay, in which the
	# requeued victim must not preempt its preemptor.
	wait_until $(( $(started "$a") + 12 )) "12 s after the preemptor started"
	[ "$(job_field "$a" JobState)" = RUNNING ] || { say "preemptor $a is $(job_field "$a" JobState)"; return 1; }
	[ "$(restarts "$a")" = 0 ] || { say "preemptor $a was preempted"; return 1; }
	[ "$(restarts "${u[0]}")" = 1 ] || { say "victim restarts $(restarts "${u[0]}")"; return 1; }
	for id in "${u[@]:1}"; do [ "$(restarts "$id")" = 0 ] || { say "$id preempted too"; return 1; }; done
	wait_state "${u[0]}" COMPLETED 90
	# two runs in slurmdbd: the preempted one and the one that finished
	local runs
	runs=$(sacct -n -X -D -P -j "${u[0]}" -o State | tr '\n' ' ')
	say "victim's runs: $runs"
	[ "$(sacct -n -X -D -P -j "${u[0]}" -o State | wc -l)" = 2 ] || return 1
	clear_cluster
}

# A requeued job keeps its place ahead of younger jobs of its team; after
# six preemptions it is still eligible, not held, with restart count 6.
test_preempt_requeue_keeps_place_six_times() {
	clear_cluster
	local o=() j y k a st
	# six evictions in a row: without the restart backoff (the test
	# cluster's default; set here for a budget.conf written before it)
	keep_budget_conf
	set_budget_conf "$(grep -v '^UnallocatedRestartBackoffMax' "$SB_CLUSTER_DIR/budget.conf.keep"; echo 'UnallocatedRestartBackoffMax=0')" ||
		return 1
	mapfile -t o < <(for n in gpu02 gpu03 gpu04; do submit sb-carol -w "$n" -G 8 --min-runtime=0 --resumable --wrap 'sleep 300'; done)
	wait_running "${o[@]}"
	# J must start in a later second than the others: then it is the one
	# that lost least (the victim order) without a tie
	wait_until $(( $(latest_start "${o[@]}") + 1 )) "a second after the last start"
	j=$(submit sb-carol -G 8 --min-runtime=0 --resumable --wrap 'sleep 300')
	wait_state "$j" RUNNING 30
	y=$(submit sb-carol -G 8 --min-runtime=0 --resumable --wrap 'sleep 5')
	for k in 1 2 3 4 5 6; do
		# 1 GPU is enough to evict J (the victim that lost least); it
		# runs 8 s, past J's requeue delay, so J is eligible when it ends
		a=$(submit sb-alice --min-runtime=0:02 -G 1 --wrap 'sleep 8')
		wait_state "$a" RUNNING 30
		[ "$(restarts "$j")" = "$k" ] || { say "round $k: J restarts $(restarts "$j")"; return 1; }
		wait_state "$a" COMPLETED 30
		wait_state "$j" RUNNING 30 || { say "round $k: J $(job_field "$j" JobState) $(job_field "$j" Reason), younger $(job_field "$y" JobState)"; return 1; }
		[ "$(job_field "$y" JobState)" = PENDING ] || { say "round $k: younger job $y ran before J"; return 1; }
	done
	st=$(scontrol -o show job "$j")
	say "after six preemptions: $(tr ' ' '\n' <<<"$st" | grep -E '^(JobState|Reason|Restarts|Priority)=' | tr '\n' ' ')"
	expect_in "$st" "Restarts=6"
	expect_in "$st" "JobState=RUNNING"
	clear_cluster
}

# Restart backoff (UnallocatedRestartBackoffMax, off on the test cluster,
# on here at the default): an unallocated job that cannot resume,
# preempted twice, may start again the requeue delay (6 s)
# after its first requeue and twice that (12 s) after its second, as its
# EligibleTime against its SubmitTime (Slurm sets both at the requeue)
# shows; priority/budget logs the push, and the job does not start before.
test_preempt_restart_backoff() {
	restart_backoff_case "not resumable"
}
# The same for an unallocated job that resumes: it backs off alike.
test_preempt_restart_backoff_resumable() {
	restart_backoff_case resumable --resumable
}
# restart_backoff_case WORD [SBATCH-FLAGS...] - an unallocated job
# submitted with the flags, evicted twice; WORD is what the log calls it.
restart_backoff_case() {
	clear_cluster
	local word=$1 u a mark0 mark line at="" k w1 w2
	shift
	# the test cluster runs without the backoff; on at the shipped default
	keep_budget_conf
	set_budget_conf "$(grep -v '^UnallocatedRestartBackoffMax' "$SB_CLUSTER_DIR/budget.conf.keep")" ||
		return 1
	mark0=$(log_mark)
	u=$(submit sb-carol -w gpu01 -G 8 --min-runtime=0 "$@" --wrap 'sleep 300')
	wait_state "$u" RUNNING 30
	# Slurm's requeue sets the submit time to the requeue time, plus 1 s
	# if that equals the last submit time (batch_requeue_fini()): then
	# EligibleTime - SubmitTime is 1 s short.  Requeue u a second later.
	wait_until $(( $(submitted "$u") + 1 )) "the second after job $u's submission"
	for k in 1 2; do
		mark=$(log_mark)
		# 1 GPU of gpu01 evicts u; it runs 2 s, less than the requeue
		# delay: what keeps u pending after it is u's begin time alone
		a=$(submit sb-alice -w gpu01 --min-runtime=0:02 -G 1 --wrap 'sleep 2')
		wait_eq 30 "job $u requeued $k time(s) and pending" "$k PENDING" requeued_state "$u" ||
			return 1
		if [ "$k" = 1 ]; then
			wait_for 10 "job $u's begin time 6 s after its requeue" requeue_wait_is "$u" 6 ||
				return 1
			w1=$(requeue_wait "$u")
		else
			wait_for 10 "job $u's begin time 12 s after its requeue" requeue_wait_is "$u" 12 ||
				return 1
			w2=$(requeue_wait "$u")
			line=$(wait_log "$mark" "priority/budget: JobId=$u \(unallocated, $word, restart 2\) may start again at [0-9T:-]+: restart backoff" 10) ||
				return 1
			say "$line"
			[[ $line =~ may\ start\ again\ at\ ([0-9T:-]+): ]] && at=${BASH_REMATCH[1]}
			[ "$at" = "$(job_field "$u" EligibleTime)" ] ||
				{ say "logged $at, EligibleTime $(job_field "$u" EligibleTime)"; return 1; }
		fi
		wait_state "$a" COMPLETED 30
		wait_state "$u" RUNNING 40 ||
			{ say "round $k: $u $(job_field "$u" JobState) $(job_field "$u" Reason)"; return 1; }
		[ $(( $(started "$u") - $(submitted "$u") )) -ge "$(requeue_wait "$u")" ] ||
			{ say "round $k: $u started $(( $(started "$u") - $(submitted "$u") )) s after its requeue, before its begin time"; return 1; }
	done
	say "waits after the requeues: $w1 s, $w2 s"
	[ "$w2" = $((2 * w1)) ] || { say "the second wait is not twice the first"; return 1; }
	no_log "$mark0" "JobId=$u \(unallocated, $word, restart 1\)" || return 1
	clear_cluster
}
# requeued_state JOBID - "RESTARTS STATE" of the job.
requeued_state() { echo "$(restarts "$1") $(job_field "$1" JobState)"; }
# requeue_wait JOBID - seconds from the job's (re)submission to its begin
# time: EligibleTime - SubmitTime.
requeue_wait() {
	echo $(( $(date -d "$(job_field "$1" EligibleTime)" +%s) - $(submitted "$1") ))
}
requeue_wait_is() {
	local w
	w=$(requeue_wait "$1")
	[ "$w" = "$2" ] || { echo "EligibleTime - SubmitTime = $w s"; return 1; }
}

# Repair: gpu02 drained for repair while it runs one job past its min
# runtime and one inside it: the first is requeued at once, the second at
# its min runtime, and the node ends DRAINED without anyone cancelling.
test_preempt_repair_drains_node() {
	clear_cluster
	local past inside t_in t_rel
	cleanup_push 'scontrol update nodename=gpu02 state=resume 2>/dev/null || true'
	past=$(submit sb-alice -w gpu02 -G 4 --min-runtime=0:02 --resumable --wrap 'sleep 120')
	wait_state "$past" RUNNING 30
	inside=$(submit sb-bob -w gpu02 -G 4 --min-runtime=0:20 --resumable --wrap 'sleep 120')
	wait_state "$inside" RUNNING 30
	t_in=$(started "$inside")
	# the first job is past its min runtime (2 s) from the second after
	wait_until $(( $(started "$past") + 3 )) "past the first job's min runtime"
	scontrol update nodename=gpu02 state=drain reason="repair: test GPU fell off the bus"
	# at once: within a few 1 s ticks (8 s on a loaded machine), and
	# long before the other job's protection ends (checked just below)
	wait_eq 8 "the past-min-runtime job requeued at once" 1 restarts "$past" ||
		{ say "past-min-runtime job not requeued at once"; return 1; }
	expect_in "$(job_field "$past" SystemComment)" "budget:released_for_repair=gpu02"
	# the same note ends its AdminComment, after the contract tag, and
	# reaches slurmdbd with the released run's record
	expect_in "$(admin_comment "$past")" "budget:min_runtime=2,resumable=yes,allocated=yes budget:released_for_repair=gpu02,at="
	wait_for 20 "the released run's record of $past carrying the repair note" \
		record_has "$past" 1 "budget:released_for_repair=gpu02,at=" || return 1
	[ "$(restarts "$inside")" = 0 ] || { say "job inside its min runtime was released"; return 1; }
	wait_eq 40 "the job inside its min runtime released at its end" 1 restarts "$inside"
	t_rel=$(date +%s)
	say "inside job started $t_in, min runtime 20 s, released by $t_rel"
	[ "$t_rel" -ge $((t_in + 20)) ] || return 1
	wait_eq 30 "gpu02 drained" drained sinfo -h -n gpu02 -o %T
	say "gpu02 is $(sinfo -h -n gpu02 -o %T)"
	clear_cluster
}

# Grace (sb_preempt_grace): with PreemptGraceTime=3 an allocated resumable
# victim gets SIGTERM, sees it, and is requeued after the grace time; one
# that exits on the signal (after its "checkpoint") is requeued all the
# same.  An unallocated victim gets no grace time: it is requeued at once
# (Slurm's own kill still sends SIGTERM, and SIGKILL KillWait later) and its
# preemptor starts at once (not after 3 s of grace time).
test_preempt_grace_signal() {
	clear_cluster
	keep_budget_conf
	set_budget_conf "$(grep -v '^PreemptGraceTime' "$SB_CLUSTER_DIR/budget.conf")
PreemptGraceTime=3"
	local t P V G mark=$WORK/grace.$$ v r u a b c t0 t_a t_c id off line
	t=$(date +%s); P=grc$t; V=grc$t-v; G=grc$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	rm -f "$mark".* "$mark"-ready.*
	# Each script waits in a loop of short background sleeps, so that its
	# shell is always in 'wait' when a TERM comes and runs its trap at
	# once.  Slurm sends the grace time's SIGTERM to the job's steps; the
	# batch script itself gets SIGTERM when the grace time ends, from the
	# kill, to each of its processes in turn: a script whose last command
	# was one long sleep could see that sleep killed, end, and exit
	# without its trap before its own TERM came (seen once on 26.05).
	# gpu01: allocated, resumable, trapping TERM and carrying on
	v=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:02 --resumable --wrap "trap 'echo TERM >> $mark.v' TERM; touch $mark-ready.v; while :; do sleep 1 & wait; done")
	# gpu02: allocated, resumable, exits at once on TERM
	r=$(submit sb-dave -A "$V" -w gpu02 -G 8 --min-runtime=0:02 --resumable --wrap "trap 'echo TERM >> $mark.r; exit 0' TERM; touch $mark-ready.r; while :; do sleep 1 & wait; done")
	# gpu03: unallocated, resumable, ends on TERM (a trap that carried on
	# would hold the GPUs until Slurm's SIGKILL, KillWait=5 s later)
	u=$(submit sb-carol -w gpu03 -G 8 --min-runtime=0 --resumable --wrap "touch $mark-ready.u; sleep 120")
	wait_running "$v" "$r" "$u"
	# each job has set its TERM trap (it touches its ready file after)
	for id in v r u; do
		wait_for 20 "job script $id to set its TERM trap" test -e "$mark-ready.$id"
	done
	# past the victims' 2 s min runtime, and V charged for them, so G
	# (never used) outranks V, with room for two 8-GPU x 5 s preemptors
	# under the reclaim rule
	wait_until $(( $(latest_start "$v" "$r") + 8 )) "V's jobs past their min runtime, with usage"
	wait_recalc_after "$(date +%s)"
	t0=$(date +%s)
	a=$(submit sb-alice -A "$G" -w gpu01 --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	wait_state "$a" RUNNING 20 || { say "preemptor $a: $(job_field "$a" Reason)"; return 1; }
	t_a=$(started "$a")
	say "allocated victim signalled at ~$t0, preemptor started $t_a; marks: $(cat "$mark".* 2>/dev/null | tr '\n' ' ')"
	[ -s "$mark.v" ] || { say "the allocated resumable victim never saw SIGTERM"; return 1; }
	[ $((t_a - t0)) -ge 3 ] || { say "requeued before the grace time"; return 1; }
	wait_eq 10 "the allocated victim requeued (its restart count)" 1 restarts "$v" || return 1
	# the one that exits on TERM: requeued all the same
	off=$(log_mark)
	b=$(submit sb-alice -A "$G" -w gpu02 --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	wait_state "$b" RUNNING 20 || { say "preemptor $b: $(job_field "$b" Reason)"; return 1; }
	[ -s "$mark.r" ] || { say "resumable victim never saw SIGTERM"; return 1; }
	wait_eq 10 "the victim that exited on TERM requeued (its restart count)" 1 restarts "$r" ||
		{ say "resumable victim: $(job_field "$r" JobState)"; return 1; }
	# (by the grace end, or by the tick if it exited first: which one
	# depends on timing) and never after a failed try of the tick's
	no_log "$off" "preempt/budget: JobId=$r .*requeue failed"
	say "victim that exited on TERM: $(job_field "$r" JobState) restarts $(restarts "$r")"
	# the unallocated victim: no grace time, requeued at once
	off=$(log_mark)
	c=$(submit sb-alice -A "$G" -w gpu03 --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	wait_state "$c" RUNNING 10 || { say "preemptor $c: $(job_field "$c" Reason)"; return 1; }
	t0=$(submitted "$c") t_c=$(started "$c")
	line=$(wait_log "$off" "preempting JobId=$u .*grace time 0 s \(unallocated: none\)") || return 1
	say "unallocated victim: preemptor submitted $t0, started $t_c; log: ${line#*preempt/budget: }"
	[ $((t_c - t0)) -le 2 ] || { say "the preemptor of an unallocated victim waited"; return 1; }
	wait_eq 10 "the unallocated victim requeued" 1 restarts "$u" || return 1
	rm -f "$mark".* "$mark"-ready.*
	clear_cluster
}

# PreemptNonResumable=requeue (the default): a non-resumable batch job that
# allows requeue is requeued when preempted (same job id, Restarts=1) and
# runs again from its beginning to completion; a --no-requeue job is
# cancelled.  The log line says which and why.
test_preempt_nonresumable_requeued_norequeue_cancelled() {
	clear_cluster
	local runs=$WORK/runs.$$ n q a b mark line
	rm -f "$runs".*
	# gpu01: not resumable, allows requeue (JobRequeue=1); each run
	# appends a line, and the second one finishes
	n=$(submit sb-carol -w gpu01 -G 8 --min-runtime=0 --wrap "echo run >> $runs.n; [ \$(wc -l < $runs.n) -ge 2 ] && exit 0; sleep 120")
	# gpu02: not resumable, --no-requeue
	q=$(submit sb-carol -w gpu02 -G 8 --min-runtime=0 --no-requeue --wrap "echo run >> $runs.q; sleep 120")
	wait_running "$n" "$q"
	wait_for 20 "the first run of $n to start its script" test -s "$runs.n"
	[ "$(job_field "$n" Requeue)" = 1 ] || { say "Requeue of $n is $(job_field "$n" Requeue)"; return 1; }
	[ "$(job_field "$q" Requeue)" = 0 ] || { say "Requeue of $q is $(job_field "$q" Requeue)"; return 1; }
	mark=$(log_mark)
	a=$(submit sb-alice -w gpu01 --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	wait_state "$a" RUNNING 30 || { say "preemptor $a: $(job_field "$a" Reason)"; return 1; }
	line=$(wait_log "$mark" "preempting JobId=$n .*requeued, restarts from its beginning \(not resumable\)") || return 1
	say "log: ${line#*preempt/budget: }"
	wait_eq 10 "$n requeued (its restart count)" 1 restarts "$n" || return 1
	expect_in "$(job_field "$n" SystemComment)" "budget:preempted_by=$a,"
	# it runs again when the preemptor is done, from its beginning (a
	# second run of its script), and completes under the same job id
	wait_state "$n" COMPLETED 60 || { say "$n: $(job_field "$n" JobState) $(job_field "$n" Reason)"; return 1; }
	say "runs of $n: $(wc -l < "$runs.n"); restarts $(restarts "$n"); runs in slurmdbd: $(sacct -n -X -D -P -j "$n" -o State | tr '\n' ' ')"
	[ "$(wc -l < "$runs.n")" = 2 ] || { say "expected two runs of the script"; return 1; }
	expect_in "$(scontrol -o show job "$n")" "Restarts=1"
	# the --no-requeue job: cancelled, never restarted
	mark=$(log_mark)
	b=$(submit sb-alice -w gpu02 --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	wait_state "$b" RUNNING 30 || { say "preemptor $b: $(job_field "$b" Reason)"; return 1; }
	line=$(wait_log "$mark" "preempting JobId=$q .*cancelled \(cannot be requeued.*--no-requeue") || return 1
	say "log: ${line#*preempt/budget: }"
	wait_state "$q" PREEMPTED 20 || { say "$q: $(job_field "$q" JobState)"; return 1; }
	[ "$(restarts "$q")" = 0 ] || { say "--no-requeue job restarted"; return 1; }
	wait_state "$b" COMPLETED 30
	[ "$(job_field "$q" JobState)" = PREEMPTED ] || { say "--no-requeue job came back: $(job_field "$q" JobState)"; return 1; }
	[ "$(wc -l < "$runs.q")" = 1 ] || { say "--no-requeue job ran $(wc -l < "$runs.q") times"; return 1; }
	rm -f "$runs".*
	clear_cluster
}

# Charging: a job placed and preempted within one priority cycle
# (CalcPeriod=5 here) is charged only what it ran, in every segment.
test_preempt_charge_within_one_cycle() {
	clear_cluster
	keep_budget_conf
	local conf t P V G o=() v g first segs charged
	conf=$(cat "$SB_CLUSTER_DIR/budget.conf")
	set_budget_conf "$(grep -v '^CalcPeriod' <<<"$conf")
CalcPeriod=5"
	t=$(date +%s); P=chg$t; V=chg$t-v; G=chg$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	mapfile -t o < <(for n in gpu01 gpu02 gpu03; do submit sb-dave -A "$V" -w "$n" -G 8 --min-runtime=1:00 --resumable --wrap 'sleep 60'; done)
	wait_running "${o[@]}"
	# V's running and committed usage is published (G outranks V only
	# then); the victim is placed and preempted before the next cycle
	wait_recalc_after "$(latest_start "${o[@]}")"
	# The scenario needs the preemption to fall inside one 5 s cycle,
	# which depends on where the cycle falls (on 24.11 every reconfigure
	# restarts slurmctld and its cycle): it is tried up to three times,
	# and the test fails if it never happens.  The charge is checked on
	# the try that did.
	local try ok=0
	for try in 1 2 3; do
		v=$(submit sb-dave -A "$V" -w gpu04 -G 8 --min-runtime=0:01 --resumable --wrap 'sleep 4')
		wait_state "$v" RUNNING 10
		g=$(submit sb-alice -A "$G" -G 8 --min-runtime=0:02 --wrap 'sleep 8')
		if wait_state "$g" RUNNING 10 && [ "$(restarts "$v")" = 1 ]; then
			first=$(sacct -n -P -D -X -j "$v" -o ElapsedRaw | head -n 1)
			say "try $try: victim's first segment ran $first s"
			if [ "$first" -le 4 ]; then ok=1; break; fi
		else
			say "try $try: victim not preempted"
		fi
		scancel "$v" "$g"
		wait_for 60 "job $v to end" job_gone "$v"
		wait_for 60 "job $g to end" job_gone "$g"
	done
	[ "$ok" = 1 ] || { say "no preemption within one 5 s cycle in 3 tries"; return 1; }
	scancel "${o[@]}"
	wait_state "$v" COMPLETED 60
	set_budget_conf "$conf"
	segs=$(sacct -n -P -D -X -j "$v" -o ElapsedRaw | awk '{ s += $1 } END { print s * 8 }')
	charged=$(ledger_charged "$v")
	say "victim $v: segments $(sacct -n -P -D -X -j "$v" -o ElapsedRaw | tr '\n' ' ')x 8 GPUs = $segs GPU-s; ledger charged $charged"
	[ "$segs" -gt 0 ] || { say "slurmdbd has no run of $v"; return 1; }
	[ "$segs" = "$charged" ]
	clear_cluster
}

# Changing PreemptType on `scontrol reconfigure` unloads preempt/budget
# while slurmctld holds its locks: the plugin's thread must not deadlock
# it.  Three switches away and back; slurmctld answers and preempts after.
test_preempt_type_switch_at_reconfigure() {
	local conf=$SB_CLUSTER_DIR/slurm.conf
	cp "$conf" "$conf.keep"
	cleanup_push "mv -f '$conf.keep' '$conf'; scontrol reconfigure"
	for _ in 1 2 3; do
		sed 's#^PreemptType=preempt/budget#PreemptType=preempt/qos#' "$conf.keep" >"$conf"
		timeout 60 scontrol reconfigure || { say "reconfigure to preempt/qos hung or failed"; return 1; }
		# under test, not a wait: a tick of the old thread falls due
		# while preempt/qos is configured (the thread ticks every 1 s)
		sleep 1.5
		cp "$conf.keep" "$conf"
		timeout 60 scontrol reconfigure || { say "reconfigure back hung or failed"; return 1; }
		sleep 1.5	# under test, as above: a tick of the new thread
	done
	mv -f "$conf.keep" "$conf"
	cleanup_drop
	expect_in "$(scontrol show config)" "preempt/budget"
	ctld_alive
	test_preempt_debug_job_starts_fast	# preempts as before
}

# admin_comment JOBID - the job's whole AdminComment in slurmctld (it may
# hold spaces: job_field reads one word; scontrol's multi-line form prints
# it on a line of its own).
admin_comment() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *AdminComment=\(.*[^ ]\) *$/\1/p'; }

# runs_of JOBID - the job's records in slurmdbd, one per run (sacct -D),
# as State|Start|End|AdminComment.
runs_of() { sacct -n -X -D -P -j "$1" -o State,Start,End,AdminComment 2>/dev/null; }
# record_has JOBID N TEXT - the job's Nth record in slurmdbd (sacct -D,
# oldest first) has TEXT in its AdminComment; prints the records otherwise.
record_has() {
	local r
	r=$(runs_of "$1" | sed -n "$2p")
	[[ "${r#*|*|*|}" == *"$3"* ]] && return 0
	runs_of "$1"
	return 1
}

# two_runs JOBID - the job has two records in slurmdbd, a stopped run
# (PREEMPTED or REQUEUED: releases differ) and a COMPLETED one; prints
# their states otherwise.
two_runs() {
	local st
	st=$(sacct -n -X -D -P -j "$1" -o State 2>/dev/null | paste -sd' ')
	case $st in "PREEMPTED COMPLETED"|"REQUEUED COMPLETED") return 0 ;; esac
	echo "$st"
	return 1
}

# Who preempted whom reaches slurmdbd: slurmctld never sends the
# SystemComment, so preempt/budget also ends the victim's AdminComment with
# its note (the contract tag stays in front); the completion record of the
# preempted run carries it (sacct -D), the next run's record inherits it
# with an at= inside the first run, and `sbudget show job -D` says who
# stopped which run, to the job's owner too.  An administrator's new
# AdminComment keeps the contract tag and the note.
test_preempt_note_reaches_slurmdbd() {
	clear_cluster
	local runs=$WORK/runs.$$ v a tag note at r1 r2 s1 e1 s2 out want
	rm -f "$runs"
	# gpu01: unallocated (preemptable at once), requeueable; its second
	# run lasts 6 s, long enough for the AdminComment change below
	v=$(submit sb-carol -w gpu01 -G 8 --min-runtime=0 --wrap "echo run >> $runs; [ \$(wc -l < $runs) -ge 2 ] && { sleep 6; exit 0; }; sleep 120")
	wait_running "$v"
	wait_for 20 "the first run of $v to start its script" test -s "$runs"
	tag=$(admin_comment "$v")
	expect_in "$tag" "budget:min_runtime=0,resumable=no,allocated=no"
	a=$(submit sb-alice -w gpu01 --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	wait_eq 30 "$v requeued (its restart count)" 1 restarts "$v" || return 1
	# slurmctld: the same note in both comments, the tag in front
	note=$(job_field "$v" SystemComment)
	expect_in "$note" "budget:preempted_by=$a,at="
	[ "$(admin_comment "$v")" = "$tag $note" ] || { say "AdminComment '$(admin_comment "$v")', expected '$tag $note'"; return 1; }
	at=${note#*,at=}; at=${at%%,*}
	# an administrator's new AdminComment: the tag checked, the note kept
	scontrol update jobid="$v" AdminComment="$tag checked by admin" || { say "AdminComment change refused"; return 1; }
	want="$tag checked by admin $note"
	[ "$(admin_comment "$v")" = "$want" ] || { say "AdminComment '$(admin_comment "$v")' after the change, expected '$want'"; return 1; }
	wait_state "$v" COMPLETED 90 || return 1
	# slurmdbd: two records; the preempted run's carries the note
	wait_for 20 "two records of $v in slurmdbd, the first PREEMPTED or REQUEUED, the last COMPLETED" \
		two_runs "$v" || return 1
	r1=$(runs_of "$v" | sed -n 1p) r2=$(runs_of "$v" | sed -n 2p)
	say "run 1: $r1"
	say "run 2: $r2"
	[ "${r1#*|*|*|}" = "$tag $note" ] || { say "run 1's AdminComment is not '$tag $note'"; return 1; }
	[ "${r2#*|*|*|}" = "$want" ] || { say "run 2's AdminComment is not '$want'"; return 1; }
	s1=$(date -d "$(cut -d'|' -f2 <<<"$r1")" +%s) e1=$(date -d "$(cut -d'|' -f3 <<<"$r1")" +%s)
	s2=$(date -d "$(cut -d'|' -f2 <<<"$r2")" +%s)
	say "note at $at; run 1 $s1..$e1, run 2 from $s2"
	if [ "$s1" -gt "$at" ] || [ "$at" -gt "$e1" ] || [ "$at" -ge "$s2" ]; then
		say "at= is not inside run 1 only"; return 1
	fi
	# sbudget: who stopped which run, from slurmdbd; as root and as the
	# job's owner (no PrivateData=jobs here: slurmdbd shows the records
	# with their AdminComment to any user)
	want="$v|${r1%%|*}|$a
$v|COMPLETED|"
	out=$("$SBUDGET" -P -n show job -D "$v" format=JobId,State,PreemptedBy) || { say "sbudget: $out"; return 1; }
	[ "$out" = "$want" ] || { say "sbudget show job -D: '$out', expected '$want'"; return 1; }
	out=$(as sb-carol "$SBUDGET" -P -n show job -D "$v" format=JobId,State,PreemptedBy) || { say "sbudget as sb-carol: $out"; return 1; }
	[ "$out" = "$want" ] || { say "sbudget show job -D as sb-carol: '$out', expected '$want'"; return 1; }
	out=$(as sb-carol "$SBUDGET" show job -D "$v")
	say "$out"
	expect_in "$out" "job $a (account "
	rm -f "$runs"
	clear_cluster
}

# The break-even rule: an allocated job that is not resumable is not
# preempted once its run is longer than what its time limit leaves (a
# preemption would throw away more than it could win): a better-placed
# job waits for its end, and `sbudget show job` says why.  The same job
# with a limit that leaves more than its run is preempted and restarts.
test_preempt_break_even_waits_for_time_limit() {
	clear_cluster
	local t P V G v g v2 g2 t_end t_g
	t=$(date +%s); P=be$t; V=be$t-v; G=be$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	# gpu01: 8 GPUs, not resumable, 5 s min runtime, a 1-minute limit;
	# it runs 45 s.  From 30 s into its run, what its limit leaves is no
	# more than its run.
	v=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:05 --time=1 --wrap 'sleep 45')
	wait_state "$v" RUNNING 30 || return 1
	wait_until $(( $(started "$v") + 32 )) "32 s into $v's run"
	g=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:03 --wrap 'sleep 3')
	# the observation: while it runs, the better-placed job waits
	wait_for 10 "$g considered (sbudget names the break-even rule)" \
		sbudget_job_says "$g" "its time limit ends it sooner than the work it would lose" || {
		say "$(as sb-alice "$SBUDGET" show job "$g")"; return 1; }
	say "$(as sb-alice "$SBUDGET" show job "$g" | grep -m1 "time limit ends")"
	wait_state "$v" COMPLETED 60 || { say "$v: $(job_field "$v" JobState)"; return 1; }
	[ "$(restarts "$v")" = 0 ] || { say "$v was preempted (restarts $(restarts "$v"))"; return 1; }
	wait_state "$g" RUNNING 30 || { say "$g: $(job_field "$g" Reason)"; return 1; }
	t_end=$(ended "$v") t_g=$(started "$g")
	say "$v ran $(started "$v")..$t_end (limit 60 s); $g started $t_g"
	[ "$t_g" -ge "$t_end" ] || { say "$g started before $v ended"; return 1; }
	wait_state "$g" COMPLETED 30 || return 1
	# the same with a 10-minute limit: 32 s into its run, 568 s are left,
	# more than its run: preempted, requeued to start over
	v2=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:05 --time=10 --wrap 'sleep 45')
	wait_state "$v2" RUNNING 30 || return 1
	wait_until $(( $(started "$v2") + 32 )) "32 s into $v2's run"
	g2=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:03 --wrap 'sleep 3')
	wait_eq 30 "$v2 preempted and requeued (its restart count)" 1 restarts "$v2" || {
		say "$(as sb-alice "$SBUDGET" show job "$g2")"; return 1; }
	expect_in "$(job_field "$v2" SystemComment)" "budget:preempted_by=$g2,"
	scancel "$v2"
	clear_cluster
}

# PreemptLossWait (off on the test cluster and by default; 20 s here): a
# better-placed job that would throw away a run's work (not resumable)
# first waits, from its EligibleTime, until it has waited as many
# GPU-seconds as the run would lose, at most PreemptLossWait; `sbudget show
# job` says so.  The victim is preempted when the wait is over, not
# before.  A resumable victim keeps its work and is taken at once.
test_preempt_loss_wait() {
	clear_cluster
	local t P V G v g e at r g2
	t=$(date +%s); P=lw$t; V=lw$t-v; G=lw$t-g
	keep_budget_conf
	set_budget_conf "$(grep -v '^PreemptLossWait' "$SB_CLUSTER_DIR/budget.conf.keep"; echo 'PreemptLossWait=0:20')" ||
		return 1
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	# gpu01: 8 GPUs, not resumable, 5 s min runtime, a 10-minute limit
	# (the break-even rule stays out of it)
	v=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:05 --time=10 --wrap 'sleep 300')
	wait_state "$v" RUNNING 30 || return 1
	# 30 s into its run V's usage pays for the preemption's cost (8 x
	# (requeue delay 6 s + lost run up to 2 x 5 s) = 128 GPU-s, plus G's
	# 8 x 3): the wait is the one rule left that holds G back
	wait_until $(( $(started "$v") + 30 )) "30 s into $v's run"
	g=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:03 --wrap 'sleep 3')
	e=$(date -d "$(job_field "$g" EligibleTime)" +%s 2>/dev/null) || e=""
	# EligibleTime: a time between g's submission and now (else the
	# checks below would measure from a wrong start)
	[[ $e =~ ^[0-9]+$ ]] && [ "$e" -ge "$(submitted "$g")" ] && [ "$e" -le "$(date +%s)" ] ||
		{ say "$g's EligibleTime is '$(job_field "$g" EligibleTime)' ($e)"; return 1; }
	wait_for 10 "$g considered (sbudget names PreemptLossWait)" \
		sbudget_job_says "$g" "once it has waited PreemptLossWait" || {
		say "$(as sb-alice "$SBUDGET" show job "$g")"; return 1; }
	say "$(as sb-alice "$SBUDGET" show job "$g" | grep -m1 -o '[^;]*PreemptLossWait[^;]*')"
	# the observation: 15 s after g became eligible (its wait is 20 s:
	# the run it would lose is longer than g's wait at every moment) v
	# still runs, unpreempted (a sleep under test, not a wait)
	wait_until $((e + 15)) "15 s after $g's EligibleTime"
	[ "$(restarts "$v")" = 0 ] && [ "$(job_field "$v" JobState)" = RUNNING ] ||
		{ say "$v preempted before the wait was over: $(job_field "$v" JobState), restarts $(restarts "$v")"; return 1; }
	[ "$(job_field "$g" JobState)" = PENDING ] || { say "$g is $(job_field "$g" JobState)"; return 1; }
	# then it is preempted (requeued to start over), not before e + 20;
	# within Slurm's next scheduling passes after that
	wait_eq 60 "$v preempted and requeued (its restart count)" 1 restarts "$v" || {
		say "$(as sb-alice "$SBUDGET" show job "$g")"; return 1; }
	expect_in "$(job_field "$v" SystemComment)" "budget:preempted_by=$g,"
	at=$(job_field "$v" SystemComment | grep -o 'preempted_by=[0-9]*,at=[0-9]*' | sed 's/.*at=//')
	say "$g eligible at $e, preempted $v at $at ($((at - e)) s later)"
	[ -n "$at" ] && [ "$at" -ge $((e + 20)) ] || { say "preempted before EligibleTime + 20 s"; return 1; }
	wait_state "$g" COMPLETED 30 || return 1
	scancel "$v"
	# a resumable victim loses nothing: taken at once, the wait on
	r=$(submit sb-dave -A "$V" -w gpu02 -G 8 --min-runtime=0:05 --resumable --time=10 --wrap 'sleep 300')
	wait_state "$r" RUNNING 30 || return 1
	wait_until $(( $(started "$r") + 30 )) "30 s into $r's run"
	g2=$(submit sb-alice -A "$G" -w gpu02 -G 8 --min-runtime=0:03 --wrap 'sleep 3')
	wait_eq 10 "$r preempted at once (its restart count)" 1 restarts "$r" || {
		say "$(as sb-alice "$SBUDGET" show job "$g2")"; return 1; }
	scancel "$r"
	clear_cluster
}
