/*
 * tree.c - priority/budget: the association tree, snapshotted from
 * assoc_mgr at each recalculation and adopted (with the ledger, the
 * standing and the view moved onto it) when it changed.
 */
#include "priority_internal.h"

/* Whether @a and @b hold the same associations with the same shares in the
 * same places (then the current tree, ledger binding and view are kept). */
bool pr_same_tree(const struct sb_tree *a, const struct sb_tree *b)
{
	uint32_t i, n = sb_tree_count(a);

	if (!a || !b || n != sb_tree_count(b))
		return false;
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *x = sb_tree_node(a, i);
		const struct sb_tree_node *y = sb_tree_node(b, i);

		if (x->id != y->id || x->parent != y->parent ||
		    x->raw_shares != y->raw_shares || strcmp(x->name, y->name))
			return false;
	}
	return true;
}

/* A new tree from assoc_mgr's associations, or NULL (logged). */
struct sb_tree *pr_snapshot_tree(void)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK };
	slurmdb_assoc_rec_t *a;
	struct sb_tree *t = sb_tree_new();
	ListIterator it;
	int rc = SB_OK;

	if (!t)
		return NULL;
	assoc_mgr_lock(&locks);
	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it)) && rc == SB_OK) {
			slurmdb_assoc_rec_t *p;
			char name[256];

			if (a == assoc_mgr_root_assoc || !a->usage)
				continue;
			p = a->usage->parent_assoc_ptr;
			snprintf(name, sizeof(name), "%s%s%s", a->acct,
				 a->user ? "/" : "", a->user ? a->user : "");
			rc = sb_tree_add(t, a->id,
					 (!p || p == assoc_mgr_root_assoc) ? 0 : p->id,
					 a->shares_raw, name);
		}
		list_iterator_destroy(it);
	}
	assoc_mgr_unlock(&locks);
	if (rc == SB_OK)
		rc = sb_tree_finalize(t);
	if (rc != SB_OK) {
		error("%s: cannot build the budget tree from the associations: "
		      "%s", plugin_type, sb_strerror(rc));
		sb_tree_free(t);
		return NULL;
	}
	return t;
}

/*
 * Move the ledger onto @t (pr_state_lock held).  The first time it creates the
 * ledger and loads the saved state; after a reconfigure that changed the
 * window or bucket width it carries the usage over through the same JSON
 * the state file uses (no decay).
 */
int pr_adopt_tree(struct sb_tree *t, time_t now)
{
	struct sb_ledger *nl = NULL;
	struct sb_standing *ns = NULL;
	struct sb_view nv;
	double *charged;
	uint32_t i, j;
	int rc;

	/* Everything that can fail before the ledger is touched: on error
	 * the caller frees @t and nothing refers to it. */
	if ((rc = sb_view_init(&nv, t)))
		return rc;
	if ((rc = sb_standing_new(t, &ns))) {
		sb_view_free(&nv);
		return rc;
	}
	if (!pr_ledger ||
	    sb_ledger_window(pr_ledger) != pr_cfg.lookback_window ||
	    sb_ledger_width(pr_ledger) != pr_cfg.bucket_width) {
		if ((rc = sb_ledger_new(t, pr_cfg.lookback_window,
					pr_cfg.bucket_width, &nl))) {
			sb_standing_free(ns);
			sb_view_free(&nv);
			return rc;
		}
		if (pr_ledger) {
			char *doc = NULL;

			if (sb_ledger_to_json(pr_ledger, NULL, &doc) == SB_OK)
				rc = sb_ledger_from_json_at(nl, NULL, doc,
							    strlen(doc), now,
							    NULL, 0, NULL);
			free(doc);
			if (rc != SB_OK)
				error("%s: carrying usage over to the new window "
				      "failed: %s", plugin_type, sb_strerror(rc));
			sb_ledger_free(pr_ledger);
		}
		pr_ledger = nl;
		if (!pr_state_loaded) {
			pr_need_rebuild = !pr_load_state();
			pr_state_loaded = true;
		}
	} else if ((rc = sb_ledger_rebind(pr_ledger, t, NULL, 0, NULL))) {
		sb_standing_free(ns);
		sb_view_free(&nv);
		return rc;
	}
	/* Never publish an uncomputed standing: priority_p_set may run before
	 * this cycle's full computation (which adds committed usage). */
	sb_standing_compute(ns, pr_ledger, now);
	sb_standing_free(pr_standing);
	pr_standing = ns;
	/* The view on the new tree: charged usage from the ledger now, the
	 * committed usage carried over by association id until this cycle's
	 * walk of the running jobs replaces it (a few milliseconds). */
	charged = xcalloc(nv.n ? nv.n : 1, sizeof(*charged));
	if (sb_ledger_usage_all(pr_ledger, now, true, charged, NULL) == SB_OK &&
	    sb_view_set_charged(&nv, charged) == SB_OK)
		pr_view_ok = true;
	xfree(charged);
	for (i = 0; pr_view.tree && i < nv.n; i++)
		if (sb_tree_index(pr_view.tree, sb_tree_node(t, i)->id, &j) ==
		    SB_OK)
			nv.committed[i] = pr_view.committed[j];
	sb_view_free(&pr_view);
	pr_view = nv;
	sb_tree_free(pr_tree);
	pr_tree = t;
	return SB_OK;
}

