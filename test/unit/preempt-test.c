/*
 * preempt-test.c - who may preempt whom (every rule, in its order), the
 * victim order, the action taken, the config keys, and repair release.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "sb/config.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/wait.h"

/* a batch job that allows requeue (requeueable), as most are */
#define ALLOC(mr, res) { (mr), (res), true, true }
#define UNALLOC(res) { 0, (res), false, true }
/* one that cannot be requeued: --no-requeue, or salloc/srun */
#define ALLOC_NRQ(mr) { (mr), false, true, false }
#define UNALLOC_NRQ { 0, false, false, false }
/* sb_priority_compose(al, lvl, default in-team), as a constant */
#define P(al, lvl) ((al) ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) | \
	(uint32_t)(lvl) << SB_PRIO_LEVEL_SHIFT | \
	SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT

struct check_case {
	const char *what;
	struct sb_preempt_job preemptor, victim;
	int64_t now;
	enum sb_nonresumable nonres;
	enum sb_preempt_verdict want;
};

static const struct check_case checks[] = {
	{ "allocated takes unallocated at once",
	  { ALLOC(60, true), 0, P(true, 5), 1 , 0}, { UNALLOC(true), 100, P(false, 9), 1 , 0},
	  100, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_YES },
	{ "unallocated never preempts, even an unallocated job",
	  { UNALLOC(true), 0, P(false, 9), 1 , 0}, { UNALLOC(true), 0, P(false, 1), 1 , 0},
	  1000, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_UNALLOCATED },
	{ "unallocated never preempts an allocated job past its min runtime",
	  { UNALLOC(true), 0, P(false, 9), 1 , 0}, { ALLOC(10, true), 0, P(true, 1), 1 , 0},
	  1000, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_UNALLOCATED },
	{ "inside the min runtime: protected, whatever the standing",
	  { ALLOC(60, true), 0, P(true, 999), 1 , 0}, { ALLOC(30, true), 100, P(true, 1), 1 , 0},
	  129, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_PROTECTED },
	{ "at start + min runtime exactly: preemptable",
	  { ALLOC(60, true), 0, P(true, 999), 1 , 0}, { ALLOC(30, true), 100, P(true, 1), 1 , 0},
	  130, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_YES },
	{ "past min runtime, victim's standing equal: kept",
	  { ALLOC(60, true), 0, P(true, 7), 1 , 0}, { ALLOC(30, true), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_OUTRANKED },
	{ "past min runtime, victim's standing better: kept",
	  { ALLOC(60, true), 0, P(true, 7), 1 , 0}, { ALLOC(30, true), 0, P(true, 8), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_OUTRANKED },
	{ "past min runtime, preemptor's standing better: taken",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC(30, true), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_YES },
	{ "a requeued (resumed) teammate of equal standing: kept",
	  { ALLOC(60, true), 0, P(true, 7) | SB_PRIO_RESUMED, 1 , 0}, { ALLOC(30, true), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_OUTRANKED },
	{ "not resumable, site cancels: taken",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC(30, false), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_YES },
	{ "not resumable, requeued by default: taken",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC(30, false), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_REQUEUE, SB_PREEMPT_YES },
	{ "--no-requeue, requeued by default: taken (cancelled)",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC_NRQ(30), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_REQUEUE, SB_PREEMPT_YES },
	{ "--no-requeue, site keeps: kept",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC_NRQ(30), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_KEEP, SB_PREEMPT_KEPT },
	{ "not resumable, site keeps: kept",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC(30, false), 0, P(true, 7), 1 , 0},
	  500, SB_NONRESUMABLE_KEEP, SB_PREEMPT_KEPT },
	{ "unallocated, not resumable, site keeps: kept",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { UNALLOC(false), 0, P(false, 7), 1 , 0},
	  500, SB_NONRESUMABLE_KEEP, SB_PREEMPT_KEPT },
	{ "protection is checked before standing",
	  { ALLOC(60, true), 0, P(true, 1), 1 , 0}, { ALLOC(30, true), 490, P(true, 9), 1 , 0},
	  500, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_PROTECTED },
	{ "a start in the far future never overflows",
	  { ALLOC(60, true), 0, P(true, 8), 1 , 0}, { ALLOC(30, true), INT64_MAX - 5, P(true, 7), 1 , 0},
	  INT64_MAX - 1, SB_NONRESUMABLE_CANCEL, SB_PREEMPT_PROTECTED },
};

START_TEST(test_p_macro)
{
	ck_assert_uint_eq(P(true, 7), sb_priority_compose(true, 7, SB_PRIO_TEAM_DEFAULT));
	ck_assert_uint_eq(P(false, 9), sb_priority_compose(false, 9, SB_PRIO_TEAM_DEFAULT));
}
END_TEST

START_TEST(test_check)
{
	const struct check_case *c = &checks[_i];
	struct sb_preempt_policy pol;
	enum sb_preempt_verdict v;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	v = sb_preempt_check(&pol, &c->preemptor, &c->victim, c->now);
	ck_assert_msg(v == c->want, "%s: got %d (%s), want %d (%s)", c->what, v,
		      sb_preempt_verdict_str(v), c->want,
		      sb_preempt_verdict_str(c->want));
}
END_TEST

START_TEST(test_check_null)
{
	struct sb_preempt_job j = { ALLOC(1, true), 0, P(true, 2), 1 , 0};

	ck_assert_int_eq(sb_preempt_check(NULL, NULL, &j, 0), SB_PREEMPT_UNALLOCATED);
	ck_assert_int_eq(sb_preempt_check(NULL, &j, NULL, 0), SB_PREEMPT_UNALLOCATED);
	/* NULL policy: the defaults (requeue: the victim restarts) */
	j.contract.resumable = false;
	ck_assert_int_eq(sb_preempt_check(NULL, &(struct sb_preempt_job){
		ALLOC(1, true), 0, P(true, 9), 1 , 0}, &j, 10), SB_PREEMPT_YES);
	ck_assert_str_eq(sb_preempt_verdict_str(SB_PREEMPT_PROTECTED),
			 "inside its minimum runtime");
	ck_assert_str_eq(sb_preempt_verdict_str((enum sb_preempt_verdict)77),
			 "unknown verdict");
}
END_TEST

/* The static relation: allocated over unallocated only. */
START_TEST(test_static)
{
	struct sb_contract a = ALLOC(5, true), u = UNALLOC(true);

	ck_assert(sb_preempt_static(&a, &u));
	ck_assert(!sb_preempt_static(&u, &a));
	ck_assert(!sb_preempt_static(&a, &a));
	ck_assert(!sb_preempt_static(&u, &u));
	ck_assert(!sb_preempt_static(NULL, &u));
	ck_assert(!sb_preempt_static(&a, NULL));
}
END_TEST

/* Victim order: unallocated, then resumable, then least work lost, then
 * lowest standing. */
struct order_case {
	const char *what;
	struct sb_preempt_job first, second;	/* first must go first */
	int64_t now;
};

static const struct order_case orders[] = {
	{ "unallocated before allocated, even a long unallocated run",
	  { UNALLOC(true), 0, P(false, 999), 8 , 0}, { ALLOC(5, true), 990, P(true, 1), 1 , 0}, 1000 },
	{ "unallocated non-resumable before allocated resumable",
	  { UNALLOC(false), 0, P(false, 999), 8 , 0}, { ALLOC(5, true), 999, P(true, 1), 1 , 0}, 1000 },
	{ "resumable before not resumable, though it ran far longer",
	  { ALLOC(5, true), 0, P(true, 9), 8 , 0}, { ALLOC(5, false), 999, P(true, 1), 1 , 0}, 1000 },
	{ "unallocated: resumable before not resumable",
	  { UNALLOC(true), 0, P(false, 9), 8 , 0}, { UNALLOC(false), 999, P(false, 1), 1 , 0}, 1000 },
	{ "resumable before a --no-requeue job",
	  { ALLOC(5, true), 0, P(true, 9), 8 , 0}, { ALLOC_NRQ(5), 999, P(true, 1), 1 , 0}, 1000 },
	{ "resumable whose requeue Slurm cannot do counts as losing its run",
	  { ALLOC(5, false), 999, P(true, 9), 1 , 0}, { { 5, true, true, false }, 0, P(true, 1), 8 , 0}, 1000 },
	{ "less work lost first, whatever the standing (8x the GPU-s)",
	  { ALLOC(5, true), 990, P(true, 9), 1 , 0}, { ALLOC(5, true), 920, P(true, 3), 1 , 0}, 1000 },
	{ "less work lost first (fewer GPUs)",
	  { ALLOC(5, true), 0, P(true, 3), 1 , 0}, { ALLOC(5, true), 0, P(true, 3), 8 , 0}, 1000 },
	{ "less work lost first (shorter run)",
	  { ALLOC(5, true), 900, P(true, 3), 4 , 0}, { ALLOC(5, true), 0, P(true, 3), 4 , 0}, 1000 },
	{ "about the same work lost (one 9% step): lower standing first",
	  { ALLOC(5, true), 0, P(true, 3), 4 , 0}, { ALLOC(5, true), 1, P(true, 4), 4 , 0}, 1000 },
	{ "same key: the later start first",
	  { ALLOC(5, true), 999, P(true, 3), 4 , 0}, { ALLOC(5, true), 998, P(true, 3), 4 , 0}, 100000000 },
	{ "unallocated among themselves: less work lost first",
	  { UNALLOC(true), 900, P(false, 3), 1 , 0}, { UNALLOC(true), 0, P(false, 2), 8 , 0}, 1000 },
};

START_TEST(test_order)
{
	const struct order_case *c = &orders[_i];

	ck_assert_msg(sb_preempt_victim_cmp(&c->first, &c->second, c->now) < 0,
		      "%s: keys 0x%08x 0x%08x", c->what,
		      sb_preempt_victim_key(&c->first, c->now),
		      sb_preempt_victim_key(&c->second, c->now));
	ck_assert(sb_preempt_victim_cmp(&c->second, &c->first, c->now) > 0);
	ck_assert_int_eq(sb_preempt_victim_cmp(&c->first, &c->first, c->now), 0);
}
END_TEST

/* The key's fields, hand-computed. */
START_TEST(test_key)
{
	struct sb_preempt_job j = { ALLOC(5, true), 100, P(true, 3), 2 , 0};

	/* 2 GPUs x 127 s = 254 GPU-s: floor(8 * log2(255)) = 63 */
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0x80000000) | 63 << 20 | 3);
	/* not started yet / clock skew: no work lost */
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 50),
			  UINT32_C(0x80000000) | 3);
	/* not resumable: bit 30 */
	j.contract.resumable = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0xc0000000) | 63 << 20 | 3);
	/* resumable, but Slurm cannot requeue it: loses its run as well */
	j.contract.resumable = true;
	j.contract.requeueable = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0xc0000000) | 63 << 20 | 3);
	j.contract.requeueable = true;
	/* unallocated and resumable: neither top bit */
	j.contract.allocated = false;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227), 63 << 20 | 3);
	j.contract.allocated = true;
	/* the largest run there can be still fits the 10 bits:
	 * floor(8 * log2(2^64 * 2^63)) = 1016 */
	j.tres = UINT64_MAX;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, INT64_MAX) >> 20 & 1023, 1016);
	ck_assert_uint_eq(sb_preempt_victim_key(&j, INT64_MAX) & 0xfffff, 3);
	/* the highest standing level fills bits 0-19 and no more */
	j.priority = P(true, SB_PRIO_LEVEL_MAX);
	j.tres = 0;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227),
			  UINT32_C(0x80000000) | SB_PRIO_LEVEL_MAX);
	/* a foreign priority (admin-set, 0) sorts as level 0: first */
	j.priority = 0;
	ck_assert_uint_eq(sb_preempt_victim_key(&j, 227), UINT32_C(0x80000000));
}
END_TEST

