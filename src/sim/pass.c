/*
 * pass.c - the scheduling pass (a "scheduling moment", engine.c).
 *
 * Pass (budget policy): pending jobs in priority order (sb_priority_job,
 * with SB_PRIO_RESUMED for requeued ones; queue.c).  A job that fits
 * starts (first fit, cluster.c).  An allocated job that does not fit tries
 * preemption (victims.c); a victim is requeued (back to the queue after
 * the grace time plus --requeue-delay) or cancelled, as sb_preempt_action()
 * says; a cancelled job is resubmitted by its user --resubmit-delay after
 * it stopped, as a new job with its whole duration (run.c).
 * Backfill: reserve (Slurm's sched/backfill: the first jobs that cannot
 * start get reservations lower jobs may not delay; backfill.c),
 * greedy (a lower job starts whenever it fits now) or none (the pass stops
 * at the first job that cannot start, Slurm's main scheduler).
 *
 * Baseline policy (the static-class system budgets replace, for
 * comparison; doc/sim.md "Baseline policy"): static classes LOW/NORMAL/HIGH
 * from the in-team priority (< 512, 512, > 512), FIFO inside a class.  A
 * job whose team's non-preemptible GPUs plus its own stay within the
 * team's cap (entitled share x cluster GPUs, rounded down) runs
 * non-preemptible; otherwise it runs preemptible on idle GPUs.  A job
 * within its cap that does not fit preempts preemptible runs (victims.c).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/figures.h"
#include "sb/preempt.h"
#include "engine.h"

/* Whether @job may preempt: allocated (budget) or within its cap. */
static bool may_preempt(const struct sim *s, uint32_t job, bool within)
{
	return sim__is_budget(s) ? sim__allocated(s, job) : within;
}

/* Take @job, at position @i of @q before a successful preemption, out of
 * @q: a victim requeued at once may have gone before it. */
static void dequeue_job(struct sim *s, struct pending_queue *q, uint32_t i,
			uint32_t job)
{
	if (i >= q->n || q->entries[i].job != job)
		i = sim__q_find(s, q, job);
	sim__dequeue_at(s, q, i);
}

/* Try @q's job at position @i: start it if it fits, else preempt if it
 * may.  @pf: fewest GPUs of a job that did not fit this pass (a bigger
 * one will not either); @ef: the same for a failed preemption.  Return
 * true if the job started (it left the queue). */
static bool try_job(struct sim *s, struct pending_queue *q, uint32_t i,
		    int64_t now, uint32_t *pf, uint32_t *ef)
{
	uint32_t job = q->entries[i].job, nn;
	const struct sim_job *j = &s->w->jobs[job];
	bool within = sim__is_budget(s) || sim__within_cap(s, j), blocked = false;
	uint64_t mask;

	if (j->gpus < *pf) {
		nn = sim__bf_place(s, job, now, &mask, &blocked);
		if (nn) {
			sim__dequeue_at(s, q, i);
			sim__start(s, job, now, nn, mask, sim__is_budget(s) ?
				   !sim__allocated(s, job) : !within);
			return true;
		}
		if (!blocked)	/* it does not fit, reservations or not */
			*pf = j->gpus;
	}
	/* a job held back by a reservation waits: it does not preempt */
	if (!blocked && may_preempt(s, job, within) && j->gpus < *ef) {
		if (sim__try_preempt(s, job, now)) {
			dequeue_job(s, q, i, job);
			s->bf_cluster_ok = false;	/* cluster changed */
			*pf = UINT32_MAX;	/* leftovers freed */
			return true;
		}
		/* a lane job may fail where a job of the budgets' order
		 * would not (its own budget's victims, in-team priority):
		 * it tells nothing about bigger jobs after it */
		if (!s->job_state[job].lane)
			*ef = j->gpus;
	}
	sim__bf_reserve(s, job, now);
	return false;
}

/* The most GPUs (at most 255) of a job that fits on the cluster now. */
static uint32_t fit_max(struct sim *s)
{
	uint32_t lo = 0, hi = 255;

	if (s->fit_max_version == s->cluster_version)
		return s->fit_max_gpus;
	while (lo < hi) {	/* fitting is monotone in the GPUs */
		uint32_t mid = (lo + hi + 1) / 2;

		if (sim__cl_fits(s, mid))
			lo = mid;
		else
			hi = mid - 1;
	}
	s->fit_max_gpus = lo;
	s->fit_max_version = s->cluster_version;
	return lo;
}

