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

#include "check_main.h"
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
	int64_t suspended;
	bool lost;
};

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

/* sb_fig_usable: sum over the slots of min(8 GPUs x slot, demand of every
 * segment, allocated or not, from eligible to end).  Window [0, 7200) in
 * two slots, times relative to B, now 7200 unless given. */
static const struct {
	const char *what;
	struct seg segs[3];
	size_t n;
	int64_t now;
	double want;
} usable_cases[] = {
	{ .what = "nothing asked: nothing usable",
	  .segs = {
		{ .id = 0 },
	  },
	  .n = 0, .now = 0,    .want = 0 },
	{ .what = "4 GPUs all along: 4 x 7200",
	  .segs = {
		{ .id = 11, .tres = 4,  .allocated = true,  .eligible = 0,     .start = 0,     .end = 7200, .suspended = 0, .lost = false },
	  },
	  .n = 1, .now = 0,    .want = 4 * 7200.0 },
	{ .what = "unallocated counts too: 8 pending (open) + 4 running > 8, capped "
	  "8 x 3600 a slot",
	  .segs = {
		{ .id = 30, .tres = 8,  .allocated = false, .eligible = 0,     .start = NO,    .end = NO,   .suspended = 0, .lost = false },
		{ .id = 11, .tres = 4,  .allocated = true,  .eligible = 0,     .start = 0,     .end = 7200, .suspended = 0, .lost = false },
	  },
	  .n = 2, .now = 0,    .want = 8 * 7200.0 },
	{ .what = "eligible none: no demand, though it ran",
	  .segs = {
		{ .id = 11, .tres = 4,  .allocated = true,  .eligible = NO,    .start = 0,     .end = 7200, .suspended = 0, .lost = false },
	  },
	  .n = 1, .now = 0,    .want = 0 },
	{ .what = "8 GPUs over [1800, 5400): 8 x 1800 in each slot",
	  .segs = {
		{ .id = 20, .tres = 8,  .allocated = true,  .eligible = 1800,  .start = 1800,  .end = 5400, .suspended = 0, .lost = false },
	  },
	  .n = 1, .now = 0,    .want = 8 * 3600.0 },
	{ .what = "before the window: only [0, 1800) counts",
	  .segs = {
		{ .id = 20, .tres = 4,  .allocated = true,  .eligible = -3600, .start = -3600, .end = 1800, .suspended = 0, .lost = false },
	  },
	  .n = 1, .now = 0,    .want = 4 * 1800.0 },
	{ .what = "capped slot by slot: 16 in slot 0 (8 usable), 4 in slot 1",
	  .segs = {
		{ .id = 11, .tres = 16, .allocated = true,  .eligible = 0,     .start = NO,    .end = 3600, .suspended = 0, .lost = false },
		{ .id = 12, .tres = 4,  .allocated = false, .eligible = 3600,  .start = 3600,  .end = 7200, .suspended = 0, .lost = false },
	  },
	  .n = 2, .now = 0,    .want = 12 * 3600.0 },
	{ .what = "an open segment ends at now (3600)",
	  .segs = {
		{ .id = 11, .tres = 8,  .allocated = true,  .eligible = 0,     .start = 0,     .end = NO,   .suspended = 0, .lost = false },
	  },
	  .n = 1, .now = 3600, .want = 8 * 3600.0 },
};

START_TEST(test_fig_usable)
{
	struct sb_fig_seg fs[3];
	double u = -1;
	size_t k;

	memset(fs, 0, sizeof(fs));
	for (k = 0; k < usable_cases[_i].n; k++) {
		const struct seg *g = &usable_cases[_i].segs[k];

		fs[k] = (struct sb_fig_seg){ .index = g->id, .tres = g->tres,
			.allocated = g->allocated, .eligible = at(g->eligible),
			.start = at(g->start), .end = at(g->end) };
	}
	ck_assert_int_eq(sb_fig_usable(fs, usable_cases[_i].n, B, B + 7200, H,
				       B + (usable_cases[_i].now ?
					    usable_cases[_i].now : 7200),
				       8, &u), SB_OK);
	ck_assert_msg(u == usable_cases[_i].want, "%s: %.0f, want %.0f",
		      usable_cases[_i].what, u, usable_cases[_i].want);
}
END_TEST

