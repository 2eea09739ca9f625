# shellcheck shell=bash
# t-contract.sh - the minimum-runtime contract: SPANK options,
# job_submit/budget refusals and storage, job_modify protection, budget.conf.

test_help_lists_options() {
	local out
	out=$(sbatch --help 2>&1)
	expect_in "$out" "--min-runtime=TIME"
	expect_in "$out" "--resumable"
	out=$(srun --help 2>&1)
	expect_in "$out" "--min-runtime=TIME"
	out=$(salloc --help 2>&1)
	expect_in "$out" "--min-runtime=TIME"
}

test_refuse_missing_min_runtime() {
	local out
	expect_fail out as sb-alice sbatch -G 1 --wrap true
	expect_in "$out" "no minimum runtime given: submit with --min-runtime=TIME (at most 8:00:00)"
}

test_refuse_malformed_min_runtime() {
	local out v
	for v in 1h abc 1:2:3:4 "" 0x10; do
		expect_fail out as sb-alice sbatch -G 1 --min-runtime="$v" --wrap true
		expect_in "$out" "--min-runtime '$v': malformed value; use Slurm time syntax"
	done
	expect_fail out as sb-alice srun -G 1 --min-runtime=2hours true
	expect_in "$out" "'2hours': malformed value"
	# a field out of range: the message says which fields are bounded
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=0:90 --wrap true
	expect_in "$out" "--min-runtime '0:90': malformed value; use Slurm time syntax as for --time (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S; fields after the first below 60, hours after D- below 24: 1:30, not 0:90)"
}

test_refuse_negative_min_runtime() {
	local out
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=-1 --wrap true
	expect_in "$out" "--min-runtime '-1': negative value"
}

test_refuse_above_site_maximum() {
	local out
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=8:00:01 --wrap true
	expect_in "$out" "min-runtime '8:00:01' (8:00:01) exceeds the site maximum 8:00:00 (MaxMinRuntime)"
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=9999999999 --wrap true
	expect_in "$out" "--min-runtime '9999999999': value out of range"
}

test_refuse_allocation_without_budget() {
	local out
	expect_fail out as sb-carol sbatch -G 1 --min-runtime=10 --wrap true
	expect_in "$out" "min-runtime '10' asks for an allocation but the job's association has no budget"
	expect_in "$out" "--min-runtime=0 to run unallocated"
	# the same user's unallocated job is accepted
	local id
	id=$(submit sb-carol -G 1 --min-runtime=0 --wrap true)
	wait_state "$id" COMPLETED 60
}

test_allocated_job_runs_with_contract_visible() {
	local id ac
	id=$(submit sb-alice -G 2 --min-runtime=0:10 --resumable --wrap 'sleep 1')
	wait_state "$id" COMPLETED 60
	ac=$(job_field "$id" AdminComment)
	expect_in "$ac" "budget:min_runtime=10,resumable=yes,allocated=yes"
	expect_in "$(job_field "$id" Requeue)" "1"
	ac=$(sacct_field "$id" AdminComment)
	expect_in "$ac" "budget:min_runtime=10,resumable=yes,allocated=yes"
}

test_unallocated_job_runs_with_contract_visible() {
	local id ac out
	id=$(submit sb-bob -G 1 --min-runtime=0 --wrap 'sleep 1')
	wait_state "$id" COMPLETED 60
	ac=$(job_field "$id" AdminComment)
	expect_in "$ac" "budget:min_runtime=0,resumable=no,allocated=no"
	# not resumable: the requeue flag is left as the user and the site
	# (JobRequeue=1) set it: requeued (restarting) if preempted
	[ "$(job_field "$id" Requeue)" = 1 ] || { say "Requeue is not 1"; return 1; }
	ac=$(sacct_field "$id" AdminComment)
	expect_in "$ac" "budget:min_runtime=0,resumable=no,allocated=no"
	# --no-requeue is kept: cancelled if preempted
	id=$(submit sb-bob -G 1 --min-runtime=0 --no-requeue --hold --wrap true)
	[ "$(job_field "$id" Requeue)" = 0 ] || { say "--no-requeue: Requeue is $(job_field "$id" Requeue)"; scancel "$id"; return 1; }
	scancel "$id"
	# --resumable needs the requeue --no-requeue forbids: refused
	expect_fail out as sb-bob sbatch -G 1 --min-runtime=0:30 --resumable --no-requeue --wrap true
	expect_in "$out" "budget: --resumable contradicts --no-requeue"
}

