/*
 * backoff.c - priority/budget: the restart backoff of unallocated jobs
 * (sb_restart_delay(), UnallocatedRestartBackoffMax).
 *
 * Slurm's requeue (batch_requeue_fini(), job_mgr.c) sets a requeued job's
 * begin time to its requeue time + Slurm's requeue delay (AuthInfo
 * cred_expire + 1) and its submit time to the requeue time.  An
 * unallocated job is preemptible at any time; its k-th restart waits
 * sb_restart_delay() instead, which bounds how often it is preempted: its
 * begin time is pushed to submit time + that delay.  Pushed from
 * priority_p_set(), which 24.11 and later call right after the requeue
 * (batch_requeue_fini() ends with set_job_prio()), and from every
 * recalculation (22.05's requeue does not ask the priority plugin: there
 * the push comes at most CalcPeriod late).  Only ever later, never
 * earlier, and only while the job is pending with its requeue done; not
 * for scrontab jobs (their begin time is their next cron time) nor an
 * expedited requeue (25.11 and later: held, to start at once on release).
 */
#include "priority_internal.h"

/* Slurm's requeue delay, seconds (sb_requeue_delay_of_authinfo()), as of
 * the last pr_copy_conf().  pr_state_lock held. */
int64_t pr_requeue_delay = SB_REQUEUE_DELAY_DEFAULT;

/*
 * Push @job_ptr's begin time to its restart backoff if it is pending
 * after its requeue and its begin time is earlier than its requeue
 * (submit) time + sb_restart_delay() (which is more than Slurm's own
 * delay only for an unallocated job).
 * Logs each push.  Return: whether the begin time was pushed.  Job write
 * lock and pr_state_lock held.
 */
bool pr_restart_backoff(job_record_t *job_ptr)
{
	struct sb_preempt_policy pol = pr_cfg.preempt;
	struct sb_contract c;
	int64_t delay;
	time_t target;
	struct tm tm;
	char when[32];

	if (!job_ptr->details || !job_ptr->restart_cnt ||
	    !IS_JOB_PENDING(job_ptr) || IS_JOB_COMPLETING(job_ptr) ||
	    (job_ptr->bit_flags & CRON_JOB) ||
	    SB_JOB_EXPEDITED_REQUEUE(job_ptr) ||
	    job_ptr->details->submit_time <= 0 || pol.restart_backoff_max <= 0)
		return false;
	(void)budget_job_contract(job_ptr, &c);
	pol.requeue_delay = pr_requeue_delay;
	delay = sb_restart_delay(&pol, &c, job_ptr->restart_cnt);
	if (delay <= pol.requeue_delay)
		return false;	/* Slurm's own wait is the backoff */
	target = job_ptr->details->submit_time + (time_t)delay;
	if (job_ptr->details->begin_time >= target)
		return false;	/* pushed already, or later anyway */
	job_ptr->details->begin_time = target;
	localtime_r(&target, &tm);
	strftime(when, sizeof(when), "%FT%T", &tm);
	info("%s: JobId=%u (unallocated, %s, restart %u) may start again at "
	     "%s: restart backoff", plugin_type, job_ptr->job_id,
	     c.resumable ? "resumable" : "not resumable",
	     (unsigned)job_ptr->restart_cnt, when);
	return true;
}