/* The action, for every kind of victim under every PreemptNonResumable. */
struct action_case {
	const char *what;
	struct sb_contract c;
	enum sb_nonresumable nonres;
	enum sb_preempt_action want;
	int64_t want_grace;	/* with PreemptGraceTime=30 */
};

static const struct action_case actions[] = {
	{ "resumable batch job: requeued, resumes, gets the grace time",
	  ALLOC(5, true), SB_NONRESUMABLE_REQUEUE, SB_ACTION_REQUEUE, 30 },
	{ "resumable under cancel: requeued all the same",
	  ALLOC(5, true), SB_NONRESUMABLE_CANCEL, SB_ACTION_REQUEUE, 30 },
	{ "resumable under keep: requeued all the same",
	  ALLOC(5, true), SB_NONRESUMABLE_KEEP, SB_ACTION_REQUEUE, 30 },
	{ "not resumable, requeueable: restarts (the default), no grace",
	  ALLOC(5, false), SB_NONRESUMABLE_REQUEUE, SB_ACTION_RESTART, 0 },
	{ "not resumable under cancel: cancelled, no grace",
	  ALLOC(5, false), SB_NONRESUMABLE_CANCEL, SB_ACTION_CANCEL, 0 },
	{ "not resumable under keep: never preempted",
	  ALLOC(5, false), SB_NONRESUMABLE_KEEP, SB_ACTION_NONE, 0 },
	{ "--no-requeue / interactive: cancelled",
	  ALLOC_NRQ(5), SB_NONRESUMABLE_REQUEUE, SB_ACTION_CANCEL, 0 },
	{ "--no-requeue under keep: never preempted",
	  ALLOC_NRQ(5), SB_NONRESUMABLE_KEEP, SB_ACTION_NONE, 0 },
	{ "resumable tag but Slurm cannot requeue: cancelled",
	  { 5, true, true, false }, SB_NONRESUMABLE_REQUEUE, SB_ACTION_CANCEL, 0 },
	{ "unallocated resumable: requeued, but no grace time",
	  UNALLOC(true), SB_NONRESUMABLE_REQUEUE, SB_ACTION_REQUEUE, 0 },
	{ "unallocated not resumable: restarts, no grace",
	  UNALLOC(false), SB_NONRESUMABLE_REQUEUE, SB_ACTION_RESTART, 0 },
	{ "unallocated --no-requeue: cancelled",
	  UNALLOC_NRQ, SB_NONRESUMABLE_REQUEUE, SB_ACTION_CANCEL, 0 },
};

