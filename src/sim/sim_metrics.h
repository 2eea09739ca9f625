/*
 * sim_metrics.h - sbudget-sim's metrics (metrics.c), their report as text
 * and JSON (report.c) and the verdict (verdict.c); sim.h's overview says
 * what each does.  Included by sim.h.
 */
#ifndef SB_SIM_METRICS_H
#define SB_SIM_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;
struct sim_tree;

/* The longest job id the verdict names (longer ones are cut). */
#define SIM_JOB_ID_MAX 32

/* One job as the metrics see it (from the simulator or observed runs). */
struct sim_mjob {
	uint32_t node;		/* tree index of its team: the budget it is
				 * reported under (its runs are charged
				 * there or below) */
	uint32_t gpus;
	int64_t min_runtime;	/* seconds, for the wait classes */
	bool allocated;		/* its contract (sim_job_contract()): only
				 * allocated demand is owed, only allocated
				 * runs are delivered */
	int64_t submit;
	int64_t first_start;	/* SIM_NEVER: never started */
	int64_t end;		/* end of its last run; SIM_NEVER: never ran */
	int64_t pending_since;	/* pending at the end (or when it left the
				 * queue unstarted) since then; SIM_NEVER:
				 * not pending */
	int64_t pending_until;	/* when that pending span ended (cancelled
				 * while pending); SIM_NEVER: still open, it
				 * counts until the metrics' @now */
	char id[SIM_JOB_ID_MAX];	/* its id as the segments name it
					 * (truncated), for the verdict */
	const char *why;	/* why it waits, in `sbudget show job`'s
				 * words: at the end if it never started,
				 * else at SIM_LONG_WAIT (sim_run()'s
				 * outcome; --waits); NULL: not known */
};

/*
 * sim_mjob_wait - seconds job @j waited, as the metrics count it: to its
 * first start, or (never started) to @t1, the end of the report's window.
 */
double sim_mjob_wait(const struct sim_mjob *j, int64_t t1);

/*
 * sim_fmt_duration - @s seconds as the reports print waits: "42s" below
 * 2 minutes, "12.5m" below 2 hours, else "3.25h".
 */
void sim_fmt_duration(double s, char *buf, size_t len);

/* One run segment. */
struct sim_mseg {
	uint32_t job;
	int64_t eligible;	/* when the job began to ask for this run;
				 * SIM_NEVER: no demand before the start */
	int64_t start, end;
	bool preempted;
	bool lost;		/* preempted and its work thrown away */
	bool cancelled;		/* ... because it was cancelled (fate
				 * "cancelled"; the 8- and 9-column
				 * segments cannot say: false) */
};

/* Figures of one budget (its whole subtree) over the window, GPU-seconds,
 * as sb_figures() defines them (sb/figures.h). */
struct sim_fig {
	double quota;		/* entitled x GPUs x window */
	double demand;		/* allocated demand: eligible to end */
	double owed;		/* per hour min(quota, demand), summed */
	double delivered;	/* allocated runs */
	double capped;		/* per hour min(delivered, owed), summed */
	double unallocated;	/* unallocated runs: apart, owed nothing */
	double lost;		/* runs whose work was thrown away, allocated
				 * or not (also in delivered/unallocated) */
};

struct sim_team_report {
	const char *name;	/* its path in the tree */
	uint32_t node;		/* tree index */
	double entitled;	/* fraction of the cluster */
	struct sim_fig fig;
	double ratio;		/* capped / owed; 1 when owed = 0 */
	size_t jobs;
	size_t debug_jobs;	/* its debug jobs submitted in the window */
	double debug_p90;	/* their wait's p90, s (0 when none) */
	/* over the lookback window (sb_fig_window()): owed and capped
	 * window by window, GPU-seconds; their ratio (1 when nothing owed) */
	double w_owed, w_capped, w_ratio;
};

/*
 * The verdict: were the budgets honoured?  The target is the project's
 * stated result (over 30 days teams received 98% of the GPU-hours owed
 * to them and 13 of 15 teams got >= 95%; the goal our reports hold each
 * team to): a team meets it when
 * what it was delivered of what it was owed (capped / owed, sb/figures.h)
 * is at least SIM_TARGET_OWED.  Budgets are honoured when every team owed
 * anything meets it.  Both `sbudget-sim run` and `sbudget-sim metrics`
 * (the demo's report) judge with it.
 */
