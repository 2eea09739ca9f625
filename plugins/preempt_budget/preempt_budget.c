/*
 * preempt_budget.c - preempt/budget: the minimum-runtime contract made real.
 *
 * Slurm asks this plugin these things (src/interfaces/preempt.c):
 *   - preempt_p_job_preempt_check: the static relation used to sort the
 *     pending queue: an allocated job goes before an unallocated one (a job
 *     without a valid contract tag is unallocated, sb/view.h);
 *   - preempt_p_preemptable: may this pending job take that running job's
 *     resources now?  The verdict is the core's sb_preempt_decide()
 *     (sb/view.h): only allocated jobs preempt; a victim in its grace time
 *     is on its way out; unallocated victims any time; allocated victims
 *     only past start + min runtime, only for a job of higher priority than
 *     the victim's *current* one, and, between two budgets, only if the
 *     reclaim rule holds where their paths diverge;
 *   - preempt_p_get_prio, _get_mode, _get_grace_time (one
 *     preempt_p_get_data before 25.11, SB_DEFINE_PREEMPT_DATA in
 *     slurm_compat.h): the victim order (PRIO: sb_preempt_victim_key:
 *     unallocated first, then resumable, then least work lost, then lowest
 *     standing), what happens to a victim (MODE, sb_preempt_action():
 *     REQUEUE if resumable, REQUEUE too for a non-resumable batch job that
 *     allows requeue (it restarts from its beginning), CANCEL for
 *     --no-requeue and interactive jobs, never with
 *     PreemptNonResumable=keep), and the grace time (sb_preempt_grace():
 *     PreemptGraceTime of SIGTERM for an allocated resumable victim, so it
 *     can checkpoint; none for the others).  Slurm's select plugin takes victims
 *     in that order only until the preemptor fits, and preempts nothing if
 *     it cannot fit.
 *
 * The budget state (tree, standing, the view with charged and committed
 * usage) is priority/budget's.  This plugin reaches it only through the
 * operations table priority_budget.so exports (budget_ops.h): the verdict,
 * the victim key and the committed refresh go through it.
 *
 * Without priority/budget (PriorityType is something else, or its table is
 * missing or of another version) the plugin degrades, and says so once in
 * the log: there is no standing to compare budgets with, so
 *   - allocated jobs still preempt unallocated ones at once, as always;
 *   - an allocated job never preempts another allocated job
 *     (sb_preempt_decide() without a view: SB_PREEMPT_NOVIEW);
 *   - victims are ordered unallocated first, then resumable, then least
 *     work lost (the victim key without a standing level: the priority is
 *     another plugin's and means nothing here);
 *   - repair, grace ends and scheduler wake-ups work as usual.
 *
 * A thread (every second) does what Slurm does not:
 *   - refreshes priority/budget's committed usage from the running jobs;
 *   - automated repair: a job on a node drained with a reason matching
 *     RepairReason is released once it has run its min runtime (requeued
 *     or cancelled as a victim would be), so the node reaches DRAINED
 *     without anyone asking;
 *   - it wakes the schedulers when a protected slice ends or a requeued
 *     job's begin time passes (they skip cycles in which nothing changed);
 *   - it warns the user of an interactive job (salloc, srun outside a
 *     batch job: never resumable, so a preemption loses the session)
 *     InteractiveWarning before the job's protected slice ends, once per
 *     run, with a message to its salloc/srun (what `scontrol notify`
 *     sends; sb_preempt_warn_due() says when);
 *   - it completes preemptions whose grace time is over at once, rather
 *     than at slurmctld's next 30 s time-limit pass;
 *   - a resumable victim that exits by itself during its grace time (say,
 *     after writing its checkpoint) is requeued all the same: resumable
 *     means it may be restarted at any moment;
 *   - an allocated job pending behind an association or QOS limit that
 *     unallocated jobs fill gets just enough of them released (Slurm's
 *     preemption never looks at limits; "limits" below).
 * Each tick walks job_list once under the job and node *read* locks, and
 * takes the write locks only when that walk found something to write
 * (a release for repair or for a limit, a grace time over, a requeue, a
 * scheduler wake-up); only when it saw an allocated job pending for a limit
 * does it walk job_list a second time (the running jobs) under the
 * assoc_mgr read locks too.
 * The lock hold time per tick is logged at verbose level every 60 ticks
 * (tick_stats.h; doc/benchmarks.md).
 * Each victim's SystemComment records why it stopped:
 *   budget:preempted_by=<jobid>,at=<epoch>,preemptor_priority=<u32>,victim_priority=<u32>
 *   budget:released_for_repair=<node>,at=<epoch>
 *
 * Locks.  Order: slurmctld locks, then priority/budget's state_lock (taken
 * inside the operations table), or this plugin's state_lock; the two
 * plugins' mutexes are never held together: this plugin copies what it
 * needs out of its state_lock before calling the table.
 */
#define _GNU_SOURCE	/* dladdr, RTLD_NODELETE, pthread_setname_np */
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

const char plugin_name[] = "Preempt by budget and minimum runtime";
const char plugin_type[] = "preempt/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define PARTNER "priority/budget"
#define PARTNER_SO "priority_budget.so"

/* Ownership: every static below is guarded by state_lock. */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond = PTHREAD_COND_INITIALIZER;
static struct sb_config cfg;
static struct budget_conf_seen cfg_seen;
static char *keep_pending;	/* text init() parsed, for budget_conf_keep() */
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
/* Where the next tick's window of limit-blocked jobs starts (limits_tick()). */
static size_t limit_window;
/* Blocked jobs that jobs were last released for, and when (a ring): a job that
 * got its room but did not start (its nodes are held by protected work)
 * gets no second release within LIMIT_BACKOFF seconds, so released jobs
 * that start again on other nodes are not requeued over and over. */
#define LIMIT_HELPED_MAX 64
#define LIMIT_BACKOFF 60
static struct { uint32_t job_id; time_t at; } limit_helped[LIMIT_HELPED_MAX];
static size_t limit_helped_next;
/* Resumable victims inside their grace time, to requeue if they exit. */
static struct grace_list graced;
/* priority/budget's table (budget_ops.h), NULL: degraded.  Written only by
 * the tick under the slurmctld conf+job read locks (partner_refresh());
 * never unmapped (RTLD_NODELETE), so a copy of the pointer stays valid. */
static const struct sb_budget_ops *ops;
static time_t ops_conf_update = -1;	/* slurm_conf.last_update looked up at */
static bool ops_missing_logged;
static unsigned ops_misses;	/* ticks without finding a loaded copy */
/* Seconds a requeued victim waits before it may start again (the
 * preemption cost counts it, sb/view.h): Slurm's credential lifetime + 1,
 * read from slurm_conf by the tick (sb_requeue_delay_of_authinfo()). */
static int64_t requeue_delay = SB_REQUEUE_DELAY_DEFAULT;

/* Ticks to wait for priority_budget.so to be loaded before saying that it
 * cannot be found (slurmctld loads it after this plugin). */
#define OPS_MISSES_MAX 30

/* ------------------------------------------------------------- partner */

