/*
 * report.c - `sbudget report`: use against quota per budget over time.
 * The span [from, to) is cut into steps; each row is one budget's figures
 * (sb/figures.h) in one step, optionally drawn as an SVG plot.  Owed is
 * capped per hour (SB_FIG_SLOT) when the step is a whole number of hours,
 * so the steps add up to `show budget`'s figures of the same span; a
 * shorter (or uneven) step is its own slot.  After the table, the
 * all-teams figures of the span, in those slots and over the lookback
 * window (sb_fig_all_teams()).  See sbudget(1), "report".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbudget.h"

static const struct sbc_fielddef report_fields[] = {
	{ "Account", 0, false },	{ "User", 0, false },
	{ "Start", 0, false },		{ "End", 0, false },
	{ "Delivered", 0, true },	{ "Quota", 0, true },
	{ "Owed", 0, true },		{ "Demand", 0, true },
	{ "Unallocated", 0, true },	{ "UsePct", 0, true },
	{ "Capped", 0, true },		{ "DelivOwed", 0, true },
	{ "DeliveredRaw", 0, true },	{ "OwedRaw", 0, true },
	{ "UnallocatedRaw", 0, true },	{ "CappedRaw", 0, true },
	{ "DemandRaw", 0, true },	{ "QuotaRaw", 0, true },
	{ "Lost", 0, true },		{ "LostRaw", 0, true },
};
static const char *const report_defaults[] = {
	"Account", "User", "Start", "Delivered", "Quota", "Owed", "Demand",
	"Unallocated", "UsePct", NULL,
};

/* Accounts shown by report and plotted: account associations (not users)
 * unless account=/user= choose. */
static bool report_wanted(const struct sbu_ctx *c,
			  const slurmdb_assoc_rec_t *a)
{
	if (c->cmd->nusers)
		return sbu_wanted(c->cmd, a);
	return !a->user && sbu_wanted(c->cmd, a);
}

/* The figures of one step: the sum of its slots (@per slots from @k0). */
struct sb_fig sbu_step_fig(const struct sb_fig *row, size_t k0, size_t per,
			   size_t nslots)
{
	struct sb_fig f;
	size_t k;

	memset(&f, 0, sizeof(f));
	for (k = k0; k < k0 + per && k < nslots; k++) {
		f.delivered += row[k].delivered;
		f.unallocated += row[k].unallocated;
		f.demand += row[k].demand;
		f.quota += row[k].quota;
		f.owed += row[k].owed;
		f.capped += row[k].capped;
		f.lost += row[k].lost;
	}
	return f;
}

/* The rows of association @i, one per step; its delivered GPU-hours per
 * step into @vals (nsteps entries). */
static int budget_rows(const struct sbu_ctx *c, struct sbc_table *t,
		       uint32_t i, const struct sb_fig *row, size_t nslots,
		       size_t per, int64_t from, int64_t to, int64_t step,
		       double *vals)
{
	const slurmdb_assoc_rec_t *a = c->by_index[i];
	size_t s, nsteps = (nslots + per - 1) / per;
	char b0[64], b1[64];

	for (s = 0; s < nsteps; s++) {
		struct sb_fig f = sbu_step_fig(row, s * per, per, nslots);
		int64_t s0 = from + (int64_t)s * step;
		int64_t s1 = s0 + step < to ? s0 + step : to;

		if (sbc_table_row(t))
			return -1;
		sbc_table_text(t, "Account", a->acct);
		sbc_table_text(t, "User", a->user ? a->user : "");
		sbu_fmt_time(s0, b0, sizeof(b0));
		sbu_fmt_time(s1, b1, sizeof(b1));
		sbc_table_text(t, "Start", b0);
		sbc_table_text(t, "End", b1);
		sbu_fig_cells(t, &f);
		if (f.quota > 0)
			sbc_table_num(t, "UsePct", 100 * f.delivered / f.quota,
				      1);
		vals[s] = sbu_hours(f.delivered);
	}
	return 0;
}

static int write_plot(const struct sbu_ctx *c, int64_t from, int64_t to,
		      int64_t step, size_t nsteps, const struct sbc_plot_series *ps,
		      size_t np)
{
	const char *path = c->cmd->plot;
	FILE *f = fopen(path, "w");
	char title[512];

	if (!f) {
		sbu_error("plot '%s': cannot write: %s", path, strerror(errno));
		return -1;
	}
	snprintf(title, sizeof(title), "Use against quota per budget, cluster "
		 "%s (%.0f %s)", c->cluster, c->capacity, c->cfg.charge_tres);
	if (sbc_svg_plot(f, title, from, to, step, nsteps, ps, np) || fclose(f)) {
		sbu_error("plot '%s': cannot write", path);
		return -1;
	}
	return 0;
}

