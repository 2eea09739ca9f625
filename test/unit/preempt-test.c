/*
 * preempt-test.c - who may preempt whom (every rule, in its order), the
 * victim order, the action taken, the config keys, and repair release.
 * A run's time (suspended time, warnings, delays) is tested in
 * preempt-run-test.c.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "preempt-test.h"
#include "sb/config.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/wait.h"

struct check_case {
	const char *what;
	struct sb_preempt_job preemptor, victim;
	int64_t now;
	enum sb_nonresumable nonres;
	enum sb_preempt_verdict want;
};

static const struct check_case checks[] = {
	{ .what = "allocated takes unallocated at once",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 5),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = UNALLOC(true),    .start = 100, .priority = P(false, 9),  .tres = 1, .suspended = 0 },
	  .now = 100,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_YES },
	{ .what = "unallocated never preempts, even an unallocated job",
	  .preemptor = { .contract = UNALLOC(true),    .start = 0,   .priority = P(false, 9),  .tres = 1, .suspended = 0 },
	  .victim    = { .contract = UNALLOC(true),    .start = 0,   .priority = P(false, 1),  .tres = 1, .suspended = 0 },
	  .now = 1000, .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_UNALLOCATED },
	{ .what = "unallocated never preempts an allocated job past its min runtime",
	  .preemptor = { .contract = UNALLOC(true),    .start = 0,   .priority = P(false, 9),  .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(10, true),  .start = 0,   .priority = P(true, 1),   .tres = 1, .suspended = 0 },
	  .now = 1000, .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_UNALLOCATED },
	{ .what = "inside the min runtime: protected, whatever the standing",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 999), .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 100, .priority = P(true, 1),   .tres = 1, .suspended = 0 },
	  .now = 129,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_PROTECTED },
	{ .what = "at start + min runtime exactly: preemptable",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 999), .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 100, .priority = P(true, 1),   .tres = 1, .suspended = 0 },
	  .now = 130,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_YES },
	{ .what = "past min runtime, victim's standing equal: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_OUTRANKED },
	{ .what = "past min runtime, victim's standing better: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_OUTRANKED },
	{ .what = "past min runtime, preemptor's standing better: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_YES },
	{ .what = "a requeued (resumed) teammate of equal standing: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 7) | SB_PRIO_RESUMED, .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_OUTRANKED },
	{ .what = "not resumable, site cancels: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_YES },
	{ .what = "not resumable, requeued by default: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "--no-requeue, requeued by default: taken (cancelled)",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC_NRQ(30),    .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "--no-requeue, site keeps: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC_NRQ(30),    .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_PREEMPT_KEPT },
	{ .what = "not resumable, site keeps: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_PREEMPT_KEPT },
	{ .what = "unallocated, not resumable, site keeps: kept",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = UNALLOC(false),   .start = 0,   .priority = P(false, 7),  .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_PREEMPT_KEPT },
	{ .what = "protection is checked before standing",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 1),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 490, .priority = P(true, 9),   .tres = 1, .suspended = 0 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_PROTECTED },
	/* the break-even rule: a victim that would lose its run is kept
	 * once what its time limit leaves is no more than its run */
	{ .what = "not resumable, limit leaves more than its run: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = 1001 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "not resumable, limit leaves exactly its run: ends sooner",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = 1000 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_ENDS_SOONER },
	{ .what = "not resumable, site cancels, second half of its limit: ends sooner",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = 600 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_ENDS_SOONER },
	{ .what = "--no-requeue (cancelled), second half of its limit: ends sooner",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC_NRQ(30),    .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = 600 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_ENDS_SOONER },
	{ .what = "resumable keeps its work: the limit does not matter",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = 600 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "unallocated: preemptable whatever its limit (its contract)",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = UNALLOC(false),   .start = 0,   .priority = P(false, 7),  .tres = 1, .time_limit = 600 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "no limit known: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .time_limit = -1 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "suspended time pushes the limit's end and is not run",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1, .suspended = 200, .time_limit = 600 },
	  .now = 450,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "outranked is decided before the break-even rule",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 8),   .tres = 1, .time_limit = 600 },
	  .now = 500,  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_OUTRANKED },
	{ .what = "PreemptLossWait is sb_preempt_decide()'s, not asked here",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 1500, .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_PREEMPT_YES },
	{ .what = "a start in the far future never overflows",
	  .preemptor = { .contract = ALLOC(60, true),  .start = 0,   .priority = P(true, 8),   .tres = 1, .suspended = 0 },
	  .victim    = { .contract = ALLOC(30, true),  .start = INT64_MAX - 5, .priority = P(true, 7),   .tres = 1, .suspended = 0 },
	  .now = INT64_MAX - 1, .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_PREEMPT_PROTECTED },
};

