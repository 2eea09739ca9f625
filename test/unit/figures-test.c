/*
 * figures-test.c - owed, delivered, unallocated and capped (sb/figures.h),
 * every expected value worked out by hand in the comments.  The figures over
 * a window (usable, hourly slots, all teams) are in figures-window-test.c.
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

#include "check_main.h"
#include "cluster-tree.h"
#include "figures-test.h"
#include "sb/error.h"
#include "sb/figures.h"

/* Expected totals of one association. */
struct want {
	uint32_t id;
	double delivered, unallocated, demand, owed, capped, lost;
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
	{ .what = "demand equal to quota: all owed, all delivered",
	  .segs = {
		{ .id = 11, .tres = 4, .allocated = true,  .eligible = 0,    .start = 0,    .end = 2 * H, .suspended = 0,   .lost = false },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 28800, .unallocated = 0,    .demand = 28800,    .owed = 28800, .capped = 28800, .lost = 0 },
		{ .id = 10, .delivered = 28800, .unallocated = 0,    .demand = 28800,    .owed = 28800, .capped = 28800, .lost = 0 },
		{ .id = 20, .delivered = 0,     .unallocated = 0,    .demand = 0,        .owed = 0,     .capped = 0,     .lost = 0 },
	  },
	  .nwant = 3, .unknown = 0 },
	/* bio, 8 GPUs, pending in slot 0, running in slot 1: demand 28800 a
	 * slot, owed min(7200, 28800) = 7200 a slot; delivered 0 then
	 * 28800, capped 0 + 7200: the surplus of slot 1 does not hide the
	 * shortfall of slot 0 */
	{ .what = "waiting then over quota: capped slot by slot",
	  .segs = {
		{ .id = 20, .tres = 8, .allocated = true,  .eligible = 0,    .start = H,    .end = 2 * H, .suspended = 0,   .lost = false },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 20, .delivered = 28800, .unallocated = 0,    .demand = 57600,    .owed = 14400, .capped = 7200,  .lost = 0 },
	  },
	  .nwant = 1, .unknown = 0 },
	/* unallocated work is owed nothing and delivers nothing against
	 * owed: reported apart */
	{ .what = "unallocated: reported apart, owed nothing",
	  .segs = {
		{ .id = 20, .tres = 1, .allocated = false, .eligible = 0,    .start = 0,    .end = 2 * H, .suspended = 0,   .lost = false },
		{ .id = 30, .tres = 2, .allocated = false, .eligible = 0,    .start = 0,    .end = H,     .suspended = 0,   .lost = false },
	  },
	  .nsegs = 2, .now = 2 * H,
	  .want = {
		{ .id = 20, .delivered = 0,     .unallocated = 7200, .demand = 0,        .owed = 0,     .capped = 0,     .lost = 0 },
		{ .id = 30, .delivered = 0,     .unallocated = 7200, .demand = 0,        .owed = 0,     .capped = 0,     .lost = 0 },
	  },
	  .nwant = 2, .unknown = 0 },
	/* open segment (no end) counted until now = 5400: 1 GPU from 1800,
	 * 1800 s in each slot; phys-b's quota 7200 a slot */
	{ .what = "a running job counts until now",
	  .segs = {
		{ .id = 12, .tres = 1, .allocated = true,  .eligible = 1800, .start = 1800, .end = NO,    .suspended = 0,   .lost = false },
	  },
	  .nsegs = 1, .now = 5400,
	  .want = {
		{ .id = 12, .delivered = 3600,  .unallocated = 0,    .demand = 3600,     .owed = 3600,  .capped = 3600,  .lost = 0 },
		{ .id = 10, .delivered = 3600,  .unallocated = 0,    .demand = 3600,     .owed = 3600,  .capped = 3600,  .lost = 0 },
	  },
	  .nwant = 2, .unknown = 0 },
	/* eligible none = no demand (an admin's run outside the contract) */
	{ .what = "never eligible: delivered but not owed",
	  .segs = {
		{ .id = 11, .tres = 2, .allocated = true,  .eligible = NO,   .start = 0,    .end = H,     .suspended = 0,   .lost = false },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 7200,  .unallocated = 0,    .demand = 0,        .owed = 0,     .capped = 0,     .lost = 0 },
	  },
	  .nwant = 1, .unknown = 0 },
	/* only the part inside [0, 7200) counts */
	{ .what = "clipped to the window",
	  .segs = {
		{ .id = 11, .tres = 1, .allocated = true,  .eligible = -H,   .start = -H,   .end = H,     .suspended = 0,   .lost = false },
		{ .id = 11, .tres = 1, .allocated = true,  .eligible = H,    .start = H,    .end = 3 * H, .suspended = 0,   .lost = false },
	  },
	  .nsegs = 2, .now = 3 * H,
	  .want = {
		{ .id = 11, .delivered = 7200,  .unallocated = 0,    .demand = 7200,     .owed = 7200,  .capped = 7200,  .lost = 0 },
	  },
	  .nwant = 1, .unknown = 0 },
	/* a requeued job: two runs, the pending span between them is demand */
	{ .what = "two runs of a requeued job",
	  .segs = {
		{ .id = 11, .tres = 2, .allocated = true,  .eligible = 0,    .start = 0,    .end = 1000,  .suspended = 0,   .lost = false },
		{ .id = 11, .tres = 2, .allocated = true,  .eligible = 1000, .start = 1500, .end = 2 * H, .suspended = 0,   .lost = false },
	  },
	  .nsegs = 2, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 2 * (1000 + 5700), .unallocated = 0,    .demand = 2 * 7200, .owed = 14400, .capped = 2 * (1000 + 5700), .lost = 0 },
	  },
	  .nwant = 1, .unknown = 0 },
	/* 4 GPUs on phys-a, 0-3600 with 600 s suspended: ran 3000 s, filed
	 * from its start (sb_run_charged_to); demand is the whole span */
	{ .what = "suspended time is not delivered",
	  .segs = {
		{ .id = 11, .tres = 4, .allocated = true,  .eligible = 0,    .start = 0,    .end = H,     .suspended = 600, .lost = false },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 12000, .unallocated = 0,    .demand = 14400,    .owed = 14400, .capped = 12000, .lost = 0 },
	  },
	  .nwant = 1, .unknown = 0 },
	/* lost (sb_run_work_lost): the run's charged span, allocated or
	 * not, also counted as delivered or unallocated */
	{ .what = "a run restarted from its beginning: delivered, and lost",
	  .segs = {
		{ .id = 11, .tres = 4, .allocated = true,  .eligible = 0,    .start = 0,    .end = H,     .suspended = 0,   .lost = true },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 14400, .unallocated = 0,    .demand = 14400,    .owed = 14400, .capped = 14400, .lost = 14400 },
		{ .id = 10, .delivered = 14400, .unallocated = 0,    .demand = 14400,    .owed = 14400, .capped = 14400, .lost = 14400 },
	  },
	  .nwant = 2, .unknown = 0 },
	{ .what = "an unallocated run cancelled: unallocated, and lost",
	  .segs = {
		{ .id = 12, .tres = 2, .allocated = false, .eligible = 0,    .start = 0,    .end = 1800,  .suspended = 0,   .lost = true },
		{ .id = 12, .tres = 1, .allocated = true,  .eligible = 0,    .start = 0,    .end = H,     .suspended = 0,   .lost = false },
	  },
	  .nsegs = 2, .now = 2 * H,
	  .want = {
		{ .id = 12, .delivered = 3600,  .unallocated = 3600, .demand = 3600,     .owed = 3600,  .capped = 3600,  .lost = 3600 },
		{ .id = 10, .delivered = 3600,  .unallocated = 3600, .demand = 3600,     .owed = 3600,  .capped = 3600,  .lost = 3600 },
		{ .id = 20, .delivered = 0,     .unallocated = 0,    .demand = 0,        .owed = 0,     .capped = 0,     .lost = 0 },
	  },
	  .nwant = 3, .unknown = 0 },
	{ .what = "a lost run's suspended seconds are not lost: 2 x (3600 - 600)",
	  .segs = {
		{ .id = 11, .tres = 2, .allocated = true,  .eligible = 0,    .start = 0,    .end = H,     .suspended = 600, .lost = true },
	  },
	  .nsegs = 1, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 6000,  .unallocated = 0,    .demand = 7200,     .owed = 7200,  .capped = 6000,  .lost = 6000 },
	  },
	  .nwant = 1, .unknown = 0 },
	{ .what = "association not in the tree: ignored, counted",
	  .segs = {
		{ .id = 0,  .tres = 8, .allocated = true,  .eligible = 0,    .start = 0,    .end = 2 * H, .suspended = 0,   .lost = false },
		{ .id = 11, .tres = 1, .allocated = true,  .eligible = 0,    .start = 0,    .end = H,     .suspended = 0,   .lost = false },
	  },
	  .nsegs = 2, .now = 2 * H,
	  .want = {
		{ .id = 11, .delivered = 3600,  .unallocated = 0,    .demand = 3600,     .owed = 3600,  .capped = 3600,  .lost = 0 },
	  },
	  .nwant = 1, .unknown = 1 },
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
		segs[i].suspended = c->segs[i].suspended;
		segs[i].lost = c->segs[i].lost;
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
			      f->capped == w->capped && f->lost == w->lost,
			      "%s: id %u: got delivered %.0f unallocated %.0f "
			      "demand %.0f owed %.0f capped %.0f lost %.0f; want "
			      "%.0f %.0f %.0f %.0f %.0f %.0f", c->what, w->id,
			      f->delivered, f->unallocated, f->demand, f->owed,
			      f->capped, f->lost, w->delivered, w->unallocated,
			      w->demand, w->owed, w->capped, w->lost);
		/* the series adds up to the totals */
		for (k = 0; k < 2; k++) {
			const struct sb_fig *s = &series[cluster_ix(t, w->id) * 2 + k];

			sum.owed += s->owed;
			sum.capped += s->capped;
			sum.delivered += s->delivered;
			sum.lost += s->lost;
			ck_assert(s->owed <= s->quota && s->capped <= s->owed);
		}
		ck_assert_double_eq(sum.lost, f->lost);
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
	struct sb_fig_seg s = { 0, 1, true, 0, 0, 10, 0, false };

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

