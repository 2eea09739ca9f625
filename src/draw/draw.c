/*
 * draw.c - the pictures' shared rules (see draw.h): escaping, palette,
 * scale, time axes, text widths, legends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"

void sbd_xml(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

/* ------------------------------------------------------------- colours */

/* HSL (h in degrees, s and l in [0,1]) to 8-bit RGB. */
static void hsl_rgb(double h, double s, double l, int rgb[3])
{
	double c = (1 - fabs(2 * l - 1)) * s;
	double hp = fmod(h, 360) / 60;
	double x = c * (1 - fabs(fmod(hp, 2) - 1)), m = l - c / 2;
	double r = 0, g = 0, b = 0;

	if (hp < 1) { r = c; g = x; }
	else if (hp < 2) { r = x; g = c; }
	else if (hp < 3) { g = c; b = x; }
	else if (hp < 4) { g = x; b = c; }
	else if (hp < 5) { r = x; b = c; }
	else { r = c; b = x; }
	rgb[0] = (int)lround((r + m) * 255);
	rgb[1] = (int)lround((g + m) * 255);
	rgb[2] = (int)lround((b + m) * 255);
}

void sbd_colour(size_t i, char out[8])
{
	/* 12 hues, each next one 150 degrees on; then darker, then lighter */
	static const unsigned hue_order[12] = { 0, 5, 10, 3, 8, 1, 6, 11, 4,
						9, 2, 7 };
	static const double light[3] = { 0.42, 0.27, 0.62 };
	size_t k = i % SBD_PALETTE_SIZE;
	int rgb[3];

	/* hue 0 = 210 degrees (blue) */
	hsl_rgb(210 + 30.0 * hue_order[k % 12], 0.70, light[k / 12], rgb);
	snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

int sbd_assign_colours(size_t n, const long *parent, char (*out)[8])
{
	size_t *nkids = NULL, *index = NULL;	/* per item; [n]: the top */
	size_t i;

	if (n <= SBD_PALETTE_SIZE) {
		for (i = 0; i < n; i++)
			sbd_colour(i, out[i]);
		return 0;
	}
	nkids = calloc(n + 1, sizeof(*nkids));
	index = calloc(n, sizeof(*index));
	if (!nkids || !index) {
		free(nkids);
		free(index);
		return -1;
	}
	for (i = 0; i < n; i++) {
		long g = parent ? parent[i] : -1;
		bool top = g < 0 || (size_t)g >= i;
		size_t slot = top ? n : (size_t)g;

		index[i] = (top ? 0 : index[slot] + 1) + nkids[slot]++;
		sbd_colour(index[i], out[i]);
	}
	free(nkids);
	free(index);
	return 0;
}

/* ---------------------------------------------------------------- scale */

double sbd_nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

double sbd_scale_max(double use_max, double quota_max, bool *quota_off)
{
	double y = use_max;

	if (quota_max <= 2 * use_max || !(use_max > 0))
		y = use_max > quota_max ? use_max : quota_max;
	y = sbd_nice_max(y * 1.05);
	if (quota_off)
		*quota_off = quota_max > y;
	return y;
}

/* ------------------------------------------------------------ time axes */

enum sbd_clock sbd_clock_of(int64_t t)
{
	return t >= SBD_EPOCH_MIN ? SBD_UTC : SBD_TRACE;
}

/* The first multiple of @s at or after @t (floor division: @t may be
 * negative). */
static int64_t first_multiple(int64_t t, int64_t s)
{
	int64_t q = t / s;

	if (t % s > 0)
		q++;
	return q * s;
}

size_t sbd_time_ticks(int64_t from, int64_t to, size_t maxn, int64_t *out,
		      size_t cap, int64_t *step)
{
	static const int64_t steps[] = {
		60, 300, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
		2 * 86400, 7 * 86400, 14 * 86400, 28 * 86400,
	};
	size_t i, n = 0;
	int64_t s = 0, t;

	if (to <= from || maxn == 0)
		return 0;
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int64_t first;

		s = steps[i];
		first = first_multiple(from, s);
		if (first > to || (size_t)((to - first) / s + 1) <= maxn)
			break;
	}
	if (i == sizeof(steps) / sizeof(steps[0]))
		return 0;	/* longer than maxn x 28 days: no ticks */
	*step = s;
	for (t = first_multiple(from, s); t <= to; t += s) {
		if (n < cap)
			out[n] = t;
		n++;
	}
	return n < cap ? n : cap;
}

