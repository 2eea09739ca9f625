/*
 * conf-cases - write the shared budget.conf case table (test/unit/
 * conf-cases.h) as files for the readers outside the unit tests
 * (test/integration/t-conf.sh), with the core's verdict on each.
 *
 * Usage: conf-cases DIR
 *        conf-cases --read FILE...
 * The second form prints the core's verdict on each FILE, one line
 * "FILE<TAB>ok<TAB>DESCRIBE" or "FILE<TAB>refused<TAB>MESSAGE" (origin "b"),
 * as conf-slurm-probe prints Slurm's.  The first writes
 *   DIR/NAME.conf   the text of each case
 *   DIR/cases.tsv   NAME TAB ok|refused TAB same|accepts TAB RESULT, where
 *                   RESULT is sb_config_describe() of an accepted text, or
 *                   sb_config_parse()'s message of a refused one without
 *                   its origin (" line N: ..." or ": ..." for cross-key
 *                   checks), as every reader's message must end.
 * The core's verdict is not re-checked here (config-test does that against
 * the table); a case whose expectation the core does not meet exits 1 all
 * the same, so that t-conf.sh never compares readers against a broken core.
 * Exit: 0, 1 on a core/table mismatch, 2 on a usage or I/O error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/config.h"
#include "sb/error.h"

#include "../unit/conf-cases.h"

static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	size_t n = strlen(text);

	if (!f || fwrite(text, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "conf-cases: cannot write %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The whole of @path as a malloc'd string (it ends at a NUL byte). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, *t;
	size_t len = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 8192;
			if (!(t = realloc(text, cap))) {
				free(text);
				fclose(f);
				return NULL;
			}
			text = t;
		}
		r = fread(text + len, 1, 4096, f);
		len += r;
	} while (r > 0);
	fclose(f);
	text[len] = '\0';
	return text;
}

static int read_files(int n, char **files)
{
	char msg[1024], desc[1024];
	int i;

	for (i = 0; i < n; i++) {
		struct sb_config cfg;
		char *text = slurp(files[i]);

		if (!text) {
			fprintf(stderr, "conf-cases: cannot read %s: %s\n",
				files[i], strerror(errno));
			return 2;
		}
		sb_config_init(&cfg);
		if (sb_config_parse(&cfg, text, "b", msg, sizeof(msg)) == SB_OK)
			printf("%s\tok\t%s\n", files[i],
			       sb_config_describe(&cfg, desc, sizeof(desc)));
		else
			printf("%s\trefused\t%s\n", files[i], msg);
		free(text);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char path[4096], msg[1024], desc[1024];
	const char *origin = "budget.conf";
	FILE *tsv;
	size_t i;
	int rc = 0;

	if (argc >= 2 && !strcmp(argv[1], "--read"))
		return read_files(argc - 2, argv + 2);
	if (argc != 2) {
		fprintf(stderr, "usage: conf-cases DIR | conf-cases --read "
			"FILE...\n");
		return 2;
	}
	snprintf(path, sizeof(path), "%s/cases.tsv", argv[1]);
	if (!(tsv = fopen(path, "w"))) {
		fprintf(stderr, "conf-cases: cannot write %s: %s\n", path,
			strerror(errno));
		return 2;
	}
	for (i = 0; i < CONF_NCASES; i++) {
		const struct conf_case *c = &conf_cases[i];
		char *text = conf_case_text(c);
		struct sb_config cfg;
		int ok;

		if (!text) {
			fprintf(stderr, "conf-cases: out of memory\n");
			return 2;
		}
		snprintf(path, sizeof(path), "%s/%s.conf", argv[1], c->name);
		if (write_file(path, text)) {
			free(text);
			return 2;
		}
		sb_config_init(&cfg);
		ok = sb_config_parse(&cfg, text, origin, msg, sizeof(msg)) ==
		     SB_OK;
		free(text);
		if (ok != c->ok) {
			fprintf(stderr, "conf-cases: %s: the core %s it, the "
				"table says %s: run config-test\n", c->name,
				ok ? "accepts" : "refuses",
				c->ok ? "accepted" : "refused");
			rc = 1;
		}
		fprintf(tsv, "%s\t%s\t%s\t%s\n", c->name,
			ok ? "ok" : "refused",
			c->slurm == SAME ? "same" : "accepts",
			ok ? sb_config_describe(&cfg, desc, sizeof(desc)) :
			msg + strlen(origin));
	}
	if (fclose(tsv)) {
		fprintf(stderr, "conf-cases: cannot write cases.tsv\n");
		return 2;
	}
	return rc;
}
