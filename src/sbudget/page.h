/*
 * src/sbudget/page.h - the budget page (`sbudget page FILE.html`): one
 * self-contained HTML file, inline SVG and CSS, a few lines of script, no
 * network access (a Content-Security-Policy forbids every fetch), readable
 * from file:// and behind any web server.  No Slurm: page_cmd.c fills a
 * struct sbp_page from the cluster (the figures and verdicts are the
 * core's, as `show budget` and `show job` print them) and sbp_write_page()
 * writes it, with the palette, scale and time ticks every picture shares
 * (src/draw/draw.h).  Unit-tested in test/unit/page-test.c (escaping, the
 * page's structure at 27 and 300 budgets).
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
#include "draw.h"

/* sbp_html - write @s escaped for HTML text and attribute values:
 * sbd_xml() (& < > " ' escaped; NULL writes nothing). */
void sbp_html(FILE *out, const char *s);

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
