/*
 * job_submit_budget.c - job_submit/budget: enforce the scheduling contract.
 *
 * Every job declares a minimum runtime (sbatch --min-runtime, from
 * spank_budget) and whether it is resumable.  At submit this plugin:
 *   - refuses a missing (unless budget.conf sets DefaultMinRuntime),
 *     malformed, negative or above-MaxMinRuntime minimum runtime, one
 *     above the longest time limit the job can be given at all (the
 *     partition's MaxTime, the enforced MaxWall of its QOS, partition QOS
 *     or association), one above the time limit the job will really get
 *     (its --time, else the partition's DefaultTime or MaxTime, capped by
 *     MaxWall, and --time-min, which backfill may cut it to), --resumable
 *     on an interactive job (it can never be requeued) or with
 *     --no-requeue, and a minimum runtime > 0 on an association without
 *     budget, each with a message that names the value and says what to
 *     do;
 *   - stores the accepted contract as a tag at the start of the job's
 *     AdminComment ("budget:min_runtime=3600,resumable=yes,allocated=yes"),
 *     which only administrators can change and which slurmdbd records, so
 *     it shows in `scontrol show job` and `sacct -o AdminComment`;
 *   - sets Slurm's requeue flag for a resumable job (it must be
 *     requeueable); a non-resumable job keeps the flag its user gave
 *     (--requeue / --no-requeue) or the site's JobRequeue default: if it
 *     allows requeue, a preempted non-resumable batch job is requeued and
 *     restarts from its beginning, else it is cancelled (sb_preempt_action);
 *   - with SubmitNote=yes (the default), tells the user of an accepted job
 *     that may lose its work past its minimum runtime (allocated, does not
 *     resume, a longer time limit or none) what a preemption there does
 *     and what protects the work (sb_contract_advice()), through err_msg,
 *     which Slurm returns as job_submit_user_msg: sbatch, salloc and srun
 *     print it before the job id.
 * At modify it refuses a non-administrator's clearing of a resumable job's
 * requeue flag (Slurm itself already refuses their change of AdminComment).
 * Each call of either entry point is timed (wall and the thread's CPU,
 * entry to return); every 60 calls of one a summary is logged at verbose
 * level: "job_submit/budget: submit over 60 calls: wall median N us ...".
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/macros.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_conf.h"
#include "slurm_compat.h"
#include "tick_stats.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/view.h"

const char plugin_name[] = "Budget contract job_submit plugin";
const char plugin_type[] = "job_submit/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define ENV_MIN_RUNTIME "SB_MIN_RUNTIME"
#define ENV_RESUMABLE "SB_RESUMABLE"
#define MAX_DEPTH 64	/* association tree depth we walk */

/*
 * Calls of job_submit() and job_modify() may run at the same time.  Slurm
 * calls both under job_submit.c's context lock and slurmctld's job lock,
 * but on 22.05 the context lock is a mutex (g_context_lock: one plugin call
 * at a time), on 24.11, 25.11 and 26.05 a read-write lock taken for
 * reading (context_lock), and submissions hold only the job READ lock
 * (proc_req.c: _slurm_rpc_submit_batch_job, _slurm_rpc_allocate_resources
 * and others call validate_job_create_req() under job_read_lock, unless the
 * RPC queue runs them under its write lock); a modify holds the job write
 * lock, so it never overlaps a submission, but two submissions may overlap.
 * Hence lock of our own: conf_lock for cfg and cfg_seen (the refresh and
 * the copy of the contract policy a submission uses), stats_lock for the
 * call statistics (taken once per call, after the second clock reading).
 */
static pthread_mutex_t conf_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sb_config cfg;
static struct budget_conf_seen cfg_seen;

static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tick_stats submit_stats, modify_stats;

/*
 * Record one call of entry point @what that started at @c0 (read by this
 * thread) into @s: reads the clocks a second time, adds the sample, and
 * every TICK_STATS_N calls logs the summary at verbose level.
 */
static void call_done(struct tick_stats *s, const char *what,
		      const struct tick_clock *c0)
{
	struct tick_clock c1;
	double wall, cpu;
	char summary[256];
	bool full;

	tick_clock_now(&c1);
	wall = tick_clock_since(c0, &c1, &cpu);
	slurm_mutex_lock(&stats_lock);
	full = tick_stats_add_calls(s, "calls", wall, cpu, summary,
				    sizeof(summary));
	slurm_mutex_unlock(&stats_lock);
	if (full)
		verbose("%s: %s %s", plugin_type, what, summary);
}

