/*
 * src/sbudget/cli.h - the parts of sbudget that need no Slurm: the command
 * grammar, value parsers, the figures (owed, delivered, unallocated) and the
 * output formats (table, parsable, JSON, Prometheus, SVG).  Unit-tested in
 * test/unit/sbudget-test.c; the Slurm glue is in sbudget.c.
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

#include "sb/tree.h"

#define SBC_MSG_MAX 512
#define SBC_MAX_NAMES 64	/* account=a,b,... */
#define SBC_MAX_FIELDS 64	/* format=f1,f2,... */
#define SBC_NAME_MAX 128

/* ------------------------------------------------------------- grammar */

enum sbc_verb {
	SBC_NONE = 0,
	SBC_SHOW_BUDGET,	/* show|list budget [where] ... */
	SBC_MODIFY_BUDGET,	/* modify budget where ... set share=N */
	SBC_SHOW_JOB,		/* show|list job JOBID */
	SBC_REPORT,		/* report [window=] [step=] [plot=] */
	SBC_METRICS,		/* metrics [window=] */
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
	/* set share=N */
	bool has_share;
	uint32_t share;		/* SB_SHARES_USE_PARENT for "parent" */
	/* show job */
	uint32_t job_id;
	/* window=TIME step=TIME: 0 = not given */
	int64_t window;
	int64_t step;
	char plot[4096];	/* plot=FILE.svg; "" = none */
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
 * sbc_parse_share - RawShares for `set share=N`: a decimal integer
 * 0..2147483646, or "parent" (SB_SHARES_USE_PARENT).  Return 0 or -1.
 */
int sbc_parse_share(const char *s, uint32_t *out, char *msg, size_t msglen);

/*
 * sbc_parse_window - a positive duration in Slurm's time syntax
 * (sb_duration_parse), at most 365 days.  @what names the key in messages.
 */
int sbc_parse_window(const char *what, const char *s, int64_t *out, char *msg,
		     size_t msglen);

/*
 * sbc_parse_jobid - a job id: decimal, 1..4294967293 (below Slurm's NO_VAL);
 * "123_4" (array task) and "123+1" (het component) are refused with a hint.
 */
int sbc_parse_jobid(const char *s, uint32_t *out, char *msg, size_t msglen);

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

/* What preempt/budget writes into a victim's SystemComment. */
struct sbc_preempt_note {
	bool preempted;		/* budget:preempted_by=... */
	uint32_t by_job;
	int64_t at;
	uint32_t preemptor_priority;
	uint32_t victim_priority;
	bool repair;		/* budget:released_for_repair=... */
	char node[SBC_NAME_MAX];
};

/*
 * sbc_parse_system_comment - find the last budget: note in @s (the job's
 * SystemComment may hold other text, and a job preempted twice holds the
 * last note last).  Tolerates absence.
 * Return: 1 when a note was found, 0 when none, -1 when a budget: note is
 * damaged.
 */
int sbc_parse_system_comment(const char *s, struct sbc_preempt_note *out);

/*
 * sbc_budget_conf_parse - budget.conf's text through sb_config_parse(), the
 * grammar every reader shares (budget.conf(5)).  @cfg holds the defaults
 * first and is unchanged on failure.
 * Return 0, or -1 with @msg "budget.conf line N: ..." naming the problem.
 */
struct sb_config;
int sbc_budget_conf_parse(const char *text, struct sb_config *cfg, char *msg,
			  size_t msglen);

/* -------------------------------------------------------------- figures */

/*
 * One run segment (or pending span) of a job, from slurmdbd's records and,
 * for live jobs, slurmctld's.  Times are seconds since the epoch.
 *   eligible: when it started to ask (0 = never eligible: no demand)
 *   start:    when it started running (0 = never started in this record)
 *   end:      when the record ended (0 = still open: counts until `now`)
 *   tres:     charged TRES it holds (running) or asks for (pending)
 */
struct sbc_seg {
	uint32_t assoc_id;
	uint32_t job_id;
	int64_t eligible, start, end;
	double tres;
	bool allocated;
};

/*
 * Figures of one association over [from, to), in TRES-seconds, each over
 * its whole subtree (as sshare's RawUsage):
 *   delivered    allocated occupancy: sum over allocated segments of
 *                tres x seconds running inside the window;
 *   unallocated  the same for unallocated (min runtime 0) segments;
 *   demand       allocated demand: tres x seconds between eligibility and
 *                end (pending or running) inside the window;
 *   quota        entitled fraction x capacity x window length;
 *   owed         sum over slots of min(entitled x capacity x slot length,
 *                demand in the slot): the quota capped by demand, slot by
 *                slot (MISSION.md: "owed = quota, capped hourly by demand").
 */
struct sbc_fig {
	double delivered, unallocated, demand, quota, owed;
};

/*
 * sbc_figures - compute figures over [@from, @to) in slots of @slot seconds
 * (the last one may be shorter), @capacity TRES in the cluster, @now for open
 * segments.  Segments of associations not in @tree are ignored (counted in
 * *@unknown when not NULL).
 * @total:  out, nassoc entries, over the whole interval.
 * @series: out, may be NULL: nassoc * nslots entries, row-major by
 *          association index ([i * nslots + k]); sbc_nslots() tells nslots.
 * Return: 0; -1 on bad arguments (from >= to, slot <= 0, NULL tree/total,
 *         capacity < 0) or out of memory.
 */
size_t sbc_nslots(int64_t from, int64_t to, int64_t slot);
int sbc_figures(const struct sb_tree *tree, const struct sbc_seg *segs,
		size_t nsegs, int64_t from, int64_t to, int64_t slot,
		int64_t now, double capacity, struct sbc_fig *total,
		struct sbc_fig *series, size_t *unknown);

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

/* sbc_json_string - write @s as a JSON string literal (with quotes). */
void sbc_json_string(FILE *out, const char *s);

/* ----------------------------------------------------- Prometheus, SVG */

/*
 * sbc_prom_label - write @s escaped for a Prometheus label value
 * (backslash, double quote and newline escaped).
 */
void sbc_prom_label(FILE *out, const char *s);

/* One line of a plot: a budget's delivered use per step, and its quota. */
struct sbc_plot_series {
	const char *name;
	const double *values;	/* nsteps values, GPU-hours per step */
	double quota;		/* GPU-hours per full step (a flat line) */
};

/*
 * sbc_svg_plot - an SVG line chart: x = time from @from in @nsteps steps of
 * @step seconds, y = GPU-hours per step; one colour per series, its
 * delivered use solid and its quota dashed; a legend; axes with labels.
 * Return 0, -1 on bad arguments.
 */
int sbc_svg_plot(FILE *out, const char *title, int64_t from, int64_t step,
		 size_t nsteps, const struct sbc_plot_series *s, size_t n);

#endif /* SBC_CLI_H */