START_TEST(test_action)
{
	const struct action_case *c = &actions[_i];
	struct sb_preempt_policy pol;
	enum sb_preempt_action a;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	a = sb_preempt_action(&pol, &c->c);
	ck_assert_msg(a == c->want, "%s: got %d (%s), want %d (%s)", c->what,
		      a, sb_preempt_action_str(a), c->want,
		      sb_preempt_action_str(c->want));
	ck_assert_msg(sb_preempt_grace(&pol, &c->c) == c->want_grace,
		      "%s: grace %lld, want %lld", c->what,
		      (long long)sb_preempt_grace(&pol, &c->c),
		      (long long)c->want_grace);
}
END_TEST

START_TEST(test_action_defaults)
{
	struct sb_preempt_policy pol;
	struct sb_contract r = ALLOC(5, true), n = ALLOC(5, false);
	struct sb_contract q = ALLOC_NRQ(5);

	/* NULL policy: the defaults (requeue, grace 30 s) */
	ck_assert_int_eq(sb_preempt_action(NULL, &r), SB_ACTION_REQUEUE);
	ck_assert_int_eq(sb_preempt_action(NULL, &n), SB_ACTION_RESTART);
	ck_assert_int_eq(sb_preempt_action(NULL, &q), SB_ACTION_CANCEL);
	ck_assert_int_eq(sb_preempt_grace(NULL, &r), 30);
	ck_assert_int_eq(sb_preempt_grace(NULL, &n), 0);
	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(pol.nonresumable, SB_NONRESUMABLE_REQUEUE);
	pol.grace_time = 0;
	ck_assert_int_eq(sb_preempt_grace(&pol, &r), 0);
	pol.grace_time = -4;	/* never negative */
	ck_assert_int_eq(sb_preempt_grace(&pol, &r), 0);
	ck_assert_str_eq(sb_preempt_action_str(SB_ACTION_RESTART),
			 "requeued, restarts from its beginning (not resumable)");
	ck_assert_str_eq(sb_preempt_action_str((enum sb_preempt_action)77),
			 "unknown action");
}
END_TEST

