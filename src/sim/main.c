/*
 * main.c - sbudget-sim: the commands run | convert | metrics | tree and
 * what they write (JSON, segments, pictures, the report).  The command
 * line is cli.c's.  See sbudget-sim(1) and doc/sim.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <limits.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sb_config.h"

#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sim_cli.h"
#include "sim.h"

static struct json_object *notes_json(const struct sim_notes *n, size_t jobs)
{
	struct json_object *o = json_object_new_object();

#define ADD(k, v) json_object_object_add(o, k, json_object_new_int64((int64_t)(v)))
	json_object_object_add(o, "format", json_object_new_string(n->format));
	ADD("seed", n->seed);
	ADD("data_lines", n->lines);
	ADD("jobs", jobs);
	ADD("skipped_unknown", n->skipped_unknown);
	ADD("skipped_no_gpu", n->skipped_nogpu);
	ADD("outside_slice", n->skipped_slice);
	ADD("skipped_too_big", n->skipped_toobig);
	ADD("clamped_gpus", n->clamped);
	ADD("rounded_to_whole_nodes", n->rounded);
	ADD("assigned_teams", n->teams_assigned);
	ADD("assigned_min_runtime", n->contracts_assigned);
	ADD("assigned_resumable", n->resumable_assigned);
	ADD("assigned_priority", n->prio_assigned);
	ADD("assigned_no_requeue", n->no_requeue_assigned);
	ADD("unbudgeted_made_unallocated", n->unbudgeted);
	ADD("assigned_time_limit", n->limits_modeled);
	ADD("time_limits_raised", n->limits_raised);
#undef ADD
	return o;
}

static int load_common(struct opts *o, struct sim_tree *t,
		       struct sim_workload *w, uint32_t gpn, uint32_t cluster)
{
	char msg[SIM_MSG];

	if (!o->jobs)
		return cli_bad("--jobs FILE is required");
	if (!o->tree)
		return cli_bad("--tree FILE is required");
	if (o->conf && sim_config_load(o->conf, &o->p.cfg, msg, sizeof(msg)))
		return cli_bad("%s", msg);
	o->ro.max_min_runtime = o->p.cfg.contract.max_min_runtime;
	if (sim_tree_load(o->tree, t, msg, sizeof(msg)))
		return cli_bad("%s", msg);
	if (sim_workload_read(o->jobs, &o->ro, w, msg, sizeof(msg)) ||
	    sim_workload_bind(w, t, &o->ro, gpn, cluster, msg, sizeof(msg))) {
		return cli_bad("%s", msg);
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The simulated run as the metrics see it: every job with its contract,
 * every run with its eligibility, and what was still pending at the end. */
static int run_metrics(const struct opts *o, const struct sim_workload *w,
		       const struct sim_tree *t, const struct sim_result *r,
		       struct sim_report *rep)
{
	/* each entry written whole below */
	struct sim_mjob *mj = malloc((w->njobs + 1) * sizeof(*mj));
	struct sim_mseg *ms = malloc((r->nsegs + 1) * sizeof(*ms));
	int64_t a = w->njobs ? w->jobs[0].submit : 0, b = r->t_end;
	size_t i;
	int rc = -1;

	if (!mj || !ms)
		goto out;
	for (i = 0; i < w->njobs; i++) {
		const struct sim_job *j = &w->jobs[i];
		struct sb_contract ct;

		sim_job_contract(j->min_runtime, j->resumable, !j->no_requeue,
				 true, &ct);
		mj[i] = (struct sim_mjob){
			.node = j->team_node, .gpus = j->gpus,
			.min_runtime = j->min_runtime,
			.allocated = ct.allocated, .submit = j->submit,
			.first_start = r->jobs[i].first_start,
			.end = r->jobs[i].how == SIM_END_UNFINISHED ? SIM_NEVER :
			       r->jobs[i].end,
			.pending_since = r->jobs[i].pending_since,
			.pending_until = SIM_NEVER,
			.why = r->jobs[i].why,
		};
		/* the id the segments print (--segments) */
		snprintf(mj[i].id, sizeof(mj[i].id), "%zu", i + 1);
	}
	for (i = 0; i < r->nsegs; i++)
		ms[i] = (struct sim_mseg){ r->segs[i].job, r->segs[i].eligible,
					   r->segs[i].start, r->segs[i].end,
					   r->segs[i].preempted,
					   r->segs[i].lost,
					   r->segs[i].fate ==
					   SIM_FATE_CANCELLED };
	if (o->has_window) {
		a = o->win_a;
		b = o->win_b;
	}
	rc = sim_metrics_lookback(t, mj, w->njobs, ms, r->nsegs,
				  (uint64_t)o->p.nodes * o->p.gpus_per_node,
				  a, b, r->t_end, o->p.cfg.lookback_window,
				  rep);
out:
	free(mj);
	free(ms);
	return rc;
}

