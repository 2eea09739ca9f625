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

# ------------------------------------------------------- process handling
# Daemons, by name: pid file and the process name (/proc/PID/comm) it must have.
DAEMONS=(munged mariadb slurmdbd slurmctld "${NODES[@]/#/slurmd-}")

pidfile_of() {
	case $1 in
	mariadb) echo "$RUN/mariadb.pid" ;;
	slurmctld-backup) echo "$BACKUP_RUN/slurmctld.pid" ;; # see start_backup
	*) echo "$RUN/$1.pid" ;;
	esac
}

comm_of() {
	case $1 in
	mariadb) echo mariadbd ;;
	slurmd-*) echo slurmd ;;
	slurmctld-backup) echo slurmctld ;;
	*) echo "$1" ;;
	esac
}

logfile_of() { echo "$LOG/$1.log"; }

# alive PID: the process exists and is not a zombie (daemons are reparented to
# PID 1, which may not reap them promptly).
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# pid_of NAME: print the pid if the daemon runs (pid file + matching process).
pid_of() {
	local pf pid comm
	pf=$(pidfile_of "$1")
	[ -s "$pf" ] && [ -r "$pf" ] || return 1
	# the first line only: a 24.11 slurmctld started by a reconfigure
	# writes its pid over its parent's without truncating the file, so a
	# shorter pid leaves the old one's last digits on a second line
	pid=$(head -n 1 "$pf" | tr -dc '0-9')
	[ -n "$pid" ] || return 1
	comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
	[ "$comm" = "$(comm_of "$1")" ] || return 1
	alive "$pid" || return 1
	echo "$pid"
}

running() { pid_of "$1" >/dev/null; }

# wait_for SECONDS COMMAND...: poll COMMAND every 0.2 s until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$deadline" ] || return 1
		sleep 0.2
	done
}

not_running() { ! running "$1"; }

# any_running NAME...: at least one of the daemons runs.
any_running() {
	local n
	for n in "$@"; do
		if running "$n"; then return 0; fi
	done
	return 1
}

# stop NAME [SIGNAL]: signal the daemon, wait, kill -9 after STOP_TIMEOUT.
stop() {
	local name=$1 sig=${2:-TERM} pid
	pid=$(pid_of "$name") || return 0
	log "stopping $name (pid $pid)"
	kill -"$sig" "$pid" 2>/dev/null || true
	if ! wait_for "$STOP_TIMEOUT" not_running "$name"; then
		log "$name did not exit after ${STOP_TIMEOUT}s, kill -9"
		kill -KILL "$pid" 2>/dev/null || true
		wait_for 10 not_running "$name" || die "cannot kill $name (pid $pid)"
	fi
}

# port_free PORT [ADDR]: nothing listens on ADDR:PORT (default 127.0.0.1;
# else: another cluster?).
port_free() {
	! (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# need_port WHAT PORT ENVVAR [ADDR]: fail clearly if the port is taken.
need_port() {
	port_free "$2" "${4:-}" && return 0
	die "port $2 for $1 is already in use${4:+ on $4} (another cluster or a system Slurm?); stop it, or choose another port with $3=..."
}

# Run a daemon detached from our stdio, so callers capturing our output do not hang.
spawn() { "$@" </dev/null >>"$LOG/daemons.out" 2>&1; }

# ------------------------------------------------------------- config files
# Plugins of this project: for each plugins/<name>/.libs/<name>.so that is
# built (SB_PLUGIN_DIR/<name>.so that is installed), print the slurm.conf
# lines that switch it on.  To add a plugin, add a
# case here (and to BUDGET_PLUGINS).
BUDGET_PLUGINS=(job_submit_budget priority_budget preempt_budget spank_budget)

plugin_so() {
	if [ -n "$PLUGIN_SRC" ]; then
		echo "$PLUGIN_SRC/$1.so"
	else
		echo "$BUILD/plugins/$1/.libs/$1.so"
	fi
}

# The budget plugins' files the running daemons were started with.
plugin_files() {
	if [ -n "$PLUGIN_SRC" ]; then
		local p
		for p in "${BUDGET_PLUGINS[@]}"; do
			[ ! -f "$PLUGIN_SRC/$p.so" ] || echo "$PLUGIN_SRC/$p.so"
		done
	else
		find "$BUILD/plugins" -path '*/.libs/*.so' -type f 2>/dev/null
	fi
}

plugin_conf_lines() {
	local so
	so=$(plugin_so "$1")
	[ -f "$so" ] || return 0
	case $1 in
	job_submit_budget) echo "JobSubmitPlugins=budget" ;;
	priority_budget) echo "PriorityType=priority/budget" ;;
	preempt_budget) printf '%s\n' "PreemptType=preempt/budget" "PreemptMode=REQUEUE" ;;
	spank_budget) echo "PlugStackConfig=$DIR/plugstack.conf" ;; # see write_plugstack
	*) die "plugin_conf_lines: unknown plugin $1" ;;
	esac
}

