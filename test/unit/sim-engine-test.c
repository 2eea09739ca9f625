/*
 * sim-engine-test.c - placement and the event loop on small scenarios whose
 * every start, stop and preemption is worked out by hand in the comments.
 * --no-requeue, --resubmit-delay, --until and the invariants on random
 * workloads are tested in sim-engine-options-test.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sim.h"
#include "sim-engine-test.h"

/* ----------------------------------------------------------- placement */

START_TEST(test_place_first_fit)
{
	struct sim_cluster c;
	uint32_t nodes[4];
	uint64_t mask;

	ck_assert_int_eq(sim_cluster_init(&c, 3, 4), 0);
	/* 3 GPUs: node 0, GPUs 0-2 */
	ck_assert_uint_eq(sim_place(&c, 3, nodes, &mask), 1);
	ck_assert_uint_eq(nodes[0], 0);
	ck_assert_uint_eq(mask, 0x7);
	/* 2 GPUs: node 0 has 1 left, so node 1 */
	ck_assert_uint_eq(sim_place(&c, 2, nodes, &mask), 1);
	ck_assert_uint_eq(nodes[0], 1);
	ck_assert_uint_eq(mask, 0x3);
	/* 1 GPU: first fit is node 0's last GPU */
	ck_assert_uint_eq(sim_place(&c, 1, nodes, &mask), 1);
	ck_assert_uint_eq(nodes[0], 0);
	ck_assert_uint_eq(mask, 0x8);
	/* 8 GPUs = 2 whole nodes: only node 2 is whole */
	ck_assert(!sim_fits(&c, 8));
	ck_assert_uint_eq(sim_place(&c, 8, nodes, &mask), 0);
	ck_assert_uint_eq(c.total_free, 12 - 6);
	/* free node 1, then 8 GPUs take nodes 1 and 2 */
	nodes[0] = 1;
	sim_release(&c, nodes, 1, 0x3);
	ck_assert_uint_eq(sim_place(&c, 8, nodes, &mask), 2);
	ck_assert_uint_eq(nodes[0], 1);
	ck_assert_uint_eq(nodes[1], 2);
	ck_assert_uint_eq(mask, 0xF);
	ck_assert_uint_eq(c.total_free, 0);
	/* 5 GPUs on 4-GPU nodes is multi-node: 2 whole nodes */
	sim_release(&c, nodes, 2, 0xF);
	ck_assert_uint_eq(sim_place(&c, 5, nodes, &mask), 2);
	sim_cluster_free(&c);
}
END_TEST

/* ----------------------------------------------------------- scenarios */

