/* config.c - budget.conf keys, defaults and validation. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sb/config.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/lane.h"

const char *const sb_config_keys[] = {
	"MaxMinRuntime",
	"DefaultMinRuntime",
	"CalcPeriod",
	"LookbackWindow",
	"BucketWidth",
	"ChargeTRES",
	"PreemptGraceTime",
	"PreemptNonResumable",
	"RepairReason",
	"InteractiveWarning",
	"SubmitNote",
	"PreemptIntervalFactor",
	"DebugLaneTRES",
	"DebugLaneMinRuntime",
	"DebugLaneBudgetTRES",
	"UnallocatedRestartBackoffMax",
	"PreemptLossWait",
	"Cutover",
	NULL,
};

void sb_config_init(struct sb_config *cfg)
{
	cfg->contract.max_min_runtime = SB_DEFAULT_MAX_MIN_RUNTIME;
	cfg->contract.default_min_runtime = -1;	/* none: must be given */
	cfg->contract.submit_note = true;
	cfg->calc_period = 60;
	cfg->lookback_window = 7 * 86400;
	cfg->bucket_width = 3600;
	snprintf(cfg->charge_tres, sizeof(cfg->charge_tres), "gres/gpu");
	sb_preempt_policy_init(&cfg->preempt);
	cfg->cutover = 0;
}

/* PreemptNonResumable: requeue | cancel | keep. */
static int set_nonresumable(const char *value, enum sb_nonresumable *dst,
			    char *msg, size_t msglen)
{
	static const struct {
		const char *word;
		enum sb_nonresumable v;
	} words[] = {
		{ "requeue", SB_NONRESUMABLE_REQUEUE },
		{ "cancel", SB_NONRESUMABLE_CANCEL },
		{ "keep", SB_NONRESUMABLE_KEEP },
	};
	char q[256];
	size_t i;

	for (i = 0; value && i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcasecmp(value, words[i].word)) {
			*dst = words[i].v;
			return SB_OK;
		}
	snprintf(msg, msglen, "PreemptNonResumable='%s' is not accepted: give "
		 "requeue (the default: a victim that is not resumable is "
		 "requeued and restarts from its beginning, or cancelled if "
		 "it cannot be requeued), cancel (it is cancelled) or keep "
		 "(it is never preempted)", sb_quote(value, q, sizeof(q)));
	return SB_ESYNTAX;
}

/* SubmitNote: yes or no, any case. */
static int set_submit_note(const char *value, bool *dst, char *msg,
			   size_t msglen)
{
	char q[256];

	if (value && (!strcasecmp(value, "yes") || !strcasecmp(value, "no"))) {
		*dst = !strcasecmp(value, "yes");
		return SB_OK;
	}
	snprintf(msg, msglen, "SubmitNote='%s' is not accepted: give yes (the "
		 "default: tell the user at submission when a job may lose "
		 "its work past its minimum runtime) or no",
		 sb_quote(value, q, sizeof(q)));
	return SB_ESYNTAX;
}

/* The word of PreemptNonResumable=@v, as set_nonresumable() reads it. */
static const char *nonresumable_word(enum sb_nonresumable v)
{
	switch (v) {
	case SB_NONRESUMABLE_CANCEL:
		return "cancel";
	case SB_NONRESUMABLE_KEEP:
		return "keep";
	case SB_NONRESUMABLE_REQUEUE:
		break;
	}
	return "requeue";
}