/*
 * The ledger's memory bound (sb_ledger_fit_width, SB_LEDGER_MAX_BYTES) at
 * @nassoc associations: a LookbackWindow and BucketWidth whose ledger would
 * take more are not adopted; the ledger keeps its shape if that fits, else
 * the buckets widen to the narrowest width that fits.  Logged as an error
 * once per budget.conf read (cfg keeps the shape in force until the next
 * read).  pr_state_lock held.
 */
void pr_fit_ledger_shape(uint32_t nassoc)
{
	char w[32], b[32], nw[32], nb[32];
	uint64_t need = sb_ledger_bytes(nassoc, pr_cfg.lookback_window,
					pr_cfg.bucket_width);
	int64_t fit;

	if (need <= SB_LEDGER_MAX_BYTES)
		return;
	sb_duration_format(pr_cfg.lookback_window, w, sizeof(w));
	sb_duration_format(pr_cfg.bucket_width, b, sizeof(b));
	if (pr_ledger && sb_ledger_bytes(nassoc, sb_ledger_window(pr_ledger),
				      sb_ledger_width(pr_ledger)) <=
		      SB_LEDGER_MAX_BYTES) {
		pr_cfg.lookback_window = sb_ledger_window(pr_ledger);
		pr_cfg.bucket_width = sb_ledger_width(pr_ledger);
	} else if ((fit = sb_ledger_fit_width(nassoc, pr_cfg.lookback_window,
					      pr_cfg.bucket_width,
					      SB_LEDGER_MAX_BYTES))) {
		pr_cfg.bucket_width = fit;
	} else {
		error("%s: LookbackWindow=%s BucketWidth=%s: the ledger of %u "
		      "associations needs %"PRIu64" MiB, above its %"PRIu64
		      " MiB bound, and no bucket width fits: using them anyway",
		      plugin_type, w, b, nassoc, need >> 20,
		      SB_LEDGER_MAX_BYTES >> 20);
		return;
	}
	error("%s: LookbackWindow=%s BucketWidth=%s: the ledger of %u "
	      "associations would need %"PRIu64" MiB, above its %"PRIu64" MiB "
	      "bound: using LookbackWindow=%s BucketWidth=%s (%"PRIu64" MiB); "
	      "set a wider BucketWidth in budget.conf", plugin_type, w, b,
	      nassoc, need >> 20, SB_LEDGER_MAX_BYTES >> 20,
	      sb_duration_format(pr_cfg.lookback_window, nw, sizeof(nw)),
	      sb_duration_format(pr_cfg.bucket_width, nb, sizeof(nb)),
	      sb_ledger_bytes(nassoc, pr_cfg.lookback_window,
			      pr_cfg.bucket_width) >> 20);
}
