/*
 * sbudget-test.c - sbudget's grammar, every refused argument, value parsers,
 * the span of the figures (start=, end=, window=) and output formats
 * (src/sbudget/cli.h; no Slurm).  The figures themselves are the core's,
 * tested in figures-test.c.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check_main.h"
#include "cli.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/tree.h"

/* Split @line at spaces into argv (argv[0] = "sbudget"); static storage. */
static int split(const char *line, char **argv, char *buf, size_t len)
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

static int parse(const char *line, struct sbc_cmd *cmd, char *msg)
{
	char *argv[64], buf[1024];
	int argc = split(line, argv, buf, sizeof(buf));

	return sbc_parse_args(argc, argv, cmd, msg, SBC_MSG_MAX);
}

/* ------------------------------------------------------ accepted lines */

struct good_case {
	const char *line;
	enum sbc_verb verb;
	enum sbc_style style;
	bool noheader, immediate;
	size_t naccounts;
	const char *account0;
	uint32_t share;		/* checked for modify */
	uint32_t job_id;
	int64_t window, step;
	size_t nfields;
};

static const struct good_case good[] = {
	{ .line = "show budget",                      .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "list budgets",                     .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "SHOW Budget WHERE Account=Phys-A", .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "phys-a",  .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show budget account=a,b,c",        .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 3,
	  .account0 = "a",       .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-P show budget",                   .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_PARSABLE2, .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show budget -p -n",                .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_PARSABLE,  .noheader = true,  .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-nP show budget",                  .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_PARSABLE2, .noheader = true,  .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "--json show budget window=7-0",    .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_JSON,      .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 7 * 86400, .step = 0,
	  .nfields = 0 },
	{ .line = "show budget format=Account,Owed%10", .verb = SBC_SHOW_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 2 },
	{ .line = "modify budget where account=bio set share=5", .verb = SBC_MODIFY_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "bio",     .share = 5, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-i modify budget where name=bio set fairshare=0", .verb = SBC_MODIFY_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = true,  .naccounts = 1,
	  .account0 = "bio",     .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "update budget where account=x user=u set share=parent --immediate", .verb = SBC_MODIFY_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = true,  .naccounts = 1,
	  .account0 = "x",       .share = SB_SHARES_USE_PARENT, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "add budget account=chem parent=sci share=3", .verb = SBC_ADD_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "chem",    .share = 3, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-i create budgets name=A,b share=parent", .verb = SBC_ADD_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = true,  .naccounts = 2,
	  .account0 = "a",       .share = SB_SHARES_USE_PARENT, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "add budget share=0 account=x description=X-ray organization=physics", .verb = SBC_ADD_BUDGET,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "x",       .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show job 42",                      .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 42,  .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show job jobid=42 format=JobId,WaitsFor", .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 42,  .window = 0,         .step = 0,
	  .nfields = 2 },
	{ .line = "show job -D 42",                   .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 42,  .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-PnD show job 42 format=JobId,PreemptedBy", .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_PARSABLE2, .noheader = true,  .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 42,  .window = 0,         .step = 0,
	  .nfields = 2 },
	{ .line = "show job 42 --duplicates",         .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 42,  .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show job 116_3",                   .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 116, .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show job 116_0 format=JobId",      .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 116, .window = 0,         .step = 0,
	  .nfields = 1 },
	{ .line = "show job jobid=7_4000000",         .verb = SBC_SHOW_JOB,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 7,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "report",                           .verb = SBC_REPORT,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "report window=1-0 step=1:00:00 plot=a.svg", .verb = SBC_REPORT,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 86400,     .step = 3600,
	  .nfields = 0 },
	{ .line = "report where account=bio",         .verb = SBC_REPORT,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "bio",     .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "metrics",                          .verb = SBC_METRICS,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "metrics window=60",                .verb = SBC_METRICS,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 3600,      .step = 0,
	  .nfields = 0 },
	{ .line = "page budgets.html",                .verb = SBC_PAGE,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "page - where account=Physics window=7-0 step=6:00:00", .verb = SBC_PAGE,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 1,
	  .account0 = "physics", .share = 0, .job_id = 0,   .window = 7 * 86400, .step = 6 * 3600,
	  .nfields = 0 },
	{ .line = "page /srv/www/B.HTM start=now-2days", .verb = SBC_PAGE,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "--help",                           .verb = SBC_HELP,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "show budget -h",                   .verb = SBC_HELP,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "-V",                               .verb = SBC_VERSION,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
	{ .line = "version",                          .verb = SBC_VERSION,
	  .style = SBC_STYLE_TABLE,     .noheader = false, .immediate = false, .naccounts = 0,
	  .account0 = NULL,      .share = 0, .job_id = 0,   .window = 0,         .step = 0,
	  .nfields = 0 },
};

START_TEST(test_good)
{
	const struct good_case *g = &good[_i];
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];
	int rc = parse(g->line, &cmd, msg);

	ck_assert_msg(rc == 0, "'%s': refused: %s", g->line, msg);
	ck_assert_msg(cmd.verb == g->verb, "'%s': verb %d, expected %d",
		      g->line, cmd.verb, g->verb);
	if (g->verb == SBC_HELP || g->verb == SBC_VERSION)
		return;
	ck_assert_msg(cmd.style == g->style, "'%s': style %d, expected %d",
		      g->line, cmd.style, g->style);
	ck_assert_int_eq(cmd.noheader, g->noheader);
	ck_assert_int_eq(cmd.immediate, g->immediate);
	ck_assert_uint_eq(cmd.naccounts, g->naccounts);
	if (g->account0)
		ck_assert_str_eq(cmd.accounts[0], g->account0);
	if (g->verb == SBC_MODIFY_BUDGET || g->verb == SBC_ADD_BUDGET) {
		ck_assert(cmd.has_share);
		ck_assert_uint_eq(cmd.share, g->share);
	}
	ck_assert_uint_eq(cmd.job_id, g->job_id);
	ck_assert_int_eq(cmd.window, g->window);
	ck_assert_int_eq(cmd.step, g->step);
	ck_assert_uint_eq(cmd.nfields, g->nfields);
	ck_assert_int_eq(cmd.duplicates, strstr(g->line, "D ") != NULL ||
			 strstr(g->line, "--duplicates") != NULL);
}
END_TEST

/* add budget's own keys: parent (lower-cased as account names are), and
 * description and organization as typed; unset ones stay empty. */
