/*
 * src/sbudget/cli.h - the parts of sbudget that need no Slurm: the command
 * grammar, value parsers, the span of the figures and the output formats
 * (table, parsable, JSON, Prometheus, SVG).  Unit-tested in
 * test/unit/sbudget-test.c; the figures themselves are the core's
 * (sb/figures.h), the Slurm glue is in sbudget.h and the files it lists.
 *
 * Naming: sbc_ for this library.  Functions that refuse user input write a
 * sentence naming the value and saying what is accepted into @msg.
 */
#ifndef SBC_CLI_H
#define SBC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sb/figures.h"
#include "sb/tree.h"
#include "sb/view.h"

#define SBC_MSG_MAX 512
/* No array task given (Slurm's NO_VAL, as array_task_id holds it). */
#define SBC_NO_TASK UINT32_C(0xFFFFFFFE)
/* Bytes of a file name quoted in an error message: a whole path as deep as
 * a build tree's, while the message still fits SBC_MSG_MAX. */
#define SBC_FILE_QUOTE_MAX 320
#define SBC_MAX_NAMES 64	/* account=a,b,... */
#define SBC_MAX_FIELDS 64	/* format=f1,f2,... */
#define SBC_NAME_MAX 128
/* report step=: at most this many steps (a week by the minute; a year by
 * the hour is 8760) */
#define SBC_REPORT_MAX_STEPS 10080

/* sbc__fail - write the refusal sentence into @msg (if given room) and
 * return -1; shared by cli.c and span.c. */