START_TEST(test_fig_usable_refuses)
{
	struct sb_fig_seg one = { .tres = 1, .eligible = B, .end = B + 1 };
	double u;

	ck_assert_int_eq(sb_fig_usable(&one, 1, B, B + H, H, B, 8, NULL),
			 SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(&one, 1, B, B, H, B, 8, &u), SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(&one, 1, B, B + H, 0, B, 8, &u),
			 SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(&one, 1, B, B + H, H, B, -1, &u),
			 SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(&one, 1, B, B + H, H, B, 0.0 / 0.0,
				       &u), SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(NULL, 1, B, B + H, H, B, 8, &u),
			 SB_EINVAL);
	ck_assert_int_eq(sb_fig_usable(NULL, 0, B, B + H, H, B, 8, &u), SB_OK);
	ck_assert(u == 0);
}
END_TEST

/* sb_fig_window: one association's hourly slots (quota, demand,
 * delivered; GPU-hours here, times 3600 in the series) grouped @per at a
 * time; owed and capped per window, worked out by hand. */
static const struct {
	const char *what;
	double q[6], d[6], del[6];	/* per slot, GPU-hours */
	size_t nslots, per;
	double owed, capped;		/* want, GPU-hours */
	double hourly_owed, hourly_capped;	/* the slots' own figure */
} window_cases[] = {
	{ .what = "an 8-GPU job of a 2-GPU team, run one hour of four: "
		  "hourly 2 of 8 owed, over the window 8 of 8",
	  .q = { 2, 2, 2, 2 }, .d = { 8, 8, 8, 8 }, .del = { 8, 0, 0, 0 },
	  .nslots = 4, .per = 4, .owed = 8, .capped = 8,
	  .hourly_owed = 8, .hourly_capped = 2 },
	{ .what = "a surplus does not cross windows: 2 delivered in the "
		  "first, 0 in the second",
	  .q = { 1, 1, 1, 1 }, .d = { 1, 1, 1, 1 }, .del = { 2, 0, 0, 0 },
	  .nslots = 4, .per = 2, .owed = 4, .capped = 2,
	  .hourly_owed = 4, .hourly_capped = 1 },
	{ .what = "the last window is shorter: {0,1} {2,3} {4}",
	  .q = { 4, 4, 4, 4, 4 }, .d = { 0, 6, 6, 0, 5 },
	  .del = { 0, 6, 0, 2, 1 },
	  .nslots = 5, .per = 2, .owed = 6 + 6 + 4, .capped = 6 + 2 + 1,
	  .hourly_owed = 0 + 4 + 4 + 0 + 4,
	  .hourly_capped = 0 + 4 + 0 + 0 + 1 },
	{ .what = "nothing asked: nothing owed, whatever ran",
	  .q = { 3, 3 }, .d = { 0, 0 }, .del = { 5, 5 },
	  .nslots = 2, .per = 1, .owed = 0, .capped = 0,
	  .hourly_owed = 0, .hourly_capped = 0 },
	{ .what = "a window longer than the span: one window",
	  .q = { 1, 1, 1 }, .d = { 3, 0, 0 }, .del = { 0, 0, 3 },
	  .nslots = 3, .per = 168, .owed = 3, .capped = 3,
	  .hourly_owed = 1, .hourly_capped = 0 },
	{ .what = "per 1: the hourly figure",
	  .q = { 2, 2, 2 }, .d = { 1, 3, 2 }, .del = { 2, 1, 2 },
	  .nslots = 3, .per = 1, .owed = 1 + 2 + 2, .capped = 1 + 1 + 2,
	  .hourly_owed = 5, .hourly_capped = 4 },
};

