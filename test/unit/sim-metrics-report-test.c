/*
 * sim-metrics-report-test.c - the report as written: the JSON's fixed form
 * (key order, precision, no "-0"), the report's size over a long window,
 * runs holding more GPUs than the cluster has refused, and the verdict
 * (teams against the target, the jobs named).
 */
#include <check.h>
#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "sim.h"
#include "sim-metrics-test.h"

#define H 3600

#define JSON_HEAD "{\"window\":{\"from_s\":0,\"to_s\":100,\"now_s\":100}," \
	"\"gpus\":3,\"wait\":"

/* The JSON: fixed key order, fixed precision, no "-0", byte-identical. */
START_TEST(test_json_fixed)
{
	const struct sim_mjob jobs[1] = {
		{ 0, 1, 60, true, 0, 0, 100, NV, NV, "", NULL }
	};
	const struct sim_mseg segs[1] = { { 0, 0, 0, 100, false, false, false } };
	struct sim_tree t;
	struct sim_report r;
	struct json_object *a, *b, *d;
	char *sa, msg[SIM_MSG];

	ck_assert(!sim_tree_parse("t", "a 1\nb 2\n", &t, msg, sizeof(msg)));
	ck_assert_int_eq(sim_metrics(&t, jobs, 1, segs, 1, 3, 0, 100, 100, &r),
			 0);
	a = sim_report_json(&r);
	b = sim_report_json(&r);
	sa = strdup(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
	ck_assert_str_eq(sa, json_object_to_json_string_ext(
				     b, JSON_C_TO_STRING_PLAIN));
	ck_assert_msg(!strncmp(sa, JSON_HEAD, strlen(JSON_HEAD)), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"entitled\":0.333333,"), "got %s", sa);
	/* the waits by contract follow "wait", allocated first */
	ck_assert_msg(strstr(sa, "}},\"wait_allocated\":{\"all\":{\"jobs\":1,"),
		      "got %s", sa);
	ck_assert_msg(strstr(sa, "\"wait_unallocated\":{\"all\":{\"jobs\":0,"),
		      "got %s", sa);
	/* the debug p90 of the worst team after them, per team beside its
	 * jobs */
	ck_assert_msg(strstr(sa, "}},\"debug_wait_p90_worst_team\":\"a\","
			     "\"debug_wait_p90_worst_team_s\":0.0,"
			     "\"occupancy\":"), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"jobs\":1,\"debug_jobs\":1,"
			     "\"debug_wait_p90_s\":0.0,"), "got %s", sa);
	ck_assert_msg(strstr(sa, "\"occupancy\":0.333333,"), "got %s", sa);
	/* 1 GPU asked for over 100 s, of 3: all of the usable was used */
	ck_assert_msg(strstr(sa, "\"usable_gpu_hours\":0.028,"
			     "\"occupancy_of_demand\":1.000000,"), "got %s", sa);
	/* owed = min(quota 1/3 x 3 x 100, demand 100) = 100 GPU-s */
	ck_assert_msg(strstr(sa, "{\"path\":\"a\",\"entitled\":0.333333,"
			     "\"quota_gpu_s\":100.000,\"demand_gpu_s\":100.000,"
			     "\"owed_gpu_s\":100.000,\"delivered_gpu_s\":"
			     "100.000,\"capped_gpu_s\":100.000,"
			     "\"unallocated_gpu_s\":0.000,\"lost_gpu_s\":0.000}"),
		      "got %s", sa);
	free(sa);
	d = sim_json_double(-0.0, 3);
	ck_assert_str_eq(json_object_to_json_string(d), "0.000");
	json_object_put(d);
	d = sim_json_double(-1e-9, 3);
	ck_assert_str_eq(json_object_to_json_string(d), "0.000");
	json_object_put(d);
	json_object_put(a);
	json_object_put(b);
	sim_report_free(&r);
	sim_tree_free(&t);
}
END_TEST

/* The report's size: hours of the window x (budgets + 1) hourly figures,
 * at most SIM_METRICS_MAX_FIGURES (16777216, about 940 MB of them); more is
 * refused naming the window, its hours and the budgets (a segment ending
 * at t=99999999999 took 6 GB before, one at 2^40 "out of memory"). */
struct size_case {
	uint32_t budgets;
	int64_t t0, t1;
	int rc;
	const char *msg;
};

