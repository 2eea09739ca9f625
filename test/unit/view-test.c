/*
 * view-test.c - the budget view (sb/view.h): a job's contract as it runs
 * (the no-tag rule), committed usage, where two budgets' paths diverge, and
 * the full preemption verdict with grace and the reclaim rule.  The
 * hysteresis (holds, notes, the cost of a preemption, the minimum gap) is
 * tested in view-hysteresis-test.c.
 *
 * The tree used throughout is the test cluster's:
 *   physics (id 10, RawShares 3) -> phys-a (11, 2), phys-b (12, 1)
 *   bio (20, 1)
 *   nobudget (30, 0)
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "cluster-tree.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/view.h"
#include "view-test.h"

/* ------------------------------------------------------ sb_contract_of_job */

struct contract_case {
	const char *what, *tag;
	bool requeue_ok;
	int rc;
	int64_t min_runtime;
	bool resumable, allocated;
};

static const struct contract_case contracts[] = {
	{ .what = "allocated, resumable, requeue possible",
	  .tag = "budget:min_runtime=3600,resumable=yes,allocated=yes", .requeue_ok = true,
	  .rc = SB_OK,       .min_runtime = 3600, .resumable = true,  .allocated = true },
	{ .what = "resumable tag but no requeue possible (interactive, flag cleared)",
	  .tag = "budget:min_runtime=3600,resumable=yes,allocated=yes", .requeue_ok = false,
	  .rc = SB_OK,       .min_runtime = 3600, .resumable = false, .allocated = true },
	{ .what = "unallocated by its tag",
	  .tag = "budget:min_runtime=0,resumable=no,allocated=no",      .requeue_ok = true,
	  .rc = SB_OK,       .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .what = "tag followed by an admin's own comment",
	  .tag = "budget:min_runtime=60,resumable=no,allocated=yes see ticket 4", .requeue_ok = true,
	  .rc = SB_OK,       .min_runtime = 60,   .resumable = false, .allocated = true },
	{ .what = "no AdminComment at all: unallocated",
	  .tag = NULL,                                                  .requeue_ok = true,
	  .rc = SB_EMISSING, .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .what = "an admin's comment without a tag: unallocated",
	  .tag = "hello",                                               .requeue_ok = true,
	  .rc = SB_EMISSING, .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .what = "a damaged tag: unallocated, not resumable",
	  .tag = "budget:min_runtime=abc,resumable=yes,allocated=yes",  .requeue_ok = true,
	  .rc = SB_EMISSING, .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .what = "empty AdminComment: unallocated",
	  .tag = "",                                                    .requeue_ok = true,
	  .rc = SB_EMISSING, .min_runtime = 0,    .resumable = false, .allocated = false },
};

START_TEST(test_contract_of_job)
{
	const struct contract_case *c = &contracts[_i];
	struct sb_contract out;
	int rc;

	memset(&out, 0x5a, sizeof(out));
	rc = sb_contract_of_job(c->tag, c->requeue_ok, &out);
	ck_assert_msg(rc == c->rc, "%s: rc %d, want %d", c->what, rc, c->rc);
	ck_assert_msg(out.min_runtime == c->min_runtime &&
		      out.resumable == c->resumable &&
		      out.allocated == c->allocated,
		      "%s: got {%lld, %d, %d}, want {%lld, %d, %d}", c->what,
		      (long long)out.min_runtime, out.resumable, out.allocated,
		      (long long)c->min_runtime, c->resumable, c->allocated);
	/* the hot-path reading agrees with the full one */
	ck_assert_msg(sb_contract_job_allocated(c->tag) == c->allocated,
		      "%s: sb_contract_job_allocated disagrees", c->what);
}
END_TEST

/* sb_run_allocated: the tag decides; without one, a run that started
 * before the cutover is charged to its budget. */
