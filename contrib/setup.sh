#!/usr/bin/env bash
# contrib/setup.sh - install everything slurm-budget needs on Debian 12 and
# fetch + configure the Slurm source tree matching the installed Slurm.
#
# Idempotent: packages already installed and a source tree already configured
# are left alone.  Prints the source tree path on its last line; with
# --slurm 24.11 the last line is "PREFIX SOURCE-TREE".
#
# Usage: contrib/setup.sh [--src-dir DIR] [--slurm RELEASE] [--tarball FILE]
#   --src-dir DIR    where to unpack the Slurm source (default: $SB_SLURM_SRC_ROOT
#                    or /var/cache/slurm-budget)
#   --slurm RELEASE  22.05 (default; $SB_SLURM): the Debian 12 packages in /usr.
#                    24.11: Debian 13's source package slurm-wlm 24.11.5, fetched
#                    through a private apt configuration (the system's apt
#                    sources are not changed).
#                    25.11, 26.05: SchedMD's release tarball slurm-25.11.7.tar.gz
#                    or slurm-26.05.3.tar.gz, from --tarball, $SB_SLURM_TARBALL,
#                    or the project's neighbour folder ../shared/slurm (checked
#                    against its SHA256SUMS); a site's own tarball of another
#                    micro release of a supported major.minor works too, its
#                    SHA-256 given in $SB_SLURM_TARBALL_SHA256 (or a
#                    FILE.sha256 / SHA256SUMS beside it).
#                    Every release but 22.05 is built with `nice` and installed
#                    into DIR/slurm-X.Y.Z (nothing in /usr is touched): only
#                    libslurm, the daemons, the commands and the plugin types
#                    that the plugins, sbudget and the test cluster use (see
#                    slurm_parts below), not slurmrestd's data parsers, the
#                    other plugins or commands.  Cached: a second run only
#                    checks the stamp file (a full build of the same release
#                    and options counts as built).
#   --tarball FILE   the Slurm source tarball to build (25.11 and 26.05)
set -euo pipefail

src_root=${SB_SLURM_SRC_ROOT:-/var/cache/slurm-budget}
release=${SB_SLURM:-22.05}
tarball_arg=${SB_SLURM_TARBALL:-}
while [ $# -gt 0 ]; do
	case "$1" in
	--src-dir) src_root=${2:?--src-dir needs a directory}; shift 2 ;;
	--slurm) release=${2:?--slurm needs a release: 22.05, 24.11, 25.11 or 26.05}; shift 2 ;;
	--tarball) tarball_arg=${2:?--tarball needs a file}; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup.sh: unknown argument '$1' (accepted: --src-dir DIR, --slurm RELEASE, --tarball FILE, --help)" >&2; exit 2 ;;
	esac
done
# shellcheck source=contrib/slurm-release.sh
. "$(dirname "$0")/slurm-release.sh"
sb_release_check setup.sh "$release"

pkgs=(slurm-wlm slurmctld slurmd slurmdbd slurm-client munge libmunge-dev
      mariadb-server libslurm-dev libjson-c-dev check autoconf automake libtool
      pkg-config dpkg-dev build-essential valgrind clang libclang-rt-14-dev
      chromium prometheus prometheus-node-exporter shellcheck
      # the Debian package's build (debian/, test/package/run.sh)
      debhelper)
# Building Slurm from source (every release but 22.05): the client library for slurmdbd's MySQL
# plugin (mysql_config), the rest (munge, json-c, readline, ssl, yaml) above
# or already in build-essential's company.
[ "$release" = 22.05 ] || pkgs+=(libmariadb-dev libmariadb-dev-compat libreadline-dev
	libyaml-dev libssl-dev zlib1g-dev)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}" >&2
	as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
	# Do not let package scripts start system daemons: the harness runs its own.
	as_root sh -c 'printf "#!/bin/sh\nexit 101\n" > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d'
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
	as_root rm -f /usr/sbin/policy-rc.d
	# Prometheus and node_exporter would start at boot, listening on every
	# address (9090, 9100): the tests run their own on 127.0.0.1.
	if command -v systemctl >/dev/null 2>&1; then
		as_root systemctl disable prometheus.service \
			prometheus-node-exporter.service >/dev/null 2>&1 || true
	fi
