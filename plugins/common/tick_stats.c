/* tick_stats.c - lock hold time per tick, cost per call; see tick_stats.h. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* RUSAGE_THREAD */
#endif
#include <math.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>

#include "tick_stats.h"

void tick_switches_now(struct tick_switches *s)
{
	struct rusage ru;

	s->vol = s->invol = 0;
	if (getrusage(RUSAGE_THREAD, &ru) == 0) {
		s->vol = ru.ru_nvcsw;
		s->invol = ru.ru_nivcsw;
	}
}

void tick_slow_describe(double held_us, double cpu_us,
			const struct tick_switches *from,
			const struct tick_switches *to, char *buf, size_t len)
{
	double off = held_us > cpu_us ? held_us - cpu_us : 0;

	if (!buf || !len)
		return;
	snprintf(buf, len, "held %.0f us, thread CPU %.0f us, off CPU %.0f us: "
		 "%ld waits (voluntary context switches), %ld times the CPU "
		 "was taken (involuntary)", held_us, cpu_us, off,
		 to->vol - from->vol, to->invol - from->invol);
}

void tick_clock_now(struct tick_clock *c)
{
	clock_gettime(CLOCK_MONOTONIC, &c->mono);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c->cpu);
}

static double ts_us(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 +
	       (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

double tick_clock_elapsed(const struct tick_clock *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return ts_us(&from->mono, &now);
}

double tick_clock_since(const struct tick_clock *from,
			const struct tick_clock *to, double *cpu_us)
{
	if (cpu_us)
		*cpu_us = ts_us(&from->cpu, &to->cpu);
	return ts_us(&from->mono, &to->mono);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double tick_stats_quantile(double *v, size_t n, double q)
{
	size_t rank;

	if (!v || !n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(q * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

bool tick_stats_add(struct tick_stats *s, double held_us, double write_us,
		    double cpu_us, char *buf, size_t len)
{
	double w[TICK_STATS_N];
	size_t nw = 0, i;

	s->held_us[s->n] = held_us;
	s->write_us[s->n] = write_us;
	s->cpu_us[s->n] = cpu_us;
	if (write_us > 0)
		s->wrote++;
	if (++s->n < TICK_STATS_N)
		return false;
	/* write-lock hold time only over the ticks that took write locks */
	for (i = 0; i < TICK_STATS_N; i++)
		if (s->write_us[i] > 0)
			w[nw++] = s->write_us[i];
	if (buf && len)
		snprintf(buf, len, "over %d ticks: locks held median %.0f us "
			 "p90 %.0f max %.0f; thread CPU median %.0f us p90 "
			 "%.0f max %.0f; write locks in %u ticks, held median "
			 "%.0f us p90 %.0f max %.0f", TICK_STATS_N,
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 0.5),
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 0.9),
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 1.0),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 0.5),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 0.9),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 1.0),
			 s->wrote, tick_stats_quantile(w, nw, 0.5),
			 tick_stats_quantile(w, nw, 0.9),
			 tick_stats_quantile(w, nw, 1.0));
	s->n = 0;
	s->wrote = 0;
	return true;
}

bool tick_stats_add_calls(struct tick_stats *s, const char *unit,
			  double wall_us, double cpu_us, char *buf, size_t len)
{
	s->held_us[s->n] = wall_us;
	s->write_us[s->n] = 0;
	s->cpu_us[s->n] = cpu_us;
	if (++s->n < TICK_STATS_N)
		return false;
	if (buf && len)
		snprintf(buf, len, "over %d %s: wall median %.0f us p90 %.0f "
			 "max %.0f; thread CPU median %.0f us p90 %.0f "
			 "max %.0f",
			 TICK_STATS_N, unit ? unit : "calls",
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 0.5),
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 0.9),
			 tick_stats_quantile(s->held_us, TICK_STATS_N, 1.0),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 0.5),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 0.9),
			 tick_stats_quantile(s->cpu_us, TICK_STATS_N, 1.0));
	s->n = 0;
	s->wrote = 0;
	return true;
}
