/*
 * priority-test.c - the 32-bit job priority: layout and decoding, levels
 * from the standing, allocated above unallocated, in-team priority only
 * inside one association (tied ones included), and never 0.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "check_main.h"
#include "sb/error.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"

#define LMAX SB_PRIO_LEVEL_MAX
#define LTOP SB_PRIO_LEVEL_TOP
#define TMAX SB_PRIO_TEAM_MAX

struct compose_case {
	bool allocated;
	uint32_t level, team;
	uint32_t prio;
	uint32_t level_out, team_out;	/* after clamping */
};

static const struct compose_case compose[] = {
	/* clamped below Slurm's INFINITE/NO_VAL: decodes as in-team 1022, and
	 * the resumed bit still fits (0xFFFFFFFD) */
	{ .allocated = true,  .level = LMAX,     .team = TMAX, .prio = UINT32_C(0xFFFFFFFC),
	  .level_out = LMAX, .team_out = TMAX - 1 },
	{ .allocated = false, .level = LMAX,     .team = TMAX, .prio = UINT32_C(0x7FFFFFFE),
	  .level_out = LMAX, .team_out = TMAX },
	{ .allocated = false, .level = 1,        .team = 0,    .prio = UINT32_C(1) << 11,
	  .level_out = 1,    .team_out = 0 }, /* lowest: 2048 */
	{ .allocated = true,  .level = 1,        .team = 0,    .prio = UINT32_C(0x80000800),
	  .level_out = 1,    .team_out = 0 },
	{ .allocated = true,  .level = 2,        .team = 7,    .prio = UINT32_C(0x8000100E),
	  .level_out = 2,    .team_out = 7 },
	{ .allocated = false, .level = 0,        .team = 0,    .prio = UINT32_C(1) << 11,
	  .level_out = 1,    .team_out = 0 }, /* level clamped up */
	{ .allocated = false, .level = LMAX + 5, .team = 0,    .prio = LMAX << 11,
	  .level_out = LMAX, .team_out = 0 }, /* and down */
	{ .allocated = true,  .level = 3,        .team = 5000, .prio = UINT32_C(0x80000000) | 3 << 11 | TMAX << 1,
	  .level_out = 3,    .team_out = TMAX },
	{ .allocated = false, .level = 1000,     .team = SB_PRIO_TEAM_DEFAULT, .prio = 1000 << 11 | 512 << 1,
	  .level_out = 1000, .team_out = 512 },
};

START_TEST(test_compose_decode)
{
	const struct compose_case *c = &compose[_i];
	struct sb_priority_parts p;
	uint32_t prio = sb_priority_compose(c->allocated, c->level, c->team);

	ck_assert_msg(prio == c->prio, "compose(%d, %u, %u) = 0x%08x, expected "
		      "0x%08x", c->allocated, c->level, c->team, prio, c->prio);
	ck_assert_int_eq(sb_priority_decode(prio, &p), SB_OK);
	ck_assert(!p.resumed);
	ck_assert_int_eq(sb_priority_decode(prio | SB_PRIO_RESUMED, &p), SB_OK);
	ck_assert(p.resumed);
	ck_assert_msg(p.allocated == c->allocated && p.level == c->level_out &&
		      p.in_team == c->team_out,
		      "decode(0x%08x) = {%d, %u, %u}, expected {%d, %u, %u}", prio,
		      p.allocated, p.level, p.in_team, c->allocated, c->level_out,
		      c->team_out);
}
END_TEST

START_TEST(test_decode_foreign)
{
	static const uint32_t foreign[] = { 0, 1, 1023, 2047,
					    UINT32_C(0x80000000),
					    UINT32_C(0x800007FF) };
	struct sb_priority_parts p;
	size_t i;

	for (i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++)
		ck_assert_msg(sb_priority_decode(foreign[i], &p) == SB_EINVAL,
			      "0x%08x decoded, expected SB_EINVAL", foreign[i]);
	ck_assert_int_eq(sb_priority_decode(UINT32_C(0xFFFFFFFF), NULL), SB_EINVAL);
}
END_TEST

