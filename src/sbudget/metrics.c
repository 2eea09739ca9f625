/*
 * metrics.c - `sbudget metrics`: the figures of `show budget` (sb/figures.h,
 * over [now - window, now) in slots of SB_FIG_SLOT), the standing and
 * charged usage sshare shows, the jobs by state and tier, and the
 * all-teams figures (sb_fig_all_teams(): hour by hour and over the
 * lookback window, with the worst team), in Prometheus text format for
 * node_exporter's textfile collector.  See sbudget(1), "metrics".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sb/error.h"
#include "sbudget.h"

/* The per-association gauges, in the order they are printed. */
enum gauge {
	G_RAW_SHARES, G_SHARE_PARENT, G_SHARE_CLUSTER, G_OWED, G_DELIVERED,
	G_UNALLOCATED, G_DEMAND, G_CAPPED, G_RATIO, G_STANDING, G_CHARGED,
	G_LOST, G_COUNT
};

static const struct {
	const char *name, *help;
} gauges[G_COUNT] = {
	[G_RAW_SHARES] = { "sbudget_raw_shares", "RawShares of the budget" },
	[G_SHARE_PARENT] = { "sbudget_share_of_parent", "Normalised share of "
			     "the parent's budget, 0..1" },
	[G_SHARE_CLUSTER] = { "sbudget_share_of_cluster", "Entitled fraction "
			      "of the cluster, 0..1" },
	[G_OWED] = { "sbudget_owed_gpu_hours", "Owed in the window: quota "
		     "capped by allocated demand hour by hour" },
	[G_DELIVERED] = { "sbudget_delivered_gpu_hours", "Allocated occupancy "
			  "in the window" },
	[G_UNALLOCATED] = { "sbudget_unallocated_gpu_hours", "Unallocated "
			    "occupancy in the window" },
	[G_DEMAND] = { "sbudget_demand_gpu_hours", "Allocated demand (pending "
		       "or running) in the window" },
	[G_CAPPED] = { "sbudget_capped_gpu_hours", "Delivered of what was "
		       "owed, hour by hour: min(delivered, owed) summed" },
	[G_RATIO] = { "sbudget_delivered_owed_ratio", "Capped over owed, 0..1 "
		      "(1 when nothing is owed)" },
	[G_STANDING] = { "sbudget_standing", "Standing factor of "
			 "priority/budget, 1 = best" },
	[G_CHARGED] = { "sbudget_usage_charged_gpu_seconds", "Charged usage "
			"in the window, as sshare RawUsage" },
	[G_LOST] = { "sbudget_lost_gpu_hours", "GPU time of runs whose work "
		     "was thrown away in the window: cancelled by a "
		     "preemption, or requeued to start over" },
};

/* The value of gauge @g for association index @i; NAN = not printed. */
static double gauge_value(const struct sbu_ctx *c, enum gauge g, uint32_t i,
			  const struct sb_fig *f)
{
	const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
	const struct sbs_share *s = sbu_share_of(c, c->by_index[i]->id);

	switch (g) {
	case G_RAW_SHARES: return nd->raw_shares == SB_SHARES_USE_PARENT ?
				  NAN : (double)nd->raw_shares;
	case G_SHARE_PARENT: return nd->shares_norm;
	case G_SHARE_CLUSTER: return nd->entitled;
	case G_OWED: return sbu_hours(f->owed);
	case G_DELIVERED: return sbu_hours(f->delivered);
	case G_UNALLOCATED: return sbu_hours(f->unallocated);
	case G_DEMAND: return sbu_hours(f->demand);
	case G_CAPPED: return sbu_hours(f->capped);
	case G_RATIO: return sb_fig_ratio(f);
	case G_STANDING: return s ? s->fs_factor : NAN;
	case G_CHARGED: return s ? (double)s->usage_raw : NAN;
	case G_LOST: return sbu_hours(f->lost);
	default: return NAN;
	}
}

