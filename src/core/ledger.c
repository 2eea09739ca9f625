/*
 * ledger.c - windowed usage per association in ring buffers of buckets:
 * charges, window sums, reads and moving onto a new tree.  The bucket and
 * window rules are in sb/ledger.h; JSON save and load in ledger_json.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ledger_internal.h"
#include "sb/error.h"
#include "sb/ledger.h"

/* floor(a / b) for b > 0 and any a. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static uint32_t *copy_ids(const struct sb_tree *tree)
{
	uint32_t n = sb_tree_count(tree), i;
	uint32_t *ids = malloc((n ? n : 1) * sizeof(*ids));

	if (!ids)
		return NULL;
	for (i = 0; i < n; i++)
		ids[i] = sb_tree_node(tree, i)->id;
	return ids;
}

/* A ledger without a tree binding check; rows for @n associations. */
struct sb_ledger *sb__ledger_alloc(const struct sb_tree *tree,
				      int64_t window, int64_t width)
{
	struct sb_ledger *l = calloc(1, sizeof(*l));
	uint32_t n = sb_tree_count(tree);

	if (!l)
		return NULL;
	l->tree = tree;
	l->window = window;
	l->width = width;
	l->nslots = (uint32_t)(window / width) + 1;
	l->n = n;
	l->rows = calloc(n ? n : 1, sizeof(*l->rows));
	l->ids = copy_ids(tree);
	if (!l->rows || !l->ids) {
		free(l->rows);
		free(l->ids);
		free(l);
		return NULL;
	}
	return l;
}

void sb__ledger_free_rows(struct row *rows, uint32_t n)
{
	uint32_t i;

	if (!rows)
		return;
	for (i = 0; i < n; i++)
		free(rows[i].b);
	free(rows);
}

int sb_ledger_new(const struct sb_tree *tree, int64_t window, int64_t width,
		  struct sb_ledger **out)
{
	if (!sb_tree_finalized(tree) || !out || window <= 0 || width <= 0 ||
	    window % width)
		return SB_EINVAL;
	if (window > SB_TIME_MAX || window / width > SB_LEDGER_MAX_BUCKETS)
		return SB_ERANGE;
	*out = sb__ledger_alloc(tree, window, width);
	return *out ? SB_OK : SB_ENOMEM;
}

void sb_ledger_free(struct sb_ledger *ledger)
{
	if (!ledger)
		return;
	sb__ledger_free_rows(ledger->rows, ledger->n);
	free(ledger->ids);
	free(ledger);
}

uint64_t sb_ledger_bytes(uint32_t nassoc, int64_t window, int64_t width)
{
	uint64_t slots;

	if (window <= 0 || width <= 0)
		return 0;
	slots = (uint64_t)(window / width) + 1;
	return (uint64_t)nassoc * (slots * 2 * sizeof(double) +
				   sizeof(struct row) + sizeof(uint32_t));
}

int64_t sb_ledger_fit_width(uint32_t nassoc, int64_t window, int64_t width,
			    uint64_t max)
{
	int64_t w;

	if (window <= 0 || width <= 0)
		return 0;
	for (w = width; w <= window; w += width)
		if (window % w == 0 && sb_ledger_bytes(nassoc, window, w) <= max)
			return w;
	return 0;
}

int64_t sb_ledger_window(const struct sb_ledger *ledger)
{
	return ledger ? ledger->window : 0;
}

int64_t sb_ledger_width(const struct sb_ledger *ledger)
{
	return ledger ? ledger->width : 0;
}

const struct sb_tree *sb_ledger_tree(const struct sb_ledger *ledger)
{
	return ledger ? ledger->tree : NULL;
}

/*
 * Make row @r hold bucket @k: allocate its ring on first use, or move the
 * head forward to @k, clearing the slots of the buckets it passes (at most
 * nslots of them: O(buckets), whatever the gap).  Kept window sums lose the
 * buckets that leave the ring, so the next sync moves them in O(buckets
 * moved) instead of summing the row again.
 */
