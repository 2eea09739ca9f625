/* budget_conf.c - read budget.conf with Slurm's parse_config. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"

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

	memset(opts, 0, sizeof(opts));
	for (i = 0; sb_config_keys[i]; i++) {
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

void budget_conf_refresh(struct sb_config *cfg, time_t *seen, const char *who)
{
	if (*seen == slurm_conf.last_update)
		return;
	*seen = slurm_conf.last_update;
	if (budget_conf_load(cfg, who) != SLURM_SUCCESS)
		error("%s: keeping the previous settings until budget.conf is "
		      "fixed", who);
}
