/*
 * show_budget.c - `sbudget show budget`: the budget tree with its shares,
 * percentages, standing and the figures of a span (owed, delivered,
 * unallocated, capped: sb/figures.h, in slots of SB_FIG_SLOT), one row per
 * association in tree order; on request, owed and capped over the lookback
 * window (sb_fig_window()); after the table, the all-teams figures of the
 * rows shown, hour by hour and over the window (sb_fig_all_teams()).  See
 * sbudget(1), "show budget" and "FIGURES".
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sbudget.h"

static const struct sbc_fielddef budget_fields[] = {
	{ "Account", 0, false },	{ "User", 0, false },
	{ "RawShares", 0, true },	{ "ParentPct", 0, true },
	{ "ClusterPct", 0, true },	{ "Owed", 0, true },
	{ "Delivered", 0, true },	{ "Unallocated", 0, true },
	{ "Capped", 0, true },		{ "DelivOwed", 0, true },
	{ "Standing", 0, true },	{ "Status", 0, false },
	{ "LevelFS", 0, true },		{ "RawUsage", 0, true },
	{ "DeliveredRaw", 0, true },	{ "OwedRaw", 0, true },
	{ "UnallocatedRaw", 0, true },	{ "CappedRaw", 0, true },
	{ "Demand", 0, true },		{ "Quota", 0, true },
	{ "DemandRaw", 0, true },	{ "QuotaRaw", 0, true },
	{ "AssocId", 0, true },		{ "Start", 0, false },
	{ "End", 0, false },		{ "Lost", 0, true },
	{ "LostRaw", 0, true },		{ "OwedWindow", 0, true },
	{ "CappedWindow", 0, true },	{ "DelivOwedWindow", 0, true },
	{ "OwedWindowRaw", 0, true },	{ "CappedWindowRaw", 0, true },
};
static const char *const budget_defaults[] = {
	"Account", "User", "RawShares", "ParentPct", "ClusterPct", "Owed",
	"Delivered", "Unallocated", "DelivOwed", "Standing", "Status", NULL,
};

/* The cells from sshare: standing, level fair-share, charged usage. */
static void share_cells(struct sbc_table *t, const struct sbs_share *s,
			double entitled)
{
	if (s) {
		sbc_table_num(t, "Standing", s->fs_factor, 6);
		if (s->level_fs < DBL_MAX / 2 && isfinite(s->level_fs))
			sbc_table_num(t, "LevelFS", s->level_fs, 6);
		else
			sbc_table_text(t, "LevelFS", "inf");
		sbc_table_int(t, "RawUsage", (int64_t)s->usage_raw);
	}
	sbc_table_text(t, "Status", sbu_status_of(s, entitled));
}

/* Whether @t shows a figure over the lookback window (its columns end in
 * "Window" or "WindowRaw"): only then are the slots kept for it. */
static bool window_wanted(const struct sbc_table *t)
{
	size_t k;

	for (k = 0; k < t->ncols; k++)
		if (strstr(t->defs[t->col[k]].name, "Window"))
			return true;
	return false;
}

/* The cells of the lookback-window figures @w. */
static void window_cells(struct sbc_table *t, const struct sb_fig *w)
{
	sbc_table_num(t, "OwedWindow", sbu_hours(w->owed), 3);
	sbc_table_num(t, "CappedWindow", sbu_hours(w->capped), 3);
	sbc_table_num(t, "DelivOwedWindow", sb_fig_ratio(w), 3);
	sbc_table_int(t, "OwedWindowRaw", (int64_t)llround(w->owed));
	sbc_table_int(t, "CappedWindowRaw", (int64_t)llround(w->capped));
}

int sbu_budget_rows(struct sbu_ctx *c, struct sbc_table *t, int64_t from,
		    int64_t to, bool indent, uint32_t **depths)
{
	return sbu_budget_rows_all(c, t, from, to, indent, depths, NULL);
}

int sbu_budget_rows_all(struct sbu_ctx *c, struct sbc_table *t, int64_t from,
			int64_t to, bool indent, uint32_t **depths,
			struct sbc_all_teams *all)
{
	char why[512] = "";
	struct sb_fig *fig = NULL, *series = NULL, *win = NULL;
	bool want_win = window_wanted(t), fits = true, *shown = NULL;
	char b0[64], b1[64];
	uint32_t n, i, *dep = NULL;
	int rc = -1;

