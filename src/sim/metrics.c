/*
 * metrics.c - the report's figures: queue waits, owed vs delivered per
 * budget, occupancy, unallocated share, preemptions.  Computed from run
 * segments only, so a simulated run and an observed one (sbudget-sim
 * metrics) are measured by the same code; the text and JSON forms are in
 * report.c.
 *
 * Definitions (doc/sim.md, "Metrics"):
 *   wait       first start - submit, for the jobs submitted in the window;
 *              a job that never started counts max(t1, submit) - submit
 *              (a lower bound, so starving a class is never hidden) and is
 *              counted in "never".  Nearest-rank percentiles.
 *   classes    debug: <= 8 GPUs and 0 < min runtime <= 15 min; large:
 *              >= 32 GPUs; other: the rest.  By contract: allocated and
 *              unallocated jobs apart, each all, large, small (< 32
 *              GPUs): the budget policy puts unallocated jobs below
 *              every allocated one, so only like compares with like.
 *   owed, delivered, capped, unallocated, quota, demand: sb_figures()
 *              (sb/figures.h, the one definition `sbudget show budget`
 *              and `sbudget report` print too) in slots of one hour from
 *              t0, capacity = the cluster's GPUs, the tree's entitled
 *              fractions.  Only allocated jobs' demand (from eligibility
 *              to end) is owed and only their runs are delivered;
 *              unallocated runs are reported apart.  A team's figures are
 *              its tree node's, subtree included; "all teams" is the
 *              sum of the teams' capped / the sum of their owed
 *              (sb_fig_all_teams(), as `sbudget show budget` and
 *              `sbudget report` print it).
 *   window     owed, capped over the lookback window: the same hourly
 *              figures grouped into windows of LookbackWindow from t0
 *              (sb_fig_window(): per window owed = min(quota, demand),
 *              capped = min(delivered, owed)), per team and all teams
 *              (sb_fig_all_teams() on the window's figures).
 *   occupancy  every run's GPU-seconds in the window / (GPUs x window);
 *              of demand: the same / sb_fig_usable() (the cluster less
 *              the hours' GPUs nobody asked for, allocated or not).
 *   preempted  GPUs x (end - start) of every preempted run ending in the
 *   GPU-hours  window: the time since its last start;
 *   lost       of those, the runs whose work was thrown away (cancelled,
 *              or requeued to start over); a resumed run loses none.
 *   cancelled  of the lost, the cancelled runs (fate "cancelled": only the
 *              12-column segments say it) and their GPU-hours;
 *              resubmitted: those after which the job asked again (its
 *              user resubmitted it: a later run, or a pending span from
 *              the cancel on).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/figures.h"
#include "sb/ledger.h"
#include "sim.h"

#define HOUR 3600

double sim_mjob_wait(const struct sim_mjob *j, int64_t t1)
{
	if (j->first_start == SIM_NEVER)
		return (double)((t1 > j->submit ? t1 : j->submit) - j->submit);
	return (double)(j->first_start - j->submit);
}

/* sb_figures() reads a time of 0 as "none" (never eligible, never started,
 * still open); the simulator's times start at 0, so every time handed to
 * it is shifted by TOFF seconds, the window too: the figures are the same. */
#define TOFF 1

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The index of the nearest rank @p (percent) among @n > 0 values in
 * ascending order: the ceil(p/100 * n)-th smallest, counted from 0. */
static size_t rank_index(size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return rank - 1;
}

/* Nearest rank @p in the ascending @v of @n > 0 values. */
static double nearest_rank(const double *v, size_t n, double p)
{
	return v[rank_index(n, p)];
}

double sim_percentile(double *v, size_t n, double p)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return nearest_rank(v, n, p);
}

/* A class's figures from its @n waits @v, ascending, their @sum (added in
 * the jobs' order) and how many of them @never started. */
static void wait_stats(const double *v, size_t n, double sum, size_t never,
		       struct sim_wait *w)
{
	w->n = n;
	w->never = never;
	w->mean = n ? sum / (double)n : 0;
	w->p50 = n ? nearest_rank(v, n, 50) : 0;
	w->p90 = n ? nearest_rank(v, n, 90) : 0;
	w->p99 = n ? nearest_rank(v, n, 99) : 0;
}

