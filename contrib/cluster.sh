#!/usr/bin/env bash
# contrib/cluster.sh - a real, private, multi-node Slurm GPU cluster on this machine.
#
# Usage: contrib/cluster.sh COMMAND [OPTIONS]
#
# Commands:
#   up            start whatever is not running (idempotent), create the budget
#                 tree, wait until all nodes respond; slurm.conf is regenerated
#                 on every call, and running slurmctld/slurmd are restarted if it
#                 changed (state is kept)
#                 --backup      also run a backup slurmctld (as SB_BACKUP=1,
#                               below); 'up' without it stops a running backup
#   down          stop every daemon of this cluster (pid files under
#                 $SB_CLUSTER_DIR), and kill job steps left running on its nodes;
#                 state stays on disk. Idempotent.
#                 --keep-jobs   leave running job steps alone (slurmstepd
#                               processes survive; they reattach on the next up)
#   status        one line per daemon; sinfo if slurmctld runs.
#                 Exit 0 if all daemons run, 3 otherwise.
#   env           print shell exports for clients (SLURM_CONF; PATH with
#                 this build's sbudget and sbudget-sim first):
#                 eval "$(contrib/cluster.sh env)"
#   restart-ctld  stop slurmctld, start it again with its state, wait for nodes
#   kill-ctld     kill -9 slurmctld (simulates a crash; 'up' brings it back)
#   kill-backup   kill -9 the backup slurmctld, if it runs
#   --help        this text
#
# Environment:
#   SB_SLURM            Slurm release of the cluster: 22.05 (default; the Debian
#                       12 packages in /usr), 24.11, 25.11 or 26.05 (built by
#                       contrib/setup.sh --slurm RELEASE into
#                       /var/cache/slurm-budget/slurm-X.Y.Z, or $SB_SLURM_PREFIX).
#                       Each release has its own build tree (<repo>/_build-RELEASE),
#                       so its own state directory, and its own ports (each port
#                       below + SB_PORT_OFFSET); `env` puts its bin/sbin first on
#                       PATH for the clients.
#   SB_PORT_OFFSET      added to every port (default 0 for 22.05, 50 for 24.11,
#                       100 for 25.11, 150 for 26.05)
#   SB_BUILD_DIR        build tree (default <repo>/_build, <repo>/_build-RELEASE)
#   SB_CLUSTER_DIR      everything of the cluster (default $SB_BUILD_DIR/cluster);
#                       keep it short (<= 70 chars): Unix socket paths live in it
#   SB_PLUGIN_DIR       load the budget plugins installed in this directory
#                       (a package's, e.g. /usr/lib/x86_64-linux-gnu/slurm-wlm)
#                       instead of the build tree's: PluginDir is then the
#                       system plugin dir and this one only, plugstack.conf
#                       names its spank_budget.so, and `env` leaves the
#                       build's sbudget off PATH (test/package/run.sh)
#   SB_SLURM_CONF_EXTRA extra lines appended to slurm.conf (a later key wins)
#   SB_BACKUP           1: 'up' runs a backup slurmctld too (see "Backup
#                       controller" below); default 0 (none: the cluster and
#                       its slurm.conf are exactly as without this setting)
#   SB_BACKUP_ADDR      the backup's address (default 127.0.0.2)
#   SB_UP_TIMEOUT       seconds to wait for daemons/nodes (default 90)
#   SB_STOP_TIMEOUT     seconds before kill -9 on stop (default 20)
#   SB_CTLD_PORT SB_DBD_PORT SB_DB_PORT SB_SLURMD_PORT
#                       ports (default 16817 16819 16306 17001; slurmd N uses
#                       SB_SLURMD_PORT+N-1)
#
# What runs (all as root, on 127.0.0.1, nothing under /etc or /var is touched):
#   munged     private key and socket: $DIR/munge/{munge.key,munge.socket}
#   mariadbd   datadir $DIR/mysql/data, TCP 127.0.0.1:SB_DB_PORT, socket
#              $DIR/mysql/mysqld.sock (root via unix_socket; slurmdbd uses the
#              'slurm' user with a password in $DIR/mysql/slurm.pass)
#   slurmdbd   127.0.0.1:SB_DBD_PORT, $DIR/slurmdbd.conf (mode 600)
#   slurmctld  ClusterName=sbcluster, 127.0.0.1:SB_CTLD_PORT, state in $DIR/state
#   slurmd x4  gpu01..gpu04 (slurmd -N), 8 CPUs and 8 fake GPUs each
#              (gres File=$DIR/dev/nvidia[0-7], see make_gpu_devices),
#              spool $DIR/spool/<node>
# Backup controller (up --backup, or SB_BACKUP=1): slurm.conf gets a second
#   SlurmctldHost=sbctld-backup(SB_BACKUP_ADDR), SlurmctldTimeout=8 (the
#   backup takes over about 8-10 s after the primary stops answering) and
#   CommunicationParameters=NoCtldInAddrAny (each slurmctld listens on its own
#   address only, SlurmctldPort on both; the primary on the address this
#   host's name resolves to).  Slurm picks a slurmctld's SlurmctldHost entry
#   by its hostname, so the backup runs in its own UTS and mount namespaces
#   (unshare): hostname sbctld-backup, a private /etc/hosts naming
#   SB_BACKUP_ADDR, $DIR/run-backup mounted over $DIR/run (its own pid file:
#   a slurmctld kills the one named in its pid file) and its log in
#   $DIR/log/slurmctld-backup.log.  It shares StateSaveLocation ($DIR/state)
#   with the primary.  kill-ctld then simulates the primary's crash; 'up'
#   brings the primary back and it takes control back from the backup.
# Layout: $DIR/{slurm.conf,gres.conf,slurmdbd.conf,budget.conf,plugstack.conf}
#   $DIR/log/*.log  $DIR/run/*.pid  $DIR/work (mode 1777, a working dir for jobs)
#
# Plugins: PluginDir is every existing $SB_BUILD_DIR/plugins/*/.libs followed
# by the system plugin dir (Slurm takes a plugin from the first directory
# that has it, so an installed slurm-budget package never shadows the build
# tree's); each budget plugin whose .so is built there is switched on (see
# plugin_conf_lines).  With SB_PLUGIN_DIR, the plugins installed there
# instead.  budget.conf is written only if missing.
#
# Budget tree (created if missing, never reset): root -> physics(3) -> phys-a(2),
# (root's own user association under the root account gets fairshare 0, so
# physics:bio:nobudget is exactly 3:1:0)
# phys-b(1); bio(1); nobudget(0).  Users: sb-alice@phys-a, sb-bob@bio (+phys-b),
# sb-carol@nobudget, sb-dave@phys-b (coordinator of physics), root@phys-a
# (default) besides root@root.  Unix users sb-* are created if missing.
set -euo pipefail
umask 022

