/*
 * figures-test.h - what the parts of the figures test share: times relative
 * to a base, a segment given by association id, and the tests kept in
 * figures-window-test.c.
 */
#ifndef SB_FIGURES_TEST_H
#define SB_FIGURES_TEST_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#define H 3600
/* The table's times are relative to B (a time of 0 means "none" to
 * sb_figures); NO stands for that 0. */
#define B INT64_C(1000000)
#define NO INT64_MIN

static inline int64_t at(int64_t t) { return t == NO ? 0 : B + t; }

/* One segment given by association id (0 = not in the tree). */
struct seg {
	uint32_t id;
	double tres;
	bool allocated;
	int64_t eligible, start, end;
	int64_t suspended;
	bool lost;
};

/* Add the tests of sb_fig_usable, sb_fig_window and sb_fig_all_teams to
 * @tc. */
void figures_window_tests(TCase *tc);

#endif
