/*
 * ledger-test.c - usage in buckets over the lookback window: when a bucket
 * leaves the window, how a charge is split across buckets, parent = sum of
 * children, save/load (and refusing damaged documents without half-loading),
 * rebinding to a changed tree, and the accrual record that keeps periodic
 * charging from counting anything twice.
 */
#include <check.h>
#include <json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/tree.h"

#define H 3600
#define WEEK SB_LEDGER_DEFAULT_WINDOW
/* An hour boundary in November 2023; most tests work near it. */
#define T0 ((int64_t)1700000000 - (int64_t)1700000000 % (2 * H))

/* ids 1 (top) <- 2, 3 (leaves): a small tree most tests share. */
static struct sb_tree *small_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "acct"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 1, 3, "alice"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 3, 1, 1, "bob"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	return t;
}

static uint32_t ix_of(const struct sb_tree *t, uint32_t id)
{
	uint32_t ix = SB_NONE;

	ck_assert_int_eq(sb_tree_index(t, id, &ix), SB_OK);
	return ix;
}

/* Deterministic xorshift64* for reproducible "random" cases. */
static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/*
 * The buckets of association @id as saved in the JSON document: their
 * starts and allocated/unallocated sums.  Return: how many.
 */
static size_t saved_buckets(const struct sb_ledger *l, uint32_t id,
			    int64_t *start, double *alloc, double *unalloc,
			    size_t cap)
{
	struct json_object *root, *assocs, *a, *bks, *v;
	char *text = NULL;
	size_t i, j, n = 0;

	ck_assert_int_eq(sb_ledger_to_json(l, NULL, &text), SB_OK);
	root = json_tokener_parse(text);
	ck_assert_ptr_nonnull(root);
	ck_assert_int_eq(json_object_object_get_ex(root, "associations", &assocs), 1);
	for (i = 0; i < json_object_array_length(assocs); i++) {
		a = json_object_array_get_idx(assocs, i);
		ck_assert_int_eq(json_object_object_get_ex(a, "id", &v), 1);
		if (json_object_get_int64(v) != id)
			continue;
		ck_assert_int_eq(json_object_object_get_ex(a, "buckets", &bks), 1);
		for (j = 0; j < json_object_array_length(bks) && n < cap; j++) {
			struct json_object *b = json_object_array_get_idx(bks, j);

			start[n] = json_object_get_int64(json_object_array_get_idx(b, 0));
			alloc[n] = json_object_get_double(json_object_array_get_idx(b, 1));
			unalloc[n] = json_object_get_double(json_object_array_get_idx(b, 2));
			n++;
		}
	}
	json_object_put(root);
	free(text);
	return n;
}

/* ------------------------------------------------------------- windowing */

struct edge_case {
	const char *what;
	int64_t window;
	int64_t from, to;	/* charged, relative to T0 */
	int64_t now;		/* relative to T0 */
	double usage;
};

/*
 * One bucket [T0, T0 + H) charged; its end E = T0 + H.  It counts while
 * E > now - window, i.e. up to now = E + window - 1, and from now = T0 (its
 * start) on.
 */
