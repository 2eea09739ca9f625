#!/usr/bin/env bash
# contrib/setup.sh - install everything slurm-budget needs on Debian 12 and
# fetch + configure the Slurm source tree matching the installed Slurm.
#
# Idempotent: packages already installed and a source tree already configured
# are left alone.  Prints the source tree path on its last line.
#
# Usage: contrib/setup.sh [--src-dir DIR]
#   --src-dir DIR   where to unpack the Slurm source (default: $SB_SLURM_SRC_ROOT
#                   or /var/cache/slurm-budget)
set -euo pipefail

src_root=${SB_SLURM_SRC_ROOT:-/var/cache/slurm-budget}
while [ $# -gt 0 ]; do
	case "$1" in
	--src-dir) src_root=${2:?--src-dir needs a directory}; shift 2 ;;
	-h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup.sh: unknown argument '$1' (accepted: --src-dir DIR, --help)" >&2; exit 2 ;;
	esac
done

pkgs=(slurm-wlm slurmctld slurmd slurmdbd slurm-client munge libmunge-dev
      mariadb-server libslurm-dev libjson-c-dev check autoconf automake libtool
      pkg-config dpkg-dev build-essential valgrind clang libclang-rt-14-dev)

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
fi

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
