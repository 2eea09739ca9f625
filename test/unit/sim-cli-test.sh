#!/bin/sh
# sim-cli-test.sh - sbudget-sim end to end on a small fixture: the same
# seed and input give byte-identical JSON, another seed another one; the
# metrics command reports the simulated run's segments identically; bad
# arguments and inputs exit 2 naming the value.  Run by `make check` from
# the build directory.
set -u
sim=./src/sim/sbudget-sim
data=${srcdir:-.}/test/unit/data
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

run() { "$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
	--assign-teams --nodes 2 --gpus-per-node 8 --quiet "$@"; }

run --seed 7 --json "$tmp/a.json" --segments "$tmp/seg.csv" || bad "run a"
run --seed 7 --json "$tmp/b.json" || bad "run b"
run --seed 8 --json "$tmp/c.json" || bad "run c"
cmp -s "$tmp/a.json" "$tmp/b.json" || bad "same seed, different JSON"
cmp -s "$tmp/a.json" "$tmp/c.json" && bad "seeds 7 and 8 gave the same JSON"
grep -q '"assigned_teams": 12' "$tmp/a.json" || bad "assignment not reported"
run --seed 7 --policy baseline --json "$tmp/d.json" || bad "baseline run"
cmp -s "$tmp/a.json" "$tmp/d.json" && bad "baseline and budget identical"

# --version and -V print the package version and exit 0, whatever follows
v=$("$sim" --version) || bad "--version exit status"
[ "$v" = "sbudget-sim $(sed -n 's/^PACKAGE_VERSION = //p' Makefile)" ] || bad "--version printed '$v'"
[ "$("$sim" metrics -V)" = "$v" ] || bad "metrics -V differs from --version"

# the simulator's report and `metrics` on its segments agree
"$sim" metrics --segments "$tmp/seg.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --json "$tmp/m.json" --quiet || bad "metrics"
keys='"(p50_s|p90_s|p99_s|occupancy|used_gpu_hours|delivered_gpu_hours|unallocated_gpu_hours|owed_gpu_hours|capped_gpu_hours|preemptions|lost_gpu_hours|[a-z]+_gpu_s)"'
sed -n '/"report"/,$p' "$tmp/a.json" | grep -E "$keys" >"$tmp/r1"
sed -n '/"report"/,$p' "$tmp/m.json" | grep -E "$keys" >"$tmp/r2"
grep -q '"owed_gpu_s"' "$tmp/r1" || bad "no per-budget figures in the report"
cmp -s "$tmp/r1" "$tmp/r2" || { bad "run and metrics disagree"; diff "$tmp/r1" "$tmp/r2"; }
# ... and with an explicit window, --now, the per-budget text table
"$sim" metrics --segments "$tmp/seg.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --window 0:7200 --now 7200 --budgets >"$tmp/m.txt" || bad "metrics --window --now --budgets"
grep -q '^window: 0 .. 7200 s' "$tmp/m.txt" || bad "metrics --window not applied"
grep -q '^budgets (GPU-seconds' "$tmp/m.txt" || bad "metrics --budgets: no table"
expect_nz() { [ "$(grep -c "$1" "$2")" -gt 0 ] || bad "'$1' not in $2"; }
expect_nz '^  physics ' "$tmp/m.txt"

# owed counts allocated demand only: the same runs with every contract
# removed (min_runtime_s empty: unallocated) owe nothing and deliver
# nothing; their GPU time is all unallocated
awk -F, 'BEGIN { OFS = "," } NR > 1 { $4 = "" } { print }' "$tmp/seg.csv" >"$tmp/nocontract.csv"
"$sim" metrics --segments "$tmp/nocontract.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --json "$tmp/n.json" --quiet || bad "metrics without contracts"
sed -n '/"report"/,/"teams"/p' "$tmp/n.json" | grep -q '"owed_gpu_hours": 0.000' || bad "no contract, yet owed"
sed -n '/"report"/,/"teams"/p' "$tmp/n.json" | grep -q '"delivered_gpu_hours": 0.000' || bad "no contract, yet delivered"
used=$(sed -n '/"report"/,/"teams"/s/.*"used_gpu_hours": \([0-9.]*\),$/\1/p' "$tmp/n.json")
if [ -n "$used" ] && awk -v u="$used" 'BEGIN { exit !(u > 0) }'; then
	sed -n '/"report"/,/"teams"/p' "$tmp/n.json" | grep -Fq "\"unallocated_gpu_hours\": $used," ||
		bad "no contract: not all unallocated ($used GPU-h used)"
else
	bad "no contract: no GPU time used in the report ('$used')"
fi

# convert writes the eight columns replay.sh reads, and reads back
"$sim" convert --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
	--assign-teams --seed 7 --out "$tmp/conv.csv" 2>"$tmp/conv.err" || bad "convert"
head -n 1 "$tmp/conv.csv" | grep -qx 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority' || bad "convert header"
grep -q 'assigned: time limit of 12 jobs (the f-model: 2 x duration' "$tmp/conv.err" || bad "convert does not report the modeled time limits"
grep -q 'assigned: team of 12 jobs' "$tmp/conv.err" || bad "convert does not report assignment"
"$sim" --jobs "$tmp/conv.csv" --tree "$data/sim-small.tree" --nodes 2 \
	--quiet --json "$tmp/e.json" || bad "converted table does not run"

