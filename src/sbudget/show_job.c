/*
 * show_job.c - `sbudget show job JOBID`: a job as the budget scheduler sees
 * it.  Its contract as it runs (sb_contract_of_job: no valid tag =
 * unallocated), its protected slice (sb_preempt_protected_until), its
 * priority in parts (sb_priority_decode), its budget's standing (sshare),
 * for a pending job what it waits for and the core's verdict
 * (sb_preempt_decide) on each running job, and for a preempted job who
 * preempted it and why (preempt/budget's SystemComment note).
 *
 * The waits and the stop reasons are job_why.c's; the rows of a job's
 * runs from slurmdbd (-D, or a job slurmctld no longer knows) are
 * job_records.c's.  See sbudget(1), "show job".
 */
#include <errno.h>
#include <float.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm_errno.h>

#include "sb/duration.h"
#include "sb/error.h"
#include "sb/lane.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sbudget.h"
#include "show_job.h"

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
	{ "ArrayTask", 0, false },	{ "Lane", 0, false },
};
static const char *const job_defaults[] = {
	"JobId", "ArrayTask", "JobName", "User", "Account", "State", "Reason", "Stopping",
	"Contract", "MinRuntime", "Resumable", "Allocated", "GPUs",
	"StartTime", "RunTime", "ProtectedLeft", "ProtectedUntil", "HeldUntil",
	"Priority",
	"PrioTier", "PrioLevel", "PrioInTeam", "PrioResumed", "Lane",
	"BudgetStanding", "BudgetStatus", "JobsAhead", "WaitsFor",
	"MayPreempt", "PreemptedBy", "PreemptedAt", "PreemptReason",
	"Restarts", NULL,
};

const char *sbu_user_name(uint32_t uid, char *buf, size_t len)
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

/*
 * Lane: whether the job is, was or could be in the debug lane (sb/lane.h),
 * and why: from its priority (the lane's level), its size and min runtime
 * against budget.conf's bounds, and what its association holds in the lane
 * (sb_lane_holds() over the association's other jobs).
 */
static void lane_cells(const struct sbu_ctx *c, struct sbc_table *t,
		       const slurm_job_info_t *j, bool running)
{
	const struct sb_lane_policy *pol = &c->cfg.preempt.lane;
	struct sb_preempt_party me;
	char buf[512], mr[32], until[64];
	uint64_t held = 0;
	uint32_t i;

	sbu_job_party(c, j, &me);
	if (!pol->max_tres || !pol->budget_tres) {
		sbc_table_text(t, "Lane", "no: the debug lane is off "
			       "(DebugLaneTRES or DebugLaneBudgetTRES is 0)");
		return;
	}
	if (!sb_lane_sized(pol, &me.job.contract, me.job.tres)) {
		snprintf(buf, sizeof(buf), "no: the debug lane takes allocated "
			 "jobs of 1 to %llu %s (DebugLaneTRES, at most "
			 "DebugLaneBudgetTRES=%llu) and a minimum runtime up to "
			 "%s (DebugLaneMinRuntime)",
			 (unsigned long long)pol->max_tres, c->cfg.charge_tres,
			 (unsigned long long)pol->budget_tres,
			 sb_duration_format(pol->max_min_runtime, mr,
					    sizeof(mr)));
		sbc_table_text(t, "Lane", buf);
		return;
	}
	if (sb_priority_in_lane(j->priority) && running) {
		sbu_fmt_time(sb_preempt_protected_until(&me.job), until,
			     sizeof(until));
		snprintf(buf, sizeof(buf), "started in the debug lane (tried "
			 "before every budget's jobs, it could preempt "
			 "unallocated jobs and jobs past their minimum runtime "
			 "of any budget); from %s, the end of its minimum "
			 "runtime, it carries its budget's priority (at the "
			 "next recalculation)", until);
		sbc_table_text(t, "Lane", buf);
		return;
	}
	if (sb_priority_in_lane(j->priority)) {
		sbc_table_text(t, "Lane", "in the debug lane: tried before "
			       "every budget's jobs; may preempt unallocated "
			       "jobs and jobs past their minimum runtime of "
			       "any budget (not those inside it, nor those "
			       "held by PreemptIntervalFactor)");
		return;
	}
	if (running) {
		sbc_table_text(t, "Lane", "no: it started as its budget's job");
		return;
	}
	if (j->array_task_id != NO_VAL || j->array_task_str) {
		sbc_table_text(t, "Lane", "no: array jobs do not enter the "
			       "debug lane (Slurm gives each task its array's "
			       "priority, past any bound)");
		return;
	}
	if (j->restart_cnt > 0) {
		sbc_table_text(t, "Lane", "no: it ran before and was requeued; "
			       "the debug lane is for starting fresh");
		return;
	}
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];
		struct sb_preempt_party p;

		if (o->job_id == j->job_id || o->assoc_id != j->assoc_id ||
		    !(SBU_PENDING(o) || SBU_RUNNING(o)))
			continue;
		sbu_job_party(c, o, &p);
		if (sb_lane_holds(pol, &p.job, SBU_PENDING(o), c->now))
			held += p.job.tres;
	}
	snprintf(buf, sizeof(buf), "not yet: its association holds %llu of "
		 "DebugLaneBudgetTRES=%llu %s in the debug lane%s",
		 (unsigned long long)held,
		 (unsigned long long)pol->budget_tres, c->cfg.charge_tres,
		 held + me.job.tres > pol->budget_tres ? "; it enters when "
		 "its lane jobs end or pass their minimum runtime" :
		 "; it enters at the next recalculation (CalcPeriod)");
	sbc_table_text(t, "Lane", buf);
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
		snprintf(buf, sizeof(buf), pp.lane ? "%u (the debug lane, "
			 "<<11)" : "%u (budget standing, <<11)", pp.level);
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
 * array task): its records are in slurmdbd (job_records.c).  ARRAYID_TASKID
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
		rc = sbu_show_job_records(c, &t);
		goto out;
	}
	if (!(j = load_one(c, &msg, &gone))) {
		if (gone)
			rc = sbu_show_job_records(c, &t);
		goto out;
	}
	if (sbu_load_jobs(c) || sbu_load_shares(c) || sbu_load_capacity(c) ||
	    sbu_load_tree(c))
		goto out;
	if (j->user_name)
		snprintf(uname, sizeof(uname), "%s", j->user_name);
	else
		sbu_user_name(j->user_id, uname, sizeof(uname));
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
	lane_cells(c, &t, j, running);
	if (SBU_PENDING(j)) {
		int64_t ahead = 0;

		if (sbu_explain_wait(c, j, buf, sizeof(buf), list,
				     sizeof(list), &ahead))
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