START_TEST(test_fig_window)
{
	struct sb_fig ser[2 * 6], tot[2];
	size_t k, ns = window_cases[_i].nslots;

	memset(ser, 0, sizeof(ser));
	memset(tot, 0xff, sizeof(tot));	/* every field must be written */
	for (k = 0; k < ns; k++) {
		/* row 1 is the case; row 0 empty, to check the rows apart */
		struct sb_fig *f = &ser[ns + k];

		f->quota = window_cases[_i].q[k] * H;
		f->demand = window_cases[_i].d[k] * H;
		f->delivered = window_cases[_i].del[k] * H;
		f->unallocated = 1 * H;
		f->lost = 2 * H;
		f->owed = f->demand < f->quota ? f->demand : f->quota;
		f->capped = f->delivered < f->owed ? f->delivered : f->owed;
	}
	ck_assert_int_eq(sb_fig_window(ser, 2, ns, window_cases[_i].per, tot),
			 SB_OK);
	ck_assert_msg(tot[1].owed == window_cases[_i].owed * H &&
		      tot[1].capped == window_cases[_i].capped * H,
		      "%s: owed %.0f capped %.0f GPU-h, want %.0f and %.0f",
		      window_cases[_i].what, tot[1].owed / H,
		      tot[1].capped / H, window_cases[_i].owed,
		      window_cases[_i].capped);
	for (k = 0; k < ns; k++) {	/* the hourly figure, for the record */
		tot[0].owed = k ? tot[0].owed + ser[ns + k].owed :
				  ser[ns].owed;
		tot[0].capped = k ? tot[0].capped + ser[ns + k].capped :
				    ser[ns].capped;
	}
	ck_assert_msg(tot[0].owed == window_cases[_i].hourly_owed * H &&
		      tot[0].capped == window_cases[_i].hourly_capped * H,
		      "%s: hourly owed %.0f capped %.0f, want %.0f and %.0f",
		      window_cases[_i].what, tot[0].owed / H,
		      tot[0].capped / H, window_cases[_i].hourly_owed,
		      window_cases[_i].hourly_capped);
	/* sums, not per window: the same as the slots' */
	ck_assert_int_eq(sb_fig_window(ser, 2, ns, window_cases[_i].per, tot),
			 SB_OK);
	ck_assert_msg(tot[1].unallocated == (double)ns * H &&
		      tot[1].lost == 2.0 * (double)ns * H,
		      "%s: unallocated %.0f lost %.0f", window_cases[_i].what,
		      tot[1].unallocated, tot[1].lost);
	ck_assert_msg(tot[0].owed == 0 && tot[0].capped == 0 &&
		      tot[0].delivered == 0 && tot[0].quota == 0,
		      "%s: the empty row got figures", window_cases[_i].what);
}
END_TEST

