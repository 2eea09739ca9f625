/*
 * draw-test.c - what every picture shares (src/draw/draw.h): the palette
 * and its hand-out down a tree, the scale, time ticks and labels (UTC and
 * a trace's own clock), text widths and legends; then the pictures built
 * on it, read back as SVG: sbudget's report plot at 27 and 300 budgets,
 * sbudget-sim's per-team panels at 27 (grouped) and 150 teams and its
 * per-GPU chart at 27 and 150 teams.  Every picture: every text inside the
 * image (by sbd_text_width(), its anchor and font size), every rectangle
 * inside, colours distinct where they must be, the legend's rows inside
 * the height.  With SB_DRAW_DEMO_DIR set, the pictures are also written
 * there to look at.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "cli.h"
#include "draw.h"
#include "sim.h"

/* 2026-03-01T10:30:00Z and 2026-03-01T00:00:00Z (worked out with
 * timegm()). */
#define T1030 INT64_C(1772361000)
#define T0000 INT64_C(1772323200)
#define HOUR 3600
#define DAY 86400

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

/* ------------------------------------------------- pictures read back */

/* A picture read back: its size, and what the checks found. */
struct svg_facts {
	double w, h;
	size_t texts, rects;
	size_t swatches;	/* 10x10 or 12x12 rects: panel and legend keys */
	char (*swatch)[8];	/* their fill, in order */
};

static double attr(const char *tag, const char *end, const char *name,
		   double dflt)
{
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return dflt;
	return strtod(p + strlen(key), NULL);
}

static bool attr_str(const char *tag, const char *end, const char *name,
		     char *out, size_t len)
{
	char key[32];
	const char *p, *q;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	if (!p || p > end)
		return false;
	p += strlen(key);
	q = strchr(p, '"');
	snprintf(out, len, "%.*s", (int)(q - p), p);
	return true;
}

/* The text of an element from @p (after '>') to "</text>", entities as
 * one character each (their width is a character's). */
static void text_of(const char *p, char *out, size_t len)
{
	size_t n = 0;

	while (*p && strncmp(p, "</text>", 7) && n + 1 < len) {
		if (*p == '&') {
			while (*p && *p != ';')
				p++;
			out[n++] = 'W';
		} else {
			out[n++] = *p;
		}
		p++;
	}
	out[n] = '\0';
}

/*
 * Read @svg: every <text> inside [0, w] x [0, h] (its width by
 * sbd_text_width() at its font size: the element's, the enclosing <g>'s,
 * or the <svg>'s), every <rect> with a position inside the image, and the
 * swatches' colours.
 */
