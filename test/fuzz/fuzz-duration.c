/* fuzz-duration.c - the --min-runtime value (sb_duration_parse): never a
 * crash; an accepted value formats back into text that parses to the same
 * number of seconds. */
#include "fuzz.h"
#include "sb/duration.h"
#include "sb/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), buf[64];
	int64_t secs, again;

	if (sb_duration_parse(s, &secs) == SB_OK) {
		if (secs < 0)
			abort();
		sb_duration_format(secs, buf, sizeof(buf));
		if (sb_duration_parse(buf, &again) != SB_OK || again != secs)
			abort();
	}
	free(s);
	return 0;
}
