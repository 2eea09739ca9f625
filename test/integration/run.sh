#!/usr/bin/env bash
# test/integration/run.sh - run integration tests against the local cluster.
#
# Usage: test/integration/run.sh [--list FILE] [PATTERN]
#   Needs a running cluster: eval "$(contrib/cluster.sh env)" first
#   (contrib/run-tests.sh does all of it).  PATTERN selects test functions by
#   substring; --list FILE runs only the tests named in FILE (one per line,
#   '#' comments; test/integration/compat.list is the compatibility subset),
#   and fails if FILE names a test that does not exist.  Prints one line per test and "N passed, N failed"; exits
#   non-zero if any test failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${SLURM_CONF:?run eval \"\$(contrib/cluster.sh env)\" first}"
: "${SB_CLUSTER_DIR:?run eval \"\$(contrib/cluster.sh env)\" first}"
list=
if [ "${1:-}" = --list ]; then
	list=${2:?--list needs a file of test names}
	[ -r "$list" ] || { echo "run.sh: --list '$list': cannot read it" >&2; exit 2; }
	shift 2
fi
pattern=${1:-}
export SB_REPO=${SB_REPO:-$(cd "$here/../.." && pwd)}

# shellcheck source=test/integration/lib.sh
. "$here/lib.sh"
for f in "$here"/t-*.sh; do
	# shellcheck disable=SC1090
	. "$f"
done

# The names --list FILE asks for, each of which must be a test.
wanted=
if [ -n "$list" ]; then
	wanted=$(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$list")
	for t in $wanted; do
		[[ "$t" == test_* ]] && declare -F "$t" >/dev/null ||
			{ echo "run.sh: --list '$list' names '$t', which is not a test" >&2; exit 2; }
	done
fi

logdir=$SB_CLUSTER_DIR/test-logs
mkdir -p "$logdir"
passed=0 failed=0 failures=()
for t in $(declare -F | awk '{print $3}' | grep '^test_' ); do
	[ -n "$pattern" ] && [[ "$t" != *"$pattern"* ]] && continue
	[ -n "$list" ] && ! grep -qx "$t" <<<"$wanted" && continue
	start=$SECONDS
	# Each test in its own shell so that `set -e` really stops it at the
	# first failing step (it is ignored inside an `if` in this shell).
	if bash -euo pipefail -c '. "$1"; for f in "$2"/t-*.sh; do . "$f"; done; "$3"' \
		_ "$here/lib.sh" "$here" "$t" > "$logdir/$t.log" 2>&1; then
		printf 'PASS %-50s %3ds\n' "$t" $((SECONDS - start))
		passed=$((passed + 1))
	else
		printf 'FAIL %-50s %3ds\n' "$t" $((SECONDS - start))
		sed 's/^/    | /' "$logdir/$t.log" | tail -n 20
		failed=$((failed + 1))
		failures+=("$t")
	fi
done
echo "integration: $passed passed, $failed failed"
if [ $((passed + failed)) -eq 0 ]; then
	echo "run.sh: no test matched${list:+ --list '$list'}${pattern:+ and '$pattern'}" >&2
	exit 1
fi
[ "$failed" -eq 0 ]