void sim_report_free(struct sim_report *rep)
{
	free(rep->teams);
	free(rep->team_of);
	free(rep->team_names);
	free(rep->budgets);
	free(rep->hourly_delivered);
	free(rep->hourly_owed);
	free(rep->hourly_quota);
	sim_verdict_free(&rep->verdict);
	memset(rep, 0, sizeof(*rep));
}

/* A debug job's wait, by team (team_debug()). */
struct team_wait {
	uint32_t team;
	double wait;
};

static int cmp_team_wait(const void *a, const void *b)
{
	const struct team_wait *x = a, *y = b;

	if (x->team != y->team)
		return x->team < y->team ? -1 : 1;
	return x->wait < y->wait ? -1 : x->wait > y->wait;
}

/* Per team, its debug jobs' count and p90 wait (nearest rank:
 * rank_index()), and the team with the longest p90. */
static int team_debug(const struct sim_mjob *jobs, size_t njobs,
		      struct sim_report *rep)
{
	struct team_wait *tw = malloc((njobs + 1) * sizeof(*tw));
	size_t i, n = 0, a, b;

	if (!tw)
		return -1;
	for (i = 0; i < njobs; i++) {
		const struct sim_mjob *j = &jobs[i];

		if (j->submit < rep->t0 || j->submit >= rep->t1 ||
		    j->node >= rep->nbudgets || j->gpus > SIM_DEBUG_MAX_GPUS ||
		    !(j->min_runtime > 0 && j->min_runtime <= SIM_DEBUG_MAX_MR))
			continue;
		tw[n].team = rep->team_of[j->node];
		tw[n++].wait = sim_mjob_wait(j, rep->t1);
	}
	qsort(tw, n, sizeof(*tw), cmp_team_wait);
	for (a = 0; a < n; a = b) {
		struct sim_team_report *t = &rep->teams[tw[a].team];

		for (b = a; b < n && tw[b].team == tw[a].team; b++)
			;
		t->debug_jobs = b - a;
		t->debug_p90 = tw[a + rank_index(b - a, 90)].wait;
		if (rep->debug_worst_team == UINT32_MAX ||
		    t->debug_p90 > rep->debug_worst_p90 ||
		    (t->debug_p90 == rep->debug_worst_p90 &&
		     tw[a].team < rep->debug_worst_team)) {
			rep->debug_worst_team = tw[a].team;
			rep->debug_worst_p90 = t->debug_p90;
		}
	}
	free(tw);
	return 0;
}

/* A job's wait and the four slots of waits() it counts in. */
struct slot_wait {
	double wait;
	uint8_t slot[4];
};

static int cmp_slot_wait(const void *a, const void *b)
{
	return cmp_double(&((const struct slot_wait *)a)->wait,
			  &((const struct slot_wait *)b)->wait);
}

/* Queue waits of the jobs submitted in the window, by class, and by
 * contract (slots 4-6: allocated all, large, small; 7-9 unallocated).
 * The waits are sorted once, all slots together, and dealt out in that
 * order: each slot's waits come out ascending. */
static int waits(const struct sim_mjob *jobs, size_t njobs,
		 struct sim_report *rep)
{
	struct slot_wait *sw = malloc((njobs + 1) * sizeof(*sw));
	double *v = malloc((4 * njobs + 1) * sizeof(*v));
	double sum[10] = { 0 };
	size_t n[10] = { 0 }, nv[10] = { 0 }, at[10], i, c, b, k, nw = 0;

