/*
 * sb/preempt.h - who may preempt whom, in which order, and what happens to
 * the victim; and when a job on a node drained for repair is released.
 *
 * Rules (doc/design.md, "preempt/budget" and "The contract"):
 *   - only allocated jobs preempt (a job of min runtime 0 never does);
 *   - an unallocated job is preemptable at any time;
 *   - an allocated job is preemptable only once it has run its min runtime
 *     in the current run (start + min_runtime <= now), and only by a job
 *     whose priority is strictly higher than the victim's *current*
 *     priority (its budget's standing as of now, see sb/priority.h; the
 *     resumed bit is not compared: a requeued job never preempts a
 *     teammate of equal standing);
 *   - an allocated victim that would lose its run (not resumable, or it
 *     cannot be requeued) is not preempted in the second half of its time
 *     limit, where its run so far is more than what is left of it
 *     (sb_preempt_ends_sooner(): waiting for it to end costs less than
 *     the work a preemption would throw away);
 *   - with PreemptLossWait set (off by default), a preemptor outside the
 *     debug lane that would throw away an allocated run's work first
 *     waits as many TRES-seconds as that run holds, at most that long
 *     (sb_preempt_loss_waits(), asked last by sb_preempt_decide());
 *   - victims are taken unallocated first, then resumable (they keep their
 *     work), then least work lost (TRES-seconds of the current run), then
 *     lowest current priority (sb_preempt_victim_key());
 *   - a victim is requeued: a resumable one resumes its work, a
 *     non-resumable batch job that allows requeue restarts from its
 *     beginning (PreemptNonResumable=requeue, the default); only a job
 *     that cannot be requeued (--no-requeue, salloc/srun) is cancelled
 *     (sb_preempt_action());
 *   - only an allocated resumable victim gets PreemptGraceTime to write
 *     its checkpoint (sb_preempt_grace()).
 *
 * A preemption can never be undone within one min runtime: the preemptor is
 * allocated, so it is protected for its own min runtime once it starts, and
 * the victim, when it is unallocated, may never preempt at all.
 *
 * No Slurm, no clock: times are seconds on any common scale, given by the
 * caller.  The plugin (plugins/preempt_budget) and the simulator (src/sim)
 * call these same functions.
 */
#ifndef SB_PREEMPT_H
#define SB_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/contract.h"

/* Longest RepairReason pattern. */
#define SB_REPAIR_REASON_MAX 128

/* PreemptIntervalFactor: default and largest value (see sb/view.h,
 * sb_preempt_hold_until()). */
#define SB_PREEMPT_INTERVAL_FACTOR_DEFAULT 2
#define SB_PREEMPT_INTERVAL_FACTOR_MAX 100

/* Seconds a requeued job waits before it may start again when the caller
 * knows no better: Slurm's default credential lifetime (AuthInfo
 * cred_expire, 120 s) + 1 (job_mgr.c, _job_requeue_op()). */
#define SB_REQUEUE_DELAY_DEFAULT 121

/* UnallocatedRestartBackoffMax: the default, seconds (see
 * sb_restart_delay()). */
#define SB_RESTART_BACKOFF_MAX_DEFAULT 86400

/* PreemptLossWait: the default, seconds: off (see
 * sb_preempt_loss_waits(); doc/benchmarks.md 7l says why). */
#define SB_LOSS_WAIT_DEFAULT 0

/* What happens to a victim that is not resumable (PreemptNonResumable). */
enum sb_nonresumable {
	SB_NONRESUMABLE_REQUEUE = 0,	/* requeued, restarting from its
					 * beginning, when the job can be
					 * requeued; else cancelled (default) */
	SB_NONRESUMABLE_CANCEL = 1,	/* cancelled (the default before) */
	SB_NONRESUMABLE_KEEP = 2,	/* never preempted; repair waits for it */
};

