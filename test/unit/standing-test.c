/*
 * standing-test.c - Fair Tree order: LF = S/U per level, depth first, ties,
 * zero usage first and zero shares last, huge and tiny shares side by side,
 * idle siblings that must not change the others' order, merged tied
 * accounts, factors, and no NaN/infinity whatever the input.
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

#define NMAX 16
#define P40 (UINT64_C(1) << 40)
#define UP SB_SHARES_USE_PARENT

struct sn {
	uint32_t id, parent;
	uint64_t shares;
	double usage;		/* own allocated usage, TRES-seconds */
	const char *name;
};

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

/* Subtree usage from the own usages of a spec (sum over the tree). */
static struct sb_tree *build(const struct sn *n, size_t count, double **usage)
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

/* Check the invariants every standing must satisfy. */
static void check_sane(const struct sb_standing *st, const char *what)
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

/*
 * The Fair Tree property: if sibling X ranks strictly better than sibling Y,
 * every leaf below X comes before every leaf below Y.
 */
static void check_depth_first(const struct sb_standing *st, const char *what)
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

static struct sb_standing *standing_of(const struct sb_tree *t, const double *u)
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

/* Factors: 1 - rank / (nleaves - 1); equal ranks, equal factors. */
START_TEST(test_factors)
{
	const struct sn four[] = {
		{ 1, 0, 1, 10, "A" }, { 2, 0, 1, 20, "B" },
		{ 3, 0, 1, 30, "C" }, { 4, 0, 1, 40, "D" },
	};
	const struct sn tied[] = {
		{ 1, 0, 1, 10, "A" }, { 2, 0, 1, 10, "B" }, { 3, 0, 1, 40, "C" },
	};
	const double want4[] = { 1, 2.0 / 3, 1.0 / 3, 0 };
	const double want3[] = { 1, 1, 0 };
	struct sb_standing *st;
	struct sb_tree *t;
	double *u;
	uint32_t i;

	t = build(four, 4, &u);
	st = standing_of(t, u);
	for (i = 0; i < 4; i++)
		ck_assert_msg(fabs(sb_standing_node(st, i)->factor - want4[i]) < 1e-15,
			      "leaf %u: factor %.17g, expected %.17g", i,
			      sb_standing_node(st, i)->factor, want4[i]);
	ck_assert_double_eq(sb_standing_node(st, 3)->factor, 0.0);
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);

	t = build(tied, 3, &u);
	st = standing_of(t, u);
	for (i = 0; i < 3; i++)
		ck_assert_msg(sb_standing_node(st, i)->factor == want3[i],
			      "leaf %u: factor %.17g, expected %.17g", i,
			      sb_standing_node(st, i)->factor, want3[i]);
	ck_assert_uint_eq(sb_standing_node(st, 0)->rank, 0);
	ck_assert_uint_eq(sb_standing_node(st, 1)->rank, 0);
	ck_assert_uint_eq(sb_standing_node(st, 2)->rank, 2);
	/* tied leaves still get distinct positions (ascending id) */
	ck_assert_uint_eq(sb_standing_node(st, 0)->position, 0);
	ck_assert_uint_eq(sb_standing_node(st, 1)->position, 1);
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