static const struct scen scens[] = {
	/* Hysteresis (sb/view.h): two equal budgets, one 4-GPU node, min
	 * runtime 100, no grace, no requeue delay, CalcPeriod 1.  With
	 * PreemptIntervalFactor=1 they take turns every 200 s (the reclaim
	 * rule: each run ends when its budget is delta = 400 GPU-s above the
	 * other); job 1 is preempted every 400 s (100, 500, 900, ...). */
	{ .what = "hysteresis: factor 1, turns every two min runtimes",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\nPreemptIntervalFactor=1\n",
	  .jobs = "0,1000,4,a,,100,yes,512\n5,1000,4,b,,100,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100P 2:100-300P 1:300-500P 2:500-700P 1:700-900P 2:900-1100P "
	  "1:1100-1300P 2:1300-1500P 1:1500-1700P 2:1700-1900 1:1900-2000", .preemptions = 9, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Factor 5: a job preempted at P is held until P + 500, so the run
	 * after each hold lasts 300 s: job 1 preempted at 100, 600, 1100,
	 * 1700, job 2 at 300, 900, 1400 (gaps >= 500); 7 preemptions, not 9. */
	{ .what = "hysteresis: factor 5 holds a preempted job 5 min runtimes",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\nPreemptIntervalFactor=5\n",
	  .jobs = "0,1000,4,a,,100,yes,512\n5,1000,4,b,,100,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100P 2:100-300P 1:300-600P 2:600-900P 1:900-1100P 2:1100-1400P "
	  "1:1400-1700P 2:1700-1900 1:1900-2000", .preemptions = 7, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "no contention: every job starts at its submit",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,10,1,a,,5,yes,512\n3,10,2,a,,5,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10 2:3-13",                               .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Idle from 10 s; the tick at 60 is pending when the next job comes
	 * at 70, inside the same CalcPeriod (once an endless loop). */
	{ .what = "idle gap shorter than a CalcPeriod",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,10,1,a,,5,yes,512\n70,10,1,a,,5,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10 2:70-80",                              .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "idle gap of many CalcPeriods",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,10,1,a,,5,yes,512\n1000,10,1,a,,5,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10 2:1000-1010",                          .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "full node: the second job waits for the first to end",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,5,yes,512\n10,50,2,a,,5,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 2:100-150",                           .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* An allocated job takes an unallocated one's GPUs at once, and
	 * starts at once: an unallocated victim gets no grace time
	 * (sb_preempt_grace()).  The victim resumes (requeue delay 0) when
	 * the preemptor ends, with its 1000 - 10 = 990 s left. */
	{ .what = "allocated preempts unallocated at once, no grace time",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,yes,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10P 2:10-110 1:110-1100",                 .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "same with restart: the victim's work is lost, it runs 1000 s again",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,yes,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = true,
	  .segs = "1:0-10L 2:10-110 1:110-1110",                 .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "requeue delay: eligible 121 s after it stopped",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,yes,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 121, .restart = false,
	  .segs = "1:0-10P 2:10-110 1:131-1121",                 .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* PreemptNonResumable=requeue (the default): a batch job that is not
	 * resumable is requeued and starts over: its 10 s are lost, it runs
	 * its whole 1000 s after the preemptor. */
	{ .what = "not resumable: requeued, restarts from its beginning (default)",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10L 2:10-110 1:110-1110",                 .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "not resumable: cancelled (PreemptNonResumable=cancel)",
	  .tree = "a 1\nb 1\n", .conf = "PreemptNonResumable=cancel\n",
	  .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10C 2:10-110",                            .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = "none" },
	/* An allocated resumable victim gets the grace time (30 s) to write
	 * its checkpoint; an allocated one that is not resumable does not
	 * (it would lose its run anyway): the preemptor starts at once.  The
	 * cost margin (sb_preempt_cost) counts the run it loses, capped at
	 * factor 2 x its 300 s min runtime, and no grace time: the
	 * preemption waits until a's usage covers b's commitment plus that
	 * cost, at the recalculation (CalcPeriod 60) of 660 (720 while the
	 * cost counted a grace time this victim does not get). */
	{ .what = "allocated, not resumable: no grace time, restarts",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,300,no,512\n10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-660L 2:660-760 1:760-1760",               .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "not resumable, PreemptNonResumable=keep: never preempted",
	  .tree = "a 1\nb 1\n", .conf = "PreemptNonResumable=keep\n",
	  .jobs = "0,1000,4,a,,0,no,512\n10,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-1000 2:1000-1100",                        .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "an unallocated job never preempts",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,100,4,a,,60,yes,512\n10,100,2,b,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 2:100-200",                           .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* a (RawShares 1) used 4 GPUs since 0; b (idle, better standing)
	 * submits at 10 but a's job is protected for its 300 s min runtime.
	 * Protection ends at 300, the pass then preempts (grace 30). */
	{ .what = "protected for its min runtime, then preempted by a better budget",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,300,yes,512\n10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-330P 2:330-430 1:430-1100",               .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* The reclaim rule (sb_preempt_decide, at the siblings a and b):
	 * b's job commits delta = 4 GPUs x 1000 s = 4000 GPU-s; a's usage at
	 * a recalculation T (CalcPeriod 60) is 4 x T once its protection is
	 * over.  With the preemption's cost C (sb_preempt_cost(): 4 GPUs x
	 * (grace 30 + requeue delay 0), resumable: C = 120),
	 * S_b / (U_b + delta + C) >= S_a / U_a holds, with equal shares and
	 * U_b = 0, only when 4120 <= 4 x T: at the first recalculation from
	 * 1030 on, T = 1080 (1020 gives 4080; without the cost 1020 would
	 * do), not at 300 as with a small delta (the case above).  Grace
	 * 30; job 1 resumes its last 3000 - 1110 = 1890 s. */
	{ .what = "the reclaim rule holds a better budget back until it is fair",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,3000,4,a,,300,yes,512\n10,1000,4,b,,1000,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-1110P 2:1110-2110 1:2110-4000",           .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* The same budget: its own job's priority is not below the
	 * preemptor's (same standing, same tier), so no preemption. */
	{ .what = "no preemption inside one budget at equal in-team priority",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,1000,4,a,,300,yes,512\n10,100,4,a,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-1000 2:1000-1100",                        .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Two unallocated 4-GPU jobs fill 2 nodes; a 4-GPU allocated job
	 * needs one node: exactly one victim (never more than needed).  Both
	 * started at 0 and lose as much: the tie goes to input order. */
	{ .what = "never more victims than needed",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,4,a,,0,yes,512\n0,1000,4,a,,0,yes,512\n"
	  "10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10P 3:10-110 2:0-1000 1:110-1100",        .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* At 10 the unallocated job (2 GPUs) alone would not suffice and the
	 * allocated one is protected until 900: nobody is preempted (job 2
	 * runs to its end).  At 900 job 1's protection ends and b's better
	 * standing takes its GPUs (grace 30); job 1 resumes its last 70 s. */
	{ .what = "no preemption when even all candidates would not make it fit",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,2,a,,900,yes,512\n0,500,2,a,,0,yes,512\n"
	  "10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "2:0-500 1:0-930P 3:930-1030 1:1030-1100",     .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* A failed preemption is remembered and tried again only on the
	 * nodes that changed since, within one recalculation (CalcPeriod
	 * 3600: one epoch).  Allocated jobs start first: 2 and 3 on node 0,
	 * 4 on node 1, then unallocated 1 on node 1.  At 10 job 5 (4 GPUs,
	 * budget b) finds no node with 4 free or takeable GPUs (node 1: job
	 * 1's 2; the allocated ones are protected until 1000).  At 30 job 2
	 * ends on node 0: 2 free beside protected job 3, still not enough.
	 * At 50 job 4 ends on node 1: 2 free + job 1's 2, so job 1 is
	 * preempted (unallocated: no grace) and resumes at once on node 0's
	 * 2 free GPUs with its 1950 s left. */
	{ .what = "a failed preemption succeeds when its node changes, one epoch",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=3600\n",
	  .jobs = "0,2000,2,a,,0,yes,512\n0,30,2,a,,1000,yes,512\n"
	  "0,2000,2,a,,1000,yes,512\n0,50,2,a,,1000,yes,512\n"
	  "10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "2:0-30 1:0-50P 4:0-50 5:50-150 3:0-2000 1:50-2000", .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* The same for a multi-node job (4 GPUs = 2 whole nodes of 2): at 10
	 * only node 2 (unallocated job 1) could be emptied; at 20 job 3 ends
	 * on node 0 beside protected job 2 (node 0 still cannot be emptied);
	 * at 40 job 4 ends and node 1 is free: nodes 1 and 2.  Job 1 waits
	 * for a whole node again (node 0 has 1 free GPU) until 140. */
	{ .what = "a failed multi-node preemption succeeds when a node empties",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=3600\n",
	  .jobs = "0,2000,2,a,,0,yes,512\n0,2000,1,a,,1000,yes,512\n"
	  "0,20,1,a,,1000,yes,512\n0,40,2,a,,1000,yes,512\n"
	  "10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 3, .gpn = 2, .requeue_delay = 0,   .restart = false,
	  .segs = "3:0-20 1:0-40P 4:0-40 5:40-140 2:0-2000 1:140-2100", .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* A failed try remembered across recalculations (CalcPeriod 60):
	 * b's 4-GPU job 3 waits from 100, outranked by c's running job 2
	 * (a refusal that reads no budget view), recalculation after
	 * recalculation, until b's standing passes c's (b's first job ends
	 * at 3000 and its usage falls behind c's): the order above b
	 * changed, the try is made again and preempts job 2 at 3300 (grace
	 * 30); then the two time-slice at their protection (60 s x
	 * PreemptIntervalFactor 2) with the requeue delay.  The segments
	 * are main f130a4a's (before failed tries outlived a
	 * recalculation): a memo kept too long would start job 3 late. */
	{ .what = "a failed try outlives recalculations only while the order holds",
	  .tree = "b 1\nc 1\n", .conf = "CalcPeriod=60\n",
	  .jobs = "0,3000,2,b,,60,yes,512\n0,100000,2,c,,60,yes,512\n"
	  "100,1000,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 121, .restart = false,
	  .segs = "1:0-3000 2:0-3330P 3:3330-3750P 2:3750-4590P 3:4590-5010P "
	  "2:5010-5850P 3:5850-6010 2:6010-101000", .preemptions = 5, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Victim order: unallocated before allocated, and among equals the
	 * one that has run less (started later); no grace time for it. */
	{ .what = "victims: unallocated first, then least work lost",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,2,a,,10,yes,512\n0,1000,2,a,,0,yes,512\n"
	  "20,1000,2,a,,0,yes,512\n100,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 3, .gpn = 2, .requeue_delay = 0,   .restart = false,
	  .segs = "3:20-100P 4:100-200 1:0-1000 2:0-1000 3:200-1120", .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Resumable before not resumable: job 2 (unallocated, not
	 * resumable) started later and lost less, but job 1 keeps its work
	 * when requeued. */
	{ .what = "victims: resumable before not resumable",
	  .tree = "a 1\nb 1\n", .conf = "",
	  .jobs = "0,1000,2,a,,0,yes,512\n50,1000,2,a,,0,no,512\n"
	  "100,100,2,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 2, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100P 3:100-200 2:50-1050 1:200-1100",     .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Baseline: b's cap is 25% of 16 = 4 GPUs, so b's 8-GPU jobs run
	 * preemptible; a's jobs are within a's cap of 12 and preempt them
	 * at once (no grace, no protection in the old system). */
	{ .what = "baseline: within the cap preempts over the cap",
	  .tree = "a 3\nb 1\n", .conf = "",
	  .jobs = "0,1000,8,b,,600,yes,512\n0,1000,8,b,,600,yes,512\n"
	  "10,500,8,a,,300,yes,512\n20,100,4,a,,60,yes,512\n",
	  .policy = SIM_POLICY_BASELINE, .nodes = 2, .gpn = 8, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10P 2:0-20P 4:20-120 3:10-510 1:120-1110 2:510-1490", .preemptions = 2, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* The same with b's jobs not resumable: the same Slurm requeues
	 * them, and they restart (their first 10 and 20 s are lost). */
	{ .what = "baseline: a non-resumable victim restarts (PreemptNonResumable=requeue)",
	  .tree = "a 3\nb 1\n", .conf = "",
	  .jobs = "0,1000,8,b,,600,no,512\n0,1000,8,b,,600,no,512\n"
	  "10,500,8,a,,300,yes,512\n20,100,4,a,,60,yes,512\n",
	  .policy = SIM_POLICY_BASELINE, .nodes = 2, .gpn = 8, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10L 2:0-20L 4:20-120 3:10-510 1:120-1120 2:510-1510", .preemptions = 2, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	{ .what = "baseline: ... and is cancelled with PreemptNonResumable=cancel",
	  .tree = "a 3\nb 1\n", .conf = "PreemptNonResumable=cancel\n",
	  .jobs = "0,1000,8,b,,600,no,512\n0,1000,8,b,,600,no,512\n"
	  "10,500,8,a,,300,yes,512\n20,100,4,a,,60,yes,512\n",
	  .policy = SIM_POLICY_BASELINE, .nodes = 2, .gpn = 8, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10C 2:0-20C 4:20-120 3:10-510",           .preemptions = 2, .at_once = false,
	  .backfill = NULL,        .resubmit = "none" },
	{ .what = "baseline: FIFO inside a class, HIGH before LOW",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n1,100,4,a,,0,yes,LOW\n2,100,4,a,,0,yes,HIGH\n",
	  .policy = SIM_POLICY_BASELINE, .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 3:100-200 2:200-300",                 .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Two 1-GPU allocated jobs against two unallocated 4-GPU jobs on 2
	 * nodes, no grace time.  Leftovers at once: job 3 takes job 1's node
	 * and job 4 fits in the 3 GPUs left there: one victim. */
	{ .what = "leftovers at once: the second preemptor uses the first's leftovers",
	  .tree = "a 1\nb 1\n", .conf = "PreemptGraceTime=0\n",
	  .jobs = "0,1000,4,a,,0,yes,512\n0,1000,4,a,,0,yes,512\n"
	  "10,100,1,b,,60,yes,512\n10,100,1,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10P 3:10-110 4:10-110 2:0-1000 1:110-1100", .preemptions = 1, .at_once = true,
	  .backfill = NULL,        .resubmit = NULL },
	/* Leftovers next pass (Slurm: the victim completes after the cycle
	 * that chose it): job 4 does not see them and takes job 2.  (With a
	 * grace time the victims hold them until they stop, in both modes.) */
	{ .what = "leftovers next pass: each preemptor takes its own victim",
	  .tree = "a 1\nb 1\n", .conf = "PreemptGraceTime=0\n",
	  .jobs = "0,1000,4,a,,0,yes,512\n0,1000,4,a,,0,yes,512\n"
	  "10,100,1,b,,60,yes,512\n10,100,1,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-10P 2:0-10P 3:10-110 4:10-110 1:110-1100 2:110-1100", .preemptions = 2, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/*
	 * Backfill reservations (backfill.c).  Unallocated jobs (min runtime
	 * 0) of one team: no preemption, pass order = submit order.
	 *
	 * 2 nodes x 4 GPUs.  Job 1 (4 GPUs, 0-100) fills node 0, job 2
	 * (2 GPUs, 0-200) half of node 1.  Job 3 (8 GPUs: both nodes whole)
	 * comes at 10 and cannot start: node 0 is whole at 100, node 1 at
	 * 200, so it reserves both nodes from 200.  Job 4 (2 GPUs, 300 s)
	 * at 20 fits on node 1 but would end at 320 > 200: it waits.  Job 5
	 * (2 GPUs, 50 s) at 30 ends at 80 <= 200: it starts (backfilled).
	 * Job 3 starts at 200 as reserved, ends 250; job 4 then, 250-550.
	 */
	{ .what = "reserve: the top job's reserved start is not delayed",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n0,200,2,a,,0,yes,512\n"
	  "10,50,8,a,,0,yes,512\n20,300,2,a,,0,yes,512\n"
	  "30,50,2,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "5:30-80 1:0-100 2:0-200 3:200-250 4:250-550", .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* The same greedy: job 4 starts at 20 on node 1 (to 320), job 5
	 * finds no room until job 1 ends (100-150 on node 0), and job 3
	 * waits for node 1 to be whole: 320-370, 120 s later. */
	{ .what = "greedy: a lower job delays the big one",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n0,200,2,a,,0,yes,512\n"
	  "10,50,8,a,,0,yes,512\n20,300,2,a,,0,yes,512\n"
	  "30,50,2,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 5:100-150 2:0-200 4:20-320 3:320-370", .preemptions = 0, .at_once = false,
	  .backfill = "greedy",    .resubmit = NULL },
	/* None: the pass stops at job 3, so job 5 does not backfill either:
	 * job 4 and 5 start after job 3 (250): 4 on node 0 (250-550), 5
	 * beside it (250-300). */
	{ .what = "none: nothing passes the blocked job",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n0,200,2,a,,0,yes,512\n"
	  "10,50,8,a,,0,yes,512\n20,300,2,a,,0,yes,512\n"
	  "30,50,2,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 2:0-200 3:200-250 5:250-300 4:250-550", .preemptions = 0, .at_once = false,
	  .backfill = "none",      .resubmit = NULL },
	/* One node of 4 GPUs: job 1 (2 GPUs, 0-100) on GPUs 0-1, job 2
	 * (1 GPU, 0-300) on GPU 2.  Job 3 (3 GPUs) at 10: GPU 3 is free now,
	 * GPUs 0-1 at 100, GPU 2 at 300: it reserves GPUs 3, 0, 1 from 100.
	 * Job 4 (1 GPU, 500 s) at 20 fits on GPU 3 but would end at 520 >
	 * 100: it waits.  Job 3 runs 100-200, job 4 then on GPU 0, 200-700. */
	{ .what = "reserve: the reserved GPUs of one node, from the first free",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,2,a,,0,yes,512\n0,300,1,a,,0,yes,512\n"
	  "10,100,3,a,,0,yes,512\n20,500,1,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 3:100-200 2:0-300 4:200-700",         .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* 2 nodes x 4 GPUs: job 1 (4 GPUs, 0-100) on node 0, job 2 (3 GPUs,
	 * 0-200) on node 1.  Job 3 (4 GPUs) at 10 reserves node 0 from 100
	 * (node 1 is whole only at 200).  Job 4 (1 GPU, 1000 s) at 20 runs
	 * past 100 but takes GPU 3 of node 1, which the reservation does not
	 * need: it starts at 20.  Job 3 runs 100-150. */
	{ .what = "reserve: a long job on GPUs the reservation does not need",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n0,200,3,a,,0,yes,512\n"
	  "10,50,4,a,,0,yes,512\n20,1000,1,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 3:100-150 2:0-200 4:20-1020",         .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Baseline policy, one class (NORMAL, FIFO), the first case's
	 * jobs: the same reserved start (no preemption: every job within
	 * its team's cap of 8 GPUs? job 3 alone is 8; all run
	 * non-preemptible and nobody is over the cap to preempt). */
	{ .what = "reserve under the baseline policy",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n0,200,2,a,,0,yes,512\n"
	  "10,50,8,a,,0,yes,512\n20,300,2,a,,0,yes,512\n"
	  "30,50,2,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BASELINE, .nodes = 2, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "5:30-80 1:0-100 2:0-200 3:200-250 4:250-550", .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* Two reservations: 1 node x 4 GPUs.  Job 1 (4 GPUs, 0-100).  Job 2
	 * (2 GPUs) at 10 reserves GPUs 0-1 from 100; job 3 (2 GPUs, 50 s) at
	 * 20, with reserve:2, GPUs 2-3 from 100 (the first plan's GPUs are
	 * taken for good); job 4 (1 GPU, 30 s) at 30 fits nowhere now.  At
	 * 100 jobs 2 and 3 start (2 on 0-1 to 200, 3 on 2-3 to 150); job 4
	 * then at 150 on GPU 2. */
	{ .what = "reserve:2: two reservations side by side",
	  .tree = "a 1\n",      .conf = "",
	  .jobs = "0,100,4,a,,0,yes,512\n10,100,2,a,,0,yes,512\n"
	  "20,50,2,a,,0,yes,512\n30,30,1,a,,0,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-100 3:100-150 4:150-180 2:100-200",       .preemptions = 0, .at_once = false,
	  .backfill = "reserve:2", .resubmit = NULL },
	/* The debug lane: one 4-GPU node, no grace, CalcPeriod 1.  Team b
	 * ran 4 GPUs for 1000 s (over its share); team a's job 2 (4 GPUs,
	 * min runtime 60) starts at 1000.  b's debug job 3 (1 GPU, min
	 * runtime 60) at 1200: in the lane it takes job 2, past its min
	 * runtime, at once, though the reclaim rule would refuse (b is over
	 * its share); once its own min runtime is over (1260) it carries
	 * b's priority again and a's job takes it back.  Without the lane it
	 * waits until the reclaim rule turns (2015). */
	{ .what = "lane: an over-share team's debug job starts at once",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\n",
	  .jobs = "0,1000,4,b,,300,yes,512\n1000,5000,4,a,,60,yes,512\n"
	  "1200,100,1,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET, .nodes = 1, .gpn = 4, .requeue_delay = 0,
	  .restart = false,
	  .segs = "1:0-1000 2:1000-1200P 3:1200-1260P 2:1260-2090P "
		  "3:2090-2130 2:2130-6100",
	  .preemptions = 3, .at_once = false, .backfill = NULL,
	  .resubmit = NULL, .lane = true },
	{ .what = "lane off (DebugLaneTRES=0): the debug job waits",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\n",
	  .jobs = "0,1000,4,b,,300,yes,512\n1000,5000,4,a,,60,yes,512\n"
	  "1200,100,1,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET, .nodes = 1, .gpn = 4, .requeue_delay = 0,
	  .restart = false,
	  .segs = "1:0-1000 2:1000-2015P 3:2015-2115 2:2115-6100",
	  .preemptions = 1, .at_once = false, .backfill = NULL,
	  .resubmit = NULL, .lane = false },
	/* The per-budget bound (DebugLaneBudgetTRES=8, the default): two
	 * 8-GPU nodes, team a's jobs 2 and 3 (8 GPUs each) running; over-
	 * share team b's debug jobs 4 and 5 (8 GPUs each) at 1200.  Job 4
	 * enters the lane and takes job 2 at once; job 5 does not enter while
	 * job 4 holds the lane (its min runtime, to 1260): it enters at the
	 * recalculation at 1260 and takes job 3 then.  With a bound of 16
	 * both start at 1200. */
	{ .what = "lane bound 8: the second 8-GPU debug job waits for the first",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\n",
	  .jobs = "0,1000,16,b,,300,yes,512\n1000,5000,8,a,,60,yes,512\n"
	  "1000,5000,8,a,,60,yes,512\n1200,100,8,b,,60,yes,512\n"
	  "1200,100,8,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET, .nodes = 2, .gpn = 8, .requeue_delay = 0,
	  .restart = false,
	  .segs = "1:0-1000 2:1000-1200P 3:1000-1260P 4:1200-1260P "
		  "5:1260-1320P 2:1260-2150P 3:1320-2150P 4:2150-2190 "
		  "5:2150-2190 2:2190-6100 3:2190-6100",
	  .preemptions = 6, .at_once = false, .backfill = NULL,
	  .resubmit = NULL, .lane = true },
	{ .what = "lane bound 16: both 8-GPU debug jobs start at once",
	  .tree = "a 1\nb 1\n", .conf = "CalcPeriod=1\nPreemptGraceTime=0\n"
	  "DebugLaneBudgetTRES=16\n",
	  .jobs = "0,1000,16,b,,300,yes,512\n1000,5000,8,a,,60,yes,512\n"
	  "1000,5000,8,a,,60,yes,512\n1200,100,8,b,,60,yes,512\n"
	  "1200,100,8,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET, .nodes = 2, .gpn = 8, .requeue_delay = 0,
	  .restart = false,
	  .segs = "1:0-1000 2:1000-1200P 3:1000-1200P 4:1200-1260P "
		  "5:1200-1260P 2:1260-2150P 3:1260-2150P 4:2150-2190 "
		  "5:2150-2190 2:2190-6100 3:2190-6100",
	  .preemptions = 6, .at_once = false, .backfill = NULL,
	  .resubmit = NULL, .lane = true },
	/* "allocated, not resumable" above with PreemptLossWait=20:00: b's job, eligible at 10,
	 * waits while 4 x its wait < 4 x a's run (always: a started first),
	 * until 1210; a's job ends at 1000 meanwhile, unpreempted, and b's
	 * starts then: no work lost. */
	{ .what = "PreemptLossWait: the victim ends during the wait",
	  .tree = "a 1\nb 1\n", .conf = "PreemptLossWait=20:00\n",
	  .jobs = "0,1000,4,a,,300,no,512\n10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-1000 2:1000-1100",                        .preemptions = 0, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
	/* ... and a victim that runs on is preempted once the wait is over,
	 * at the first recalculation (CalcPeriod 60) at or after 1210. */
	{ .what = "PreemptLossWait: preempted at the end of the wait",
	  .tree = "a 1\nb 1\n", .conf = "PreemptLossWait=20:00\n",
	  .jobs = "0,3000,4,a,,300,no,512\n10,100,4,b,,60,yes,512\n",
	  .policy = SIM_POLICY_BUDGET,   .nodes = 1, .gpn = 4, .requeue_delay = 0,   .restart = false,
	  .segs = "1:0-1260L 2:1260-1360 1:1360-4360",           .preemptions = 1, .at_once = false,
	  .backfill = NULL,        .resubmit = NULL },
};

/* Segments as the expected string does: sorted by end, start, job. */
static int seg_cmp(const void *a, const void *b)
{
	const struct sim_seg *x = a, *y = b;

	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

double no_requeue_frac;

int run(const struct scen *c, struct sim_result *r, char *got, size_t len)
{
	struct sim_read_opts o;
	struct sim_workload w;
	struct sim_tree t;
	struct sim_params p;
	char text[2048], msg[SIM_MSG];
	size_t i, n = 0;
	struct sim_seg *sorted;

	snprintf(text, sizeof(text), "submit_time_s,duration_s,gpus,team,user,"
		 "min_runtime_s,resumable,priority\n%s", c->jobs);
	sim_read_opts_init(&o);
	o.no_requeue = no_requeue_frac;
	sim_workload_init(&w);
	sim_params_init(&p);
	p.policy = c->policy;
	p.nodes = c->nodes;
	p.gpus_per_node = c->gpn;
	p.requeue_delay = c->requeue_delay;
	p.restart = c->restart;
	p.hold_leftovers = !c->at_once;
	if (c->backfill && !strcmp(c->backfill, "greedy"))
		p.backfill = SIM_BACKFILL_GREEDY;
	else if (c->backfill && !strcmp(c->backfill, "none"))
		p.backfill = SIM_BACKFILL_NONE;
	else if (c->backfill)
		p.reserve = (uint32_t)atoi(c->backfill + 8);	/* reserve:N */
	if (c->resubmit)
		ck_assert_msg(!sim_resubmit_parse(c->resubmit,
						  &p.resubmit_delay, msg,
						  sizeof(msg)), "%s", msg);
	if (!c->lane)
		ck_assert(!sim_config_parse("conf", "DebugLaneTRES=0\n", &p.cfg,
					    msg, sizeof(msg)));
	ck_assert_msg(!sim_config_parse("conf", c->conf, &p.cfg, msg,
					sizeof(msg)), "%s", msg);
	ck_assert_msg(!sim_tree_parse("tree", c->tree, &t, msg, sizeof(msg)),
		      "%s", msg);
	ck_assert_msg(!sim_workload_parse("jobs", text, &o, &w, msg,
					  sizeof(msg)), "%s", msg);
	ck_assert_msg(!sim_workload_bind(&w, &t, &o, c->gpn, 0, msg,
					 sizeof(msg)), "%s", msg);
	ck_assert_msg(!sim_run(&w, &t, &p, r, msg, sizeof(msg)), "%s", msg);
	sorted = malloc((r->nsegs + 1) * sizeof(*sorted));
	memcpy(sorted, r->segs, r->nsegs * sizeof(*sorted));
	qsort(sorted, r->nsegs, sizeof(*sorted), seg_cmp);
	got[0] = '\0';
	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *s = &sorted[i];

		/* input order = the job's line - 1 (header is line 1) */
		n += (size_t)snprintf(got + n, len - n, "%s%u:%lld-%lld%s",
				      i ? " " : "", w.jobs[s->job].line - 1,
				      (long long)s->start, (long long)s->end,
				      s->fate == SIM_FATE_CANCELLED ? "C" :
				      s->lost ? "L" : s->preempted ? "P" : "");
	}
	free(sorted);
	sim_workload_free(&w);
	sim_tree_free(&t);
	return 0;
}

START_TEST(test_scenarios)
{
	const struct scen *c = &scens[_i];
	struct sim_result r;
	char got[2048];

	run(c, &r, got, sizeof(got));
	ck_assert_msg(!strcmp(got, c->segs), "%s:\n  want %s\n  got  %s",
		      c->what, c->segs, got);
	ck_assert_msg(r.preemptions == c->preemptions,
		      "%s: want %u preemptions, got %llu", c->what,
		      c->preemptions, (unsigned long long)r.preemptions);
	sim_result_free(&r);
}
END_TEST

/* Same input, same result, bit for bit (the JSON is built from these). */
START_TEST(test_deterministic)
{
	struct sim_result a, b;
	char ga[2048], gb[2048];
	size_t i;

	run(&scens[17], &a, ga, sizeof(ga));
	run(&scens[17], &b, gb, sizeof(gb));	/* victim order case */
	ck_assert_str_eq(ga, gb);
	ck_assert_uint_eq(a.nsegs, b.nsegs);
	for (i = 0; i < a.nsegs; i++) {	/* field by field: padding */
		const struct sim_seg *x = &a.segs[i], *y = &b.segs[i];

		ck_assert(x->job == y->job && x->start == y->start &&
			  x->end == y->end && x->gpus == y->gpus &&
			  x->nnodes == y->nnodes && x->mask == y->mask &&
			  x->preemptible == y->preemptible &&
			  x->preempted == y->preempted && x->lost == y->lost);
		ck_assert(!memcmp(a.nodes + x->node_off, b.nodes + y->node_off,
				  x->nnodes * sizeof(*a.nodes)));
	}
	ck_assert_uint_eq(a.events, b.events);
	sim_result_free(&a);
	sim_result_free(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sim-engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_place_first_fit);
	tcase_add_loop_test(tc, test_scenarios, 0,
			    sizeof(scens) / sizeof(scens[0]));
	tcase_add_test(tc, test_deterministic);
	sim_engine_option_tests(tc);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
