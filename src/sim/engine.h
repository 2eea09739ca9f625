/*
 * engine.h - the simulator engine's shared state, for its files only (not
 * installed, not for main.c): the event and queue structures, the state of
 * a simulation (struct sim), and the functions one engine file calls in
 * another.  Internal names carry the sim__ prefix.
 *
 * The engine files:
 *   state.c     allocating and freeing the state, recording the first
 *               error;
 *   cluster.c   placement: nodes x GPUs, first/best fit, whole nodes for
 *               multi-node jobs (public: sim_cluster_*, sim_place, ...);
 *   queue.c     the event heap, the protection-end heap, and the pending
 *               queues (one per budget group, kept sorted);
 *   charge.c    charging the ledger, the recalculation (TICK): the budget
 *               view (sb/view.h) and the standing, job priorities;
 *   victims.c   preemption: candidates through sb_preempt_decide(),
 *               taking victims only until the job fits, the node scan
 *               and the failed tries kept;
 *   victim_order.c  the order the candidates are taken in;
 *   run.c       starting and stopping runs (and preempting them);
 *   pass.c      the scheduling pass: pending jobs tried in order, backfill,
 *               preemption for those that do not fit;
 *   lane.c      the debug lane (sb/lane.h): which pending jobs enter it,
 *               what each association holds in it, when a running lane
 *               job's priority becomes its budget's again;
 *   engine.c    setting up and tearing down the state, the event loop
 *               (sim_run), the end of a simulation;
 *   why.c       why each job still pending at the end waits (the words
 *               of `sbudget show job`).
 */
#ifndef SB_SIM_ENGINE_H
#define SB_SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/contract.h"
#include "sb/ledger.h"
#include "sb/standing.h"
#include "sb/view.h"
#include "sim.h"
/* Event types, in the order they are handled when they share a time. */
enum { EV_END = 0, EV_STOP = 1, EV_ELIGIBLE = 2, EV_TICK = 3, EV_RELEASE = 4 };

/* An event in the heap (queue.c), or a protection end (sim.prot_ends). */
struct event {
	int64_t time;		/* when, s */
	uint32_t type;		/* EV_* */
	uint32_t job;		/* the job; EV_RELEASE: index into sim.holds */
	uint32_t run;		/* the run (or requeue) it belongs to: an
				 * event of an earlier run is stale */
};

enum jstate {
	J_FUTURE = 0, J_PENDING, J_WAITING /* requeued, not yet eligible */,
	J_RUNNING, J_STOPPING, J_DONE, J_CANCELLED,
};

/* Per-job state of a simulation (sim.job_state). */
struct job_state {
	struct sb_contract contract;	/* as run (sim_job_contract) */
	uint8_t state;		/* enum jstate */
	bool resumed;		/* ran before and was requeued */
	bool preemptible;	/* this run */
	bool charged_to_tick;	/* this run's start is charged up to
				 * sim.last_tick (charge.c) */
	uint32_t run;		/* runs so far (also the event tag) */
	uint32_t running_index;	/* index in sim.running */
	uint32_t node_off;	/* its nodes: sim.cluster's node_off.. */
	uint32_t nnodes;	/* ... nnodes of them */
	uint64_t gpu_mask;	/* GPUs it holds on each of its nodes */
	int64_t start;		/* this run's start, s */
	int64_t end_at;		/* when this run ends or stops, s */
	int64_t remaining;	/* work left, s */
	int64_t eligible_at;	/* when the current pending span began, s
				 * (a resubmitted job's: when its cancelled
				 * run stopped, for the waits) */
	int64_t queued_at;	/* when it entered the queue, s: Slurm's
				 * EligibleTime (a resubmitted job's is its
				 * resubmission), the core's
				 * sb_preempt_job.eligible */
	bool preempted;		/* a run of it was preempted (budget) */
	int64_t preempted_at;	/* when the last preemption was decided, s */
	/* its last failed preemption try while pending (victims.c): at
	 * sim.room_seq fail_room_seq (0: none since it became pending) in
	 * recalculation epoch fail_recalc_epoch; multi-node: at most
	 * fail_whole_nodes nodes could be emptied */
	uint64_t fail_room_seq, fail_recalc_epoch;
	uint32_t fail_whole_nodes;
	uint64_t fail_order_epoch;	/* ... at standing-order epoch this */
	uint32_t fail_position;	/* ... its association's standing position */
	uint8_t fail_nview;	/* ... and refusals read the view on no
				 * node but these many, listed at
				 * sim.fail_view_nodes[job * SIM_VIEW_NODES];
				 * SIM_VIEW_MANY: on more */
	int64_t submit;		/* its submission, s: the table's, or when
				 * its user resubmitted it after a cancel
				 * (the queue's order: a new job) */
	bool lane;		/* it carries the debug lane's priority
				 * (lane.c): pending in the lane group, or
				 * running until the recalculation after
				 * its min runtime */
	int64_t demand_from;	/* cancelled, waiting to be resubmitted:
				 * when the cancelled run stopped, where the
				 * resubmitted job's demand begins (the gap
				 * counts), s; SIM_NEVER otherwise */
};

