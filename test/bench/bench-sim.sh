#!/usr/bin/env bash
# test/bench/bench-sim.sh - the simulator benchmark (doc/benchmarks.md,
# section 4).  Workloads from test/bench/sim-gen, each run under both
# policies, budget and baseline, in the same invocation:
#   1.3x        100k jobs over 30 days on 1,024 GPUs (128 x 8), 20 budgets,
#               demand 1.3x capacity, --until 30 days (the usual case)
#   2.5x        the same at 2.5x (high load: the queue grows to tens of
#               thousands of jobs)
#   teams       many teams, high preemption: 7,400 jobs over 63 days on
#               2,048 GPUs (256 x 8), 156 budgets, 1.5x, run until the
#               queue drains (the shape of a many-team DLRM trace)
#   teams100k   100k jobs over 30 days on 1,024 GPUs, 156 budgets, 1.5x,
#               --until 30 days
#   drain       the 1.3x workload run until its queue drains (no --until:
#               long after the last submission)
# Each RUNS times (default 3); prints each run's simulation time (the
# program's --stats: wall time around the event loop), its CPU time
# (user + sys of the whole process, /usr/bin/time: less sensitive to the
# other work on a shared machine), events and recalculations, then per
# workload the medians, budget and baseline, and budget / baseline.  Not a
# test: nothing is asserted.
# Usage: test/bench/bench-sim.sh [RUNS [CASES]]   (CASES default
#        "1.3x 2.5x teams teams100k drain")
# Extra sbudget-sim options (e.g. --backfill greedy): SB_BENCH_SIM_ARGS;
# another binary (e.g. main's, for before/after): SB_BENCH_SIM_BIN.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${SB_BUILD_DIR:-$repo/_build}
runs=${1:-3}
cases=${2:-1.3x 2.5x teams teams100k drain}
read -r -a extra <<<"${SB_BENCH_SIM_ARGS:-}"
make -C "$build" -s src/sim/sbudget-sim test/bench/sim-gen >/dev/null
sim=${SB_BENCH_SIM_BIN:-$build/src/sim/sbudget-sim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for c in $cases; do
	case "$c" in
	1.3x) gen=(100000 30 1024 1.3 7); nodes=128; until=(--until 2592000) ;;
	2.5x) gen=(100000 30 1024 2.5 7); nodes=128; until=(--until 2592000) ;;
	teams) gen=(7400 63 2048 1.5 3 156); nodes=256; until=() ;;
	teams100k) gen=(100000 30 1024 1.5 7 156); nodes=128;
		until=(--until 2592000) ;;
	drain) gen=(100000 30 1024 1.3 7); nodes=128; until=() ;;
	*) echo "bench-sim.sh: unknown case '$c'" >&2; exit 2 ;;
	esac
	"$build/test/bench/sim-gen" "${gen[@]:0:5}" "$tmp/tree" \
		"${gen[@]:5}" >"$tmp/jobs.csv"
	echo "== $c: sim-gen ${gen[*]}, --nodes $nodes ${until[*]}"
	for pol in budget baseline; do
		: >"$tmp/all.$pol"
		for ((i = 0; i < runs; i++)); do
			/usr/bin/time -f 'cpu %U %S' "$sim" run \
				--jobs "$tmp/jobs.csv" --tree "$tmp/tree" \
				--nodes "$nodes" --policy "$pol" \
				${until[@]+"${until[@]}"} --quiet --stats \
				--json "$tmp/out.json" \
				${extra[@]+"${extra[@]}"} 2>"$tmp/err"
			s=$(sed -n 's/^stats: simulation \([0-9.]*\) s wall, \([0-9]*\) events.*/\1 \2/p' "$tmp/err")
			cpu=$(awk '/^cpu / { printf "%.2f", $2 + $3 }' "$tmp/err")
			rc=$(sed -n 's/.*"recalculations": *\([0-9]*\).*/\1/p' "$tmp/out.json")
			echo "$pol run $((i + 1)): simulation ${s%% *} s, CPU $cpu s, events ${s#* }, recalculations ${rc:-?}"
			echo "${s%% *} $cpu" >>"$tmp/all.$pol"
		done
	done
	bs=$(cut -d' ' -f1 "$tmp/all.budget" | median)
	bc=$(cut -d' ' -f2 "$tmp/all.budget" | median)
	ls=$(cut -d' ' -f1 "$tmp/all.baseline" | median)
	lc=$(cut -d' ' -f2 "$tmp/all.baseline" | median)
	echo "median of $runs, $c: budget simulation $bs s (CPU $bc s);" \
		"baseline simulation $ls s (CPU $lc s);" \
		"budget / baseline $(awk -v a="$bs" -v b="$ls" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" \
		"(CPU $(awk -v a="$bc" -v b="$lc" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'))"
done
