/* budget_conf.c - read budget.conf through the policy core's grammar. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "budget_conf.h"
#include "sb/config_file.h"

/* What was read: info in slurmctld, debug in clients (sshare and sprio load
 * priority/budget; 24.11's sshare shows info lines on its stderr). */
#define log_read(...)                          \
	do {                                    \
		if (running_in_slurmctld())     \
			info(__VA_ARGS__);      \
		else                            \
			debug(__VA_ARGS__);     \
	} while (0)

/*
 * Read budget.conf at @path into @cfg (the same contract as
 * budget_conf_load()); *@missing tells whether there was no file.  On
 * success with a file, *@parsed (if not NULL) is the exact text parsed
 * (xmalloc'ed): the bytes to keep as the last valid copy.
 */
static int load_from(const char *path, struct sb_config *cfg, const char *who,
		     bool *missing, char **parsed)
{
	struct sb_config next;
	char *text = NULL;
	char msg[1024], desc[1024];
	size_t len = 0;
	int rc = SLURM_ERROR;

	sb_config_init(&next);
	switch (sb_config_file_read(path, &text, &len, msg, sizeof(msg))) {
	case 1:
		log_read("%s: %s not found, using defaults: %s", who, path,
			 sb_config_describe(&next, desc, sizeof(desc)));
		*missing = true;
		*cfg = next;
		return SLURM_SUCCESS;
	case 0:
		break;
	default:
		error("%s: %s", who, msg);
		return SLURM_ERROR;
	}
	/* the grammar, each value and the cross-key checks: the core's, as
	 * in sbudget and sbudget-sim */
	if (sb_config_parse(&next, text, path, msg, sizeof(msg)) != 0) {
		error("%s: %s", who, msg);
		goto out;
	}
	*cfg = next;
	log_read("%s: read %s: %s", who, path,
		 sb_config_describe(cfg, desc, sizeof(desc)));
	if (parsed) {
		*parsed = xmalloc(len + 1);
		memcpy(*parsed, text, len + 1);
	}
	rc = SLURM_SUCCESS;
out:
	free(text);
	return rc;
}

void budget_conf_env_get(struct budget_conf_env *env)
{
	env->path = get_extra_conf_path("budget.conf");
	env->last_valid = running_in_slurmctld() ?
		xstrdup_printf("%s/budget.conf.last-valid",
			       slurm_conf.state_save_location) : NULL;
	env->conf_update = slurm_conf.last_update;
}

void budget_conf_env_free(struct budget_conf_env *env)
{
	xfree(env->path);
	xfree(env->last_valid);
}

void budget_conf_keep(const struct budget_conf_env *env, const char *parsed,
		      const char *who)
{
	const char *tag = strchr(who, '/') ? strchr(who, '/') + 1 : who;
	char msg[1024];
	struct stat st;
	mode_t mode = 0600;

	if (!env->last_valid || !parsed)
		return;
	/* whoever may read budget.conf may read its copy: sbudget, run by
	 * any user, reads it when budget.conf is bad (at most 0644) */
	if (stat(env->path, &st) == 0)
		mode = (st.st_mode & 0644) | 0600;
	if (sb_config_file_keep(env->last_valid, parsed, strlen(parsed), tag, mode,
			   msg, sizeof(msg)) < 0)
		error("%s: cannot keep a copy of the valid budget.conf: %s",
		      who, msg);
}

int budget_conf_load(const struct budget_conf_env *env, struct sb_config *cfg,
		     char **parsed, const char *who)
{
	bool missing = false, dummy = false;
	int rc;

	if (parsed)
		*parsed = NULL;
	rc = load_from(env->path, cfg, who, &missing, parsed);
	/* A restart (on Slurm 24.11 every `scontrol reconfigure` is one) must
	 * not fall back to the defaults: the last valid file holds the
	 * settings in force before the bad edit. */
	if (rc != SLURM_SUCCESS && env->last_valid &&
	    access(env->last_valid, R_OK) == 0 &&
	    load_from(env->last_valid, cfg, who, &dummy, NULL) ==
	    SLURM_SUCCESS) {
		error("%s: %s is not valid: keeping the previous settings, "
		      "from the last valid budget.conf kept in %s, until it "
		      "is fixed", who, env->path, env->last_valid);
		rc = SLURM_SUCCESS;
	}
	return rc;
}

/* The file's identity now; zeroes when it is missing. */
static void file_state(const struct budget_conf_env *env,
		       struct budget_conf_seen *now)
{
	struct stat st;

	memset(now, 0, sizeof(*now));
	now->conf_update = env->conf_update;
	if (stat(env->path, &st) == 0) {
		now->mtime = st.st_mtim;
		now->ino = st.st_ino;
		now->size = st.st_size;
	}
}

void budget_conf_mark(const struct budget_conf_env *env,
		      struct budget_conf_seen *seen)
{
	file_state(env, seen);
}

int budget_conf_refresh(const struct budget_conf_env *env,
			struct budget_conf_seen *seen, struct sb_config *next,
			char **parsed, const char *who)
{
	struct budget_conf_seen now;
	bool file_changed;

	if (parsed)
		*parsed = NULL;
	file_state(env, &now);
	file_changed = now.mtime.tv_sec != seen->mtime.tv_sec ||
		       now.mtime.tv_nsec != seen->mtime.tv_nsec ||
		       now.ino != seen->ino || now.size != seen->size;
	/* Re-read on a reconfigure; or on an edit followed (in the same
	 * second) by a reconfigure we could not tell from the previous one. */
	if (now.conf_update == seen->conf_update &&
	    !(file_changed && now.conf_update >= now.mtime.tv_sec))
		return 0;
	*seen = now;
	sb_config_init(next);
	if (budget_conf_load(env, next, parsed, who) != SLURM_SUCCESS) {
		error("%s: keeping the previous settings until budget.conf is "
		      "fixed", who);
		return -1;
	}
	return 1;
}

int budget_tres_pos(const char *charge_tres)
{
	slurmdb_tres_rec_t rec;
	char *type, *slash;
	int pos;

	memset(&rec, 0, sizeof(rec));
	type = xstrdup(charge_tres);
	if ((slash = strchr(type, '/'))) {
		*slash = '\0';
		rec.name = slash + 1;
	}
	rec.type = type;
	pos = assoc_mgr_find_tres_pos(&rec, false);
	xfree(type);
	return pos;
}
