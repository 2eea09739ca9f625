/*
 * sb/ledger.h - usage per association over the lookback window, and the
 * accrual record that keeps periodic charging from counting anything twice.
 *
 * Unit: TRES-seconds of the charged TRES (budget.conf ChargeTRES, default
 * gres/gpu, so GPU-seconds): a job holding 8 GPUs for an hour charges
 * 28800.  Two sums are kept per association and bucket: *allocated* usage
 * (charged to the budget; the only one the standing reads) and *unallocated*
 * usage (charged to nobody, kept for reports).
 *
 * Buckets.  Time is cut into buckets of `width` seconds aligned to the
 * epoch: bucket k covers [k*width, (k+1)*width).  The lookback window at time
 * `now` is the interval (now - window, now]; a bucket counts at `now` when it
 * intersects the window, that is when
 *     start <= now  and  start + width > now - window.
 * So a bucket leaves the window exactly when its END is <= now - window:
 * with window W and a bucket ending at E, it counts at now = E + W - 1 and
 * no longer at now = E + W.  Usage therefore stays in the window between W
 * and W + width seconds, never less.  window must be a multiple of width;
 * each association keeps window/width + 1 buckets in a ring, the newest one
 * being the latest bucket it was charged in.
 *
 * Nothing decays except by leaving the window (no half-life), so a
 * reconfigure, a reload or a restart can never decay anything twice.
 *
 * Propagation: charges are stored on the association charged; the usage of
 * an association is its own plus its whole subtree's, summed when read
 * (sb_ledger_usage(), sb_ledger_usage_all()).  Exact whenever the charges
 * are whole TRES-seconds (whole TRES counts and integer times), as GPU usage
 * is; otherwise equal up to floating-point rounding.
 *
 * Memory: an association's ring is allocated at its first charge,
 * 2 * (window/width + 1) doubles (2.7 KB at the defaults); idle ones cost 0.
 *
 * Times are int64_t seconds since the epoch, in [0, SB_TIME_MAX]; the ledger
 * never reads the clock.  A ledger is not thread-safe: the caller serialises
 * charges and reads (the readers are const and may run concurrently).
 */
#ifndef SB_LEDGER_H
#define SB_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/tree.h"

#define SB_LEDGER_DEFAULT_WINDOW ((int64_t)7 * 24 * 3600)	/* 604800 s */
#define SB_LEDGER_DEFAULT_WIDTH ((int64_t)3600)		/* 1 hour */
/* Most buckets per window (window / width); bounds memory per association. */
#define SB_LEDGER_MAX_BUCKETS 100000
/* Most memory the ledger may need for the site's associations: a window
 * and bucket width whose ledger would take more at the tree's size are not
 * adopted (sb_ledger_fit_width). */
#define SB_LEDGER_MAX_BYTES ((uint64_t)1 << 30)	/* 1 GiB */
/* Latest time accepted, about 34,800 years after the epoch. */
#define SB_TIME_MAX ((int64_t)1 << 40)
/* Largest TRES count one charge may carry (a sanity bound, not a policy). */
#define SB_TRES_MAX 1e12
/* Version of the JSON document written by sb_ledger_to_json(). */
#define SB_LEDGER_FORMAT_VERSION 1

struct sb_ledger;
struct sb_accrual;

/*
 * sb_ledger_bytes - the most memory a ledger of @nassoc associations takes
 * with LookbackWindow @window and BucketWidth @width (seconds): every
 * association's ring of window/width + 1 buckets of two doubles (allocated
 * and unallocated) and its row, as sb_ledger_new() and the first charge of
 * each association allocate them.  A row gets its ring at its first
 * charge, so a ledger with idle associations takes less.
 * Return: bytes; 0 when window or width is not positive.
 */
uint64_t sb_ledger_bytes(uint32_t nassoc, int64_t window, int64_t width);

/*
 * sb_ledger_fit_width - the bucket width to use for @nassoc associations:
 * @width when sb_ledger_bytes() of it is at most @max, else the narrowest
 * multiple of @width that divides @window and fits (@window itself at
 * most: a window of one bucket).
 * Return: that width, seconds; 0 when none fits or an argument is not
 * positive.
 */
