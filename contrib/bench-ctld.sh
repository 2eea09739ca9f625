#!/usr/bin/env bash
# contrib/bench-ctld.sh - cost of the priority recalculation inside a real
# slurmctld: priority/budget against priority/multifactor on the same jobs.
#
# Usage: contrib/bench-ctld.sh [--jobs N] [--accounts N] [--window S]
#   --jobs N      pending jobs (default 50000), parked in a DOWN partition
#   --accounts N  budget accounts the jobs are spread over (default 1000;
#                 root gets an association in each)
#   --window S    seconds of slurmctld CPU time measured per case (default 120)
# Method: slurmctld's CPU time (utime+stime, /proc) over the window with the
# jobs, minus the same without them, divided by the recalculations in the
# window (priority/budget: CalcPeriod=5 s; multifactor: PriorityCalcPeriod=1
# minute).  Meanwhile `squeue` is timed every 2 s: it must keep answering.
# Uses its own cluster directory (recreated on every run) and ports, so the
# test cluster may stay up.
# Writes a summary to stdout; see doc/benchmarks.md for results.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
jobs=50000 accounts=1000 window=120
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--accounts) accounts=${2:?--accounts needs a number}; shift 2 ;;
	--window) window=${2:?--window needs seconds}; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "bench-ctld.sh: unknown argument '$1' (accepted: --jobs N, --accounts N, --window S, --help)" >&2; exit 2 ;;
	esac
done
for v in "$jobs" "$accounts" "$window"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "bench-ctld.sh: '$v' is not a positive whole number" >&2; exit 2; }
done
[ "$window" -ge 60 ] || { echo "bench-ctld.sh: --window $window is below 60 s, one multifactor cycle" >&2; exit 2; }

export SB_BUILD_DIR=${SB_BUILD_DIR:-$repo/_build}
export SB_CLUSTER_DIR=${SB_BENCH_DIR:-$SB_BUILD_DIR/bench}
# shellcheck source=contrib/bench-lib.sh
. "$repo/contrib/bench-lib.sh"
cluster() { "$repo/contrib/cluster.sh" "$@"; }
trap 'cluster down >/dev/null 2>&1 || true' EXIT
base_extra="$bench_conf_base
SlurmctldDebug=info"

up_with() {	# up_with EXTRA_LINES
	export SB_SLURM_CONF_EXTRA="$base_extra
$1"
	cluster up >/dev/null
	eval "$(cluster env)"
	sleep 5
}

cpu_of_ctld() {	# utime+stime of slurmctld, seconds
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$(head -n 1 "$SB_CLUSTER_DIR/run/slurmctld.pid" | tr -dc '0-9')/stat"
}

measure() {	# measure LABEL -> prints CPU seconds over the window, squeue times
	local c0 c1 t_end lat=()
	c0=$(cpu_of_ctld)
	t_end=$((SECONDS + window))
	while [ "$SECONDS" -lt "$t_end" ]; do
		local s e
		s=$(date +%s.%N); squeue -h -t PD -o %i | wc -l >/dev/null; e=$(date +%s.%N)
		lat+=("$(echo "$e - $s" | bc)")
		sleep 2
	done
	c1=$(cpu_of_ctld)
	printf '%s cpu=%.3f squeue_median=%s squeue_max=%s\n' "$1" "$(echo "$c1 - $c0" | bc)" \
		"$(printf '%s\n' "${lat[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
		"$(printf '%s\n' "${lat[@]}" | sort -n | tail -n 1)"
}

echo "== bench: $jobs pending jobs over $accounts accounts, ${window}s per case" >&2
cluster down >/dev/null 2>&1 || true
rm -rf "$SB_CLUSTER_DIR"
budget_conf="CalcPeriod=5"
up_with ""
printf 'MaxMinRuntime=8:00:00\n%s\n' "$budget_conf" > "$SB_CLUSTER_DIR/budget.conf"
scontrol reconfigure
# accounts bench0001.. under root, root associated with each
bench_tree "$accounts" || exit 1
accts=$(bench_accounts "$accounts")
sleep 3

echo "== baselines without jobs" >&2
b_budget=$(measure budget-empty)
up_with "PriorityType=priority/multifactor
PriorityCalcPeriod=1"
b_multi=$(measure multifactor-empty)

echo "== submitting $jobs jobs" >&2
"$SB_BUILD_DIR/test/bench/bench-submit" "$jobs" parked "$accts" >&2

echo "== with jobs" >&2
m_multi=$(measure multifactor-jobs)
up_with ""
sleep 10
m_budget=$(measure budget-jobs)

awk -v bb="$b_budget" -v bm="$b_multi" -v mb="$m_budget" -v mm="$m_multi" \
    -v w="$window" -v jobs="$jobs" -v acc="$accounts" '
function cpu(s) { split(s, a, "cpu="); split(a[2], b, " "); return b[1] }
BEGIN {
	cb = w / 5; cm = w / 60	# recalculations in the window
	db = cpu(mb) - cpu(bb); dm = cpu(mm) - cpu(bm)
	printf "jobs=%d accounts=%d\n", jobs, acc
	printf "priority/budget:      %.3f CPU-s over the window, %.1f cycles: %.1f ms per cycle\n", db, cb, 1000 * db / cb
	printf "priority/multifactor: %.3f CPU-s over the window, %.1f cycles: %.1f ms per cycle\n", dm, cm, 1000 * dm / cm
	if (dm > 0) printf "ratio budget/multifactor per cycle: %.2f\n", (db / cb) / (dm / cm)
	print "raw: " bb; print "raw: " mb; print "raw: " bm; print "raw: " mm
}'
