/*
 * slurm_compat.h - the ONE place where Slurm releases differ for
 * slurm-budget: every plugin and sbudget include it after Slurm's own
 * headers and use only what it provides where the releases part ways.
 * No other file of the project tests SLURM_VERSION_NUMBER.  It lives in
 * compat/, outside plugins/ and src/, because both include it: src/
 * includes nothing from plugins/.
 *
 * Built and tested: Slurm 22.05 (Debian 12) and 24.11 (Debian 13's source,
 * contrib/setup.sh --slurm 24.11).  Releases in between (23.02, 23.11,
 * 24.05) are refused at compile time: their plugin APIs are each a
 * different mix of the two and nobody tested them.  Releases after 24.11
 * are taken as 24.11 (configure warns that they are untested).
 *
 * What differs (see also doc/design.md, "Slurm releases"):
 *   - list types: 22.05 has List/ListIterator (pointer typedefs), 24.11
 *     list_t/list_itr_t (struct typedefs); both spellings work on both
 *     here (new code: list_t *, list_itr_t *);
 *   - plugin interface headers moved from src/common and src/slurmctld to
 *     src/interfaces (priority, preempt, accounting_storage), and
 *     srun_comm.h (srun_user_message(), what `scontrol notify` calls) to
 *     src/stepmgr: included here;
 *   - job_submit: job_modify() gained `char **err_msg` (the refusal reason
 *     reaches the user, as job_submit()'s does): SB_DEFINE_JOB_MODIFY;
 *   - priority: priority_p_get_priority_factors_list() lost the request
 *     (sprio filters by job and user itself) and is called with the job
 *     read lock held; its objects keep the factors in a separate struct
 *     (prio_factors): SB_DEFINE_PRIORITY_FACTORS_LIST, sb_prio_factors_new;
 *     two new required symbols, priority_p_recover() and
 *     priority_p_thread_start(), the latter called once the job state is
 *     read (priority_g_init() now runs before read_slurm_conf());
 *     SB_PRIORITY_THREAD_AT_INIT says where a plugin starts its thread;
 *   - sbudget: a pending reason's name is job_state_reason_string() (was
 *     job_reason_string()): sb_job_reason_string;
 *   - sbudget: libslurm's bitstring functions (an array's pending tasks)
 *     are exported as slurm_bit_* by every release, but 22.05's header
 *     names them bit_* behind slurm_xlator.h: sb_job_is_array_task;
 *   - clients load plugins early: 24.11's sshare loads the priority plugin
 *     at start, so slurmctld's variables are weak references (below);
 *   - PreemptType=preempt/none is stored as NULL in 24.11:
 *     sb_preempt_type();
 *   - scontrol reconfigure: 24.11 restarts slurmctld (a new process runs
 *     every plugin's init() again); 22.05 calls the reconfig hooks in the
 *     running process.  SB_RECONFIG_RESTARTS says which.
 * What does not differ, for the record: the preempt plugin ops and
 * PREEMPT_DATA_*, the spank API used by spank_budget, plugin_version
 * (= SLURM_VERSION_NUMBER of the tree built against: both releases refuse
 * a plugin of another major.minor.micro, SPANK plugins of another
 * major.minor), the assoc_mgr calls and the job_record_t fields used.
 */
#ifndef SB_SLURM_COMPAT_H
#define SB_SLURM_COMPAT_H

#include "slurm/slurm_version.h"

#if SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 5, 0)
#error "slurm-budget supports Slurm 22.05, 24.11, 25.11 and 26.05"
#elif (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 6, 0) &&          \
       SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 11, 0)) ||         \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 12, 0) &&       \
	 SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(25, 11, 0)) ||       \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 12, 0) &&       \
	 SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(26, 5, 0)) ||        \
	SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 6, 0)
#error "slurm-budget supports Slurm 22.05, 24.11, 25.11 and 26.05; this release is untested"
#endif

/* 1 when built against Slurm 24.11 or later, 0 for 22.05. */
#define SB_SLURM_2411 (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0))
/* 1 when built against Slurm 25.11 or later (25.05's preempt plugin API,
 * 25.11's requeue and fair-share factor). */
