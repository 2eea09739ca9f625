/*
 * draw-test.c - what every picture shares (src/draw/draw.h): the palette
 * and its hand-out down a tree, the scale, time ticks and labels (UTC and
 * a trace's own clock), text widths and legends.  The pictures built on
 * it are read back in draw-pictures-test.c.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cli.h"
#include "draw-test.h"
#include "draw.h"
#include "sim.h"

static void rgb_of(const char *hex, int rgb[3])
{
	unsigned r, g, b;

	ck_assert_int_eq(sscanf(hex, "#%02x%02x%02x", &r, &g, &b), 3);
	rgb[0] = (int)r;
	rgb[1] = (int)g;
	rgb[2] = (int)b;
}

/* Distance of two colours, "redmean" weighted RGB (close to perceived
 * difference without a colour library). */
static double colour_dist(const char *a, const char *b)
{
	int x[3], y[3];
	double rm, dr, dg, db;

	rgb_of(a, x);
	rgb_of(b, y);
	rm = (x[0] + y[0]) / 2.0;
	dr = x[0] - y[0];
	dg = x[1] - y[1];
	db = x[2] - y[2];
	return sqrt((2 + rm / 256) * dr * dr + 4 * dg * dg +
		    (2 + (255 - rm) / 256) * db * db);
}

/* The palette: 36 colours, pairwise distinct by a visible margin; each
 * next colour far from the one before; then it cycles. */
START_TEST(test_palette)
{
	char c[SBD_PALETTE_SIZE][8], again[8];
	double min_all = 1e9, min_next = 1e9;
	size_t i, j;

	for (i = 0; i < SBD_PALETTE_SIZE; i++) {
		sbd_colour(i, c[i]);
		ck_assert_msg(strlen(c[i]) == 7 && c[i][0] == '#',
			      "colour %zu: '%s'", i, c[i]);
	}
	for (i = 0; i < SBD_PALETTE_SIZE; i++)
		for (j = i + 1; j < SBD_PALETTE_SIZE; j++) {
			double d = colour_dist(c[i], c[j]);

			ck_assert_msg(strcmp(c[i], c[j]), "colours %zu and "
				      "%zu are both %s", i, j, c[i]);
			if (d < min_all)
				min_all = d;
			if (j == i + 1 && d < min_next)
				min_next = d;
		}
	printf("palette: smallest distance %.0f, between neighbours %.0f\n",
	       min_all, min_next);
	/* 60 redmean units apart at least: different side by side */
	ck_assert_msg(min_all >= 60, "two colours only %.0f apart", min_all);
	ck_assert_msg(min_next >= 200, "neighbours only %.0f apart", min_next);
	sbd_colour(SBD_PALETTE_SIZE, again);
	ck_assert_str_eq(again, c[0]);
}
END_TEST

static const struct tick_case {
	const char *what;
	int64_t from, to;
	size_t maxn;
	int64_t want_step;
	size_t want_n;
	const char *want_first;	/* sbd_utc of the first tick */
} ticks[] = {
	{ .what = "a day from 10:30, 4 ticks: every 6 h from 12:00",
	  .from = T1030, .to = T1030 + DAY, .maxn = 4,
	  .want_step = 6 * HOUR, .want_n = 4,
	  .want_first = "2026-03-01T12:00Z" },
	{ .what = "a day from 10:30, 10 ticks: every 3 h (2 h makes 12)",
	  .from = T1030, .to = T1030 + DAY, .maxn = 10,
	  .want_step = 3 * HOUR, .want_n = 8,
	  .want_first = "2026-03-01T12:00Z" },
	{ .what = "a week from midnight, 4 ticks: every 2 days, on even "
		  "days since the epoch (day 20513 is odd)",
	  .from = T0000, .to = T0000 + 7 * DAY, .maxn = 4,
	  .want_step = 2 * DAY, .want_n = 4,
	  .want_first = "2026-03-02T00:00Z" },
	{ .what = "an hour from 10:30, 4 ticks: both ends on 30 min",
	  .from = T1030, .to = T1030 + HOUR, .maxn = 4,
	  .want_step = 1800, .want_n = 3,
	  .want_first = "2026-03-01T10:30Z" },
	{ .what = "an aligned day, 2 ticks: every 12 h would make 3, so 1 d",
	  .from = T0000, .to = T0000 + DAY, .maxn = 2,
	  .want_step = DAY, .want_n = 2,
	  .want_first = "2026-03-01T00:00Z" },
	{ .what = "empty span", .from = T1030, .to = T1030, .maxn = 4,
	  .want_n = 0 },
	{ .what = "inverted span", .from = T1030, .to = T1030 - 1,
	  .maxn = 4, .want_n = 0 },
	{ .what = "no ticks wanted", .from = T1030, .to = T1030 + DAY,
	  .maxn = 0, .want_n = 0 },
};

