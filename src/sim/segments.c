/*
 * segments.c - observed runs for `sbudget-sim metrics` (the format is in
 * sim.h, sim_segments_parse(); `sbudget-sim run --segments` writes it, and
 * contrib/replay.sh from slurmdbd's records), read into the metrics' jobs
 * and segments so that a live run is measured by the simulator's own code.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/ledger.h"
#include "input.h"

static const char *const seg_cols[12] = {
	"job", "team", "gpus", "min_runtime_s", "submit_s", "start_s",
	"end_s", "preempted", "eligible_s", "nodes", "resumable", "fate",
};

/* What one line says. */
struct seg_line {
	uint32_t node;
	int64_t v[9];		/* by column; -1 = empty */
	bool started;
	bool cancelled;		/* fate "cancelled" */
	int resumable;		/* -1: not given */
};

/* The last three columns (sim.h): node ids, resumable, fate; checked
 * against the rest of line @l.  0, or -1 with @msg. */
static int seg_extra(const char *name, size_t line, char **f,
		     struct seg_line *l, char *msg, size_t msglen)
{
	/* fate word, and the preempted value it needs (-1: no run; -2:
	 * not said) */
	static const struct { const char *w; int pre; } fates[] = {
		{ "done", 0 }, { "unfinished", 0 }, { "requeued", 2 },
		{ "restarted", 1 }, { "cancelled", 1 }, { "pending", -1 },
		{ "", -2 },
	};
	const char *p = f[9];
	size_t k;

	while (*p) {
		const char *q = p;

		while (*q >= '0' && *q <= '9')
			q++;
		if (q == p || q - p > 9 || (*q && *q != ';') ||
		    (*q == ';' && !q[1]) || !l->started) {
			sim__fail(msg, msglen, name, line, "nodes '%s' is not "
				  "accepted: node ids (0-based) with ';' "
				  "between them, on a line with a start; or "
				  "empty", f[9]);
			return -1;
		}
		p = *q ? q + 1 : q;
	}
	if (*f[10]) {
		if (strcmp(f[10], "0") && strcmp(f[10], "1")) {
			sim__fail(msg, msglen, name, line, "resumable '%s' is "
				  "not accepted: 0, 1 or empty", f[10]);
			return -1;
		}
		l->resumable = f[10][0] == '1';
	}
	for (k = 0; k < sizeof(fates) / sizeof(fates[0]); k++)
		if (!strcmp(f[11], fates[k].w))
			break;
	if (k == sizeof(fates) / sizeof(fates[0])) {
		sim__fail(msg, msglen, name, line, "fate '%s' is not accepted: "
			  "done, requeued, restarted, cancelled, unfinished, "
			  "pending or empty", f[11]);
		return -1;
	}
	if (fates[k].pre != -2 &&
	    (fates[k].pre == -1 ? l->started :
	     !l->started || fates[k].pre != l->v[7])) {
		sim__fail(msg, msglen, name, line, "fate '%s' does not agree "
			  "with preempted '%s' and start_s '%s': done and "
			  "unfinished go with 0, restarted and cancelled with "
			  "1, requeued with 2, pending with no start", f[11],
			  f[7], f[5]);
		return -1;
	}
	l->cancelled = !strcmp(f[11], "cancelled");
	return 0;
}

/* Check the fields of one data line (@n of them) into @l.  0, or -1 with
 * @msg. */
