/*
 * bind.c - finishing a job table against a budget tree (sim_workload_bind):
 * sort by submit, keep --max-jobs, clamp and round GPUs, find each job's
 * association, and assign what the trace lacks (team, contract, in-team
 * priority) with seeded draws; then the canonical CSV a table is written
 * as (sbudget-sim convert) and the notes of what was assigned or skipped.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/view.h"
#include "input.h"

static uint64_t splitmix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

double sim_rand(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t h = splitmix(splitmix(splitmix(seed) ^ a) ^ (b * 0x100000001B3));

	return (double)(h >> 11) * 0x1.0p-53;
}

static int cmp_submit(const void *a, const void *b)
{
	const struct sim_job *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* Whether @w's jobs are in cmp_submit()'s order already (a trace usually
 * is; the order is total, so sorting would not move them). */
static bool sorted_by_submit(const struct sim_workload *w)
{
	size_t i;

	for (i = 1; i < w->njobs; i++)
		if (cmp_submit(&w->jobs[i - 1], &w->jobs[i]) > 0)
			return false;
	return true;
}

/*
 * Seeded assignment (stream b of sim_rand(seed, line, b)); line numbers
 * key the draws, so a job's draw does not depend on the others:
 *   team        b=1: a leaf with entitled > 0, chance proportional to it;
 *   min runtime b=2: 20% unallocated (0); else b=3 picks 15 min, 1 h, 4 h
 *               or 8 h (equally likely) times --time-scale, capped by the
 *               duration and by MaxMinRuntime (a duration of 0 gives 0:
 *               unallocated);
 *   resumable   b=4: 50%;
 *   priority    b=5: LOW 20%, NORMAL 50%, HIGH 30%;
 *   no-requeue  b=6: --no-requeue of that fraction (the traces have no
 *               such flag; default 0: every job is a batch job that
 *               allows requeue, Slurm's JobRequeue=1).
 */
static uint32_t pick_leaf(const struct sim_tree *t, double u)
{
	double total = 0, acc = 0;
	uint32_t i, last = SB_NONE;

	for (i = 0; i < t->n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t->tree, i);

		if (!nd->nchildren && nd->entitled > 0)
			total += nd->entitled;
	}
	for (i = 0; i < t->n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t->tree, i);

		if (nd->nchildren || !(nd->entitled > 0))
			continue;
		last = i;
		acc += nd->entitled;
		if (u * total < acc)
			return i;
	}
	return last;
}

/* The association of a job of team node @node and user @user (0 = none):
 * the node "team/user" if the tree has it, else the team's. */
static uint32_t assoc_of(const struct sim_workload *w,
			 const struct sim_tree *t, uint32_t node, uint32_t user)
{
	char path[1024];
	uint32_t u;

	if (!user)
		return node;
	snprintf(path, sizeof(path), "%s/%s", t->path[node], w->names[user]);
	for (u = 0; u < t->n; u++)
		if (!strcmp(t->path[u], path))
			return u;
	return node;
}

/* @j's team node: drawn (--assign-teams) or the one its team names.
 * Return SB_NONE with @msg when there is none. */
static uint32_t team_of(struct sim_workload *w, const struct sim_tree *t,
			const struct sim_read_opts *o, struct sim_job *j,
			char *msg, size_t msglen)
{
	uint32_t node;

	if (!o->assign_teams) {
		node = sim_tree_find(t, w->names[j->team]);
		if (node == SB_NONE)
			sim__fail(msg, msglen, "job table", j->line,
				  "team '%s' is not a budget of the tree (give "
				  "its path or a unique name, or "
				  "--assign-teams to assign teams)",
				  w->names[j->team]);
		return node;
	}
	node = pick_leaf(t, sim_rand(o->seed, j->line, 1));
	if (node == SB_NONE) {
		sim__fail(msg, msglen, "tree", 0, "no budget with shares > 0 "
			  "to assign teams to");
		return SB_NONE;
	}
	j->team = sim_intern(w, t->path[node]);
	if (j->team == UINT32_MAX) {
		sim__fail(msg, msglen, "workload", 0, "out of memory");
		return SB_NONE;
	}
	j->user = 0;
	w->notes.teams_assigned++;
	return node;
}