/* priority/budget's table in the already loaded @path, or NULL (why in
 * @err).  Never loads anything (RTLD_NOLOAD). */
static const struct sb_budget_ops *ops_in(const char *path, char *err,
					  size_t len)
{
	const struct sb_budget_ops *o;
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);

	if (!h)
		return NULL;	/* not loaded from there: not an error */
	o = dlsym(h, SB_BUDGET_OPS_SYMBOL);
	dlclose(h);	/* NODELETE keeps it mapped; slurmctld holds it */
	if (!o) {
		snprintf(err, len, "%s has no %s (built before the table "
			 "existed?)", path, SB_BUDGET_OPS_SYMBOL);
		return NULL;
	}
	if (o->version != SB_BUDGET_OPS_VERSION ||
	    o->size != sizeof(struct sb_budget_ops) ||
	    o->slurm_version != SLURM_VERSION_NUMBER) {
		snprintf(err, len, "%s exports table version %u (size %u, "
			 "Slurm 0x%x); this plugin needs version %u (size %zu, "
			 "Slurm 0x%x): install both plugins from one build",
			 path, o->version, o->size, o->slurm_version,
			 SB_BUDGET_OPS_VERSION, sizeof(struct sb_budget_ops),
			 (unsigned)SLURM_VERSION_NUMBER);
		return NULL;
	}
	return o;
}

/*
 * Find priority/budget's table: beside our own .so first, then in each
 * PluginDir entry.  Return: the table, or NULL with the reason in @err
 * ("" when it simply is not loaded from any of those places).
 * slurm_conf read lock held.
 */
static const struct sb_budget_ops *budget_ops_find(char *err, size_t len)
{
	const struct sb_budget_ops *o = NULL;
	char *dirs = NULL, *dir, *save = NULL, *path;
	Dl_info self;

	err[0] = '\0';
	if (dladdr((void *)budget_ops_find, &self) && self.dli_fname &&
	    strrchr(self.dli_fname, '/')) {
		path = xstrdup(self.dli_fname);
		*strrchr(path, '/') = '\0';
		xstrcat(path, "/" PARTNER_SO);
		o = ops_in(path, err, len);
		xfree(path);
	}
	if (!o && !err[0] && slurm_conf.plugindir) {
		dirs = xstrdup(slurm_conf.plugindir);
		for (dir = strtok_r(dirs, ":", &save); dir && !o && !err[0];
		     dir = strtok_r(NULL, ":", &save)) {
			path = xstrdup_printf("%s/%s", dir, PARTNER_SO);
			o = ops_in(path, err, len);
			xfree(path);
		}
		xfree(dirs);
	}
	return o;
}

/*
 * Look the table up again after a reconfigure, and every tick while
 * PriorityType is priority/budget but its table was not found (slurmctld
 * loads the priority plugin after this one).  Tick only; slurmctld conf and
 * job read locks held (preempt_p_* run under the job write lock, so they
 * never see the pointer change under them).
 */
static void partner_refresh(void)
{
	const struct sb_budget_ops *o = NULL;
	char err[512];

	if (ops_conf_update == slurm_conf.last_update && ops)
		return;
	if (ops_conf_update != slurm_conf.last_update) {
		ops_missing_logged = false;
		ops_misses = 0;
	}
	ops_conf_update = slurm_conf.last_update;
	if (!xstrcmp(slurm_conf.priority_type, PARTNER)) {
		o = budget_ops_find(err, sizeof(err));
		if (!o && !err[0] && ++ops_misses >= OPS_MISSES_MAX)
			snprintf(err, sizeof(err), "PriorityType is %s, but no "
				 "loaded %s was found beside this plugin or in "
				 "PluginDir", PARTNER, PARTNER_SO);
		if (!o && err[0] && !ops_missing_logged) {
			error("%s: %s; working as without %s (allocated jobs "
			      "never preempt allocated ones)", plugin_type,
			      err, PARTNER);
			ops_missing_logged = true;
		}
	}
	slurm_mutex_lock(&state_lock);
	if (o && !ops)
		info("%s: using %s's budget view (table %s)", plugin_type,
		     PARTNER, SB_BUDGET_OPS_SYMBOL);
	ops = o;
	slurm_mutex_unlock(&state_lock);
}

/* ------------------------------------------------------ Slurm's questions */

extern bool preempt_p_job_preempt_check(job_queue_rec_t *preemptor,
					job_queue_rec_t *preemptee)
{
	/* Called twice per comparison of Slurm's queue sort: the tag's
	 * allocated flag only, no full parse; a job without a valid tag is
	 * unallocated, as sb_contract_of_job() says. */
	struct sb_contract a = { 0 }, b = { 0 };

	a.allocated = sb_contract_job_allocated(preemptor->job_ptr->admin_comment);
	b.allocated = sb_contract_job_allocated(preemptee->job_ptr->admin_comment);
	return sb_preempt_static(&a, &b);
}

extern bool preempt_p_preemptable(job_record_t *preemptee,
				  job_record_t *preemptor)
{
	const struct sb_budget_ops *o;
	struct sb_preempt_policy pol;
	struct sb_preempt_party p, v;
	enum sb_preempt_verdict vd;
	time_t now = time(NULL);
	char why[256];
	int pos;

	if (!IS_JOB_RUNNING(preemptee) || IS_JOB_COMPLETING(preemptee))
		return false;
	slurm_mutex_lock(&state_lock);
	pol = cfg.preempt;
	pol.requeue_delay = requeue_delay;
	pos = tres_pos;
	o = ops;
	last_preemptor_id = preemptor->job_id;
	last_preemptor_prio = preemptor->priority;
	slurm_mutex_unlock(&state_lock);
	if (o) {
		vd = o->decide(&pol, preemptor, preemptee, now, why,
			       sizeof(why));
	} else {	/* without priority/budget: no view */
		budget_job_party(preemptor, pos, &p);
		budget_job_party(preemptee, pos, &v);
		vd = sb_preempt_decide(&pol, NULL, &p, &v, now, why,
				       sizeof(why));
	}
	if (vd == SB_PREEMPT_YES)
		debug("%s: %pJ may preempt %pJ (priority %u, victim's %u): %s",
		      plugin_type, preemptor, preemptee, preemptor->priority,
		      preemptee->priority, why);
	else
		debug2("%s: %pJ may not preempt %pJ: %s", plugin_type,
		       preemptor, preemptee, why);
	return vd == SB_PREEMPT_YES;
}

/* Remember a resumable victim in its grace time.  state_lock held. */
static void grace_track(uint32_t job_id)
{
	if (grace_list_add(&graced, job_id) < 0)
		error("%s: out of memory: JobId=%u is not requeued if it exits "
		      "during its grace time", plugin_type, job_id);
}

/*
 * Why the job stopped (`sbudget show job`), a stop note (sb/view.h): the
 * SystemComment becomes @text (taken over), and the AdminComment keeps its
 * contract tag and other text with the stop notes of @text at its end in
 * place of earlier ones (sb_note_merge()).  The SystemComment stays in
 * slurmctld: on no supported release (22.05 to 26.05) does slurmctld send
 * it to slurmdbd; the AdminComment goes with every completion record
 * (jobacct_storage_p_job_complete, accounting_storage/slurmdbd), so the
 * record of the run stopped here carries the note (sacct -D -o
 * AdminComment).  Out of memory aborts in xmalloc, as everywhere in
 * slurmctld.
 */