# PluginDir: every built plugin dir of this tree, then the system dir (the
# first directory holding a plugin wins); with SB_PLUGIN_DIR, that directory
# and the system dir.
plugin_dir() {
	local d list=
	if [ -n "$PLUGIN_SRC" ]; then
		[ "$PLUGIN_SRC" = "$SYS_PLUGIN_DIR" ] || list=$PLUGIN_SRC:
		echo "$list$SYS_PLUGIN_DIR"
		return
	fi
	for d in "$BUILD"/plugins/*/.libs; do
		[ -d "$d" ] && list="$list$d:"
	done
	echo "$list$SYS_PLUGIN_DIR"
}

# plugstack.conf for the SPANK plugin (slurmstepd and the clients read it).
write_plugstack() {
	local so
	so=$(plugin_so spank_budget)
	[ -f "$so" ] || return 0
	write_if_changed "$DIR/plugstack.conf" <<-EOF
		# generated by contrib/cluster.sh
		required $so
	EOF
}

# write_if_changed FILE [MODE] < content: replace FILE only if content differs
# (so its mtime tells when the configuration last changed).
write_if_changed() {
	local file=$1 mode=${2:-644} tmp
	tmp=$(mktemp "$file.XXXXXX")
	cat >"$tmp"
	chmod "$mode" "$tmp"
	if [ -f "$file" ] && cmp -s "$tmp" "$file"; then
		rm -f "$tmp"
	else
		mv -f "$tmp" "$file"
	fi
}

# Checksums of the configuration the running daemons were started with are
# kept in $RUN/*.applied; 'up' restarts daemons whose configuration changed,
# or whose plugins in the build tree were rebuilt (their checksums count too).
slurm_conf_sum() {
	{
		cat "$CONF" "$DIR/gres.conf"
		[ ! -f "$DIR/plugstack.conf" ] || cat "$DIR/plugstack.conf"
		stat -c '%n %F %t %T' "$DIR"/dev/nvidia*
		plugin_files | sort | while read -r f; do md5sum "$f"; done
	} | md5sum | cut -d' ' -f1
}
dbd_conf_sum() { md5sum <"$DIR/slurmdbd.conf" | cut -d' ' -f1; }

# conf_outdated NAME: the stamp $RUN/NAME.applied differs from the config now.
conf_outdated() {
	local now
	now=$("${1}_conf_sum")
	[ "$(cat "$RUN/$1.applied" 2>/dev/null)" != "$now" ]
}
mark_applied() { "${1}_conf_sum" >"$RUN/$1.applied"; }

# Lines that only one release accepts: 24.11 has no task/none and
# switch/none plugins (no TaskPlugin/SwitchType line means none there).
release_conf_lines() {
	case $SLURM_RELEASE in
	22.05) printf '%s\n' "TaskPlugin=task/none" "SwitchType=switch/none" ;;
	esac
}

# primary_addr: the primary slurmctld's address.  With a backup, each
# slurmctld listens only on the address its hostname resolves to
# (NoCtldInAddrAny), so the primary's is this host's (127.0.0.1 here).
primary_addr() {
	local addr
	if [ "$BACKUP" != 1 ]; then
		echo 127.0.0.1
		return 0
	fi
	addr=$(getent ahostsv4 "$(hostname)" | awk 'NR == 1 { print $1 }')
	[ -n "$addr" ] || die "this host's name '$(hostname)' does not resolve to an IPv4 address: the primary slurmctld of a cluster with a backup listens there"
	[ "$addr" != "$BACKUP_ADDR" ] || die "this host's name resolves to $addr, the backup's address: choose another with SB_BACKUP_ADDR=127.0.0.N"
	echo "$addr"
}

# The lines only a cluster with a backup slurmctld has (see --help).
backup_conf_lines() {
	printf '%s\n' "SlurmctldHost=$BACKUP_HOST($BACKUP_ADDR)" \
		"SlurmctldTimeout=8" "CommunicationParameters=NoCtldInAddrAny"
}

slurm_conf() {
	local host plugin lines prio_type=priority/multifactor ctld_addr
	local -a plugin_lines=()
	host=$(hostname -s)
	ctld_addr=$(primary_addr)
	for plugin in "${BUDGET_PLUGINS[@]}"; do
		lines=$(plugin_conf_lines "$plugin")
		[ -n "$lines" ] || continue
		if [ "$plugin" = priority_budget ]; then
			prio_type=${lines#PriorityType=}
		else
			plugin_lines+=("$lines")
		fi
	done
	cat <<EOF
# generated by contrib/cluster.sh on each 'up' - edit the script, not this file
ClusterName=$CLUSTER
SlurmctldHost=$host($ctld_addr)
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCK,cred_expire=5
PluginDir=$(plugin_dir)
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd-%n.pid
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
$(release_conf_lines)
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
MinJobAge=300
MaxJobCount=100000
JobRequeue=1
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=100000,batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
PriorityType=$prio_type
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$DBD_PORT
AccountingStoragePass=socket=$MUNGE_SOCK
AccountingStorageEnforce=associations,limits
AccountingStorageTRES=gres/gpu
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
EOF
	if [ "${#plugin_lines[@]}" -gt 0 ]; then
		echo "# budget plugins in $(dirname "$(plugin_so priority_budget)")"
		printf '%s\n' "${plugin_lines[@]}"
	fi
	local i port
	for i in "${!NODES[@]}"; do
		port=$((SLURMD_PORT + i))
		echo "NodeName=${NODES[$i]} NodeAddr=127.0.0.1 NodeHostname=$host Port=$port CPUs=8 Sockets=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=4096 Gres=gpu:8 State=UNKNOWN"
	done
	echo "PartitionName=gpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO"
	if [ "$BACKUP" = 1 ]; then
		echo "# backup slurmctld (up --backup; SlurmctldHost lines in order: primary first)"
		backup_conf_lines
	fi
	if [ -n "${SB_SLURM_CONF_EXTRA:-}" ]; then
		echo "# from SB_SLURM_CONF_EXTRA"
		printf '%s\n' "$SB_SLURM_CONF_EXTRA"
	fi
}

# Fake GPUs $DIR/dev/nvidia0..7: character devices with NVIDIA's numbers
# (195, N; no driver here, nothing can open them) so that slurmd accepts them
# and sets CUDA_VISIBLE_DEVICES; plain files if mknod is not permitted (slurmd
# then logs "is not a valid character or block device" and sets no
# CUDA_VISIBLE_DEVICES, but allocation and accounting still work).
make_gpu_devices() {
	local i f
	for i in 0 1 2 3 4 5 6 7; do
		f=$DIR/dev/nvidia$i
		[ -c "$f" ] && continue
		rm -f "$f"
		mknod -m 666 "$f" c 195 "$i" 2>/dev/null || : >"$f"
	done
}

write_configs() {
	mkdir -p "$LOG" "$RUN" "$DIR/state" "$DIR/dev" "$DIR/munge" "$DIR/mysql"
	local n i
	for n in "${NODES[@]}"; do mkdir -p "$DIR/spool/$n"; done
	chmod 755 "$DIR/spool" "$DIR/spool"/*
	mkdir -p "$DIR/work"
	chmod 1777 "$DIR/work"
	make_gpu_devices

	write_plugstack
	local content
	content=$(slurm_conf)
	write_if_changed "$CONF" <<<"$content"

	write_if_changed "$DIR/gres.conf" <<-EOF
		# generated by contrib/cluster.sh: fake GPUs (see make_gpu_devices)
		AutoDetect=off
		NodeName=$(IFS=,; echo "${NODES[*]}") Name=gpu File=$DIR/dev/nvidia[0-7]
	EOF

	if [ ! -f "$DIR/budget.conf" ]; then
		log "writing default $DIR/budget.conf"
		cat >"$DIR/budget.conf" <<-'EOF'
			# budget.conf - slurm-budget plugin configuration, read beside slurm.conf.
			# Written once by contrib/cluster.sh; edit freely, 'up' keeps your changes.
			# Longest minimum runtime (--min-runtime) a job may declare.
			MaxMinRuntime=8:00:00
			# Test-cluster timing: recalculate every second, a 1-day window of
			# 1-minute buckets (site defaults: 60 s, 7 days, 1 hour).
			CalcPeriod=1
			LookbackWindow=1-0
			BucketWidth=1
			# Preempt at once (site default: 30 s of SIGTERM first); drain a
			# node with a reason starting "repair" to release its jobs.
			PreemptGraceTime=0
			RepairReason=repair*
			# The debug lane off, so the integration tests see each other
			# rule alone (test/integration/t-lane.sh turns it on; sites
			# get it on: 8 GPUs, 15 minutes, 8 GPUs per association).
			DebugLaneTRES=0
			# No restart backoff for unallocated jobs, so tests can evict
			# one several times in a row (t-preempt.sh's backoff tests
			# turn it on; sites get it on, at most 1 day).
			UnallocatedRestartBackoffMax=0
		EOF
	fi

	[ -s "$DB_PASS_FILE" ] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$DB_PASS_FILE")
	write_if_changed "$DIR/slurmdbd.conf" 600 <<-EOF
		# generated by contrib/cluster.sh
		AuthType=auth/munge
		AuthInfo=socket=$MUNGE_SOCK
		DbdAddr=127.0.0.1
		DbdHost=localhost
		DbdPort=$DBD_PORT
		SlurmUser=root
		PluginDir=$SYS_PLUGIN_DIR
		LogFile=$LOG/slurmdbd.log
		PidFile=$RUN/slurmdbd.pid
		DebugLevel=info
		StorageType=accounting_storage/mysql
		StorageHost=127.0.0.1
		StoragePort=$DB_PORT
		StorageUser=slurm
		StoragePass=$(cat "$DB_PASS_FILE")
		StorageLoc=slurm_acct_db
	EOF
}

# ------------------------------------------------------------------ daemons
munge_ok() { munge -n -S "$MUNGE_SOCK" | unmunge -S "$MUNGE_SOCK"; }

start_munged() {
	if [ ! -s "$MUNGE_KEY" ]; then
		log "creating munge key"
		mungekey --create --keyfile="$MUNGE_KEY" --force
	fi
	# munged wants a key only root can read and a socket dir no one else can
	# write; clients (any user) must reach the socket.
	chmod 755 "$DIR/munge"
	chmod 400 "$MUNGE_KEY"
	log "starting munged"
	spawn munged --force --socket="$MUNGE_SOCK" --key-file="$MUNGE_KEY" \
		--pid-file="$(pidfile_of munged)" --log-file="$(logfile_of munged)" \
		--seed-file="$DIR/munge/munged.seed" ||
		die_log "munged failed to start" "$(logfile_of munged)"
	wait_for "$UP_TIMEOUT" munge_ok || die_log "munged does not answer on $MUNGE_SOCK" "$(logfile_of munged)"
}

db_sql() { mariadb --no-defaults --socket="$DB_SOCK" -uroot --batch -e "$1"; }
db_ping() { mariadb-admin --no-defaults --socket="$DB_SOCK" -uroot ping; }

start_mariadb() {
	if [ ! -d "$DB_DATA/mysql" ]; then
		log "initialising MariaDB datadir $DB_DATA"
		mkdir -p "$DB_DATA"
		mariadb-install-db --no-defaults --datadir="$DB_DATA" --user=root \
			--auth-root-authentication-method=socket --skip-test-db \
			>"$LOG/mariadb-install.log" 2>&1 ||
			die_log "mariadb-install-db failed" "$LOG/mariadb-install.log"
	fi
	need_port MariaDB "$DB_PORT" SB_DB_PORT
	log "starting MariaDB on 127.0.0.1:$DB_PORT"
	rm -f "$DB_SOCK"
	setsid mariadbd --no-defaults --user=root --datadir="$DB_DATA" \
		--bind-address=127.0.0.1 --port="$DB_PORT" --socket="$DB_SOCK" \
		--pid-file="$(pidfile_of mariadb)" --log-error="$(logfile_of mariadb)" \
		--skip-name-resolve --innodb-buffer-pool-size=128M \
		--innodb-lock-wait-timeout=900 --innodb-log-file-size=64M \
		</dev/null >>"$LOG/daemons.out" 2>&1 &
	wait_for "$UP_TIMEOUT" db_ping || die_log "MariaDB did not come up" "$(logfile_of mariadb)"
	wait_for 10 running mariadb || die_log "MariaDB pid file missing" "$(logfile_of mariadb)"
	chmod 644 "$(pidfile_of mariadb)" # for 'status' as any user
}

# The slurmdbd account (password in $DB_PASS_FILE), made sure of on each up.
ensure_db_user() {
	local pass
	pass=$(cat "$DB_PASS_FILE")
	db_sql "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
		ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
		GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
		GRANT ALL ON \`slurm_acct_db\_%\`.* TO 'slurm'@'127.0.0.1';" ||
		die "cannot create the MariaDB user for slurmdbd"
}

dbd_ok() { sacctmgr -nP show cluster format=cluster; }

start_slurmdbd() {
	need_port slurmdbd "$DBD_PORT" SB_DBD_PORT
	log "starting slurmdbd on 127.0.0.1:$DBD_PORT"
	spawn slurmdbd || die_log "slurmdbd failed to start" "$(logfile_of slurmdbd)"
	wait_for "$UP_TIMEOUT" running slurmdbd || die_log "slurmdbd did not start" "$(logfile_of slurmdbd)"
	wait_for "$UP_TIMEOUT" dbd_ok || die_log "slurmdbd does not answer on port $DBD_PORT" "$(logfile_of slurmdbd)"
}

ctld_ok() { scontrol ping | grep -q '(primary) at .* is UP'; }
backup_ok() { scontrol ping | grep -q '(backup) at .* is UP'; }

start_slurmctld() {
	need_port slurmctld "$CTLD_PORT" SB_CTLD_PORT "$(primary_addr)"
	log "starting slurmctld on 127.0.0.1:$CTLD_PORT"
	spawn slurmctld -f "$CONF" || die_log "slurmctld failed to start" "$(logfile_of slurmctld)"
	wait_for "$UP_TIMEOUT" running slurmctld || die_log "slurmctld did not start" "$(logfile_of slurmctld)"
	wait_for "$UP_TIMEOUT" ctld_ok || die_log "slurmctld does not answer on port $CTLD_PORT" "$(logfile_of slurmctld)"
}

# The backup slurmctld: Slurm takes a slurmctld's SlurmctldHost entry from
# its hostname (controller.c, _controller_index()) and, with NoCtldInAddrAny,
# listens on the address that name resolves to; both are the namespaces'.
# $BACKUP_RUN is mounted over $RUN there, so its pid file (the same
# SlurmctldPidFile, which a starting slurmctld reads to kill the daemon it
# names) is $BACKUP_RUN/slurmctld.pid.
start_backup() {
	need_port "backup slurmctld" "$CTLD_PORT" SB_CTLD_PORT "$BACKUP_ADDR"
	mkdir -p "$BACKUP_RUN"
	rm -f "$BACKUP_RUN/slurmctld.pid"
	{ cat /etc/hosts; echo "$BACKUP_ADDR $BACKUP_HOST"; } >"$BACKUP_RUN/hosts"
	log "starting the backup slurmctld ($BACKUP_HOST) on $BACKUP_ADDR:$CTLD_PORT"
	# shellcheck disable=SC2016 # expanded by the inner sh
	spawn unshare --uts --mount sh -c 'hostname "$1" && mount --bind "$2" "$3" &&
		mount --bind "$2/hosts" /etc/hosts && exec slurmctld -f "$4" -L "$5"' \
		sh "$BACKUP_HOST" "$BACKUP_RUN" "$RUN" "$CONF" "$(logfile_of slurmctld-backup)" ||
		die_log "the backup slurmctld failed to start" "$(logfile_of slurmctld-backup)"
	wait_for "$UP_TIMEOUT" running slurmctld-backup || die_log "the backup slurmctld did not start" "$(logfile_of slurmctld-backup)"
	wait_for "$UP_TIMEOUT" backup_ok || die_log "the backup slurmctld does not answer on $BACKUP_ADDR:$CTLD_PORT" "$(logfile_of slurmctld-backup)"
}

start_slurmd() {
	local node=$1 i
	for i in "${!NODES[@]}"; do
		if [ "${NODES[$i]}" = "$node" ]; then
			need_port "slurmd $node" $((SLURMD_PORT + i)) SB_SLURMD_PORT
		fi
	done
	log "starting slurmd $node"
	spawn slurmd -N "$node" -f "$CONF" || die_log "slurmd $node failed to start" "$(logfile_of "slurmd-$node")"
	wait_for "$UP_TIMEOUT" running "slurmd-$node" || die_log "slurmd $node did not start" "$(logfile_of "slurmd-$node")"
}

# nodes_ok: every node registered, responding and not down/failed.
nodes_ok() {
	local out name state n=0
	# one line per node even when it is in several partitions
	out=$(sinfo -h -N -o '%N %t' | sort -u) || return 1
	while read -r name state; do
		[ -n "$name" ] || continue
		n=$((n + 1))
		case $state in
		*'*'* | *'~'* | *'#'* | *'%'* | *'!'* | down* | unk* | fail* | boot* | futr* | inval* | npc* | pow* | reboot*) return 1 ;;
		esac
	done <<<"$out"
	[ "$n" -eq "${#NODES[@]}" ]
}

wait_nodes() {
	log "waiting for ${#NODES[@]} nodes to respond (up to ${UP_TIMEOUT}s)"
	if ! wait_for "$UP_TIMEOUT" nodes_ok; then
		sinfo -N -o '%N %t %E' >&2 || true
		die "nodes not ready after ${UP_TIMEOUT}s; see $LOG/slurmctld.log and $LOG/slurmd-gpu0*.log"
	fi
}

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
