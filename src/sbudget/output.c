/*
 * output.c - sbudget's tables (aligned, parsable, JSON), Prometheus label
 * escaping and the SVG plot (no Slurm).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "draw.h"

static int find_def(const struct sbc_fielddef *defs, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(defs[i].name, name))
			return (int)i;
	return -1;
}

int sbc_table_init(struct sbc_table *t, const struct sbc_fielddef *defs,
		   size_t ndefs, const char *const *defaults,
		   const struct sbc_cmd *cmd, char *msg, size_t msglen)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->defs = defs;
	t->ndefs = ndefs;
	if (cmd && cmd->nfields) {
		for (i = 0; i < cmd->nfields; i++) {
			int d = find_def(defs, ndefs, cmd->fields[i].name);

			if (d < 0) {
				size_t j, off;
				char q[SBC_NAME_MAX];

				snprintf(q, sizeof(q), "%s",
					 cmd->fields[i].name);
				off = (size_t)snprintf(msg, msglen,
					"format: unknown field '%s'; known:",
					q);
				for (j = 0; j < ndefs && off < msglen; j++)
					off += (size_t)snprintf(msg + off,
						msglen - off, "%s %s",
						j ? "," : "", defs[j].name);
				return -1;
			}
			t->col[t->ncols] = d;
			t->width[t->ncols] = cmd->fields[i].width;
			t->ncols++;
		}
		return 0;
	}
	for (i = 0; defaults[i] && t->ncols < SBC_MAX_FIELDS; i++) {
		int d = find_def(defs, ndefs, defaults[i]);

		if (d < 0)
			continue;	/* a bug in the caller's defaults */
		t->col[t->ncols] = d;
		t->width[t->ncols] = defs[d].width;
		t->ncols++;
	}
	return 0;
}

int sbc_table_row(struct sbc_table *t)
{
	size_t i;

	if (t->nrows == t->caprows) {
		size_t cap = t->caprows ? 2 * t->caprows : 16;
		struct sbc_cell *c = realloc(t->cells,
					     cap * t->ndefs * sizeof(*c));

		if (!c)
			return -1;
		t->cells = c;
		t->caprows = cap;
	}
	for (i = 0; i < t->ndefs; i++) {
		struct sbc_cell *c = &t->cells[t->nrows * t->ndefs + i];

		c->kind = SBC_NULL;
		c->text = NULL;
		c->num = 0;
	}
	t->nrows++;
	return 0;
}

static struct sbc_cell *cell(struct sbc_table *t, const char *field)
{
	int d = find_def(t->defs, t->ndefs, field);

	if (d < 0 || t->nrows == 0)
		abort();	/* a programming error: unknown field name */
	return &t->cells[(t->nrows - 1) * t->ndefs + (size_t)d];
}

void sbc_table_text(struct sbc_table *t, const char *field, const char *s)
{
	struct sbc_cell *c = cell(t, field);

	free(c->text);
	c->kind = s ? SBC_TEXT : SBC_NULL;
	c->text = s ? strdup(s) : NULL;
}

void sbc_table_num(struct sbc_table *t, const char *field, double v,
		   int decimals)
{
	struct sbc_cell *c = cell(t, field);
	char buf[64];

	free(c->text);
	if (!isfinite(v)) {
		c->kind = SBC_NULL;
		c->text = NULL;
		return;
	}
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	c->kind = SBC_NUM;
	c->num = strtod(buf, NULL);	/* JSON shows what the table shows */
	c->text = strdup(buf);
}

void sbc_table_int(struct sbc_table *t, const char *field, int64_t v)
{
	struct sbc_cell *c = cell(t, field);
	char buf[32];

	free(c->text);
	snprintf(buf, sizeof(buf), "%lld", (long long)v);
	c->kind = SBC_INT;
	c->num = (double)v;
	c->text = strdup(buf);
}

