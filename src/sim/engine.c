/*
 * engine.c - the cluster, the event loop and the two policies.
 *
 * Events, in this order when they share a time: a run ends (END), a
 * preempted run's grace time ends (STOP), a requeued job becomes eligible
 * (ELIGIBLE), the priority recalculation (TICK, every CalcPeriod, budget
 * policy only), GPUs held by preemption victims come back (RELEASE); then
 * the jobs submitted at that time (read in order from the sorted table,
 * not from the heap).  After all events of one time, one scheduling pass
 * (a "scheduling moment") if jobs are pending and something changed.
 *
 * Budget policy, as the plugins do it:
 *   TICK at T (a multiple of CalcPeriod): charge every run's GPU-seconds up
 *   to T into the ledger (sb_ledger_charge, allocated and unallocated
 *   apart), read the windowed usage (sb_ledger_usage_all), add the
 *   committed usage of running allocated jobs (the rest of their min
 *   runtime, sb_usage_commit, as priority/budget's commit_job), and
 *   recompute the standing (sb_standing_compute_usage).
 *   Pass: pending jobs in priority order (sb_priority_job, with
 *   SB_PRIO_RESUMED for requeued ones; ties by original submit, then input
 *   order).  A job that fits (first fit) starts.  An allocated job that
 *   does not fit collects the running jobs sb_preempt_check() accepts (the
 *   victim's *current* priority), orders them with sb_preempt_victim_cmp(),
 *   and takes them in that order only until it would fit; if even all of
 *   them would not make it fit, nobody is preempted.  As Slurm's cons_tres
 *   does, the victims actually preempted are the taken ones on the nodes
 *   the job is then placed on.  sb_preempt_action(): requeue (back to the
 *   queue after the grace time plus --requeue-delay) or cancel.
 *   Backfill: greedy (a lower job starts whenever it fits now; Slurm's
 *   backfill would also hold GPUs for higher jobs) or none (the pass stops
 *   at the first job that cannot start, Slurm's main scheduler).
 *
 * Baseline policy (the seed's old system): static classes LOW/NORMAL/HIGH
 * from the in-team priority (< 512, 512, > 512), FIFO inside a class.  A
 * job whose team's non-preemptible GPUs plus its own stay within the
 * team's cap (entitled share x cluster GPUs, rounded down) runs
 * non-preemptible; otherwise it runs preemptible on idle GPUs.  A job
 * within its cap that does not fit preempts preemptible runs: lowest class
 * first, then least work lost.
 *
 * Charging is exact: every GPU-second of a run is charged once, in the
 * bucket it ran in, before the TICK that reads it; GPU-seconds are whole
 * numbers, so the ledger's sums are exact (sb/ledger.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sim.h"

/* ----------------------------------------------------------- placement */

int sim_cluster_init(struct sim_cluster *c, uint32_t nodes, uint32_t gpn)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	if (!nodes || !gpn || gpn > 64)
		return -1;
	c->free = malloc(nodes * sizeof(*c->free));
	c->nfree = malloc(nodes * sizeof(*c->nfree));
	if (!c->free || !c->nfree) {
		sim_cluster_free(c);
		return -1;
	}
	c->nodes = nodes;
	c->gpn = gpn;
	for (i = 0; i < nodes; i++) {
		c->free[i] = gpn == 64 ? UINT64_MAX : (UINT64_C(1) << gpn) - 1;
		c->nfree[i] = gpn;
	}
	c->total_free = (uint64_t)nodes * gpn;
	return 0;
}

void sim_cluster_free(struct sim_cluster *c)
{
	free(c->free);
	free(c->nfree);
	memset(c, 0, sizeof(*c));
}

static uint64_t full_mask(uint32_t gpn)
{
	return gpn == 64 ? UINT64_MAX : (UINT64_C(1) << gpn) - 1;
}

bool sim_fits(const struct sim_cluster *c, uint32_t gpus)
{
	uint32_t i, need, got = 0;

	if (gpus > c->total_free)
		return false;
	if (gpus <= c->gpn) {
		for (i = 0; i < c->nodes; i++)
			if (c->nfree[i] >= gpus)
				return true;
		return false;
	}
	need = (gpus + c->gpn - 1) / c->gpn;
	for (i = 0; i < c->nodes && got < need; i++)
		if (c->nfree[i] == c->gpn)
			got++;
	return got == need;
}

uint32_t sim_place(struct sim_cluster *c, uint32_t gpus, uint32_t *nodes,
		   uint64_t *mask)
{
	uint32_t i, need, got = 0;

	if (!gpus || !sim_fits(c, gpus))
		return 0;
	if (gpus <= c->gpn) {
		uint32_t best = UINT32_MAX;

		for (i = 0; i < c->nodes; i++)
			if (c->nfree[i] >= gpus) {
				if (!c->best_fit) {
					best = i;
					break;
				}
				if (best == UINT32_MAX ||
				    c->nfree[i] < c->nfree[best])
					best = i;
			}
		i = best;
		{
			uint64_t m = 0, f = c->free[i];
			uint32_t k;

			for (k = 0; k < gpus; k++) {
				uint64_t low = f & -f;	/* lowest free GPU */

				m |= low;
				f &= ~low;
			}
			c->free[i] &= ~m;
			c->nfree[i] -= gpus;
			c->total_free -= gpus;
			nodes[0] = i;
			*mask = m;
			return 1;
		}
	}
	need = (gpus + c->gpn - 1) / c->gpn;
	for (i = 0; i < c->nodes && got < need; i++)
		if (c->nfree[i] == c->gpn) {
			nodes[got++] = i;
			c->free[i] = 0;
			c->nfree[i] = 0;
		}
	c->total_free -= (uint64_t)need * c->gpn;
	*mask = full_mask(c->gpn);
	return need;
}

void sim_release(struct sim_cluster *c, const uint32_t *nodes, uint32_t n,
		 uint64_t mask)
{
	uint32_t i;
	uint32_t k = (uint32_t)__builtin_popcountll(mask);

	for (i = 0; i < n; i++) {
		c->free[nodes[i]] |= mask;
		c->nfree[nodes[i]] += k;
		c->total_free += k;
	}
}

/* ------------------------------------------------------------- the loop */

enum { EV_END = 0, EV_STOP = 1, EV_ELIGIBLE = 2, EV_TICK = 3, EV_RELEASE = 4 };

struct ev {
	int64_t t;
	uint32_t type;
	uint32_t job;
	uint32_t run;		/* the run (or requeue) it belongs to */
};

enum jstate {
	J_FUTURE = 0, J_PENDING, J_WAITING /* requeued, not yet eligible */,
	J_RUNNING, J_STOPPING, J_DONE, J_CANCELLED,
};

