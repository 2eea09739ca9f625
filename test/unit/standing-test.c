/*
 * standing-test.c - Fair Tree order: LF = S/U per level, depth first, ties,
 * zero usage first and zero shares last, huge and tiny shares side by side,
 * idle siblings that must not change the others' order, and merged tied
 * accounts.  Factors, level values and no NaN/infinity whatever the input
 * are tested in standing-values-test.c.
 *
 * Expected orders are written as the leaves' names best first, "=" between
 * tied leaves: "A=B C" means A and B share rank 0 and C has rank 2.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"
#include "standing-test.h"

#define NMAX 16

struct order_case {
	const char *what;
	struct sn n[NMAX];
	size_t count;
	const char *order;
	/* the order where long double arithmetic is no wider than double's
	 * (valgrind computes x87 long doubles in double precision): NULL,
	 * the same as order */
	const char *order_narrow;
};

/* Whether long double arithmetic, as run, is wider than double's. */
static bool wide_long_double(void)
{
	volatile long double one = 1.0L, x = 1.0L;

	x += 0x1p-60L;
	return x != one;
}

static const struct order_case orders[] = {
	{ .what = "single leaf",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 5,      .name = "A" },
	  },
	  .count = 1, .order = "A" },
	{ .what = "3:1 shares, 3:1 usage: tied",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 3,   .usage = 300,    .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 100,    .name = "B" },
	  },
	  .count = 2, .order = "A=B" },
	{ .what = "3:1 shares, 1:1 usage: the bigger budget first",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 3,   .usage = 100,    .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 100,    .name = "B" },
	  },
	  .count = 2, .order = "A B" },
	{ .what = "3:1 shares, 4:1 usage: the smaller budget first",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 3,   .usage = 400,    .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 100,    .name = "B" },
	  },
	  .count = 2, .order = "B A" },
	{ .what = "zero usage first, whatever the shares",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 100, .usage = 1,      .name = "B" },
	  },
	  .count = 2, .order = "A B" },
	{ .what = "all idle: all tied",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 5,   .usage = 0,      .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 9,   .usage = 0,      .name = "C" },
	  },
	  .count = 3, .order = "A=B=C" },
	{ .what = "shares 0 last, even idle beside a heavy user",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 0,   .usage = 0,      .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 1e12,   .name = "B" },
	  },
	  .count = 2, .order = "B A" },
	{ .what = "shares 0 among themselves: tied, whatever they used",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 0,   .usage = 5,      .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 0,   .usage = 0,      .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 1,   .usage = 10,     .name = "C" },
	  },
	  .count = 3, .order = "C A=B" },
	{ .what = "all shares 0: all tied",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 0,   .usage = 5,      .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 0,   .usage = 0,      .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 0,   .usage = 1,      .name = "C" },
	  },
	  .count = 3, .order = "A=B=C" },
	{ .what = "depth first: the better account's leaves all come first",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P1" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P2" },
		{ .id = 11,  .parent = 1,  .shares = 1,   .usage = 10,     .name = "a1" },
		{ .id = 12,  .parent = 1,  .shares = 1,   .usage = 1000,   .name = "a2" },
		{ .id = 21,  .parent = 2,  .shares = 1,   .usage = 5000,   .name = "b1" },
	  },
	  .count = 5, .order = "a1 a2 b1" },
	{ .what = "depth first: the other way round",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P1" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P2" },
		{ .id = 11,  .parent = 1,  .shares = 1,   .usage = 50,     .name = "a1" },
		{ .id = 12,  .parent = 1,  .shares = 1,   .usage = 50,     .name = "a2" },
		{ .id = 21,  .parent = 2,  .shares = 1,   .usage = 10,     .name = "b1" },
	  },
	  .count = 5, .order = "b1 a1=a2" },
	{ .what = "tied accounts: children merged, each by its own LF",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P1" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P2" },
		{ .id = 11,  .parent = 1,  .shares = 1,   .usage = 10,     .name = "a1" },
		{ .id = 12,  .parent = 1,  .shares = 1,   .usage = 30,     .name = "a2" },
		{ .id = 21,  .parent = 2,  .shares = 1,   .usage = 20,     .name = "b1" },
		{ .id = 22,  .parent = 2,  .shares = 1,   .usage = 20,     .name = "b2" },
	  },
	  .count = 6, .order = "a1 b1=b2 a2" },
	{ .what = "idle accounts at startup: every leaf tied",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 2,   .usage = 0,      .name = "P1" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P2" },
		{ .id = 11,  .parent = 1,  .shares = 1,   .usage = 0,      .name = "a1" },
		{ .id = 12,  .parent = 1,  .shares = 3,   .usage = 0,      .name = "a2" },
		{ .id = 21,  .parent = 2,  .shares = 1,   .usage = 0,      .name = "b1" },
	  },
	  .count = 5, .order = "a1=a2=b1" },
	{ .what = "a user tied with an account ties with its best child",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 20,     .name = "U" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "A" },
		{ .id = 21,  .parent = 2,  .shares = 1,   .usage = 5,      .name = "a1" },
		{ .id = 22,  .parent = 2,  .shares = 1,   .usage = 15,     .name = "a2" },
	  },
	  .count = 4, .order = "U=a1 a2" },
	{ .what = "use parent: first among its siblings, even when busy",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = UP,  .usage = 1000,   .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 1,   .usage = 10,     .name = "C" },
	  },
	  .count = 3, .order = "A B C" },
	{ .what = "use parent account: first within P, P itself ranks as usual",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 10,     .name = "Q" },
		{ .id = 11,  .parent = 1,  .shares = UP,  .usage = 0,      .name = "X" },
		{ .id = 12,  .parent = 1,  .shares = 1,   .usage = 100,    .name = "y" },
		{ .id = 111, .parent = 11, .shares = 1,   .usage = 50,     .name = "x1" },
		{ .id = 112, .parent = 11, .shares = 1,   .usage = 10,     .name = "x2" },
	  },
	  .count = 6, .order = "Q x2 x1 y" },
	{ .what = "use parent account: its subtree first (Q busy)",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 0,      .name = "P" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 1000,   .name = "Q" },
		{ .id = 11,  .parent = 1,  .shares = UP,  .usage = 0,      .name = "X" },
		{ .id = 12,  .parent = 1,  .shares = 1,   .usage = 100,    .name = "y" },
		{ .id = 111, .parent = 11, .shares = 1,   .usage = 50,     .name = "x1" },
		{ .id = 112, .parent = 11, .shares = 1,   .usage = 10,     .name = "x2" },
	  },
	  .count = 6, .order = "x2 x1 y Q" },
	{ .what = "2^40 beside 1, usage in the same ratio: tied",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = P40, .usage = (double)P40 * 3600, .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 3600,   .name = "B" },
	  },
	  .count = 2, .order = "A=B" },
	{ .what = "2^40 beside 1, the big one used twice its share",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = P40, .usage = (double)P40 * 7200, .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 3600,   .name = "B" },
	  },
	  .count = 2, .order = "B A" },
	{ .what = "2^40 beside 1, the small one used twice its share",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = P40, .usage = (double)P40 * 3600, .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 7200,   .name = "B" },
	  },
	  .count = 2, .order = "A B" },
	{ .what = "2^40 beside 1, both busy alike: the big share first",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = P40, .usage = 3600,   .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 3600,   .name = "B" },
	  },
	  .count = 2, .order = "A B" },
	{ .what = "a tiny usage beside a huge one",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 1e-300, .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 1e300,  .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 1,   .usage = DBL_MAX / 4, .name = "C" },
	  },
	  .count = 3, .order = "A B C" },
	{ .what = "LFs equal as doubles, apart as long doubles: not tied",
	  /* usum / (3 u): 0.66666666666666670366 (A) and ...77771 (B),
	   * both 0.66666666666666674068 as doubles */
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 9007199254740991.0, .name = "A" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 9007199254740990.0, .name = "B" },
		{ .id = 3,   .parent = 0,  .shares = 1,   .usage = 2,      .name = "C" },
	  },
	  .count = 3, .order = "C B A", .order_narrow = "C A=B" },
	{ .what = "an account holding jobs of its own",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .usage = 100,    .name = "P" },
		{ .id = 2,   .parent = 0,  .shares = 1,   .usage = 50,     .name = "Q" },
		{ .id = 11,  .parent = 1,  .shares = 1,   .usage = 0,      .name = "p1" },
	  },
	  .count = 3, .order = "Q p1" },
};

