#!/usr/bin/env bash
# test/package/run.sh - build the Debian package from the release tarball,
# install it on this machine, load its plugins in a cluster of their own,
# and purge it again.
#
# Usage: test/package/run.sh [--keep-package]
#   Needs root, the Debian 12 Slurm (22.05) in /usr and a configured build
#   tree against it ($SB_BUILD_DIR, default <repo>/_build: contrib/build.sh).
#   1. `make dist` in the build tree; the tarball unpacked and built with
#      `dpkg-buildpackage -us -uc -b` (DEB_BUILD_OPTIONS=nocheck: the unit
#      tests run elsewhere in the suite), SLURM_SOURCE the configured Slurm
#      source tree (contrib/setup.sh --slurm 22.05);
#   2. the .deb's contents: the four plugins (.so only) in Slurm's PluginDir,
#      sbudget and sbudget-sim, the man pages, the examples, nothing in /etc;
#      it depends on exactly the installed slurm-wlm-basic-plugins;
#   3. `dpkg -i`, then a cluster of its own (contrib/cluster.sh with
#      SB_PLUGIN_DIR=PluginDir, SB_CLUSTER_DIR=<build>/package/cluster,
#      ports + SB_PORT_OFFSET, default 200): slurmctld has the installed
#      priority/budget, preempt/budget and job_submit/budget mapped, a job
#      with --min-runtime (the installed SPANK plugin) runs, a job without
#      it is refused, the installed sbudget shows the budget tree;
#   4. always (trap): the cluster down, the package purged (so later tests
#      load the build tree's plugins), its files checked gone.
#   --keep-package  leave the package installed and the cluster running
# Refuses to run if slurm-budget is installed already (it would purge a
# site's package).  Prints the time of each step.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	--keep-package) keep=1; shift ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "package/run.sh: unknown argument '$1' (accepted: --keep-package, --help)" >&2; exit 2 ;;
	esac
done

build=${SB_BUILD_DIR:-$repo/_build}
plugindir=/usr/lib/x86_64-linux-gnu/slurm-wlm
pkg=slurm-budget
plugins=(spank_budget job_submit_budget priority_budget preempt_budget)
work=$build/package

fail() { echo "package: FAIL: $*" >&2; exit 1; }
step_t=$SECONDS
step() {
	echo "package: $1 ($((SECONDS - step_t)) s)"
	step_t=$SECONDS
}

[ "$(id -u)" = 0 ] || fail "needs root (dpkg -i, the cluster's daemons)"
[ -f "$build/Makefile" ] || fail "SB_BUILD_DIR '$build' is not a configured build tree (run contrib/build.sh)"
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed'; then
	fail "$pkg is installed already ($(dpkg-query -W -f='${Version}' "$pkg")): this test installs and purges its own; remove it first"
fi
for c in dpkg-buildpackage dh; do
	command -v "$c" >/dev/null || fail "$c not found: apt-get install debhelper dpkg-dev (Build-Depends in debian/control)"
done
slurm_src=$("$repo/contrib/setup.sh" --slurm 22.05 | tail -n 1)
slurm_ver=$(dpkg-query -W -f='${Version}' slurm-wlm-basic-plugins)

# The cluster of this test: its own directory and ports, the installed plugins.
cluster() {
	SB_SLURM=22.05 SB_BUILD_DIR=$build SB_CLUSTER_DIR=$work/cluster \
		SB_PLUGIN_DIR=$plugindir SB_PORT_OFFSET=${SB_PORT_OFFSET:-200} \
		"$repo/contrib/cluster.sh" "$@"
}
installed=0
cleanup() {
	local rc=$?
	[ "$keep" = 1 ] && return "$rc"
	cluster down >/dev/null 2>&1 || echo "package: cluster down failed" >&2
	if [ "$installed" = 1 ]; then
		dpkg --purge --force-remove-reinstreq "$pkg" >/dev/null || { echo "package: FAIL: dpkg --purge $pkg failed" >&2; rc=1; }
		for p in "${plugins[@]}"; do
			[ ! -e "$plugindir/$p.so" ] || { echo "package: FAIL: $plugindir/$p.so left after the purge" >&2; rc=1; }
		done
		[ ! -e /usr/bin/sbudget ] || { echo "package: FAIL: /usr/bin/sbudget left after the purge" >&2; rc=1; }
		[ "$rc" -ne 0 ] || echo "package: purged, no file left"
	fi
	exit "$rc"
}
trap cleanup EXIT

