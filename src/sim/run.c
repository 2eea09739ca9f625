/*
 * run.c - starting and stopping runs: a run's nodes and segments in the
 * result, the running array and what preemption reads of it (run_info,
 * the per-GPU indices), the baseline's team counts, and what follows a
 * stop (requeue, cancel and resubmission, leftovers) and a preemption
 * (its grace time).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/figures.h"
#include "sb/preempt.h"
#include "engine.h"

static int push_nodes(struct sim *s, const uint32_t *nodes, uint32_t n,
		      uint32_t *off)
{
	if (s->r->nnodes + n > s->r->nodes_cap) {
		size_t cap = s->r->nodes_cap ? s->r->nodes_cap * 2 : 4096;
		uint32_t *v;

		while (cap < s->r->nnodes + n)
			cap *= 2;
		v = realloc(s->r->nodes, cap * sizeof(*v));
		if (!v) {
			sim__oom(s);
			return -1;
		}
		s->r->nodes = v;
		s->r->nodes_cap = cap;
	}
	if (s->r->nnodes > UINT32_MAX - n) {
		sim__oom(s);
		return -1;
	}
	memcpy(s->r->nodes + s->r->nnodes, nodes, n * sizeof(*nodes));
	*off = (uint32_t)s->r->nnodes;
	s->r->nnodes += n;
	return 0;
}

/* The expected end of the run on each GPU of @x's run (backfill.c): its
 * time limit's end, not its true end, which no scheduler knows. */
static void set_gend(struct sim *s, const struct job_state *x, int64_t e)
{
	uint32_t a, gpn = s->cluster.gpn;

	for (a = 0; a < x->nnodes; a++) {
		uint64_t m = x->gpu_mask;
		int64_t *g = s->gpu_end_at +
			     (size_t)s->r->nodes[x->node_off + a] * gpn;

		sim__node_dirty(s, s->r->nodes[x->node_off + a]);
		for (; m; m &= m - 1)
			g[__builtin_ctzll(m)] = e;
	}
}

/* @job's run starts (@on) or stops: its GPUs in s->gpu_job,
 * s->gpu_take_from and s->node_take_sorted, which victims.c reads. */
static void gjob_set(struct sim *s, uint32_t job, bool on)
{
	const struct job_state *x = &s->job_state[job];
	const struct run_info *rj = &s->run_info[x->running_index];
	int64_t may = INT64_MAX;
	uint32_t a;

	/* victim_maybe() for an allocated preemptor (budget; prot_until is
	 * never before the start) or any (baseline) */
	if (on && sim__is_budget(s))
		may = rj->prot_until > rj->party.job.start
			      ? rj->prot_until
			      : rj->party.job.start;
	else if (on && rj->preemptible)
		may = rj->party.job.start;
	for (a = 0; a < x->nnodes; a++) {
		size_t o =
			(size_t)s->r->nodes[x->node_off + a] * s->cluster.gpn;
		int64_t *v = s->node_take_sorted + o;
		uint32_t k, n;
		uint64_t m;

		for (m = x->gpu_mask; m; m &= m - 1) {
			s->gpu_job[o + (size_t)__builtin_ctzll(m)] =
				on ? job : UINT32_MAX;
			s->gpu_take_from[o + (size_t)__builtin_ctzll(m)] = may;
		}
		s->node_rank_ok[s->r->nodes[x->node_off + a]] = 0;
		o += (size_t)__builtin_ctzll(x->gpu_mask);
		s->gpu_first_run[o] = x->running_index;
		s->gpu_first_n[o] = on ? (uint8_t)__builtin_popcountll(
						 x->gpu_mask) : 0;
		o -= (size_t)__builtin_ctzll(x->gpu_mask);
		for (k = 0; k < s->cluster.gpn; k++) {	/* sorted again */
			int64_t t = s->gpu_take_from[o + k];

			for (n = k; n > 0 && v[n - 1] > t; n--)
				v[n] = v[n - 1];
			v[n] = t;
		}
	}
}

/* Running @job's index into run_info changed: into s->gpu_first_run. */
static void first_run_moved(struct sim *s, uint32_t job)
{
	const struct job_state *x = &s->job_state[job];
	uint32_t a, k = (uint32_t)__builtin_ctzll(x->gpu_mask);

	for (a = 0; a < x->nnodes; a++)
		s->gpu_first_run[(size_t)s->r->nodes[x->node_off + a] *
					 s->cluster.gpn + k] =
			x->running_index;
}

