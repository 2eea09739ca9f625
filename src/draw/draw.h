/*
 * src/draw/draw.h - what every picture of ours shares: XML escaping, the
 * palette and how it is handed out down a tree, an axis maximum, time
 * axes (UTC dates, or "day N hh:mm" of a trace's own clock), text widths
 * and a legend that wraps.  No Slurm, no clock, no policy: the budget
 * page (src/sbudget/page.c), `sbudget report plot=` (src/sbudget/output.c)
 * and sbudget-sim's --svg-gpus / --svg-teams (src/sim/svg.c) all draw
 * with these, so a rule is written once.  Unit-tested in
 * test/unit/draw-test.c.
 *
 * Naming: sbd_ for this module.  Times are int64_t seconds.
 */
#ifndef SBD_DRAW_H
#define SBD_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* sbd_xml - write @s escaped for XML/HTML text and attribute values (& < >
 * " ' escaped; other bytes as they are; NULL writes nothing). */
void sbd_xml(FILE *out, const char *s);

/* ------------------------------------------------------------- colours */

/*
 * sbd_colour - the @i-th colour of the palette as "#rrggbb" (8 bytes with
 * the NUL): 12 hues 30 degrees apart, taken in an order that puts
 * neighbours far apart on the wheel, then the same hues at a darker and a
 * lighter step (36 colours), then again.  Any two of the 36 are at least
 * 60 "redmean" units apart, neighbours at least 200 (draw-test.c).
 */
#define SBD_PALETTE_SIZE 36
void sbd_colour(size_t i, char out[8]);

/*
 * sbd_assign_colours - a colour for each of @n items of a tree (@parent[i]:
 * index of i's parent, < i, or -1 at the top; NULL: all at the top).  Up
 * to SBD_PALETTE_SIZE items: one palette colour each, in order.  More:
 * palette index = the parent's + 1 + the rank among its siblings (top
 * level: the rank), so siblings, and a parent and its children, differ
 * (up to SBD_PALETTE_SIZE - 1 siblings; beyond, colour i and i + 36 of a
 * flat list repeat: a picture names every panel, colour tells neighbours
 * apart).  Return 0, -1 when out of memory.
 */
int sbd_assign_colours(size_t n, const long *parent, char (*out)[8]);

/* ---------------------------------------------------------------- scale */

/* sbd_nice_max - an axis maximum for values up to @v: 1, 2 or 5 times a
 * power of ten, >= @v; 1 when @v is not above 0. */
double sbd_nice_max(double v);

/*
 * sbd_scale_max - the y maximum of a chart of use (delivered, owed: up to
 * @use_max) against a quota (up to @quota_max): the quota joins the scale
 * only when it is at most twice as high as use (or nothing was used), so
 * use is never flattened under a distant quota; then 5% headroom, rounded
 * by sbd_nice_max().  *@quota_off (may be NULL): whether the quota is above
 * the scale (the picture says so in words).
 */
double sbd_scale_max(double use_max, double quota_max, bool *quota_off);

/* ------------------------------------------------------------ time axes */

/*
 * How a picture's times read.  SBD_UTC: Unix seconds, shown as UTC dates.
 * SBD_TRACE: seconds on a trace's own clock (0 = the trace's start),
 * shown as "day N hh:mm" (day 0 is the first day).
 */
enum sbd_clock { SBD_UTC, SBD_TRACE };

/* Times at or after this (2000-01-01T00:00:00Z) are read as Unix time: no
 * trace of ours is 30 years long. */
#define SBD_EPOCH_MIN INT64_C(946684800)

/* sbd_clock_of - the clock of times starting at @t: SBD_UTC when @t >=
 * SBD_EPOCH_MIN, else SBD_TRACE. */
enum sbd_clock sbd_clock_of(int64_t t);

