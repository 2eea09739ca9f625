/*
 * sim-engine-test.h - what the parts of the engine test share: a scenario
 * (a small workload with its every run segment worked out by hand) and
 * running one, and the tests kept in sim-engine-options-test.c.
 */
#ifndef SB_SIM_ENGINE_TEST_H
#define SB_SIM_ENGINE_TEST_H

#include <check.h>
#include <stddef.h>

#include "sim.h"

struct scen {
	const char *what;
	const char *tree;
	const char *conf;
	const char *jobs;	/* canonical CSV body (header added) */
	enum sim_policy policy;
	uint32_t nodes, gpn;
	int64_t requeue_delay;
	bool restart;
	/* expected run segments, in the order they end (then by start, then
	 * job): "job:start-end[P|L|C]", job = 1-based input order, P =
	 * preempted and resumed later, L = preempted and its work lost
	 * (requeued to start over), C = preempted and cancelled (lost) */
	const char *segs;
	unsigned preemptions;
	bool at_once;		/* --leftovers at-once (default next-pass) */
	const char *backfill;	/* NULL: the default (reserve:1); "greedy",
				 * "none", "reserve:N" */
	const char *resubmit;	/* --resubmit-delay; NULL: the default */
	bool lane;		/* the debug lane as budget.conf sets it
				 * (default on); false: DebugLaneTRES=0
				 * first, as these cases were written */
};

/* --no-requeue fraction of the next run() (test_no_requeue) */
extern double no_requeue_frac;

/* Run scenario @c into @r, its segments written to @got (@len bytes) as
 * the expected string has them.  Return: 0. */
int run(const struct scen *c, struct sim_result *r, char *got, size_t len);

/* Add the tests of --no-requeue, --resubmit-delay and --until, and the
 * invariants on random workloads, to @tc. */
void sim_engine_option_tests(TCase *tc);

#endif