struct level_case {
	uint32_t position, count, level;
};

static const struct level_case levels[] = {
	{ .position = 0,        .count = 0,    .level = LTOP },
	{ .position = 0,        .count = 1,    .level = LTOP },
	{ .position = 0,        .count = 2,    .level = LTOP },
	{ .position = 1,        .count = 2,    .level = 1 },
	{ .position = 1,        .count = 3,    .level = 1 + (LTOP - 1) / 2 },
	{ .position = 2,        .count = 3,    .level = 1 },
	{ .position = 3,        .count = 3,    .level = 1 },                  /* out of range */
	{ .position = UINT32_MAX, .count = 3,    .level = 1 },
	{ .position = 0,        .count = LTOP, .level = LTOP },
	{ .position = 1,        .count = LTOP, .level = LTOP - 1 },
	{ .position = LTOP - 1, .count = LTOP, .level = 1 },
	{ .position = 0,        .count = LMAX, .level = LTOP },               /* the lane's level is no standing's */
	{ .position = 0,        .count = UINT32_MAX, .level = LTOP },
	{ .position = UINT32_MAX - 1, .count = UINT32_MAX, .level = 1 },
};

START_TEST(test_level)
{
	const struct level_case *c = &levels[_i];
	uint32_t got = sb_priority_level(c->position, c->count);

	ck_assert_msg(got == c->level, "level(%u of %u) = %u, expected %u",
		      c->position, c->count, got, c->level);
}
END_TEST

/* Distinct positions get distinct, decreasing levels up to LMAX of them. */
START_TEST(test_level_monotone)
{
	static const uint32_t counts[] = { 2, 3, 10, 1000, 10007, 65536, LTOP };
	size_t c;
	uint32_t p;

	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		uint32_t n = counts[c], prev = sb_priority_level(0, n);

		ck_assert_uint_eq(prev, LTOP);
		for (p = 1; p < n; p++) {
			uint32_t l = sb_priority_level(p, n);

			if (l >= prev)
				ck_abort_msg("count %u: level(%u) = %u not below "
					     "level(%u) = %u", n, p, l, p - 1, prev);
			prev = l;
		}
		ck_assert_uint_eq(prev, 1);
	}
	/* beyond LMAX associations neighbours may share, never invert */
	{
		uint32_t n = LMAX + 1000, prev = LTOP;

		for (p = 1; p < n; p++) {
			uint32_t l = sb_priority_level(p, n);

			if (l > prev)
				ck_abort_msg("count %u: level(%u) = %u above %u", n,
					     p, l, prev);
			prev = l;
		}
	}
}
END_TEST

/* --------------------------------------------------- with a real standing */

/*
 * Budgets: top-level accounts "ml" (3 shares) and "cv" (1 share); users
 * ml/a, ml/b, cv/c; plus "idle1" and "idle2", two idle top-level users
 * that are exactly tied, and "zero" with no budget.
 */
enum { ML = 1, CV = 2, A = 11, B = 12, C = 21, I1 = 3, I2 = 4, Z = 5 };

