/*
 * engine.c - the simulation itself: starting and stopping runs, the
 * scheduling pass, and the event loop (sim_run).  The other engine files
 * are listed in engine.h.
 *
 * Events, in this order when they share a time: a run ends (END), a
 * preempted run's grace time ends (STOP), a requeued job becomes eligible
 * or a cancelled one is resubmitted by its user (ELIGIBLE), the priority
 * recalculation (TICK, every CalcPeriod, budget policy only; charge.c),
 * GPUs held by preemption victims come back
 * (RELEASE); then the jobs submitted at that time (read in order from the
 * sorted table, not from the heap).  After all events of one time, one
 * scheduling pass (a "scheduling moment") if jobs are pending and
 * something changed.
 *
 * Pass (budget policy): pending jobs in priority order (sb_priority_job,
 * with SB_PRIO_RESUMED for requeued ones; queue.c).  A job that fits
 * starts (first fit, cluster.c).  An allocated job that does not fit tries
 * preemption (victims.c); a victim is requeued (back to the queue after
 * the grace time plus --requeue-delay) or cancelled, as sb_preempt_action()
 * says; a cancelled job is resubmitted by its user --resubmit-delay after
 * it stopped, as a new job with its whole duration (resubmit()).
 * Backfill: reserve (Slurm's sched/backfill: the first jobs that cannot
 * start get reservations lower jobs may not delay; backfill.c),
 * greedy (a lower job starts whenever it fits now) or none (the pass stops
 * at the first job that cannot start, Slurm's main scheduler).
 *
 * Baseline policy (the static-class system budgets replace, for
 * comparison; doc/sim.md "Baseline policy"): static classes LOW/NORMAL/HIGH
 * from the in-team priority (< 512, 512, > 512), FIFO inside a class.  A
 * job whose team's non-preemptible GPUs plus its own stay within the
 * team's cap (entitled share x cluster GPUs, rounded down) runs
 * non-preemptible; otherwise it runs preemptible on idle GPUs.  A job
 * within its cap that does not fit preempts preemptible runs (victims.c).
 *
 * Every job's contract is read as the plugins read it: the answer
 * sb_contract_of_job() gives for the tag job_submit/budget writes
 * (sim_job_contract(), through sb_contract_of_fields()).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/figures.h"
#include "sb/preempt.h"
#include "engine.h"

void sim_params_init(struct sim_params *p)
{
	memset(p, 0, sizeof(*p));
	p->policy = SIM_POLICY_BUDGET;
	p->nodes = 128;
	p->gpus_per_node = 8;
	sb_config_init(&p->cfg);
	p->requeue_delay = SB_REQUEUE_DELAY_DEFAULT;	/* Slurm: cred_expire
						 * (120 s) + 1 */
	p->restart = false;
	p->resubmit_delay = SIM_RESUBMIT_DEFAULT;
	p->backfill = SIM_BACKFILL_RESERVE;
	p->reserve = 1;
	p->until = SIM_NEVER;
	p->hold_leftovers = true;
}

void sim_result_free(struct sim_result *r)
{
	size_t i;

	free(r->segs);
	free(r->nodes);
	if (r->jobs)
		for (i = 0; i < r->njobs; i++)
			free(r->jobs[i].why);
	free(r->jobs);
	memset(r, 0, sizeof(*r));
}

int sim_job_contract(int64_t min_runtime, bool resumable, bool requeue_ok,
		     bool has_contract, struct sb_contract *out)
{
	return sb_contract_of_fields(has_contract ? min_runtime : -1,
				     resumable, requeue_ok, out);
}

const char *sim_fate_name(enum sim_fate f)
{
	static const char *const n[] = { "done", "requeued", "restarted",
					 "cancelled", "unfinished" };

	return (unsigned)f < sizeof(n) / sizeof(n[0]) ? n[f] : "?";
}

/* ------------------------------------------------------ starting/stopping */

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

