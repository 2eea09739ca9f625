# shellcheck shell=bash
# t-sbudget.sh - the sbudget command (issue 6) on the local cluster: the
# tree, figures agreeing with sshare and the plugin's ledger, changing a
# share through slurmdbd (coordinator rights), refusals that change nothing,
# show job (contract, priority parts, what it waits for, its preemptor),
# report with a plot, Prometheus metrics.

SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}

# sb ARGS... - sbudget as root.
sb() { "$SBUDGET" "$@"; }

# shares_of ACCOUNT - RawShares of the account association (sacctmgr).
shares_of() {
	sacctmgr -n -P show assoc where cluster=sbcluster account="$1" format=user,fairshare |
		awk -F'|' '$1 == "" { print $2; exit }'
}

# wait_idle - until no job of the cluster runs or waits (figures are stable
# only then: the plugin charges running jobs every second), and the plugin
# has charged the last ends.
wait_idle() {
	wait_eq 60 "an empty queue" "" eval "squeue -h -o '%i %T' | tr '\n' ' '" || return 1
	wait_recalc_after "$(date +%s)"
}

# ledger_sums - "assoc_id allocated unallocated" per association from the
# plugin's saved ledger (TRES-seconds the association itself was charged).
ledger_sums() {
	python3 - "$SB_CLUSTER_DIR/state/budget_ledger.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for a in doc["associations"]:
    print(a["id"], round(sum(b[1] for b in a["buckets"])),
          round(sum(b[2] for b in a["buckets"])))
PY
}

test_sbudget_help_version() {
	local out
	out=$(sb --help)
	expect_in "$out" "modify budget where account=A"
	out=$(sb --version)
	expect_in "$out" "sbudget "
	expect_in "$out" "built for Slurm $(sinfo -V | awk '{print $2}')"
}

# The tree: RawShares and normalised shares as sshare shows them; % of the
# cluster is the product along the path (physics 3 of 3:1:0, phys-a 2 of 2:1).
test_sbudget_show_budget_tree() {
	local out acct user raw ppct s_raw s_norm
	out=$(sb -P -n show budget format=Account,User,RawShares,ParentPct,ClusterPct)
	say "$out"
	expect_in "$out" "physics||3|75.00|75.00"
	expect_in "$out" "phys-a||2|66.67|50.00"
	expect_in "$out" "phys-b|sb-dave|1|50.00|12.50"
	expect_in "$out" "nobudget||0|0.00|0.00"
	# every association agrees with sshare's RawShares and NormShares
	while IFS='|' read -r acct user raw ppct _; do
		IFS='|' read -r s_raw s_norm < <(sshare -n -P -A "$acct" ${user:+-u "$user"} \
			-o Account,User,RawShares,NormShares | awk -F'|' -v u="$user" \
			'{ gsub(/ /, "", $1) } $2 == u { print $3 "|" $4; exit }')
		[ "$raw" = "$s_raw" ] || { say "$acct/$user: RawShares $raw, sshare $s_raw"; return 1; }
		awk -v a="$ppct" -v b="$s_norm" 'BEGIN { exit !(a / 100 - b < 0.00006 && b - a / 100 < 0.00006) }' ||
			{ say "$acct/$user: ParentPct $ppct, sshare NormShares $s_norm"; return 1; }
	done <<<"$out"
	# where account= selects; the table style indents by depth
	out=$(sb show budget where account=phys-a format=Account,User)
	grep -Eq '^  phys-a +sb-alice *$' <<<"$out" || { say "no indented phys-a/sb-alice row in: $out"; return 1; }
	[[ "$out" != *bio* ]] || { say "account filter leaked: $out"; return 1; }
	out=$(sb --json show budget account=bio format=Account,RawShares,ClusterPct)
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])["budgets"]; assert d[0]=={"Account":"bio","RawShares":1,"ClusterPct":25.0}, d' "$out"
}

