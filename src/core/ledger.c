/*
 * ledger.c - windowed usage per association in ring buffers of buckets;
 * JSON save and load.  The bucket and window rules are in sb/ledger.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sb/error.h"
#include "sb/ledger.h"

#define FORMAT_NAME "slurm-budget-ledger"

/*
 * One association's ring.  b[0..nslots) are allocated sums, b[nslots..2n)
 * unallocated ones; bucket k lives in slot k % nslots.  The ring holds
 * buckets head-nslots+1 .. head (those >= 0).  b is NULL until the first
 * charge, so idle associations cost no buckets.
 *
 * Window sums (sb_ledger_sync()): when wok, wsum[0] and wsum[1] are the
 * sums of the allocated and unallocated buckets wlo..whi, the window of
 * the last sync as row_usage() computes it, so a read at that window costs
 * O(1).  Kept only while the row is exact: every amount ever added to it
 * and every bucket is a whole number of TRES-seconds of at most EXACT_MAX,
 * so every partial sum over at most nslots buckets is an integer below
 * 2^53 and summing in any order gives the same double, bit for bit.  A
 * charge inside wlo..whi adds to the sums; moving the head (buckets leave
 * the ring) or spreading a saved bucket drops them (wok false) until the
 * next sync.
 */
struct row {
	int64_t head;
	double *b;
	int64_t wlo, whi;
	double wsum[2];
	bool wok;
	bool exact;
};

/* Largest bucket (and amount) of an exact row: (nslots <= 100001 < 2^17)
 * x 2^36 < 2^53.  2^36 GPU-seconds is 19 million GPUs for an hour. */
#define EXACT_MAX ((double)((int64_t)1 << 36))

struct sb_ledger {
	const struct sb_tree *tree;
	int64_t window, width;
	uint32_t nslots;	/* window / width + 1 */
	uint32_t n;		/* rows = associations of the tree */
	uint32_t *ids;		/* association id of each row (own copy) */
	struct row *rows;
};

/* floor(a / b) for b > 0 and any a. */
static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && a < 0) ? q - 1 : q;
}

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
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
static struct sb_ledger *ledger_alloc(const struct sb_tree *tree,
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

static void free_rows(struct row *rows, uint32_t n)
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
	*out = ledger_alloc(tree, window, width);
	return *out ? SB_OK : SB_ENOMEM;
}

void sb_ledger_free(struct sb_ledger *ledger)
{
	if (!ledger)
		return;
	free_rows(ledger->rows, ledger->n);
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
 * nslots of them: O(buckets), whatever the gap).
 */
static int row_reach(const struct sb_ledger *l, struct row *r, int64_t k)
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
	r->wok = false;	/* buckets leave the ring: summed again at sync */
	if (k - r->head >= l->nslots) {
		memset(r->b, 0, 2 * (size_t)l->nslots * sizeof(double));
		r->exact = true;	/* all zero again */
	} else {
		for (j = r->head + 1; j <= k; j++) {
			r->b[j % l->nslots] = 0.0;
			r->b[l->nslots + j % l->nslots] = 0.0;
		}
	}
	r->head = k;
	return SB_OK;
}

/* The oldest bucket row @r still holds. */
static int64_t row_oldest(const struct sb_ledger *l, const struct row *r)
{
	return max64(0, r->head - (int64_t)l->nslots + 1);
}

/* @amount was added to bucket @k of row @r, which now holds @value: keep
 * the window sums, or give them up when the row is no longer exact. */