static const char *policy_name(const struct opts *o)
{
	return o->p.policy == SIM_POLICY_BUDGET ? "budget" : "baseline";
}

/* The whole run as JSON: settings, input notes, the simulation's counts,
 * the report. */

/* simulation.preemption_bound: sim_result's check of sb_preempt_min_gap() */
static json_object *bound_json(const struct sim_result *r)
{
	json_object *b = json_object_new_object();

	json_object_object_add(b, "repeat_preemptions",
			       json_object_new_int64(
				       (int64_t)r->repeat_preemptions));
	json_object_object_add(b, "sooner",
			       json_object_new_int64(
				       (int64_t)r->sooner_than_bound));
	json_object_object_add(b, "tightest_ratio",
			       r->tightest_gap < 0
				       ? NULL
				       : sim_json_double(r->tightest_gap, 4));
	return b;
}

static int run_json(const struct opts *o, const struct sim_workload *w,
		    const struct sim_tree *t, const struct sim_result *r,
		    const struct sim_report *rep)
{
	struct json_object *j = json_object_new_object(), *x;
	char cfg[1024];
	int rc;

	json_object_object_add(j, "format", json_object_new_string("sbudget-sim"));
	json_object_object_add(j, "version", json_object_new_int(2));
	json_object_object_add(j, "policy",
			       json_object_new_string(policy_name(o)));
	x = json_object_new_object();
	json_object_object_add(x, "nodes", json_object_new_int64(o->p.nodes));
	json_object_object_add(x, "gpus_per_node",
			       json_object_new_int64(o->p.gpus_per_node));
	json_object_object_add(x, "gpus", json_object_new_int64(
		(int64_t)o->p.nodes * o->p.gpus_per_node));
	json_object_object_add(j, "cluster", x);
	json_object_object_add(j, "budget_conf", json_object_new_string(
		sb_config_describe(&o->p.cfg, cfg, sizeof(cfg))));
	x = json_object_new_object();
	json_object_object_add(x, "requeue_delay_s",
			       json_object_new_int64(o->p.requeue_delay));
	json_object_object_add(x, "requeue_work", json_object_new_string(
		o->p.restart ? "restart" : "resume"));
	json_object_object_add(x, "no_requeue",
			       json_object_new_double(o->ro.no_requeue));
	json_object_object_add(x, "time_limit_factor",
			       json_object_new_double(o->ro.time_limit_factor));
	json_object_object_add(x, "resubmit_delay_s",
			       o->p.resubmit_delay == SIM_NO_RESUBMIT ? NULL :
			       json_object_new_int64(o->p.resubmit_delay));
	if (o->p.backfill == SIM_BACKFILL_RESERVE) {
		char b[32];

		snprintf(b, sizeof(b), "reserve:%u", o->p.reserve);
		json_object_object_add(x, "backfill",
				       json_object_new_string(b));
	} else {
		json_object_object_add(x, "backfill", json_object_new_string(
			o->p.backfill == SIM_BACKFILL_GREEDY ? "greedy" :
			"none"));
	}
	json_object_object_add(x, "placement", json_object_new_string(
		o->p.best_fit ? "best-fit" : "first-fit"));
	json_object_object_add(x, "leftovers", json_object_new_string(
		o->p.hold_leftovers ? "next-pass" : "at-once"));
	json_object_object_add(j, "options", x);
	x = json_object_new_object();
	json_object_object_add(x, "source", json_object_new_string(t->source));
	json_object_object_add(x, "budgets", json_object_new_int64(t->n));
	json_object_object_add(j, "tree", x);
	json_object_object_add(j, "input", notes_json(&w->notes, w->njobs));
	x = json_object_new_object();
	json_object_object_add(x, "events",
			       json_object_new_int64((int64_t)r->events));
	json_object_object_add(x, "passes",
			       json_object_new_int64((int64_t)r->passes));
	json_object_object_add(x, "recalculations",
			       json_object_new_int64((int64_t)r->recalcs));
	json_object_object_add(x, "resubmissions",
			       json_object_new_int64((int64_t)r->resubmissions));
	json_object_object_add(x, "lane_starts",
			       json_object_new_int64((int64_t)r->lane_starts));
	json_object_object_add(x, "end_s", json_object_new_int64(r->t_end));
	json_object_object_add(x, "preemption_bound", bound_json(r));
	json_object_object_add(j, "simulation", x);
	json_object_object_add(j, "report", sim_report_json(rep));
	rc = cli_write_json(o->json, j);
	json_object_put(j);
	return rc;
}

