/*
 * job-test.c - one job's facts in, answers out (sb/job.h), and the
 * contract of a job known by values (sb_contract_of_fields()).
 */
#include <stdio.h>
#include <string.h>

#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/job.h"
#include "sb/view.h"

#include "check_main.h"

/* sb_contract_of_fields() answers as sb_contract_of_job() does for the tag
 * sb_contract_format() writes for the same values. */
START_TEST(fields_as_tag)
{
	static const int64_t mrs[] = { -5, -1, 0, 1, 15, 3600, 8 * 3600,
				       9999999, SB_DURATION_MAX,
				       SB_DURATION_MAX + 1, INT64_MAX };
	size_t i;
	int r, q;

	for (i = 0; i < sizeof(mrs) / sizeof(mrs[0]); i++)
		for (r = 0; r < 2; r++)
			for (q = 0; q < 2; q++) {
				struct sb_contract c = { mrs[i], r, mrs[i] > 0,
							 true };
				struct sb_contract a, b;
				char tag[128];
				int ra, rb;

				memset(&a, 0x5a, sizeof(a));
				memset(&b, 0xa5, sizeof(b));
				sb_contract_format(&c, tag, sizeof(tag));
				ra = sb_contract_of_job(mrs[i] < 0 ? NULL : tag,
							q, &a);
				rb = sb_contract_of_fields(mrs[i], r, q, &b);
				ck_assert_msg(ra == rb, "%lld r%d q%d: %d vs %d",
					      (long long)mrs[i], r, q, ra, rb);
				ck_assert_int_eq(a.min_runtime, b.min_runtime);
				ck_assert_int_eq(a.resumable, b.resumable);
				ck_assert_int_eq(a.allocated, b.allocated);
				ck_assert_int_eq(a.requeueable, b.requeueable);
			}
	ck_assert_int_eq(sb_contract_of_fields(1, true, true, NULL), SB_EINVAL);
}
END_TEST

/* in grace: a preemption began and the job still holds its resources */
START_TEST(in_grace_table)
{
	static const struct {
		enum sb_job_phase phase;
		int64_t preempt_time;
		bool in_grace;
	} rows[] = {
		{ .phase = SB_JOB_RUNNING,   .preempt_time = 100, .in_grace = true },
		{ .phase = SB_JOB_SUSPENDED, .preempt_time = 100, .in_grace = true },
		{ .phase = SB_JOB_RUNNING,   .preempt_time = 0,   .in_grace = false },
		{ .phase = SB_JOB_PENDING,   .preempt_time = 100, .in_grace = false },	/* requeued */
		{ .phase = SB_JOB_ENDED,     .preempt_time = 100, .in_grace = false },
		{ .phase = SB_JOB_RUNNING,   .preempt_time = -1,  .in_grace = false },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct sb_job_facts f = { .phase = rows[i].phase,
						.preempt_time = rows[i].preempt_time };

		ck_assert_msg(sb_job_in_grace(&f) == rows[i].in_grace, "row %zu", i);
	}
	ck_assert(!sb_job_in_grace(NULL));
}
END_TEST

