/*
 * sim-metrics-test.c - percentiles, wait classes, owed vs delivered hour by
 * hour (sb_figures()' definition: allocated demand from eligibility,
 * allocated runs delivered, unallocated runs apart), occupancy,
 * unallocated share, preempted/lost GPU-hours and the JSON's fixed form,
 * on scenarios worked out by hand.
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "check_main.h"
#include "sim.h"

#define H 3600

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

#define NV SIM_NEVER

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

#define JSON_HEAD "{\"window\":{\"from_s\":0,\"to_s\":100,\"now_s\":100}," \
	"\"gpus\":3,\"wait\":"

/* The JSON: fixed key order, fixed precision, no "-0", byte-identical. */
START_TEST(test_json_fixed)
{
	const struct sim_mjob jobs[1] = {
		{ 0, 1, 60, true, 0, 0, 100, NV, NV, "", NULL }
	};
	const struct sim_mseg segs[1] = { { 0, 0, 0, 100, false, false, false } };
	struct sim_tree t;
	struct sim_report r;
	struct json_object *a, *b, *d;
	char *sa, msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", "a 1\nb 2\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 1, segs, 1, 3, 0, 100, 100, &r),
			 0);
	a = sim_report_json(&r);
	b = sim_report_json(&r);
	sa = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	ck_assert_str_eq(sa, json_object_to_json_string_ext(
				     b, JSON_C_TO_STRING_PLAIN));
	ck_assert_msg(!strncmp(sa, JSON_HEAD, strlen(JSON_HEAD)), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"entitled\":0.333333,"), "got %s", sa);
	/* the waits by contract follow "wait", allocated first */
	ck_assert_msg(strstr(sa, "}},\"wait_allocated\":{\"all\":{\"jobs\":1,"),
		      "got %s", sa);
	ck_assert_msg(strstr(sa, "\"wait_unallocated\":{\"all\":{\"jobs\":0,"),
		      "got %s", sa);
	/* the debug p90 of the worst team after them, per team beside its
	 * jobs */
	ck_assert_msg(strstr(sa, "}},\"debug_wait_p90_worst_team\":\"a\","
			     "\"debug_wait_p90_worst_team_s\":0.0,"
			     "\"occupancy\":"), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"jobs\":1,\"debug_jobs\":1,"
			     "\"debug_wait_p90_s\":0.0,"), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"occupancy\":0.333333,"), "got %s", sa);
	/* 1 GPU asked for over 100 s, of 3: all of the usable was used */
	ck_assert_msg(strstr(sa, "\"usable_gpu_hours\":0.028,"
			     "\"occupancy_of_demand\":1.000000,"), "got %s", sa);
	/* owed = min(quota 1/3 x 3 x 100, demand 100) = 100 GPU-s */
	ck_assert_msg(strstr(sa, "{\"path\":\"a\",\"entitled\":0.333333,"
			     "\"quota_gpu_s\":100.000,\"demand_gpu_s\":100.000,"
			     "\"owed_gpu_s\":100.000,\"delivered_gpu_s\":"
			     "100.000,\"capped_gpu_s\":100.000,"
			     "\"unallocated_gpu_s\":0.000,\"lost_gpu_s\":0.000}"),
		      "got %s", sa);
	free(sa);
	d = sim_json_double(-0.0, 3);
	ck_assert_str_eq(json_object_to_json_string(d), "0.000");
	json_object_put(d);
	d = sim_json_double(-1e-9, 3);
	ck_assert_str_eq(json_object_to_json_string(d), "0.000");
	json_object_put(d);
	json_object_put(a);
	json_object_put(b);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* The report's size: hours of the window x (budgets + 1) hourly figures,
 * at most SIM_METRICS_MAX_FIGURES (16777216, about 940 MB of them); more is
 * refused naming the window, its hours and the budgets (a segment ending
 * at t=99999999999 took 6 GB before, one at 2^40 "out of memory"). */
struct size_case {
	uint32_t budgets;
	int64_t t0, t1;
	int rc;
	const char *msg;
};