/* Defaults: at most 8 GPUs and 15 minutes of min runtime per job, 8 GPUs
 * per association at once. */
#define SB_LANE_TRES_DEFAULT 8
#define SB_LANE_MIN_RUNTIME_DEFAULT (15 * 60)
#define SB_LANE_BUDGET_TRES_DEFAULT 8
/* The largest DebugLaneTRES and DebugLaneBudgetTRES accepted. */
#define SB_LANE_TRES_MAX 1000000

/* The site's debug lane (budget.conf, sb/config.h; the rules are
 * sb/lane.h's). */
struct sb_lane_policy {
	uint64_t max_tres;	/* DebugLaneTRES: charged TRES a lane job asks
				 * for at most; 0 = no lane */
	int64_t max_min_runtime;	/* DebugLaneMinRuntime: seconds, a lane
					 * job's min runtime at most, >= 1 */
	uint64_t budget_tres;	/* DebugLaneBudgetTRES: charged TRES one
				 * association holds in the lane at once at
				 * most; 0 = no lane */
};

/* The site's preemption settings (budget.conf, see sb/config.h). */
struct sb_preempt_policy {
	int64_t grace_time;		/* PreemptGraceTime: seconds between the
					 * SIGTERM and the kill/requeue, >= 0 */
	enum sb_nonresumable nonresumable;	/* PreemptNonResumable */
	char repair_reason[SB_REPAIR_REASON_MAX];	/* RepairReason: a
					 * case-insensitive fnmatch(3) glob over
					 * the node's drain reason; "" = off */
	int64_t interactive_warning;	/* InteractiveWarning: seconds before
					 * an interactive job's protected
					 * slice ends that its user is warned;
					 * <= 0 = never (sb_preempt_warn_at()) */
	uint32_t interval_factor;	/* PreemptIntervalFactor, 1..
					 * SB_PREEMPT_INTERVAL_FACTOR_MAX: a job
					 * preempted at P is not preempted again
					 * before P + factor x its min runtime */
	int64_t requeue_delay;	/* seconds a requeued victim waits before it
				 * may start again, >= 0.  Not a budget.conf
				 * key: Slurm's (AuthInfo cred_expire + 1),
				 * set by the caller (preempt/budget from
				 * slurm.conf, sbudget-sim from
				 * --requeue-delay); the preemption cost
				 * (sb_preempt_cost(), sb/view.h) counts it */
	struct sb_lane_policy lane;	/* DebugLaneTRES, DebugLaneMinRuntime,
					 * DebugLaneBudgetTRES: who may take
					 * the lane (sb/lane.h), so that
					 * sb_preempt_decide() checks a lane
					 * preemptor's size too */
	int64_t loss_wait;	/* PreemptLossWait: seconds, the longest an
				 * allocated preemptor outside the debug
				 * lane waits (from its EligibleTime)
				 * before it may preempt an allocated run
				 * that would lose its work; 0 = off, the
				 * default (sb_preempt_loss_waits()) */
	int64_t restart_backoff_max;	/* UnallocatedRestartBackoffMax:
					 * seconds, the longest wait of an
					 * unallocated job's restart after a
					 * preemption (sb_restart_delay()); 0 =
					 * off (every requeued job waits
					 * requeue_delay) */
};

/* One job as the preemption rules see it. */
struct sb_preempt_job {
	struct sb_contract contract;	/* min runtime, resumable, allocated */
	int64_t start;		/* start of the current run, seconds (a
				 * requeued job's clock restarts); ignored for
				 * a pending preemptor */
	uint32_t priority;	/* current priority (sb_priority_job() with the
				 * standing as of now); for a preemptor, the
				 * priority it is queued with */
	uint64_t tres;		/* charged TRES allocated (GPUs), >= 0 */
	int64_t suspended;	/* seconds of the current run spent suspended
				 * (scontrol suspend) up to the time of the
				 * question, >= 0 (negative counts as 0); 0
				 * for a pending preemptor.  Suspended time is
				 * neither run nor protection */
	int64_t time_limit;	/* seconds the current run may last (its
				 * time limit, counted from its start plus
				 * the time it was suspended); <= 0: none
				 * known (unlimited) */
	int64_t eligible;	/* for a pending preemptor: when its current
				 * wait began (Slurm's EligibleTime; a
				 * requeued job's wait begins again),
				 * seconds; <= 0: not known, read as waited
				 * long enough (sb_preempt_loss_waits()).
				 * Ignored for a victim */
};

