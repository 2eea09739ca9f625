/*
 * sim-input-read-test.c - sbudget-sim's readers on good input: job tables,
 * SWF, trees (ours, sacctmgr, Helios), budget.conf and observed segments
 * read back exactly; seeded assignment is deterministic.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sb/priority.h"
#include "sim.h"
#include "sim-input-test.h"

START_TEST(test_csv_good)
{
	static const char text[] = HDR
		"30,100,2,a,alice,60,no,HIGH\n"
		"10,-1,1,a,,60,yes,1\n"		/* never ran: skipped */
		"10,100,0,a,,60,yes,1\n"	/* CPU only: skipped */
		"10,50,12,b,,0,on,7\n";		/* rounded to 16 */
	struct sim_read_opts o;
	struct sim_workload w;
	struct sim_tree t;
	char msg[SIM_MSG];

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	ck_assert_int_eq(sim_tree_parse("t", "a 3\nb 1\na/alice 1\n", &t, msg,
					sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_parse("j", text, &o, &w, msg,
					    sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_bind(&w, &t, &o, 8, 64, msg,
					   sizeof(msg)), 0);
	ck_assert_uint_eq(w.njobs, 2);
	ck_assert_uint_eq(w.notes.skipped_unknown, 1);
	ck_assert_uint_eq(w.notes.skipped_nogpu, 1);
	ck_assert_uint_eq(w.notes.rounded, 1);
	/* sorted by submit: the b job first */
	ck_assert_int_eq(w.jobs[0].submit, 10);
	ck_assert_uint_eq(w.jobs[0].gpus, 16);
	ck_assert_str_eq(t.path[w.jobs[0].assoc], "b");
	ck_assert(w.jobs[0].resumable);
	ck_assert_uint_eq(w.jobs[0].prio, 7);
	ck_assert_int_eq(w.jobs[1].min_runtime, 60);
	ck_assert_uint_eq(w.jobs[1].prio, SIM_PRIO_HIGH);
	ck_assert(!w.jobs[1].resumable);
	/* the user's own association when the tree has it */
	ck_assert_str_eq(t.path[w.jobs[1].assoc], "a/alice");
	ck_assert_str_eq(t.path[w.jobs[1].team_node], "a");
	ck_assert_uint_eq(w.notes.contracts_assigned, 0);
	sim_workload_free(&w);
	sim_tree_free(&t);
}
END_TEST

START_TEST(test_slice_scale)
{
	static const char text[] = "submit_time_s,duration_s,gpus,team\n"
		"0,100,1,a\n100,100,1,a\n200,100,1,a\n300,100,1,a\n";
	struct sim_read_opts o;
	struct sim_workload w;
	char msg[SIM_MSG];

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	o.time_scale = 0.5;
	o.from = 100;
	o.span = 200;		/* keeps 100 and 200 -> 0 and 50 */
	ck_assert_int_eq(sim_workload_parse("j", text, &o, &w, msg,
					    sizeof(msg)), 0);
	ck_assert_uint_eq(w.njobs, 2);
	ck_assert_int_eq(w.jobs[0].submit, 0);
	ck_assert_int_eq(w.jobs[1].submit, 50);
	ck_assert_int_eq(w.jobs[1].duration, 50);
	ck_assert_uint_eq(w.notes.skipped_slice, 2);
	sim_workload_free(&w);
}
END_TEST

/* Assignment: deterministic in the seed, team chances follow the shares. */
START_TEST(test_assign)
{
	static char text[200000];
	struct sim_read_opts o;
	struct sim_workload w1, w2, w3;
	struct sim_tree t;
	char msg[SIM_MSG];
	size_t i, n = 4000, len, na = 0, unalloc = 0, same = 0;

	len = (size_t)snprintf(text, sizeof(text),
			       "submit_time_s,duration_s,gpus,team\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len,
					"%zu,7200,1,qos_LS\n", i);
	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	sim_read_opts_init(&o);
	o.assign_teams = true;
	sim_workload_init(&w1);
	sim_workload_init(&w2);
	sim_workload_init(&w3);
	ck_assert_int_eq(sim_workload_parse("j", text, &o, &w1, msg,
					    sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_bind(&w1, &t, &o, 8, 0, msg,
					   sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_parse("j", text, &o, &w2, msg,
					    sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_bind(&w2, &t, &o, 8, 0, msg,
					   sizeof(msg)), 0);
	o.seed = 2;
	ck_assert_int_eq(sim_workload_parse("j", text, &o, &w3, msg,
					    sizeof(msg)), 0);
	ck_assert_int_eq(sim_workload_bind(&w3, &t, &o, 8, 0, msg,
					   sizeof(msg)), 0);
	ck_assert_uint_eq(w1.notes.teams_assigned, n);
	ck_assert_uint_eq(w1.notes.contracts_assigned, n);
	for (i = 0; i < n; i++) {
		const struct sim_job *x = &w1.jobs[i], *y = &w2.jobs[i];

		ck_assert(x->team_node == y->team_node &&
			  x->min_runtime == y->min_runtime &&
			  x->resumable == y->resumable && x->prio == y->prio &&
			  x->submit == y->submit && x->gpus == y->gpus);
		/* leaves with shares: a/x (entitled 0.75) and b (0.25) */
		na += !strcmp(t.path[w1.jobs[i].team_node], "a/x");
		unalloc += w1.jobs[i].min_runtime == 0;
		same += w1.jobs[i].team_node == w3.jobs[i].team_node &&
			w1.jobs[i].min_runtime == w3.jobs[i].min_runtime;
		ck_assert(w1.jobs[i].min_runtime <= 7200);
	}
	/* 0.75 of 4000 = 3000, 5 sigma is about 140 */
	ck_assert_msg(na > 2860 && na < 3140, "a/x got %zu of %zu", na, n);
	ck_assert_msg(unalloc > 680 && unalloc < 920, "unallocated %zu", unalloc);
	ck_assert_msg(same < n / 2, "seed 2 repeats seed 1: %zu", same);
	sim_workload_free(&w1);
	sim_workload_free(&w2);
	sim_workload_free(&w3);
	sim_tree_free(&t);
}
END_TEST

START_TEST(test_swf_good)
{
	static const char text[] =
		"; Version: 2.2\n"
		"1 0 5 100 4 -1 -1 4 -1 -1 1 7 2 -1 1 -1 -1 -1\n"
		"2 10 5 -1 4 -1 -1 4 -1 -1 0 7 2 -1 1 -1 -1 -1\n"
		"3 20 5 50 -1 12.5 -1 2 -1 -1 1 8 1 -1 1 -1 -1 -1\n";
	struct sim_read_opts o;
	struct sim_workload w;
	char msg[SIM_MSG];

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	ck_assert_int_eq(sim_workload_parse("log", text, &o, &w, msg,
					    sizeof(msg)), 0);
	ck_assert_str_eq(w.notes.format, "swf");
	ck_assert_uint_eq(w.njobs, 2);
	ck_assert_uint_eq(w.notes.skipped_unknown, 1);
	ck_assert_str_eq(w.names[w.jobs[0].team], "g2");
	ck_assert_str_eq(w.names[w.jobs[0].user], "u7");
	ck_assert_uint_eq(w.jobs[0].gpus, 4);
	ck_assert_uint_eq(w.jobs[1].gpus, 2);	/* requested, as allocated -1 */
	ck_assert_int_eq(w.jobs[1].duration, 50);
	ck_assert(!w.has_mr);
	sim_workload_free(&w);
}
END_TEST

START_TEST(test_trees_good)
{
	struct sim_tree t;
	char msg[SIM_MSG];
	uint32_t i;

	ck_assert_int_eq(sim_tree_parse("t", "Account|User|Par Name|Share\n"
					"root|||1\n"
					"phys||root|3\n"
					"phys-a||phys|1\n"
					"phys-a|alice||2\n"
					"bio||root|1\n", &t, msg, sizeof(msg)),
			 0);
	ck_assert_str_eq(t.source, "sacctmgr");
	ck_assert_uint_eq(t.n, 4);
	i = sim_tree_find(&t, "phys/phys-a/alice");
	ck_assert_uint_ne(i, SB_NONE);
	ck_assert(fabs(sb_tree_node(t.tree, i)->entitled - 0.75) < 1e-12);
	ck_assert_uint_eq(sim_tree_find(&t, "alice"), i);	/* unique name */
	sim_tree_free(&t);

	ck_assert_int_eq(sim_tree_parse("d", "# sacctmgr dump\n"
					"Cluster - 'c':Fairshare=1\n"
					"Parent - 'root'\n"
					"Account - 'phys':Description='p':Fairshare=3\n"
					"Account - 'bio'\n"	/* default 1 */
					"Parent - 'phys'\n"
					"Account - 'phys-a':Fairshare=1\n"
					"Parent - 'phys-a'\n"
					"User - 'alice':DefaultAccount='phys-a':Fairshare=2\n",
					&t, msg, sizeof(msg)), 0);
	ck_assert_str_eq(t.source, "dump");
	ck_assert_uint_eq(t.n, 4);
	i = sim_tree_find(&t, "phys/phys-a/alice");
	ck_assert_uint_ne(i, SB_NONE);
	ck_assert(fabs(sb_tree_node(t.tree, i)->entitled - 0.75) < 1e-12);
	ck_assert_uint_eq(sb_tree_node(t.tree, sim_tree_find(&t, "bio"))->raw_shares,
			  1);
	sim_tree_free(&t);

	ck_assert_int_eq(sim_tree_parse("h", "date,vcA,vcB,vcC,total\n"
					"2020-04-01,8,0,24,32\n"
					"2020-04-02,16,0,24,40\n", &t, msg,
					sizeof(msg)), 0);
	ck_assert_str_eq(t.source, "helios");
	ck_assert_uint_eq(t.n, 3);
	i = sim_tree_find(&t, "vcA");
	ck_assert_uint_eq(sb_tree_node(t.tree, i)->raw_shares, 24);
	ck_assert(fabs(sb_tree_node(t.tree, i)->entitled - 24.0 / 72) < 1e-12);
	ck_assert(sb_tree_node(t.tree, sim_tree_find(&t, "vcB"))->entitled == 0);
	sim_tree_free(&t);
}
END_TEST

/* Accounts three levels below root, in each format (and sacctmgr's output
 * as printed, below): `sacctmgr -P show assoc` refused them ("parent 'phys-a' is not listed": the paths of
 * earlier accounts were rewritten while later ones looked their parents
 * up by name). */
struct deep_case {
	const char *what, *text, *path;
	double entitled;
};

static const struct deep_case deeps[] = {
	{ .what = "sacctmgr",
	  .text = "Account|User|Par Name|Share\n"
	  "root|||1\n"
	  "phys||root|3\n"
	  "phys-a||phys|1\n"
	  "theory||phys-a|1\n"
	  "theory|alice||2\n"
	  "bio||root|1\n",
	  .path = "phys/phys-a/theory/alice", .entitled = 0.75 },
	{ .what = "sacctmgr, four levels",
	  .text = "Account|User|Par Name|Share\n"
	  "root|||1\n"
	  "a||root|1\n"
	  "b||a|1\n"
	  "c||b|1\n"
	  "d||c|1\n"
	  "d|u||1\n"
	  "e||root|1\n",
	  .path = "a/b/c/d/u",                .entitled = 0.5 },
	/* the test cluster's `sacctmgr -P show assoc format=account,user,
	 * parentname,fairshare` as printed: root's own user association
	 * ("root|root||0") is a top-level node, as in a dump (it was
	 * refused: "user association under account 'root', which is not
	 * listed") */
	{ .what = "sacctmgr as printed",
	  .text = "Account|User|ParentName|Share\n"
	  "root|||1\n"
	  "root|root||0\n"
	  "bio||root|1\n"
	  "bio|sb-bob||1\n"
	  "nobudget||root|0\n"
	  "nobudget|sb-carol||1\n"
	  "physics||root|3\n"
	  "phys-a||physics|2\n"
	  "phys-a|root||1\n"
	  "phys-a|sb-alice||1\n"
	  "phys-b||physics|1\n"
	  "phys-b|sb-bob||1\n"
	  "phys-b|sb-dave||1\n",
	  .path = "physics/phys-a/sb-alice",  .entitled = 0.25 },
	{ .what = "dump",
	  .text = "Cluster - 'c':Fairshare=1\n"
	  "Parent - 'root'\n"
	  "Account - 'phys':Fairshare=3\n"
	  "Account - 'bio':Fairshare=1\n"
	  "Parent - 'phys'\n"
	  "Account - 'phys-a':Fairshare=1\n"
	  "Parent - 'phys-a'\n"
	  "Account - 'theory':Fairshare=1\n"
	  "Parent - 'theory'\n"
	  "User - 'alice':Fairshare=2\n",
	  .path = "phys/phys-a/theory/alice", .entitled = 0.75 },
	{ .what = "dump of Slurm 26.05 (QOS lines first)",
	  .text = "QOS - 'normal':Description='Normal QOS default'\n"
	  "Cluster - 'c':Fairshare=1:QOS='normal'\n"
	  "Parent - 'root'\n"
	  "Account - 'phys':Fairshare=3\n"
	  "Account - 'bio':Fairshare=1\n"
	  "Parent - 'phys'\n"
	  "User - 'alice':Fairshare=2\n",
	  .path = "phys/alice",               .entitled = 0.75 },
	{ .what = "paths",
	  .text = "phys 3\nphys/phys-a 1\nphys/phys-a/theory 1\n"
	  "phys/phys-a/theory/alice 2\nbio 1\n",
	  .path = "phys/phys-a/theory/alice", .entitled = 0.75 },
};

START_TEST(test_trees_deep)
{
	const struct deep_case *c = &deeps[_i];
	struct sim_tree t;
	char msg[SIM_MSG] = "";
	uint32_t i;

	ck_assert_msg(sim_tree_parse("t", c->text, &t, msg, sizeof(msg)) == 0,
		      "%s: refused: %s", c->what, msg);
	i = sim_tree_find(&t, c->path);
	ck_assert_msg(i != SB_NONE, "%s: no %s", c->what, c->path);
	ck_assert_msg(fabs(sb_tree_node(t.tree, i)->entitled - c->entitled) <
		      1e-12, "%s: %s entitled %g, expected %g", c->what,
		      c->path, sb_tree_node(t.tree, i)->entitled, c->entitled);
	sim_tree_free(&t);
}
END_TEST

/* sim_tree_find: a path, or a last component that names one node (not a
 * top-level one, which only its path names); an ambiguous name is none. */
struct find_case {
	const char *name;
	const char *want;	/* path found, NULL: SB_NONE */
};

static const struct find_case finds[] = {
	{ .name = "phys",      .want = "phys" },
	{ .name = "phys/a",    .want = "phys/a" },
	{ .name = "a",         .want = NULL },        /* phys/a and bio/a */
	{ .name = "phys/a/u1", .want = "phys/a/u1" },
	{ .name = "u1",        .want = "phys/a/u1" },
	{ .name = "b",         .want = "phys/b" },
	{ .name = "bio",       .want = "bio" },
	{ .name = "x",         .want = NULL },
	{ .name = "",          .want = NULL },
	{ .name = "phys/",     .want = NULL },
	{ .name = "/a",        .want = NULL },
	{ .name = "top",       .want = "top" },
	{ .name = "top2",      .want = "bio/top2" },  /* only nested: found by its name */
};

START_TEST(test_tree_find)
{
	const struct find_case *c = &finds[_i];
	struct sim_tree t;
	char msg[SIM_MSG] = "";
	uint32_t i;

	ck_assert_msg(sim_tree_parse("t", "phys 1\nphys/a 1\nphys/a/u1 1\n"
				     "phys/b 1\nbio 1\nbio/a 1\ntop 1\n"
				     "bio/top2 1\n", &t, msg, sizeof(msg)) == 0,
		      "%s", msg);
	i = sim_tree_find(&t, c->name);
	if (!c->want)
		ck_assert_msg(i == SB_NONE, "'%s': found %s", c->name,
			      i == SB_NONE ? "" : t.path[i]);
	else
		ck_assert_msg(i != SB_NONE && !strcmp(t.path[i], c->want),
			      "'%s': want %s, got %s", c->name, c->want,
			      i == SB_NONE ? "none" : t.path[i]);
	sim_tree_free(&t);
}
END_TEST

START_TEST(test_conf_good)
{
	struct sb_config cfg;
	char msg[SIM_MSG];

	sb_config_init(&cfg);
	ck_assert_int_eq(sim_config_parse("b", "# c\n CalcPeriod = 5 \n"
					  "PreemptGraceTime=0\n"
					  "LookbackWindow=2-00:00:00\n", &cfg,
					  msg, sizeof(msg)), 0);
	ck_assert_int_eq(cfg.calc_period, 5);
	ck_assert_int_eq(cfg.preempt.grace_time, 0);
	ck_assert_int_eq(cfg.lookback_window, 2 * 86400);
}
END_TEST

/*
 * Job j1 (a, 2 GPUs, min runtime 60: allocated): submitted 0, ran 5-20
 * (preempted, work kept) and 30-40; its second run's eligibility is the
 * first's end, 20 (no eligible_s column).  j2 (b, unallocated) never
 * started: pending from its submit, 3, still open.
 */
START_TEST(test_segments_good)
{
	struct sim_tree t;
	struct sim_mjob *j = NULL;
	struct sim_mseg *sg = NULL;
	size_t nj, ns;
	char msg[SIM_MSG];

	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	ck_assert_int_eq(sim_segments_parse("s", SHDR
		"j1,a,2,60,0,5,20,2\nj2,b,1,0,3,,,0\nj1,a,2,60,0,30,40,0\n",
		&t, &j, &nj, &sg, &ns, msg, sizeof(msg)), 0);
	ck_assert_uint_eq(nj, 2);
	ck_assert_uint_eq(ns, 2);
	ck_assert_int_eq(j[0].first_start, 5);
	ck_assert_int_eq(j[0].end, 40);
	ck_assert(j[0].allocated && !j[1].allocated);
	ck_assert(j[0].pending_since == SIM_NEVER);
	ck_assert(j[1].first_start == SIM_NEVER);
	ck_assert_int_eq(j[1].pending_since, 3);
	ck_assert(j[1].pending_until == SIM_NEVER);
	ck_assert(sg[0].preempted && !sg[0].lost);
	ck_assert_int_eq(sg[0].eligible, 0);
	ck_assert_int_eq(sg[1].eligible, 20);
	ck_assert_str_eq(t.path[j[1].node], "b");
	free(j);
	free(sg);
	sim_tree_free(&t);
}
END_TEST

/*
 * With eligible_s: j1's second run was eligible at 25 (a requeue delay of
 * 5 s after its first run ended at 20); j2 has no contract (min_runtime_s
 * empty): unallocated; j3 never started and left the queue at 50, pending
 * from its eligible_s, 7.
 */
START_TEST(test_segments_eligible)
{
	struct sim_tree t;
	struct sim_mjob *j = NULL;
	struct sim_mseg *sg = NULL;
	size_t nj, ns;
	char msg[SIM_MSG];

	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	ck_assert_msg(sim_segments_parse("s", SHDR9
		"j1,a,2,60,0,5,20,2,\nj1,a,2,60,0,30,40,0,25\n"
		"j2,b,1,,3,4,8,0,\nj3,a,4,600,5,,50,0,7\n",
		&t, &j, &nj, &sg, &ns, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_uint_eq(nj, 3);
	ck_assert_uint_eq(ns, 3);
	ck_assert_int_eq(sg[0].eligible, 0);
	ck_assert_int_eq(sg[1].eligible, 25);
	ck_assert(!j[1].allocated);
	ck_assert_int_eq(j[1].min_runtime, 0);
	ck_assert(j[2].allocated);
	ck_assert_int_eq(j[2].pending_since, 7);
	ck_assert_int_eq(j[2].pending_until, 50);
	free(j);
	free(sg);
	sim_tree_free(&t);
}
END_TEST

/*
 * The twelve-column form (run --segments): node ids, resumable, fate.
 * The same runs as test_segments_eligible plus those columns read to the
 * same jobs and segments; j1's first run was requeued (preempted 2), its
 * second ran on nodes 3 and 4; j2 resumable; j3 pending.
 */
START_TEST(test_segments_columns)
{
	static const char body[] =
		"j1,a,2,60,0,5,20,2,%s\nj1,a,2,60,0,30,40,0,25%s\n"
		"j2,b,1,,3,4,8,0,%s\nj3,a,4,600,5,,50,0,7%s\n";
	struct sim_tree t;
	struct sim_mjob *j[2] = { NULL, NULL };
	struct sim_mseg *sg[2] = { NULL, NULL };
	size_t nj[2], ns[2], k;
	char msg[SIM_MSG], text[2][1024];

	snprintf(text[0], sizeof(text[0]), SHDR9 "%s", "");
	snprintf(text[0] + strlen(text[0]), sizeof(text[0]) - strlen(text[0]),
		 body, "", "", "", "");
	snprintf(text[1], sizeof(text[1]), SHDR12 "%s", "");
	snprintf(text[1] + strlen(text[1]), sizeof(text[1]) - strlen(text[1]),
		 body, ",0,0,requeued", ",3;4,0,done", ",1,1,done",
		 ",,0,pending");
	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	for (k = 0; k < 2; k++)
		ck_assert_msg(sim_segments_parse("s", text[k], &t, &j[k],
						 &nj[k], &sg[k], &ns[k], msg,
						 sizeof(msg)) == 0,
			      "%s\n%s", msg, text[k]);
	ck_assert_uint_eq(nj[0], nj[1]);
	ck_assert_uint_eq(ns[0], ns[1]);
	for (k = 0; k < nj[0]; k++) {
		const struct sim_mjob *x = &j[0][k], *y = &j[1][k];

		ck_assert(x->node == y->node && x->gpus == y->gpus &&
			  x->min_runtime == y->min_runtime &&
			  x->allocated == y->allocated &&
			  x->submit == y->submit &&
			  x->first_start == y->first_start &&
			  x->end == y->end &&
			  x->pending_since == y->pending_since &&
			  x->pending_until == y->pending_until);
	}
	for (k = 0; k < ns[0]; k++) {
		const struct sim_mseg *x = &sg[0][k], *y = &sg[1][k];

		ck_assert(x->job == y->job && x->eligible == y->eligible &&
			  x->start == y->start && x->end == y->end &&
			  x->preempted == y->preempted && x->lost == y->lost);
	}
	ck_assert_int_eq(sg[1][1].eligible, 25);
	ck_assert(sg[1][0].preempted && !sg[1][0].lost);
	for (k = 0; k < 2; k++) {
		free(j[k]);
		free(sg[k]);
	}
	sim_tree_free(&t);
}
END_TEST

/*
 * A cancelled run and its user's resubmission (sbudget-sim run writes the
 * new job's runs under the same id, the first eligible from the cancel):
 * j1 cancelled at 20, resubmitted, runs 330-400; j2 cancelled at 10,
 * resubmitted and pending from the cancel at the end (a line without a
 * start after its run); j3 restarted (lost, not cancelled).  The 9-column
 * form of the same lines reads no fate: nothing cancelled.
 */
START_TEST(test_segments_cancelled)
{
	static const char body12[] =
		"j1,a,2,60,0,5,20,1,0,0,0,cancelled\n"
		"j1,a,2,60,0,330,400,0,20,1,0,done\n"
		"j2,b,1,0,3,4,10,1,3,0,0,cancelled\n"
		"j2,b,1,0,3,,,0,10,,0,pending\n"
		"j3,a,1,60,0,0,50,1,0,2,0,restarted\n";
	struct sim_tree t;
	struct sim_mjob *j = NULL;
	struct sim_mseg *sg = NULL;
	size_t nj, ns;
	char msg[SIM_MSG], text[1024];

	snprintf(text, sizeof(text), SHDR12 "%s", body12);
	ck_assert_int_eq(sim_tree_parse("t", tree_ab, &t, msg, sizeof(msg)), 0);
	ck_assert_msg(sim_segments_parse("s", text, &t, &j, &nj, &sg, &ns, msg,
					 sizeof(msg)) == 0, "%s", msg);
	ck_assert_uint_eq(nj, 3);
	ck_assert_uint_eq(ns, 4);
	ck_assert(sg[0].preempted && sg[0].lost && sg[0].cancelled);
	ck_assert(!sg[1].preempted && !sg[1].cancelled);
	ck_assert_int_eq(sg[1].eligible, 20);	/* the gap is demand */
	ck_assert(sg[2].cancelled);
	ck_assert(sg[3].lost && !sg[3].cancelled);	/* restarted */
	ck_assert_int_eq(j[0].first_start, 5);	/* the original job's */
	ck_assert_int_eq(j[1].pending_since, 10);
	ck_assert(j[1].pending_until == SIM_NEVER);
	free(j);
	free(sg);
	j = NULL;
	sg = NULL;
	/* the first nine columns: the same runs, no fate, nothing cancelled */
	snprintf(text, sizeof(text), SHDR9
		 "j1,a,2,60,0,5,20,1,0\nj1,a,2,60,0,330,400,0,20\n");
	ck_assert_msg(sim_segments_parse("s", text, &t, &j, &nj, &sg, &ns, msg,
					 sizeof(msg)) == 0, "%s", msg);
	ck_assert(sg[0].lost && !sg[0].cancelled);
	free(j);
	free(sg);
	sim_tree_free(&t);
}
END_TEST

TCase *sim_input_read_tcase(void)
{
	TCase *tc = tcase_create("read");

	tcase_add_test(tc, test_csv_good);
	tcase_add_test(tc, test_slice_scale);
	tcase_add_test(tc, test_assign);
	tcase_add_test(tc, test_swf_good);
	tcase_add_test(tc, test_trees_good);
	tcase_add_test(tc, test_conf_good);
	tcase_add_loop_test(tc, test_tree_find, 0,
			    sizeof(finds) / sizeof(finds[0]));
	tcase_add_loop_test(tc, test_trees_deep, 0,
			    sizeof(deeps) / sizeof(deeps[0]));
	tcase_add_test(tc, test_segments_good);
	tcase_add_test(tc, test_segments_eligible);
	tcase_add_test(tc, test_segments_columns);
	tcase_add_test(tc, test_segments_cancelled);
	return tc;
}
