/*
 * tree-test.c - the budget tree: normalised shares among all siblings,
 * entitled fractions as products along the path, numbering, and the shapes
 * that are refused (missing parent, cycle, duplicate id).
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/tree.h"

#define NMAX 16
#define P40 (UINT64_C(1) << 40)
#define UP SB_SHARES_USE_PARENT

struct tn {
	uint32_t id, parent;
	uint64_t shares;
	double norm, entitled;	/* expected */
};

struct norm_case {
	const char *what;
	struct tn n[NMAX];
	size_t count;
};

/* Expected values are exact fractions; checked to 1e-15 relative. */
static const struct norm_case norm[] = {
	{ .what = "3:1 split",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 3,   .norm = 0.75,    .entitled = 0.75 },
		{ .id = 2,   .parent = 0,  .shares = 1,   .norm = 0.25,    .entitled = 0.25 },
	  },
	  .count = 2 },
	{ .what = "one top-level association gets everything",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 17,  .norm = 1.0,     .entitled = 1.0 },
		{ .id = 2,   .parent = 1,  .shares = 1,   .norm = 1.0,     .entitled = 1.0 },
	  },
	  .count = 2 },
	{ .what = "idle siblings count: 3 siblings 1:1:2 whatever they use",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .norm = 0.25,    .entitled = 0.25 },
		{ .id = 2,   .parent = 0,  .shares = 1,   .norm = 0.25,    .entitled = 0.25 },
		{ .id = 3,   .parent = 0,  .shares = 2,   .norm = 0.5,     .entitled = 0.5 },
	  },
	  .count = 3 },
	{ .what = "entitlement = product along the path (A1 = 0.7 x 0.5 = 35%)",
	  .n = {
		{ .id = 10,  .parent = 0,  .shares = 70,  .norm = 0.7,     .entitled = 0.7 },
		{ .id = 20,  .parent = 0,  .shares = 30,  .norm = 0.3,     .entitled = 0.3 },
		{ .id = 11,  .parent = 10, .shares = 50,  .norm = 0.5,     .entitled = 0.35 },
		{ .id = 12,  .parent = 10, .shares = 50,  .norm = 0.5,     .entitled = 0.35 },
		{ .id = 21,  .parent = 20, .shares = 1,   .norm = 1.0 / 3, .entitled = 0.1 },
		{ .id = 22,  .parent = 20, .shares = 2,   .norm = 2.0 / 3, .entitled = 0.2 },
		{ .id = 221, .parent = 22, .shares = 1,   .norm = 0.25,    .entitled = 0.05 },
		{ .id = 222, .parent = 22, .shares = 3,   .norm = 0.75,    .entitled = 0.15 },
	  },
	  .count = 8 },
	{ .what = "three levels 3:1 each",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 3,   .norm = 0.75,    .entitled = 0.75 },
		{ .id = 2,   .parent = 0,  .shares = 1,   .norm = 0.25,    .entitled = 0.25 },
		{ .id = 3,   .parent = 1,  .shares = 3,   .norm = 0.75,    .entitled = 0.5625 },
		{ .id = 4,   .parent = 1,  .shares = 1,   .norm = 0.25,    .entitled = 0.1875 },
		{ .id = 5,   .parent = 3,  .shares = 3,   .norm = 0.75,    .entitled = 0.421875 },
		{ .id = 6,   .parent = 3,  .shares = 1,   .norm = 0.25,    .entitled = 0.140625 },
	  },
	  .count = 6 },
	{ .what = "shares 0: no budget, nor for its subtree",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 0,   .norm = 0.0,     .entitled = 0.0 },
		{ .id = 2,   .parent = 0,  .shares = 5,   .norm = 1.0,     .entitled = 1.0 },
		{ .id = 3,   .parent = 1,  .shares = 1,   .norm = 0.5,     .entitled = 0.0 },
		{ .id = 4,   .parent = 1,  .shares = 1,   .norm = 0.5,     .entitled = 0.0 },
	  },
	  .count = 4 },
	{ .what = "all siblings 0: zeros, no NaN",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 0,   .norm = 0.0,     .entitled = 0.0 },
		{ .id = 2,   .parent = 0,  .shares = 0,   .norm = 0.0,     .entitled = 0.0 },
	  },
	  .count = 2 },
	{ .what = "2^40 beside 1",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = P40, .norm = (double)P40 / (double)(P40 + 1), .entitled = (double)P40 / (double)(P40 + 1) },
		{ .id = 2,   .parent = 0,  .shares = 1,   .norm = 1.0 / (double)(P40 + 1), .entitled = 1.0 / (double)(P40 + 1) },
	  },
	  .count = 2 },
	{ .what = "use parent: transparent, out of its siblings' sum",
	  .n = {
		{ .id = 1,   .parent = 0,  .shares = 1,   .norm = 0.5,     .entitled = 0.5 },
		{ .id = 2,   .parent = 0,  .shares = 1,   .norm = 0.5,     .entitled = 0.5 },
		{ .id = 3,   .parent = 1,  .shares = UP,  .norm = 1.0,     .entitled = 0.5 },
		{ .id = 4,   .parent = 1,  .shares = 3,   .norm = 0.75,    .entitled = 0.375 },
		{ .id = 5,   .parent = 1,  .shares = 1,   .norm = 0.25,    .entitled = 0.125 },
		{ .id = 6,   .parent = 3,  .shares = 1,   .norm = 1.0,     .entitled = 0.5 },
	  },
	  .count = 6 },
};

