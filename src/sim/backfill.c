/*
 * backfill.c - Slurm's backfill reservations in the simulator
 * (--backfill reserve, the default).
 *
 * As sched/backfill does it: the pass takes pending jobs in priority
 * order; a job that cannot start now gets a reservation, the earliest time
 * enough GPUs are free for it and which GPUs those are, planned from the
 * running jobs' expected ends (the end of each run's time limit,
 * sim_job.time_limit, as Slurm plans: not the true end, which no
 * scheduler knows).  A lower job then starts only on GPUs no reservation
 * it would overlap needs: it may use reserved GPUs only if its time limit
 * ends (now + time limit) by the reservation's start.
 *
 * Slurm reserves for every job it tests (bf_max_job_test, or the top
 * bf_job_part_count_reserve of a partition); we reserve for the first
 * sim_params.reserve jobs that cannot start in a pass (default 1: the top
 * one), and a later reservation counts the GPUs of earlier ones as taken
 * for good (Slurm frees them at the earlier job's expected end): with a
 * few reservations, later ones are planned conservatively.
 *
 * The plan: every GPU gets the time it becomes free: now if free; the
 * preemption grace time for GPUs held by a stopping victim (its leftovers,
 * victims.c); the end of the run on it; never if an earlier reservation
 * holds it.  A job of at most a node's GPUs: the node where its g-th free
 * GPU comes first (lowest node on a tie), those g GPUs.  A multi-node job:
 * the k nodes that are whole first (lowest nodes on a tie), whole.  No
 * reservation when no plan exists (GPUs held by reservations for good).
 *
 * What a reservation does not stop: preemption.  A job that does not fit
 * even with the reserved GPUs may preempt as before (victims.c places it
 * on the real cluster); a job that fits only because of reserved GPUs does
 * not preempt, it waits.
 */
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Room for the reservations and their plan (setup, engine.c). */
int sim__bf_init(struct sim *s)
{
	uint32_t k = s->p->backfill == SIM_BACKFILL_RESERVE ? s->p->reserve : 0;
	size_t g = (size_t)s->p->nodes * s->p->gpus_per_node, i;

	if (!k)
		return 0;
	s->resv = calloc(k, sizeof(*s->resv));
	s->resv_nodes = calloc((size_t)k * s->p->nodes, sizeof(uint32_t));
	s->gpu_free_at = calloc(g, sizeof(*s->gpu_free_at));
	s->gpu_end_at = calloc(g, sizeof(*s->gpu_end_at));
	s->node_free_sorted = calloc(g, sizeof(*s->node_free_sorted));
	s->node_stale = calloc(s->p->nodes, sizeof(*s->node_stale));
	s->node_held = calloc(s->p->nodes, sizeof(*s->node_held));
	if (!s->node_free_sorted || !s->node_stale || !s->node_held) {
		sim__oom(s);
		return -1;
	}
	s->node_time = calloc(s->p->nodes, sizeof(*s->node_time));
	s->node_index = calloc(s->p->nodes, sizeof(*s->node_index));
	s->resv_cache_nodes = calloc(s->p->nodes, sizeof(*s->resv_cache_nodes));
	s->pending_alloc_by_rem =
		calloc(SIM_HIST_BINS, sizeof(*s->pending_alloc_by_rem));
	s->pending_unalloc_by_rem =
		calloc(SIM_HIST_BINS, sizeof(*s->pending_unalloc_by_rem));
	if (!s->pending_alloc_by_rem || !s->pending_unalloc_by_rem) {
		sim__oom(s);
		return -1;
	}
	if (!s->resv_cache_nodes || !s->resv || !s->resv_nodes ||
	    !s->gpu_free_at || !s->gpu_end_at || !s->node_time ||
	    !s->node_index ||
	    sim_cluster_init(&s->bf_cluster, s->p->nodes,
			     s->p->gpus_per_node)) {
		sim__oom(s);
		return -1;
	}
	s->bf_cluster.best_fit = s->p->best_fit;
	for (i = 0; i < g; i++)
		s->gpu_end_at[i] = SIM_NEVER;
	for (i = 0; i < s->p->nodes; i++)
		s->node_stale[i] = true;
	return 0;
}