/* The reclaim rule, hand-computed. */
struct reclaim_case {
	const char *what;
	double s_p, u_p, delta, s_v, u_v;
	bool ok;
};

static const struct reclaim_case reclaims[] = {
	{ "idle preemptor, busy victim", 0.5, 0, 100, 0.5, 1000, true },
	/* 0.5 / (900 + 200) = 0.00045 < 0.5 / 1000 = 0.0005 */
	{ "would be more over-used after the transfer", 0.5, 900, 200, 0.5, 1000, false },
	/* 0.5 / (700 + 300) = 0.0005 = 0.5 / 1000: equal is enough */
	{ "equal after the transfer", 0.5, 700, 300, 0.5, 1000, true },
	/* 3:1 shares: 0.75 / (2000 + 400) = 0.0003125 >= 0.25 / 1000 */
	{ "larger share carries more usage", 0.75, 2000, 400, 0.25, 1000, true },
	{ "victim side without shares", 0.1, 1e9, 1e9, 0, 0, true },
	{ "victim side with shares and no usage", 0.5, 0, 1, 0.5, 0, false },
	{ "no charged TRES at all", 0.5, 0, 0, 0.5, 0, true },
	{ "huge values do not overflow", 1, 1e300, 1e300, 1e-300, 1e300, true },
	{ "negative usage is refused", 0.5, -1, 0, 0.5, 10, false },
	{ "NaN is refused", 0.5, NAN, 0, 0.5, 10, false },
};

START_TEST(test_reclaim)
{
	const struct reclaim_case *c = &reclaims[_i];

	ck_assert_msg(sb_preempt_reclaim_ok(c->s_p, c->u_p, c->delta, c->s_v,
					    c->u_v) == c->ok, "%s", c->what);
}
END_TEST

struct repair_case {
	const char *pattern, *reason;
	bool match;
};

static const struct repair_case repairs[] = {
	{ "repair*", "repair: bad GPU 3", true },
	{ "repair*", "REPAIR ticket 42", true },
	{ "repair*", "maintenance", false },
	{ "repair*", " repair", false },
	{ "*xid*", "GPU fell off the bus (Xid 79)", true },
	{ "", "repair", false },
	{ "repair*", NULL, false },
};

START_TEST(test_repair_match)
{
	const struct repair_case *c = &repairs[_i];
	struct sb_preempt_policy pol;

	sb_preempt_policy_init(&pol);
	strcpy(pol.repair_reason, c->pattern);
	ck_assert_msg(sb_repair_reason_matches(&pol, c->reason) == c->match,
		      "'%s' ~ '%s'", c->pattern, c->reason ? c->reason : "(null)");
}
END_TEST

START_TEST(test_repair_release)
{
	struct sb_preempt_policy pol;
	struct sb_preempt_job inside = { ALLOC(600, true), 1000, P(true, 2), 4 , 0};
	struct sb_preempt_job unalloc = { UNALLOC(true), 1000, P(false, 2), 4 , 0};
	struct sb_preempt_job nonres = { ALLOC(600, false), 1000, P(true, 2), 4 , 0};
	struct sb_preempt_job norq = { ALLOC_NRQ(600), 1000, P(true, 2), 4 , 0};

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_repair_release_at(&pol, &inside), 1600);
	ck_assert_int_eq(sb_repair_release_at(&pol, &unalloc), 1000);
	ck_assert_int_eq(sb_repair_release_at(&pol, &nonres), 1600);
	ck_assert_int_eq(sb_repair_release_at(&pol, &norq), 1600);
	pol.nonresumable = SB_NONRESUMABLE_KEEP;
	ck_assert_int_eq(sb_repair_release_at(&pol, &norq), INT64_MAX);
	ck_assert_int_eq(sb_repair_release_at(&pol, &nonres), INT64_MAX);
	ck_assert_int_eq(sb_repair_release_at(&pol, &inside), 1600);
}
END_TEST

