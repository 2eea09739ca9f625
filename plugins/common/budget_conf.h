/*
 * budget_conf.h - budget.conf for the controller plugins.
 *
 * budget.conf lives beside slurm.conf.  Its text is parsed by the policy
 * core (sb_config_parse: the grammar sbudget and sbudget-sim share, Slurm's
 * Key=Value rules; doc/design.md says why not parse_config), and it is read
 * again whenever slurmctld has re-read slurm.conf (`scontrol reconfigure`).
 */
#ifndef SB_BUDGET_CONF_H
#define SB_BUDGET_CONF_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "sb/config.h"

/*
 * budget_conf_load - read budget.conf into @cfg.
 * A missing file gives the defaults.  On any error the error is logged
 * naming the file, line, key and value; then, inside slurmctld, the last
 * valid budget.conf (a copy kept in StateSaveLocation/budget.conf.last-valid
 * each time a valid file is read) is read instead and SLURM_SUCCESS
 * returned, so a restart with a bad file keeps the settings in force
 * (Slurm 24.11 restarts slurmctld on every `scontrol reconfigure`);
 * without such a copy @cfg is left unchanged and SLURM_ERROR returned.
 * @who prefixes every log line ("job_submit/budget").
 */
int budget_conf_load(struct sb_config *cfg, const char *who);

/*
 * What budget_conf_refresh() last saw: slurmctld's configuration time and
 * the file's identity, so that two reconfigures within one second (one
 * slurm_conf.last_update) still pick up an edit made between them.
 */
struct budget_conf_seen {
	time_t conf_update;	/* slurm_conf.last_update */
	struct timespec mtime;	/* budget.conf's, or 0 if missing */
	ino_t ino;
	off_t size;
};

/*
 * budget_conf_refresh - re-read budget.conf if slurmctld re-read its own
 * configuration (`scontrol reconfigure`) since the last call, or the file
 * changed and a reconfigure happened at or after its change.  A bad file on
 * re-read keeps the previous settings (logged).  Costs one stat().
 */
void budget_conf_refresh(struct sb_config *cfg, struct budget_conf_seen *seen,
			 const char *who);

/* budget_conf_mark - record the current state in @seen (after a load). */
void budget_conf_mark(struct budget_conf_seen *seen);

/*
 * budget_tres_pos - position of @charge_tres ("gres/gpu") in the TRES
 * arrays of jobs (tres_alloc_cnt); -1 if it is not an accounted TRES (not
 * in AccountingStorageTRES).  Takes the assoc_mgr TRES read lock: call with
 * no assoc_mgr lock held.
 */
int budget_tres_pos(const char *charge_tres);

#endif /* SB_BUDGET_CONF_H */