static void utc_fmt(int64_t t, const char *fmt, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (!gmtime_r(&tt, &tm) || !strftime(buf, len, fmt, &tm))
		snprintf(buf, len, "?");
}

void sbd_utc(int64_t t, char *buf, size_t len)
{
	if (t <= 0)
		snprintf(buf, len, "none");
	else
		utc_fmt(t, "%Y-%m-%dT%H:%MZ", buf, len);
}

/* Day number of trace time @t (floor: day -1 before the start). */
static long long trace_day(int64_t t)
{
	return (long long)((t - (t % 86400 + 86400) % 86400) / 86400);
}

static void trace_hm(int64_t t, char *buf, size_t len)
{
	int64_t s = (t % 86400 + 86400) % 86400;

	snprintf(buf, len, "%02d:%02d", (int)(s / 3600), (int)(s % 3600 / 60));
}

void sbd_time(enum sbd_clock clock, int64_t t, char *buf, size_t len)
{
	char hm[16];

	if (clock == SBD_UTC) {
		sbd_utc(t, buf, len);
		return;
	}
	trace_hm(t, hm, sizeof(hm));
	snprintf(buf, len, "day %lld %s", trace_day(t), hm);
}

void sbd_tick_label(enum sbd_clock clock, int64_t t, int64_t step,
		    int64_t prev, bool first, char *label, size_t llen,
		    char *date, size_t dlen)
{
	char d0[24], d1[24];

	date[0] = '\0';
	if (clock == SBD_TRACE) {
		snprintf(d1, sizeof(d1), "day %lld", trace_day(t));
		if (step >= 86400) {
			snprintf(label, llen, "%s", d1);
			return;
		}
		trace_hm(t, label, llen);
		if (first || trace_day(prev) != trace_day(t))
			snprintf(date, dlen, "%s", d1);
		return;
	}
	if (step >= 86400) {
		/* "MM-DD", the year under the first and where it changes */
		utc_fmt(t, "%m-%d", label, llen);
		utc_fmt(t, "%Y", d1, sizeof(d1));
		if (!first)
			utc_fmt(prev, "%Y", d0, sizeof(d0));
		if (first || strcmp(d0, d1))
			snprintf(date, dlen, "%s", d1);
		return;
	}
	utc_fmt(t, "%H:%M", label, llen);
	utc_fmt(t, "%Y-%m-%d", d1, sizeof(d1));
	if (!first)
		utc_fmt(prev, "%Y-%m-%d", d0, sizeof(d0));
	if (first || strcmp(d0, d1))
		snprintf(date, dlen, "%s", d1);
}

/* ------------------------------------------------------- text, legends */

/* UTF-8 characters in the first @bytes bytes of @s. */
static size_t chars(const char *s, size_t bytes)
{
	size_t n = 0, i;

	for (i = 0; i < bytes && s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80)
			n++;
	return n;
}

double sbd_text_width(const char *s, double font_px)
{
	return s ? 0.62 * font_px * (double)chars(s, strlen(s)) : 0;
}

bool sbd_fit(const char *s, double font_px, double max_px, char *buf,
	     size_t len)
{
	size_t n;

	if (!s)
		s = "";
	if (sbd_text_width(s, font_px) <= max_px) {
		snprintf(buf, len, "%s", s);
		return false;
	}
	/* the longest beginning (whole UTF-8 characters) that fits with
	 * "..." */
	for (n = strlen(s); n > 0; n--) {
		if (((unsigned char)s[n] & 0xc0) == 0x80)
			continue;
		if (0.62 * font_px * (double)(chars(s, n) + 3) <= max_px)
			break;
	}
	snprintf(buf, len, "%.*s...", (int)n, s);
	return true;
}