static const struct size_case sizes[] = {
	{ .budgets = 5,    .t0 = 0,   .t1 = 1,                        .rc = 0,
	  .msg = NULL },
	{ .budgets = 5,    .t0 = 0,   .t1 = 365 * 24 * H,             .rc = 0,
	  .msg = NULL },
	{ .budgets = 1000, .t0 = 0,   .t1 = 16760 * (int64_t)H,       .rc = 0,
	  .msg = NULL }, /* 16760 x 1001 */
	{ .budgets = 1000, .t0 = 0,   .t1 = 16761 * (int64_t)H,       .rc = -1,
	  .msg = "16761 hours x 1001 = 16777761 hourly figures, more than 16777216" },
	{ .budgets = 5,    .t0 = 0,   .t1 = 2796202 * (int64_t)H,     .rc = 0,
	  .msg = NULL }, /* 2796202 x 6 */
	{ .budgets = 5,    .t0 = 0,   .t1 = 2796202 * (int64_t)H + 1, .rc = -1,
	  .msg = "the window [0, 10066327201) s is 2796203 hours" },
	{ .budgets = 5,    .t0 = 0,   .t1 = INT64_C(99999999999),     .rc = -1,
	  .msg = "27777778 hours x 6 = 166666668 hourly figures" },
	{ .budgets = 5,    .t0 = 500, .t1 = INT64_C(1099511627776),   .rc = -1,
	  .msg = "give --window A:B of at most 2796202 hours" },
};

START_TEST(test_window_size)
{
	const struct size_case *c = &sizes[_i];
	char msg[SIM_MSG] = "";
	int rc = sim_metrics_check_window(c->budgets, c->t0, c->t1, msg,
					  sizeof(msg));

	ck_assert_msg(rc == c->rc, "%u budgets [%lld, %lld): rc %d, expected "
		      "%d (%s)", c->budgets, (long long)c->t0,
		      (long long)c->t1, rc, c->rc, msg);
	if (c->msg)
		ck_assert_msg(strstr(msg, c->msg), "message \"%s\", expected "
			      "\"%s\"", msg, c->msg);
}
END_TEST

/* Runs holding more GPUs at once than the cluster has (--gpus) are refused
 * (occupancy was 1258% with --gpus 1); ends come before starts at the same
 * second. */
struct cap_case {
	const char *what;
	uint32_t gpus[3];	/* of jobs 0..2 */
	struct sim_mseg segs[3];
	size_t nsegs;
	uint64_t cluster;
	int rc;
	const char *msg;
};

