/*
 * sb/figures.h - owed, delivered and unallocated GPU time per budget: the
 * one definition that `sbudget show budget`, `sbudget report`, `sbudget
 * metrics`, `sbudget-sim metrics` (simulated and observed runs) and the
 * demo report all print.  No Slurm, no clock.
 *
 * Input: run segments of jobs (one per run of a job: a requeued job has one
 * segment per run), each with its association's tree index, its charged
 * TRES (GPUs), whether it ran allocated, and three times (seconds):
 *   eligible  when the job began to ask for this run (submit, begin time,
 *             or the requeue); 0 = no demand is counted;
 *   start     when the run started; 0 = it never started (pending only);
 *   end       when the run (or the pending span) ended; 0 = still open,
 *             counted until @now.
 *
 * Definitions, per association and over its whole subtree (as sshare's
 * RawUsage), in TRES-seconds, over [from, to) cut into slots of @slot
 * seconds (the last may be shorter); slot k is [s_k, e_k):
 *   delivered_k   sum over ALLOCATED segments of tres x |[start, end') ∩ slot|
 *                 where end' = end - suspended seconds (sb_run_charged_to:
 *                 suspended time holds no GPU time and is not charged)
 *   unallocated_k sum over UNALLOCATED segments of the same: occupancy that
 *                 no budget paid for;
 *   lost_k        sum over LOST segments, allocated or not, of the same:
 *                 runs whose work was thrown away (sb_run_work_lost(): a
 *                 preemption cancelled the job, or requeued it to start
 *                 over); delivered or unallocated as well, since they held
 *                 the GPUs, and counted again here as waste;
 *   demand_k      sum over ALLOCATED segments of tres x |[eligible, end) ∩
 *                 slot|: what the budget asked for and backed (pending or
 *                 running);
 *   quota_k       entitled x capacity x (e_k - s_k);
 *   owed_k        min(quota_k, demand_k): the quota capped by demand, slot by
 *                 slot (the reports' slot: SB_FIG_SLOT, an hour);
 *   capped_k      min(delivered_k, owed_k): what was delivered of what was
 *                 owed, so a surplus in one slot does not hide a shortfall
 *                 in another.
 * Totals are sums over the slots; the ratio a report shows (sb_fig_ratio) is
 * capped / owed (1 when nothing is owed).  "All teams" (sb_fig_all_teams)
 * is sum(capped) / sum(owed) over the teams a report lists (the budgets
 * that hold jobs), each team's capped computed on its own: a parent's
 * capped would let one child's surplus hide a sibling's shortfall in the
 * same slot (the project's target is stated per team: each team gets
 * >= 95% of the GPU-hours owed to it).
 *
 * Unallocated demand is owed nothing: a job of min runtime 0 is, by its own
 * contract, backed by no budget (it is free and preemptable); its GPU time
 * is reported apart (unallocated), never as delivered against owed.
 */
#ifndef SB_FIGURES_H
#define SB_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/tree.h"

/* One run (or pending span) of a job; see the top of this file. */
struct sb_fig_seg {
	uint32_t index;		/* tree index of its association; SB_NONE
				 * or out of range: ignored, counted */
	double tres;		/* charged TRES held (running) or asked for
				 * (pending), >= 0 */
	bool allocated;		/* min runtime > 0 (sb_contract_of_job) */
	int64_t eligible, start, end;	/* seconds, see above */
	int64_t suspended;	/* seconds of the run spent suspended (scontrol
				 * suspend): not delivered, as the ledger does
				 * not charge them; the run is delivered over
				 * [start, sb_run_charged_to(start, suspended,
				 * end)) */
	bool lost;		/* the run's work was thrown away
				 * (sb_run_work_lost()) */
};

/* Figures of one association (subtree) over a span, TRES-seconds. */
struct sb_fig {
	double delivered, unallocated, demand, quota, owed, capped, lost;
};

/*
 * sb_run_work_lost - whether a run that ended threw its work away, for
 * sb_fig_seg.lost: it ended because the job was preempted and cancelled
 * (@preempted_cancel; slurmdbd's PREEMPTED), or the job was requeued
 * (@requeued: by a preemption, or by an administrator: slurmdbd's
 * REQUEUED) and is not @resumable, so it starts over from its beginning.
 * (A run a node failure ended is NODE_FAIL in slurmdbd: not counted.)  A resumable job requeued keeps its work (it checkpointed);
 * a job that completed, failed, timed out or was cancelled by its user
 * lost nothing to the scheduler.
 */
bool sb_run_work_lost(bool requeued, bool preempted_cancel, bool resumable);

/* The slot owed is capped in, seconds: an hour ("owed = quota, capped
 * hourly by actual demand", the project's measure).  Reports that cut a span into steps of whole hours
 * sum these slots, so their figures add up to the span's. */
#define SB_FIG_SLOT 3600

/*
 * sb_fig_ratio - what a report shows as delivered/owed: capped / owed, 1
 * when nothing is owed (a budget that asked for nothing lacks nothing);
 * 0..1.  For all budgets, give the sums over the top-level budgets.
 * @f NULL: 1.
 */
double sb_fig_ratio(const struct sb_fig *f);

/*
 * sb_fig_nslots - the number of slots of @slot seconds in [@from, @to)
 * (the last may be shorter); 0 when @to <= @from or @slot <= 0.
 */
size_t sb_fig_nslots(int64_t from, int64_t to, int64_t slot);