#define SIM_TARGET_OWED 0.95
/* A job "waited long" when its first start came more than this after its
 * submission: 2 h, the p90 queue wait of debug jobs under the old
 * priority scheduler in production, the wait budgets were built to
 * end. */
#define SIM_LONG_WAIT (2 * 3600)
/* The verdict names at most this many jobs, then "and N more". */
#define SIM_VERDICT_MAX_JOBS 10

/* A job the verdict names: never started, or waited long. */
struct sim_verdict_job {
	char id[SIM_JOB_ID_MAX];
	const char *team;	/* its team's path (borrowed from the tree) */
	uint32_t gpus;
	bool allocated;
	bool started;		/* false: never started in the window */
	double wait;		/* s: first start - submit, or (never started)
				 * until max(t1, submit) as the waits count */
	char *why;		/* why it waits (a copy of sim_mjob.why), or
				 * NULL */
	size_t seq;		/* its index in the jobs: the last
				 * tie-break of the order */
};

struct sim_verdict {
	uint32_t teams_owed;	/* teams owed anything */
	uint32_t teams_met;	/* of those, capped / owed >= target */
	bool honoured;		/* teams_met == teams_owed */
	uint32_t worst_team;	/* index into the report's teams, or
				 * UINT32_MAX when no team is owed */
	double worst_ratio;
	size_t never;		/* jobs submitted in the window that never
				 * started */
	size_t never_allocated;	/* of those, allocated */
	size_t waited_long;	/* jobs that started after > SIM_LONG_WAIT */
	struct sim_verdict_job *jobs;	/* named: allocated before
					 * unallocated, never started before
					 * started, longer wait first */
	size_t njobs;		/* named, at most SIM_VERDICT_MAX_JOBS */
	size_t more;		/* left unnamed */
};

struct sim_wait {
	size_t n;		/* jobs in the class */
	size_t never;		/* never started (waited to the end) */
	double p50, p90, p99, mean;
};

struct sim_report {
	int64_t t0, t1;		/* the window */
	int64_t now;		/* open spans are counted until then */
	uint64_t gpus;		/* cluster GPUs */
	struct sim_wait all, debug, large, other;
	/* the team whose debug jobs' p90 wait is the longest (index into
	 * @teams, UINT32_MAX when no team has debug jobs; the first in
	 * tree order on a tie) and that p90 */
	uint32_t debug_worst_team;
	double debug_worst_p90;
	/* the waits split by contract, like with like between policies:
	 * [0] allocated jobs, [1] unallocated ones; each [0] all, [1]
	 * large, [2] small (fewer GPUs than large, debug jobs included) */
	struct sim_wait by_contract[2][3];
	double used;		/* GPU-seconds of every run in the window */
	double occupancy;	/* used / (gpus * window) */
	double usable;		/* demand-limited capacity, GPU-seconds
				 * (sb_fig_usable(): every job's demand,
				 * capped by the cluster hour by hour) */
	double occupancy_of_demand;	/* used / usable (1 if 0) */
	double delivered;	/* of used, allocated runs (the top-level
				 * budgets' delivered) */
	double unallocated;	/* of used, unallocated runs */
	double unallocated_share;	/* unallocated / used */
	double owed, capped;	/* the top-level budgets' sums */
	size_t preemptions;
	/* the most preemptions of one job in the window (its preempted runs
	 * ending there), allocated and unallocated jobs apart (thrash is a
	 * maximum, not a mean) */
	uint32_t max_preempted[2];
	double preempted_gpu_hours;	/* GPUs x (end - start) of preempted
					 * runs: the time since their start */
	double lost_gpu_hours;	/* of those, the runs whose work was lost */
	/* preemptions and lost_gpu_hours of allocated jobs [0] and
	 * unallocated ones [1]: each pair adds up to its total */
	size_t preemptions_of[2];
	double lost_gpu_hours_of[2];
	size_t cancelled;	/* of the preempted runs, those cancelled */
	double cancelled_gpu_hours;	/* their GPU-hours: lost (in
					 * lost_gpu_hours too) */
	size_t resubmissions;	/* cancelled runs of a job that asked
				 * again after them (resubmitted by its
				 * user: a later run or pending span of the
				 * same job) */
	struct sim_team_report *teams;	/* the distinct teams of the jobs, in
					 * tree order */
	uint32_t nteams;
	uint32_t *team_of;	/* per tree index: index into @teams,
				 * UINT32_MAX when not a team */
	const char **team_names;	/* nteams entries, for the SVG */
	struct sim_fig *budgets;	/* every tree index, subtree sums */
	const struct sim_tree *tree;	/* borrowed: names of @budgets */
	uint32_t nbudgets;
	size_t unknown;		/* segments of jobs outside the tree */
	double overall_ratio;	/* all teams: sum of the teams' capped /
				 * sum of their owed (sb/figures.h); 1 when
				 * nothing is owed */
	double worst_ratio;	/* over teams with owed > 0 */
	uint32_t worst_team;	/* index; UINT32_MAX if none */
	uint32_t teams_ge95;
	uint32_t teams_owed;	/* teams with owed > 0 */
	/* owed vs delivered over the lookback window (sb_fig_window()):
	 * windows of @lookback seconds (whole hours) from t0 */
	int64_t lookback;
	double w_owed, w_capped;	/* sums over the teams */
	double w_overall_ratio;	/* w_capped / w_owed; 1 if nothing owed */
	double w_worst_ratio;	/* over teams with w_owed > 0 */
	uint32_t w_worst_team;	/* index; UINT32_MAX if none */
	/* hourly series for the SVG: [team * nhours + h] */
	uint32_t nhours;
	double *hourly_delivered, *hourly_owed, *hourly_quota;
	struct sim_verdict verdict;	/* sim_verdict() */
};