/* The expected end of the run on each GPU of @x's run (backfill.c). */
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
		for (k = 0; k < s->cluster.gpn; k++) {	/* sorted again */
			int64_t t = s->gpu_take_from[o + k];

			for (n = k; n > 0 && v[n - 1] > t; n--)
				v[n] = v[n - 1];
			v[n] = t;
		}
	}
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
		.party = {.job = {x->contract, t,
				  sim__is_budget(s)
					  ? sim__job_priority(s, job, false)
					  : 0,
				  j->gpus, 0},
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
	gjob_set(s, job, true);
	if (s->gpu_end_at)
		set_gend(s, x, x->end_at);
	if (sim__is_budget(s) && x->contract.allocated)
		sim__prot_push(s, s->run_info[x->running_index].prot_until, job,
			       x->run);
	sim__push(s, x->end_at, EV_END, job, x->run);
	if (sim__is_budget(s))
		sim__fresh_add(s, job);
	else if (!preemptible)
		s->team_used[j->team_node] += j->gpus;
}

/* @job no longer runs: out of the running arrays, its GPUs freed. */
static void unrun(struct sim *s, uint32_t job)
{
	struct job_state *x = &s->job_state[job];
	uint32_t last = s->running[--s->nrunning];

	s->cluster_version++;
	gjob_set(s, job, false);
	sim__room_changed(s, s->r->nodes + x->node_off, x->nnodes);
	if (s->gpu_end_at)
		set_gend(s, x, SIM_NEVER);
	s->run_info[x->running_index] = s->run_info[s->nrunning];
	s->running[x->running_index] = last;
	s->job_state[last].running_index = x->running_index;
	sim_release(&s->cluster, s->r->nodes + x->node_off, x->nnodes,
		    x->gpu_mask);
	if (!sim__is_budget(s) && !x->preemptible)
		s->team_used[s->w->jobs[job].team_node] -= s->w->jobs[job].gpus;
}

