/* lane-test.c - the debug lane (sb/lane.h), and its preemptor in
 * sb_preempt_decide() (sb/view.h). */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "sb/error.h"
#include "sb/lane.h"
#include "sb/priority.h"
#include "sb/view.h"

#define MIN 60
/* a budget's priority at standing level @l, in-team default */
#define STANDING(l) (UINT32_C(1) << SB_PRIO_TIER_SHIFT | \
		     (uint32_t)(l) << SB_PRIO_LEVEL_SHIFT | \
		     SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT)
/* in-team and resumed bits kept, level the lane's */
#define LANE(l) ((STANDING(l) & ~(SB_PRIO_LEVEL_MAX << SB_PRIO_LEVEL_SHIFT)) | \
		 SB_PRIO_LEVEL_LANE << SB_PRIO_LEVEL_SHIFT)

static const struct sb_contract debug_c = {
	.min_runtime = 10 * MIN, .resumable = false, .allocated = true,
	.requeueable = true,
};

/* ---------------------------------------------------------- sized */

struct sized_case {
	const char *what;
	struct sb_lane_policy pol;
	struct sb_contract c;
	uint64_t tres;
	bool want;
};

#define DEF { .max_tres = 8, .max_min_runtime = 15 * MIN, .budget_tres = 8 }
#define ALLOC(mr) { .min_runtime = (mr), .allocated = (mr) > 0, \
		    .requeueable = true }

static const struct sized_case sized[] = {
	{ .what = "1 GPU, 10 min", .pol = DEF, .c = ALLOC(10 * MIN), .tres = 1,
	  .want = true },
	{ .what = "8 GPUs, 15 min: both bounds", .pol = DEF,
	  .c = ALLOC(15 * MIN), .tres = 8, .want = true },
	{ .what = "9 GPUs", .pol = DEF, .c = ALLOC(10 * MIN), .tres = 9,
	  .want = false },
	{ .what = "15 min 1 s", .pol = DEF, .c = ALLOC(15 * MIN + 1),
	  .tres = 1, .want = false },
	{ .what = "no GPU", .pol = DEF, .c = ALLOC(10 * MIN), .tres = 0,
	  .want = false },
	{ .what = "unallocated", .pol = DEF, .c = ALLOC(0), .tres = 1,
	  .want = false },
	{ .what = "lane off (DebugLaneTRES=0)",
	  .pol = { .max_tres = 0, .max_min_runtime = 15 * MIN,
		   .budget_tres = 8 },
	  .c = ALLOC(MIN), .tres = 1, .want = false },
	{ .what = "lane off (DebugLaneBudgetTRES=0)",
	  .pol = { .max_tres = 8, .max_min_runtime = 15 * MIN,
		   .budget_tres = 0 },
	  .c = ALLOC(MIN), .tres = 1, .want = false },
	{ .what = "above the budget's lane",
	  .pol = { .max_tres = 8, .max_min_runtime = 15 * MIN,
		   .budget_tres = 4 },
	  .c = ALLOC(MIN), .tres = 5, .want = false },
};

START_TEST(test_sized)
{
	const struct sized_case *t = &sized[_i];

	ck_assert_msg(sb_lane_sized(&t->pol, &t->c, t->tres) == t->want,
		      "%s: want %d", t->what, t->want);
}
END_TEST

START_TEST(test_defaults)
{
	struct sb_lane_policy pol;

	sb_lane_policy_init(&pol);
	ck_assert_uint_eq(pol.max_tres, 8);
	ck_assert_int_eq(pol.max_min_runtime, 900);
	ck_assert_uint_eq(pol.budget_tres, 8);
	ck_assert(!sb_lane_sized(NULL, &debug_c, 1));
	ck_assert(!sb_lane_sized(&pol, NULL, 1));
}
END_TEST

/* ------------------------------------------------- priority and holds */

struct prio_case {
	const char *what;
	uint64_t tres;
	int64_t min_runtime;
	bool pending;
	uint32_t current;	/* the priority it carries now */
	int64_t start, now;
	uint64_t held;		/* its association's lane TRES before */
	bool resumed;		/* requeued: the standing priority's bit */
	bool holds;		/* sb_lane_holds() */
	bool lane;		/* the answer is in the lane */
	uint64_t held_after;
};