static struct sb_tree *budget_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_int_eq(sb_tree_add(t, ML, 0, 3, "ml"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, CV, 0, 1, "cv"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, A, ML, 1, "a"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, B, ML, 1, "b"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, C, CV, 1, "c"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, I1, 0, 1, "idle1"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, I2, 0, 1, "idle2"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, Z, 0, 0, "zero"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	return t;
}

static uint32_t ix_of(const struct sb_tree *t, uint32_t id)
{
	uint32_t ix = SB_NONE;

	ck_assert_int_eq(sb_tree_index(t, id, &ix), SB_OK);
	return ix;
}

/* ml used 3x as much as cv (fair), a more than b, zero a lot. */
static struct sb_standing *budget_standing(const struct sb_tree *t)
{
	struct sb_standing *st;
	double u[8] = { 0 };

	u[ix_of(t, A)] = 200;
	u[ix_of(t, B)] = 100;
	u[ix_of(t, ML)] = 300;
	u[ix_of(t, C)] = 100;
	u[ix_of(t, CV)] = 100;
	u[ix_of(t, Z)] = 5000;
	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	ck_assert_int_eq(sb_standing_compute_usage(st, u), SB_OK);
	return st;
}

struct job {
	uint32_t assoc_id;
	bool allocated;
	uint32_t team;
};

/*
 * Expected order, best first: allocated jobs by standing (idle1 = idle2
 * first, then b, c tied... see below), then the unallocated ones the same
 * way.  Standing: idle1, idle2 (idle, tied; ids break the tie), then ml and
 * cv are tied (LF 1), merged: b (LF 1.5) then c (LF 1) then a (LF 0.75),
 * then zero.
 */
START_TEST(test_scenario_order)
{
	static const uint32_t order[] = { I1, I2, B, C, A, Z };
	struct sb_tree *t = budget_tree();
	struct sb_standing *st = budget_standing(t);
	size_t i, j;

	for (i = 0; i + 1 < sizeof(order) / sizeof(order[0]); i++) {
		for (j = i + 1; j < sizeof(order) / sizeof(order[0]); j++) {
			int al;

			for (al = 0; al < 2; al++) {
				/* the better budget's lowest job beats the worse
				 * budget's highest */
				uint32_t hi = sb_priority_job(st, ix_of(t, order[i]),
							      al, 0);
				uint32_t lo = sb_priority_job(st, ix_of(t, order[j]),
							      al, TMAX);

				ck_assert_msg(hi > lo, "%s: assoc %u team 0 (0x%08x) "
					      "not above assoc %u team max (0x%08x)",
					      al ? "allocated" : "unallocated",
					      order[i], hi, order[j], lo);
			}
		}
	}
	sb_standing_free(st);
	sb_tree_free(t);
}
END_TEST

/* Every allocated job above every unallocated one, whatever else. */
START_TEST(test_allocated_above_unallocated)
{
	static const uint32_t ids[] = { ML, CV, A, B, C, I1, I2, Z };
	static const uint32_t teams[] = { 0, 1, 512, TMAX, 70000 };
	struct sb_tree *t = budget_tree();
	struct sb_standing *st = budget_standing(t);
	uint32_t min_alloc = UINT32_MAX, max_unalloc = 0;
	size_t i, k;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		for (k = 0; k < sizeof(teams) / sizeof(teams[0]); k++) {
			uint32_t a = sb_priority_job(st, ix_of(t, ids[i]), true, teams[k]);
			uint32_t u = sb_priority_job(st, ix_of(t, ids[i]), false, teams[k]);

			min_alloc = a < min_alloc ? a : min_alloc;
			max_unalloc = u > max_unalloc ? u : max_unalloc;
		}
	}
	ck_assert_msg(min_alloc > max_unalloc, "lowest allocated 0x%08x, highest "
		      "unallocated 0x%08x", min_alloc, max_unalloc);
	/* even the best possible unallocated number */
	ck_assert_uint_gt(sb_priority_job(st, ix_of(t, Z), true, 0),
			  sb_priority_compose(false, LMAX, TMAX));
	sb_standing_free(st);
	sb_tree_free(t);
}
END_TEST

/*
 * In-team priority orders one association's jobs and nothing else: higher
 * in-team priority, higher number, within the association; equal in-team
 * priority, equal numbers (FIFO decides); and never across associations,
 * not even between the two exactly tied idle ones.
 */