/* A running job as preemption sees it, kept beside sim.running so that the
 * candidate scan reads memory in order: the core's party (contract, start,
 * current priority, GPUs, association) plus the simulator's flags. */
struct run_info {
	struct sb_preempt_party party;
	int64_t prot_until;	/* sb_preempt_hold_until(&pol, &party), s,
				 * kept: a pure function of the contract,
				 * the start and the last preemption, which
				 * do not change during a run */
	int64_t commit_until;	/* sb_preempt_protected_until(&party.job)
				 * for an allocated run (INT64_MIN
				 * otherwise), s, kept: from then on
				 * sb_committed_rest() is 0, so the
				 * recalculation skips it */
	uint32_t job;
	bool preemptible;	/* baseline: over its team's cap */
};

/* A queue entry: the job and its GPUs (the pass skips on GPUs alone). */
struct queue_entry {
	uint32_t job;
	uint32_t gpus;		/* GPUs it asks */
	uint32_t team;		/* its tree index (baseline cap) */
	uint32_t limit;		/* its time limit, s (at most
				 * UINT32_MAX): the backfill skip */
};

/* One pending queue, sorted by sim__q_before(). */
struct pending_queue {
	struct queue_entry *entries;
	uint8_t *gpus_byte;	/* beside entries: each job's GPUs, at most
				 * 255, so a pass finds the next job below a
				 * size reading bytes (sim__q_next_below()) */
	uint8_t *rem_bits;	/* beside entries: bit length of its
				 * time limit */
	uint16_t *team_w;	/* baseline, beside entries: its tree index
				 * (sim.team_thr) */
	uint32_t *by_gpus;	/* jobs by gpus_byte (256 bins): the fewest
				 * GPUs without reading the queue */
	uint32_t n, cap;	/* entries used, allocated */
	uint32_t min_gpus;	/* fewest GPUs of a job in it, when
				 * min_gpus_ok */
	bool min_gpus_ok;
};

/* A candidate victim with its order key computed once per try. */
struct victim_candidate {
	uint32_t job;
	uint32_t key;		/* sb_preempt_victim_key(); baseline: class */
	double lost;		/* baseline: GPU-seconds of the current run */
	int64_t start;		/* its run's start, s */
	uint32_t run_index;	/* index into sim.run_info */
};

/*
 * The victim order of one try, as take_until_fits() reaches it: the
 * candidates in segments whose keys all come before the next segment's,
 * each ordered (and, budget, its keys computed) only when the taking
 * reaches it.  Budget: one segment per class (sb_preempt_victim_class(),
 * by_class()): most tries take their victims from the first one or two,
 * and a key takes a log2.  Baseline: one segment, keys set by gather().
 * With verdicts deferred (gather()'s @defer), a segment's candidates are
 * asked to the core when it is reached, and those refused dropped: the
 * accepted ones move down to follow the previous segment's.
 */
