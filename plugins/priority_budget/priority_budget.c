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
 * state_lock.
 *
 * preempt/budget reads the budget state only through the operations table
 * exported at the end of this file (sb_budget_ops_v1, budget_ops.h): the
 * committed refresh of its one-second tick, the preemption verdict and the
 * victim order.  Without preempt/budget this plugin works alone, but
 * nothing enforces the end of a minimum runtime by preemption (logged at
 * init).
 *
 * In-team priority: 512 - nice + the QOS's part (its normalised Priority x
 * 511; sb_priority_in_team(), clamped to 0..1023), so `sbatch --nice=N` and
 * `--qos` order a user's jobs within their association and never lift them
 * above another team's.
 */
#define _GNU_SOURCE	/* pthread_setname_np */
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
#include "conf_file.h"
#include "budget_job.h"
#include "budget_ops.h"
#include "limit_usage.h"
#include "slurm_compat.h"
#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"
#include "sb/view.h"

const char plugin_name[] = "Priority BUDGET plugin";
const char plugin_type[] = "priority/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define STATE_FILE "budget_ledger.json"

/* Saving the ledger may cost at most this share of the thread's time. */
#define SAVE_BUDGET_PERCENT 1

/*
 * Ownership.  The recalculation thread alone changes the ledger and the
 * accrual record, so it reads them (and saves them, which takes long for a
 * large tree) without a lock.  state_lock guards what other threads read or
 * write: tree, standing and view (swapped and recomputed by the thread,
 * read by priority_p_set and by preempt/budget through the operations
 * table, whose committed refresh also rewrites the view's committed
 * usage), the ended-job queue filled by priority_p_job_end, the
 * configuration and the thread's wake-up flags.
 */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static pthread_t calc_thread;
static bool thread_running, stop_thread, run_now;
static struct sb_config cfg;
static struct budget_conf_seen cfg_seen;
static struct sb_tree *tree;		/* current association snapshot */
static struct sb_ledger *ledger;	/* bound to tree */
static struct sb_accrual *accrual;
static struct sb_standing *standing;	/* computed on tree */
static struct sb_view view;		/* on tree; see sb/view.h */
static bool view_ok;			/* charged usage set at least once */
static time_t commit_now;		/* of the committed refresh under way */
static bool state_loaded, need_rebuild;
/* The saved ledger was loaded: what ended while this plugin was not
 * watching (slurmctld down or killed, another PriorityType, a requeue's
 * queued end lost with the process) is read back from slurmdbd, from
 * reconcile_from on, before anything else is charged (recalc()). */
static bool need_reconcile;
/* budget.conf's Cutover changed at a reconfigure: charge the window again
 * (recalc()).  Thread only. */
static bool recharge;
static time_t reconcile_from;
/* What the thread needs from slurm_conf, copied under the slurmctld conf
 * read lock at each recalculation (a 22.05 reconfigure frees and replaces
 * slurm_conf's strings in process).  Thread only, and init()/fini() while
 * the thread does not run. */
static struct budget_conf_env conf_env;
static char *state_dir;			/* StateSaveLocation */
static char *conf_cluster;		/* ClusterName */
static uid_t slurm_user;		/* SlurmUser */
static char *keep_pending;	/* text init() parsed, for budget_conf_keep() */
static time_t last_save;
static double last_save_cost;	/* seconds the last save took */
static int tres_pos = -2;		/* -2: not looked up; -1: not found */
static bool tres_stale;		/* reconfigured: look tres_pos up again
				 * (meanwhile the old one holds) */
static int last_tres_id = -1;	/* ChargeTRES's id at the last recalculation */

/* A job's last run segment, handed over by priority_p_job_end(). */
struct ended_job {
	uint32_t job_id, assoc_id;
	bool allocated;
	double tres;		/* charged per second (sb_charge_rate()) */
	double usage_factor;	/* its QOS's, for tres_str */
	char *tres_str;	/* when ChargeTRES's position was not known yet:
			 * the job's tres_alloc_str, read by TRES id in
			 * charge_ended(); else NULL */
	time_t start, end;	/* end: start + the seconds it ran, suspended
				 * time left out (sb_run_charged_to()) */
};
static struct ended_job *ended;
static size_t ended_n, ended_cap;

/* Whether the job runs allocated (sb_contract_of_job(): a job without a
 * valid contract tag is unallocated). */
static bool job_allocated(const job_record_t *job_ptr)
{
	struct sb_contract c;

	(void)budget_job_contract(job_ptr, &c);
	return c.allocated;
}

/* Whether the job's current run is charged to its budget
 * (sb_run_allocated(): its contract, or before budget.conf's Cutover any
 * run).  state_lock held (cfg). */
static bool run_allocated(const job_record_t *job_ptr)
{
	return sb_run_allocated(job_ptr->admin_comment, job_ptr->start_time,
				cfg.cutover);
}

/* The job QOS's normalised Priority (sb_priority_qos_part()); 0 without
 * one.  norm_priority is a double assoc_mgr sets when QOSes change; read
 * without its lock, as priority/multifactor reads it. */
static double job_qos_norm(const job_record_t *job_ptr)
{
	const slurmdb_qos_rec_t *q = job_ptr->qos_ptr;

	return (q && q->usage) ? q->usage->norm_priority : 0;
}

/* In-team priority from the job's nice value and its QOS's Priority (see
 * the top of the file). */
static uint32_t job_in_team(const job_record_t *job_ptr)
{
	int64_t nice = job_ptr->details ?
		       (int64_t)job_ptr->details->nice - NICE_OFFSET : 0;

	return sb_priority_in_team(nice, job_qos_norm(job_ptr));
}

/*
 * An administrator's priority (scontrol update priority=N, sbatch
 * --priority; Slurm stores N and sets direct_set_prio): read N as the
 * job's in-team part (sb_priority_admin_in_team()) and keep that in the
 * job's nice, from which the in-team priority is read (Slurm resets nice
 * when an administrator sets a priority, and ignores nice changes while
 * direct_set_prio is set).  Then direct_set_prio is cleared: the job's
 * tier and its budget's standing apply again at every recalculation, and
 * the next administrator's change sets the flag again.  Job write lock
 * held.
 */
static void adopt_admin_priority(job_record_t *job_ptr)
{
	uint32_t n = job_ptr->priority, t;

	if (!job_ptr->direct_set_prio || n == 0 || n == INFINITE ||
	    !job_ptr->details)
		return;
	t = sb_priority_admin_in_team(n);
	job_ptr->details->nice = NICE_OFFSET + SB_PRIO_TEAM_DEFAULT - t;
	job_ptr->direct_set_prio = 0;
	info("%s: %pJ: administrator's priority %u read as in-team priority "
	     "%u: its tier (%s) and its budget's standing are kept",
	     plugin_type, job_ptr, n, t,
	     job_allocated(job_ptr) ? "allocated" : "unallocated");
}

