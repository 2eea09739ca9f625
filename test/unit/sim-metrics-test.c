/*
 * sim-metrics-test.c - percentiles, wait classes, owed vs delivered hour by
 * hour (sb_figures()' definition: allocated demand from eligibility,
 * allocated runs delivered, unallocated runs apart), occupancy,
 * unallocated share and preempted/lost GPU-hours, on scenarios worked out
 * by hand.  The JSON's fixed form, the report's size and the verdict are
 * tested in sim-metrics-report-test.c.
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "check_main.h"
#include "sim.h"
#include "sim-metrics-test.h"

struct pct_case {
	double v[8];
	size_t n;
	double p, want;
};

/* Nearest rank: the ceil(p/100 * n)-th smallest. */
static const struct pct_case pcts[] = {
	{ .v = { 0 },          .n = 0, .p = 50, .want = 0 },
	{ .v = { 7 },          .n = 1, .p = 99, .want = 7 },
	{ .v = { 3, 1, 2 },    .n = 3, .p = 50, .want = 2 },                      /* ceil(1.5) = 2nd */
	{ .v = { 4, 3, 2, 1 }, .n = 4, .p = 50, .want = 2 },                      /* ceil(2) = 2nd */
	{ .v = { 4, 3, 2, 1 }, .n = 4, .p = 90, .want = 4 },                      /* ceil(3.6) = 4th */
	{ .v = { 10, 20, 30, 40, 50, 60, 70, 80 }, .n = 8, .p = 90, .want = 80 },
	{ .v = { 10, 20, 30, 40, 50, 60, 70, 80 }, .n = 8, .p = 25, .want = 20 },
	{ .v = { 5, 5, 5, 1 }, .n = 4, .p = 1,  .want = 1 },                      /* ceil(0.04) = 1st */
};

START_TEST(test_percentile)
{
	struct pct_case c = pcts[_i];
	double got = sim_percentile(c.v, c.n, c.p);

	ck_assert_msg(got == c.want, "p%g of case %d: want %g got %g", c.p, _i,
		      c.want, got);
}
END_TEST

/* ------------------------------------------------- owed and delivered */

/* What a team (or budget) must come out with, GPU-seconds. */
struct want_team {
	const char *name;
	double owed, delivered, capped, unallocated;
};

struct mcase {
	const char *what;
	const char *tree;
	uint64_t gpus;
	int64_t t0, t1, now;
	size_t njobs, nsegs;
	struct sim_mjob jobs[4];
	struct sim_mseg segs[4];
	struct want_team want[3];	/* by name; budgets, not only teams */
	double overall;			/* all teams: sum of the teams' capped
					 * / sum of their owed */
	double occupancy, unalloc_share;
};

/*
 * Every case by hand; quota per hour = entitled x GPUs x 3600 (0.5 x 4 x
 * 3600 = 7200 for a team of two equal ones on 4 GPUs).
 * Job fields: node, gpus, min_runtime, allocated, submit, first_start,
 * end, pending_since, pending_until; segment fields: job, eligible,
 * start, end, preempted, lost, cancelled.
 */
