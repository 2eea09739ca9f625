/*
 * sb/view.h - the budget view: the one place where a job's contract as it
 * runs, committed usage, and the full preemption verdict are decided.
 *
 * priority/budget, preempt/budget, sbudget and sbudget-sim only gather
 * inputs (a job's tag, start, priority, charged TRES, association) and act
 * on what these functions answer.  No Slurm, no clock: times are seconds on
 * any common scale, given by the caller.
 *
 * A view is a tree plus two usage arrays, one entry per tree index, each a
 * subtree sum (an entry includes its descendants):
 *   charged    windowed allocated usage as the ledger has it (TRES-seconds;
 *              sb_ledger_usage_all(..., subtree = true));
 *   committed  the uncharged rest of running allocated jobs' minimum
 *              runtimes (TRES-seconds; sb_view_commit()).
 * The standing's input and the reclaim rule's U are charged + committed
 * (sb_view_usage()); see "Committed usage" in doc/design.md for why.
 */
#ifndef SB_VIEW_H
#define SB_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/contract.h"
#include "sb/preempt.h"
#include "sb/tree.h"

/*
 * sb_contract_of_job - the contract a job runs under, from the tag at the
 * start of its AdminComment (sb_contract_format()) and what the resource
 * manager can do with it.
 * @tag:        the AdminComment, may be NULL;
 * @requeue_ok: the job can be requeued (in Slurm: a batch job whose
 *              requeue flag is set), copied to out->requeueable; when
 *              false the job is not resumable whatever its tag says,
 *              since a requeue would fail and the job be killed instead.
 * A job without a valid tag (started before the plugins were loaded, or
 * submitted around job_submit/budget) is *unallocated*: min runtime 0,
 * charged to nobody, preemptable at once, never a preemptor.  Nothing that
 * no budget backs is protected or charged.
 * Return: SB_OK (from the tag) or SB_EMISSING (no valid tag: the default
 * above was written), SB_EINVAL for a NULL @out.
 */
int sb_contract_of_job(const char *tag, bool requeue_ok,
		       struct sb_contract *out);

/*
 * sb_contract_of_fields - as sb_contract_of_job() for a job whose contract
 * is known as values rather than a tag (the simulator's jobs): the same
 * answer as for the tag sb_contract_format() would write for them.
 * @min_runtime: seconds; negative for a job without a contract; above
 *               SB_DURATION_MAX is not a valid tag either (unallocated).
 * Return: SB_OK, SB_EMISSING (unallocated), SB_EINVAL for a NULL @out.
 */
int sb_contract_of_fields(int64_t min_runtime, bool resumable,
			  bool requeue_ok, struct sb_contract *out);

/*
 * sb_contract_job_allocated - only whether a job runs allocated, for hot
 * paths (Slurm's queue sort): sb_contract_tag_allocated() == 1, so a job
 * without a valid tag is unallocated, as sb_contract_of_job() says.
 */
bool sb_contract_job_allocated(const char *tag);

/*
 * sb_run_allocated - whether a run of a job is charged to its budget
 * (allocated usage) or to nobody (unallocated), the one rule for charging
 * and for sbudget's figures.
 * @tag:       the job's AdminComment (may be NULL);
 * @run_start: when the run started, seconds since the epoch;
 * @cutover:   budget.conf Cutover, when the cluster switched to these
 *             plugins (seconds since the epoch), 0 for none.
 * A run with a valid tag is charged as its tag says.  A run without one
 * that started before the cutover ran under the priority plugin the site
 * had before (priority/multifactor charges every job to its association),
 * so it is charged to its budget: the lookback window after the switch
 * starts from the use that really happened, not empty.  Any other run
 * without a tag is unallocated (sb_contract_of_job()).  Charging only:
 * such a run is still unallocated for preemption (no contract protects it).
 */
bool sb_run_allocated(const char *tag, int64_t run_start, int64_t cutover);