# refusals: exit 2 and the offending value in the message
expect2() {	# WANT ARGS...
	want=$1; shift
	out=$("$sim" "$@" 2>&1) && { bad "accepted: $*"; return; }
	[ $? -eq 2 ] || bad "exit status not 2: $*"
	case $out in *"$want"*) ;; *) bad "'$want' not in: $out" ;; esac
}
expect2 "'many'" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --nodes many
expect2 "'fair'" --policy fair
expect2 "'qos_LS'" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree"
expect2 "'--frob'" --frob 1
expect2 "'dance'" dance
expect2 "--no-requeue '1.5' is not accepted: a fraction from 0 to 1" --no-requeue 1.5
expect2 "--no-requeue 'x'" --no-requeue x
expect2 "--time-limit-factor '0.5' is not accepted: a number from 1 to 1000" --time-limit-factor 0.5
expect2 "--time-limit-factor 'x'" --time-limit-factor x
printf 'submit_time_s,duration_s,gpus,team,time_limit_s\n0,100,8,a,abc\n' >"$tmp/badlim.csv"
expect2 "time_limit_s 'abc' is not accepted" --jobs "$tmp/badlim.csv" --tree "$data/sim-small.tree"
printf 'submit_time_s,duration_s,gpus,team,time_limit_s\n0,100,8,a,0\n' >"$tmp/badlim0.csv"
expect2 "time_limit_s '0' is not accepted" --jobs "$tmp/badlim0.csv" --tree "$data/sim-small.tree"
# --no-requeue F: drawn and reported; with every job unable to requeue no
# run is requeued or restarted (only cancelled or done)
run --seed 7 --no-requeue 1 --json "$tmp/nrq.json" --segments "$tmp/nrq.csv" || bad "--no-requeue 1"
grep -q '"assigned_no_requeue": 12' "$tmp/nrq.json" || bad "--no-requeue 1: not every job drawn"
grep -qE ',(requeued|restarted)$' "$tmp/nrq.csv" && bad "--no-requeue 1: a run was requeued"
grep -q ',cancelled$' "$tmp/nrq.csv" || bad "--no-requeue 1: no victim cancelled"
# ... and their users resubmit them (--resubmit-delay, default 5:00): a
# cancelled job has lines after its cancelled run (runs or pending), the
# run's count and the report's agree, and `metrics` on the segments
# reports the same cancelled runs, lost GPU-h and resubmissions
last_after_cancel() {	# FILE: jobs with a line after a cancelled run
	awk -F, 'NR > 1 { if (c[$1]) a[$1] = 1; if ($12 == "cancelled") c[$1] = 1 }
		END { n = 0; for (j in a) n++; print n }' "$1"
}
[ "$(last_after_cancel "$tmp/nrq.csv")" -gt 0 ] || bad "--no-requeue 1: no cancelled job resubmitted"
grep -q '"resubmit_delay_s": 300' "$tmp/nrq.json" || bad "the default --resubmit-delay is not 300 s in the JSON"
rs=$(sed -n 's/.*"resubmissions": \([0-9]*\).*/\1/p' "$tmp/nrq.json" | sort -u)
[ -n "$rs" ] && [ "$rs" -gt 0 ] && [ "$(echo "$rs" | wc -l)" -eq 1 ] || bad "resubmissions: simulation and report differ or none: $rs"
"$sim" metrics --segments "$tmp/nrq.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --json "$tmp/nrqm.json" --quiet || bad "metrics on resubmitted runs"
keys2='"(owed_gpu_hours|delivered_gpu_hours|capped_gpu_hours|preemptions|lost_gpu_hours|cancelled_runs|cancelled_lost_gpu_hours|resubmissions|[a-z]+_gpu_s)"'
sed -n '/"report"/,$p' "$tmp/nrq.json" | grep -E "$keys2" >"$tmp/q1"
sed -n '/"report"/,$p' "$tmp/nrqm.json" | grep -E "$keys2" >"$tmp/q2"
grep -q '"cancelled_runs"' "$tmp/q1" || bad "resubmissions: no cancelled_runs in the report"
cmp -s "$tmp/q1" "$tmp/q2" || { bad "resubmissions: run and metrics disagree"; diff "$tmp/q1" "$tmp/q2"; }
# --resubmit-delay none: a cancelled job never comes back
run --seed 7 --no-requeue 1 --resubmit-delay none --json "$tmp/nrq0.json" --segments "$tmp/nrq0.csv" || bad "--resubmit-delay none"
grep -q ',cancelled$' "$tmp/nrq0.csv" || bad "--resubmit-delay none: no victim cancelled"
[ "$(last_after_cancel "$tmp/nrq0.csv")" -eq 0 ] || bad "--resubmit-delay none: a cancelled job ran again"
grep -q '"resubmit_delay_s": null' "$tmp/nrq0.json" || bad "--resubmit-delay none not in the JSON"
grep -q '"resubmissions": [1-9]' "$tmp/nrq0.json" && bad "--resubmit-delay none: resubmissions counted"
expect2 "--resubmit-delay '5m' is not accepted: a duration in Slurm's time syntax" --resubmit-delay 5m
expect2 "--resubmit-delay 'never'" --resubmit-delay never
expect2 "or none" --resubmit-delay -1
expect2 "at most 365 days" --resubmit-delay 366-0
"$sim" --help | grep -q -- '5:00 is five$' || bad "--help: --resubmit-delay default"
# at most SIM_RESUBMIT_MAX (10) resubmissions per job: on this table jobs
# of budgets whose standing keeps turning are cancelled
# and resubmitted for ever without the bound, and the run with no --until
# never ended; with it, jobs 11 and 15 are given up after their 11th cancel
cat >"$tmp/loop.csv" <<'CSV'
submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority
0,30,1,d/y,u0,1800,no,512
0,4000,1,d/y,u0,0,yes,900
0,30,2,b,u2,60,no,100
1,30,1,a,u1,60,yes,100
601,30,2,d/x,u2,60,yes,900
601,700,2,d/y,u0,600,yes,512
721,200,2,a,u1,0,no,900
841,700,1,b,u2,60,no,512
871,200,2,b,u1,1800,no,100
991,30,1,b,u0,60,no,900
992,10000,1,c,u0,600,no,900
1112,200,1,b,u2,60,no,900
1142,200,2,d/y,u1,0,yes,512
1742,200,1,d/x,u2,1800,yes,900
1747,4000,2,a,u2,60,yes,100
2347,1500,1,b,u1,60,yes,100
2377,10000,2,c,u2,0,yes,512
2378,30,2,d/y,u1,600,no,512
2378,30,2,b,u2,0,yes,512
2498,200,1,b,u2,600,no,512
2499,10000,1,b,u2,600,no,900
2619,1500,2,a,u0,600,yes,512
CSV
printf 'a 3\nb 2\nc 1\nd 1\nd/x 1\nd/y 1\n' >"$tmp/loop.tree"
printf 'CalcPeriod=300\nLookbackWindow=1-0\nBucketWidth=1\nPreemptGraceTime=0\nPreemptIntervalFactor=1\n' >"$tmp/loop.conf"
if timeout 60 "$sim" --jobs "$tmp/loop.csv" --tree "$tmp/loop.tree" --conf "$tmp/loop.conf" \
	--nodes 1 --gpus-per-node 2 --requeue-delay 0 --no-requeue 1 --resubmit-delay 0 \
	--quiet --segments "$tmp/loop.seg"; then
	most=$(awk -F, 'NR > 1 && $12 == "cancelled" { c[$1]++ } END { m = 0; for (j in c) if (c[j] > m) m = c[j]; print m }' "$tmp/loop.seg")
	[ "$most" -eq 11 ] || bad "resubmission bound: the most cancels of one job is $most, not 10 resubmissions + 1"
	awk -F, 'NR > 1 { last[$1] = $12 } END { for (j in last) if (last[j] == "cancelled") n++; exit !(n > 0) }' "$tmp/loop.seg" ||
		bad "resubmission bound: no job given up"
	# --help (from SIM_RESUBMIT_MAX) and the man page state that bound
	n_help=$("$sim" --help | sed -n 's/.*at most \([0-9]*\) times per job.*/\1/p')
	n_man=$(sed -n 's/.*resubmits one job at most \([0-9]*\) times.*/\1/p' "${srcdir:-.}/doc/man/sbudget-sim.1")
	[ "$n_help" = "$((most - 1))" ] && [ "$n_man" = "$n_help" ] ||
		bad "resubmission bound: --help says '$n_help', sbudget-sim(1) '$n_man', the run $((most - 1))"
