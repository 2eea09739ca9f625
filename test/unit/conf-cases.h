/*
 * conf-cases.h - ONE table of budget.conf texts, fed to every reader:
 * config-test (sb_config_parse, the core), and through conf-cases --dump
 * to test/integration/t-conf.sh (sbudget-sim, sbudget, slurmctld's plugins)
 * and to conf-slurm-probe (Slurm's own parse_config, whose Key=Value rules
 * the core's grammar follows).
 *
 * Each case states the text, whether it is accepted, and what must be in
 * the result: for an accepted text, '|'-separated pieces of
 * sb_config_describe(); for a refused one, a piece of the message (which
 * always begins "budget.conf line N: " when a line is at fault).
 *
 * @slurm says what Slurm 22.05's parse_config, followed by sb_config_set()
 * and sb_config_check() as budget_conf.c did before, makes of the text:
 * SAME (the same verdict), or ACCEPTS (one of the quirks sb_config_parse()
 * refuses on purpose: a key twice, an operator, Include, a stray quote).
 *
 * A '@' in @text stands for @pad copies of @padc (long lines); texts
 * contain no '@' otherwise.
 */
#ifndef SB_CONF_CASES_H
#define SB_CONF_CASES_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum conf_slurm { SAME = 0, ACCEPTS = 1 };

struct conf_case {
	const char *name;	/* a file name: [a-z0-9-] */
	const char *text;
	int ok;			/* 1 accepted, 0 refused */
	const char *expect;	/* see above */
	enum conf_slurm slurm;
	size_t pad;
	char padc;
};

#define D "budget.conf line "

