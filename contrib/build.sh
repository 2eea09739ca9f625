#!/usr/bin/env bash
# contrib/build.sh - set up this machine (contrib/setup.sh) and build
# slurm-budget out of tree in $SB_BUILD_DIR (default <repo>/_build).
#
# Usage: contrib/build.sh [--sanitizers] [--slurm RELEASE]
#   --sanitizers     build the core and unit tests with ASan/UBSan (CI builds)
#   --slurm RELEASE  22.05 (default, or $SB_SLURM): against the Debian 12
#                    packages, in <repo>/_build; 24.11: against Slurm 24.11 built
#                    by contrib/setup.sh --slurm 24.11, in <repo>/_build-24.11
#                    ($SB_BUILD_DIR overrides either)
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
release=${SB_SLURM:-22.05}
san=
while [ $# -gt 0 ]; do
	case "$1" in
	--sanitizers) san=--enable-sanitizers; shift ;;
	--slurm) release=${2:?--slurm needs a release: 22.05 or 24.11}; shift 2 ;;
	-h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build.sh: unknown argument '$1' (accepted: --sanitizers, --slurm RELEASE, --help)" >&2; exit 2 ;;
	esac
done
case "$release" in
22.05)
	build=${SB_BUILD_DIR:-$repo/_build}
	src=$("$repo/contrib/setup.sh" --slurm 22.05 | tail -n 1)
	slurm_opts="--with-slurm-source=$src"
	;;
24.11)
	build=${SB_BUILD_DIR:-$repo/_build-24.11}
	out=$("$repo/contrib/setup.sh" --slurm 24.11 | tail -n 1)
	read -r prefix src <<<"$out"
	[ -n "${src:-}" ] || { echo "build.sh: contrib/setup.sh --slurm 24.11 printed no PREFIX SOURCE line" >&2; exit 1; }
	slurm_opts="--with-slurm=$prefix --with-slurm-source=$src"
	;;
*) echo "build.sh: unknown Slurm release '$release' (accepted: 22.05, 24.11)" >&2; exit 2 ;;
esac

if [ ! -x "$repo/configure" ] || [ "$repo/configure.ac" -nt "$repo/configure" ] ||
   [ "$repo/Makefile.am" -nt "$repo/Makefile.in" ]; then
	echo "build: autoreconf" >&2
	(cd "$repo" && autoreconf -fi >/dev/null 2>&1) || (cd "$repo" && autoreconf -fi)
fi
mkdir -p "$build"
want="$slurm_opts $san"
if [ ! -f "$build/Makefile" ] || [ "$(cat "$build/.configured-with" 2>/dev/null)" != "$want" ]; then
	echo "build: configure $want" >&2
	# shellcheck disable=SC2086
	(cd "$build" && "$repo/configure" -q $want)
	echo "$want" > "$build/.configured-with"
fi
make -C "$build" -s -j"$(nproc)" >&2
echo "$build"