/* The run segments in the format `metrics` reads (sim.h), job ids
 * 1-based in input order; jobs that never ran get one line without a
 * start (and their eligibility when they were still pending), and so do
 * jobs that ran and were pending again at the end (requeued, or
 * resubmitted after a cancel: their runs keep the job's id). */
static int run_segments(const struct opts *o, const struct sim_workload *w,
			const struct sim_tree *t, const struct sim_result *r)
{
	FILE *f = cli_open_out("--segments", o->segments);
	bool *seen = calloc(w->njobs + 1, sizeof(bool));
	size_t i;

	if (!f || !seen) {
		free(seen);
		if (f && f != stdout)
			fclose(f);
		return 2;
	}
	fprintf(f, "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,"
		"preempted,eligible_s,nodes,resumable,fate\n");
	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *g = &r->segs[i];
		const struct sim_job *j = &w->jobs[g->job];
		uint32_t k;

		seen[g->job] = true;
		fprintf(f, "%u,%s,%u,%" PRId64 ",%" PRId64 ",%" PRId64
			",%" PRId64 ",%d,%" PRId64 ",", g->job + 1,
			t->path[j->team_node], j->gpus, j->min_runtime,
			j->submit, g->start, g->end,
			g->preempted ? 2 - g->lost : 0, g->eligible);
		for (k = 0; k < g->nnodes; k++)
			fprintf(f, "%s%u", k ? ";" : "",
				r->nodes[g->node_off + k]);
		fprintf(f, ",%d,%s\n", j->resumable,
			sim_fate_name((enum sim_fate)g->fate));
	}
	for (i = 0; i < w->njobs; i++) {
		const struct sim_job *j = &w->jobs[i];

		if (seen[i] && r->jobs[i].pending_since == SIM_NEVER)
			continue;
		fprintf(f, "%zu,%s,%u,%" PRId64 ",%" PRId64 ",,,0,", i + 1,
			t->path[j->team_node], j->gpus, j->min_runtime,
			j->submit);
		if (r->jobs[i].pending_since != SIM_NEVER)
			fprintf(f, "%" PRId64, r->jobs[i].pending_since);
		fprintf(f, ",,%d,%s\n", j->resumable,
			r->jobs[i].pending_since != SIM_NEVER ? "pending" : "");
	}
	free(seen);
	return cli_close_out("--segments", o->segments, f);
}

/* The charts of a run. */
static int run_svg(const struct opts *o, const struct sim_workload *w,
		   const struct sim_result *r, const struct sim_report *rep)
{
	if (o->svg_gpus) {
		FILE *f = cli_open_out("--svg-gpus", o->svg_gpus);
		uint32_t *job_team = calloc(w->njobs + 1, sizeof(*job_team));
		int64_t a = rep->t0, b = rep->t0 + 86400;
		struct sim_axis ax;
		size_t i;

		if (!f || !job_team) {
			free(job_team);
			if (f && f != stdout)
				fclose(f);
			return 2;
		}
		for (i = 0; i < w->njobs; i++)
			job_team[i] = rep->team_of[w->jobs[i].team_node];
		if (o->has_svg_range) {
			a = o->svg_a;
			b = o->svg_b;
		} else if (b > rep->t1) {
			b = rep->t1;
		}
		sim_svg_axis(&ax, rep->t0, o->ro.from, o->ro.time_scale,
			     "trace's");
		sim_svg_gpus(f, r, job_team, rep->team_names, rep->nteams,
			     o->p.nodes, o->p.gpus_per_node, a, b, &ax);
		free(job_team);
		if (cli_close_out("--svg-gpus", o->svg_gpus, f))
			return 2;
	}
	if (o->svg_teams) {
		FILE *f = cli_open_out("--svg-teams", o->svg_teams);
		struct sim_axis ax;

		if (!f)
			return 2;
		sim_svg_axis(&ax, rep->t0, o->ro.from, o->ro.time_scale,
			     "trace's");
		sim_svg_teams(f, rep, &ax);
		if (cli_close_out("--svg-teams", o->svg_teams, f))
			return 2;
	}
	return 0;
}

