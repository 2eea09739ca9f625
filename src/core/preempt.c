/* preempt.c - preemption and repair rules; see sb/preempt.h. */
#define _GNU_SOURCE /* FNM_CASEFOLD */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb/duration.h"
#include "sb/error.h"
#include "sb/lane.h"
#include "sb/preempt.h"
#include "sb/priority.h"

void sb_preempt_policy_init(struct sb_preempt_policy *pol)
{
	pol->grace_time = 30;
	pol->nonresumable = SB_NONRESUMABLE_REQUEUE;
	snprintf(pol->repair_reason, sizeof(pol->repair_reason), "repair*");
	pol->interactive_warning = 300;
	pol->interval_factor = SB_PREEMPT_INTERVAL_FACTOR_DEFAULT;
	pol->requeue_delay = SB_REQUEUE_DELAY_DEFAULT;
	sb_lane_policy_init(&pol->lane);
	pol->restart_backoff_max = SB_RESTART_BACKOFF_MAX_DEFAULT;
	pol->loss_wait = SB_LOSS_WAIT_DEFAULT;
}

int64_t sb_requeue_delay_of_authinfo(const char *authinfo)
{
	static const char key[] = "cred_expire=";
	const char *p = authinfo ? strstr(authinfo, key) : NULL;
	int64_t v = 0;
	bool neg = false;

	if (!p)
		return SB_REQUEUE_DELAY_DEFAULT;
	/* atoi(3): white space, a sign, digits */
	for (p += sizeof(key) - 1; *p == ' ' || (*p >= '\t' && *p <= '\r');
	     p++)
		;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > 1000000000)
			v = 1000000000;
	if (neg || v < 5)
		return SB_REQUEUE_DELAY_DEFAULT;
	return v + 1;
}

int64_t sb_restart_delay(const struct sb_preempt_policy *pol,
			 const struct sb_contract *c, uint32_t restarts)
{
	struct sb_preempt_policy def;
	int64_t d, cap;
	uint32_t k;

	if (!pol) {
		sb_preempt_policy_init(&def);
		pol = &def;
	}
	d = pol->requeue_delay > 0 ? pol->requeue_delay : 0;
	cap = pol->restart_backoff_max;
	if (!c || c->allocated || restarts < 1 || cap <= 0 ||
	    d == 0 || d >= cap)
		return d;
	/* d x 2^(restarts - 1), stopping at the cap (no overflow: d < cap) */
	for (k = 1; k < restarts && d < cap && d <= INT64_MAX / 2; k++)
		d *= 2;
	return d < cap ? d : cap;
}

bool sb_preempt_static(const struct sb_contract *preemptor,
		       const struct sb_contract *preemptee)
{
	return preemptor && preemptee && preemptor->allocated &&
	       !preemptee->allocated;
}

uint32_t sb_preempt_rank(const struct sb_preempt_job *job)
{
	/* The resumed bit orders the queue only: a requeued job must not
	 * preempt its teammate of equal standing (that would ping-pong). */
	if (!job || !job->contract.allocated)
		return 0;
	return job->priority & ~SB_PRIO_RESUMED;
}

bool sb_preempt_outranked(uint32_t bar, const struct sb_preempt_job *victim)
{
	return victim && victim->contract.allocated &&
	       sb_preempt_rank(victim) >= bar;
}

int64_t sb_preempt_protected_until(const struct sb_preempt_job *job)
{
	int64_t mr = job->contract.allocated ? job->contract.min_runtime : 0;
	int64_t sus = job->suspended > 0 ? job->suspended : 0;

	if (mr < 0)
		mr = 0;
	if (!job->contract.allocated)
		sus = 0;
	if (mr > INT64_MAX - sus)
		return INT64_MAX;
	mr += sus;
	if (job->start > INT64_MAX - mr)
		return INT64_MAX;
	return job->start + mr;
}

int64_t sb_run_charged_to(int64_t start, int64_t suspended, int64_t to)
{
	if (suspended < 0)
		suspended = 0;
	if (to <= start)
		return start;
	/* to - start > 0 cannot overflow below; compare the span, not to - s */
	if ((uint64_t)to - (uint64_t)start <= (uint64_t)suspended)
		return start;
	return to - suspended;
}

double sb_charge_rate(double tres, double usage_factor)
{
	if (!isfinite(usage_factor) || usage_factor < 0)
		return tres;
	return tres * usage_factor;
}

int64_t sb_run_seconds(const struct sb_preempt_job *job, int64_t now)
{
	if (!job)
		return 0;
	return sb_run_charged_to(job->start, job->suspended, now) - job->start;
}

