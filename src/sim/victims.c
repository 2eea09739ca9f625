/*
 * victims.c - preemption in the simulator: may a pending job that does not
 * fit start by taking running jobs' GPUs, and whose?
 *
 * Budget policy, as preempt/budget does it: every running job the core
 * may accept is asked to it, sb_preempt_decide(), before it is taken (an
 * unallocated preemptor never preempts;
 * the victim's minimum runtime, its *current* priority against the
 * preemptor's, PreemptNonResumable=keep, and for an allocated victim of
 * another budget the reclaim rule where the two budgets' paths diverge,
 * on the budget view as of the last recalculation, charge.c); the
 * accepted ones are taken in sb_preempt_victim_key() order (then the later
 * start, then input order) only until the job would fit, and nobody is
 * preempted if even all of them would not make it fit.  As Slurm's
 * cons_tres does, the victim that made the job fit is then put first and
 * the candidates taken again until it fits (its reorder pass: no victim
 * that others made needless), and the victims actually preempted are the
 * taken ones on the nodes the job is then placed on.  Each stops after
 * its own grace time (sb_preempt_grace(): allocated resumable victims
 * only); the preemptor starts when the last has stopped.
 *
 * Baseline policy (the static-class system, for comparison): a job within its team's cap
 * takes preemptible runs (over their team's cap), lowest class first, then
 * least work lost, then the later start; no grace time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

/* Whether @me may preempt running @rj at @now, as far as is known
 * without asking the core: false if it may not; true if it may
 * (baseline) or the core is to be asked (budget: sim__victim_ok()). */
static bool victim_maybe(const struct sim *s,
			 const struct sb_preempt_party *me,
			 const struct run_info *rj, int64_t now)
{
	if (rj->party.job.start > now)
		return false;	/* a preemptor still in its grace wait */
	if (!sim__is_budget(s))
		return rj->preemptible;
	/* Pre-filter, the same answer as the core's: for an allocated
	 * preemptor and a victim not in its grace time (the sim's running
	 * jobs never are: a victim leaves s->run_info when preempted),
	 * sb_preempt_decide() refuses (SB_PREEMPT_PROTECTED or _INTERVAL)
	 * when now < sb_preempt_hold_until(victim), the value kept in
	 * prot_until.  Saves the call for most running jobs (benchmark:
	 * doc/sim.md, "Speed"). */
	return !(me->job.contract.allocated && !rj->party.in_grace &&
		 now < rj->prot_until);
}

/* Whether a refusal @vd of the core holds whatever the budget view: it
 * reads only the two jobs' contracts, their current priorities and the
 * time (sb/preempt.h, sb_preempt_check(); sb/view.h,
 * sb_preempt_hold_until()).  The others (the reclaim rule, the cost, no
 * view) read the view, which every recalculation changes; PreemptLossWait
 * (SB_PREEMPT_LOSS_WAIT) is counted with them: it ends with time alone,
 * and a refusal that read the view is asked again at the next
 * recalculation ("failed tries, kept"). */
static bool view_free(enum sb_preempt_verdict vd)
{
	return vd == SB_PREEMPT_UNALLOCATED || vd == SB_PREEMPT_PROTECTED ||
	       vd == SB_PREEMPT_OUTRANKED || vd == SB_PREEMPT_KEPT ||
	       vd == SB_PREEMPT_INTERVAL || vd == SB_PREEMPT_ENDS_SOONER;
}

/* engine.h; "failed tries, kept" below for s->view_read. */
bool sim__victim_ok(struct sim *s, const struct sb_preempt_party *me,
		    const struct run_info *rj, int64_t now)
{
	enum sb_preempt_verdict vd;

	if (!victim_maybe(s, me, rj, now))
		return false;
	if (!sim__is_budget(s))
		return true;
	vd = sb_preempt_decide(&s->preempt_policy, &s->view, me, &rj->party,
			       now, NULL, 0);
	if (vd != SB_PREEMPT_YES && !view_free(vd))
		s->view_read = true;
	return vd == SB_PREEMPT_YES;
}