/*
 * What a job holds of the charged TRES (ChargeTRES, GPUs), the one rule for
 * charging, committed usage, the reclaim rule's delta and sbudget: see
 * "The job's effective GPUs" in doc/design.md.  Filled by sb_job_tres()
 * (sb/job.h) from a job's facts; counts are whole TRES units.
 */
struct sb_hold {
	uint64_t tres;		/* allocated (a run that started) or
				 * requested (pending), for the whole job */
	bool whole_nodes;	/* it takes its nodes whole (Slurm:
				 * --exclusive, or a partition with
				 * OverSubscribe=EXCLUSIVE): no other job may
				 * use anything on them */
	uint32_t nodes;		/* nodes it holds, or (pending) at least will
				 * hold */
	uint32_t named;		/* of which known by name: its allocation, or
				 * (pending) the nodes it requires (-w);
				 * <= nodes, or taken as nodes */
	uint64_t named_tres;	/* ChargeTRES configured on the named nodes,
				 * summed */
	uint64_t other_min;	/* pending: ChargeTRES configured on the
				 * least-equipped node it may still get
				 * (one of its partition's nodes able to hold
				 * its per-node request); 0 when unknown */
};

/*
 * sb_held_tres - the charged TRES a job holds (a run that started) or will
 * hold (pending): @h->tres, except that a job taking its nodes whole holds
 * everything configured on them, which no other job can use:
 *     held = whole_nodes ? max(tres, named_tres + (nodes - named) x other_min)
 *                        : tres
 * A pending whole-node job's figure is a lower bound (the fewest it can
 * get: the scheduler picks its other nodes), never below what it asked
 * for.  Saturates at UINT64_MAX.  @h NULL: 0.
 * Used for the pending preemptor's reclaim delta, sbudget's GPUs, and
 * (through Slurm's allocation, which already gives a whole-node job its
 * nodes' GRES) what a running job is charged and committed for.
 */
uint64_t sb_held_tres(const struct sb_hold *h);

/*
 * sb_committed_rest - TRES-seconds of @job's minimum runtime not yet run at
 * @now: tres x (start + min_runtime + suspended - now), i.e. tres x
 * (sb_preempt_protected_until() - now), for an allocated job that has
 * started (start <= now) and is inside its minimum runtime; 0 otherwise.
 * While a job is suspended its rest stays the same (suspended grows with
 * now).
 * Counted as committed usage: protected from preemption, it will be
 * charged unless the job ends early.
 */
double sb_committed_rest(const struct sb_preempt_job *job, int64_t now);

/* Levels of an association tree the view handles (deeper trees are refused
 * by sb_view_init()); Slurm itself has no limit, real trees have 3-6. */
#define SB_VIEW_MAX_DEPTH 64

/* A budget view; see the top of this file.  Fill with sb_view_init(). */
struct sb_view {
	const struct sb_tree *tree;	/* borrowed, finalized */
	uint32_t n;			/* sb_tree_count(tree) */
	double *charged;		/* n entries, subtree sums */
	double *committed;		/* n entries, subtree sums */
};

/*
 * sb_view_init - a view of @tree with every usage 0.  @tree must outlive
 * the view.  Return: SB_OK; SB_EINVAL (NULL, unfinalized tree, or a tree
 * deeper than SB_VIEW_MAX_DEPTH), SB_ENOMEM.  On error @v is left empty
 * (safe to sb_view_free()).
 */
int sb_view_init(struct sb_view *v, const struct sb_tree *tree);

/* sb_view_free - free the arrays; @v may be NULL or empty. */
void sb_view_free(struct sb_view *v);

/*
 * sb_view_set_charged - copy @usage (n entries, subtree sums, TRES-seconds,
 * as sb_ledger_usage_all(..., true, ...) writes) into the charged array.
 * Return: SB_OK; SB_EINVAL (NULL, or a negative or non-finite entry: the
 * previous values are kept).
 */
