/* fuzz-budget-conf.c - budget.conf text as sbudget-sim and sbudget read it
 * (both through the core's sb_config_parse, as the plugins do):
 * never a crash or a leak, and the two readers accept or refuse the same
 * text and end with the same settings, so they stay one grammar.  Against
 * Slurm's own parse_config: test/integration/t-conf.sh. */
#include <stdio.h>

#include "fuzz.h"
#include "sb/config.h"
#include "sb/error.h"
#include "sim.h"
#include "cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_cstr(data, size), msg[512], d1[512], d2[512];
	struct sb_config a, b;
	int ra, rb;

	sb_config_init(&a);
	sb_config_init(&b);
	ra = sim_config_parse("fuzz.conf", s, &a, msg, sizeof(msg));
	rb = sbc_budget_conf_parse(s, &b, msg, sizeof(msg));
	if ((ra == 0) != (rb == 0)) {
		fprintf(stderr, "sbudget-sim says %d, sbudget says %d\n", ra, rb);
		abort();
	}
	if (ra == 0 && strcmp(sb_config_describe(&a, d1, sizeof(d1)),
			      sb_config_describe(&b, d2, sizeof(d2)))) {
		fprintf(stderr, "settings differ:\n  %s\n  %s\n", d1, d2);
		abort();
	}
	free(s);
	return 0;
}
