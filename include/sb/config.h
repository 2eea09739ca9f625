/*
 * sb/config.h - budget.conf settings, validated by the core so that the
 * plugins and the simulator accept exactly the same keys and values.
 *
 * The plugins read the file with Slurm's parse_config (syntax, comments,
 * unknown keys) and hand each value to sb_config_set(); see budget.conf(5).
 */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

#include <stddef.h>

#include "sb/contract.h"
#include "sb/preempt.h"

/* Longest ChargeTRES value ("gres/gpu", "cpu", "gres/gpu:h100"). */
#define SB_TRES_NAME_MAX 64

struct sb_config {
	struct sb_contract_policy contract;	/* MaxMinRuntime, DefaultMinRuntime */
	int64_t calc_period;	/* CalcPeriod: seconds between recalculations */
	int64_t lookback_window;	/* LookbackWindow: seconds */
	int64_t bucket_width;	/* BucketWidth: seconds; divides the window */
	char charge_tres[SB_TRES_NAME_MAX];	/* ChargeTRES: "type[/name]" */
	struct sb_preempt_policy preempt;	/* PreemptGraceTime,
						 * PreemptNonResumable,
						 * RepairReason */
};

/* The keys budget.conf accepts, NULL-terminated, in documentation order. */
extern const char *const sb_config_keys[];

/* sb_config_init - fill @cfg with the documented defaults. */
void sb_config_init(struct sb_config *cfg);

/*
 * sb_config_set - set one key (case-insensitive) from its text value.
 * On failure @cfg is unchanged and @msg names the key and value and says what
 * is accepted.  Return: SB_OK, SB_EUNKNOWNKEY, or the value's parse error.
 */
int sb_config_set(struct sb_config *cfg, const char *key, const char *value,
		  char *msg, size_t msglen);

/*
 * sb_config_check - cross-key checks after all keys are set (for example
 * DefaultMinRuntime must not exceed MaxMinRuntime).  Return: SB_OK or
 * SB_EABOVEMAX with @msg filled.
 */
int sb_config_check(const struct sb_config *cfg, char *msg, size_t msglen);

/*
 * sb_config_describe - one line "MaxMinRuntime=8:00:00 DefaultMinRuntime=none"
 * for the logs.  Returns @buf.
 */
char *sb_config_describe(const struct sb_config *cfg, char *buf, size_t len);

#endif /* SB_CONFIG_H */
