# shellcheck shell=bash
# t-failover.sh - the plugins under a backup slurmctld (contrib/cluster.sh up
# --backup): the backup takes over after the primary's kill -9, and after
# `scontrol takeover`; the primary takes control back.  On each controller
# in turn: no job inside its minimum runtime is preempted, a better-placed
# pending job preempts one past it, usage is charged on (RawUsage grows),
# budget.conf is in force, and at the end the ledger charged each job what
# slurmdbd recorded.  Each test starts the backup itself (slurm.conf gains
# a SlurmctldHost: slurmctld and slurmd restart, state kept) and leaves the
# cluster as it found it.

BACKUP_LOG=$SB_CLUSTER_DIR/log/slurmctld-backup.log

# backup_running - the backup slurmctld of this cluster runs.
backup_running() {
	local pid
	pid=$(head -n 1 "$SB_CLUSTER_DIR/run-backup/slurmctld.pid" 2>/dev/null | tr -dc '0-9')
	[ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = slurmctld ]
}

# failover_setup - run the cluster with its backup slurmctld, and when the
# test ends put the cluster back as found (without a backup unless it had
# one; the primary running).
failover_setup() {
	local restore="env -u SB_BACKUP '$SB_REPO/contrib/cluster.sh' up"
	backup_running && restore="SB_BACKUP=1 '$SB_REPO/contrib/cluster.sh' up"
	cleanup_push "$restore >/dev/null"
	# A backup process that has had control once loses the slurmdbd
	# records of its next turn (doc/design.md, "A backup slurmctld"): each
	# test starts from a backup that never had control.
	"$SB_REPO/contrib/cluster.sh" kill-backup >/dev/null 2>&1
	SB_BACKUP=1 "$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_for 30 "both controllers to answer" eval "scontrol ping | grep -c 'is UP' | grep -qx 2"
}

# failover_jobs PARENT - on an empty cluster, V's jobs: p on gpu01 inside its
# minimum runtime (5 minutes) for the whole test, q on gpu02 past its own
# (5 s, resumable); G's (a budget never used, so better placed) held 8-GPU
# jobs g1 pinned to gpu01 and g2 to gpu02.  Sets P Q G1 G2.  Waits until q
# is past its minimum runtime and slurmctld has saved the jobs as running.
failover_jobs() {
	clear_cluster
	fresh_budgets "$1" "$1-v:1000:sb-dave" "$1-g:1000:sb-alice"
	P=$(submit sb-dave -A "$1-v" -w gpu01 -G 8 --min-runtime=5:00 --resumable --wrap 'sleep 600')
	Q=$(submit sb-dave -A "$1-v" -w gpu02 -G 8 --min-runtime=0:05 --resumable --wrap 'sleep 600')
	wait_running "$P" "$Q"
	wait_until $(($(started "$Q") + 6)) "q past its minimum runtime"
	G1=$(submit sb-alice -H -A "$1-g" -w gpu01 -G 8 --min-runtime=0:05 --wrap 'sleep 600')
	G2=$(submit sb-alice -H -A "$1-g" -w gpu02 -G 8 --min-runtime=0:05 --wrap 'sleep 600')
	# A kill -9 loses what slurmctld has not saved yet (the held jobs: the
	# backup would not know them, and slurmctld would give their ids
	# again).  A change in a later second than the submissions is saved
	# in a later second than they were.
	local t
	t=$(submitted "$G2")
	wait_until $((t + 1)) "a second after the submissions"
	scontrol update jobid="$G1" comment=failover
	wait_ctld_saved "$t"
}

# controller_checks PARENT WHO - on the controller in control now: p and q
# still run unpreempted, budget.conf's maximum refuses a submission, usage
# grows; then (when G2 is still held) releasing both G jobs preempts q for
# g2 while g1 waits for p.
controller_checks() {
	local who=$2 out u0 u1
	[ "$(job_field "$P" JobState) $(restarts "$P")" = "RUNNING 0" ] ||
		{ say "$who: protected job $P is $(job_field "$P" JobState), restarts $(restarts "$P")"; return 1; }
	expect_fail out submit sb-alice -A "$1-g" --min-runtime=8:00:01 -G 1 --wrap true
	expect_in "$out" "exceeds the site maximum 8:00:00 (MaxMinRuntime)"
	wait_recalc_after "$(date +%s)"
	u0=$(raw_usage "$1-v")
	wait_recalc_after "$(date +%s)"
	u1=$(raw_usage "$1-v")
	say "$who: $1-v RawUsage $u0 then $u1"
	[ "$u1" -gt "$u0" ] || { say "$who: usage does not grow"; return 1; }
	[ "$(job_field "$G2" JobState)" = PENDING ] || return 0
	[ "$(job_field "$Q" JobState) $(restarts "$Q")" = "RUNNING 0" ] ||
		{ say "$who: job $Q past its min runtime was preempted before g2 was released"; return 1; }
	scontrol release "$G1,$G2"
	wait_state "$G2" RUNNING 30
	expect_in "$(job_field "$Q" SystemComment)" "budget:preempted_by=$G2,"
	# g1 may preempt nothing: p is inside its min runtime.  The
	# observation: 5 s in which nothing may happen (under test).
	sleep 5
	[ "$(job_field "$G1" JobState)" = PENDING ] || { say "$who: g1 is $(job_field "$G1" JobState)"; return 1; }
	[ "$(job_field "$P" JobState) $(restarts "$P")" = "RUNNING 0" ] ||
		{ say "$who: protected job $P was preempted"; return 1; }
	say "$who: g2 $G2 preempted q $Q; g1 $G1 waits for protected p $P"
}

