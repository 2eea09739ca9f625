/*
 * spank_budget.c - the researcher's side of the scheduling contract.
 *
 * Adds to sbatch, salloc and srun (also as #SBATCH lines):
 *   --min-runtime=TIME  the protected, charged slice (Slurm time syntax as
 *                       for --time; 0 = run unallocated, preemptible)
 *   --resumable         the job checkpoints: on preemption it resumes, not restarts
 *
 * The values are checked here for syntax, so a typo fails at once, and passed
 * to the controller in the job control environment (SB_MIN_RUNTIME,
 * SB_RESUMABLE) where job_submit/budget checks them against the site policy
 * and the job's budget.  This plugin is a convenience, not the authority:
 * the controller re-checks everything.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/spank.h>

#include "sb/duration.h"
#include "sb/error.h"

SPANK_PLUGIN(budget, 1);

#define ENV_MIN_RUNTIME "SB_MIN_RUNTIME"
#define ENV_RESUMABLE "SB_RESUMABLE"

/* What the user asked for; set by the option callbacks. */
static struct {
	char min_runtime[64];
	int has_min_runtime;
	int resumable;
} opt;

static int opt_min_runtime(int val, const char *optarg, int remote);
static int opt_resumable(int val, const char *optarg, int remote);

static struct spank_option options[] = {
	{ "min-runtime", "TIME",
	  "Minimum runtime: the protected slice charged to your budget; the "
	  "job may keep running after it while its budget outranks the queue. "
	  "Slurm time syntax as for --time (e.g. 30, 1:30:00, 0-4); at most the "
	  "site maximum (MaxMinRuntime, default 8:00:00). 0 runs the job "
	  "unallocated: free, but preemptible at any time.",
	  1, 0, opt_min_runtime },
	{ "resumable", NULL,
	  "The job can be stopped and resumed (it checkpoints): on preemption "
	  "it gets the grace time to checkpoint and is requeued (same job id, "
	  "same place in the queue) to resume its work. Without it a batch "
	  "job is requeued and restarts from its beginning (cancelled with "
	  "--no-requeue). Batch jobs only (sbatch): an interactive allocation "
	  "cannot be requeued.",
	  0, 0, opt_resumable },
	SPANK_OPTIONS_TABLE_END
};

static int opt_min_runtime(int val, const char *optarg, int remote)
{
	char q[256];
	int64_t secs;
	int rc;

	(void)val;
	if (remote)
		return 0;
	if ((rc = sb_duration_parse(optarg, &secs))) {
		slurm_error("budget: --min-runtime '%s': %s; use Slurm time "
			    "syntax as for --time (M, M:S, H:M:S, D-H, D-H:M, "
			    "D-H:M:S; fields after the first below 60, hours "
			    "after D- below 24: 1:30, not 0:90), e.g. "
			    "--min-runtime=1:00:00, or 0 to run unallocated",
			    sb_quote(optarg, q, sizeof(q)),
			    sb_strerror(rc));
		return -1;
	}
	/* A parsed value has at most 4 fields of 9 digits: it fits. */
	snprintf(opt.min_runtime, sizeof(opt.min_runtime), "%s", optarg);
	opt.has_min_runtime = 1;
	return 0;
}

static int opt_resumable(int val, const char *optarg, int remote)
{
	(void)val;
	(void)optarg;
	if (!remote)
		opt.resumable = 1;
	return 0;
}

/*
 * Slurm hands every SPANK option to the job's environment as
 * SLURM_SPANK__SLURM_SPANK_OPTION_<plugin>_<option> (for the remote side),
 * and sbatch, salloc and srun read that variable back as the option
 * (spank_process_env_options, after slurm_spank_init).  So a job submitted
 * from inside a job would silently take the outer job's contract; each
 * submission states its own.  Inside a job or allocation (SLURM_JOB_ID
 * set) the inherited variables are dropped from this client's environment
 * before the options are read.
 */
static void drop_inherited_options(void)
{
	static const char *const vars[] = {
		"SLURM_SPANK__SLURM_SPANK_OPTION_budget_min_runtime",
		"SLURM_SPANK__SLURM_SPANK_OPTION_budget_resumable",
	};
	size_t k;

	if (!getenv("SLURM_JOB_ID"))
		return;
	for (k = 0; k < sizeof(vars) / sizeof(vars[0]); k++)
		unsetenv(vars[k]);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	struct spank_option *o;

	(void)ac;
	(void)av;
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
		return 0;
	if (ctx != S_CTX_REMOTE)
		drop_inherited_options();
	for (o = options; o->name; o++) {
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("budget: cannot register option --%s",
				    o->name);
			return -1;
		}
	}
	return 0;
}

/* After option parsing, in sbatch/salloc/srun: hand the contract over. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	spank_context_t ctx = spank_context();
	spank_err_t err;

	(void)ac;
	(void)av;
	if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
		return 0;
	if (opt.has_min_runtime) {
		err = spank_job_control_setenv(sp, ENV_MIN_RUNTIME,
					       opt.min_runtime, 1);
		if (err != ESPANK_SUCCESS) {
			slurm_error("budget: cannot pass --min-runtime to the "
				    "controller: %s", spank_strerror(err));
			return -1;
		}
	}
	if (opt.resumable) {
		err = spank_job_control_setenv(sp, ENV_RESUMABLE, "yes", 1);
		if (err != ESPANK_SUCCESS) {
			slurm_error("budget: cannot pass --resumable to the "
				    "controller: %s", spank_strerror(err));
			return -1;
		}
	}
	return 0;
}
