/*
 * report.c - the report of metrics.c as text (a summary for people) and
 * as JSON (keys in a fixed order, doubles with fixed precision, so that
 * the same input gives byte-identical output).
 */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define HOUR 3600

/* ---------------------------------------------------------------- text */

void sim_fmt_duration(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0fs", s);
	else if (s < 7200)
		snprintf(buf, len, "%.1fm", s / 60);
	else
		snprintf(buf, len, "%.2fh", s / 3600);
}

static void wait_line(FILE *f, const char *what, const struct sim_wait *w)
{
	char a[32], b[32], c[32], m[32];

	sim_fmt_duration(w->p50, a, sizeof(a));
	sim_fmt_duration(w->p90, b, sizeof(b));
	sim_fmt_duration(w->p99, c, sizeof(c));
	sim_fmt_duration(w->mean, m, sizeof(m));
	fprintf(f, "  %-6s %7zu jobs  p50 %8s  p90 %8s  p99 %8s  mean %8s"
		"  never started %zu\n", what, w->n, a, b, c, m, w->never);
}

/* Every budget of the tree (subtree sums), GPU-seconds. */
static void budgets_text(const struct sim_report *rep, FILE *f)
{
	uint32_t i;

	fprintf(f, "budgets (GPU-seconds in the window, each with its "
		"subtree):\n  %-32s %14s %14s %14s %14s %14s %14s\n", "budget",
		"quota", "owed", "delivered", "capped", "unallocated", "lost");
	for (i = 0; i < rep->nbudgets; i++) {
		const struct sim_fig *b = &rep->budgets[i];

		fprintf(f, "  %-32s %14.1f %14.1f %14.1f %14.1f %14.1f %14.1f\n",
			rep->tree->path[i], b->quota, b->owed, b->delivered,
			b->capped, b->unallocated, b->lost);
	}
}