static const struct prio_case prios[] = {
	{ .what = "pending, empty lane: enters", .tres = 2,
	  .min_runtime = 10 * MIN, .pending = true, .current = STANDING(5),
	  .held = 0, .lane = true, .held_after = 2 },
	{ .what = "pending, fills the lane exactly", .tres = 2,
	  .min_runtime = 10 * MIN, .pending = true, .current = STANDING(5),
	  .held = 6, .lane = true, .held_after = 8 },
	{ .what = "pending, one GPU too many: waits as its budget's",
	  .tres = 3, .min_runtime = 10 * MIN, .pending = true,
	  .current = STANDING(5), .held = 6, .lane = false, .held_after = 6 },
	{ .what = "pending, already in the lane, admitted again: stays",
	  .tres = 2, .min_runtime = 10 * MIN, .pending = true,
	  .current = LANE(5), .held = 6, .holds = true, .lane = true,
	  .held_after = 8 },
	{ .what = "pending in the lane, no room now (bound lowered): leaves",
	  .tres = 2, .min_runtime = 10 * MIN, .pending = true,
	  .current = LANE(5), .held = 7, .holds = true, .lane = false,
	  .held_after = 7 },
	{ .what = "new job (NO_VAL), lane full: waits as its budget's",
	  .tres = 1, .min_runtime = 10 * MIN, .pending = true,
	  .current = UINT32_C(0xFFFFFFFE), .held = 8, .lane = false,
	  .held_after = 8 },
	{ .what = "new job (INFINITE), empty lane: enters", .tres = 1,
	  .min_runtime = 10 * MIN, .pending = true,
	  .current = UINT32_C(0xFFFFFFFF), .held = 0, .lane = true,
	  .held_after = 1 },
	{ .what = "requeued (resumed bit): does not enter", .tres = 1,
	  .min_runtime = 10 * MIN, .pending = true, .resumed = true,
	  .current = STANDING(5) | SB_PRIO_RESUMED, .held = 0, .lane = false },
	{ .what = "requeued, still carrying its run's lane priority: leaves",
	  .tres = 1, .min_runtime = 10 * MIN, .pending = true, .resumed = true,
	  .current = LANE(5), .held = 1, .holds = true, .lane = false,
	  .held_after = 1 },
	{ .what = "pending, too big for the lane", .tres = 9,
	  .min_runtime = 10 * MIN, .pending = true, .current = STANDING(5),
	  .lane = false },
	{ .what = "pending, min runtime too long", .tres = 1,
	  .min_runtime = 16 * MIN, .pending = true, .current = STANDING(5),
	  .lane = false },
	{ .what = "running in the lane, inside its min runtime", .tres = 2,
	  .min_runtime = 10 * MIN, .current = LANE(5), .start = 1000,
	  .now = 1000 + 10 * MIN - 1, .held = 2, .holds = true, .lane = true,
	  .held_after = 2 },
	{ .what = "running in the lane, min runtime over: its budget's again",
	  .tres = 2, .min_runtime = 10 * MIN, .current = LANE(5),
	  .start = 1000, .now = 1000 + 10 * MIN, .lane = false },
	{ .what = "running, never in the lane: never enters", .tres = 2,
	  .min_runtime = 10 * MIN, .current = STANDING(5), .start = 1000,
	  .now = 1001, .lane = false },
};

START_TEST(test_priority)
{
	const struct prio_case *t = &prios[_i];
	struct sb_lane_policy pol;
	struct sb_preempt_job job = {
		.contract = ALLOC(t->min_runtime), .start = t->start,
		.priority = t->current, .tres = t->tres,
	};
	uint64_t held = t->held;
	uint32_t p;

	sb_lane_policy_init(&pol);
	ck_assert_msg(sb_lane_holds(&pol, &job, t->pending, t->now) ==
		      t->holds, "%s: holds", t->what);
	p = sb_lane_priority(&pol, &job, t->pending, STANDING(5) |
			     (t->resumed ? SB_PRIO_RESUMED : 0), &held, t->now);
	ck_assert_msg(sb_priority_in_lane(p) == t->lane, "%s: %#x in lane %d",
		      t->what, p, t->lane);
	ck_assert_msg((p & ~SB_PRIO_RESUMED) ==
		      (t->lane ? LANE(5) : STANDING(5)), "%s: %#x", t->what, p);
	ck_assert_msg(held == t->held_after || (!t->lane && held == t->held),
		      "%s: held %llu, want %llu", t->what,
		      (unsigned long long)held,
		      (unsigned long long)t->held_after);
}
END_TEST

