/*
 * sbudget-output-test.c - sbudget's output formats: a table in each style,
 * the all-teams figures after it, an unknown field, the Prometheus text and
 * the SVG plot (src/sbudget/cli.h; no Slurm).
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sbudget-test.h"

static const struct sbc_fielddef defs[] = {
	{ "Name", 0, false }, { "Value", 0, true }, { "Note", 0, false },
};
static const char *const defaults[] = { "Name", "Value", NULL };

static char *render(const struct sbc_cmd *cmd, enum sbc_style style,
		    bool noheader, bool vertical)
{
	struct sbc_table t;
	char msg[SBC_MSG_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, cmd, msg,
					sizeof(msg)), 0);
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "phys-a");
	sbc_table_num(&t, "Value", 0.5, 3);
	sbc_table_text(&t, "Note", "say \"hi\"");
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "bio");
	sbc_table_int(&t, "Value", 12);
	sbc_table_print(&t, f, style, noheader, vertical, "rows");
	fclose(f);
	sbc_table_free(&t);
	return buf;
}

START_TEST(test_output)
{
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX], *s;

	memset(&cmd, 0, sizeof(cmd));
	s = render(&cmd, SBC_STYLE_PARSABLE2, false, false);
	ck_assert_str_eq(s, "Name|Value\nphys-a|0.500\nbio|12\n");
	free(s);
	s = render(&cmd, SBC_STYLE_PARSABLE, true, false);
	ck_assert_str_eq(s, "phys-a|0.500|\nbio|12|\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, false, false);
	ck_assert_str_eq(s, "Name   Value\n------ -----\nphys-a 0.500\n"
			    "bio       12\n");
	free(s);
	ck_assert_int_eq(parse("show budget format=name%3,note,value", &cmd,
			       msg), 0);
	s = render(&cmd, SBC_STYLE_JSON, false, false);
	ck_assert_str_eq(s, "{\"rows\": [\n  {\"Name\": \"phys-a\", \"Note\": "
			    "\"say \\\"hi\\\"\", \"Value\": 0.500},\n  {\"Name\": "
			    "\"bio\", \"Note\": null, \"Value\": 12}\n]}\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, true, false);
	ck_assert_str_eq(s, "ph+ say \"hi\" 0.500\nbio             12\n");
	free(s);
	s = render(&cmd, SBC_STYLE_TABLE, false, true);
	ck_assert_str_eq(s, " Name: phys-a\n Note: say \"hi\"\nValue: 0.500\n"
			    "\n Name: bio\nValue: 12\n");
	free(s);
}
END_TEST

/* The all-teams figures after a table: 50 of 64 GPU-hours hour by hour,
 * the worst team bio/ann at 1/8; over the window not computed. */
static char *render_all(enum sbc_style style, bool noheader, bool missing)
{
	struct sbc_table t;
	struct sbc_cmd cmd;
	struct sbc_all_teams all[2] = {
		{ .json_key = "all_teams", .title = "All teams", .suffix = "",
		  .teams = 3,
		  .fig = { .owed = 64 * 3600, .capped = 50 * 3600 + 0.4,
			   .ratio = 50.0 / 64, .teams_owed = 2, .worst = 1,
			   .worst_ratio = 0.125 },
		  .worst_account = "bio", .worst_user = "ann",
		  .worst_id = 21 },
		{ .json_key = "all_teams_window",
		  .title = "All teams over the window", .suffix = "Window",
		  .teams = 3,
		  .fig = { .owed = 0, .capped = 0, .ratio = 1,
			   .teams_owed = 0, .worst = SB_NONE,
			   .worst_ratio = 1 } },
	};
	char msg[SBC_MSG_MAX], *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (missing)
		snprintf(all[1].missing, sizeof(all[1].missing), "too long");
	memset(&cmd, 0, sizeof(cmd));
	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, &cmd, msg,
					sizeof(msg)), 0);
	ck_assert_int_eq(sbc_table_row(&t), 0);
	sbc_table_text(&t, "Name", "bio");
	sbc_table_int(&t, "Value", 12);
	sbc_table_print_all(&t, f, style, noheader, "rows", all, 2);
	fclose(f);
	sbc_table_free(&t);
	return buf;
}

