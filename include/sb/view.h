/*
 * sb/view.h - the budget view: the one place where a job's contract as it
 * runs, committed usage, and the full preemption verdict are decided.
 *
 * priority/budget, preempt/budget, sbudget and sbudget-sim only gather
 * inputs (a job's tag, start, priority, charged TRES, association) and act
 * on what these functions answer.  No Slurm, no clock: times are seconds on
 * any common scale, given by the caller.
 *
 * A view is a tree plus two usage arrays, one entry per tree index, each a
 * subtree sum (an entry includes its descendants):
 *   charged    windowed allocated usage as the ledger has it (TRES-seconds;
 *              sb_ledger_usage_all(..., subtree = true));
 *   committed  the uncharged rest of running allocated jobs' minimum
 *              runtimes (TRES-seconds; sb_view_commit()).
 * The standing's input and the reclaim rule's U are charged + committed
 * (sb_view_usage()); see "Committed usage" in doc/design.md for why.
 */
#ifndef SB_VIEW_H
#define SB_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/contract.h"
#include "sb/preempt.h"
#include "sb/tree.h"

/*
 * sb_contract_of_job - the contract a job runs under, from the tag at the
 * start of its AdminComment (sb_contract_format()) and what the resource
 * manager can do with it.
 * @tag:        the AdminComment, may be NULL;
 * @requeue_ok: the job can be requeued (in Slurm: a batch job whose
 *              requeue flag is set), copied to out->requeueable; when
 *              false the job is not resumable whatever its tag says,
 *              since a requeue would fail and the job be killed instead.
 * A job without a valid tag (started before the plugins were loaded, or
 * submitted around job_submit/budget) is *unallocated*: min runtime 0,
 * charged to nobody, preemptable at once, never a preemptor.  Nothing that
 * no budget backs is protected or charged.
 * Return: SB_OK (from the tag) or SB_EMISSING (no valid tag: the default
 * above was written), SB_EINVAL for a NULL @out.
 */
int sb_contract_of_job(const char *tag, bool requeue_ok,
		       struct sb_contract *out);

/*
 * sb_contract_job_allocated - only whether a job runs allocated, for hot
 * paths (Slurm's queue sort): sb_contract_tag_allocated() == 1, so a job
 * without a valid tag is unallocated, as sb_contract_of_job() says.
 */
bool sb_contract_job_allocated(const char *tag);

/*
 * sb_committed_rest - TRES-seconds of @job's minimum runtime not yet run at
 * @now: tres x (start + min_runtime + suspended - now), i.e. tres x
 * (sb_preempt_protected_until() - now), for an allocated job that has
 * started (start <= now) and is inside its minimum runtime; 0 otherwise.
 * While a job is suspended its rest stays the same (suspended grows with
 * now).
 * Counted as committed usage: protected from preemption, it will be
 * charged unless the job ends early.
 */
double sb_committed_rest(const struct sb_preempt_job *job, int64_t now);

/* Levels of an association tree the view handles (deeper trees are refused
 * by sb_view_init()); Slurm itself has no limit, real trees have 3-6. */
#define SB_VIEW_MAX_DEPTH 64

/* A budget view; see the top of this file.  Fill with sb_view_init(). */
struct sb_view {
	const struct sb_tree *tree;	/* borrowed, finalized */
	uint32_t n;			/* sb_tree_count(tree) */
	double *charged;		/* n entries, subtree sums */
	double *committed;		/* n entries, subtree sums */
};

/*
 * sb_view_init - a view of @tree with every usage 0.  @tree must outlive
 * the view.  Return: SB_OK; SB_EINVAL (NULL, unfinalized tree, or a tree
 * deeper than SB_VIEW_MAX_DEPTH), SB_ENOMEM.  On error @v is left empty
 * (safe to sb_view_free()).
 */
int sb_view_init(struct sb_view *v, const struct sb_tree *tree);

/* sb_view_free - free the arrays; @v may be NULL or empty. */
void sb_view_free(struct sb_view *v);

