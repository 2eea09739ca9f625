/*
 * verdict.c - were the budgets honoured?  Per team owed vs delivered
 * (capped / owed, sb/figures.h) against the target the project states
 * (SIM_TARGET_OWED, sim.h), the jobs that never started or waited long
 * named with why (`sbudget show job`'s words, sb/wait.h), and one line.
 * `sbudget-sim run` (sim-compare.sh) and `sbudget-sim metrics` (the
 * demo's report) print it after the report's other lines, text and JSON.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define HOUR 3600

bool sim_verdict_met(double owed, double capped)
{
	/* capped / owed >= target, without the division */
	return !(owed > 0) || capped >= SIM_TARGET_OWED * owed;
}

/* Order of the named jobs: allocated first (an unallocated job is owed
 * nothing), never started first, the longer wait, then input order. */
static int job_cmp(const void *a, const void *b)
{
	const struct sim_verdict_job *x = a, *y = b;

	if (x->allocated != y->allocated)
		return x->allocated ? -1 : 1;
	if (x->started != y->started)
		return x->started ? 1 : -1;
	if (x->wait != y->wait)
		return x->wait > y->wait ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The team name of tree index @node, or "?". */
static const char *team_name(const struct sim_report *rep, uint32_t node)
{
	uint32_t k;

	for (k = 0; k < rep->nteams; k++)
		if (rep->teams[k].node == node)
			return rep->teams[k].name;
	return "?";
}

static void teams_verdict(struct sim_report *rep)
{
	struct sim_verdict *v = &rep->verdict;
	uint32_t k;

	v->worst_team = UINT32_MAX;
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];
		double r;

		if (!(t->fig.owed > 0))
			continue;
		v->teams_owed++;
		v->teams_met += sim_verdict_met(t->fig.owed, t->fig.capped);
		r = t->fig.capped / t->fig.owed;
		if (v->worst_team == UINT32_MAX || r < v->worst_ratio) {
			v->worst_team = k;
			v->worst_ratio = r;
		}
	}
	v->honoured = v->teams_met == v->teams_owed;
}

int sim_verdict(const struct sim_mjob *jobs, size_t njobs,
		struct sim_report *rep)
{
	struct sim_verdict *v = &rep->verdict;
	struct sim_verdict_job *all;
	size_t i, n = 0;

	teams_verdict(rep);
	/* every job of the window may wait long: room for all, written only
	 * as far as they do; the team and the id are filled in for the
	 * named ones, after the sort (it reads neither) */
	all = malloc((njobs + 1) * sizeof(*all));
	if (!all)
		return -1;
	for (i = 0; i < njobs; i++) {
		const struct sim_mjob *j = &jobs[i];
		bool never = j->first_start == SIM_NEVER;
		double wait;

		if (j->submit < rep->t0 || j->submit >= rep->t1)
			continue;
		wait = sim_mjob_wait(j, rep->t1);
		if (!never && !(wait > SIM_LONG_WAIT))
			continue;
		if (never) {
			v->never++;
			v->never_allocated += j->allocated;
		} else {
			v->waited_long++;
		}
		all[n++] = (struct sim_verdict_job){
			.gpus = j->gpus, .allocated = j->allocated,
			.started = !never, .wait = wait, .seq = i,
		};
	}
	qsort(all, n, sizeof(*all), job_cmp);
	v->njobs = n < SIM_VERDICT_MAX_JOBS ? n : SIM_VERDICT_MAX_JOBS;
	v->more = n - v->njobs;
	/* the named ones own a copy of their reason */
	v->jobs = all;
	for (i = 0; i < v->njobs; i++) {
		const struct sim_mjob *j = &jobs[all[i].seq];
		const char *why = j->why;

		all[i].team = team_name(rep, j->node);
		snprintf(all[i].id, sizeof(all[i].id), "%s", j->id);
		if (why && !(all[i].why = strdup(why))) {
			v->njobs = i;
			return -1;
		}
	}
	return 0;
}

void sim_verdict_free(struct sim_verdict *v)
{
	size_t i;

	for (i = 0; i < v->njobs; i++)
		free(v->jobs[i].why);
	free(v->jobs);
	memset(v, 0, sizeof(*v));
}

void sim_verdict_line(const struct sim_report *rep, char *buf, size_t len)
{
	const struct sim_verdict *v = &rep->verdict;

	if (!v->teams_owed) {
		snprintf(buf, len, "budgets honoured: yes \u2014 no team was "
			 "owed anything");
		return;
	}
	snprintf(buf, len, "budgets honoured: %s \u2014 %u of %u teams got "
		 ">= %.0f%% of owed; worst %s %.1f%%",
		 v->honoured ? "yes" : "no", v->teams_met, v->teams_owed,
		 100 * SIM_TARGET_OWED, rep->teams[v->worst_team].name,
		 100 * v->worst_ratio);
}