START_TEST(test_fig_window_refuses)
{
	struct sb_fig one = { .quota = H, .demand = H }, t;

	ck_assert_int_eq(sb_fig_window(&one, 1, 1, 0, &t), SB_EINVAL);
	ck_assert_int_eq(sb_fig_window(&one, 1, 1, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_fig_window(NULL, 1, 1, 1, &t), SB_EINVAL);
	ck_assert_int_eq(sb_fig_window(NULL, 0, 1, 1, &t), SB_OK);
	ck_assert_int_eq(sb_fig_window(&one, 1, 0, 1, &t), SB_OK);
	ck_assert(t.owed == 0 && t.quota == 0);
}
END_TEST

/* sb_fig_all_teams: figures by tree index (GPU-hours here, times 3600),
 * the teams' indices, and what all teams come to, worked out by hand. */
struct all_case {
	const char *what;
	struct { double owed, capped; } fig[5];	/* by index, GPU-hours */
	uint32_t teams[5];
	uint32_t nteams;
	double owed, capped, ratio;	/* want, GPU-hours */
	uint32_t teams_owed, worst;	/* worst: a position in teams */
	double worst_ratio;
};

static const struct all_case all_cases[] = {
	{ .what = "two teams: 10 of 12 owed, the second the worst",
	  .fig = { { 8, 8 }, { 4, 2 } }, .teams = { 0, 1 }, .nteams = 2,
	  .owed = 12, .capped = 10, .ratio = 10.0 / 12, .teams_owed = 2,
	  .worst = 1, .worst_ratio = 0.5 },
	/* index 0 is the parent of 1 and 2: its own capped (a surplus of
	 * 1 covering 2's shortfall in the same slots) is not summed */
	{ .what = "a sibling's surplus does not hide a shortfall",
	  .fig = { { 8, 8 }, { 4, 4 }, { 4, 0 } }, .teams = { 1, 2 },
	  .nteams = 2, .owed = 8, .capped = 4, .ratio = 0.5,
	  .teams_owed = 2, .worst = 1, .worst_ratio = 0 },
	{ .what = "a team owed nothing is neither summed nor the worst",
	  .fig = { { 0, 0 }, { 6, 3 }, { 2, 2 } }, .teams = { 0, 1, 2 },
	  .nteams = 3, .owed = 8, .capped = 5, .ratio = 5.0 / 8,
	  .teams_owed = 2, .worst = 1, .worst_ratio = 0.5 },
	{ .what = "nothing owed to anyone: ratio 1, no worst team",
	  .fig = { { 0, 0 }, { 0, 0 } }, .teams = { 0, 1 }, .nteams = 2,
	  .owed = 0, .capped = 0, .ratio = 1, .teams_owed = 0,
	  .worst = SB_NONE, .worst_ratio = 1 },
	{ .what = "no teams at all",
	  .nteams = 0, .owed = 0, .capped = 0, .ratio = 1, .teams_owed = 0,
	  .worst = SB_NONE, .worst_ratio = 1 },
	{ .what = "equal ratios: the first listed is the worst",
	  .fig = { { 2, 1 }, { 4, 2 }, { 6, 3 } }, .teams = { 2, 1, 0 },
	  .nteams = 3, .owed = 12, .capped = 6, .ratio = 0.5,
	  .teams_owed = 3, .worst = 0, .worst_ratio = 0.5 },
	{ .what = "the teams in any order, a subset of the tree",
	  .fig = { { 1, 1 }, { 9, 9 }, { 3, 0 }, { 5, 5 }, { 2, 1 } },
	  .teams = { 4, 0, 3 }, .nteams = 3, .owed = 8, .capped = 7,
	  .ratio = 7.0 / 8, .teams_owed = 3, .worst = 0,
	  .worst_ratio = 0.5 },
};

START_TEST(test_fig_all_teams)
{
	const struct all_case *c = &all_cases[_i];
	struct sb_fig fig[5];
	struct sb_fig_all all;
	size_t k;

	memset(fig, 0, sizeof(fig));
	for (k = 0; k < 5; k++) {
		fig[k].owed = c->fig[k].owed * H;
		fig[k].capped = c->fig[k].capped * H;
		fig[k].delivered = fig[k].capped + 1 * H;	/* not read */
	}
	memset(&all, 0xff, sizeof(all));	/* every field must be written */
	ck_assert_int_eq(sb_fig_all_teams(fig, 5, c->teams, c->nteams, &all),
			 SB_OK);
	ck_assert_msg(all.owed == c->owed * H && all.capped == c->capped * H,
		      "%s: owed %g capped %g GPU-h, want %g and %g", c->what,
		      all.owed / H, all.capped / H, c->owed, c->capped);
	ck_assert_msg(all.ratio == c->ratio, "%s: ratio %g, want %g",
		      c->what, all.ratio, c->ratio);
	ck_assert_msg(all.teams_owed == c->teams_owed,
		      "%s: %u teams owed, want %u", c->what, all.teams_owed,
		      c->teams_owed);
	ck_assert_msg(all.worst == c->worst && all.worst_ratio ==
		      c->worst_ratio, "%s: worst %u at %g, want %u at %g",
		      c->what, all.worst, all.worst_ratio, c->worst,
		      c->worst_ratio);
}
END_TEST

START_TEST(test_fig_all_teams_refuses)
{
	struct sb_fig one = { .owed = H, .capped = H };
	uint32_t t0 = 0, t1 = 1;
	struct sb_fig_all all;

	ck_assert_int_eq(sb_fig_all_teams(&one, 1, &t0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_fig_all_teams(NULL, 1, &t0, 1, &all), SB_EINVAL);
	ck_assert_int_eq(sb_fig_all_teams(&one, 1, NULL, 1, &all), SB_EINVAL);
	/* a team index outside the figures: refused, nothing summed */
	ck_assert_int_eq(sb_fig_all_teams(&one, 1, &t1, 1, &all), SB_EINVAL);
	ck_assert(all.owed == 0 && all.capped == 0 && all.ratio == 1 &&
		  all.worst == SB_NONE && all.teams_owed == 0);
	ck_assert_int_eq(sb_fig_all_teams(NULL, 0, NULL, 0, &all), SB_OK);
	ck_assert(all.ratio == 1 && all.worst == SB_NONE);
}
END_TEST

/*
 * A team whose jobs are larger than its hourly quota, end to end through
 * sb_figures() and sb_fig_window(): cluster 8 GPUs, team a 1 share
 * (entitled 1/8: 1 GPU), team b 7 shares (7 GPUs), 8 hours, one window
 * of 8 hours.
 *   a: an 8-GPU job eligible at 0, waits, runs [7 h, 8 h).  Hour by
 *      hour: owed min(1, 8) = 1 each hour, 8 in all; delivered 8 in the
 *      last hour, capped 1: 1 of 8.  Over the window: quota 8, demand
 *      64, owed 8, delivered 8, capped 8: 8 of 8.
 *   b: a 7-GPU job runs [0, 7 h), then 7 GPUs wait [7 h, 8 h).  Hour by
 *      hour owed 7 each, 56; delivered 49, capped 49.  Window: owed 56,
 *      capped 49.
 * All teams hour by hour: 50 of 64, the worst a (1/8); over the window:
 * 57 of 64, the worst b (7/8).
 */
START_TEST(test_fig_all_teams_large_jobs)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t team[2];
	struct sb_fig tot[2], ser[2 * 8], win[2];
	struct sb_fig_all hourly, window;
	const int64_t T0 = 1000000;

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "a"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 7, "b"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	team[0] = cluster_ix(t, 1);
	team[1] = cluster_ix(t, 2);
	{
		const struct sb_fig_seg segs[] = {
			{ .index = team[0], .tres = 8, .allocated = true,
			  .eligible = T0, .start = T0 + 7 * H,
			  .end = T0 + 8 * H },
			{ .index = team[1], .tres = 7, .allocated = true,
			  .eligible = T0, .start = T0, .end = T0 + 7 * H },
			{ .index = team[1], .tres = 7, .allocated = true,
			  .eligible = T0 + 7 * H, .start = 0,
			  .end = T0 + 8 * H },
		};

		ck_assert_int_eq(sb_figures(t, segs, 3, T0, T0 + 8 * H, H,
					    T0 + 8 * H, 8, tot, ser, NULL),
				 SB_OK);
	}
	ck_assert_int_eq(sb_fig_window(ser, 2, 8, 8, win), SB_OK);
	ck_assert_int_eq(sb_fig_all_teams(tot, 2, team, 2, &hourly), SB_OK);
	ck_assert_int_eq(sb_fig_all_teams(win, 2, team, 2, &window), SB_OK);
	/* the team of large jobs: 1 of 8 hour by hour, 8 of 8 over the
	 * window */
	ck_assert_double_eq(tot[team[0]].owed, 8 * H);
	ck_assert_double_eq(tot[team[0]].capped, 1 * H);
	ck_assert_double_eq(win[team[0]].owed, 8 * H);
	ck_assert_double_eq(win[team[0]].delivered, 8 * H);
	ck_assert_double_eq(win[team[0]].capped, 8 * H);
	ck_assert_double_eq(hourly.owed, 64 * H);
	ck_assert_double_eq(hourly.capped, 50 * H);
	ck_assert_double_eq(hourly.ratio, 50.0 / 64);
	ck_assert_uint_eq(hourly.worst, 0);
	ck_assert_double_eq(hourly.worst_ratio, 1.0 / 8);
	ck_assert_double_eq(window.owed, 64 * H);
	ck_assert_double_eq(window.capped, 57 * H);
	ck_assert_double_eq(window.ratio, 57.0 / 64);
	ck_assert_uint_eq(window.worst, 1);
	ck_assert_double_eq(window.worst_ratio, 7.0 / 8);
	ck_assert_uint_eq(window.teams_owed, 2);
	sb_tree_free(t);
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
	tcase_add_loop_test(tc, test_fig_usable, 0,
			    sizeof(usable_cases) / sizeof(usable_cases[0]));
	tcase_add_test(tc, test_fig_usable_refuses);
	tcase_add_loop_test(tc, test_fig_window, 0,
			    sizeof(window_cases) / sizeof(window_cases[0]));
	tcase_add_test(tc, test_fig_window_refuses);
	tcase_add_loop_test(tc, test_fig_all_teams, 0,
			    sizeof(all_cases) / sizeof(all_cases[0]));
	tcase_add_test(tc, test_fig_all_teams_refuses);
	tcase_add_test(tc, test_fig_all_teams_large_jobs);
	tcase_add_loop_test(tc, test_run_work_lost, 0,
			    sizeof(lost_rules) / sizeof(lost_rules[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
