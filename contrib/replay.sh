#!/usr/bin/env bash
# contrib/replay.sh - replay a job table through the local cluster, with time
# compressed, and write what happened as run segments.
#
# Usage: contrib/replay.sh --jobs CANON.csv --tree TREE.txt --segments OUT.csv
#                          [--time-scale F] [--max-wall S] [--user USER]
#                          [--account-teams]
#   --jobs FILE        the canonical job table (sbudget-sim convert writes it):
#                      submit_time_s,duration_s,gpus,team,user,min_runtime_s,
#                      resumable,priority
#   --tree FILE        budget tree as 'path shares' lines (sbudget-sim tree);
#                      each team of the table becomes an account
#   --segments FILE    output: job,team,gpus,min_runtime_s,submit_s,start_s,
#                      end_s,preempted,eligible_s in trace seconds, one line
#                      per run slurmdbd recorded (sbudget-sim metrics); a run
#                      that never started has start_s empty; eligible_s is
#                      the record's Eligible (a requeued run's is its requeue
#                      time plus Slurm's delay), at most its start
#   --account-teams    the team column names the Slurm account the job ran
#                      under instead of the table's team (to read the
#                      segments with the cluster's own tree: sacctmgr dump)
#   --time-scale F     trace seconds per wall second (default 30): every time,
#                      duration and minimum runtime is divided by F
#   --max-wall S       stop waiting after S wall seconds past the last
#                      submission and cancel what is left (default 240)
#   --waits FILE       output: before those are cancelled, why each job
#                      still pending waits, as `sbudget show job` says
#                      (WaitsFor; sbudget from PATH, as contrib/cluster.sh
#                      env sets it): lines JOB|Slurm job ID: REASON, JOB the
#                      segments' job id (sbudget-sim metrics --waits)
#   --user USER        the Linux user that submits (default sb-alice)
# The cluster must be up (contrib/cluster.sh up; same SB_* variables).  A
# fresh top-level account (RawShares 1) gets one child per team, RawShares
# from the tree (the team's own line), so no earlier usage weighs on the
# standing; its share is set to 0 at the end.  Each job sleeps its
# duration, submitted at once with --begin at its (scaled) submit time, with
# --min-runtime, --resumable and -G from the table (whole nodes above 8
# GPUs).  A resumable job checkpoints: it counts its progress in a file,
# second by second, and a requeued run carries on from there; a job that
# is not resumable starts over when preempted (requeued from its
# beginning; PreemptNonResumable=requeue, the default).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
jobs='' tree='' out='' waits='' scale=30 max_wall=240 user=sb-alice account_teams=0
die() { echo "replay.sh: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "$1 needs a value (see --help)"; }
num() { [[ "$2" =~ ^[0-9]+([.][0-9]+)?$ ]] && [ "$(awk -v v="$2" 'BEGIN{print (v > 0)}')" = 1 ] ||
	die "$1 '$2' is not accepted: give a positive number"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) need "$@"; jobs=$2; shift 2 ;;
	--tree) need "$@"; tree=$2; shift 2 ;;
	--segments) need "$@"; out=$2; shift 2 ;;
	--time-scale) need "$@"; num "$1" "$2"; scale=$2; shift 2 ;;
	--max-wall) need "$@"; num "$1" "$2"; max_wall=$2; shift 2 ;;
	--user) need "$@"; user=$2; shift 2 ;;
	--waits) need "$@"; waits=$2; shift 2 ;;
	--account-teams) account_teams=1; shift ;;
	-h|--help) sed -n '2,37p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -f "$jobs" ] && [ -r "$jobs" ] || die "--jobs '$jobs': not a readable file"
[ -f "$tree" ] && [ -r "$tree" ] || die "--tree '$tree': not a readable file"
[ -n "$out" ] || die "--segments FILE is required"
jobs=$(realpath "$jobs"); tree=$(realpath "$tree"); out=$(realpath -m "$out")
{ : >>"$out"; } 2>/dev/null || die "--segments '$out': cannot write there"
if [ -n "$waits" ]; then
	waits=$(realpath -m "$waits")
	{ : >"$waits"; } 2>/dev/null || die "--waits '$waits': cannot write there"
fi
hdr=submit_time_s,duration_s,gpus,team,user,min_runtime_s,resumable,priority
[ "$(head -n 1 "$jobs" | tr -d '\r')" = "$hdr" ] ||
	die "--jobs '$jobs': not the canonical table (header $hdr)"
