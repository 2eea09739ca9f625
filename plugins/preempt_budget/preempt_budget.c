/*
 * preempt_budget.c - preempt/budget: the minimum-runtime contract made real.
 *
 * Slurm asks this plugin three things (src/slurmctld/preempt.c):
 *   - preempt_p_job_preempt_check: the static relation used to sort the
 *     pending queue: an allocated job goes before an unallocated one;
 *   - preempt_p_preemptable: may this pending job take that running job's
 *     resources now?  The rules are the core's (sb/preempt.h): only
 *     allocated jobs preempt; unallocated jobs any time; allocated jobs
 *     only past start + min runtime and only for a job of higher priority
 *     than the victim's *current* one (priority/budget refreshes the
 *     priority of running jobs every CalcPeriod);
 *   - preempt_p_get_data: the victim order (PRIO: unallocated first, lowest
 *     standing, least work lost), what happens to a victim (MODE: REQUEUE
 *     if resumable, else CANCEL, or never with PreemptNonResumable=keep),
 *     and PreemptGraceTime (SIGTERM first, so a resumable job can
 *     checkpoint).  Slurm's select plugin takes victims in that order only
 *     until the preemptor fits, and preempts nothing if it cannot fit.
 *
 * A thread (every second) does what Slurm does not:
 *   - automated repair: a job on a node drained with a reason matching
 *     RepairReason is released once it has run its min runtime (requeued if
 *     resumable), so the node reaches DRAINED without anyone asking;
 *   - it wakes the schedulers when a protected slice ends or a requeued
 *     job's begin time passes (they skip cycles in which nothing changed);
 *   - it completes preemptions whose grace time is over at once, rather
 *     than at slurmctld's next 30 s time-limit pass;
 *   - a resumable victim that exits by itself during its grace time (say,
 *     after writing its checkpoint) is requeued all the same: resumable
 *     means it may be restarted at any moment.
 * Each victim's SystemComment records why it stopped:
 *   budget:preempted_by=<jobid>,at=<epoch>,preemptor_priority=<u32>,victim_priority=<u32>
 *   budget:released_for_repair=<node>,at=<epoch>
 *
 * Lock order: slurmctld locks, then state_lock.
 */
#define _GNU_SOURCE	/* dladdr, RTLD_NODELETE */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/node_conf.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_conf.h"
#include "slurm_compat.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"

const char plugin_name[] = "Preempt by budget and minimum runtime";
const char plugin_type[] = "preempt/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Ownership: every static below is guarded by state_lock. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static struct sb_config cfg;
static struct budget_conf_seen cfg_seen;
static int tres_pos = -2;		/* -2: not looked up */
static pthread_t tick_thread;
static bool thread_running, stop_thread;
static bool in_tick;		/* between the wait and the end of a tick */
static bool thread_done;	/* tick_loop() returned */
static unsigned generation;	/* init() count: a detached tick of an
				 * earlier load exits when it changes */
/* The job Slurm last asked about as a preemptor: the victims it then
 * preempts (in the same locked pass) are preempted for this job. */
static uint32_t last_preemptor_id, last_preemptor_prio;
/* Committed usage (the uncharged rest of running allocated jobs' min
 * runtimes, TRES-seconds) per association id, own + subtree, from the last
 * tick: open addressing, capacity a power of two, id 0 = empty. */
struct committed_slot {
	uint32_t id;
	double tres_s;
};
static struct committed_slot *committed;
static size_t committed_cap;
/* Resumable victims inside their grace time, to requeue if they exit. */
static uint32_t *graced;
static size_t graced_n, graced_cap;

/* The contract from the AdminComment tag (job_submit/budget); a job without
 * one (submitted before the plugins were loaded) counts as allocated with
 * no protection and not resumable: Slurm's own defaults. */