enum sb_preempt_action sb_preempt_action(const struct sb_preempt_policy *pol,
					 const struct sb_contract *c)
{
	enum sb_nonresumable nr = pol ? pol->nonresumable :
				  SB_NONRESUMABLE_REQUEUE;

	if (c->resumable && c->requeueable)
		return SB_ACTION_REQUEUE;
	if (nr == SB_NONRESUMABLE_KEEP)
		return SB_ACTION_NONE;
	if (nr == SB_NONRESUMABLE_REQUEUE && c->requeueable)
		return SB_ACTION_RESTART;
	return SB_ACTION_CANCEL;
}

/* Why the job does not resume, for sb_contract_advice(). */
static const char *advice_cause(const struct sb_contract *c,
				enum sb_requeue_bar bar)
{
	if (c->requeueable || bar == SB_REQUEUE_BAR_NONE)
		return "no --resumable";
	switch (bar) {
	case SB_REQUEUE_BAR_INTERACTIVE:
		return "salloc and srun allocations cannot be requeued";
	case SB_REQUEUE_BAR_USER:
		return "--no-requeue";
	case SB_REQUEUE_BAR_SITE:
		return "no --resumable, and the site does not requeue jobs: "
		       "JobRequeue=0";
	case SB_REQUEUE_BAR_NONE:
		break;
	}
	return "no --resumable";
}

bool sb_contract_advice(const struct sb_preempt_policy *pol,
			const struct sb_contract *c, enum sb_requeue_bar bar,
			int64_t shortest, int64_t longest,
			int64_t max_min_runtime, char *msg, size_t len)
{
	enum sb_preempt_action a;
	char mr[32], lim[32] = "", sh[32], max[32], runs[96], fix[160];
	const char *res = "";

	if (msg && len)
		msg[0] = '\0';
	if (!c || !c->allocated || c->min_runtime <= 0)
		return false;
	a = sb_preempt_action(pol, c);
	if (a != SB_ACTION_RESTART && a != SB_ACTION_CANCEL)
		return false;
	if (longest > 0 && longest <= c->min_runtime)
		return false;
	if (!msg || !len)
		return true;
	sb_duration_format(c->min_runtime, mr, sizeof(mr));
	sb_duration_format(max_min_runtime > 0 ? max_min_runtime : 0, max,
			   sizeof(max));
	if (longest > 0) {
		sb_duration_format(longest, lim, sizeof(lim));
		snprintf(runs, sizeof(runs), "its time limit %s is longer than "
			 "its minimum runtime %s", lim, mr);
	} else {
		snprintf(runs, sizeof(runs), "it has no time limit, so it may "
			 "run past its minimum runtime %s", mr);
	}
	if (longest <= 0 || longest > max_min_runtime)
		snprintf(fix, sizeof(fix), "no minimum runtime protects more "
			 "than %s (MaxMinRuntime)", max);
	else if (shortest > 0 && shortest < longest)
		snprintf(fix, sizeof(fix), "no minimum runtime protects all of "
			 "it while its time limit may be as short as %s "
			 "(--time-min, or another partition's)",
			 sb_duration_format(shortest, sh, sizeof(sh)));
	else
		snprintf(fix, sizeof(fix), "--min-runtime=%s protects all of "
			 "it", lim);
	if (c->requeueable || bar == SB_REQUEUE_BAR_NONE ||
	    bar == SB_REQUEUE_BAR_SITE)
		res = "if it checkpoints, submit it with --resumable; ";
	else if (bar == SB_REQUEUE_BAR_USER)
		res = "if it checkpoints, drop --no-requeue and submit it with "
		      "--resumable; ";
	snprintf(msg, len, "note: this job does not resume its work (%s) and "
		 "%s: past it, the job runs only while its budget outranks "
		 "the queue, and a preemption %s, losing what it ran; %s%s",
		 advice_cause(c, bar), runs, a == SB_ACTION_RESTART ?
		 "requeues it to start over" : "cancels it", res, fix);
	return true;
}

int64_t sb_preempt_grace(const struct sb_preempt_policy *pol,
			 const struct sb_contract *c)
{
	struct sb_preempt_policy def;

	if (!pol) {
		sb_preempt_policy_init(&def);
		pol = &def;
	}
	if (!c->allocated || sb_preempt_action(pol, c) != SB_ACTION_REQUEUE)
		return 0;
	return pol->grace_time > 0 ? pol->grace_time : 0;
}

