/*
 * grace_list.h - preempt/budget's resumable victims inside their
 * preemption grace time, each kept until what is owed to it is done.
 *
 * A resumable victim that exits by itself during its grace time (say,
 * after writing its checkpoint) must be requeued all the same.  The tick
 * finds such victims under the read locks and requeues them under the
 * write locks; the write pass may be skipped (the plugin is stopping or
 * was loaded again in between), so a victim stays on the list until the
 * requeue was tried (or it settled otherwise), never just because it was
 * found.  Slurm-free: the caller says what state each job is in.
 */
#ifndef SB_GRACE_LIST_H
#define SB_GRACE_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Failed requeues of one victim before it is given up (one a tick). */
#define GRACE_TRIES_MAX 3

/* What became of a victim, as the caller sees the job now. */
enum grace_state {
	GRACE_RUNNING,	/* running or completing: not settled yet */
	GRACE_EXITED,	/* ended by itself in its grace time, not cancelled:
			 * to be requeued */
	GRACE_SETTLED,	/* gone, pending (requeued), running again after a
			 * requeue, or cancelled (final): nothing owed */
};

struct grace_entry {
	uint32_t job_id;
	unsigned tries;		/* failed requeues so far */
};

/* Zero-initialise; free with grace_list_free(). */
struct grace_list {
	struct grace_entry *e;
	size_t n, cap;
};

/* grace_list_add - track @job_id (once).  Return: 0, or -1 out of memory. */
int grace_list_add(struct grace_list *l, uint32_t job_id);

/*
 * grace_list_scan - ask @state(job_id, @arg) about each victim: settled
 * ones are dropped; exited ones are kept and passed to @owe(job_id, @arg)
 * (to requeue); running ones are kept.  Order is kept.
 */
void grace_list_scan(struct grace_list *l,
		     enum grace_state (*state)(uint32_t job_id, void *arg),
		     void (*owe)(uint32_t job_id, void *arg), void *arg);

/*
 * grace_list_tried - the requeue of @job_id was tried: on success (@ok) it
 * is dropped; on failure it is kept for the next tick, until
 * GRACE_TRIES_MAX failures.  Return: true when it was dropped after its
 * last failure (the caller logs that it gave up), false otherwise (also
 * when @job_id is not tracked).
 */
bool grace_list_tried(struct grace_list *l, uint32_t job_id, bool ok);

/* grace_list_free - forget every victim and the memory. */
void grace_list_free(struct grace_list *l);

#endif /* SB_GRACE_LIST_H */