START_TEST(test_p_macro)
{
	ck_assert_uint_eq(P(true, 7), sb_priority_compose(true, 7, SB_PRIO_TEAM_DEFAULT));
	ck_assert_uint_eq(P(false, 9), sb_priority_compose(false, 9, SB_PRIO_TEAM_DEFAULT));
}
END_TEST

START_TEST(test_check)
{
	const struct check_case *c = &checks[_i];
	struct sb_preempt_policy pol;
	enum sb_preempt_verdict v;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	pol.loss_wait = 1800;	/* sb_preempt_check() never asks it */
	v = sb_preempt_check(&pol, &c->preemptor, &c->victim, c->now);
	ck_assert_msg(v == c->want, "%s: got %d (%s), want %d (%s)", c->what, v,
		      sb_preempt_verdict_str(v), c->want,
		      sb_preempt_verdict_str(c->want));
}
END_TEST

struct ends_case {
	const char *what;
	struct sb_preempt_job job;
	int64_t want;
};

static const struct ends_case ends[] = {
	{ .what = "start + limit",
	  .job = { .start = 100, .time_limit = 60 },                    .want = 160 },
	{ .what = "suspended time pushes it back",
	  .job = { .start = 100, .time_limit = 60, .suspended = 30 },   .want = 190 },
	{ .what = "negative suspended time counts 0",
	  .job = { .start = 100, .time_limit = 60, .suspended = -30 },  .want = 160 },
	{ .what = "no limit (0)",
	  .job = { .start = 100, .time_limit = 0 },                     .want = INT64_MAX },
	{ .what = "no limit (negative)",
	  .job = { .start = 100, .time_limit = -5 },                    .want = INT64_MAX },
	{ .what = "saturates at the far end",
	  .job = { .start = INT64_MAX - 10, .time_limit = 60 },         .want = INT64_MAX },
	{ .what = "a huge limit and suspension saturate",
	  .job = { .start = 1, .time_limit = INT64_MAX - 1, .suspended = 5 }, .want = INT64_MAX },
};

START_TEST(test_ends_by)
{
	const struct ends_case *c = &ends[_i];

	ck_assert_msg(sb_run_ends_by(&c->job) == c->want, "%s: got %lld, "
		      "want %lld", c->what, (long long)sb_run_ends_by(&c->job),
		      (long long)c->want);
}
END_TEST

START_TEST(test_ends_sooner_default_policy)
{
	struct sb_preempt_job v = { .contract = ALLOC(30, false), .start = 0,
				    .tres = 1, .time_limit = 600 };

	/* NULL policy: the defaults (PreemptNonResumable=requeue) */
	ck_assert(sb_preempt_ends_sooner(NULL, &v, 300));
	ck_assert(!sb_preempt_ends_sooner(NULL, &v, 299));
	v.contract.resumable = true;
	ck_assert(!sb_preempt_ends_sooner(NULL, &v, 500));
}
END_TEST

START_TEST(test_check_null)
{
	struct sb_preempt_job j = { .contract = ALLOC(1, true), .start = 0, .priority = P(true, 2), .tres = 1, .suspended = 0 };

	ck_assert_int_eq(sb_preempt_check(NULL, NULL, &j, 0), SB_PREEMPT_UNALLOCATED);
	ck_assert_int_eq(sb_preempt_check(NULL, &j, NULL, 0), SB_PREEMPT_UNALLOCATED);
	/* NULL policy: the defaults (requeue: the victim restarts) */
	j.contract.resumable = false;
	ck_assert_int_eq(sb_preempt_check(NULL, &(struct sb_preempt_job){ .contract = ALLOC(1, true), .start = 0, .priority = P(true, 9), .tres = 1, .suspended = 0 }, &j, 10), SB_PREEMPT_YES);
	ck_assert_str_eq(sb_preempt_verdict_str(SB_PREEMPT_PROTECTED),
			 "inside its minimum runtime");
	ck_assert_str_eq(sb_preempt_verdict_str((enum sb_preempt_verdict)77),
			 "unknown verdict");
}
END_TEST