else
	bad "resubmission bound: the run without --until did not end within 60 s (or failed)"
fi
# ... while by default (every job requeueable) the same victims are
# requeued: the resumable one resumes, the other restarts
grep -q ',requeued$' "$tmp/seg.csv" || bad "default: no victim requeued"
grep -q ',restarted$' "$tmp/seg.csv" || bad "default: no non-resumable victim restarted"
grep -q ',cancelled$' "$tmp/seg.csv" && bad "default: a requeueable victim was cancelled"
# a tree deeper than the policy core handles (64 levels) is refused
awk 'BEGIN { p = "a"; print p, 1; for (i = 0; i < 70; i++) { p = p "/n" i; print p, 1 } }' >"$tmp/deep.tree"
printf 'submit_time_s,duration_s,gpus,team\n0,10,1,a\n' >"$tmp/one.csv"
expect2 "71 levels" --jobs "$tmp/one.csv" --tree "$tmp/deep.tree"
printf 'submit_time_s,duration_s,gpus,team\n0,10,x,a\n' >"$tmp/bad.csv"
expect2 "bad.csv:2:" --jobs "$tmp/bad.csv" --tree "$data/sim-small.tree"
# --until before the first submission: refused, naming both times
printf 'submit_time_s,duration_s,gpus,team\n500,10,1,qos_LS\n' >"$tmp/late.csv"
expect2 "--until 100 is before the first submission (t=500 s" --jobs "$tmp/late.csv" --tree "$data/sim-small.tree" --assign-teams --until 100
"$sim" --jobs "$tmp/late.csv" --tree "$data/sim-small.tree" --assign-teams --until 500 --quiet || bad "--until at the first submission refused"
# --until inside a victim's grace time: b preempts a (allocated,
# resumable: 30 s of grace) at 180 s and would start at 210 s; stopped at
# 200 s, b has not started: a pending line, never started, no run after
# the end, and metrics on the segments gives run's window and waits
printf 'a 1\nb 1\n' >"$tmp/ab.tree"
# (without the debug lane, which would let b, a lane-sized job, take a at
# once: the lane's own cases are below)
printf 'DebugLaneTRES=0\n' >"$tmp/nolane.conf"
printf 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority\n0,1000,8,a,u,10,yes,512\n50,100,8,b,u,10,yes,512\n' >"$tmp/grace.csv"
"$sim" --jobs "$tmp/grace.csv" --tree "$tmp/ab.tree" --conf "$tmp/nolane.conf" --nodes 1 --segments "$tmp/gfull.csv" --quiet || bad "grace table"
grep -q '^2,b,8,10,50,210,' "$tmp/gfull.csv" || bad "grace table: b no longer starts at 210 s (the fixture needs adjusting)"
"$sim" --jobs "$tmp/grace.csv" --tree "$tmp/ab.tree" --conf "$tmp/nolane.conf" --nodes 1 --until 200 --segments "$tmp/gseg.csv" >"$tmp/grun.txt" || bad "grace table --until 200"
awk -F, 'NR > 1 && $6 != "" && $6 > 200 { bad = 1 } END { exit bad }' "$tmp/gseg.csv" || bad "--until 200: a run starts after the end: $(cat "$tmp/gseg.csv")"
grep -qx '2,b,8,10,50,,,0,50,,1,pending' "$tmp/gseg.csv" || bad "--until 200: b is not pending at the end: $(cat "$tmp/gseg.csv")"
grep -q '^  all .* never started 1$' "$tmp/grun.txt" || bad "--until 200: b not counted as never started"
"$sim" metrics --segments "$tmp/gseg.csv" --tree "$tmp/ab.tree" --gpus 8 >"$tmp/gmet.txt" || bad "metrics on the grace segments"
sed -n '/^window/,$p' "$tmp/grun.txt" >"$tmp/g1"
sed -n '/^window/,$p' "$tmp/gmet.txt" >"$tmp/g2"
grep -q '^window' "$tmp/g1" || bad "--until 200: no window line in the run's report"
cmp -s "$tmp/g1" "$tmp/g2" || { bad "--until 200: run and metrics disagree"; diff "$tmp/g1" "$tmp/g2"; }
# the break-even rule: a runs 1000 s of 8 GPUs, not resumable, 10 s min
# runtime; b (equal share, nothing used) asks at 600 s.  With a's time
# limit at 1100 s, what is left (500 s) is less than its run (600 s): a
# is kept and ends; with 5000 s it is preempted and restarts.  A limit
# below the duration is raised to it, and says so.
printf 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority,time_limit_s\n0,1000,8,a,u,10,no,512,LIM\n600,100,8,b,u,10,yes,512,\n' >"$tmp/be.csv"
for lim in 1100 5000 900; do
	sed "s/LIM/$lim/" "$tmp/be.csv" >"$tmp/be$lim.csv"
	"$sim" --jobs "$tmp/be$lim.csv" --tree "$tmp/ab.tree" --nodes 1 --segments "$tmp/be$lim.seg" --json "$tmp/be$lim.json" >"$tmp/be$lim.txt" || bad "break-even table, limit $lim"
