/*
 * tick.c - preempt/budget's thread: every second it re-reads budget.conf
 * after a reconfigure, reads job_list under the read locks (tick_read(),
 * letting go of them between slices of a long walk) and, only when that
 * found work, acts on it under the write locks (tick_act()).  What the
 * tick does is listed at the top of preempt_budget.c.
 */
#include "preempt_internal.h"

#include <errno.h>
#include <stdlib.h>

struct tick_action *pe_work_add(struct tick_work *w, uint32_t job_id,
				enum tick_act what, int node)
{
	pe_room_for_one((void **)&w->a, w->n, &w->cap, sizeof(*w->a), 16);
	w->a[w->n] = (struct tick_action){ .job_id = job_id, .what = what,
					   .node = node };
	return &w->a[w->n++];
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
	pe_work_add(arg, job_id, ACT_REQUEUE, -1);
}

/*
 * A tick walks the whole of job_list only when something may have changed
 * what it looks for (tick_walk_due()); the other ticks visit only the jobs
 * the last walk found running, suspended or held by a limit, by id.  Every
 * change of a job's state, begin time or contract bumps last_job_update
 * (squeue's "nothing changed since" answer relies on it); a limit reason is
 * set by the scheduler passes without a bump, so a pass of either scheduler
 * (slurmctld_diag_stats' cycle counters) makes a walk due as well.
 * TICK_WALK_MAX bounds how long anything else could go unseen: seconds.
 */
#define TICK_WALK_MAX 60

/*
 * How long, by default, the read side holds slurmctld's locks at a
 * stretch while it walks job_list before it lets go of them (tick_pause()):
 * microseconds.  A target, not a bound: the time is read every
 * TICK_SLICE_CHECK jobs read (a job read with cold caches takes a few
 * microseconds), a slice reads at least TICK_SLICE_MIN_READ past the point
 * it resumes from (more after passing many entries: tick_walk()), and the
 * last slice goes on through the visit, the limits and the graces unless
 * it has used half its time (then they begin a stretch of their own:
 * tick_read()).  A thread waiting for a write lock (an RPC, the scheduler, a
 * cancel) gets it in a pause when no other thread holds a read lock
 * (slurmctld's locks are glibc rwlocks that prefer readers), so it waits
 * about a slice for the tick, not the whole walk (50,000 pending jobs take
 * 1.5-2 ms warm and up to 30 ms with cold caches after a mass cancel:
 * doc/benchmarks.md 2c).
 */
#define TICK_SLICE_US 800.0
#define TICK_SLICE_US_MAX 1000000.0
#define TICK_SLICE_CHECK 16
#define TICK_SLICE_MIN_READ 64

/*
 * The slice length from slurmctld's environment: SB_TICK_SLICE_US, whole
 * microseconds from 0 (a pause as soon as a slice has read its least:
 * TICK_SLICE_MIN_READ jobs, or the catch-up of tick_walk()) to
 * TICK_SLICE_US_MAX; unset or empty: TICK_SLICE_US.  A value outside that
 * is refused with an error naming it, and the default kept.  Read when the
 * tick thread starts (every load of the plugin).
 */
static double tick_slice_read(void)
{
	const char *v = getenv("SB_TICK_SLICE_US");
	char *end = NULL;
	double us;

	if (!v || !*v)
		return TICK_SLICE_US;
	errno = 0;
	us = (double)strtoll(v, &end, 10);
	if (errno || end == v || *end || us < 0 || us > TICK_SLICE_US_MAX) {
		error("%s: SB_TICK_SLICE_US=%s is not a whole number of "
		      "microseconds from 0 to %.0f; the tick's walk uses "
		      "slices of %.0f us", plugin_type, v, TICK_SLICE_US_MAX,
		      TICK_SLICE_US);
		return TICK_SLICE_US;
	}
	info("%s: the tick's walk of job_list lets go of slurmctld's locks "
	     "after slices of %.0f us (SB_TICK_SLICE_US)", plugin_type, us);
	return us;
}

/*
 * The read side's hold of slurmctld's read locks: the stretches so far
 * (the walk's slices, and the visit's when it has one of its own; the
 * whole read side when all fits in one).
 */