START_TEST(test_in_team_only_within)
{
	static const uint32_t ids[] = { ML, CV, A, B, C, I1, I2, Z };
	struct sb_tree *t = budget_tree();
	struct sb_standing *st = budget_standing(t);
	size_t i, j;
	uint32_t k;
	int al;

	for (al = 0; al < 2; al++) {
		for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
			uint32_t ix = ix_of(t, ids[i]);

			/* strictly increasing, but for the top value of
			 * the best allocated level (kept off 0xFFFFFFFE/F) */
			for (k = 1; k <= TMAX; k++)
				if (sb_priority_job(st, ix, al, k) < UINT32_C(0xFFFFFFFC))
					ck_assert_uint_gt(sb_priority_job(st, ix, al, k),
							  sb_priority_job(st, ix, al, k - 1));
				else
					ck_assert_uint_ge(sb_priority_job(st, ix, al, k),
							  sb_priority_job(st, ix, al, k - 1));
			ck_assert_uint_eq(sb_priority_job(st, ix, al, 77),
					  sb_priority_job(st, ix, al, 77));
			for (j = 0; j < sizeof(ids) / sizeof(ids[0]); j++) {
				uint32_t jx = ix_of(t, ids[j]);
				uint32_t lo_i = sb_priority_job(st, ix, al, 0);
				uint32_t hi_i = sb_priority_job(st, ix, al, TMAX);
				uint32_t lo_j = sb_priority_job(st, jx, al, 0);
				uint32_t hi_j = sb_priority_job(st, jx, al, TMAX);

				if (i == j)
					continue;
				/* the two ranges of numbers do not overlap */
				ck_assert_msg(hi_i < lo_j || hi_j < lo_i,
					      "assoc %u [0x%08x, 0x%08x] overlaps "
					      "assoc %u [0x%08x, 0x%08x]", ids[i],
					      lo_i, hi_i, ids[j], lo_j, hi_j);
			}
		}
	}
	/* the idle pair is tied in the standing, yet kept apart here */
	ck_assert_uint_eq(sb_standing_node(st, ix_of(t, I1))->rank,
			  sb_standing_node(st, ix_of(t, I2))->rank);
	ck_assert_uint_gt(sb_priority_job(st, ix_of(t, I1), true, 0),
			  sb_priority_job(st, ix_of(t, I2), true, TMAX));
	sb_standing_free(st);
	sb_tree_free(t);
}
END_TEST

/* The less used budget (relative to its share) first; then swap usage. */
START_TEST(test_less_used_first)
{
	struct sb_tree *t = sb_tree_new();
	struct sb_standing *st;
	double u[2];

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 3, "three"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 1, "one"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
	/* 3:1 shares, 2:1 usage: "three" is below its entitlement */
	u[0] = 2 * 3600;
	u[1] = 3600;
	ck_assert_int_eq(sb_standing_compute_usage(st, u), SB_OK);
	ck_assert_uint_gt(sb_priority_job(st, 0, true, 0),
			  sb_priority_job(st, 1, true, TMAX));
	/* 3:1 shares, 4:1 usage: now "one" is */
	u[0] = 4 * 3600;
	ck_assert_int_eq(sb_standing_compute_usage(st, u), SB_OK);
	ck_assert_uint_gt(sb_priority_job(st, 1, true, 0),
			  sb_priority_job(st, 0, true, TMAX));
	sb_standing_free(st);
	sb_tree_free(t);
}
END_TEST

/* Never 0: any standing, any index, any tier and in-team priority. */
START_TEST(test_never_zero)
{
	static const uint32_t teams[] = { 0, 1, TMAX, UINT32_MAX };
	struct sb_tree *t = budget_tree();
	struct sb_standing *st, *fresh;
	uint32_t i;
	size_t k;
	int al;

	st = budget_standing(t);
	ck_assert_int_eq(sb_standing_new(t, &fresh), SB_OK);	/* not computed */
	for (al = 0; al < 2; al++) {
		for (k = 0; k < sizeof(teams) / sizeof(teams[0]); k++) {
			for (i = 0; i < 10; i++) {	/* 8 valid, 2 out of range */
				ck_assert_uint_ne(sb_priority_job(st, i, al, teams[k]), 0);
				ck_assert_uint_ne(sb_priority_job(fresh, i, al, teams[k]), 0);
			}
			ck_assert_uint_ne(sb_priority_job(NULL, 0, al, teams[k]), 0);
			ck_assert_uint_ne(sb_priority_compose(al, 0, teams[k]), 0);
		}
	}
	/* out of range: the lowest level of the job's tier */
	ck_assert_uint_eq(sb_priority_job(st, 99, true, 3),
			  sb_priority_compose(true, 1, 3));
	sb_standing_free(st);
	sb_standing_free(fresh);
	sb_tree_free(t);
}
END_TEST

