# shellcheck shell=bash
# t-consistency.sh - one definition of owed and delivered: a small
# scenario on the live cluster, then `sbudget show budget`, `sbudget report`
# and `sbudget-sim metrics` on the runs slurmdbd recorded must give the same
# figures per budget over the same span.
#
# The scenario goes through contrib/replay.sh, the demo's own path: it
# submits a job table (two budgets under a fresh account, allocated and
# unallocated jobs, a preemption of each kind, requeues), waits until all
# ended, and reads the runs back from slurmdbd (sacct --duplicates) into the
# segments file `sbudget-sim metrics` reads.  sbudget reads the same records
# through slurmdbd's API, the simulator reads them through that file: the
# two readers must agree with each other, and both tools go through the
# core's sb_figures().
#
# Tolerance: CONS_TOL GPU-seconds per figure.  Both tools read the same
# whole-second records (start, end, eligibility) of the same jobs, with the
# same tree (sacctmgr dump) and capacity, over the same span, so nothing may
# differ but rounding: the *Raw fields and the simulator's JSON are rounded
# to whole GPU-seconds or finer (at most 0.5 each side), sbudget's Demand and
# Quota are printed in GPU-hours with 3 decimals (1.8 GPU-s).  3 GPU-s
# covers that and is less than the smallest real difference the scenario
# can show: one second of its smallest job (4 GPUs) is 4 GPU-s; a requeued
# run's eligibility counted from the end of its previous run instead of
# Slurm's requeue delay (6 s) is 48 GPU-s.
CONS_TOL=3
CONS_SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}
CONS_SIM=${SBUDGET_SIM:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sim/sbudget-sim}

# cons_hms SECONDS - Slurm time syntax (H:M:S) for a step= or window=.
cons_hms() { printf '%d:%02d:%02d' $(($1 / 3600)) $(($1 % 3600 / 60)) $(($1 % 60)); }

# cons_sbudget_show FROM TO ACCOUNT... - "account quota demand owed
# delivered unallocated capped" (GPU-seconds) per account, from show budget
# over [FROM, TO) (epoch seconds).
cons_sbudget_show() {
	local from=$1 to=$2 accts; shift 2
	accts=$(IFS=,; echo "$*")
	"$CONS_SBUDGET" -P -n show budget account="$accts" start="uts$from" end="uts$to" \
		format=Account,User,Quota,Demand,OwedRaw,DeliveredRaw,UnallocatedRaw,CappedRaw |
		awk -F'|' '$2 == "" { printf "%s %.1f %.1f %s %s %s %s\n", $1, $3 * 3600, $4 * 3600, $5, $6, $7, $8 }'
}

# cons_sbudget_report FROM TO ACCOUNT... - the same from report, summing its
# steps (one step: the whole span, so that owed is capped over the same
# slot as show budget's, which cuts the span into hours from its start).
cons_sbudget_report() {
	local from=$1 to=$2 accts; shift 2
	accts=$(IFS=,; echo "$*")
	"$CONS_SBUDGET" -P -n report account="$accts" start="uts$from" end="uts$to" \
		step="$(cons_hms $((to - from)))" \
		format=Account,User,Quota,Demand,OwedRaw,DeliveredRaw,UnallocatedRaw,CappedRaw |
		awk -F'|' '$2 == "" { q[$1] += $3 * 3600; d[$1] += $4 * 3600; o[$1] += $5; v[$1] += $6; u[$1] += $7; c[$1] += $8 }
			END { for (a in o) printf "%s %.1f %.1f %s %s %s %s\n", a, q[a], d[a], o[a], v[a], u[a], c[a] }' | sort
}

