/* fuzz-segments.c - observed runs (sim_segments_parse, `sbudget-sim
 * metrics`): never a crash or a leak, against a fixed two-team tree. */
#include "fuzz.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_tree tree;
	static int have_tree;
	struct sim_mjob *jobs = NULL;
	struct sim_mseg *segs = NULL;
	uint32_t *job_node = NULL;
	size_t njobs = 0, nsegs = 0;
	char *s, msg[512];

	if (!have_tree) {
		if (sim_tree_parse("fuzz.tree", "vision 3\nnlp 1\n", &tree, msg,
				   sizeof(msg)))
			abort();
		have_tree = 1;
	}
	s = fuzz_cstr(data, size);
	(void)sim_segments_parse("fuzz.csv", s, &tree, &jobs, &njobs,
				 &job_node, &segs, &nsegs, msg, sizeof(msg));
	free(jobs);
	free(segs);
	free(job_node);
	free(s);
	return 0;
}
