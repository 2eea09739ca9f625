#!/usr/bin/env bash
# contrib/bench-load.sh - slurmctld under load with all four budget plugins,
# against priority/multifactor + preempt/qos on the same job set.
#
# Usage: contrib/bench-load.sh COMMAND [OPTIONS]
#   setup                 a fresh bench cluster with all four plugins, 1000
#                         accounts, 32 running jobs filling every GPU, then the
#                         pending jobs (contrib/bench-lib.sh; 7-25 min for 50k)
#   run --set SET [--label L]
#                         switch slurmctld to SET at a restart (job state kept)
#                         and measure it once; appends one line to --out
#   rounds N              N rounds of: run budget, run budget-nojs, run
#                         multifactor (interleaved A/B/A/B), then summary
#   cancels [--burst N]   with set budget (restarted): N more pending jobs
#                         (default 5000) submitted, then cancelled with one
#                         scancel while the tick runs; reports the tick
#                         summaries from the submission to the second one
#                         written after the cancel (locks held, per
#                         summary: the maximum is the figure) and each tick
#                         that held them over 20 ms (its CPU, waits and
#                         CPU taken: slow_*); one line to --out
#   summary               medians per set of the lines in --out, and ratios
#   down                  stop the bench cluster
# Sets (slurmctld restarted with the other plugins; slurmd and the spank
# plugin, which gives sbatch its --min-runtime option, stay the same):
#   budget       job_submit/budget, priority/budget, preempt/budget, spank/budget
#   budget-nojs  the same without job_submit/budget (JobSubmitPlugins unset)
#   multifactor  priority/multifactor (PriorityCalcPeriod=1 minute, fair-share
#                and age weights) + preempt/qos (PreemptMode=REQUEUE)
# Options:
#   --jobs N       pending jobs for setup (default 50000)
#   --accounts N   accounts for setup (default 1000)
#   --plugins DIR  build directory whose plugins are used (default _build)
#   --window S     samples of the threads' CPU, one a second (default 120; at
#                  least 60, one multifactor cycle; reading /proc takes time,
#                  so the window lasts longer: its wall time is window_s)
#   --sbatch N     sbatch calls timed per run (default 200)
#   --squeue N     squeue calls timed per run (default 20)
#   --out FILE     results file (default $build/bench-load.txt)
# What one run measures, in this order, with nothing else submitted:
#   - the restart: seconds until slurmctld answers with all jobs again;
#   - over --window S after a 20 s warm-up: each thread's own CPU time from
#     /proc/PID/task/TID/stat (utime+stime) and .../schedstat (ns), sampled
#     every second: sb_prio_calc (priority/budget's recalculation),
#     sb_preempt_tick (preempt/budget's tick), decay (multifactor's decay and
#     recalculation thread: Slurm names it with prctl); a recalculation is a
#     run of consecutive samples in which its thread used CPU, so the CPU per
#     CalcPeriod is measured, not divided; slurmctld's whole CPU beside it;
#   - squeue of all jobs (default format), N calls, median/p90 seconds;
#   - sbatch round trip (fork to exit of `sbatch` into the DOWN partition),
#     N calls, median/p90 seconds, and slurmctld's own time for each of those
#     submissions (its log's "_slurm_rpc_submit_batch_job: ... usec=");
#     those jobs are cancelled afterwards;
#   - job_submit/budget's own cost per submission (set budget only): its
#     summaries of 60 submit calls each (the calling thread's CPU from entry
#     to return, median and p90; logged at verbose level, so SlurmctldDebug
#     must be verbose or more) written during those sbatch calls; the
#     result is the median over the run's summaries (js_cpu_*_us);
#   - preempt/budget's tick summaries written during the run (locks held,
#     thread CPU; the first after the restart is a warm-up, dropped);
#   - the load average when the run started.
# Cluster directory $build/bl, plugins staged in $build/bl-stage, ports
# SB_BENCH_CTLD_PORT & co. (default 36817.., see contrib/bench-lib.sh).
# Method and results: doc/benchmarks.md, section 2c.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${SB_BUILD_DIR:-$repo/_build}
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in -h | --help | help | '') usage; exit 0 ;; esac
case $cmd in setup | run | rounds | cancels | summary | down) ;;
*) echo "bench-load.sh: unknown command '$cmd' (accepted: setup, run, rounds, cancels, summary, down, --help)" >&2; exit 2 ;;
esac
jobs=50000 accounts=1000 plugins=$build window=120 nsbatch=200 nsqueue=20 burst=5000
set_name='' label='' rounds='' out=$build/bench-load.txt
if [ "$cmd" = rounds ]; then
	rounds=${1:-}
	[ $# -gt 0 ] && shift
	[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "bench-load.sh: rounds needs a count, got '$rounds'" >&2; exit 2; }
fi
while [ $# -gt 0 ]; do
	case "$1" in
	--jobs) jobs=${2:?--jobs needs a number}; shift 2 ;;
	--accounts) accounts=${2:?--accounts needs a number}; shift 2 ;;
	--plugins) plugins=${2:?--plugins needs a build directory}; shift 2 ;;
	--window) window=${2:?--window needs seconds}; shift 2 ;;
	--sbatch) nsbatch=${2:?--sbatch needs a number}; shift 2 ;;
	--squeue) nsqueue=${2:?--squeue needs a number}; shift 2 ;;
	--burst) burst=${2:?--burst needs a number}; shift 2 ;;
	--set) set_name=${2:?--set needs budget, budget-nojs or multifactor}; shift 2 ;;
	--label) label=${2:?--label needs a word}; shift 2 ;;
	--out) out=${2:?--out needs a file}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "bench-load.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
