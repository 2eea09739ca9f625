# shellcheck shell=bash
# t-hyst.sh - hysteresis: two equal teams at equilibrium
# on a full cluster do not thrash.

# preemptions_since OFFSET - "EPOCH JOBID" for each preemption preempt/budget
# logged after OFFSET (its "preempting JobId=N" line; the log's time stamp
# to the second).
preemptions_since() {
	log_since "$1" | sed -nE 's/^\[([0-9-]+T[0-9:]+)(\.[0-9]+)?\].*preempt\/budget: preempting JobId=([0-9]+) .*/\1 \3/p' |
		while read -r ts id; do printf '%s %s\n' "$(date -d "$ts" +%s)" "$id"; done
}

# Two sibling budgets with equal shares, four 8-GPU jobs each (min runtime
# 10 s, resumable) on the 4 x 8-GPU cluster, PreemptIntervalFactor=3: the
# teams take turns (the later one preempts the earlier one's jobs), but no
# job is preempted twice within 3 x 10 s, so in the 75 s watched no job is
# preempted more than 1 + 75 / 30 = 3 times.  Without the interval a
# requeued job (eligible again after 6 s, protected 10 s) could be taken
# back 16 s after its preemption.
test_hyst_equal_teams_no_thrash() {
	clear_cluster
	local t P A B a=() b=() mark t0 w=75 f=3 mr=10 conf
	local lines n id prev at gap bad=0 max=0
	t=$(date +%s); P=hys$t; A=hys$t-a; B=hys$t-b
	keep_budget_conf
	conf=$(grep -v -i '^[[:space:]]*PreemptIntervalFactor' "$SB_CLUSTER_DIR/budget.conf.keep")
	set_budget_conf "$conf
PreemptIntervalFactor=$f"
	fresh_budgets "$P" "$A:1:sb-alice" "$B:1:sb-bob"
	mapfile -t a < <(for _ in 1 2 3 4; do submit sb-alice -A "$A" -G 8 --min-runtime=0:$mr --resumable --wrap 'sleep 300'; done)
	wait_running "${a[@]}"
	mark=$(log_mark)
	t0=$(date +%s)
	mapfile -t b < <(for _ in 1 2 3 4; do submit sb-bob -A "$B" -G 8 --min-runtime=0:$mr --resumable --wrap 'sleep 300'; done)
	# the rotation begins: B (no usage) takes A's jobs once past their
	# min runtime and once the reclaim rule and its cost margin hold
	wait_log "$mark" "preempt/budget: preempting JobId=(${a[0]}|${a[1]}|${a[2]}|${a[3]}) " 40 >/dev/null
	# The observation (under test, not a wait): w seconds of equilibrium.
	wait_until $((t0 + w)) "the end of the ${w} s watched"
	lines=$(preemptions_since "$mark")
	n=$(grep -c . <<<"$lines" || true)
	say "preemptions in ${w} s: $n; per job: $(awk '{ c[$2]++ } END { for (j in c) printf "%s:%d ", j, c[j] }' <<<"$lines")"
	say "restarts: A $(for id in "${a[@]}"; do printf '%s ' "$(restarts "$id")"; done)B $(for id in "${b[@]}"; do printf '%s ' "$(restarts "$id")"; done)"
	[ "$n" -ge 1 ] || { say "no preemption: the teams did not take turns"; return 1; }
	# each job: consecutive preemptions at least f x mr apart (time
	# stamps to the second: one second of slack), at most 1 + w / (f x mr)
	for id in "${a[@]}" "${b[@]}"; do
		prev=
		while read -r at; do
			if [ -n "$prev" ]; then
				gap=$((at - prev))
				if [ "$gap" -lt $((f * mr - 1)) ]; then
					say "job $id preempted again after ${gap} s (< ${f} x ${mr} s)"
					bad=1
				fi
			fi
			prev=$at
		done < <(awk -v j="$id" '$2 == j { print $1 }' <<<"$lines")
		n=$(awk -v j="$id" '$2 == j' <<<"$lines" | grep -c . || true)
		[ "$n" -gt "$max" ] && max=$n
	done
	say "most preemptions of one job: $max (bound $((1 + w / (f * mr))))"
	[ "$bad" = 0 ] || return 1
	[ "$max" -le $((1 + w / (f * mr))) ] || return 1
	clear_cluster
}