	if (sbu_load_tree(c) || sbu_check_names(c) || sbu_load_shares(c))
		goto out;
	if (want_win || all)
		fits = sbu_window_fits(c, from, to, SB_FIG_SLOT, why,
				       sizeof(why));
	if (want_win && !fits) {
		sbu_error("%s, or leave out the *Window fields", why);
		goto out;
	}
	if (sbu_figures(c, from, to, SB_FIG_SLOT, &fig,
			fits && (want_win || all) ? &series : NULL))
		goto out;
	n = sb_tree_count(c->tree);
	if (series &&
	    !(win = sbu_window_figures(c, series, from, to, SB_FIG_SLOT)))
		goto out;
	sbu_fmt_time(from, b0, sizeof(b0));
	sbu_fmt_time(to, b1, sizeof(b1));
	if ((depths && !(dep = calloc(n ? n : 1, sizeof(*dep)))) ||
	    !(shown = calloc(n ? n : 1, sizeof(*shown)))) {
		sbu_error("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
		const slurmdb_assoc_rec_t *a = c->by_index[i];
		char acct[512];

		if (!a || !sbu_wanted_in(c, i))
			continue;
		shown[i] = true;
		if (sbc_table_row(t)) {
			sbu_error("out of memory");
			goto out;
		}
		if (dep)
			dep[t->nrows - 1] = nd->depth;
		snprintf(acct, sizeof(acct), "%*s%s",
			 indent ? (int)nd->depth : 0, "", a->acct);
		sbc_table_text(t, "Account", acct);
		sbc_table_text(t, "User", a->user ? a->user : "");
		if (nd->raw_shares == SB_SHARES_USE_PARENT)
			sbc_table_text(t, "RawShares", "parent");
		else
			sbc_table_int(t, "RawShares", (int64_t)nd->raw_shares);
		sbc_table_num(t, "ParentPct", 100 * nd->shares_norm, 2);
		sbc_table_num(t, "ClusterPct", 100 * nd->entitled, 2);
		sbu_fig_cells(t, &fig[i]);
		if (win && want_win)
			window_cells(t, &win[i]);
		sbc_table_int(t, "AssocId", a->id);
		sbc_table_text(t, "Start", b0);
		sbc_table_text(t, "End", b1);
		share_cells(t, sbu_share_of(c, a->id), nd->entitled);
	}
	if (all && sbu_all_teams_pair(c, shown, fig, win, why, all))
		goto out;
	if (depths) {
		*depths = dep;
		dep = NULL;
	}
	rc = 0;
out:
	free(dep);
	free(shown);
	free(fig);
	free(series);
	free(win);
	return rc;
}

int sbu_budget_table_init(struct sbc_table *t, const struct sbc_cmd *cmd)
{
	char msg[SBC_MSG_MAX * 4];

	if (sbc_table_init(t, budget_fields,
			   sizeof(budget_fields) / sizeof(budget_fields[0]),
			   budget_defaults, cmd, msg, sizeof(msg))) {
		sbu_error("%s", msg);
		return -1;
	}
	return 0;
}

int sbu_cmd_show_budget(struct sbu_ctx *c)
{
	struct sbc_table t;
	struct sbc_all_teams all[2];
	char msg[SBC_MSG_MAX * 4];
	int64_t from, to;
	bool want_all;
	int rc = 1;

	if (sbu_budget_table_init(&t, c->cmd))
		return 1;
	if (sbc_span(c->cmd, c->now, c->cfg.lookback_window, &from, &to, msg,
		     sizeof(msg))) {
		sbu_error("%s", msg);
		goto out;
	}
	/* the all-teams lines: after the table (not with -n), or under their
	 * keys in --json; never in the parsable styles */
	want_all = c->cmd->style == SBC_STYLE_JSON ||
		   (c->cmd->style == SBC_STYLE_TABLE && !c->cmd->noheader);
	if (sbu_budget_rows_all(c, &t, from, to,
				c->cmd->style == SBC_STYLE_TABLE, NULL,
				want_all ? all : NULL))
		goto out;
	sbc_table_print_all(&t, stdout, c->cmd->style, c->cmd->noheader,
			    "budgets", all, want_all ? 2 : 0);
	rc = 0;
out:
	sbc_table_free(&t);
	return rc;
}
