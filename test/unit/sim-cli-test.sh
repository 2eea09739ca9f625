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
sed -n '/"report"/,$p' "$tmp/a.json" | grep -E '"(p50_s|p90_s|p99_s|occupancy|delivered_gpu_hours|preemptions|lost_gpu_hours)"' >"$tmp/r1"
sed -n '/"report"/,$p' "$tmp/m.json" | grep -E '"(p50_s|p90_s|p99_s|occupancy|delivered_gpu_hours|preemptions|lost_gpu_hours)"' >"$tmp/r2"
[ -s "$tmp/r1" ] || bad "no report figures"
cmp -s "$tmp/r1" "$tmp/r2" || { bad "run and metrics disagree"; diff "$tmp/r1" "$tmp/r2"; }

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
printf 'submit_time_s,duration_s,gpus,team\n0,10,x,a\n' >"$tmp/bad.csv"
expect2 "bad.csv:2:" --jobs "$tmp/bad.csv" --tree "$data/sim-small.tree"
exit $fail