size_t sbd_legend_layout(const struct sbd_legend *lg,
			 const char *const *labels, size_t n, double *x,
			 size_t *row)
{
	double cx = lg->x0;
	size_t i, r = 0;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		double w = lg->swatch + 4 +
			   sbd_text_width(labels[i], lg->font_px);

		if (cx > lg->x0 && cx + w > lg->x0 + lg->width) {
			r++;
			cx = lg->x0;
		}
		x[i] = cx;
		row[i] = r;
		cx += w + lg->gap;
	}
	return r + 1;
}

/* ------------------------------------------------- axes, panels (SVG) */

/* A label of width @w centred at @x, kept within [@left, @right]: its x
 * and anchor. */
static const char *anchor(double *x, double w, double left, double right)
{
	if (*x - w / 2 < left) {
		*x = *x - 2 < left ? left : *x - 2;
		return "start";
	}
	if (*x + w / 2 > right) {
		*x = *x + 2 > right ? right : *x + 2;
		return "end";
	}
	return "middle";
}

static void axis_text(FILE *out, double x, double y, const char *s,
		      const struct sbd_axis *a)
{
	const char *anc = anchor(&x, sbd_text_width(s, a->font_px), a->left,
				 a->right);

	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">", x, y,
		anc);
	sbd_xml(out, s);
	fputs("</text>\n", out);
}

/* Whether @nt ticks' labels at @xs fit side by side: each label (and
 * each date, on its own line) at least 2 pixels from the next. */
static bool labels_fit(const struct sbd_axis *a, const int64_t *ticks,
		       size_t nt, int64_t tstep, const double *xs)
{
	double lab_end = -1e9, date_end = -1e9;
	size_t k;

	for (k = 0; k < nt; k++) {
		char lab[32], date[32];
		double w;

		sbd_tick_label(a->clock, ticks[k], tstep, k ? ticks[k - 1] : 0,
			       k == 0, lab, sizeof(lab), date, sizeof(date));
		w = sbd_text_width(lab, a->font_px);
		if (xs[k] - w / 2 < lab_end + 2)
			return false;
		lab_end = xs[k] + w / 2;
		if (date[0]) {
			w = sbd_text_width(date, a->font_px);
			if (xs[k] - w / 2 < date_end + 2)
				return false;
			date_end = xs[k] + w / 2;
		}
	}
	return true;
}

size_t sbd_time_axis(FILE *out, const struct sbd_axis *a)
{
	int64_t ticks[64], tstep = 0;
	double span = (double)(a->to - a->from), xs[64];
	size_t k, nt = 0, maxn;

	/* the most ticks, up to maxn, whose labels do not overlap */
	for (maxn = a->maxn < 64 ? a->maxn : 64; maxn >= 1; maxn--) {
		nt = sbd_time_ticks(a->from, a->to, maxn, ticks, 64, &tstep);
		for (k = 0; k < nt; k++)
			xs[k] = a->x0 + (a->x1 - a->x0) *
				(double)(ticks[k] - a->from) / span;
		if (maxn == 1 || labels_fit(a, ticks, nt, tstep, xs))
			break;
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"#888\"/>\n", a->x0, a->y, a->x1, a->y);
	for (k = 0; k < nt; k++) {
		double x = xs[k];
		char lab[32], date[32];

		sbd_tick_label(a->clock, ticks[k], tstep, k ? ticks[k - 1] : 0,
			       k == 0, lab, sizeof(lab), date, sizeof(date));
		if (a->grid_top < a->y)
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\""
				" y2=\"%.1f\" stroke=\"#e4e4e4\"/>\n", x,
				a->grid_top, x, a->y);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#888\"/>\n", x, a->y, x,
			a->y + 4);
		axis_text(out, x, a->y + a->font_px + 3, lab, a);
		if (date[0])
			axis_text(out, x, a->y + 2 * a->font_px + 5, date, a);
	}
	return nt;
}

