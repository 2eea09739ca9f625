/*
 * sim.h - sbudget-sim: an event-driven simulator that runs the policy core
 * (sb/tree.h, sb/ledger.h, sb/view.h, sb/standing.h, sb/priority.h,
 * sb/contract.h, sb/config.h, sb/preempt.h, sb/figures.h) exactly as the
 * plugins and sbudget call it.
 *
 * Pieces:
 *   readers    text.c (shared text helpers, input.h), tree.c (budget trees:
 *              the format picked, the tree built, its queries) and
 *              tree_read.c (one reader per format: ours, `sacctmgr -P show
 *              assoc`, `sacctmgr dump`, Helios per-VC GPU counts;
 *              tree_list.h between them), workload.c (job tables: canonical
 *              CSV, SWF; slicing), bind.c (a table against a tree: seeded
 *              assignment of what a trace lacks), segments.c (observed
 *              runs), input.c (budget.conf); bad lines are refused with
 *              file:line and the reason.
 *   engine     cluster.c (placement), state.c (the state's arrays,
 *              errors), queue.c (events, pending queues), charge.c
 *              (ledger, recalculation, the budget view), victims.c
 *              (preemption through sb_preempt_decide()), victim_order.c
 *              (the order victims are taken in), run.c (starting,
 *              stopping and preempting runs), pass.c (the scheduling
 *              pass), backfill.c (reservations), engine.c (setup, the
 *              event loop), why.c (why each job still pending at the end
 *              waits); engine.h is their shared state (struct sim).
 *   metrics.c  queue-wait percentiles, owed vs delivered per budget through
 *              sb_figures(), occupancy, preemptions: from run segments, so
 *              the simulator and `sbudget-sim metrics` (observed runs)
 *              share the code; report.c prints it as text and JSON;
 *              verdict.c judges it: each team against SIM_TARGET_OWED,
 *              the jobs that never started or waited long, and whether
 *              budgets were honoured.
 *   svg.c      the per-GPU chart and the per-team allocation chart.
 *   main.c     the commands, cli.c (sim_cli.h) the command line's options
 *              (not in the library).
 *
 * Times are int64_t seconds on the trace's scale; nothing reads the clock.
 */
#ifndef SB_SIM_H
#define SB_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sb/config.h"
#include "sb/contract.h"
#include "sb/tree.h"
#include "draw.h"

/* Longest message written by the functions below. */
#define SIM_MSG 512

/* "No time": a job that never started or never ended. */
#define SIM_NEVER INT64_MIN

/* In-team priorities for the words LOW, NORMAL, HIGH (canonical CSV). */
#define SIM_PRIO_LOW 256
#define SIM_PRIO_NORMAL 512
#define SIM_PRIO_HIGH 768

/* Debug jobs (doc/sim.md, "Metrics"): at most 8 GPUs, min runtime in
 * (0, 15 min]. */
#define SIM_DEBUG_MAX_GPUS 8
#define SIM_DEBUG_MAX_MR 900
/* Large jobs: at least 32 GPUs. */
#define SIM_LARGE_MIN_GPUS 32

/* ------------------------------------------------------------ the tree */

/* A budget tree with a path name per node ("physics/phys-a"). */
struct sim_tree {
	struct sb_tree *tree;	/* finalized */
	char **path;		/* per tree index, owned */
	uint32_t n;
	char source[64];	/* "tree", "sacctmgr", "helios" */
	/* sim_tree_find()'s hash tables (NULL: it scans): slot = index + 1
	 * of the first node with that path / last component, 0 empty;
	 * last_many[slot]: several nodes end in that name */
	uint32_t *by_path, *by_last;
	bool *last_many;
	uint32_t cap;		/* slots of each, a power of two */
};

