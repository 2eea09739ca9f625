/*
 * jobs.c - priority/budget: what a job is to the budget: its tier, its
 * in-team priority and its priority from the standing; the charge of what
 * it ran and the committed usage of its protected slice.
 */
#include "priority_internal.h"

/* Whether the job runs allocated (sb_contract_of_job(): a job without a
 * valid contract tag is unallocated). */
static bool job_allocated(const job_record_t *job_ptr)
{
	struct sb_contract c;

	(void)budget_job_contract(job_ptr, &c);
	return c.allocated;
}

/* Whether the job's current run is charged to its budget
 * (sb_run_allocated(): its contract, or before budget.conf's Cutover any
 * run).  pr_state_lock held (pr_cfg). */
bool pr_run_allocated(const job_record_t *job_ptr)
{
	return sb_run_allocated(job_ptr->admin_comment, job_ptr->start_time,
				pr_cfg.cutover);
}

/* The job QOS's normalised Priority (sb_priority_qos_part()); 0 without
 * one.  norm_priority is a double assoc_mgr sets when QOSes change; read
 * without its lock, as priority/multifactor reads it. */
double pr_job_qos_norm(const job_record_t *job_ptr)
{
	const slurmdb_qos_rec_t *q = job_ptr->qos_ptr;

	return (q && q->usage) ? q->usage->norm_priority : 0;
}

/* In-team priority from the job's nice value and its QOS's Priority (see
 * the top of priority_budget.c). */
static uint32_t job_in_team(const job_record_t *job_ptr)
{
	int64_t nice = job_ptr->details ?
		       (int64_t)job_ptr->details->nice - NICE_OFFSET : 0;

	return sb_priority_in_team(nice, pr_job_qos_norm(job_ptr));
}

/*
 * An administrator's priority (scontrol update priority=N, sbatch
 * --priority; Slurm stores N and sets direct_set_prio): read N as the
 * job's in-team part (sb_priority_admin_in_team()) and keep that in the
 * job's nice, from which the in-team priority is read (Slurm resets nice
 * when an administrator sets a priority, and ignores nice changes while
 * direct_set_prio is set).  Then direct_set_prio is cleared: the job's
 * tier and its budget's standing apply again at every recalculation, and
 * the next administrator's change sets the flag again.  Job write lock
 * held.
 */
void pr_adopt_admin_priority(job_record_t *job_ptr)
{
	uint32_t n = job_ptr->priority, t;

	if (!job_ptr->direct_set_prio || n == 0 || n == INFINITE ||
	    !job_ptr->details)
		return;
	t = sb_priority_admin_in_team(n);
	job_ptr->details->nice = NICE_OFFSET + SB_PRIO_TEAM_DEFAULT - t;
	job_ptr->direct_set_prio = 0;
	info("%s: %pJ: administrator's priority %u read as in-team priority "
	     "%u: its tier (%s) and its budget's standing are kept",
	     plugin_type, job_ptr, n, t,
	     job_allocated(job_ptr) ? "allocated" : "unallocated");
}

/* The job as the debug lane sees it (sb/lane.h): contract, start, time
 * suspended, charged TRES and the priority it carries now.  pr_state_lock
 * held (pr_tres_pos). */
static void lane_job(const job_record_t *job_ptr, struct sb_preempt_job *out)
{
	struct sb_preempt_party p;

	budget_job_party(job_ptr, pr_tres_pos, &p);
	*out = p.job;
}

/* Whether the lane may take the job at all, before its size is read:
 * the lane is on and ChargeTRES known, and it is no array job (Slurm
 * copies an array's priority into each task it splits off, without asking
 * this plugin, so an array in the lane would pass its bound). */
static bool lane_possible(const job_record_t *job_ptr)
{
	return pr_cfg.preempt.lane.max_tres &&
	       pr_cfg.preempt.lane.budget_tres && pr_tres_pos >= 0 &&
	       !job_ptr->array_recs && job_ptr->array_task_id == NO_VAL;
}

/*
 * The job's priority from the current standing, and the debug lane
 * (sb_lane_priority()): @held is the charged TRES its association holds in
 * the lane (pr_lane_holds() summed over the association's other jobs),
 * grown when the job enters; NULL lets no job enter.  pr_state_lock held.
 */
uint32_t pr_job_priority(const job_record_t *job_ptr, uint64_t *held,
			 time_t now)
{
	struct sb_preempt_job lj;
	struct sb_contract c;
	uint32_t idx;
	bool allocated;
	uint32_t prio;
	uint64_t before;

	(void)budget_job_contract(job_ptr, &c);
	allocated = c.allocated;

	if (!pr_tree || !pr_standing ||
	    sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) != SB_OK)
		prio = sb_priority_compose(allocated, 1, job_in_team(job_ptr));
	else
		prio = sb_priority_job(pr_standing, idx, allocated,
				       job_in_team(job_ptr));
	prio = sb_priority_resumed(prio, IS_JOB_PENDING(job_ptr),
				   job_ptr->restart_cnt > 0);
	/* most jobs are no lane's by their min runtime: no party needed */
	if (!allocated || c.min_runtime > pr_cfg.preempt.lane.max_min_runtime ||
	    !lane_possible(job_ptr))
		return prio;
	lane_job(job_ptr, &lj);
	before = held ? *held : 0;
	prio = sb_lane_priority(&pr_cfg.preempt.lane, &lj,
				IS_JOB_PENDING(job_ptr), prio, held, now);
	if (sb_priority_in_lane(prio) && !sb_priority_in_lane(job_ptr->priority))
		info("%s: %pJ enters the debug lane: its association held "
		     "%"PRIu64" of DebugLaneBudgetTRES=%"PRIu64", now %"PRIu64,
		     plugin_type, job_ptr, before,
		     pr_cfg.preempt.lane.budget_tres, held ? *held : 0);
	return prio;
}