/*
 * Random standings and jobs: comparing two priorities is comparing
 * (tier, strict standing position, in-team priority) lexicographically.
 */
START_TEST(test_lexicographic_random)
{
	uint64_t r = 12345;
	int round;

	for (round = 0; round < 50; round++) {
		struct sb_tree *t = sb_tree_new();
		struct sb_standing *st;
		uint32_t n = 2 + (uint32_t)(round * 37 % 500), i, k;
		double *u;

		for (i = 0; i < n; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			ck_assert_int_eq(sb_tree_add(t, i + 1,
						     i ? (uint32_t)((r >> 33) % (i + 1)) : 0,
						     (r >> 20) % 5, NULL), SB_OK);
		}
		ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
		u = calloc(n, sizeof(*u));
		for (i = 0; i < n; i++) {
			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			u[i] = (double)((r >> 40) % 4) * 3600;
		}
		for (i = n; i-- > 0;)
			if (sb_tree_node(t, i)->parent != SB_NONE)
				u[sb_tree_node(t, i)->parent] += u[i];
		ck_assert_int_eq(sb_standing_new(t, &st), SB_OK);
		ck_assert_int_eq(sb_standing_compute_usage(st, u), SB_OK);
		for (k = 0; k < 2000; k++) {
			uint32_t x, y, tx, ty, px, py, pos_x, pos_y;
			bool ax, ay, want_gt, want_eq;

			r = r * 6364136223846793005ULL + 1442695040888963407ULL;
			x = (uint32_t)(r >> 33) % n;
			y = (uint32_t)(r >> 13) % n;
			ax = (r >> 7) & 1;
			ay = (r >> 8) & 1;
			tx = (uint32_t)(r >> 50) % 4 * 300;
			ty = (uint32_t)(r >> 45) % 4 * 300;
			px = sb_priority_job(st, x, ax, tx);
			py = sb_priority_job(st, y, ay, ty);
			pos_x = sb_standing_node(st, x)->position;
			pos_y = sb_standing_node(st, y)->position;
			want_gt = ax != ay ? ax :
				  pos_x != pos_y ? pos_x < pos_y : tx > ty;
			want_eq = ax == ay && x == y && tx == ty;
			ck_assert_msg(px != 0 && (px > py) == want_gt &&
				      (px == py) == want_eq,
				      "jobs (assoc %u pos %u, %s, team %u) = 0x%08x and "
				      "(assoc %u pos %u, %s, team %u) = 0x%08x", x,
				      pos_x, ax ? "alloc" : "unalloc", tx, px, y, pos_y,
				      ay ? "alloc" : "unalloc", ty, py);
		}
		sb_standing_free(st);
		sb_tree_free(t);
		free(u);
	}
}
END_TEST

/* The top of the range stays clear of Slurm's INFINITE and NO_VAL. */
START_TEST(test_never_slurm_sentinels)
{
	uint32_t p = sb_priority_compose(true, SB_PRIO_LEVEL_MAX, SB_PRIO_TEAM_MAX);

	ck_assert_uint_eq(p, UINT32_C(0xFFFFFFFC));
	ck_assert_uint_eq(p | SB_PRIO_RESUMED, UINT32_C(0xFFFFFFFD));
	ck_assert_uint_eq(sb_priority_compose(true, SB_PRIO_LEVEL_MAX, 1022), p);
	ck_assert_uint_eq(sb_priority_compose(true, SB_PRIO_LEVEL_MAX, 1021), p - 2);
	ck_assert_uint_eq(sb_priority_compose(false, SB_PRIO_LEVEL_MAX, 1023),
			  UINT32_C(0x7FFFFFFE));
}
END_TEST

