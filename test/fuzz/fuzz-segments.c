/* fuzz-segments.c - observed runs (sim_segments_parse, `sbudget-sim
 * metrics`) and the report computed from them (sim_metrics over a fixed
 * day): never a crash or a leak, against a fixed two-team tree. */
#include "fuzz.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sim_tree tree;
	static int have_tree;
	struct sim_mjob *jobs = NULL;
	struct sim_mseg *segs = NULL;
	struct sim_report rep;
	size_t njobs = 0, nsegs = 0;
	char *s, msg[512];

	if (!have_tree) {
		if (sim_tree_parse("fuzz.tree", "vision 3\nnlp 1\n", &tree, msg,
				   sizeof(msg)))
			abort();
		have_tree = 1;
	}
	s = fuzz_cstr(data, size);
	if (!sim_segments_parse("fuzz.csv", s, &tree, &jobs, &njobs, &segs,
				&nsegs, msg, sizeof(msg)) &&
	    !sim_metrics(&tree, jobs, njobs, segs, nsegs, 8, 0, 86400, 86400,
			 &rep))
		sim_report_free(&rep);
	free(jobs);
	free(segs);
	free(s);
	return 0;
}