struct tick_hold {
	slurmctld_lock_t locks;	/* the read locks, held between slices */
	unsigned my_gen;	/* pe_tick_off()'s generation */
	struct tick_clock start;	/* the current slice's start */
	double longest;		/* the longest finished slice: us wall */
	double longest_cpu;	/* its thread CPU: us */
	double cpu;		/* thread CPU over the finished slices: us */
	unsigned slices;	/* slices begun, >= 1 */
};

/* End the current slice of @h at @end: its wall time and CPU counted. */
static void hold_end(struct tick_hold *h, const struct tick_clock *end)
{
	double cpu, wall = tick_clock_since(&h->start, end, &cpu);

	if (wall > h->longest) {
		h->longest = wall;
		h->longest_cpu = cpu;
	}
	h->cpu += cpu;
}

/*
 * Let go of slurmctld's read locks between two slices of a walk, or
 * between the walk and the visit (tick_read()), and take them again (a
 * thread waiting for a write lock gets it first, when no other thread
 * holds a read lock).  Return:
 * false when the tick must stop (pe_tick_off()); the locks are held again
 * either way.
 */
static bool tick_pause(struct tick_hold *h)
{
	struct tick_clock end;

	tick_clock_now(&end);
	hold_end(h, &end);
	unlock_slurmctld(h->locks);
	lock_slurmctld(h->locks);
	tick_clock_now(&h->start);
	h->slices++;
	return !pe_tick_off(h->my_gen);
}

struct tick_seen {
	time_t walked;		/* time of the last walk; 0: none yet */
	uint32_t cycles;	/* scheduler cycles (main + backfill) then */
	time_t next_begin;	/* earliest begin time (or end of a
				 * PreemptLossWait) in the future of a
				 * pending job then; 0: none */
	uint32_t *held;		/* jobs running or suspended then */
	size_t nheld, held_cap;
	uint32_t *blocked;	/* allocated jobs pending for a limit then */
	size_t nblocked, blocked_cap;
	unsigned walks;		/* walks since the last tick summary */
	unsigned sliced;	/* ticks since then whose read side took
				 * more than one slice (tick_pause()) */
	double slice_us;	/* a walk's slice: us (tick_slice_read()) */
	unsigned uncommitted;	/* ticks since then in which priority/
				 * budget's committed usage was not
				 * refreshed (its state was busy, or it
				 * had no view yet) */
};

static void ids_add(uint32_t **v, size_t *n, size_t *cap, uint32_t id)
{
	pe_room_for_one((void **)v, *n, cap, sizeof(**v), 64);
	(*v)[(*n)++] = id;
}

/*
 * Where a walk stopped at the end of a slice, so that the next slice
 * resumes after it: the last job read (found again by its id and address,
 * its list entry is the resume point), or, when that job left job_list in
 * the pause, the count of entries passed (jobs join job_list only at its
 * tail, job_mgr.c's _create_job_record(), so a count can only miss jobs
 * that moved up, never read one twice; a missed job is read by the next
 * walk, which the removal's last_job_update makes due).
 */
struct tick_walk_pos {
	job_record_t *last;	/* the last job read; NULL: from the head */
	uint32_t last_id;
	size_t passed;		/* list entries passed so far, this pass */
	size_t skip;		/* entries to pass before reading (by count) */
	bool by_count;		/* resume by @skip, not at @last */
	bool skipping;		/* before the resume point */
	size_t read;		/* jobs read in this slice */
	size_t min_read;	/* jobs a slice reads before it may end */
	size_t catch_up;	/* min_read when passing took half a slice */
	bool stopped;		/* the slice ended before the list did */
};

/* One tick's read side (tick_read()): what it was given, what it found. */
struct tick_read_ctx {
	struct tick_seen *seen;
	const struct sb_budget_ops *ops;	/* NULL: no priority/budget */
	bool committing;	/* ops->commit_begin() succeeded */
	const struct sb_preempt_policy *pol;
	bitstr_t *repair;	/* nodes drained for repair */
	time_t last, now;	/* the previous tick, this one */
	struct tick_work *work;	/* the write pass's actions, wake-ups */
	job_record_t **blocked;	/* allocated jobs pending for a limit */
	size_t nblocked, blocked_cap;
	struct tick_hold *hold;	/* slurmctld's read locks, in slices */
	struct tick_walk_pos pos;	/* the walk's resume point */
};