static void read_svg(const char *svg, struct svg_facts *sf)
{
	double font = 12, gfont[16];
	size_t depth = 0;
	const char *p = strstr(svg, "<svg"), *end;

	memset(sf, 0, sizeof(*sf));
	ck_assert(p);
	end = strchr(p, '>');
	sf->w = attr(p, end, "width", -1);
	sf->h = attr(p, end, "height", -1);
	font = attr(p, end, "font-size", 12);
	ck_assert(sf->w > 0 && sf->h > 0);
	ck_assert(strstr(svg, "</svg>\n"));
	sf->swatch = calloc(4096, sizeof(*sf->swatch));
	for (p = end; (p = strchr(p, '<')); p++) {
		end = strchr(p, '>');
		ck_assert(end);
		if (!strncmp(p, "<g ", 3) || !strncmp(p, "<g>", 3)) {
			ck_assert(depth < 16);
			gfont[depth] = attr(p, end, "font-size",
					    depth ? gfont[depth - 1] : font);
			depth++;
		} else if (!strncmp(p, "</g>", 4)) {
			ck_assert(depth > 0);
			depth--;
		} else if (!strncmp(p, "<text", 5)) {
			double f = attr(p, end, "font-size",
					depth ? gfont[depth - 1] : font);
			double x = attr(p, end, "x", -1e9);
			double y = attr(p, end, "y", -1e9);
			char anc[16] = "start", s[512];
			double w, x0;

			attr_str(p, end, "text-anchor", anc, sizeof(anc));
			text_of(end + 1, s, sizeof(s));
			w = sbd_text_width(s, f);
			x0 = !strcmp(anc, "middle") ? x - w / 2 :
			     !strcmp(anc, "end") ? x - w : x;
			ck_assert_msg(x0 >= -0.01 && x0 + w <= sf->w + 0.01 &&
				      y - f >= -0.01 && y <= sf->h + 0.01,
				      "text '%s' (%s at %.1f,%.1f, %.1f px wide)"
				      " outside %.0f x %.0f", s, anc, x, y, w,
				      sf->w, sf->h);
			sf->texts++;
		} else if (!strncmp(p, "<rect", 5) &&
			   strstr(p, " x=\"") && strstr(p, " x=\"") < end) {
			double x = attr(p, end, "x", 0), y = attr(p, end, "y", 0);
			double rw = attr(p, end, "width", 0);
			double rh = attr(p, end, "height", 0);
			char fill[32];

			ck_assert_msg(x >= -0.01 && y >= -0.01 &&
				      x + rw <= sf->w + 0.01 &&
				      y + rh <= sf->h + 0.01, "rect %.1f,%.1f "
				      "%.1fx%.1f outside %.0f x %.0f", x, y, rw,
				      rh, sf->w, sf->h);
			sf->rects++;
			if ((rw == 10 && rh == 10) || (rw == 12 && rh == 12)) {
				ck_assert(attr_str(p, end, "fill", fill,
						   sizeof(fill)));
				ck_assert_msg(strlen(fill) == 7, "fill %s", fill);
				if (sf->swatches < 4096)
					memcpy(sf->swatch[sf->swatches++], fill,
					       8);
			}
		}
	}
	ck_assert_uint_eq(depth, 0);
}

/* Swatches @a..@b (exclusive) pairwise distinct within @window in a row
 * (SIZE_MAX: all). */
static void distinct(const struct svg_facts *sf, size_t a, size_t b,
		     size_t window)
{
	size_t i, j;

	for (i = a; i < b; i++)
		for (j = i + 1; j < b && j - i < window; j++)
			ck_assert_msg(strcmp(sf->swatch[i], sf->swatch[j]),
				      "swatches %zu and %zu both %s", i, j,
				      sf->swatch[i]);
}

/* A stream into *@buf (set when it is closed). */
static FILE *render_begin(char **buf, size_t *len)
{
	FILE *f;

	*buf = NULL;
	f = open_memstream(buf, len);
	ck_assert(f);
	return f;
}

