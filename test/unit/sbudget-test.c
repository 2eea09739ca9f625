/*
 * sbudget-test.c - sbudget's grammar, every refused argument, value parsers,
 * figures and output formats (src/sbudget/cli.h; no Slurm).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	{ "show job 42", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 0 },
	{ "show job jobid=42 format=JobId,WaitsFor", SBC_SHOW_JOB, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 42, 0, 0, 2 },
	{ "report", SBC_REPORT, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "report window=1-0 step=1:00:00 plot=a.svg", SBC_REPORT, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 86400, 3600, 0 },
	{ "report where account=bio", SBC_REPORT, SBC_STYLE_TABLE, false, false, 1, "bio", 0, 0, 0, 0, 0 },
	{ "metrics", SBC_METRICS, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 0, 0, 0 },
	{ "metrics window=60", SBC_METRICS, SBC_STYLE_TABLE, false, false, 0, NULL, 0, 0, 3600, 0, 0 },
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
	if (g->verb == SBC_MODIFY_BUDGET) {
		ck_assert(cmd.has_share);
		ck_assert_uint_eq(cmd.share, g->share);
	}
	ck_assert_uint_eq(cmd.job_id, g->job_id);
	ck_assert_int_eq(cmd.window, g->window);
	ck_assert_int_eq(cmd.step, g->step);
	ck_assert_uint_eq(cmd.nfields, g->nfields);
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
	{ "show job 12_3", "array tasks" },
	{ "show job 12+1", "array tasks" },
	{ "show job 1 2", "one job id at a time" },
	{ "show job 1 account=a", "does not apply" },
	{ "show job 1 window=1", "does not apply" },
	{ "show job 1 where", "'where' does not apply" },
	{ "report plot=x.png", "must end in .svg" },
	{ "report plot=", "give a file name" },
	{ "report step=0", "must be longer than 0" },
	{ "report window=1:00:00 step=2:00:00", "step is longer than the window" },
	{ "report user=u", "does not apply" },
	{ "metrics format=a", "does not apply" },
	{ "metrics account=a", "does not apply" },
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
	{ "budget:at=5", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:garbage", -1, false, false, 0, 0, 0, 0, "" },
	{ "budget:released_for_repair=,at=5", -1, false, false, 0, 0, 0, 0, "" },
};

START_TEST(test_note)
{
	const struct note_case *c = &notes[_i];
	struct sbc_preempt_note n;
	int rc = sbc_parse_system_comment(c->s, &n);

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

/* ------------------------------------------------------------ figures */

/*
 * Tree: A (id 1, shares 3) -> u (id 3, 1); B (id 2, shares 1).
 * Pre-order indices: A 0, u 1, B 2.  Entitled: A = u = 0.75, B = 0.25.
 * Capacity 8, window [1000, 8200), slots of 3600 s, now = 8000.
 * (Eligible 0 means "never eligible" in Slurm's records: times start at 1000.)
 */
static struct sb_tree *fig_tree(void)
{
	struct sb_tree *t = sb_tree_new();

	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(sb_tree_add(t, 1, 0, 3, "A"), 0);
	ck_assert_int_eq(sb_tree_add(t, 2, 0, 1, "B"), 0);
	ck_assert_int_eq(sb_tree_add(t, 3, 1, 1, "A/u"), 0);
	ck_assert_int_eq(sb_tree_finalize(t), 0);
	return t;
}

START_TEST(test_figures)
{
	struct sb_tree *t = fig_tree();
	const struct sbc_seg segs[] = {
		/* u: allocated, 4 GPUs, eligible 1000, ran 2800..6400 */
		{ 3, 1, 1000, 2800, 6400, 4, true },
		/* B: unallocated, 2 GPUs, running since 1200 (open) */
		{ 2, 2, 1100, 1200, 0, 2, false },
		/* B: allocated, 8 GPUs, pending since 4600 (open) */
		{ 2, 3, 4600, 0, 0, 8, true },
		/* an association not in the tree */
		{ 99, 4, 1000, 0, 1100, 1, true },
	};
	struct sbc_fig tot[3], ser[3 * 2];
	size_t unknown = 0;

	ck_assert_uint_eq(sbc_nslots(0, 7200, 3600), 2);
	ck_assert_uint_eq(sbc_nslots(0, 7201, 3600), 3);
	ck_assert_int_eq(sbc_figures(t, segs, 4, 1000, 8200, 3600, 8000, 8,
				     tot, ser, &unknown), 0);
	ck_assert_uint_eq(unknown, 1);
	/* delivered: u ran 3600 s x 4 = 14400, A sums its subtree */
	ck_assert_double_eq(tot[1].delivered, 14400);
	ck_assert_double_eq(tot[0].delivered, 14400);
	ck_assert_double_eq(tot[2].delivered, 0);
	/* unallocated: B 1200..8000 x 2 */
	ck_assert_double_eq(tot[2].unallocated, 13600);
	ck_assert_double_eq(tot[0].unallocated, 0);
	/* demand: u 1000..6400 x 4; B 4600..8000 x 8 */
	ck_assert_double_eq(tot[1].demand, 21600);
	ck_assert_double_eq(tot[2].demand, 27200);
	/* quota: entitled x 8 x 7200 */
	ck_assert_double_eq(tot[0].quota, 43200);
	ck_assert_double_eq(tot[2].quota, 14400);
	/* owed: A min(21600, 14400) + min(21600, 7200); B 0 + min(7200, 27200) */
	ck_assert_double_eq(tot[0].owed, 21600);
	ck_assert_double_eq(tot[1].owed, 21600);
	ck_assert_double_eq(tot[2].owed, 7200);
	/* per slot: u delivered 2800..4600 and 4600..6400 */
	ck_assert_double_eq(ser[1 * 2 + 0].delivered, 7200);
	ck_assert_double_eq(ser[1 * 2 + 1].delivered, 7200);
	ck_assert_double_eq(ser[2 * 2 + 1].owed, 7200);
	ck_assert_double_eq(ser[2 * 2 + 0].owed, 0);
	sb_tree_free(t);
}
END_TEST

