#!/usr/bin/env bash
# contrib/bench-tick.sh - how long preempt/budget's one-second tick holds
# slurmctld's locks with many pending jobs and a cluster full of running ones.
#
# Usage: contrib/bench-tick.sh COMMAND [OPTIONS]
#   all --before DIR --after DIR   setup with DIR=before, measure before,
#                                  measure after, down (one submission serves
#                                  both measurements)
#   setup --plugins DIR            a fresh bench cluster with DIR's plugins,
#                                  the account tree, running jobs filling every
#                                  GPU, then the pending jobs (~7 min for 50k)
#   measure --plugins DIR --label L  install DIR's plugins, restart slurmctld
#                                  (job state is kept), print the tick
#                                  summaries written after the restart
#   down                           stop the bench cluster
# Options:
#   --jobs N        pending jobs (default 50000), parked in a DOWN partition
#   --accounts N    accounts they are spread over (default 1000)
#   --summaries K   summaries measured per case (default 3; each is 60 ticks;
#                   the first summary after a restart is a warm-up, dropped)
# DIR is a build directory whose plugins/<name>/.libs/<name>.so are used
# (e.g. _build, or a worktree's build of an older commit).  The plugins must
# log preempt/budget's tick summary (plugins/common/tick_stats.h): at
# SlurmctldDebug=verbose, "preempt/budget: tick over 60 ticks: locks held
# median ...".  Uses its own cluster directory ($SB_BUILD_DIR/bt) and ports
# 36817/36819/36306/37001-37004, so the test cluster may stay up; the
# plugins it runs are copies in $SB_BUILD_DIR/bt-stage.
# Results and method: doc/benchmarks.md.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${SB_BUILD_DIR:-$repo/_build}
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in -h | --help | help | '') usage; exit 0 ;; esac
jobs=50000 accounts=1000 summaries=3 plugins='' before='' after='' label=''
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--accounts) accounts=${2:?--accounts needs a number}; shift 2 ;;
	--summaries) summaries=${2:?--summaries needs a number}; shift 2 ;;
	--plugins) plugins=${2:?--plugins needs a build directory}; shift 2 ;;
	--before) before=${2:?--before needs a build directory}; shift 2 ;;
	--after) after=${2:?--after needs a build directory}; shift 2 ;;
	--label) label=${2:?--label needs a word}; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "bench-tick.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
for v in "$jobs" "$accounts" "$summaries"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || { echo "bench-tick.sh: '$v' is not a positive whole number" >&2; exit 2; }
done

export SB_CLUSTER_DIR=$build/bt SB_BUILD_DIR=$build/bt-stage
# shellcheck source=contrib/bench-lib.sh
. "$repo/contrib/bench-lib.sh"
export SB_STOP_TIMEOUT=300 SB_UP_TIMEOUT=300	# saving 50k jobs takes a while
export SB_SLURM_CONF_EXTRA="$bench_conf_base
SlurmctldDebug=verbose"
cluster() { "$repo/contrib/cluster.sh" "$@"; }
say() { printf 'bench-tick: %s\n' "$*" >&2; }
die() { printf 'bench-tick: error: %s\n' "$*" >&2; exit 1; }
ctld_log=$SB_CLUSTER_DIR/log/slurmctld.log

# install_plugins DIR: DIR's budget plugins into the stage, by rename (a
# running slurmctld keeps its mapping of the old file).
install_plugins() {
	local from=$1 n so
	for n in job_submit_budget priority_budget preempt_budget spank_budget; do
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
running_full() { [ "$(count_jobs R)" -ge 32 ]; }

do_setup() {
	[ -n "$plugins" ] || die "setup needs --plugins DIR"
	cluster down >/dev/null 2>&1 || true
	rm -rf "$SB_CLUSTER_DIR" "$SB_BUILD_DIR"
	install_plugins "$plugins"
	cluster up >/dev/null
	eval "$(cluster env)"
	printf 'MaxMinRuntime=8:00:00\nCalcPeriod=5\nPreemptGraceTime=0\n' > "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	bench_tree "$accounts" || die "the bench account tree was not created"
	local accts
	# 32 running jobs (4 nodes x 8 GPUs, 1 GPU and 1 CPU each), each inside
	# an 8 h minimum runtime, over 32 accounts: committed usage everywhere
	say "filling the cluster with 32 running jobs"
	wait_until 60 sbatch --test-only -A bench0001 -G 1 --min-runtime=1 --wrap true
	for ((i = 1; i <= 32; i++)); do
		sbatch -Q -A "$(printf 'bench%04d' "$i")" -G 1 -n 1 --min-runtime=8:00:00 \
			-o /dev/null -D /tmp --wrap 'sleep 100000' >/dev/null
	done
	wait_until 120 running_full || die "only $(count_jobs R) of 32 jobs run"
	accts=$(bench_accounts "$accounts")
	say "submitting $jobs pending jobs over $accounts accounts"
	"$build/test/bench/bench-submit" "$jobs" parked "$accts" >&2
	say "setup done: $(count_jobs R) running, $(count_jobs PD) pending"
}

# summaries_after OFFSET: the tick summaries written after byte OFFSET.
summaries_after() {
	tail -c +"$(($1 + 1))" "$ctld_log" | grep -o 'preempt/budget: tick over .*' || true
}

# have_summaries OFFSET N: at least N summaries after OFFSET.
have_summaries() { [ "$(summaries_after "$1" | wc -l)" -ge "$2" ]; }

do_measure() {
	if [ -z "$plugins" ] || [ -z "$label" ]; then die "measure needs --plugins DIR and --label L"; fi
	local off got
	eval "$(cluster env)"
	install_plugins "$plugins"
	off=$(stat -c %s "$ctld_log")
	say "$label: restarting slurmctld with $plugins's plugins"
	cluster restart-ctld >/dev/null
	wait_until 300 running_full || die "$label: only $(count_jobs R) of 32 jobs run after the restart"
	say "$label: $(count_jobs R) running, $(count_jobs PD) pending; waiting for $((summaries + 1)) summaries"
	wait_until $(((summaries + 2) * 75)) have_summaries "$off" $((summaries + 1)) ||
		die "$label: the tick summaries did not appear in $ctld_log (SlurmctldDebug=verbose, instrumented plugins?)"
	got=$(summaries_after "$off" | sed -n "2,$((summaries + 1))p")
	printf '%s\n' "$got" | sed "s|^preempt/budget: tick |$label: |"
}

case $cmd in
setup) do_setup ;;
measure) do_measure ;;
down) cluster down ;;
all)
	if [ -z "$before" ] || [ -z "$after" ]; then die "all needs --before DIR and --after DIR"; fi
	trap 'cluster down >/dev/null 2>&1 || true' EXIT
	plugins=$before do_setup
	plugins=$before label=before do_measure
	plugins=$after label=after do_measure
	;;
*) echo "bench-tick.sh: unknown command '$cmd' (accepted: all, setup, measure, down, --help)" >&2; exit 2 ;;
esac