struct js {
	uint8_t st;
	bool resumed;		/* ran before and was requeued */
	bool preemptible;	/* this run */
	bool old;		/* this run's start is charged up to tprev */
	uint32_t run;		/* runs so far (also the event tag) */
	uint32_t ridx;		/* index in the running array */
	uint32_t node_off, nnodes;
	uint64_t mask;
	int64_t start, end_at, remaining;
};

/* A running job as preemption sees it (kept beside s->running, so the
 * candidate scan reads memory in order). */
struct rrun {
	int64_t start, mr;
	uint32_t job, assoc, gpus, prio;
	uint32_t cur;		/* current priority, refreshed every tick */
	bool resumable, preemptible;
};

/* A queue entry: the job and its GPUs (the pass skips on GPUs alone). */
struct qe {
	uint32_t job, gpus, team;	/* team: its tree index (baseline cap) */
};

struct qv {
	struct qe *v;
	uint32_t n, cap;
	uint32_t gmin;		/* fewest GPUs of a job in it, when gmin_ok */
	bool gmin_ok;
};

static void gmin_add(struct qv *q, uint32_t gpus)
{
	if (q->n == 1) {
		q->gmin = gpus;
		q->gmin_ok = true;
	} else if (q->gmin_ok && gpus < q->gmin) {
		q->gmin = gpus;
	}
}

static uint32_t gmin_get(struct qv *q)
{
	uint32_t i;

	if (!q->gmin_ok) {
		q->gmin = UINT32_MAX;
		for (i = 0; i < q->n; i++)
			if (q->v[i].gpus < q->gmin)
				q->gmin = q->v[i].gpus;
		q->gmin_ok = true;
	}
	return q->gmin;
}

struct sim {
	const struct sim_workload *w;
	const struct sim_tree *t;
	const struct sim_params *p;
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
	uint32_t hist_a[258], hist_u[258];	/* pending by GPUs, 257 = more */
	/* running */
	uint32_t *running;
	struct rrun *rr;	/* parallel to running: what preemption reads */
	/* when to run a full pass (see pass_needed) */
	bool dirty;
	uint32_t *arrivals;
	size_t narrivals, arrivals_cap;
	uint32_t *grank;	/* group -> its position in the pass order */
	struct ev *prot;	/* min-heap of protection ends (start + mr) */
	size_t nprot, prot_cap;
	size_t nrunning;
	/* budget */
	struct sb_ledger *ledger;
	struct sb_standing *st;
	double *cur_a, *cur_u;	/* GPUs of "old" runs per association */
	double *usage, *committed;
	uint32_t *par, *dep;	/* the tree's parents and depths, by index */
	double *snorm;		/* and shares_norm */
	struct { uint32_t job, run; } *fresh;	/* runs started since tprev */
	size_t nfresh, fresh_cap;
	int64_t tprev;
	bool ticking;
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
	char *msg;
	size_t msglen;
	int err;
};

static uint32_t job_priority(const struct sim *s, uint32_t job, bool pending);

void sim_params_init(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->policy = SIM_POLICY_BUDGET;
	p->nodes = 128;
	p->gpus_per_node = 8;
	sb_config_init(&p->cfg);
	p->requeue_delay = 121;	/* Slurm: cred_expire (120 s) + 1 */
	p->restart = false;
	p->backfill = SIM_BACKFILL_GREEDY;
	p->until = SIM_NEVER;
	p->hold_leftovers = true;
}

void sim_result_free(struct sim_result *r)
{
	free(r->segs);
	free(r->nodes);
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}

static void oom(struct sim *s)
{
	if (!s->err)
		snprintf(s->msg, s->msglen, "out of memory");
	s->err = -1;
}

static void core_fail(struct sim *s, const char *what, int rc)
{
	if (!s->err)
		snprintf(s->msg, s->msglen, "%s: %s (a bug)", what,
			 sb_strerror(rc));
	s->err = -1;
}

static bool ev_less(const struct ev *a, const struct ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->type != b->type)
		return a->type < b->type;
	return a->job < b->job;
}

static void push(struct sim *s, int64_t t, uint32_t type, uint32_t job,
		 uint32_t run)
{
	size_t i;

	if (s->nheap == s->heap_cap) {
		size_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;
		struct ev *h = realloc(s->heap, cap * sizeof(*h));

		if (!h) {
			oom(s);
			return;
		}
		s->heap = h;
		s->heap_cap = cap;
	}
	i = s->nheap++;
	s->heap[i] = (struct ev){ t, type, job, run };
	while (i) {
		size_t up = (i - 1) / 2;
		struct ev tmp;

		if (!ev_less(&s->heap[i], &s->heap[up]))
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[up];
		s->heap[up] = tmp;
		i = up;
	}
}

static struct ev pop(struct sim *s)
{
	struct ev top = s->heap[0];
	size_t i = 0;

	s->heap[0] = s->heap[--s->nheap];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct ev tmp;

		if (l < s->nheap && ev_less(&s->heap[l], &s->heap[m]))
			m = l;
		if (l + 1 < s->nheap && ev_less(&s->heap[l + 1], &s->heap[m]))
			m = l + 1;
		if (m == i)
			break;
		tmp = s->heap[i];
		s->heap[i] = s->heap[m];
		s->heap[m] = tmp;
		i = m;
	}
	return top;
}

/* ------------------------------------------------------------- queues */

static bool is_budget(const struct sim *s)
{
	return s->p->policy == SIM_POLICY_BUDGET;
}

static bool allocated(const struct sim_job *j)
{
	return j->min_runtime > 0;
}

/* Baseline class: 0 LOW, 1 NORMAL, 2 HIGH. */
static int bclass(const struct sim_job *j)
{
	return j->prio < SIM_PRIO_NORMAL ? 0 : j->prio == SIM_PRIO_NORMAL ? 1
									   : 2;
}

static uint32_t group_of(const struct sim *s, uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	if (is_budget(s))
		return (allocated(j) ? 0 : s->t->n) + j->assoc;
	return (uint32_t)(2 - bclass(j));
}

/* Order inside a group: a before b?  Budget: in-team priority, resumed
 * bit (the low bits of sb_priority_job), original submit, input order.
 * Baseline: original submit, input order. */
static bool q_before(const struct sim *s, uint32_t a, uint32_t b)
{
	const struct sim_job *x = &s->w->jobs[a], *y = &s->w->jobs[b];

	if (is_budget(s)) {
		uint32_t px = (x->prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX :
			       x->prio) << 1 | s->js[a].resumed;
		uint32_t py = (y->prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX :
			       y->prio) << 1 | s->js[b].resumed;

		if (px != py)
			return px > py;
	}
	if (x->submit != y->submit)
		return x->submit < y->submit;
	return a < b;
}

static uint32_t hbin(uint32_t g)
{
	return g > 256 ? 257 : g;
}