/* RepairReason: a printable glob, or "none"/"" for off. */
static int set_pattern(const char *value, char *dst, size_t len, char *msg,
		       size_t msglen)
{
	char q[256];
	const char *p;
	size_t n;

	if (!value || !strcasecmp(value, "none")) {
		dst[0] = '\0';
		return SB_OK;
	}
	if ((n = strlen(value)) >= len)
		goto bad;
	for (p = value; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			goto bad;
	memcpy(dst, value, n + 1);
	return SB_OK;
bad:
	snprintf(msg, msglen, "RepairReason='%s' is not accepted: give a "
		 "glob over the drain reason (fnmatch(3), case-insensitive, "
		 "printable ASCII, under %zu bytes) such as 'repair*', or none",
		 sb_quote(value, q, sizeof(q)), len);
	return SB_ESYNTAX;
}

/* A whole number of decimal digits only, in [@lo, @hi] (@hi well below
 * 2^63 / 10): into *@out.  False for anything else (empty, a sign, white
 * space, too large). */
static bool whole_number(const char *p, int64_t lo, int64_t hi, int64_t *out)
{
	int64_t v = 0;

	if (!p || !*p)
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > hi)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

/* Whole seconds in [lo, hi] (CalcPeriod). */
static int set_seconds(const char *key, const char *value, int64_t lo,
		       int64_t hi, int64_t *dst, char *msg, size_t msglen)
{
	char q[256];

	if (whole_number(value, lo, hi, dst))
		return SB_OK;
	snprintf(msg, msglen, "%s='%s' is not accepted: give whole seconds "
		 "from %lld to %lld", key, sb_quote(value, q, sizeof(q)),
		 (long long)lo, (long long)hi);
	return SB_ESYNTAX;
}

/* PreemptIntervalFactor: a whole number in [1, SB_PREEMPT_INTERVAL_FACTOR_MAX]. */
static int set_factor(const char *value, uint32_t *dst, char *msg,
		      size_t msglen)
{
	char q[256];
	int64_t v;

	if (whole_number(value, 1, SB_PREEMPT_INTERVAL_FACTOR_MAX, &v)) {
		*dst = (uint32_t)v;
		return SB_OK;
	}
	snprintf(msg, msglen, "PreemptIntervalFactor='%s' is not accepted: give "
		 "a whole number from 1 to %d (a job preempted at P is not "
		 "preempted again before P + factor x its minimum runtime; "
		 "default %d)", sb_quote(value, q, sizeof(q)),
		 SB_PREEMPT_INTERVAL_FACTOR_MAX,
		 SB_PREEMPT_INTERVAL_FACTOR_DEFAULT);
	return SB_ESYNTAX;
}

/* DebugLaneTRES, DebugLaneBudgetTRES: a whole number of charged TRES in
 * [0, SB_LANE_TRES_MAX]; 0 turns the lane off. */
static int set_lane_tres(const char *key, const char *value, int def,
			 uint64_t *dst, char *msg, size_t msglen)
{
	char q[256];
	int64_t v;

	if (whole_number(value, 0, SB_LANE_TRES_MAX, &v)) {
		*dst = (uint64_t)v;
		return SB_OK;
	}
	snprintf(msg, msglen, "%s='%s' is not accepted: give a whole number "
		 "of ChargeTRES units from 0 to %d (0 turns the debug lane "
		 "off; default %d)", key, sb_quote(value, q, sizeof(q)),
		 SB_LANE_TRES_MAX, def);
	return SB_ESYNTAX;
}

/* ChargeTRES: "cpu", "mem", "gres/NAME" or "gres/NAME:TYPE"; [a-z0-9_:-]. */
static int set_tres(const char *value, char *dst, size_t len, char *msg,
		    size_t msglen)
{
	char q[256];
	const char *p, *slash;
	size_t n;

	if (!value || !*value || (n = strlen(value)) >= len)
		goto bad;
	for (p = value; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '/' || *p == ':' || *p == '_' || *p == '-'))
			goto bad;
	slash = strchr(value, '/');
	if (slash ? (strncmp(value, "gres/", 5) || !slash[1] ||
		     strchr(slash + 1, '/'))
		  : (strcmp(value, "cpu") && strcmp(value, "mem") &&
		     strcmp(value, "node")))
		goto bad;
	memcpy(dst, value, n + 1);
	return SB_OK;
bad:
	snprintf(msg, msglen, "ChargeTRES='%s' is not accepted: give a TRES "
		 "as in AccountingStorageTRES: gres/gpu (the default), "
		 "gres/gpu:TYPE, cpu, mem or node", sb_quote(value, q, sizeof(q)));
	return SB_ESYNTAX;
}

