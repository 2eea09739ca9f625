/*
 * sim-input-test.h - what the parts of the sim input test share: the
 * headers of a job table and of observed segments, a small tree, and the
 * test case kept in sim-input-read-test.c.
 */
#ifndef SB_SIM_INPUT_TEST_H
#define SB_SIM_INPUT_TEST_H

#include <check.h>

/* a job table's header */
#define HDR "submit_time_s,duration_s,gpus,team,user,min_runtime_s," \
	    "resumable,priority\n"

static const char tree_ab[] = "a 3\nb 1\na/x 1\n";

/* observed segments' headers: 8, 12 and 9 columns */
#define SHDR "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted\n"
#define SHDR12 "job,team,gpus,min_runtime_s,submit_s,start_s,end_s," \
	"preempted,eligible_s,nodes,resumable,fate\n"
#define SHDR9 "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted," \
	"eligible_s\n"

/* The "read" test case: good input read back exactly. */
TCase *sim_input_read_tcase(void);

#endif