void sbc_json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', out);
	for (; p && *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", out); break;
		case '\\': fputs("\\\\", out); break;
		case '\n': fputs("\\n", out); break;
		case '\t': fputs("\\t", out); break;
		case '\r': fputs("\\r", out); break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

static const char *text_of(const struct sbc_cell *c)
{
	return c->text ? c->text : "";
}

/* Print @s in @w columns: padded, or cut with '+' as sacctmgr does. */
static void put_fixed(FILE *out, const char *s, int w, bool right)
{
	int len = (int)strlen(s);

	if (len > w) {
		fprintf(out, "%.*s+", w - 1, s);
		return;
	}
	if (right)
		fprintf(out, "%*s", w, s);
	else
		fprintf(out, "%-*s", w, s);
}

/* The table as JSON: {"KEY": [{"Field": value, ...}, ...]}, without its
 * closing brace. */
static void print_json_open(const struct sbc_table *t, FILE *out,
			    const char *json_key)
{
	size_t r, c;

	fputs("{", out);
	sbc_json_string(out, json_key);
	fputs(": [", out);
	for (r = 0; r < t->nrows; r++) {
		fputs(r ? ",\n  {" : "\n  {", out);
		for (c = 0; c < t->ncols; c++) {
			const struct sbc_cell *x =
				&t->cells[r * t->ndefs +
					  (size_t)t->col[c]];

			if (c)
				fputs(", ", out);
			sbc_json_string(out, t->defs[t->col[c]].name);
			fputs(": ", out);
			if (x->kind == SBC_NULL)
				fputs("null", out);
			else if (x->kind == SBC_TEXT)
				sbc_json_string(out, x->text);
			else
				fputs(x->text, out);
		}
		fputs("}", out);
	}
	fputs(t->nrows ? "\n]" : "]", out);
}

static void print_json(const struct sbc_table *t, FILE *out,
		       const char *json_key)
{
	print_json_open(t, out, json_key);
	fputs("}\n", out);
}

/* The table with '|' between fields (PARSABLE: and at the end of lines). */
static void print_parsable(const struct sbc_table *t, FILE *out,
			   enum sbc_style style, bool noheader)
{
	size_t r, c;
	const char *end = style == SBC_STYLE_PARSABLE ? "|" : "";

	if (!noheader) {
		for (c = 0; c < t->ncols; c++)
			fprintf(out, "%s%s", c ? "|" : "",
				t->defs[t->col[c]].name);
		fprintf(out, "%s\n", end);
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++)
			fprintf(out, "%s%s", c ? "|" : "",
				text_of(&t->cells[r * t->ndefs +
						  (size_t)t->col[c]]));
		fprintf(out, "%s\n", end);
	}
}

/* One "Field: value" line per cell, a blank line between rows. */
static void print_vertical(const struct sbc_table *t, FILE *out,
			   bool noheader)
{
	size_t r, c;

	int nw = 0;

	for (c = 0; c < t->ncols; c++) {
		int l = (int)strlen(t->defs[t->col[c]].name);

		nw = l > nw ? l : nw;
	}
	for (r = 0; r < t->nrows; r++) {
		if (r)
			fputc('\n', out);
		for (c = 0; c < t->ncols; c++) {
			const struct sbc_cell *x =
				&t->cells[r * t->ndefs +
					  (size_t)t->col[c]];

			if (x->kind == SBC_NULL)
				continue;	/* does not apply */
			if (noheader)
				fprintf(out, "%s\n", text_of(x));
			else
				fprintf(out, "%*s: %s\n", nw,
					t->defs[t->col[c]].name,
					text_of(x));
		}
	}
}

/* Fixed-width columns under a header and a dashed rule. */
static void print_fixed(const struct sbc_table *t, FILE *out, bool noheader)
{
	int w[SBC_MAX_FIELDS];
	size_t r, c;

	for (c = 0; c < t->ncols; c++) {
		w[c] = t->width[c];
		if (w[c] > 0)
			continue;
		w[c] = noheader ? 1 : (int)strlen(t->defs[t->col[c]].name);
		for (r = 0; r < t->nrows; r++) {
			int l = (int)strlen(text_of(&t->cells[r * t->ndefs +
							     (size_t)t->col[c]]));

			w[c] = l > w[c] ? l : w[c];
		}
	}
	if (!noheader) {
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(' ', out);
			put_fixed(out, t->defs[t->col[c]].name, w[c],
				  t->defs[t->col[c]].right);
		}
		fputc('\n', out);
		for (c = 0; c < t->ncols; c++) {
			int i;

			if (c)
				fputc(' ', out);
			for (i = 0; i < w[c]; i++)
				fputc('-', out);
		}
		fputc('\n', out);
	}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			if (c)
				fputc(' ', out);
			put_fixed(out, text_of(&t->cells[r * t->ndefs +
							 (size_t)t->col[c]]),
				  w[c], t->defs[t->col[c]].right);
		}
		fputc('\n', out);
	}
}