/* A duration value of @key; "none" is allowed where @none_ok. */
static int set_duration(const char *key, const char *value, int none_ok,
			int64_t *dst, char *msg, size_t msglen)
{
	char q[256];
	int64_t secs;
	int rc;

	if (none_ok && value && !strcasecmp(value, "none")) {
		*dst = -1;
		return SB_OK;
	}
	if ((rc = sb_duration_parse(value, &secs))) {
		snprintf(msg, msglen, "%s='%s': %s; give a duration in Slurm "
			 "time syntax (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S), at "
			 "most 365 days%s", key, sb_quote(value, q, sizeof(q)),
			 sb_strerror(rc), none_ok ? ", or none" : "");
		return rc;
	}
	*dst = secs;
	return SB_OK;
}

/* InteractiveWarning: a duration (a bare number is minutes, as everywhere
 * in budget.conf), or 0 / none for no warning (stored as 0). */
static int set_warning(const char *value, int64_t *dst, char *msg,
		       size_t msglen)
{
	int64_t secs;
	int rc = set_duration("InteractiveWarning", value, 1, &secs, msg,
			      msglen);

	if (rc == SB_OK)
		*dst = secs < 0 ? 0 : secs;
	return rc;
}

/* DebugLaneMinRuntime: a duration of at least one second. */
static int set_lane_min_runtime(const char *value, int64_t *dst, char *msg,
				size_t msglen)
{
	char q[256];
	int64_t secs;
	int rc = set_duration("DebugLaneMinRuntime", value, 0, &secs, msg,
			      msglen);

	if (rc != SB_OK)
		return rc;
	if (secs < 1) {
		snprintf(msg, msglen, "DebugLaneMinRuntime='%s' is not "
			 "accepted: give the longest min runtime of a debug "
			 "lane job, at least one second (DebugLaneTRES=0 "
			 "turns the lane off)", sb_quote(value, q, sizeof(q)));
		return SB_ESYNTAX;
	}
	*dst = secs;
	return SB_OK;
}

/* A duration, or 0 / none for off (stored as 0): UnallocatedRestartBackoffMax
 * and PreemptLossWait.  A refusal says "@key='value' is not accepted: give
 * @what, as a duration ..., at most 365 days@tail". */
static int set_duration_off(const char *key, const char *what,
			    const char *tail, const char *value, int64_t *dst,
			    char *msg, size_t msglen)
{
	char q[256];
	int64_t secs;

	if (value && !strcasecmp(value, "none")) {
		*dst = 0;
		return SB_OK;
	}
	if (sb_duration_parse(value, &secs) == SB_OK) {
		*dst = secs;
		return SB_OK;
	}
	snprintf(msg, msglen, "%s='%s' is not accepted: give %s, as a duration "
		 "in Slurm time syntax (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S), "
		 "at most 365 days%s", key, sb_quote(value, q, sizeof(q)), what,
		 tail);
	return SB_ESYNTAX;
}

/* Cutover: a local time YYYY-MM-DD[THH:MM[:SS]] (sb_time_parse_iso()), or
 * none (stored as 0). */
static int set_cutover(const char *value, int64_t *dst, char *msg,
		       size_t msglen)
{
	char q[256];
	int64_t t;
	int rc;

	if (value && !strcasecmp(value, "none")) {
		*dst = 0;
		return SB_OK;
	}
	rc = sb_time_parse_iso(value, &t);
	if (rc == 0 && t > 0) {
		*dst = t;
		return SB_OK;
	}
	snprintf(msg, msglen, "Cutover='%s' is not accepted: %sgive the local "
		 "time the cluster switched to priority/budget as "
		 "YYYY-MM-DD[THH:MM[:SS]] (e.g. 2026-12-01T09:00; a Z after "
		 "the time for UTC), or none",
		 sb_quote(value, q, sizeof(q)),
		 rc == -2 ? "that local time does not exist (a daylight-saving "
		 "change); " : "");
	return SB_ESYNTAX;
}

/* "unknown key '@quoted' (accepted: " and sb_config_keys, ", "-separated,
 * then ")" into @msg (truncated to @msglen, NUL-terminated). */
static void unknown_key(const char *quoted, char *msg, size_t msglen)
{
	size_t used, i;

	if (!msg || !msglen)
		return;
	snprintf(msg, msglen, "unknown key '%s' (accepted: ", quoted);
	for (i = 0; sb_config_keys[i]; i++) {
		used = strlen(msg);
		snprintf(msg + used, msglen - used, "%s%s", i ? ", " : "",
			 sb_config_keys[i]);
	}
	used = strlen(msg);
	snprintf(msg + used, msglen - used, ")");
}

