/*
 * ledger_internal.h - the ledger's records, shared by ledger.c (buckets,
 * sums, reads) and ledger_json.c (save and load) only.
 */
#ifndef SB_CORE_LEDGER_INTERNAL_H
#define SB_CORE_LEDGER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb/ledger.h"

/*
 * One association's ring.  b[0..nslots) are allocated sums, b[nslots..2n)
 * unallocated ones; bucket k lives in slot k % nslots.  The ring holds
 * buckets head-nslots+1 .. head (those >= 0).  b is NULL until the first
 * charge, so idle associations cost no buckets.
 *
 * Window sums (sb_ledger_sync()): when wok, wsum[0] and wsum[1] are the
 * sums of the allocated and unallocated buckets wlo..whi, the window of
 * the last sync as row_usage() computes it, so a read at that window costs
 * O(1).  Kept only while the row is exact: every amount ever added to it
 * and every bucket is a whole number of TRES-seconds of at most EXACT_MAX,
 * so every partial sum over at most nslots buckets is an integer below
 * 2^53 and summing in any order gives the same double, bit for bit.  A
 * charge inside wlo..whi adds to the sums; moving the head takes the
 * buckets that leave the ring off them (and raises wlo); moving it a whole
 * ring or more, or spreading a saved bucket, drops them (wok false) until
 * the next sync.
 */
struct row {
	int64_t head;
	double *b;
	int64_t wlo, whi;
	double wsum[2];
	bool wok;
	bool exact;
};

/* Largest bucket (and amount) of an exact row: (nslots <= 100001 < 2^17)
 * x 2^36 < 2^53.  2^36 GPU-seconds is 19 million GPUs for an hour. */
#define EXACT_MAX ((double)((int64_t)1 << 36))

struct sb_ledger {
	const struct sb_tree *tree;
	int64_t window, width;
	uint32_t nslots;	/* window / width + 1 */
	uint32_t n;		/* rows = associations of the tree */
	uint32_t *ids;		/* association id of each row (own copy) */
	struct row *rows;
};

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static inline int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* A ledger of @window and @width over @tree's associations, every row
 * empty, without checking the arguments; NULL when out of memory. */
struct sb_ledger *sb__ledger_alloc(const struct sb_tree *tree,
				   int64_t window, int64_t width);
/* Free @rows (@n of them) and their buckets; NULL is fine. */
void sb__ledger_free_rows(struct row *rows, uint32_t n);
/* Make row @r hold bucket @k (its ring allocated on first use, or its head
 * moved forward).  Return: SB_OK or SB_ENOMEM. */
int sb__row_reach(const struct sb_ledger *l, struct row *r, int64_t k);
/* The oldest bucket row @r still holds (inline: read in every charge and
 * every window sum). */
static inline int64_t sb__row_oldest(const struct sb_ledger *l,
				     const struct row *r)
{
	return max64(0, r->head - (int64_t)l->nslots + 1);
}
/* @amount was added to bucket @k of row @r, which now holds @value: keep
 * the window sums, or give them up when the row is no longer exact. */
void sb__row_note(struct row *r, int64_t k, double amount, double value,
		  bool allocated);
/* Add @alloc and @unalloc saved for [@s, @s + @len) to row @r, spread
 * evenly over the buckets it overlaps.  Return: SB_OK or SB_ENOMEM. */
int sb__row_spread(const struct sb_ledger *l, struct row *r, int64_t s,
		   int64_t len, double alloc, double unalloc);
/* Report association @id as dropped: into @dropped while @cap allows;
 * *@n counts every one. */
void sb__note_dropped(uint32_t id, uint32_t *dropped, size_t cap, size_t *n);

#endif /* SB_CORE_LEDGER_INTERNAL_H */
