/*
 * sim-metrics-test.c - percentiles, wait classes, owed vs delivered hour by
 * hour, occupancy, unallocated share, preempted/lost GPU-hours and the
 * JSON's fixed form, on scenarios worked out by hand.
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "sim.h"

#define H 3600

struct pct_case {
	double v[8];
	size_t n;
	double p, want;
};

/* Nearest rank: the ceil(p/100 * n)-th smallest. */
static const struct pct_case pcts[] = {
	{ { 0 }, 0, 50, 0 },
	{ { 7 }, 1, 99, 7 },
	{ { 3, 1, 2 }, 3, 50, 2 },	/* ceil(1.5) = 2nd */
	{ { 4, 3, 2, 1 }, 4, 50, 2 },	/* ceil(2) = 2nd */
	{ { 4, 3, 2, 1 }, 4, 90, 4 },	/* ceil(3.6) = 4th */
	{ { 10, 20, 30, 40, 50, 60, 70, 80 }, 8, 90, 80 },
	{ { 10, 20, 30, 40, 50, 60, 70, 80 }, 8, 25, 20 },
	{ { 5, 5, 5, 1 }, 4, 1, 1 },	/* ceil(0.04) = 1st */
};

START_TEST(test_percentile)
{
	struct pct_case c = pcts[_i];
	double got = sim_percentile(c.v, c.n, c.p);

	ck_assert_msg(got == c.want, "p%g of case %d: want %g got %g", c.p, _i,
		      c.want, got);
}
END_TEST

/*
 * One team "a" with half of a 4-GPU cluster (quota 2 GPUs), window two
 * hours.  Job 0: 2 GPUs, submitted 0, runs 1800-5400.
 *   hour 0: quota 7200, demand 2 x 3600 = 7200, owed 7200; delivered
 *           2 x 1800 = 3600
 *   hour 1: quota 7200, demand 2 x 1800 = 3600 plus job 2's 1 x 3600
 *           (below) = 7200, owed 7200; delivered 3600
 *   owed 14400, delivered 7200, capped 3600 + 3600 = 7200: ratio 1/2.
 * Team "b" (the other half): job 1, 4 GPUs, unallocated, submitted 0, runs
 * 0-1800 then is preempted (work kept), runs again 5400-7200.
 *   hour 0: quota 7200, demand 4 x 3600 = 14400 -> owed 7200; delivered
 *           4 x 1800 = 7200
 *   hour 1: owed 7200 (demand 14400); delivered 4 x 1800 = 7200
 *   owed 14400, delivered 14400, ratio 1.  Then the surplus check: b's
 *   hour 1 delivered stays capped at owed.
 * Job 2 (team a, 1 GPU, min runtime 600: debug) submitted 3600, never
 * starts: it waits to t1 = 7200, 3600 s.
 * Occupancy: (7200 + 14400) / (4 x 7200) = 0.75.  Unallocated share:
 * 14400 / 21600 = 2/3.  Preempted: one run, 4 x 1800 s = 2 GPU-h, none
 * lost.  Waits: job 0 1800 (other: min runtime 3600), job 1 0 (other),
 * job 2 3600 (debug, never started).
 */
START_TEST(test_owed_delivered)
{
	static const char *const names[2] = { "a", "b" };
	static const double ent[2] = { 0.5, 0.5 };
	const struct sim_mjob jobs[3] = {
		{ 0, 2, 3600, 0, 1800, 5400 },
		{ 1, 4, 0, 0, 0, 7200 },
		{ 0, 1, 600, 3600, SIM_NEVER, SIM_NEVER },
	};
	const struct sim_mseg segs[3] = {
		{ 0, 1800, 5400, false, false },
		{ 1, 0, 1800, true, false },
		{ 1, 5400, 7200, false, false },
	};
	const bool un[3] = { false, true, true };
	struct sim_report r;

	ck_assert_int_eq(sim_metrics(jobs, 3, segs, 3, un, names, ent, 2, 4, 0,
				     7200, &r), 0);
	ck_assert_uint_eq(r.nhours, 2);
	ck_assert(r.teams[0].owed == 14400);
	ck_assert(r.teams[0].delivered == 7200);
	ck_assert(r.teams[0].delivered_capped == 7200);
	ck_assert(r.teams[0].ratio == 0.5);
	ck_assert(r.teams[1].owed == 14400);
	ck_assert(r.teams[1].delivered == 14400);
	ck_assert(r.teams[1].ratio == 1);
	ck_assert(r.hourly_owed[0] == 7200 && r.hourly_owed[1] == 7200);
	ck_assert(r.hourly_delivered[0] == 3600);
	ck_assert(fabs(r.occupancy - 0.75) < 1e-12);
	ck_assert(fabs(r.unallocated_share - 2.0 / 3) < 1e-12);
	ck_assert_uint_eq(r.preemptions, 1);
	ck_assert(r.preempted_gpu_hours == 2);
	ck_assert(r.lost_gpu_hours == 0);
	ck_assert_uint_eq(r.worst_team, 0);
	ck_assert_uint_eq(r.teams_ge95, 1);
	ck_assert_uint_eq(r.teams_owed, 2);
	/* (7200 + 14400) / (14400 + 14400) */
	ck_assert(r.overall_ratio == 0.75);
	ck_assert_uint_eq(r.all.n, 3);
	ck_assert_uint_eq(r.debug.n, 1);
	ck_assert_uint_eq(r.debug.never, 1);
	ck_assert(r.debug.p90 == 3600);
	ck_assert_uint_eq(r.other.n, 2);
	ck_assert(r.other.p50 == 0 && r.other.p90 == 1800);
	ck_assert(r.all.p99 == 3600 && r.all.mean == (1800 + 0 + 3600) / 3.0);
	ck_assert_uint_eq(r.large.n, 0);
	sim_report_free(&r);
}
END_TEST