void sim_report_text(const struct sim_report *rep, bool budgets, FILE *f)
{
	uint32_t k;

	fprintf(f, "window: %lld .. %lld s (%.1f h), %llu GPUs\n",
		(long long)rep->t0, (long long)rep->t1,
		(double)(rep->t1 - rep->t0) / HOUR,
		(unsigned long long)rep->gpus);
	fprintf(f, "queue wait (first start - submit; debug: <= 8 GPUs and "
		"0 < min runtime <= 15 min, large: >= 32 GPUs, other: the "
		"rest):\n");
	wait_line(f, "all", &rep->all);
	wait_line(f, "debug", &rep->debug);
	wait_line(f, "large", &rep->large);
	wait_line(f, "other", &rep->other);
	if (rep->debug_worst_team != UINT32_MAX) {
		char b[32];

		sim_fmt_duration(rep->debug_worst_p90, b, sizeof(b));
		fprintf(f, "  debug p90 of the worst team: %s %s (%zu debug "
			"jobs)\n", rep->teams[rep->debug_worst_team].name, b,
			rep->teams[rep->debug_worst_team].debug_jobs);
	}
	for (k = 0; k < 2; k++) {
		fprintf(f, "queue wait of %s jobs (small: < 32 GPUs):\n",
			k ? "unallocated" : "allocated");
		wait_line(f, "all", &rep->by_contract[k][0]);
		wait_line(f, "large", &rep->by_contract[k][1]);
		wait_line(f, "small", &rep->by_contract[k][2]);
	}
	fprintf(f, "occupancy %.2f%% of the cluster, %.2f%% of its "
		"demand-limited capacity (%.1f GPU-h), used %.1f "
		"GPU-h: delivered (allocated) %.1f, unallocated %.1f (%.2f%% "
		"of used)\n", 100 * rep->occupancy,
		100 * rep->occupancy_of_demand, rep->usable / HOUR,
		rep->used / HOUR, rep->delivered / HOUR,
		rep->unallocated / HOUR, 100 * rep->unallocated_share);
	fprintf(f, "preemptions %zu: preempted runs %.2f GPU-h, of which "
		"lost %.2f GPU-h\n", rep->preemptions,
		rep->preempted_gpu_hours, rep->lost_gpu_hours);
	fprintf(f, "  of allocated jobs %zu, lost %.2f GPU-h; of unallocated "
		"jobs %zu, lost %.2f GPU-h\n", rep->preemptions_of[0],
		rep->lost_gpu_hours_of[0], rep->preemptions_of[1],
		rep->lost_gpu_hours_of[1]);
	fprintf(f, "cancelled runs %zu: lost %.2f GPU-h; resubmitted by their "
		"users %zu\n", rep->cancelled, rep->cancelled_gpu_hours,
		rep->resubmissions);
	fprintf(f, "most preemptions of one job: %u (allocated), %u "
		"(unallocated)\n", rep->max_preempted[0], rep->max_preempted[1]);
	fprintf(f, "teams (owed = min(quota, allocated demand) hour by hour; "
		"delivered = allocated runs; capped = min(delivered, owed) "
		"hour by hour):\n");
	fprintf(f, "  %-24s %8s %7s %11s %11s %11s %11s %11s %8s\n", "team",
		"share", "jobs", "owed GPU-h", "deliv GPU-h", "capped", "unalloc",
		"lost", "cap/owed");
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];

		fprintf(f, "  %-24s %7.2f%% %7zu %11.1f %11.1f %11.1f %11.1f "
			"%11.1f %7.1f%%\n", t->name, 100 * t->entitled, t->jobs,
			t->fig.owed / HOUR, t->fig.delivered / HOUR,
			t->fig.capped / HOUR, t->fig.unallocated / HOUR,
			t->fig.lost / HOUR, 100 * t->ratio);
	}
	fprintf(f, "all teams: %.1f%% of owed delivered, each team capped on "
		"its own (cluster: capped %.1f of owed %.1f GPU-h)\n",
		100 * rep->overall_ratio,
		rep->capped / HOUR, rep->owed / HOUR);
	if (rep->worst_team != UINT32_MAX)
		fprintf(f, "worst team %s: %.1f%% of owed; %u of %u teams "
			">= 95%%\n", rep->teams[rep->worst_team].name,
			100 * rep->worst_ratio, rep->teams_ge95,
			rep->teams_owed);
	fprintf(f, "over the lookback window (%.0f h windows from the "
		"start: owed = min(quota, allocated demand), capped = "
		"min(delivered, owed) window by window):\n",
		(double)rep->lookback / HOUR);
	fprintf(f, "  %-24s %11s %11s %8s\n", "team", "owed GPU-h",
		"capped", "cap/owed");
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];

		fprintf(f, "  %-24s %11.1f %11.1f %7.1f%%\n", t->name,
			t->w_owed / HOUR, t->w_capped / HOUR, 100 * t->w_ratio);
	}
	fprintf(f, "all teams over the window: %.1f%% of owed delivered "
		"(capped %.1f of owed %.1f GPU-h)", 100 * rep->w_overall_ratio,
		rep->w_capped / HOUR, rep->w_owed / HOUR);
	if (rep->w_worst_team != UINT32_MAX)
		fprintf(f, "; worst team %s: %.1f%%",
			rep->teams[rep->w_worst_team].name,
			100 * rep->w_worst_ratio);
	fputc('\n', f);
	if (rep->unknown)
		fprintf(f, "note: %zu runs of jobs outside the tree are not "
			"counted\n", rep->unknown);
	if (budgets)
		budgets_text(rep, f);
	sim_verdict_text(rep, f);
}

/* ---------------------------------------------------------------- JSON */

struct json_object *sim_json_double(double v, int prec)
{
	char buf[64];

	if (v == 0 || !isfinite(v))
		v = 0;	/* no "-0.000", no NaN */
	snprintf(buf, sizeof(buf), "%.*f", prec, v);
	if (!strncmp(buf, "-0.", 3) && strspn(buf + 3, "0") == strlen(buf + 3))
		memmove(buf, buf + 1, strlen(buf));
	return json_object_new_double_s(v, buf);
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

static struct json_object *wait_json(const struct sim_wait *w)
{
	struct json_object *o = json_object_new_object();

	add(o, "jobs", json_object_new_int64((int64_t)w->n));
	add(o, "never_started", json_object_new_int64((int64_t)w->never));
	add(o, "p50_s", sim_json_double(w->p50, 1));
	add(o, "p90_s", sim_json_double(w->p90, 1));
	add(o, "p99_s", sim_json_double(w->p99, 1));
	add(o, "mean_s", sim_json_double(w->mean, 1));
	return o;
}

/* A team, GPU-hours (3 decimals). */
static struct json_object *team_json(const struct sim_team_report *t)
{
	struct json_object *x = json_object_new_object();

