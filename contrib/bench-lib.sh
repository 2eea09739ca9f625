# contrib/bench-lib.sh - the set-up the controller benchmarks share
# (contrib/bench-ctld.sh, contrib/bench-tick.sh, contrib/bench-load.sh source
# it; not run alone).  A bench cluster has its own ports, so the test cluster
# may stay up, and parks its pending jobs in a DOWN partition.
# shellcheck shell=bash
# The sourcing script sets $repo (the project's root) before it sources
# this file; bench_setup's callers also set $build (where the bench
# clusters live).
: "${repo:?bench-lib.sh: the sourcing script sets repo}"
#
# bench-ctld.sh uses the ports, bench_conf_base, bench_tree and
# bench_accounts.  bench-tick.sh and bench-load.sh share one whole set-up
# (bench_setup): 1000 budget accounts with root in each, every GPU busy with
# 32 running 1-GPU jobs inside an 8 h minimum runtime (committed usage
# everywhere), then N pending 1-GPU allocated jobs parked in the DOWN
# partition (test/bench/bench-submit, round-robin over the accounts).
#
# For bench_setup, the sourcing script sets, before calling bench_init:
#   repo        the repository root
#   build       the build directory whose test/bench/bench-submit is used
#   bench_name  short name for messages (e.g. bench-tick)
# and calls `bench_init SUBDIR EXTRA_CONF_LINES`.  The cluster lives in
# $build/SUBDIR, the plugins it runs are copies in $build/SUBDIR-stage.

# The bench cluster's ports (each script runs one bench cluster at a time):
# SB_BENCH_CTLD_PORT, SB_BENCH_DBD_PORT, SB_BENCH_DB_PORT, SB_BENCH_SLURMD_PORT
# (slurmd N uses SB_BENCH_SLURMD_PORT+N-1) if set, else 36817 36819 36306 37001.
export SB_CTLD_PORT=${SB_BENCH_CTLD_PORT:-36817} SB_DBD_PORT=${SB_BENCH_DBD_PORT:-36819}
export SB_DB_PORT=${SB_BENCH_DB_PORT:-36306} SB_SLURMD_PORT=${SB_BENCH_SLURMD_PORT:-37001}

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

# ---- the whole set-up of bench-tick.sh and bench-load.sh

bench_plugins=(job_submit_budget priority_budget preempt_budget spank_budget)

say() { printf '%s: %s\n' "${bench_name:-bench}" "$*" >&2; }
die() { printf '%s: error: %s\n' "${bench_name:-bench}" "$*" >&2; exit 1; }
cluster() { "$repo/contrib/cluster.sh" "$@"; }

# bench_check_count VALUE...: each a positive whole number, or exit 2.
bench_check_count() {
	local v
	for v in "$@"; do
		[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "$bench_name: '$v' is not a positive whole number" >&2; exit 2; }
	done
}

# bench_init SUBDIR EXTRA: exports the cluster's directory and the slurm.conf
# lines every plugin set shares (bench_conf_base, SlurmctldDebug=verbose for
# the tick summaries, then EXTRA); bench_conf_base gets the same lines.
bench_init() {
	# shellcheck disable=SC2154 # $build: set by bench-tick.sh and bench-load.sh
	export SB_CLUSTER_DIR=$build/$1 SB_BUILD_DIR=$build/$1-stage
	export SB_STOP_TIMEOUT=300 SB_UP_TIMEOUT=300	# saving 50k jobs takes a while
	bench_conf_base="$bench_conf_base
SlurmctldDebug=verbose${2:+
$2}"
	export SB_SLURM_CONF_EXTRA=$bench_conf_base
	ctld_log=$SB_CLUSTER_DIR/log/slurmctld.log
}

