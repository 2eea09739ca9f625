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
	{ "0", SB_OK, 0 },
	{ "5", SB_OK, 300 },
	{ "5:30", SB_OK, 330 },
	{ "61:00", SB_OK, 3660 },	/* M:S: minutes may exceed 59 */
	{ "1:02:03", SB_OK, 3723 },
	{ "25:00:00", SB_OK, 90000 },	/* H:M:S: hours may exceed 23 */
	{ "2-3", SB_OK, 2 * 86400 + 3 * 3600 },
	{ "2-3:04", SB_OK, 2 * 86400 + 3 * 3600 + 240 },
	{ "2-3:04:05", SB_OK, 2 * 86400 + 3 * 3600 + 245 },
	{ "365-0", SB_OK, SB_DURATION_MAX },
	{ "365-0:00:01", SB_ERANGE, 0 },
	{ "1000000000", SB_ERANGE, 0 },
	{ NULL, SB_EMISSING, 0 },
	{ "", SB_ESYNTAX, 0 },
	{ "-5", SB_ENEGATIVE, 0 },
	{ "1-24", SB_ESYNTAX, 0 },
	{ "1-2:60", SB_ESYNTAX, 0 },
	{ "a", SB_ESYNTAX, 0 },
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
	{ false, "abc", 64, "abc" },
	{ false, NULL, 64, "(null)" },
	{ false, "a\tb", 64, "a\\x09b" },
	{ false, "\x1b[31m", 64, "\\x1b[31m" },
	{ false, "\xc3\xa9", 64, "\\xc3\\xa9" },
	{ false, LONG56, 128, "012345678901234567890123456789012345678901234567..." },
	{ false, "abcdef", 4, "abc" },
	{ false, "\x01\x02", 6, "\\x01" },
	/* a file name is kept whole while it fits the buffer */
	{ true, LONG56 ".html", 128, LONG56 ".html" },
	{ true, "/a/b.txt", 12, "/a/b.txt" },
	{ true, "/a/bc.txt", 12, "/a/bc.tx..." },
	{ true, "/a\nb", 64, "/a\\x0ab" },
	{ true, NULL, 64, "(null)" },
	{ true, "abc", 1, "" },
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
	{ "2026-12-01", 0, 1796083200 },
	{ "2026-12-01T09:00", 0, 1796115600 },
	{ "2026-12-01T09:00:30", 0, 1796115630 },
	{ "1970-01-01T00:00:00", 0, 0 },
	{ "2024-02-29T12:00", 0, 1709208000 },	/* leap year */
	{ "2026-02-29T12:00", -1, 0 },		/* not one */
	{ "2100-02-29", -1, 0 },		/* century, not a leap year */
	{ "2000-02-29", 0, 951782400 },		/* 400th: a leap year */
	{ "2026-12-01T24:00", -1, 0 },
	{ "2026-12-01T23:60", -1, 0 },
	{ "2026-12-01T23:59:60", -1, 0 },
	{ "2026-13-01", -1, 0 },
	{ "2026-00-10", -1, 0 },
	{ "2026-12-32", -1, 0 },
	{ "1969-12-31", -1, 0 },
	{ "2026-12-01T09", -1, 0 },
	{ "2026-12-01 09:00", -1, 0 },
	{ "2026-12-01T09:00Z", 0, 1796115600 },
	{ "2026-12-01T09:00:30Z", 0, 1796115630 },
	{ "2000-02-29T00:00Z", 0, 951782400 },
	{ "1970-01-01T00:00:00Z", 0, 0 },
	{ "2026-12-01Z", -1, 0 },
	{ "2026-12-01T09:00ZZ", -1, 0 },
	{ "2026-12-01T09:00z", -1, 0 },
	{ "26-12-01", -1, 0 },
	{ "1796166958", -1, 0 },
	{ "", -1, 0 },
	{ "now", -1, 0 },
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