# Figures agree with sshare and with the plugin's ledger at the same moment:
# RawUsage is sshare's; DeliveredRaw and UnallocatedRaw are computed by
# sbudget from slurmdbd's job records; the ledger is the plugin's own file.
test_sbudget_figures_agree_with_sshare_and_ledger() {
	local ids=() id out acct user rawu deliv unal aid s_raw l_alloc l_unal n=0
	ids+=("$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 4')")
	ids+=("$(submit sb-dave --min-runtime=0:05 -N 2 --gpus-per-node=4 --wrap 'sleep 3')")
	ids+=("$(submit sb-bob --min-runtime=0:05 -G 2 --wrap 'sleep 5')")
	ids+=("$(submit sb-carol --min-runtime=0 -G 6 --wrap 'sleep 4')")
	for id in "${ids[@]}"; do wait_state "$id" COMPLETED 120; done
	wait_idle
	out=$(sb -P -n show budget format=Account,User,RawUsage,DeliveredRaw,UnallocatedRaw,AssocId)
	local ledger sshare_out
	ledger=$(ledger_sums)
	sshare_out=$(sshare -a -n -P -o Account,User,RawUsage)
	while IFS='|' read -r acct user rawu deliv unal aid; do
		s_raw=$(awk -F'|' -v a="$acct" -v u="$user" '{ gsub(/ /, "", $1) } $1 == a && $2 == u { print $3; exit }' <<<"$sshare_out")
		[ "$rawu" = "$s_raw" ] || { say "$acct/$user: sbudget RawUsage $rawu, sshare $s_raw"; return 1; }
		# the slurmdbd-derived figure: within 1 GPU-second per job of
		# the ledger (sacct and slurmctld round start/end alike, but a
		# job's charged end may differ by a second from its record)
		awk -v a="$deliv" -v b="$rawu" 'BEGIN { d = a - b; exit !(d <= 8 && d >= -8) }' ||
			{ say "$acct/$user: DeliveredRaw $deliv, RawUsage $rawu"; return 1; }
		[ -n "$user" ] || continue
		read -r l_alloc l_unal < <(awk -v i="$aid" '$1 == i { print $2, $3 }' <<<"$ledger") || true
		l_alloc=${l_alloc:-0} l_unal=${l_unal:-0}
		[ "$rawu" = "$l_alloc" ] || { say "$acct/$user: RawUsage $rawu, ledger $l_alloc"; return 1; }
		awk -v a="$unal" -v b="$l_unal" 'BEGIN { d = a - b; exit !(d <= 8 && d >= -8) }' ||
			{ say "$acct/$user: UnallocatedRaw $unal, ledger unallocated $l_unal"; return 1; }
		n=$((n + 1))
	done <<<"$out"
	say "compared $n user associations; phys-a/sb-alice: $(grep '^phys-a|sb-alice' <<<"$out")"
	[ "$n" -ge 5 ]
	# the jobs just run are in it: alice's 8 GPUs x ~4 s at least
	[ "$(awk -F'|' '$1 == "phys-a" && $2 == "sb-alice" { print $4 }' <<<"$out")" -ge 24 ]
	[ "$(awk -F'|' '$1 == "nobudget" && $2 == "sb-carol" { print $5 }' <<<"$out")" -ge 18 ]
}

# Through slurmdbd: the coordinator of physics changes phys-b, is refused on
# bio with slurmdbd's reason; a plain user is refused; nothing else changes.
test_sbudget_modify_coordinator_rights() {
	local out before_b before_bio before_a
	before_b=$(shares_of phys-b); before_bio=$(shares_of bio); before_a=$(shares_of phys-a)
	trap 'sacctmgr -i modify account where name=phys-b cluster=sbcluster set fairshare='"$before_b"' >/dev/null' EXIT
	out=$(as sb-dave "$SBUDGET" -i modify budget where account=phys-b set share=7)
	say "$out"
	expect_in "$out" "A = phys-b"
	[ "$(shares_of phys-b)" = 7 ] || { say "phys-b shares $(shares_of phys-b), expected 7"; return 1; }
	out=$(sb -P -n show budget account=phys-b format=Account,User,RawShares | head -n 1)
	expect_in "$out" "phys-b||7"
	# the coordinator of physics may not touch bio
	expect_fail out as sb-dave "$SBUDGET" -i modify budget where account=bio set share=9
	say "$out"
	expect_in "$out" "doesn't have privilege"
	expect_in "$out" "refused by slurmdbd: Access/permission denied"
	[ "$(shares_of bio)" = "$before_bio" ] || { say "bio changed to $(shares_of bio)"; return 1; }
	# a plain user may not change even their own account's budget
	expect_fail out as sb-alice "$SBUDGET" -i modify budget where account=phys-a set share=9
	expect_in "$out" "Access/permission denied"
	[ "$(shares_of phys-a)" = "$before_a" ]
	# without -i it asks; anything but y discards
	out=$(echo n | sb modify budget where account=phys-b set share=2) && { say "discard exited 0"; return 1; }
	expect_in "$out" "Changes Discarded"
	[ "$(shares_of phys-b)" = 7 ] || { say "discarded change applied: $(shares_of phys-b)"; return 1; }
	out=$(echo y | sb modify budget where account=phys-b set share=2)
	[ "$(shares_of phys-b)" = 2 ] || { say "confirmed change not applied: $(shares_of phys-b)"; return 1; }
	# restore now (the trap is the safety net)
	sb -i -Q modify budget where account=phys-b set share="$before_b"
	[ "$(shares_of phys-b)" = "$before_b" ]
}

