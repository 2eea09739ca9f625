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
				      0, false };
	struct sb_preempt_party v = { { ALLOC(10, true), 0, P(true, 5), 8 , 0},
				      0, false };
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

int main(void)
{
	Suite *s = suite_create("view");
	TCase *tc = tcase_create("view");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_contract_of_job, 0,
			    sizeof(contracts) / sizeof(contracts[0]));
	tcase_add_test(tc, test_contract_of_job_null);
	tcase_add_loop_test(tc, test_committed_rest, 0,
			    sizeof(rests) / sizeof(rests[0]));
	tcase_add_test(tc, test_view_commit);
	tcase_add_test(tc, test_view_init_refuses);
	tcase_add_loop_test(tc, test_diverge, 0,
			    sizeof(diverges) / sizeof(diverges[0]));
	tcase_add_loop_test(tc, test_decide, 0,
			    sizeof(decides) / sizeof(decides[0]));
	tcase_add_test(tc, test_decide_committed_counts);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