/* The running jobs @me may preempt at @now, into s->candidates (unordered).
 * Return their number.  Budget: a candidate's key holds only its class
 * (sb_preempt_victim_class(), the key's top two bits); the rest of the
 * key is computed when the taking reaches its class (sim__next_in_order()).
 * @defer (budget): only the refusals known without the core are made
 * here; the core's verdict (sim__victim_ok()) is asked when the taking
 * reaches the candidate's class. */
static size_t gather(struct sim *s, const struct sb_preempt_party *me,
		     int64_t now, bool defer)
{
	/* a run that ranks at least as high as an allocated preemptor is
	 * refused by the core, view-free (sim__outranked()) */
	const uint32_t pr = sim__rank_bar(s, me);
	size_t i, n = 0;

	for (i = 0; i < s->nrunning; i++) {
		const struct run_info *rj = &s->run_info[i];
		struct victim_candidate *c = &s->candidates[n];

		if (!victim_maybe(s, me, rj, now) ||
		    sim__outranked(pr, rj) ||
		    (!defer && !sim__victim_ok(s, me, rj, now)))
			continue;
		c->job = rj->job;
		c->start = rj->party.job.start;
		c->run_index = (uint32_t)i;
		c->lost = 0;
		if (sim__is_budget(s)) {
			c->key = sb_preempt_victim_class(&rj->party.job) << 30;
		} else {
			c->key = (uint32_t)sim__bclass(&s->w->jobs[rj->job]);
			c->lost = (double)rj->party.job.tres *
				  (double)(now - c->start);
		}
		n++;
	}
	return n;
}

/* s->scratch_cluster := the cluster as it is now. */
static void tmp_reset(struct sim *s)
{
	memcpy(s->scratch_cluster.free, s->cluster.free,
	       s->cluster.nodes * sizeof(*s->cluster.free));
	memcpy(s->scratch_cluster.nfree, s->cluster.nfree,
	       s->cluster.nodes * sizeof(*s->cluster.nfree));
	s->scratch_cluster.total_free = s->cluster.total_free;
	s->scratch_cluster.nofit = UINT32_MAX;
}

/* What a job of @gpus asks of the nodes of @gpn GPUs: g GPUs on one node
 * (all a node has, for a multi-node job) and need such nodes. */
struct node_need {
	uint32_t g;	/* GPUs asked of one node */
	uint32_t need;	/* nodes that must give g; 1 for a job that fits
			 * on one node */
};

static struct node_need node_need_of(uint32_t gpn, uint32_t gpus)
{
	struct node_need n = {
		.g = gpus <= gpn ? gpus : gpn,
		.need = sim_nodes_needed(gpn, gpus),
	};

	return n;
}

/* One more node gives @n->g GPUs, *@w nodes counted before it: whether
 * that is enough (a single-node job needs that one; a multi-node job
 * counts it in *@w). */
static bool node_enough(const struct node_need *n, uint32_t *w)
{
	return n->need <= 1 || ++*w >= n->need;
}

/* Would a job of @gpus fit if all @nc candidates were preempted?  Per node:
 * free + the candidates' GPUs (cheap; spares the victim order when the
 * answer is no). */
static bool all_would_fit(struct sim *s, uint32_t gpus, size_t nc,
			  uint32_t *wholep)
{
	const struct node_need n = node_need_of(s->cluster.gpn, gpus);
	uint64_t freeable = s->cluster.total_free;
	uint32_t a, gpn = s->cluster.gpn, whole = 0;
	size_t k;
	bool fits = false;

	for (k = 0; k < nc; k++)
		freeable += s->w->jobs[s->candidates[k].job].gpus;
	if (freeable < gpus) {
		/* a bound on the nodes that could be emptied (still_fails()):
		 * a multi-node run holds whole nodes, maybe more GPUs than
		 * it asked for */
		if (n.need > 1) {
			freeable = s->cluster.total_free;
			for (k = 0; k < nc; k++) {
				const struct job_state *v =
					&s->job_state[s->candidates[k].job];

				freeable += (uint64_t)v->nnodes *
					    (uint64_t)__builtin_popcountll(
						    v->gpu_mask);
			}
		}
		*wholep = freeable / gpn < UINT32_MAX ?
			  (uint32_t)(freeable / gpn) : UINT32_MAX;
		return false;
	}
	tmp_reset(s);
	for (k = 0; k < nc; k++) {
		const struct job_state *v = &s->job_state[s->candidates[k].job];

		for (a = 0; a < v->nnodes; a++)
			s->scratch_cluster
				.nfree[s->r->nodes[v->node_off + a]] +=
				(uint32_t)__builtin_popcountll(v->gpu_mask);
	}
	for (a = 0; a < s->cluster.nodes && !fits; a++)
		fits = s->scratch_cluster.nfree[a] >= n.g &&
		       node_enough(&n, &whole);
	*wholep = whole;
	return fits;
}

