/* duration.c - Slurm time syntax for durations; quoting of user input. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sb/duration.h"
#include "sb/error.h"

#define MAX_FIELD_DIGITS 9	/* 999,999,999: no field can overflow int64 */

/*
 * Read one field of digits at *p.  Returns SB_OK and advances *p, or
 * SB_ESYNTAX when there is no digit, SB_ERANGE when there are too many.
 */
static int read_field(const char **p, int64_t *val)
{
	const char *s = *p;
	int64_t v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > MAX_FIELD_DIGITS)
			return SB_ERANGE;
		v = v * 10 + (*s - '0');
		s++;
	}
	if (n == 0)
		return SB_ESYNTAX;
	*p = s;
	*val = v;
	return SB_OK;
}

int sb_duration_parse(const char *s, int64_t *secs)
{
	int64_t f[4] = { 0 }, days = 0, total;
	const char *p = s;
	int nf = 0, rc;
	int has_days = 0;

	if (!s)
		return SB_EMISSING;
	if (s[0] == '-' && s[1] >= '0' && s[1] <= '9')
		return SB_ENEGATIVE;

	if ((rc = read_field(&p, &f[nf++])))
		return rc;
	if (*p == '-') {
		has_days = 1;
		days = f[0];
		nf = 0;
		p++;
		if ((rc = read_field(&p, &f[nf++])))
			return rc;
	}
	while (*p == ':') {
		if (nf == 3)
			return SB_ESYNTAX;
		p++;
		if ((rc = read_field(&p, &f[nf++])))
			return rc;
	}
	if (*p != '\0')
		return SB_ESYNTAX;

	if (has_days) {
		/* D-H, D-H:M, D-H:M:S */
		if (f[0] >= 24 || f[1] >= 60 || f[2] >= 60)
			return SB_ESYNTAX;
		if (days > SB_DURATION_MAX / 86400)
			return SB_ERANGE;
		total = days * 86400 + f[0] * 3600 + f[1] * 60 + f[2];
	} else if (nf == 1) {		/* M */
		total = f[0] * 60;
	} else if (nf == 2) {		/* M:S */
		if (f[1] >= 60)
			return SB_ESYNTAX;
		total = f[0] * 60 + f[1];
	} else {			/* H:M:S */
		if (f[1] >= 60 || f[2] >= 60)
			return SB_ESYNTAX;
		total = f[0] * 3600 + f[1] * 60 + f[2];
	}
	if (total > SB_DURATION_MAX)
		return SB_ERANGE;
	*secs = total;
	return SB_OK;
}

char *sb_duration_format(int64_t secs, char *buf, size_t len)
{
	int64_t d, h, m, s;

	if (!buf || !len)
		return buf;
	if (secs < 0)
		secs = 0;
	d = secs / 86400;
	h = secs / 3600 % 24;
	m = secs / 60 % 60;
	s = secs % 60;
	if (d)
		snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", (long long)d,
			 (long long)h, (long long)m, (long long)s);
	else
		snprintf(buf, len, "%lld:%02lld:%02lld", (long long)h,
			 (long long)m, (long long)s);
	return buf;
}

/* sb_quote() with at most @limit bytes of @s before the "..." mark. */
static char *quote_upto(const char *s, char *buf, size_t len, size_t limit)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (!buf || !len)
		return buf;
	if (!s)
		s = "(null)";
	for (i = 0; s[i] && i < limit; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f) {
			if (o + 1 >= len)
				break;
			buf[o++] = (char)c;
		} else {
			if (o + 4 >= len)
				break;
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[c >> 4];
			buf[o++] = hex[c & 15];
		}
	}
	if (s[i] && o + 3 < len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

char *sb_quote(const char *s, char *buf, size_t len)
{
	return quote_upto(s, buf, len, 48);
}

char *sb_quote_path(const char *s, char *buf, size_t len)
{
	/* room for "..." and the NUL after the bytes kept */
	return quote_upto(s, buf, len, len > 4 ? len - 4 : 0);
}

/* Read exactly @n digits at *@p into @out; advance. */
static bool digits(const char **p, int n, int *out)
{
	int v = 0, i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return true;
}

/* Days from 1970-01-01 to the civil date @y-@m-@d (proleptic Gregorian;
 * H. Hinnant, "chrono-Compatible Low-Level Date Algorithms",
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int sb_time_parse_iso(const char *s, int64_t *out)
{
	static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31,
				     30, 31 };
	const char *p = s;
	int y, mo, d, h = 0, mi = 0, se = 0;
	bool utc = false;
	struct tm tm;
	time_t t;

	if (!s || !out)
		return -1;
	if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) ||
	    *p++ != '-' || !digits(&p, 2, &d))
		return -1;
	if (*p == 'T') {
		p++;
		if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
			return -1;
		if (*p == ':' && (p++, !digits(&p, 2, &se)))
			return -1;
		if (*p == 'Z') {
			utc = true;
			p++;
		}
	}
	if (*p || y < 1970 || mo < 1 || mo > 12 || d < 1 ||
	    d > mdays[mo - 1] || h > 23 || mi > 59 || se > 59 ||
	    (mo == 2 && d == 29 && (y % 4 || (y % 100 == 0 && y % 400))))
		return -1;
	if (utc) {
		*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 +
		       se;
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = se;
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t < 0)	/* before the epoch (local 1970-01-01 east of UTC) */
		return -1;
	if (tm.tm_hour != h || tm.tm_min != mi)
		return -2;
	*out = (int64_t)t;
	return 0;
}

char *sb_time_format_iso(int64_t t, char *buf, size_t len)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!buf || !len)
		return buf;
	if (!localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "%lld", (long long)t);
	return buf;
}