static void job_contract(const job_record_t *job_ptr, struct sb_contract *c)
{
	if (sb_contract_parse_tag(job_ptr->admin_comment, c) != SB_OK) {
		c->min_runtime = 0;
		c->allocated = true;
		c->resumable = false;
	}
	/* Slurm can requeue only batch jobs with the requeue flag (an admin
	 * may have cleared it): anything else would be killed by
	 * slurm_job_preempt's fallback, so it is not resumable here. */
	if (!job_ptr->batch_flag ||
	    (job_ptr->details && !job_ptr->details->requeue))
		c->resumable = false;
}

/* Charged TRES (GPUs) allocated to a running job.  state_lock held. */
static uint64_t job_tres(const job_record_t *job_ptr)
{
	uint64_t v;

	if (tres_pos < 0 || !job_ptr->tres_alloc_cnt)
		return 0;
	v = job_ptr->tres_alloc_cnt[tres_pos];
	return v == NO_CONSUME_VAL64 ? 0 : v;
}

/* The job as the core sees it.  state_lock held. */
static void job_view(const job_record_t *job_ptr, struct sb_preempt_job *j)
{
	job_contract(job_ptr, &j->contract);
	j->start = job_ptr->start_time;
	j->priority = job_ptr->priority;
	j->tres = job_tres(job_ptr);
}

static void refresh_config(void)
{
	struct budget_conf_seen before;
	char charge[sizeof(cfg.charge_tres)];
	int pos;

	slurm_mutex_lock(&state_lock);
	before = cfg_seen;
	budget_conf_refresh(&cfg, &cfg_seen, plugin_type);
	if (before.conf_update != cfg_seen.conf_update ||
	    before.mtime.tv_sec != cfg_seen.mtime.tv_sec ||
	    before.mtime.tv_nsec != cfg_seen.mtime.tv_nsec)
		tres_pos = -2;	/* re-read: ChargeTRES may have changed */
	pos = tres_pos;
	memcpy(charge, cfg.charge_tres, sizeof(charge));
	slurm_mutex_unlock(&state_lock);
	/* -1 too: assoc_mgr may not have had its TRES yet (retried each
	 * tick until it has; the tick runs only once slurmctld is up). */
	if (pos < 0) {
		pos = budget_tres_pos(charge);
		slurm_mutex_lock(&state_lock);
		tres_pos = pos;
		slurm_mutex_unlock(&state_lock);
	}
}

/* The committed usage of association @id's subtree.  state_lock held. */
static double committed_get(uint32_t id)
{
	size_t i;

	if (!committed_cap)
		return 0;
	for (i = id & (committed_cap - 1); committed[i].id;
	     i = (i + 1) & (committed_cap - 1))
		if (committed[i].id == id)
			return committed[i].tres_s;
	return 0;
}

/* Add @v to association @id's committed usage.  state_lock held; the table
 * is sized by the caller to stay at most half full. */
static void committed_add(uint32_t id, double v)
{
	size_t i;

	for (i = id & (committed_cap - 1); committed[i].id && committed[i].id != id;
	     i = (i + 1) & (committed_cap - 1))
		;
	committed[i].id = id;
	committed[i].tres_s += v;
}

/* Levels of the association tree that carry committed usage (and that the
 * reclaim rule compares at); deeper levels are not charged committed. */
#define COMMIT_DEPTH 16

/* Recompute the committed usage of every association with running
 * allocated jobs in its subtree.  Job write lock held (the tick's); takes
 * the assoc_mgr read lock and state_lock. */