/*
 * sim_tree_load - read @file, format detected from its first line:
 *   "date,..."          Helios per-VC GPU counts per day: one top-level
 *                       budget per VC column (not "total"), RawShares =
 *                       the column's sum over all days (the mean times the
 *                       number of days: same ratios as the mean).
 *   a line with '|'     `sacctmgr -P show assoc format=account,user,
 *                       parentname,fairshare` (User optional): a header
 *                       naming Account, Par Name and Share, then rows.
 *   "Cluster - " or "Parent - " (after '#' comments): an association dump
 *                       (`sacctmgr dump CLUSTER`, the file `sacctmgr load`
 *                       reads): Parent/Account/User lines, Fairshare=N
 *                       (absent: 1).
 *   In every format shares are sb_shares_parse()'s (sb/contract.h): a
 *   whole number 0..2147483646 (digits only) or "parent".
 *   otherwise           our format: "path shares" per line, '#' comments;
 *                       "a/b" is a child of "a" (which must be defined);
 *                       shares as above.
 * Return: 0, or -1 with @msg "file:line: reason".
 */
int sim_tree_load(const char *file, struct sim_tree *out, char *msg,
		  size_t msglen);
int sim_tree_parse(const char *name, const char *text, struct sim_tree *out,
		   char *msg, size_t msglen);
void sim_tree_free(struct sim_tree *t);
/* sim_tree_find - index of the node whose path is @path, or whose last
 * component is @path if exactly one is; SB_NONE otherwise. */
uint32_t sim_tree_find(const struct sim_tree *t, const char *path);

/* --------------------------------------------------------- the workload */

struct sim_job {
	int64_t submit;		/* seconds */
	int64_t duration;	/* run time needed, seconds, >= 0 */
	int64_t min_runtime;	/* seconds; 0 = unallocated */
	int64_t time_limit;	/* seconds a run may last, as the scheduler
				 * knows it (its backfill plans with it, the
				 * break-even rule reads it): the trace's
				 * request, or the f-model's (sim_read_opts.
				 * time_limit_factor); >= duration once
				 * bound; 0 while not known */
	uint32_t gpus;		/* >= 1 */
	uint32_t team;		/* index into sim_workload.names */
	uint32_t user;		/* index into names; 0 = none ("") */
	uint32_t prio;		/* in-team priority 0..1023 */
	bool resumable;
	bool no_requeue;	/* cannot be requeued (--no-requeue, salloc/
				 * srun): cancelled when preempted; the
				 * traces have no such flag: drawn with
				 * sim_read_opts.no_requeue */
	uint32_t line;		/* input line, for messages */
	uint32_t assoc;		/* tree index (sim_workload_bind) */
	uint32_t team_node;	/* tree index of the team */
};

/* What was assigned, skipped or changed while reading; reported. */
struct sim_notes {
	uint64_t seed;
	size_t lines;		/* data lines read */
	size_t skipped_unknown;	/* duration or GPUs unknown (-1) */
	size_t skipped_nogpu;	/* 0 GPUs (CPU-only) */
	size_t skipped_slice;	/* outside --from/--span/--max-jobs */
	size_t skipped_toobig;	/* more GPUs than the cluster */
	size_t clamped;		/* GPUs clamped by --max-gpus */
	size_t rounded;		/* multi-node jobs rounded to whole nodes */
	size_t teams_assigned;
	size_t contracts_assigned;	/* min runtime assigned */
	size_t resumable_assigned;
	size_t no_requeue_assigned;	/* drawn as --no-requeue */
	size_t prio_assigned;
	size_t limits_modeled;	/* time limits from the f-model */
	size_t limits_raised;	/* a trace's limit below the job's
				 * duration, raised to it */
	double time_limit_factor;	/* the f-model's factor, for the
					 * report */
	size_t unbudgeted;	/* allocated on a budget of 0: made unallocated */
	char format[16];	/* "csv" or "swf" */
};

struct sim_workload {
	struct sim_job *jobs;
	size_t njobs, cap;
	char **names;		/* interned team and user names; [0] = "" */
	uint32_t nnames, names_cap;
	uint32_t *hash;		/* open addressing over names, 0 = empty */
	uint32_t hash_cap;
	bool has_user, has_mr, has_res, has_prio;
	struct sim_notes notes;
};