struct victim_order {
	const struct sb_preempt_party *me;	/* the preemptor, when the
						 * verdicts are deferred;
						 * else NULL */
	int64_t now;		/* the time of the try: the keys' */
	size_t end[4];		/* segment i, as gathered, is
				 * s->candidates[end[i-1]..end[i]) (segment 0
				 * from 0); end[3] = all */
	size_t lo, hi;		/* the accepted candidates of the segment
				 * being taken; the earlier segments' are
				 * at [0..lo) */
	unsigned next;		/* the next segment to reach (4: none) */
	bool keyed;		/* its keys are computed */
};

/* A backfill reservation (backfill.c): @job starts at @t on these GPUs. */
struct sim_resv {
	uint32_t job;
	int64_t t;		/* s */
	uint32_t node_off, nnodes;	/* its nodes: resv_nodes[node_off..] */
	uint64_t mask;		/* GPUs on each of them */
};

/* Nodes whose refusals read the budget view, remembered per failed
 * preemption try (job_state.fail_nview); SIM_VIEW_MANY: more. */
#define SIM_VIEW_NODES 16
#define SIM_VIEW_MANY UINT8_MAX

/* Node changes remembered by number (sim.room_log), a power of 2. */
#define SIM_CHLOG 1024

/* Pending jobs by GPUs, for sim__any_below(): bins 1..256, 257 = more. */
#define SIM_HIST_BINS 258
/* ... and by time limit: bucket b >= 1 holds [2^(b-1), 2^b) s. */
#define SIM_RBUCKETS 64

/* The state of one simulation (sim_run()).  "alloc"/"unalloc": of
 * allocated (guaranteed) jobs / unallocated ones; "tree index": an
 * association's index in the budget tree (sim_tree). */
struct sim {
	/* ---- the inputs (sim_run()'s arguments) and the output */
	const struct sim_workload *w;	/* the jobs, sorted by submission */
	const struct sim_tree *t;	/* the budget tree */
	const struct sim_params *p;	/* cluster, policy, configuration */
	struct sb_preempt_policy preempt_policy;	/* p->cfg.preempt with
					 * requeue_delay = p->requeue_delay:
					 * what the core's verdicts and costs
					 * read */
	struct sim_result *r;	/* per job outcomes, segments, counters */
	struct job_state *job_state;	/* per job */
	struct sim_cluster cluster;	/* the GPUs, free or not */

	/* ---- events (queue.c) */
	struct event *events;	/* min-heap by time, then type */
	size_t nevents, events_cap;
	size_t next_submit;	/* the next job of w to submit */

	/* ---- pending queues (queue.c) */
	struct pending_queue *queues;	/* one per group */
	uint32_t ngroups;	/* budget: 2 per association; baseline: 3 */
	uint32_t *pass_order;	/* groups in pass order */
	uint32_t npass_order;
	uint32_t *pass_rank;	/* group -> its position in pass_order */
	size_t npending;	/* jobs in the queues */
	/* pending jobs by GPUs (bins, SIM_HIST_BINS) */
	uint32_t pending_alloc_by_gpus[SIM_HIST_BINS];
	uint32_t pending_unalloc_by_gpus[SIM_HIST_BINS];
	/* ... and by GPUs and time limit (SIM_RBUCKETS) */
	uint32_t (*pending_alloc_by_rem)[SIM_RBUCKETS];
	uint32_t (*pending_unalloc_by_rem)[SIM_RBUCKETS];

	/* ---- running jobs */
	uint32_t *running;	/* their job indices */
	struct run_info *run_info;	/* parallel to running: what
					 * preemption reads */
	size_t nrunning;