static void labels(FILE *o, const slurmdb_assoc_rec_t *a, const char *cluster)
{
	fputs("{cluster=\"", o);
	sbc_prom_label(o, cluster);
	fputs("\",account=\"", o);
	sbc_prom_label(o, a->acct);
	fputs("\",user=\"", o);
	sbc_prom_label(o, a->user ? a->user : "");
	fputs("\"}", o);
}

/* sbudget_jobs and sbudget_job_gpus: live jobs by state and tier (the
 * tier as the contract of the job says: no valid tag = unallocated). */
static void job_gauges(const struct sbu_ctx *c, FILE *o)
{
	uint32_t i, k, count[2][2] = { { 0 } };
	double gpus[2][2] = { { 0 } };

	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *j = &c->jobs->job_array[i];
		int st = SBU_PENDING(j) ? 0 : SBU_RUNNING(j) ? 1 : -1;
		struct sb_contract ct;
		int tier;

		if (st < 0)
			continue;
		sbu_job_contract(j, &ct);
		tier = ct.allocated;
		count[st][tier]++;
		gpus[st][tier] += sbu_job_tres(c, j);
	}
	fprintf(o, "# HELP sbudget_jobs Jobs by state and tier\n"
		"# TYPE sbudget_jobs gauge\n");
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			fprintf(o, "sbudget_jobs{cluster=\"%s\",state=\"%s\","
				"tier=\"%s\"} %u\n", c->cluster,
				i ? "running" : "pending",
				k ? "allocated" : "unallocated", count[i][k]);
	fprintf(o, "# HELP sbudget_job_gpus GPUs held (running) or asked "
		"for (pending) by state and tier\n# TYPE sbudget_job_gpus "
		"gauge\n");
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			fprintf(o, "sbudget_job_gpus{cluster=\"%s\",state=\"%s\","
				"tier=\"%s\"} %.0f\n", c->cluster,
				i ? "running" : "pending",
				k ? "allocated" : "unallocated", gpus[i][k]);
}

/* One all-teams figure as gauges: sbudget_all_teams_owed<x>_gpu_hours,
 * _capped<x>_gpu_hours, _delivered_owed<x>_ratio, and the worst team's
 * sbudget_worst_team_delivered_owed<x>_ratio (labelled with its
 * association; absent when no team is owed anything).  @x: "" or
 * "_window". */
static void all_gauges(FILE *o, const struct sbu_ctx *c,
		       const struct sbc_all_teams *a, const char *x,
		       const char *what)
{
	fprintf(o, "# HELP sbudget_all_teams_owed%s_gpu_hours Owed to the "
		"teams (leaf associations) %s, summed\n# TYPE "
		"sbudget_all_teams_owed%s_gpu_hours gauge\n"
		"sbudget_all_teams_owed%s_gpu_hours{cluster=\"", x, what, x, x);
	sbc_prom_label(o, c->cluster);
	fprintf(o, "\"} %.9g\n", sbu_hours(a->fig.owed));
	fprintf(o, "# HELP sbudget_all_teams_capped%s_gpu_hours Capped of the "
		"teams %s, each team capped on its own, summed\n# TYPE "
		"sbudget_all_teams_capped%s_gpu_hours gauge\n"
		"sbudget_all_teams_capped%s_gpu_hours{cluster=\"", x, what, x,
		x);
	sbc_prom_label(o, c->cluster);
	fprintf(o, "\"} %.9g\n", sbu_hours(a->fig.capped));
	fprintf(o, "# HELP sbudget_all_teams_delivered_owed%s_ratio All teams "
		"%s: their capped over their owed, 0..1 (1 when nothing is "
		"owed)\n# TYPE sbudget_all_teams_delivered_owed%s_ratio gauge\n"
		"sbudget_all_teams_delivered_owed%s_ratio{cluster=\"", x, what,
		x, x);
	sbc_prom_label(o, c->cluster);
	fprintf(o, "\"} %.9g\n", a->fig.ratio);
	fprintf(o, "# HELP sbudget_worst_team_delivered_owed%s_ratio The team "
		"of the lowest capped over owed %s, among those owed "
		"something\n# TYPE sbudget_worst_team_delivered_owed%s_ratio "
		"gauge\n", x, what, x);
	if (a->fig.worst == SB_NONE)
		return;
	fprintf(o, "sbudget_worst_team_delivered_owed%s_ratio{cluster=\"", x);
	sbc_prom_label(o, c->cluster);
	fputs("\",account=\"", o);
	sbc_prom_label(o, a->worst_account);
	fputs("\",user=\"", o);
	sbc_prom_label(o, a->worst_user ? a->worst_user : "");
	fprintf(o, "\"} %.9g\n", a->fig.worst_ratio);
}

