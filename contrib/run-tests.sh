#!/usr/bin/env bash
# contrib/run-tests.sh - the whole test suite, from a fresh clone.
#
# Installs what is missing (contrib/setup.sh), builds with AddressSanitizer
# and UBSan (contrib/build.sh --sanitizers), runs the unit tests (`make
# check`, Check), runs them again under valgrind from a plain build, runs
# every libFuzzer target briefly on its corpus (test/fuzz/run.sh, clang),
# brings up the local Slurm cluster with our plugins
# (contrib/cluster.sh), runs the integration tests against it, and stops the
# cluster.  Exit status is non-zero if anything failed.
#
# Usage: contrib/run-tests.sh [--keep-cluster] [PATTERN]
#   --keep-cluster  leave the cluster running afterwards (for debugging)
#   PATTERN         run only integration tests whose name contains PATTERN
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
keep=0 pattern=
while [ $# -gt 0 ]; do
	case "$1" in
	--keep-cluster) keep=1; shift ;;
	-h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run-tests.sh: unknown option '$1' (accepted: --keep-cluster, --help, PATTERN)" >&2; exit 2 ;;
	*) pattern=$1; shift ;;
	esac
done

echo "== build"
build=$("$repo/contrib/build.sh" --sanitizers | tail -n 1)
export SB_BUILD_DIR=$build

echo "== unit tests (Check, ASan/UBSan)"
unit_rc=0
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

echo "== fuzzers (libFuzzer, ASan/UBSan: a quick pass on each corpus)"
SB_BUILD_DIR=$build "$repo/test/fuzz/run.sh" || unit_rc=1

echo "== integration tests (local cluster)"
stop() { [ "$keep" = 1 ] || "$repo/contrib/cluster.sh" down || true; }
trap stop EXIT
"$repo/contrib/cluster.sh" up
eval "$("$repo/contrib/cluster.sh" env)"
int_rc=0
"$repo/test/integration/run.sh" "$pattern" || int_rc=$?

if [ "$unit_rc" -ne 0 ] || [ "$int_rc" -ne 0 ]; then
	echo "== FAILED (unit: $unit_rc, integration: $int_rc)"
	exit 1
fi
echo "== all tests passed"