	/* ---- when to run a full pass (see engine.c) */
	bool full_pass_due;	/* something changed since the last pass */
	uint32_t *arrivals;	/* jobs queued since the last pass */
	size_t narrivals, arrivals_cap;
	struct event *prot_ends;	/* min-heap of protection ends
					 * (start + min runtime) */
	size_t nprot_ends, prot_ends_cap;
	bool queued_mid_pass;	/* a job was queued since the pass began */

	/* ---- budget policy: the ledger and the standing (charge.c) */
	struct sb_ledger *ledger;
	struct sb_standing *standing;
	struct sb_view view;	/* charged + committed, as of last_tick */
	double *old_alloc_gpus;	/* per association: GPUs of runs charged
				 * to last_tick (job_state.charged_to_tick),
				 * allocated */
	double *old_unalloc_gpus;	/* ... unallocated */
	double *usage;		/* scratch: one entry per tree index */
	uint32_t *standing_level;	/* per tree index: its standing's
					 * level at the last recalculation
					 * (running jobs' priorities change
					 * only with it) */
	struct { uint32_t job, run; } *fresh_runs;	/* runs started since
							 * last_tick */
	size_t nfresh_runs, fresh_runs_cap;
	int64_t last_tick;	/* the last recalculation, s */

	/* ---- the debug lane (lane.c; budget policy, cfg.preempt.lane not off) */
	bool lane_on;
	uint32_t lane_group;	/* its pending queue, passed first: 2 x
				 * associations; UINT32_MAX when off */
	uint64_t *lane_pending;	/* per tree index: GPUs of its pending jobs
				 * in the lane */
	uint64_t *lane_sum;	/* scratch per tree index (recalculation) */
	uint32_t *lane_running;	/* running jobs carrying the lane's
				 * priority */
	size_t nlane_running, lane_running_cap;
	struct { uint32_t job, run; } *lane_waiting;	/* pending lane-sized
				 * jobs outside the lane, fresh (not
				 * requeued), in the order they were queued;
				 * stale entries dropped at recalculations */
	size_t nlane_waiting, lane_waiting_cap;

	/* ---- baseline policy */
	uint32_t *team_cap;	/* per tree index: the team's cap of
				 * non-preemptible GPUs */
	uint32_t *team_used;	/* per tree index: its non-preemptible GPUs
				 * running */
	uint64_t team_used_seq;	/* counts the changes of team_used */
	uint16_t *team_thr;	/* per tree index, pass.c: a pending job of
				 * the team with at least this many GPUs
				 * (gpus_byte, at most 256) is passed over;
				 * NULL when tree indices do not fit
				 * queue.team_w */
	uint32_t thr_pf, thr_ef;	/* team_thr is of these pf, ef ... */
	uint64_t thr_seq;	/* ... and this team_used_seq */
	bool thr_ok;		/* ... when set */

	/* ---- scratch and placement */
	struct victim_candidate *candidates;	/* victims.c, per try */
	struct victim_candidate *cand_spare;	/* as large: by_class()
						 * sorts into it, then the
						 * two are swapped */
	uint32_t *victims;	/* victims.c: the victims taken */
	struct { uint32_t node; uint64_t mask; } *holds;	/* GPUs held by
						 * stopping victims beyond
						 * their preemptor's needs,
						 * until EV_RELEASE */
	size_t nholds, holds_cap;
	struct sim_cluster scratch_cluster;	/* trial placements */
	uint32_t *placed_nodes;	/* the nodes of the last placement */

