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

uint64_t sb_job_tres(const struct sb_job_facts *f)
{
	struct sb_hold h = { 0 };
	struct sb_job_node n;
	uint64_t per_node;
	bool found = false;
	uint32_t i;

	if (!f)
		return 0;
	if (f->has_run)
		return f->tres_alloc;
	h.tres = f->tres_req;
	h.whole_nodes = f->whole_node;
	if (!f->whole_node || !f->node || !f->nnodes)
		return sb_held_tres(&h);
	h.nodes = f->min_nodes ? f->min_nodes : 1;
	per_node = h.tres / h.nodes + (h.tres % h.nodes != 0);
	for (i = 0; i < f->nnodes; i++) {
		memset(&n, 0, sizeof(n));
		f->node(f->node_arg, i, &n);
		if (n.required) {
			h.named++;
			h.named_tres += n.tres;
		} else if (n.eligible && n.tres >= per_node &&
			   (!found || n.tres < h.other_min)) {
			h.other_min = n.tres;
			found = true;
		}
	}
	return sb_held_tres(&h);
}

void sb_job_party(const struct sb_job_facts *f, struct sb_preempt_party *out)
{
	if (!f || !out)
		return;
	memset(out, 0, sizeof(*out));
	(void)sb_job_contract(f, &out->job.contract);
	out->job.start = f->start;
	out->job.priority = f->priority;
	out->job.tres = sb_job_tres(f);
	out->job.suspended = f->suspended > 0 ? f->suspended : 0;
	out->job.time_limit = f->time_limit > 0 ? f->time_limit : 0;
	out->job.eligible = f->eligible > 0 ? f->eligible : 0;
	out->index = SB_NONE;
	out->in_grace = sb_job_in_grace(f);
	out->preempted = sb_preempted_note_at(f->system_comment,
					      &out->preempted_at);
}