done
grep -q '"time_limits_raised": 1' "$tmp/be900.json" || bad "break-even: the limit below the duration was not counted as raised"
grep -q '"time_limits_raised": 0' "$tmp/be1100.json" || bad "break-even: a limit above the duration was counted as raised"
grep -q '^1,a,8,10,0,0,1000,0,0,0,0,done$' "$tmp/be1100.seg" || bad "break-even: a (limit 1100 s) was not kept to its end: $(cat "$tmp/be1100.seg")"
grep -q '^2,b,8,10,600,1000,' "$tmp/be1100.seg" || bad "break-even: b did not start when a ended: $(cat "$tmp/be1100.seg")"
grep -q '^1,a,8,10,0,0,600,1,0,0,0,restarted$' "$tmp/be5000.seg" || bad "break-even: a (limit 5000 s) was not preempted at 600 s: $(cat "$tmp/be5000.seg")"
grep -q '^1,a,8,10,0,0,1000,0,0,0,0,done$' "$tmp/be900.seg" || bad "break-even: a (limit 900 s, raised to 1000 s) was not kept: $(cat "$tmp/be900.seg")"
grep -q '^input: 1 time limits below the job.s duration raised to it$' "$tmp/be900.txt" || bad "break-even: the raised limit is not reported"
# no limit given: the f-model's.  Factor 1.1: 1100 s rounded up to 1140 s,
# 540 s left at 600 s: kept; the default 2 (2000 s): preempted
sed "s/LIM//" "$tmp/be.csv" >"$tmp/benone.csv"
"$sim" --jobs "$tmp/benone.csv" --tree "$tmp/ab.tree" --nodes 1 --time-limit-factor 1.1 --segments "$tmp/be11.seg" --json "$tmp/be11.json" --quiet || bad "break-even, factor 1.1"
grep -q '^1,a,8,10,0,0,1000,0,0,0,0,done$' "$tmp/be11.seg" || bad "break-even: a (f-model 1.1) was not kept: $(cat "$tmp/be11.seg")"
grep -q '"time_limit_factor": 1.1' "$tmp/be11.json" || bad "the JSON does not give --time-limit-factor"
grep -q '"assigned_time_limit": 2' "$tmp/be11.json" || bad "the JSON does not count the modeled limits"
"$sim" --jobs "$tmp/benone.csv" --tree "$tmp/ab.tree" --nodes 1 --segments "$tmp/be2.seg" --quiet || bad "break-even, default factor"
grep -q '^1,a,8,10,0,0,600,1,0,0,0,restarted$' "$tmp/be2.seg" || bad "break-even: a (f-model 2) was not preempted: $(cat "$tmp/be2.seg")"
# the text report names its wait classes; sim-compare.sh prints the
# section headers, so its three "all" lines per policy can be told apart
grep -q '^queue wait (first start - submit; debug: <= 8 GPUs and 0 < min runtime <= 15 min, large: >= 32 GPUs, other: the rest):$' "$tmp/grun.txt" || bad "the report does not define its wait classes"
grep -q '^queue wait of allocated jobs (small: < 32 GPUs):$' "$tmp/grun.txt" || bad "the report does not define small"
SBUDGET_SIM=$sim "${srcdir:-.}/contrib/sim-compare.sh" "$tmp/cmp" --jobs "$data/sim-small.csv" \
	--tree "$data/sim-small.tree" --assign-teams --nodes 2 >"$tmp/cmp.txt" || bad "sim-compare.sh"
