/*
 * page.c - the budget page's HTML writer (no Slurm; see page.h).
 *
 * Layout: a header (cluster, span in UTC, capacity, scope); the tree
 * (show budget's table, one row per association, indented by depth);
 * one small multiple per budget, grouped under its parent, each with its
 * own scale and UTC date ticks, titled with its share, delivered/owed and
 * standing; the pending jobs in the scheduler's order with why they wait;
 * the preemptions.  One fixed legend (three line styles) says what the
 * lines are, so it never grows with the number of budgets.
 *
 * Errors in the page's script are recorded by the first script (window
 * "error" events) and the last one writes data-sb-ok="yes" on <html> only
 * when none happened: the browser test reads it from the DOM.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "page.h"

void sbp_html(FILE *out, const char *s)
{
	sbd_xml(out, s);
}

/* -------------------------------------------------------------- panels */

#define PW 360.0	/* panel width */
#define PH 150.0
#define PL 40.0		/* left margin: y labels */
#define PR 8.0
#define PT 8.0
#define PB 34.0		/* bottom: two lines of tick labels */

int sbp_panel_svg(FILE *out, const struct sbp_panel *p, int64_t from,
		  int64_t step, size_t nsteps, int64_t to, const char *colour)
{
	const double w = PW - PL - PR, h = PH - PT - PB;
	double ymax = 0, qmax = 0, span = (double)(to - from);
	int64_t ticks[16], tstep = 0;
	size_t k, nt;

	if (!out || !p || step <= 0 || nsteps == 0 || to <= from)
		return -1;
	for (k = 0; k < nsteps; k++) {
		if (p->delivered_steps[k] > ymax)
			ymax = p->delivered_steps[k];
		if (p->owed_steps[k] > ymax)
			ymax = p->owed_steps[k];
		if (p->quota_steps[k] > qmax)
			qmax = p->quota_steps[k];
	}
	/* use's and owed's scale; the quota's only when close (draw.h) */
	ymax = sbd_scale_max(ymax, qmax, NULL);
	fprintf(out, "<svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" "
		"width=\"%.0f\" height=\"%.0f\" role=\"img\">", PW, PH, PW, PH);
	/* y grid and labels: 0, half, max */
	for (k = 0; k <= 2; k++) {
		double y = PT + h - h * (double)k / 2;

		fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" "
			"y2=\"%.1f\" class=\"grid\"/><text x=\"%.0f\" "
			"y=\"%.1f\" class=\"ylab\">%.3g</text>", PL, y, PL + w,
			y, PL - 3, y + 3.5, ymax * (double)k / 2);
	}
	/* x ticks: UTC dates */
	nt = sbd_time_ticks(from, to, 4, ticks, 16, &tstep);
	for (k = 0; k < nt; k++) {
		double x = PL + w * (double)(ticks[k] - from) / span;
		char lab[32], date[32], iso[32];

		sbd_tick_label(SBD_UTC, ticks[k], tstep, k ? ticks[k - 1] : 0,
			       k == 0, lab, sizeof(lab), date, sizeof(date));
		sbd_utc(ticks[k], iso, sizeof(iso));
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
			"y2=\"%.1f\" class=\"tick\"/><text class=\"xlab\" "
			"data-utc=\"%s\" x=\"%.1f\" y=\"%.1f\">%s", x, PT + h, x,
			PT + h + 4, iso, x, PT + h + 14, lab);
		if (date[0])
			fprintf(out, "<tspan x=\"%.1f\" dy=\"11\">%s</tspan>", x,
				date);
		fputs("</text>", out);
	}
	/* delivered: a filled step line */
	fprintf(out, "<path class=\"deliv\" fill=\"%s\" stroke=\"%s\" d=\"M%.1f"
		",%.1f", colour, colour, PL, PT + h);
	for (k = 0; k < nsteps; k++) {
		double x0 = PL + w * (double)((int64_t)k * step) / span;
		double x1 = PL + w * fmin((double)((int64_t)(k + 1) * step),
					  span) / span;
		double y = PT + h - h * fmin(p->delivered_steps[k], ymax) / ymax;

		fprintf(out, "L%.1f,%.1fL%.1f,%.1f", x0, y, x1, y);
	}
	fprintf(out, "L%.1f,%.1fZ\"/>", PL + w, PT + h);
	/* owed and (on scale) quota: step lines */
	for (int line = 0; line < 2; line++) {
		const double *v = line ? p->quota_steps : p->owed_steps;

		if (line && qmax > ymax)
			break;
		fprintf(out, "<path class=\"%s\" d=\"", line ? "quota" : "owed");
		for (k = 0; k < nsteps; k++) {
			double x0 = PL + w * (double)((int64_t)k * step) / span;
			double x1 = PL + w * fmin((double)((int64_t)(k + 1) *
							   step), span) / span;
			double y = PT + h - h * v[k] / ymax;

			fprintf(out, "%c%.1f,%.1fL%.1f,%.1f", k ? 'L' : 'M', x0,
				y, x1, y);
		}
		fputs("\"/>", out);
	}
	if (qmax > ymax)
		fprintf(out, "<text class=\"offscale\" x=\"%.0f\" y=\"%.0f\">"
			"quota %.3g GPU-h per step: above the scale</text>",
			PL + w - 2, PT + 9, qmax);
	fprintf(out, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\" y2=\"%.1f\" "
		"class=\"axis\"/></svg>", PL, PT + h, PL + w, PT + h);
	return ferror(out) ? -1 : 0;
}

