#!/usr/bin/env bash
# test/bench/bench-sim.sh - the simulator benchmark (doc/benchmarks.md,
# section 4): 30 simulated days of a 1024-GPU cluster (128 x 8) with 100k
# jobs (test/bench/sim-gen, seed 7, 20 budgets), budget policy, site
# defaults, at two loads: demand 1.3x capacity (the usual case) and 2.5x
# (high load: the queue grows to tens of thousands of jobs).  Runs each
# RUNS times (default 7) and prints each run's simulation time, events/s
# and peak RSS (/usr/bin/time -v), then the medians per load.  Not a test:
# nothing is asserted.
# Usage: test/bench/bench-sim.sh [RUNS [LOADS]]   (LOADS default "1.3 2.5")
# Extra sbudget-sim options (e.g. --backfill greedy): SB_BENCH_SIM_ARGS.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${SB_BUILD_DIR:-$repo/_build}
runs=${1:-7}
loads=${2:-1.3 2.5}
read -r -a extra <<<"${SB_BENCH_SIM_ARGS:-}"
make -C "$build" -s src/sim/sbudget-sim test/bench/sim-gen >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for load in $loads; do
	"$build/test/bench/sim-gen" 100000 30 1024 "$load" 7 "$tmp/tree" >"$tmp/jobs.csv"
	: >"$tmp/all"
	echo "== demand ${load}x capacity"
	for ((i = 0; i < runs; i++)); do
		/usr/bin/time -v "$build/src/sim/sbudget-sim" --jobs "$tmp/jobs.csv" \
			--tree "$tmp/tree" --until 2592000 --quiet --stats \
			${extra[@]+"${extra[@]}"} 2>"$tmp/err.$i"
		sim=$(sed -n 's/^stats: simulation \([0-9.]*\) s wall, \([0-9]*\) events, \([0-9]*\) events\/s.*/\1 \2 \3/p' "$tmp/err.$i")
		wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): 0:\([0-9.]*\)/\1/p' "$tmp/err.$i")
		wall=${wall#0}
		rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$tmp/err.$i")
		echo "run $((i + 1)): simulation ${sim%% *} s, events ${sim#* }, process wall $wall s, peak RSS $rss KiB" | sed 's/events \([0-9]*\) \([0-9]*\)/\1 events, \2 events\/s/'
		echo "${sim%% *} $wall $rss" >>"$tmp/all"
	done
	echo "median of $runs at ${load}x: simulation $(cut -d' ' -f1 "$tmp/all" | median) s," \
		"process wall $(cut -d' ' -f2 "$tmp/all" | median) s," \
		"peak RSS $(cut -d' ' -f3 "$tmp/all" | median) KiB"
done
