/*
 * job_why.c - why a job waits and why it was stopped, in show job's words.
 * For a pending job: jobs ahead, GPUs idle and preemptable, those the
 * reclaim rule holds back, the next protected slice to end (WaitsFor), and
 * the core's verdict (sb_preempt_decide) on each running job (MayPreempt),
 * judged on the budget view preempt/budget judges with: charged = the
 * subtree usage priority/budget published (sshare's RawUsage), committed =
 * the rest of each running allocated job's minimum runtime
 * (sb_view_commit).  For a stopped job: who preempted it or released it
 * for repair, and why (PreemptReason, from preempt/budget's budget: note).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/wait.h"
#include "sbudget.h"
#include "show_job.h"

/* Running jobs listed one by one in MayPreempt; the rest are counted. */
#define MAX_VERDICTS 16

/* Append printf output to @buf at *@off, never past @len. */
static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n < len - *off ? (size_t)n : len - *off;
}

/* ------------------------------------------- the view and the verdicts */

/*
 * The budget view of now: charged = the published subtree usage of each
 * association (sshare's RawUsage), committed = sb_view_commit() of every
 * running job.  Needs the tree, the shares and the jobs.
 */
static int build_view(const struct sbu_ctx *c, struct sb_view *v)
{
	uint32_t n = sb_tree_count(c->tree), i;
	double *charged = calloc(n ? n : 1, sizeof(*charged));
	int rc = -1;

	if (!charged || sb_view_init(v, c->tree) != SB_OK) {
		sbu_error("cannot build the budget view (out of memory, or a "
			  "tree deeper than %d levels)", SB_VIEW_MAX_DEPTH);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct sbs_share *s = c->by_index[i] ?
			sbu_share_of(c, c->by_index[i]->id) : NULL;

		charged[i] = s ? (double)s->usage_raw : 0;
	}
	if (sb_view_set_charged(v, charged) != SB_OK) {
		sbu_error("the published usage is not a usage");
		goto out;
	}
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];
		struct sb_preempt_party p;

		if (!SBU_RUNNING(o))
			continue;
		sbu_job_party(c, o, &p);
		if (p.index != SB_NONE)
			sb_view_commit(v, p.index, &p.job, c->now);
	}
	rc = 0;
out:
	free(charged);
	return rc;
}

/* What the running jobs mean to a pending one. */
struct wait_sum {
	double busy;		/* TRES held by running/suspended jobs */
	double busy_off;	/* of which on nodes that take no jobs */
	double preemptable;	/* of which it may take now (verdict YES) */
	double kept;		/* of which the reclaim rule (or its cost
				 * margin) holds back */
	uint32_t kept_job;	/* one of those, and the rule's sentence */
	char kept_why[512];
	int64_t next_at;	/* earliest end of a protected slice after */
	double loss_wait;	/* TRES held back by PreemptLossWait */
	uint32_t next_job;	/* which the job could preempt it */
	unsigned listed, unlisted;	/* running jobs in MayPreempt */
	unsigned unallocated;	/* verdicts SB_PREEMPT_UNALLOCATED */
	char first_why[512];	/* the first verdict's sentence */
};

/* The part of job @o's nodes that take no jobs (0..1; its TRES are
 * taken as spread evenly over its nodes). */
static double off_share(const struct sbu_ctx *c, const slurm_job_info_t *o)
{
	uint32_t n = 0, off = 0;
	size_t k;
	int32_t i;

	if (!c->node_off || !o->node_inx)
		return 0;
	for (k = 0; o->node_inx[k] >= 0 && o->node_inx[k + 1] >= 0; k += 2)
		for (i = o->node_inx[k]; i <= o->node_inx[k + 1]; i++) {
			n++;
			if ((uint32_t)i < c->nnodes && c->node_off[i])
				off++;
		}
	return n ? (double)off / n : 0;
}

/*
 * Ask sb_preempt_decide() about every running job as @me's victim; sum the
 * TRES by verdict into @s, and write one "job N (account, TRES): yes|no:
 * why" entry per job into @list.
 */
