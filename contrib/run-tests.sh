#!/usr/bin/env bash
# contrib/run-tests.sh - the whole test suite, from a fresh clone, on every
# supported Slurm release.
#
# Installs what is missing (contrib/setup.sh; for every release but 22.05 it
# builds Slurm once into /var/cache/slurm-budget), then:
#   1. builds against Slurm 22.05 with AddressSanitizer and UBSan
#      (contrib/build.sh --sanitizers), runs the unit tests (`make check`,
#      Check), and again under valgrind from a plain build, and runs every
#      libFuzzer target briefly on its corpus (test/fuzz/run.sh, clang),
#      and shellcheck on every script of contrib/ and test/;
#      these cover the Slurm-free core, simulator and sbudget logic, so
#      they run once, not per release;
#   2. for each release (26.05, then 25.11, 24.11, 22.05): builds the plugins
#      and sbudget against it (_build, _build-RELEASE), brings up that
#      release's local cluster (contrib/cluster.sh, SB_SLURM=RELEASE: own
#      state, own ports), runs the integration tests against it, and stops
#      the cluster.  The newest release (26.05) runs every integration test;
#      the others run the compatibility subset, test/integration/compat.list
#      (every plugin entry point, contract, charge, preemption, restart,
#      limits), unless --full.  The first release runs in one stream and
#      the others, one after another, in a second stream at the same time
#      (SB_TEST_STREAMS=1: all in one stream); the second stream's output
#      follows the first's;
#   3. with 22.05 and no PATTERN: the Debian package (test/package/run.sh):
#      built from `make dist` with dpkg-buildpackage, installed, its plugins
#      loaded by a cluster of their own (ports + 200), then purged.
# Prints the time of each part.  Exit status is non-zero if anything failed.
#
# Usage: contrib/run-tests.sh [--slurm RELEASE] [--full] [--keep-cluster] [PATTERN]
#   --slurm RELEASE  only this release's integration tests: 22.05, 24.11,
#                    25.11, 26.05 or all (default; $SB_SLURM_RELEASES); the
#                    unit tests run whenever 22.05 is included
#   --full           every integration test on every release run
#   --keep-cluster   leave the cluster(s) running afterwards (for debugging)
#   PATTERN          run only integration tests whose name contains PATTERN
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
keep=0 pattern='' full=0 releases=${SB_SLURM_RELEASES:-all}
# shellcheck source=contrib/slurm-release.sh
. "$repo/contrib/slurm-release.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--keep-cluster) keep=1; shift ;;
	--full) full=1; shift ;;
	--slurm) releases=${2:?--slurm needs 22.05, 24.11, 25.11, 26.05 or all}; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-tests.sh: unknown option '$1' (accepted: --slurm RELEASE, --full, --keep-cluster, --help, PATTERN)" >&2; exit 2 ;;
	*) pattern=$1; shift ;;
	esac
done
streams=${SB_TEST_STREAMS:-2}
case $streams in 1|2) ;; *) echo "run-tests.sh: SB_TEST_STREAMS='$streams' (accepted: 1 or 2)" >&2; exit 2 ;; esac
if [ "$releases" = all ]; then
	releases="26.05 25.11 24.11 22.05"
else
	sb_release_check run-tests.sh "$releases"
fi
# Not inherited from a shell that pointed at one cluster: each part sets its own.
unset SB_SLURM SB_BUILD_DIR SB_CLUSTER_DIR SLURM_CONF

t_all=$SECONDS
timing=()
took() { timing+=("$(printf '%-40s %4d s' "$1" $((SECONDS - $2)))"); }