static const struct run_case {
	const char *what, *tag;
	int64_t start, cutover;
	bool allocated;
} runs[] = {
	{ .what = "tag allocated",                   .tag = "budget:min_runtime=600,resumable=no,allocated=yes",
	  .start = 100, .cutover = 0,   .allocated = true },
	{ .what = "tag allocated, cutover later",    .tag = "budget:min_runtime=600,resumable=no,allocated=yes",
	  .start = 100, .cutover = 200, .allocated = true },
	{ .what = "tag unallocated before the cutover", .tag = "budget:min_runtime=0,resumable=no,allocated=no",
	  .start = 100, .cutover = 200, .allocated = false },
	{ .what = "no tag, no cutover",              .tag = NULL,
	  .start = 100, .cutover = 0,   .allocated = false },
	{ .what = "no tag, before the cutover",      .tag = NULL,
	  .start = 100, .cutover = 200, .allocated = true },
	{ .what = "no tag, one second before",       .tag = "",
	  .start = 199, .cutover = 200, .allocated = true },
	{ .what = "no tag, at the cutover",          .tag = NULL,
	  .start = 200, .cutover = 200, .allocated = false },
	{ .what = "no tag, after the cutover",       .tag = "a comment",
	  .start = 300, .cutover = 200, .allocated = false },
	{ .what = "damaged tag, before the cutover", .tag = "budget:min_runtime=x",
	  .start = 100, .cutover = 200, .allocated = true },
	{ .what = "never started",                   .tag = NULL,
	  .start = 0,   .cutover = 200, .allocated = false },
	{ .what = "tag and a stop note",             .tag = "budget:min_runtime=600,resumable=no,allocated=yes "
	  "budget:preempted_by=7,at=150",
	  .start = 100, .cutover = 0,   .allocated = true },
	{ .what = "stop note alone, before the cutover", .tag = "budget:preempted_by=7,at=150",
	  .start = 100, .cutover = 200, .allocated = true },
	{ .what = "stop note alone, after the cutover", .tag = "budget:preempted_by=7,at=350",
	  .start = 300, .cutover = 200, .allocated = false },
};

START_TEST(test_run_allocated)
{
	const struct run_case *c = &runs[_i];

	ck_assert_msg(sb_run_allocated(c->tag, c->start, c->cutover) == c->allocated,
		      "%s", c->what);
}
END_TEST

START_TEST(test_contract_of_job_null)
{
	ck_assert_int_eq(sb_contract_of_job("x", true, NULL), SB_EINVAL);
}
END_TEST

/* ------------------------------------------------------ sb_committed_rest */

struct rest_case {
	const char *what;
	struct sb_preempt_job job;
	int64_t now;
	double want;
};

static const struct rest_case rests[] = {
	{ .what = "8 GPUs, 100 s of a 600 s slice run: 500 s x 8 left",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1100, .want = 4000 },
	{ .what = "at start: the whole slice",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 2, .suspended = 0 },
	  .now = 1000, .want = 1200 },
	{ .what = "at the end of the slice: nothing",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1600, .want = 0 },
	{ .what = "past the slice: nothing",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 5000, .want = 0 },
	{ .what = "unallocated: never committed",
	  .job = { .contract = UNALLOC(true),    .start = 1000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1000, .want = 0 },
	{ .what = "not started yet (start in the future): nothing",
	  .job = { .contract = ALLOC(600, true), .start = 2000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1000, .want = 0 },
	{ .what = "no GPUs: nothing",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 0, .suspended = 0 },
	  .now = 1100, .want = 0 },
	{ .what = "suspended 100 s of 200: 500 s x 8 left, as after 100 s run",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 100 },
	  .now = 1200, .want = 4000 },
	{ .what = "suspended since start: the whole slice stays committed",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 2, .suspended = 300 },
	  .now = 1300, .want = 1200 },
	{ .what = "suspended, unallocated: never committed",
	  .job = { .contract = UNALLOC(true),    .start = 1000, .priority = 0, .tres = 8, .suspended = 100 },
	  .now = 1200, .want = 0 },
};

START_TEST(test_committed_rest)
{
	const struct rest_case *c = &rests[_i];
	double got = sb_committed_rest(&c->job, c->now);

	ck_assert_msg(got == c->want, "%s: got %.1f, want %.1f", c->what, got,
		      c->want);
}
END_TEST

/* ------------------------------------------------------------ sb_held_tres */

struct held_case {
	const char *what;
	struct sb_hold h;	/* tres, whole_nodes, nodes, named,
				 * named_tres, other_min */
	uint64_t want;
};