	if (!sw || !v) {
		free(sw);
		free(v);
		return -1;
	}
	for (i = 0; i < njobs; i++) {
		const struct sim_mjob *j = &jobs[i];
		bool never = j->first_start == SIM_NEVER;
		struct slot_wait *x = &sw[nw];

		if (j->submit < rep->t0 || j->submit >= rep->t1)
			continue;
		nw++;
		x->wait = sim_mjob_wait(j, rep->t1);
		/* all, debug, large, other */
		c = j->gpus <= SIM_DEBUG_MAX_GPUS && j->min_runtime > 0 &&
		    j->min_runtime <= SIM_DEBUG_MAX_MR ? 1 :
		    j->gpus >= SIM_LARGE_MIN_GPUS ? 2 : 3;
		/* by contract: all, then large or small */
		b = j->allocated ? 4 : 7;
		x->slot[0] = 0;
		x->slot[1] = (uint8_t)c;
		x->slot[2] = (uint8_t)b;
		x->slot[3] = (uint8_t)(b + (c == 2 ? 1 : 2));
		for (k = 0; k < 4; k++) {
			n[x->slot[k]]++;
			nv[x->slot[k]] += never;
			sum[x->slot[k]] += x->wait;
		}
	}
	qsort(sw, nw, sizeof(*sw), cmp_slot_wait);
	for (c = 0, k = 0; c < 10; k += n[c++])
		at[c] = k;
	for (i = 0; i < nw; i++)
		for (k = 0; k < 4; k++)
			v[at[sw[i].slot[k]]++] = sw[i].wait;
	/* at[c] is now the end of slot c */
	wait_stats(v + at[0] - n[0], n[0], sum[0], nv[0], &rep->all);
	wait_stats(v + at[1] - n[1], n[1], sum[1], nv[1], &rep->debug);
	wait_stats(v + at[2] - n[2], n[2], sum[2], nv[2], &rep->large);
	wait_stats(v + at[3] - n[3], n[3], sum[3], nv[3], &rep->other);
	for (c = 4; c < 10; c++)
		wait_stats(v + at[c] - n[c], n[c], sum[c], nv[c],
			   &rep->by_contract[(c - 4) / 3][(c - 4) % 3]);
	free(sw);
	free(v);
	return 0;
}

/* Preempted runs ending in the window; of those the cancelled ones, and
 * how many of them the job's user resubmitted (the job asked again after
 * them: a run that started later, or a pending span from their end on).
 * Return 0, or -1 (out of memory). */
static int preemptions(const struct sim_mjob *jobs, size_t njobs,
		       const struct sim_mseg *segs, size_t nsegs,
		       struct sim_report *rep)
{
	int64_t *last = malloc((njobs + 1) * sizeof(*last));	/* latest
							 * start per job */
	uint32_t *times = calloc(njobs + 1, sizeof(*times));	/* preempted
							 * runs per job */
	size_t i;

	if (!last || !times) {
		free(last);
		free(times);
		return -1;
	}
	for (i = 0; i < njobs; i++)
		last[i] = SIM_NEVER;
	for (i = 0; i < nsegs; i++)
		if (segs[i].job < njobs && segs[i].start > last[segs[i].job])
			last[segs[i].job] = segs[i].start;
	for (i = 0; i < nsegs; i++) {
		const struct sim_mseg *s = &segs[i];
		double gh;
		int k;

		if (s->job >= njobs || !s->preempted || s->end < rep->t0 ||
		    s->end >= rep->t1)
			continue;
		gh = (double)jobs[s->job].gpus * (double)(s->end - s->start) /
		     HOUR;
		k = jobs[s->job].allocated ? 0 : 1;
		rep->preemptions++;
		rep->preemptions_of[k]++;
		if (++times[s->job] > rep->max_preempted[k])
			rep->max_preempted[k] = times[s->job];
		rep->preempted_gpu_hours += gh;
		if (s->lost) {
			rep->lost_gpu_hours += gh;
			rep->lost_gpu_hours_of[k] += gh;
		}
		if (!s->cancelled)
			continue;
		rep->cancelled++;
		rep->cancelled_gpu_hours += gh;
		if (last[s->job] > s->start ||
		    (jobs[s->job].pending_since != SIM_NEVER &&
		     jobs[s->job].pending_since >= s->end))
			rep->resubmissions++;
	}
	free(last);
	free(times);
	return 0;
}

/* A time for sb_figures(): shifted, SIM_NEVER = 0 ("none"). */
static int64_t ft(int64_t t)
{
	return t == SIM_NEVER ? 0 : t + TOFF;
}

