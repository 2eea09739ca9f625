/* limits.c - which unallocated jobs to release for a job pending behind a
 * Slurm limit; see sb/limits.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/limits.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* A candidate victim with its order key (sb_preempt_victim_cmp()). */
struct cand {
	uint32_t key;
	int64_t start;
	size_t idx;
};

/* sb_preempt_victim_cmp() on precomputed keys: lower key first, then the
 * later start (the younger run loses less), then input order (stable). */
static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Whether @freed covers @need for every limit. */
static bool all_met(const uint64_t *need, const uint64_t *freed, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (freed[i] < need[i])
			return false;
	return true;
}

static void say(char *why, size_t len, const char *fmt, const char *what,
		size_t a, unsigned long long b, unsigned long long c)
{
	if (why && len)
		snprintf(why, len, fmt, what, a, b, c);
}

/*
 * need_i = used + want - cap of each limit, when positive (0 for a limit
 * without a cap); @freed zeroed; @first_short the first limit short
 * (SIZE_MAX: none).  Return: 0, or SB_LIMIT_NEVER (with @why) when the job
 * alone wants more than a cap.
 */
static int limits_need(const struct sb_limit *limits, size_t nlimits,
		       uint64_t *need, uint64_t *freed, size_t *first_short,
		       char *why, size_t len)
{
	size_t i;

	*first_short = SIZE_MAX;
	for (i = 0; i < nlimits; i++) {
		const struct sb_limit *l = &limits[i];

		freed[i] = 0;
		need[i] = 0;
		if (l->cap == SB_LIMIT_NONE)
			continue;
		if (l->want > l->cap) {
			if (why && len)
				snprintf(why, len, "limit %zu: the job alone "
					 "wants %llu, the cap is %llu", i,
					 (unsigned long long)l->want,
					 (unsigned long long)l->cap);
			return SB_LIMIT_NEVER;
		}
		need[i] = sat_sub(sat_add(l->used, l->want), l->cap);
		if (need[i] && *first_short == SIZE_MAX)
			*first_short = i;
	}
	return 0;
}

/*
 * Give back, latest first, any of the @nt @chosen victims that the others
 * already cover (@freed minus what it holds still meets @need).  Return:
 * how many stay chosen; @chosen and @freed updated.
 */
static size_t give_back(const struct sb_limit_holder *holders,
			size_t *chosen, size_t nt, const uint64_t *need,
			uint64_t *freed, size_t nlimits)
{
	size_t h, i;

	for (h = nt; h-- > 0;) {
		const uint64_t *held = holders[chosen[h]].holds;
		bool spare = true;

		for (i = 0; i < nlimits && spare; i++)
			spare = freed[i] - held[i] >= need[i];
		if (!spare)
			continue;
		for (i = 0; i < nlimits; i++)
			freed[i] -= held[i];
		memmove(&chosen[h], &chosen[h + 1],
			(nt - h - 1) * sizeof(*chosen));
		nt--;
	}
	return nt;
}

/*
 * One function of about 100 lines: its steps (the need, the jobs in their
 * grace time, the releasable jobs in victim order, the taking, the giving
 * back) share need[] and freed[] and each may end the question with its
 * own verdict and sentence; the longest steps are already helpers
 * (limits_need(), give_back()).  The steps are in include/sb/limits.h.
 */