struct rank_case {
	const char *what;
	struct sb_preempt_job job;
	uint32_t want;
};

static const struct rank_case ranks[] = {
	{ .what = "allocated: its priority",
	  .job = { .contract = ALLOC(60, true), .priority = P(true, 7) },
	  .want = P(true, 7) },
	{ .what = "allocated: without the resumed bit",
	  .job = { .contract = ALLOC(60, true),
		   .priority = P(true, 7) | SB_PRIO_RESUMED },
	  .want = P(true, 7) },
	{ .what = "unallocated: 0",
	  .job = { .contract = UNALLOC(true), .priority = P(false, 9) },
	  .want = 0 },
};

START_TEST(test_rank)
{
	const struct rank_case *c = &ranks[_i];

	ck_assert_msg(sb_preempt_rank(&c->job) == c->want, "%s: got %u, "
		      "want %u", c->what, sb_preempt_rank(&c->job), c->want);
}
END_TEST

/* The rank as the check reads it: every case whose victim ranks at least
 * its allocated preemptor (rank not 0) is refused for rank or protection. */
START_TEST(test_rank_check)
{
	size_t i;

	ck_assert_uint_eq(sb_preempt_rank(NULL), 0);
	ck_assert(!sb_preempt_outranked(0, NULL));
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check_case *c = &checks[i];
		uint32_t pr = sb_preempt_rank(&c->preemptor);
		struct sb_preempt_policy pol;
		enum sb_preempt_verdict v;

		ck_assert_msg(sb_preempt_outranked(pr, &c->victim) ==
			      (c->victim.contract.allocated &&
			       sb_preempt_rank(&c->victim) >= pr),
			      "%s: sb_preempt_outranked", c->what);
		if (!c->preemptor.contract.allocated || !pr ||
		    sb_preempt_rank(&c->victim) < pr)
			continue;
		sb_preempt_policy_init(&pol);
		pol.nonresumable = c->nonres;
		v = sb_preempt_check(&pol, &c->preemptor, &c->victim, c->now);
		ck_assert_msg(v == SB_PREEMPT_OUTRANKED ||
			      v == SB_PREEMPT_PROTECTED, "%s: got %d", c->what,
			      v);
	}
}
END_TEST

/* The static relation: allocated over unallocated only. */
START_TEST(test_static)
{
	struct sb_contract a = ALLOC(5, true), u = UNALLOC(true);

	ck_assert(sb_preempt_static(&a, &u));
	ck_assert(!sb_preempt_static(&u, &a));
	ck_assert(!sb_preempt_static(&a, &a));
	ck_assert(!sb_preempt_static(&u, &u));
	ck_assert(!sb_preempt_static(NULL, &u));
	ck_assert(!sb_preempt_static(&a, NULL));
}
END_TEST

/* Victim order: unallocated, then resumable, then least work lost, then
 * lowest standing. */
struct order_case {
	const char *what;
	struct sb_preempt_job first, second;	/* first must go first */
	int64_t now;
};