int sb__row_reach(const struct sb_ledger *l, struct row *r, int64_t k)
{
	int64_t j;

	if (!r->b) {
		r->b = calloc(2 * (size_t)l->nslots, sizeof(double));
		if (!r->b)
			return SB_ENOMEM;
		r->head = k;
		r->wok = false;
		r->exact = true;
		return SB_OK;
	}
	if (k <= r->head)
		return SB_OK;
	if (k - r->head >= l->nslots) {
		memset(r->b, 0, 2 * (size_t)l->nslots * sizeof(double));
		r->exact = true;	/* all zero again */
		r->wok = false;
	} else {
		/* slot j held bucket j - nslots, which leaves the ring: out
		 * of the window sums too (whole numbers: exact) */
		for (j = r->head + 1; j <= k; j++) {
			if (r->wok && j - l->nslots >= r->wlo &&
			    j - l->nslots <= r->whi) {
				r->wsum[0] -= r->b[j % l->nslots];
				r->wsum[1] -= r->b[l->nslots + j % l->nslots];
			}
			r->b[j % l->nslots] = 0.0;
			r->b[l->nslots + j % l->nslots] = 0.0;
		}
		/* the sums are now of the buckets still held */
		if (r->wok && r->wlo < k - (int64_t)l->nslots + 1)
			r->wlo = k - (int64_t)l->nslots + 1;
		if (r->wok && r->wlo > r->whi)
			r->wok = false;
	}
	r->head = k;
	return SB_OK;
}

/* @amount was added to bucket @k of row @r, which now holds @value: keep
 * the window sums, or give them up when the row is no longer exact. */
void sb__row_note(struct row *r, int64_t k, double amount, double value,
		     bool allocated)
{
	if (r->exact && !(amount == floor(amount) && amount <= EXACT_MAX &&
			  value <= EXACT_MAX))
		r->exact = false;
	if (!r->exact)
		r->wok = false;
	else if (r->wok && k >= r->wlo && k <= r->whi)
		r->wsum[allocated ? 0 : 1] += amount;
}

int sb__ledger_check(const struct sb_ledger *ledger, uint32_t assoc_index,
		     int64_t t_from, int64_t t_to, double tres_count)
{
	if (!ledger || assoc_index >= ledger->n)
		return SB_EINVAL;
	if (t_from < 0 || t_to < 0)
		return SB_ENEGATIVE;
	if (t_from > SB_TIME_MAX || t_to > SB_TIME_MAX)
		return SB_ERANGE;
	if (t_to < t_from)
		return SB_EINVAL;
	if (isnan(tres_count) || tres_count > SB_TRES_MAX)
		return SB_ERANGE;	/* +inf is above the maximum too */
	if (tres_count < 0)
		return SB_ENEGATIVE;
	return SB_OK;
}

int sb_ledger_charge(struct sb_ledger *ledger, uint32_t assoc_index,
		     int64_t t_from, int64_t t_to, double tres_count,
		     bool allocated)
{
	struct row *r;
	double *sums;
	int64_t k, k0, k1, w;
	int rc;

	if ((rc = sb__ledger_check(ledger, assoc_index, t_from, t_to,
				   tres_count)))
		return rc;
	if (t_from == t_to)
		return SB_OK;
	w = ledger->width;
	r = &ledger->rows[assoc_index];
	k0 = t_from / w;
	k1 = (t_to - 1) / w;	/* the bucket holding the last second */
	if ((rc = sb__row_reach(ledger, r, k1)))
		return rc;
	sums = r->b + (allocated ? 0 : ledger->nslots);
	/* bucket k gets |[t_from, t_to) & [k*w, (k+1)*w)| * tres_count */
	for (k = max64(k0, sb__row_oldest(ledger, r)); k <= k1; k++) {
		int64_t s = max64(t_from, k * w), e = min64(t_to, (k + 1) * w);
		double amount = (double)(e - s) * tres_count;
		double *slot = &sums[k % ledger->nslots];

		*slot += amount;
		sb__row_note(r, k, amount, *slot, allocated);
	}
	return SB_OK;
}

/* The buckets that count at @now >= 0 in any row, @w->lo..@w->hi: start
 * <= now and start + width > now - window (a row holds fewer:
 * row_window()). */
struct window {
	int64_t lo, hi;
};

static struct window window_at(const struct sb_ledger *l, int64_t now)
{
	struct window w = { floor_div(now - l->window, l->width),
			    now / l->width };

	return w;
}

/* The buckets of row @r in window @w, @lo..@hi (none when lo > hi). */
static void row_window(const struct sb_ledger *l, const struct row *r,
		       struct window w, int64_t *lo, int64_t *hi)
{
	*hi = min64(w.hi, r->head);
	*lo = max64(w.lo, sb__row_oldest(l, r));
}

/* Sum of row @r's buckets lo..hi (each must be in the ring). */
static double row_sum(const struct sb_ledger *l, const struct row *r,
		      int64_t lo, int64_t hi, bool allocated)
{
	const double *sums = r->b + (allocated ? 0 : l->nslots);
	uint32_t slot;
	double sum = 0.0;
	int64_t k;

	if (lo > hi)
		return 0.0;
	/* one division, then walk the ring: no division per bucket */
	slot = (uint32_t)(lo % l->nslots);
	for (k = lo; k <= hi; k++) {
		sum += sums[slot];
		if (++slot == l->nslots)
			slot = 0;
	}
	return sum;
}

