/*
 * sb/priority.h - the 32-bit job priority Slurm sorts by (higher first).
 *
 * Order (doc/design.md, "priority/budget"): every allocated job above every
 * unallocated one; then the standing of the job's association; then the
 * job's declared in-team priority; then whether the job already ran and
 * was requeued; equal numbers are left to Slurm's FIFO tie-break (submit
 * time, job id).
 *
 * Bit layout:
 *
 *    31 | 30 .................... 11 | 10 ........ 1 |    0
 *   tier|  standing level (20 bits)  | in-team (10)  | resumed
 *
 *   priority = tier << 31 | level << 11 | in_team << 1 | resumed
 *
 *   tier     1 = allocated (min runtime > 0), 0 = unallocated.
 *   level    1..SB_PRIO_LEVEL_TOP (1,048,574), from the association's
 *            strict position p among the n associations of the standing
 *            (sb/standing.h), best first:
 *                level = 1 + floor((n - 1 - p) * (LEVEL_TOP - 1) / (n - 1))
 *            (LEVEL_TOP when n == 1).  Up to LEVEL_TOP associations get
 *            distinct levels, so one association's in-team priority can
 *            never reach another's; beyond that, neighbours share a level.
 *            Never 0, so no priority is ever 0 (Slurm's "held").
 *            SB_PRIO_LEVEL_LANE (LEVEL_MAX, 1,048,575) is no standing's:
 *            it is the debug lane's (sb/lane.h), above every budget.
 *   in_team  0..SB_PRIO_TEAM_MAX (1023), the job's declared in-team
 *            priority, clamped; SB_PRIO_TEAM_DEFAULT when it declares none.
 *            For an allocated job at the lane level it stops at 1022, so
 *            no priority is 0xFFFFFFFF or 0xFFFFFFFE (Slurm's INFINITE and
 *            NO_VAL).
 *   resumed  1 for a pending job that has run before and was requeued
 *            (preempted, or released by repair).  Slurm 22.05 resets a
 *            requeued job's submit time, which would send it behind every
 *            younger job of its team with the same in-team priority; this
 *            bit keeps it ahead of them (doc/design.md, "Deviation: the
 *            resumed bit").
 *
 * Unallocated jobs are ordered by standing too (below every allocated job):
 * a budget that has used less still gets the idle GPUs first.
 */
#ifndef SB_PRIORITY_H
#define SB_PRIORITY_H

#include <stdbool.h>
#include <stdint.h>

struct sb_standing;

#define SB_PRIO_TIER_SHIFT 31
#define SB_PRIO_LEVEL_SHIFT 11
#define SB_PRIO_LEVEL_BITS 20
#define SB_PRIO_LEVEL_MAX ((UINT32_C(1) << SB_PRIO_LEVEL_BITS) - 1)
/* The debug lane's level (sb/lane.h): above every standing's. */
#define SB_PRIO_LEVEL_LANE SB_PRIO_LEVEL_MAX
/* The best standing's level. */
#define SB_PRIO_LEVEL_TOP (SB_PRIO_LEVEL_MAX - 1)
#define SB_PRIO_TEAM_BITS 10
#define SB_PRIO_TEAM_MAX ((UINT32_C(1) << SB_PRIO_TEAM_BITS) - 1)
#define SB_PRIO_TEAM_SHIFT 1
/* Bit 0: the job ran before and was requeued (see above). */
#define SB_PRIO_RESUMED UINT32_C(1)
/* In the middle, so a job can be declared more or less urgent than the
 * team's ordinary ones. */
#define SB_PRIO_TEAM_DEFAULT UINT32_C(512)
/* The most a QOS's Priority adds to the in-team part (a QOS of the
 * largest Priority): from the default it reaches SB_PRIO_TEAM_MAX. */
#define SB_PRIO_QOS_MAX (SB_PRIO_TEAM_MAX - SB_PRIO_TEAM_DEFAULT)

/* A priority split into its parts (sprio, `sbudget show job`). */
struct sb_priority_parts {
	bool allocated;		/* tier */
	uint32_t level;		/* 1..SB_PRIO_LEVEL_MAX */
	uint32_t in_team;	/* 0..SB_PRIO_TEAM_MAX */
	bool resumed;		/* bit 0 */
	bool lane;		/* level SB_PRIO_LEVEL_LANE: the debug lane */
};

/*
 * sb_priority_level - the standing level of strict position @position
 * (0 = best) among @count associations, by the formula above:
 * 1..SB_PRIO_LEVEL_TOP.  Positions at or beyond @count get 1.  Strictly
 * decreasing in @position while @count <= SB_PRIO_LEVEL_TOP.
 */
uint32_t sb_priority_level(uint32_t position, uint32_t count);

