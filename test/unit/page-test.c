/*
 * page-test.c - the budget page's writer (src/sbudget/page.h; no Slurm):
 * HTML escaping and whole pages of 27 and 300 budgets (one panel per
 * budget, a group per parent, sibling colours distinct, every name
 * escaped, nothing fetched).  The palette and time ticks it draws with
 * are src/draw's, tested in draw-test.c.
 * With SB_PAGE_DEMO_DIR set, the two pages are also written there
 * (page-27.html, page-300.html) to look at in a browser.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "page.h"

/* 2026-03-01T10:30:00Z (worked out with timegm()). */
#define T1030 INT64_C(1772361000)
#define HOUR 3600
#define DAY 86400

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	sbp_html(f, s);
	fclose(f);
	return buf;
}

static const struct { const char *in, *want; } escapes[] = {
	{ "", "" },
	{ "phys-a", "phys-a" },
	{ "a<b", "a&lt;b" },
	{ "</script><script>alert(1)</script>",
	  "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" },
	{ "&amp;", "&amp;amp;" },
	{ "say \"hi\" it's", "say &quot;hi&quot; it&#39;s" },
	{ "x=\"1\" onload='y'", "x=&quot;1&quot; onload=&#39;y&#39;" },
	{ "\xc3\xa9quipe", "\xc3\xa9quipe" },	/* UTF-8 passes through */
};

START_TEST(test_escape)
{
	char *got = escaped(escapes[_i].in);

	ck_assert_msg(!strcmp(got, escapes[_i].want),
		      "escape('%s'): want '%s', got '%s'", escapes[_i].in,
		      escapes[_i].want, got);
	free(got);
}
END_TEST

START_TEST(test_escape_null)
{
	char *got = escaped(NULL);

	ck_assert_str_eq(got, "");
	free(got);
}
END_TEST

/* ------------------------------------------------------- whole pages */

static const struct sbc_fielddef defs[] = {
	{ "Account", 0, false }, { "User", 0, false },
	{ "RawShares", 0, true }, { "Owed", 0, true },
	{ "Delivered", 0, true }, { "Standing", 0, true },
};
static const char *const defaults[] = { "Account", "User", "RawShares",
					"Owed", "Delivered", "Standing",
					NULL };

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* A page of @ntop top-level budgets with @nkids children each; budget 1 is
 * named so that it needs escaping.  Returns the page; its size in *@len. */
