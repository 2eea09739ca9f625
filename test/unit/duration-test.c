/* duration-test.c - Slurm time syntax, formatting and quoting. */
#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check_main.h"
#include "sb/duration.h"
#include "sb/error.h"

struct parse_case {
	const char *in;
	int rc;
	int64_t secs;
};

static const struct parse_case parse[] = {
	{ .in = "0",           .rc = SB_OK,        .secs = 0 },
	{ .in = "5",           .rc = SB_OK,        .secs = 300 },
	{ .in = "5:30",        .rc = SB_OK,        .secs = 330 },
	{ .in = "61:00",       .rc = SB_OK,        .secs = 3660 },                       /* M:S: minutes may exceed 59 */
	{ .in = "1:02:03",     .rc = SB_OK,        .secs = 3723 },
	{ .in = "25:00:00",    .rc = SB_OK,        .secs = 90000 },                      /* H:M:S: hours may exceed 23 */
	{ .in = "2-3",         .rc = SB_OK,        .secs = 2 * 86400 + 3 * 3600 },
	{ .in = "2-3:04",      .rc = SB_OK,        .secs = 2 * 86400 + 3 * 3600 + 240 },
	{ .in = "2-3:04:05",   .rc = SB_OK,        .secs = 2 * 86400 + 3 * 3600 + 245 },
	{ .in = "365-0",       .rc = SB_OK,        .secs = SB_DURATION_MAX },
	{ .in = "365-0:00:01", .rc = SB_ERANGE,    .secs = 0 },
	{ .in = "1000000000",  .rc = SB_ERANGE,    .secs = 0 },
	{ .in = NULL,          .rc = SB_EMISSING,  .secs = 0 },
	{ .in = "",            .rc = SB_ESYNTAX,   .secs = 0 },
	{ .in = "-5",          .rc = SB_ENEGATIVE, .secs = 0 },
	{ .in = "1-24",        .rc = SB_ESYNTAX,   .secs = 0 },
	{ .in = "1-2:60",      .rc = SB_ESYNTAX,   .secs = 0 },
	{ .in = "a",           .rc = SB_ESYNTAX,   .secs = 0 },
};

START_TEST(test_parse)
{
	const struct parse_case *c = &parse[_i];
	int64_t secs = -7;
	int rc = sb_duration_parse(c->in, &secs);

	ck_assert_msg(rc == c->rc, "'%s': rc %d, expected %d", c->in, rc, c->rc);
	if (rc == SB_OK)
		ck_assert_int_eq(secs, c->secs);
	else
		ck_assert_int_eq(secs, -7);
}
END_TEST

struct format_case {
	int64_t secs;
	const char *out;
};

static const struct format_case format[] = {
	{ 0, "0:00:00" },
	{ 59, "0:00:59" },
	{ 3600, "1:00:00" },
	{ 28800, "8:00:00" },
	{ 86399, "23:59:59" },
	{ 86400, "1-00:00:00" },
	{ 90061, "1-01:01:01" },
	{ -5, "0:00:00" },
};

START_TEST(test_format)
{
	char buf[32];

	ck_assert_str_eq(sb_duration_format(format[_i].secs, buf, sizeof(buf)),
			 format[_i].out);
}
END_TEST

START_TEST(test_format_round_trip)
{
	static const int64_t v[] = { 0, 1, 59, 60, 3599, 3600, 86399, 86400,
				     123456, SB_DURATION_MAX };
	char buf[32];
	int64_t back;
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sb_duration_format(v[i], buf, sizeof(buf));
		ck_assert_int_eq(sb_duration_parse(buf, &back), SB_OK);
		ck_assert_int_eq(back, v[i]);
	}
}
END_TEST

struct quote_case {
	bool path;		/* sb_quote_path() instead of sb_quote() */
	const char *in;
	size_t len;
	const char *out;
};

#define LONG56 "01234567890123456789012345678901234567890123456789012345"

static const struct quote_case quote[] = {
	{ .path = false, .in = "abc",          .len = 64,  .out = "abc" },
	{ .path = false, .in = NULL,           .len = 64,  .out = "(null)" },
	{ .path = false, .in = "a\tb",         .len = 64,  .out = "a\\x09b" },
	{ .path = false, .in = "\x1b[31m",     .len = 64,  .out = "\\x1b[31m" },
	{ .path = false, .in = "\xc3\xa9",     .len = 64,  .out = "\\xc3\\xa9" },
	{ .path = false, .in = LONG56,         .len = 128, .out = "012345678901234567890123456789012345678901234567..." },
	{ .path = false, .in = "abcdef",       .len = 4,   .out = "abc" },
	{ .path = false, .in = "\x01\x02",     .len = 6,   .out = "\\x01" },
	/* a file name is kept whole while it fits the buffer */
	{ .path = true,  .in = LONG56 ".html", .len = 128, .out = LONG56 ".html" },
	{ .path = true,  .in = "/a/b.txt",     .len = 12,  .out = "/a/b.txt" },
	{ .path = true,  .in = "/a/bc.txt",    .len = 12,  .out = "/a/bc.tx..." },
	{ .path = true,  .in = "/a\nb",        .len = 64,  .out = "/a\\x0ab" },
	{ .path = true,  .in = NULL,           .len = 64,  .out = "(null)" },
	{ .path = true,  .in = "abc",          .len = 1,   .out = "" },
};