# Every line, before anything is created on the cluster: a bad line would
# otherwise be submitted as garbage (awk reads 'abc' as 0) or stop the
# replay half-way with the jobs already submitted left behind.
bad=$(awk -F, -v max_gpus="${SB_REPLAY_MAX_GPUS:-32}" '
	{ sub(/\r$/, "") }
	NR == 1 { next }
	function err(m) { printf "line %d: %s: %s\n", NR, m, $0; n++ }
	NF != 8 { err("expected 8 comma-separated fields, got " NF); next }
	$1 !~ /^[0-9]+([.][0-9]+)?$/ { err("submit_time_s is not a number >= 0") }
	$2 !~ /^[0-9]+([.][0-9]+)?$/ || $2 + 0 <= 0 { err("duration_s is not a number > 0") }
	$3 !~ /^[0-9]+$/ || $3 < 1 || $3 > max_gpus { err("gpus is not a whole number from 1 to " max_gpus) }
	$4 == "" { err("team is empty") }
	$6 !~ /^[0-9]+$/ { err("min_runtime_s is not a whole number of seconds") }
	$7 != "yes" && $7 != "no" { err("resumable is not yes or no") }
	END { exit n > 0 }' "$jobs" | head -n 20) ||
	die "--jobs '$jobs' has bad lines (first 20 shown; nothing was submitted):
$bad"

eval "$("$repo/contrib/cluster.sh" env)"
cd "$SB_CLUSTER_DIR/work"

# --- accounts: one per team, fresh each run ---------------------------------
tag=$(date +%s); tag=${tag: -6}
parent=rp$tag
mapfile -t teams < <(tail -n +2 "$jobs" | cut -d, -f4 | sort -u)
[ "${#teams[@]}" -gt 0 ] || die "--jobs '$jobs' has no jobs"
declare -A acct share seen
for t in "${teams[@]}"; do	# all checked before the first sacctmgr call
	share[$t]=$(awk -v t="$t" '!/^#/ && NF >= 2 && $1 == t { print $2; exit }' "$tree")
	[ -n "${share[$t]}" ] || die "team '$t' of --jobs is not in --tree '$tree' (nothing was created)"
	a=$parent-$(tr -c 'a-zA-Z0-9\n' '_' <<<"$t" | tr 'A-Z' 'a-z')
	[ -z "${seen[$a]:-}" ] || die "teams '${seen[$a]}' and '$t' would both be account $a: rename one"
	seen[$a]=$t acct[$t]=$a
done
# Earlier replays' accounts (rpNNNNNN under root, with their teams and
# users) go now, not at the end of theirs: the last replay's budgets stay
# for `sbudget show budget` until the next one.  Any still with a job in
# the queue stay (sacctmgr would refuse), said once.
mapfile -t old < <(sacctmgr -n -P show assoc where cluster=sbcluster format=account,parentname,user |
	awk -F'|' '$3 == "" && $2 == "root" && $1 ~ /^rp[0-9][0-9][0-9][0-9][0-9][0-9]$/ { print $1 }')
for p in "${old[@]}"; do
	mapfile -t sub < <(sacctmgr -n -P show assoc where cluster=sbcluster format=account,parentname,user |
		awk -F'|' -v p="$p" '$3 == "" && $2 == p { print $1 }')
	all=$(IFS=,; echo "$p${sub[*]:+,${sub[*]}}")
	if [ -n "$(squeue -h -A "$all" -o %i 2>/dev/null)" ]; then
		echo "replay: keeping an earlier replay's accounts $p: jobs of them are still queued or running" >&2
		continue
	fi
	sacctmgr -i delete account name="$all" cluster=sbcluster >/dev/null 2>&1 ||
		echo "replay: could not delete an earlier replay's accounts ($all); remove them with sacctmgr delete account" >&2
done
sacctmgr -i add account "$parent" parent=root fairshare=1 cluster=sbcluster >/dev/null
trap 'sacctmgr -i modify account "$parent" set fairshare=0 >/dev/null 2>&1 || true' EXIT
accts=()
for t in "${teams[@]}"; do
	accts+=("${acct[$t]}")
	sacctmgr -i add account "${acct[$t]}" parent="$parent" fairshare="${share[$t]}" cluster=sbcluster >/dev/null
done
sacctmgr -i add user "$user" account="$(IFS=,; echo "${accts[*]}")" cluster=sbcluster >/dev/null
# slurmctld's assoc_mgr learns the associations from slurmdbd (sbatch
# refuses an account it does not know yet)
for a in "${accts[@]}"; do
	for ((i = 0; i < 60; i++)); do
		[ -n "$(sshare -n -P -A "$a" -u "$user" -o Account,User | awk -F'|' -v u="$user" '$2 == u')" ] && break
		sleep 0.5
	done
	[ "$i" -lt 60 ] || die "slurmctld does not list the association $a/$user 30 s after it was added"
done
echo "replay: ${#teams[@]} teams as accounts under $parent (RawShares from $tree)" >&2

# --- submission: every job at once, each eligible at its scaled time -------
hms() { printf '%d:%02d:%02d' $(($1 / 3600)) $(($1 % 3600 / 60)) $(($1 % 60)); }
scaled() { awk -v v="$1" -v f="$scale" 'BEGIN { s = v / f; r = int(s); if (r < s) r++; if (v > 0 && r < 1) r = 1; print r }'; }
n=$(tail -n +2 "$jobs" | grep -c . || true)	# data lines (also without a final newline)
t0=$(($(date +%s) + 5 + n / 20))	# after the submissions below
declare -a id row_team row_gpus row_mr row_sub row_res
ckpt=$SB_CLUSTER_DIR/work/replay-$tag	# resumable jobs' progress
mkdir -p "$ckpt"; chown "$user" "$ckpt"
k=0 last=0 noted=0
while IFS=, read -r sub dur g team _u mr res _prio || [ -n "$sub" ]; do	# last line may lack its newline
	[ "$sub" = submit_time_s ] && continue
	k=$((k + 1))
	s=$(scaled "$sub"); d=$(scaled "$dur"); m=$(scaled "$mr")
	[ "$s" -gt "$last" ] && last=$s
	args=(-J "rp$k" -A "${acct[$team]}" --begin="$(date -d "@$((t0 + s))" +%FT%T)"
	      --min-runtime="$(hms "$m")" -G "$g")
	[ "$g" -gt 8 ] && args+=(-N $(((g + 7) / 8)))
	script="sleep $d"
	if [ "$res" = yes ]; then
		args+=(--resumable)
		script="f=$ckpt/$k; d=\$(cat \$f 2>/dev/null || echo 0); while [ \$d -lt $d ]; do sleep 1; d=\$((d + 1)); echo \$d > \$f; done"
	fi
	# sbatch's stderr apart: job_submit/budget's note on an accepted job
	# is counted, not printed once per job; a refusal's message is shown
	if ! id[k]=$(runuser -u "$user" -- env SLURM_CONF="$SLURM_CONF" sbatch --parsable -o /dev/null \
		"${args[@]}" --wrap "$script" 2>"$ckpt/sbatch.err" | cut -d';' -f1) || [ -z "${id[k]}" ]; then
		cat "$ckpt/sbatch.err" >&2
		[ "$k" -gt 1 ] && scancel "${id[@]:1:k-1}" 2>/dev/null || true
		die "job $k (line $((k + 1)) of '$jobs') was refused by sbatch (message above); the $((k - 1)) jobs already submitted were cancelled"
	fi
	if grep -q 'budget: note: ' "$ckpt/sbatch.err"; then
		noted=$((noted + 1))
	else
		cat "$ckpt/sbatch.err" >&2
	fi
	row_team[k]=$team row_gpus[k]=$g row_mr[k]=$mr row_sub[k]=$sub row_res[k]=$res
done <"$jobs"
echo "replay: $k jobs submitted; the trace starts at $(date -d "@$t0" +%T) (epoch $t0)," \
	"time x1/$scale, last submission at +${last}s" >&2
[ "$noted" -eq 0 ] || echo "replay: $noted of them were told at submission that a preemption" \
	"past their minimum runtime would lose their work (not resumable; job_submit/budget's note)" >&2

# --- wait: until all ended, or --max-wall past the last submission ---------
# why each job still pending waits (before it is cancelled): show job's
# WaitsFor, by the table's row (the segments' job id) into --waits
ask_waits() {
	local pend k w failed=0 why=''
	if ! pend=$(squeue -h -t PD -j "$ids" -o %i 2>&1); then
		echo "replay: --waits: squeue failed ($pend): no reasons written" >&2
		return 0
	fi
	pend=" $(tr '\n' ' ' <<<"$pend")"
	for ((k = 1; k <= n; k++)); do
		case $pend in *" ${id[k]} "*) ;; *) continue ;; esac
		if ! w=$(sbudget -P -n show job "${id[k]}" format=WaitsFor 2>/dev/null); then
			failed=$((failed + 1))
			# the first failure's message, asked again
			[ -n "$why" ] || why=$(sbudget -P -n show job "${id[k]}" format=WaitsFor 2>&1 >/dev/null)
			continue
		fi
		# the job ids in show job's sentence are Slurm's: say which is this one
		[ -z "$w" ] || printf '%s|Slurm job %s: %s\n' "$k" "${id[k]}" "$w" >>"$waits"
	done
	echo "replay: why the $(grep -c . "$waits" || true) jobs still pending wait: $waits" >&2
	[ "$failed" -eq 0 ] || echo "replay: --waits: sbudget show job failed for $failed of them: $why" >&2
}
ids=$(IFS=,; echo "${id[*]:1}")
deadline=$((t0 + last + ${max_wall%.*}))
while :; do
	left=$(squeue -h -j "$ids" -o %i 2>/dev/null | wc -l)
	[ "$left" -eq 0 ] && break
	if [ "$(date +%s)" -ge "$deadline" ]; then
		echo "replay: --max-wall reached: cancelling $left jobs still queued or running" >&2
		[ -n "$waits" ] && ask_waits
		mapfile -t leftover < <(squeue -h -j "$ids" -o %i 2>/dev/null)
		[ "${#leftover[@]}" -eq 0 ] || scancel "${leftover[@]}" 2>/dev/null || true
		sleep 3
		break
	fi
	sleep 2
