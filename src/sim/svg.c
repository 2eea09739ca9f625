/*
 * svg.c - pictures: a per-GPU chart of who ran where (one row per GPU)
 * and each team's allocated use against its quota and owed, one small
 * multiple per team.  Plain SVG 1.1, deterministic output.  The palette,
 * scales, time axes, legends and panels are src/draw/draw.h's, shared
 * with sbudget's report plot and budget page.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define W 1200.0
#define MARGIN 20.0
#define FONT 12.0

/* --------------------------------------------------------- the clock */

void sim_svg_axis(struct sim_axis *ax, int64_t t0, int64_t from,
		  double time_scale, const char *whose)
{
	char f[64] = "";

	memset(ax, 0, sizeof(*ax));
	if (from)
		snprintf(f, sizeof(f), " from --from %" PRId64, from);
	if (time_scale != 1.0) {
		/* compressed: the trace's clock is gone; the simulation's */
		ax->clock = SBD_TRACE;
		snprintf(ax->note, sizeof(ax->note), "Time: simulated, day 0 = "
			 "the start of the %s slice%s, times x %g", whose, f,
			 time_scale);
		return;
	}
	ax->offset = from;
	ax->clock = sbd_clock_of(t0 + from);
	if (ax->clock == SBD_UTC)
		snprintf(ax->note, sizeof(ax->note), "Time: UTC (the %s times "
			 "are Unix seconds)", whose);
	else
		snprintf(ax->note, sizeof(ax->note), "Time: the %s own clock, "
			 "day 0 = time 0 (not dates: the times are seconds from "
			 "the start)", whose);
}

/* ---------------------------------------------------- the per-GPU chart */

/* A team's place among the teams of the chart's range: by GPU-seconds in
 * the range, most first; the first SBD_PALETTE_SIZE get a colour each. */
struct team_use {
	uint32_t team;
	double gpu_s;
};

static int by_use(const void *a, const void *b)
{
	const struct team_use *x = a, *y = b;

	if (x->gpu_s != y->gpu_s)
		return x->gpu_s > y->gpu_s ? -1 : 1;
	return x->team < y->team ? -1 : x->team > y->team;
}

#define OTHER_COLOUR "#a8a8a8"

/* sim_svg_gpus() (sim.h).  Long (over 100 lines): one picture drawn top to
 * bottom (the teams' colours and legend, the frame and axis, a row per
 * GPU, the segments), each part reading the layout the one before
 * computed; split, the parts would pass a dozen geometry values along. */