# job_recorded JOBID - slurmdbd has an end for every run of the job (a
# requeued job cancelled while pending has no eligible time: not
# wait_recorded).
job_recorded() {
	local ends
	ends=$(sacct -n -P -D -X -j "$1" -o End)
	[ -n "$ends" ] && ! grep -q Unknown <<<"$ends"
}

# ledger_matches_slurmdbd JOBID... - cancel the jobs, then each was charged
# what slurmdbd recorded (segments x 8 GPUs), within one second of 8 GPUs.
ledger_matches_slurmdbd() {
	local id segs c
	scancel "$@"
	for id in "$@"; do wait_for 60 "job $id to end" job_gone "$id" || return 1; done
	for id in "$@"; do
		wait_for 30 "slurmdbd's records of job $id to be closed" job_recorded "$id" || return 1
		segs=$(sacct -n -P -D -X -j "$id" -o ElapsedRaw | awk '{ s += $1 } END { print s * 8 }')
		c=$(ledger_charged "$id")
		say "job $id: slurmdbd ${segs} GPU-s, ledger $c"
		awk -v a="$segs" -v b="$c" 'BEGIN { d = a - b; exit !(d <= 8 && d >= -8) }' || return 1
	done
}

# ledger_after_failover - p ran from before the failover to after the
# primary's return, its start and end recorded by the primary: slurmdbd and
# the ledger agree on it.  q's requeue and g2's start happened on the
# backup, whose accounting never reaches slurmdbd on Slurm 26.05.3
# (doc/design.md, "A backup slurmctld"): the ledger must have charged them,
# slurmdbd cannot tell how much.
ledger_after_failover() {
	local id c
	ledger_matches_slurmdbd "$P"
	scancel "$Q" "$G2" "$G1"
	for id in "$Q" "$G2"; do
		wait_for 60 "job $id to end" job_gone "$id"
		c=$(ledger_charged "$id")
		say "job $id (run on the backup): ledger $c GPU-s"
		[ "$c" -gt 0 ] || return 1
	done
}

# The failover tests run after every other test but the last (test_zy_:
# tests run in name order).  Slurm 26.05.3's backup in control sends no
# job records to slurmdbd, so the jobs it ran stay without an end in sacct
# for good, and wait_idle would wait on them in every later test.

# kill -9 of the primary: the backup takes over; the plugins go on there;
# the primary comes back and takes control again.
test_zy_failover_kill9_backup_takes_over() {
	local F mark pmark
	F=fo$(date +%s)
	failover_setup
	failover_jobs "$F"
	mark=$(log_mark "$BACKUP_LOG")
	"$SB_REPO/contrib/cluster.sh" kill-ctld
	wait_log "$mark" "BackupController1 .* taking over" 40 "$BACKUP_LOG" >/dev/null
	wait_log "$mark" "Running as primary controller" 40 "$BACKUP_LOG" >/dev/null
	# the plugins of the backup: priority/budget loaded the primary's
	# ledger from the shared StateSaveLocation and reconciled it
	wait_log "$mark" "priority/budget: loaded the ledger" 30 "$BACKUP_LOG" >/dev/null
	controller_checks "$F" backup
	# the primary returns and takes control back
	pmark=$(log_mark)
	mark=$(log_mark "$BACKUP_LOG")
	SB_BACKUP=1 "$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$pmark" "Running as primary controller" 40 >/dev/null
	wait_log "$pmark" "priority/budget: loaded the ledger" 30 >/dev/null
	wait_log "$mark" "slurmctld running in background mode" 30 "$BACKUP_LOG" >/dev/null
	controller_checks "$F" "primary again"
	ledger_after_failover
}

# scontrol takeover: the backup takes control from a running primary (which
# saves and stops), then the primary's return, briefly.
test_zy_failover_takeover_and_primary_return() {
	local F mark pmark
	F=ft$(date +%s)
	failover_setup
	failover_jobs "$F"
	mark=$(log_mark "$BACKUP_LOG")
	pmark=$(log_mark)
	scontrol takeover
	wait_log "$mark" "Running as primary controller" 40 "$BACKUP_LOG" >/dev/null
	wait_log "$mark" "priority/budget: loaded the ledger" 30 "$BACKUP_LOG" >/dev/null
	# the primary saved its ledger on the way out (fini): nothing to
	# reconcile for is lost, and it stopped
	wait_for 30 "the primary slurmctld to stop" eval '! ctld_alive'
	controller_checks "$F" "backup (takeover)"
	pmark=$(log_mark)
	SB_BACKUP=1 "$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$pmark" "Running as primary controller" 40 >/dev/null
	controller_checks "$F" "primary again"
	ledger_after_failover
}