/* Sum of row @r's buckets that count at @now (see sb/ledger.h): the
 * window sums when they are of that window (sb_ledger_sync()). */
static double row_usage(const struct sb_ledger *l, const struct row *r,
			struct window w, bool allocated)
{
	int64_t lo, hi;

	if (!r->b)
		return 0.0;
	row_window(l, r, w, &lo, &hi);
	if (lo > hi)
		return 0.0;
	if (r->wok && r->wlo == lo && r->whi == hi)
		return r->wsum[allocated ? 0 : 1];
	return row_sum(l, r, lo, hi, allocated);
}

/*
 * Move row @r's window sums to the window at @now: the buckets that left
 * it are taken off and those that entered added, when the two windows
 * overlap and that is shorter than summing the new one; otherwise the new
 * one is summed.  Exact rows only (see struct row).
 */
static void row_sync(const struct sb_ledger *l, struct row *r,
		     struct window w)
{
	int64_t lo, hi, a;

	if (!r->b || !r->exact) {
		if (r->b)
			r->wok = false;
		return;
	}
	row_window(l, r, w, &lo, &hi);
	if (lo > hi) {
		lo = 0;	/* an empty window: 0 */
		hi = -1;
	}
	if (r->wok && r->wlo == lo && r->whi == hi)
		return;
	if (r->wok && r->wlo <= r->whi && lo <= hi && lo <= r->whi &&
	    r->wlo <= hi &&
	    (lo > r->wlo ? lo - r->wlo : r->wlo - lo) +
	    (hi > r->whi ? hi - r->whi : r->whi - hi) < hi - lo + 1) {
		for (a = 0; a < 2; a++) {
			double sum = r->wsum[a];

			/* off: [wlo, lo) and (hi, whi]; on: [lo, wlo) and
			 * (whi, hi]; integers below 2^53, so exact */
			sum -= row_sum(l, r, r->wlo, lo - 1, a == 0);
			sum -= row_sum(l, r, hi + 1, r->whi, a == 0);
			sum += row_sum(l, r, lo, r->wlo - 1, a == 0);
			sum += row_sum(l, r, r->whi + 1, hi, a == 0);
			r->wsum[a] = sum;
		}
	} else {
		r->wsum[0] = row_sum(l, r, lo, hi, true);
		r->wsum[1] = row_sum(l, r, lo, hi, false);
	}
	r->wlo = lo;
	r->whi = hi;
	r->wok = true;
}

int sb_ledger_sync(struct sb_ledger *ledger, int64_t now)
{
	struct window w;
	uint32_t i;

	if (!ledger)
		return SB_EINVAL;
	if (now < 0 || now > SB_TIME_MAX)
		return SB_ERANGE;
	w = window_at(ledger, now);
	for (i = 0; i < ledger->n; i++)
		row_sync(ledger, &ledger->rows[i], w);
	return SB_OK;
}

double sb_ledger_usage(const struct sb_ledger *ledger, uint32_t assoc_index,
		       int64_t now, bool allocated)
{
	const struct sb_tree_node *nd;
	double sum = 0.0;
	uint32_t i;

	if (!ledger || assoc_index >= ledger->n || now < 0 ||
	    now > SB_TIME_MAX)
		return 0.0;
	nd = sb_tree_node(ledger->tree, assoc_index);
	for (i = assoc_index; i < nd->subtree_end; i++)
		sum += row_usage(ledger, &ledger->rows[i],
				 window_at(ledger, now), allocated);
	return sum;
}

int sb_ledger_usage_all(const struct sb_ledger *ledger, int64_t now,
			bool allocated, double *subtree, double *own)
{
	const struct sb_tree_node *tn;
	struct window w;
	uint32_t i;

	if (!ledger || !subtree)
		return SB_EINVAL;
	if (now < 0 || now > SB_TIME_MAX) {
		/* nothing counts */
		for (i = 0; i < ledger->n; i++) {
			subtree[i] = 0.0;
			if (own)
				own[i] = 0.0;
		}
		return SB_OK;
	}
	w = window_at(ledger, now);
	for (i = 0; i < ledger->n; i++) {
		subtree[i] = row_usage(ledger, &ledger->rows[i], w, allocated);
		if (own)
			own[i] = subtree[i];
	}
	/* pre-order: children have higher indices than their parent (the
	 * nodes are one array: sb_tree_node(tree, i) is &tn[i]) */
	tn = ledger->n ? sb_tree_node(ledger->tree, 0) : NULL;
	for (i = ledger->n; i-- > 0;) {
		uint32_t p = tn[i].parent;

		if (p != SB_NONE)
			subtree[p] += subtree[i];
	}
	return SB_OK;
}

