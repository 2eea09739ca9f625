/*
 * ledger-json-test.c - the ledger saved and loaded: round trips, reloads
 * with another window or an open bucket, and damaged documents refused
 * without half-loading.
 */
#include <check.h>
#include <json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ledger-test.h"

/* --------------------------------------------------------------- save/load */

/*
 * Varied charges to the @n associations of @l, inside [T0 - 8 days, @end):
 * whole or fractional TRES counts, allocated or not.
 */
static void fill(struct sb_ledger *l, uint32_t n, int integral, int64_t end)
{
	const int64_t lo = T0 - 8 * 24 * H;
	int i;

	for (i = 0; i < 300; i++) {
		int64_t from = lo + (int64_t)(rnd() % (uint64_t)(end - lo));
		int64_t to = from + (int64_t)(rnd() % (20 * H));
		double tres = integral ? (double)(rnd() % 16) :
			      (double)(rnd() % 1000) / 3.0;

		ck_assert_int_eq(sb_ledger_charge(l, (uint32_t)(rnd() % n), from,
						  to < end ? to : end, tres,
						  rnd() % 4 != 0), SB_OK);
	}
}

static void same_usage(const struct sb_ledger *a, const struct sb_ledger *b,
		       uint32_t n, int64_t now, const char *what)
{
	uint32_t i;
	int al;

	for (al = 0; al < 2; al++) {
		for (i = 0; i < n; i++) {
			double x = sb_ledger_usage(a, i, now, al);
			double y = sb_ledger_usage(b, i, now, al);

			ck_assert_msg(x == y, "%s: node %u %s at T0%+lld: %.17g "
				      "before, %.17g after", what, i,
				      al ? "allocated" : "unallocated",
				      (long long)(now - T0), x, y);
		}
	}
}

START_TEST(test_round_trip)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *a, *b;
	char *s1, *s2;
	size_t nd = 9;
	int64_t now;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &a), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &b), SB_OK);
	fill(a, 3, 0, T0 + 9 * 24 * H);
	ck_assert_int_eq(sb_ledger_to_json(a, NULL, &s1), SB_OK);
	ck_assert_int_eq(sb_ledger_from_json(b, NULL, s1, strlen(s1), NULL, 0,
					     &nd), SB_OK);
	ck_assert_uint_eq(nd, 0);
	for (now = T0 - 2 * 24 * H; now <= T0 + 9 * 24 * H; now += 1777)
		same_usage(a, b, 3, now, "round trip");
	ck_assert_int_eq(sb_ledger_to_json(b, NULL, &s2), SB_OK);
	ck_assert_str_eq(s1, s2);
	free(s1);
	free(s2);
	sb_ledger_free(a);
	sb_ledger_free(b);
	sb_tree_free(t);
}
END_TEST

/*
 * Reconfigure: the saved ledger loaded with another bucket width keeps the
 * same usage at times where both widths count the same span, and saving and
 * loading again and again never decays anything.
 */
START_TEST(test_reconfigure_no_decay)
{
	static const int64_t widths[] = { 1800, 7200, 900, H };
	struct sb_tree *t = small_tree();
	struct sb_ledger *a, *b;
	char *s;
	size_t w;
	int64_t now;
	int round;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &a), SB_OK);
	/* everything charged before T0 and compared from T0 on: the bucket
	 * that starts at `now` (counted, see sb/ledger.h) is empty in both */
	fill(a, 3, 1, T0);
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		ck_assert_int_eq(sb_ledger_to_json(a, NULL, &s), SB_OK);
		ck_assert_int_eq(sb_ledger_new(t, WEEK, widths[w], &b), SB_OK);
		for (round = 0; round < 3; round++) {
			char *again;

			ck_assert_int_eq(sb_ledger_from_json(b, NULL, s, strlen(s),
							     NULL, 0, NULL), SB_OK);
			/* multiples of 7200: bucket starts of every width */
			for (now = T0; now <= T0 + 9 * 24 * H; now += 7200)
				same_usage(a, b, 3, now, "reconfigure");
			ck_assert_int_eq(sb_ledger_to_json(b, NULL, &again), SB_OK);
			free(s);
			s = again;
		}
		free(s);
		sb_ledger_free(b);
	}
	sb_ledger_free(a);
	sb_tree_free(t);
}
END_TEST

