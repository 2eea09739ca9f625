/*
 * budget_ops.h - the one interface between the two controller plugins.
 *
 * priority/budget owns the budget state: the association tree snapshot,
 * the usage ledger, the standing and the budget view (sb/view.h: charged
 * usage from the ledger, committed usage of running jobs).  preempt/budget
 * needs that state for its verdicts and reaches it only through this
 * table, which priority_budget.so exports under the name
 * SB_BUDGET_OPS_SYMBOL (and nothing else besides Slurm's entry points; see
 * plugins/common/plugin.map).
 *
 * Finding it (preempt/budget, budget_ops_find() in preempt_budget.c):
 * dlopen("<dir>/priority_budget.so", RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)
 * with <dir> the directory of preempt_budget.so itself (dladdr), then each
 * directory of PluginDir; dlsym(SB_BUDGET_OPS_SYMBOL); then the version,
 * size and Slurm version checks below.  RTLD_NOLOAD: only the copy
 * slurmctld loaded as its priority plugin is used, never a second one.
 * RTLD_NODELETE: the table and its functions stay mapped for the life of
 * slurmctld, so a pointer read once never dangles.  It is looked up again
 * after every reconfigure.  When PriorityType is not priority/budget the
 * table is not used at all and preempt/budget degrades (see
 * preempt_budget.c, "Without priority/budget").
 *
 * Locks.  Order: slurmctld locks, then assoc_mgr locks, then
 * priority/budget's state_lock.  preempt/budget never holds its own
 * state_lock while calling into this table, so the two plugins' mutexes
 * are never nested.  Each member states the slurmctld locks its caller
 * must hold; every member takes priority/budget's state_lock itself
 * (commit_begin keeps it until commit_end).
 *
 * Versioning.  Any change of a member's meaning or signature, or a member
 * added, is a new version: a new struct and symbol (sb_budget_ops_v3),
 * with priority/budget exporting the old one as long as it is supported.
 * Version 1 did not carry policy_size, so a preempt/budget of one build
 * could hand a priority/budget of another a struct sb_preempt_policy of
 * another layout; it is no longer exported.  A change of a struct the
 * members pass (struct sb_preempt_policy) is caught by policy_size when it
 * changes the size, and is otherwise a new version too.
 */
#ifndef SB_BUDGET_OPS_H
#define SB_BUDGET_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "src/slurmctld/slurmctld.h"

#include "sb/preempt.h"

#define SB_BUDGET_OPS_VERSION 2
#define SB_BUDGET_OPS_SYMBOL "sb_budget_ops_v2"

struct sb_budget_ops {
	/* SB_BUDGET_OPS_VERSION of the exporter; checked first. */
	uint32_t version;
	/* sizeof(struct sb_budget_ops) of the exporter. */
	uint32_t size;
	/* SLURM_VERSION_NUMBER priority/budget was built against: the two
	 * plugins pass job_record_t pointers, whose layout must agree. */
	uint32_t slurm_version;
	/* sizeof(struct sb_preempt_policy) of the exporter: decide() reads
	 * the caller's policy, whose layout must agree. */
	uint32_t policy_size;

	/*
	 * Committed usage, refreshed from the running jobs at @now in one
	 * walk of job_list that the caller makes: commit_begin(), then
	 * commit_job() for every job of the walk (any state: the ones that
	 * commit nothing are skipped), then commit_end().  Replaces the
	 * view's committed usage (sb_view_clear_committed() and
	 * sb_view_commit(), sb/view.h); the charged part stays what the last
	 * recalculation read from the ledger.  Caller: the job read lock (or
	 * write) held from commit_begin() to commit_end(), nothing between
	 * them but commit_job().
	 * commit_begin: required.  Never waits.  Return: true with
	 *   priority/budget's state_lock held; false (nothing held, do not
	 *   call the other two) when priority/budget has no view yet (before
	 *   its first recalculation, or after fini()) or when its state_lock
	 *   is taken (a recalculation, which commits every running job
	 *   itself, or charging): the view keeps its last committed usage,
	 *   and the caller tries again at its next walk.
	 * commit_job: required.  The job's sb_committed_rest() at @now is
	 *   added to its association and every ancestor.
	 * commit_end: required.  Drops the state_lock.
	 */
	bool (*commit_begin)(time_t now);
	void (*commit_job)(const job_record_t *job_ptr);
	void (*commit_end)(void);

	/*
	 * decide - required.  The full verdict (sb_preempt_decide(), sb/view.h)
	 * on whether pending @preemptor may take running @victim's resources
	 * at @now under the site's @pol: each job as budget_job_party() reads
	 * it, with its association's tree index and the current view.  Before
	 * the first recalculation there is no view: allocated victims of
	 * another budget get SB_PREEMPT_NOVIEW.  @why, @len: as for
	 * sb_preempt_decide().  Caller: the job read lock (or write) held.
	 */
	enum sb_preempt_verdict (*decide)(const struct sb_preempt_policy *pol,
					  const job_record_t *preemptor,
					  const job_record_t *victim,
					  time_t now, char *why, size_t len);

	/*
	 * victim_key - required.  sb_preempt_victim_key() of running @victim
	 * at @now: lower is preempted first.  Its standing level comes from
	 * the job's current priority, which priority/budget composed
	 * (sb/priority.h).  Caller: the job read lock (or write) held.
	 * Never waits for priority/budget's state lock (it reads only
	 * ChargeTRES's position, atomically).
	 */
	uint32_t (*victim_key)(const job_record_t *victim, time_t now);
};

#endif /* SB_BUDGET_OPS_H */