# ---------------------------------------------------------------- settings
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(dirname "$here")
SLURM_RELEASE=${SB_SLURM:-22.05}
# shellcheck source=contrib/slurm-release.sh
. "$here/slurm-release.sh"
if ! sb_release_ok "$SLURM_RELEASE"; then
	echo "cluster: error: SB_SLURM='$SLURM_RELEASE' is not a supported release (accepted: ${SB_RELEASES// /, })" >&2
	exit 2
fi
BUILD=${SB_BUILD_DIR:-$(sb_release_build_dir "$REPO" "$SLURM_RELEASE")}
PORT_OFFSET=${SB_PORT_OFFSET:-$(sb_release_port_offset "$SLURM_RELEASE")}
if [ "$SLURM_RELEASE" = 22.05 ]; then
	SLURM_PREFIX=/usr
	SYS_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
else
	SLURM_PREFIX=${SB_SLURM_PREFIX:-$(sb_release_prefix "$SLURM_RELEASE")}
	SYS_PLUGIN_DIR=$SLURM_PREFIX/lib/slurm
	# The clients and daemons of this release come first on PATH.
	PATH=$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin:$PATH
fi
DIR=${SB_CLUSTER_DIR:-$BUILD/cluster}
PLUGIN_SRC=${SB_PLUGIN_DIR:-}
if [ -n "$PLUGIN_SRC" ] && [ ! -d "$PLUGIN_SRC" ]; then
	echo "cluster: error: SB_PLUGIN_DIR='$PLUGIN_SRC' is not a directory (accepted: a directory holding installed budget plugins, e.g. $SYS_PLUGIN_DIR)" >&2
	exit 2
