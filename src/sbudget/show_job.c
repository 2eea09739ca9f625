/*
 * show_job.c - `sbudget show job JOBID`: a job as the budget scheduler sees
 * it.  Its contract as it runs (sb_contract_of_job: no valid tag =
 * unallocated), its protected slice (sb_preempt_protected_until), its
 * priority in parts (sb_priority_decode), its budget's standing (sshare),
 * for a pending job what it waits for and the core's verdict
 * (sb_preempt_decide) on each running job, and for a preempted job who
 * preempted it and why (preempt/budget's SystemComment note).
 *
 * The verdicts are judged on the budget view preempt/budget judges with:
 * charged = the subtree usage priority/budget published (sshare's
 * RawUsage), committed = the rest of each running allocated job's minimum
 * runtime (sb_view_commit).  See sbudget(1), "show job".
 */
#include <errno.h>
#include <float.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm_errno.h>

#include "sb/duration.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/wait.h"
#include "sbudget.h"

static const struct sbc_fielddef job_fields[] = {
	{ "JobId", 0, false },		{ "JobName", 0, false },
	{ "User", 0, false },		{ "Account", 0, false },
	{ "State", 0, false },		{ "Reason", 0, false },
	{ "Stopping", 0, false },	{ "Contract", 0, false },
	{ "MinRuntime", 0, false },	{ "Resumable", 0, false },
	{ "Allocated", 0, false },	{ "GPUs", 0, false },
	{ "StartTime", 0, false },	{ "RunTime", 0, false },
	{ "ProtectedLeft", 0, false },	{ "ProtectedUntil", 0, false },
	{ "Priority", 0, false },	{ "PrioTier", 0, false },
	{ "PrioLevel", 0, false },	{ "PrioInTeam", 0, false },
	{ "PrioResumed", 0, false },	{ "BudgetStanding", 0, false },
	{ "BudgetStatus", 0, false },	{ "BudgetLevelFS", 0, false },
	{ "JobsAhead", 0, false },	{ "WaitsFor", 0, false },
	{ "MayPreempt", 0, false },	{ "PreemptedBy", 0, false },
	{ "PreemptedAt", 0, false },	{ "PreemptReason", 0, false },
	{ "Restarts", 0, false },	{ "HeldUntil", 0, false },
	{ "ArrayTask", 0, false },
};
static const char *const job_defaults[] = {
	"JobId", "ArrayTask", "JobName", "User", "Account", "State", "Reason", "Stopping",
	"Contract", "MinRuntime", "Resumable", "Allocated", "GPUs",
	"StartTime", "RunTime", "ProtectedLeft", "ProtectedUntil", "HeldUntil",
	"Priority",
	"PrioTier", "PrioLevel", "PrioInTeam", "PrioResumed",
	"BudgetStanding", "BudgetStatus", "JobsAhead", "WaitsFor",
	"MayPreempt", "PreemptedBy", "PreemptedAt", "PreemptReason",
	"Restarts", NULL,
};

/* Running jobs listed one by one in MayPreempt; the rest are counted. */
#define MAX_VERDICTS 16

