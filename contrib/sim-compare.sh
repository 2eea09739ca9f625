#!/usr/bin/env bash
# contrib/sim-compare.sh - baseline vs budget side by side with sbudget-sim.
#
# Usage: contrib/sim-compare.sh OUTDIR SBUDGET-SIM-ARGS...
#   Runs `sbudget-sim run ARGS --policy baseline` and `... --policy budget`,
#   writes OUTDIR/{baseline,budget}.{json,txt} (and the charts
#   OUTDIR/{baseline,budget}-{gpus,teams}.svg), and prints the lines that
#   matter: debug waits, delivered/owed, worst team, occupancy, preemptions;
#   then the two verdicts side by side (each team's delivered of owed
#   against the target, >= 95%, met or MISSED; the jobs never started or
#   long-waiting, named with why; "budgets honoured: yes|no").
#   The simulator: $SBUDGET_SIM, else $SB_BUILD_DIR/src/sim/sbudget-sim
#   (SB_BUILD_DIR default <repo>/_build, as contrib/build.sh).
# Example (doc/sim.md, "Alibaba trace with Helios budgets"):
#   contrib/sim-compare.sh /tmp/ali \
#     --jobs ../shared/data/traces/alibaba_gpu_v2023_openb.csv \
#     --tree ../shared/data/traces/helios_venus_cluster_gpu_number.csv \
#     --assign-teams --seed 1 --from 9938242 --span 2963520 --until 2963520 \
#     --nodes 2 --gpus-per-node 8
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
# the build in $SB_BUILD_DIR (as contrib/build.sh), or $SBUDGET_SIM
sim=${SBUDGET_SIM:-${SB_BUILD_DIR:-$repo/_build}/src/sim/sbudget-sim}
[ -x "$sim" ] || { echo "sim-compare.sh: no $sim: build first (contrib/build.sh; SB_BUILD_DIR=$SB_BUILD_DIR), or set SBUDGET_SIM" >&2; exit 2; }
out=${1:?usage: $0 OUTDIR SBUDGET-SIM-ARGS...}
shift
mkdir -p "$out"
for p in baseline budget; do
	"$sim" run "$@" --policy "$p" --json "$out/$p.json" \
		--svg-gpus "$out/$p-gpus.svg" --svg-teams "$out/$p-teams.svg" \
		>"$out/$p.txt"
done
for p in baseline budget; do
	echo "== $p"
	# the waits of all jobs, then of allocated and unallocated jobs apart
	# (compare these: the budget policy serves allocated jobs first)
	grep -E '^queue wait|^  (all|debug|large|small) |^occupancy|^preemptions|^  of allocated jobs|^cancelled runs|^all teams|^worst team' "$out/$p.txt"
done
# the verdicts side by side: a team per line, then each policy's jobs and
# its "budgets honoured" line (the verdict is the report's last section)
for p in baseline budget; do
	sed -n '/^verdict (target/,$p' "$out/$p.txt" >"$out/$p-verdict.txt"
done
echo "== $(sed -n 1p "$out/budget-verdict.txt")"
awk '
	# "  TEAM  owed ... GPU-h, delivered ...:  XX.X%  met|MISSED", or
	# "  TEAM  owed nothing: not judged"
	function mark(line,   m, w) {
		if (line ~ /owed nothing/)
			return "owed nothing"
		m = line
		sub(/^.*: +/, "", m)
		split(m, w, / +/)
		return sprintf("%6s %s", w[1], w[2])
	}
	FNR == 1 { f++ }
	/^  [^ ]/ && / owed / && !/^  job / && !/^  and / {
		name = $1
		if (!(name in seen)) { seen[name] = 1; order[++n] = name }
		v[f, name] = mark($0)
	}
	END {
		printf "  %-32s %-20s %s\n", "team", "baseline", "budget"
		for (i = 1; i <= n; i++)
			printf "  %-32s %-20s %s\n", order[i], \
				((1, order[i]) in v ? v[1, order[i]] : "-"), \
				((2, order[i]) in v ? v[2, order[i]] : "-")
	}' "$out/baseline-verdict.txt" "$out/budget-verdict.txt"
for p in baseline budget; do
	printf '%-9s %s\n' "$p:" "$(grep '^jobs never started' "$out/$p-verdict.txt")"
	grep -E '^  (job |and )' "$out/$p-verdict.txt" || true
done
for p in baseline budget; do
	printf '%-9s %s\n' "$p:" "$(tail -n 1 "$out/$p-verdict.txt")"
done
