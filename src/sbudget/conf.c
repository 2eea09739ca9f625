/*
 * conf.c - budget.conf for sbudget, read as slurmctld reads it
 * (plugins/common/budget_conf.c, budget_conf_load()): the plugins' file
 * reader (sb_config_file_read), the core's grammar (sb_config_parse), and on a
 * bad file the last valid copy priority/budget keeps in StateSaveLocation,
 * which holds the settings slurmctld goes on with.  No Slurm: the caller
 * names both files; unit-tested in test/unit/sbudget-test.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sb/config_file.h"
#include "sb/config.h"
#include "sb/error.h"

/*
 * Read and parse @path into @cfg (defaults first).  Return: 0 read; 1 no
 * such file (@cfg the defaults); -1 with @msg ("PATH: why" or "PATH line
 * N: ..."), @cfg the defaults.
 */
static int read_one(const char *path, struct sb_config *cfg, char *msg,
		    size_t msglen)
{
	char *text = NULL;
	size_t len = 0;
	int rc;

	sb_config_init(cfg);
	/* a regular text file of at most SB_CONFIG_MAX_BYTES, never waited
	 * on (FIFO, device): the plugins' reader */
	rc = sb_config_file_read(path, &text, &len, msg, msglen);
	if (rc != 0)
		return rc;
	rc = sb_config_parse(cfg, text, path, msg, msglen) == SB_OK ? 0 : -1;
	free(text);
	if (rc)
		sb_config_init(cfg);
	return rc;
}

enum sbc_conf_source sbc_budget_conf_read(const char *path,
					  const char *last_valid,
					  struct sb_config *cfg, char *warn,
					  size_t warnlen)
{
	char why[SBC_MSG_MAX * 2], lv_why[SBC_MSG_MAX * 2];
	int rc, lv_rc;

	if (warnlen)
		warn[0] = '\0';
	rc = read_one(path, cfg, why, sizeof(why));
	if (rc == 0)
		return SBC_CONF_FILE;
	if (rc == 1)
		return SBC_CONF_MISSING;
	/* slurmctld goes on with the last valid file (budget_conf_load) */
	if (last_valid) {
		lv_rc = read_one(last_valid, cfg, lv_why, sizeof(lv_why));
		if (lv_rc == 0) {
			snprintf(warn, warnlen, "%s; sbudget uses the last "
				 "valid budget.conf, %s, as slurmctld does "
				 "until the file is fixed", why, last_valid);
			return SBC_CONF_LAST_VALID;
		}
		if (lv_rc == 1)
			snprintf(lv_why, sizeof(lv_why), "%s does not exist "
				 "(slurmctld has not kept one yet)",
				 last_valid);
	} else {
		snprintf(lv_why, sizeof(lv_why), "slurmctld did not say where "
			 "it keeps it: no StateSaveLocation");
	}
	snprintf(warn, warnlen, "%s; sbudget cannot use the last valid "
		 "budget.conf slurmctld keeps (%s), so it uses the defaults: "
		 "its figures may differ from slurmctld's until the file is "
		 "fixed", why, lv_why);
	return SBC_CONF_DEFAULTS;
}
