/*
 * all_teams.c - the figures over the lookback window (sb_fig_window()) of
 * every association, and the "all teams" figures of show budget, report
 * and metrics (sb_fig_all_teams()): which associations are the teams, and
 * the worst team's name.  The arithmetic is the core's; this file only
 * picks the inputs.  See sbudget(1), "FIGURES".
 */
#include <stdio.h>
#include <stdlib.h>

#include "sb/error.h"
#include "sbudget.h"

/* Memory the window figures may take: every slot of every association. */
#define WINDOW_MEM_MAX ((uint64_t)512 << 20)

bool sbu_window_fits(const struct sbu_ctx *c, int64_t from, int64_t to,
		     int64_t slot, char *why, size_t len)
{
	uint64_t n = sb_tree_count(c->tree), per_slot, need;

	per_slot = (n ? n : 1) * sizeof(struct sb_fig);
	need = (uint64_t)sb_fig_nslots(from, to, slot) * per_slot;
	if (need <= WINDOW_MEM_MAX)
		return true;
	snprintf(why, len, "the figures over the lookback window keep every "
		 "hour of every association: %llu associations over %.1f days "
		 "need %llu MiB (at most %llu); ask for a span of at most %.1f "
		 "days", (unsigned long long)n, (double)(to - from) / 86400,
		 (unsigned long long)(need >> 20),
		 (unsigned long long)(WINDOW_MEM_MAX >> 20),
		 (double)(WINDOW_MEM_MAX / per_slot) * (double)slot / 86400);
	return false;
}

struct sb_fig *sbu_window_figures(const struct sbu_ctx *c,
				  const struct sb_fig *series, int64_t from,
				  int64_t to, int64_t slot)
{
	uint32_t n = sb_tree_count(c->tree);
	size_t ns = sb_fig_nslots(from, to, slot);
	size_t per = (size_t)((c->cfg.lookback_window + slot - 1) / slot);
	struct sb_fig *w = calloc(n ? n : 1, sizeof(*w));
	int rc;

	if (!w) {
		sbu_error("out of memory");
		return NULL;
	}
	if ((rc = sb_fig_window(series, n, ns, per ? per : 1, w)) != SB_OK) {
		sbu_error("cannot compute the figures over the lookback "
			  "window: %s", sb_strerror(rc));
		free(w);
		return NULL;
	}
	return w;
}

int sbu_teams(const struct sbu_ctx *c, const bool *shown, uint32_t **teams,
	      uint32_t *nteams)
{
	uint32_t n = sb_tree_count(c->tree), i, j, k = 0;
	uint32_t *t = malloc((n ? n : 1) * sizeof(*t));

	*teams = NULL;
	*nteams = 0;
	if (!t) {
		sbu_error("out of memory");
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (sb_tree_node(c->tree, i)->nchildren || !c->by_index[i])
			continue;
		for (j = i; shown && j != SB_NONE && !shown[j];
		     j = sb_tree_node(c->tree, j)->parent)
			;
		if (j != SB_NONE)
			t[k++] = i;
	}
	*teams = t;
	*nteams = k;
	return 0;
}

int sbu_all_teams(const struct sbu_ctx *c, const uint32_t *teams,
		  uint32_t nteams, const struct sb_fig *fig,
		  struct sbc_all_teams *out)
{
	const slurmdb_assoc_rec_t *a;
	int rc;

	out->teams = nteams;
	out->missing[0] = '\0';
	rc = sb_fig_all_teams(fig, sb_tree_count(c->tree), teams, nteams,
			      &out->fig);
	if (rc != SB_OK) {
		sbu_error("cannot compute the all-teams figure: %s",
			  sb_strerror(rc));
		return -1;
	}
	out->worst_account = out->worst_user = NULL;
	out->worst_id = 0;
	if (out->fig.worst != SB_NONE) {
		a = c->by_index[teams[out->fig.worst]];
		out->worst_account = a->acct;
		out->worst_user = a->user;
		out->worst_id = a->id;
	}
	return 0;
}

int sbu_all_teams_pair(const struct sbu_ctx *c, const bool *shown,
		       const struct sb_fig *fig, const struct sb_fig *win,
		       const char *why, struct sbc_all_teams *all)
{
	uint32_t *teams = NULL, nteams;
	int rc = -1;

	all[0] = (struct sbc_all_teams){ .json_key = "all_teams",
					 .title = "All teams", .suffix = "" };
	all[1] = (struct sbc_all_teams){
		.json_key = "all_teams_window",
		.title = "All teams over the window", .suffix = "Window" };
	if (sbu_teams(c, shown, &teams, &nteams) ||
	    sbu_all_teams(c, teams, nteams, fig, &all[0]))
		goto out;
	if (win) {
		if (sbu_all_teams(c, teams, nteams, win, &all[1]))
			goto out;
	} else {
		snprintf(all[1].missing, sizeof(all[1].missing), "%s", why);
	}
	rc = 0;
out:
	free(teams);
	return rc;
}