static const struct edge_case edge[] = {
	{ .what = "week: before the bucket starts", .window = WEEK,  .from = 0,     .to = H,
	  .now = -1,            .usage = 0 },
	{ .what = "week: at its start",       .window = WEEK,  .from = 0,     .to = H,
	  .now = 0,             .usage = H },
	{ .what = "week: at its end",         .window = WEEK,  .from = 0,     .to = H,
	  .now = H,             .usage = H },
	{ .what = "week: edge - 1",           .window = WEEK,  .from = 0,     .to = H,
	  .now = H + WEEK - 1,  .usage = H },
	{ .what = "week: edge",               .window = WEEK,  .from = 0,     .to = H,
	  .now = H + WEEK,      .usage = 0 },
	{ .what = "week: edge + 1",           .window = WEEK,  .from = 0,     .to = H,
	  .now = H + WEEK + 1,  .usage = 0 },
	{ .what = "2h window: edge - 1",      .window = 2 * H, .from = 0,     .to = H,
	  .now = H + 2 * H - 1, .usage = H },
	{ .what = "2h window: edge",          .window = 2 * H, .from = 0,     .to = H,
	  .now = H + 2 * H,     .usage = 0 },
	{ .what = "2h window: edge + 1",      .window = 2 * H, .from = 0,     .to = H,
	  .now = H + 2 * H + 1, .usage = 0 },
	/* a charge of the bucket's first second leaves with the bucket */
	{ .what = "first second: edge - 1",   .window = WEEK,  .from = 0,     .to = 1,
	  .now = H + WEEK - 1,  .usage = 1 },
	{ .what = "first second: edge",       .window = WEEK,  .from = 0,     .to = 1,
	  .now = H + WEEK,      .usage = 0 },
	/* ... and so does one of its last second */
	{ .what = "last second: edge - 1",    .window = WEEK,  .from = H - 1, .to = H,
	  .now = H + WEEK - 1,  .usage = 1 },
	{ .what = "last second: edge",        .window = WEEK,  .from = H - 1, .to = H,
	  .now = H + WEEK,      .usage = 0 },
	/* window = width: two buckets count at any time */
	{ .what = "window = width: edge - 1", .window = H,     .from = 0,     .to = H,
	  .now = 2 * H - 1,     .usage = H },
	{ .what = "window = width: edge",     .window = H,     .from = 0,     .to = H,
	  .now = 2 * H,         .usage = 0 },
};

START_TEST(test_window_edge)
{
	const struct edge_case *c = &edge[_i];
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	uint32_t bob = ix_of(t, 3);
	double u;

	ck_assert_int_eq(sb_ledger_new(t, c->window, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, bob, T0 + c->from, T0 + c->to, 1.0,
					  true), SB_OK);
	u = sb_ledger_usage(l, bob, T0 + c->now, true);
	ck_assert_msg(u == c->usage, "%s: usage at T0%+lld = %.17g, expected %.17g",
		      c->what, (long long)c->now, u, c->usage);
	/* the parent sees the same, the unallocated sum nothing */
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t, 1), T0 + c->now, true), u);
	ck_assert_double_eq(sb_ledger_usage(l, bob, T0 + c->now, false), 0.0);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* -------------------------------------------------------- bucket splits */

struct split_case {
	const char *what;
	int64_t window;
	int64_t from, to;	/* relative to T0 */
	double tres;
	size_t n;
	int64_t start[4];	/* relative to T0 */
	double amount[4];
};

static const struct split_case split[] = {
	{ .what = "inside one bucket",    .window = WEEK,  .from = 100,   .to = 200,       .tres = 2,
	  .n = 1, .start = { 0 },    .amount = { 200 } },
	{ .what = "exactly one bucket",   .window = WEEK,  .from = 0,     .to = H,         .tres = 1,
	  .n = 1, .start = { 0 },    .amount = { H } },
	{ .what = "across one boundary",  .window = WEEK,  .from = 3000,  .to = 4000,      .tres = 1,
	  .n = 2, .start = { 0, H }, .amount = { 600, 400 } },
	{ .what = "three buckets, 1 s at each end", .window = WEEK,  .from = H - 1, .to = 2 * H + 1, .tres = 1,
	  .n = 3, .start = { 0, H, 2 * H }, .amount = { 1, H, 1 } },
	{ .what = "one second at a bucket start", .window = WEEK,  .from = H,     .to = H + 1,     .tres = 8,
	  .n = 1, .start = { H },    .amount = { 8 } },
	{ .what = "empty interval",       .window = WEEK,  .from = 500,   .to = 500,       .tres = 4,
	  .n = 0, .start = { 0 },    .amount = { 0 } },
	{ .what = "half a GPU across a boundary", .window = WEEK,  .from = 1800,  .to = 5400,      .tres = 0.5,
	  .n = 2, .start = { 0, H }, .amount = { 900, 900 } },
	{ .what = "zero TRES",            .window = WEEK,  .from = 0,     .to = 2 * H,     .tres = 0,
	  .n = 0, .start = { 0 },    .amount = { 0 } },
	/* 2h window keeps 3 buckets: of 5 hours only the last 3 are held */
	{ .what = "longer than the ring", .window = 2 * H, .from = 0,     .to = 5 * H,     .tres = 1,
	  .n = 3, .start = { 2 * H, 3 * H, 4 * H }, .amount = { H, H, H } },
};