/*
 * sim_percentile - nearest rank: the ceil(p/100 * n)-th smallest of the n
 * values (sorted in place); 0 for n == 0.
 */
double sim_percentile(double *v, size_t n, double p);

/*
 * sim_metrics - the report over the window [t0, t1) of a cluster of @gpus
 * GPUs with the budgets of @t (which must outlive the report).
 * Waits: first start - submit of the jobs submitted in the window; a job
 * that never started counts as waiting until max(t1, its submit).
 * Owed, delivered, capped, unallocated: sb_figures() over [t0, t1) in
 * slots of one hour, capacity @gpus, every job's runs (one figure segment
 * per run, eligible to end) and its pending span at the end; open spans
 * are closed at @now.  Occupancy and preemptions from the segments.
 * Return 0, or -1 (out of memory, a window sim_metrics_check_window()
 * refuses, or a core error: a bug).
 */
int sim_metrics(const struct sim_tree *t, const struct sim_mjob *jobs,
		size_t njobs, const struct sim_mseg *segs, size_t nsegs,
		uint64_t gpus, int64_t t0, int64_t t1, int64_t now,
		struct sim_report *rep);
/* sim_metrics() with owed vs delivered also over windows of @lookback
 * seconds (rounded up to whole hours, >= 1 h; budget.conf's
 * LookbackWindow; sim_metrics() takes the default, 7 days) from t0:
 * sb_fig_window() on the hourly figures. */
int sim_metrics_lookback(const struct sim_tree *t, const struct sim_mjob *jobs,
			 size_t njobs, const struct sim_mseg *segs,
			 size_t nsegs, uint64_t gpus, int64_t t0, int64_t t1,
			 int64_t now, int64_t lookback, struct sim_report *rep);
void sim_report_free(struct sim_report *rep);

/*
 * sim_verdict - @rep->verdict from @rep's teams (fig.owed, fig.capped,
 * name, node) and @jobs over [rep->t0, rep->t1): each team against
 * SIM_TARGET_OWED, the worst team, and the jobs submitted in the window
 * that never started or waited more than SIM_LONG_WAIT, the first
 * SIM_VERDICT_MAX_JOBS of them named (sim_metrics() calls it).  Return 0,
 * or -1 (out of memory).
 */
int sim_verdict(const struct sim_mjob *jobs, size_t njobs,
		struct sim_report *rep);
/* Whether a team with @owed and @capped GPU-seconds meets the target:
 * nothing owed counts as met (it is not judged). */
bool sim_verdict_met(double owed, double capped);
/* The verdict's last line: "budgets honoured: yes|no — N of M teams got
 * >= 95% of owed; worst TEAM X%" into @buf. */
void sim_verdict_line(const struct sim_report *rep, char *buf, size_t len);
void sim_verdict_free(struct sim_verdict *v);

/* The most hourly figures a report holds: hours of the window x (budgets +
 * 1); 56 bytes each (struct sb_fig), so about 940 MB. */
#define SIM_METRICS_MAX_FIGURES (UINT64_C(1) << 24)

