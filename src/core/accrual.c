/*
 * accrual.c - per job "charged up to" times, so that periodic charging of
 * running jobs counts every second once (see sb/ledger.h, "Accrual").
 *
 * An open-addressing hash table keyed by job id (0 = empty slot), linear
 * probing, at most half full; deletion shifts later entries back so no
 * tombstones are needed.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sb/error.h"
#include "sb/ledger.h"

struct entry {
	uint32_t job;		/* 0 = empty */
	int64_t to;		/* charged up to, seconds since the epoch */
	double charged;		/* TRES-seconds charged through this record */
};

struct sb_accrual {
	struct entry *slot;
	size_t cap;		/* a power of two, or 0 */
	size_t count;
};

struct sb_accrual *sb_accrual_new(void)
{
	return calloc(1, sizeof(struct sb_accrual));
}

void sb_accrual_free(struct sb_accrual *acc)
{
	if (!acc)
		return;
	free(acc->slot);
	free(acc);
}

/* Fibonacci hashing of @job into [0, cap). */
static size_t home(const struct sb_accrual *acc, uint32_t job)
{
	return (size_t)((job * UINT64_C(11400714819323198485)) >> 32) &
	       (acc->cap - 1);
}

/* The slot of @job, or NULL. */
static struct entry *find(const struct sb_accrual *acc, uint32_t job)
{
	size_t i;

	if (!acc->cap)
		return NULL;
	for (i = home(acc, job);; i = (i + 1) & (acc->cap - 1)) {
		if (acc->slot[i].job == job)
			return &acc->slot[i];
		if (acc->slot[i].job == 0)
			return NULL;
	}
}

/* Place @e in a table known to have room and not to hold it. */
static void place(struct sb_accrual *acc, const struct entry *e)
{
	size_t i = home(acc, e->job);

	while (acc->slot[i].job)
		i = (i + 1) & (acc->cap - 1);
	acc->slot[i] = *e;
}

/* Make room for one more entry.  Return: SB_OK or SB_ENOMEM. */
static int reserve(struct sb_accrual *acc)
{
	struct entry *old = acc->slot;
	size_t ocap = acc->cap, i;

	if ((acc->count + 1) * 2 <= acc->cap)
		return SB_OK;
	acc->cap = ocap ? ocap * 2 : 64;
	acc->slot = calloc(acc->cap, sizeof(*acc->slot));
	if (!acc->slot) {
		acc->slot = old;
		acc->cap = ocap;
		return SB_ENOMEM;
	}
	for (i = 0; i < ocap; i++)
		if (old[i].job)
			place(acc, &old[i]);
	free(old);
	return SB_OK;
}

