/* budget_job.c - a job record as the core sees it; see budget_job.h. */
#include <string.h>

#include "budget_job.h"

bool budget_job_requeue_ok(const job_record_t *job_ptr)
{
	return job_ptr->batch_flag &&
	       !(job_ptr->details && !job_ptr->details->requeue);
}

int budget_job_contract(const job_record_t *job_ptr, struct sb_contract *c)
{
	return sb_contract_of_job(job_ptr->admin_comment,
				  budget_job_requeue_ok(job_ptr), c);
}

uint64_t budget_job_tres(const job_record_t *job_ptr, int pos)
{
	const uint64_t *cnt = IS_JOB_PENDING(job_ptr) ? job_ptr->tres_req_cnt :
						       job_ptr->tres_alloc_cnt;
	uint64_t v;

	if (pos < 0 || !cnt)
		return 0;
	v = cnt[pos];
	return (v == NO_CONSUME_VAL64 || v == INFINITE64) ? 0 : v;
}

time_t budget_job_suspended(const job_record_t *job_ptr, time_t now)
{
	time_t s;

	if (!job_ptr->start_time)
		return 0;
	if (IS_JOB_SUSPENDED(job_ptr) && job_ptr->suspend_time)
		s = job_ptr->tot_sus_time +
		    (now > job_ptr->suspend_time ?
		     now - job_ptr->suspend_time : 0);
	else if (!IS_JOB_RUNNING(job_ptr) && job_ptr->suspend_time &&
		 job_ptr->end_time == job_ptr->suspend_time)
		s = job_ptr->end_time - job_ptr->start_time -
		    job_ptr->pre_sus_time;
	else
		s = job_ptr->tot_sus_time;
	return s > 0 ? s : 0;
}

void budget_job_party(const job_record_t *job_ptr, int pos,
		      struct sb_preempt_party *p)
{
	(void)budget_job_contract(job_ptr, &p->job.contract);
	p->job.start = job_ptr->start_time;
	p->job.priority = job_ptr->priority;
	p->job.tres = budget_job_tres(job_ptr, pos);
	p->job.suspended = budget_job_suspended(job_ptr, time(NULL));
	p->index = SB_NONE;
	p->in_grace = job_ptr->preempt_time != 0;
	p->preempted = budget_job_preempted_at(job_ptr, &p->preempted_at);
}

bool budget_job_preempted_at(const job_record_t *job_ptr, int64_t *at)
{
	static const char note[] = "budget:preempted_by=";
	const char *p = job_ptr->system_comment, *last = NULL;
	int64_t v = 0;

	*at = 0;
	/* the last note: preempt/budget replaces the whole SystemComment,
	 * but an administrator may have added text around it */
	for (; p && (p = strstr(p, note)); p++)
		last = p;
	if (!last)
		return false;
	/* ",at=" within the note (up to white space or ';') */
	for (p = last + sizeof(note) - 1; *p && *p != ' ' && *p != ';'; p++)
		if (!strncmp(p, ",at=", 4))
			break;
	if (strncmp(p, ",at=", 4))
		return false;
	for (p += 4; *p >= '0' && *p <= '9'; p++) {
		if (v > ((int64_t)1 << 40))
			return false;	/* not a time */
		v = v * 10 + (*p - '0');
	}
	if (*p && *p != ',' && *p != ' ' && *p != ';')
		return false;
	*at = v;
	return true;
}
