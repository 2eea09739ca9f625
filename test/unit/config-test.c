/* config-test.c - budget.conf keys: defaults, values, refusals. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/config.h"
#include "sb/error.h"

#include "conf-cases.h"

START_TEST(test_defaults)
{
	struct sb_config cfg;
	char buf[512];

	sb_config_init(&cfg);
	ck_assert_int_eq(cfg.contract.max_min_runtime, 8 * 3600);
	ck_assert_int_lt(cfg.contract.default_min_runtime, 0);
	ck_assert_str_eq(sb_config_describe(&cfg, buf, sizeof(buf)),
			 "MaxMinRuntime=8:00:00 DefaultMinRuntime=none CalcPeriod=60 "
			 "LookbackWindow=7-00:00:00 BucketWidth=1:00:00 ChargeTRES=gres/gpu "
			 "PreemptGraceTime=30 PreemptNonResumable=requeue "
			 "RepairReason=repair* InteractiveWarning=0:05:00 "
			 "SubmitNote=yes PreemptIntervalFactor=2 DebugLaneTRES=8 "
			 "DebugLaneMinRuntime=0:15:00 DebugLaneBudgetTRES=8 "
			 "UnallocatedRestartBackoffMax=1-00:00:00 "
			 "PreemptLossWait=none Cutover=none");
	ck_assert_int_eq(sb_config_check(&cfg, buf, sizeof(buf)), SB_OK);
}
END_TEST

struct set_case {
	const char *key, *value;
	int rc;
	const char *msg_has;	/* on failure */
	int64_t max, def;	/* on success */
};