/* --------------------------------------------- an administrator's priority */

static const struct { uint32_t admin, in_team; } admins[] = {
	{ .admin = 1,      .in_team = 1 },
	{ .admin = 100,    .in_team = 100 },
	{ .admin = 512,    .in_team = 512 },
	{ .admin = 1022,   .in_team = 1022 },
	{ .admin = 1023,   .in_team = 1023 },
	{ .admin = 1024,   .in_team = 1023 },
	{ .admin = 100000, .in_team = 1023 },
	{ .admin = UINT32_C(0xFFFFFFFE), .in_team = 1023 },
	{ .admin = 0,      .in_team = 0 },
};

/* In-team priority from nice and the QOS's normalised Priority. */
struct in_team_case {
	const char *what;
	int64_t nice;
	double qos_norm;
	uint32_t want;
};

static const struct in_team_case in_teams[] = {
	{ .what = "no nice, a Priority-0 QOS: the default", .nice = 0,          .qos_norm = 0,
	  .want = 512 },
	{ .what = "--nice=100",                             .nice = 100,        .qos_norm = 0,
	  .want = 412 },
	{ .what = "--nice=-100 (administrator)",            .nice = -100,       .qos_norm = 0,
	  .want = 612 },
	{ .what = "the top QOS: first in the team",         .nice = 0,          .qos_norm = 1,
	  .want = 1023 },
	{ .what = "a QOS of half the top Priority",         .nice = 0,          .qos_norm = 0.5,
	  .want = 768 },
	{ .what = "half the top, --nice=300",               .nice = 300,        .qos_norm = 0.5,
	  .want = 468 },
	{ .what = "top QOS with --nice=511: the default again", .nice = 511,        .qos_norm = 1,
	  .want = 512 },
	{ .what = "above 1: as 1",                          .nice = 0,          .qos_norm = 7,
	  .want = 1023 },
	{ .what = "negative: as 0",                         .nice = 0,          .qos_norm = -0.5,
	  .want = 512 },
	{ .what = "NaN: as 0",                              .nice = 0,          .qos_norm = NAN,
	  .want = 512 },
	{ .what = "a huge nice: 0",                         .nice = 2147483647, .qos_norm = 1,
	  .want = 0 },
	{ .what = "nice beyond the top QOS: 0, never negative", .nice = 1100,       .qos_norm = 1,
	  .want = 0 },
	{ .what = "a huge negative nice: the maximum",      .nice = INT64_MIN,  .qos_norm = 0,
	  .want = 1023 },
	{ .what = "nice -1023 with the top QOS: the maximum", .nice = -1023,      .qos_norm = 1,
	  .want = 1023 },
};

START_TEST(test_in_team)
{
	const struct in_team_case *c = &in_teams[_i];
	uint32_t got = sb_priority_in_team(c->nice, c->qos_norm);

	ck_assert_msg(got == c->want, "%s: %u, want %u", c->what, got, c->want);
	/* the QOS's part never exceeds what it adds from the default */
	ck_assert_uint_le(sb_priority_qos_part(c->qos_norm), SB_PRIO_QOS_MAX);
}
END_TEST

START_TEST(test_admin_in_team)
{
	ck_assert_uint_eq(sb_priority_admin_in_team(admins[_i].admin),
			  admins[_i].in_team);
}
END_TEST

/* Whatever the administrator's number, an allocated job stays above every
 * unallocated one (and so can preempt them), an unallocated one below every
 * allocated one, and the budget's standing still decides between budgets;
 * within one budget and level, the larger number goes first. */
