/*
 * internal.h - shared between the core's own files only (the sb__ tier):
 * never installed, never included by plugins.
 */
#ifndef SB_CORE_INTERNAL_H
#define SB_CORE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <json.h>

#include "sb/ledger.h"

/*
 * sb__ledger_check - the argument checks of sb_ledger_charge(), without
 * charging.  Return: SB_OK or the error sb_ledger_charge() would give.
 */
int sb__ledger_check(const struct sb_ledger *ledger, uint32_t assoc_index,
		     int64_t t_from, int64_t t_to, double tres_count);

/*
 * sb__json_int - @o as an integer in [@min, @max].  Doubles ("3.0"),
 * strings and out-of-range values are refused.  Return: SB_OK or
 * SB_ECORRUPT.
 */
int sb__json_int(struct json_object *o, int64_t min, int64_t max,
		 int64_t *out);

/*
 * sb__json_sum - @o as a finite number >= 0 (integer or double).  NaN and
 * infinities (which json-c accepts even in strict mode), negative values and
 * strings are refused.  Return: SB_OK or SB_ECORRUPT.
 */
int sb__json_sum(struct json_object *o, double *out);

/*
 * sb__accrual_to_json - the records as a JSON array [[job, charged_to,
 * charged], ...] in ascending job id.  Return: SB_OK or SB_ENOMEM.
 */
int sb__accrual_to_json(const struct sb_accrual *acc, struct json_object **out);

/*
 * sb__accrual_from_json - a new record set from such an array (NULL @arr
 * gives an empty one).  Return: SB_OK, SB_ECORRUPT, SB_ENOMEM.
 */
int sb__accrual_from_json(struct json_object *arr, struct sb_accrual **out);

/* sb__accrual_swap - exchange the contents of @a and @b. */
void sb__accrual_swap(struct sb_accrual *a, struct sb_accrual *b);

/*
 * sb__stop_note_word - the length of the stop-note prefix @s begins with
 * ("budget:preempted_by=" or "budget:released_for_repair=", sb/view.h),
 * 0 if it begins with neither (or is NULL).
 */
size_t sb__stop_note_word(const char *s);

#endif /* SB_CORE_INTERNAL_H */