static void demo(const char *name, const char *buf, size_t len)
{
	char path[4096];
	FILE *o;

	if (!getenv("SB_DRAW_DEMO_DIR"))
		return;
	snprintf(path, sizeof(path), "%s/%s", getenv("SB_DRAW_DEMO_DIR"),
		 name);
	ck_assert((o = fopen(path, "w")));
	fwrite(buf, 1, len, o);
	fclose(o);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* The report plot of @ntop top-level budgets with @nkids children each,
 * a week in days from 10:30 UTC; budget 1's quota 100x its use. */
static const struct plot_case {
	size_t ntop, nkids;
} plots[] = {
	{ .ntop = 3,  .nkids = 8 },  /* 27 budgets */
	{ .ntop = 10, .nkids = 29 }, /* 300 budgets */
};

START_TEST(test_report_plot)
{
	const struct plot_case *pc = &plots[_i];
	const size_t n = pc->ntop * (1 + pc->nkids), nsteps = 7;
	struct sbc_plot_series *s = calloc(n, sizeof(*s));
	double *v = calloc(n * nsteps, sizeof(*v));
	char (*names)[40] = calloc(n, sizeof(*names));
	struct svg_facts sf;
	size_t i, k, len, top = 0;
	char *buf, name[32];
	FILE *f;

	ck_assert(s && v && names);
	for (i = 0; i < n; i++) {
		bool is_top = i % (1 + pc->nkids) == 0;

		if (is_top)
			top = i;
		snprintf(names[i], sizeof(names[i]), i == 2 ?
			 "a-budget-with-a-very-long-name-<&>-%zu" : "b%03zu", i);
		for (k = 0; k < nsteps; k++)
			v[i * nsteps + k] = (double)((i + k) % 5);
		s[i] = (struct sbc_plot_series){
			.name = names[i], .values = &v[i * nsteps],
			.quota = i == 1 ? 400 : 3,
			.parent = is_top ? -1 : (long)top };
	}
	f = render_begin(&buf, &len);
	ck_assert_int_eq(sbc_svg_plot(f, "Use against quota, cluster c<1>",
				      T1030, T1030 + 7 * DAY - 3600, DAY, nsteps,
				      s, n), 0);
	fclose(f);
	snprintf(name, sizeof(name), "report-%zu.svg", n);
	demo(name, buf, len);
	read_svg(buf, &sf);
	printf("report plot of %zu budgets: %.0f x %.0f, %zu texts\n", n,
	       sf.w, sf.h, sf.texts);
	/* grouped as the page: the top level, then under each parent */
	ck_assert_uint_eq(count(buf, ">Top level<"), 1);
	ck_assert_uint_eq(count(buf, ">Under b"), pc->ntop);
	/* one swatch per budget, in the page's order (the top level, then
	 * each parent's children); distinct up to 36, else within each group
	 * (siblings) */
	ck_assert_uint_eq(sf.swatches, n);
	if (n <= SBD_PALETTE_SIZE) {
		distinct(&sf, 0, n, SIZE_MAX);
	} else {
		distinct(&sf, 0, pc->ntop, SIZE_MAX);
		for (i = pc->ntop; i < n; i += pc->nkids)
			distinct(&sf, i, i + pc->nkids, SIZE_MAX);
	}
	/* real UTC dates, never Unix seconds */
	ck_assert(strstr(buf, ">03-0") && strstr(buf, ">2026<"));
	ck_assert(!strstr(buf, "Unix time") && !strstr(buf, "1772361000"));
	/* the distant quota said in words, not flattening budget 1 */
	ck_assert(strstr(buf, "above the scale"));
	ck_assert(strstr(buf, "&lt;&amp;&gt;") || strstr(buf, "..."));
	ck_assert(!strstr(buf, "<&>"));
	ck_assert_int_eq(sbc_svg_plot(stdout, "T", T1030, T1030, DAY, 1, s, 1),
			 -1);
	free(sf.swatch);
	free(buf);
	free(s);
	free(v);
	free(names);
}
END_TEST

/* A tree of @ntop parents of @nkids teams each (nkids 0: @ntop flat
 * teams), as sim_tree_parse() reads it. */
static void make_tree(struct sim_tree *t, size_t ntop, size_t nkids)
{
	size_t cap = 64 * ntop * (1 + nkids), off = 0, i, k;
	char *text = malloc(cap), msg[SIM_MSG];

	ck_assert(text);
	for (i = 0; i < ntop; i++) {
		off += (size_t)snprintf(text + off, cap - off, "p%02zu %zu\n", i,
					1 + i % 4);
		for (k = 0; k < nkids; k++)
			off += (size_t)snprintf(text + off, cap - off,
						"p%02zu/team-%02zu-%02zu %zu\n",
						i, i, k, 1 + k % 3);
	}
	ck_assert_msg(sim_tree_parse("t", text, t, msg, sizeof(msg)) == 0,
		      "%s", msg);
	free(text);
}

/* A report of the tree's leaves (or top level) over @days days of trace
 * time from day 115 01:29, with hourly figures. */
static void make_report(struct sim_report *rep, const struct sim_tree *t,
			bool leaves, int days)
{
	uint32_t i, k = 0, h, nh = (uint32_t)days * 24;

	memset(rep, 0, sizeof(*rep));
	rep->t0 = 0;
	rep->t1 = (int64_t)days * DAY - 1800;	/* the last hour is short */
	rep->nhours = nh;
	rep->tree = t;
	rep->teams = calloc(t->n, sizeof(*rep->teams));
	rep->team_names = calloc(t->n, sizeof(*rep->team_names));
	rep->hourly_delivered = calloc((size_t)t->n * nh, sizeof(double));
	rep->hourly_owed = calloc((size_t)t->n * nh, sizeof(double));
	rep->hourly_quota = calloc((size_t)t->n * nh, sizeof(double));
	for (i = 0; i < t->n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t->tree, i);

		if (leaves != (strchr(t->path[i], '/') != NULL))
			continue;
		(void)nd;
		rep->teams[k] = (struct sim_team_report){
			.name = t->path[i], .node = i, .entitled = 0.02,
			.ratio = 0.9 };
		rep->team_names[k] = t->path[i];
		for (h = 0; h < nh; h++) {
			size_t at = (size_t)k * nh + h;
			double len = h + 1 == nh ? 1800 : 3600;

			rep->hourly_delivered[at] = len * ((h + k) % 9);
			rep->hourly_owed[at] = len * ((h + k) % 4);
			rep->hourly_quota[at] = len * (k == 1 ? 500 : 3);
		}
		k++;
	}
	rep->nteams = k;
}

