#!/usr/bin/env bash
# contrib/scenarios/compare.sh SIM.csv LIVE.csv - per job of two segment
# files (sbudget-sim --segments, fidelity-live.sh): first start, runs and
# preemptions side by side, and the start order of each (jobs by first
# start, ties by job number).  Lines marked '*' differ.
set -euo pipefail
sim=${1:?usage: $0 SIM.csv LIVE.csv} live=${2:?usage: $0 SIM.csv LIVE.csv}
summ() {	# job first_start runs preemptions
	awk -F, 'NR > 1 && $6 != "" {
		j = $1; if (!(j in f) || $6 < f[j]) f[j] = $6; r[j]++; p[j] += ($8 > 0)
	} END { for (j in f) print j, f[j], r[j], p[j] }' "$1" | sort -n
}
order() { summ "$1" | sort -k2,2n -k1,1n | awk '{ printf "%s%s", sep, $1; sep = " " } END { print "" }'; }
echo "job  sim:start runs preempted   live:start runs preempted"
join <(summ "$sim") <(summ "$live") | awk '{
	d = ($2 != $5 || $4 != $7) ? "*" : " "
	printf "%s%3d  %9d %4d %9d   %10d %4d %9d\n", d, $1, $2, $3, $4, $5, $6, $7 }'
echo "start order, sim:  $(order "$sim")"
echo "start order, live: $(order "$live")"