/* One step line (or the outline of the filled area) of @v. */
static void step_path(FILE *out, const struct sbd_panel *p, const double *v,
		      double cx0, double cx1, double cy1, double ch,
		      double ymax, bool closed)
{
	double span = (double)(p->to - p->from);
	size_t k;

	if (closed)
		fprintf(out, "M%.1f,%.1f", cx0, cy1);
	for (k = 0; k < p->nsteps; k++) {
		double t0 = (double)((int64_t)k * p->step);
		double t1 = fmin((double)((int64_t)(k + 1) * p->step), span);
		double x0 = cx0 + (cx1 - cx0) * fmin(t0, span) / span;
		double x1 = cx0 + (cx1 - cx0) * t1 / span;
		double y = cy1 - ch * fmin(fmax(v[k], 0), ymax) / ymax;

		fprintf(out, "%c%.1f,%.1fL%.1f,%.1f",
			!closed && k == 0 ? 'M' : 'L', x0, y, x1, y);
	}
	if (closed)
		fprintf(out, "L%.1f,%.1fZ", cx1, cy1);
}

/* An axis value: "%.3g" below 1000 (no exponent above). */
static void num_label(double v, char *buf, size_t len)
{
	if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3g", v);
}

/* One line of text at @top of panel @p, cut to its width, with the SVG
 * attributes @attrs.  Return: the y under it (@top + the font size). */
static double panel_line(FILE *out, const struct sbd_panel *p,
			 const char *text, double top, const char *attrs)
{
	const double f = SBD_PANEL_FONT;
	char buf[256];

	sbd_fit(text, f, p->w, buf, sizeof(buf));
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" %s>",
		p->x, top + f - 1, f, attrs);
	sbd_xml(out, buf);
	fputs("</text>\n", out);
	return top + f;
}

int sbd_panel_svg(FILE *out, const struct sbd_panel *p)
{
	const double f = SBD_PANEL_FONT;
	double top = p->y + SBD_PANEL_TITLE + 4, umax = 0, qmax = 0, ymax;
	double cx0, cx1, cy0, cy1, ch;
	bool off = false;
	char buf[256];
	size_t k;

	if (!out || !p || !p->fill || p->step <= 0 || p->nsteps == 0 ||
	    p->to <= p->from)
		return -1;
	for (k = 0; k < p->nsteps; k++) {
		umax = fmax(umax, p->fill[k]);
		if (p->dashed)
			umax = fmax(umax, p->dashed[k]);
		if (p->dotted)
			qmax = fmax(qmax, p->dotted[k]);
	}
	ymax = sbd_scale_max(umax, qmax, &off);
	/* the title: a swatch, the name in bold (cut to the width) */
	fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" "
		"fill=\"%s\"/>\n", p->x, p->y + 2, p->colour);
	sbd_fit(p->title, SBD_PANEL_TITLE, p->w - 14, buf, sizeof(buf));
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\" "
		"font-weight=\"bold\">", p->x + 14, p->y + SBD_PANEL_TITLE - 1,
		SBD_PANEL_TITLE);
	sbd_xml(out, buf);
	fputs("</text>\n", out);
	if (p->subtitle)
		top = panel_line(out, p, p->subtitle, top, "fill=\"#444\"") + 4;
	if (p->subtitle2)
		top = panel_line(out, p, p->subtitle2, top, "fill=\"#444\"") + 3;
	if (p->dotted && off) {
		/* the quota in words on a line of its own, over no data */
		char v[32], note[128];

		num_label(qmax, v, sizeof(v));
		snprintf(note, sizeof(note), "quota %s %s: above the scale", v,
			 p->unit ? p->unit : "");
		top = panel_line(out, p, note, top, "font-style=\"italic\" "
				 "fill=\"#777\"") + 3;
	}
	cx0 = p->x + SBD_PANEL_LEFT;
	cx1 = p->x + p->w - SBD_PANEL_RIGHT;
	cy0 = top + 2;
	cy1 = p->y + p->h - SBD_PANEL_BOTTOM;
	ch = cy1 - cy0;
	if (ch < 10 || cx1 - cx0 < 20)
		return -1;	/* too small to draw */
	fprintf(out, "<g font-size=\"%.0f\" fill=\"#444\">\n", f);
	/* y grid and labels: 0, half, max */
	for (k = 0; k <= 2; k++) {
		double y = cy1 - ch * (double)k / 2;
		char v[32];

		num_label(ymax * (double)k / 2, v, sizeof(v));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#e4e4e4\"/><text x=\"%.1f\" "
			"y=\"%.1f\" text-anchor=\"end\">%s</text>\n", cx0, y,
			cx1, y, cx0 - 3, y + f / 2 - 1, v);
	}
	fprintf(out, "<path fill=\"%s\" fill-opacity=\"0.45\" stroke=\"%s\" "
		"stroke-width=\"1.2\" d=\"", p->colour, p->colour);
	step_path(out, p, p->fill, cx0, cx1, cy1, ch, ymax, true);
	fputs("\"/>\n", out);
	if (p->dashed) {
		fputs("<path fill=\"none\" stroke=\"#222\" stroke-width=\"1.1\" "
		      "stroke-dasharray=\"5 3\" d=\"", out);
		step_path(out, p, p->dashed, cx0, cx1, cy1, ch, ymax, false);
		fputs("\"/>\n", out);
	}
	if (p->dotted && !off) {
		fputs("<path fill=\"none\" stroke=\"#666\" stroke-width=\"1.4\" "
		      "stroke-dasharray=\"1 3\" d=\"", out);
		step_path(out, p, p->dotted, cx0, cx1, cy1, ch, ymax, false);
		fputs("\"/>\n", out);
	}
	sbd_time_axis(out, &(struct sbd_axis){
		.clock = p->clock, .from = p->from, .to = p->to, .x0 = cx0,
		.x1 = cx1, .y = cy1, .grid_top = cy1, .left = p->x,
		.right = p->x + p->w, .font_px = f,
		.maxn = 12,
	});
	fputs("</g>\n", out);
	return ferror(out) ? -1 : 0;
}

