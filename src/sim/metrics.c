/*
 * metrics.c - the report: queue waits, owed vs delivered per team,
 * occupancy, unallocated share, preemptions.  Computed from run segments
 * only, so a simulated run and an observed one (sbudget-sim metrics) are
 * measured by the same code.
 *
 * Definitions (doc/sim.md, "Metrics"):
 *   wait       first start - submit, for the jobs submitted in the window;
 *              a job that never started counts max(t1, submit) - submit
 *              (a lower bound, so starving a class is never hidden) and is
 *              counted in "never".  Nearest-rank percentiles.
 *   classes    debug: <= 8 GPUs and 0 < min runtime <= 15 min; large:
 *              >= 32 GPUs; other: the rest.
 *   quota      entitled fraction x cluster GPUs, GPU-seconds per second.
 *   demand     GPUs of the team's jobs submitted and not yet ended
 *              (pending or running) at each second.
 *   owed       per hour: min(quota, demand) integrated over the hour.
 *   delivered  GPU-seconds the team's runs held in the window (allocated
 *              and unallocated alike); capped: per hour
 *              min(delivered, owed), so a surplus in one hour does not hide
 *              a shortfall in another.  ratio = capped / owed; over all
 *              teams, sum of capped / sum of owed.
 *   occupancy  delivered (all teams) / (GPUs x window).
 *   preempted  GPUs x (end - start) of every preempted run ending in the
 *   GPU-hours  window: the time since its last start;
 *   lost       of those, the runs whose work was thrown away (cancelled,
 *              or requeued to start over); a resumed run loses none.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define HOUR 3600

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double sim_percentile(double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static void wait_stats(double *v, size_t n, size_t never, struct sim_wait *w)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	w->n = n;
	w->never = never;
	w->mean = n ? sum / (double)n : 0;
	w->p50 = sim_percentile(v, n, 50);
	w->p90 = sim_percentile(v, n, 90);
	w->p99 = sim_percentile(v, n, 99);
}

/* Add @rate x seconds of [a, b) inside the window to hourly @bins. */
static void spread(double *bins, uint32_t nh, int64_t t0, int64_t t1,
		   int64_t a, int64_t b, double rate)
{
	int64_t h;

	if (a < t0)
		a = t0;
	if (b > t1)
		b = t1;
	if (b <= a || rate == 0)
		return;
	for (h = (a - t0) / HOUR; h < (int64_t)nh; h++) {
		int64_t hs = t0 + h * HOUR, he = hs + HOUR;
		int64_t x = a > hs ? a : hs, y = b < he ? b : he;

		if (x >= b)
			break;
		if (y > x)
			bins[h] += rate * (double)(y - x);
	}
}

void sim_report_free(struct sim_report *rep)
{
	free(rep->teams);
	free(rep->hourly_delivered);
	free(rep->hourly_owed);
	free(rep->hourly_quota);
	memset(rep, 0, sizeof(*rep));
}