int64_t sb_ledger_fit_width(uint32_t nassoc, int64_t window, int64_t width,
			    uint64_t max);

/*
 * sb_ledger_new - an empty ledger for the associations of @tree.
 *
 * @tree:   a finalized tree; the ledger keeps a pointer to it, so it must
 *          outlive the ledger or be replaced first with sb_ledger_rebind().
 *          Rows are the tree's indices.
 * @window: lookback window, seconds, > 0, a multiple of @width.
 * @width:  bucket width, seconds, > 0; window/width <= SB_LEDGER_MAX_BUCKETS.
 * @out:    the new ledger; the caller frees it with sb_ledger_free().
 * Return: SB_OK; SB_EINVAL (NULL or unfinalized tree, NULL @out, window or
 *         width <= 0 or window not a multiple of width), SB_ERANGE (too many
 *         buckets, or window > SB_TIME_MAX), SB_ENOMEM.
 */
int sb_ledger_new(const struct sb_tree *tree, int64_t window, int64_t width,
		  struct sb_ledger **out);

/* sb_ledger_free - free the ledger; NULL is a no-op.  The tree is not freed. */
void sb_ledger_free(struct sb_ledger *ledger);

/* The ledger's window and bucket width, seconds; its tree. */
int64_t sb_ledger_window(const struct sb_ledger *ledger);
int64_t sb_ledger_width(const struct sb_ledger *ledger);
const struct sb_tree *sb_ledger_tree(const struct sb_ledger *ledger);

/*
 * sb_ledger_charge - record that association @assoc_index held @tres_count
 * TRES during [@t_from, @t_to).
 *
 * The interval is split across buckets exactly: bucket k receives
 * (seconds of [t_from, t_to) inside bucket k) * tres_count TRES-seconds.
 * Parts older than the association's ring (more than window/width buckets
 * before the latest bucket it was charged in) have left every window that
 * can still be asked for and are dropped.  t_from == t_to charges nothing.
 * Not idempotent: charging twice counts twice (see sb_accrual_charge()).
 *
 * @allocated: true = allocated (charged) usage, false = unallocated.
 * Return: SB_OK; SB_EINVAL (NULL ledger, index out of range, t_to < t_from),
 *         SB_ENEGATIVE (a negative time or @tres_count), SB_ERANGE (a time
 *         above SB_TIME_MAX, or @tres_count not finite or above
 *         SB_TRES_MAX), SB_ENOMEM (the first charge of an association
 *         allocates its ring).  On error nothing is charged.
 */
int sb_ledger_charge(struct sb_ledger *ledger, uint32_t assoc_index,
		     int64_t t_from, int64_t t_to, double tres_count,
		     bool allocated);

/*
 * sb_ledger_usage - windowed usage at @now, TRES-seconds, of association
 * @assoc_index and its whole subtree: the sum of the buckets that intersect
 * (now - window, now] (see "Buckets" above).  O(subtree size * buckets).
 *
 * @allocated: true = allocated usage, false = unallocated.
 * Return: the usage, >= 0 and finite; 0 for a NULL ledger, an index out of
 * range or a negative @now.  Buckets an association no longer holds (older
 * than its ring) count 0, which matters only for @now earlier than its
 * latest charge.
 */
double sb_ledger_usage(const struct sb_ledger *ledger, uint32_t assoc_index,
		       int64_t now, bool allocated);

/*
 * sb_ledger_usage_all - windowed usage at @now of every association at
 * once, O(n * buckets), O(n) after sb_ledger_sync(@now): the input of the
 * standing.
 *
 * @subtree: out, sb_tree_count() entries: usage of each association and its
 *           subtree, TRES-seconds (parent = own + sum of its children).
 * @own:     out, may be NULL: each association's own charges only.
 * Return: SB_OK; SB_EINVAL (NULL @ledger or @subtree).
 */
int sb_ledger_usage_all(const struct sb_ledger *ledger, int64_t now,
			bool allocated, double *subtree, double *own);