START_TEST(test_split)
{
	const struct split_case *c = &split[_i];
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	int64_t start[8];
	double al[8], un[8], sum = 0;
	size_t n, i;

	ck_assert_int_eq(sb_ledger_new(t, c->window, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, ix_of(t, 2), T0 + c->from,
					  T0 + c->to, c->tres, true), SB_OK);
	n = saved_buckets(l, 2, start, al, un, 8);
	ck_assert_msg(n == c->n, "%s: %zu buckets, expected %zu", c->what, n,
		      c->n);
	for (i = 0; i < n; i++) {
		ck_assert_msg(start[i] == T0 + c->start[i] && al[i] == c->amount[i] &&
			      un[i] == 0,
			      "%s: bucket %zu = [T0%+lld: %.17g, %.17g], expected "
			      "[T0%+lld: %.17g, 0]", c->what, i,
			      (long long)(start[i] - T0), al[i], un[i],
			      (long long)c->start[i], c->amount[i]);
		sum += c->amount[i];
	}
	/* at the interval's last second everything held is in the window */
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t, 2), T0 + c->to - 1, true),
			    sum);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* A split keeps the total exact: sum of pieces = seconds * TRES. */
START_TEST(test_split_exact_random)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	int i;

	for (i = 0; i < 2000; i++) {
		int64_t from = T0 + (int64_t)(rnd() % (3 * 24 * H));
		int64_t len = (int64_t)(rnd() % (2 * 24 * H));
		double tres = (double)(rnd() % 64);
		double u;

		ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
		ck_assert_int_eq(sb_ledger_charge(l, 1, from, from + len, tres,
						  i % 2), SB_OK);
		u = sb_ledger_usage(l, 1, from + len, i % 2);
		ck_assert_msg(u == (double)len * tres,
			      "[%lld, +%lld) x %g: usage %.17g, expected %.17g",
			      (long long)from, (long long)len, tres, u,
			      (double)len * tres);
		sb_ledger_free(l);
	}
	sb_tree_free(t);
}
END_TEST

START_TEST(test_allocated_apart)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	uint32_t a = ix_of(t, 2), b = ix_of(t, 3), top = ix_of(t, 1);

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, a, T0, T0 + 100, 8, true), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, a, T0, T0 + 100, 2, false), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, b, T0, T0 + 10, 1, false), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 100, true), 800);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 100, false), 200);
	ck_assert_double_eq(sb_ledger_usage(l, b, T0 + 100, true), 0);
	ck_assert_double_eq(sb_ledger_usage(l, b, T0 + 100, false), 10);
	ck_assert_double_eq(sb_ledger_usage(l, top, T0 + 100, true), 800);
	ck_assert_double_eq(sb_ledger_usage(l, top, T0 + 100, false), 210);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* Recycled ring slots: a later charge pushes old buckets out. */
START_TEST(test_ring_recycling)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	uint32_t a = ix_of(t, 2);
	int64_t k;

	ck_assert_int_eq(sb_ledger_new(t, 4 * H, H, &l), SB_OK);
	/* one GPU-hour in each of 10 consecutive hours, charged hour by hour */
	for (k = 0; k < 10; k++) {
		ck_assert_int_eq(sb_ledger_charge(l, a, T0 + k * H,
						  T0 + (k + 1) * H, 1, true), SB_OK);
		/* window (now-4h, now] at now = end of hour k: hours k-3..k,
		 * and the empty bucket starting at now */
		ck_assert_double_eq(sb_ledger_usage(l, a, T0 + (k + 1) * H, true),
				    (double)(k + 1 < 4 ? k + 1 : 4) * H);
	}
	/* a jump far ahead clears everything (O(buckets), not O(gap)) */
	ck_assert_int_eq(sb_ledger_charge(l, a, T0 + 1000 * H, T0 + 1000 * H + 1,
					  1, true), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 1000 * H + 1, true), 1);
	/* the old hours are gone even when asked about their own time */
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 10 * H, true), 0);
	/* a charge older than the ring is dropped, not wrapped around */
	ck_assert_int_eq(sb_ledger_charge(l, a, T0, T0 + H, 1, true), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 1000 * H + 1, true), 1);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + H, true), 0);
	/* a charge inside the ring, behind the head, lands in its bucket */
	ck_assert_int_eq(sb_ledger_charge(l, a, T0 + 998 * H, T0 + 998 * H + 5,
					  1, true), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, a, T0 + 1000 * H + 1, true), 6);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* ------------------------------------------------------ parent = children */

