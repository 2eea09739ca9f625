/*
 * modify.c - `sbudget modify budget where account=A [user=U] set share=N`:
 * RawShares through slurmdbd, as sacctmgr modifies them (slurmdbd checks
 * who may: administrators anywhere, coordinators in their sub-tree), asking
 * for confirmation unless -i.  See sbudget(1), "modify budget".
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