int sim_svg_gpus(FILE *f, const struct sim_result *r,
		 const uint32_t *job_team, const char *const *team_names,
		 uint32_t nteams, uint32_t nodes, uint32_t gpn, int64_t from,
		 int64_t to, const struct sim_axis *ax)
{
	const double left = 70, top = 66;
	struct team_use *use = calloc(nteams + 1, sizeof(*use));
	char (*colour)[8] = calloc(nteams + 1, sizeof(*colour));
	const char **labels = calloc(SBD_PALETTE_SIZE + 1, sizeof(*labels));
	char (*lab)[96] = calloc(SBD_PALETTE_SIZE + 1, sizeof(*lab));
	double lx[SBD_PALETTE_SIZE + 1];
	size_t lrow[SBD_PALETTE_SIZE + 1], nlab = 0, nrows, i;
	uint32_t rows = nodes * gpn, k, shown = 0, others = 0;
	double rh = rows > 600 ? 1.0 : 600.0 / rows, hgt, xs, legend_y;
	double span = (double)(to > from ? to - from : 1);
	struct sbd_legend lg = { .x0 = left, .width = W - left - MARGIN,
				 .font_px = FONT, .swatch = 12, .gap = 18,
				 .row_h = 18 };
	char t0[40], t1[40], buf[512], line[512];
	int rc = -1;

	if (!use || !colour || !labels || !lab)
		goto out;
	if (rh > 12)
		rh = 12;
	hgt = rows * rh;
	xs = (W - left - MARGIN) / span;
	/* the teams' GPU-seconds in the range */
	for (k = 0; k <= nteams; k++)
		use[k].team = k;
	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *s = &r->segs[i];
		int64_t a = s->start > from ? s->start : from;
		int64_t b = s->end < to ? s->end : to;
		uint32_t t = job_team[s->job] < nteams ? job_team[s->job] :
			     nteams;

		if (b > a)
			use[t].gpu_s += (double)s->gpus * (double)(b - a);
	}
	qsort(use, nteams + 1, sizeof(*use), by_use);
	for (k = 0; k <= nteams; k++) {
		uint32_t t = use[k].team;

		if (use[k].gpu_s <= 0 || t == nteams) {
			snprintf(colour[t], 8, OTHER_COLOUR);
			if (use[k].gpu_s > 0)
				others++;	/* jobs outside the tree */
			continue;
		}
		if (shown < SBD_PALETTE_SIZE) {
			sbd_colour(shown, colour[t]);
			if (use[k].gpu_s < 3600)
				snprintf(buf, sizeof(buf), "%s (<1 GPU-h)",
					 team_names[t]);
			else
				snprintf(buf, sizeof(buf), "%s (%.0f GPU-h)",
					 team_names[t], use[k].gpu_s / 3600);
			sbd_fit(buf, FONT, lg.width - lg.swatch - 4,
				lab[nlab], sizeof(lab[nlab]));
			labels[nlab] = lab[nlab];
			nlab++;
			shown++;
		} else {
			snprintf(colour[t], 8, OTHER_COLOUR);
			others++;
		}
	}
	if (others) {
		snprintf(lab[nlab], sizeof(lab[nlab]), "%u other team%s",
			 others, others == 1 ? "" : "s");
		labels[nlab] = lab[nlab];
		nlab++;
	}
	legend_y = top + hgt + 2 * FONT + 24;
	nrows = sbd_legend_layout(&lg, labels, nlab, lx, lrow);
	sbd_svg_open(f, W, legend_y + (double)nrows * lg.row_h + MARGIN, 11);
	fprintf(f, "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" "
		"patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
		"<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"white\" "
		"stroke-width=\"2\" stroke-opacity=\"0.7\"/></pattern></defs>\n");
	sbd_time(ax->clock, from + ax->offset, t0, sizeof(t0));
	sbd_time(ax->clock, to + ax->offset, t1, sizeof(t1));
	snprintf(buf, sizeof(buf), "GPUs from %s to %s: one row per GPU, "
		 "colour = team, hatched = preemptible, black border = preempted",
		 t0, t1);
	fprintf(f, "<text x=\"%.0f\" y=\"20\" font-size=\"13\">", left);
	sbd_xml(f, buf);
	fputs("</text>\n", f);
	sbd_fit(ax->note, 11, W - left - MARGIN, line, sizeof(line));
	fprintf(f, "<text x=\"%.0f\" y=\"38\" fill=\"#444\">", left);
	sbd_xml(f, line);
	fputs("</text>\n", f);
	snprintf(buf, sizeof(buf), "Colours: the %u team%s with the most GPU "
		 "time here, in the legend below%s.", shown, shown == 1 ? "" :
		 "s", others ? "; the others grey" : "");
	fprintf(f, "<text x=\"%.0f\" y=\"54\" fill=\"#444\">", left);
	sbd_xml(f, buf);
	fputs("</text>\n", f);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.1f\" height=\"%.1f\" "
		"fill=\"#f4f4f4\" stroke=\"#888\"/>\n", left, top,
		W - left - MARGIN, hgt);
	sbd_time_axis(f, &(struct sbd_axis){
		.clock = ax->clock, .from = from + ax->offset,
		.to = to + ax->offset, .x0 = left, .x1 = W - MARGIN,
		.y = top + hgt, .grid_top = top, .left = 0, .right = W,
		.font_px = 11, .maxn = 12 });
	for (k = 0; k < nodes; k += (nodes + 15) / 16)
		fprintf(f, "<text x=\"4\" y=\"%.1f\">node %u</text>\n",
			top + k * gpn * rh + 10, k);
	for (i = 0; i < r->nsegs; i++) {
		const struct sim_seg *s = &r->segs[i];
		int64_t a = s->start > from ? s->start : from;
		int64_t b = s->end < to ? s->end : to;
		uint32_t team = job_team[s->job] < nteams ? job_team[s->job] :
				nteams;
		uint32_t n;

		if (b <= a)
			continue;
		for (n = 0; n < s->nnodes; n++) {
			uint32_t node = r->nodes[s->node_off + n], g = 0;

			while (g < gpn) {
				uint32_t e;
				double x, y, wd, ht;

				if (!(s->mask >> g & 1)) {
					g++;
					continue;
				}
				for (e = g; e < gpn && (s->mask >> e & 1); e++)
					;
				x = left + (double)(a - from) * xs;
				y = top + (node * gpn + g) * rh;
				wd = (double)(b - a) * xs;
				ht = (e - g) * rh;
				fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width="
					"\"%.2f\" height=\"%.2f\" fill=\"%s\"%s>"
					"<title>", x, y, wd, ht, colour[team],
					s->preempted ? " stroke=\"black\" "
					"stroke-width=\"1.5\"" : "");
				sbd_xml(f, team < nteams ? team_names[team] :
					"(no team)");
				fputs("</title></rect>\n", f);
				if (s->preemptible)
					fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" "
						"width=\"%.2f\" height=\"%.2f\" "
						"fill=\"url(#hatch)\"/>\n", x,
						y, wd, ht);
				g = e;
			}
		}
	}
	/* the legend: the coloured teams, most GPU time first, wrapped */
	for (i = 0; i < nlab; i++) {
		double y = legend_y + (double)lrow[i] * lg.row_h;
		const char *col = OTHER_COLOUR;

		if (i < shown)
			sbd_colour(i, buf), col = buf;
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height="
			"\"12\" fill=\"%s\"/><text x=\"%.1f\" y=\"%.1f\" "
			"font-size=\"%.0f\">", lx[i], y - 10, col, lx[i] + 16, y,
			FONT);
		sbd_xml(f, labels[i]);
		fputs("</text>\n", f);
	}
	rc = sbd_svg_close(f);
