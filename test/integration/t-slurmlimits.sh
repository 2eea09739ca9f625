# shellcheck shell=bash
# t-slurmlimits.sh - Slurm's time limits work under priority/budget as under
# priority/multifactor: in Slurm the priority plugin
# keeps the counters these limits read (GrpTRESRunMins, GrpTRESMins,
# GrpWall, UsageFactor; limit_usage.c).  Every scenario runs twice, first
# under priority/multifactor (Slurm's own), then under priority/budget,
# and must give the same verdict each time: a job held with Slurm's reason,
# or started.  Limits live on fresh accounts and QOSes named
# after the clock, zeroed when the test ends however it ends.
#
# Main's priority/budget fails run_mins, tres_mins, grp_wall, usage_factor
# and restart (qos_run_mins: not tried on it) (it never releases run-minutes nor adds usage); max_mins is a
# control that holds under both (Slurm checks it from the time limit).

# sl_use multifactor|budget - slurmctld runs with that priority plugin
# (restarted only when it runs the other one).
sl_use() {
	local want=priority/$1 now
	now=$(scontrol show config | sed -n 's/^PriorityType *= *//p')
	[ "$now" = "$want" ] && return 0
	case $1 in
	multifactor) with_extra_conf "$MULTIFACTOR_CONF" ;;
	budget) with_extra_conf "" ;;
	esac
	now=$(scontrol show config | sed -n 's/^PriorityType *= *//p')
	[ "$now" = "$want" ] || { say "PriorityType is '$now', not $want"; return 1; }
}

# sl_both SCENARIO - run SCENARIO PLUGIN under multifactor, then budget
# ($SL_PLUGINS: another list, e.g. "budget" to try a plugin build alone);
# priority/budget is back when it returns, however it returns.
sl_both() {
	local p
	cleanup_push 'sl_cleanup; sl_use budget >/dev/null 2>&1 || true'
	# no `||` here: it would switch set -e off inside the scenario
	for p in ${SL_PLUGINS:-multifactor budget}; do
		sl_use "$p"
		say "--- under priority/$p"
		"$1" "$p"
		sl_cleanup
	done
	cleanup_drop
}

# Accounts and QOSes a scenario made (zeroed by sl_cleanup).
SL_ACCTS=() SL_QOS=()

# sl_account NAME - a new top-level account (RawShares 1) with sb-alice,
# known to slurmctld.
sl_account() {
	sacctmgr -i add account "$1" parent=root fairshare=1 cluster=sbcluster >/dev/null
	sacctmgr -i add user sb-alice account="$1" cluster=sbcluster >/dev/null
	SL_ACCTS+=("$1")
	wait_for 30 "the association $1/sb-alice in sshare" assoc_listed "$1" sb-alice
}

# sl_qos NAME SETTINGS... - a new QOS sb-alice may use in her accounts.
sl_qos() {
	local q=$1 a; shift
	sacctmgr -i add qos "$q" "$@" >/dev/null
	SL_QOS+=("$q")
	for a in "${SL_ACCTS[@]}"; do
		sacctmgr -i modify user sb-alice where account="$a" set qos+="$q" >/dev/null
	done
	wait_for 30 "QOS $q in slurmctld" _qos_known "$q"
}
_qos_known() { scontrol -o show assoc_mgr flags=qos qos="$1" | grep -q "QOS=$1(" || { echo "no QOS $1"; return 1; }; }

# sl_cleanup - cancel the scenario's jobs, zero its accounts' shares and
# limits and delete its QOSes.
sl_cleanup() {
	local a q
	for a in "${SL_ACCTS[@]}"; do
		scancel -A "$a" 2>/dev/null || true
		sacctmgr -i modify account "$a" set fairshare=0 GrpTRESRunMins=gres/gpu=-1 \
			GrpTRESMins=gres/gpu=-1 MaxTRESMins=gres/gpu=-1 >/dev/null 2>&1 || true
	done
	for q in "${SL_QOS[@]}"; do
		sacctmgr -i modify user sb-alice set qos-="$q" >/dev/null 2>&1 || true
		sacctmgr -i delete qos "$q" >/dev/null 2>&1 || true
	done
	SL_ACCTS=() SL_QOS=()
}

# sl_name PREFIX PLUGIN - a fresh name (accounts: lowercase, short).
sl_name() { echo "$1$(date +%s | tail -c 7)${2:0:1}"; }

# reason JOBID - the pending reason squeue shows.
sl_reason() { squeue -h -j "$1" -o %r; }

# sl_gpu_used ACCOUNT LIMIT - the used count in parentheses of the
# account association's LIMIT (GrpTRESRunMins, GrpTRESMins) for gres/gpu,
# in minutes, as slurmctld's assoc_mgr shows it.
sl_gpu_used() {
	scontrol -o show assoc_mgr flags=assoc accounts="$1" |
		grep -m 1 " Account=$1 UserName= " | grep -o " $2=[^ ]*" |
		grep -o 'gres/gpu=[^(]*([0-9]*)' | sed 's/.*(\([0-9]*\))/\1/'
}