static const struct order_case orders[] = {
	{ .what = "unallocated before allocated, even a long unallocated run",
	  .first  = { .contract = UNALLOC(true),   .start = 0,   .priority = P(false, 999), .tres = 8, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 990, .priority = P(true, 1),    .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "unallocated non-resumable before allocated resumable",
	  .first  = { .contract = UNALLOC(false),  .start = 0,   .priority = P(false, 999), .tres = 8, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 999, .priority = P(true, 1),    .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "resumable before not resumable, though it ran far longer",
	  .first  = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 9),    .tres = 8, .suspended = 0 },
	  .second = { .contract = ALLOC(5, false), .start = 999, .priority = P(true, 1),    .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "unallocated: resumable before not resumable",
	  .first  = { .contract = UNALLOC(true),   .start = 0,   .priority = P(false, 9),   .tres = 8, .suspended = 0 },
	  .second = { .contract = UNALLOC(false),  .start = 999, .priority = P(false, 1),   .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "resumable before a --no-requeue job",
	  .first  = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 9),    .tres = 8, .suspended = 0 },
	  .second = { .contract = ALLOC_NRQ(5),    .start = 999, .priority = P(true, 1),    .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "resumable whose requeue Slurm cannot do counts as losing its run",
	  .first  = { .contract = ALLOC(5, false), .start = 999, .priority = P(true, 9),    .tres = 1, .suspended = 0 },
	  .second = { .contract = { .min_runtime = 5, .resumable = true, .allocated = true, .requeueable = false }, .start = 0,   .priority = P(true, 1),    .tres = 8, .suspended = 0 },
	  .now = 1000 },
	{ .what = "less work lost first, whatever the standing (8x the GPU-s)",
	  .first  = { .contract = ALLOC(5, true),  .start = 990, .priority = P(true, 9),    .tres = 1, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 920, .priority = P(true, 3),    .tres = 1, .suspended = 0 },
	  .now = 1000 },
	{ .what = "less work lost first (fewer GPUs)",
	  .first  = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 3),    .tres = 1, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 3),    .tres = 8, .suspended = 0 },
	  .now = 1000 },
	{ .what = "less work lost first (shorter run)",
	  .first  = { .contract = ALLOC(5, true),  .start = 900, .priority = P(true, 3),    .tres = 4, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 3),    .tres = 4, .suspended = 0 },
	  .now = 1000 },
	{ .what = "about the same work lost (one 9% step): lower standing first",
	  .first  = { .contract = ALLOC(5, true),  .start = 0,   .priority = P(true, 3),    .tres = 4, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 1,   .priority = P(true, 4),    .tres = 4, .suspended = 0 },
	  .now = 1000 },
	{ .what = "same key: the later start first",
	  .first  = { .contract = ALLOC(5, true),  .start = 999, .priority = P(true, 3),    .tres = 4, .suspended = 0 },
	  .second = { .contract = ALLOC(5, true),  .start = 998, .priority = P(true, 3),    .tres = 4, .suspended = 0 },
	  .now = 100000000 },
	{ .what = "unallocated among themselves: less work lost first",
	  .first  = { .contract = UNALLOC(true),   .start = 900, .priority = P(false, 3),   .tres = 1, .suspended = 0 },
	  .second = { .contract = UNALLOC(true),   .start = 0,   .priority = P(false, 2),   .tres = 8, .suspended = 0 },
	  .now = 1000 },
};

START_TEST(test_order)
{
	const struct order_case *c = &orders[_i];

	ck_assert_msg(sb_preempt_victim_cmp(&c->first, &c->second, c->now) < 0,
		      "%s: keys 0x%08x 0x%08x", c->what,
		      sb_preempt_victim_key(&c->first, c->now),
		      sb_preempt_victim_key(&c->second, c->now));
	ck_assert(sb_preempt_victim_cmp(&c->second, &c->first, c->now) > 0);
	ck_assert_int_eq(sb_preempt_victim_cmp(&c->first, &c->first, c->now), 0);
}
END_TEST

/* The key's fields, hand-computed. */
START_TEST(test_key)
{
	struct sb_preempt_job j = { .contract = ALLOC(5, true), .start = 100, .priority = P(true, 3), .tres = 2, .suspended = 0 };

	/* 2 GPUs x 127 s = 254 GPU-s: floor(8 * log2(255)) = 63 */
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0x80000000) | 63 << 20 | 3);
	/* not started yet / clock skew: no work lost */
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 50),
			  UINT32_C(0x80000000) | 3);
	/* not resumable: bit 30 */
	j.contract.resumable = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0xc0000000) | 63 << 20 | 3);
	/* resumable, but Slurm cannot requeue it: loses its run as well */
	j.contract.resumable = true;
	j.contract.requeueable = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0xc0000000) | 63 << 20 | 3);
	j.contract.requeueable = true;
	/* unallocated and resumable: neither top bit */
	j.contract.allocated = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227), 63 << 20 | 3);
	j.contract.allocated = true;
	/* the largest run there can be still fits the 10 bits:
	 * floor(8 * log2(2^64 * 2^63)) = 1016 */
	j.tres = UINT64_MAX;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, INT64_MAX) >> 20 & 1023, 1016);
	ck_assert_uint_eq(sb_preempt_victim_key(&j, INT64_MAX) & 0xfffff, 3);
	/* the highest standing level fills bits 0-19 and no more */
	j.priority = P(true, SB_PRIO_LEVEL_MAX);
	j.tres = 0;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0x80000000) | SB_PRIO_LEVEL_MAX);
	/* a foreign priority (admin-set, 0) sorts as level 0: first */
	j.priority = 0;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227), UINT32_C(0x80000000));
}
END_TEST