static char *make_page(size_t ntop, size_t nkids, size_t *len)
{
	const size_t n = ntop * (1 + nkids), nsteps = 24;
	struct sbp_panel *p = calloc(n, sizeof(*p));
	double *v = calloc(n * 3 * nsteps, sizeof(*v));
	uint32_t *depth = calloc(n, sizeof(*depth));
	char (*names)[32] = calloc(n, sizeof(*names));
	struct sbp_job jobs[2] = {
		{ .id = 7, .name = "<i>x</i>", .user = "u", .account = "a",
		  .partition = "gpu", .tres = 8, .priority = 3000000000u,
		  .tier = "allocated", .level = 5,
		  .waits_for = "Resources: needs 8 gres/gpu" },
		{ .id = 9, .name = "y", .user = "u", .account = "b",
		  .partition = "gpu", .tres = 1, .priority = 100,
		  .tier = "unallocated", .waits_for = "Priority" },
	};
	struct sbp_preemption pre[2] = {
		{ .id = 5, .user = "u", .account = "a", .state = "PENDING",
		  .at = T1030 + 60, .by_job = 7, .reason = "because" },
		{ .id = 6, .user = "u", .account = "a", .state = "RUNNING",
		  .at = T1030 + 30, .repair = true, .reason = "node gpu01" },
	};
	struct sbc_table t;
	struct sbp_page pg;
	char *buf = NULL;
	size_t i, k, top = 0;
	FILE *f;

	ck_assert(p && v && depth && names);
	ck_assert_int_eq(sbc_table_init(&t, defs, 6, defaults, NULL, NULL, 0),
			 0);
	for (i = 0; i < n; i++) {
		bool is_top = i % (1 + nkids) == 0;
		double *s = &v[i * 3 * nsteps];

		if (is_top)
			top = i;
		if (i == 1)
			snprintf(names[i], sizeof(names[i]), "x<b>&\"'y");
		else
			snprintf(names[i], sizeof(names[i]), "%s-%zu",
				 is_top ? "dept" : "team", i);
		for (k = 0; k < nsteps; k++) {
			s[k] = (double)((i + k) % 7);		/* delivered */
			s[nsteps + k] = (double)((i + k) % 5);	/* owed */
			s[2 * nsteps + k] = i % 3 ? 4 : 40;	/* quota */
		}
		p[i] = (struct sbp_panel){
			.name = names[i], .parent = is_top ? -1 : (long)top,
			.cluster_pct = 1, .parent_pct = 10, .raw_shares = "1",
			.owed = "1.000", .delivered = "2.000",
			.unallocated = "0.000", .deliv_owed = "1.000",
			.standing = "0.500000", .status = "idle",
			.delivered_steps = s, .owed_steps = s + nsteps,
			.quota_steps = s + 2 * nsteps,
		};
		depth[i] = is_top ? 0 : 1;
		ck_assert_int_eq(sbc_table_row(&t), 0);
		sbc_table_text(&t, "Account", names[i]);
		sbc_table_text(&t, "User", "");
		sbc_table_int(&t, "RawShares", 1);
		sbc_table_num(&t, "Owed", 1, 3);
		sbc_table_num(&t, "Delivered", 2, 3);
		sbc_table_num(&t, "Standing", 0.5, 6);
	}
	pg = (struct sbp_page){
		.cluster = "c<1>", .now = T1030 + DAY, .from = T1030,
		.to = T1030 + DAY, .step = HOUR, .nsteps = nsteps,
		.capacity = 32, .tres = "gres/gpu", .budgets = &t,
		.row_depth = depth, .panels = p, .npanels = n,
		.pending = jobs, .npending = 2, .preempted = pre,
		.npreempted = 2,
	};
	f = open_memstream(&buf, len);
	ck_assert_int_eq(sbp_write_page(f, &pg), 0);
	fclose(f);
	if (getenv("SB_PAGE_DEMO_DIR")) {
		char path[4096];
		FILE *o;

		snprintf(path, sizeof(path), "%s/page-%zu.html",
			 getenv("SB_PAGE_DEMO_DIR"), n);
		ck_assert((o = fopen(path, "w")));
		fwrite(buf, 1, *len, o);
		fclose(o);
	}
	sbc_table_free(&t);
	free(p);
	free(v);
	free(depth);
	free(names);
	return buf;
}

/* Within each group (one <section class="group">), the panels' colours
 * are distinct. */
static void check_group_colours(const char *page)
{
	const char *g = page, *end;

	while ((g = strstr(g, "<section class=\"group\""))) {
		char seen[64][8];
		size_t ns = 0, k;
		const char *p = g;

		end = strstr(g, "</section>");
		ck_assert(end);
		while ((p = strstr(p, "<figure class=\"panel\"")) && p < end) {
			const char *bg = strstr(p, "background:");

			ck_assert(bg && bg < end);
			for (k = 0; k < ns; k++)
				ck_assert_msg(strncmp(seen[k], bg + 11, 7),
					      "two panels of one group in %.7s",
					      bg + 11);
			if (ns < 64) {
				memcpy(seen[ns], bg + 11, 7);
				seen[ns++][7] = '\0';
			}
			p++;
		}
		g = end;
	}
}

