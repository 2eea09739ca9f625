/*
 * publish.c - priority/budget: shares, usage and standing published to
 * assoc_mgr's associations, for sshare.
 */
#include "priority_internal.h"

/*
 * An account's own usage (what deleted associations below it left there:
 * sb_ledger_rebind()) as the leaf usage Slurm keeps for it.  At every
 * association update from slurmdbd, assoc_mgr zeroes each account's
 * usage_raw and adds up its users' and its own leaf usage (assoc_mgr.c,
 * assoc_mgr_update_assocs, "reset the limits because since a parent
 * changed"): with the leaf usage set here, that sum is the subtree usage
 * published below, so sshare shows the same figure before and after the
 * update instead of Slurm's until the next recalculation.  assoc_mgr's
 * assoc lock held (write).
 */
static void set_account_leaf_usage(slurmdb_assoc_rec_t *a, double own)
{
	if (a->user || a->leaf_usage == a->usage)
		return;
	if (!a->leaf_usage) {
		if (own <= 0 || !g_tres_count)
			return;
		a->leaf_usage = slurmdb_create_assoc_usage(g_tres_count);
	}
	a->leaf_usage->usage_raw = own;
}

/*
 * Publish shares, usage and standing to assoc_mgr for sshare.  @charged is
 * the windowed allocated usage per tree index (subtree sums) *without* the
 * committed part, which only steers the standing; @own the same of each
 * association alone (set_account_leaf_usage()).
 */
void pr_publish_assocs(const double *charged, const double *own,
		       uint32_t n)
{
	/* TRES: g_tres_count, for a new leaf usage record */
	assoc_mgr_lock_t locks = { .assoc = WRITE_LOCK, .tres = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	ListIterator it;
	double total = 0;
	uint32_t i;

	assoc_mgr_lock(&locks);
	slurm_mutex_lock(&pr_state_lock);
	if (n != sb_tree_count(pr_tree))	/* cannot happen: one thread adopts */
		goto out;
	for (i = 0; i < n; i++)
		if (sb_tree_node(pr_tree, i)->parent == SB_NONE)
			total += charged[i];
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			const struct sb_standing_node *s;
			uint32_t idx;

			if (!a->usage)
				continue;
			if (a == assoc_mgr_root_assoc) {
				a->usage->usage_raw = total;
				a->usage->usage_norm = 1;
				a->usage->usage_efctv = 1;
				a->usage->shares_norm = 1;
				a->usage->fs_factor = 1;
				continue;
			}
			if (sb_tree_index(pr_tree, a->id, &idx) != SB_OK)
				continue;
			s = sb_standing_node(pr_standing, idx);
			a->usage->shares_norm = s->shares_norm;
			a->usage->usage_raw = charged[idx];
			a->usage->usage_norm = total > 0 ? charged[idx] / total : 0;
			a->usage->usage_efctv = a->usage->usage_norm;
			a->usage->fs_factor = s->factor;
			a->usage->level_fs = s->level_fs;
			set_account_leaf_usage(a, own[idx]);
		}
		list_iterator_destroy(it);
	}
out:
	slurm_mutex_unlock(&pr_state_lock);
	assoc_mgr_unlock(&locks);
}