START_TEST(test_ticks)
{
	const struct tick_case *tc = &ticks[_i];
	int64_t t[32], step = -1;
	size_t n = sbd_time_ticks(tc->from, tc->to, tc->maxn, t, 32, &step);
	char first[32];
	size_t k;

	ck_assert_msg(n == tc->want_n, "%s: want %zu ticks, got %zu", tc->what,
		      tc->want_n, n);
	if (!n)
		return;
	ck_assert_msg(step == tc->want_step, "%s: want step %lld, got %lld",
		      tc->what, (long long)tc->want_step, (long long)step);
	sbd_utc(t[0], first, sizeof(first));
	ck_assert_msg(!strcmp(first, tc->want_first), "%s: want first %s, got "
		      "%s", tc->what, tc->want_first, first);
	for (k = 0; k < n; k++) {
		ck_assert(t[k] >= tc->from && t[k] <= tc->to);
		ck_assert(t[k] % step == 0);
		if (k)
			ck_assert(t[k] - t[k - 1] == step);
	}
}
END_TEST

static const struct label_case {
	enum sbd_clock clock;
	int64_t t, step, prev;
	bool first;
	const char *label, *date;
} labels[] = {
	{ .clock = SBD_UTC,   .t = T0000 + DAY,         .step = DAY,      .prev = T0000,
	  .first = false, .label = "03-02",   .date = "" },
	{ .clock = SBD_UTC,   .t = T0000,               .step = DAY,      .prev = 0,
	  .first = true,  .label = "03-01",   .date = "2026" },
	{ .clock = SBD_UTC,   .t = INT64_C(1767225600), .step = 7 * DAY,  .prev = INT64_C(1766620800),
	  .first = false, .label = "01-01",   .date = "2026" }, /* the year changes */
	{ .clock = SBD_UTC,   .t = T0000 + 12 * HOUR,   .step = 6 * HOUR, .prev = 0,
	  .first = true,  .label = "12:00",   .date = "2026-03-01" },
	{ .clock = SBD_UTC,   .t = T0000 + 18 * HOUR,   .step = 6 * HOUR, .prev = T0000 + 12 * HOUR,
	  .first = false, .label = "18:00",   .date = "" },
	{ .clock = SBD_UTC,   .t = T0000 + DAY,         .step = 6 * HOUR, .prev = T0000 + 18 * HOUR,
	  .first = false, .label = "00:00",   .date = "2026-03-02" },
	{ .clock = SBD_UTC,   .t = T1030,               .step = 1800,     .prev = 0,
	  .first = true,  .label = "10:30",   .date = "2026-03-01" },
	/* a trace's own clock: day 0 is its first day */
	{ .clock = SBD_TRACE, .t = 0,                   .step = 6 * HOUR, .prev = 0,
	  .first = true,  .label = "00:00",   .date = "day 0" },
	{ .clock = SBD_TRACE, .t = 6 * HOUR,            .step = 6 * HOUR, .prev = 0,
	  .first = false, .label = "06:00",   .date = "" },
	{ .clock = SBD_TRACE, .t = 115 * DAY + 90 * 60, .step = 3 * HOUR, .prev = 0,
	  .first = true,  .label = "01:30",   .date = "day 115" },
	{ .clock = SBD_TRACE, .t = 116 * DAY,           .step = 6 * HOUR, .prev = 115 * DAY + 18 * HOUR,
	  .first = false, .label = "00:00",   .date = "day 116" },
	{ .clock = SBD_TRACE, .t = 126 * DAY,           .step = 7 * DAY,  .prev = 119 * DAY,
	  .first = false, .label = "day 126", .date = "" },
};

START_TEST(test_labels)
{
	const struct label_case *lc = &labels[_i];
	char label[32], date[32];

	sbd_tick_label(lc->clock, lc->t, lc->step, lc->prev, lc->first, label,
		       sizeof(label), date, sizeof(date));
	ck_assert_msg(!strcmp(label, lc->label) && !strcmp(date, lc->date),
		      "label case %d: want '%s' / '%s', got '%s' / '%s'", _i,
		      lc->label, lc->date, label, date);
}
END_TEST

START_TEST(test_utc)
{
	char b[32];

	sbd_utc(T1030, b, sizeof(b));
	ck_assert_str_eq(b, "2026-03-01T10:30Z");
	sbd_utc(0, b, sizeof(b));
	ck_assert_str_eq(b, "none");
}
END_TEST

