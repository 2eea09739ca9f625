/*
 * victim_order.c - the order in which a preemption try takes its
 * candidates (victims.c's take_until_fits()): by class, then by key
 * within a class, each class ordered only when the taking reaches it.
 */
#include "engine.h"

/* Victim order: the key (sb_preempt_victim_key(); baseline: class), the
 * work lost (baseline), the later start; then job index, so the order is
 * total.  For the budget policy this is sb_preempt_victim_cmp() with the
 * key computed once. */
static int cand_cmp(const void *a, const void *b)
{
	const struct victim_candidate *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->lost != y->lost)
		return x->lost < y->lost ? -1 : 1;
	if (x->start != y->start)
		return x->start > y->start ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* The candidates s->candidates[k..e) of one segment (struct
 * victim_order) from its 17th on, as a min-heap by cand_cmp() stored
 * backwards: heap index i at s->candidates[e-1-i] (the root at e - 1, the
 * heap's last element at k).  Sift heap index @i down in a heap of @m. */
static void heap_down(struct victim_candidate *c, size_t e, size_t m,
		      size_t i)
{
	struct victim_candidate x = c[e - 1 - i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, b;

		if (l >= m)
			break;
		b = r < m && cand_cmp(&c[e - 1 - r], &c[e - 1 - l]) < 0 ?
		    r : l;
		if (cand_cmp(&c[e - 1 - b], &x) >= 0)
			break;
		c[e - 1 - i] = c[e - 1 - b];
		i = b;
	}
	c[e - 1 - i] = x;
}

/* Budget: put s->candidates[0..@nc) in class order (the classes gather()
 * kept in the keys' top bits; input order within a class), by a counting
 * sort into s->cand_spare and a swap of the two arrays, and set @o's
 * segments to the classes. */
static void by_class(struct sim *s, size_t nc, struct victim_order *o)
{
	struct victim_candidate *c = s->candidates, *d = s->cand_spare;
	size_t cnt[4] = { 0 }, pos[4], i;
	unsigned k;

	for (i = 0; i < nc; i++)
		cnt[c[i].key >> 30]++;
	for (k = 0; k < 4; k++) {
		pos[k] = k ? o->end[k - 1] : 0;
		o->end[k] = pos[k] + cnt[k];
	}
	for (i = 0; i < nc; i++)
		d[pos[c[i].key >> 30]++] = c[i];
	s->candidates = d;
	s->cand_spare = c;
}

/* engine.h; the budget's classes by by_class(). */
void sim__order_init(struct sim *s, size_t nc, int64_t now,
		     const struct sb_preempt_party *me, struct victim_order *o)
{
	unsigned k;

	o->me = me;
	o->now = now;
	if (sim__is_budget(s)) {
		by_class(s, nc, o);
	} else {
		for (k = 0; k < 4; k++)
			o->end[k] = nc;
	}
	o->lo = 0;
	o->hi = 0;
	o->next = 0;
	o->keyed = !sim__is_budget(s);
}

/* Reach @o's next segment: its candidates (with deferred verdicts, those
 * the core accepts) at [o->hi..), as the segment being taken. */
static void next_segment(struct sim *s, struct victim_order *o)
{
	struct victim_candidate *c = s->candidates;
	size_t i = o->next ? o->end[o->next - 1] : 0, e = o->end[o->next];

	o->lo = o->hi;
	for (; i < e; i++)
		if (!o->me || sim__victim_ok(s, o->me,
					     &s->run_info[c[i].run_index], o->now))
			c[o->hi++] = c[i];
	o->next++;
	o->keyed = !sim__is_budget(s);
}

/* Put the smallest of the candidates not yet taken at k, given the
 * smallest k are at [0..k) in order: the smallest of k's segment (@o), by
 * selection for its first 16 (few victims are usually needed), then from
 * a heap of the segment's rest (built once, at its 17th; each step takes
 * its root).  False when none is left; the accepted candidates are then
 * all at [0..k). */
bool sim__next_in_order(struct sim *s, size_t k, struct victim_order *o)
{
	struct victim_candidate *c = s->candidates, tmp;
	size_t e, m, i;

	while (k == o->hi) {	/* the next non-empty segment */
		if (o->next == 4)
			return false;
		next_segment(s, o);
	}
	if (!o->keyed) {
		for (i = o->lo; i < o->hi; i++)
			c[i].key = sb_preempt_victim_key(
				&s->run_info[c[i].run_index].party.job,
				o->now);
		o->keyed = true;
	}
	e = o->hi;
	m = e - k;
	if (k - o->lo < 16) {
		uint32_t bk = c[k].key;
		size_t x;

		/* the best key in a register; the full comparison on ties */
		for (i = k, x = k + 1; x < e; x++) {
			if (c[x].key > bk)
				continue;
			if (c[x].key < bk || cand_cmp(&c[x], &c[i]) < 0) {
				i = x;
				bk = c[x].key;
			}
		}
		if (i != k) {
			tmp = c[k];
			c[k] = c[i];
			c[i] = tmp;
		}
		return true;
	}
	if (m < 2)
		return true;
	if (k - o->lo == 16)
		for (i = m / 2; i-- > 0;)
			heap_down(c, e, m, i);
	/* the root (at e - 1) to k, the heap's last (at k) to the root */
	tmp = c[k];
	c[k] = c[e - 1];
	c[e - 1] = tmp;
	heap_down(c, e, m - 1, 0);
	return true;
}
