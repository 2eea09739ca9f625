/*
 * figures-test.c - owed, delivered, unallocated and capped (sb/figures.h),
 * every expected value worked out by hand in the comments.
 *
 * Tree (the test cluster's): physics (10, 3) -> phys-a (11, 2), phys-b
 * (12, 1); bio (20, 1); nobudget (30, 0).  Entitled: physics 0.75, phys-a
 * 0.5, phys-b 0.25, bio 0.25, nobudget 0.  Cluster: 8 GPUs.  Window
 * [0, 7200) in two slots of 3600 s, so one slot's quota is entitled x 8 x
 * 3600: phys-a 14400, phys-b 7200, bio 7200, physics 21600.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "cluster-tree.h"
#include "sb/error.h"
#include "sb/figures.h"

#define H 3600
/* The table's times are relative to B (a time of 0 means "none" to
 * sb_figures); NO stands for that 0. */
#define B INT64_C(1000000)
#define NO INT64_MIN

static int64_t at(int64_t t) { return t == NO ? 0 : B + t; }



/* One segment given by association id (0 = not in the tree). */
struct seg {
	uint32_t id;
	double tres;
	bool allocated;
	int64_t eligible, start, end;
};

/* Expected totals of one association. */
struct want {
	uint32_t id;
	double delivered, unallocated, demand, owed, capped;
};

struct fig_case {
	const char *what;
	struct seg segs[4];
	size_t nsegs;
	int64_t now;
	struct want want[3];
	size_t nwant;
	size_t unknown;
};

static const struct fig_case cases[] = {
	/* 4 GPUs for 2 h = 14400 per slot = phys-a's quota exactly; physics
	 * sees the same demand against its larger quota */
	{ "demand equal to quota: all owed, all delivered",
	  { { 11, 4, true, 0, 0, 2 * H } }, 1, 2 * H,
	  { { 11, 28800, 0, 28800, 28800, 28800 },
	    { 10, 28800, 0, 28800, 28800, 28800 },
	    { 20, 0, 0, 0, 0, 0 } }, 3, 0 },
	/* bio, 8 GPUs, pending in slot 0, running in slot 1: demand 28800 a
	 * slot, owed min(7200, 28800) = 7200 a slot; delivered 0 then
	 * 28800, capped 0 + 7200: the surplus of slot 1 does not hide the
	 * shortfall of slot 0 */
	{ "waiting then over quota: capped slot by slot",
	  { { 20, 8, true, 0, H, 2 * H } }, 1, 2 * H,
	  { { 20, 28800, 0, 57600, 14400, 7200 } }, 1, 0 },
	/* unallocated work is owed nothing and delivers nothing against
	 * owed: reported apart */
	{ "unallocated: reported apart, owed nothing",
	  { { 20, 1, false, 0, 0, 2 * H }, { 30, 2, false, 0, 0, H } }, 2,
	  2 * H,
	  { { 20, 0, 7200, 0, 0, 0 }, { 30, 0, 7200, 0, 0, 0 } }, 2, 0 },
	/* open segment (no end) counted until now = 5400: 1 GPU from 1800,
	 * 1800 s in each slot; phys-b's quota 7200 a slot */
	{ "a running job counts until now",
	  { { 12, 1, true, 1800, 1800, NO } }, 1, 5400,
	  { { 12, 3600, 0, 3600, 3600, 3600 },
	    { 10, 3600, 0, 3600, 3600, 3600 } }, 2, 0 },
	/* eligible none = no demand (an admin's run outside the contract) */
	{ "never eligible: delivered but not owed",
	  { { 11, 2, true, NO, 0, H } }, 1, 2 * H,
	  { { 11, 7200, 0, 0, 0, 0 } }, 1, 0 },
	/* only the part inside [0, 7200) counts */
	{ "clipped to the window",
	  { { 11, 1, true, -H, -H, H }, { 11, 1, true, H, H, 3 * H } }, 2,
	  3 * H,
	  { { 11, 7200, 0, 7200, 7200, 7200 } }, 1, 0 },
	/* a requeued job: two runs, the pending span between them is demand */
	{ "two runs of a requeued job",
	  { { 11, 2, true, 0, 0, 1000 }, { 11, 2, true, 1000, 1500, 2 * H } },
	  2, 2 * H,
	  { { 11, 2 * (1000 + 5700), 0, 2 * 7200, 14400, 2 * (1000 + 5700) } },
	  1, 0 },
	{ "association not in the tree: ignored, counted",
	  { { 0, 8, true, 0, 0, 2 * H }, { 11, 1, true, 0, 0, H } }, 2, 2 * H,
	  { { 11, 3600, 0, 3600, 3600, 3600 } }, 1, 1 },
};

