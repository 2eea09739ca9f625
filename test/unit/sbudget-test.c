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
	{ "show budget", SBC_SHOW_BUDGET, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "list budgets", SBC_SHOW_BUDGET, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "SHOW Budget WHERE Account=Phys-A", SBC_SHOW_BUDGET, SBC_STYLE_TABLE, false, false, 1, "phys-a", 0, 0, 0, 0, 0 },
	{ "show budget account=a,b,c", SBC_SHOW_BUDGET, SBC_STYLE_TABLE, false, false, 3, "a", 0, 0, 0, 0, 0 },
	{ "-P show budget", SBC_SHOW_BUDGET, SBC_STYLE_PARSABLE2, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "show budget -p -n", SBC_SHOW_BUDGET, SBC_STYLE_PARSABLE, true, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "-nP show budget", SBC_SHOW_BUDGET, SBC_STYLE_PARSABLE2, true, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "--json show budget window=7-0", SBC_SHOW_BUDGET, SBC_STYLE_JSON, false, false, 0, NULL, 0, 0, 7 * 86400, 0, 0 },
	{ "show budget format=Account,Owed%10", SBC_SHOW_BUDGET, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 2 },
	{ "modify budget where account=bio set share=5", SBC_MODIFY_BUDGET, SBC_STYLE_TABLE, false, false, 1, "bio", 5, 0, 0, 0, 0 },
	{ "-i modify budget where name=bio set fairshare=0", SBC_MODIFY_BUDGET, SBC_STYLE_TABLE, false, true, 1, "bio", 0, 0, 0, 0, 0 },
	{ "update budget where account=x user=u set share=parent --immediate", SBC_MODIFY_BUDGET, SBC_STYLE_TABLE, false, true, 1, "x", SB_SHARES_USE_PARENT, 0, 0, 0, 0 },
	{ "add budget account=chem parent=sci share=3", SBC_ADD_BUDGET, SBC_STYLE_TABLE, false, false, 1, "chem", 3, 0, 0, 0, 0 },
	{ "-i create budgets name=A,b share=parent", SBC_ADD_BUDGET, SBC_STYLE_TABLE, false, true, 2, "a", SB_SHARES_USE_PARENT, 0, 0, 0, 0 },
	{ "add budget share=0 account=x description=X-ray organization=physics", SBC_ADD_BUDGET, SBC_STYLE_TABLE, false, false, 1, "x", 0, 0, 0, 0, 0 },
	{ "show job 42", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 0 },
	{ "show job jobid=42 format=JobId,WaitsFor", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 2 },
	{ "show job -D 42", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 0 },
	{ "-PnD show job 42 format=JobId,PreemptedBy", SBC_SHOW_JOB, SBC_STYLE_PARSABLE2, true, false, 0, NULL, 0, 42, 0, 0, 2 },
	{ "show job 42 --duplicates", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 0 },
	{ "show job 116_3", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 116, 0, 0, 0 },
	{ "show job 116_0 format=JobId", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 116, 0, 0, 1 },
	{ "show job jobid=7_4000000", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 7, 0, 0, 0 },
	{ "report", SBC_REPORT, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "report window=1-0 step=1:00:00 plot=a.svg", SBC_REPORT, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 86400, 3600, 0 },
	{ "report where account=bio", SBC_REPORT, SBC_STYLE_TABLE, false, false, 1, "bio", 0, 0, 0, 0, 0 },
	{ "metrics", SBC_METRICS, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "metrics window=60", SBC_METRICS, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 3600, 0, 0 },
	{ "page budgets.html", SBC_PAGE, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "page - where account=Physics window=7-0 step=6:00:00", SBC_PAGE, SBC_STYLE_TABLE, false, false, 1, "physics", 0, 0, 7 * 86400, 6 * 3600, 0 },
	{ "page /srv/www/B.HTM start=now-2days", SBC_PAGE, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "--help", SBC_HELP, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "show budget -h", SBC_HELP, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "-V", SBC_VERSION, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "version", SBC_VERSION, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
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
	{ "0", 0, 0 }, { "1", 0, 1 }, { "2147483646", 0, 2147483646u },
	{ "Parent", 0, SB_SHARES_USE_PARENT }, { "007", 0, 7 },
	{ "2147483647", -1, 0 }, { "", -1, 0 }, { NULL, -1, 0 },
	{ "+1", -1, 0 }, { " 1", -1, 0 }, { "1e3", -1, 0 }, { "0x10", -1, 0 },
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
	{ "cpu=8,mem=4G,billing=8,gres/gpu=8", "gres/gpu", 8 },
	{ "cpu=8,mem=4G,gres/gpu=8", "mem", 4.0 * 1024 * 1024 * 1024 },
	{ "1=8,2=4096,4=1,1001=16", "1001", 16 },
	{ "1=8,2=4096,4=1,1001=16", "1", 8 },
	{ "1=8,2=4096,4=1,10011=16", "1001", 0 },
	{ "gres/gpu:h100=4,gres/gpu=4", "gres/gpu", 4 },
	{ "cpu=1", "gres/gpu", 0 },
	{ "", "gres/gpu", 0 },
	{ NULL, "gres/gpu", 0 },
	{ "gres/gpu=x", "gres/gpu", -1 },
	{ "gres/gpu=", "gres/gpu", -1 },
	{ "gres/gpu=8Q", "gres/gpu", -1 },
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
	{ "budget:preempted_by=12,at=1700000000,preemptor_priority=3000000000,victim_priority=100",
	  1, true, false, 12, 3000000000u, 100, 1700000000, "" },
	{ "budget:released_for_repair=gpu03,at=1700000001", 1, false, true, 0, 0, 0, 1700000001, "gpu03" },
	{ "other text budget:preempted_by=7,at=5,preemptor_priority=2,victim_priority=1",
	  1, true, false, 7, 2, 1, 5, "" },
	{ "budget:preempted_by=7,at=5,preemptor_priority=2,victim_priority=1 budget:preempted_by=9,at=6,preemptor_priority=4,victim_priority=3",
	  1, true, false, 9, 4, 3, 6, "" },
	{ "budget:preempted_by=7,at=5,newkey=x", 1, true, false, 7, 0, 0, 5, "" },
	{ NULL, 0, false, false, 0, 0, 0, 0, "" },
	{ "", 0, false, false, 0, 0, 0, 0, "" },
	{ "admin says hi", 0, false, false, 0, 0, 0, 0, "" },
	{ "nobudget:preempted_by=7", 0, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=x,at=5", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=0,at=5", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=4294967296", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=5,victim_priority=-1", -1, false, false, 0, 0, 0, 0, "" },
	/* a budget: word that is not a stop note is not one */
	{ "budget:at=5", 0, false, false, 0, 0, 0, 0, "" },
	{ "budget:garbage", 0, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=5,preempted_by=x", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:preempted_by=5,released_for_repair=n", -1, false, false, 0, 0, 0, 0, "" },
	/* an AdminComment: the contract tag first, then the notes */
	{ "budget:min_runtime=600,resumable=no,allocated=yes", 0, false, false, 0, 0, 0, 0, "" },
	{ "budget:min_runtime=600,resumable=no,allocated=yes admin text "
	  "budget:preempted_by=41,at=1700000000,preemptor_priority=9,victim_priority=8",
	  1, true, false, 41, 9, 8, 1700000000, "" },
	{ "budget:min_runtime=600,resumable=no,allocated=yes "
	  "budget:preempted_by=41,at=10 budget:released_for_repair=gpu01,at=20",
	  1, false, true, 0, 0, 0, 20, "gpu01" },
	{ "budget:min_runtime=0,resumable=no,allocated=no;budget:preempted_by=3,at=4",
	  1, true, false, 3, 0, 0, 4, "" },
	{ "xbudget:preempted_by=3,at=4", 0, false, false, 0, 0, 0, 0, "" },
	{ "budget:released_for_repair=,at=5", -1, false, false, 0, 0, 0, 0, "" },
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
	{ "", 0, 7 * 86400, "gres/gpu", NULL },
	{ "# comment\nLookbackWindow=1-0\nBucketWidth=1\n", 0, 86400, "gres/gpu", NULL },
	/* as Slurm's parse_config: one Key=Value per line */
	{ "LookbackWindow=1-0 BucketWidth=1\n", -1, 0, NULL, "line 1: 'BucketWidth=1' after LookbackWindow=1-0: one Key=Value per line" },
	{ "LookbackWindow=2-0 # trailing\nChargeTRES=cpu\n", 0, 2 * 86400, "cpu", NULL },
	{ "lookbackwindow=1-0\n", 0, 86400, "gres/gpu", NULL },
	{ "\n\nNoSuchKey=1\n", -1, 0, NULL, "line 3" },
	{ "LookbackWindow\n", -1, 0, NULL, "not Key=Value" },
	{ "LookbackWindow=soon\n", -1, 0, NULL, "LookbackWindow" },
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
	{ "now", 0, true, 0, NULL },
	{ "NOW", 0, true, 0, NULL },
	{ "now-90", 0, true, -90, NULL },
	{ "now-2hours", 0, true, -7200, NULL },
	{ "now-1hour", 0, true, -3600, NULL },
	{ "now-3Minutes", 0, true, -180, NULL },
	{ "now+1day", 0, true, 86400, NULL },
	{ "now-1week", 0, true, -604800, NULL },
	{ "now-10seconds", 0, true, -10, NULL },
	{ "uts1700000000", 0, false, 1700000000, NULL },
	{ "UTS0", 0, false, 0, NULL },
	{ "2026-11-30", 0, false, 1795996800, NULL },
	{ "2026-11-30T12:30", 0, false, 1796041800, NULL },
	{ "2026-11-30T12:30:15", 0, false, 1796041815, NULL },
	{ "2028-02-29", 0, false, 1835395200, NULL },
	{ "", -1, false, 0, "start '': empty" },
	{ NULL, -1, false, 0, "start '': empty" },
	{ "yesterday", -1, false, 0, "not a point in time; accepted: YYYY-MM-DD" },
	{ "1700000000", -1, false, 0, "a bare number; write uts1700000000" },
	{ "now-2fortnights", -1, false, 0, "unknown unit 'fortnights'" },
	{ "now-", -1, false, 0, "not a point in time" },
	{ "now-hour", -1, false, 0, "not a point in time" },
	{ "now*2", -1, false, 0, "not a point in time" },
	{ "now-400days", -1, false, 0, "too far from now" },
	{ "now-9999999999999", -1, false, 0, "not a point in time" },
	{ "uts", -1, false, 0, "not a point in time" },
	{ "uts12x", -1, false, 0, "not a point in time" },
	{ "uts-5", -1, false, 0, "not a point in time" },
	{ "2026-13-01", -1, false, 0, "not a point in time" },
	{ "2026-02-29", -1, false, 0, "not a point in time" },
	{ "2026-04-31", -1, false, 0, "not a point in time" },
	{ "2026-11-30T24:00", -1, false, 0, "not a point in time" },
	{ "2026-11-30T12:60", -1, false, 0, "not a point in time" },
	{ "2026-11-30T12", -1, false, 0, "not a point in time" },
	{ "2026-11-30 12:00", -1, false, 0, "not a point in time" },
	{ "26-11-30", -1, false, 0, "not a point in time" },
	{ "1969-12-31", -1, false, 0, "not a point in time" },
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
	{ "show budget", 0, NOW - DAY, NOW, NULL },
	{ "report", 0, NOW - DAY, NOW, NULL },
	{ "show budget window=1:00:00", 0, NOW - 3600, NOW, NULL },
	{ "show budget start=uts99992800", 0, NOW - 7200, NOW, NULL },
	{ "show budget start=now-2hours window=1:00:00", 0, NOW - 7200, NOW - 3600, NULL },
	{ "show budget end=now-1hour", 0, NOW - 3600 - DAY, NOW - 3600, NULL },
	{ "show budget end=now-1hour window=30", 0, NOW - 5400, NOW - 3600, NULL },
	{ "report from=uts99990000 to=uts99996400 step=1:00:00", 0, 99990000, 99996400, NULL },
	{ "report starttime=uts99990000 endtime=now", 0, 99990000, NOW, NULL },
	{ "show budget start=uts99990000 end=uts99990001", 0, 99990000, 99990001, NULL },
	{ "show budget end=now+1", -1, 0, 0, "after now" },
	{ "show budget start=now-1hour window=2:00:00", -1, 0, 0, "after now" },
	{ "show budget start=now end=now-1hour", -1, 0, 0, "is empty: start must be before end" },
	{ "show budget start=now end=now", -1, 0, 0, "is empty" },
	{ "show budget start=uts1", -1, 0, 0, "longer than 365 days" },
	{ "report start=now-1hour step=2:00:00", -1, 0, 0, "step is longer than the span" },
	/* at most SBC_REPORT_MAX_STEPS (10080) steps: a week by the minute,
	 * a year by the hour; more is refused naming the step and the
	 * shortest accepted one (a 7-day window by the second took 3 GB) */
	{ "report window=7-0 step=1", 0, NOW - 7 * DAY, NOW, NULL },
	{ "report start=uts1 end=uts31536001 step=1:00:00", 0, 1, 31536001, NULL },
	{ "report window=7-0 step=0:59", -1, 0, 0, "step '0:00:59' cuts the span [" },
	{ "report window=7-0 step=0:59", -1, 0, 0, "10251 steps, more than 10080: give step=0:01:00 or longer" },
	{ "report window=7-0 step=0:01", -1, 0, 0, "604800 steps" },
	{ "report window=365-0 step=0:01", -1, 0, 0, "31536000 steps, more than 10080: give step=0:52:09 or longer" },
	{ "report window=1-0 step=0:08", -1, 0, 0, "10800 steps, more than 10080: give step=0:00:09 or longer" },
	{ "report window=1-0 step=0:09", 0, NOW - DAY, NOW, NULL },
	{ "report start=uts1 end=uts604802 step=1", -1, 0, 0, "10081 steps" },
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
	tcase_add_test(tc, test_unknown_field);
	tcase_add_test(tc, test_prom_and_svg);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