static void run_text(const struct opts *o, const struct sim_workload *w,
		     const struct sim_tree *t, const struct sim_result *r,
		     const struct sim_report *rep)
{
	char cfg[1024];

	printf("sbudget-sim: policy %s, %u nodes x %u GPUs, %zu jobs, tree %s "
	       "(%u budgets)\n", policy_name(o), o->p.nodes,
	       o->p.gpus_per_node, w->njobs, t->source, t->n);
	printf("budget.conf: %s\n",
	       sb_config_describe(&o->p.cfg, cfg, sizeof(cfg)));
	sim_notes_print(&w->notes, stdout);
	printf("simulated %" PRIu64 " events, %" PRIu64 " scheduling passes, "
	       "%" PRIu64 " recalculations, to t=%" PRId64 " s\n", r->events,
	       r->passes, r->recalcs, r->t_end);
	printf("debug lane: %" PRIu64 " runs started in it\n", r->lane_starts);
	printf("preemption bound (sb_preempt_min_gap()): %" PRIu64 " of %" PRIu64
	       " repeat preemptions came sooner", r->sooner_than_bound,
	       r->repeat_preemptions);
	if (r->tightest_gap >= 0)
		printf("; the closest came at %.2fx the bound",
		       r->tightest_gap);
	printf("\n");
	sim_report_text(rep, o->budgets, stdout);
}

static int cmd_run(struct opts *o)
{
	struct sim_tree t = { 0 };
	struct sim_workload w;
	struct sim_result r = { 0 };
	struct sim_report rep = { 0 };
	uint32_t gpus = o->p.nodes * o->p.gpus_per_node;
	char msg[SIM_MSG];
	double t_start, t_sim = 0;
	int rc;

	sim_workload_init(&w);
	if ((uint64_t)o->p.nodes * o->p.gpus_per_node > 100000000) {
		rc = cli_bad("--nodes x --gpus-per-node is above 1e8 GPUs");
		goto out;
	}
	rc = load_common(o, &t, &w, o->p.gpus_per_node, gpus);
	if (rc)
		goto out;
	if (o->p.until != SIM_NEVER && w.njobs &&
	    o->p.until < w.jobs[0].submit) {
		rc = cli_bad(
			"--until %" PRId64 " is before the first submission "
			"(t=%" PRId64 " s, after slicing and --time-scale): "
			"nothing would be simulated; give --until %" PRId64
			" or later",
			o->p.until, w.jobs[0].submit, w.jobs[0].submit);
		goto out;
	}
	t_start = now_s();
	if (sim_run(&w, &t, &o->p, &r, msg, sizeof(msg))) {
		rc = cli_bad("simulation: %s", msg);
		goto out;
	}
	t_sim = now_s() - t_start;
	rc = 2;
	if (sim_metrics_check_window(t.n, o->has_window ? o->win_a :
				     w.njobs ? w.jobs[0].submit : 0,
				     o->has_window ? o->win_b : r.t_end, msg,
				     sizeof(msg))) {
		cli_bad("metrics: %s%s", msg,
			o->has_window ? "" : " (the default window: the "
			"first submission to the end of the simulation)");
		goto out;
	}
	if (run_metrics(o, &w, &t, &r, &rep)) {
		cli_bad("metrics: out of memory");
		goto out;
	}
	if (!o->quiet)
		run_text(o, &w, &t, &r, &rep);
	if (o->stats) {
		struct rusage ru;

		getrusage(RUSAGE_SELF, &ru);
		fprintf(stderr, "stats: simulation %.3f s wall, %" PRIu64
			" events, %.0f events/s, peak RSS %ld KiB\n", t_sim,
			r.events, t_sim > 0 ? (double)r.events / t_sim : 0,
			ru.ru_maxrss);
	}
	if ((o->json && run_json(o, &w, &t, &r, &rep)) ||
	    run_svg(o, &w, &r, &rep) ||
	    (o->segments && run_segments(o, &w, &t, &r)))
		goto out;
	rc = 0;
out:
	sim_report_free(&rep);
	sim_result_free(&r);
	sim_workload_free(&w);
	sim_tree_free(&t);
	return rc;
}