START_TEST(test_add_budget_keys)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];

	ck_assert_int_eq(parse("add budget account=x parent=Sci share=2 "
			       "description=X-ray organization=Physics", &cmd,
			       msg), 0);
	ck_assert_str_eq(cmd.parent, "sci");
	ck_assert_str_eq(cmd.description, "X-ray");
	ck_assert_str_eq(cmd.organization, "Physics");
	/* a list of parents is refused and writes nothing past parent */
	ck_assert_int_eq(parse("add budget account=x share=2 "
			       "parent=p,dd,oo,j1,j2,j3", &cmd, msg), -1);
	ck_assert_str_eq(cmd.description, "");
	ck_assert_str_eq(cmd.organization, "");
	ck_assert_uint_eq(cmd.job_id, 0);
	ck_assert_int_eq(parse("add budget account=x share=2", &cmd, msg), 0);
	ck_assert_str_eq(cmd.parent, "");
	ck_assert_str_eq(cmd.description, "");
	ck_assert_str_eq(cmd.organization, "");
}
END_TEST

/* Job ids as squeue writes them: the array task of ARRAYID_TASKID. */
struct jobid_case {
	const char *in;
	uint32_t job, task;
};
static const struct jobid_case jobids[] = {
	{ .in = "42", .job = 42, .task = SBC_NO_TASK },
	{ .in = "116_3", .job = 116, .task = 3 },
	{ .in = "116_0", .job = 116, .task = 0 },
	{ .in = "116_003", .job = 116, .task = 3 },
	{ .in = "7_4000000", .job = 7, .task = 4000000 },
	{ .in = "4294967293_1", .job = 4294967293u, .task = 1 },
};

START_TEST(test_jobid)
{
	const struct jobid_case *c = &jobids[_i];
	char msg[SBC_MSG_MAX] = "";
	uint32_t job = 0, task = 0;
	struct sbc_cmd cmd;
	char line[64];

	ck_assert_msg(sbc_parse_jobid(c->in, &job, &task, msg, sizeof(msg)) ==
		      0, "'%s': refused: %s", c->in, msg);
	ck_assert_uint_eq(job, c->job);
	ck_assert_uint_eq(task, c->task);
	/* the same through the command line, both spellings */
	snprintf(line, sizeof(line), "show job %s", c->in);
	ck_assert_int_eq(parse(line, &cmd, msg), 0);
	ck_assert_uint_eq(cmd.job_id, c->job);
	ck_assert_uint_eq(cmd.task_id, c->task);
	snprintf(line, sizeof(line), "show job jobid=%s", c->in);
	ck_assert_int_eq(parse(line, &cmd, msg), 0);
	ck_assert_uint_eq(cmd.task_id, c->task);
}
END_TEST

START_TEST(test_format_width)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];

	ck_assert_int_eq(parse("show budget format=Account%20,owed", &cmd, msg), 0);
	ck_assert_str_eq(cmd.fields[0].name, "Account");
	ck_assert_int_eq(cmd.fields[0].width, 20);
	ck_assert_str_eq(cmd.fields[1].name, "owed");
	ck_assert_int_eq(cmd.fields[1].width, 0);
	ck_assert_int_eq(parse("report plot=/tmp/x.SVG", &cmd, msg), 0);
	ck_assert_str_eq(cmd.plot, "/tmp/x.SVG");
}
END_TEST

/* -v/--verbose: budget.conf's settings on stderr; off by default */
START_TEST(test_verbose)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];

	ck_assert_int_eq(parse("show budget", &cmd, msg), 0);
	ck_assert(!cmd.verbose);
	ck_assert_int_eq(parse("-v show budget", &cmd, msg), 0);
	ck_assert(cmd.verbose);
	ck_assert_int_eq(parse("metrics --verbose", &cmd, msg), 0);
	ck_assert(cmd.verbose);
	ck_assert_int_eq(parse("-nv show budget", &cmd, msg), 0);
	ck_assert(cmd.verbose && cmd.noheader);
}
END_TEST

/* ------------------------------------------------------- refused lines */

struct bad_case {
	const char *line;
	const char *msg;	/* a part of the message */
};