static struct sb_tree *build(const struct tn *n, size_t count, int *rc)
{
	struct sb_tree *t = sb_tree_new();
	size_t i;

	ck_assert_ptr_nonnull(t);
	for (i = 0; i < count; i++)
		ck_assert_int_eq(sb_tree_add(t, n[i].id, n[i].parent,
					     n[i].shares, NULL), SB_OK);
	*rc = sb_tree_finalize(t);
	return t;
}

static void check_close(const char *what, uint32_t id, const char *field,
			double got, double want)
{
	double tol = 1e-15 * (fabs(want) > 1 ? fabs(want) : 1);

	ck_assert_msg(isfinite(got) && fabs(got - want) <= tol,
		      "%s: id %u %s = %.17g, expected %.17g", what, id, field,
		      got, want);
}

START_TEST(test_normalise)
{
	const struct norm_case *c = &norm[_i];
	struct sb_tree *t;
	double top_sum = 0;
	uint32_t ix, i;
	int rc;

	t = build(c->n, c->count, &rc);
	ck_assert_msg(rc == SB_OK, "%s: finalize %d (%s), expected 0", c->what,
		      rc, sb_strerror(rc));
	for (i = 0; i < c->count; i++) {
		const struct sb_tree_node *nd;

		ck_assert_int_eq(sb_tree_index(t, c->n[i].id, &ix), SB_OK);
		nd = sb_tree_node(t, ix);
		ck_assert_uint_eq(nd->id, c->n[i].id);
		ck_assert_uint_eq(nd->raw_shares, c->n[i].shares);
		check_close(c->what, nd->id, "shares_norm", nd->shares_norm,
			    c->n[i].norm);
		check_close(c->what, nd->id, "entitled", nd->entitled,
			    c->n[i].entitled);
		if (nd->parent == SB_NONE && nd->raw_shares != UP)
			top_sum += nd->shares_norm;
	}
	/* normalised shares of the top level sum to 1 unless all are 0 */
	ck_assert_msg(top_sum == 0 || fabs(top_sum - 1) < 1e-15,
		      "%s: top-level shares sum to %.17g", c->what, top_sum);
	sb_tree_free(t);
}
END_TEST

/* Every sibling group's shares_norm (use-parent aside) sums to 1 or 0. */
START_TEST(test_sibling_sums)
{
	const struct norm_case *c = &norm[_i];
	struct sb_tree *t;
	uint32_t i, k;
	int rc;

	t = build(c->n, c->count, &rc);
	ck_assert_int_eq(rc, SB_OK);
	for (i = 0; i < sb_tree_count(t); i++) {
		const struct sb_tree_node *nd = sb_tree_node(t, i);
		double sum = 0;

		if (!nd->nchildren)
			continue;
		for (k = 0; k < nd->nchildren; k++) {
			const struct sb_tree_node *ch =
				sb_tree_node(t, nd->children[k]);

			if (ch->raw_shares != UP)
				sum += ch->shares_norm;
		}
		ck_assert_msg(sum == 0 || fabs(sum - 1) < 1e-15,
			      "%s: children of %u sum to %.17g, expected 1",
			      c->what, nd->id, sum);
	}
	sb_tree_free(t);
}
END_TEST