/*
 * A bucket still open when the ledger was saved held only usage from before
 * the save: loaded at `now` into a narrower width it lands in [start, now),
 * all of it in the window, none in buckets that have not started.
 */
struct open_bucket_case {
	const char *what;
	int64_t now;		/* load time, relative to T0 */
	bool at;		/* sb_ledger_from_json_at, else the plain one */
	int64_t query;		/* relative to T0 */
	double want;		/* usage of assoc 1 at T0 + query */
};

static const struct open_bucket_case open_bucket[] = {
	{ .what = "loaded at the save time: all 1800 s in the window",            .now = 1800,
	  .at = true,  .query = 1800, .want = 1800 },
	{ .what = "loaded later, inside the bucket: all of it by the load time",  .now = 2400,
	  .at = true,  .query = 2400, .want = 1800 },
	{ .what = "... spread over [start, load): 31 of 40 minutes by T0 + 1800", .now = 2400,
	  .at = true,  .query = 1800, .want = 31 * 45 },
	{ .what = "loaded after the bucket ended: spread over it all",            .now = H + 5,
	  .at = true,  .query = 1800, .want = 31 * 30 },
	{ .what = "clock set back before the bucket: spread over it all",         .now = -100,
	  .at = true,  .query = 1800, .want = 31 * 30 },
	{ .what = "no time given: spread over it all (31 of 60 minutes counted)", .now = 0,
	  .at = false, .query = 1800, .want = 31 * 30 },
};

START_TEST(test_reload_open_bucket)
{
	const struct open_bucket_case *c = &open_bucket[_i];
	struct sb_tree *t = small_tree();
	struct sb_ledger *a, *b;
	char *s;
	int64_t k;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &a), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, WEEK, 60, &b), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(a, 1, T0, T0 + 1800, 1, true), SB_OK);
	ck_assert_int_eq(sb_ledger_to_json(a, NULL, &s), SB_OK);
	if (c->at)
		ck_assert_int_eq(sb_ledger_from_json_at(b, NULL, s, strlen(s),
							T0 + c->now, NULL, 0,
							NULL), SB_OK);
	else
		ck_assert_int_eq(sb_ledger_from_json(b, NULL, s, strlen(s),
						     NULL, 0, NULL), SB_OK);
	ck_assert_msg(sb_ledger_usage(b, 1, T0 + c->query, true) == c->want,
		      "%s: usage %g, want %g", c->what,
		      sb_ledger_usage(b, 1, T0 + c->query, true), c->want);
	/* nothing is lost: the whole hour counts once it has passed */
	ck_assert_double_eq(sb_ledger_usage(b, 1, T0 + H, true), 1800);
	/* with a time inside the bucket, no minute after it holds usage */
	if (c->at && c->now > 0 && c->now < H)
		for (k = c->now; k < H; k += 60)
			ck_assert_double_eq(sb_ledger_usage(b, 1, T0 + k, true),
					    1800);
	free(s);
	sb_ledger_free(a);
	sb_ledger_free(b);
	sb_tree_free(t);
}
END_TEST

/* A shorter window after a reload keeps only what it needs. */
START_TEST(test_reload_shorter_window)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *a, *b;
	char *s;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &a), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, 24 * H, H, &b), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(a, 1, T0, T0 + 3 * 24 * H, 1, true), SB_OK);
	ck_assert_int_eq(sb_ledger_to_json(a, NULL, &s), SB_OK);
	ck_assert_int_eq(sb_ledger_from_json(b, NULL, s, strlen(s), NULL, 0, NULL),
			 SB_OK);
	ck_assert_double_eq(sb_ledger_usage(b, 1, T0 + 3 * 24 * H, true), 24 * H);
	ck_assert_double_eq(sb_ledger_usage(a, 1, T0 + 3 * 24 * H, true), 3 * 24 * H);
	free(s);
	sb_ledger_free(a);
	sb_ledger_free(b);
	sb_tree_free(t);
}
END_TEST

#define DOC_HEAD "{\"format\":\"slurm-budget-ledger\",\"version\":1," \
		 "\"window\":7200,\"bucket_width\":3600,\"associations\":"
#define DOC(assocs) DOC_HEAD assocs "}"
#define DOCJ(assocs, jobs) DOC_HEAD assocs ",\"jobs\":" jobs "}"
#define GOOD DOC("[{\"id\":2,\"buckets\":[[3600,10,0],[7200,0.5,3]]}]")