# bench_install_plugins DIR [NAME...]: DIR's budget plugins NAME... (default
# all four) into the stage, by rename (a running slurmctld keeps its mapping
# of the old file); the other budget plugins are removed from the stage, so
# contrib/cluster.sh switches them off at the next `up`.
bench_install_plugins() {
	local from=$1 n so keep
	shift
	[ $# -gt 0 ] || set -- "${bench_plugins[@]}"
	for n in "${bench_plugins[@]}"; do
		keep=0
		case " $* " in *" $n "*) keep=1 ;; esac
		if [ "$keep" = 0 ]; then
			rm -f "$SB_BUILD_DIR/plugins/$n/.libs/$n.so"
			continue
		fi
		so=$from/plugins/$n/.libs/$n.so
		[ -f "$so" ] || die "$so is missing: build $from first"
		mkdir -p "$SB_BUILD_DIR/plugins/$n/.libs"
		cp "$so" "$SB_BUILD_DIR/plugins/$n/.libs/.$n.so.new"
		mv -f "$SB_BUILD_DIR/plugins/$n/.libs/.$n.so.new" "$SB_BUILD_DIR/plugins/$n/.libs/$n.so"
	done
}

# wait_until SECONDS COMMAND...: poll every 2 s.
wait_until() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 2
	done
}

count_jobs() { squeue -h -t "$1" -o %i | wc -l; }
# The 32 running jobs die with their slurmd at `cluster down` and are
# requeued at the next start; after MAX_BATCH_REQUEUE (5) requeues Slurm
# holds them (REQUEUE_HOLD, Reason JobHoldMaxRequeue): released here.
running_full() {
	local held
	[ "$(count_jobs R)" -lt 32 ] || return 0
	held=$(squeue -h -t REQUEUE_HOLD -o %i | paste -sd, -)
	[ -z "$held" ] || scontrol release "$held" >/dev/null 2>&1 || true
	return 1
}

# bench_setup PLUGIN_DIR JOBS ACCOUNTS: a fresh bench cluster with all four
# of PLUGIN_DIR's plugins, the accounts, 32 running jobs, JOBS pending ones.
bench_setup() {
	local plugins=$1 jobs=$2 accounts=$3 i t0
	[ -x "$build/test/bench/bench-submit" ] ||
		die "$build/test/bench/bench-submit is missing: run contrib/build.sh (or make -C $build test/bench/bench-submit)"
	cluster down >/dev/null 2>&1 || true
	rm -rf "$SB_CLUSTER_DIR" "$SB_BUILD_DIR"
	bench_install_plugins "$plugins"
	cluster up >/dev/null
	eval "$(cluster env)"
	# CalcPeriod as shipped (60 s, the period of multifactor's
	# PriorityCalcPeriod in bench-load's multifactor set)
	printf 'MaxMinRuntime=8:00:00\nPreemptGraceTime=0\n' > "$SB_CLUSTER_DIR/budget.conf.new"
	mv -f "$SB_CLUSTER_DIR/budget.conf.new" "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	bench_tree "$accounts" || die "the bench account tree was not created"
	# 32 running jobs (4 nodes x 8 GPUs, 1 GPU and 1 CPU each), each inside
	# an 8 h minimum runtime, over 32 accounts: committed usage everywhere
	say "filling the cluster with 32 running jobs"
	wait_until 60 sbatch --test-only -A bench0001 -G 1 --min-runtime=1 --wrap true ||
		die "sbatch --test-only does not accept a job (see $ctld_log)"
	for ((i = 1; i <= 32; i++)); do
		sbatch -Q -A "$(printf 'bench%04d' "$(( (i - 1) % accounts + 1 ))")" -G 1 -n 1 \
			--min-runtime=8:00:00 -o /dev/null -D /tmp --wrap 'sleep 100000' >/dev/null
	done
	wait_until 120 running_full || die "only $(count_jobs R) of 32 jobs run"
	say "submitting $jobs pending jobs over $accounts accounts"
	t0=$SECONDS
	"$build/test/bench/bench-submit" "$jobs" parked "$(bench_accounts "$accounts")" >&2
	say "setup done in $((SECONDS - t0)) s of submission: $(count_jobs R) running, $(count_jobs PD) pending"
}