/* @all: the all-teams figures of the span (sb_fig_all_teams()) over the
 * teams among the associations @shown: @tot in report's slots, and over the
 * lookback window from @ser (windows of LookbackWindow, in whole
 * slots). */
static int all_figures(const struct sbu_ctx *c, const bool *shown,
		       const struct sb_fig *tot, const struct sb_fig *ser,
		       int64_t from, int64_t to, int64_t slot,
		       struct sbc_all_teams *all)
{
	struct sb_fig *win = sbu_window_figures(c, ser, from, to, slot);
	int rc;

	if (!win)
		return -1;
	rc = sbu_all_teams_pair(c, shown, tot, win, NULL, all);
	free(win);
	return rc;
}

int sbu_cmd_report(struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	struct sbc_table t;
	struct sb_fig *tot = NULL, *ser = NULL;
	struct sbc_plot_series *ps = NULL;
	long *series_of = NULL;	/* per tree index: its series, -1 none */
	bool *shown = NULL;	/* per tree index: selected (the teams) */
	struct sbc_all_teams all[2];
	bool want_all = cmd->style == SBC_STYLE_JSON ||
			(cmd->style == SBC_STYLE_TABLE && !cmd->noheader);
	char m[SBC_MSG_MAX * 4];
	int64_t from, to, step, slot;
	size_t nslots, per, nsteps, k, np = 0;
	uint32_t n, i;
	int rc = 1;

	if (sbc_table_init(&t, report_fields,
			   sizeof(report_fields) / sizeof(report_fields[0]),
			   report_defaults, cmd, m, sizeof(m))) {
		sbu_error("%s", m);
		return 1;
	}
	if (sbc_span(cmd, c->now, c->cfg.lookback_window, &from, &to, m,
		     sizeof(m))) {
		sbu_error("%s", m);
		goto out;
	}
	step = cmd->step ? cmd->step : ((to - from) >= 24 ?
					(to - from) / 24 : 1);
	slot = step % SB_FIG_SLOT == 0 ? SB_FIG_SLOT : step;
	per = (size_t)(step / slot);
	nslots = sb_fig_nslots(from, to, slot);
	nsteps = (nslots + per - 1) / per;
	if (sbu_load_tree(c) || sbu_check_names(c) ||
	    sbu_figures(c, from, to, slot, &tot, &ser))
		goto out;
	n = sb_tree_count(c->tree);
	if (!(ps = calloc(n ? n : 1, sizeof(*ps))) ||
	    !(series_of = malloc((n ? n : 1) * sizeof(*series_of))) ||
	    !(shown = calloc(n ? n : 1, sizeof(*shown))))
		goto oom;
	for (i = 0; i < n; i++) {
		series_of[i] = -1;
		/* the teams: of the associations account=/user= select, as
		 * show budget's rows (user associations too) */
		shown[i] = c->by_index[i] && sbu_wanted(cmd, c->by_index[i]);
	}
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
		double *vals;

		if (!c->by_index[i] || !report_wanted(c, c->by_index[i]))
			continue;
		if (!(vals = calloc(nsteps, sizeof(*vals))))
			goto oom;
		ps[np].name = nd->name;
		ps[np].values = vals;
		/* the nearest plotted ancestor (tree order: plotted before) */
		ps[np].parent = -1;
		for (uint32_t up = nd->parent; up != SB_NONE && up < n;
		     up = sb_tree_node(c->tree, up)->parent)
			if (series_of[up] >= 0) {
				ps[np].parent = series_of[up];
				break;
			}
		series_of[i] = (long)np;
		/* a full step's quota (the first step always is one) */
		ps[np].quota = sbu_hours(sbu_step_fig(&ser[(size_t)i * nslots], 0,
						  per, nslots).quota);
		np++;
		if (budget_rows(c, &t, i, &ser[(size_t)i * nslots], nslots,
				per, from, to, step, vals))
			goto oom;
	}
	if (cmd->plot[0] && write_plot(c, from, to, step, nsteps, ps, np))
		goto out;
	/* the all-teams lines: after the table (not with -n), or under their
	 * keys in --json; never in the parsable styles */
	if (want_all && all_figures(c, shown, tot, ser, from, to, slot, all))
		goto out;
	sbc_table_print_all(&t, stdout, cmd->style, cmd->noheader, "report",
			    all, want_all ? 2 : 0);
	rc = 0;
	goto out;
oom:
	sbu_error("out of memory");
out:
	for (k = 0; ps && k < np; k++)
		free((void *)ps[k].values);
	free(ps);
	free(series_of);
	free(shown);
	free(tot);
	free(ser);
	sbc_table_free(&t);
	return rc;
}