/* Take candidates in victim order (@o; NULL: the @nc in the order
 * s->candidates already has), releasing their GPUs in s->scratch_cluster,
 * only until a job of @gpus fits there.  Return how many were taken, 0 if
 * even all of them do not make it fit; the taken ones are then
 * s->candidates[0..k) in victim order (the order of the rest is
 * unspecified).  Only the victims' nodes change, so only they are looked
 * at. */
static size_t take_until_fits(struct sim *s, uint32_t gpus, size_t nc,
			      struct victim_order *o)
{
	const struct node_need n = node_need_of(s->cluster.gpn, gpus);
	uint32_t a, whole = 0;
	size_t k;
	bool fits = false;

	tmp_reset(s);
	if (n.need > 1)
		for (a = 0; a < s->cluster.nodes; a++)
			whole += s->scratch_cluster.nfree[a] >= n.g;
	for (k = 0; !fits; k++) {
		const struct job_state *v;

		if (o ? !sim__next_in_order(s, k, o) : k >= nc)
			break;
		v = &s->job_state[s->candidates[k].job];
		for (a = 0; a < v->nnodes; a++) {
			uint32_t node = s->r->nodes[v->node_off + a];

			sim_release(&s->scratch_cluster, &node, 1, v->gpu_mask);
			if (s->scratch_cluster.nfree[node] >= n.g &&
			    node_enough(&n, &whole))
				fits = true;
		}
	}
	return fits ? k : 0;
}

/*
 * Never more victims than needed: the last of the @k taken candidates is
 * the one that made the job fit, and it may make some taken before it
 * needless (a 4-GPU victim freeing a node on which a 1-GPU one was taken
 * first).  As cons_tres's reorder pass does (PreemptParameters=
 * reorder_count, default 1; doc/design.md), put it first, keep the others
 * in victim order, and take again until the job fits.  Return the new
 * count (<= @k), s->scratch_cluster as the taking left it.
 */
static size_t trim_taken(struct sim *s, uint32_t gpus, size_t k)
{
	struct victim_candidate last;
	size_t k2;

	if (k < 2)
		return k;
	last = s->candidates[k - 1];
	memmove(s->candidates + 1, s->candidates,
		(k - 1) * sizeof(*s->candidates));
	s->candidates[0] = last;
	k2 = take_until_fits(s, gpus, k, NULL);
	if (!k2) {	/* cannot happen: all k fitted before; be safe */
		memmove(s->candidates, s->candidates + 1,
			(k - 1) * sizeof(*s->candidates));
		s->candidates[k - 1] = last;
		return take_until_fits(s, gpus, k, NULL);
	}
	return k2;
}

/* Of the first @k candidates, those on the @nn nodes in s->placed_nodes (node
 * level, as cons_tres does), into s->victims.  Return their number. */
static uint32_t victims_on_nodes(struct sim *s, size_t k, uint32_t nn)
{
	uint32_t a, b, nvict = 0;
	size_t i;

	for (i = 0; i < k; i++) {
		const struct job_state *v = &s->job_state[s->candidates[i].job];
		bool on = false;

		for (a = 0; a < v->nnodes && !on; a++)
			for (b = 0; b < nn && !on; b++)
				on = s->r->nodes[v->node_off + a] ==
				     s->placed_nodes[b];
		if (on)
			s->victims[nvict++] = s->candidates[i].job;
	}
	return nvict;
}

