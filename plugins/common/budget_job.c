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

bool budget_job_whole_node(const job_record_t *job_ptr)
{
	return (job_ptr->details && SB_WHOLE_NODE(job_ptr->details)) ||
	       (job_ptr->part_ptr && job_ptr->part_ptr->max_share == 0);
}

/* What node_of() reads: the job and the TRES position. */
struct node_arg {
	const job_record_t *job_ptr;
	int pos;
};

/* Node @i of slurmctld's node table as the pending job of @arg sees it
 * (struct sb_job_node); a hole in the table has no TRES and is not
 * eligible. */
static void node_of(const void *arg, uint32_t i, struct sb_job_node *out)
{
	const struct node_arg *a = arg;
	bitstr_t *req = a->job_ptr->details->req_node_bitmap;
	bitstr_t *part = a->job_ptr->part_ptr ?
				 a->job_ptr->part_ptr->node_bitmap : NULL;
	const node_record_t *n = node_record_table_ptr[i];

	out->tres = n ? tres_at(n->tres_cnt, a->pos) : 0;
	out->required = req && (int64_t)i < bit_size(req) && bit_test(req, i);
	out->eligible = n && (!part || ((int64_t)i < bit_size(part) &&
					 bit_test(part, i)));
}

/* The facts sb_job_tres() reads, the node table through @na. */
static void tres_facts(const job_record_t *job_ptr, int pos,
		       struct node_arg *na, struct sb_job_facts *f)
{
	f->has_run = sb_job_has_run(IS_JOB_PENDING(job_ptr),
				    job_ptr->job_state &
				    (JOB_REQUEUE | JOB_COMPLETING));
	f->tres_alloc = tres_at(job_ptr->tres_alloc_cnt, pos);
	f->tres_req = tres_at(job_ptr->tres_req_cnt, pos);
	f->whole_node = budget_job_whole_node(job_ptr);
	if (!job_ptr->details || !node_record_table_ptr || pos < 0)
		return;
	f->min_nodes = job_ptr->details->min_nodes;
	f->nnodes = node_record_count > 0 ? node_record_count : 0;
	na->job_ptr = job_ptr;
	na->pos = pos;
	f->node = node_of;
	f->node_arg = na;
}

uint64_t budget_job_tres(const job_record_t *job_ptr, int pos)
{
	struct sb_job_facts f = { 0 };
	struct node_arg na;

	if (pos < 0)
		return 0;
	tres_facts(job_ptr, pos, &na, &f);
	return sb_job_tres(&f);
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

/* The job's facts for the core (sb/job.h): its charged TRES at @pos (the
 * node table through @na) and time suspended up to @now
 * (budget_job_suspended()).  The strings in @f are borrowed from the job
 * record (under the job lock). */
static void job_facts(const job_record_t *job_ptr, int pos, time_t now,
		      struct node_arg *na, struct sb_job_facts *f)
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
	tres_facts(job_ptr, pos, na, f);
	f->suspended = budget_job_suspended(job_ptr, now);
	f->time_limit = sb_limit_secs(job_ptr->time_limit);
	f->eligible = job_ptr->details ? job_ptr->details->begin_time : 0;
}

void budget_job_party(const job_record_t *job_ptr, int pos,
		      struct sb_preempt_party *p)
{
	struct sb_job_facts f;
	struct node_arg na;

	job_facts(job_ptr, pos, time(NULL), &na, &f);
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
