/*
 * charge.c - the budget policy's bookkeeping, as priority/budget does it:
 * charging run GPU-seconds into the ledger, and the recalculation (TICK)
 * every CalcPeriod that turns the ledger and the running jobs into the
 * budget view (sb/view.h) and the standing (sb/standing.h).
 *
 * Charging is exact: every GPU-second of a run is charged once, in the
 * bucket it ran in, before the TICK that reads it; GPU-seconds are whole
 * numbers, so the ledger's sums are exact (sb/ledger.h).  A run started
 * since the last TICK is "fresh" and charged from its start; an "old" one
 * is charged per association in one sum (old_alloc_gpus/old_unalloc_gpus)
 * from the last TICK.
 */
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/priority.h"
#include "engine.h"

/* The priority of @job as sb_priority_job() gives it, with the resumed bit
 * of sb_priority_resumed(), moved to the debug lane's level
 * (sb_priority_lane()) while it carries it (lane.c decides when, through
 * sb_lane_priority() and sb_lane_holds()). */
uint32_t sim__job_priority(const struct sim *s, uint32_t job, bool pending)
{
	const struct sim_job *j = &s->w->jobs[job];
	uint32_t p = sb_priority_job(s->standing, j->assoc,
				     sim__allocated(s, job), j->prio);

	p = sb_priority_resumed(p, pending, s->job_state[job].resumed);
	return s->job_state[job].lane ? sb_priority_lane(p) : p;
}

static void charge(struct sim *s, uint32_t assoc, int64_t from, int64_t to,
		   double gpus, bool alloc)
{
	int rc;

	if (to <= from || gpus <= 0)
		return;
	rc = sb_ledger_charge(s->ledger, assoc, from, to, gpus, alloc);
	if (rc != SB_OK)
		sim__core_fail(s, "sb_ledger_charge", rc);
}

/* A run of @job ends at @e (>= its start): charge what is not yet. */
void sim__charge_end(struct sim *s, uint32_t job, int64_t e)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct job_state *x = &s->job_state[job];
	bool al = sim__allocated(s, job);

	if (!sim__is_budget(s))
		return;
	if (x->charged_to_tick) {
		(al ? s->old_alloc_gpus : s->old_unalloc_gpus)[j->assoc] -=
			j->gpus;
		charge(s, j->assoc, s->last_tick, e, j->gpus, al);
	} else {
		charge(s, j->assoc, x->start, e, j->gpus, al);
	}
}

/* @job's current run just started: fresh until the next TICK. */
void sim__fresh_add(struct sim *s, uint32_t job)
{
	if (s->nfresh_runs == s->fresh_runs_cap) {
		size_t cap = s->fresh_runs_cap ? s->fresh_runs_cap * 2 : 256;
		void *v = realloc(s->fresh_runs, cap * sizeof(*s->fresh_runs));

		if (!v) {
			sim__oom(s);
			return;
		}
		s->fresh_runs = v;
		s->fresh_runs_cap = cap;
	}
	s->fresh_runs[s->nfresh_runs].job = job;
	s->fresh_runs[s->nfresh_runs].run = s->job_state[job].run;
	s->nfresh_runs++;
}

/* Charge every run up to @T; fresh runs that started before @T become
 * old. */
static void charge_to(struct sim *s, int64_t T)
{
	uint32_t a, n = s->t->n;
	size_t i, keep = 0;

	for (a = 0; a < n; a++) {
		charge(s, a, s->last_tick, T, s->old_alloc_gpus[a], true);
		charge(s, a, s->last_tick, T, s->old_unalloc_gpus[a], false);
	}
	for (i = 0; i < s->nfresh_runs; i++) {
		uint32_t job = s->fresh_runs[i].job;
		struct job_state *x = &s->job_state[job];
		const struct sim_job *j = &s->w->jobs[job];
		bool al = sim__allocated(s, job);

		if (x->run != s->fresh_runs[i].run ||
		    (x->state != J_RUNNING && x->state != J_STOPPING))
			continue;	/* ended: charged then */
		if (x->start >= T) {
			s->fresh_runs[keep++] = s->fresh_runs[i];
			continue;
		}
		charge(s, j->assoc, x->start, T, j->gpus, al);
		(al ? s->old_alloc_gpus : s->old_unalloc_gpus)[j->assoc] +=
			j->gpus;
		x->charged_to_tick = true;
	}
	s->nfresh_runs = keep;
	s->last_tick = T;
}

/* s->standing_level's flag: the level changed at this recalculation (levels are
 * below 2^20: SB_PRIO_LEVEL_MAX) */
#define LEVEL_CHANGED (UINT32_C(1) << 31)

/*
 * The recalculation at @T, as priority/budget's: charge up to @T; the view's
 * charged usage is the ledger's windowed allocated usage with subtrees
 * (sb_ledger_usage_all, after sb_ledger_sync: the same sums, kept), its
 * committed usage the uncharged rest of every running allocated job's min
 * runtime (sb_view_commit; runs past their protection commit nothing and
 * are skipped); the standing is computed from their sum
 * (sb_view_usage_all); then the pass order and the running jobs' current
 * priorities are refreshed.  The view stays as of @T until the next TICK:
 * the reclaim rule reads it (victims.c).
 */

