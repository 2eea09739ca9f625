/*
 * ledger-accrual-test.c - the accrual record that keeps periodic charging
 * from counting anything twice (repeated offers, requeues, restarts), and
 * the memory a ledger needs (sb_ledger_bytes, sb_ledger_fit_width).
 */
#include <check.h>
#include <stdlib.h>

#include "ledger-test.h"

/* ----------------------------------------------------------------- accrual */

/* The same interval offered twice is charged once. */
START_TEST(test_accrual_idempotent)
{
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	double ch;
	int64_t to;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 100, 2, true, 8, T0, T0 + 60, &ch),
			 SB_OK);
	ck_assert_double_eq(ch, 480);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 100, 2, true, 8, T0, T0 + 60, &ch),
			 SB_OK);
	ck_assert_double_eq(ch, 0);
	/* the next cycle offers the whole run so far: only the new minute */
	ck_assert_int_eq(sb_accrual_charge(acc, l, 100, 2, true, 8, T0, T0 + 120, &ch),
			 SB_OK);
	ck_assert_double_eq(ch, 480);
	/* an older interval (a stale offer) charges nothing */
	ck_assert_int_eq(sb_accrual_charge(acc, l, 100, 2, true, 8, T0 + 10,
					   T0 + 100, &ch), SB_OK);
	ck_assert_double_eq(ch, 0);
	ck_assert_double_eq(sb_ledger_usage(l, 2, T0 + 120, true), 960);
	ck_assert_int_eq(sb_accrual_get(acc, 100, &to, &ch), SB_OK);
	ck_assert_int_eq(to, T0 + 120);
	ck_assert_double_eq(ch, 960);
	sb_accrual_free(acc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/*
 * A requeued job: runs [0, 300), is requeued, pends [300, 1000), runs again
 * [1000, 1250).  Accrued every 60 s (and twice at some cycles) while it
 * runs; the pending time is never charged.
 */
START_TEST(test_accrual_requeue)
{
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	const uint32_t job = 4242;
	int64_t now;
	double ch, total = 0;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	for (now = 60; now <= 1500; now += 60) {
		int64_t start = -1, end = now;

		if (now <= 360)			/* first run [0, 300) */
			start = 0, end = now < 300 ? now : 300;
		else if (now >= 1000)		/* second run [1000, 1250) */
			start = 1000, end = now < 1250 ? now : 1250;
		if (start < 0)
			continue;		/* pending: nothing offered */
		ck_assert_int_eq(sb_accrual_charge(acc, l, job, 2, true, 4, T0 + start,
						   T0 + end, &ch), SB_OK);
		total += ch;
		/* a duplicate offer in the same cycle */
		ck_assert_int_eq(sb_accrual_charge(acc, l, job, 2, true, 4, T0 + start,
						   T0 + end, &ch), SB_OK);
		ck_assert_double_eq(ch, 0);
	}
	ck_assert_msg(total == 4 * (300 + 250), "charged %.17g, expected %d",
		      total, 4 * (300 + 250));
	ck_assert_double_eq(sb_ledger_usage(l, 2, T0 + 1500, true), 4 * 550);
	/* exactly nothing in the pending gap: [T0+300, T0+1000) is in bucket 0
	 * with the rest, so check through a ledger of 100 s buckets */
	{
		struct sb_ledger *fine;
		struct sb_accrual *a2 = sb_accrual_new();
		int64_t s;

		ck_assert_int_eq(sb_ledger_new(t, 1000, 100, &fine), SB_OK);
		ck_assert_int_eq(sb_accrual_charge(a2, fine, job, 2, true, 4, T0,
						   T0 + 300, NULL), SB_OK);
		/* at now = T0 + 999 the window (T0 - 1, T0 + 999] holds both the
		 * first run and the gap: only the run is charged */
		ck_assert_double_eq(sb_ledger_usage(fine, 2, T0 + 999, true), 1200);
		ck_assert_int_eq(sb_accrual_charge(a2, fine, job, 2, true, 4, T0 + 1000,
						   T0 + 1250, NULL), SB_OK);
		/* once the first run's buckets have left, the gap shows 0 */
		for (s = T0 + 1300; s < T0 + 1999; s += 100)
			ck_assert_double_eq(sb_ledger_usage(fine, 2, s, true), 1000);
		sb_accrual_free(a2);
		sb_ledger_free(fine);
	}
	sb_accrual_free(acc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/*
 * Restart: state saved at T0 + 600 while a job runs; the controller is
 * killed at T0 + 700 (the minute after the save is lost with it), restarts
 * at T0 + 900 and offers the job's run [T0, T0 + 900): exactly [T0 + 600,
 * T0 + 900) is charged, so the run is counted once in all.
 */
START_TEST(test_accrual_restart)
{
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new(), *acc2 = sb_accrual_new();
	struct sb_ledger *l, *l2;
	char *doc;
	double ch;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 9, 1, true, 2, T0, T0 + 600, NULL),
			 SB_OK);
	ck_assert_int_eq(sb_ledger_to_json(l, acc, &doc), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 9, 1, true, 2, T0, T0 + 700, NULL),
			 SB_OK);	/* lost */
	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l2), SB_OK);
	ck_assert_int_eq(sb_ledger_from_json(l2, acc2, doc, strlen(doc), NULL, 0,
					     NULL), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc2, l2, 9, 1, true, 2, T0, T0 + 900, &ch),
			 SB_OK);
	ck_assert_double_eq(ch, 600);
	ck_assert_double_eq(sb_ledger_usage(l2, 1, T0 + 900, true), 1800);
	free(doc);
	sb_accrual_free(acc);
	sb_accrual_free(acc2);
	sb_ledger_free(l);
	sb_ledger_free(l2);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_accrual_errors)
{
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	double ch = 5;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(NULL, l, 1, 0, true, 1, 0, 1, &ch), SB_EINVAL);
	ck_assert_double_eq(ch, 0);
	ck_assert_int_eq(sb_accrual_charge(acc, NULL, 1, 0, true, 1, 0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 0, 0, true, 1, 0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 1, 9, true, 1, 0, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 1, 0, true, NAN, 0, 1, NULL), SB_ERANGE);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 1, 0, true, 1, 5, 1, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 1, 0, true, 1, -5, 1, NULL), SB_ENEGATIVE);
	ck_assert_uint_eq(sb_accrual_count(acc), 0);	/* nothing recorded */
	ck_assert_int_eq(sb_accrual_get(acc, 1, NULL, NULL), SB_ENOTFOUND);
	ck_assert_int_eq(sb_accrual_get(NULL, 1, NULL, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_accrual_forget(acc, 1), SB_ENOTFOUND);
	ck_assert_int_eq(sb_accrual_forget(NULL, 1), SB_EINVAL);
	ck_assert_uint_eq(sb_accrual_prune(NULL, 5), 0);
	ck_assert_uint_eq(sb_accrual_count(NULL), 0);
	/* a zero-length run records the job without charging */
	ck_assert_int_eq(sb_accrual_charge(acc, l, 1, 0, true, 1, 10, 10, &ch), SB_OK);
	ck_assert_double_eq(ch, 0);
	ck_assert_uint_eq(sb_accrual_count(acc), 1);
	sb_accrual_free(acc);
	sb_accrual_free(NULL);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* Many jobs: the table grows, forgets and prunes without losing others. */
START_TEST(test_accrual_many)
{
	enum { N = 20000 };
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	uint32_t j;
	int64_t to;
	size_t pruned;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	/* job ids spread out like Slurm's, ends spread over [T0, T0 + N) */
	for (j = 1; j <= N; j++)
		ck_assert_int_eq(sb_accrual_charge(acc, l, j * 7919u, j % 3, j % 2, 1,
						   T0, T0 + j, NULL), SB_OK);
	ck_assert_uint_eq(sb_accrual_count(acc), N);
	for (j = 1; j <= N; j += 2)
		ck_assert_int_eq(sb_accrual_forget(acc, j * 7919u), SB_OK);
	ck_assert_uint_eq(sb_accrual_count(acc), N / 2);
	for (j = 1; j <= N; j++) {
		int rc = sb_accrual_get(acc, j * 7919u, &to, NULL);

		ck_assert_msg(rc == (j % 2 ? SB_ENOTFOUND : SB_OK),
			      "job %u: rc %d after forgetting the odd ones",
			      j * 7919u, rc);
		if (rc == SB_OK)
			ck_assert_int_eq(to, T0 + j);
	}
	/* prune those charged up to before T0 + N/2: the even j < N/2 */
	pruned = sb_accrual_prune(acc, T0 + N / 2);
	ck_assert_uint_eq(pruned, N / 4 - 1 + (N / 2) % 2);
	for (j = 2; j <= N; j += 2)
		ck_assert_int_eq(sb_accrual_get(acc, j * 7919u, NULL, NULL),
				 T0 + j < T0 + N / 2 ? SB_ENOTFOUND : SB_OK);
	ck_assert_uint_eq(sb_accrual_count(acc), N / 2 - pruned);
	ck_assert_double_eq(sb_ledger_usage(l, 0, T0 + N, true) +
			    sb_ledger_usage(l, 0, T0 + N, false),
			    (double)N * (N + 1) / 2);
	sb_accrual_free(acc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* sb_ledger_bytes() and sb_ledger_fit_width(): the memory bound a site's
 * association count puts on LookbackWindow / BucketWidth. */
struct fit_case {
	const char *what;
	uint32_t nassoc;
	int64_t window, width;
	int64_t max_delta;	/* max = bytes(nassoc, window, width) + this */
	bool absolute;		/* max = SB_LEDGER_MAX_BYTES instead */
	int64_t want;
};

static const struct fit_case fits[] = {
	{ .what = "fits exactly", .nassoc = 10, .window = 604800,
	  .width = 3600, .max_delta = 0, .want = 3600 },
	{ .what = "one byte short: the next width dividing the window",
	  .nassoc = 10, .window = 604800, .width = 3600, .max_delta = -1,
	  .want = 7200 },
	{ .what = "10,000 associations, a day of 1 s buckets, 1 GiB: 15 s "
		  "(13 and 14 do not divide a day, 12 s needs 1.15 GB)",
	  .nassoc = 10000, .window = 86400, .width = 1, .absolute = true,
	  .want = 15 },
	{ .what = "the default shape fits 100,000 associations",
	  .nassoc = 100000, .window = 604800, .width = 3600,
	  .absolute = true, .want = 3600 },
	{ .what = "nothing fits", .nassoc = UINT32_MAX, .window = 86400,
	  .width = 1, .absolute = true, .want = 0 },
	{ .what = "no window", .nassoc = 1, .window = 0, .width = 1,
	  .absolute = true, .want = 0 },
	{ .what = "no width", .nassoc = 1, .window = 60, .width = 0,
	  .absolute = true, .want = 0 },
};

START_TEST(test_ledger_fit_width)
{
	const struct fit_case *c = &fits[_i];
	uint64_t max = c->absolute ? SB_LEDGER_MAX_BYTES :
		(uint64_t)((int64_t)sb_ledger_bytes(c->nassoc, c->window,
						    c->width) + c->max_delta);
	int64_t got = sb_ledger_fit_width(c->nassoc, c->window, c->width, max);

	ck_assert_msg(got == c->want, "%s: width %lld, want %lld", c->what,
		      (long long)got, (long long)c->want);
	if (got)	/* what it returns fits, and is the first that does */
		ck_assert(sb_ledger_bytes(c->nassoc, c->window, got) <= max);
}
END_TEST

/* Memory grows with associations and buckets: two doubles a bucket. */
START_TEST(test_ledger_bytes)
{
	uint64_t one = sb_ledger_bytes(1, 604800, 3600);

	ck_assert_uint_eq(sb_ledger_bytes(2000, 604800, 3600), 2000 * one);
	ck_assert_uint_eq(sb_ledger_bytes(1, 604800, 1800) - one,
			  168 * 2 * sizeof(double));
	ck_assert_uint_eq(sb_ledger_bytes(0, 604800, 3600), 0);
	ck_assert_uint_eq(sb_ledger_bytes(1, -1, 3600), 0);
}
END_TEST

TCase *ledger_accrual_tcase(void)
{
	TCase *ta = tcase_create("accrual");

	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_accrual_idempotent);
	tcase_add_test(ta, test_accrual_requeue);
	tcase_add_test(ta, test_accrual_restart);
	tcase_add_test(ta, test_accrual_errors);
	tcase_add_test(ta, test_accrual_many);
	tcase_add_loop_test(ta, test_ledger_fit_width, 0,
			    sizeof(fits) / sizeof(fits[0]));
	tcase_add_test(ta, test_ledger_bytes);
	return ta;
}
