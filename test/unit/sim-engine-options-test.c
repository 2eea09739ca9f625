/*
 * sim-engine-options-test.c - the engine under --no-requeue (victims
 * cancelled), --resubmit-delay (cancelled jobs resubmitted) and --until
 * (the clock stopped), and invariants on seeded random workloads in every
 * mode.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim-engine-test.h"

/* --no-requeue (every job drawn as one, --no-requeue 1): Slurm cannot
 * requeue them, so a victim is cancelled whether it is resumable or not;
 * --no-requeue 0 (the default) requeues both. */
static const struct scen no_requeue_cases[] = {
	{ .what = "--no-requeue, not resumable: cancelled",     .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",    .policy = SIM_POLICY_BUDGET,
	  .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110",
	  .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "none" },
	{ .what = "--no-requeue, resumable: cancelled as well", .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,yes,512\n10,100,2,b,,60,yes,512\n",   .policy = SIM_POLICY_BUDGET,
	  .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110",
	  .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "none" },
	/* cancelled, it loses its run: the cost margin waits as in the
	 * scenario "allocated, not resumable" (sim-engine-test.c) */
	{ .what = "--no-requeue, allocated resumable: cancelled, and no grace time", .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,300,yes,512\n10,100,4,b,,60,yes,512\n", .policy = SIM_POLICY_BUDGET,
	  .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-660C 2:660-760",
	  .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "none" },
};

START_TEST(test_no_requeue)
{
	const struct scen *c = &no_requeue_cases[_i];
	struct sim_result r;
	char got[2048];
	size_t i;

	no_requeue_frac = 1;
	run(c, &r, got, sizeof(got));
	no_requeue_frac = 0;
	ck_assert_msg(!strcmp(got, c->segs), "%s:\n  want %s\n  got  %s",
		      c->what, c->segs, got);
	for (i = 0; i < r.njobs; i++)
		if (r.jobs[i].preemptions)
			ck_assert_int_eq(r.jobs[i].how, SIM_END_CANCELLED);
	sim_result_free(&r);
}
END_TEST

/*
 * A job cancelled by preemption is resubmitted by its user --resubmit-delay
 * after it stopped, as a new job: its whole duration again, queued by the
 * resubmission time; its demand goes on from the cancel (the first run
 * after it is eligible from the cancel).  Every job is --no-requeue
 * (no_requeue 1) unless the case's budget.conf cancels.  @eligible: the
 * resubmitted run's eligibility (-1: none expected).
 */
