#!/usr/bin/env bash
# contrib/scenarios/fidelity-live.sh - run contrib/scenarios/fidelity.csv on
# the local test cluster (contrib/cluster.sh, with the budget plugins) and
# write the observed run segments in the format `sbudget-sim metrics` reads.
#
# Usage: contrib/scenarios/fidelity-live.sh OUT_SEGMENTS.csv
#   The cluster must be up (contrib/cluster.sh up, same SB_* ports in the
#   environment).  A fresh top-level account fid<tag> with children
#   fa<tag> (RawShares 3, user sb-alice) and fb<tag> (1, sb-bob) holds the
#   jobs, so no earlier usage weighs on the standing; its share is set to 0
#   at the end.  Each job is `sleep DURATION`, submitted at its submit_time_s
#   after the start, with --min-runtime and --resumable from the CSV.
#   Requeued batch jobs start their script over: compare with
#   `sbudget-sim --requeue-work restart`.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: $0 OUT_SEGMENTS.csv}
scen=$repo/contrib/scenarios/fidelity.csv
eval "$("$repo/contrib/cluster.sh" env)"
: "${SB_CLUSTER_DIR:=$repo/_build/cluster}"
export SB_CLUSTER_DIR
# shellcheck source=test/integration/lib.sh
source "$repo/test/integration/lib.sh"

tag=$(date +%s)
tag=${tag: -6}
parent=fid$tag fa=fa$tag fb=fb$tag
sacctmgr -i add account "$parent" parent=root fairshare=1 cluster=sbcluster >/dev/null
sacctmgr -i add account "$fa" parent="$parent" fairshare=3 cluster=sbcluster >/dev/null
sacctmgr -i add account "$fb" parent="$parent" fairshare=1 cluster=sbcluster >/dev/null
sacctmgr -i add user sb-alice account="$fa" cluster=sbcluster >/dev/null
sacctmgr -i add user sb-bob account="$fb" cluster=sbcluster >/dev/null
trap 'sacctmgr -i modify account "$parent" set fairshare=0 >/dev/null 2>&1 || true' EXIT
sleep 3	# assoc_mgr learns the associations from slurmdbd

declare -a ids teams gpus mrs subs
t0=$(date +%s)
n=0
while IFS=, read -r sub dur g team user mr res _prio; do
	[ "$sub" = submit_time_s ] && continue
	while [ $(($(date +%s) - t0)) -lt "$sub" ]; do sleep 0.1; done
	acct=$fa
	[ "$team" = fid/fb ] && acct=$fb
	flags=(-A "$acct" -G "$g" "--min-runtime=0:$mr" --wrap "sleep $dur")
	[ "$res" = yes ] && flags+=(--resumable)
	ids[n]=$(submit "$user" "${flags[@]}")
	teams[n]=$team gpus[n]=$g mrs[n]=$mr subs[n]=$(($(date +%s) - t0))
	echo "job $((n + 1)): Slurm id ${ids[n]} at +${subs[n]} s" >&2
	n=$((n + 1))
done <"$scen"

# wait until nothing of ours is pending or running (at most 10 minutes)
for ((i = 0; i < 1200; i++)); do
	left=$(squeue -h -j "$(IFS=,; echo "${ids[*]}")" -o %i 2>/dev/null | wc -l)
	[ "$left" -eq 0 ] && break
	sleep 0.5
done

# every run of every job: sacct --duplicates lists each requeued run
echo "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted" >"$out"
for ((k = 0; k < n; k++)); do
	runs=$(sacct -n -X -D -P -j "${ids[k]}" -o Start,End,State 2>/dev/null)
	any=0
	while IFS='|' read -r st en state; do
		[ -z "$st" ] || [ "$st" = Unknown ] || [ "$st" = None ] && continue
		s=$(($(date -d "$st" +%s) - t0))
		e=$(($(date -d "$en" +%s) - t0))
		p=0
		case $state in PREEMPTED* | REQUEUE*) p=1 ;; esac
		echo "$((k + 1)),${teams[k]},${gpus[k]},${mrs[k]},${subs[k]},$s,$e,$p" >>"$out"
		any=1
	done <<<"$runs"
	[ $any = 1 ] || echo "$((k + 1)),${teams[k]},${gpus[k]},${mrs[k]},${subs[k]},,,0" >>"$out"
done
echo "segments written to $out" >&2