void sbc_table_print(const struct sbc_table *t, FILE *out, enum sbc_style style,
		     bool noheader, bool vertical, const char *json_key)
{
	if (style == SBC_STYLE_JSON)
		print_json(t, out, json_key);
	else if (style == SBC_STYLE_PARSABLE || style == SBC_STYLE_PARSABLE2)
		print_parsable(t, out, style, noheader);
	else if (vertical)
		print_vertical(t, out, noheader);
	else
		print_fixed(t, out, noheader);
}

/* The worst team's name: "account/user", or "account". */
static void worst_name(FILE *out, const struct sbc_all_teams *a)
{
	fputs(a->worst_account ? a->worst_account : "", out);
	if (a->worst_user && a->worst_user[0])
		fprintf(out, "/%s", a->worst_user);
}

/* One all-teams figure as a text line. */
static void all_text(FILE *out, const struct sbc_all_teams *a)
{
	const char *x = a->suffix ? a->suffix : "";

	if (a->missing[0]) {
		fprintf(out, "%s: not computed: %s\n", a->title, a->missing);
		return;
	}
	fprintf(out, "%s: DelivOwed%s %.3f, Capped%s %.3f of Owed%s %.3f "
		"GPU-hours, %u of %u teams owed", a->title, x, a->fig.ratio,
		x, a->fig.capped / 3600, x, a->fig.owed / 3600,
		a->fig.teams_owed, a->teams);
	if (a->fig.worst != SB_NONE) {
		fputs("; worst team ", out);
		worst_name(out, a);
		fprintf(out, " (id %u) %.3f", a->worst_id,
			a->fig.worst_ratio);
	}
	fputc('\n', out);
}

/* One all-teams figure as a JSON object (null when not computed); the
 * numbers as the table's cells: GPU-hours and ratios with 3 decimals,
 * *Raw in whole TRES-seconds. */
static void all_json(FILE *out, const struct sbc_all_teams *a)
{
	const char *x = a->suffix ? a->suffix : "";

	if (a->missing[0]) {
		fputs("null", out);
		return;
	}
	fprintf(out, "{\"Owed%s\": %.3f, \"Capped%s\": %.3f, "
		"\"DelivOwed%s\": %.3f, \"Owed%sRaw\": %lld, "
		"\"Capped%sRaw\": %lld, \"Teams\": %u, \"TeamsOwed\": %u, "
		"\"WorstAccount\": ", x, a->fig.owed / 3600, x,
		a->fig.capped / 3600, x, a->fig.ratio, x,
		(long long)llround(a->fig.owed), x,
		(long long)llround(a->fig.capped), a->teams,
		a->fig.teams_owed);
	if (a->fig.worst == SB_NONE) {
		fprintf(out, "null, \"WorstUser\": null, \"WorstAssocId\": "
			"null, \"WorstDelivOwed%s\": null}", x);
		return;
	}
	sbc_json_string(out, a->worst_account ? a->worst_account : "");
	fputs(", \"WorstUser\": ", out);
	sbc_json_string(out, a->worst_user ? a->worst_user : "");
	fprintf(out, ", \"WorstAssocId\": %u, \"WorstDelivOwed%s\": %.3f}",
		a->worst_id, x, a->fig.worst_ratio);
}

void sbc_table_print_all(const struct sbc_table *t, FILE *out,
			 enum sbc_style style, bool noheader,
			 const char *json_key, const struct sbc_all_teams *all,
			 size_t n)
{
	size_t k;

	if (style != SBC_STYLE_JSON) {
		sbc_table_print(t, out, style, noheader, false, json_key);
		if (style != SBC_STYLE_TABLE || noheader)
			return;
		for (k = 0; k < n; k++)
			all_text(out, &all[k]);
		return;
	}
	print_json_open(t, out, json_key);
	for (k = 0; k < n; k++) {
		fputs(",\n", out);
		sbc_json_string(out, all[k].json_key);
		fputs(": ", out);
		all_json(out, &all[k]);
	}
	fputs("}\n", out);
}