static void judge_running(const struct sbu_ctx *c, const struct sb_view *v,
			  const slurm_job_info_t *j,
			  const struct sb_preempt_party *me,
			  struct wait_sum *s, char *list, size_t len)
{
	size_t off = 0;
	uint32_t i;

	list[0] = '\0';
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];
		struct sb_preempt_party vic;
		enum sb_preempt_verdict vd;
		char why[512];
		int64_t until;

		if (o->job_id == j->job_id || !(SBU_RUNNING(o) ||
						SBU_SUSPENDED(o)))
			continue;
		sbu_job_party(c, o, &vic);
		s->busy += (double)vic.job.tres;
		s->busy_off += (double)vic.job.tres * off_share(c, o);
		vd = sb_preempt_decide(&c->cfg.preempt, v, me, &vic, c->now,
				       why, sizeof(why));
		if (!s->listed && !s->unlisted)
			snprintf(s->first_why, sizeof(s->first_why), "%s", why);
		if (vd == SB_PREEMPT_UNALLOCATED)
			s->unallocated++;
		if (vd == SB_PREEMPT_YES)
			s->preemptable += (double)vic.job.tres;
		if (vd == SB_PREEMPT_LOSS_WAIT)
			s->loss_wait += (double)vic.job.tres;
		if (vd == SB_PREEMPT_RECLAIM || vd == SB_PREEMPT_COSTLY) {
			s->kept += (double)vic.job.tres;
			s->kept_job = o->job_id;
			snprintf(s->kept_why, sizeof(s->kept_why), "%s", why);
		}
		/* protected or held now: would the core's rule let it go
		 * when its slice (or interval) ends? */
		until = sb_preempt_hold_until(&c->cfg.preempt, &vic);
		if ((vd == SB_PREEMPT_PROTECTED ||
		     vd == SB_PREEMPT_INTERVAL) && until < s->next_at &&
		    sb_preempt_check(&c->cfg.preempt, &me->job, &vic.job,
				     until) == SB_PREEMPT_YES) {
			s->next_at = until;
			s->next_job = o->job_id;
		}
		if (s->listed >= MAX_VERDICTS) {
			s->unlisted++;
			continue;
		}
		s->listed++;
		add(list, len, &off, "%sjob %u (%s, %llu %s): %s: %s",
		    off ? "; " : "", o->job_id, o->account ? o->account : "?",
		    (unsigned long long)vic.job.tres, c->cfg.charge_tres,
		    vd == SB_PREEMPT_YES ? "yes" : "no", why);
	}
	if (s->unlisted)
		add(list, len, &off, "; and %u more running job(s)",
		    s->unlisted);
	if (!s->listed)
		add(list, len, &off, "no running job");
	/* one verdict for all (an unallocated job): say it once */
	if (s->listed && s->unallocated == s->listed + s->unlisted)
		snprintf(list, len, "none of the %u running job(s): %s",
			 s->unallocated, s->first_why);
}

/* Pending jobs of higher priority in @j's partition; the first of them. */
static int64_t jobs_ahead(const struct sbu_ctx *c, const slurm_job_info_t *j,
			  uint32_t *top)
{
	uint32_t i, top_prio = 0;
	int64_t ahead = 0;

	*top = 0;
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];

		if (o->job_id == j->job_id || !SBU_PENDING(o) ||
		    o->priority <= j->priority ||
		    (j->partition && o->partition &&
		     strcmp(j->partition, o->partition)))
			continue;
		ahead++;
		if (o->priority > top_prio) {
			top_prio = o->priority;
			*top = o->job_id;
		}
	}
	return ahead;
}

/*
 * Why a pending job waits (WaitsFor): jobs ahead, GPUs idle and
 * preemptable now, those the reclaim rule holds back, the next protected
 * slice to end, its eligibility; and the verdict on each running job
 * (MayPreempt).  Return -1 when the view cannot be built.
 */