/* The figure segments: one per run, one per pending span at the end. */
static struct sb_fig_seg *fig_segs(const struct sim_mjob *jobs, size_t njobs,
				   const struct sim_mseg *segs, size_t nsegs,
				   size_t *n)
{
	/* each entry written whole below */
	struct sb_fig_seg *fs = malloc((nsegs + njobs + 1) * sizeof(*fs));
	size_t i, k = 0;

	if (!fs)
		return NULL;
	for (i = 0; i < nsegs; i++) {
		const struct sim_mjob *j;

		if (segs[i].job >= njobs)
			continue;
		j = &jobs[segs[i].job];
		fs[k++] = (struct sb_fig_seg){
			.index = j->node, .tres = j->gpus,
			.allocated = j->allocated,
			.eligible = ft(segs[i].eligible),
			.start = ft(segs[i].start), .end = ft(segs[i].end),
			.lost = segs[i].lost,
		};
	}
	for (i = 0; i < njobs; i++)
		if (jobs[i].pending_since != SIM_NEVER)
			fs[k++] = (struct sb_fig_seg){
				.index = jobs[i].node, .tres = jobs[i].gpus,
				.allocated = jobs[i].allocated,
				.eligible = ft(jobs[i].pending_since),
				.start = 0, .end = ft(jobs[i].pending_until),
			};
	*n = k;
	return fs;
}

static void fig_copy(struct sim_fig *d, const struct sb_fig *s)
{
	d->quota = s->quota;
	d->demand = s->demand;
	d->owed = s->owed;
	d->delivered = s->delivered;
	d->capped = s->capped;
	d->unallocated = s->unallocated;
	d->lost = s->lost;
}

/* The teams: the distinct nodes of the jobs, tree order. */
static int teams(const struct sim_tree *t, const struct sim_mjob *jobs,
		 size_t njobs, struct sim_report *rep)
{
	uint32_t i;
	size_t j;

	rep->team_of = malloc((t->n + 1) * sizeof(*rep->team_of));
	rep->teams = calloc(t->n + 1, sizeof(*rep->teams));
	rep->team_names = calloc(t->n + 1, sizeof(*rep->team_names));
	if (!rep->team_of || !rep->teams || !rep->team_names)
		return -1;
	for (i = 0; i < t->n; i++)
		rep->team_of[i] = UINT32_MAX;
	for (j = 0; j < njobs; j++)
		if (jobs[j].node < t->n)
			rep->team_of[jobs[j].node] = 0;
	for (i = 0; i < t->n; i++) {
		struct sim_team_report *tr = &rep->teams[rep->nteams];

		if (rep->team_of[i] == UINT32_MAX)
			continue;
		rep->team_of[i] = rep->nteams;
		tr->name = t->path[i];
		tr->node = i;
		tr->entitled = sb_tree_node(t->tree, i)->entitled;
		rep->team_names[rep->nteams++] = t->path[i];
	}
	for (j = 0; j < njobs; j++)
		if (jobs[j].node < t->n)
			rep->teams[rep->team_of[jobs[j].node]].jobs++;
	return 0;
}

/* The tree indices of the report's teams, in its order (nteams + 1
 * entries, to free()); NULL when out of memory. */
static uint32_t *team_nodes(const struct sim_report *rep)
{
	uint32_t *nodes = malloc(((size_t)rep->nteams + 1) * sizeof(*nodes));
	uint32_t k;

	for (k = 0; nodes && k < rep->nteams; k++)
		nodes[k] = rep->teams[k].node;
	return nodes;
}

/* Per team: its figures and hourly series from sb_figures()' output;
 * ratios, the cluster's totals (top-level sums), and all teams with the
 * worst team (sb_fig_all_teams() on the teams' nodes @nodes). */
static int team_figures(const struct sim_tree *t, const struct sb_fig *tot,
			const struct sb_fig *ser, size_t ns,
			const uint32_t *nodes, struct sim_report *rep)
{
	uint32_t k, i, ntop;
	const uint32_t *top = sb_tree_top(t->tree, &ntop);
	struct sb_fig_all all;
	size_t h;

	for (i = 0; i < t->n; i++)
		fig_copy(&rep->budgets[i], &tot[i]);
	for (k = 0; k < rep->nteams; k++) {
		struct sim_team_report *tr = &rep->teams[k];

		fig_copy(&tr->fig, &tot[tr->node]);
		for (h = 0; h < ns; h++) {
			const struct sb_fig *f = &ser[(size_t)tr->node * ns + h];

			rep->hourly_delivered[k * ns + h] = f->delivered;
			rep->hourly_owed[k * ns + h] = f->owed;
			rep->hourly_quota[k * ns + h] = f->quota;
		}
		tr->ratio = sb_fig_ratio(&tot[tr->node]);
		if (tr->fig.owed > 0 &&
		    sim_verdict_met(tr->fig.owed, tr->fig.capped))
			rep->teams_ge95++;
	}
	for (k = 0; k < ntop; k++) {
		const struct sb_fig *f = &tot[top[k]];

		rep->owed += f->owed;
		rep->capped += f->capped;
		rep->delivered += f->delivered;
		rep->unallocated += f->unallocated;
	}
	if (sb_fig_all_teams(tot, t->n, nodes, rep->nteams, &all) != SB_OK)
		return -1;
	rep->overall_ratio = all.ratio;
	rep->teams_owed = all.teams_owed;
	if (all.worst != SB_NONE) {
		rep->worst_team = all.worst;
		rep->worst_ratio = all.worst_ratio;
	}
	return 0;
}

