/*
 * metrics.c - `sbudget metrics`: the figures of `show budget` (sb/figures.h,
 * over [now - window, now) in slots of SB_FIG_SLOT), the standing and
 * charged usage sshare shows, and the jobs by state and tier, in
 * Prometheus text format for node_exporter's textfile collector.  See
 * sbudget(1), "metrics".
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

int sbu_cmd_metrics(struct sbu_ctx *c)
{
	struct sb_fig *fig = NULL;
	uint32_t n, i;
	int64_t w = c->cmd->window ? c->cmd->window : c->cfg.lookback_window;
	FILE *o = stdout;
	int g;

	if (sbu_load_tree(c) || sbu_load_shares(c) || sbu_load_jobs(c) ||
	    sbu_figures(c, c->now - w, c->now, SB_FIG_SLOT, &fig, NULL))
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
	free(fig);
	return ferror(o) ? 1 : 0;
}