static void blocked_add(struct tick_read_ctx *c, job_record_t *job_ptr)
{
	pe_room_for_one((void **)&c->blocked, c->nblocked, &c->blocked_cap,
			sizeof(*c->blocked), 16);
	c->blocked[c->nblocked++] = job_ptr;
}

/* Scheduler cycles so far, main and backfill.  Job read lock held. */
static uint32_t sched_cycles(void)
{
	return slurmctld_diag_stats.schedule_cycle_counter +
	       slurmctld_diag_stats.bf_cycle_counter;
}

/* Whether this tick must walk the whole of job_list (see struct
 * tick_seen).  Job read lock held. */
static bool tick_walk_due(const struct tick_seen *s, time_t now)
{
	return !s->walked || now < s->walked ||
	       now - s->walked >= TICK_WALK_MAX ||
	       last_job_update >= s->walked || sched_cycles() != s->cycles;
}

/*
 * A running or suspended job, in a walk or a visit: refreshes its
 * committed usage (when c->committing), notices a protected slice or
 * interval hold that ended since c->last, warns an interactive job, and
 * collects a grace time over or a release for repair.  Conf, job and node
 * read locks held.
 */
static void read_held(struct tick_read_ctx *c, job_record_t *job_ptr)
{
	const struct sb_preempt_policy *pol = c->pol;
	time_t last = c->last, now = c->now;
	struct tick_work *w = c->work;
	struct sb_preempt_job j = { 0 };
	int64_t until;
	int node;

	if (IS_JOB_SUSPENDED(job_ptr) && c->committing)
		c->ops->commit_job(job_ptr);	/* its slice waits for it */
	if (!IS_JOB_RUNNING(job_ptr))
		return;
	if (c->committing)
		c->ops->commit_job(job_ptr);
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
	if (sb_preempt_warn_due(pol, &j, !job_ptr->batch_flag, last, now) &&
	    !job_ptr->preempt_time)
		pe_warn_interactive(job_ptr, (time_t)until, now);
	if (j.contract.allocated) {
		/* the end of the interval hold (sb/view.h), when it comes
		 * after the slice */
		struct sb_preempt_party pv = { .job = j, .index = SB_NONE };
		int64_t held;

		pv.preempted = budget_job_preempted_at(job_ptr,
						       &pv.preempted_at);
		held = sb_preempt_hold_until(pol, &pv);
		if (held != until && held > last && held <= now) {
			debug("%s: %pJ was preempted at %lld: held until "
			      "%lld, preemptable from now on", plugin_type,
			      job_ptr, (long long)pv.preempted_at,
			      (long long)held);
			w->wake++;
		}
	}
	if (IS_JOB_COMPLETING(job_ptr))
		return;
	if (job_ptr->preempt_time) {
		if (now >= job_ptr->end_time)
			pe_work_add(w, job_ptr->job_id, ACT_GRACE_END, -1);
		return;
	}
	if ((node = pe_repair_node_of(job_ptr, c->repair)) >= 0 &&
	    now >= sb_repair_release_at(pol, &j))
		pe_work_add(w, job_ptr->job_id, ACT_REPAIR, node);
}

/*
 * One list entry of a walk's slice (tick_walk(), through
 * list_for_each_ro()): passed before the resume point; otherwise a pending
 * job's begin time and limit reason are read, a running or suspended job's
 * id kept for tick_visit().  Return: 0, or -1 when the slice is over (its
 * time is up, c->pos.min_read jobs read).
 */
