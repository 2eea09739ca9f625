/* limit_usage.c - the arithmetic behind Slurm's time limits as
 * priority/budget keeps their counters; see sb/limit_usage.h. */
#include <float.h>
#include <math.h>

#include "sb/error.h"
#include "sb/limit_usage.h"

double sb_limit_decay_factor(double half_life)
{
	double d;

	if (!(half_life > 0))
		return 1;
	/* d = 1 - 0.693 / H: priority/multifactor's first-order form of
	 * 2^(-1/H), with its constant, so both plugins decay alike */
	d = 1 - 0.693 / half_life;
	return d < 0 ? 0 : d;
}

double sb_limit_decay(double factor, double seconds)
{
	double r;

	if (!(seconds > 0) || factor >= 1)
		return 1;
	r = pow(factor, seconds);
	return r < DBL_MIN ? DBL_MIN : r;
}

/* The run's time-limit end, seconds (no overflow: 64-bit). */
static int64_t limit_end(const struct sb_run *run)
{
	return (int64_t)run->start + (int64_t)run->limit_min * 60;
}

int sb_limit_run_delta(const struct sb_run *run, time_t from, time_t to,
		       bool at_end, struct sb_run_delta *out)
{
	int64_t lend;

	if (!run || !out)
		return SB_EINVAL;
	if (run->start > from)
		from = run->start;
	/* only at the end: a run over its limit has end_time in the past,
	 * and the tick must not stop there */
	if (at_end && run->end && to > run->end)
		to = run->end;
	out->run = to > from ? (double)(to - from) : 0;
	lend = limit_end(run);
	if ((int64_t)from >= lend)
		out->release = 0;	/* only the time limit was added */
	else if (run->ended)
		out->release = (uint64_t)(lend - from);
	else {
		/* up to now, the expected end and the limit, whichever is
		 * first (Slurm added no more than the limit) */
		int64_t upto = to;

		if (run->end_exp && (int64_t)run->end_exp < upto)
			upto = run->end_exp;
		if (lend < upto)
			upto = lend;
		out->release = upto > (int64_t)from ?
			       (uint64_t)(upto - (int64_t)from) : 0;
	}
	return SB_OK;
}

uint64_t sb_limit_restart_used(time_t start, uint32_t limit_min,
			       time_t last_tick)
{
	int64_t used, lim = (int64_t)limit_min * 60;

	if (!last_tick || start >= last_tick)
		return 0;
	used = (int64_t)last_tick - (int64_t)start;
	return (uint64_t)(used < lim ? used : lim);
}

uint64_t sb_limit_scale(uint64_t seconds, double factor)
{
	double v;

	if (factor < 0)
		return seconds;
	v = floor((double)seconds * factor);
	if (v >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)v;
}

time_t sb_limit_next_reset(enum sb_reset_period period, time_t last_reset,
			   time_t now)
{
	const time_t day = 24 * 3600, week = 7 * day;
	struct tm tm;
	time_t t;

	if (!localtime_r(&last_reset, &tm))
		return 0;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_isdst = -1;
	switch (period) {
	case SB_RESET_DAILY:
		t = mktime(&tm) + day;
		while (t + day < now)
			t += day;
		return t;
	case SB_RESET_WEEKLY:
		t = mktime(&tm) + day * (7 - tm.tm_wday);
		while (t + week < now)
			t += week;
		return t;
	case SB_RESET_MONTHLY:
		tm.tm_mday = 1;
		tm.tm_mon++;
		break;
	case SB_RESET_QUARTERLY:
		tm.tm_mday = 1;
		tm.tm_mon = (tm.tm_mon / 3 + 1) * 3;
		break;
	case SB_RESET_YEARLY:
		tm.tm_mday = 1;
		tm.tm_mon = 0;
		tm.tm_year++;
		break;
	default:
		return 0;
	}
	/* mktime() carries a month of 12 into the next year */
	return mktime(&tm);
}
