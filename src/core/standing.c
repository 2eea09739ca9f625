/*
 * standing.c - Fair Tree style hierarchical fair-share (see sb/standing.h).
 *
 * Two passes:
 *   1. LF of every association against its siblings (O(n)).
 *   2. A depth-first walk that sorts each sibling group (O(n log n) in all),
 *      emits leaves in order and merges the children of tied siblings, with
 *      an explicit stack so a deep tree cannot overflow the C stack.
 *      Each group is sorted starting from its order at the last compute
 *      (usage moves little between two recalculations), by insertion:
 *      O(n) when little changed (sort_keys()).
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "sb/priority.h"
#include "sb/standing.h"

/* One association in a group being sorted.  LF (SB_LF_FINITE only) is
 * compared as its double first, the long double only where those are
 * equal: rounding to double (and the clamp at DBL_MAX) never reverses two
 * values, so the order is the long doubles' (cmp_key()). */
struct key {
	double dlf;		/* (double)*lf, clamped: level_fs */
	const long double *lf;	/* the exact LF, in sb_standing.lf */
	uint32_t index;
	uint32_t id;
	uint8_t cls;		/* enum sb_lf_class */
	uint8_t leaf;
};

/*
 * A sibling group (or the merged children of tied siblings) being walked:
 * keys[start, start + len), next class at pos.  The group's owners are the
 * tied siblings whose children it holds, keys[owners, owners + nowners):
 * they take their positions when the group is done.
 */
struct frame {
	uint32_t start, len, pos;
	uint32_t owners, nowners;
	bool start_tied;	/* its first leaves tie with the last one out */
};

struct sb_standing {
	const struct sb_tree *tree;
	uint32_t n, nleaves;
	struct sb_standing_node *nodes;
	long double *lf;
	double *usage;		/* scratch for sb_standing_compute() */
	uint32_t *order;
	struct key *keys;
	struct frame *frames;
	uint32_t nframes;
	/* each sibling group's order at the last compute (the first sort
	 * hint): the top level at sib[0..ntop), node i's children at
	 * sib[choff[i]..+nchildren); cur: scratch, a cursor per node */
	uint32_t *sib, *choff, *cur;
	/* the tree's nodes by index: sb_tree_node(tree, i) is &tn[i] for
	 * every i < n (one array in tree.c), read in the hot loops */
	const struct sb_tree_node *tn;
	/* by position, sb_priority_level(position, n); by leaf rank, the
	 * factor (sb_standing_compute_usage()): computed once, as they
	 * depend on n and nleaves alone */
	uint32_t *level_at;
	double *factor_at;
};

int sb_standing_new(const struct sb_tree *tree, struct sb_standing **out)
{
	struct sb_standing *st;
	uint32_t n, i;

	if (!out)
		return SB_EINVAL;
	*out = NULL;
	if (!sb_tree_finalized(tree))
		return SB_EINVAL;
	if (!(st = calloc(1, sizeof(*st))))
		return SB_ENOMEM;
	n = sb_tree_count(tree);
	st->tree = tree;
	st->n = n;
	st->tn = n ? sb_tree_node(tree, 0) : NULL;
	st->nleaves = sb_tree_nleaves(tree);
	st->nframes = sb_tree_max_depth(tree) + 2;
	st->nodes = calloc(n ? n : 1, sizeof(*st->nodes));
	st->lf = calloc(n ? n : 1, sizeof(*st->lf));
	st->usage = calloc(n ? n : 1, sizeof(*st->usage));
	st->order = calloc(n ? n : 1, sizeof(*st->order));
	st->keys = calloc(n ? n : 1, sizeof(*st->keys));
	st->frames = calloc(st->nframes, sizeof(*st->frames));
	st->sib = calloc(n ? n : 1, sizeof(*st->sib));
	st->choff = calloc(n ? n : 1, sizeof(*st->choff));
	st->cur = calloc(n ? n : 1, sizeof(*st->cur));
	st->level_at = calloc(n ? n : 1, sizeof(*st->level_at));
	st->factor_at = calloc(n ? n : 1, sizeof(*st->factor_at));
	if (!st->nodes || !st->lf || !st->usage || !st->order || !st->keys ||
	    !st->frames || !st->sib || !st->choff || !st->cur ||
	    !st->level_at || !st->factor_at) {
		sb_standing_free(st);
		return SB_ENOMEM;
	}
	for (i = 0; i < n; i++) {
		st->level_at[i] = sb_priority_level(i, n);
		/* a rank is below nleaves <= n */
		st->factor_at[i] = st->nleaves > 1 ?
			1.0 - (double)i / (double)(st->nleaves - 1) : 1.0;
	}
	for (i = 0; i < n; i++) {
		st->nodes[i].level = 1;
		st->nodes[i].position = i;
		st->order[i] = i;
	}
	{	/* the first hint: the tree's order (ascending id) */
		uint32_t ntop, off, k;
		const uint32_t *top = sb_tree_top(tree, &ntop);

		for (off = 0; off < ntop; off++)
			st->sib[off] = top[off];
		for (i = 0; i < n; i++) {
			const struct sb_tree_node *t = sb_tree_node(tree, i);

			st->choff[i] = off;
			for (k = 0; k < t->nchildren; k++)
				st->sib[off++] = t->children[k];
		}
	}
	*out = st;
	return SB_OK;
}