/* The action, for every kind of victim under every PreemptNonResumable. */
struct action_case {
	const char *what;
	struct sb_contract c;
	enum sb_nonresumable nonres;
	enum sb_preempt_action want;
	int64_t want_grace;	/* with PreemptGraceTime=30 */
};

static const struct action_case actions[] = {
	{ .what = "resumable batch job: requeued, resumes, gets the grace time", .c = ALLOC(5, true),
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_REQUEUE, .want_grace = 30 },
	{ .what = "resumable under cancel: requeued all the same",      .c = ALLOC(5, true),
	  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_ACTION_REQUEUE, .want_grace = 30 },
	{ .what = "resumable under keep: requeued all the same",        .c = ALLOC(5, true),
	  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_ACTION_REQUEUE, .want_grace = 30 },
	{ .what = "not resumable, requeueable: restarts (the default), no grace", .c = ALLOC(5, false),
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_RESTART, .want_grace = 0 },
	{ .what = "not resumable under cancel: cancelled, no grace",    .c = ALLOC(5, false),
	  .nonres = SB_NONRESUMABLE_CANCEL,  .want = SB_ACTION_CANCEL,  .want_grace = 0 },
	{ .what = "not resumable under keep: never preempted",          .c = ALLOC(5, false),
	  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_ACTION_NONE,    .want_grace = 0 },
	{ .what = "--no-requeue / interactive: cancelled",              .c = ALLOC_NRQ(5),
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_CANCEL,  .want_grace = 0 },
	{ .what = "--no-requeue under keep: never preempted",           .c = ALLOC_NRQ(5),
	  .nonres = SB_NONRESUMABLE_KEEP,    .want = SB_ACTION_NONE,    .want_grace = 0 },
	{ .what = "resumable tag but Slurm cannot requeue: cancelled",  .c = { .min_runtime = 5, .resumable = true, .allocated = true, .requeueable = false },
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_CANCEL,  .want_grace = 0 },
	{ .what = "unallocated resumable: requeued, but no grace time", .c = UNALLOC(true),
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_REQUEUE, .want_grace = 0 },
	{ .what = "unallocated not resumable: restarts, no grace",      .c = UNALLOC(false),
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_RESTART, .want_grace = 0 },
	{ .what = "unallocated --no-requeue: cancelled",                .c = UNALLOC_NRQ,
	  .nonres = SB_NONRESUMABLE_REQUEUE, .want = SB_ACTION_CANCEL,  .want_grace = 0 },
};

START_TEST(test_action)
{
	const struct action_case *c = &actions[_i];
	struct sb_preempt_policy pol;
	enum sb_preempt_action a;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	a = sb_preempt_action(&pol, &c->c);
	ck_assert_msg(a == c->want, "%s: got %d (%s), want %d (%s)", c->what,
		      a, sb_preempt_action_str(a), c->want,
		      sb_preempt_action_str(c->want));
	ck_assert_msg(sb_preempt_grace(&pol, &c->c) == c->want_grace,
		      "%s: grace %lld, want %lld", c->what,
		      (long long)sb_preempt_grace(&pol, &c->c),
		      (long long)c->want_grace);
}
END_TEST

