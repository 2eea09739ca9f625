/*
 * sb/wait.h - why a pending job waits, in one sentence: the words of
 * `sbudget show job`'s WaitsFor, which the simulator's verdict
 * (sbudget-sim run) prints too, so that a researcher reads the same
 * reason for a job on the cluster and in a simulation.  No Slurm, no
 * clock: the caller gathers the facts (its running jobs judged with
 * sb_preempt_decide(), the pending jobs ahead of it) and formats the
 * times it names.
 */
#ifndef SB_WAIT_H
#define SB_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a pending job waits for. */
struct sb_wait_facts {
	const char *reason;	/* the scheduler's word for the wait:
				 * Slurm's Reason ("Priority": jobs of
				 * higher priority first; "Resources": it is
				 * next, its TRES are not free) */
	int64_t ahead;		/* pending jobs of higher priority (taken
				 * before it), 0: none */
	uint64_t top;		/* the first of them (when ahead > 0) */
	double needs;		/* the TRES it asks for */
	const char *tres;	/* their name ("gres/gpu") */
	double idle;		/* TRES no running job holds, on nodes that
				 * take jobs */
	double unusable;	/* TRES no running job holds on nodes that
				 * take none (down, drained, failed, not
				 * responding): not in @idle, said apart */
	double preemptable;	/* TRES of running jobs it may take now
				 * (sb_preempt_decide() says yes) */
	bool allocated;		/* its contract; false: it never
				 * preempts */
	double kept;		/* TRES the reclaim rule or its cost holds
				 * back (SB_PREEMPT_RECLAIM, _COSTLY) */
	uint64_t kept_job;	/* one of those jobs, and the core's */
	const char *kept_why;	/* sentence for it */
	double loss_wait;	/* TRES of runs that would lose their work,
				 * which it may take once it has waited
				 * PreemptLossWait (SB_PREEMPT_LOSS_WAIT) */
	const char *loss_wait_at;	/* from when (formatted by the
					 * caller) */
	uint64_t next_job;	/* a protected job it may preempt once its
				 * slice ends (0: none), and when, */
	const char *next_at;	/* formatted by the caller */
	const char *eligible_at;	/* not yet eligible: when (formatted);
					 * NULL: eligible */
	const char *note;	/* a remark of the caller's, last; NULL:
				 * none (the simulator's baseline policy:
				 * its team's cap) */
};

/*
 * sb_wait_format - @f as one sentence into @buf (truncated to @len):
 *   "REASON: N pending job(s) of higher priority first (top: job T);
 *    needs G TRES, I idle, P preemptable by it now[ (unallocated jobs
 *    never preempt)][; K more held back by the reclaim rule or its cost
 *    (job J: WHY)][; next protected slice of a lower-priority job ends AT
 *    (job N)][; eligible at E][; NOTE]"
 * Return the length written (as strlen(@buf)).
 */
size_t sb_wait_format(const struct sb_wait_facts *f, char *buf, size_t len);

#endif /* SB_WAIT_H */