/* Per team: owed and capped over the lookback window, from
 * sb_fig_window()' @wtot; all teams and the worst team
 * (sb_fig_all_teams()). */
static int team_window(const struct sim_tree *t, const struct sb_fig *wtot,
		       const uint32_t *nodes, struct sim_report *rep)
{
	struct sb_fig_all all;
	uint32_t k;

	for (k = 0; k < rep->nteams; k++) {
		struct sim_team_report *tr = &rep->teams[k];
		const struct sb_fig *f = &wtot[tr->node];

		tr->w_owed = f->owed;
		tr->w_capped = f->capped;
		tr->w_ratio = sb_fig_ratio(f);
	}
	if (sb_fig_all_teams(wtot, t->n, nodes, rep->nteams, &all) != SB_OK)
		return -1;
	rep->w_owed = all.owed;
	rep->w_capped = all.capped;
	rep->w_overall_ratio = all.ratio;
	if (all.worst != SB_NONE) {
		rep->w_worst_team = all.worst;
		rep->w_worst_ratio = all.worst_ratio;
	}
	return 0;
}

/* A run's start (+GPUs) or end (-GPUs), for the capacity sweep. */
struct cap_ev {
	int64_t t;
	int64_t d;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct cap_ev *x = a, *y = b;

	/* by time; at one second ends (d < 0) before starts */
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return (x->d > y->d) - (x->d < y->d);
}

int sim_metrics_check_capacity(const struct sim_mjob *jobs, size_t njobs,
			       const struct sim_mseg *segs, size_t nsegs,
			       uint64_t gpus, char *msg, size_t msglen)
{
	struct cap_ev *ev = calloc(2 * nsegs + 1, sizeof(*ev));
	size_t i, n = 0;
	int64_t held = 0;
	int rc = 0;

	if (!ev) {
		snprintf(msg, msglen, "out of memory");
		return -1;
	}
	for (i = 0; i < nsegs; i++) {
		if (segs[i].job >= njobs || segs[i].end <= segs[i].start)
			continue;
		ev[n++] = (struct cap_ev){ segs[i].start,
					   jobs[segs[i].job].gpus };
		ev[n++] = (struct cap_ev){ segs[i].end,
					   -(int64_t)jobs[segs[i].job].gpus };
	}
	qsort(ev, n, sizeof(*ev), cmp_ev);
	/* held <= gpus before each start, and a job's GPUs < 2^32: no
	 * overflow */
	for (i = 0; i < n; i++) {
		held += ev[i].d;
		if (held > (int64_t)gpus) {
			snprintf(msg, msglen, "at t=%" PRId64 " s the runs hold "
				 "%" PRId64 " GPUs at once, more than --gpus %"
				 PRIu64 ": give the cluster's GPUs", ev[i].t,
				 held, gpus);
			rc = -1;
			break;
		}
	}
	free(ev);
	return rc;
}

int sim_metrics_check_window(uint32_t nbudgets, int64_t t0, int64_t t1,
			     char *msg, size_t msglen)
{
	uint64_t hours = sb_fig_nslots(t0, t1 > t0 ? t1 : t0 + 1, HOUR);
	uint64_t per = (uint64_t)nbudgets + 1;

	if (hours <= SIM_METRICS_MAX_FIGURES / per)
		return 0;
	snprintf(msg, msglen, "the window [%" PRId64 ", %" PRId64 ") s is "
		 "%" PRIu64 " hours: %" PRIu64 " hours x %" PRIu64 " = %"
		 PRIu64 " hourly figures, more than %" PRIu64 " (the report's "
		 "memory): give --window A:B of at most %" PRIu64 " hours",
		 t0, t1, hours, hours, per, hours * per,
		 SIM_METRICS_MAX_FIGURES, SIM_METRICS_MAX_FIGURES / per);
	return -1;
}