START_TEST(test_figures)
{
	const struct fig_case *c = &cases[_i];
	struct sb_tree *t = cluster_tree();
	struct sb_fig_seg segs[4];
	struct sb_fig total[5], series[5 * 2];
	size_t unknown = 99, i;

	for (i = 0; i < c->nsegs; i++) {
		segs[i].index = c->segs[i].id ? cluster_ix(t, c->segs[i].id) : SB_NONE;
		segs[i].tres = c->segs[i].tres;
		segs[i].allocated = c->segs[i].allocated;
		segs[i].eligible = at(c->segs[i].eligible);
		segs[i].start = at(c->segs[i].start);
		segs[i].end = at(c->segs[i].end);
	}
	ck_assert_int_eq(sb_figures(t, segs, c->nsegs, B, B + 2 * H, H,
				    at(c->now), 8,
				    total, series, &unknown), SB_OK);
	ck_assert_msg(unknown == c->unknown, "%s: unknown %zu, want %zu",
		      c->what, unknown, c->unknown);
	for (i = 0; i < c->nwant; i++) {
		const struct want *w = &c->want[i];
		const struct sb_fig *f = &total[cluster_ix(t, w->id)];
		size_t k;
		struct sb_fig sum = { 0 };

		ck_assert_msg(f->delivered == w->delivered &&
			      f->unallocated == w->unallocated &&
			      f->demand == w->demand && f->owed == w->owed &&
			      f->capped == w->capped,
			      "%s: id %u: got delivered %.0f unallocated %.0f "
			      "demand %.0f owed %.0f capped %.0f; want %.0f %.0f "
			      "%.0f %.0f %.0f", c->what, w->id, f->delivered,
			      f->unallocated, f->demand, f->owed, f->capped,
			      w->delivered, w->unallocated, w->demand, w->owed,
			      w->capped);
		/* the series adds up to the totals */
		for (k = 0; k < 2; k++) {
			const struct sb_fig *s = &series[cluster_ix(t, w->id) * 2 + k];

			sum.owed += s->owed;
			sum.capped += s->capped;
			sum.delivered += s->delivered;
			ck_assert(s->owed <= s->quota && s->capped <= s->owed);
		}
		ck_assert_double_eq(sum.owed, f->owed);
		ck_assert_double_eq(sum.capped, f->capped);
		ck_assert_double_eq(sum.delivered, f->delivered);
	}
	/* quota over the window: entitled x 8 x 7200 */
	ck_assert_double_eq(total[cluster_ix(t, 11)].quota, 0.5 * 8 * 7200);
	ck_assert_double_eq(total[cluster_ix(t, 30)].quota, 0);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_figures_refuses)
{
	struct sb_tree *t = cluster_tree();
	struct sb_fig total[5];
	struct sb_fig_seg s = { 0, 1, true, 0, 0, 10 };

	ck_assert_int_eq(sb_figures(NULL, &s, 1, 0, 10, 1, 10, 8, total, NULL,
				    NULL), SB_EINVAL);
	ck_assert_int_eq(sb_figures(t, &s, 1, 10, 10, 1, 10, 8, total, NULL,
				    NULL), SB_EINVAL);	/* empty window */
	ck_assert_int_eq(sb_figures(t, &s, 1, 0, 10, 0, 10, 8, total, NULL,
				    NULL), SB_EINVAL);	/* slot 0 */
	ck_assert_int_eq(sb_figures(t, &s, 1, 0, 10, 1, 10, -1, total, NULL,
				    NULL), SB_EINVAL);	/* capacity < 0 */
	ck_assert_int_eq(sb_figures(t, NULL, 1, 0, 10, 1, 10, 8, total, NULL,
				    NULL), SB_EINVAL);
	ck_assert_int_eq(sb_figures(t, &s, 1, 0, 10, 1, 10, 8, NULL, NULL,
				    NULL), SB_EINVAL);
	ck_assert_uint_eq(sb_fig_nslots(0, 7200, 3600), 2);
	ck_assert_uint_eq(sb_fig_nslots(0, 7201, 3600), 3);
	ck_assert_uint_eq(sb_fig_nslots(5, 5, 3600), 0);
	ck_assert_uint_eq(sb_fig_nslots(0, 5, 0), 0);
	sb_tree_free(t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("figures");
	TCase *tc = tcase_create("figures");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_figures, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_figures_refuses);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
