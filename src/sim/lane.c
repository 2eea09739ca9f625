/*
 * lane.c - the debug lane in the simulator, as priority/budget runs it
 * (sb/lane.h): a small, short allocated job of any budget enters the lane
 * while its association holds at most DebugLaneBudgetTRES there, carries
 * the lane's priority level above every standing (sim__job_priority()),
 * waits in the lane's own group, which every pass takes first (queue.c,
 * charge.c), and preempts with that priority (victims.c: the core's
 * sb_preempt_decide() reads it).
 *
 * When a job enters, as the plugin decides it: at its submission, from
 * what its association holds at that second (sb_lane_priority() with the
 * sum of sb_lane_holds() over the association's other jobs); at each
 * recalculation, every waiting lane-sized job in the order they were
 * queued, with the holders summed first.  A requeued job never enters (the
 * core refuses it; it is not even listed).  Once started, a lane job keeps
 * the lane's priority until the first recalculation at or after the end
 * of its min runtime (sb_lane_holds() false then), when its budget's
 * priority is given back: from then on it is preemptable as any job is.
 *
 * Cost: what an association holds is kept (lane_pending: its pending lane
 * jobs; the few running lane jobs are looked at where it is read), so
 * nothing here walks every job; a recalculation walks the running lane
 * jobs and the waiting lane-sized ones only.
 */
#include <stdlib.h>
#include <string.h>

#include "sb/lane.h"
#include "sb/priority.h"
#include "engine.h"

/* Pending @job as the lane reads it: its contract, GPUs, limit and the
 * priority it carries now (@prio). */
static struct sb_preempt_job pending_job(const struct sim *s, uint32_t job,
					 uint32_t prio)
{
	const struct sim_job *j = &s->w->jobs[job];

	return (struct sb_preempt_job){
		.contract = s->job_state[job].contract,
		.start = 0,
		.priority = prio,
		.tres = j->gpus,
		.time_limit = j->time_limit,
	};
}

/* The GPUs association @a holds in the lane at @now: its pending lane jobs
 * and its running ones that hold their place (sb_lane_holds()). */
static uint64_t held_at(const struct sim *s, uint32_t a, int64_t now)
{
	uint64_t h = s->lane_pending[a];
	size_t i;

	for (i = 0; i < s->nlane_running; i++) {
		const struct run_info *rj =
			&s->run_info[s->job_state[s->lane_running[i]]
					     .running_index];

		if (rj->party.index == a &&
		    sb_lane_holds(&s->p->cfg.preempt.lane, &rj->party.job, false, now))
			h += rj->party.job.tres;
	}
	return h;
}

static void wait_add(struct sim *s, uint32_t job)
{
	if (s->nlane_waiting == s->lane_waiting_cap) {
		size_t cap = s->lane_waiting_cap ? 2 * s->lane_waiting_cap : 64;
		void *v = realloc(s->lane_waiting,
				  cap * sizeof(*s->lane_waiting));

		if (!v) {
			sim__oom(s);
			return;
		}
		s->lane_waiting = v;
		s->lane_waiting_cap = cap;
	}
	s->lane_waiting[s->nlane_waiting].job = job;
	s->lane_waiting[s->nlane_waiting].run = s->job_state[job].run;
	s->nlane_waiting++;
}

void sim__lane_admit(struct sim *s, uint32_t job, int64_t now)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct job_state *x = &s->job_state[job];
	struct sb_preempt_job pj;
	uint32_t prio;
	uint64_t held;

	if (x->resumed ||
	    !sb_lane_sized(&s->p->cfg.preempt.lane, &x->contract, j->gpus))
		return;
	prio = sim__job_priority(s, job, true);	/* x->lane is false */
	held = held_at(s, j->assoc, now);
	pj = pending_job(s, job, prio);

	if (sb_priority_in_lane(sb_lane_priority(&s->p->cfg.preempt.lane, &pj, true,
						 prio, &held, now))) {
		x->lane = true;
		s->lane_pending[j->assoc] += j->gpus;
	} else {
		wait_add(s, job);
	}
}

void sim__lane_started(struct sim *s, uint32_t job)
{
	const struct sim_job *j = &s->w->jobs[job];

	s->lane_pending[j->assoc] -= j->gpus;
	s->r->lane_starts++;
	if (s->nlane_running == s->lane_running_cap) {
		size_t cap = s->lane_running_cap ? 2 * s->lane_running_cap : 64;
		void *v = realloc(s->lane_running,
				  cap * sizeof(*s->lane_running));

		if (!v) {
			sim__oom(s);
			return;
		}
		s->lane_running = v;
		s->lane_running_cap = cap;
	}
	s->lane_running[s->nlane_running++] = job;
}

void sim__lane_left(struct sim *s, uint32_t job)
{
	size_t i;

	s->job_state[job].lane = false;
	for (i = 0; i < s->nlane_running; i++)
		if (s->lane_running[i] == job) {
			s->lane_running[i] =
				s->lane_running[--s->nlane_running];
			return;
		}
}

void sim__lane_tick(struct sim *s, int64_t T)
{
	const struct sb_lane_policy *pol = &s->p->cfg.preempt.lane;
	size_t i, keep;

	/* running lane jobs past their min runtime: their budget's priority
	 * again (preemptors may take them now: their nodes changed for the
	 * failed tries kept, victims.c); the others are summed */
	for (i = 0; i < s->nlane_running;) {
		uint32_t job = s->lane_running[i];
		const struct job_state *x = &s->job_state[job];
		struct run_info *rj = &s->run_info[x->running_index];

		if (sb_lane_holds(pol, &rj->party.job, false, T)) {
			s->lane_sum[rj->party.index] += rj->party.job.tres;
			i++;
			continue;
		}
		s->job_state[job].lane = false;
		rj->party.job.priority = sim__job_priority(s, job, false);
		s->rank_epoch++;	/* node_min_rank, victims.c */
		sim__room_changed(s, s->r->nodes + x->node_off, x->nnodes);
		s->lane_running[i] = s->lane_running[--s->nlane_running];
	}
	/* the waiting ones, in the order they were queued */
	for (i = keep = 0; i < s->nlane_waiting && !s->err; i++) {
		uint32_t job = s->lane_waiting[i].job, prio, a;
		struct job_state *x = &s->job_state[job];
		uint64_t held;
		struct sb_preempt_job pj;

		if (x->state != J_PENDING || x->run != s->lane_waiting[i].run ||
		    x->lane)
			continue;	/* started, or gone: stale */
		a = s->w->jobs[job].assoc;
		if (s->lane_pending[a] + s->lane_sum[a] >= pol->budget_tres) {
			/* full: sb_lane_priority() would say no */
			s->lane_waiting[keep++] = s->lane_waiting[i];
			continue;
		}
		prio = sim__job_priority(s, job, true);
		pj = pending_job(s, job, prio);
		held = s->lane_pending[a] + s->lane_sum[a];
		if (!sb_priority_in_lane(sb_lane_priority(pol, &pj, true, prio,
							  &held, T))) {
			s->lane_waiting[keep++] = s->lane_waiting[i];
			continue;
		}
		s->lane_pending[a] += s->w->jobs[job].gpus;
		sim__q_move_to_lane(s, job);
		x->fail_room_seq = 0;	/* its failed tries were at its
					 * budget's priority */
	}
	s->nlane_waiting = keep;
	for (i = 0; i < s->nlane_running; i++)
		s->lane_sum[s->run_info[s->job_state[s->lane_running[i]]
						.running_index].party.index] = 0;
}