/* The answer of sb_preempt_check(); SB_PREEMPT_YES is 0. */
enum sb_preempt_verdict {
	SB_PREEMPT_YES = 0,
	SB_PREEMPT_UNALLOCATED,	/* the preemptor is unallocated */
	SB_PREEMPT_PROTECTED,	/* the victim is inside its min runtime */
	SB_PREEMPT_OUTRANKED,	/* the victim's current priority >= the
				 * preemptor's */
	SB_PREEMPT_KEPT,	/* not resumable, and the site keeps those */
	SB_PREEMPT_RECLAIM,	/* the reclaim rule refuses (sb/view.h,
				 * sb_preempt_decide()) */
	SB_PREEMPT_NOVIEW,	/* an allocated victim of another budget, and
				 * no standing is known (the priority plugin
				 * is not priority/budget) */
	SB_PREEMPT_INTERVAL,	/* the victim was preempted less than
				 * PreemptIntervalFactor x its min runtime
				 * ago (sb/view.h, sb_preempt_hold_until()) */
	SB_PREEMPT_COSTLY,	/* the reclaim rule holds, but not with the
				 * preemption's cost added (sb/view.h,
				 * sb_preempt_cost()) */
	SB_PREEMPT_ENDS_SOONER,	/* the victim would lose its run, and its
				 * time limit ends it sooner than the work
				 * it would lose (sb_preempt_ends_sooner()) */
	SB_PREEMPT_LOSS_WAIT,	/* the victim would lose its run, and the
				 * preemptor has not yet waited as much
				 * as that run, at most PreemptLossWait
				 * (sb_preempt_loss_waits(); only
				 * sb_preempt_decide() answers it) */
};

/* What to do with a victim (PREEMPT_DATA_MODE in the plugin: REQUEUE and
 * RESTART are both Slurm's requeue; the difference is what the job does
 * with it). */
enum sb_preempt_action {
	SB_ACTION_REQUEUE = 0,	/* resumable: back to the queue, same job id,
				 * resumes its work */
	SB_ACTION_CANCEL = 1,	/* cannot be requeued (or the site cancels
				 * non-resumable jobs): cancelled, its run
				 * is lost */
	SB_ACTION_NONE = 2,	/* not resumable and kept: never preempted */
	SB_ACTION_RESTART = 3,	/* not resumable, requeueable: back to the
				 * queue, same job id, starts over (its run
				 * is lost, its demand stays) */
};

/* sb_preempt_policy_init - defaults: the lane's (SB_LANE_*),
 * PreemptGraceTime=30,
 * PreemptNonResumable=requeue, RepairReason="repair*",
 * InteractiveWarning=5:00 (300 s),
 * PreemptIntervalFactor=SB_PREEMPT_INTERVAL_FACTOR_DEFAULT, requeue delay
 * SB_REQUEUE_DELAY_DEFAULT,
 * UnallocatedRestartBackoffMax=SB_RESTART_BACKOFF_MAX_DEFAULT,
 * PreemptLossWait=SB_LOSS_WAIT_DEFAULT. */
void sb_preempt_policy_init(struct sb_preempt_policy *pol);

