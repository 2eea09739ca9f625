# contrib/bench-lib.sh - the set-up the controller benchmarks share
# (contrib/bench-ctld.sh, contrib/bench-tick.sh source it; not run alone).
# A bench cluster has its own ports, so the test cluster may stay up, and
# parks its pending jobs in a DOWN partition.
# shellcheck shell=bash

# The bench cluster's ports (each script runs one bench cluster at a time).
export SB_CTLD_PORT=36817 SB_DBD_PORT=36819 SB_DB_PORT=36306 SB_SLURMD_PORT=37001

# slurm.conf lines every bench cluster needs: where the pending jobs are
# parked, and room for them; each script adds its SlurmctldDebug.
# shellcheck disable=SC2034  # used by the scripts that source this file
bench_conf_base="PartitionName=parked Nodes=ALL State=DOWN Default=NO
MaxJobCount=300000"

# bench_tree N - accounts bench0001..benchN under root (Fairshare 1..7 in
# turn), root associated with each, loaded with sacctmgr through
# $SB_CLUSTER_DIR/bench-tree.cfg; fails (with a message) unless root then
# has exactly N bench associations.
bench_tree() {
	local accounts=$1 i n
	{
		echo "Cluster - 'sbcluster'"
		echo "Parent - 'root'"
		for ((i = 1; i <= accounts; i++)); do
			printf "Account - 'bench%04d':Fairshare=%d\n" "$i" $((1 + i % 7))
		done
		for ((i = 1; i <= accounts; i++)); do
			printf "Parent - 'bench%04d'\nUser - 'root':Fairshare=1\n" "$i"
		done
	} > "$SB_CLUSTER_DIR/bench-tree.cfg"
	sacctmgr -i load file="$SB_CLUSTER_DIR/bench-tree.cfg" >/dev/null
	n=$(sacctmgr -nP show assoc user=root format=account | grep -c '^bench' || true)
	[ "$n" -eq "$accounts" ] || {
		echo "bench: root has $n bench associations, wanted $accounts" >&2
		return 1
	}
}

# bench_accounts N - "bench0001,...,benchN", for bench-submit.
bench_accounts() {
	local i out=
	for ((i = 1; i <= $1; i++)); do out+=$(printf 'bench%04d,' "$i"); done
	printf '%s\n' "${out%,}"
}