fi
CLUSTER=sbcluster
NODES=(gpu01 gpu02 gpu03 gpu04)
CTLD_PORT=$((${SB_CTLD_PORT:-16817} + PORT_OFFSET))
DBD_PORT=$((${SB_DBD_PORT:-16819} + PORT_OFFSET))
DB_PORT=$((${SB_DB_PORT:-16306} + PORT_OFFSET))
SLURMD_PORT=$((${SB_SLURMD_PORT:-17001} + PORT_OFFSET))
UP_TIMEOUT=${SB_UP_TIMEOUT:-90}
BACKUP=${SB_BACKUP:-0}
BACKUP_HOST=sbctld-backup
BACKUP_ADDR=${SB_BACKUP_ADDR:-127.0.0.2}
STOP_TIMEOUT=${SB_STOP_TIMEOUT:-20}

# Derived paths (DIR is made absolute in init_paths).
init_paths() {
	if [ ! -x "$SLURM_PREFIX/sbin/slurmctld" ]; then
		die "no Slurm $SLURM_RELEASE in $SLURM_PREFIX (sbin/slurmctld missing); run contrib/setup.sh --slurm $SLURM_RELEASE"
	fi
	DIR=$(realpath -m "$DIR")
	if [ "${#DIR}" -gt 70 ]; then
		die "SB_CLUSTER_DIR '$DIR' is too long (${#DIR} > 70 chars) for Unix socket paths; set SB_CLUSTER_DIR to a shorter directory"
	fi
	CONF=$DIR/slurm.conf
	LOG=$DIR/log
	RUN=$DIR/run
	MUNGE_SOCK=$DIR/munge/munge.socket
	MUNGE_KEY=$DIR/munge/munge.key
	DB_DATA=$DIR/mysql/data
	DB_SOCK=$DIR/mysql/mysqld.sock
	DB_PASS_FILE=$DIR/mysql/slurm.pass
	BACKUP_RUN=$DIR/run-backup
	export SLURM_CONF=$CONF
}

log() { printf 'cluster: %s\n' "$*" >&2; }
die() { printf 'cluster: error: %s\n' "$*" >&2; exit 1; }

# die_log MESSAGE LOGFILE: fail and show the end of a daemon's log.
die_log() {
	printf 'cluster: error: %s (log: %s)\n' "$1" "$2" >&2
	if [ -f "$2" ]; then
		tail -n 15 "$2" | sed 's/^/    /' >&2
	fi
	exit 1
}

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }

# The daemons (process handling, starting each one) and the configuration
# files are in files of their own next to this one.
# shellcheck source=contrib/cluster-daemons.sh
. "$here/cluster-daemons.sh"
# shellcheck source=contrib/cluster-conf.sh
. "$here/cluster-conf.sh"

# ------------------------------------------------------------- budget tree
ensure_unix_users() {
	local u
	for u in sb-alice sb-bob sb-carol sb-dave; do
		if ! getent passwd "$u" >/dev/null; then
			log "creating unix user $u"
			useradd -M -N -s /bin/bash "$u"
		fi
	done
}

sam() { sacctmgr -i "$@" >/dev/null || die "sacctmgr $* failed"; }