/* Whether this call is timed: the summaries are logged at verbose level
 * only, so below it the clocks are not read (two clock pairs a call). */
static bool timing(void)
{
	return get_log_level() >= LOG_LEVEL_VERBOSE;
}

extern int init(void)
{
	/* A bad file must not stop slurmctld: the defaults are the strict
	 * ones (MaxMinRuntime 8:00:00, no default min runtime). */
	struct budget_conf_env env;

	slurm_mutex_lock(&conf_lock);
	sb_config_init(&cfg);
	budget_conf_env_get(&env);
	/* The last valid copy is kept by priority/budget's thread, never
	 * here (init and the RPCs run under slurmctld's locks). */
	if (budget_conf_load(&env, &cfg, NULL, plugin_type) != SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&env, &cfg_seen);
	slurm_mutex_unlock(&conf_lock);
	budget_conf_env_free(&env);
	return SLURM_SUCCESS;
}

/*
 * Re-read budget.conf after a reconfigure (22.05 has no reconfigure hook
 * for job_submit plugins) and copy its contract policy into @pol and its
 * preemption policy into @preempt (each may be NULL).  Called from the
 * submit and update RPCs, which hold the slurmctld conf read lock (and the
 * job read or write lock): costs one stat(), and one read of the small
 * file after a reconfigure; nothing is written here.
 */
static void refresh_config(struct sb_contract_policy *pol,
			   struct sb_preempt_policy *preempt)
{
	struct budget_conf_env env;
	struct sb_config next;

	budget_conf_env_get(&env);
	slurm_mutex_lock(&conf_lock);
	if (budget_conf_refresh(&env, &cfg_seen, &next, NULL, plugin_type) == 1)
		cfg = next;
	if (pol)
		*pol = cfg.contract;
	if (preempt)
		*preempt = cfg.preempt;
	slurm_mutex_unlock(&conf_lock);
	budget_conf_env_free(&env);
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

/* The value of NAME in the job control environment, or NULL. */
static const char *spank_env_get(const job_desc_msg_t *job_desc,
				 const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; i < job_desc->spank_job_env_size; i++) {
		const char *e = job_desc->spank_job_env[i];

		if (e && !strncmp(e, name, len) && e[len] == '=')
			return e + len + 1;
	}
	return NULL;
}

/* What the association lookup found. */
enum budget_state { BUDGET_YES, BUDGET_NO, BUDGET_NO_ASSOC };

/* The MaxWall limits Slurm's accounting would put on the job
 * (acct_policy_validate: the first set of the partition's QOS, the job's
 * QOS and the association path, OverPartQOS putting the job's QOS first);
 * minutes, INFINITE = not set. */
struct wall_limits {
	bool enforced;		/* AccountingStorageEnforce has limits */
	uint32_t assoc;		/* first MaxWall on the association path */
	char assoc_from[128];	/* the association that sets it */
	uint32_t qos;		/* the job's QOS's MaxWall */
	char qos_name[64];
	bool qos_over_part;	/* the job's QOS has OverPartQOS */
	bool qos_part_time;	/* ... PartitionTimeLimit: its jobs may run
				 * past the partition's MaxTime */
	bool qos_unknown;	/* --qos gave a list: which one is not known */
};

/*
 * The job's QOS as slurmctld will pick it: --qos (one name; a list, which
 * 26.05 allows, names no single QOS: qos_unknown), else the
 * association's default (assoc_mgr_get_default_qos_info).  assoc_mgr QOS
 * read lock held.
 */
static void job_qos_wall(char *qos_req, slurmdb_assoc_rec_t *assoc,
			 struct wall_limits *w)
{
	slurmdb_qos_rec_t rec, *qos = NULL;

