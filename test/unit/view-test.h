/*
 * view-test.h - what the parts of the view test share: contracts and
 * priorities as constants, and the tests kept in view-hysteresis-test.c.
 */
#ifndef SB_VIEW_TEST_H
#define SB_VIEW_TEST_H

#include <check.h>
#include <stdint.h>

#include "sb/preempt.h"
#include "sb/priority.h"

/* a requeueable contract, allocated with min runtime @mr or unallocated,
 * resumable if @res */
#define ALLOC(mr, res) { (mr), (res), true, true }
#define UNALLOC(res) { 0, (res), false, true }

/* sb_priority_compose(al, lvl, default in-team), as a constant */
#define P(al, lvl) ((al) ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) | \
	(uint32_t)(lvl) << SB_PRIO_LEVEL_SHIFT | \
	SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT

/* Add the hysteresis tests (holds, the notes they read, the preemption's
 * cost, the minimum gap between preemptions) to @tc. */
void view_hysteresis_tests(TCase *tc);

#endif