static void enqueue(struct sim *s, uint32_t job)
{
	struct qv *q = &s->q[group_of(s, job)];
	uint32_t lo = 0, hi;

	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16;
		struct qe *v = realloc(q->v, cap * sizeof(*v));

		if (!v) {
			oom(s);
			return;
		}
		q->v = v;
		q->cap = cap;
	}
	/* binary search: first position whose job is not before @job */
	hi = q->n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (q_before(s, q->v[mid].job, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(q->v + lo + 1, q->v + lo, (q->n - lo) * sizeof(*q->v));
	q->v[lo].job = job;
	q->v[lo].gpus = s->w->jobs[job].gpus;
	q->v[lo].team = s->w->jobs[job].team_node;
	q->n++;
	gmin_add(q, s->w->jobs[job].gpus);
	s->js[job].st = J_PENDING;
	s->npending++;
	if (s->narrivals == s->arrivals_cap) {
		size_t cap = s->arrivals_cap ? 2 * s->arrivals_cap : 256;
		uint32_t *v = realloc(s->arrivals, cap * sizeof(*v));

		if (!v) {
			oom(s);
			return;
		}
		s->arrivals = v;
		s->arrivals_cap = cap;
	}
	s->arrivals[s->narrivals++] = job;
	if (allocated(&s->w->jobs[job]))
		s->hist_a[hbin(s->w->jobs[job].gpus)]++;
	else
		s->hist_u[hbin(s->w->jobs[job].gpus)]++;
}

static void dequeue_at(struct sim *s, struct qv *q, uint32_t i)
{
	uint32_t job = q->v[i].job;

	memmove(q->v + i, q->v + i + 1, (q->n - i - 1) * sizeof(*q->v));
	q->n--;
	if (s->w->jobs[job].gpus <= q->gmin)
		q->gmin_ok = false;
	s->npending--;
	if (allocated(&s->w->jobs[job]))
		s->hist_a[hbin(s->w->jobs[job].gpus)]--;
	else
		s->hist_u[hbin(s->w->jobs[job].gpus)]--;
}

/* Put @job back at position @i of @q (after a failed preemption). */
static void enqueue_at(struct sim *s, struct qv *q, uint32_t i, uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	memmove(q->v + i + 1, q->v + i, (q->n - i) * sizeof(*q->v));
	q->v[i].job = job;
	q->v[i].gpus = j->gpus;
	q->v[i].team = j->team_node;
	q->n++;
	gmin_add(q, j->gpus);
	s->npending++;
	if (allocated(j))
		s->hist_a[hbin(j->gpus)]++;
	else
		s->hist_u[hbin(j->gpus)]++;
}

/* Any pending job that could still do something: an allocated one with
 * fewer GPUs than @athr, or an unallocated one with fewer than @uthr. */
static bool any_below(const struct sim *s, uint32_t athr, uint32_t uthr)
{
	uint32_t g;

	for (g = 1; g < 258; g++) {
		if (g < athr && s->hist_a[g])
			return true;
		if (g < uthr && s->hist_u[g])
			return true;
		if (g >= athr && g >= uthr)
			break;
	}
	return false;
}

/* ----------------------------------------------------------- charging */

static void charge(struct sim *s, uint32_t assoc, int64_t from, int64_t to,
		   double gpus, bool alloc)
{
	int rc;

	if (to <= from || gpus <= 0)
		return;
	rc = sb_ledger_charge(s->ledger, assoc, from, to, gpus, alloc);
	if (rc != SB_OK)
		core_fail(s, "sb_ledger_charge", rc);
}

/* A run of @job ends at @e (>= its start): charge what is not yet. */
static void charge_end(struct sim *s, uint32_t job, int64_t e)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct js *x = &s->js[job];
	bool al = allocated(j);

	if (!is_budget(s))
		return;
	if (x->old) {
		(al ? s->cur_a : s->cur_u)[j->assoc] -= j->gpus;
		charge(s, j->assoc, s->tprev, e, j->gpus, al);
	} else {
		charge(s, j->assoc, x->start, e, j->gpus, al);
	}
}

/* The recalculation at @T (see the top of the file). */
static void tick(struct sim *s, int64_t T)
{
	uint32_t a, n = s->t->n;
	size_t i, keep = 0;
	int rc;

	s->r->recalcs++;
	for (a = 0; a < n; a++) {
		charge(s, a, s->tprev, T, s->cur_a[a], true);
		charge(s, a, s->tprev, T, s->cur_u[a], false);
	}
	for (i = 0; i < s->nfresh; i++) {
		uint32_t job = s->fresh[i].job;
		struct js *x = &s->js[job];
		const struct sim_job *j = &s->w->jobs[job];

		if (x->run != s->fresh[i].run ||
		    (x->st != J_RUNNING && x->st != J_STOPPING))
			continue;	/* ended: charged then */
		if (x->start >= T) {
			s->fresh[keep++] = s->fresh[i];
			continue;
		}
		charge(s, j->assoc, x->start, T, j->gpus, allocated(j));
		(allocated(j) ? s->cur_a : s->cur_u)[j->assoc] += j->gpus;
		x->old = true;
	}
	s->nfresh = keep;
	s->tprev = T;
	rc = sb_ledger_usage_all(s->ledger, T, true, s->usage, NULL);
	if (rc != SB_OK) {
		core_fail(s, "sb_ledger_usage_all", rc);
		return;
	}
	memset(s->committed, 0, n * sizeof(*s->committed));
	for (i = 0; i < s->nrunning; i++) {
		uint32_t job = s->running[i];
		const struct sim_job *j = &s->w->jobs[job];
		int64_t rest = s->js[job].start + j->min_runtime - T;

		if (allocated(j) && s->js[job].start <= T && rest > 0)
			s->committed[j->assoc] += (double)rest * j->gpus;
	}
	for (a = 0; a < n; a++)
		if (s->committed[a] > 0) {
			rc = sb_usage_commit(s->t->tree, s->usage, a,
					     s->committed[a]);
			if (rc != SB_OK) {
				core_fail(s, "sb_usage_commit", rc);
				return;
			}
		}
	rc = sb_standing_compute_usage(s->st, s->usage);
	if (rc != SB_OK) {
		core_fail(s, "sb_standing_compute_usage", rc);
		return;
	}
	/* pass order: allocated groups by standing, then unallocated */
	{
		uint32_t cnt;
		const uint32_t *ord = sb_standing_order(s->st, &cnt);

		for (a = 0; a < cnt; a++) {
			s->gorder[a] = ord[a];
			s->gorder[cnt + a] = n + ord[a];
		}
		s->ngorder = 2 * cnt;
		for (a = 0; a < s->ngorder; a++)
			s->grank[s->gorder[a]] = a;
	}
	/* running jobs' current priority, as priority/budget refreshes it */
	for (i = 0; i < s->nrunning; i++)
		s->rr[i].cur = job_priority(s, s->rr[i].job, false);
	s->dirty = true;
}