int sb_config_set(struct sb_config *cfg, const char *key, const char *value,
		  char *msg, size_t msglen)
{
	char q[256];

	if (msg && msglen)
		msg[0] = '\0';
	if (!cfg || !key || !msg || !msglen)
		return SB_EINVAL;
	if (!strcasecmp(key, "MaxMinRuntime"))
		return set_duration("MaxMinRuntime", value, 0,
				    &cfg->contract.max_min_runtime, msg, msglen);
	if (!strcasecmp(key, "DefaultMinRuntime"))
		return set_duration("DefaultMinRuntime", value, 1,
				    &cfg->contract.default_min_runtime, msg,
				    msglen);
	if (!strcasecmp(key, "CalcPeriod"))
		return set_seconds("CalcPeriod", value, 1, 3600,
				   &cfg->calc_period, msg, msglen);
	if (!strcasecmp(key, "LookbackWindow"))
		return set_duration("LookbackWindow", value, 0,
				    &cfg->lookback_window, msg, msglen);
	if (!strcasecmp(key, "BucketWidth"))
		return set_duration("BucketWidth", value, 0,
				    &cfg->bucket_width, msg, msglen);
	if (!strcasecmp(key, "ChargeTRES"))
		return set_tres(value, cfg->charge_tres,
				sizeof(cfg->charge_tres), msg, msglen);
	if (!strcasecmp(key, "PreemptGraceTime"))
		return set_seconds("PreemptGraceTime", value, 0, 3600,
				   &cfg->preempt.grace_time, msg, msglen);
	if (!strcasecmp(key, "PreemptNonResumable"))
		return set_nonresumable(value, &cfg->preempt.nonresumable, msg,
					msglen);
	if (!strcasecmp(key, "RepairReason"))
		return set_pattern(value, cfg->preempt.repair_reason,
				   sizeof(cfg->preempt.repair_reason), msg,
				   msglen);
	if (!strcasecmp(key, "InteractiveWarning"))
		return set_warning(value, &cfg->preempt.interactive_warning,
				   msg, msglen);
	if (!strcasecmp(key, "SubmitNote"))
		return set_submit_note(value, &cfg->contract.submit_note, msg,
				       msglen);
	if (!strcasecmp(key, "PreemptIntervalFactor"))
		return set_factor(value, &cfg->preempt.interval_factor, msg,
				  msglen);
	if (!strcasecmp(key, "DebugLaneTRES"))
		return set_lane_tres("DebugLaneTRES", value,
				     SB_LANE_TRES_DEFAULT, &cfg->preempt.lane.max_tres,
				     msg, msglen);
	if (!strcasecmp(key, "DebugLaneBudgetTRES"))
		return set_lane_tres("DebugLaneBudgetTRES", value,
				     SB_LANE_BUDGET_TRES_DEFAULT,
				     &cfg->preempt.lane.budget_tres, msg, msglen);
	if (!strcasecmp(key, "DebugLaneMinRuntime"))
		return set_lane_min_runtime(value, &cfg->preempt.lane.max_min_runtime,
					    msg, msglen);
	if (!strcasecmp(key, "UnallocatedRestartBackoffMax"))
		return set_duration_off("UnallocatedRestartBackoffMax",
					"the longest wait before an unallocated "
					"job that is not resumable restarts",
					" (default 1-00:00:00), or 0 or none to "
					"turn the backoff off", value,
					&cfg->preempt.restart_backoff_max, msg,
					msglen);
	if (!strcasecmp(key, "PreemptLossWait"))
		return set_duration_off("PreemptLossWait", "how long a job "
					"waits for GPUs to free before it may "
					"preempt a run that would lose its work",
					", or 0 or none (the default) to turn "
					"the wait off", value,
					&cfg->preempt.loss_wait, msg, msglen);
	if (!strcasecmp(key, "Cutover"))
		return set_cutover(value, &cfg->cutover, msg, msglen);
	unknown_key(sb_quote(key, q, sizeof(q)), msg, msglen);
	return SB_EUNKNOWNKEY;
}