/* The contract fields the table lacks, drawn (see above). */
static void assign_contract(struct sim_workload *w,
			    const struct sim_read_opts *o, struct sim_job *j)
{
	static const int64_t mrs[4] = { 900, 3600, 4 * 3600, 8 * 3600 };

	if (!w->has_mr) {
		if (sim_rand(o->seed, j->line, 2) < 0.2) {
			j->min_runtime = 0;
		} else {
			int k = (int)(sim_rand(o->seed, j->line, 3) * 4);

			j->min_runtime = sim__scale(o, mrs[k > 3 ? 3 : k]);
			if (j->min_runtime > j->duration)
				j->min_runtime = j->duration;
			if (j->min_runtime > o->max_min_runtime)
				j->min_runtime = o->max_min_runtime;
		}
		w->notes.contracts_assigned++;
	}
	if (!w->has_res) {
		j->resumable = sim_rand(o->seed, j->line, 4) < 0.5;
		w->notes.resumable_assigned++;
	}
	if (o->no_requeue > 0) {
		j->no_requeue = sim_rand(o->seed, j->line, 6) < o->no_requeue;
		w->notes.no_requeue_assigned += j->no_requeue;
	}
	if (!w->has_prio) {
		double u = sim_rand(o->seed, j->line, 5);

		j->prio = u < 0.2 ? SIM_PRIO_LOW :
			  u < 0.7 ? SIM_PRIO_NORMAL : SIM_PRIO_HIGH;
		w->notes.prio_assigned++;
	}
}

/* @j's time limit: the trace's, raised to its duration if below it (the
 * job ran that long, so its limit was at least that), or the f-model's:
 * factor x duration rounded up to whole minutes, at least one minute. */
static void set_time_limit(struct sim_workload *w,
			   const struct sim_read_opts *o, struct sim_job *j)
{
	double want;

	if (j->time_limit > 0) {
		if (j->time_limit < j->duration) {
			j->time_limit = j->duration;
			w->notes.limits_raised++;
		}
		return;
	}
	want = ceil((double)j->duration * o->time_limit_factor / 60.0);
	if (want < 1)
		want = 1;
	j->time_limit = want >= (double)(SB_TIME_MAX / 4 / 60) ?
			SB_TIME_MAX / 4 : (int64_t)want * 60;
	if (j->time_limit < j->duration)
		j->time_limit = j->duration;
	w->notes.limits_modeled++;
}

/* Clamp to --max-gpus, round a multi-node job up to whole nodes.  False
 * when it is bigger than the cluster (skipped, counted). */
static bool size_job(struct sim_workload *w, const struct sim_read_opts *o,
		     struct sim_job *j, uint32_t gpus_per_node,
		     uint32_t cluster_gpus)
{
	if (o->max_gpus && j->gpus > o->max_gpus) {
		j->gpus = o->max_gpus;
		w->notes.clamped++;
	}
	if (gpus_per_node && j->gpus > gpus_per_node &&
	    j->gpus % gpus_per_node) {
		j->gpus += gpus_per_node - j->gpus % gpus_per_node;
		w->notes.rounded++;
	}
	if (cluster_gpus && j->gpus > cluster_gpus) {
		w->notes.skipped_toobig++;
		return false;
	}
	return true;
}

/* Whether association @index can hold allocated jobs: the core's
 * sb_path_has_budget() over the RawShares of its path, as job_submit/budget
 * asks it (a path longer than the core's view handles: no budget; the
 * engine refuses such a tree anyway). */
static bool has_budget(const struct sim_tree *t, uint32_t index)
{
	uint32_t raw[SB_VIEW_MAX_DEPTH];
	size_t n = 0;
	uint32_t i;

	for (i = index; i != SB_NONE; i = sb_tree_node(t->tree, i)->parent) {
		uint64_t r = sb_tree_node(t->tree, i)->raw_shares;

		if (n == SB_VIEW_MAX_DEPTH)
			return false;
		raw[n++] = r > UINT32_MAX ? UINT32_MAX : (uint32_t)r;
	}
	return sb_path_has_budget(raw, n);
}

