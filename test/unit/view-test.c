/*
 * view-test.c - the budget view (sb/view.h): a job's contract as it runs
 * (the no-tag rule), committed usage, where two budgets' paths diverge, and
 * the full preemption verdict with grace and the reclaim rule.
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

#define ALLOC(mr, res) { (mr), (res), true, true }
#define UNALLOC(res) { 0, (res), false, true }

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

/* sb_priority_compose(al, lvl, default in-team), as a constant */
#define P(al, lvl) ((al) ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) | \
	(uint32_t)(lvl) << SB_PRIO_LEVEL_SHIFT | \
	SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT

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

/* ----------------------------------------------------------- hysteresis */

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
	tcase_add_test(tc, test_interval_in_team);
	tcase_add_loop_test(tc, test_min_gap, 0, sizeof(gaps) / sizeof(gaps[0]));
	tcase_add_test(tc, test_min_gap_null);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