	/* ---- backfill reservations (backfill.c), made by the last full
	 * pass */
	struct sim_resv *resv;
	uint32_t nresv;		/* made */
	uint32_t nresv_tried;	/* tried (a plan may not exist) */
	uint32_t *resv_nodes;
	int64_t *gpu_free_at;	/* scratch: per GPU, when it is free, s */
	int64_t *gpu_end_at;	/* per GPU: the expected end of the run on
				 * it, s, SIM_NEVER when none (reserve
				 * only) */
	int64_t *node_free_sorted;	/* per node, its GPUs' free times
					 * sorted (free: INT64_MIN), valid
					 * unless node_stale */
	bool *node_stale;
	uint32_t *node_held;	/* per node: GPUs held by stopping victims */
	int64_t *node_time;	/* scratch: per node, s */
	uint32_t *node_index;	/* scratch: per node */
	struct sim_cluster bf_cluster;	/* the cluster less reservations */
	bool bf_cluster_ok;	/* one reservation: bf_cluster is kept in
				 * step */
	uint32_t bf_fail_gpus;	/* fewest GPUs that did not fit on
				 * bf_cluster */
	/* the first reservation of the last plan, reused while the cluster
	 * is the same (cluster_version: bumped by every start, stop and
	 * release) and no GPUs are held (their free time depends on now) */
	uint64_t cluster_version;
	uint64_t gpus_held;	/* GPUs held by stopping victims */
	bool resv_cache_ok;	/* the cache is valid */
	bool resv_cache_none;	/* ... and no reservation was possible */
	uint32_t resv_cache_job;
	uint64_t resv_cache_version;	/* cluster_version it holds for */
	struct sim_resv resv_cache;
	uint32_t *resv_cache_nodes;

	/* ---- what a failed preemption try depends on (victims.c):
	 * room_seq is bumped, and node_room_seq[node] set to it, by every
	 * change that may give a preemptor more room on a node (a run there
	 * stops, held GPUs come back, a run's protection there ends);
	 * recalc_epoch by every recalculation (priorities and the budget
	 * view) */
	uint64_t room_seq, recalc_epoch;
	uint64_t order_epoch;	/* bumped by a recalculation that changed
				 * the standing order (so some levels) */
	uint64_t *order_changed_at;	/* per standing position k: the
					 * order_epoch at which the
					 * association at k or the set of
					 * those above it last changed (a
					 * level compares with k's the same
					 * way since) */
	uint32_t *prev_order;	/* the standing order of the last one */
	int32_t *order_count;	/* per association: scratch of
				 * order_changes() (charge.c), 0 between */
	bool recalcs_done;	/* prev_order holds one */
	bool view_read;		/* a refusal read the budget view (since
				 * it was cleared: per node in a scan) */
	uint32_t view_nodes[SIM_VIEW_NODES];	/* the try's nodes where a
						 * refusal read the view */
	uint8_t nview;		/* ... how many; SIM_VIEW_MANY: more, or
				 * read outside a node scan */
	uint32_t *fail_view_nodes;	/* per job, SIM_VIEW_NODES: its last
					 * failed try's view_nodes */
	uint64_t *node_room_seq;	/* per node */
	uint32_t *room_log;	/* the node changed at each room_seq, the
				 * last SIM_CHLOG of them */
	uint32_t *gpu_job;	/* per GPU: the job running on it, or
				 * UINT32_MAX */
	uint32_t *gpu_first_run;	/* per GPU: when it is the lowest of
					 * its run's GPUs on its node, the
					 * run's index into run_info (else
					 * unread) */
	uint8_t *gpu_first_n;	/* ... and then its run's GPUs on the node;
				 * else 0 */
	uint32_t *node_min_rank;	/* per node: the least
					 * sb_preempt_rank() of its runs
					 * (UINT32_MAX: none), valid when ... */
	uint64_t *node_rank_ok;	/* ... this is rank_epoch (0: changed) */
	uint64_t rank_epoch;	/* counts the changes of running jobs'
				 * priorities (from 1) */
	int64_t *gpu_take_from;	/* per GPU: from when an allocated
				 * preemptor (baseline: any) may take the run
				 * on it, s, as victims.c's victim_maybe()
				 * says; INT64_MAX when none runs there */
	int64_t *node_take_sorted;	/* per node, its GPUs' gpu_take_from
					 * sorted */