/*
 * sb_requeue_delay_of_authinfo - Slurm's requeue delay, seconds, from
 * slurm.conf's AuthInfo text (may be NULL): a requeued job's BeginTime is
 * set to now + cred_expire + 1 (22.05 job_mgr.c, _job_requeue_op()), with
 * cred_expire read as Slurm reads it (slurm_cred.c, cred.c: the number
 * after the first "cred_expire=", leading digits only; absent, or below 5,
 * is the default 120).  Values above 1,000,000,000 are taken as that.
 */
int64_t sb_requeue_delay_of_authinfo(const char *authinfo);

/*
 * sb_restart_delay - seconds a job requeued for the @restarts-th time
 * (Slurm's restart_cnt after the requeue, >= 1) waits before it may start
 * again, counted from its requeue.
 *
 * An unallocated job (@c->allocated false) waits
 *
 *     min(requeue_delay x 2^(restarts - 1), max(requeue_delay, B))
 *
 * with B = @pol->restart_backoff_max (UnallocatedRestartBackoffMax): 1x,
 * 2x, 4x ... Slurm's requeue delay, capped.  Every other job, and every
 * job when B <= 0 or @restarts is 0, waits @pol->requeue_delay (Slurm's
 * own wait, the least it can be); a negative delay reads as 0, and so
 * does a requeue delay of 0 for the backoff.
 *
 * Why: an unallocated job cannot be protected (preemptible by any
 * allocated job at any time, by contract), so nothing else bounds how
 * often it is preempted.  Restarted at once it runs into the next reclaim
 * of the same GPUs: a job that cannot resume throws its whole run away
 * each time, a resumable one pays its grace and a restart from its
 * checkpoint.  A doubling wait lets the demand that reclaimed them pass,
 * and bounds its preemptions over a horizon H to about
 * log2(B / requeue_delay) + H / B rather than H / requeue_delay
 * (sb_preempt_min_gap(), sb/view.h).  What it costs: the job's GPU time
 * while it waits with GPUs free.  A NULL @pol reads as the defaults; a
 * NULL @c as an allocated job.
 */
int64_t sb_restart_delay(const struct sb_preempt_policy *pol,
			 const struct sb_contract *c, uint32_t restarts);

/*
 * sb_run_ends_by - the second by which @job's current run ends at the
 * latest, its time limit: start + time_limit + suspended (Slurm pushes a
 * suspended job's end back by the time it was suspended); INT64_MAX when
 * no limit is known (time_limit <= 0) or on overflow.
 */
int64_t sb_run_ends_by(const struct sb_preempt_job *job);

/*
 * sb_preempt_ends_sooner - the break-even rule (rent or buy): preempting
 * @victim at @now would throw away its run (it is not resumable:
 * sb_preempt_action() is not SB_ACTION_REQUEUE), and its time limit ends
 * the run no later than that run's length from now:
 *
 *     sb_run_ends_by(victim) - now  <=  sb_run_seconds(victim, now)
 *
 * Preempting then destroys more GPU time (the run so far) than it can win
 * for the preemptor (the rest of the run at most); waiting costs less.
 * The rule holds only in the second half of a run's time limit, and the
 * run ends by that limit, so no job squats behind it; but a job whose
 * limit is at most twice its min runtime reaches the second half as its
 * protected slice ends, and so runs to its end unpreempted: at most twice
 * its min runtime, all of it charged.  False when no limit is known or
 * the victim keeps its work.  A NULL @pol reads as the defaults.
 */
bool sb_preempt_ends_sooner(const struct sb_preempt_policy *pol,
			    const struct sb_preempt_job *victim, int64_t now);

/*
 * sb_preempt_loss_wait_until - the second from which pending @preemptor
 * no longer waits under PreemptLossWait (sb_preempt_loss_waits()): its
 * EligibleTime (@preemptor->eligible) + @pol->loss_wait.  Returns
 * INT64_MIN (no wait) when the rule is off (@pol->loss_wait <= 0, the
 * default) or the EligibleTime is not known (<= 0).  A NULL @pol reads as
 * the defaults; NULL @preemptor: INT64_MIN.  Saturating.
 */