	add(x, "name", json_object_new_string(t->name));
	add(x, "entitled", sim_json_double(t->entitled, 6));
	add(x, "jobs", json_object_new_int64((int64_t)t->jobs));
	add(x, "debug_jobs", json_object_new_int64((int64_t)t->debug_jobs));
	add(x, "debug_wait_p90_s", sim_json_double(t->debug_p90, 1));
	add(x, "quota_gpu_hours", sim_json_double(t->fig.quota / HOUR, 3));
	add(x, "demand_gpu_hours", sim_json_double(t->fig.demand / HOUR, 3));
	add(x, "owed_gpu_hours", sim_json_double(t->fig.owed / HOUR, 3));
	add(x, "delivered_gpu_hours",
	    sim_json_double(t->fig.delivered / HOUR, 3));
	add(x, "capped_gpu_hours", sim_json_double(t->fig.capped / HOUR, 3));
	add(x, "unallocated_gpu_hours",
	    sim_json_double(t->fig.unallocated / HOUR, 3));
	add(x, "lost_gpu_hours", sim_json_double(t->fig.lost / HOUR, 3));
	add(x, "delivered_over_owed", sim_json_double(t->ratio, 6));
	add(x, "owed_window_gpu_hours", sim_json_double(t->w_owed / HOUR, 3));
	add(x, "capped_window_gpu_hours",
	    sim_json_double(t->w_capped / HOUR, 3));
	add(x, "delivered_over_owed_window", sim_json_double(t->w_ratio, 6));
	return x;
}

/* Every budget, GPU-seconds (3 decimals: exact for whole seconds). */
static struct json_object *budgets_json(const struct sim_report *rep)
{
	struct json_object *a = json_object_new_array();
	uint32_t i;

	for (i = 0; i < rep->nbudgets; i++) {
		const struct sim_fig *b = &rep->budgets[i];
		struct json_object *x = json_object_new_object();

		add(x, "path", json_object_new_string(rep->tree->path[i]));
		add(x, "entitled", sim_json_double(
			    sb_tree_node(rep->tree->tree, i)->entitled, 6));
		add(x, "quota_gpu_s", sim_json_double(b->quota, 3));
		add(x, "demand_gpu_s", sim_json_double(b->demand, 3));
		add(x, "owed_gpu_s", sim_json_double(b->owed, 3));
		add(x, "delivered_gpu_s", sim_json_double(b->delivered, 3));
		add(x, "capped_gpu_s", sim_json_double(b->capped, 3));
		add(x, "unallocated_gpu_s", sim_json_double(b->unallocated, 3));
		add(x, "lost_gpu_s", sim_json_double(b->lost, 3));
		json_object_array_add(a, x);
	}
	return a;
}

struct json_object *sim_report_json(const struct sim_report *rep)
{
	struct json_object *o = json_object_new_object(), *w, *ts;
	uint32_t k;