static void set_reason(job_record_t *job_ptr, char *text)
{
	size_t n = sb_note_merge(job_ptr->admin_comment, text, NULL, 0);
	char *admin = xmalloc(n + 1);

	(void)sb_note_merge(job_ptr->admin_comment, text, admin, n + 1);
	xfree(job_ptr->admin_comment);
	job_ptr->admin_comment = admin;
	xfree(job_ptr->system_comment);
	job_ptr->system_comment = text;
	last_job_update = time(NULL);	/* saved with the job state */
}

/* Slurm asks for the grace time exactly once per victim, when it starts
 * preempting it: record the preemptor there.  Job write lock held. */
static uint32_t victim_grace(job_record_t *job_ptr)
{
	uint32_t grace, by, by_prio;
	enum sb_preempt_action act;
	struct sb_contract c;
	time_t now = time(NULL);

	(void)budget_job_contract(job_ptr, &c);
	slurm_mutex_lock(&state_lock);
	/* only an allocated resumable victim has a checkpoint to write */
	grace = (uint32_t)sb_preempt_grace(&cfg.preempt, &c);
	act = sb_preempt_action(&cfg.preempt, &c);
	by = last_preemptor_id;
	by_prio = last_preemptor_prio;
	if (grace && act == SB_ACTION_REQUEUE)
		grace_track(job_ptr->job_id);
	slurm_mutex_unlock(&state_lock);
	if (!job_ptr->preempt_time && by && by != job_ptr->job_id) {
		set_reason(job_ptr, xstrdup_printf(
			"budget:preempted_by=%u,at=%ld,preemptor_priority=%u,"
			"victim_priority=%u", by, (long)now, by_prio,
			job_ptr->priority));
		info("%s: preempting %pJ (%s, priority %u) for JobId=%u "
		     "(priority %u): %s%s, grace time %u s%s", plugin_type,
		     job_ptr, c.allocated ? "allocated, past its min runtime" :
		     "unallocated", job_ptr->priority, by, by_prio,
		     sb_preempt_action_str(act),
		     act == SB_ACTION_CANCEL && !c.requeueable ?
		     (job_ptr->batch_flag ? ": --no-requeue" :
		      ": not a batch job") : "", grace,
		     grace ? "" : act != SB_ACTION_REQUEUE ?
		     " (not resumable: none)" : !c.allocated ?
		     " (unallocated: none)" : "");
	}
	return grace;
}

/* The victim order key (sb_preempt_victim_key()).  Without priority/budget
 * the job's priority is another plugin's: the key leaves the standing level
 * out (0), so victims go unallocated first, then resumable, then least work
 * lost. */
static uint32_t victim_key(job_record_t *job_ptr)
{
	const struct sb_budget_ops *o;
	struct sb_preempt_party v;
	time_t now = time(NULL);
	int pos;

	slurm_mutex_lock(&state_lock);
	o = ops;
	pos = tres_pos;
	slurm_mutex_unlock(&state_lock);
	if (o)
		return o->victim_key(job_ptr, now);
	budget_job_party(job_ptr, pos, &v);
	v.job.priority = 0;
	return sb_preempt_victim_key(&v.job, now);
}

/* The PreemptMode that stops @job_ptr: its contract's action. */
static uint16_t preempt_mode(job_record_t *job_ptr)
{
	struct sb_contract c;
	uint16_t mode;

	(void)budget_job_contract(job_ptr, &c);
	slurm_mutex_lock(&state_lock);
	switch (sb_preempt_action(&cfg.preempt, &c)) {
	case SB_ACTION_REQUEUE:	/* resumes its work */
	case SB_ACTION_RESTART:	/* starts over: same to Slurm */
		mode = PREEMPT_MODE_REQUEUE;
		break;
	case SB_ACTION_CANCEL:
		mode = PREEMPT_MODE_CANCEL;
		break;
	case SB_ACTION_NONE:
	default:
		mode = PREEMPT_MODE_OFF;
	}
	slurm_mutex_unlock(&state_lock);
	return mode;
}

/* preempt_p_get_mode/_prio/_grace_time (25.11+) or preempt_p_get_data. */
SB_DEFINE_PREEMPT_DATA(preempt_mode, victim_key, victim_grace)

/* ---------------------------------------------------------------- tick */

static bool tick_off(unsigned my_gen);

/*
 * Re-read budget.conf after a reconfigure (budget_conf_refresh()).  What
 * it needs from slurm_conf is copied under the slurmctld conf read lock
 * alone; the file is read and parsed, and the last valid copy written,
 * with no lock held; the new settings are swapped in under state_lock.
 * The last valid copy is priority/budget's to keep; this tick keeps it
 * only when PriorityType is something else.  Tick only.
 */
static void refresh_config(unsigned my_gen)
{
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	struct budget_conf_env env;
	struct budget_conf_seen seen;
	struct sb_config next;
	char charge[sizeof(cfg.charge_tres)], *parsed = NULL, *pending;
	bool keeper;
	int pos, r;

	lock_slurmctld(conf_read);
	if (tick_off(my_gen)) {
		unlock_slurmctld(conf_read);
		return;
	}
	budget_conf_env_get(&env);
	keeper = xstrcmp(slurm_conf.priority_type, PARTNER) != 0;
	unlock_slurmctld(conf_read);

	slurm_mutex_lock(&state_lock);
	seen = cfg_seen;
	slurm_mutex_unlock(&state_lock);
	r = budget_conf_refresh(&env, &seen, &next, keeper ? &parsed : NULL,
				plugin_type);
	slurm_mutex_lock(&state_lock);
	pending = keep_pending;
	keep_pending = NULL;
	if (my_gen == generation) {	/* not a detached earlier load's tick */
		cfg_seen = seen;
		if (r == 1)
			cfg = next;
		if (r != 0)
			tres_pos = -2;	/* ChargeTRES or the TRES may differ */
	}
	pos = tres_pos;
	memcpy(charge, cfg.charge_tres, sizeof(charge));
	slurm_mutex_unlock(&state_lock);
	if (keeper)
		budget_conf_keep(&env, parsed ? parsed : pending, plugin_type);
	xfree(parsed);
	xfree(pending);
	budget_conf_env_free(&env);
	/* -1 too: assoc_mgr may not have had its TRES yet (retried each
	 * tick until it has; the tick runs only once slurmctld is up). */
	if (pos < 0) {
		pos = budget_tres_pos(charge);
		slurm_mutex_lock(&state_lock);
		if (my_gen == generation)
			tres_pos = pos;
		slurm_mutex_unlock(&state_lock);
	}
}

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

static struct tick_action *work_add(struct tick_work *w, uint32_t job_id,
				     enum tick_act what, int node)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 16;
		xrecalloc(w->a, w->cap, sizeof(*w->a));
	}
	w->a[w->n] = (struct tick_action){ .job_id = job_id, .what = what,
					   .node = node };
	return &w->a[w->n++];
}