int64_t sb_preempt_loss_wait_until(const struct sb_preempt_policy *pol,
				   const struct sb_preempt_job *preemptor);

/*
 * sb_preempt_loss_waits - PreemptLossWait, rent before buy: whether
 * pending @preemptor still waits at @now before it may preempt allocated
 * @victim, whose preemption would throw away its run (sb_preempt_action()
 * is not SB_ACTION_REQUEUE).  It waits while
 *
 *     preemptor TRES x (now - EligibleTime)  <  victim TRES x run seconds
 *
 * (the TRES-seconds, in ChargeTRES units, GPUs by default, it has waited:
 * the rent; those the victim would lose: the price; run seconds:
 * sb_run_seconds()) and @now is before sb_preempt_loss_wait_until().
 * Each victim is weighed on its own, so a preemptor that needs several
 * waits for the largest of their losses, not their sum; one asking no
 * TRES waits the whole PreemptLossWait, and a victim holding none never
 * delays.  Meanwhile the preemptor takes what runs free by ending, and
 * victims that keep their work.  Ski rental's deterministic rule (rent
 * until the rent paid equals the price) is 2-competitive when the price is
 * fixed; here the price grows with the victim's run, hence the cap.  The
 * victim stays preemptable past its minimum runtime: the rule delays only
 * the preemptor, by at most PreemptLossWait.  sb_preempt_decide() asks it
 * last, where its answer would otherwise be yes, and never for a debug
 * lane preemptor.  Off by default: it cut the work lost on sim-gen
 * workloads of 256 to 2,048 GPUs and raised it on the Alibaba trace on 8
 * to 32 GPUs, where a spared run is preempted later, longer
 * (doc/benchmarks.md 7l).  False for NULL arguments and unallocated
 * victims (they give way at once).
 */
bool sb_preempt_loss_waits(const struct sb_preempt_policy *pol,
			   const struct sb_preempt_job *preemptor,
			   const struct sb_preempt_job *victim, int64_t now);

/*
 * sb_preempt_static - the relation that holds whatever the time: an
 * allocated job ranks above an unallocated one for preemption.  This is all
 * Slurm's queue sort may use (preempt_p_job_preempt_check); the time-bound
 * rules belong to sb_preempt_check().  Returns false for NULL arguments.
 */
bool sb_preempt_static(const struct sb_contract *preemptor,
		       const struct sb_contract *preemptee);

/*
 * sb_preempt_rank - @job's rank in the outranked rule: its priority without
 * SB_PRIO_RESUMED for an allocated job; 0 for an unallocated one or NULL.
 * sb_preempt_check() refuses an allocated preemptor (SB_PREEMPT_OUTRANKED,
 * or SB_PREEMPT_PROTECTED before it) every victim whose rank is at least
 * the preemptor's, when the preemptor's rank is not 0.
 */
uint32_t sb_preempt_rank(const struct sb_preempt_job *job);

/*
 * sb_preempt_outranked - the outranked rule: whether @victim, allocated,
 * ranks at least @bar, the rank (sb_preempt_rank()) of an allocated
 * preemptor.  sb_preempt_check() refuses such a victim
 * (SB_PREEMPT_OUTRANKED, or SB_PREEMPT_PROTECTED before it); a caller that
 * asks for many victims may compute @bar once.  False for NULL.
 */
bool sb_preempt_outranked(uint32_t bar, const struct sb_preempt_job *victim);

/*
 * sb_preempt_protected_until - the first second at which @job may be
 * preempted: start + min_runtime + suspended for an allocated job (a
 * suspended job is not running, so its slice is pushed back by the time it
 * was suspended), start for an unallocated one (saturating, never
 * overflows).
 */
int64_t sb_preempt_protected_until(const struct sb_preempt_job *job);

