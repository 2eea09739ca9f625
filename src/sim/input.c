/*
 * input.c - budget.conf for sbudget-sim (sim_config_parse(),
 * sim_config_load()).  The other readers are in their own files (input.h
 * lists them); the text helpers below are text.c's, under the names this
 * file has always used.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sb/config.h"
#include "sb/error.h"
#include "input.h"

/* The helpers sim_config_parse() uses (marked unused so that a body that
 * needs fewer of them still builds with -Werror). */
static void fail(char *msg, size_t msglen, const char *name, size_t line,
		 const char *fmt, ...)
	__attribute__((format(printf, 5, 6), unused));

static void fail(char *msg, size_t msglen, const char *name, size_t line,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim__vfail(msg, msglen, name, line, fmt, ap);
	va_end(ap);
}

static __attribute__((unused)) char *next_line(char **cur)
{
	return sim__next_line(cur);
}

static __attribute__((unused)) char *trim(char *s)
{
	return sim__trim(s);
}

/* ---------------------------------------------------------- budget.conf */

int sim_config_parse(const char *name, const char *text, struct sb_config *cfg,
		     char *msg, size_t msglen)
{
	char *copy = strdup(text), *cur, *s;
	char why[SIM_MSG];
	size_t line = 0;
	int rc = -1;

	if (!copy) {
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	cur = copy;
	while ((s = next_line(&cur))) {
		char *hash, *eq, *key, *val;

		line++;
		if ((hash = strchr(s, '#')))
			*hash = '\0';
		s = trim(s);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			fail(msg, msglen, name, line,
			     "'%s': expected Key=Value", s);
			goto out;
		}
		*eq = '\0';
		key = trim(s);
		val = trim(eq + 1);
		if (sb_config_set(cfg, key, val, why, sizeof(why)) != SB_OK) {
			fail(msg, msglen, name, line, "%s", why);
			goto out;
		}
	}
	if (sb_config_check(cfg, why, sizeof(why)) != SB_OK) {
		fail(msg, msglen, name, 0, "%s", why);
		goto out;
	}
	rc = 0;
out:
	free(copy);
	return rc;
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