START_TEST(test_admin_keeps_tier_and_level)
{
	uint32_t i, j;

	for (i = 0; i < sizeof(admins) / sizeof(admins[0]); i++) {
		uint32_t t = sb_priority_admin_in_team(admins[i].admin);
		struct sb_priority_parts parts;

		ck_assert_uint_gt(sb_priority_compose(true, 1, t),
				  sb_priority_compose(false, SB_PRIO_LEVEL_MAX,
						      SB_PRIO_TEAM_MAX));
		ck_assert_uint_lt(sb_priority_compose(false, SB_PRIO_LEVEL_MAX, t),
				  sb_priority_compose(true, 1, 0));
		ck_assert_uint_lt(sb_priority_compose(true, 7, t),
				  sb_priority_compose(true, 8, 0));
		ck_assert_int_eq(sb_priority_decode(sb_priority_compose(true, 7, t),
						    &parts), SB_OK);
		ck_assert(parts.allocated);
		ck_assert_uint_eq(parts.level, 7);
		for (j = 0; j < sizeof(admins) / sizeof(admins[0]); j++)
			if (admins[i].admin > admins[j].admin &&
			    admins[j].admin < SB_PRIO_TEAM_MAX)
				ck_assert_uint_gt(
					sb_priority_compose(true, 7, t),
					sb_priority_compose(true, 7,
						sb_priority_admin_in_team(
							admins[j].admin)));
	}
}
END_TEST


/* ----------------------------------------------------- sb_priority_resumed */

struct resumed_case {
	const char *what;
	uint32_t prio;
	bool pending, requeued;
	uint32_t want;
};

static const struct resumed_case resumeds[] = {
	{ .what = "pending after a requeue: the bit set",
	  .prio = 0x80000C02, .pending = true,  .requeued = true,  .want = 0x80000C03 },
	{ .what = "pending, never ran: unchanged",
	  .prio = 0x80000C02, .pending = true,  .requeued = false, .want = 0x80000C02 },
	{ .what = "running again after a requeue: unchanged",
	  .prio = 0x80000C02, .pending = false, .requeued = true,  .want = 0x80000C02 },
	{ .what = "running, never requeued: unchanged",
	  .prio = 0x00000802, .pending = false, .requeued = false, .want = 0x00000802 },
	{ .what = "already set: stays set",
	  .prio = 0x00000803, .pending = true,  .requeued = true,  .want = 0x00000803 },
	{ .what = "already set, not pending: left as given",
	  .prio = 0x00000803, .pending = false, .requeued = false, .want = 0x00000803 },
	{ .what = "unallocated tier, lowest level",
	  .prio = 0x00000800, .pending = true,  .requeued = true,  .want = 0x00000801 },
};

START_TEST(test_resumed)
{
	const struct resumed_case *c = &resumeds[_i];
	uint32_t got = sb_priority_resumed(c->prio, c->pending, c->requeued);

	ck_assert_msg(got == c->want, "%s: got %#x, want %#x", c->what, got,
		      c->want);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("priority");
	TCase *tc = tcase_create("priority");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_compose_decode, 0,
			    sizeof(compose) / sizeof(compose[0]));
	tcase_add_test(tc, test_decode_foreign);
	tcase_add_loop_test(tc, test_level, 0, sizeof(levels) / sizeof(levels[0]));
	tcase_add_test(tc, test_level_monotone);
	tcase_add_test(tc, test_scenario_order);
	tcase_add_test(tc, test_allocated_above_unallocated);
	tcase_add_test(tc, test_in_team_only_within);
	tcase_add_test(tc, test_less_used_first);
	tcase_add_test(tc, test_never_zero);
	tcase_add_test(tc, test_lexicographic_random);
	tcase_add_test(tc, test_never_slurm_sentinels);
	tcase_add_loop_test(tc, test_in_team, 0,
			    sizeof(in_teams) / sizeof(in_teams[0]));
	tcase_add_loop_test(tc, test_admin_in_team, 0,
			    sizeof(admins) / sizeof(admins[0]));
	tcase_add_test(tc, test_admin_keeps_tier_and_level);
	tcase_add_loop_test(tc, test_resumed, 0,
			    sizeof(resumeds) / sizeof(resumeds[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