/* How to read and slice a trace (sbudget-sim run/convert options). */
struct sim_read_opts {
	uint64_t seed;
	int64_t from;		/* keep jobs submitted at or after (default 0),
				 * trace seconds (before time_scale) */
	int64_t span;		/* ... and before from + span; < 0 = no end;
				 * kept jobs' times become (t - from) * scale */
	size_t max_jobs;	/* 0 = all */
	double time_scale;	/* times multiplied by this (default 1) */
	uint32_t max_gpus;	/* clamp GPUs to this; 0 = do not clamp */
	bool assign_teams;	/* ignore the trace's team column */
	int64_t max_min_runtime;	/* cap for assigned min runtimes */
	double no_requeue;	/* fraction of jobs drawn as --no-requeue
				 * (cannot be requeued), 0..1; default 0 */
	double time_limit_factor;	/* F of the f-model: a job whose
				 * trace gives no time limit asks for F x
				 * its duration, rounded up to whole
				 * minutes (as Slurm keeps limits), at
				 * least 1 minute; SIM_TIME_LIMIT_FACTOR
				 * by default, 1..SIM_TIME_LIMIT_FACTOR_MAX */
};

/* The f-model's default factor and the largest accepted (--time-limit-
 * factor): users ask for more time than their jobs need (Mu'alem and
 * Feitelson, "Utilization, predictability, workloads, and user runtime
 * estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 2001). */
#define SIM_TIME_LIMIT_FACTOR 2.0
#define SIM_TIME_LIMIT_FACTOR_MAX 1000.0

void sim_read_opts_init(struct sim_read_opts *o);
void sim_workload_init(struct sim_workload *w);
void sim_workload_free(struct sim_workload *w);
uint32_t sim_intern(struct sim_workload *w, const char *s);

/*
 * sim_workload_read - read a job table: SWF when the file name ends in
 * ".swf" or its first non-empty line starts with ';', else CSV with a
 * header naming at least submit_time_s, duration_s, gpus, team (optional
 * user, min_runtime_s, resumable, priority, time_limit_s; other columns
 * are ignored).  SWF's requested time (field 9) is the time limit when
 * it is > 0.
 * Lines are appended to @w; slicing is applied: jobs submitted in
 * [from, from + span) of the trace's time are kept, and their submit time
 * becomes (submit - from) * time_scale (durations, min runtimes * scale).
 * Return: 0, or -1 with @msg "file:line: reason".
 */
int sim_workload_read(const char *file, const struct sim_read_opts *o,
		      struct sim_workload *w, char *msg, size_t msglen);
int sim_workload_parse(const char *name, const char *text,
		       const struct sim_read_opts *o, struct sim_workload *w,
		       char *msg, size_t msglen);

/*
 * sim_workload_bind - finish the table against a tree: sort by submit time
 * (stable), keep max_jobs, clamp to max_gpus, round multi-node jobs up to
 * whole nodes of @gpus_per_node (0 = no rounding), drop jobs bigger than
 * @cluster_gpus (0 = no limit), assign teams/contracts/priorities where the
 * trace has none (seeded, see sim_assign_*), and find each job's
 * association (the node "team/user" if the tree has it, else "team").
 * Return: 0, or -1 with @msg (an unknown team names the job's line).
 */
int sim_workload_bind(struct sim_workload *w, const struct sim_tree *t,
		      const struct sim_read_opts *o, uint32_t gpus_per_node,
		      uint32_t cluster_gpus, char *msg, size_t msglen);

/* sim_workload_write_csv - the canonical CSV, the eight columns
 * contrib/replay.sh reads: no time limits (the replay submits without
 * --time). */
int sim_workload_write_csv(const struct sim_workload *w,
			   const struct sim_tree *t, FILE *f);

/* sim_notes_print - what was assigned/skipped, one line each, to @f. */
void sim_notes_print(const struct sim_notes *n, FILE *f);

/* Deterministic uniform [0,1) from (seed, a, b): splitmix64. */
double sim_rand(uint64_t seed, uint64_t a, uint64_t b);