static const char *user_name(uint32_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[4096];

	if (getpwuid_r((uid_t)uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s", res->pw_name);
	else
		snprintf(buf, len, "%u", uid);
	return buf;
}

/* The association of a job: user's association in the account, else the
 * account's own. */
static const struct sbs_share *job_share(const struct sbu_ctx *c,
					 const slurm_job_info_t *j,
					 const char *user)
{
	size_t i;

	for (i = 0; i < c->nshares; i++) {
		const struct sbs_share *s = &c->shares[i];

		if (s->user && j->account && s->account &&
		    !strcasecmp(s->account, j->account) && !strcmp(s->user, user))
			return s;
	}
	for (i = 0; i < c->nshares; i++)	/* no user association */
		if (!c->shares[i].user && j->account && c->shares[i].account &&
		    !strcasecmp(c->shares[i].account, j->account))
			return &c->shares[i];
	return NULL;
}

/* Entitled fraction of the cluster of association @id; 0 if unknown. */
static double entitled_of(const struct sbu_ctx *c, uint32_t id)
{
	uint32_t i;

	if (!c->tree || sb_tree_index(c->tree, id, &i) != SB_OK)
		return 0;
	return sb_tree_node(c->tree, i)->entitled;
}

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
static int explain_wait(const struct sbu_ctx *c, const slurm_job_info_t *j,
			char *buf, size_t len, char *list, size_t llen,
			int64_t *ahead_out)
{
	struct wait_sum s;
	struct sb_preempt_party me;
	struct sb_view v;
	struct sb_wait_facts f;
	uint32_t top;
	double idle, unusable;
	char when[64], elig[64];

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
	return explain_wait(c, j, buf, len, list, sizeof(list), ahead);
}

/* ----------------------------------------------------------- the rows */

/* Contract, MinRuntime, Resumable, Allocated; then, for a running job,
 * StartTime, RunTime, ProtectedUntil, ProtectedLeft, HeldUntil. */
static void contract_cells(const struct sbu_ctx *c, struct sbc_table *t,
			   const slurm_job_info_t *j, bool running)
{
	struct sb_preempt_party me;
	struct sb_contract tag;
	char buf[256];
	int trc = sb_contract_parse_tag(j->admin_comment, &tag);
	int64_t until, left, held;

	sbu_job_party(c, j, &me);
	if (trc == SB_OK)
		sbc_table_text(t, "Contract", me.job.contract.allocated ?
			       "allocated: charged to the budget, protected "
			       "for its minimum runtime" :
			       "unallocated: charged to nobody, preemptable "
			       "at any time");
	else
		sbc_table_text(t, "Contract", trc == SB_ESYNTAX ?
			       "damaged tag in AdminComment: runs unallocated "
			       "(charged to nobody, preemptable at any time)" :
			       "none (not submitted through job_submit/budget):"
			       " runs unallocated (charged to nobody, "
			       "preemptable at any time)");
	sb_duration_format(me.job.contract.min_runtime, buf, sizeof(buf));
	sbc_table_text(t, "MinRuntime", buf);
	sbc_table_text(t, "Resumable", me.job.contract.resumable ? "yes" :
		       trc == SB_OK && tag.resumable ? "no (the tag says yes, "
		       "but the job cannot be requeued: not a batch job, or "
		       "--no-requeue)" : "no");
	sbc_table_text(t, "Allocated", me.job.contract.allocated ? "yes" :
		       "no");
	if (!running)
		return;
	sbu_fmt_time(j->start_time, buf, sizeof(buf));
	sbc_table_text(t, "StartTime", buf);
	sb_duration_format(c->now - j->start_time, buf, sizeof(buf));
	sbc_table_text(t, "RunTime", buf);
	until = sb_preempt_protected_until(&me.job);
	left = until - c->now;
	sbu_fmt_time(until, buf, sizeof(buf));
	sbc_table_text(t, "ProtectedUntil", buf);
	if (left > 0)
		sb_duration_format(left, buf, sizeof(buf));
	else
		snprintf(buf, sizeof(buf), "0:00:00 (%s)",
			 me.job.contract.allocated ? "preemptable by a job of "
			 "higher priority" : "unallocated: preemptable");
	sbc_table_text(t, "ProtectedLeft", buf);
	/* the interval hold of a job preempted before (sb/view.h) */
	held = sb_preempt_hold_until(&c->cfg.preempt, &me);
	if (held == INT64_MAX) {
		char at[64];

		sbu_fmt_time(me.preempted_at, at, sizeof(at));
		snprintf(buf, sizeof(buf), "its end (not resumable, restarted "
			 "by a preemption at %s: not preempted again)", at);
	} else if (held > until) {
		char at[64];

		sbu_fmt_time(held, buf, sizeof(buf));
		sbu_fmt_time(me.preempted_at, at, sizeof(at));
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf),
			 " (preempted at %s; PreemptIntervalFactor=%u x its "
			 "minimum runtime)", at,
			 c->cfg.preempt.interval_factor);
	} else {
		snprintf(buf, sizeof(buf), "none");
	}
	sbc_table_text(t, "HeldUntil", buf);
}