/* GPUs the @nvict victims free beyond the preemptor's need stay theirs
 * until each stops, @now + its grace time (an EV_RELEASE then): taken out
 * of the cluster meanwhile.  Victims without a grace time hold theirs only
 * when leftovers are held until the end of the pass. */
static int hold_leftovers(struct sim *s, uint32_t nvict, int64_t now)
{
	uint32_t i, a;

	for (i = 0; i < nvict; i++) {
		const struct job_state *v = &s->job_state[s->victims[i]];
		int64_t grace = sim__grace(s, s->victims[i]);
		int64_t until = now + grace;

		if (!grace && !s->p->hold_leftovers)
			continue;

		for (a = 0; a < v->nnodes; a++) {
			uint32_t node = s->r->nodes[v->node_off + a];
			uint64_t m = v->gpu_mask & s->cluster.free[node];
			uint32_t cnt = (uint32_t)__builtin_popcountll(m);

			if (!m)
				continue;
			if (s->nholds == s->holds_cap) {
				size_t cap = s->holds_cap ? 2 * s->holds_cap
							  : 64;
				void *h = realloc(s->holds,
						  cap * sizeof(*s->holds));

				if (!h) {
					sim__oom(s);
					return -1;
				}
				s->holds = h;
				s->holds_cap = cap;
			}
			s->cluster.free[node] &= ~m;
			s->cluster.nfree[node] -= cnt;
			s->cluster.total_free -= cnt;
			s->gpus_held += cnt;
			sim__node_dirty(s, node);
			s->cluster_version++;
			s->holds[s->nholds].node = node;
			s->holds[s->nholds].mask = m;
			sim__push(s, until, EV_RELEASE, (uint32_t)s->nholds, 0);
			s->nholds++;
		}
	}
	return 0;
}

/* ------------------------------------------------ failed tries, kept */

/*
 * Most preemption tries fail (92% at 2.5x demand: doc/benchmarks.md,
 * section 4), and a job that failed is tried again at the next pass,
 * usually after one run ended on one node.  A try fails exactly when no
 * node could give the job room: for a job of at most a node's GPUs, on no
 * node are free GPUs + GPUs of the runs it may preempt (sim__victim_ok()) >=
 * its GPUs; for a multi-node job, fewer nodes than it needs could be
 * emptied.  Between two recalculations (the priorities and the budget
 * view are fixed) that room on a node grows only when a run there stops,
 * held GPUs there come back, or a run's protection there ends
 * (sim__room_changed()); a start takes free GPUs and adds at most as many
 * preemptable ones; as time passes the preemption cost only grows
 * (sb_preempt_cost()), so runs only leave the candidates, but for a
 * PreemptLossWait that ends (a view read, below: asked again at the next
 * recalculation, as Slurm asks at its next pass, so up to CalcPeriod
 * late).  So a failed
 * try is remembered (job_state.fail_room_seq, fail_recalc_epoch,
 * fail_whole_nodes) and the next one in the same epoch looks only at the
 * nodes changed since: it fails as surely as the full try would, with the
 * same (no) side effects.
 *
 * Across recalculations too, when nothing the refusals read changed: a
 * try whose every refusal was view-free (view_free(): the reclaim rule
 * and the cost were never what refused) fails again as long as the
 * preemptor's association kept its standing position and the set of
 * associations above it is the same (s->order_changed_at[fail_position]
 * <= fail_order_epoch, charge.c's order_changes(); a level is a function
 * of the position, so every running job's current priority compares with
 * the preemptor's as it did) and the nodes did not change:
 * a victim that was accepted may be refused now (the view moved), which
 * only makes the try fail more surely.  Most recalculations change no
 * level (14% did on a 156-budget workload), fewer the order above a given
 * position, so most full scans after one are spared.
 *
 * A refusal that read the view holds back only its own node: a try is
 * remembered with the nodes (up to SIM_VIEW_NODES) on which one did and
 * that did not give room (job_state.fail_nview, sim.fail_view_nodes), and
 * after a recalculation those nodes are asked again beside the changed
 * ones; every other node failed for view-free reasons and still does.
 * A try with view reads on more nodes, or outside the node scan (gather(),
 * after the scan passed), is not kept across a recalculation.
 */

