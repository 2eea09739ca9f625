/*
 * sb/standing.h - hierarchical fair-share: which budgets are furthest below
 * their entitlement, as one order over all associations.
 *
 * Fair Tree (Slurm's src/plugins/priority/multifactor/fair_tree.c and
 * https://slurm.schedmd.com/fair_tree.html), on the budget tree and the
 * ledger's windowed *allocated* usage:
 *
 *   At each level the siblings are ordered by their Level Fairshare
 *       LF = S / U
 *   S = shares_norm (sb/tree.h: level_shares / level_sum, idle siblings
 *       included), U = the sibling's windowed allocated usage (its whole
 *       subtree) / the sum of its siblings' usage.  LF > 1: under-served.
 *   Siblings sort by class, then LF, best first:
 *       USE_PARENT  (RawShares "parent": transparent, always first)
 *     > IDLE        (S > 0, U = 0: LF would be +infinity)
 *     > FINITE      (S > 0, U > 0, by LF = S/U descending)
 *     > NOSHARES    (S = 0: no budget, always last)
 *   Equal class and LF is a tie.  The LF is computed as
 *       LF = (level_shares * sum of siblings' usage) / (level_sum * usage)
 *   in long double from the integer shares, so no value of shares or usage
 *   produces NaN, infinity or overflow, scaling every sibling's shares by
 *   the same factor changes nothing, and an idle sibling (usage 0, which
 *   adds to level_sum but not to the usage sum) scales every sibling's LF by
 *   the same factor: it cannot change the order of the others.
 *
 *   Depth first: every leaf below a better-ranked sibling comes before every
 *   leaf below a worse one.  Tied siblings are handled as Fair Tree does:
 *   the tied leaves come first and share a rank; the children of the tied
 *   siblings that have children are merged into one group, sorted together
 *   (each by its LF against its own siblings), and the best of that group
 *   share the rank of the tied leaves before them.  So budgets that are
 *   exactly tied (for instance all idle at startup) are not ordered by an
 *   accident of their ids.
 *
 * Results per association (struct sb_standing_node):
 *   rank    among the leaves (associations without children, Slurm's user
 *           associations), 0 = best, competition ranking: tied leaves share
 *           the rank of the first of them and the next rank skips (0,1,1,3).
 *           An association with children takes the rank of the worst leaf
 *           of its subtree (it may hold jobs in the simulator).
 *   factor  1 - rank / (nleaves - 1), in [0, 1], 1 = best; 1 when there is a
 *           single leaf.  Equal ranks give equal factors.
 *   position and level: a strict order over all associations: the walk
 *           above, ties broken by ascending id, and each association with
 *           children placed right after the last leaf of the group its
 *           children were sorted in.  level is the priority level derived
 *           from the position (sb/priority.h).  Strict so that one team's
 *           in-team priority can never lift its jobs above another team's,
 *           even a tied one; the price is that between exactly tied budgets
 *           the lower id goes first (until the next recalculation, by when
 *           the one that started jobs has usage and the tie is gone).
 *
 * Cost: O(n log n) for n associations plus the ledger read (O(n * buckets));
 * afterwards every query is O(1).  Not thread-safe while computing; queries
 * may run concurrently with each other.
 */
#ifndef SB_STANDING_H
#define SB_STANDING_H

#include <stddef.h>
#include <stdint.h>

#include "sb/ledger.h"
#include "sb/tree.h"

/* How an association's LF compares; higher classes rank first. */
enum sb_lf_class {
	SB_LF_NOSHARES = 0,	/* S = 0: no budget; level_fs = 0 */
	SB_LF_FINITE = 1,	/* S > 0, U > 0: level_fs = S / U */
	SB_LF_IDLE = 2,		/* S > 0, U = 0: level_fs = DBL_MAX */
	SB_LF_USE_PARENT = 3,	/* RawShares "parent": level_fs = DBL_MAX */
};

/* The standing of one association; see the top of this file. */
struct sb_standing_node {
	double usage;		/* windowed allocated usage, own + subtree,
				 * TRES-seconds */
	double usage_norm;	/* U = usage / siblings' usage, [0, 1]; 0 when
				 * every sibling is idle */
	double shares_norm;	/* S, from the tree, [0, 1] */
	double level_fs;	/* LF, finite, >= 0 (see enum sb_lf_class) */
	enum sb_lf_class lf_class;
	uint32_t rank;		/* among leaves, 0 = best, ties share */
	double factor;		/* [0, 1], 1 = best */
	uint32_t position;	/* strict order over all nodes, 0 = first */
	uint32_t level;		/* priority level, 1..SB_PRIO_LEVEL_MAX */
};

struct sb_standing;

