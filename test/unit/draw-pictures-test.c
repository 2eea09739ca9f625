/*
 * draw-pictures-test.c - the pictures built on src/draw/draw.h, read back
 * as SVG: sbudget's report plot at 27 and 300 budgets, sbudget-sim's
 * per-team panels at 27 (grouped) and 150 teams and its per-GPU chart at
 * 27 and 150 teams.  Every picture: every text inside the image (by
 * sbd_text_width(), its anchor and font size), every rectangle inside,
 * colours distinct where they must be, the legend's rows inside the
 * height.  With SB_DRAW_DEMO_DIR set, the pictures are also written there
 * to look at.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "draw-test.h"
#include "draw.h"
#include "sim.h"

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

void draw_picture_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_report_plot, 0,
			    sizeof(plots) / sizeof(plots[0]));
	tcase_add_loop_test(tc, test_sim_teams, 0,
			    sizeof(teams_cases) / sizeof(teams_cases[0]));
	tcase_add_loop_test(tc, test_sim_gpus, 0, 2);
}