	/* ---- what fits, remembered (sim__cl_fits(), pass.c's fit_max()):
	 * jobs of up to fits_gpus GPUs fit on the cluster as it was at
	 * cluster_version == fits_version */
	uint64_t fits_version;
	uint32_t fits_gpus;
	uint64_t fit_max_version;	/* fit_max_gpus: the most GPUs (<=
					 * 255) of a job that fits on the
					 * cluster at this version */
	uint32_t fit_max_gpus;

	/* ---- why.c, errors */
	size_t next_probe;	/* the next job whose long wait is to be
				 * probed */
	char *msg;		/* the error message, msglen bytes */
	size_t msglen;
	int err;		/* -1 stops the loop */
};

static inline bool sim__is_budget(const struct sim *s)
{
	return s->p->policy == SIM_POLICY_BUDGET;
}

/* The outranked rule's bar for preemptor @me (the one sb_preempt_check()
 * applies, sb_preempt_rank()): its rank when it is allocated under the
 * budget policy, else 0 (no bar). */
static inline uint32_t sim__rank_bar(const struct sim *s,
				     const struct sb_preempt_party *me)
{
	return sim__is_budget(s) && me->job.contract.allocated ?
	       sb_preempt_rank(&me->job) : 0;
}

/* Whether the core refuses running @rj to a preemptor of rank bar @pr
 * (sim__rank_bar(); 0: not asked) now and when its protection ends,
 * whatever the budget view: the outranked rule (sb_preempt_outranked())
 * for a victim not in its grace time (sb_preempt_decide() takes an
 * in-grace victim before any rule). */
static inline bool sim__outranked(uint32_t pr, const struct run_info *rj)
{
	return pr && !rj->party.in_grace &&
	       sb_preempt_outranked(pr, &rj->party.job);
}

/* Seconds preempted @job runs on before it stops: sb_preempt_grace() under
 * the budget policy (allocated resumable victims only), none under the
 * baseline. */
static inline int64_t sim__grace(const struct sim *s, uint32_t job)
{
	return s->p->policy == SIM_POLICY_BUDGET
		       ? sb_preempt_grace(&s->p->cfg.preempt,
					  &s->job_state[job].contract)
		       : 0;
}

/* Whether @job runs allocated: its contract as the core reads it. */
static inline bool sim__allocated(const struct sim *s, uint32_t job)
{
	return s->job_state[job].contract.allocated;
}

/* Baseline class: 0 LOW, 1 NORMAL, 2 HIGH. */
static inline int sim__bclass(const struct sim_job *j)
{
	return j->prio < SIM_PRIO_NORMAL ? 0 : j->prio == SIM_PRIO_NORMAL ? 1
									   : 2;
}

/* Node @nd's GPUs changed (a run started or stopped, GPUs held or
 * released): the backfill plan's per-node summary is stale. */
static inline void sim__node_dirty(struct sim *s, uint32_t nd)
{
	if (s->node_stale)
		s->node_stale[nd] = true;
}

/* sim_fits(&s->cl, @gpus), remembered while the cluster is the same
 * (s->cluster_version): a job fits if a bigger one did. */
static inline bool sim__cl_fits(struct sim *s, uint32_t gpus)
{
	if (s->fits_version == s->cluster_version && gpus <= s->fits_gpus)
		return true;
	if (!sim_fits(&s->cluster, gpus))
		return false;
	s->fits_version =
		s->cluster_version;	/* not known before, or a bigger job */
	s->fits_gpus = gpus;
	return true;
}

/* Whether @j (baseline) stays within its team's cap of non-preemptible
 * GPUs if it starts (the pass's rule; why.c reads it). */
static inline bool sim__within_cap(const struct sim *s,
				   const struct sim_job *j)
{
	return s->team_used[j->team_node] + j->gpus <=
	       s->team_cap[j->team_node];
}