/* ------------------------------------------------------ starting/stopping */

static uint32_t job_priority(const struct sim *s, uint32_t job, bool pending)
{
	const struct sim_job *j = &s->w->jobs[job];
	uint32_t p = sb_priority_job(s->st, j->assoc, allocated(j), j->prio);

	if (pending && s->js[job].resumed)
		p |= SB_PRIO_RESUMED;
	return p;
}

static int push_nodes(struct sim *s, const uint32_t *nodes, uint32_t n,
		      uint32_t *off)
{
	if (s->r->nnodes + n > s->r->nodes_cap) {
		size_t cap = s->r->nodes_cap ? s->r->nodes_cap * 2 : 4096;
		uint32_t *v;

		while (cap < s->r->nnodes + n)
			cap *= 2;
		v = realloc(s->r->nodes, cap * sizeof(*v));
		if (!v) {
			oom(s);
			return -1;
		}
		s->r->nodes = v;
		s->r->nodes_cap = cap;
	}
	if (s->r->nnodes > UINT32_MAX - n) {
		oom(s);
		return -1;
	}
	memcpy(s->r->nodes + s->r->nnodes, nodes, n * sizeof(*nodes));
	*off = (uint32_t)s->r->nnodes;
	s->r->nnodes += n;
	return 0;
}

