# shellcheck shell=bash
# t-cutover.sh - a running cluster moved from priority/multifactor to
# priority/budget with its history, and back (budget.conf Cutover;
# slurm-budget(8), "Cutover and backout").  Named test_zx_: the rebuild
# charges every run without a contract in the window to its budget (other
# tests' untagged jobs too), so it runs after the tests that read those
# budgets, before the failover tests.

# _cut_before - the slurm.conf lines of the site before the cutover:
# priority/multifactor and no job_submit/budget (no job carries a
# contract), no preemption.
_cut_before() {
	printf '%s\n%s\n%s\n%s' "$MULTIFACTOR_CONF" "JobSubmitPlugins=all_partitions" \
		"PreemptType=preempt/none" "PreemptMode=OFF"
}

# _cut_delivered ACCOUNT - sbudget's DeliveredRaw of the account.
_cut_delivered() {
	sb -P -n show budget account="$1" format=Account,User,DeliveredRaw |
		awk -F'|' '$2 == "" { print $3 }'
}

# History made under multifactor counts after the cutover: an 8-GPU job A
# ran without a contract.  With Cutover= in budget.conf (multifactor
# ignores it) sbudget already counts it as A's (the dry run); priority/budget
# then starts, finds its ledger charged without that Cutover, rebuilds the
# window from slurmdbd with the job charged to A, and A's next job queues
# behind B's.  Backout: multifactor runs again, jobs without contracts run;
# back to priority/budget with the same Cutover, the ledger saved after it
# is loaded: A's history is counted once, and the job that ran under
# multifactor after the cutover is nobody's, until a reconfigure moves the
# Cutover past it: then the window is charged again, with that job as A's.
test_zx_cutover_from_multifactor_and_back() {
	clear_cluster
	local t P A B a b c want cut off got keep=$SB_CLUSTER_DIR/budget.conf.cut-keep
	t=$(date +%s); P=cut$t; A=cut$t-a; B=cut$t-b
	cp "$SB_CLUSTER_DIR/budget.conf" "$keep"
	fresh_budgets "$P" "$A:1:sb-alice" "$B:1:sb-bob"
	cleanup_push "mv -f '$keep' '$SB_CLUSTER_DIR/budget.conf'; '$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"

	with_extra_conf "$(_cut_before)"
	a=$(submit sb-alice -A "$A" -G 8 --wrap 'sleep 12')
	wait_state "$a" COMPLETED 90
	wait_for 30 "slurmdbd to record $a" \
		bash -c "sacct -n -X -P -j $a -o State,ElapsedRaw | grep -q '^COMPLETED|[1-9]'"
	want=$((8 * $(elapsed "$a")))
	[ "$want" -gt 0 ] || { say "slurmdbd has no run time of $a"; return 1; }
	say "under multifactor: $a ran $((want / 8)) s x 8 GPUs, AdminComment '$(sacct -n -X -P -j "$a" -o AdminComment)'"
	got=$(_cut_delivered "$A")
	[ "$got" = 0 ] || { say "before Cutover is set sbudget counts $got for $A, want 0 (no contract)"; return 1; }

	# the dry run, still under multifactor
	sleep 1
	cut=$(date +%Y-%m-%dT%H:%M:%S)
	printf '%s\nCutover=%s\n' "$(cat "$keep")" "$cut" > "$SB_CLUSTER_DIR/budget.conf"
	got=$(_cut_delivered "$A")
	say "dry run with Cutover=$cut: sbudget counts $got for $A (want $want)"
	[ "$got" = "$want" ] || return 1

	# the cutover
	off=$(partner_log_mark)
	with_extra_conf ""
	partner_log_wait "$off" "rebuilt the window from" 60 ||
		{ say "priority/budget did not rebuild its window at the cutover"; return 1; }
	wait_eq 30 "$A's RawUsage after the cutover" "$want" raw_usage "$A" || return 1
	got=$(raw_usage "$B")
	[ "$got" = 0 ] || { say "$B RawUsage $got, want 0"; return 1; }
	got=$(_cut_delivered "$A")
	[ "$got" = "$want" ] || { say "sbudget after the cutover: $got, want $want"; return 1; }
	# who comes first: B, which used nothing
	a=$(submit sb-alice -A "$A" --begin=now+1hour --min-runtime=0:05 -G 8 --wrap 'sleep 1')
	b=$(submit sb-bob -A "$B" --begin=now+1hour --min-runtime=0:05 -G 8 --wrap 'sleep 1')
	wait_recalc_after "$(date +%s)"
	say "priorities after the cutover: $A $(prio "$a"), $B $(prio "$b")"
	[ "$(prio "$b")" -gt "$(prio "$a")" ] || return 1
	scancel "$a" "$b"

	# the backout: multifactor schedules again, jobs need no contract
	with_extra_conf "$(_cut_before)"
	[ "$(scontrol show config | sed -n 's/^PriorityType *= *//p')" = priority/multifactor ] || return 1
	c=$(submit sb-alice -A "$A" -G 8 --wrap 'sleep 3')
	wait_state "$c" COMPLETED 60 || return 1
	wait_for 30 "slurmdbd to record $c" \
		bash -c "sacct -n -X -P -j $c -o State,ElapsedRaw | grep -q '^COMPLETED|[1-9]'"

	# and back, Cutover unchanged: loaded, not rebuilt; A counted once,
	# $c (after the cutover, no contract) charged to nobody
	off=$(partner_log_mark)
	with_extra_conf ""
	partner_log_wait "$off" "loaded the ledger from" 30 >/dev/null ||
		{ say "priority/budget did not load its ledger saved after the cutover"; return 1; }
	wait_recalc_after "$(date +%s)"
	got=$(raw_usage "$A")
	say "back on priority/budget: $A RawUsage $got (want $want)"
	[ "$got" = "$want" ] || return 1
	got=$(_cut_delivered "$A")
	[ "$got" = "$want" ] || { say "sbudget: $got, want $want"; return 1; }

	# a Cutover moved at a reconfigure: the window is charged again, now
	# with $c (before the new cutover, no contract) as A's
	want=$((want + 8 * $(elapsed "$c")))
	sleep 1
	cut=$(date +%Y-%m-%dT%H:%M:%S)
	off=$(partner_log_mark)
	set_budget_conf "$(cat "$keep")
Cutover=$cut"
	partner_log_wait "$off" "Cutover is now $cut" 30 >/dev/null ||
		{ say "no rebuild logged after Cutover changed to $cut"; return 1; }
	wait_eq 30 "$A's RawUsage after Cutover=$cut" "$want" raw_usage "$A" || return 1
	got=$(_cut_delivered "$A")
	[ "$got" = "$want" ] || { say "sbudget with Cutover=$cut: $got, want $want"; return 1; }
}
