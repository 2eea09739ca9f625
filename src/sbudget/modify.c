/*
 * modify.c - `sbudget modify budget where account=A [user=U] set share=N`
 * and `sbudget add budget account=A parent=P share=N`: RawShares and new
 * account budgets through slurmdbd, as sacctmgr modifies and adds them
 * (slurmdbd checks who may: administrators anywhere, coordinators in their
 * sub-tree), asking for confirmation unless -i.  See sbudget(1), "modify
 * budget" and "add budget".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <slurm/slurm_errno.h>

#include "sbudget.h"

/* Ask as sacctmgr does: 30 seconds, N unless y/Y. */
static bool confirm(void)
{
	struct timeval tv = { .tv_sec = 30 };
	fd_set rfds;
	char line[64];

	printf("Would you like to commit changes? (You have 30 seconds to "
	       "decide)\n(N/y): ");
	fflush(stdout);
	FD_ZERO(&rfds);
	FD_SET(STDIN_FILENO, &rfds);
	if (select(STDIN_FILENO + 1, &rfds, NULL, NULL, &tv) <= 0)
		return false;
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

int sbu_cmd_modify_budget(struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	slurmdb_assoc_cond_t cond;
	slurmdb_assoc_rec_t rec;
	List ret;
	char *s;
	ListIterator it;
	size_t k;
	int rc = 1;

	if (sbu_load_tree(c) || sbu_check_names(c))
		return 1;
	for (k = 0; k < cmd->naccounts; k++) {
		if (!strcmp(cmd->accounts[k], "root")) {
			sbu_error("account 'root': the root of the tree has no "
				  "budget to change; change its children's "
				  "shares");
			return 1;
		}
	}
	memset(&cond, 0, sizeof(cond));
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	cond.acct_list = slurm_list_create(NULL);
	for (k = 0; k < cmd->naccounts; k++)
		slurm_list_append(cond.acct_list, (void *)cmd->accounts[k]);
	if (cmd->nusers) {	/* no user list: the account associations */
		cond.user_list = slurm_list_create(NULL);
		for (k = 0; k < cmd->nusers; k++)
			slurm_list_append(cond.user_list,
					  (void *)cmd->users[k]);
	}
	slurmdb_init_assoc_rec(&rec, 0);
	rec.shares_raw = cmd->share;

	errno = 0;
	ret = slurmdb_associations_modify(c->db, &cond, &rec);
	if (!ret) {
		/* slurmdbd's reason (for example "Your user doesn't have
		 * privilege to perform this action") is printed by libslurm
		 * as it arrives; errno is its code. */
		sbu_error("modify budget refused by slurmdbd: %s; nothing was "
			  "changed", slurm_strerror(errno ? errno :
						    SLURM_ERROR));
		goto out;	/* nothing to roll back */
	}
	if (!slurm_list_count(ret)) {
		sbu_error("nothing modified: no association matched");
		slurmdb_connection_commit(c->db, 0);
		goto out;
	}
	if (!cmd->quiet) {
		printf(" Modified budget associations (share=");
		if (cmd->share == SB_SHARES_USE_PARENT)
			printf("parent)...\n");
		else
			printf("%u)...\n", cmd->share);
		it = slurm_list_iterator_create(ret);
		while ((s = slurm_list_next(it)))
			printf("  %s\n", s);
		slurm_list_iterator_destroy(it);
	}
	if (cmd->immediate || confirm()) {
		if (slurmdb_connection_commit(c->db, 1) != SLURM_SUCCESS) {
			sbu_error("slurmdbd did not commit: %s",
				  slurm_strerror(errno));
			goto out;
		}
		rc = 0;
	} else {
		slurmdb_connection_commit(c->db, 0);
		printf(" Changes Discarded\n");
		rc = 1;
	}
out:
	if (ret)
		slurm_list_destroy(ret);
	slurm_list_destroy(cond.cluster_list);
	slurm_list_destroy(cond.acct_list);
	if (cond.user_list)
		slurm_list_destroy(cond.user_list);
	return rc;
}

/* The account association of @acct on the cluster (user-less), or NULL. */
static const slurmdb_assoc_rec_t *account_assoc(const struct sbu_ctx *c,
						const char *acct)
{
	const slurmdb_assoc_rec_t *a, *found = NULL;
	ListIterator it = slurm_list_iterator_create(c->assocs);

	while ((a = slurm_list_next(it)))
		if (a->acct && !strcmp(a->acct, acct) &&
		    (!a->user || !a->user[0])) {
			found = a;
			break;
		}
	slurm_list_iterator_destroy(it);
	return found;
}

/* Which of @cmd's accounts slurmdbd already has (on any cluster): their
 * records are not sent again (slurmdbd would overwrite their description
 * and organization), only the association.  Return 0 or -1 (said). */
static int accounts_known(struct sbu_ctx *c, bool *known)
{
	const struct sbc_cmd *cmd = c->cmd;
	slurmdb_account_cond_t acond;
	slurmdb_assoc_cond_t ascond;
	slurmdb_account_rec_t *a;
	ListIterator it;
	List have;
	size_t k;

	memset(&acond, 0, sizeof(acond));
	memset(&ascond, 0, sizeof(ascond));
	ascond.acct_list = slurm_list_create(NULL);
	for (k = 0; k < cmd->naccounts; k++)
		slurm_list_append(ascond.acct_list, (void *)cmd->accounts[k]);
	acond.assoc_cond = &ascond;
	errno = 0;
	have = slurmdb_accounts_get(c->db, &acond);
	slurm_list_destroy(ascond.acct_list);
	if (!have) {
		sbu_db_error("the accounts");
		return -1;
	}
	it = slurm_list_iterator_create(have);
	while ((a = slurm_list_next(it)))
		for (k = 0; k < cmd->naccounts; k++)
			if (a->name && !strcmp(a->name, cmd->accounts[k]))
				known[k] = true;
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(have);
	return 0;
}

/* slurmdbd's reason for a refusal: its return code, else errno. */
static const char *db_reason(int r)
{
	return slurm_strerror(r != SLURM_ERROR ? r : errno ? errno : r);
}

/* Whether `add budget` is refused before slurmdbd is asked: @parent is
 * not an account of the cluster, or an account already has a budget (said
 * on stderr).  The tree loaded. */
static bool add_refused(const struct sbu_ctx *c, const char *parent)
{
	const struct sbc_cmd *cmd = c->cmd;
	size_t k;

	if (!account_assoc(c, parent)) {
		sbu_error("parent '%s': no such account on cluster %s; see "
			  "'sbudget show budget' for the budgets (or add it "
			  "first)", parent, c->cluster);
		return true;
	}
	for (k = 0; k < cmd->naccounts; k++) {
		const slurmdb_assoc_rec_t *a = account_assoc(c,
							     cmd->accounts[k]);

		if (a) {
			sbu_error("account '%s' already has a budget on cluster "
				  "%s (under '%s'); change its share with "
				  "'sbudget modify budget where account=%s set "
				  "share=N'", cmd->accounts[k], c->cluster,
				  a->parent_acct ? a->parent_acct : "root",
				  cmd->accounts[k]);
			return true;
		}
	}
	return false;
}

int sbu_cmd_add_budget(struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	const char *parent = cmd->parent[0] ? cmd->parent : "root";
	slurmdb_account_rec_t accts[SBC_MAX_NAMES];
	slurmdb_assoc_rec_t assocs[SBC_MAX_NAMES];
	bool known[SBC_MAX_NAMES] = { false };
	List new_accts = NULL, old_assocs = NULL;
	List assoc_lists[SBC_MAX_NAMES] = { 0 };
	char share[32];
	size_t k;
	int rc = 1, r;

	if (sbu_load_tree(c) || add_refused(c, parent) ||
	    accounts_known(c, known))
		return 1;
	if (cmd->share == SB_SHARES_USE_PARENT)
		snprintf(share, sizeof(share), "parent");
	else
		snprintf(share, sizeof(share), "%u", cmd->share);

	/* Records on the stack, lists without destructors: libslurm packs
	 * them for slurmdbd and keeps nothing. */
	new_accts = slurm_list_create(NULL);
	old_assocs = slurm_list_create(NULL);
	for (k = 0; k < cmd->naccounts; k++) {
		slurmdb_init_assoc_rec(&assocs[k], 0);
		assocs[k].acct = (char *)cmd->accounts[k];
		assocs[k].cluster = c->cluster;
		assocs[k].parent_acct = (char *)parent;
		assocs[k].shares_raw = cmd->share;
		if (known[k]) {
			slurm_list_append(old_assocs, &assocs[k]);
			continue;
		}
		memset(&accts[k], 0, sizeof(accts[k]));
		assoc_lists[k] = slurm_list_create(NULL);
		slurm_list_append(assoc_lists[k], &assocs[k]);
		accts[k].name = (char *)cmd->accounts[k];
		/* sacctmgr's defaults: the description is the name, the
		 * organization the parent's name (the account's own under
		 * root). */
		accts[k].description = (char *)(cmd->description[0] ?
			cmd->description : cmd->accounts[k]);
		accts[k].organization = (char *)(cmd->organization[0] ?
			cmd->organization : strcmp(parent, "root") ?
			parent : cmd->accounts[k]);
		accts[k].assoc_list = assoc_lists[k];
		slurm_list_append(new_accts, &accts[k]);
	}

	errno = 0;
	r = slurm_list_count(new_accts) ?
		slurmdb_accounts_add(c->db, new_accts) : SLURM_SUCCESS;
	if (r == SLURM_SUCCESS && slurm_list_count(old_assocs)) {
		errno = 0;
		r = slurmdb_associations_add(c->db, old_assocs);
	}
	if (r != SLURM_SUCCESS) {
		sbu_error("add budget account=%s%s parent=%s refused by "
			  "slurmdbd: %s; nothing was added", cmd->accounts[0],
			  cmd->naccounts > 1 ? ",..." : "", parent,
			  db_reason(r));
		goto out;	/* rolled back when the connection closes */
	}
	if (!cmd->quiet) {
		printf(" Adding budget(s) under %s (share=%s)\n", parent,
		       share);
		for (k = 0; k < cmd->naccounts; k++)
			printf("  C = %-10s A = %s%s\n", c->cluster,
			       cmd->accounts[k], known[k] ?
			       " (account exists in slurmdbd: its description "
			       "and organization are kept)" : "");
	}
	if (cmd->immediate || confirm()) {
		errno = 0;
		if ((r = slurmdb_connection_commit(c->db, 1)) !=
		    SLURM_SUCCESS) {
			sbu_error("slurmdbd did not commit: %s", db_reason(r));
			goto out;
		}
		rc = 0;
	} else {
		slurmdb_connection_commit(c->db, 0);
		printf(" Changes Discarded\n");
	}
out:
	slurm_list_destroy(new_accts);
	slurm_list_destroy(old_assocs);
	for (k = 0; k < cmd->naccounts; k++)
		if (assoc_lists[k])
			slurm_list_destroy(assoc_lists[k]);
	return rc;
}