bench_name=bench-load
# shellcheck source=contrib/bench-lib.sh
. "$repo/contrib/bench-lib.sh"
bench_check_count "$jobs" "$accounts" "$window" "$nsbatch" "$nsqueue" "$burst"
case $set_name in '' | budget | budget-nojs | multifactor) ;;
*) echo "bench-load.sh: unknown set '$set_name' (accepted: budget, budget-nojs, multifactor)" >&2; exit 2 ;;
esac
[ "$window" -ge 60 ] || { echo "bench-load.sh: --window $window is below 60 s, one multifactor cycle" >&2; exit 2; }
bench_init bl ""

# set_conf SET: stage SET's plugins and export its slurm.conf lines.
set_conf() {
	case $1 in
	budget)
		bench_install_plugins "$plugins"
		export SB_SLURM_CONF_EXTRA=$bench_conf_base ;;
	budget-nojs)
		bench_install_plugins "$plugins" priority_budget preempt_budget spank_budget
		export SB_SLURM_CONF_EXTRA=$bench_conf_base ;;
	multifactor)
		bench_install_plugins "$plugins" spank_budget
		export SB_SLURM_CONF_EXTRA="$bench_conf_base
PriorityType=priority/multifactor
PriorityCalcPeriod=1
PriorityDecayHalfLife=7-0
PriorityWeightFairshare=10000
PriorityWeightAge=1000
PreemptType=preempt/qos
PreemptMode=REQUEUE" ;;
	*) echo "bench-load.sh: unknown set '$1' (accepted: budget, budget-nojs, multifactor)" >&2; exit 2 ;;
	esac
}

# the first line only (24.11 rewrites the pid file without truncating it)
# ctld_pid: slurmctld's pid from its pid file; empty (and status 0) when the
# cluster is down, so that set -e does not end the caller.
ctld_pid() { { head -n 1 "$SB_CLUSTER_DIR/run/slurmctld.pid" 2>/dev/null || true; } | tr -dc '0-9'; }

# thread_cpu PID: "TID NAME TICKS NS" for each thread of PID (utime+stime in
# clock ticks, schedstat's on-CPU nanoseconds).
thread_cpu() {
	local t name
	for t in /proc/"$1"/task/*; do
		name=$(cat "$t/comm" 2>/dev/null) || continue
		name=${name// /_}
		printf '%s %s %s %s\n' "${t##*/}" "${name:--}" \
			"$(sed 's/.*) //' "$t/stat" 2>/dev/null | awk '{ print $12 + $13 }')" \
			"$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null || echo 0)"
	done
	# the whole process (threads that ended count too), in ticks only
	printf '0 _process %s 0\n' "$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }')"
}