[ "$(grep -c '^queue wait of unallocated jobs' "$tmp/cmp.txt")" = 2 ] || bad "sim-compare.sh: no section headers: $(cat "$tmp/cmp.txt")"
# --backfill: reserve[:N], greedy, none; anything else refused
expect2 "'reserve:0'" --backfill reserve:0
expect2 "'reserve:x'" --backfill reserve:x
expect2 "'fifo'" --backfill fifo
run --seed 7 --json "$tmp/g.json" --backfill greedy || bad "--backfill greedy"
run --seed 7 --json "$tmp/r.json" --backfill reserve:1 || bad "--backfill reserve:1"
grep -q '"backfill": "reserve:1"' "$tmp/a.json" || bad "the default backfill is not reserve:1 in the JSON"
grep -q '"backfill": "greedy"' "$tmp/g.json" || bad "--backfill greedy not in the JSON"
# --help states the defaults the code has
"$sim" --help | grep -q -- '--requeue-work W     resume (default' || bad "--help: --requeue-work default"
"$sim" --help | grep -q -- '--backfill B         reserve\[:N\] (default' || bad "--help: --backfill default"
# segments: twelve columns, read back by metrics; the 9-column form gives
# the same report, the 8-column one (no eligible_s: its demand differs) is
# read
head -n 1 "$tmp/seg.csv" | grep -qx 'job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted,eligible_s,nodes,resumable,fate' || bad "segments header"
awk -F, 'NR > 1 && $6 != "" && $10 == "" { bad = 1 } END { exit bad }' "$tmp/seg.csv" || bad "a run without node ids"
awk -F, 'NR > 1 && $12 !~ /^(done|requeued|restarted|cancelled|unfinished|pending|)$/ { bad = 1 } END { exit bad }' "$tmp/seg.csv" || bad "a bad fate"
for n in 8 9; do
	cut -d, -f1-$n "$tmp/seg.csv" >"$tmp/seg$n.csv"
	"$sim" metrics --segments "$tmp/seg$n.csv" --tree "$data/sim-small.tree" \
		--gpus 16 --json "$tmp/m$n.json" --quiet || bad "metrics on $n columns"
done
cmp -s "$tmp/m.json" "$tmp/m9.json" || bad "12 and 9 columns give different reports"
run --seed 7 --requeue-work restart --segments "$tmp/segr.csv" || bad "run restart"
# with restart no preempted run keeps its work: fate restarted or cancelled
awk -F, 'NR > 1 && ($8 == 2 || ($8 == 1 && $12 !~ /^(restarted|cancelled)$/)) { bad = 1 } END { exit bad }' "$tmp/segr.csv" || bad "restart: a run kept its work"
grep -q ',restarted$' "$tmp/segr.csv" || bad "restart: no run restarted (the fixture preempts)"
# a report window of too many hourly figures is refused, naming its hours
# (a run ending at t=99999999999 would need 6 GB of them, then "out of
# memory")
printf 'job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted\n1,bio,8,60,0,10,99999999999,0\n' >"$tmp/far.csv"
expect2 "the window [0, 99999999999) s is 27777778 hours" metrics --segments "$tmp/far.csv" --tree "$data/sim-small.tree" --gpus 16
expect2 "latest end_s in $tmp/far.csv" metrics --segments "$tmp/far.csv" --tree "$data/sim-small.tree" --gpus 16
"$sim" metrics --segments "$tmp/far.csv" --tree "$data/sim-small.tree" --gpus 16 --window 0:3600 --quiet || bad "a far end with a short --window refused"
expect2 "at most 3355443 hours" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --assign-teams --window 0:99999999999 --quiet
# runs holding more GPUs than --gpus are refused (occupancy above 100%)
expect2 "the runs hold 16 GPUs at once, more than --gpus 15" metrics --segments "$tmp/seg.csv" --tree "$data/sim-small.tree" --gpus 15
# --conf is read as the plugins and sbudget read budget.conf: a directory,
# a FIFO (a read that may wait for ever) or a file above 1 MiB is refused,
# naming it
expect2 "$tmp is not a regular file" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --assign-teams --conf "$tmp"
mkfifo "$tmp/fifo.conf"
out=$(timeout 10 "$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --assign-teams --conf "$tmp/fifo.conf" 2>&1)
[ $? -eq 2 ] || bad "--conf FIFO: not refused at once: $out"
case $out in *"fifo.conf is not a regular file"*) ;; *) bad "--conf FIFO: $out" ;; esac
head -c 1048577 /dev/zero | tr '\0' '#' >"$tmp/big.conf"
expect2 "big.conf is 1048577 bytes: budget.conf takes at most 1048576" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --assign-teams --conf "$tmp/big.conf"
expect2 "nosuch.conf: cannot open" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" --assign-teams --conf "$tmp/nosuch.conf"
# an input file that never ends (a device) is refused at its first NUL
# byte, not read until memory runs out
for opt in --jobs --tree; do
	out=$(timeout 10 "$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" $opt /dev/zero 2>&1)
	[ $? -eq 2 ] || bad "$opt /dev/zero: not refused at once: $out"
	case $out in *"/dev/zero: contains a NUL byte"*) ;; *) bad "$opt /dev/zero: $out" ;; esac
