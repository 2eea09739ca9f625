/* duration-test.c - Slurm time syntax, formatting and quoting. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

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
	const char *in;
	size_t len;
	const char *out;
};

static const struct quote_case quote[] = {
	{ "abc", 64, "abc" },
	{ NULL, 64, "(null)" },
	{ "a\tb", 64, "a\\x09b" },
	{ "\x1b[31m", 64, "\\x1b[31m" },
	{ "\xc3\xa9", 64, "\\xc3\\xa9" },
	{ "0123456789012345678901234567890123456789012345678901234", 128,
	  "012345678901234567890123456789012345678901234567..." },
	{ "abcdef", 4, "abc" },
	{ "\x01\x02", 6, "\\x01" },
};

START_TEST(test_quote)
{
	char buf[128];

	ck_assert_str_eq(sb_quote(quote[_i].in, buf, quote[_i].len), quote[_i].out);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("duration");
	TCase *tc = tcase_create("duration");
	SRunner *sr;
	int failed;

	tcase_add_loop_test(tc, test_parse, 0, sizeof(parse) / sizeof(parse[0]));
	tcase_add_loop_test(tc, test_format, 0, sizeof(format) / sizeof(format[0]));
	tcase_add_test(tc, test_format_round_trip);
	tcase_add_loop_test(tc, test_quote, 0, sizeof(quote) / sizeof(quote[0]));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
