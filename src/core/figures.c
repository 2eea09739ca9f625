/* figures.c - owed, delivered and unallocated per budget; see sb/figures.h
 * for the definitions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/figures.h"
#include "sb/preempt.h"

size_t sb_fig_nslots(int64_t from, int64_t to, int64_t slot)
{
	if (to <= from || slot <= 0)
		return 0;
	return (size_t)((to - from + slot - 1) / slot);
}

bool sb_run_work_lost(bool requeued, bool preempted_cancel, bool resumable)
{
	return preempted_cancel || (requeued && !resumable);
}

double sb_fig_ratio(const struct sb_fig *f)
{
	if (!f || !(f->owed > 0))
		return 1;
	return f->capped / f->owed;
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Add @tres x |[a, b) ∩ slot k| to row[k] for every slot.  Slots are
 * [from + k*slot, min(from + (k+1)*slot, to)). */
static void spread(double *row, int64_t a, int64_t b, int64_t from,
		   int64_t to, int64_t slot, double tres)
{
	int64_t lo = max64(a, from), hi = min64(b, to);
	int64_t k;

	if (hi <= lo || !(tres > 0))
		return;
	for (k = (lo - from) / slot; from + k * slot < hi; k++) {
		int64_t s0 = from + k * slot, s1 = min64(s0 + slot, to);
		int64_t d = min64(hi, s1) - max64(lo, s0);

		if (d > 0)
			row[k] += (double)d * tres;
	}
}

int sb_figures(const struct sb_tree *tree, const struct sb_fig_seg *segs,
	       size_t nsegs, int64_t from, int64_t to, int64_t slot,
	       int64_t now, double capacity, struct sb_fig *total,
	       struct sb_fig *series, size_t *unknown)
{
	size_t ns = sb_fig_nslots(from, to, slot), k, j;
	double *dem = NULL, *del = NULL, *una = NULL, *lst = NULL;
	uint32_t n, i;
	int rc = SB_ENOMEM;

	if (unknown)
		*unknown = 0;
	if (!tree || !total || !sb_tree_finalized(tree) || ns == 0 ||
	    !(capacity >= 0) || !isfinite(capacity) || (nsegs && !segs))
		return SB_EINVAL;
	n = sb_tree_count(tree);
	if (n == 0)
		return SB_OK;
	dem = calloc((size_t)n * ns, sizeof(*dem));
	del = calloc((size_t)n * ns, sizeof(*del));
	una = calloc((size_t)n * ns, sizeof(*una));
	lst = calloc((size_t)n * ns, sizeof(*lst));
	if (!dem || !del || !una || !lst)
		goto out;
	memset(total, 0, n * sizeof(*total));

	for (j = 0; j < nsegs; j++) {
		const struct sb_fig_seg *s = &segs[j];
		int64_t end = s->end ? s->end : now;
		size_t row = (size_t)s->index * ns;

		if (s->index >= n) {
			if (unknown)
				(*unknown)++;
			continue;
		}
		if (s->start) {
			int64_t ran = sb_run_charged_to(s->start, s->suspended,
							end);

			spread((s->allocated ? del : una) + row, s->start, ran,
			       from, to, slot, s->tres);
			if (s->lost)
				spread(lst + row, s->start, ran, from, to,
				       slot, s->tres);
		}
		if (s->allocated && s->eligible)
			spread(dem + row, s->eligible, end, from, to, slot,
			       s->tres);
	}
	/* Subtree sums: indices are pre-order, a parent's index is below its
	 * children's, so adding each row to its parent's from the last index
	 * down sums every subtree exactly once. */
	for (i = n; i-- > 0;) {
		uint32_t p = sb_tree_node(tree, i)->parent;

		if (p == SB_NONE)
			continue;
		for (k = 0; k < ns; k++) {
			dem[(size_t)p * ns + k] += dem[(size_t)i * ns + k];
			del[(size_t)p * ns + k] += del[(size_t)i * ns + k];
			una[(size_t)p * ns + k] += una[(size_t)i * ns + k];
			lst[(size_t)p * ns + k] += lst[(size_t)i * ns + k];
		}
	}
	for (i = 0; i < n; i++) {
		double ent = sb_tree_node(tree, i)->entitled;

		for (k = 0; k < ns; k++) {
			size_t c = (size_t)i * ns + k;
			int64_t s0 = from + (int64_t)k * slot;
			int64_t len = min64(s0 + slot, to) - s0;
			struct sb_fig f;

			f.delivered = del[c];
			f.unallocated = una[c];
			f.lost = lst[c];
			f.demand = dem[c];
			f.quota = ent * capacity * (double)len;
			f.owed = f.demand < f.quota ? f.demand : f.quota;
			f.capped = f.delivered < f.owed ? f.delivered : f.owed;
			total[i].delivered += f.delivered;
			total[i].unallocated += f.unallocated;
			total[i].lost += f.lost;
			total[i].demand += f.demand;
			total[i].quota += f.quota;
			total[i].owed += f.owed;
			total[i].capped += f.capped;
			if (series)
				series[c] = f;
		}
	}
	rc = SB_OK;
out:
	free(dem);
	free(del);
	free(una);
	free(lst);
	return rc;
}