static void committed_refresh(time_t now)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	size_t want = 64, slots = 0;
	job_record_t *job_ptr;
	ListIterator it;

	if (!job_list)
		return;
	/* sized by the running jobs, not the whole queue: the table is
	 * cleared every second */
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it)))
		if (IS_JOB_RUNNING(job_ptr))
			slots += COMMIT_DEPTH;
	list_iterator_destroy(it);
	while (want < 2 * slots)
		want *= 2;
	assoc_mgr_lock(&locks);
	slurm_mutex_lock(&state_lock);
	if (want != committed_cap) {
		xfree(committed);
		committed = xcalloc(want, sizeof(*committed));
		committed_cap = want;
	} else {
		memset(committed, 0, want * sizeof(*committed));
	}
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		slurmdb_assoc_rec_t *a;
		struct sb_preempt_job j;
		int64_t left;
		int depth = 0;

		if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->assoc_ptr)
			continue;
		job_view(job_ptr, &j);
		left = sb_preempt_protected_until(&j) - now;
		if (!j.contract.allocated || left <= 0 || !j.tres)
			continue;
		/* at most COMMIT_DEPTH levels: the table's sizing assumes it */
		for (a = job_ptr->assoc_ptr; a && a->usage && depth < COMMIT_DEPTH;
		     a = a->usage->parent_assoc_ptr, depth++)
			committed_add(a->id, (double)j.tres * (double)left);
	}
	list_iterator_destroy(it);
	slurm_mutex_unlock(&state_lock);
	assoc_mgr_unlock(&locks);
}

/*
 * The reclaim rule (sb_preempt_reclaim_ok) for two jobs of different
 * budgets, where their paths in the association tree diverge.  Usage is
 * what priority/budget published (charged, subtree) plus committed.
 * Job write lock held; takes the assoc_mgr read lock and state_lock.
 * Fills @why for the log when it refuses.
 */
static bool reclaim_ok(job_record_t *preemptor, job_record_t *victim,
		       const struct sb_preempt_job *or, char *why, size_t len)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *pp[32], *vp[32], *p, *v;
	int np = 0, nv = 0;
	double delta, up, uv;
	uint64_t req = 0;
	bool ok = true;

	if (!preemptor->assoc_ptr || !victim->assoc_ptr ||
	    preemptor->assoc_ptr == victim->assoc_ptr)
		return true;	/* one budget: in-team priority decides */
	assoc_mgr_lock(&locks);
	for (p = preemptor->assoc_ptr; p && p->usage && np < 32;
	     p = p->usage->parent_assoc_ptr)
		pp[np++] = p;
	for (v = victim->assoc_ptr; v && v->usage && nv < 32;
	     v = v->usage->parent_assoc_ptr)
		vp[nv++] = v;
	/* walk down from the root while the paths agree */
	while (np > 1 && nv > 1 && pp[np - 1] == vp[nv - 1] &&
	       pp[np - 2] == vp[nv - 2]) {
		np--;
		nv--;
	}
	if (np < 2 || nv < 2 || pp[np - 1] != vp[nv - 1]) {
		assoc_mgr_unlock(&locks);
		return true;	/* one is the other's ancestor: no siblings */
	}
	p = pp[np - 2];
	v = vp[nv - 2];
	if (tres_pos >= 0 && preemptor->tres_req_cnt &&
	    preemptor->tres_req_cnt[tres_pos] != NO_CONSUME_VAL64)
		req = preemptor->tres_req_cnt[tres_pos];
	delta = (double)req * (double)or->contract.min_runtime;
	slurm_mutex_lock(&state_lock);
	up = (double)p->usage->usage_raw + committed_get(p->id);
	uv = (double)v->usage->usage_raw + committed_get(v->id);
	slurm_mutex_unlock(&state_lock);
	ok = sb_preempt_reclaim_ok(p->usage->shares_norm, up, delta,
				   v->usage->shares_norm, uv);
	if (!ok)
		snprintf(why, len, "reclaim rule: %s would be more over-used "
			 "than %s after the transfer (S %.4f / U %.0f+%.0f < "
			 "S %.4f / U %.0f)", p->acct, v->acct,
			 p->usage->shares_norm, up, delta,
			 v->usage->shares_norm, uv);
	assoc_mgr_unlock(&locks);
	return ok;
}