START_TEST(test_action_defaults)
{
	struct sb_preempt_policy pol;
	struct sb_contract r = ALLOC(5, true), n = ALLOC(5, false);
	struct sb_contract q = ALLOC_NRQ(5);

	/* NULL policy: the defaults (requeue, grace 30 s) */
	ck_assert_int_eq(sb_preempt_action(NULL, &r), SB_ACTION_REQUEUE);
	ck_assert_int_eq(sb_preempt_action(NULL, &n), SB_ACTION_RESTART);
	ck_assert_int_eq(sb_preempt_action(NULL, &q), SB_ACTION_CANCEL);
	ck_assert_int_eq(sb_preempt_grace(NULL, &r), 30);
	ck_assert_int_eq(sb_preempt_grace(NULL, &n), 0);
	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(pol.nonresumable, SB_NONRESUMABLE_REQUEUE);
	pol.grace_time = 0;
	ck_assert_int_eq(sb_preempt_grace(&pol, &r), 0);
	pol.grace_time = -4;	/* never negative */
	ck_assert_int_eq(sb_preempt_grace(&pol, &r), 0);
	ck_assert_str_eq(sb_preempt_action_str(SB_ACTION_RESTART),
			 "requeued, restarts from its beginning (not resumable)");
	ck_assert_str_eq(sb_preempt_action_str((enum sb_preempt_action)77),
			 "unknown action");
}
END_TEST

/* The reclaim rule, hand-computed. */
struct reclaim_case {
	const char *what;
	double s_p, u_p, delta, s_v, u_v;
	bool ok;
};

static const struct reclaim_case reclaims[] = {
	{ .what = "idle preemptor, busy victim",     .s_p = 0.5,  .u_p = 0,     .delta = 100,
	  .s_v = 0.5,    .u_v = 1000,  .ok = true },
	/* 0.5 / (900 + 200) = 0.00045 < 0.5 / 1000 = 0.0005 */
	{ .what = "would be more over-used after the transfer", .s_p = 0.5,  .u_p = 900,   .delta = 200,
	  .s_v = 0.5,    .u_v = 1000,  .ok = false },
	/* 0.5 / (700 + 300) = 0.0005 = 0.5 / 1000: equal is enough */
	{ .what = "equal after the transfer",        .s_p = 0.5,  .u_p = 700,   .delta = 300,
	  .s_v = 0.5,    .u_v = 1000,  .ok = true },
	/* 3:1 shares: 0.75 / (2000 + 400) = 0.0003125 >= 0.25 / 1000 */
	{ .what = "larger share carries more usage", .s_p = 0.75, .u_p = 2000,  .delta = 400,
	  .s_v = 0.25,   .u_v = 1000,  .ok = true },
	{ .what = "victim side without shares",      .s_p = 0.1,  .u_p = 1e9,   .delta = 1e9,
	  .s_v = 0,      .u_v = 0,     .ok = true },
	{ .what = "victim side with shares and no usage", .s_p = 0.5,  .u_p = 0,     .delta = 1,
	  .s_v = 0.5,    .u_v = 0,     .ok = false },
	{ .what = "no charged TRES at all",          .s_p = 0.5,  .u_p = 0,     .delta = 0,
	  .s_v = 0.5,    .u_v = 0,     .ok = true },
	{ .what = "huge values do not overflow",     .s_p = 1,    .u_p = 1e300, .delta = 1e300,
	  .s_v = 1e-300, .u_v = 1e300, .ok = true },
	{ .what = "negative usage is refused",       .s_p = 0.5,  .u_p = -1,    .delta = 0,
	  .s_v = 0.5,    .u_v = 10,    .ok = false },
	{ .what = "NaN is refused",                  .s_p = 0.5,  .u_p = NAN,   .delta = 0,
	  .s_v = 0.5,    .u_v = 10,    .ok = false },
};

START_TEST(test_reclaim)
{
	const struct reclaim_case *c = &reclaims[_i];

	ck_assert_msg(sb_preempt_reclaim_ok(c->s_p, c->u_p, c->delta, c->s_v,
					    c->u_v) == c->ok, "%s", c->what);
}
END_TEST

struct repair_case {
	const char *pattern, *reason;
	bool match;
};