const char *sb_preempt_action_str(enum sb_preempt_action action)
{
	switch (action) {
	case SB_ACTION_REQUEUE:
		return "requeued, resumes its work (resumable)";
	case SB_ACTION_RESTART:
		return "requeued, restarts from its beginning (not resumable)";
	case SB_ACTION_CANCEL:
		return "cancelled (cannot be requeued, or "
		       "PreemptNonResumable=cancel)";
	case SB_ACTION_NONE:
		return "never preempted (not resumable, "
		       "PreemptNonResumable=keep)";
	}
	return "unknown action";
}

int64_t sb_run_ends_by(const struct sb_preempt_job *job)
{
	int64_t sus = job->suspended > 0 ? job->suspended : 0;

	if (job->time_limit <= 0)
		return INT64_MAX;
	if (job->time_limit > INT64_MAX - sus ||
	    job->start > INT64_MAX - (job->time_limit + sus))
		return INT64_MAX;
	return job->start + job->time_limit + sus;
}

bool sb_preempt_ends_sooner(const struct sb_preempt_policy *pol,
			    const struct sb_preempt_job *victim, int64_t now)
{
	int64_t ends = sb_run_ends_by(victim);

	if (ends == INT64_MAX ||
	    sb_preempt_action(pol, &victim->contract) == SB_ACTION_REQUEUE)
		return false;
	return ends - now <= sb_run_seconds(victim, now);
}

int64_t sb_preempt_loss_wait_until(const struct sb_preempt_policy *pol,
				   const struct sb_preempt_job *preemptor)
{
	struct sb_preempt_policy def;

	if (!pol) {
		sb_preempt_policy_init(&def);
		pol = &def;
	}
	if (!preemptor || pol->loss_wait <= 0 || preemptor->eligible <= 0)
		return INT64_MIN;
	if (preemptor->eligible > INT64_MAX - pol->loss_wait)
		return INT64_MAX;
	return preemptor->eligible + pol->loss_wait;
}

bool sb_preempt_loss_waits(const struct sb_preempt_policy *pol,
			   const struct sb_preempt_job *preemptor,
			   const struct sb_preempt_job *victim, int64_t now)
{
	int64_t until = sb_preempt_loss_wait_until(pol, preemptor);
	double rent, loss;

	if (!preemptor || !victim || !victim->contract.allocated ||
	    now >= until ||
	    sb_preempt_action(pol, &victim->contract) == SB_ACTION_REQUEUE)
		return false;
	rent = (double)preemptor->tres *
	       (double)(now > preemptor->eligible ? now - preemptor->eligible : 0);
	loss = (double)victim->tres * (double)sb_run_seconds(victim, now);
	return rent < loss;
}

enum sb_preempt_verdict sb_preempt_check(const struct sb_preempt_policy *pol,
					 const struct sb_preempt_job *preemptor,
					 const struct sb_preempt_job *victim,
					 int64_t now)
{
	if (!preemptor || !victim || !preemptor->contract.allocated)
		return SB_PREEMPT_UNALLOCATED;
	if (now < sb_preempt_protected_until(victim))
		return SB_PREEMPT_PROTECTED;
	if (sb_preempt_outranked(sb_preempt_rank(preemptor), victim))
		return SB_PREEMPT_OUTRANKED;
	if (sb_preempt_action(pol, &victim->contract) == SB_ACTION_NONE)
		return SB_PREEMPT_KEPT;
	if (victim->contract.allocated &&
	    sb_preempt_ends_sooner(pol, victim, now))
		return SB_PREEMPT_ENDS_SOONER;
	return SB_PREEMPT_YES;
}

const char *sb_preempt_verdict_str(enum sb_preempt_verdict v)
{
	switch (v) {
	case SB_PREEMPT_YES:
		return "preemptable";
	case SB_PREEMPT_UNALLOCATED:
		return "an unallocated job never preempts";
	case SB_PREEMPT_PROTECTED:
		return "inside its minimum runtime";
	case SB_PREEMPT_OUTRANKED:
		return "its budget's standing is at least the preemptor's";
	case SB_PREEMPT_KEPT:
		return "not resumable, and PreemptNonResumable=keep";
	case SB_PREEMPT_RECLAIM:
		return "the reclaim rule: the preemptor's budget would end up "
		       "more over-used than the victim's";
	case SB_PREEMPT_NOVIEW:
		return "no budget standing is known (PriorityType is not "
		       "priority/budget): allocated victims are kept";
	case SB_PREEMPT_INTERVAL:
		return "preempted less than PreemptIntervalFactor x its "
		       "minimum runtime ago";
	case SB_PREEMPT_COSTLY:
		return "the gain in fairness does not pay for the preemption's "
		       "cost (grace, requeue delay, lost work)";
	case SB_PREEMPT_ENDS_SOONER:
		return "its time limit ends it sooner than the work it would "
		       "lose (not resumable)";
	case SB_PREEMPT_LOSS_WAIT:
		return "it would lose its run (not resumable), and the "
		       "preemptor has not yet waited as many GPU-seconds, "
		       "at most PreemptLossWait";
	}
	return "unknown verdict";
}