/* Nodes drained for repair (RepairReason), or NULL when there are none.
 * Node read lock held. */
static bitstr_t *repair_nodes(const struct sb_preempt_policy *pol)
{
	node_record_t *node_ptr;
	bitstr_t *b = NULL;
	int i;

	if (!pol->repair_reason[0])
		return NULL;
	for (i = 0; (node_ptr = next_node(&i)); i++) {
		if (!IS_NODE_DRAIN(node_ptr) ||
		    !sb_repair_reason_matches(pol, node_ptr->reason))
			continue;
		if (!b)
			b = bit_alloc(node_record_count);
		bit_set(b, node_ptr->index);
	}
	return b;
}

/* The first node of @job_ptr drained for repair, -1 if none. */
static int repair_node_of(const job_record_t *job_ptr, bitstr_t *repair)
{
	int i, last;

	if (!repair || !job_ptr->node_bitmap ||
	    !bit_overlap_any(job_ptr->node_bitmap, repair))
		return -1;
	last = bit_fls(job_ptr->node_bitmap);
	for (i = bit_ffs(job_ptr->node_bitmap); i >= 0 && i <= last; i++)
		if (bit_test(job_ptr->node_bitmap, i) && bit_test(repair, i))
			return i;
	return -1;
}

/* -------------------------------------------------------------- limits */

/*
 * Slurm limits (doc/design.md, "Slurm limits"): association and QOS
 * limits count unallocated jobs, and Slurm's preemption never looks at
 * limits, so an allocated job pending behind a limit that unallocated jobs
 * fill would wait for them to end.  The tick gathers, for each such job,
 * the limits it is short of and the running jobs that count against them;
 * the core (sb_limit_release(), sb/limits.h) says which unallocated jobs
 * to release; the write pass preempts them as Slurm would (requeue or
 * cancel, PreemptGraceTime) for the blocked job.  Counted: GrpTRES (every
 * TRES but node, whose use is a node bitmap, not a sum) and GrpJobs of
 * the job's association and each ancestor, of its QOS and of its
 * partition's QOS, and those QOSes' MaxTRES/MaxJobs PerUser and
 * PerAccount.  Time limits (GrpTRESMins, GrpTRESRunMins, GrpWall) and an
 * association's own MaxJobs are not handled.
 */

/* Allocated jobs pending behind a limit looked at per tick: a window of
 * the list sorted by priority that moves on by this much every tick, so
 * every blocked job is looked at within ceil(n / LIMIT_JOBS_MAX) ticks
 * even when the first ones can never be helped (the control case). */
#define LIMIT_JOBS_MAX 16
/* Association levels walked up (the tree is never this deep). */
#define LIMIT_DEPTH_MAX 64

/* Where one limit of a blocked job is set and what it counts. */
enum limit_scope {
	SCOPE_GRP,	/* Grp*: every job of the association subtree / QOS */
	SCOPE_USER,	/* QOS MaxTRESPerUser, MaxJobsPerUser: @uid's jobs */
	SCOPE_ACCT,	/* QOS MaxTRESPerAccount, MaxJobsPerAccount: @acct's */
};
struct limit_src {
	slurmdb_assoc_rec_t *assoc;	/* on this association, or */
	slurmdb_qos_rec_t *qos;		/* on this QOS */
	int pos;			/* TRES position; -1: jobs */
	enum limit_scope scope;		/* SCOPE_GRP for an association */
	uint32_t uid;			/* SCOPE_USER */
	const char *acct;		/* SCOPE_ACCT (assoc_mgr's string) */
};

/* The gathered limits of one blocked job. */
struct limit_set {
	struct limit_src src[SB_LIMIT_MAX];
	struct sb_limit lim[SB_LIMIT_MAX];
	size_t n;
};

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* Whether a pending job's reason is an association or QOS Grp limit, or
 * a QOS Max limit (AssocGrpGRES, QOSGrpJobsLimit, QOSMaxGRESPerUser, ...;
 * limits_of() then finds which, if any, it handles). */
static bool limit_reason(uint32_t reason)
{
	const char *r = sb_job_reason_string(reason);

	return starts_with(r, "AssocGrp") || starts_with(r, "QOSGrp") ||
	       starts_with(r, "QOSMax");
}

/* Add the limits of one kind (@at: where and for whom) that @job_ptr is
 * short of (or exceeds alone): @caps/@used per TRES, @max_jobs/@used_jobs.
 * assoc_mgr assoc, qos and tres read locks held. */
static void limits_add(struct limit_set *ls, const job_record_t *job_ptr,
		       const struct limit_src *at,
		       const uint64_t *caps, const uint64_t *used,
		       uint32_t grp_jobs, uint32_t used_jobs)
{
	uint32_t pos;

	for (pos = 0; caps && job_ptr->tres_req_cnt && pos < g_tres_count;
	     pos++) {
		uint64_t cap = caps[pos], want = job_ptr->tres_req_cnt[pos];
		uint64_t u = used ? used[pos] : 0;

		if (pos == TRES_ARRAY_NODE || cap == INFINITE64 ||
		    cap == NO_VAL64 || !want || want == NO_CONSUME_VAL64 ||
		    want == INFINITE64 || (want <= cap && u <= cap - want))
			continue;
		if (ls->n == SB_LIMIT_MAX)
			return;
		ls->src[ls->n] = *at;
		ls->src[ls->n].pos = (int)pos;
		ls->lim[ls->n++] = (struct sb_limit){ cap, u, want };
	}
	if (grp_jobs != INFINITE && grp_jobs != NO_VAL &&
	    used_jobs >= grp_jobs && ls->n < SB_LIMIT_MAX) {
		ls->src[ls->n] = *at;
		ls->src[ls->n].pos = -1;
		ls->lim[ls->n++] = (struct sb_limit){ grp_jobs, used_jobs, 1 };
	}
}

/* The QOSes whose limits count @job_ptr: its own and its partition's
 * (the same one once). */
static void job_qoses(const job_record_t *job_ptr, slurmdb_qos_rec_t *q[2])
{
	q[0] = job_ptr->qos_ptr;
	q[1] = job_ptr->part_ptr ? job_ptr->part_ptr->qos_ptr : NULL;
	if (q[1] == q[0])
		q[1] = NULL;
}

static int find_uid(void *x, void *key)
{
	return ((slurmdb_used_limits_t *)x)->uid == *(uint32_t *)key;
}

static int find_acct(void *x, void *key)
{
	return !xstrcmp(((slurmdb_used_limits_t *)x)->acct, (char *)key);
}

/* Every limit @job_ptr is short of: Grp limits of its association and
 * each parent, Grp and per-user / per-account limits of its QOS and its
 * partition's QOS.  assoc_mgr locks held. */