static const struct repair_case repairs[] = {
	{ .pattern = "repair*", .reason = "repair: bad GPU 3", .match = true },
	{ .pattern = "repair*", .reason = "REPAIR ticket 42",  .match = true },
	{ .pattern = "repair*", .reason = "maintenance",       .match = false },
	{ .pattern = "repair*", .reason = " repair",           .match = false },
	{ .pattern = "*xid*",   .reason = "GPU fell off the bus (Xid 79)", .match = true },
	{ .pattern = "",        .reason = "repair",            .match = false },
	{ .pattern = "repair*", .reason = NULL,                .match = false },
};

START_TEST(test_repair_match)
{
	const struct repair_case *c = &repairs[_i];
	struct sb_preempt_policy pol;

	sb_preempt_policy_init(&pol);
	strcpy(pol.repair_reason, c->pattern);
	ck_assert_msg(sb_repair_reason_matches(&pol, c->reason) == c->match,
		      "'%s' ~ '%s'", c->pattern, c->reason ? c->reason : "(null)");
}
END_TEST

START_TEST(test_repair_release)
{
	struct sb_preempt_policy pol;
	struct sb_preempt_job inside = { .contract = ALLOC(600, true), .start = 1000, .priority = P(true, 2), .tres = 4, .suspended = 0 };
	struct sb_preempt_job unalloc = { .contract = UNALLOC(true), .start = 1000, .priority = P(false, 2), .tres = 4, .suspended = 0 };
	struct sb_preempt_job nonres = { .contract = ALLOC(600, false), .start = 1000, .priority = P(true, 2), .tres = 4, .suspended = 0 };
	struct sb_preempt_job norq = { .contract = ALLOC_NRQ(600), .start = 1000, .priority = P(true, 2), .tres = 4, .suspended = 0 };

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_repair_release_at(&pol, &inside), 1600);
	ck_assert_int_eq(sb_repair_release_at(&pol, &unalloc), 1000);
	ck_assert_int_eq(sb_repair_release_at(&pol, &nonres), 1600);
	ck_assert_int_eq(sb_repair_release_at(&pol, &norq), 1600);
	pol.nonresumable = SB_NONRESUMABLE_KEEP;
	ck_assert_int_eq(sb_repair_release_at(&pol, &norq), INT64_MAX);
	ck_assert_int_eq(sb_repair_release_at(&pol, &nonres), INT64_MAX);
	ck_assert_int_eq(sb_repair_release_at(&pol, &inside), 1600);
}
END_TEST

/* budget.conf keys of this module: accepted and refused values. */
struct key_case {
	const char *key, *value;
	int rc;
	const char *msg;	/* prefix of the message on failure */
};

static const struct key_case keys[] = {
	{ .key = "PreemptGraceTime",    .value = "0",            .rc = SB_OK,
	  .msg = NULL },
	{ .key = "PreemptGraceTime",    .value = "120",          .rc = SB_OK,
	  .msg = NULL },
	{ .key = "PreemptGraceTime",    .value = "3601",         .rc = SB_ESYNTAX,
	  .msg = "PreemptGraceTime='3601' is not accepted: give whole seconds from 0 to 3600" },
	{ .key = "PreemptGraceTime",    .value = "-1",           .rc = SB_ESYNTAX,
	  .msg = "PreemptGraceTime='-1'" },
	{ .key = "PreemptGraceTime",    .value = "1:00",         .rc = SB_ESYNTAX,
	  .msg = "PreemptGraceTime='1:00'" },
	{ .key = "PreemptGraceTime",    .value = "",             .rc = SB_ESYNTAX,
	  .msg = "PreemptGraceTime=''" },
	{ .key = "PreemptNonResumable", .value = "keep",         .rc = SB_OK,
	  .msg = NULL },
	{ .key = "PreemptNonResumable", .value = "CANCEL",       .rc = SB_OK,
	  .msg = NULL },
	{ .key = "PreemptNonResumable", .value = "requeue",      .rc = SB_OK,
	  .msg = NULL },
	{ .key = "PreemptNonResumable", .value = "restart",      .rc = SB_ESYNTAX,
	  .msg = "PreemptNonResumable='restart' is not accepted: give requeue (the default" },
	{ .key = "PreemptNonResumable", .value = NULL,           .rc = SB_ESYNTAX,
	  .msg = "PreemptNonResumable=" },
	{ .key = "RepairReason",        .value = "hw-*",         .rc = SB_OK,
	  .msg = NULL },
	{ .key = "RepairReason",        .value = "none",         .rc = SB_OK,
	  .msg = NULL },
	{ .key = "RepairReason",        .value = "bad\tpattern", .rc = SB_ESYNTAX,
	  .msg = "RepairReason='bad\\x09pattern' is not accepted" },
	{ .key = "InteractiveWarning",  .value = "0:20",         .rc = SB_OK,
	  .msg = NULL },
	{ .key = "InteractiveWarning",  .value = "none",         .rc = SB_OK,
	  .msg = NULL },
	{ .key = "InteractiveWarning",  .value = "-1",           .rc = SB_ENEGATIVE,
	  .msg = "InteractiveWarning='-1': negative value" },
	{ .key = "InteractiveWarning",  .value = "0:90",         .rc = SB_ESYNTAX,
	  .msg = "InteractiveWarning='0:90'" },
	{ .key = "InteractiveWarning",  .value = NULL,           .rc = SB_EMISSING,
	  .msg = "InteractiveWarning=" },
};

