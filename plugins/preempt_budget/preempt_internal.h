/*
 * preempt_internal.h - what the files of preempt/budget share: the state
 * (defined in preempt_budget.c, guarded by pe_state_lock), the work the
 * tick's read walk hands to its write pass, and the functions one file
 * calls in another.  Non-static names carry the pe_ prefix; plugin.map
 * keeps them out of the .so's dynamic symbols.
 *
 * The files:
 *   preempt_budget.c  Slurm's entry points (preempt_p_*, init, fini), the
 *                     state, the stop notes of victims;
 *   partner.c         finding priority/budget's operations table;
 *   tick.c            the one-second thread: the read side (a walk of
 *                     job_list in slices, the visit), the write pass;
 *   refresh.c         the tick's re-read of budget.conf;
 *   repair.c          releasing jobs from nodes drained for repair;
 *   limits.c          releasing unallocated jobs that fill a limit an
 *                     allocated job pends behind;
 *   warn.c            warning interactive jobs before their protected
 *                     slice ends.
 */
#ifndef SB_PREEMPT_INTERNAL_H
#define SB_PREEMPT_INTERNAL_H

/* Every file of the plugin includes this header first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* dladdr, RTLD_NODELETE, pthread_setname_np */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/assoc_mgr.h"
#include "src/common/bitstring.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_conf.h"
#include "budget_job.h"
#include "budget_ops.h"
#include "grace_list.h"
#include "slurm_compat.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/limits.h"
#include "sb/preempt.h"
#include "sb/view.h"
#include "tick_stats.h"

extern const char plugin_type[];

#define PARTNER "priority/budget"
#define PARTNER_SO "priority_budget.so"

/* State: defined in preempt_budget.c, which says what each is. */
extern pthread_mutex_t pe_state_lock;
extern pthread_cond_t pe_wake_cond;
extern struct sb_config pe_cfg;
extern struct budget_conf_seen pe_cfg_seen;
extern char *pe_keep_pending;
extern int pe_tres_pos;
extern bool pe_stop_thread;
extern bool pe_in_tick;
extern bool pe_thread_done;
extern unsigned pe_generation;
extern uint32_t pe_last_preemptor_id, pe_last_preemptor_prio;
extern struct grace_list pe_graced;
extern const struct sb_budget_ops *pe_ops;
extern time_t pe_ops_conf_update;
extern bool pe_ops_missing_logged;
extern unsigned pe_ops_misses;
extern int64_t pe_requeue_delay;

/* What the read walk found for the write pass: jobs by id (the write pass
 * finds each again and checks again: things may change between the two). */
enum tick_act {
	ACT_REPAIR,	/* release for repair of node @node */
	ACT_GRACE_END,	/* its grace time is over: requeue or cancel now */
	ACT_REQUEUE,	/* resumable, exited during its grace time */
	ACT_LIMIT,	/* unallocated, counts against a limit job @by
			 * pends behind: release it for @by */
};
struct tick_action {
	uint32_t job_id;
	enum tick_act what;
	int node;	/* ACT_REPAIR: node index */
	uint32_t by;	/* ACT_LIMIT: the blocked allocated job */
	char why[192];	/* ACT_LIMIT: the limit, for the log */
};
struct tick_work {
	struct tick_action *a;
	size_t n, cap;
	int wake;	/* jobs that became startable or preemptable */
};

/* preempt_budget.c */
void pe_grace_track(uint32_t job_id);
void pe_set_reason(job_record_t *job_ptr, char *text);

/* partner.c */
void pe_partner_refresh(void);

/* tick.c */
/* Room for one more in the array *@v of *@cap elements of @size bytes,
 * @n of them used: the array doubles (to @first at first) when full. */
static inline void pe_room_for_one(void **v, size_t n, size_t *cap,
				   size_t size, size_t first)
{
	if (n < *cap)
		return;
	*cap = *cap ? 2 * *cap : first;
	xrecalloc(*v, *cap, size);
}
struct tick_action *pe_work_add(struct tick_work *w, uint32_t job_id,
				enum tick_act what, int node);
void *pe_tick_loop(void *arg);
/* Whether the tick of generation @my_gen must not act: stopping, or not
 * (or no longer) this controller's state (see pe_tick_loop()).  Takes
 * pe_state_lock. */
bool pe_tick_off(unsigned my_gen);

/* refresh.c */
void pe_refresh_config(unsigned my_gen);

/* repair.c */
bitstr_t *pe_repair_nodes(const struct sb_preempt_policy *pol);
int pe_repair_node_of(const job_record_t *job_ptr, bitstr_t *repair);
void pe_release_for_repair(job_record_t *job_ptr, const char *node,
			   const char *reason, const struct sb_contract *c,
			   const struct sb_preempt_policy *pol, time_t now);

/* limits.c */
bool pe_limit_reason(uint32_t reason);
void pe_limits_tick(job_record_t **blocked, size_t nb,
		    const struct sb_preempt_policy *pol, time_t now,
		    struct tick_work *w);

/* warn.c */
void pe_warn_interactive(job_record_t *job_ptr, time_t until, time_t now);

#endif /* SB_PREEMPT_INTERNAL_H */
