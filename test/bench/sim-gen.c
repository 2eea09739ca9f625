/*
 * sim-gen.c - a synthetic workload for the sbudget-sim benchmark (not a
 * test; see doc/benchmarks.md).
 *
 * usage: sim-gen JOBS DAYS GPUS LOAD SEED TREE_OUT [TEAMS] > jobs.csv
 *
 * TEAMS (default 20, at most 10000) budgets "t00", "t01", ... (t%02d) with
 * shares 1..10 (seeded), written to TREE_OUT; the default's output is the
 * same as before TEAMS was an argument.  JOBS jobs submitted uniformly over DAYS days; GPUs: 40% 1,
 * 20% 2, 15% 4, 15% 8, 10% 16..64 (multiples of 8); durations log-uniform
 * between 5 min and 24 h, then scaled so that the GPU-seconds asked for are
 * LOAD times the cluster's capacity over DAYS.  Teams drawn with a Zipf-like
 * weight (team k has weight 1/(k+1)), so demand does not follow the shares.
 * Min runtime: 20% unallocated, else min(duration, 15 min / 1 h / 4 h /
 * 8 h); 50% resumable; in-team priority 256/512/768.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static double rnd(void)
{
	uint64_t x;

	state += UINT64_C(0x9E3779B97F4A7C15);
	x = state;
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	x ^= x >> 31;
	return (double)(x >> 11) * 0x1.0p-53;
}

struct job {
	int64_t submit;
	double dur;
	int gpus, team, prio, res;
	double u_mr, u_pick;
};

static int cmp(const void *a, const void *b)
{
	const struct job *x = a, *y = b;

	return x->submit < y->submit ? -1 : x->submit > y->submit;
}

int main(int argc, char **argv)
{
	static const int64_t mrs[4] = { 900, 3600, 4 * 3600, 8 * 3600 };
	long n, days, gpus, k, teams = 20;
	double load, want, have = 0, f, wsum = 0;
	struct job *j;
	FILE *tree;

	if (argc != 7 && argc != 8) {
		fprintf(stderr, "usage: sim-gen JOBS DAYS GPUS LOAD SEED "
			"TREE_OUT [TEAMS] > jobs.csv\n");
		return 2;
	}
	n = strtol(argv[1], NULL, 10);
	days = strtol(argv[2], NULL, 10);
	gpus = strtol(argv[3], NULL, 10);
	load = strtod(argv[4], NULL);
	state = strtoull(argv[5], NULL, 10);
	if (argc == 8)
		teams = strtol(argv[7], NULL, 10);
	if (n <= 0 || days <= 0 || gpus <= 0 || !(load > 0)) {
		fprintf(stderr, "sim-gen: JOBS, DAYS, GPUS, LOAD must be > 0\n");
		return 2;
	}
	if (teams < 1 || teams > 10000) {
		fprintf(stderr, "sim-gen: TEAMS must be 1..10000\n");
		return 2;
	}
	tree = fopen(argv[6], "w");
	if (!tree) {
		perror(argv[6]);
		return 2;
	}
	for (k = 0; k < teams; k++)
		fprintf(tree, "t%02ld %d\n", k, 1 + (int)(rnd() * 10));
	fclose(tree);
	for (k = 0; k < teams; k++)
		wsum += 1.0 / (k + 1);
	j = calloc((size_t)n, sizeof(*j));
	if (!j)
		return 1;
	for (k = 0; k < n; k++) {
		double u = rnd(), t = rnd() * wsum, acc = 0;
		int team = (int)teams - 1;
		long i;

		j[k].submit = (int64_t)(rnd() * days * 86400.0);
		j[k].gpus = u < 0.4 ? 1 : u < 0.6 ? 2 : u < 0.75 ? 4 :
			    u < 0.9 ? 8 : 8 * (2 + (int)(rnd() * 7));
		j[k].dur = 300.0 * pow(288.0, rnd());
		for (i = 0; i < teams; i++) {
			acc += 1.0 / (i + 1);
			if (t < acc) {
				team = (int)i;
				break;
			}
		}
		j[k].team = team;
		u = rnd();
		j[k].prio = u < 0.2 ? 256 : u < 0.7 ? 512 : 768;
		j[k].res = rnd() < 0.5;
		j[k].u_mr = rnd();
		j[k].u_pick = rnd();
		have += j[k].dur * j[k].gpus;
	}
	want = load * (double)gpus * days * 86400.0;
	f = want / have;
	qsort(j, (size_t)n, sizeof(*j), cmp);
	printf("submit_time_s,duration_s,gpus,team,user,min_runtime_s,"
	       "resumable,priority\n");
	for (k = 0; k < n; k++) {
		int64_t dur = (int64_t)llround(j[k].dur * f), mr = 0;

		if (dur < 1)
			dur = 1;
		if (j[k].u_mr >= 0.2) {
			mr = mrs[(int)(j[k].u_pick * 4) & 3];
			if (mr > dur)
				mr = dur;
		}
		printf("%" PRId64 ",%" PRId64 ",%d,t%02d,,%" PRId64 ",%s,%d\n",
		       j[k].submit, dur, j[k].gpus, j[k].team, mr,
		       j[k].res ? "yes" : "no", j[k].prio);
	}
	free(j);
	return 0;
}
