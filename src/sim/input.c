/*
 * input.c - budget.conf for sbudget-sim (sim_config_parse(),
 * sim_config_load()): the core's grammar, sb_config_parse(), and the file
 * read by sb_config_file_read(), as the plugins and sbudget read it.  The other
 * readers are in their own files (input.h lists them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sb/config_file.h"
#include "sb/config.h"
#include "sb/error.h"
#include "input.h"

/* ---------------------------------------------------------- budget.conf */

int sim_config_parse(const char *name, const char *text, struct sb_config *cfg,
		     char *msg, size_t msglen)
{
	/* the one grammar of budget.conf, shared with the plugins and sbudget */
	return sb_config_parse(cfg, text, name, msg, msglen) == SB_OK ? 0 : -1;
}

int sim_config_load(const char *file, struct sb_config *cfg, char *msg,
		    size_t msglen)
{
	char *text = NULL;
	size_t len;
	int rc;

	/* the plugins' and sbudget's reader: a regular text file of at most
	 * SB_CONFIG_MAX_BYTES, never waited on */
	rc = sb_config_file_read(file, &text, &len, msg, msglen);
	if (rc == 1)
		sim__fail(msg, msglen, file, 0, "cannot open: %s",
			  strerror(ENOENT));
	if (rc)
		return -1;
	rc = sim_config_parse(file, text, cfg, msg, msglen);
	free(text);
	return rc;
}