static const struct set_case set[] = {
	{ .key = "MaxMinRuntime",     .value = "4:00:00",    .rc = SB_OK,
	  .msg_has = NULL,                      .max = 4 * 3600,  .def = -1 },
	{ .key = "maxminruntime",     .value = "0-12",       .rc = SB_OK,
	  .msg_has = NULL,                      .max = 12 * 3600, .def = -1 },
	{ .key = "DefaultMinRuntime", .value = "15",         .rc = SB_OK,
	  .msg_has = NULL,                      .max = 8 * 3600,  .def = 900 },
	{ .key = "DefaultMinRuntime", .value = "none",       .rc = SB_OK,
	  .msg_has = NULL,                      .max = 8 * 3600,  .def = -1 },
	{ .key = "DefaultMinRuntime", .value = "0",          .rc = SB_OK,
	  .msg_has = NULL,                      .max = 8 * 3600,  .def = 0 },
	{ .key = "MaxMinRuntime",     .value = "none",       .rc = SB_ESYNTAX,
	  .msg_has = "MaxMinRuntime='none': malformed value; give a duration", .max = 0,         .def = 0 },
	{ .key = "MaxMinRuntime",     .value = "8h",         .rc = SB_ESYNTAX,
	  .msg_has = "MaxMinRuntime='8h'",      .max = 0,         .def = 0 },
	{ .key = "MaxMinRuntime",     .value = "-1",         .rc = SB_ENEGATIVE,
	  .msg_has = "'-1': negative value",    .max = 0,         .def = 0 },
	{ .key = "MaxMinRuntime",     .value = "",           .rc = SB_ESYNTAX,
	  .msg_has = "MaxMinRuntime=''",        .max = 0,         .def = 0 },
	{ .key = "MaxMinRuntime",     .value = NULL,         .rc = SB_EMISSING,
	  .msg_has = "MaxMinRuntime='(null)'",  .max = 0,         .def = 0 },
	{ .key = "MaxMinRuntime",     .value = "400-0",      .rc = SB_ERANGE,
	  .msg_has = "out of range",            .max = 0,         .def = 0 },
	{ .key = "DefaultMinRuntime", .value = "soon",       .rc = SB_ESYNTAX,
	  .msg_has = "or none",                 .max = 0,         .def = 0 },
	{ .key = "MinRuntimeMax",     .value = "1",          .rc = SB_EUNKNOWNKEY,
	  .msg_has = "unknown key 'MinRuntimeMax' (accepted: MaxMinRuntime", .max = 0,         .def = 0 },
	{ .key = "",                  .value = "1",          .rc = SB_EUNKNOWNKEY,
	  .msg_has = "unknown key ''",          .max = 0,         .def = 0 },
	{ .key = "CalcPeriod",        .value = "0",          .rc = SB_ESYNTAX,
	  .msg_has = "CalcPeriod='0' is not accepted: give whole seconds from 1 to 3600", .max = 0,         .def = 0 },
	{ .key = "CalcPeriod",        .value = "3601",       .rc = SB_ESYNTAX,
	  .msg_has = "CalcPeriod='3601'",       .max = 0,         .def = 0 },
	{ .key = "CalcPeriod",        .value = "1m",         .rc = SB_ESYNTAX,
	  .msg_has = "CalcPeriod='1m'",         .max = 0,         .def = 0 },
	{ .key = "CalcPeriod",        .value = "99999999999999999999", .rc = SB_ESYNTAX,
	  .msg_has = "CalcPeriod='9999",        .max = 0,         .def = 0 },
	{ .key = "CalcPeriod",        .value = "",           .rc = SB_ESYNTAX,
	  .msg_has = "CalcPeriod=''",           .max = 0,         .def = 0 },
	{ .key = "LookbackWindow",    .value = "7d",         .rc = SB_ESYNTAX,
	  .msg_has = "LookbackWindow='7d'",     .max = 0,         .def = 0 },
	{ .key = "BucketWidth",       .value = "-1",         .rc = SB_ENEGATIVE,
	  .msg_has = "BucketWidth='-1'",        .max = 0,         .def = 0 },
	{ .key = "ChargeTRES",        .value = "gpu",        .rc = SB_ESYNTAX,
	  .msg_has = "ChargeTRES='gpu' is not accepted: give a TRES", .max = 0,         .def = 0 },
	{ .key = "ChargeTRES",        .value = "gres/",      .rc = SB_ESYNTAX,
	  .msg_has = "ChargeTRES='gres/'",      .max = 0,         .def = 0 },
	{ .key = "ChargeTRES",        .value = "GRES/GPU",   .rc = SB_ESYNTAX,
	  .msg_has = "ChargeTRES='GRES/GPU'",   .max = 0,         .def = 0 },
	{ .key = "ChargeTRES",        .value = "gres/gpu/x", .rc = SB_ESYNTAX,
	  .msg_has = "ChargeTRES='gres/gpu/x'", .max = 0,         .def = 0 },
	{ .key = "ChargeTRES",        .value = "gres/g pu",  .rc = SB_ESYNTAX,
	  .msg_has = "ChargeTRES='gres/g pu'",  .max = 0,         .def = 0 },
};

START_TEST(test_set)
{
	const struct set_case *c = &set[_i];
	struct sb_config cfg;
	char msg[512];
	int rc;

	sb_config_init(&cfg);
	rc = sb_config_set(&cfg, c->key, c->value, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s=%s: rc %d expected %d (%s)", c->key,
		      c->value, rc, c->rc, msg);
	if (rc == SB_OK) {
		ck_assert_int_eq(cfg.contract.max_min_runtime, c->max);
		ck_assert_int_eq(cfg.contract.default_min_runtime, c->def);
	} else {
		ck_assert_msg(strstr(msg, c->msg_has), "message '%s' lacks '%s'",
			      msg, c->msg_has);
		/* a refused value leaves the previous settings in place */
		ck_assert_int_eq(cfg.contract.max_min_runtime, 8 * 3600);
		ck_assert_int_lt(cfg.contract.default_min_runtime, 0);
	}
}
END_TEST

