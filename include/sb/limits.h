/*
 * sb/limits.h - free occupancy never blocks paid work behind a Slurm limit.
 *
 * Slurm's association and QOS limits (GrpTRES, GrpJobs, ...) count every
 * running job of the association subtree or QOS, the unallocated ones (min
 * runtime 0, charged to nobody) included.  With GrpTRES=gres/gpu=8 on an
 * account and the account's unallocated 8-GPU job running, the account's
 * allocated job pends (AssocGrpGRES) forever: Slurm's preemption looks
 * only at node resources, never at limits (doc/design.md, "Slurm limits").
 *
 * This module answers, for one allocated job pending behind limits, WHICH
 * running jobs to release so that every limit it is short of has room:
 *   - only unallocated jobs are released (an allocated job filling the
 *     limit is work a budget pays for: the blocked job waits, as Slurm
 *     intends), and only those sb_preempt_check() allows (not kept by
 *     PreemptNonResumable=keep);
 *   - jobs already in their grace time count as leaving: what they hold is
 *     subtracted first, and they are never chosen again;
 *   - victims are taken in sb_preempt_victim_cmp() order, each only if it
 *     holds something against a limit still short, until no limit is
 *     short; then any chosen victim that is not needed after all (a later,
 *     larger one covered its share) is given back, latest first, so the
 *     set is just enough;
 *   - all or nothing: if the limits cannot all be met by releasing
 *     unallocated jobs, nothing is released (the blocked job could not
 *     start anyway).
 *
 * Limits are counters in any unit the caller chooses (GPUs for GrpTRES on
 * gres/gpu, jobs for GrpJobs); the caller gives, per limit, its cap, what
 * running jobs hold now, and what the blocked job would add, and per
 * running job what it holds against each limit (0: it does not count
 * there, e.g. a job of another account).
 *
 * No Slurm, no clock: @now is the time of the question, seconds.
 */
#ifndef SB_LIMITS_H
#define SB_LIMITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/preempt.h"
#include "sb/view.h"

/* Cap meaning "no limit" (Slurm's INFINITE64 has the same value). */
#define SB_LIMIT_NONE UINT64_MAX

/* Most limits one question may carry. */
#define SB_LIMIT_MAX 64

/* One limit the blocked job is judged against. */
struct sb_limit {
	uint64_t cap;	/* the limit, SB_LIMIT_NONE for none */
	uint64_t used;	/* held by running jobs now (Slurm's grp_used_*) */
	uint64_t want;	/* what the blocked job adds by starting */
};

/* One running job that may count against the limits. */
struct sb_limit_holder {
	struct sb_preempt_party party;	/* contract, start, priority, charged
					 * TRES (work lost), in_grace */
	const uint64_t *holds;	/* nlimits entries: what it holds against
				 * limit i, 0 where it does not count */
};

/* The answer of sb_limit_release(). */
enum sb_limit_verdict {
	SB_LIMIT_FITS = 0,	/* no limit is short (or jobs in their grace
				 * time already make room): release nothing */
	SB_LIMIT_RELEASE,	/* release the chosen jobs */
	SB_LIMIT_OWN,		/* short even with every releasable job gone:
				 * the limit is filled by allocated (paid) or
				 * kept work; release nothing */
	SB_LIMIT_NEVER,		/* the blocked job alone exceeds a cap: no
				 * release can help; release nothing */
	SB_LIMIT_UNALLOCATED,	/* the blocked job is unallocated: free work
				 * never releases anything */
};

/*
 * sb_limit_release - which running jobs to release so that @blocked fits
 * under every limit (rules at the top of this file).
 * @pol:      the site's preemption settings (PreemptNonResumable);
 * @blocked:  the pending job (its contract and priority);
 * @limits:   @nlimits limits (at most SB_LIMIT_MAX; limits with
 *            cap SB_LIMIT_NONE are ignored);
 * @holders:  @nholders running jobs, in any order;
 * @chosen:   out, room for @nholders indexes into @holders, written in
 *            release order (may be NULL when @nholders is 0);
 * @nchosen:  out, how many (0 unless SB_LIMIT_RELEASE);
 * @why:      when not NULL, a sentence for the log (at most @len bytes):
 *            which limit is short by how much, what is released.
 * Return: an sb_limit_verdict (>= 0), or SB_EINVAL (< 0) for NULL
 * arguments, a holder without holds, or more than SB_LIMIT_MAX limits,
 * SB_ENOMEM.  Sums saturate: no overflow whatever the counts.
 */
int sb_limit_release(const struct sb_preempt_policy *pol,
		     const struct sb_preempt_job *blocked,
		     const struct sb_limit *limits, size_t nlimits,
		     const struct sb_limit_holder *holders, size_t nholders,
		     int64_t now, size_t *chosen, size_t *nchosen, char *why,
		     size_t len);

/* sb_limit_verdict_str - a short English reason for a verdict, or
 * sb_strerror() of a negative code; static storage, never NULL. */
const char *sb_limit_verdict_str(int v);

#endif /* SB_LIMITS_H */