struct load_case {
	const char *what;
	const char *doc;
	int rc;
	size_t ndropped;
};

static const struct load_case load[] = {
	{ .what = "good",
	  .doc = GOOD,                                                 .rc = SB_OK,
	  .ndropped = 0 },
	{ .what = "good with jobs",
	  .doc = DOCJ("[]", "[[7,3600,12.5]]"),                        .rc = SB_OK,
	  .ndropped = 0 },
	{ .what = "good without buckets",
	  .doc = DOC("[{\"id\":3,\"buckets\":[]}]"),                   .rc = SB_OK,
	  .ndropped = 0 },
	{ .what = "unknown id: dropped and reported",
	  .doc = DOC("[{\"id\":99,\"buckets\":[[3600,1,0]]},{\"id\":2,\"buckets\":[]}]"), .rc = SB_OK,
	  .ndropped = 1 },
	{ .what = "trailing newline",
	  .doc = GOOD "\n",                                            .rc = SB_OK,
	  .ndropped = 0 },
	{ .what = "empty",
	  .doc = "",                                                   .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "blank",
	  .doc = "  \n",                                               .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "open brace",
	  .doc = "{",                                                  .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "null",
	  .doc = "null",                                               .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "array",
	  .doc = "[]",                                                 .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "number",
	  .doc = "42",                                                 .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "empty object",
	  .doc = "{}",                                                 .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "trailing garbage",
	  .doc = GOOD "x",                                             .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "two documents",
	  .doc = GOOD GOOD,                                            .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "wrong format name",
	  .doc = "{\"format\":\"other\",\"version\":1,\"window\":"
	  "7200,\"bucket_width\":3600,\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "version 2",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"version\":2}", .rc = SB_EVERSION,
	  .ndropped = 0 },
	{ .what = "version 0",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"version\":0,"
	  "\"window\":7200,\"bucket_width\":3600,\"associations\":[]}", .rc = SB_EVERSION,
	  .ndropped = 0 },
	{ .what = "version as a string",
	  .doc = "{\"format\":\"slurm-budget-ledger\","
	  "\"version\":\"1\",\"window\":7200,\"bucket_width\":3600,"
	  "\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "version as a double",
	  .doc = "{\"format\":\"slurm-budget-ledger\","
	  "\"version\":1.0,\"window\":7200,\"bucket_width\":3600,"
	  "\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "no version",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"window\":7200,"
	  "\"bucket_width\":3600,\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "window not a multiple",
	  .doc = "{\"format\":\"slurm-budget-ledger\","
	  "\"version\":1,\"window\":7000,\"bucket_width\":3600,"
	  "\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "negative window",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"version\":1,"
	  "\"window\":-7200,\"bucket_width\":3600,\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "zero width",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"version\":1,"
	  "\"window\":7200,\"bucket_width\":0,\"associations\":[]}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "no associations",
	  .doc = "{\"format\":\"slurm-budget-ledger\",\"version\":1,"
	  "\"window\":7200,\"bucket_width\":3600}", .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "associations not an array",
	  .doc = DOC("{}"),                                            .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "association not an object",
	  .doc = DOC("[[2]]"),                                         .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "id 0",
	  .doc = DOC("[{\"id\":0,\"buckets\":[]}]"),                   .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "negative id",
	  .doc = DOC("[{\"id\":-2,\"buckets\":[]}]"),                  .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "id above 32 bits",
	  .doc = DOC("[{\"id\":4294967298,\"buckets\":[]}]"),          .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "id as a string",
	  .doc = DOC("[{\"id\":\"2\",\"buckets\":[]}]"),               .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "no buckets",
	  .doc = DOC("[{\"id\":2}]"),                                  .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "duplicate id",
	  .doc = DOC("[{\"id\":2,\"buckets\":[]},{\"id\":2,\"buckets\":[]}]"), .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "negative allocated",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,-1,0]]}]"),        .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "negative unallocated",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,1,-0.5]]}]"),      .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "NaN string",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,\"NaN\",0]]}]"),   .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "NaN literal",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,NaN,0]]}]"),       .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "Infinity literal",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,Infinity,0]]}]"),  .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "overflowing number",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,1e999,0]]}]"),     .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "null sum",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,null,0]]}]"),      .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "negative start",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[-3600,1,0]]}]"),        .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "start not on a bucket",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3601,1,0]]}]"),         .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "start as a double",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600.0,1,0]]}]"),       .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "start far in the future",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[9223372036854775807,1,0]]}]"), .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "bucket too short",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,1]]}]"),           .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "bucket too long",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,1,0,0]]}]"),       .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "bucket not an array",
	  .doc = DOC("[{\"id\":2,\"buckets\":[3600]}]"),               .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "duplicate bucket",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[3600,1,0],[3600,1,0]]}]"), .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "buckets out of order",
	  .doc = DOC("[{\"id\":2,\"buckets\":[[7200,1,0],[3600,1,0]]}]"), .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "bad bucket of an unknown id",
	  .doc = DOC("[{\"id\":99,\"buckets\":[[3600,-1,0]]}]"),       .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "jobs not an array",
	  .doc = DOCJ("[]", "{}"),                                     .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "job id 0",
	  .doc = DOCJ("[]", "[[0,3600,1]]"),                           .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "job charged_to negative",
	  .doc = DOCJ("[]", "[[7,-1,1]]"),                             .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "job charged NaN",
	  .doc = DOCJ("[]", "[[7,3600,NaN]]"),                         .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "job twice",
	  .doc = DOCJ("[]", "[[7,3600,1],[7,7200,1]]"),                .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "job entry short",
	  .doc = DOCJ("[]", "[[7,3600]]"),                             .rc = SB_ECORRUPT,
	  .ndropped = 0 },
	{ .what = "bad after good associations",
	  .doc = DOCJ("[{\"id\":2,\"buckets\":[[3600,10,0]]}]", "[[7,3600,\"x\"]]"), .rc = SB_ECORRUPT,
	  .ndropped = 0 },
};