unit_rc=0
run_unit_tests() {
	local t0=$SECONDS build log r vg t
	echo "== build (Slurm 22.05, ASan/UBSan)"
	build=$("$repo/contrib/build.sh" --sanitizers | tail -n 1)
	took "build 22.05 (sanitizers)" "$t0"

	t0=$SECONDS
	echo "== unit tests (Check, ASan/UBSan)"
	make -C "$build" -s check >/dev/null 2>&1 || unit_rc=$?
	for log in "$build"/test/unit/*.log; do
		[ "$(basename "$log")" = test-suite.log ] && continue
		printf '%s: ' "$(basename "$log" .log)"
		if ! grep -E '^[0-9]+%: Checks:' "$log"; then
			# a script test (sim-cli-test.sh): automake's verdict, or a crash
			r=$(sed -n 's/^:test-result: //p' "${log%.log}.trs" 2>/dev/null)
			echo "${r:-no result (crashed?)} (script test, $(grep -c '^FAIL:' "$log") failures)"
		fi
		grep -E ':[EF]:' "$log" || true
	done
	[ "$unit_rc" -eq 0 ] || { cat "$build/test-suite.log" 2>/dev/null || true; }
	took "unit tests (ASan/UBSan)" "$t0"

	t0=$SECONDS
	echo "== unit tests under valgrind (a plain build: ASan and valgrind do not mix)"
	vg=$build/valgrind
	mkdir -p "$vg"
	[ -f "$vg/Makefile" ] || (cd "$vg" && "$repo/configure" -q)
	make -C "$vg" -s -j"$(nproc)" check TESTS= >/dev/null
	for t in "$vg"/test/unit/*-test; do
		if CK_FORK=no valgrind -q --error-exitcode=9 --leak-check=full \
			"$t" > "$vg/$(basename "$t").valgrind" 2>&1; then
			echo "$(basename "$t"): valgrind clean"
		else
			echo "$(basename "$t"): valgrind FAILED"; tail -n 20 "$vg/$(basename "$t").valgrind"
			unit_rc=1
		fi
	done
	took "unit tests (valgrind)" "$t0"

	t0=$SECONDS
	echo "== fuzzers (libFuzzer, ASan/UBSan: a quick pass on each corpus)"
	SB_BUILD_DIR=$build "$repo/test/fuzz/run.sh" || unit_rc=1
	took "fuzzers" "$t0"

	t0=$SECONDS
	echo "== shellcheck (every script of contrib/, test/ and .ci/; warnings and errors)"
	shellcheck --version | sed -n 's/^version: /shellcheck /p'
	if (cd "$repo" && shellcheck -x -S warning contrib/*.sh contrib/*/*.sh test/*/*.sh .ci/run); then
		echo "shellcheck: clean"
	else
		echo "shellcheck: FAILED"; unit_rc=1
	fi
	took "shellcheck" "$t0"
}

# Integration results, one file per release in $results (a release may run
# in a background stream): "PASSED FAILED RC", then the failed tests' names;
# and its timing lines.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT	# until the streams' trap (below) takes over
# run_integration RELEASE: build against it, its cluster up, tests, down.
run_integration() {
	local rel=$1 t0=$SECONDS build out rc=0 san='' passed=0 failed=0
	# 22.05: the unit tests' build (_build, sanitizers for the core and
	# unit tests only; the plugins never carry them), not reconfigured
	[ "$rel" = 22.05 ] && san=--sanitizers
	echo "== build (Slurm $rel)"
	if ! build=$(SB_SLURM=$rel "$repo/contrib/build.sh" $san | tail -n 1); then
		echo "== build against Slurm $rel FAILED"
		printf '0 1 1\nthe build\n' >"$results/$rel"
		return
	fi
	printf '%-40s %4d s\n' "build $rel (Slurm if not cached, plugins)" $((SECONDS - t0)) >>"$results/$rel.time"
	t0=$SECONDS
	echo "== integration tests on Slurm $rel (local cluster)"
	(
		export SB_SLURM=$rel SB_BUILD_DIR=$build
		stop() { [ "$keep" = 1 ] || "$repo/contrib/cluster.sh" down || true; }
		trap stop EXIT
		"$repo/contrib/cluster.sh" up
		eval "$("$repo/contrib/cluster.sh" env)"
		if [ "$full" = 1 ] || [ "$rel" = "$SB_NEWEST_RELEASE" ]; then
			"$repo/test/integration/run.sh" "$pattern"
		else
			echo "(the compatibility subset: test/integration/compat.list)"
			"$repo/test/integration/run.sh" --list "$repo/test/integration/compat.list" "$pattern"
		fi
	) 2>&1 | tee "$build/integration.out" || rc=$?
	out=$(sed -n 's/^integration: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' "$build/integration.out" | tail -n 1)
	if [ -n "$out" ]; then
		passed=${out% *} failed=${out#* }
	else
		failed=1	# the cluster did not come up
	fi
	{
		echo "$passed $failed $rc"
		sed -n 's/^FAIL \(test_[A-Za-z0-9_]*\) .*/\1/p' "$build/integration.out"
	} >"$results/$rel"
	printf '%-40s %4d s\n' "integration $rel" $((SECONDS - t0)) >>"$results/$rel.time"
}

