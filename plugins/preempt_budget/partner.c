/*
 * partner.c - preempt/budget: finding priority/budget's operations table
 * (budget_ops.h) in the already loaded priority_budget.so.
 */
#include "preempt_internal.h"

/* Ticks to wait for priority_budget.so to be loaded before saying that it
 * cannot be found (slurmctld loads it after this plugin). */
#define OPS_MISSES_MAX 30

/* priority/budget's table in the already loaded @path, or NULL (why in
 * @err).  Never loads anything (RTLD_NOLOAD). */
static const struct sb_budget_ops *ops_in(const char *path, char *err,
					  size_t len)
{
	const struct sb_budget_ops *o;
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);

	if (!h)
		return NULL;	/* not loaded from there: not an error */
	o = dlsym(h, SB_BUDGET_OPS_SYMBOL);
	dlclose(h);	/* NODELETE keeps it mapped; slurmctld holds it */
	if (!o) {
		snprintf(err, len, "%s has no %s (built from another version "
			 "of slurm-budget?): install both plugins from one "
			 "build", path, SB_BUDGET_OPS_SYMBOL);
		return NULL;
	}
	/* version and size first: a table of another version may end
	 * before the members read after them */
	if (o->version != SB_BUDGET_OPS_VERSION ||
	    o->size != sizeof(struct sb_budget_ops)) {
		snprintf(err, len, "%s exports table version %u (size %u); "
			 "this plugin needs version %u (size %zu): install "
			 "both plugins from one build", path, o->version,
			 o->size, SB_BUDGET_OPS_VERSION,
			 sizeof(struct sb_budget_ops));
		return NULL;
	}
	if (o->slurm_version != SLURM_VERSION_NUMBER ||
	    o->policy_size != sizeof(struct sb_preempt_policy)) {
		snprintf(err, len, "%s was built for Slurm 0x%x with a "
			 "preemption policy of %u bytes; this plugin for Slurm "
			 "0x%x with %zu: install both plugins from one build",
			 path, o->slurm_version, o->policy_size,
			 (unsigned)SLURM_VERSION_NUMBER,
			 sizeof(struct sb_preempt_policy));
		return NULL;
	}
	return o;
}

/*
 * Find priority/budget's table: beside our own .so first, then in each
 * PluginDir entry.  Return: the table, or NULL with the reason in @err
 * ("" when it simply is not loaded from any of those places).
 * slurm_conf read lock held.
 */
static const struct sb_budget_ops *budget_ops_find(char *err, size_t len)
{
	const struct sb_budget_ops *o = NULL;
	char *dirs = NULL, *dir, *save = NULL, *path;
	Dl_info self;

	err[0] = '\0';
	if (dladdr((void *)budget_ops_find, &self) && self.dli_fname &&
	    strrchr(self.dli_fname, '/')) {
		path = xstrdup(self.dli_fname);
		*strrchr(path, '/') = '\0';
		xstrcat(path, "/" PARTNER_SO);
		o = ops_in(path, err, len);
		xfree(path);
	}
	if (!o && !err[0] && slurm_conf.plugindir) {
		dirs = xstrdup(slurm_conf.plugindir);
		for (dir = strtok_r(dirs, ":", &save); dir && !o && !err[0];
		     dir = strtok_r(NULL, ":", &save)) {
			path = xstrdup_printf("%s/%s", dir, PARTNER_SO);
			o = ops_in(path, err, len);
			xfree(path);
		}
		xfree(dirs);
	}
	return o;
}

/*
 * Look the table up again after a reconfigure, and every tick while
 * PriorityType is priority/budget but its table was not found (slurmctld
 * loads the priority plugin after this one).  Tick only; slurmctld conf and
 * job read locks held (preempt_p_* run under the job write lock, so they
 * never see the pointer change under them).
 */
void pe_partner_refresh(void)
{
	const struct sb_budget_ops *o = NULL;
	char err[512];

	if (pe_ops_conf_update == slurm_conf.last_update && pe_ops)
		return;
	if (pe_ops_conf_update != slurm_conf.last_update) {
		pe_ops_missing_logged = false;
		pe_ops_misses = 0;
	}
	pe_ops_conf_update = slurm_conf.last_update;
	if (!xstrcmp(slurm_conf.priority_type, PARTNER)) {
		o = budget_ops_find(err, sizeof(err));
		if (!o && !err[0] && ++pe_ops_misses >= OPS_MISSES_MAX)
			snprintf(err, sizeof(err), "PriorityType is %s, but no "
				 "loaded %s was found beside this plugin or in "
				 "PluginDir", PARTNER, PARTNER_SO);
		if (!o && err[0] && !pe_ops_missing_logged) {
			error("%s: %s; working as without %s (allocated jobs "
			      "never preempt allocated ones)", plugin_type,
			      err, PARTNER);
			pe_ops_missing_logged = true;
		}
	}
	slurm_mutex_lock(&pe_state_lock);
	if (o && !pe_ops)
		info("%s: using %s's budget view (table %s)", plugin_type,
		     PARTNER, SB_BUDGET_OPS_SYMBOL);
	pe_ops = o;
	slurm_mutex_unlock(&pe_state_lock);
}