/* The job's priority from the current standing.  state_lock held. */
static uint32_t job_priority(const job_record_t *job_ptr)
{
	uint32_t idx;
	bool allocated = job_allocated(job_ptr);

	uint32_t prio;

	if (!tree || !standing ||
	    sb_tree_index(tree, job_ptr->assoc_id, &idx) != SB_OK)
		prio = sb_priority_compose(allocated, 1, job_in_team(job_ptr));
	else
		prio = sb_priority_job(standing, idx, allocated,
				       job_in_team(job_ptr));
	/* A requeued job keeps its place ahead of younger jobs of its team
	 * although Slurm reset its submit time (sb/priority.h). */
	if (IS_JOB_PENDING(job_ptr) && job_ptr->restart_cnt)
		prio |= SB_PRIO_RESUMED;
	return prio;
}

/* Position of ChargeTRES in the job's TRES arrays; -1 if not accounted. */
static int charge_tres_pos(void)
{
	int pos;

	bool stale;

	slurm_mutex_lock(&state_lock);
	pos = tres_pos;
	stale = tres_stale;
	slurm_mutex_unlock(&state_lock);
	if (pos != -2 && !stale)
		return pos;
	pos = budget_tres_pos(cfg.charge_tres);
	if (pos < 0)
		error("%s: ChargeTRES=%s is not in AccountingStorageTRES: "
		      "nothing is charged until it is added there",
		      plugin_type, cfg.charge_tres);
	slurm_mutex_lock(&state_lock);	/* priority_p_job_end reads it */
	tres_pos = pos;
	tres_stale = false;
	slurm_mutex_unlock(&state_lock);
	return pos;
}

/*
 * Charge the job's current or last run segment up to @now.  Pending time
 * is never offered: a pending job's start_time is only the scheduler's
 * estimate.  sb_accrual_charge() makes repeated offers harmless.
 * Job read lock and state_lock held.
 */
static void accrue_job(job_record_t *job_ptr, time_t now, int pos)
{
	time_t to;
	uint32_t idx;
	double tres;
	int rc;

	/* ChargeTRES not accounted: charge nothing and keep charged_to, so
	 * the time is charged once it is fixed. */
	if (!job_ptr->start_time || !ledger || pos < 0)
		return;
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr))
		to = now;
	else if (IS_JOB_FINISHED(job_ptr) || IS_JOB_COMPLETING(job_ptr) ||
		 (job_ptr->job_state & JOB_REQUEUE))
		to = job_ptr->end_time;
	else
		return;
	if (to > now)
		to = now;
	/* suspended time is not charged: offer the seconds it ran */
	to = sb_run_charged_to(job_ptr->start_time,
			       budget_job_suspended(job_ptr, to), to);
	if (to <= job_ptr->start_time)
		return;
	if (sb_tree_index(tree, job_ptr->assoc_id, &idx) != SB_OK)
		return;
	tres = sb_charge_rate((double)budget_job_tres(job_ptr, pos),
			      budget_job_usage_factor(job_ptr));
	rc = sb_accrual_charge(accrual, ledger, job_ptr->job_id, idx,
			       run_allocated(job_ptr), tres,
			       job_ptr->start_time, to, NULL);
	if (rc != SB_OK)
		error("%s: cannot charge %pJ: %s", plugin_type, job_ptr,
		      sb_strerror(rc));
}

/*
 * Add a running (or suspended: its slice waits for it) job's committed
 * usage at @now to the view
 * (sb_view_commit(): nothing for unallocated jobs or jobs past their
 * minimum runtime).  Job read lock and state_lock held.
 */
static void commit_job(const job_record_t *job_ptr, time_t now)
{
	struct sb_preempt_party p;
	uint32_t idx;

	if (!(IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) ||
	    !view.tree ||
	    sb_tree_index(tree, job_ptr->assoc_id, &idx) != SB_OK)
		return;
	budget_job_party(job_ptr, tres_pos, &p);
	(void)sb_view_commit(&view, idx, &p.job, now);
}

/* Whether @a and @b hold the same associations with the same shares in the
 * same places (then the current tree, ledger binding and view are kept). */
static bool same_tree(const struct sb_tree *a, const struct sb_tree *b)
{
	uint32_t i, n = sb_tree_count(a);

	if (!a || !b || n != sb_tree_count(b))
		return false;
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *x = sb_tree_node(a, i);
		const struct sb_tree_node *y = sb_tree_node(b, i);

		if (x->id != y->id || x->parent != y->parent ||
		    x->raw_shares != y->raw_shares || strcmp(x->name, y->name))
			return false;
	}
	return true;
}

/* A new tree from assoc_mgr's associations, or NULL (logged). */
static struct sb_tree *snapshot_tree(void)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	struct sb_tree *t = sb_tree_new();
	ListIterator it;
	int rc = SB_OK;

	if (!t)
		return NULL;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)) && rc == SB_OK) {
			slurmdb_assoc_rec_t *p;
			char name[256];

			if (a == assoc_mgr_root_assoc || !a->usage)
				continue;
			p = a->usage->parent_assoc_ptr;
			snprintf(name, sizeof(name), "%s%s%s", a->acct,
				 a->user ? "/" : "", a->user ? a->user : "");
			rc = sb_tree_add(t, a->id,
					 (!p || p == assoc_mgr_root_assoc) ? 0 : p->id,
					 a->shares_raw, name);
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
	if (rc == SB_OK)
		rc = sb_tree_finalize(t);
	if (rc != SB_OK) {
		error("%s: cannot build the budget tree from the associations: "
		      "%s", plugin_type, sb_strerror(rc));
		sb_tree_free(t);
		return NULL;
	}
	return t;
}

static char *state_path(void)
{
	return xstrdup_printf("%s/%s", state_dir, STATE_FILE);
}

/*
 * The Cutover the window was charged by, kept beside the ledger in
 * StateSaveLocation/budget_cutover (seconds since the epoch, 0 = none), so a
 * changed Cutover is seen across restarts too (24.11 and later replace the
 * process at every reconfigure).  Read: the value, or -1 when there is no
 * such file (a ledger from before it existed: the saved-before-Cutover
 * rule alone decides).
 */
static int64_t cutover_read(void)
{
	char *path = xstrdup_printf("%s/budget_cutover", state_dir);
	char *text = NULL, msg[256];
	long long v = -1;
	size_t len;

	if (conf_file_read(path, &text, &len, msg, sizeof(msg)) == 0 &&
	    (sscanf(text, "%lld", &v) != 1 || v < 0))
		v = -1;
	free(text);
	xfree(path);
	return v;
}

/* Keep @cutover as the window's (cutover_read()); logged on failure. */
static void cutover_write(int64_t cutover)
{
	char *path = xstrdup_printf("%s/budget_cutover", state_dir);
	char text[32], msg[512];

	snprintf(text, sizeof(text), "%lld\n", (long long)cutover);
	if (conf_file_keep(path, text, strlen(text), "new", 0600, msg,
			   sizeof(msg)) < 0)
		error("%s: %s", plugin_type, msg);
	xfree(path);
}

