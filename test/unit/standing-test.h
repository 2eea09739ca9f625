/*
 * standing-test.h - what the parts of the standing test share: a tree
 * written as a table, the checks every standing must pass (defined in
 * standing-test.c), and the tests kept in standing-values-test.c.
 */
#ifndef SB_STANDING_TEST_H
#define SB_STANDING_TEST_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/standing.h"
#include "sb/tree.h"

#define P40 (UINT64_C(1) << 40)
#define UP SB_SHARES_USE_PARENT

struct sn {
	uint32_t id, parent;
	uint64_t shares;
	double usage;		/* own allocated usage, TRES-seconds */
	const char *name;
};

/* Subtree usage from the own usages of a spec (sum over the tree). */
struct sb_tree *build(const struct sn *n, size_t count, double **usage);
/* Check the invariants every standing must satisfy. */
void check_sane(const struct sb_standing *st, const char *what);
/*
 * The Fair Tree property: if sibling X ranks strictly better than sibling Y,
 * every leaf below X comes before every leaf below Y.
 */
void check_depth_first(const struct sb_standing *st, const char *what);
/* The standing of tree @t with subtree usage @u. */
struct sb_standing *standing_of(const struct sb_tree *t, const double *u);

/* Add the tests of factors, level values, paths, committed usage, Status
 * words, errors and extreme shapes and values to @tc. */
void standing_value_tests(TCase *tc);

#endif