/*
 * sim_metrics_check_capacity - whether the runs @segs (of @jobs, GPUs from
 * the job) ever hold more than @gpus GPUs at once (a run holds its GPUs in
 * [start, end): one ending at t frees them for one starting at t).  Return
 * 0, or -1 with @msg naming the first such second and the GPUs held then,
 * or "out of memory".
 */
int sim_metrics_check_capacity(const struct sim_mjob *jobs, size_t njobs,
			       const struct sim_mseg *segs, size_t nsegs,
			       uint64_t gpus, char *msg, size_t msglen);

/*
 * sim_metrics_check_window - whether sim_metrics() may report over [@t0,
 * @t1) on a tree of @nbudgets budgets: at most SIM_METRICS_MAX_FIGURES
 * hourly figures (its memory grows with the window's hours times the
 * budgets).  Return 0, or -1 with @msg naming the window, its hours, the
 * figures and the longest window accepted.
 */
int sim_metrics_check_window(uint32_t nbudgets, int64_t t0, int64_t t1,
			     char *msg, size_t msglen);

/*
 * sim_segments_parse - observed runs (sbudget-sim metrics): a CSV with the
 * header job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted and
 * optionally a ninth column eligible_s; one line per run.  A job that
 * never started has one line with start_s empty, and end_s empty (still
 * pending) or the time it left the queue.  min_runtime_s empty: no
 * contract recorded, the job ran unallocated (sim_job_contract()).
 * preempted: 0 no, 1 preempted and its work lost (cancelled, or requeued
 * to start over), 2 preempted and its work kept (resumed).  eligible_s:
 * when the job began to ask for this run; empty or absent: submit_s for
 * its first run, the end of its previous run for a later one.  Optional
 * (all three, after eligible_s): nodes, the run's node ids (0-based,
 * ';' between them); resumable, 0 or 1 (the job's contract); fate, how the
 * run ended: done, requeued (preempted, resumes), restarted (preempted,
 * requeued from the beginning), cancelled (preempted), unfinished (running
 * at the end); a line without a start: empty or pending.  The fate must
 * agree with preempted (done/unfinished 0, restarted/cancelled 1,
 * requeued 2).  Lines of one job must agree on team, gpus, min runtime,
 * submit (the first line's resumable is the job's).  The metrics do not
 * use nodes; fate only for the cancelled runs and resubmissions (a run
 * "cancelled" followed by another line of the same job: its user
 * resubmitted it; sbudget-sim run writes the new job's runs under the
 * same id).  A job that ran and is pending again at the end has a line
 * without a start after its runs.
 * Out: @jobs (node = the team's tree index), @segs; the caller frees both.
 * Return 0, or -1 with @msg "file:line: reason".
 */
int sim_segments_parse(const char *name, const char *text,
		       const struct sim_tree *t, struct sim_mjob **jobs,
		       size_t *njobs, struct sim_mseg **segs, size_t *nsegs,
		       char *msg, size_t msglen);

/*
 * sim_waits_parse - why jobs waited, as the live cluster said (sbudget-sim
 * metrics --waits; the demo asks `sbudget -P -n show job ID
 * format=WaitsFor` of each job still pending before it is cancelled):
 * lines "JOB|REASON", JOB a job id of the segments; empty lines and '#'
 * comments are skipped.  Sets the jobs' why, pointing into @text (cut in
 * place; it must outlive @jobs' use).  Return 0, or -1 with @msg
 * "file:line: reason" (a line without '|', a job not in @jobs).
 */
int sim_waits_parse(const char *name, char *text, struct sim_mjob *jobs,
		    size_t njobs, char *msg, size_t msglen);

/* Text summary; with @budgets, also every budget's figures in GPU-s; then
 * the verdict (sim_verdict_text()). */
void sim_report_text(const struct sim_report *rep, bool budgets, FILE *f);
/* JSON object (json-c), keys in a fixed order, doubles with fixed
 * precision, so that same input gives byte-identical output.  The caller
 * owns the returned json_object. */
struct json_object *sim_report_json(const struct sim_report *rep);
/* The verdict as text: per team owed vs delivered against the target,
 * the jobs named, the honoured line. */
void sim_verdict_text(const struct sim_report *rep, FILE *f);
/* The verdict as a JSON object (the report's "verdict"). */
struct json_object *sim_verdict_json(const struct sim_report *rep);
/* A double for JSON printed as "%.*f". */
struct json_object *sim_json_double(double v, int prec);

#endif /* SB_SIM_METRICS_H */