/* the party carries every fact, the contract as run, the last preemption */
START_TEST(party_from_facts)
{
	const struct sb_job_facts f = {
		.admin_comment = "budget:min_runtime=600,resumable=yes,allocated=yes",
		.system_comment = "budget:preempted_by=7,at=1000,preemptor_priority=5,victim_priority=4",
		.requeue_ok = false,	/* so not resumable */
		.phase = SB_JOB_RUNNING, .start = 2000, .preempt_time = 2100,
		.priority = 42, .suspended = -3, .time_limit = 3600,
		.eligible = 1500,
		.has_run = true, .tres_alloc = 8, .tres_req = 1,
	};
	struct sb_preempt_party p;

	memset(&p, 0x5a, sizeof(p));
	sb_job_party(&f, &p);
	ck_assert_int_eq(p.job.contract.min_runtime, 600);
	ck_assert(p.job.contract.allocated);
	ck_assert(!p.job.contract.resumable);
	ck_assert(!p.job.contract.requeueable);
	ck_assert_int_eq(p.job.start, 2000);
	ck_assert_uint_eq(p.job.priority, 42);
	ck_assert_uint_eq(p.job.tres, 8);
	ck_assert_int_eq(p.job.suspended, 0);
	ck_assert_int_eq(p.job.time_limit, 3600);
	ck_assert_int_eq(p.job.eligible, 1500);
	ck_assert_uint_eq(p.index, SB_NONE);
	ck_assert(p.in_grace);
	ck_assert(p.preempted);
	ck_assert_int_eq(p.preempted_at, 1000);

	/* no tag: unallocated; no note: never preempted */
	{
		const struct sb_job_facts g = { .phase = SB_JOB_PENDING,
						.requeue_ok = true,
						.time_limit = -1,
						.eligible = -7 };

		sb_job_party(&g, &p);
		ck_assert_int_eq(p.job.time_limit, 0);	/* none: 0 */
		ck_assert_int_eq(p.job.eligible, 0);	/* not known: 0 */
		ck_assert(!p.job.contract.allocated);
		ck_assert_int_eq(p.job.contract.min_runtime, 0);
		ck_assert(!p.in_grace);
		ck_assert(!p.preempted);
	}
	sb_job_party(NULL, &p);	/* nothing happens */
	ck_assert_int_eq(sb_job_contract(NULL, &p.job.contract), SB_EINVAL);
}
END_TEST

/* ------------------------------------------------------------ sb_job_tres */

#define MAX_NODES 4

struct tres_case {
	const char *what;
	struct sb_job_facts f;	/* node and node_arg set by the test */
	uint32_t nnodes;	/* of nodes[]; 0: no node table */
	struct sb_job_node nodes[MAX_NODES];
	uint64_t want;
	uint32_t reads;		/* nodes read */
};

static uint32_t reads;

static void table_node(const void *arg, uint32_t i, struct sb_job_node *out)
{
	const struct tres_case *c = arg;

	ck_assert_uint_lt(i, c->nnodes);
	*out = c->nodes[i];
	reads++;
}

/* 8-GPU, 4-GPU nodes of the partition; a node outside it */
#define GPU8 { .tres = 8, .eligible = true }
#define GPU4 { .tres = 4, .eligible = true }
#define GPU2 { .tres = 2, .eligible = true }
#define OUT1 { .tres = 1, .eligible = false }
#define REQ8 { .tres = 8, .required = true, .eligible = true }
#define REQ8_OUT { .tres = 8, .required = true, .eligible = false }