static const struct size_case sizes[] = {
	{ .budgets = 5,    .t0 = 0,   .t1 = 1,                        .rc = 0,
	  .msg = NULL },
	{ .budgets = 5,    .t0 = 0,   .t1 = 365 * 24 * H,             .rc = 0,
	  .msg = NULL },
	{ .budgets = 1000, .t0 = 0,   .t1 = 16760 * (int64_t)H,       .rc = 0,
	  .msg = NULL }, /* 16760 x 1001 */
	{ .budgets = 1000, .t0 = 0,   .t1 = 16761 * (int64_t)H,       .rc = -1,
	  .msg = "16761 hours x 1001 = 16777761 hourly figures, more than 16777216" },
	{ .budgets = 5,    .t0 = 0,   .t1 = 2796202 * (int64_t)H,     .rc = 0,
	  .msg = NULL }, /* 2796202 x 6 */
	{ .budgets = 5,    .t0 = 0,   .t1 = 2796202 * (int64_t)H + 1, .rc = -1,
	  .msg = "the window [0, 10066327201) s is 2796203 hours" },
	{ .budgets = 5,    .t0 = 0,   .t1 = INT64_C(99999999999),     .rc = -1,
	  .msg = "27777778 hours x 6 = 166666668 hourly figures" },
	{ .budgets = 5,    .t0 = 500, .t1 = INT64_C(1099511627776),   .rc = -1,
	  .msg = "give --window A:B of at most 2796202 hours" },
};

START_TEST(test_window_size)
{
	const struct size_case *c = &sizes[_i];
	char msg[SIM_MSG] = "";
	int rc = sim_metrics_check_window(c->budgets, c->t0, c->t1, msg,
					  sizeof(msg));

	ck_assert_msg(rc == c->rc, "%u budgets [%lld, %lld): rc %d, expected "
		      "%d (%s)", c->budgets, (long long)c->t0,
		      (long long)c->t1, rc, c->rc, msg);
	if (c->msg)
		ck_assert_msg(strstr(msg, c->msg), "message \"%s\", expected "
			      "\"%s\"", msg, c->msg);
}
END_TEST

/* Runs holding more GPUs at once than the cluster has (--gpus) are refused
 * (occupancy was 1258% with --gpus 1); ends come before starts at the same
 * second. */
struct cap_case {
	const char *what;
	uint32_t gpus[3];	/* of jobs 0..2 */
	struct sim_mseg segs[3];
	size_t nsegs;
	uint64_t cluster;
	int rc;
	const char *msg;
};