	w = json_object_new_object();
	add(w, "from_s", json_object_new_int64(rep->t0));
	add(w, "to_s", json_object_new_int64(rep->t1));
	add(w, "now_s", json_object_new_int64(rep->now));
	add(o, "window", w);
	add(o, "gpus", json_object_new_int64((int64_t)rep->gpus));
	w = json_object_new_object();
	add(w, "all", wait_json(&rep->all));
	add(w, "debug", wait_json(&rep->debug));
	add(w, "large", wait_json(&rep->large));
	add(w, "other", wait_json(&rep->other));
	add(o, "wait", w);
	for (k = 0; k < 2; k++) {
		w = json_object_new_object();
		add(w, "all", wait_json(&rep->by_contract[k][0]));
		add(w, "large", wait_json(&rep->by_contract[k][1]));
		add(w, "small", wait_json(&rep->by_contract[k][2]));
		add(o, k ? "wait_unallocated" : "wait_allocated", w);
	}
	add(o, "debug_wait_p90_worst_team",
	    rep->debug_worst_team == UINT32_MAX ? NULL :
	    json_object_new_string(rep->teams[rep->debug_worst_team].name));
	add(o, "debug_wait_p90_worst_team_s",
	    sim_json_double(rep->debug_worst_p90, 1));
	add(o, "occupancy", sim_json_double(rep->occupancy, 6));
	add(o, "usable_gpu_hours", sim_json_double(rep->usable / HOUR, 3));
	add(o, "occupancy_of_demand",
	    sim_json_double(rep->occupancy_of_demand, 6));
	add(o, "used_gpu_hours", sim_json_double(rep->used / HOUR, 3));
	add(o, "delivered_gpu_hours", sim_json_double(rep->delivered / HOUR, 3));
	add(o, "unallocated_gpu_hours",
	    sim_json_double(rep->unallocated / HOUR, 3));
	add(o, "unallocated_share", sim_json_double(rep->unallocated_share, 6));
	add(o, "owed_gpu_hours", sim_json_double(rep->owed / HOUR, 3));
	add(o, "capped_gpu_hours", sim_json_double(rep->capped / HOUR, 3));
	add(o, "preemptions", json_object_new_int64((int64_t)rep->preemptions));
	add(o, "preempted_run_gpu_hours",
	    sim_json_double(rep->preempted_gpu_hours, 3));
	add(o, "lost_gpu_hours", sim_json_double(rep->lost_gpu_hours, 3));
	add(o, "cancelled_runs", json_object_new_int64((int64_t)rep->cancelled));
	add(o, "cancelled_lost_gpu_hours",
	    sim_json_double(rep->cancelled_gpu_hours, 3));
	add(o, "resubmissions",
	    json_object_new_int64((int64_t)rep->resubmissions));
	ts = json_object_new_array();
	for (k = 0; k < rep->nteams; k++)
		json_object_array_add(ts, team_json(&rep->teams[k]));
	add(o, "teams", ts);
	add(o, "delivered_over_owed_all_teams",
	    sim_json_double(rep->overall_ratio, 6));
	w = json_object_new_object();
	add(w, "name", rep->worst_team == UINT32_MAX ? NULL :
	    json_object_new_string(rep->teams[rep->worst_team].name));
	add(w, "delivered_over_owed", sim_json_double(rep->worst_ratio, 6));
	add(w, "teams_owed", json_object_new_int64(rep->teams_owed));
	add(w, "teams_at_least_95pct", json_object_new_int64(rep->teams_ge95));
	add(o, "worst_team", w);
	add(o, "budgets", budgets_json(rep));
	add(o, "runs_outside_tree", json_object_new_int64((int64_t)rep->unknown));
	add(o, "max_preemptions_per_job_allocated",
	    json_object_new_int64(rep->max_preempted[0]));
	add(o, "max_preemptions_per_job_unallocated",
	    json_object_new_int64(rep->max_preempted[1]));
	add(o, "preemptions_allocated",
	    json_object_new_int64((int64_t)rep->preemptions_of[0]));
	add(o, "preemptions_unallocated",
	    json_object_new_int64((int64_t)rep->preemptions_of[1]));
	add(o, "lost_gpu_hours_allocated",
	    sim_json_double(rep->lost_gpu_hours_of[0], 3));
	add(o, "lost_gpu_hours_unallocated",
	    sim_json_double(rep->lost_gpu_hours_of[1], 3));
	/* over the lookback window (new keys, after the hourly ones) */
	add(o, "lookback_window_s", json_object_new_int64(rep->lookback));
	add(o, "owed_window_gpu_hours", sim_json_double(rep->w_owed / HOUR, 3));
	add(o, "capped_window_gpu_hours",
	    sim_json_double(rep->w_capped / HOUR, 3));
	add(o, "delivered_over_owed_window_all_teams",
	    sim_json_double(rep->w_overall_ratio, 6));
	w = json_object_new_object();
	add(w, "name", rep->w_worst_team == UINT32_MAX ? NULL :
	    json_object_new_string(rep->teams[rep->w_worst_team].name));
	add(w, "delivered_over_owed_window",
	    sim_json_double(rep->w_worst_ratio, 6));
	add(o, "worst_team_window", w);
	add(o, "verdict", sim_verdict_json(rep));
	return o;
}