START_TEST(test_quote)
{
	char buf[128];
	const struct quote_case *c = &quote[_i];

	if (c->path)
		ck_assert_str_eq(sb_quote_path(c->in, buf, c->len), c->out);
	else
		ck_assert_str_eq(sb_quote(c->in, buf, c->len), c->out);
}
END_TEST

/* Points in time, read in UTC (TZ set in main) so the epoch is known. */
static const struct iso_case {
	const char *in;
	int rc;
	int64_t t;
} iso[] = {
	{ .in = "2026-12-01",           .rc = 0,  .t = 1796083200 },
	{ .in = "2026-12-01T09:00",     .rc = 0,  .t = 1796115600 },
	{ .in = "2026-12-01T09:00:30",  .rc = 0,  .t = 1796115630 },
	{ .in = "1970-01-01T00:00:00",  .rc = 0,  .t = 0 },
	{ .in = "2024-02-29T12:00",     .rc = 0,  .t = 1709208000 }, /* leap year */
	{ .in = "2026-02-29T12:00",     .rc = -1, .t = 0 },          /* not one */
	{ .in = "2100-02-29",           .rc = -1, .t = 0 },          /* century, not a leap year */
	{ .in = "2000-02-29",           .rc = 0,  .t = 951782400 },  /* 400th: a leap year */
	{ .in = "2026-12-01T24:00",     .rc = -1, .t = 0 },
	{ .in = "2026-12-01T23:60",     .rc = -1, .t = 0 },
	{ .in = "2026-12-01T23:59:60",  .rc = -1, .t = 0 },
	{ .in = "2026-13-01",           .rc = -1, .t = 0 },
	{ .in = "2026-00-10",           .rc = -1, .t = 0 },
	{ .in = "2026-12-32",           .rc = -1, .t = 0 },
	{ .in = "1969-12-31",           .rc = -1, .t = 0 },
	{ .in = "2026-12-01T09",        .rc = -1, .t = 0 },
	{ .in = "2026-12-01 09:00",     .rc = -1, .t = 0 },
	{ .in = "2026-12-01T09:00Z",    .rc = 0,  .t = 1796115600 },
	{ .in = "2026-12-01T09:00:30Z", .rc = 0,  .t = 1796115630 },
	{ .in = "2000-02-29T00:00Z",    .rc = 0,  .t = 951782400 },
	{ .in = "1970-01-01T00:00:00Z", .rc = 0,  .t = 0 },
	{ .in = "2026-12-01Z",          .rc = -1, .t = 0 },
	{ .in = "2026-12-01T09:00ZZ",   .rc = -1, .t = 0 },
	{ .in = "2026-12-01T09:00z",    .rc = -1, .t = 0 },
	{ .in = "26-12-01",             .rc = -1, .t = 0 },
	{ .in = "1796166958",           .rc = -1, .t = 0 },
	{ .in = "",                     .rc = -1, .t = 0 },
	{ .in = "now",                  .rc = -1, .t = 0 },
};

START_TEST(test_iso)
{
	const struct iso_case *c = &iso[_i];
	int64_t t = -7;
	char buf[32];

	ck_assert_msg(sb_time_parse_iso(c->in, &t) == c->rc, "'%s': rc", c->in);
	if (c->rc)
		return;
	ck_assert_msg(t == c->t, "'%s': %lld, want %lld", c->in, (long long)t,
		      (long long)c->t);
	/* and back: the form it reads */
	sb_time_format_iso(t, buf, sizeof(buf));
	ck_assert_int_eq(sb_time_parse_iso(buf, &t), 0);
	ck_assert_int_eq(t, c->t);
}
END_TEST

START_TEST(test_iso_null)
{
	int64_t t;

	ck_assert_int_eq(sb_time_parse_iso(NULL, &t), -1);
	ck_assert_int_eq(sb_time_parse_iso("2026-12-01", NULL), -1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("duration");
	TCase *tc = tcase_create("duration");

	setenv("TZ", "UTC", 1);
	tzset();
	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse) / sizeof(parse[0]));
	tcase_add_loop_test(tc, test_format, 0, sizeof(format) / sizeof(format[0]));
	tcase_add_test(tc, test_format_round_trip);
	tcase_add_loop_test(tc, test_quote, 0, sizeof(quote) / sizeof(quote[0]));
	tcase_add_loop_test(tc, test_iso, 0, sizeof(iso) / sizeof(iso[0]));
	tcase_add_test(tc, test_iso_null);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