void sb_standing_free(struct sb_standing *st)
{
	if (!st)
		return;
	free(st->nodes);
	free(st->lf);
	free(st->usage);
	free(st->order);
	free(st->keys);
	free(st->frames);
	free(st->sib);
	free(st->choff);
	free(st->cur);
	free(st->level_at);
	free(st->factor_at);
	free(st);
}

/*
 * LF of the siblings @sib[0..n) (Fair Tree's _calc_assoc_fs):
 *   LF = S / U = (level_shares / level_sum) / (usage / usage_sum)
 *      = (level_shares * usage_sum) / (level_sum * usage)
 * level_shares < 2^41 and level_sum < 2^62 are exact in long double; the
 * usages are finite doubles, so the products cannot overflow where long
 * double is wider than double, and are clamped where it is not.
 */
static void level_fs(struct sb_standing *st, const uint32_t *sib, uint32_t n)
{
	long double usum = 0.0L;
	uint32_t i;

	for (i = 0; i < n; i++)
		usum += (long double)st->usage[sib[i]];
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *t = &st->tn[sib[i]];
		struct sb_standing_node *s = &st->nodes[sib[i]];
		double u = st->usage[sib[i]];
		long double lf = 0.0L;

		s->usage = u;
		s->usage_norm = usum > 0 ? (double)((long double)u / usum) : 0.0;
		if (s->usage_norm > 1.0)
			s->usage_norm = 1.0;	/* rounding of the sum */
		s->shares_norm = t->shares_norm;
		if (t->raw_shares == SB_SHARES_USE_PARENT) {
			s->lf_class = SB_LF_USE_PARENT;
			s->level_fs = DBL_MAX;
		} else if (t->level_shares == 0) {
			s->lf_class = SB_LF_NOSHARES;
			s->level_fs = 0.0;
		} else if (u == 0.0) {
			s->lf_class = SB_LF_IDLE;
			s->level_fs = DBL_MAX;
		} else {
			s->lf_class = SB_LF_FINITE;
			lf = ((long double)t->level_shares * usum) /
			     ((long double)t->level_sum * (long double)u);
			if (!(lf <= LDBL_MAX))
				lf = LDBL_MAX;
			s->level_fs = lf > (long double)DBL_MAX ? DBL_MAX :
				      (double)lf;
		}
		st->lf[sib[i]] = lf;
	}
}

static void make_key(const struct sb_standing *st, uint32_t ix, struct key *k)
{
	const struct sb_tree_node *t = &st->tn[ix];

	k->dlf = st->nodes[ix].level_fs;
	k->lf = &st->lf[ix];
	k->index = ix;
	k->id = t->id;
	k->cls = (uint8_t)st->nodes[ix].lf_class;
	k->leaf = t->nchildren == 0;
}

/*
 * Sort order: class (higher first), then LF (higher first, FINITE only),
 * then leaves before associations with children (so a tie class's leaves
 * are emitted before its merged children, as Fair Tree does), then id.
 */