/* budget.conf keys of this module: accepted and refused values. */
struct key_case {
	const char *key, *value;
	int rc;
	const char *msg;	/* prefix of the message on failure */
};

static const struct key_case keys[] = {
	{ "PreemptGraceTime", "0", SB_OK, NULL },
	{ "PreemptGraceTime", "120", SB_OK, NULL },
	{ "PreemptGraceTime", "3601", SB_ESYNTAX, "PreemptGraceTime='3601' is not accepted: give whole seconds from 0 to 3600" },
	{ "PreemptGraceTime", "-1", SB_ESYNTAX, "PreemptGraceTime='-1'" },
	{ "PreemptGraceTime", "1:00", SB_ESYNTAX, "PreemptGraceTime='1:00'" },
	{ "PreemptGraceTime", "", SB_ESYNTAX, "PreemptGraceTime=''" },
	{ "PreemptNonResumable", "keep", SB_OK, NULL },
	{ "PreemptNonResumable", "CANCEL", SB_OK, NULL },
	{ "PreemptNonResumable", "requeue", SB_OK, NULL },
	{ "PreemptNonResumable", "restart", SB_ESYNTAX, "PreemptNonResumable='restart' is not accepted: give requeue (the default" },
	{ "PreemptNonResumable", NULL, SB_ESYNTAX, "PreemptNonResumable=" },
	{ "RepairReason", "hw-*", SB_OK, NULL },
	{ "RepairReason", "none", SB_OK, NULL },
	{ "RepairReason", "bad\tpattern", SB_ESYNTAX, "RepairReason='bad\\x09pattern' is not accepted" },
	{ "InteractiveWarning", "0:20", SB_OK, NULL },
	{ "InteractiveWarning", "none", SB_OK, NULL },
	{ "InteractiveWarning", "-1", SB_ENEGATIVE, "InteractiveWarning='-1': negative value" },
	{ "InteractiveWarning", "0:90", SB_ESYNTAX, "InteractiveWarning='0:90'" },
	{ "InteractiveWarning", NULL, SB_EMISSING, "InteractiveWarning=" },
};

START_TEST(test_keys)
{
	const struct key_case *c = &keys[_i];
	struct sb_config cfg, before;
	char msg[512];
	int rc;

	/* zeroed first, so the padding compares equal too */
	memset(&cfg, 0, sizeof(cfg));
	sb_config_init(&cfg);
	memcpy(&before, &cfg, sizeof(cfg));
	rc = sb_config_set(&cfg, c->key, c->value, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s=%s: rc %d (%s), want %d", c->key,
		      c->value ? c->value : "(null)", rc, msg, c->rc);
	if (c->msg) {
		ck_assert_msg(!strncmp(msg, c->msg, strlen(c->msg)),
			      "message '%s' does not start '%s'", msg, c->msg);
		ck_assert(!memcmp(&cfg, &before, sizeof(cfg)));
	}
}
END_TEST

START_TEST(test_keys_values)
{
	struct sb_config cfg;
	char msg[512];

	sb_config_init(&cfg);
	ck_assert_int_eq(cfg.preempt.grace_time, 30);
	ck_assert_str_eq(cfg.preempt.repair_reason, "repair*");
	ck_assert_int_eq(sb_config_set(&cfg, "preemptgracetime", "7", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.grace_time, 7);
	ck_assert_int_eq(sb_config_set(&cfg, "RepairReason", "none", msg, sizeof(msg)), SB_OK);
	ck_assert_str_eq(cfg.preempt.repair_reason, "");
	ck_assert(!sb_repair_reason_matches(&cfg.preempt, "repair"));
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "Keep", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_KEEP);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 300);
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "0:20", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 20);
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "2", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 120);	/* minutes */
	ck_assert_int_eq(sb_config_set(&cfg, "InteractiveWarning", "none", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.interactive_warning, 0);
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "REQUEUE", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_REQUEUE);
	ck_assert_int_eq(sb_config_set(&cfg, "PreemptNonResumable", "cancel", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.preempt.nonresumable, SB_NONRESUMABLE_CANCEL);
}
END_TEST

/* ------------------------------------------------------ suspended time */

struct suspend_case {
	const char *what;
	struct sb_preempt_job job;
	int64_t now;
	int64_t want_until;	/* sb_preempt_protected_until() */
	int64_t want_ran;	/* sb_run_seconds() at now */
};