# sl_qos_gpu_mins QOS - the QOS's GrpTRESMins used for gres/gpu, minutes.
sl_qos_gpu_mins() {
	scontrol -o show assoc_mgr flags=qos qos="$1" | grep -o 'GrpTRESMins=[^ ]*' |
		grep -o 'gres/gpu=[^(]*([0-9]*)' | sed 's/.*(\([0-9]*\))/\1/'
}

# sl_run_mins_near ACCOUNT START GPUS LIMIT_MIN - the account's gres/gpu
# run-minutes are what a job of GPUS GPUs started at START with a time
# limit of LIMIT_MIN minutes has left (GPUS x its time left), within 2.
sl_run_mins_near() {
	local got want
	got=$(sl_gpu_used "$1" GrpTRESRunMins)
	want=$(( $3 * ($2 + $4 * 60 - $(date +%s)) / 60 ))
	if [ -z "$got" ] || [ "$got" -lt $((want - 2)) ] || [ "$got" -gt $((want + 2)) ]; then
		echo "run-minutes $got, want $want +- 2"
		return 1
	fi
}

# GrpTRESRunMins: while an 80-GPU-minute job runs, a second one pends
# (AssocGrpGRESRunMinutes); once the first ends its run-minutes are
# released and the second starts.
sl_run_mins() {
	local A j1 j2
	A=$(sl_name slrm "$1")
	sl_account "$A"
	sacctmgr -i modify account "$A" set GrpTRESRunMins=gres/gpu=80 >/dev/null
	j1=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 8 -t 10 --wrap 'sleep 300')
	wait_running "$j1"
	j2=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 4 -t 10 --wrap 'sleep 300')
	wait_eq 20 "job $j2 held by the run-minutes" AssocGrpGRESRunMinutes sl_reason "$j2"
	scancel "$j1"
	wait_state "$j2" RUNNING 30
	say "verdict: $j2 held (AssocGrpGRESRunMinutes), started once $j1 ended"
}

# The QOS form: GrpTRESRunMins=gres/gpu=80 on a QOS; the same verdicts,
# QOSGrpGRESRunMinutes while the first job runs, started once it ends.
sl_qos_run_mins() {
	local A Q j1 j2
	A=$(sl_name slqr "$1"); Q=$(sl_name qqr "$1")
	sl_account "$A"
	sl_qos "$Q" GrpTRESRunMins=gres/gpu=80
	j1=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 8 -t 10 --wrap 'sleep 300')
	wait_running "$j1"
	j2=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 4 -t 10 --wrap 'sleep 300')
	wait_eq 20 "job $j2 held by the QOS's run-minutes" QOSGrpGRESRunMinutes sl_reason "$j2"
	scancel "$j1"
	wait_state "$j2" RUNNING 30
	say "verdict: $j2 held (QOSGrpGRESRunMinutes), started once $j1 ended"
}

# GrpTRESMins: an 8-GPU job runs 20 s (2.7 GPU-minutes) against
# GrpTRESMins=gres/gpu=2; the next job pends AssocGrpGRESMinutes.
sl_tres_mins() {
	local A j1 j2
	A=$(sl_name sltm "$1")
	sl_account "$A"
	sacctmgr -i modify account "$A" set GrpTRESMins=gres/gpu=2 >/dev/null
	j1=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 8 -t 5 --wrap 'sleep 20')
	wait_running "$j1"
	wait_for 60 "job $j1 to end" job_gone "$j1"
	j2=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 1 -t 5 --wrap 'sleep 5')
	wait_eq 20 "job $j2 held by the used GPU-minutes" AssocGrpGRESMinutes sl_reason "$j2"
	say "verdict: $j2 held (AssocGrpGRESMinutes), usage $(sl_gpu_used "$A" GrpTRESMins) GPU-min"
}

# GrpWall on a QOS: four 20-s jobs use 80 s of the QOS's GrpWall=1
# (minute); a fifth pends QOSGrpWallLimit.
sl_grp_wall() {
	local A Q ids=() j
	A=$(sl_name slgw "$1"); Q=$(sl_name qgw "$1")
	sl_account "$A"
	sl_qos "$Q" GrpWall=1
	for _ in 1 2 3 4; do
		ids+=("$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 1 -t 5 --wrap 'sleep 20')")
	done
	wait_running "${ids[@]}"
	for j in "${ids[@]}"; do wait_for 60 "job $j to end" job_gone "$j"; done
	j=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 1 -t 5 --wrap 'sleep 5')
	wait_eq 20 "job $j held by the QOS's wall time" QOSGrpWallLimit sl_reason "$j"
	say "verdict: $j held (QOSGrpWallLimit)"
}

