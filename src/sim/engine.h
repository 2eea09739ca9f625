/*
 * engine.h - the simulator engine's shared state, for its files only (not
 * installed, not for main.c): the event and queue structures, the state of
 * a simulation (struct sim), and the functions one engine file calls in
 * another.  Internal names carry the sim__ prefix.
 *
 * The engine files:
 *   cluster.c   placement: nodes x GPUs, first/best fit, whole nodes for
 *               multi-node jobs (public: sim_cluster_*, sim_place, ...);
 *   queue.c     the event heap, the protection-end heap, and the pending
 *               queues (one per budget group, kept sorted);
 *   charge.c    charging the ledger, the recalculation (TICK): the budget
 *               view (sb/view.h) and the standing, job priorities;
 *   victims.c   preemption: candidates through sb_preempt_decide(),
 *               victim order, taking victims only until the job fits;
 *   engine.c    starting and stopping runs, the scheduling pass, the event
 *               loop (sim_run);
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

struct ev {
	int64_t t;
	uint32_t type;
	uint32_t job;		/* EV_RELEASE: index into sim.holds */
	uint32_t run;		/* the run (or requeue) it belongs to */
};

enum jstate {
	J_FUTURE = 0, J_PENDING, J_WAITING /* requeued, not yet eligible */,
	J_RUNNING, J_STOPPING, J_DONE, J_CANCELLED,
};

/* Per-job state. */
struct js {
	struct sb_contract ct;	/* the contract as run (sim_job_contract) */
	uint8_t st;		/* enum jstate */
	bool resumed;		/* ran before and was requeued */
	bool preemptible;	/* this run */
	bool old;		/* this run's start is charged up to tprev */
	uint32_t run;		/* runs so far (also the event tag) */
	uint32_t ridx;		/* index in the running array */
	uint32_t node_off, nnodes;
	uint64_t mask;
	int64_t start, end_at, remaining;
	int64_t eligible;	/* when the current pending span began */
	bool preempted;		/* a run of it was preempted (budget) */
	int64_t preempted_at;	/* when the last preemption was decided */
	/* its last failed preemption try while pending (victims.c): at
	 * sim.pseq pf_seq (0: none since it became pending) in recalculation
	 * epoch pf_ep; multi-node: at most pf_whole nodes could be emptied */
	uint64_t pf_seq, pf_ep;
	uint32_t pf_whole;
	uint64_t pf_rep;	/* ... at standing-order epoch pf_rep */
	uint32_t pf_pos;	/* ... its association's standing position */
	bool pf_vfree;		/* ... and no refusal read the view */
	int64_t submit;		/* its submission: the table's, or when its
				 * user resubmitted it after a cancel (the
				 * queue's order: a new job) */
	int64_t demand_from;	/* cancelled, waiting to be resubmitted:
				 * when the cancelled run stopped, where the
				 * resubmitted job's demand begins (the gap
				 * counts); SIM_NEVER otherwise */
};

/* A running job as preemption sees it, kept beside sim.running so that the
 * candidate scan reads memory in order: the core's party (contract, start,
 * current priority, GPUs, association) plus the simulator's flags. */
struct rrun {
	struct sb_preempt_party pt;
	int64_t prot_until;	/* sb_preempt_hold_until(&pol, &pt), kept:
				 * a pure function of the contract, the start
				 * and the last preemption, which do not
				 * change during a run */
	int64_t commit_until;	/* sb_preempt_protected_until(&pt.job) for
				 * an allocated run (INT64_MIN otherwise),
				 * kept: from then on sb_committed_rest() is
				 * 0, so the recalculation skips it */
	uint32_t job;
	bool preemptible;	/* baseline: over its team's cap */
};

/* A queue entry: the job and its GPUs (the pass skips on GPUs alone). */
struct qe {
	uint32_t job, gpus, team;	/* team: its tree index (baseline cap) */
	uint32_t rem;		/* its remaining duration, s (at most
				 * UINT32_MAX): the backfill skip */
};

/* One pending queue, sorted by sim__q_before(). */
struct qv {
	struct qe *v;
	uint8_t *gb;		/* beside v: each job's GPUs, at most 255, so
				 * a pass finds the next job below a size
				 * reading bytes (sim__q_next_below()) */
	uint8_t *rb;		/* beside v: bit length of its rem */
	uint32_t n, cap;
	uint32_t gmin;		/* fewest GPUs of a job in it, when gmin_ok */
	bool gmin_ok;
};

/* A candidate victim with its order key computed once per try. */
struct cand {
	uint32_t job;
	uint32_t key;		/* sb_preempt_victim_key(); baseline: class */
	double lost;		/* baseline: GPU-seconds of the current run */
	int64_t start;
	uint32_t ri;		/* index into sim.rr */
};

/* A backfill reservation (backfill.c): @job starts at @t on these GPUs. */
struct sim_resv {
	uint32_t job;
	int64_t t;
	uint32_t node_off, nn;	/* its nodes: resv_nodes[node_off..] */
	uint64_t mask;		/* GPUs on each of them */
};

