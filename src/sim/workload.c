/*
 * workload.c - job tables for sbudget-sim: the canonical CSV (a header
 * naming at least submit_time_s,duration_s,gpus,team; the Alibaba trace
 * reads as is) and SWF 2.2, sliced by --from/--span and scaled by
 * --time-scale as they are read; team and user names interned.  What a
 * table lacks is assigned later, against a tree (bind.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "input.h"

void sim_read_opts_init(struct sim_read_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->span = -1;
	o->time_scale = 1.0;
	o->max_min_runtime = SB_DEFAULT_MAX_MIN_RUNTIME;
	o->time_limit_factor = SIM_TIME_LIMIT_FACTOR;
}

void sim_workload_init(struct sim_workload *w)
{
	memset(w, 0, sizeof(*w));
}

void sim_workload_free(struct sim_workload *w)
{
	uint32_t i;

	for (i = 0; i < w->nnames; i++)
		free(w->names[i]);
	free(w->names);
	free(w->hash);
	free(w->jobs);
	memset(w, 0, sizeof(*w));
}

static uint32_t strhash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int rehash(struct sim_workload *w, uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h)), i;

	if (!h)
		return -1;
	for (i = 0; i < w->nnames; i++) {
		uint32_t k = strhash(w->names[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(w->hash);
	w->hash = h;
	w->hash_cap = cap;
	return 0;
}

uint32_t sim_intern(struct sim_workload *w, const char *s)
{
	uint32_t k;

	if (!w->nnames) {	/* index 0 is "" */
		w->names = malloc(16 * sizeof(char *));
		if (!w->names || !(w->names[0] = strdup("")))
			return UINT32_MAX;
		w->names_cap = 16;
		w->nnames = 1;
		if (rehash(w, 64))
			return UINT32_MAX;
	}
	if (!*s)
		return 0;
	k = strhash(s) & (w->hash_cap - 1);
	while (w->hash[k]) {
		if (!strcmp(w->names[w->hash[k] - 1], s))
			return w->hash[k] - 1;
		k = (k + 1) & (w->hash_cap - 1);
	}
	if (w->nnames == w->names_cap) {
		char **nn = realloc(w->names, 2 * w->names_cap * sizeof(char *));

		if (!nn)
			return UINT32_MAX;
		w->names = nn;
		w->names_cap *= 2;
	}
	w->names[w->nnames] = strdup(s);
	if (!w->names[w->nnames])
		return UINT32_MAX;
	w->hash[k] = w->nnames + 1;
	w->nnames++;
	if (2 * w->nnames > w->hash_cap && rehash(w, 2 * w->hash_cap))
		return UINT32_MAX;
	return w->nnames - 1;
}

/* Room in @w for @n jobs in all; 0, or -1 (out of memory: @w unchanged). */
static int reserve_jobs(struct sim_workload *w, size_t n)
{
	struct sim_job *nj;

	if (n <= w->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(*nj) ||
	    !(nj = realloc(w->jobs, n * sizeof(*nj))))
		return -1;
	w->jobs = nj;
	w->cap = n;
	return 0;
}

static struct sim_job *add_job(struct sim_workload *w)
{
	if (w->njobs == w->cap &&
	    reserve_jobs(w, w->cap ? w->cap * 2 : 1024))
		return NULL;
	memset(&w->jobs[w->njobs], 0, sizeof(w->jobs[0]));
	return &w->jobs[w->njobs++];
}

/* Keep a job submitted at @submit (trace time, before --time-scale)?
 * Counts the rest. */
static bool in_slice(struct sim_workload *w, const struct sim_read_opts *o,
		     int64_t submit)
{
	if (submit < o->from || (o->span >= 0 && submit >= o->from + o->span)) {
		w->notes.skipped_slice++;
		return false;
	}
	return true;
}

/* "yes"/"no"/... through the core's own boolean parser. */
static int parse_bool(const char *s, bool *out)
{
	return sb_bool_parse(s, out) == SB_OK ? 0 : -1;
}

static int parse_prio(const char *s, uint32_t *out)
{
	int64_t v;

	if (!strcasecmp(s, "LOW"))
		*out = SIM_PRIO_LOW;
	else if (!strcasecmp(s, "NORMAL"))
		*out = SIM_PRIO_NORMAL;
	else if (!strcasecmp(s, "HIGH"))
		*out = SIM_PRIO_HIGH;
	else if (!sim__parse_i64(s, &v) && v >= 0 && v <= 1023)
		*out = (uint32_t)v;
	else
		return -1;
	return 0;
}

/* The canonical CSV's columns: the first four are required. */
#define CSV_COLS 9
static const char *const csv_cols[CSV_COLS] = {
	"submit_time_s", "duration_s", "gpus", "team", "user",
	"min_runtime_s", "resumable", "priority", "time_limit_s",
};