done
out=$(timeout 10 "$sim" metrics --segments /dev/zero --tree "$data/sim-small.tree" --gpus 8 2>&1)
[ $? -eq 2 ] || bad "--segments /dev/zero: not refused at once: $out"
# numbers are digits only: no blanks, sign or hexadecimal, which
# strtoll/strtod alone would take ('--nodes " 3"', 'reserve:+5',
# '--time-scale 0x10' = 16)
expect2 "--nodes ' 3' is not accepted" --nodes ' 3'
expect2 "--seed '+5' is not accepted" --seed +5
expect2 "--backfill 'reserve:+5' is not accepted" --backfill reserve:+5
expect2 "--backfill 'reserve: 5' is not accepted" --backfill 'reserve: 5'
expect2 "--time-scale '0x10' is not accepted" --time-scale 0x10
expect2 "--time-scale ' 2' is not accepted" --time-scale ' 2'
expect2 "--no-requeue '-0' is not accepted" --no-requeue -0
expect2 "--window ' 1' is not accepted" --window ' 1:5'
expect2 "--time-scale '-1' is not accepted" --time-scale -1
run --time-scale 0.5 --no-requeue 0.25 --quiet || bad "--time-scale 0.5 --no-requeue 0.25 refused"
run --time-scale 1e1 --quiet || bad "--time-scale 1e1 refused"
# a report that cannot be written (disk full) is an error, not exit 0
if [ -w /dev/full ]; then
	for args in "--json /dev/full --quiet" "--json - --quiet" "" "--budgets"; do
		# shellcheck disable=SC2086
		out=$("$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
			--assign-teams --nodes 2 $args 2>&1 >/dev/full)
		[ $? -eq 2 ] || bad "run $args >/dev/full: exit status not 2"
		case $out in *"write error"*) ;; *) bad "run $args >/dev/full: $out" ;; esac
	done
	out=$("$sim" tree --tree "$data/sim-small.tree" 2>&1 >/dev/full)
	[ $? -eq 2 ] || bad "tree >/dev/full: exit status not 2 ($out)"
	out=$("$sim" metrics --segments "$tmp/seg.csv" --tree "$data/sim-small.tree" --gpus 16 2>&1 >/dev/full)
	[ $? -eq 2 ] || bad "metrics >/dev/full: exit status not 2 ($out)"
fi
# the debug lane (budget.conf's DebugLane*, on by default): over-share
# team b's debug job (1 GPU, min runtime 60) starts at once at 1200 s by
# taking a's job, past its min runtime; counted as a lane start; with
# DebugLaneTRES=0 it waits for the reclaim rule (every job here is
# lane-sized: 3 lane starts; the debug waits are all 0 but job 3's
# without the lane, so the worst team is a (first) or b)
printf 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority\n0,1000,4,b,u,300,yes,512\n1000,5000,4,a,u,60,yes,512\n1200,100,1,b,u,60,yes,512\n' >"$tmp/lane.csv"
printf 'CalcPeriod=1\nPreemptGraceTime=0\n' >"$tmp/lane.conf"
printf 'CalcPeriod=1\nPreemptGraceTime=0\nDebugLaneTRES=0\n' >"$tmp/lane0.conf"
for c in lane lane0; do
	"$sim" --jobs "$tmp/lane.csv" --tree "$tmp/ab.tree" --conf "$tmp/$c.conf" --nodes 1 --gpus-per-node 4 \
		--requeue-delay 0 --segments "$tmp/$c.seg" --json "$tmp/$c.json" >"$tmp/$c.txt" || bad "lane run ($c)"
done
grep -q '^3,b,1,60,1200,1200,' "$tmp/lane.seg" || bad "lane: the debug job does not start at 1200 s: $(cat "$tmp/lane.seg")"
grep -q '^3,b,1,60,1200,1200,' "$tmp/lane0.seg" && bad "DebugLaneTRES=0: the debug job starts at once"
grep -q '"lane_starts": 3,' "$tmp/lane.json" || bad "lane: lane_starts is not 3"
grep -q '"lane_starts": 0,' "$tmp/lane0.json" || bad "DebugLaneTRES=0: lane_starts is not 0"
grep -q '^debug lane: 3 runs started in it$' "$tmp/lane.txt" || bad "lane: no 'debug lane' line"
grep -q '^  debug p90 of the worst team: a 0s (1 debug jobs)$' "$tmp/lane.txt" || bad "lane: no worst team line: $(grep 'worst team' "$tmp/lane.txt")"
grep -q '"debug_wait_p90_worst_team": "b",' "$tmp/lane0.json" || bad "DebugLaneTRES=0: no debug_wait_p90_worst_team"
# a large tree and trace are read whole and right (teams are looked up by
# a hash: doc/benchmarks.md section 4 has the speed; the timeout only
# guards against a hang, it is not a speed test)
awk 'BEGIN { for (i = 0; i < 100; i++) print "p" i, 1
	     for (i = 0; i < 20000; i++) print "p" (i % 100) "/u" i, 1 }' >"$tmp/big.tree"