void sbc_table_free(struct sbc_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ndefs; i++)
		free(t->cells[i].text);
	free(t->cells);
	t->cells = NULL;
	t->nrows = t->caprows = 0;
}

void sbc_prom_label(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '"')
			fputs("\\\"", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else
			fputc(*s, out);
	}
}

/* ------------------------------------------------------------------ SVG */

/* The plot's layout: a header (title, what the axes are, the line styles)
 * above a grid of one panel per budget (src/draw/draw.h), as many columns
 * as fit, the image as tall as the rows need. */
#define PLOT_W 1200.0
#define PLOT_MARGIN 20.0
#define PLOT_GAP 18.0	/* between panels */
#define PLOT_HEAD 74.0	/* title, axes line, style legend */
#define PLOT_PANEL_H 160.0

#define PLOT_GROUP_HEAD 24.0	/* "Under X" above a group */

/*
 * The panels' order when budgets have parents, as the budget page groups
 * them: the top level (parent -1) first, then each panel's children after
 * it, depth first over the groups.  @order gets the series' indices,
 * @head[k] the parent whose group panel k starts (-2: none starts).
 */
static void plot_group(const struct sbc_plot_series *s, size_t n, long g,
		       size_t *order, long *head, size_t *k)
{
	size_t i, first = *k;

	for (i = 0; i < n; i++) {
		long p = s[i].parent;

		if (p >= (long)i || p < -1)
			p = -1;	/* not a parent before it: top level */
		if (p != g)
			continue;
		head[*k] = *k == first ? g : -2;
		order[(*k)++] = i;
	}
	for (i = first; i < *k && i < n; i++)
		plot_group(s, n, (long)order[i], order, head, k);
}

/* The style legend: what the fill and the dotted line are. */
static void plot_legend(FILE *out, double y)
{
	static const struct sbd_style_item items[] = {
		{ SBD_STYLE_FILL, "#3a7bd5",
		  "delivered (allocated jobs), in the budget's colour" },
		{ SBD_STYLE_DOTTED, "#666", "quota (a full step's, from today's "
		  "shares; a note when far above use)" },
	};
	const struct sbd_legend lg = {
		.x0 = PLOT_MARGIN, .width = PLOT_W - 2 * PLOT_MARGIN,
		.font_px = 12, .swatch = 22, .gap = 24, .row_h = 16 };

	sbd_style_legend(out, &lg, y, items, 2);
}

/*
 * @ps's quota per step into @quota (@nsteps entries; a short last step has
 * its share of a full step's quota) and the panel's subtitle, delivered
 * against quota, into @buf.
 */
static void panel_quota(const struct sbc_plot_series *ps, int64_t from,
			int64_t to, int64_t step, size_t nsteps, double *quota,
			char *buf, size_t len)
{
	double deliv = 0, q = 0;
	size_t k;

	for (k = 0; k < nsteps; k++) {
		int64_t a = from + (int64_t)k * step;
		int64_t b = a + step < to ? a + step : to;

		quota[k] = ps->quota * (double)(b - a) / (double)step;
		deliv += ps->values[k];
		q += quota[k];
	}
	if (q > 0)
		snprintf(buf, len, "delivered %.1f of quota %.1f GPU-h (%.0f%%)",
			 deliv, q, 100 * deliv / q);
	else
		snprintf(buf, len, "delivered %.1f GPU-h, no quota", deliv);
}

/* The plot's title, its span and step (UTC), under it. */
static void plot_header(FILE *out, const char *title, int64_t from,
			int64_t to, int64_t step)
{
	char buf[512], t0[32], t1[32];

	sbd_fit(title, 15, PLOT_W - 2 * PLOT_MARGIN, buf, sizeof(buf));
	fprintf(out, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">",
		PLOT_MARGIN);
	sbd_xml(out, buf);
	fputs("</text>\n", out);
	sbd_utc(from, t0, sizeof(t0));
	sbd_utc(to, t1, sizeof(t1));
	snprintf(buf, sizeof(buf), "%s to %s (UTC), GPU-hours per step of "
		 "%lld %s; each budget on its own scale", t0, t1,
		 (long long)(step % 86400 == 0 ? step / 86400 :
			     step % 3600 == 0 ? step / 3600 :
			     step % 60 == 0 ? step / 60 : step),
		 step % 86400 == 0 ? "d" : step % 3600 == 0 ? "h" :
		 step % 60 == 0 ? "min" : "s");
	fprintf(out, "<text x=\"%.0f\" y=\"44\" fill=\"#444\">",
		PLOT_MARGIN);
	sbd_xml(out, buf);
	fputs("</text>\n", out);
}