static void limits_of(const job_record_t *job_ptr, struct limit_set *ls)
{
	slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr;
	slurmdb_used_limits_t *ul;
	slurmdb_qos_rec_t *q[2];
	struct limit_src at;
	uint32_t uid = job_ptr->user_id;
	int depth, i;

	ls->n = 0;
	for (depth = 0; a && a->usage && depth < LIMIT_DEPTH_MAX; depth++) {
		at = (struct limit_src){ .assoc = a, .scope = SCOPE_GRP };
		limits_add(ls, job_ptr, &at, a->grp_tres_ctld,
			   a->usage->grp_used_tres, a->grp_jobs,
			   a->usage->used_jobs);
		a = a->usage->parent_assoc_ptr;
	}
	job_qoses(job_ptr, q);
	for (i = 0; i < 2; i++) {
		if (!q[i] || !q[i]->usage)
			continue;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_GRP };
		limits_add(ls, job_ptr, &at, q[i]->grp_tres_ctld,
			   q[i]->usage->grp_used_tres, q[i]->grp_jobs,
			   q[i]->usage->grp_used_jobs);
		ul = q[i]->usage->user_limit_list ?
			list_find_first(q[i]->usage->user_limit_list,
					find_uid, &uid) : NULL;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_USER,
					 .uid = uid };
		limits_add(ls, job_ptr, &at, q[i]->max_tres_pu_ctld,
			   ul ? ul->tres : NULL, q[i]->max_jobs_pu,
			   ul ? ul->jobs : 0);
		if (!job_ptr->assoc_ptr || !job_ptr->assoc_ptr->acct)
			continue;
		ul = q[i]->usage->acct_limit_list ?
			list_find_first(q[i]->usage->acct_limit_list,
					find_acct, job_ptr->assoc_ptr->acct) :
			NULL;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_ACCT,
					 .acct = job_ptr->assoc_ptr->acct };
		limits_add(ls, job_ptr, &at, q[i]->max_tres_pa_ctld,
			   ul ? ul->tres : NULL, q[i]->max_jobs_pa,
			   ul ? ul->jobs : 0);
	}
}

/* What running @job_ptr holds against limit @src (0: it does not count
 * there).  assoc_mgr locks held. */
static uint64_t limit_held(const job_record_t *job_ptr,
			   const struct limit_src *src)
{
	bool counts = false;

	if (src->assoc) {
		slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr;
		int depth;

		for (depth = 0; a && !counts && depth < LIMIT_DEPTH_MAX;
		     depth++) {
			counts = a == src->assoc;
			a = a->usage ? a->usage->parent_assoc_ptr : NULL;
		}
	} else {
		slurmdb_qos_rec_t *q[2];

		job_qoses(job_ptr, q);
		counts = src->qos && (q[0] == src->qos || q[1] == src->qos);
		if (src->scope == SCOPE_USER)
			counts = counts && job_ptr->user_id == src->uid;
		else if (src->scope == SCOPE_ACCT)
			counts = counts && job_ptr->assoc_ptr &&
				 !xstrcmp(job_ptr->assoc_ptr->acct, src->acct);
	}
	if (!counts)
		return 0;
	if (src->pos < 0)
		return 1;
	if (!job_ptr->tres_alloc_cnt ||
	    job_ptr->tres_alloc_cnt[src->pos] == NO_CONSUME_VAL64 ||
	    job_ptr->tres_alloc_cnt[src->pos] == INFINITE64)
		return 0;
	return job_ptr->tres_alloc_cnt[src->pos];
}

/* "association phys-a GrpTRES gres/gpu=8 (8 in use, the job wants 8)".
 * assoc_mgr locks held. */
static void limit_describe(const struct limit_src *src,
			   const struct sb_limit *l, char *buf, size_t len)
{
	const char *tres = src->pos < 0 ? NULL :
		(assoc_mgr_tres_name_array && assoc_mgr_tres_name_array[src->pos]) ?
		assoc_mgr_tres_name_array[src->pos] : "?";
	static const char *const kind[][2] = {
		[SCOPE_GRP] = { "GrpTRES", "GrpJobs" },
		[SCOPE_USER] = { "MaxTRESPerUser", "MaxJobsPerUser" },
		[SCOPE_ACCT] = { "MaxTRESPerAccount", "MaxJobsPerAccount" },
	};
	char who[96];

	if (src->assoc)
		snprintf(who, sizeof(who), "association %s%s%s",
			 src->assoc->acct ? src->assoc->acct : "?",
			 src->assoc->user ? "/" : "",
			 src->assoc->user ? src->assoc->user : "");
	else
		snprintf(who, sizeof(who), "QOS %s",
			 src->qos && src->qos->name ? src->qos->name : "?");
	if (tres)
		snprintf(buf, len, "%s %s %s=%llu (%llu in use, the job "
			 "wants %llu)", who, kind[src->scope][0], tres,
			 (unsigned long long)l->cap,
			 (unsigned long long)l->used,
			 (unsigned long long)l->want);
	else
		snprintf(buf, len, "%s %s=%llu (%llu running)", who,
			 kind[src->scope][1], (unsigned long long)l->cap,
			 (unsigned long long)l->used);
}

