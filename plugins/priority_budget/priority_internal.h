/*
 * priority_internal.h - what the files of priority/budget share: the state
 * (defined in priority_budget.c, which says who guards what), the queue of
 * ended jobs, and the functions one file calls in another.  Non-static
 * names carry the pr_ prefix; plugin.map keeps them out of the .so's
 * dynamic symbols.
 *
 * The files:
 *   priority_budget.c  Slurm's entry points (init, fini, priority_p_*),
 *                      the state, sprio's factors;
 *   recalc.c           the recalculation thread, one named step a function;
 *   jobs.c             a job's priority, its charge and its committed usage;
 *   tree.c             the association snapshot and adopting it;
 *   ledger.c           the saved ledger and rebuilding or reconciling the
 *                      window from slurmdbd;
 *   publish.c          shares, usage and standing published to assoc_mgr;
 *   ops.c              the operations table preempt/budget reads;
 *   limit_usage.c      Slurm's time-limit counters (limit_usage.h).
 */
#ifndef SB_PRIORITY_INTERNAL_H
#define SB_PRIORITY_INTERNAL_H

/* Every file of the plugin includes this header first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* pthread_setname_np */
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_conf.h"
#include "sb/config_file.h"
#include "budget_job.h"
#include "budget_ops.h"
#include "limit_usage.h"
#include "slurm_compat.h"
#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/lane.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"
#include "sb/view.h"

extern const char plugin_type[];

/* State: defined in priority_budget.c, which says what each is. */
extern pthread_mutex_t pr_state_lock;
extern pthread_cond_t pr_wake_cond;
extern pthread_t pr_calc_thread;
extern bool pr_thread_running, pr_stop_thread, pr_run_now;
extern struct sb_config pr_cfg;
extern struct budget_conf_seen pr_cfg_seen;
extern struct sb_tree *pr_tree;
extern struct sb_ledger *pr_ledger;
extern struct sb_accrual *pr_accrual;
extern struct sb_standing *pr_standing;
extern struct sb_view pr_view;
extern bool pr_view_ok;
extern time_t pr_commit_now;
extern bool pr_state_loaded, pr_need_rebuild;
extern bool pr_need_reconcile;
extern bool pr_recharge;
extern time_t pr_reconcile_from;
extern struct budget_conf_env pr_conf_env;
extern char *pr_state_dir;
extern char *pr_conf_cluster;
extern uid_t pr_slurm_user;
extern char *pr_keep_pending;
extern time_t pr_last_save;
extern double pr_last_save_cost;
extern int pr_tres_pos;
extern uint64_t *pr_lane_held;
extern uint32_t pr_lane_n;
extern bool pr_tres_stale;
extern int pr_last_tres_id;

/* A job's last run segment, handed over by priority_p_job_end(). */
struct ended_job {
	uint32_t job_id, assoc_id;
	bool allocated;
	double tres;		/* charged per second (sb_charge_rate()) */
	double usage_factor;	/* its QOS's, for tres_str */
	char *tres_str;	/* when ChargeTRES's position was not known yet:
			 * the job's tres_alloc_str, read by TRES id in
			 * pr_charge_ended(); else NULL */
	time_t start, end;	/* end: start + the seconds it ran, suspended
				 * time left out (sb_run_charged_to()) */
};
extern struct ended_job *pr_ended;
extern size_t pr_ended_n;

/* priority_budget.c */
void pr_copy_conf(void);

/* backoff.c */
extern int64_t pr_requeue_delay;
bool pr_restart_backoff(job_record_t *job_ptr);

/* recalc.c */
void pr_start_thread(void);

/* jobs.c */
bool pr_run_allocated(const job_record_t *job_ptr);
double pr_job_qos_norm(const job_record_t *job_ptr);
void pr_adopt_admin_priority(job_record_t *job_ptr);
uint32_t pr_job_priority(const job_record_t *job_ptr, uint64_t *held,
			 time_t now);
uint64_t pr_lane_holds(const job_record_t *job_ptr, time_t now);
uint64_t pr_lane_tres(const job_record_t *job_ptr);
int pr_charge_tres_pos(void);
void pr_accrue_job(job_record_t *job_ptr, time_t now, int pos);
void pr_commit_job(const job_record_t *job_ptr, time_t now);

/* tree.c */
bool pr_same_tree(const struct sb_tree *a, const struct sb_tree *b);
struct sb_tree *pr_snapshot_tree(void);
int pr_adopt_tree(struct sb_tree *t, time_t now);
void pr_fit_ledger_shape(uint32_t nassoc);

/* ledger.c */
bool pr_load_state(void);
void pr_save_state(const char *text);
int pr_charge_tres_id(int pos);
void pr_charge_ended(int tres_id);
void pr_recharge_window(void);
void pr_rebuild_window(time_t now, int pos);
void pr_reconcile_ledger(time_t now, int pos);

/* publish.c */
void pr_publish_assocs(const double *charged, const double *own, uint32_t n);

#endif /* SB_PRIORITY_INTERNAL_H */
