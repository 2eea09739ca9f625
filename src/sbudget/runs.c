/*
 * runs.c - the run segments of a span from slurmdbd's job records (every
 * run of a requeued job, duplicates included), and the figures over them:
 * owed, delivered, unallocated, capped and lost by the core's one definition
 * (sb_figures, sb/figures.h).  This file only gathers the inputs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <slurm/slurm_errno.h>

#include "sb/error.h"
#include "sbudget.h"

/* slurmdbd's id of ChargeTRES as text ("1001"), "" when accounting has no
 * such TRES (then nothing charges it). */
static int charge_tres_id(struct sbu_ctx *c, char *id, size_t len)
{
	slurmdb_tres_cond_t tcond;
	slurmdb_tres_rec_t *t;
	ListIterator it;
	List tres;

	id[0] = '\0';
	slurmdb_init_tres_cond(&tcond, 0);
	if (!(tres = slurmdb_tres_get(c->db, &tcond))) {
		sbu_db_error("the TRES list");
		return -1;
	}
	it = slurm_list_iterator_create(tres);
	while ((t = slurm_list_next(it))) {
		char name[256];

		snprintf(name, sizeof(name), "%s%s%s", t->type ? t->type : "",
			 t->name && *t->name ? "/" : "",
			 t->name ? t->name : "");
		if (!strcasecmp(name, c->cfg.charge_tres))
			snprintf(id, len, "%u", t->id);
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(tres);
	return 0;
}

/* A time of a job record: 0 for none (slurmdbd sends 0 or NO_VAL for a
 * time that has not come, for example the start of a job that never
 * started) and for a time after @now. */
static int64_t rec_time(time_t t, int64_t now)
{
	if (t <= 0 || t == (time_t)NO_VAL || (int64_t)t > now)
		return 0;
	return (int64_t)t;
}

/* The tree index of a record's association.  A deleted association is not
 * in the tree: its runs stay with its account, as priority/budget keeps
 * their usage in the account's subtree.  SB_NONE when neither is there. */
static uint32_t record_index(const struct sbu_ctx *c,
			     const slurmdb_job_rec_t *j)
{
	uint32_t n = sb_tree_count(c->tree), i;

	if (sb_tree_index(c->tree, j->associd, &i) == SB_OK)
		return i;
	for (i = 0; j->account && i < n; i++) {
		const slurmdb_assoc_rec_t *a = c->by_index[i];

		if (a && !a->user && a->acct &&
		    !strcasecmp(a->acct, j->account))
			return i;
	}
	return SB_NONE;
}

/*
 * One job record as a segment.  The contract comes from the record's
 * AdminComment or, for a job still in slurmctld, from the live job (Slurm
 * 22.05 sends AdminComment to slurmdbd only at completion); no valid tag
 * in either = unallocated (sb_contract_of_job), unless the run started
 * before budget.conf's Cutover (sb_run_allocated).  A run holds the TRES it
 * was allocated (a run of no time, which slurmdbd records without an
 * allocation, and a job that never started: those it asked for).  Lost
 * (sb_run_work_lost): slurmdbd records a run that a preemption ended as
 * PREEMPTED whether the job was requeued or cancelled, and a run an
 * administrator requeued as REQUEUED; @again (the job has a later record:
 * it was requeued) tells the two PREEMPTED apart.  A later record is one
 * that overlaps the span: a resumable job preempted just before the span's
 * end, that left slurmctld before it ran again after the end, counts as
 * cancelled (lost) in that span (sbudget(1), Lost).  Return false when the
 * record holds none of ChargeTRES.
 */
static bool segment_of(const struct sbu_ctx *c, const slurmdb_job_rec_t *j,
		       bool again, const char *tres_id, struct sb_fig_seg *s)
{
	const slurm_job_info_t *live = sbu_live_job(c, j->jobid);
	int64_t start = rec_time(j->start, c->now);
	const char *ts = start ? j->tres_alloc_str : j->tres_req_str;
	const char *tag = j->admin_comment;
	struct sb_contract ct;
	double cnt;

	if (sb_contract_of_job(tag, true, &ct) != SB_OK && live) {
		sbu_job_contract(live, &ct);
		tag = live->admin_comment;
	}
	cnt = sbc_tres_count(ts, tres_id);
	if (cnt <= 0 && start)	/* a run of no time has no allocation */
		cnt = sbc_tres_count(j->tres_req_str, tres_id);
	/* pending: what it will hold (whole nodes), as the plugins judge */
	if (!start && live && SBU_PENDING(live))
		cnt = sbu_job_tres(c, live);
	if (cnt <= 0)
		return false;
	s->index = record_index(c, j);
	s->tres = cnt;
	/* charged as the plugins charge it: before budget.conf's Cutover, a
	 * run without a contract counts to its budget (sb_run_allocated) */
	s->allocated = start ? sb_run_allocated(tag, start, c->cfg.cutover) :
		       ct.allocated;
	s->eligible = rec_time(j->eligible, c->now);
	s->start = start;
	s->end = rec_time(j->end, c->now);
	s->suspended = j->suspended;
	/* the job ran or asked again after this run (a later record, or
	 * slurmctld's job pending again, started later, or submitted again:
	 * a requeue gives the job a new submit time once its nodes are
	 * clean, and a job cancelled while pending after that keeps it;
	 * slurmdbd records that later incarnation asynchronously, so its
	 * record may not be there yet): a PREEMPTED run was requeued by the
	 * preemption, not cancelled */
	if (live && live->user_id == j->uid && live->assoc_id == j->associd &&
	    (SBU_PENDING(live) ||
	     (int64_t)live->start_time > (int64_t)j->start ||
	     (live->restart_cnt > 0 &&
	      (int64_t)live->submit_time > (int64_t)j->submit)))
		again = true;
	s->lost = s->start && s->end &&
		  sb_run_work_lost((j->state & JOB_REQUEUE) ||
				   ((j->state & JOB_STATE_BASE) ==
				    JOB_PREEMPTED && again),
				   (j->state & JOB_STATE_BASE) ==
				   JOB_PREEMPTED && !again,
				   ct.resumable);
	return true;
}

/* Job records by job id, then start (0, never started, last: a pending
 * record follows the runs before it), then submit. */
static int rec_cmp(const void *a, const void *b)
{
	const slurmdb_job_rec_t *x = *(slurmdb_job_rec_t *const *)a;
	const slurmdb_job_rec_t *y = *(slurmdb_job_rec_t *const *)b;
	time_t xs = x->start > 0 ? x->start : (time_t)INT64_MAX;
	time_t ys = y->start > 0 ? y->start : (time_t)INT64_MAX;

	if (x->jobid != y->jobid)
		return x->jobid < y->jobid ? -1 : 1;
	if (xs != ys)
		return xs < ys ? -1 : 1;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return 0;
}

/* Whether @b is a later record of @a's job, not another job that was
 * given the same id (ids wrap, and a reset slurmctld starts over): the
 * same id, user and association. */
static bool same_job(const slurmdb_job_rec_t *a, const slurmdb_job_rec_t *b)
{
	return a->jobid == b->jobid && a->uid == b->uid &&
	       a->associd == b->associd;
}

/* Run segments of [from, to) from slurmdbd's job records. */
static int load_segments(struct sbu_ctx *c, int64_t from, int64_t to,
			 struct sb_fig_seg **out, size_t *nout)
{
	slurmdb_job_cond_t cond;
	slurmdb_job_rec_t *j;
	List jobs;
	ListIterator it;
	char tres_id[32];
	struct sb_fig_seg *segs;
	slurmdb_job_rec_t **recs;
	size_t n = 0, cap, nrecs = 0, k;

	*out = NULL;
	*nout = 0;
	if (sbu_open_db(c) || sbu_load_jobs(c) ||
	    charge_tres_id(c, tres_id, sizeof(tres_id)))
		return -1;
	if (!tres_id[0])
		return 0;	/* nothing in accounting charges that TRES */

	memset(&cond, 0, sizeof(cond));
	cond.usage_start = from;
	cond.usage_end = to;
	cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP |
		     JOBCOND_FLAG_NO_TRUNC;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	jobs = slurmdb_jobs_get(c->db, &cond);
	slurm_list_destroy(cond.cluster_list);
	if (!jobs) {
		sbu_db_error("the job records");
		return -1;
	}
	cap = slurm_list_count(jobs) + 1;
	if (!(segs = calloc(cap, sizeof(*segs)))) {
		slurm_list_destroy(jobs);
		sbu_error("out of memory");
		return -1;
	}
	if (!(recs = calloc(cap, sizeof(*recs)))) {
		free(segs);
		slurm_list_destroy(jobs);
		sbu_error("out of memory");
		return -1;
	}
	it = slurm_list_iterator_create(jobs);
	while ((j = slurm_list_next(it)) && nrecs < cap)
		recs[nrecs++] = j;
	slurm_list_iterator_destroy(it);
	/* by job id, then start: a job's runs in order, so "a later record
	 * of the same job" is the next one */
	qsort(recs, nrecs, sizeof(*recs), rec_cmp);
	for (k = 0; k < nrecs; k++)
		if (segment_of(c, recs[k], k + 1 < nrecs &&
			       same_job(recs[k], recs[k + 1]), tres_id,
			       &segs[n]))
			n++;
	free(recs);
	slurm_list_destroy(jobs);
	*out = segs;
	*nout = n;
	return 0;
}

int sbu_figures(struct sbu_ctx *c, int64_t from, int64_t to, int64_t slot,
		struct sb_fig **total, struct sb_fig **series)
{
	struct sb_fig_seg *segs = NULL;
	size_t nsegs = 0, ns = sb_fig_nslots(from, to, slot);
	uint32_t n = sb_tree_count(c->tree);
	int rc;

	*total = NULL;
	if (series)
		*series = NULL;
	if (load_segments(c, from, to, &segs, &nsegs) ||
	    sbu_load_capacity(c))
		return -1;
	*total = calloc(n ? n : 1, sizeof(**total));
	if (series)
		*series = calloc((n ? n : 1) * (ns ? ns : 1),
				 sizeof(**series));
	if (!*total || (series && !*series)) {
		free(segs);
		sbu_error("out of memory");
		return -1;
	}
	rc = sb_figures(c->tree, segs, nsegs, from, to, slot, c->now,
			c->capacity, *total, series ? *series : NULL, NULL);
	free(segs);
	if (rc != SB_OK) {
		sbu_error("cannot compute the figures over [%lld, %lld): %s",
			  (long long)from, (long long)to, sb_strerror(rc));
		return -1;
	}
	return 0;
}

void sbu_fig_cells(struct sbc_table *t, const struct sb_fig *f)
{
	sbc_table_num(t, "Owed", sbu_hours(f->owed), 3);
	sbc_table_num(t, "Delivered", sbu_hours(f->delivered), 3);
	sbc_table_num(t, "Unallocated", sbu_hours(f->unallocated), 3);
	sbc_table_num(t, "Capped", sbu_hours(f->capped), 3);
	sbc_table_num(t, "DelivOwed", sb_fig_ratio(f), 3);
	sbc_table_int(t, "DeliveredRaw", (int64_t)llround(f->delivered));
	sbc_table_int(t, "OwedRaw", (int64_t)llround(f->owed));
	sbc_table_int(t, "UnallocatedRaw", (int64_t)llround(f->unallocated));
	sbc_table_int(t, "CappedRaw", (int64_t)llround(f->capped));
	sbc_table_num(t, "Demand", sbu_hours(f->demand), 3);
	sbc_table_num(t, "Quota", sbu_hours(f->quota), 3);
	sbc_table_int(t, "DemandRaw", (int64_t)llround(f->demand));
	sbc_table_int(t, "QuotaRaw", (int64_t)llround(f->quota));
	sbc_table_num(t, "Lost", sbu_hours(f->lost), 3);
	sbc_table_int(t, "LostRaw", (int64_t)llround(f->lost));
}