static int cmd_convert(struct opts *o)
{
	struct sim_tree t = { 0 };
	struct sim_workload w;
	FILE *f;
	int rc;

	sim_workload_init(&w);
	rc = load_common(o, &t, &w, o->gpn_given ? o->p.gpus_per_node : 0, 0);
	if (rc)
		goto out;
	f = cli_open_out("--out", o->out ? o->out : "-");
	rc = 2;
	if (!f)
		goto out;
	sim_workload_write_csv(&w, &t, f);
	if (cli_close_out("--out", o->out ? o->out : "-", f))
		goto out;
	fprintf(stderr, "sbudget-sim convert: %zu jobs written\n", w.njobs);
	sim_notes_print(&w.notes, stderr);
	rc = 0;
out:
	sim_workload_free(&w);
	sim_tree_free(&t);
	return rc;
}

static int cmd_tree(struct opts *o)
{
	struct sim_tree t = { 0 };
	char msg[SIM_MSG];
	uint32_t i, n;

	if (!o->tree)
		return cli_bad("tree: --tree FILE is required");
	if (sim_tree_load(o->tree, &t, msg, sizeof(msg))) {
		cli_bad("%s", msg);
		sim_tree_free(&t);
		return 2;
	}
	printf("# budget tree of %s (%s)\n", o->tree, t.source);
	n = sb_tree_count(t.tree);
	for (i = 0; i < n; i++)
		printf("%s %llu\n", t.path[i], (unsigned long long)
		       sb_tree_node(t.tree, i)->raw_shares);
	sim_tree_free(&t);
	return 0;
}

/* The metrics' default window [*@a, *@b): the first submission to the
 * last end (or pending end) of the @nj jobs @mj; [0, 0) for none. */
static void default_window(const struct sim_mjob *mj, size_t nj, int64_t *a,
			   int64_t *b)
{
	size_t i;

	*a = INT64_MAX;
	*b = 0;
	for (i = 0; i < nj; i++) {
		if (mj[i].submit < *a)
			*a = mj[i].submit;
		if (mj[i].end != SIM_NEVER && mj[i].end > *b)
			*b = mj[i].end;
		if (mj[i].pending_until != SIM_NEVER &&
		    mj[i].pending_until > *b)
			*b = mj[i].pending_until;
	}
	if (!nj)
		*a = 0;
}