# 1. The tarball and the package built from it.
rm -rf "$work/src"
mkdir -p "$work/src"
make -C "$build" -s dist >/dev/null
version=$(sed -n 's/^PACKAGE_VERSION = //p' "$build/Makefile")
tarball=$build/slurm-budget-$version.tar.gz
tar -xzf "$tarball" -C "$work/src"
srcdir=$work/src/slurm-budget-$version
step "tarball $(basename "$tarball") unpacked"
(cd "$srcdir" && SLURM_SOURCE=$slurm_src DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	nice dpkg-buildpackage -us -uc -b) > "$work/dpkg-buildpackage.log" 2>&1 ||
	{ tail -n 30 "$work/dpkg-buildpackage.log"; fail "dpkg-buildpackage failed (log: $work/dpkg-buildpackage.log)"; }
debs=("$work"/src/"${pkg}"_*.deb)
if [ "${#debs[@]}" != 1 ] || [ ! -f "${debs[0]}" ]; then
	fail "dpkg-buildpackage made no single ${pkg}_*.deb in $work/src: ${debs[*]}"
fi
deb=${debs[0]}
step "built $(basename "$deb")"

# 2. What the .deb holds and needs.
files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for p in "${plugins[@]}"; do
	grep -qx "$plugindir/$p.so" <<<"$files" || fail "$plugindir/$p.so is not in the package"
done
for f in /usr/bin/sbudget /usr/bin/sbudget-sim /usr/share/man/man8/slurm-budget.8.gz \
	/usr/share/man/man5/budget.conf.5.gz /usr/share/doc/$pkg/examples/budget.conf \
	/usr/share/doc/$pkg/examples/plugstack.conf; do
	grep -qx "$f" <<<"$files" || fail "$f is not in the package"
done
! grep -E '\.la$|^/etc/' <<<"$files" || fail "the package holds libtool archives or files in /etc (above)"
depends=$(dpkg-deb -f "$deb" Depends)
[[ "$depends" == *"slurm-wlm-basic-plugins (= $slurm_ver)"* ]] ||
	fail "Depends '$depends' does not name slurm-wlm-basic-plugins (= $slurm_ver)"
echo "package: Depends: $depends"

# 3. Installed, and its plugins loaded by a cluster of their own.
installed=1	# purged on exit even if dpkg -i stops half way
dpkg -i "$deb" >/dev/null
step "installed"
cluster up
eval "$(cluster env)"
[ "$(command -v sbudget)" = /usr/bin/sbudget ] || fail "sbudget on PATH is $(command -v sbudget), not the package's"
conf=$(scontrol show config)
for want in "PluginDir *= $plugindir\$" "PriorityType *= priority/budget" \
	"PreemptType *= preempt/budget" "JobSubmitPlugins *= budget"; do
	grep -q "^$want" <<<"$conf" || fail "scontrol show config has no line '$want'"
done
grep -q "required $plugindir/spank_budget.so" "$SB_CLUSTER_DIR/plugstack.conf" ||
	fail "plugstack.conf does not name $plugindir/spank_budget.so"
ctld=$(cat "$SB_CLUSTER_DIR/run/slurmctld.pid")
for p in job_submit_budget priority_budget preempt_budget; do
	grep -q " $plugindir/$p.so\$" "/proc/$ctld/maps" ||
		fail "slurmctld (pid $ctld) has no $plugindir/$p.so mapped"
done
echo "package: slurmctld runs the installed plugins ($plugindir/{job_submit,priority,preempt}_budget.so mapped)"
if out=$(sbatch -G 1 --wrap true 2>&1); then
	fail "a job without --min-runtime was accepted: $out"
fi
[[ "$out" == *"--min-runtime"* ]] || fail "a job without --min-runtime was refused without naming --min-runtime: $out"
echo "package: refused without --min-runtime: $out"
# the job id on stdout; stderr has job_submit/budget's note (not resumable)
out=$(sbatch --parsable --wait -G 1 --min-runtime=0:01:00 -D "$SB_CLUSTER_DIR/work" \
	-o /dev/null --wrap true 2>"$work/sbatch.err") ||
	fail "sbatch --min-runtime=0:01:00 --wait failed: $out $(cat "$work/sbatch.err")"
jobid=${out%%$'\n'*}
state=$(scontrol show job "$jobid" | grep -o 'JobState=[A-Z]*') || true
[ "$state" = JobState=COMPLETED ] || fail "job $jobid (--min-runtime=0:01:00) ended with '$state', not JobState=COMPLETED"
echo "package: job $jobid with --min-runtime=0:01:00 ran: $state"
sbudget show budget > "$work/sbudget.out" || fail "the installed sbudget show budget failed: $(cat "$work/sbudget.out")"
grep -q phys-a "$work/sbudget.out" || fail "sbudget show budget does not list phys-a: $(cat "$work/sbudget.out")"
step "cluster on the installed plugins: config, mapped plugins, jobs, sbudget checked"
echo "package: all checks passed"
