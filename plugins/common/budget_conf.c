/* budget_conf.c - read budget.conf with Slurm's parse_config. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "budget_conf.h"

int budget_conf_load(struct sb_config *cfg, const char *who)
{
	s_p_options_t opts[16];
	s_p_hashtbl_t *tbl = NULL;
	struct sb_config next;
	char *path = get_extra_conf_path("budget.conf");
	char msg[512], desc[256];
	struct stat st;
	int i, rc = SLURM_ERROR;

	sb_config_init(&next);
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			error("%s: cannot read %s: %m", who, path);
			goto out;
		}
		info("%s: %s not found, using defaults: %s", who, path,
		     sb_config_describe(&next, desc, sizeof(desc)));
		*cfg = next;
		rc = SLURM_SUCCESS;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error("%s: %s is not a regular file: make it one (see "
		      "budget.conf(5)) or remove it to use the defaults", who,
		      path);
		goto out;
	}

	memset(opts, 0, sizeof(opts));
	/* the last entry stays zero: the table's terminator */
	for (i = 0; sb_config_keys[i] && i < (int)(sizeof(opts) / sizeof(opts[0])) - 1;
	     i++) {
		opts[i].key = (char *)sb_config_keys[i];
		opts[i].type = S_P_STRING;
	}
	tbl = s_p_hashtbl_create(opts);
	if (s_p_parse_file(tbl, NULL, path, false, NULL) != SLURM_SUCCESS) {
		error("%s: %s is not valid (see the parse error above; accepted "
		      "keys are listed in budget.conf(5))", who, path);
		goto out;
	}
	for (i = 0; sb_config_keys[i]; i++) {
		char *val = NULL;

		if (!s_p_get_string(&val, sb_config_keys[i], tbl))
			continue;
		if (sb_config_set(&next, sb_config_keys[i], val, msg,
				  sizeof(msg)) != 0) {
			error("%s: %s: %s", who, path, msg);
			xfree(val);
			goto out;
		}
		xfree(val);
	}
	if (sb_config_check(&next, msg, sizeof(msg)) != 0) {
		error("%s: %s: %s", who, path, msg);
		goto out;
	}
	*cfg = next;
	info("%s: read %s: %s", who, path,
	     sb_config_describe(cfg, desc, sizeof(desc)));
	rc = SLURM_SUCCESS;
out:
	if (tbl)
		s_p_hashtbl_destroy(tbl);
	xfree(path);
	return rc;
}

/* The file's identity now; zeroes when it is missing. */
static void file_state(struct budget_conf_seen *now)
{
	char *path = get_extra_conf_path("budget.conf");
	struct stat st;

	memset(now, 0, sizeof(*now));
	now->conf_update = slurm_conf.last_update;
	if (stat(path, &st) == 0) {
		now->mtime = st.st_mtim;
		now->ino = st.st_ino;
		now->size = st.st_size;
	}
	xfree(path);
}

void budget_conf_mark(struct budget_conf_seen *seen)
{
	file_state(seen);
}

void budget_conf_refresh(struct sb_config *cfg, struct budget_conf_seen *seen,
			 const char *who)
{
	struct budget_conf_seen now;
	bool file_changed;

	file_state(&now);
	file_changed = now.mtime.tv_sec != seen->mtime.tv_sec ||
		       now.mtime.tv_nsec != seen->mtime.tv_nsec ||
		       now.ino != seen->ino || now.size != seen->size;
	/* Re-read on a reconfigure; or on an edit followed (in the same
	 * second) by a reconfigure we could not tell from the previous one. */
	if (now.conf_update == seen->conf_update &&
	    !(file_changed && now.conf_update >= now.mtime.tv_sec))
		return;
	*seen = now;
	if (budget_conf_load(cfg, who) != SLURM_SUCCESS)
		error("%s: keeping the previous settings until budget.conf is "
		      "fixed", who);
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
