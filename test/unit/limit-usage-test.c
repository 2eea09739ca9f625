/*
 * limit-usage-test.c - the arithmetic priority/budget uses to keep Slurm's
 * time-limit counters (sb/limit_usage.h): per tick and at the end, the
 * run-seconds released (bounded by the time limit, the expected end, the
 * rest at the end), the restart correction, UsageFactor scaling, decay.
 * Each row states the case; failures print expected and actual values.
 */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check_main.h"
#include "sb/error.h"
#include "sb/limit_usage.h"

/* A 10-minute run started at 1000 (time limit ends at 1600). */
#define START 1000

struct delta_case {
	const char *what;
	struct sb_run run;
	time_t from, to;
	bool at_end;
	double want_run;
	uint64_t want_release;
};

static const struct delta_case delta_cases[] = {
	{ .what = "tick inside the run releases what ran",
	  .run = { .start = START, .limit_min = 10 },
	  .from = 1100, .to = 1160, .want_run = 60, .want_release = 60 },
	{ .what = "a run started after the last tick counts from its start",
	  .run = { .start = START, .limit_min = 10 },
	  .from = 900, .to = 1030, .want_run = 30, .want_release = 30 },
	{ .what = "past the time limit nothing is left to release",
	  .run = { .start = START, .limit_min = 10 },
	  .from = 1600, .to = 1700, .want_run = 100, .want_release = 0 },
	{ .what = "past the expected end only up to it",
	  .run = { .start = START, .limit_min = 10, .end_exp = 1600 },
	  .from = 1550, .to = 1650, .want_run = 100, .want_release = 50 },
	{ .what = "ended early: the whole rest of the limit",
	  .run = { .start = START, .limit_min = 10, .end = 1130, .ended = true },
	  .from = 1100, .to = 1140, .at_end = true,
	  .want_run = 30, .want_release = 500 },
	{ .what = "ended before the last tick ran: nothing run, rest released",
	  .run = { .start = START, .limit_min = 10, .end = 1090, .ended = true },
	  .from = 1100, .to = 1140, .at_end = true,
	  .want_run = 0, .want_release = 500 },
	{ .what = "ended between start and first tick: the whole limit",
	  .run = { .start = START, .limit_min = 10, .end = 1020, .ended = true },
	  .from = 0, .to = 1025, .at_end = true,
	  .want_run = 20, .want_release = 600 },
	{ .what = "ended past its limit: nothing left",
	  .run = { .start = START, .limit_min = 10, .end = 1700, .ended = true },
	  .from = 1650, .to = 1700, .at_end = true,
	  .want_run = 50, .want_release = 0 },
	{ .what = "the tick does not stop at an old end time",
	  .run = { .start = START, .limit_min = 10, .end = 1050 },
	  .from = 1100, .to = 1160, .want_run = 60, .want_release = 60 },
	{ .what = "a clock step back runs nothing",
	  .run = { .start = START, .limit_min = 10 },
	  .from = 1200, .to = 1100, .want_run = 0, .want_release = 0 },
};

START_TEST(test_delta)
{
	const struct delta_case *c = &delta_cases[_i];
	struct sb_run_delta d;

	ck_assert_int_eq(sb_limit_run_delta(&c->run, c->from, c->to,
					    c->at_end, &d), SB_OK);
	ck_assert_msg(fabs(d.run - c->want_run) < 1e-9,
		      "%s: run %g s, want %g", c->what, d.run, c->want_run);
	ck_assert_msg(d.release == c->want_release,
		      "%s: release %ju s, want %ju", c->what,
		      (uintmax_t)d.release, (uintmax_t)c->want_release);
}
END_TEST

/* A run's releases over its life add up to its time limit: ticks every
 * 7 s from the start, then the end (no more, no less, wherever it ends). */
START_TEST(test_delta_sums_to_limit)
{
	time_t end;

	for (end = START + 1; end <= START + 700; end += 13) {
		struct sb_run run = { .start = START, .limit_min = 10 };
		struct sb_run_delta d;
		uint64_t sum = 0;
		time_t t = START - 3, next;

		for (next = t + 7; next < end; t = next, next += 7) {
			ck_assert_int_eq(sb_limit_run_delta(&run, t, next,
							    false, &d), SB_OK);
			sum += d.release;
		}
		run.end = end;
		run.ended = true;
		ck_assert_int_eq(sb_limit_run_delta(&run, t, end + 2, true, &d),
				 SB_OK);
		sum += d.release;
		ck_assert_msg(sum == 600, "ended at +%ld: released %ju, want 600",
			      (long)(end - START), (uintmax_t)sum);
	}
}
END_TEST

struct restart_case {
	const char *what;
	time_t start, last_tick;
	uint32_t limit_min;
	uint64_t want;
};

static const struct restart_case restart_cases[] = {
	{ .what = "released up to the last tick",         .start = START, .last_tick = 1300,
	  .limit_min = 10, .want = 300 },
	{ .what = "started after the last tick: nothing", .start = START, .last_tick = 900,
	  .limit_min = 10, .want = 0 },
	{ .what = "never ticked: nothing (the first tick does it)", .start = START, .last_tick = 0,
	  .limit_min = 10, .want = 0 },
	{ .what = "bounded by the time limit",            .start = START, .last_tick = 2000,
	  .limit_min = 10, .want = 600 },
	{ .what = "started exactly at the last tick",     .start = START, .last_tick = START,
	  .limit_min = 10, .want = 0 },
};

START_TEST(test_restart)
{
	const struct restart_case *c = &restart_cases[_i];
	uint64_t got = sb_limit_restart_used(c->start, c->limit_min,
					     c->last_tick);

	ck_assert_msg(got == c->want, "%s: %ju, want %ju", c->what,
		      (uintmax_t)got, (uintmax_t)c->want);
}
END_TEST