/* Highest priority first. */
static int blocked_cmp(const void *a, const void *b)
{
	const job_record_t *x = *(job_record_t *const *)a;
	const job_record_t *y = *(job_record_t *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* Whether jobs were released for blocked job @job_id less than
 * LIMIT_BACKOFF seconds before @now. */
static bool limit_recently_helped(uint32_t job_id, time_t now)
{
	bool recent = false;
	size_t i;

	slurm_mutex_lock(&state_lock);
	for (i = 0; i < LIMIT_HELPED_MAX && !recent; i++)
		recent = limit_helped[i].job_id == job_id &&
			 now - limit_helped[i].at < LIMIT_BACKOFF;
	slurm_mutex_unlock(&state_lock);
	if (recent)
		debug("%s: JobId=%u still pends behind a limit less than %d s "
		      "after jobs were released for it: not again yet",
		      plugin_type, job_id, LIMIT_BACKOFF);
	return recent;
}

/* Whether @id is in @ids (@n entries). */
static bool id_in(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/*
 * For allocated jobs in @blocked (@nb) pending behind a limit (highest
 * priority first, at most LIMIT_JOBS_MAX from limit_window on),
 * ask the core which unallocated jobs to release, and queue ACT_LIMIT for
 * each.  A job chosen for one blocked job counts as leaving for the next
 * ones.  The running jobs are collected once (one walk of job_list) and
 * offered to each blocked job.  Conf, job and node read locks held; takes
 * the assoc_mgr read locks.
 */
static void limits_tick(job_record_t **blocked, size_t nb,
			const struct sb_preempt_policy *pol, time_t now,
			struct tick_work *w)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	struct limit_set ls;
	struct sb_limit_holder *h = NULL;
	uint64_t *holds = NULL;
	uint32_t *ids = NULL, taken[64];
	size_t *chosen = NULL, cap = 0, nh, nchosen, ntaken = 0, b, i, k;
	size_t nrun = 0, rcap = 0, r, first, looked;
	job_record_t *job_ptr, **run = NULL;
	ListIterator it;
	int pos;

	qsort(blocked, nb, sizeof(*blocked), blocked_cmp);
	looked = nb > LIMIT_JOBS_MAX ? LIMIT_JOBS_MAX : nb;
	slurm_mutex_lock(&state_lock);
	pos = tres_pos;
	first = nb > LIMIT_JOBS_MAX ? limit_window % nb : 0;
	limit_window = first + looked;
	slurm_mutex_unlock(&state_lock);
	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		if (!IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr))
			continue;
		if (nrun == rcap) {
			rcap = rcap ? 2 * rcap : 64;
			xrecalloc(run, rcap, sizeof(*run));
		}
		run[nrun++] = job_ptr;
	}
	list_iterator_destroy(it);
	assoc_mgr_lock(&locks);
	for (k = 0; k < looked; k++) {
		struct sb_preempt_party bp;
		char why[256], what[192];
		int v;

		b = (first + k) % nb;
		if (limit_recently_helped(blocked[b]->job_id, now))
			continue;
		limits_of(blocked[b], &ls);
		if (!ls.n)
			continue;	/* a limit this tick does not count */
		budget_job_party(blocked[b], pos, &bp);
		nh = 0;
		for (r = 0; r < nrun; r++) {
			bool any = false;

			job_ptr = run[r];
			if (nh == cap) {
				cap = cap ? 2 * cap : 64;
				xrecalloc(h, cap, sizeof(*h));
				xrecalloc(holds, cap * SB_LIMIT_MAX,
					  sizeof(*holds));
				xrecalloc(ids, cap, sizeof(*ids));
				xrecalloc(chosen, cap, sizeof(*chosen));
			}
			for (i = 0; i < ls.n; i++) {
				holds[nh * SB_LIMIT_MAX + i] =
					limit_held(job_ptr, &ls.src[i]);
				any = any || holds[nh * SB_LIMIT_MAX + i];
			}
			if (!any)
				continue;
			budget_job_party(job_ptr, pos, &h[nh].party);
			if (id_in(taken, ntaken, job_ptr->job_id))
				h[nh].party.in_grace = true;
			ids[nh++] = job_ptr->job_id;
		}
		for (i = 0; i < nh; i++)	/* xrecalloc may have moved it */
			h[i].holds = &holds[i * SB_LIMIT_MAX];
		v = sb_limit_release(pol, &bp.job, ls.lim, ls.n, h, nh, now,
				     chosen, &nchosen, why, sizeof(why));
		limit_describe(&ls.src[0], &ls.lim[0], what, sizeof(what));
		if (v != SB_LIMIT_RELEASE) {
			debug("%s: %pJ pends behind %s: %s", plugin_type,
			      blocked[b], what, why);
			continue;
		}
		for (i = 0; i < nchosen; i++) {
			struct tick_action *a = work_add(w, ids[chosen[i]],
							 ACT_LIMIT, -1);

			a->by = blocked[b]->job_id;
			snprintf(a->why, sizeof(a->why), "%s", what);
			if (ntaken < sizeof(taken) / sizeof(taken[0]))
				taken[ntaken++] = ids[chosen[i]];
		}
		w->wake++;	/* the blocked job may start once they left */
		slurm_mutex_lock(&state_lock);
		limit_helped[limit_helped_next].job_id = blocked[b]->job_id;
		limit_helped[limit_helped_next].at = now;
		limit_helped_next = (limit_helped_next + 1) % LIMIT_HELPED_MAX;
		slurm_mutex_unlock(&state_lock);
	}
	assoc_mgr_unlock(&locks);
	xfree(h);
	xfree(holds);
	xfree(ids);
	xfree(chosen);
	xfree(run);
}

/* What became of a graced victim (grace_list_scan()).  Job read lock held. */
static enum grace_state grace_state_of(uint32_t job_id, void *arg)
{
	job_record_t *job_ptr = find_job_record(job_id);

