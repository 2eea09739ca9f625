/* check_main.c - the one Check runner every unit test's main() calls
 * (check_main.h). */
#include <stdlib.h>

#include "check_main.h"

int sb_check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