fi

# fetch_2411 UPVER: print the path of Debian 13's upstream tarball of
# slurm-wlm UPVER, downloading it once (checked against the Sources index).
fetch_2411() {
	local upver=$1 apt=$src_root/apt-trixie
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$src_root/dl"
	local tarball=$src_root/dl/slurm-wlm_$upver.orig.tar.gz
	if [ ! -s "$tarball" ]; then
		# A private apt configuration: one deb-src line for Debian 13, its
		# own lists and caches; the system's sources and lists stay as they
		# are, so apt can never install a trixie binary from it.
		echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
			>"$apt/sources.list"
		local -a aptopt=(-o Dir::Etc::SourceList="$apt/sources.list"
			-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$apt/lists"
			-o Dir::Cache="$apt" -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
		echo "setup: fetching the Debian 13 source package slurm-wlm $upver" >&2
		apt-get "${aptopt[@]}" -qq update >&2
		# The Debian revision's .dsc and debian.tar may be missing from the
		# mirror; only the upstream tarball is needed (checked below).
		local debver
		debver=$(apt-cache "${aptopt[@]}" showsrc slurm-wlm 2>/dev/null |
			sed -n "s/^Version: \($upver-.*\)/\1/p" | head -n 1)
		[ -n "$debver" ] || { echo "setup: error: Debian 13 has no slurm-wlm $upver source package" >&2; exit 1; }
		(cd "$src_root/dl" && apt-get "${aptopt[@]}" -qq source --download-only "slurm-wlm=$debver" >&2 || true)
		[ -s "$tarball" ] || { echo "setup: error: could not download $tarball (apt-get source slurm-wlm from trixie)" >&2; exit 1; }
		local sha
		sha=$(apt-get "${aptopt[@]}" --print-uris source "slurm-wlm=$debver" 2>/dev/null |
			awk -v f="slurm-wlm_$upver.orig.tar.gz" '$2 == f {sub("SHA256:", "", $4); print $4}')
		if [ -n "$sha" ] && ! echo "$sha  $tarball" | sha256sum -c --quiet >&2; then
			rm -f "$tarball"
			echo "setup: error: $tarball does not match the SHA256 of the Sources index" >&2
			exit 1
		fi
	fi
	echo "$tarball"
}

# tarball_sha256 FILE: the SHA-256 that FILE must have: $SB_SLURM_TARBALL_SHA256,
# or FILE.sha256, or FILE's line in a SHA256SUMS beside it; empty if none.
tarball_sha256() {
	local f=$1 sums
	if [ -n "${SB_SLURM_TARBALL_SHA256:-}" ]; then
		echo "$SB_SLURM_TARBALL_SHA256"
	elif [ -s "$f.sha256" ]; then
		awk '{print $1; exit}' "$f.sha256"
	else
		sums=$(dirname "$f")/SHA256SUMS
		[ -s "$sums" ] && awk -v n="$(basename "$f")" '$2 == n || $2 == "*" n {print $1}' "$sums"
	fi
	return 0
}

# find_tarball RELEASE: print the SchedMD release tarball to build for
# RELEASE (25.11, 26.05), checksum-verified; exit with a message if none.
find_tarball() {
	local rel=$1 f sha base
	local default_dir
	default_dir=$(cd "$(dirname "$0")/../.." && pwd)/shared/slurm
	if [ -n "$tarball_arg" ]; then
		f=$tarball_arg
	else
		case $rel in
		25.11) f=$default_dir/slurm-25.11.7.tar.gz ;;
		26.05) f=$default_dir/slurm-26.05.3.tar.gz ;;
		esac
	fi
	[ -s "$f" ] || { echo "setup: error: no Slurm $rel source tarball at '$f' (give SchedMD's slurm-$rel.N.tar.gz with --tarball FILE or SB_SLURM_TARBALL)" >&2; exit 1; }
	base=$(basename "$f")
	case $base in
	slurm-"$rel".[0-9]*.tar.gz|slurm-"$rel".[0-9]*.tar.bz2) ;;
	*) echo "setup: error: '$f' is not a Slurm $rel release tarball (accepted: slurm-$rel.N.tar.gz or .tar.bz2, as SchedMD names them)" >&2; exit 1 ;;
	esac
	sha=$(tarball_sha256 "$f")
	[ -n "$sha" ] || { echo "setup: error: no SHA-256 for '$f' (set SB_SLURM_TARBALL_SHA256, or put FILE.sha256 or SHA256SUMS beside it)" >&2; exit 1; }
	if ! echo "$sha  $f" | sha256sum -c --quiet >/dev/null 2>&1; then
		echo "setup: error: '$f' does not match its SHA-256 $sha" >&2
		exit 1
	fi
	echo "$f"
}

