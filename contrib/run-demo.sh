#!/usr/bin/env bash
# contrib/run-demo.sh - the main job: a local GPU cluster with the
# slurm-budget plugins, a workload replayed through it with time compressed,
# and a report of what happened.
#
# Usage: contrib/run-demo.sh [options]
#   --trace FILE       replay this job table: CSV with a header naming
#                      submit_time_s,duration_s,gpus,team (optional
#                      min_runtime_s,resumable,priority) or SWF; default: the
#                      built-in scenario contrib/scenarios/demo.csv
#   --tree FILE        budget tree ('path shares' lines, sacctmgr output or a
#                      Helios per-team GPU table); default: the scenario's own
#                      tree, or with --trace ../shared/data/traces'
#                      helios_venus_cluster_gpu_number.csv beside the project
#   --time-scale F     trace seconds per wall second (default 20)
#   --from S --span S  replay the trace's jobs submitted in [S, S+span)
#   --max-jobs N       at most N jobs
#   --seed N           seed of the assignment of teams and contracts a trace
#                      lacks (default 1)
#   --gpus N           use N of the cluster's 32 GPUs (a multiple of 8; the
#                      other nodes are drained for the demo; default 32)
#   --max-wall S       wall seconds to let jobs finish after the last
#                      submission (default 150)
#   --out DIR          where the job table, segments and report go
#                      (default <cluster dir>/demo/NAME-<UTC time>, NAME
#                      the trace's file name or 'scenario'; demo/latest
#                      links the newest)
#   --slurm RELEASE    run it on Slurm 22.05 (default; $SB_SLURM), 24.11,
#                      25.11 or 26.05 (built once by contrib/setup.sh --slurm
#                      RELEASE; its own build tree <repo>/_build-RELEASE,
#                      cluster and ports)
#   --no-build         use the existing build in $SB_BUILD_DIR (<repo>/_build,
#                      <repo>/_build-RELEASE with --slurm RELEASE)
#   --yes, --force     replay even if it takes longer than 2 hours of wall
#                      time (estimated before the cluster comes up: the
#                      workload's submit span / --time-scale + --max-wall;
#                      without it such a replay is refused, saying how to
#                      slice it)
# Teams and contracts missing from the trace are assigned by sbudget-sim
# convert (seeded) and listed.  The report comes from `sbudget-sim metrics`:
# the simulator's own metric code over the runs slurmdbd recorded.  The
# cluster is left running (`contrib/cluster.sh down` stops it).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=contrib/slurm-release.sh
. "$repo/contrib/slurm-release.sh"
do_build=1 trace='' tree='' scale=20 from='' span='' max_jobs='' seed=1 gpus=32 max_wall=150 out='' force=0
wall_limit=7200	# seconds of wall time a replay may take without --yes
die() { echo "run-demo.sh: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"; }
# decimal, no leading zero (bash reads 08 as octal), at most 9 digits (no overflow)
posint() { [[ "$2" =~ ^(0|[1-9][0-9]{0,8})$ ]] || die "$1 '$2' is not accepted: give a whole number of ${3:-seconds}"; }
positive() { posint "$@"; [ "$2" -gt 0 ] || die "$1 '$2' is not accepted: give a number of ${3:-seconds} above 0"; }
file() { [ -f "$2" ] && [ -r "$2" ] || die "$1 '$2': not a readable file"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) do_build=0; shift ;;
	--slurm) need "$@"; sb_release_ok "$2" || die "--slurm '$2' is not accepted: give ${SB_RELEASES// /, }"
		export SB_SLURM=$2; shift 2 ;;
	--yes|--force) force=1; shift ;;
	--trace) need "$@"; trace=$2; shift 2 ;;
	--tree) need "$@"; tree=$2; shift 2 ;;
	--time-scale) need "$@"; [[ "$2" =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "$(awk -v v="$2" 'BEGIN{print (v > 0)}')" = 1 ] ||
		die "--time-scale '$2' is not accepted: give a positive number"; scale=$2; shift 2 ;;
	--from) need "$@"; posint "$1" "$2"; from=$2; shift 2 ;;
	--span) need "$@"; positive "$1" "$2"; span=$2; shift 2 ;;
	--max-jobs) need "$@"; positive "$1" "$2" jobs; max_jobs=$2; shift 2 ;;
	--seed) need "$@"; posint "$1" "$2" "(seed)"; seed=$2; shift 2 ;;
	--gpus) need "$@"; posint "$1" "$2" GPUs; gpus=$2
		{ [ "$gpus" -ge 8 ] && [ "$gpus" -le 32 ] && [ $((gpus % 8)) = 0 ]; } ||
			die "--gpus '$gpus' is not accepted: give 8, 16, 24 or 32"; shift 2 ;;
	--max-wall) need "$@"; positive "$1" "$2"; max_wall=$2; shift 2 ;;
	--out) need "$@"; out=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
