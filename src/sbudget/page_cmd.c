/*
 * page_cmd.c - `sbudget page FILE.html`: gathers the budget page's facts
 * from the cluster and hands them to page.c's writer (no Slurm there).
 * Nothing is computed here that another command does not print: the tree
 * and its figures are show budget's rows (sbu_budget_rows), the series are
 * report's steps of the core's figures (sbu_figures, sbu_step_fig), a
 * pending job's "why" is show job's WaitsFor (sbu_waits_for, the core's
 * verdicts), a preemption's is show job's PreemptReason.  account=X limits
 * the page to X's sub-tree.  The file is written beside its final name and
 * renamed over it, so a web server never serves half a page.  See
 * sbudget(1), "page".
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "page.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/priority.h"
#include "sbudget.h"

/* Pending jobs listed with their reason; the rest are counted. */
#define MAX_PENDING 200
/* Preemptions listed, newest first. */
#define MAX_PREEMPTED 100
/* Steps per chart at most: a chart is 312 pixels wide, and every step
 * costs each panel about 100 bytes. */
#define MAX_STEPS 720

/* The default step: the first of these at least span/36 long (a day: an
 * hour; a week: 6 hours). */
static int64_t default_step(int64_t span)
{
	static const int64_t steps[] = {
		60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200,
		86400, 2 * 86400, 7 * 86400,
	};
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * 36 >= span)
			return steps[i];
	return steps[sizeof(steps) / sizeof(steps[0]) - 1];
}

/* The text of field @name in row @r of @t ("" when empty). */
static const char *cell_text(const struct sbc_table *t, size_t r,
			     const char *name)
{
	size_t k;

	for (k = 0; k < t->ndefs; k++)
		if (!strcmp(t->defs[k].name, name))
			return t->cells[r * t->ndefs + k].text ?
			       t->cells[r * t->ndefs + k].text : "";
	return "";
}

/* Whether live job @j belongs to the page (its association in scope). */
static bool job_in_scope(const struct sbu_ctx *c, const slurm_job_info_t *j)
{
	uint32_t idx;

	if (!c->cmd->naccounts)
		return true;
	return sb_tree_index(c->tree, j->assoc_id, &idx) == SB_OK &&
	       sbu_wanted_in(c, idx);
}

