/*
 * sb/job.h - one job's facts, as each reader of Slurm's job records gathers
 * them (slurmctld's job record in the plugins, libslurm's job info in
 * sbudget, the simulator's job), and the answers the core gives from them:
 * its contract, whether it is in its grace time, and the preemption party
 * the preemption rules take.  The readers fill the record and ask; none of
 * them decides these things itself.
 */
#ifndef SB_JOB_H
#define SB_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "sb/contract.h"
#include "sb/view.h"

/* Where a job is, as far as the core's questions go. */
enum sb_job_phase {
	SB_JOB_PENDING,		/* queued, or being requeued */
	SB_JOB_RUNNING,
	SB_JOB_SUSPENDED,	/* started, stopped by scontrol suspend */
	SB_JOB_ENDED,		/* completing or finished */
};

/* One job's facts.  Strings are borrowed for the duration of a call. */
struct sb_job_facts {
	const char *admin_comment;	/* AdminComment: the contract tag (and
					 * maybe a stop note); NULL for none */
	const char *system_comment;	/* SystemComment: preempt/budget's
					 * note; NULL for none */
	bool requeue_ok;	/* the resource manager can requeue it: in Slurm
				 * a batch job whose requeue flag is set */
	enum sb_job_phase phase;
	int64_t start;		/* start of the current run, epoch seconds; 0
				 * for none */
	int64_t preempt_time;	/* when its preemption began (grace time),
				 * epoch seconds; 0 for never */
	uint32_t priority;	/* current priority */
	uint64_t tres;		/* charged TRES it holds, or (pending) will
				 * hold: sb_held_tres() of its request */
	int64_t suspended;	/* seconds of the current run spent suspended
				 * up to the time of the question, >= 0 */
};

/*
 * sb_job_contract - the job's contract as it runs: sb_contract_of_job() of
 * its AdminComment and requeue flag.  Return: as sb_contract_of_job() (a
 * job without a valid tag is unallocated, SB_EMISSING); SB_EINVAL for NULL
 * arguments.
 */
int sb_job_contract(const struct sb_job_facts *f, struct sb_contract *out);

/*
 * sb_job_in_grace - the job is being preempted and still holds its
 * resources: its preemption began (preempt_time > 0) and it runs or is
 * suspended.  A job that is pending again or has ended is not.  NULL: false.
 */
bool sb_job_in_grace(const struct sb_job_facts *f);

/*
 * sb_job_party - the job as a party to a preemption (struct
 * sb_preempt_party): its contract, start, priority, TRES and suspended
 * time from @f, in_grace from sb_job_in_grace(), its last preemption from
 * the SystemComment note (sb_preempted_note_at()).  The tree index is left
 * SB_NONE: the caller knows the association.  @out is overwritten; NULL
 * arguments do nothing.
 */
void sb_job_party(const struct sb_job_facts *f, struct sb_preempt_party *out);

#endif /* SB_JOB_H */
