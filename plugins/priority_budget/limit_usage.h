/*
 * limit_usage.h - priority/budget keeps the usage counters Slurm's time
 * limits read, as priority/multifactor does (slurm-budget(8), "Slurm's
 * time limits"):
 *   - grp_used_tres_run_secs of the job's QOS (and, where the release has
 *     them, that QOS's per-account and per-user counters), of its
 *     partition's QOS and of every association up to root
 *     (GrpTRESRunMins, MaxTRESRunMinsPerAccount/PerUser): Slurm adds a
 *     job's TRES x time limit x UsageFactor when it starts; each tick
 *     releases what it ran since the last tick, its end the rest;
 *   - usage_tres_raw (GrpTRESMins) and grp_used_wall (GrpWall) of the
 *     same QOSes and associations, and the QOSes' usage_raw: the seconds
 *     run, x UsageFactor, decayed by PriorityDecayHalfLife and cleared by
 *     PriorityUsageResetPeriod (slurm.conf) exactly as multifactor does;
 *     an association's usage_raw stays priority/budget's own (sshare's
 *     RawUsage: windowed ChargeTRES seconds).
 * The arithmetic is the core's (sb/limit_usage.h); here only the walk of
 * Slurm's records.  The last tick's time is kept in StateSaveLocation
 * (LIMIT_USAGE_FILE), written at every tick, so that after a restart (and
 * a 22.05 reconfigure, which counts every running job's whole time limit
 * again) what the jobs had already released is taken off once.
 *
 * Locks: every function takes what it needs, in Slurm's order (slurmctld
 * locks, then assoc_mgr's, then this module's own mutex, innermost), and
 * holds them only for one pass over the running jobs; no I/O under a lock.
 */
#ifndef SB_PLUGIN_LIMIT_USAGE_H
#define SB_PLUGIN_LIMIT_USAGE_H

#include <stdbool.h>
#include <time.h>

#include "src/slurmctld/slurmctld.h"

/* File under StateSaveLocation: "last_tick=EPOCH last_reset=EPOCH\n". */
#define LIMIT_USAGE_FILE "budget_limit_usage"

/*
 * limit_usage_init - read the saved tick times from @state_dir (copied).
 * A missing file means no tick yet (first start: the first tick releases
 * each running job's time from its start); an unreadable or malformed one
 * is logged naming the file and its text, and read as missing.  Call from
 * init(), before any other function; no lock held.
 */
void limit_usage_init(const char *state_dir);

/*
 * limit_usage_tick - one tick at @now (seconds): the restart correction
 * if due, the reset if PriorityUsageResetPeriod says so, the decay of the
 * used counters since the last tick, then each running job's share of
 * [last tick, @now).  Then saves the tick time (no lock held).  Takes the
 * slurmctld conf and job read locks, then assoc_mgr's assoc and QOS write
 * and TRES read locks.  Call with no lock held (the recalculation thread).
 */
void limit_usage_tick(time_t now);

/*
 * limit_usage_job_end - @job_ptr's run has ended (or is requeued):
 * release the rest of its time limit once and add what it ran since the
 * last tick.  Job write lock held (priority_p_job_end); takes assoc_mgr's
 * locks.
 */
void limit_usage_job_end(job_record_t *job_ptr);

/*
 * limit_usage_reconfig - Slurm reconfigured; @assoc_clear: it counted
 * every running job's whole time limit again (22.05's reconfigure), so the
 * next tick takes off again what they had released.  Any locks.
 */
void limit_usage_reconfig(bool assoc_clear);

/* limit_usage_fini - save the tick times and forget the state.  No lock
 * held; the recalculation thread has stopped. */
void limit_usage_fini(void);

#endif /* SB_PLUGIN_LIMIT_USAGE_H */