START_TEST(test_time_words)
{
	char b[32];

	sbd_time(SBD_UTC, T1030, b, sizeof(b));
	ck_assert_str_eq(b, "2026-03-01T10:30Z");
	sbd_time(SBD_TRACE, 115 * DAY + 89 * 60, b, sizeof(b));
	ck_assert_str_eq(b, "day 115 01:29");
	sbd_time(SBD_TRACE, 0, b, sizeof(b));
	ck_assert_str_eq(b, "day 0 00:00");
}
END_TEST

static const struct clock_case {
	const char *what;
	int64_t t;
	enum sbd_clock want;
} clocks[] = {
	{ .what = "a trace's start", .t = 0, .want = SBD_TRACE },
	{ .what = "Alibaba's --from 9938242 (115 days in)", .t = 9938242,
	  .want = SBD_TRACE },
	{ .what = "the last second before 2000", .t = SBD_EPOCH_MIN - 1,
	  .want = SBD_TRACE },
	{ .what = "2000-01-01", .t = SBD_EPOCH_MIN, .want = SBD_UTC },
	{ .what = "2026-03-01, a live cluster", .t = T1030, .want = SBD_UTC },
};

START_TEST(test_clock_of)
{
	const struct clock_case *cc = &clocks[_i];

	ck_assert_msg(sbd_clock_of(cc->t) == cc->want, "%s: want %d, got %d",
		      cc->what, cc->want, sbd_clock_of(cc->t));
}
END_TEST

static const struct scale_case {
	const char *what;
	double use, quota, want;
	bool off;
} scales[] = {
	{ .what = "quota close above use joins the scale", .use = 3,
	  .quota = 5, .want = 10, .off = false },
	{ .what = "quota 100x use: use keeps its own scale", .use = 3,
	  .quota = 300, .want = 5, .off = true },
	{ .what = "quota exactly twice use joins", .use = 40, .quota = 80,
	  .want = 100, .off = false },
	{ .what = "no use: the quota sets the scale", .use = 0, .quota = 7,
	  .want = 10, .off = false },
	{ .what = "nothing at all", .use = 0, .quota = 0, .want = 1,
	  .off = false },
	{ .what = "use above quota", .use = 190, .quota = 20, .want = 200,
	  .off = false },
};

START_TEST(test_scale)
{
	const struct scale_case *sc = &scales[_i];
	bool off = !sc->off;
	double got = sbd_scale_max(sc->use, sc->quota, &off);

	ck_assert_msg(got == sc->want && off == sc->off, "%s: want %g%s, got "
		      "%g%s", sc->what, sc->want, sc->off ? " (quota off)" : "",
		      got, off ? " (quota off)" : "");
}
END_TEST

static const struct fit_case {
	const char *in;
	double max_px;
	const char *want;
} fits[] = {
	{ .in = "vcEhP",            .max_px = 100, .want = "vcEhP" },
	/* 10 px font: 6.2 px a character; 10 characters fit in 62 px */
	{ .in = "abcdefghijklmnop", .max_px = 62,  .want = "abcdefg..." },
	{ .in = "",                 .max_px = 10,  .want = "" },
	/* UTF-8 is cut between characters: "é" is two bytes */
	{ .in = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", .max_px = 25,  .want = "\xc3\xa9..." },
};

START_TEST(test_fit)
{
	const struct fit_case *fc = &fits[_i];
	char buf[64];

	sbd_fit(fc->in, 10, fc->max_px, buf, sizeof(buf));
	ck_assert_msg(!strcmp(buf, fc->want), "fit('%s', %g): want '%s', got "
		      "'%s'", fc->in, fc->max_px, fc->want, buf);
	ck_assert(sbd_text_width(buf, 10) <= fc->max_px);
}
END_TEST

/* Legends of 27 and 150 names of varied length in 1130 px: every item
 * inside the width, rows as laid out, no two items overlapping. */
START_TEST(test_legend)
{
	static const size_t ns[] = { 27, 150 };
	const struct sbd_legend lg = { .x0 = 70, .width = 1110, .font_px = 12,
				       .swatch = 12, .gap = 18, .row_h = 18 };
	size_t n = ns[_i], i, rows, *row = calloc(n, sizeof(*row));
	char (*names)[48] = calloc(n, sizeof(*names));
	const char **labels = calloc(n, sizeof(*labels));
	double *x = calloc(n, sizeof(*x));

	ck_assert(row && names && labels && x);
	for (i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "team-%0*zu (%zu GPU-h)",
			 (int)(1 + i % 9), i, 1000 - i);
		labels[i] = names[i];
	}
	rows = sbd_legend_layout(&lg, labels, n, x, row);
	ck_assert_uint_eq(rows, row[n - 1] + 1);
	for (i = 0; i < n; i++) {
		double end = x[i] + lg.swatch + 4 +
			     sbd_text_width(labels[i], lg.font_px);

		ck_assert_msg(x[i] >= lg.x0 && end <= lg.x0 + lg.width,
			      "item %zu at %.1f..%.1f", i, x[i], end);
		if (i && row[i] == row[i - 1])
			ck_assert(x[i] >= x[i - 1] + lg.swatch + 4 +
				  sbd_text_width(labels[i - 1], lg.font_px));
		if (i)
			ck_assert(row[i] == row[i - 1] ||
				  (row[i] == row[i - 1] + 1 && x[i] == lg.x0));
	}
	printf("legend of %zu: %zu rows\n", n, rows);
	ck_assert_uint_eq(sbd_legend_layout(&lg, labels, 0, x, row), 0);
	free(row);
	free(names);
	free(labels);
	free(x);
}
END_TEST

