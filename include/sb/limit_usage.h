/*
 * sb/limit_usage.h - the arithmetic behind Slurm's time limits
 * (GrpTRESRunMins, GrpTRESMins, GrpWall) as priority/budget keeps their
 * counters: the same rules as priority/multifactor, so a site's limits
 * keep their documented meaning (slurm-budget(8), "Slurm's time limits").
 *
 * When a job starts, Slurm adds TRES x time limit x UsageFactor to the
 * run-seconds counter (grp_used_tres_run_secs) of its QOS and of every
 * association up to root.  The priority plugin, at every tick, releases
 * the seconds the job ran since the last tick (never past its time limit)
 * and adds them, decayed, to the used counters (usage_tres_raw,
 * grp_used_wall); when the job ends it releases the rest of the time limit
 * once.
 *
 * Decay: PriorityDecayHalfLife H seconds gives a per-second factor
 * d = 1 - ln 2 / H (multifactor's first-order form, kept so that both
 * plugins decay alike); n seconds multiply by d^n.  H = 0: no decay (d = 1).
 *
 * No Slurm, no clock: every time is passed in, seconds since the epoch.
 */
#ifndef SB_LIMIT_USAGE_H
#define SB_LIMIT_USAGE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* A job's run as the counters see it. */
struct sb_run {
	time_t start;		/* start of the current run */
	uint32_t limit_min;	/* time limit, minutes */
	/* expected end (Slurm's end_time_exp): a run still going past it is
	 * released up to it only; 0 = none */
	time_t end_exp;
	/* Slurm's end_time of an ended run (0: still running) */
	time_t end;
	/* the run has ended (finished, completing, requeued, resizing): the
	 * whole rest of the time limit is released */
	bool ended;
};

/* What one tick, or one end, does to a job's counters. */
struct sb_run_delta {
	/* seconds run in the period (for usage and GrpWall), >= 0 */
	double run;
	/* seconds to release from the run-seconds counters (before
	 * UsageFactor), bounded by the time limit */
	uint64_t release;
};

/*
 * sb_limit_decay_factor - per-second decay factor for a half-life of
 * @half_life seconds: 1 - 0.693 / @half_life (priority/multifactor's
 * formula and constant, _init_decay_vars()), 1 (no decay) when
 * @half_life <= 0.  A half-life under one second gives 0 (everything
 * decays at once), never a negative factor.
 */
double sb_limit_decay_factor(double half_life);

/*
 * sb_limit_decay - the factor for @seconds seconds: @factor ^ @seconds,
 * at least DBL_MIN (usage never becomes exactly 0 by decay, as in Slurm);
 * 1 for @seconds <= 0.
 */
double sb_limit_decay(double factor, double seconds);

/*
 * sb_limit_run_delta - the job @run's share of the period
 * [@from, @to): seconds run and run-seconds to release.
 *
 * The period starts no earlier than the run (a run started after the last
 * tick counts from its start).  When @at_end (the job's end, called once),
 * the period stops at the run's end time if that is earlier.  Release:
 *   - nothing once the period starts at or past start + time limit (Slurm
 *     added only the time limit);
 *   - for an ended run, everything left: start + time limit - period start;
 *   - else the seconds run, but only up to the expected end and the
 *     time limit, whichever comes first.
 * Return: SB_OK, or SB_EINVAL when @run or @out is NULL.
 */
int sb_limit_run_delta(const struct sb_run *run, time_t from, time_t to,
		       bool at_end, struct sb_run_delta *out);

/*
 * sb_limit_restart_used - run-seconds (per unit of TRES, before
 * UsageFactor) that a job running since @start had released by the last
 * tick @last_tick: after a restart Slurm adds the whole time limit again,
 * and this much must come off.  0 when the job started after @last_tick
 * or @last_tick is 0 (never ticked: the first tick releases from the
 * start).  Bounded by the time limit @limit_min minutes.
 */
uint64_t sb_limit_restart_used(time_t start, uint32_t limit_min,
			       time_t last_tick);

/*
 * sb_limit_scale - @seconds x @factor (UsageFactor) rounded down, as Slurm
 * scales run-seconds; a negative @factor (Slurm's "not set") counts 1.
 * Saturates at UINT64_MAX.
 */
uint64_t sb_limit_scale(uint64_t seconds, double factor);

/* PriorityUsageResetPeriod (slurm.conf): when the used counters are
 * cleared. */
enum sb_reset_period {
	SB_RESET_NONE,
	SB_RESET_NOW,		/* once, when slurmctld starts */
	SB_RESET_DAILY,		/* at local midnight */
	SB_RESET_WEEKLY,	/* Sunday midnight */
	SB_RESET_MONTHLY,	/* the 1st, midnight */
	SB_RESET_QUARTERLY,	/* Jan, Apr, Jul, Oct 1st */
	SB_RESET_YEARLY,	/* Jan 1st */
};

/*
 * sb_limit_next_reset - the next reset after @last_reset (local time, as
 * Slurm), for the periodic @period; for daily and weekly periods never
 * more than one period behind @now (missed resets are not replayed).
 * Return: the time, or 0 for SB_RESET_NONE, SB_RESET_NOW or an unknown
 * period (no periodic reset).
 */
time_t sb_limit_next_reset(enum sb_reset_period period, time_t last_reset,
			   time_t now);

#endif /* SB_LIMIT_USAGE_H */