int sb_config_check(const struct sb_config *cfg, char *msg, size_t msglen)
{
	char d[32], m[32];

	if (cfg->contract.default_min_runtime > cfg->contract.max_min_runtime) {
		snprintf(msg, msglen, "DefaultMinRuntime=%s exceeds "
			 "MaxMinRuntime=%s: lower the default or raise the "
			 "maximum",
			 sb_duration_format(cfg->contract.default_min_runtime,
					    d, sizeof(d)),
			 sb_duration_format(cfg->contract.max_min_runtime, m,
					    sizeof(m)));
		return SB_EABOVEMAX;
	}
	if (cfg->bucket_width <= 0 || cfg->lookback_window <= 0 ||
	    cfg->lookback_window % cfg->bucket_width ||
	    cfg->lookback_window / cfg->bucket_width > 100000) {
		snprintf(msg, msglen, "LookbackWindow=%s must be a positive "
			 "multiple of BucketWidth=%s, with at most 100000 "
			 "buckets",
			 sb_duration_format(cfg->lookback_window, d, sizeof(d)),
			 sb_duration_format(cfg->bucket_width, m, sizeof(m)));
		return SB_ERANGE;
	}
	return SB_OK;
}

char *sb_config_describe(const struct sb_config *cfg, char *buf, size_t len)
{
	char m[32], d[32], w[32], b[32], iw[32], co[32], lm[32], rb[32];
	char lw[32];

	snprintf(buf, len, "MaxMinRuntime=%s DefaultMinRuntime=%s "
		 "CalcPeriod=%lld LookbackWindow=%s BucketWidth=%s ChargeTRES=%s "
		 "PreemptGraceTime=%lld PreemptNonResumable=%s RepairReason=%s "
		 "InteractiveWarning=%s SubmitNote=%s PreemptIntervalFactor=%u "
		 "DebugLaneTRES=%llu DebugLaneMinRuntime=%s "
		 "DebugLaneBudgetTRES=%llu UnallocatedRestartBackoffMax=%s "
		 "PreemptLossWait=%s Cutover=%s",
		 sb_duration_format(cfg->contract.max_min_runtime, m, sizeof(m)),
		 cfg->contract.default_min_runtime < 0 ? "none" :
		 sb_duration_format(cfg->contract.default_min_runtime, d,
				    sizeof(d)),
		 (long long)cfg->calc_period,
		 sb_duration_format(cfg->lookback_window, w, sizeof(w)),
		 sb_duration_format(cfg->bucket_width, b, sizeof(b)),
		 cfg->charge_tres, (long long)cfg->preempt.grace_time,
		 nonresumable_word(cfg->preempt.nonresumable),
		 cfg->preempt.repair_reason[0] ? cfg->preempt.repair_reason :
		 "none",
		 cfg->preempt.interactive_warning > 0 ?
		 sb_duration_format(cfg->preempt.interactive_warning, iw,
				    sizeof(iw)) : "none",
		 cfg->contract.submit_note ? "yes" : "no",
		 cfg->preempt.interval_factor,
		 (unsigned long long)cfg->preempt.lane.max_tres,
		 sb_duration_format(cfg->preempt.lane.max_min_runtime, lm, sizeof(lm)),
		 (unsigned long long)cfg->preempt.lane.budget_tres,
		 cfg->preempt.restart_backoff_max > 0 ?
		 sb_duration_format(cfg->preempt.restart_backoff_max, rb,
				    sizeof(rb)) : "none",
		 cfg->preempt.loss_wait > 0 ?
		 sb_duration_format(cfg->preempt.loss_wait, lw, sizeof(lw)) :
		 "none",
		 cfg->cutover > 0 ? sb_time_format_iso(cfg->cutover, co,
							sizeof(co)) : "none");
	return buf;
}

/* ------------------------------------------------------ the file grammar */

/*
 * The lexer follows Slurm 22.05's src/common/parse_config.c as budget.conf
 * used it (s_p_parse_file, every key S_P_STRING, no ignore flag): comments
 * and continuations per physical line, escapes per logical line, one
 * key=value pair per logical line.  See sb_config_parse() in sb/config.h for
 * the grammar and the four quirks refused here.
 */