/*
 * Under one reservation, when the pass's state is what it was at the last
 * check that something may still start (the caller's @same), the first
 * position >= @i of @q whose job may do anything: the jobs before it are
 * passed over (as big as a job that did not fit and as one whose
 * preemption failed, or unallocated: @lim), or would fit only on reserved
 * GPUs and run past the reservation's start (as big as a job that did not
 * fit beside it, s->bf_fail_gpus, its time limit's bit length sure to pass
 * the start, and for an allocated job fitting the cluster, so that the pass's
 * shortcut would make it wait, followed by the same check with the same
 * answer).  Reads only the bytes gpus_byte and rem_bits.
 */
static uint32_t next_busy(struct sim *s, const struct pending_queue *q,
			  uint32_t i, uint32_t lim, uint32_t pf, bool unalloc,
			  int64_t now)
{
	int64_t d = s->resv[0].t - now;	/* >= 0: made no earlier */
	uint32_t b0 = d > 0 ? 65 - (uint32_t)__builtin_clzll((uint64_t)d) : 1;
	uint32_t bff = s->bf_fail_gpus, fc = unalloc ? 255 : fit_max(s);

	/* a rem of bit length b >= b0 is >= 2^(b0-1) > d: past the start;
	 * 16 jobs at a time (GCC vector extensions: SIMD where the machine
	 * has it), then one by one */
	typedef uint8_t v16u __attribute__((vector_size(16)));
	typedef int8_t v16s __attribute__((vector_size(16)));
	const v16s none = { 0 }, all = ~none;

	for (; i + 16 <= q->n; i += 16) {
		v16u g, r;
		v16s over, wait;
		uint64_t w[2];

		memcpy(&g, q->gpus_byte + i, sizeof(g));
		memcpy(&r, q->rem_bits + i, sizeof(r));
		over = lim <= 255 ? (v16s)(g >= (uint8_t)lim) : none;
		wait = (v16s)(g != 255) & (v16s)(g <= (uint8_t)fc) &
		       (v16s)(r >= (uint8_t)b0) &
		       (bff <= 255 ? (v16s)(g >= (uint8_t)bff) : none) &
		       (pf <= 255 ? (v16s)(g < (uint8_t)pf) : all);
		over |= wait;
		memcpy(w, &over, sizeof(w));
		if (~w[0] | ~w[1])
			break;	/* one of them may do something */
	}
	for (; i < q->n; i++) {
		uint32_t g = q->gpus_byte[i];

		if (g >= lim)
			continue;
		if (g == 255 || g < bff || g >= pf || g > fc ||
		    q->rem_bits[i] < b0)
			break;
	}
	return i;
}

/*
 * Baseline, with no reservation left to make: the first position >= @i of
 * @q whose job is not surely passed over.  A job is passed over when it
 * would fail as a job with fewer GPUs did (@pf) and may not preempt: as
 * big as a job whose preemption failed (@ef) or over its team's cap.  Per
 * team, that is every job with at least max(pf, min(ef, room + 1)) GPUs
 * (room: its cap less its non-preemptible GPUs running), kept in
 * s->team_thr until pf, ef or a team's GPUs change; then the walk reads
 * two arrays of one or two bytes per job.
 */
static uint32_t next_within(struct sim *s, const struct pending_queue *q,
			    uint32_t i, uint32_t pf, uint32_t ef)
{
	const uint16_t *thr = s->team_thr, *tw = q->team_w;
	const uint8_t *gb = q->gpus_byte;
	uint32_t n = q->n;

	if (!s->thr_ok || s->thr_pf != pf || s->thr_ef != ef ||
	    s->thr_seq != s->team_used_seq) {
		uint32_t t;

		for (t = 0; t <= s->t->n; t++) {
			uint32_t cap = s->team_cap[t], used = s->team_used[t];
			uint32_t a = cap >= used ? cap - used + 1 : 0;

			a = a < ef ? a : ef;
			a = a > pf ? a : pf;
			s->team_thr[t] = (uint16_t)(a > 256 ? 256 : a);
		}
		s->thr_ok = true;
		s->thr_pf = pf;
		s->thr_ef = ef;
		s->thr_seq = s->team_used_seq;
	}
	while (i < n && gb[i] >= thr[tw[i]])
		i++;
	return i;
}