static const struct bad_case bad[] = {
	{ "", "no command given" },
	{ "frobnicate", "unknown command 'frobnicate'" },
	{ "show", "needs an entity" },
	{ "show qos", "unknown entity 'qos'" },
	{ "modify job 4", "jobs cannot be modified" },
	{ "modify qos where account=a set share=1", "unknown entity 'qos'" },
	{ "-x show budget", "unknown option '-x'" },
	{ "show budget -D", "-D (--duplicates) applies only to 'show job'" },
	{ "show job -D 116_3", "takes a job id, not an array task" },
	{ "show budget --parsable3", "unknown option '--parsable3'" },
	{ "-Pz show budget", "unknown option '-z'" },
	{ "show budget colour=red", "unknown key 'colour'" },
	{ "show budget account", "expected KEY=VALUE" },
	{ "show budget account=", "account '': empty" },
	{ "show budget account=a,,b", "empty name" },
	{ "show budget account=a,", "empty name" },
	{ "show budget account=a account=b", "account given twice" },
	{ "show budget account=a\"b", "may not contain" },
	{ "show budget format=", "format '': empty" },
	{ "show budget format=a,", "empty field" },
	{ "show budget format=a%", "followed by a width" },
	{ "show budget format=a%x", "must be a number" },
	{ "show budget format=a%0", "at least 1" },
	{ "show budget window=abc", "window 'abc': not a duration" },
	{ "show budget window=-5", "window '-5': negative" },
	{ "show budget window=0", "must be longer than 0" },
	{ "show budget window=400-0", "too long" },
	{ "show budget window=1:99", "not a duration" },
	{ "show budget window=1 window=2", "window given twice" },
	{ "show budget step=1", "does not apply" },
	{ "show budget plot=a.svg", "does not apply" },
	{ "show budget set share=1", "'set' applies only" },
	{ "show budget share=1", "share is set only by" },
	{ "modify budget", "needs 'where account=A'" },
	{ "add", "'add' needs an entity" },
	{ "add job 5", "'add job': only budgets" },
	{ "add budget share=1", "add budget needs 'account=A'" },
	{ "add budget account=a", "add budget needs 'share=N'" },
	{ "add budget account=a share=1 user=u", "sacctmgr add user" },
	{ "add budget account=a share=1 parent=a", "cannot be added under itself" },
	{ "add budget account=root share=1", "the root exists" },
	{ "add budget account=a share=1 parent=b,c", "give one account" },
	{ "add budget account=a share=1 parent=b parent=c", "parent given twice ('b' and 'c')" },
	{ "add budget account=a share=1 description=a\"b", "may not contain quotes" },
	{ "add budget account=a share=1 organization=a\\b", "backslashes" },
	{ "add budget account=a share=1 parent=", "parent '': empty" },
	{ "add budget account=a share=x", "not a whole number" },
	{ "add budget account=a share=1 window=7-0", "unknown key 'window' for add budget" },
	{ "add budget account=a share=1 description=", "must be 1 to 127" },
	{ "add budget account=a share=1 organization=o organization=p", "organization given twice" },
	{ "add budget where account=a share=1", "'where' does not apply" },
	{ "add budget account=a set share=1", "'set' applies only" },
	{ "modify budget account=a set share=1", "write 'modify budget where" },
	{ "modify budget where set share=1", "needs 'where account=A'" },
	{ "modify budget where account=a", "needs 'set share=N'" },
	{ "modify budget where account=a set", "needs 'set share=N'" },
	{ "modify budget where account=a set share=", "share '': empty" },
	{ "modify budget where account=a set share=abc", "not a whole number" },
	{ "modify budget where account=a set share=-1", "negative" },
	{ "modify budget where account=a set share=1.5", "not a whole number" },
	{ "modify budget where account=a set share=2147483647", "too large" },
	{ "modify budget where account=a set share=99999999999999999999", "too large" },
	{ "modify budget where account=a set share=1 share=2", "share given twice" },
	{ "modify budget where account=a set account=b", "only share=N can be set" },
	{ "modify budget where account=a set share=1 where user=u", "'where' after 'set'" },
	{ "modify budget where account=a format=x set share=1", "does not apply" },
	{ "modify budget where account=a window=1 set share=1", "does not apply" },
	{ "show job", "needs a job id" },
	{ "show job abc", "job id 'abc': not a number" },
	{ "show job 0", "job ids start at 1" },
	{ "show job -5", "unknown option" },
	{ "show job 4294967294", "too large" },
	/* 2^64 + 1 and beyond: too large, never wrapped to a small id */
	{ "show job 18446744073709551617", "too large" },
	{ "show job 99999999999999999999999999", "too large" },
	{ "show job 5_18446744073709551617", "task id too large" },
	{ "show job 12+1", "job id '12+1': heterogeneous components are not supported; give the component's own job id" },
	/* array tasks: ARRAYID_TASKID, one at a time */
	{ "show job 116_", "job id '116_': no task id after '_'; write ARRAYID_TASKID, e.g. 116_3" },
	{ "show job _3", "job id '_3': no array job id before '_'; write ARRAYID_TASKID" },
	{ "show job 116_x", "job id '116_x': task id after '_' is not a number; write ARRAYID_TASKID" },
	{ "show job 116_3_4", "job id '116_3_4': one '_' at most; write ARRAYID_TASKID" },
	{ "show job 116_[1-3]", "job id '116_[1-3]': one array task at a time" },
	{ "show job 116_1,2", "one array task at a time" },
	{ "show job 116_-1", "one array task at a time" },
	{ "show job 116_4000001", "task id too large; array task ids are below MaxArraySize" },
	{ "show job x_3", "job id 'x_3': not a number; give the number squeue shows, or ARRAYID_TASKID" },
	{ "show job 0_3", "job ids start at 1" },
	{ "show job 4294967294_1", "too large" },
	{ "show job 116_3 117", "one job id at a time" },
	/* a sign is no array task or het component */
	{ "show job +5", "job id '+5': not a number" },
	{ "show job _5", "job id '_5': no array job id before '_'" },
	{ "show job 5_", "job id '5_': no task id after '_'" },
	{ "show job 1 2", "one job id at a time" },
	{ "show job 1 account=a", "does not apply" },
	{ "show job 1 window=1", "does not apply" },
	{ "show job 1 where", "'where' does not apply" },
	{ "report plot=x.png", "must end in .svg" },
	{ "report plot=", "give a file name" },
	{ "report step=0", "must be longer than 0" },
	{ "report window=1:00:00 step=2:00:00", "step is longer than the window" },
	{ "report user=u", "does not apply" },
	{ "page", "page needs a file to write" },
	{ "page window=1-0", "page needs a file to write" },
	{ "page budgets.txt", "page 'budgets.txt': the file name must end in .html or .htm" },
	{ "page .html", "must end in .html or .htm" },
	/* a deep path is named whole, not cut */
	{ "page /check/work/main/_build-26.05/cluster/work/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/page.txt", "page '/check/work/main/_build-26.05/cluster/work/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/page.txt': the file name must end in .html" },
	{ "report plot=/check/work/main/_build-26.05/cluster/work/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/x.png", "plot '/check/work/main/_build-26.05/cluster/work/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/d123456789/x.png': the file name must end in .svg" },
	{ "page a.html b.html", "'b.html': page writes one file; it is already 'a.html'" },
	{ "page a.html user=u", "does not apply" },
	{ "page a.html format=Account", "does not apply" },
	{ "page a.html plot=a.svg", "does not apply" },
	{ "page a.html window=1:00:00 step=2:00:00", "step is longer than the window" },
	{ "page a.html step=0", "must be longer than 0" },
	{ "metrics format=a", "does not apply" },
	{ "metrics account=a", "does not apply" },
	{ "metrics start=now-1hour", "does not apply" },
	{ "show job 1 end=now", "does not apply" },
	{ "modify budget where account=a start=now set share=1", "does not apply" },
	{ "show budget start=now start=now", "start given twice" },
	{ "show budget to=now endtime=now", "end given twice" },
	{ "show budget from=x", "start 'x': not a point in time" },
	{ "report end=123", "end '123': a bare number; write uts123" },
	{ "show budget start=now-2hours end=now window=1", "give at most two" },
};

START_TEST(test_bad)
{
	const struct bad_case *b = &bad[_i];
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];
	int rc = parse(b->line, &cmd, msg);

	ck_assert_msg(rc == -1, "'%s': accepted, expected a refusal "
		      "containing \"%s\"", b->line, b->msg);
	ck_assert_msg(strstr(msg, b->msg), "'%s': message \"%s\", expected "
		      "it to contain \"%s\"", b->line, msg, b->msg);
}
END_TEST

/* ------------------------------------------------------ value parsers */

struct share_case {
	const char *in;
	int rc;
	uint32_t v;
};

static const struct share_case shares[] = {
	{ .in = "0",          .rc = 0,  .v = 0 },
	{ .in = "1",          .rc = 0,  .v = 1 },
	{ .in = "2147483646", .rc = 0,  .v = 2147483646u },
	{ .in = "Parent",     .rc = 0,  .v = SB_SHARES_USE_PARENT },
	{ .in = "007",        .rc = 0,  .v = 7 },
	{ .in = "2147483647", .rc = -1, .v = 0 },
	{ .in = "",           .rc = -1, .v = 0 },
	{ .in = NULL,         .rc = -1, .v = 0 },
	{ .in = "+1",         .rc = -1, .v = 0 },
	{ .in = " 1",         .rc = -1, .v = 0 },
	{ .in = "1e3",        .rc = -1, .v = 0 },
	{ .in = "0x10",       .rc = -1, .v = 0 },
};

START_TEST(test_share)
{
	const struct share_case *c = &shares[_i];
	char msg[SBC_MSG_MAX] = "";
	uint32_t v = 12345;
	int rc = sbc_parse_share(c->in, &v, msg, sizeof(msg));

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)",
		      c->in ? c->in : "(null)", rc, c->rc, msg);
	ck_assert_uint_eq(v, rc == 0 ? c->v : 12345);
	if (rc)
		ck_assert_msg(strstr(msg, "accepted"), "message: %s", msg);
}
END_TEST

