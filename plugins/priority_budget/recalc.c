/*
 * recalc.c - priority/budget's recalculation thread: every CalcPeriod one
 * recalculation (recalc(), the steps listed at the top of
 * priority_budget.c), each step a function.
 */
#include "priority_internal.h"

/* Saving the ledger may cost at most this share of the thread's time. */
#define SAVE_BUDGET_PERCENT 1

/*
 * A Cutover in the future charges every run without a contract until then,
 * and makes each restart before it rebuild the window: say so once per
 * value (the core reads no clock, so the check is here).
 */
static void warn_future_cutover(time_t now)
{
	static int64_t warned;
	char co[32];

	if (pr_cfg.cutover <= now || pr_cfg.cutover == warned)
		return;
	warned = pr_cfg.cutover;
	error("%s: Cutover=%s is in the future: until then every run without "
	      "a contract is charged to its budget and every restart rebuilds "
	      "the window; set it to the time of the switch", plugin_type,
	      sb_time_format_iso(pr_cfg.cutover, co, sizeof(co)));
}

/*
 * Re-read budget.conf (budget_conf_refresh()) and keep its last valid
 * copy.  Thread only.
 */
static void recalc_config(time_t now)
{
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	struct sb_config next;
	char *parsed = NULL, *pending;

	/* slurm_conf's strings only under its lock; budget.conf read, parsed
	 * and kept (fsync) with no lock held; swapped in under pr_state_lock */
	lock_slurmctld(conf_read);
	pr_copy_conf();
	unlock_slurmctld(conf_read);
	if (budget_conf_refresh(&pr_conf_env, &pr_cfg_seen, &next, &parsed,
				plugin_type) == 1) {
		slurm_mutex_lock(&pr_state_lock);
		/* another Cutover: the window charged runs by the old one */
		if (pr_state_loaded && next.cutover != pr_cfg.cutover)
			pr_recharge = true;
		pr_cfg = next;
		slurm_mutex_unlock(&pr_state_lock);
	}
	warn_future_cutover(now);
	slurm_mutex_lock(&pr_state_lock);
	pending = pr_keep_pending;
	pr_keep_pending = NULL;
	slurm_mutex_unlock(&pr_state_lock);
	/* the one place that keeps the last valid copy (budget_conf.h) */
	budget_conf_keep(&pr_conf_env, parsed ? parsed : pending, plugin_type);
	xfree(parsed);
	xfree(pending);
}

/*
 * Move onto the association snapshot @t (pr_adopt_tree()), or free it when it
 * holds the same associations and the ledger has the configured shape.
 * Return: false when it cannot be adopted (logged; @t freed).  Thread only.
 */
static bool recalc_tree(struct sb_tree *t, time_t now)
{
	int rc = SB_OK;

	slurm_mutex_lock(&pr_state_lock);
	pr_fit_ledger_shape(sb_tree_count(t));
	/* The same associations and a ledger of the configured shape: keep
	 * the tree, and the view preempt/budget reads, as they are. */
	if (pr_ledger && pr_same_tree(pr_tree, t) &&
	    sb_ledger_window(pr_ledger) == pr_cfg.lookback_window &&
	    sb_ledger_width(pr_ledger) == pr_cfg.bucket_width) {
		sb_tree_free(t);
		t = NULL;
	} else {
		rc = pr_adopt_tree(t, now);
	}
	slurm_mutex_unlock(&pr_state_lock);
	if (rc != SB_OK) {
		error("%s: cannot adopt the new budget tree: %s", plugin_type,
		      sb_strerror(rc));
		sb_tree_free(t);
		return false;
	}
	return true;
}

/* One job of recalc_standing()'s pass over job_list. */
struct standing_walk {
	time_t now;
	int pos;
	bool accrue;	/* charge what ran (slurmdbd's records are in) */
};

/* list_for_each_ro() callback: charge what @x ran, commit the rest of its
 * protected slice.  job_list's own lock is shared with the other readers
 * (slurmctld's state save packs every job under it): an iterator's
 * list_next() takes it for writing and would wait for them.  0. */
static int standing_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	const struct standing_walk *w = arg;

	if (w->accrue)
		pr_accrue_job(job_ptr, w->now, w->pos);
	pr_commit_job(job_ptr, w->now);
	return 0;
}

/*
 * Charge what ran, commit the rest of running jobs' protected slices, and
 * recompute the view and the standing from their sum.  @charged_out and
 * @own_out get the windowed allocated usage per tree index (subtree sums
 * and each association alone, @nassoc_out entries, to xfree()) for
 * pr_publish_assocs().  Return: SB_OK or the error.  Thread only.
 */
