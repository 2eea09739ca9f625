# shellcheck shell=bash
# t-sbudget-report.sh - sbudget's figures over a span on the local cluster
# (the rest of sbudget's tests are in t-sbudget.sh): report with a plot,
# show budget and report on the same span, a job that never started as
# demand, a deleted association's runs staying with its account,
# Prometheus metrics, the all-teams figures, lost GPU time.

# report: use per step against quota; its steps add up to show budget's
# figures for the same window; the plot is an SVG with one panel per budget.
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
	# one panel per budget (physics, bio, nobudget, ...), each named, with
	# UTC time ticks (an hour in 10-minute steps: HH:MM, and the date)
	[ "$(grep -c '<path fill="#' "$svg")" -ge 3 ]
	grep -q 'font-weight="bold">bio</text>' "$svg"
	grep -Eq '>[0-2][0-9]:[0-5][0-9]</text>' "$svg"
	grep -Eq '>20[0-9][0-9]-[01][0-9]-[0-3][0-9]</text>' "$svg"
	! grep -q 'Unix time' "$svg"
	rm -f "$svg"
}

# The same span [from, to) given to show budget and report (start=/end=,
# window= with end=): report's steps of whole hours add up to show budget's
# raw figures, and the two ways of naming the span agree exactly.
test_sbudget_same_span_same_figures() {
	local id to from f=Account,User,OwedRaw,DeliveredRaw,CappedRaw,UnallocatedRaw
	local shown rep other sums
	id=$(submit sb-bob --min-runtime=0:05 -G 4 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	# slurmdbd learns of the run a moment after slurmctld: until its
	# record is whole, the two commands could see different records
	wait_recorded "$id"
	to=$(date +%s) from=$((to - 7200))
	shown=$(sb -P -n show budget start="uts$from" end="uts$to" format="$f")
	other=$(sb -P -n show budget end="uts$to" window=2:00:00 format="$f")
	[ -n "$shown" ] || { say "show budget start= end= printed nothing"; return 1; }
	[ "$shown" = "$other" ] || { say "start/end: $shown"; say "end/window: $other"; return 1; }
	rep=$(sb -P -n report from="uts$from" to="uts$to" step=1:00:00 format="$f,Start")
	[ "$(grep -c '^bio||' <<<"$rep")" -eq 2 ] || { say "expected 2 steps of bio: $rep"; return 1; }
	# per account association: the two steps' sums against show budget
	# (each row rounded to a GPU-second: at most 1 apart)
	sums=$(awk -F'|' '$2 == "" { o[$1] += $3; d[$1] += $4; c[$1] += $5; u[$1] += $6 }
		END { for (a in o) print a "|" o[a] "|" d[a] "|" c[a] "|" u[a] }' <<<"$rep" | sort)
	say "report sums: $(tr '\n' ' ' <<<"$sums")"
	say "show budget: $(awk -F'|' '$2 == ""' <<<"$shown" | tr '\n' ' ')"
	join -t'|' <(echo "$sums") <(awk -F'|' '$2 == "" { print $1 "|" $3 "|" $4 "|" $5 "|" $6 }' <<<"$shown" | sort) |
		awk -F'|' '{ n++; for (k = 2; k <= 5; k++) { d = $k - $(k + 4); if (d > 1 || d < -1) { print "differs: " $0; bad = 1 } } }
			END { if (n < 3) { print "only " n " accounts compared"; bad = 1 }; exit bad }' >&2
	# bio's job is in both
	[ "$(awk -F'|' '$1 == "bio" && $2 == "" { print $4 }' <<<"$shown")" -ge 12 ]
}

# A job that never started is demand (slurmdbd records its start as NO_VAL,
# which once made sbudget drop the record): bob's job waits behind alice's
# protected one and is cancelled; its GPUs x seconds pending are bio's
# demand, nothing of it delivered.
test_sbudget_never_started_job_is_demand() {
	local run pend t0 to el out dem del
	run=$(submit sb-alice --min-runtime=1:00 -N 4 --gpus-per-node=8 --wrap 'sleep 60')
	cleanup_push "scancel $run 2>/dev/null"
	wait_state "$run" RUNNING 30
	t0=$(date +%s)
	pend=$(submit sb-bob --min-runtime=0:30 -G 4 --wrap 'sleep 1')
	# Pending 5 s from its own eligibility (slurmctld's record: where its
	# demand starts), not from t0: on a loaded machine sbatch may take
	# seconds, and the job be eligible a second or more after t0.  The
	# check below asks 4 GPUs x 4 s: a second for the rounding of its end.
	wait_for 20 "job $pend to be eligible" eval "job_field $pend EligibleTime | grep -q '^20'"
	el=$(date -d "$(job_field "$pend" EligibleTime)" +%s)
	wait_until $((el + 5)) "the job pending 5 s past its eligibility"
	[ "$(squeue -h -j "$pend" -o %T)" = PENDING ] ||
		{ say "job $pend is $(squeue -h -j "$pend" -o %T), not pending behind $run"; return 1; }
	scancel "$pend"
	wait_state "$pend" CANCELLED 30
	wait_recorded "$pend"
	to=$(date +%s)
	out=$(sb -P -n show budget account=bio start="uts$t0" end="uts$to" format=Account,User,DemandRaw,DeliveredRaw,OwedRaw)
	say "$out (bob's job: 4 GPUs pending from $el, cancelled after $((el + 5)); span $t0..$to)"
	IFS='|' read -r _ _ dem del _ < <(grep '^bio||' <<<"$out")
	[ "$dem" -ge 16 ] && [ "$del" -eq 0 ]
}

# The runs of a deleted association stay with its account (as
# priority/budget keeps their usage): dave's run in phys-a is phys-a's
# after his association there is deleted.
test_sbudget_deleted_association_stays_with_account() {
	local id t0 to before after f=Account,User,DeliveredRaw
	sacctmgr -i add user sb-dave account=phys-a cluster=sbcluster >/dev/null
	cleanup_push 'sacctmgr -i delete user sb-dave account=phys-a cluster=sbcluster >/dev/null 2>&1 || true'
	# slurmctld learns of it from slurmdbd (else sbatch -A phys-a fails)
	wait_for 30 "the association phys-a/sb-dave in sshare" assoc_listed phys-a sb-dave
	t0=$(date +%s)
	id=$(submit sb-dave -A phys-a --min-runtime=0:03 -G 4 --wrap 'sleep 3')
	wait_state "$id" COMPLETED 60
	wait_recorded "$id"
	to=$(date +%s)
	before=$(sb -P -n show budget account=phys-a start="uts$t0" end="uts$to" format=$f | grep '^phys-a||')
	sacctmgr -i delete user sb-dave account=phys-a cluster=sbcluster >/dev/null
	after=$(sb -P -n show budget account=phys-a start="uts$t0" end="uts$to" format=$f | grep '^phys-a||')
	say "phys-a with dave's association: $before; after deleting it: $after"
	[ "${before##*|}" -ge 12 ] && [ "$before" = "$after" ]
}

# metrics: valid Prometheus text; the same figures as show budget and sshare.
test_sbudget_metrics() {
	local out bad raw s_raw s_after
	# sshare's RawUsage read before and after: a job still running
	# charges every second, so metrics' figure lies between the two, give
	# or take 1: sshare prints the integer part of a long double, which
	# Slurm re-sums from the users' figures at every association update
	# (priority/budget's set_account_leaf_usage), and a budget charged
	# through a QOS UsageFactor holds fractions
	s_raw=$(raw_usage physics)
	out=$(sb metrics)
	s_after=$(raw_usage physics)
	bad=$(grep -v '^#' <<<"$out" | grep -Ev '^[a-z_]+\{([a-z_]+="[^"]*",?)+\} -?[0-9.e+-]+$' || true)
	[ -z "$bad" ] || { say "malformed lines: $bad"; return 1; }
	expect_in "$out" '# TYPE sbudget_owed_gpu_hours gauge'
	expect_in "$out" 'sbudget_share_of_cluster{cluster="sbcluster",account="phys-a",user=""} 0.5'
	expect_in "$out" 'sbudget_capacity_gpus{cluster="sbcluster"} 32'
	expect_in "$out" '# TYPE sbudget_capped_gpu_hours gauge'
	# the ratio is capped / owed: 1 for a budget owed nothing
	expect_in "$out" 'sbudget_delivered_owed_ratio{cluster="sbcluster",account="nobudget",user=""} 1'
	raw=$(awk '/^sbudget_usage_charged_gpu_seconds\{cluster="sbcluster",account="physics",user=""\}/ { print $2 }' <<<"$out")
	say "physics charged: metrics $raw, sshare $s_raw before and $s_after after"
	[ -n "$raw" ] && [ "$raw" -ge $((s_raw - 1)) ] && [ "$raw" -le $((s_after + 1)) ] || return 1
	# the dashboard queries only metrics that exist
	local m n=0
	while read -r m; do
		expect_in "$out" "$m"
		n=$((n + 1))
	done < <(grep -o 'sbudget_[a-z_]*' "$SB_REPO/contrib/grafana/sbudget-dashboard.json" | sort -u)
	[ "$n" -gt 0 ] || { say "no sbudget_ metric found in the dashboard"; return 1; }
}

# all_teams_check ROWS JSON - ROWS: `show budget -P -n` of
# Account|User|AssocId|OwedRaw|CappedRaw|OwedWindowRaw|CappedWindowRaw; JSON:
# `show budget --json` of the same span.  The all-teams figures (hourly and
# over the window) are the sums over the teams of the rows' own figures,
# each team capped on its own.  The teams are the leaves of the tree; of
# those only user associations can hold jobs (an account association that
# is a leaf is owed nothing), so the user rows' sums are the leaves' sums,
# and the account rows (their subtrees' sums) must not be in them.  The
# worst team is a user row of the lowest capped/owed among those owed.
all_teams_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
rows = [l.split("|") for l in sys.argv[1].splitlines() if l]
doc = json.loads(sys.argv[2])
bad = []
for key, o, c, x in (("all_teams", 3, 4, ""), ("all_teams_window", 5, 6, "Window")):
    a = doc[key]
    users = [r for r in rows if r[1]]
    owed = sum(int(r[o]) for r in users)
    capped = sum(int(r[c]) for r in users)
    owed_users = [r for r in users if int(r[o]) > 0]
    # each row rounded to a TRES-second: at most half a second apart each
    tol = len(users) / 2 + 1
    if owed <= 0:
        bad.append(f"{key}: no team owed anything ({len(users)} user rows)")
        continue
    if abs(a[f"Owed{x}Raw"] - owed) > tol or abs(a[f"Capped{x}Raw"] - capped) > tol:
        bad.append(f"{key}: Owed{x}Raw {a[f'Owed{x}Raw']} Capped{x}Raw "
                   f"{a[f'Capped{x}Raw']}, rows sum {owed} and {capped}")
    if abs(a[f"DelivOwed{x}"] - capped / owed) > 0.0015:
        bad.append(f"{key}: DelivOwed{x} {a[f'DelivOwed{x}']}, rows {capped / owed:.4f}")
    if a["TeamsOwed"] != len(owed_users):
        bad.append(f"{key}: TeamsOwed {a['TeamsOwed']}, rows {len(owed_users)}")
    accts = sum(int(r[o]) for r in rows if not r[1])
    if accts > 0 and abs(a[f"Owed{x}Raw"] - accts) <= tol:
        bad.append(f"{key}: equals the account rows' sum {accts}")
    worst = min(int(r[c]) / int(r[o]) for r in owed_users)
    named = [r for r in owed_users if int(r[2]) == a["WorstAssocId"]]
    if not named or abs(a[f"WorstDelivOwed{x}"] - worst) > 0.0015 or \
            named[0][0] != a["WorstAccount"] or named[0][1] != a["WorstUser"]:
        bad.append(f"{key}: worst {a['WorstAccount']}/{a['WorstUser']} "
                   f"({a['WorstAssocId']}) {a[f'WorstDelivOwed{x}']}, rows' lowest {worst:.4f}")
    print(f"{key}: {a[f'Capped{x}Raw']} of {a[f'Owed{x}Raw']} (rows {capped} of {owed}), "
          f"{a['TeamsOwed']} teams owed, worst {a['WorstAccount']}/{a['WorstUser']} "
          f"{a[f'WorstDelivOwed{x}']}", file=sys.stderr)
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}

# The all-teams figures (sb_fig_all_teams) of show budget, report and
# metrics: bob's 4 GPUs wait behind alice's protected 32, so bio is owed
# more than it gets and is the worst team.  show budget's --json figures
# equal the sums of its own rows over the teams, hour by hour and over the
# window; the table style says the same after the table, -n and -P print
# rows only; report's figures of an hour in one step are show budget's;
# metrics' gauges equal the sums of its per-association gauges.
test_sbudget_all_teams() {
	local run pend t0 to f rows json txt rep out line m
	wait_idle
	t0=$(date +%s)
	run=$(submit sb-alice --min-runtime=1:00 -N 4 --gpus-per-node=8 --wrap 'sleep 12')
	cleanup_push "scancel $run 2>/dev/null"
	wait_state "$run" RUNNING 30
	pend=$(submit sb-bob --min-runtime=0:05 -G 4 --wrap 'sleep 3')
	wait_state "$pend" COMPLETED 90
	wait_recorded "$run"
	wait_recorded "$pend"
	to=$(date +%s)
	f=Account,User,AssocId,OwedRaw,CappedRaw,OwedWindowRaw,CappedWindowRaw
	rows=$(sb -P -n show budget start="uts$t0" end="uts$to" format="$f")
	json=$(sb --json show budget start="uts$t0" end="uts$to" format="$f")
	say "$(grep -E '^(phys-a|bio)\|sb-' <<<"$rows")"
	all_teams_check "$rows" "$json" || return 1
	# bob waited: bio/sb-bob is the worst team, below 1
	python3 -c 'import json,sys; a=json.loads(sys.argv[1])["all_teams"]; assert (a["WorstAccount"], a["WorstUser"]) == ("bio", "sb-bob") and a["WorstDelivOwed"] < 1 and a["DelivOwed"] < 1, a' "$json" ||
		{ say "bio/sb-bob is not the worst team below 1"; return 1; }
	# the table style: the same figures on two lines after the table
	txt=$(sb show budget start="uts$t0" end="uts$to")
	line=$(tail -n 2 <<<"$txt" | head -n 1)
	say "$(tail -n 2 <<<"$txt")"
	m=$(python3 -c 'import json,sys; a=json.loads(sys.argv[1])["all_teams"]; print("All teams: DelivOwed %.3f, Capped %.3f of Owed %.3f GPU-hours, %d of %d teams owed; worst team %s/%s (id %d) %.3f" % (a["DelivOwed"], a["Capped"], a["Owed"], a["TeamsOwed"], a["Teams"], a["WorstAccount"], a["WorstUser"], a["WorstAssocId"], a["WorstDelivOwed"]))' "$json")
	[ "$line" = "$m" ] || { say "text: $line"; say "json: $m"; return 1; }
	[[ "$(tail -n 1 <<<"$txt")" == "All teams over the window: DelivOwedWindow "* ]] ||
		{ say "no window line last: $(tail -n 1 <<<"$txt")"; return 1; }
	# -n and the parsable styles: every line a row
	! sb -n show budget start="uts$t0" end="uts$to" | grep -q 'All teams' ||
		{ say "-n printed the all-teams lines"; return 1; }
	! sb -P show budget start="uts$t0" end="uts$to" | grep -q 'All teams' ||
		{ say "-P printed the all-teams lines"; return 1; }
	# report and show budget over the hour before $to, report in one step
	# of an hour: the same all-teams figures
	json=$(sb --json show budget start="uts$((to - 3600))" end="uts$to" format=Account)
	rep=$(sb --json report start="uts$((to - 3600))" end="uts$to" step=1:00:00)
	python3 - "$json" "$rep" <<'PY' || { say "report's all-teams figures differ from show budget's"; return 1; }
import json, sys
b, r = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for k in ("all_teams", "all_teams_window"):
    assert b[k] == r[k], (k, b[k], r[k])
PY
	# metrics: the all-teams gauges are the sums of the user associations'
	# gauges in the same output (its own span)
	out=$(sb metrics)
	grep -E '^sbudget_(all|worst)_team' <<<"$out" >&2
	awk '
		/^sbudget_owed_gpu_hours\{/ && !/user=""/ { o += $2; ow[$1] = $2 }
		/^sbudget_capped_gpu_hours\{/ && !/user=""/ { c += $2; k = $1; sub(/capped/, "owed", k); cp[k] = $2 }
		/^sbudget_all_teams_owed_gpu_hours\{/ { ao = $2; n++ }
		/^sbudget_all_teams_capped_gpu_hours\{/ { ac = $2; n++ }
		/^sbudget_all_teams_delivered_owed_ratio\{/ { ar = $2; n++ }
		/^sbudget_all_teams_delivered_owed_window_ratio\{/ { n++ }
		/^sbudget_worst_team_delivered_owed_ratio\{/ { wr = $2; n++ }
		END {
			if (n != 5) { print "expected 5 all-teams gauges, got " n; exit 1 }
			if (o <= 0) { print "no user association owed anything"; exit 1 }
			lo = 2; for (k in ow) if (ow[k] > 0 && cp[k] / ow[k] < lo) lo = cp[k] / ow[k]
			d1 = ao - o; d2 = ac - c; d3 = ar - c / o; d4 = wr - lo
			if (d1 * d1 > 1e-6 || d2 * d2 > 1e-6 || d3 * d3 > 1e-6 || d4 * d4 > 1e-4) {
				printf "gauges owed %s capped %s ratio %s worst %s; sums %s %s %s lowest %s\n", ao, ac, ar, wr, o, c, c / o, lo
				exit 1
			}
		}' <<<"$out" >&2
}

# Lost GPU time (Lost, LostRaw; sb_run_work_lost): in budget V, a
# resumable job and a non-resumable one, both 8 GPUs past their min
# runtime, are preempted by G's jobs and requeued.  The non-resumable
# run starts over: its run is lost, exactly 8 x the seconds slurmdbd
# recorded for it; the resumable one keeps its work: not lost.  (slurmdbd
# records both preempted runs as PREEMPTED, as it does a run cancelled by a
# preemption: the job's later record says it was requeued.)  show budget
# and report (the sum of its steps) say the same; G lost nothing.
test_sbudget_lost_runs() {
	clear_cluster
	local t P V G r n a b want got rep
	t=$(date +%s); P=lost$t; V=lost$t-v; G=lost$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	r=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:02 --resumable --wrap 'sleep 120')
	n=$(submit sb-dave -A "$V" -w gpu02 -G 8 --min-runtime=0:02 --wrap 'sleep 120')
	wait_running "$r" "$n"
	# past their min runtime, and V charged for them, so G outranks V
	wait_until $(( $(latest_start "$r" "$n") + 8 )) "V's jobs past their min runtime, with usage"
	wait_recalc_after "$(date +%s)"
	a=$(submit sb-alice -A "$G" -w gpu01 --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	b=$(submit sb-alice -A "$G" -w gpu02 --min-runtime=0:03 -G 8 --wrap 'sleep 3')
	wait_eq 30 "$r requeued" 1 restarts "$r" || return 1
	wait_eq 30 "$n requeued" 1 restarts "$n" || return 1
	# the requeue finished (nodes clean, the job submitted again: a new
	# SubmitTime) before the cancel: cancelled while still completing,
	# Slurm never makes the later incarnation that says "requeued"
	wait_eq 30 "$r and $n pending again, not completing" PENDING \
		bash -c "squeue -h -j $r,$n -o %T | sort -u"
	scancel "$r" "$n"
	wait_state "$a" COMPLETED 60 && wait_state "$b" COMPLETED 60 || return 1
	# slurmdbd's record of each job's preempted run, with its length; the
	# record after it (the requeued job, cancelled while pending) may come
	# later: until then slurmctld's job says "requeued, not cancelled"
	# (its submit time is the requeue's), so the figures are right at once
	wait_for 30 "slurmdbd to record $r's and $n's preempted runs" \
		bash -c "for j in $r $n; do sacct -n -P -D -X -j \$j -o State,ElapsedRaw | grep -q '^PREEMPTED|[1-9]' || exit 1; done"
	want=$(sacct -n -P -D -X -j "$n" -o State,ElapsedRaw | awk -F'|' '$1 ~ /^PREEMPTED/ { s += 8 * $2 } END { print s + 0 }')
	say "slurmdbd: $n's requeued run $((want / 8)) s x 8 GPUs; $r's: $(sacct -n -P -D -X -j "$r" -o State,ElapsedRaw | tr '\n' ' ')"
	[ "$want" -gt 0 ] || { say "no requeued run of $n in slurmdbd"; return 1; }
	got=$(sb -P -n show budget account="$V" format=Account,User,LostRaw | awk -F'|' '$2 == "" { print $3 }')
	say "show budget: $V LostRaw $got (want $want)"
	[ "$got" = "$want" ] || return 1
	rep=$(sb -P -n report account="$V" format=Account,LostRaw | awk -F'|' '{ s += $2 } END { print s + 0 }')
	say "report: $V LostRaw over its steps $rep"
	[ "$rep" = "$want" ] || return 1
	got=$(sb -P -n show budget account="$G" format=Account,User,LostRaw | awk -F'|' '$2 == "" { print $3 }')
	[ "$got" = 0 ] || { say "$G LostRaw $got, want 0"; return 1; }
	# (captured first: grep -q would stop reading, and under pipefail
	# sbudget's broken pipe would fail the check)
	got=$(sb metrics)
	grep -q "^sbudget_lost_gpu_hours{cluster=\"sbcluster\",account=\"$V\",user=\"\"} " <<<"$got" ||
		{ say "no sbudget_lost_gpu_hours gauge for $V"; return 1; }
	clear_cluster
}
