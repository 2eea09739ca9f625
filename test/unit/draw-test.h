/*
 * draw-test.h - what the parts of the drawing test share: the times the
 * cases are worked out at, and the tests kept in draw-pictures-test.c.
 */
#ifndef SB_DRAW_TEST_H
#define SB_DRAW_TEST_H

#include <check.h>
#include <stdint.h>

/* 2026-03-01T10:30:00Z and 2026-03-01T00:00:00Z (worked out with
 * timegm()). */
#define T1030 INT64_C(1772361000)
#define T0000 INT64_C(1772323200)
#define HOUR 3600
#define DAY 86400

/* Add the tests of the pictures read back as SVG (sbudget's report plot,
 * sbudget-sim's per-team panels and per-GPU chart) to @tc. */
void draw_picture_tests(TCase *tc);

#endif