/* A full pass: every group in pass order, every job in queue order, with
 * the skips of try_job()'s @pf/@ef (a job that would fail as a smaller one
 * did is not tried).  Long (over 100 lines) on purpose: the skips, the
 * reservation shortcut and the memo of next_busy()'s answer (c_*) are
 * local state the whole loop shares and updates per job; split into
 * functions they would travel in a context struct through the hottest
 * loop of the simulator, each step reading the others' fields. */
void sim__pass(struct sim *s, int64_t now)
{
	uint32_t pf = UINT32_MAX, ef = UINT32_MAX, gi;
	const bool bud = sim__is_budget(s);
	const uint32_t ngr = bud ? s->npass_order : 3, reserve = s->p->reserve;
	const bool none = s->p->backfill == SIM_BACKFILL_NONE;
	const bool resv = s->p->backfill == SIM_BACKFILL_RESERVE;

	/* the state at the last check that said something may still start
	 * under the reservation (next_busy()) */
	uint32_t c_pf = 0, c_ef = 0, c_bff = 0;
	uint64_t c_clv = 0;
	size_t c_np = 0;
	bool c_ok = false;

	s->r->passes++;
	s->nresv = s->nresv_tried = 0;	/* planned again */
	s->bf_cluster_ok = false;
	s->queued_mid_pass = false;
	for (gi = 0; gi < ngr && !s->err; gi++) {
		uint32_t g = bud ? s->pass_order[gi] : gi;
		struct pending_queue *q = &s->queues[g];
		bool unalloc = bud && g >= s->t->n && g != s->lane_group;
		uint32_t i = 0, lim = unalloc ? pf : pf > ef ? pf : ef;

		if (!q->n || (sim__gmin(q) >= lim &&
			      (!resv || s->nresv_tried >= reserve)))
			continue;	/* nobody here can do anything */
		while (i < q->n && !s->err) {
			uint32_t qg, hi;
			bool fail;

			/* a job at least as big as one that did not fit and
			 * as one whose preemption failed (or unallocated)
			 * is passed over below, with nothing done when no
			 * reservation is left to make: find the next one
			 * that is not, reading only sizes; baseline: sizes
			 * and teams, next_within()) */
			if (bud && !none &&
			    (!resv || s->nresv_tried >= reserve)) {
				uint32_t cur = unalloc ? pf : pf > ef ? pf : ef;

				if (cur <= 255 && q->gpus_byte[i] >= cur)
					i = sim__q_next_below(q, i, cur);
				else if (resv && s->nresv == 1 &&
					 s->bf_cluster_ok &&
					 !s->queued_mid_pass && c_ok &&
					 c_pf == pf && c_ef == ef &&
					 c_bff == s->bf_fail_gpus &&
					 c_clv == s->cluster_version &&
					 c_np == s->npending)
					i = next_busy(s, q, i, cur, pf, unalloc,
						      now);
				if (i >= q->n)
					break;
			} else if (!bud && q->team_w && !none &&
				   (!resv || s->nresv_tried >= reserve)) {
				i = next_within(s, q, i, pf, ef);
				if (i >= q->n)
					break;
			}
			qg = q->entries[i].gpus;
			/* it would fail as a job with fewer GPUs did; or,
			 * under one reservation, beside it as a job with
			 * fewer GPUs did, and it does not end before it */
			fail = qg >= pf ||
			       (resv && s->nresv == 1 && s->bf_cluster_ok &&
				qg >= s->bf_fail_gpus &&
				now + (int64_t)q->entries[i].limit >
					s->resv[0].t);

			/* ... and it may not preempt (unallocated;
			 * baseline: over its team's cap) */
			if (!none && fail &&
			    (qg >= ef || unalloc ||
			     (!bud &&
			      s->team_used[q->entries[i].team] + qg >
				      s->team_cap[q->entries[i].team]))) {
				if (resv && s->nresv_tried < reserve)
					sim__bf_reserve(s, q->entries[i].job,
							now);
				i++;
				continue;
			}
			if (fail && qg < pf && !s->queued_mid_pass &&
			    sim__cl_fits(s, qg)) {
				/* what try_job() would find, without reading
				 * the job: under one reservation
				 * (bf_cluster_ok), as big as a job that did
				 * not fit beside it and running past its
				 * start, it fits only on
				 * reserved GPUs (place_one(): the reservation
				 * binds, its job came earlier in this pass and
				 * is still pending, no job was queued since to
				 * break the pass order), so it waits */
				sim__bf_reserve(s, q->entries[i].job, now);
			} else if (try_job(s, q, i, now, &pf, &ef)) {
				continue;
			}
			if (none)
				return;
			i++;
			hi = pf > ef ? pf : ef;
			if (resv && s->nresv == 1 && s->bf_cluster_ok &&
			    s->nresv_tried >= reserve) {
				/* something may still start: a job that may
				 * fit beside the reservation, or that fits and
				 * ends before it; or preempt */
				uint32_t lo = pf < s->bf_fail_gpus
						      ? pf
						      : s->bf_fail_gpus;

				hi = lo > ef ? lo : ef;
				if (!sim__any_below(s, hi, bud ?
						    lo : hi) &&
				    !sim__any_short(s, pf, s->resv[0].t - now))
					return;
				c_ok = true;
				c_pf = pf;
				c_ef = ef;
				c_bff = s->bf_fail_gpus;
				c_clv = s->cluster_version;
				c_np = s->npending;
			} else if ((!resv || s->nresv_tried >= reserve) &&
				   !sim__any_below(s, hi, bud ?
						   pf : hi)) {
				return;
			}
		}
	}
}

