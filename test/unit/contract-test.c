/*
 * contract-test.c - table-driven tests of the minimum-runtime contract:
 * what is accepted, what is refused, and the sentence the user reads.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "sb/contract.h"
#include "sb/error.h"

static const struct sb_contract_policy site = {
	.max_min_runtime = 8 * 3600,
	.default_min_runtime = -1,
};

/* A 5000-byte min runtime, built once. */
static char long_digits[5001];
static char long_junk[5001];

struct bad_case {
	const char *min_runtime;
	const char *resumable;
	bool has_budget;
	int rc;
	const char *msg_has;	/* the message must contain this */
};

static const struct bad_case bad[] = {
	/* missing, empty, blanks */
	{ .min_runtime = NULL,           .resumable = NULL,    .has_budget = true,  .rc = SB_EMISSING,
	  .msg_has = "no minimum runtime given" },
	{ .min_runtime = "",             .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "min-runtime is empty" },
	{ .min_runtime = " ",            .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "' ' is malformed" },
	{ .min_runtime = " 10",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "' 10' is malformed" },
	{ .min_runtime = "10 ",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'10 ' is malformed" },
	{ .min_runtime = "1 0",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1 0' is malformed" },
	{ .min_runtime = "\t",           .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'\\x09' is malformed" },
	{ .min_runtime = "10\n",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'10\\x0a' is malformed" },
	/* signs */
	{ .min_runtime = "-1",           .resumable = NULL,    .has_budget = true,  .rc = SB_ENEGATIVE,
	  .msg_has = "'-1' is negative" },
	{ .min_runtime = "-0",           .resumable = NULL,    .has_budget = true,  .rc = SB_ENEGATIVE,
	  .msg_has = "'-0' is negative" },
	{ .min_runtime = "-1:00:00",     .resumable = NULL,    .has_budget = true,  .rc = SB_ENEGATIVE,
	  .msg_has = "is negative" },
	{ .min_runtime = "+5",           .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'+5' is malformed" },
	{ .min_runtime = "-",            .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'-' is malformed" },
	{ .min_runtime = "--5",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	/* structure */
	{ .min_runtime = "1:2:3:4",      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1:2:3:4' is malformed" },
	{ .min_runtime = "1-2:3:4:5",    .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = ":",            .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "10:",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'10:' is malformed" },
	{ .min_runtime = ":30",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "1::2",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "1-",           .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1-' is malformed" },
	{ .min_runtime = "1-2-3",        .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "0:60",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'0:60' is malformed" },
	/* an out-of-range field: the sentence says which fields are bounded */
	{ .min_runtime = "0:90",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "fields after the first below 60, "
	  "hours after D- below 24: 1:30, not 0:90" },
	{ .min_runtime = "1:60:00",      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "1:00:60",      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "0-24",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'0-24' is malformed" },
	{ .min_runtime = "1-24:00",      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "hours after D- below 24" },
	{ .min_runtime = "1.5",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1.5' is malformed" },
	{ .min_runtime = "1,5",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "0x10",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'0x10' is malformed" },
	{ .min_runtime = "1e3",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1e3' is malformed" },
	/* units and words */
	{ .min_runtime = "10m",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'10m' is malformed" },
	{ .min_runtime = "1h",           .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'1h' is malformed" },
	{ .min_runtime = "30s",          .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "2 hours",      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "INFINITE",     .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'INFINITE' is malformed" },
	{ .min_runtime = "UNLIMITED",    .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "none",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "PT1H",         .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	/* UTF-8: fullwidth digit one, Arabic-Indic five, a word */
	{ .min_runtime = "\xef\xbc\x91", .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'\\xef\\xbc\\x91' is malformed" },
	{ .min_runtime = "\xd9\xa5",     .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "\xd1\x87\xd0\xb0\xd1\x81", .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "is malformed" },
	{ .min_runtime = "5\xc2\xa0",    .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "'5\\xc2\\xa0' is malformed" },
	/* range */
	{ .min_runtime = "9999999999",   .resumable = NULL,    .has_budget = true,  .rc = SB_ERANGE,
	  .msg_has = "'9999999999' is out of range" },
	{ .min_runtime = "525601",       .resumable = NULL,    .has_budget = true,  .rc = SB_ERANGE,
	  .msg_has = "is out of range" },
	{ .min_runtime = "366-0",        .resumable = NULL,    .has_budget = true,  .rc = SB_ERANGE,
	  .msg_has = "is out of range" },
	{ .min_runtime = "99999999999999999999999", .resumable = NULL,    .has_budget = true,  .rc = SB_ERANGE,
	  .msg_has = "out of range" },
	/* above the site maximum */
	{ .min_runtime = "8:00:01",      .resumable = NULL,    .has_budget = true,  .rc = SB_EABOVEMAX,
	  .msg_has = "'8:00:01' (8:00:01) exceeds the site maximum 8:00:00" },
	{ .min_runtime = "481",          .resumable = NULL,    .has_budget = true,  .rc = SB_EABOVEMAX,
	  .msg_has = "(8:01:00) exceeds" },
	{ .min_runtime = "1-0",          .resumable = NULL,    .has_budget = true,  .rc = SB_EABOVEMAX,
	  .msg_has = "(1-00:00:00) exceeds" },
	{ .min_runtime = "9:00:00",      .resumable = NULL,    .has_budget = true,  .rc = SB_EABOVEMAX,
	  .msg_has = "MaxMinRuntime" },
	{ .min_runtime = "365-0",        .resumable = NULL,    .has_budget = true,  .rc = SB_EABOVEMAX,
	  .msg_has = "ask for at most 8:00:00" },
	/* resumable */
	{ .min_runtime = "10",           .resumable = "maybe", .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "resumable 'maybe' is not a yes/no value" },
	{ .min_runtime = "10",           .resumable = "",      .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "resumable '' is not" },
	{ .min_runtime = "10",           .resumable = "2",     .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "resumable '2'" },
	/* no budget */
	{ .min_runtime = "10",           .resumable = NULL,    .has_budget = false, .rc = SB_ENOBUDGET,
	  .msg_has = "--min-runtime=0 to run unallocated" },
	{ .min_runtime = "8:00:00",      .resumable = "yes",   .has_budget = false, .rc = SB_ENOBUDGET,
	  .msg_has = "no budget (RawShares 0" },
	{ .min_runtime = "0:01",         .resumable = NULL,    .has_budget = false, .rc = SB_ENOBUDGET,
	  .msg_has = "'0:01' asks for an allocation" },
	/* very long strings: quoted, cut, never overflowing */
	{ .min_runtime = long_digits,    .resumable = NULL,    .has_budget = true,  .rc = SB_ERANGE,
	  .msg_has = "..." },
	{ .min_runtime = long_junk,      .resumable = NULL,    .has_budget = true,  .rc = SB_ESYNTAX,
	  .msg_has = "...' is malformed" },
};

START_TEST(test_bad_input)
{
	const struct bad_case *c = &bad[_i];
	struct sb_contract_request req = {
		.min_runtime = c->min_runtime,
		.resumable = c->resumable,
		.has_budget = c->has_budget,
	};
	struct sb_contract out = { .min_runtime = 12345 };
	char msg[512];
	int rc;

	rc = sb_contract_check(&site, &req, &out, msg, sizeof(msg));
	ck_assert_msg(rc == c->rc, "case %d: rc %d (%s), expected %d (%s); msg: %s",
		      _i, rc, sb_strerror(rc), c->rc, sb_strerror(c->rc), msg);
	ck_assert_msg(strstr(msg, c->msg_has), "case %d: message \"%s\" lacks \"%s\"",
		      _i, msg, c->msg_has);
	ck_assert_msg(strlen(msg) < 400, "case %d: message too long (%zu)", _i,
		      strlen(msg));
	ck_assert_int_eq(out.min_runtime, 12345);	/* untouched */
}
END_TEST

struct good_case {
	const char *min_runtime;
	const char *resumable;
	bool has_budget;
	int64_t secs;
	bool resumable_out;
	bool allocated;
};

static const struct good_case good[] = {
	{ .min_runtime = "0",         .resumable = NULL,   .has_budget = false, .secs = 0,
	  .resumable_out = false, .allocated = false }, /* unallocated needs no budget */
	{ .min_runtime = "00:00:00",  .resumable = "yes",  .has_budget = false, .secs = 0,
	  .resumable_out = true,  .allocated = false },
	{ .min_runtime = "0-0",       .resumable = NULL,   .has_budget = true,  .secs = 0,
	  .resumable_out = false, .allocated = false },
	{ .min_runtime = "1",         .resumable = NULL,   .has_budget = true,  .secs = 60,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "15",        .resumable = "no",   .has_budget = true,  .secs = 900,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "0:15",      .resumable = "true", .has_budget = true,  .secs = 15,
	  .resumable_out = true,  .allocated = true },
	{ .min_runtime = "90",        .resumable = NULL,   .has_budget = true,  .secs = 5400,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "1:30:00",   .resumable = "1",    .has_budget = true,  .secs = 5400,
	  .resumable_out = true,  .allocated = true },
	{ .min_runtime = "0-4",       .resumable = NULL,   .has_budget = true,  .secs = 14400,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "0-1:30",    .resumable = "ON",   .has_budget = true,  .secs = 5400,
	  .resumable_out = true,  .allocated = true },
	{ .min_runtime = "0-7:59:59", .resumable = "Off",  .has_budget = true,  .secs = 28799,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "8:00:00",   .resumable = NULL,   .has_budget = true,  .secs = 28800,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "480",       .resumable = NULL,   .has_budget = true,  .secs = 28800,
	  .resumable_out = false, .allocated = true },
	{ .min_runtime = "007",       .resumable = NULL,   .has_budget = true,  .secs = 420,
	  .resumable_out = false, .allocated = true },
};

START_TEST(test_good_input)
{
	const struct good_case *c = &good[_i];
	struct sb_contract_request req = {
		.min_runtime = c->min_runtime,
		.resumable = c->resumable,
		.has_budget = c->has_budget,
	};
	struct sb_contract out;
	char msg[512];
	int rc;

	rc = sb_contract_check(&site, &req, &out, msg, sizeof(msg));
	ck_assert_msg(rc == SB_OK, "case %d '%s': rc %d, msg %s", _i,
		      c->min_runtime, rc, msg);
	ck_assert_str_eq(msg, "");
	ck_assert_int_eq(out.min_runtime, c->secs);
	ck_assert_int_eq(out.resumable, c->resumable_out);
	ck_assert_int_eq(out.allocated, c->allocated);
}
END_TEST

START_TEST(test_site_default)
{
	struct sb_contract_policy pol = { .max_min_runtime = 3600,
					  .default_min_runtime = 600 };
	struct sb_contract_request req = { .has_budget = true };
	struct sb_contract out;
	char msg[256];

	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)), SB_OK);
	ck_assert_int_eq(out.min_runtime, 600);
	ck_assert(out.allocated);
	/* the default is an allocation too: refused without budget */
	req.has_budget = false;
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)),
			 SB_ENOBUDGET);
	ck_assert_msg(strstr(msg, "min-runtime '0:10:00 from DefaultMinRuntime' asks for an allocation"), "%s", msg);
	/* the job's own time limit caps the protected slice */
	req.has_budget = true;
	req.min_runtime = "30";
	req.time_limit = 600;
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)),
			 SB_EABOVEMAX);
	ck_assert_str_eq(msg, "min-runtime '30' (0:30:00) exceeds the job's time "
			 "limit 0:10:00: lower --min-runtime or raise --time");
	req.min_runtime = "10";
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)), SB_OK);
	req.min_runtime = NULL;	/* the site default (10 min) fits exactly */
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)), SB_OK);
	req.time_limit = 599;
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)),
			 SB_EABOVEMAX);
	ck_assert_msg(strstr(msg, "'0:10:00 from DefaultMinRuntime' (0:10:00) exceeds the job's time limit 0:09:59"), "%s", msg);
	req.time_limit = 0;
	/* a lower site maximum is named in the message */
	req.min_runtime = "1:00:01";
	req.has_budget = true;
	ck_assert_int_eq(sb_contract_check(&pol, &req, &out, msg, sizeof(msg)),
			 SB_EABOVEMAX);
	ck_assert_ptr_nonnull(strstr(msg, "site maximum 1:00:00"));
}
END_TEST

START_TEST(test_small_message_buffer)
{
	struct sb_contract_request req = { .min_runtime = "garbage" };
	struct sb_contract out;
	char msg[8];

	ck_assert_int_eq(sb_contract_check(&site, &req, &out, msg, sizeof(msg)),
			 SB_ESYNTAX);
	ck_assert_int_eq(strlen(msg), 7);
	ck_assert_int_eq(sb_contract_check(&site, &req, &out, NULL, 0), SB_ESYNTAX);
	ck_assert_int_eq(sb_contract_check(NULL, &req, &out, NULL, 0), SB_EINVAL);
}
END_TEST

struct tag_case {
	const char *tag;
	int rc;
	int64_t min_runtime;
	bool resumable, allocated;
};

static const struct tag_case tags[] = {
	{ .tag = "budget:min_runtime=3600,resumable=yes,allocated=yes",   .rc = SB_OK,
	  .min_runtime = 3600, .resumable = true,  .allocated = true },
	{ .tag = "budget:min_runtime=0,resumable=no,allocated=no",        .rc = SB_OK,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=60,resumable=no,allocated=yes admin note", .rc = SB_OK,
	  .min_runtime = 60,   .resumable = false, .allocated = true },
	/* preempt/budget's stop notes after the tag (sb_note_merge) */
	{ .tag = "budget:min_runtime=60,resumable=no,allocated=yes budget:preempted_by=9,at=5", .rc = SB_OK,
	  .min_runtime = 60,   .resumable = false, .allocated = true },
	{ .tag = "budget:min_runtime=60,resumable=yes,allocated=yes admin note budget:preempted_by=9,at=5 "
	  "budget:released_for_repair=gpu01,at=6", .rc = SB_OK,
	  .min_runtime = 60,   .resumable = true,  .allocated = true },
	/* a stop note alone: no tag (a job submitted without job_submit/budget) */
	{ .tag = "budget:preempted_by=9,at=5,preemptor_priority=1,victim_priority=0", .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:released_for_repair=gpu01,at=6",                 .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:preempted_by=x",                                 .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = NULL,                                                    .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "",                                                      .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "hello",                                                 .rc = SB_EMISSING,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:",                                               .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=60",                                 .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=-60,resumable=no,allocated=yes",     .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=60,resumable=no,allocated=no",       .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=0,resumable=no,allocated=yes",       .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=6x,resumable=no,allocated=yes",      .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=60,resumable=perhaps,allocated=yes", .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=60,resumable=no,allocated=yes,x=1",  .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
	{ .tag = "budget:min_runtime=99999999999999999999,resumable=no,allocated=yes", .rc = SB_ESYNTAX,
	  .min_runtime = 0,    .resumable = false, .allocated = false },
};

START_TEST(test_tag_parse)
{
	const struct tag_case *c = &tags[_i];
	struct sb_contract out = { 0 };
	int rc = sb_contract_parse_tag(c->tag, &out);

	ck_assert_msg(rc == c->rc, "tag '%s': rc %d expected %d", c->tag, rc, c->rc);
	if (rc == SB_OK) {
		ck_assert_int_eq(out.min_runtime, c->min_runtime);
		ck_assert_int_eq(out.resumable, c->resumable);
		ck_assert_int_eq(out.allocated, c->allocated);
	}
}
END_TEST

/* The fast allocated flag is always the full parse's answer: on every
 * valid, missing and damaged tag (-1 for anything the full parse refuses). */
START_TEST(test_tag_allocated)
{
	static const struct { const char *tag; int want; } damaged[] = {
		{ "budget:", -1 },
		{ "budget:min_runtime=60", -1 },
		{ "budget:min_runtime=-60,resumable=no,allocated=yes", -1 },
		{ "budget:min_runtime=6x,resumable=no,allocated=yes", -1 },
		{ "budget:min_runtime=60,resumable=no,allocated=no", -1 },
		{ "budget:min_runtime=0,resumable=no,allocated=yes", -1 },
		{ "budget:min_runtime=60,resumable=maybe,allocated=yes", -1 },
		{ "budget:min_runtime=60,resumable=yes,allocated=yes,x", -1 },
		{ "budget:min_runtime=60,resumable=yes,allocated=yesno", -1 },
		{ "budget:min_runtime=60,resumable=yes", -1 },
		{ "budget:min_runtime=0,resumable=no", -1 },
		{ "budget:min_runtime=99999999999999999999,resumable=no,allocated=yes", -1 },
		/* valid, but not as sb_contract_format writes: the full parse */
		{ "budget:min_runtime=007,resumable=no,allocated=yes", 1 },
		{ "budget:min_runtime=60,resumable=true,allocated=on", 1 },
		{ "budget:min_runtime=1234567890,resumable=no,allocated=yes", -1 },	/* > SB_DURATION_MAX */
		{ "budget:min_runtime=99999999,resumable=no,allocated=yes", -1 },
		{ "budget:min_runtime=31536000,resumable=no,allocated=yes", 1 },	/* = SB_DURATION_MAX */
		{ "budget:min_runtime=9999999,resumable=no,allocated=yes", 1 },
		/* as written, with an admin's comment after a space */
		{ "budget:min_runtime=60,resumable=yes,allocated=yes note", 1 },
		{ "budget:min_runtime=0,resumable=no,allocated=no note", 0 },
	};
	static const int64_t mr[] = { 0, 1, 9, 10, 900, 28800 };
	struct sb_contract c;
	char buf[128];
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		int got = sb_contract_tag_allocated(tags[i].tag);

		if (tags[i].rc == SB_OK)
			ck_assert_msg(got == tags[i].allocated, "'%s': %d",
				      tags[i].tag, got);
		else
			ck_assert_msg(got == -1, "'%s': %d", tags[i].tag, got);
	}
	for (i = 0; i < sizeof(damaged) / sizeof(damaged[0]); i++) {
		int full = sb_contract_parse_tag(damaged[i].tag, &c) == SB_OK ?
			   c.allocated : -1;

		ck_assert_msg(sb_contract_tag_allocated(damaged[i].tag) ==
			      damaged[i].want && full == damaged[i].want,
			      "'%s': fast %d, full %d, want %d", damaged[i].tag,
			      sb_contract_tag_allocated(damaged[i].tag), full,
			      damaged[i].want);
	}
	for (i = 0; i < sizeof(mr) / sizeof(mr[0]); i++) {
		c.min_runtime = mr[i];
		c.allocated = mr[i] > 0;
		c.resumable = i % 2;
		sb_contract_format(&c, buf, sizeof(buf));
		ck_assert_int_eq(sb_contract_tag_allocated(buf), c.allocated);
	}
}
END_TEST

START_TEST(test_tag_round_trip)
{
	struct sb_contract in = { 28800, true, true, true }, out;
	char buf[128];

	ck_assert_int_lt(sb_contract_format(&in, buf, sizeof(buf)), (int)sizeof(buf));
	ck_assert_int_eq(sb_contract_parse_tag(buf, &out), SB_OK);
	ck_assert_int_eq(out.min_runtime, in.min_runtime);
	ck_assert_int_eq(out.resumable, in.resumable);
	ck_assert_int_eq(out.allocated, in.allocated);
}
END_TEST

struct path_case {
	uint32_t shares[4];
	size_t n;
	bool budget;
};

static const struct path_case paths[] = {
	{ .shares = { 1 },    .n = 1, .budget = true },
	{ .shares = { 3, 2 }, .n = 2, .budget = true },
	{ .shares = { 0 },    .n = 1, .budget = false },
	{ .shares = { 3, 0 }, .n = 2, .budget = false }, /* a zero leaf under a funded parent */
	{ .shares = { 0, 5 }, .n = 2, .budget = false }, /* a funded leaf under a zero parent */
	{ .shares = { SB_SHARES_USE_PARENT, 2 }, .n = 2, .budget = true },
	{ .shares = { UINT32_MAX, 1, 1, 1 }, .n = 4, .budget = true },
	{ .shares = { 0 },    .n = 0, .budget = false }, /* no association known */
};

START_TEST(test_path_has_budget)
{
	const struct path_case *c = &paths[_i];

	ck_assert_int_eq(sb_path_has_budget(c->shares, c->n), c->budget);
}
END_TEST

/* ---------------------------------------- effective time limit */

struct limit_case {
	const char *what;
	int64_t given, time_min, part_default, part_max, max_wall;
	int64_t want;
	enum sb_limit_from from;
	int64_t cap;			/* sb_time_cap(part_max, max_wall);
					 * 0 = none */
	enum sb_limit_from cap_from;
};

/* Fields left out are 0, "not set" to the core (as the plugin's -1 for
 * Slurm's NO_VAL/INFINITE); a cap of 0 in a row means "none" (-1). */
static const struct limit_case limits[] = {
	{ "nothing set: unlimited", .want = -1, .from = SB_LIMIT_NONE },
	{ "--time alone", .given = 3600, .part_default = 600,
	  .part_max = 7200, .want = 3600, .from = SB_LIMIT_GIVEN,
	  .cap = 7200, .cap_from = SB_LIMIT_PART_MAX },
	{ "no --time: DefaultTime", .part_default = 600,
	  .part_max = 7200, .want = 600, .from = SB_LIMIT_PART_DEFAULT,
	  .cap = 7200, .cap_from = SB_LIMIT_PART_MAX },
	{ "no --time, no DefaultTime: MaxTime", .part_max = 7200,
	  .want = 7200, .from = SB_LIMIT_PART_MAX, .cap = 7200,
	  .cap_from = SB_LIMIT_PART_MAX },
	{ "--time-min below --time: backfill may cut to it",
	  .given = 3600, .time_min = 900, .want = 900,
	  .from = SB_LIMIT_TIME_MIN },
	{ "--time-min above --time: --time (Slurm refuses such a job)",
	  .given = 600, .time_min = 900, .want = 600, .from = SB_LIMIT_GIVEN },
	{ "--time-min with DefaultTime", .time_min = 300,
	  .part_default = 600, .want = 300, .from = SB_LIMIT_TIME_MIN },
	{ "--time-min and nothing else", .time_min = 300, .want = 300,
	  .from = SB_LIMIT_TIME_MIN },
	{ "--time above MaxTime counts as given; MaxTime is the cap",
	  .given = 9000, .part_max = 7200, .want = 9000,
	  .from = SB_LIMIT_GIVEN, .cap = 7200, .cap_from = SB_LIMIT_PART_MAX },
	{ "no --time, MaxWall alone: Slurm gives the job MaxWall",
	  .max_wall = 600, .want = 600, .from = SB_LIMIT_MAX_WALL,
	  .cap = 600, .cap_from = SB_LIMIT_MAX_WALL },
	{ "--time above MaxWall: MaxWall", .given = 3600,
	  .max_wall = 600, .want = 600, .from = SB_LIMIT_MAX_WALL,
	  .cap = 600, .cap_from = SB_LIMIT_MAX_WALL },
	{ "--time below MaxWall: --time", .given = 300,
	  .max_wall = 600, .want = 300, .from = SB_LIMIT_GIVEN,
	  .cap = 600, .cap_from = SB_LIMIT_MAX_WALL },
	{ "MaxWall below DefaultTime and MaxTime", .part_default = 3600,
	  .part_max = 7200, .max_wall = 600, .want = 600,
	  .from = SB_LIMIT_MAX_WALL, .cap = 600,
	  .cap_from = SB_LIMIT_MAX_WALL },
	{ "MaxWall above MaxTime: MaxTime is the cap",
	  .part_max = 3600, .max_wall = 7200, .want = 3600,
	  .from = SB_LIMIT_PART_MAX, .cap = 3600,
	  .cap_from = SB_LIMIT_PART_MAX },
	{ "--time-min below MaxWall still decides", .time_min = 300,
	  .max_wall = 600, .want = 300, .from = SB_LIMIT_TIME_MIN,
	  .cap = 600, .cap_from = SB_LIMIT_MAX_WALL },
};

START_TEST(test_time_limit_effective)
{
	const struct limit_case *c = &limits[_i];
	enum sb_limit_from from = (enum sb_limit_from)99;
	int64_t got = sb_time_limit_effective(c->given, c->time_min,
					      c->part_default, c->part_max,
					      c->max_wall, &from);
	int64_t cap;

	ck_assert_msg(got == c->want && from == c->from,
		      "%s: got %lld from %d, want %lld from %d", c->what,
		      (long long)got, from, (long long)c->want, c->from);
	ck_assert_int_eq(sb_time_limit_effective(c->given, c->time_min,
						 c->part_default, c->part_max,
						 c->max_wall, NULL), c->want);
	from = (enum sb_limit_from)99;
	cap = sb_time_cap(c->part_max, c->max_wall, &from);
	ck_assert_msg(cap == (c->cap ? c->cap : -1) && from == c->cap_from,
		      "%s: cap %lld from %d, want %lld from %d", c->what,
		      (long long)cap, from, (long long)c->cap, c->cap_from);
	ck_assert_int_eq(sb_time_cap(c->part_max, c->max_wall, NULL),
			 c->cap ? c->cap : -1);
}
END_TEST

/* Which MaxWall Slurm enforces: partition QOS, job QOS, association. */
struct max_wall_case {
	const char *what;
	struct sb_wall_limits in;
	int64_t want;		/* 0 = none (-1) */
	enum sb_wall_from from;
};

static const struct max_wall_case max_walls[] = {
	{ "nothing set", { .part_qos = 0 }, 0, SB_WALL_NONE },
	{ "association alone", { .assoc = 600 }, 600, SB_WALL_ASSOC },
	{ "job QOS hides the association's, even when longer",
	  { .job_qos = 1200, .assoc = 600 }, 1200, SB_WALL_JOB_QOS },
	{ "partition QOS before the job QOS",
	  { .part_qos = 1800, .job_qos = 300, .assoc = 600 }, 1800,
	  SB_WALL_PART_QOS },
	{ "OverPartQOS: the job QOS first",
	  { .part_qos = 1800, .job_qos = 300, .over_part_qos = true }, 300,
	  SB_WALL_JOB_QOS },
	{ "OverPartQOS without a job QOS MaxWall: the partition QOS",
	  { .part_qos = 1800, .assoc = 60, .over_part_qos = true }, 1800,
	  SB_WALL_PART_QOS },
	{ "a QOS list: the partition QOS still counts",
	  { .part_qos = 1800, .assoc = 600, .job_qos_unknown = true }, 1800,
	  SB_WALL_PART_QOS },
	{ "a QOS list: the association's is not known to apply",
	  { .assoc = 600, .job_qos_unknown = true }, 0, SB_WALL_NONE },
	{ "negative values: not set", { .part_qos = -1, .job_qos = -1,
	  .assoc = -1 }, 0, SB_WALL_NONE },
};

START_TEST(test_max_wall)
{
	const struct max_wall_case *c = &max_walls[_i];
	enum sb_wall_from from = (enum sb_wall_from)99;
	int64_t got = sb_max_wall(&c->in, &from);

	ck_assert_msg(got == (c->want ? c->want : -1) && from == c->from,
		      "%s: %lld from %d, want %lld from %d", c->what,
		      (long long)got, from, (long long)c->want, c->from);
	ck_assert_int_eq(sb_max_wall(&c->in, NULL), got);
	ck_assert_int_eq(sb_max_wall(NULL, NULL), -1);
}
END_TEST

struct limit_check_case {
	const char *what, *min_runtime, *resumable;
	int64_t time_limit;
	const char *limit_from;
	bool interactive;
	int rc;
	const char *msg_has;
	int64_t time_cap;	/* 0 = none */
	const char *cap_from;
	bool no_requeue;
};

static const struct limit_check_case limit_checks[] = {
	{ .what = "8 h slice, partition DefaultTime 10 min: refused naming it",
	  .min_runtime = "8:00:00", .time_limit = 600,
	  .limit_from = "partition 'debug' DefaultTime", .rc = SB_EABOVEMAX,
	  .msg_has = "the time limit the job would get, 0:10:00 (partition "
	  "'debug' DefaultTime)" },
	{ .what = "the user's own --time: the job's time limit named",
	  .min_runtime = "2:00:00", .time_limit = 3600, .rc = SB_EABOVEMAX,
	  .msg_has = "exceeds the job's time limit 1:00:00" },
	{ .what = "slice equal to the limit: accepted", .min_runtime = "10",
	  .time_limit = 600, .limit_from = "partition 'debug' DefaultTime",
	  .rc = SB_OK, .msg_has = "" },
	{ .what = "interactive and resumable: refused", .min_runtime = "10",
	  .resumable = "yes", .time_limit = -1, .interactive = true,
	  .rc = SB_ENOTBATCH, .msg_has = "--resumable needs a batch job" },
	{ .what = "interactive, not resumable: accepted", .min_runtime = "10",
	  .resumable = "no", .time_limit = -1, .interactive = true,
	  .rc = SB_OK, .msg_has = "" },
	{ .what = "interactive unallocated, resumable: refused too",
	  .min_runtime = "0", .resumable = "yes", .time_limit = -1,
	  .interactive = true, .rc = SB_ENOTBATCH, .msg_has = "salloc, srun" },
	{ .what = "batch and resumable: accepted", .min_runtime = "10",
	  .resumable = "yes", .time_limit = -1, .rc = SB_OK, .msg_has = "" },
	{ .what = "above the partition's MaxTime: no advice to raise --time",
	  .min_runtime = "2:00:00", .time_limit = 600,
	  .limit_from = "partition 'debug' DefaultTime", .time_cap = 1800,
	  .cap_from = "partition 'debug' MaxTime", .rc = SB_EABOVEMAX,
	  .msg_has = "min-runtime '2:00:00' (2:00:00) exceeds 0:30:00, the "
	  "longest time limit this job can be given (partition 'debug' "
	  "MaxTime): the protected slice could never be served; ask for at "
	  "most 0:30:00" },
	{ .what = "above MaxWall: refused naming the QOS", .min_runtime = "15",
	  .time_limit = 600, .limit_from = "QOS 'short' MaxWall",
	  .time_cap = 600, .cap_from = "QOS 'short' MaxWall",
	  .rc = SB_EABOVEMAX, .msg_has = "exceeds 0:10:00, the longest time "
	  "limit this job can be given (QOS 'short' MaxWall)" },
	{ .what = "within the cap, above DefaultTime: raise --time",
	  .min_runtime = "20", .time_limit = 600,
	  .limit_from = "partition 'debug' DefaultTime", .time_cap = 1800,
	  .cap_from = "partition 'debug' MaxTime", .rc = SB_EABOVEMAX,
	  .msg_has = "give --time (and --time-min) of at least 0:20:00" },
	{ .what = "equal to the cap: accepted", .min_runtime = "10",
	  .time_limit = 600, .limit_from = "association MaxWall",
	  .time_cap = 600, .cap_from = "association MaxWall", .rc = SB_OK,
	  .msg_has = "" },
	{ .what = "a cap without a name: 'a site limit'", .min_runtime = "15",
	  .time_cap = 600, .rc = SB_EABOVEMAX, .msg_has = "(a site limit)" },
	{ .what = "resumable with --no-requeue: refused", .min_runtime = "10",
	  .resumable = "yes", .time_limit = -1, .no_requeue = true,
	  .rc = SB_ENOTBATCH, .msg_has = "--resumable contradicts "
	  "--no-requeue: a resumable job is requeued when preempted" },
	{ .what = "not resumable with --no-requeue: accepted (cancelled when "
	  "preempted)", .min_runtime = "10", .resumable = "no",
	  .time_limit = -1, .no_requeue = true, .rc = SB_OK, .msg_has = "" },
	{ .what = "unallocated resumable with --no-requeue: refused too",
	  .min_runtime = "0", .resumable = "yes", .time_limit = -1,
	  .no_requeue = true, .rc = SB_ENOTBATCH, .msg_has = "drop "
	  "--no-requeue" },
};

START_TEST(test_limit_check)
{
	const struct limit_check_case *c = &limit_checks[_i];
	struct sb_contract_request req = {
		.min_runtime = c->min_runtime,
		.resumable = c->resumable,
		.has_budget = true,
		.time_limit = c->time_limit,
		.limit_from = c->limit_from,
		.time_cap = c->time_cap,
		.cap_from = c->cap_from,
		.interactive = c->interactive,
		.no_requeue = c->no_requeue,
	};
	struct sb_contract out;
	char msg[512];
	int rc = sb_contract_check(&site, &req, &out, msg, sizeof(msg));

	ck_assert_msg(rc == c->rc, "%s: rc %d (%s), want %d", c->what, rc, msg,
		      c->rc);
	ck_assert_msg(strstr(msg, c->msg_has), "%s: message \"%s\" lacks \"%s\"",
		      c->what, msg, c->msg_has);
}
END_TEST

/* ---------------------------------------------------------- sb_shares_parse */

struct shares_case {
	const char *in;
	int rc;
	uint32_t want;		/* on SB_OK */
};

static const struct shares_case share_cases[] = {
	{ .in = "0",             .rc = SB_OK,       .want = 0 },
	{ .in = "1",             .rc = SB_OK,       .want = 1 },
	{ .in = "007",           .rc = SB_OK,       .want = 7 },
	{ .in = "2147483646",    .rc = SB_OK,       .want = SB_SHARES_RAW_MAX },
	{ .in = "parent",        .rc = SB_OK,       .want = SB_SHARES_USE_PARENT },
	{ .in = "PARENT",        .rc = SB_OK,       .want = SB_SHARES_USE_PARENT },
	{ .in = "2147483647",    .rc = SB_ERANGE },
	{ .in = "1099511627776", .rc = SB_ERANGE },	/* 2^40 */
	{ .in = "99999999999999999999999", .rc = SB_ERANGE },
	{ .in = NULL,            .rc = SB_EMISSING },
	{ .in = "",              .rc = SB_EMISSING },
	{ .in = "+5",            .rc = SB_ESYNTAX },
	{ .in = "-1",            .rc = SB_ESYNTAX },
	{ .in = " 1",            .rc = SB_ESYNTAX },
	{ .in = "1 ",            .rc = SB_ESYNTAX },
	{ .in = "1.5",           .rc = SB_ESYNTAX },
	{ .in = "1e3",           .rc = SB_ESYNTAX },
	{ .in = "0x10",          .rc = SB_ESYNTAX },
	{ .in = "parents",       .rc = SB_ESYNTAX },
	{ .in = "9x",            .rc = SB_ESYNTAX },
};

START_TEST(test_shares_parse)
{
	const struct shares_case *c = &share_cases[_i];
	uint32_t v = 12345;
	int rc = sb_shares_parse(c->in, &v);

	ck_assert_msg(rc == c->rc, "'%s': rc %d, want %d",
		      c->in ? c->in : "(null)", rc, c->rc);
	ck_assert_uint_eq(v, rc == SB_OK ? c->want : 12345);
}
END_TEST

static Suite *contract_suite(void)
{
	Suite *s = suite_create("contract");
	TCase *tc;

	memset(long_digits, '7', sizeof(long_digits) - 1);
	memset(long_junk, 'z', sizeof(long_junk) - 1);

	tc = tcase_create("refused");
	tcase_add_loop_test(tc, test_bad_input, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_small_message_buffer);
	suite_add_tcase(s, tc);

	tc = tcase_create("accepted");
	tcase_add_loop_test(tc, test_good_input, 0, sizeof(good) / sizeof(good[0]));
	tcase_add_test(tc, test_site_default);
	tcase_add_loop_test(tc, test_time_limit_effective, 0,
			    sizeof(limits) / sizeof(limits[0]));
	tcase_add_loop_test(tc, test_max_wall, 0,
			    sizeof(max_walls) / sizeof(max_walls[0]));
	tcase_add_loop_test(tc, test_limit_check, 0,
			    sizeof(limit_checks) / sizeof(limit_checks[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("tag");
	tcase_add_loop_test(tc, test_tag_parse, 0, sizeof(tags) / sizeof(tags[0]));
	tcase_add_test(tc, test_tag_round_trip);
	tcase_add_test(tc, test_tag_allocated);
	suite_add_tcase(s, tc);

	tc = tcase_create("budget-path");
	tcase_add_loop_test(tc, test_path_has_budget, 0, sizeof(paths) / sizeof(paths[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("shares");
	tcase_add_loop_test(tc, test_shares_parse, 0,
			    sizeof(share_cases) / sizeof(share_cases[0]));
	suite_add_tcase(s, tc);
	return s;
}


int main(void)
{
	return sb_check_run(contract_suite());
}