/*
 * sb_run_seconds - seconds @job's current run has really run at @now:
 * now - start - suspended, clamped to >= 0 (a pending job, or one still
 * suspended since its start, has run 0 s).  This is what a job is charged
 * and what a preemption loses; suspended time holds no GPU time.
 */
int64_t sb_run_seconds(const struct sb_preempt_job *job, int64_t now);

/*
 * sb_run_charged_to - the end of the run segment to offer the accrual
 * (sb_accrual_charge(), sb/ledger.h) for a run that started at @start,
 * was suspended @suspended seconds in all and is observed at @to (now, or
 * its end): @start + run seconds, i.e. max(@start, @to - @suspended).
 * Offering [start, sb_run_charged_to()) charges exactly the seconds the
 * job ran, however many suspensions there were and however often it is
 * offered; the ledger files them from the start of the run on (the
 * suspended time is moved to the end, so the usage may sit up to
 * @suspended seconds earlier in the window than it ran).  Saturating.
 */
int64_t sb_run_charged_to(int64_t start, int64_t suspended, int64_t to);

/*
 * sb_charge_rate - what a running job is charged per second, in TRES
 * (ChargeTRES units): its @tres times @usage_factor, the UsageFactor of
 * its QOS, as Slurm's priority/multifactor scales a job's usage
 * (0 = the QOS is free; a negative or non-finite factor, Slurm's "not
 * set", counts 1).  What the job delivered stays @tres per second
 * (sb/figures.h): the factor changes only what its budget is charged.
 */
double sb_charge_rate(double tres, double usage_factor);

/*
 * sb_preempt_check - may the pending @preemptor take @victim's resources at
 * @now (seconds)?  The rules are at the top of this file; the checks are
 * made in this order, and the answer names the first rule that refuses:
 * SB_PREEMPT_UNALLOCATED, _PROTECTED, _OUTRANKED, _KEPT, _ENDS_SOONER.
 * Whether the freed resources suffice is not
 * judged here (Slurm's select plugin, or the simulator's placement, takes
 * victims in sb_preempt_victim_key() order only until the job fits).
 * Returns SB_PREEMPT_UNALLOCATED for NULL arguments.
 */
enum sb_preempt_verdict sb_preempt_check(const struct sb_preempt_policy *pol,
					 const struct sb_preempt_job *preemptor,
					 const struct sb_preempt_job *victim,
					 int64_t now);

/* sb_preempt_verdict_str - a short English reason, static storage. */
const char *sb_preempt_verdict_str(enum sb_preempt_verdict v);

/*
 * sb_preempt_action - what happens to victim @c (@pol NULL: the defaults):
 *   resumable and requeueable             SB_ACTION_REQUEUE;
 *   otherwise, by PreemptNonResumable:
 *     requeue (default)  requeueable      SB_ACTION_RESTART,
 *                        not requeueable  SB_ACTION_CANCEL (--no-requeue,
 *                                         salloc/srun: Slurm cannot);
 *     cancel                              SB_ACTION_CANCEL;
 *     keep                                SB_ACTION_NONE.
 * A restarted job loses its run but not its place in the demand: it runs
 * again, so the work it was submitted for is done.
 */
enum sb_preempt_action sb_preempt_action(const struct sb_preempt_policy *pol,
					 const struct sb_contract *c);

/*
 * sb_preempt_grace - seconds victim @c runs on after its SIGTERM before it
 * is requeued: PreemptGraceTime for an allocated victim whose action is
 * SB_ACTION_REQUEUE (a resumable job writes its checkpoint), 0 for every
 * other: a non-resumable victim loses its run whatever it does in the
 * grace time (and one that exits on the SIGTERM would end instead of
 * being requeued), and an unallocated victim is preemptable at any
 * moment by its contract, so the allocated preemptor does not wait for
 * free work (a resumable unallocated job checkpoints periodically).
 * @pol NULL: the defaults.
 */