/* Node changes remembered by number (sim.chlog), a power of 2. */
#define SIM_CHLOG 1024

/* Pending jobs by GPUs, for sim__any_below(): bins 1..256, 257 = more. */
#define SIM_HIST_BINS 258
/* ... and by remaining duration: bucket b >= 1 holds [2^(b-1), 2^b) s. */
#define SIM_RBUCKETS 64

struct sim {
	const struct sim_workload *w;
	const struct sim_tree *t;
	const struct sim_params *p;
	struct sb_preempt_policy pol;	/* p->cfg.preempt with requeue_delay
					 * = p->requeue_delay: what the core's
					 * verdicts and costs read */
	struct sim_result *r;
	struct js *js;
	struct sim_cluster cl;
	/* events */
	struct ev *heap;
	size_t nheap, heap_cap;
	size_t next_submit;
	/* queues */
	struct qv *q;
	uint32_t ngroups;
	uint32_t *gorder;	/* groups in pass order */
	uint32_t ngorder;
	size_t npending;
	uint32_t hist_a[SIM_HIST_BINS], hist_u[SIM_HIST_BINS];
	uint32_t (*hr_a)[SIM_RBUCKETS], (*hr_u)[SIM_RBUCKETS];	/* by bin
							 * and bucket */
	/* running */
	uint32_t *running;
	struct rrun *rr;	/* parallel to running: what preemption reads */
	size_t nrunning;
	/* when to run a full pass (see engine.c) */
	bool dirty;
	uint32_t *arrivals;
	size_t narrivals, arrivals_cap;
	uint32_t *grank;	/* group -> its position in the pass order */
	struct ev *prot;	/* min-heap of protection ends (start + mr) */
	size_t nprot, prot_cap;
	/* budget */
	struct sb_ledger *ledger;
	struct sb_standing *st;
	struct sb_view view;	/* charged + committed, as of tprev */
	double *cur_a, *cur_u;	/* GPUs of "old" runs per association */
	double *usage;		/* scratch: one entry per tree index */
	uint32_t *level;	/* per tree index: its standing's level at
				 * the last recalculation (running jobs'
				 * priorities change only with it) */
	struct { uint32_t job, run; } *fresh;	/* runs started since tprev */
	size_t nfresh, fresh_cap;
	int64_t tprev;
	/* baseline */
	uint32_t *cap_np;	/* per tree index: the team's GPU cap */
	uint32_t *used_np;
	/* scratch */
	struct cand *cand;
	uint32_t *vict;
	struct { uint32_t node; uint64_t mask; } *holds;	/* leftovers */
	size_t nholds, holds_cap;
	struct sim_cluster tmp;
	uint32_t *nodebuf;
	/* backfill reservations (backfill.c), made by the last full pass */
	struct sim_resv *resv;
	uint32_t nresv, ntried;	/* made; tried (a plan may not exist) */
	uint32_t *resv_nodes;
	int64_t *gfree;		/* scratch: per GPU, when it is free */
	int64_t *gend;		/* per GPU: the expected end of the run on
				 * it, SIM_NEVER when none (reserve only) */
	int64_t *nsort;		/* per node, its GPUs' free times sorted
				 * (free: INT64_MIN), valid unless ndirty */
	bool *ndirty;
	uint32_t *nheld;	/* per node: GPUs held by stopping victims */
	int64_t *nodet;		/* scratch: per node */
	uint32_t *nodeix;
	struct sim_cluster bf;	/* the cluster less reservations */
	bool bf_ok;		/* one reservation: bf is kept in step */
	/* the first reservation of the last plan, reused while the cluster
	 * is the same (clv: bumped by every start, stop and release) and
	 * no GPUs are held (their free time depends on now) */
	uint64_t clv;
	uint64_t held;		/* GPUs held by stopping victims */
	bool rc_ok, rc_none;
	uint32_t rc_job;
	uint64_t rc_clv;
	struct sim_resv rc;
	uint32_t *rc_nodes;
	uint32_t bf_fail;	/* fewest GPUs that did not fit on bf */
	/* what a failed preemption try depends on (victims.c): pseq is
	 * bumped, and nchg[node] set to it, by every change that may give a
	 * preemptor more room on a node (a run there stops, held GPUs come
	 * back, a run's protection there ends); pep by every recalculation
	 * (priorities and the budget view) */
	uint64_t pseq, pep;
	uint64_t rep;		/* bumped by a recalculation that changed the
				 * standing order (so some levels) */
	uint64_t *ord_chg;	/* per standing position k: the rep at which
				 * positions 0..k last changed (a level
				 * compares with k's the same way since) */
	uint32_t *prev_ord;	/* the standing order of the last one */
	bool recalcs_done;	/* prev_ord holds one */
	bool vdep;		/* a refusal read the budget view (victims.c,
				 * since the try began) */
	uint64_t *nchg;		/* per node */
	uint32_t *chlog;	/* the node changed at each pseq, the last
				 * SIM_CHLOG of them */
	/* sim__cl_fits(): jobs of up to fit_g GPUs fit on the cluster as it
	 * was at clv == fit_clv */
	uint64_t fit_clv;
	uint32_t fit_g;
	uint64_t fmax_clv;	/* fmax: the most GPUs (<= 255) of a job
				 * that fits on the cluster at clv fmax_clv */
	uint32_t fmax;
	bool enq_mid;		/* a job was queued since the pass began */
	uint32_t *gjob;		/* per GPU: the job running on it, or
				 * UINT32_MAX */
	int64_t *gmay;		/* per GPU: from when an allocated preemptor
				 * (baseline: any) may take the run on it,
				 * as victims.c's victim_maybe() says;
				 * INT64_MAX when none runs there */
	int64_t *gsort;		/* per node, its GPUs' gmay sorted */
	size_t next_probe;	/* why.c: the next job whose long wait is
				 * to be probed */
	char *msg;
	size_t msglen;
	int err;
};