/*
 * sb_standing_new - room for the standing of @tree's associations.
 * @tree: finalized; must outlive the standing.
 * @out:  the caller frees it with sb_standing_free().  Until the first
 *        sb_standing_compute*() every node reads as zero, with level 1.
 * Return: SB_OK; SB_EINVAL (NULL or unfinalized tree, NULL @out), SB_ENOMEM.
 */
int sb_standing_new(const struct sb_tree *tree, struct sb_standing **out);

/* sb_standing_free - NULL is a no-op. */
void sb_standing_free(struct sb_standing *st);

/*
 * sb_standing_compute - recompute from @ledger's allocated usage at @now
 * (seconds since the epoch).  @ledger must be bound to the standing's tree.
 * Return: SB_OK; SB_EINVAL (NULL arguments, or a ledger of another tree).
 */
int sb_standing_compute(struct sb_standing *st, const struct sb_ledger *ledger,
			int64_t now);

/*
 * sb_standing_compute_usage - recompute from @usage[i], the windowed
 * allocated usage (TRES-seconds) of association i *with its subtree*, for
 * every index of the tree (as sb_ledger_usage_all() writes it).
 * Return: SB_OK; SB_EINVAL (NULL arguments, or a usage that is negative,
 * NaN or infinite; the previous results are then kept).
 */
int sb_standing_compute_usage(struct sb_standing *st, const double *usage);

/*
 * sb_usage_commit - add @tres_seconds of *committed* usage of association
 * @index to @usage[index] and to each ancestor's entry (@usage as
 * sb_ledger_usage_all() writes it: one entry per tree index, subtree sums).
 * Committed usage is the part of a running job's minimum runtime not yet
 * charged: protected from preemption, it will be charged unless the job
 * ends early.  Counting it in the standing input (never in the ledger)
 * makes a start weigh on its budget at once rather than one job length
 * later, so a burst of starts between two recalculations cannot overshoot
 * a budget's share by more than one CalcPeriod of starts.
 * Return: SB_OK; SB_EINVAL (NULL, index out of range, negative or not
 * finite @tres_seconds).
 */
int sb_usage_commit(const struct sb_tree *tree, double *usage, uint32_t index,
		    double tres_seconds);

/*
 * sb_standing_node - the standing of association @index.  Return: a
 * pointer owned by @st, overwritten by the next compute; NULL when @index is
 * out of range.
 */
const struct sb_standing_node *sb_standing_node(const struct sb_standing *st,
						uint32_t index);

/*
 * sb_standing_order - all associations in the strict order (the inverse of
 * `position`), @n set to their number.  Owned by @st.
 */
const uint32_t *sb_standing_order(const struct sb_standing *st, uint32_t *n);

/*
 * sb_standing_path - for explanations (sprio, sshare, `sbudget show`): the
 * indices from the top level down to @index, @index last; read each one's
 * level_fs and lf_class with sb_standing_node().  Writes at most @cap.
 * Return: the path length (depth + 1), which may exceed @cap; 0 for an
 * index out of range.
 */
size_t sb_standing_path(const struct sb_standing *st, uint32_t index,
			uint32_t *path, size_t cap);

/* sb_standing_tree - the tree the standing belongs to. */
const struct sb_tree *sb_standing_tree(const struct sb_standing *st);

/* How a budget stands against its entitlement, as users are told
 * (sbudget's Status column). */
enum sb_served {
	SB_SERVED_NO_BUDGET = 0,	/* entitled to nothing */
	SB_SERVED_IDLE,		/* entitled, no charged usage in the window */
	SB_SERVED_UNDER,	/* usage share < 99% of the entitlement */
	SB_SERVED_ON_TARGET,	/* within 1% of it */
	SB_SERVED_OVER,		/* usage share > 101% of the entitlement */
};

/*
 * sb_served - classify a budget by its share of the cluster's charged
 * usage in the lookback window, @usage_share (a fraction, 0..1), against
 * @entitled, the fraction of the cluster its shares entitle it to (the
 * product of shares_norm down its path, 0..1).  @usage_raw is its charged
 * usage, TRES-seconds (0 = idle, whatever the rounding of the share).
 * The 1% tolerance keeps a budget that is exactly served from flickering
 * between "under" and "over" with each second of rounding.
 * NaN or non-positive @entitled gives SB_SERVED_NO_BUDGET; a NaN
 * @usage_share counts as on target.
 */
enum sb_served sb_served(double usage_share, double entitled,
			 uint64_t usage_raw);

/* sb_served_str - "no budget", "idle", "under-served", "on target",
 * "over-served"; static storage; "unknown" for a value out of range. */
const char *sb_served_str(enum sb_served v);

#endif /* SB_STANDING_H */