#define SB_SLURM_2511 (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0))
/* 1 when built against Slurm 26.05 (a job is named by slurm_step_id_t in
 * sprio's objects and slurm_load_job(); threads from threadpool.h). */
#define SB_SLURM_2605 (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0))

/* ------------------------------------------------------------ list types */
#include "slurm/slurm.h"	/* declares the list types of its release */
#if SB_SLURM_2411
typedef list_t *List;
typedef list_itr_t *ListIterator;
#else
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
#endif

/* The name of a pending reason (libslurm exports it under both releases,
 * declared in src/common/job_state_reason.h since 24.11, in
 * slurm_protocol_defs.h before; named job_state_reason_string since). */
#if defined(SB_COMPAT_PROTOCOL) || !defined(SB_COMPAT_CLIENT)
#if SB_SLURM_2411
#include "src/common/job_state_reason.h"
#define sb_job_reason_string(r) job_state_reason_string(r)
#else
#include "src/common/slurm_protocol_defs.h"
#define sb_job_reason_string(r) job_reason_string(r)
#endif
#endif

/* SB_COMPAT_CLIENT (sbudget): no controller headers; with
 * SB_COMPAT_PROTOCOL too (shares.c), the protocol part above. */
#ifndef SB_COMPAT_CLIENT
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"
/* ------------------------------------------- moved plugin interfaces */
#if SB_SLURM_2411
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/preempt.h"
#include "src/interfaces/priority.h"
#include "src/stepmgr/srun_comm.h"	/* srun_user_message() */
#else
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurm_priority.h"
#include "src/slurmctld/preempt.h"
#include "src/slurmctld/srun_comm.h"	/* srun_user_message() */
#endif

/*
 * slurmctld's own variables, weak: Slurm 24.11's sshare loads the priority
 * plugin at start (22.05 only when it computes a fair-share factor), in a
 * process without them; a strong reference would fail the dlopen
 * ("undefined symbol: last_job_update").  The plugins touch them only
 * inside slurmctld (running_in_slurmctld(), or from threads and hooks that
 * only slurmctld starts or calls), where they resolve as before.
 */
#pragma weak job_list
#pragma weak last_job_update
#pragma weak accounting_enforce
#pragma weak acct_db_conn
#pragma weak default_part_loc
#pragma weak slurmctld_config
#pragma weak node_record_table_ptr
#pragma weak node_record_count
#pragma weak slurmctld_diag_stats

/* The PreemptType in force: 24.11 stores preempt/none (and no PreemptType
 * line) as NULL, 22.05 stores what the line says, NULL without one. */
static inline const char *sb_preempt_type(void)
{
	return slurm_conf.preempt_type ? slurm_conf.preempt_type :
					 "preempt/none";
}

/* SB_WHOLE_NODE(details) - the job asked for whole nodes (--exclusive;
 * not =user, =mcs): 22.05 stores 1/2/3 in whole_node, 24.11 a bit mask
 * (WHOLE_NODE_REQUIRED, WHOLE_TOPO, ...), where 22.05's 3 (mcs) would test
 * as required. */
#if SB_SLURM_2411
#define SB_WHOLE_NODE(d) (((d)->whole_node & WHOLE_NODE_REQUIRED) != 0)
#else
#define SB_WHOLE_NODE(d) ((d)->whole_node == WHOLE_NODE_REQUIRED)
#endif

/* scontrol reconfigure restarts slurmctld (init() runs again in a new
 * process) rather than calling the plugins' reconfig hooks. */
#define SB_RECONFIG_RESTARTS SB_SLURM_2411

/* ------------------------------------------------------------ job_submit */
/*
 * SB_DEFINE_JOB_MODIFY(impl) - define the plugin's job_modify() entry
 * point for this release on top of
 *   static int impl(job_desc_msg_t *, job_record_t *, uint32_t submit_uid,
 *                   char **err_msg);
 * where err_msg is NULL on 22.05 (no channel to the user: impl logs the
 * reason, the user sees the error code only) and, on 24.11, where impl
 * may store an xmalloc'ed message that scontrol update shows.
 */