	if (qos_req && strchr(qos_req, ',')) {
		w->qos_unknown = true;
		return;
	}
	memset(&rec, 0, sizeof(rec));
	rec.name = (qos_req && qos_req[0]) ? qos_req : NULL;
	assoc_mgr_get_default_qos_info(assoc, &rec);
	if (assoc_mgr_fill_in_qos(acct_db_conn, &rec, accounting_enforce, &qos,
				  true) != SLURM_SUCCESS || !qos)
		return;	/* Slurm refuses an unknown QOS itself */
	w->qos = qos->max_wall_pj;
	w->qos_over_part = qos->flags & QOS_FLAG_OVER_PART_QOS;
	w->qos_part_time = qos->flags & QOS_FLAG_PART_TIME_LIMIT;
	snprintf(w->qos_name, sizeof(w->qos_name), "%s", qos->name);
}

/*
 * Whether user @uid's association for @account (NULL: the user's default)
 * and @partition has a budget on its whole path to the root.  Takes the
 * assoc_mgr read locks for the walk only.  @acct_out gets the account
 * name; @w (may be NULL) the MaxWall of the association path and of the
 * QOS the job gets for its request @qos_req (NULL: the default).
 */
static enum budget_state assoc_budget(uint32_t uid, char *account,
				      char *partition, char *qos_req,
				      char *acct_out, size_t acct_len,
				      struct wall_limits *w)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .user = READ_LOCK };
	slurmdb_assoc_rec_t req, *assoc = NULL, *a;
	uint32_t shares[MAX_DEPTH];
	size_t n = 0;
	bool found = false;
	struct wall_limits none;

	if (!w)
		w = &none;
	memset(w, 0, sizeof(*w));
	w->assoc = w->qos = INFINITE;
	w->enforced = accounting_enforce & ACCOUNTING_ENFORCE_LIMITS;
	memset(&req, 0, sizeof(req));
	req.uid = uid;
	req.acct = account;
	/* A list of partitions has no single association; use the user's. */
	if (partition && !strchr(partition, ','))
		req.partition = partition;

	snprintf(acct_out, acct_len, "%s", account ? account : "(default)");
	assoc_mgr_lock(&locks);
	if (assoc_mgr_fill_in_assoc(acct_db_conn, &req, accounting_enforce,
				    &assoc, true) == SLURM_SUCCESS && assoc) {
		found = true;
		snprintf(acct_out, acct_len, "%s", assoc->acct);
		for (a = assoc; a && a != assoc_mgr_root_assoc && n < MAX_DEPTH;
		     a = a->usage ? a->usage->parent_assoc_ptr : NULL)
			shares[n++] = a->shares_raw;
		/* acct_policy_validate walks to the root, the first set wins */
		for (a = assoc; a && sb_limit_secs(w->assoc) <= 0;
		     a = a->usage ? a->usage->parent_assoc_ptr : NULL)
			if (sb_limit_secs(a->max_wall_pj) > 0) {
				w->assoc = a->max_wall_pj;
				if (a->user)
					snprintf(w->assoc_from,
						 sizeof(w->assoc_from),
						 "MaxWall of user '%s' in "
						 "account '%s'", a->user,
						 a->acct);
				else
					snprintf(w->assoc_from,
						 sizeof(w->assoc_from),
						 "MaxWall of account '%s'",
						 a->acct);
			}
	}
	if (w->enforced && w != &none)
		job_qos_wall(qos_req, assoc, w);
	assoc_mgr_unlock(&locks);
	if (!found)
		return BUDGET_NO_ASSOC;
	return sb_path_has_budget(shares, n) ? BUDGET_YES : BUDGET_NO;
}

/*
 * The MaxWall that applies to the job in partition @p (seconds, -1 none;
 * the core's sb_max_wall), with a phrase for the message in @from.
 * assoc_mgr QOS read lock held.
 */
static int64_t max_wall(const part_record_t *p, const struct wall_limits *w,
			char *from, size_t len)
{
	const slurmdb_qos_rec_t *pq = p ? p->qos_ptr : NULL;
	struct sb_wall_limits in = {
		.part_qos = pq ? sb_limit_secs(pq->max_wall_pj) : -1,
		.job_qos = sb_limit_secs(w->qos),
		.assoc = sb_limit_secs(w->assoc),
		.over_part_qos = w->qos_over_part,
		.job_qos_unknown = w->qos_unknown,
	};
	enum sb_wall_from f;
	int64_t v;

	if (!w->enforced)
		return -1;
	v = sb_max_wall(&in, &f);
	switch (f) {
	case SB_WALL_PART_QOS:
		snprintf(from, len, "partition '%s' QOS '%s' MaxWall", p->name,
			 pq->name);
		break;
	case SB_WALL_JOB_QOS:
		snprintf(from, len, "QOS '%s' MaxWall", w->qos_name);
		break;
	case SB_WALL_ASSOC:
		snprintf(from, len, "%s", w->assoc_from);
		break;
	default:
		break;
	}
	return v;
}

