/*
 * limits-test.c - which unallocated jobs are released for an allocated job
 * pending behind a Slurm limit (sb_limit_release(), sb/limits.h): the
 * basic case, the control case (the limit filled by the team's own
 * allocated work), just-enough selection in victim order, limits at two
 * levels, grace time, PreemptNonResumable=keep, saturation.
 */
#include <check.h>
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "sb/error.h"
#include "sb/limits.h"
#include "sb/priority.h"

#define NOW 1000
#define P(al, lvl) ((al) ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) | \
	(uint32_t)(lvl) << SB_PRIO_LEVEL_SHIFT | \
	SB_PRIO_TEAM_DEFAULT << SB_PRIO_TEAM_SHIFT

/* One running job of a case. */
struct hold {
	bool allocated, resumable, in_grace;
	int64_t start;
	uint64_t tres;
	uint64_t holds[2];
};
#define U(start, tres, h0, h1) { false, true, false, (start), (tres), { (h0), (h1) } }
#define UG(start, tres, h0, h1) { false, true, true, (start), (tres), { (h0), (h1) } }
#define UK(start, tres, h0, h1) { false, false, false, (start), (tres), { (h0), (h1) } }
#define A(start, tres, h0, h1) { true, true, false, (start), (tres), { (h0), (h1) } }
#define END { .start = -1 }

struct rel_case {
	const char *what;
	bool blocked_allocated;
	enum sb_nonresumable nonres;
	size_t nlimits;
	struct sb_limit limits[2];
	struct hold holders[6];		/* up to END */
	int want;			/* verdict */
	int chosen[6];			/* indexes, -1 ends */
};