awk 'BEGIN { print "submit_time_s,duration_s,gpus,team"
	     for (j = 0; j < 100000; j++) print j * 10 ",600,1,u" (j * 7919) % 20000 }' >"$tmp/big.csv"
timeout 300 "$sim" convert --jobs "$tmp/big.csv" --tree "$tmp/big.tree" --out "$tmp/big.out" 2>/dev/null ||
	bad "convert of 100,000 jobs on 20,000 budgets: failed (or hung: 300 s)"
[ "$(wc -l <"$tmp/big.out")" -eq 100001 ] || bad "convert of 100,000 jobs: $(wc -l <"$tmp/big.out") lines"
# the verdict: after every other line of the report, a
# mark per team, the jobs that never started named with `sbudget show
# job`'s words, and one line; the same in run and metrics, text and JSON
# (the fixture's reasons are without the debug lane)
"$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
	--assign-teams --nodes 2 --gpus-per-node 8 --seed 7 --until 3000 \
	--conf "$tmp/nolane.conf" --json "$tmp/v.json" --segments "$tmp/vseg.csv" >"$tmp/v.txt" || bad "run --until 3000"
"$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
	--assign-teams --nodes 2 --gpus-per-node 8 --seed 7 --until 3000 \
	--policy baseline >"$tmp/vb.txt" || bad "baseline run --until 3000"
for f in "$tmp/v.txt" "$tmp/vb.txt" "$tmp/m.txt"; do
	tail -n 1 "$f" | grep -Eq '^budgets honoured: (yes|no) — [0-9]+ of [0-9]+ teams got >= 95% of owed; worst [^ ]+ [0-9.]+%$' ||
		bad "$f: no 'budgets honoured' last line: $(tail -n 1 "$f")"
	grep -q '^verdict (target: each team gets >= 95% of the GPU-hours owed' "$f" || bad "$f: no verdict heading"
	grep -Eq '^  physics/phys-a +owed .*%  (met|MISSED)$' "$f" || bad "$f: no mark for physics/phys-a"
	# the verdict comes after the report's other lines
	[ "$(grep -n '^verdict' "$f" | cut -d: -f1)" -gt "$(grep -n '^all teams over the window' "$f" | cut -d: -f1)" ] ||
		bad "$f: the verdict is not after the report's lines"
done
grep -Eq '^  job 3 \(physics/phys-b, 16 GPUs, allocated\): never started, waited 48.0m: Resources: needs 16 gres/gpu, 0 idle, 0 preemptable by it now' "$tmp/v.txt" ||
	bad "budget: job 3 not named with show job's words: $(grep '^  job' "$tmp/v.txt")"
grep -Eq '^  job 7 .*: never started, .*: Priority: [0-9]+ pending job\(s\) of higher priority first \(top: job 3\)' "$tmp/vb.txt" ||
	bad "baseline: job 7 not named with its reason: $(grep '^  job' "$tmp/vb.txt")"
grep -q '"verdict": {' "$tmp/v.json" || bad "no verdict in the JSON"
grep -q '"line": "budgets honoured: ' "$tmp/v.json" || bad "no verdict line in the JSON"
grep -q '"reason": "Resources: needs 16 gres/gpu' "$tmp/v.json" || bad "no job reason in the JSON"
# metrics on the run's segments: the same teams' marks and jobs (the
# reason is the live cluster's to give: none here)
"$sim" metrics --segments "$tmp/vseg.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --window 0:3000 --now 3000 >"$tmp/vm.txt" || bad "metrics on the --until segments"
grep -q '^  job 3 (physics/phys-b, 16 GPUs, allocated): never started, waited 48.0m$' "$tmp/vm.txt" ||
	bad "metrics: job 3 not named: $(grep '^  job' "$tmp/vm.txt")"

# a job that started late is named with why it was waiting 2 h after its
# submission (the simulation itself unchanged by asking): job 1 holds the
# 8 GPUs 3 h; job 2 waits behind it
printf 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority\n0,10800,8,a,u,3600,yes,512\n10,3600,8,a,u,3600,yes,512\n20,3600,8,b,u,3600,yes,512\n' >"$tmp/lw.csv"
printf 'a 1\nb 1\n' >"$tmp/lw.tree"
"$sim" --jobs "$tmp/lw.csv" --tree "$tmp/lw.tree" --nodes 1 --gpus-per-node 8 >"$tmp/lw.txt" || bad "long-wait run"
grep -q '^  job 2 (a, 8 GPUs, allocated): started after 4.00h; waiting at 2.00h: Priority: 1 pending job(s) of higher priority first (top: job 1); needs 8 gres/gpu, 0 idle, 0 preemptable by it now$' "$tmp/lw.txt" ||
	bad "a late job not named with why it waited: $(grep '^  job' "$tmp/lw.txt")"
