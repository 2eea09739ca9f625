/* contract.c - validation and storage format of the minimum-runtime contract. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"

#include "internal.h"

#define TAG_PREFIX "budget:"
/* Room for a quoted value in a message. */
#define QUOTE_MAX 256

#define SYNTAX_HELP "use Slurm time syntax as for --time (M, M:S, H:M:S, " \
	"D-H, D-H:M or D-H:M:S; fields after the first below 60, hours " \
	"after D- below 24: 1:30, not 0:90; e.g. 30, 1:30:00 or 0-4)"

/* Write the refusal sentence, if the caller gave room for one. */
static void say(char *msg, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(char *msg, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
}

/*
 * The minimum runtime of @req in seconds (@secs), checked against the
 * site maximum and the job's time limits.  @q (QUOTE_MAX bytes): in, the
 * request's value quoted; out, how to name it in a message (the default
 * names where it came from).  Return and @msg as sb_contract_check().
 */
static int min_runtime_of(const struct sb_contract_policy *pol,
			  const struct sb_contract_request *req, char *q,
			  int64_t *secs_out, char *msg, size_t msglen)
{
	char max[32], dflt[32];
	int64_t secs = 0;
	int rc;

	sb_duration_format(pol->max_min_runtime, max, sizeof(max));
	if (!req->min_runtime) {
		if (pol->default_min_runtime < 0) {
			say(msg, msglen, "no minimum runtime given: submit with "
			    "--min-runtime=TIME (at most %s), or --min-runtime=0 "
			    "to run unallocated", max);
			return SB_EMISSING;
		}
		secs = pol->default_min_runtime;
		/* name the value the user did not type, and where it came from */
		snprintf(q, QUOTE_MAX, "%s from DefaultMinRuntime",
			 sb_duration_format(secs, dflt, sizeof(dflt)));
	} else if ((rc = sb_duration_parse(req->min_runtime, &secs))) {
		if (rc == SB_ENEGATIVE)
			say(msg, msglen, "min-runtime '%s' is negative: give a "
			    "time from 0 (unallocated) up to %s", q, max);
		else if (rc == SB_ERANGE)
			say(msg, msglen, "min-runtime '%s' is out of range: the "
			    "site maximum is %s", q, max);
		else if (req->min_runtime[0] == '\0')
			say(msg, msglen, "min-runtime is empty: %s", SYNTAX_HELP);
		else
			say(msg, msglen, "min-runtime '%s' is malformed: %s", q,
			    SYNTAX_HELP);
		return rc;
	}
	if (secs > pol->max_min_runtime) {
		char given[32];

		sb_duration_format(secs, given, sizeof(given));
		say(msg, msglen, "min-runtime '%s' (%s) exceeds the "
		    "site maximum %s (MaxMinRuntime): ask for at most %s; "
		    "the job may run longer while its budget allows", q, given,
		    max, max);
		return SB_EABOVEMAX;
	}
	if (req->time_cap > 0 && secs > req->time_cap) {
		char given[32], cap[32];

		sb_duration_format(secs, given, sizeof(given));
		sb_duration_format(req->time_cap, cap, sizeof(cap));
		say(msg, msglen, "min-runtime '%s' (%s) exceeds %s, the longest "
		    "time limit this job can be given (%s): the protected "
		    "slice could never be served; ask for at most %s", q,
		    given, cap, req->cap_from ? req->cap_from : "a site limit",
		    cap);
		return SB_EABOVEMAX;
	}
	if (req->time_limit > 0 && secs > req->time_limit) {
		char given[32], limit[32];

		sb_duration_format(secs, given, sizeof(given));
		sb_duration_format(req->time_limit, limit, sizeof(limit));
		if (req->limit_from)
			say(msg, msglen, "min-runtime '%s' (%s) exceeds the "
			    "time limit the job would get, %s (%s): the "
			    "protected slice could never be served; lower "
			    "--min-runtime, or give --time (and --time-min) "
			    "of at least %s", q, given, limit, req->limit_from,
			    given);
		else
			say(msg, msglen, "min-runtime '%s' (%s) exceeds the "
			    "job's time limit %s: lower --min-runtime or raise "
			    "--time", q, given, limit);
		return SB_EABOVEMAX;
	}
	*secs_out = secs;
	return SB_OK;
}

int sb_contract_check(const struct sb_contract_policy *pol,
		      const struct sb_contract_request *req,
		      struct sb_contract *out, char *msg, size_t msglen)
{
	char q[QUOTE_MAX];
	int64_t secs = 0;
	bool resumable = false;
	int rc;

	say(msg, msglen, "%s", "");
	if (!pol || !req || !out)
		return SB_EINVAL;
	sb_quote(req->min_runtime, q, sizeof(q));
	if ((rc = min_runtime_of(pol, req, q, &secs, msg, msglen)))
		return rc;
	if (req->resumable && (rc = sb_bool_parse(req->resumable, &resumable))) {
		sb_quote(req->resumable, q, sizeof(q));
		say(msg, msglen, "resumable '%s' is not a yes/no value: use "
		    "--resumable or leave it out", q);
		return rc;
	}
	if (resumable && req->interactive) {
		say(msg, msglen, "--resumable needs a batch job: an interactive "
		    "allocation (salloc, srun) cannot be requeued, so when "
		    "preempted it is cancelled; drop --resumable, or submit "
		    "with sbatch");
		return SB_ENOTBATCH;
	}
	if (resumable && req->no_requeue) {
		say(msg, msglen, "--resumable contradicts --no-requeue: a "
		    "resumable job is requeued when preempted and resumes its "
		    "work; drop --no-requeue, or drop --resumable to be "
		    "cancelled when preempted");
		return SB_ENOTBATCH;
	}
	if (secs > 0 && !req->has_budget) {
		say(msg, msglen, "min-runtime '%s' asks for an allocation but "
		    "the job's association has no budget (RawShares 0 on its "
		    "path): submit with --min-runtime=0 to run unallocated, or "
		    "ask your budget owner for a share",
		    q);
		return SB_ENOBUDGET;
	}
	out->min_runtime = secs;
	out->resumable = resumable;
	out->allocated = secs > 0;
	out->requeueable = !req->interactive;
	return SB_OK;
}

int sb_contract_format(const struct sb_contract *c, char *buf, size_t len)
{
	return snprintf(buf, len, TAG_PREFIX "min_runtime=%lld,resumable=%s,"
			"allocated=%s", (long long)c->min_runtime,
			c->resumable ? "yes" : "no",
			c->allocated ? "yes" : "no");
}

/* Expect "key=" at *p, then a value up to ',' / ' ' / end. */
static int field(const char **p, const char *key, char *val, size_t vlen)
{
	size_t klen = strlen(key), n = 0;
	const char *s = *p;

	if (strncmp(s, key, klen) || s[klen] != '=')
		return SB_ESYNTAX;
	s += klen + 1;
	while (*s && *s != ',' && *s != ' ') {
		if (n + 1 >= vlen)
			return SB_ESYNTAX;
		val[n++] = *s++;
	}
	val[n] = '\0';
	*p = s;
	return SB_OK;
}

int sb_contract_parse_tag(const char *s, struct sb_contract *out)
{
	char v[3][32];
	struct sb_contract c;
	const char *p;
	char *end;
	long long mr;

	/* a stop note (sb/view.h) alone is an AdminComment without a tag */
	if (!s || strncmp(s, TAG_PREFIX, strlen(TAG_PREFIX)) ||
	    sb__stop_note_word(s))
		return SB_EMISSING;
	p = s + strlen(TAG_PREFIX);
	if (field(&p, "min_runtime", v[0], sizeof(v[0])) || *p++ != ',' ||
	    field(&p, "resumable", v[1], sizeof(v[1])) || *p++ != ',' ||
	    field(&p, "allocated", v[2], sizeof(v[2])) ||
	    (*p != '\0' && *p != ' '))
		return SB_ESYNTAX;
	if (v[0][0] < '0' || v[0][0] > '9')
		return SB_ESYNTAX;
	mr = strtoll(v[0], &end, 10);
	if (*end || mr > SB_DURATION_MAX)
		return SB_ESYNTAX;
	if (sb_bool_parse(v[1], &c.resumable) ||
	    sb_bool_parse(v[2], &c.allocated) || c.allocated != (mr > 0))
		return SB_ESYNTAX;
	c.min_runtime = mr;
	c.requeueable = false;	/* not in the tag: the caller's to know */
	*out = c;
	return SB_OK;
}

int sb_contract_tag_allocated(const char *s)
{
	static const char pre[] = TAG_PREFIX "min_runtime=";
	struct sb_contract c;
	const char *p;

	if (s && !strncmp(s, pre, sizeof(pre) - 1)) {
		int allocated = -1, digits = 0;

		/* Only a tag exactly as sb_contract_format() writes it is
		 * decided here: 0 or a number without leading zeros (at most
		 * 7 digits, below SB_DURATION_MAX's 8), ",resumable=yes|no",
		 * ",allocated=" agreeing with the number, then the end or a
		 * space.  Anything else takes the full parse, so the answer
		 * is always the full parse's. */
		p = s + sizeof(pre) - 1;
		if (p[0] == '0') {
			allocated = 0;
			p++;
		} else if (p[0] >= '1' && p[0] <= '9') {
			while (*p >= '0' && *p <= '9' && digits < 8) {
				p++;
				digits++;
			}
			/* 8 digits or more may exceed SB_DURATION_MAX
			 * (31536000): the full parse decides */
			allocated = digits <= 7 ? 1 : -1;
		}
		if (allocated >= 0 && !strncmp(p, ",resumable=", 11)) {
			p += 11;
			if (!strncmp(p, "yes", 3))
				p += 3;
			else if (!strncmp(p, "no", 2))
				p += 2;
			else
				allocated = -1;
			if (allocated >= 0 && !strncmp(p, ",allocated=", 11)) {
				p += 11;
				if (allocated == 1 && !strncmp(p, "yes", 3))
					p += 3;
				else if (allocated == 0 && !strncmp(p, "no", 2))
					p += 2;
				else
					allocated = -1;
				if (allocated >= 0 && (*p == '\0' || *p == ' '))
					return allocated;
			}
		}
	}
	if (sb_contract_parse_tag(s, &c) != SB_OK)
		return -1;
	return c.allocated;
}

int sb_bool_parse(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "1", "on" };
	static const char *const no[] = { "no", "false", "0", "off" };
	size_t i;

	if (!s)
		return SB_EMISSING;
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return SB_OK;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return SB_OK;
		}
	}
	return SB_ESYNTAX;
}