int sim_metrics(const struct sim_mjob *jobs, size_t njobs,
		const struct sim_mseg *segs, size_t nsegs,
		const bool *unalloc_seg, const char *const *names,
		const double *entitled, uint32_t nteams, uint64_t gpus,
		int64_t t0, int64_t t1, struct sim_report *rep)
{
	double *w_all = NULL, *w_dbg = NULL, *w_lrg = NULL, *w_oth = NULL;
	double *demand = NULL;
	size_t n_all = 0, n_dbg = 0, n_lrg = 0, n_oth = 0, i;
	size_t nv_all = 0, nv_dbg = 0, nv_lrg = 0, nv_oth = 0;
	uint32_t nh, k, h;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (t1 <= t0)
		t1 = t0 + 1;
	nh = (uint32_t)((t1 - t0 + HOUR - 1) / HOUR);
	rep->t0 = t0;
	rep->t1 = t1;
	rep->gpus = gpus;
	rep->nteams = nteams;
	rep->nhours = nh;
	rep->worst_team = UINT32_MAX;
	w_all = malloc((njobs + 1) * sizeof(double));
	w_dbg = malloc((njobs + 1) * sizeof(double));
	w_lrg = malloc((njobs + 1) * sizeof(double));
	w_oth = malloc((njobs + 1) * sizeof(double));
	rep->teams = calloc(nteams + 1, sizeof(*rep->teams));
	rep->hourly_delivered = calloc((size_t)nteams * nh + 1, sizeof(double));
	rep->hourly_owed = calloc((size_t)nteams * nh + 1, sizeof(double));
	rep->hourly_quota = calloc((size_t)nteams * nh + 1, sizeof(double));
	demand = calloc((size_t)nteams * nh + 1, sizeof(double));
	if (!w_all || !w_dbg || !w_lrg || !w_oth || !rep->teams ||
	    !rep->hourly_delivered || !rep->hourly_owed ||
	    !rep->hourly_quota || !demand)
		goto out;

	for (k = 0; k < nteams; k++) {
		rep->teams[k].name = names[k];
		rep->teams[k].entitled = entitled[k];
	}
	for (i = 0; i < njobs; i++) {
		const struct sim_mjob *j = &jobs[i];
		double wait;
		bool never = j->first_start == SIM_NEVER;
		int64_t end = j->end == SIM_NEVER ? t1 : j->end;

		if (j->team < nteams) {
			rep->teams[j->team].jobs++;
			spread(demand + (size_t)j->team * nh, nh, t0, t1,
			       j->submit, end, j->gpus);
		}
		if (j->submit < t0 || j->submit >= t1)
			continue;
		wait = never ? (double)((t1 > j->submit ? t1 : j->submit) -
					j->submit)
			     : (double)(j->first_start - j->submit);
		w_all[n_all++] = wait;
		nv_all += never;
		if (j->gpus <= SIM_DEBUG_MAX_GPUS && j->min_runtime > 0 &&
		    j->min_runtime <= SIM_DEBUG_MAX_MR) {
			w_dbg[n_dbg++] = wait;
			nv_dbg += never;
		} else if (j->gpus >= SIM_LARGE_MIN_GPUS) {
			w_lrg[n_lrg++] = wait;
			nv_lrg += never;
		} else {
			w_oth[n_oth++] = wait;
			nv_oth += never;
		}
	}
	wait_stats(w_all, n_all, nv_all, &rep->all);
	wait_stats(w_dbg, n_dbg, nv_dbg, &rep->debug);
	wait_stats(w_lrg, n_lrg, nv_lrg, &rep->large);
	wait_stats(w_oth, n_oth, nv_oth, &rep->other);

	for (i = 0; i < nsegs; i++) {
		const struct sim_mseg *s = &segs[i];
		const struct sim_mjob *j;
		int64_t a, b;
		double v;

		if (s->job >= njobs)
			continue;
		j = &jobs[s->job];
		a = s->start > t0 ? s->start : t0;
		b = s->end < t1 ? s->end : t1;
		if (b > a) {
			v = (double)j->gpus * (double)(b - a);
			rep->delivered += v;
			if (unalloc_seg && unalloc_seg[i])
				rep->unallocated += v;
			if (j->team < nteams)
				spread(rep->hourly_delivered +
				       (size_t)j->team * nh, nh, t0, t1,
				       s->start, s->end, j->gpus);
		}
		if (s->preempted && s->end >= t0 && s->end < t1) {
			double gh = (double)j->gpus *
				    (double)(s->end - s->start) / HOUR;

			rep->preemptions++;
			rep->preempted_gpu_hours += gh;
			if (s->lost)
				rep->lost_gpu_hours += gh;
		}
	}
	for (k = 0; k < nteams; k++) {
		struct sim_team_report *tr = &rep->teams[k];
		double rate = entitled[k] * (double)gpus;

		for (h = 0; h < nh; h++) {
			size_t x = (size_t)k * nh + h;
			int64_t hs = t0 + (int64_t)h * HOUR;
			int64_t he = hs + HOUR < t1 ? hs + HOUR : t1;
			double q = rate * (double)(he - hs);
			double o = q < demand[x] ? q : demand[x];
			double d = rep->hourly_delivered[x];

			rep->hourly_quota[x] = q;
			rep->hourly_owed[x] = o;
			tr->owed += o;
			tr->delivered += d;
			tr->delivered_capped += d < o ? d : o;
		}
		tr->ratio = tr->owed > 0 ? tr->delivered_capped / tr->owed : 1;
		if (tr->owed > 0) {
			rep->teams_owed++;
			if (tr->ratio >= 0.95)
				rep->teams_ge95++;
			if (rep->worst_team == UINT32_MAX ||
			    tr->ratio < rep->worst_ratio) {
				rep->worst_ratio = tr->ratio;
				rep->worst_team = k;
			}
		}
	}
	{
		double o = 0, c = 0;

		for (k = 0; k < nteams; k++) {
			o += rep->teams[k].owed;
			c += rep->teams[k].delivered_capped;
		}
		rep->overall_ratio = o > 0 ? c / o : 1;
	}
	rep->occupancy = gpus ? rep->delivered /
				((double)gpus * (double)(t1 - t0)) : 0;
	rep->unallocated_share = rep->delivered > 0 ?
				 rep->unallocated / rep->delivered : 0;
	rc = 0;
out:
	free(w_all);
	free(w_dbg);
	free(w_lrg);
	free(w_oth);
	free(demand);
	if (rc)
		sim_report_free(rep);
	return rc;
}

