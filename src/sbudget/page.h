/*
 * src/sbudget/page.h - the budget page (`sbudget page FILE.html`): one
 * self-contained HTML file, inline SVG and CSS, a few lines of script, no
 * network access (a Content-Security-Policy forbids every fetch), readable
 * from file:// and behind any web server.  No Slurm: page_cmd.c fills a
 * struct sbp_page from the cluster (the figures and verdicts are the
 * core's, as `show budget` and `show job` print them) and sbp_write_page()
 * writes it.  Unit-tested in test/unit/sbudget-test.c (escaping, palette,
 * time ticks, the page's structure at 27 and 300 budgets).
 *
 * Naming: sbp_ for this file.  Times are Unix seconds; every date on the
 * page is UTC.
 */
#ifndef SBC_PAGE_H
#define SBC_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* sbp_html - write @s escaped for HTML text and attribute values (& < > "
 * ' escaped; other bytes as they are; NULL writes nothing). */
void sbp_html(FILE *out, const char *s);

/*
 * sbp_colour - the colour of the @i-th of a group of siblings as "#rrggbb"
 * (8 bytes with the NUL): 12 hues 30 degrees apart, taken in an order that
 * puts neighbours far apart on the wheel, then the same hues at a darker
 * and a lighter step (36 colours), then again.  Siblings up to 36 get
 * distinct colours; a page labels every panel by name, so colour only
 * tells neighbours apart.
 */
#define SBP_PALETTE_SIZE 36
void sbp_colour(size_t i, char out[8]);

/*
 * sbp_time_ticks - tick marks for a time axis over [@from, @to]: the
 * smallest step of 1, 5, 15, 30 minutes, 1, 2, 3, 6, 12 hours, 1, 2, 7,
 * 14, 28 days that gives at most @maxn ticks, each tick a multiple of the
 * step in UTC (whole hours, midnights).  Writes at most @cap ticks into
 * @out and the step into *@step.  Return the number of ticks (0 when
 * @to <= @from or @maxn == 0).
 */
size_t sbp_time_ticks(int64_t from, int64_t to, size_t maxn, int64_t *out,
		      size_t cap, int64_t *step);

/*
 * sbp_tick_label - the label of tick @t of an axis of @step seconds:
 * "YYYY-MM-DD" for steps of a day or more; "HH:MM" below, with the date
 * "YYYY-MM-DD" in @date for the first tick (@prev <= 0) and where the day
 * changes from @prev's ("" otherwise).  UTC.
 */
void sbp_tick_label(int64_t t, int64_t step, int64_t prev, char *label,
		    size_t llen, char *date, size_t dlen);

/* sbp_utc - "YYYY-MM-DDTHH:MMZ" (@t in UTC), "none" for t <= 0. */
void sbp_utc(int64_t t, char *buf, size_t len);

/* One budget's small multiple: its figures per step, GPU-hours. */
struct sbp_panel {
	const char *name;	/* the account */
	long parent;		/* index of the parent's panel, -1: none
				 * shown (top of the page) */
	double cluster_pct;	/* entitled % of the cluster */
	double parent_pct;	/* % of the parent's */
	const char *raw_shares;	/* as show budget prints it */
	/* show budget's text of the same span: GPU-hours, delivered/owed */
	const char *owed, *delivered, *unallocated, *deliv_owed;
	const char *standing;	/* show budget's Standing ("" unknown) */
	const char *status;	/* show budget's Status */
	const double *delivered_steps;	/* nsteps each */
	const double *owed_steps;
	const double *quota_steps;
};

/* One pending job, in the order the scheduler takes them. */
struct sbp_job {
	uint32_t id;
	const char *name, *user, *account, *partition;
	double tres;		/* ChargeTRES it needs */
	uint32_t priority;
	const char *tier;	/* "allocated" / "unallocated" / other */
	uint32_t level;		/* the budget-standing part */
	const char *waits_for;	/* show job's WaitsFor */
};

/* One job preempt/budget preempted (its last note). */
struct sbp_preemption {
	uint32_t id;
	const char *user, *account, *state;
	int64_t at;
	uint32_t by_job;	/* the preemptor; 0: unknown (damaged note) */
	bool repair;		/* released for repair, not preempted */
	const char *reason;	/* show job's PreemptReason */
};

struct sbp_page {
	const char *cluster;
	const char *scope;	/* account= of a sub-tree page; NULL all */
	int64_t now, from, to, step;
	size_t nsteps;
	double capacity;
	const char *tres;	/* ChargeTRES, e.g. "gres/gpu" */
	/* the tree: show budget's table and each row's depth */
	const struct sbc_table *budgets;
	const uint32_t *row_depth;
	const struct sbp_panel *panels;
	size_t npanels;
	const struct sbp_job *pending;
	size_t npending;
	size_t pending_more;	/* pending jobs not listed */
	const struct sbp_preemption *preempted;
	size_t npreempted;
};

/*
 * sbp_write_page - the whole page.  Return 0, -1 on bad arguments or a
 * write error.
 */
int sbp_write_page(FILE *out, const struct sbp_page *pg);

/*
 * sbp_panel_svg - one panel's chart: delivered per step (filled), owed
 * (dashed), quota (dotted, or a note when above the scale, so that use is
 * never flattened under the quota); UTC date ticks.  @colour "#rrggbb".
 */
int sbp_panel_svg(FILE *out, const struct sbp_panel *p, int64_t from,
		  int64_t step, size_t nsteps, int64_t to, const char *colour);

#endif /* SBC_PAGE_H */