/* Where each column is (-1: absent), and how many fields the header has. */
struct csv_head {
	int ci[CSV_COLS];
	int nh;
};

static int csv_header(const char *name, size_t line, char **f, int n,
		      struct csv_head *h, struct sim_workload *w, char *msg,
		      size_t msglen)
{
	int k;

	h->nh = n;
	for (k = 0; k < CSV_COLS; k++) {
		int i;

		h->ci[k] = sim__column(f, n, csv_cols[k], NULL);
		/* named twice: which one is meant? */
		for (i = h->ci[k] + 1; h->ci[k] >= 0 && i < n; i++)
			if (!strcasecmp(f[i], csv_cols[k])) {
				sim__fail(msg, msglen, name, line, "column "
					  "'%s' is named twice (fields %d and "
					  "%d): name each column once",
					  csv_cols[k], h->ci[k] + 1, i + 1);
				return -1;
			}
	}
	for (k = 0; k < 4; k++)
		if (h->ci[k] < 0) {
			sim__fail(msg, msglen, name, line,
				  "the header lacks column '%s': the first "
				  "line must name the columns submit_time_s,"
				  "duration_s,gpus,team[,user,min_runtime_s,"
				  "resumable,priority,time_limit_s]",
				  csv_cols[k]);
			return -1;
		}
	w->has_user = h->ci[4] >= 0;
	w->has_mr = h->ci[5] >= 0;
	w->has_res = h->ci[6] >= 0;
	w->has_prio = h->ci[7] >= 0;
	return 0;
}

/* The numbers and names of one data line, checked. */
struct csv_row {
	int64_t sub, dur, gpus, mr, lim;
};

static int csv_check(const char *name, size_t line, char **f,
		     const struct csv_head *h, struct csv_row *r, char *msg,
		     size_t msglen)
{
	const int *ci = h->ci;

	if (sim__parse_i64(f[ci[0]], &r->sub) || r->sub < 0) {
		sim__fail(msg, msglen, name, line,
			  "submit_time_s '%s' is not accepted: a whole number "
			  "of seconds >= 0", f[ci[0]]);
		return -1;
	}
	if (sim__parse_i64(f[ci[1]], &r->dur) || r->dur < -1) {
		sim__fail(msg, msglen, name, line,
			  "duration_s '%s' is not accepted: a whole number "
			  "of seconds >= 0 (-1 = never ran: skipped)",
			  f[ci[1]]);
		return -1;
	}
	if (sim__parse_i64(f[ci[2]], &r->gpus) || r->gpus < -1 ||
	    r->gpus > 1000000) {
		sim__fail(msg, msglen, name, line,
			  "gpus '%s' is not accepted: a whole number "
			  "0..1000000 (0 = CPU only and -1 = unknown: "
			  "skipped)", f[ci[2]]);
		return -1;
	}
	if (!*f[ci[3]] || !sim__name_ok(f[ci[3]])) {
		sim__fail(msg, msglen, name, line,
			  "team '%s' is not accepted: a non-empty name of "
			  "printable characters without blanks, ',' or '|'",
			  f[ci[3]]);
		return -1;
	}
	if (ci[4] >= 0 && !sim__name_ok(f[ci[4]])) {
		sim__fail(msg, msglen, name, line,
			  "user '%s' is not accepted: printable characters "
			  "without blanks, ',' or '|' (may be empty)",
			  f[ci[4]]);
		return -1;
	}
	r->mr = 0;
	if (ci[5] >= 0 && (sim__parse_i64(f[ci[5]], &r->mr) || r->mr < 0 ||
			   r->mr > SB_DURATION_MAX)) {
		sim__fail(msg, msglen, name, line,
			  "min_runtime_s '%s' is not accepted: a whole number "
			  "of seconds 0..%" PRId64 " (0 = unallocated)",
			  f[ci[5]], (int64_t)SB_DURATION_MAX);
		return -1;
	}
	r->lim = 0;
	if (ci[8] >= 0 && *f[ci[8]] &&
	    (sim__parse_i64(f[ci[8]], &r->lim) || r->lim < -1 ||
	     r->lim == 0)) {
		sim__fail(msg, msglen, name, line,
			  "time_limit_s '%s' is not accepted: a whole number "
			  "of seconds >= 1 (empty or -1 = not given: the "
			  "f-model's, --time-limit-factor)", f[ci[8]]);
		return -1;
	}
	if (r->lim < 0)
		r->lim = 0;
	return 0;
}

/* *@t (trace seconds, read from the text @v of column @col), less --from
 * when @submit, x --time-scale into *@t.  0, or -1 with @msg naming the
 * value and the limit (SB_TIME_MAX / 4 once scaled: room for a run's end
 * and requeues). */
