/*
 * values.c - the values sbudget's command grammar (cli.c) takes, parsed and
 * refused with a sentence: shares, durations, job ids, TRES counts and
 * budget.conf's text (no Slurm).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"

int sbc__fail(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int sbc_parse_share(const char *s, uint32_t *out, char *msg, size_t msglen)
{
	char q[80];
	int rc = sb_shares_parse(s, out);

	if (rc == SB_OK)
		return 0;
	if (rc == SB_EMISSING)
		return sbc__fail(msg, msglen, "share '': empty; accepted: "
			    SB_SHARES_ACCEPTED);
	sb_quote(s, q, sizeof(q));
	return sbc__fail(msg, msglen, "share '%s': %s; accepted: "
		    SB_SHARES_ACCEPTED, q,
		    rc == SB_ERANGE ? "too large" :
		    *s == '-' ? "negative" : "not a whole number");
}

int sbc_parse_window(const char *what, const char *s, int64_t *out, char *msg,
		     size_t msglen)
{
	char q[80];
	int64_t v;
	int rc;

	sb_quote(s, q, sizeof(q));
	rc = sb_duration_parse(s, &v);
	if (rc == SB_ERANGE || (rc == SB_OK && v > SB_DURATION_MAX))
		return sbc__fail(msg, msglen, "%s '%s': too long; accepted: up to "
			    "365 days", what, q);
	if (rc != SB_OK)
		return sbc__fail(msg, msglen, "%s '%s': %s; accepted: Slurm's time "
			    "syntax, as --time (M, M:S, H:M:S, D-H, D-H:M, "
			    "D-H:M:S), for example 7-0 or 12:00:00", what, q,
			    rc == SB_ENEGATIVE ? "negative" :
			    "not a duration");
	if (v <= 0)
		return sbc__fail(msg, msglen, "%s '%s': must be longer than 0",
			    what, q);
	*out = v;
	return 0;
}

/* Decimal digits of @s[0..@n) into *@out; a number above @max gives
 * @max + 1 (@max * 10 + 9 must fit in 64 bits).  -1 if any is not a
 * digit. */
static int decimal(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v <= max)	/* beyond @max it stays max + 1: no wrap */
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			v = max + 1;
	}
	*out = v;
	return 0;
}

int sbc_parse_jobid(const char *s, uint32_t *out, uint32_t *task, char *msg,
		    size_t msglen)
{
	static const char form[] = "give the number squeue shows, or "
				   "ARRAYID_TASKID for an array task (116_3)";
	char q[80];
	uint64_t v = 0, t = 0;
	const char *us;
	size_t n;

	sb_quote(s, q, sizeof(q));
	if (!s || !*s)
		return sbc__fail(msg, msglen, "job id '': empty; %s", form);
	/* 12+1: digits on both sides */
	if (strchr(s, '+') && isdigit((unsigned char)s[0]) &&
	    isdigit((unsigned char)s[strcspn(s, "+") + 1]))
		return sbc__fail(msg, msglen, "job id '%s': heterogeneous "
			    "components are not supported; give the "
			    "component's own job id (squeue -o %%A)", q);
	us = strchr(s, '_');
	n = us ? (size_t)(us - s) : strlen(s);
	if (us && n == 0)
		return sbc__fail(msg, msglen, "job id '%s': no array job id "
			    "before '_'; write ARRAYID_TASKID, e.g. 116_3", q);
	if (decimal(s, n, UINT32_MAX, &v))
		return sbc__fail(msg, msglen, "job id '%s': not a number; %s",
			    q, form);
	if (v > UINT32_C(0xFFFFFFFD))
		return sbc__fail(msg, msglen, "job id '%s': too large; Slurm "
			    "job ids are below 4294967294", q);
	if (v == 0)
		return sbc__fail(msg, msglen, "job id '%s': job ids start at 1",
			    q);
	*task = SBC_NO_TASK;
	if (us) {
		us++;
		if (!*us)
			return sbc__fail(msg, msglen, "job id '%s': no task id "
				    "after '_'; write ARRAYID_TASKID, e.g. "
				    "116_3", q);
		if (strchr(us, '_'))
			return sbc__fail(msg, msglen, "job id '%s': one '_' at "
				    "most; write ARRAYID_TASKID, e.g. 116_3", q);
		if (*us == '[' || strpbrk(us, "-,"))
			return sbc__fail(msg, msglen, "job id '%s': one array "
				    "task at a time, e.g. 116_3", q);
		if (decimal(us, strlen(us), UINT32_MAX, &t))
			return sbc__fail(msg, msglen, "job id '%s': task id "
				    "after '_' is not a number; write "
				    "ARRAYID_TASKID, e.g. 116_3", q);
		/* Slurm's MaxArraySize is at most 4000001: ids 0..4000000 */
		if (t > 4000000)
			return sbc__fail(msg, msglen, "job id '%s': task id "
				    "too large; array task ids are below "
				    "MaxArraySize, which is at most 4000001", q);
		*task = (uint32_t)t;
	}
	*out = (uint32_t)v;
	return 0;
}
double sbc_tres_count(const char *s, const char *key)
{
	size_t klen;
	const char *p = s;

	if (!s || !key)
		return 0;
	klen = strlen(key);
	while (*p) {
		const char *e = strchr(p, ','), *eq;
		size_t len = e ? (size_t)(e - p) : strlen(p);

		eq = memchr(p, '=', len);
		if (eq && (size_t)(eq - p) == klen && !strncmp(p, key, klen)) {
			char buf[64], *end;
			size_t vlen = len - klen - 1;
			double v, mul = 1;

			if (vlen == 0 || vlen >= sizeof(buf))
				return -1;
			memcpy(buf, eq + 1, vlen);
			buf[vlen] = '\0';
			errno = 0;
			v = strtod(buf, &end);
			if (end == buf || errno || v < 0)
				return -1;
			switch (*end) {
			case '\0': break;
			case 'K': mul = 1024.0; end++; break;
			case 'M': mul = 1024.0 * 1024; end++; break;
			case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
			case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++;
				break;
			case 'P': mul = 1024.0 * 1024 * 1024 * 1024 * 1024;
				end++; break;
			default: return -1;
			}
			if (*end)
				return -1;
			return v * mul;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int sbc_budget_conf_parse(const char *text, struct sb_config *cfg, char *msg,
			  size_t msglen)
{
	/* the one grammar of budget.conf, shared with the plugins and the
	 * simulator */
	return sb_config_parse(cfg, text, "budget.conf", msg, msglen) == SB_OK ?
	       0 : -1;
}
