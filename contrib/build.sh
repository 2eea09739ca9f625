#!/usr/bin/env bash
# contrib/build.sh - set up this machine (contrib/setup.sh) and build
# slurm-budget out of tree in $SB_BUILD_DIR (default <repo>/_build).
#
# Usage: contrib/build.sh [--sanitizers] [--slurm RELEASE]
#   --sanitizers     build the core and unit tests with ASan/UBSan (CI builds)
#   --slurm RELEASE  22.05 (default, or $SB_SLURM): against the Debian 12
#                    packages, in <repo>/_build; 24.11, 25.11, 26.05: against
#                    that release built by contrib/setup.sh --slurm RELEASE, in
#                    <repo>/_build-RELEASE ($SB_BUILD_DIR overrides either)
# Idempotent: re-running only rebuilds what changed.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
release=${SB_SLURM:-22.05}
san=
while [ $# -gt 0 ]; do
	case "$1" in
	--sanitizers) san=--enable-sanitizers; shift ;;
	--slurm) release=${2:?--slurm needs a release: 22.05, 24.11, 25.11 or 26.05}; shift 2 ;;
	-h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "build.sh: unknown argument '$1' (accepted: --sanitizers, --slurm RELEASE, --help)" >&2; exit 2 ;;
	esac
done
# shellcheck source=contrib/slurm-release.sh
. "$repo/contrib/slurm-release.sh"
sb_release_check build.sh "$release"
build=${SB_BUILD_DIR:-$(sb_release_build_dir "$repo" "$release")}
if [ "$release" = 22.05 ]; then
	src=$("$repo/contrib/setup.sh" --slurm 22.05 | tail -n 1)
	slurm_opts="--with-slurm-source=$src"
else
	out=$("$repo/contrib/setup.sh" --slurm "$release" | tail -n 1)
	read -r prefix src <<<"$out"
	[ -n "${src:-}" ] || { echo "build.sh: contrib/setup.sh --slurm $release printed no PREFIX SOURCE line" >&2; exit 1; }
	slurm_opts="--with-slurm=$prefix --with-slurm-source=$src"
fi

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