struct sb_tree *build(const struct sn *n, size_t count, double **usage)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t i, ix, cnt;
	double *u;

	for (i = 0; i < count; i++)
		ck_assert_int_eq(sb_tree_add(t, n[i].id, n[i].parent, n[i].shares,
					     n[i].name), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	cnt = sb_tree_count(t);
	u = calloc(cnt ? cnt : 1, sizeof(*u));
	for (i = 0; i < count; i++) {
		ck_assert_int_eq(sb_tree_index(t, n[i].id, &ix), SB_OK);
		u[ix] = n[i].usage;
	}
	for (i = cnt; i-- > 0;) {
		uint32_t p = sb_tree_node(t, i)->parent;

		if (p != SB_NONE)
			u[p] += u[i];
	}
	*usage = u;
	return t;
}

/* The leaves in standing order but @skip, "=" between tied ones. */
static void render_except(const struct sb_standing *st, const char *skip,
			  char *buf, size_t len)
{
	const struct sb_tree *t = sb_standing_tree(st);
	const uint32_t *order;
	uint32_t n, i, prev = UINT32_MAX;
	size_t o = 0;

	buf[0] = '\0';
	order = sb_standing_order(st, &n);
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t, order[i]);
		const struct sb_standing_node *s = sb_standing_node(st, order[i]);
		int w;

		if (nd->nchildren || (skip && !strcmp(nd->name, skip)))
			continue;
		w = snprintf(buf + o, len - o, "%s%s",
			     prev == UINT32_MAX ? "" : s->rank == prev ? "=" : " ",
			     nd->name);
		ck_assert_msg(w > 0 && (size_t)w < len - o,
			      "render: %d bytes do not fit in %zu", w, len - o);
		o += (size_t)w;
		prev = s->rank;
	}
}