/*
 * Formerly sbudget's own copy's cases (test/unit/sbudget-test.c), now on the
 * one definition.  Tree: A (1, 3 shares) with its user A/u (3), B (2, 1):
 * entitled A 0.75, A/u 0.75, B 0.25.  Window [1000, 8200) in slots of 3600
 * s ([1000, 4600), [4600, 8200)), now 8000, 8 GPUs: one slot's quota is A
 * 21600, B 7200.
 */
static struct sb_tree *user_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, 3, "A"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 1, "B"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 3, 1, 1, "A/u"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	return t;
}

START_TEST(test_figures_subtree_and_open)
{
	struct sb_tree *t = user_tree();
	struct sb_fig_seg segs[] = {
		/* u: allocated, 4 GPUs, eligible 1000, ran 2800..6400 */
		{ cluster_ix(t, 3), 4, true, 1000, 2800, 6400, 0, false },
		/* B: unallocated, 2 GPUs, running since 1200 (open) */
		{ cluster_ix(t, 2), 2, false, 1100, 1200, 0, 0, false },
		/* B: allocated, 8 GPUs, pending since 4600 (open) */
		{ cluster_ix(t, 2), 8, true, 4600, 0, 0, 0, false },
		/* an association not in the tree */
		{ SB_NONE, 1, true, 1000, 0, 1100, 0, false },
	};
	struct sb_fig tot[3], ser[3 * 2];
	const struct sb_fig *a = &tot[cluster_ix(t, 1)];
	const struct sb_fig *u = &tot[cluster_ix(t, 3)];
	const struct sb_fig *b = &tot[cluster_ix(t, 2)];
	size_t unknown = 0;

	ck_assert_int_eq(sb_figures(t, segs, 4, 1000, 8200, 3600, 8000, 8,
				    tot, ser, &unknown), SB_OK);
	ck_assert_uint_eq(unknown, 1);
	/* delivered: u ran 3600 s x 4 = 14400 (1800 s in each slot), A sums
	 * its subtree */
	ck_assert_double_eq(u->delivered, 14400);
	ck_assert_double_eq(a->delivered, 14400);
	ck_assert_double_eq(b->delivered, 0);
	ck_assert_double_eq(ser[cluster_ix(t, 3) * 2 + 0].delivered, 7200);
	ck_assert_double_eq(ser[cluster_ix(t, 3) * 2 + 1].delivered, 7200);
	/* unallocated: B 1200..8000 (now) x 2 */
	ck_assert_double_eq(b->unallocated, 13600);
	ck_assert_double_eq(a->unallocated, 0);
	/* demand: u 1000..6400 x 4 (14400 + 7200); B 4600..8000 x 8 */
	ck_assert_double_eq(u->demand, 21600);
	ck_assert_double_eq(b->demand, 27200);
	/* quota: entitled x 8 x 7200 */
	ck_assert_double_eq(a->quota, 43200);
	ck_assert_double_eq(b->quota, 14400);
	/* owed: A min(21600, 14400) + min(21600, 7200); B 0 + min(7200,
	 * 27200) */
	ck_assert_double_eq(a->owed, 21600);
	ck_assert_double_eq(u->owed, 21600);
	ck_assert_double_eq(b->owed, 7200);
	ck_assert_double_eq(ser[cluster_ix(t, 2) * 2 + 0].owed, 0);
	ck_assert_double_eq(ser[cluster_ix(t, 2) * 2 + 1].owed, 7200);
	/* capped: u min(7200, 14400) + min(7200, 7200); B nothing ran */
	ck_assert_double_eq(u->capped, 14400);
	ck_assert_double_eq(a->capped, 14400);
	ck_assert_double_eq(b->capped, 0);
	/* the ratio a report shows */
	ck_assert_double_eq_tol(sb_fig_ratio(u), 14400.0 / 21600, 1e-12);
	ck_assert_double_eq(sb_fig_ratio(b), 0);
	sb_tree_free(t);
}
END_TEST