static int recalc_standing(time_t now, int pos, double **charged_out,
			   double **own_out, uint32_t *nassoc_out)
{
	slurmctld_lock_t job_read = { .job = READ_LOCK };
	struct standing_walk walk;
	double *usage, *charged, *own;
	uint32_t nassoc;
	int rc;

	lock_slurmctld(job_read);
	slurm_mutex_lock(&pr_state_lock);
	nassoc = sb_tree_count(pr_tree);
	charged = xcalloc(nassoc ? nassoc : 1, sizeof(*charged));
	own = xcalloc(nassoc ? nassoc : 1, sizeof(*own));
	usage = xcalloc(nassoc ? nassoc : 1, sizeof(*usage));
	/* slurmdbd's records first (pr_reconcile_ledger()) */
	if (!pr_need_reconcile)
		pr_charge_ended(pr_last_tres_id);
	/* One pass: charge what ran, and commit the rest of running jobs'
	 * protected slices, which weighs on the standing now; the ledger
	 * only ever holds what ran. */
	sb_view_clear_committed(&pr_view);
	walk.now = now;
	walk.pos = pos;
	walk.accrue = !pr_need_reconcile;
	(void)list_for_each_ro(job_list, standing_one, &walk);
	sb_accrual_prune(pr_accrual, now - pr_cfg.lookback_window);
	/* the window's sums kept from the last recalculation and moved to
	 * @now: the read below is O(associations), not O(buckets) */
	rc = sb_ledger_sync(pr_ledger, now);
	if (rc == SB_OK)
		rc = sb_ledger_usage_all(pr_ledger, now, true, charged, own);
	if (rc == SB_OK)
		rc = sb_view_set_charged(&pr_view, charged);
	if (rc == SB_OK) {
		pr_view_ok = true;
		rc = sb_view_usage_all(&pr_view, usage);
	}
	if (rc == SB_OK)
		rc = sb_standing_compute_usage(pr_standing, usage);
	slurm_mutex_unlock(&pr_state_lock);
	unlock_slurmctld(job_read);
	xfree(usage);
	*charged_out = charged;
	*own_out = own;
	*nassoc_out = nassoc;
	return rc;
}

/*
 * What each association's started jobs hold in the debug lane at @now
 * (pr_lane_holds()), by tree index: an array of the tree's size, to
 * xfree().  Job read lock and pr_state_lock held.
 */
static uint64_t *lane_held_started(time_t now, uint32_t *n_out)
{
	uint32_t n = sb_tree_count(pr_tree), idx;
	uint64_t *held = xcalloc(n ? n : 1, sizeof(*held));
	job_record_t *job_ptr;
	ListIterator it;

	*n_out = n;
	if (!pr_cfg.preempt.lane.max_tres || !pr_cfg.preempt.lane.budget_tres)
		return held;
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		uint64_t h = pr_lane_holds(job_ptr, now);

		if (h && sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) ==
			 SB_OK && idx < n)
			held[idx] += h;
	}
	list_iterator_destroy(it);
	return held;
}

/*
 * One job of the re-prioritisation: its priority from the standing and
 * the lane, @held the lane counters by tree index (@nheld of them).
 * Return: whether its priority changed.  Job write lock and pr_state_lock
 * held.
 */
static bool reprioritise(job_record_t *job_ptr, uint64_t *held,
			 uint32_t nheld, time_t now)
{
	uint32_t prio, idx;
	uint64_t *h = NULL;

	pr_adopt_admin_priority(job_ptr);
	if (job_ptr->direct_set_prio)
		return false;	/* no details: left as set */
	if (sb_tree_index(pr_tree, job_ptr->assoc_id, &idx) == SB_OK &&
	    idx < nheld)
		h = &held[idx];
	prio = pr_job_priority(job_ptr, h, now);
	if (prio == job_ptr->priority)
		return false;
	job_ptr->priority = prio;
	return true;
}

/*
 * Re-prioritise pending and running jobs from the standing and the debug
 * lane.  The lane's bound: first what each association's started lane jobs
 * hold, then the pending jobs already in the lane are admitted again (so
 * they keep their places while the bound allows, and leave when it was
 * lowered or they grew), then every other job in job_list's order
 * (submission), so lane-sized jobs enter while there is room.  The
 * counters are kept for submissions (pr_lane_held).  Return: how many
 * priorities changed.  Thread only.
 */
