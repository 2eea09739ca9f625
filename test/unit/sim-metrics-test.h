/*
 * sim-metrics-test.h - what the parts of the sim metrics test share, and
 * the tests kept in sim-metrics-report-test.c.
 */
#ifndef SB_SIM_METRICS_TEST_H
#define SB_SIM_METRICS_TEST_H

#include <check.h>

#include "sim.h"

/* "no time" (SIM_NEVER), short for the tables */
#define NV SIM_NEVER

/* Add the tests of the JSON's fixed form, the report's size, runs over the
 * cluster's capacity and the verdict to @tc. */
void sim_metrics_report_tests(TCase *tc);

#endif
