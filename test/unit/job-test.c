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
		.priority = 42, .tres = 8, .suspended = -3,
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
	ck_assert_uint_eq(p.index, SB_NONE);
	ck_assert(p.in_grace);
	ck_assert(p.preempted);
	ck_assert_int_eq(p.preempted_at, 1000);

	/* no tag: unallocated; no note: never preempted */
	{
		const struct sb_job_facts g = { .phase = SB_JOB_PENDING,
						.requeue_ok = true };

		sb_job_party(&g, &p);
		ck_assert(!p.job.contract.allocated);
		ck_assert_int_eq(p.job.contract.min_runtime, 0);
		ck_assert(!p.in_grace);
		ck_assert(!p.preempted);
	}
	sb_job_party(NULL, &p);	/* nothing happens */
	ck_assert_int_eq(sb_job_contract(NULL, &p.job.contract), SB_EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("job");
	TCase *tc = tcase_create("facts");

	tcase_add_test(tc, fields_as_tag);
	tcase_add_test(tc, in_grace_table);
	tcase_add_test(tc, party_from_facts);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