/* The phrase for a limit that decided (sb_time_limit_effective,
 * sb_time_cap), "" when the job's own --time does. */
static void limit_phrase(enum sb_limit_from f, const char *part,
			 const char *wall_from, char *out, size_t len)
{
	switch (f) {
	case SB_LIMIT_PART_DEFAULT:
		snprintf(out, len, "partition '%s' DefaultTime, as no --time "
			 "was given", part);
		break;
	case SB_LIMIT_PART_MAX:
		snprintf(out, len, "partition '%s' MaxTime", part);
		break;
	case SB_LIMIT_MAX_WALL:
		snprintf(out, len, "%s", wall_from);
		break;
	case SB_LIMIT_TIME_MIN:
		snprintf(out, len, "--time-min: backfill may cut the job to "
			 "it");
		break;
	default:
		out[0] = '\0';
		break;
	}
}

/* The time limit a job gets in one partition, and the most it can get. */
struct part_limit {
	int64_t limit, cap;
	int64_t longest;	/* the longest limit the job may run under:
				 * --time-min aside, the largest over its
				 * partitions; <= 0 none */
	char from[160], cap_from[160];
};

/* @p may be NULL (no partition known). */
static void part_limit(const job_desc_msg_t *job_desc, const part_record_t *p,
		       const struct wall_limits *w, struct part_limit *out)
{
	char wall_from[128] = "";
	int64_t wall = max_wall(p, w, wall_from, sizeof(wall_from));
	int64_t pdef = p ? sb_limit_secs(p->default_time) : -1;
	int64_t pmax = p ? sb_limit_secs(p->max_time) : -1;
	const char *name = p ? p->name : "";
	enum sb_limit_from f, cf;

	out->limit = sb_time_limit_effective(
		sb_limit_secs(job_desc->time_limit),
		sb_limit_secs(job_desc->time_min), pdef, pmax, wall, &f);
	out->longest = sb_time_limit_effective(
		sb_limit_secs(job_desc->time_limit), -1, pdef, pmax, wall,
		NULL);
	/* a QOS with PartitionTimeLimit lifts MaxTime as a cap (job_mgr.c) */
	out->cap = sb_time_cap(w->qos_part_time ? -1 : pmax, wall, &cf);
	limit_phrase(f, name, wall_from, out->from, sizeof(out->from));
	limit_phrase(cf, name, wall_from, out->cap_from, sizeof(out->cap_from));
	/* MaxTime decides the limit only when no --time was given */
	if (f == SB_LIMIT_PART_MAX)
		strncat(out->from, ", as no --time was given",
			sizeof(out->from) - strlen(out->from) - 1);
}

/*
 * The shortest time limit the job can really be given (the core's
 * sb_time_limit_effective) and the cap no --time can raise (sb_time_cap),
 * over every partition it may run in: its own list, or the default
 * partition.  The least limit counts (the job may start in that
 * partition), and the largest cap (as Slurm bounds a multi-partition job
 * by the largest MaxTime, job_mgr.c _valid_job_part; none if one
 * partition has none), or the least with EnforcePartLimits=ALL.  Slurm
 * applies DefaultTime/MaxTime and MaxWall only after job_submit plugins
 * ran, so they are read here.  Partition read lock held by the caller
 * (validate_job_create_req); takes the assoc_mgr QOS read lock.
 */
