# shellcheck shell=bash
# t-semantics.sh - the contract holds for every way a job can be shaped
# (issue 12): the effective time limit (partition DefaultTime/MaxTime,
# --time-min) and interactive jobs (--resumable needs a batch job).

# A partition of its own for the duration of one test, created live with
# scontrol (no restart): DefaultTime 1 minute, MaxTime 5 minutes.
with_short_partition() {
	scontrol delete PartitionName=sb-short >/dev/null 2>&1 || true
	scontrol create PartitionName=sb-short Nodes=ALL DefaultTime=1 \
		MaxTime=5 State=UP >/dev/null
	# each test runs in a shell of its own: EXIT also covers a failed step
	trap 'scontrol delete PartitionName=sb-short >/dev/null 2>&1 || true' EXIT
	"$@"
}

_limit_from_partition() {
	local out id
	# no --time: the partition's DefaultTime (1 min) is the job's limit
	expect_fail out as sb-alice sbatch -p sb-short -G 1 --min-runtime=8:00:00 --wrap true
	expect_in "$out" "exceeds the time limit the job would get, 0:01:00 (partition 'sb-short' DefaultTime, as no --time was given)"
	expect_in "$out" "give --time (and --time-min) of at least 8:00:00"
	# within it: accepted, and --time above DefaultTime lifts the bound
	id=$(submit sb-alice -p sb-short -G 1 --min-runtime=0:30 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=30,"
	scancel "$id"
	id=$(submit sb-alice -p sb-short -G 1 --time=4 --min-runtime=3 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=180,"
	scancel "$id"
	# several partitions: the shortest limit counts
	expect_fail out as sb-alice sbatch -p gpu,sb-short -G 1 --min-runtime=2 --wrap true
	expect_in "$out" "partition 'sb-short' DefaultTime"
}

test_min_runtime_within_partition_default_time() {
	with_short_partition _limit_from_partition
}

test_min_runtime_within_time_min() {
	local out id
	expect_fail out as sb-alice sbatch -G 1 --time=1:00:00 --time-min=5 --min-runtime=10 --wrap true
	expect_in "$out" "exceeds the time limit the job would get, 0:05:00 (--time-min: backfill may cut the job to it)"
	id=$(submit sb-alice -G 1 --time=1:00:00 --time-min=10 --min-runtime=10 --hold --wrap true)
	expect_in "$(job_field "$id" AdminComment)" "budget:min_runtime=600,"
	# a user may not lower TimeMin below the min runtime afterwards ...
	expect_fail out as sb-alice scontrol update jobid="$id" TimeMin=5
	[ "$(job_field "$id" TimeMin)" = "00:10:00" ] || { say "TimeMin changed: $(job_field "$id" TimeMin)"; return 1; }
	# ... nor the time limit
	expect_fail out as sb-alice scontrol update jobid="$id" TimeLimit=5
	scancel "$id"
}

test_resumable_needs_batch_job() {
	local out
	expect_fail out as sb-alice salloc -G 1 --min-runtime=0:05 --resumable true
	expect_in "$out" "--resumable needs a batch job: an interactive allocation (salloc, srun) cannot be requeued"
	expect_fail out as sb-alice srun -G 1 --min-runtime=0:05 --resumable true
	expect_in "$out" "--resumable needs a batch job"
	# the same without --resumable runs, and sbatch --resumable is fine
	as sb-alice salloc -G 1 --min-runtime=0:05 true
	as sb-alice srun -G 1 --min-runtime=0:05 true
}
