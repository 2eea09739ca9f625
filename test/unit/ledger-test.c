/*
 * ledger-test.c - usage in buckets over the lookback window: when a bucket
 * leaves the window, how a charge is split across buckets, parent = sum of
 * children, the argument checks, sync, and rebinding to a changed tree.
 * Save/load is in ledger-json-test.c, the accrual record that keeps
 * periodic charging from counting anything twice in ledger-accrual-test.c.
 */
#include <check.h>
#include <json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "ledger-test.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/tree.h"

static uint32_t ix_of(const struct sb_tree *t, uint32_t id)
{
	uint32_t ix = SB_NONE;

	ck_assert_int_eq(sb_tree_index(t, id, &ix), SB_OK);
	return ix;
}

/* Deterministic xorshift64* for reproducible "random" cases. */
uint64_t rng_state = 88172645463325252ULL;

uint64_t rnd(void)
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

int main(void)
{
	Suite *s = suite_create("ledger");
	TCase *tw = tcase_create("window");

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
	suite_add_tcase(s, ledger_json_tcase());
	suite_add_tcase(s, ledger_accrual_tcase());

	return sb_check_run(s);
}
