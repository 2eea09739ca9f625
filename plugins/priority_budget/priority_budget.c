/*
 * priority_budget.c - priority/budget: budget-weighted hierarchical
 * fair-share over a sliding lookback window.
 *
 * A thread wakes every CalcPeriod seconds (budget.conf) and:
 *   1. snapshots the association tree (RawShares) from assoc_mgr;
 *   2. accrues the charged TRES (ChargeTRES, default gres/gpu) of running
 *      jobs, and of jobs that ended since, into the usage ledger, from the
 *      job's *allocated* TRES, allocated and unallocated apart (the contract
 *      tag written by job_submit/budget says which);
 *   3. refreshes the budget view (sb/view.h): charged usage from the
 *      ledger, committed usage (the uncharged rest of running jobs'
 *      minimum runtimes), and recomputes the standing from their sum;
 *   4. re-prioritises pending and running jobs;
 *   5. publishes shares, usage and standing to the associations for sshare;
 *   6. saves the ledger atomically under StateSaveLocation (as often as
 *      costs at most 1% of the time).
 * Before these, it keeps the usage counters of Slurm's time limits
 * (GrpTRESRunMins, GrpTRESMins, GrpWall) as priority/multifactor does:
 * limit_usage.c.
 * Each step holds the slurmctld/assoc_mgr locks it needs and no longer; the
 * policy itself is in the core (src/core): tree, ledger, standing, view,
 * priority.  Lock order: slurmctld locks, then assoc_mgr locks, then
 * pr_state_lock.
 *
 * preempt/budget reads the budget state only through the operations table
 * exported by ops.c (sb_budget_ops_v2, budget_ops.h): the committed
 * refresh of its one-second tick, the preemption verdict and the victim
 * order.  Without preempt/budget this plugin works alone, but
 * nothing enforces the end of a minimum runtime by preemption (logged at
 * init).
 *
 * In-team priority: 512 - nice + the QOS's part (its normalised Priority x
 * 511; sb_priority_in_team(), clamped to 0..1023), so `sbatch --nice=N` and
 * `--qos` order a user's jobs within their association and never lift them
 * above another team's.
 */
#include "priority_internal.h"

const char plugin_name[] = "Priority BUDGET plugin";
const char plugin_type[] = "priority/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/*
 * Ownership.  The recalculation thread alone changes the ledger and the
 * accrual record, so it reads them (and saves them, which takes long for a
 * large tree) without a lock.  pr_state_lock guards what other threads read
 * or write: tree, standing and view (swapped and recomputed by the thread,
 * read by priority_p_set and by preempt/budget through the operations
 * table, whose committed refresh also rewrites the view's committed
 * usage), the ended-job queue filled by priority_p_job_end, the
 * configuration and the thread's wake-up flags.
 */
pthread_mutex_t pr_state_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t pr_wake_cond = PTHREAD_COND_INITIALIZER;
pthread_t pr_calc_thread;
bool pr_thread_running, pr_stop_thread, pr_run_now;
struct sb_config pr_cfg;
struct budget_conf_seen pr_cfg_seen;
struct sb_tree *pr_tree;		/* current association snapshot */
struct sb_ledger *pr_ledger;	/* bound to tree */
struct sb_accrual *pr_accrual;
struct sb_standing *pr_standing;	/* computed on tree */
struct sb_view pr_view;		/* on tree; see sb/view.h */
bool pr_view_ok;			/* charged usage set at least once */
time_t pr_commit_now;		/* of the committed refresh under way */
bool pr_state_loaded, pr_need_rebuild;
/* The saved ledger was loaded: what ended while this plugin was not
 * watching (slurmctld down or killed, another PriorityType, a requeue's
 * queued end lost with the process) is read back from slurmdbd, from
 * pr_reconcile_from on, before anything else is charged
 * (pr_reconcile_ledger()). */
bool pr_need_reconcile;
/* budget.conf's Cutover changed at a reconfigure: charge the window again
 * (pr_recharge_window()).  Thread only. */
bool pr_recharge;
time_t pr_reconcile_from;
/* What the thread needs from slurm_conf, copied under the slurmctld conf
 * read lock at each recalculation (a 22.05 reconfigure frees and replaces
 * slurm_conf's strings in process).  Thread only, and init()/fini() while
 * the thread does not run. */