/* Whatever the slot width: owed never exceeds the quota or the demand,
 * capped never exceeds delivered or owed, and delivered work inside the
 * window is counted exactly once. */
START_TEST(test_figures_any_slot)
{
	static const int64_t slots[] = { 1, 7, 60, 3600, 7200, 10000 };
	struct sb_tree *t = user_tree();
	struct sb_fig_seg segs[] = {
		{ cluster_ix(t, 3), 8, true, 110, 120, 7290, 0, false },
		{ cluster_ix(t, 2), 8, true, 50, 0, 0, 0, false },
	};
	size_t k;

	for (k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		struct sb_fig tot[3];
		int i;

		ck_assert_int_eq(sb_figures(t, segs, 2, 100, 7300, slots[k],
					    7300, 8, tot, NULL, NULL), SB_OK);
		ck_assert_double_eq(tot[cluster_ix(t, 3)].delivered,
				    7170.0 * 8);
		for (i = 0; i < 3; i++) {
			ck_assert(tot[i].owed <= tot[i].quota + 1e-6);
			ck_assert(tot[i].owed <= tot[i].demand + 1e-6);
			ck_assert(tot[i].capped <= tot[i].owed + 1e-6);
			ck_assert(tot[i].capped <= tot[i].delivered + 1e-6);
		}
		/* B asks for the whole cluster all the time: owed = quota,
		 * but nothing of it ran */
		ck_assert_double_eq_tol(tot[cluster_ix(t, 2)].owed,
					tot[cluster_ix(t, 2)].quota, 1e-6);
		ck_assert_double_eq(tot[cluster_ix(t, 2)].capped, 0);
	}
	sb_tree_free(t);
}
END_TEST