struct tres_case {
	const char *s, *key;
	double v;
};

static const struct tres_case tres[] = {
	{ .s = "cpu=8,mem=4G,billing=8,gres/gpu=8", .key = "gres/gpu", .v = 8 },
	{ .s = "cpu=8,mem=4G,gres/gpu=8",    .key = "mem",      .v = 4.0 * 1024 * 1024 * 1024 },
	{ .s = "1=8,2=4096,4=1,1001=16",     .key = "1001",     .v = 16 },
	{ .s = "1=8,2=4096,4=1,1001=16",     .key = "1",        .v = 8 },
	{ .s = "1=8,2=4096,4=1,10011=16",    .key = "1001",     .v = 0 },
	{ .s = "gres/gpu:h100=4,gres/gpu=4", .key = "gres/gpu", .v = 4 },
	{ .s = "cpu=1",                      .key = "gres/gpu", .v = 0 },
	{ .s = "",                           .key = "gres/gpu", .v = 0 },
	{ .s = NULL,                         .key = "gres/gpu", .v = 0 },
	{ .s = "gres/gpu=x",                 .key = "gres/gpu", .v = -1 },
	{ .s = "gres/gpu=",                  .key = "gres/gpu", .v = -1 },
	{ .s = "gres/gpu=8Q",                .key = "gres/gpu", .v = -1 },
};

START_TEST(test_tres)
{
	const struct tres_case *c = &tres[_i];
	double v = sbc_tres_count(c->s, c->key);

	ck_assert_msg(v == c->v, "'%s' [%s]: %g, expected %g",
		      c->s ? c->s : "(null)", c->key, v, c->v);
}
END_TEST

struct note_case {
	const char *s;
	int rc;
	bool preempted, repair;
	uint32_t by, pp, vp;
	int64_t at;
	const char *node;
};