done

# --- segments: every run of every job (sacct --duplicates), trace seconds --
# slurmdbd records ends asynchronously: wait until it has every job's end
for ((i = 0; i < 60; i++)); do
	sacct -n -X -D -P -j "$ids" -o End 2>/dev/null | grep -q Unknown || break
	sleep 0.5
done
tr_s() { awk -v t="$1" -v z="$t0" -v f="$scale" 'BEGIN { printf "%d", (t - z) * f }'; }
known() { case $1 in ''|Unknown|None) return 1 ;; esac; }
echo "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted,eligible_s" >"$out"
for ((k = 1; k <= n; k++)); do
	runs=$(sacct -n -X -D -P -j "${id[k]}" -o Start,End,State,Eligible 2>/dev/null || true)
	nr=$(grep -c . <<<"$runs" || true)
	team=${row_team[k]}
	[ "$account_teams" = 1 ] && team=${acct[$team]}
	i=0 any=0
	while IFS='|' read -r st en state el; do
		[ -z "$st$en$state" ] && continue
		i=$((i + 1))
		s='' e='' p=0 ev=''
		known "$el" && ev=$(tr_s "$(date -d "$el" +%s)")
		# not before the job's (scaled) submit time: its first eligibility
		[ -n "$ev" ] && [ "$ev" -lt "${row_sub[k]%.*}" ] && ev=${row_sub[k]%.*}
		if known "$st"; then
			[ "$en" = Unknown ] && en=$(date +%FT%T)
			s=$(tr_s "$(date -d "$st" +%s)") e=$(tr_s "$(date -d "$en" +%s)")
			# a run cancelled while pending is recorded with start =
			# end and may be eligible after it: no demand, no run
			[ -n "$ev" ] && [ "$ev" -gt "$s" ] && ev=$s
			# a preempted run of a resumable job that ran again later
			# kept its work (checkpoint): 2; otherwise it was lost: 1
			# (the core's sb_run_work_lost, as sbudget reads the same
			# records: a later record = requeued, not cancelled)
			# slurmdbd writes PREEMPTED for a run a preemption ended,
			# requeued or cancelled (a later record: requeued), and
			# REQUEUED for a run an administrator requeued
			case $state in
			PREEMPTED*)
				p=1
				[ "${row_res[k]}" = yes ] && [ "$i" -lt "$nr" ] && p=2 ;;
			REQUEUE*)
				p=1
				[ "${row_res[k]}" = yes ] && p=2 ;;
			esac
		else	# never started: a pending span, until it left the queue
			known "$en" && e=$(tr_s "$(date -d "$en" +%s)")
		fi
		echo "$k,$team,${row_gpus[k]},${row_mr[k]},${row_sub[k]},$s,$e,$p,$ev" >>"$out"
		any=1
	done <<<"$runs"
	[ $any = 1 ] || echo "$k,$team,${row_gpus[k]},${row_mr[k]},${row_sub[k]},,,0," >>"$out"
done
rm -rf "$ckpt"
echo "replay: segments written to $out" >&2
