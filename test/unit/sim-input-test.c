/*
 * sim-input-test.c - sbudget-sim's readers: every kind of bad line is
 * refused with file:line and a reason.  Good input (job tables, SWF, trees,
 * budget.conf, observed segments) is tested in sim-input-read-test.c.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/priority.h"
#include "sim.h"
#include "sim-input-test.h"

/* ----------------------------------------------------- bad job lines */

struct bad_case {
	const char *what;
	const char *text;	/* whole file */
	const char *where;	/* expected "name:line:" prefix */
	const char *reason;	/* expected substring */
};

static const struct bad_case bad_jobs[] = {
	{ .what = "no header",                .text = "",
	  .where = "jobs.csv: ",  .reason = "no header" },
	{ .what = "header lacks gpus",        .text = "submit_time_s,duration_s,team\n1,2,a\n",
	  .where = "jobs.csv:1:", .reason = "lacks column 'gpus'" },
	{ .what = "field count",              .text = HDR "0,10,1,a,,60,yes\n",
	  .where = "jobs.csv:2:", .reason = "7 fields, the header has 8" },
	{ .what = "submit not a number",      .text = HDR "x,10,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "submit_time_s 'x'" },
	{ .what = "submit negative",          .text = HDR "-5,10,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "submit_time_s '-5'" },
	{ .what = "submit with junk",         .text = HDR "5s,10,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "submit_time_s '5s'" },
	{ .what = "duration -2",              .text = HDR "0,-2,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "duration_s '-2'" },
	{ .what = "gpus word",                .text = HDR "0,10,many,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "gpus 'many'" },
	{ .what = "gpus too many",            .text = HDR "0,10,2000000,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "gpus '2000000'" },
	{ .what = "empty team",               .text = HDR "0,10,1,,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "team ''" },
	{ .what = "team with a blank",        .text = HDR "0,10,1,a b,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "team 'a b'" },
	{ .what = "user with a bar",          .text = HDR "0,10,1,a,u|v,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "user 'u|v'" },
	{ .what = "min runtime negative",     .text = HDR "0,10,1,a,,-1,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "min_runtime_s '-1'" },
	{ .what = "min runtime above a year", .text = HDR "0,10,1,a,,40000000,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "min_runtime_s '40000000'" },
	{ .what = "resumable maybe",          .text = HDR "0,10,1,a,,60,maybe,512\n",
	  .where = "jobs.csv:2:", .reason = "resumable 'maybe'" },
	{ .what = "priority word",            .text = HDR "0,10,1,a,,60,yes,URGENT\n",
	  .where = "jobs.csv:2:", .reason = "priority 'URGENT'" },
	{ .what = "priority too big",         .text = HDR "0,10,1,a,,60,yes,1024\n",
	  .where = "jobs.csv:2:", .reason = "priority '1024'" },
	{ .what = "bad line after good ones", .text = HDR "0,10,1,a,,60,yes,512\n"
	  "# a comment\n\n1,10,1,a,,60,yes,NORMAL\n2,1e3,1,a,,60,yes,1\n",
	  .where = "jobs.csv:6:", .reason = "duration_s '1e3'" },
	/* times too far once scaled name the column and the value */
	{ .what = "duration out of range",    .text = HDR "0,274877906945,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "duration_s '274877906945' is out of range: it, x "
	  "--time-scale 1, must be at most 274877906944 s" },
	{ .what = "submit out of range",      .text = HDR "274877906945,10,1,a,,60,yes,512\n",
	  .where = "jobs.csv:2:", .reason = "submit_time_s '274877906945' is out of range: its "
	  "time after --from 0, x --time-scale 1, must be at most" },
	/* a column named twice: which one was meant was silently the first */
	{ .what = "column named twice",       .text = "submit_time_s,duration_s,gpus,team,GPUS\n"
	  "0,10,1,a,2\n",
	  .where = "jobs.csv:1:", .reason = "column 'gpus' is named twice "
	  "(fields 3 and 5)" },
};

START_TEST(test_bad_jobs)
{
	const struct bad_case *c = &bad_jobs[_i];
	struct sim_read_opts o;
	struct sim_workload w;
	char msg[SIM_MSG] = "";
	int rc;

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	rc = sim_workload_parse("jobs.csv", c->text, &o, &w, msg, sizeof(msg));
	ck_assert_msg(rc == -1, "%s: accepted", c->what);
	ck_assert_msg(!strncmp(msg, c->where, strlen(c->where)),
		      "%s: want prefix '%s', got '%s'", c->what, c->where, msg);
	ck_assert_msg(strstr(msg, c->reason), "%s: want '%s' in '%s'",
		      c->what, c->reason, msg);
	sim_workload_free(&w);
}
END_TEST

static const struct bad_case bad_swf[] = {
	{ .what = "17 fields",
	  .text = "; header\n1 0 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1\n", .where = "log.swf:2:",
	  .reason = "17 fields" },
	{ .what = "a word",
	  .text = "1 0 0 ten 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n",       .where = "log.swf:1:",
	  .reason = "field 4 'ten'" },
	{ .what = "negative submit",
	  .text = "1 -3 0 10 1 -1 -1 1 -1 -1 1 1 1 -1 1 -1 -1 -1\n",       .where = "log.swf:1:",
	  .reason = "submit time '-3'" },
	{ .what = "run time out of range",
	  .text = "1 0 0 274877906945 1 -1 -1 1 -1 -1 1 1 1 "
	  "-1 1 -1 -1 -1\n", .where = "log.swf:1:",
	  .reason = "run time (field 4) "
	  "'274877906945' is out of range" },
};

START_TEST(test_bad_swf)
{
	const struct bad_case *c = &bad_swf[_i];
	struct sim_read_opts o;
	struct sim_workload w;
	char msg[SIM_MSG] = "";

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	ck_assert_int_eq(sim_workload_parse("log.swf", c->text, &o, &w, msg,
					    sizeof(msg)), -1);
	ck_assert_msg(!strncmp(msg, c->where, strlen(c->where)) &&
		      strstr(msg, c->reason), "%s: got '%s'", c->what, msg);
	sim_workload_free(&w);
}
END_TEST

static const struct bad_case bad_trees[] = {
	{ .what = "one field",               .text = "a\n",
	  .where = "t:1:", .reason = "two fields" },
	{ .what = "three fields",            .text = "a 1 2\n",
	  .where = "t:1:", .reason = "two fields" },
	{ .what = "shares a word",           .text = "a lots\n",
	  .where = "t:1:", .reason = "shares 'lots'" },
	{ .what = "shares negative",         .text = "a -1\n",
	  .where = "t:1:", .reason = "shares '-1'" },
	{ .what = "shares too big",          .text = "a 2000000000000\n",
	  .where = "t:1:", .reason = "shares '2000000000000'" },
	{ .what = "shares above 2147483646", .text = "a 2147483647\n",
	  .where = "t:1:", .reason = "accepted: give a whole number 0..2147483646, or 'parent'" },
	{ .what = "shares with a sign",      .text = "a +5\n",
	  .where = "t:1:", .reason = "shares '+5' of 'a'" },
	{ .what = "sacctmgr: Share with a sign", .text = "Account|User|Par Name|Share\nroot|||1\na||root|+5\n",
	  .where = "t:3:", .reason = "Share '+5' is not accepted: a whole number 0..2147483646" },
	{ .what = "parent missing",          .text = "a 1\nb/c 1\n",
	  .where = "t:2:", .reason = "parent 'b'" },
	{ .what = "twice",                   .text = "a 1\nb 1\na 2\n",
	  .where = "t:3:", .reason = "defined twice" },
	{ .what = "leading slash",           .text = "/a 1\n",
	  .where = "t:1:", .reason = "path '/a'" },
	{ .what = "double slash",            .text = "a 1\na//b 1\n",
	  .where = "t:2:", .reason = "path 'a//b'" },
	{ .what = "empty",                   .text = "# nothing\n",
	  .where = "t: ",  .reason = "no budgets" },
	{ .what = "sacctmgr without Share",  .text = "Account|Par Name\nphys|root\n",
	  .where = "t:1:", .reason = "needs Account, Par Name and Share" },
	{ .what = "sacctmgr bad share",      .text = "Account|Par Name|Share\nphys|root|x\n",
	  .where = "t:2:", .reason = "Share 'x'" },
	{ .what = "sacctmgr short row",      .text = "Account|Par Name|Share\nphys|root\n",
	  .where = "t:2:", .reason = "2 fields, the header has 3" },
	{ .what = "sacctmgr unknown parent", .text = "Account|Par Name|Share\nphys|sci|1\n",
	  .where = "t:2:", .reason = "parent 'sci' is not listed" },
	{ .what = "helios bad count",        .text = "date,vcA,vcB,total\n2020-04-01,8,x,8\n",
	  .where = "t:2:", .reason = "'x' for vcB" },
	{ .what = "dump: a stranger line",   .text = "Cluster - 'c'\nParent - 'root'\nBudget - 'x'\n",
	  .where = "t:3:", .reason = "not a line of `sacctmgr dump`" },
	{ .what = "dump: account before a parent", .text = "Cluster - 'c'\nAccount - 'a'\n",
	  .where = "t:2:", .reason = "Account before any Parent" },
	{ .what = "dump: bad fairshare",     .text = "Parent - 'root'\nAccount - 'a':Fairshare=lots\n",
	  .where = "t:2:", .reason = "Fairshare 'lots'" },
	{ .what = "dump: fairshare above 2147483646", .text = "Parent - 'root'\nAccount - 'a':Fairshare=2147483647\n",
	  .where = "t:2:", .reason = "Fairshare '2147483647' is not accepted: a whole number 0..2147483646, or 'parent'" },
	{ .what = "dump: unquoted name",     .text = "Parent - 'root'\nAccount - a:Fairshare=1\n",
	  .where = "t:2:", .reason = "expected Account - 'NAME'" },
	{ .what = "dump: unknown parent",    .text = "Parent - 'root'\nAccount - 'a'\n"
	  "Parent - 'zz'\nAccount - 'b'\n",
	  .where = "t:4:", .reason = "parent 'zz' is not listed" },
	{ .what = "dump: user under an unknown account", .text = "Parent - 'root'\n"
	  "Account - 'a'\nParent - 'zz'\nUser - 'u'\n",
	  .where = "t:4:", .reason = "user 'u' under account 'zz'" },
	{ .what = "helios short row",        .text = "date,vcA,vcB,total\n2020-04-01,8,8\n",
	  .where = "t:2:", .reason = "3 fields, the header has 4" },
};

START_TEST(test_bad_trees)
{
	const struct bad_case *c = &bad_trees[_i];
	struct sim_tree t;
	char msg[SIM_MSG] = "";

	ck_assert_msg(sim_tree_parse("t", c->text, &t, msg, sizeof(msg)) == -1,
		      "%s: accepted", c->what);
	ck_assert_msg(!strncmp(msg, c->where, strlen(c->where)) &&
		      strstr(msg, c->reason), "%s: want '%s' '%s', got '%s'",
		      c->what, c->where, c->reason, msg);
}
END_TEST

static const struct bad_case bad_confs[] = {
	{ .what = "no equals",   .text = "CalcPeriod 60\n",
	  .where = "budget.conf line 1:", .reason = "Key=Value" },
	{ .what = "unknown key", .text = "# c\nCalcPerod=60\n",
	  .where = "budget.conf line 2:", .reason = "CalcPerod" },
	{ .what = "bad value",   .text = "PreemptNonResumable=maybe\n",
	  .where = "budget.conf line 1:", .reason = "PreemptNonResumable='maybe'" },
	{ .what = "cross-key",   .text = "MaxMinRuntime=1:00:00\nDefaultMinRuntime=2:00:00\n",
	  .where = "budget.conf: ",       .reason = "DefaultMinRuntime" },
};

START_TEST(test_bad_confs)
{
	const struct bad_case *c = &bad_confs[_i];
	struct sb_config cfg;
	char msg[SIM_MSG] = "";

	sb_config_init(&cfg);
	ck_assert_msg(sim_config_parse("budget.conf", c->text, &cfg, msg,
				       sizeof(msg)) == -1, "%s: accepted",
		      c->what);
	ck_assert_msg(!strncmp(msg, c->where, strlen(c->where)) &&
		      strstr(msg, c->reason), "%s: want '%s' '%s', got '%s'",
		      c->what, c->where, c->reason, msg);
}
END_TEST

static const struct bad_case bad_segs[] = {
	{ .what = "header",
	  .text = "job,team\n",                                  .where = "s.csv:1:",
	  .reason = "header must be exactly" },
	{ .what = "fields",
	  .text = SHDR "1,a,1,0,0,0\n",                          .where = "s.csv:2:",
	  .reason = "6 fields" },
	{ .what = "team",
	  .text = SHDR "1,zz,1,0,0,0,5,0\n",                     .where = "s.csv:2:",
	  .reason = "team 'zz'" },
	{ .what = "gpus 0",
	  .text = SHDR "1,a,0,0,0,0,5,0\n",                      .where = "s.csv:2:",
	  .reason = "gpus '0'" },
	{ .what = "preempted 3",
	  .text = SHDR "1,a,1,0,0,0,5,3\n",                      .where = "s.csv:2:",
	  .reason = "preempted '3'" },
	{ .what = "end before start",
	  .text = SHDR "1,a,1,0,0,9,5,0\n",                      .where = "s.csv:2:",
	  .reason = "start_s '9' and end_s '5'" },
	{ .what = "start before submit",
	  .text = SHDR "1,a,1,0,10,9,15,0\n",                    .where = "s.csv:2:",
	  .reason = "start_s '9'" },
	{ .what = "only a start",
	  .text = SHDR "1,a,1,0,0,9,,0\n",                       .where = "s.csv:2:",
	  .reason = "start_s '9' and end_s ''" },
	{ .what = "pending span ends before submit",
	  .text = SHDR "1,a,1,0,10,,9,0\n",                      .where = "s.csv:2:",
	  .reason = "start_s '' and end_s '9'" },
	{ .what = "never started yet preempted",
	  .text = SHDR "1,a,1,0,10,,,1\n",                       .where = "s.csv:2:",
	  .reason = "start_s '' and end_s ''" },
	{ .what = "submit empty",
	  .text = SHDR "1,a,1,0,,0,5,0\n",                       .where = "s.csv:2:",
	  .reason = "submit_s ''" },
	{ .what = "min runtime",
	  .text = SHDR "1,a,1,x,0,0,5,0\n",                      .where = "s.csv:2:",
	  .reason = "min_runtime_s 'x'" },
	{ .what = "eligible after start",
	  .text = SHDR9 "1,a,1,0,0,5,9,0,6\n",                   .where = "s.csv:2:",
	  .reason = "eligible_s '6'" },
	{ .what = "eligible before submit",
	  .text = SHDR9 "1,a,1,0,4,5,9,0,3\n",                   .where = "s.csv:2:",
	  .reason = "eligible_s '3'" },
	{ .what = "ten columns",
	  .text = "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,"
	  "preempted,eligible_s,x\n", .where = "s.csv:1:",
	  .reason = "header must be exactly" },
	{ .what = "12 columns: bad node list",
	  .text = SHDR12 "1,a,1,0,0,0,5,0,0,1;;2,0,done\n",      .where = "s.csv:2:",
	  .reason = "nodes '1;;2'" },
	{ .what = "12 columns: trailing ';'",
	  .text = SHDR12 "1,a,1,0,0,0,5,0,0,3;,0,done\n",        .where = "s.csv:2:",
	  .reason = "nodes '3;'" },
	{ .what = "12 columns: nodes without a start",
	  .text = SHDR12
	  "1,a,1,0,0,,,0,0,3,0,pending\n",     .where = "s.csv:2:",
	  .reason = "nodes '3'" },
	{ .what = "12 columns: resumable 2",
	  .text = SHDR12 "1,a,1,0,0,0,5,0,0,3,2,done\n",         .where = "s.csv:2:",
	  .reason = "resumable '2'" },
	{ .what = "12 columns: unknown fate",
	  .text = SHDR12 "1,a,1,0,0,0,5,0,0,3,1,killed\n",       .where = "s.csv:2:",
	  .reason = "fate 'killed'" },
	{ .what = "12 columns: requeued but preempted 1",
	  .text = SHDR12
	  "1,a,1,0,0,0,5,1,0,3,1,requeued\n",  .where = "s.csv:2:",
	  .reason = "fate 'requeued' does not agree" },
	{ .what = "12 columns: cancelled but not preempted",
	  .text = SHDR12
	  "1,a,1,0,0,0,5,0,0,3,0,cancelled\n", .where = "s.csv:2:",
	  .reason = "fate 'cancelled' does not agree" },
	{ .what = "12 columns: done without a start",
	  .text = SHDR12
	  "1,a,1,0,0,,,0,0,,0,done\n",         .where = "s.csv:2:",
	  .reason = "fate 'done' does not agree" },
	{ .what = "12 columns: pending with a start",
	  .text = SHDR12
	  "1,a,1,0,0,0,5,0,0,3,0,pending\n",   .where = "s.csv:2:",
	  .reason = "fate 'pending' does not agree" },
	{ .what = "11 columns",
	  .text = "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,"
	  "preempted,eligible_s,nodes,resumable\n", .where = "s.csv:1:",
	  .reason = "header must be exactly" },
	{ .what = "12 columns misnamed",
	  .text = "job,team,gpus,min_runtime_s,submit_s,"
	  "start_s,end_s,preempted,eligible_s,node,resumable,fate\n", .where = "s.csv:1:",
	  .reason = "header must be exactly" },
	{ .what = "job changes",
	  .text = SHDR "1,a,1,0,0,0,5,1\n1,a,2,0,0,6,9,0\n",     .where = "s.csv:3:",
	  .reason = "listed before" },
	/* a job runs once at a time: overlapping runs were counted twice */
	{ .what = "runs overlap",
	  .text = SHDR "1,a,8,60,0,10,50,2\n1,a,8,60,0,30,70,0\n", .where = "s.csv:3:",
	  .reason = "job '1': its run from start_s 30 begins before its "
	  "previous run ended (end_s 50)" },
	{ .what = "runs out of order",
	  .text = SHDR "1,a,1,0,0,60,70,0\n1,a,1,0,0,10,50,2\n", .where = "s.csv:3:",
	  .reason = "list a job's runs in time order" },
};

START_TEST(test_bad_segments)
{
	const struct bad_case *c = &bad_segs[_i];
	struct sim_tree t;
	struct sim_mjob *j = NULL;
	struct sim_mseg *sg = NULL;
	size_t nj, ns;
	char msg[SIM_MSG] = "";

	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	ck_assert_msg(sim_segments_parse("s.csv", c->text, &t, &j, &nj, &sg,
					 &ns, msg, sizeof(msg)) == -1,
		      "%s: accepted", c->what);
	ck_assert_msg(!strncmp(msg, c->where, strlen(c->where)) &&
		      strstr(msg, c->reason), "%s: want '%s' '%s', got '%s'",
		      c->what, c->where, c->reason, msg);
	sim_tree_free(&t);
}
END_TEST

START_TEST(test_unknown_team)
{
	struct sim_read_opts o;
	struct sim_workload w;
	struct sim_tree t;
	char msg[SIM_MSG] = "";

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_parse("j", HDR "0,1,1,a,,0,no,1\n"
					    "5,1,1,qos_LS,,0,no,1\n", &o, &w,
					    msg, sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_bind(&w, &t, &o, 8, 0, msg, sizeof(msg)),
			 -1);
	ck_assert_msg(strstr(msg, ":3:") && strstr(msg, "team 'qos_LS'") &&
		      strstr(msg, "--assign-teams"), "got '%s'", msg);
	sim_workload_free(&w);
	sim_tree_free(&t);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim-input");
	TCase *tc = tcase_create("refused");

	tcase_add_loop_test(tc, test_bad_jobs, 0,
			    sizeof(bad_jobs) / sizeof(bad_jobs[0]));
	tcase_add_loop_test(tc, test_bad_swf, 0,
			    sizeof(bad_swf) / sizeof(bad_swf[0]));
	tcase_add_loop_test(tc, test_bad_trees, 0,
			    sizeof(bad_trees) / sizeof(bad_trees[0]));
	tcase_add_loop_test(tc, test_bad_confs, 0,
			    sizeof(bad_confs) / sizeof(bad_confs[0]));
	tcase_add_loop_test(tc, test_bad_segments, 0,
			    sizeof(bad_segs) / sizeof(bad_segs[0]));
	tcase_add_test(tc, test_unknown_team);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, sim_input_read_tcase());
	return sb_check_run(s);
}
