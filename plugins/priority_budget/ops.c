/*
 * ops.c - priority/budget: the operations table preempt/budget reads the
 * budget state through.
 */
#include "priority_internal.h"

/* ------------------------------------------------- the operations table
 * What preempt/budget may ask (budget_ops.h documents each member, its
 * locks and the lookup).  Every member takes pr_state_lock; commit_begin
 * only tries to. */

static bool ops_commit_begin(time_t now)
{
	/* Never wait: the caller holds slurmctld's read locks, and whoever
	 * holds the state lock may hold it long (a recalculation, which
	 * commits every running job itself, or the charging of many ended
	 * jobs after a mass cancel). */
	if (pthread_mutex_trylock(&pr_state_lock))
		return false;
	if (!pr_view_ok) {
		slurm_mutex_unlock(&pr_state_lock);
		return false;
	}
	pr_commit_now = now;
	sb_view_clear_committed(&pr_view);
	return true;	/* pr_state_lock held until ops_commit_end() */
}

static void ops_commit_job(const job_record_t *job_ptr)
{
	pr_commit_job(job_ptr, pr_commit_now);	/* pr_state_lock held */
}

static void ops_commit_end(void)
{
	slurm_mutex_unlock(&pr_state_lock);
}

/* The tree index of a job's association, SB_NONE if unknown.
 * pr_state_lock held. */
static uint32_t job_index(const job_record_t *job_ptr)
{
	uint32_t idx;

	if (!pr_tree ||
	    sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) != SB_OK)
		return SB_NONE;
	return idx;
}

static enum sb_preempt_verdict ops_decide(const struct sb_preempt_policy *pol,
					  const job_record_t *preemptor,
					  const job_record_t *victim,
					  time_t now, char *why, size_t len)
{
	struct sb_preempt_party p, v;
	enum sb_preempt_verdict vd;

	slurm_mutex_lock(&pr_state_lock);
	budget_job_party(preemptor, pr_tres_pos, &p);
	budget_job_party(victim, pr_tres_pos, &v);
	p.index = job_index(preemptor);
	v.index = job_index(victim);
	vd = sb_preempt_decide(pol, pr_view_ok ? &pr_view : NULL, &p, &v, now,
			       why,
			       len);
	slurm_mutex_unlock(&pr_state_lock);
	return vd;
}

static uint32_t ops_victim_key(const job_record_t *victim, time_t now)
{
	struct sb_preempt_party v;

	/* no state of ours but ChargeTRES's position: the scheduler's
	 * victim sort never waits for a recalculation */
	budget_job_party(victim, __atomic_load_n(&pr_tres_pos,
						 __ATOMIC_RELAXED), &v);
	return sb_preempt_victim_key(&v.job, now);
}

/* Exported (plugin.map); found by preempt/budget with dlsym(). */
extern const struct sb_budget_ops sb_budget_ops_v2;
const struct sb_budget_ops sb_budget_ops_v2 = {
	.version = SB_BUDGET_OPS_VERSION,
	.size = sizeof(struct sb_budget_ops),
	.slurm_version = SLURM_VERSION_NUMBER,
	.policy_size = sizeof(struct sb_preempt_policy),
	.commit_begin = ops_commit_begin,
	.commit_job = ops_commit_job,
	.commit_end = ops_commit_end,
	.decide = ops_decide,
	.victim_key = ops_victim_key,
};