	(void)arg;
	if (!job_ptr || IS_JOB_PENDING(job_ptr) || !job_ptr->preempt_time)
		return GRACE_SETTLED;	/* gone, requeued, or requeued and
					 * running again */
	if (IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return GRACE_RUNNING;
	if (IS_JOB_CANCELLED(job_ptr))
		return GRACE_SETTLED;	/* scancel in the grace time is final */
	return GRACE_EXITED;
}

static void grace_owed(uint32_t job_id, void *arg)
{
	work_add(arg, job_id, ACT_REQUEUE, -1);
}

/*
 * Tell the user of interactive @job_ptr (its salloc or srun prints the
 * message on its terminal, as for `scontrol notify`) that its protected
 * slice ends at @until.  Conf and job read locks held (as slurmctld's own
 * notify RPC: srun_user_message() only queues the message for its agent).
 */
static void warn_interactive(job_record_t *job_ptr, time_t until, time_t now)
{
	char when[32], *msg;
	struct tm tm;
	int rc;

	localtime_r(&until, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	msg = xstrdup_printf("budget: job %u: its protected minimum runtime "
			     "ends at %s (in %ld s); from then on it may be "
			     "cancelled at any time for a job of a "
			     "better-placed budget, and an interactive job "
			     "cannot be requeued: save your work",
			     job_ptr->job_id, when, (long)(until - now));
	rc = srun_user_message(job_ptr, msg);
	if (rc == SLURM_SUCCESS)
		info("%s: warned %pJ (interactive) that its protected slice "
		     "ends at %s", plugin_type, job_ptr, when);
	else
		info("%s: cannot warn %pJ (interactive) that its protected "
		     "slice ends at %s: %s", plugin_type, job_ptr, when,
		     slurm_strerror(rc));
	xfree(msg);
}

/*
 * The read walk: one pass over job_list that refreshes priority/budget's
 * committed usage (@o, may be NULL), notices jobs that became startable
 * (begin time passed) or preemptable (protected slice over) since @last,
 * and collects the jobs to release for repair and the graces that are
 * over; then the graced victims that exited.  Conf, job and node read
 * locks held.
 */
static void tick_read(const struct sb_budget_ops *o,
		      const struct sb_preempt_policy *pol, time_t last,
		      time_t now, struct tick_work *w)
{
	bitstr_t *repair = repair_nodes(pol);
	bool committing = o && o->commit_begin(now);
	job_record_t *job_ptr, **blocked = NULL;
	ListIterator it;
	size_t nb = 0, bcap = 0;

	it = list_iterator_create(job_list);
	while ((job_ptr = list_next(it))) {
		struct sb_preempt_job j;
		int64_t until;
		int node;

		if (IS_JOB_PENDING(job_ptr)) {
			if (job_ptr->details &&
			    job_ptr->details->begin_time > last &&
			    job_ptr->details->begin_time <= now)
				w->wake++;
			if (limit_reason(job_ptr->state_reason) &&
			    sb_contract_job_allocated(job_ptr->admin_comment)) {
				if (nb == bcap) {
					bcap = bcap ? 2 * bcap : 16;
					xrecalloc(blocked, bcap,
						  sizeof(*blocked));
				}
				blocked[nb++] = job_ptr;
			}
			continue;
		}
		if (IS_JOB_SUSPENDED(job_ptr) && committing)
			o->commit_job(job_ptr);	/* its slice waits for it */
		if (!IS_JOB_RUNNING(job_ptr))
			continue;
		if (committing)
			o->commit_job(job_ptr);
		(void)budget_job_contract(job_ptr, &j.contract);
		j.start = job_ptr->start_time;
		j.suspended = budget_job_suspended(job_ptr, now);
		j.priority = 0;
		j.tres = 0;
		until = sb_preempt_protected_until(&j);
		if (until > last && until <= now) {
			debug("%s: %pJ ran its min runtime (%lld s): "
			      "preemptable from now on", plugin_type, job_ptr,
			      (long long)j.contract.min_runtime);
			w->wake++;
		}
		/* no batch script: salloc, or srun outside a batch job */
		if (sb_preempt_warn_due(pol, &j, !job_ptr->batch_flag, last,
					now) && !job_ptr->preempt_time)
			warn_interactive(job_ptr, (time_t)until, now);
		if (j.contract.allocated) {
			/* the end of the interval hold (sb/view.h), when it
			 * comes after the slice */
			struct sb_preempt_party pv = { .job = j,
						       .index = SB_NONE };
			int64_t held;

			pv.preempted = budget_job_preempted_at(
				job_ptr, &pv.preempted_at);
			held = sb_preempt_hold_until(pol, &pv);
			if (held != until && held > last && held <= now) {
				debug("%s: %pJ was preempted at %lld: held "
				      "until %lld, preemptable from now on",
				      plugin_type, job_ptr,
				      (long long)pv.preempted_at,
				      (long long)held);
				w->wake++;
			}
		}
		if (IS_JOB_COMPLETING(job_ptr))
			continue;
		if (job_ptr->preempt_time) {
			if (now >= job_ptr->end_time)
				work_add(w, job_ptr->job_id, ACT_GRACE_END, -1);
			continue;
		}
		if ((node = repair_node_of(job_ptr, repair)) >= 0 &&
		    now >= sb_repair_release_at(pol, &j))
			work_add(w, job_ptr->job_id, ACT_REPAIR, node);
	}
	list_iterator_destroy(it);
	if (committing)
		o->commit_end();
	FREE_NULL_BITMAP(repair);
	if (nb)
		limits_tick(blocked, nb, pol, now, w);
	xfree(blocked);

	/* Resumable victims in their grace time: settled ones are dropped,
	 * those that exited by themselves are to be requeued (and stay on
	 * the list until the write pass has tried: grace_list.h). */
	slurm_mutex_lock(&state_lock);
	grace_list_scan(&graced, grace_state_of, grace_owed, w);
	slurm_mutex_unlock(&state_lock);
}

/* Start stopping a running job for repair of @node: grace signal now,
 * requeue or cancel when the grace time is over (ACT_GRACE_END).
 * Job and node write locks held. */
static void release_for_repair(job_record_t *job_ptr, const char *node,
			       const char *reason, const struct sb_contract *c,
			       const struct sb_preempt_policy *pol, time_t now)
{
	uint32_t grace = (uint32_t)sb_preempt_grace(pol, c);
	size_t keep = 0;
	/* keep an earlier preemption's note in front of the repair note:
	 * the hysteresis holds (sb/view.h, rules 1 and 3) read it */
	const char *prev = sb_preempted_note(job_ptr->system_comment, &keep);

	set_reason(job_ptr, xstrdup_printf(
		"%.*s%sbudget:released_for_repair=%s,at=%ld", (int)keep,
		prev ? prev : "", keep ? " " : "", node, (long)now));
	info("%s: releasing %pJ from %s, drained for repair ('%s'): it ran "
	     "its min runtime (%lld s); %s%s", plugin_type, job_ptr, node,
	     reason, (long long)c->min_runtime,
	     sb_preempt_action_str(sb_preempt_action(pol, c)),
	     grace ? " after the grace time" : "");
	job_ptr->preempt_time = now;
	job_ptr->end_time = MIN(job_ptr->end_time, now + (time_t)grace);
	if (grace) {
		job_signal(job_ptr, SIGCONT, 0, 0, 0);
		job_signal(job_ptr, SIGTERM, 0, 0, 0);
		if (sb_preempt_action(pol, c) == SB_ACTION_REQUEUE) {
			slurm_mutex_lock(&state_lock);
			grace_track(job_ptr->job_id);
			slurm_mutex_unlock(&state_lock);
		}
	} else {
		(void)slurm_job_preempt(job_ptr, NULL,
					slurm_job_preempt_mode(job_ptr), false);
	}
}

/* One action of the write pass, checked again against the job as it is
 * now.  Job and node write locks held. */
static void tick_act(const struct tick_action *a,
		     const struct sb_preempt_policy *pol, time_t now)
{
	job_record_t *job_ptr = find_job_record(a->job_id), *blocked;
	node_record_t *node_ptr;
	struct sb_preempt_job j;
	bool gave_up;
	int rc;

	if (!job_ptr)
		return;
	switch (a->what) {
	case ACT_REPAIR:
		if (a->node < 0 || a->node >= node_record_count ||
		    !job_ptr->node_bitmap ||
		    a->node >= (int)bit_size(job_ptr->node_bitmap) ||
		    !bit_test(job_ptr->node_bitmap, a->node))
			return;	/* the node table or the job changed */
		node_ptr = node_record_table_ptr[a->node];
		if (!IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr) ||
		    job_ptr->preempt_time || !node_ptr ||
		    !IS_NODE_DRAIN(node_ptr) ||
		    !sb_repair_reason_matches(pol, node_ptr->reason))
			return;
		(void)budget_job_contract(job_ptr, &j.contract);
		j.start = job_ptr->start_time;
		j.suspended = budget_job_suspended(job_ptr, now);
		if (now < sb_repair_release_at(pol, &j))
			return;
		release_for_repair(job_ptr, node_ptr->name, node_ptr->reason,
				   &j.contract, pol, now);
		return;
	case ACT_GRACE_END:
		if (IS_JOB_RUNNING(job_ptr) && !IS_JOB_COMPLETING(job_ptr) &&
		    job_ptr->preempt_time && now >= job_ptr->end_time)
			(void)slurm_job_preempt(job_ptr, NULL,
						slurm_job_preempt_mode(job_ptr),
						false);
		return;
	case ACT_LIMIT:
		blocked = find_job_record(a->by);
		if (!blocked || !IS_JOB_PENDING(blocked) ||
		    !IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr) ||
		    job_ptr->preempt_time)
			return;	/* started, ended, or already leaving */
		(void)budget_job_contract(job_ptr, &j.contract);
		if (j.contract.allocated)
			return;
		/* the victim's SystemComment names the blocked job
		 * (victim_grace(), which slurm_job_preempt() calls) */
		slurm_mutex_lock(&state_lock);
		last_preemptor_id = blocked->job_id;
		last_preemptor_prio = blocked->priority;
		slurm_mutex_unlock(&state_lock);
		info("%s: %pJ (allocated) pends behind %s; releasing %pJ "
		     "(unallocated, counts against that limit): %s",
		     plugin_type, blocked, a->why, job_ptr,
		     sb_preempt_action_str(sb_preempt_action(pol,
							      &j.contract)));
		(void)slurm_job_preempt(job_ptr, blocked,
					slurm_job_preempt_mode(job_ptr), false);
		return;
	case ACT_REQUEUE:
		if (IS_JOB_PENDING(job_ptr) || IS_JOB_RUNNING(job_ptr) ||
		    IS_JOB_COMPLETING(job_ptr) || IS_JOB_CANCELLED(job_ptr) ||
		    !job_ptr->preempt_time)
			return;
		rc = sb_requeue_preempted(job_ptr);
		if (rc == SLURM_SUCCESS)
			info("%s: %pJ exited during its preemption grace time "
			     "and is resumable: requeued", plugin_type,
			     job_ptr);
		slurm_mutex_lock(&state_lock);
		gave_up = grace_list_tried(&graced, a->job_id,
					   rc == SLURM_SUCCESS);
		slurm_mutex_unlock(&state_lock);
		if (rc != SLURM_SUCCESS)
			error("%s: %pJ exited during its preemption grace time "
			      "and is resumable, but its requeue failed: %s%s",
			      plugin_type, job_ptr, slurm_strerror(rc),
			      gave_up ? "; giving up" : "; retried next tick");
		return;
	}
}