static void effective_limit(const job_desc_msg_t *job_desc,
			    const struct wall_limits *w, struct part_limit *best)
{
	assoc_mgr_lock_t locks = { .qos = READ_LOCK };
	struct part_limit cur;
	char *names, *tok, *save = NULL;
	bool any = false;
	int64_t cap = -1;
	char cap_from[sizeof(cur.cap_from)] = "";
	bool all = slurm_conf.enforce_part_limits == PARTITION_ENFORCE_ALL;
	int64_t longest = -1;

	assoc_mgr_lock(&locks);
	if (!job_desc->partition || !job_desc->partition[0]) {
		part_limit(job_desc, default_part_loc, w, best);
		goto out;
	}
	names = xstrdup(job_desc->partition);
	for (tok = strtok_r(names, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		part_record_t *p = find_part_record(tok);

		if (!p)
			continue;	/* Slurm refuses the job itself */
		part_limit(job_desc, p, w, &cur);
		if (!any || (longest > 0 &&
			     (cur.longest <= 0 || cur.longest > longest)))
			longest = cur.longest;
		if (all) {	/* EnforcePartLimits=ALL: every one binds */
			if (!any || (cur.cap > 0 &&
				     (cap <= 0 || cur.cap < cap))) {
				cap = cur.cap;
				memcpy(cap_from, cur.cap_from,
				       sizeof(cap_from));
			}
		} else if (!any || (cur.cap > 0 && cap > 0 && cur.cap > cap)) {
			cap = cur.cap;
			memcpy(cap_from, cur.cap_from, sizeof(cap_from));
		} else if (cur.cap <= 0) {
			cap = -1;	/* one partition without a cap */
		}
		if (!any || (cur.limit > 0 &&
			     (best->limit <= 0 || cur.limit < best->limit)))
			*best = cur;
		any = true;
	}
	xfree(names);
	if (!any) {	/* no known partition: the job's own values */
		part_limit(job_desc, NULL, w, best);
		goto out;
	}
	best->cap = cap;
	best->longest = longest;
	memcpy(best->cap_from, cap_from, sizeof(cap_from));
out:
	assoc_mgr_unlock(&locks);
}

/*
 * job_submit for one job: check its contract (sb_contract_check()), write
 * the accepted one into its AdminComment, set the requeue flag of a
 * resumable job, and with SubmitNote add the note of sb_contract_advice()
 * to *@err_msg (appended to an earlier plugin's; Slurm frees it).
 * Return: SLURM_SUCCESS, or the refusal's error code with the message in
 * *@err_msg (any earlier message freed).  Called with the locks
 * validate_job_create_req() holds (slurmctld's conf and partition read
 * locks among them).
 */
static int submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		  char **err_msg)
{
	struct sb_contract_policy pol;
	struct sb_preempt_policy ppol;
	struct part_limit lim;
	struct wall_limits w;
	struct sb_contract_request req;
	struct sb_contract c, at_risk;
	enum sb_requeue_bar bar = SB_REQUEUE_BAR_NONE;
	char msg[512], tag[128], acct[128];
	int rc;

	refresh_config(&pol, &ppol);

	req.min_runtime = spank_env_get(job_desc, ENV_MIN_RUNTIME);
	req.resumable = spank_env_get(job_desc, ENV_RESUMABLE);
	/* salloc and srun allocations have no script: never requeued */
	req.interactive = !job_desc->script;
	/* --no-requeue; NO_VAL16 = not given (the site's JobRequeue) */
	req.no_requeue = job_desc->requeue == 0;
	/* No association at all: not ours to judge; slurmctld refuses the
	 * job with "Invalid account" when associations are enforced. */
	req.has_budget = assoc_budget(job_desc->user_id, job_desc->account,
				      job_desc->partition, job_desc->qos, acct,
				      sizeof(acct), &w) != BUDGET_NO;
	effective_limit(job_desc, &w, &lim);
	req.time_limit = lim.limit;
	req.limit_from = lim.from[0] ? lim.from : NULL;
	req.time_cap = lim.cap;
	req.cap_from = lim.cap_from[0] ? lim.cap_from : NULL;

	rc = sb_contract_check(&pol, &req, &c, msg, sizeof(msg));
	if (rc != SB_OK) {
		info("%s: refused job of uid %u (submitted by %u), account %s: %s",
		     plugin_type, job_desc->user_id, submit_uid, acct, msg);
		if (err_msg) {
			xfree(*err_msg);	/* an earlier plugin's, if any */
			*err_msg = xstrdup_printf("budget: %s", msg);
		}
		return (rc == SB_ENOBUDGET) ? ESLURM_INVALID_ACCOUNT : SLURM_ERROR;
	}

	sb_contract_format(&c, tag, sizeof(tag));
	if (job_desc->admin_comment && job_desc->admin_comment[0]) {
		/* An administrator's own comment follows our tag. */
		char *both = xstrdup_printf("%s %s", tag, job_desc->admin_comment);

		xfree(job_desc->admin_comment);
		job_desc->admin_comment = both;
	} else {
		xfree(job_desc->admin_comment);
		job_desc->admin_comment = xstrdup(tag);
	}
	/* resumable needs requeue; otherwise --no-requeue is the user's
	 * choice between a restart and a cancel on preemption */
	if (c.resumable)
		job_desc->requeue = 1;
	debug("%s: uid %u account %s: %s", plugin_type, job_desc->user_id,
	      acct, tag);
	/* SubmitNote: a note for the user when a preemption past the
	 * minimum runtime would lose the job's work (sbatch, salloc and srun
	 * print it before the job id).  Whether Slurm can requeue the job:
	 * --requeue or --no-requeue, else the site's JobRequeue. */
	at_risk = c;
	if (req.interactive)
		bar = SB_REQUEUE_BAR_INTERACTIVE;
	else if (job_desc->requeue == 0)
		bar = SB_REQUEUE_BAR_USER;
	else if (job_desc->requeue == NO_VAL16 && !slurm_conf.job_requeue)
		bar = SB_REQUEUE_BAR_SITE;
	if (!c.resumable)
		at_risk.requeueable = bar == SB_REQUEUE_BAR_NONE;
	if (err_msg && pol.submit_note &&
	    sb_contract_advice(&ppol, &at_risk, bar, lim.limit, lim.longest,
			       pol.max_min_runtime, msg, sizeof(msg))) {
		if (*err_msg)
			xstrcat(*err_msg, "\n");
		xstrfmtcat(*err_msg, "budget: %s", msg);
	}
	return SLURM_SUCCESS;
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	struct tick_clock c0;
	bool timed = timing();
	int rc;

	if (timed)
		tick_clock_now(&c0);
	rc = submit(job_desc, submit_uid, err_msg);
	if (timed)
		call_done(&submit_stats, "submit", &c0);
	return rc;
}