/* Copy what the thread reads of slurm_conf (see conf_env).  slurmctld conf
 * read lock held, or init(). */
static void copy_conf(void)
{
	budget_conf_env_free(&conf_env);
	budget_conf_env_get(&conf_env);
	xfree(state_dir);
	state_dir = xstrdup(slurm_conf.state_save_location);
	xfree(conf_cluster);
	conf_cluster = xstrdup(slurm_conf.cluster_name);
	slurm_user = slurm_conf.slurm_user_id;
}

/* Forget copy_conf()'s copies. */
static void free_conf(void)
{
	budget_conf_env_free(&conf_env);
	xfree(state_dir);
	xfree(conf_cluster);
}

/*
 * Read the saved ledger into the (empty) ledger.  state_lock held.
 * Return: true when it was loaded; false when missing, unreadable or
 * corrupt (logged), and the window must be rebuilt from slurmdbd.
 */
static bool load_state(void)
{
	int64_t saved_cutover;
	bool ok = false;
	char *path = state_path(), *buf = NULL;
	size_t dropped_n = 0;
	struct stat st;
	ssize_t n = 0;
	int fd, rc;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			info("%s: no saved ledger at %s: rebuilding the window "
			     "from slurmdbd", plugin_type, path);
		else
			error("%s: cannot open %s: %m; rebuilding the window "
			      "from slurmdbd", plugin_type, path);
		goto out;
	}
	saved_cutover = cutover_read();
	if (saved_cutover >= 0 && saved_cutover != cfg.cutover) {
		char co[32];

		info("%s: Cutover is now %s, not as when %s was charged: "
		     "rebuilding the window from slurmdbd", plugin_type,
		     cfg.cutover > 0 ? sb_time_format_iso(cfg.cutover, co,
							  sizeof(co)) : "none",
		     path);
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0 && cfg.cutover > 0 &&
	    st.st_mtime < cfg.cutover) {
		char co[32];

		info("%s: %s was saved before Cutover=%s: the cluster ran "
		     "another priority plugin since; rebuilding the window "
		     "from slurmdbd (runs without a contract before the "
		     "cutover charged to their budgets)", plugin_type, path,
		     sb_time_format_iso(cfg.cutover, co, sizeof(co)));
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		buf = xmalloc(st.st_size + 1);
		n = read(fd, buf, st.st_size);
	}
	close(fd);
	if (n <= 0 || n != st.st_size) {
		error("%s: %s is empty or unreadable: rebuilding the window "
		      "from slurmdbd", plugin_type, path);
		goto out;
	}
	rc = sb_ledger_from_json_at(ledger, accrual, buf, n, time(NULL), NULL,
				    0, &dropped_n);
	if (rc != SB_OK) {
		error("%s: %s is corrupt (%s): rebuilding the window from "
		      "slurmdbd", plugin_type, path, sb_strerror(rc));
		goto out;
	}
	info("%s: loaded the ledger from %s (%zu jobs recorded, usage of %zu "
	     "removed associations dropped)", plugin_type, path,
	     sb_accrual_count(accrual), dropped_n);
	/* Saved at st_mtime, at the end of a recalculation: every job
	 * running then was charged up to at most CalcPeriod before.  A
	 * minute more for clock steps and slow saves. */
	need_reconcile = true;
	reconcile_from = st.st_mtime - cfg.calc_period - 60;
	ok = true;
	if (saved_cutover != cfg.cutover)	/* no file yet */
		cutover_write(cfg.cutover);
out:
	xfree(buf);
	xfree(path);
	return ok;
}

/*
 * The job segments slurmdbd has in [@from, @now) (requeued runs included;
 * times cut to that span), or NULL (logged, saying @meanwhile: what happens
 * until slurmdbd answers).  No lock held: this waits for
 * slurmdbd.  Running segments are not needed: the accrual pass charges
 * them from the live job records, from their start.
 */
static List fetch_finished_jobs(time_t from, time_t now,
				 const char *meanwhile)
{
	slurmdb_job_cond_t cond;
	List jobs;

	memset(&cond, 0, sizeof(cond));
	cond.usage_start = from;
	cond.usage_end = now;
	cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;	/* 0 would mean "flags = 0" */
	cond.cluster_list = list_create(NULL);
	list_append(cond.cluster_list, conf_cluster);
	jobs = jobacct_storage_g_get_jobs_cond(acct_db_conn, slurm_user,
					       &cond);
	FREE_NULL_LIST(cond.cluster_list);
	if (!jobs)
		error("%s: slurmdbd did not answer: %s", plugin_type, meanwhile);
	return jobs;
}

/* The TRES id (for tres_alloc_str) of ChargeTRES at @pos; -1 if none. */
static int charge_tres_id(int pos)
{
	assoc_mgr_lock_t locks = { .tres = READ_LOCK };
	int id = -1;

	assoc_mgr_lock(&locks);
	if (pos >= 0 && (uint32_t)pos < g_tres_count)
		id = assoc_mgr_tres_array[pos]->id;
	assoc_mgr_unlock(&locks);
	return id;
}

/* QOS id -> UsageFactor, copied under the assoc_mgr QOS read lock before
 * state_lock is taken (charge_records() holds state_lock). */
struct qos_factors {
	uint32_t n;
	uint32_t *id;
	double *factor;
};

static void qos_factors_get(struct qos_factors *q)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };
	slurmdb_qos_rec_t *qos;
	ListIterator it;
	int cap;

	memset(q, 0, sizeof(*q));
	assoc_mgr_lock(&locks);
	if (assoc_mgr_qos_list && (cap = list_count(assoc_mgr_qos_list)) > 0) {
		q->id = xcalloc(cap, sizeof(*q->id));
		q->factor = xcalloc(cap, sizeof(*q->factor));
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((qos = list_next(it)) && q->n < (uint32_t)cap) {
			q->id[q->n] = qos->id;
			q->factor[q->n++] = qos->usage_factor;
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
}

static void qos_factors_free(struct qos_factors *q)
{
	xfree(q->id);
	xfree(q->factor);
	q->n = 0;
}

/* The UsageFactor of QOS @id; -1 (counts 1) when unknown. */
static double qos_factor(const struct qos_factors *q, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < q->n; i++)
		if (q->id[i] == id)
			return q->factor[i];
	return -1;
}

/*
 * Offer @jobs (slurmdbd records, times already cut to the span asked for)
 * to the accrual: into the empty ledger (a rebuild), or into the loaded
 * one (a reconcile: sb_accrual_charge() charges only what each job was not
 * charged yet).  Return: the TRES-seconds charged; @n_out the records
 * that charged something.  Thread only; state_lock held.
 */