/* Remove the entry in slot @i, shifting its probe chain back. */
static void remove_at(struct sb_accrual *acc, size_t i)
{
	size_t mask = acc->cap - 1, j = i;

	acc->slot[i].job = 0;
	for (;;) {
		size_t h;

		j = (j + 1) & mask;
		if (!acc->slot[j].job)
			break;
		h = home(acc, acc->slot[j].job);
		/* move j back to i unless its home lies cyclically in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		acc->slot[i] = acc->slot[j];
		acc->slot[j].job = 0;
		i = j;
	}
	acc->count--;
}

int sb_accrual_charge(struct sb_accrual *acc, struct sb_ledger *ledger,
		      uint32_t job_id, uint32_t assoc_index, bool allocated,
		      double tres_count, int64_t run_from, int64_t run_to,
		      double *charged)
{
	struct entry *e, fresh = { .job = job_id, .to = -1 };
	int64_t from;
	double amount = 0.0;
	bool added = false;
	int rc;

	if (charged)
		*charged = 0.0;
	if (!acc || !ledger || job_id == 0)
		return SB_EINVAL;
	if ((rc = sb__ledger_check(ledger, assoc_index, run_from, run_to,
				   tres_count)))
		return rc;
	if (!(e = find(acc, job_id))) {
		if ((rc = reserve(acc)))
			return rc;
		place(acc, &fresh);
		acc->count++;
		e = find(acc, job_id);
		added = true;
	}
	/* charge only [max(run_from, charged_to), run_to) */
	from = run_from > e->to ? run_from : e->to;
	if (from < run_to) {
		rc = sb_ledger_charge(ledger, assoc_index, from, run_to,
				      tres_count, allocated);
		if (rc) {
			if (added)
				remove_at(acc, (size_t)(e - acc->slot));
			return rc;
		}
		amount = (double)(run_to - from) * tres_count;
	}
	if (run_to > e->to)
		e->to = run_to;
	e->charged += amount;
	if (charged)
		*charged = amount;
	return SB_OK;
}

int sb_accrual_get(const struct sb_accrual *acc, uint32_t job_id,
		   int64_t *charged_to, double *charged)
{
	const struct entry *e;

	if (!acc)
		return SB_EINVAL;
	if (!job_id || !(e = find(acc, job_id)))
		return SB_ENOTFOUND;
	if (charged_to)
		*charged_to = e->to;
	if (charged)
		*charged = e->charged;
	return SB_OK;
}

int sb_accrual_forget(struct sb_accrual *acc, uint32_t job_id)
{
	struct entry *e;

	if (!acc)
		return SB_EINVAL;
	if (!job_id || !(e = find(acc, job_id)))
		return SB_ENOTFOUND;
	remove_at(acc, (size_t)(e - acc->slot));
	return SB_OK;
}

size_t sb_accrual_prune(struct sb_accrual *acc, int64_t before)
{
	size_t i, n = 0;

	if (!acc)
		return 0;
	/* a removal may shift a later entry into slot i: look at i again */
	for (i = 0; i < acc->cap;) {
		if (acc->slot[i].job && acc->slot[i].to < before) {
			remove_at(acc, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

size_t sb_accrual_count(const struct sb_accrual *acc)
{
	return acc ? acc->count : 0;
}

/* ------------------------------------------------------------------ JSON */

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->job > y->job) - (x->job < y->job);
}

int sb__accrual_to_json(const struct sb_accrual *acc, struct json_object **out)
{
	struct json_object *arr;
	struct entry *v;
	size_t i, n = 0;
	int rv = SB_ENOMEM;

	*out = NULL;
	if (!(arr = json_object_new_array()))
		return SB_ENOMEM;
	if (!(v = malloc((acc->count ? acc->count : 1) * sizeof(*v))))
		goto out;
	for (i = 0; i < acc->cap; i++)
		if (acc->slot[i].job)
			v[n++] = acc->slot[i];
	qsort(v, n, sizeof(*v), cmp_entry);	/* stable, diffable files */
	for (i = 0; i < n; i++) {
		struct json_object *e = json_object_new_array(), *x[3];
		int k;

		if (!e || json_object_array_add(arr, e)) {
			json_object_put(e);
			goto out;
		}
		x[0] = json_object_new_int64(v[i].job);
		x[1] = json_object_new_int64(v[i].to);
		x[2] = json_object_new_double(v[i].charged);
		for (k = 0; k < 3; k++) {
			if (!x[k] || json_object_array_add(e, x[k])) {
				for (; k < 3; k++)
					json_object_put(x[k]);
				goto out;
			}
		}
	}
	*out = arr;
	arr = NULL;
	rv = SB_OK;
out:
	free(v);
	json_object_put(arr);
	return rv;
}

int sb__accrual_from_json(struct json_object *arr, struct sb_accrual **out)
{
	struct sb_accrual *acc;
	size_t i, n;
	int rc;

	*out = NULL;
	if (!(acc = sb_accrual_new()))
		return SB_ENOMEM;
	n = arr ? json_object_array_length(arr) : 0;
	for (i = 0; i < n; i++) {
		struct json_object *a = json_object_array_get_idx(arr, i);
		struct entry e;
		int64_t job;

		rc = SB_ECORRUPT;
		if (!json_object_is_type(a, json_type_array) ||
		    json_object_array_length(a) != 3 ||
		    sb__json_int(json_object_array_get_idx(a, 0), 1, UINT32_MAX,
				 &job) ||
		    sb__json_int(json_object_array_get_idx(a, 1), 0, SB_TIME_MAX,
				 &e.to) ||
		    sb__json_sum(json_object_array_get_idx(a, 2), &e.charged))
			goto fail;
		e.job = (uint32_t)job;
		if (find(acc, e.job))
			goto fail;	/* the same job twice */
		if ((rc = reserve(acc)))
			goto fail;
		place(acc, &e);
		acc->count++;
	}
	*out = acc;
	return SB_OK;
fail:
	sb_accrual_free(acc);
	return rc;
}

void sb__accrual_swap(struct sb_accrual *a, struct sb_accrual *b)
{
	struct sb_accrual t = *a;

	*a = *b;
	*b = t;
}