/* Report @id as dropped. */
void sb__note_dropped(uint32_t id, uint32_t *dropped, size_t cap,
			 size_t *n)
{
	if (dropped && *n < cap)
		dropped[*n] = id;
	(*n)++;
}

/*
 * Add @sum (allocated or not) saved for [s, s + len) to row @r, spread
 * evenly over the ledger's buckets it overlaps.
 */
int sb__row_spread(const struct sb_ledger *l, struct row *r, int64_t s,
		      int64_t len, double alloc, double unalloc)
{
	int64_t w = l->width, k, k0 = s / w, k1 = (s + len - 1) / w;
	int rc;

	if ((rc = sb__row_reach(l, r, k1)))
		return rc;
	for (k = max64(k0, sb__row_oldest(l, r)); k <= k1; k++) {
		int64_t ov = min64(s + len, (k + 1) * w) - max64(s, k * w);
		double f = (double)ov / (double)len;
		double a = ov == len ? alloc : alloc * f;
		double u = ov == len ? unalloc : unalloc * f;

		r->b[k % l->nslots] += a;
		r->b[l->nslots + k % l->nslots] += u;
		sb__row_note(r, k, a, r->b[k % l->nslots], true);
		sb__row_note(r, k, u, r->b[l->nslots + k % l->nslots], false);
	}
	r->wok = false;	/* cheap to redo; spreads are rare (loads, moves) */
	return SB_OK;
}

/*
 * Usage of an association that left the tree stays with its nearest
 * ancestor that is still there (as usage charged to a parent would in
 * Slurm), so deleting or moving an association never removes usage from the
 * budgets above it.  Moves row @r (old index @i) into @rows of @tree.
 * Return: SB_OK, or SB_ENOTFOUND when no ancestor survives, SB_ENOMEM.
 */
static int adopt_orphan(const struct sb_ledger *l, const struct sb_tree *tree,
			uint32_t i, const struct row *r, struct row *rows)
{
	const struct sb_tree *old = l->tree;
	uint32_t p, ix;
	int64_t k;
	int rc;

	for (p = sb_tree_node(old, i)->parent; p != SB_NONE;
	     p = sb_tree_node(old, p)->parent)
		if (sb_tree_index(tree, sb_tree_node(old, p)->id, &ix) == SB_OK)
			break;
	if (p == SB_NONE)
		return SB_ENOTFOUND;
	for (k = sb__row_oldest(l, r); k <= r->head; k++) {
		double a = r->b[k % l->nslots], u = r->b[l->nslots + k % l->nslots];

		if ((a != 0 || u != 0) &&
		    (rc = sb__row_spread(l, &rows[ix], k * l->width, l->width, a, u)))
			return rc;
	}
	return SB_OK;
}

int sb_ledger_rebind(struct sb_ledger *ledger, const struct sb_tree *tree,
		     uint32_t *dropped, size_t cap, size_t *ndropped)
{
	struct row *rows;
	uint32_t *ids, n, i, ix;
	size_t nd = 0;

	if (ndropped)
		*ndropped = 0;
	if (!ledger || !sb_tree_finalized(tree))
		return SB_EINVAL;
	n = sb_tree_count(tree);
	rows = calloc(n ? n : 1, sizeof(*rows));
	ids = copy_ids(tree);
	if (!rows || !ids) {
		free(rows);
		free(ids);
		return SB_ENOMEM;
	}
	/* Old indices are pre-order, so an old ancestor's row is placed
	 * before any descendant's usage is moved into it. */
	for (i = 0; i < ledger->n; i++) {
		struct row *r = &ledger->rows[i];

		if (!r->b)
			continue;
		if (sb_tree_index(tree, ledger->ids[i], &ix) == SB_OK)
			rows[ix] = *r;
		else if (adopt_orphan(ledger, tree, i, r, rows) != SB_OK) {
			sb__note_dropped(ledger->ids[i], dropped, cap, &nd);
			free(r->b);
		} else {
			free(r->b);
		}
		r->b = NULL;
	}
	free(ledger->rows);
	free(ledger->ids);
	ledger->rows = rows;
	ledger->ids = ids;
	ledger->n = n;
	ledger->tree = tree;
	if (ndropped)
		*ndropped = nd;
	return SB_OK;
}

