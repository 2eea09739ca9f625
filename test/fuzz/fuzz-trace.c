/* fuzz-trace.c - workload traces (CSV and SWF, sim_workload_parse): never
 * a crash or a leak.  The first byte chooses the file name (.csv / .swf),
 * the rest is the text. */
#include "fuzz.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sim_read_opts o;
	struct sim_workload w;
	char *s, msg[512];

	if (size < 1)
		return 0;
	s = fuzz_cstr(data + 1, size - 1);
	sim_read_opts_init(&o);
	sim_workload_init(&w);
	(void)sim_workload_parse(data[0] & 1 ? "fuzz.swf" : "fuzz.csv", s, &o,
				 &w, msg, sizeof(msg));
	sim_workload_free(&w);
	free(s);
	return 0;
}