int64_t sb_preempt_grace(const struct sb_preempt_policy *pol,
			 const struct sb_contract *c);

/* Why a job cannot be requeued, as sb_contract_advice() names it. */
enum sb_requeue_bar {
	SB_REQUEUE_BAR_NONE = 0,	/* it can be requeued */
	SB_REQUEUE_BAR_INTERACTIVE,	/* a salloc or srun allocation */
	SB_REQUEUE_BAR_USER,		/* the user's --no-requeue */
	SB_REQUEUE_BAR_SITE,		/* the site's JobRequeue=0, and no
					 * --requeue */
};

/*
 * sb_contract_advice - the note for a job's user at submission when the
 * job may lose its work: it is allocated, a preemption would throw its run
 * away (sb_preempt_action() under @pol is SB_ACTION_RESTART or
 * SB_ACTION_CANCEL), and it may run longer than its minimum runtime
 * (@longest, the longest time limit it may run under, seconds, is above
 * @c->min_runtime, or <= 0: none).  Past its minimum runtime such a job
 * runs only while its budget outranks the queue (doc/design.md, "The
 * contract"), so one preemption there loses all it ran.  The note says so,
 * why the job does not resume (@bar: why it cannot be requeued, when it
 * cannot), and what protects the work: --resumable for a batch job, and
 * --min-runtime=@longest when @longest is at most @max_min_runtime
 * (MaxMinRuntime, seconds) and @shortest (the shortest time limit it may
 * get, which its minimum runtime must not exceed: --time-min, or another
 * partition's; <= 0: none) is not below it.
 * @pol: the site's preemption settings, NULL for the defaults.
 * @msg: the note, starting "note: ", NUL-terminated, at most @len bytes;
 * "" when there is none (may be NULL when @len is 0).
 * Return: true when there is a note; false for NULL @c.
 */
bool sb_contract_advice(const struct sb_preempt_policy *pol,
			const struct sb_contract *c, enum sb_requeue_bar bar,
			int64_t shortest, int64_t longest,
			int64_t max_min_runtime, char *msg, size_t len);

/*
 * sb_preempt_action_str - what happens to a victim of @action, for logs
 * and `sbudget show job` (static storage), e.g. "requeued, restarts from
 * its beginning (not resumable)".
 */
const char *sb_preempt_action_str(enum sb_preempt_action action);

/*
 * sb_preempt_victim_key - a 32-bit key, *lower* = preempted first, so that
 * a preemption loses as little work as it can:
 *   bit 31     allocated (unallocated victims go first);
 *   bit 30     loses its run: not (resumable and requeueable), so resumable
 *              victims go before those that restart or are cancelled;
 *   bits 20-29 work lost, floor(8 * log2(1 + TRES-seconds of the current
 *              run, sb_run_seconds())) capped at 1023: least work lost
 *              first (steps of 2^(1/8), about 9%);
 *   bits 0-19  the victim's current priority level (sb/priority.h), lowest
 *              standing first among victims that lose about as much.
 * Slurm sorts candidates by this key ascending (PREEMPT_DATA_PRIO).
 */
uint32_t sb_preempt_victim_key(const struct sb_preempt_job *victim,
			       int64_t now);

/*
 * sb_preempt_victim_class - the two top bits of sb_preempt_victim_key()
 * (allocated, loses its run) as a number 0-3: for every @now,
 * sb_preempt_victim_key(victim, now) >> 30.  A lower class comes first
 * in victim order whatever the rest of the key, so a caller may order
 * the victims of one class without computing the keys of the others.
 */
uint32_t sb_preempt_victim_class(const struct sb_preempt_job *victim);

/*
 * sb_preempt_victim_cmp - qsort(3)-style comparison of two victims by
 * sb_preempt_victim_key(), ties by earlier start (the younger run loses
 * less).  @now is the time of the decision.
 */
