/*
 * refresh.c - preempt/budget's tick re-reads budget.conf after a
 * reconfigure (pe_refresh_config()).
 */
#include "preempt_internal.h"

/*
 * pe_refresh_config - re-read budget.conf after a reconfigure
 * (budget_conf_refresh()) for the tick of generation @my_gen.  What it
 * needs from slurm_conf is copied under the slurmctld conf read lock
 * alone; the file is read and parsed, and the last valid copy written,
 * with no lock held; the new settings are swapped in under pe_state_lock.
 * The last valid copy is priority/budget's to keep; this tick keeps it
 * only when PriorityType is something else.  Tick only.
 */
void pe_refresh_config(unsigned my_gen)
{
	slurmctld_lock_t conf_read = { .conf = READ_LOCK };
	struct budget_conf_env env;
	struct budget_conf_seen seen;
	struct sb_config next;
	char charge[sizeof(pe_cfg.charge_tres)], *parsed = NULL, *pending;
	bool keeper;
	int pos, r;

	lock_slurmctld(conf_read);
	if (pe_tick_off(my_gen)) {
		unlock_slurmctld(conf_read);
		return;
	}
	budget_conf_env_get(&env);
	keeper = xstrcmp(slurm_conf.priority_type, PARTNER) != 0;
	unlock_slurmctld(conf_read);

	slurm_mutex_lock(&pe_state_lock);
	seen = pe_cfg_seen;
	slurm_mutex_unlock(&pe_state_lock);
	r = budget_conf_refresh(&env, &seen, &next, keeper ? &parsed : NULL,
				plugin_type);
	slurm_mutex_lock(&pe_state_lock);
	pending = pe_keep_pending;
	pe_keep_pending = NULL;
	if (my_gen == pe_generation) {	/* not a detached earlier load's tick */
		pe_cfg_seen = seen;
		if (r == 1)
			pe_cfg = next;
		if (r != 0)
			pe_tres_pos = -2;	/* ChargeTRES or the TRES may differ */
	}
	pos = pe_tres_pos;
	memcpy(charge, pe_cfg.charge_tres, sizeof(charge));
	slurm_mutex_unlock(&pe_state_lock);
	if (keeper)
		budget_conf_keep(&env, parsed ? parsed : pending, plugin_type);
	xfree(parsed);
	xfree(pending);
	budget_conf_env_free(&env);
	/* -1 too: assoc_mgr may not have had its TRES yet (retried each
	 * tick until it has; the tick runs only once slurmctld is up). */
	if (pos < 0) {
		pos = budget_tres_pos(charge);
		slurm_mutex_lock(&pe_state_lock);
		if (my_gen == pe_generation)
			pe_tres_pos = pos;
		slurm_mutex_unlock(&pe_state_lock);
	}
}
