/*
 * sb/config.h - budget.conf settings, validated by the core so that the
 * plugins and the simulator accept exactly the same keys and values.
 *
 * Every reader (the controller plugins, sbudget, sbudget-sim) hands the
 * file's text to sb_config_parse(): one grammar, one set of messages; see
 * budget.conf(5) for the grammar and doc/design.md for why the plugins do not
 * use Slurm's parse_config for it.
 */
#ifndef SB_CONFIG_H
#define SB_CONFIG_H

#include <stddef.h>

#include "sb/contract.h"
#include "sb/preempt.h"

/* Longest ChargeTRES value ("gres/gpu", "cpu", "gres/gpu:h100"). */
#define SB_TRES_NAME_MAX 64

/* The largest budget.conf any reader accepts, in bytes.  A real one is a few
 * hundred bytes: the limit only stops a wrong file (a log, a core dump). */
#define SB_CONFIG_MAX_BYTES (1024 * 1024)

struct sb_config {
	struct sb_contract_policy contract;	/* MaxMinRuntime, DefaultMinRuntime */
	int64_t calc_period;	/* CalcPeriod: seconds between recalculations */
	int64_t lookback_window;	/* LookbackWindow: seconds */
	int64_t bucket_width;	/* BucketWidth: seconds; divides the window */
	char charge_tres[SB_TRES_NAME_MAX];	/* ChargeTRES: "type[/name]" */
	struct sb_preempt_policy preempt;	/* PreemptGraceTime,
						 * PreemptNonResumable,
						 * RepairReason, ...,
						 * DebugLane* (.lane) */
	int64_t cutover;	/* Cutover: seconds since the epoch when the
				 * cluster switched to these plugins; 0 =
				 * none (sb_run_allocated()) */
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
 * sb_config_parse - read budget.conf's @text (NUL-terminated, the whole file)
 * into @cfg, which holds the starting values (normally sb_config_init()'s
 * defaults).  The grammar is Slurm's parse_config's for plain keys (as in
 * cgroup.conf), with four of its quirks refused instead of accepted:
 *
 *   - a physical line ends at '\n' or at the end of the text; '#' starts a
 *     comment to the end of the physical line unless preceded by an odd
 *     number of backslashes; an odd number of backslashes at the end of a
 *     physical line (trailing white space allowed after them) continues the
 *     logical line on the next one; then each backslash is removed and the
 *     character after it kept as is ("\#" is '#', "\\" is '\');
 *   - a logical line is empty, white space, or exactly ONE pair
 *     [ws] Key [ws] '=' [ws] Value [ws]: Key is letters, digits, '_' and '.',
 *     compared case-insensitively; Value is a run of non-white-space
 *     characters, or "quoted" (any characters but '"', may be empty), the
 *     closing quote followed by white space or the end of the line;
 *     white space is ' ', '\t', '\n', '\v', '\f', '\r' (so CRLF files read
 *     as LF files);
 *   - refused where Slurm accepts: a second pair on a line is refused as by
 *     Slurm, and also: a key given twice (Slurm logs an error and keeps the
 *     last), "Key+=V" and the other operators (Slurm ignores the operator
 *     for these keys), "Include FILE" (Slurm reads another file), and a
 *     value with a '"' that does not quote the whole value (Slurm keeps
 *     the quote as text).
 *
 * Each value then goes through sb_config_set() (unknown keys are refused)
 * and the whole through sb_config_check().  @origin names the text in
 * messages (a path, or "budget.conf"); NULL means "budget.conf".
 *
 * Return: SB_OK with @cfg updated; otherwise @cfg is unchanged and @msg says
 * "ORIGIN line N: ..." naming the key and value (or the text) and what is
 * accepted: SB_ESYNTAX (grammar), SB_EDUPLICATE (a key twice),
 * SB_EUNKNOWNKEY, a value's error from sb_config_set(), sb_config_check()'s
 * error (no line number: it concerns several keys), SB_ENOMEM, SB_EINVAL
 * (NULL @cfg, @text or @msg, or @msglen 0).
 */
int sb_config_parse(struct sb_config *cfg, const char *text,
		    const char *origin, char *msg, size_t msglen);

/*
 * sb_config_describe - one line "MaxMinRuntime=8:00:00 DefaultMinRuntime=none"
 * for the logs.  Returns @buf.
 */
char *sb_config_describe(const struct sb_config *cfg, char *buf, size_t len);

#endif /* SB_CONFIG_H */