# cons_sim_metrics SEGMENTS TREE GPUS FROM TO ACCOUNT... - the same from
# sbudget-sim metrics over [FROM, TO) (seconds of the segments' scale).
cons_sim_metrics() {
	local segs=$1 tree=$2 gpus=$3 from=$4 to=$5 json; shift 5
	json=$("$CONS_SIM" metrics --segments "$segs" --tree "$tree" --gpus "$gpus" \
		--window "$from:$to" --quiet --json -) || return 1
	python3 - "$json" "$@" <<'PY'
import json, sys
doc = json.loads(sys.argv[1])
rep = doc.get("report", doc)
by = {b["path"].rsplit("/", 1)[-1]: b for b in rep["budgets"]}
for a in sys.argv[2:]:
    b = by[a]
    print(a, "%.1f %.1f %.3f %.3f %.3f %.3f" % (b["quota_gpu_s"], b["demand_gpu_s"],
          b["owed_gpu_s"], b["delivered_gpu_s"], b["unallocated_gpu_s"], b["capped_gpu_s"]))
PY
}

# cons_compare LABEL_A FIGS_A LABEL_B FIGS_B - every figure of every account
# within CONS_TOL; says each difference beyond it.
cons_compare() {
	awk -v la="$1" -v lb="$3" -v tol="$CONS_TOL" '
		BEGIN { split("quota demand owed delivered unallocated capped", name, " ") }
		NF == 0 { next }
		FNR == NR { for (i = 2; i <= 7; i++) a[$1, i] = $i; seen[$1] = 1; next }
		{
			if (!($1 in seen)) { printf "    %s: figures in %s, none in %s\n", $1, lb, la; bad++; next }
			got[$1] = 1
			for (i = 2; i <= 7; i++) {
				d = a[$1, i] - $i
				if (d > tol || d < -tol) {
					printf "    %s %s: %s %s, %s %s (differ by %.1f GPU-s, tolerance %s)\n",
						$1, name[i - 1], la, a[$1, i], lb, $i, d, tol
					bad++
				}
			}
			n++
		}
		END {
			for (k in seen)
				if (k != "" && !(k in got)) { printf "    %s: figures in %s, none in %s\n", k, la, lb; bad++ }
			if (n == 0) { print "    nothing compared"; exit 1 }
			exit bad > 0
		}' \
		<(printf '%s\n' "$2") <(printf '%s\n' "$4") >&2
}

# cons_window T0 T1 CA CB LOOKBACK - the figures over the lookback window
# (LOOKBACK seconds: the cluster's LookbackWindow), from a
# span that starts an hour before the scenario (T0 - 3600 .. T1: two hourly
# slots, one window).  Over one window, owed is min(quota, demand) of the
# whole span and capped min(delivered, owed): computed here from the same
# table's QuotaRaw, DemandRaw and DeliveredRaw.  CA's demand is above its
# quota in the scenario's hour and below its quota of the two hours, so
# its owed over the window must exceed its hourly owed (the two figures
# differ where they should).
cons_window() {
	local t0=$1 t1=$2 ca=$3 cb=$4 lw=$5 rows
	# the span must be one window
	[ "$lw" -ge $((t1 - t0 + 3600)) ] ||
		{ say "LookbackWindow is $lw s, shorter than the span of $((t1 - t0 + 3600)) s: the check needs one window"; return 1; }
	rows=$("$CONS_SBUDGET" -P -n show budget account="$ca,$cb" start="uts$((t0 - 3600))" \
		end="uts$t1" format=Account,User,QuotaRaw,DemandRaw,DeliveredRaw,OwedRaw,OwedWindowRaw,CappedWindowRaw,DelivOwedWindow) ||
		{ say "sbudget show budget with the window's figures failed"; return 1; }
	say "  window (from t0 - 3600 s): account|user|quota|demand|delivered|owed|owed window|capped window|ratio"
	say "$(sed 's/^/      /' <<<"$rows")"
	awk -F'|' -v tol="$CONS_TOL" -v ca="$ca" -v cb="$cb" '
		function min(a, b) { return a < b ? a : b }
		function abs(x) { return x < 0 ? -x : x }
		$2 != "" { next }
		{
			seen[$1] = 1
			o = min($3, $4); c = min($5, o)
			if (abs($7 - o) > tol) { printf "    %s: OwedWindowRaw %s, expected min(quota, demand) = %s\n", $1, $7, o; bad = 1 }
			if (abs($8 - c) > tol) { printf "    %s: CappedWindowRaw %s, expected min(delivered, owed) = %s\n", $1, $8, c; bad = 1 }
			if ($1 == ca && !($7 > $6 + tol)) { printf "    %s: owed over the window %s not above its hourly owed %s\n", $1, $7, $6; bad = 1 }
			if (!($7 > 0)) { printf "    %s: nothing owed over the window\n", $1; bad = 1 }
		}
		END { if (!(ca in seen) || !(cb in seen)) { print "    a budget is missing"; bad = 1 } exit bad }' <<<"$rows" >&2
}

