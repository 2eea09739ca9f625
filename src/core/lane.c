/* lane.c - the debug lane; see sb/lane.h. */
#include "sb/lane.h"
#include "sb/view.h"
#include "sb/priority.h"

void sb_lane_policy_init(struct sb_lane_policy *pol)
{
	pol->max_tres = SB_LANE_TRES_DEFAULT;
	pol->max_min_runtime = SB_LANE_MIN_RUNTIME_DEFAULT;
	pol->budget_tres = SB_LANE_BUDGET_TRES_DEFAULT;
}

bool sb_lane_sized(const struct sb_lane_policy *pol,
		   const struct sb_contract *c, uint64_t tres)
{
	if (!pol || !c || !pol->max_tres || !pol->budget_tres)
		return false;
	return c->allocated && c->min_runtime > 0 && tres >= 1 &&
	       tres <= pol->max_tres && tres <= pol->budget_tres &&
	       c->min_runtime <= pol->max_min_runtime;
}

bool sb_lane_holds(const struct sb_lane_policy *pol,
		   const struct sb_preempt_job *job, bool pending, int64_t now)
{
	if (!job || !sb_lane_sized(pol, &job->contract, job->tres) ||
	    !sb_priority_in_lane(job->priority))
		return false;
	return pending || now < sb_preempt_protected_until(job);
}

uint32_t sb_lane_priority(const struct sb_lane_policy *pol,
			  const struct sb_preempt_job *job, bool pending,
			  uint32_t standing_prio, uint64_t *held, int64_t now)
{
	if (!job || standing_prio == 0 ||
	    !sb_lane_sized(pol, &job->contract, job->tres))
		return standing_prio;
	/* requeued (it ran already): out of the lane, even while it still
	 * carries the lane priority of the run that was stopped */
	if (pending && (standing_prio & SB_PRIO_RESUMED))
		return standing_prio;
	if (!pending)	/* started: keeps it inside its min runtime */
		return sb_lane_holds(pol, job, false, now) ?
		       sb_priority_lane(standing_prio) : standing_prio;
	/* pending, in the lane or not: admitted again, so the bound holds
	 * whatever changed (the bound, the job's size or association) */
	if (!held || *held > pol->budget_tres ||
	    job->tres > pol->budget_tres - *held)
		return standing_prio;
	*held += job->tres;
	return sb_priority_lane(standing_prio);
}

bool sb_lane_preemptor(const struct sb_preempt_policy *pol,
		       const struct sb_preempt_party *p)
{
	struct sb_preempt_policy def;

	if (!pol) {
		sb_preempt_policy_init(&def);
		pol = &def;
	}
	return p && !p->preempted && sb_priority_in_lane(p->job.priority) &&
	       sb_lane_sized(&pol->lane, &p->job.contract, p->job.tres);
}