/* budget.conf through sb_config_parse() (budget.conf(5)); @name or @file
 * names it in messages; @cfg is unchanged on failure.  sim_config_load()
 * reads @file as the plugins do (sb_config_file_read(): a regular file, at most
 * SB_CONFIG_MAX_BYTES, no NUL byte).  Return 0 or -1. */
int sim_config_load(const char *file, struct sb_config *cfg, char *msg,
		    size_t msglen);
int sim_config_parse(const char *name, const char *text, struct sb_config *cfg,
		     char *msg, size_t msglen);

/* Read a whole file (NUL-terminated).  NULL with @msg on failure. */
char *sim_slurp(const char *file, char *msg, size_t msglen);

/* ------------------------------------------------------------- the engine */

enum sim_policy { SIM_POLICY_BUDGET = 0, SIM_POLICY_BASELINE = 1 };
/* Backfill: greedy (a lower job starts whenever it fits now), none (a pass
 * stops at the first job that cannot start: Slurm's main scheduler), or
 * reserve (Slurm's sched/backfill: the first sim_params.reserve jobs that
 * cannot start get a reservation a lower job may not delay; backfill.c). */
enum sim_backfill { SIM_BACKFILL_GREEDY = 0, SIM_BACKFILL_NONE = 1,
		    SIM_BACKFILL_RESERVE = 2 };

struct sim_params {
	enum sim_policy policy;
	uint32_t nodes, gpus_per_node;	/* <= 64 GPUs per node */
	struct sb_config cfg;		/* budget.conf */
	int64_t requeue_delay;		/* a requeued job's BeginTime offset */
	bool restart;			/* requeued work restarts from zero */
	int64_t resubmit_delay;		/* a job cancelled by preemption is
					 * resubmitted by its user this many
					 * seconds after it stopped, as a new
					 * job with its whole duration (default
					 * SIM_RESUBMIT_DEFAULT);
					 * SIM_NO_RESUBMIT: never */
	enum sim_backfill backfill;
	uint32_t reserve;		/* reservations per pass (reserve) */
	int64_t until;			/* stop here; SIM_NEVER = run out */
	bool best_fit;			/* placement (struct sim_cluster) */
	bool hold_leftovers;		/* GPUs freed by preemption beyond the
					 * preemptor's need are usable only
					 * after the pass (as in Slurm, where
					 * victims complete after the cycle
					 * that chose them); false = at once */
};

/* sim_params.resubmit_delay: the default (5 min, a user who notices the
 * cancellation and submits again) and "never" (`--resubmit-delay none`). */
#define SIM_RESUBMIT_DEFAULT 300
#define SIM_NO_RESUBMIT (-1)
/* A user resubmits one job at most this many times; cancelled once more,
 * the job is given up (cancelled for good, its demand ends there).  A
 * resubmission is a new job to the policy (no interval hold, no rule 3),
 * so without a bound a long job of a budget whose standing keeps turning
 * could be cancelled and resubmitted for ever, and the simulation with no
 * --until would never end. */
#define SIM_RESUBMIT_MAX 10
/* the same number as text, for --help */
#define SIM_STR_(x) #x
#define SIM_STR(x) SIM_STR_(x)

void sim_params_init(struct sim_params *p);

/*
 * sim_resubmit_parse - the value of `--resubmit-delay`: a duration in
 * Slurm's time syntax (sb_duration_parse(): M, M:S, H:M:S, D-H, D-H:M,
 * D-H:M:S; "5:00" is five minutes, "0" resubmits at once) or "none"
 * (cancelled jobs are never resubmitted).
 * @out: seconds, or SIM_NO_RESUBMIT for "none"; written only on success.
 * Return: 0, or -1 with @msg naming the value and what is accepted.
 */
int sim_resubmit_parse(const char *v, int64_t *out, char *msg, size_t msglen);

/* One run of a job on its GPUs. */
struct sim_seg {
	uint32_t job;
	int64_t eligible;	/* when the job began to ask for this run: its
				 * submit, or when it was requeued and
				 * eligible again (after --requeue-delay) */
	int64_t start, end;
	uint32_t gpus;
	uint32_t node_off;	/* into sim_result.nodes */
	uint32_t nnodes;
	uint64_t mask;		/* GPUs used on each of those nodes */
	bool preemptible;	/* unallocated (budget) / over the cap (baseline) */
	bool preempted;		/* ended by preemption */
	bool lost;		/* ... and its work was thrown away (cancelled,
				 * or requeued with --requeue-work restart) */
	uint8_t fate;		/* enum sim_fate: how the run ended */
};