/* Protection ends: a min-heap of (start + min runtime, job, run). */
static void prot_push(struct sim *s, int64_t t, uint32_t job, uint32_t run)
{
	size_t i;

	if (s->nprot == s->prot_cap) {
		size_t cap = s->prot_cap ? s->prot_cap * 2 : 1024;
		struct ev *h = realloc(s->prot, cap * sizeof(*h));

		if (!h) {
			oom(s);
			return;
		}
		s->prot = h;
		s->prot_cap = cap;
	}
	i = s->nprot++;
	s->prot[i] = (struct ev){ t, 0, job, run };
	while (i && s->prot[i].t < s->prot[(i - 1) / 2].t) {
		struct ev tmp = s->prot[i];

		s->prot[i] = s->prot[(i - 1) / 2];
		s->prot[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

/* Did a running job's protection end since the last pass?  Pops them. */
static bool prot_expired(struct sim *s, int64_t now)
{
	bool any = false;

	while (s->nprot && s->prot[0].t <= now) {
		struct ev top = s->prot[0];
		size_t i = 0;

		s->prot[0] = s->prot[--s->nprot];
		for (;;) {
			size_t l = 2 * i + 1, m = i;
			struct ev tmp;

			if (l < s->nprot && s->prot[l].t < s->prot[m].t)
				m = l;
			if (l + 1 < s->nprot && s->prot[l + 1].t < s->prot[m].t)
				m = l + 1;
			if (m == i)
				break;
			tmp = s->prot[i];
			s->prot[i] = s->prot[m];
			s->prot[m] = tmp;
			i = m;
		}
		if (s->js[top.job].st == J_RUNNING &&
		    s->js[top.job].run == top.run)
			any = true;
	}
	return any;
}

/* Start @job at @t on the placement just made in s->nodebuf. */
static void start(struct sim *s, uint32_t job, int64_t t, uint32_t nn,
		  uint64_t mask, bool preemptible)
{
	struct js *x = &s->js[job];
	const struct sim_job *j = &s->w->jobs[job];

	if (push_nodes(s, s->nodebuf, nn, &x->node_off))
		return;
	x->nnodes = nn;
	x->mask = mask;
	x->st = J_RUNNING;
	x->run++;
	x->start = t;
	x->end_at = t + x->remaining;
	x->old = false;
	x->preemptible = preemptible;
	if (s->r->jobs[job].first_start == SIM_NEVER)
		s->r->jobs[job].first_start = t;
	x->ridx = (uint32_t)s->nrunning;
	s->rr[s->nrunning] = (struct rrun){ t, j->min_runtime, job, j->assoc,
		j->gpus, j->prio, is_budget(s) ? job_priority(s, job, false) : 0,
		j->resumable, preemptible };
	s->running[s->nrunning++] = job;
	if (is_budget(s) && allocated(j))
		prot_push(s, t + j->min_runtime, job, x->run);
	push(s, x->end_at, EV_END, job, x->run);
	if (is_budget(s)) {
		if (s->nfresh == s->fresh_cap) {
			size_t cap = s->fresh_cap ? s->fresh_cap * 2 : 256;
			void *v = realloc(s->fresh, cap * sizeof(*s->fresh));

			if (!v) {
				oom(s);
				return;
			}
			s->fresh = v;
			s->fresh_cap = cap;
		}
		s->fresh[s->nfresh].job = job;
		s->fresh[s->nfresh].run = x->run;
		s->nfresh++;
	} else if (!preemptible) {
		s->used_np[j->team_node] += j->gpus;
	}
}

static void unrun(struct sim *s, uint32_t job)
{
	struct js *x = &s->js[job];
	uint32_t last = s->running[--s->nrunning];

	s->rr[x->ridx] = s->rr[s->nrunning];
	s->running[x->ridx] = last;
	s->js[last].ridx = x->ridx;
	sim_release(&s->cl, s->r->nodes + x->node_off, x->nnodes, x->mask);
	if (!is_budget(s) && !x->preemptible)
		s->used_np[s->w->jobs[job].team_node] -= s->w->jobs[job].gpus;
}

static void add_seg(struct sim *s, uint32_t job, int64_t end, bool preempted,
		    bool lost)
{
	struct sim_result *r = s->r;
	struct js *x = &s->js[job];

	if (r->nsegs == r->segs_cap) {
		size_t cap = r->segs_cap ? r->segs_cap * 2 : 4096;
		struct sim_seg *v = realloc(r->segs, cap * sizeof(*v));

		if (!v) {
			oom(s);
			return;
		}
		r->segs = v;
		r->segs_cap = cap;
	}
	r->segs[r->nsegs++] = (struct sim_seg){
		.job = job, .start = x->start, .end = end,
		.gpus = s->w->jobs[job].gpus, .node_off = x->node_off,
		.nnodes = x->nnodes, .mask = x->mask,
		.preemptible = x->preemptible, .preempted = preempted,
		.lost = lost,
	};
}

/* The preempted run of @job stops at @t (its grace time is over). */
static void stop(struct sim *s, uint32_t job, int64_t t)
{
	struct js *x = &s->js[job];
	const struct sim_job *j = &s->w->jobs[job];
	struct sb_contract c = { j->min_runtime, j->resumable, allocated(j) };
	bool natural = t >= x->end_at;

	bool requeue = is_budget(s) ? sb_preempt_action(&s->p->cfg.preempt, &c)
				      == SB_ACTION_REQUEUE : j->resumable;

	charge_end(s, job, t);
	add_seg(s, job, t, !natural, !natural && (s->p->restart || !requeue));
	s->r->jobs[job].end = t;
	if (natural) {
		x->st = J_DONE;
		s->r->jobs[job].how = SIM_END_DONE;
		return;
	}
	s->r->preemptions++;
	s->r->jobs[job].preemptions++;
	if (!s->p->restart)
		x->remaining -= t - x->start;
	if (requeue) {
		x->resumed = true;
		x->run++;	/* retags: a stale END of this run is dropped */
		if (s->p->requeue_delay > 0) {
			x->st = J_WAITING;
			push(s, t + s->p->requeue_delay, EV_ELIGIBLE, job,
			     x->run);
		} else {
			enqueue(s, job);
		}
	} else {
		x->st = J_CANCELLED;
		s->r->jobs[job].how = SIM_END_CANCELLED;
	}
}

/* Preempt @job at @now: its GPUs go to the preemptor at once; it stops
 * after the grace time. */
static void preempt(struct sim *s, uint32_t job, int64_t now)
{
	struct js *x = &s->js[job];
	int64_t grace = is_budget(s) ? s->p->cfg.preempt.grace_time : 0;
	int64_t t = now + grace < x->end_at ? now + grace : x->end_at;

	unrun(s, job);
	x->st = J_STOPPING;
	x->run++;	/* its END event is stale now */
	if (t <= now)
		stop(s, job, now);
	else
		push(s, t, EV_STOP, job, x->run);
}

/* --------------------------------------------------------- preemption */

/* A candidate victim with its order key computed once per try. */
struct cand {
	uint32_t job;
	uint32_t key;		/* sb_preempt_victim_key(); baseline: class */
	double lost;		/* baseline: GPU-seconds of the current run */
	int64_t start;
};

/* Victim order: sb_preempt_victim_cmp() (key, then the later start), the
 * key computed once; baseline: lowest class, least work lost, later
 * start.  Then job index, so the order is total. */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->lost != y->lost)
		return x->lost < y->lost ? -1 : 1;
	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/*
 * KAI's reclaim rule, as preempt/budget applies it to an allocated victim
 * of another budget: sb_preempt_reclaim_ok() on the siblings where the two
 * paths diverge (the virtual root's children for two top-level budgets),
 * with their shares_norm and their subtree usage, charged plus committed,
 * as of the last recalculation (the plugin adds the committed usage as of
 * the check; the difference is at most one CalcPeriod), and delta = the
 * preemptor's GPUs x its min runtime.  True when one budget is the other's
 * ancestor, or the same.
 */
static bool reclaim_ok(const struct sim *s, const struct sim_job *pj,
		       uint32_t vassoc)
{
	const uint32_t *par = s->par, *dep = s->dep;
	uint32_t a = pj->assoc, b = vassoc;

	if (a == b)
		return true;
	/* climb the deeper one, then both, until their parents agree */
	while (dep[a] > dep[b])
		a = par[a];
	while (dep[b] > dep[a])
		b = par[b];
	if (a == b)
		return true;	/* one is the other's ancestor */
	while (par[a] != par[b]) {
		a = par[a];
		b = par[b];
	}
	return sb_preempt_reclaim_ok(s->snorm[a], s->usage[a],
				     (double)pj->gpus * (double)pj->min_runtime,
				     s->snorm[b], s->usage[b]);
}

/* The running jobs @me may preempt at @now (sb_preempt_check() with the
 * victim's current priority; baseline: runs over their team's cap), in
 * victim order, into s->cand.  Return their number. */
static size_t gather(struct sim *s, const struct sb_preempt_job *me,
		     const struct sim_job *pj, int64_t now)
{
	size_t i, n = 0;

	for (i = 0; i < s->nrunning; i++) {
		const struct rrun *rj = &s->rr[i];
		struct cand *c = &s->cand[n];

		if (rj->start > now)
			continue;	/* a preemptor still in its grace wait */
		c->job = rj->job;
		c->start = rj->start;
		c->lost = 0;
		if (is_budget(s)) {
			struct sb_preempt_job v = {
				{ rj->mr, rj->resumable, rj->mr > 0 },
				rj->start, rj->cur, rj->gpus,
			};

			/* fast path for the common refusals; the core's
			 * verdict below decides */
			if (rj->start + rj->mr > now ||
			    (rj->mr > 0 && rj->cur >= me->priority))
				continue;
			if (sb_preempt_check(&s->p->cfg.preempt, me, &v, now)
			    != SB_PREEMPT_YES ||
			    (rj->mr > 0 && !reclaim_ok(s, pj, rj->assoc)))
				continue;
			c->key = rj->cur;	/* sb_preempt_victim_key() later */
			c->lost = (double)i;	/* its rr index, meanwhile */
		} else {
			if (!rj->preemptible)
				continue;
			c->key = (uint32_t)bclass(&s->w->jobs[rj->job]);
			c->lost = (double)rj->gpus * (double)(now - c->start);
		}
		n++;
	}
	return n;
}

/* Try to start pending @job at @now by preempting.  True if it started. */
static bool try_preempt(struct sim *s, uint32_t job, int64_t now)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct sb_preempt_job me = {
		{ j->min_runtime, j->resumable, allocated(j) }, now, 0, j->gpus,
	};
	uint64_t freeable = s->cl.total_free, mask;
	uint32_t nn, k, i, a, b, nvict = 0, gpn = s->cl.gpn;
	uint32_t need = (j->gpus + gpn - 1) / gpn, whole = 0;
	size_t nc;
	bool fits = false;
	int64_t grace;

	if (is_budget(s))
		me.priority = job_priority(s, job, true);
	nc = gather(s, &me, j, now);
	for (k = 0; k < nc; k++)
		freeable += s->w->jobs[s->cand[k].job].gpus;
	if (freeable < j->gpus)
		return false;	/* even all of them would not do */
	/* Would all of them make it fit?  Per node: free + candidates' GPUs
	 * (cheap; spares the victim order when the answer is no). */
	memcpy(s->tmp.free, s->cl.free, s->cl.nodes * sizeof(*s->cl.free));
	memcpy(s->tmp.nfree, s->cl.nfree, s->cl.nodes * sizeof(*s->cl.nfree));
	s->tmp.total_free = s->cl.total_free;
	for (k = 0; k < nc; k++) {
		const struct js *v = &s->js[s->cand[k].job];

		for (a = 0; a < v->nnodes; a++)
			s->tmp.nfree[s->r->nodes[v->node_off + a]] +=
				(uint32_t)__builtin_popcountll(v->mask);
	}
	for (a = 0; a < s->cl.nodes && !fits; a++)
		fits = j->gpus <= gpn ? s->tmp.nfree[a] >= j->gpus
				      : (whole += s->tmp.nfree[a] == gpn) >= need;
	if (!fits)
		return false;
	fits = false;
	whole = 0;
	if (is_budget(s))
		for (k = 0; k < nc; k++) {
			const struct rrun *rj = &s->rr[(size_t)s->cand[k].lost];
			struct sb_preempt_job v = {
				{ rj->mr, rj->resumable, rj->mr > 0 },
				rj->start, rj->cur, rj->gpus,
			};

			s->cand[k].key = sb_preempt_victim_key(&v, now);
			s->cand[k].lost = 0;
		}
	memcpy(s->tmp.free, s->cl.free, s->cl.nodes * sizeof(*s->cl.free));
	memcpy(s->tmp.nfree, s->cl.nfree, s->cl.nodes * sizeof(*s->cl.nfree));
	s->tmp.total_free = s->cl.total_free;
	if (j->gpus > gpn)
		for (a = 0; a < s->cl.nodes; a++)
			whole += s->tmp.nfree[a] == gpn;
	/* take victims in order only until the job would fit; only the
	 * victims' nodes change, so only they are looked at */
	for (k = 0; k < nc && !fits; k++) {
		const struct js *v;

		/* victim order: select the next smallest (few are usually
		 * needed); past 16, sort the rest once */
		if (k < 16) {
			size_t m = k, x;

			for (x = k + 1; x < nc; x++)
				if (cand_cmp(&s->cand[x], &s->cand[m]) < 0)
					m = x;
			if (m != k) {
				struct cand tmp = s->cand[k];

				s->cand[k] = s->cand[m];
				s->cand[m] = tmp;
			}
		} else if (k == 16) {
			qsort(s->cand + k, nc - k, sizeof(*s->cand), cand_cmp);
		}
		v = &s->js[s->cand[k].job];

		for (a = 0; a < v->nnodes; a++) {
			uint32_t node = s->r->nodes[v->node_off + a];

			sim_release(&s->tmp, &node, 1, v->mask);
			if (j->gpus <= gpn)
				fits |= s->tmp.nfree[node] >= j->gpus;
			else if (s->tmp.nfree[node] == gpn)
				fits |= ++whole >= need;
		}
	}
	if (!fits)
		return false;
	nn = sim_place(&s->tmp, j->gpus, s->nodebuf, &mask);
	/* the victims: the taken ones on the chosen nodes (node level, as
	 * cons_tres does) */
	for (i = 0; i < k; i++) {
		const struct js *v = &s->js[s->cand[i].job];
		bool on = false;

		for (a = 0; a < v->nnodes && !on; a++)
			for (b = 0; b < nn && !on; b++)
				on = s->r->nodes[v->node_off + a] ==
				     s->nodebuf[b];
		if (on)
			s->vict[nvict++] = s->cand[i].job;
	}
	for (i = 0; i < nvict; i++)
		preempt(s, s->vict[i], now);
	nn = sim_place(&s->cl, j->gpus, s->nodebuf, &mask);
	if (!nn) {
		snprintf(s->msg, s->msglen, "placement after preemption "
			 "failed (a bug)");
		s->err = -1;
		return false;
	}
	/* GPUs the victims free beyond the preemptor's need: the victims
	 * hold them until they stop (the grace time); with no grace time,
	 * until the end of this pass when hold_leftovers (Slurm: a victim
	 * completes after the cycle that chose it) */
	grace = is_budget(s) ? s->p->cfg.preempt.grace_time : 0;
	if (grace > 0 || s->p->hold_leftovers)
		for (i = 0; i < nvict; i++) {
			const struct js *v = &s->js[s->vict[i]];

			for (a = 0; a < v->nnodes; a++) {
				uint32_t node = s->r->nodes[v->node_off + a];
				uint64_t m = v->mask & s->cl.free[node];
				uint32_t cnt = (uint32_t)__builtin_popcountll(m);

				if (!m)
					continue;
				if (s->nholds == s->holds_cap) {
					size_t cap = s->holds_cap ?
						     2 * s->holds_cap : 64;
					void *h = realloc(s->holds, cap *
							  sizeof(*s->holds));

					if (!h) {
						oom(s);
						return false;
					}
					s->holds = h;
					s->holds_cap = cap;
				}
				s->cl.free[node] &= ~m;
				s->cl.nfree[node] -= cnt;
				s->cl.total_free -= cnt;
				s->holds[s->nholds].node = node;
				s->holds[s->nholds].mask = m;
				push(s, now + grace, EV_RELEASE,
				     (uint32_t)s->nholds, 0);
				s->nholds++;
			}
		}
	/* budget: an allocated preemptor is protected for its min runtime;
	 * baseline: a preemptor is within its team's cap, non-preemptible.
	 * Either way it cannot be taken back at once (no ping-pong). */
	start(s, job, now + grace, nn, mask,
	      is_budget(s) ? !allocated(j) : false);
	return true;
}

/* ------------------------------------------------------------- the pass */

static void pass(struct sim *s, int64_t now)
{
	uint32_t pf = UINT32_MAX, ef = UINT32_MAX, gi;
	uint32_t ngr = is_budget(s) ? s->ngorder : 3;

	s->r->passes++;
	for (gi = 0; gi < ngr && !s->err; gi++) {
		uint32_t g = is_budget(s) ? s->gorder[gi] : gi;
		struct qv *q = &s->q[g];
		uint32_t i = 0;
		uint32_t lim = (is_budget(s) && g >= s->t->n) ? pf :
			       pf > ef ? pf : ef;

		if (!q->n || gmin_get(q) >= lim)
			continue;	/* nobody here can do anything */
		bool unalloc = is_budget(s) && g >= s->t->n;

		while (i < q->n && !s->err) {
			uint32_t job, nn, qg = q->v[i].gpus;
			const struct sim_job *j;
			bool within = true, started = false;
			uint64_t mask;

			/* it would fail as a job with fewer GPUs did, and it
			 * may not preempt (unallocated; baseline: over its
			 * team's cap) */
			if (qg >= pf && (qg >= ef || unalloc ||
					 (!is_budget(s) &&
					  s->used_np[q->v[i].team] + qg >
					  s->cap_np[q->v[i].team])) &&
			    s->p->backfill != SIM_BACKFILL_NONE) {
				i++;
				continue;
			}
			job = q->v[i].job;
			j = &s->w->jobs[job];

			if (!is_budget(s))
				within = s->used_np[j->team_node] + j->gpus <=
					 s->cap_np[j->team_node];
			if (j->gpus < pf) {
				nn = sim_place(&s->cl, j->gpus, s->nodebuf,
					       &mask);
				if (nn) {
					dequeue_at(s, q, i);
					start(s, job, now, nn, mask,
					      is_budget(s) ? !allocated(j)
							   : !within);
					continue;
				}
				pf = j->gpus;
			}
			if ((is_budget(s) ? allocated(j) : within) &&
			    j->gpus < ef) {
				dequeue_at(s, q, i);
				started = try_preempt(s, job, now);
				if (started) {
					pf = UINT32_MAX; /* leftovers freed */
					continue;
				}
				enqueue_at(s, q, i, job);
				if (is_budget(s) || within)
					ef = j->gpus;
			}
			if (s->p->backfill == SIM_BACKFILL_NONE)
				return;
			i++;
			{
				uint32_t hi = pf > ef ? pf : ef;

				if (!any_below(s, hi, is_budget(s) ? pf : hi))
					return;
			}
		}
	}
}

/*
 * A pass when nothing changed since the last one but new jobs arrived (no
 * GPUs freed, no recalculation, no protection ended): every job that
 * failed then would fail again, so only the arrivals are tried, in pass
 * order.  A preemption frees leftovers, so it is followed by a full pass.
 */
static struct sim *arr_sim;

static int arr_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t gx = arr_sim->grank[group_of(arr_sim, x)];
	uint32_t gy = arr_sim->grank[group_of(arr_sim, y)];

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return q_before(arr_sim, x, y) ? -1 : q_before(arr_sim, y, x);
}