/*
 * sbd_time_ticks - tick marks for a time axis over [@from, @to]: the
 * smallest step of 1, 5, 15, 30 minutes, 1, 2, 3, 6, 12 hours, 1, 2, 7,
 * 14, 28 days that gives at most @maxn ticks, each tick a multiple of the
 * step (whole hours, midnights: of UTC, or of the trace's clock).  Writes
 * at most @cap ticks into @out and the step into *@step.  Return the
 * number of ticks (0 when @to <= @from or @maxn == 0).
 */
size_t sbd_time_ticks(int64_t from, int64_t to, size_t maxn, int64_t *out,
		      size_t cap, int64_t *step);

/*
 * sbd_tick_label - the label of tick @t of an axis of @step seconds.
 * SBD_UTC: "MM-DD" for steps of a day or more, with the year "YYYY" in
 * @date for the first tick and where the year changes from the previous
 * tick's, @prev; "HH:MM" below, with the date "YYYY-MM-DD" in @date for
 * the first tick and where the day changes ("" otherwise).
 * SBD_TRACE: "day N" for steps of a day or more; "hh:mm" below, with "day
 * N" in @date on the first tick and where the day changes.  @first: this
 * is the axis' first tick.
 */
void sbd_tick_label(enum sbd_clock clock, int64_t t, int64_t step,
		    int64_t prev, bool first, char *label, size_t llen,
		    char *date, size_t dlen);

/* sbd_utc - "YYYY-MM-DDTHH:MMZ" (@t in UTC), "none" for t <= 0. */
void sbd_utc(int64_t t, char *buf, size_t len);

/* sbd_time - one moment in words: sbd_utc() for SBD_UTC, "day N hh:mm"
 * for SBD_TRACE. */
void sbd_time(enum sbd_clock clock, int64_t t, char *buf, size_t len);

/* ------------------------------------------------------- text, legends */

/*
 * sbd_text_width - an upper estimate of the width of @s in a sans-serif
 * font of @font_px pixels: 0.62 em per character (UTF-8 characters, not
 * bytes; wide enough for digits and capitals of the usual fonts).
 */
double sbd_text_width(const char *s, double font_px);

/*
 * sbd_fit - @s, or its beginning with "..." when wider than @max_px (by
 * sbd_text_width()), into @buf.  Return whether it was cut.
 */
bool sbd_fit(const char *s, double font_px, double max_px, char *buf,
	     size_t len);

/*
 * A legend that wraps: items (a swatch of @swatch pixels, a gap, the
 * label) flow left to right from @x0 and start a new row before they would
 * pass @x0 + @width; an item wider than a row has one of its own (cut
 * labels first with sbd_fit() to @width - @swatch - 4 so that none is).
 * @gap pixels between items.
 */
struct sbd_legend {
	double x0, width;	/* the rows' left edge and width */
	double font_px, swatch, gap, row_h;
};

/* sbd_legend_layout - each item's x into @x and row (0-based) into @row;
 * return the number of rows (0 for no item).  The legend's height is
 * rows x row_h. */
size_t sbd_legend_layout(const struct sbd_legend *lg,
			 const char *const *labels, size_t n, double *x,
			 size_t *row);

/* ------------------------------------------------- axes, panels (SVG) */

/* A time axis along the bottom of a chart (SVG elements, no <svg>). */
struct sbd_axis {
	enum sbd_clock clock;
	int64_t from, to;	/* shown times at x0 and x1 (to > from) */
	double x0, x1, y;	/* the axis' ends and height */
	double grid_top;	/* light grid lines from y up to here (>= y:
				 * none) */
	double left, right;	/* every label stays within these */
	double font_px;
	size_t maxn;		/* at most this many ticks */
};

/*
 * sbd_time_axis - ticks (sbd_time_ticks(), as many up to @maxn as leave
 * every label and date 2 pixels from the next) with their labels under the
 * axis (sbd_tick_label(): a time, then the date or day where it changes,
 * on a second line, font_px + 3 and 2 font_px + 5 below @y); a label that
 * would pass @left or @right is anchored at its tick's side instead of
 * centred.  Return the number of ticks.
 */
