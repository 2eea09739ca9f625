/*
 * sbudget-test.c - sbudget's grammar and every refused argument
 * (src/sbudget/cli.h; no Slurm).  Value parsers, budget.conf and the span of
 * the figures (start=, end=, window=) are tested in sbudget-values-test.c,
 * output formats in sbudget-output-test.c.  The figures themselves are the
 * core's, tested in figures-test.c.
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
#include "sbudget-test.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/tree.h"

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
	sbudget_value_tests(tc);
	sbudget_output_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