static int scale_time(const char *name, size_t line, const char *col,
		      const char *v, const struct sim_read_opts *o, int64_t *t,
		      bool submit, char *msg, size_t msglen)
{
	int64_t x = sim__scale(o, submit ? *t - o->from : *t);
	char rel[64] = "it";

	if (x >= 0) {
		*t = x;
		return 0;
	}
	if (submit)
		snprintf(rel, sizeof(rel), "its time after --from %" PRId64,
			 o->from);
	sim__fail(msg, msglen, name, line, "%s '%s' is out of range: %s, x "
		  "--time-scale %g, must be at most %" PRId64 " s", col, v,
		  rel, o->time_scale, (int64_t)SB_TIME_MAX / 4);
	return -1;
}

/* One data line into @w (or counted as skipped).  0, or -1 with @msg. */
static int csv_line(const char *name, size_t line, char **f,
		    const struct csv_head *h, const struct sim_read_opts *o,
		    struct sim_workload *w, char *msg, size_t msglen)
{
	const int *ci = h->ci;
	struct csv_row r;
	struct sim_job *j;

	if (csv_check(name, line, f, h, &r, msg, msglen))
		return -1;
	if (r.dur == -1 || r.gpus == -1) {
		w->notes.skipped_unknown++;
		return 0;
	}
	if (r.gpus == 0) {
		w->notes.skipped_nogpu++;
		return 0;
	}
	if (!in_slice(w, o, r.sub))
		return 0;
	if (scale_time(name, line, "submit_time_s", f[ci[0]], o, &r.sub,
		       true, msg, msglen) ||
	    scale_time(name, line, "duration_s", f[ci[1]], o, &r.dur, false,
		       msg, msglen) ||
	    (ci[5] >= 0 && scale_time(name, line, "min_runtime_s", f[ci[5]],
				      o, &r.mr, false, msg, msglen)) ||
	    (r.lim > 0 && scale_time(name, line, "time_limit_s", f[ci[8]],
				     o, &r.lim, false, msg, msglen)))
		return -1;
	j = add_job(w);
	if (!j) {
		sim__fail(msg, msglen, name, line, "out of memory");
		return -1;
	}
	j->submit = r.sub;
	j->duration = r.dur;
	j->gpus = (uint32_t)r.gpus;
	j->min_runtime = r.mr;
	j->time_limit = r.lim;
	j->line = (uint32_t)line;
	j->prio = SB_PRIO_TEAM_DEFAULT;
	if (ci[6] >= 0 && parse_bool(f[ci[6]], &j->resumable)) {
		sim__fail(msg, msglen, name, line,
			  "resumable '%s' is not accepted: yes/no, true/"
			  "false, 1/0 or on/off", f[ci[6]]);
		w->njobs--;
		return -1;
	}
	if (ci[7] >= 0 && parse_prio(f[ci[7]], &j->prio)) {
		sim__fail(msg, msglen, name, line,
			  "priority '%s' is not accepted: LOW, NORMAL, HIGH "
			  "or an in-team priority 0..1023", f[ci[7]]);
		w->njobs--;
		return -1;
	}
	j->team = sim_intern(w, f[ci[3]]);
	j->user = ci[4] >= 0 && strcmp(f[ci[4]], "NA") ?
		sim_intern(w, f[ci[4]]) : 0;
	if (j->team == UINT32_MAX || j->user == UINT32_MAX) {
		sim__fail(msg, msglen, name, line, "out of memory");
		return -1;
	}
	return 0;
}

static int parse_csv(const char *name, char *text,
		     const struct sim_read_opts *o, struct sim_workload *w,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;
	struct csv_head h;
	bool header = false;
	int n;

	snprintf(w->notes.format, sizeof(w->notes.format), "csv");
	while ((s = sim__next_line(&cur))) {
		line++;
		if (!*sim__trim(s) || s[0] == '#')
			continue;
		n = sim__split(s, ',', f);
		if (n < 0) {
			sim__fail(msg, msglen, name, line,
				  "more than %d fields", MAX_FIELDS);
			return -1;
		}
		if (!header) {
			header = true;
			if (csv_header(name, line, f, n, &h, w, msg, msglen))
				return -1;
			continue;
		}
		w->notes.lines++;
		if (n != h.nh) {
			sim__fail(msg, msglen, name, line,
				  "%d fields, the header has %d", n, h.nh);
			return -1;
		}
		if (csv_line(name, line, f, &h, o, w, msg, msglen))
			return -1;
	}
	if (!header) {
		sim__fail(msg, msglen, name, 0, "empty: no header line");
		return -1;
	}
	return 0;
}