/* The all-teams gauges of every leaf association: hour by hour from @fig,
 * over the lookback window from @ser (NULL: too long a span, said on
 * stderr, those gauges left out). */
static int all_teams_gauges(FILE *o, const struct sbu_ctx *c,
			    const struct sb_fig *fig, const struct sb_fig *ser,
			    int64_t from, int64_t to)
{
	struct sbc_all_teams all[2] = { { .suffix = "" },
					{ .suffix = "Window" } };
	struct sb_fig *win = NULL;
	uint32_t *teams = NULL, nteams;
	int rc = -1;

	if (sbu_teams(c, NULL, &teams, &nteams) ||
	    sbu_all_teams(c, teams, nteams, fig, &all[0]) ||
	    (ser && !(win = sbu_window_figures(c, ser, from, to,
					       SB_FIG_SLOT))) ||
	    (win && sbu_all_teams(c, teams, nteams, win, &all[1])))
		goto out;
	all_gauges(o, c, &all[0], "", "in the window, hour by hour");
	if (win)
		all_gauges(o, c, &all[1], "_window", "over the lookback "
			   "window, window by window");
	rc = 0;
out:
	free(teams);
	free(win);
	return rc;
}

int sbu_cmd_metrics(struct sbu_ctx *c)
{
	struct sb_fig *fig = NULL, *ser = NULL;
	uint32_t n, i;
	int64_t w = c->cmd->window ? c->cmd->window : c->cfg.lookback_window;
	FILE *o = stdout;
	char why[512];
	bool fits;
	int g, rc;

	if (sbu_load_tree(c) || sbu_load_shares(c) || sbu_load_jobs(c))
		return 1;
	fits = sbu_window_fits(c, c->now - w, c->now, SB_FIG_SLOT, why,
			       sizeof(why));
	if (!fits)
		fprintf(stderr, "sbudget: warning: no all-teams gauges over the "
			"lookback window: %s\n", why);
	if (sbu_figures(c, c->now - w, c->now, SB_FIG_SLOT, &fig,
			fits ? &ser : NULL))
		return 1;
	n = sb_tree_count(c->tree);
	for (g = 0; g < G_COUNT; g++) {
		fprintf(o, "# HELP %s %s\n# TYPE %s gauge\n", gauges[g].name,
			gauges[g].help, gauges[g].name);
		for (i = 0; i < n; i++) {
			double v;

			if (!c->by_index[i])
				continue;
			v = gauge_value(c, (enum gauge)g, i, &fig[i]);
			if (isnan(v))
				continue;
			fputs(gauges[g].name, o);
			labels(o, c->by_index[i], c->cluster);
			fprintf(o, " %.9g\n", v);
		}
	}
	job_gauges(c, o);
	fprintf(o, "# HELP sbudget_capacity_gpus ChargeTRES configured on the "
		"cluster's nodes\n# TYPE sbudget_capacity_gpus gauge\n"
		"sbudget_capacity_gpus{cluster=\"%s\"} %.0f\n", c->cluster,
		c->capacity);
	fprintf(o, "# HELP sbudget_window_seconds The window of the figures\n"
		"# TYPE sbudget_window_seconds gauge\n"
		"sbudget_window_seconds{cluster=\"%s\"} %lld\n", c->cluster,
		(long long)w);
	rc = all_teams_gauges(o, c, fig, ser, c->now - w, c->now);
	free(fig);
	free(ser);
	return rc || ferror(o) ? 1 : 0;
}