int sbu_explain_wait(const struct sbu_ctx *c, const slurm_job_info_t *j,
		     char *buf, size_t len, char *list, size_t llen,
		     int64_t *ahead_out)
{
	struct wait_sum s;
	struct sb_preempt_party me;
	struct sb_view v;
	struct sb_wait_facts f;
	uint32_t top;
	double idle, unusable;
	char when[64], elig[64], lw[64];

	memset(&s, 0, sizeof(s));
	s.next_at = INT64_MAX;
	if (build_view(c, &v))
		return -1;
	sbu_job_party(c, j, &me);
	judge_running(c, &v, j, &me, &s, list, llen);
	sb_view_free(&v);
	/* free TRES on nodes that take jobs, and apart on those that do not */
	idle = c->capacity - c->capacity_off - (s.busy - s.busy_off);
	unusable = c->capacity_off - s.busy_off;
	*ahead_out = jobs_ahead(c, j, &top);
	/* the sentence is the core's (sb/wait.h): sbudget-sim's verdict
	 * prints the same words */
	f = (struct sb_wait_facts){
		.reason = sbs_job_reason(j->state_reason),
		.ahead = *ahead_out, .top = top,
		.needs = sbu_job_tres(c, j), .tres = c->cfg.charge_tres,
		.idle = idle > 0 ? idle : 0,
		.unusable = unusable > 0 ? unusable : 0,
		.preemptable = s.preemptable,
		.allocated = me.job.contract.allocated,
		.kept = s.kept, .kept_job = s.kept_job, .kept_why = s.kept_why,
		.next_job = s.next_job,
	};
	if (s.next_job) {
		sbu_fmt_time(s.next_at, when, sizeof(when));
		f.next_at = when;
	}
	if (s.loss_wait > 0) {
		sbu_fmt_time(sb_preempt_loss_wait_until(&c->cfg.preempt,
							&me.job),
			     lw, sizeof(lw));
		f.loss_wait = s.loss_wait;
		f.loss_wait_at = lw;
	}
	if (j->state_reason == WAIT_TIME || j->eligible_time > c->now) {
		sbu_fmt_time(j->eligible_time, elig, sizeof(elig));
		f.eligible_at = elig;
	}
	sb_wait_format(&f, buf, len);
	return 0;
}

int sbu_waits_for(const struct sbu_ctx *c, const slurm_job_info_t *j,
		  char *buf, size_t len, int64_t *ahead)
{
	char list[4096];

	buf[0] = '\0';
	return sbu_explain_wait(c, j, buf, len, list, sizeof(list), ahead);
}

/* PreemptReason of a stop note (parsed: sb_stop_note_parse() said 1). */
void sbu_stop_reason(const struct sbu_ctx *c, const struct sb_stop_note *note,
		     char *buf, size_t len)
{
	struct sb_priority_parts a, b;
	const slurm_job_info_t *p;

	if (note->repair) {
		snprintf(buf, len, "released for repair of node %s after its "
			 "minimum runtime", note->node);
		return;
	}
	p = sbu_live_job(c, note->by_job);
	if (sb_priority_decode(note->preemptor_priority, &a) == SB_OK &&
	    sb_priority_decode(note->victim_priority, &b) == SB_OK)
		snprintf(buf, len, "job %u%s%s%s had priority %u (%s, "
			 "level %u) above this job's %u (%s, level %u)%s",
			 note->by_job, p && p->account ? " (account " : "",
			 p && p->account ? p->account : "",
			 p && p->account ? ")" : "", note->preemptor_priority,
			 a.allocated ? "allocated" : "unallocated", a.level,
			 note->victim_priority,
			 b.allocated ? "allocated" : "unallocated", b.level,
			 !b.allocated ? "; unallocated jobs are preemptable "
			 "at any time" : a.level > b.level ? "; this job had "
			 "run its minimum runtime (no longer protected) and "
			 "the preemptor's budget stood better" : "; this job "
			 "had run its minimum runtime (no longer protected)");
	else
		snprintf(buf, len, "job %u had priority %u, this job %u",
			 note->by_job, note->preemptor_priority,
			 note->victim_priority);
}

int sbu_preempt_reason(const struct sbu_ctx *c, const slurm_job_info_t *j,
		       struct sb_stop_note *note, char *buf, size_t len)
{
	int nrc = sb_stop_note_parse(j->system_comment, note);

	if (nrc < 0)
		snprintf(buf, len, "damaged budget: note in SystemComment");
	if (nrc > 0)
		sbu_stop_reason(c, note, buf, len);
	return nrc;
}