/*
 * A surplus in one hour does not pay for a shortfall in another: quota 2
 * GPUs of 4, demand 4 GPUs in both hours (owed 7200 each); delivered 4
 * GPUs in hour 0 (14400) and none in hour 1.  Capped: 7200 + 0, ratio 1/2
 * although delivered (14400) equals owed (14400).
 */
START_TEST(test_capped_hourly)
{
	static const char *const names[1] = { "a" };
	static const double ent[1] = { 0.5 };
	const struct sim_mjob jobs[1] = { { 0, 4, 60, 0, 0, 7200 } };
	const struct sim_mseg segs[1] = { { 0, 0, 3600, true, true } };
	struct sim_report r;

	ck_assert_int_eq(sim_metrics(jobs, 1, segs, 1, NULL, names, ent, 1, 4, 0,
				     7200, &r), 0);
	ck_assert(r.teams[0].owed == 14400);
	ck_assert(r.teams[0].delivered == 14400);
	ck_assert(r.teams[0].ratio == 0.5);
	ck_assert(r.lost_gpu_hours == 4);
	ck_assert(r.unallocated_share == 0);
	sim_report_free(&r);
}
END_TEST

/* Classes: debug <= 8 GPUs and 0 < min runtime <= 900; large >= 32. */
START_TEST(test_classes)
{
	static const char *const names[1] = { "a" };
	static const double ent[1] = { 1 };
	const struct sim_mjob jobs[6] = {
		{ 0, 8, 900, 0, 10, 20 },	/* debug */
		{ 0, 9, 900, 0, 20, 30 },	/* other: 9 GPUs */
		{ 0, 8, 901, 0, 30, 40 },	/* other: min runtime */
		{ 0, 1, 0, 0, 40, 50 },		/* other: unallocated */
		{ 0, 32, 60, 0, 50, 60 },	/* large */
		{ 0, 2, 60, 100, 150, 160 },	/* outside the window */
	};
	struct sim_report r;

	ck_assert_int_eq(sim_metrics(jobs, 6, NULL, 0, NULL, names, ent, 1, 64,
				     0, 100, &r), 0);
	ck_assert_uint_eq(r.all.n, 5);
	ck_assert_uint_eq(r.debug.n, 1);
	ck_assert(r.debug.p50 == 10);
	ck_assert_uint_eq(r.large.n, 1);
	ck_assert(r.large.p50 == 50);
	ck_assert_uint_eq(r.other.n, 3);
	ck_assert(r.other.p50 == 30 && r.other.p99 == 40);
	sim_report_free(&r);
}
END_TEST

/* The JSON: fixed key order, fixed precision, no "-0", byte-identical. */
START_TEST(test_json_fixed)
{
	static const char *const names[1] = { "a" };
	static const double ent[1] = { 1.0 / 3 };
	const struct sim_mjob jobs[1] = { { 0, 1, 60, 0, 0, 100 } };
	const struct sim_mseg segs[1] = { { 0, 0, 100, false, false } };
	struct sim_report r;
	struct json_object *a, *b, *d;
	char *sa;

	ck_assert_int_eq(sim_metrics(jobs, 1, segs, 1, NULL, names, ent, 1, 3, 0,
				     100, &r), 0);
	a = sim_report_json(&r);
	b = sim_report_json(&r);
	sa = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	ck_assert_str_eq(sa, json_object_to_json_string_ext(
				     b, JSON_C_TO_STRING_PLAIN));
	ck_assert_msg(!strncmp(sa, "{\"window\":{\"from_s\":0,\"to_s\":100},"
			       "\"gpus\":3,\"wait\":", 44), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"entitled\":0.333333,"), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"occupancy\":0.333333,"), "got %s", sa);
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
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim-metrics");
	TCase *tc = tcase_create("metrics");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_percentile, 0,
			    sizeof(pcts) / sizeof(pcts[0]));
	tcase_add_test(tc, test_owed_delivered);
	tcase_add_test(tc, test_capped_hourly);
	tcase_add_test(tc, test_classes);
	tcase_add_test(tc, test_json_fixed);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
