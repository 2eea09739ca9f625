/*
 * tick_stats.h - how long a periodic controller thread holds slurmctld's
 * locks per tick, summarised every TICK_STATS_N ticks (median, p90, max);
 * and, with tick_stats_add_calls(), the cost of any other timed unit of
 * work (a plugin entry point's calls), summarised the same way.
 *
 * Measurement only, no policy: the thread reads tick_clock_now() when it
 * has its locks and again just before it drops them; the wall time between
 * the two (CLOCK_MONOTONIC) is the hold time every other slurmctld thread
 * waiting for those locks sees, the thread's own CPU time between them
 * (CLOCK_THREAD_CPUTIME_ID) is what the tick's work cost.  Slurm-free.
 */
#ifndef SB_TICK_STATS_H
#define SB_TICK_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

/* Ticks per summary (one a second: a summary a minute). */
#define TICK_STATS_N 60

/* One reading of both clocks. */
struct tick_clock {
	struct timespec mono;	/* CLOCK_MONOTONIC */
	struct timespec cpu;	/* CLOCK_THREAD_CPUTIME_ID of the caller */
};

/* The samples of the current summary period; zero-initialise. */
struct tick_stats {
	unsigned n;			/* samples so far, < TICK_STATS_N */
	unsigned wrote;			/* ticks that took write locks */
	double held_us[TICK_STATS_N];	/* any slurmctld lock held, us
					 * (tick_stats_add_calls: wall) */
	double write_us[TICK_STATS_N];	/* write locks held, us (0: none) */
	double cpu_us[TICK_STATS_N];	/* thread CPU while holding (or in
					 * the call), us */
};

/* A tick whose locks are held longer than this is described on its own
 * (tick_slow_describe()): microseconds. */
#define TICK_SLOW_US 20000.0

/* The calling thread's context switches so far (getrusage(RUSAGE_THREAD)):
 * voluntary ones are waits (a mutex, I/O, a sleep), involuntary ones are
 * the kernel giving its CPU to another thread. */
struct tick_switches {
	long vol, invol;
};

/* tick_switches_now - read the calling thread's context switch counts
 * into @s (both 0 where the system cannot tell). */
void tick_switches_now(struct tick_switches *s);

/*
 * tick_slow_describe - why one tick held its locks @held_us (wall) for
 * @cpu_us of its own CPU: writes into @buf (at most @len bytes) "held N us,
 * thread CPU N us, off CPU N us: N waits (voluntary context switches), N
 * times the CPU was taken (involuntary)", from the counts read at the
 * start (@from) and the end (@to) of the hold.  Off CPU is held - CPU,
 * never below 0.
 */
void tick_slow_describe(double held_us, double cpu_us,
			const struct tick_switches *from,
			const struct tick_switches *to, char *buf, size_t len);

/* tick_clock_now - read both clocks into @c. */
void tick_clock_now(struct tick_clock *c);

/*
 * tick_clock_elapsed - microseconds of wall time (CLOCK_MONOTONIC) from
 * @from to now; reads the monotonic clock alone (the thread's CPU clock is
 * a system call), for a check made often.
 */
double tick_clock_elapsed(const struct tick_clock *from);

/*
 * tick_clock_since - microseconds from @from to @to: the return value is
 * wall time, *@cpu_us (when not NULL) the thread's CPU time.  Both clocks
 * must have been read by the same thread.
 */
double tick_clock_since(const struct tick_clock *from,
			const struct tick_clock *to, double *cpu_us);

/*
 * tick_stats_add - record one tick: @held_us of lock hold time (a tick
 * that let go of the locks between stretches gives its longest stretch),
 * @write_us under write locks (0 when the tick took none), @cpu_us of the
 * thread's CPU while it held them (all stretches).  When this completes
 * TICK_STATS_N samples, writes a one-line summary into @buf (at most @len
 * bytes, "over 60 ticks: held median ...") and starts a new period:
 * returns true.  Otherwise returns false and leaves @buf alone.
 */
bool tick_stats_add(struct tick_stats *s, double held_us, double write_us,
		    double cpu_us, char *buf, size_t len);

/*
 * tick_stats_add_calls - record one timed unit of work that is not a
 * lock-holding tick (a call of a plugin entry point): @wall_us from its
 * start to its end (CLOCK_MONOTONIC), @cpu_us of the thread's CPU.  When
 * this completes TICK_STATS_N samples, writes a one-line summary into @buf
 * (at most @len bytes), "over 60 UNIT: wall median N us p90 N max N;
 * thread CPU median N us p90 N max N" with @unit naming what was counted
 * ("calls" when NULL), and starts a new period: returns true.  Otherwise
 * returns false and leaves @buf alone.  A struct tick_stats takes either
 * this or tick_stats_add(), never both.
 */
bool tick_stats_add_calls(struct tick_stats *s, const char *unit,
			  double wall_us, double cpu_us, char *buf, size_t len);

/*
 * tick_stats_quantile - the @q quantile (0..1) of @n values by the nearest
 * rank method (the value at rank ceil(q * n), 1-based), sorting @v in
 * place; 0 when @n is 0.
 */
double tick_stats_quantile(double *v, size_t n, double q);

#endif /* SB_TICK_STATS_H */