/* A run on the @nn nodes at @nodes stopped, or its protection ended; or
 * GPUs on them came back: a preemption that failed may succeed there
 * (victims.c, "failed tries, kept"). */
static inline void sim__room_changed(struct sim *s, const uint32_t *nodes,
				     uint32_t nn)
{
	uint32_t a;

	for (a = 0; a < nn; a++) {
		s->room_seq++;
		s->node_room_seq[nodes[a]] = s->room_seq;
		s->room_log[s->room_seq & (SIM_CHLOG - 1)] = nodes[a];
	}
}

/* state.c: the arrays of struct sim (sim__state_alloc(): -1 and the
 * message written when out of memory; sim__state_free() frees whatever is
 * set), and errors: the first one wins, s->err = -1 stops the loop. */
int sim__state_alloc(struct sim *s);
void sim__state_free(struct sim *s);
void sim__oom(struct sim *s);
void sim__core_fail(struct sim *s, const char *what, int rc);

/* queue.c */
void sim__push(struct sim *s, int64_t t, uint32_t type, uint32_t job,
	       uint32_t run);
struct event sim__pop(struct sim *s);
void sim__prot_push(struct sim *s, int64_t t, uint32_t job, uint32_t run);
bool sim__prot_expired(struct sim *s, int64_t now);
uint32_t sim__group_of(const struct sim *s, uint32_t job);
bool sim__q_before(const struct sim *s, uint32_t a, uint32_t b);
uint32_t sim__q_find(const struct sim *s, const struct pending_queue *q,
		     uint32_t job);
uint32_t sim__gmin(struct pending_queue *q);
void sim__enqueue(struct sim *s, uint32_t job, int64_t t);
void sim__dequeue_at(struct sim *s, struct pending_queue *q, uint32_t i);
bool sim__any_below(const struct sim *s, uint32_t athr, uint32_t uthr);
/* The first position >= @i of @q whose job asks fewer GPUs than @lim, or
 * q->n. */
uint32_t sim__q_next_below(const struct pending_queue *q, uint32_t i,
			   uint32_t lim);
/* Any pending job with fewer GPUs than @thr that may run at most @d s
 * (by buckets: may say yes for a job a little longer). */
bool sim__any_short(const struct sim *s, uint32_t thr, int64_t d);

/* lane.c */
/* @job becomes pending at @now (sim__enqueue(), before it is queued): a
 * fresh lane-sized job enters the lane if its association's lane has
 * room (sb_lane_priority()), else waits for a recalculation */
void sim__lane_admit(struct sim *s, uint32_t job, int64_t now);
/* @job, carrying the lane's priority, started (sim__start()) */
void sim__lane_started(struct sim *s, uint32_t job);
/* @job, carrying the lane's priority, no longer runs (sim__unrun()) */
void sim__lane_left(struct sim *s, uint32_t job);
/* The recalculation at @T (sim__tick(), after the standing): running lane
 * jobs past their min runtime carry their budget's priority again; the
 * waiting lane-sized jobs enter while their association's lane has room
 * (holders summed first, as priority/budget does) */
void sim__lane_tick(struct sim *s, int64_t T);

/* queue.c: pending @job, queued in its association's group, moves to the
 * lane group (its flag set) */
void sim__q_move_to_lane(struct sim *s, uint32_t job);

/* charge.c */
uint32_t sim__job_priority(const struct sim *s, uint32_t job, bool pending);
void sim__charge_end(struct sim *s, uint32_t job, int64_t e);
void sim__fresh_add(struct sim *s, uint32_t job);
void sim__tick(struct sim *s, int64_t T);

/* victims.c */
bool sim__try_preempt(struct sim *s, uint32_t job, int64_t now);
/* Whether @me may preempt running @rj at @now (s): the core's verdict
 * (budget), preemptible (baseline).  A refusal that reads the budget view
 * sets s->view_read (victims.c, "failed tries, kept"). */