/*
 * sb_ledger_sync - keep each association's sums of the window at @now, so
 * that reads at @now (sb_ledger_usage(), sb_ledger_usage_all(), and
 * sb_standing_compute()) take O(1) per association instead of
 * O(buckets); charges made after the sync keep them.  For a caller that
 * reads the ledger at every recalculation: sync at each new @now, then
 * read.  Moving the window from the last sync's takes off the buckets
 * that left it and adds those that entered, O(buckets moved); a row whose
 * head moved since (a charge in a later bucket) is summed once in full.
 *
 * Reads give the same values with or without it, bit for bit: the sums
 * are kept only for an association whose every charge and bucket is a
 * whole number of TRES-seconds of at most 2^36 (GPU-seconds of whole
 * GPUs over whole seconds: then every sum is exact in any order); one
 * that ever got another amount is summed in full at every read, as
 * without a sync.  Reads at another time than the last sync's are summed
 * in full too.  Optional: nothing else depends on it.
 *
 * Return: SB_OK; SB_EINVAL (NULL @ledger), SB_ERANGE (@now negative or
 *         above SB_TIME_MAX; nothing is changed).
 */
int sb_ledger_sync(struct sb_ledger *ledger, int64_t now);

/*
 * sb_ledger_rebind - move the ledger onto @tree, a new tree for a changed
 * association set: usage follows the association id, so known ids keep
 * theirs (a moved association takes its usage to its new parent); the usage
 * of an association no longer in @tree goes to its nearest ancestor that is
 * (so a deletion never lowers a budget's usage), and is dropped only when
 * none is left.  The ledger's current tree must still be alive.
 *
 * @dropped:  out, may be NULL: up to @cap ids of associations whose usage
 *            was dropped; @ndropped: out, may be NULL: how many there were
 *            in all (may exceed @cap).
 * Return: SB_OK; SB_EINVAL (NULL ledger, NULL or unfinalized tree),
 *         SB_ENOMEM (the ledger is unchanged).
 */
int sb_ledger_rebind(struct sb_ledger *ledger, const struct sb_tree *tree,
		     uint32_t *dropped, size_t cap, size_t *ndropped);

/*
 * sb_ledger_to_json - the ledger (and, when @acc is not NULL, the accrual
 * record) as one JSON document, so that both are saved atomically together:
 *
 *   { "format": "slurm-budget-ledger", "version": 1,
 *     "window": 604800, "bucket_width": 3600, "unit": "TRES-seconds",
 *     "associations": [ { "id": 42,
 *         "buckets": [ [start, allocated, unallocated], ... ] }, ... ],
 *     "jobs": [ [job_id, charged_to, charged], ... ] }
 *
 * Associations are keyed by id, not index; a bucket is its absolute start
 * time (seconds since the epoch, ascending) and its two sums (TRES-seconds);
 * only non-empty buckets still held are written.  Doubles are written so
 * that they read back exactly.  "jobs" appears only with @acc.
 *
 * @out: a NUL-terminated string the caller frees with free().
 * Return: SB_OK; SB_EINVAL (NULL ledger or @out), SB_ENOMEM.
 */
int sb_ledger_to_json(const struct sb_ledger *ledger,
		      const struct sb_accrual *acc, char **out);

/*
 * sb_ledger_from_json - replace the ledger's usage (and @acc's records, when
 * @acc is not NULL) with those of a document written by sb_ledger_to_json().
 *
 * All or nothing: the document is parsed and checked completely first; on
 * any error the ledger and @acc are unchanged.  Refused: not JSON, trailing
 * text, a missing or mistyped member, a time or id out of range, a bucket
 * start not a multiple of the document's width or not ascending, a
 * negative, NaN or infinite sum, a window not a multiple of the width, a
 * duplicated association or job id (SB_ECORRUPT); another "version"
 * (SB_EVERSION).
 *
 * The document's window and width may differ from the ledger's (a
 * reconfigure): each saved bucket is spread evenly over the ledger's buckets
 * it overlaps (exact when the new width divides the old one), and the
 * ledger's own ring keeps what its window needs.  No decay is applied.
 * Associations whose id is not in the ledger's tree are dropped and
 * reported, not an error.  A document without "jobs" empties @acc.  Other
 * members (such as "unit") are ignored.
 *
 * @text, @len: the document (need not be NUL-terminated; at most 2 GiB).
 * @dropped, @cap, @ndropped: as for sb_ledger_rebind().
 * Return: SB_OK; SB_EINVAL (NULL ledger or @text), SB_ECORRUPT,
 *         SB_EVERSION, SB_ENOMEM.
 */