static const struct note_case notes[] = {
	{ .s = "budget:preempted_by=12,at=1700000000,preemptor_priority=3000000000,victim_priority=100", .rc = 1,  .preempted = true,
	  .repair = false, .by = 12, .pp = 3000000000u, .vp = 100, .at = 1700000000, .node = "" },
	{ .s = "budget:released_for_repair=gpu03,at=1700000001", .rc = 1,  .preempted = false,
	  .repair = true,  .by = 0,  .pp = 0, .vp = 0,   .at = 1700000001, .node = "gpu03" },
	{ .s = "other text budget:preempted_by=7,at=5,preemptor_priority=2,victim_priority=1", .rc = 1,  .preempted = true,
	  .repair = false, .by = 7,  .pp = 2, .vp = 1,   .at = 5,  .node = "" },
	{ .s = "budget:preempted_by=7,at=5,preemptor_priority=2,victim_priority=1 budget:preempted_by=9,at=6,preemptor_priority=4,victim_priority=3", .rc = 1,  .preempted = true,
	  .repair = false, .by = 9,  .pp = 4, .vp = 3,   .at = 6,  .node = "" },
	{ .s = "budget:preempted_by=7,at=5,newkey=x",         .rc = 1,  .preempted = true,
	  .repair = false, .by = 7,  .pp = 0, .vp = 0,   .at = 5,  .node = "" },
	{ .s = NULL,                                          .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "",                                            .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "admin says hi",                               .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "nobudget:preempted_by=7",                     .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=x,at=5",                  .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=0,at=5",                  .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=4294967296",              .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=5,victim_priority=-1",    .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	/* a budget: word that is not a stop note is not one */
	{ .s = "budget:at=5",                                 .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:garbage",                              .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=5,preempted_by=x",        .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:preempted_by=5,released_for_repair=n", .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	/* an AdminComment: the contract tag first, then the notes */
	{ .s = "budget:min_runtime=600,resumable=no,allocated=yes", .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:min_runtime=600,resumable=no,allocated=yes admin text "
	  "budget:preempted_by=41,at=1700000000,preemptor_priority=9,victim_priority=8", .rc = 1,  .preempted = true,
	  .repair = false, .by = 41, .pp = 9, .vp = 8,   .at = 1700000000, .node = "" },
	{ .s = "budget:min_runtime=600,resumable=no,allocated=yes "
	  "budget:preempted_by=41,at=10 budget:released_for_repair=gpu01,at=20", .rc = 1,  .preempted = false,
	  .repair = true,  .by = 0,  .pp = 0, .vp = 0,   .at = 20, .node = "gpu01" },
	{ .s = "budget:min_runtime=0,resumable=no,allocated=no;budget:preempted_by=3,at=4", .rc = 1,  .preempted = true,
	  .repair = false, .by = 3,  .pp = 0, .vp = 0,   .at = 4,  .node = "" },
	{ .s = "xbudget:preempted_by=3,at=4",                 .rc = 0,  .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
	{ .s = "budget:released_for_repair=,at=5",            .rc = -1, .preempted = false,
	  .repair = false, .by = 0,  .pp = 0, .vp = 0,   .at = 0,  .node = "" },
};

START_TEST(test_note)
{
	const struct note_case *c = &notes[_i];
	struct sb_stop_note n;
	int rc = sb_stop_note_parse(c->s, &n);

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d",
		      c->s ? c->s : "(null)", rc, c->rc);
	if (rc != 1)
		return;
	ck_assert_int_eq(n.preempted, c->preempted);
	ck_assert_int_eq(n.repair, c->repair);
	ck_assert_uint_eq(n.by_job, c->by);
	ck_assert_uint_eq(n.preemptor_priority, c->pp);
	ck_assert_uint_eq(n.victim_priority, c->vp);
	ck_assert_int_eq(n.at, c->at);
	ck_assert_str_eq(n.node, c->node);
}
END_TEST

struct conf_case {
	const char *text;
	int rc;
	int64_t window;
	const char *tres;
	const char *msg;
};

static const struct conf_case confs[] = {
	{ .text = "",                      .rc = 0,  .window = 7 * 86400, .tres = "gres/gpu",
	  .msg = NULL },
	{ .text = "# comment\nLookbackWindow=1-0\nBucketWidth=1\n", .rc = 0,  .window = 86400,     .tres = "gres/gpu",
	  .msg = NULL },
	/* as Slurm's parse_config: one Key=Value per line */
	{ .text = "LookbackWindow=1-0 BucketWidth=1\n", .rc = -1, .window = 0,         .tres = NULL,
	  .msg = "line 1: 'BucketWidth=1' after LookbackWindow=1-0: one Key=Value per line" },
	{ .text = "LookbackWindow=2-0 # trailing\nChargeTRES=cpu\n", .rc = 0,  .window = 2 * 86400, .tres = "cpu",
	  .msg = NULL },
	{ .text = "lookbackwindow=1-0\n",  .rc = 0,  .window = 86400,     .tres = "gres/gpu",
	  .msg = NULL },
	{ .text = "\n\nNoSuchKey=1\n",     .rc = -1, .window = 0,         .tres = NULL,
	  .msg = "line 3" },
	{ .text = "LookbackWindow\n",      .rc = -1, .window = 0,         .tres = NULL,
	  .msg = "not Key=Value" },
	{ .text = "LookbackWindow=soon\n", .rc = -1, .window = 0,         .tres = NULL,
	  .msg = "LookbackWindow" },
};

START_TEST(test_conf)
{
	const struct conf_case *c = &confs[_i];
	struct sb_config cfg;
	char msg[SBC_MSG_MAX] = "";
	int rc;

	sb_config_init(&cfg);
	rc = sbc_budget_conf_parse(c->text, &cfg, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)", c->text,
		      rc, c->rc, msg);
	if (rc == 0) {
		ck_assert_int_eq(cfg.lookback_window, c->window);
		ck_assert_str_eq(cfg.charge_tres, c->tres);
	} else {
		ck_assert_msg(strstr(msg, c->msg), "message \"%s\", expected "
			      "\"%s\"", msg, c->msg);
	}
}
END_TEST

/*
 * budget.conf as slurmctld reads it (sbc_budget_conf_read): a bad file does
 * not stop sbudget; the last valid copy (or the defaults) is used and one
 * warning names the file, the line, the error and what is used instead.
 * Files are written into a fresh directory per case; "dir" makes the name
 * a directory (cannot be read as a file), NULL leaves it missing.
 */
#define CONF_GOOD "LookbackWindow=2-0\nCalcPeriod=60\n"
#define CONF_LAST "LookbackWindow=3-0\nCalcPeriod=30\n"
#define CONF_DUP "LookbackWindow=2-0\nCalcPeriod=60\nCalcPeriod=0\n"
struct conf_read_case {
	const char *what;
	const char *conf;	/* budget.conf's text; NULL none, "dir" */
	const char *last;	/* the last valid copy's text; likewise */
	bool no_state;		/* no StateSaveLocation: last_valid NULL */
	enum sbc_conf_source want;
	int64_t window;		/* LookbackWindow of the settings used */
	const char *warn[3];	/* in the warning ("" none), "%D" = the
				 * directory */
};
static const struct conf_read_case conf_reads[] = {
	{ .what = "a good file", .conf = CONF_GOOD, .last = CONF_LAST,
	  .want = SBC_CONF_FILE, .window = 2 * 86400 },
	{ .what = "no file: the defaults, no warning", .last = CONF_LAST,
	  .want = SBC_CONF_MISSING, .window = 7 * 86400 },
	{ .what = "a key twice: the last valid copy", .conf = CONF_DUP,
	  .last = CONF_LAST, .want = SBC_CONF_LAST_VALID, .window = 3 * 86400,
	  .warn = { "%D/budget.conf line 3: CalcPeriod='0' gives the key "
		    "again (first on line 2): give each key once; sbudget "
		    "uses the last valid budget.conf, "
		    "%D/state/budget.conf.last-valid, as slurmctld does until "
		    "the file is fixed" } },
	{ .what = "a bad value: the last valid copy",
	  .conf = "LookbackWindow=soon\n", .last = CONF_LAST,
	  .want = SBC_CONF_LAST_VALID, .window = 3 * 86400,
	  .warn = { "%D/budget.conf line 1: ", "LookbackWindow",
		    "uses the last valid budget.conf" } },
	{ .what = "budget.conf unreadable: the last valid copy", .conf = "dir",
	  .last = CONF_LAST, .want = SBC_CONF_LAST_VALID, .window = 3 * 86400,
	  .warn = { "%D/budget.conf is not a regular file",
		    "uses the last valid budget.conf" } },
	{ .what = "no copy kept yet: the defaults", .conf = CONF_DUP,
	  .want = SBC_CONF_DEFAULTS, .window = 7 * 86400,
	  .warn = { "gives the key again", "cannot use the last valid "
		    "budget.conf slurmctld keeps (%D/state/budget.conf."
		    "last-valid does not exist", "so it uses the defaults: "
		    "its figures may differ from slurmctld's until the file "
		    "is fixed" } },
	{ .what = "the copy unreadable: the defaults", .conf = CONF_DUP,
	  .last = "dir", .want = SBC_CONF_DEFAULTS, .window = 7 * 86400,
	  .warn = { "line 3: CalcPeriod='0'", "(%D/state/budget.conf."
		    "last-valid is not a regular file", "uses the defaults" } },
	{ .what = "the copy not valid either: the defaults", .conf = CONF_DUP,
	  .last = "Colour=blue\n", .want = SBC_CONF_DEFAULTS,
	  .window = 7 * 86400,
	  .warn = { "(%D/state/budget.conf.last-valid line 1: ",
		    "Colour", "uses the defaults" } },
	{ .what = "no StateSaveLocation: the defaults", .conf = CONF_DUP,
	  .last = CONF_LAST, .no_state = true, .want = SBC_CONF_DEFAULTS,
	  .window = 7 * 86400,
	  .warn = { "no StateSaveLocation", "uses the defaults" } },
};

/* Write @text to @path ("dir": make a directory; NULL: nothing). */
static void put_file(const char *path, const char *text)
{
	FILE *f;

	if (!text)
		return;
	if (!strcmp(text, "dir")) {
		ck_assert_int_eq(mkdir(path, 0755), 0);
		return;
	}
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
}

/* @pat with each "%D" replaced by @dir. */
static void expand(const char *pat, const char *dir, char *out, size_t len)
{
	const char *d;
	size_t n = 0;

	out[0] = '\0';
	while ((d = strstr(pat, "%D"))) {
		n += (size_t)snprintf(out + n, len - n, "%.*s%s",
				      (int)(d - pat), pat, dir);
		pat = d + 2;
	}
	snprintf(out + n, len - n, "%s", pat);
}

START_TEST(test_conf_read)
{
	const struct conf_read_case *c = &conf_reads[_i];
	char dir[] = "/tmp/sbudget-conf-XXXXXX", path[256], last[256];
	char warn[SBC_MSG_MAX * 8], want[1024], cmd[300];
	struct sb_config cfg;
	enum sbc_conf_source got;
	size_t k;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/budget.conf", dir);
	snprintf(last, sizeof(last), "%s/state/budget.conf.last-valid", dir);
	put_file(path, c->conf);
	put_file(last, c->last);
	got = sbc_budget_conf_read(path, c->no_state ? NULL : last, &cfg,
				   warn, sizeof(warn));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(got == c->want, "%s: source %d, expected %d (%s)",
		      c->what, got, c->want, warn);
	ck_assert_msg(cfg.lookback_window == c->window, "%s: LookbackWindow "
		      "%lld, expected %lld", c->what,
		      (long long)cfg.lookback_window, (long long)c->window);
	if (!c->warn[0])
		ck_assert_msg(!warn[0], "%s: unexpected warning '%s'", c->what,
			      warn);
	for (k = 0; k < 3 && c->warn[k]; k++) {
		expand(c->warn[k], dir, want, sizeof(want));
		ck_assert_msg(strstr(warn, want), "%s: warning '%s', expected "
			      "'%s' in it", c->what, warn, want);
	}
	/* one sentence, one line */
	ck_assert_msg(!strchr(warn, '\n'), "%s: warning of several lines",
		      c->what);
}
END_TEST

/* ------------------------------------------------- start=, end=, span */

/* Points in time (TZ=UTC, set in main). */
struct time_case {
	const char *in;
	int rc;
	bool relative;
	int64_t value;
	const char *msg;	/* a part of the refusal */
};

static const struct time_case times[] = {
	{ .in = "now",               .rc = 0,  .relative = true,  .value = 0,
	  .msg = NULL },
	{ .in = "NOW",               .rc = 0,  .relative = true,  .value = 0,
	  .msg = NULL },
	{ .in = "now-90",            .rc = 0,  .relative = true,  .value = -90,
	  .msg = NULL },
	{ .in = "now-2hours",        .rc = 0,  .relative = true,  .value = -7200,
	  .msg = NULL },
	{ .in = "now-1hour",         .rc = 0,  .relative = true,  .value = -3600,
	  .msg = NULL },
	{ .in = "now-3Minutes",      .rc = 0,  .relative = true,  .value = -180,
	  .msg = NULL },
	{ .in = "now+1day",          .rc = 0,  .relative = true,  .value = 86400,
	  .msg = NULL },
	{ .in = "now-1week",         .rc = 0,  .relative = true,  .value = -604800,
	  .msg = NULL },
	{ .in = "now-10seconds",     .rc = 0,  .relative = true,  .value = -10,
	  .msg = NULL },
	{ .in = "uts1700000000",     .rc = 0,  .relative = false, .value = 1700000000,
	  .msg = NULL },
	{ .in = "UTS0",              .rc = 0,  .relative = false, .value = 0,
	  .msg = NULL },
	{ .in = "2026-11-30",        .rc = 0,  .relative = false, .value = 1795996800,
	  .msg = NULL },
	{ .in = "2026-11-30T12:30",  .rc = 0,  .relative = false, .value = 1796041800,
	  .msg = NULL },
	{ .in = "2026-11-30T12:30:15", .rc = 0,  .relative = false, .value = 1796041815,
	  .msg = NULL },
	{ .in = "2028-02-29",        .rc = 0,  .relative = false, .value = 1835395200,
	  .msg = NULL },
	{ .in = "",                  .rc = -1, .relative = false, .value = 0,
	  .msg = "start '': empty" },
	{ .in = NULL,                .rc = -1, .relative = false, .value = 0,
	  .msg = "start '': empty" },
	{ .in = "yesterday",         .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time; accepted: YYYY-MM-DD" },
	{ .in = "1700000000",        .rc = -1, .relative = false, .value = 0,
	  .msg = "a bare number; write uts1700000000" },
	{ .in = "now-2fortnights",   .rc = -1, .relative = false, .value = 0,
	  .msg = "unknown unit 'fortnights'" },
	{ .in = "now-",              .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "now-hour",          .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "now*2",             .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "now-400days",       .rc = -1, .relative = false, .value = 0,
	  .msg = "too far from now" },
	{ .in = "now-9999999999999", .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "uts",               .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "uts12x",            .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "uts-5",             .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-13-01",        .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-02-29",        .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-04-31",        .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-11-30T24:00",  .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-11-30T12:60",  .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-11-30T12",     .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "2026-11-30 12:00",  .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "26-11-30",          .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
	{ .in = "1969-12-31",        .rc = -1, .relative = false, .value = 0,
	  .msg = "not a point in time" },
};

START_TEST(test_time)
{
	const struct time_case *c = &times[_i];
	struct sbc_time t;
	char msg[SBC_MSG_MAX] = "";
	int rc = sbc_parse_time("start", c->in, &t, msg, sizeof(msg));

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)",
		      c->in ? c->in : "(null)", rc, c->rc, msg);
	if (rc == 0) {
		ck_assert_msg(t.set && t.relative == c->relative &&
			      t.value == c->value, "'%s': relative %d value "
			      "%lld, expected %d %lld", c->in, t.relative,
			      (long long)t.value, c->relative,
			      (long long)c->value);
		ck_assert_int_eq(sbc_time_at(&t, 1000),
				 c->relative ? 1000 + c->value : c->value);
	} else {
		ck_assert_msg(!t.set, "'%s': refused but set", c->in);
		ck_assert_msg(strstr(msg, c->msg), "'%s': message \"%s\", "
			      "expected \"%s\"", c->in, msg, c->msg);
	}
}
END_TEST

/* The span of a command line at NOW with a LookbackWindow of 1 day. */
#define NOW INT64_C(100000000)
#define DAY INT64_C(86400)

struct span_case {
	const char *line;
	int rc;
	int64_t from, to;
	const char *msg;
};

static const struct span_case spans[] = {
	{ .line = "show budget",                         .rc = 0,  .from = NOW - DAY, .to = NOW,
	  .msg = NULL },
	{ .line = "report",                              .rc = 0,  .from = NOW - DAY, .to = NOW,
	  .msg = NULL },
	{ .line = "show budget window=1:00:00",          .rc = 0,  .from = NOW - 3600, .to = NOW,
	  .msg = NULL },
	{ .line = "show budget start=uts99992800",       .rc = 0,  .from = NOW - 7200, .to = NOW,
	  .msg = NULL },
	{ .line = "show budget start=now-2hours window=1:00:00", .rc = 0,  .from = NOW - 7200, .to = NOW - 3600,
	  .msg = NULL },
	{ .line = "show budget end=now-1hour",           .rc = 0,  .from = NOW - 3600 - DAY, .to = NOW - 3600,
	  .msg = NULL },
	{ .line = "show budget end=now-1hour window=30", .rc = 0,  .from = NOW - 5400, .to = NOW - 3600,
	  .msg = NULL },
	{ .line = "report from=uts99990000 to=uts99996400 step=1:00:00", .rc = 0,  .from = 99990000,  .to = 99996400,
	  .msg = NULL },
	{ .line = "report starttime=uts99990000 endtime=now", .rc = 0,  .from = 99990000,  .to = NOW,
	  .msg = NULL },
	{ .line = "show budget start=uts99990000 end=uts99990001", .rc = 0,  .from = 99990000,  .to = 99990001,
	  .msg = NULL },
	{ .line = "show budget end=now+1",               .rc = -1, .from = 0,         .to = 0,
	  .msg = "after now" },
	{ .line = "show budget start=now-1hour window=2:00:00", .rc = -1, .from = 0,         .to = 0,
	  .msg = "after now" },
	{ .line = "show budget start=now end=now-1hour", .rc = -1, .from = 0,         .to = 0,
	  .msg = "is empty: start must be before end" },
	{ .line = "show budget start=now end=now",       .rc = -1, .from = 0,         .to = 0,
	  .msg = "is empty" },
	{ .line = "show budget start=uts1",              .rc = -1, .from = 0,         .to = 0,
	  .msg = "longer than 365 days" },
	{ .line = "report start=now-1hour step=2:00:00", .rc = -1, .from = 0,         .to = 0,
	  .msg = "step is longer than the span" },
	/* at most SBC_REPORT_MAX_STEPS (10080) steps: a week by the minute,
	 * a year by the hour; more is refused naming the step and the
	 * shortest accepted one (a 7-day window by the second took 3 GB) */
	{ .line = "report window=7-0 step=1",            .rc = 0,  .from = NOW - 7 * DAY, .to = NOW,
	  .msg = NULL },
	{ .line = "report start=uts1 end=uts31536001 step=1:00:00", .rc = 0,  .from = 1,         .to = 31536001,
	  .msg = NULL },
	{ .line = "report window=7-0 step=0:59",         .rc = -1, .from = 0,         .to = 0,
	  .msg = "step '0:00:59' cuts the span [" },
	{ .line = "report window=7-0 step=0:59",         .rc = -1, .from = 0,         .to = 0,
	  .msg = "10251 steps, more than 10080: give step=0:01:00 or longer" },
	{ .line = "report window=7-0 step=0:01",         .rc = -1, .from = 0,         .to = 0,
	  .msg = "604800 steps" },
	{ .line = "report window=365-0 step=0:01",       .rc = -1, .from = 0,         .to = 0,
	  .msg = "31536000 steps, more than 10080: give step=0:52:09 or longer" },
	{ .line = "report window=1-0 step=0:08",         .rc = -1, .from = 0,         .to = 0,
	  .msg = "10800 steps, more than 10080: give step=0:00:09 or longer" },
	{ .line = "report window=1-0 step=0:09",         .rc = 0,  .from = NOW - DAY, .to = NOW,
	  .msg = NULL },
	{ .line = "report start=uts1 end=uts604802 step=1", .rc = -1, .from = 0,         .to = 0,
	  .msg = "10081 steps" },
};

START_TEST(test_span)
{
	const struct span_case *c = &spans[_i];
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX] = "";
	int64_t from = -1, to = -1;
	int rc;

	ck_assert_msg(parse(c->line, &cmd, msg) == 0, "'%s': refused: %s",
		      c->line, msg);
	rc = sbc_span(&cmd, NOW, DAY, &from, &to, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d (%s)", c->line,
		      rc, c->rc, msg);
	if (rc == 0)
		ck_assert_msg(from == c->from && to == c->to, "'%s': [%lld, "
			      "%lld), expected [%lld, %lld)", c->line,
			      (long long)from, (long long)to,
			      (long long)c->from, (long long)c->to);
	else
		ck_assert_msg(strstr(msg, c->msg), "'%s': message \"%s\", "
			      "expected \"%s\"", c->line, msg, c->msg);
}
END_TEST