static double charge_records(List jobs, time_t now, int tres_id,
			     const struct qos_factors *qf, size_t *n_out)
{
	slurmdb_job_rec_t *j;
	ListIterator it;
	size_t n = 0;
	double total = 0;

	it = list_iterator_create(jobs);
	while ((j = list_next(it))) {
		uint64_t cnt = 0;
		uint32_t idx, base = j->state & JOB_STATE_BASE;
		double charged = 0;

		/* Unfinished records come back with end = now: skip them. */
		/* A requeued run is stored as PENDING with the REQUEUE flag. */
		if (base == JOB_RUNNING || base == JOB_SUSPENDED ||
		    (base == JOB_PENDING && !(j->state & JOB_REQUEUE)) ||
		    !j->start || j->end <= j->start ||
		    j->end > now || sb_tree_index(tree, j->associd, &idx) != SB_OK)
			continue;
		if (tres_id > 0 && j->tres_alloc_str)
			cnt = slurmdb_find_tres_count_in_string(j->tres_alloc_str,
								tres_id);
		if (cnt == INFINITE64)
			cnt = 0;
		if (sb_accrual_charge(accrual, ledger, j->jobid, idx,
				      sb_run_allocated(j->admin_comment,
						       j->start, cfg.cutover),
				      sb_charge_rate((double)cnt,
						     qos_factor(qf, j->qosid)),
				      j->start,
				      sb_run_charged_to(j->start, j->suspended,
							j->end),
				      &charged) == SB_OK && charged > 0) {
			n++;
			total += charged;
		}
	}
	list_iterator_destroy(it);
	*n_out = n;
	return total;
}

/* Write @text to the state file: temp file, fsync, rename. */
static void save_state(const char *text)
{
	char *path = state_path(), *tmp = xstrdup_printf("%s.new", path);
	size_t len = strlen(text), off = 0;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0) {
		error("%s: cannot write %s: %m", plugin_type, tmp);
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, text + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			error("%s: cannot write %s: %m", plugin_type, tmp);
			close(fd);
			unlink(tmp);
			goto out;
		}
		off += w;
	}
	if (fsync(fd) < 0 || close(fd) < 0 || rename(tmp, path) < 0) {
		error("%s: cannot save %s: %m", plugin_type, path);
		unlink(tmp);
	}
out:
	xfree(tmp);
	xfree(path);
}

/*
 * Move the ledger onto @t (state_lock held).  The first time it creates the
 * ledger and loads the saved state; after a reconfigure that changed the
 * window or bucket width it carries the usage over through the same JSON
 * the state file uses (no decay).
 */
static int adopt_tree(struct sb_tree *t, time_t now)
{
	struct sb_ledger *nl = NULL;
	struct sb_standing *ns = NULL;
	struct sb_view nv;
	double *charged;
	uint32_t i, j;
	int rc;

	/* Everything that can fail before the ledger is touched: on error
	 * the caller frees @t and nothing refers to it. */
	if ((rc = sb_view_init(&nv, t)))
		return rc;
	if ((rc = sb_standing_new(t, &ns))) {
		sb_view_free(&nv);
		return rc;
	}
	if (!ledger || sb_ledger_window(ledger) != cfg.lookback_window ||
	    sb_ledger_width(ledger) != cfg.bucket_width) {
		if ((rc = sb_ledger_new(t, cfg.lookback_window,
					cfg.bucket_width, &nl))) {
			sb_standing_free(ns);
			sb_view_free(&nv);
			return rc;
		}
		if (ledger) {
			char *doc = NULL;

			if (sb_ledger_to_json(ledger, NULL, &doc) == SB_OK)
				rc = sb_ledger_from_json_at(nl, NULL, doc,
							    strlen(doc), now,
							    NULL, 0, NULL);
			free(doc);
			if (rc != SB_OK)
				error("%s: carrying usage over to the new window "
				      "failed: %s", plugin_type, sb_strerror(rc));
			sb_ledger_free(ledger);
		}
		ledger = nl;
		if (!state_loaded) {
			need_rebuild = !load_state();
			state_loaded = true;
		}
	} else if ((rc = sb_ledger_rebind(ledger, t, NULL, 0, NULL))) {
		sb_standing_free(ns);
		sb_view_free(&nv);
		return rc;
	}
	/* Never publish an uncomputed standing: priority_p_set may run before
	 * this cycle's full computation (which adds committed usage). */
	sb_standing_compute(ns, ledger, now);
	sb_standing_free(standing);
	standing = ns;
	/* The view on the new tree: charged usage from the ledger now, the
	 * committed usage carried over by association id until this cycle's
	 * walk of the running jobs replaces it (a few milliseconds). */
	charged = xcalloc(nv.n ? nv.n : 1, sizeof(*charged));
	if (sb_ledger_usage_all(ledger, now, true, charged, NULL) == SB_OK &&
	    sb_view_set_charged(&nv, charged) == SB_OK)
		view_ok = true;
	xfree(charged);
	for (i = 0; view.tree && i < nv.n; i++)
		if (sb_tree_index(view.tree, sb_tree_node(t, i)->id, &j) ==
		    SB_OK)
			nv.committed[i] = view.committed[j];
	sb_view_free(&view);
	view = nv;
	sb_tree_free(tree);
	tree = t;
	return SB_OK;
}

/*
 * An account's own usage (what deleted associations below it left there:
 * sb_ledger_rebind()) as the leaf usage Slurm keeps for it.  At every
 * association update from slurmdbd, assoc_mgr zeroes each account's
 * usage_raw and adds up its users' and its own leaf usage (assoc_mgr.c,
 * assoc_mgr_update_assocs, "reset the limits because since a parent
 * changed"): with the leaf usage set here, that sum is the subtree usage
 * published below, so sshare shows the same figure before and after the
 * update instead of Slurm's until the next recalculation.  assoc_mgr's
 * assoc lock held (write).
 */
static void set_account_leaf_usage(slurmdb_assoc_rec_t *a, double own)
{
	if (a->user || a->leaf_usage == a->usage)
		return;
	if (!a->leaf_usage) {
		if (own <= 0 || !g_tres_count)
			return;
		a->leaf_usage = slurmdb_create_assoc_usage(g_tres_count);
	}
	a->leaf_usage->usage_raw = own;
}

/*
 * Publish shares, usage and standing to assoc_mgr for sshare.  @charged is
 * the windowed allocated usage per tree index (subtree sums) *without* the
 * committed part, which only steers the standing; @own the same of each
 * association alone (set_account_leaf_usage()).
 */