# job_submit/budget's note at submission: a job that does not resume and
# may run past its minimum runtime is told, on the submitting terminal,
# what a preemption there costs and what protects its work; jobs with
# nothing to lose get none.  (-t 10 is 10 minutes, --min-runtime=0:30 30 s.)
note_of() {	# note_of ARGS... - sbatch's stderr for a held job, then cancels it
	local id err=$WORK/note.$$
	id=$(as sb-alice sbatch --parsable -o /dev/null --hold -G 1 "$@" --wrap true 2>"$err" | cut -d';' -f1)
	if [ -n "$id" ]; then scancel "$id"; else echo "refused:"; fi
	cat "$err"
	rm -f "$err"
}
test_note_when_work_may_be_lost() {
	local out args conf
	out=$(note_of --min-runtime=0:30 -t 10)
	expect_in "$out" "budget: note: this job does not resume its work (no --resumable) and its time limit 0:10:00 is longer than its minimum runtime 0:00:30: past it, the job runs only while its budget outranks the queue, and a preemption requeues it to start over, losing what it ran; if it checkpoints, submit it with --resumable; --min-runtime=0:10:00 protects all of it"
	# --no-requeue: cancelled; drop it for --resumable
	out=$(note_of --min-runtime=0:30 -t 10 --no-requeue)
	expect_in "$out" "does not resume its work (--no-requeue) and its time limit 0:10:00"
	expect_in "$out" "a preemption cancels it, losing what it ran; if it checkpoints, drop --no-requeue and submit it with --resumable; --min-runtime=0:10:00 protects all of it"
	# --time-min: the job may run to --time, and no minimum runtime
	# above --time-min is accepted
	out=$(note_of --min-runtime=0:30 -t 10 --time-min=2)
	expect_in "$out" "its time limit 0:10:00 is longer than its minimum runtime 0:00:30"
	expect_in "$out" "no minimum runtime protects all of it while its time limit may be as short as 0:02:00 (--time-min, or another partition's)"
	# longer than MaxMinRuntime: only a checkpoint protects it
	out=$(note_of --min-runtime=1:00:00 -t 1-0)
	expect_in "$out" "if it checkpoints, submit it with --resumable; no minimum runtime protects more than 8:00:00 (MaxMinRuntime)"
	# resumable, protected to its time limit, unallocated: no note
	for args in "--min-runtime=0:30 -t 10 --resumable" "--min-runtime=10 -t 10" "--min-runtime=0 -t 10"; do
		# shellcheck disable=SC2086 # the words of $args are separate options
		out=$(note_of $args)
		[ -z "$out" ] || { say "sbatch $args: printed '$out'"; return 1; }
	done
	# srun's allocation gets it too (cannot be requeued)
	out=$(as sb-alice srun -G 1 --min-runtime=0:05 -t 1 true 2>&1)
	expect_in "$out" "budget: note: this job does not resume its work (salloc and srun allocations cannot be requeued) and its time limit 0:01:00 is longer than its minimum runtime 0:00:05"
	# SubmitNote=no: the site turns it off, and the job is still accepted
	conf=$(grep -v '^SubmitNote=' "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	set_budget_conf "$conf
SubmitNote=no"
	out=$(note_of --min-runtime=0:30 -t 10)
	[ -z "$out" ] || { say "SubmitNote=no: sbatch printed '$out'"; return 1; }
}

test_sbatch_directives_and_srun_salloc() {
	local id script=$WORK/directives.sh
	cat > "$script" <<'SCRIPT'
#!/bin/bash
#SBATCH --min-runtime=0:20
#SBATCH --resumable
#SBATCH -G 1
true
SCRIPT
	chmod 755 "$script"
	id=$(submit sb-alice "$script")
	wait_state "$id" COMPLETED 60
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=20,resumable=yes,allocated=yes"
	as sb-alice srun -G 1 --min-runtime=0:05 true
	as sb-alice salloc -G 1 --min-runtime=0 true
}

# A job submitted from inside a job states its own contract: Slurm passes
# every SPANK option to the job's environment (SLURM_SPANK__SLURM_SPANK_
# OPTION_budget_*), which a nested sbatch read back as its own options, so
# a follow-up job without --min-runtime silently got the outer job's
# contract (resumable included) instead of the refusal.
test_nested_submission_states_own_contract() {
	local id out=$WORK/nested.out nested
	rm -f "$out"
	id=$(as sb-alice sbatch --parsable -G 1 --min-runtime=0:07 --resumable \
		-o "$out" --wrap 'sbatch --parsable -G 1 --wrap true; echo "rc=$?"
sbatch --parsable -G 1 --hold --min-runtime=0:05 --wrap true; echo "rc=$?"' |
		cut -d';' -f1)
	wait_state "$id" COMPLETED 60 || return 1
	# the output file is written by slurmd; COMPLETED may come first
	wait_for 10 "both inner submissions in $out" grep -q '^rc=.*' "$out" || return 1
	wait_eq 10 "two rc= lines in $out" 2 grep -c '^rc=' "$out" || return 1
	say "inner submissions: $(tr '\n' ' ' <"$out")"
	expect_in "$(cat "$out")" "no minimum runtime given" || return 1
	[ "$(grep -c '^rc=0$' "$out")" = 1 ] || { say "expected exactly one inner submission accepted"; return 1; }
	nested=$(grep -x '[0-9][0-9]*' "$out" | tail -n 1)
	[ -n "$nested" ] || { say "no job id of the second inner submission"; return 1; }
	expect_in "$(job_field "$nested" AdminComment)" "budget:min_runtime=5,resumable=no,allocated=yes"
	scancel "$nested"
}

test_multinode_gpu_job() {
	local out
	out=$(as sb-alice srun -N 4 --gpus-per-node=8 --min-runtime=0:05 hostname | sort | uniq | wc -l)
	[ "$out" -eq 1 ] || [ "$out" -eq 4 ] || { say "unexpected hostname count $out"; return 1; }
	# every task's line is read (head would close the pipe early: srun,
	# still writing, dies of SIGPIPE and the step is aborted)
	out=$(as sb-alice srun -N 4 --gpus-per-node=8 --min-runtime=0:05 printenv SLURM_JOB_NUM_NODES | sort -u)
	[ "$out" = 4 ] || { say "SLURM_JOB_NUM_NODES=$out"; return 1; }
}

test_user_cannot_change_contract() {
	local id out
	id=$(submit sb-alice -G 1 --min-runtime=0:30 --resumable --hold --wrap true)
	expect_fail out as sb-alice scontrol update jobid="$id" Requeue=0
	expect_in "$out" "Access/permission denied"
	# Slurm 24.11 and later hand job_modify's reason to the user (22.05
	# has no channel for it: the reason is only in slurmctld's log)
	if [ "${SB_SLURM:-22.05}" != 22.05 ]; then
		expect_in "$out" "budget: may not change Requeue from 1 to 0: resumable is part of the job's contract"
	fi
	expect_fail out as sb-alice scontrol update jobid="$id" AdminComment=budget:min_runtime=0,resumable=no,allocated=no
	expect_in "$out" "Access/permission denied"
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=30,resumable=yes,allocated=yes"
	[ "$(job_field "$id" Requeue)" = 1 ] || { say "Requeue changed"; return 1; }
	# an administrator may
	scontrol update jobid="$id" Requeue=0
	[ "$(job_field "$id" Requeue)" = 0 ] || { say "admin change not applied"; return 1; }
	expect_fail out scontrol update jobid="$id" AdminComment=budget:min_runtime=x
	scancel "$id"
	# a job that is not resumable: Requeue is its user's choice (restart
	# or cancel when preempted), so the user may change it
	id=$(submit sb-alice -G 1 --min-runtime=0:30 --hold --wrap true)
	as sb-alice scontrol update jobid="$id" Requeue=0
	[ "$(job_field "$id" Requeue)" = 0 ] || { say "user's Requeue=0 on a non-resumable job not applied"; scancel "$id"; return 1; }
	scancel "$id"
}

test_budget_conf_default_and_reconfigure() {
	local saved id out mark
	saved=$(cat "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	set_budget_conf "MaxMinRuntime=1:00:00
DefaultMinRuntime=5"
	# priority/budget's thread keeps exactly the bytes it parsed as the
	# last valid copy (after its "read" line, outside every lock)
	wait_for 20 "budget.conf.last-valid to be the new file" \
		cmp "$SB_CLUSTER_DIR/budget.conf" "$SB_CLUSTER_DIR/state/budget.conf.last-valid"
	id=$(submit sb-alice -G 1 --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=300,resumable=no,allocated=yes"
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=1:00:01 --wrap true
	expect_in "$out" "exceeds the site maximum 1:00:00"

	# A bad key on reconfigure: the key is named in the log, the previous
	# settings stay.  (job_submit plugins have no reconfigure hook in 22.05:
	# the file is re-read at the first submission after the reconfigure.)
	mark=$(log_mark)
	set_budget_conf "MaxMinRuntime=1:00:00
DefaultMinRuntime=5
MinRuntimeMax=3"
	id=$(submit sb-alice -G 1 --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "min_runtime=300"
	wait_log "$mark" "job_submit/budget: .*budget\.conf line 3: unknown key 'MinRuntimeMax'"
	wait_log "$mark" "job_submit/budget: .*keeping the previous settings"
	ctld_alive
	# ... and across a restart of slurmctld (what every reconfigure is on
	# Slurm 24.11): the last valid file is kept in StateSaveLocation
	local off
	off=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" restart-ctld >/dev/null 2>&1
	id=$(submit sb-alice -G 1 --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "min_runtime=300"
	wait_log "$off" "keeping the previous settings, from the last valid budget.conf kept in $SB_CLUSTER_DIR/state/budget.conf.last-valid"

	# A bad value: named with its key, previous settings kept.
	mark=$(log_mark)
	set_budget_conf "MaxMinRuntime=8h"
	expect_fail out as sb-alice sbatch -G 1 --min-runtime=1:00:01 --wrap true
	expect_in "$out" "exceeds the site maximum 1:00:00"
	wait_log "$mark" "job_submit/budget: .*MaxMinRuntime='8h': malformed value"
	ctld_alive

	# Back to the site's file: a job without min runtime is refused again.
	set_budget_conf "$saved"
	expect_fail out as sb-alice sbatch -G 1 --wrap true
	expect_in "$out" "no minimum runtime given"
}

# A budget.conf that is not a text file: a FIFO (opened without waiting:
# slurmctld never blocks on it) and a file with a NUL byte (the parser would
# stop there) are refused, saying why, and the previous settings stay (on
# 24.11, where the reconfigure restarts slurmctld, from the last valid copy).
test_budget_conf_not_a_text_file() {
	local saved id mark who
	saved=$(cat "$SB_CLUSTER_DIR/budget.conf")
	keep_budget_conf
	set_budget_conf "MaxMinRuntime=1:00:00
DefaultMinRuntime=5"
	wait_for 20 "budget.conf.last-valid to be the new file" \
		cmp "$SB_CLUSTER_DIR/budget.conf" "$SB_CLUSTER_DIR/state/budget.conf.last-valid"

	mark=$(log_mark)
	rm -f "$SB_CLUSTER_DIR/budget.conf.fifo"
	mkfifo "$SB_CLUSTER_DIR/budget.conf.fifo"
	mv -f "$SB_CLUSTER_DIR/budget.conf.fifo" "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	for who in priority/budget preempt/budget; do
		wait_log "$mark" "$who: .*/budget\.conf is not a regular file" 20
	done
	id=$(submit sb-alice -G 1 --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "min_runtime=300"
	wait_log "$mark" "job_submit/budget: .*/budget\.conf is not a regular file"
	ctld_alive

	mark=$(log_mark)
	printf 'MaxMinRuntime=1:00:00\nDefault\0MinRuntime=5\n' > "$SB_CLUSTER_DIR/budget.conf.new"
	mv -f "$SB_CLUSTER_DIR/budget.conf.new" "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	for who in priority/budget preempt/budget; do
		wait_log "$mark" "$who: .*/budget\.conf contains a NUL byte at offset 29" 20
	done
	id=$(submit sb-alice -G 1 --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "min_runtime=300"
	ctld_alive
	set_budget_conf "$saved"
}

# Runs last (sorted by name): every refusal above left slurmctld running.
test_zz_slurmctld_survived_bad_input() {
	ctld_alive || { say "slurmctld is not answering"; return 1; }
	sinfo -h -o '%T' | grep -qv down || { say "nodes down"; return 1; }
}
