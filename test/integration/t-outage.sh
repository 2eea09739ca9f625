# shellcheck shell=bash
# t-outage.sh - slurmdbd, then MariaDB, down (30 s; SB_OUTAGE_SECS) while jobs start,
# are preempted and end.  slurmctld queues its accounting records and
# answers at once; priority/budget charges from slurmctld's own job
# records; sbudget says accounting is unreachable instead of printing
# figures; once the daemon is back, slurmdbd has every run and the ledger
# equals it, job by job: nothing lost, nothing charged twice.

# How long the daemon stays down, seconds (several scheduling and
# recalculation cycles, slurmctld's accounting agent retrying throughout).
OUTAGE_SECS=${SB_OUTAGE_SECS:-30}

# outage_pid DAEMON - the running daemon's pid (slurmdbd or mariadb).
outage_pid() { head -n 1 "$SB_CLUSTER_DIR/run/$1.pid" 2>/dev/null | tr -dc '0-9'; }

# outage_quick CMD... - CMD answers within 3 s (slurmctld does not block).
outage_quick() {
	local t0=$EPOCHREALTIME
	timeout 10 "$@" >/dev/null || { say "'$*' failed during the outage"; return 1; }
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 3) }' ||
		{ say "'$*' took more than 3 s during the outage"; return 1; }
}

# outage_scenario DAEMON - the scenario with DAEMON (slurmdbd or mariadb)
# stopped: before it, V's resumable job r runs on gpu01; during it, V's
# short job e starts and ends on gpu02, G's job g preempts r (V has used
# its share, G has not) and ends; after it, every run is in slurmdbd.
outage_scenario() {
	local daemon=$1 t P V G r e g pid t_down out j c s
	clear_cluster
	t=$(date +%s); P=out$t; V=out$t-v; G=out$t-g
	fresh_budgets "$P" "$V:1:sb-dave" "$G:1:sb-alice"
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1 || true"
	r=$(submit sb-dave -A "$V" -w gpu01 -G 8 --min-runtime=0:02 --resumable --wrap 'sleep 300')
	wait_state "$r" RUNNING 30
	pid=$(outage_pid "$daemon")
	[ -n "$pid" ] || { say "no $daemon pid"; return 1; }
	kill "$pid"
	wait_for 30 "$daemon to stop" bash -c "! kill -0 $pid 2>/dev/null"
	t_down=$(date +%s)
	say "$daemon stopped at $t_down"
	# slurmctld answers at once; sbudget refuses to guess
	outage_quick scontrol ping
	outage_quick squeue
	expect_fail out "$SB_BUILD_DIR/src/sbudget/sbudget" show budget
	expect_in "$out" "accounting is unreachable: slurmdbd did not return"
	# a job starts and ends
	e=$(submit sb-dave -A "$V" -w gpu02 -G 4 --min-runtime=0:02 --wrap 'sleep 5')
	wait_state "$e" COMPLETED 60
	# r past its minimum runtime and charged: G outranks V and takes gpu01
	wait_until $(( $(started "$r") + 8 )) "$r past its minimum runtime, V charged"
	g=$(submit sb-alice -A "$G" -w gpu01 -G 8 --min-runtime=0:03 --wrap 'sleep 5')
	wait_eq 30 "$r requeued for $g" 1 restarts "$r"
	wait_state "$g" COMPLETED 60
	outage_quick squeue
	wait_until $((t_down + OUTAGE_SECS)) "$daemon down for ${OUTAGE_SECS} s"
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	scancel "$r"
	# slurmctld's queued records reach slurmdbd: every run of the three
	wait_for 120 "slurmdbd to have every run (r preempted, e and g completed)" bash -c \
		"sacct -n -P -D -X -j $r -o State | grep -q '^PREEMPTED' &&
		 sacct -n -P -X -j $e -o State | grep -q '^COMPLETED' &&
		 sacct -n -P -X -j $g -o State | grep -q '^COMPLETED'"
	for j in "$r" "$e" "$g"; do
		c=$(ledger_charged "$j"); s=$(charge_gpu_seconds "$j")
		say "job $j: ledger $c GPU-s, slurmdbd $s ($(sacct -n -P -D -X -j "$j" -o State,ElapsedRaw | paste -sd' '))"
		[ "$s" -gt 0 ] && [ "$c" = "$s" ] || { say "job $j: ledger $c != slurmdbd $s"; return 1; }
	done
	# and sbudget answers again, with slurmdbd's figures
	"$SB_BUILD_DIR/src/sbudget/sbudget" -P -n show budget account="$V" format=Account >/dev/null
	clear_cluster
}

test_outage_slurmdbd_down_nothing_lost() { outage_scenario slurmdbd; }
test_outage_mariadb_down_nothing_lost() { outage_scenario mariadb; }