static int recalc_priorities(time_t now)
{
	/* the node table: a pending whole-node job's TRES (budget_job_tres) */
	slurmctld_lock_t job_write = { .job = WRITE_LOCK, .node = READ_LOCK };
	job_record_t *job_ptr;
	ListIterator it;
	uint64_t *held;
	uint32_t nheld;
	int changed = 0, pass;
	bool lane;

	lock_slurmctld(job_write);
	slurm_mutex_lock(&pr_state_lock);
	lane = pr_cfg.preempt.lane.max_tres && pr_cfg.preempt.lane.budget_tres;
	held = lane_held_started(now, &nheld);
	/* without a lane, one pass over every job */
	for (pass = lane ? 0 : 1; pass < 2; pass++) {
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it))) {
			bool lane_first = IS_JOB_PENDING(job_ptr) &&
				sb_priority_in_lane(job_ptr->priority);

			/* the restart backoff (22.05's requeue does not
			 * call priority_p_set()); held jobs too; once */
			if (pass == 1 && pr_restart_backoff(job_ptr))
				last_job_update = now;
			/* Running jobs too: preempt/budget compares a
			 * preemptor with the victim's *current* priority. */
			if (!(IS_JOB_PENDING(job_ptr) ||
			      IS_JOB_RUNNING(job_ptr)) ||
			    job_ptr->priority == 0 ||
			    (lane && lane_first != (pass == 0)))
				continue;
			if (reprioritise(job_ptr, held, nheld, now))
				changed++;
		}
		list_iterator_destroy(it);
	}
	xfree(pr_lane_held);
	pr_lane_held = held;
	pr_lane_n = nheld;
	slurm_mutex_unlock(&pr_state_lock);
	if (changed)
		last_job_update = now;
	unlock_slurmctld(job_write);
	return changed;
}

/*
 * Save the ledger.  Saving may take long for a large tree (0.5 s for 10k
 * associations): no lock (see Ownership in priority_budget.c), and only as
 * often as costs at most SAVE_BUDGET_PERCENT of the time: every cycle for
 * small trees.  Anything after the last save is recovered at the next
 * start from the job records (the accrual record says what was charged).
 * Thread only.
 */
static void recalc_save(time_t now)
{
	char *doc = NULL;

	/* Not before the reconcile either: the file's time says where the
	 * next start reconciles from. */
	if (!pr_need_rebuild && !pr_need_reconcile &&
	    (now - pr_last_save) * SAVE_BUDGET_PERCENT >=
	    pr_last_save_cost * 100) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (sb_ledger_to_json(pr_ledger, pr_accrual, &doc) == SB_OK)
			pr_save_state(doc);
		free(doc);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		pr_last_save_cost = (t1.tv_sec - t0.tv_sec) +
				 (t1.tv_nsec - t0.tv_nsec) / 1e9;
		pr_last_save = now;
	}
}

/* One recalculation; see the top of priority_budget.c. */
static void recalc(void)
{
	time_t now = time(NULL);
	struct sb_tree *t;
	double *charged, *own;
	uint32_t nassoc;
	int pos, rc, changed;

	recalc_config(now);
	limit_usage_tick(now);	/* Slurm's time limits (limit_usage.h) */
	if (!(t = pr_snapshot_tree()))
		return;
	pos = pr_charge_tres_pos();
	/* for ends queued unresolved */
	pr_last_tres_id = pr_charge_tres_id(pos);
	if (!recalc_tree(t, now))
		return;
	if (pr_recharge)
		pr_recharge_window();
	/* retried every cycle until slurmdbd answers */
	if (pr_need_rebuild)
		pr_rebuild_window(now, pos);
	if (pr_need_reconcile && !pr_need_rebuild)
		pr_reconcile_ledger(now, pos);

	rc = recalc_standing(now, pos, &charged, &own, &nassoc);
	if (rc != SB_OK) {
		error("%s: standing: %s", plugin_type, sb_strerror(rc));
		xfree(charged);
		xfree(own);
		return;
	}
	changed = recalc_priorities(now);
	pr_publish_assocs(charged, own, nassoc);
	xfree(charged);
	xfree(own);
	recalc_save(now);
	debug("%s: recalculated at %ld: %d pending jobs re-prioritised",
	      plugin_type, (long)now, changed);
}

static void *calc_loop(void *arg)
{
	(void)arg;
	/* seen in top -H, ps -L, /proc/PID/task/TID/comm (15 chars max) */
	(void)pthread_setname_np(pthread_self(), "sb_prio_calc");
	slurm_mutex_lock(&pr_state_lock);
	while (!pr_stop_thread) {
		struct timespec ts;

		/* on the condition's clock (time(2) reads a coarser one that
		 * can lag it by up to a tick: the deadline could be past) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += pr_cfg.calc_period;
		if (!pr_run_now)
			pthread_cond_timedwait(&pr_wake_cond, &pr_state_lock,
					       &ts);
		if (pr_stop_thread)
			break;
		pr_run_now = false;
		slurm_mutex_unlock(&pr_state_lock);
		recalc();
		slurm_mutex_lock(&pr_state_lock);
	}
	slurm_mutex_unlock(&pr_state_lock);
	return NULL;
}

/* Start the recalculation thread (once). */
void pr_start_thread(void)
{
	if (pr_thread_running)
		return;
	pr_stop_thread = false;
	pr_run_now = true;
	sb_thread_create(&pr_calc_thread, calc_loop, NULL);
	pr_thread_running = true;
}