# make_subdirs DIR: the SUBDIRS that configure enabled in DIR's Makefile.
make_subdirs() {
	# shellcheck disable=SC2016 # $(SUBDIRS) is for make
	make -s --no-print-directory -C "$1" -f Makefile -f - sb-subdirs <<<'sb-subdirs: ; @echo $(SUBDIRS)'
}

# slurm_parts SRCDIR: the directories of the configured Slurm tree SRCDIR to
# build and install, relative to SRCDIR, in build order: libslurm, the
# daemons (src/slurmd holds slurmstepd), the commands the tests and
# contrib/ run, and the plugin types the test cluster loads (its
# slurm.conf, the types the tests switch to, and what Slurm loads on its
# own: cgroup, certgen, serializer, tls, url_parser...), each type whole.
# A directory that this release lacks or that configure left out is skipped.
slurm_parts() {
	local top=$1 d
	local -a cmds=(api slurmctld slurmd slurmdbd sacct sacctmgr salloc sbatch
		scancel scontrol sinfo sprio squeue srun sshare)
	local -a types=(accounting_storage auth certgen cgroup compress cred gpu gres
		hash job_submit mpi preempt prep priority proctrack sched select
		serializer tls topology url_parser)
	local src plugins
	src=" $(make_subdirs "$top/src") "
	plugins=" $(make_subdirs "$top/src/plugins") "
	case $src$plugins in
	*" api "*" auth "*) ;;
	*) echo "setup: error: cannot read SUBDIRS from $top/src/Makefile and $top/src/plugins/Makefile" >&2; return 1 ;;
	esac
	for d in "${cmds[@]}"; do
		case $src in *" $d "*) echo "src/$d" ;; esac
	done
	for d in "${types[@]}"; do
		case $plugins in *" $d "*) echo "src/plugins/$d" ;; esac
	done
}