/*
 * Refuse a modification: log @msg (the user's uid and the job in front)
 * and, where Slurm has a channel for it (24.11, slurm_compat.h), hand it
 * to the user too.  Returns @rc.
 */
static int refuse(int rc, char **err_msg, uint32_t uid,
		  const job_record_t *job_ptr, const char *msg)
{
	info("%s: uid %u: refused change of %pJ: %s", plugin_type, uid,
	     job_ptr, msg);
	if (err_msg) {
		xfree(*err_msg);
		*err_msg = xstrdup_printf("budget: %s", msg);
	}
	return rc;
}

/*
 * preempt/budget's stop notes (sb/view.h) at the end of the job's
 * AdminComment are facts of its runs, not an administrator's text: a new
 * AdminComment keeps them, in place of any it gives (sb_note_merge(new,
 * old)), so the next completion record still says who preempted the job.
 */
static void keep_stop_notes(job_desc_msg_t *job_desc,
			    const job_record_t *job_ptr)
{
	struct sb_stop_note note;
	size_t n;
	char *merged;

	if (sb_stop_note_parse(job_ptr->admin_comment, &note) == 0 &&
	    sb_stop_note_parse(job_desc->admin_comment, &note) == 0)
		return;	/* no notes on either side: as given */
	n = sb_note_merge(job_desc->admin_comment, job_ptr->admin_comment,
			  NULL, 0);
	merged = xmalloc(n + 1);
	(void)sb_note_merge(job_desc->admin_comment, job_ptr->admin_comment,
			    merged, n + 1);
	xfree(job_desc->admin_comment);
	job_desc->admin_comment = merged;
}

/*
 * Modifications that would change or break the contract:
 *   - AdminComment (administrators only, Slurm checks that) must keep a
 *     well-formed contract tag at its start on a job that has one; the
 *     job's stop notes stay at its end (keep_stop_notes());
 *   - Requeue of a resumable job may be changed by administrators only
 *     (a non-resumable job's is its user's: restart or cancel on
 *     preemption);
 *   - a new account must have a budget if the job is allocated;
 *   - a new time limit or TimeMin must not fall below the minimum runtime
 *     (users; an administrator may cut a job short).
 * Each refusal is logged; on Slurm 24.11 the user sees the same message
 * (err_msg), on 22.05 only the error code (err_msg is NULL there).
 */
