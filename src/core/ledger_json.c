/*
 * ledger_json.c - the ledger (and the accrual records beside it) saved as
 * JSON and loaded back: the format is in sb/ledger.h.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ledger_internal.h"
#include "sb/error.h"
#include "sb/ledger.h"

#define FORMAT_NAME "slurm-budget-ledger"

/* ------------------------------------------------------------- JSON out */

/* json_object_object_add that takes ownership of @v and reports NULL. */
static int put(struct json_object *obj, const char *key,
	       struct json_object *v)
{
	if (!v)
		return SB_ENOMEM;
	if (json_object_object_add(obj, key, v)) {
		json_object_put(v);
		return SB_ENOMEM;
	}
	return SB_OK;
}

static int push(struct json_object *arr, struct json_object *v)
{
	if (!v)
		return SB_ENOMEM;
	if (json_object_array_add(arr, v)) {
		json_object_put(v);
		return SB_ENOMEM;
	}
	return SB_OK;
}

/* The buckets of row @r as [[start, allocated, unallocated], ...]. */
static int row_to_json(const struct sb_ledger *l, const struct row *r,
		       struct json_object *arr)
{
	int64_t k;

	for (k = sb__row_oldest(l, r); k <= r->head; k++) {
		double a = r->b[k % l->nslots];
		double u = r->b[l->nslots + k % l->nslots];
		struct json_object *bk;

		if (a == 0.0 && u == 0.0)
			continue;
		if (!(bk = json_object_new_array()))
			return SB_ENOMEM;
		if (push(arr, bk) ||
		    push(bk, json_object_new_int64(k * l->width)) ||
		    push(bk, json_object_new_double(a)) ||
		    push(bk, json_object_new_double(u)))
			return SB_ENOMEM;
	}
	return SB_OK;
}

int sb_ledger_to_json(const struct sb_ledger *ledger,
		      const struct sb_accrual *acc, char **out)
{
	struct json_object *root = NULL, *assocs, *jobs = NULL;
	const char *text;
	uint32_t i;
	int rv = SB_ENOMEM;

	if (!ledger || !out)
		return SB_EINVAL;
	*out = NULL;
	if (!(root = json_object_new_object()) ||
	    put(root, "format", json_object_new_string(FORMAT_NAME)) ||
	    put(root, "version", json_object_new_int(SB_LEDGER_FORMAT_VERSION)) ||
	    put(root, "window", json_object_new_int64(ledger->window)) ||
	    put(root, "bucket_width", json_object_new_int64(ledger->width)) ||
	    put(root, "unit", json_object_new_string("TRES-seconds")) ||
	    put(root, "associations", assocs = json_object_new_array()))
		goto out;
	for (i = 0; i < ledger->n; i++) {
		const struct row *r = &ledger->rows[i];
		struct json_object *a, *bk;

		if (!r->b)
			continue;
		if (push(assocs, a = json_object_new_object()) ||
		    put(a, "id", json_object_new_int64(ledger->ids[i])) ||
		    put(a, "buckets", bk = json_object_new_array()) ||
		    row_to_json(ledger, r, bk))
			goto out;
	}
	if (acc) {
		if (sb__accrual_to_json(acc, &jobs) || put(root, "jobs", jobs))
			goto out;
	}
	text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	if (!text)
		goto out;
	{
		size_t len = strlen(text);

		if (!(*out = malloc(len + 1)))
			goto out;
		memcpy(*out, text, len + 1);
	}
	rv = SB_OK;
out:
	json_object_put(root);
	return rv;
}

/* -------------------------------------------------------------- JSON in */

int sb__json_int(struct json_object *o, int64_t min, int64_t max,
		 int64_t *out)
{
	int64_t v;

	if (!o || !json_object_is_type(o, json_type_int))
		return SB_ECORRUPT;
	/* json-c clamps larger values to INT64_MAX/MIN: still refused below */
	v = json_object_get_int64(o);
	if (v < min || v > max)
		return SB_ECORRUPT;
	*out = v;
	return SB_OK;
}

int sb__json_sum(struct json_object *o, double *out)
{
	double v;

	if (!o || !(json_object_is_type(o, json_type_double) ||
		    json_object_is_type(o, json_type_int)))
		return SB_ECORRUPT;
	v = json_object_get_double(o);
	if (!isfinite(v) || v < 0)
		return SB_ECORRUPT;
	*out = v;
	return SB_OK;
}

/* Member @key of object @o, of type @t, or NULL. */
static struct json_object *member(struct json_object *o, const char *key,
				  enum json_type t)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, t))
		return NULL;
	return v;
}