out:
	free(use);
	free(colour);
	free(labels);
	free(lab);
	return rc;
}

/* ----------------------------------------------- the per-team panels */

#define PANEL_H 160.0
#define PANEL_GAP 18.0
#define GROUP_HEAD 24.0
#define TEAMS_HEAD 74.0

/* Seconds of hour @h inside the report's window (the last may be short). */
static double hour_len(const struct sim_report *rep, uint32_t h)
{
	int64_t hs = rep->t0 + (int64_t)h * 3600, he = hs + 3600;

	return (double)((he < rep->t1 ? he : rep->t1) - hs);
}

/* The tree index of team @k's parent, SB_NONE at the top or without a
 * tree. */
static uint32_t team_parent(const struct sim_report *rep, uint32_t k)
{
	if (!rep->tree || !rep->tree->tree)
		return SB_NONE;
	return sb_tree_node(rep->tree->tree, rep->teams[k].node)->parent;
}

/* Whether team @k starts a group (its parent is not the previous
 * team's), in a picture that groups (some team has a parent). */
static bool starts_group(const struct sim_report *rep, uint32_t k,
			 bool grouped)
{
	return grouped && (k == 0 || team_parent(rep, k) !=
			   team_parent(rep, k - 1));
}

/* The style legend: what the fill and the two lines are. */
static void teams_legend(FILE *f, double y)
{
	static const struct sbd_style_item items[] = {
		{ SBD_STYLE_FILL, "#3a7bd5",
		  "delivered (allocated runs), in the team's colour" },
		{ SBD_STYLE_DASHED, "#222",
		  "owed = min(quota, allocated demand)" },
		{ SBD_STYLE_DOTTED, "#666",
		  "quota (share x GPUs; a note when far above use)" },
	};
	const struct sbd_legend lg = {
		.x0 = MARGIN, .width = W - 2 * MARGIN, .font_px = FONT,
		.swatch = 22, .gap = 24, .row_h = 16 };

	sbd_style_legend(f, &lg, y, items, 3);
}