#if SB_SLURM_2411
#define SB_DEFINE_JOB_MODIFY(impl)                                           \
	extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, \
			      uint32_t submit_uid, char **err_msg)            \
	{                                                                     \
		return impl(job_desc, job_ptr, submit_uid, err_msg);          \
	}
#else
#define SB_DEFINE_JOB_MODIFY(impl)                                           \
	extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr, \
			      uint32_t submit_uid)                            \
	{                                                                     \
		return impl(job_desc, job_ptr, submit_uid, NULL);             \
	}
#endif

/* -------------------------------------------------------------- priority */
/* Where a priority plugin starts its background thread: 1 = in init()
 * (22.05: called after the job state is read), 0 = in
 * priority_p_thread_start() (24.11: init() runs before it is read). */
#define SB_PRIORITY_THREAD_AT_INIT (!SB_SLURM_2411)

/*
 * SB_DEFINE_PRIORITY_FACTORS_LIST(impl) - define
 * priority_p_get_priority_factors_list() for this release on top of
 *   static List impl(List job_ids, List uids, uid_t uid, bool locked);
 * job_ids and uids (lists of uint32_t) filter the jobs (NULL: no filter;
 * always NULL on 24.11, where sprio filters); locked: the caller already
 * holds the job read lock (24.11), else impl takes it (22.05).  The list
 * impl returns holds objects from sb_prio_factors_new().
 */
#if SB_SLURM_2411
#define SB_DEFINE_PRIORITY_FACTORS_LIST(impl)                                \
	extern list_t *priority_p_get_priority_factors_list(uid_t uid)        \
	{                                                                     \
		return impl(NULL, NULL, uid, true);                           \
	}
#else
#define SB_DEFINE_PRIORITY_FACTORS_LIST(impl)                                \
	extern List priority_p_get_priority_factors_list(                    \
		priority_factors_request_msg_t *req_msg, uid_t uid)           \
	{                                                                     \
		return impl(req_msg ? req_msg->job_id_list : NULL,            \
			    req_msg ? req_msg->uid_list : NULL, uid, false);   \
	}
#endif

/*
 * sb_prio_factors_new - a sprio row for @job_ptr (its partition, account
 * and QOS copied) with the given factor columns.  Returns an xmalloc'ed
 * object for a list created with slurm_destroy_priority_factors_object.
 */
static inline priority_factors_object_t *
sb_prio_factors_new(const job_record_t *job_ptr, double assoc, double fs,
		    double qos, uint32_t site, uint32_t nice)
{
	priority_factors_object_t *o = xmalloc(sizeof(*o));
#if SB_SLURM_2411
	priority_factors_t *f = xmalloc(sizeof(*f));

	o->prio_factors = f;
	o->account = xstrdup(job_ptr->account);
	o->qos = job_ptr->qos_ptr ? xstrdup(job_ptr->qos_ptr->name) : NULL;
#else
	priority_factors_object_t *f = o;
#endif
#if SB_SLURM_2605
	o->step_id = (slurm_step_id_t){ .job_id = job_ptr->job_id,
					.step_id = NO_VAL,
					.step_het_comp = NO_VAL };
#else
	o->job_id = job_ptr->job_id;
#endif
	o->partition = xstrdup(job_ptr->partition);
	o->user_id = job_ptr->user_id;
	f->priority_assoc = assoc;
	f->priority_fs = fs;
	f->priority_qos = qos;
	f->priority_site = site;
	f->nice = nice;
	return o;
}

/* --------------------------------------------------------------- preempt */
/*
 * SB_DEFINE_PREEMPT_DATA(mode, prio, grace) - define the preempt plugin's
 * per-job entry points for this release on top of
 *   static uint16_t mode(job_record_t *);   PREEMPT_MODE_* to stop it with
 *   static uint32_t prio(job_record_t *);   victim order: lower goes first
 *   static uint32_t grace(job_record_t *);  PreemptGraceTime, seconds
 * 25.05 and later: preempt_p_get_mode/_get_prio/_get_grace_time (Slurm
 * itself answers whether preemption is enabled: PreemptMode != OFF);
 * before: one preempt_p_get_data() with a PREEMPT_DATA_* selector.
 */