START_TEST(test_output_all_teams)
{
	char *s;

	s = render_all(SBC_STYLE_TABLE, false, false);
	ck_assert_str_eq(s, "Name Value\n---- -----\nbio     12\n"
			    "All teams: DelivOwed 0.781, Capped 50.000 of Owed "
			    "64.000 GPU-hours, 2 of 3 teams owed; worst team "
			    "bio/ann (id 21) 0.125\n"
			    "All teams over the window: DelivOwedWindow 1.000, "
			    "CappedWindow 0.000 of OwedWindow 0.000 GPU-hours, "
			    "0 of 3 teams owed\n");
	free(s);
	s = render_all(SBC_STYLE_TABLE, false, true);
	ck_assert_msg(strstr(s, "\nAll teams over the window: not computed: "
			     "too long\n"), "%s", s);
	free(s);
	/* -n, -p, -P: the rows only, every line a row */
	s = render_all(SBC_STYLE_TABLE, true, false);
	ck_assert_str_eq(s, "bio 12\n");
	free(s);
	s = render_all(SBC_STYLE_PARSABLE2, false, false);
	ck_assert_str_eq(s, "Name|Value\nbio|12\n");
	free(s);
	s = render_all(SBC_STYLE_PARSABLE, true, false);
	ck_assert_str_eq(s, "bio|12|\n");
	free(s);
	/* JSON: keys beside the rows' array; raw figures rounded */
	s = render_all(SBC_STYLE_JSON, false, false);
	ck_assert_str_eq(s, "{\"rows\": [\n  {\"Name\": \"bio\", \"Value\": 12}"
			    "\n],\n\"all_teams\": {\"Owed\": 64.000, \"Capped\": "
			    "50.000, \"DelivOwed\": 0.781, \"OwedRaw\": 230400, "
			    "\"CappedRaw\": 180000, \"Teams\": 3, \"TeamsOwed\": "
			    "2, \"WorstAccount\": \"bio\", \"WorstUser\": "
			    "\"ann\", \"WorstAssocId\": 21, \"WorstDelivOwed\": "
			    "0.125},\n\"all_teams_window\": {\"OwedWindow\": "
			    "0.000, \"CappedWindow\": 0.000, \"DelivOwedWindow\":"
			    " 1.000, \"OwedWindowRaw\": 0, \"CappedWindowRaw\": "
			    "0, \"Teams\": 3, \"TeamsOwed\": 0, \"WorstAccount\":"
			    " null, \"WorstUser\": null, \"WorstAssocId\": null,"
			    " \"WorstDelivOwedWindow\": null}}\n");
	free(s);
	s = render_all(SBC_STYLE_JSON, false, true);
	ck_assert_msg(strstr(s, ",\n\"all_teams_window\": null}\n"), "%s", s);
	free(s);
}
END_TEST

START_TEST(test_unknown_field)
{
	struct sbc_table t;
	struct sbc_cmd cmd;
	char msg[SBC_MSG_MAX];

	ck_assert_int_eq(parse("show budget format=Name,Colour", &cmd, msg), 0);
	ck_assert_int_eq(sbc_table_init(&t, defs, 3, defaults, &cmd, msg,
					sizeof(msg)), -1);
	ck_assert_msg(strstr(msg, "unknown field 'Colour'") &&
		      strstr(msg, "Name, Value, Note"), "message: %s", msg);
}
END_TEST

START_TEST(test_prom_and_svg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	const double a[] = { 1, 2, 3 }, b[] = { 0, 0.5, 0 };
	const struct sbc_plot_series s[] = {
		{ .name = "a<&>", .values = a, .quota = 2, .parent = -1 },
		{ .name = "b", .values = b, .quota = 1, .parent = 0 },
	};
	const int64_t t0 = INT64_C(1772361000);	/* 2026-03-01T10:30Z */
	size_t n = 0;
	const char *p;

	sbc_prom_label(f, "a\"b\\c\nd");
	fclose(f);
	ck_assert_str_eq(buf, "a\\\"b\\\\c\\nd");
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(sbc_svg_plot(f, "T", t0, t0 + 3 * 3600, 3600, 3, s,
				      2), 0);
	fclose(f);
	ck_assert(!strncmp(buf, "<?xml", 5));
	ck_assert(strstr(buf, "</svg>\n"));
	ck_assert(strstr(buf, ">a&lt;&amp;&gt;</text>"));
	for (p = buf; (p = strstr(p, "<path fill=\"#")); p++)
		n++;
	ck_assert_uint_eq(n, 2);	/* one filled panel per series */
	ck_assert(strstr(buf, "2026-03-01T10:30Z to 2026-03-01T13:30Z (UTC)"));
	free(buf);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0 + 3600, 0, 3, s, 2),
			 -1);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0 + 3600, 60, 0, s, 2),
			 -1);
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", t0, t0, 60, 1, s, 2), -1);
}
END_TEST

void sbudget_output_tests(TCase *tc)
{
	tcase_add_test(tc, test_output);
	tcase_add_test(tc, test_output_all_teams);
	tcase_add_test(tc, test_unknown_field);
	tcase_add_test(tc, test_prom_and_svg);
}