static void free_report(struct sim_report *rep)
{
	free(rep->teams);
	free((void *)rep->team_names);
	free(rep->hourly_delivered);
	free(rep->hourly_owed);
	free(rep->hourly_quota);
}

static const struct teams_case {
	size_t ntop, nkids;	/* nkids 0: flat */
	size_t want_teams, want_groups;
} teams_cases[] = {
	{ .ntop = 3,   .nkids = 9, .want_teams = 27,  .want_groups = 3 }, /* Under p00, p01, p02 */
	{ .ntop = 150, .nkids = 0, .want_teams = 150, .want_groups = 0 }, /* flat: no groups */
};

START_TEST(test_sim_teams)
{
	const struct teams_case *tc = &teams_cases[_i];
	struct sim_tree t = { 0 };
	struct sim_report rep;
	struct sim_axis ax;
	struct svg_facts sf;
	char *buf, name[32];
	size_t len;
	FILE *f;

	make_tree(&t, tc->ntop, tc->nkids);
	make_report(&rep, &t, tc->nkids > 0, 30);
	ck_assert_uint_eq(rep.nteams, tc->want_teams);
	sim_svg_axis(&ax, rep.t0, 115 * DAY + 89 * 60, 1.0, "trace's");
	ck_assert(ax.clock == SBD_TRACE && strstr(ax.note, "day 0"));
	f = render_begin(&buf, &len);
	ck_assert_int_eq(sim_svg_teams(f, &rep, &ax), 0);
	fclose(f);
	snprintf(name, sizeof(name), "sim-teams-%zu.svg", tc->want_teams);
	demo(name, buf, len);
	read_svg(buf, &sf);
	printf("sim teams of %zu: %.0f x %.0f, %zu texts\n", tc->want_teams,
	       sf.w, sf.h, sf.texts);
	ck_assert_uint_eq(sf.swatches, tc->want_teams);
	distinct(&sf, 0, sf.swatches, tc->want_teams <= SBD_PALETTE_SIZE ?
		 SIZE_MAX : SBD_PALETTE_SIZE);
	ck_assert_uint_eq(count(buf, ">Under p"), tc->want_groups);
	/* titles keep share and delivered/owed; the time axis in the trace's
	 * days, said so */
	ck_assert_uint_eq(count(buf, "delivered/owed 90.0%"), tc->want_teams);
	ck_assert_uint_ge(count(buf, ">day 1"), tc->want_teams);
	ck_assert(strstr(buf, "day 115 01:29 to day 145"));
	ck_assert(strstr(buf, "above the scale"));
	free(sf.swatch);
	free(buf);
	free_report(&rep);
	sim_tree_free(&t);
}
END_TEST