static int walk_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct tick_read_ctx *c = arg;
	struct tick_walk_pos *p = &c->pos;
	struct tick_seen *s = c->seen;
	time_t last = c->last, now = c->now;

	p->passed++;
	if (p->skipping) {
		/* the address only: the job is not read again */
		if (p->by_count ? p->passed >= p->skip : x == p->last) {
			p->skipping = false;
			if (tick_clock_elapsed(&c->hold->start) >
			    s->slice_us / 2)
				p->min_read = p->catch_up;
		}
		return 0;
	}
	if (IS_JOB_PENDING(job_ptr)) {
		time_t begin = job_ptr->details ?
			job_ptr->details->begin_time : 0;

		/*
		 * A begin time later than the job's (re)submission (--begin,
		 * a requeue's delay, the restart backoff) wakes the
		 * schedulers (a job eligible when submitted is looked at
		 * then already), as does the end of its PreemptLossWait.
		 */
		time_t lw = c->pol->loss_wait > 0 && begin > 0 ?
			    begin + c->pol->loss_wait : 0;

		if ((begin > last && begin <= now &&
		     begin > job_ptr->details->submit_time) ||
		    (lw > last && lw <= now))
			c->work->wake++;
		if (begin > now)
			lw = begin;	/* the walk it wakes finds lw */
		if (lw > now && (!s->next_begin || lw < s->next_begin))
			s->next_begin = lw;
		if (pe_limit_reason(job_ptr->state_reason) &&
		    sb_contract_job_allocated(job_ptr->admin_comment))
			ids_add(&s->blocked, &s->nblocked, &s->blocked_cap,
				job_ptr->job_id);
	} else if (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)) {
		ids_add(&s->held, &s->nheld, &s->held_cap, job_ptr->job_id);
	}
	p->last = job_ptr;
	p->last_id = job_ptr->job_id;
	if (++p->read >= p->min_read && !(p->read % TICK_SLICE_CHECK) &&
	    tick_clock_elapsed(&c->hold->start) > s->slice_us) {
		p->stopped = true;
		return -1;
	}
	return 0;
}

/*
 * The walk: passes over job_list, in slices of about c->seen->slice_us with
 * slurmctld's read locks let go between them (tick_pause()), that record in
 * c->seen what this tick's and the next ticks' visits need (the jobs
 * running, suspended or pending for a limit) and wake the schedulers for a
 * begin time passed since c->last.  Conf, job and node read locks held.
 * list_for_each_ro() shares job_list's own lock with the other readers
 * (slurmctld's state save packs every job under it for hundreds of
 * milliseconds at 50k jobs); an iterator's list_next() takes it for
 * writing and would wait for them, with slurmctld's locks held.  Nothing
 * under it may change job_list.  Return: false when the tick must stop
 * (pe_tick_off() after a pause).
 */
static bool tick_walk(struct tick_read_ctx *c)
{
	struct tick_seen *s = c->seen;
	struct tick_walk_pos *p = &c->pos;

	s->walked = c->now;
	s->cycles = sched_cycles();
	s->next_begin = 0;
	s->nheld = s->nblocked = 0;
	s->walks++;
	*p = (struct tick_walk_pos){ .min_read = TICK_SLICE_MIN_READ };
	for (;;) {
		(void)list_for_each_ro(job_list, walk_one, c);
		if (!p->stopped)
			return true;
		if (!tick_pause(c->hold)) {
			s->walked = 0;	/* the next tick walks again */
			return false;
		}
		/* resume after the last job read, or count past as many
		 * entries; a slice whose passing took half its time reads at
		 * least a sixteenth as many as it passed, so that when
		 * passing alone takes a slice's time a walk still ends within
		 * about 16 ln(N / 64) slices (otherwise it reads until the
		 * slice's time is up: at least half a slice of reading) */
		p->by_count = find_job_record(p->last_id) != p->last;
		p->skip = p->passed;
		p->min_read = TICK_SLICE_MIN_READ;
		p->catch_up = MAX(TICK_SLICE_MIN_READ, p->passed / 16);
		p->passed = p->read = 0;
		p->skipping = true;
		p->stopped = false;
	}
}

/*
 * The visit: the jobs of the last walk (this tick's, or an earlier one's),
 * found again by id and checked as they are now: the allocated jobs
 * pending for a limit go to c->blocked, the running and suspended ones are
 * read (read_held()).  Conf, job and node read locks held.
 */
