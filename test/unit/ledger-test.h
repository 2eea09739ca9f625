/*
 * ledger-test.h - what the parts of the ledger test share: the times most
 * tests work near, the small tree most tests use, the deterministic random
 * numbers (one sequence, in ledger-test.c), and the test cases kept in
 * ledger-json-test.c (save/load) and ledger-accrual-test.c (accrual and the
 * memory bound).
 */
#ifndef SB_LEDGER_TEST_H
#define SB_LEDGER_TEST_H

#include <check.h>
#include <stdint.h>

#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/tree.h"

#define H 3600
#define WEEK SB_LEDGER_DEFAULT_WINDOW
/* An hour boundary in November 2023; most tests work near it. */
#define T0 ((int64_t)1700000000 - (int64_t)1700000000 % (2 * H))

/* ids 1 (top) <- 2, 3 (leaves): a small tree most tests share. */
static inline struct sb_tree *small_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_int_eq(sb_tree_add(t, 1, 0, 1, "acct"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 2, 1, 3, "alice"), SB_OK);
	ck_assert_int_eq(sb_tree_add(t, 3, 1, 1, "bob"), SB_OK);
	ck_assert_int_eq(sb_tree_finalize(t), SB_OK);
	return t;
}

/* Deterministic xorshift64* for reproducible "random" cases: rnd() steps
 * rng_state, which a test may reseed. */
extern uint64_t rng_state;
uint64_t rnd(void);

/* The "json" test case: save/load, reload, damaged documents. */
TCase *ledger_json_tcase(void);
/* The "accrual" test case: the accrual record, sb_ledger_bytes() and
 * sb_ledger_fit_width(). */
TCase *ledger_accrual_tcase(void);

#endif