START_TEST(test_deep_tree_sums)
{
	enum { FAN = 3, DEPTH = 7 };	/* 1 + 3 + ... + 3^6 = 1093 nodes */
	struct sb_tree *t = sb_tree_new();
	struct sb_ledger *l;
	double *sub, *own, total = 0;
	uint32_t n, i, k, next = 2, level_start = 1, level_end = 2;
	const int64_t now = T0 + 3 * 24 * H;
	int d;

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "root"), SB_OK);
	for (d = 1; d < DEPTH; d++) {
		uint32_t p, s = next;

		for (p = level_start; p < level_end; p++)
			for (k = 0; k < FAN; k++)
				ck_assert_int_eq(sb_tree_add(t, next++, p, 1 + k,
							     NULL), SB_OK);
		level_start = s;
		level_end = next;
	}
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	n = sb_tree_count(t);
	ck_assert_uint_eq(n, 1093);
	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	/* whole GPU counts and seconds: exact sums whatever the order; leaves
	 * and inner nodes charged, some twice, some outside the window */
	for (i = 0; i < 5000; i++) {
		uint32_t ix = (uint32_t)(rnd() % n);
		int64_t from = T0 - 6 * 24 * H + (int64_t)(rnd() % (9 * 24 * H));
		int64_t len = (int64_t)(rnd() % (12 * H));
		double gpus = (double)(1 + rnd() % 8);

		ck_assert_int_eq(sb_ledger_charge(l, ix, from, from + len, gpus,
						  true), SB_OK);
	}
	sub = malloc(n * sizeof(*sub));
	own = malloc(n * sizeof(*own));
	ck_assert_int_eq(sb_ledger_usage_all(l, now, true, sub, own), SB_OK);
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t, i);
		double sum = own[i], one = sb_ledger_usage(l, i, now, true);

		for (k = 0; k < nd->nchildren; k++)
			sum += sub[nd->children[k]];
		ck_assert_msg(sub[i] == sum,
			      "node %u (depth %u): usage %.17g, expected own + "
			      "children = %.17g", nd->id, nd->depth, sub[i], sum);
		ck_assert_msg(one == sub[i],
			      "node %u: sb_ledger_usage %.17g, usage_all %.17g",
			      nd->id, one, sub[i]);
		total += own[i];
	}
	ck_assert_msg(sub[0] == total, "root %.17g, sum of all own %.17g",
		      sub[0], total);
	ck_assert_double_gt(total, 0);
	free(sub);
	free(own);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

/* ------------------------------------------------------- argument checks */

struct charge_err {
	uint32_t index;
	int64_t from, to;
	double tres;
	int rc;
};

static const struct charge_err charge_err[] = {
	{ .index = 3, .from = 0,         .to = 1,         .tres = 1,         .rc = SB_EINVAL },      /* index out of range */
	{ .index = 0, .from = 10,        .to = 5,         .tres = 1,         .rc = SB_EINVAL },      /* to < from */
	{ .index = 0, .from = -1,        .to = 5,         .tres = 1,         .rc = SB_ENEGATIVE },
	{ .index = 0, .from = 0,         .to = -5,        .tres = 1,         .rc = SB_ENEGATIVE },
	{ .index = 0, .from = 0,         .to = 5,         .tres = -1,        .rc = SB_ENEGATIVE },
	{ .index = 0, .from = 0,         .to = 5,         .tres = NAN,       .rc = SB_ERANGE },
	{ .index = 0, .from = 0,         .to = 5,         .tres = INFINITY,  .rc = SB_ERANGE },
	{ .index = 0, .from = 0,         .to = 5,         .tres = -INFINITY, .rc = SB_ENEGATIVE },
	{ .index = 0, .from = 0,         .to = 5,         .tres = 2e12,      .rc = SB_ERANGE },
	{ .index = 0, .from = 0,         .to = SB_TIME_MAX + 1, .tres = 1,         .rc = SB_ERANGE },
	{ .index = 0, .from = INT64_MIN, .to = INT64_MAX, .tres = 1,         .rc = SB_ENEGATIVE },
	{ .index = 0, .from = INT64_MAX - 1, .to = INT64_MAX, .tres = 1,         .rc = SB_ERANGE },
	{ .index = 0, .from = SB_TIME_MAX - 1, .to = SB_TIME_MAX, .tres = 1,         .rc = SB_OK },
	{ .index = 0, .from = 0,         .to = 0,         .tres = 1,         .rc = SB_OK },
};