void sim__bf_free(struct sim *s)
{
	free(s->resv);
	free(s->resv_nodes);
	free(s->gpu_free_at);
	free(s->gpu_end_at);
	free(s->node_free_sorted);
	free(s->node_stale);
	free(s->node_held);
	free(s->node_time);
	free(s->node_index);
	free(s->resv_cache_nodes);
	free(s->pending_alloc_by_rem);
	free(s->pending_unalloc_by_rem);
	sim_cluster_free(&s->bf_cluster);
}

/* Whether reservation @r binds @job: its job is still pending and comes
 * before @job in pass order. */
static bool binds(const struct sim *s, const struct sim_resv *r, uint32_t job)
{
	uint32_t gr, gj;

	if (r->job == job || s->job_state[r->job].state != J_PENDING)
		return false;
	gr = s->pass_rank[sim__group_of(s, r->job)];
	gj = s->pass_rank[sim__group_of(s, job)];
	if (gr != gj)
		return gr < gj;
	return sim__q_before(s, r->job, job);
}

/* Take @mask on the @nn nodes of s->placed_nodes out of @c where free there. */
static void take(struct sim_cluster *c, const uint32_t *nodes, uint32_t nn,
		 uint64_t mask)
{
	uint32_t a;

	for (a = 0; a < nn; a++) {
		uint64_t m = c->free[nodes[a]] & mask;
		uint32_t k = (uint32_t)__builtin_popcountll(m);

		c->free[nodes[a]] &= ~m;
		c->nfree[nodes[a]] -= k;
		c->total_free -= k;
	}
}

/* s->bf_cluster := the cluster as it is (its free GPUs copied). */
static void bf_copy(struct sim *s)
{
	memcpy(s->bf_cluster.free, s->cluster.free,
	       s->cluster.nodes * sizeof(*s->cluster.free));
	memcpy(s->bf_cluster.nfree, s->cluster.nfree,
	       s->cluster.nodes * sizeof(*s->cluster.nfree));
	s->bf_cluster.total_free = s->cluster.total_free;
	s->bf_cluster.nofit = UINT32_MAX;
}

/* s->bf_cluster := the cluster less the GPUs of reservation @r. */
static void bf_build(struct sim *s, const struct sim_resv *r)
{
	bf_copy(s);
	if (r)
		take(&s->bf_cluster, s->resv_nodes + r->node_off, r->nnodes,
		     r->mask);
	s->bf_cluster_ok = true;
	s->bf_fail_gpus = UINT32_MAX;
}

/* One reservation (the default): s->bf_cluster is kept, the cluster less its
 * GPUs, as jobs are placed, so a try costs a placement, not a copy; and
 * a job as big as one that did not fit there is not tried there again
 * (s->bf_fail_gpus; s->bf_cluster only shrinks until rebuilt). */
static uint32_t place_one(struct sim *s, uint32_t job, int64_t end,
			  uint64_t *mask, bool *blocked)
{
	const struct sim_resv *r = &s->resv[0];
	uint32_t gpus = s->w->jobs[job].gpus, nn = 0;

	if (!s->bf_cluster_ok)
		bf_build(s, r);
	if (r->t >= end || !binds(s, r, job)) {
		nn = sim_place(&s->cluster, gpus, s->placed_nodes, mask);
		if (nn)
			take(&s->bf_cluster, s->placed_nodes, nn, *mask);
		return nn;
	}
	if (gpus < s->bf_fail_gpus)
		nn = sim_place(&s->bf_cluster, gpus, s->placed_nodes, mask);
	if (nn) {
		take(&s->cluster, s->placed_nodes, nn, *mask);
		return nn;
	}
	if (gpus < s->bf_fail_gpus)
		s->bf_fail_gpus = gpus;
	*blocked = sim__cl_fits(s, gpus);
	return 0;
}