static void pass_arrivals(struct sim *s, int64_t now)
{
	size_t k;
	bool again = false;

	s->r->passes++;
	arr_sim = s;
	qsort(s->arrivals, s->narrivals, sizeof(*s->arrivals), arr_cmp);
	for (k = 0; k < s->narrivals && !s->err; k++) {
		uint32_t job = s->arrivals[k], lo = 0, hi, nn;
		const struct sim_job *j = &s->w->jobs[job];
		struct qv *q = &s->q[group_of(s, job)];
		bool within = true;
		uint64_t mask;

		if (s->js[job].st != J_PENDING)
			continue;
		if (k && s->arrivals[k - 1] == job)
			continue;
		hi = q->n;
		while (lo < hi) {	/* its place in its queue */
			uint32_t mid = lo + (hi - lo) / 2;

			if (q_before(s, q->v[mid].job, job))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo >= q->n || q->v[lo].job != job) {
			snprintf(s->msg, s->msglen, "queue out of order (a bug)");
			s->err = -1;
			return;
		}
		if (!is_budget(s))
			within = s->used_np[j->team_node] + j->gpus <=
				 s->cap_np[j->team_node];
		nn = sim_place(&s->cl, j->gpus, s->nodebuf, &mask);
		if (nn) {
			dequeue_at(s, q, lo);
			start(s, job, now, nn, mask,
			      is_budget(s) ? !allocated(j) : !within);
			continue;
		}
		if (!(is_budget(s) ? allocated(j) : within))
			continue;
		dequeue_at(s, q, lo);
		if (try_preempt(s, job, now)) {
			again = true;
			continue;
		}
		enqueue_at(s, q, lo, job);
	}
	if (again && !s->err)
		pass(s, now);
}

