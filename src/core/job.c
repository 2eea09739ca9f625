/* job.c - one job's facts in, answers out; see sb/job.h. */
#include <string.h>

#include "sb/error.h"
#include "sb/job.h"

int sb_job_contract(const struct sb_job_facts *f, struct sb_contract *out)
{
	if (!f || !out)
		return SB_EINVAL;
	return sb_contract_of_job(f->admin_comment, f->requeue_ok, out);
}

bool sb_job_in_grace(const struct sb_job_facts *f)
{
	return f && f->preempt_time > 0 &&
	       (f->phase == SB_JOB_RUNNING || f->phase == SB_JOB_SUSPENDED);
}

void sb_job_party(const struct sb_job_facts *f, struct sb_preempt_party *out)
{
	if (!f || !out)
		return;
	memset(out, 0, sizeof(*out));
	(void)sb_job_contract(f, &out->job.contract);
	out->job.start = f->start;
	out->job.priority = f->priority;
	out->job.tres = f->tres;
	out->job.suspended = f->suspended > 0 ? f->suspended : 0;
	out->index = SB_NONE;
	out->in_grace = sb_job_in_grace(f);
	out->preempted = sb_preempted_note_at(f->system_comment,
					      &out->preempted_at);
}