static void add_seg(struct sim *s, uint32_t job, int64_t end, bool preempted,
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
static void stop(struct sim *s, uint32_t job, int64_t t)
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
	add_seg(s, job, t, !natural,
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
		x->resumed = true;
		x->run++;	/* retags: a stale END of this run is dropped */
		if (s->p->requeue_delay > 0) {
			x->state = J_WAITING;
			sim__push(s, t + s->p->requeue_delay, EV_ELIGIBLE, job,
				  x->run);
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

/* Preempt @job at @now: its GPUs go to the preemptor at once; it stops
 * after the grace time. */
void sim__preempt(struct sim *s, uint32_t job, int64_t now)
{
	struct job_state *x = &s->job_state[job];
	int64_t grace = sim__grace(s, job);
	int64_t t = now + grace < x->end_at ? now + grace : x->end_at;

	unrun(s, job);
	x->preempted = true;
	x->preempted_at = now;
	x->state = J_STOPPING;
	x->run++;	/* its END event is stale now */
	if (t <= now)
		stop(s, job, now);
	else
		sim__push(s, t, EV_STOP, job, x->run);
}

/* ------------------------------------------------------------- the pass */

/* Whether @job may preempt: allocated (budget) or within its cap. */
static bool may_preempt(const struct sim *s, uint32_t job, bool within)
{
	return sim__is_budget(s) ? sim__allocated(s, job) : within;
}

/* Take @job, at position @i of @q before a successful preemption, out of
 * @q: a victim requeued at once may have gone before it. */
static void dequeue_job(struct sim *s, struct pending_queue *q, uint32_t i,
			uint32_t job)
{
	if (i >= q->n || q->entries[i].job != job)
		i = sim__q_find(s, q, job);
	sim__dequeue_at(s, q, i);
}

/* Try @q's job at position @i: start it if it fits, else preempt if it
 * may.  @pf: fewest GPUs of a job that did not fit this pass (a bigger
 * one will not either); @ef: the same for a failed preemption.  Return
 * true if the job started (it left the queue). */
static bool try_job(struct sim *s, struct pending_queue *q, uint32_t i,
		    int64_t now, uint32_t *pf, uint32_t *ef)
{
	uint32_t job = q->entries[i].job, nn;
	const struct sim_job *j = &s->w->jobs[job];
	bool within = sim__is_budget(s) || sim__within_cap(s, j), blocked = false;
	uint64_t mask;

	if (j->gpus < *pf) {
		nn = sim__bf_place(s, job, now, &mask, &blocked);
		if (nn) {
			sim__dequeue_at(s, q, i);
			sim__start(s, job, now, nn, mask, sim__is_budget(s) ?
				   !sim__allocated(s, job) : !within);
			return true;
		}
		if (!blocked)	/* it does not fit, reservations or not */
			*pf = j->gpus;
	}
	/* a job held back by a reservation waits: it does not preempt */
	if (!blocked && may_preempt(s, job, within) && j->gpus < *ef) {
		if (sim__try_preempt(s, job, now)) {
			dequeue_job(s, q, i, job);
			s->bf_cluster_ok = false;	/* cluster changed */
			*pf = UINT32_MAX;	/* leftovers freed */
			return true;
		}
		*ef = j->gpus;
	}
	sim__bf_reserve(s, job, now);
	return false;
}

/* The most GPUs (at most 255) of a job that fits on the cluster now. */
static uint32_t fit_max(struct sim *s)
{
	uint32_t lo = 0, hi = 255;

	if (s->fit_max_version == s->cluster_version)
		return s->fit_max_gpus;
	while (lo < hi) {	/* fitting is monotone in the GPUs */
		uint32_t mid = (lo + hi + 1) / 2;

		if (sim__cl_fits(s, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	s->fit_max_gpus = lo;
	s->fit_max_version = s->cluster_version;
	return lo;
}

/*
 * Under one reservation, when the pass's state is what it was at the last
 * check that something may still start (the caller's @same), the first
 * position >= @i of @q whose job may do anything: the jobs before it are
 * passed over (as big as a job that did not fit and as one whose
 * preemption failed, or unallocated: @lim), or would fit only on reserved
 * GPUs and run past the reservation's start (as big as a job that did not
 * fit beside it, s->bf_fail_gpus, its remaining's bit length sure to pass
 * the start, and for an allocated job fitting the cluster, so that the pass's
 * shortcut would make it wait, followed by the same check with the same
 * answer).  Reads only the bytes gpus_byte and rem_bits.
 */
static uint32_t next_busy(struct sim *s, const struct pending_queue *q,
			  uint32_t i, uint32_t lim, uint32_t pf, bool unalloc,
			  int64_t now)
{
	int64_t d = s->resv[0].t - now;	/* >= 0: made no earlier */
	uint32_t b0 = d > 0 ? 65 - (uint32_t)__builtin_clzll((uint64_t)d) : 1;
	uint32_t bff = s->bf_fail_gpus, fc = unalloc ? 255 : fit_max(s);

	/* a rem of bit length b >= b0 is >= 2^(b0-1) > d: past the start;
	 * 16 jobs at a time (GCC vector extensions: SIMD where the machine
	 * has it), then one by one */
	typedef uint8_t v16u __attribute__((vector_size(16)));
	typedef int8_t v16s __attribute__((vector_size(16)));
	const v16s none = { 0 }, all = ~none;

	for (; i + 16 <= q->n; i += 16) {
		v16u g, r;
		v16s over, wait;
		uint64_t w[2];

		memcpy(&g, q->gpus_byte + i, sizeof(g));
		memcpy(&r, q->rem_bits + i, sizeof(r));
		over = lim <= 255 ? (v16s)(g >= (uint8_t)lim) : none;
		wait = (v16s)(g != 255) & (v16s)(g <= (uint8_t)fc) &
		       (v16s)(r >= (uint8_t)b0) &
		       (bff <= 255 ? (v16s)(g >= (uint8_t)bff) : none) &
		       (pf <= 255 ? (v16s)(g < (uint8_t)pf) : all);
		over |= wait;
		memcpy(w, &over, sizeof(w));
		if (~w[0] | ~w[1])
			break;	/* one of them may do something */
	}
	for (; i < q->n; i++) {
		uint32_t g = q->gpus_byte[i];

		if (g >= lim)
			continue;
		if (g == 255 || g < bff || g >= pf || g > fc ||
		    q->rem_bits[i] < b0)
			break;
	}
	return i;
}

/* A full pass: every group in pass order, every job in queue order, with
 * the skips of try_job()'s @pf/@ef (a job that would fail as a smaller one
 * did is not tried). */
static void pass(struct sim *s, int64_t now)
{
	uint32_t pf = UINT32_MAX, ef = UINT32_MAX, gi;
	const bool bud = sim__is_budget(s);
	const uint32_t ngr = bud ? s->npass_order : 3, reserve = s->p->reserve;
	const bool none = s->p->backfill == SIM_BACKFILL_NONE;
	const bool resv = s->p->backfill == SIM_BACKFILL_RESERVE;

	/* the state at the last check that said something may still start
	 * under the reservation (next_busy()) */
	uint32_t c_pf = 0, c_ef = 0, c_bff = 0;
	uint64_t c_clv = 0;
	size_t c_np = 0;
	bool c_ok = false;

	s->r->passes++;
	s->nresv = s->nresv_tried = 0;	/* planned again */
	s->bf_cluster_ok = false;
	s->queued_mid_pass = false;
	for (gi = 0; gi < ngr && !s->err; gi++) {
		uint32_t g = bud ? s->pass_order[gi] : gi;
		struct pending_queue *q = &s->queues[g];
		bool unalloc = bud && g >= s->t->n;
		uint32_t i = 0, lim = unalloc ? pf : pf > ef ? pf : ef;

		if (!q->n || (sim__gmin(q) >= lim &&
			      (!resv || s->nresv_tried >= reserve)))
			continue;	/* nobody here can do anything */
		while (i < q->n && !s->err) {
			uint32_t qg, hi;
			bool fail;

			/* a job at least as big as one that did not fit and
			 * as one whose preemption failed (or unallocated)
			 * is passed over below, with nothing done when no
			 * reservation is left to make: find the next one
			 * that is not, reading only sizes (budget only: the
			 * baseline mostly passes over jobs of teams over
			 * their cap, which the bytes do not show, and a call
			 * per job cost it more than it saved) */
			if (bud && !none &&
			    (!resv || s->nresv_tried >= reserve)) {
				uint32_t cur = unalloc ? pf : pf > ef ? pf : ef;

				if (cur <= 255 && q->gpus_byte[i] >= cur)
					i = sim__q_next_below(q, i, cur);
				else if (resv && s->nresv == 1 &&
					 s->bf_cluster_ok &&
					 !s->queued_mid_pass && c_ok &&
					 c_pf == pf && c_ef == ef &&
					 c_bff == s->bf_fail_gpus &&
					 c_clv == s->cluster_version &&
					 c_np == s->npending)
					i = next_busy(s, q, i, cur, pf, unalloc,
						      now);
				if (i >= q->n)
					break;
			}
			qg = q->entries[i].gpus;
			/* it would fail as a job with fewer GPUs did; or,
			 * under one reservation, beside it as a job with
			 * fewer GPUs did, and it does not end before it */
			fail = qg >= pf ||
			       (resv && s->nresv == 1 && s->bf_cluster_ok &&
				qg >= s->bf_fail_gpus &&
				now + (int64_t)q->entries[i].remaining >
					s->resv[0].t);

			/* ... and it may not preempt (unallocated;
			 * baseline: over its team's cap) */
			if (!none && fail &&
			    (qg >= ef || unalloc ||
			     (!bud &&
			      s->team_used[q->entries[i].team] + qg >
				      s->team_cap[q->entries[i].team]))) {
				if (resv && s->nresv_tried < reserve)
					sim__bf_reserve(s, q->entries[i].job,
							now);
				i++;
				continue;
			}
			if (fail && qg < pf && !s->queued_mid_pass &&
			    sim__cl_fits(s, qg)) {
				/* what try_job() would find, without reading
				 * the job: under one reservation
				 * (bf_cluster_ok), as big as a job that did
				 * not fit beside it and running past its
				 * start, it fits only on
				 * reserved GPUs (place_one(): the reservation
				 * binds, its job came earlier in this pass and
				 * is still pending, no job was queued since to
				 * break the pass order), so it waits */
				sim__bf_reserve(s, q->entries[i].job, now);
			} else if (try_job(s, q, i, now, &pf, &ef)) {
				continue;
			}
			if (none)
				return;
			i++;
			hi = pf > ef ? pf : ef;
			if (resv && s->nresv == 1 && s->bf_cluster_ok &&
			    s->nresv_tried >= reserve) {
				/* something may still start: a job that may
				 * fit beside the reservation, or that fits and
				 * ends before it; or preempt */
				uint32_t lo = pf < s->bf_fail_gpus
						      ? pf
						      : s->bf_fail_gpus;

				hi = lo > ef ? lo : ef;
				if (!sim__any_below(s, hi, bud ?
						    lo : hi) &&
				    !sim__any_short(s, pf, s->resv[0].t - now))
					return;
				c_ok = true;
				c_pf = pf;
				c_ef = ef;
				c_bff = s->bf_fail_gpus;
				c_clv = s->cluster_version;
				c_np = s->npending;
			} else if ((!resv || s->nresv_tried >= reserve) &&
				   !sim__any_below(s, hi, bud ?
						   pf : hi)) {
				return;
			}
		}
	}
}

/*
 * A pass when nothing changed since the last one but new jobs arrived (no
 * GPUs freed, no recalculation, no protection ended): every job that
 * failed then would fail again, so only the arrivals are tried, in pass
 * order.  A preemption frees leftovers, so it is followed by a full pass.
 */
static const struct sim *arr_sim;	/* qsort(3) has no context argument */

static int arr_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t gx = arr_sim->pass_rank[sim__group_of(arr_sim, x)];
	uint32_t gy = arr_sim->pass_rank[sim__group_of(arr_sim, y)];

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return sim__q_before(arr_sim, x, y) ? -1 : sim__q_before(arr_sim, y, x);
}

static void pass_arrivals(struct sim *s, int64_t now)
{
	size_t k;
	bool again = false;

	s->r->passes++;
	s->bf_cluster_ok = false;	/* rebuilt from the cluster as it is */
	arr_sim = s;
	qsort(s->arrivals, s->narrivals, sizeof(*s->arrivals), arr_cmp);
	for (k = 0; k < s->narrivals && !s->err; k++) {
		uint32_t job = s->arrivals[k], lo, nn;
		const struct sim_job *j = &s->w->jobs[job];
		struct pending_queue *q = &s->queues[sim__group_of(s, job)];
		bool within = sim__is_budget(s) || sim__within_cap(s, j);
		bool blocked;
		uint64_t mask;

		if (s->job_state[job].state != J_PENDING)
			continue;
		if (k && s->arrivals[k - 1] == job)
			continue;
		lo = sim__q_find(s, q, job);	/* its place in its queue */
		if (lo >= q->n || q->entries[lo].job != job) {
			snprintf(s->msg, s->msglen, "queue out of order (a bug)");
			s->err = -1;
			return;
		}
		nn = sim__bf_place(s, job, now, &mask, &blocked);
		if (nn) {
			sim__dequeue_at(s, q, lo);
			sim__start(s, job, now, nn, mask, sim__is_budget(s) ?
				   !sim__allocated(s, job) : !within);
			continue;
		}
		if (!blocked && may_preempt(s, job, within) &&
		    sim__try_preempt(s, job, now)) {
			dequeue_job(s, q, lo, job);
			s->bf_cluster_ok = false;
			again = true;
			continue;
		}
		/* it cannot start: a full pass plans the reservations
		 * again if it should have one */
		again |= sim__bf_wants(s, job);
	}
	if (again && !s->err)
		pass(s, now);
}

/* --------------------------------------------------------------- setup */

static int setup(struct sim *s)
{
	size_t i;
	uint32_t na = s->t->n;
	int rc;

	if (sim__state_alloc(s) || sim__bf_init(s))
		return -1;
	if (sim_cluster_init(&s->cluster, s->p->nodes, s->p->gpus_per_node) ||
	    sim_cluster_init(&s->scratch_cluster, s->p->nodes,
			     s->p->gpus_per_node)) {
		snprintf(s->msg, s->msglen, "bad cluster: %u nodes x %u GPUs "
			 "(1..64 GPUs per node)", s->p->nodes,
			 s->p->gpus_per_node);
		return -1;
	}
	s->cluster.best_fit = s->scratch_cluster.best_fit = s->p->best_fit;
	for (i = 0; i < s->w->njobs; i++) {
		const struct sim_job *j = &s->w->jobs[i];

		s->r->jobs[i].first_start = SIM_NEVER;
		s->r->jobs[i].end = SIM_NEVER;
		s->r->jobs[i].pending_since = SIM_NEVER;
		s->job_state[i].remaining = j->duration;
		s->job_state[i].submit = j->submit;
		s->job_state[i].demand_from = SIM_NEVER;
		sim_job_contract(j->min_runtime, j->resumable, !j->no_requeue,
				 true, &s->job_state[i].contract);
	}
	for (i = 0; i < 3; i++)
		s->pass_rank[i] = (uint32_t)i;	/* HIGH, NORMAL, LOW */
	for (i = 0; i < na; i++) {
		double cap = sb_tree_node(s->t->tree, (uint32_t)i)->entitled *
			     (double)s->p->nodes * s->p->gpus_per_node;

		s->team_cap[i] = (uint32_t)(cap + 1e-9);
	}
	if (!sim__is_budget(s))
		return 0;
	if (sb_tree_max_depth(s->t->tree) >= SB_VIEW_MAX_DEPTH) {
		snprintf(s->msg, s->msglen, "the budget tree has %u levels: "
			 "the policy core handles at most %d",
			 sb_tree_max_depth(s->t->tree) + 1, SB_VIEW_MAX_DEPTH);
		return -1;
	}
	rc = sb_ledger_new(s->t->tree, s->p->cfg.lookback_window,
			   s->p->cfg.bucket_width, &s->ledger);
	if (rc == SB_OK)
		rc = sb_standing_new(s->t->tree, &s->standing);
	if (rc == SB_OK)
		rc = sb_view_init(&s->view, s->t->tree);
	if (rc != SB_OK) {
		sim__core_fail(s, "ledger/standing/view", rc);
		return -1;
	}
	return 0;
}

static void teardown(struct sim *s)
{
	sim__bf_free(s);
	sim__state_free(s);
}

/* At the end: runs still going end at @t_end, unfinished; jobs still
 * pending are unfinished too, pending since their last eligibility.  A
 * preemptor placed to start when its victims stop (their grace time) after
 * @t_end has not started: pending too, with no run (a run starting after
 * the end would make `run` count it as started and `metrics` on its
 * segments widen the window to that start). */
static void finish(struct sim *s, int64_t t_end)
{
	size_t i;

	for (i = 0; i < s->w->njobs; i++) {
		struct job_state *x = &s->job_state[i];

		if (x->state == J_RUNNING && x->start > t_end) {
			if (s->r->jobs[i].first_start == x->start)
				s->r->jobs[i].first_start = SIM_NEVER;
			s->r->jobs[i].how = SIM_END_UNFINISHED;
			s->r->jobs[i].pending_since = x->eligible_at;
		} else if (x->state == J_RUNNING || x->state == J_STOPPING) {
			int64_t e = x->start < t_end ? t_end : x->start;

			add_seg(s, (uint32_t)i, e, false, false,
				SIM_FATE_UNFINISHED);
			s->r->jobs[i].end = e;
			s->r->jobs[i].how = SIM_END_UNFINISHED;
		} else if (x->state == J_PENDING || x->state == J_WAITING ||
			   x->state == J_FUTURE) {
			s->r->jobs[i].how = SIM_END_UNFINISHED;
			if (x->state == J_PENDING)
				s->r->jobs[i].pending_since = x->eligible_at;
			else if (x->demand_from != SIM_NEVER)	/* to be
							 * resubmitted */
				s->r->jobs[i].pending_since = x->demand_from;
		}
	}
	s->r->t_end = t_end;
}

/* ------------------------------------------------------------ the loop */

/* Handle event @e at @now.  Return whether it changed anything but the
 * standing (a "real" event, for the end time and the stuck check). */
static bool handle(struct sim *s, struct event e, int64_t now, int64_t cp)
{
	struct job_state *x = &s->job_state[e.job];
	const struct sim_workload *w = s->w;

	s->r->events++;
	switch (e.type) {
	case EV_TICK:
		sim__tick(s, now);
		if (s->next_submit < w->njobs || s->npending || s->nrunning ||
		    s->nevents)
			sim__push(s, now + cp, EV_TICK, 0, 0);
		return false;
	case EV_END:
		if (x->state != J_RUNNING || x->run != e.run)
			return false;	/* stale */
		s->full_pass_due = true;	/* GPUs freed */
		unrun(s, e.job);
		sim__charge_end(s, e.job, now);
		add_seg(s, e.job, now, false, false, SIM_FATE_DONE);
		x->state = J_DONE;
		s->r->jobs[e.job].end = now;
		s->r->jobs[e.job].how = SIM_END_DONE;
		return true;
	case EV_STOP:
		if (x->state != J_STOPPING || x->run != e.run)
			return false;
		stop(s, e.job, now);
		return true;
	case EV_RELEASE: {
		uint32_t nd = s->holds[e.job].node;
		uint64_t m = s->holds[e.job].mask;
		uint32_t k = (uint32_t)__builtin_popcountll(m);

		s->cluster.free[nd] |= m;
		s->cluster.nfree[nd] += k;
		s->cluster.total_free += k;
		s->cluster.nofit = UINT32_MAX;
		s->gpus_held -= k;
		sim__node_dirty(s, nd);
		sim__room_changed(s, &nd, 1);
		s->cluster_version++;
		s->full_pass_due = true;
		return true;
	}
	case EV_ELIGIBLE:
		if (x->state != J_WAITING || x->run != e.run)
			return false;
		sim__enqueue(s, e.job, now);
		if (x->demand_from != SIM_NEVER) {	/* resubmitted */
			x->eligible_at = x->demand_from;
			x->demand_from = SIM_NEVER;
		}
		return true;
	}
	return false;
}

/* Idle (nothing pending or running, only the tick in the heap, the next
 * submission a CalcPeriod or more away): move the tick to the next
 * submission's period.  True if it did. */
static bool skip_idle(struct sim *s, int64_t cp)
{
	const struct sim_workload *w = s->w;
	int64_t sub;

	if (!sim__is_budget(s) || s->npending || s->nrunning ||
	    s->nevents != 1 || s->events[0].type != EV_TICK ||
	    s->next_submit >= w->njobs)
		return false;
	sub = w->jobs[s->next_submit].submit;
	if (sub - sub % cp <= s->events[0].time)
		return false;
	s->nevents = 0;	/* only the tick is in the heap */
	sim__push(s, sub - sub % cp, EV_TICK, 0, 0);
	return true;
}

/* The scheduling moment after the events of @now: a full pass if
 * something changed, only the arrivals if only they did. */
static void schedule(struct sim *s, int64_t now, bool real, size_t *stuck)
{
	size_t before = s->nrunning;

	if (!s->npending) {
		s->full_pass_due = false;
		s->narrivals = 0;
	}
	if (!s->err && sim__is_budget(s) && sim__prot_expired(s, now))
		s->full_pass_due = true;
	if (!s->npending || s->err || (!s->full_pass_due && !s->narrivals))
		return;
	if (s->full_pass_due || s->p->backfill == SIM_BACKFILL_NONE)
		pass(s, now);
	else
		pass_arrivals(s, now);
	s->full_pass_due = false;
	s->narrivals = 0;
	/* Nothing can ever change: pending jobs, nothing running, no other
	 * event than ticks. */
	if (!real && !s->nrunning && before == 0 &&
	    s->next_submit >= s->w->njobs && s->nevents <= 1 && ++*stuck > 2) {
		snprintf(s->msg, s->msglen, "pending jobs can never start "
			 "(a bug)");
		s->err = -1;
	}
}

int sim_run(const struct sim_workload *w, const struct sim_tree *t,
	    const struct sim_params *p, struct sim_result *r, char *msg,
	    size_t msglen)
{
	struct sim s = { .w = w, .t = t, .p = p, .r = r, .msg = msg,
			 .msglen = msglen };
	int64_t now = 0, cp = p->cfg.calc_period > 0 ? p->cfg.calc_period : 1;
	int64_t last = 0;	/* time of the last event other than a tick */
	size_t stuck = 0;

	memset(r, 0, sizeof(*r));
	if (msglen)
		msg[0] = '\0';
	s.preempt_policy = p->cfg.preempt;
	s.preempt_policy.requeue_delay = p->requeue_delay;
	if (setup(&s)) {
		s.err = -1;	/* the message is written */
		goto out;
	}
	if (w->njobs)
		now = w->jobs[0].submit;
	if (sim__is_budget(&s)) {
		s.last_tick = now - now % cp;
		sim__tick(&s, s.last_tick);
		sim__push(&s, s.last_tick + cp, EV_TICK, 0, 0);
	}
	while (!s.err) {
		int64_t tn = INT64_MAX;
		bool real = false;

		if (s.next_submit < w->njobs)
			tn = w->jobs[s.next_submit].submit;
		if (s.nevents && s.events[0].time < tn)
			tn = s.events[0].time;
		/* jobs waiting SIM_LONG_WAIT before then: why (reads only) */
		sim__probe_long_waits(&s, tn == INT64_MAX ? last + 1 :
				      p->until != SIM_NEVER && tn > p->until ?
				      p->until : tn);
		if (tn == INT64_MAX)
			break;
		if (p->until != SIM_NEVER && tn > p->until) {
			now = p->until;
			break;
		}
		if (skip_idle(&s, cp))
			continue;
		now = tn;
		while (!s.err) {
			if (s.nevents && s.events[0].time == now) {
				real |= handle(&s, sim__pop(&s), now, cp);
			} else if (s.next_submit < w->njobs &&
				   w->jobs[s.next_submit].submit == now) {
				r->events++;
				real = true;
				sim__enqueue(&s, (uint32_t)s.next_submit++, now);
			} else {
				break;
			}
		}
		if (real)
			last = now;
		schedule(&s, now, real, &stuck);
	}
	if (!s.err)
		finish(&s, p->until != SIM_NEVER ? now : last);
	if (!s.err)
		sim__explain_pending(&s, r->t_end);
out:
	teardown(&s);
	return s.err ? -1 : 0;
}