static const struct cap_case caps[] = {
	{ .what = "one run fits",    .gpus = { 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 1, .cluster = 8, .rc = 0,  .msg = NULL },
	{ .what = "one run too big", .gpus = { 9 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 5,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 1, .cluster = 8, .rc = -1, .msg = "at t=5 s the runs hold 9 GPUs at once, more than --gpus 8" },
	{ .what = "back to back",    .gpus = { 8, 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 10, .end = 20, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 2, .cluster = 8, .rc = 0,  .msg = NULL },
	{ .what = "overlap",         .gpus = { 4, 5, 2 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 9,  .end = 20, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 2, .eligible = 0, .start = 9,  .end = 9,  .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 3, .cluster = 8, .rc = -1, .msg = "at t=9 s the runs hold 9 GPUs" },
	{ .what = "empty run at the edge", .gpus = { 8, 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 10, .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 2, .cluster = 8, .rc = 0,  .msg = NULL },
};

START_TEST(test_capacity)
{
	const struct cap_case *c = &caps[_i];
	struct sim_mjob jobs[3];
	char msg[SIM_MSG] = "";
	size_t k;
	int rc;

	for (k = 0; k < 3; k++)
		jobs[k] = (struct sim_mjob){ .gpus = c->gpus[k] };
	rc = sim_metrics_check_capacity(jobs, 3, c->segs, c->nsegs,
					c->cluster, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d (%s)", c->what, rc,
		      c->rc, msg);
	if (c->msg)
		ck_assert_msg(strstr(msg, c->msg), "%s: message \"%s\", "
			      "expected \"%s\"", c->what, msg, c->msg);
}
END_TEST

/* ------------------------------------------------------------ verdict */

/* Teams against the target: each row's teams (owed, capped GPU-seconds;
 * owed 0 = owed nothing), what sim_verdict() must count and the line. */
struct vteam_case {
	const char *what;
	uint32_t nteams;
	double owed[3], capped[3];
	uint32_t owed_n, met;
	bool honoured;
	const char *line;
};

static const struct vteam_case vteams[] = {
	{ .what = "no teams", .nteams = 0, .honoured = true,
	  .line = "budgets honoured: yes \u2014 no team was owed anything" },
	{ .what = "exactly the target (19 of 20)", .nteams = 1,
	  .owed = { 20 }, .capped = { 19 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "exactly the target (95 of 100)", .nteams = 1,
	  .owed = { 100 }, .capped = { 95 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "just below (949999 of 1e6)", .nteams = 1,
	  .owed = { 1e6 }, .capped = { 949999 }, .owed_n = 1, .met = 0,
	  .honoured = false, .line = "budgets honoured: no \u2014 0 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "a team owed nothing is not judged", .nteams = 2,
	  .owed = { 0, 50 }, .capped = { 0, 50 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t1 100.0%" },
	{ .what = "only teams owed nothing", .nteams = 2,
	  .owed = { 0, 0 }, .capped = { 0, 0 }, .honoured = true,
	  .line = "budgets honoured: yes \u2014 no team was owed anything" },
	{ .what = "the worst of three, one missed", .nteams = 3,
	  .owed = { 100, 100, 100 }, .capped = { 97, 60, 99 }, .owed_n = 3,
	  .met = 2, .honoured = false, .line = "budgets honoured: no \u2014 2 "
	  "of 3 teams got >= 95% of owed; worst t1 60.0%" },
};

static const char *const vnames[] = { "t0", "t1", "t2" };

/* A report by hand: teams only (t0 = 0, t1 = @t1). */
static void vreport(struct sim_report *rep, struct sim_team_report *teams,
		    uint32_t n, const double *owed, const double *capped,
		    int64_t t1)
{
	uint32_t k;

	memset(rep, 0, sizeof(*rep));
	rep->t1 = t1;
	rep->teams = teams;
	rep->nteams = n;
	for (k = 0; k < n; k++) {
		memset(&teams[k], 0, sizeof(teams[k]));
		teams[k].name = vnames[k];
		teams[k].node = k;
		teams[k].fig.owed = owed ? owed[k] : 0;
		teams[k].fig.capped = capped ? capped[k] : 0;
	}
}

START_TEST(test_verdict_teams)
{
	const struct vteam_case *c = &vteams[_i];
	struct sim_team_report teams[3];
	struct sim_report rep;
	char line[256];

	vreport(&rep, teams, c->nteams, c->owed, c->capped, 1);
	ck_assert_int_eq(sim_verdict(NULL, 0, &rep), 0);
	ck_assert_msg(rep.verdict.teams_owed == c->owed_n &&
		      rep.verdict.teams_met == c->met &&
		      rep.verdict.honoured == c->honoured,
		      "%s: want owed %u met %u honoured %d, got %u %u %d",
		      c->what, c->owed_n, c->met, c->honoured,
		      rep.verdict.teams_owed, rep.verdict.teams_met,
		      rep.verdict.honoured);
	sim_verdict_line(&rep, line, sizeof(line));
	ck_assert_msg(!strcmp(line, c->line), "%s: want \"%s\" got \"%s\"",
		      c->what, c->line, line);
	sim_verdict_free(&rep.verdict);
}
END_TEST

/* The jobs named: in a window [0, 100000) of teams t0, t1; each row's
 * jobs (submit, first start or NV, allocated), the counts, how many are
 * named and left over, and the first named job's id. */
struct vjob_case {
	const char *what;
	size_t njobs;
	struct { int64_t submit, start; bool alloc; } j[14];
	size_t never, never_alloc, waited_long, named, more;
	const char *first;
};

#define LW SIM_LONG_WAIT

static const struct vjob_case vjobs[] = {
	{ .what = "none", .njobs = 0 },
	{ .what = "a wait of exactly the threshold is not long", .njobs = 2,
	  .j = { { 0, LW, true }, { 10, 10 + LW + 1, true } },
	  .waited_long = 1, .named = 1, .first = "2" },
	{ .what = "never started before waited long, allocated first",
	  .njobs = 3, .j = { { 0, LW + 5, true }, { 50, NV, false },
			     { 90, NV, true } },
	  .never = 2, .never_alloc = 1, .waited_long = 1, .named = 3,
	  .first = "3" },
	{ .what = "submitted outside the window: not judged", .njobs = 2,
	  .j = { { -5, NV, true }, { 100000, NV, true } } },
	{ .what = "capped at SIM_VERDICT_MAX_JOBS, the longest wait first",
	  .njobs = 12, .j = { { 1, NV, true }, { 2, NV, true }, { 3, NV, true },
			      { 4, NV, true }, { 5, NV, true }, { 6, NV, true },
			      { 7, NV, true }, { 8, NV, true }, { 9, NV, true },
			      { 10, NV, true }, { 11, NV, true },
			      { 0, NV, true } },
	  .never = 12, .never_alloc = 12, .named = SIM_VERDICT_MAX_JOBS,
	  .more = 2, .first = "12" },
};

START_TEST(test_verdict_jobs)
{
	const struct vjob_case *c = &vjobs[_i];
	const double owed[2] = { 100, 100 }, capped[2] = { 100, 90 };
	struct sim_team_report teams[3];
	struct sim_mjob jobs[14];
	struct sim_report rep;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	vreport(&rep, teams, 2, owed, capped, 100000);
	for (i = 0; i < c->njobs; i++) {
		jobs[i] = (struct sim_mjob){
			.node = (uint32_t)(i % 2), .gpus = 8,
			.allocated = c->j[i].alloc, .submit = c->j[i].submit,
			.first_start = c->j[i].start, .end = NV,
			.pending_since = NV, .pending_until = NV,
			.why = c->j[i].start == NV ? "Priority: needs 8" : NULL,
		};
		snprintf(jobs[i].id, sizeof(jobs[i].id), "%zu", i + 1);
	}
	ck_assert_int_eq(sim_verdict(jobs, c->njobs, &rep), 0);
	ck_assert_msg(rep.verdict.never == c->never &&
		      rep.verdict.never_allocated == c->never_alloc &&
		      rep.verdict.waited_long == c->waited_long &&
		      rep.verdict.njobs == c->named &&
		      rep.verdict.more == c->more,
		      "%s: want never %zu (%zu allocated) long %zu named %zu "
		      "more %zu, got %zu (%zu) %zu %zu %zu", c->what, c->never,
		      c->never_alloc, c->waited_long, c->named, c->more,
		      rep.verdict.never, rep.verdict.never_allocated,
		      rep.verdict.waited_long, rep.verdict.njobs,
		      rep.verdict.more);
	if (c->first)
		ck_assert_msg(!strcmp(rep.verdict.jobs[0].id, c->first),
			      "%s: first named: want job %s got %s", c->what,
			      c->first, rep.verdict.jobs[0].id);
	/* the text: a mark per team, the jobs with their reason, the cap */
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	sim_verdict_text(&rep, f);
	fclose(f);
	ck_assert_msg(strstr(text, "  t0 ") && strstr(text, "100.0%  met\n") &&
		      strstr(text, " 90.0%  MISSED\n") &&
		      strstr(text, "budgets honoured: no \u2014 1 of 2 teams"),
		      "%s: teams' lines wrong:\n%s", c->what, text);
	if (c->never)
		ck_assert_msg(strstr(text, "never started, waited") &&
			      strstr(text, ": Priority: needs 8\n"),
			      "%s: no reason named:\n%s", c->what, text);
	ck_assert_msg(!c->more == !strstr(text, "  and 2 more\n"),
		      "%s: \"and N more\" wrong:\n%s", c->what, text);
	free(text);
	sim_verdict_free(&rep.verdict);
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
	tcase_add_test(tc, test_json_fixed);
	tcase_add_loop_test(tc, test_capacity, 0,
			    sizeof(caps) / sizeof(caps[0]));
	tcase_add_loop_test(tc, test_window_size, 0,
			    sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_loop_test(tc, test_verdict_teams, 0,
			    sizeof(vteams) / sizeof(vteams[0]));
	tcase_add_loop_test(tc, test_verdict_jobs, 0,
			    sizeof(vjobs) / sizeof(vjobs[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
