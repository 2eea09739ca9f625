/* tick-stats-test.c - the lock hold time summary of preempt/budget's tick
 * (plugins/common/tick_stats.c): quantiles by nearest rank, the summary
 * line every TICK_STATS_N ticks, write-lock figures only over the ticks
 * that took write locks, the tick line's exact wording (bench scripts parse
 * it); the per-call summary of job_submit/budget (tick_stats_add_calls)
 * with the unit it is given; a slow tick's description (context switches,
 * off-CPU time). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "tick_stats.h"

struct q_case {
	double v[10];
	size_t n;
	double q, want;
};

/* nearest rank: the value at rank ceil(q * n), 1-based */
static const struct q_case quantile[] = {
	{ { 0 }, 0, 0.5, 0 },			/* empty: 0 */
	{ { 7 }, 1, 0.5, 7 },
	{ { 7 }, 1, 1.0, 7 },
	{ { 3, 1, 2 }, 3, 0.5, 2 },		/* rank 2 */
	{ { 4, 3, 2, 1 }, 4, 0.5, 2 },		/* rank 2, not 2.5 */
	{ { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 }, 10, 0.9, 9 },	/* rank 9 */
	{ { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 }, 10, 1.0, 10 },	/* max */
	{ { 5, 1, 9 }, 3, 0.0, 1 },		/* rank clamped to 1 */
};

START_TEST(test_quantile)
{
	const struct q_case *c = &quantile[_i];
	double v[10];
	double got;

	memcpy(v, c->v, sizeof(v));
	got = tick_stats_quantile(v, c->n, c->q);
	ck_assert_msg(got == c->want, "case %d: q %.2f of %zu values: "
		      "expected %g, got %g", _i, c->q, c->n, c->want, got);
}
END_TEST