# Every bad argument: a clear message, a non-zero exit, nothing changed.
test_sbudget_bad_arguments_change_nothing() {
	local out before=() after=() a
	for a in physics phys-a phys-b bio nobudget; do before+=("$(shares_of "$a")"); done
	local -a cases=(
		"show qos|unknown entity 'qos'"
		"frob budget|unknown command 'frob'"
		"show budget format=Colour|unknown field 'Colour'"
		"--frobnicate show budget|unknown option '--frobnicate'"
		"show budget account=nosuch|unknown account 'nosuch'"
		"show budget account=bio user=sb-alice|no association of user 'sb-alice'"
		"modify budget where account=nosuch set share=3|unknown account 'nosuch'"
		"modify budget where account=root set share=3|account 'root': the root of the tree"
		"modify budget where account=bio set share=abc|share 'abc': not a whole number"
		"modify budget where account=bio set share=-2|share '-2': negative"
		"modify budget where account=bio set share=99999999999|too large"
		"modify budget where account=bio set colour=3|only share=N can be set"
		"modify budget where account=bio|needs 'set share=N'"
		"show job 999999|job 999999: no such job"
		"show job abc|job id 'abc': not a number"
		"show job 0|job ids start at 1"
		"show budget window=forever|window 'forever': not a duration"
		"report window=0|must be longer than 0"
		"report step=1:00:00 window=0:30:00|step is longer than the window"
		"report plot=out.png|must end in .svg"
	)
	local c args want
	for c in "${cases[@]}"; do
		args=${c%%|*} want=${c#*|}
		# shellcheck disable=SC2086
		expect_fail out sb -i $args
		expect_in "$out" "$want"
		expect_in "$out" "sbudget: error:"
	done
	for a in physics phys-a phys-b bio nobudget; do after+=("$(shares_of "$a")"); done
	[ "${before[*]}" = "${after[*]}" ] || { say "shares changed: ${before[*]} -> ${after[*]}"; return 1; }
}

# show job: the contract, the protected time left, the priority in parts
# (which add up, and agree with sprio for a pending job), what it waits for.
test_sbudget_show_job_running_and_pending() {
	local run pend out prio tier level team resumed sp sp_prio sp_tier sp_fs sp_site
	run=$(submit sb-alice --min-runtime=2:00 --resumable -N 4 --gpus-per-node=8 --wrap 'sleep 60')
	wait_state "$run" RUNNING 30
	pend=$(submit sb-bob --min-runtime=0:30 -G 8 --nice=10 --wrap 'sleep 1')
	# the scheduler has tried it (what it waits for), with a priority
	# from this cycle
	wait_eq 10 "job $pend to wait for Resources" Resources job_field "$pend" Reason
	wait_recalc_after "$(date +%s)"
	out=$(sb show job "$run")
	say "$out"
	expect_in "$out" "MinRuntime: 0:02:00"
	expect_in "$out" "Resumable: yes"
	expect_in "$out" "Allocated: yes"
	expect_in "$out" "GPUs: 32"
	local left
	left=$(sb -P -n show job "$run" format=ProtectedLeft)
	[[ "$left" =~ ^0:0[01]:[0-5][0-9]$ ]] || { say "ProtectedLeft '$left'"; scancel "$run" "$pend"; return 1; }
	out=$(sb show job "$pend")
	say "$out"
	expect_in "$out" "State: PENDING"
	expect_in "$out" "WaitsFor: Resources"
	expect_in "$out" "needs 8 gres/gpu, 0 idle, 0 preemptable by it now"
	# alice's job is protected for 2 minutes: if bob's job outranks it, the
	# end of that protected slice is what it waits for
	if [ "$(prio "$pend")" -gt "$(job_field "$run" Priority)" ]; then
		expect_in "$out" "next protected slice of a lower-priority job ends"
		expect_in "$out" "(job $run)"
	fi
	IFS='|' read -r prio tier level team resumed < <(sb -P -n show job "$pend" \
		format=Priority,PrioTier,PrioLevel,PrioInTeam,PrioResumed)
	sp=$(sprio -h -j "$pend" -o '%Y %B %F %S')
	scancel "$run" "$pend"
	say "priority $prio = $tier + $level + $team + $resumed; sprio: $sp"
	[[ "$tier" == allocated* ]]
	[ "${team%% *}" = 502 ]	# 512 - nice 10
	[ $(( (1 << 31) + (${level%% *} << 11) + (${team%% *} << 1) + ${resumed%% *} )) -eq "$prio" ]
	# sprio: PRIORITY, ASSOC (tier), FAIRSHARE (level << 11), SITE (in-team << 1)
	read -r sp_prio sp_tier sp_fs sp_site <<<"$sp"
	[ "$sp_prio" -eq "$prio" ] && [ "$sp_fs" -eq $(( ${level%% *} << 11 )) ] &&
		[ "$sp_site" -eq $(( ${team%% *} << 1 )) ] && [ "$sp_tier" -eq $((1 << 31)) ]
}

# A requeued job names its preemptor and why.
test_sbudget_show_job_names_preemptor() {
	local victim pre out by res i
	[ -f "$SB_REPO/plugins/preempt_budget/preempt_budget.c" ] || { say "no preempt/budget"; return 1; }
	victim=$(submit sb-carol --min-runtime=0 --resumable -N 4 --gpus-per-node=8 --wrap 'sleep 120')
	wait_state "$victim" RUNNING 30
	pre=$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	for ((i = 0; i < 120; i++)); do
		# requeued, and re-prioritised by priority/budget (resumed bit)
		IFS='|' read -r by res < <(sb -P -n show job "$victim" format=PreemptedBy,PrioResumed)
		[ -n "$by" ] && [ "$(job_field "$victim" Restarts)" -ge 1 ] &&
			[[ "$res" == 1* ]] && break
		sleep 0.5
	done
	out=$(sb show job "$victim")
	say "$out"
	scancel "$victim" "$pre" || true
	[ "$by" = "$pre" ] || { say "PreemptedBy '$by', expected $pre"; return 1; }
	expect_in "$out" "Restarts: 1"
	expect_in "$out" "PrioResumed: 1 (requeued)"
	expect_in "$out" "PreemptReason: job $pre (account phys-a) had priority"
	expect_in "$out" "unallocated jobs are preemptable at any time"
	# the same in JSON
	out=$(sb --json show job "$victim" format=JobId,PreemptedBy)
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])["jobs"][0]; assert d["PreemptedBy"]==int(sys.argv[2]), d' "$out" "$pre"
}