/* Priority and its parts; the standing of the job's budget. */
static void priority_cells(const struct sbu_ctx *c, struct sbc_table *t,
			   const slurm_job_info_t *j, const char *uname)
{
	const struct sbs_share *s = job_share(c, j, uname);
	struct sb_priority_parts pp;
	char buf[128];

	sbc_table_int(t, "Priority", j->priority);
	if (sb_priority_decode(j->priority, &pp) == SB_OK) {
		sbc_table_text(t, "PrioTier", pp.allocated ?
			       "allocated (1<<31)" : "unallocated (0)");
		snprintf(buf, sizeof(buf), "%u (budget standing, <<11)",
			 pp.level);
		sbc_table_text(t, "PrioLevel", buf);
		snprintf(buf, sizeof(buf), "%u (512 - nice, <<1)", pp.in_team);
		sbc_table_text(t, "PrioInTeam", buf);
		sbc_table_text(t, "PrioResumed", pp.resumed ? "1 (requeued)" :
			       "0");
	} else {
		sbc_table_text(t, "PrioTier", j->priority == 0 ?
			       "held (priority 0)" : "set by an administrator");
	}
	if (!s)
		return;
	snprintf(buf, sizeof(buf), "%.6f", s->fs_factor);
	sbc_table_text(t, "BudgetStanding", buf);
	if (s->level_fs < DBL_MAX / 2)
		snprintf(buf, sizeof(buf), "%.6f", s->level_fs);
	else
		snprintf(buf, sizeof(buf), "inf");
	sbc_table_text(t, "BudgetLevelFS", buf);
	sbc_table_text(t, "BudgetStatus",
		       sbu_status_of(s, entitled_of(c, s->assoc_id)));
}

/* PreemptReason of a stop note (parsed: sb_stop_note_parse() said 1). */
static void reason_of_note(const struct sbu_ctx *c,
			   const struct sb_stop_note *note, char *buf,
			   size_t len)
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
		reason_of_note(c, note, buf, len);
	return nrc;
}

/* PreemptedBy, PreemptedAt, PreemptReason from preempt/budget's last
 * budget: note in the SystemComment (absent: never preempted). */
static void preempted_cells(const struct sbu_ctx *c, struct sbc_table *t,
			    const slurm_job_info_t *j)
{
	struct sb_stop_note note;
	char buf[1024], when[64];
	int nrc = sbu_preempt_reason(c, j, &note, buf, sizeof(buf));

	if (nrc < 0) {
		sbc_table_text(t, "PreemptReason", buf);
		return;
	}
	if (nrc == 0)
		return;
	sbu_fmt_time(note.at, when, sizeof(when));
	sbc_table_text(t, "PreemptedAt", when);
	if (!note.repair)
		sbc_table_int(t, "PreemptedBy", note.by_job);
	sbc_table_text(t, "PreemptReason", buf);
}

/* "116_3" (ARRAYID_TASKID) or "116" into @buf, for messages. */
static const char *job_name(const struct sbc_cmd *cmd, char *buf, size_t len)
{
	if (cmd->task_id == SBC_NO_TASK)
		snprintf(buf, len, "%u", cmd->job_id);
	else
		snprintf(buf, len, "%u_%u", cmd->job_id, cmd->task_id);
	return buf;
}

/*
 * The job from slurmctld (*@msg, freed by the caller), or NULL with a
 * message (a finished job stays there for MinJobAge only); NULL without
 * one and *@gone true when slurmctld does not know job JOBID (not an
 * array task): its records are in slurmdbd (show_records()).  ARRAYID_TASKID
 * loads the array (every record of it: slurm_load_job() of the array's
 * id) and picks the record that holds the task, as scontrol does: the
 * task's own once it has one, else the array's record of pending tasks.
 */
