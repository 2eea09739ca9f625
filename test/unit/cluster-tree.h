/*
 * cluster-tree.h - the test cluster's budget tree for unit tests:
 *   physics (id 10, RawShares 3) -> phys-a (11, 2), phys-b (12, 1)
 *   bio (20, 1)
 *   nobudget (30, 0)
 * Entitled: physics 0.75, phys-a 0.5, phys-b 0.25, bio 0.25, nobudget 0.
 */
#ifndef SB_TEST_CLUSTER_TREE_H
#define SB_TEST_CLUSTER_TREE_H

#include <check.h>

#include "sb/error.h"
#include "sb/tree.h"

/* A finalized tree; the caller frees it with sb_tree_free(). */
static inline struct sb_tree *cluster_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(sb_tree_add(t, 10, 0, 3, "physics"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 11, 10, 2, "phys-a"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 12, 10, 1, "phys-b"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 20, 0, 1, "bio"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 30, 0, 0, "nobudget"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	return t;
}

/* The tree index of association @id; SB_NONE when it is not there. */
static inline uint32_t cluster_ix(const struct sb_tree *t, uint32_t id)
{
	uint32_t i = SB_NONE;

	if (sb_tree_index(t, id, &i) != SB_OK)
		return SB_NONE;
	return i;
}

#endif /* SB_TEST_CLUSTER_TREE_H */
