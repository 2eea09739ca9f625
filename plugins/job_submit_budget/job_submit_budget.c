/*
 * job_submit_budget.c - job_submit/budget: enforce the scheduling contract.
 *
 * Every job declares a minimum runtime (sbatch --min-runtime, from
 * spank_budget) and whether it is resumable.  At submit this plugin:
 *   - refuses a missing (unless budget.conf sets DefaultMinRuntime),
 *     malformed, negative or above-MaxMinRuntime minimum runtime, and a
 *     minimum runtime > 0 on an association without budget, each with a
 *     message that names the value and says what to do;
 *   - stores the accepted contract as a tag at the start of the job's
 *     AdminComment ("budget:min_runtime=3600,resumable=yes,allocated=yes"),
 *     which only administrators can change and which slurmdbd records, so
 *     it shows in `scontrol show job` and `sacct -o AdminComment`;
 *   - maps resumable onto Slurm's requeue flag.
 * At modify it refuses a non-administrator's change of the requeue flag
 * (Slurm itself already refuses their change of AdminComment).
 */
#include <stdio.h>
#include <string.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_conf.h"
#include "sb/contract.h"
#include "sb/error.h"

const char plugin_name[] = "Budget contract job_submit plugin";
const char plugin_type[] = "job_submit/budget";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define ENV_MIN_RUNTIME "SB_MIN_RUNTIME"
#define ENV_RESUMABLE "SB_RESUMABLE"
#define MAX_DEPTH 64	/* association tree depth we walk */

/* Serialised by job_submit.c's g_context_lock: no lock of our own. */
static struct sb_config cfg;
static time_t cfg_seen;

extern int init(void)
{
	if (budget_conf_load(&cfg, plugin_type) != SLURM_SUCCESS)
		return SLURM_ERROR;
	cfg_seen = slurm_conf.last_update;
	return SLURM_SUCCESS;
}

extern int fini(void)
{
	return SLURM_SUCCESS;
}

/* The value of NAME in the job control environment, or NULL. */
static const char *spank_env_get(const job_desc_msg_t *job_desc,
				 const char *name)
{
	size_t len = strlen(name);
	uint32_t i;

	for (i = 0; i < job_desc->spank_job_env_size; i++) {
		const char *e = job_desc->spank_job_env[i];

		if (e && !strncmp(e, name, len) && e[len] == '=')
			return e + len + 1;
	}
	return NULL;
}

/*
 * Whether the job's association (account given or the user's default) has a
 * budget on its whole path to the root.  Takes the assoc_mgr read lock for
 * the walk only.
 */
static bool job_has_budget(const job_desc_msg_t *job_desc, char *acct_out,
			   size_t acct_len)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .user = READ_LOCK };
	slurmdb_assoc_rec_t req, *assoc = NULL, *a;
	uint32_t shares[MAX_DEPTH];
	size_t n = 0;

	memset(&req, 0, sizeof(req));
	req.uid = job_desc->user_id;
	req.acct = job_desc->account;
	/* A list of partitions has no single association; use the user's. */
	if (job_desc->partition && !strchr(job_desc->partition, ','))
		req.partition = job_desc->partition;

	snprintf(acct_out, acct_len, "%s",
		 job_desc->account ? job_desc->account : "(default)");
	assoc_mgr_lock(&locks);
	if (assoc_mgr_fill_in_assoc(acct_db_conn, &req, accounting_enforce,
				    &assoc, true) == SLURM_SUCCESS && assoc) {
		snprintf(acct_out, acct_len, "%s", assoc->acct);
		for (a = assoc; a && a != assoc_mgr_root_assoc && n < MAX_DEPTH;
		     a = a->usage ? a->usage->parent_assoc_ptr : NULL)
			shares[n++] = a->shares_raw;
	}
	assoc_mgr_unlock(&locks);
	return sb_path_has_budget(shares, n);
}

extern int job_submit(job_desc_msg_t *job_desc, uint32_t submit_uid,
		      char **err_msg)
{
	struct sb_contract_request req;
	struct sb_contract c;
	char msg[512], tag[128], acct[128];
	int rc;

	budget_conf_refresh(&cfg, &cfg_seen, plugin_type);

	req.min_runtime = spank_env_get(job_desc, ENV_MIN_RUNTIME);
	req.resumable = spank_env_get(job_desc, ENV_RESUMABLE);
	req.has_budget = job_has_budget(job_desc, acct, sizeof(acct));

	rc = sb_contract_check(&cfg.contract, &req, &c, msg, sizeof(msg));
	if (rc != SB_OK) {
		info("%s: refused job of uid %u (submitted by %u), account %s: %s",
		     plugin_type, job_desc->user_id, submit_uid, acct, msg);
		if (err_msg)
			*err_msg = xstrdup_printf("budget: %s", msg);
		return (rc == SB_ENOBUDGET) ? ESLURM_INVALID_ACCOUNT : SLURM_ERROR;
	}

	sb_contract_format(&c, tag, sizeof(tag));
	if (job_desc->admin_comment && job_desc->admin_comment[0]) {
		/* An administrator's own comment follows our tag. */
		char *both = xstrdup_printf("%s %s", tag, job_desc->admin_comment);

		xfree(job_desc->admin_comment);
		job_desc->admin_comment = both;
	} else {
		xfree(job_desc->admin_comment);
		job_desc->admin_comment = xstrdup(tag);
	}
	job_desc->requeue = c.resumable ? 1 : 0;
	debug("%s: uid %u account %s: %s", plugin_type, job_desc->user_id,
	      acct, tag);
	return SLURM_SUCCESS;
}

extern int job_modify(job_desc_msg_t *job_desc, job_record_t *job_ptr,
		      uint32_t submit_uid)
{
	struct sb_contract c;
	bool is_admin = validate_super_user(submit_uid);

	budget_conf_refresh(&cfg, &cfg_seen, plugin_type);

	if (job_desc->admin_comment && is_admin &&
	    !strncmp(job_desc->admin_comment, "budget:", 7) &&
	    sb_contract_parse_tag(job_desc->admin_comment, &c) != SB_OK) {
		error("%s: uid %u: refused AdminComment '%s' for %pJ: a "
		      "contract tag must read budget:min_runtime=SECONDS,"
		      "resumable=yes|no,allocated=yes|no", plugin_type,
		      submit_uid, job_desc->admin_comment, job_ptr);
		return SLURM_ERROR;
	}

	if (job_desc->requeue != NO_VAL16 && !is_admin && job_ptr->details &&
	    job_desc->requeue != job_ptr->details->requeue) {
		info("%s: uid %u may not change Requeue of %pJ from %u to %u: "
		     "resumable is part of the job's contract, fixed at submit; "
		     "resubmit with%s --resumable", plugin_type, submit_uid,
		     job_ptr, job_ptr->details->requeue, job_desc->requeue,
		     job_desc->requeue ? "" : "out");
		return ESLURM_ACCESS_DENIED;
	}
	return SLURM_SUCCESS;
}