/*
 * sb_ledger_sync: reads of a ledger synced at each read time are the same,
 * bit for bit, as those of a twin ledger never synced, whatever was
 * charged: whole TRES (the window sums are kept), fractional TRES (they
 * are not: summed in full), charges ahead of the read time, gaps longer
 * than the ring, reads at another time than the last sync.  Window of 4
 * one-hour buckets, so the window moves and the ring wraps often.
 */
static const struct {
	const char *what;
	double tres;		/* TRES per charge; 0: random whole 1..8 */
	int sync_every;		/* sync at every n-th step */
	int64_t ahead;		/* charge this far past the read time too */
	int64_t gap;		/* every 7th step jumps this far */
} sync_cases[] = {
	{ .what = "whole GPUs, synced at every read", .sync_every = 1 },
	{ .what = "whole GPUs, synced every third read", .sync_every = 3 },
	{ .what = "fractional TRES: summed in full", .tres = 0.1,
	  .sync_every = 1 },
	{ .what = "charges ahead of the read", .sync_every = 1,
	  .ahead = 2 * H },
	{ .what = "gaps longer than the ring", .sync_every = 1,
	  .gap = 9 * H },
	{ .what = "huge TRES (above the exact bound): summed in full",
	  .tres = 1e9, .sync_every = 1 },
};

