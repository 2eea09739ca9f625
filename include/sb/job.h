/*
 * sb/job.h - one job's facts, as each reader of Slurm's job records gathers
 * them (slurmctld's job record in the plugins, libslurm's job info in
 * sbudget, the simulator's job), and the answers the core gives from them:
 * its contract, whether it is in its grace time, the charged TRES it holds
 * or will hold, and the preemption party the preemption rules take.  The
 * readers fill the record and ask; none of them decides these things
 * itself.
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

/* One node of the cluster as a pending whole-node job sees it. */
struct sb_job_node {
	uint64_t tres;		/* ChargeTRES configured on it; 0 for none
				 * (or a hole in the node table) */
	bool required;		/* the job requires it by name (-w) */
	bool eligible;		/* the job may get it: a node of its
				 * partition (any node when that is not
				 * known) */
};

/*
 * One job's facts.  Strings and the node table are borrowed for the
 * duration of a call.
 */
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
	int64_t suspended;	/* seconds of the current run spent suspended
				 * up to the time of the question, >= 0 */
	int64_t time_limit;	/* seconds a run may last (Slurm: its
				 * TimeLimit); <= 0 for none (unlimited, or
				 * not known) */
	int64_t eligible;	/* when its current wait began (Slurm: its
				 * EligibleTime), epoch seconds; 0 for not
				 * known.  Read for a pending preemptor
				 * (PreemptLossWait) */
	/* The charged TRES (ChargeTRES), whole TRES units, for sb_job_tres(): */
	bool has_run;		/* its figures are those of a run: it started
				 * (running, suspended, ended), or it is being
				 * requeued or pending while its last run
				 * completes */
	uint64_t tres_alloc;	/* allocated to that run, for the whole
				 * job */
	uint64_t tres_req;	/* asked for, for the whole job */
	bool whole_node;	/* it takes its nodes whole (Slurm:
				 * --exclusive, not =user or =mcs, or a
				 * partition with OverSubscribe=EXCLUSIVE) */
	uint32_t min_nodes;	/* nodes it asks for at least; 0 taken as 1 */
	uint32_t nnodes;	/* nodes in the node table; 0 when not
				 * known (then no node is read) */
	/* node @i (0 <= i < nnodes) of the node table, as the job sees it;
	 * NULL when not known.  @arg is node_arg. */
	void (*node)(const void *arg, uint32_t i, struct sb_job_node *out);
	const void *node_arg;
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
 * sb_job_tres - the ONE figure of the job's charged TRES, for charging,
 * committed usage, the preemption verdict (both sides), the victim order
 * and sbudget's GPUs: what the job holds or will hold (sb_held_tres()).
 *   has_run: its allocation (tres_alloc), which for a whole-node job Slurm
 *     fills with every GRES of its nodes, asked for or not: an
 *     `--exclusive -G 1` job on an 8-GPU node holds 8;
 *   pending, not whole-node: what it asks for (tres_req);
 *   pending, whole-node: at least what it asks for, or what its nodes will
 *     hold at least if more: the nodes it requires (-w), and the rest of
 *     its minimum node count at the least-equipped eligible node able to
 *     hold its per-node request (tres_req / min_nodes, rounded up).  With
 *     no node table (nnodes 0 or node NULL), what it asks for.
 * Walks the node table once for a pending whole-node job, not otherwise.
 * NULL: 0.
 */
uint64_t sb_job_tres(const struct sb_job_facts *f);

/*
 * sb_job_has_run - struct sb_job_facts.has_run from a job's state: it is
 * not pending, or it is pending while Slurm still requeues it or it is
 * still completing (@leaving: Slurm's JOB_REQUEUE or JOB_COMPLETING flag;
 * the run's nodes are not released yet, so it still holds its allocation).
 */
static inline bool sb_job_has_run(bool pending, bool leaving)
{
	return !pending || leaving;
}

/*
 * sb_job_party - the job as a party to a preemption (struct
 * sb_preempt_party): its contract, start, priority, suspended time and
 * time limit from @f, its TRES from sb_job_tres(), in_grace from
 * sb_job_in_grace(),
 * its last preemption from the SystemComment note
 * (sb_preempted_note_at()).  The tree index is left
 * SB_NONE: the caller knows the association.  @out is overwritten; NULL
 * arguments do nothing.
 */
void sb_job_party(const struct sb_job_facts *f, struct sb_preempt_party *out);

#endif /* SB_JOB_H */