/* 59 ticks say nothing; the 60th writes the summary and starts over. */
START_TEST(test_summary_every_n)
{
	struct tick_stats s = { 0 };
	char buf[512] = "untouched";
	int i;

	for (i = 1; i < TICK_STATS_N; i++)
		ck_assert(!tick_stats_add(&s, i, 0, i / 2.0, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "untouched");
	ck_assert(tick_stats_add(&s, TICK_STATS_N, 0, 30, buf, sizeof(buf)));
	/* held 1..60: median rank 30, p90 rank 54; no write locks at all */
	ck_assert_msg(strstr(buf, "locks held median 30 us p90 54 max 60;"),
		      "summary: %s", buf);
	ck_assert_msg(strstr(buf, "write locks in 0 ticks, held median 0 us "
			     "p90 0 max 0"), "summary: %s", buf);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_uint_eq(s.wrote, 0);
	ck_assert(!tick_stats_add(&s, 1, 0, 1, buf, sizeof(buf)));
}
END_TEST

/* Write-lock figures come from the ticks that took them, not all 60. */
START_TEST(test_write_ticks_only)
{
	struct tick_stats s = { 0 };
	char buf[512];
	int i;
	bool done = false;

	for (i = 0; i < TICK_STATS_N; i++) {
		double w = (i % 20 == 0) ? 1000 + i : 0;	/* 3 ticks */

		done = tick_stats_add(&s, 10 + w, w, 5, buf, sizeof(buf));
	}
	ck_assert(done);
	ck_assert_msg(strstr(buf, "write locks in 3 ticks, held median 1020 us "
			     "p90 1040 max 1040"), "summary: %s", buf);
	ck_assert_msg(strstr(buf, "thread CPU median 5 us"), "summary: %s", buf);
}
END_TEST

/* The tick summary word for word: contrib/bench-load.sh and bench-tick.sh
 * read its fields by position. */
START_TEST(test_tick_wording)
{
	struct tick_stats s = { 0 };
	char buf[512] = "";
	int i;

	for (i = 1; i <= TICK_STATS_N; i++)
		(void)tick_stats_add(&s, 100 + i, i == 1 ? 50 : 0, i, buf,
				     sizeof(buf));
	ck_assert_str_eq(buf, "over 60 ticks: locks held median 130 us p90 "
			 "154 max 160; thread CPU median 30 us p90 54 max 60; "
			 "write locks in 1 ticks, held median 50 us p90 50 "
			 "max 50");
}
END_TEST

/* tick_stats_add_calls: wall value i * wall_step, CPU i * cpu_step for
 * i = 1..60 (median rank 30, p90 rank 54, max rank 60), named @unit. */
struct calls_case {
	const char *unit;
	double wall_step, cpu_step;
	const char *want;
};

static const struct calls_case calls[] = {
	{ .unit = "calls", .wall_step = 2, .cpu_step = 1,
	  .want = "over 60 calls: wall median 60 us p90 108 max 120; "
		  "thread CPU median 30 us p90 54 max 60" },
	{ .unit = NULL, .wall_step = 1, .cpu_step = 1,	/* default unit */
	  .want = "over 60 calls: wall median 30 us p90 54 max 60; "
		  "thread CPU median 30 us p90 54 max 60" },
	{ .unit = "submissions", .wall_step = 10, .cpu_step = 0.1,
	  .want = "over 60 submissions: wall median 300 us p90 540 max 600; "
		  "thread CPU median 3 us p90 5 max 6" },
	{ .unit = "calls", .wall_step = 0, .cpu_step = 0,	/* all zero */
	  .want = "over 60 calls: wall median 0 us p90 0 max 0; "
		  "thread CPU median 0 us p90 0 max 0" },
};

START_TEST(test_calls_summary)
{
	const struct calls_case *c = &calls[_i];
	struct tick_stats s = { 0 };
	char buf[512] = "untouched";
	int i, round;

	/* two periods: the second summary is the same, nothing carried over */
	for (round = 0; round < 2; round++) {
		for (i = 1; i < TICK_STATS_N; i++)
			ck_assert(!tick_stats_add_calls(&s, c->unit,
							i * c->wall_step,
							i * c->cpu_step, buf,
							sizeof(buf)));
		if (!round)
			ck_assert_str_eq(buf, "untouched");
		ck_assert(tick_stats_add_calls(&s, c->unit,
					       TICK_STATS_N * c->wall_step,
					       TICK_STATS_N * c->cpu_step, buf,
					       sizeof(buf)));
		ck_assert_msg(!strcmp(buf, c->want), "case %d round %d: "
			      "expected '%s', got '%s'", _i, round, c->want,
			      buf);
		ck_assert_uint_eq(s.n, 0);
	}
}
END_TEST

/* Both clocks advance; CPU time is never more than wall time plus a
 * little (one thread). */
START_TEST(test_clock)
{
	struct tick_clock a, b;
	double wall, cpu = -1;
	volatile unsigned long x = 0;
	unsigned long i;

	tick_clock_now(&a);
	for (i = 0; i < 20000000UL; i++)
		x += i;
	tick_clock_now(&b);
	wall = tick_clock_since(&a, &b, &cpu);
	ck_assert_msg(wall > 0 && cpu > 0, "wall %g us, cpu %g us", wall, cpu);
	ck_assert_msg(cpu <= wall + 1000, "cpu %g us > wall %g us", cpu, wall);
	/* the elapsed time from a reads the same clock, later */
	ck_assert_msg(tick_clock_elapsed(&a) >= wall, "elapsed %g us < %g us",
		      tick_clock_elapsed(&a), wall);
}
END_TEST

/* tick_slow_describe: off CPU = held - CPU (never below 0), the counts as
 * the differences of the two readings. */
struct slow_case {
	double held, cpu;
	struct tick_switches from, to;
	const char *want;
};

static const struct slow_case slow[] = {
	{ .held = 250000, .cpu = 3000, .from = { .vol = 10, .invol = 4 },
	  .to = { .vol = 12, .invol = 9 },
	  .want = "held 250000 us, thread CPU 3000 us, off CPU 247000 us: "
		  "2 waits (voluntary context switches), 5 times the CPU was "
		  "taken (involuntary)" },
	{ .held = 21000, .cpu = 21500,	/* CPU read past the wall clock */
	  .from = { .vol = 0, .invol = 0 }, .to = { .vol = 0, .invol = 0 },
	  .want = "held 21000 us, thread CPU 21500 us, off CPU 0 us: 0 waits "
		  "(voluntary context switches), 0 times the CPU was taken "
		  "(involuntary)" },
};

START_TEST(test_slow_describe)
{
	const struct slow_case *c = &slow[_i];
	char buf[256] = "";

	tick_slow_describe(c->held, c->cpu, &c->from, &c->to, buf,
			   sizeof(buf));
	ck_assert_str_eq(buf, c->want);
}
END_TEST

/* A sleep is a voluntary context switch of the calling thread. */
START_TEST(test_switches)
{
	struct tick_switches a, b;
	struct timespec ts = { .tv_sec = 0, .tv_nsec = 2000000 };

	tick_switches_now(&a);
	nanosleep(&ts, NULL);
	tick_switches_now(&b);
	ck_assert_msg(b.vol > a.vol, "voluntary %ld -> %ld", a.vol, b.vol);
	ck_assert_msg(b.invol >= a.invol, "involuntary %ld -> %ld", a.invol,
		      b.invol);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tick_stats");
	TCase *tc = tcase_create("tick_stats");

	tcase_add_loop_test(tc, test_quantile, 0,
			    sizeof(quantile) / sizeof(quantile[0]));
	tcase_add_test(tc, test_summary_every_n);
	tcase_add_test(tc, test_write_ticks_only);
	tcase_add_test(tc, test_tick_wording);
	tcase_add_loop_test(tc, test_calls_summary, 0,
			    sizeof(calls) / sizeof(calls[0]));
	tcase_add_test(tc, test_clock);
	tcase_add_loop_test(tc, test_slow_describe, 0,
			    sizeof(slow) / sizeof(slow[0]));
	tcase_add_test(tc, test_switches);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
