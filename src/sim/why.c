/*
 * why.c - why each job still pending when the simulation ends waits, in
 * the words `sbudget show job` prints (WaitsFor, sb_wait_format()): the
 * pending jobs the next pass takes before it, the GPUs it needs, those
 * idle, and the core's verdict (sb_preempt_decide(), on the budget view
 * of the last recalculation) on every running job: how many GPUs it may
 * take now, how many the reclaim rule or its cost holds back, and the
 * first protected slice whose end would let it preempt.  Under the
 * baseline policy a job within its team's cap may take preemptible runs
 * (victims.c); one over its cap none, which the sentence says.
 *
 * Reason: "Priority" when pending jobs come before it in the next pass,
 * else "Resources" (Slurm's words for the same two cases).
 *
 * Also asked of every job still waiting SIM_LONG_WAIT after its
 * submission, never started (sim__probe_long_waits()), so that a job that
 * starts late is named with why it was waiting then.  The probe reads the
 * state only: the simulation runs as without it (between two events the
 * state is constant, so the state at the next event, before it, is the
 * state at the probe's time).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/wait.h"
#include "engine.h"

/* Pending @job's position in the next pass (pass order: the groups in
 * s->pass_order, budget; the three classes, baseline; each in queue order:
 * the jobs the pass takes before it), and the first job of the pass
 * into *@first. */
static uint32_t pass_position(const struct sim *s, uint32_t job,
			      uint32_t *first)
{
	const bool bud = sim__is_budget(s);
	const uint32_t ngr = bud ? s->npass_order : 3,
		       mine = sim__group_of(s, job);
	uint32_t gi, pos = 0;

	*first = UINT32_MAX;
	for (gi = 0; gi < ngr; gi++) {
		const uint32_t g = bud ? s->pass_order[gi] : gi;
		const struct pending_queue *q = &s->queues[g];

		if (*first == UINT32_MAX && q->n)
			*first = q->entries[0].job;
		if (g == mine)
			return pos + sim__q_find(s, q, job);
		pos += q->n;
	}
	return pos;
}

/* The sentence for pending @job at @now, into @buf. */
static void explain(struct sim *s, uint32_t job, uint32_t pos, uint32_t first,
		    int64_t now, char *buf, size_t len)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct sb_preempt_party me = {
		.job = { .contract = s->job_state[job].contract,
			 .start = now, .tres = j->gpus,
			 .time_limit = j->time_limit,
			 .eligible = s->job_state[job].queued_at },
		.index = j->assoc,
		.in_grace = false,
	};
	const bool bud = sim__is_budget(s);
	const bool within = bud || sim__within_cap(s, j);
	struct sb_wait_facts f = {
		.reason = pos ? "Priority" : "Resources",
		.ahead = pos, .top = (uint64_t)first + 1,
		.needs = j->gpus, .tres = s->p->cfg.charge_tres,
		.idle = (double)s->cluster.total_free,
		/* baseline: no contracts; over its cap it takes
		 * nothing (the note) */
		.allocated = bud ? s->job_state[job].contract.allocated : true,
		.note = bud || within ? NULL : "its team is over its cap of "
			"non-preemptible GPUs (baseline): it takes no "
			"preemptible runs",
	};
	char kept_why[512], why[512], next_at[64], lw_at[64];
	int64_t next = INT64_MAX;
	uint32_t pr;
	size_t i;

	if (bud)
		me.job.priority = sim__job_priority(s, job, true);
	pr = sim__rank_bar(s, &me);
	for (i = 0; i < s->nrunning; i++) {
		const struct run_info *rj = &s->run_info[i];
		enum sb_preempt_verdict vd;
		int64_t until;

		if (!bud) {
			if (within && rj->preemptible)
				f.preemptable += rj->party.job.tres;
			continue;
		}
		/* a run that ranks at least as high as an allocated job is
		 * refused by the core now (protected or outranked) and when
		 * its protection ends (outranked): nothing to count */
		if (sim__outranked(pr, rj))
			continue;
		/* the verdict first, its text only where it is kept */
		vd = sb_preempt_decide(&s->preempt_policy, &s->view, &me,
				       &rj->party, now, NULL, 0);
		if (vd == SB_PREEMPT_YES)
			f.preemptable += rj->party.job.tres;
		if (vd == SB_PREEMPT_LOSS_WAIT)
			f.loss_wait += rj->party.job.tres;
		if (vd == SB_PREEMPT_RECLAIM || vd == SB_PREEMPT_COSTLY) {
			sb_preempt_decide(&s->preempt_policy, &s->view, &me,
					  &rj->party, now, why, sizeof(why));
			f.kept += rj->party.job.tres;
			f.kept_job = (uint64_t)rj->job + 1;
			snprintf(kept_why, sizeof(kept_why), "%s", why);
			f.kept_why = kept_why;
		}
		/* protected or held now: would the core's rule let it go
		 * when its slice (or interval) ends? (as show job asks;
		 * prot_until is sb_preempt_hold_until(), kept) */
		until = rj->prot_until;
		if ((vd == SB_PREEMPT_PROTECTED || vd == SB_PREEMPT_INTERVAL) &&
		    until < next &&
		    sb_preempt_check(&s->preempt_policy, &me.job,
				     &rj->party.job, until) == SB_PREEMPT_YES) {
			next = until;
			f.next_job = (uint64_t)rj->job + 1;
		}
	}
	if (f.next_job) {
		snprintf(next_at, sizeof(next_at), "at %" PRId64 " s", next);
		f.next_at = next_at;
	}
	if (f.loss_wait > 0) {
		snprintf(lw_at, sizeof(lw_at), "%" PRId64 " s",
			 sb_preempt_loss_wait_until(&s->preempt_policy,
						    &me.job));
		f.loss_wait_at = lw_at;
	}
	sb_wait_format(&f, buf, len);
}

void sim__probe_long_waits(struct sim *s, int64_t before)
{
	const struct sim_workload *w = s->w;
	uint32_t pos, first;
	char buf[1024];

	/* jobs are in submit order, so their probes (submit +
	 * SIM_LONG_WAIT) are too */
	for (; s->next_probe < w->njobs && !s->err; s->next_probe++) {
		size_t i = s->next_probe;
		int64_t t = w->jobs[i].submit + SIM_LONG_WAIT;

		if (t >= before)
			break;
		if (s->job_state[i].state != J_PENDING ||
		    s->r->jobs[i].first_start != SIM_NEVER)
			continue;	/* started, or not yet submitted */
		pos = pass_position(s, (uint32_t)i, &first);
		explain(s, (uint32_t)i, pos, first, t, buf, sizeof(buf));
		free(s->r->jobs[i].why);
		s->r->jobs[i].why = strdup(buf);
		if (!s->r->jobs[i].why)
			sim__oom(s);
	}
}

void sim__explain_pending(struct sim *s, int64_t now)
{
	uint32_t pos, first;
	char buf[1024];
	size_t i;

	for (i = 0; i < s->w->njobs && !s->err; i++) {
		if (s->job_state[i].state != J_PENDING)
			continue;
		pos = pass_position(s, (uint32_t)i, &first);
		explain(s, (uint32_t)i, pos, first, now, buf, sizeof(buf));
		free(s->r->jobs[i].why);	/* its reason at SIM_LONG_WAIT */
		s->r->jobs[i].why = strdup(buf);
		if (!s->r->jobs[i].why)
			sim__oom(s);
	}
}