static const struct {
	struct scen c;
	unsigned resubmissions;	/* sim_result.resubmissions */
	int64_t eligible;	/* eligible of job 1's last run, -1: none */
	enum sim_job_end how;	/* job 1's end */
} resubmit_cases[] = {
	/* Job 1 (unallocated) is preempted by job 2 at 10 (no grace time)
	 * and cancelled; its user resubmits it at 10 + 300 = 310: it runs
	 * its whole 1000 s, 310-1310, eligible from 10 (the gap is owed). */
	{ .c = { .what = "resubmitted after 5:00 (the default) with its whole duration", .tree = "a 1\nb 1\n", .conf = "", .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110 1:310-1310",             .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = NULL },
	  .resubmissions = 1, .eligible = 10, .how = SIM_END_DONE },
	{ .c = { .what = "resubmitted after 1-0 (a day)",                     .tree = "a 1\nb 1\n", .conf = "", .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110 1:86410-87410",          .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "1-0" },
	  .resubmissions = 1, .eligible = 10, .how = SIM_END_DONE },
	/* none: the old behaviour, cancelled for good */
	{ .c = { .what = "none: never resubmitted",                           .tree = "a 1\nb 1\n", .conf = "", .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110",                        .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "none" },
	  .resubmissions = 0, .eligible = -1, .how = SIM_END_CANCELLED },
	/* A new job is queued by its resubmission.  Job 3 (same team,
	 * unallocated, submitted at 20) is pending when job 2 ends at 110.
	 * Resubmitted at 10 + 0 = 10, job 1 is before it: 110-1110, job 3
	 * after, 1110-1160.  Resubmitted at 10 + 60 = 70, job 1 is after
	 * job 3 (20): job 3 110-160, job 1 160-1160. */
	{ .c = { .what = "resubmitted at once: before a job submitted later", .tree = "a 1\nb 1\n", .conf = "", .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n"
	    "20,50,4,a,,0,no,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110 1:110-1110 3:1110-1160", .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "0" },
	  .resubmissions = 1, .eligible = 10, .how = SIM_END_DONE },
	{ .c = { .what = "resubmitted after 1:00: behind a job submitted before that", .tree = "a 1\nb 1\n", .conf = "", .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n"
	    "20,50,4,a,,0,no,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                   .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:10-110 3:110-160 1:160-1160",   .preemptions = 1, .at_once = false, .backfill = NULL, .resubmit = "1:00" },
	  .resubmissions = 1, .eligible = 10, .how = SIM_END_DONE },
	/* Baseline, PreemptNonResumable=cancel (jobs requeueable, no_requeue
	 * 0 for this one): jobs 1 and 2 (b, over b's cap of 4, preemptible)
	 * are cancelled at 10 and 20 (the scenario "baseline: ... and is
	 * cancelled" in sim-engine-test.c) and resubmitted at 310 and 320:
	 * node 1 is free from 120 (job 4 ended), job 1 runs 310-1310; job 2
	 * waits for job 3's node, 510-1510. */
	{ .c = { .what = "baseline: the cancelled victims are resubmitted",   .tree = "a 3\nb 1\n", .conf = "PreemptNonResumable=cancel\n", .jobs = "0,1000,8,b,,600,no,512\n0,1000,8,b,,600,no,512\n"
	    "10,500,8,a,,300,yes,512\n20,100,4,a,,60,yes,512\n",                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                                     .policy = SIM_POLICY_BASELINE, .nodes = 2, .gpn = 8, .requeue_delay = 0, .restart = false, .segs = "1:0-10C 2:0-20C 4:20-120 3:10-510 1:310-1310 2:510-1510", .preemptions = 2, .at_once = false, .backfill = NULL, .resubmit = NULL },
	  .resubmissions = 2, .eligible = 10, .how = SIM_END_DONE },
};

START_TEST(test_resubmit)
{
	const struct scen *c = &resubmit_cases[_i].c;
	struct sim_result r;
	char got[2048];
	int64_t el = -1;
	size_t i;

	no_requeue_frac = c->conf[0] ? 0 : 1;
	run(c, &r, got, sizeof(got));
	no_requeue_frac = 0;
	ck_assert_msg(!strcmp(got, c->segs), "%s:\n  want %s\n  got  %s",
		      c->what, c->segs, got);
	ck_assert_msg(r.preemptions == c->preemptions,
		      "%s: want %u preemptions, got %llu", c->what,
		      c->preemptions, (unsigned long long)r.preemptions);
	ck_assert_msg(r.resubmissions == resubmit_cases[_i].resubmissions,
		      "%s: want %u resubmissions, got %llu", c->what,
		      resubmit_cases[_i].resubmissions,
		      (unsigned long long)r.resubmissions);
	ck_assert_int_eq(r.jobs[0].how, resubmit_cases[_i].how);
	for (i = 0; i < r.nsegs; i++)	/* job 1's last run */
		if (r.segs[i].job == 0 &&
		    r.segs[i].fate != SIM_FATE_CANCELLED)
			el = r.segs[i].eligible;
	ck_assert_msg(el == resubmit_cases[_i].eligible,
		      "%s: job 1's run after the cancel eligible at %lld, "
		      "want %lld", c->what, (long long)el,
		      (long long)resubmit_cases[_i].eligible);
	sim_result_free(&r);
}
END_TEST

/* --resubmit-delay: Slurm's time syntax through sb_duration_parse(), or
 * none; anything else refused, naming the value and what is accepted. */
static const struct {
	const char *v;
	int rc;
	int64_t want;		/* rc 0 */
	const char *msg;	/* rc -1: in the message */
} resubmit_parse_cases[] = {
	{ .v = "5:00",    .rc = 0,  .want = 300,    .msg = NULL },
	{ .v = "0",       .rc = 0,  .want = 0,      .msg = NULL },
	{ .v = "90",      .rc = 0,  .want = 5400,   .msg = NULL },
	{ .v = "1:00:00", .rc = 0,  .want = 3600,   .msg = NULL },
	{ .v = "2-12",    .rc = 0,  .want = 216000, .msg = NULL },
	{ .v = "none",    .rc = 0,  .want = SIM_NO_RESUBMIT, .msg = NULL },
	{ .v = "",        .rc = -1, .want = 0,      .msg = "--resubmit-delay '' is not accepted: a duration in "
	  "Slurm's time syntax" },
	{ .v = "5m",      .rc = -1, .want = 0,      .msg = "--resubmit-delay '5m' is not accepted" },
	{ .v = "-5",      .rc = -1, .want = 0,      .msg = "--resubmit-delay '-5' is not accepted" },
	{ .v = "1:60",    .rc = -1, .want = 0,      .msg = "'1:60' is not accepted" },
	{ .v = "366-0",   .rc = -1, .want = 0,      .msg = "at most 365 days" },
	{ .v = "None",    .rc = -1, .want = 0,      .msg = "or none" },
	{ .v = "never",   .rc = -1, .want = 0,      .msg = "(M, M:S, H:M:S, D-H, D-H:M or D-H:M:S" },
	{ .v = NULL,      .rc = -1, .want = 0,      .msg = "--resubmit-delay '(null)' is not accepted" },
};

START_TEST(test_resubmit_parse)
{
	int64_t v = 12345;
	char msg[SIM_MSG] = "";
	int rc = sim_resubmit_parse(resubmit_parse_cases[_i].v, &v, msg,
				    sizeof(msg));

	ck_assert_int_eq(rc, resubmit_parse_cases[_i].rc);
	if (!rc) {
		ck_assert_int_eq(v, resubmit_parse_cases[_i].want);
	} else {
		ck_assert_int_eq(v, 12345);	/* not written */
		ck_assert_msg(strstr(msg, resubmit_parse_cases[_i].msg),
			      "'%s': message '%s' lacks '%s'",
			      resubmit_parse_cases[_i].v ?
			      resubmit_parse_cases[_i].v : "(null)", msg,
			      resubmit_parse_cases[_i].msg);
	}
}
END_TEST

/* --until stops the clock: running runs end there, unfinished. */
START_TEST(test_until)
{
	struct sim_read_opts o;
	struct sim_workload w;
	struct sim_tree t;
	struct sim_params p;
	struct sim_result r;
	char msg[SIM_MSG];

	sim_read_opts_init(&o);
	sim_workload_init(&w);
	sim_params_init(&p);
	p.nodes = 1;
	p.gpus_per_node = 2;
	p.until = 50;
	ck_assert(!sim_tree_parse("t", "a 1\n", &t, msg, sizeof(msg)));
	ck_assert(!sim_workload_parse("j", "submit_time_s,duration_s,gpus,team\n"
				      "0,100,2,a\n10,100,2,a\n", &o, &w, msg,
				      sizeof(msg)));
	ck_assert(!sim_workload_bind(&w, &t, &o, 2, 0, msg, sizeof(msg)));
	ck_assert(!sim_run(&w, &t, &p, &r, msg, sizeof(msg)));
	ck_assert_uint_eq(r.nsegs, 1);
	ck_assert_int_eq(r.segs[0].end, 50);
	ck_assert_int_eq(r.jobs[0].how, SIM_END_UNFINISHED);
	ck_assert_int_eq(r.jobs[1].how, SIM_END_UNFINISHED);
	ck_assert(r.jobs[1].first_start == SIM_NEVER);
	ck_assert_int_eq(r.t_end, 50);
	sim_result_free(&r);
	sim_workload_free(&w);
	sim_tree_free(&t);
}
END_TEST

/*
 * Invariants on seeded random workloads, every mode: the run ends; no GPU
 * holds two runs at once; a finished job ran exactly its duration
 * (--requeue-work resume) or its last run did (restart); a run starts no
 * earlier than its submission; preemptions counted = preempted runs.
 */
static uint64_t fz;

struct ivl {
	uint32_t gpu, job;
	int64_t start, end;
};

static int ivl_cmp(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;

	if (x->gpu != y->gpu)
		return x->gpu < y->gpu ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t fuzz_rand(uint32_t n)
{
	fz = fz * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)((fz >> 33) % n);
}

/* A job table of @n random jobs (three teams, 1-16 GPUs, some without a
 * contract) into @text, drawn from fuzz_rand() in a fixed order. */
static void fuzz_jobs(char *text, size_t size, size_t n)
{
	static const char *const teams[3] = { "a", "b", "c" };
	static const uint32_t sizes[7] = { 1, 1, 2, 4, 8, 12, 16 };
	size_t len, i;

	len = (size_t)snprintf(text, size, "submit_time_s,duration_s,gpus,"
			       "team,user,min_runtime_s,resumable,priority\n");
	for (i = 0; i < n; i++) {	/* draws in this order */
		uint32_t dur = 1 + fuzz_rand(400), sub = fuzz_rand(600);
		uint32_t g = sizes[fuzz_rand(7)], tm = fuzz_rand(3);
		uint32_t mr = fuzz_rand(3) ? fuzz_rand(dur + 1) : 0;
		uint32_t res = fuzz_rand(2), pr = fuzz_rand(1024);

		len += (size_t)snprintf(text + len, size - len,
					"%u,%u,%u,%s,,%u,%s,%u\n", sub, dur, g,
					teams[tm], mr, res ? "yes" : "no", pr);
	}
}

/*
 * Every run of @r starts after its job's submission and does not end
 * before it starts; no two runs share a GPU at once (one interval per GPU
 * and run, sorted by GPU then start: each begins no earlier than the
 * previous one on its GPU ended; 4 GPUs per node).  Adds each job's kept
 * work (runs not lost) to @ran.  @c: the case, for the messages.
 */
static void check_runs(const struct sim_result *r, const struct sim_workload *w,
		       int64_t *ran, int c)
{
	struct ivl *iv = malloc((r->nsegs * 12 + 1) * sizeof(*iv));
	size_t i, k, niv = 0;

	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *x = &r->segs[i];
		uint32_t a, g;

		ck_assert_int_ge(x->start, w->jobs[x->job].submit);
		ck_assert_int_le(x->start, x->end);
		if (!x->lost)	/* lost runs are done again */
			ran[x->job] += x->end - x->start;
		if (x->start == x->end)
			continue;
		for (a = 0; a < x->nnodes; a++)
			for (g = 0; g < 4; g++)
				if (x->mask >> g & 1)
					iv[niv++] = (struct ivl){
						r->nodes[x->node_off + a] * 4 + g,
						x->job, x->start, x->end };
	}
	qsort(iv, niv, sizeof(*iv), ivl_cmp);
	for (k = 1; k < niv; k++)
		if (iv[k].gpu == iv[k - 1].gpu)
			ck_assert_msg(iv[k].start >= iv[k - 1].end,
				      "case %d: jobs %u and %u share GPU %u "
				      "at %lld", c, iv[k - 1].job, iv[k].job,
				      iv[k].gpu, (long long)iv[k].start);
	free(iv);
}

START_TEST(test_invariants)
{
	struct sim_read_opts o;
	struct sim_workload w;
	struct sim_tree t;
	struct sim_params p;
	struct sim_result r;
	char text[65536], msg[SIM_MSG];
	size_t i, k;
	int64_t *ran;

	fz = 12345 + (uint64_t)_i * 7919;
	fuzz_jobs(text, sizeof(text), 60);
	sim_read_opts_init(&o);
	/* where victims are preempted whatever their contract (not keep):
	 * 40% cannot be requeued, cancelled and resubmitted after 0 s, 5 min
	 * (the default) or never */
	o.no_requeue = _i % 3 == 1 ? 0.4 : 0;
	sim_workload_init(&w);
	sim_params_init(&p);
	p.resubmit_delay = _i % 9 == 1 ? SIM_NO_RESUBMIT : _i % 9 == 4 ? 0 :
			   SIM_RESUBMIT_DEFAULT;
	p.policy = _i % 2 ? SIM_POLICY_BASELINE : SIM_POLICY_BUDGET;
	p.nodes = 3;
	p.gpus_per_node = 4;
	p.restart = _i % 3 == 0;
	p.hold_leftovers = _i % 4 != 1;
	p.best_fit = _i % 5 == 2;
	p.backfill = _i % 7 == 3 ? SIM_BACKFILL_NONE : _i % 7 == 5 ?
		     SIM_BACKFILL_GREEDY : SIM_BACKFILL_RESERVE;
	p.reserve = 1 + (uint32_t)_i % 3;
	p.requeue_delay = _i % 2 ? 0 : 7;
	ck_assert(!sim_config_parse("c", _i % 3 == 1 ? "PreemptGraceTime=0\n"
				    "CalcPeriod=5\n" : "CalcPeriod=7\n"
				    "PreemptNonResumable=keep\n", &p.cfg, msg,
				    sizeof(msg)));
	/* the debug lane on in every fourth case (budget ones) */
	if (_i % 4)
		ck_assert(!sim_config_parse("c", "DebugLaneTRES=0\n", &p.cfg,
					    msg, sizeof(msg)));
	ck_assert(!sim_tree_parse("t", "a 3\nb 1\nc 1\n", &t, msg, sizeof(msg)));
	ck_assert_msg(!sim_workload_parse("j", text, &o, &w, msg, sizeof(msg)),
		      "%s", msg);
	ck_assert_msg(!sim_workload_bind(&w, &t, &o, 4, 12, msg, sizeof(msg)),
		      "%s", msg);
	ck_assert_msg(!sim_run(&w, &t, &p, &r, msg, sizeof(msg)), "%s", msg);
	ran = calloc(w.njobs, sizeof(*ran));
	check_runs(&r, &w, ran, _i);
	for (i = 0; i < w.njobs; i++) {
		ck_assert_msg(r.jobs[i].how != SIM_END_UNFINISHED,
			      "case %d: job %zu unfinished", _i, i);
		/* resubmitted: it ends done, having run its whole duration
		 * after its last cancel */
		if (p.resubmit_delay != SIM_NO_RESUBMIT)
			ck_assert_msg(r.jobs[i].how == SIM_END_DONE ||
				      /* the lane: debug jobs of two budgets
				       * may take each other's GPUs past their
				       * min runtimes (the reclaim rule is not
				       * asked), and a resubmitted one is new
				       * (no interval hold): given up after
				       * SIM_RESUBMIT_MAX */
				      (!(_i % 4) && r.jobs[i].how ==
				       SIM_END_CANCELLED &&
				       r.jobs[i].resubmissions ==
				       SIM_RESUBMIT_MAX),
				      "case %d: job %zu not done", _i, i);
		if (r.jobs[i].how == SIM_END_DONE)
			ck_assert_msg(ran[i] == w.jobs[i].duration,
				      "case %d: job %zu ran %lld of %lld", _i,
				      i, (long long)ran[i],
				      (long long)w.jobs[i].duration);
	}
	k = 0;
	for (i = 0; i < r.nsegs; i++)
		k += r.segs[i].preempted;
	ck_assert_uint_eq(k, r.preemptions);
	/* every cancelled run was resubmitted, unless none (or the job was
	 * given up: SIM_RESUBMIT_MAX) */
	k = 0;
	for (i = 0; i < r.nsegs; i++)
		k += r.segs[i].fate == SIM_FATE_CANCELLED;
	for (i = 0; i < w.njobs && p.resubmit_delay != SIM_NO_RESUBMIT; i++)
		k -= r.jobs[i].how == SIM_END_CANCELLED;
	ck_assert_uint_eq(r.resubmissions,
			  p.resubmit_delay == SIM_NO_RESUBMIT ? 0 : k);
	if (getenv("SIM_TEST_VERBOSE"))
		fprintf(stderr, "case %d: %zu cancelled, %llu resubmitted\n",
			_i, k, (unsigned long long)r.resubmissions);
	free(ran);
	sim_result_free(&r);
	sim_workload_free(&w);
	sim_tree_free(&t);
}
END_TEST

void sim_engine_option_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_no_requeue, 0, sizeof(no_requeue_cases) /
			    sizeof(no_requeue_cases[0]));
	tcase_add_loop_test(tc, test_resubmit, 0, sizeof(resubmit_cases) /
			    sizeof(resubmit_cases[0]));
	tcase_add_loop_test(tc, test_resubmit_parse, 0,
			    sizeof(resubmit_parse_cases) /
			    sizeof(resubmit_parse_cases[0]));
	tcase_add_test(tc, test_until);
	tcase_add_loop_test(tc, test_invariants, 0, 40);
}