static const struct held_case helds[] = {
	{ .what = "shared node: what it was allocated",
	  .h = { .tres = 2,  .whole_nodes = false, .nodes = 1, .named = 1, .named_tres = 8,  .other_min = 0 },
	  .want = 2 },
	{ .what = "shared, pending: what it asks for",
	  .h = { .tres = 1,  .whole_nodes = false, .nodes = 1, .named = 0, .named_tres = 0,  .other_min = 8 },
	  .want = 1 },
	{ .what = "shared, no GPU: nothing",
	  .h = { .tres = 0,  .whole_nodes = false, .nodes = 1, .named = 1, .named_tres = 8,  .other_min = 0 },
	  .want = 0 },
	{ .what = "--exclusive -G 1 running on an 8-GPU node: 8",
	  .h = { .tres = 8,  .whole_nodes = true,  .nodes = 1, .named = 1, .named_tres = 8,  .other_min = 0 },
	  .want = 8 },
	{ .what = "whole node whose allocation left GPUs out (24.11 explicit GRES): "
	  "the node's 8",
	  .h = { .tres = 0,  .whole_nodes = true,  .nodes = 1, .named = 1, .named_tres = 8,  .other_min = 0 },
	  .want = 8 },
	{ .what = "--exclusive -G 1 pending, partition of 8-GPU nodes: 8",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = 1, .named = 0, .named_tres = 0,  .other_min = 8 },
	  .want = 8 },
	{ .what = "--exclusive, no GPU, pending, 2 nodes: 16",
	  .h = { .tres = 0,  .whole_nodes = true,  .nodes = 2, .named = 0, .named_tres = 0,  .other_min = 8 },
	  .want = 16 },
	{ .what = "pending on -w gpu01 (8) and one more node of at least 4: 12",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = 2, .named = 1, .named_tres = 8,  .other_min = 4 },
	  .want = 12 },
	{ .what = "pending, all nodes named: their sum",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = 2, .named = 2, .named_tres = 12, .other_min = 99 },
	  .want = 12 },
	{ .what = "named > nodes: the named ones",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = 1, .named = 3, .named_tres = 24, .other_min = 8 },
	  .want = 24 },
	{ .what = "asks for more than the nodes have: what it asks",
	  .h = { .tres = 20, .whole_nodes = true,  .nodes = 2, .named = 0, .named_tres = 0,  .other_min = 8 },
	  .want = 20 },
	{ .what = "whole CPU-only node, no GPU: 0",
	  .h = { .tres = 0,  .whole_nodes = true,  .nodes = 1, .named = 0, .named_tres = 0,  .other_min = 0 },
	  .want = 0 },
	{ .what = "unknown other nodes (0): what it asks",
	  .h = { .tres = 3,  .whole_nodes = true,  .nodes = 4, .named = 0, .named_tres = 0,  .other_min = 0 },
	  .want = 3 },
	{ .what = "product overflows: saturates",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = UINT32_MAX, .named = 0, .named_tres = 0,  .other_min = UINT64_MAX / 2 },
	  .want = UINT64_MAX },
	{ .what = "sum overflows: saturates",
	  .h = { .tres = 1,  .whole_nodes = true,  .nodes = 2, .named = 1, .named_tres = UINT64_MAX - 1, .other_min = 8 },
	  .want = UINT64_MAX },
};

START_TEST(test_held_tres)
{
	const struct held_case *c = &helds[_i];
	uint64_t got = sb_held_tres(&c->h);

	ck_assert_msg(got == c->want, "%s: got %llu, want %llu", c->what,
		      (unsigned long long)got, (unsigned long long)c->want);
}
END_TEST

START_TEST(test_held_tres_null)
{
	ck_assert_uint_eq(sb_held_tres(NULL), 0);
}
END_TEST

/* ------------------------------------------------------------- the view */