/* C locale isspace(): the set parse_config's regex calls [[:space:]]. */
static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/* [[:alnum:]_.] in the C locale: the characters of a key. */
static int is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.';
}

/* Cut @s at the first '#' preceded by an even number of backslashes. */
static void strip_comment(char *s)
{
	size_t bs = 0;

	for (; *s; s++) {
		if (*s == '#' && bs % 2 == 0) {
			*s = '\0';
			return;
		}
		bs = *s == '\\' ? bs + 1 : 0;
	}
}

/*
 * If @s (length @len) ends with an odd number of backslashes, possibly
 * followed by white space, cut the last backslash and what follows it and
 * return the new length; otherwise return @len (no continuation).
 */
static size_t strip_continuation(char *s, size_t len)
{
	size_t i = len, bs = 0;

	while (i > 0) {
		char c = s[i - 1];

		if (c == '\\')
			bs++;
		else if (!(is_ws(c) && bs == 0))
			break;
		i--;
	}
	if (bs % 2 == 0)
		return len;
	/* s[i .. i+bs-1] are the backslashes: drop the last one onwards */
	s[i + bs - 1] = '\0';
	return i + bs - 1;
}

/* Remove each backslash and keep the character after it as is. */
static void strip_escapes(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '\\' && !*++s)
			break;
		*o++ = *s;
	}
	*o = '\0';
}

/* The index of @key in sb_config_keys, or -1 when it is not a key. */
static int key_index(const char *key)
{
	int i;

	for (i = 0; sb_config_keys[i]; i++)
		if (!strcasecmp(key, sb_config_keys[i]))
			return i;
	return -1;
}

struct lex {
	const char *origin;
	unsigned first_line[sizeof(sb_config_keys) /
			   sizeof(sb_config_keys[0])];	/* 0: not yet */
	char *msg;
	size_t msglen;
};