int sim_workload_bind(struct sim_workload *w, const struct sim_tree *t,
		      const struct sim_read_opts *o, uint32_t gpus_per_node,
		      uint32_t cluster_gpus, char *msg, size_t msglen)
{
	size_t i, out = 0;

	if (!w->nnames && sim_intern(w, "") == UINT32_MAX) {
		sim__fail(msg, msglen, "workload", 0, "out of memory");
		return -1;
	}
	if (!sorted_by_submit(w))
		qsort(w->jobs, w->njobs, sizeof(*w->jobs), cmp_submit);
	if (o->max_jobs && w->njobs > o->max_jobs) {
		w->notes.skipped_slice += w->njobs - o->max_jobs;
		w->njobs = o->max_jobs;
	}
	for (i = 0; i < w->njobs; i++) {
		struct sim_job j = w->jobs[i];
		uint32_t node;

		if (!size_job(w, o, &j, gpus_per_node, cluster_gpus))
			continue;
		node = team_of(w, t, o, &j, msg, msglen);
		if (node == SB_NONE)
			return -1;
		j.team_node = node;
		j.assoc = assoc_of(w, t, node, j.user);
		assign_contract(w, o, &j);
		set_time_limit(w, o, &j);
		if (j.min_runtime > 0 && !has_budget(t, j.assoc)) {
			/* job_submit/budget would refuse it; the simulator
			 * runs it unallocated and says so */
			j.min_runtime = 0;
			w->notes.unbudgeted++;
		}
		w->jobs[out++] = j;
	}
	w->njobs = out;
	w->has_mr = w->has_res = w->has_prio = true;
	return 0;
}

int sim_workload_write_csv(const struct sim_workload *w,
			   const struct sim_tree *t, FILE *f)
{
	size_t i;

	fprintf(f, "submit_time_s,duration_s,gpus,team,user,min_runtime_s,"
		"resumable,priority\n");
	for (i = 0; i < w->njobs; i++) {
		const struct sim_job *j = &w->jobs[i];

		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRIu32 ",%s,%s,%" PRId64
			",%s,%" PRIu32 "\n", j->submit, j->duration, j->gpus,
			t->path[j->team_node], w->names[j->user],
			j->min_runtime, j->resumable ? "yes" : "no", j->prio);
	}
	return ferror(f) ? -1 : 0;
}

void sim_notes_print(const struct sim_notes *n, FILE *f)
{
	fprintf(f, "input: %s, %zu data lines, seed %" PRIu64 "\n", n->format,
		n->lines, n->seed);
	if (n->skipped_unknown)
		fprintf(f, "input: %zu jobs skipped: duration or GPUs unknown "
			"(-1)\n", n->skipped_unknown);
	if (n->skipped_nogpu)
		fprintf(f, "input: %zu jobs skipped: 0 GPUs (CPU only)\n",
			n->skipped_nogpu);
	if (n->skipped_slice)
		fprintf(f, "input: %zu jobs outside the selected slice\n",
			n->skipped_slice);
	if (n->skipped_toobig)
		fprintf(f, "input: %zu jobs skipped: more GPUs than the "
			"cluster\n", n->skipped_toobig);
	if (n->clamped)
		fprintf(f, "input: %zu jobs clamped to --max-gpus\n",
			n->clamped);
	if (n->rounded)
		fprintf(f, "input: %zu multi-node jobs rounded up to whole "
			"nodes\n", n->rounded);
	if (n->teams_assigned)
		fprintf(f, "assigned: team of %zu jobs (seeded, chance "
			"proportional to the budget's entitled share)\n",
			n->teams_assigned);
	if (n->contracts_assigned)
		fprintf(f, "assigned: min runtime of %zu jobs (seeded: 20%% "
			"unallocated, else 15m/1h/4h/8h capped by duration)\n",
			n->contracts_assigned);
	if (n->resumable_assigned)
		fprintf(f, "assigned: resumable of %zu jobs (seeded, 50%%)\n",
			n->resumable_assigned);
	if (n->no_requeue_assigned)
		fprintf(f, "assigned: --no-requeue to %zu jobs (seeded, "
			"--no-requeue fraction)\n", n->no_requeue_assigned);
	if (n->prio_assigned)
		fprintf(f, "assigned: priority of %zu jobs (seeded: LOW 20%%, "
			"NORMAL 50%%, HIGH 30%%)\n", n->prio_assigned);
	if (n->unbudgeted)
		fprintf(f, "input: %zu allocated jobs on a budget of 0 shares "
			"run unallocated\n", n->unbudgeted);
	if (n->limits_modeled)
		fprintf(f, "assigned: time limit of %zu jobs (the f-model: "
			"%g x duration, rounded up to whole minutes; "
			"--time-limit-factor)\n", n->limits_modeled,
			n->time_limit_factor);
	if (n->limits_raised)
		fprintf(f, "input: %zu time limits below the job's duration "
			"raised to it\n", n->limits_raised);
}
