# contrib/slurm-release.sh - the Slurm releases slurm-budget supports, in one
# place.  Sourced by setup.sh, build.sh, cluster.sh and run-tests.sh.
#
#   release  source                                          cluster ports
#   22.05    Debian 12's packages (/usr)                     + 0
#   24.11    Debian 13's slurm-wlm 24.11.5 source, built     + 50
#   25.11    SchedMD's slurm-25.11.N.tar.gz, built           + 100
#   26.05    SchedMD's slurm-26.05.N.tar.gz, built           + 150
# Built releases live in $SB_SLURM_SRC_ROOT (default /var/cache/slurm-budget)
# as slurm-X.Y.Z (installed) and slurm-src-X.Y.Z (the configured tree).

# shellcheck shell=bash
# shellcheck disable=SC2034
SB_RELEASES="22.05 24.11 25.11 26.05"
# shellcheck disable=SC2034  # read by the scripts that source this file
SB_NEWEST_RELEASE=26.05

# sb_release_ok RELEASE: 0 if RELEASE is supported.
sb_release_ok() {
	case " $SB_RELEASES " in *" $1 "*) return 0 ;; esac
	return 1
}

# sb_release_check WHO RELEASE: exit 2 with WHO's message if RELEASE is not
# supported.
sb_release_check() {
	sb_release_ok "$2" && return 0
	echo "$1: unknown Slurm release '$2' (accepted: ${SB_RELEASES// /, })" >&2
	exit 2
}

# sb_release_port_offset RELEASE: added to the test cluster's ports.
sb_release_port_offset() {
	case $1 in
	22.05) echo 0 ;;
	24.11) echo 50 ;;
	25.11) echo 100 ;;
	26.05) echo 150 ;;
	esac
}

# sb_release_build_dir REPO RELEASE: the build tree for RELEASE.
sb_release_build_dir() {
	if [ "$2" = 22.05 ]; then echo "$1/_build"; else echo "$1/_build-$2"; fi
}

# sb_release_prefix RELEASE: where RELEASE is installed: /usr for 22.05,
# else the newest micro release built by setup.sh (the default one's path
# if none is built yet).
sb_release_prefix() {
	local root=${SB_SLURM_SRC_ROOT:-/var/cache/slurm-budget} d best=
	case $1 in
	22.05) echo /usr; return 0 ;;
	24.11) echo "$root/slurm-24.11.5"; return 0 ;;
	esac
	for d in "$root/slurm-$1".*; do
		[ -f "$d/.sb-installed" ] || continue
		if [ -z "$best" ] || [ "${d##*.}" -gt "${best##*.}" ]; then best=$d; fi
	done
	if [ -n "$best" ]; then
		echo "$best"
	else
		case $1 in
		25.11) echo "$root/slurm-25.11.7" ;;
		26.05) echo "$root/slurm-26.05.3" ;;
		esac
	fi
}
