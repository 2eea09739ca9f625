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
# 36817/36819/36306/37001-37004 (SB_BENCH_CTLD_PORT & co. override them:
# contrib/bench-lib.sh), so the test cluster may stay up; the plugins it
# runs are copies in $SB_BUILD_DIR/bt-stage.  The set-up is shared with
# contrib/bench-load.sh (contrib/bench-lib.sh).
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

bench_name=bench-tick
# shellcheck source=contrib/bench-lib.sh
. "$repo/contrib/bench-lib.sh"
bench_check_count "$jobs" "$accounts" "$summaries"
bench_init bt ""
install_plugins() { bench_install_plugins "$1"; }
do_setup() {
	[ -n "$plugins" ] || die "setup needs --plugins DIR"
	bench_setup "$plugins" "$jobs" "$accounts"
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