bool sim__bf_wants(const struct sim *s, uint32_t job)
{
	uint32_t k;

	if (s->p->backfill != SIM_BACKFILL_RESERVE)
		return false;
	if (s->nresv_tried < s->p->reserve)
		return true;
	for (k = 0; k < s->nresv; k++)
		if (s->resv[k].job != job &&
		    s->job_state[s->resv[k].job].state == J_PENDING &&
		    !binds(s, &s->resv[k], job))
			return true;
	return false;
}

uint32_t sim__bf_place(struct sim *s, uint32_t job, int64_t now,
		       uint64_t *mask, bool *blocked)
{
	const struct sim_job *j = &s->w->jobs[job];
	int64_t end = now + s->w->jobs[job].time_limit;
	uint32_t k, a, nn;
	bool any = false;

	*blocked = false;
	if (s->nresv == 1)
		return place_one(s, job, end, mask, blocked);
	for (k = 0; k < s->nresv && !any; k++)
		any = s->resv[k].t < end && binds(s, &s->resv[k], job);
	if (!any)
		return sim_place(&s->cluster, j->gpus, s->placed_nodes, mask);
	if (!sim_fits(&s->cluster, j->gpus))
		return 0;
	bf_copy(s);
	for (k = 0; k < s->nresv; k++) {
		const struct sim_resv *r = &s->resv[k];

		if (r->t >= end || !binds(s, r, job))
			continue;
		for (a = 0; a < r->nnodes; a++) {
			uint32_t nd = s->resv_nodes[r->node_off + a];
			uint64_t m = s->bf_cluster.free[nd] & r->mask;
			uint32_t c = (uint32_t)__builtin_popcountll(m);

			s->bf_cluster.free[nd] &= ~m;
			s->bf_cluster.nfree[nd] -= c;
			s->bf_cluster.total_free -= c;
		}
	}
	nn = sim_place(&s->bf_cluster, j->gpus, s->placed_nodes, mask);
	if (!nn) {
		*blocked = true;	/* it fits, but on reserved GPUs */
		return 0;
	}
	for (a = 0; a < nn; a++) {
		uint32_t nd = s->placed_nodes[a];

		s->cluster.free[nd] &= ~*mask;
		s->cluster.nfree[nd] -= (uint32_t)__builtin_popcountll(*mask);
		s->cluster.total_free -= (uint32_t)__builtin_popcountll(*mask);
	}
	return nn;
}

/* The g-th smallest of a node's @n GPU free times @t (insertion sort into
 * @v, at most 64 of them). */
static int64_t nth_time(const int64_t *t, uint32_t n, uint32_t g)
{
	int64_t v[64];
	uint32_t i, k;

	if (g == 1 || g == n) {	/* the first, the last: no sort */
		v[0] = t[0];
		for (i = 1; i < n; i++)
			if (g == 1 ? t[i] < v[0] : t[i] > v[0])
				v[0] = t[i];
		return v[0];
	}
	for (i = 0; i < n; i++) {
		for (k = i; k > 0 && v[k - 1] > t[i]; k--)
			v[k] = v[k - 1];
		v[k] = t[i];
	}
	return v[g - 1];
}

static const int64_t *cmp_t;	/* qsort(3) has no context argument */

