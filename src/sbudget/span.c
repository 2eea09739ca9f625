/*
 * span.c - the span of sbudget's figures: points in time as start=/end=
 * take them (sbc_parse_time, no clock: "now" stays relative) and the span
 * [from, to) a command line means at a given moment (sbc_span).  No Slurm;
 * see cli.h and sbudget(1), "THE SPAN".
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"
#include "sb/duration.h"


/* A decimal count of at most 12 digits at *@p; advance. */
static bool count(const char **p, int64_t *out)
{
	int64_t v = 0;
	int n = 0;

	while (isdigit((unsigned char)**p)) {
		if (++n > 12)
			return false;
		v = v * 10 + (**p - '0');
		(*p)++;
	}
	*out = v;
	return n > 0;
}

int sbc_parse_time(const char *what, const char *s, struct sbc_time *out,
		   char *msg, size_t msglen)
{
	static const struct { const char *name; int64_t secs; } units[] = {
		{ "seconds", 1 }, { "second", 1 }, { "minutes", 60 },
		{ "minute", 60 }, { "hours", 3600 }, { "hour", 3600 },
		{ "days", 86400 }, { "day", 86400 }, { "weeks", 604800 },
		{ "week", 604800 },
	};
	static const char accepted[] = "accepted: YYYY-MM-DD[THH:MM[:SS]] "
		"(local time), now[-COUNT[seconds|minutes|hours|days|weeks]] "
		"or uts<Unix time>";
	char q[80];
	const char *p;
	int64_t v;
	int rc;

	sb_quote(s, q, sizeof(q));
	memset(out, 0, sizeof(*out));
	if (!s || !*s)
		return sbc__fail(msg, msglen, "%s '': empty; %s", what, accepted);
	if (!strncasecmp(s, "now", 3)) {
		int sign;
		size_t u;

		p = s + 3;
		out->relative = true;
		if (!*p)
			goto ok;
		if (*p != '-' && *p != '+')
			goto bad;
		sign = *p++ == '-' ? -1 : 1;
		if (!count(&p, &v))
			goto bad;
		for (u = 0; *p && u < sizeof(units) / sizeof(units[0]); u++)
			if (!strcasecmp(p, units[u].name))
				break;
		if (*p && u == sizeof(units) / sizeof(units[0]))
			return sbc__fail(msg, msglen, "%s '%s': unknown unit '%s'; "
				    "accepted: seconds, minutes, hours, days, "
				    "weeks", what, q, p);
		if (*p)
			v *= units[u].secs;
		if (v > SB_DURATION_MAX)
			return sbc__fail(msg, msglen, "%s '%s': too far from now; "
				    "accepted: up to 365 days", what, q);
		out->value = sign * v;
		goto ok;
	}
	if (!strncasecmp(s, "uts", 3)) {
		p = s + 3;
		if (!count(&p, &v) || *p)
			goto bad;
		out->value = v;
		goto ok;
	}
	rc = sb_time_parse_iso(s, &v);
	if (rc == -2)
		return sbc__fail(msg, msglen, "%s '%s': no such local time (a "
			    "daylight saving change); write uts<Unix time>",
			    what, q);
	if (rc == 0) {
		out->value = v;
		goto ok;
	}
	for (p = s; isdigit((unsigned char)*p); p++)
		;
	if (!*p)
		return sbc__fail(msg, msglen, "%s '%s': a bare number; write "
			    "uts%s for Unix time, or %s", what, q, q,
			    "YYYY-MM-DD[THH:MM[:SS]]");
bad:
	return sbc__fail(msg, msglen, "%s '%s': not a point in time; %s", what, q,
		    accepted);
ok:
	out->set = true;
	return 0;
}

int64_t sbc_time_at(const struct sbc_time *t, int64_t now)
{
	if (!t || !t->set)
		return now;
	return t->relative ? now + t->value : t->value;
}

/* @t as local time, as it is typed (YYYY-MM-DDTHH:MM:SS), or uts<t>. */
static void show(int64_t t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (t < 0 || !localtime_r(&tt, &tm) ||
	    !strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "uts%lld", (long long)t);
}

int sbc_span(const struct sbc_cmd *cmd, int64_t now, int64_t lookback,
	     int64_t *from, int64_t *to, char *msg, size_t msglen)
{
	int64_t w = cmd->window ? cmd->window : lookback;
	int64_t a, b;
	char s0[48], s1[48], sn[48];

	if (cmd->start.set && cmd->end.set && cmd->window)
		return sbc__fail(msg, msglen, "start=, end= and window= given: give "
			    "at most two of them (window= is end - start)");
	if (cmd->start.set) {
		a = sbc_time_at(&cmd->start, now);
		b = cmd->end.set ? sbc_time_at(&cmd->end, now) :
		    cmd->window ? a + cmd->window : now;
	} else {
		b = sbc_time_at(&cmd->end, now);
		a = b - w;
	}
	show(a, s0, sizeof(s0));
	show(b, s1, sizeof(s1));
	show(now, sn, sizeof(sn));
	if (b > now)
		return sbc__fail(msg, msglen, "the span ends at %s, after now (%s): "
			    "figures of the future are not known; give an "
			    "earlier end= or a shorter window=", s1, sn);
	if (b <= a)
		return sbc__fail(msg, msglen, "the span [%s, %s) is empty: start "
			    "must be before end", s0, s1);
	if (b - a > SB_DURATION_MAX)
		return sbc__fail(msg, msglen, "the span [%s, %s) is longer than 365 "
			    "days", s0, s1);
	if (cmd->step > b - a)
		return sbc__fail(msg, msglen, "step is longer than the span [%s, %s) "
			    "(%lld seconds)", s0, s1, (long long)(b - a));
	/* every step is a row per budget, and a slot of figures per tree
	 * node: bounded, as a year of hourly slots bounds show budget */
	if (cmd->step && (b - a + cmd->step - 1) / cmd->step >
	    SBC_REPORT_MAX_STEPS) {
		char st[32], least[32];

		return sbc__fail(msg, msglen, "step '%s' cuts the span [%s, %s) "
			    "into %lld steps, more than %d: give step=%s or "
			    "longer", sb_duration_format(cmd->step, st,
							 sizeof(st)),
			    s0, s1, (long long)((b - a + cmd->step - 1) /
						cmd->step),
			    SBC_REPORT_MAX_STEPS, sb_duration_format(
				    (b - a + SBC_REPORT_MAX_STEPS - 1) /
				    SBC_REPORT_MAX_STEPS, least,
				    sizeof(least)));
	}
	*from = a;
	*to = b;
	return 0;
}
