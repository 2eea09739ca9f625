# shellcheck shell=bash
# test/integration/lib.sh - helpers for integration tests on the local
# cluster (contrib/cluster.sh).  Sourced by run.sh; every test is a shell
# function named test_* that returns non-zero (after saying why) on failure.

# Users created by contrib/cluster.sh, with their default accounts:
#   sb-alice phys-a, sb-bob bio, sb-carol nobudget (RawShares 0), sb-dave phys-b
WORK=${SB_CLUSTER_DIR:?}/work
CTLD_LOG=$SB_CLUSTER_DIR/log/slurmctld.log
SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}

# sb ARGS... - sbudget as root ($SBUDGET: the build's).
sb() { "$SBUDGET" "$@"; }

# MULTIFACTOR_CONF - the slurm.conf lines of a cluster under
# priority/multifactor (with_extra_conf): weights so that jobs are not
# held at priority 0, and a one-minute tick (the shortest Slurm takes).
# shellcheck disable=SC2034 # used by the t-*.sh
MULTIFACTOR_CONF="PriorityType=priority/multifactor
PriorityWeightAge=1000
PriorityWeightFairshare=1000
PriorityCalcPeriod=1"

# Waiting.  A test never sleeps a guessed time for something to happen: it
# polls for the condition, with a timeout, and fails saying what it expected
# and what it saw.  A sleep that is itself the observation (nothing may
# happen for N seconds) says so in a comment where it is written, and ends
# at a time counted from the jobs' own records (wait_until), not N seconds
# after a poll saw them.  A duration a test asserts is measured between
# Slurm's records (SubmitTime, EligibleTime, StartTime, SuspendTime, to the
# second), not from the clock read around a client: on a loaded 2-core
# machine sbatch or scontrol may itself take seconds.

# now_ms - wall clock in milliseconds.
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# ms_of SECONDS - milliseconds in SECONDS (a decimal number: 3, 0.5).
ms_of() { awk -v t="$1" 'BEGIN { printf "%d", t * 1000 }'; }

# wait_for TIMEOUT WHAT CMD... - run CMD every 0.5 s until it succeeds.
# After TIMEOUT seconds (may be fractional) fail, saying "waited Ts for
# WHAT" and what CMD printed the last time (CMD may print what it saw).
wait_for() {
	local t=$1 what=$2 out='' end; shift 2
	end=$(( $(now_ms) + $(ms_of "$t") ))
	while :; do
		out=$("$@" 2>&1) && return 0
		[ "$(now_ms)" -ge "$end" ] && break
		sleep 0.5
	done
	say "waited ${t}s for $what"
	[ -z "$out" ] || say "last seen: $out"
	return 1
}

# wait_eq TIMEOUT WHAT WANT CMD... - wait until CMD prints exactly WANT;
# on timeout say what it printed last.
wait_eq() {
	local t=$1 what=$2; shift 2
	wait_for "$t" "$what (expected '$1')" _prints "$@"
}
_prints() {
	local want=$1 got; shift
	got=$("$@" 2>/dev/null) || true
	[ "$got" = "$want" ] && return 0
	printf "'%s'\n" "$got"
	return 1
}

# wait_until EPOCH WHY - sleep until the clock reads EPOCH (seconds): for a
# condition that is time itself ("past its minimum runtime").  WHY is the
# reason, for the reader.
wait_until() {
	local left
	left=$(( $1 * 1000 - $(now_ms) ))
	[ "$left" -gt 0 ] || return 0
	sleep "$((left / 1000)).$(printf '%03d' $((left % 1000)))"
}

# Reading daemon logs: only what was written after the action.  Take a mark
# before the action, then look at the lines written since.  LOG defaults to
# slurmctld's log ($CTLD_LOG); slurmd and slurmdbd logs are in the same
# directory ($SB_CLUSTER_DIR/log).

# log_mark [LOG] - the log's current size in bytes (0 if it does not exist).
log_mark() { stat -c %s "${1:-$CTLD_LOG}" 2>/dev/null || echo 0; }

# log_since OFFSET [LOG] - the log's lines written after OFFSET.  A log now
# shorter than OFFSET was replaced after the mark: all of it is new.
log_since() {
	local off=$1 log=${2:-$CTLD_LOG}
	[ -f "$log" ] || return 0
	[ "$(log_mark "$log")" -ge "$off" ] || off=0
	tail -c +$((off + 1)) "$log"
}

