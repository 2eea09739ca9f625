/*
 * output.c - sbudget's tables (aligned, parsable, JSON), Prometheus label
 * escaping and the SVG plot (no Slurm).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

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

void sbc_table_print(const struct sbc_table *t, FILE *out, enum sbc_style style,
		     bool noheader, bool vertical, const char *json_key)
{
	int w[SBC_MAX_FIELDS];
	size_t r, c;

	if (style == SBC_STYLE_JSON) {
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
		fputs(t->nrows ? "\n]}\n" : "]}\n", out);
		return;
	}
	if (style == SBC_STYLE_PARSABLE || style == SBC_STYLE_PARSABLE2) {
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
		return;
	}
	if (vertical) {
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
		return;
	}
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

static void svg_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '&': fputs("&amp;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc(*s, out);
		}
	}
}

double sbc_nice_max(double v)
{
	double p, m;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	m = v / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

int sbc_svg_plot(FILE *out, const char *title, int64_t from, int64_t step,
		 size_t nsteps, const struct sbc_plot_series *s, size_t n)
{
	static const char *const colours[] = {
		"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
		"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
	};
	const double W = 900, H = 480, L = 70, R = 200, T = 40, B = 50;
	double pw = W - L - R, ph = H - T - B, ymax = 0;
	size_t i, k;

	if (!out || step <= 0 || nsteps == 0 || (n && !s))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i].quota > ymax)
			ymax = s[i].quota;
		for (k = 0; k < nsteps; k++)
			if (s[i].values[k] > ymax)
				ymax = s[i].values[k];
	}
	ymax = sbc_nice_max(ymax * 1.05);
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H, W, H);
	fprintf(out, "<text x=\"%.0f\" y=\"24\" font-size=\"15\">", L);
	svg_text(out, title);
	fputs("</text>\n", out);
	/* axes and grid: 5 horizontal lines */
	for (k = 0; k <= 5; k++) {
		double y = T + ph - ph * (double)k / 5;

		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"#ddd\"/>\n", L, y, L + pw, y);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">"
			"%.4g</text>\n", L - 6, y + 4, ymax * (double)k / 5);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"black\"/>\n", L, T + ph, L + pw, T + ph);
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		"stroke=\"black\"/>\n", L, T, L, T + ph);
	fprintf(out, "<text x=\"16\" y=\"%.1f\" transform=\"rotate(-90 16 "
		"%.1f)\" text-anchor=\"middle\">GPU-hours per step (%lld s)"
		"</text>\n", T + ph / 2, T + ph / 2, (long long)step);
	/* x labels: start, middle, end as hours from the start */
	for (k = 0; k <= 4; k++) {
		double x = L + pw * (double)k / 4;
		double hours = (double)nsteps * (double)step * (double)k / 4 /
			       3600;

		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
			">+%.3gh</text>\n", x, T + ph + 18, hours);
	}
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">"
		"hours since %lld (Unix time)</text>\n", L + pw / 2,
		T + ph + 38, (long long)from);
	for (i = 0; i < n; i++) {
		const char *col = colours[i % (sizeof(colours) /
					       sizeof(colours[0]))];
		double yq = T + ph - ph * s[i].quota / ymax;
		double ly = T + 10 + (double)i * 36;

		fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"2\" points=\"", col);
		for (k = 0; k < nsteps; k++) {
			double x0 = L + pw * (double)k / (double)nsteps;
			double x1 = L + pw * (double)(k + 1) / (double)nsteps;
			double y = T + ph - ph * s[i].values[k] / ymax;

			fprintf(out, "%.1f,%.1f %.1f,%.1f ", x0, y, x1, y);
		}
		fputs("\"/>\n", out);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\"/>\n",
			L, yq, L + pw, yq, col);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>\n",
			L + pw + 12, ly, L + pw + 36, ly, col);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", L + pw + 42,
			ly + 4);
		svg_text(out, s[i].name);
		fputs(" used</text>\n", out);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" stroke=\"%s\" stroke-dasharray=\"6 4\"/>\n",
			L + pw + 12, ly + 16, L + pw + 36, ly + 16, col);
		fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">", L + pw + 42,
			ly + 20);
		svg_text(out, s[i].name);
		fputs(" quota</text>\n", out);
	}
	fputs("</svg>\n", out);
	return ferror(out) ? -1 : 0;
}
