/* priority.c - the 32-bit job priority; layout in sb/priority.h. */
#include <math.h>

#include "sb/error.h"
#include "sb/priority.h"
#include "sb/standing.h"

uint32_t sb_priority_level(uint32_t position, uint32_t count)
{
	if (count <= 1)
		return SB_PRIO_LEVEL_TOP;
	if (position >= count)
		return 1;
	/* (count - 1 - position) * (LEVEL_TOP - 1) < 2^32 * 2^21: fits */
	return 1 + (uint32_t)((uint64_t)(count - 1 - position) *
			      (SB_PRIO_LEVEL_TOP - 1) / (count - 1));
}

uint32_t sb_priority_compose(bool allocated, uint32_t level, uint32_t in_team)
{
	if (level < 1)
		level = 1;
	if (level > SB_PRIO_LEVEL_MAX)
		level = SB_PRIO_LEVEL_MAX;
	if (in_team > SB_PRIO_TEAM_MAX)
		in_team = SB_PRIO_TEAM_MAX;
	/* Slurm reads 0xFFFFFFFF as INFINITE and 0xFFFFFFFE as NO_VAL: the
	 * very top of the best budget's in-team range stops below them. */
	if (allocated && level == SB_PRIO_LEVEL_MAX &&
	    in_team > SB_PRIO_TEAM_MAX - 1)
		in_team = SB_PRIO_TEAM_MAX - 1;
	return (allocated ? UINT32_C(1) << SB_PRIO_TIER_SHIFT : 0) |
	       level << SB_PRIO_LEVEL_SHIFT | in_team << SB_PRIO_TEAM_SHIFT;
}

uint32_t sb_priority_admin_in_team(uint32_t admin_prio)
{
	return admin_prio > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX : admin_prio;
}

uint32_t sb_priority_qos_part(double qos_norm)
{
	if (!(qos_norm > 0))	/* NaN too */
		return 0;
	if (qos_norm >= 1)
		return SB_PRIO_QOS_MAX;
	return (uint32_t)lround(qos_norm * SB_PRIO_QOS_MAX);
}

uint32_t sb_priority_in_team(int64_t nice, double qos_norm)
{
	int64_t v = (int64_t)SB_PRIO_TEAM_DEFAULT +
		    (int64_t)sb_priority_qos_part(qos_norm);

	if (nice > v)
		return 0;
	if (nice < -(int64_t)SB_PRIO_TEAM_MAX)	/* and no overflow below */
		return SB_PRIO_TEAM_MAX;
	v -= nice;
	return v > SB_PRIO_TEAM_MAX ? SB_PRIO_TEAM_MAX : (uint32_t)v;
}

uint32_t sb_priority_job(const struct sb_standing *st, uint32_t assoc_index,
			 bool allocated, uint32_t in_team_prio)
{
	const struct sb_standing_node *s = sb_standing_node(st, assoc_index);

	return sb_priority_compose(allocated, s ? s->level : 1, in_team_prio);
}

uint32_t sb_priority_resumed(uint32_t prio, bool pending, bool requeued)
{
	return pending && requeued ? prio | SB_PRIO_RESUMED : prio;
}

uint32_t sb_priority_lane(uint32_t prio)
{
	uint32_t in_team = (prio >> SB_PRIO_TEAM_SHIFT) & SB_PRIO_TEAM_MAX;

	return sb_priority_compose(true, SB_PRIO_LEVEL_LANE, in_team) |
	       (prio & SB_PRIO_RESUMED);
}

bool sb_priority_in_lane(uint32_t prio)
{
	/* Slurm's INFINITE and NO_VAL (a job not yet prioritised) have every
	 * level bit set too; no lane priority reaches them */
	return prio < UINT32_C(0xFFFFFFFE) && (prio >> SB_PRIO_TIER_SHIFT) &&
	       ((prio >> SB_PRIO_LEVEL_SHIFT) & SB_PRIO_LEVEL_MAX) ==
	       SB_PRIO_LEVEL_LANE;
}

int sb_priority_decode(uint32_t prio, struct sb_priority_parts *out)
{
	uint32_t level = (prio >> SB_PRIO_LEVEL_SHIFT) & SB_PRIO_LEVEL_MAX;

	if (!out || level == 0)
		return SB_EINVAL;
	out->allocated = prio >> SB_PRIO_TIER_SHIFT;
	out->level = level;
	out->in_team = (prio >> SB_PRIO_TEAM_SHIFT) & SB_PRIO_TEAM_MAX;
	out->resumed = prio & SB_PRIO_RESUMED;
	out->lane = sb_priority_in_lane(prio);
	return SB_OK;
}