static const struct rel_case cases[] = {
	{ .what = "the basic case: GrpTRES gpu=8 held by an unallocated 8-GPU "
	  "job: it is released",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { U(0, 8, 8, 0), END },                  .want = SB_LIMIT_RELEASE,
	  .chosen = { 0, -1 } },
	{ .what = "control: the team's own allocated job (past its min runtime, lower "
	  "standing) fills the limit: nothing released",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { A(0, 8, 8, 0), END },                  .want = SB_LIMIT_OWN,
	  .chosen = { -1 } },
	{ .what = "4 allocated + 4 unallocated, needs 4: only the unallocated job",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 4 },
	  },
	  .holders = { A(0, 4, 4, 0), U(0, 4, 4, 0), END },   .want = SB_LIMIT_RELEASE,
	  .chosen = { 1, -1 } },
	{ .what = "4 allocated + 4 unallocated, needs 8: all or nothing: nothing",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { A(0, 4, 4, 0), U(0, 4, 4, 0), END },   .want = SB_LIMIT_OWN,
	  .chosen = { -1 } },
	{ .what = "room under the limit: nothing to do",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 4,   .want = 4 },
	  },
	  .holders = { U(0, 4, 4, 0), END },                  .want = SB_LIMIT_FITS,
	  .chosen = { -1 } },
	{ .what = "a victim in its grace time already makes the room",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { UG(0, 8, 8, 0), END },                 .want = SB_LIMIT_FITS,
	  .chosen = { -1 } },
	{ .what = "grace makes half the room: one more job, not the graced one",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { UG(0, 4, 4, 0), U(0, 4, 4, 0), END },  .want = SB_LIMIT_RELEASE,
	  .chosen = { 1, -1 } },
	{ .what = "just enough: three 2-GPU jobs, needs 4: the two youngest runs",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 6,  .used = 6,   .want = 4 },
	  },
	  .holders = { U(100, 2, 2, 0), U(500, 2, 2, 0), U(900, 2, 2, 0), END }, .want = SB_LIMIT_RELEASE,
	  .chosen = { 2, 1, -1 } },
	{ .what = "a small job first in order, then a big one that alone suffices: the "
	  "small one is given back",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 5,  .used = 5,   .want = 4 },
	  },
	  .holders = { U(990, 1, 1, 0), U(0, 4, 4, 0), END }, .want = SB_LIMIT_RELEASE,
	  .chosen = { 1, -1 } },
	{ .what = "account and parent limits: a job of a sibling account counts only "
	  "at the parent; the account's own job covers both",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 2,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 2 },
		{ .cap = 16, .used = 16,  .want = 2 },
	  },
	  .holders = { U(990, 1, 0, 1), U(0, 2, 2, 2), END }, .want = SB_LIMIT_RELEASE,
	  .chosen = { 1, -1 } },
	{ .what = "parent limit only: the sibling account's job is released",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 2,
	  .limits = {
		{ .cap = 8,  .used = 4,   .want = 2 },
		{ .cap = 16, .used = 16,  .want = 2 },
	  },
	  .holders = { U(0, 2, 0, 2), A(0, 4, 4, 4), END },   .want = SB_LIMIT_RELEASE,
	  .chosen = { 0, -1 } },
	{ .what = "a job that does not count against the short limit is not taken",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { U(0, 8, 0, 0), A(0, 8, 8, 0), END },   .want = SB_LIMIT_OWN,
	  .chosen = { -1 } },
	{ .what = "PreemptNonResumable=keep: a non-resumable unallocated job is kept",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_KEEP,   .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { UK(0, 8, 8, 0), END },                 .want = SB_LIMIT_OWN,
	  .chosen = { -1 } },
	{ .what = "PreemptNonResumable=cancel: it is released (cancelled)",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { UK(0, 8, 8, 0), END },                 .want = SB_LIMIT_RELEASE,
	  .chosen = { 0, -1 } },
	{ .what = "an unallocated blocked job never releases anything",
	  .blocked_allocated = false, .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { U(0, 8, 8, 0), END },                  .want = SB_LIMIT_UNALLOCATED,
	  .chosen = { -1 } },
	{ .what = "the job alone exceeds the cap: nothing released",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 16 },
	  },
	  .holders = { U(0, 8, 8, 0), END },                  .want = SB_LIMIT_NEVER,
	  .chosen = { -1 } },
	{ .what = "no cap (SB_LIMIT_NONE) is no limit",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = SB_LIMIT_NONE, .used = 100, .want = 8 },
	  },
	  .holders = { U(0, 8, 8, 0), END },                  .want = SB_LIMIT_FITS,
	  .chosen = { -1 } },
	{ .what = "GrpJobs: 2 of 2 running, one more wanted: one job, the youngest",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 2,  .used = 2,   .want = 1 },
	  },
	  .holders = { U(10, 1, 1, 0), U(800, 1, 1, 0), END }, .want = SB_LIMIT_RELEASE,
	  .chosen = { 1, -1 } },
	{ .what = "huge counts saturate instead of overflowing",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = UINT64_MAX - 2, .used = UINT64_MAX - 1, .want = 5 },
	  },
	  .holders = { U(0, 1, UINT64_MAX, 0), END },         .want = SB_LIMIT_RELEASE,
	  .chosen = { 0, -1 } },
	{ .what = "no running job at all, short: nothing to release",
	  .blocked_allocated = true,  .nonres = SB_NONRESUMABLE_CANCEL, .nlimits = 1,
	  .limits = {
		{ .cap = 8,  .used = 8,   .want = 8 },
	  },
	  .holders = { END },                                 .want = SB_LIMIT_OWN,
	  .chosen = { -1 } },
};

