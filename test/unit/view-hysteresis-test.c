/*
 * view-hysteresis-test.c - what keeps a team from being preempted back and
 * forth: the hold after a preemption, the notes it is read from (and how
 * preempt/budget and job_submit/budget merge them), the cost of a
 * preemption in the full verdict, and the minimum gap between two
 * preemptions of a team.
 *
 * The tree used throughout is the test cluster's (cluster-tree.h).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "cluster-tree.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/view.h"
#include "view-test.h"

struct hold_case {
	const char *what;
	struct sb_preempt_job job;
	bool preempted;
	int64_t preempted_at;
	uint32_t factor;
	int64_t want;
};

static const struct hold_case holds[] = {
	{ .what = "never preempted: the min runtime alone",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = false, .preempted_at = 0,    .factor = 2,   .want = 1600 },
	{ .what = "preempted_at ignored unless preempted",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = false, .preempted_at = 900,  .factor = 5,   .want = 1600 },
	/* preempted at 800, requeued, restarted at 1000: 800 + 2 x 600 */
	{ .what = "preempted: held to P + 2 x min runtime",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 800,  .factor = 2,   .want = 2000 },
	{ .what = "factor 1: the slice of the new run is later",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 800,  .factor = 1,   .want = 1600 },
	{ .what = "factor 4",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 800,  .factor = 4,   .want = 3200 },
	{ .what = "suspended time pushes the slice, not the interval",
	  .job = { .contract = ALLOC(600, true),  .start = 1000, .priority = 0, .tres = 1, .suspended = 500 },
	  .preempted = true,  .preempted_at = 800,  .factor = 2,   .want = 2100 },
	{ .what = "unallocated: never held",
	  .job = { .contract = UNALLOC(true),     .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 990,  .factor = 100, .want = 1000 },
	{ .what = "saturates",
	  .job = { .contract = ALLOC(INT64_MAX / 4, true), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = INT64_MAX / 2, .factor = 100, .want = INT64_MAX },
	{ .what = "preempted at a negative time",
	  .job = { .contract = ALLOC(60, true),   .start = 0,    .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = -100, .factor = 3,   .want = 80 },
	/* rule 3: restarted from its beginning once, never again */
	{ .what = "not resumable, preempted: held to its end",
	  .job = { .contract = ALLOC(600, false), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 800,  .factor = 2,   .want = INT64_MAX },
	{ .what = "not resumable, factor 1: held to its end all the same",
	  .job = { .contract = ALLOC(600, false), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 800,  .factor = 1,   .want = INT64_MAX },
	{ .what = "not resumable, never preempted: the min runtime alone",
	  .job = { .contract = ALLOC(600, false), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = false, .preempted_at = 0,    .factor = 2,   .want = 1600 },
	{ .what = "not resumable, unallocated: never held",
	  .job = { .contract = UNALLOC(false),    .start = 1000, .priority = 0, .tres = 1, .suspended = 0 },
	  .preempted = true,  .preempted_at = 990,  .factor = 2,   .want = 1000 },
};

START_TEST(test_hold_until)
{
	const struct hold_case *c = &holds[_i];
	struct sb_preempt_policy pol;
	struct sb_preempt_party v = { c->job, 0, false, c->preempted,
				      c->preempted_at };

	sb_preempt_policy_init(&pol);
	pol.interval_factor = c->factor;
	ck_assert_msg(sb_preempt_hold_until(&pol, &v) == c->want,
		      "%s: got %lld, want %lld", c->what,
		      (long long)sb_preempt_hold_until(&pol, &v),
		      (long long)c->want);
}
END_TEST

/* sb_preempted_note_at: the hold's input, read from the SystemComment */
static const struct {
	const char *comment;
	bool want;
	int64_t at;
} notes[] = {
	{ .comment = NULL,                             .want = false, .at = 0 },
	{ .comment = "",                               .want = false, .at = 0 },
	{ .comment = "budget:preempted_by=12,at=1700000000,preemptor_priority=5,"
	  "victim_priority=4", .want = true,  .at = 1700000000 },
	{ .comment = "budget:preempted_by=12,at=100",  .want = true,  .at = 100 },
	{ .comment = "admin text budget:preempted_by=12,at=100;more", .want = true,  .at = 100 },
	/* the last note counts */
	{ .comment = "budget:preempted_by=1,at=100 budget:preempted_by=2,at=200", .want = true,  .at = 200 },
	/* a repair note after it keeps it (preempt/budget writes both) */
	{ .comment = "budget:preempted_by=12,at=100 budget:released_for_repair=gpu01,"
	  "at=300", .want = true,  .at = 100 },
	{ .comment = "budget:released_for_repair=gpu01,at=300", .want = false, .at = 0 },
	{ .comment = "budget:preempted_by=12",         .want = false, .at = 0 },
	{ .comment = "budget:preempted_by=12,at=",     .want = true,  .at = 0 },
	{ .comment = "budget:preempted_by=12,at=12x",  .want = false, .at = 0 },
	{ .comment = "budget:preempted_by=12,at=99999999999999999999", .want = false, .at = 0 },
	{ .comment = "budget:preempted_by=12 ,at=100", .want = false, .at = 0 },
};

START_TEST(test_preempted_note)
{
	int64_t at = -1;
	bool got = sb_preempted_note_at(notes[_i].comment, &at);

	ck_assert_msg(got == notes[_i].want && (!got || at == notes[_i].at),
		      "'%s': got %d at %lld", notes[_i].comment ?
		      notes[_i].comment : "(null)", got, (long long)at);
	if (!got)
		ck_assert_int_eq(at, 0);
	ck_assert(!sb_preempted_note_at("budget:preempted_by=1,at=2", NULL));
}
END_TEST

/* sb_preempted_note: the span a release for repair keeps */
START_TEST(test_preempted_note_span)
{
	const char *c = "x budget:preempted_by=1,at=2;y "
			"budget:preempted_by=3,at=4 budget:released_for_repair=n,at=5";
	size_t len = 99;

	ck_assert_ptr_eq(sb_preempted_note(c, &len), strstr(c, "budget:preempted_by=3"));
	ck_assert_uint_eq(len, strlen("budget:preempted_by=3,at=4"));
	ck_assert_ptr_null(sb_preempted_note("budget:released_for_repair=n", &len));
	ck_assert_uint_eq(len, 0);
	ck_assert_ptr_null(sb_preempted_note(NULL, &len));
}
END_TEST

/* sb_note_merge: the AdminComment preempt/budget and job_submit/budget
 * write */
#define TAG "budget:min_runtime=600,resumable=no,allocated=yes"
#define PRE "budget:preempted_by=12,at=100,preemptor_priority=5,victim_priority=4"
#define REP "budget:released_for_repair=gpu01,at=300"
static const struct {
	const char *what, *text, *from, *want;
} merges[] = {
	{ .what = "first note after the tag",             .text = TAG,
	  .from = PRE,         .want = TAG " " PRE },
	{ .what = "admin text kept, note after it",       .text = TAG " admin  text",
	  .from = PRE,         .want = TAG " admin  text " PRE },
	{ .what = "an earlier note replaced",             .text = TAG " " PRE " admin",
	  .from = "budget:preempted_by=13,at=200", .want = TAG " admin budget:preempted_by=13,at=200" },
	{ .what = "repair keeps the preemption in front", .text = TAG " " PRE,
	  .from = PRE " " REP, .want = TAG " " PRE " " REP },
	{ .what = "both replaced by one",                 .text = TAG " " PRE " " REP,
	  .from = "budget:preempted_by=2,at=9", .want = TAG " budget:preempted_by=2,at=9" },
	{ .what = "only notes of @from are taken",        .text = TAG,
	  .from = "text " PRE ";x budget:other=1", .want = TAG " " PRE },
	{ .what = "no tag: the note alone",               .text = NULL,
	  .from = PRE,         .want = PRE },
	{ .what = "empty text",                           .text = "",
	  .from = PRE,         .want = PRE },
	{ .what = "a note first, removed with the space after it", .text = PRE " admin",
	  .from = PRE,         .want = "admin " PRE },
	{ .what = "an admin's new comment keeps the old notes", .text = TAG " new text",
	  .from = TAG " old " PRE, .want = TAG " new text " PRE },
	{ .what = "no notes anywhere: text as is",        .text = TAG " x",
	  .from = TAG,         .want = TAG " x" },
	{ .what = "white space at the ends dropped",      .text = "  " TAG " x  ",
	  .from = NULL,        .want = TAG " x" },
	{ .what = "both NULL",                            .text = NULL,
	  .from = NULL,        .want = "" },
	{ .what = "a word that only contains a note stays", .text = TAG " xbudget:preempted_by=1",
	  .from = NULL,        .want = TAG " xbudget:preempted_by=1" },
};

START_TEST(test_note_merge)
{
	char buf[512], small[8];
	size_t n = sb_note_merge(merges[_i].text, merges[_i].from, buf,
				 sizeof(buf));

	ck_assert_msg(!strcmp(buf, merges[_i].want), "%s: got '%s'",
		      merges[_i].what, buf);
	ck_assert_uint_eq(n, strlen(merges[_i].want));
	ck_assert_uint_eq(sb_note_merge(merges[_i].text, merges[_i].from,
					NULL, 0), n);
	/* truncated as snprintf, NUL-terminated */
	ck_assert_uint_eq(sb_note_merge(merges[_i].text, merges[_i].from,
					small, sizeof(small)), n);
	ck_assert(!strncmp(small, merges[_i].want, sizeof(small) - 1));
	ck_assert_uint_eq(strlen(small), n < sizeof(small) ? n :
			  sizeof(small) - 1);
	/* merging again changes nothing */
	ck_assert_uint_eq(sb_note_merge(buf, buf, small, sizeof(small)), n);
}
END_TEST
#undef TAG
#undef PRE
#undef REP

/* sb_stop_note_of_run: which run's record a note belongs to */
static const struct {
	const char *what;
	struct sb_stop_note n;
	int64_t start, end;
	bool want;
} of_runs[] = {
	{ .what = "during the run",
	  .n = { .preempted = true,  .by_job = 7, .at = 150, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = true },
	{ .what = "at its start",
	  .n = { .preempted = true,  .by_job = 7, .at = 100, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = true },
	{ .what = "at its end (no grace time)",
	  .n = { .preempted = true,  .by_job = 7, .at = 200, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = true },
	{ .what = "before it: an earlier run's, inherited",
	  .n = { .preempted = true,  .by_job = 7, .at = 99,  .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = false },
	{ .what = "after it",
	  .n = { .preempted = true,  .by_job = 7, .at = 201, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = false },
	{ .what = "still running",
	  .n = { .preempted = true,  .by_job = 7, .at = 150, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 0,   .want = true },
	{ .what = "repair note",
	  .n = { .preempted = false, .by_job = 0, .at = 150, .preemptor_priority = 0, .victim_priority = 0, .repair = true,  .node = "gpu01" },
	  .start = 100, .end = 200, .want = true },
	{ .what = "no note",
	  .n = { .preempted = false, .by_job = 0, .at = 150, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = false },
	{ .what = "no at=",
	  .n = { .preempted = true,  .by_job = 7, .at = 0,   .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 100, .end = 200, .want = false },
	{ .what = "never started",
	  .n = { .preempted = true,  .by_job = 7, .at = 150, .preemptor_priority = 0, .victim_priority = 0, .repair = false, .node = "" },
	  .start = 0,   .end = 0,   .want = false },
};

START_TEST(test_stop_note_of_run)
{
	ck_assert_msg(sb_stop_note_of_run(&of_runs[_i].n, of_runs[_i].start,
					  of_runs[_i].end) == of_runs[_i].want,
		      "%s", of_runs[_i].what);
	ck_assert(!sb_stop_note_of_run(NULL, 1, 2));
}
END_TEST

START_TEST(test_hold_until_null)
{
	struct sb_preempt_party v = { { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 }, 0,
				      false, true, 800 };

	ck_assert(sb_preempt_hold_until(NULL, NULL) == INT64_MIN);
	/* NULL policy: the default factor */
	ck_assert(sb_preempt_hold_until(NULL, &v) ==
		  800 + SB_PREEMPT_INTERVAL_FACTOR_DEFAULT * 600);
}
END_TEST

struct cost_case {
	const char *what;
	struct sb_preempt_job job;
	int64_t now, grace, delay;
	uint32_t factor;
	double want;
};

static const struct cost_case costs[] = {
	/* 8 x (30 + 121) */
	{ .what = "resumable: grace + requeue delay",
	  .job = { .contract = ALLOC(600, true),  .start = 0, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 5000, .grace = 30, .delay = 121, .factor = 2, .want = 1208 },
	{ .what = "resumable, no grace, no delay: free",
	  .job = { .contract = ALLOC(600, true),  .start = 0, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 5000, .grace = 0,  .delay = 0,   .factor = 2, .want = 0 },
	/* 2 x (121 + 700): run 700 < 2 x 600; no grace time (nothing to
	 * checkpoint: sb_preempt_grace) */
	{ .what = "not resumable: the run is lost",
	  .job = { .contract = ALLOC(600, false), .start = 0, .priority = 0, .tres = 2, .suspended = 0 },
	  .now = 700,  .grace = 30, .delay = 121, .factor = 2, .want = 1642 },
	/* 2 x (121 + min(5000, 1200)) */
	{ .what = "not resumable: lost capped at factor x min runtime",
	  .job = { .contract = ALLOC(600, false), .start = 0, .priority = 0, .tres = 2, .suspended = 0 },
	  .now = 5000, .grace = 30, .delay = 121, .factor = 2, .want = 2642 },
	/* suspended 300 of 700 s: run 400 */
	{ .what = "suspended time is not lost work",
	  .job = { .contract = ALLOC(600, false), .start = 0, .priority = 0, .tres = 1, .suspended = 300 },
	  .now = 700,  .grace = 0,  .delay = 0,   .factor = 4, .want = 400 },
	/* no grace for an unallocated victim, and its run (cap 0) is not
	 * counted; the requeue delay is */
	{ .what = "unallocated, not resumable: cap 0",
	  .job = { .contract = UNALLOC(false),    .start = 0, .priority = 0, .tres = 4, .suspended = 0 },
	  .now = 700,  .grace = 10, .delay = 5,   .factor = 4, .want = 20 },
	{ .what = "no TRES: free",
	  .job = { .contract = ALLOC(600, false), .start = 0, .priority = 0, .tres = 0, .suspended = 0 },
	  .now = 700,  .grace = 30, .delay = 121, .factor = 2, .want = 0 },
};

START_TEST(test_cost)
{
	const struct cost_case *c = &costs[_i];
	struct sb_preempt_policy pol;
	double got;

	sb_preempt_policy_init(&pol);
	pol.grace_time = c->grace;
	pol.requeue_delay = c->delay;
	pol.interval_factor = c->factor;
	got = sb_preempt_cost(&pol, &c->job, c->now);
	ck_assert_msg(fabs(got - c->want) < 1e-9, "%s: got %.3f, want %.3f",
		      c->what, got, c->want);
}
END_TEST

START_TEST(test_cost_null)
{
	struct sb_preempt_job j = { .contract = ALLOC(600, true), .start = 0, .priority = 0, .tres = 2, .suspended = 0 };

	ck_assert(sb_preempt_cost(NULL, NULL, 0) == 0);
	ck_assert(sb_preempt_cost(NULL, &j, 10) ==
		  2.0 * (30 + SB_REQUEUE_DELAY_DEFAULT));
}
END_TEST

/*
 * The hysteresis in the full verdict, on the cluster tree (physics 0.75,
 * bio 0.25; phys-a 2/3, phys-b 1/3 of physics).  Preemptor: phys-b, 8
 * GPUs, min runtime 60 (delta 480); victim: phys-a, 8 GPUs, min runtime 60,
 * started at 0, decided at 1000.  The reclaim rule at the siblings:
 *     S_b x U_a >= S_a x (U_b + 480 [+ C]),  S_b = 1/3, S_a = 2/3
 * i.e. U_a >= 2 x (U_b + 480 [+ C]).
 */
struct hyst_case {
	const char *what;
	bool resumable;
	bool preempted;
	int64_t preempted_at;
	double u_a, u_b;
	int64_t grace, delay;
	enum sb_preempt_verdict want;
	const char *why;
};

static const struct hyst_case hysts[] = {
	/* C = 8 x 151 = 1208: 2 x (100 + 480 + 1208) = 3576 */
	{ .what = "gap pays for the cost: taken",                  .resumable = true,
	  .preempted = false, .preempted_at = 0,   .u_a = 3576, .u_b = 100, .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_YES,      .why = "past its minimum runtime and outranked; reclaim "
	  "rule holds with the preemption's cost" },
	{ .what = "gap one short of the cost: costly",             .resumable = true,
	  .preempted = false, .preempted_at = 0,   .u_a = 3575, .u_b = 100, .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_COSTLY,   .why = "preemption cost: 'phys-b' is below "
	  "'phys-a'" },
	/* without the cost 2 x 580 = 1160 would do: the plain reclaim rule
	 * still answers RECLAIM below it */
	{ .what = "below the plain reclaim rule: reclaim",         .resumable = true,
	  .preempted = false, .preempted_at = 0,   .u_a = 1159, .u_b = 100, .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_RECLAIM,  .why = "reclaim rule" },
	{ .what = "no grace, no delay, resumable: the plain rule", .resumable = true,
	  .preempted = false, .preempted_at = 0,   .u_a = 1160, .u_b = 100, .grace = 0,  .delay = 0,
	  .want = SB_PREEMPT_YES,      .why = "past its minimum" },
	/* not resumable: lost = min(1000, 2 x 60) = 120, no grace; C = 8 x
	 * (121 + 120) = 1928: 2 x (580 + 1928) = 5016 */
	{ .what = "not resumable: its lost run is a cost",         .resumable = false,
	  .preempted = false, .preempted_at = 0,   .u_a = 5015, .u_b = 100, .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_COSTLY,   .why = "preemption cost" },
	{ .what = "not resumable, gap enough",                     .resumable = false,
	  .preempted = false, .preempted_at = 0,   .u_a = 5016, .u_b = 100, .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_YES,      .why = "past its minimum" },
	/* preempted at 900: held to 900 + 2 x 60 = 1020 > 1000 */
	{ .what = "preempted 100 s ago: held by the interval",     .resumable = true,
	  .preempted = true,  .preempted_at = 900, .u_a = 1e9,  .u_b = 0,   .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_INTERVAL, .why = "preempted less than" },
	{ .what = "preempted 120 s ago: the interval is over",     .resumable = true,
	  .preempted = true,  .preempted_at = 880, .u_a = 1e9,  .u_b = 0,   .grace = 30, .delay = 121,
	  .want = SB_PREEMPT_YES,      .why = "past its minimum" },
};

START_TEST(test_decide_hysteresis)
{
	const struct hyst_case *c = &hysts[_i];
	struct sb_tree *t = cluster_tree();
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 9), .tres = 8, .suspended = 0 },
				      0, false, false, 0 };
	struct sb_preempt_party v = { { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 5), .tres = 8, .suspended = 0 },
				      0, false, false, 0 };
	struct sb_view view;
	double charged[5] = { 0 };
	char why[512];
	enum sb_preempt_verdict got;

	sb_preempt_policy_init(&pol);
	pol.grace_time = c->grace;
	pol.requeue_delay = c->delay;
	pol.interval_factor = 2;
	v.job.contract.resumable = c->resumable;
	v.preempted = c->preempted;
	v.preempted_at = c->preempted_at;
	ck_assert_int_eq(sb_view_init(&view, t), SB_OK);
	charged[cluster_ix(t, 10)] = c->u_a + c->u_b;
	charged[cluster_ix(t, 11)] = c->u_a;
	charged[cluster_ix(t, 12)] = c->u_b;
	ck_assert_int_eq(sb_view_set_charged(&view, charged), SB_OK);
	p.index = cluster_ix(t, 12);
	v.index = cluster_ix(t, 11);
	got = sb_preempt_decide(&pol, &view, &p, &v, 1000, why, sizeof(why));
	ck_assert_msg(got == c->want, "%s: got %d (%s), want %d", c->what, got,
		      why, c->want);
	ck_assert_msg(!strncmp(why, c->why, strlen(c->why)),
		      "%s: why '%s' does not start '%s'", c->what, why, c->why);
	sb_view_free(&view);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_decide_ends_sooner)
{
	/* A victim in the second half of its time limit that would lose its
	 * run is refused before any view is read (none is given), and the
	 * why gives both figures; with a limit twice as long the verdict
	 * goes on to the rules that read the view. */
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { .job = { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 9), .tres = 8 },
				      .index = SB_NONE };
	struct sb_preempt_party v = { .job = { .contract = ALLOC(60, false), .start = 0, .priority = P(true, 5), .tres = 8,
					       .time_limit = 1200 },
				      .index = SB_NONE };
	char why[512];

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_preempt_decide(&pol, NULL, &p, &v, 700, why,
					   sizeof(why)),
			 SB_PREEMPT_ENDS_SOONER);
	ck_assert_str_eq(why, "its time limit ends it sooner than the work "
			 "it would lose (not resumable): its time limit ends "
			 "it in 500 s, a preemption would throw away its 700 "
			 "s run");
	/* past the break-even rule, the next rule asks for the view */
	v.job.time_limit = 2400;
	ck_assert_int_eq(sb_preempt_decide(&pol, NULL, &p, &v, 700, NULL, 0),
			 SB_PREEMPT_NOVIEW);
}
END_TEST

/*
 * PreemptLossWait in the full verdict (sb_preempt_decide()'s step 7), on
 * the cluster tree as above: preemptor phys-b (8 GPUs, eligible at 900),
 * victim phys-a (8 GPUs, not resumable, started at 0), PreemptLossWait
 * 30:00 (until 2700).  It is asked only where the answer would be yes.
 */
struct loss_case {
	const char *what;
	bool resumable, preempted, lane, same_budget, no_view;
	double u_a;
	int64_t now;
	enum sb_preempt_verdict want;
	const char *why;
};

static const struct loss_case losses[] = {
	{ .what = "reclaim holds, run would be lost: waits", .u_a = 1e9, .now = 1000,
	  .want = SB_PREEMPT_LOSS_WAIT,
	  .why = "it would lose its run (not resumable), and the preemptor has "
		 "not yet waited as many GPU-seconds, at most PreemptLossWait: "
		 "waited 100 s x 8, its run would lose 1000 s x 8; waits until "
		 "2700 at the latest" },
	{ .what = "at the cap: taken", .u_a = 1e9, .now = 2700,
	  .want = SB_PREEMPT_YES, .why = "past its minimum runtime and outranked" },
	{ .what = "resumable: taken at once", .resumable = true, .u_a = 1e9, .now = 1000,
	  .want = SB_PREEMPT_YES, .why = "past its minimum runtime and outranked" },
	{ .what = "restarted once already: the interval, not the wait", .preempted = true,
	  .u_a = 1e9, .now = 1000, .want = SB_PREEMPT_INTERVAL, .why = "not resumable and restarted" },
	{ .what = "the reclaim rule refuses first", .u_a = 0, .now = 1000,
	  .want = SB_PREEMPT_RECLAIM, .why = "reclaim rule" },
	{ .what = "no view: no standing known first", .no_view = true, .u_a = 1e9, .now = 1000,
	  .want = SB_PREEMPT_NOVIEW, .why = "no budget standing" },
	{ .what = "the same budget: waits too", .same_budget = true, .u_a = 1e9, .now = 1000,
	  .want = SB_PREEMPT_LOSS_WAIT, .why = "it would lose its run" },
	{ .what = "a debug lane preemptor: taken at once", .lane = true, .u_a = 1e9, .now = 1000,
	  .want = SB_PREEMPT_YES, .why = "the preemptor is in the debug lane" },
};

START_TEST(test_decide_loss_wait)
{
	const struct loss_case *c = &losses[_i];
	struct sb_tree *t = cluster_tree();
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { .job = { .contract = ALLOC(60, true), .priority = P(true, 9), .tres = 8,
					       .eligible = 900 } };
	struct sb_preempt_party v = { .job = { .contract = ALLOC(60, false), .start = 0, .priority = P(true, 5), .tres = 8 } };
	struct sb_view view;
	double charged[5] = { 0 };
	char why[512];
	enum sb_preempt_verdict got;

	sb_preempt_policy_init(&pol);
	pol.loss_wait = 1800;
	v.job.contract.resumable = c->resumable;
	v.preempted = c->preempted;
	v.preempted_at = 0;
	if (c->lane)
		p.job.priority = sb_priority_lane(p.job.priority);
	ck_assert_int_eq(sb_view_init(&view, t), SB_OK);
	charged[cluster_ix(t, 10)] = c->u_a;
	charged[cluster_ix(t, 11)] = c->u_a;
	ck_assert_int_eq(sb_view_set_charged(&view, charged), SB_OK);
	p.index = cluster_ix(t, 12);
	v.index = cluster_ix(t, c->same_budget ? 12 : 11);
	got = sb_preempt_decide(&pol, c->no_view ? NULL : &view, &p, &v, c->now,
				why, sizeof(why));
	ck_assert_msg(got == c->want, "%s: got %d (%s), want %d", c->what, got,
		      why, c->want);
	ck_assert_msg(!strncmp(why, c->why, strlen(c->why)),
		      "%s: why '%s' does not start '%s'", c->what, why, c->why);
	/* the verdict without the text is the same */
	ck_assert_int_eq(sb_preempt_decide(&pol, c->no_view ? NULL : &view, &p,
					   &v, c->now, NULL, 0), got);
	sb_view_free(&view);
	sb_tree_free(t);
}
END_TEST

/* sb_preempt_min_gap(): the fewest seconds between two preemptions of a
 * job, the bound sbudget-sim checks (factor 2, requeue delay 121 s, backoff
 * capped at 1 day unless the row says otherwise). */
struct gap_case {
	const char *what;
	struct sb_contract c;
	uint32_t k;
	enum sb_nonresumable nonresumable;
	uint32_t factor;
	int64_t want;
};

static const struct gap_case gaps[] = {
	{ .what = "allocated resumable, 15 min: 2 x 15 min",
	  .c = ALLOC(900, true), .k = 1, .factor = 2, .want = 1800 },
	{ .what = "the count does not matter to it",
	  .c = ALLOC(900, true), .k = 40, .factor = 2, .want = 1800 },
	{ .what = "factor 1: the requeue delay, then the min runtime",
	  .c = ALLOC(900, true), .k = 1, .factor = 1, .want = 1021 },
	{ .what = "short min runtime: the requeue delay dominates",
	  .c = ALLOC(60, true), .k = 3, .factor = 2, .want = 181 },
	{ .what = "factor 100: 100 min runtimes",
	  .c = ALLOC(60, true), .k = 1, .factor = 100, .want = 6000 },
	{ .what = "allocated, not resumable: restarted once, never again",
	  .c = ALLOC(900, false), .k = 1, .factor = 2, .want = INT64_MAX },
	{ .what = "allocated, cannot be requeued: cancelled",
	  .c = { .min_runtime = 900, .resumable = false, .allocated = true,
		 .requeueable = false },
	  .k = 1, .factor = 2, .want = INT64_MAX },
	{ .what = "allocated, kept: never preempted",
	  .c = ALLOC(900, false), .k = 1,
	  .nonresumable = SB_NONRESUMABLE_KEEP, .factor = 2,
	  .want = INT64_MAX },
	{ .what = "unallocated resumable, first: the requeue delay",
	  .c = UNALLOC(true), .k = 1, .factor = 2, .want = 121 },
	{ .what = "unallocated resumable, fourth: 8 x",
	  .c = UNALLOC(true), .k = 4, .factor = 2, .want = 968 },
	{ .what = "unallocated, not resumable, eleventh: the day cap",
	  .c = UNALLOC(false), .k = 11, .factor = 2, .want = 86400 },
	{ .what = "unallocated, not resumable, cancel policy: gone",
	  .c = UNALLOC(false), .k = 1,
	  .nonresumable = SB_NONRESUMABLE_CANCEL, .factor = 2,
	  .want = INT64_MAX },
	{ .what = "unallocated resumable, cancel policy: still requeued",
	  .c = UNALLOC(true), .k = 2,
	  .nonresumable = SB_NONRESUMABLE_CANCEL, .factor = 2, .want = 242 },
	{ .what = "unallocated, kept: never preempted",
	  .c = UNALLOC(false), .k = 2,
	  .nonresumable = SB_NONRESUMABLE_KEEP, .factor = 2,
	  .want = INT64_MAX },
	{ .what = "no preemption yet: no bound",
	  .c = ALLOC(900, true), .k = 0, .factor = 2, .want = 0 },
	{ .what = "huge min runtime: saturates",
	  .c = ALLOC(INT64_MAX - 5, true), .k = 1, .factor = 1,
	  .want = INT64_MAX },
};

START_TEST(test_min_gap)
{
	const struct gap_case *c = &gaps[_i];
	struct sb_preempt_policy pol;
	int64_t got;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonresumable;
	pol.interval_factor = c->factor;
	got = sb_preempt_min_gap(&pol, &c->c, c->k);
	ck_assert_msg(got == c->want, "%s: got %lld, want %lld", c->what,
		      (long long)got, (long long)c->want);
}
END_TEST

START_TEST(test_min_gap_null)
{
	const struct sb_contract a = ALLOC(900, true), u = UNALLOC(true);

	ck_assert_int_eq(sb_preempt_min_gap(NULL, NULL, 1), 0);
	/* no policy: the defaults */
	ck_assert_int_eq(sb_preempt_min_gap(NULL, &a, 1),
			 SB_PREEMPT_INTERVAL_FACTOR_DEFAULT * 900);
	ck_assert_int_eq(sb_preempt_min_gap(NULL, &u, 2),
			 2 * SB_REQUEUE_DELAY_DEFAULT);
	ck_assert_int_eq(sb_preempt_min_gap(NULL, &u, 64),
			 SB_RESTART_BACKOFF_MAX_DEFAULT);
}
END_TEST

START_TEST(test_interval_in_team)
{
	/* The interval holds a job against its own team's preemptors too;
	 * an unallocated victim is never held. */
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 9), .tres = 8, .suspended = 0 },
				      SB_NONE, false, false, 0 };
	struct sb_preempt_party v = { { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 5), .tres = 8, .suspended = 0 },
				      SB_NONE, false, true, 950 };
	struct sb_preempt_party u = { { .contract = UNALLOC(true), .start = 0, .priority = P(false, 5), .tres = 8, .suspended = 0 },
				      SB_NONE, false, true, 999 };

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_preempt_decide(&pol, NULL, &p, &v, 1000, NULL, 0),
			 SB_PREEMPT_INTERVAL);
	ck_assert_int_eq(sb_preempt_decide(&pol, NULL, &p, &v, 1070, NULL, 0),
			 SB_PREEMPT_NOVIEW);
	ck_assert_int_eq(sb_preempt_decide(&pol, NULL, &p, &u, 1000, NULL, 0),
			 SB_PREEMPT_YES);
	ck_assert_str_eq(sb_preempt_verdict_str(SB_PREEMPT_INTERVAL),
			 "preempted less than PreemptIntervalFactor x its "
			 "minimum runtime ago");
}
END_TEST

void view_hysteresis_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_hold_until, 0,
			    sizeof(holds) / sizeof(holds[0]));
	tcase_add_test(tc, test_hold_until_null);
	tcase_add_test(tc, test_preempted_note_span);
	tcase_add_loop_test(tc, test_note_merge, 0,
			    sizeof(merges) / sizeof(merges[0]));
	tcase_add_loop_test(tc, test_stop_note_of_run, 0,
			    sizeof(of_runs) / sizeof(of_runs[0]));
	tcase_add_loop_test(tc, test_preempted_note, 0,
			    sizeof(notes) / sizeof(notes[0]));
	tcase_add_loop_test(tc, test_cost, 0,
			    sizeof(costs) / sizeof(costs[0]));
	tcase_add_test(tc, test_cost_null);
	tcase_add_loop_test(tc, test_decide_hysteresis, 0,
			    sizeof(hysts) / sizeof(hysts[0]));
	tcase_add_test(tc, test_decide_ends_sooner);
	tcase_add_loop_test(tc, test_decide_loss_wait, 0,
			    sizeof(losses) / sizeof(losses[0]));
	tcase_add_test(tc, test_interval_in_team);
	tcase_add_loop_test(tc, test_min_gap, 0, sizeof(gaps) / sizeof(gaps[0]));
	tcase_add_test(tc, test_min_gap_null);
}