struct budget_conf_env pr_conf_env;
char *pr_state_dir;			/* StateSaveLocation */
char *pr_conf_cluster;		/* ClusterName */
uid_t pr_slurm_user;		/* SlurmUser */
char *pr_keep_pending;	/* text init() parsed, for budget_conf_keep() */
time_t pr_last_save;
double pr_last_save_cost;	/* seconds the last save took */
int pr_tres_pos = -2;		/* -2: not looked up; -1: not found */
/* What each association (by tree index, pr_lane_n of them) holds in the
 * debug lane: set by each recalculation (its started holders and the
 * pending jobs it admitted), grown at each admission at submission, and
 * shrunk when a lane job ends; a job whose min runtime ends between two
 * recalculations still counts until the next one. */
uint64_t *pr_lane_held;
uint32_t pr_lane_n;
bool pr_tres_stale;		/* reconfigured: look pr_tres_pos up again
				 * (meanwhile the old one holds) */
int pr_last_tres_id = -1;	/* ChargeTRES's id at the last recalculation */

struct ended_job *pr_ended;
size_t pr_ended_n;
static size_t ended_cap;

/* Copy what the thread reads of slurm_conf (see pr_conf_env).  slurmctld
 * conf read lock held, or init(). */
void pr_copy_conf(void)
{
	budget_conf_env_free(&pr_conf_env);
	budget_conf_env_get(&pr_conf_env);
	xfree(pr_state_dir);
	pr_state_dir = xstrdup(slurm_conf.state_save_location);
	xfree(pr_conf_cluster);
	pr_conf_cluster = xstrdup(slurm_conf.cluster_name);
	pr_slurm_user = slurm_conf.slurm_user_id;
	slurm_mutex_lock(&pr_state_lock);
	pr_requeue_delay = sb_requeue_delay_of_authinfo(slurm_conf.authinfo);
	slurm_mutex_unlock(&pr_state_lock);
}

/* Forget pr_copy_conf()'s copies. */
static void free_conf(void)
{
	budget_conf_env_free(&pr_conf_env);
	xfree(pr_state_dir);
	xfree(pr_conf_cluster);
}

/*
 * priority/multifactor's weights mean nothing here: say so once at start,
 * naming those set, so a site that switched over does not think they
 * still order its jobs.
 */
static void warn_multifactor_weights(void)
{
	const struct {
		const char *name;
		uint32_t v;
	} w[] = {
		{ "PriorityWeightAge", slurm_conf.priority_weight_age },
		{ "PriorityWeightAssoc", slurm_conf.priority_weight_assoc },
		{ "PriorityWeightFairshare", slurm_conf.priority_weight_fs },
		{ "PriorityWeightJobSize", slurm_conf.priority_weight_js },
		{ "PriorityWeightPartition", slurm_conf.priority_weight_part },
		{ "PriorityWeightQOS", slurm_conf.priority_weight_qos },
	};
	char *set = NULL;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		if (w[i].v && w[i].v != NO_VAL)
			xstrfmtcat(set, "%s%s=%u", set ? " " : "", w[i].name,
				   w[i].v);
	if (slurm_conf.priority_weight_tres &&
	    slurm_conf.priority_weight_tres[0])
		xstrfmtcat(set, "%sPriorityWeightTRES=%s", set ? " " : "",
			   slurm_conf.priority_weight_tres);
	if (set)
		info("%s: warning: %s: priority/multifactor's weights have no "
		     "effect here; jobs are ordered by tier (allocated first), "
		     "their budget's standing, then in-team (--nice and the "
		     "QOS's Priority), see slurm-budget(8)", plugin_type, set);
	xfree(set);
}