int sb_fig_window(const struct sb_fig *series, uint32_t count, size_t nslots,
		  size_t per, struct sb_fig *total)
{
	uint32_t i;
	size_t w, k;

	if (!total || per == 0 || (count && nslots && !series))
		return SB_EINVAL;
	for (i = 0; i < count; i++) {
		const struct sb_fig *row = series + (size_t)i * nslots;
		struct sb_fig *t = &total[i];

		memset(t, 0, sizeof(*t));
		for (w = 0; w < nslots; w += per) {
			double dem = 0, quo = 0, del = 0, owed;

			for (k = w; k < nslots && k < w + per; k++) {
				dem += row[k].demand;
				quo += row[k].quota;
				del += row[k].delivered;
				t->unallocated += row[k].unallocated;
				t->lost += row[k].lost;
			}
			/* owed_w = min(quota_w, demand_w); capped_w =
			 * min(delivered_w, owed_w) */
			owed = dem < quo ? dem : quo;
			t->demand += dem;
			t->quota += quo;
			t->delivered += del;
			t->owed += owed;
			t->capped += del < owed ? del : owed;
		}
	}
	return SB_OK;
}

int sb_fig_all_teams(const struct sb_fig *fig, uint32_t count,
		     const uint32_t *teams, uint32_t nteams,
		     struct sb_fig_all *out)
{
	uint32_t k;

	if (!out)
		return SB_EINVAL;
	*out = (struct sb_fig_all){ .ratio = 1, .worst = SB_NONE,
				    .worst_ratio = 1 };
	if (nteams && (!fig || !teams))
		return SB_EINVAL;
	for (k = 0; k < nteams; k++)
		if (teams[k] >= count)
			return SB_EINVAL;
	for (k = 0; k < nteams; k++) {
		const struct sb_fig *f = &fig[teams[k]];
		double r = sb_fig_ratio(f);

		out->owed += f->owed;
		out->capped += f->capped;
		if (!(f->owed > 0))
			continue;
		out->teams_owed++;
		if (out->worst == SB_NONE || r < out->worst_ratio) {
			out->worst = k;
			out->worst_ratio = r;
		}
	}
	if (out->owed > 0)
		out->ratio = out->capped / out->owed;
	return SB_OK;
}

int sb_fig_usable(const struct sb_fig_seg *segs, size_t nsegs, int64_t from,
		  int64_t to, int64_t slot, int64_t now, double capacity,
		  double *usable)
{
	size_t ns = sb_fig_nslots(from, to, slot), k, j;
	double *dem;

	if (!usable || ns == 0 || !(capacity >= 0) || !isfinite(capacity) ||
	    (nsegs && !segs))
		return SB_EINVAL;
	*usable = 0;
	if (!(dem = calloc(ns, sizeof(*dem))))
		return SB_ENOMEM;
	for (j = 0; j < nsegs; j++)
		if (segs[j].eligible)
			spread(dem, segs[j].eligible,
			       segs[j].end ? segs[j].end : now, from, to, slot,
			       segs[j].tres);
	for (k = 0; k < ns; k++) {
		int64_t s0 = from + (int64_t)k * slot;
		double cap = capacity * (double)(min64(s0 + slot, to) - s0);

		*usable += dem[k] < cap ? dem[k] : cap;
	}
	free(dem);
	return SB_OK;
}