void sim_verdict_text(const struct sim_report *rep, FILE *f)
{
	const struct sim_verdict *v = &rep->verdict;
	char line[512], w[32], lw[32];
	uint32_t k;
	size_t i;

	sim_fmt_duration(SIM_LONG_WAIT, lw, sizeof(lw));
	fprintf(f, "verdict (target: each team gets >= %.0f%% of the GPU-hours "
		"owed to it, sbudget-sim(1); delivered = capped, of what was "
		"owed):\n", 100 * SIM_TARGET_OWED);
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];

		if (!(t->fig.owed > 0)) {
			fprintf(f, "  %-24s owed nothing: not judged\n",
				t->name);
			continue;
		}
		fprintf(f, "  %-24s owed %10.1f GPU-h, delivered %10.1f: "
			"%5.1f%%  %s\n", t->name, t->fig.owed / HOUR,
			t->fig.capped / HOUR,
			100 * t->fig.capped / t->fig.owed,
			sim_verdict_met(t->fig.owed, t->fig.capped) ? "met" :
			"MISSED");
	}
	sim_fmt_duration(SIM_LONG_WAIT, w, sizeof(w));
	fprintf(f, "jobs never started: %zu (%zu allocated); started after "
		"waiting more than %s: %zu%s\n", v->never, v->never_allocated,
		w, v->waited_long, v->njobs ? ":" : "");
	for (i = 0; i < v->njobs; i++) {
		const struct sim_verdict_job *j = &v->jobs[i];

		sim_fmt_duration(j->wait, w, sizeof(w));
		fprintf(f, "  job %s (%s, %u GPUs, %s): %s %s%s%s%s", j->id,
			j->team, j->gpus, j->allocated ? "allocated" :
			"unallocated", j->started ? "started after" :
			"never started, waited", w, !j->why ? "" : j->started ?
			"; waiting at " : ": ", j->why && j->started ? lw : "",
			j->why && j->started ? ": " : "");
		if (j->why)
			fputs(j->why, f);
		fputc('\n', f);
	}
	if (v->more)
		fprintf(f, "  and %zu more\n", v->more);
	sim_verdict_line(rep, line, sizeof(line));
	fprintf(f, "%s\n", line);
}

static void add(struct json_object *o, const char *k, struct json_object *v)
{
	json_object_object_add(o, k, v);
}

struct json_object *sim_verdict_json(const struct sim_report *rep)
{
	const struct sim_verdict *v = &rep->verdict;
	struct json_object *o = json_object_new_object(), *a, *x;
	char line[512];
	uint32_t k;
	size_t i;

	add(o, "target_delivered_over_owed",
	    sim_json_double(SIM_TARGET_OWED, 6));
	add(o, "long_wait_s", json_object_new_int64(SIM_LONG_WAIT));
	a = json_object_new_array();
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];
		bool owed = t->fig.owed > 0;

		x = json_object_new_object();
		add(x, "name", json_object_new_string(t->name));
		add(x, "owed_gpu_hours",
		    sim_json_double(t->fig.owed / HOUR, 3));
		add(x, "delivered_gpu_hours",
		    sim_json_double(t->fig.capped / HOUR, 3));
		add(x, "delivered_over_owed", owed ? sim_json_double(
			    t->fig.capped / t->fig.owed, 6) : NULL);
		add(x, "met", owed ? json_object_new_boolean(sim_verdict_met(
			    t->fig.owed, t->fig.capped)) : NULL);
		json_object_array_add(a, x);
	}
	add(o, "teams", a);
	add(o, "teams_owed", json_object_new_int64(v->teams_owed));
	add(o, "teams_met", json_object_new_int64(v->teams_met));
	add(o, "honoured", json_object_new_boolean(v->honoured));
	x = json_object_new_object();
	add(x, "name", v->worst_team == UINT32_MAX ? NULL :
	    json_object_new_string(rep->teams[v->worst_team].name));
	add(x, "delivered_over_owed", v->worst_team == UINT32_MAX ? NULL :
	    sim_json_double(v->worst_ratio, 6));
	add(o, "worst_team", x);
	add(o, "never_started", json_object_new_int64((int64_t)v->never));
	add(o, "never_started_allocated",
	    json_object_new_int64((int64_t)v->never_allocated));
	add(o, "waited_long", json_object_new_int64((int64_t)v->waited_long));
	a = json_object_new_array();
	for (i = 0; i < v->njobs; i++) {
		const struct sim_verdict_job *j = &v->jobs[i];

		x = json_object_new_object();
		add(x, "id", json_object_new_string(j->id));
		add(x, "team", json_object_new_string(j->team));
		add(x, "gpus", json_object_new_int64(j->gpus));
		add(x, "allocated", json_object_new_boolean(j->allocated));
		add(x, "started", json_object_new_boolean(j->started));
		add(x, "wait_s", sim_json_double(j->wait, 1));
		add(x, "reason", j->why ? json_object_new_string(j->why) :
		    NULL);
		json_object_array_add(a, x);
	}
	add(o, "jobs", a);
	add(o, "jobs_not_listed", json_object_new_int64((int64_t)v->more));
	sim_verdict_line(rep, line, sizeof(line));
	add(o, "line", json_object_new_string(line));
	return o;
}