test_consistency_owed_delivered_across_tools() {
	local dir=$WORK/consistency.$$ out parent t0 ca cb end gpus n figs_show figs_rep figs_sim lw rc=0
	rm -rf "$dir"; mkdir -p "$dir"
	# an empty cluster: the scenario's preemptions are its own
	wait_eq 120 "an empty queue" "" squeue -h -o %i
	# Two budgets, ca (3) and cb (1), under a fresh account of their own
	# (replay.sh creates it, RawShares 1 at the root).  Times in seconds
	# (time scale 1).  cb fills half the cluster with allocated resumable
	# jobs and a quarter with an unallocated one; ca's later jobs preempt
	# the unallocated job at once (t=4), then (t=14, cb past its 10 s
	# minimum runtime and over its share) one of cb's allocated jobs,
	# requeued and eligible again after Slurm's delay; an unallocated job
	# of ca waits for room.
	cat >"$dir/jobs.csv" <<-'CSV'
	submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority
	0,40,8,cb,sb-alice,10,yes,NORMAL
	0,40,8,cb,sb-alice,10,yes,NORMAL
	0,30,8,cb,sb-alice,0,yes,NORMAL
	0,20,8,ca,sb-alice,10,no,NORMAL
	4,15,8,ca,sb-alice,10,no,NORMAL
	14,10,8,ca,sb-alice,5,no,NORMAL
	16,5,4,ca,sb-alice,0,no,NORMAL
	CSV
	printf 'ca 3\ncb 1\n' >"$dir/tree.txt"
	out=$("$SB_REPO/contrib/replay.sh" --jobs "$dir/jobs.csv" --tree "$dir/tree.txt" \
		--segments "$dir/segments.csv" --time-scale 1 --max-wall 150 --account-teams 2>&1) ||
		{ say "replay.sh failed: $out"; return 1; }
	say "$out"
	parent=$(sed -n 's/^replay: .* teams as accounts under \([^ ]*\) .*/\1/p' <<<"$out")
	t0=$(sed -n 's/^replay: .*(epoch \([0-9]*\)).*/\1/p' <<<"$out")
	[ -n "$parent" ] && [ -n "$t0" ] || { say "no account or epoch in replay.sh's output"; return 1; }
	cleanup_push "sacctmgr -i modify account '$parent' set fairshare=0 >/dev/null"
	[[ "$out" != *"--max-wall reached"* ]] || { say "the scenario did not end in time"; return 1; }
	ca=$parent-ca cb=$parent-cb
	say "segments (seconds from $(date -d "@$t0" +%T)):"
	sed 's/^/      /' "$dir/segments.csv" >&2
	# the scenario did what it is for: every job ran, and runs were
	# preempted, among them an allocated one (its requeued run's
	# eligibility is where two definitions of owed would differ)
	n=$(awk -F, 'NR > 1 && $6 == ""' "$dir/segments.csv" | wc -l)
	[ "$n" = 0 ] || { say "$n runs never started"; return 1; }
	[ "$(awk -F, 'NR > 1 && $8 > 0' "$dir/segments.csv" | wc -l)" -ge 2 ] ||
		{ say "fewer than two preempted runs: the scenario did not happen as designed"; return 1; }
	[ "$(awk -F, 'NR > 1 && $8 > 0 && $4 > 0' "$dir/segments.csv" | wc -l)" -ge 1 ] ||
		{ say "no allocated run was preempted: the scenario did not happen as designed"; return 1; }

	# The figures are computed with the tree as it is now, so the shares
	# are set for them: the scenario's account takes nearly the whole
	# cluster (RawShares 1000 against physics 3 and bio 1) and ca:cb is
	# 1:5, so that over the short span cb, whose allocated run was
	# requeued, is owed its demand (its quota is above it: eligibility
	# counts) and ca its quota (its demand is above it): both halves of
	# owed = min(quota, demand) are compared.
	sacctmgr -i modify account "$parent" set fairshare=1000 >/dev/null
	sacctmgr -i modify account "$ca" set fairshare=1 >/dev/null
	sacctmgr -i modify account "$cb" set fairshare=5 >/dev/null
	# the tree and capacity sbudget uses, for the simulator
	out=$(sacctmgr -n dump sbcluster file="$dir/dump.cfg" 2>&1) ||
		{ say "sacctmgr dump failed: $out"; return 1; }
	gpus=$("$CONS_SBUDGET" metrics | awk '/^sbudget_capacity_gpus\{/ { print $2 }')
	[ -n "$gpus" ] || { say "no capacity in sbudget metrics"; return 1; }

	# the span: from the first eligibility (t0) to the last end; one slot
	end=$(awk -F, 'NR > 1 && $7 > e { e = $7 } END { print e + 1 }' "$dir/segments.csv")
	wait_until $((t0 + end)) "the span ends by now"
	figs_show=$(cons_sbudget_show "$t0" $((t0 + end)) "$ca" "$cb") || return 1
	figs_rep=$(cons_sbudget_report "$t0" $((t0 + end)) "$ca" "$cb") || return 1
	figs_sim=$(cons_sim_metrics "$dir/segments.csv" "$dir/dump.cfg" "$gpus" 0 "$end" "$ca" "$cb") || return 1
	say "span [t0, t0+$end s), GPU-seconds: account quota demand owed delivered unallocated capped"
	say "  show budget: $(tr '\n' ';' <<<"$figs_show")"
	say "  report:      $(tr '\n' ';' <<<"$figs_rep")"
	say "  sim metrics: $(tr '\n' ';' <<<"$figs_sim")"
	# what is compared is there: both budgets owed and delivered, ca owed
	# its quota and cb its demand (sbudget's figures)
	awk -v ca="$ca" -v cb="$cb" '{ if (!($4 > 0 && $5 > 0)) bad = 1 } $1 == ca { a = 1 } $1 == cb { b = 1 }
		END { exit bad || !a || !b }' <<<"$figs_show" ||
		{ say "a budget with nothing owed or delivered, or missing: nothing to compare"; return 1; }
	awk -v ca="$ca" -v cb="$cb" '$1 == ca && !($3 > $2) { exit 1 } $1 == cb && !($3 < $2) { exit 1 }' <<<"$figs_show" ||
		{ say "the scenario did not make ca's quota the cap and cb's demand the cap"; return 1; }
	cons_compare "show budget" "$figs_show" "report" "$figs_rep" || rc=1
	cons_compare "show budget" "$figs_show" "sim metrics" "$figs_sim" || rc=1
	# the cluster's LookbackWindow, as the core's budget.conf parser reads it
	lw=$("$CONS_SIM" metrics --segments "$dir/segments.csv" --tree "$dir/dump.cfg" --gpus "$gpus" \
		--conf "$SB_CLUSTER_DIR/budget.conf" --quiet --json - |
		python3 -c 'import json, sys; d = json.load(sys.stdin); print(d.get("report", d)["lookback_window_s"])') ||
		{ say "cannot read LookbackWindow from $SB_CLUSTER_DIR/budget.conf"; return 1; }
	cons_window "$t0" $((t0 + end)) "$ca" "$cb" "$lw" || rc=1
	[ "$rc" = 0 ] && [ -z "${CONS_KEEP:-}" ] && rm -rf "$dir"
	return "$rc"
}
