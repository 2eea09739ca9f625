/*
 * figures-window-test.c - the figures over a window (sb/figures.h): the
 * usable GPU-seconds (sb_fig_usable), one association's hourly slots
 * (sb_fig_window) and every team's figures (sb_fig_all_teams), every
 * expected value worked out by hand in the comments.
 *
 * Tree, cluster and quotas as in figures-test.c: the test cluster's tree
 * (cluster-tree.h), 8 GPUs.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "cluster-tree.h"
#include "figures-test.h"
#include "sb/error.h"
#include "sb/figures.h"

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

void figures_window_tests(TCase *tc)
{
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
}
