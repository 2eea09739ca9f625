/*
 * budget_conf.h - budget.conf for the controller plugins.
 *
 * budget.conf lives beside slurm.conf.  Its text is parsed by the policy
 * core (sb_config_parse: the grammar sbudget and sbudget-sim share, Slurm's
 * Key=Value rules; doc/design.md says why not parse_config), and it is read
 * again whenever slurmctld has re-read slurm.conf (`scontrol reconfigure`).
 */
#ifndef SB_BUDGET_CONF_H
#define SB_BUDGET_CONF_H

#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "sb/config.h"

/*
 * What reading budget.conf needs from slurmctld's configuration, copied:
 * slurm_conf's strings are freed and replaced by a reconfigure (in process
 * on 22.05), so they are read only under the slurmctld conf read lock.
 */
struct budget_conf_env {
	char *path;		/* budget.conf, beside slurm.conf */
	char *last_valid;	/* StateSaveLocation/budget.conf.last-valid;
				 * NULL outside slurmctld (clients such as
				 * sshare neither keep nor read it) */
	time_t conf_update;	/* slurm_conf.last_update */
};

/*
 * budget_conf_env_get - fill @env (xmalloc'ed strings; free with
 * budget_conf_env_free()).  Precondition: the caller holds the slurmctld
 * conf read lock (the submit and update RPCs do; a thread takes
 * slurmctld_lock_t { .conf = READ_LOCK } around this call alone), or is
 * init(), which slurmctld calls while no reconfigure can run, or runs
 * outside slurmctld.
 */
void budget_conf_env_get(struct budget_conf_env *env);
void budget_conf_env_free(struct budget_conf_env *env);

/*
 * budget_conf_load - read budget.conf into @cfg.
 * A missing file gives the defaults.  On any error the error is logged
 * naming the file, line, key and value; then, if @env has a last valid
 * copy (inside slurmctld), that copy is read instead and SLURM_SUCCESS
 * returned, so a restart with a bad file keeps the settings in force
 * (Slurm 24.11 restarts slurmctld on every `scontrol reconfigure`);
 * without one @cfg is left unchanged and SLURM_ERROR returned.
 * If @parsed is not NULL it is set to the exact text parsed (xmalloc'ed,
 * for budget_conf_keep()) when the settings came from budget.conf itself,
 * to NULL otherwise.  File I/O (one read): no lock needed.  @who prefixes
 * every log line ("job_submit/budget").
 */
int budget_conf_load(const struct budget_conf_env *env, struct sb_config *cfg,
		     char **parsed, const char *who);

/*
 * budget_conf_keep - keep @parsed (budget_conf_load()'s or
 * budget_conf_refresh()'s text, valid) as the last valid budget.conf in
 * @env->last_valid: exactly those bytes; an unchanged copy is not
 * rewritten; otherwise temp file, fsync, rename.  Errors are logged.
 * Does nothing outside slurmctld.  Precondition: no slurmctld lock and no
 * plugin mutex held (file I/O and fsync).  Called from one place only:
 * priority/budget's thread (preempt/budget's tick when PriorityType is not
 * priority/budget).
 */
void budget_conf_keep(const struct budget_conf_env *env, const char *parsed,
		      const char *who);

/*
 * What budget_conf_refresh() last saw: slurmctld's configuration time and
 * the file's identity, so that two reconfigures within one second (one
 * slurm_conf.last_update) still pick up an edit made between them.
 */
struct budget_conf_seen {
	time_t conf_update;	/* slurm_conf.last_update */
	struct timespec mtime;	/* budget.conf's, or 0 if missing */
	ino_t ino;
	off_t size;
};

/*
 * budget_conf_refresh - re-read budget.conf into @next (from the defaults)
 * if slurmctld re-read its own configuration (`scontrol reconfigure`)
 * since @seen, or the file changed and a reconfigure happened at or after
 * its change; @seen is updated.  @parsed as for budget_conf_load().
 * Return: 0 nothing to re-read (one stat(); @next untouched); 1 re-read:
 * apply @next; -1 re-read, but the file is bad and there is no valid copy:
 * keep the previous settings (logged).  The caller swaps @next in under
 * its own lock: no lock needs to be held across this file I/O.
 */
int budget_conf_refresh(const struct budget_conf_env *env,
			struct budget_conf_seen *seen, struct sb_config *next,
			char **parsed, const char *who);

/* budget_conf_mark - record the current state in @seen (after a load). */
void budget_conf_mark(const struct budget_conf_env *env,
		      struct budget_conf_seen *seen);

/*
 * budget_tres_pos - position of @charge_tres ("gres/gpu") in the TRES
 * arrays of jobs (tres_alloc_cnt); -1 if it is not an accounted TRES (not
 * in AccountingStorageTRES).  Takes the assoc_mgr TRES read lock: call with
 * no assoc_mgr lock held.
 */
int budget_tres_pos(const char *charge_tres);

#endif /* SB_BUDGET_CONF_H */
