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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/priority.h"
#include "engine.h"

/* ------------------------------------------------------------ the events */

static bool ev_less(const struct event *a, const struct event *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->type != b->type)
		return a->type < b->type;
	return a->job < b->job;
}

void sim__push(struct sim *s, int64_t t, uint32_t type, uint32_t job,
	       uint32_t run)
{
	size_t i;

	if (s->nevents == s->events_cap) {
		size_t cap = s->events_cap ? s->events_cap * 2 : 1024;
		struct event *h = realloc(s->events, cap * sizeof(*h));

		if (!h) {
			sim__oom(s);
			return;
		}
		s->events = h;
		s->events_cap = cap;
	}
	i = s->nevents++;
	s->events[i] = (struct event){ t, type, job, run };
	while (i) {
		size_t up = (i - 1) / 2;
		struct event tmp;

		if (!ev_less(&s->events[i], &s->events[up]))
			break;
		tmp = s->events[i];
		s->events[i] = s->events[up];
		s->events[up] = tmp;
		i = up;
	}
}

/* The first event; the heap must not be empty. */
struct event sim__pop(struct sim *s)
{
	struct event top = s->events[0];
	size_t i = 0;

	s->events[0] = s->events[--s->nevents];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct event tmp;

		if (l < s->nevents && ev_less(&s->events[l], &s->events[m]))
			m = l;
		if (l + 1 < s->nevents &&
		    ev_less(&s->events[l + 1], &s->events[m]))
			m = l + 1;
		if (m == i)
			break;
		tmp = s->events[i];
		s->events[i] = s->events[m];
		s->events[m] = tmp;
		i = m;
	}
	return top;
}

/* ------------------------------------------------------ protection ends */