/* The scheduler's order: priority, highest first; then job id. */
static int by_priority(const void *a, const void *b)
{
	const slurm_job_info_t *x = *(const slurm_job_info_t *const *)a;
	const slurm_job_info_t *y = *(const slurm_job_info_t *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

static int by_time_desc(const void *a, const void *b)
{
	const struct sbp_preemption *x = a, *y = b;

	if (x->at != y->at)
		return x->at > y->at ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* What the page holds beyond the context; freed by page_free(). */
struct page_data {
	struct sbc_table budgets;
	bool budgets_init;
	uint32_t *depths;
	struct sb_fig *tot, *ser;
	struct sbp_panel *panels;
	double *series;		/* 3 x nsteps per panel */
	struct sbp_job *pending;
	char (*why)[2048];
	const slurm_job_info_t **queue;
	struct sbp_preemption *preempted;
	char (*reason)[1024];
	char (*uname)[64];	/* per live job, by its place in c->jobs */
};

/* The user of live job @j: its name in slurmctld's record (24.11) or the
 * passwd name of its uid, else the uid. */
static const char *job_user(const struct sbu_ctx *c, struct page_data *d,
			    const slurm_job_info_t *j)
{
	char *buf = d->uname[j - c->jobs->job_array], tmp[4096];
	struct passwd pw, *res = NULL;

	if (j->user_name)
		return j->user_name;
	if (!buf[0]) {
		if (getpwuid_r((uid_t)j->user_id, &pw, tmp, sizeof(tmp),
			       &res) == 0 && res)
			snprintf(buf, 64, "%s", res->pw_name);
		else
			snprintf(buf, 64, "%u", j->user_id);
	}
	return buf;
}

static void page_free(struct page_data *d)
{
	if (d->budgets_init)
		sbc_table_free(&d->budgets);
	free(d->depths);
	free(d->tot);
	free(d->ser);
	free(d->panels);
	free(d->series);
	free(d->pending);
	free(d->why);
	free(d->queue);
	free(d->preempted);
	free(d->reason);
	free(d->uname);
}

/* One panel per account association in scope, with its series. */
static int make_panels(struct sbu_ctx *c, struct page_data *d,
		       struct sbp_page *pg, size_t nslots, size_t per)
{
	uint32_t n = sb_tree_count(c->tree), i;
	long *panel_of = calloc(n ? n : 1, sizeof(*panel_of));
	size_t row = 0, np = 0, s;
	int rc = -1;

	d->panels = calloc(n ? n : 1, sizeof(*d->panels));
	d->series = calloc((size_t)(n ? n : 1) * 3 * pg->nsteps,
			   sizeof(*d->series));
	if (!panel_of || !d->panels || !d->series)
		goto out;
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
		const slurmdb_assoc_rec_t *a = c->by_index[i];
		struct sbp_panel *p;
		double *v;

		panel_of[i] = -1;
		if (!a || !sbu_wanted_in(c, i))
			continue;
		row++;	/* show budget's row of this association */
		if (a->user)
			continue;
		p = &d->panels[np];
		v = &d->series[np * 3 * pg->nsteps];
		p->name = a->acct;
		p->parent = nd->parent == SB_NONE ? -1 : panel_of[nd->parent];
		p->cluster_pct = 100 * nd->entitled;
		p->parent_pct = 100 * nd->shares_norm;
		p->raw_shares = cell_text(&d->budgets, row - 1, "RawShares");
		p->owed = cell_text(&d->budgets, row - 1, "Owed");
		p->delivered = cell_text(&d->budgets, row - 1, "Delivered");
		p->unallocated = cell_text(&d->budgets, row - 1,
					   "Unallocated");
		p->deliv_owed = cell_text(&d->budgets, row - 1, "DelivOwed");
		p->standing = cell_text(&d->budgets, row - 1, "Standing");
		p->status = cell_text(&d->budgets, row - 1, "Status");
		for (s = 0; s < pg->nsteps; s++) {
			struct sb_fig f = sbu_step_fig(&d->ser[(size_t)i *
							       nslots],
						       s * per, per, nslots);

			v[s] = sbu_hours(f.delivered);
			v[pg->nsteps + s] = sbu_hours(f.owed);
			v[2 * pg->nsteps + s] = sbu_hours(f.quota);
		}
		p->delivered_steps = v;
		p->owed_steps = v + pg->nsteps;
		p->quota_steps = v + 2 * pg->nsteps;
		panel_of[i] = (long)np++;
	}
	pg->panels = d->panels;
	pg->npanels = np;
	rc = 0;
out:
	if (rc)
		sbu_error("out of memory");
	free(panel_of);
	return rc;
}

/* The pending jobs in scope, in the scheduler's order, each with why. */
static int make_pending(struct sbu_ctx *c, struct page_data *d,
			struct sbp_page *pg)
{
	uint32_t nj = c->jobs->record_count, i;
	size_t nq = 0, k;

	d->queue = calloc(nj ? nj : 1, sizeof(*d->queue));
	d->pending = calloc(MAX_PENDING, sizeof(*d->pending));
	d->why = calloc(MAX_PENDING, sizeof(*d->why));
	if (!d->queue || !d->pending || !d->why) {
		sbu_error("out of memory");
		return -1;
	}
	for (i = 0; i < nj; i++) {
		const slurm_job_info_t *j = &c->jobs->job_array[i];

		if (SBU_PENDING(j) && job_in_scope(c, j))
			d->queue[nq++] = j;
	}
	qsort(d->queue, nq, sizeof(*d->queue), by_priority);
	for (k = 0; k < nq && k < MAX_PENDING; k++) {
		const slurm_job_info_t *j = d->queue[k];
		struct sbp_job *o = &d->pending[k];
		struct sb_priority_parts pp;
		int64_t ahead;

		o->id = j->job_id;
		o->name = j->name ? j->name : "";
		o->user = job_user(c, d, j);
		o->account = j->account ? j->account : "";
		o->partition = j->partition ? j->partition : "";
		o->tres = sbu_job_tres(c, j);
		o->priority = j->priority;
		if (sb_priority_decode(j->priority, &pp) == SB_OK) {
			o->tier = pp.allocated ? "allocated" : "unallocated";
			o->level = pp.level;
		} else {
			o->tier = j->priority == 0 ? "held" : "set by an "
				  "administrator";
		}
		if (sbu_waits_for(c, j, d->why[k], sizeof(d->why[k]), &ahead))
			return -1;
		o->waits_for = d->why[k];
	}
	pg->pending = d->pending;
	pg->npending = k;
	pg->pending_more = nq - k;
	return 0;
}

/* The jobs in scope preempt/budget left a note on, newest first. */
static int make_preempted(struct sbu_ctx *c, struct page_data *d,
			  struct sbp_page *pg)
{
	uint32_t nj = c->jobs->record_count, i;
	size_t n = 0;

	d->preempted = calloc(nj ? nj : 1, sizeof(*d->preempted));
	d->reason = calloc(nj ? nj : 1, sizeof(*d->reason));
	if (!d->preempted || !d->reason) {
		sbu_error("out of memory");
		return -1;
	}
	for (i = 0; i < nj; i++) {
		const slurm_job_info_t *j = &c->jobs->job_array[i];
		struct sb_stop_note note;
		struct sbp_preemption *o = &d->preempted[n];

		if (!job_in_scope(c, j) ||
		    sbu_preempt_reason(c, j, &note, d->reason[n],
				       sizeof(d->reason[n])) == 0)
			continue;
		o->id = j->job_id;
		o->user = job_user(c, d, j);
		o->account = j->account ? j->account : "";
		o->state = sbs_job_state(j->job_state);
		o->at = note.at;
		o->by_job = note.by_job;	/* 0 for a damaged note */
		o->repair = note.repair;
		o->reason = d->reason[n];
		n++;
	}
	qsort(d->preempted, n, sizeof(*d->preempted), by_time_desc);
	pg->preempted = d->preempted;
	pg->npreempted = n < MAX_PREEMPTED ? n : MAX_PREEMPTED;
	return 0;
}

/* Write the page to @path through a temporary file renamed over it
 * ("-": standard output). */
static int write_file(const char *path, const struct sbp_page *pg)
{
	char tmp[4200];
	mode_t mask;
	FILE *f;
	int fd;

	if (!strcmp(path, "-")) {
		if (sbp_write_page(stdout, pg)) {
			sbu_error("page: cannot write to standard output");
			return -1;
		}
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path);
	if ((fd = mkstemp(tmp)) < 0) {
		sbu_error("page '%s': cannot write: %s", path, strerror(errno));
		return -1;
	}
	/* mkstemp makes it 0600: give it the mode a plain create would */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(tmp);
		sbu_error("page '%s': cannot write: %s", path, strerror(errno));
		return -1;
	}
	if (sbp_write_page(f, pg) | fclose(f) || rename(tmp, path)) {
		sbu_error("page '%s': cannot write: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

int sbu_cmd_page(struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	struct page_data d;
	struct sbp_page pg;
	char m[SBC_MSG_MAX * 4], scope[SBC_MAX_NAMES * SBC_NAME_MAX];
	int64_t slot;
	size_t nslots, per, k, off = 0;
	int rc = 1;

	memset(&d, 0, sizeof(d));
	memset(&pg, 0, sizeof(pg));
	if (sbc_span(cmd, c->now, c->cfg.lookback_window, &pg.from, &pg.to, m,
		     sizeof(m))) {
		sbu_error("%s", m);
		return 1;
	}
	pg.step = cmd->step ? cmd->step : default_step(pg.to - pg.from);
	slot = pg.step % SB_FIG_SLOT == 0 ? SB_FIG_SLOT : pg.step;
	per = (size_t)(pg.step / slot);
	nslots = sb_fig_nslots(pg.from, pg.to, slot);
	pg.nsteps = (nslots + per - 1) / per;
	if (pg.nsteps > MAX_STEPS) {
		char st[64], least[64];

		sb_duration_format(pg.step, st, sizeof(st));
		sb_duration_format((pg.to - pg.from + MAX_STEPS - 1) / MAX_STEPS,
				   least, sizeof(least));
		sbu_error("page: step '%s' cuts the span into %zu steps, more "
			  "than a chart shows (%d): give step=%s or longer", st,
			  pg.nsteps, MAX_STEPS, least);
		return 1;
	}
	if (sbu_budget_table_init(&d.budgets, cmd))
		return 1;
	d.budgets_init = true;
	if (sbu_budget_rows(c, &d.budgets, pg.from, pg.to, false, &d.depths) ||
	    sbu_figures(c, pg.from, pg.to, slot, &d.tot, &d.ser) ||
	    sbu_load_jobs(c) || sbu_load_capacity(c))
		goto out;
	if (!(d.uname = calloc(c->jobs->record_count ? c->jobs->record_count :
			       1, sizeof(*d.uname)))) {
		sbu_error("out of memory");
		goto out;
	}
	pg.cluster = c->cluster;
	pg.now = c->now;
	pg.capacity = c->capacity;
	pg.tres = c->cfg.charge_tres;
	pg.budgets = &d.budgets;
	pg.row_depth = d.depths;
	scope[0] = '\0';
	for (k = 0; k < cmd->naccounts; k++)
		off += (size_t)snprintf(scope + off, sizeof(scope) - off,
					"%s%s", k ? ", " : "",
					cmd->accounts[k]);
	pg.scope = cmd->naccounts ? scope : NULL;
	if (make_panels(c, &d, &pg, nslots, per) ||
	    make_pending(c, &d, &pg) || make_preempted(c, &d, &pg) ||
	    write_file(cmd->page, &pg))
		goto out;
	rc = 0;
out:
	page_free(&d);
	return rc;
}