/* "ORIGIN line N: " + the formatted text; returns @rc. */
static int lex_fail(struct lex *lx, unsigned line, int rc, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));
static int lex_fail(struct lex *lx, unsigned line, int rc, const char *fmt,
		    ...)
{
	va_list ap;
	int n = snprintf(lx->msg, lx->msglen, "%s line %u: ", lx->origin, line);

	if (n < 0 || (size_t)n >= lx->msglen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(lx->msg + n, lx->msglen - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

/* Does @s start with "Key=" (a pair, as a second one on a line)? */
static int looks_like_pair(const char *s)
{
	const char *p = s;

	while (is_key_char(*p))
		p++;
	if (p == s)
		return 0;
	while (is_ws(*p))
		p++;
	return *p == '=' || (*p && strchr("-*+/", *p) && p[1] == '=');
}

/*
 * One logical line (comments, continuations and escapes done) starting at
 * physical line @line: white space only, or one pair, set into @cfg.
 */
static int parse_pair(struct lex *lx, struct sb_config *cfg, char *s,
		      unsigned line)
{
	char q[256], q2[256], q3[256], why[512];
	char *key, *key_end, *vstart, *val, *val_end, *rest;
	size_t n = strlen(s);
	int idx, rc;

	/* white space at the ends never matters: drop it (and the newline) */
	while (n > 0 && is_ws(s[n - 1]))
		s[--n] = '\0';
	while (is_ws(*s))
		s++;
	if (!*s)
		return SB_OK;
	if (!strncasecmp(s, "include", 7) && (is_ws(s[7]) || !s[7]))
		return lex_fail(lx, line, SB_ESYNTAX, "'%s': Include is not "
				"supported in budget.conf; write the settings "
				"in this file", sb_quote(s, q, sizeof(q)));
	key = s;
	while (is_key_char(*s))
		s++;
	key_end = s;
	while (is_ws(*s))
		s++;
	if (key_end > key && *s && strchr("-*+/", *s) && s[1] == '=') {
		char op = *s;	/* key_end may be s */

		*key_end = '\0';
		return lex_fail(lx, line, SB_ESYNTAX, "'%s%c=': operators are "
				"not supported; write %s=VALUE",
				sb_quote(key, q, sizeof(q)), op, q);
	}
	if (key_end == key || *s != '=')
		return lex_fail(lx, line, SB_ESYNTAX, "'%s' is not Key=Value "
				"(a key of letters, digits, '_' or '.', then "
				"'=', then a value)", sb_quote(key, q, sizeof(q)));
	*key_end = '\0';
	s++;
	while (is_ws(*s))
		s++;
	if (!*s)
		return lex_fail(lx, line, SB_ESYNTAX, "%s= has no value: give "
				"one, or \"\" for an empty value",
				sb_quote(key, q, sizeof(q)));
	vstart = s;
	if (*s == '"') {
		val = s + 1;
		val_end = strchr(val, '"');
		if (!val_end || (val_end[1] && !is_ws(val_end[1])))
			goto bad_quote;
		rest = val_end + 1;
	} else {
		val = s;
		while (*s && !is_ws(*s)) {
			if (*s == '"')
				goto bad_quote;
			s++;
		}
		val_end = rest = s;
	}
	while (is_ws(*rest))
		rest++;
	/* safe: text after the value begins beyond val_end */
	*val_end = '\0';
	if (*rest)
		return lex_fail(lx, line, SB_ESYNTAX, "'%s' after %s=%s: %s",
				sb_quote(rest, q2, sizeof(q2)),
				sb_quote(key, q, sizeof(q)),
				sb_quote(val, q3, sizeof(q3)),
				looks_like_pair(rest) ? "one Key=Value per line; "
				"put each setting on its own line" :
				"unexpected text; a line holds one Key=Value "
				"and '#' starts a comment");
	if ((idx = key_index(key)) >= 0) {
		if (lx->first_line[idx])
			return lex_fail(lx, line, SB_EDUPLICATE, "%s='%s' gives "
					"the key again (first on line %u): "
					"give each key once",
					sb_config_keys[idx],
					sb_quote(val, q3, sizeof(q3)),
					lx->first_line[idx]);
		lx->first_line[idx] = line;
	}
	if ((rc = sb_config_set(cfg, key, val, why, sizeof(why))) != SB_OK)
		return lex_fail(lx, line, rc, "%s", why);
	return SB_OK;
bad_quote:
	return lex_fail(lx, line, SB_ESYNTAX, "%s=%s: a '\"' must quote the "
			"whole value (\"...\" followed by white space or the "
			"end of the line)", sb_quote(key, q, sizeof(q)),
			sb_quote(vstart, q2, sizeof(q2)));
}

int sb_config_parse(struct sb_config *cfg, const char *text,
		    const char *origin, char *msg, size_t msglen)
{
	struct sb_config next;
	struct lex lx;
	const char *pos = text;
	char *buf;
	unsigned line = 1;
	int rc = SB_OK;

	if (msg && msglen)
		msg[0] = '\0';
	if (!cfg || !text || !msg || !msglen)
		return SB_EINVAL;
	memset(&lx, 0, sizeof(lx));
	lx.origin = origin ? origin : "budget.conf";
	lx.msg = msg;
	lx.msglen = msglen;
	/* a logical line is never longer than the text */
	if (!(buf = malloc(strlen(text) + 1))) {
		snprintf(msg, msglen, "%s: out of memory", lx.origin);
		return SB_ENOMEM;
	}
	next = *cfg;
	while (*pos && rc == SB_OK) {
		unsigned first = line;
		size_t len = 0;

		/* gather one logical line: physical lines joined by '\' */
		for (;;) {
			const char *nl = strchr(pos, '\n');
			size_t n = nl ? (size_t)(nl - pos) + 1 : strlen(pos);
			size_t seg, cut;

			memcpy(buf + len, pos, n);
			buf[len + n] = '\0';
			pos += n;
			line++;
			strip_comment(buf + len);
			seg = strlen(buf + len);
			cut = strip_continuation(buf + len, seg);
			len += cut;
			if (cut == seg || !*pos)
				break;
		}
		strip_escapes(buf);
		if (buf[0])
			rc = parse_pair(&lx, &next, buf, first);
	}
	free(buf);
	if (rc != SB_OK)
		return rc;
	if ((rc = sb_config_check(&next, msg, msglen)) != SB_OK) {
		char why[512];

		snprintf(why, sizeof(why), "%s", msg);
		snprintf(msg, msglen, "%s: %s", lx.origin, why);
		return rc;
	}
	*cfg = next;
	return SB_OK;
}