# The whole tree as a sacctmgr flat file: one 'load' creates it on a fresh
# database (about 1 s instead of 8 s of single adds).
tree_file() {
	cat <<-EOF
		# budget tree of the test cluster (generated by contrib/cluster.sh)
		Cluster - '$CLUSTER'
		Parent - 'root'
		User - 'root':DefaultAccount='phys-a':AdminLevel='Administrator':Fairshare=0
		Account - 'physics':Description='physics':Organization='sbcluster':Fairshare=3
		Account - 'bio':Description='bio':Organization='sbcluster':Fairshare=1
		Account - 'nobudget':Description='nobudget':Organization='sbcluster':Fairshare=0
		Parent - 'physics'
		Account - 'phys-a':Description='phys-a':Organization='sbcluster':Fairshare=2
		Account - 'phys-b':Description='phys-b':Organization='sbcluster':Fairshare=1
		Parent - 'bio'
		User - 'sb-bob':DefaultAccount='bio':Fairshare=1
		Parent - 'nobudget'
		User - 'sb-carol':DefaultAccount='nobudget':Fairshare=1
		Parent - 'phys-a'
		User - 'root':DefaultAccount='phys-a':AdminLevel='Administrator':Fairshare=1
		User - 'sb-alice':DefaultAccount='phys-a':Fairshare=1
		Parent - 'phys-b'
		User - 'sb-bob':DefaultAccount='bio':Fairshare=1
		User - 'sb-dave':DefaultAccount='phys-b':Coordinator='physics':Fairshare=1
	EOF
}

# Create what is missing of the tree; never change what exists (tests may
# change shares; a later 'up' keeps their changes).
ensure_tree() {
	local have_cluster accounts assocs users line acct parent share user
	have_cluster=$(sacctmgr -nP show cluster "$CLUSTER" format=cluster)
	if [ -z "$have_cluster" ]; then
		log "creating cluster $CLUSTER and its budget tree in slurmdbd"
		tree_file >"$DIR/tree.cfg"
		sacctmgr -i load file="$DIR/tree.cfg" >"$LOG/sacctmgr-load.log" 2>&1 ||
			die_log "sacctmgr load failed" "$LOG/sacctmgr-load.log"
	fi
	# The checks below repair a partly created tree.
	accounts=$(sacctmgr -nP show account format=account)
	# account:parent:fairshare, parents first
	for line in physics:root:3 phys-a:physics:2 phys-b:physics:1 bio:root:1 nobudget:root:0; do
		IFS=: read -r acct parent share <<<"$line"
		if ! grep -qx -- "$acct" <<<"$accounts"; then
			log "adding account $acct (parent $parent, fairshare $share)"
			sam add account "$acct" parent="$parent" fairshare="$share" \
				cluster="$CLUSTER" description="$acct" organization=sbcluster
		fi
	done
	assocs=$(sacctmgr -nP show assoc cluster="$CLUSTER" format=user,account)
	users=$(sacctmgr -nP show user format=user)
	# user:account, default account first
	for line in root:phys-a sb-alice:phys-a sb-bob:bio sb-bob:phys-b sb-carol:nobudget sb-dave:phys-b; do
		IFS=: read -r user acct <<<"$line"
		grep -qx -- "$user|$acct" <<<"$assocs" && continue
		log "adding user $user to account $acct"
		if grep -qx -- "$user" <<<"$users"; then
			sam add user "$user" account="$acct" cluster="$CLUSTER"
		else
			sam add user "$user" account="$acct" defaultaccount="$acct" cluster="$CLUSTER"
			users=$(printf '%s\n%s' "$users" "$user")
		fi
	done
	# root was created by 'add cluster' with default account root.
	if [ "$(sacctmgr -nP show user root format=defaultaccount)" = root ]; then
		log "setting root's default account to phys-a"
		sam modify user root set defaultaccount=phys-a
	fi
	if ! sacctmgr -nP show user sb-dave withcoord format=coordinators | tr ',' '\n' | grep -qx physics; then
		log "making sb-dave a coordinator of physics"
		sam add coordinator account=physics names=sb-dave
	fi
}

