# shellcheck shell=bash
# test/integration/lib.sh - helpers for integration tests on the local
# cluster (contrib/cluster.sh).  Sourced by run.sh; every test is a shell
# function named test_* that returns non-zero (after saying why) on failure.

# Users created by contrib/cluster.sh, with their default accounts:
#   sb-alice phys-a, sb-bob bio, sb-carol nobudget (RawShares 0), sb-dave phys-b
WORK=${SB_CLUSTER_DIR:?}/work

# as USER CMD... - run a Slurm client as USER from the shared work directory.
as() {
	local user=$1; shift
	(cd "$WORK" && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@")
}

# say MSG - explain a failure (goes to the test's log).
say() { printf '    %s\n' "$*" >&2; }

# expect_fail OUT_VAR CMD... - CMD must fail; its stderr+stdout land in OUT_VAR.
expect_fail() {
	local __var=$1 __out; shift
	if __out=$("$@" 2>&1); then
		say "expected failure, but it succeeded: $*"
		say "output: $__out"
		printf -v "$__var" '%s' "$__out"
		return 1
	fi
	printf -v "$__var" '%s' "$__out"
}

# expect_in HAYSTACK NEEDLE - the text must contain NEEDLE.
expect_in() {
	if [[ "$1" != *"$2"* ]]; then
		say "expected to find: $2"
		say "in: $1"
		return 1
	fi
}

# submit USER ARGS... - sbatch --parsable as USER; prints the job id.
submit() {
	local user=$1; shift
	as "$user" sbatch --parsable -o /dev/null "$@" | cut -d';' -f1
}

# job_field JOBID FIELD - a Field=value from `scontrol show job`.
job_field() {
	scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}

# wait_state JOBID STATE [TIMEOUT] - wait until the job reaches STATE.
wait_state() {
	local id=$1 want=$2 t=${3:-60} s=
	for ((i = 0; i < t * 2; i++)); do
		s=$(job_field "$id" JobState)
		[ -z "$s" ] && s=$(sacct -n -X -P -j "$id" -o State 2>/dev/null | head -n 1 | cut -d' ' -f1)
		[ "$s" = "$want" ] && return 0
		sleep 0.5
	done
	say "job $id: state '$s', waited ${t}s for $want"
	return 1
}

# sacct_field JOBID FIELD - one field of the job's allocation record, waiting
# for slurmdbd to have it (accounting is asynchronous).
sacct_field() {
	local v=
	for ((i = 0; i < 40; i++)); do
		v=$(sacct -n -X -P -j "$1" -o "$2" 2>/dev/null | head -n 1)
		[ -n "$v" ] && { printf '%s\n' "$v"; return 0; }
		sleep 0.5
	done
	return 1
}

# ctld_alive - slurmctld answers and its process is the one we started.
ctld_alive() {
	local pid
	pid=$(cat "$SB_CLUSTER_DIR/run/slurmctld.pid" 2>/dev/null || cat "$SB_CLUSTER_DIR"/*/slurmctld.pid 2>/dev/null) || true
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && scontrol ping | grep -q UP
}

# keep_budget_conf - save budget.conf now and put it back (and reconfigure)
# when the test's shell exits, however it exits.
keep_budget_conf() {
	cp "$SB_CLUSTER_DIR/budget.conf" "$SB_CLUSTER_DIR/budget.conf.keep"
	trap 'mv -f "$SB_CLUSTER_DIR/budget.conf.keep" "$SB_CLUSTER_DIR/budget.conf"; scontrol reconfigure' EXIT
}

# wait_ctld_saved EPOCH - wait until slurmctld has saved its job state after
# EPOCH.  A kill -9 before that makes slurmctld forget what happened since:
# it recovers a finished job as running (a ghost holding GPUs until the
# node reports it gone) or a started one as pending.
wait_ctld_saved() {
	local i
	for ((i = 0; i < 60; i++)); do
		[ "$(stat -c %Y "$SB_CLUSTER_DIR/state/job_state")" -gt "$1" ] && return 0
		sleep 0.5
	done
	say "slurmctld did not save its job state within 30 s"
	return 1
}

# set_budget_conf TEXT - replace budget.conf and reconfigure slurmctld.
set_budget_conf() {
	printf '%s\n' "$1" > "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	sleep 1
}

# ledger_charged JOBID - TRES-seconds the priority plugin charged the job, from
# its saved ledger (written every CalcPeriod); waits one period first.
ledger_charged() {
	sleep 3
	python3 - "$SB_CLUSTER_DIR/state/budget_ledger.json" "$1" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for job_id, charged_to, charged in doc.get("jobs", []):
    if job_id == int(sys.argv[2]):
        print(int(round(charged)))
        break
else:
    print(0)
PY
}

# raw_usage ACCOUNT [USER] - sshare's RawUsage (windowed allocated GPU-seconds).
raw_usage() {
	sshare -n -P -A "$1" ${2:+-u "$2"} -o Account,User,RawUsage |
		awk -F'|' -v u="${2:-}" '$2 == u { gsub(/ /, "", $1); print $3; exit }'
}

# elapsed JOBID - seconds the job ran, as slurmdbd recorded it.
elapsed() { sacct_field "$1" ElapsedRaw; }

# prio JOBID - the job's current priority.
prio() { squeue -h -j "$1" -o %Q; }