static const slurm_job_info_t *load_one(const struct sbu_ctx *c,
					job_info_msg_t **msg, bool *gone)
{
	const struct sbc_cmd *cmd = c->cmd;
	const slurm_job_info_t *j0;
	uint32_t id = cmd->job_id, i;
	bool array = false;
	char name[64];

	job_name(cmd, name, sizeof(name));
	if (sb_load_job(msg, id, SHOW_DETAIL) != SLURM_SUCCESS) {
		int e = errno;

		*msg = NULL;
		if (e == ESLURM_INVALID_JOB_ID && cmd->task_id == SBC_NO_TASK)
			*gone = true;	/* the caller asks slurmdbd */
		else if (e == ESLURM_INVALID_JOB_ID)
			sbu_error("job %s: no such job in slurmctld (a "
				  "finished job stays there for MinJobAge; see "
				  "'sacct -j %s')", name, name);
		else
			sbu_error("job %s: %s", name, slurm_strerror(e));
		return NULL;
	}
	if (!(*msg)->record_count) {
		sbu_error("job %s: no such job in slurmctld", name);
		return NULL;
	}
	if (cmd->task_id == SBC_NO_TASK)
		return &(*msg)->job_array[0];
	for (i = 0; i < (*msg)->record_count; i++) {
		const slurm_job_info_t *j = &(*msg)->job_array[i];

		if (j->array_job_id != id)
			continue;
		array = true;
		if (sb_job_is_array_task(j, cmd->task_id))
			return j;
	}
	j0 = &(*msg)->job_array[0];
	if (!array && j0->array_job_id && j0->array_task_id != NO_VAL)
		sbu_error("job %s: job %u is array task %u_%u, not an array; "
			  "give 'sbudget show job %u'", name, id,
			  j0->array_job_id, j0->array_task_id, id);
	else if (!array)
		sbu_error("job %s: job %u is not a job array; give "
			  "'sbudget show job %u'", name, id, id);
	else
		sbu_error("job %s: array job %u has no task %u in slurmctld "
			  "(squeue -r -j %u lists its tasks; a finished task "
			  "stays there for MinJobAge: see 'sacct -j %s')",
			  name, id, cmd->task_id, id, name);
	return NULL;
}

/* ArrayTask: which task of which array the record is; for the record of
 * pending tasks, the one asked for (or all of them) and that they pend in
 * one record, under the array's job id, until each starts. */
static void array_cells(const struct sbu_ctx *c, struct sbc_table *t,
			const slurm_job_info_t *j)
{
	char buf[512];

	if (!j->array_job_id)
		return;
	if (j->array_task_id != NO_VAL)
		snprintf(buf, sizeof(buf), "%u_%u", j->array_job_id,
			 j->array_task_id);
	else if (c->cmd->task_id != SBC_NO_TASK)
		snprintf(buf, sizeof(buf), "%u_%u (pending in one record with "
			 "the array's tasks %s, job %u, until it starts)",
			 j->array_job_id, c->cmd->task_id,
			 j->array_task_str ? j->array_task_str : "?",
			 j->job_id);
	else
		snprintf(buf, sizeof(buf), "%u_[%s] (pending tasks, one record "
			 "until each starts)", j->array_job_id,
			 j->array_task_str ? j->array_task_str : "?");
	sbc_table_text(t, "ArrayTask", buf);
}

/* By start (never started last), then submit: a job's runs in order. */
static int run_cmp(const void *a, const void *b)
{
	const slurmdb_job_rec_t *x = *(slurmdb_job_rec_t *const *)a;
	const slurmdb_job_rec_t *y = *(slurmdb_job_rec_t *const *)b;
	int64_t xs = x->start > 0 ? (int64_t)x->start : INT64_MAX;
	int64_t ys = y->start > 0 ? (int64_t)y->start : INT64_MAX;

	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return 0;
}

/* One row of a run's slurmdbd record: who preempted it (or released it for
 * repair) when the stop note at the end of its AdminComment was written
 * during this run (sb_stop_note_of_run(): a later run of a requeued job
 * inherits the note and is not the one it stopped). */