static int node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (cmp_t[x] != cmp_t[y])
		return cmp_t[x] < cmp_t[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Node @i's GPUs' free times into @g (gpn of them): now if free, the end
 * of the run on it, @held if held by a stopping victim. */
static void node_times(const struct sim *s, uint32_t i, int64_t now,
		       int64_t held, int64_t *g)
{
	uint64_t f = s->cluster.free[i];
	const int64_t *e = s->gpu_end_at + (size_t)i * s->cluster.gpn;
	uint32_t k;

	for (k = 0; k < s->cluster.gpn; k++)
		g[k] = f >> k & 1 ? now : e[k] != SIM_NEVER ? e[k] : held;
}

/* node_gth() for a node that changed since its summary was built, or
 * that has held GPUs. */
static int64_t node_gth_slow(struct sim *s, uint32_t i, uint32_t g,
			     int64_t now, int64_t held)
{
	uint32_t gpn = s->cluster.gpn, k, n;
	int64_t *v = s->node_free_sorted + (size_t)i * gpn, t[64];

	if (s->node_stale[i]) {
		const int64_t *e = s->gpu_end_at + (size_t)i * gpn;
		uint64_t f = s->cluster.free[i];

		s->node_held[i] = 0;
		for (k = 0; k < gpn; k++) {
			int64_t x = f >> k & 1 ? INT64_MIN : e[k];

			if (!(f >> k & 1) && e[k] == SIM_NEVER) {
				s->node_held[i]++;
				x = INT64_MIN + 1;
			}
			for (n = k; n > 0 && v[n - 1] > x; n--)
				v[n] = v[n - 1];
			v[n] = x;
		}
		s->node_stale[i] = false;
	}
	if (s->node_held[i]) {
		node_times(s, i, now, held, t);
		return nth_time(t, gpn, g);
	}
	return v[g - 1] == INT64_MIN ? now : v[g - 1];
}

/* When node @i has @g GPUs free (g <= gpn), from its sorted summary
 * (s->node_free_sorted, rebuilt when the node changed); a node with held
 * GPUs is computed in full (their time depends on @now).  The common
 * case, a summary up to date and nothing held, inline; the rest in
 * node_gth_slow(). */
static inline int64_t node_gth(struct sim *s, uint32_t i, uint32_t g,
			       int64_t now, int64_t held)
{
	const int64_t *v;

	if (s->node_stale[i] || s->node_held[i])
		return node_gth_slow(s, i, g, now, held);
	v = s->node_free_sorted + (size_t)i * s->cluster.gpn;
	return v[g - 1] == INT64_MIN ? now : v[g - 1];
}

/* sim__bf_reserve() (engine.h).  Long (over 100 lines): one plan in three
 * cases sharing its locals and its end (made:): the cached first
 * reservation, a job within a node (the node whose GPUs free up first),
 * a multi-node job (the nodes that free up first, a partial selection for
 * up to 16 of them). */
void sim__bf_reserve(struct sim *s, uint32_t job, int64_t now)
{
	const struct sim_job *j = &s->w->jobs[job];
	uint32_t gpn = s->cluster.gpn, nodes = s->cluster.nodes, i, a, k, best;
	int64_t held = now + (sim__is_budget(s) ?
			      s->p->cfg.preempt.grace_time : 0);
	struct sim_resv *r;
	int64_t *g = s->gpu_free_at;

	if (s->p->backfill != SIM_BACKFILL_RESERVE ||
	    s->nresv_tried >= s->p->reserve)
		return;
	s->nresv_tried++;
	r = &s->resv[s->nresv];
	if (!s->nresv && s->resv_cache_ok && s->resv_cache_job == job &&
	    s->resv_cache_version == s->cluster_version) {
		if (s->resv_cache_none)
			return;
		*r = s->resv_cache;
		memcpy(s->resv_nodes + r->node_off, s->resv_cache_nodes,
		       r->nnodes * sizeof(*s->resv_cache_nodes));
		goto made;
	}
	s->resv_cache_ok = !s->nresv && !s->gpus_held;
	s->resv_cache_none = true;
	s->resv_cache_job = job;
	s->resv_cache_version = s->cluster_version;
	/* every GPU: when it is free; with no reservation yet, a node's
	 * summary tells when its g-th GPU is (node_gth) */
	if (s->nresv)
		for (i = 0; i < nodes; i++)
			node_times(s, i, now, held, g + (size_t)i * gpn);
	for (i = 0; i < s->nresv; i++)
		for (a = 0; a < s->resv[i].nnodes; a++) {
			uint32_t nd = s->resv_nodes[s->resv[i].node_off + a];

			for (k = 0; k < gpn; k++)
				if (s->resv[i].mask >> k & 1)
					g[nd * gpn + k] = INT64_MAX;
		}
	r->job = job;
	r->node_off = s->nresv * nodes;
	if (j->gpus <= gpn) {
		best = UINT32_MAX;
		for (i = 0; i < nodes; i++) {
			s->node_time[i] =
				s->nresv ? nth_time(g + i * gpn, gpn, j->gpus)
					 : node_gth(s, i, j->gpus, now, held);
			if (best == UINT32_MAX ||
			    s->node_time[i] < s->node_time[best])
				best = i;
		}
		if (s->node_time[best] == INT64_MAX)
			return;
		if (!s->nresv)
			node_times(s, best, now, held, g + best * gpn);
		r->t = s->node_time[best];
		r->nnodes = 1;
		r->mask = 0;
		s->resv_nodes[r->node_off] = best;
		/* its g GPUs free first, the lowest on a tie */
		for (a = 0; a < j->gpus; a++) {
			uint32_t pick = UINT32_MAX;

			for (k = 0; k < gpn; k++)
				if (!(r->mask >> k & 1) &&
				    (pick == UINT32_MAX ||
				     g[best * gpn + k] < g[best * gpn + pick]))
					pick = k;
			r->mask |= UINT64_C(1) << pick;
		}
	} else {
		uint32_t need = sim_nodes_needed(gpn, j->gpus);

		if (need <= 16 && need <= nodes) {
			/* the need first, in node_cmp() order (earlier free
			 * time, then lower index): one scan keeping them
			 * sorted (nodes come in index order, so a later one
			 * goes before a kept one only with an earlier time);
			 * last: the time of the need-th kept */
			uint32_t cnt = 0;
			int64_t t, last = 0;

			for (i = 0; i < nodes; i++) {
				t = s->nresv ? nth_time(g + i * gpn, gpn, gpn)
					     : node_gth(s, i, gpn, now, held);
				s->node_time[i] = t;
				if (cnt == need && t >= last)
					continue;
				if (cnt < need)
					cnt++;
				for (k = cnt - 1; k > 0 &&
				     t < s->node_time[s->node_index[k - 1]];
				     k--)
					s->node_index[k] = s->node_index[k - 1];
				s->node_index[k] = i;
				last = s->node_time[s->node_index[cnt - 1]];
			}
		} else {
			for (i = 0; i < nodes; i++) {
				s->node_time[i] =
					s->nresv ? nth_time(g + i * gpn, gpn,
							    gpn)
						 : node_gth(s, i, gpn, now,
							    held);
				s->node_index[i] = i;	/* for qsort */
			}
			cmp_t = s->node_time;
			qsort(s->node_index, nodes, sizeof(*s->node_index),
			      node_cmp);
		}
		if (need > nodes ||
		    s->node_time[s->node_index[need - 1]] == INT64_MAX)
			return;
		r->t = s->node_time[s->node_index[need - 1]];
		r->nnodes = need;
		r->mask = gpn == 64 ? UINT64_MAX : (UINT64_C(1) << gpn) - 1;
		memcpy(s->resv_nodes + r->node_off, s->node_index,
		       need * sizeof(*s->node_index));
	}
	if (s->resv_cache_ok) {
		s->resv_cache = *r;
		s->resv_cache_none = false;
		memcpy(s->resv_cache_nodes, s->resv_nodes + r->node_off,
		       r->nnodes * sizeof(*s->resv_cache_nodes));
	}
made:
	if (r->t < now)
		r->t = now;
	s->nresv++;
	s->bf_cluster_ok = false;	/* rebuilt with it */
	s->r->reservations++;
}