int sb_view_set_charged(struct sb_view *v, const double *usage);

/* sb_view_clear_committed - committed usage back to 0 everywhere. */
void sb_view_clear_committed(struct sb_view *v);

/*
 * sb_view_commit - add @job's sb_committed_rest() at @now to association
 * @index and every ancestor.  A job with nothing committed is a no-op.
 * Return: SB_OK; SB_EINVAL (NULL, index out of range).
 */
int sb_view_commit(struct sb_view *v, uint32_t index,
		   const struct sb_preempt_job *job, int64_t now);

/*
 * sb_view_usage - charged + committed of association @index's subtree,
 * TRES-seconds; 0 for an index out of range.  This is the standing's input
 * (sb_view_usage_all()) and the reclaim rule's U.
 */
double sb_view_usage(const struct sb_view *v, uint32_t index);

/*
 * sb_view_usage_all - sb_view_usage() of every index into @out (n
 * entries), for sb_standing_compute_usage().  Return: SB_OK, SB_EINVAL.
 */
int sb_view_usage_all(const struct sb_view *v, double *out);

/*
 * sb_tree_diverge - where the paths of associations @a and @b part: the
 * two siblings (@pa an ancestor-or-self of @a, @pb of @b) with a common
 * parent (or both at the top level).  Return: true with @pa/@pb set; false
 * when @a == @b, one is the other's ancestor, or an index is out of range.
 */
bool sb_tree_diverge(const struct sb_tree *tree, uint32_t a, uint32_t b,
		     uint32_t *pa, uint32_t *pb);

/* One side of a preemption question. */
struct sb_preempt_party {
	struct sb_preempt_job job;	/* contract, start, current priority,
					 * charged TRES */
	uint32_t index;		/* tree index of its association, SB_NONE
				 * when unknown */
	bool in_grace;		/* a victim already being preempted (its
				 * grace time runs): on its way out */
	bool preempted;		/* the job was preempted before (an earlier
				 * run of it ended by a preemption) */
	int64_t preempted_at;	/* when: the time its last preemption was
				 * decided (the grace time began), seconds;
				 * ignored unless @preempted.  The plugins
				 * read it from the victim's SystemComment
				 * (budget:preempted_by=...,at=EPOCH), the
				 * simulator keeps it per job */
};

/*
 * Hysteresis: at equilibrium two budgets of equal
 * standing would take turns at min-runtime granularity, each turn paying
 * a grace time, a requeue delay and, for a job that cannot resume, all the
 * work of its run.  Two rules damp that:
 *
 * 1. The interval.  A job preempted at P is held until
 *        P + PreemptIntervalFactor x min_runtime
 *    (sb_preempt_hold_until()): however the standings swing, no job is
 *    preempted more often than once per factor x its min runtime.  The
 *    contract alone already gives once per min runtime + grace + requeue
 *    delay (a requeued job runs its min runtime again), so factor 1 adds
 *    nothing; the default 2 doubles that.  Unallocated jobs (min runtime
 *    0) are never held.
 *
 * 2. The cost margin.  Between two budgets, a preemption must pay for
 *    itself: the reclaim rule (sb_preempt_reclaim_ok()) must still hold
 *    when the preemptor's side is charged, besides its own commitment
 *    delta, the preemption's cost C (sb_preempt_cost()):
 *        S_p x U_v  >=  S_v x (U_p + delta + C)
 *        C = T_v x (grace + requeue_delay + lost)
 *        lost = 0 for a resumable victim (it checkpoints in its grace
 *               time), else min(run, factor x min_runtime): the run
 *               thrown away, counted up to the interval of rule 1
 *    with T_v the victim's charged TRES and run its run seconds
 *    (sb_run_seconds()).  In words: after the transfer, and after paying
 *    what the preemption wastes (the victim's GPUs during the grace time,
 *    its wait to start again, the work it loses), the preemptor's side is
 *    still no more over-used than the victim's.  With equal shares: the
 *    victim's side must have used delta + C more than the preemptor's.
 *    Why this measure: C is TRES-seconds the preemption spends, and the
 *    reclaim rule's U is TRES-seconds of usage, the standing's input, so
 *    the margin is the usage gap that buys the preemption.  Why lost is
 *    capped: uncapped, a long non-resumable run would grow its cost as
 *    fast as its budget's usage grows, and become immune for ever; capped,
 *    the gap outgrows it and the contract (past its min runtime a job runs
 *    only while its budget outranks the queue) holds, only later.
 *
 * 3. One restart.  A job that cannot resume and was preempted before
 *    (requeued, it restarted from its beginning) is not preempted again:
 *    it is held until it ends.  Measured in sbudget-sim (doc/benchmarks.md,
 *    section 7): requeueing non-resumable victims instead of cancelling
 *    them, with rules 1 and 2 alone, quadrupled the GPU-hours thrown away
 *    (a long job with a short min runtime was restarted at the end of
 *    every slice and never finished); any finite hold shorter than such a
 *    job throws its whole run away again when it ends (tried: a hold of
 *    MaxMinRuntime lost 61,649 GPU-h against 67,698 without, 17,388 with
 *    this rule, on the 1.2x workload).  The price: once restarted, a job
 *    keeps its GPUs to its end whatever its budget's standing, a
 *    protection beyond its declared min runtime; it is charged all it
 *    runs, as every job is, and it paid for the protection with the run
 *    it lost.  PreemptNonResumable=cancel avoids both (the job is gone
 *    instead).
 */