static void render(const struct sb_standing *st, char *buf, size_t len)
{
	render_except(st, NULL, buf, len);
}

void check_sane(const struct sb_standing *st, const char *what)
{
	const struct sb_tree *t = sb_standing_tree(st);
	uint32_t n = sb_tree_count(t), nl = sb_tree_nleaves(t), i;
	const uint32_t *order = sb_standing_order(st, NULL);
	char *seen = calloc(n ? n : 1, 1);
	uint32_t prev_rank = 0, leaves = 0;

	for (i = 0; i < n; i++) {
		const struct sb_standing_node *s = sb_standing_node(st, i);

		ck_assert_msg(isfinite(s->usage) && isfinite(s->usage_norm) &&
			      isfinite(s->level_fs) && isfinite(s->factor) &&
			      isfinite(s->shares_norm),
			      "%s: node %u has a non-finite value (usage %g, U %g, "
			      "LF %g, factor %g)", what, i, s->usage, s->usage_norm,
			      s->level_fs, s->factor);
		ck_assert_msg(s->factor >= 0 && s->factor <= 1 &&
			      s->usage_norm >= 0 && s->usage_norm <= 1 &&
			      s->level_fs >= 0,
			      "%s: node %u: factor %.17g, U %.17g, LF %.17g out of "
			      "range", what, i, s->factor, s->usage_norm, s->level_fs);
		ck_assert_msg(s->level >= 1 && s->level <= SB_PRIO_LEVEL_MAX,
			      "%s: node %u level %u", what, i, s->level);
		ck_assert_uint_lt(s->position, n);
		ck_assert_uint_eq(order[s->position], i);
		ck_assert_msg(!seen[s->position], "%s: position %u given twice",
			      what, s->position);
		seen[s->position] = 1;
		ck_assert_uint_lt(s->rank, nl ? nl : 1);
	}
	/* ranks never decrease along the order; a new rank = leaves so far */
	for (i = 0; i < n; i++) {
		const struct sb_standing_node *s = sb_standing_node(st, order[i]);

		if (sb_tree_node(t, order[i])->nchildren)
			continue;
		ck_assert_msg(s->rank >= prev_rank && (s->rank == prev_rank ||
						       s->rank == leaves),
			      "%s: leaf at position %u has rank %u after rank %u "
			      "with %u leaves before it", what, i, s->rank,
			      prev_rank, leaves);
		prev_rank = s->rank;
		leaves++;
	}
	/* levels strictly decrease along the order (n is small here) */
	for (i = 1; i < n; i++)
		ck_assert_uint_gt(sb_standing_node(st, order[i - 1])->level,
				  sb_standing_node(st, order[i])->level);
	free(seen);
}