int sb_preempt_victim_cmp(const struct sb_preempt_job *a,
			  const struct sb_preempt_job *b, int64_t now);

/*
 * sb_preempt_reclaim_ok - KAI-Scheduler's reclaim rule (doc/design.md,
 * "preempt/budget"): a victim of another budget is taken only if, after the
 * transfer, the preemptor's side is still no more over-used than the
 * victim's, so that the next cycle does not want to reverse it
 * (ping-pong).  Judged where the two budgets' paths diverge: siblings p
 * (the preemptor's side) and v (the victim's) under one parent:
 *
 *     S_p / (U_p + delta)  >=  S_v / U_v
 *
 * computed cross-multiplied (S_p * U_v >= S_v * (U_p + delta)), so no
 * division, no infinity.
 * @s_p, @s_v:  shares of the two siblings, normalised among their siblings
 *              (or raw: they share a parent), >= 0;
 * @u_p, @u_v:  their subtrees' usage in the window, charged plus the
 *              committed rest of running jobs' min runtimes, TRES-seconds;
 * @delta:      what the preemptor commits by starting: its charged TRES x
 *              its min runtime, TRES-seconds.
 * A victim side without shares (S_v = 0) is always reclaimable.  Any
 * negative or NaN argument gives false (no preemption on bad data).
 */
bool sb_preempt_reclaim_ok(double s_p, double u_p, double delta, double s_v,
			   double u_v);

/*
 * sb_repair_reason_matches - does a node's drain @reason call for automated
 * repair (RepairReason glob, case-insensitive)?  False when the pattern is
 * empty or @reason is NULL.
 */
bool sb_repair_reason_matches(const struct sb_preempt_policy *pol,
			      const char *reason);

/*
 * sb_repair_release_at - when a job on a node drained for repair is
 * released: at sb_preempt_protected_until(); INT64_MAX (never) when the
 * job is not resumable and @pol keeps such jobs (SB_ACTION_NONE).
 */
int64_t sb_repair_release_at(const struct sb_preempt_policy *pol,
			     const struct sb_preempt_job *job);

/*
 * sb_preempt_warn_at - when the user of an interactive job (salloc, srun
 * outside a batch job: no batch script, so never resumable, see
 * sb_contract_of_job()) is told that the job's protected slice is about
 * to end and that from then on it may be cancelled for a better-placed
 * budget (a lost interactive session cannot be resumed).
 *
 *     warn_at = max(start + 1, sb_preempt_protected_until(job) - lead)
 *
 * with lead = @pol->interactive_warning seconds: a slice not longer than
 * the lead is announced in the job's first second (start + 1, not start: a
 * caller's tick in the second the job started may have run before it).  INT64_MAX (never) when nothing is
 * worth a warning: @interactive is false (a batch job has no terminal; a
 * resumable one gets PreemptGraceTime's SIGTERM), the lead is <= 0 (off),
 * the job is unallocated (no protection: preemptable from its start), its
 * min runtime is 0, or the site keeps jobs that are not resumable
 * (PreemptNonResumable=keep: it is never preempted).  Suspended time
 * moves the slice's end, so it moves the warning too (a job suspended
 * after its warning is warned again before the new end).  NULL arguments
 * give INT64_MAX.
 */
int64_t sb_preempt_warn_at(const struct sb_preempt_policy *pol,
			   const struct sb_preempt_job *job, bool interactive);

/*
 * sb_preempt_warn_due - whether the warning of sb_preempt_warn_at() falls
 * in (@last, @now]: a caller that asks once per tick with @last = the
 * previous tick's @now warns each run exactly once (a warning due while
 * the caller was not running, last > warn_at, is not sent late).
 * False when @now <= @last.
 */
bool sb_preempt_warn_due(const struct sb_preempt_policy *pol,
			 const struct sb_preempt_job *job, bool interactive,
			 int64_t last, int64_t now);

#endif /* SB_PREEMPT_H */