static const struct mcase mcases[] = {
	/* a: job 0 (2 GPUs, allocated) eligible 0, runs 1800-5400; job 2
	 * (1 GPU, allocated) pending from 3600, open until now = 7200.
	 *   demand h0 2 x 3600 = 7200, h1 2 x 1800 + 1 x 3600 = 7200; owed
	 *   7200 + 7200 = 14400; delivered 2 x 1800 per hour = 7200; capped
	 *   3600 + 3600 = 7200.
	 * b: job 1 (4 GPUs, unallocated) runs 0-1800 (preempted) and
	 *   5400-7200: owed nothing, delivered 0, unallocated 4 x 3600 =
	 *   14400 (the old definition counted it as delivered against its
	 *   demand: 14400 owed, ratio 1, and all teams 0.75).
	 * All teams: 7200 / 14400 = 0.5; used 21600 of 4 x 7200: 0.75;
	 * unallocated 14400 / 21600. */
	{ .what = "allocated demand only; unallocated runs apart",  .tree = "a 1\nb 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 7200, .now = 7200, .njobs = 3, .nsegs = 3,
	  .jobs = {
		{ .node = 0, .gpus = 2, .min_runtime = 3600, .allocated = true,  .submit = 0,    .first_start = 1800, .end = 5400, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
		{ .node = 1, .gpus = 4, .min_runtime = 0,    .allocated = false, .submit = 0,    .first_start = 0,    .end = 7200, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
		{ .node = 0, .gpus = 1, .min_runtime = 600,  .allocated = true,  .submit = 3600, .first_start = NV,   .end = NV,   .pending_since = 3600, .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0, .eligible = 0,    .start = 1800, .end = 5400, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0,    .start = 0,    .end = 1800, .preempted = true,  .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 1800, .start = 5400, .end = 7200, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .want = {
		{ .name = "a",   .owed = 14400, .delivered = 7200,  .capped = 7200,  .unallocated = 0 },
		{ .name = "b",   .owed = 0,     .delivered = 0,     .capped = 0,     .unallocated = 14400 },
	  },
	  .overall = 0.5, .occupancy = 0.75, .unalloc_share = 2.0 / 3 },
	/* 4 GPUs from 0 to 3600 (quota 7200 per hour), then requeued and
	 * pending to now = 7200: demand 14400 per hour, owed 7200 + 7200;
	 * delivered 14400 in hour 0 only: capped 7200 + 0, ratio 1/2 though
	 * delivered equals owed. */
	{ .what = "a surplus in one hour does not pay for a shortfall in another", .tree = "a 1\nb 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 7200, .now = 7200, .njobs = 1, .nsegs = 1,
	  .jobs = {
		{ .node = 0, .gpus = 4, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = 0,    .end = NV,   .pending_since = 3600, .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0, .eligible = 0,    .start = 0,    .end = 3600, .preempted = true,  .lost = true,  .cancelled = false },
	  },
	  .want = {
		{ .name = "a",   .owed = 14400, .delivered = 14400, .capped = 7200,  .unallocated = 0 },
		{ .name = "b",   .owed = 0,     .delivered = 0,     .capped = 0,     .unallocated = 0 },
	  },
	  .overall = 0.5, .occupancy = 0.5,  .unalloc_share = 0 },
	/* 2 GPUs: eligible 0, runs 0-1000, preempted; eligible again at 1500
	 * (the requeue delay is not demand), runs 2000-3000.  Window one
	 * hour: demand 2 x (1000 + 1500) = 5000 < quota 7200: owed 5000;
	 * delivered 2 x 2000 = 4000 = capped: 0.8. */
	{ .what = "eligibility: a requeue delay is not owed",       .tree = "a 1\nb 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 3600, .now = 3600, .njobs = 1, .nsegs = 2,
	  .jobs = {
		{ .node = 0, .gpus = 2, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = 0,    .end = 3000, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0, .eligible = 0,    .start = 0,    .end = 1000, .preempted = true,  .lost = false, .cancelled = false },
		{ .job = 0, .eligible = 1500, .start = 2000, .end = 3000, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .want = {
		{ .name = "a",   .owed = 5000,  .delivered = 4000,  .capped = 4000,  .unallocated = 0 },
	  },
	  .overall = 0.8, .occupancy = 4000.0 / (4 * 3600), .unalloc_share = 0 },
	/* b: 3 GPUs pending 600-2400 (left the queue unstarted): 5400; 1 GPU
	 * pending from 3000, open until now = 3300: 300.  owed 5700 (< 7200),
	 * nothing delivered. */
	{ .what = "pending spans: cut at pending_until and at now", .tree = "a 1\nb 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 3600, .now = 3300, .njobs = 2, .nsegs = 0,
	  .jobs = {
		{ .node = 1, .gpus = 3, .min_runtime = 60,   .allocated = true,  .submit = 600,  .first_start = NV,   .end = NV,   .pending_since = 600,  .pending_until = 2400, .id = "", .why = NULL },
		{ .node = 1, .gpus = 1, .min_runtime = 60,   .allocated = true,  .submit = 3000, .first_start = NV,   .end = NV,   .pending_since = 3000, .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0 },
	  },
	  .want = {
		{ .name = "b",   .owed = 5700,  .delivered = 0,     .capped = 0,     .unallocated = 0 },
		{ .name = "a",   .owed = 0,     .delivered = 0,     .capped = 0,     .unallocated = 0 },
	  },
	  .overall = 0,   .occupancy = 0,    .unalloc_share = 0 },
	/* p (1/2) has x and y (1/4 each); q (1/2).  x: 4 GPUs, 0-3600: demand
	 * 14400; x owed min(3600, 14400) = 3600, delivered 14400, capped
	 * 3600; p (subtree) owed min(7200, 14400) = 7200, capped 7200.  All
	 * teams = top-level p and q: 7200 / 7200. */
	{ .what = "a parent's figures are over its subtree",        .tree = "p 1\np/x 1\np/y 1\nq 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 3600, .now = 3600, .njobs = 1, .nsegs = 1,
	  .jobs = {
		{ .node = 1, .gpus = 4, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = 0,    .end = 3600, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0, .eligible = 0,    .start = 0,    .end = 3600, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .want = {
		{ .name = "p/x", .owed = 3600,  .delivered = 14400, .capped = 3600,  .unallocated = 0 },
		{ .name = "p",   .owed = 7200,  .delivered = 14400, .capped = 7200,  .unallocated = 0 },
		{ .name = "q",   .owed = 0,     .delivered = 0,     .capped = 0,     .unallocated = 0 },
	  },
	  .overall = 1,   .occupancy = 1,    .unalloc_share = 0 },
	/* p (1/2) has x and y (1/4 each: quota 3600 an hour on 4 GPUs).
	 * y: 2 GPUs 0-3600: demand 7200, owed 3600, capped 3600.  x: 2 GPUs
	 * pending 0-3600: owed 3600, capped 0.  p's capped is min(7200,
	 * 7200) = 7200 = its owed: at the parent y's surplus hides x's
	 * shortfall.  All teams sums the teams' own: 3600 / 7200 = 0.5. */
	{ .what = "all teams: a sibling's surplus does not hide a shortfall", .tree = "p 1\np/x 1\np/y 1\nq 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 3600, .now = 3600, .njobs = 2, .nsegs = 1,
	  .jobs = {
		{ .node = 1, .gpus = 2, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = NV,   .end = NV,   .pending_since = 0,    .pending_until = NV,   .id = "", .why = NULL },
		{ .node = 2, .gpus = 2, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = 0,    .end = 3600, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 1, .eligible = 0,    .start = 0,    .end = 3600, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .want = {
		{ .name = "p/x", .owed = 3600,  .delivered = 0,     .capped = 0,     .unallocated = 0 },
		{ .name = "p/y", .owed = 3600,  .delivered = 7200,  .capped = 3600,  .unallocated = 0 },
		{ .name = "p",   .owed = 7200,  .delivered = 7200,  .capped = 7200,  .unallocated = 0 },
	  },
	  .overall = 0.5, .occupancy = 0.5,  .unalloc_share = 0 },
	/* Window 0-5400: slots of 3600 and 1800 s (quota 7200 and 3600).
	 * 4 GPUs 0-5400: demand 14400 and 7200; owed 7200 + 3600 = 10800,
	 * delivered 21600, capped 10800. */
	{ .what = "a shorter last slot",                            .tree = "a 1\nb 1\n", .gpus = 4,
	  .t0 = 0, .t1 = 5400, .now = 5400, .njobs = 1, .nsegs = 1,
	  .jobs = {
		{ .node = 0, .gpus = 4, .min_runtime = 60,   .allocated = true,  .submit = 0,    .first_start = 0,    .end = 5400, .pending_since = NV,   .pending_until = NV,   .id = "", .why = NULL },
	  },
	  .segs = {
		{ .job = 0, .eligible = 0,    .start = 0,    .end = 5400, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .want = {
		{ .name = "a",   .owed = 10800, .delivered = 21600, .capped = 10800, .unallocated = 0 },
	  },
	  .overall = 1,   .occupancy = 1,    .unalloc_share = 0 },
};

static const struct sim_fig *fig_of(const struct sim_report *r,
				    const struct sim_tree *t, const char *name)
{
	uint32_t i = sim_tree_find(t, name);

	return i == SB_NONE ? NULL : &r->budgets[i];
}

START_TEST(test_owed_delivered)
{
	const struct mcase *c = &mcases[_i];
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];
	size_t k;

	ck_assert_msg(!sim_tree_parse("t", c->tree, &t, msg, sizeof(msg)), "%s",
		      msg);
	ck_assert_int_eq(sim_metrics(&t, c->jobs, c->njobs, c->segs, c->nsegs,
				     c->gpus, c->t0, c->t1, c->now, &r), 0);
	for (k = 0; k < 3 && c->want[k].name; k++) {
		const struct want_team *w = &c->want[k];
		const struct sim_fig *f = fig_of(&r, &t, w->name);

		ck_assert_msg(f, "%s: no budget %s", c->what, w->name);
		ck_assert_msg(f->owed == w->owed && f->delivered == w->delivered
			      && f->capped == w->capped &&
			      f->unallocated == w->unallocated,
			      "%s: %s want owed %g delivered %g capped %g "
			      "unallocated %g, got %g %g %g %g", c->what,
			      w->name, w->owed, w->delivered, w->capped,
			      w->unallocated, f->owed, f->delivered, f->capped,
			      f->unallocated);
	}
	ck_assert_msg(fabs(r.overall_ratio - c->overall) < 1e-12,
		      "%s: all teams want %g got %g", c->what, c->overall,
		      r.overall_ratio);
	ck_assert_msg(fabs(r.occupancy - c->occupancy) < 1e-12,
		      "%s: occupancy want %g got %g", c->what, c->occupancy,
		      r.occupancy);
	ck_assert_msg(fabs(r.unallocated_share - c->unalloc_share) < 1e-12,
		      "%s: unallocated share want %g got %g", c->what,
		      c->unalloc_share, r.unallocated_share);
	/* a team's figures are its budget's */
	for (k = 0; k < r.nteams; k++)
		ck_assert(!memcmp(&r.teams[k].fig, &r.budgets[r.teams[k].node],
				  sizeof(struct sim_fig)));
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* The first case's other figures: waits, preemptions, worst team, the
 * hourly series. */
START_TEST(test_report_rest)
{
	const struct mcase *c = &mcases[0];
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", c->tree, &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, c->jobs, c->njobs, c->segs, c->nsegs,
				     c->gpus, c->t0, c->t1, c->now, &r), 0);
	ck_assert_uint_eq(r.nhours, 2);
	ck_assert_uint_eq(r.nteams, 2);
	ck_assert(r.teams[0].ratio == 0.5 && r.teams[1].ratio == 1);
	ck_assert(r.hourly_owed[0] == 7200 && r.hourly_owed[1] == 7200);
	ck_assert(r.hourly_delivered[0] == 3600);
	ck_assert(r.hourly_quota[2] == 7200);	/* b, hour 0 */
	ck_assert(r.used == 21600 && r.delivered == 7200 &&
		  r.unallocated == 14400);
	ck_assert(r.owed == 14400 && r.capped == 7200);
	ck_assert_uint_eq(r.preemptions, 1);
	ck_assert(r.preempted_gpu_hours == 2);	/* 4 GPUs x 1800 s */
	ck_assert(r.lost_gpu_hours == 0);
	ck_assert_uint_eq(r.worst_team, 0);
	ck_assert_uint_eq(r.teams_ge95, 0);
	ck_assert_uint_eq(r.teams_owed, 1);	/* b is owed nothing */
	/* waits: job 0 1800 (other), job 1 0 (other), job 2 never started:
	 * 7200 - 3600 (debug: 1 GPU, min runtime 600) */
	ck_assert_uint_eq(r.all.n, 3);
	ck_assert_uint_eq(r.debug.n, 1);
	ck_assert_uint_eq(r.debug.never, 1);
	ck_assert(r.debug.p90 == 3600);
	ck_assert_uint_eq(r.other.n, 2);
	ck_assert(r.other.p50 == 0 && r.other.p90 == 1800);
	ck_assert(r.all.p99 == 3600 && r.all.mean == (1800 + 0 + 3600) / 3.0);
	ck_assert_uint_eq(r.large.n, 0);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/*
 * Cancelled runs and resubmissions (4 GPUs, window 0-3600, a and b of
 * quota 7200 each):
 *   job 0 (a, 2 GPUs): runs 0-1000, cancelled; resubmitted by its user,
 *     its next run eligible from the cancel (1000), runs 1300-2300;
 *   job 1 (a, 1 GPU): runs 0-600, cancelled, never again (none);
 *   job 2 (b, 1 GPU): runs 0-1800, cancelled, resubmitted and pending
 *     from the cancel to now (3600);
 *   job 3 (b, 1 GPU): runs 0-900, requeued to start over (restarted: lost
 *     but not cancelled), runs 900-2000.
 * Cancelled 3 runs, 2 x 1000 + 600 + 1800 = 4400 GPU-s lost; lost with job
 * 3's 900: 5300; resubmitted 2 (jobs 0 and 2).  a's demand: job 0 2 x
 * (1000 + 1300) = 4600, job 1 600: owed 5200; delivered 2 x 2000 + 600 =
 * 4600 = capped.  b: job 2 1800 + 1800 (the gap, pending), job 3 2000:
 * owed 5600, delivered 3800.
 */
START_TEST(test_cancelled)
{
	const struct sim_mjob jobs[4] = {
		{ 0, 2, 60, true, 0, 0, 2300, NV, NV, "", NULL },
		{ 0, 1, 60, true, 0, 0, 600, NV, NV, "", NULL },
		{ 1, 1, 60, true, 0, 0, 1800, 1800, NV, "", NULL },
		{ 1, 1, 60, true, 0, 0, 2000, NV, NV, "", NULL },
	};
	const struct sim_mseg segs[6] = {
		{ 0, 0, 0, 1000, true, true, true },
		{ 0, 1000, 1300, 2300, false, false, false },
		{ 1, 0, 0, 600, true, true, true },
		{ 2, 0, 0, 1800, true, true, true },
		{ 3, 0, 0, 900, true, true, false },
		{ 3, 900, 900, 2000, false, false, false },
	};
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", "a 1\nb 1\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 4, segs, 6, 4, 0, 3600, 3600,
				     &r), 0);
	ck_assert_uint_eq(r.preemptions, 4);
	ck_assert_uint_eq(r.cancelled, 3);
	ck_assert_double_eq_tol(r.cancelled_gpu_hours, 4400.0 / 3600, 1e-9);
	ck_assert_double_eq_tol(r.lost_gpu_hours, 5300.0 / 3600, 1e-9);
	/* every job allocated: the unallocated half is empty */
	ck_assert_uint_eq(r.preemptions_of[0], 4);
	ck_assert_uint_eq(r.preemptions_of[1], 0);
	ck_assert_double_eq_tol(r.lost_gpu_hours_of[0], 5300.0 / 3600, 1e-9);
	ck_assert(r.lost_gpu_hours_of[1] == 0);
	ck_assert_uint_eq(r.resubmissions, 2);
	ck_assert(r.teams[0].fig.owed == 5200 &&
		  r.teams[0].fig.delivered == 4600 &&
		  r.teams[0].fig.capped == 4600);
	ck_assert(r.teams[1].fig.owed == 5600 &&
		  r.teams[1].fig.delivered == 3800);
	/* lost per team (sb_figures): a 2 x 1000 + 600, b 1800 + 900; the
	 * teams add up to the report's total */
	ck_assert(r.teams[0].fig.lost == 2600 && r.teams[1].fig.lost == 2700);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* The most preemptions of one job, allocated and
 * unallocated apart, counting preempted runs that end in the window
 * [0, 3600): job 0 three, job 1 two (allocated: max 3); job 2 two in the
 * window and one ending at 3600, outside (unallocated: max 2). */
START_TEST(test_max_preempted)
{
	const struct sim_mjob jobs[3] = {
		{ 0, 1, 60, true, 0, 0, 500, NV, NV, "", NULL },
		{ 0, 1, 60, true, 0, 0, 400, NV, NV, "", NULL },
		{ 0, 1, 0, false, 0, 0, 3600, NV, NV, "", NULL },
	};
	const struct sim_mseg segs[9] = {
		{ 0, 0, 0, 100, true, false, false },
		{ 0, 100, 150, 200, true, false, false },
		{ 0, 200, 250, 300, true, false, false },
		{ 0, 300, 350, 500, false, false, false },
		{ 1, 0, 0, 100, true, false, false },
		{ 1, 100, 150, 400, true, false, false },
		{ 2, 0, 0, 100, true, true, false },
		{ 2, 100, 150, 200, true, true, false },
		{ 2, 200, 250, 3600, true, true, false },
	};
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", "a 1\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 3, segs, 9, 4, 0, 3600, 3600,
				     &r), 0);
	ck_assert_uint_eq(r.preemptions, 7);
	ck_assert_uint_eq(r.max_preempted[0], 3);
	ck_assert_uint_eq(r.max_preempted[1], 2);
	/* apart: allocated 3 + 2, unallocated 2 (the run ending at 3600 is
	 * outside); lost: only job 2's runs lose their work, 100 + 50 s of
	 * 1 GPU */
	ck_assert_uint_eq(r.preemptions_of[0], 5);
	ck_assert_uint_eq(r.preemptions_of[1], 2);
	ck_assert(r.lost_gpu_hours_of[0] == 0);
	ck_assert_double_eq_tol(r.lost_gpu_hours_of[1], 150.0 / 3600, 1e-9);
	ck_assert_double_eq_tol(r.lost_gpu_hours, 150.0 / 3600, 1e-9);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* Owed vs delivered over the lookback window (sb_fig_window), 8 GPUs,
 * a (1 share of 8: quota 1 GPU) and b (7).  a's 8-GPU job waits 3 hours
 * and runs the 4th: hour by hour owed 1 GPU-h x 4 = 14400 GPU-s, capped
 * 3600 (0.25); over one 4-hour window owed min(4, 32) = 4 GPU-h, and the
 * 8 delivered cover it: capped 14400 (1.0).  With 1-hour windows it is
 * the hourly figure. */
START_TEST(test_lookback_window)
{
	const struct sim_mjob jobs[1] = {
		{ 0, 8, 3600, true, 0, 3 * 3600, 4 * 3600, NV, NV, "", NULL },
	};
	const struct sim_mseg segs[1] = {
		{ 0, 0, 3 * 3600, 4 * 3600, false, false, false },
	};
	static const struct {
		int64_t lookback;
		double owed, capped, ratio;
	} rows[] = {
		{ 4 * 3600, 14400, 14400, 1.0 },
		{ 3600, 14400, 3600, 0.25 },
		{ 2 * 3600, 14400, 7200, 0.5 },	/* {0,1}: 0 of 2; {2,3}: 2 */
	};
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];
	size_t k;

	ck_assert(!sim_tree_parse("t", "a 1\nb 7\n", &t, msg, sizeof(msg)));
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		ck_assert_int_eq(sim_metrics_lookback(&t, jobs, 1, segs, 1, 8, 0,
						      4 * 3600, 4 * 3600,
						      rows[k].lookback, &r), 0);
		ck_assert_msg(r.teams[0].fig.owed == 14400 &&
			      r.teams[0].fig.capped == 3600,
			      "hourly owed %.0f capped %.0f",
			      r.teams[0].fig.owed, r.teams[0].fig.capped);
		ck_assert_msg(r.teams[0].w_owed == rows[k].owed &&
			      r.teams[0].w_capped == rows[k].capped &&
			      r.w_overall_ratio == rows[k].ratio &&
			      r.lookback == rows[k].lookback,
			      "window %lld s: owed %.0f capped %.0f ratio %.3f, "
			      "want %.0f %.0f %.3f", (long long)rows[k].lookback,
			      r.teams[0].w_owed, r.teams[0].w_capped,
			      r.w_overall_ratio, rows[k].owed, rows[k].capped,
			      rows[k].ratio);
		ck_assert_uint_eq(r.w_worst_team, 0);
		sim_report_free(&r);
	}
	sim_tree_free(&t);
}
END_TEST

/* Classes: debug <= 8 GPUs and 0 < min runtime <= 900; large >= 32. */
START_TEST(test_classes)
{
	const struct sim_mjob jobs[6] = {
		{ 0, 8, 900, true, 0, 10, 20, NV, NV, "", NULL },	/* debug */
		{ 0, 9, 900, true, 0, 20, 30, NV, NV, "", NULL },	/* other: 9 GPUs */
		{ 0, 8, 901, true, 0, 30, 40, NV, NV, "", NULL },	/* other: min runtime */
		{ 0, 1, 0, false, 0, 40, 50, NV, NV, "", NULL },	/* other: unallocated */
		{ 0, 32, 60, true, 0, 50, 60, NV, NV, "", NULL },	/* large */
		{ 0, 2, 60, true, 100, 150, 160, NV, NV, "", NULL }, /* outside */
	};
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", "a 1\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 6, NULL, 0, 64, 0, 100, 100, &r),
			 0);
	ck_assert_uint_eq(r.all.n, 5);
	ck_assert_uint_eq(r.debug.n, 1);
	ck_assert(r.debug.p50 == 10);
	ck_assert_uint_eq(r.large.n, 1);
	ck_assert(r.large.p50 == 50);
	ck_assert_uint_eq(r.other.n, 3);
	ck_assert(r.other.p50 == 30 && r.other.p99 == 40);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* Waits by contract: allocated and unallocated apart, each all, large
 * (>= 32 GPUs) and small (the rest, debug jobs included); a job never
 * started waits to the window's end and counts in "never". */
START_TEST(test_classes_by_contract)
{
	const struct sim_mjob jobs[7] = {
		{ 0, 8, 900, true, 0, 10, 20, NV, NV, "", NULL },	/* alloc small (debug) */
		{ 0, 9, 3600, true, 0, 20, 30, NV, NV, "", NULL },	/* alloc small */
		{ 0, 32, 60, true, 0, 50, 60, NV, NV, "", NULL },	/* alloc large */
		/* alloc large, never: 90 */
		{ 0, 64, 60, true, 10, NV, NV, NV, NV, "", NULL },
		{ 0, 1, 0, false, 0, 40, 50, NV, NV, "", NULL },	/* unalloc small */
		/* unalloc large, never: 80 */
		{ 0, 32, 0, false, 20, NV, NV, NV, NV, "", NULL },
		{ 0, 2, 0, false, 100, 150, 160, NV, NV, "", NULL }, /* outside */
	};
	static const struct {
		int contract, cls;
		size_t n, never;
		double p50, p99;
	} want[] = {
		{ 0, 0, 4, 1, 20, 90 },	/* allocated: 10, 20, 50, 90 */
		{ 0, 1, 2, 1, 50, 90 },
		{ 0, 2, 2, 0, 10, 20 },
		{ 1, 0, 2, 1, 40, 80 },	/* unallocated: 40, 80 */
		{ 1, 1, 1, 1, 80, 80 },
		{ 1, 2, 1, 0, 40, 40 },
	};
	struct sim_tree t;
	struct sim_report r;
	char msg[SIM_MSG];
	size_t i;

	ck_assert(!sim_tree_parse("t", "a 1\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 7, NULL, 0, 128, 0, 100, 100,
				     &r), 0);
	ck_assert_uint_eq(r.all.n, 6);
	ck_assert_uint_eq(r.all.never, 2);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct sim_wait *w =
			&r.by_contract[want[i].contract][want[i].cls];

		ck_assert_msg(w->n == want[i].n && w->never == want[i].never &&
			      w->p50 == want[i].p50 && w->p99 == want[i].p99,
			      "row %zu: n %zu never %zu p50 %g p99 %g", i, w->n,
			      w->never, w->p50, w->p99);
	}
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim-metrics");
	TCase *tc = tcase_create("metrics");

	tcase_add_loop_test(tc, test_percentile, 0,
			    sizeof(pcts) / sizeof(pcts[0]));
	tcase_add_loop_test(tc, test_owed_delivered, 0,
			    sizeof(mcases) / sizeof(mcases[0]));
	tcase_add_test(tc, test_report_rest);
	tcase_add_test(tc, test_cancelled);
	tcase_add_test(tc, test_max_preempted);
	tcase_add_test(tc, test_lookback_window);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_classes_by_contract);
	sim_metrics_report_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
