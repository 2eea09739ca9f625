/*
 * sb/lane.h - the debug lane: a small, short allocated job of any budget
 * starts within seconds, ahead of every budget's queue, by taking free,
 * unallocated or past-protection resources.
 *
 * A job is *lane-sized* when it is allocated, asks for 1..DebugLaneTRES
 * charged TRES (GPUs) and declares a min runtime of at most
 * DebugLaneMinRuntime (sb_lane_sized()).  Such a pending job enters the
 * lane while its association holds at most DebugLaneBudgetTRES in it
 * (sb_lane_admit()); it then carries the lane's priority level
 * (sb_priority_lane(), sb/priority.h), above every budget's standing, so:
 *   - Slurm's scheduler (and the simulator's pass) tries it first;
 *   - as a preemptor it outranks every allocated victim past its min
 *     runtime, and the reclaim rule and its cost are not asked
 *     (sb_preempt_decide(), sb/view.h): the lane is how an over-share
 *     budget's debug job starts at all.  Every other rule holds: no
 *     victim inside its min runtime, within its interval hold, restarted
 *     once, kept, or ending sooner than its run is taken; and within its
 *     own association a lane job is a job like the others (in-team
 *     priority decides).
 * A lane job is charged to its own budget as every allocated job is.  It
 * keeps the lane's level while it is pending and, once started, while its
 * min runtime runs (protected anyway); after that its priority is its
 * budget's again, and it is preemptable as any job is.
 *
 * What a job holds in its association's lane is its charged TRES while it
 * carries the lane's level, pending or inside its min runtime: the bound
 * is on lane jobs at once, so the lane cannot carry a budget's real work
 * past its queue.  A pending job is admitted again at every
 * re-prioritisation (sb_lane_priority()), so a lowered bound, a changed
 * association or a bigger job is bounded at once.
 *
 * No Slurm, no clock: the plugins and the simulator call these.
 */
#ifndef SB_LANE_H
#define SB_LANE_H

#include <stdbool.h>
#include <stdint.h>

#include "sb/contract.h"
#include "sb/preempt.h"

/* sb_lane_policy_init - the defaults (sb/preempt.h, SB_LANE_*). */
void sb_lane_policy_init(struct sb_lane_policy *pol);

/*
 * sb_lane_sized - whether a job of contract @c asking for @tres charged
 * TRES may use the lane under @pol: allocated, 1 <= @tres <= max_tres,
 * @tres <= budget_tres, min runtime <= max_min_runtime.  False for NULL
 * arguments or a lane that is off.
 */
bool sb_lane_sized(const struct sb_lane_policy *pol,
		   const struct sb_contract *c, uint64_t tres);

/*
 * sb_lane_holds - whether @job (its contract, start, suspended time, TRES
 * and the priority it carries now) holds its TRES in its association's
 * lane at @now: it is lane-sized, carries the lane's level
 * (sb_priority_in_lane()), and is pending (@pending) or inside its min
 * runtime (@now < sb_preempt_protected_until()).
 */
bool sb_lane_holds(const struct sb_lane_policy *pol,
		   const struct sb_preempt_job *job, bool pending, int64_t now);

/*
 * sb_lane_priority - the priority @job should carry at @now, given the
 * lane:
 *   - not lane-sized: @standing_prio (its budget's, sb_priority_job() and
 *     sb_priority_resumed());
 *   - pending after a requeue (@standing_prio has SB_PRIO_RESUMED): the
 *     lane is for starting fresh, so @standing_prio, even when it still
 *     carries the lane priority of the run that was stopped (a victim
 *     would otherwise bounce through the lane);
 *   - started (not @pending): sb_priority_lane(@standing_prio) while it
 *     holds its place (sb_lane_holds(): it carries the lane priority and
 *     its min runtime runs), else @standing_prio;
 *   - pending: admitted, whether it carries the lane priority already or
 *     not: when *@held + its TRES <= budget_tres it is in the lane:
 *     *@held grows by its TRES and the answer is
 *     sb_priority_lane(@standing_prio); otherwise @standing_prio.
 * @held: the TRES its association holds in the lane before it: its
 * started holders (sb_lane_holds() of running or suspended jobs) and the
 * pending jobs admitted before this one.  A caller that re-prioritises
 * many jobs sums the started holders first, then asks for the pending
 * ones that carry the lane priority (so they keep their places while the
 * bound allows), then for the others, passing the same counter.  NULL
 * @held: no pending job is in the lane.  A job of @standing_prio 0 (held
 * by Slurm) stays 0.
 */
uint32_t sb_lane_priority(const struct sb_lane_policy *pol,
			  const struct sb_preempt_job *job, bool pending,
			  uint32_t standing_prio, uint64_t *held, int64_t now);

struct sb_preempt_party;

/*
 * sb_lane_preemptor - whether preemptor @p is in the lane as
 * sb_preempt_decide() takes it: it carries the lane priority, is
 * lane-sized under @pol->lane (NULL @pol: the defaults) and was never
 * preempted (@p->preempted: a requeued victim does not enter).  The
 * priority alone is not enough: an administrator's or another priority
 * plugin's number may fall in the lane's range, and a job may carry a
 * lane priority past a reconfigure until the next recalculation.
 */
bool sb_lane_preemptor(const struct sb_preempt_policy *pol,
		       const struct sb_preempt_party *p);

#endif /* SB_LANE_H */