static void row_note(struct row *r, int64_t k, double amount, double value,
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
	if ((rc = row_reach(ledger, r, k1)))
		return rc;
	sums = r->b + (allocated ? 0 : ledger->nslots);
	/* bucket k gets |[t_from, t_to) & [k*w, (k+1)*w)| * tres_count */
	for (k = max64(k0, row_oldest(ledger, r)); k <= k1; k++) {
		int64_t s = max64(t_from, k * w), e = min64(t_to, (k + 1) * w);
		double amount = (double)(e - s) * tres_count;
		double *slot = &sums[k % ledger->nslots];

		*slot += amount;
		row_note(r, k, amount, *slot, allocated);
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
	*lo = max64(w.lo, row_oldest(l, r));
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
static void note_dropped(uint32_t id, uint32_t *dropped, size_t cap,
			 size_t *n)
{
	if (dropped && *n < cap)
		dropped[*n] = id;
	(*n)++;
}

static int row_spread(const struct sb_ledger *l, struct row *r, int64_t s,
		      int64_t len, double alloc, double unalloc);

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
	for (k = row_oldest(l, r); k <= r->head; k++) {
		double a = r->b[k % l->nslots], u = r->b[l->nslots + k % l->nslots];

		if ((a != 0 || u != 0) &&
		    (rc = row_spread(l, &rows[ix], k * l->width, l->width, a, u)))
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
			note_dropped(ledger->ids[i], dropped, cap, &nd);
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

/* ------------------------------------------------------------- JSON out */

/* json_object_object_add that takes ownership of @v and reports NULL. */
static int put(struct json_object *obj, const char *key,
	       struct json_object *v)
{
	if (!v)
		return SB_ENOMEM;
	if (json_object_object_add(obj, key, v)) {
		json_object_put(v);
		return SB_ENOMEM;
	}
	return SB_OK;
}

static int push(struct json_object *arr, struct json_object *v)
{
	if (!v)
		return SB_ENOMEM;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return SB_ENOMEM;
	}
	return SB_OK;
}

/* The buckets of row @r as [[start, allocated, unallocated], ...]. */
static int row_to_json(const struct sb_ledger *l, const struct row *r,
		       struct json_object *arr)
{
	int64_t k;

	for (k = row_oldest(l, r); k <= r->head; k++) {
		double a = r->b[k % l->nslots];
		double u = r->b[l->nslots + k % l->nslots];
		struct json_object *bk;

		if (a == 0.0 && u == 0.0)
			continue;
		if (!(bk = json_object_new_array()))
			return SB_ENOMEM;
		if (push(arr, bk) ||
		    push(bk, json_object_new_int64(k * l->width)) ||
		    push(bk, json_object_new_double(a)) ||
		    push(bk, json_object_new_double(u)))
			return SB_ENOMEM;
	}
	return SB_OK;
}

int sb_ledger_to_json(const struct sb_ledger *ledger,
		      const struct sb_accrual *acc, char **out)
{
	struct json_object *root = NULL, *assocs, *jobs = NULL;
	const char *text;
	uint32_t i;
	int rv = SB_ENOMEM;

	if (!ledger || !out)
		return SB_EINVAL;
	*out = NULL;
	if (!(root = json_object_new_object()) ||
	    put(root, "format", json_object_new_string(FORMAT_NAME)) ||
	    put(root, "version", json_object_new_int(SB_LEDGER_FORMAT_VERSION)) ||
	    put(root, "window", json_object_new_int64(ledger->window)) ||
	    put(root, "bucket_width", json_object_new_int64(ledger->width)) ||
	    put(root, "unit", json_object_new_string("TRES-seconds")) ||
	    put(root, "associations", assocs = json_object_new_array()))
		goto out;
	for (i = 0; i < ledger->n; i++) {
		const struct row *r = &ledger->rows[i];
		struct json_object *a, *bk;

		if (!r->b)
			continue;
		if (push(assocs, a = json_object_new_object()) ||
		    put(a, "id", json_object_new_int64(ledger->ids[i])) ||
		    put(a, "buckets", bk = json_object_new_array()) ||
		    row_to_json(ledger, r, bk))
			goto out;
	}
	if (acc) {
		if (sb__accrual_to_json(acc, &jobs) || put(root, "jobs", jobs))
			goto out;
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (!text)
		goto out;
	{
		size_t len = strlen(text);

		if (!(*out = malloc(len + 1)))
			goto out;
		memcpy(*out, text, len + 1);
	}
	rv = SB_OK;
out:
	json_object_put(root);
	return rv;
}

/* -------------------------------------------------------------- JSON in */

int sb__json_int(struct json_object *o, int64_t min, int64_t max,
		 int64_t *out)
{
	int64_t v;

	if (!o || !json_object_is_type(o, json_type_int))
		return SB_ECORRUPT;
	/* json-c clamps larger values to INT64_MAX/MIN: still refused below */
	v = json_object_get_int64(o);
	if (v < min || v > max)
		return SB_ECORRUPT;
	*out = v;
	return SB_OK;
}

int sb__json_sum(struct json_object *o, double *out)
{
	double v;

	if (!o || !(json_object_is_type(o, json_type_double) ||
		    json_object_is_type(o, json_type_int)))
		return SB_ECORRUPT;
	v = json_object_get_double(o);
	if (!isfinite(v) || v < 0)
		return SB_ECORRUPT;
	*out = v;
	return SB_OK;
}

/* Member @key of object @o, of type @t, or NULL. */
static struct json_object *member(struct json_object *o, const char *key,
				  enum json_type t)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/*
 * Add @sum (allocated or not) saved for [s, s + len) to row @r, spread
 * evenly over the ledger's buckets it overlaps.
 */
static int row_spread(const struct sb_ledger *l, struct row *r, int64_t s,
		      int64_t len, double alloc, double unalloc)
{
	int64_t w = l->width, k, k0 = s / w, k1 = (s + len - 1) / w;
	int rc;

	if ((rc = row_reach(l, r, k1)))
		return rc;
	for (k = max64(k0, row_oldest(l, r)); k <= k1; k++) {
		int64_t ov = min64(s + len, (k + 1) * w) - max64(s, k * w);
		double f = (double)ov / (double)len;
		double a = ov == len ? alloc : alloc * f;
		double u = ov == len ? unalloc : unalloc * f;

		r->b[k % l->nslots] += a;
		r->b[l->nslots + k % l->nslots] += u;
		row_note(r, k, a, r->b[k % l->nslots], true);
		row_note(r, k, u, r->b[l->nslots + k % l->nslots], false);
	}
	r->wok = false;	/* cheap to redo; spreads are rare (loads, moves) */
	return SB_OK;
}

/* Load one element of "associations" into @tmp (a fresh ledger). */
static int load_assoc(struct sb_ledger *tmp, struct json_object *a,
		      int64_t doc_width, int64_t now, uint8_t *seen,
		      uint32_t *dropped, size_t cap, size_t *nd)
{
	struct json_object *bks;
	int64_t id, prev = -1;
	uint32_t ix = SB_NONE;
	size_t i, n;
	int rc;

	if (!json_object_is_type(a, json_type_object))
		return SB_ECORRUPT;
	if ((rc = sb__json_int(member(a, "id", json_type_int), 1, UINT32_MAX,
			       &id)))
		return rc;
	if (!(bks = member(a, "buckets", json_type_array)))
		return SB_ECORRUPT;
	if (sb_tree_index(tmp->tree, (uint32_t)id, &ix) != SB_OK)
		ix = SB_NONE;
	else if (seen[ix]++)
		return SB_ECORRUPT;	/* the same id twice */
	n = json_object_array_length(bks);
	for (i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(bks, i);
		int64_t start, len;
		double al, un;

		if (!json_object_is_type(b, json_type_array) ||
		    json_object_array_length(b) != 3)
			return SB_ECORRUPT;
		if ((rc = sb__json_int(json_object_array_get_idx(b, 0), 0,
				       SB_TIME_MAX - doc_width, &start)) ||
		    (rc = sb__json_sum(json_object_array_get_idx(b, 1), &al)) ||
		    (rc = sb__json_sum(json_object_array_get_idx(b, 2), &un)))
			return rc;
		if (start % doc_width || start <= prev)
			return SB_ECORRUPT;
		prev = start;
		/* usage saved in a bucket @now is inside was all before @now */
		len = (now > start && now - start < doc_width) ? now - start
							       : doc_width;
		if (ix != SB_NONE &&
		    (rc = row_spread(tmp, &tmp->rows[ix], start, len, al, un)))
			return rc;
	}
	/* unknown ids are checked like the others, then reported */
	if (ix == SB_NONE)
		note_dropped((uint32_t)id, dropped, cap, nd);
	return SB_OK;
}

/* Parse the whole of @text as one JSON value, or NULL. */
static struct json_object *parse_all(const char *text, size_t len)
{
	struct json_tokener *tok;
	struct json_object *root;
	size_t end;

	if (len > INT32_MAX || !(tok = json_tokener_new()))
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (root && json_tokener_get_error(tok) == json_tokener_success) {
		end = json_tokener_get_parse_end(tok);
		for (; end < len; end++) {
			char c = text[end];

			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				json_object_put(root);
				root = NULL;
				break;
			}
		}
	} else {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

int sb_ledger_from_json(struct sb_ledger *ledger, struct sb_accrual *acc,
			const char *text, size_t len, uint32_t *dropped,
			size_t cap, size_t *ndropped)
{
	return sb_ledger_from_json_at(ledger, acc, text, len, INT64_MIN,
				      dropped, cap, ndropped);
}

int sb_ledger_from_json_at(struct sb_ledger *ledger, struct sb_accrual *acc,
			   const char *text, size_t len, int64_t now,
			   uint32_t *dropped, size_t cap, size_t *ndropped)
{
	struct json_object *root = NULL, *fmt, *assocs, *jobs = NULL;
	struct sb_accrual *nacc = NULL;
	struct sb_ledger *tmp = NULL;
	uint8_t *seen = NULL;
	int64_t ver, window, width;
	size_t i, n, nd = 0;
	int rv = SB_ECORRUPT;

	if (ndropped)
		*ndropped = 0;
	if (!ledger || !text)
		return SB_EINVAL;
	if (!(root = parse_all(text, len)) ||
	    !json_object_is_type(root, json_type_object))
		goto out;
	fmt = member(root, "format", json_type_string);
	if (!fmt || strcmp(json_object_get_string(fmt), FORMAT_NAME))
		goto out;
	if (sb__json_int(member(root, "version", json_type_int), INT64_MIN,
			 INT64_MAX, &ver))
		goto out;
	if (ver != SB_LEDGER_FORMAT_VERSION) {
		rv = SB_EVERSION;
		goto out;
	}
	if (sb__json_int(member(root, "window", json_type_int), 1,
			 SB_TIME_MAX, &window) ||
	    sb__json_int(member(root, "bucket_width", json_type_int), 1,
			 SB_TIME_MAX, &width) ||
	    window % width || window / width > SB_LEDGER_MAX_BUCKETS ||
	    !(assocs = member(root, "associations", json_type_array)))
		goto out;
	if (json_object_object_get_ex(root, "jobs", &jobs) &&
	    !json_object_is_type(jobs, json_type_array))
		goto out;

	rv = SB_ENOMEM;
	tmp = ledger_alloc(ledger->tree, ledger->window, ledger->width);
	seen = calloc(ledger->n ? ledger->n : 1, 1);
	if (!tmp || !seen)
		goto out;
	n = json_object_array_length(assocs);
	for (i = 0; i < n; i++) {
		rv = load_assoc(tmp, json_object_array_get_idx(assocs, i),
				width, now, seen, dropped, cap, &nd);
		if (rv)
			goto out;
	}
	if (acc && (rv = sb__accrual_from_json(jobs, &nacc)))
		goto out;

	/* commit: nothing above touched @ledger or @acc */
	free_rows(ledger->rows, ledger->n);
	ledger->rows = tmp->rows;
	tmp->rows = NULL;
	if (acc)
		sb__accrual_swap(acc, nacc);
	if (ndropped)
		*ndropped = nd;
	rv = SB_OK;
out:
	sb_accrual_free(nacc);
	sb_ledger_free(tmp);
	free(seen);
	json_object_put(root);
	return rv;
}
