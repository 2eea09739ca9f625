/* fuzz-tree.c - budget trees in the four formats sim_tree_parse reads
 * (ours, sacctmgr -P, Helios, sacctmgr dump): never a crash or a leak; an
 * accepted tree is finalized. */
#include "fuzz.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_tree t;
	char *s = fuzz_cstr(data, size), msg[512];

	memset(&t, 0, sizeof(t));
	if (sim_tree_parse("fuzz.tree", s, &t, msg, sizeof(msg)) == 0)
		sim_tree_free(&t);
	free(s);
	return 0;
}
