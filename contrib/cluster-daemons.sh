# shellcheck shell=bash
# contrib/cluster-daemons.sh - the daemons of the local test cluster: process
# handling (pid files, waiting, stopping, ports) and starting munged, MariaDB,
# slurmdbd, slurmctld (and its backup) and the slurmd of every node.
# Sourced by contrib/cluster.sh, never run on its own: it uses cluster.sh's
# settings (NODES, ports, timeouts), paths (init_paths) and log/die.
# shellcheck disable=SC2154  # settings and paths: set by contrib/cluster.sh

# ------------------------------------------------------- process handling
# Daemons, by name: pid file and the process name (/proc/PID/comm) it must have.
# shellcheck disable=SC2034  # used by cmd_status (cluster.sh)
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