/* Remember node @nd as one where a refusal read the view (see above). */
static void note_view_node(struct sim *s, uint32_t nd)
{
	uint32_t i;

	if (s->nview == SIM_VIEW_MANY)
		return;
	for (i = 0; i < s->nview; i++)
		if (s->view_nodes[i] == nd)
			return;
	if (s->nview == SIM_VIEW_NODES) {
		s->nview = SIM_VIEW_MANY;
		return;
	}
	s->view_nodes[s->nview++] = nd;
}

/* The least sb_preempt_rank() of the runs on node @nd (UINT32_MAX: none),
 * kept until a run there starts or stops or a running job's priority
 * changes. */
static uint32_t node_rank(struct sim *s, uint32_t nd)
{
	if (s->node_rank_ok[nd] != s->rank_epoch) {
		const size_t o = (size_t)nd * s->cluster.gpn;
		uint32_t k, m = UINT32_MAX, r;

		for (k = 0; k < s->cluster.gpn; k++) {
			if (!s->gpu_first_n[o + k])
				continue;
			r = sb_preempt_rank(
				&s->run_info[s->gpu_first_run[o + k]].party.job);
			m = r < m ? r : m;
		}
		s->node_min_rank[nd] = m;
		s->node_rank_ok[nd] = s->rank_epoch;
	}
	return s->node_min_rank[nd];
}

/* node_gives() past its first two checks: node @nd has fewer than @g
 * GPUs free, and (baseline, or an allocated preemptor) enough of its
 * runs' GPUs are takeable by @now. */
static bool node_gives_runs(struct sim *s, const struct sb_preempt_party *me,
			    uint32_t nd, int64_t now, uint32_t g)
{
	const size_t o = (size_t)nd * s->cluster.gpn;
	const uint32_t *fr = s->gpu_first_run + o;
	const uint8_t *fn = s->gpu_first_n + o;
	uint32_t k, gpn = s->cluster.gpn, room = s->cluster.nfree[nd],
		    ub = room;
	/* budget: a run that ranks at least as high as an allocated
	 * preemptor is refused by the core (sim__outranked(); no running
	 * job is in its grace time, victim_maybe()); 0: no bar */
	const uint32_t pr = sim__rank_bar(s, me);

	if (!sim__is_budget(s) || me->job.contract.allocated) {
		if (pr && node_rank(s, nd) >= pr)
			return false;	/* every run there ranks as high */
		ub = g;
	} else {
		/* each run once: at its lowest GPU on the node */
		for (k = 0; k < gpn; k++)
			if (fn[k] &&
			    victim_maybe(s, me, &s->run_info[fr[k]], now))
				ub += fn[k];
	}
	if (ub < g)
		return false;
	s->view_read = false;
	for (k = 0; k < gpn && room < g; k++) {
		const struct run_info *rj;

		if (!fn[k])
			continue;
		rj = &s->run_info[fr[k]];
		if (sim__outranked(pr, rj))
			continue;	/* refused: it ranks as high */
		if (sim__victim_ok(s, me, rj, now))
			room += fn[k];
	}
	if (room >= g)
		return true;
	if (s->view_read)
		note_view_node(s, nd);
	return false;
}

/* Whether node @nd could give @me @g GPUs at @now (@g <= its GPUs; all of
 * them: it could be emptied): free, or on runs it may preempt, as
 * all_would_fit() counts them.  The core is asked only when the runs that
 * pass victim_maybe() would be enough, and only until they are.  A node
 * that does not give, with a refusal that read the view, is noted
 * (note_view_node()).  Most nodes are settled by the free GPUs or the
 * kept takeable times, inline; the runs in node_gives_runs(). */