if [ -n "$trace" ]; then
	file --trace "$trace"
	trace=$(realpath "$trace")
	if [ -z "$tree" ]; then
		tree=$repo/../shared/data/traces/helios_venus_cluster_gpu_number.csv
		[ -r "$tree" ] || die "--trace needs --tree FILE (no Helios table at $tree)"
	fi
else
	[ -z "$from$span$max_jobs" ] || die "--from, --span and --max-jobs slice a --trace"
	tree=${tree:-$repo/contrib/scenarios/demo.tree}
fi
file --tree "$tree"
tree=$(realpath "$tree")
if [ -n "$out" ]; then
	mkdir -p "$out" 2>/dev/null && [ -w "$out" ] || die "--out '$out': cannot create or write to it"
fi

t0=$SECONDS
if [ "$do_build" = 1 ]; then
	echo "== setting up and building (contrib/build.sh)"
	SB_BUILD_DIR=$("$repo/contrib/build.sh" | tail -n 1)
fi
export SB_BUILD_DIR=${SB_BUILD_DIR:-$(sb_release_build_dir "$repo" "${SB_SLURM:-22.05}")}
sim=$SB_BUILD_DIR/src/sim/sbudget-sim
[ -x "$sim" ] || die "no $sim: build first (without --no-build)"
# the cluster path (cluster.sh env only prints it), then everything that can
# be refused without a cluster: the trace and the tree, before bringing it up
eval "$("$repo/contrib/cluster.sh" env)"
# Each run its own directory (a trace demo does not overwrite the
# scenario's), named by what it replays and when; demo/latest points at it.
if [ -z "$out" ]; then
	name=scenario
	[ -z "$trace" ] || name=$(basename "$trace" | sed 's/\.[^.]*$//' | tr -c 'A-Za-z0-9_.\n-' '_')
	out=$SB_CLUSTER_DIR/demo/$name-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$out"
	ln -sfn "$(basename "$out")" "$SB_CLUSTER_DIR/demo/latest"
fi
mkdir -p "$out"
out=$(realpath "$out")
echo
echo "== the workload"
jobs=$out/jobs.csv
if [ -n "$trace" ]; then
	conv=("$sim" convert --jobs "$trace" --tree "$tree" --seed "$seed"
	      --max-gpus "$gpus" --gpus-per-node 8 --out "$jobs")
	[ -n "$from" ] && conv+=(--from "$from")
	[ -n "$span" ] && conv+=(--span "$span")
	[ -n "$max_jobs" ] && conv+=(--max-jobs "$max_jobs")
	echo "   $(basename "$trace"), tree $(basename "$tree"): ${conv[*]:1}"
	if ! "${conv[@]}" 2>"$out/convert.log"; then
		if grep -q "is not a budget of the tree" "$out/convert.log"; then
			echo "   the trace's teams are not budgets of the tree: assigning teams (seeded)"
			conv+=(--assign-teams)
			"${conv[@]}" 2>"$out/convert.log" || { cat "$out/convert.log" >&2; exit 2; }
		else
			cat "$out/convert.log" >&2; exit 2
		fi
	fi
	sed 's/^/   /' "$out/convert.log"
else
	cp "$repo/contrib/scenarios/demo.csv" "$jobs"
	echo "   built-in scenario contrib/scenarios/demo.csv: $(($(wc -l <"$jobs") - 1)) jobs, teams" \
		"vision:nlp:speech with RawShares 3:2:1; best-effort sweeps (unallocated), large" \
		"training, fine-tuning, and debug jobs (1-2 GPUs)"
	echo "   (every allocated job's min runtime is at most 10 min: the report's debug class," \
		"<= 8 GPUs and min runtime <= 15 min, holds all allocated jobs of up to 8 GPUs)"