/* The same associations in any insertion order give the same tree. */
START_TEST(test_insertion_order)
{
	const struct norm_case *c = &norm[3];
	struct tn rev[NMAX];
	struct sb_tree *a, *b;
	uint32_t i;
	int rc;

	for (i = 0; i < c->count; i++)
		rev[i] = c->n[c->count - 1 - i];
	a = build(c->n, c->count, &rc);
	ck_assert_int_eq(rc, SB_OK);
	b = build(rev, c->count, &rc);
	ck_assert_int_eq(rc, SB_OK);
	ck_assert_uint_eq(sb_tree_count(a), sb_tree_count(b));
	for (i = 0; i < sb_tree_count(a); i++) {
		const struct sb_tree_node *x = sb_tree_node(a, i);
		const struct sb_tree_node *y = sb_tree_node(b, i);

		ck_assert_msg(x->id == y->id && x->parent == y->parent &&
			      x->shares_norm == y->shares_norm &&
			      x->entitled == y->entitled,
			      "index %u: id %u/%u parent %u/%u differ", i, x->id,
			      y->id, x->parent, y->parent);
	}
	sb_tree_free(a);
	sb_tree_free(b);
}
END_TEST

/* Pre-order numbering: parents first, subtrees contiguous, ids ascending. */
START_TEST(test_shape)
{
	const struct norm_case *c = &norm[3];
	const uint32_t *top;
	struct sb_tree *t;
	uint32_t i, k, ntop, ix;
	int rc;

	t = build(c->n, c->count, &rc);
	ck_assert_int_eq(rc, SB_OK);
	ck_assert_uint_eq(sb_tree_count(t), 8);
	ck_assert_uint_eq(sb_tree_nleaves(t), 5);	/* 11 12 21 221 222 */
	ck_assert_uint_eq(sb_tree_max_depth(t), 2);
	top = sb_tree_top(t, &ntop);
	ck_assert_uint_eq(ntop, 2);
	ck_assert_uint_eq(sb_tree_node(t, top[0])->id, 10);
	ck_assert_uint_eq(sb_tree_node(t, top[1])->id, 20);
	{
		/* expected pre-order by ascending id */
		static const uint32_t ids[] = { 10, 11, 12, 20, 21, 22, 221, 222 };

		for (i = 0; i < 8; i++)
			ck_assert_msg(sb_tree_node(t, i)->id == ids[i],
				      "index %u: id %u, expected %u", i,
				      sb_tree_node(t, i)->id, ids[i]);
	}
	for (i = 0; i < sb_tree_count(t); i++) {
		const struct sb_tree_node *nd = sb_tree_node(t, i);

		ck_assert_ptr_nonnull(nd->name);
		if (nd->parent != SB_NONE) {
			ck_assert_uint_lt(nd->parent, i);
			ck_assert_uint_eq(nd->depth,
					  sb_tree_node(t, nd->parent)->depth + 1);
			ck_assert_uint_le(nd->subtree_end,
					  sb_tree_node(t, nd->parent)->subtree_end);
		}
		for (k = 0; k < nd->nchildren; k++) {
			ck_assert_uint_eq(sb_tree_node(t, nd->children[k])->parent, i);
			if (k)
				ck_assert_uint_lt(sb_tree_node(t, nd->children[k - 1])->id,
						  sb_tree_node(t, nd->children[k])->id);
		}
		ck_assert_uint_eq(sb_tree_index(t, nd->id, &ix), SB_OK);
		ck_assert_uint_eq(ix, i);
	}
	ck_assert_uint_eq(sb_tree_node(t, 0)->subtree_end, 3);
	ck_assert_uint_eq(sb_tree_node(t, 3)->subtree_end, 8);
	ck_assert_int_eq(sb_tree_index(t, 999, &ix), SB_ENOTFOUND);
	ck_assert_ptr_null(sb_tree_node(t, 8));
	sb_tree_free(t);
}
END_TEST