int sb_limit_release(const struct sb_preempt_policy *pol,
		     const struct sb_preempt_job *blocked,
		     const struct sb_limit *limits, size_t nlimits,
		     const struct sb_limit_holder *holders, size_t nholders,
		     int64_t now, size_t *chosen, size_t *nchosen, char *why,
		     size_t len)
{
	uint64_t need[SB_LIMIT_MAX], freed[SB_LIMIT_MAX];
	struct cand *c = NULL;
	size_t i, h, nc = 0, nt = 0, first_short = SIZE_MAX;
	int rc;

	if (!pol || !blocked || !nchosen || (nlimits && !limits) ||
	    (nholders && (!holders || !chosen)) || nlimits > SB_LIMIT_MAX)
		return SB_EINVAL;
	*nchosen = 0;
	if (why && len)
		why[0] = '\0';
	for (h = 0; h < nholders; h++)
		if (nlimits && !holders[h].holds)
			return SB_EINVAL;
	if (!blocked->contract.allocated) {
		say(why, len, "%s", sb_limit_verdict_str(SB_LIMIT_UNALLOCATED),
		    0, 0, 0);
		return SB_LIMIT_UNALLOCATED;
	}

	if (limits_need(limits, nlimits, need, freed, &first_short, why, len))
		return SB_LIMIT_NEVER;
	if (first_short == SIZE_MAX) {
		say(why, len, "%s", "no limit is short", 0, 0, 0);
		return SB_LIMIT_FITS;
	}

	/* jobs in their grace time are leaving: what they hold is room */
	for (h = 0; h < nholders; h++)
		if (holders[h].party.in_grace)
			for (i = 0; i < nlimits; i++)
				freed[i] = sat_add(freed[i], holders[h].holds[i]);
	if (all_met(need, freed, nlimits)) {
		say(why, len, "%s", "jobs in their grace time make room", 0,
		    0, 0);
		return SB_LIMIT_FITS;
	}

	/* the releasable jobs, in victim order */
	if (nholders && !(c = calloc(nholders, sizeof(*c))))
		return SB_ENOMEM;
	for (h = 0; h < nholders; h++) {
		const struct sb_preempt_job *v = &holders[h].party.job;
		bool counts = false;

		if (holders[h].party.in_grace || v->contract.allocated ||
		    sb_preempt_check(pol, blocked, v, now) != SB_PREEMPT_YES)
			continue;
		for (i = 0; i < nlimits && !counts; i++)
			counts = need[i] && holders[h].holds[i];
		if (!counts)
			continue;
		c[nc].key = sb_preempt_victim_key(v, now);
		c[nc].start = v->start;
		c[nc].idx = h;
		nc++;
	}
	if (nc > 1)
		qsort(c, nc, sizeof(*c), cand_cmp);

	/* take each one that helps a limit still short, until none is */
	for (h = 0; h < nc && !all_met(need, freed, nlimits); h++) {
		const uint64_t *held = holders[c[h].idx].holds;
		bool helps = false;

		for (i = 0; i < nlimits && !helps; i++)
			helps = freed[i] < need[i] && held[i];
		if (!helps)
			continue;
		for (i = 0; i < nlimits; i++)
			freed[i] = sat_add(freed[i], held[i]);
		chosen[nt++] = c[h].idx;
	}
	if (!all_met(need, freed, nlimits)) {
		for (i = 0; i < nlimits && freed[i] >= need[i]; i++)
			;
		say(why, len, "%s: limit %zu is short by %llu, releasable "
		    "unallocated jobs free %llu", sb_limit_verdict_str(
		    SB_LIMIT_OWN), i, (unsigned long long)need[i],
		    (unsigned long long)freed[i]);
		rc = SB_LIMIT_OWN;
		nt = 0;
		goto out;
	}

	nt = give_back(holders, chosen, nt, need, freed, nlimits);
	say(why, len, "%s: %zu job(s); limit %llu was short by %llu",
	    sb_limit_verdict_str(SB_LIMIT_RELEASE), nt,
	    (unsigned long long)first_short,
	    (unsigned long long)need[first_short]);
	rc = SB_LIMIT_RELEASE;
out:
	free(c);
	*nchosen = nt;
	return rc;
}

const char *sb_limit_verdict_str(int v)
{
	switch (v) {
	case SB_LIMIT_FITS:
		return "the job fits under its limits";
	case SB_LIMIT_RELEASE:
		return "releasing unallocated jobs that count against the "
		       "limit";
	case SB_LIMIT_OWN:
		return "the limit is held by allocated or kept work: nothing "
		       "released";
	case SB_LIMIT_NEVER:
		return "the job alone exceeds the limit: nothing released";
	case SB_LIMIT_UNALLOCATED:
		return "an unallocated job never releases others";
	}
	return v < 0 ? sb_strerror(v) : "unknown verdict";
}