# report: use per step against quota; its steps add up to show budget's
# figures for the same window; the plot is an SVG with one line per budget.
test_sbudget_report_and_plot() {
	local id out svg total shown
	id=$(submit sb-bob --min-runtime=0:05 -G 4 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	wait_idle
	svg=$SB_CLUSTER_DIR/work/report-$$.svg
	out=$(sb -P report window=1:00:00 step=0:10:00 plot="$svg")
	say "$(head -n 4 <<<"$out")"
	expect_in "$out" "Account|User|Start|Delivered|Quota|Owed|Demand|Unallocated|UsePct"
	[ "$(grep -c '^bio|' <<<"$out")" -eq 6 ] || { say "expected 6 steps of bio"; return 1; }
	total=$(awk -F'|' '$1 == "bio" { s += $4 } END { printf "%.3f", s }' <<<"$out")
	shown=$(sb -P -n show budget account=bio window=1:00:00 format=Account,User,Delivered | awk -F'|' '$2 == "" { print $3 }')
	say "bio delivered: report steps sum $total, show budget $shown"
	awk -v a="$total" -v b="$shown" 'BEGIN { d = a - b; exit !(d <= 0.006 && d >= -0.006) }'
	awk -v a="$total" 'BEGIN { exit !(a > 0) }'
	# quota per step: 25% of 32 GPUs for 10 minutes = 1.333 GPU-hours
	expect_in "$(grep '^bio|' <<<"$out" | head -n 1)" "|1.333|"
	head -c 5 "$svg" | grep -q '<?xml'
	grep -q '</svg>' "$svg"
	[ "$(grep -c '<polyline' "$svg")" -ge 3 ]	# physics, bio, nobudget, ...
	grep -q 'bio used' "$svg"
	rm -f "$svg"
}

# metrics: valid Prometheus text; the same figures as show budget and sshare.
test_sbudget_metrics() {
	local out bad raw s_raw
	out=$(sb metrics)
	bad=$(grep -v '^#' <<<"$out" | grep -Ev '^[a-z_]+\{([a-z_]+="[^"]*",?)+\} -?[0-9.e+-]+$' || true)
	[ -z "$bad" ] || { say "malformed lines: $bad"; return 1; }
	expect_in "$out" '# TYPE sbudget_owed_gpu_hours gauge'
	expect_in "$out" 'sbudget_share_of_cluster{cluster="sbcluster",account="phys-a",user=""} 0.5'
	expect_in "$out" 'sbudget_capacity_gpus{cluster="sbcluster"} 32'
	raw=$(awk '/^sbudget_usage_charged_gpu_seconds\{cluster="sbcluster",account="physics",user=""\}/ { print $2 }' <<<"$out")
	s_raw=$(raw_usage physics)
	say "physics charged: metrics $raw, sshare $s_raw"
	[ -n "$raw" ] && [ "$raw" = "$s_raw" ] || return 1
	# the dashboard queries only metrics that exist
	local m
	while read -r m; do
		expect_in "$out" "$m"
	done < <(grep -o 'sbudget_[a-z_]*' "$SB_REPO/contrib/grafana/sbudget-dashboard.json" | sort -u)
}