static int seg_check(const char *name, size_t line, char **f, int n,
		     const struct sim_tree *t, struct seg_line *l, char *msg,
		     size_t msglen)
{
	int k;

	if (!*f[0] || !sim__name_ok(f[0])) {
		sim__fail(msg, msglen, name, line, "job '%s' is not accepted: "
			  "a non-empty id without blanks or ','", f[0]);
		return -1;
	}
	l->node = sim_tree_find(t, f[1]);
	if (l->node == SB_NONE) {
		sim__fail(msg, msglen, name, line, "team '%s' is not a budget "
			  "of the tree", f[1]);
		return -1;
	}
	for (k = 2; k < 9; k++) {
		l->v[k] = -1;
		if (k >= n || ((k == 3 || k == 5 || k == 6 || k == 8) &&
			       !*f[k]))
			continue;
		if (sim__parse_i64(f[k], &l->v[k]) || l->v[k] < 0 ||
		    l->v[k] > SB_TIME_MAX || (k == 2 && l->v[k] == 0) ||
		    (k == 7 && l->v[k] > 2)) {
			sim__fail(msg, msglen, name, line,
				  "%s '%s' is not accepted: %s", seg_cols[k],
				  f[k], k == 2 ? "a whole number >= 1" :
				  k == 7 ? "0 (no), 1 (preempted, work lost) "
				  "or 2 (preempted, resumed)" :
				  k == 3 ? "a whole number of seconds >= 0, "
				  "or empty (no contract: unallocated)" :
				  k == 4 ? "a whole number of seconds >= 0" :
				  "seconds >= 0, or empty");
			return -1;
		}
	}
	l->started = l->v[5] >= 0;
	if ((l->started && (l->v[6] < l->v[5] || l->v[5] < l->v[4])) ||
	    (!l->started && ((l->v[6] >= 0 && l->v[6] < l->v[4]) ||
			     l->v[7]))) {
		sim__fail(msg, msglen, name, line,
			  "start_s '%s' and end_s '%s' are not accepted: "
			  "submit_s <= start_s <= end_s; or start_s empty "
			  "(never started, preempted 0) and end_s empty or "
			  ">= submit_s", f[5], f[6]);
		return -1;
	}
	if (l->v[8] >= 0 && ((l->started && l->v[8] > l->v[5]) ||
			     l->v[8] < l->v[4])) {
		sim__fail(msg, msglen, name, line, "eligible_s '%s' is not "
			  "accepted: submit_s <= eligible_s <= start_s", f[8]);
		return -1;
	}
	l->resumable = -1;
	l->cancelled = false;
	if (n == 12)
		return seg_extra(name, line, f, l, msg, msglen);
	return 0;
}

/* Growing arrays of the parse. */
struct seg_out {
	struct sim_mjob *mj;
	struct sim_mseg *ms;
	int64_t *last_end;	/* per job: end of its latest run so far */
	size_t nj, ns, capj, caps;
};

static int add_job(struct seg_out *o, const struct seg_line *l,
		   const char *id)
{
	struct sim_mjob *j;
	struct sb_contract ct;

	if (o->nj == o->capj) {
		size_t cap = o->capj ? 2 * o->capj : 256;
		void *a = realloc(o->mj, cap * sizeof(*o->mj));
		void *b;

		if (!a)
			return -1;
		o->mj = a;
		b = realloc(o->last_end, cap * sizeof(*o->last_end));
		if (!b)
			return -1;
		o->last_end = b;
		o->capj = cap;
	}
	sim_job_contract(l->v[3], l->resumable == 1, true, l->v[3] >= 0, &ct);
	j = &o->mj[o->nj];
	*j = (struct sim_mjob){ .node = l->node, .gpus = (uint32_t)l->v[2],
		.min_runtime = l->v[3] < 0 ? 0 : l->v[3],
		.allocated = ct.allocated, .submit = l->v[4],
		.first_start = SIM_NEVER, .end = SIM_NEVER,
		.pending_since = SIM_NEVER, .pending_until = SIM_NEVER };
	snprintf(j->id, sizeof(j->id), "%s", id);
	o->last_end[o->nj] = SIM_NEVER;
	o->nj++;
	return 0;
}

/* A run of job @id (its line @l) into @o.  Its eligibility: eligible_s, or
 * submit for the job's first run, the end of its previous run for a later
 * one (lines of a job in time order). */
static int add_run(struct seg_out *o, uint32_t id, const struct seg_line *l)
{
	struct sim_mjob *j = &o->mj[id];
	int64_t el = l->v[8];

	if (o->ns == o->caps) {
		size_t cap = o->caps ? 2 * o->caps : 256;
		void *a = realloc(o->ms, cap * sizeof(*o->ms));

		if (!a)
			return -1;
		o->ms = a;
		o->caps = cap;
	}
	if (el < 0)
		el = o->last_end[id] == SIM_NEVER ? j->submit : o->last_end[id];
	if (el > l->v[5])
		el = l->v[5];
	o->ms[o->ns++] = (struct sim_mseg){ id, el, l->v[5], l->v[6],
					    l->v[7] > 0, l->v[7] == 1,
					    l->cancelled };
	if (j->first_start == SIM_NEVER || l->v[5] < j->first_start)
		j->first_start = l->v[5];
	if (j->end == SIM_NEVER || l->v[6] > j->end)
		j->end = l->v[6];
	if (o->last_end[id] == SIM_NEVER || l->v[6] > o->last_end[id])
		o->last_end[id] = l->v[6];
	return 0;
}

/* The header: the eight columns, optionally eligible_s, optionally then
 * nodes,resumable,fate. */
static int seg_header(const char *name, size_t line, char **f, int n,
		      char *msg, size_t msglen)
{
	int k;
	bool ok = n == 8 || n == 9 || n == 12;

	for (k = 0; ok && k < n; k++)
		ok = !strcmp(f[k], seg_cols[k]);
	if (!ok) {
		sim__fail(msg, msglen, name, line, "the header must be exactly "
			  "job,team,gpus,min_runtime_s,submit_s,start_s,end_s,"
			  "preempted[,eligible_s[,nodes,resumable,fate]]");
		return -1;
	}
	return 0;
}