static void tick_visit(struct tick_read_ctx *c)
{
	struct tick_seen *s = c->seen;
	job_record_t *job_ptr;
	size_t i;

	if (s->next_begin && s->next_begin <= c->now) {
		c->work->wake++;	/* the wake-up's bump makes the next
					 * tick walk */
		s->next_begin = 0;
	}
	for (i = 0; i < s->nblocked; i++) {
		job_ptr = find_job_record(s->blocked[i]);
		if (job_ptr && IS_JOB_PENDING(job_ptr) &&
		    pe_limit_reason(job_ptr->state_reason))
			blocked_add(c, job_ptr);
	}
	for (i = 0; i < s->nheld; i++) {
		job_ptr = find_job_record(s->held[i]);
		if (job_ptr &&
		    (IS_JOB_RUNNING(job_ptr) || IS_JOB_SUSPENDED(job_ptr)))
			read_held(c, job_ptr);
	}
}

/* Where one tick's read side spent its wall time (a slow tick's log line). */
struct tick_phases {
	bool walked;		/* a walk before the visit */
	bool committing;	/* committed usage refreshed */
	struct tick_clock held;	/* after the walk and the visit */
	struct tick_clock limits;	/* after the limit-blocked jobs */
};

/*
 * The read side of a tick: a walk when one is due (tick_walk_due()), then
 * the visit, which refreshes priority/budget's committed usage (@o, may be
 * NULL), notices jobs that became startable (begin time passed) or
 * preemptable (protected slice over) since @last, and collects the jobs to
 * release for repair and the graces that are over; the limits a blocked
 * allocated job pends behind; then the graced victims that exited.  Conf,
 * job and node read locks held (@h), let go of between the walk's slices
 * and before the visit when the walk's last slice has used half its time.
 * Return: false when the tick must stop (pe_tick_off() after a pause); @w is
 * then not to be acted on.
 */
static bool tick_read(struct tick_seen *s, const struct sb_budget_ops *o,
		      const struct sb_preempt_policy *pol, time_t last,
		      time_t now, struct tick_work *w, struct tick_hold *h,
		      struct tick_phases *ph)
{
	struct tick_read_ctx c = {
		.seen = s, .ops = o, .pol = pol, .last = last, .now = now,
		.work = w, .hold = h,
	};

	ph->walked = tick_walk_due(s, now);
	if (ph->walked && !tick_walk(&c))
		return false;
	/* the visit, the limits and the graces get a stretch of their own
	 * when the walk's last slice has used half of its time */
	if (ph->walked && tick_clock_elapsed(&h->start) > s->slice_us / 2 &&
	    !tick_pause(h)) {
		s->walked = 0;	/* the next tick walks again */
		return false;
	}
	c.repair = pe_repair_nodes(pol);
	c.committing = o && o->commit_begin(now);
	if (o && !c.committing)
		s->uncommitted++;
	ph->committing = c.committing;
	tick_visit(&c);
	if (c.committing)
		o->commit_end();
	FREE_NULL_BITMAP(c.repair);
	tick_clock_now(&ph->held);
	if (c.nblocked)
		pe_limits_tick(c.blocked, c.nblocked, pol, now, w);
	xfree(c.blocked);
	tick_clock_now(&ph->limits);

	/* Resumable victims in their grace time: settled ones are dropped,
	 * those that exited by themselves are to be requeued (and stay on
	 * the list until the write pass has tried: grace_list.h). */
	slurm_mutex_lock(&pe_state_lock);
	grace_list_scan(&pe_graced, grace_state_of, grace_owed, w);
	slurm_mutex_unlock(&pe_state_lock);
	return true;
}

/* One action of the write pass, checked again against the job as it is
 * now.  Job and node write locks held. */