/* Load one element of "associations" into @tmp (a fresh ledger). */
static int load_assoc(struct sb_ledger *tmp, struct json_object *a,
		      int64_t doc_width, int64_t now, uint8_t *seen,
		      uint32_t *dropped, size_t cap, size_t *nd)
{
	struct json_object *bks;
	int64_t id, prev = -1;
	uint32_t ix = SB_NONE;
	size_t i, n;
	int rc;

	if (!json_object_is_type(a, json_type_object))
		return SB_ECORRUPT;
	if ((rc = sb__json_int(member(a, "id", json_type_int), 1, UINT32_MAX,
			       &id)))
		return rc;
	if (!(bks = member(a, "buckets", json_type_array)))
		return SB_ECORRUPT;
	if (sb_tree_index(tmp->tree, (uint32_t)id, &ix) != SB_OK)
		ix = SB_NONE;
	else if (seen[ix]++)
		return SB_ECORRUPT;	/* the same id twice */
	n = json_object_array_length(bks);
	for (i = 0; i < n; i++) {
		struct json_object *b = json_object_array_get_idx(bks, i);
		int64_t start, len;
		double al, un;

		if (!json_object_is_type(b, json_type_array) ||
		    json_object_array_length(b) != 3)
			return SB_ECORRUPT;
		if ((rc = sb__json_int(json_object_array_get_idx(b, 0), 0,
				       SB_TIME_MAX - doc_width, &start)) ||
		    (rc = sb__json_sum(json_object_array_get_idx(b, 1), &al)) ||
		    (rc = sb__json_sum(json_object_array_get_idx(b, 2), &un)))
			return rc;
		if (start % doc_width || start <= prev)
			return SB_ECORRUPT;
		prev = start;
		/* usage saved in a bucket @now is inside was all before @now */
		len = (now > start && now - start < doc_width) ? now - start
							       : doc_width;
		if (ix != SB_NONE &&
		    (rc = sb__row_spread(tmp, &tmp->rows[ix], start, len, al, un)))
			return rc;
	}
	/* unknown ids are checked like the others, then reported */
	if (ix == SB_NONE)
		sb__note_dropped((uint32_t)id, dropped, cap, nd);
	return SB_OK;
}

/* Parse the whole of @text as one JSON value, or NULL. */
static struct json_object *parse_all(const char *text, size_t len)
{
	struct json_tokener *tok;
	struct json_object *root;
	size_t end;

	if (len > INT32_MAX || !(tok = json_tokener_new()))
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (root && json_tokener_get_error(tok) == json_tokener_success) {
		end = json_tokener_get_parse_end(tok);
		for (; end < len; end++) {
			char c = text[end];

			if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
				json_object_put(root);
				root = NULL;
				break;
			}
		}
	} else {
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

int sb_ledger_from_json(struct sb_ledger *ledger, struct sb_accrual *acc,
			const char *text, size_t len, uint32_t *dropped,
			size_t cap, size_t *ndropped)
{
	return sb_ledger_from_json_at(ledger, acc, text, len, INT64_MIN,
				      dropped, cap, ndropped);
}

int sb_ledger_from_json_at(struct sb_ledger *ledger, struct sb_accrual *acc,
			   const char *text, size_t len, int64_t now,
			   uint32_t *dropped, size_t cap, size_t *ndropped)
{
	struct json_object *root = NULL, *fmt, *assocs, *jobs = NULL;
	struct sb_accrual *nacc = NULL;
	struct sb_ledger *tmp = NULL;
	uint8_t *seen = NULL;
	int64_t ver, window, width;
	size_t i, n, nd = 0;
	int rv = SB_ECORRUPT;

	if (ndropped)
		*ndropped = 0;
	if (!ledger || !text)
		return SB_EINVAL;
	if (!(root = parse_all(text, len)) ||
	    !json_object_is_type(root, json_type_object))
		goto out;
	fmt = member(root, "format", json_type_string);
	if (!fmt || strcmp(json_object_get_string(fmt), FORMAT_NAME))
		goto out;
	if (sb__json_int(member(root, "version", json_type_int), INT64_MIN,
			 INT64_MAX, &ver))
		goto out;
	if (ver != SB_LEDGER_FORMAT_VERSION) {
		rv = SB_EVERSION;
		goto out;
	}
	if (sb__json_int(member(root, "window", json_type_int), 1,
			 SB_TIME_MAX, &window) ||
	    sb__json_int(member(root, "bucket_width", json_type_int), 1,
			 SB_TIME_MAX, &width) ||
	    window % width || window / width > SB_LEDGER_MAX_BUCKETS ||
	    !(assocs = member(root, "associations", json_type_array)))
		goto out;
	if (json_object_object_get_ex(root, "jobs", &jobs) &&
	    !json_object_is_type(jobs, json_type_array))
		goto out;

	rv = SB_ENOMEM;
	tmp = sb__ledger_alloc(ledger->tree, ledger->window, ledger->width);
	seen = calloc(ledger->n ? ledger->n : 1, 1);
	if (!tmp || !seen)
		goto out;
	n = json_object_array_length(assocs);
	for (i = 0; i < n; i++) {
		rv = load_assoc(tmp, json_object_array_get_idx(assocs, i),
				width, now, seen, dropped, cap, &nd);
		if (rv)
			goto out;
	}
	if (acc && (rv = sb__accrual_from_json(jobs, &nacc)))
		goto out;

	/* commit: nothing above touched @ledger or @acc */
	sb__ledger_free_rows(ledger->rows, ledger->n);
	ledger->rows = tmp->rows;
	tmp->rows = NULL;
	if (acc)
		sb__accrual_swap(acc, nacc);
	if (ndropped)
		*ndropped = nd;
	rv = SB_OK;
out:
	sb_accrual_free(nacc);
	sb_ledger_free(tmp);
	free(seen);
	json_object_put(root);
	return rv;
}