static int cmd_metrics(struct opts *o)
{
	struct sim_tree t = { 0 };
	struct sim_mjob *mj = NULL;
	struct sim_mseg *ms = NULL;
	struct sim_report rep = { 0 };
	size_t nj = 0, ns = 0;
	char msg[SIM_MSG], *text = NULL, *waits = NULL;
	int64_t a, b;
	int rc = 2;

	if (!o->segments)
		return cli_bad("metrics: --segments FILE is required");
	if (!o->tree)
		return cli_bad("metrics: --tree FILE is required");
	if (!o->gpus)
		return cli_bad(
			"metrics: --gpus N (the cluster's GPUs) is required");
	/* budget.conf: its LookbackWindow, for the window figures */
	if (o->conf && sim_config_load(o->conf, &o->p.cfg, msg, sizeof(msg)))
		return cli_bad("%s", msg);
	if (sim_tree_load(o->tree, &t, msg, sizeof(msg))) {
		cli_bad("%s", msg);
		goto out;
	}
	text = sim_slurp(o->segments, msg, sizeof(msg));
	if (!text || sim_segments_parse(o->segments, text, &t, &mj, &nj, &ms,
					&ns, msg, sizeof(msg))) {
		cli_bad("%s", msg);
		goto out;
	}
	if (o->waits) {
		waits = sim_slurp(o->waits, msg, sizeof(msg));
		if (!waits || sim_waits_parse(o->waits, waits, mj, nj, msg,
					      sizeof(msg))) {
			cli_bad("metrics: %s", msg);
			goto out;
		}
	}
	if (sim_metrics_check_capacity(mj, nj, ms, ns, o->gpus, msg,
				       sizeof(msg))) {
		cli_bad("metrics: %s: %s", o->segments, msg);
		goto out;
	}
	default_window(mj, nj, &a, &b);
	if (o->has_window) {
		a = o->win_a;
		b = o->win_b;
	}
	if (sim_metrics_check_window(t.n, a, b, msg, sizeof(msg))) {
		if (o->has_window)
			cli_bad("metrics: %s", msg);
		else
			cli_bad("metrics: %s (the default window: the first "
			    "submit_s to the latest end_s in %s)", msg,
			    o->segments);
		goto out;
	}
	if (sim_metrics_lookback(&t, mj, nj, ms, ns, o->gpus, a, b,
				 o->has_now ? o->now : b > a ? b : a + 1,
				 o->p.cfg.lookback_window, &rep)) {
		cli_bad("metrics: out of memory");
		goto out;
	}
	if (!o->quiet)
		sim_report_text(&rep, o->budgets, stdout);
	if (o->json) {
		struct json_object *j = json_object_new_object();

		json_object_object_add(j, "format",
				       json_object_new_string("sbudget-sim-metrics"));
		json_object_object_add(j, "version", json_object_new_int(2));
		json_object_object_add(j, "report", sim_report_json(&rep));
		rc = cli_write_json(o->json, j);
		json_object_put(j);
		if (rc)
			goto out;
		rc = 2;
	}
	if (o->svg_teams) {
		FILE *f = cli_open_out("--svg-teams", o->svg_teams);
		struct sim_axis ax;

		if (!f)
			goto out;
		sim_svg_axis(&ax, rep.t0, 0, 1.0, "segments'");
		sim_svg_teams(f, &rep, &ax);
		if (cli_close_out("--svg-teams", o->svg_teams, f))
			goto out;
	}
	rc = 0;
out:
	free(text);
	free(waits);
	free(mj);
	free(ms);
	sim_report_free(&rep);
	sim_tree_free(&t);
	return rc;
}

/* Keep freed memory in the process for the next allocations.  A run
 * holds tens of MB at a time (the workload, the simulation's state, then
 * the report's tables, each as large arrays) and frees the state before it
 * builds the tables; glibc would hand large blocks back to the kernel as
 * they are freed, and the next ones would be faulted in again page by
 * page, which costs more CPU than reading the workload does.  Blocks of
 * up to 32 MiB (the largest threshold mallopt(3) documents for 64-bit
 * systems) come from the heap, and the heap is not trimmed. */
static void keep_freed_memory(void)
{
#if defined(__GLIBC__) && defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, INT_MAX);
#endif
}

int main(int argc, char **argv)
{
	struct opts o;
	const char *cmd = "run";
	int i = 1, rc;

	keep_freed_memory();
	memset(&o, 0, sizeof(o));
	sim_read_opts_init(&o.ro);
	sim_params_init(&o.p);
	if (argc > 1 && argv[1][0] != '-') {
		cmd = argv[1];
		i = 2;
		if (strcmp(cmd, "run") && strcmp(cmd, "convert") &&
		    strcmp(cmd, "metrics") && strcmp(cmd, "tree"))
			return cli_bad("unknown command '%s': run, convert, "
				   "metrics or tree (see --help)", cmd);
	}
	if (argc == 1) {
		fputs(cli_usage, stderr);
		return 2;
	}
	rc = cli_parse(argc, argv, i, &o, cmd);
	if (rc)
		return rc;
	if (o.waits && strcmp(cmd, "metrics"))
		return cli_bad(
			"%s: --waits is an option of metrics (see --help)",
			cmd);
	if (!strcmp(cmd, "convert"))
		rc = cmd_convert(&o);
	else if (!strcmp(cmd, "metrics"))
		rc = cmd_metrics(&o);
	else if (!strcmp(cmd, "tree"))
		rc = cmd_tree(&o);
	else
		rc = cmd_run(&o);
	/* what went to standard output (the report, --json -) must be
	 * there: a full disk is an error, not a silent exit 0 */
	if (fflush(stdout) | ferror(stdout)) {
		cli_bad("standard output: write error");
		return rc ? rc : 2;
	}
	return rc;
}