int sim_segments_parse(const char *name, const char *text,
		       const struct sim_tree *t, struct sim_mjob **jobs,
		       size_t *njobs, struct sim_mseg **segs, size_t *nsegs,
		       char *msg, size_t msglen)
{
	struct sim_workload ids;	/* job id -> index, by interning */
	char *copy = strdup(text), *cur, *s, *f[MAX_FIELDS];
	struct seg_out o = { 0 };
	size_t line = 0;
	int nh = 0, rc = -1, n;

	sim_workload_init(&ids);
	if (!copy || sim_intern(&ids, "") == UINT32_MAX)
		goto oom;
	cur = copy;
	while ((s = sim__next_line(&cur))) {
		struct seg_line l;
		uint32_t id;

		line++;
		if (!*sim__trim(s) || *s == '#')
			continue;
		n = sim__split(s, ',', f);
		if (!nh) {
			if (seg_header(name, line, f, n, msg, msglen))
				goto out;
			nh = n;
			continue;
		}
		if (n != nh) {
			sim__fail(msg, msglen, name, line, "%d fields, the "
				  "header has %d", n < 0 ? MAX_FIELDS : n, nh);
			goto out;
		}
		if (seg_check(name, line, f, n, t, &l, msg, msglen))
			goto out;
		id = sim_intern(&ids, f[0]);
		if (id == UINT32_MAX)
			goto oom;
		if (id - 1 == o.nj) {	/* a new job */
			if (add_job(&o, &l, f[0]))
				goto oom;
		} else if (o.mj[id - 1].gpus != l.v[2] ||
			   (o.mj[id - 1].min_runtime != l.v[3] &&
			    !(l.v[3] < 0 && !o.mj[id - 1].min_runtime)) ||
			   o.mj[id - 1].submit != l.v[4] ||
			   o.mj[id - 1].node != l.node) {
			sim__fail(msg, msglen, name, line, "job '%s' was "
				  "listed before with another team, gpus, "
				  "min_runtime_s or submit_s", f[0]);
			goto out;
		}
		if (!l.started) {	/* a pending span: see sim.h */
			o.mj[id - 1].pending_since = l.v[8] >= 0 ? l.v[8] :
				o.last_end[id - 1] != SIM_NEVER ?
				o.last_end[id - 1] : l.v[4];
			o.mj[id - 1].pending_until = l.v[6] >= 0 ? l.v[6]
								 : SIM_NEVER;
			continue;
		}
		if (o.last_end[id - 1] != SIM_NEVER &&
		    l.v[5] < o.last_end[id - 1]) {
			sim__fail(msg, msglen, name, line, "job '%s': its run "
				  "from start_s %" PRId64 " begins before its "
				  "previous run ended (end_s %" PRId64 "): a "
				  "job runs once at a time; list a job's runs "
				  "in time order", f[0], l.v[5],
				  o.last_end[id - 1]);
			goto out;
		}
		if (add_run(&o, id - 1, &l))
			goto oom;
	}
	if (!nh) {
		sim__fail(msg, msglen, name, 0, "empty: no header line");
		goto out;
	}
	*jobs = o.mj;
	*njobs = o.nj;
	*segs = o.ms;
	*nsegs = o.ns;
	o.mj = NULL;
	o.ms = NULL;
	rc = 0;
	goto out;
oom:
	sim__fail(msg, msglen, name, line, "out of memory");
out:
	free(o.mj);
	free(o.ms);
	free(o.last_end);
	free(copy);
	sim_workload_free(&ids);
	return rc;
}

int sim_waits_parse(const char *name, char *text, struct sim_mjob *jobs,
		    size_t njobs, char *msg, size_t msglen)
{
	char *cur = text, *l, *bar;
	size_t line = 0, i;

	while ((l = sim__next_line(&cur))) {
		line++;
		if (!*l || *l == '#')
			continue;
		bar = strchr(l, '|');
		if (!bar) {
			sim__fail(msg, msglen, name, line, "'%s': not "
				  "JOB|REASON", l);
			return -1;
		}
		*bar = '\0';
		for (i = 0; i < njobs; i++)
			if (!strcmp(jobs[i].id, l))
				break;
		if (i == njobs) {
			sim__fail(msg, msglen, name, line, "job '%s' is not "
				  "in the segments", l);
			return -1;
		}
		jobs[i].why = *sim__trim(bar + 1) ? sim__trim(bar + 1) : NULL;
	}
	return 0;
}