struct scale_case {
	uint64_t seconds;
	double factor;
	uint64_t want;
};

static const struct scale_case scale_cases[] = {
	{ .seconds = 600, .factor = 2.0, .want = 1200 },                  /* UsageFactor=2 doubles */
	{ .seconds = 600, .factor = 0.5, .want = 300 },
	{ .seconds = 7,   .factor = 0.5, .want = 3 },                     /* rounded down, as Slurm's integer cast */
	{ .seconds = 600, .factor = 0,   .want = 0 },                     /* UsageFactor=0: free */
	{ .seconds = 600, .factor = -1,  .want = 600 },                   /* not set: 1 */
	{ .seconds = UINT64_MAX / 2, .factor = 4.0, .want = UINT64_MAX }, /* saturates */
};

START_TEST(test_scale)
{
	const struct scale_case *c = &scale_cases[_i];
	uint64_t got = sb_limit_scale(c->seconds, c->factor);

	ck_assert_msg(got == c->want, "%ju x %g = %ju, want %ju",
		      (uintmax_t)c->seconds, c->factor, (uintmax_t)got,
		      (uintmax_t)c->want);
}
END_TEST

START_TEST(test_decay)
{
	double d = sb_limit_decay_factor(3600);

	/* one half-life halves (to the first-order form's accuracy) */
	ck_assert_msg(fabs(sb_limit_decay(d, 3600) - 0.5) < 1e-3,
		      "H=3600: after H %g, want ~0.5", sb_limit_decay(d, 3600));
	ck_assert_msg(fabs(d - (1 - 0.693 / 3600)) < 1e-15, "factor %g", d);
	/* no half-life: no decay */
	ck_assert_msg(sb_limit_decay_factor(0) == 1, "H=0: %g",
		      sb_limit_decay_factor(0));
	ck_assert_msg(sb_limit_decay_factor(-5) == 1, "H<0");
	ck_assert_msg(sb_limit_decay(sb_limit_decay_factor(0), 1e6) == 1,
		      "no decay over 1e6 s");
	/* tiny half-life: factor clamped at 0, decay floored at DBL_MIN */
	ck_assert_msg(sb_limit_decay_factor(0.5) == 0, "H=0.5: %g",
		      sb_limit_decay_factor(0.5));
	ck_assert_msg(sb_limit_decay(0, 10) == DBL_MIN, "floor");
	/* no time: no decay */
	ck_assert_msg(sb_limit_decay(d, 0) == 1, "0 s");
	ck_assert_msg(sb_limit_decay(d, -5) == 1, "negative seconds");
}
END_TEST

START_TEST(test_einval)
{
	struct sb_run run = { .start = START, .limit_min = 1 };
	struct sb_run_delta d;

	ck_assert_int_eq(sb_limit_run_delta(NULL, 0, 1, false, &d), SB_EINVAL);
	ck_assert_int_eq(sb_limit_run_delta(&run, 0, 1, false, NULL), SB_EINVAL);
}
END_TEST

/* In UTC (set in main): 2026-12-01 (a Tuesday) 15:00 = 1796137200. */
#define T0 1796137200
#define DAY 86400
struct reset_case {
	const char *what;
	enum sb_reset_period period;
	time_t last, now, want;
};

static const struct reset_case reset_cases[] = {
	{ .what = "daily: next midnight",         .period = SB_RESET_DAILY,     .last = T0, .now = T0,
	  .want = 1796169600 },
	{ .what = "daily: missed days are not replayed", .period = SB_RESET_DAILY,     .last = T0, .now = T0 + 5 * DAY,
	  .want = 1796169600 + 4 * DAY },
	{ .what = "weekly: next Sunday midnight", .period = SB_RESET_WEEKLY,    .last = T0, .now = T0,
	  .want = 1796169600 + 4 * DAY },
	{ .what = "monthly: 2027-01-01",          .period = SB_RESET_MONTHLY,   .last = T0, .now = T0,
	  .want = 1798761600 },
	{ .what = "quarterly: 2027-01-01",        .period = SB_RESET_QUARTERLY, .last = T0, .now = T0,
	  .want = 1798761600 },
	{ .what = "quarterly from February: 2027-04-01", .period = SB_RESET_QUARTERLY, .last = 1798761600 + 40 * DAY, .now = T0,
	  .want = 1806537600 },
	{ .what = "yearly: 2027-01-01",           .period = SB_RESET_YEARLY,    .last = T0, .now = T0,
	  .want = 1798761600 },
	{ .what = "none",                         .period = SB_RESET_NONE,      .last = T0, .now = T0,
	  .want = 0 },
	{ .what = "now is not periodic",          .period = SB_RESET_NOW,       .last = T0, .now = T0,
	  .want = 0 },
};

START_TEST(test_next_reset)
{
	const struct reset_case *c = &reset_cases[_i];
	time_t got = sb_limit_next_reset(c->period, c->last, c->now);

	ck_assert_msg(got == c->want, "%s: %ld, want %ld", c->what,
		      (long)got, (long)c->want);
}
END_TEST

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

int main(void)
{
	Suite *s = suite_create("limit_usage");
	TCase *tc = tcase_create("limit_usage");

	setenv("TZ", "UTC", 1);	/* resets are at local midnight */
	tcase_add_loop_test(tc, test_delta, 0, N(delta_cases));
	tcase_add_test(tc, test_delta_sums_to_limit);
	tcase_add_loop_test(tc, test_restart, 0, N(restart_cases));
	tcase_add_loop_test(tc, test_scale, 0, N(scale_cases));
	tcase_add_test(tc, test_decay);
	tcase_add_loop_test(tc, test_next_reset, 0, N(reset_cases));
	tcase_add_test(tc, test_einval);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
