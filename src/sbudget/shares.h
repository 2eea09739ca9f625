/*
 * src/sbudget/shares.h - what sshare shows, through the same libslurm call
 * sshare makes (REQUEST_SHARE_INFO to slurmctld).  Slurm 22.05 has no public
 * wrapper for it, so shares.c alone uses Slurm's internal protocol headers
 * (from the configured source tree of the installed release, as the
 * controller plugins do); everything else in sbudget uses the public API.
 */
#ifndef SBUDGET_SHARES_H
#define SBUDGET_SHARES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One association as priority/budget published it (see pr_publish_assocs(),
 * plugins/priority_budget/publish.c). */
struct sbs_share {
	uint32_t assoc_id;
	char *account;		/* the association's account */
	char *user;		/* NULL for an account association */
	uint32_t shares_raw;	/* RawShares */
	double shares_norm;	/* fraction of the parent's */
	uint64_t usage_raw;	/* RawUsage: charged TRES-seconds in the
				 * window, whole subtree */
	double usage_norm;	/* share of the cluster's charged usage */
	double fs_factor;	/* the standing factor, 1 = best */
	double level_fs;	/* LF = S/U among siblings; DBL_MAX = idle */
};

/*
 * sbs_get_shares - every association's figures.  Return 0 and an array the
 * caller frees with sbs_free_shares(); -1 with errno set (a Slurm error code
 * for slurm_strerror()) when slurmctld cannot be asked.
 */
int sbs_get_shares(struct sbs_share **out, size_t *n);
void sbs_free_shares(struct sbs_share *s, size_t n);

/* Slurm's names of a job state and a pending reason (libslurm exports
 * them; their declarations are in the internal headers). */
const char *sbs_job_state(uint32_t state);
const char *sbs_job_reason(uint32_t reason);

#endif /* SBUDGET_SHARES_H */