/* --------------------------------------------------------------- page */

/* The tree is shown unfolded up to this many rows. */
#define TREE_OPEN_ROWS 60

static const char page_css[] =
"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;"
"background:#fff}\n"
"h1{font-size:1.5em;margin:0 0 .2em}h2{margin-top:1.6em;border-bottom:"
"1px solid #ccc}h3{font-size:1em;margin:1.2em 0 .3em;color:#444}\n"
".meta{color:#555}nav a{margin-right:1em}\n"
"table{border-collapse:collapse;font-variant-numeric:tabular-nums}\n"
"th,td{padding:2px 8px;border-bottom:1px solid #eee;text-align:left;"
"vertical-align:top;white-space:nowrap}td.why{white-space:normal}td.num{text-align:right}\n"
"th{background:#f4f4f4;position:sticky;top:0}\n"
".sw{display:inline-block;width:.8em;height:.8em;margin-right:.4em;"
"border-radius:2px;vertical-align:-.05em}\n"
".why{max-width:60em;font-size:.9em;color:#333}\n"
".grid-panels{display:flex;flex-wrap:wrap;gap:10px}\n"
"figure.panel{margin:0;border:1px solid #ddd;border-radius:4px;"
"padding:4px 6px;width:362px;overflow:hidden}\n"
"figure.panel figcaption div{font-size:11.5px;white-space:nowrap;"
"overflow:hidden;text-overflow:ellipsis}\n"
"figure.panel figcaption b{font-size:13px}\n"
".chart text{font:10px sans-serif;fill:#444}.chart .ylab{text-anchor:end}\n"
".chart .xlab{text-anchor:middle}.chart .offscale{text-anchor:end;"
"fill:#777;font-style:italic}\n"
".chart .grid{stroke:#eee}.chart .tick,.chart .axis{stroke:#888}\n"
".chart .deliv{fill-opacity:.35;stroke-width:1.5}\n"
".chart .owed{fill:none;stroke:#222;stroke-width:1.2;stroke-dasharray:5 3}\n"
".chart .quota{fill:none;stroke:#777;stroke-width:1.2;stroke-dasharray:1 3}\n"
".legend span{margin-right:1.5em}.legend svg{vertical-align:middle}\n"
"summary{cursor:pointer;color:#555;margin:.3em 0}\n"
"#filter{margin:.5em 0;padding:3px 6px;width:20em}\n"
".none{color:#777;font-style:italic}\n";

/* The first script: record every error of the page's scripts. */
static const char page_js_head[] =
"window.sbErrors=[];window.addEventListener('error',function(e){"
"window.sbErrors.push(String(e.message||e));});";

/* The last script: the budget filter; then the marker the browser test
 * reads (only when no script failed). */
static const char page_js_tail[] =
"(function(){var f=document.getElementById('filter');\n"
"if(f)f.addEventListener('input',function(){var q=f.value.toLowerCase();\n"
"document.querySelectorAll('figure.panel').forEach(function(p){\n"
"p.style.display=p.dataset.account.toLowerCase().indexOf(q)<0?'none':'';"
"});});\n"
"document.documentElement.setAttribute('data-sb-ok',"
"window.sbErrors.length?'no':'yes');})();";

static void num_cell(FILE *out, const char *field, const char *text)
{
	fputs("<td class=\"num\" data-field=\"", out);
	sbp_html(out, field);
	fputs("\">", out);
	sbp_html(out, text);
	fputs("</td>", out);
}