/* Protection ends: a min-heap of (start + min runtime, job, run). */
void sim__prot_push(struct sim *s, int64_t t, uint32_t job, uint32_t run)
{
	size_t i;

	if (s->nprot_ends == s->prot_ends_cap) {
		size_t cap = s->prot_ends_cap ? s->prot_ends_cap * 2 : 1024;
		struct event *h = realloc(s->prot_ends, cap * sizeof(*h));

		if (!h) {
			sim__oom(s);
			return;
		}
		s->prot_ends = h;
		s->prot_ends_cap = cap;
	}
	i = s->nprot_ends++;
	s->prot_ends[i] = (struct event){ t, 0, job, run };
	while (i && s->prot_ends[i].time < s->prot_ends[(i - 1) / 2].time) {
		struct event tmp = s->prot_ends[i];

		s->prot_ends[i] = s->prot_ends[(i - 1) / 2];
		s->prot_ends[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
}

/* Did a running job's protection end since the last pass?  Pops them. */
bool sim__prot_expired(struct sim *s, int64_t now)
{
	bool any = false;

	while (s->nprot_ends && s->prot_ends[0].time <= now) {
		struct event top = s->prot_ends[0];
		size_t i = 0;

		s->prot_ends[0] = s->prot_ends[--s->nprot_ends];
		for (;;) {
			size_t l = 2 * i + 1, m = i;
			struct event tmp;

			if (l < s->nprot_ends &&
			    s->prot_ends[l].time < s->prot_ends[m].time)
				m = l;
			if (l + 1 < s->nprot_ends &&
			    s->prot_ends[l + 1].time < s->prot_ends[m].time)
				m = l + 1;
			if (m == i)
				break;
			tmp = s->prot_ends[i];
			s->prot_ends[i] = s->prot_ends[m];
			s->prot_ends[m] = tmp;
			i = m;
		}
		if (s->job_state[top.job].state == J_RUNNING &&
		    s->job_state[top.job].run == top.run) {
			const struct job_state *x = &s->job_state[top.job];

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
		return s->job_state[job].lane ? s->lane_group :
		       (sim__allocated(s, job) ? 0 : s->t->n) + j->assoc;
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
			       x->prio) << 1 | s->job_state[a].resumed;
		uint32_t py = (y->prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX :
			       y->prio) << 1 | s->job_state[b].resumed;

		if (px != py)
			return px > py;
	}
	if (s->job_state[a].submit != s->job_state[b].submit)
		return s->job_state[a].submit < s->job_state[b].submit;
	return a < b;
}

/* The first position of @q whose job is not before @job (binary search):
 * where @job is, or would go. */
uint32_t sim__q_find(const struct sim *s, const struct pending_queue *q,
		     uint32_t job)
{
	uint32_t lo = 0, hi = q->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sim__q_before(s, q->entries[mid].job, job))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void gmin_add(struct pending_queue *q, uint32_t gpus)
{
	if (q->n == 1) {
		q->min_gpus = gpus;
		q->min_gpus_ok = true;
	} else if (q->min_gpus_ok && gpus < q->min_gpus) {
		q->min_gpus = gpus;
	}
}

/* The fewest GPUs a job of @q asks for (UINT32_MAX when empty). */
uint32_t sim__gmin(struct pending_queue *q)
{
	uint32_t i;

	if (!q->min_gpus_ok) {
		uint32_t m = 0;

		while (m < 255 && (!q->by_gpus || !q->by_gpus[m]))
			m++;	/* the first bin in use */
		q->min_gpus = m;
		if (m == 255) {		/* the entries: 255 or more */
			q->min_gpus = UINT32_MAX;
			for (i = 0; i < q->n; i++)
				if (q->entries[i].gpus < q->min_gpus)
					q->min_gpus = q->entries[i].gpus;
		}
		q->min_gpus_ok = true;
	}
	return q->min_gpus;
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
	uint32_t *h = a ? s->pending_alloc_by_gpus : s->pending_unalloc_by_gpus;
	uint32_t b = hbin(s->w->jobs[job].gpus);

	h[b] += (uint32_t)d;
	if (s->pending_alloc_by_rem) {
		uint32_t (*by_rem)[SIM_RBUCKETS] =
			a ? s->pending_alloc_by_rem : s->pending_unalloc_by_rem;

		by_rem[b][rbucket(s->w->jobs[job].time_limit)] += (uint32_t)d;
	}
}

bool sim__any_short(const struct sim *s, uint32_t thr, int64_t d)
{
	uint32_t g, b, top = rbucket(d);

	for (g = 1; g < SIM_HIST_BINS && g < thr; g++) {
		if (!s->pending_alloc_by_gpus[g] &&
		    !s->pending_unalloc_by_gpus[g])
			continue;
		for (b = 0; b <= top && b < SIM_RBUCKETS; b++)
			if (s->pending_alloc_by_rem[g][b] ||
			    s->pending_unalloc_by_rem[g][b])
				return true;
	}
	return false;
}

/* Insert @job at position @i of @q (room is there). */
static void insert_at(struct sim *s, struct pending_queue *q, uint32_t i,
		      uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	memmove(q->entries + i + 1, q->entries + i,
		(q->n - i) * sizeof(*q->entries));
	memmove(q->gpus_byte + i + 1, q->gpus_byte + i, q->n - i);
	memmove(q->rem_bits + i + 1, q->rem_bits + i, q->n - i);
	if (q->team_w) {
		memmove(q->team_w + i + 1, q->team_w + i,
			(q->n - i) * sizeof(*q->team_w));
		q->team_w[i] = (uint16_t)j->team_node;
	}
	q->entries[i].job = job;
	q->entries[i].gpus = j->gpus;
	q->entries[i].team = j->team_node;
	q->entries[i].limit =
		j->time_limit > (int64_t)UINT32_MAX
			? UINT32_MAX
			: (uint32_t)j->time_limit;
	q->gpus_byte[i] = j->gpus > 255 ? 255 : (uint8_t)j->gpus;
	q->rem_bits[i] = (uint8_t)rbucket(q->entries[i].limit);
	q->by_gpus[q->gpus_byte[i]]++;
	q->n++;
	gmin_add(q, j->gpus);
	s->npending++;
	hist_add(s, job, 1);
}

/* Room in @q for one more entry; -1 when out of memory. */
static int q_room(struct sim *s, struct pending_queue *q)
{
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 16;
		struct queue_entry *v = realloc(q->entries, cap * sizeof(*v));
		uint8_t *gb;

		if (!v) {
			sim__oom(s);
			return -1;
		}
		q->entries = v;
		gb = realloc(q->gpus_byte, cap);
		if (!gb) {
			sim__oom(s);
			return -1;
		}
		q->gpus_byte = gb;
		gb = realloc(q->rem_bits, cap);
		if (!gb) {
			sim__oom(s);
			return -1;
		}
		q->rem_bits = gb;
		if (s->team_thr) {
			uint16_t *tw = realloc(q->team_w, cap * sizeof(*tw));

			if (!tw) {
				sim__oom(s);
				return -1;
			}
			q->team_w = tw;
		}
		if (!q->by_gpus) {
			q->by_gpus = calloc(256, sizeof(*q->by_gpus));
			if (!q->by_gpus) {
				sim__oom(s);
				return -1;
			}
		}
		q->cap = cap;
	}
	return 0;
}

/* @job becomes pending at @t: into its queue (the lane's if it enters
 * it, lane.c), and the arrivals a pass tries first (pass.c). */
void sim__enqueue(struct sim *s, uint32_t job, int64_t t)
{
	struct pending_queue *q;

	if (s->lane_on)
		sim__lane_admit(s, job, t);
	q = &s->queues[sim__group_of(s, job)];
	if (q_room(s, q))
		return;
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
	s->job_state[job].state = J_PENDING;
	s->job_state[job].eligible_at = t;
	s->job_state[job].queued_at = t;
	s->job_state[job].fail_room_seq = 0;	/* no failed try yet */
	s->queued_mid_pass = true;
	s->arrivals[s->narrivals++] = job;
}

void sim__q_move_to_lane(struct sim *s, uint32_t job)
{
	struct pending_queue *q = &s->queues[sim__group_of(s, job)];
	uint32_t i = sim__q_find(s, q, job);

	if (i >= q->n || q->entries[i].job != job) {
		snprintf(s->msg, s->msglen, "lane: job not in its queue (a bug)");
		s->err = -1;
		return;
	}
	sim__dequeue_at(s, q, i);
	s->job_state[job].lane = true;
	q = &s->queues[s->lane_group];
	if (q_room(s, q))
		return;
	insert_at(s, q, sim__q_find(s, q, job), job);
}

void sim__dequeue_at(struct sim *s, struct pending_queue *q, uint32_t i)
{
	uint32_t job = q->entries[i].job;

	q->by_gpus[q->gpus_byte[i]]--;
	memmove(q->entries + i, q->entries + i + 1,
		(q->n - i - 1) * sizeof(*q->entries));
	if (q->team_w)
		memmove(q->team_w + i, q->team_w + i + 1,
			(q->n - i - 1) * sizeof(*q->team_w));
	memmove(q->gpus_byte + i, q->gpus_byte + i + 1, q->n - i - 1);
	memmove(q->rem_bits + i, q->rem_bits + i + 1, q->n - i - 1);
	q->n--;
	if (s->w->jobs[job].gpus <= q->min_gpus)
		q->min_gpus_ok = false;
	s->npending--;
	hist_add(s, job, -1);
}

/* Any pending job that could still do something: an allocated one with
 * fewer GPUs than @athr, or an unallocated one with fewer than @uthr. */
bool sim__any_below(const struct sim *s, uint32_t athr, uint32_t uthr)
{
	uint32_t g;

	for (g = 1; g < SIM_HIST_BINS; g++) {
		if (g < athr && s->pending_alloc_by_gpus[g])
			return true;
		if (g < uthr && s->pending_unalloc_by_gpus[g])
			return true;
		if (g >= athr && g >= uthr)
			break;
	}
	return false;
}

uint32_t sim__q_next_below(const struct pending_queue *q, uint32_t i,
			   uint32_t lim)
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

			memcpy(&x, q->gpus_byte + i, sizeof(x));
			if ((x - ones * lim) & ~x & highs)
				break;
		}
	}
	for (; i < q->n && q->gpus_byte[i] >= lim; i++)
		;
	return i;
}