int sbc_svg_plot(FILE *out, const char *title, int64_t from, int64_t to,
		 int64_t step, size_t nsteps, const struct sbc_plot_series *s,
		 size_t n)
{
	size_t cols = sbd_grid_columns(n), i, j, k;
	double pw = (PLOT_W - 2 * PLOT_MARGIN - (double)(cols - 1) * PLOT_GAP) /
		    (double)cols, bottom;
	char (*colours)[8] = NULL, buf[512], line[512];
	long *parent = NULL, *head = NULL;
	size_t *order = NULL;
	double *quota = NULL, *px = NULL, *py = NULL;
	bool *group = NULL, grouped = false;
	int rc = -1;

	if (!out || step <= 0 || nsteps == 0 || to <= from || (n && !s))
		return -1;
	colours = calloc(n ? n : 1, sizeof(*colours));
	parent = calloc(n ? n : 1, sizeof(*parent));
	head = calloc(n ? n : 1, sizeof(*head));
	order = calloc(n ? n : 1, sizeof(*order));
	group = calloc(n ? n : 1, sizeof(*group));
	px = calloc(n ? n : 1, sizeof(*px));
	py = calloc(n ? n : 1, sizeof(*py));
	quota = calloc(nsteps, sizeof(*quota));
	if (!colours || !parent || !head || !order || !group || !px || !py ||
	    !quota)
		goto out;
	for (i = 0; i < n; i++) {
		parent[i] = s[i].parent;
		if (parent[i] >= 0 && parent[i] < (long)i)
			grouped = true;
	}
	if (sbd_assign_colours(n, parent, colours))
		goto out;
	k = 0;
	if (grouped)
		plot_group(s, n, -1, order, head, &k);
	for (i = 0; i < n; i++) {
		if (!grouped) {
			order[i] = i;
			head[i] = -2;
		}
		group[i] = head[i] != -2;
	}
	bottom = sbd_grid_layout(&(struct sbd_grid){
		.x0 = PLOT_MARGIN, .top = PLOT_HEAD, .panel_w = pw,
		.panel_h = PLOT_PANEL_H, .gap = PLOT_GAP,
		.head_h = PLOT_GROUP_HEAD, .cols = cols }, group, n, px, py);
	sbd_svg_open(out, PLOT_W, (n ? bottom : PLOT_HEAD + 24) + PLOT_MARGIN,
		     12);
	plot_header(out, title, from, to, step);
	plot_legend(out, 64);
	if (!n)
		fprintf(out, "<text x=\"%.0f\" y=\"%.0f\">No budget.</text>\n",
			PLOT_MARGIN, PLOT_HEAD + 16);
	for (j = 0; j < n; j++) {
		i = order[j];
		if (head[j] != -2) {
			snprintf(buf, sizeof(buf), "%s%s", head[j] < 0 ?
				 "Top level" : "Under ", head[j] < 0 ? "" :
				 s[head[j]].name);
			fprintf(out, "<text x=\"%.0f\" y=\"%.1f\" "
				"font-size=\"13\" fill=\"#333\">", PLOT_MARGIN,
				py[j] - 8);
			sbd_fit(buf, 13, PLOT_W - 2 * PLOT_MARGIN, line,
				sizeof(line));
			sbd_xml(out, line);
			fputs("</text>\n", out);
		}
		panel_quota(&s[i], from, to, step, nsteps, quota, buf,
			    sizeof(buf));
		if (sbd_panel_svg(out, &(struct sbd_panel){
			.x = px[j], .y = py[j], .w = pw, .h = PLOT_PANEL_H,
			.title = s[i].name, .subtitle = buf,
			.colour = colours[i], .clock = SBD_UTC, .from = from,
			.to = to, .step = step, .nsteps = nsteps,
			.fill = s[i].values, .dotted = quota,
			.unit = "GPU-h per step" }))
			goto out;
	}
	rc = sbd_svg_close(out);
out:
	free(colours);
	free(parent);
	free(head);
	free(order);
	free(group);
	free(px);
	free(py);
	free(quota);
	return rc;
}