static void publish_assocs(const double *charged, const double *own,
			   uint32_t n)
{
	/* TRES: g_tres_count, for a new leaf usage record */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .tres = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	ListIterator it;
	double total = 0;
	uint32_t i;

	assoc_mgr_lock(&locks);
	slurm_mutex_lock(&state_lock);
	if (n != sb_tree_count(tree))	/* cannot happen: one thread adopts */
		goto out;
	for (i = 0; i < n; i++)
		if (sb_tree_node(tree, i)->parent == SB_NONE)
			total += charged[i];
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			const struct sb_standing_node *s;
			uint32_t idx;

			if (!a->usage)
				continue;
			if (a == assoc_mgr_root_assoc) {
				a->usage->usage_raw = total;
				a->usage->usage_norm = 1;
				a->usage->usage_efctv = 1;
				a->usage->shares_norm = 1;
				a->usage->fs_factor = 1;
				continue;
			}
			if (sb_tree_index(tree, a->id, &idx) != SB_OK)
				continue;
			s = sb_standing_node(standing, idx);
			a->usage->shares_norm = s->shares_norm;
			a->usage->usage_raw = charged[idx];
			a->usage->usage_norm = total > 0 ? charged[idx] / total : 0;
			a->usage->usage_efctv = a->usage->usage_norm;
			a->usage->fs_factor = s->factor;
			a->usage->level_fs = s->level_fs;
			set_account_leaf_usage(a, own[idx]);
		}
		list_iterator_destroy(it);
	}
out:
	slurm_mutex_unlock(&state_lock);
	assoc_mgr_unlock(&locks);
}

/* Charge the segments priority_p_job_end() queued; @tres_id is ChargeTRES's
 * TRES id (-1: not accounted) for those queued before its position was
 * known.  state_lock held. */
static void charge_ended(int tres_id)
{
	size_t i;

	for (i = 0; i < ended_n; i++) {
		struct ended_job *e = &ended[i];
		uint32_t idx;
		int rc;

		if (e->tres_str) {
			uint64_t cnt = 0;

			/* id unknown: charging 0 would still advance the
			 * job's charged_to (and hide the run from a later
			 * reconcile); leave it */
			if (tres_id <= 0) {
				xfree(e->tres_str);
				continue;
			}
			cnt = slurmdb_find_tres_count_in_string(e->tres_str,
								tres_id);
			e->tres = sb_charge_rate((cnt == INFINITE64) ? 0 :
						 (double)cnt, e->usage_factor);
			xfree(e->tres_str);
		}
		if (sb_tree_index(tree, e->assoc_id, &idx) != SB_OK)
			continue;
		rc = sb_accrual_charge(accrual, ledger, e->job_id, idx,
				       e->allocated, e->tres, e->start, e->end,
				       NULL);
		if (rc != SB_OK)
			error("%s: cannot charge the end of JobId=%u: %s",
			      plugin_type, e->job_id, sb_strerror(rc));
	}
	ended_n = 0;
}

/*
 * Empty the window to charge it again from slurmdbd (a changed Cutover
 * changes which past runs are charged): a new ledger on the same tree and
 * shape, and a new accrual record, so the rebuild charges every run once.
 * Runs still going are charged from their start by the next accrual pass.
 * state_lock held; on error nothing changed.
 */
static int restart_window(void)
{
	struct sb_ledger *nl = NULL;
	struct sb_accrual *na = sb_accrual_new();
	int rc;

	if (!na)
		return SB_ENOMEM;
	if ((rc = sb_ledger_new(tree, cfg.lookback_window, cfg.bucket_width,
				&nl))) {
		sb_accrual_free(na);
		return rc;
	}
	sb_ledger_free(ledger);
	ledger = nl;
	sb_accrual_free(accrual);
	accrual = na;
	return SB_OK;
}

/*
 * The ledger's memory bound (sb_ledger_fit_width, SB_LEDGER_MAX_BYTES) at
 * @nassoc associations: a LookbackWindow and BucketWidth whose ledger would
 * take more are not adopted; the ledger keeps its shape if that fits, else
 * the buckets widen to the narrowest width that fits.  Logged as an error
 * once per budget.conf read (cfg keeps the shape in force until the next
 * read).  state_lock held.
 */
static void fit_ledger_shape(uint32_t nassoc)
{
	char w[32], b[32], nw[32], nb[32];
	uint64_t need = sb_ledger_bytes(nassoc, cfg.lookback_window,
					cfg.bucket_width);
	int64_t fit;

	if (need <= SB_LEDGER_MAX_BYTES)
		return;
	sb_duration_format(cfg.lookback_window, w, sizeof(w));
	sb_duration_format(cfg.bucket_width, b, sizeof(b));
	if (ledger && sb_ledger_bytes(nassoc, sb_ledger_window(ledger),
				      sb_ledger_width(ledger)) <=
		      SB_LEDGER_MAX_BYTES) {
		cfg.lookback_window = sb_ledger_window(ledger);
		cfg.bucket_width = sb_ledger_width(ledger);
	} else if ((fit = sb_ledger_fit_width(nassoc, cfg.lookback_window,
					      cfg.bucket_width,
					      SB_LEDGER_MAX_BYTES))) {
		cfg.bucket_width = fit;
	} else {
		error("%s: LookbackWindow=%s BucketWidth=%s: the ledger of %u "
		      "associations needs %"PRIu64" MiB, above its %"PRIu64
		      " MiB bound, and no bucket width fits: using them anyway",
		      plugin_type, w, b, nassoc, need >> 20,
		      SB_LEDGER_MAX_BYTES >> 20);
		return;
	}
	error("%s: LookbackWindow=%s BucketWidth=%s: the ledger of %u "
	      "associations would need %"PRIu64" MiB, above its %"PRIu64" MiB "
	      "bound: using LookbackWindow=%s BucketWidth=%s (%"PRIu64" MiB); "
	      "set a wider BucketWidth in budget.conf", plugin_type, w, b,
	      nassoc, need >> 20, SB_LEDGER_MAX_BYTES >> 20,
	      sb_duration_format(cfg.lookback_window, nw, sizeof(nw)),
	      sb_duration_format(cfg.bucket_width, nb, sizeof(nb)),
	      sb_ledger_bytes(nassoc, cfg.lookback_window,
			      cfg.bucket_width) >> 20);
}

/*
 * A Cutover in the future charges every run without a contract until then,
 * and makes each restart before it rebuild the window: say so once per
 * value (the core reads no clock, so the check is here).
 */
static void warn_future_cutover(time_t now)
{
	static int64_t warned;
	char co[32];

	if (cfg.cutover <= now || cfg.cutover == warned)
		return;
	warned = cfg.cutover;
	error("%s: Cutover=%s is in the future: until then every run without "
	      "a contract is charged to its budget and every restart rebuilds "
	      "the window; set it to the time of the switch", plugin_type,
	      sb_time_format_iso(cfg.cutover, co, sizeof(co)));
}

