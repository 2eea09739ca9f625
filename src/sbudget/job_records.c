/*
 * job_records.c - `sbudget show job -D JOBID`, and `show job JOBID` for a
 * job slurmctld no longer knows: one row per run from slurmdbd's records,
 * oldest first, each with its contract and, when the stop note was written
 * during that run, who preempted it and why.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm_errno.h>

#include "sb/duration.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sbudget.h"
#include "show_job.h"

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
		sbu_user_name(r->uid, uname, sizeof(uname));
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
	sbu_stop_reason(c, &note, buf, sizeof(buf));
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
int sbu_show_job_records(struct sbu_ctx *c, struct sbc_table *t)
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