/* LF and U as Fair Tree defines them, for sshare. */
START_TEST(test_level_values)
{
	const struct sn n[] = {
		{ 1, 0, 3, 100, "A" }, { 2, 0, 1, 300, "B" }, { 3, 0, 0, 0, "C" },
		{ 4, 0, 4, 0, "D" },
	};
	struct sb_standing *st;
	struct sb_tree *t;
	double *u;
	const struct sb_standing_node *a, *b, *c, *d;

	t = build(n, 4, &u);
	st = standing_of(t, u);
	a = sb_standing_node(st, 0);
	b = sb_standing_node(st, 1);
	c = sb_standing_node(st, 2);
	d = sb_standing_node(st, 3);
	/* S: 3/8, 1/8, 0, 4/8; U: 1/4, 3/4, 0, 0 */
	ck_assert_double_eq(a->shares_norm, 0.375);
	ck_assert_double_eq(a->usage_norm, 0.25);
	ck_assert_double_eq(a->level_fs, 1.5);
	ck_assert_int_eq(a->lf_class, SB_LF_FINITE);
	ck_assert_double_eq_tol(b->level_fs, 1.0 / 6, 1e-16);
	ck_assert_int_eq(c->lf_class, SB_LF_NOSHARES);
	ck_assert_double_eq(c->level_fs, 0);
	ck_assert_int_eq(d->lf_class, SB_LF_IDLE);
	ck_assert_double_eq(d->level_fs, DBL_MAX);
	ck_assert_double_eq(d->usage_norm, 0);
	ck_assert_double_eq(a->usage, 100);
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

/*
 * Through the ledger, on a deep tree: every node's usage is its own plus
 * its children's, and the standing sees the same numbers.
 */
START_TEST(test_deep_tree_from_ledger)
{
	enum { DEPTH = 12 };
	struct sb_tree *t = sb_tree_new();
	struct sb_ledger *l;
	struct sb_standing *st;
	const int64_t now = 1700000000;
	uint32_t i, k, id = 1;

	/* a binary "caterpillar": each level has one leaf and one account */
	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "top"), SB_OK);
	for (i = 1; i < DEPTH; i++) {
		ck_assert_int_eq(sb_tree_add(t, 2 * i, id, i, "leaf"), SB_OK);
		ck_assert_int_eq(sb_tree_add(t, 2 * i + 1, id, 1, "acct"), SB_OK);
		id = 2 * i + 1;
	}
	ck_assert_int_eq(sb_tree_add(t, 2 * DEPTH, id, 1, "bottom"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, SB_LEDGER_DEFAULT_WINDOW,
				       SB_LEDGER_DEFAULT_WIDTH, &l), SB_OK);
	for (i = 0; i < sb_tree_count(t); i++)
		ck_assert_int_eq(sb_ledger_charge(l, i, now - 1000 * (i + 1), now,
						  (double)(i % 4), true), SB_OK);
	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	ck_assert_int_eq(sb_standing_compute(st, l, now), SB_OK);
	for (i = 0; i < sb_tree_count(t); i++) {
		const struct sb_tree_node *nd = sb_tree_node(t, i);
		double own = 1000.0 * (i + 1) * (double)(i % 4), sum = own;

		for (k = 0; k < nd->nchildren; k++)
			sum += sb_standing_node(st, nd->children[k])->usage;
		ck_assert_msg(sb_standing_node(st, i)->usage == sum,
			      "node %u: usage %.17g, expected own %.17g + children "
			      "= %.17g", nd->id, sb_standing_node(st, i)->usage,
			      own, sum);
		ck_assert_double_eq(sb_standing_node(st, i)->usage,
				    sb_ledger_usage(l, i, now, true));
	}
	check_sane(st, "deep tree");
	check_depth_first(st, "deep tree");
	sb_standing_free(st);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* Random trees with extreme values: never NaN/inf, always consistent. */
START_TEST(test_random_extremes)
{
	static const uint64_t shares[] = { 0, 1, 2, 3, 100, 1u << 31, P40, UP };
	/* at most 60 nodes of DBL_MAX / 128: subtree sums stay finite */
	static const double usage[] = { 0, 0, 1e-300, 1, 3600, 1e15, 1e300,
					DBL_MAX / 128 };
	uint64_t r = 0x9E3779B97F4A7C15ULL;
	int round;

	for (round = 0; round < 300; round++) {
		struct sb_tree *t = sb_tree_new();
		struct sb_standing *st;
		uint32_t n = 1 + (uint32_t)(round % 60), i;
		double *u, own[64];
		char what[64];

		for (i = 0; i < n; i++) {
			uint32_t parent;

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			parent = i ? (uint32_t)((r >> 33) % (i + 1)) : 0;
			ck_assert_int_eq(sb_tree_add(t, i + 1, parent,
						     shares[(r >> 20) % 8], NULL),
					 SB_OK);
			own[i] = usage[(r >> 40) % 8];
		}
		ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
		u = calloc(n, sizeof(*u));
		for (i = 0; i < n; i++) {
			uint32_t ix;

			ck_assert_int_eq(sb_tree_index(t, i + 1, &ix), SB_OK);
			u[ix] = own[i];
		}
		for (i = n; i-- > 0;)
			if (sb_tree_node(t, i)->parent != SB_NONE)
				u[sb_tree_node(t, i)->parent] += u[i];
		snprintf(what, sizeof(what), "random tree %d (%u nodes)", round, n);
		st = standing_of(t, u);
		check_sane(st, what);
		check_depth_first(st, what);
		sb_standing_free(st);
		sb_tree_free(t);
		free(u);
	}
}
END_TEST

