/* fuzz-sbudget-args.c - sbudget's command grammar (sbc_parse_args: options,
 * show/modify/report clauses, where/set, format=, window=, start=/end=
 * and the span they mean: sbc_span) and the
 * SystemComment note it reads back (sb_stop_note_parse): never a
 * crash.  The input is split into argv words at newlines. */
#include "fuzz.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), *argv[64], msg[512], *p;
	struct sb_stop_note note;
	struct sbc_cmd cmd;
	int64_t from, to;
	int argc = 0;

	(void)sb_stop_note_parse(s, &note);
	argv[argc++] = "sbudget";
	for (p = s; argc < 63;) {
		char *nl = strchr(p, '\n');

		argv[argc++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	argv[argc] = NULL;
	if (sbc_parse_args(argc, argv, &cmd, msg, sizeof(msg)) == 0)
		(void)sbc_span(&cmd, INT64_C(1800000000), 86400, &from, &to,
			       msg, sizeof(msg));
	free(s);
	return 0;
}