/* Dividing by the siblings' gcd: results depend only on the ratios. */
START_TEST(test_gcd_scaling)
{
	static const uint64_t base[][3] = {
		{ 3, 1, 0 }, { 1, 1, 1 }, { 7, 5, 2 }, { 1, 0, 4 },
	};
	static const uint64_t k[] = { 1000, 3, P40 / 8, 1 << 20 };
	size_t b, s, i;

	for (b = 0; b < sizeof(base) / sizeof(base[0]); b++) {
		for (s = 0; s < sizeof(k) / sizeof(k[0]); s++) {
			struct sb_tree *x = sb_tree_new(), *y = sb_tree_new();

			for (i = 0; i < 3; i++) {
				ck_assert_int_eq(sb_tree_add(x, i + 1, 0, base[b][i], "x"), 0);
				ck_assert_int_eq(sb_tree_add(y, i + 1, 0, base[b][i] * k[s], "y"), 0);
			}
			ck_assert_int_eq(sb_tree_finalize(x), SB_OK);
			ck_assert_int_eq(sb_tree_finalize(y), SB_OK);
			for (i = 0; i < 3; i++) {
				const struct sb_tree_node *p = sb_tree_node(x, i);
				const struct sb_tree_node *q = sb_tree_node(y, i);

				ck_assert_msg(p->shares_norm == q->shares_norm &&
					      p->level_shares == q->level_shares &&
					      p->level_sum == q->level_sum,
					      "base %zu x%llu, node %zu: norm %.17g vs %.17g, "
					      "level %llu/%llu vs %llu/%llu", b,
					      (unsigned long long)k[s], i, p->shares_norm,
					      q->shares_norm,
					      (unsigned long long)p->level_shares,
					      (unsigned long long)p->level_sum,
					      (unsigned long long)q->level_shares,
					      (unsigned long long)q->level_sum);
			}
			sb_tree_free(x);
			sb_tree_free(y);
		}
	}
}
END_TEST

struct bad_case {
	const char *what;
	struct tn n[NMAX];
	size_t count;
	int rc;
	uint32_t bad_id[3];	/* any of these (a cycle has several members) */
};

static const struct bad_case bad[] = {
	{ .what = "missing parent",
	  .n = {
		{ .id = 1, .parent = 0, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 2, .parent = 1, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 3, .parent = 7, .shares = 1, .norm = 0, .entitled = 0 },
	  },
	  .count = 3, .rc = SB_ENOPARENT,  .bad_id = { 3 } },
	{ .what = "two-node cycle",
	  .n = {
		{ .id = 1, .parent = 0, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 2, .parent = 3, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 3, .parent = 2, .shares = 1, .norm = 0, .entitled = 0 },
	  },
	  .count = 3, .rc = SB_ECYCLE,     .bad_id = { 2, 3 } },
	{ .what = "own parent",
	  .n = {
		{ .id = 1, .parent = 0, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 5, .parent = 5, .shares = 1, .norm = 0, .entitled = 0 },
	  },
	  .count = 2, .rc = SB_ECYCLE,     .bad_id = { 5 } },
	{ .what = "cycle with a tail hanging below it",
	  .n = {
		{ .id = 1, .parent = 0, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 4, .parent = 6, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 5, .parent = 4, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 6, .parent = 5, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 9, .parent = 4, .shares = 1, .norm = 0, .entitled = 0 },
	  },
	  .count = 5, .rc = SB_ECYCLE,     .bad_id = { 4, 5, 6 } },
	{ .what = "no top level at all",
	  .n = {
		{ .id = 1, .parent = 2, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 2, .parent = 1, .shares = 1, .norm = 0, .entitled = 0 },
	  },
	  .count = 2, .rc = SB_ECYCLE,     .bad_id = { 1, 2 } },
	{ .what = "duplicate id",
	  .n = {
		{ .id = 1, .parent = 0, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 2, .parent = 1, .shares = 1, .norm = 0, .entitled = 0 },
		{ .id = 2, .parent = 0, .shares = 3, .norm = 0, .entitled = 0 },
	  },
	  .count = 3, .rc = SB_EDUPLICATE, .bad_id = { 2 } },
};

START_TEST(test_bad_shapes)
{
	const struct bad_case *c = &bad[_i];
	struct sb_tree *t;
	uint32_t bid;
	int rc;

	t = build(c->n, c->count, &rc);
	ck_assert_msg(rc == c->rc, "%s: finalize %d (%s), expected %d (%s)",
		      c->what, rc, sb_strerror(rc), c->rc, sb_strerror(c->rc));
	bid = sb_tree_bad_id(t);
	ck_assert_msg(bid && (bid == c->bad_id[0] || bid == c->bad_id[1] ||
			      bid == c->bad_id[2]),
		      "%s: bad id %u, expected one of %u %u %u", c->what, bid,
		      c->bad_id[0], c->bad_id[1], c->bad_id[2]);
	ck_assert_int_eq(sb_tree_finalized(t), false);
	ck_assert_uint_eq(sb_tree_count(t), 0);
	sb_tree_free(t);
}
END_TEST