static int record_row(const struct sbu_ctx *c, struct sbc_table *t,
		      const slurmdb_job_rec_t *r, uint32_t restarts)
{
	struct sb_contract ct;
	struct sb_stop_note note;
	char buf[1024], uname[256];
	int trc, nrc;

	if (sbc_table_row(t))
		return -1;
	sbc_table_int(t, "JobId", r->jobid);
	sbc_table_text(t, "JobName", r->jobname ? r->jobname : "");
	if (r->user)
		snprintf(uname, sizeof(uname), "%s", r->user);
	else
		user_name(r->uid, uname, sizeof(uname));
	sbc_table_text(t, "User", uname);
	sbc_table_text(t, "Account", r->account ? r->account : "");
	sbc_table_text(t, "State", sbs_job_state(r->state));
	sbc_table_int(t, "Restarts", restarts);
	trc = sb_contract_parse_tag(r->admin_comment, &ct);
	if (trc == SB_OK) {
		sbc_table_text(t, "Contract", ct.allocated ? "allocated" :
			       "unallocated");
		sb_duration_format(ct.min_runtime, buf, sizeof(buf));
		sbc_table_text(t, "MinRuntime", buf);
		sbc_table_text(t, "Resumable", ct.resumable ? "yes" : "no");
		sbc_table_text(t, "Allocated", ct.allocated ? "yes" : "no");
	} else {
		sbc_table_text(t, "Contract", trc == SB_ESYNTAX ?
			       "damaged tag in AdminComment" :
			       "none (not submitted through job_submit/budget)");
	}
	if (r->start > 0) {
		sbu_fmt_time(r->start, buf, sizeof(buf));
		sbc_table_text(t, "StartTime", buf);
		sb_duration_format(r->elapsed, buf, sizeof(buf));
		sbc_table_text(t, "RunTime", buf);
	}
	nrc = sb_stop_note_parse(r->admin_comment, &note);
	if (nrc < 0)
		sbc_table_text(t, "PreemptReason",
			       "damaged budget: note in AdminComment");
	if (nrc <= 0 || !sb_stop_note_of_run(&note, r->start, r->end))
		return 0;
	sbu_fmt_time(note.at, buf, sizeof(buf));
	sbc_table_text(t, "PreemptedAt", buf);
	if (note.preempted)
		sbc_table_int(t, "PreemptedBy", note.by_job);
	reason_of_note(c, &note, buf, sizeof(buf));
	sbc_table_text(t, "PreemptReason", buf);
	return 0;
}

/*
 * `show job JOBID` for a job slurmctld no longer knows, or `show job -D
 * JOBID` for any: one row per run from slurmdbd's records (each requeued run has its own, as sacct -D
 * lists them), oldest first.  slurmdbd shows a user the records it shows
 * with sacct (all, or with PrivateData=jobs only the user's own unless an
 * operator or coordinator), AdminComment included.  Return: 0, or 1 with
 * a message.
 */
static int show_records(struct sbu_ctx *c, struct sbc_table *t)
{
	const struct sbc_cmd *cmd = c->cmd;
	slurmdb_job_cond_t cond;
	slurm_selected_step_t *step;
	slurmdb_job_rec_t *r, **recs = NULL;
	List jobs;
	ListIterator it;
	size_t n = 0, k, cap;
	int rc = 1;

	if (sbu_open_db(c) || sbu_load_jobs(c))
		return 1;
	memset(&cond, 0, sizeof(cond));
	cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP |
		     JOBCOND_FLAG_NO_TRUNC;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	if (!(step = calloc(1, sizeof(*step)))) {
		sbu_error("out of memory");
		return 1;
	}
	step->step_id.job_id = cmd->job_id;
	step->step_id.step_id = NO_VAL;
	step->step_id.step_het_comp = NO_VAL;
	step->array_task_id = NO_VAL;
	step->het_job_offset = NO_VAL;
	cond.step_list = slurm_list_create(free);
	slurm_list_append(cond.step_list, step);
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	jobs = slurmdb_jobs_get(c->db, &cond);
	slurm_list_destroy(cond.cluster_list);
	slurm_list_destroy(cond.step_list);
	if (!jobs) {
		sbu_error("job %u: no such job in slurmctld, and slurmdbd did "
			  "not return its records: %s", cmd->job_id,
			  slurm_strerror(errno));
		return 1;
	}
	cap = slurm_list_count(jobs);
	if (cap && !(recs = calloc(cap, sizeof(*recs)))) {
		sbu_error("out of memory");
		goto out;
	}
	it = slurm_list_iterator_create(jobs);
	while ((r = slurm_list_next(it)) && n < cap)
		if (r->jobid == cmd->job_id)
			recs[n++] = r;
	slurm_list_iterator_destroy(it);
	if (!n) {
		sbu_error("job %u: no such job in slurmctld or slurmdbd (or "
			  "not yours to see: PrivateData=jobs)", cmd->job_id);
		goto out;
	}
	qsort(recs, n, sizeof(*recs), run_cmp);
	for (k = 0; k < n; k++)
		if (record_row(c, t, recs[k], (uint32_t)k))
			goto out;
	sbc_table_print(t, stdout, cmd->style, cmd->noheader,
			cmd->style == SBC_STYLE_TABLE, "jobs");
	rc = 0;
out:
	free(recs);
	slurm_list_destroy(jobs);
	return rc;
}

