/*
 * ledger.c - priority/budget: the ledger saved under StateSaveLocation
 * (read at start, written atomically), the Cutover it was charged by, and
 * charging the window from slurmdbd's job records: a rebuild into an
 * empty ledger, or a reconcile of a loaded one with what ended since it
 * was saved.  Also the segments priority_p_job_end() queued.
 */
#include "priority_internal.h"

#define STATE_FILE "budget_ledger.json"

static char *state_path(void)
{
	return xstrdup_printf("%s/%s", pr_state_dir, STATE_FILE);
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
	char *path = xstrdup_printf("%s/budget_cutover", pr_state_dir);
	char *text = NULL, msg[256];
	long long v = -1;
	size_t len;

	if (sb_config_file_read(path, &text, &len, msg, sizeof(msg)) == 0 &&
	    (sscanf(text, "%lld", &v) != 1 || v < 0))
		v = -1;
	free(text);
	xfree(path);
	return v;
}

/* Keep @cutover as the window's (cutover_read()); logged on failure. */
static void cutover_write(int64_t cutover)
{
	char *path = xstrdup_printf("%s/budget_cutover", pr_state_dir);
	char text[32], msg[512];

	snprintf(text, sizeof(text), "%lld\n", (long long)cutover);
	if (sb_config_file_keep(path, text, strlen(text), "new", 0600, msg,
			   sizeof(msg)) < 0)
		error("%s: %s", plugin_type, msg);
	xfree(path);
}

/*
 * Read the saved ledger into the (empty) ledger.  pr_state_lock held.
 * Return: true when it was loaded; false when missing, unreadable or
 * corrupt (logged), and the window must be rebuilt from slurmdbd.
 */
bool pr_load_state(void)
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
	if (saved_cutover >= 0 && saved_cutover != pr_cfg.cutover) {
		char co[32];

		info("%s: Cutover is now %s, not as when %s was charged: "
		     "rebuilding the window from slurmdbd", plugin_type,
		     pr_cfg.cutover > 0 ? sb_time_format_iso(pr_cfg.cutover, co,
							  sizeof(co)) : "none",
		     path);
		close(fd);
		goto out;
	}
	if (fstat(fd, &st) == 0 && pr_cfg.cutover > 0 &&
	    st.st_mtime < pr_cfg.cutover) {
		char co[32];

		info("%s: %s was saved before Cutover=%s: the cluster ran "
		     "another priority plugin since; rebuilding the window "
		     "from slurmdbd (runs without a contract before the "
		     "cutover charged to their budgets)", plugin_type, path,
		     sb_time_format_iso(pr_cfg.cutover, co, sizeof(co)));
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
	rc = sb_ledger_from_json_at(pr_ledger, pr_accrual, buf, n, time(NULL),
				    NULL,
				    0, &dropped_n);
	if (rc != SB_OK) {
		error("%s: %s is corrupt (%s): rebuilding the window from "
		      "slurmdbd", plugin_type, path, sb_strerror(rc));
		goto out;
	}
	info("%s: loaded the ledger from %s (%zu jobs recorded, usage of %zu "
	     "removed associations dropped)", plugin_type, path,
	     sb_accrual_count(pr_accrual), dropped_n);
	/* Saved at st_mtime, at the end of a recalculation: every job
	 * running then was charged up to at most CalcPeriod before.  A
	 * minute more for clock steps and slow saves. */
	pr_need_reconcile = true;
	pr_reconcile_from = st.st_mtime - pr_cfg.calc_period - 60;
	ok = true;
	if (saved_cutover != pr_cfg.cutover)	/* no file yet */
		cutover_write(pr_cfg.cutover);
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
	list_append(cond.cluster_list, pr_conf_cluster);
	jobs = jobacct_storage_g_get_jobs_cond(acct_db_conn, pr_slurm_user,
					       &cond);
	FREE_NULL_LIST(cond.cluster_list);
	if (!jobs)
		error("%s: slurmdbd did not answer: %s", plugin_type, meanwhile);
	return jobs;
}