int sb_shares_parse(const char *s, uint32_t *out)
{
	uint64_t v = 0;
	const char *p;

	if (!s || !*s)
		return SB_EMISSING;
	if (!strcasecmp(s, "parent")) {
		*out = SB_SHARES_USE_PARENT;
		return SB_OK;
	}
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return SB_ESYNTAX;
	for (p = s; *p; p++) {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > SB_SHARES_RAW_MAX)
			return SB_ERANGE;
	}
	*out = (uint32_t)v;
	return SB_OK;
}

bool sb_path_has_budget(const uint32_t *raw_shares, size_t n)
{
	size_t i;

	if (!raw_shares || n == 0)
		return false;
	for (i = 0; i < n; i++)
		if (raw_shares[i] == 0)
			return false;
	return true;
}

int64_t sb_time_limit_effective(int64_t given, int64_t time_min,
				int64_t part_default, int64_t part_max,
				int64_t max_wall, enum sb_limit_from *from)
{
	enum sb_limit_from f = SB_LIMIT_NONE;
	int64_t lim = -1;

	if (given > 0) {
		lim = given;
		f = SB_LIMIT_GIVEN;
	} else if (part_default > 0) {
		lim = part_default;
		f = SB_LIMIT_PART_DEFAULT;
	} else if (part_max > 0) {
		lim = part_max;
		f = SB_LIMIT_PART_MAX;
	}
	/* accounting's MaxWall caps whatever the job would get */
	if (max_wall > 0 && (lim <= 0 || max_wall < lim)) {
		lim = max_wall;
		f = SB_LIMIT_MAX_WALL;
	}
	/* backfill may shorten the limit down to --time-min */
	if (time_min > 0 && (lim <= 0 || time_min < lim)) {
		lim = time_min;
		f = SB_LIMIT_TIME_MIN;
	}
	if (from)
		*from = f;
	return lim;
}