/* The lane's level is above every standing, keeps in-team and resumed. */
START_TEST(test_lane_level)
{
	uint32_t best = sb_priority_compose(true, SB_PRIO_LEVEL_TOP,
					    SB_PRIO_TEAM_MAX);
	uint32_t low = sb_priority_resumed(
		sb_priority_compose(true, 1, 3), true, true);
	uint32_t l = sb_priority_lane(low);
	struct sb_priority_parts parts;

	ck_assert_uint_gt(l, best);
	ck_assert_uint_eq(sb_priority_lane(STANDING(5)), LANE(5));
	ck_assert_uint_eq(sb_priority_compose(true, 5, SB_PRIO_TEAM_DEFAULT),
			  STANDING(5));
	ck_assert(sb_priority_in_lane(l));
	ck_assert(!sb_priority_in_lane(best));
	ck_assert(!sb_priority_in_lane(sb_priority_compose(false,
		SB_PRIO_LEVEL_MAX, 1)));
	ck_assert_int_eq(sb_priority_decode(l, &parts), SB_OK);
	ck_assert(parts.lane && parts.allocated && parts.resumed);
	ck_assert_uint_eq(parts.in_team, 3);
	ck_assert_uint_eq(parts.level, SB_PRIO_LEVEL_LANE);
	/* never Slurm's INFINITE or NO_VAL */
	ck_assert_uint_lt(sb_priority_lane(sb_priority_compose(true, 1,
		SB_PRIO_TEAM_MAX) | SB_PRIO_RESUMED), UINT32_C(0xFFFFFFFE));
	/* Slurm's sentinels are no lane priority: a new job carries one */
	ck_assert(!sb_priority_in_lane(UINT32_C(0xFFFFFFFF)));
	ck_assert(!sb_priority_in_lane(UINT32_C(0xFFFFFFFE)));
	ck_assert(sb_priority_in_lane(UINT32_C(0xFFFFFFFD)));
	/* a held job stays held */
	ck_assert_uint_eq(sb_lane_priority(NULL, NULL, true, 0, NULL, 0), 0);
}
END_TEST

/* Two pending lane-sized jobs of one budget: the second waits. */
START_TEST(test_two_pending)
{
	struct sb_lane_policy pol;
	struct sb_preempt_job a = { .contract = ALLOC(5 * MIN), .tres = 8,
				    .priority = STANDING(9) };
	struct sb_preempt_job b = a;
	uint64_t held = 0;

	sb_lane_policy_init(&pol);
	ck_assert(sb_priority_in_lane(sb_lane_priority(&pol, &a, true,
		STANDING(9), &held, 0)));
	ck_assert(!sb_priority_in_lane(sb_lane_priority(&pol, &b, true,
		STANDING(9), &held, 0)));
	ck_assert_uint_eq(held, 8);
	/* without a counter nothing enters */
	ck_assert(!sb_priority_in_lane(sb_lane_priority(&pol, &b, true,
		STANDING(9), NULL, 0)));
}
END_TEST

/* ---------------------------------------------- the lane preemptor */

/* A two-budget tree: "over" has used far more than its share, "under"
 * less; the lane lets over's debug job take under's job past its min
 * runtime, which the reclaim rule alone refuses. */