# quantiles: "median p90" of the numbers on stdin.
quantiles() {
	sort -g | awk '{ a[NR] = $1 } END {
		if (!NR) { print "- -"; exit }
		m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
		p = int(0.9 * NR + 0.999999); if (p < 1) p = 1
		printf "%.4f %.4f\n", m, a[p] }'
}

# time_cmd COMMAND...: seconds the command took (it must succeed).
time_cmd() {
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null || return 1
	e=$(date +%s%N)
	echo "scale=4; ($e - $s) / 1000000000" | bc
}

# js_cpu: "median p90" (us) over job_submit/budget's submit summaries in
# the log text on stdin, the median of their thread CPU medians and of their
# p90s; "- -" when there are none.
js_cpu() {
	{ grep -o 'job_submit/budget: submit over 60 calls: .*' || true; } |
		sed 's/.*thread CPU median \([0-9]*\) us p90 \([0-9]*\) .*/\1 \2/' |
		awk '{ m[NR] = $1; p[NR] = $2 }
		function med(a, n,   x, y, t) {
			for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] < a[x]) { t = a[x]; a[x] = a[y]; a[y] = t }
			return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		END { if (!NR) { print "- -"; exit }
			print med(m, NR), med(p, NR) }'
}

all_pending() { [ "$(count_jobs PD)" -ge "$jobs_expected" ]; }

# tick_fields DROP: the key=value fields of preempt/budget's tick summaries
# in the log text on stdin ("tick over 60 ticks: locks held median N us
# p90 N max N; thread CPU median N ..."), one comma-separated list per
# field, the first DROP summaries left out (0 or 1).
tick_fields() {
	{ grep -o 'preempt/budget: tick over 60 ticks: .*' || true; } | awk -v d="$1" 'NR > d' |
		awk '{ gsub(/;/, ""); lm = lm "," $9; lp = lp "," $12; lx = lx "," $14; cm = cm "," $18; cx = cx "," $23; wl = wl "," $27; wk = wk "," ($37 == "job_list" ? $40 : "-"); uc = uc "," ($42 == "committed" ? $47 : "-"); sl = sl "," ($54 == "slices" ? $59 : "-") }
		END { if (NR) printf "tick_summaries=%d tick_locks_median_us=%s tick_locks_p90_us=%s tick_locks_max_us=%s tick_cpu_median_us=%s tick_cpu_max_us=%s tick_write_ticks=%s tick_walks=%s tick_uncommitted=%s tick_sliced=%s",
			NR, substr(lm, 2), substr(lp, 2), substr(lx, 2), substr(cm, 2), substr(cx, 2), substr(wl, 2), substr(wk, 2), substr(uc, 2), substr(sl, 2) }'
}

# slow_fields: the key=value fields of preempt/budget's slow-tick lines (a
# tick that held the locks over 20 ms) on stdin: how many, and per line the
# hold, the thread's CPU, its waits (voluntary context switches) and the
# times its CPU was taken (involuntary); "slow_ticks=0" when none.
slow_fields() {
	{ grep -o "preempt/budget: tick held slurmctld's locks over .*" || true; } |
		sed -n 's/.*: held \([0-9]*\) us, thread CPU \([0-9]*\) us, off CPU [0-9]* us: \([0-9]*\) waits.*, \([0-9]*\) times the CPU was taken.*/\1 \2 \3 \4/p' |
		awk '{ h = h "," $1; c = c "," $2; v = v "," $3; i = i "," $4 }
		END { printf "slow_ticks=%d", NR; if (NR) printf " slow_held_us=%s slow_cpu_us=%s slow_waits=%s slow_cpu_taken=%s", substr(h, 2), substr(c, 2), substr(v, 2), substr(i, 2) }'
}

# tick_summaries_since OFFSET: how many tick summaries the log has after
# byte OFFSET.
tick_summaries_since() {
	tail -c +"$(($1 + 1))" "$ctld_log" | grep -c 'preempt/budget: tick over 60 ticks: ' || true
}