size_t sbd_time_axis(FILE *out, const struct sbd_axis *a);

/*
 * One small multiple: a title (bold) and a subtitle above a chart of
 * values per step, each panel on its own scale (sbd_scale_max(): the
 * dotted line joins it only when close; otherwise a line under the
 * subtitles says "quota N UNIT: above the scale", over no data), y labels
 * 0, half and max, a time axis.
 * values[k] covers [from + k step, min(from + (k + 1) step, to)).
 */
struct sbd_panel {
	double x, y, w, h;	/* the box: title, chart, tick labels */
	const char *title;	/* cut to the width, as the subtitles */
	const char *subtitle, *subtitle2;	/* two lines; NULL: none */
	const char *colour;	/* "#rrggbb" of the filled area, the swatch */
	enum sbd_clock clock;
	int64_t from, to, step;	/* shown times */
	size_t nsteps;
	const double *fill;	/* filled steps (delivered) */
	const double *dashed;	/* a dashed step line (owed); NULL none */
	const double *dotted;	/* a dotted step line (quota); NULL none */
	const char *unit;	/* of the values, for the off-scale note */
};

/* Geometry of a panel, for the pictures that stack them: the room the
 * title, subtitle and tick labels take around the chart. */
#define SBD_PANEL_FONT 10.0
#define SBD_PANEL_TITLE 13.0	/* title line */
#define SBD_PANEL_LEFT 44.0	/* y labels */
#define SBD_PANEL_RIGHT 8.0
#define SBD_PANEL_BOTTOM 30.0	/* two lines of tick labels */

/* sbd_panel_svg - draw @p (SVG elements, no <svg>).  Return 0, -1 on bad
 * arguments or a write error. */
int sbd_panel_svg(FILE *out, const struct sbd_panel *p);

/* A style legend's item: a filled box or a dashed or dotted line, and
 * what it means. */
enum sbd_style { SBD_STYLE_FILL, SBD_STYLE_DASHED, SBD_STYLE_DOTTED };
struct sbd_style_item {
	enum sbd_style style;
	const char *colour;
	const char *label;
};

/* sbd_style_legend - up to 8 @items laid out by sbd_legend_layout() (the
 * swatch: a box or a line @lg->swatch wide), the first row's baseline at
 * @y.  Return the rows. */
size_t sbd_style_legend(FILE *out, const struct sbd_legend *lg, double y,
			const struct sbd_style_item *items, size_t n);

/* sbd_grid_columns - panels per row in a picture 1200 pixels wide of @n
 * small multiples: 1, 2 up to 4, 3 up to 9, else 4 (about 280 pixels
 * each). */
size_t sbd_grid_columns(size_t n);

/*
 * A grid of panels in groups: rows of @cols panels @panel_w x @panel_h
 * from (@x0, @top), @gap apart; a group starts a new row under a heading
 * @head_h high.
 */
struct sbd_grid {
	double x0, top, panel_w, panel_h, gap, head_h;
	size_t cols;
};

/* sbd_grid_layout - each of @n panels' top-left into @x, @y (@new_group
 * [i]: panel i starts a group; NULL: none does); return the y below the
 * last row (its gap included; @top + @gap for no panel). */
double sbd_grid_layout(const struct sbd_grid *g, const bool *new_group,
		       size_t n, double *x, double *y);

/*
 * sbd_svg_open - the start of a standalone SVG picture of @w x @h pixels
 * (XML declaration, <svg> with width, height and viewBox, a white
 * background, sans-serif @font_px); sbd_svg_close() its end.  Return 0, -1
 * on a write error.
 */
int sbd_svg_open(FILE *out, double w, double h, double font_px);
int sbd_svg_close(FILE *out);

#endif /* SBD_DRAW_H */
