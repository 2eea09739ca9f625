/*
 * budget_conf.h - budget.conf for the controller plugins.
 *
 * budget.conf lives beside slurm.conf.  It is read with Slurm's parse_config
 * (comments, key=value, unknown keys refused), each value is validated by the
 * policy core (sb_config_set), and it is read again whenever slurmctld has
 * re-read slurm.conf (`scontrol reconfigure`).
 */
#ifndef SB_BUDGET_CONF_H
#define SB_BUDGET_CONF_H

#include <stdbool.h>
#include <time.h>

#include "sb/config.h"

/*
 * budget_conf_load - read budget.conf into @cfg.
 * A missing file gives the defaults.  On any error @cfg is left unchanged,
 * the error is logged naming the file, key and value, and SLURM_ERROR is
 * returned; @who prefixes every log line ("job_submit/budget").
 */
int budget_conf_load(struct sb_config *cfg, const char *who);

/*
 * budget_conf_refresh - re-read budget.conf if slurmctld re-read its own
 * configuration since @*seen (slurm_conf.last_update).  A bad file on
 * re-read keeps the previous settings (logged).  Cheap when nothing changed.
 */
void budget_conf_refresh(struct sb_config *cfg, time_t *seen, const char *who);

#endif /* SB_BUDGET_CONF_H */
