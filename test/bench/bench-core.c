/*
 * bench-core.c - time one full recalculation of the policy core: the
 * standing over the whole tree (ledger read + Fair Tree walk) and the
 * priority of every pending job.  This is the work the priority plugin does
 * each CalcPeriod, without slurmctld around it.
 *
 * Method: a random budget tree of N associations (10 programs, N/100
 * projects, the rest users under random projects; RawShares 1..100, 2% of
 * them 0), a ledger (7-day window, 1-hour buckets) in which *every* user has
 * 1..8 random charges over the last 8 days (the worst case for the ledger
 * read: no idle association is skipped), and M pending jobs on random users,
 * 80% allocated, random in-team priority.  Each configuration is timed 7
 * times in the thread's CPU time (clock_gettime(CLOCK_THREAD_CPUTIME_ID):
 * other work on the machine does not count) after one warm-up run; the
 * median is reported, with its parts timed in separate runs.
 *
 * The cycle is priority/budget's: sb_ledger_sync() at the recalculation's
 * time, then the standing and the priorities.  Each run is one CalcPeriod
 * (60 s) after the previous one, as in the plugin, so the window's sums
 * move only at a bucket's edge; "edge ms" is the sync of a recalculation
 * just past an edge after every user's charge across it (once per bucket
 * width, the hourly worst case), and
 * "full read ms" the ledger read without kept sums (every bucket of every
 * association), as a baseline measured in the same run.
 *
 * Usage: bench-core          (prints a table; takes a few seconds)
 * Not run by `make check`: it is a measurement, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"

#define RUNS 7
#define NOW ((int64_t)1700000000)
#define CALC_PERIOD 60
#define WIDTH 3600	/* SB_LEDGER_DEFAULT_WIDTH */

/* the time of the recalculation being timed: only moves forward */
static int64_t clock_now = NOW;

struct job {
	uint32_t assoc;
	bool allocated;
	uint32_t team;
};

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, RUNS, sizeof(*v), cmp_double);
	return v[RUNS / 2];
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench-core: %s: %s\n", what, sb_strerror(rc));
	exit(1);
}

static uint64_t shares(void)
{
	return rnd() % 50 == 0 ? 0 : 1 + rnd() % 100;
}

/* A tree of about @n associations; the users' indices into @leaves. */
static struct sb_tree *make_tree(uint32_t n, uint32_t **leaves,
				 uint32_t *nleaves)
{
	struct sb_tree *t = sb_tree_new();
	uint32_t nprog = 10, nproj = n / 100, id, i, nl = 0;
	int rc;

	if (!t)
		die("tree", SB_ENOMEM);
	for (id = 1; id <= nprog; id++)
		if ((rc = sb_tree_add(t, id, 0, shares(), "program")))
			die("tree", rc);
	for (i = 0; i < nproj; i++, id++)
		if ((rc = sb_tree_add(t, id, 1 + i % nprog, shares(), "project")))
			die("tree", rc);
	for (; id <= n; id++)
		if ((rc = sb_tree_add(t, id, nprog + 1 + (uint32_t)(rnd() % nproj),
				      shares(), "user")))
			die("tree", rc);
	if ((rc = sb_tree_finalize(t)))
		die("finalize", rc);
	*leaves = malloc(sb_tree_count(t) * sizeof(**leaves));
	for (i = 0; i < sb_tree_count(t); i++)
		if (!sb_tree_node(t, i)->nchildren)
			(*leaves)[nl++] = i;
	*nleaves = nl;
	return t;
}

static void fill_ledger(struct sb_ledger *l, const uint32_t *leaves,
			uint32_t nleaves)
{
	uint32_t i, k, nc;
	int rc;

	for (i = 0; i < nleaves; i++) {
		nc = 1 + (uint32_t)(rnd() % 8);
		for (k = 0; k < nc; k++) {
			int64_t from = NOW - 8 * 86400 + (int64_t)(rnd() % (8 * 86400));
			int64_t len = (int64_t)(rnd() % (12 * 3600));

			if (from + len > NOW)
				len = NOW - from;
			rc = sb_ledger_charge(l, leaves[i], from, from + len,
					      (double)(1 + rnd() % 8), rnd() % 5 != 0);
			if (rc)
				die("charge", rc);
		}
	}
}

/* One save and one load of @l (@n associations) as JSON, 7 times each:
 * the medians. */
static void bench_persistence(struct sb_ledger *l, uint32_t n)
{
	double ts[RUNS], tl[RUNS];
	size_t len = 0;
	int r, rc;

	for (r = 0; r < RUNS; r++) {
		char *doc;
		double t0 = now_ms();

		if ((rc = sb_ledger_to_json(l, NULL, &doc)))
			die("to_json", rc);
		ts[r] = now_ms() - t0;
		len = strlen(doc);
		t0 = now_ms();
		if ((rc = sb_ledger_from_json(l, NULL, doc, len, NULL, 0, NULL)))
			die("from_json", rc);
		tl[r] = now_ms() - t0;
		free(doc);
	}
	printf("%8u associations: ledger JSON %zu bytes, save %.1f ms, "
	       "load %.1f ms (median)\n", n, len, median(ts), median(tl));
}

/* A ledger never synced with the charges of @l: the baseline read. */
static struct sb_ledger *ledger_twin(const struct sb_tree *t,
				     const struct sb_ledger *l)
{
	struct sb_ledger *twin;
	char *doc;
	int rc;

	if ((rc = sb_ledger_new(t, SB_LEDGER_DEFAULT_WINDOW,
				SB_LEDGER_DEFAULT_WIDTH, &twin)) ||
	    (rc = sb_ledger_to_json(l, NULL, &doc)))
		die("twin", rc);
	if ((rc = sb_ledger_from_json(twin, NULL, doc, strlen(doc), NULL, 0,
				      NULL)))
		die("twin", rc);
	free(doc);
	return twin;
}

