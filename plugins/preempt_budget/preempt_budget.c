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
 * A tick walks job_list under the job and node *read* locks only when a
 * job changed, a scheduler pass ran or a minute passed since the last walk
 * (tick.c, tick_walk_due()); the other ticks visit the jobs that walk found
 * running or held by a limit, by id.  It takes the write locks only when
 * it found something to write
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
 * Locks.  Order: slurmctld locks, then priority/budget's state lock (taken
 * inside the operations table), or this plugin's pe_state_lock; the two
 * plugins' mutexes are never held together: this plugin copies what it
 * needs out of its pe_state_lock before calling the table.
 */
#include "preempt_internal.h"

const char plugin_name[] = "Preempt by budget and minimum runtime";
const char plugin_type[] = "preempt/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* Ownership: every variable below is guarded by pe_state_lock. */
pthread_mutex_t pe_state_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t pe_wake_cond = PTHREAD_COND_INITIALIZER;
struct sb_config pe_cfg;
struct budget_conf_seen pe_cfg_seen;
char *pe_keep_pending;	/* text init() parsed, for budget_conf_keep() */
int pe_tres_pos = -2;		/* -2: not looked up */
static pthread_t tick_thread;
static bool thread_running;
bool pe_stop_thread;
bool pe_in_tick;		/* between the wait and the end of a tick */
bool pe_thread_done;	/* pe_tick_loop() returned */
unsigned pe_generation;	/* init() count: a detached tick of an
				 * earlier load exits when it changes */
/* The job Slurm last asked about as a preemptor: the victims it then
 * preempts (in the same locked pass) are preempted for this job. */
uint32_t pe_last_preemptor_id, pe_last_preemptor_prio;
/* Resumable victims inside their grace time, to requeue if they exit. */
struct grace_list pe_graced;
/* priority/budget's table (budget_ops.h), NULL: degraded.  Written only by
 * the tick under the slurmctld conf+job read locks (pe_partner_refresh());
 * never unmapped (RTLD_NODELETE), so a copy of the pointer stays valid. */
const struct sb_budget_ops *pe_ops;
time_t pe_ops_conf_update = -1;	/* slurm_conf.last_update looked up at */
bool pe_ops_missing_logged;
unsigned pe_ops_misses;	/* ticks without finding a loaded copy */
/* Seconds a requeued victim waits before it may start again (the
 * preemption cost counts it, sb/view.h): Slurm's credential lifetime + 1,
 * read from slurm_conf by the tick (sb_requeue_delay_of_authinfo()). */
int64_t pe_requeue_delay = SB_REQUEUE_DELAY_DEFAULT;

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
	slurm_mutex_lock(&pe_state_lock);
	pol = pe_cfg.preempt;
	pol.requeue_delay = pe_requeue_delay;
	pos = pe_tres_pos;
	o = pe_ops;
	pe_last_preemptor_id = preemptor->job_id;
	pe_last_preemptor_prio = preemptor->priority;
	slurm_mutex_unlock(&pe_state_lock);
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

/* Remember a resumable victim in its grace time.  pe_state_lock held. */
void pe_grace_track(uint32_t job_id)
{
	if (grace_list_add(&pe_graced, job_id) < 0)
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
void pe_set_reason(job_record_t *job_ptr, char *text)
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
	slurm_mutex_lock(&pe_state_lock);
	/* only an allocated resumable victim has a checkpoint to write */
	grace = (uint32_t)sb_preempt_grace(&pe_cfg.preempt, &c);
	act = sb_preempt_action(&pe_cfg.preempt, &c);
	by = pe_last_preemptor_id;
	by_prio = pe_last_preemptor_prio;
	if (grace && act == SB_ACTION_REQUEUE)
		pe_grace_track(job_ptr->job_id);
	slurm_mutex_unlock(&pe_state_lock);
	if (!job_ptr->preempt_time && by && by != job_ptr->job_id) {
		pe_set_reason(job_ptr, xstrdup_printf(
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

	slurm_mutex_lock(&pe_state_lock);
	o = pe_ops;
	pos = pe_tres_pos;
	slurm_mutex_unlock(&pe_state_lock);
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
	slurm_mutex_lock(&pe_state_lock);
	switch (sb_preempt_action(&pe_cfg.preempt, &c)) {
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
	slurm_mutex_unlock(&pe_state_lock);
	return mode;
}

/* preempt_p_get_mode/_prio/_grace_time (25.11+) or preempt_p_get_data. */
SB_DEFINE_PREEMPT_DATA(preempt_mode, victim_key, victim_grace)

extern int init(void)
{
	struct budget_conf_env env;
	char desc[1024], *parsed = NULL;

	sb_config_init(&pe_cfg);
	budget_conf_env_get(&env);
	if (budget_conf_load(&env, &pe_cfg, &parsed, plugin_type) !=
	    SLURM_SUCCESS)
		error("%s: using the defaults until budget.conf is fixed",
		      plugin_type);
	budget_conf_mark(&env, &pe_cfg_seen);
	budget_conf_env_free(&env);
	slurm_mutex_lock(&pe_state_lock);
	xfree(pe_keep_pending);
	pe_keep_pending = parsed;	/* the tick keeps it if the copy is ours */
	slurm_mutex_unlock(&pe_state_lock);
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
		sb_config_describe(&pe_cfg, desc, sizeof(desc)));
	{
		/* Pin this .so: fini() may detach a tick still waiting for
		 * the slurmctld locks, and dlclose() must not unmap it. */
		Dl_info self;

		if (dladdr((void *)pe_tick_loop, &self) && self.dli_fname)
			(void)dlopen(self.dli_fname,
				     RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
	}
	slurm_mutex_lock(&pe_state_lock);
	pe_generation++;
	pe_stop_thread = pe_thread_done = pe_in_tick = false;
	pe_ops = NULL;		/* looked up again by the first tick */
	pe_ops_conf_update = -1;
	pe_ops_missing_logged = false;
	pe_ops_misses = 0;
	pe_tres_pos = -2;		/* ChargeTRES may differ from the last load's */
	pe_last_preemptor_id = pe_last_preemptor_prio = 0;
	slurm_mutex_unlock(&pe_state_lock);
	sb_thread_create(&tick_thread, pe_tick_loop, NULL);
	thread_running = true;
	return SLURM_SUCCESS;
}

extern void fini(void)
{
	if (thread_running) {
		bool busy;

		slurm_mutex_lock(&pe_state_lock);
		pe_stop_thread = true;
		pthread_cond_signal(&pe_wake_cond);
		busy = pe_in_tick && !pe_thread_done;
		slurm_mutex_unlock(&pe_state_lock);
		if (busy) {
			/* It may wait in lock_slurmctld() for locks our caller
			 * (read_slurm_conf(), PreemptType changed) holds:
			 * joining would deadlock slurmctld.  It sees
			 * pe_stop_thread once it has them and exits; keep the
			 * code mapped until then (see init()). */
			pthread_detach(tick_thread);
			thread_running = false;
			return;	/* its state is freed by nobody: a few KB */
		}
		pthread_join(tick_thread, NULL);
		thread_running = false;
	}
	slurm_mutex_lock(&pe_state_lock);
	grace_list_free(&pe_graced);
	xfree(pe_keep_pending);
	pe_ops = NULL;
	slurm_mutex_unlock(&pe_state_lock);
}