# wait_log OFFSET REGEX [TIMEOUT] [LOG] - wait (default 15 s) until a line
# written after OFFSET matches the extended REGEX; print the first such
# line.  On timeout say what was expected and show the last lines written.
wait_log() {
	local off=$1 re=$2 t=${3:-15} log=${4:-$CTLD_LOG} end line
	end=$(( $(now_ms) + $(ms_of "$t") ))
	while :; do
		# grep alone decides (in a pipeline, log_since killed by
		# SIGPIPE after grep's first match would fail it under pipefail)
		if line=$(grep -E -m 1 -- "$re" < <(log_since "$off" "$log")); then
			printf '%s\n' "$line"
			return 0
		fi
		[ "$(now_ms)" -ge "$end" ] && break
		sleep 0.2
	done
	say "no line matching /$re/ in $(basename "$log") within ${t}s after offset $off; last lines written since:"
	log_since "$off" "$log" | tail -n 8 | sed 's/^/      /' >&2
	return 1
}

# no_log OFFSET REGEX [LOG] - no line written after OFFSET matches REGEX.
no_log() {
	local line
	if line=$(grep -E -m 1 -- "$2" < <(log_since "$1" "${3:-$CTLD_LOG}")); then
		say "unexpected line in $(basename "${3:-$CTLD_LOG}"): $line"
		return 1
	fi
}

