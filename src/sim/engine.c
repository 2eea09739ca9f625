/*
 * engine.c - the simulation itself: the state set up and torn down, the
 * event loop (sim_run) and the end of a run.  The scheduling pass is
 * pass.c's, starting and stopping runs run.c's; the other engine files
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

			sim__add_seg(s, (uint32_t)i, e, false, false,
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
		sim__unrun(s, e.job);
		sim__charge_end(s, e.job, now);
		sim__add_seg(s, e.job, now, false, false, SIM_FATE_DONE);
		x->state = J_DONE;
		s->r->jobs[e.job].end = now;
		s->r->jobs[e.job].how = SIM_END_DONE;
		return true;
	case EV_STOP:
		if (x->state != J_STOPPING || x->run != e.run)
			return false;
		sim__stop(s, e.job, now);
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
		sim__pass(s, now);
	else
		sim__pass_arrivals(s, now);
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
	r->tightest_gap = -1;
	if (msglen)
		msg[0] = '\0';
	s.preempt_policy = p->cfg.preempt;
	s.preempt_policy.requeue_delay = p->requeue_delay;
	/* the debug lane: budget policy only, unless budget.conf turns it
	 * off (sb_lane_sized() is then never true) */
	s.lane_on = p->policy == SIM_POLICY_BUDGET && p->cfg.preempt.lane.max_tres &&
		    p->cfg.preempt.lane.budget_tres;
	s.lane_group = s.lane_on ? 2 * t->n : UINT32_MAX;
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
