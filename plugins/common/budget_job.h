/*
 * budget_job.h - a Slurm job record as the policy core sees it, for the two
 * controller plugins (priority/budget, preempt/budget).
 *
 * Only gathering: the rules (what a job without a tag is, what is
 * committed, who may preempt whom) are the core's (sb/view.h).  Every
 * function reads fields of the job record only: call with at least the
 * slurmctld job read lock held.
 */
#ifndef SB_BUDGET_JOB_H
#define SB_BUDGET_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "src/slurmctld/slurmctld.h"

#include "sb/job.h"
#include "sb/view.h"

/*
 * budget_job_requeue_ok - Slurm can requeue the job: a batch job whose
 * requeue flag is set (an administrator may have cleared it).  Anything
 * else would be killed by slurm_job_preempt()'s fallback.
 */
bool budget_job_requeue_ok(const job_record_t *job_ptr);

/*
 * budget_job_contract - the job's contract as it runs:
 * sb_contract_of_job(AdminComment, budget_job_requeue_ok()).  A job without
 * a valid tag is unallocated.  Return: as sb_contract_of_job() (SB_OK, or
 * SB_EMISSING when the unallocated default was written).
 */
int budget_job_contract(const job_record_t *job_ptr, struct sb_contract *c);

/*
 * budget_job_whole_node - the job takes its nodes whole: --exclusive
 * (not =user or =mcs, which share nodes with the user's other jobs), or a
 * partition with OverSubscribe=EXCLUSIVE.  No other job can use anything on
 * its nodes, GPUs included.
 */
bool budget_job_whole_node(const job_record_t *job_ptr);

/*
 * budget_job_tres - the job's charged TRES (ChargeTRES, at position @pos
 * of the job's TRES arrays, budget_tres_pos()): sb_job_tres() of its
 * facts.  The job has a run (sb_job_facts.has_run) when it is not pending,
 * or is being requeued or completing its last run; it takes its nodes
 * whole by budget_job_whole_node(); its nodes are slurmctld's node table,
 * required by its req_node_bitmap, eligible in its partition's bitmap.
 * 0 when @pos < 0 (not accounted) or the job has none.  Reads the node
 * table for a pending whole-node job: call with the job read lock and the
 * node read lock held (Slurm's scheduler, which asks preempt/budget, holds
 * both).
 */
uint64_t budget_job_tres(const job_record_t *job_ptr, int pos);

/*
 * budget_job_usage_factor - the UsageFactor of the job's QOS (Slurm's
 * QOS UsageFactor; negative when the job has no QOS), for
 * sb_charge_rate().  Read without the assoc_mgr lock, as a plain double
 * the QOS record holds for the job's life.
 */
double budget_job_usage_factor(const job_record_t *job_ptr);

/*
 * budget_job_suspended - seconds the job's current run has spent suspended
 * (scontrol suspend) up to @now, or up to its end once it ended: Slurm's
 * tot_sus_time, plus the suspension going on (now - suspend_time, the time
 * it was last suspended).  A job that ended while suspended has end_time =
 * suspend_time and had run pre_sus_time: end - start - pre_sus_time.
 * 0 for a job that has not started.  A requeue clears the three fields.
 */
time_t budget_job_suspended(const job_record_t *job_ptr, time_t now);

/*
 * budget_job_preempted_at - whether the job was preempted by
 * preempt/budget before, and when (@at, Unix time): the at= of the last
 * "budget:preempted_by=<id>,at=<epoch>,..." note in its SystemComment,
 * which preempt/budget writes when it starts preempting the job and Slurm
 * keeps across requeues and restarts (job_ptr->preempt_time does not: a
 * requeue clears it): the core's sb_preempted_note_at() on it.
 */
bool budget_job_preempted_at(const job_record_t *job_ptr, int64_t *at);

/*
 * budget_job_party - one side of a preemption question (sb/view.h):
 * sb_job_party() of the job's facts (comments, requeue flag, phase, start,
 * preempt_time, priority, charged TRES at @pos as budget_job_tres(), time
 * suspended as budget_job_suspended()) at the time of the call.  The tree
 * index is SB_NONE: only priority/budget, which owns the tree, knows it.
 */
void budget_job_party(const job_record_t *job_ptr, int pos,
		      struct sb_preempt_party *p);

#endif /* SB_BUDGET_JOB_H */
