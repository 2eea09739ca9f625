# shellcheck shell=bash
# t-charge.sh - charging is exact whatever slurmctld's configuration and
# lifetime: priority/budget refuses to start without
# AccountingStorageEnforce=limits (Slurm then never reports job ends to it,
# and a requeue clears the run's times), and a job that ends while
# slurmctld is down is charged exactly what slurmdbd records.

# Without 'limits' in AccountingStorageEnforce slurmctld does not start:
# priority/budget says why, naming the setting to add; with it back,
# slurmctld starts again.  (Started without it, the seconds a requeued run
# held its GPUs since the last recalculation would never be charged.)
test_charge_refuses_to_start_without_limits() {
	clear_cluster
	local mark line
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	mark=$(log_mark)
	# slurmctld exits at start: 'up' fails (quickly: it waits for it)
	if SB_UP_TIMEOUT=15 SB_SLURM_CONF_EXTRA="AccountingStorageEnforce=associations" \
		"$SB_REPO/contrib/cluster.sh" up >/dev/null 2>&1; then
		say "slurmctld started without AccountingStorageEnforce=limits"
		return 1
	fi
	line=$(wait_log "$mark" "priority/budget: AccountingStorageEnforce has no 'limits'" 30)
	say "$line"
	expect_in "$line" "refusing to start. Set AccountingStorageEnforce=associations,limits"
	wait_log "$mark" "fatal: failed to initialize priority plugin" 10 >/dev/null
	wait_for 20 "slurmctld to exit" eval '! ctld_alive'
	# the normal configuration (associations,limits) starts again
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	ctld_alive
	no_log "$mark" "has no 'limits'"
	cleanup_drop
}

# A job that ends while slurmctld is down (killed with -9 once it saved the
# job as running; brought back after the job's end) is charged exactly what
# slurmdbd records for it.  Both count until slurmctld hears of the end
# (slurmstepd's retried completion message), which is after the job really
# ended: the GPUs stay allocated to the job until then.
test_charge_job_ended_while_ctld_down() {
	clear_cluster
	local id mark t_end c s
	cleanup_push "'$SB_REPO/contrib/cluster.sh' up >/dev/null 2>&1"
	id=$(submit sb-dave --min-runtime=0:05 -G 4 --wrap 'sleep 12')
	wait_state "$id" RUNNING 30
	# saved as running, or it would come back as pending (and run again)
	wait_ctld_saved "$(started "$id")"
	t_end=$(( $(started "$id") + 12 ))
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld >/dev/null
	# down until the job's end has passed (the scenario itself)
	wait_until $((t_end + 3)) "the job ended while slurmctld was down"
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$mark" "priority/budget: loaded the ledger" 30 >/dev/null
	wait_state "$id" COMPLETED 60
	c=$(ledger_charged "$id")
	s=$(charge_gpu_seconds "$id")
	say "job $id (4 GPUs, slept 12 s): slurmdbd $s GPU-s ($(sacct -n -P -X -j "$id" -o Start,End,ElapsedRaw | head -n 1)), ledger $c"
	[ "$s" -gt 0 ] || { say "slurmdbd has no GPU-seconds of job $id"; return 1; }
	[ "$c" = "$s" ] || { say "ledger $c != slurmdbd $s"; return 1; }
	cleanup_drop
}

# A run that ends by a requeue is charged exactly, even when slurmctld is
# killed before priority/budget's next recalculation: Slurm tells the
# plugin the run's end (priority_p_job_end, queued for the recalculation)
# and then clears the job's start and end times, so the queued end dies
# with the process.  After loading its saved ledger, priority/budget reads
# back from slurmdbd what ended since the save.  CalcPeriod=30 so the whole
# requeued run falls between two recalculations (without the read-back:
# ledger 0 GPU-s for the requeued 8 s run of 4 GPUs, slurmdbd 32).
test_charge_requeued_run_across_kill9() {
	clear_cluster
	local conf id mark c s
	conf=$(sed 's/^CalcPeriod=.*/CalcPeriod=30/' "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	set_budget_conf "$conf"
	id=$(submit sb-bob --min-runtime=0:02 --resumable -G 4 --wrap 'sleep 300')
	wait_state "$id" RUNNING 30
	# the run itself: 8 s
	wait_until $(( $(started "$id") + 8 )) "the first run has run 8 s"
	scontrol requeue "$id"
	wait_eq 10 "job $id requeued" 1 job_field "$id" Restarts
	# slurmctld saved the job as requeued (start cleared), then dies
	wait_ctld_saved "$(date +%s)"
	mark=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld >/dev/null
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	say "$(wait_log "$mark" "priority/budget: reconciled the loaded ledger with slurmdbd" 60)"
	scancel "$id"
	wait_state "$id" CANCELLED 60
	# The site's CalcPeriod (1 s) back before the charge is read: with
	# CalcPeriod=30 and the job's end not waking the recalculation, the
	# first save at its end + 2 s (wait_recalc_after) may come 31 s after
	# it, past ledger_charged's 30 s.  (The reconfigure wakes it at once.)
	set_budget_conf "$(cat "$SB_CLUSTER_DIR/budget.conf.keep")"
	c=$(ledger_charged "$id")
	s=$(charge_gpu_seconds "$id")
	say "job $id: slurmdbd's runs: $(sacct -n -P -D -X -j "$id" -o Start,End,ElapsedRaw,State | tr '\n' ' ')"
	say "slurmdbd $s GPU-s, ledger $c"
	# The first run (8 s x 4 GPUs by scontrol's StartTime) is in slurmdbd
	# as REQUEUED.  slurmdbd's record of a run that crossed a kill -9 can
	# be a second shorter than scontrol's times (7 s: ledger 28 =
	# slurmdbd 28): at least 7 s, and the ledger equal to it.
	sacct -n -P -D -X -j "$id" -o State | grep -q '^REQUEUED' ||
		{ say "the first run is not in slurmdbd"; return 1; }
	[ "$s" -ge 28 ] || { say "the first run is in slurmdbd with $s GPU-s, not 8 s x 4"; return 1; }
	[ "$c" = "$s" ] || { say "ledger $c != slurmdbd $s"; return 1; }
}