/*
 * The charged TRES the started job holds in its association's debug lane
 * at @now (sb_lane_holds()): it carries the lane's priority and runs, or
 * is suspended, inside its min runtime; else 0 (pending jobs are admitted
 * again at each recalculation, sb_lane_priority()).  Job read lock and
 * pr_state_lock held.
 */
uint64_t pr_lane_holds(const job_record_t *job_ptr, time_t now)
{
	struct sb_preempt_job lj;

	if (!sb_priority_in_lane(job_ptr->priority) ||
	    !(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) ||
	    !lane_possible(job_ptr))
		return 0;
	lane_job(job_ptr, &lj);
	return sb_lane_holds(&pr_cfg.preempt.lane, &lj, false, now) ?
	       lj.tres : 0;
}

/*
 * The charged TRES a job in the lane counts against its association's
 * bound (pr_lane_held): what it asks for or holds.  pr_state_lock held.
 */
uint64_t pr_lane_tres(const job_record_t *job_ptr)
{
	struct sb_preempt_job lj;

	if (pr_tres_pos < 0)
		return 0;
	lane_job(job_ptr, &lj);
	return lj.tres;
}

/* Position of ChargeTRES in the job's TRES arrays; -1 if not accounted. */
int pr_charge_tres_pos(void)
{
	int pos;

	bool stale;

	slurm_mutex_lock(&pr_state_lock);
	pos = pr_tres_pos;
	stale = pr_tres_stale;
	slurm_mutex_unlock(&pr_state_lock);
	if (pos != -2 && !stale)
		return pos;
	pos = budget_tres_pos(pr_cfg.charge_tres);
	if (pos < 0)
		error("%s: ChargeTRES=%s is not in AccountingStorageTRES: "
		      "nothing is charged until it is added there",
		      plugin_type, pr_cfg.charge_tres);
	/* priority_p_job_end reads it */
	slurm_mutex_lock(&pr_state_lock);
	/* stored atomically: ops_victim_key() reads it without the lock */
	__atomic_store_n(&pr_tres_pos, pos, __ATOMIC_RELAXED);
	pr_tres_stale = false;
	slurm_mutex_unlock(&pr_state_lock);
	return pos;
}

/*
 * Charge the job's current or last run segment up to @now.  Pending time
 * is never offered: a pending job's start_time is only the scheduler's
 * estimate.  sb_accrual_charge() makes repeated offers harmless.
 * Job read lock and pr_state_lock held.
 */
void pr_accrue_job(job_record_t *job_ptr, time_t now, int pos)
{
	time_t to;
	uint32_t idx;
	double tres;
	int rc;

	/* ChargeTRES not accounted: charge nothing and keep charged_to, so
	 * the time is charged once it is fixed. */
	if (!job_ptr->start_time || !pr_ledger || pos < 0)
		return;
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		to = now;
	else if (job_ptr->job_state & JOB_REQUEUE)
		/* A run being requeued: Slurm has cleared its suspension
		 * record (tot_sus_time) but not yet its times, so end_time -
		 * start_time would charge the time it spent suspended.  Its
		 * segment was queued by priority_p_job_end() before that. */
		return;
	else if (IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		to = job_ptr->end_time;
	else
		return;
	if (to > now)
		to = now;
	/* suspended time is not charged: offer the seconds it ran */
	to = sb_run_charged_to(job_ptr->start_time,
			       budget_job_suspended(job_ptr, to), to);
	if (to <= job_ptr->start_time)
		return;
	if (sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) != SB_OK)
		return;
	tres = sb_charge_rate((double)budget_job_tres(job_ptr, pos),
			      budget_job_usage_factor(job_ptr));
	rc = sb_accrual_charge(pr_accrual, pr_ledger, job_ptr->job_id, idx,
			       pr_run_allocated(job_ptr), tres,
			       job_ptr->start_time, to, NULL);
	if (rc != SB_OK)
		error("%s: cannot charge %pJ: %s", plugin_type, job_ptr,
		      sb_strerror(rc));
}

/*
 * Add a running (or suspended: its slice waits for it) job's committed
 * usage at @now to the view
 * (sb_view_commit(): nothing for unallocated jobs or jobs past their
 * minimum runtime).  Job read lock and pr_state_lock held.
 */
void pr_commit_job(const job_record_t *job_ptr, time_t now)
{
	struct sb_preempt_party p;
	uint32_t idx;

	if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) ||
	    !pr_view.tree ||
	    sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) != SB_OK)
		return;
	budget_job_party(job_ptr, pr_tres_pos, &p);
	(void)sb_view_commit(&pr_view, idx, &p.job, now);
}