START_TEST(test_default_above_max)
{
	struct sb_config cfg;
	char msg[256];

	sb_config_init(&cfg);
	ck_assert_int_eq(sb_config_set(&cfg, "MaxMinRuntime", "1:00:00", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_set(&cfg, "DefaultMinRuntime", "2:00:00", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_check(&cfg, msg, sizeof(msg)), SB_EABOVEMAX);
	ck_assert_str_eq(msg, "DefaultMinRuntime=2:00:00 exceeds MaxMinRuntime=1:00:00: "
			 "lower the default or raise the maximum");
}
END_TEST

START_TEST(test_scheduling_keys)
{
	struct sb_config cfg;
	char msg[256];

	sb_config_init(&cfg);
	ck_assert_int_eq(sb_config_set(&cfg, "CalcPeriod", "2", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.calc_period, 2);
	ck_assert_int_eq(sb_config_set(&cfg, "LookbackWindow", "0:10:00", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_set(&cfg, "BucketWidth", "0:10", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(cfg.lookback_window, 600);
	ck_assert_int_eq(cfg.bucket_width, 10);
	ck_assert_int_eq(sb_config_check(&cfg, msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_set(&cfg, "ChargeTRES", "gres/gpu:h100", msg, sizeof(msg)), SB_OK);
	ck_assert_str_eq(cfg.charge_tres, "gres/gpu:h100");
	ck_assert_int_eq(sb_config_set(&cfg, "ChargeTRES", "cpu", msg, sizeof(msg)), SB_OK);
	/* the window must be a multiple of the bucket width */
	ck_assert_int_eq(sb_config_set(&cfg, "BucketWidth", "0:07", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_check(&cfg, msg, sizeof(msg)), SB_ERANGE);
	ck_assert_str_eq(msg, "LookbackWindow=0:10:00 must be a positive multiple of "
			 "BucketWidth=0:00:07, with at most 100000 buckets");
	/* a zero width is refused by the same check */
	ck_assert_int_eq(sb_config_set(&cfg, "BucketWidth", "0", msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_check(&cfg, msg, sizeof(msg)), SB_ERANGE);
}
END_TEST

/* The debug lane's keys (sb/lane.h). */
struct lane_case {
	const char *key, *value;
	int rc;
	const char *msg_has;	/* on failure */
	uint64_t max_tres, budget_tres;	/* on success */
	int64_t max_min_runtime;
};

static const struct lane_case lanes[] = {
	{ .key = "DebugLaneTRES", .value = "4", .rc = SB_OK, .max_tres = 4,
	  .budget_tres = 8, .max_min_runtime = 900 },
	{ .key = "debuglanetres", .value = "0", .rc = SB_OK, .max_tres = 0,
	  .budget_tres = 8, .max_min_runtime = 900 },
	{ .key = "DebugLaneBudgetTRES", .value = "16", .rc = SB_OK,
	  .max_tres = 8, .budget_tres = 16, .max_min_runtime = 900 },
	{ .key = "DebugLaneBudgetTRES", .value = "1000000", .rc = SB_OK,
	  .max_tres = 8, .budget_tres = 1000000, .max_min_runtime = 900 },
	{ .key = "DebugLaneMinRuntime", .value = "30", .rc = SB_OK,
	  .max_tres = 8, .budget_tres = 8, .max_min_runtime = 1800 },
	{ .key = "DebugLaneMinRuntime", .value = "0:30", .rc = SB_OK,
	  .max_tres = 8, .budget_tres = 8, .max_min_runtime = 30 },
	{ .key = "DebugLaneTRES", .value = "-1", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneTRES='-1' is not accepted: give a whole number "
		     "of ChargeTRES units from 0 to 1000000 (0 turns the debug "
		     "lane off; default 8)" },
	{ .key = "DebugLaneTRES", .value = "8 GPUs", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneTRES='8 GPUs'" },
	{ .key = "DebugLaneTRES", .value = "", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneTRES=''" },
	{ .key = "DebugLaneBudgetTRES", .value = "1000001", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneBudgetTRES='1000001'" },
	{ .key = "DebugLaneBudgetTRES", .value = "99999999999999999999999",
	  .rc = SB_ESYNTAX, .msg_has = "from 0 to 1000000" },
	{ .key = "DebugLaneMinRuntime", .value = "0", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneMinRuntime='0' is not accepted: give the "
		     "longest min runtime of a debug lane job, at least one "
		     "second (DebugLaneTRES=0 turns the lane off)" },
	{ .key = "DebugLaneMinRuntime", .value = "15m", .rc = SB_ESYNTAX,
	  .msg_has = "DebugLaneMinRuntime='15m'" },
};

START_TEST(test_lane_keys)
{
	const struct lane_case *c = &lanes[_i];
	struct sb_config cfg;
	char msg[512];
	int rc;

	sb_config_init(&cfg);
	rc = sb_config_set(&cfg, c->key, c->value, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s=%s: rc %d expected %d (%s)", c->key,
		      c->value, rc, c->rc, msg);
	if (rc != SB_OK) {
		ck_assert_msg(strstr(msg, c->msg_has), "message '%s' lacks '%s'",
			      msg, c->msg_has);
		/* a refused value leaves the defaults */
		ck_assert_uint_eq(cfg.preempt.lane.max_tres, SB_LANE_TRES_DEFAULT);
		ck_assert_uint_eq(cfg.preempt.lane.budget_tres,
				  SB_LANE_BUDGET_TRES_DEFAULT);
		ck_assert_int_eq(cfg.preempt.lane.max_min_runtime,
				 SB_LANE_MIN_RUNTIME_DEFAULT);
		return;
	}
	ck_assert_uint_eq(cfg.preempt.lane.max_tres, c->max_tres);
	ck_assert_uint_eq(cfg.preempt.lane.budget_tres, c->budget_tres);
	ck_assert_int_eq(cfg.preempt.lane.max_min_runtime, c->max_min_runtime);
}
END_TEST

/* UnallocatedRestartBackoffMax (sb/preempt.h, sb_restart_delay()). */
struct backoff_case {
	const char *value;
	int rc;
	const char *msg_has;	/* on failure */
	int64_t max;		/* on success, seconds */
};

static const struct backoff_case backoffs[] = {
	{ .value = "1:00:00", .rc = SB_OK, .max = 3600 },
	{ .value = "30", .rc = SB_OK, .max = 1800 },
	{ .value = "0:45", .rc = SB_OK, .max = 45 },
	{ .value = "1-0", .rc = SB_OK, .max = 86400 },
	{ .value = "0", .rc = SB_OK, .max = 0 },
	{ .value = "none", .rc = SB_OK, .max = 0 },
	{ .value = "NONE", .rc = SB_OK, .max = 0 },
	{ .value = "-1", .rc = SB_ESYNTAX,
	  .msg_has = "UnallocatedRestartBackoffMax='-1' is not accepted: give "
		     "the longest wait before an unallocated job that is not "
		     "resumable restarts, as a duration in Slurm time syntax "
		     "(M, M:S, H:M:S, D-H, D-H:M, D-H:M:S), at most 365 days "
		     "(default 1-00:00:00), or 0 or none to turn the backoff off" },
	{ .value = "1h", .rc = SB_ESYNTAX,
	  .msg_has = "UnallocatedRestartBackoffMax='1h'" },
	{ .value = "", .rc = SB_ESYNTAX,
	  .msg_has = "UnallocatedRestartBackoffMax=''" },
	{ .value = "366-0", .rc = SB_ESYNTAX, .msg_has = "at most 365 days" },
	{ .value = "0:90", .rc = SB_ESYNTAX,
	  .msg_has = "UnallocatedRestartBackoffMax='0:90'" },
};

START_TEST(test_backoff_key)
{
	const struct backoff_case *c = &backoffs[_i];
	struct sb_config cfg;
	char msg[512];
	int rc;

	sb_config_init(&cfg);
	rc = sb_config_set(&cfg, "unallocatedrestartbackoffmax", c->value, msg,
			   sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s: rc %d expected %d (%s)", c->value, rc,
		      c->rc, msg);
	if (rc != SB_OK) {
		ck_assert_msg(strstr(msg, c->msg_has), "message '%s' lacks '%s'",
			      msg, c->msg_has);
		/* a refused value leaves the default */
		ck_assert_int_eq(cfg.preempt.restart_backoff_max,
				 SB_RESTART_BACKOFF_MAX_DEFAULT);
		return;
	}
	ck_assert_int_eq(cfg.preempt.restart_backoff_max, c->max);
}
END_TEST

/* PreemptLossWait (sb/preempt.h, sb_preempt_loss_wait_until()). */
static const struct backoff_case loss_waits[] = {
	{ .value = "1:00:00", .rc = SB_OK, .max = 3600 },
	{ .value = "30", .rc = SB_OK, .max = 1800 },
	{ .value = "0:45", .rc = SB_OK, .max = 45 },
	{ .value = "0", .rc = SB_OK, .max = 0 },
	{ .value = "None", .rc = SB_OK, .max = 0 },
	{ .value = "-1", .rc = SB_ESYNTAX,
	  .msg_has = "PreemptLossWait='-1' is not accepted: give how long a "
		     "job waits for GPUs to free before it may preempt a run "
		     "that would lose its work, as a duration in Slurm time "
		     "syntax (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S), at most 365 "
		     "days, or 0 or none (the default) to turn the wait off" },
	{ .value = "30m", .rc = SB_ESYNTAX, .msg_has = "PreemptLossWait='30m'" },
	{ .value = "", .rc = SB_ESYNTAX, .msg_has = "PreemptLossWait=''" },
	{ .value = "366-0", .rc = SB_ESYNTAX, .msg_has = "at most 365 days" },
};

START_TEST(test_loss_wait_key)
{
	const struct backoff_case *c = &loss_waits[_i];
	struct sb_config cfg;
	char msg[512];
	int rc;

	sb_config_init(&cfg);
	rc = sb_config_set(&cfg, "preemptlosswait", c->value, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s: rc %d expected %d (%s)", c->value, rc,
		      c->rc, msg);
	if (rc != SB_OK) {
		ck_assert_msg(strstr(msg, c->msg_has), "message '%s' lacks '%s'",
			      msg, c->msg_has);
		/* a refused value leaves the default */
		ck_assert_int_eq(cfg.preempt.loss_wait, SB_LOSS_WAIT_DEFAULT);
		return;
	}
	ck_assert_int_eq(cfg.preempt.loss_wait, c->max);
}
END_TEST

/* SubmitNote (sb_contract_advice()): yes or no, default yes. */
static const struct {
	const char *value;
	int rc;
	bool on;
	const char *msg;
} submit_notes[] = {
	{ "yes", SB_OK, true, NULL },
	{ "No", SB_OK, false, NULL },
	{ "YES", SB_OK, true, NULL },
	{ "off", SB_ESYNTAX, true, "SubmitNote='off' is not accepted: give yes "
	  "(the default: tell the user at submission when a job may lose its "
	  "work past its minimum runtime) or no" },
	{ "", SB_ESYNTAX, true, "SubmitNote='' is not accepted" },
	{ "1", SB_ESYNTAX, true, "SubmitNote='1' is not accepted" },
};

START_TEST(test_submit_note_key)
{
	struct sb_config cfg;
	char msg[512] = "";

	sb_config_init(&cfg);
	ck_assert(cfg.contract.submit_note);
	ck_assert_int_eq(sb_config_set(&cfg, "submitnote",
				       submit_notes[_i].value, msg,
				       sizeof(msg)), submit_notes[_i].rc);
	/* a refused value leaves the default */
	ck_assert(cfg.contract.submit_note == submit_notes[_i].on);
	if (submit_notes[_i].msg)
		ck_assert_msg(strstr(msg, submit_notes[_i].msg), "message '%s' "
			      "lacks '%s'", msg, submit_notes[_i].msg);
}
END_TEST

START_TEST(test_keys_listed)
{
	struct sb_config cfg;
	char msg[256];
	size_t i;

	sb_config_init(&cfg);
	for (i = 0; sb_config_keys[i]; i++)
		ck_assert_int_ne(sb_config_set(&cfg, sb_config_keys[i], "1", msg,
					       sizeof(msg)), SB_EUNKNOWNKEY);
	ck_assert_int_eq(i, 18);
}
END_TEST

/* Every '|'-separated piece of @want is in @got. */
static int has_pieces(const char *got, const char *want)
{
	char piece[512];
	const char *p = want, *bar;

	while (*p) {
		size_t n = (bar = strchr(p, '|')) ? (size_t)(bar - p) : strlen(p);

		if (n >= sizeof(piece))
			return 0;
		memcpy(piece, p, n);
		piece[n] = '\0';
		if (!strstr(got, piece))
			return 0;
		p += n + (bar ? 1 : 0);
	}
	return 1;
}

/* The shared table (conf-cases.h): the verdict and the settings or message. */
START_TEST(test_parse_table)
{
	const struct conf_case *c = &conf_cases[_i];
	struct sb_config cfg, before;
	char msg[1024], desc[512], was[512];
	char *text = conf_case_text(c);
	int rc;

	ck_assert_ptr_nonnull(text);
	sb_config_init(&cfg);
	before = cfg;
	rc = sb_config_parse(&cfg, text, NULL, msg, sizeof(msg));
	free(text);
	sb_config_describe(&cfg, desc, sizeof(desc));
	if (c->ok) {
		ck_assert_msg(rc == SB_OK, "%s: refused: %s", c->name, msg);
		ck_assert_msg(has_pieces(desc, c->expect), "%s: settings '%s' "
			      "lack '%s'", c->name, desc, c->expect);
	} else {
		ck_assert_msg(rc != SB_OK, "%s: accepted: %s", c->name, desc);
		ck_assert_msg(strstr(msg, c->expect), "%s: message '%s' lacks "
			      "'%s'", c->name, msg, c->expect);
		/* a refused text leaves the settings as they were */
		ck_assert_str_eq(desc, sb_config_describe(&before, was,
							  sizeof(was)));
	}
}
END_TEST

/* The return codes, the origin in messages, and bad calls. */
START_TEST(test_parse_codes)
{
	struct sb_config cfg;
	char msg[512];

	sb_config_init(&cfg);
	ck_assert_int_eq(sb_config_parse(&cfg, "Foo=1\n", "/etc/slurm/budget.conf",
					 msg, sizeof(msg)), SB_EUNKNOWNKEY);
	ck_assert_str_eq(msg, "/etc/slurm/budget.conf line 1: unknown key 'Foo' "
			 "(accepted: MaxMinRuntime, DefaultMinRuntime, CalcPeriod, "
			 "LookbackWindow, BucketWidth, ChargeTRES, PreemptGraceTime, "
			 "PreemptNonResumable, RepairReason, InteractiveWarning, "
			 "SubmitNote, PreemptIntervalFactor, DebugLaneTRES, "
			 "DebugLaneMinRuntime, DebugLaneBudgetTRES, "
			 "UnallocatedRestartBackoffMax, PreemptLossWait, Cutover)");
	ck_assert_int_eq(sb_config_parse(&cfg, "CalcPeriod=1\nCalcPeriod=2\n",
					 "b", msg, sizeof(msg)), SB_EDUPLICATE);
	ck_assert_int_eq(sb_config_parse(&cfg, "CalcPeriod=x\n", "b", msg,
					 sizeof(msg)), SB_ESYNTAX);
	ck_assert_int_eq(sb_config_parse(&cfg, "MaxMinRuntime=-1\n", "b", msg,
					 sizeof(msg)), SB_ENEGATIVE);
	ck_assert_int_eq(sb_config_parse(&cfg, "Include x\n", "b", msg,
					 sizeof(msg)), SB_ESYNTAX);
	ck_assert_int_eq(sb_config_parse(&cfg, "BucketWidth=11\n", "b", msg,
					 sizeof(msg)), SB_ERANGE);
	ck_assert_str_eq(msg, "b: LookbackWindow=7-00:00:00 must be a positive "
			 "multiple of BucketWidth=0:11:00, with at most 100000 "
			 "buckets");
	ck_assert_int_eq(sb_config_parse(NULL, "", "b", msg, sizeof(msg)),
			 SB_EINVAL);
	ck_assert_int_eq(sb_config_parse(&cfg, NULL, "b", msg, sizeof(msg)),
			 SB_EINVAL);
	ck_assert_int_eq(sb_config_parse(&cfg, "", "b", NULL, 0), SB_EINVAL);
	/* a message buffer too small is cut, never overrun */
	ck_assert_int_eq(sb_config_parse(&cfg, "Foo=1\n", "b", msg, 8),
			 SB_EUNKNOWNKEY);
	ck_assert_str_eq(msg, "b line ");
	/* values start from @cfg, not from the defaults */
	ck_assert_int_eq(sb_config_parse(&cfg, "ChargeTRES=cpu\n", "b", msg,
					 sizeof(msg)), SB_OK);
	ck_assert_int_eq(sb_config_parse(&cfg, "CalcPeriod=5\n", "b", msg,
					 sizeof(msg)), SB_OK);
	ck_assert_str_eq(cfg.charge_tres, "cpu");
	ck_assert_int_eq(cfg.calc_period, 5);
}
END_TEST

/*
 * Continuations and escapes, case by case against the rules of Slurm's
 * _strip_comments/_strip_continuation/_strip_escapes: the value RepairReason
 * ends with.
 */
static const struct { const char *text, *value; } lex[] = {
	{ "RepairReason=a\\\\\n", "a\\" },	/* even: no continuation */
	{ "RepairReason=a\\\\\\\nb\n", "a\\b" },	/* odd: continues */
	{ "RepairReason=a\\  \t\nb\n", "ab" },	/* white space after '\\' */
	{ "RepairReason=a\\\\#b\n", "a\\" },	/* '\\\\' then a comment */
	{ "RepairReason=a\\\\\\#b\n", "a\\#b" },	/* '\\\\' + '\\#' */
	{ "RepairReason=\\a\\b\n", "ab" },	/* any escaped char is itself */
	{ "RepairReason=\"a \\\"\n", "a " },	/* \\" is '"': it closes */
	{ "RepairReason=\"a\\\" b\"\n", NULL },	/* and so ends "a" early */
	{ "Repair\\Reason=x\n", "x" },	/* escapes apply to keys too */
	{ "RepairReason=a\\\n\\\nb\n", "ab" },	/* two continuations */
};

START_TEST(test_parse_lexing)
{
	struct sb_config cfg;
	char msg[512];
	int rc;

	sb_config_init(&cfg);
	rc = sb_config_parse(&cfg, lex[_i].text, "b", msg, sizeof(msg));
	if (!lex[_i].value) {
		ck_assert_msg(rc != SB_OK, "'%s' accepted", lex[_i].text);
		return;
	}
	ck_assert_msg(rc == SB_OK, "'%s': %s", lex[_i].text, msg);
	ck_assert_str_eq(cfg.preempt.repair_reason, lex[_i].value);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("config");

	tcase_add_test(tc, test_defaults);
	tcase_add_loop_test(tc, test_set, 0, sizeof(set) / sizeof(set[0]));
	tcase_add_test(tc, test_default_above_max);
	tcase_add_test(tc, test_scheduling_keys);
	tcase_add_test(tc, test_keys_listed);
	tcase_add_loop_test(tc, test_submit_note_key, 0,
			    sizeof(submit_notes) / sizeof(submit_notes[0]));
	tcase_add_loop_test(tc, test_lane_keys, 0,
			    sizeof(lanes) / sizeof(lanes[0]));
	tcase_add_loop_test(tc, test_loss_wait_key, 0,
			    sizeof(loss_waits) / sizeof(loss_waits[0]));
	tcase_add_loop_test(tc, test_backoff_key, 0,
			    sizeof(backoffs) / sizeof(backoffs[0]));
	tcase_add_loop_test(tc, test_parse_table, 0, CONF_NCASES);
	tcase_add_test(tc, test_parse_codes);
	tcase_add_loop_test(tc, test_parse_lexing, 0, sizeof(lex) / sizeof(lex[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