/*
 * A pass when nothing changed since the last one but new jobs arrived (no
 * GPUs freed, no recalculation, no protection ended): every job that
 * failed then would fail again, so only the arrivals are tried, in pass
 * order.  A preemption frees leftovers, so it is followed by a full pass.
 */
static const struct sim *arr_sim;	/* qsort(3) has no context argument */

static int arr_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t gx = arr_sim->pass_rank[sim__group_of(arr_sim, x)];
	uint32_t gy = arr_sim->pass_rank[sim__group_of(arr_sim, y)];

	if (gx != gy)
		return gx < gy ? -1 : 1;
	return sim__q_before(arr_sim, x, y) ? -1 : sim__q_before(arr_sim, y, x);
}

void sim__pass_arrivals(struct sim *s, int64_t now)
{
	size_t k;
	bool again = false;

	s->r->passes++;
	s->bf_cluster_ok = false;	/* rebuilt from the cluster as it is */
	arr_sim = s;
	qsort(s->arrivals, s->narrivals, sizeof(*s->arrivals), arr_cmp);
	for (k = 0; k < s->narrivals && !s->err; k++) {
		uint32_t job = s->arrivals[k], lo, nn;
		const struct sim_job *j = &s->w->jobs[job];
		struct pending_queue *q = &s->queues[sim__group_of(s, job)];
		bool within = sim__is_budget(s) || sim__within_cap(s, j);
		bool blocked;
		uint64_t mask;

		if (s->job_state[job].state != J_PENDING)
			continue;
		if (k && s->arrivals[k - 1] == job)
			continue;
		lo = sim__q_find(s, q, job);	/* its place in its queue */
		if (lo >= q->n || q->entries[lo].job != job) {
			snprintf(s->msg, s->msglen, "queue out of order (a bug)");
			s->err = -1;
			return;
		}
		nn = sim__bf_place(s, job, now, &mask, &blocked);
		if (nn) {
			sim__dequeue_at(s, q, lo);
			sim__start(s, job, now, nn, mask, sim__is_budget(s) ?
				   !sim__allocated(s, job) : !within);
			continue;
		}
		if (!blocked && may_preempt(s, job, within) &&
		    sim__try_preempt(s, job, now)) {
			dequeue_job(s, q, lo, job);
			s->bf_cluster_ok = false;
			again = true;
			continue;
		}
		/* it cannot start: a full pass plans the reservations
		 * again if it should have one */
		again |= sim__bf_wants(s, job);
	}
	if (again && !s->err)
		sim__pass(s, now);
}
