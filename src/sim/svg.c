/*
 * svg.c - pictures: a per-GPU chart of who ran where (one row per GPU)
 * and each team's allocated use against its quota.  Plain SVG 1.1,
 * deterministic output.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "sim.h"

#define W 1200.0
#define LEFT 70.0
#define TOP 30.0

/* A team's hue (golden angle) and a job's lightness inside the family. */
static void colour(uint32_t team, uint32_t job, char *buf, size_t len)
{
	double hue = fmod(team * 137.508, 360.0);
	uint32_t h = job * 2654435761u;
	int light = 35 + (int)((h >> 24) % 30);

	snprintf(buf, len, "hsl(%.0f,65%%,%d%%)", hue, light);
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

int sim_svg_gpus(FILE *f, const struct sim_result *r,
		 const uint32_t *job_team, const char *const *team_names,
		 uint32_t nteams, uint32_t nodes, uint32_t gpn, int64_t from,
		 int64_t to)
{
	uint32_t rows = nodes * gpn, k;
	double rh = rows > 600 ? 1.0 : 600.0 / rows;
	double hgt = rows * rh, span = (double)(to > from ? to - from : 1);
	double xs = (W - LEFT - 10) / span;
	double legend_y = TOP + hgt + 30;
	size_t i;

	if (rh > 12)
		rh = 12, hgt = rows * rh, legend_y = TOP + hgt + 30;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		W, legend_y + 20.0 * ((nteams + 5) / 6) + 20);
	fprintf(f, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"white\" "
		"stroke-width=\"2\" stroke-opacity=\"0.7\"/></pattern></defs>\n");
	fprintf(f, "<text x=\"%.0f\" y=\"18\">GPUs over time, %" PRId64
		" .. %" PRId64 " s: one row per GPU, colour = team, hatched = "
		"preemptible, red border = preempted</text>\n", LEFT, from, to);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#f4f4f4\" stroke=\"#888\"/>\n", LEFT, TOP,
		W - LEFT - 10, hgt);
	for (k = 0; k < nodes; k += (nodes + 15) / 16)
		fprintf(f, "<text x=\"4\" y=\"%.1f\">node %u</text>\n",
			TOP + k * gpn * rh + 10, k);
	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *s = &r->segs[i];
		int64_t a = s->start > from ? s->start : from;
		int64_t b = s->end < to ? s->end : to;
		char col[48];
		uint32_t n;

		if (b <= a)
			continue;
		colour(job_team[s->job] < nteams ? job_team[s->job] : 0, s->job,
		       col, sizeof(col));
		for (n = 0; n < s->nnodes; n++) {
			uint32_t node = r->nodes[s->node_off + n], g = 0;

			while (g < gpn) {
				uint32_t e;

				if (!(s->mask >> g & 1)) {
					g++;
					continue;
				}
				for (e = g; e < gpn && (s->mask >> e & 1); e++)
					;
				{
					double x = LEFT + (double)(a - from) * xs;
					double y = TOP + (node * gpn + g) * rh;
					double wd = (double)(b - a) * xs;
					double ht = (e - g) * rh;

					fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" "
						"width=\"%.2f\" height=\"%.2f\" "
						"fill=\"%s\"%s/>\n", x, y, wd,
						ht, col, s->preempted ?
						" stroke=\"red\" stroke-width="
						"\"2\"" : "");
					if (s->preemptible)
						fprintf(f, "<rect x=\"%.2f\" "
							"y=\"%.2f\" width=\"%.2f\""
							" height=\"%.2f\" fill="
							"\"url(#hatch)\"/>\n", x,
							y, wd, ht);
				}
				g = e;
			}
		}
	}
	for (k = 0; k < nteams; k++) {
		char col[48];
		double x = LEFT + (k % 6) * 185.0;
		double y = legend_y + 20.0 * (k / 6);

		colour(k, 0, col, sizeof(col));
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"12\" "
			"height=\"12\" fill=\"%s\"/><text x=\"%.0f\" y=\"%.0f\">",
			x, y - 10, col, x + 16, y);
		xml_text(f, team_names[k]);
		fputs("</text>\n", f);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

/* Seconds of hour @h inside the report's window (the last may be short). */
static double hour_len(const struct sim_report *rep, uint32_t h)
{
	int64_t hs = rep->t0 + (int64_t)h * 3600, he = hs + 3600;

	return (double)((he < rep->t1 ? he : rep->t1) - hs);
}

int sim_svg_teams(FILE *f, const struct sim_report *rep)
{
	const double ph = 90, gap = 30;
	uint32_t k, h, nh = rep->nhours;
	double xs = (W - LEFT - 10) / (nh ? nh : 1);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
		"height=\"%.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
		W, TOP + rep->nteams * (ph + gap) + 10);
	fprintf(f, "<text x=\"%.0f\" y=\"18\">GPUs per hour by team: "
		"delivered, allocated runs (filled), quota (grey line), owed = "
		"min(quota, allocated demand) (dashed)</text>\n", LEFT);
	for (k = 0; k < rep->nteams; k++) {
		const double *d = rep->hourly_delivered + (size_t)k * nh;
		const double *q = rep->hourly_quota + (size_t)k * nh;
		const double *o = rep->hourly_owed + (size_t)k * nh;
		double y0 = TOP + k * (ph + gap) + gap, ymax = 1e-9;
		char col[48];

		for (h = 0; h < nh; h++) {
			if (d[h] / hour_len(rep, h) > ymax)
				ymax = d[h] / hour_len(rep, h);
			if (q[h] / hour_len(rep, h) > ymax)
				ymax = q[h] / hour_len(rep, h);
		}
		colour(k, 0, col, sizeof(col));
		fprintf(f, "<text x=\"%.0f\" y=\"%.1f\">", LEFT, y0 - 4);
		xml_text(f, rep->teams[k].name);
		fprintf(f, " (share %.2f%%, delivered/owed %.1f%%, peak %.0f "
			"GPUs)</text>\n", 100 * rep->teams[k].entitled,
			100 * rep->teams[k].ratio, ymax);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" "
			"height=\"%.0f\" fill=\"none\" stroke=\"#bbb\"/>\n",
			LEFT, y0, W - LEFT - 10, ph);
		fprintf(f, "<polygon fill=\"%s\" fill-opacity=\"0.6\" points=\""
			"%.1f,%.1f", col, LEFT, y0 + ph);
		for (h = 0; h < nh; h++)
			fprintf(f, " %.1f,%.1f %.1f,%.1f", LEFT + h * xs,
				y0 + ph - ph * d[h] / hour_len(rep, h) / ymax,
				LEFT + (h + 1) * xs,
				y0 + ph - ph * d[h] / hour_len(rep, h) / ymax);
		fprintf(f, " %.1f,%.1f\"/>\n", LEFT + nh * xs, y0 + ph);
		fputs("<polyline fill=\"none\" stroke=\"#666\" points=\"", f);
		for (h = 0; h < nh; h++)
			fprintf(f, "%s%.1f,%.1f", h ? " " : "", LEFT + h * xs,
				y0 + ph - ph * q[h] / hour_len(rep, h) / ymax);
		fputs("\"/>\n<polyline fill=\"none\" stroke=\"black\" "
		      "stroke-dasharray=\"3,2\" points=\"", f);
		for (h = 0; h < nh; h++)
			fprintf(f, "%s%.1f,%.1f", h ? " " : "", LEFT + h * xs,
				y0 + ph - ph * o[h] / hour_len(rep, h) / ymax);
		fputs("\"/>\n", f);
	}
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