void check_depth_first(const struct sb_standing *st, const char *what)
{
	const struct sb_tree *t = sb_standing_tree(st);
	uint32_t n = sb_tree_count(t), i, a, b;

	for (i = 0; i < n; i++) {
		const struct sb_tree_node *p = sb_tree_node(t, i);

		for (a = 0; a < p->nchildren; a++) {
			for (b = 0; b < p->nchildren; b++) {
				uint32_t x = p->children[a], y = p->children[b], j;
				const struct sb_standing_node *sx = sb_standing_node(st, x);
				const struct sb_standing_node *sy = sb_standing_node(st, y);
				uint32_t xmax = 0, ymin = UINT32_MAX;
				bool better = sx->lf_class > sy->lf_class ||
					(sx->lf_class == sy->lf_class &&
					 sx->lf_class == SB_LF_FINITE &&
					 sx->level_fs > sy->level_fs);

				if (!better)
					continue;
				for (j = x; j < sb_tree_node(t, x)->subtree_end; j++)
					if (!sb_tree_node(t, j)->nchildren &&
					    sb_standing_node(st, j)->position > xmax)
						xmax = sb_standing_node(st, j)->position;
				for (j = y; j < sb_tree_node(t, y)->subtree_end; j++)
					if (!sb_tree_node(t, j)->nchildren &&
					    sb_standing_node(st, j)->position < ymin)
						ymin = sb_standing_node(st, j)->position;
				ck_assert_msg(xmax < ymin, "%s: a leaf of %u (last at "
					      "%u) after a leaf of worse sibling %u "
					      "(first at %u)", what,
					      sb_tree_node(t, x)->id, xmax,
					      sb_tree_node(t, y)->id, ymin);
			}
		}
	}
}

struct sb_standing *standing_of(const struct sb_tree *t, const double *u)
{
	struct sb_standing *st;

	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	ck_assert_int_eq(sb_standing_compute_usage(st, u), SB_OK);
	return st;
}