/* A failed finalize leaves the tree fixable. */
START_TEST(test_fix_after_error)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t ix;

	ck_assert_int_eq(sb_tree_add(t, 3, 2, 1, "user"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_ENOPARENT);
	ck_assert_uint_eq(sb_tree_bad_id(t), 3);
	ck_assert_int_eq(sb_tree_index(t, 3, &ix), SB_EINVAL);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 1, "acct"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_uint_eq(sb_tree_bad_id(t), 0);
	ck_assert_int_eq(sb_tree_index(t, 3, &ix), SB_OK);
	ck_assert_uint_eq(ix, 1);
	ck_assert_str_eq(sb_tree_node(t, ix)->name, "user");
	sb_tree_free(t);
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t ix, n;

	ck_assert_int_eq(sb_tree_add(NULL, 1, 0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_tree_add(t, 0, 0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, P40 + 1, NULL), SB_ERANGE);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, P40, NULL), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(NULL), SB_EINVAL);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_EINVAL);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 1, NULL), SB_EINVAL);
	ck_assert_str_eq(sb_tree_node(t, 0)->name, "");
	ck_assert_int_eq(sb_tree_index(NULL, 1, &ix), SB_EINVAL);
	ck_assert_int_eq(sb_tree_index(t, 1, NULL), SB_EINVAL);
	ck_assert_ptr_null(sb_tree_node(NULL, 0));
	ck_assert_uint_eq(sb_tree_count(NULL), 0);
	ck_assert_ptr_null(sb_tree_top(NULL, &n));
	ck_assert_uint_eq(n, 0);
	sb_tree_free(t);
	sb_tree_free(NULL);
}
END_TEST

START_TEST(test_empty)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t n = 7;

	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_tree_finalized(t), true);
	ck_assert_uint_eq(sb_tree_count(t), 0);
	ck_assert_ptr_null(sb_tree_top(t, &n));
	ck_assert_uint_eq(n, 0);
	sb_tree_free(t);
}
END_TEST

/* A deep chain and a wide level: no recursion limits, sums stay exact. */
START_TEST(test_big_shapes)
{
	struct sb_tree *t = sb_tree_new();
	const uint32_t depth = 20000, wide = 50000;
	uint32_t i, ix;

	/* a chain 1 <- 2 <- ... <- depth, and beside it one account with
	 * `wide` children of 2^40 shares each */
	for (i = 1; i <= depth; i++)
		ck_assert_int_eq(sb_tree_add(t, i, i - 1, 1, NULL), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, depth + 1, 0, 1, NULL), SB_OK);
	for (i = 0; i < wide; i++)
		ck_assert_int_eq(sb_tree_add(t, depth + 2 + i, depth + 1, P40,
					     NULL), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_uint_eq(sb_tree_max_depth(t), depth - 1);
	ck_assert_int_eq(sb_tree_index(t, depth, &ix), SB_OK);
	ck_assert_double_eq(sb_tree_node(t, ix)->entitled, 0.5);
	ck_assert_uint_eq(sb_tree_node(t, ix)->depth, depth - 1);
	ck_assert_int_eq(sb_tree_index(t, depth + 2, &ix), SB_OK);
	ck_assert_uint_eq(sb_tree_node(t, ix)->level_shares, 1);
	ck_assert_uint_eq(sb_tree_node(t, ix)->level_sum, wide);
	ck_assert_double_eq_tol(sb_tree_node(t, ix)->entitled, 0.5 / wide, 1e-20);
	sb_tree_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tree");
	TCase *tc = tcase_create("tree");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_normalise, 0, sizeof(norm) / sizeof(norm[0]));
	tcase_add_loop_test(tc, test_sibling_sums, 0, sizeof(norm) / sizeof(norm[0]));
	tcase_add_test(tc, test_insertion_order);
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_gcd_scaling);
	tcase_add_loop_test(tc, test_bad_shapes, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_fix_after_error);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_big_shapes);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