static const struct suspend_case suspends[] = {
	{ "never suspended: start + min runtime; ran now - start",
	  { ALLOC(600, true), 1000, 0, 8, 0 }, 1100, 1600, 100 },
	{ "suspended 50 s: protection ends 50 s later, 50 s less run",
	  { ALLOC(600, true), 1000, 0, 8, 50 }, 1100, 1650, 50 },
	{ "suspended since start: nothing run",
	  { ALLOC(600, true), 1000, 0, 8, 100 }, 1100, 1700, 0 },
	{ "unallocated: preemptable from its start, suspended or not",
	  { UNALLOC(true), 1000, 0, 8, 50 }, 1100, 1000, 50 },
	{ "negative suspended counts as 0",
	  { ALLOC(600, true), 1000, 0, 8, -5 }, 1100, 1600, 100 },
	{ "saturates instead of overflowing",
	  { ALLOC(600, true), INT64_MAX - 10, 0, 8, INT64_MAX }, INT64_MAX,
	  INT64_MAX, 0 },
	{ "pending (start in the future): ran 0",
	  { ALLOC(600, true), 2000, 0, 8, 0 }, 1000, 2600, 0 },
};

START_TEST(test_suspended)
{
	const struct suspend_case *c = &suspends[_i];

	ck_assert_msg(sb_preempt_protected_until(&c->job) == c->want_until,
		      "%s: until %lld, want %lld", c->what,
		      (long long)sb_preempt_protected_until(&c->job),
		      (long long)c->want_until);
	ck_assert_msg(sb_run_seconds(&c->job, c->now) == c->want_ran,
		      "%s: ran %lld, want %lld", c->what,
		      (long long)sb_run_seconds(&c->job, c->now),
		      (long long)c->want_ran);
}
END_TEST

struct charged_to_case {
	int64_t start, suspended, to, want;
};

static const struct charged_to_case charged_tos[] = {
	{ 1000, 0, 1100, 1100 },	/* never suspended: up to now */
	{ 1000, 30, 1100, 1070 },	/* 30 s suspended: 70 s run */
	{ 1000, 100, 1100, 1000 },	/* suspended all along: nothing */
	{ 1000, 500, 1100, 1000 },	/* more than the span: nothing */
	{ 1000, 10, 900, 1000 },	/* observed before the start */
	{ 1000, -3, 1100, 1100 },	/* negative: 0 */
	{ INT64_MIN, 0, INT64_MAX, INT64_MAX },	/* no overflow */
	{ INT64_MIN, INT64_MAX, INT64_MAX, 0 },
};

START_TEST(test_charged_to)
{
	const struct charged_to_case *c = &charged_tos[_i];

	ck_assert_int_eq(sb_run_charged_to(c->start, c->suspended, c->to),
			 c->want);
}
END_TEST

/* What a job is charged per second: its TRES x its QOS's UsageFactor. */
struct charge_rate_case {
	const char *what;
	double tres, usage_factor, want;
};

static const struct charge_rate_case charge_rates[] = {
	{ "no QOS (factor -1): the TRES", 8, -1, 8 },
	{ "factor 1", 8, 1, 8 },
	{ "factor 2: twice", 8, 2, 16 },
	{ "factor 0.5: half", 8, 0.5, 4 },
	{ "factor 0: a free QOS", 8, 0, 0 },
	{ "NaN: not set, the TRES", 8, NAN, 8 },
	{ "infinite: not set, the TRES", 8, INFINITY, 8 },
	{ "no TRES: nothing", 0, 2, 0 },
};

START_TEST(test_charge_rate)
{
	const struct charge_rate_case *c = &charge_rates[_i];

	ck_assert_msg(sb_charge_rate(c->tres, c->usage_factor) == c->want,
		      "%s: %g, want %g", c->what,
		      sb_charge_rate(c->tres, c->usage_factor), c->want);
}
END_TEST

/* A suspended victim loses only the work it ran: the key is the one of a
 * victim that started later by the suspended time. */
START_TEST(test_key_suspended)
{
	struct sb_preempt_job a = { ALLOC(5, true), 1000, P(true, 3), 8, 400 };
	struct sb_preempt_job b = { ALLOC(5, true), 1400, P(true, 3), 8, 0 };

	ck_assert_uint_eq(sb_preempt_victim_key(&a, 2000),
			  sb_preempt_victim_key(&b, 2000));
	a.suspended = 0;
	ck_assert_uint_gt(sb_preempt_victim_key(&a, 2000),
			  sb_preempt_victim_key(&b, 2000));
}
END_TEST

/* ------------------------------------------ warning interactive users */

struct warn_case {
	const char *what;
	struct sb_preempt_job job;
	bool interactive;
	int64_t lead;			/* InteractiveWarning, seconds */
	enum sb_nonresumable nonres;
	int64_t want_at;		/* sb_preempt_warn_at() */
	int64_t last, now;		/* one tick ... */
	bool want_due;			/* ... and sb_preempt_warn_due() */
};

#define NEVER INT64_MAX