/* A ledger and accrual with known content, to see a failed load change
 * nothing. */
static void before_state(struct sb_ledger *l, struct sb_accrual *acc)
{
	ck_assert_int_eq(sb_ledger_charge(l, 2, 100, 200, 4, true), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc, l, 42, 1, true, 2, 0, 50, NULL),
			 SB_OK);
}

static void check_before_state(const struct sb_ledger *l,
			       const struct sb_accrual *acc, const char *what)
{
	int64_t to;
	double ch;

	ck_assert_msg(sb_ledger_usage(l, 2, 200, true) == 400 &&
		      sb_ledger_usage(l, 1, 200, true) == 100,
		      "%s: ledger changed by a failed load (%.17g, %.17g; "
		      "expected 400, 100)", what, sb_ledger_usage(l, 2, 200, true),
		      sb_ledger_usage(l, 1, 200, true));
	ck_assert_msg(sb_accrual_count(acc) == 1 &&
		      sb_accrual_get(acc, 42, &to, &ch) == SB_OK && to == 50 &&
		      ch == 100, "%s: accrual changed by a failed load", what);
}

START_TEST(test_load_cases)
{
	const struct load_case *c = &load[_i];
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	uint32_t dropped[4] = { 0 };
	size_t nd = 77;
	int rc;

	ck_assert_int_eq(sb_ledger_new(t, 7200, H, &l), SB_OK);
	before_state(l, acc);
	rc = sb_ledger_from_json(l, acc, c->doc, strlen(c->doc), dropped, 4, &nd);
	ck_assert_msg(rc == c->rc, "%s: rc %d (%s), expected %d (%s)", c->what,
		      rc, sb_strerror(rc), c->rc, sb_strerror(c->rc));
	ck_assert_msg(nd == c->ndropped, "%s: %zu dropped, expected %zu",
		      c->what, nd, c->ndropped);
	if (rc != SB_OK)
		check_before_state(l, acc, c->what);
	else if (c->ndropped)
		ck_assert_uint_eq(dropped[0], 99);
	sb_accrual_free(acc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* What a good document loads, exactly; the previous content is replaced. */
START_TEST(test_load_content)
{
	const char *doc = DOCJ("[{\"id\":2,\"buckets\":[[3600,10,0],[7200,0.5,3]]}]",
			       "[[7,3600,12.5],[9,7200,0]]");
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new();
	struct sb_ledger *l;
	int64_t to;
	double ch;

	ck_assert_int_eq(sb_ledger_new(t, 7200, H, &l), SB_OK);
	before_state(l, acc);
	ck_assert_int_eq(sb_ledger_from_json(l, acc, doc, strlen(doc), NULL, 0,
					     NULL), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, 1, 7200, true), 10.5);
	ck_assert_double_eq(sb_ledger_usage(l, 1, 7200, false), 3);
	ck_assert_double_eq(sb_ledger_usage(l, 2, 7200, true), 0);	/* replaced */
	ck_assert_double_eq(sb_ledger_usage(l, 0, 7200, true), 10.5);
	ck_assert_uint_eq(sb_accrual_count(acc), 2);
	ck_assert_int_eq(sb_accrual_get(acc, 42, NULL, NULL), SB_ENOTFOUND);
	ck_assert_int_eq(sb_accrual_get(acc, 7, &to, &ch), SB_OK);
	ck_assert_int_eq(to, 3600);
	ck_assert_double_eq(ch, 12.5);
	/* a document without "jobs" empties the record */
	ck_assert_int_eq(sb_ledger_from_json(l, acc, GOOD, strlen(GOOD), NULL, 0,
					     NULL), SB_OK);
	ck_assert_uint_eq(sb_accrual_count(acc), 0);
	sb_accrual_free(acc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* Every truncation of a real document fails and changes nothing. */
START_TEST(test_load_truncated)
{
	struct sb_tree *t = small_tree();
	struct sb_accrual *acc = sb_accrual_new(), *acc2 = sb_accrual_new();
	struct sb_ledger *l, *src;
	char *doc;
	size_t len, cut;

	ck_assert_int_eq(sb_ledger_new(t, 7200, H, &src), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(src, 1, 3600, 9000, 2.5, true), SB_OK);
	ck_assert_int_eq(sb_accrual_charge(acc2, src, 5, 2, false, 1, 0, 70, NULL),
			 SB_OK);
	ck_assert_int_eq(sb_ledger_to_json(src, acc2, &doc), SB_OK);
	len = strlen(doc);
	ck_assert_int_eq(sb_ledger_new(t, 7200, H, &l), SB_OK);
	before_state(l, acc);
	for (cut = 0; cut < len; cut++) {
		int rc = sb_ledger_from_json(l, acc, doc, cut, NULL, 0, NULL);

		ck_assert_msg(rc == SB_ECORRUPT, "cut at %zu of %zu: rc %d, "
			      "expected %d", cut, len, rc, SB_ECORRUPT);
	}
	check_before_state(l, acc, "truncated");
	/* a NUL inside the given length is not the end of the document */
	doc[len / 2] = '\0';
	ck_assert_int_eq(sb_ledger_from_json(l, acc, doc, len, NULL, 0, NULL),
			 SB_ECORRUPT);
	check_before_state(l, acc, "embedded NUL");
	free(doc);
	sb_accrual_free(acc);
	sb_accrual_free(acc2);
	sb_ledger_free(l);
	sb_ledger_free(src);
	sb_tree_free(t);
}
END_TEST

/* Deep nesting is refused by json-c's depth limit, not the C stack. */
START_TEST(test_load_deep_nesting)
{
	enum { DEPTH = 100000 };
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	char *doc = malloc(2 * DEPTH + 1);

	memset(doc, '[', DEPTH);
	memset(doc + DEPTH, ']', DEPTH);
	doc[2 * DEPTH] = '\0';
	ck_assert_int_eq(sb_ledger_new(t, 7200, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_from_json(l, NULL, doc, 2 * DEPTH, NULL, 0, NULL),
			 SB_ECORRUPT);
	free(doc);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

TCase *ledger_json_tcase(void)
{
	TCase *tj = tcase_create("json");

	tcase_set_timeout(tj, 60);
	tcase_add_test(tj, test_round_trip);
	tcase_add_test(tj, test_reconfigure_no_decay);
	tcase_add_test(tj, test_reload_shorter_window);
	tcase_add_loop_test(tj, test_reload_open_bucket, 0,
			    sizeof(open_bucket) / sizeof(open_bucket[0]));
	tcase_add_loop_test(tj, test_load_cases, 0, sizeof(load) / sizeof(load[0]));
	tcase_add_test(tj, test_load_content);
	tcase_add_test(tj, test_load_truncated);
	tcase_add_test(tj, test_load_deep_nesting);
	return tj;
}