START_TEST(test_view_commit)
{
	struct sb_tree *t = cluster_tree();
	struct sb_view v;
	struct sb_preempt_job j = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 0 };
	double charged[5] = { 0 }, all[5];

	ck_assert_int_eq(sb_view_init(&v, t), SB_OK);
	ck_assert_uint_eq(v.n, 5);
	charged[cluster_ix(t, 10)] = 300;	/* physics = phys-a 100 + phys-b 200 */
	charged[cluster_ix(t, 11)] = 100;
	charged[cluster_ix(t, 12)] = 200;
	charged[cluster_ix(t, 20)] = 50;
	ck_assert_int_eq(sb_view_set_charged(&v, charged), SB_OK);
	/* phys-a: 8 GPUs with 500 s left -> 4000 on phys-a and physics */
	ck_assert_int_eq(sb_view_commit(&v, cluster_ix(t, 11), &j, 1100), SB_OK);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 11)), 4100);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 10)), 4300);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 12)), 200);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 20)), 50);
	ck_assert_double_eq(sb_view_usage(&v, 99), 0);
	ck_assert_int_eq(sb_view_usage_all(&v, all), SB_OK);
	ck_assert_double_eq(all[cluster_ix(t, 10)], 4300);
	ck_assert_double_eq(all[cluster_ix(t, 30)], 0);
	/* an unallocated job commits nothing */
	j.contract = (struct sb_contract)UNALLOC(true);
	ck_assert_int_eq(sb_view_commit(&v, cluster_ix(t, 20), &j, 1100), SB_OK);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 20)), 50);
	/* bad arguments and bad data */
	ck_assert_int_eq(sb_view_commit(&v, 5, &j, 1100), SB_EINVAL);
	charged[0] = -1;
	ck_assert_int_eq(sb_view_set_charged(&v, charged), SB_EINVAL);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 10)), 4300);	/* kept */
	charged[0] = NAN;
	ck_assert_int_eq(sb_view_set_charged(&v, charged), SB_EINVAL);
	sb_view_clear_committed(&v);
	ck_assert_double_eq(sb_view_usage(&v, cluster_ix(t, 10)), 300);
	sb_view_free(&v);
	sb_view_free(&v);	/* twice is harmless */
	sb_view_free(NULL);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_view_init_refuses)
{
	struct sb_view v;
	struct sb_tree *t = sb_tree_new();
	uint32_t i;

	ck_assert_int_eq(sb_view_init(&v, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "a"), SB_OK);
	ck_assert_int_eq(sb_view_init(&v, t), SB_EINVAL);	/* unfinalized */
	sb_view_free(&v);
	/* a chain deeper than SB_VIEW_MAX_DEPTH */
	for (i = 2; i <= SB_VIEW_MAX_DEPTH + 1; i++)
		ck_assert_int_eq(sb_tree_add(t, i, i - 1, 1, "x"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_view_init(&v, t), SB_EINVAL);
	sb_view_free(&v);
	sb_tree_free(t);
}
END_TEST

/* ------------------------------------------------------- sb_tree_diverge */

struct diverge_case {
	uint32_t a, b;		/* association ids */
	bool want;
	uint32_t pa, pb;	/* ids where the paths part */
};

static const struct diverge_case diverges[] = {
	{ .a = 11, .b = 12, .want = true,  .pa = 11, .pb = 12 }, /* siblings */
	{ .a = 11, .b = 20, .want = true,  .pa = 10, .pb = 20 }, /* cousins: top level decides */
	{ .a = 20, .b = 12, .want = true,  .pa = 20, .pb = 10 },
	{ .a = 20, .b = 30, .want = true,  .pa = 20, .pb = 30 },
	{ .a = 11, .b = 11, .want = false, .pa = 0,  .pb = 0 },  /* same */
	{ .a = 10, .b = 11, .want = false, .pa = 0,  .pb = 0 },  /* ancestor */
	{ .a = 12, .b = 10, .want = false, .pa = 0,  .pb = 0 },  /* descendant */
};

START_TEST(test_diverge)
{
	const struct diverge_case *c = &diverges[_i];
	struct sb_tree *t = cluster_tree();
	uint32_t pa = SB_NONE, pb = SB_NONE;
	bool got = sb_tree_diverge(t, cluster_ix(t, c->a), cluster_ix(t, c->b), &pa, &pb);

	ck_assert_msg(got == c->want, "%u vs %u: got %d", c->a, c->b, got);
	if (c->want) {
		ck_assert_uint_eq(sb_tree_node(t, pa)->id, c->pa);
		ck_assert_uint_eq(sb_tree_node(t, pb)->id, c->pb);
	}
	ck_assert(!sb_tree_diverge(t, 0, 77, &pa, &pb));
	sb_tree_free(t);
}
END_TEST

/* ----------------------------------------------------- sb_preempt_decide */

struct decide_case {
	const char *what;
	uint32_t p_id;			/* preemptor's association id */
	struct sb_preempt_job p;
	uint32_t v_id;			/* victim's */
	struct sb_preempt_job v;
	bool in_grace, no_view;
	/* subtree usage (charged) of physics, phys-a, phys-b, bio */
	double u_phys, u_a, u_b, u_bio;
	int64_t now;
	enum sb_preempt_verdict want;
	const char *why;		/* start of the explanation */
};

/* Shares: physics 0.75, bio 0.25 at the top; phys-a 2/3, phys-b 1/3. */
static const struct decide_case decides[] = {
	{ .what = "unallocated preemptor: never",               .p_id = 20,
	  .p = { .contract = UNALLOC(true),    .start = 0,  .priority = P(false, 9), .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = UNALLOC(true),    .start = 0,  .priority = P(false, 1), .tres = 1, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_UNALLOCATED, .why = "an unallocated job never" },
	{ .what = "victim in its grace time: yes, even inside its min runtime", .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 1),  .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(600, true), .start = 90, .priority = P(true, 9),  .tres = 1, .suspended = 0 },
	  .in_grace = true,  .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "already being preempted" },
	{ .what = "victim in grace, unallocated preemptor: no", .p_id = 20,
	  .p = { .contract = UNALLOC(true),    .start = 0,  .priority = P(false, 1), .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(600, true), .start = 90, .priority = P(true, 9),  .tres = 1, .suspended = 0 },
	  .in_grace = true,  .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_UNALLOCATED, .why = "an unallocated" },
	{ .what = "unallocated victim of another budget: yes without reclaim", .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 1),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = UNALLOC(true),    .start = 90, .priority = P(false, 9), .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 1e9,  .u_a = 1e9,  .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "unallocated" },
	{ .what = "unallocated victim and no view: yes",        .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 1),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = UNALLOC(true),    .start = 90, .priority = P(false, 9), .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = true,  .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "unallocated" },
	{ .what = "protected victim",                           .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(600, true), .start = 90, .priority = P(true, 1),  .tres = 1, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_PROTECTED,   .why = "inside its minimum" },
	{ .what = "outranked",                                  .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 3),  .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 1, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_OUTRANKED,   .why = "its budget's standing" },
	{ .what = "allocated victim of another budget, no view: kept", .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 1, .suspended = 0 },
	  .in_grace = false, .no_view = true,  .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_NOVIEW,      .why = "no budget standing" },
	/* bio (S 0.25, U 100 + 8x60) against physics (S 0.75, U 9000):
	 * 0.25 * 9000 = 2250 >= 0.75 * 580 = 435: taken */
	{ .what = "reclaim holds: bio far below its share",     .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 9000, .u_a = 6000, .u_b = 3000, .u_bio = 100,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "past its minimum" },
	/* bio U 2900 + 480: 0.25 * 9000 = 2250 < 0.75 * 3380 = 2535 */
	{ .what = "reclaim refuses: bio would end over-used",   .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 9000, .u_a = 6000, .u_b = 3000, .u_bio = 2900,
	  .now = 100, .want = SB_PREEMPT_RECLAIM,     .why = "reclaim rule: 'bio'" },
	/* siblings phys-b (S 1/3, U 100 + 480) vs phys-a (S 2/3, U 6000):
	 * 1/3 * 6000 = 2000 >= 2/3 * 580: taken; compared at the siblings,
	 * not at the top (physics vs physics) */
	{ .what = "reclaim at the siblings under physics",      .p_id = 12,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 6100, .u_a = 6000, .u_b = 100,  .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "past its minimum" },
	{ .what = "same association: in-team priority alone decides", .p_id = 11,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 8, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, true),  .start = 0,  .priority = P(true, 5),  .tres = 8, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 1e12, .u_a = 1e12, .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_YES,         .why = "past its minimum" },
	{ .what = "not resumable, site keeps",                  .p_id = 20,
	  .p = { .contract = ALLOC(60, true),  .start = 0,  .priority = P(true, 9),  .tres = 1, .suspended = 0 },
	  .v_id = 11,
	  .v = { .contract = ALLOC(10, false), .start = 0,  .priority = P(true, 5),  .tres = 1, .suspended = 0 },
	  .in_grace = false, .no_view = false, .u_phys = 0,    .u_a = 0,    .u_b = 0,    .u_bio = 0,
	  .now = 100, .want = SB_PREEMPT_KEPT,        .why = "not resumable" },
};