/* The per-GPU chart: @nteams teams, two runs each over 16 nodes x 8 GPUs,
 * a day in UTC. */
START_TEST(test_sim_gpus)
{
	static const uint32_t ns[] = { 27, 150 };
	const uint32_t nteams = ns[_i], nodes = 16, gpn = 8;
	struct sim_result r = { 0 };
	uint32_t *job_team = calloc(2 * nteams, sizeof(*job_team));
	const char **names = calloc(nteams, sizeof(*names));
	char (*nm)[24] = calloc(nteams, sizeof(*nm));
	struct sim_axis ax;
	struct svg_facts sf;
	char *buf, name[32];
	size_t len, i, legend;
	FILE *f;

	r.segs = calloc(2 * nteams, sizeof(*r.segs));
	r.nodes = calloc(2 * nteams, sizeof(*r.nodes));
	ck_assert(job_team && names && nm && r.segs && r.nodes);
	for (i = 0; i < 2 * nteams; i++) {
		job_team[i] = (uint32_t)(i % nteams);
		r.nodes[i] = (uint32_t)(i % nodes);
		r.segs[i] = (struct sim_seg){
			.job = (uint32_t)i, .start = T0000 + (int64_t)i * 500,
			.end = T0000 + (int64_t)i * 500 + 3600 * (1 + i % 7),
			.gpus = 1, .node_off = (uint32_t)i, .nnodes = 1,
			.mask = UINT64_C(1) << (i % gpn),
			.preemptible = i % 3 == 0, .preempted = i % 5 == 0 };
	}
	r.nsegs = 2 * nteams;
	for (i = 0; i < nteams; i++) {
		snprintf(nm[i], sizeof(nm[i]), "team-%03zu", i);
		names[i] = nm[i];
	}
	sim_svg_axis(&ax, T0000, 0, 1.0, "trace's");
	ck_assert(ax.clock == SBD_UTC && strstr(ax.note, "UTC"));
	f = render_begin(&buf, &len);
	ck_assert_int_eq(sim_svg_gpus(f, &r, job_team, names, nteams, nodes,
				      gpn, T0000, T0000 + DAY, &ax), 0);
	fclose(f);
	snprintf(name, sizeof(name), "sim-gpus-%u.svg", nteams);
	demo(name, buf, len);
	read_svg(buf, &sf);
	legend = nteams < SBD_PALETTE_SIZE ? nteams : SBD_PALETTE_SIZE + 1;
	printf("sim gpus of %u teams: %.0f x %.0f, %zu legend items\n", nteams,
	       sf.w, sf.h, sf.swatches);
	/* every team in the legend up to 36, then "N other teams" */
	ck_assert_uint_eq(sf.swatches, legend);
	distinct(&sf, 0, legend < SBD_PALETTE_SIZE ? legend :
		 SBD_PALETTE_SIZE, SIZE_MAX);
	if (nteams > SBD_PALETTE_SIZE)
		ck_assert(strstr(buf, ">114 other teams<"));
	/* time labels: hours, and the date */
	ck_assert(strstr(buf, ">12:00<") && strstr(buf, ">2026-03-01<"));
	free(sf.swatch);
	free(buf);
	free(r.segs);
	free(r.nodes);
	free(job_team);
	free(names);
	free(nm);
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
	tcase_add_loop_test(tc, test_report_plot, 0,
			    sizeof(plots) / sizeof(plots[0]));
	tcase_add_loop_test(tc, test_sim_teams, 0,
			    sizeof(teams_cases) / sizeof(teams_cases[0]));
	tcase_add_loop_test(tc, test_sim_gpus, 0, 2);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