extern int init(void)
{
	/* A bad file must not stop slurmctld: the defaults are the strict
	 * ones (MaxMinRuntime 8:00:00, no default min runtime). */
	char *parsed = NULL;

	sb_config_init(&pr_cfg);
	pr_copy_conf();	/* no reconfigure runs during init() */
	if (budget_conf_load(&pr_conf_env, &pr_cfg, &parsed, plugin_type) !=
	    SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&pr_conf_env, &pr_cfg_seen);
	slurm_mutex_lock(&pr_state_lock);
	xfree(pr_keep_pending);
	/* kept by the thread, outside any lock */
	pr_keep_pending = parsed;
	slurm_mutex_unlock(&pr_state_lock);
	if (!(pr_accrual = sb_accrual_new()))
		return SLURM_ERROR;
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;	/* sshare/sprio load us too */
	if (xstrcmp(sb_preempt_type(), "preempt/budget"))
		info("%s: warning: PreemptType is %s, not preempt/budget: jobs "
		     "are ordered by budget, but the minimum runtime is not "
		     "enforced by preemption (%s) and nodes drained for repair "
		     "are not released", plugin_type,
		     sb_preempt_type(),
		     xstrcmp(sb_preempt_type(), "preempt/none") ?
		     "that plugin may preempt jobs inside their minimum runtime" :
		     "no job is preempted for a better-placed budget");
	warn_multifactor_weights();
	/*
	 * Without 'limits' Slurm never calls priority_p_job_end(), and a
	 * requeue clears the run's start and end times (batch_requeue_fini()),
	 * so the seconds a requeued run held its GPUs since the last
	 * recalculation (up to CalcPeriod) would never be charged.  Charging
	 * exactly is the contract: refuse to start rather than undercharge
	 * (doc/design.md, "AccountingStorageEnforce=limits is required").
	 * slurmctld reads the setting only at start, so this check is enough.
	 */
	if (!(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS)) {
		error("%s: AccountingStorageEnforce has no 'limits': without it "
		      "Slurm does not tell the priority plugin when a job ends "
		      "or is requeued, and the last seconds of requeued runs "
		      "would not be charged; refusing to start. Set "
		      "AccountingStorageEnforce=associations,limits (with "
		      "AccountingStorageType=accounting_storage/slurmdbd) and "
		      "start slurmctld again", plugin_type);
		sb_accrual_free(pr_accrual);
		pr_accrual = NULL;
		return SLURM_ERROR;
	}
	limit_usage_init(pr_state_dir);
	if (SB_PRIORITY_THREAD_AT_INIT)
		pr_start_thread();
	return SLURM_SUCCESS;
}

/* Slurm 24.11 calls this once the job state is read (slurm_compat.h). */
extern int priority_p_thread_start(void)
{
	if (!SB_PRIORITY_THREAD_AT_INIT && running_in_slurmctld())
		pr_start_thread();
	return SLURM_SUCCESS;
}

/* Slurm 24.11, after recovering the job state: priority/basic's boost of
 * every job; ours are recomputed from the standing, so no boost. */
extern uint32_t priority_p_recover(uint32_t prio_boost)
{
	(void)prio_boost;
	return 0;
}

extern int fini(void)
{
	if (pr_thread_running) {
		slurm_mutex_lock(&pr_state_lock);
		pr_stop_thread = true;
		pthread_cond_signal(&pr_wake_cond);
		slurm_mutex_unlock(&pr_state_lock);
		pthread_join(pr_calc_thread, NULL);
		pr_thread_running = false;
		limit_usage_fini();
		/* a clean stop saves everything; but a reconcile still to
		 * do keeps the file as it is, so the next start does it */
		if (pr_ledger && !pr_need_reconcile) {
			char *doc = NULL;

			slurm_mutex_lock(&pr_state_lock);
			pr_charge_ended(pr_last_tres_id);
			slurm_mutex_unlock(&pr_state_lock);
			if (sb_ledger_to_json(pr_ledger, pr_accrual, &doc) ==
			    SB_OK)
				pr_save_state(doc);
			free(doc);
		}
	}
	slurm_mutex_lock(&pr_state_lock);
	while (pr_ended_n)
		xfree(pr_ended[--pr_ended_n].tres_str);
	xfree(pr_ended);
	xfree(pr_lane_held);
	pr_lane_n = 0;
	pr_ended_n = ended_cap = 0;
	sb_standing_free(pr_standing);
	sb_view_free(&pr_view);
	pr_view_ok = false;
	sb_ledger_free(pr_ledger);
	sb_tree_free(pr_tree);
	sb_accrual_free(pr_accrual);
	pr_standing = NULL;
	pr_ledger = NULL;
	pr_tree = NULL;
	pr_accrual = NULL;
	xfree(pr_keep_pending);
	/* Everything init() and the first recalculation rely on, as at load
	 * time: a plugin initialised again in the same process must load the
	 * saved ledger again (pr_state_loaded), look ChargeTRES up again, and
	 * not inherit a pending rebuild or the save schedule. */
	pr_state_loaded = pr_need_rebuild = pr_need_reconcile = false;
	pr_recharge = false;
	pr_tres_stale = false;
	pr_last_tres_id = -1;
	pr_run_now = pr_stop_thread = false;
	pr_commit_now = 0;
	pr_last_save = 0;
	pr_last_save_cost = 0;
	__atomic_store_n(&pr_tres_pos, -2, __ATOMIC_RELAXED);
	memset(&pr_cfg_seen, 0, sizeof(pr_cfg_seen));
	sb_config_init(&pr_cfg);
	slurm_mutex_unlock(&pr_state_lock);
	free_conf();
	return SLURM_SUCCESS;
}