/*
 * sb_preempted_note_at - whether a job was preempted before, and when: the
 * at= (@at, seconds since the epoch) of the last
 * "budget:preempted_by=<id>,at=<epoch>,..." note in @system_comment, the
 * note preempt/budget writes when it starts preempting a job (Slurm keeps
 * the SystemComment across requeues and restarts, unlike preempt_time).
 * A release for repair writes its own note after it and keeps this one, so
 * a job released for repair still counts as preempted before.  False (and
 * @at 0) for NULL, no note, or a damaged one.  The plugins and sbudget
 * read the hold inputs (rules 1 and 3) through this one function.
 */
bool sb_preempted_note_at(const char *system_comment, int64_t *at);

/*
 * sb_preempted_note - the last "budget:preempted_by=..." note in
 * @system_comment, the one sb_preempted_note_at() reads: a pointer into
 * @system_comment and its length in @len (up to white space or ';'), for a
 * writer that must keep it (a release for repair).  NULL (@len 0) without
 * one.
 */
const char *sb_preempted_note(const char *system_comment, size_t *len);

/*
 * Stop notes: the words preempt/budget writes when it stops a running job,
 * "budget:preempted_by=<job>,at=<epoch>,preemptor_priority=<p>,
 * victim_priority=<p>" and "budget:released_for_repair=<node>,at=<epoch>"
 * (keys in any order; unknown keys are a newer plugin's and ignored).  It
 * writes them into the job's SystemComment (read by the holds, above) and
 * the same words at the end of its AdminComment, after the contract tag
 * and any administrator's text: slurmctld sends the AdminComment, not the
 * SystemComment, with each run's completion record to slurmdbd, so the
 * record of the run that was stopped carries them.  A requeued job keeps
 * its AdminComment, so a later run's record carries the note too: its
 * at= says which run it belongs to (sb_stop_note_of_run()).
 */
#define SB_STOP_NOTE_NODE_MAX 128

struct sb_stop_note {
	bool preempted;		/* budget:preempted_by=... */
	uint32_t by_job;	/* the preemptor's job id, > 0 */
	int64_t at;		/* seconds since the epoch; 0 if not given */
	uint32_t preemptor_priority;
	uint32_t victim_priority;
	bool repair;		/* budget:released_for_repair=... */
	char node[SB_STOP_NOTE_NODE_MAX];	/* the node, NUL-terminated */
};