/*
 * sb_view_set_charged - copy @usage (n entries, subtree sums, TRES-seconds,
 * as sb_ledger_usage_all(..., true, ...) writes) into the charged array.
 * Return: SB_OK; SB_EINVAL (NULL, or a negative or non-finite entry: the
 * previous values are kept).
 */
int sb_view_set_charged(struct sb_view *v, const double *usage);

/* sb_view_clear_committed - committed usage back to 0 everywhere. */
void sb_view_clear_committed(struct sb_view *v);

/*
 * sb_view_commit - add @job's sb_committed_rest() at @now to association
 * @index and every ancestor.  A job with nothing committed is a no-op.
 * Return: SB_OK; SB_EINVAL (NULL, index out of range).
 */
int sb_view_commit(struct sb_view *v, uint32_t index,
		   const struct sb_preempt_job *job, int64_t now);

/*
 * sb_view_usage - charged + committed of association @index's subtree,
 * TRES-seconds; 0 for an index out of range.  This is the standing's input
 * (sb_view_usage_all()) and the reclaim rule's U.
 */
double sb_view_usage(const struct sb_view *v, uint32_t index);

/*
 * sb_view_usage_all - sb_view_usage() of every index into @out (n
 * entries), for sb_standing_compute_usage().  Return: SB_OK, SB_EINVAL.
 */
int sb_view_usage_all(const struct sb_view *v, double *out);

/*
 * sb_tree_diverge - where the paths of associations @a and @b part: the
 * two siblings (@pa an ancestor-or-self of @a, @pb of @b) with a common
 * parent (or both at the top level).  Return: true with @pa/@pb set; false
 * when @a == @b, one is the other's ancestor, or an index is out of range.
 */
bool sb_tree_diverge(const struct sb_tree *tree, uint32_t a, uint32_t b,
		     uint32_t *pa, uint32_t *pb);

/* One side of a preemption question. */
struct sb_preempt_party {
	struct sb_preempt_job job;	/* contract, start, current priority,
					 * charged TRES */
	uint32_t index;		/* tree index of its association, SB_NONE
				 * when unknown */
	bool in_grace;		/* a victim already being preempted (its
				 * grace time runs): on its way out */
};

/*
 * sb_preempt_decide - the full verdict: may pending @preemptor take running
 * @victim's resources at @now?  In this order:
 *   1. an unallocated preemptor never preempts (SB_PREEMPT_UNALLOCATED);
 *   2. a victim already in its grace time is on its way out for any
 *      allocated preemptor (SB_PREEMPT_YES: counting on its resources is
 *      better than taking another job);
 *   3. sb_preempt_check() (protected, outranked, kept);
 *   4. an allocated victim of another budget: with no view (@v NULL: the
 *      priority plugin is not priority/budget, no standing is known),
 *      SB_PREEMPT_NOVIEW; otherwise the reclaim rule at the point where
 *      the two associations' paths diverge (sb_tree_diverge()):
 *      sb_preempt_reclaim_ok(S_p, U_p, delta, S_v, U_v) with S the
 *      siblings' shares_norm, U their sb_view_usage(), and delta =
 *      preemptor's TRES x its min runtime (SB_PREEMPT_RECLAIM).  Same
 *      association, or one the other's ancestor, or an unknown index:
 *      in-team priority decided in step 3.
 * Whether the freed resources suffice is the caller's (Slurm's select
 * plugin, the simulator's placement).
 * @why: when not NULL, a sentence for logs and `sbudget show job` naming
 * the rule and, for the reclaim rule, its figures (at most @len bytes).
 */
enum sb_preempt_verdict sb_preempt_decide(const struct sb_preempt_policy *pol,
					  const struct sb_view *v,
					  const struct sb_preempt_party *preemptor,
					  const struct sb_preempt_party *victim,
					  int64_t now, char *why, size_t len);

#endif /* SB_VIEW_H */