START_TEST(test_sync)
{
	struct sb_tree *t = small_tree();
	struct sb_ledger *a, *b;
	double ua[3], ub[3], oa[3], ob[3];
	int64_t now = T0, step;
	uint32_t i;

	ck_assert_int_eq(sb_ledger_new(t, 4 * H, H, &a), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, 4 * H, H, &b), SB_OK);
	rng_state = 88172645463325252ULL + (uint64_t)_i;
	for (step = 0; step < 400; step++) {
		int64_t next = now + 1 + (int64_t)(rnd() % (H / 2));
		uint32_t who = (uint32_t)(rnd() % 3);
		bool al = rnd() % 4 != 0;
		double tres = sync_cases[_i].tres > 0 ? sync_cases[_i].tres :
			      (double)(1 + rnd() % 8);

		if (sync_cases[_i].gap && step % 7 == 6)
			next += sync_cases[_i].gap;
		ck_assert_int_eq(sb_ledger_charge(a, who, now, next, tres, al),
				 SB_OK);
		ck_assert_int_eq(sb_ledger_charge(b, who, now, next, tres, al),
				 SB_OK);
		if (sync_cases[_i].ahead) {
			ck_assert_int_eq(sb_ledger_charge(a, who, next, next +
					 sync_cases[_i].ahead, tres, al), SB_OK);
			ck_assert_int_eq(sb_ledger_charge(b, who, next, next +
					 sync_cases[_i].ahead, tres, al), SB_OK);
		}
		now = next;
		if (step % sync_cases[_i].sync_every == 0)
			ck_assert_int_eq(sb_ledger_sync(a, now), SB_OK);
		for (i = 0; i < 2; i++) {	/* allocated, unallocated */
			ck_assert_int_eq(sb_ledger_usage_all(a, now, !i, ua, oa),
					 SB_OK);
			ck_assert_int_eq(sb_ledger_usage_all(b, now, !i, ub, ob),
					 SB_OK);
			ck_assert_msg(!memcmp(ua, ub, sizeof(ua)) &&
				      !memcmp(oa, ob, sizeof(oa)),
				      "%s: step %lld: usage %.17g, want %.17g",
				      sync_cases[_i].what, (long long)step,
				      ua[0], ub[0]);
		}
		/* a read at another time than the sync's */
		ck_assert(sb_ledger_usage(a, 0, now - H / 3, true) ==
			  sb_ledger_usage(b, 0, now - H / 3, true));
	}
	ck_assert_int_eq(sb_ledger_sync(NULL, now), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_sync(a, -1), SB_ERANGE);
	ck_assert_int_eq(sb_ledger_sync(a, SB_TIME_MAX + 1), SB_ERANGE);
	sb_ledger_free(a);
	sb_ledger_free(b);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_charge_errors)
{
	const struct charge_err *c = &charge_err[_i];
	struct sb_tree *t = small_tree();
	struct sb_ledger *l;
	int rc;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	rc = sb_ledger_charge(l, c->index, c->from, c->to, c->tres, true);
	ck_assert_msg(rc == c->rc, "case %d: rc %d (%s), expected %d (%s)", _i,
		      rc, sb_strerror(rc), c->rc, sb_strerror(c->rc));
	if (rc)
		ck_assert_double_eq(sb_ledger_usage(l, 0, T0, true), 0);
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

struct new_err {
	int64_t window, width;
	int rc;
};

static const struct new_err new_err[] = {
	{ .window = WEEK,   .width = H,    .rc = SB_OK },
	{ .window = H,      .width = H,    .rc = SB_OK },
	{ .window = WEEK,   .width = 1,    .rc = SB_ERANGE }, /* 604800 buckets */
	{ .window = 100000, .width = 1,    .rc = SB_OK },
	{ .window = WEEK,   .width = 7000, .rc = SB_EINVAL }, /* not a multiple */
	{ .window = WEEK,   .width = 0,    .rc = SB_EINVAL },
	{ .window = 0,      .width = H,    .rc = SB_EINVAL },
	{ .window = -WEEK,  .width = H,    .rc = SB_EINVAL },
	{ .window = WEEK,   .width = -H,   .rc = SB_EINVAL },
	{ .window = H,      .width = WEEK, .rc = SB_EINVAL },
};

START_TEST(test_new_errors)
{
	const struct new_err *c = &new_err[_i];
	struct sb_tree *t = small_tree();
	struct sb_ledger *l = NULL;
	int rc = sb_ledger_new(t, c->window, c->width, &l);

	ck_assert_msg(rc == c->rc, "window %lld width %lld: rc %d, expected %d",
		      (long long)c->window, (long long)c->width, rc, c->rc);
	if (rc == SB_OK) {
		ck_assert_int_eq(sb_ledger_window(l), c->window);
		ck_assert_int_eq(sb_ledger_width(l), c->width);
	}
	sb_ledger_free(l);
	sb_tree_free(t);
}
END_TEST

START_TEST(test_null_arguments)
{
	struct sb_tree *t = sb_tree_new(), *ok = small_tree();
	struct sb_ledger *l = NULL;
	double d[3];
	char *s;

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, NULL), SB_OK);
	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_EINVAL);	/* unfinalized */
	ck_assert_int_eq(sb_ledger_new(NULL, WEEK, H, &l), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_new(ok, WEEK, H, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_charge(NULL, 0, 0, 1, 1, true), SB_EINVAL);
	ck_assert_double_eq(sb_ledger_usage(NULL, 0, T0, true), 0);
	ck_assert_int_eq(sb_ledger_usage_all(NULL, T0, true, d, NULL), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_to_json(NULL, NULL, &s), SB_EINVAL);
	ck_assert_int_eq(sb_ledger_from_json(NULL, NULL, "{}", 2, NULL, 0, NULL),
			 SB_EINVAL);
	ck_assert_int_eq(sb_ledger_new(ok, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_from_json(l, NULL, NULL, 0, NULL, 0, NULL),
			 SB_EINVAL);
	ck_assert_int_eq(sb_ledger_rebind(l, t, NULL, 0, NULL), SB_EINVAL);
	ck_assert_double_eq(sb_ledger_usage(l, 0, -5, true), 0);
	ck_assert_double_eq(sb_ledger_usage(l, 0, INT64_MAX, true), 0);
	ck_assert_int_eq(sb_ledger_usage_all(l, INT64_MIN, true, d, NULL), SB_OK);
	sb_ledger_free(l);
	sb_ledger_free(NULL);
	sb_tree_free(t);
	sb_tree_free(ok);
}
END_TEST

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

/* ------------------------------------------------------------------ rebind */

START_TEST(test_rebind)
{
	struct sb_tree *t = small_tree(), *t2 = sb_tree_new(), *t3 = sb_tree_new();
	struct sb_ledger *l;
	uint32_t dropped[2] = { 0 };
	size_t nd = 7;

	ck_assert_int_eq(sb_ledger_new(t, WEEK, H, &l), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, ix_of(t, 2), T0, T0 + 10, 1, true), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, ix_of(t, 3), T0, T0 + 20, 1, true), SB_OK);
	ck_assert_int_eq(sb_ledger_charge(l, ix_of(t, 3), T0 - 2 * H, T0 - H, 2, false), SB_OK);
	/* new tree: bob (3) is gone, alice (2) moved under a new account 5,
	 * and a new user 4 appeared */
	ck_assert_int_eq(sb_tree_add(t2, 1, 0, 1, "acct"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t2, 5, 1, 1, "sub"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t2, 2, 5, 1, "alice"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t2, 4, 1, 1, "carol"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t2), SB_OK);
	ck_assert_int_eq(sb_ledger_rebind(l, t2, dropped, 2, &nd), SB_OK);
	sb_tree_free(t);	/* the ledger no longer needs the old tree */
	/* bob's usage stays with his account: nothing dropped, nothing lost */
	ck_assert_uint_eq(nd, 0);
	ck_assert_ptr_eq(sb_ledger_tree(l), t2);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 2), T0 + 20, true), 10);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 5), T0 + 20, true), 10);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 1), T0 + 20, true), 30);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 1), T0 + 20, false), 2 * H);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 4), T0 + 20, true), 0);
	ck_assert_int_eq(sb_ledger_charge(l, ix_of(t2, 4), T0, T0 + 5, 1, true), SB_OK);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t2, 1), T0 + 20, true), 35);
	/* a tree without any of their ancestors: their usage is dropped */
	ck_assert_int_eq(sb_tree_add(t3, 9, 0, 1, "other"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t3), SB_OK);
	ck_assert_int_eq(sb_ledger_rebind(l, t3, dropped, 2, &nd), SB_OK);
	ck_assert_uint_eq(nd, 3);	/* acct 1, carol 4, alice 2 */
	ck_assert_uint_eq(dropped[0], 1);
	ck_assert_uint_eq(dropped[1], 4);
	ck_assert_double_eq(sb_ledger_usage(l, ix_of(t3, 9), T0 + 20, true), 0);
	sb_ledger_free(l);
	sb_tree_free(t2);
	sb_tree_free(t3);
}
END_TEST

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