/* floor(8 * log2(1 + x)), capped at 1023; x < 0 counts as 0. */
static uint32_t lost_bits(double x)
{
	double v;

	if (!(x > 0))
		return 0;
	v = floor(8.0 * log2(1.0 + x));
	return v >= 1023.0 ? 1023 : (uint32_t)v;
}

uint32_t sb_preempt_victim_class(const struct sb_preempt_job *victim)
{
	bool keeps = victim->contract.resumable && victim->contract.requeueable;

	return (victim->contract.allocated ? 2u : 0u) | (keeps ? 0u : 1u);
}

uint32_t sb_preempt_victim_key(const struct sb_preempt_job *victim,
			       int64_t now)
{
	struct sb_priority_parts parts;
	uint32_t level = 0;
	double ran = (double)sb_run_seconds(victim, now);

	/* level < 2^20 (SB_PRIO_LEVEL_BITS): fits bits 0-19 */
	if (sb_priority_decode(victim->priority, &parts) == SB_OK)
		level = parts.level & SB_PRIO_LEVEL_MAX;
	return sb_preempt_victim_class(victim) << 30 |
	       lost_bits(ran * (double)victim->tres) << 20 | level;
}

int sb_preempt_victim_cmp(const struct sb_preempt_job *a,
			  const struct sb_preempt_job *b, int64_t now)
{
	uint32_t ka = sb_preempt_victim_key(a, now);
	uint32_t kb = sb_preempt_victim_key(b, now);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	/* the later start has run less: it goes first */
	if (a->start != b->start)
		return a->start > b->start ? -1 : 1;
	return 0;
}

bool sb_preempt_reclaim_ok(double s_p, double u_p, double delta, double s_v,
			   double u_v)
{
	/* !(x >= 0) also catches NaN */
	if (!(s_p >= 0) || !(u_p >= 0) || !(delta >= 0) || !(s_v >= 0) ||
	    !(u_v >= 0))
		return false;
	if (s_v == 0)
		return true;
	return s_p * u_v >= s_v * (u_p + delta);
}

bool sb_repair_reason_matches(const struct sb_preempt_policy *pol,
			      const char *reason)
{
	if (!pol || !reason || !pol->repair_reason[0])
		return false;
	return fnmatch(pol->repair_reason, reason, FNM_CASEFOLD) == 0;
}

int64_t sb_repair_release_at(const struct sb_preempt_policy *pol,
			     const struct sb_preempt_job *job)
{
	if (sb_preempt_action(pol, &job->contract) == SB_ACTION_NONE)
		return INT64_MAX;
	return sb_preempt_protected_until(job);
}

int64_t sb_preempt_warn_at(const struct sb_preempt_policy *pol,
			   const struct sb_preempt_job *job, bool interactive)
{
	int64_t until;

	if (!pol || !job || !interactive || pol->interactive_warning <= 0 ||
	    !job->contract.allocated || job->contract.min_runtime <= 0 ||
	    sb_preempt_action(pol, &job->contract) == SB_ACTION_NONE)
		return INT64_MAX;
	until = sb_preempt_protected_until(job);
	if (until == INT64_MAX)
		return INT64_MAX;	/* saturated: the slice never ends */
	/* until > start here (min runtime >= 1), so start + 1 <= until and
	 * until - start cannot overflow: compare before subtracting.  Not
	 * at start itself: a tick in the job's first second may have run
	 * just before it started, and the next tick's (last, now] begins
	 * after that second. */
	if (until - job->start <= pol->interactive_warning)
		return job->start + 1;
	return until - pol->interactive_warning;
}

bool sb_preempt_warn_due(const struct sb_preempt_policy *pol,
			 const struct sb_preempt_job *job, bool interactive,
			 int64_t last, int64_t now)
{
	int64_t at = sb_preempt_warn_at(pol, job, interactive);

	return at != INT64_MAX && now > last && at > last && at <= now;
}