/*
 * Time the recalculation of @st over @l with @m pending jobs on random
 * users of @leaves (@nl of them; @n associations), RUNS times after a
 * warm-up, and print the table's row.  @twin: the same charges, never
 * synced; @usage: scratch of sb_tree_count() entries.
 */
static void bench_cycle(struct sb_standing *st, struct sb_ledger *l,
			const struct sb_ledger *twin, const uint32_t *leaves,
			uint32_t nl, uint32_t n, uint32_t m, double *usage)
{
	uint32_t i;
	int rc;
	struct job *jobs = malloc(m * sizeof(*jobs));
	uint32_t *prio = malloc(m * sizeof(*prio));
	double tot[RUNS], led[RUNS], walk[RUNS], pri[RUNS];
	double edge[RUNS], full[RUNS], t0, mx;
	uint64_t check = 0;
	int r;

	for (i = 0; i < m; i++) {
		jobs[i].assoc = leaves[rnd() % nl];
		jobs[i].allocated = rnd() % 5 != 0;
		jobs[i].team = (uint32_t)(rnd() % (SB_PRIO_TEAM_MAX + 1));
	}
	for (r = -1; r < RUNS; r++) {	/* r = -1: warm-up */
		double t1, t2, t3, t4, t5;
		int64_t now = (clock_now += CALC_PERIOD);

		/* the whole cycle, as the plugin runs it */
		t0 = now_ms();
		if ((rc = sb_ledger_sync(l, now)))
			die("sync", rc);
		if ((rc = sb_standing_compute(st, l, now)))
			die("compute", rc);
		for (i = 0; i < m; i++)
			prio[i] = sb_priority_job(st, jobs[i].assoc,
						  jobs[i].allocated,
						  jobs[i].team);
		t1 = now_ms();
		/* its parts, separately */
		sb_ledger_sync(l, now);
		sb_ledger_usage_all(l, now, true, usage, NULL);
		t2 = now_ms();
		if ((rc = sb_standing_compute_usage(st, usage)))
			die("compute", rc);
		t3 = now_ms();
		for (i = 0; i < m; i++)
			prio[i] = sb_priority_job(st, jobs[i].assoc,
						  jobs[i].allocated,
						  jobs[i].team);
		t4 = now_ms();
		/* baseline: the read with no kept sums */
		sb_ledger_usage_all(twin, now, true, usage, NULL);
		t5 = now_ms();
		if (r >= 0) {
			tot[r] = t1 - t0;
			led[r] = t2 - t1;
			walk[r] = t3 - t2;
			pri[r] = t4 - t3;
			full[r] = t5 - t4;
		}
		/* the first recalculation past the next edge, after the
		 * charges of its CalcPeriod (every user ran a job across the
		 * edge: each row's head moves into the new bucket) */
		clock_now += WIDTH - clock_now % WIDTH + CALC_PERIOD / 2;
		for (i = 0; i < nl; i++)
			if ((rc = sb_ledger_charge(l, leaves[i],
						   clock_now - CALC_PERIOD,
						   clock_now, 1.0, true)))
				die("charge", rc);
		t0 = now_ms();
		sb_ledger_sync(l, clock_now);
		if (r >= 0)
			edge[r] = now_ms() - t0;
	}
	for (i = 0; i < m; i++)
		check += prio[i];
	mx = 0;
	for (r = 0; r < RUNS; r++)
		mx = tot[r] > mx ? tot[r] : mx;
	printf("%8u %8u %8u | %8.3f | %9.3f %8.3f %8.3f | %8.3f | "
	       "%7.3f %12.3f   (checksum %llx)\n", n, nl, m,
	       median(tot), median(led), median(walk),
	       median(pri), mx, median(edge), median(full),
	       (unsigned long long)(check & 0xffff));
	free(jobs);
	free(prio);
}

int main(void)
{
	static const uint32_t assocs[] = { 1000, 10000 };
	static const uint32_t njobs[] = { 10000, 50000, 100000 };
	size_t a, j;

	printf("slurm-budget policy core: one recalculation (standing + every "
	       "pending job's priority)\n");
	printf("median of %d runs, thread CPU time; ledger: 7-day window, 1 h "
	       "buckets, every user charged\n\n", RUNS);
	printf("%8s %8s %8s | %8s | %9s %8s %8s | %8s | %7s %12s\n", "assocs",
	       "leaves", "jobs", "total ms", "ledger ms", "walk ms", "prio ms",
	       "max ms", "edge ms", "full read ms");
	for (a = 0; a < sizeof(assocs) / sizeof(assocs[0]); a++) {
		uint32_t *leaves, nl;
		struct sb_tree *t = make_tree(assocs[a], &leaves, &nl);
		uint32_t n = sb_tree_count(t);
		struct sb_ledger *l, *twin;
		struct sb_standing *st;
		double *usage = malloc(n * sizeof(*usage));
		int rc;

		if ((rc = sb_ledger_new(t, SB_LEDGER_DEFAULT_WINDOW,
					SB_LEDGER_DEFAULT_WIDTH, &l)))
			die("ledger", rc);
		fill_ledger(l, leaves, nl);
		twin = ledger_twin(t, l);
		if ((rc = sb_standing_new(t, &st)))
			die("standing", rc);
		for (j = 0; j < sizeof(njobs) / sizeof(njobs[0]); j++)
			bench_cycle(st, l, twin, leaves, nl, n,
				    njobs[j], usage);
		bench_persistence(l, n);
		sb_standing_free(st);
		sb_ledger_free(l);
		sb_ledger_free(twin);
		sb_tree_free(t);
		free(leaves);
		free(usage);
	}
	return 0;
}