# MaxTRESMinsPerJob (control: Slurm checks it from the time limit, with no
# counter): an 8-GPU 5-minute job (40 GPU-minutes) against 10 is held
# (AssocMaxGRESMinutesPerJob) or refused; a 1-GPU one starts.
sl_max_mins() {
	local A j1 j2 out
	A=$(sl_name slmm "$1")
	sl_account "$A"
	sacctmgr -i modify account "$A" set MaxTRESMins=gres/gpu=10 >/dev/null
	# stderr apart: an accepted job gets job_submit/budget's note there
	if j1=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 8 -t 5 --wrap 'sleep 5' 2>"$WORK/slmm.err") &&
	   [[ "$j1" =~ ^[0-9]+$ ]]; then
		wait_eq 20 "job $j1 held by MaxTRESMinsPerJob" AssocMaxGRESMinutesPerJob sl_reason "$j1"
		out="held (AssocMaxGRESMinutesPerJob)"
	else
		out="refused: $j1 $(cat "$WORK/slmm.err")"
	fi
	j2=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 1 -t 5 --wrap 'sleep 5')
	wait_state "$j2" RUNNING 30
	say "verdict: 40 GPU-min job $out; 5 GPU-min job $j2 started"
}

# UsageFactor=2 on a QOS with GrpTRESMins=gres/gpu=2: a 4-GPU job of 20 s
# (1.3 GPU-minutes) counts 2.7, so the next job pends QOSGrpGRESMinutes;
# the QOS shows 2 GPU-minutes or more.
sl_usage_factor() {
	local A Q j1 j2 used
	A=$(sl_name sluf "$1"); Q=$(sl_name quf "$1")
	sl_account "$A"
	sl_qos "$Q" UsageFactor=2 GrpTRESMins=gres/gpu=2
	j1=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 4 -t 5 --wrap 'sleep 20')
	wait_running "$j1"
	wait_for 60 "job $j1 to end" job_gone "$j1"
	j2=$(submit sb-alice -A "$A" --qos="$Q" --min-runtime=0:05 -G 1 -t 5 --wrap 'sleep 5')
	wait_eq 20 "job $j2 held by the QOS's doubled GPU-minutes" QOSGrpGRESMinutes sl_reason "$j2"
	used=$(sl_qos_gpu_mins "$Q")
	[ "${used:-0}" -ge 2 ] || { say "QOS $Q used $used GPU-min, want >= 2 (1.3 x 2)"; return 1; }
	say "verdict: $j2 held (QOSGrpGRESMinutes), QOS usage $used GPU-min"
}

# A restart (cluster.sh restart-ctld) and a reconfigure in the middle of an
# 8-GPU 10-minute job keep its run-minutes right (8 x its time left, +- 2:
# Slurm counts its whole time limit again, the plugin takes off what it
# had released); once it ends they are all released and an 80-GPU-minute
# job starts under GrpTRESRunMins=gres/gpu=100.
sl_restart() {
	local A j1 j2 t
	A=$(sl_name slrs "$1")
	sl_account "$A"
	sacctmgr -i modify account "$A" set GrpTRESRunMins=gres/gpu=100 >/dev/null
	j1=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 8 -t 10 --wrap 'sleep 600')
	wait_running "$j1"
	t=$(started "$j1")
	# time itself is the condition: 45 s run = 6 GPU-minutes released,
	# what a restart without the correction would count again
	wait_until $((t + 45)) "45 s into job $j1"
	# multifactor ticks once a minute: wait for the count it shows
	wait_for 75 "run-minutes of $A before the restart" sl_run_mins_near "$A" "$t" 8 10
	"$SB_REPO/contrib/cluster.sh" restart-ctld >/dev/null
	wait_for 30 "slurmctld back" ctld_alive
	[ "$(job_field "$j1" JobState)" = RUNNING ] || { say "job $j1 is $(job_field "$j1" JobState)"; return 1; }
	wait_for 75 "run-minutes of $A right after the restart" sl_run_mins_near "$A" "$t" 8 10
	say "after restart: $(sl_gpu_used "$A" GrpTRESRunMins) GPU run-minutes"
	scontrol reconfigure
	wait_for 30 "slurmctld back after reconfigure" ctld_alive
	wait_for 75 "run-minutes of $A right after reconfigure" sl_run_mins_near "$A" "$t" 8 10
	say "after reconfigure: $(sl_gpu_used "$A" GrpTRESRunMins) GPU run-minutes"
	scancel "$j1"
	wait_eq 30 "all run-minutes of $A released" 0 sl_gpu_used "$A" GrpTRESRunMins
	j2=$(submit sb-alice -A "$A" --min-runtime=0:05 -G 8 -t 10 --wrap 'sleep 5')
	wait_state "$j2" RUNNING 30
	say "verdict: counters right through restart and reconfigure; $j2 started"
}

test_slurmlimits_grp_tres_run_mins() { sl_both sl_run_mins; }
test_slurmlimits_qos_grp_tres_run_mins() { sl_both sl_qos_run_mins; }
test_slurmlimits_grp_tres_mins() { sl_both sl_tres_mins; }
test_slurmlimits_grp_wall_qos() { sl_both sl_grp_wall; }
test_slurmlimits_max_tres_mins_per_job() { sl_both sl_max_mins; }
test_slurmlimits_usage_factor() { sl_both sl_usage_factor; }
test_slurmlimits_restart_reconfigure() { sl_both sl_restart; }