static int cmp_key(const void *pa, const void *pb)
{
	const struct key *a = pa, *b = pb;

	if (a->cls != b->cls)
		return a->cls > b->cls ? -1 : 1;
	if (a->cls == SB_LF_FINITE && a->dlf != b->dlf)
		return a->dlf > b->dlf ? -1 : 1;
	if (a->cls == SB_LF_FINITE && *a->lf != *b->lf)
		return *a->lf > *b->lf ? -1 : 1;
	if (a->leaf != b->leaf)
		return a->leaf ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/*
 * Sort @k[0..@n) by cmp_key(): by insertion, linear when the keys come
 * nearly in order (each group is made in its order of the last compute),
 * and with qsort(3) once insertion has moved more than a few keys per
 * key.  The order is total (ids are unique), so the result is the same
 * whichever sort makes it.
 */
static void sort_keys(struct key *k, uint32_t n)
{
	uint32_t i, j, moves = 0, budget = 4 * n + 16;

	for (i = 1; i < n; i++) {
		struct key x;

		if (cmp_key(&k[i - 1], &k[i]) <= 0)
			continue;
		x = k[i];
		for (j = i; j > 0 && cmp_key(&k[j - 1], &x) > 0; j--)
			k[j] = k[j - 1];
		k[j] = x;
		moves += i - j;
		if (moves > budget) {
			qsort(k, n, sizeof(*k), cmp_key);
			return;
		}
	}
}

/* Remember the order of the sorted keys @k[0..@n) per sibling group: each
 * key goes to its parent's group (one group, or the merged children of
 * tied siblings, @owners[0..@nowners); NULL: the top level). */
static void keep_order(struct sb_standing *st, const struct key *k,
		       uint32_t n, const struct key *owners, uint32_t nowners)
{
	uint32_t i, p;

	if (!owners) {
		for (i = 0; i < n; i++)
			st->sib[i] = k[i].index;
		return;
	}
	for (i = 0; i < nowners; i++)
		st->cur[owners[i].index] = st->choff[owners[i].index];
	for (i = 0; i < n; i++) {
		p = st->tn[k[i].index].parent;
		st->sib[st->cur[p]++] = k[i].index;
	}
}

/* Whether @a and @b are tied (same class and, if finite, same LF). */
static bool tied(const struct key *a, const struct key *b)
{
	return a->cls == b->cls &&
	       (a->cls != SB_LF_FINITE ||
		(a->dlf == b->dlf && *a->lf == *b->lf));
}

/* The walk's output cursor. */
struct emit {
	uint32_t npos;		/* positions handed out */
	uint32_t nleaves;	/* leaves handed out */
	uint32_t rank;		/* rank of the last leaf */
};

static void emit_node(struct sb_standing *st, struct emit *e, uint32_t ix)
{
	st->nodes[ix].position = e->npos;
	st->order[e->npos++] = ix;
}

static void emit_leaf(struct sb_standing *st, struct emit *e, uint32_t ix,
		      bool tie)
{
	if (!tie || e->nleaves == 0)
		e->rank = e->nleaves;
	st->nodes[ix].rank = e->rank;
	e->nleaves++;
	emit_node(st, e, ix);
}

/* Depth-first walk from the top level; sets position, order, leaf ranks. */
static void walk(struct sb_standing *st)
{
	struct emit e = { 0, 0, 0 };
	struct key *keys = st->keys;
	uint32_t ntop, i, used = 0, sp = 0;

	/* the top level's members are sib[0..ntop), in their last order */
	sb_tree_top(st->tree, &ntop);
	for (i = 0; i < ntop; i++)
		make_key(st, st->sib[i], &keys[used++]);
	sort_keys(keys, ntop);
	keep_order(st, keys, ntop, NULL, 0);
	st->frames[sp++] = (struct frame){ 0, ntop, 0, 0, 0, false };

	while (sp) {
		struct frame *f = &st->frames[sp - 1];
		uint32_t a, b, first_inner, nleaf = 0, j;
		bool first_tied;

		if (f->pos == f->len) {
			/* group done: its owners follow its leaves */
			for (j = 0; j < f->nowners; j++)
				emit_node(st, &e, keys[f->owners + j].index);
			sp--;
			continue;
		}
		/* the next tie class: keys[a, b) */
		a = f->start + f->pos;
		for (b = a + 1; b < f->start + f->len && tied(&keys[a], &keys[b]);)
			b++;
		first_tied = f->pos == 0 && f->start_tied;
		first_inner = b;
		for (j = a; j < b; j++) {
			if (keys[j].leaf)
				emit_leaf(st, &e, keys[j].index,
					  nleaf++ ? true : first_tied);
			else if (first_inner == b)
				first_inner = j;
		}
		f->pos = b - f->start;
		if (first_inner == b)
			continue;
		/* merge the children of the class's tied inner nodes */
		{
			uint32_t cs = used, k;

			for (j = first_inner; j < b; j++) {
				uint32_t ix = keys[j].index;
				const struct sb_tree_node *t =
					sb_tree_node(st->tree, ix);

				for (k = 0; k < t->nchildren; k++)
					make_key(st, st->sib[st->choff[ix] + k],
						 &keys[used++]);
			}
			sort_keys(keys + cs, used - cs);
			keep_order(st, keys + cs, used - cs, keys + first_inner,
				   b - first_inner);
			st->frames[sp++] = (struct frame){
				cs, used - cs, 0, first_inner, b - first_inner,
				nleaf > 0 || first_tied };
		}
	}
}

int sb_usage_commit(const struct sb_tree *tree, double *usage, uint32_t index,
		    double tres_seconds)
{
	uint32_t i;

	if (!tree || !usage || index >= sb_tree_count(tree) ||
	    !isfinite(tres_seconds) || tres_seconds < 0)
		return SB_EINVAL;
	for (i = index; i != SB_NONE; i = sb_tree_node(tree, i)->parent)
		usage[i] += tres_seconds;
	return SB_OK;
}

int sb_standing_compute_usage(struct sb_standing *st, const double *usage)
{
	uint32_t i, ntop;
	const uint32_t *top;

	if (!st || !usage)
		return SB_EINVAL;
	for (i = 0; i < st->n; i++)
		if (!isfinite(usage[i]) || usage[i] < 0)
			return SB_EINVAL;
	if (usage != st->usage)
		for (i = 0; i < st->n; i++)
			st->usage[i] = usage[i];
	if (st->n == 0)
		return SB_OK;

	top = sb_tree_top(st->tree, &ntop);
	level_fs(st, top, ntop);
	for (i = 0; i < st->n; i++) {
		const struct sb_tree_node *t = &st->tn[i];

		if (t->nchildren)
			level_fs(st, t->children, t->nchildren);
	}

	walk(st);

	/* inner nodes: the rank of their worst leaf (children come later in
	 * pre-order, so a reverse sweep sees every child before its parent) */
	for (i = 0; i < st->n; i++)
		if (st->tn[i].nchildren)
			st->nodes[i].rank = 0;
	for (i = st->n; i-- > 0;) {
		uint32_t p = st->tn[i].parent;

		if (p != SB_NONE && st->nodes[i].rank > st->nodes[p].rank)
			st->nodes[p].rank = st->nodes[i].rank;
	}
	for (i = 0; i < st->n; i++) {
		struct sb_standing_node *s = &st->nodes[i];

		s->factor = st->factor_at[s->rank];
		s->level = st->level_at[s->position];
	}
	return SB_OK;
}

int sb_standing_compute(struct sb_standing *st, const struct sb_ledger *ledger,
			int64_t now)
{
	int rc;

	if (!st || !ledger || sb_ledger_tree(ledger) != st->tree)
		return SB_EINVAL;
	if ((rc = sb_ledger_usage_all(ledger, now, true, st->usage, NULL)))
		return rc;
	return sb_standing_compute_usage(st, st->usage);
}

const struct sb_standing_node *sb_standing_node(const struct sb_standing *st,
						uint32_t index)
{
	if (!st || index >= st->n)
		return NULL;
	return &st->nodes[index];
}

const uint32_t *sb_standing_order(const struct sb_standing *st, uint32_t *n)
{
	if (n)
		*n = st ? st->n : 0;
	return st ? st->order : NULL;
}

size_t sb_standing_path(const struct sb_standing *st, uint32_t index,
			uint32_t *path, size_t cap)
{
	const struct sb_tree_node *t;
	size_t len, i;

	if (!st || index >= st->n)
		return 0;
	t = sb_tree_node(st->tree, index);
	len = (size_t)t->depth + 1;
	for (i = len; i-- > 0;) {
		if (path && i < cap)
			path[i] = index;
		index = t->parent;
		if (index != SB_NONE)
			t = sb_tree_node(st->tree, index);
	}
	return len;
}

const struct sb_tree *sb_standing_tree(const struct sb_standing *st)
{
	return st ? st->tree : NULL;
}

enum sb_served sb_served(double usage_share, double entitled,
			 uint64_t usage_raw)
{
	double r;

	if (!(entitled > 0))		/* also NaN */
		return SB_SERVED_NO_BUDGET;
	if (usage_raw == 0)
		return SB_SERVED_IDLE;
	r = usage_share / entitled;
	if (r < 0.99)
		return SB_SERVED_UNDER;
	if (r > 1.01)
		return SB_SERVED_OVER;
	return SB_SERVED_ON_TARGET;	/* also NaN */
}

const char *sb_served_str(enum sb_served v)
{
	switch (v) {
	case SB_SERVED_NO_BUDGET:
		return "no budget";
	case SB_SERVED_IDLE:
		return "idle";
	case SB_SERVED_UNDER:
		return "under-served";
	case SB_SERVED_ON_TARGET:
		return "on target";
	case SB_SERVED_OVER:
		return "over-served";
	}
	return "unknown";
}
