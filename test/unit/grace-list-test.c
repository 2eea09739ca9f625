/* grace-list-test.c - preempt/budget's resumable victims in their grace
 * time (plugins/common/grace_list.c): a victim that exited is owed a
 * requeue until the requeue was tried, however many ticks skip their write
 * pass; settled victims are dropped; a failing requeue is retried, then
 * given up. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "grace_list.h"

/* A fake job table: state by job id (1..9), and what a scan owed. */
struct world {
	enum grace_state st[10];
	uint32_t owed[16];
	size_t n_owed;
};

static enum grace_state state_of(uint32_t id, void *arg)
{
	struct world *w = arg;

	ck_assert_uint_lt(id, 10);
	return w->st[id];
}

static void owe(uint32_t id, void *arg)
{
	struct world *w = arg;

	ck_assert_uint_lt(w->n_owed, 16);
	w->owed[w->n_owed++] = id;
}

/* Scan, and print the owed ids as "1,3" into @buf (empty: none). */
static const char *scan(struct grace_list *l, struct world *w, char *buf,
			size_t len)
{
	size_t i, off = 0;

	w->n_owed = 0;
	grace_list_scan(l, state_of, owe, w);
	buf[0] = '\0';
	for (i = 0; i < w->n_owed; i++)
		off += snprintf(buf + off, len - off, "%s%u", i ? "," : "",
				w->owed[i]);
	return buf;
}

/* A requeue found, the write pass skipped: the next tick must find it
 * again. */
START_TEST(test_owed_until_tried)
{
	struct grace_list l = { 0 };
	struct world w = { .st = { [1] = GRACE_RUNNING } };
	char buf[64];
	int tick;

	ck_assert_int_eq(grace_list_add(&l, 1), 0);
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "");	/* in grace */
	w.st[1] = GRACE_EXITED;
	for (tick = 0; tick < 5; tick++)	/* write pass skipped each time */
		ck_assert_msg(!strcmp(scan(&l, &w, buf, sizeof(buf)), "1"),
			      "tick %d: expected '1' owed, got '%s'", tick, buf);
	ck_assert_uint_eq(l.n, 1);
	ck_assert(!grace_list_tried(&l, 1, true));	/* requeued */
	ck_assert_uint_eq(l.n, 0);
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "");
	grace_list_free(&l);
}
END_TEST

/* Each state as the tick sees it: settled ones leave, others stay. */
START_TEST(test_states)
{
	struct grace_list l = { 0 };
	struct world w = { .st = { [1] = GRACE_RUNNING, [2] = GRACE_EXITED,
				   [3] = GRACE_SETTLED, [4] = GRACE_EXITED,
				   [5] = GRACE_RUNNING } };
	char buf[64];
	uint32_t id;

	for (id = 1; id <= 5; id++)
		ck_assert_int_eq(grace_list_add(&l, id), 0);
	ck_assert_int_eq(grace_list_add(&l, 2), 0);	/* once only */
	ck_assert_uint_eq(l.n, 5);
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "2,4");
	ck_assert_uint_eq(l.n, 4);	/* 3 settled: dropped */
	ck_assert_uint_eq(l.e[0].job_id, 1);	/* order kept */
	ck_assert_uint_eq(l.e[1].job_id, 2);
	ck_assert_uint_eq(l.e[2].job_id, 4);
	ck_assert_uint_eq(l.e[3].job_id, 5);
	/* requeued by someone else (pending now): settled, not owed */
	w.st[4] = GRACE_SETTLED;
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "2");
	ck_assert_uint_eq(l.n, 3);
	grace_list_free(&l);
	ck_assert_uint_eq(l.n, 0);
	ck_assert_ptr_null(l.e);
}
END_TEST

/* A requeue that fails is tried again next tick, GRACE_TRIES_MAX times in
 * all, then given up (the caller says so in the log). */
START_TEST(test_failed_requeue_bounded)
{
	struct grace_list l = { 0 };
	struct world w = { .st = { [7] = GRACE_EXITED } };
	char buf[64];
	int i;

	ck_assert_int_eq(grace_list_add(&l, 7), 0);
	for (i = 1; i < GRACE_TRIES_MAX; i++) {
		ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "7");
		ck_assert_msg(!grace_list_tried(&l, 7, false),
			      "failure %d of %d: given up too early", i,
			      GRACE_TRIES_MAX);
	}
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "7");
	ck_assert(grace_list_tried(&l, 7, false));	/* the last one */
	ck_assert_uint_eq(l.n, 0);
	ck_assert_str_eq(scan(&l, &w, buf, sizeof(buf)), "");
	ck_assert(!grace_list_tried(&l, 7, false));	/* not tracked */
	grace_list_free(&l);
}
END_TEST

/* Growth past the first allocation keeps every victim. */
START_TEST(test_many)
{
	struct grace_list l = { 0 };
	uint32_t id;

	for (id = 1000; id < 1100; id++)
		ck_assert_int_eq(grace_list_add(&l, id), 0);
	ck_assert_uint_eq(l.n, 100);
	for (id = 1000; id < 1100; id++)
		ck_assert_uint_eq(l.e[id - 1000].job_id, id);
	ck_assert(!grace_list_tried(&l, 1050, true));
	ck_assert_uint_eq(l.n, 99);
	ck_assert_uint_eq(l.e[50].job_id, 1051);	/* order kept */
	grace_list_free(&l);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("grace_list");
	TCase *tc = tcase_create("grace_list");

	tcase_add_test(tc, test_owed_until_tried);
	tcase_add_test(tc, test_states);
	tcase_add_test(tc, test_failed_requeue_bounded);
	tcase_add_test(tc, test_many);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