/* All three ends given is refused by the grammar and by sbc_span itself. */
START_TEST(test_span_three)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX] = "";
	int64_t from, to;

	ck_assert_int_eq(parse("show budget start=now-2hours end=now", &cmd,
			       msg), 0);
	cmd.window = 3600;
	ck_assert_int_eq(sbc_span(&cmd, NOW, DAY, &from, &to, msg,
				  sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "at most two"), "message \"%s\"", msg);
}
END_TEST

/* ------------------------------------------------------------- output */

static const struct sbc_fielddef defs[] = {
	{ "Name", 0, false }, { "Value", 0, true }, { "Note", 0, false },
};
static const char *const defaults[] = { "Name", "Value", NULL };

static char *render(const struct sbc_cmd *cmd, enum sbc_style style,
		    bool noheader, bool vertical)
{
	struct sbc_table t;
	char msg[SBC_MSG_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, cmd, msg,
					sizeof(msg)), 0);
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "phys-a");
	sbc_table_num(&t, "Value", 0.5, 3);
	sbc_table_text(&t, "Note", "say \"hi\"");
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "bio");
	sbc_table_int(&t, "Value", 12);
	sbc_table_print(&t, f, style, noheader, vertical, "rows");
	fclose(f);
	sbc_table_free(&t);
	return buf;
}