/*
 * Stamp s->order_changed_at[k] with this order epoch for every position k
 * at which a running job's current priority may now compare with that of a
 * preemptor at k otherwise than before (victims.c, "failed tries, kept"):
 * a level is a function of the position alone, so the comparisons hold
 * where the association at k is the same and so is the *set* of those
 * above it (their order among themselves may change).  @ord: the new order
 * of @cnt; positions below @first are unchanged.  The sets are compared by
 * a count per association (+1 in the new prefix, -1 in the old one) and
 * the number of counts that are not 0; the counts end at 0 (both orders
 * hold every association).  The first recalculation stamps every
 * position, and so does every one on a tree of more associations than
 * there are levels (SB_PRIO_LEVEL_TOP): there neighbouring positions share
 * a level, and a move within the set above can change a comparison.
 */
static void order_changes(struct sim *s, const uint32_t *ord, uint32_t cnt,
			  uint32_t first)
{
	int32_t *d = s->order_count;
	uint32_t k, ndiff = 0;
	const bool sets = cnt <= SB_PRIO_LEVEL_TOP;

	for (k = first; k < cnt; k++) {
		if (!sets || !s->recalcs_done || ndiff ||
		    ord[k] != s->prev_order[k])
			s->order_changed_at[k] = s->order_epoch;
		if (!s->recalcs_done)
			continue;
		/* +1 for the new one, -1 for the old one */
		if (d[ord[k]]++ == 0)
			ndiff++;
		else if (d[ord[k]] == 0)
			ndiff--;
		if (d[s->prev_order[k]]-- == 0)
			ndiff++;
		else if (d[s->prev_order[k]] == 0)
			ndiff--;
	}
}

void sim__tick(struct sim *s, int64_t T)
{
	uint32_t a, n = s->t->n, cnt;
	const uint32_t *ord;
	bool changed = false;	/* a level changed */
	size_t i;
	int rc;

	s->r->recalcs++;
	s->recalc_epoch++;	/* failed preemption tries are stale */
	charge_to(s, T);
	/* the window sums moved to T: the read below is O(associations) */
	rc = sb_ledger_sync(s->ledger, T);
	if (rc == SB_OK)
		rc = sb_ledger_usage_all(s->ledger, T, true, s->usage, NULL);
	if (rc == SB_OK)
		rc = sb_view_set_charged(&s->view, s->usage);
	if (rc != SB_OK) {
		sim__core_fail(s, "sb_ledger_sync/usage_all/sb_view_set_charged",
			       rc);
		return;
	}
	sb_view_clear_committed(&s->view);
	for (i = 0; i < s->nrunning; i++) {
		if (T >= s->run_info[i].commit_until)
			continue;	/* past its protection: commits 0 */
		rc = sb_view_commit(&s->view, s->run_info[i].party.index,
				    &s->run_info[i].party.job, T);
		if (rc != SB_OK) {
			sim__core_fail(s, "sb_view_commit", rc);
			return;
		}
	}
	sb_view_usage_all(&s->view, s->usage);
	rc = sb_standing_compute_usage(s->standing, s->usage);
	if (rc != SB_OK) {
		sim__core_fail(s, "sb_standing_compute_usage", rc);
		return;
	}
	/* pass order: allocated groups by standing, then unallocated */
	ord = sb_standing_order(s->standing, &cnt);
	/* the first position whose association changed */
	for (a = 0; a < cnt && s->recalcs_done && s->prev_order[a] == ord[a];
	     a++)
		;
	if (a < cnt) {
		s->order_epoch++;
		order_changes(s, ord, cnt, a);
		memcpy(s->prev_order, ord, cnt * sizeof(*ord));
	}
	s->recalcs_done = true;
	/* the debug lane's group first, when there is a lane */
	i = s->lane_on;
	if (s->lane_on)
		s->pass_order[0] = s->lane_group;
	for (a = 0; a < cnt; a++) {
		s->pass_order[i + a] = ord[a];
		s->pass_order[i + cnt + a] = n + ord[a];
	}
	s->npass_order = 2 * cnt + (uint32_t)i;
	for (a = 0; a < s->npass_order; a++)
		s->pass_rank[s->pass_order[a]] = a;
	/* running jobs' current priority, as priority/budget refreshes it:
	 * sb_priority_job() is a function of the association's standing
	 * level, the contract and the in-team priority, so only the jobs of
	 * an association whose level changed are asked again */
	if (s->lane_on)
		sim__lane_tick(s, T);
	for (a = 0; a < n; a++) {
		const struct sb_standing_node *sn =
			sb_standing_node(s->standing, a);
		uint32_t lv = sn ? sn->level : 0;

		if (s->standing_level[a] != lv) {
			s->standing_level[a] = lv | LEVEL_CHANGED;
			changed = true;
		}
	}
	if (changed) {
		s->rank_epoch++;	/* node_min_rank, victims.c */
		for (i = 0; i < s->nrunning; i++)
			if (s->standing_level[s->run_info[i].party.index] &
			    LEVEL_CHANGED)
				s->run_info[i].party.job.priority =
					sim__job_priority(s, s->run_info[i].job,
							  false);
		for (a = 0; a < n; a++)
			s->standing_level[a] &= ~LEVEL_CHANGED;
	}
	s->full_pass_due = true;
}