/* The TRES id (for tres_alloc_str) of ChargeTRES at @pos; -1 if none. */
int pr_charge_tres_id(int pos)
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
 * pr_state_lock is taken (charge_records() holds pr_state_lock). */
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
 * that charged something.  Thread only; pr_state_lock held.
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
		    j->end > now || sb_tree_index(pr_tree, j->associd, &idx) != SB_OK)
			continue;
		if (tres_id > 0 && j->tres_alloc_str)
			cnt = slurmdb_find_tres_count_in_string(j->tres_alloc_str,
								tres_id);
		if (cnt == INFINITE64)
			cnt = 0;
		if (sb_accrual_charge(pr_accrual, pr_ledger, j->jobid, idx,
				      sb_run_allocated(j->admin_comment,
						       j->start,
						       pr_cfg.cutover),
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

/*
 * charge_records() under pr_state_lock, with the QOS usage factors read
 * before the lock is taken.  Thread only; pr_state_lock not held.
 */
static double charge_fetched(List jobs, time_t now, int tres_id, size_t *n)
{
	struct qos_factors qf;
	double total;

	qos_factors_get(&qf);
	slurm_mutex_lock(&pr_state_lock);
	total = charge_records(jobs, now, tres_id, &qf, n);
	slurm_mutex_unlock(&pr_state_lock);
	qos_factors_free(&qf);
	return total;
}

/* Write @text to the state file: temp file, fsync, rename. */
void pr_save_state(const char *text)
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

/* Charge the segments priority_p_job_end() queued; @tres_id is ChargeTRES's
 * TRES id (-1: not accounted) for those queued before its position was
 * known.  pr_state_lock held. */
void pr_charge_ended(int tres_id)
{
	size_t i;

	for (i = 0; i < pr_ended_n; i++) {
		struct ended_job *e = &pr_ended[i];
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
		if (sb_tree_index(pr_tree, e->assoc_id, &idx) != SB_OK)
			continue;
		rc = sb_accrual_charge(pr_accrual, pr_ledger, e->job_id, idx,
				       e->allocated, e->tres, e->start, e->end,
				       NULL);
		if (rc != SB_OK)
			error("%s: cannot charge the end of JobId=%u: %s",
			      plugin_type, e->job_id, sb_strerror(rc));
	}
	pr_ended_n = 0;
}

/*
 * Empty the window to charge it again from slurmdbd (a changed Cutover
 * changes which past runs are charged): a new ledger on the same tree and
 * shape, and a new accrual record, so the rebuild charges every run once.
 * Runs still going are charged from their start by the next accrual pass.
 * pr_state_lock held; on error nothing changed.
 */
static int restart_window(void)
{
	struct sb_ledger *nl = NULL;
	struct sb_accrual *na = sb_accrual_new();
	int rc;

	if (!na)
		return SB_ENOMEM;
	if ((rc = sb_ledger_new(pr_tree, pr_cfg.lookback_window,
				pr_cfg.bucket_width, &nl))) {
		sb_accrual_free(na);
		return rc;
	}
	sb_ledger_free(pr_ledger);
	pr_ledger = nl;
	sb_accrual_free(pr_accrual);
	pr_accrual = na;
	return SB_OK;
}

/*
 * budget.conf's Cutover changed at a reconfigure: empty the window
 * (restart_window()) to charge it again from slurmdbd
 * (pr_rebuild_window()).
 * Thread only.
 */
void pr_recharge_window(void)
{
	char co[32];
	int rc;

	slurm_mutex_lock(&pr_state_lock);
	rc = restart_window();
	slurm_mutex_unlock(&pr_state_lock);
	pr_recharge = false;
	if (rc != SB_OK) {
		error("%s: Cutover changed, but the window cannot be "
		      "rebuilt: %s; restart slurmctld", plugin_type,
		      sb_strerror(rc));
	} else {
		info("%s: Cutover is now %s: rebuilding the window "
		     "from slurmdbd", plugin_type,
		     pr_cfg.cutover > 0 ? sb_time_format_iso(pr_cfg.cutover,
					co, sizeof(co)) : "none");
		pr_need_rebuild = true;
		pr_need_reconcile = false;
	}
}

/*
 * Charge the empty window from slurmdbd's records of the LookbackWindow
 * before @now (@pos: ChargeTRES's position).  Retried every cycle until
 * slurmdbd answers.  Thread only.
 */
void pr_rebuild_window(time_t now, int pos)
{
	List jobs = fetch_finished_jobs(now - pr_cfg.lookback_window, now,
				"the window starts empty (retried "
				"every cycle)");
	int tres_id = pr_charge_tres_id(pos);

	if (jobs) {
		size_t n;
		double total = charge_fetched(jobs, now, tres_id, &n);

		info("%s: rebuilt the window from %zu finished job "
		     "records in slurmdbd: %.0f TRES-seconds",
		     plugin_type, n, total);
		FREE_NULL_LIST(jobs);
		pr_need_rebuild = false;
		pr_need_reconcile = false;
		cutover_write(pr_cfg.cutover);
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
 * Thread only.
 */
void pr_reconcile_ledger(time_t now, int pos)
{
	int tres_id = pr_charge_tres_id(pos);
	List jobs = tres_id > 0 ?
		    fetch_finished_jobs(pr_reconcile_from, now,
				"charging waits for it (retried every "
				"cycle)") : NULL;

	if (jobs) {
		size_t n;
		double total = charge_fetched(jobs, now, tres_id, &n);
		char from[32];
		struct tm tm;

		localtime_r(&pr_reconcile_from, &tm);
		strftime(from, sizeof(from), "%FT%T", &tm);
		info("%s: reconciled the loaded ledger with slurmdbd's "
		     "job records since %s: %zu runs had uncharged "
		     "time, %.0f TRES-seconds charged", plugin_type,
		     from, n, total);
		FREE_NULL_LIST(jobs);
		pr_need_reconcile = false;
	}
}