START_TEST(test_output)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX], *s;

	memset(&cmd, 0, sizeof(cmd));
	s = render(&cmd, SBC_STYLE_PARSABLE2, false, false);
	ck_assert_str_eq(s, "Name|Value\nphys-a|0.500\nbio|12\n");
	free(s);
	s = render(&cmd, SBC_STYLE_PARSABLE, true, false);
	ck_assert_str_eq(s, "phys-a|0.500|\nbio|12|\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, false, false);
	ck_assert_str_eq(s, "Name   Value\n------ -----\nphys-a 0.500\n"
			    "bio       12\n");
	free(s);
	ck_assert_int_eq(parse("show budget format=name%3,note,value", &cmd,
			       msg), 0);
	s = render(&cmd, SBC_STYLE_JSON, false, false);
	ck_assert_str_eq(s, "{\"rows\": [\n  {\"Name\": \"phys-a\", \"Note\": "
			    "\"say \\\"hi\\\"\", \"Value\": 0.500},\n  {\"Name\": "
			    "\"bio\", \"Note\": null, \"Value\": 12}\n]}\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, true, false);
	ck_assert_str_eq(s, "ph+ say \"hi\" 0.500\nbio             12\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, false, true);
	ck_assert_str_eq(s, " Name: phys-a\n Note: say \"hi\"\nValue: 0.500\n"
			    "\n Name: bio\nValue: 12\n");
	free(s);
}
END_TEST

/* The all-teams figures after a table: 50 of 64 GPU-hours hour by hour,
 * the worst team bio/ann at 1/8; over the window not computed. */
static char *render_all(enum sbc_style style, bool noheader, bool missing)
{
	struct sbc_table t;
	struct sbc_cmd cmd;
	struct sbc_all_teams all[2] = {
		{ .json_key = "all_teams", .title = "All teams", .suffix = "",
		  .teams = 3,
		  .fig = { .owed = 64 * 3600, .capped = 50 * 3600 + 0.4,
			   .ratio = 50.0 / 64, .teams_owed = 2, .worst = 1,
			   .worst_ratio = 0.125 },
		  .worst_account = "bio", .worst_user = "ann",
		  .worst_id = 21 },
		{ .json_key = "all_teams_window",
		  .title = "All teams over the window", .suffix = "Window",
		  .teams = 3,
		  .fig = { .owed = 0, .capped = 0, .ratio = 1,
			   .teams_owed = 0, .worst = SB_NONE,
			   .worst_ratio = 1 } },
	};
	char msg[SBC_MSG_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (missing)
		snprintf(all[1].missing, sizeof(all[1].missing), "too long");
	memset(&cmd, 0, sizeof(cmd));
	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, &cmd, msg,
					sizeof(msg)), 0);
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "bio");
	sbc_table_int(&t, "Value", 12);
	sbc_table_print_all(&t, f, style, noheader, "rows", all, 2);
	fclose(f);
	sbc_table_free(&t);
	return buf;
}