static const struct warn_case warns[] = {
	{ "40 s slice, lead 20 s: warned 20 s before its end",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1020, 1019, 1020, true },
	{ "the tick before: not yet",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1020, 1018, 1019, false },
	{ "the tick after: already warned, not again",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1020, 1020, 1021, false },
	{ "a late tick spanning the moment still warns once",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1020, 1015, 1025, true },
	{ "a batch job is never warned (no terminal)",
	  { ALLOC(40, true), 1000, 0, 1, 0 }, false, 20, SB_NONRESUMABLE_CANCEL,
	  NEVER, 1019, 1020, false },
	{ "lead 0: off",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 0, SB_NONRESUMABLE_CANCEL,
	  NEVER, 1019, 1020, false },
	{ "unallocated: no protection to end",
	  { UNALLOC(false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  NEVER, 999, 1000, false },
	{ "allocated with min runtime 0: no protection to end",
	  { ALLOC(0, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  NEVER, 999, 1000, false },
	{ "the site keeps jobs that are not resumable: never preempted",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_KEEP,
	  NEVER, 1019, 1020, false },
	{ "slice shorter than the lead: warned in its first second",
	  { ALLOC(10, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1001, 1000, 1001, true },
	{ "... not by a tick of the second it started (may predate it)",
	  { ALLOC(10, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1001, 999, 1000, false },
	{ "slice exactly the lead: warned in its first second",
	  { ALLOC(20, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1001, 1000, 1001, true },
	{ "a 1 s slice: warned at its end, start + 1",
	  { ALLOC(1, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1001, 1000, 1001, true },
	{ "slice one second longer than the lead: start + 1 too",
	  { ALLOC(21, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1001, 1000, 1001, true },
	{ "suspended 30 s: the warning moves with the slice's end",
	  { ALLOC(40, false), 1000, 0, 1, 30 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1050, 1049, 1050, true },
	{ "now <= last: no tick, no warning",
	  { ALLOC(40, false), 1000, 0, 1, 0 }, true, 20, SB_NONRESUMABLE_CANCEL,
	  1020, 1020, 1020, false },
	{ "8 h slice, default lead 5 min",
	  { ALLOC(28800, false), 0, 0, 1, 0 }, true, 300, SB_NONRESUMABLE_CANCEL,
	  28500, 28499, 28500, true },
	{ "a slice that never ends (saturated): never warned",
	  { ALLOC(INT64_MAX, false), 10, 0, 1, 0 }, true, 20,
	  SB_NONRESUMABLE_CANCEL, NEVER, INT64_MAX - 1, INT64_MAX, false },
	{ "a start near INT64_MIN does not overflow",
	  { ALLOC(40, false), INT64_MIN, 0, 1, 0 }, true, INT64_MAX,
	  SB_NONRESUMABLE_CANCEL, INT64_MIN + 1, INT64_MIN, INT64_MIN + 1, true },
};

START_TEST(test_warn)
{
	const struct warn_case *c = &warns[_i];
	struct sb_preempt_policy pol;
	int64_t at;
	bool due;

	sb_preempt_policy_init(&pol);
	pol.interactive_warning = c->lead;
	pol.nonresumable = c->nonres;
	at = sb_preempt_warn_at(&pol, &c->job, c->interactive);
	ck_assert_msg(at == c->want_at, "%s: warn at %lld, want %lld", c->what,
		      (long long)at, (long long)c->want_at);
	due = sb_preempt_warn_due(&pol, &c->job, c->interactive, c->last,
				  c->now);
	ck_assert_msg(due == c->want_due, "%s: due (%lld, %lld] is %d, want %d",
		      c->what, (long long)c->last, (long long)c->now, due,
		      c->want_due);
}
END_TEST

/* Asked once a second over a whole run, each run is warned exactly once,
 * at warn_at; NULL arguments never warn. */
START_TEST(test_warn_once)
{
	struct sb_preempt_policy pol;
	struct sb_preempt_job j = { ALLOC(40, false), 1000, 0, 1, 0 };
	int64_t t, n = 0, when = -1;

	sb_preempt_policy_init(&pol);
	pol.interactive_warning = 20;
	for (t = 990; t < 1100; t++)
		if (sb_preempt_warn_due(&pol, &j, true, t - 1, t)) {
			n++;
			when = t;
		}
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(when, 1020);
	ck_assert_int_eq(sb_preempt_warn_at(NULL, &j, true), INT64_MAX);
	ck_assert_int_eq(sb_preempt_warn_at(&pol, NULL, true), INT64_MAX);
	ck_assert(!sb_preempt_warn_due(NULL, &j, true, 0, 2000));
}
END_TEST

/* Slurm's requeue delay from AuthInfo, read as Slurm 22.05/24.11 read
 * cred_expire (xstrstr + atoi, below 5 is the default 120), plus 1. */
struct authinfo_case {
	const char *authinfo;
	int64_t want;
};

static const struct authinfo_case authinfos[] = {
	{ NULL, 121 },
	{ "", 121 },
	{ "socket=/run/munge/munge.socket.2", 121 },
	{ "socket=/tmp/m.sock,cred_expire=5", 6 },
	{ "cred_expire=600", 601 },
	{ "cred_expire=600,socket=/x", 601 },
	{ "cred_expire=4", 121 },		/* below 5: Slurm's default */
	{ "cred_expire=-30", 121 },
	{ "cred_expire=", 121 },
	{ "cred_expire=abc", 121 },
	{ "cred_expire= 30", 31 },		/* atoi skips white space */
	{ "cred_expire=30s", 31 },		/* and stops at the first non-digit */
	{ "cred_expire=99999999999999", 1000000001 },
};

START_TEST(test_requeue_delay)
{
	const struct authinfo_case *c = &authinfos[_i];
	int64_t got = sb_requeue_delay_of_authinfo(c->authinfo);

	ck_assert_msg(got == c->want, "'%s': got %lld, want %lld",
		      c->authinfo ? c->authinfo : "(null)", (long long)got,
		      (long long)c->want);
}
END_TEST

/* ------------------------------------------- why a pending job waits */

/* sb_wait_format(): `sbudget show job`'s WaitsFor and the simulator's
 * verdict print the same sentence; each part appears only with its fact. */
struct wait_case {
	const char *what;
	struct sb_wait_facts f;
	size_t len;		/* buffer size, 0: 512 */
	const char *want;
};

static const struct wait_case waits[] = {
	{ .what = "next, nothing free",
	  .f = { .reason = "Resources", .needs = 16, .tres = "gres/gpu",
		 .allocated = true },
	  .want = "Resources: needs 16 gres/gpu, 0 idle, 0 preemptable by it "
		  "now" },
	{ .what = "jobs ahead, unallocated",
	  .f = { .reason = "Priority", .ahead = 3, .top = 42, .needs = 1,
		 .tres = "gres/gpu", .idle = 0, .preemptable = 0 },
	  .want = "Priority: 3 pending job(s) of higher priority first (top: "
		  "job 42); needs 1 gres/gpu, 0 idle, 0 preemptable by it now "
		  "(unallocated jobs never preempt)" },
	{ .what = "every part",
	  .f = { .reason = "Resources", .needs = 8, .tres = "gres/gpu",
		 .idle = 2, .preemptable = 4, .allocated = true, .kept = 8,
		 .kept_job = 7, .kept_why = "the reclaim rule", .next_job = 9,
		 .next_at = "at 4800 s", .eligible_at = "then",
		 .note = "a note" },
	  .want = "Resources: needs 8 gres/gpu, 2 idle, 4 preemptable by it "
		  "now; 8 more held back by the reclaim rule or its cost (job "
		  "7: the reclaim rule); next protected slice of a "
		  "lower-priority job ends at 4800 s (job 9); eligible at "
		  "then; a note" },
	{ .what = "GPUs on drained nodes apart",
	  .f = { .reason = "Resources", .needs = 8, .tres = "gres/gpu",
		 .idle = 0, .unusable = 16, .allocated = true },
	  .want = "Resources: needs 8 gres/gpu, 0 idle, 0 preemptable by it "
		  "now (16 more on nodes down or drained)" },
	{ .what = "truncated to the buffer", .len = 11,
	  .f = { .reason = "Resources", .needs = 8, .tres = "gres/gpu",
		 .allocated = true },
	  .want = "Resources: " },
};

START_TEST(test_wait_format)
{
	const struct wait_case *c = &waits[_i];
	char buf[512];
	size_t len = c->len ? c->len + 1 : sizeof(buf), n;

	n = sb_wait_format(&c->f, buf, len);
	ck_assert_msg(!strcmp(buf, c->want) && n == strlen(buf),
		      "%s: want \"%s\" got \"%s\" (%zu)", c->what, c->want,
		      buf, n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("preempt");
	TCase *tc = tcase_create("preempt");

	tcase_add_test(tc, test_p_macro);
	tcase_add_loop_test(tc, test_check, 0, sizeof(checks) / sizeof(checks[0]));
	tcase_add_test(tc, test_check_null);
	tcase_add_test(tc, test_static);
	tcase_add_loop_test(tc, test_order, 0, sizeof(orders) / sizeof(orders[0]));
	tcase_add_test(tc, test_key);
	tcase_add_loop_test(tc, test_action, 0, sizeof(actions) / sizeof(actions[0]));
	tcase_add_test(tc, test_action_defaults);
	tcase_add_loop_test(tc, test_reclaim, 0,
			    sizeof(reclaims) / sizeof(reclaims[0]));
	tcase_add_loop_test(tc, test_repair_match, 0,
			    sizeof(repairs) / sizeof(repairs[0]));
	tcase_add_test(tc, test_repair_release);
	tcase_add_loop_test(tc, test_keys, 0, sizeof(keys) / sizeof(keys[0]));
	tcase_add_test(tc, test_keys_values);
	tcase_add_loop_test(tc, test_suspended, 0,
			    sizeof(suspends) / sizeof(suspends[0]));
	tcase_add_loop_test(tc, test_charged_to, 0,
			    sizeof(charged_tos) / sizeof(charged_tos[0]));
	tcase_add_loop_test(tc, test_charge_rate, 0,
			    sizeof(charge_rates) / sizeof(charge_rates[0]));
	tcase_add_test(tc, test_key_suspended);
	tcase_add_loop_test(tc, test_warn, 0, sizeof(warns) / sizeof(warns[0]));
	tcase_add_test(tc, test_warn_once);
	tcase_add_loop_test(tc, test_requeue_delay, 0,
			    sizeof(authinfos) / sizeof(authinfos[0]));
	tcase_add_loop_test(tc, test_wait_format, 0,
			    sizeof(waits) / sizeof(waits[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