bool sim__victim_ok(struct sim *s, const struct sb_preempt_party *me,
		    const struct run_info *rj, int64_t now);

/* victim_order.c */
/* Start @o on s->candidates[0..@nc) at @now (s): one segment of all
 * (baseline; keys set), or the classes (budget: the candidates are moved
 * into s->cand_spare, which becomes s->candidates, so a pointer taken into
 * the array before is stale).  @me: the preemptor when the verdicts are
 * deferred (kept in @o, it must outlive it), else NULL. */
void sim__order_init(struct sim *s, size_t nc, int64_t now,
		     const struct sb_preempt_party *me, struct victim_order *o);
/* Put the smallest candidate not yet taken at @k, the smallest k being at
 * [0..k) in order; @k goes 0, 1, 2, ... (a segment's heap is built at its
 * 17th).  Reaching a segment with deferred verdicts asks the core
 * (sim__victim_ok(), may set s->view_read) and moves the accepted ones
 * down, the refused dropped.  False when none is left: the accepted
 * candidates are then all at [0..k). */
bool sim__next_in_order(struct sim *s, size_t k, struct victim_order *o);

/* backfill.c */
int sim__bf_init(struct sim *s);
void sim__bf_free(struct sim *s);
/* Place @job at @now on GPUs no binding reservation needs (one it would
 * overlap and not end before); as sim_place() into s->placed_nodes.  0 with
 * *@blocked when it would fit but for reservations. */
uint32_t sim__bf_place(struct sim *s, uint32_t job, int64_t now,
		       uint64_t *mask, bool *blocked);
/* @job cannot start at @now: reserve for it, if the pass has reservations
 * left to make (sim_params.reserve). */
void sim__bf_reserve(struct sim *s, uint32_t job, int64_t now);
/* Whether pending @job, which cannot start, would get a reservation the
 * last plan lacks: reservations are left, or it comes before a reserved
 * job in pass order. */
bool sim__bf_wants(const struct sim *s, uint32_t job);

/* why.c: why each job still pending at @now waits, into its outcome's
 * why (the words of `sbudget show job`, sb/wait.h) */
void sim__explain_pending(struct sim *s, int64_t now);
/* why.c: every job whose submit + SIM_LONG_WAIT is before @before (from
 * s->next_probe on) and which still waits, never started: why, into its
 * outcome's why (the state read is that of the probe's time: no event
 * lies between) */
void sim__probe_long_waits(struct sim *s, int64_t before);
/* run.c: start @job at @t on the placement just made in s->placed_nodes
 * (@nn nodes, @mask on each) */
void sim__start(struct sim *s, uint32_t job, int64_t t, uint32_t nn,
		uint64_t mask, bool preemptible);
/* run.c: preempt @job at @now: its GPUs go to the preemptor at once; it
 * stops after the grace time (EV_STOP, then sim__stop()) */
void sim__preempt(struct sim *s, uint32_t job, int64_t now);
/* run.c: the preempted run of @job stops at @t: charged, its segment
 * written, requeued or cancelled (and resubmitted) */
void sim__stop(struct sim *s, uint32_t job, int64_t t);
/* run.c: @job no longer runs: out of the running arrays, its GPUs freed */
void sim__unrun(struct sim *s, uint32_t job);
/* run.c: the segment of @job's current run, ending at @end, into the
 * result (@preempted, @lost: its flags; @fate: how it ended) */
void sim__add_seg(struct sim *s, uint32_t job, int64_t end, bool preempted,
		 bool lost, enum sim_fate fate);

/* pass.c: a full scheduling pass at @now */
void sim__pass(struct sim *s, int64_t now);
/* pass.c: a pass over the jobs that arrived since the last one only
 * (nothing else changed: every other job would fail again) */
void sim__pass_arrivals(struct sim *s, int64_t now);

#endif /* SB_SIM_ENGINE_H */