START_TEST(test_output_all_teams)
{
	char *s;

	s = render_all(SBC_STYLE_TABLE, false, false);
	ck_assert_str_eq(s, "Name Value\n---- -----\nbio     12\n"
			    "All teams: DelivOwed 0.781, Capped 50.000 of Owed "
			    "64.000 GPU-hours, 2 of 3 teams owed; worst team "
			    "bio/ann (id 21) 0.125\n"
			    "All teams over the window: DelivOwedWindow 1.000, "
			    "CappedWindow 0.000 of OwedWindow 0.000 GPU-hours, "
			    "0 of 3 teams owed\n");
	free(s);
	s = render_all(SBC_STYLE_TABLE, false, true);
	ck_assert_msg(strstr(s, "\nAll teams over the window: not computed: "
			     "too long\n"), "%s", s);
	free(s);
	/* -n, -p, -P: the rows only, every line a row */
	s = render_all(SBC_STYLE_TABLE, true, false);
	ck_assert_str_eq(s, "bio 12\n");
	free(s);
	s = render_all(SBC_STYLE_PARSABLE2, false, false);
	ck_assert_str_eq(s, "Name|Value\nbio|12\n");
	free(s);
	s = render_all(SBC_STYLE_PARSABLE, true, false);
	ck_assert_str_eq(s, "bio|12|\n");
	free(s);
	/* JSON: keys beside the rows' array; raw figures rounded */
	s = render_all(SBC_STYLE_JSON, false, false);
	ck_assert_str_eq(s, "{\"rows\": [\n  {\"Name\": \"bio\", \"Value\": 12}"
			    "\n],\n\"all_teams\": {\"Owed\": 64.000, \"Capped\": "
			    "50.000, \"DelivOwed\": 0.781, \"OwedRaw\": 230400, "
			    "\"CappedRaw\": 180000, \"Teams\": 3, \"TeamsOwed\": "
			    "2, \"WorstAccount\": \"bio\", \"WorstUser\": "
			    "\"ann\", \"WorstAssocId\": 21, \"WorstDelivOwed\": "
			    "0.125},\n\"all_teams_window\": {\"OwedWindow\": "
			    "0.000, \"CappedWindow\": 0.000, \"DelivOwedWindow\":"
			    " 1.000, \"OwedWindowRaw\": 0, \"CappedWindowRaw\": "
			    "0, \"Teams\": 3, \"TeamsOwed\": 0, \"WorstAccount\":"
			    " null, \"WorstUser\": null, \"WorstAssocId\": null,"
			    " \"WorstDelivOwedWindow\": null}}\n");
	free(s);
	s = render_all(SBC_STYLE_JSON, false, true);
	ck_assert_msg(strstr(s, ",\n\"all_teams_window\": null}\n"), "%s", s);
	free(s);
}
END_TEST

START_TEST(test_unknown_field)
{
	struct sbc_table t;
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];

	ck_assert_int_eq(parse("show budget format=Name,Colour", &cmd, msg), 0);
	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, &cmd, msg,
					sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "unknown field 'Colour'") &&
		      strstr(msg, "Name, Value, Note"), "message: %s", msg);
}
END_TEST

START_TEST(test_prom_and_svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const double a[] = { 1, 2, 3 }, b[] = { 0, 0.5, 0 };
	const struct sbc_plot_series s[] = {
		{ .name = "a<&>", .values = a, .quota = 2, .parent = -1 },
		{ .name = "b", .values = b, .quota = 1, .parent = 0 },
	};
	const int64_t t0 = INT64_C(1772361000);	/* 2026-03-01T10:30Z */
	size_t n = 0;
	const char *p;

	sbc_prom_label(f, "a\"b\\c\nd");
	fclose(f);
	ck_assert_str_eq(buf, "a\\\"b\\\\c\\nd");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sbc_svg_plot(f, "T", t0, t0 + 3 * 3600, 3600, 3, s,
				      2), 0);
	fclose(f);
	ck_assert(!strncmp(buf, "<?xml", 5));
	ck_assert(strstr(buf, "</svg>\n"));
	ck_assert(strstr(buf, ">a&lt;&amp;&gt;</text>"));
	for (p = buf; (p = strstr(p, "<path fill=\"#")); p++)
		n++;
	ck_assert_uint_eq(n, 2);	/* one filled panel per series */
	ck_assert(strstr(buf, "2026-03-01T10:30Z to 2026-03-01T13:30Z (UTC)"));
	free(buf);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0 + 3600, 0, 3, s, 2),
			 -1);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0 + 3600, 60, 0, s, 2),
			 -1);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0, 60, 1, s, 2), -1);
}
END_TEST

int main(void)
{
	Suite *s;
	TCase *tc = tcase_create("sbudget");

	/* start=YYYY-MM-DD is local time: the cases are worked out in UTC */
	setenv("TZ", "UTC", 1);
	tzset();
	s = suite_create("sbudget");
	tcase_add_loop_test(tc, test_good, 0, sizeof(good) / sizeof(good[0]));
	tcase_add_loop_test(tc, test_jobid, 0, sizeof(jobids) / sizeof(jobids[0]));
	tcase_add_test(tc, test_format_width);
	tcase_add_test(tc, test_add_budget_keys);
	tcase_add_test(tc, test_verbose);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_share, 0, sizeof(shares) / sizeof(shares[0]));
	tcase_add_loop_test(tc, test_tres, 0, sizeof(tres) / sizeof(tres[0]));
	tcase_add_loop_test(tc, test_note, 0, sizeof(notes) / sizeof(notes[0]));
	tcase_add_loop_test(tc, test_conf, 0, sizeof(confs) / sizeof(confs[0]));
	tcase_add_loop_test(tc, test_conf_read, 0,
			    sizeof(conf_reads) / sizeof(conf_reads[0]));
	tcase_add_loop_test(tc, test_time, 0, sizeof(times) / sizeof(times[0]));
	tcase_add_loop_test(tc, test_span, 0, sizeof(spans) / sizeof(spans[0]));
	tcase_add_test(tc, test_span_three);
	tcase_add_test(tc, test_output);
	tcase_add_test(tc, test_output_all_teams);
	tcase_add_test(tc, test_unknown_field);
	tcase_add_test(tc, test_prom_and_svg);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