/* One recalculation; see the top of the file. */
static void recalc(void)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	slurmctld_lock_t job_write = { .job = WRITE_LOCK };
	time_t now = time(NULL);
	struct sb_tree *t;
	job_record_t *job_ptr;
	ListIterator it;
	char *doc = NULL;
	double *usage, *charged, *own;
	uint32_t nassoc;
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	struct sb_config next;
	char *parsed = NULL, *pending;
	int pos, rc = SB_OK, changed = 0;

	/* slurm_conf's strings only under its lock; budget.conf read, parsed
	 * and kept (fsync) with no lock held; swapped in under state_lock */
	lock_slurmctld(conf_read);
	copy_conf();
	unlock_slurmctld(conf_read);
	if (budget_conf_refresh(&conf_env, &cfg_seen, &next, &parsed,
				plugin_type) == 1) {
		slurm_mutex_lock(&state_lock);
		/* another Cutover: the window charged runs by the old one */
		if (state_loaded && next.cutover != cfg.cutover)
			recharge = true;
		cfg = next;
		slurm_mutex_unlock(&state_lock);
	}
	warn_future_cutover(now);
	slurm_mutex_lock(&state_lock);
	pending = keep_pending;
	keep_pending = NULL;
	slurm_mutex_unlock(&state_lock);
	/* the one place that keeps the last valid copy (budget_conf.h) */
	budget_conf_keep(&conf_env, parsed ? parsed : pending, plugin_type);
	xfree(parsed);
	xfree(pending);
	limit_usage_tick(now);	/* Slurm's time limits (limit_usage.h) */
	if (!(t = snapshot_tree()))
		return;
	pos = charge_tres_pos();
	last_tres_id = charge_tres_id(pos);	/* for ends queued unresolved */

	slurm_mutex_lock(&state_lock);
	fit_ledger_shape(sb_tree_count(t));
	/* The same associations and a ledger of the configured shape: keep
	 * the tree, and the view preempt/budget reads, as they are. */
	if (ledger && same_tree(tree, t) &&
	    sb_ledger_window(ledger) == cfg.lookback_window &&
	    sb_ledger_width(ledger) == cfg.bucket_width) {
		sb_tree_free(t);
		t = NULL;
	} else {
		rc = adopt_tree(t, now);
	}
	slurm_mutex_unlock(&state_lock);
	if (rc != SB_OK) {
		error("%s: cannot adopt the new budget tree: %s", plugin_type,
		      sb_strerror(rc));
		sb_tree_free(t);
		return;
	}
	if (recharge) {
		char co[32];

		slurm_mutex_lock(&state_lock);
		rc = restart_window();
		slurm_mutex_unlock(&state_lock);
		recharge = false;
		if (rc != SB_OK) {
			error("%s: Cutover changed, but the window cannot be "
			      "rebuilt: %s; restart slurmctld", plugin_type,
			      sb_strerror(rc));
			rc = SB_OK;
		} else {
			info("%s: Cutover is now %s: rebuilding the window "
			     "from slurmdbd", plugin_type,
			     cfg.cutover > 0 ? sb_time_format_iso(cfg.cutover,
						co, sizeof(co)) : "none");
			need_rebuild = true;
			need_reconcile = false;
		}
	}
	if (need_rebuild) {	/* retried every cycle until slurmdbd answers */
		List jobs = fetch_finished_jobs(now - cfg.lookback_window, now,
					"the window starts empty (retried "
					"every cycle)");
		int tres_id = charge_tres_id(pos);

		if (jobs) {
			size_t n;
			double total;
			struct qos_factors qf;

			qos_factors_get(&qf);
			slurm_mutex_lock(&state_lock);
			total = charge_records(jobs, now, tres_id, &qf, &n);
			slurm_mutex_unlock(&state_lock);
			qos_factors_free(&qf);
			info("%s: rebuilt the window from %zu finished job "
			     "records in slurmdbd: %.0f TRES-seconds",
			     plugin_type, n, total);
			FREE_NULL_LIST(jobs);
			need_rebuild = false;
			need_reconcile = false;
			cutover_write(cfg.cutover);
		}
	}
	/*
	 * After loading the saved ledger: offer slurmdbd's records of what
	 * ended since it was saved, before any live record.  A requeued run's
	 * end is known only to priority_p_job_end() (queued, charged at the
	 * next recalculation) and to slurmdbd: the requeue clears the job's
	 * start and end times, so a kill -9 before that recalculation lost
	 * the run's last seconds (up to CalcPeriod).  Jobs that ended while
	 * this plugin was not loaded are caught too.  Charging waits for it
	 * (retried every cycle until slurmdbd answers and ChargeTRES is
	 * known): once a live record of the same job is charged up to now,
	 * an earlier run offered from slurmdbd would charge nothing.
	 */
	if (need_reconcile && !need_rebuild) {
		int tres_id = charge_tres_id(pos);
		List jobs = tres_id > 0 ?
			    fetch_finished_jobs(reconcile_from, now,
					"charging waits for it (retried every "
					"cycle)") : NULL;

		if (jobs) {
			size_t n;
			double total;
			char from[32];
			struct tm tm;
			struct qos_factors qf;

			qos_factors_get(&qf);
			slurm_mutex_lock(&state_lock);
			total = charge_records(jobs, now, tres_id, &qf, &n);
			slurm_mutex_unlock(&state_lock);
			qos_factors_free(&qf);
			localtime_r(&reconcile_from, &tm);
			strftime(from, sizeof(from), "%FT%T", &tm);
			info("%s: reconciled the loaded ledger with slurmdbd's "
			     "job records since %s: %zu runs had uncharged "
			     "time, %.0f TRES-seconds charged", plugin_type,
			     from, n, total);
			FREE_NULL_LIST(jobs);
			need_reconcile = false;
		}
	}

	lock_slurmctld(job_read);
	slurm_mutex_lock(&state_lock);
	nassoc = sb_tree_count(tree);
	charged = xcalloc(nassoc ? nassoc : 1, sizeof(*charged));
	own = xcalloc(nassoc ? nassoc : 1, sizeof(*own));
	usage = xcalloc(nassoc ? nassoc : 1, sizeof(*usage));
	if (!need_reconcile)	/* see above: slurmdbd's records first */
		charge_ended(last_tres_id);
	/* One pass: charge what ran, and commit the rest of running jobs'
	 * protected slices, which weighs on the standing now; the ledger
	 * only ever holds what ran. */
	sb_view_clear_committed(&view);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		if (!need_reconcile)
			accrue_job(job_ptr, now, pos);
		commit_job(job_ptr, now);
	}
	list_iterator_destroy(it);
	sb_accrual_prune(accrual, now - cfg.lookback_window);
	rc = sb_ledger_usage_all(ledger, now, true, charged, own);
	if (rc == SB_OK)
		rc = sb_view_set_charged(&view, charged);
	if (rc == SB_OK) {
		view_ok = true;
		rc = sb_view_usage_all(&view, usage);
	}
	if (rc == SB_OK)
		rc = sb_standing_compute_usage(standing, usage);
	slurm_mutex_unlock(&state_lock);
	unlock_slurmctld(job_read);
	xfree(usage);
	if (rc != SB_OK) {
		error("%s: standing: %s", plugin_type, sb_strerror(rc));
		xfree(charged);
		xfree(own);
		return;
	}

	lock_slurmctld(job_write);
	slurm_mutex_lock(&state_lock);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		uint32_t prio;

		/* Running jobs too: preempt/budget compares a preemptor
		 * with the victim's *current* priority. */
		if (!(IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr)) ||
		    job_ptr->priority == 0)
			continue;
		adopt_admin_priority(job_ptr);
		if (job_ptr->direct_set_prio)
			continue;	/* no details: left as set */
		prio = job_priority(job_ptr);
		if (prio != job_ptr->priority) {
			job_ptr->priority = prio;
			changed++;
		}
	}
	list_iterator_destroy(it);
	slurm_mutex_unlock(&state_lock);
	if (changed)
		last_job_update = now;
	unlock_slurmctld(job_write);

	publish_assocs(charged, own, nassoc);
	xfree(charged);
	xfree(own);

	/* Saving may take long for a large tree (0.5 s for 10k associations):
	 * no lock (see Ownership), and only as often as costs at most
	 * SAVE_BUDGET_PERCENT of the time: every cycle for small trees.
	 * Anything after the last save is recovered at the next start from
	 * the job records (the accrual record says what was charged). */
	/* Not before the reconcile either: the file's time says where the
	 * next start reconciles from. */
	if (!need_rebuild && !need_reconcile &&
	    (now - last_save) * SAVE_BUDGET_PERCENT >= last_save_cost * 100) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (sb_ledger_to_json(ledger, accrual, &doc) == SB_OK)
			save_state(doc);
		free(doc);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		last_save_cost = (t1.tv_sec - t0.tv_sec) +
				 (t1.tv_nsec - t0.tv_nsec) / 1e9;
		last_save = now;
	}
	debug("%s: recalculated at %ld: %d pending jobs re-prioritised",
	      plugin_type, (long)now, changed);
}