/* Owed never exceeds the quota or the demand, and delivered work inside
 * the window is counted exactly once whatever the slot width. */
START_TEST(test_figures_slots)
{
	struct sb_tree *t = fig_tree();
	const struct sbc_seg segs[] = {
		{ 3, 1, 110, 120, 7290, 8, true },
		{ 2, 2, 50, 0, 0, 8, true },
	};
	static const int64_t slots[] = { 1, 7, 60, 3600, 7200, 10000 };
	size_t k;

	for (k = 0; k < sizeof(slots) / sizeof(slots[0]); k++) {
		struct sbc_fig tot[3];
		int i;

		ck_assert_int_eq(sbc_figures(t, segs, 2, 100, 7300, slots[k],
					     7300, 8, tot, NULL, NULL), 0);
		ck_assert_double_eq(tot[1].delivered, 7170.0 * 8);
		for (i = 0; i < 3; i++) {
			ck_assert(tot[i].owed <= tot[i].quota + 1e-6);
			ck_assert(tot[i].owed <= tot[i].demand + 1e-6);
		}
		/* B asks for the whole cluster all the time: owed = quota */
		ck_assert_double_eq_tol(tot[2].owed, tot[2].quota, 1e-6);
	}
	sb_tree_free(t);
}
END_TEST

START_TEST(test_figures_bad)
{
	struct sb_tree *t = fig_tree();
	struct sbc_fig tot[3];

	ck_assert_int_eq(sbc_figures(t, NULL, 0, 10, 10, 60, 10, 8, tot, NULL, NULL), -1);
	ck_assert_int_eq(sbc_figures(t, NULL, 0, 0, 10, 0, 10, 8, tot, NULL, NULL), -1);
	ck_assert_int_eq(sbc_figures(t, NULL, 0, 0, 10, 60, 10, -1, tot, NULL, NULL), -1);
	ck_assert_int_eq(sbc_figures(NULL, NULL, 0, 0, 10, 60, 10, 8, tot, NULL, NULL), -1);
	ck_assert_int_eq(sbc_figures(t, NULL, 0, 0, 10, 60, 10, 8, tot, NULL, NULL), 0);
	ck_assert_double_eq(tot[0].owed, 0);
	sb_tree_free(t);
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
	const struct sbc_plot_series s[] = { { "a<&>", a, 2 }, { "b", b, 1 } };
	size_t n = 0;
	const char *p;

	sbc_prom_label(f, "a\"b\\c\nd");
	fclose(f);
	ck_assert_str_eq(buf, "a\\\"b\\\\c\\nd");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sbc_svg_plot(f, "T", 0, 3600, 3, s, 2), 0);
	fclose(f);
	ck_assert(!strncmp(buf, "<?xml", 5));
	ck_assert(strstr(buf, "</svg>\n"));
	ck_assert(strstr(buf, "a&lt;&amp;&gt; used"));
	for (p = buf; (p = strstr(p, "<polyline")); p++)
		n++;
	ck_assert_uint_eq(n, 2);	/* one line per series */
	free(buf);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", 0, 0, 3, s, 2), -1);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", 0, 60, 0, s, 2), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sbudget");
	TCase *tc = tcase_create("sbudget");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_good, 0, sizeof(good) / sizeof(good[0]));
	tcase_add_test(tc, test_format_width);
	tcase_add_test(tc, test_verbose);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_share, 0, sizeof(shares) / sizeof(shares[0]));
	tcase_add_loop_test(tc, test_tres, 0, sizeof(tres) / sizeof(tres[0]));
	tcase_add_loop_test(tc, test_note, 0, sizeof(notes) / sizeof(notes[0]));
	tcase_add_loop_test(tc, test_conf, 0, sizeof(confs) / sizeof(confs[0]));
	tcase_add_test(tc, test_figures);
	tcase_add_test(tc, test_figures_slots);
	tcase_add_test(tc, test_figures_bad);
	tcase_add_test(tc, test_output);
	tcase_add_test(tc, test_unknown_field);
	tcase_add_test(tc, test_prom_and_svg);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
