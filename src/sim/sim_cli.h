/*
 * sim_cli.h - sbudget-sim's command line (cli.c): the options as parsed, their
 * parser, and the error and output helpers the commands (main.c) share.
 */
#ifndef SB_SIM_CLI_H
#define SB_SIM_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

#include "sim.h"

/* The help text (--help, and no arguments at all). */
extern const char cli_usage[];

/* The options of every command; which ones a command reads is in
 * cli_usage.  File names point into argv. */
struct opts {
	const char *jobs, *tree, *conf, *json, *svg_gpus, *svg_teams;
	const char *segments, *out;
	const char *waits;	/* metrics: JOB|REASON lines */
	struct sim_read_opts ro;
	struct sim_params p;
	int64_t win_a, win_b, svg_a, svg_b, now;
	bool has_window, has_svg_range, has_now, quiet, stats, budgets;
	uint64_t gpus;		/* metrics */
	bool gpn_given;
};

/* "sbudget-sim: " and the message on standard error, a newline; returns
 * 2 (the exit status for bad arguments or input). */
int cli_bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse argv[@i..@argc) of command @cmd into @o (set to its defaults by
 * the caller).  --help and --version print and exit 0.  Returns 0, or 2
 * after cli_bad() for an unknown option, a missing value or one out of
 * range. */
int cli_parse(int argc, char **argv, int i, struct opts *o, const char *cmd);

/* Write @o, pretty, to @file ("-": standard output).  0, or 2 after
 * cli_bad() when it cannot be opened or written. */
int cli_write_json(const char *file, struct json_object *o);

/* Open @file ("-": standard output) for option @opt; NULL after
 * cli_bad(). */
FILE *cli_open_out(const char *opt, const char *file);

/* Close what cli_open_out() opened (standard output: flushed).  0, or 2
 * after cli_bad() on a write error. */
int cli_close_out(const char *opt, const char *file, FILE *f);

#endif /* SB_SIM_CLI_H */