static void *calc_loop(void *arg)
{
	(void)arg;
	/* seen in top -H, ps -L, /proc/PID/task/TID/comm (15 chars max) */
	(void)pthread_setname_np(pthread_self(), "sb_prio_calc");
	slurm_mutex_lock(&state_lock);
	while (!stop_thread) {
		struct timespec ts;

		/* on the condition's clock (time(2) reads a coarser one that
		 * can lag it by up to a tick: the deadline could be past) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += cfg.calc_period;
		if (!run_now)
			pthread_cond_timedwait(&wake_cond, &state_lock, &ts);
		if (stop_thread)
			break;
		run_now = false;
		slurm_mutex_unlock(&state_lock);
		recalc();
		slurm_mutex_lock(&state_lock);
	}
	slurm_mutex_unlock(&state_lock);
	return NULL;
}

/* Start the recalculation thread (once). */
static void start_thread(void)
{
	if (thread_running)
		return;
	stop_thread = false;
	run_now = true;
	sb_thread_create(&calc_thread, calc_loop, NULL);
	thread_running = true;
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

	sb_config_init(&cfg);
	copy_conf();	/* no reconfigure runs during init() */
	if (budget_conf_load(&conf_env, &cfg, &parsed, plugin_type) !=
	    SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&conf_env, &cfg_seen);
	slurm_mutex_lock(&state_lock);
	xfree(keep_pending);
	keep_pending = parsed;	/* kept by the thread, outside any lock */
	slurm_mutex_unlock(&state_lock);
	if (!(accrual = sb_accrual_new()))
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
		sb_accrual_free(accrual);
		accrual = NULL;
		return SLURM_ERROR;
	}
	limit_usage_init(state_dir);
	if (SB_PRIORITY_THREAD_AT_INIT)
		start_thread();
	return SLURM_SUCCESS;
}

/* Slurm 24.11 calls this once the job state is read (slurm_compat.h). */
extern int priority_p_thread_start(void)
{
	if (!SB_PRIORITY_THREAD_AT_INIT && running_in_slurmctld())
		start_thread();
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
	if (thread_running) {
		slurm_mutex_lock(&state_lock);
		stop_thread = true;
		pthread_cond_signal(&wake_cond);
		slurm_mutex_unlock(&state_lock);
		pthread_join(calc_thread, NULL);
		thread_running = false;
		limit_usage_fini();
		/* a clean stop saves everything; but a reconcile still to
		 * do keeps the file as it is, so the next start does it */
		if (ledger && !need_reconcile) {
			char *doc = NULL;

			slurm_mutex_lock(&state_lock);
			charge_ended(last_tres_id);
			slurm_mutex_unlock(&state_lock);
			if (sb_ledger_to_json(ledger, accrual, &doc) == SB_OK)
				save_state(doc);
			free(doc);
		}
	}
	slurm_mutex_lock(&state_lock);
	while (ended_n)
		xfree(ended[--ended_n].tres_str);
	xfree(ended);
	ended_n = ended_cap = 0;
	sb_standing_free(standing);
	sb_view_free(&view);
	view_ok = false;
	sb_ledger_free(ledger);
	sb_tree_free(tree);
	sb_accrual_free(accrual);
	standing = NULL;
	ledger = NULL;
	tree = NULL;
	accrual = NULL;
	xfree(keep_pending);
	/* Everything init() and the first recalculation rely on, as at load
	 * time: a plugin initialised again in the same process must load the
	 * saved ledger again (state_loaded), look ChargeTRES up again, and
	 * not inherit a pending rebuild or the save schedule. */
	state_loaded = need_rebuild = need_reconcile = recharge = false;
	tres_stale = false;
	last_tres_id = -1;
	run_now = stop_thread = false;
	commit_now = 0;
	last_save = 0;
	last_save_cost = 0;
	tres_pos = -2;
	memset(&cfg_seen, 0, sizeof(cfg_seen));
	sb_config_init(&cfg);
	slurm_mutex_unlock(&state_lock);
	free_conf();
	return SLURM_SUCCESS;
}

/* Called with the job write lock held when a job is submitted or requeued. */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	uint32_t prio;

	(void)last_prio;
	if (job_ptr->direct_set_prio && job_ptr->priority > 1)
		adopt_admin_priority(job_ptr);
	if (job_ptr->direct_set_prio && job_ptr->priority > 1)
		return job_ptr->priority;
	slurm_mutex_lock(&state_lock);
	prio = job_priority(job_ptr);
	slurm_mutex_unlock(&state_lock);
	return prio;
}

