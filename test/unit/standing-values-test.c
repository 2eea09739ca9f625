/*
 * standing-values-test.c - what a standing gives besides the order (factors,
 * LF and U per level, paths, committed usage, the Status words) and that it
 * holds whatever the input: usage from a ledger on a deep tree, random
 * extreme values, zero shares, refused arguments, empty and very deep trees.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"
#include "standing-test.h"

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

void standing_value_tests(TCase *tc)
{
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
}
