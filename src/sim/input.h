/*
 * input.h - what sbudget-sim's readers share (text.c), for the reader files
 * only: text.c (these helpers), tree.c (budget trees), workload.c (job
 * tables: CSV, SWF), bind.c (finishing a table against a tree: slicing,
 * seeded assignment), segments.c (observed runs), input.c (budget.conf).
 * Internal names carry the sim__ prefix.
 */
#ifndef SB_SIM_INPUT_H
#define SB_SIM_INPUT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* Most fields of one line (CSV, SWF, tree files). */
#define MAX_FIELDS 64

/* Write "@name:@line: " (": " alone when @line is 0) and the message into
 * @msg (at most @msglen bytes); nothing when @msg is NULL. */
void sim__fail(char *msg, size_t msglen, const char *name, size_t line,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void sim__vfail(char *msg, size_t msglen, const char *name, size_t line,
		const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));

/* The next line of *@cur, NUL-terminated in place, CR stripped; NULL at the
 * end. */
char *sim__next_line(char **cur);
/* @s without leading and trailing blanks (the end is cut in place). */
char *sim__trim(char *s);
/* Split @s in place on @sep into at most MAX_FIELDS trimmed fields @f.
 * Return their number, -1 if there are more. */
int sim__split(char *s, char sep, char **f);
/* The same on runs of blanks (SWF). */
int sim__split_ws(char *s, char **f);
/* A decimal integer / a finite number, the whole field: 0, or -1. */
int sim__parse_i64(const char *s, int64_t *out);
int sim__parse_num(const char *s, double *out);
/* The index of the header field named @a (or @b, may be NULL), any case;
 * -1 if absent. */
int sim__column(char **f, int n, const char *a, const char *b);
/* A name (team, user, job id) a CSV field may hold: printable, no blank,
 * ',' or '|'. */
bool sim__name_ok(const char *s);
/* @t x --time-scale, rounded; a positive time stays >= 1 s; -1 when out
 * of range. */
int64_t sim__scale(const struct sim_read_opts *o, int64_t t);

#endif /* SB_SIM_INPUT_H */
