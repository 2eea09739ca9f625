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
used=$(sed -n 's/.*"used_gpu_hours": \([0-9.]*\).*/\1/p' "$tmp/n.json" | head -n 1)
sed -n '/"report"/,/"teams"/p' "$tmp/n.json" | grep -q "\"unallocated_gpu_hours\": $used" || bad "no contract: not all unallocated"

# convert writes all eight columns, and reads back
"$sim" convert --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
	--assign-teams --seed 7 --out "$tmp/conv.csv" 2>"$tmp/conv.err" || bad "convert"
head -n 1 "$tmp/conv.csv" | grep -qx 'submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority' || bad "convert header"
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
# a tree deeper than the policy core handles (64 levels) is refused
awk 'BEGIN { p = "a"; print p, 1; for (i = 0; i < 70; i++) { p = p "/n" i; print p, 1 } }' >"$tmp/deep.tree"
printf 'submit_time_s,duration_s,gpus,team\n0,10,1,a\n' >"$tmp/one.csv"
expect2 "71 levels" --jobs "$tmp/one.csv" --tree "$tmp/deep.tree"
printf 'submit_time_s,duration_s,gpus,team\n0,10,x,a\n' >"$tmp/bad.csv"
expect2 "bad.csv:2:" --jobs "$tmp/bad.csv" --tree "$data/sim-small.tree"
exit $fail