static inline bool node_gives(struct sim *s,
			      const struct sb_preempt_party *me, uint32_t nd,
			      int64_t now, uint32_t g)
{
	const uint32_t room = s->cluster.nfree[nd];
	const size_t o = (size_t)nd * s->cluster.gpn;

	if (room >= g)
		return true;
	/* victim_maybe(), kept: are g - room of the runs' GPUs takeable
	 * by now? */
	if ((!sim__is_budget(s) || me->job.contract.allocated) &&
	    s->node_take_sorted[o + (g - room - 1)] > now)
		return false;
	return node_gives_runs(s, me, nd, now, g);
}

/* Whether no node could give @job room at @now (see above): for a job of
 * at most a node's GPUs, none gives its GPUs; for a multi-node job, fewer
 * than it needs could be emptied, counting @whole (at most that many
 * could be, when its last try failed) and those of the nodes that changed
 * since @since (0: every node, @whole 0).  If so, *@whole is the count. */
static bool nodes_fail(struct sim *s, uint32_t job,
		       const struct sb_preempt_party *me, int64_t now,
		       uint64_t since, uint32_t *whole)
{
	const struct node_need n =
		node_need_of(s->cluster.gpn, s->w->jobs[job].gpus);
	uint32_t nd, w = *whole;
	uint64_t q;

	if (n.need > 1 && w >= n.need)
		return false;
	if (since && s->room_seq - since < SIM_CHLOG &&
	    s->room_seq - since < s->cluster.nodes) {
		/* the changes since, from the log: each node at its last */
		for (q = since + 1; q <= s->room_seq; q++) {
			nd = s->room_log[q & (SIM_CHLOG - 1)];
			if (s->node_room_seq[nd] == q &&
			    node_gives(s, me, nd, now, n.g) &&
			    node_enough(&n, &w))
				return false;
		}
		*whole = w;
		return true;
	}
	for (nd = 0; nd < s->cluster.nodes; nd++) {
		if (since && s->node_room_seq[nd] <= since)
			continue;
		if (node_gives(s, me, nd, now, n.g) && node_enough(&n, &w))
			return false;
	}
	*whole = w;
	return true;
}

/* @job's try failed at @now with at most @whole nodes that could be
 * emptied: remembered (still_fails()), with the nodes where a refusal
 * read the view (s->view_nodes, s->nview). */
static void remember_fail(struct sim *s, uint32_t job, uint32_t whole)
{
	const struct sb_standing_node *sn = sim__is_budget(s) ?
		sb_standing_node(s->standing, s->w->jobs[job].assoc) : NULL;
	struct job_state *x = &s->job_state[job];

	x->fail_position = sn ? sn->position : 0;
	x->fail_room_seq = s->room_seq;
	x->fail_recalc_epoch = s->recalc_epoch;
	x->fail_order_epoch = s->order_epoch;
	x->fail_nview = s->nview;
	x->fail_whole_nodes = whole;
	if (s->nview != SIM_VIEW_MANY)
		memcpy(&s->fail_view_nodes[(size_t)job * SIM_VIEW_NODES],
		       s->view_nodes, s->nview * sizeof(*s->view_nodes));
}

/* Whether @job's try at @now fails as its last one did (see above); if
 * so, it is remembered as failed now. */
static bool still_fails(struct sim *s, uint32_t job,
			const struct sb_preempt_party *me, int64_t now)
{
	struct job_state *x = &s->job_state[job];
	const uint32_t *vn = &s->fail_view_nodes[(size_t)job * SIM_VIEW_NODES];
	const struct node_need n =
		node_need_of(s->cluster.gpn, s->w->jobs[job].gpus);
	uint32_t whole = x->fail_whole_nodes, i;
	bool recalc = x->fail_recalc_epoch != s->recalc_epoch;

	if (!x->fail_room_seq ||
	    (recalc &&
	     (x->fail_nview == SIM_VIEW_MANY ||
	      s->order_changed_at[x->fail_position] > x->fail_order_epoch)))
		return false;
	s->nview = 0;
	if (recalc) {
		/* the view moved: its refusals' nodes are asked again */
		for (i = 0; i < x->fail_nview; i++)
			if (node_gives(s, me, vn[i], now, n.g) &&
			    node_enough(&n, &whole))
				return false;
	} else {
		/* the same view: those nodes still refuse, and are kept */
		s->nview = x->fail_nview;
		if (s->nview != SIM_VIEW_MANY)
			memcpy(s->view_nodes, vn, s->nview * sizeof(*vn));
	}
	if (!nodes_fail(s, job, me, now, x->fail_room_seq, &whole))
		return false;
	remember_fail(s, job, whole);
	return true;
}