/*
 * SWF 2.2: 18 fields; 2 submit, 4 run time, 5 allocated processors
 * (8 requested, used when 5 is -1), 9 requested time (the time limit when
 * > 0), 12 user, 13 group.  GPUs = processors.
 * Team = "g<group>", user = "u<user>".  No contract fields: assigned.
 */
static int parse_swf(const char *name, char *text,
		     const struct sim_read_opts *o, struct sim_workload *w,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;

	snprintf(w->notes.format, sizeof(w->notes.format), "swf");
	w->has_user = true;
	while ((s = sim__next_line(&cur))) {
		int64_t v[18];
		struct sim_job *j;
		char buf[32];
		int n, k;

		line++;
		s = sim__trim(s);
		if (!*s || *s == ';')
			continue;
		n = sim__split_ws(s, f);
		if (n != 18) {
			sim__fail(msg, msglen, name, line,
			     "%d fields: an SWF job line has 18 whitespace-"
			     "separated numbers", n < 0 ? MAX_FIELDS : n);
			return -1;
		}
		for (k = 0; k < 18; k++) {
			double d;

			/* fields 6 (average CPU) and 7 (memory) may be real */
			if (sim__parse_i64(f[k], &v[k])) {
				if ((k == 5 || k == 6) && !sim__parse_num(f[k], &d)) {
					v[k] = 0;
					continue;
				}
				sim__fail(msg, msglen, name, line,
				     "field %d '%s' is not a whole number", k + 1,
				     f[k]);
				return -1;
			}
		}
		w->notes.lines++;
		if (v[1] < 0) {
			sim__fail(msg, msglen, name, line,
			     "submit time '%s' is negative", f[1]);
			return -1;
		}
		if (v[4] <= 0)
			v[4] = v[7];
		if (v[3] < 0 || v[4] < 0) {
			w->notes.skipped_unknown++;
			continue;
		}
		if (v[4] == 0) {
			w->notes.skipped_nogpu++;
			continue;
		}
		if (!in_slice(w, o, v[1]))
			continue;
		if (scale_time(name, line, "submit time (field 2)", f[1], o,
			       &v[1], true, msg, msglen) ||
		    scale_time(name, line, "run time (field 4)", f[3], o,
			       &v[3], false, msg, msglen) ||
		    (v[8] > 0 && scale_time(name, line, "requested time "
					    "(field 9)", f[8], o, &v[8], false,
					    msg, msglen)))
			return -1;
		j = add_job(w);
		if (!j) {
			sim__fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
		j->submit = v[1];
		j->duration = v[3];
		j->time_limit = v[8] > 0 ? v[8] : 0;
		j->gpus = v[4] > 1000000 ? 1000000 : (uint32_t)v[4];
		j->line = (uint32_t)line;
		j->prio = SB_PRIO_TEAM_DEFAULT;
		snprintf(buf, sizeof(buf), "g%" PRId64, v[12]);
		j->team = sim_intern(w, buf);
		snprintf(buf, sizeof(buf), "u%" PRId64, v[11]);
		j->user = sim_intern(w, buf);
		if (j->team == UINT32_MAX || j->user == UINT32_MAX) {
			sim__fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* sim_workload_parse() on @text, which it splits in place (its lines and
 * fields are NUL-terminated where they end). */
static int parse_in_place(const char *name, char *text,
			  const struct sim_read_opts *o,
			  struct sim_workload *w, char *msg, size_t msglen)
{
	size_t nl = strlen(name), lines = 1;
	char *p;

	/* room for a job per line at once (without it the table grows as
	 * it is read); out of memory here is left to add_job() to report */
	for (p = text; (p = strchr(p, '\n')); p++)
		lines++;
	(void)reserve_jobs(w, w->njobs + lines);
	p = text;
	if (sim_intern(w, "") == UINT32_MAX) {
		sim__fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	w->notes.seed = o->seed;
	w->notes.time_limit_factor = o->time_limit_factor;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if ((nl > 4 && !strcasecmp(name + nl - 4, ".swf")) || *p == ';')
		return parse_swf(name, text, o, w, msg, msglen);
	return parse_csv(name, text, o, w, msg, msglen);
}

int sim_workload_parse(const char *name, const char *text,
		       const struct sim_read_opts *o, struct sim_workload *w,
		       char *msg, size_t msglen)
{
	char *copy = strdup(text);
	int rc;

	if (!copy) {
		sim__fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	rc = parse_in_place(name, copy, o, w, msg, msglen);
	free(copy);
	return rc;
}

int sim_workload_read(const char *file, const struct sim_read_opts *o,
		      struct sim_workload *w, char *msg, size_t msglen)
{
	char *text = sim_slurp(file, msg, msglen);
	int rc;

	if (!text)
		return -1;
	/* the text is ours: parsed where it was read, not copied */
	rc = parse_in_place(file, text, o, w, msg, msglen);
	free(text);
	return rc;
}