static inline bool sim__is_budget(const struct sim *s)
{
	return s->p->policy == SIM_POLICY_BUDGET;
}

/* Seconds preempted @job runs on before it stops: sb_preempt_grace() under
 * the budget policy (allocated resumable victims only), none under the
 * baseline. */
static inline int64_t sim__grace(const struct sim *s, uint32_t job)
{
	return s->p->policy == SIM_POLICY_BUDGET ?
	       sb_preempt_grace(&s->p->cfg.preempt, &s->js[job].ct) : 0;
}

/* Whether @job runs allocated: its contract as the core reads it. */
static inline bool sim__allocated(const struct sim *s, uint32_t job)
{
	return s->js[job].ct.allocated;
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
	if (s->ndirty)
		s->ndirty[nd] = true;
}

/* sim_fits(&s->cl, @gpus), remembered while the cluster is the same
 * (s->clv): a job fits if a bigger one did. */
static inline bool sim__cl_fits(struct sim *s, uint32_t gpus)
{
	if (s->fit_clv == s->clv && gpus <= s->fit_g)
		return true;
	if (!sim_fits(&s->cl, gpus))
		return false;
	s->fit_clv = s->clv;	/* not known before, or a bigger job */
	s->fit_g = gpus;
	return true;
}

/* Errors: the first one wins, s->err = -1 stops the loop. */
void sim__oom(struct sim *s);
void sim__core_fail(struct sim *s, const char *what, int rc);

/* queue.c */
void sim__push(struct sim *s, int64_t t, uint32_t type, uint32_t job,
	       uint32_t run);
struct ev sim__pop(struct sim *s);
void sim__prot_push(struct sim *s, int64_t t, uint32_t job, uint32_t run);
bool sim__prot_expired(struct sim *s, int64_t now);
uint32_t sim__group_of(const struct sim *s, uint32_t job);
bool sim__q_before(const struct sim *s, uint32_t a, uint32_t b);
uint32_t sim__q_find(const struct sim *s, const struct qv *q, uint32_t job);
uint32_t sim__gmin(struct qv *q);
void sim__enqueue(struct sim *s, uint32_t job, int64_t t);
void sim__dequeue_at(struct sim *s, struct qv *q, uint32_t i);
bool sim__any_below(const struct sim *s, uint32_t athr, uint32_t uthr);
/* The first position >= @i of @q whose job asks fewer GPUs than @lim, or
 * q->n. */
uint32_t sim__q_next_below(const struct qv *q, uint32_t i, uint32_t lim);
/* Any pending job with fewer GPUs than @thr that may run at most @d s
 * (by buckets: may say yes for a job a little longer). */
bool sim__any_short(const struct sim *s, uint32_t thr, int64_t d);

/* charge.c */
uint32_t sim__job_priority(const struct sim *s, uint32_t job, bool pending);
void sim__charge_end(struct sim *s, uint32_t job, int64_t e);
void sim__fresh_add(struct sim *s, uint32_t job);
void sim__tick(struct sim *s, int64_t T);

/* victims.c */
bool sim__try_preempt(struct sim *s, uint32_t job, int64_t now);
/* A run on the @nn nodes at @nodes stopped, or its protection ended; or
 * GPUs on them came back: a preemption that failed may succeed there. */
void sim__room_changed(struct sim *s, const uint32_t *nodes, uint32_t nn);
/* @job's run starts (@on) or stops: its GPUs in s->gjob, s->gmay and
 * s->gsort (victims.c). */
void sim__gjob_set(struct sim *s, uint32_t job, bool on);

/* backfill.c */
int sim__bf_init(struct sim *s);
void sim__bf_free(struct sim *s);
/* Place @job at @now on GPUs no binding reservation needs (one it would
 * overlap and not end before); as sim_place() into s->nodebuf.  0 with
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
/* engine.c */
void sim__start(struct sim *s, uint32_t job, int64_t t, uint32_t nn,
		uint64_t mask, bool preemptible);
void sim__preempt(struct sim *s, uint32_t job, int64_t now);

/* Whether @j (baseline) stays within its team's cap of non-preemptible
 * GPUs if it starts (the pass's rule; why.c reads it). */
bool sim__within_cap(const struct sim *s, const struct sim_job *j);

#endif /* SB_SIM_ENGINE_H */
