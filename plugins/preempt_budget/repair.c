/*
 * repair.c - preempt/budget: automated repair.  A job on a node drained
 * with a reason matching RepairReason is released once it has run its min
 * runtime (requeued or cancelled as a victim would be), so the node
 * reaches DRAINED without anyone asking.
 */
#include "preempt_internal.h"

/* Nodes drained for repair (RepairReason), or NULL when there are none.
 * Node read lock held. */
bitstr_t *pe_repair_nodes(const struct sb_preempt_policy *pol)
{
	node_record_t *node_ptr;
	bitstr_t *b = NULL;
	int i;

	if (!pol->repair_reason[0])
		return NULL;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (!IS_NODE_DRAIN(node_ptr) ||
		    !sb_repair_reason_matches(pol, node_ptr->reason))
			continue;
		if (!b)
			b = bit_alloc(node_record_count);
		bit_set(b, node_ptr->index);
	}
	return b;
}

/* The first node of @job_ptr drained for repair, -1 if none. */
int pe_repair_node_of(const job_record_t *job_ptr, bitstr_t *repair)
{
	int i, last;

	if (!repair || !job_ptr->node_bitmap ||
	    !bit_overlap_any(job_ptr->node_bitmap, repair))
		return -1;
	last = bit_fls(job_ptr->node_bitmap);
	for (i = bit_ffs(job_ptr->node_bitmap); i >= 0 && i <= last; i++)
		if (bit_test(job_ptr->node_bitmap, i) && bit_test(repair, i))
			return i;
	return -1;
}

/* Start stopping a running job for repair of @node: grace signal now,
 * requeue or cancel when the grace time is over (ACT_GRACE_END).
 * Job and node write locks held. */
void pe_release_for_repair(job_record_t *job_ptr, const char *node,
			   const char *reason, const struct sb_contract *c,
			   const struct sb_preempt_policy *pol, time_t now)
{
	uint32_t grace = (uint32_t)sb_preempt_grace(pol, c);
	size_t keep = 0;
	/* keep an earlier preemption's note in front of the repair note:
	 * the hysteresis holds (sb/view.h, rules 1 and 3) read it */
	const char *prev = sb_preempted_note(job_ptr->system_comment, &keep);

	pe_set_reason(job_ptr, xstrdup_printf(
		"%.*s%sbudget:released_for_repair=%s,at=%ld", (int)keep,
		prev ? prev : "", keep ? " " : "", node, (long)now));
	info("%s: releasing %pJ from %s, drained for repair ('%s'): it ran "
	     "its min runtime (%lld s); %s%s", plugin_type, job_ptr, node,
	     reason, (long long)c->min_runtime,
	     sb_preempt_action_str(sb_preempt_action(pol, c)),
	     grace ? " after the grace time" : "");
	job_ptr->preempt_time = now;
	job_ptr->end_time = MIN(job_ptr->end_time, now + (time_t)grace);
	if (grace) {
		job_signal(job_ptr, SIGCONT, 0, 0, 0);
		job_signal(job_ptr, SIGTERM, 0, 0, 0);
		if (sb_preempt_action(pol, c) == SB_ACTION_REQUEUE) {
			slurm_mutex_lock(&pe_state_lock);
			pe_grace_track(job_ptr->job_id);
			slurm_mutex_unlock(&pe_state_lock);
		}
	} else {
		(void)slurm_job_preempt(job_ptr, NULL,
					slurm_job_preempt_mode(job_ptr), false);
	}
}