/* Up to SBD_PALETTE_SIZE budgets, every panel has its own colour. */
static void check_all_colours(const char *page, size_t n)
{
	char seen[SBD_PALETTE_SIZE][8];
	size_t ns = 0, k;
	const char *p = page;

	if (n > SBD_PALETTE_SIZE)
		return;
	while ((p = strstr(p, "<figure class=\"panel\""))) {
		const char *bg = strstr(p, "background:");

		ck_assert(bg && ns < SBD_PALETTE_SIZE);
		for (k = 0; k < ns; k++)
			ck_assert_msg(strncmp(seen[k], bg + 11, 7), "two panels "
				      "in %.7s", bg + 11);
		memcpy(seen[ns], bg + 11, 7);
		seen[ns++][7] = '\0';
		p++;
	}
	ck_assert_uint_eq(ns, n);
}

static const struct page_case {
	size_t ntop, nkids;
} pages[] = {
	{ 3, 8 },	/* 27 budgets */
	{ 10, 29 },	/* 300 budgets */
};

START_TEST(test_page)
{
	const struct page_case *pc = &pages[_i];
	size_t n = pc->ntop * (1 + pc->nkids), len = 0;
	char *page = make_page(pc->ntop, pc->nkids, &len);

	printf("page of %zu budgets: %zu bytes\n", n, len);
	ck_assert(!strncmp(page, "<!DOCTYPE html>", 15));
	ck_assert(strstr(page, "</html>\n"));
	ck_assert_uint_eq(count(page, "<figure class=\"panel\""), n);
	/* a group for the top level and one per parent */
	ck_assert_uint_eq(count(page, "<section class=\"group\""),
			  1 + pc->ntop);
	/* every panel has a chart with date ticks */
	ck_assert_uint_eq(count(page, "<svg class=\"chart\" viewBox"), n);
	ck_assert_uint_ge(count(page, "data-utc=\"2026-03-0"), 2 * n);
	ck_assert_uint_ge(count(page, ">2026-03-01<") +
			  count(page, ">2026-03-02<"), n);
	/* names escaped everywhere, raw nowhere */
	ck_assert(!strstr(page, "x<b>"));
	ck_assert(strstr(page, "x&lt;b&gt;&amp;&quot;&#39;y"));
	ck_assert(!strstr(page, "<i>x</i>"));
	ck_assert(!strstr(page, "c<1>"));
	/* self-contained: nothing to fetch */
	ck_assert(!strstr(page, "http:") && !strstr(page, "https:"));
	ck_assert(!strstr(page, " src=") && !strstr(page, "<link"));
	ck_assert(strstr(page, "Content-Security-Policy"));
	/* the pending jobs in the order given, the preemption */
	ck_assert(strstr(page, "data-job=\"7\"") <
		  strstr(page, "data-job=\"9\""));
	ck_assert(strstr(page, "<table id=\"preempted\">"));
	ck_assert(strstr(page, "<td>2026-03-01T10:31Z</td><td class=\"num\">7"
			       "</td>"));
	ck_assert(strstr(page, "<td>2026-03-01T10:30Z</td><td class=\"num\">"
			       "(repair)</td>"));
	/* the marker script comes last */
	ck_assert(strstr(page, "data-sb-ok") > strstr(page, "id=\"preempted\""));
	check_group_colours(page);
	check_all_colours(page, n);
	/* bounded: a few kB per budget */
	ck_assert_msg(len < n * 8000 + 20000, "%zu bytes for %zu budgets", len,
		      n);
	free(page);
}
END_TEST

START_TEST(test_page_bad)
{
	struct sbp_page pg;

	memset(&pg, 0, sizeof(pg));
	ck_assert_int_eq(sbp_write_page(stdout, NULL), -1);
	ck_assert_int_eq(sbp_write_page(stdout, &pg), -1);	/* no table */
}
END_TEST

int main(void)
{
	Suite *s = suite_create("page");
	TCase *tc = tcase_create("page");

	tcase_add_loop_test(tc, test_escape, 0,
			    sizeof(escapes) / sizeof(escapes[0]));
	tcase_add_test(tc, test_escape_null);
	tcase_add_loop_test(tc, test_page, 0,
			    sizeof(pages) / sizeof(pages[0]));
	tcase_add_test(tc, test_page_bad);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return sb_check_run(s);
}