# as USER CMD... - run a Slurm client as USER from the shared work directory.
as() {
	local user=$1; shift
	(cd "$WORK" && runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" "$@")
}

# say MSG - explain a failure (goes to the test's log).
say() { printf '    %s\n' "$*" >&2; }

# Cleaning up.  A test that changes what later tests see (an account's
# share, a limit, a partition, budget.conf, the daemons' configuration)
# pushes the command that undoes it, right before the change:
#   cleanup_push "scancel $id 2>/dev/null"
# run.sh runs each test in a shell of its own, the test function last: when
# that shell exits, however it exits (a failed step under set -e, a return,
# the end), the pushed commands run, the last pushed first.  Each runs
# whether or not the one before it succeeded; a cleanup that fails is said
# in the test's log and does not change the test's result.  Arguments are
# expanded when pushed (the test's locals are gone when the shell exits).
SB_CLEANUPS=()

# cleanup_push CMD - run the shell command CMD when the test ends.  Push
# from the test's own shell, not inside $(...) or a pipeline: a subshell
# would set its own EXIT trap and run the copied stack when it ends.
cleanup_push() {
	SB_CLEANUPS+=("$1")
	trap _cleanup_run EXIT
}

# cleanup_drop - forget the last pushed command without running it: the
# test has undone that change itself.  It drops whatever was pushed last,
# so nothing may be pushed between a push and its drop.
cleanup_drop() {
	[ "${#SB_CLEANUPS[@]}" -gt 0 ] || { say "cleanup_drop: nothing pushed"; return 1; }
	unset 'SB_CLEANUPS[-1]'
}

# _cleanup_run - the EXIT trap: every pushed command, last first.
_cleanup_run() {
	local i
	set +e
	for ((i = ${#SB_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${SB_CLEANUPS[i]}" || say "cleanup failed: ${SB_CLEANUPS[i]}"
	done
	SB_CLEANUPS=()
}

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

# expect_in HAYSTACK NEEDLE - the text must contain NEEDLE (an empty NEEDLE
# fails: it would match anything).
expect_in() {
	[ -n "$2" ] || { say "expect_in: nothing to look for in: $1"; return 1; }
	if [[ "$1" != *"$2"* ]]; then
		say "expected to find: $2"
		say "in: $1"
		return 1
	fi
}

# cancel_accounts ACCOUNT... - cancel every job of each account (scancel -A
# takes one account: a comma-separated list matches no job).
cancel_accounts() {
	local a
	for a in "$@"; do scancel -A "$a" 2>/dev/null || true; done
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
	say "job $1: no $2 in slurmdbd's record after 20 s"
	return 1
}

# ctld_pid - slurmctld's pid from its pid file: the first line only (after a
# reconfigure, 24.11's new slurmctld writes its pid over its parent's
# without truncating the file: a shorter pid leaves digits on a second line).
ctld_pid() { head -n 1 "$SB_CLUSTER_DIR/run/slurmctld.pid" 2>/dev/null | tr -dc '0-9'; }

# ctld_alive - slurmctld answers and its process is the one we started.
ctld_alive() {
	local pid
	pid=$(ctld_pid)
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && scontrol ping | grep -q UP
}

# keep_budget_conf - save budget.conf now and put it back (and reconfigure)
# when the test ends, however it ends (cleanup_push).
keep_budget_conf() {
	cp "$SB_CLUSTER_DIR/budget.conf" "$SB_CLUSTER_DIR/budget.conf.keep"
	cleanup_push "mv -f '$SB_CLUSTER_DIR/budget.conf.keep' '$SB_CLUSTER_DIR/budget.conf'; scontrol reconfigure"
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

# set_budget_conf TEXT - replace budget.conf, reconfigure slurmctld, and wait
# until both controller plugins have read the file again (each logs "read
# PATH: settings", or that it keeps its previous settings; priority/budget
# reads at its next cycle, preempt/budget within a second).  job_submit/budget
# reads it at the next submission.
set_budget_conf() {
	local mark who
	mark=$(log_mark)
	# Written beside and renamed into place: preempt/budget re-reads a
	# file changed in the second of a reconfigure, and could otherwise
	# read it half-written (empty, i.e. the defaults).
	printf '%s\n' "$1" > "$SB_CLUSTER_DIR/budget.conf.new"
	mv -f "$SB_CLUSTER_DIR/budget.conf.new" "$SB_CLUSTER_DIR/budget.conf"
	scontrol reconfigure
	for who in priority/budget preempt/budget; do
		wait_log "$mark" "$who: (read .*budget\.conf(\.last-valid)?: |.*keeping the previous settings|.*using the defaults)" 20 >/dev/null ||
			{ say "$who did not read the new budget.conf"; return 1; }
	done
}

# ended JOBID - the job's end time, epoch seconds (slurmctld's, else slurmdbd's).
ended() {
	local e
	e=$(job_field "$1" EndTime)
	case $e in ''|Unknown|None) e=$(sacct_field "$1" End) || return 1 ;; esac
	date -d "$e" +%s
}

# wait_recalc_after EPOCH - wait until priority/budget has finished a
# recalculation that began after EPOCH (whole seconds, as Slurm's times):
# from then on its ledger, sshare's RawUsage and job priorities include
# everything that happened before EPOCH + 1 (a job that ended, a new
# association).  Seen as its ledger file saved at EPOCH + 2 or later: it
# saves at the end of every cycle (CalcPeriod; every cycle for a tree this
# small), and a cycle here takes milliseconds, so a save at EPOCH + 2 closes
# a cycle that began after EPOCH + 1.
wait_recalc_after() {
	local f=$SB_CLUSTER_DIR/state/budget_ledger.json
	wait_for 30 "priority/budget to save its ledger at $(date -d "@$(($1 + 2))" +%T) or later" \
		_saved_since $(($1 + 2)) "$f"
}
_saved_since() {
	local m
	m=$(stat -c %Y "$2" 2>/dev/null) || { echo "no $2"; return 1; }
	[ "$m" -ge "$1" ] || { echo "saved last at $(date -d "@$m" +%T)"; return 1; }
}

# ledger_charged JOBID - TRES-seconds the priority plugin charged the job, from
# its saved ledger, once it has charged the job's end (wait_recalc_after).
ledger_charged() {
	local e
	e=$(ended "$1") || return 1
	wait_recalc_after "$e" || return 1
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

# wait_assoc ACCOUNT USER... - wait until slurmctld's assoc_mgr has each
# user's association under ACCOUNT (sshare lists it: slurmdbd pushed it),
# then until priority/budget has adopted the tree with them.
wait_assoc() {
	local acct=$1 u; shift
	for u in "$@"; do
		wait_for 30 "the association $acct/$u in sshare" assoc_listed "$acct" "$u" || return 1
	done
	wait_recalc_after "$(date +%s)"
}

# assoc_listed ACCOUNT USER - sshare lists the association (else says so).
assoc_listed() { [ -n "$(raw_usage "$1" "$2")" ] || { echo "sshare does not list $1/$2"; return 1; }; }

# ------------------------------------------------ jobs, budgets, the cluster

# clear_cluster - cancel every job and wait until no job holds a GPU, so
# each test starts on an empty cluster.
clear_cluster() {
	local i
	for i in sb-alice sb-bob sb-carol sb-dave; do scancel -u "$i" 2>/dev/null || true; done
	for ((i = 0; i < 120; i++)); do
		[ -z "$(squeue -h -t R,CG,S -o %i)" ] && return 0
		sleep 0.5
	done
	say "jobs still hold the cluster after 60 s: $(squeue -h -o '%i %T')"
	return 1
}

# fresh_budgets PARENT NAME:SHARE:USER... - a new top-level account PARENT
# (RawShares 1) with the given children and users.  Fresh each run: usage
# is windowed per association, so an old account would carry history.
# When the test ends (cleanup_push) the children's jobs are cancelled and
# PARENT's share is zeroed: later tests see the tree as before.
fresh_budgets() {
	local parent=$1 spec name share user children=''; shift
	for spec in "$@"; do children+=" '${spec%%:*}'"; done
	cleanup_push "cancel_accounts$children; sacctmgr -i modify account '$parent' set fairshare=0 >/dev/null"
	sacctmgr -i add account "$parent" parent=root fairshare=1 cluster=sbcluster >/dev/null
	for spec in "$@"; do
		IFS=: read -r name share user <<<"$spec"
		sacctmgr -i add account "$name" parent="$parent" fairshare="$share" cluster=sbcluster >/dev/null
		sacctmgr -i add user "$user" account="$name" cluster=sbcluster >/dev/null
	done
	# assoc_mgr learns the associations from slurmdbd, then priority/budget
	for spec in "$@"; do
		IFS=: read -r name share user <<<"$spec"
		wait_for 30 "the association $name/$user in sshare" assoc_listed "$name" "$user" || return 1
	done
	wait_recalc_after "$(date +%s)"
}

# restarts JOBID - Slurm's restart count of the job.
restarts() { job_field "$1" Restarts; }
# sbudget_job_says JOBID TEXT - `sbudget show job JOBID` (as root) says TEXT.
sbudget_job_says() {
	local out
	out=$("$SBUDGET" show job "$1" 2>&1)
	[[ $out == *"$2"* ]]
}
# job_gone JOBID - the job has ended (or was purged): not pending, running,
# suspended, completing or being requeued.
job_gone() {
	case "$(job_field "$1" JobState)" in
	''|CANCELLED|COMPLETED|FAILED|PREEMPTED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) return 0 ;;
	esac
	return 1
}

# started JOBID - the job's current start time, epoch seconds.
started() { date -d "$(job_field "$1" StartTime)" +%s; }

# submitted JOBID - the job's submission time as slurmctld recorded it, epoch
# seconds.  "Started N s after submission" is measured from it, not from the
# clock before sbatch: on a loaded machine sbatch itself may take seconds.
submitted() { date -d "$(job_field "$1" SubmitTime)" +%s; }

# latest_start JOBID... - the latest of the jobs' start times.
latest_start() {
	local id t m=0
	for id in "$@"; do t=$(started "$id"); [ "$t" -gt "$m" ] && m=$t; done
	echo "$m"
}

# wait_running JOBID... - wait up to 30 s until every job runs.
wait_running() {
	local id
	for id in "$@"; do wait_state "$id" RUNNING 30; done
}

# fill_nodes USER ARGS... - one 8-GPU job per node, pinned; prints the ids.
fill_nodes() {
	local user=$1 n; shift
	for n in gpu01 gpu02 gpu03 gpu04; do
		submit "$user" -w "$n" -G 8 "$@"
	done
}

# charge_gpu_seconds JOBID - every run segment of the job as slurmdbd
# recorded it: ElapsedRaw x allocated GPUs, summed.
charge_gpu_seconds() {
	sacct -n -P -D -X -j "$1" -o ElapsedRaw,AllocTRES |
		awk -F'|' '{ g = 0; n = split($2, t, ",");
			     for (i = 1; i <= n; i++) if (t[i] ~ /^gres\/gpu=/) { sub(/.*=/, "", t[i]); g = t[i] }
			     s += $1 * g } END { print s + 0 }'
}

# wait_idle - until no job of the cluster runs or waits, and the figures
# are stable: slurmdbd has every run's end, priority/budget saved its ledger
# after the queue emptied, and sshare's usage stays the same over two plugin
# cycles (CalcPeriod=1: the plugin charges running jobs every second).
wait_idle() {
	local i t0 prev='' cur ends
	for ((i = 0; i < 120; i++)); do
		[ -z "$(squeue -h -o %i)" ] && break
		sleep 0.5
	done
	[ -z "$(squeue -h -o %i)" ] ||
		{ say "jobs still queued: $(squeue -h -o '%i %T' | tr '\n' ' ')"; return 1; }
	t0=$(date +%s)
	for ((i = 0; i < 60; i++)); do
		# a reading that failed (nothing printed) is never stable, and
		# sacct must answer for "no run without its end" to mean anything
		cur=$(sshare -a -n -P -o Account,User,RawUsage) || cur=
		ends=$(sacct -a -n -X -P -S now-1hour -o End) || ends=Unknown
		if [ -n "$cur" ] && [ "$cur" = "$prev" ] && [[ "$ends" != *Unknown* ]] &&
			[ "$(stat -c %Y "$SB_CLUSTER_DIR/state/budget_ledger.json")" -gt "$t0" ]; then
			return 0
		fi
		prev=$cur
		sleep 1
	done
	say "figures not stable 60 s after the queue emptied"
	return 1
}

# wait_recorded JOBID - until slurmdbd's record of a finished job is whole:
# its eligibility (a record without it is outside every span slurmdbd is
# asked for), end, final state and contract, and for a job that ran its
# allocation (slurmctld sends them in separate messages; a command reading
# the record in between sees another job).
wait_recorded() {
	local i el st en al state ac
	for ((i = 0; i < 60; i++)); do
		IFS='|' read -r el st en al state ac < <(sacct -n -X -P -j "$1" \
			-o Eligible,Start,End,AllocTRES,State,AdminComment | tail -n 1)
		# a job cancelled while pending may be recorded as started at
		# its end, with no allocation: a run of no time
		if [[ "$el" == 20* && "$en" == 20* && "$ac" == budget:* ]] &&
			[[ "$state" == CANCELLED* ||
				"$state" == COMPLETED && "$al" == *gres/gpu=* ]]; then
			return 0
		fi
		sleep 0.5
	done
	say "slurmdbd's record of job $1 is not whole: $el|$st|$en|$al|$state|$ac"
	return 1
}

# ----------------------------------------- slurmctld's log and configuration

ctld_log() { echo "$SB_CLUSTER_DIR/log/slurmctld.log"; }

# partner_log_mark - the log's size now: what a later wait reads from.
partner_log_mark() { stat -c %s "$(ctld_log)"; }

# partner_log_wait OFFSET TEXT [TIMEOUT] - poll (0.5 s) until a line written
# after byte OFFSET contains TEXT (fixed string); print the first such line.
partner_log_wait() {
	local off=$1 text=$2 t=${3:-30} i line
	for ((i = 0; i < t * 2; i++)); do
		line=$(grep -F -m 1 -- "$text" < <(tail -c +"$((off + 1))" "$(ctld_log)") || true)
		if [ -n "$line" ]; then
			printf '%s\n' "$line"
			return 0
		fi
		sleep 0.5
	done
	say "no slurmctld.log line with '$text' within ${t}s after offset $off"
	return 1
}

# with_extra_conf LINES - restart the daemons with LINES appended to
# slurm.conf ("" for the normal configuration), and wait until slurmctld
# logs that it runs.  Sets CTLD_STARTED to the log offset of the new
# slurmctld's version line: a check that something is NOT logged reads from
# there, since the slurmctld being replaced may still write lines after the
# caller's mark (24.11 replaces the process on every reconfigure).
with_extra_conf() {
	local off rel
	off=$(partner_log_mark)
	SB_SLURM_CONF_EXTRA=$1 "$SB_REPO/contrib/cluster.sh" up >/dev/null
	partner_log_wait "$off" "slurmctld version" 60 >/dev/null
	# grep reads a process substitution: in a pipeline, tail killed by
	# SIGPIPE after grep's first match fails it under pipefail (silently:
	# set -e), as soon as more than a pipe buffer follows the match
	rel=$(grep -F -b -m 1 -- "slurmctld version" < <(tail -c +"$((off + 1))" "$(ctld_log)") | cut -d: -f1)
	# shellcheck disable=SC2034 # read by the caller
	CTLD_STARTED=$((off + ${rel:-0}))
}
