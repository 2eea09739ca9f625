/* fuzz-contract-tag.c - the AdminComment tag (sb_contract_parse_tag and the
 * queue sort's fast reading sb_contract_tag_allocated) and the stop notes
 * preempt/budget ends it with (sb_note_merge, sb_stop_note_parse): never a
 * crash, the fast reading agrees with the full parse whenever the tag is
 * valid, and merging notes into an AdminComment keeps its contract. */
#include "fuzz.h"
#include "sb/contract.h"
#include "sb/error.h"
#include "sb/view.h"

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
	{
		static const char note[] = "budget:preempted_by=7,at=9";
		char m[4096];
		struct sb_stop_note n;
		size_t len = sb_note_merge(s, note, m, sizeof(m));

		if (len != sb_note_merge(s, note, NULL, 0) ||
		    strlen(m) != (len < sizeof(m) ? len : sizeof(m) - 1))
			abort();
		if (len < sizeof(m)) {
			/* the note is the last one; the tag stays */
			if (sb_stop_note_parse(m, &n) != 1 || n.by_job != 7 ||
			    n.at != 9)
				abort();
			if (sb_contract_parse_tag(s, &c) == SB_OK &&
			    (sb_contract_parse_tag(m, &again) != SB_OK ||
			     again.min_runtime != c.min_runtime ||
			     again.resumable != c.resumable))
				abort();
		}
		(void)sb_stop_note_parse(s, &n);
	}
	free(s);
	return 0;
}