int sim_svg_teams(FILE *f, const struct sim_report *rep,
		  const struct sim_axis *ax)
{
	uint32_t k, h, nh = rep->nhours;
	size_t cols = sbd_grid_columns(rep->nteams);
	double pw = (W - 2 * MARGIN - (double)(cols - 1) * PANEL_GAP) /
		    (double)cols;
	double *px = calloc(rep->nteams + 1, sizeof(*px));
	double *py = calloc(rep->nteams + 1, sizeof(*py));
	double *v = calloc(3 * (size_t)(nh ? nh : 1), sizeof(*v));
	char (*colours)[8] = calloc(rep->nteams + 1, sizeof(*colours));
	bool *group = calloc(rep->nteams + 1, sizeof(*group));
	const struct sbd_grid grid = {
		.x0 = MARGIN, .top = TEAMS_HEAD, .panel_w = pw,
		.panel_h = PANEL_H, .gap = PANEL_GAP, .head_h = GROUP_HEAD,
		.cols = cols };
	char t0[40], t1[40], buf[512];
	bool grouped = false;
	double bottom;
	int rc = -1;

	if (!px || !py || !v || !colours || !group ||
	    sbd_assign_colours(rep->nteams, NULL, colours))
		goto out;
	for (k = 0; k < rep->nteams; k++)
		if (team_parent(rep, k) != SB_NONE)
			grouped = true;
	for (k = 0; k < rep->nteams; k++)
		group[k] = starts_group(rep, k, grouped);
	bottom = sbd_grid_layout(&grid, group, rep->nteams, px, py);
	sbd_svg_open(f, W, (rep->nteams ? bottom : TEAMS_HEAD + 24) + MARGIN,
		     FONT);
	sbd_time(ax->clock, rep->t0 + ax->offset, t0, sizeof(t0));
	sbd_time(ax->clock, rep->t1 + ax->offset, t1, sizeof(t1));
	snprintf(buf, sizeof(buf), "GPUs per hour by team, %s to %s; each "
		 "team on its own scale", t0, t1);
	fprintf(f, "<text x=\"%.0f\" y=\"22\" font-size=\"15\">", MARGIN);
	sbd_xml(f, buf);
	fputs("</text>\n", f);
	sbd_fit(ax->note, FONT, W - 2 * MARGIN, buf, sizeof(buf));
	fprintf(f, "<text x=\"%.0f\" y=\"42\" fill=\"#444\">", MARGIN);
	sbd_xml(f, buf);
	fputs("</text>\n", f);
	teams_legend(f, 62);
	if (!rep->nteams || !nh)
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">No team ran in the "
			"window.</text>\n", MARGIN, TEAMS_HEAD + 16);
	for (k = 0; k < rep->nteams && nh; k++) {
		const struct sim_team_report *tm = &rep->teams[k];
		const double *d = rep->hourly_delivered + (size_t)k * nh;
		const double *q = rep->hourly_quota + (size_t)k * nh;
		const double *o = rep->hourly_owed + (size_t)k * nh;
		double peak = 0;
		char sub[256], sub2[256];

		if (starts_group(rep, k, grouped)) {
			uint32_t p = team_parent(rep, k);

			snprintf(buf, sizeof(buf), "%s%s", p == SB_NONE ?
				 "Top level" : "Under ", p == SB_NONE ? "" :
				 rep->tree->path[p]);
			fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" font-size=\"13\" "
				"fill=\"#333\">", MARGIN, py[k] - 8);
			sbd_xml(f, buf);
			fputs("</text>\n", f);
		}
		for (h = 0; h < nh; h++) {
			v[h] = d[h] / hour_len(rep, h);
			v[nh + h] = o[h] / hour_len(rep, h);
			v[2 * nh + h] = q[h] / hour_len(rep, h);
			if (v[h] > peak)
				peak = v[h];
		}
		snprintf(sub, sizeof(sub), "share %.2f%%, delivered/owed %.1f%%",
			 100 * tm->entitled, 100 * tm->ratio);
		snprintf(sub2, sizeof(sub2), "owed %.0f, delivered %.0f GPU-h; "
			 "peak %.0f GPUs", tm->fig.owed / 3600,
			 tm->fig.delivered / 3600, peak);
		if (sbd_panel_svg(f, &(struct sbd_panel){
			.x = px[k], .y = py[k], .w = pw, .h = PANEL_H,
			.title = tm->name, .subtitle = sub, .subtitle2 = sub2,
			.colour = colours[k], .clock = ax->clock,
			.from = rep->t0 + ax->offset,
			.to = rep->t1 + ax->offset, .step = 3600,
			.nsteps = nh, .fill = v, .dashed = v + nh,
			.dotted = v + 2 * nh, .unit = "GPUs" }))
			goto out;
	}
	rc = sbd_svg_close(f);
out:
	free(px);
	free(py);
	free(v);
	free(colours);
	free(group);
	return rc;
}