static void tick_act(const struct tick_action *a,
		     const struct sb_preempt_policy *pol, time_t now)
{
	job_record_t *job_ptr = find_job_record(a->job_id), *blocked;
	node_record_t *node_ptr;
	struct sb_preempt_job j = { 0 };
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
		pe_release_for_repair(job_ptr, node_ptr->name, node_ptr->reason,
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
		slurm_mutex_lock(&pe_state_lock);
		pe_last_preemptor_id = blocked->job_id;
		pe_last_preemptor_prio = blocked->priority;
		slurm_mutex_unlock(&pe_state_lock);
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
		slurm_mutex_lock(&pe_state_lock);
		gave_up = grace_list_tried(&pe_graced, a->job_id,
					   rc == SLURM_SUCCESS);
		slurm_mutex_unlock(&pe_state_lock);
		if (rc != SLURM_SUCCESS)
			error("%s: %pJ exited during its preemption grace time "
			      "and is resumable, but its requeue failed: %s%s",
			      plugin_type, job_ptr, slurm_strerror(rc),
			      gave_up ? "; giving up" : "; retried next tick");
		return;
	}
}

bool pe_tick_off(unsigned my_gen)
{
	bool stop;

	slurm_mutex_lock(&pe_state_lock);
	stop = pe_stop_thread || my_gen != pe_generation;
	slurm_mutex_unlock(&pe_state_lock);
	return stop || !job_list || !slurmctld_config.thread_id_save ||
	       slurmctld_config.shutdown_time;
}

/* A tick that held slurmctld's locks over TICK_SLOW_US at a stretch
 * (@held us, @cpu us of its CPU in that stretch): where its wall time
 * went, and whether it waited or was off its CPU (tick_stats.h; the
 * context switches are counted over the read side, whose phases are wall
 * times from its start, pauses between slices included). */
static void tick_slow_log(double held, double cpu, double write,
			  const struct tick_switches *s0,
			  const struct tick_switches *s1,
			  const struct tick_clock *c0,
			  const struct tick_clock *cs,
			  const struct tick_phases *ph,
			  const struct tick_clock *c1, unsigned slices,
			  size_t nheld, size_t nact)
{
	char why[256];

	tick_slow_describe(held, cpu, s0, s1, why, sizeof(why));
	verbose("%s: tick held slurmctld's locks over %.0f us: %s; read side "
		"in %u slices: set-up %.0f us, %s of %zu running jobs %.0f us "
		"(committed usage %s), limits %.0f us, graces %.0f us; write "
		"side %.0f us for %zu actions", plugin_type, TICK_SLOW_US, why,
		slices, tick_clock_since(c0, cs, NULL),
		ph->walked ? "walk of job_list and visit" : "visit", nheld,
		tick_clock_since(cs, &ph->held, NULL),
		ph->committing ? "refreshed" : "not refreshed",
		tick_clock_since(&ph->held, &ph->limits, NULL),
		tick_clock_since(&ph->limits, c1, NULL), write, nact);
}

/*
 * One tick: the read side (tick_read()), then the write pass only if it
 * found work.  Return: false when the tick was skipped (pe_tick_off()).
 * Adds to @stats the longest stretch the tick held slurmctld's locks (a
 * slice of the read side, or the write pass) and its CPU while holding
 * them; counts in @seen the ticks whose read side took more than one
 * slice.  pe_state_lock not held.
 */
static bool tick(unsigned my_gen, time_t *last, struct tick_seen *seen,
		 struct tick_stats *stats)
{
	/* repair and grace ends signal, requeue or kill jobs (job and node
	 * state); a wake-up alone only bumps last_job_update */
	slurmctld_lock_t act_locks = { .conf = READ_LOCK, .job = WRITE_LOCK,
				       .node = WRITE_LOCK, .part = READ_LOCK,
				       .fed = READ_LOCK };
	slurmctld_lock_t wake_locks = { .job = WRITE_LOCK };
	struct tick_hold h = {
		.locks = { .conf = READ_LOCK, .job = READ_LOCK,
			   .node = READ_LOCK, .fed = READ_LOCK },
		.my_gen = my_gen, .slices = 1,
	};
	struct tick_work w = { 0 };
	struct tick_clock c0, cs, c1, c2, c3;
	struct tick_switches s0, s1;
	struct tick_phases ph = { 0 };
	struct sb_preempt_policy pol;
	const struct sb_budget_ops *o;
	double held, write = 0, wcpu = 0;
	char summary[256];
	int64_t delay;
	time_t now;
	bool read;
	size_t i;

