#!/usr/bin/env bash
# contrib/build.sh - set up this machine (contrib/setup.sh) and build
# slurm-budget out of tree in $SB_BUILD_DIR (default <repo>/_build).
#
# Usage: contrib/build.sh [--sanitizers]
#   --sanitizers   build the core and unit tests with ASan/UBSan (CI builds)
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${SB_BUILD_DIR:-$repo/_build}
san=
while [ $# -gt 0 ]; do
	case "$1" in
	--sanitizers) san=--enable-sanitizers; shift ;;
	-h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build.sh: unknown argument '$1' (accepted: --sanitizers, --help)" >&2; exit 2 ;;
	esac
done

src=$("$repo/contrib/setup.sh" | tail -n 1)
if [ ! -x "$repo/configure" ] || [ "$repo/configure.ac" -nt "$repo/configure" ] ||
   [ "$repo/Makefile.am" -nt "$repo/Makefile.in" ]; then
	echo "build: autoreconf" >&2
	(cd "$repo" && autoreconf -fi >/dev/null 2>&1) || (cd "$repo" && autoreconf -fi)
fi
mkdir -p "$build"
want="--with-slurm-source=$src $san"
if [ ! -f "$build/Makefile" ] || [ "$(cat "$build/.configured-with" 2>/dev/null)" != "$want" ]; then
	echo "build: configure $want" >&2
	# shellcheck disable=SC2086
	(cd "$build" && "$repo/configure" -q $want)
	echo "$want" > "$build/.configured-with"
fi
make -C "$build" -s -j"$(nproc)" >&2
echo "$build"