START_TEST(test_order)
{
	const struct order_case *c = &orders[_i];
	const char *want = c->order_narrow && !wide_long_double() ?
			   c->order_narrow : c->order;
	struct sb_standing *st;
	struct sb_tree *t;
	double *u;
	char got[256];

	t = build(c->n, c->count, &u);
	st = standing_of(t, u);
	render(st, got, sizeof(got));
	ck_assert_msg(!strcmp(got, want), "%s: order \"%s\", expected \"%s\"",
		      c->what, got, want);
	check_sane(st, c->what);
	check_depth_first(st, c->what);
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

/*
 * Results depend only on ratios: shares scaled by k (k * shares <= 2^40) and
 * usage scaled by a power of two give the same order and bit-identical
 * factors, LFs and levels.
 */
START_TEST(test_scaling)
{
	static const uint64_t k[] = { 3, 1000, 1u << 20, P40 / 1024 };
	static const double us[] = { 1, 0.125, 1024.0 * 1024 };
	const struct order_case *c = &orders[_i];
	struct sb_standing *st, *st2;
	struct sb_tree *t, *t2;
	double *u, *u2;
	size_t s, v, i;

	t = build(c->n, c->count, &u);
	st = standing_of(t, u);
	for (s = 0; s < sizeof(k) / sizeof(k[0]); s++) {
		for (v = 0; v < sizeof(us) / sizeof(us[0]); v++) {
			struct sn sc[NMAX];
			int skip = 0;

			memcpy(sc, c->n, sizeof(sc));
			for (i = 0; i < c->count; i++) {
				if (sc[i].shares != UP) {
					if (sc[i].shares > P40 / k[s])
						skip = 1;
					sc[i].shares *= k[s];
				}
				sc[i].usage *= us[v];
				if (!isfinite(sc[i].usage) ||
				    (c->n[i].usage > 0 && c->n[i].usage * us[v] < 1e-290))
					skip = 1;
			}
			if (skip)
				continue;
			t2 = build(sc, c->count, &u2);
			st2 = standing_of(t2, u2);
			for (i = 0; i < sb_tree_count(t); i++) {
				const struct sb_standing_node *a = sb_standing_node(st, i);
				const struct sb_standing_node *b = sb_standing_node(st2, i);

				ck_assert_msg(a->rank == b->rank &&
					      a->position == b->position &&
					      a->factor == b->factor &&
					      a->level == b->level &&
					      a->level_fs == b->level_fs &&
					      a->lf_class == b->lf_class,
					      "%s, shares x%llu, usage x%g: node %u "
					      "rank %u/%u LF %.17g/%.17g factor "
					      "%.17g/%.17g", c->what,
					      (unsigned long long)k[s], us[v],
					      (unsigned)i, a->rank, b->rank,
					      a->level_fs, b->level_fs, a->factor,
					      b->factor);
			}
			sb_standing_free(st2);
			sb_tree_free(t2);
			free(u2);
		}
	}
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

/*
 * An idle sibling (usage 0) neither lifts nor sinks the others: A and B
 * keep their order, or their tie, whatever the idle C's shares.
 */
struct idle_case {
	uint64_t sa, sb;
	double ua, ub;
	const char *order;	/* of A and B */
};

static const struct idle_case idle[] = {
	{ .sa = 3,   .sb = 1, .ua = 300, .ub = 100, .order = "A=B" },
	{ .sa = 3,   .sb = 1, .ua = 100, .ub = 100, .order = "A B" },
	{ .sa = 3,   .sb = 1, .ua = 400, .ub = 100, .order = "B A" },
	{ .sa = 1,   .sb = 1, .ua = 7,   .ub = 7,   .order = "A=B" },
	{ .sa = 1,   .sb = 2, .ua = 1,   .ub = 3,   .order = "A B" },              /* LF 4/3 against 8/9 */
	{ .sa = 1,   .sb = 2, .ua = 1,   .ub = 1,   .order = "B A" },
	{ .sa = P40, .sb = 1, .ua = (double)P40 * 10, .ub = 10,  .order = "A=B" },
	{ .sa = P40, .sb = 1, .ua = 10,  .ub = 10,  .order = "A B" },
	{ .sa = 0,   .sb = 1, .ua = 0,   .ub = 5,   .order = "B A" },
};

START_TEST(test_idle_sibling)
{
	static const uint64_t cs[] = { 0, 1, 7, 1000000, P40, UP };
	const struct idle_case *c = &idle[_i];
	size_t j;

	for (j = 0; j <= sizeof(cs) / sizeof(cs[0]); j++) {
		/* j == count: without C at all */
		int with_c = j < sizeof(cs) / sizeof(cs[0]);
		struct sn n[3] = {
			{ 1, 0, c->sa, c->ua, "A" },
			{ 2, 0, c->sb, c->ub, "B" },
			{ 3, 0, with_c ? cs[j] : 0, 0, "C" },
		};
		struct sb_standing *st;
		struct sb_tree *t;
		char got[64], ab[64];
		double *u;

		t = build(n, with_c ? 3 : 2, &u);
		st = standing_of(t, u);
		render(st, got, sizeof(got));
		render_except(st, "C", ab, sizeof(ab));
		ck_assert_msg(!strcmp(ab, c->order),
			      "A(%llu, %g) B(%llu, %g) with idle C(%s%llu): A and B "
			      "ordered \"%s\" (full \"%s\"), expected \"%s\"",
			      (unsigned long long)c->sa, c->ua,
			      (unsigned long long)c->sb, c->ub,
			      with_c ? "" : "none, ",
			      (unsigned long long)(with_c ? cs[j] : 0), ab, got,
			      c->order);
		check_sane(st, "idle sibling");
		sb_standing_free(st);
		sb_tree_free(t);
		free(u);
	}
}
END_TEST

int main(void)
{
	Suite *s = suite_create("standing");
	TCase *tc = tcase_create("standing");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_order, 0, sizeof(orders) / sizeof(orders[0]));
	tcase_add_loop_test(tc, test_scaling, 0, sizeof(orders) / sizeof(orders[0]));
	tcase_add_loop_test(tc, test_idle_sibling, 0, sizeof(idle) / sizeof(idle[0]));
	standing_value_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
