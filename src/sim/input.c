/*
 * input.c - budget.conf for sbudget-sim (sim_config_parse(),
 * sim_config_load()): the core's grammar, sb_config_parse(), as the plugins
 * and sbudget read it.  The other readers are in their own files (input.h
 * lists them).
 */
#include <stdlib.h>

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
	char *text = sim_slurp(file, msg, msglen);
	int rc;

	if (!text)
		return -1;
	rc = sim_config_parse(file, text, cfg, msg, msglen);
	free(text);
	return rc;
}
