/*
 * text.c - the text helpers every reader of sbudget-sim shares (input.h):
 * reading a whole file, lines and fields, whole numbers and names checked
 * to the end, messages "file:line: reason", --time-scale, and the value of
 * --resubmit-delay.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sb/duration.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "input.h"

void sim__vfail(char *msg, size_t msglen, const char *name, size_t line,
		const char *fmt, va_list ap)
{
	int n;

	if (!msg || !msglen)
		return;
	n = line ? snprintf(msg, msglen, "%s:%zu: ", name, line)
		 : snprintf(msg, msglen, "%s: ", name);
	if (n < 0 || (size_t)n >= msglen)
		return;
	vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
}

void sim__fail(char *msg, size_t msglen, const char *name, size_t line,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sim__vfail(msg, msglen, name, line, fmt, ap);
	va_end(ap);
}

char *sim_slurp(const char *file, char *msg, size_t msglen)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, first = 1 << 20, got;
	struct stat st;

	if (!f) {
		sim__fail(msg, msglen, file, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	/* a regular file is read into one buffer of its size (and room to
	 * see its end); anything else, or a file that grows, in doubling
	 * ones */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2)
		first = (size_t)st.st_size + 65536;
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : first;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				sim__fail(msg, msglen, file, 0, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		/* a NUL byte refuses the file at once: a device such as
		 * /dev/zero would otherwise be read until memory ran out */
		if (memchr(buf + len, '\0', got)) {
			sim__fail(msg, msglen, file, 0, "contains a NUL byte: "
				  "not a text file");
			free(buf);
			fclose(f);
			return NULL;
		}
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		sim__fail(msg, msglen, file, 0, "read error");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

/* Next line of *cur (NUL-terminated in place, CR stripped), or NULL. */
char *sim__next_line(char **cur)
{
	char *s = *cur, *nl;
	size_t n;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*cur = nl + 1;
	} else {
		*cur = s + strlen(s);
	}
	n = strlen(s);
	if (n && s[n - 1] == '\r')
		s[n - 1] = '\0';
	return s;
}

char *sim__trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Split @s on @sep into at most MAX_FIELDS trimmed fields; -1 if more. */
int sim__split(char *s, char sep, char **f)
{
	int n = 0;

	for (;;) {
		char *e = strchr(s, sep);

		if (n == MAX_FIELDS)
			return -1;
		if (e)
			*e = '\0';
		f[n++] = sim__trim(s);
		if (!e)
			return n;
		s = e + 1;
	}
}

/* Split on runs of blanks (SWF). */
int sim__split_ws(char *s, char **f)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == MAX_FIELDS)
			return -1;
		f[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* A decimal integer, the whole field.  0 or -1. */
int sim__parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A finite decimal number, the whole field.  0 or -1. */
int sim__parse_num(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* Find a header column by any of the names; -1 if absent. */
int sim__column(char **f, int n, const char *a, const char *b)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(f[i], a) || (b && !strcasecmp(f[i], b)))
			return i;
	return -1;
}

/* A name (team or user) as a CSV field may hold: printable, no comma. */
bool sim__name_ok(const char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == ',' || *s == '|')
			return false;
	return true;
}

/* Scaled time, or -1 when out of range; a positive time stays >= 1 s. */
int64_t sim__scale(const struct sim_read_opts *o, int64_t t)
{
	double v = (double)t * o->time_scale;

	if (!(v >= 0) || v > (double)SB_TIME_MAX / 4)
		return -1;
	if (t > 0 && v < 1)
		return 1;
	return (int64_t)llround(v);
}

int sim_resubmit_parse(const char *v, int64_t *out, char *msg, size_t msglen)
{
	char q[64];
	int64_t secs;

	if (v && !strcmp(v, "none")) {
		*out = SIM_NO_RESUBMIT;
		return 0;
	}
	if (sb_duration_parse(v, &secs) != SB_OK) {
		if (msg && msglen)
			snprintf(msg, msglen, "--resubmit-delay '%s' is not "
				 "accepted: a duration in Slurm's time syntax "
				 "(M, M:S, H:M:S, D-H, D-H:M or D-H:M:S, at "
				 "most %lld days; 5:00 is five minutes) or none",
				 sb_quote(v, q, sizeof(q)),
				 (long long)(SB_DURATION_MAX / 86400));
		return -1;
	}
	*out = secs;
	return 0;
}
