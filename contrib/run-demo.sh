#!/usr/bin/env bash
# contrib/run-demo.sh - the main job: a local GPU cluster with the
# slurm-budget plugins, a small mixed workload replayed through real sbatch,
# srun and salloc, and a report of what happened.
#
# Usage: contrib/run-demo.sh [--no-build] [--help]
#   --no-build   use the existing build in $SB_BUILD_DIR (default <repo>/_build)
# The cluster is left running afterwards (`contrib/cluster.sh down` stops it).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
do_build=1
while [ $# -gt 0 ]; do
	case "$1" in
	--no-build) do_build=0; shift ;;
	-h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run-demo.sh: unknown argument '$1' (accepted: --no-build, --help)" >&2; exit 2 ;;
	esac
done

t0=$SECONDS
if [ "$do_build" = 1 ]; then
	echo "== setting up and building (contrib/build.sh)"
	SB_BUILD_DIR=$("$repo/contrib/build.sh" | tail -n 1)
fi
export SB_BUILD_DIR=${SB_BUILD_DIR:-$repo/_build}
echo "== bringing up the local cluster: 4 nodes x 8 GPUs (contrib/cluster.sh up)"
"$repo/contrib/cluster.sh" up
eval "$("$repo/contrib/cluster.sh" env)"
work=$SB_CLUSTER_DIR/work
as() { local u=$1; shift; (cd "$work" && runuser -u "$u" -- env SLURM_CONF="$SLURM_CONF" "$@"); }

ids=()
sub() {	# sub USER LABEL ARGS... : submit, remember the job id
	local u=$1 label=$2 id; shift 2
	id=$(as "$u" sbatch --parsable -o /dev/null -J "$label" "$@" | cut -d';' -f1)
	ids+=("$id")
	printf '   %-8s %-9s job %-5s %s\n' "$u" "$label" "$id" "$*"
}

echo
echo "== submitting a mixed workload"
sub sb-alice  train     --min-runtime=0:30 --resumable -N 2 --gpus-per-node=8 --wrap 'sleep 20'
sub sb-bob    finetune  --min-runtime=0:20 -G 8 --wrap 'sleep 15'
sub sb-carol  sweep     --min-runtime=0 --resumable -G 4 --wrap 'sleep 10'
sub sb-carol  sweep     --min-runtime=0 -G 4 --wrap 'sleep 10'
sub sb-dave   eval      --min-runtime=0:10 -G 2 --wrap 'sleep 8'
sub sb-bob    debug     --min-runtime=0:15 -G 1 --wrap 'sleep 3'
sub sb-alice  debug     --min-runtime=0:15 -G 1 --wrap 'sleep 3'
sub sb-alice  wide      --min-runtime=0:10 -N 4 --gpus-per-node=8 --wrap 'sleep 5'
echo "   sb-alice  srun      $(as sb-alice srun -J srun-debug --min-runtime=0:05 -G 1 hostname) (interactive step, ran to completion)"

echo
echo "== refused at submit (each message says what to do)"
refuse() {	# refuse USER ARGS...
	local u=$1 out; shift
	if out=$(as "$u" sbatch -o /dev/null "$@" --wrap true 2>&1); then
		echo "   UNEXPECTED: accepted: $u sbatch $*"; return
	fi
	printf '   %-8s sbatch %-26s -> %s\n' "$u" "$*" "$(grep -m1 'budget' <<<"$out" | sed 's/^sbatch: error: //')"
}
refuse sb-alice -G 1
refuse sb-alice -G 1 --min-runtime=2h
refuse sb-alice -G 1 --min-runtime=9:00:00
refuse sb-carol -G 1 --min-runtime=1:00:00

echo
echo "== waiting for the workload to finish"
deadline=$((SECONDS + 180))
while [ -n "$(squeue -h -j "$(IFS=,; echo "${ids[*]}")" -o %i 2>/dev/null)" ]; do
	[ "$SECONDS" -lt "$deadline" ] || { echo "   still running after 180 s; reporting what finished"; break; }
	sleep 2
done
sleep 2	# let slurmdbd receive the last records

echo
echo "== report (from slurmdbd via sacct)"
printf '   %-5s %-8s %-9s %-8s %-12s %-9s %4s %5s %6s %7s %s\n' JOB USER NAME ACCOUNT KIND MINRUN RESUM GPUS WAIT_S RUN_S STATE
sacct -n -X -P -j "$(IFS=,; echo "${ids[*]}")" \
	-o JobID,User,JobName,Account,AdminComment,AllocTRES,Submit,Start,Elapsed,State |
while IFS='|' read -r id user name acct ac tres submit start elapsed state; do
	mr=$(sed -n 's/.*min_runtime=\([0-9]*\).*/\1/p' <<<"$ac")
	res=$(sed -n 's/.*resumable=\([a-z]*\).*/\1/p' <<<"$ac")
	kind=unallocated; [ "${mr:-0}" -gt 0 ] && kind=allocated
	[ "${mr:-0}" -gt 0 ] && [ "${mr:-0}" -le 900 ] && [[ "$name" == debug* ]] && kind="alloc/debug"
	gpus=$(sed -n 's/.*gres\/gpu=\([0-9]*\).*/\1/p' <<<"$tres")
	wait=-; [ "$start" != Unknown ] && [ "$start" != None ] && wait=$(( $(date -d "$start" +%s) - $(date -d "$submit" +%s) ))
	run=$(awk -F: '{print $1*3600+$2*60+$3}' <<<"$elapsed")
	printf '   %-5s %-8s %-9s %-8s %-12s %-9s %4s %5s %6s %7s %s\n' "$id" "$user" "$name" "$acct" "$kind" "${mr:-?}s" "${res:-?}" "${gpus:-0}" "$wait" "$run" "$state"
done
echo
echo "   GPU-seconds by account (allocated jobs are charged; unallocated are free):"
sacct -n -X -P -j "$(IFS=,; echo "${ids[*]}")" -o Account,AdminComment,AllocTRES,ElapsedRaw |
awk -F'|' '{ g=0; if (match($3, /gres\/gpu=[0-9]+/)) g=substr($3, RSTART+9, RLENGTH-9);
	     k = ($2 ~ /allocated=yes/) ? "allocated" : "unallocated";
	     s[$1 " " k] += g * $4 }
	   END { for (a in s) printf "     %-22s %8d GPU-s\n", a, s[a] }' | sort
echo
echo "   Budgets as priority/budget sees them (sshare; RawUsage = windowed allocated"
echo "   GPU-seconds, FairShare = standing, 1 = first in line):"
sshare -a -o Account%14,User%10,RawShares%9,NormShares%10,RawUsage%9,FairShare%9,LevelFS%10 |
	grep -v '^ *conv\|^ *bench' | sed 's/^/     /'
echo
echo "== done in $((SECONDS - t0)) s; the cluster is still up:"
echo "   eval \"\$(contrib/cluster.sh env)\"; squeue; sacct -X -o JobID,User,AdminComment%60"
echo "   contrib/cluster.sh down    # to stop it"