/* sb_fig_ratio: capped / owed, 1 when nothing is owed. */
static const struct {
	double capped, owed, want;
} ratios[] = {
	{ .capped = 0,  .owed = 0,  .want = 1 },   /* asked for nothing: lacks nothing */
	{ .capped = 5,  .owed = 0,  .want = 1 },   /* (capped > owed cannot happen; still 1) */
	{ .capped = 0,  .owed = 10, .want = 0 },   /* owed, nothing delivered */
	{ .capped = 5,  .owed = 10, .want = 0.5 },
	{ .capped = 10, .owed = 10, .want = 1 },
};

START_TEST(test_fig_ratio)
{
	struct sb_fig f;

	memset(&f, 0, sizeof(f));
	f.capped = ratios[_i].capped;
	f.owed = ratios[_i].owed;
	ck_assert_msg(sb_fig_ratio(&f) == ratios[_i].want,
		      "capped %.0f owed %.0f: ratio %g, want %g",
		      f.capped, f.owed, sb_fig_ratio(&f), ratios[_i].want);
	if (_i == 0)
		ck_assert_double_eq(sb_fig_ratio(NULL), 1);
}
END_TEST

/* sb_run_work_lost: cancelled by a preemption, or requeued and not
 * resumable (it starts over). */
static const struct {
	bool requeued, preempted_cancel, resumable, want;
} lost_rules[] = {
	{ .requeued = false, .preempted_cancel = false, .resumable = false, .want = false }, /* completed, failed, user-cancelled */
	{ .requeued = false, .preempted_cancel = false, .resumable = true,  .want = false },
	{ .requeued = true,  .preempted_cancel = false, .resumable = false, .want = true },  /* restarted from its beginning */
	{ .requeued = true,  .preempted_cancel = false, .resumable = true,  .want = false }, /* resumes from its checkpoint */
	{ .requeued = false, .preempted_cancel = true,  .resumable = false, .want = true },  /* cancelled by a preemption */
	/* a resumable job that could not be requeued: gone all the same */
	{ .requeued = false, .preempted_cancel = true,  .resumable = true,  .want = true },
};

START_TEST(test_run_work_lost)
{
	ck_assert_msg(sb_run_work_lost(lost_rules[_i].requeued,
				       lost_rules[_i].preempted_cancel,
				       lost_rules[_i].resumable) ==
		      lost_rules[_i].want, "row %d", _i);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("figures");
	TCase *tc = tcase_create("figures");

	tcase_add_loop_test(tc, test_figures, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_figures_refuses);
	tcase_add_test(tc, test_figures_subtree_and_open);
	tcase_add_test(tc, test_figures_any_slot);
	tcase_add_loop_test(tc, test_fig_ratio, 0,
			    sizeof(ratios) / sizeof(ratios[0]));
	figures_window_tests(tc);
	tcase_add_loop_test(tc, test_run_work_lost, 0,
			    sizeof(lost_rules) / sizeof(lost_rules[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