/* ---------------------------------------------------------------- text */

static void fmt_dur(double s, char *buf, size_t len)
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

	fmt_dur(w->p50, a, sizeof(a));
	fmt_dur(w->p90, b, sizeof(b));
	fmt_dur(w->p99, c, sizeof(c));
	fmt_dur(w->mean, m, sizeof(m));
	fprintf(f, "  %-6s %7zu jobs  p50 %8s  p90 %8s  p99 %8s  mean %8s"
		"  never started %zu\n", what, w->n, a, b, c, m, w->never);
}

void sim_report_text(const struct sim_report *rep, FILE *f)
{
	uint32_t k;

	fprintf(f, "window: %lld .. %lld s (%.1f h), %llu GPUs\n",
		(long long)rep->t0, (long long)rep->t1,
		(double)(rep->t1 - rep->t0) / HOUR,
		(unsigned long long)rep->gpus);
	fprintf(f, "queue wait (first start - submit):\n");
	wait_line(f, "all", &rep->all);
	wait_line(f, "debug", &rep->debug);
	wait_line(f, "large", &rep->large);
	wait_line(f, "other", &rep->other);
	fprintf(f, "occupancy %.2f%%, delivered %.1f GPU-h, unallocated "
		"%.2f%% of it\n", 100 * rep->occupancy,
		rep->delivered / HOUR, 100 * rep->unallocated_share);
	fprintf(f, "preemptions %zu: preempted runs %.2f GPU-h, of which "
		"lost %.2f GPU-h\n", rep->preemptions,
		rep->preempted_gpu_hours, rep->lost_gpu_hours);
	fprintf(f, "teams (owed = min(quota, demand) hour by hour):\n");
	fprintf(f, "  %-24s %8s %10s %12s %12s %8s\n", "team", "share",
		"jobs", "owed GPU-h", "deliv GPU-h", "del/owed");
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];

		fprintf(f, "  %-24s %7.2f%% %10zu %12.1f %12.1f %7.1f%%\n",
			t->name, 100 * t->entitled, t->jobs, t->owed / HOUR,
			t->delivered / HOUR, 100 * t->ratio);
	}
	fprintf(f, "all teams: %.1f%% of owed delivered\n",
		100 * rep->overall_ratio);
	if (rep->worst_team != UINT32_MAX)
		fprintf(f, "worst team %s: %.1f%% of owed; %u of %u teams "
			">= 95%%\n", rep->teams[rep->worst_team].name,
			100 * rep->worst_ratio, rep->teams_ge95,
			rep->teams_owed);
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