extern bool preempt_p_job_preempt_check(job_queue_rec_t *preemptor,
					job_queue_rec_t *preemptee)
{
	/* Called twice per comparison of Slurm's queue sort: the tag's
	 * allocated flag only, no full parse.  A job without a tag counts
	 * as allocated, as in job_contract(). */
	struct sb_contract a = { 0 }, b = { 0 };

	a.allocated = sb_contract_tag_allocated(preemptor->job_ptr->admin_comment);
	b.allocated = sb_contract_tag_allocated(preemptee->job_ptr->admin_comment);
	return sb_preempt_static(&a, &b);
}

extern bool preempt_p_preemptable(job_record_t *preemptee,
				  job_record_t *preemptor)
{
	struct sb_preempt_job or, ee;
	enum sb_preempt_verdict v;
	time_t now = time(NULL);
	char why[256];

	if (!IS_JOB_RUNNING(preemptee) || IS_JOB_COMPLETING(preemptee))
		return false;
	slurm_mutex_lock(&state_lock);
	job_view(preemptor, &or);
	job_view(preemptee, &ee);
	/* A victim already in its grace time is on its way out: let the
	 * preemptor count on its resources rather than take another. */
	if (preemptee->preempt_time)
		v = or.contract.allocated ? SB_PREEMPT_YES :
					    SB_PREEMPT_UNALLOCATED;
	else
		v = sb_preempt_check(&cfg.preempt, &or, &ee, now);
	last_preemptor_id = preemptor->job_id;
	last_preemptor_prio = preemptor->priority;
	slurm_mutex_unlock(&state_lock);
	if (v == SB_PREEMPT_YES && ee.contract.allocated &&
	    !preemptee->preempt_time &&
	    !reclaim_ok(preemptor, preemptee, &or, why, sizeof(why))) {
		debug2("%s: %pJ may not preempt %pJ: %s", plugin_type,
		       preemptor, preemptee, why);
		return false;
	}
	if (v == SB_PREEMPT_YES)
		debug("%s: %pJ may preempt %pJ (priority %u > %u, %s)",
		      plugin_type, preemptor, preemptee, or.priority,
		      ee.priority, ee.contract.allocated ?
		      "past its min runtime" : "unallocated");
	else
		debug2("%s: %pJ may not preempt %pJ: %s", plugin_type,
		       preemptor, preemptee, sb_preempt_verdict_str(v));
	return v == SB_PREEMPT_YES;
}

/* Remember a resumable victim in its grace time.  state_lock held. */
static void grace_track(uint32_t job_id)
{
	size_t i;

	for (i = 0; i < graced_n; i++)
		if (graced[i] == job_id)
			return;
	if (graced_n == graced_cap) {
		graced_cap = graced_cap ? 2 * graced_cap : 16;
		xrecalloc(graced, graced_cap, sizeof(*graced));
	}
	graced[graced_n++] = job_id;
}

/* SystemComment: why the job stopped (`sbudget show job`, sacct). */
static void set_reason(job_record_t *job_ptr, char *text)
{
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = text;
	last_job_update = time(NULL);	/* saved with the job state */
}

/* Slurm asks for the grace time exactly once per victim, when it starts
 * preempting it: record the preemptor there.  Job write lock held. */
static uint32_t victim_grace(job_record_t *job_ptr)
{
	uint32_t grace, by, by_prio;
	struct sb_contract c;
	time_t now = time(NULL);

	slurm_mutex_lock(&state_lock);
	grace = (uint32_t)cfg.preempt.grace_time;
	by = last_preemptor_id;
	by_prio = last_preemptor_prio;
	job_contract(job_ptr, &c);
	if (grace && c.resumable)
		grace_track(job_ptr->job_id);
	slurm_mutex_unlock(&state_lock);
	if (!job_ptr->preempt_time && by && by != job_ptr->job_id) {
		set_reason(job_ptr, xstrdup_printf(
			"budget:preempted_by=%u,at=%ld,preemptor_priority=%u,"
			"victim_priority=%u", by, (long)now, by_prio,
			job_ptr->priority));
		info("%s: preempting %pJ (%s, priority %u) for JobId=%u "
		     "(priority %u): %s, grace time %u s", plugin_type,
		     job_ptr, c.allocated ? "allocated, past its min runtime" :
		     "unallocated", job_ptr->priority, by, by_prio,
		     c.resumable ? "requeue" :
		     "cancel (not resumable)", grace);
	}
	return grace;
}