static const struct cap_case caps[] = {
	{ .what = "one run fits",    .gpus = { 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 1, .cluster = 8, .rc = 0,  .msg = NULL },
	{ .what = "one run too big", .gpus = { 9 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 5,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 1, .cluster = 8, .rc = -1, .msg = "at t=5 s the runs hold 9 GPUs at once, more than --gpus 8" },
	{ .what = "back to back",    .gpus = { 8, 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 10, .end = 20, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 2, .cluster = 8, .rc = 0,  .msg = NULL },
	{ .what = "overlap",         .gpus = { 4, 5, 2 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 9,  .end = 20, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 2, .eligible = 0, .start = 9,  .end = 9,  .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 3, .cluster = 8, .rc = -1, .msg = "at t=9 s the runs hold 9 GPUs" },
	{ .what = "empty run at the edge", .gpus = { 8, 8 },
	  .segs = {
		{ .job = 0, .eligible = 0, .start = 0,  .end = 10, .preempted = false, .lost = false, .cancelled = false },
		{ .job = 1, .eligible = 0, .start = 10, .end = 10, .preempted = false, .lost = false, .cancelled = false },
	  },
	  .nsegs = 2, .cluster = 8, .rc = 0,  .msg = NULL },
};

START_TEST(test_capacity)
{
	const struct cap_case *c = &caps[_i];
	struct sim_mjob jobs[3];
	char msg[SIM_MSG] = "";
	size_t k;
	int rc;

	for (k = 0; k < 3; k++)
		jobs[k] = (struct sim_mjob){ .gpus = c->gpus[k] };
	rc = sim_metrics_check_capacity(jobs, 3, c->segs, c->nsegs,
					c->cluster, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "%s: rc %d, expected %d (%s)", c->what, rc,
		      c->rc, msg);
	if (c->msg)
		ck_assert_msg(strstr(msg, c->msg), "%s: message \"%s\", "
			      "expected \"%s\"", c->what, msg, c->msg);
}
END_TEST

/* ------------------------------------------------------------ verdict */

/* Teams against the target: each row's teams (owed, capped GPU-seconds;
 * owed 0 = owed nothing), what sim_verdict() must count and the line. */
struct vteam_case {
	const char *what;
	uint32_t nteams;
	double owed[3], capped[3];
	uint32_t owed_n, met;
	bool honoured;
	const char *line;
};

static const struct vteam_case vteams[] = {
	{ .what = "no teams", .nteams = 0, .honoured = true,
	  .line = "budgets honoured: yes \u2014 no team was owed anything" },
	{ .what = "exactly the target (19 of 20)", .nteams = 1,
	  .owed = { 20 }, .capped = { 19 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "exactly the target (95 of 100)", .nteams = 1,
	  .owed = { 100 }, .capped = { 95 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "just below (949999 of 1e6)", .nteams = 1,
	  .owed = { 1e6 }, .capped = { 949999 }, .owed_n = 1, .met = 0,
	  .honoured = false, .line = "budgets honoured: no \u2014 0 of 1 "
	  "teams got >= 95% of owed; worst t0 95.0%" },
	{ .what = "a team owed nothing is not judged", .nteams = 2,
	  .owed = { 0, 50 }, .capped = { 0, 50 }, .owed_n = 1, .met = 1,
	  .honoured = true, .line = "budgets honoured: yes \u2014 1 of 1 "
	  "teams got >= 95% of owed; worst t1 100.0%" },
	{ .what = "only teams owed nothing", .nteams = 2,
	  .owed = { 0, 0 }, .capped = { 0, 0 }, .honoured = true,
	  .line = "budgets honoured: yes \u2014 no team was owed anything" },
	{ .what = "the worst of three, one missed", .nteams = 3,
	  .owed = { 100, 100, 100 }, .capped = { 97, 60, 99 }, .owed_n = 3,
	  .met = 2, .honoured = false, .line = "budgets honoured: no \u2014 2 "
	  "of 3 teams got >= 95% of owed; worst t1 60.0%" },
};

static const char *const vnames[] = { "t0", "t1", "t2" };

/* A report by hand: teams only (t0 = 0, t1 = @t1). */
static void vreport(struct sim_report *rep, struct sim_team_report *teams,
		    uint32_t n, const double *owed, const double *capped,
		    int64_t t1)
{
	uint32_t k;

	memset(rep, 0, sizeof(*rep));
	rep->t1 = t1;
	rep->teams = teams;
	rep->nteams = n;
	for (k = 0; k < n; k++) {
		memset(&teams[k], 0, sizeof(teams[k]));
		teams[k].name = vnames[k];
		teams[k].node = k;
		teams[k].fig.owed = owed ? owed[k] : 0;
		teams[k].fig.capped = capped ? capped[k] : 0;
	}
}

START_TEST(test_verdict_teams)
{
	const struct vteam_case *c = &vteams[_i];
	struct sim_team_report teams[3];
	struct sim_report rep;
	char line[256];

	vreport(&rep, teams, c->nteams, c->owed, c->capped, 1);
	ck_assert_int_eq(sim_verdict(NULL, 0, &rep), 0);
	ck_assert_msg(rep.verdict.teams_owed == c->owed_n &&
		      rep.verdict.teams_met == c->met &&
		      rep.verdict.honoured == c->honoured,
		      "%s: want owed %u met %u honoured %d, got %u %u %d",
		      c->what, c->owed_n, c->met, c->honoured,
		      rep.verdict.teams_owed, rep.verdict.teams_met,
		      rep.verdict.honoured);
	sim_verdict_line(&rep, line, sizeof(line));
	ck_assert_msg(!strcmp(line, c->line), "%s: want \"%s\" got \"%s\"",
		      c->what, c->line, line);
	sim_verdict_free(&rep.verdict);
}
END_TEST

/* The jobs named: in a window [0, 100000) of teams t0, t1; each row's
 * jobs (submit, first start or NV, allocated), the counts, how many are
 * named and left over, and the first named job's id. */
struct vjob_case {
	const char *what;
	size_t njobs;
	struct { int64_t submit, start; bool alloc; } j[14];
	size_t never, never_alloc, waited_long, named, more;
	const char *first;
};

#define LW SIM_LONG_WAIT

static const struct vjob_case vjobs[] = {
	{ .what = "none", .njobs = 0 },
	{ .what = "a wait of exactly the threshold is not long", .njobs = 2,
	  .j = { { 0, LW, true }, { 10, 10 + LW + 1, true } },
	  .waited_long = 1, .named = 1, .first = "2" },
	{ .what = "never started before waited long, allocated first",
	  .njobs = 3, .j = { { 0, LW + 5, true }, { 50, NV, false },
			     { 90, NV, true } },
	  .never = 2, .never_alloc = 1, .waited_long = 1, .named = 3,
	  .first = "3" },
	{ .what = "submitted outside the window: not judged", .njobs = 2,
	  .j = { { -5, NV, true }, { 100000, NV, true } } },
	{ .what = "capped at SIM_VERDICT_MAX_JOBS, the longest wait first",
	  .njobs = 12, .j = { { 1, NV, true }, { 2, NV, true }, { 3, NV, true },
			      { 4, NV, true }, { 5, NV, true }, { 6, NV, true },
			      { 7, NV, true }, { 8, NV, true }, { 9, NV, true },
			      { 10, NV, true }, { 11, NV, true },
			      { 0, NV, true } },
	  .never = 12, .never_alloc = 12, .named = SIM_VERDICT_MAX_JOBS,
	  .more = 2, .first = "12" },
};

START_TEST(test_verdict_jobs)
{
	const struct vjob_case *c = &vjobs[_i];
	const double owed[2] = { 100, 100 }, capped[2] = { 100, 90 };
	struct sim_team_report teams[3];
	struct sim_mjob jobs[14];
	struct sim_report rep;
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	vreport(&rep, teams, 2, owed, capped, 100000);
	for (i = 0; i < c->njobs; i++) {
		jobs[i] = (struct sim_mjob){
			.node = (uint32_t)(i % 2), .gpus = 8,
			.allocated = c->j[i].alloc, .submit = c->j[i].submit,
			.first_start = c->j[i].start, .end = NV,
			.pending_since = NV, .pending_until = NV,
			.why = c->j[i].start == NV ? "Priority: needs 8" : NULL,
		};
		snprintf(jobs[i].id, sizeof(jobs[i].id), "%zu", i + 1);
	}
	ck_assert_int_eq(sim_verdict(jobs, c->njobs, &rep), 0);
	ck_assert_msg(rep.verdict.never == c->never &&
		      rep.verdict.never_allocated == c->never_alloc &&
		      rep.verdict.waited_long == c->waited_long &&
		      rep.verdict.njobs == c->named &&
		      rep.verdict.more == c->more,
		      "%s: want never %zu (%zu allocated) long %zu named %zu "
		      "more %zu, got %zu (%zu) %zu %zu %zu", c->what, c->never,
		      c->never_alloc, c->waited_long, c->named, c->more,
		      rep.verdict.never, rep.verdict.never_allocated,
		      rep.verdict.waited_long, rep.verdict.njobs,
		      rep.verdict.more);
	if (c->first)
		ck_assert_msg(!strcmp(rep.verdict.jobs[0].id, c->first),
			      "%s: first named: want job %s got %s", c->what,
			      c->first, rep.verdict.jobs[0].id);
	/* the text: a mark per team, the jobs with their reason, the cap */
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	sim_verdict_text(&rep, f);
	fclose(f);
	ck_assert_msg(strstr(text, "  t0 ") && strstr(text, "100.0%  met\n") &&
		      strstr(text, " 90.0%  MISSED\n") &&
		      strstr(text, "budgets honoured: no \u2014 1 of 2 teams"),
		      "%s: teams' lines wrong:\n%s", c->what, text);
	if (c->never)
		ck_assert_msg(strstr(text, "never started, waited") &&
			      strstr(text, ": Priority: needs 8\n"),
			      "%s: no reason named:\n%s", c->what, text);
	ck_assert_msg(!c->more == !strstr(text, "  and 2 more\n"),
		      "%s: \"and N more\" wrong:\n%s", c->what, text);
	free(text);
	sim_verdict_free(&rep.verdict);
}
END_TEST

void sim_metrics_report_tests(TCase *tc)
{
	tcase_add_test(tc, test_json_fixed);
	tcase_add_loop_test(tc, test_capacity, 0,
			    sizeof(caps) / sizeof(caps[0]));
	tcase_add_loop_test(tc, test_window_size, 0,
			    sizeof(sizes) / sizeof(sizes[0]));
	tcase_add_loop_test(tc, test_verdict_teams, 0,
			    sizeof(vteams) / sizeof(vteams[0]));
	tcase_add_loop_test(tc, test_verdict_jobs, 0,
			    sizeof(vjobs) / sizeof(vjobs[0]));
}