# summarise_samples FILE HZ: per thread name, CPU over the window (schedstat
# ns, and utime+stime); for the recalculation threads also the number of
# recalculations (runs of consecutive samples with more than 0.1 ms of CPU)
# and the median CPU of one; slurmctld's whole CPU (utime+stime).  The
# thread names' totals go to stderr.  FILE holds thread_cpu lines prefixed
# with the sample's second.
summarise_samples() {
	awk -v hz="$2" '
	{ t = $1; tid = $2; name[tid] = $3; tick[tid, t] = $4; ns[tid, t] = $5; if (t > last) last = t }
	END {
		for (tid in name) {
			if (!((tid, 0) in ns) || !((tid, last) in ns)) continue
			n = name[tid]
			if (n == "_process") { proc = tick[tid, last] - tick[tid, 0]; continue }
			tot_ticks[n] += tick[tid, last] - tick[tid, 0]
			tot_ns[n] += ns[tid, last] - ns[tid, 0]
			if (n != "sb_prio_calc" && n != "decay" && n != "sb_preempt_tick") continue
			k = 0; inb = 0
			for (t = 1; t <= last; t++) {
				d = ns[tid, t] - ns[tid, t - 1]
				if (d > 100000) { if (!inb) { k++; b[n, k] = 0 } b[n, k] += d; inb = 1 } else inb = 0
			}
			cycles[n] = k
		}
		printf "ctld_cpu_s=%.2f", proc / hz
		split("sb_prio_calc decay sb_preempt_tick", want, " ")
		for (j = 1; j <= 3; j++) {
			n = want[j]
			if (!(n in tot_ns)) continue
			k = cycles[n]; m = 0
			if (k) {	# median burst
				for (x = 1; x <= k; x++) v[x] = b[n, x]
				for (x = 1; x <= k; x++) for (y = x + 1; y <= k; y++) if (v[y] < v[x]) { s = v[x]; v[x] = v[y]; v[y] = s }
				m = (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
			}
			printf " %s_cpu_s=%.3f %s_ticks_s=%.2f", n, tot_ns[n] / 1e9, n, tot_ticks[n] / hz
			if (n != "sb_preempt_tick")	# the tick runs every second: no gaps
				printf " %s_bursts=%d %s_burst_median_ms=%.1f", n, k, n, m / 1e6
		}
		# the five busiest thread names
		for (n in tot_ns) print tot_ns[n], n > "/dev/stderr"
	}' "$1"
}

do_run() {
	[ -n "$set_name" ] || die "run needs --set budget|budget-nojs|multifactor"
	: "${label:=$set_name}"
	[ -f "$ctld_log" ] || die "no bench cluster in $SB_CLUSTER_DIR: run 'contrib/bench-load.sh setup' first"
	local pid0 pid off t0 restart load samples hz i acct lat_q lat_s w0 wall soff rpc nok js
	eval "$(cluster env)"
	cluster up >/dev/null	# the cluster may be down (state kept)
	jobs_expected=$(count_jobs PD)
	[ "$jobs_expected" -gt 0 ] || die "no pending jobs: run 'contrib/bench-load.sh setup' first"
	set_conf "$set_name"
	load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
	pid0=$(ctld_pid)
	off=$(stat -c %s "$ctld_log")
	t0=$(date +%s%N)
	cluster up >/dev/null
	[ "$(ctld_pid)" != "$pid0" ] || cluster restart-ctld >/dev/null
	wait_until 300 running_full || die "$label: only $(count_jobs R) of 32 jobs run after the restart"
	wait_until 300 all_pending || die "$label: $(count_jobs PD) pending after the restart, wanted $jobs_expected"
	restart=$(echo "scale=1; ($(date +%s%N) - $t0) / 1000000000" | bc)
	pid=$(ctld_pid)
	say "$label: slurmctld $pid up in $restart s with $(count_jobs PD) pending; warm-up 20 s, then ${window} s of thread CPU"
	sleep 20
	samples=$SB_CLUSTER_DIR/samples-$label.txt
	: > "$samples"
	w0=$(date +%s%N)
	for ((i = 0; i <= window; i++)); do
		thread_cpu "$pid" | sed "s/^/$i /" >> "$samples"
		sleep 1
	done
	wall=$(echo "scale=1; ($(date +%s%N) - $w0) / 1000000000" | bc)
	hz=$(getconf CLK_TCK)
	say "$label: $nsqueue squeue calls"
	lat_q=$(for ((i = 0; i < nsqueue; i++)); do time_cmd squeue; sleep 1; done | quantiles)
	say "$label: $nsbatch sbatch calls"
	soff=$(stat -c %s "$ctld_log")
	lat_s=$(for ((i = 0; i < nsbatch; i++)); do
		acct=$(printf 'bench%04d' $((i % accounts_n + 1)))
		time_cmd sbatch -Q -J bench-lat -p parked -A "$acct" -G 1 --min-runtime=0:10 \
			-o /dev/null -D /tmp --wrap true || true
	done)
	nok=$(printf '%s\n' "$lat_s" | grep -c . || true)
	[ "$nok" -eq "$nsbatch" ] || say "$label: only $nok of $nsbatch sbatch calls succeeded"
	lat_s=$(printf '%s\n' "$lat_s" | grep . | quantiles)
	# slurmctld's own time for each submission RPC (its log, usec=)
	rpc=$(tail -c +"$((soff + 1))" "$ctld_log" | { grep -o '_slurm_rpc_submit_batch_job: .*usec=[0-9]*' || true; } |
		sed 's/.*usec=//' | quantiles)
	# job_submit/budget's own cost: its submit summaries of these sbatch
	# calls ("... thread CPU median N us p90 N max N"), median over them
	js='- -'
	if [ "$set_name" = budget ]; then
		js=$(tail -c +"$((soff + 1))" "$ctld_log" | js_cpu)
	fi
	scancel -n bench-lat
	summarise_samples "$samples" "$hz" 2> "$samples.top" > "$samples.sum"
	local top tick
	top=$(sort -gr "$samples.top" | head -n 6 | awk '{ printf "%s%s:%.2f", (NR > 1 ? "," : ""), $2, $1 / 1e9 }')
	# preempt/budget's tick summaries after the restart (first dropped)
	tick=$(tail -c +"$((off + 1))" "$ctld_log" | tick_fields 1)
	tick="$tick $(tail -c +"$((off + 1))" "$ctld_log" | slow_fields)"
	printf '%s label=%s set=%s jobs=%s load=%s restart_s=%s window_s=%s %s squeue_median_s=%s squeue_p90_s=%s sbatch_ok=%s sbatch_median_s=%s sbatch_p90_s=%s submit_rpc_median_us=%s submit_rpc_p90_us=%s js_cpu_median_us=%s js_cpu_p90_us=%s threads=%s %s\n' \
		"$(date -u +%FT%TZ)" "$label" "$set_name" "$jobs_expected" "$load" "$restart" "$wall" \
		"$(cat "$samples.sum")" "${lat_q% *}" "${lat_q#* }" "$nok" "${lat_s% *}" "${lat_s#* }" \
		"${rpc% *}" "${rpc#* }" "${js% *}" "${js#* }" "$top" "$tick" | tee -a "$out"
}

# do_cancels: with set budget (restarted, 20 s warm-up), --burst more
# pending jobs submitted (bench-submit, into the parked partition) and, once
# a tick summary has been written after the submission, cancelled with one
# scancel; the tick summaries from the submission to the second after the
# cancel, and the scancel's wall time.
do_cancels() {
	: "${label:=cancels}"
	[ -f "$ctld_log" ] || die "no bench cluster in $SB_CLUSTER_DIR: run 'contrib/bench-load.sh setup' first"
	local pid0 off soff coff load first last t0 cancel_s i
	eval "$(cluster env)"
	set_conf budget
	pid0=$(ctld_pid)
	cluster up >/dev/null
	[ "$(ctld_pid)" != "$pid0" ] || cluster restart-ctld >/dev/null
	# counted after the restart: the cluster may have been down (state
	# kept), and slurmctld answers only once it has recovered every job
	jobs_expected=$(count_jobs PD)
	[ "$jobs_expected" -gt 0 ] || die "no pending jobs: run 'contrib/bench-load.sh setup' first"
	wait_until 300 running_full || die "$label: only $(count_jobs R) of 32 jobs run after the restart"
	wait_until 300 all_pending || die "$label: $(count_jobs PD) pending after the restart, wanted $jobs_expected"
	sleep 20
	load=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' /)
	local before ids n
	before=$(squeue -h -o %i | sort -n | tail -n 1)
	soff=$(stat -c %s "$ctld_log")
	say "$label: $burst more pending jobs"
	"$build/test/bench/bench-submit" "$burst" parked "$(bench_accounts "$accounts_n")" >&2
	# the new jobs: the pending ones above every id seen before (ids of
	# jobs an earlier burst cancelled may be purged by now)
	ids=$(squeue -h -t PD -o %i | sort -n | awk -v b="$before" '$1 > b')
	n=$(printf '%s\n' "$ids" | grep -c . || true)
	[ "$n" -gt 0 ] || die "$label: no job submitted"
	first=$(printf '%s\n' "$ids" | head -n 1)
	last=$(printf '%s\n' "$ids" | tail -n 1)
	for ((i = 0; i < 150; i++)); do
		[ "$(tick_summaries_since "$soff")" -ge 1 ] && break
		sleep 1
	done
	coff=$(stat -c %s "$ctld_log")
	say "$label: cancelling $n jobs ($first-$last) with one scancel"
	t0=$(date +%s%N)
	printf '%s\n' "$ids" | xargs scancel || say "$label: scancel failed"
	cancel_s=$(echo "scale=2; ($(date +%s%N) - $t0) / 1000000000" | bc)
	for ((i = 0; i < 200; i++)); do
		[ "$(tick_summaries_since "$coff")" -ge 2 ] && break
		sleep 1
	done
	off=$soff
	printf '%s label=%s set=budget jobs=%s burst=%s load=%s scancel_s=%s %s\n' \
		"$(date -u +%FT%TZ)" "$label" "$jobs_expected" "$n" "$load" "$cancel_s" \
		"$(tail -c +"$((off + 1))" "$ctld_log" | tick_fields 0) $(tail -c +"$((off + 1))" "$ctld_log" | slow_fields)" | tee -a "$out"
}

do_summary() {
	[ -f "$out" ] || die "no results in $out (run 'contrib/bench-load.sh rounds N' first)"
	awk '
	function kv(s, k,   a, b) { if (!match(s, " " k "=[^ ]*")) return ""; a = substr(s, RSTART + length(k) + 2, RLENGTH - length(k) - 2); return a }
	function med(list,   n, a, x, y, t, r, nr, i) { nr = split(list, r, " "); n = 0
		for (i = 1; i <= nr; i++) if (r[i] != "-") a[++n] = r[i]	# a run without the column: -
		if (!n) return "-"
		for (x = 1; x <= n; x++) for (y = x + 1; y <= n; y++) if (a[y] + 0 < a[x] + 0) { t = a[x]; a[x] = a[y]; a[y] = t }
		return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{
		s = kv($0, "set"); runs[s]++
		split("restart_s window_s ctld_cpu_s sb_prio_calc_burst_median_ms sb_prio_calc_bursts sb_prio_calc_cpu_s decay_burst_median_ms decay_bursts decay_cpu_s sb_preempt_tick_cpu_s squeue_median_s squeue_p90_s sbatch_median_s sbatch_p90_s submit_rpc_median_us submit_rpc_p90_us js_cpu_median_us js_cpu_p90_us", keys, " ")
		for (i in keys) { v = kv($0, keys[i]); if (v == "") v = "-"; if (v != "-") has[s, keys[i]] = 1; val[s, keys[i]] = val[s, keys[i]] " " v }
		loads[s] = loads[s] " " kv($0, "load")
	}
	END {
		for (s in runs) {
			printf "%s: %d runs, load averages%s\n", s, runs[s], loads[s]
			for (i = 1; i in keys; i++) if ((s, keys[i]) in has) printf "  %-30s median %s   (runs:%s)\n", keys[i], med(val[s, keys[i]]), val[s, keys[i]]
		}
	}' "$out"
}

case $cmd in
setup) bench_setup "$plugins" "$jobs" "$accounts" ;;
run) accounts_n=$accounts; do_run ;;
cancels) accounts_n=$accounts; do_cancels ;;
rounds)
	accounts_n=$accounts
	for ((r = 1; r <= rounds; r++)); do
		for s in budget budget-nojs multifactor; do
			set_name=$s label=$s-$r do_run
		done
	done
	do_summary ;;
summary) do_summary ;;
down) cluster down ;;
*) echo "bench-load.sh: unknown command '$cmd' (accepted: setup, run, rounds, cancels, summary, down, --help)" >&2; exit 2 ;;
esac