/*
 * sb_stop_note_parse - the last stop note in @s (a SystemComment or an
 * AdminComment: a word, after the start, white space or ';', that begins
 * "budget:preempted_by=" or "budget:released_for_repair="; other words,
 * the contract tag among them, are skipped) into *@out (zeroed first).
 * Return: 1 when one was found, 0 when none (or @s NULL), -1 when the last
 * one is damaged (a value not a number in range, a job id 0, an empty or
 * too long node name).
 */
int sb_stop_note_parse(const char *s, struct sb_stop_note *out);

/*
 * sb_stop_note_of_run - whether @n was written during the run that started
 * at @start and ended at @end (seconds since the epoch; @end <= 0: still
 * running): start <= at <= end.  A requeued job's later run inherits the
 * note in its AdminComment; this tells the run that was stopped from the
 * ones after it.  False for a NULL @n, no note, an at= of 0 or an unknown
 * start (<= 0).
 */
bool sb_stop_note_of_run(const struct sb_stop_note *n, int64_t start,
			 int64_t end);

/*
 * sb_note_merge - @text with its stop-note words taken out (a word here
 * runs up to white space; each goes with the white space in front of it;
 * other text is kept byte for byte but for white space at its start and
 * end, dropped), then the
 * stop-note words of @from appended, each after one space (none in front
 * of the first if nothing is left of @text).  preempt/budget writes a
 * victim's AdminComment as sb_note_merge(AdminComment, new SystemComment);
 * job_submit/budget keeps the notes through an administrator's new
 * AdminComment as sb_note_merge(new, old).  The contract tag, at the start
 * of @text, stays there.  NULL @text or @from read as "".
 * Return: as snprintf: the length of the whole result (without the NUL);
 * at most @len - 1 bytes and a NUL are written to @buf (nothing if @len is
 * 0, so sb_note_merge(t, f, NULL, 0) + 1 is the size to allocate).
 */
size_t sb_note_merge(const char *text, const char *from, char *buf,
		     size_t len);

/*
 * sb_preempt_hold_until - the first second at which @victim may be
 * preempted under @pol: sb_preempt_protected_until() of its job, or, for
 * an allocated job that was preempted before, the later of that and
 * preempted_at + interval_factor x min_runtime (rule 1 above; saturating);
 * INT64_MAX (never) for such a job that is not resumable (rule 3).
 * A NULL @pol reads as the defaults.  INT64_MIN for a NULL @victim.
 */
int64_t sb_preempt_hold_until(const struct sb_preempt_policy *pol,
			      const struct sb_preempt_party *victim);

/*
 * sb_preempt_min_gap - the bound on preemptions of one job: the fewest
 * seconds under @pol between the decision of a job's @k-th preemption
 * (k >= 1) and the decision of its next one, for a job of contract @c:
 *   - allocated, requeued to resume (sb_preempt_action() REQUEUE): the
 *     larger of interval_factor x min_runtime (rule 1: the interval from
 *     the last preemption) and requeue_delay + min_runtime (the requeue
 *     delay, then the protected min runtime of the new run);
 *   - allocated and not resuming (restarted: rule 3 holds it to its end;
 *     cancelled: gone; kept: never preempted): INT64_MAX, no next one;
 *   - unallocated and requeued: sb_restart_delay(@pol, @c, @k), the wait
 *     before it may start again (it may be preempted as it starts);
 *   - unallocated and cancelled, or kept: INT64_MAX.
 * With the defaults (PreemptIntervalFactor=2, requeue delay 121 s,
 * UnallocatedRestartBackoffMax=1 day) a job of min runtime 15 min is
 * preempted at most once per 30 min, one that cannot resume at most
 * once, and an unallocated job after 121, 242, 484 ... s: at most 11
 * times in the 2 days from its first preemption, then once a day.  The rules it sums are
 * enforced by sb_preempt_decide() and the requeue (preempt/budget,
 * priority/budget's restart backoff, the simulator); sbudget-sim checks
 * every repeat preemption against it.  Not bounded by it: a release for
 * repair (sb_repair_release_at(): at the end of the min runtime), an
 * admin's requeue, and, without priority/budget, the unallocated backoff
 * (on Slurm 22.05 it comes at the next recalculation).  A NULL @pol reads
 * as the defaults;
 * a NULL @c or @k 0 gives 0 (no bound).  Saturating.
 */