#if SB_SLURM_2511
#define SB_DEFINE_PREEMPT_DATA(mode, prio, grace)                            \
	extern uint16_t preempt_p_get_mode(job_record_t *job_ptr)             \
	{                                                                     \
		return mode(job_ptr);                                         \
	}                                                                     \
	extern uint32_t preempt_p_get_prio(job_record_t *job_ptr)             \
	{                                                                     \
		return prio(job_ptr);                                         \
	}                                                                     \
	extern uint32_t preempt_p_get_grace_time(job_record_t *job_ptr)       \
	{                                                                     \
		return grace(job_ptr);                                        \
	}
#else
#define SB_DEFINE_PREEMPT_DATA(mode, prio, grace)                            \
	extern int preempt_p_get_data(job_record_t *job_ptr,                  \
				      slurm_preempt_data_type_t data_type,    \
				      void *data)                             \
	{                                                                     \
		switch (data_type) {                                          \
		case PREEMPT_DATA_ENABLED:                                    \
			*(bool *)data =                                       \
				slurm_conf.preempt_mode != PREEMPT_MODE_OFF;  \
			return SLURM_SUCCESS;                                 \
		case PREEMPT_DATA_MODE:                                       \
			*(uint16_t *)data = mode(job_ptr);                    \
			return SLURM_SUCCESS;                                 \
		case PREEMPT_DATA_PRIO:                                       \
			*(uint32_t *)data = prio(job_ptr);                    \
			return SLURM_SUCCESS;                                 \
		case PREEMPT_DATA_GRACE_TIME:                                 \
			*(uint32_t *)data = grace(job_ptr);                   \
			return SLURM_SUCCESS;                                 \
		}                                                             \
		error("%s: unknown preempt data type %d", plugin_type,        \
		      data_type);                                             \
		return SLURM_ERROR;                                           \
	}
#endif

/*
 * sb_requeue_preempted - requeue @job_ptr (job write lock held) as a
 * preemption, as Slurm's own preemption does (uid 0, no RPC, no flags).
 * Returns SLURM_SUCCESS or Slurm's error code.  25.11 takes the record
 * (job_requeue_internal); before, the job id (job_requeue).
 */
static inline int sb_requeue_preempted(job_record_t *job_ptr)
{
#if SB_SLURM_2511
	return job_requeue_internal(0, job_ptr, true, 0);
#else
	return job_requeue(0, job_ptr->job_id, NULL, true, 0);
#endif
}

/* --------------------------------------------------------------- threads */
/*
 * sb_thread_create - start a joinable thread of the plugin's own running
 * @fn(@arg) into *@id; fatal() if it cannot, as slurm_thread_create().
 * Created with pthread_create on every release: 26.05's
 * slurm_thread_create takes its threads from a pool (threadpool.h) that
 * only threadpool_join() may join and nothing may detach, while the
 * plugins join their thread in fini(), or detach it when joining would
 * deadlock.
 */
static inline void sb_thread_create(pthread_t *id, void *(*fn)(void *),
				    void *arg)
{
	int err = pthread_create(id, NULL, fn, arg);

	if (err) {
		errno = err;
		fatal("%s: pthread_create error %m", __func__);
	}
}

/* ----------------------------------------------------------- limit usage
 * A QOS's per-account and per-user counters (slurmdb_used_limits_t) carry
 * run-seconds (tres_run_secs, added at job start, released by the priority
 * plugin: MaxTRESRunMinsPerAccount/PerUser) on the newer releases; 22.05
 * has a tres_run_mins array there that nothing sets ("doesn't do anything
 * and isn't set up").  Checked in each tree's slurm/slurmdb.h: 22.05.8
 * (no), 24.11.5, 25.11.7 and 26.05.3 (yes).
 * SB_QOS_USED_LIMITS_RUN_SECS: 1 when they exist;
 * SB_USED_LIMITS_RUN_SECS(ul): the uint64_t array, NULL on 22.05. */