static int modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		  uint32_t submit_uid, char **err_msg)
{
	struct sb_contract c, now;
	bool is_admin = validate_super_user(submit_uid);
	bool has_contract;
	char acct[128], msg[512];

	refresh_config(NULL, NULL);
	has_contract = sb_contract_parse_tag(job_ptr->admin_comment, &now) ==
		       SB_OK;

	if (job_desc->admin_comment && has_contract &&
	    sb_contract_parse_tag(job_desc->admin_comment, &c) != SB_OK) {
		snprintf(msg, sizeof(msg), "AdminComment '%s' refused: the "
			 "job's contract must stay at its start, well formed "
			 "and consistent (budget:min_runtime=SECONDS,"
			 "resumable=yes|no,allocated=yes|no with allocated=yes "
			 "exactly when min_runtime > 0), followed by a space "
			 "and any comment", job_desc->admin_comment);
		return refuse(ESLURM_ACCESS_DENIED, err_msg, submit_uid,
			      job_ptr, msg);
	}
	if (job_desc->admin_comment)
		keep_stop_notes(job_desc, job_ptr);

	if (job_desc->requeue != NO_VAL16 && !is_admin && job_ptr->details &&
	    job_desc->requeue != job_ptr->details->requeue && has_contract &&
	    now.resumable) {
		snprintf(msg, sizeof(msg), "may not change Requeue from %u to "
			 "%u: resumable is part of the job's contract, fixed "
			 "at submit; resubmit with%s --resumable",
			 job_ptr->details->requeue, job_desc->requeue,
			 job_desc->requeue ? "" : "out");
		return refuse(ESLURM_ACCESS_DENIED, err_msg, submit_uid,
			      job_ptr, msg);
	}

	if (job_desc->account && has_contract && now.allocated &&
	    xstrcmp(job_desc->account, job_ptr->account) &&
	    assoc_budget(job_ptr->user_id, job_desc->account,
			 job_ptr->partition, NULL, acct, sizeof(acct),
			 NULL) == BUDGET_NO) {
		snprintf(msg, sizeof(msg), "may not move the allocated job "
			 "(min runtime %llds) to account %s: it has no budget "
			 "(RawShares 0 on its path); only unallocated jobs "
			 "(--min-runtime=0) may run there",
			 (long long)now.min_runtime, acct);
		return refuse(ESLURM_INVALID_ACCOUNT, err_msg, submit_uid,
			      job_ptr, msg);
	}

	if (job_desc->time_min != NO_VAL && !is_admin && has_contract &&
	    sb_limit_secs(job_desc->time_min) > 0 &&
	    sb_limit_secs(job_desc->time_min) < now.min_runtime) {
		snprintf(msg, sizeof(msg), "may not set TimeMin to %u min: "
			 "below its minimum runtime of %llds (backfill may cut "
			 "the job to TimeMin)", job_desc->time_min,
			 (long long)now.min_runtime);
		return refuse(ESLURM_INVALID_TIME_MIN_LIMIT, err_msg,
			      submit_uid, job_ptr, msg);
	}
	if (job_desc->time_limit != NO_VAL && !is_admin && has_contract &&
	    sb_limit_secs(job_desc->time_limit) > 0 &&
	    sb_limit_secs(job_desc->time_limit) < now.min_runtime) {
		snprintf(msg, sizeof(msg), "may not set TimeLimit to %u min: "
			 "below its minimum runtime of %llds",
			 job_desc->time_limit, (long long)now.min_runtime);
		return refuse(ESLURM_INVALID_TIME_LIMIT, err_msg, submit_uid,
			      job_ptr, msg);
	}
	return SLURM_SUCCESS;
}

/* modify(), timed (call_done()). */
static int timed_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
			uint32_t submit_uid, char **err_msg)
{
	struct tick_clock c0;
	bool timed = timing();
	int rc;

	if (timed)
		tick_clock_now(&c0);
	rc = modify(job_desc, job_ptr, submit_uid, err_msg);
	if (timed)
		call_done(&modify_stats, "modify", &c0);
	return rc;
}
SB_DEFINE_JOB_MODIFY(timed_modify)