int64_t sb_preempt_min_gap(const struct sb_preempt_policy *pol,
			   const struct sb_contract *c, uint32_t k);

/*
 * sb_preempt_cost - C of rule 2 above, TRES-seconds: what preempting
 * running @victim at @now costs under @pol: T x (grace_time +
 * requeue_delay + lost), lost = 0 if the victim is resumable, else
 * min(run seconds at @now, interval_factor x min_runtime).  0 for a NULL
 * @victim or one without TRES.  A NULL @pol reads as the defaults.
 */
double sb_preempt_cost(const struct sb_preempt_policy *pol,
		       const struct sb_preempt_job *victim, int64_t now);

/*
 * sb_preempt_decide - the full verdict: may pending @preemptor take running
 * @victim's resources at @now?  In this order:
 *   1. an unallocated preemptor never preempts (SB_PREEMPT_UNALLOCATED);
 *   2. a victim already in its grace time is on its way out for any
 *      allocated preemptor (SB_PREEMPT_YES: counting on its resources is
 *      better than taking another job);
 *   3. sb_preempt_check() (protected, outranked, kept, ends sooner);
 *   4. an allocated victim preempted less than the interval ago:
 *      now < sb_preempt_hold_until() (SB_PREEMPT_INTERVAL);
 *   5. with a view, a preemptor in the debug lane (sb_lane_preemptor(),
 *      sb/lane.h) takes the victim (SB_PREEMPT_YES): the lane
 *      is bounded per budget instead of by the reclaim rule; but a victim
 *      of its own association (same index, not SB_NONE) only when the
 *      preemptor's in-team priority is higher (else SB_PREEMPT_OUTRANKED):
 *      within a budget the lane changes nothing;
 *   6. an allocated victim of another budget: with no view (@v NULL: the
 *      priority plugin is not priority/budget, no standing is known),
 *      SB_PREEMPT_NOVIEW; otherwise the reclaim rule at the point where
 *      the two associations' paths diverge (sb_tree_diverge()):
 *      sb_preempt_reclaim_ok(S_p, U_p, delta, S_v, U_v) with S the
 *      siblings' shares_norm, U their sb_view_usage(), and delta =
 *      preemptor's TRES x its min runtime (SB_PREEMPT_RECLAIM); then the
 *      same with delta + sb_preempt_cost() (SB_PREEMPT_COSTLY, the
 *      hysteresis above).  Same association, or one the other's
 *      ancestor, or an unknown index: in-team priority decided in step 3;
 *   7. where the answer would be yes for an allocated victim (same budget,
 *      or the reclaim rule and its cost hold), PreemptLossWait:
 *      sb_preempt_loss_waits() (SB_PREEMPT_LOSS_WAIT).  A lane preemptor
 *      (step 5) never waits.
 * Whether the freed resources suffice is the caller's (Slurm's select
 * plugin, the simulator's placement).
 * @why: when not NULL, a sentence for logs and `sbudget show job` naming
 * the rule and, for the reclaim rule and PreemptLossWait, its figures (at
 * most @len bytes).
 */
enum sb_preempt_verdict sb_preempt_decide(const struct sb_preempt_policy *pol,
					  const struct sb_view *v,
					  const struct sb_preempt_party *preemptor,
					  const struct sb_preempt_party *victim,
					  int64_t now, char *why, size_t len);

#endif /* SB_VIEW_H */