case " $releases " in *" 22.05 "*) run_unit_tests ;; esac
# The first (newest) release's Slurm and our build first (setup.sh installs
# the packages every release needs); then the tests.  The newest release's
# whole suite and the other releases' subsets run at once, in two streams
# (SB_TEST_STREAMS=1: one after the other): the tests spend most of their
# time waiting for Slurm's timers, and each release's cluster has its own
# daemons, state and ports.  The second stream builds each of its releases
# (Slurm too when not cached) just before its tests, so on a machine that
# has built no Slurm those builds overlap the first stream's tests; only
# that stream builds, so no two Slurm builds or package installs run at
# once.  The second stream's output is printed when both have finished (or
# the run stops).
first=${releases%% *} rest=''
[ "$first" = "$releases" ] || rest=${releases#* }
t0=$SECONDS
san=''
[ "$first" = 22.05 ] && san=--sanitizers
SB_SLURM=$first "$repo/contrib/build.sh" $san >/dev/null 2>&1 || true	# run_integration says why
took "build $first (Slurm if not cached)" "$t0"
stream='' stream_shown=0
# On any exit: stop the second stream (its clusters go down through their
# own traps) and show what it printed.
stop_stream() {
	if [ -n "$stream" ] && kill -0 "$stream" 2>/dev/null; then
		pkill -TERM -P "$stream" 2>/dev/null || true
		kill -TERM "$stream" 2>/dev/null || true
		wait "$stream" 2>/dev/null || true
	fi
	if [ -n "$stream" ] && [ "$stream_shown" = 0 ] && [ -f "$results/stream.out" ]; then
		echo "== output of the second stream (Slurm $rest)"
		cat "$results/stream.out"
	fi
	rm -rf "$results"
}
trap stop_stream EXIT
t0=$SECONDS
if [ -n "$rest" ] && [ "$streams" = 2 ]; then
	echo "== integration: Slurm $first here; Slurm $rest at the same time (output after)"
	( for rel in $rest; do run_integration "$rel"; done ) >"$results/stream.out" 2>&1 &
	stream=$!
	run_integration "$first"
	wait "$stream" || true
	echo "== output of the second stream (Slurm $rest)"
	cat "$results/stream.out"
	stream_shown=1
else
	for rel in $releases; do
		run_integration "$rel"
	done
fi
took "integration (all releases, wall time)" "$t0"
int_passed=0 int_failed=0 int_rc=0 int_failures=()
for rel in $releases; do
	[ -f "$results/$rel.time" ] && mapfile -t -O "${#timing[@]}" timing <"$results/$rel.time"
	if [ ! -s "$results/$rel" ]; then
		int_failed=$((int_failed + 1)) int_rc=1 int_failures+=("$rel (no result)")
		continue
	fi
	{
		read -r p f r || true
		int_passed=$((int_passed + ${p:-0})) int_failed=$((int_failed + ${f:-1}))
		[ "${r:-1}" = 0 ] || int_rc=1
		while read -r t; do int_failures+=("$rel $t"); done
	} <"$results/$rel"
done

pkg_rc=0
if [ -z "$pattern" ] && [[ " $releases " == *" 22.05 "* ]]; then
	t0=$SECONDS
	echo "== package (Debian: dpkg-buildpackage from make dist, installed, a cluster on its plugins, purged)"
	SB_BUILD_DIR=$(sb_release_build_dir "$repo" 22.05) "$repo/test/package/run.sh" || pkg_rc=1
	took "package (.deb, Slurm 22.05)" "$t0"
fi

took "total" "$t_all"
echo "== timing"
printf '   %s\n' "${timing[@]}"
echo "releases: $releases"
echo "total: $int_passed passed, $int_failed failed (integration, all releases; unit: $([ "$unit_rc" -eq 0 ] && echo ok || echo FAILED); package: $([ "$pkg_rc" -eq 0 ] && echo ok || echo FAILED))"
if [ "$unit_rc" -ne 0 ] || [ "$int_rc" -ne 0 ] || [ "$pkg_rc" -ne 0 ]; then
	echo "== FAILED (unit: $unit_rc, integration: $int_rc, package: $pkg_rc)"
	[ ${#int_failures[@]} -eq 0 ] || printf '   failed on Slurm %s\n' "${int_failures[@]}"
	exit 1
fi
echo "== all tests passed"