fi
"$sim" tree --tree "$tree" >"$out/tree.txt" || die "--tree '$tree': sbudget-sim tree refused it (message above)"
# the wall time of the replay: submit span / time scale + --max-wall
read -r njobs first last < <(awk -F, 'NR > 1 && $1 != "" { n++; if (n == 1 || $1 < a) a = $1; if (n == 1 || $1 > b) b = $1 }
	END { print n + 0, a + 0, b + 0 }' "$jobs")
est=$(awk -v s="$((last - first))" -v f="$scale" -v m="$max_wall" 'BEGIN { printf "%d", s / f + m }')
echo "   $njobs jobs submitted over $((last - first)) trace seconds: at x$scale about $((est / 60)) min of wall time"
if [ "$est" -gt "$wall_limit" ] && [ "$force" = 0 ]; then
	sug=$(awk -v f="$scale" 'BEGIN { printf "%d", 3600 * f }')
	die "replaying this takes about $((est / 3600)) h $((est % 3600 / 60)) min of wall time (over the $((wall_limit / 3600)) h limit):" \
		"slice the trace with --from S --span S (e.g. --span $sug for about an hour at x$scale) or --max-jobs N," \
		"raise --time-scale, or pass --yes to replay it all"
fi

echo "== bringing up the local cluster: 4 nodes x 8 GPUs (contrib/cluster.sh up)"
"$repo/contrib/cluster.sh" up
work=$SB_CLUSTER_DIR/work
as() { local u=$1; shift; (cd "$work" && runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"); }

echo
echo "== the contract at submit: refused, each message says what to do"
refuse() {	# refuse USER ARGS...
	local u=$1 msg; shift
	if msg=$(as "$u" sbatch -o /dev/null "$@" --wrap true 2>&1); then
		echo "   UNEXPECTED: accepted: $u sbatch $*"; return
	fi
	printf '   %-8s sbatch %-26s -> %s\n' "$u" "$*" "$(grep -m1 'budget' <<<"$msg" | sed 's/^sbatch: error: //')"
}
refuse sb-alice -G 1
refuse sb-alice -G 1 --min-runtime=2h
refuse sb-alice -G 1 --min-runtime=9:00:00
refuse sb-carol -G 1 --min-runtime=1:00:00
echo "   ... and an accepted job that may lose its work is told so (held, then cancelled):"
if noted=$(as sb-alice sbatch --parsable -o /dev/null --hold -G 1 --min-runtime=1:00:00 -t 4:00:00 \
	--wrap true 2>"$work/demo-note.err"); then
	scancel "${noted%%;*}"
	printf '   %-8s sbatch %-26s -> %s\n' sb-alice "-G 1 --min-runtime=1:00:00 -t 4:00:00" \
		"$(grep -m1 'budget' "$work/demo-note.err" | sed 's/^sbatch: //')"
else
	echo "   UNEXPECTED: refused: $(cat "$work/demo-note.err")"
fi


if [ "$gpus" -lt 32 ]; then
	drain=$(printf 'gpu%02d,' $(seq $((gpus / 8 + 1)) 4)); drain=${drain%,}
	echo "   using $gpus GPUs: draining $drain for the demo"
	scontrol update nodename="$drain" state=drain reason="run-demo: cluster reduced to $gpus GPUs"
	trap 'scontrol update nodename="$drain" state=resume 2>/dev/null || true' EXIT
fi

echo
echo "== replaying through slurmctld (time x1/$scale; contrib/replay.sh)"
"$repo/contrib/replay.sh" --jobs "$jobs" --tree "$out/tree.txt" --segments "$out/segments.csv" \
	--waits "$out/waits.txt" --time-scale "$scale" --max-wall "$max_wall" 2>&1 | sed 's/^/   /'
sleep 2

echo
echo "== report: sbudget-sim metrics over the runs slurmdbd recorded (trace seconds)"
echo "   (last, the verdict: each team's delivered of owed against the target, >= 95%;"
echo "   the jobs never started or started late, named with why: \`sbudget show job\`'s"
echo "   WaitsFor, asked of slurmctld before --max-wall cancelled them; budgets honoured)"
"$sim" metrics --segments "$out/segments.csv" --tree "$out/tree.txt" --gpus "$gpus" \
	--waits "$out/waits.txt" --json "$out/report.json" | sed 's/^/   /'
echo
echo "== done in $((SECONDS - t0)) s; files in $out (jobs.csv, segments.csv, waits.txt, report.json)"
rel=${SB_SLURM:+SB_SLURM=$SB_SLURM }
echo "   the cluster is still up: eval \"\$(${rel}contrib/cluster.sh env)\"; sshare -a; sacct -X -D"
echo "   ${rel}contrib/cluster.sh down    # to stop it"
