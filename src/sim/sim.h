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
 *              budgets were honoured; sim_metrics.h declares them.
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
#include "sim_metrics.h"

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