/* Start @job at @t on the placement just made in s->placed_nodes. */
void sim__start(struct sim *s, uint32_t job, int64_t t, uint32_t nn,
		uint64_t mask, bool preemptible)
{
	struct job_state *x = &s->job_state[job];
	const struct sim_job *j = &s->w->jobs[job];

	s->cluster_version++;
	if (push_nodes(s, s->placed_nodes, nn, &x->node_off))
		return;
	x->nnodes = nn;
	x->gpu_mask = mask;
	x->state = J_RUNNING;
	x->run++;
	x->start = t;
	x->end_at = t + x->remaining;
	x->charged_to_tick = false;
	x->preemptible = preemptible;
	if (s->r->jobs[job].first_start == SIM_NEVER)
		s->r->jobs[job].first_start = t;
	x->running_index = (uint32_t)s->nrunning;
	s->run_info[s->nrunning] = (struct run_info){
		.party = {.job = {.contract = x->contract,
				  .start = t,
				  .priority = sim__is_budget(s)
					  ? sim__job_priority(s, job, false)
					  : 0,
				  .tres = j->gpus,
				  .time_limit = j->time_limit},
			  .index = j->assoc,
			  .in_grace = false,
			  .preempted = x->preempted,
			  .preempted_at = x->preempted_at},
		.job = job,
		.preemptible = preemptible,
	};
	s->run_info[x->running_index].prot_until = sb_preempt_hold_until(
		&s->preempt_policy, &s->run_info[x->running_index].party);
	s->run_info[x->running_index].commit_until =
		x->contract.allocated
			? sb_preempt_protected_until(
				  &s->run_info[x->running_index].party.job)
			: INT64_MIN;
	s->running[s->nrunning++] = job;
	if (x->lane)
		sim__lane_started(s, job);
	gjob_set(s, job, true);
	if (s->gpu_end_at)	/* as Slurm plans: by the time limit */
		set_gend(s, x, t + j->time_limit);
	if (sim__is_budget(s) && x->contract.allocated)
		sim__prot_push(s, s->run_info[x->running_index].prot_until, job,
			       x->run);
	sim__push(s, x->end_at, EV_END, job, x->run);
	if (sim__is_budget(s))
		sim__fresh_add(s, job);
	else if (!preemptible) {
		s->team_used[j->team_node] += j->gpus;
		s->team_used_seq++;
	}
}

/* @job no longer runs: out of the running arrays, its GPUs freed. */
void sim__unrun(struct sim *s, uint32_t job)
{
	struct job_state *x = &s->job_state[job];
	uint32_t last = s->running[--s->nrunning];

	if (x->lane)
		sim__lane_left(s, job);
	s->cluster_version++;
	gjob_set(s, job, false);
	sim__room_changed(s, s->r->nodes + x->node_off, x->nnodes);
	if (s->gpu_end_at)
		set_gend(s, x, SIM_NEVER);
	s->run_info[x->running_index] = s->run_info[s->nrunning];
	s->running[x->running_index] = last;
	s->job_state[last].running_index = x->running_index;
	first_run_moved(s, last);
	sim_release(&s->cluster, s->r->nodes + x->node_off, x->nnodes,
		    x->gpu_mask);
	if (!sim__is_budget(s) && !x->preemptible) {
		s->team_used[s->w->jobs[job].team_node] -= s->w->jobs[job].gpus;
		s->team_used_seq++;
	}
}

void sim__add_seg(struct sim *s, uint32_t job, int64_t end, bool preempted,
		 bool lost, enum sim_fate fate)
{
	struct sim_result *r = s->r;
	struct job_state *x = &s->job_state[job];

	if (r->nsegs == r->segs_cap) {
		size_t cap = r->segs_cap ? r->segs_cap * 2 : 4096;
		struct sim_seg *v = realloc(r->segs, cap * sizeof(*v));

		if (!v) {
			sim__oom(s);
			return;
		}
		r->segs = v;
		r->segs_cap = cap;
	}
	r->segs[r->nsegs++] = (struct sim_seg){
		.job = job,
		.eligible = x->eligible_at,
		.start = x->start,
		.end = end,
		.gpus = s->w->jobs[job].gpus,
		.node_off = x->node_off,
		.nnodes = x->nnodes,
		.mask = x->gpu_mask,
		.preemptible = x->preemptible,
		.preempted = preempted,
		.lost = lost,
		.fate = (uint8_t)fate,
	};
}

/*
 * @job was cancelled by preemption at @t: its user submits it again
 * --resubmit-delay later, as a new job: the same account, contract, GPUs
 * and its whole duration (from scratch), queued by the new submit time,
 * not a requeued job (no SB_PRIO_RESUMED) and without the preempted
 * note (a new job id has none: the hysteresis starts afresh).  Its
 * demand goes on from @t (demand_from): the figures count the gap as
 * owed, so a cancellation cannot shrink what a policy owes.  Always
 * through an event, even after 0 s: the pass that chose the victim may be
 * running.
 */