/* Try to start pending @job at @now by preempting.  True if it started
 * (the caller takes it out of its queue). */
bool sim__try_preempt(struct sim *s, uint32_t job, int64_t now)
{
	const struct sim_job *j = &s->w->jobs[job];
	struct sb_preempt_party me = {
		.job = { .contract = s->job_state[job].contract,
			 .start = now, .tres = j->gpus,
			 .time_limit = j->time_limit,
			 .eligible = s->job_state[job].queued_at },
		.index = j->assoc,
		.in_grace = false,
	};
	struct victim_order order;
	uint64_t mask;
	uint32_t nn, i, nvict, whole;
	size_t nc, k;
	int64_t grace = 0, g;
	bool defer;

	if (sim__is_budget(s))
		me.job.priority = sim__job_priority(s, job, true);
	if (still_fails(s, job, &me, now))
		return false;
	/* node by node first: most tries fail, and fail there */
	whole = 0;
	s->nview = 0;
	if (nodes_fail(s, job, &me, now, 0, &whole)) {
		remember_fail(s, job, whole);
		return false;
	}
	/* a job within a node (budget): the nodes gave room, so all the
	 * candidates would make it fit (all_would_fit(): the node that gave
	 * has as many free GPUs with them, and a run asks at least as many
	 * GPUs as it holds on one node), and each is asked to the core only
	 * when the taking reaches its class; the check is made, on all of
	 * them, only if the taking fails */
	defer = sim__is_budget(s) && j->gpus <= s->cluster.gpn;
	s->view_read = false;
	nc = gather(s, &me, now, defer);
	if (!defer && !all_would_fit(s, j->gpus, nc, &whole))
		goto fail;
	sim__order_init(s, nc, now, defer ? &me : NULL, &order);
	k = take_until_fits(s, j->gpus, nc, &order);
	if (!k) {
		/* every candidate reached: those accepted at [0..hi) */
		if (defer && !all_would_fit(s, j->gpus, order.hi, &whole))
			goto fail;
		return false;
	}
	k = trim_taken(s, j->gpus, k);
	nn = sim_place(&s->scratch_cluster, j->gpus, s->placed_nodes, &mask);
	nvict = victims_on_nodes(s, k, nn);
	/* the preemptor starts when the last of its victims has stopped */
	for (i = 0; i < nvict; i++)
		if ((g = sim__grace(s, s->victims[i])) > grace)
			grace = g;
	for (i = 0; i < nvict; i++)
		sim__preempt(s, s->victims[i], now);
	nn = sim_place(&s->cluster, j->gpus, s->placed_nodes, &mask);
	if (!nn) {
		snprintf(s->msg, s->msglen, "placement after preemption "
			 "failed (a bug)");
		s->err = -1;
		return false;
	}
	/* the victims hold their leftovers until they stop (the grace
	 * time); with no grace time, until the end of this pass when
	 * hold_leftovers (Slurm: a victim completes after the cycle that
	 * chose it) */
	if (hold_leftovers(s, nvict, now))
		return false;
	/* budget: an allocated preemptor is protected for its min runtime;
	 * baseline: a preemptor is within its team's cap, non-preemptible.
	 * Either way it cannot be taken back at once (no ping-pong). */
	sim__start(s, job, now + grace, nn, mask,
		   sim__is_budget(s) ? !sim__allocated(s, job) : false);
	return true;
fail:
	if (s->view_read)	/* not tied to a node */
		s->nview = SIM_VIEW_MANY;
	remember_fail(s, job, whole);
	return false;
}
