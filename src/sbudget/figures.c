/*
 * figures.c - owed, delivered and unallocated TRES-seconds per budget over a
 * window, from job run segments (no Slurm).  Definitions in cli.h and
 * sbudget(1), "FIGURES".
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sb/error.h"
#include "sb/preempt.h"

size_t sbc_nslots(int64_t from, int64_t to, int64_t slot)
{
	if (to <= from || slot <= 0)
		return 0;
	return (size_t)((to - from + slot - 1) / slot);
}

static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Add @tres x |[a, b) ∩ slot k| to row[k] for every slot, and return the
 * total added.  Slots are [from + k*slot, min(from + (k+1)*slot, to)). */
static double spread(double *row, int64_t a, int64_t b, int64_t from,
		     int64_t to, int64_t slot, double tres)
{
	int64_t lo = max64(a, from), hi = min64(b, to);
	double sum = 0;
	int64_t k;

	if (hi <= lo || tres <= 0)
		return 0;
	for (k = (lo - from) / slot; from + k * slot < hi; k++) {
		int64_t s0 = from + k * slot, s1 = min64(s0 + slot, to);
		int64_t d = min64(hi, s1) - max64(lo, s0);

		if (d > 0) {
			double v = (double)d * tres;

			if (row)
				row[k] += v;
			sum += v;
		}
	}
	return sum;
}

int sbc_figures(const struct sb_tree *tree, const struct sbc_seg *segs,
		size_t nsegs, int64_t from, int64_t to, int64_t slot,
		int64_t now, double capacity, struct sbc_fig *total,
		struct sbc_fig *series, size_t *unknown)
{
	uint32_t n = sb_tree_count(tree), i;
	size_t ns = sbc_nslots(from, to, slot), k, j;
	double *dem = NULL, *del = NULL, *una = NULL;
	int rc = -1;

	if (unknown)
		*unknown = 0;
	if (!tree || !total || ns == 0 || capacity < 0 || (nsegs && !segs))
		return -1;
	if (n == 0)
		return 0;
	dem = calloc((size_t)n * ns, sizeof(*dem));
	del = calloc((size_t)n * ns, sizeof(*del));
	una = calloc((size_t)n * ns, sizeof(*una));
	if (!dem || !del || !una)
		goto out;
	memset(total, 0, n * sizeof(*total));

	for (j = 0; j < nsegs; j++) {
		const struct sbc_seg *s = &segs[j];
		int64_t end = s->end ? s->end : now;
		uint32_t idx;

		if (sb_tree_index(tree, s->assoc_id, &idx) != SB_OK) {
			if (unknown)
				(*unknown)++;
			continue;
		}
		if (s->start)
			spread((s->allocated ? del : una) + (size_t)idx * ns,
			       s->start,
			       sb_run_charged_to(s->start, s->suspended, end),
			       from, to, slot, s->tres);
		if (s->allocated && s->eligible)
			spread(dem + (size_t)idx * ns, s->eligible, end, from,
			       to, slot, s->tres);
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
		}
	}
	for (i = 0; i < n; i++) {
		double ent = sb_tree_node(tree, i)->entitled;

		for (k = 0; k < ns; k++) {
			size_t c = (size_t)i * ns + k;
			int64_t s0 = from + (int64_t)k * slot;
			int64_t len = min64(s0 + slot, to) - s0;
			double quota = ent * capacity * (double)len;
			double owed = dem[c] < quota ? dem[c] : quota;

			total[i].delivered += del[c];
			total[i].unallocated += una[c];
			total[i].demand += dem[c];
			total[i].quota += quota;
			total[i].owed += owed;
			if (series) {
				series[c].delivered = del[c];
				series[c].unallocated = una[c];
				series[c].demand = dem[c];
				series[c].quota = quota;
				series[c].owed = owed;
			}
		}
	}
	rc = 0;
out:
	free(dem);
	free(del);
	free(una);
	return rc;
}