/* Whether the tick of generation @my_gen must not act: stopping, or not
 * (or no longer) this controller's state (see tick_loop()). */
static bool tick_off(unsigned my_gen)
{
	bool stop;

	slurm_mutex_lock(&state_lock);
	stop = stop_thread || my_gen != generation;
	slurm_mutex_unlock(&state_lock);
	return stop || !job_list || !slurmctld_config.thread_id_save ||
	       slurmctld_config.shutdown_time;
}

/*
 * One tick: the read walk, then the write pass only if it found work.
 * Return: false when the tick was skipped (tick_off()).  Adds the lock
 * hold time to @stats.  state_lock not held.
 */
static bool tick(unsigned my_gen, time_t *last, struct tick_stats *stats)
{
	slurmctld_lock_t read_locks = { .conf = READ_LOCK, .job = READ_LOCK,
					.node = READ_LOCK, .fed = READ_LOCK };
	/* repair and grace ends signal, requeue or kill jobs (job and node
	 * state); a wake-up alone only bumps last_job_update */
	slurmctld_lock_t act_locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				       .node = WRITE_LOCK, .part = READ_LOCK,
				       .fed = READ_LOCK };
	slurmctld_lock_t wake_locks = { .job = WRITE_LOCK };
	struct tick_work w = { 0 };
	struct tick_clock c0, c1, c2, c3;
	struct sb_preempt_policy pol;
	const struct sb_budget_ops *o;
	double held, write = 0, cpu, wcpu = 0;
	char summary[256];
	int64_t delay;
	time_t now;
	size_t i;

	lock_slurmctld(read_locks);
	if (tick_off(my_gen)) {
		unlock_slurmctld(read_locks);
		return false;
	}
	tick_clock_now(&c0);
	partner_refresh();
	delay = sb_requeue_delay_of_authinfo(slurm_conf.authinfo);
	slurm_mutex_lock(&state_lock);
	requeue_delay = delay;
	pol = cfg.preempt;
	pol.requeue_delay = delay;
	o = ops;
	slurm_mutex_unlock(&state_lock);
	now = time(NULL);
	tick_read(o, &pol, *last, now, &w);
	tick_clock_now(&c1);
	unlock_slurmctld(read_locks);
	held = tick_clock_since(&c0, &c1, &cpu);

	if (w.n || w.wake) {
		slurmctld_lock_t *l = w.n ? &act_locks : &wake_locks;

		lock_slurmctld(*l);
		if (!tick_off(my_gen)) {
			tick_clock_now(&c2);
			for (i = 0; i < w.n; i++)
				tick_act(&w.a[i], &pol, now);
			if (w.wake)
				last_job_update = now;
			tick_clock_now(&c3);
			write = tick_clock_since(&c2, &c3, &wcpu);
		}
		unlock_slurmctld(*l);
		if (w.wake)
			queue_job_scheduler();
	}
	xfree(w.a);
	*last = now;
	if (tick_stats_add(stats, held + write, write, cpu + wcpu, summary,
			   sizeof(summary)))
		verbose("%s: tick %s", plugin_type, summary);
	return true;
}

static void *tick_loop(void *arg)
{
	struct tick_stats stats = { 0 };
	time_t last = time(NULL);
	unsigned my_gen;

	(void)arg;
	/* seen in top -H, ps -L, /proc/PID/task/TID/comm (15 chars max) */
	(void)pthread_setname_np(pthread_self(), "sb_preempt_tick");
	slurm_mutex_lock(&state_lock);
	my_gen = generation;
	while (!stop_thread && my_gen == generation) {
		struct timespec ts;

		/* one second from now on the condition's clock: time(2)
		 * reads a coarser clock that can still show the previous
		 * second, so "time(NULL) + 1" could already be past and the
		 * loop would tick many times a second (measured: 207 wakes
		 * in 5 s) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
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
		refresh_config(my_gen);
		(void)tick(my_gen, &last, &stats);
		slurm_mutex_lock(&state_lock);
		if (my_gen == generation)
			in_tick = false;
	}
	if (my_gen == generation)	/* not an earlier load's thread */
		thread_done = true;
	slurm_mutex_unlock(&state_lock);
	return NULL;
}

extern int init(void)
{
	struct budget_conf_env env;
	char desc[512], *parsed = NULL;

	sb_config_init(&cfg);
	budget_conf_env_get(&env);
	if (budget_conf_load(&env, &cfg, &parsed, plugin_type) != SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&env, &cfg_seen);
	budget_conf_env_free(&env);
	slurm_mutex_lock(&state_lock);
	xfree(keep_pending);
	keep_pending = parsed;	/* the tick keeps it if the copy is ours */
	slurm_mutex_unlock(&state_lock);
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;
	if (!(slurm_conf.preempt_mode & PREEMPT_MODE_REQUEUE))
		info("%s: PreemptMode is not REQUEUE: victims are still "
		     "requeued when sb_preempt_action says so (the plugin "
		     "decides per job)",
		     plugin_type);
	if (xstrcmp(slurm_conf.priority_type, PARTNER))
		info("%s: PriorityType is %s, not %s: no budget standing is "
		     "known, so allocated jobs still preempt unallocated ones "
		     "at once but never allocated ones, and victims go "
		     "unallocated first, then resumable, then least work lost "
		     "(doc/design.md, "
		     "preempt/budget)", plugin_type,
		     slurm_conf.priority_type ? slurm_conf.priority_type :
		     "none", PARTNER);
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
	ops = NULL;		/* looked up again by the first tick */
	ops_conf_update = -1;
	ops_missing_logged = false;
	ops_misses = 0;
	tres_pos = -2;		/* ChargeTRES may differ from the last load's */
	last_preemptor_id = last_preemptor_prio = 0;
	slurm_mutex_unlock(&state_lock);
	sb_thread_create(&tick_thread, tick_loop, NULL);
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
	grace_list_free(&graced);
	xfree(keep_pending);
	ops = NULL;
	slurm_mutex_unlock(&state_lock);
}
