/*
 * check_main.h - the one Check runner every unit test's main() calls.
 *
 * A test builds its Suite (its TCases, fixtures, timeouts and any
 * environment it needs, e.g. TZ) and returns sb_check_run(suite): every
 * test of the suite is run with CK_NORMAL output (Check's CK_FORK and
 * CK_RUN_* environment variables still apply), the runner freed, and the
 * result given as the program's exit status.
 */
#ifndef SB_CHECK_MAIN_H
#define SB_CHECK_MAIN_H

#include <check.h>

/* Run every test of @s (the runner takes it and frees it).  EXIT_SUCCESS
 * when none failed, else EXIT_FAILURE. */
int sb_check_run(Suite *s);

#endif