/* sbd_assign_colours: a flat list of 150 (any 36 in a row distinct), and
 * a tree of 10 x 29 (siblings, and a parent and its children, distinct). */
START_TEST(test_assign_colours)
{
	const size_t n = 300;
	char (*c)[8] = calloc(n, sizeof(*c));
	long *parent = calloc(n, sizeof(*parent));
	size_t i, j;

	ck_assert(c && parent);
	ck_assert_int_eq(sbd_assign_colours(150, NULL, c), 0);
	for (i = 0; i < 150; i++)
		for (j = i + 1; j < 150 && j < i + SBD_PALETTE_SIZE; j++)
			ck_assert_msg(strcmp(c[i], c[j]), "flat %zu and %zu "
				      "both %s", i, j, c[i]);
	for (i = 0; i < n; i++)
		parent[i] = i % 30 == 0 ? -1 : (long)(i - i % 30);
	ck_assert_int_eq(sbd_assign_colours(n, parent, c), 0);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (parent[i] == parent[j] || parent[j] == (long)i)
				ck_assert_msg(strcmp(c[i], c[j]), "tree %zu and "
					      "%zu both %s", i, j, c[i]);
	free(c);
	free(parent);
}
END_TEST

/* sim_svg_axis: the inputs decide how the pictures read time. */
static const struct axis_case {
	const char *what;
	int64_t t0, from;
	double scale;
	enum sbd_clock want;
	int64_t want_offset;
	const char *want_note;
} axes[] = {
	{ .what = "Alibaba slice: the trace's days", .t0 = 0,
	  .from = 9938242, .scale = 1, .want = SBD_TRACE,
	  .want_offset = 9938242, .want_note = "own clock, day 0" },
	{ .what = "Unix seconds: UTC", .t0 = T1030, .from = 0, .scale = 1,
	  .want = SBD_UTC, .want_offset = 0, .want_note = "Time: UTC" },
	{ .what = "a Unix --from, times from it: UTC", .t0 = 60,
	  .from = T0000, .scale = 1, .want = SBD_UTC,
	  .want_offset = T0000, .want_note = "Time: UTC" },
	{ .what = "compressed: the simulation's days", .t0 = 0,
	  .from = 86400, .scale = 0.01, .want = SBD_TRACE, .want_offset = 0,
	  .want_note = "simulated, day 0 = the start of the trace's slice "
		       "from --from 86400, times x 0.01" },
};

START_TEST(test_sim_axis)
{
	const struct axis_case *ac = &axes[_i];
	struct sim_axis ax;

	sim_svg_axis(&ax, ac->t0, ac->from, ac->scale, "trace's");
	ck_assert_msg(ax.clock == ac->want && ax.offset == ac->want_offset &&
		      strstr(ax.note, ac->want_note), "%s: want clock %d "
		      "offset %lld note '%s', got %d %lld '%s'", ac->what,
		      ac->want, (long long)ac->want_offset, ac->want_note,
		      ax.clock, (long long)ax.offset, ax.note);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("draw");
	TCase *tc = tcase_create("draw");

	tcase_add_test(tc, test_palette);
	tcase_add_test(tc, test_assign_colours);
	tcase_add_loop_test(tc, test_ticks, 0,
			    sizeof(ticks) / sizeof(ticks[0]));
	tcase_add_loop_test(tc, test_labels, 0,
			    sizeof(labels) / sizeof(labels[0]));
	tcase_add_test(tc, test_utc);
	tcase_add_test(tc, test_time_words);
	tcase_add_loop_test(tc, test_clock_of, 0,
			    sizeof(clocks) / sizeof(clocks[0]));
	tcase_add_loop_test(tc, test_scale, 0,
			    sizeof(scales) / sizeof(scales[0]));
	tcase_add_loop_test(tc, test_fit, 0, sizeof(fits) / sizeof(fits[0]));
	tcase_add_loop_test(tc, test_legend, 0, 2);
	tcase_add_loop_test(tc, test_sim_axis, 0,
			    sizeof(axes) / sizeof(axes[0]));
	draw_picture_tests(tc);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