/* Called with the job write lock held when a job is submitted or requeued. */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	uint32_t prio, idx;

	(void)last_prio;
	/* 24.11 and later call this right after a requeue */
	slurm_mutex_lock(&pr_state_lock);
	(void)pr_restart_backoff(job_ptr);
	slurm_mutex_unlock(&pr_state_lock);
	if (job_ptr->direct_set_prio && job_ptr->priority > 1)
		pr_adopt_admin_priority(job_ptr);
	if (job_ptr->direct_set_prio && job_ptr->priority > 1)
		return job_ptr->priority;
	slurm_mutex_lock(&pr_state_lock);
	if (IS_JOB_PENDING(job_ptr) && pr_lane_n && pr_tree &&
	    sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) == SB_OK &&
	    idx < pr_lane_n) {
		/* the debug lane: what its association holds there now (a
		 * pending job already in it is admitted again); whether the
		 * job may enter at all is pr_job_priority()'s question */
		uint64_t *held = &pr_lane_held[idx];

		if (sb_priority_in_lane(job_ptr->priority)) {
			uint64_t t = pr_lane_tres(job_ptr);

			*held -= t < *held ? t : *held;
		}
		prio = pr_job_priority(job_ptr, held, time(NULL));
	} else {
		prio = pr_job_priority(job_ptr, NULL, time(NULL));
	}
	slurm_mutex_unlock(&pr_state_lock);
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	/* 22.05: Slurm counted running jobs' whole time limits again */
	limit_usage_reconfig(assoc_clear);
	slurm_mutex_lock(&pr_state_lock);
	pr_run_now = true;
	/* ChargeTRES may have changed: looked up at the next recalculation;
	 * until then job ends are still charged (-2 would drop none either,
	 * but would defer them to their TRES string) */
	pr_tres_stale = true;
	pthread_cond_signal(&pr_wake_cond);
	slurm_mutex_unlock(&pr_state_lock);
}

/* sshare asks for a user's effective usage: it is published already. */
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	if (assoc && assoc->usage && fuzzy_equal(assoc->usage->usage_efctv,
						 NO_VAL))
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
}

/* Kept for sshare's classic column: 2^(-U/S) (priority/basic's formula). */
extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	if (shares_norm <= 0 || fuzzy_equal(shares_norm, NO_VAL))
		return 0;
	return powl(2.0L, -(usage_efctv / shares_norm));
}

/* Whether @v is in @l, a list of uint32_t; no list = no filter. */
static bool in_filter(List l, uint32_t v)
{
	ListIterator it;
	uint32_t *p;
	bool found = false;

	if (!l)
		return true;
	it = list_iterator_create(l);
	while (!found && (p = list_next(it)))
		found = (*p == v);
	list_iterator_destroy(it);
	return found;
}

/* sprio's filter and answer (factors_list()). */
struct factors_walk {
	List job_ids, uids, ret;
	uid_t uid;
};

/* One job of factors_list() (list_for_each_ro(): job_list's own lock
 * shared with the other readers, such as slurmctld's state save).  0. */
static int factors_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct factors_walk *f = arg;
	priority_factors_object_t *o;
	struct sb_priority_parts parts;
	uint32_t qos_part;

	if (!IS_JOB_PENDING(job_ptr) || job_ptr->priority == 0 ||
	    job_ptr->direct_set_prio)
		return 0;	/* held, or set by an administrator */
	if ((slurm_conf.private_data & PRIVATE_DATA_JOBS) &&
	    job_ptr->user_id != f->uid && !validate_operator(f->uid))
		return 0;
	if (!in_filter(f->job_ids, job_ptr->job_id) ||
	    !in_filter(f->uids, job_ptr->user_id))
		return 0;
	if (sb_priority_decode(job_ptr->priority, &parts) != SB_OK)
		return 0;
	/* sprio adds SITE - NICE_OFFSET and QOS, and subtracts
	 * NICE - NICE_OFFSET; the nice value is already inside the
	 * in-team part, of which the QOS's share goes to QOS. */
	qos_part = sb_priority_qos_part(pr_job_qos_norm(job_ptr));
	if (qos_part > parts.in_team)	/* clamped by a large nice */
		qos_part = parts.in_team;
	o = sb_prio_factors_new(job_ptr, parts.allocated ?
		(double)(UINT32_C(1) << SB_PRIO_TIER_SHIFT) : 0,
		(double)parts.level * (1 << SB_PRIO_LEVEL_SHIFT),
		(double)qos_part * 2,
		(parts.in_team - qos_part) * 2 + parts.resumed +
			NICE_OFFSET,
		NICE_OFFSET);
	list_append(f->ret, o);
	return 0;
}