# build_slurm UPVER TARBALL: build Slurm UPVER from TARBALL (empty: found,
# or fetched for 24.11, only when a build is needed) and install it into its
# own prefix, once; print "PREFIX SOURCE-TREE".
build_slurm() {
	local upver=$1 tarball=$2
	local prefix=$src_root/slurm-$upver
	local srcdir=$src_root/slurm-src-$upver
	local stamp=$prefix/.sb-installed
	# Configure options: what the plugins, sbudget and the test cluster need
	# (munge, json-c, slurmdbd's MySQL plugin, several slurmd on one host);
	# no static libraries and no -ggdb3 (libtool would compile every file
	# twice, and debug information triples the compile time of a cold build).
	local -a conf=(--prefix="$prefix" --sysconfdir="$prefix/etc" --with-munge
		--with-mysql_config=/usr/bin --with-json=/usr --enable-multiple-slurmd
		--disable-slurmrestd --disable-sview --without-hwloc --without-pmix
		--without-ucx --without-nvml --without-rsmi --without-hdf5 --without-freeipmi
		--without-rdkafka --without-lua --disable-x11
		--disable-static --disable-debug
		SUCMD=/bin/su SLEEP_CMD=/bin/sleep)
	local want="$upver ${conf[*]}"
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$srcdir/config.h" ]; then
		# a build of fewer parts records them (.sb-parts); a build
		# without that record is a full one, which has every part
		if [ ! -f "$prefix/.sb-parts" ] ||
			[ "$(cat "$prefix/.sb-parts")" = "$(slurm_parts "$srcdir" 2>/dev/null)" ]; then
			echo "$prefix $srcdir"
			return 0
		fi
		echo "setup: the parts of Slurm to build changed since $prefix was built: building it again" >&2
	fi
	# not built yet: now the tarball is needed
	if [ -z "$tarball" ]; then
		if [ "$release" = 24.11 ]; then
			tarball=$(fetch_2411 "$upver") || exit 1
		else
			tarball=$(find_tarball "$release") || exit 1
		fi
	fi
	echo "setup: building Slurm $upver in $srcdir (nice, make -j$(nproc)), installing into $prefix" >&2
	rm -rf "$srcdir" "$prefix"
	mkdir -p "$srcdir"
	tar -xf "$tarball" -C "$srcdir" --strip-components=1
	(cd "$srcdir" && nice ./configure -q "${conf[@]}" >"$srcdir/sb-configure.out")
	grep -q '^#define HAVE_MYSQL 1' "$srcdir/config.h" ||
		{ echo "setup: error: Slurm configure found no MySQL client (see $srcdir/config.log)" >&2; exit 1; }
	# Only the parts that slurm_parts lists, each directory built and
	# installed by one "make install" (a separate "make" first would walk
	# every directory's dependencies twice), then the headers.
	# Idle I/O priority as well as nice: run-tests.sh builds a release
	# while another release's tests run.
	local d parts target
	local -a low=(nice)
	command -v ionice >/dev/null && low=(nice ionice -c3)
	parts=$(slurm_parts "$srcdir") || exit 1
	: >"$srcdir/sb-make.out"
	for d in $parts .; do
		target=install
		[ "$d" = . ] && target=install-pkgincludeHEADERS
		"${low[@]}" make -C "$srcdir/$d" -s -j"$(nproc)" "$target" >>"$srcdir/sb-make.out" 2>&1 ||
			{ tail -n 30 "$srcdir/sb-make.out" >&2; exit 1; }
	done
	echo "$parts" >"$prefix/.sb-parts"
	[ -f "$prefix/lib/slurm/accounting_storage_mysql.so" ] ||
		{ echo "setup: error: slurmdbd's MySQL plugin was not built (see $srcdir/config.log)" >&2; exit 1; }
	echo "$want" >"$stamp"
	echo "$prefix $srcdir"
}

case $release in
24.11)
	mkdir -p "$src_root"
	build_slurm 24.11.5 ""
	exit 0
	;;
25.11|26.05)
	mkdir -p "$src_root"
	# The micro release: the tarball's, or this project's default one; a
	# build already installed needs no tarball (build_slurm finds it).
	if [ -n "$tarball_arg" ]; then
		v=$(basename "$tarball_arg"); v=${v#slurm-}; v=${v%.tar.*}
		case $v in
		"$release".[0-9]*) ;;
		*) echo "setup: error: '$tarball_arg' is not a Slurm $release release tarball (accepted: slurm-$release.N.tar.gz or .tar.bz2, as SchedMD names them)" >&2; exit 1 ;;
		esac
	else
		case $release in 25.11) v=25.11.7 ;; 26.05) v=26.05.3 ;; esac
	fi
	build_slurm "$v" ""
	exit 0
	;;
esac

# deb-src for the Slurm source package (Debian's patches applied, so it
# matches the installed binaries).
srclist=/etc/apt/sources.list.d/slurm-budget-src.sources
if ! apt-get source --print-uris slurm-wlm >/dev/null 2>&1; then
	echo "setup: enabling deb-src in $srclist" >&2
	as_root tee "$srclist" >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	as_root apt-get update -qq >&2
fi

ver=$(dpkg-query -W -f='${Version}' slurmctld)
upver=${ver%-*}
dir="$src_root/slurm-wlm-$upver"
as_root mkdir -p "$src_root"
if [ ! -f "$dir/config.h" ]; then
	echo "setup: fetching and configuring Slurm source $ver into $dir" >&2
	( cd "$src_root" && as_root apt-get source -qq "slurm-wlm=$ver" >&2 )
	( cd "$dir" && as_root ./configure -q --prefix=/usr --sysconfdir=/etc/slurm >/dev/null )
fi
echo "$dir"