/* How a run ended (the segments' fate column). */
enum sim_fate {
	SIM_FATE_DONE = 0,	/* the job finished */
	SIM_FATE_REQUEUED,	/* preempted, requeued, resumes its work */
	SIM_FATE_RESTARTED,	/* preempted, requeued, starts over */
	SIM_FATE_CANCELLED,	/* preempted and cancelled; resubmitted by
				 * its user after sim_params.resubmit_delay
				 * unless that is SIM_NO_RESUBMIT: the new
				 * job's runs follow under the same job */
	SIM_FATE_UNFINISHED,	/* running when the simulation ended */
};
/* The fate's word in the segments ("done", "requeued", ...). */
const char *sim_fate_name(enum sim_fate f);

enum sim_job_end { SIM_END_DONE = 0, SIM_END_CANCELLED, SIM_END_UNFINISHED };

/* Per-job outcome. */
struct sim_outcome {
	int64_t first_start;	/* SIM_NEVER if it never started */
	int64_t end;		/* last run's end, or the stop time */
	uint32_t preemptions;
	enum sim_job_end how;
	int64_t pending_since;	/* still pending at the end: since when it
				 * is eligible; SIM_NEVER otherwise */
	uint32_t resubmissions;	/* times it was cancelled by preemption
				 * and resubmitted by its user */
	char *why;		/* why it waits, in the words of `sbudget
				 * show job`'s WaitsFor (sb_wait_format()):
				 * still pending at the end, at the end;
				 * else, if it still waited SIM_LONG_WAIT
				 * after its submission, then; NULL
				 * otherwise */
};

struct sim_result {
	struct sim_seg *segs;
	size_t nsegs, segs_cap;
	uint32_t *nodes;
	size_t nnodes, nodes_cap;
	struct sim_outcome *jobs;	/* per job */
	size_t njobs;
	int64_t t_end;			/* time of the last event */
	uint64_t events;		/* events processed */
	uint64_t passes;		/* scheduling passes */
	uint64_t recalcs;		/* standing recalculations */
	uint64_t preemptions;
	uint64_t resubmissions;		/* cancelled jobs resubmitted */
	uint64_t reservations;		/* backfill reservations made */
	uint64_t lane_starts;		/* runs started in the debug lane
					 * (carrying its priority) */
	/* the bound on preemptions per job (sb_preempt_min_gap(), under the
	 * run's budget.conf whatever the policy): preemptions of a job that
	 * was preempted before, those of them decided sooner after the last
	 * one than the bound, and the smallest gap / bound among them (-1
	 * when there was none) */
	uint64_t repeat_preemptions;
	uint64_t sooner_than_bound;
	double tightest_gap;
};

void sim_result_free(struct sim_result *r);

/*
 * sim_job_contract - the contract a job runs under, read as the plugins
 * read it: what sb_contract_of_job() says of job_submit/budget's tag for
 * (@min_runtime, @resumable) with @requeue_ok (sb_contract_of_fields()) (a batch job that allows requeue; false: --no-requeue or
 * interactive, so not resumable and cancelled when preempted).
 * @has_contract false (an observed job with no contract recorded) or a
 * negative @min_runtime: no tag, so unallocated.
 * Return: SB_OK, or SB_EMISSING when the no-tag default was written.
 */
int sim_job_contract(int64_t min_runtime, bool resumable, bool requeue_ok,
		     bool has_contract, struct sb_contract *out);

/*
 * sim_run - simulate @w (bound to @t) under @p.  Return: 0, or -1 with
 * @msg (out of memory, or a core call failing: a bug).
 */
int sim_run(const struct sim_workload *w, const struct sim_tree *t,
	    const struct sim_params *p, struct sim_result *r, char *msg,
	    size_t msglen);