extern int preempt_p_get_data(job_record_t *job_ptr,
			      slurm_preempt_data_type_t data_type, void *data)
{
	struct sb_preempt_job j;
	struct sb_contract c;

	switch (data_type) {
	case PREEMPT_DATA_ENABLED:
		*(bool *)data = slurm_conf.preempt_mode != PREEMPT_MODE_OFF;
		return SLURM_SUCCESS;
	case PREEMPT_DATA_MODE:
		job_contract(job_ptr, &c);
		slurm_mutex_lock(&state_lock);
		switch (sb_preempt_action(&cfg.preempt, &c)) {
		case SB_ACTION_REQUEUE:
			*(uint16_t *)data = PREEMPT_MODE_REQUEUE;
			break;
		case SB_ACTION_CANCEL:
			*(uint16_t *)data = PREEMPT_MODE_CANCEL;
			break;
		default:
			*(uint16_t *)data = PREEMPT_MODE_OFF;
		}
		slurm_mutex_unlock(&state_lock);
		return SLURM_SUCCESS;
	case PREEMPT_DATA_PRIO:
		slurm_mutex_lock(&state_lock);
		job_view(job_ptr, &j);
		slurm_mutex_unlock(&state_lock);
		*(uint32_t *)data = sb_preempt_victim_key(&j, time(NULL));
		return SLURM_SUCCESS;
	case PREEMPT_DATA_GRACE_TIME:
		*(uint32_t *)data = victim_grace(job_ptr);
		return SLURM_SUCCESS;
	}
	error("%s: unknown preempt data type %d", plugin_type, data_type);
	return SLURM_ERROR;
}

/* Start stopping a running job for repair of @node: grace signal now,
 * requeue or cancel when the grace time is over (finish_graced()).
 * Job and node write locks held. */
static void release_for_repair(job_record_t *job_ptr, const char *node,
			       const char *reason, const struct sb_contract *c,
			       uint32_t grace, time_t now)
{
	set_reason(job_ptr, xstrdup_printf(
		"budget:released_for_repair=%s,at=%ld", node, (long)now));
	info("%s: releasing %pJ from %s, drained for repair ('%s'): it ran "
	     "its min runtime (%lld s); %s%s", plugin_type, job_ptr, node,
	     reason, (long long)c->min_runtime,
	     c->resumable ? "requeue" : "cancel (not resumable)",
	     grace ? " after the grace time" : "");
	job_ptr->preempt_time = now;
	job_ptr->end_time = MIN(job_ptr->end_time, now + (time_t)grace);
	if (grace) {
		job_signal(job_ptr, SIGCONT, 0, 0, 0);
		job_signal(job_ptr, SIGTERM, 0, 0, 0);
		if (c->resumable) {
			slurm_mutex_lock(&state_lock);
			grace_track(job_ptr->job_id);
			slurm_mutex_unlock(&state_lock);
		}
	} else {
		(void)slurm_job_preempt(job_ptr, NULL,
					slurm_job_preempt_mode(job_ptr), false);
	}
}

/* A running job whose protected slice ended since the last tick is now
 * preemptable, and a pending job whose begin time passed (a requeued job
 * waits cred_expire + 1 s) may now start, but nothing in Slurm's state
 * changed, and the schedulers skip cycles when nothing did (the main one
 * runs every sched_interval, 60 s): tell them.  Job write lock held. */