static void resubmit(struct sim *s, uint32_t job, int64_t t)
{
	struct job_state *x = &s->job_state[job];

	x->remaining = s->w->jobs[job].duration;
	x->resumed = false;
	x->preempted = false;
	x->preempted_at = 0;
	x->submit = t + s->p->resubmit_delay;
	x->demand_from = t;
	x->run++;
	x->state = J_WAITING;
	s->r->resubmissions++;
	s->r->jobs[job].resubmissions++;
	sim__push(s, x->submit, EV_ELIGIBLE, job, x->run);
}

/* The preempted run of @job stops at @t (its grace time is over). */
void sim__stop(struct sim *s, uint32_t job, int64_t t)
{
	struct job_state *x = &s->job_state[job];
	bool natural = t >= x->end_at;
	/* the core's action under both policies: the same Slurm requeues a
	 * victim whatever chose it (PreemptNonResumable=cancel gives the
	 * baseline's former rule: resumable requeued, the rest cancelled) */
	enum sb_preempt_action act =
		sb_preempt_action(&s->preempt_policy, &x->contract);
	bool requeue = act == SB_ACTION_REQUEUE || act == SB_ACTION_RESTART;
	/* a non-resumable job requeued starts over: its run is lost, its
	 * demand stays until its whole duration has run */
	bool restart = act == SB_ACTION_RESTART ||
		       (act == SB_ACTION_REQUEUE && s->p->restart);

	sim__charge_end(s, job, t);
	sim__add_seg(s, job, t, !natural,
		!natural && sb_run_work_lost(requeue, !requeue, !restart),
		natural ? SIM_FATE_DONE : !requeue ? SIM_FATE_CANCELLED :
		restart ? SIM_FATE_RESTARTED : SIM_FATE_REQUEUED);
	s->r->jobs[job].end = t;
	if (natural) {
		x->state = J_DONE;
		s->r->jobs[job].how = SIM_END_DONE;
		return;
	}
	s->r->preemptions++;
	s->r->jobs[job].preemptions++;
	if (!restart)
		x->remaining -= t - x->start;
	if (requeue) {
		/* Slurm's requeue delay, or the restart backoff of an
		 * unallocated job (restart k = the k-th
		 * preemption) */
		int64_t delay = sb_restart_delay(&s->preempt_policy,
						 &x->contract,
						 s->r->jobs[job].preemptions);

		x->resumed = true;
		x->run++;	/* retags: a stale END of this run is dropped */
		if (delay > 0) {
			x->state = J_WAITING;
			sim__push(s, t + delay, EV_ELIGIBLE, job, x->run);
		} else {
			sim__enqueue(s, job, t);
		}
	} else if (s->p->resubmit_delay != SIM_NO_RESUBMIT &&
		   s->r->jobs[job].resubmissions < SIM_RESUBMIT_MAX) {
		resubmit(s, job, t);
	} else {
		x->state = J_CANCELLED;
		s->r->jobs[job].how = SIM_END_CANCELLED;
	}
}

/* Count @job's preemption at @now against the bound: the gap since its
 * last preemption (decided at preempted_at, its k-th, k = the preempted
 * runs so far) and sb_preempt_min_gap(). */
static void check_bound(struct sim *s, uint32_t job, int64_t now)
{
	const struct job_state *x = &s->job_state[job];
	int64_t gap = now - x->preempted_at;
	int64_t bound = sb_preempt_min_gap(&s->preempt_policy, &x->contract,
					   s->r->jobs[job].preemptions);
	double ratio;

	s->r->repeat_preemptions++;
	if (gap < bound)
		s->r->sooner_than_bound++;
	if (bound <= 0 || bound == INT64_MAX)
		return;
	ratio = (double)gap / (double)bound;
	if (s->r->tightest_gap < 0 || ratio < s->r->tightest_gap)
		s->r->tightest_gap = ratio;
}

/* Preempt @job at @now: its GPUs go to the preemptor at once; it stops
 * after the grace time. */
void sim__preempt(struct sim *s, uint32_t job, int64_t now)
{
	struct job_state *x = &s->job_state[job];
	int64_t grace = sim__grace(s, job);
	int64_t t = now + grace < x->end_at ? now + grace : x->end_at;

	sim__unrun(s, job);
	if (x->preempted)
		check_bound(s, job, now);
	x->preempted = true;
	x->preempted_at = now;
	x->state = J_STOPPING;
	x->run++;	/* its END event is stale now */
	if (t <= now)
		sim__stop(s, job, now);
	else
		sim__push(s, t, EV_STOP, job, x->run);
}
