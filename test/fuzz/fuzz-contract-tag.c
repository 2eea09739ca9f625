/* fuzz-contract-tag.c - the AdminComment tag (sb_contract_parse_tag and the
 * queue sort's fast reading sb_contract_tag_allocated): never a crash, and
 * the fast reading agrees with the full parse whenever the tag is valid. */
#include "fuzz.h"
#include "sb/contract.h"
#include "sb/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), buf[128];
	struct sb_contract c, again;
	int fast = sb_contract_tag_allocated(s);

	if (sb_contract_parse_tag(s, &c) == SB_OK) {
		if (fast != (c.allocated ? 1 : 0))
			abort();
		if (c.allocated != (c.min_runtime > 0) || c.min_runtime < 0)
			abort();
		/* it formats back to a tag that parses the same */
		sb_contract_format(&c, buf, sizeof(buf));
		if (sb_contract_parse_tag(buf, &again) != SB_OK ||
		    again.min_runtime != c.min_runtime ||
		    again.resumable != c.resumable ||
		    again.allocated != c.allocated)
			abort();
	}
	free(s);
	return 0;
}