int sb_ledger_from_json(struct sb_ledger *ledger, struct sb_accrual *acc,
			const char *text, size_t len, uint32_t *dropped,
			size_t cap, size_t *ndropped);

/*
 * sb_ledger_from_json_at - sb_ledger_from_json() at time @now (seconds since
 * the epoch): a saved bucket that @now falls inside held only usage from
 * before @now, so when the widths differ it is spread over [start, @now),
 * never over buckets still in the future (which would leave part of it out
 * of the window until they start).  A bucket starting at or after @now
 * (a clock set back) is spread over its whole width.
 */
int sb_ledger_from_json_at(struct sb_ledger *ledger, struct sb_accrual *acc,
			   const char *text, size_t len, int64_t now,
			   uint32_t *dropped, size_t cap, size_t *ndropped);

/*
 * Accrual: idempotent charging for the plugin's periodic accrual.
 *
 * The plugin charges running jobs every cycle, and again when they end.  To
 * charge every second a job ran exactly once, even if the same interval is
 * offered twice (two cycles, the end-of-job call, a restart that reloads an
 * older state), the record keeps per job id the time up to which it has
 * been charged ("charged_to").  sb_accrual_charge() charges only the part of
 * the offered run segment after charged_to, then advances charged_to.
 *
 * The caller passes the job's *current run segment*: from the time it
 * (re)started running (Slurm's start_time, which a requeue resets) to now,
 * or to its end.  Pending time is therefore never offered and never charged;
 * a requeued job is charged for each segment it ran.  The record is saved in
 * the same document as the ledger (sb_ledger_to_json()), so after a restart
 * the next offer charges exactly what ran while the controller was down.
 */

/* sb_accrual_new - an empty record; NULL when out of memory. */
struct sb_accrual *sb_accrual_new(void);

/* sb_accrual_free - free the record; NULL is a no-op. */
void sb_accrual_free(struct sb_accrual *acc);

/*
 * sb_accrual_charge - charge job @job_id for running during
 * [@run_from, @run_to), less what it was already charged for.
 *
 * Charges [max(run_from, charged_to), run_to) to @assoc_index in @ledger
 * with sb_ledger_charge() (@tres_count TRES, @allocated as there), then sets
 * charged_to = max(charged_to, run_to).  An interval already charged, or
 * empty, charges 0 and succeeds.  A job seen for the first time is added.
 *
 * @charged: out, may be NULL: TRES-seconds charged by this call.
 * Return: SB_OK; SB_EINVAL (NULL @acc or @ledger, job id 0), or the errors
 *         of sb_ledger_charge() for the arguments; SB_ENOMEM.  On error
 *         nothing is charged and the record is unchanged.
 */
int sb_accrual_charge(struct sb_accrual *acc, struct sb_ledger *ledger,
		      uint32_t job_id, uint32_t assoc_index, bool allocated,
		      double tres_count, int64_t run_from, int64_t run_to,
		      double *charged);

/*
 * sb_accrual_get - what job @job_id was charged: @charged_to (seconds since
 * the epoch) and @charged (total TRES-seconds through this record); either
 * may be NULL.
 * Return: SB_OK; SB_ENOTFOUND; SB_EINVAL (NULL @acc).
 */
int sb_accrual_get(const struct sb_accrual *acc, uint32_t job_id,
		   int64_t *charged_to, double *charged);

/*
 * sb_accrual_forget - drop job @job_id's record (call when it is purged, not
 * when it is requeued).  Return: SB_OK, SB_ENOTFOUND, SB_EINVAL.
 */
int sb_accrual_forget(struct sb_accrual *acc, uint32_t job_id);

/*
 * sb_accrual_prune - drop every record whose charged_to < @before, e.g.
 * now - window: such a job has not run since, and if it runs again its new
 * segment starts after charged_to anyway.  Return: the number dropped.
 */
size_t sb_accrual_prune(struct sb_accrual *acc, int64_t before);

/* sb_accrual_count - the number of jobs recorded (0 for NULL). */
size_t sb_accrual_count(const struct sb_accrual *acc);

#endif /* SB_LEDGER_H */