static struct json_object *wait_json(const struct sim_wait *w)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "jobs", json_object_new_int64((int64_t)w->n));
	json_object_object_add(o, "never_started",
			       json_object_new_int64((int64_t)w->never));
	json_object_object_add(o, "p50_s", sim_json_double(w->p50, 1));
	json_object_object_add(o, "p90_s", sim_json_double(w->p90, 1));
	json_object_object_add(o, "p99_s", sim_json_double(w->p99, 1));
	json_object_object_add(o, "mean_s", sim_json_double(w->mean, 1));
	return o;
}

struct json_object *sim_report_json(const struct sim_report *rep)
{
	struct json_object *o = json_object_new_object(), *w, *ts;
	uint32_t k;

	w = json_object_new_object();
	json_object_object_add(w, "from_s", json_object_new_int64(rep->t0));
	json_object_object_add(w, "to_s", json_object_new_int64(rep->t1));
	json_object_object_add(o, "window", w);
	json_object_object_add(o, "gpus",
			       json_object_new_int64((int64_t)rep->gpus));
	w = json_object_new_object();
	json_object_object_add(w, "all", wait_json(&rep->all));
	json_object_object_add(w, "debug", wait_json(&rep->debug));
	json_object_object_add(w, "large", wait_json(&rep->large));
	json_object_object_add(w, "other", wait_json(&rep->other));
	json_object_object_add(o, "wait", w);
	json_object_object_add(o, "occupancy",
			       sim_json_double(rep->occupancy, 6));
	json_object_object_add(o, "delivered_gpu_hours",
			       sim_json_double(rep->delivered / HOUR, 3));
	json_object_object_add(o, "unallocated_share",
			       sim_json_double(rep->unallocated_share, 6));
	json_object_object_add(o, "preemptions",
			       json_object_new_int64((int64_t)rep->preemptions));
	json_object_object_add(o, "preempted_run_gpu_hours",
			       sim_json_double(rep->preempted_gpu_hours, 3));
	json_object_object_add(o, "lost_gpu_hours",
			       sim_json_double(rep->lost_gpu_hours, 3));
	ts = json_object_new_array();
	for (k = 0; k < rep->nteams; k++) {
		const struct sim_team_report *t = &rep->teams[k];
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "name", json_object_new_string(t->name));
		json_object_object_add(x, "entitled",
				       sim_json_double(t->entitled, 6));
		json_object_object_add(x, "jobs",
				       json_object_new_int64((int64_t)t->jobs));
		json_object_object_add(x, "owed_gpu_hours",
				       sim_json_double(t->owed / HOUR, 3));
		json_object_object_add(x, "delivered_gpu_hours",
				       sim_json_double(t->delivered / HOUR, 3));
		json_object_object_add(x, "delivered_capped_gpu_hours",
				       sim_json_double(t->delivered_capped / HOUR,
						       3));
		json_object_object_add(x, "delivered_over_owed",
				       sim_json_double(t->ratio, 6));
		json_object_array_add(ts, x);
	}
	json_object_object_add(o, "teams", ts);
	json_object_object_add(o, "delivered_over_owed_all_teams",
			       sim_json_double(rep->overall_ratio, 6));
	w = json_object_new_object();
	json_object_object_add(w, "name", rep->worst_team == UINT32_MAX ? NULL :
			       json_object_new_string(
				       rep->teams[rep->worst_team].name));
	json_object_object_add(w, "delivered_over_owed",
			       sim_json_double(rep->worst_ratio, 6));
	json_object_object_add(w, "teams_owed",
			       json_object_new_int64(rep->teams_owed));
	json_object_object_add(w, "teams_at_least_95pct",
			       json_object_new_int64(rep->teams_ge95));
	json_object_object_add(o, "worst_team", w);
	return o;
}