/* --- placement, exposed for the unit tests --- */

struct sim_cluster {
	uint32_t nodes, gpn;
	uint64_t *free;		/* per node, bit i = GPU i free */
	uint32_t *nfree;	/* per node */
	uint64_t total_free;
	bool best_fit;		/* single-node jobs: the node with the fewest
				 * free GPUs that fit, not the first */
	uint32_t nofit;		/* a hint: jobs of this many GPUs or
				 * more do not fit (UINT32_MAX: unknown);
				 * sim_fits() lowers it, sim_release()
				 * resets it; code that frees GPUs in @free
				 * directly must reset it */
};

int sim_cluster_init(struct sim_cluster *c, uint32_t nodes, uint32_t gpn);
void sim_cluster_free(struct sim_cluster *c);
/*
 * sim_nodes_needed - the nodes a job of @gpus (>= 1) is placed on, with
 * @gpn (>= 1) GPUs per node: 1 when it fits on one node (it may share
 * it), else ceil(gpus / gpn) whole nodes (sim_place()).
 */
static inline uint32_t sim_nodes_needed(uint32_t gpn, uint32_t gpus)
{
	return gpus <= gpn ? 1 : (gpus + gpn - 1) / gpn;
}
/*
 * sim_place - first fit: a job of @gpus <= gpn takes the lowest GPUs of the
 * lowest-numbered node with enough free (best fit: of the node with the
 * fewest free GPUs that are enough, lowest number first); a bigger one takes the
 * ceil(gpus/gpn) lowest-numbered whole free nodes.  On success @nodes (room
 * for ceil(gpus/gpn)) and @mask are written and the GPUs are taken.
 * Return: number of nodes used, 0 if it does not fit.
 */
uint32_t sim_place(struct sim_cluster *c, uint32_t gpus, uint32_t *nodes,
		   uint64_t *mask);
/* sim_fits - whether a job of @gpus would be placed now (sim_place()'s
 * test, placing nothing); a no lowers the hint @c->nofit. */
bool sim_fits(struct sim_cluster *c, uint32_t gpus);
void sim_release(struct sim_cluster *c, const uint32_t *nodes, uint32_t n,
		 uint64_t mask);

/* ------------------------------------------------------------- metrics */

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

/* ------------------------------------------------------------------ SVG */

/* How the pictures show the simulation's times: shown time = simulated
 * time + @offset, on @clock (src/draw/draw.h); @note says so in the
 * picture. */
struct sim_axis {
	enum sbd_clock clock;
	int64_t offset;
	char note[256];
};

/*
 * sim_svg_axis - decide from the inputs: @time_scale 1: the trace's own
 * times (simulated time + @from, --from), UTC dates when they are Unix
 * seconds (sbd_clock_of() of the window's start @t0 + @from), else "day N
 * hh:mm" of the trace's clock; another scale: simulated time from 0, "day
 * N hh:mm".  @whose names the input in the note ("trace's",
 * "segments'").
 */
void sim_svg_axis(struct sim_axis *ax, int64_t t0, int64_t from,
		  double time_scale, const char *whose);

/* Per-GPU chart of [from, to) (simulated time): one row per GPU, a colour
 * per team (@job_team[job] < @nteams) for the SBD_PALETTE_SIZE teams with
 * the most GPU time in the range, grey for the others, hatching on
 * preemptible runs, a black border on preempted ones (not red: red is a
 * team's colour); a time axis and a legend that wraps (the image grows). */
int sim_svg_gpus(FILE *f, const struct sim_result *r,
		 const uint32_t *job_team, const char *const *team_names,
		 uint32_t nteams, uint32_t nodes, uint32_t gpn, int64_t from,
		 int64_t to, const struct sim_axis *ax);
/* One small multiple per team (grouped under their parents when the tree
 * has any): delivered GPUs per hour against owed and quota, its share,
 * delivered/owed and peak in the title, a time axis in each. */
int sim_svg_teams(FILE *f, const struct sim_report *rep,
		  const struct sim_axis *ax);

#endif /* SB_SIM_H */