START_TEST(test_decide)
{
	const struct decide_case *c = &decides[_i];
	struct sb_tree *t = cluster_tree();
	struct sb_preempt_policy pol;
	struct sb_preempt_party p, v;
	struct sb_view view;
	double charged[5] = { 0 };
	char why[256];
	enum sb_preempt_verdict got;

	memset(&p, 0, sizeof(p));	/* never preempted */
	memset(&v, 0, sizeof(v));
	sb_preempt_policy_init(&pol);
	if (!c->v.contract.resumable)
		pol.nonresumable = SB_NONRESUMABLE_KEEP;
	ck_assert_int_eq(sb_view_init(&view, t), SB_OK);
	charged[cluster_ix(t, 10)] = c->u_phys;
	charged[cluster_ix(t, 11)] = c->u_a;
	charged[cluster_ix(t, 12)] = c->u_b;
	charged[cluster_ix(t, 20)] = c->u_bio;
	ck_assert_int_eq(sb_view_set_charged(&view, charged), SB_OK);
	p.job = c->p;
	p.index = cluster_ix(t, c->p_id);
	p.in_grace = false;
	v.job = c->v;
	v.index = cluster_ix(t, c->v_id);
	v.in_grace = c->in_grace;
	got = sb_preempt_decide(&pol, c->no_view ? NULL : &view, &p, &v,
				c->now, why, sizeof(why));
	ck_assert_msg(got == c->want, "%s: got %d (%s), want %d", c->what, got,
		      why, c->want);
	ck_assert_msg(!strncmp(why, c->why, strlen(c->why)),
		      "%s: why '%s' does not start '%s'", c->what, why, c->why);
	/* without a buffer the verdict is the same */
	ck_assert_int_eq(sb_preempt_decide(&pol, c->no_view ? NULL : &view,
					   &p, &v, c->now, NULL, 0), c->want);
	sb_view_free(&view);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_decide_committed_counts)
{
	/* The reclaim rule reads charged + committed: a running bio job with
	 * a long protected rest tips "reclaim holds" into "refuses". */
	struct sb_tree *t = cluster_tree();
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { { .contract = ALLOC(60, true), .start = 0, .priority = P(true, 9), .tres = 8, .suspended = 0 },
				      0, false , false, 0 };
	struct sb_preempt_party v = { { .contract = ALLOC(10, true), .start = 0, .priority = P(true, 5), .tres = 8, .suspended = 0 },
				      0, false , false, 0 };
	struct sb_preempt_job running = { .contract = ALLOC(3000, true), .start = 100, .priority = 0, .tres = 1, .suspended = 0 };
	struct sb_view view;
	double charged[5] = { 0 };

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_view_init(&view, t), SB_OK);
	charged[cluster_ix(t, 10)] = 9000;
	charged[cluster_ix(t, 11)] = 6000;
	charged[cluster_ix(t, 12)] = 3000;
	charged[cluster_ix(t, 20)] = 100;
	ck_assert_int_eq(sb_view_set_charged(&view, charged), SB_OK);
	p.index = cluster_ix(t, 20);
	v.index = cluster_ix(t, 11);
	ck_assert_int_eq(sb_preempt_decide(&pol, &view, &p, &v, 100, NULL, 0),
			 SB_PREEMPT_YES);
	/* 1 GPU x 3000 s committed on bio: U 3100 + 480 -> refused */
	ck_assert_int_eq(sb_view_commit(&view, cluster_ix(t, 20), &running, 100), SB_OK);
	ck_assert_int_eq(sb_preempt_decide(&pol, &view, &p, &v, 100, NULL, 0),
			 SB_PREEMPT_RECLAIM);
	sb_view_free(&view);
	sb_tree_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");

	tcase_add_loop_test(tc, test_contract_of_job, 0,
			    sizeof(contracts) / sizeof(contracts[0]));
	tcase_add_test(tc, test_contract_of_job_null);
	tcase_add_loop_test(tc, test_run_allocated, 0,
			    sizeof(runs) / sizeof(runs[0]));
	tcase_add_loop_test(tc, test_committed_rest, 0,
			    sizeof(rests) / sizeof(rests[0]));
	tcase_add_loop_test(tc, test_held_tres, 0,
			    sizeof(helds) / sizeof(helds[0]));
	tcase_add_test(tc, test_held_tres_null);
	tcase_add_test(tc, test_view_commit);
	tcase_add_test(tc, test_view_init_refuses);
	tcase_add_loop_test(tc, test_diverge, 0,
			    sizeof(diverges) / sizeof(diverges[0]));
	tcase_add_loop_test(tc, test_decide, 0,
			    sizeof(decides) / sizeof(decides[0]));
	tcase_add_test(tc, test_decide_committed_counts);
	view_hysteresis_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