#if SB_SLURM_2411
#define SB_QOS_USED_LIMITS_RUN_SECS 1
#define SB_USED_LIMITS_RUN_SECS(ul) ((ul)->tres_run_secs)
#else
#define SB_QOS_USED_LIMITS_RUN_SECS 0
#define SB_USED_LIMITS_RUN_SECS(ul) ((void)(ul), (uint64_t *)NULL)
#endif

/* ---------------------------------------------------------------- requeue
 * batch_requeue_fini() (job_mgr.c) sets a requeued job's begin time to now
 * + the requeue delay and its submit time to now in every release; 24.11.5,
 * 25.11.7 and 26.05.3 then call set_job_prio() (priority_g_set()) when its
 * priority is not 0, 22.05.8 does not (priority/budget's recalculation
 * covers it: backoff.c).  25.11 and 26.05 add an expedited requeue
 * (EXPEDITED_REQUEUE in the job's bit_flags: begin time 0, the job held);
 * 22.05 and 24.11 have none.
 * SB_JOB_EXPEDITED_REQUEUE(j): whether job record @j asked for one. */
#if SB_SLURM_2511
#define SB_JOB_EXPEDITED_REQUEUE(j) (((j)->bit_flags & EXPEDITED_REQUEUE) != 0)
#else
#define SB_JOB_EXPEDITED_REQUEUE(j) ((void)(j), false)
#endif
#endif /* !SB_COMPAT_CLIENT */

/* ------------------------------------------------------------ libslurm */
/* sb_free_ctl_conf - free what slurm_load_ctl_conf() returned (26.05
 * renamed slurm_free_ctl_conf to slurm_free_conf). */
#if SB_SLURM_2605
#define sb_free_ctl_conf(c) slurm_free_conf(c)
#else
#define sb_free_ctl_conf(c) slurm_free_ctl_conf(c)
#endif

/* sb_load_job - slurm_load_job() of job @id (every array task or het
 * component of it); 26.05 names the job by slurm_step_id_t. */
static inline int sb_load_job(job_info_msg_t **resp, uint32_t id,
			      uint16_t show_flags)
{
#if SB_SLURM_2605
	slurm_step_id_t step = SLURM_STEP_ID_INITIALIZER;

	step.job_id = id;
	return slurm_load_job(resp, step, show_flags);
#else
	return slurm_load_job(resp, id, show_flags);
#endif
}

/*
 * sb_job_is_array_task - whether record @j of a job array holds array task
 * @task: as its own job (array_task_id), or among the pending tasks it
 * still holds in one record (array_bitmap, as scontrol's
 * _task_id_in_job()).  libslurm exports its bitstring functions as
 * slurm_bit_* in every release, but the public headers declare none of
 * them (22.05's bitstring.h names them bit_* behind slurm_xlator.h).
 */
extern bitoff_t slurm_bit_size(bitstr_t *b);
extern int slurm_bit_test(bitstr_t *b, bitoff_t bit);
static inline bool sb_job_is_array_task(const slurm_job_info_t *j,
					uint32_t task)
{
	if (!j->array_job_id)
		return false;
	if (j->array_task_id == task)
		return true;
	return j->array_task_id == NO_VAL && j->array_bitmap &&
	       (bitoff_t)task < slurm_bit_size(j->array_bitmap) &&
	       slurm_bit_test(j->array_bitmap, (bitoff_t)task);
}

/*
 * sb_limit_secs - a time limit as Slurm keeps it (minutes in a uint32_t:
 * a job's time_limit, an association's or QOS's MaxWall) in seconds; -1
 * for none: NO_VAL (not set), INFINITE (unlimited) or 0.
 */
static inline int64_t sb_limit_secs(uint32_t minutes)
{
	if (minutes == NO_VAL || minutes == INFINITE || minutes == 0)
		return -1;
	return (int64_t)minutes * 60;
}

#endif /* SB_SLURM_COMPAT_H */