	lock_slurmctld(h.locks);
	if (pe_tick_off(my_gen)) {
		unlock_slurmctld(h.locks);
		return false;
	}
	tick_clock_now(&c0);
	h.start = c0;
	tick_switches_now(&s0);
	pe_partner_refresh();
	delay = sb_requeue_delay_of_authinfo(slurm_conf.authinfo);
	slurm_mutex_lock(&pe_state_lock);
	pe_requeue_delay = delay;
	pol = pe_cfg.preempt;
	pol.requeue_delay = delay;
	o = pe_ops;
	slurm_mutex_unlock(&pe_state_lock);
	now = time(NULL);
	tick_clock_now(&cs);
	read = tick_read(seen, o, &pol, *last, now, &w, &h, &ph);
	tick_clock_now(&c1);
	tick_switches_now(&s1);
	unlock_slurmctld(h.locks);
	hold_end(&h, &c1);
	if (!read) {	/* stopping, or no longer in control: not a tick */
		xfree(w.a);
		return false;
	}
	if (h.slices > 1)
		seen->sliced++;

	if (w.n || w.wake) {
		slurmctld_lock_t *l = w.n ? &act_locks : &wake_locks;

		lock_slurmctld(*l);
		if (!pe_tick_off(my_gen)) {
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
	held = MAX(h.longest, write);
	if (held > TICK_SLOW_US)
		tick_slow_log(held, write > h.longest ? wcpu : h.longest_cpu,
			      write, &s0, &s1, &c0, &cs, &ph, &c1, h.slices,
			      seen->nheld, w.n);
	xfree(w.a);
	*last = now;
	if (tick_stats_add(stats, held, write, h.cpu + wcpu, summary,
			   sizeof(summary))) {
		verbose("%s: tick %s; job_list walked in %u ticks; "
			"committed usage not refreshed in %u (priority/budget "
			"busy, or no view yet); slices of %.0f us in %u ticks "
			"(locks let go between)", plugin_type, summary,
			seen->walks, seen->uncommitted, seen->slice_us,
			seen->sliced);
		seen->walks = 0;
		seen->sliced = 0;
		seen->uncommitted = 0;
	}
	return true;
}

void *pe_tick_loop(void *arg)
{
	struct tick_stats stats = { 0 };
	struct tick_seen seen = { 0 };
	time_t last = time(NULL);
	unsigned my_gen;

	(void)arg;
	/* seen in top -H, ps -L, /proc/PID/task/TID/comm (15 chars max) */
	(void)pthread_setname_np(pthread_self(), "sb_preempt_tick");
	seen.slice_us = tick_slice_read();
	slurm_mutex_lock(&pe_state_lock);
	my_gen = pe_generation;
	while (!pe_stop_thread && my_gen == pe_generation) {
		struct timespec ts;

		/* one second from now on the condition's clock: time(2)
		 * reads a coarser clock that can still show the previous
		 * second, so "time(NULL) + 1" could already be past and the
		 * loop would tick many times a second (measured: 207 wakes
		 * in 5 s) */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&pe_wake_cond, &pe_state_lock, &ts);
		if (pe_stop_thread || my_gen != pe_generation)
			break;
		/* Not before read_slurm_conf() finished (the state-save thread,
		 * created after it and zeroed on leaving control: controller.c
		 * 760/798), not on a backup in standby, not while shutting
		 * down: then job_list, the node table and assoc_mgr are not
		 * (or no longer) this controller's to act on. */
		if (!slurmctld_config.thread_id_save ||
		    slurmctld_config.shutdown_time) {
			continue;	/* pe_state_lock still held */
		}
		pe_in_tick = true;
		slurm_mutex_unlock(&pe_state_lock);
		pe_refresh_config(my_gen);
		(void)tick(my_gen, &last, &seen, &stats);
		slurm_mutex_lock(&pe_state_lock);
		if (my_gen == pe_generation)
			pe_in_tick = false;
	}
	if (my_gen == pe_generation)	/* not an earlier load's thread */
		pe_thread_done = true;
	slurm_mutex_unlock(&pe_state_lock);
	xfree(seen.held);
	xfree(seen.blocked);
	return NULL;
}