# ----------------------------------------------------------------- commands
cmd_up() {
	local t0=$SECONDS started=0 n
	write_configs
	ensure_unix_users

	running munged || { start_munged; started=1; }
	if ! running mariadb; then
		start_mariadb
		ensure_db_user
		started=1
	fi
	if running slurmdbd && conf_outdated dbd; then
		log "slurmdbd.conf changed: restarting slurmdbd"
		stop slurmdbd
	fi
	if ! running slurmdbd; then
		ensure_db_user
		start_slurmdbd
		mark_applied dbd
		started=1
	fi
	ensure_tree

	if [ "$BACKUP" != 1 ] && running slurmctld-backup; then
		stop slurmctld-backup	# first: it must not take over below
	fi
	if conf_outdated slurm && any_running slurmctld slurmctld-backup "${NODES[@]/#/slurmd-}"; then
		log "slurm.conf/gres.conf/plugstack.conf changed: restarting slurmctld and slurmd (state kept)"
		stop slurmctld-backup
		stop slurmctld
		for n in "${NODES[@]}"; do stop "slurmd-$n"; done
	fi
	running slurmctld || { start_slurmctld; started=1; }
	wait_for "$UP_TIMEOUT" ctld_ok || die_log "slurmctld does not answer" "$(logfile_of slurmctld)"
	if [ "$BACKUP" = 1 ] && [ ! -e "$DIR/state/assoc_usage" ]; then
		# A backup taking over reads the primary's full state save, which
		# a new StateSaveLocation lacks until the first one (every 300 s,
		# and at shutdown); without assoc_usage it stops (fatal).
		log "no full state save yet in $DIR/state: restarting slurmctld to write one"
		stop slurmctld
		start_slurmctld
	fi
	if [ "$BACKUP" = 1 ] && ! running slurmctld-backup; then
		start_backup
		started=1
	fi
	for n in "${NODES[@]}"; do
		running "slurmd-$n" || { start_slurmd "$n"; started=1; }
	done
	mark_applied slurm
	wait_nodes
	if [ "$started" = 0 ]; then
		log "cluster already up and healthy ($DIR)"
	else
		log "cluster up in $((SECONDS - t0))s; clients: eval \"\$($0 env)\""
	fi
}