extern void priority_p_reconfig(bool assoc_clear)
{
	/* 22.05: Slurm counted running jobs' whole time limits again */
	limit_usage_reconfig(assoc_clear);
	slurm_mutex_lock(&state_lock);
	run_now = true;
	/* ChargeTRES may have changed: looked up at the next recalculation;
	 * until then job ends are still charged (-2 would drop none either,
	 * but would defer them to their TRES string) */
	tres_stale = true;
	pthread_cond_signal(&wake_cond);
	slurm_mutex_unlock(&state_lock);
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
	List ret = list_create(slurm_destroy_priority_factors_object);
	job_record_t *job_ptr;
	ListIterator it;

	if (!locked)
		lock_slurmctld(job_read);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		priority_factors_object_t *o;
		struct sb_priority_parts parts;
		uint32_t qos_part;

		if (!IS_JOB_PENDING(job_ptr) || job_ptr->priority == 0 ||
		    job_ptr->direct_set_prio)
			continue;	/* held, or set by an administrator */
		if ((slurm_conf.private_data & PRIVATE_DATA_JOBS) &&
		    job_ptr->user_id != uid && !validate_operator(uid))
			continue;
		if (!in_filter(job_ids, job_ptr->job_id) ||
		    !in_filter(uids, job_ptr->user_id))
			continue;
		if (sb_priority_decode(job_ptr->priority, &parts) != SB_OK)
			continue;
		/* sprio adds SITE - NICE_OFFSET and QOS, and subtracts
		 * NICE - NICE_OFFSET; the nice value is already inside the
		 * in-team part, of which the QOS's share goes to QOS. */
		qos_part = sb_priority_qos_part(job_qos_norm(job_ptr));
		if (qos_part > parts.in_team)	/* clamped by a large nice */
			qos_part = parts.in_team;
		o = sb_prio_factors_new(job_ptr, parts.allocated ?
			(double)(UINT32_C(1) << SB_PRIO_TIER_SHIFT) : 0,
			(double)parts.level * (1 << SB_PRIO_LEVEL_SHIFT),
			(double)qos_part * 2,
			(parts.in_team - qos_part) * 2 + parts.resumed +
				NICE_OFFSET,
			NICE_OFFSET);
		list_append(ret, o);
	}
	list_iterator_destroy(it);
	if (!locked)
		unlock_slurmctld(job_read);
	return ret;
}
SB_DEFINE_PRIORITY_FACTORS_LIST(factors_list)

/*
 * With AccountingStorageEnforce=limits Slurm calls this when a job ends or
 * is requeued, while start_time and end_time still describe the segment
 * that just ended (a requeue clears them soon after).  Release the rest of
 * its time limit from Slurm's run-minutes counters, and queue it for the
 * thread; nothing slow happens here (job write lock held).
 */
extern void priority_p_job_end(job_record_t *job_ptr)
{
	struct ended_job *e;

	/* Slurm's time limits: the rest of the run's time limit, once
	 * (takes assoc_mgr locks: before state_lock) */
	limit_usage_job_end(job_ptr);
	if (!job_ptr->start_time || job_ptr->end_time <= job_ptr->start_time)
		return;
	slurm_mutex_lock(&state_lock);
	if (tres_pos == -1) {	/* ChargeTRES not accounted: nothing charged */
		slurm_mutex_unlock(&state_lock);
		return;
	}
	if (ended_n == ended_cap) {
		ended_cap = ended_cap ? 2 * ended_cap : 64;
		xrecalloc(ended, ended_cap, sizeof(*ended));
	}
	e = &ended[ended_n++];
	e->job_id = job_ptr->job_id;
	e->assoc_id = job_ptr->assoc_id;
	e->allocated = run_allocated(job_ptr);
	e->usage_factor = budget_job_usage_factor(job_ptr);
	e->tres = sb_charge_rate((double)budget_job_tres(job_ptr, tres_pos),
				 e->usage_factor);
	/* Position not looked up yet (Slurm 24.11 ends jobs while reading
	 * its state, before the thread runs): a requeue is about to clear
	 * the job's times, so keep its TRES by id for the thread.  Before,
	 * such ends were dropped. */
	e->tres_str = (tres_pos == -2 && job_ptr->tres_alloc_str) ?
		      xstrdup(job_ptr->tres_alloc_str) : NULL;
	e->start = job_ptr->start_time;
	e->end = sb_run_charged_to(job_ptr->start_time,
				   budget_job_suspended(job_ptr,
							job_ptr->end_time),
				   job_ptr->end_time);
	slurm_mutex_unlock(&state_lock);
}

/* ------------------------------------------------- the operations table
 * What preempt/budget may ask (budget_ops.h documents each member, its
 * locks and the lookup).  Every member takes state_lock. */

static bool ops_commit_begin(time_t now)
{
	slurm_mutex_lock(&state_lock);
	if (!view_ok) {
		slurm_mutex_unlock(&state_lock);
		return false;
	}
	commit_now = now;
	sb_view_clear_committed(&view);
	return true;	/* state_lock held until ops_commit_end() */
}

static void ops_commit_job(const job_record_t *job_ptr)
{
	commit_job(job_ptr, commit_now);	/* state_lock held */
}

static void ops_commit_end(void)
{
	slurm_mutex_unlock(&state_lock);
}

/* The tree index of a job's association, SB_NONE if unknown.  state_lock
 * held. */
static uint32_t job_index(const job_record_t *job_ptr)
{
	uint32_t idx;

	if (!tree || sb_tree_index(tree, job_ptr->assoc_id, &idx) != SB_OK)
		return SB_NONE;
	return idx;
}

static enum sb_preempt_verdict ops_decide(const struct sb_preempt_policy *pol,
					  const job_record_t *preemptor,
					  const job_record_t *victim,
					  time_t now, char *why, size_t len)
{
	struct sb_preempt_party p, v;
	enum sb_preempt_verdict vd;

	slurm_mutex_lock(&state_lock);
	budget_job_party(preemptor, tres_pos, &p);
	budget_job_party(victim, tres_pos, &v);
	p.index = job_index(preemptor);
	v.index = job_index(victim);
	vd = sb_preempt_decide(pol, view_ok ? &view : NULL, &p, &v, now, why,
			       len);
	slurm_mutex_unlock(&state_lock);
	return vd;
}

static uint32_t ops_victim_key(const job_record_t *victim, time_t now)
{
	struct sb_preempt_party v;

	slurm_mutex_lock(&state_lock);
	budget_job_party(victim, tres_pos, &v);
	slurm_mutex_unlock(&state_lock);
	return sb_preempt_victim_key(&v.job, now);
}

/* Exported (plugin.map); found by preempt/budget with dlsym(). */
extern const struct sb_budget_ops sb_budget_ops_v1;
const struct sb_budget_ops sb_budget_ops_v1 = {
	.version = SB_BUDGET_OPS_VERSION,
	.size = sizeof(struct sb_budget_ops),
	.slurm_version = SLURM_VERSION_NUMBER,
	.commit_begin = ops_commit_begin,
	.commit_job = ops_commit_job,
	.commit_end = ops_commit_end,
	.decide = ops_decide,
	.victim_key = ops_victim_key,
};