/* Who sb_preempt_decide() takes as a lane preemptor. */
START_TEST(test_lane_preemptor)
{
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = {
		.job = { .contract = ALLOC(10 * MIN), .tres = 1,
			 .priority = LANE(3) },
		.index = SB_NONE,
	};

	sb_preempt_policy_init(&pol);
	ck_assert(sb_lane_preemptor(&pol, &p));
	ck_assert(sb_lane_preemptor(NULL, &p));	/* the defaults */
	ck_assert(!sb_lane_preemptor(&pol, NULL));
	/* a number in the lane's range that no lane job could carry */
	p.job.tres = 9;
	ck_assert(!sb_lane_preemptor(&pol, &p));
	p.job.tres = 1;
	p.job.contract.min_runtime = 16 * MIN;
	ck_assert(!sb_lane_preemptor(&pol, &p));
	p.job.contract.min_runtime = 10 * MIN;
	/* the lane turned off by a reconfigure */
	pol.lane.max_tres = 0;
	ck_assert(!sb_lane_preemptor(&pol, &p));
	sb_preempt_policy_init(&pol);
	/* a requeued victim that still carries its run's lane priority */
	p.preempted = true;
	ck_assert(!sb_lane_preemptor(&pol, &p));
	p.preempted = false;
	p.job.priority = STANDING(3);
	ck_assert(!sb_lane_preemptor(&pol, &p));
}
END_TEST

START_TEST(test_decide)
{
	struct sb_tree *tree = sb_tree_new();
	struct sb_view v;
	double usage[2];
	uint32_t io, iu;
	struct sb_preempt_party pre = {
		.job = { .contract = ALLOC(10 * MIN), .tres = 1,
			 .priority = STANDING(1) },
	};
	struct sb_preempt_party vic = {
		.job = { .contract = ALLOC(10 * MIN), .tres = 1, .start = 0,
			 .priority = STANDING(9) },
	};
	char why[256];

	vic.job.contract.resumable = true;
	ck_assert_int_eq(sb_tree_add(tree, 1, 0, 1, "over"), SB_OK);
	ck_assert_int_eq(sb_tree_add(tree, 2, 0, 1, "under"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(tree), SB_OK);
	ck_assert_int_eq(sb_tree_index(tree, 1, &io), SB_OK);
	ck_assert_int_eq(sb_tree_index(tree, 2, &iu), SB_OK);
	pre.index = io;
	vic.index = iu;
	usage[io] = 1e9;
	usage[iu] = 1e3;
	ck_assert_int_eq(sb_view_init(&v, tree), SB_OK);
	ck_assert_int_eq(sb_view_set_charged(&v, usage), SB_OK);
	/* outranked without the lane */
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 3600, why,
					   sizeof(why)), SB_PREEMPT_OUTRANKED);
	/* the lane: past the victim's min runtime, taken */
	pre.job.priority = sb_priority_lane(STANDING(1));
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 3600, why,
					   sizeof(why)), SB_PREEMPT_YES);
	ck_assert_msg(strstr(why, "debug lane"), "%s", why);
	/* without a view (another priority plugin) no priority is a lane's */
	ck_assert_int_eq(sb_preempt_decide(NULL, NULL, &pre, &vic, 3600, NULL,
					   0), SB_PREEMPT_NOVIEW);
	/* ... but never inside it */
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 10 * MIN - 1,
					   NULL, 0), SB_PREEMPT_PROTECTED);
	/* ... nor a teammate of no lower in-team priority */
	vic.index = io;
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 3600, why,
					   sizeof(why)), SB_PREEMPT_OUTRANKED);
	ck_assert_msg(strstr(why, "same budget"), "%s", why);
	/* ... unless its in-team priority is lower */
	vic.job.priority = sb_priority_compose(true, 9, 100);
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 3600, NULL,
					   0), SB_PREEMPT_YES);
	vic.index = iu;
	vic.job.priority = STANDING(9);
	/* ... nor within its interval hold */
	vic.preempted = true;
	vic.preempted_at = 3000;
	ck_assert_int_eq(sb_preempt_decide(NULL, &v, &pre, &vic, 3600, NULL,
					   0), SB_PREEMPT_INTERVAL);
	sb_view_free(&v);
	sb_tree_free(tree);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("lane");
	TCase *tc = tcase_create("lane");

	tcase_add_loop_test(tc, test_sized, 0, sizeof(sized) / sizeof(sized[0]));
	tcase_add_test(tc, test_defaults);
	tcase_add_loop_test(tc, test_priority, 0,
			    sizeof(prios) / sizeof(prios[0]));
	tcase_add_test(tc, test_lane_level);
	tcase_add_test(tc, test_two_pending);
	tcase_add_test(tc, test_lane_preemptor);
	tcase_add_test(tc, test_decide);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
