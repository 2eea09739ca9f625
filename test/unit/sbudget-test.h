/*
 * sbudget-test.h - what the parts of the sbudget test share: a command line
 * parsed as sbudget's argv, and the tests kept in sbudget-values-test.c
 * (value parsers, budget.conf, start=, end=, span) and
 * sbudget-output-test.c (output formats).
 */
#ifndef SB_SBUDGET_TEST_H
#define SB_SBUDGET_TEST_H

#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Split @line at spaces into argv (argv[0] = "sbudget"); static storage. */
static inline int split(const char *line, char **argv, char *buf, size_t len)
{
	int argc = 0;
	char *p;

	snprintf(buf, len, "%s", line);
	argv[argc++] = "sbudget";
	for (p = strtok(buf, " "); p; p = strtok(NULL, " "))
		argv[argc++] = p;
	argv[argc] = NULL;
	return argc;
}

static inline int parse(const char *line, struct sbc_cmd *cmd, char *msg)
{
	char *argv[64], buf[1024];
	int argc = split(line, argv, buf, sizeof(buf));

	return sbc_parse_args(argc, argv, cmd, msg, SBC_MSG_MAX);
}

/* Add the value parser, budget.conf, time and span tests to @tc. */
void sbudget_value_tests(TCase *tc);
/* Add the output format tests to @tc. */
void sbudget_output_tests(TCase *tc);

#endif