/* --------------------------------------------------------------- run */

static void finish(struct sim *s, int64_t t_end)
{
	size_t i;

	for (i = 0; i < s->w->njobs; i++) {
		struct js *x = &s->js[i];

		if (x->st == J_RUNNING || x->st == J_STOPPING) {
			int64_t e = x->start < t_end ? t_end : x->start;

			add_seg(s, (uint32_t)i, e, false, false);
			s->r->jobs[i].end = e;
			s->r->jobs[i].how = SIM_END_UNFINISHED;
		} else if (x->st == J_PENDING || x->st == J_WAITING ||
			   x->st == J_FUTURE) {
			s->r->jobs[i].how = SIM_END_UNFINISHED;
		}
	}
	s->r->t_end = t_end;
}

static int setup(struct sim *s)
{
	size_t n = s->w->njobs, i;
	uint32_t na = s->t->n;
	int rc;

	s->r->jobs = calloc(n ? n : 1, sizeof(*s->r->jobs));
	s->r->njobs = n;
	s->js = calloc(n ? n : 1, sizeof(*s->js));
	s->ngroups = is_budget(s) ? 2 * na : 3;
	s->q = calloc(s->ngroups, sizeof(*s->q));
	s->gorder = calloc(2 * na + 3, sizeof(*s->gorder));
	s->running = calloc(n ? n : 1, sizeof(*s->running));
	s->cand = calloc(n ? n : 1, sizeof(*s->cand));
	s->rr = calloc(n ? n : 1, sizeof(*s->rr));
	s->grank = calloc(2 * na + 3, sizeof(*s->grank));
	s->vict = calloc(n ? n : 1, sizeof(*s->vict));
	s->nodebuf = calloc(s->p->nodes, sizeof(*s->nodebuf));
	s->cap_np = calloc(na, sizeof(*s->cap_np));
	s->used_np = calloc(na, sizeof(*s->used_np));
	s->cur_a = calloc(na, sizeof(double));
	s->cur_u = calloc(na, sizeof(double));
	s->usage = calloc(na, sizeof(double));
	s->par = calloc(na + 1, sizeof(uint32_t));
	s->dep = calloc(na + 1, sizeof(uint32_t));
	s->snorm = calloc(na + 1, sizeof(double));
	s->committed = calloc(na, sizeof(double));
	if (!s->r->jobs || !s->js || !s->q || !s->gorder || !s->running ||
	    !s->cand || !s->vict || !s->rr || !s->grank || !s->nodebuf || !s->cap_np ||
	    !s->used_np || !s->cur_a || !s->cur_u || !s->usage ||
	    !s->par || !s->dep || !s->snorm ||
	    !s->committed) {
		oom(s);
		return -1;
	}
	if (sim_cluster_init(&s->cl, s->p->nodes, s->p->gpus_per_node) ||
	    sim_cluster_init(&s->tmp, s->p->nodes, s->p->gpus_per_node)) {
		snprintf(s->msg, s->msglen, "bad cluster: %u nodes x %u GPUs "
			 "(1..64 GPUs per node)", s->p->nodes,
			 s->p->gpus_per_node);
		return -1;
	}
	s->cl.best_fit = s->tmp.best_fit = s->p->best_fit;
	for (i = 0; i < n; i++) {
		s->r->jobs[i].first_start = SIM_NEVER;
		s->r->jobs[i].end = SIM_NEVER;
		s->js[i].remaining = s->w->jobs[i].duration;
	}
	for (i = 0; i < 3; i++)
		s->grank[i] = (uint32_t)i;	/* baseline: HIGH, NORMAL, LOW */
	for (i = 0; i < na; i++) {
		const struct sb_tree_node *nd = sb_tree_node(s->t->tree,
							     (uint32_t)i);

		s->par[i] = nd->parent;	/* SB_NONE at the top: all equal */
		s->dep[i] = nd->depth;
		s->snorm[i] = nd->shares_norm;
	}
	for (i = 0; i < na; i++) {
		double cap = sb_tree_node(s->t->tree, (uint32_t)i)->entitled *
			     (double)s->p->nodes * s->p->gpus_per_node;

		s->cap_np[i] = (uint32_t)(cap + 1e-9);
	}
	if (is_budget(s)) {
		rc = sb_ledger_new(s->t->tree, s->p->cfg.lookback_window,
				   s->p->cfg.bucket_width, &s->ledger);
		if (rc == SB_OK)
			rc = sb_standing_new(s->t->tree, &s->st);
		if (rc != SB_OK) {
			core_fail(s, "ledger/standing", rc);
			return -1;
		}
	}
	return 0;
}