/* The tree: show budget's table, its text cell by cell. */
static void write_tree(FILE *out, const struct sbp_page *pg,
		       const char (*colours)[8])
{
	const struct sbc_table *t = pg->budgets;
	size_t r, k, panel = 0;

	fputs("<table id=\"budgets\"><thead><tr>", out);
	for (k = 0; k < t->ncols; k++) {
		fputs("<th>", out);
		sbp_html(out, t->defs[t->col[k]].name);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (r = 0; r < t->nrows; r++) {
		const struct sbc_cell *row = &t->cells[r * t->ndefs];
		const char *acct = NULL, *user = NULL;

		for (k = 0; k < t->ndefs; k++) {
			if (!strcmp(t->defs[k].name, "Account"))
				acct = row[k].text;
			if (!strcmp(t->defs[k].name, "User"))
				user = row[k].text;
		}
		fprintf(out, "<tr data-depth=\"%u\">",
			pg->row_depth ? pg->row_depth[r] : 0);
		for (k = 0; k < t->ncols; k++) {
			const struct sbc_fielddef *d = &t->defs[t->col[k]];
			const char *text = row[t->col[k]].text;

			if (d->right) {
				num_cell(out, d->name, text ? text : "");
				continue;
			}
			fputs("<td data-field=\"", out);
			sbp_html(out, d->name);
			fputs("\"", out);
			if (!strcmp(d->name, "Account"))
				fprintf(out, " style=\"padding-left:%.1fem\"",
					0.5 + 1.2 * (pg->row_depth ?
						     pg->row_depth[r] : 0));
			fputs(">", out);
			/* the account row of a panel: its colour */
			if (!strcmp(d->name, "Account") && acct && user &&
			    !*user && panel < pg->npanels &&
			    !strcmp(acct, pg->panels[panel].name))
				fprintf(out, "<span class=\"sw\" style=\""
					"background:%s\"></span>",
					colours[panel++]);
			sbp_html(out, text ? text : "");
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* The group of panel @g's children (g = -1: the top of the page). */
static int write_group(FILE *out, const struct sbp_page *pg, long g,
		       const char (*colours)[8])
{
	size_t i, n = 0;
	char pct[32];

	for (i = 0; i < pg->npanels; i++)
		if (pg->panels[i].parent == g)
			n++;
	if (!n)
		return 0;
	fputs("<section class=\"group\" data-parent=\"", out);
	sbp_html(out, g < 0 ? "" : pg->panels[g].name);
	fputs("\"><h3>", out);
	if (g < 0) {
		fputs(pg->scope ? "The sub-tree of " : "Top level", out);
		sbp_html(out, pg->scope ? pg->scope : "");
	} else {
		fputs("Under ", out);
		sbp_html(out, pg->panels[g].name);
	}
	fprintf(out, " (%zu budget%s)</h3><div class=\"grid-panels\">\n", n,
		n == 1 ? "" : "s");
	for (i = 0; i < pg->npanels; i++) {
		const struct sbp_panel *p = &pg->panels[i];

		if (p->parent != g)
			continue;
		fputs("<figure class=\"panel\" data-account=\"", out);
		sbp_html(out, p->name);
		fputs("\" data-owed=\"", out);
		sbp_html(out, p->owed);
		fputs("\" data-delivered=\"", out);
		sbp_html(out, p->delivered);
		fputs("\" data-unallocated=\"", out);
		sbp_html(out, p->unallocated);
		fputs("\" data-standing=\"", out);
		sbp_html(out, p->standing);
		fputs("\"><figcaption><div class=\"name\" title=\"", out);
		sbp_html(out, p->name);
		fprintf(out, "\"><span class=\"sw\" style=\"background:%s\">"
			"</span><b>", colours[i]);
		sbp_html(out, p->name);
		snprintf(pct, sizeof(pct), "%.1f", p->cluster_pct);
		fputs("</b></div><div>share ", out);
		sbp_html(out, p->raw_shares ? p->raw_shares : "?");
		fprintf(out, " = %s%% of the cluster &middot; standing ", pct);
		sbp_html(out, p->standing && *p->standing ? p->standing : "?");
		fputs("</div><div>delivered/owed ", out);
		sbp_html(out, p->deliv_owed && *p->deliv_owed ? p->deliv_owed :
			 "-");
		fputs(" &middot; ", out);
		sbp_html(out, p->status ? p->status : "");
		fputs("</div><div>GPU-h: owed ", out);
		sbp_html(out, p->owed);
		fputs(", delivered ", out);
		sbp_html(out, p->delivered);
		fputs(", unallocated ", out);
		sbp_html(out, p->unallocated);
		fputs("</div></figcaption>", out);
		if (sbp_panel_svg(out, p, pg->from, pg->step, pg->nsteps,
				  pg->to, colours[i]))
			return -1;
		fputs("</figure>\n", out);
	}
	fputs("</div></section>\n", out);
	/* then each child's own group, in tree order */
	for (i = 0; i < pg->npanels; i++)
		if (pg->panels[i].parent == g &&
		    write_group(out, pg, (long)i, colours))
			return -1;
	return 0;
}

static void write_pending(FILE *out, const struct sbp_page *pg)
{
	size_t i;

	if (!pg->npending) {
		fputs("<p class=\"none\">No pending job.</p>\n", out);
		return;
	}
	fputs("<table id=\"pending\"><thead><tr><th>#</th><th>Job</th>"
	      "<th>Account</th><th>User</th><th>Name</th><th>Partition</th>"
	      "<th>GPUs</th><th>Priority</th><th>Tier</th><th>Level</th>"
	      "<th>Waits for</th></tr></thead><tbody>\n", out);
	for (i = 0; i < pg->npending; i++) {
		const struct sbp_job *j = &pg->pending[i];

		fprintf(out, "<tr data-job=\"%u\"><td class=\"num\">%zu</td>"
			"<td class=\"num\">%u</td><td>", j->id, i + 1, j->id);
		sbp_html(out, j->account);
		fputs("</td><td>", out);
		sbp_html(out, j->user);
		fputs("</td><td>", out);
		sbp_html(out, j->name);
		fputs("</td><td>", out);
		sbp_html(out, j->partition);
		fprintf(out, "</td><td class=\"num\">%.0f</td><td class=\"num\">"
			"%u</td><td>", j->tres, j->priority);
		sbp_html(out, j->tier);
		fprintf(out, "</td><td class=\"num\">%u</td><td class=\"why\">",
			j->level);
		sbp_html(out, j->waits_for);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	if (pg->pending_more)
		fprintf(out, "<p>and %zu more pending job(s), not listed.</p>\n",
			pg->pending_more);
}

static void write_preempted(FILE *out, const struct sbp_page *pg)
{
	size_t i;
	char at[32];

	if (!pg->npreempted) {
		fputs("<p class=\"none\">No job in slurmctld was preempted by "
		      "preempt/budget.</p>\n", out);
		return;
	}
	fputs("<table id=\"preempted\"><thead><tr><th>Job</th><th>Account</th>"
	      "<th>User</th><th>State</th><th>At (UTC)</th><th>By job</th>"
	      "<th>Why</th></tr></thead><tbody>\n", out);
	for (i = 0; i < pg->npreempted; i++) {
		const struct sbp_preemption *p = &pg->preempted[i];

		sbd_utc(p->at, at, sizeof(at));
		fprintf(out, "<tr data-job=\"%u\"><td class=\"num\">%u</td><td>",
			p->id, p->id);
		sbp_html(out, p->account);
		fputs("</td><td>", out);
		sbp_html(out, p->user);
		fputs("</td><td>", out);
		sbp_html(out, p->state);
		fprintf(out, "</td><td>%s</td><td class=\"num\">", at);
		if (p->repair)
			fputs("(repair)", out);
		else if (p->by_job)
			fprintf(out, "%u", p->by_job);
		else
			fputs("?", out);
		fputs("</td><td class=\"why\">", out);
		sbp_html(out, p->reason);
		fputs("</td></tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* A line sample for the legend. */
static void legend_item(FILE *out, const char *cls, const char *extra,
			const char *what)
{
	fprintf(out, "<span><svg class=\"chart\" width=\"28\" height=\"12\">"
		"<path class=\"%s\" %s d=\"M1,6L27,6\"/></svg> %s</span>", cls,
		extra, what);
}

/* Each panel's colour: sbd_assign_colours() down the tree of panels.
 * Return -1 when out of memory. */
static int assign_colours(const struct sbp_page *pg, char (*colours)[8])
{
	long *parent = calloc(pg->npanels ? pg->npanels : 1, sizeof(*parent));
	size_t i;
	int rc;

	if (!parent)
		return -1;
	for (i = 0; i < pg->npanels; i++)
		parent[i] = pg->panels[i].parent;
	rc = sbd_assign_colours(pg->npanels, parent, colours);
	free(parent);
	return rc;
}

int sbp_write_page(FILE *out, const struct sbp_page *pg)
{
	char (*colours)[8] = NULL;
	char t0[32], t1[32], tn[32], st[64];
	int rc = -1;

	if (!out || !pg || !pg->budgets || pg->nsteps == 0 || pg->step <= 0 ||
	    pg->to <= pg->from || (pg->npanels && !pg->panels))
		return -1;
	colours = calloc(pg->npanels ? pg->npanels : 1, sizeof(*colours));
	if (!colours || assign_colours(pg, colours))
		goto out;
	sbd_utc(pg->from, t0, sizeof(t0));
	sbd_utc(pg->to, t1, sizeof(t1));
	sbd_utc(pg->now, tn, sizeof(tn));
	if (pg->step % 3600 == 0)
		snprintf(st, sizeof(st), "%lld h",
			 (long long)(pg->step / 3600));
	else
		snprintf(st, sizeof(st), "%lld min",
			 (long long)((pg->step + 59) / 60));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "\n<meta http-equiv=\"Content-Security-Policy\" content=\""
	      "default-src 'none'; style-src 'unsafe-inline'; script-src "
	      "'unsafe-inline'\">\n<meta name=\"viewport\" content=\"width="
	      "device-width\">\n<title>Budgets of cluster ", out);
	sbp_html(out, pg->cluster);
	if (pg->scope) {
		fputs(", sub-tree of ", out);
		sbp_html(out, pg->scope);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n<script>%s</script>\n"
		"</head><body data-from=\"%s\" data-to=\"%s\">\n<h1>Budgets of "
		"cluster ", page_css, page_js_head, t0, t1);
	sbp_html(out, pg->cluster);
	if (pg->scope) {
		fputs(": the sub-tree of ", out);
		sbp_html(out, pg->scope);
	}
	fprintf(out, "</h1>\n<p class=\"meta\">Made %s by sbudget page. "
		"Figures over %s to %s (UTC), in steps of %s; capacity %.0f ",
		tn, t0, t1, st, pg->capacity);
	sbp_html(out, pg->tres);
	fputs(". GPU-hours are hours of ChargeTRES.</p>\n<nav><a href=\"#tree\">"
	      "Tree</a><a href=\"#use\">Use against quota</a><a href=\""
	      "#queue\">Pending jobs</a><a href=\"#preemptions\">Preemptions"
	      "</a></nav>\n", out);

	/* a long tree is folded (the charts are what one looks for first);
	 * it stays in the document */
	fprintf(out, "<section id=\"tree\"><h2>The budget tree</h2><p>As <code>"
		"sbudget show budget</code> prints it for the same span. "
		"Standing orders the queue (1 = best served); DelivOwed is "
		"delivered of owed.</p>\n<details%s><summary>%zu association%s"
		"</summary>\n", pg->budgets->nrows <= TREE_OPEN_ROWS ?
		" open" : "", pg->budgets->nrows,
		pg->budgets->nrows == 1 ? "" : "s");
	write_tree(out, pg, (const char (*)[8])colours);
	fputs("</details></section>\n", out);

	fputs("<section id=\"use\"><h2>Use against quota</h2><p class=\"legend"
	      "\">Per budget (its whole sub-tree), GPU-hours per step, each "
	      "panel on its own scale: ", out);
	legend_item(out, "deliv", "fill=\"none\" stroke=\"#3a7bd5\"",
		    "delivered (allocated jobs)");
	legend_item(out, "owed", "", "owed (quota capped by demand)");
	legend_item(out, "quota", "", "quota (share of capacity)");
	fputs("</p>\n<input id=\"filter\" type=\"search\" placeholder=\""
	      "Filter budgets by name\" aria-label=\"Filter budgets by name\">"
	      "\n", out);
	if (!pg->npanels)
		fputs("<p class=\"none\">No budget.</p>\n", out);
	else if (write_group(out, pg, -1, (const char (*)[8])colours))
		goto out;
	fputs("</section>\n", out);

	fputs("<section id=\"queue\"><h2>Pending jobs</h2><p>In the order the "
	      "scheduler takes them (priority, then job id), with what each "
	      "waits for, as <code>sbudget show job</code> says it.</p>\n",
	      out);
	write_pending(out, pg);
	fputs("</section>\n<section id=\"preemptions\"><h2>Preemptions</h2>"
	      "<p>Jobs slurmctld still holds that preempt/budget preempted or "
	      "released, newest first.</p>\n", out);
	write_preempted(out, pg);
	fprintf(out, "</section>\n<script>%s</script>\n</body></html>\n",
		page_js_tail);
	rc = ferror(out) ? -1 : 0;
out:
	free(colours);
	return rc;
}
