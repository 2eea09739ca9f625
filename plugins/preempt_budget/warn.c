/*
 * warn.c - preempt/budget: the warning to an interactive job (salloc, srun
 * outside a batch job: never resumable, so a preemption loses the session)
 * InteractiveWarning before its protected slice ends.
 */
#include "preempt_internal.h"

/*
 * Tell the user of interactive @job_ptr (its salloc or srun prints the
 * message on its terminal, as for `scontrol notify`) that its protected
 * slice ends at @until.  Conf and job read locks held (as slurmctld's own
 * notify RPC: srun_user_message() only queues the message for its agent).
 */
void pe_warn_interactive(job_record_t *job_ptr, time_t until, time_t now)
{
	char when[32], *msg;
	struct tm tm;
	int rc;

	localtime_r(&until, &tm);
	strftime(when, sizeof(when), "%H:%M:%S", &tm);
	msg = xstrdup_printf("budget: job %u: its protected minimum runtime "
			     "ends at %s (in %ld s); from then on it may be "
			     "cancelled at any time for a job of a "
			     "better-placed budget, and an interactive job "
			     "cannot be requeued: save your work",
			     job_ptr->job_id, when, (long)(until - now));
	rc = srun_user_message(job_ptr, msg);
	if (rc == SLURM_SUCCESS)
		info("%s: warned %pJ (interactive) that its protected slice "
		     "ends at %s", plugin_type, job_ptr, when);
	else
		info("%s: cannot warn %pJ (interactive) that its protected "
		     "slice ends at %s: %s", plugin_type, job_ptr, when,
		     slurm_strerror(rc));
	xfree(msg);
}
