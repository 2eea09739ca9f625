/* tick-stats-test.c - the lock hold time summary of preempt/budget's tick
 * (plugins/common/tick_stats.c): quantiles by nearest rank, the summary
 * line every TICK_STATS_N ticks, write-lock figures only over the ticks
 * that took write locks. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	tcase_add_test(tc, test_clock);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