static const struct conf_case conf_cases[] = {
	/* --- accepted: layout */
	{ "empty", "", 1, "CalcPeriod=60|RepairReason=repair*", SAME, 0, 0 },
	{ "comments-only", "# budget.conf\n\n   # indented\n#\n", 1,
	  "CalcPeriod=60", SAME, 0, 0 },
	{ "plain", "CalcPeriod=30\nLookbackWindow=1-0\nBucketWidth=1:00:00\n",
	  1, "CalcPeriod=30|LookbackWindow=1-00:00:00", SAME, 0, 0 },
	{ "spaces-around-eq", "CalcPeriod = 30\n", 1, "CalcPeriod=30", SAME,
	  0, 0 },
	{ "tabs-and-indent", "\t CalcPeriod\t=\t30 \t\n", 1, "CalcPeriod=30",
	  SAME, 0, 0 },
	{ "key-case", "calcperiod=30\nLOOKBACKWINDOW=2-0\nchargetres=cpu\n", 1,
	  "CalcPeriod=30|LookbackWindow=2-00:00:00|ChargeTRES=cpu", SAME, 0, 0 },
	{ "trailing-comment", "CalcPeriod=30 # every 30 s\n", 1,
	  "CalcPeriod=30", SAME, 0, 0 },
	{ "comment-no-space", "CalcPeriod=30#x=1\n", 1, "CalcPeriod=30", SAME,
	  0, 0 },
	{ "crlf", "# dos\r\nCalcPeriod=30\r\nChargeTRES=cpu\r\n\r\n", 1,
	  "CalcPeriod=30|ChargeTRES=cpu", SAME, 0, 0 },
	{ "no-newline-at-eof", "ChargeTRES=cpu\nCalcPeriod=30", 1,
	  "CalcPeriod=30|ChargeTRES=cpu", SAME, 0, 0 },
	{ "blank-lines-with-space", "  \n\t\n\v\f\nCalcPeriod=30\n \n", 1,
	  "CalcPeriod=30", SAME, 0, 0 },
	{ "quoted-value", "RepairReason=\"fix me*\"\n", 1,
	  "RepairReason=fix me*", SAME, 0, 0 },
	{ "quoted-empty", "RepairReason=\"\"\n", 1, "RepairReason=none",
	  SAME, 0, 0 },
	{ "quoted-word", "PreemptNonResumable=\"keep\"   # q\n", 1,
	  "PreemptNonResumable=keep", SAME, 0, 0 },
	{ "escaped-hash", "RepairReason=fix\\#*\n", 1, "RepairReason=fix#*",
	  SAME, 0, 0 },
	{ "escaped-backslash", "RepairReason=a\\\\b*\n", 1,
	  "RepairReason=a\\b*", SAME, 0, 0 },
	{ "continuation", "CalcPeriod=3\\\n0\nChargeTRES=cpu\n", 1,
	  "CalcPeriod=30|ChargeTRES=cpu", SAME, 0, 0 },
	{ "continuation-space-comment", "CalcPeriod=\\ # split\n30\n", 1,
	  "CalcPeriod=30", SAME, 0, 0 },
	{ "continuation-at-eof", "CalcPeriod=30\\", 1, "CalcPeriod=30", SAME,
	  0, 0 },
	{ "value-case", "PreemptNonResumable=KEEP\nRepairReason=Repair*\n", 1,
	  "PreemptNonResumable=keep|RepairReason=Repair*", SAME, 0, 0 },
	{ "nonresumable-requeue", "PreemptNonResumable=Requeue\n", 1,
	  "PreemptNonResumable=requeue", SAME, 0, 0 },
	{ "nonresumable-cancel", "PreemptNonResumable=cancel\n", 1,
	  "PreemptNonResumable=cancel", SAME, 0, 0 },
	{ "nonresumable-default", "CalcPeriod=30\n", 1,
	  "PreemptNonResumable=requeue", SAME, 0, 0 },
	{ "every-key",
	  "MaxMinRuntime=4:00:00\nDefaultMinRuntime=15\nCalcPeriod=10\n"
	  "LookbackWindow=2-0\nBucketWidth=0:30:00\nChargeTRES=gres/gpu:h100\n"
	  "PreemptGraceTime=0\nPreemptNonResumable=keep\nRepairReason=none\n"
	  "InteractiveWarning=0:20\nSubmitNote=no\nPreemptIntervalFactor=4\n", 1,
	  "MaxMinRuntime=4:00:00 DefaultMinRuntime=0:15:00 CalcPeriod=10 "
	  "LookbackWindow=2-00:00:00 BucketWidth=0:30:00 "
	  "ChargeTRES=gres/gpu:h100 PreemptGraceTime=0 "
	  "PreemptNonResumable=keep RepairReason=none "
	  "InteractiveWarning=0:00:20 SubmitNote=no PreemptIntervalFactor=4",
	  SAME, 0, 0 },
	{ "submit-note", "submitnote=NO\n", 1, "SubmitNote=no", SAME, 0, 0 },
	{ "submit-note-default", "CalcPeriod=30\n", 1, "SubmitNote=yes", SAME,
	  0, 0 },
	{ "submit-note-bad", "SubmitNote=maybe\n", 0,
	  D "1: SubmitNote='maybe' is not accepted: give yes", SAME, 0, 0 },
	{ "interactive-warning", "InteractiveWarning=10\n", 1,
	  "InteractiveWarning=0:10:00", SAME, 0, 0 },
	{ "interactive-warning-off", "interactivewarning=NONE\n", 1,
	  "InteractiveWarning=none", SAME, 0, 0 },
	{ "interactive-warning-zero", "InteractiveWarning=0\n", 1,
	  "InteractiveWarning=none", SAME, 0, 0 },
	{ "cutover", "Cutover=2026-12-01T09:00\n", 1,
	  "Cutover=2026-12-01T09:00:00", SAME, 0, 0 },
	{ "cutover-seconds", "cutover = 2026-02-28T23:59:59\n", 1,
	  "Cutover=2026-02-28T23:59:59", SAME, 0, 0 },
	{ "cutover-day", "Cutover=2026-12-01\n", 1,
	  "Cutover=2026-12-01T00:00:00", SAME, 0, 0 },
	{ "cutover-none", "Cutover=none\n", 1, "Cutover=none", SAME, 0, 0 },
	{ "cutover-default", "CalcPeriod=30\n", 1, "Cutover=none", SAME, 0, 0 },
	{ "interval-default", "CalcPeriod=30\n", 1,
	  "PreemptIntervalFactor=2", SAME, 0, 0 },
	{ "interval-bounds", "preemptintervalfactor = 100 # at most\n", 1,
	  "PreemptIntervalFactor=100", SAME, 0, 0 },
	{ "interval-one", "PreemptIntervalFactor=1\n", 1,
	  "PreemptIntervalFactor=1", SAME, 0, 0 },
	/* Slurm's rule, kept: whitespace may follow '=', so a key left empty
	 * takes the next word as its value, '=' and all */
	{ "empty-then-pair", "RepairReason= CalcPeriod=5\n", 1,
	  "CalcPeriod=60|RepairReason=CalcPeriod=5", SAME, 0, 0 },
	{ "long-comment", "# @\nCalcPeriod=30\n", 1, "CalcPeriod=30", SAME,
	  100000, 'x' },
	{ "long-indent", "@CalcPeriod=30\n", 1, "CalcPeriod=30", SAME, 20000,
	  ' ' },
	{ "many-blank-lines", "@CalcPeriod=30\n", 1, "CalcPeriod=30", SAME,
	  5000, '\n' },

	/* --- refused: layout */
	{ "two-pairs", "CalcPeriod=60 LookbackWindow=1-0\n", 0,
	  D "1: 'LookbackWindow=1-0' after CalcPeriod=60: one Key=Value per "
	  "line", SAME, 0, 0 },
	{ "two-pairs-tab", "# x\nChargeTRES=cpu\tCalcPeriod=5\n", 0,
	  D "2: 'CalcPeriod=5' after ChargeTRES=cpu: one Key=Value", SAME, 0,
	  0 },
	{ "trailing-garbage", "CalcPeriod=60 junk\n", 0,
	  D "1: 'junk' after CalcPeriod=60: unexpected text", SAME, 0, 0 },
	{ "no-equals", "CalcPeriod 60\n", 0,
	  D "1: 'CalcPeriod 60' is not Key=Value", SAME, 0, 0 },
	{ "bare-word", "\n\nCalcPeriod\n", 0,
	  D "3: 'CalcPeriod' is not Key=Value", SAME, 0, 0 },
	{ "no-key", "=60\n", 0, D "1: '=60' is not Key=Value", SAME, 0, 0 },
	{ "space-in-key", "Calc Period=60\n", 0, D "1: 'Calc Period=60' is not",
	  SAME, 0, 0 },
	{ "empty-value", "CalcPeriod=\n", 0,
	  D "1: CalcPeriod= has no value", SAME, 0, 0 },
	{ "empty-value-comment", "CalcPeriod= # none\n", 0,
	  D "1: CalcPeriod= has no value", SAME, 0, 0 },
	{ "cr-only-endings", "CalcPeriod=30\rChargeTRES=cpu\r", 0,
	  D "1: 'ChargeTRES=cpu' after CalcPeriod=30: one Key=Value", SAME, 0,
	  0 },
	{ "utf8-bom", "\xef\xbb\xbf" "CalcPeriod=30\n", 0,
	  D "1: '\\xef\\xbb\\xbfCalcPeriod=30' is not Key=Value", SAME, 0, 0 },
	{ "binary-junk", "CalcPeriod=30\n\x01\x02\x7f\xfe\xff=\x80\x90\n", 0,
	  D "2: '\\x01\\x02\\x7f\\xfe\\xff=\\x80\\x90' is not Key=Value", SAME,
	  0, 0 },
	{ "binary-value", "CalcPeriod=3\x80\n", 0,
	  D "1: CalcPeriod='3\\x80' is not accepted", SAME, 0, 0 },
	{ "non-ascii-key", "Calc\xc3\xa9=1\n", 0, D "1: 'Calc\\xc3\\xa9=1' is "
	  "not Key=Value", SAME, 0, 0 },
	{ "escaped-space", "RepairReason=fix\\ me\n", 0,
	  D "1: 'me' after RepairReason=fix: unexpected text", SAME, 0, 0 },
	{ "line-after-continuation", "CalcPeriod=3\\\n0\n\nFoo=1\n", 0,
	  D "4: unknown key 'Foo'", SAME, 0, 0 },

	/* --- refused: keys and values (sb_config_set, sb_config_check) */
	{ "unknown-key", "# c\nCalcPerod=60\n", 0,
	  D "2: unknown key 'CalcPerod' (accepted: MaxMinRuntime", SAME, 0, 0 },
	{ "dotted-key", "Calc.Period=1\n", 0, D "1: unknown key 'Calc.Period'",
	  SAME, 0, 0 },
	{ "bad-value", "CalcPeriod=0\n", 0,
	  D "1: CalcPeriod='0' is not accepted: give whole seconds from 1 to "
	  "3600", SAME, 0, 0 },
	{ "bad-duration", "LookbackWindow=7d\n", 0,
	  D "1: LookbackWindow='7d': malformed value", SAME, 0, 0 },
	{ "quoted-empty-number", "CalcPeriod=\"\"\n", 0,
	  D "1: CalcPeriod='' is not accepted", SAME, 0, 0 },
	{ "value-with-eq", "ChargeTRES==cpu\n", 0,
	  D "1: ChargeTRES='=cpu' is not accepted", SAME, 0, 0 },
	{ "quoted-bad-value", "PreemptNonResumable=\"maybe later\"\n", 0,
	  D "1: PreemptNonResumable='maybe later' is not accepted", SAME, 0, 0 },
	{ "interval-zero", "PreemptIntervalFactor=0\n", 0,
	  D "1: PreemptIntervalFactor='0' is not accepted: give a whole number "
	  "from 1 to 100", SAME, 0, 0 },
	{ "interval-above", "PreemptIntervalFactor=101\n", 0,
	  D "1: PreemptIntervalFactor='101' is not accepted", SAME, 0, 0 },
	{ "interval-fraction", "PreemptIntervalFactor=1.5\n", 0,
	  D "1: PreemptIntervalFactor='1.5' is not accepted", SAME, 0, 0 },
	{ "interval-negative", "PreemptIntervalFactor=-2\n", 0,
	  D "1: PreemptIntervalFactor='-2' is not accepted", SAME, 0, 0 },
	{ "interval-huge", "PreemptIntervalFactor=99999999999999999999\n", 0,
	  D "1: PreemptIntervalFactor='99999999999999999999' is not accepted",
	  SAME, 0, 0 },
	{ "nonresumable-restart", "PreemptNonResumable=restart\n", 0,
	  D "1: PreemptNonResumable='restart' is not accepted: give requeue",
	  SAME, 0, 0 },
	{ "long-value", "RepairReason=@\n", 0, D "1: RepairReason='xxxxxxxx",
	  SAME, 5000, 'x' },
	{ "long-key", "@=1\n", 0, D "1: unknown key 'KKKKKKKK", SAME, 100000,
	  'K' },
	{ "bad-interactive-warning", "InteractiveWarning=5m\n", 0,
	  D "1: InteractiveWarning='5m': malformed value; give a duration in "
	  "Slurm time syntax", SAME, 0, 0 },
	{ "bad-cutover-word", "Cutover=yesterday\n", 0,
	  D "1: Cutover='yesterday' is not accepted: give the local time the "
	  "cluster switched to priority/budget as YYYY-MM-DD[THH:MM[:SS]]",
	  SAME, 0, 0 },
	{ "bad-cutover-date", "Cutover=2026-02-29T10:00\n", 0,
	  D "1: Cutover='2026-02-29T10:00' is not accepted", SAME, 0, 0 },
	{ "bad-cutover-hour", "Cutover=2026-12-01T24:00\n", 0,
	  D "1: Cutover='2026-12-01T24:00' is not accepted", SAME, 0, 0 },
	{ "cutover-utc", "Cutover=2026-12-01T09:00Z\n", 1, "Cutover=", SAME, 0, 0 },
	{ "bad-cutover-epoch", "Cutover=1796166958\n", 0,
	  D "1: Cutover='1796166958' is not accepted", SAME, 0, 0 },
	{ "bad-cutover-empty", "Cutover=\n", 0, D "1: Cutover", SAME, 0, 0 },
	{ "cross-key-window", "BucketWidth=11\n", 0,
	  "budget.conf: LookbackWindow=7-00:00:00 must be a positive multiple "
	  "of BucketWidth=0:11:00", SAME, 0, 0 },
	{ "cross-key-default", "MaxMinRuntime=1:00:00\nDefaultMinRuntime=2:00:00\n",
	  0, "budget.conf: DefaultMinRuntime=2:00:00 exceeds MaxMinRuntime=1:00:00",
	  SAME, 0, 0 },

	/* --- refused here, accepted by Slurm's parse_config (on purpose) */
	{ "duplicate", "CalcPeriod=30\n# again\ncalcperiod=40\n", 0,
	  D "3: CalcPeriod='40' gives the key again (first on line 1): give "
	  "each key once",
	  ACCEPTS, 0, 0 },
	{ "operator-plus", "CalcPeriod+=60\n", 0,
	  D "1: 'CalcPeriod+=': operators are not supported; write "
	  "CalcPeriod=VALUE", ACCEPTS, 0, 0 },
	{ "operator-minus", "CalcPeriod -= 60\n", 0,
	  D "1: 'CalcPeriod-=': operators are not supported", ACCEPTS, 0, 0 },
	{ "include", "Include /dev/null\nCalcPeriod=30\n", 0,
	  D "1: 'Include /dev/null': Include is not supported", ACCEPTS, 0, 0 },
	{ "quote-unclosed", "RepairReason=\"fix*\n", 0,
	  D "1: RepairReason=\"fix*: a '\"' must quote the whole value", ACCEPTS,
	  0, 0 },
	{ "quote-inside", "RepairReason=fix\"me\"*\n", 0,
	  D "1: RepairReason=fix\"me\"*: a '\"' must quote", ACCEPTS, 0, 0 },
	{ "quote-hash", "RepairReason=\"a#b\"\n", 0,
	  D "1: RepairReason=\"a: a '\"' must quote", ACCEPTS, 0, 0 },
};

#undef D

#define CONF_NCASES (sizeof(conf_cases) / sizeof(conf_cases[0]))

/* The case's text with '@' expanded: malloc'd, NULL when out of memory. */
static inline char *conf_case_text(const struct conf_case *c)
{
	const char *at = strchr(c->text, '@');
	size_t n = strlen(c->text), pad = at ? c->pad : 0;
	char *s = malloc(n + pad + 1);

	if (!s)
		return NULL;
	if (!at) {
		memcpy(s, c->text, n + 1);
		return s;
	}
	memcpy(s, c->text, (size_t)(at - c->text));
	memset(s + (at - c->text), c->padc, pad);
	memcpy(s + (at - c->text) + pad, at + 1, n - (size_t)(at - c->text));
	return s;
}

#endif /* SB_CONF_CASES_H */
