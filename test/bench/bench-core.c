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
 * times with clock_gettime(CLOCK_MONOTONIC) after one warm-up run; the
 * median is reported, with its parts timed in separate runs.
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

	clock_gettime(CLOCK_MONOTONIC, &ts);
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

int main(void)
{
	static const uint32_t assocs[] = { 1000, 10000 };
	static const uint32_t njobs[] = { 10000, 50000, 100000 };
	size_t a, j;

	printf("slurm-budget policy core: one recalculation (standing + every "
	       "pending job's priority)\n");
	printf("median of %d runs, CLOCK_MONOTONIC; ledger: 7-day window, 1 h "
	       "buckets, every user charged\n\n", RUNS);
	printf("%8s %8s %8s | %10s | %10s %10s %10s | %8s\n", "assocs", "leaves",
	       "jobs", "total ms", "ledger ms", "walk ms", "prio ms", "max ms");
	for (a = 0; a < sizeof(assocs) / sizeof(assocs[0]); a++) {
		uint32_t *leaves, nl;
		struct sb_tree *t = make_tree(assocs[a], &leaves, &nl);
		uint32_t n = sb_tree_count(t);
		struct sb_ledger *l;
		struct sb_standing *st;
		double *usage = malloc(n * sizeof(*usage));
		int rc;

		if ((rc = sb_ledger_new(t, SB_LEDGER_DEFAULT_WINDOW,
					SB_LEDGER_DEFAULT_WIDTH, &l)))
			die("ledger", rc);
		fill_ledger(l, leaves, nl);
		if ((rc = sb_standing_new(t, &st)))
			die("standing", rc);
		for (j = 0; j < sizeof(njobs) / sizeof(njobs[0]); j++) {
			uint32_t m = njobs[j], i;
			struct job *jobs = malloc(m * sizeof(*jobs));
			uint32_t *prio = malloc(m * sizeof(*prio));
			double tot[RUNS], led[RUNS], walk[RUNS], pri[RUNS], t0, mx;
			uint64_t check = 0;
			int r;

			for (i = 0; i < m; i++) {
				jobs[i].assoc = leaves[rnd() % nl];
				jobs[i].allocated = rnd() % 5 != 0;
				jobs[i].team = (uint32_t)(rnd() % (SB_PRIO_TEAM_MAX + 1));
			}
			for (r = -1; r < RUNS; r++) {	/* r = -1: warm-up */
				double t1, t2, t3;

				/* the whole cycle, as the plugin runs it */
				t0 = now_ms();
				if ((rc = sb_standing_compute(st, l, NOW)))
					die("compute", rc);
				for (i = 0; i < m; i++)
					prio[i] = sb_priority_job(st, jobs[i].assoc,
								  jobs[i].allocated,
								  jobs[i].team);
				t1 = now_ms();
				/* its parts, separately */
				sb_ledger_usage_all(l, NOW, true, usage, NULL);
				t2 = now_ms();
				if ((rc = sb_standing_compute_usage(st, usage)))
					die("compute", rc);
				t3 = now_ms();
				for (i = 0; i < m; i++)
					prio[i] = sb_priority_job(st, jobs[i].assoc,
								  jobs[i].allocated,
								  jobs[i].team);
				if (r >= 0) {
					tot[r] = t1 - t0;
					led[r] = t2 - t1;
					walk[r] = t3 - t2;
					pri[r] = now_ms() - t3;
				}
			}
			for (i = 0; i < m; i++)
				check += prio[i];
			mx = 0;
			for (r = 0; r < RUNS; r++)
				mx = tot[r] > mx ? tot[r] : mx;
			printf("%8u %8u %8u | %10.2f | %10.2f %10.2f %10.2f | %8.2f"
			       "   (checksum %llx)\n", n, nl, m, median(tot),
			       median(led), median(walk), median(pri), mx,
			       (unsigned long long)(check & 0xffff));
			free(jobs);
			free(prio);
		}
		/* persistence: one save and one load of this ledger */
		{
			double ts[RUNS], tl[RUNS];
			size_t len = 0;
			int r;

			for (r = 0; r < RUNS; r++) {
				char *doc;
				double t0 = now_ms();

				if ((rc = sb_ledger_to_json(l, NULL, &doc)))
					die("to_json", rc);
				ts[r] = now_ms() - t0;
				len = strlen(doc);
				t0 = now_ms();
				if ((rc = sb_ledger_from_json(l, NULL, doc, len, NULL,
							      0, NULL)))
					die("from_json", rc);
				tl[r] = now_ms() - t0;
				free(doc);
			}
			printf("%8u associations: ledger JSON %zu bytes, save %.1f ms, "
			       "load %.1f ms (median)\n", n, len, median(ts),
			       median(tl));
		}
		sb_standing_free(st);
		sb_ledger_free(l);
		sb_tree_free(t);
		free(leaves);
		free(usage);
	}
	return 0;
}