/*
 * sprio: each pending job's priority split into its parts, placed in the
 * columns that add up to it: tier (1 << 31 for allocated jobs) in ASSOC,
 * standing level << 11 in FAIRSHARE, the QOS's part of the in-team
 * priority << 1 in QOS, the rest of it (512 - nice) << 1 plus the resumed
 * bit in SITE.
 */
static List factors_list(List job_ids, List uids, uid_t uid, bool locked)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	struct factors_walk f = {
		.job_ids = job_ids, .uids = uids, .uid = uid,
		.ret = list_create(slurm_destroy_priority_factors_object),
	};

	if (!locked)
		lock_slurmctld(job_read);
	(void)list_for_each_ro(job_list, factors_one, &f);
	if (!locked)
		unlock_slurmctld(job_read);
	return f.ret;
}
SB_DEFINE_PRIORITY_FACTORS_LIST(factors_list)

/*
 * With AccountingStorageEnforce=limits Slurm calls this when a job ends or
 * is requeued, while start_time and end_time still describe the segment
 * that just ended (a requeue clears them soon after).  Release the rest of
 * its time limit from Slurm's run-minutes counters, and queue it for the
 * thread; nothing slow happens here (job write lock held).
 */
/* A job in the debug lane ended: its association's lane has room again
 * at once (the next submission need not wait for a recalculation).
 * pr_state_lock held. */
static void lane_job_end(const job_record_t *job_ptr)
{
	uint32_t idx;
	uint64_t t;

	if (!sb_priority_in_lane(job_ptr->priority) || !pr_tree ||
	    sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) != SB_OK ||
	    idx >= pr_lane_n)
		return;
	t = pr_lane_tres(job_ptr);
	pr_lane_held[idx] -= t < pr_lane_held[idx] ? t : pr_lane_held[idx];
}

extern void priority_p_job_end(job_record_t *job_ptr)
{
	struct ended_job *e;

	/* Slurm's time limits: the rest of the run's time limit, once
	 * (takes assoc_mgr locks: before pr_state_lock) */
	limit_usage_job_end(job_ptr);
	slurm_mutex_lock(&pr_state_lock);
	lane_job_end(job_ptr);
	if (!job_ptr->start_time || job_ptr->end_time <= job_ptr->start_time) {
		slurm_mutex_unlock(&pr_state_lock);
		return;
	}
	if (pr_tres_pos == -1) {	/* ChargeTRES not accounted: nothing charged */
		slurm_mutex_unlock(&pr_state_lock);
		return;
	}
	if (pr_ended_n == ended_cap) {
		ended_cap = ended_cap ? 2 * ended_cap : 64;
		xrecalloc(pr_ended, ended_cap, sizeof(*pr_ended));
	}
	e = &pr_ended[pr_ended_n++];
	e->job_id = job_ptr->job_id;
	e->assoc_id = job_ptr->assoc_id;
	e->allocated = pr_run_allocated(job_ptr);
	e->usage_factor = budget_job_usage_factor(job_ptr);
	e->tres = sb_charge_rate((double)budget_job_tres(job_ptr, pr_tres_pos),
				 e->usage_factor);
	/* Position not looked up yet (Slurm 24.11 ends jobs while reading
	 * its state, before the thread runs): a requeue is about to clear
	 * the job's times, so keep its TRES by id for the thread. */
	e->tres_str = (pr_tres_pos == -2 && job_ptr->tres_alloc_str) ?
		      xstrdup(job_ptr->tres_alloc_str) : NULL;
	e->start = job_ptr->start_time;
	e->end = sb_run_charged_to(job_ptr->start_time,
				   budget_job_suspended(job_ptr,
							job_ptr->end_time),
				   job_ptr->end_time);
	slurm_mutex_unlock(&pr_state_lock);
}
