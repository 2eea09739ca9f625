/* budget_job.c - a job record as the core sees it; see budget_job.h. */
#include <string.h>

#include "budget_job.h"
#include "slurm_compat.h"

bool budget_job_requeue_ok(const job_record_t *job_ptr)
{
	return job_ptr->batch_flag &&
	       !(job_ptr->details && !job_ptr->details->requeue);
}

int budget_job_contract(const job_record_t *job_ptr, struct sb_contract *c)
{
	const struct sb_job_facts f = {
		.admin_comment = job_ptr->admin_comment,
		.requeue_ok = budget_job_requeue_ok(job_ptr),
	};

	return sb_job_contract(&f, c);
}

/* A count at @pos of a job's TRES array; 0 for none, unset or no-consume. */
static uint64_t tres_at(const uint64_t *cnt, int pos)
{
	uint64_t v;

	if (pos < 0 || !cnt)
		return 0;
	v = cnt[pos];
	return (v == NO_CONSUME_VAL64 || v == INFINITE64 || v == NO_VAL64) ?
		       0 : v;
}

/* ChargeTRES configured on node @i (the node table's TRES array, indexed
 * as the job's); 0 for a hole in the table. */
static uint64_t node_tres(int i, int pos)
{
	const node_record_t *n = node_record_table_ptr[i];

	return n ? tres_at(n->tres_cnt, pos) : 0;
}

bool budget_job_whole_node(const job_record_t *job_ptr)
{
	return (job_ptr->details && SB_WHOLE_NODE(job_ptr->details)) ||
	       (job_ptr->part_ptr && job_ptr->part_ptr->max_share == 0);
}

/*
 * What a pending whole-node job will hold at least (struct sb_hold): the
 * nodes it requires (-w) by name, the rest of its minimum node count at the
 * least-equipped node of its partition able to hold its per-node request.
 */
static void pending_hold(const job_record_t *job_ptr, int pos,
			 struct sb_hold *h)
{
	bitstr_t *req = job_ptr->details->req_node_bitmap;
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap :
					     NULL;
	uint64_t per_node, v;
	bool found = false;
	int i;

	h->nodes = job_ptr->details->min_nodes ? job_ptr->details->min_nodes :
						 1;
	per_node = (h->tres + h->nodes - 1) / h->nodes;
	for (i = 0; i < node_record_count; i++) {
		if (req && i < bit_size(req) && bit_test(req, i)) {
			h->named++;
			h->named_tres += node_tres(i, pos);
			continue;
		}
		if ((part && (i >= bit_size(part) || !bit_test(part, i))) ||
		    !node_record_table_ptr[i])
			continue;
		v = node_tres(i, pos);
		if (v >= per_node && (!found || v < h->other_min)) {
			h->other_min = v;
			found = true;
		}
	}
}

uint64_t budget_job_tres(const job_record_t *job_ptr, int pos)
{
	struct sb_hold h = { 0 };

	if (pos < 0)
		return 0;
	/* a run that started (or ended: being requeued, or pending while its
	 * last run completes): Slurm gave a whole-node job its nodes' GRES,
	 * so the allocation is it */
	if (!IS_JOB_PENDING(job_ptr) ||
	    (job_ptr->job_state & (JOB_REQUEUE | JOB_COMPLETING)))
		return tres_at(job_ptr->tres_alloc_cnt, pos);
	h.tres = tres_at(job_ptr->tres_req_cnt, pos);
	h.whole_nodes = budget_job_whole_node(job_ptr);
	if (h.whole_nodes && job_ptr->details && node_record_table_ptr)
		pending_hold(job_ptr, pos, &h);
	return sb_held_tres(&h);
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

void budget_job_facts(const job_record_t *job_ptr, int pos, time_t now,
		      struct sb_job_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->admin_comment = job_ptr->admin_comment;
	f->system_comment = job_ptr->system_comment;
	f->requeue_ok = budget_job_requeue_ok(job_ptr);
	f->phase = IS_JOB_PENDING(job_ptr)   ? SB_JOB_PENDING :
		   IS_JOB_RUNNING(job_ptr)   ? SB_JOB_RUNNING :
		   IS_JOB_SUSPENDED(job_ptr) ? SB_JOB_SUSPENDED :
					       SB_JOB_ENDED;
	f->start = job_ptr->start_time;
	f->preempt_time = job_ptr->preempt_time;
	f->priority = job_ptr->priority;
	f->tres = budget_job_tres(job_ptr, pos);
	f->suspended = budget_job_suspended(job_ptr, now);
}

void budget_job_party(const job_record_t *job_ptr, int pos,
		      struct sb_preempt_party *p)
{
	struct sb_job_facts f;

	budget_job_facts(job_ptr, pos, time(NULL), &f);
	sb_job_party(&f, p);
}

bool budget_job_preempted_at(const job_record_t *job_ptr, int64_t *at)
{
	return sb_preempted_note_at(job_ptr->system_comment, at);
}

double budget_job_usage_factor(const job_record_t *job_ptr)
{
	return job_ptr->qos_ptr ? job_ptr->qos_ptr->usage_factor : -1;
}