int64_t sb_time_cap(int64_t part_max, int64_t max_wall,
		    enum sb_limit_from *from)
{
	enum sb_limit_from f = SB_LIMIT_NONE;
	int64_t cap = -1;

	if (part_max > 0) {
		cap = part_max;
		f = SB_LIMIT_PART_MAX;
	}
	if (max_wall > 0 && (cap <= 0 || max_wall < cap)) {
		cap = max_wall;
		f = SB_LIMIT_MAX_WALL;
	}
	if (from)
		*from = f;
	return cap;
}

int64_t sb_max_wall(const struct sb_wall_limits *w, enum sb_wall_from *from)
{
	enum sb_wall_from f = SB_WALL_NONE;
	int64_t v = -1;

	if (!w)
		goto out;
	if (w->over_part_qos && !w->job_qos_unknown && w->job_qos > 0) {
		v = w->job_qos;
		f = SB_WALL_JOB_QOS;
	} else if (w->part_qos > 0) {
		v = w->part_qos;
		f = SB_WALL_PART_QOS;
	} else if (w->job_qos_unknown) {
		/* nothing known: the job's QOS may set one */
	} else if (w->job_qos > 0) {
		v = w->job_qos;
		f = SB_WALL_JOB_QOS;
	} else if (w->assoc > 0) {
		v = w->assoc;
		f = SB_WALL_ASSOC;
	}
out:
	if (from)
		*from = f;
	return v;
}