/* A shares-0 association is never first unless everything is shares 0. */
START_TEST(test_zero_shares_never_first)
{
	static const double usage[] = { 0, 1, 1e9, 1e300 };
	size_t a, b;

	for (a = 0; a < 4; a++) {
		for (b = 0; b < 4; b++) {
			const struct sn n[] = {
				{ 1, 0, 0, usage[a], "Z" },
				{ 2, 0, 1, usage[b], "B" },
			};
			struct sb_standing *st;
			struct sb_tree *t;
			double *u;

			t = build(n, 2, &u);
			st = standing_of(t, u);
			ck_assert_msg(sb_standing_node(st, 0)->rank == 1 &&
				      sb_standing_node(st, 0)->factor == 0 &&
				      sb_standing_node(st, 1)->factor == 1,
				      "Z(0 shares, %g) rank %u factor %g; B(%g) "
				      "factor %g", usage[a],
				      sb_standing_node(st, 0)->rank,
				      sb_standing_node(st, 0)->factor, usage[b],
				      sb_standing_node(st, 1)->factor);
			sb_standing_free(st);
			sb_tree_free(t);
			free(u);
		}
	}
}
END_TEST

START_TEST(test_path)
{
	const struct sn n[] = {
		{ 1, 0, 1, 0, "top" }, { 2, 1, 1, 0, "mid" }, { 3, 2, 1, 5, "leaf" },
		{ 4, 0, 1, 0, "other" },
	};
	struct sb_standing *st;
	struct sb_tree *t;
	uint32_t path[4], ix;
	double *u;

	t = build(n, 4, &u);
	st = standing_of(t, u);
	ck_assert_int_eq(sb_tree_index(t, 3, &ix), SB_OK);
	ck_assert_uint_eq(sb_standing_path(st, ix, path, 4), 3);
	ck_assert_uint_eq(sb_tree_node(t, path[0])->id, 1);
	ck_assert_uint_eq(sb_tree_node(t, path[1])->id, 2);
	ck_assert_uint_eq(path[2], ix);
	ck_assert_uint_eq(sb_standing_path(st, ix, path, 1), 3);	/* too small */
	ck_assert_uint_eq(sb_tree_node(t, path[0])->id, 1);
	ck_assert_uint_eq(sb_standing_path(st, 99, path, 4), 0);
	/* the LFs along the path are finite and explain the rank */
	ck_assert_int_eq(sb_standing_node(st, path[0])->lf_class, SB_LF_FINITE);
	ck_assert_uint_eq(sb_standing_node(st, ix)->rank, 1);	/* "other" idle */
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

START_TEST(test_errors)
{
	const struct sn n[] = { { 1, 0, 1, 0, "A" }, { 2, 0, 1, 0, "B" } };
	struct sb_tree *t, *other, *unfinal = sb_tree_new();
	struct sb_standing *st = NULL;
	struct sb_ledger *l;
	double *u, *u2, bad[2] = { 1, NAN }, neg[2] = { 1, -1 };
	double inf[2] = { INFINITY, 0 };

	t = build(n, 2, &u);
	other = build(n, 2, &u2);
	free(u2);
	ck_assert_int_eq(sb_standing_new(unfinal, &st), SB_EINVAL);
	ck_assert_ptr_null(st);
	ck_assert_int_eq(sb_standing_new(t, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	/* before any compute: zeros, level 1 */
	ck_assert_uint_eq(sb_standing_node(st, 1)->level, 1);
	ck_assert_int_eq(sb_standing_compute_usage(st, bad), SB_EINVAL);
	ck_assert_int_eq(sb_standing_compute_usage(st, neg), SB_EINVAL);
	ck_assert_int_eq(sb_standing_compute_usage(st, inf), SB_EINVAL);
	ck_assert_int_eq(sb_standing_compute_usage(st, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_new(other, 7200, 3600, &l), SB_OK);
	ck_assert_int_eq(sb_standing_compute(st, l, 0), SB_EINVAL);	/* other tree */
	ck_assert_int_eq(sb_standing_compute(st, NULL, 0), SB_EINVAL);
	ck_assert_ptr_null(sb_standing_node(st, 2));
	ck_assert_ptr_null(sb_standing_node(NULL, 0));
	sb_ledger_free(l);
	sb_standing_free(st);
	sb_standing_free(NULL);
	sb_tree_free(t);
	sb_tree_free(other);
	sb_tree_free(unfinal);
	free(u);
}
END_TEST

/* An empty tree and a very deep chain (no recursion). */
START_TEST(test_shapes)
{
	enum { DEPTH = 200000 };
	struct sb_tree *t = sb_tree_new();
	struct sb_standing *st;
	double *u;
	uint32_t i, n;

	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	ck_assert_int_eq(sb_standing_compute_usage(st, (double[1]){ 0 }), SB_OK);
	ck_assert_ptr_nonnull(sb_standing_order(st, &n));
	ck_assert_uint_eq(n, 0);
	sb_standing_free(st);
	sb_tree_free(t);

	t = sb_tree_new();
	for (i = 1; i <= DEPTH; i++)
		ck_assert_int_eq(sb_tree_add(t, i, i - 1, 1, NULL), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, DEPTH + 1, DEPTH / 2, 1, NULL), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	u = calloc(DEPTH + 1, sizeof(*u));
	u[DEPTH - 1] = 5;	/* the chain's leaf has used something */
	for (i = DEPTH; i-- > 0;)
		if (sb_tree_node(t, i)->parent != SB_NONE)
			u[sb_tree_node(t, i)->parent] += u[i];
	st = standing_of(t, u);
	/* two leaves: the side leaf (idle) first */
	ck_assert_uint_eq(sb_standing_node(st, DEPTH)->rank, 0);
	ck_assert_uint_eq(sb_standing_node(st, DEPTH - 1)->rank, 1);
	ck_assert_uint_eq(sb_standing_node(st, 0)->rank, 1);	/* worst leaf below */
	sb_standing_free(st);
	sb_tree_free(t);
	free(u);
}
END_TEST

/* Committed usage adds to the association and every ancestor, nothing else. */
START_TEST(test_usage_commit)
{
	struct sb_tree *t = sb_tree_new();
	double u[4] = { 10, 4, 6, 0 };	/* pre-order: A(1) -> a1(2), a2(3); B(4) */
	uint32_t a2;

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 3, "A"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 1, 1, "a1"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 3, 1, 1, "a2"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 4, 0, 1, "B"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_tree_index(t, 3, &a2), SB_OK);
	ck_assert_int_eq(sb_usage_commit(t, u, a2, 5), SB_OK);
	ck_assert_msg(u[0] == 15 && u[1] == 4 && u[2] == 11 && u[3] == 0,
		      "got %g %g %g %g, expected 15 4 11 0", u[0], u[1], u[2], u[3]);
	ck_assert_int_eq(sb_usage_commit(t, u, 4, 1), SB_EINVAL);
	ck_assert_int_eq(sb_usage_commit(t, u, a2, -1), SB_EINVAL);
	ck_assert_int_eq(sb_usage_commit(t, u, a2, NAN), SB_EINVAL);
	ck_assert_int_eq(sb_usage_commit(NULL, u, a2, 1), SB_EINVAL);
	sb_tree_free(t);
}
END_TEST

/* sb_served: the Status words, table-driven. */
START_TEST(test_served)
{
	static const struct {
		double share, entitled;
		uint64_t raw;
		enum sb_served want;
	} t[] = {
		{ 0.5, 0.0, 10, SB_SERVED_NO_BUDGET },
		{ 0.5, -0.1, 10, SB_SERVED_NO_BUDGET },
		{ 0.5, NAN, 10, SB_SERVED_NO_BUDGET },
		{ 0.0, 0.25, 0, SB_SERVED_IDLE },
		{ 0.3, 0.25, 0, SB_SERVED_IDLE },	/* raw decides idle */
		{ 0.0, 0.25, 1, SB_SERVED_UNDER },	/* rounded to 0 share */
		{ 0.2474, 0.25, 5, SB_SERVED_UNDER },	/* 98.96% */
		{ 0.2475, 0.25, 5, SB_SERVED_ON_TARGET },	/* 99% */
		{ 0.25, 0.25, 5, SB_SERVED_ON_TARGET },
		{ 0.2525, 0.25, 5, SB_SERVED_ON_TARGET },	/* 101% */
		{ 0.2526, 0.25, 5, SB_SERVED_OVER },
		{ 1.0, 0.01, 5, SB_SERVED_OVER },
		{ NAN, 0.25, 5, SB_SERVED_ON_TARGET },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_msg(sb_served(t[i].share, t[i].entitled, t[i].raw) ==
				      t[i].want,
			      "case %zu: got %s, want %s", i,
			      sb_served_str(sb_served(t[i].share, t[i].entitled,
						      t[i].raw)),
			      sb_served_str(t[i].want));
	ck_assert_str_eq(sb_served_str(SB_SERVED_NO_BUDGET), "no budget");
	ck_assert_str_eq(sb_served_str(SB_SERVED_IDLE), "idle");
	ck_assert_str_eq(sb_served_str(SB_SERVED_UNDER), "under-served");
	ck_assert_str_eq(sb_served_str(SB_SERVED_ON_TARGET), "on target");
	ck_assert_str_eq(sb_served_str(SB_SERVED_OVER), "over-served");
	ck_assert_str_eq(sb_served_str((enum sb_served)99), "unknown");
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
	tcase_add_test(tc, test_factors);
	tcase_add_test(tc, test_level_values);
	tcase_add_test(tc, test_deep_tree_from_ledger);
	tcase_add_test(tc, test_random_extremes);
	tcase_add_test(tc, test_zero_shares_never_first);
	tcase_add_test(tc, test_path);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_shapes);
	tcase_add_test(tc, test_usage_commit);
	tcase_add_test(tc, test_served);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