# --waits: the reasons the live cluster gave (the demo: `sbudget show
# job`), named in the verdict; a job not in the segments, a line without
# '|', and --waits outside metrics are refused
printf '3|Resources: needs 16 gres/gpu, 0 idle\n\n# a comment\n' >"$tmp/w.txt"
"$sim" metrics --segments "$tmp/vseg.csv" --tree "$data/sim-small.tree" \
	--gpus 16 --window 0:3000 --now 3000 --waits "$tmp/w.txt" >"$tmp/vw.txt" || bad "metrics --waits"
grep -q '^  job 3 (physics/phys-b, 16 GPUs, allocated): never started, waited 48.0m: Resources: needs 16 gres/gpu, 0 idle$' "$tmp/vw.txt" ||
	bad "metrics --waits: job 3 not named with its reason: $(grep '^  job' "$tmp/vw.txt")"
printf '99|x\n' >"$tmp/w2.txt"
expect2 "w2.txt:1: job '99' is not in the segments" metrics --segments "$tmp/vseg.csv" \
	--tree "$data/sim-small.tree" --gpus 16 --waits "$tmp/w2.txt"
printf 'x\n' >"$tmp/w3.txt"
expect2 "w3.txt:1: 'x': not JOB|REASON" metrics --segments "$tmp/vseg.csv" \
	--tree "$data/sim-small.tree" --gpus 16 --waits "$tmp/w3.txt"
expect2 "run: --waits is an option of metrics" --waits "$tmp/w.txt"

# the restart backoff: u (unallocated, not resumable) is preempted by b's
# jobs at 50 s and 300 s; its first restart waits the requeue delay
# (121 s), its second twice that (242 s); UnallocatedRestartBackoffMax=0
# gives 121 s both times; a resumable u resumes, and waits 121 s each time
printf 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority\n0,10000,2,a,u,0,no,512\n50,100,2,b,u,10,yes,512\n300,100,2,b,u,10,yes,512\n' >"$tmp/bo.csv"
printf 'UnallocatedRestartBackoffMax=0\n' >"$tmp/bo0.conf"
"$sim" --jobs "$tmp/bo.csv" --tree "$tmp/ab.tree" --nodes 1 --gpus-per-node 2 --quiet --segments "$tmp/bo.seg" || bad "backoff table"
"$sim" --jobs "$tmp/bo.csv" --tree "$tmp/ab.tree" --nodes 1 --gpus-per-node 2 --conf "$tmp/bo0.conf" --quiet --segments "$tmp/bo0.seg" || bad "backoff table, backoff off"
# the waits between one run's end and the next start of job 1
waits() { awk -F, 'NR > 1 && $1 == 1 { if (end != "") { printf "%s%d", sep, $6 - end; sep = " " } end = $7 } END { print "" }' "$1"; }
[ "$(waits "$tmp/bo.seg")" = "121 242" ] || bad "backoff: job 1's waits are '$(waits "$tmp/bo.seg")', not '121 242': $(cat "$tmp/bo.seg")"
[ "$(waits "$tmp/bo0.seg")" = "121 121" ] || bad "backoff off: job 1's waits are '$(waits "$tmp/bo0.seg")', not '121 121'"
grep -q '^1,a,2,0,0,0,50,1,0,0,0,restarted$' "$tmp/bo.seg" || bad "backoff: job 1 is not preempted at 50 s (the fixture needs adjusting): $(cat "$tmp/bo.seg")"
# a resumable u backs off the same way (it resumes its work each time)
sed 's/^0,10000,2,a,u,0,no,/0,10000,2,a,u,0,yes,/' "$tmp/bo.csv" >"$tmp/bor.csv"
"$sim" --jobs "$tmp/bor.csv" --tree "$tmp/ab.tree" --nodes 1 --gpus-per-node 2 --quiet --segments "$tmp/bor.seg" --json "$tmp/bor.json" || bad "backoff table, resumable"
[ "$(waits "$tmp/bor.seg")" = "121 242" ] || bad "backoff: resumable job 1's waits are '$(waits "$tmp/bor.seg")', not '121 242'"
# the preemption bound (sb_preempt_min_gap()): u's second preemption
# (300 s) came 250 s after its first (50 s), the bound is the first
# restart's wait, 121 s
b=$(tr -d ' \n' <"$tmp/bor.json" | grep -o '"preemption_bound":{[^}]*}')
[ "$b" = '"preemption_bound":{"repeat_preemptions":1,"sooner":0,"tightest_ratio":2.0661}' ] || bad "preemption bound: $b"
out=$("$sim" --jobs "$tmp/bor.csv" --tree "$tmp/ab.tree" --nodes 1 --gpus-per-node 2 | grep '^preemption bound')
[ "$out" = "preemption bound (sb_preempt_min_gap()): 0 of 1 repeat preemptions came sooner; the closest came at 2.07x the bound" ] || bad "preemption bound line: '$out'"
# a tree of 200,000 budgets, every one listed
awk 'BEGIN { for (i = 0; i < 200000; i++) print "a" i, 1 }' >"$tmp/wide.tree"
n=$(timeout 300 "$sim" tree --tree "$tmp/wide.tree" | wc -l)
[ "$n" -eq 200001 ] || bad "tree of 200,000 budgets: $n lines (failed, or hung: 300 s)"
exit $fail