int sbc__fail(char *msg, size_t msglen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------- grammar */

enum sbc_verb {
	SBC_NONE = 0,
	SBC_SHOW_BUDGET,	/* show|list budget [where] ... */
	SBC_MODIFY_BUDGET,	/* modify budget where ... set share=N */
	SBC_ADD_BUDGET,		/* add budget account=A parent=P share=N */
	SBC_SHOW_JOB,		/* show|list job JOBID */
	SBC_REPORT,		/* report [window=] [step=] [plot=] */
	SBC_METRICS,		/* metrics [window=] */
	SBC_PAGE,		/* page FILE.html [account=] [SPAN] [step=] */
	SBC_HELP,
	SBC_VERSION,
};

enum sbc_style {
	SBC_STYLE_TABLE = 0,	/* aligned columns, the default */
	SBC_STYLE_PARSABLE,	/* -p: fields end with '|' */
	SBC_STYLE_PARSABLE2,	/* -P: fields separated by '|' */
	SBC_STYLE_JSON,		/* --json */
};

struct sbc_field_req {
	char name[SBC_NAME_MAX];	/* as typed; matched case-insensitively */
	int width;		/* from "Name%W": > 0 fixed width, 0 = auto */
};

/*
 * A point in time as typed in start=/end=: absolute (seconds since the
 * epoch) or relative to the moment of the command (now + @value, @value
 * <= 0 for the past).  Resolved with sbc_time_at().
 */
struct sbc_time {
	bool set;		/* given on the command line */
	bool relative;		/* "now", "now-2hours" */
	int64_t value;		/* epoch seconds, or seconds from now */
};

struct sbc_cmd {
	enum sbc_verb verb;
	enum sbc_style style;
	bool noheader;		/* -n */
	bool immediate;		/* -i: commit without asking */
	bool quiet;		/* -Q */
	bool verbose;		/* -v: budget.conf's settings on stderr */
	/* where account=A[,B] [user=U[,V]] */
	size_t naccounts;
	char accounts[SBC_MAX_NAMES][SBC_NAME_MAX];
	size_t nusers;
	char users[SBC_MAX_NAMES][SBC_NAME_MAX];
	/* set share=N (modify budget), share=N (add budget) */
	bool has_share;
	uint32_t share;		/* SB_SHARES_USE_PARENT for "parent" */
	/* add budget: parent=P ("" = root), description=, organization=
	 * ("" = slurmdbd's defaults as sacctmgr's: the account's name, the
	 * parent's name) */
	char parent[SBC_NAME_MAX];
	char description[SBC_NAME_MAX];
	char organization[SBC_NAME_MAX];
	/* show job */
	uint32_t job_id;
	uint32_t task_id;	/* show job 116_3: 3; SBC_NO_TASK without */
	bool duplicates;	/* -D: show job from slurmdbd, every run */
	/* window=TIME step=TIME: 0 = not given */
	int64_t window;
	int64_t step;
	/* start=WHEN end=WHEN (show budget, report): the span's ends */
	struct sbc_time start, end;
	char plot[4096];	/* plot=FILE.svg; "" = none */
	char page[4096];	/* page FILE.html, "-" = standard output */
	size_t nfields;
	struct sbc_field_req fields[SBC_MAX_FIELDS];
};

/*
 * sbc_parse_args - parse a command line (argv[0] is the program name).
 * Options may appear anywhere, as sacctmgr's do.  Keywords, entity names and
 * keys are case-insensitive.
 * Return: 0, or -1 with @msg set (a usage error: exit status 1).
 */
int sbc_parse_args(int argc, char **argv, struct sbc_cmd *cmd, char *msg,
		   size_t msglen);

/*
 * sbc_parse_share - RawShares for `set share=N`: sb_shares_parse()
 * (sb/contract.h).  Return 0, or -1 with @msg naming the value and what is
 * accepted.
 */
int sbc_parse_share(const char *s, uint32_t *out, char *msg, size_t msglen);

/*
 * sbc_parse_window - a positive duration in Slurm's time syntax
 * (sb_duration_parse), at most 365 days.  @what names the key in messages.
 */
int sbc_parse_window(const char *what, const char *s, int64_t *out, char *msg,
		     size_t msglen);

/*
 * sbc_parse_time - a point in time for start=/end=, as Slurm's commands
 * take it (sacct -S, sreport start=), a little stricter:
 *   YYYY-MM-DD[THH:MM[:SS]]   local time (fields in range);
 *   now[{+|-}COUNT[UNIT]]     UNIT seconds (the default), minutes, hours,
 *                             days or weeks (singular too);
 *   utsSECONDS                Unix time (seconds since the epoch).
 * A bare number is refused with a hint (write uts<N> for Unix time).  No
 * clock is read: "now" is kept relative (struct sbc_time).  @what names
 * the key in messages.  Return 0, or -1 with @msg set.
 */
int sbc_parse_time(const char *what, const char *s, struct sbc_time *out,
		   char *msg, size_t msglen);

/* sbc_time_at - @t resolved at @now: epoch seconds (@now for an unset @t). */
int64_t sbc_time_at(const struct sbc_time *t, int64_t now);

/*
 * sbc_span - the span [@from, @to) of the figures of @cmd at @now:
 *   start= and end=          [start, end)
 *   start= (and window=)     [start, start + window), window default: up
 *                            to @now (without window=)
 *   end= (and window=)       [end - window, end), window default @lookback
 *   window= or nothing       [now - window, now), window default @lookback
 * Giving all three is refused.  Refused too: an empty or inverted span, an
 * end after @now (the figures of the future are unknown), a span longer
 * than 365 days, a report step longer than the span or cutting it into
 * more than SBC_REPORT_MAX_STEPS steps.
 * Return 0, or -1 with @msg naming the values.
 */
int sbc_span(const struct sbc_cmd *cmd, int64_t now, int64_t lookback,
	     int64_t *from, int64_t *to, char *msg, size_t msglen);

/*
 * sbc_parse_jobid - a job id: decimal, 1..4294967293 (below Slurm's NO_VAL),
 * or an array task as squeue and scontrol write it, ARRAYID_TASKID
 * ("116_3": *@out 116, *@task 3); *@task is SBC_NO_TASK without '_'.
 * Refused with a hint: "123+1" (het component), "_3", "116_", "116_x",
 * "116_3_4", "116_[1-3]" (one task at a time).
 */
int sbc_parse_jobid(const char *s, uint32_t *out, uint32_t *task, char *msg,
		    size_t msglen);

/* --------------------------------------------------- small text parsers */

/*
 * sbc_tres_count - the count of TRES @key in a TRES string "k=v,k=v,...":
 * @key is a database id as text ("1001", slurmdbd's tres_alloc_str) or a
 * name ("gres/gpu", slurmctld's formatted strings).  Values may carry
 * a unit suffix K/M/G/T/P (powers of 1024, as Slurm prints memory).
 * Return: the count, 0 when absent or @s is NULL; -1 when the value is
 * malformed.
 */
double sbc_tres_count(const char *s, const char *key);

/*
 * sbc_budget_conf_parse - budget.conf's text through sb_config_parse(), the
 * grammar every reader shares (budget.conf(5)).  @cfg holds the defaults
 * first and is unchanged on failure.
 * Return 0, or -1 with @msg "budget.conf line N: ..." naming the problem.
 */
struct sb_config;
int sbc_budget_conf_parse(const char *text, struct sb_config *cfg, char *msg,
			  size_t msglen);

/* Where sbc_budget_conf_read() took the settings from. */
enum sbc_conf_source {
	SBC_CONF_FILE = 0,	/* budget.conf */
	SBC_CONF_MISSING,	/* no budget.conf: the defaults, as slurmctld */
	SBC_CONF_LAST_VALID,	/* budget.conf bad: the last valid copy */
	SBC_CONF_DEFAULTS,	/* budget.conf bad, no usable copy: defaults */
};

/*
 * sbc_budget_conf_read - the settings sbudget uses, as slurmctld reads
 * budget.conf (budget_conf_load()): @path through the plugins' reader
 * (sb_config_file_read: a regular text file of at most SB_CONFIG_MAX_BYTES) and
 * sb_config_parse(); no file = the defaults.  A file that cannot be read
 * or is not valid does not stop sbudget: the settings come from
 * @last_valid (StateSaveLocation/budget.conf.last-valid, the copy of the
 * last valid file priority/budget keeps: what slurmctld goes on with) or,
 * when that cannot be used either (@last_valid NULL, missing, unreadable by
 * this user, not valid), from the defaults; @warn then holds one sentence
 * naming the file, line and error, and which settings are used instead
 * (with the defaults: that the figures may differ from slurmctld's).
 * @warn is "" otherwise.  @cfg always holds usable settings.
 */
enum sbc_conf_source sbc_budget_conf_read(const char *path,
					  const char *last_valid,
					  struct sb_config *cfg, char *warn,
					  size_t warnlen);

/* ---------------------------------------------------------- table output */

enum sbc_cell_kind { SBC_TEXT = 0, SBC_NUM, SBC_INT, SBC_NULL };

struct sbc_cell {
	enum sbc_cell_kind kind;
	char *text;		/* as shown in tables; owned by the table */
	double num;		/* SBC_NUM / SBC_INT value for JSON */
};

/* A field a command can show. */
struct sbc_fielddef {
	const char *name;	/* as in format= and headers */
	int width;		/* default width, 0 = auto */
	bool right;		/* right-aligned (numbers) */
};

struct sbc_table {
	size_t ncols;		/* chosen columns */
	int col[SBC_MAX_FIELDS];	/* index into defs */
	int width[SBC_MAX_FIELDS];	/* 0 = auto */
	const struct sbc_fielddef *defs;
	size_t ndefs;
	size_t nrows, caprows;
	struct sbc_cell *cells;	/* nrows x ndefs */
};

/*
 * sbc_table_init - columns: the format= request when @cmd has fields,
 * otherwise the @defaults (names, NULL-terminated).
 * Return 0, or -1 with @msg naming the unknown field and listing the known.
 */
int sbc_table_init(struct sbc_table *t, const struct sbc_fielddef *defs,
		   size_t ndefs, const char *const *defaults,
		   const struct sbc_cmd *cmd, char *msg, size_t msglen);
/* sbc_table_row - start a new row (every cell SBC_NULL); -1 when OOM. */
int sbc_table_row(struct sbc_table *t);
/* Set a cell of the current row by field name (must exist in defs). */
void sbc_table_text(struct sbc_table *t, const char *field, const char *s);
void sbc_table_num(struct sbc_table *t, const char *field, double v,
		   int decimals);
void sbc_table_int(struct sbc_table *t, const char *field, int64_t v);
/*
 * sbc_table_print - as @style: aligned columns (widths from format=%W or
 * the widest cell; a fixed width truncates with '+', as sacctmgr does),
 * '|'-separated, or a JSON array of objects (@json_key names it:
 * {"budgets": [...]}).  @vertical prints a one-row table as "Name: value"
 * lines in the table style.
 */
void sbc_table_print(const struct sbc_table *t, FILE *out, enum sbc_style style,
		     bool noheader, bool vertical, const char *json_key);
void sbc_table_free(struct sbc_table *t);

/* One "all teams" figure of a command (sb_fig_all_teams()), to print after
 * its table. */
struct sbc_all_teams {
	const char *json_key;	/* its key in --json: "all_teams" */
	const char *title;	/* its text line's start: "All teams" */
	const char *suffix;	/* the end of its fields' names, "" or
				 * "Window": Owed<suffix>, Capped<suffix>,
				 * DelivOwed<suffix>, *Raw */
	char missing[512];	/* not "": not computed, the reason */
	uint32_t teams;		/* the teams summed */
	struct sb_fig_all fig;	/* TRES-seconds; fig.worst != SB_NONE:
				 * the worst team is named below */
	const char *worst_account, *worst_user;	/* user NULL or "": an
						 * account association */
	uint32_t worst_id;	/* its association id */
};

/*
 * sbc_table_print_all - sbc_table_print(), then the @n all-teams figures
 * @all: in the table style (not @vertical) one line each after the table
 * unless @noheader ("All teams: DelivOwed 0.781, Capped 50.000 of Owed
 * 64.000 GPU-hours, 2 of 3 teams owed; worst team a/alice (id 7) 0.125");
 * with --json, one object each under its key beside @json_key's array
 * ({"budgets": [...], "all_teams": {...}}; null when not computed);
 * nothing in the parsable styles, whose every line is a row.  @n 0: the
 * same as sbc_table_print().
 */
void sbc_table_print_all(const struct sbc_table *t, FILE *out,
			 enum sbc_style style, bool noheader,
			 const char *json_key, const struct sbc_all_teams *all,
			 size_t n);

/* sbc_json_string - write @s as a JSON string literal (with quotes). */
void sbc_json_string(FILE *out, const char *s);

/* ----------------------------------------------------- Prometheus, SVG */

/*
 * sbc_prom_label - write @s escaped for a Prometheus label value
 * (backslash, double quote and newline escaped).
 */
void sbc_prom_label(FILE *out, const char *s);

/* One budget of a plot: its delivered use per step, and its quota. */
struct sbc_plot_series {
	const char *name;
	const double *values;	/* nsteps values, GPU-hours per step */
	double quota;		/* GPU-hours per full step (a flat line) */
	long parent;		/* index of its parent's series, below its
				 * own; -1: none plotted */
};

/*
 * sbc_svg_plot - an SVG picture of budgets over [@from, @to) in @nsteps
 * steps of @step seconds (the last may be short): one small multiple per
 * budget (src/draw/draw.h's sbd_panel_svg()), named, each on its own
 * scale (the quota joins it only when close, else a note), delivered
 * GPU-hours filled in the budget's colour (sbd_assign_colours() down the
 * tree), the quota dotted, UTC date ticks; sbd_grid_columns() panels a
 * row, grouped as the budget page groups them ("Top level", then "Under
 * X" for each plotted parent's children) when some budget's parent is
 * plotted; the image as tall as the rows need, so any number fits.  Return 0,
 * -1 on bad arguments or a write error.
 */
int sbc_svg_plot(FILE *out, const char *title, int64_t from, int64_t to,
		 int64_t step, size_t nsteps, const struct sbc_plot_series *s,
		 size_t n);

#endif /* SBC_CLI_H */
