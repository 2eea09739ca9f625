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
	{ "allocated, resumable, requeue possible",
	  "budget:min_runtime=3600,resumable=yes,allocated=yes", true,
	  SB_OK, 3600, true, true },
	{ "resumable tag but no requeue possible (interactive, flag cleared)",
	  "budget:min_runtime=3600,resumable=yes,allocated=yes", false,
	  SB_OK, 3600, false, true },
	{ "unallocated by its tag",
	  "budget:min_runtime=0,resumable=no,allocated=no", true,
	  SB_OK, 0, false, false },
	{ "tag followed by an admin's own comment",
	  "budget:min_runtime=60,resumable=no,allocated=yes see ticket 4", true,
	  SB_OK, 60, false, true },
	{ "no AdminComment at all: unallocated", NULL, true,
	  SB_EMISSING, 0, false, false },
	{ "an admin's comment without a tag: unallocated", "hello", true,
	  SB_EMISSING, 0, false, false },
	{ "a damaged tag: unallocated, not resumable",
	  "budget:min_runtime=abc,resumable=yes,allocated=yes", true,
	  SB_EMISSING, 0, false, false },
	{ "empty AdminComment: unallocated", "", true,
	  SB_EMISSING, 0, false, false },
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
	{ "tag allocated", "budget:min_runtime=600,resumable=no,allocated=yes", 100, 0, true },
	{ "tag allocated, cutover later", "budget:min_runtime=600,resumable=no,allocated=yes", 100, 200, true },
	{ "tag unallocated before the cutover", "budget:min_runtime=0,resumable=no,allocated=no", 100, 200, false },
	{ "no tag, no cutover", NULL, 100, 0, false },
	{ "no tag, before the cutover", NULL, 100, 200, true },
	{ "no tag, one second before", "", 199, 200, true },
	{ "no tag, at the cutover", NULL, 200, 200, false },
	{ "no tag, after the cutover", "a comment", 300, 200, false },
	{ "damaged tag, before the cutover", "budget:min_runtime=x", 100, 200, true },
	{ "never started", NULL, 0, 200, false },
	{ "tag and a stop note", "budget:min_runtime=600,resumable=no,allocated=yes "
	  "budget:preempted_by=7,at=150", 100, 0, true },
	{ "stop note alone, before the cutover", "budget:preempted_by=7,at=150", 100, 200, true },
	{ "stop note alone, after the cutover", "budget:preempted_by=7,at=350", 300, 200, false },
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
	{ "8 GPUs, 100 s of a 600 s slice run: 500 s x 8 left",
	  { ALLOC(600, true), 1000, 0, 8 , 0}, 1100, 4000 },
	{ "at start: the whole slice", { ALLOC(600, true), 1000, 0, 2 , 0}, 1000,
	  1200 },
	{ "at the end of the slice: nothing", { ALLOC(600, true), 1000, 0, 8 , 0},
	  1600, 0 },
	{ "past the slice: nothing", { ALLOC(600, true), 1000, 0, 8 , 0}, 5000, 0 },
	{ "unallocated: never committed", { UNALLOC(true), 1000, 0, 8 , 0}, 1000,
	  0 },
	{ "not started yet (start in the future): nothing",
	  { ALLOC(600, true), 2000, 0, 8 , 0}, 1000, 0 },
	{ "no GPUs: nothing", { ALLOC(600, true), 1000, 0, 0 , 0}, 1100, 0 },
	{ "suspended 100 s of 200: 500 s x 8 left, as after 100 s run",
	  { ALLOC(600, true), 1000, 0, 8, 100 }, 1200, 4000 },
	{ "suspended since start: the whole slice stays committed",
	  { ALLOC(600, true), 1000, 0, 2, 300 }, 1300, 1200 },
	{ "suspended, unallocated: never committed",
	  { UNALLOC(true), 1000, 0, 8, 100 }, 1200, 0 },
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
	{ "shared node: what it was allocated", { 2, false, 1, 1, 8, 0 }, 2 },
	{ "shared, pending: what it asks for", { 1, false, 1, 0, 0, 8 }, 1 },
	{ "shared, no GPU: nothing", { 0, false, 1, 1, 8, 0 }, 0 },
	{ "--exclusive -G 1 running on an 8-GPU node: 8",
	  { 8, true, 1, 1, 8, 0 }, 8 },
	{ "whole node whose allocation left GPUs out (24.11 explicit GRES): "
	  "the node's 8", { 0, true, 1, 1, 8, 0 }, 8 },
	{ "--exclusive -G 1 pending, partition of 8-GPU nodes: 8",
	  { 1, true, 1, 0, 0, 8 }, 8 },
	{ "--exclusive, no GPU, pending, 2 nodes: 16",
	  { 0, true, 2, 0, 0, 8 }, 16 },
	{ "pending on -w gpu01 (8) and one more node of at least 4: 12",
	  { 1, true, 2, 1, 8, 4 }, 12 },
	{ "pending, all nodes named: their sum", { 1, true, 2, 2, 12, 99 }, 12 },
	{ "named > nodes: the named ones", { 1, true, 1, 3, 24, 8 }, 24 },
	{ "asks for more than the nodes have: what it asks",
	  { 20, true, 2, 0, 0, 8 }, 20 },
	{ "whole CPU-only node, no GPU: 0", { 0, true, 1, 0, 0, 0 }, 0 },
	{ "unknown other nodes (0): what it asks", { 3, true, 4, 0, 0, 0 }, 3 },
	{ "product overflows: saturates",
	  { 1, true, UINT32_MAX, 0, 0, UINT64_MAX / 2 }, UINT64_MAX },
	{ "sum overflows: saturates",
	  { 1, true, 2, 1, UINT64_MAX - 1, 8 }, UINT64_MAX },
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
	struct sb_preempt_job j = { ALLOC(600, true), 1000, 0, 8 , 0};
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
	{ 11, 12, true, 11, 12 },	/* siblings */
	{ 11, 20, true, 10, 20 },	/* cousins: top level decides */
	{ 20, 12, true, 20, 10 },
	{ 20, 30, true, 20, 30 },
	{ 11, 11, false, 0, 0 },	/* same */
	{ 10, 11, false, 0, 0 },	/* ancestor */
	{ 12, 10, false, 0, 0 },	/* descendant */
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
	{ "unallocated preemptor: never", 20, { UNALLOC(true), 0, P(false, 9), 1 , 0},
	  11, { UNALLOC(true), 0, P(false, 1), 1 , 0}, false, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_UNALLOCATED, "an unallocated job never" },
	{ "victim in its grace time: yes, even inside its min runtime", 20,
	  { ALLOC(60, true), 0, P(true, 1), 1 , 0},
	  11, { ALLOC(600, true), 90, P(true, 9), 1 , 0}, true, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_YES, "already being preempted" },
	{ "victim in grace, unallocated preemptor: no", 20,
	  { UNALLOC(true), 0, P(false, 1), 1 , 0},
	  11, { ALLOC(600, true), 90, P(true, 9), 1 , 0}, true, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_UNALLOCATED, "an unallocated" },
	{ "unallocated victim of another budget: yes without reclaim", 20,
	  { ALLOC(60, true), 0, P(true, 1), 8 , 0},
	  11, { UNALLOC(true), 90, P(false, 9), 8 , 0}, false, false,
	  1e9, 1e9, 0, 0, 100, SB_PREEMPT_YES, "unallocated" },
	{ "unallocated victim and no view: yes", 20,
	  { ALLOC(60, true), 0, P(true, 1), 8 , 0},
	  11, { UNALLOC(true), 90, P(false, 9), 8 , 0}, false, true,
	  0, 0, 0, 0, 100, SB_PREEMPT_YES, "unallocated" },
	{ "protected victim", 20, { ALLOC(60, true), 0, P(true, 9), 1 , 0},
	  11, { ALLOC(600, true), 90, P(true, 1), 1 , 0}, false, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_PROTECTED, "inside its minimum" },
	{ "outranked", 20, { ALLOC(60, true), 0, P(true, 3), 1 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 1 , 0}, false, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_OUTRANKED, "its budget's standing" },
	{ "allocated victim of another budget, no view: kept", 20,
	  { ALLOC(60, true), 0, P(true, 9), 1 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 1 , 0}, false, true,
	  0, 0, 0, 0, 100, SB_PREEMPT_NOVIEW, "no budget standing" },
	/* bio (S 0.25, U 100 + 8x60) against physics (S 0.75, U 9000):
	 * 0.25 * 9000 = 2250 >= 0.75 * 580 = 435: taken */
	{ "reclaim holds: bio far below its share", 20,
	  { ALLOC(60, true), 0, P(true, 9), 8 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 8 , 0}, false, false,
	  9000, 6000, 3000, 100, 100, SB_PREEMPT_YES, "past its minimum" },
	/* bio U 2900 + 480: 0.25 * 9000 = 2250 < 0.75 * 3380 = 2535 */
	{ "reclaim refuses: bio would end over-used", 20,
	  { ALLOC(60, true), 0, P(true, 9), 8 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 8 , 0}, false, false,
	  9000, 6000, 3000, 2900, 100, SB_PREEMPT_RECLAIM, "reclaim rule: 'bio'" },
	/* siblings phys-b (S 1/3, U 100 + 480) vs phys-a (S 2/3, U 6000):
	 * 1/3 * 6000 = 2000 >= 2/3 * 580: taken; compared at the siblings,
	 * not at the top (physics vs physics) */
	{ "reclaim at the siblings under physics", 12,
	  { ALLOC(60, true), 0, P(true, 9), 8 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 8 , 0}, false, false,
	  6100, 6000, 100, 0, 100, SB_PREEMPT_YES, "past its minimum" },
	{ "same association: in-team priority alone decides", 11,
	  { ALLOC(60, true), 0, P(true, 9), 8 , 0},
	  11, { ALLOC(10, true), 0, P(true, 5), 8 , 0}, false, false,
	  1e12, 1e12, 0, 0, 100, SB_PREEMPT_YES, "past its minimum" },
	{ "not resumable, site keeps", 20, { ALLOC(60, true), 0, P(true, 9), 1 , 0},
	  11, { ALLOC(10, false), 0, P(true, 5), 1 , 0}, false, false,
	  0, 0, 0, 0, 100, SB_PREEMPT_KEPT, "not resumable" },
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
	struct sb_preempt_party p = { { ALLOC(60, true), 0, P(true, 9), 8 , 0},
				      0, false , false, 0 };
	struct sb_preempt_party v = { { ALLOC(10, true), 0, P(true, 5), 8 , 0},
				      0, false , false, 0 };
	struct sb_preempt_job running = { ALLOC(3000, true), 100, 0, 1 , 0};
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
	{ "never preempted: the min runtime alone", { ALLOC(600, true), 1000, 0, 1, 0 },
	  false, 0, 2, 1600 },
	{ "preempted_at ignored unless preempted", { ALLOC(600, true), 1000, 0, 1, 0 },
	  false, 900, 5, 1600 },
	/* preempted at 800, requeued, restarted at 1000: 800 + 2 x 600 */
	{ "preempted: held to P + 2 x min runtime", { ALLOC(600, true), 1000, 0, 1, 0 },
	  true, 800, 2, 2000 },
	{ "factor 1: the slice of the new run is later", { ALLOC(600, true), 1000, 0, 1, 0 },
	  true, 800, 1, 1600 },
	{ "factor 4", { ALLOC(600, true), 1000, 0, 1, 0 }, true, 800, 4, 3200 },
	{ "suspended time pushes the slice, not the interval",
	  { ALLOC(600, true), 1000, 0, 1, 500 }, true, 800, 2, 2100 },
	{ "unallocated: never held", { UNALLOC(true), 1000, 0, 1, 0 },
	  true, 990, 100, 1000 },
	{ "saturates", { ALLOC(INT64_MAX / 4, true), 1000, 0, 1, 0 },
	  true, INT64_MAX / 2, 100, INT64_MAX },
	{ "preempted at a negative time", { ALLOC(60, true), 0, 0, 1, 0 },
	  true, -100, 3, 80 },
	/* rule 3: restarted from its beginning once, never again */
	{ "not resumable, preempted: held to its end", { ALLOC(600, false), 1000, 0, 1, 0 },
	  true, 800, 2, INT64_MAX },
	{ "not resumable, factor 1: held to its end all the same",
	  { ALLOC(600, false), 1000, 0, 1, 0 }, true, 800, 1, INT64_MAX },
	{ "not resumable, never preempted: the min runtime alone",
	  { ALLOC(600, false), 1000, 0, 1, 0 }, false, 0, 2, 1600 },
	{ "not resumable, unallocated: never held", { UNALLOC(false), 1000, 0, 1, 0 },
	  true, 990, 2, 1000 },
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
	{ NULL, false, 0 },
	{ "", false, 0 },
	{ "budget:preempted_by=12,at=1700000000,preemptor_priority=5,"
	  "victim_priority=4", true, 1700000000 },
	{ "budget:preempted_by=12,at=100", true, 100 },
	{ "admin text budget:preempted_by=12,at=100;more", true, 100 },
	/* the last note counts */
	{ "budget:preempted_by=1,at=100 budget:preempted_by=2,at=200", true, 200 },
	/* a repair note after it keeps it (preempt/budget writes both) */
	{ "budget:preempted_by=12,at=100 budget:released_for_repair=gpu01,"
	  "at=300", true, 100 },
	{ "budget:released_for_repair=gpu01,at=300", false, 0 },
	{ "budget:preempted_by=12", false, 0 },
	{ "budget:preempted_by=12,at=", true, 0 },
	{ "budget:preempted_by=12,at=12x", false, 0 },
	{ "budget:preempted_by=12,at=99999999999999999999", false, 0 },
	{ "budget:preempted_by=12 ,at=100", false, 0 },
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
	{ "first note after the tag", TAG, PRE, TAG " " PRE },
	{ "admin text kept, note after it", TAG " admin  text", PRE,
	  TAG " admin  text " PRE },
	{ "an earlier note replaced", TAG " " PRE " admin", "budget:preempted_by=13,at=200",
	  TAG " admin budget:preempted_by=13,at=200" },
	{ "repair keeps the preemption in front", TAG " " PRE, PRE " " REP,
	  TAG " " PRE " " REP },
	{ "both replaced by one", TAG " " PRE " " REP, "budget:preempted_by=2,at=9",
	  TAG " budget:preempted_by=2,at=9" },
	{ "only notes of @from are taken", TAG, "text " PRE ";x budget:other=1",
	  TAG " " PRE },
	{ "no tag: the note alone", NULL, PRE, PRE },
	{ "empty text", "", PRE, PRE },
	{ "a note first, removed with the space after it", PRE " admin", PRE,
	  "admin " PRE },
	{ "an admin's new comment keeps the old notes", TAG " new text",
	  TAG " old " PRE, TAG " new text " PRE },
	{ "no notes anywhere: text as is", TAG " x", TAG, TAG " x" },
	{ "white space at the ends dropped", "  " TAG " x  ", NULL, TAG " x" },
	{ "both NULL", NULL, NULL, "" },
	{ "a word that only contains a note stays", TAG " xbudget:preempted_by=1",
	  NULL, TAG " xbudget:preempted_by=1" },
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
	{ "during the run", { true, 7, 150, 0, 0, false, "" }, 100, 200, true },
	{ "at its start", { true, 7, 100, 0, 0, false, "" }, 100, 200, true },
	{ "at its end (no grace time)", { true, 7, 200, 0, 0, false, "" }, 100, 200, true },
	{ "before it: an earlier run's, inherited", { true, 7, 99, 0, 0, false, "" }, 100, 200, false },
	{ "after it", { true, 7, 201, 0, 0, false, "" }, 100, 200, false },
	{ "still running", { true, 7, 150, 0, 0, false, "" }, 100, 0, true },
	{ "repair note", { false, 0, 150, 0, 0, true, "gpu01" }, 100, 200, true },
	{ "no note", { false, 0, 150, 0, 0, false, "" }, 100, 200, false },
	{ "no at=", { true, 7, 0, 0, 0, false, "" }, 100, 200, false },
	{ "never started", { true, 7, 150, 0, 0, false, "" }, 0, 0, false },
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
	struct sb_preempt_party v = { { ALLOC(600, true), 1000, 0, 1, 0 }, 0,
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
	{ "resumable: grace + requeue delay", { ALLOC(600, true), 0, 0, 8, 0 },
	  5000, 30, 121, 2, 1208 },
	{ "resumable, no grace, no delay: free", { ALLOC(600, true), 0, 0, 8, 0 },
	  5000, 0, 0, 2, 0 },
	/* 2 x (121 + 700): run 700 < 2 x 600; no grace time (nothing to
	 * checkpoint: sb_preempt_grace) */
	{ "not resumable: the run is lost", { ALLOC(600, false), 0, 0, 2, 0 },
	  700, 30, 121, 2, 1642 },
	/* 2 x (121 + min(5000, 1200)) */
	{ "not resumable: lost capped at factor x min runtime",
	  { ALLOC(600, false), 0, 0, 2, 0 }, 5000, 30, 121, 2, 2642 },
	/* suspended 300 of 700 s: run 400 */
	{ "suspended time is not lost work", { ALLOC(600, false), 0, 0, 1, 300 },
	  700, 0, 0, 4, 400 },
	/* no grace for an unallocated victim, and its run (cap 0) is not
	 * counted; the requeue delay is */
	{ "unallocated, not resumable: cap 0", { UNALLOC(false), 0, 0, 4, 0 },
	  700, 10, 5, 4, 20 },
	{ "no TRES: free", { ALLOC(600, false), 0, 0, 0, 0 }, 700, 30, 121, 2, 0 },
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
	struct sb_preempt_job j = { ALLOC(600, true), 0, 0, 2, 0 };

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
	{ "gap pays for the cost: taken", true, false, 0, 3576, 100, 30, 121,
	  SB_PREEMPT_YES, "past its minimum runtime and outranked; reclaim "
	  "rule holds with the preemption's cost" },
	{ "gap one short of the cost: costly", true, false, 0, 3575, 100, 30,
	  121, SB_PREEMPT_COSTLY, "preemption cost: 'phys-b' is below "
	  "'phys-a'" },
	/* without the cost 2 x 580 = 1160 would do: the plain reclaim rule
	 * still answers RECLAIM below it */
	{ "below the plain reclaim rule: reclaim", true, false, 0, 1159, 100,
	  30, 121, SB_PREEMPT_RECLAIM, "reclaim rule" },
	{ "no grace, no delay, resumable: the plain rule", true, false, 0,
	  1160, 100, 0, 0, SB_PREEMPT_YES, "past its minimum" },
	/* not resumable: lost = min(1000, 2 x 60) = 120, no grace; C = 8 x
	 * (121 + 120) = 1928: 2 x (580 + 1928) = 5016 */
	{ "not resumable: its lost run is a cost", false, false, 0, 5015, 100,
	  30, 121, SB_PREEMPT_COSTLY, "preemption cost" },
	{ "not resumable, gap enough", false, false, 0, 5016, 100, 30, 121,
	  SB_PREEMPT_YES, "past its minimum" },
	/* preempted at 900: held to 900 + 2 x 60 = 1020 > 1000 */
	{ "preempted 100 s ago: held by the interval", true, true, 900, 1e9,
	  0, 30, 121, SB_PREEMPT_INTERVAL, "preempted less than" },
	{ "preempted 120 s ago: the interval is over", true, true, 880, 1e9,
	  0, 30, 121, SB_PREEMPT_YES, "past its minimum" },
};

START_TEST(test_decide_hysteresis)
{
	const struct hyst_case *c = &hysts[_i];
	struct sb_tree *t = cluster_tree();
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { { ALLOC(60, true), 0, P(true, 9), 8, 0 },
				      0, false, false, 0 };
	struct sb_preempt_party v = { { ALLOC(60, true), 0, P(true, 5), 8, 0 },
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

START_TEST(test_interval_in_team)
{
	/* The interval holds a job against its own team's preemptors too;
	 * an unallocated victim is never held. */
	struct sb_preempt_policy pol;
	struct sb_preempt_party p = { { ALLOC(60, true), 0, P(true, 9), 8, 0 },
				      SB_NONE, false, false, 0 };
	struct sb_preempt_party v = { { ALLOC(60, true), 0, P(true, 5), 8, 0 },
				      SB_NONE, false, true, 950 };
	struct sb_preempt_party u = { { UNALLOC(true), 0, P(false, 5), 8, 0 },
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
	tcase_add_test(tc, test_interval_in_team);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