static void wake_schedulers(time_t last, time_t now)
{
	job_record_t *job_ptr;
	ListIterator it;
	int n = 0;

	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		struct sb_preempt_job j;
		int64_t until;

		if (IS_JOB_PENDING(job_ptr) && job_ptr->details &&
		    job_ptr->details->begin_time > last &&
		    job_ptr->details->begin_time <= now) {
			n++;
			continue;
		}
		if (!IS_JOB_RUNNING(job_ptr))
			continue;
		slurm_mutex_lock(&state_lock);
		job_view(job_ptr, &j);
		slurm_mutex_unlock(&state_lock);
		until = sb_preempt_protected_until(&j);
		if (until > last && until <= now) {
			debug("%s: %pJ ran its min runtime (%lld s): "
			      "preemptable from now on", plugin_type, job_ptr,
			      (long long)j.contract.min_runtime);
			n++;
		}
	}
	list_iterator_destroy(it);
	if (n) {
		last_job_update = now;
		queue_job_scheduler();
	}
}

/* Automated repair: every running job on a node drained for repair is
 * released once it has run its min runtime.  Job and node write locks. */
static void repair(time_t now)
{
	struct sb_preempt_policy pol;
	node_record_t *node_ptr;
	job_record_t *job_ptr;
	ListIterator it;
	int i;

	slurm_mutex_lock(&state_lock);
	pol = cfg.preempt;
	slurm_mutex_unlock(&state_lock);
	if (!pol.repair_reason[0])
		return;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (!IS_NODE_DRAIN(node_ptr) ||
		    !sb_repair_reason_matches(&pol, node_ptr->reason))
			continue;
		it = list_iterator_create(job_list);
		while ((job_ptr = list_next(it))) {
			struct sb_preempt_job j;

			if (!IS_JOB_RUNNING(job_ptr) ||
			    IS_JOB_COMPLETING(job_ptr) ||
			    job_ptr->preempt_time || !job_ptr->node_bitmap ||
			    !bit_test(job_ptr->node_bitmap, node_ptr->index))
				continue;
			slurm_mutex_lock(&state_lock);
			job_view(job_ptr, &j);
			slurm_mutex_unlock(&state_lock);
			if (now < sb_repair_release_at(&pol, &j))
				continue;
			release_for_repair(job_ptr, node_ptr->name,
					   node_ptr->reason, &j.contract,
					   (uint32_t)pol.grace_time, now);
		}
		list_iterator_destroy(it);
	}
}

/* Stop jobs whose grace time is over now, not at slurmctld's next
 * time-limit pass; requeue resumable ones that exited during it.
 * Job and node write locks held. */
static void finish_graced(time_t now)
{
	job_record_t *job_ptr;
	ListIterator it;
	size_t i, keep = 0;

	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		if (IS_JOB_RUNNING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
		    job_ptr->preempt_time && now >= job_ptr->end_time)
			(void)slurm_job_preempt(job_ptr, NULL,
						slurm_job_preempt_mode(job_ptr),
						false);
	}
	list_iterator_destroy(it);

	slurm_mutex_lock(&state_lock);
	for (i = 0; i < graced_n; i++) {
		uint32_t id = graced[i];

		job_ptr = find_job_record(id);
		if (!job_ptr || IS_JOB_PENDING(job_ptr))
			continue;	/* gone, or requeued: done */
		if (!job_ptr->preempt_time)
			continue;	/* requeued (reset to 0) and running
					 * again: that run was not graced */
		if (IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr)) {
			graced[keep++] = id;	/* not settled yet */
			continue;
		}
		if (IS_JOB_CANCELLED(job_ptr))
			continue;	/* scancel during the grace time: the
					 * user's (or admin's) word is final */
		slurm_mutex_unlock(&state_lock);
		if (job_requeue(0, id, NULL, true, 0) == SLURM_SUCCESS)
			info("%s: %pJ exited during its preemption grace time "
			     "and is resumable: requeued", plugin_type,
			     job_ptr);
		slurm_mutex_lock(&state_lock);
	}
	graced_n = keep;
	slurm_mutex_unlock(&state_lock);
}

