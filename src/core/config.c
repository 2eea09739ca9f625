/* config.c - budget.conf keys, defaults and validation. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sb/config.h"
#include "sb/duration.h"
#include "sb/error.h"

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
	NULL,
};

void sb_config_init(struct sb_config *cfg)
{
	cfg->contract.max_min_runtime = SB_DEFAULT_MAX_MIN_RUNTIME;
	cfg->contract.default_min_runtime = -1;	/* none: must be given */
	cfg->calc_period = 60;
	cfg->lookback_window = 7 * 86400;
	cfg->bucket_width = 3600;
	snprintf(cfg->charge_tres, sizeof(cfg->charge_tres), "gres/gpu");
	sb_preempt_policy_init(&cfg->preempt);
}

/* PreemptNonResumable: cancel | keep. */
static int set_nonresumable(const char *value, enum sb_nonresumable *dst,
			    char *msg, size_t msglen)
{
	char q[256];

	if (value && !strcasecmp(value, "cancel")) {
		*dst = SB_NONRESUMABLE_CANCEL;
		return SB_OK;
	}
	if (value && !strcasecmp(value, "keep")) {
		*dst = SB_NONRESUMABLE_KEEP;
		return SB_OK;
	}
	snprintf(msg, msglen, "PreemptNonResumable='%s' is not accepted: give "
		 "cancel (the default: a victim that is not resumable is "
		 "cancelled) or keep (it is never preempted)",
		 sb_quote(value, q, sizeof(q)));
	return SB_ESYNTAX;
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

/* Whole seconds in [lo, hi] (CalcPeriod). */
static int set_seconds(const char *key, const char *value, int64_t lo,
		       int64_t hi, int64_t *dst, char *msg, size_t msglen)
{
	char q[256];
	int64_t v = 0;
	const char *p = value;

	if (!p || !*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > hi)
			goto bad;
		v = v * 10 + (*p - '0');
	}
	if (v < lo || v > hi)
		goto bad;
	*dst = v;
	return SB_OK;
bad:
	snprintf(msg, msglen, "%s='%s' is not accepted: give whole seconds "
		 "from %lld to %lld", key, sb_quote(value, q, sizeof(q)),
		 (long long)lo, (long long)hi);
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
	snprintf(msg, msglen, "unknown key '%s' (accepted: MaxMinRuntime, "
		 "DefaultMinRuntime, CalcPeriod, LookbackWindow, BucketWidth, "
		 "ChargeTRES, PreemptGraceTime, PreemptNonResumable, "
		 "RepairReason)", sb_quote(key, q, sizeof(q)));
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
	char m[32], d[32], w[32], b[32];

	snprintf(buf, len, "MaxMinRuntime=%s DefaultMinRuntime=%s "
		 "CalcPeriod=%lld LookbackWindow=%s BucketWidth=%s ChargeTRES=%s "
		 "PreemptGraceTime=%lld PreemptNonResumable=%s RepairReason=%s",
		 sb_duration_format(cfg->contract.max_min_runtime, m, sizeof(m)),
		 cfg->contract.default_min_runtime < 0 ? "none" :
		 sb_duration_format(cfg->contract.default_min_runtime, d,
				    sizeof(d)),
		 (long long)cfg->calc_period,
		 sb_duration_format(cfg->lookback_window, w, sizeof(w)),
		 sb_duration_format(cfg->bucket_width, b, sizeof(b)),
		 cfg->charge_tres, (long long)cfg->preempt.grace_time,
		 cfg->preempt.nonresumable == SB_NONRESUMABLE_KEEP ? "keep" :
		 "cancel",
		 cfg->preempt.repair_reason[0] ? cfg->preempt.repair_reason :
		 "none");
	return buf;
}
