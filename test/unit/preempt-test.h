/*
 * preempt-test.h - what the parts of the preempt test share: contracts and
 * priorities as constants, and the tests kept in preempt-run-test.c.
 */
#ifndef SB_PREEMPT_TEST_H
#define SB_PREEMPT_TEST_H

#include <check.h>
#include <stdint.h>

#include "sb/preempt.h"
#include "sb/priority.h"

/* a batch job that allows requeue (requeueable), as most are */
#define ALLOC(mr, res) { .min_runtime = (mr), .resumable = (res), \
			 .allocated = true, .requeueable = true }
#define UNALLOC(res) { .min_runtime = 0, .resumable = (res), \
		       .allocated = false, .requeueable = true }
/* one that cannot be requeued: --no-requeue, or salloc/srun */
#define ALLOC_NRQ(mr) { .min_runtime = (mr), .resumable = false, \
			.allocated = true, .requeueable = false }
#define UNALLOC_NRQ { .min_runtime = 0, .resumable = false, \
		      .allocated = false, .requeueable = false }
/* sb_priority_compose(al, lvl, default in-team), as a constant */
#define P(al, lvl) ((al) ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) | \
	(uint32_t)(lvl) << SB_PRIO_LEVEL_SHIFT | \
	SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT

/* Add the tests of a run's time (suspended time, charge rate, warnings,
 * requeue and restart delays, why a pending job waits) to @tc. */
void preempt_run_tests(TCase *tc);

#endif