static void *tick_loop(void *arg)
{
	slurmctld_lock_t locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				   .node = WRITE_LOCK, .part = READ_LOCK,
				   .fed = READ_LOCK };

	time_t last = time(NULL), now;
	bool stop;
	unsigned my_gen;

	(void)arg;
	slurm_mutex_lock(&state_lock);
	my_gen = generation;
	while (!stop_thread && my_gen == generation) {
		struct timespec ts = { .tv_sec = time(NULL) + 1 };

		pthread_cond_timedwait(&wake_cond, &state_lock, &ts);
		if (stop_thread || my_gen != generation)
			break;
		/* Not before read_slurm_conf() finished (the state-save thread,
		 * created after it and zeroed on leaving control: controller.c
		 * 760/798), not on a backup in standby, not while shutting
		 * down: then job_list, the node table and assoc_mgr are not
		 * (or no longer) this controller's to act on. */
		if (!slurmctld_config.thread_id_save ||
		    slurmctld_config.shutdown_time) {
			continue;	/* state_lock still held */
		}
		in_tick = true;
		slurm_mutex_unlock(&state_lock);
		refresh_config();
		lock_slurmctld(locks);
		slurm_mutex_lock(&state_lock);
		stop = stop_thread || my_gen != generation;
		slurm_mutex_unlock(&state_lock);
		if (stop || !job_list || !slurmctld_config.thread_id_save ||
		    slurmctld_config.shutdown_time) {
			unlock_slurmctld(locks);
			slurm_mutex_lock(&state_lock);
			if (my_gen == generation)
				in_tick = false;
			continue;
		}
		now = time(NULL);
		committed_refresh(now);
		wake_schedulers(last, now);
		repair(now);
		finish_graced(now);
		last = now;
		unlock_slurmctld(locks);
		slurm_mutex_lock(&state_lock);
		in_tick = false;
	}
	if (my_gen == generation)	/* not an earlier load's thread */
		thread_done = true;
	slurm_mutex_unlock(&state_lock);
	return NULL;
}

extern int init(void)
{
	char desc[512];

	sb_config_init(&cfg);
	if (budget_conf_load(&cfg, plugin_type) != SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&cfg_seen);
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	if (!(slurm_conf.preempt_mode & PREEMPT_MODE_REQUEUE))
		info("%s: PreemptMode is not REQUEUE: resumable victims are "
		     "still requeued (the plugin decides per job)",
		     plugin_type);
	verbose("%s loaded: %s", plugin_type,
		sb_config_describe(&cfg, desc, sizeof(desc)));
	{
		/* Pin this .so: fini() may detach a tick still waiting for
		 * the slurmctld locks, and dlclose() must not unmap it. */
		Dl_info self;

		if (dladdr((void *)tick_loop, &self) && self.dli_fname)
			(void)dlopen(self.dli_fname,
				     RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	}
	slurm_mutex_lock(&state_lock);
	generation++;
	stop_thread = thread_done = in_tick = false;
	slurm_mutex_unlock(&state_lock);
	slurm_thread_create(&tick_thread, tick_loop, NULL);
	thread_running = true;
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	if (thread_running) {
		bool busy;

		slurm_mutex_lock(&state_lock);
		stop_thread = true;
		pthread_cond_signal(&wake_cond);
		busy = in_tick && !thread_done;
		slurm_mutex_unlock(&state_lock);
		if (busy) {
			/* It may wait in lock_slurmctld() for locks our caller
			 * (read_slurm_conf(), PreemptType changed) holds:
			 * joining would deadlock slurmctld.  It sees
			 * stop_thread once it has them and exits; keep the
			 * code mapped until then (see init()). */
			pthread_detach(tick_thread);
			thread_running = false;
			return;	/* its state is freed by nobody: a few KB */
		}
		pthread_join(tick_thread, NULL);
		thread_running = false;
	}
	slurm_mutex_lock(&state_lock);
	xfree(graced);
	graced_n = graced_cap = 0;
	xfree(committed);
	committed_cap = 0;
	slurm_mutex_unlock(&state_lock);
}