int sbu_cmd_show_job(struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	job_info_msg_t *msg = NULL;
	const slurm_job_info_t *j;
	struct sbc_table t;
	struct sb_contract ct;
	char m[SBC_MSG_MAX * 4], buf[2048], list[4096], uname[256];
	int rc = 1;
	bool running, gone = false;

	if (sbc_table_init(&t, job_fields,
			   sizeof(job_fields) / sizeof(job_fields[0]),
			   job_defaults, cmd, m, sizeof(m))) {
		sbu_error("%s", m);
		return 1;
	}
	if (cmd->duplicates) {
		rc = show_records(c, &t);
		goto out;
	}
	if (!(j = load_one(c, &msg, &gone))) {
		if (gone)
			rc = show_records(c, &t);
		goto out;
	}
	if (sbu_load_jobs(c) || sbu_load_shares(c) || sbu_load_capacity(c) ||
	    sbu_load_tree(c))
		goto out;
	if (j->user_name)
		snprintf(uname, sizeof(uname), "%s", j->user_name);
	else
		user_name(j->user_id, uname, sizeof(uname));
	running = SBU_RUNNING(j) || SBU_SUSPENDED(j);
	if (sbc_table_row(&t))
		goto out;
	sbc_table_int(&t, "JobId", j->job_id);
	array_cells(c, &t, j);
	sbc_table_text(&t, "JobName", j->name ? j->name : "");
	sbc_table_text(&t, "User", uname);
	sbc_table_text(&t, "Account", j->account ? j->account : "");
	if (running && j->preempt_time > 0) {
		char when[64];

		sbu_fmt_time(j->preempt_time, when, sizeof(when));
		sbu_job_contract(j, &ct);
		snprintf(buf, sizeof(buf), "being preempted since %s: SIGTERM "
			 "sent; %s after the grace time", when,
			 sb_preempt_action_str(sb_preempt_action(
				 &c->cfg.preempt, &ct)));
		sbc_table_text(&t, "Stopping", buf);
	}
	sbc_table_text(&t, "State", sbs_job_state(j->job_state));
	sbc_table_text(&t, "Reason", sbs_job_reason(j->state_reason));
	sbc_table_int(&t, "Restarts", j->restart_cnt);
	snprintf(buf, sizeof(buf), "%.0f", sbu_job_tres(c, j));
	sbc_table_text(&t, "GPUs", buf);
	contract_cells(c, &t, j, running);
	priority_cells(c, &t, j, uname);
	if (SBU_PENDING(j)) {
		int64_t ahead = 0;

		if (explain_wait(c, j, buf, sizeof(buf), list, sizeof(list),
				 &ahead))
			goto out;
		sbc_table_text(&t, "WaitsFor", buf);
		sbc_table_text(&t, "MayPreempt", list);
		sbc_table_int(&t, "JobsAhead", ahead);
	}
	preempted_cells(c, &t, j);
	sbc_table_print(&t, stdout, cmd->style, cmd->noheader,
			cmd->style == SBC_STYLE_TABLE, "jobs");
	rc = 0;
out:
	if (msg)
		slurm_free_job_info_msg(msg);
	sbc_table_free(&t);
	return rc;
}
