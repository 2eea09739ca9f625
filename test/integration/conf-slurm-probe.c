/*
 * conf-slurm-probe - how Slurm's own parse_config reads a budget.conf:
 * s_p_parse_file() with every key S_P_STRING and no ignore flag, then
 * sb_config_set() per key found and sb_config_check().  The budget.conf
 * cross-reader test (t-conf.sh) compares it with the core's grammar; the
 * table (test/unit/conf-cases.h) lists where they differ on purpose.
 *
 * Usage: conf-slurm-probe FILE...
 * Prints per FILE one line: "FILE<TAB>ok<TAB>DESCRIBE" or
 * "FILE<TAB>refused<TAB>WHY" (WHY: parse_config's own error, logged on
 * stderr, or sb_config_set/check's message).  Exit 0, or 2 on bad usage.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "src/common/log.h"
#include "src/common/parse_config.h"
#include "src/common/xmalloc.h"

#include "sb/config.h"

static void probe(const char *file)
{
	s_p_options_t opts[32];
	s_p_hashtbl_t *tbl;
	struct sb_config cfg;
	char msg[1024], desc[1024];
	int i;

	memset(opts, 0, sizeof(opts));
	for (i = 0; sb_config_keys[i] && i < 31; i++) {
		opts[i].key = (char *)sb_config_keys[i];
		opts[i].type = S_P_STRING;
	}
	sb_config_init(&cfg);
	tbl = s_p_hashtbl_create(opts);
	if (s_p_parse_file(tbl, NULL, (char *)file, false, NULL) !=
	    SLURM_SUCCESS) {
		printf("%s\trefused\tparse_config (see its error)\n", file);
		goto out;
	}
	for (i = 0; sb_config_keys[i]; i++) {
		char *val = NULL;

		if (!s_p_get_string(&val, sb_config_keys[i], tbl))
			continue;
		if (sb_config_set(&cfg, sb_config_keys[i], val, msg,
				  sizeof(msg))) {
			printf("%s\trefused\t%s\n", file, msg);
			xfree(val);
			goto out;
		}
		xfree(val);
	}
	if (sb_config_check(&cfg, msg, sizeof(msg))) {
		printf("%s\trefused\t%s\n", file, msg);
		goto out;
	}
	printf("%s\tok\t%s\n", file, sb_config_describe(&cfg, desc,
							 sizeof(desc)));
out:
	s_p_hashtbl_destroy(tbl);
}

int main(int argc, char **argv)
{
	log_options_t lo = LOG_OPTS_STDERR_ONLY;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: conf-slurm-probe FILE...\n");
		return 2;
	}
	log_init("conf-slurm-probe", lo, 0, NULL);
	for (i = 1; i < argc; i++)
		probe(argv[i]);
	fflush(stdout);
	log_fini();
	return 0;
}
