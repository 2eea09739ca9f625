/*
 * preempt-run-test.c - a run's time: suspended time and what is charged,
 * the victim key of a suspended job, warning interactive users before they
 * are preempted, Slurm's requeue delay and the restart delay, and why a
 * pending job waits (sb_wait_format), and how long a preemptor that would
 * throw away a run waits first (PreemptLossWait).
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "preempt-test.h"
#include "sb/config.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/wait.h"

struct suspend_case {
	const char *what;
	struct sb_preempt_job job;
	int64_t now;
	int64_t want_until;	/* sb_preempt_protected_until() */
	int64_t want_ran;	/* sb_run_seconds() at now */
};

static const struct suspend_case suspends[] = {
	{ .what = "never suspended: start + min runtime; ran now - start",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1100,      .want_until = 1600,      .want_ran = 100 },
	{ .what = "suspended 50 s: protection ends 50 s later, 50 s less run",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 50 },
	  .now = 1100,      .want_until = 1650,      .want_ran = 50 },
	{ .what = "suspended since start: nothing run",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = 100 },
	  .now = 1100,      .want_until = 1700,      .want_ran = 0 },
	{ .what = "unallocated: preemptable from its start, suspended or not",
	  .job = { .contract = UNALLOC(true),    .start = 1000, .priority = 0, .tres = 8, .suspended = 50 },
	  .now = 1100,      .want_until = 1000,      .want_ran = 50 },
	{ .what = "negative suspended counts as 0",
	  .job = { .contract = ALLOC(600, true), .start = 1000, .priority = 0, .tres = 8, .suspended = -5 },
	  .now = 1100,      .want_until = 1600,      .want_ran = 100 },
	{ .what = "saturates instead of overflowing",
	  .job = { .contract = ALLOC(600, true), .start = INT64_MAX - 10, .priority = 0, .tres = 8, .suspended = INT64_MAX },
	  .now = INT64_MAX, .want_until = INT64_MAX, .want_ran = 0 },
	{ .what = "pending (start in the future): ran 0",
	  .job = { .contract = ALLOC(600, true), .start = 2000, .priority = 0, .tres = 8, .suspended = 0 },
	  .now = 1000,      .want_until = 2600,      .want_ran = 0 },
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
	{ .start = 1000,      .suspended = 0,         .to = 1100,      .want = 1100 },      /* never suspended: up to now */
	{ .start = 1000,      .suspended = 30,        .to = 1100,      .want = 1070 },      /* 30 s suspended: 70 s run */
	{ .start = 1000,      .suspended = 100,       .to = 1100,      .want = 1000 },      /* suspended all along: nothing */
	{ .start = 1000,      .suspended = 500,       .to = 1100,      .want = 1000 },      /* more than the span: nothing */
	{ .start = 1000,      .suspended = 10,        .to = 900,       .want = 1000 },      /* observed before the start */
	{ .start = 1000,      .suspended = -3,        .to = 1100,      .want = 1100 },      /* negative: 0 */
	{ .start = INT64_MIN, .suspended = 0,         .to = INT64_MAX, .want = INT64_MAX }, /* no overflow */
	{ .start = INT64_MIN, .suspended = INT64_MAX, .to = INT64_MAX, .want = 0 },
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
	{ .what = "no QOS (factor -1): the TRES", .tres = 8, .usage_factor = -1,       .want = 8 },
	{ .what = "factor 1",                     .tres = 8, .usage_factor = 1,        .want = 8 },
	{ .what = "factor 2: twice",              .tres = 8, .usage_factor = 2,        .want = 16 },
	{ .what = "factor 0.5: half",             .tres = 8, .usage_factor = 0.5,      .want = 4 },
	{ .what = "factor 0: a free QOS",         .tres = 8, .usage_factor = 0,        .want = 0 },
	{ .what = "NaN: not set, the TRES",       .tres = 8, .usage_factor = NAN,      .want = 8 },
	{ .what = "infinite: not set, the TRES",  .tres = 8, .usage_factor = INFINITY, .want = 8 },
	{ .what = "no TRES: nothing",             .tres = 0, .usage_factor = 2,        .want = 0 },
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
	struct sb_preempt_job a = { .contract = ALLOC(5, true), .start = 1000, .priority = P(true, 3), .tres = 8, .suspended = 400 };
	struct sb_preempt_job b = { .contract = ALLOC(5, true), .start = 1400, .priority = P(true, 3), .tres = 8, .suspended = 0 };

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
	{ .what = "40 s slice, lead 20 s: warned 20 s before its end",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1020,
	  .last = 1019,      .now = 1020,      .want_due = true },
	{ .what = "the tick before: not yet",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1020,
	  .last = 1018,      .now = 1019,      .want_due = false },
	{ .what = "the tick after: already warned, not again",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1020,
	  .last = 1020,      .now = 1021,      .want_due = false },
	{ .what = "a late tick spanning the moment still warns once",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1020,
	  .last = 1015,      .now = 1025,      .want_due = true },
	{ .what = "a batch job is never warned (no terminal)",
	  .job = { .contract = ALLOC(40, true),         .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = false, .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = NEVER,
	  .last = 1019,      .now = 1020,      .want_due = false },
	{ .what = "lead 0: off",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 0,         .nonres = SB_NONRESUMABLE_CANCEL, .want_at = NEVER,
	  .last = 1019,      .now = 1020,      .want_due = false },
	{ .what = "unallocated: no protection to end",
	  .job = { .contract = UNALLOC(false),          .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = NEVER,
	  .last = 999,       .now = 1000,      .want_due = false },
	{ .what = "allocated with min runtime 0: no protection to end",
	  .job = { .contract = ALLOC(0, false),         .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = NEVER,
	  .last = 999,       .now = 1000,      .want_due = false },
	{ .what = "the site keeps jobs that are not resumable: never preempted",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_KEEP,   .want_at = NEVER,
	  .last = 1019,      .now = 1020,      .want_due = false },
	{ .what = "slice shorter than the lead: warned in its first second",
	  .job = { .contract = ALLOC(10, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1001,
	  .last = 1000,      .now = 1001,      .want_due = true },
	{ .what = "... not by a tick of the second it started (may predate it)",
	  .job = { .contract = ALLOC(10, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1001,
	  .last = 999,       .now = 1000,      .want_due = false },
	{ .what = "slice exactly the lead: warned in its first second",
	  .job = { .contract = ALLOC(20, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1001,
	  .last = 1000,      .now = 1001,      .want_due = true },
	{ .what = "a 1 s slice: warned at its end, start + 1",
	  .job = { .contract = ALLOC(1, false),         .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1001,
	  .last = 1000,      .now = 1001,      .want_due = true },
	{ .what = "slice one second longer than the lead: start + 1 too",
	  .job = { .contract = ALLOC(21, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1001,
	  .last = 1000,      .now = 1001,      .want_due = true },
	{ .what = "suspended 30 s: the warning moves with the slice's end",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 30 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1050,
	  .last = 1049,      .now = 1050,      .want_due = true },
	{ .what = "now <= last: no tick, no warning",
	  .job = { .contract = ALLOC(40, false),        .start = 1000,      .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 1020,
	  .last = 1020,      .now = 1020,      .want_due = false },
	{ .what = "8 h slice, default lead 5 min",
	  .job = { .contract = ALLOC(28800, false),     .start = 0,         .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 300,       .nonres = SB_NONRESUMABLE_CANCEL, .want_at = 28500,
	  .last = 28499,     .now = 28500,     .want_due = true },
	{ .what = "a slice that never ends (saturated): never warned",
	  .job = { .contract = ALLOC(INT64_MAX, false), .start = 10,        .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = 20,        .nonres = SB_NONRESUMABLE_CANCEL, .want_at = NEVER,
	  .last = INT64_MAX - 1, .now = INT64_MAX, .want_due = false },
	{ .what = "a start near INT64_MIN does not overflow",
	  .job = { .contract = ALLOC(40, false),        .start = INT64_MIN, .priority = 0, .tres = 1, .suspended = 0 },
	  .interactive = true,  .lead = INT64_MAX, .nonres = SB_NONRESUMABLE_CANCEL, .want_at = INT64_MIN + 1,
	  .last = INT64_MIN, .now = INT64_MIN + 1, .want_due = true },
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
	struct sb_preempt_job j = { .contract = ALLOC(40, false), .start = 1000, .priority = 0, .tres = 1, .suspended = 0 };
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
	{ .authinfo = NULL,              .want = 121 },
	{ .authinfo = "",                .want = 121 },
	{ .authinfo = "socket=/run/munge/munge.socket.2", .want = 121 },
	{ .authinfo = "socket=/tmp/m.sock,cred_expire=5", .want = 6 },
	{ .authinfo = "cred_expire=600", .want = 601 },
	{ .authinfo = "cred_expire=600,socket=/x", .want = 601 },
	{ .authinfo = "cred_expire=4",   .want = 121 },                   /* below 5: Slurm's default */
	{ .authinfo = "cred_expire=-30", .want = 121 },
	{ .authinfo = "cred_expire=",    .want = 121 },
	{ .authinfo = "cred_expire=abc", .want = 121 },
	{ .authinfo = "cred_expire= 30", .want = 31 },                    /* atoi skips white space */
	{ .authinfo = "cred_expire=30s", .want = 31 },                    /* and stops at the first non-digit */
	{ .authinfo = "cred_expire=99999999999999", .want = 1000000001 },
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

/* sb_restart_delay(): an unallocated job waits requeue_delay x
 * 2^(restarts - 1), capped; every other job Slurm's delay. */
struct restart_case {
	const char *what;
	struct sb_contract c;
	uint32_t restarts;
	int64_t delay, max;	/* requeue_delay, restart_backoff_max */
	int64_t want;
};

static const struct restart_case restarts[] = {
	{ .what = "first restart: Slurm's delay", .c = UNALLOC(false),
	  .restarts = 1, .delay = 121, .max = 3600, .want = 121 },
	{ .what = "second: twice", .c = UNALLOC(false), .restarts = 2,
	  .delay = 121, .max = 3600, .want = 242 },
	{ .what = "fifth: 16 times", .c = UNALLOC(false), .restarts = 5,
	  .delay = 121, .max = 3600, .want = 1936 },
	{ .what = "sixth: capped", .c = UNALLOC(false), .restarts = 6,
	  .delay = 121, .max = 3600, .want = 3600 },
	{ .what = "the 191st: capped", .c = UNALLOC(false), .restarts = 191,
	  .delay = 121, .max = 3600, .want = 3600 },
	{ .what = "UINT32_MAX restarts: capped, no overflow",
	  .c = UNALLOC(false), .restarts = UINT32_MAX, .delay = 121,
	  .max = 365 * 86400, .want = 365 * 86400 },
	{ .what = "test cluster: 6 s, 12 s, 24 s", .c = UNALLOC(false),
	  .restarts = 3, .delay = 6, .max = 3600, .want = 24 },
	{ .what = "not restarted yet", .c = UNALLOC(false), .restarts = 0,
	  .delay = 121, .max = 3600, .want = 121 },
	{ .what = "backoff off", .c = UNALLOC(false), .restarts = 4,
	  .delay = 121, .max = 0, .want = 121 },
	{ .what = "cap below Slurm's delay: Slurm's", .c = UNALLOC(false),
	  .restarts = 4, .delay = 121, .max = 60, .want = 121 },
	{ .what = "cannot be requeued: same rule", .c = UNALLOC_NRQ,
	  .restarts = 2, .delay = 121, .max = 3600, .want = 242 },
	{ .what = "unallocated resumable: the same backoff",
	  .c = UNALLOC(true), .restarts = 5, .delay = 121, .max = 3600,
	  .want = 1936 },
	{ .what = "unallocated resumable, first: Slurm's delay",
	  .c = UNALLOC(true), .restarts = 1, .delay = 121, .max = 3600,
	  .want = 121 },
	{ .what = "allocated: no backoff", .c = ALLOC(3600, false),
	  .restarts = 5, .delay = 121, .max = 3600, .want = 121 },
	{ .what = "allocated resumable: no backoff", .c = ALLOC(3600, true),
	  .restarts = 5, .delay = 121, .max = 3600, .want = 121 },
	{ .what = "no requeue delay: none", .c = UNALLOC(false),
	  .restarts = 5, .delay = 0, .max = 3600, .want = 0 },
	{ .what = "negative requeue delay: 0", .c = UNALLOC(false),
	  .restarts = 5, .delay = -5, .max = 3600, .want = 0 },
	{ .what = "huge delay and cap: no overflow", .c = UNALLOC(false),
	  .restarts = 100, .delay = INT64_MAX / 3, .max = INT64_MAX,
	  .want = INT64_MAX / 3 * 2 },
};

START_TEST(test_restart_delay)
{
	const struct restart_case *c = &restarts[_i];
	struct sb_preempt_policy pol;
	int64_t got;

	sb_preempt_policy_init(&pol);
	pol.requeue_delay = c->delay;
	pol.restart_backoff_max = c->max;
	got = sb_restart_delay(&pol, &c->c, c->restarts);
	ck_assert_msg(got == c->want, "%s: got %lld, want %lld", c->what,
		      (long long)got, (long long)c->want);
}
END_TEST

START_TEST(test_restart_delay_defaults)
{
	const struct sb_contract u = UNALLOC(false), a = ALLOC(600, false);
	int64_t d = SB_REQUEUE_DELAY_DEFAULT;

	/* no policy: the defaults (121 s, capped at 1 day) */
	ck_assert_int_eq(sb_restart_delay(NULL, &u, 1), d);
	ck_assert_int_eq(sb_restart_delay(NULL, &u, 3), 4 * d);
	ck_assert_int_eq(sb_restart_delay(NULL, &u, 40),
			 SB_RESTART_BACKOFF_MAX_DEFAULT);
	ck_assert_int_eq(sb_restart_delay(NULL, &a, 40), d);
	/* no contract: as an allocated job */
	ck_assert_int_eq(sb_restart_delay(NULL, NULL, 40), d);
	/* the delays never shrink from one restart to the next */
	for (uint32_t k = 1; k < 64; k++)
		ck_assert_int_le(sb_restart_delay(NULL, &u, k),
				 sb_restart_delay(NULL, &u, k + 1));
}
END_TEST

/* ------------------------------------------- why a pending job waits */

/* sb_preempt_loss_waits() with PreemptLossWait=30:00: a preemptor eligible
 * at 1000 waits while its TRES-seconds waited are below those the victim's
 * run would lose, until 2800 at the latest. */
struct loss_case {
	const char *what;
	struct sb_preempt_job preemptor, victim;
	int64_t now;
	enum sb_nonresumable nonres;
	bool want;
};

static const struct loss_case losses[] = {
	{ .what = "loss wait: not resumable, preemptor waited 1799 s: waits",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 2799, .nonres = SB_NONRESUMABLE_REQUEUE, .want = true },
	{ .what = "loss wait: not resumable, preemptor waited 1800 s: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 2800, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
	{ .what = "loss wait: rent paid (8 GPUs x 100 s >= 1 GPU x 700 s): taken",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 8, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 400, .priority = P(true, 7),   .tres = 1 },
	  .now = 1100, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
	{ .what = "loss wait: rent short (8 GPUs x 100 s < 2 GPUs x 700 s): waits",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 8, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 400, .priority = P(true, 7),   .tres = 2 },
	  .now = 1100, .nonres = SB_NONRESUMABLE_REQUEUE, .want = true },
	{ .what = "loss wait: suspended time is not run, so not lost: taken",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 8, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, false), .start = 400, .priority = P(true, 7),   .tres = 2, .suspended = 300 },
	  .now = 1100, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
	{ .what = "loss wait: --no-requeue (cancelled) loses its run too: waits",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = ALLOC_NRQ(30),    .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 1500, .nonres = SB_NONRESUMABLE_REQUEUE, .want = true },
	{ .what = "loss wait: a resumable victim keeps its work: taken at once",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = ALLOC(30, true),  .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 1000, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
	{ .what = "loss wait: an unallocated victim gives way at once",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 1000 },
	  .victim    = { .contract = UNALLOC(false),   .start = 0,   .priority = P(false, 7),  .tres = 1 },
	  .now = 1000, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
	{ .what = "loss wait: EligibleTime not known: no wait",
	  .preemptor = { .contract = ALLOC(60, true),  .priority = P(true, 8), .tres = 1, .eligible = 0 },
	  .victim    = { .contract = ALLOC(30, false), .start = 0,   .priority = P(true, 7),   .tres = 1 },
	  .now = 1000, .nonres = SB_NONRESUMABLE_REQUEUE, .want = false },
};

START_TEST(test_loss_waits)
{
	const struct loss_case *c = &losses[_i];
	struct sb_preempt_policy pol;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	pol.loss_wait = 1800;
	ck_assert_msg(sb_preempt_loss_waits(&pol, &c->preemptor, &c->victim,
					    c->now) == c->want,
		      "%s: want %s", c->what, c->want ? "waits" : "no wait");
	/* off (the default): never */
	pol.loss_wait = 0;
	ck_assert(!sb_preempt_loss_waits(&pol, &c->preemptor, &c->victim,
					 c->now));
	ck_assert(!sb_preempt_loss_waits(NULL, &c->preemptor, &c->victim,
					 c->now));
}
END_TEST

struct loss_wait_case {
	const char *what;
	int64_t loss_wait;	/* PreemptLossWait, s */
	struct sb_preempt_job preemptor;
	int64_t want;
};

static const struct loss_wait_case loss_waits[] = {
	{ .what = "EligibleTime + PreemptLossWait", .loss_wait = 1800,
	  .preemptor = { .contract = ALLOC(60, true), .priority = P(true, 8), .tres = 8, .eligible = 100 },
	  .want = 1900 },
	{ .what = "off (0): no wait", .loss_wait = 0,
	  .preemptor = { .contract = ALLOC(60, true), .priority = P(true, 8), .tres = 8, .eligible = 100 },
	  .want = INT64_MIN },
	{ .what = "EligibleTime unknown (0): no wait", .loss_wait = 1800,
	  .preemptor = { .contract = ALLOC(60, true), .priority = P(true, 8), .tres = 8, .eligible = 0 },
	  .want = INT64_MIN },
	{ .what = "EligibleTime negative: no wait", .loss_wait = 1800,
	  .preemptor = { .contract = ALLOC(60, true), .priority = P(true, 8), .tres = 8, .eligible = -5 },
	  .want = INT64_MIN },
	{ .what = "saturates at the far end", .loss_wait = 1800,
	  .preemptor = { .contract = ALLOC(60, true), .priority = P(true, 8), .tres = 8, .eligible = INT64_MAX - 10 },
	  .want = INT64_MAX },
};

START_TEST(test_loss_wait_until)
{
	const struct loss_wait_case *c = &loss_waits[_i];
	struct sb_preempt_policy pol;
	int64_t got;

	sb_preempt_policy_init(&pol);
	pol.loss_wait = c->loss_wait;
	got = sb_preempt_loss_wait_until(&pol, &c->preemptor);
	ck_assert_msg(got == c->want, "%s: got %lld, want %lld", c->what,
		      (long long)got, (long long)c->want);
}
END_TEST

START_TEST(test_loss_wait_defaults)
{
	struct sb_preempt_job p = { .contract = ALLOC(60, true),
				    .priority = P(true, 8), .tres = 1,
				    .eligible = 100 };

	/* NULL policy: the default, off */
	ck_assert_int_eq(sb_preempt_loss_wait_until(NULL, &p), INT64_MIN);
	ck_assert_int_eq(sb_preempt_loss_wait_until(NULL, NULL), INT64_MIN);
	ck_assert_str_ne(sb_preempt_verdict_str(SB_PREEMPT_LOSS_WAIT),
			 "unknown verdict");
}
END_TEST

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
		 .loss_wait = 4, .loss_wait_at = "2800 s",
		 .next_at = "at 4800 s", .eligible_at = "then",
		 .note = "a note" },
	  .want = "Resources: needs 8 gres/gpu, 2 idle, 4 preemptable by it "
		  "now; 8 more held back by the reclaim rule or its cost (job "
		  "7: the reclaim rule); 4 more from runs that would lose "
		  "their work, once it has waited PreemptLossWait (2800 s "
		  "at the latest); next protected slice of a "
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

/* The note at submission (sb_contract_advice): jobs that may lose their
 * work past their minimum runtime, and those that cannot (MaxMinRuntime
 * 8 h). */
#define ADV_RESTART "note: this job does not resume its work (no --resumable) " \
	"and "
#define ADV_PAST ": past it, the job runs only while its budget outranks the " \
	"queue, and a preemption "
#define ADV_RES "if it checkpoints, submit it with --resumable; "
static const struct {
	bool allocated, resumable, requeueable;
	enum sb_requeue_bar bar;
	int64_t min_runtime, shortest, longest;
	enum sb_nonresumable nr;
	bool noted;
	const char *msg;
} advices[] = {
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 4 * 3600, 4 * 3600,
	  SB_NONRESUMABLE_REQUEUE, true,
	  ADV_RESTART "its time limit 4:00:00 is longer than its minimum "
	  "runtime 1:00:00" ADV_PAST "requeues it to start over, losing what "
	  "it ran; " ADV_RES "--min-runtime=4:00:00 protects all of it" },
	/* longer than MaxMinRuntime: only --resumable protects it */
	{ true, false, true, SB_REQUEUE_BAR_NONE, 8 * 3600, 86400, 86400,
	  SB_NONRESUMABLE_REQUEUE, true,
	  ADV_RESTART "its time limit 1-00:00:00 is longer than its minimum "
	  "runtime 8:00:00" ADV_PAST "requeues it to start over, losing what "
	  "it ran; " ADV_RES "no minimum runtime protects more than 8:00:00 "
	  "(MaxMinRuntime)" },
	/* no time limit at all */
	{ true, false, true, SB_REQUEUE_BAR_NONE, 900, 0, 0,
	  SB_NONRESUMABLE_REQUEUE, true,
	  ADV_RESTART "it has no time limit, so it may run past its minimum "
	  "runtime 0:15:00" ADV_PAST "requeues it to start over, losing what "
	  "it ran; " ADV_RES "no minimum runtime protects more than 8:00:00 "
	  "(MaxMinRuntime)" },
	/* --time-min (or a shorter partition): the longest limit counts, and
	 * no --min-runtime fits it */
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 2 * 3600, 8 * 3600,
	  SB_NONRESUMABLE_REQUEUE, true,
	  ADV_RESTART "its time limit 8:00:00 is longer than its minimum "
	  "runtime 1:00:00" ADV_PAST "requeues it to start over, losing what "
	  "it ran; " ADV_RES "no minimum runtime protects all of it while its "
	  "time limit may be as short as 2:00:00 (--time-min, or another "
	  "partition's)" },
	/* ... even when the minimum runtime is the shortest limit */
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 3600, 8 * 3600,
	  SB_NONRESUMABLE_REQUEUE, true, NULL },
	/* salloc/srun: cancelled, --resumable not offered */
	{ true, false, false, SB_REQUEUE_BAR_INTERACTIVE, 3600, 7200, 7200,
	  SB_NONRESUMABLE_REQUEUE, true,
	  "note: this job does not resume its work (salloc and srun "
	  "allocations cannot be requeued) and its time limit 2:00:00 is longer "
	  "than its minimum runtime 1:00:00" ADV_PAST "cancels it, losing what "
	  "it ran; --min-runtime=2:00:00 protects all of it" },
	/* --no-requeue: drop it for --resumable */
	{ true, false, false, SB_REQUEUE_BAR_USER, 3600, 7200, 7200,
	  SB_NONRESUMABLE_REQUEUE, true,
	  "note: this job does not resume its work (--no-requeue) and its time "
	  "limit 2:00:00 is longer than its minimum runtime 1:00:00" ADV_PAST
	  "cancels it, losing what it ran; if it checkpoints, drop "
	  "--no-requeue and submit it with --resumable; --min-runtime=2:00:00 "
	  "protects all of it" },
	/* the site's JobRequeue=0: --resumable still works (it sets the
	 * job's requeue flag) */
	{ true, false, false, SB_REQUEUE_BAR_SITE, 3600, 7200, 7200,
	  SB_NONRESUMABLE_REQUEUE, true,
	  "note: this job does not resume its work (no --resumable, and the "
	  "site does not requeue jobs: JobRequeue=0) and its time limit "
	  "2:00:00 is longer than its minimum runtime 1:00:00" ADV_PAST
	  "cancels it, losing what it ran; " ADV_RES "--min-runtime=2:00:00 "
	  "protects all of it" },
	/* PreemptNonResumable=cancel: a batch job is cancelled too */
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 7200, 7200,
	  SB_NONRESUMABLE_CANCEL, true,
	  ADV_RESTART "its time limit 2:00:00 is longer than its minimum "
	  "runtime 1:00:00" ADV_PAST "cancels it, losing what it ran; " ADV_RES
	  "--min-runtime=2:00:00 protects all of it" },
	/* nothing to lose, or nothing unprotected: no note */
	{ true, true, true, SB_REQUEUE_BAR_NONE, 3600, 7200, 7200,
	  SB_NONRESUMABLE_REQUEUE, false, "" },
	{ false, false, true, SB_REQUEUE_BAR_NONE, 0, 7200, 7200,
	  SB_NONRESUMABLE_REQUEUE, false, "" },
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 3600, 3600,
	  SB_NONRESUMABLE_REQUEUE, false, "" },
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 1800, 1800,
	  SB_NONRESUMABLE_REQUEUE, false, "" },
	{ true, false, true, SB_REQUEUE_BAR_NONE, 3600, 7200, 7200,
	  SB_NONRESUMABLE_KEEP, false, "" },
};

START_TEST(test_advice)
{
	struct sb_preempt_policy pol;
	struct sb_contract c = { 0 };
	char msg[512] = "x";

	sb_preempt_policy_init(&pol);
	pol.nonresumable = advices[_i].nr;
	c.allocated = advices[_i].allocated;
	c.resumable = advices[_i].resumable;
	c.requeueable = advices[_i].requeueable;
	c.min_runtime = advices[_i].min_runtime;
	ck_assert(sb_contract_advice(&pol, &c, advices[_i].bar,
				     advices[_i].shortest, advices[_i].longest,
				     8 * 3600, msg, sizeof(msg)) ==
		  advices[_i].noted);
	if (advices[_i].msg)
		ck_assert_str_eq(msg, advices[_i].msg);
	else	/* the same sentence as the row before */
		ck_assert(strstr(msg, "as short as 1:00:00 (--time-min"));
}
END_TEST

/* NULL contract, no buffer, a short buffer, NULL policy (the defaults:
 * requeue) */
START_TEST(test_advice_edges)
{
	struct sb_contract c = { 3600, false, true, true };
	char msg[16] = "x";

	ck_assert(!sb_contract_advice(NULL, NULL, SB_REQUEUE_BAR_NONE, 7200,
				      7200, 28800, msg, sizeof(msg)));
	ck_assert_str_eq(msg, "");
	ck_assert(sb_contract_advice(NULL, &c, SB_REQUEUE_BAR_NONE, 7200, 7200,
				     28800, NULL, 0));
	ck_assert(sb_contract_advice(NULL, &c, SB_REQUEUE_BAR_NONE, 7200, 7200,
				     28800, msg, sizeof(msg)));
	ck_assert_uint_eq(strlen(msg), sizeof(msg) - 1);
	ck_assert(strncmp(msg, "note: this job ", sizeof(msg)) == 0);
}
END_TEST

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

void preempt_run_tests(TCase *tc)
{
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
	tcase_add_loop_test(tc, test_restart_delay, 0,
			    sizeof(restarts) / sizeof(restarts[0]));
	tcase_add_test(tc, test_restart_delay_defaults);
	tcase_add_loop_test(tc, test_loss_waits, 0,
			    sizeof(losses) / sizeof(losses[0]));
	tcase_add_loop_test(tc, test_loss_wait_until, 0,
			    sizeof(loss_waits) / sizeof(loss_waits[0]));
	tcase_add_test(tc, test_loss_wait_defaults);
	tcase_add_loop_test(tc, test_advice, 0,
			    sizeof(advices) / sizeof(advices[0]));
	tcase_add_test(tc, test_advice_edges);
	tcase_add_loop_test(tc, test_wait_format, 0,
			    sizeof(waits) / sizeof(waits[0]));
}