/*
 * sb_priority_compose - tier << 31 | level << 11 | in_team << 1, with
 * @level clamped to 1..SB_PRIO_LEVEL_MAX and @in_team to 0..SB_PRIO_TEAM_MAX.
 * Never 0.  The resumed bit is left 0: sb_priority_resumed() sets it.
 */
uint32_t sb_priority_compose(bool allocated, uint32_t level, uint32_t in_team);

/*
 * sb_priority_job - the priority of a job of association @assoc_index, O(1).
 *
 * @st:           a computed standing (sb_standing_compute()).
 * @allocated:    the job's contract (sb/contract.h): min runtime > 0.
 * @in_team_prio: 0..SB_PRIO_TEAM_MAX; larger values are clamped.
 * Return: the priority, never 0.  A NULL @st or an index out of range (a
 * caller bug) gives level 1, the lowest of the job's tier.
 */
uint32_t sb_priority_job(const struct sb_standing *st, uint32_t assoc_index,
			 bool allocated, uint32_t in_team_prio);

/*
 * sb_priority_resumed - the priority a job carries: @prio
 * (sb_priority_job() or sb_priority_compose()) with SB_PRIO_RESUMED set
 * when the job is pending (@pending) after a run of it was requeued
 * (@requeued: Slurm's restart count > 0), so it keeps its place ahead of
 * younger jobs of its team although Slurm reset its submit time; @prio
 * unchanged otherwise.
 */
uint32_t sb_priority_resumed(uint32_t prio, bool pending, bool requeued);

/*
 * sb_priority_lane - @prio (an allocated job's priority, from
 * sb_priority_job() and sb_priority_resumed()) moved to the debug lane's
 * level SB_PRIO_LEVEL_LANE, keeping its in-team part and resumed bit:
 * above every allocated job of every budget, ordered among lane jobs by
 * in-team priority, then Slurm's FIFO.
 */
uint32_t sb_priority_lane(uint32_t prio);

/* sb_priority_in_lane - @prio is a debug lane job's: allocated tier at
 * level SB_PRIO_LEVEL_LANE, and not Slurm's INFINITE (0xFFFFFFFF) or
 * NO_VAL (0xFFFFFFFE), which a job carries before it is prioritised. */
bool sb_priority_in_lane(uint32_t prio);

/*
 * sb_priority_admin_in_team - the in-team priority an administrator's
 * `scontrol update jobid=X priority=N` (or `sbatch --priority=N`) stands
 * for.  Slurm would store N as the job's priority,
 * which throws away the tier and the standing: a small N put an allocated
 * job below every unallocated one and made it unable to preempt, a large
 * N lifted an unallocated job above allocated ones.  Instead N is read as
 * the job's in-team part: the job keeps its tier and its budget's
 * standing, and moves only among its own budget's jobs:
 *
 *     in_team = min(N, SB_PRIO_TEAM_MAX)
 *
 * so 1..1023 set the in-team priority exactly (512 is a job without
 * --nice; smaller goes after its team's ordinary jobs, larger before) and
 * any N >= 1023 pins the job first within its budget.  N = 0 (hold) and
 * 0xFFFFFFFF (Slurm's "recompute") never reach here; they give 0 and
 * SB_PRIO_TEAM_MAX.
 */
uint32_t sb_priority_admin_in_team(uint32_t admin_prio);

/*
 * sb_priority_qos_part - the QOS's share of the in-team part:
 * round(@qos_norm x SB_PRIO_QOS_MAX), @qos_norm being Slurm's normalised
 * QOS priority (the QOS's Priority over the largest Priority of any QOS,
 * in [0, 1], as priority/multifactor's QOS factor; assoc_mgr keeps it as
 * norm_priority).  Out-of-range or non-finite values count as 0 or 1.
 */
uint32_t sb_priority_qos_part(double qos_norm);

/*
 * sb_priority_in_team - a job's in-team priority from its nice value
 * (@nice as the user gave it, Slurm's nice - NICE_OFFSET; an administrator's
 * priority is kept there too, sb_priority_admin_in_team()) and its QOS
 * (@qos_norm, sb_priority_qos_part()):
 *
 *     in_team = SB_PRIO_TEAM_DEFAULT - nice + qos_part, clamped to
 *               0..SB_PRIO_TEAM_MAX
 *
 * A QOS's Priority thus orders jobs within their budget, as --nice does:
 * a job of the highest-priority QOS goes before its team's jobs of
 * Priority-0 QOSes (as one with --nice=-511 would), and never before
 * another budget's jobs.
 */
uint32_t sb_priority_in_team(int64_t nice, double qos_norm);

/*
 * sb_priority_decode - split @prio into its parts.
 * Return: SB_OK; SB_EINVAL (NULL @out, or a level of 0: a priority not made
 * here, such as 0 for a held job or one set by an administrator).
 */
int sb_priority_decode(uint32_t prio, struct sb_priority_parts *out);

#endif /* SB_PRIORITY_H */
