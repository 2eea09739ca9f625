/*
 * queue.c - what waits in the simulator: the event heap (ordered by time,
 * then event type, then job), the heap of protection ends (when a running
 * allocated job's minimum runtime is over, so a pass may preempt it), and
 * the pending queues.
 *
 * Pending queues: one per group, each kept sorted.  Budget policy: a group
 * per association and tier (allocated groups 0..n-1, unallocated n..2n-1),
 * passed in the standing's order (charge.c); inside a group, in-team
 * priority, the resumed bit, original submit, input order (the low bits of
 * sb_priority_job() and Slurm's tie-breaks).  Baseline: one group per class,
 * HIGH first, FIFO inside.  Since every job of one group has the same
 * priority apart from those in-group keys, this order is the order of
 * sb_priority_job() over all pending jobs.
 */
#include <stdlib.h>
#include <string.h>

#include "sb/priority.h"
#include "engine.h"

/* ------------------------------------------------------------ the events */

static bool ev_less(const struct ev *a, const struct ev *b)
{
	if (a->t != b->t)
		return a->t < b->t;
	if (a->type != b->type)
		return a->type < b->type;
	return a->job < b->job;
}

void sim__push(struct sim *s, int64_t t, uint32_t type, uint32_t job,
	       uint32_t run)
{
	size_t i;

	if (s->nheap == s->heap_cap) {
		size_t cap = s->heap_cap ? s->heap_cap * 2 : 1024;
		struct ev *h = realloc(s->heap, cap * sizeof(*h));

		if (!h) {
			sim__oom(s);
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

/* The first event; the heap must not be empty. */
struct ev sim__pop(struct sim *s)
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

/* ------------------------------------------------------ protection ends */

/* Protection ends: a min-heap of (start + min runtime, job, run). */
void sim__prot_push(struct sim *s, int64_t t, uint32_t job, uint32_t run)
{
	size_t i;

	if (s->nprot == s->prot_cap) {
		size_t cap = s->prot_cap ? s->prot_cap * 2 : 1024;
		struct ev *h = realloc(s->prot, cap * sizeof(*h));

		if (!h) {
			sim__oom(s);
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
bool sim__prot_expired(struct sim *s, int64_t now)
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
		    s->js[top.job].run == top.run) {
			const struct js *x = &s->js[top.job];

			any = true;
			sim__room_changed(s, s->r->nodes + x->node_off,
					  x->nnodes);
		}
	}
	return any;
}

/* --------------------------------------------------------------- queues */

uint32_t sim__group_of(const struct sim *s, uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	if (sim__is_budget(s))
		return (sim__allocated(s, job) ? 0 : s->t->n) + j->assoc;
	return (uint32_t)(2 - sim__bclass(j));
}

/* Order inside a group: a before b?  Budget: in-team priority, resumed
 * bit (the low bits of sb_priority_job), original submit (a job its user
 * resubmitted after a cancel: the resubmission), input order.  Baseline:
 * the same submit, input order. */
bool sim__q_before(const struct sim *s, uint32_t a, uint32_t b)
{
	const struct sim_job *x = &s->w->jobs[a], *y = &s->w->jobs[b];

	if (sim__is_budget(s)) {
		uint32_t px = (x->prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX :
			       x->prio) << 1 | s->js[a].resumed;
		uint32_t py = (y->prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX :
			       y->prio) << 1 | s->js[b].resumed;

		if (px != py)
			return px > py;
	}
	if (s->js[a].submit != s->js[b].submit)
		return s->js[a].submit < s->js[b].submit;
	return a < b;
}

/* The first position of @q whose job is not before @job (binary search):
 * where @job is, or would go. */
uint32_t sim__q_find(const struct sim *s, const struct qv *q, uint32_t job)
{
	uint32_t lo = 0, hi = q->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sim__q_before(s, q->v[mid].job, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void gmin_add(struct qv *q, uint32_t gpus)
{
	if (q->n == 1) {
		q->gmin = gpus;
		q->gmin_ok = true;
	} else if (q->gmin_ok && gpus < q->gmin) {
		q->gmin = gpus;
	}
}

/* The fewest GPUs a job of @q asks for (UINT32_MAX when empty). */
uint32_t sim__gmin(struct qv *q)
{
	uint32_t i;

	if (!q->gmin_ok) {
		uint8_t m = 255;

		for (i = 0; i < q->n; i++)	/* the bytes (vectorised) */
			m = q->gb[i] < m ? q->gb[i] : m;
		q->gmin = m;
		if (m == 255) {		/* the entries: 255 or more */
			q->gmin = UINT32_MAX;
			for (i = 0; i < q->n; i++)
				if (q->v[i].gpus < q->gmin)
					q->gmin = q->v[i].gpus;
		}
		q->gmin_ok = true;
	}
	return q->gmin;
}

static uint32_t hbin(uint32_t g)
{
	return g > 256 ? 257 : g;
}

static uint32_t rbucket(int64_t rem)
{
	return rem <= 0 ? 0 : 64 - (uint32_t)__builtin_clzll((uint64_t)rem);
}

static void hist_add(struct sim *s, uint32_t job, int d)
{
	bool a = sim__allocated(s, job);
	uint32_t *h = a ? s->hist_a : s->hist_u;
	uint32_t b = hbin(s->w->jobs[job].gpus);

	h[b] += (uint32_t)d;
	if (s->hr_a)
		(a ? s->hr_a : s->hr_u)[b][rbucket(s->js[job].remaining)] +=
			(uint32_t)d;
}

bool sim__any_short(const struct sim *s, uint32_t thr, int64_t d)
{
	uint32_t g, b, top = rbucket(d);

	for (g = 1; g < SIM_HIST_BINS && g < thr; g++) {
		if (!s->hist_a[g] && !s->hist_u[g])
			continue;
		for (b = 0; b <= top && b < SIM_RBUCKETS; b++)
			if (s->hr_a[g][b] || s->hr_u[g][b])
				return true;
	}
	return false;
}

/* Insert @job at position @i of @q (room is there). */
static void insert_at(struct sim *s, struct qv *q, uint32_t i, uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	memmove(q->v + i + 1, q->v + i, (q->n - i) * sizeof(*q->v));
	memmove(q->gb + i + 1, q->gb + i, q->n - i);
	memmove(q->rb + i + 1, q->rb + i, q->n - i);
	q->v[i].job = job;
	q->v[i].gpus = j->gpus;
	q->v[i].team = j->team_node;
	q->v[i].rem = s->js[job].remaining > (int64_t)UINT32_MAX ?
		      UINT32_MAX : (uint32_t)s->js[job].remaining;
	q->gb[i] = j->gpus > 255 ? 255 : (uint8_t)j->gpus;
	q->rb[i] = (uint8_t)rbucket(q->v[i].rem);
	q->n++;
	gmin_add(q, j->gpus);
	s->npending++;
	hist_add(s, job, 1);
}

/* @job becomes pending at @t: into its queue, and the arrivals a pass
 * tries first (engine.c). */
void sim__enqueue(struct sim *s, uint32_t job, int64_t t)
{
	struct qv *q = &s->q[sim__group_of(s, job)];

	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16;
		struct qe *v = realloc(q->v, cap * sizeof(*v));
		uint8_t *gb;

		if (!v) {
			sim__oom(s);
			return;
		}
		q->v = v;
		gb = realloc(q->gb, cap);
		if (!gb) {
			sim__oom(s);
			return;
		}
		q->gb = gb;
		gb = realloc(q->rb, cap);
		if (!gb) {
			sim__oom(s);
			return;
		}
		q->rb = gb;
		q->cap = cap;
	}
	if (s->narrivals == s->arrivals_cap) {
		size_t cap = s->arrivals_cap ? 2 * s->arrivals_cap : 256;
		uint32_t *v = realloc(s->arrivals, cap * sizeof(*v));

		if (!v) {
			sim__oom(s);
			return;
		}
		s->arrivals = v;
		s->arrivals_cap = cap;
	}
	insert_at(s, q, sim__q_find(s, q, job), job);
	s->js[job].st = J_PENDING;
	s->js[job].eligible = t;
	s->js[job].pf_seq = 0;	/* no failed preemption try yet */
	s->enq_mid = true;
	s->arrivals[s->narrivals++] = job;
}

void sim__dequeue_at(struct sim *s, struct qv *q, uint32_t i)
{
	uint32_t job = q->v[i].job;

	memmove(q->v + i, q->v + i + 1, (q->n - i - 1) * sizeof(*q->v));
	memmove(q->gb + i, q->gb + i + 1, q->n - i - 1);
	memmove(q->rb + i, q->rb + i + 1, q->n - i - 1);
	q->n--;
	if (s->w->jobs[job].gpus <= q->gmin)
		q->gmin_ok = false;
	s->npending--;
	hist_add(s, job, -1);
}

/* Any pending job that could still do something: an allocated one with
 * fewer GPUs than @athr, or an unallocated one with fewer than @uthr. */
bool sim__any_below(const struct sim *s, uint32_t athr, uint32_t uthr)
{
	uint32_t g;

	for (g = 1; g < SIM_HIST_BINS; g++) {
		if (g < athr && s->hist_a[g])
			return true;
		if (g < uthr && s->hist_u[g])
			return true;
		if (g >= athr && g >= uthr)
			break;
	}
	return false;
}

uint32_t sim__q_next_below(const struct qv *q, uint32_t i, uint32_t lim)
{
	const uint64_t ones = UINT64_C(0x0101010101010101);
	const uint64_t highs = UINT64_C(0x8080808080808080);

	if (lim > 255)
		return i;	/* every job may be below it */
	if (lim <= 128) {
		/* eight at a time: a word has a byte < lim (lim <= 128) iff
		 * (x - lim per byte) & ~x & the high bits != 0 */
		for (; i + 8 <= q->n; i += 8) {
			uint64_t x;

			memcpy(&x, q->gb + i, sizeof(x));
			if ((x - ones * lim) & ~x & highs)
				break;
		}
	}
	for (; i < q->n && q->gb[i] >= lim; i++)
		;
	return i;
}