START_TEST(test_keys)
{
	const struct key_case *c = &keys[_i];
	struct sb_config cfg, before;
	char msg[512];
	int rc;

	/* zeroed first, so the padding compares equal too */
	memset(&cfg, 0, sizeof(cfg));
	sb_config_init(&cfg);
	memcpy(&before, &cfg, sizeof(cfg));
	rc = sb_config_set(&cfg, c->key, c->value, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s=%s: rc %d (%s), want %d", c->key,
		      c->value ? c->value : "(null)", rc, msg, c->rc);
	if (c->msg) {
		ck_assert_msg(!strncmp(msg, c->msg, strlen(c->msg)),
			      "message '%s' does not start '%s'", msg, c->msg);
		ck_assert(!memcmp(&cfg, &before, sizeof(cfg)));
	}
}
END_TEST

START_TEST(test_keys_values)
{
	struct sb_config cfg;
	char msg[512];

	sb_config_init(&cfg);
	ck_assert_int_eq(cfg.preempt.grace_time, 30);
	ck_assert_str_eq(cfg.preempt.repair_reason, "repair*");
	ck_assert_int_eq(sb_config_set(&cfg, "preemptgracetime", "7", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.grace_time, 7);
	ck_assert_int_eq(sb_config_set(&cfg, "RepairReason", "none", msg, sizeof(msg)), SB_OK);
	ck_assert_str_eq(cfg.preempt.repair_reason, "");
	ck_assert(!sb_repair_reason_matches(&cfg.preempt, "repair"));
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "Keep", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_KEEP);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 300);
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "0:20", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 20);
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "2", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 120);	/* minutes */
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "none", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 0);
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "REQUEUE", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_REQUEUE);
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "cancel", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_CANCEL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("preempt");
	TCase *tc = tcase_create("preempt");

	tcase_add_test(tc, test_p_macro);
	tcase_add_loop_test(tc, test_check, 0, sizeof(checks) / sizeof(checks[0]));
	tcase_add_test(tc, test_check_null);
	tcase_add_loop_test(tc, test_rank, 0, sizeof(ranks) / sizeof(ranks[0]));
	tcase_add_test(tc, test_rank_check);
	tcase_add_loop_test(tc, test_ends_by, 0, sizeof(ends) / sizeof(ends[0]));
	tcase_add_test(tc, test_ends_sooner_default_policy);
	tcase_add_test(tc, test_static);
	tcase_add_loop_test(tc, test_order, 0, sizeof(orders) / sizeof(orders[0]));
	tcase_add_test(tc, test_key);
	tcase_add_loop_test(tc, test_action, 0, sizeof(actions) / sizeof(actions[0]));
	tcase_add_test(tc, test_action_defaults);
	tcase_add_loop_test(tc, test_reclaim, 0,
			    sizeof(reclaims) / sizeof(reclaims[0]));
	tcase_add_loop_test(tc, test_repair_match, 0,
			    sizeof(repairs) / sizeof(repairs[0]));
	tcase_add_test(tc, test_repair_release);
	tcase_add_loop_test(tc, test_keys, 0, sizeof(keys) / sizeof(keys[0]));
	tcase_add_test(tc, test_keys_values);
	preempt_run_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
