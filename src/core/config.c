/* config.c - budget.conf keys, defaults and validation. */
#include <stdio.h>
#include <strings.h>

#include "sb/config.h"
#include "sb/duration.h"
#include "sb/error.h"

const char *const sb_config_keys[] = {
	"MaxMinRuntime",
	"DefaultMinRuntime",
	NULL,
};

void sb_config_init(struct sb_config *cfg)
{
	cfg->contract.max_min_runtime = SB_DEFAULT_MAX_MIN_RUNTIME;
	cfg->contract.default_min_runtime = -1;	/* none: must be given */
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
	snprintf(msg, msglen, "unknown key '%s' (accepted: MaxMinRuntime, "
		 "DefaultMinRuntime)", sb_quote(key, q, sizeof(q)));
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
	return SB_OK;
}

char *sb_config_describe(const struct sb_config *cfg, char *buf, size_t len)
{
	char m[32], d[32];

	snprintf(buf, len, "MaxMinRuntime=%s DefaultMinRuntime=%s",
		 sb_duration_format(cfg->contract.max_min_runtime, m, sizeof(m)),
		 cfg->contract.default_min_runtime < 0 ? "none" :
		 sb_duration_format(cfg->contract.default_min_runtime, d,
				    sizeof(d)));
	return buf;
}
