#!/usr/bin/env bash
# test/fuzz/run.sh - build the libFuzzer targets (clang, ASan/UBSan) and run
# each on its corpus.
#
# Usage: test/fuzz/run.sh [--runs N] [--time S] [--build-only] [TARGET...]
#   --runs N      executions per target (default 20000: a quick pass, as the
#                 README's test command runs it)
#   --time S      instead of --runs: run each target for S seconds
#   --build-only  build, run nothing
#   TARGET        duration, contract-tag, budget-conf, trace, tree,
#                 segments, sbudget-args (default: all)
# The build is $SB_BUILD_DIR/fuzz (default <repo>/_build/fuzz); the seed
# corpus in test/fuzz/corpus/TARGET is only read; what a run learns goes to
# the build's corpus/TARGET; a crash is saved as artifacts/TARGET-crash-*
# and the script fails naming it.  Exit: 0 clean, 1 a target failed, 2 bad
# arguments.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
all=(duration contract-tag budget-conf trace tree segments sbudget-args)
runs=20000 time='' build_only=0 targets=()
while [ $# -gt 0 ]; do
	case "$1" in
	--runs) runs=${2:-}; shift 2 || true
		[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --runs '$runs' is not a positive whole number" >&2; exit 2; } ;;
	--time) time=${2:-}; shift 2 || true
		[[ "$time" =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: --time '$time' is not a positive number of seconds" >&2; exit 2; } ;;
	--build-only) build_only=1; shift ;;
	-h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (accepted: --runs N, --time S, --build-only, --help)" >&2; exit 2 ;;
	*) ok=0; for t in "${all[@]}"; do [ "$t" = "$1" ] && ok=1; done
	   [ "$ok" = 1 ] || { echo "run.sh: unknown target '$1' (accepted: ${all[*]})" >&2; exit 2; }
	   targets+=("$1"); shift ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

build=${SB_BUILD_DIR:-$repo/_build}/fuzz
mkdir -p "$build"
if [ ! -f "$build/Makefile" ]; then
	(cd "$build" && "$repo/configure" -q CC=clang --with-slurm=no \
		--enable-sanitizers --enable-fuzzers)
fi
make -C "$build" -s -j"$(nproc)" fuzzers >&2
[ "$build_only" = 1 ] && exit 0

rc=0
mkdir -p "$build/artifacts"
for t in "${targets[@]}"; do
	bin=$build/test/fuzz/fuzz-$t
	mkdir -p "$build/corpus/$t"
	if [ -n "$time" ]; then lim=(-max_total_time="$time"); else lim=(-runs="$runs"); fi
	log=$build/fuzz-$t.log
	if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$bin" "${lim[@]}" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$build/artifacts/$t-" \
		"$build/corpus/$t" "$repo/test/fuzz/corpus/$t" >"$log" 2>&1; then
		echo "fuzz-$t: clean, $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -n 1)"
	else
		echo "fuzz-$t: FAILED (log $log)"
		grep -E 'ERROR|SUMMARY|Test unit written' "$log" | head -n 5
		rc=1
	fi
done
exit $rc