static void teardown(struct sim *s)
{
	uint32_t g;

	for (g = 0; s->q && g < s->ngroups; g++)
		free(s->q[g].v);
	free(s->q);
	free(s->js);
	free(s->heap);
	free(s->gorder);
	free(s->running);
	free(s->cand);
	free(s->vict);
	free(s->rr);
	free(s->holds);
	free(s->grank);
	free(s->arrivals);
	free(s->prot);
	free(s->nodebuf);
	free(s->cap_np);
	free(s->used_np);
	free(s->cur_a);
	free(s->cur_u);
	free(s->usage);
	free(s->par);
	free(s->dep);
	free(s->snorm);
	free(s->committed);
	free(s->fresh);
	sim_cluster_free(&s->cl);
	sim_cluster_free(&s->tmp);
	sb_ledger_free(s->ledger);
	sb_standing_free(s->st);
}

int sim_run(const struct sim_workload *w, const struct sim_tree *t,
	    const struct sim_params *p, struct sim_result *r, char *msg,
	    size_t msglen)
{
	struct sim s = { .w = w, .t = t, .p = p, .r = r, .msg = msg,
			 .msglen = msglen };
	int64_t now = 0, cp = p->cfg.calc_period > 0 ? p->cfg.calc_period : 1;
	int64_t last = 0;	/* time of the last event other than a tick */
	size_t stuck = 0;

	memset(r, 0, sizeof(*r));
	if (msglen)
		msg[0] = '\0';
	if (setup(&s))
		goto out;
	if (w->njobs)
		now = w->jobs[0].submit;
	if (is_budget(&s)) {
		s.tprev = now - now % cp;
		tick(&s, s.tprev);
		push(&s, s.tprev + cp, EV_TICK, 0, 0);
	}
	while (!s.err) {
		int64_t tn = INT64_MAX;
		bool real = false;

		if (s.next_submit < w->njobs)
			tn = w->jobs[s.next_submit].submit;
		if (s.nheap && s.heap[0].t < tn)
			tn = s.heap[0].t;
		if (tn == INT64_MAX)
			break;
		if (p->until != SIM_NEVER && tn > p->until) {
			now = p->until;
			break;
		}
		/* idle: nothing pending or running; jump the ticks */
		if (is_budget(&s) && !s.npending && !s.nrunning &&
		    s.nheap == 1 && s.heap[0].type == EV_TICK &&
		    s.next_submit < w->njobs &&
		    w->jobs[s.next_submit].submit -
		    w->jobs[s.next_submit].submit % cp > s.heap[0].t) {
			int64_t sub = w->jobs[s.next_submit].submit;

			s.nheap = 0;	/* only the tick is in the heap */
			push(&s, sub - sub % cp, EV_TICK, 0, 0);
			continue;
		}
		now = tn;
		while (!s.err) {
			if (s.nheap && s.heap[0].t == now) {
				struct ev e = pop(&s);
				struct js *x = &s.js[e.job];

				r->events++;
				switch (e.type) {
				case EV_TICK:
					tick(&s, now);
					if (s.next_submit < w->njobs ||
					    s.npending || s.nrunning ||
					    s.nheap)
						push(&s, now + cp, EV_TICK, 0,
						     0);
					break;
				case EV_END:
					if (x->st != J_RUNNING ||
					    x->run != e.run)
						break;	/* stale */
					real = true;
					s.dirty = true;	/* GPUs freed */
					unrun(&s, e.job);
					charge_end(&s, e.job, now);
					add_seg(&s, e.job, now, false, false);
					x->st = J_DONE;
					r->jobs[e.job].end = now;
					r->jobs[e.job].how = SIM_END_DONE;
					break;
				case EV_STOP:
					if (x->st != J_STOPPING ||
					    x->run != e.run)
						break;
					real = true;
					stop(&s, e.job, now);
					break;
				case EV_RELEASE: {
					uint32_t nd = s.holds[e.job].node;
					uint64_t m = s.holds[e.job].mask;

					s.cl.free[nd] |= m;
					s.cl.nfree[nd] += (uint32_t)
						__builtin_popcountll(m);
					s.cl.total_free += (uint64_t)
						__builtin_popcountll(m);
					s.dirty = true;
					real = true;
					break;
				}
				case EV_ELIGIBLE:
					if (x->st != J_WAITING ||
					    x->run != e.run)
						break;
					real = true;
					enqueue(&s, e.job);
					break;
				}
			} else if (s.next_submit < w->njobs &&
				   w->jobs[s.next_submit].submit == now) {
				r->events++;
				real = true;
				enqueue(&s, (uint32_t)s.next_submit++);
			} else {
				break;
			}
		}
		if (real)
			last = now;
		if (!s.npending) {
			s.dirty = false;
			s.narrivals = 0;
		}
		if (!s.err && is_budget(&s) && prot_expired(&s, now))
			s.dirty = true;
		if (s.npending && !s.err && (s.dirty || s.narrivals)) {
			size_t before = s.nrunning;

			if (s.dirty || p->backfill == SIM_BACKFILL_NONE)
				pass(&s, now);
			else
				pass_arrivals(&s, now);
			s.dirty = false;
			s.narrivals = 0;
			/* Nothing can ever change: pending jobs, nothing
			 * running, no other event than ticks. */
			if (!real && !s.nrunning && before == 0 &&
			    s.next_submit >= w->njobs && s.nheap <= 1 &&
			    ++stuck > 2) {
				snprintf(msg, msglen, "pending jobs can never "
					 "start (a bug)");
				s.err = -1;
			}
		}
	}
	if (!s.err)
		finish(&s, p->until != SIM_NEVER ? now : last);
out:
	teardown(&s);
	return s.err ? -1 : 0;
}