# Job steps (slurmstepd processes) of this cluster still running: slurmstepd
# runs in slurmd's log directory and keeps the slurmd log open (it rewrites its
# environment for the process title, so there is no marker to be found there).
cluster_steps() {
	local p fd
	for p in /proc/[0-9]*; do
		[ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] || continue
		alive "${p#/proc/}" || continue
		if [ "$(readlink "$p/cwd" 2>/dev/null)" = "$LOG" ]; then
			echo "${p#/proc/}"
			continue
		fi
		for fd in "$p"/fd/*; do
			case $(readlink "$fd" 2>/dev/null) in
			"$LOG"/slurmd-*) echo "${p#/proc/}"; break ;;
			esac
		done
	done
}

# descendants PID...: the given pids and all their descendants.
descendants() {
	local -A kids=()
	local p pp out=() queue=("$@")
	for p in /proc/[0-9]*; do
		pp=$(awk '{print $4}' "$p/stat" 2>/dev/null) || continue
		[ -n "$pp" ] && kids[$pp]+=" ${p#/proc/}"
	done
	while [ "${#queue[@]}" -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		out+=("$p")
		# shellcheck disable=SC2206
		[ -n "${kids[$p]:-}" ] && queue+=(${kids[$p]})
	done
	echo "${out[@]}"
}

kill_steps() {
	local steps pids
	steps=$(cluster_steps)
	[ -n "$steps" ] || return 0
	# shellcheck disable=SC2086
	pids=$(descendants $steps)
	log "killing leftover job steps of this cluster: $pids"
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
}

cmd_down() {
	local keep_jobs=0 n pid
	case ${1:-} in
	--keep-jobs) keep_jobs=1 ;;
	'') ;;
	*) echo "cluster.sh down: unknown option '$1' (accepted: --keep-jobs)" >&2; exit 2 ;;
	esac
	# signal all slurmd at once, then wait for each
	for n in "${NODES[@]}"; do
		if pid=$(pid_of "slurmd-$n"); then
			log "stopping slurmd-$n (pid $pid)"
			kill -TERM "$pid" 2>/dev/null || true
		fi
	done
	for n in "${NODES[@]}"; do stop "slurmd-$n"; done
	[ "$keep_jobs" = 1 ] || kill_steps
	stop slurmctld-backup	# first: it would take over from the primary
	stop slurmctld
	stop slurmdbd
	stop mariadb
	stop munged
	log "cluster down (state kept in $DIR)"
}

cmd_status() {
	local name pid all=0
	for name in "${DAEMONS[@]}"; do
		if pid=$(pid_of "$name"); then
			printf '%-14s running  pid %s\n' "$name" "$pid"
		else
			printf '%-14s stopped\n' "$name"
			all=3
		fi
	done
	if pid=$(pid_of slurmctld-backup); then
		printf '%-16s running  pid %s\n' slurmctld-backup "$pid"
	elif [ "$BACKUP" = 1 ]; then
		printf '%-16s stopped\n' slurmctld-backup
		all=3
	fi
	if running slurmctld; then
		sinfo || true
	fi
	return "$all"
}

cmd_env() {
	[ "$SLURM_PREFIX" = /usr ] || printf 'export PATH=%q:$PATH\n' "$SLURM_PREFIX/bin:$SLURM_PREFIX/sbin"
	printf 'export SB_SLURM=%q\n' "$SLURM_RELEASE"
	printf 'export SLURM_CONF=%q\n' "$CONF"
	printf 'export SB_CLUSTER_DIR=%q\n' "$DIR"
	printf 'export SB_BUILD_DIR=%q\n' "$BUILD"
	printf 'export SB_PORT_OFFSET=%q\n' "$PORT_OFFSET"
	# the README's sbudget and sbudget-sim commands, from this build (with
	# SB_PLUGIN_DIR, the installed ones on PATH)
	[ -n "$PLUGIN_SRC" ] || printf 'export PATH=%q:$PATH\n' "$BUILD/src/sbudget:$BUILD/src/sim"
}

cmd_restart_ctld() {
	running slurmctld || die "slurmctld is not running (use 'up')"
	stop slurmctld
	start_slurmctld
	wait_nodes
	log "slurmctld restarted"
}

cmd_kill_backup() {
	local pid
	pid=$(pid_of slurmctld-backup) || { log "the backup slurmctld is not running"; return 0; }
	log "kill -9 the backup slurmctld (pid $pid)"
	kill -KILL "$pid"
	wait_for 10 not_running slurmctld-backup || die "the backup slurmctld (pid $pid) survived kill -9"
}

cmd_kill_ctld() {
	local pid
	pid=$(pid_of slurmctld) || { log "slurmctld is not running"; return 0; }
	log "kill -9 slurmctld (pid $pid)"
	kill -KILL "$pid"
	wait_for 10 not_running slurmctld || die "slurmctld (pid $pid) survived kill -9"
}

main() {
	local cmd=${1:-} a
	if [ $# -gt 0 ]; then shift; fi
	for a in "$@"; do
		case $a in -h | --help) usage; return 0 ;; esac
	done
	case $cmd in
	'' | -h | --help | help) usage; return 0 ;;
	up | down | status | env | restart-ctld | kill-ctld | kill-backup) ;;
	*)
		echo "cluster.sh: unknown command '$cmd' (accepted: up, down, status, env, restart-ctld, kill-ctld, kill-backup, --help)" >&2
		return 2
		;;
	esac
	if [ "$cmd" = up ] && [ "${1:-}" = --backup ]; then
		BACKUP=1
		shift
	fi
	if [ "$cmd" != down ] && [ $# -gt 0 ]; then
		echo "cluster.sh $cmd: unexpected argument '$1'" >&2
		return 2
	fi
	init_paths
	case $cmd in
	env | status) ;;
	*) [ "$(id -u)" = 0 ] || die "'$cmd' must run as root (the cluster's daemons run as root)" ;;
	esac
	case $cmd in
	up) cmd_up ;;
	down) cmd_down "$@" ;;
	status) cmd_status ;;
	env) cmd_env ;;
	restart-ctld) cmd_restart_ctld ;;
	kill-ctld) cmd_kill_ctld ;;
	kill-backup) cmd_kill_backup ;;
	esac
}

main "$@"