int main(void)
{
	Suite *s = suite_create("ledger");
	TCase *tw = tcase_create("window"), *tj = tcase_create("json");
	TCase *ta = tcase_create("accrual");

	tcase_add_loop_test(tw, test_window_edge, 0, sizeof(edge) / sizeof(edge[0]));
	tcase_add_loop_test(tw, test_split, 0, sizeof(split) / sizeof(split[0]));
	tcase_add_test(tw, test_split_exact_random);
	tcase_add_test(tw, test_allocated_apart);
	tcase_add_test(tw, test_ring_recycling);
	tcase_add_test(tw, test_deep_tree_sums);
	tcase_add_loop_test(tw, test_charge_errors, 0,
			    sizeof(charge_err) / sizeof(charge_err[0]));
	tcase_add_loop_test(tw, test_new_errors, 0, sizeof(new_err) / sizeof(new_err[0]));
	tcase_add_test(tw, test_null_arguments);
	tcase_add_test(tw, test_rebind);
	tcase_add_loop_test(tw, test_sync, 0,
			    sizeof(sync_cases) / sizeof(sync_cases[0]));
	suite_add_tcase(s, tw);

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
	suite_add_tcase(s, tj);

	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_accrual_idempotent);
	tcase_add_test(ta, test_accrual_requeue);
	tcase_add_test(ta, test_accrual_restart);
	tcase_add_test(ta, test_accrual_errors);
	tcase_add_test(ta, test_accrual_many);
	tcase_add_loop_test(ta, test_ledger_fit_width, 0,
			    sizeof(fits) / sizeof(fits[0]));
	tcase_add_test(ta, test_ledger_bytes);
	suite_add_tcase(s, ta);

	return sb_check_run(s);
}