/*
 * sb_figures - compute the figures over [@from, @to) in slots of @slot
 * seconds, for a cluster of @capacity TRES (GPUs), with @now closing open
 * segments.
 * @total:   out, sb_tree_count() entries (index order), over [from, to).
 * @series:  out, may be NULL: count x nslots entries, row-major by index
 *           ([i * nslots + k]).
 * @unknown: out, may be NULL: segments whose index is not in the tree.
 * Memory: O(count x nslots) doubles, freed before returning.
 * Return: SB_OK; SB_EINVAL (NULL tree/total, unfinalized tree, from >= to,
 * slot <= 0, capacity < 0 or not finite, nsegs > 0 with NULL segs),
 * SB_ENOMEM.
 */
int sb_figures(const struct sb_tree *tree, const struct sb_fig_seg *segs,
	       size_t nsegs, int64_t from, int64_t to, int64_t slot,
	       int64_t now, double capacity, struct sb_fig *total,
	       struct sb_fig *series, size_t *unknown);

/*
 * sb_fig_window - owed and delivered over the lookback window, as budgets
 * promise it ("within a week each group gets its allocated time"): the
 * slots of sb_figures()' @series cut into consecutive windows of @per
 * slots from the first (the last window may be shorter), and per
 * association and window w, TRES-seconds:
 *     demand_w, quota_w, delivered_w   the sums over the window's slots
 *     owed_w    min(quota_w, demand_w)
 *     capped_w  min(delivered_w, owed_w)
 * @total[i] holds the sums over the windows: delivered, unallocated,
 * lost, demand and quota as sb_figures()' totals, owed and capped per
 * window as above.  Beside the hourly figure it keeps a team honest whose
 * jobs are larger than its hourly quota: a team of 1 GPU of quota that
 * runs an 8-GPU job one hour in eight is owed and delivered 8 GPU-hours
 * in the window, where hour by hour it was owed 8 and got 1 capped.  The
 * ratio is sb_fig_ratio(); "all teams" is sb_fig_all_teams() on @total.
 *
 * @series:  count x @nslots entries ([i * nslots + k]), from sb_figures()
 *           with slot s; @per = the window / s (rounded up), >= 1.
 * @total:   out, @count entries.
 * Return: SB_OK; SB_EINVAL (NULL @total, @per 0, or @count and @nslots
 *         > 0 with NULL @series).
 */
int sb_fig_window(const struct sb_fig *series, uint32_t count, size_t nslots,
		  size_t per, struct sb_fig *total);

/* "All teams": the figures summed over the teams, each team capped on its
 * own, and the team served worst.  TRES-seconds. */
struct sb_fig_all {
	double owed;		/* sum of the teams' owed */
	double capped;		/* sum of the teams' capped */
	double ratio;		/* capped / owed; 1 when nothing is owed */
	uint32_t teams_owed;	/* teams owed something (owed > 0) */
	uint32_t worst;		/* position in @teams of the team of the
				 * lowest capped / owed among those owed
				 * something, the first of equals; SB_NONE
				 * when no team is owed anything */
	double worst_ratio;	/* that team's sb_fig_ratio(); 1 when none */
};

/*
 * sb_fig_all_teams - the "all teams" figure of a report: how much of what
 * was owed to the teams they got, each team capped on its own,
 *     ratio = sum over teams t of capped_t / sum over teams t of owed_t
 * (1 when the sum owed is 0), and the team of the lowest sb_fig_ratio()
 * among those owed something.  A parent's own capped would let one
 * child's surplus hide a sibling's shortfall in the same slot; summing
 * the teams' capped does not.  The teams are the associations that hold
 * jobs (in Slurm the user associations: leaves of the tree); the caller
 * lists them.  Works alike on sb_figures()' totals (owed and capped hour
 * by hour) and on sb_fig_window()'s (window by window); sums in the order
 * of @teams.
 *
 * @fig:    @count figures, by tree index (read only, not kept).
 * @teams:  @nteams tree indices, each < @count (read only, not kept).
 * @out:    out.
 * Return: SB_OK; SB_EINVAL (NULL @out, @nteams > 0 with NULL @fig or
 *         @teams, a team index >= @count), @out then all teams owed
 *         nothing.
 */
int sb_fig_all_teams(const struct sb_fig *fig, uint32_t count,
		     const uint32_t *teams, uint32_t nteams,
		     struct sb_fig_all *out);

/*
 * sb_fig_usable - the cluster's demand-limited capacity over [@from, @to)
 * in slots of @slot seconds, TRES-seconds: the sum over the slots of
 *     min(capacity x (e_k - s_k), demand_k)
 * with demand_k the sum over EVERY segment, allocated or not, of tres x
 * |[eligible, end) ∩ slot k| (eligible 0: none counted; end 0: @now), the
 * same span as an allocated segment's demand above.  The GPU time a
 * scheduler could have used: the cluster, less what nobody asked for.
 * Occupancy of demand-limited capacity = (delivered + unallocated) / this
 * (the occupancy the project targets).  Indices are not read.
 * @usable: out.  Return: SB_OK; SB_EINVAL (NULL @usable, from >= to,
 * slot <= 0, capacity < 0 or not finite, nsegs > 0 with NULL segs),
 * SB_ENOMEM.
 */
int sb_fig_usable(const struct sb_fig_seg *segs, size_t nsegs, int64_t from,
		  int64_t to, int64_t slot, int64_t now, double capacity,
		  double *usable);

#endif /* SB_FIGURES_H */
