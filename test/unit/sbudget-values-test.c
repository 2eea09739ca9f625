/*
 * sbudget-values-test.c - sbudget's value parsers (shares, TRES, notes,
 * settings), budget.conf as slurmctld reads it, points in time (start=,
 * end=) and the span of the figures (src/sbudget/cli.h; no Slurm).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "sbudget-test.h"
#include "sb/config.h"

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

void sbudget_value_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_share, 0, sizeof(shares) / sizeof(shares[0]));
	tcase_add_loop_test(tc, test_tres, 0, sizeof(tres) / sizeof(tres[0]));
	tcase_add_loop_test(tc, test_note, 0, sizeof(notes) / sizeof(notes[0]));
	tcase_add_loop_test(tc, test_conf, 0, sizeof(confs) / sizeof(confs[0]));
	tcase_add_loop_test(tc, test_conf_read, 0,
			    sizeof(conf_reads) / sizeof(conf_reads[0]));
	tcase_add_loop_test(tc, test_time, 0, sizeof(times) / sizeof(times[0]));
	tcase_add_loop_test(tc, test_span, 0, sizeof(spans) / sizeof(spans[0]));
	tcase_add_test(tc, test_span_three);
}