int sim_metrics(const struct sim_tree *t, const struct sim_mjob *jobs,
		size_t njobs, const struct sim_mseg *segs, size_t nsegs,
		uint64_t gpus, int64_t t0, int64_t t1, int64_t now,
		struct sim_report *rep)
{
	return sim_metrics_lookback(t, jobs, njobs, segs, nsegs, gpus, t0, t1,
				    now, SB_LEDGER_DEFAULT_WINDOW, rep);
}

int sim_metrics_lookback(const struct sim_tree *t, const struct sim_mjob *jobs,
			 size_t njobs, const struct sim_mseg *segs,
			 size_t nsegs, uint64_t gpus, int64_t t0, int64_t t1,
			 int64_t now, int64_t lookback, struct sim_report *rep)
{
	struct sb_fig_seg *fs = NULL;
	struct sb_fig *tot = NULL, *ser = NULL, *wtot = NULL;
	uint32_t *nodes = NULL;
	size_t nfs = 0, ns;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (t1 <= t0)
		t1 = t0 + 1;
	if (sim_metrics_check_window(t->n, t0, t1, NULL, 0))
		return -1;
	ns = sb_fig_nslots(t0, t1, HOUR);
	rep->t0 = t0;
	rep->t1 = t1;
	rep->now = now;
	rep->gpus = gpus;
	rep->nhours = (uint32_t)ns;
	rep->worst_team = UINT32_MAX;
	rep->w_worst_team = UINT32_MAX;
	rep->lookback = lookback > HOUR ? (lookback + HOUR - 1) / HOUR * HOUR
					: HOUR;
	rep->tree = t;
	rep->nbudgets = t->n;
	rep->debug_worst_team = UINT32_MAX;
	if (waits(jobs, njobs, rep) || teams(t, jobs, njobs, rep) ||
	    team_debug(jobs, njobs, rep) ||
	    preemptions(jobs, njobs, segs, nsegs, rep))
		goto out;
	fs = fig_segs(jobs, njobs, segs, nsegs, &nfs);
	tot = calloc(t->n + 1, sizeof(*tot));
	wtot = calloc(t->n + 1, sizeof(*wtot));
	ser = calloc((size_t)(t->n + 1) * ns, sizeof(*ser));
	rep->budgets = calloc(t->n + 1, sizeof(*rep->budgets));
	rep->hourly_delivered = calloc((size_t)rep->nteams * ns + 1,
				       sizeof(double));
	rep->hourly_owed = calloc((size_t)rep->nteams * ns + 1, sizeof(double));
	rep->hourly_quota = calloc((size_t)rep->nteams * ns + 1,
				   sizeof(double));
	nodes = team_nodes(rep);
	if (!fs || !tot || !wtot || !ser || !nodes || !rep->budgets ||
	    !rep->hourly_delivered ||
	    !rep->hourly_owed || !rep->hourly_quota)
		goto out;
	if (sb_figures(t->tree, fs, nfs, t0 + TOFF, t1 + TOFF, HOUR,
		       now + TOFF, (double)gpus, tot, ser, &rep->unknown) !=
	    SB_OK)
		goto out;
	if (team_figures(t, tot, ser, ns, nodes, rep) ||
	    sb_fig_window(ser, t->n, ns, (size_t)(rep->lookback / HOUR),
			  wtot) != SB_OK ||
	    team_window(t, wtot, nodes, rep))
		goto out;
	rep->used = rep->delivered + rep->unallocated;
	rep->occupancy = gpus ? rep->used / ((double)gpus * (double)(t1 - t0))
			      : 0;
	rep->unallocated_share = rep->used > 0 ? rep->unallocated / rep->used
					       : 0;
	if (sb_fig_usable(fs, nfs, t0 + TOFF, t1 + TOFF, HOUR, now + TOFF,
			  (double)gpus, &rep->usable) != SB_OK)
		goto out;
	rep->occupancy_of_demand = rep->usable > 0 ? rep->used / rep->usable
						   : 1;
	if (sim_verdict(jobs, njobs, rep))
		goto out;
	rc = 0;
out:
	free(fs);
	free(nodes);
	free(tot);
	free(wtot);
	free(ser);
	if (rc)
		sim_report_free(rep);
	return rc;
}