size_t sbd_style_legend(FILE *out, const struct sbd_legend *lg, double y,
			const struct sbd_style_item *items, size_t n)
{
	const char *labels[8] = { 0 };
	double x[8] = { 0 };
	size_t row[8] = { 0 }, i, rows;

	if (n > 8)
		n = 8;
	for (i = 0; i < n; i++)
		labels[i] = items[i].label;
	rows = sbd_legend_layout(lg, labels, n, x, row);
	for (i = 0; i < n; i++) {
		double ly = y + (double)row[i] * lg->row_h;
		double mid = ly - lg->font_px / 3;

		switch (items[i].style) {
		case SBD_STYLE_FILL:
			fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\""
				" height=\"10\" fill=\"%s\" fill-opacity=\"0.45\" "
				"stroke=\"%s\"/>", x[i], mid - 5, lg->swatch,
				items[i].colour, items[i].colour);
			break;
		case SBD_STYLE_DASHED:
		case SBD_STYLE_DOTTED:
			fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.4\" "
				"stroke-dasharray=\"%s\"/>", x[i], mid,
				x[i] + lg->swatch, mid, items[i].colour,
				items[i].style == SBD_STYLE_DASHED ? "5 3" :
				"1 3");
			break;
		}
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\">",
			x[i] + lg->swatch + 4, ly, lg->font_px);
		sbd_xml(out, labels[i]);
		fputs("</text>\n", out);
	}
	return rows;
}

size_t sbd_grid_columns(size_t n)
{
	return n <= 1 ? 1 : n <= 4 ? 2 : n <= 9 ? 3 : 4;
}

double sbd_grid_layout(const struct sbd_grid *g, const bool *new_group,
		       size_t n, double *x, double *y)
{
	double cy = g->top;
	size_t col = 0, i;

	for (i = 0; i < n; i++) {
		if (new_group && new_group[i]) {
			if (col)
				cy += g->panel_h + g->gap;
			col = 0;
			cy += g->head_h;
		} else if (col == g->cols) {
			col = 0;
			cy += g->panel_h + g->gap;
		}
		x[i] = g->x0 + (double)col * (g->panel_w + g->gap);
		y[i] = cy;
		col++;
	}
	return cy + (n ? g->panel_h : 0) + g->gap;
}

int sbd_svg_open(FILE *out, double w, double h, double font_px)
{
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"%.0f\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		w, h, w, h, font_px);
	return ferror(out) ? -1 : 0;
}

int sbd_svg_close(FILE *out)
{
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