START_TEST(test_release)
{
	const struct rel_case *c = &cases[_i];
	struct sb_limit_holder h[6];
	struct sb_preempt_policy pol;
	struct sb_preempt_job blocked = {
		.contract = { 600, true, c->blocked_allocated, true },
		.start = 0, .priority = P(c->blocked_allocated, 5), .tres = 8 };
	size_t n = 0, chosen[6], nchosen = 99, i, want_n = 0;
	char why[256];
	int v;

	sb_preempt_policy_init(&pol);
	pol.nonresumable = c->nonres;
	if (!c->blocked_allocated)
		blocked.contract.min_runtime = 0;
	for (n = 0; n < 6 && c->holders[n].start >= 0; n++) {
		const struct hold *x = &c->holders[n];

		memset(&h[n], 0, sizeof(h[n]));
		h[n].party.job.contract.allocated = x->allocated;
		h[n].party.job.contract.resumable = x->resumable;
		h[n].party.job.contract.requeueable = true;
		h[n].party.job.contract.min_runtime = x->allocated ? 60 : 0;
		h[n].party.job.start = x->start;
		h[n].party.job.priority = P(x->allocated, 3);
		h[n].party.job.tres = x->tres;
		h[n].party.in_grace = x->in_grace;
		h[n].party.index = SB_NONE;
		h[n].holds = x->holds;
	}
	v = sb_limit_release(&pol, &blocked, c->limits, c->nlimits, h, n, NOW,
			     chosen, &nchosen, why, sizeof(why));
	ck_assert_msg(v == c->want, "%s: got %d (%s), want %d (%s); why: %s",
		      c->what, v, sb_limit_verdict_str(v), c->want,
		      sb_limit_verdict_str(c->want), why);
	ck_assert_msg(why[0], "%s: no explanation", c->what);
	while (want_n < 6 && c->chosen[want_n] >= 0)
		want_n++;
	ck_assert_msg(nchosen == want_n, "%s: %zu chosen, want %zu (%s)",
		      c->what, nchosen, want_n, why);
	for (i = 0; i < want_n; i++)
		ck_assert_msg(chosen[i] == (size_t)c->chosen[i],
			      "%s: chosen[%zu] = %zu, want %d", c->what, i,
			      chosen[i], c->chosen[i]);
}
END_TEST

START_TEST(test_einval)
{
	struct sb_preempt_policy pol;
	struct sb_preempt_job blocked = { .contract = { 60, true, true, true }, .start = 0, .priority = P(true, 5), .tres = 8, .suspended = 0 };
	struct sb_limit l = { 8, 8, 8 };
	struct sb_limit_holder h = { .party = { .index = SB_NONE } };
	size_t chosen[1], n;

	sb_preempt_policy_init(&pol);
	ck_assert_int_eq(sb_limit_release(NULL, &blocked, &l, 1, NULL, 0, NOW,
					  NULL, &n, NULL, 0), SB_EINVAL);
	ck_assert_int_eq(sb_limit_release(&pol, NULL, &l, 1, NULL, 0, NOW,
					  NULL, &n, NULL, 0), SB_EINVAL);
	ck_assert_int_eq(sb_limit_release(&pol, &blocked, &l, 1, NULL, 0, NOW,
					  NULL, NULL, NULL, 0), SB_EINVAL);
	ck_assert_int_eq(sb_limit_release(&pol, &blocked, NULL, 1, NULL, 0,
					  NOW, NULL, &n, NULL, 0), SB_EINVAL);
	/* a holder without its holds */
	ck_assert_int_eq(sb_limit_release(&pol, &blocked, &l, 1, &h, 1, NOW,
					  chosen, &n, NULL, 0), SB_EINVAL);
	/* too many limits */
	ck_assert_int_eq(sb_limit_release(&pol, &blocked, &l, SB_LIMIT_MAX + 1,
					  NULL, 0, NOW, NULL, &n, NULL, 0),
			 SB_EINVAL);
	/* no limits at all: fits */
	ck_assert_int_eq(sb_limit_release(&pol, &blocked, NULL, 0, NULL, 0, NOW,
					  NULL, &n, NULL, 0), SB_LIMIT_FITS);
	ck_assert_uint_eq(n, 0);
	ck_assert_str_eq(sb_limit_verdict_str(77), "unknown verdict");
	ck_assert_str_eq(sb_limit_verdict_str(SB_EINVAL), sb_strerror(SB_EINVAL));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("limits");

	tcase_add_loop_test(tc, test_release, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_einval);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