static const struct tres_case tres_cases[] = {
	{ .what = "running: its allocation, whatever it asked",
	  .f = { .has_run = true, .tres_alloc = 8, .tres_req = 1, .whole_node = true },
	  .nnodes = 2, .nodes = { GPU4, GPU8 },
	  .want = 8, .reads = 0 },
	{ .what = "ended with nothing allocated: 0",
	  .f = { .has_run = true, .tres_alloc = 0, .tres_req = 2 },
	  .want = 0 },
	{ .what = "pending, shared: what it asks for, no node read",
	  .f = { .tres_req = 3, .tres_alloc = 9 },
	  .nnodes = 2, .nodes = { GPU8, GPU8 },
	  .want = 3, .reads = 0 },
	{ .what = "pending --exclusive -G 1: the least-equipped node able to hold 1",
	  .f = { .tres_req = 1, .whole_node = true, .min_nodes = 1 },
	  .nnodes = 3, .nodes = { GPU8, GPU4, OUT1 },
	  .want = 4, .reads = 3 },
	{ .what = "pending whole-node, min_nodes 0 taken as 1",
	  .f = { .tres_req = 1, .whole_node = true, .min_nodes = 0 },
	  .nnodes = 2, .nodes = { GPU8, GPU4 },
	  .want = 4, .reads = 2 },
	{ .what = "pending whole-node, 2 nodes of at least 3 (6 / 2): 2 x 4",
	  .f = { .tres_req = 6, .whole_node = true, .min_nodes = 2 },
	  .nnodes = 3, .nodes = { GPU2, GPU8, GPU4 },
	  .want = 8, .reads = 3 },
	{ .what = "per-node request rounds up: 5 on 2 nodes needs 3 each",
	  .f = { .tres_req = 5, .whole_node = true, .min_nodes = 2 },
	  .nnodes = 3, .nodes = { GPU2, GPU4, GPU8 },
	  .want = 8, .reads = 3 },
	{ .what = "-w an 8-GPU node and one more: 8 + the least (4)",
	  .f = { .tres_req = 1, .whole_node = true, .min_nodes = 2 },
	  .nnodes = 3, .nodes = { REQ8, GPU4, GPU8 },
	  .want = 12, .reads = 3 },
	{ .what = "a required node counts though outside the partition",
	  .f = { .tres_req = 1, .whole_node = true, .min_nodes = 1 },
	  .nnodes = 2, .nodes = { REQ8_OUT, GPU4 },
	  .want = 8, .reads = 2 },
	{ .what = "no eligible node able to hold it: what it asks",
	  .f = { .tres_req = 6, .whole_node = true, .min_nodes = 1 },
	  .nnodes = 3, .nodes = { GPU4, GPU2, OUT1 },
	  .want = 6, .reads = 3 },
	{ .what = "only a node outside the partition: what it asks",
	  .f = { .tres_req = 1, .whole_node = true, .min_nodes = 1 },
	  .nnodes = 1, .nodes = { OUT1 },
	  .want = 1, .reads = 1 },
	{ .what = "no node table: what it asks",
	  .f = { .tres_req = 2, .whole_node = true, .min_nodes = 2 },
	  .nnodes = 0,
	  .want = 2, .reads = 0 },
	{ .what = "asks for more than the nodes hold: what it asks",
	  .f = { .tres_req = 20, .whole_node = true, .min_nodes = 2 },
	  .nnodes = 2, .nodes = { GPU8, GPU8 },
	  .want = 20, .reads = 2 },
};

START_TEST(tres_table)
{
	const struct tres_case *c = &tres_cases[_i];
	struct sb_job_facts f = c->f;
	uint64_t got;

	f.nnodes = c->nnodes;
	f.node = c->nnodes ? table_node : NULL;
	f.node_arg = c;
	reads = 0;
	got = sb_job_tres(&f);
	ck_assert_msg(got == c->want, "%s: got %llu, want %llu", c->what,
		      (unsigned long long)got, (unsigned long long)c->want);
	ck_assert_msg(reads == c->reads, "%s: read %u nodes, want %u",
		      c->what, reads, c->reads);
}
END_TEST

START_TEST(tres_null)
{
	ck_assert_uint_eq(sb_job_tres(NULL), 0);
}
END_TEST

/* has_run from the state: pending, and Slurm's requeue/completing flag */
static const struct {
	bool pending, leaving, has_run;
} has_run_cases[] = {
	{ .pending = false, .leaving = false, .has_run = true },
	{ .pending = false, .leaving = true, .has_run = true },
	{ .pending = true, .leaving = false, .has_run = false },
	{ .pending = true, .leaving = true, .has_run = true },
};

START_TEST(has_run_table)
{
	ck_assert(sb_job_has_run(has_run_cases[_i].pending,
				 has_run_cases[_i].leaving) ==
		  has_run_cases[_i].has_run);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("job");
	TCase *tc = tcase_create("facts");

	tcase_add_test(tc, fields_as_tag);
	tcase_add_test(tc, in_grace_table);
	tcase_add_test(tc, party_from_facts);
	tcase_add_loop_test(tc, tres_table, 0,
			    sizeof(tres_cases) / sizeof(tres_cases[0]));
	tcase_add_test(tc, tres_null);
	tcase_add_loop_test(tc, has_run_table, 0,
			    sizeof(has_run_cases) / sizeof(has_run_cases[0]));
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
