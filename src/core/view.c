/* view.c - the budget view: contract as run, committed usage, the full
 * preemption verdict; see sb/view.h. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb/error.h"
#include "sb/duration.h"
#include "sb/lane.h"
#include "sb/priority.h"
#include "sb/view.h"

#include "internal.h"

/* The contract @out as the job runs, given parse result @rc: unallocated
 * without a valid tag; not resumable when the job cannot be requeued. */
static int as_run(int rc, bool requeue_ok, struct sb_contract *out)
{
	if (rc != SB_OK) {
		out->min_runtime = 0;
		out->allocated = false;
		out->resumable = false;
		rc = SB_EMISSING;
	}
	out->requeueable = requeue_ok;
	if (!requeue_ok)
		out->resumable = false;
	return rc;
}

int sb_contract_of_job(const char *tag, bool requeue_ok,
		       struct sb_contract *out)
{
	if (!out)
		return SB_EINVAL;
	return as_run(sb_contract_parse_tag(tag, out), requeue_ok, out);
}

int sb_contract_of_fields(int64_t min_runtime, bool resumable,
			  bool requeue_ok, struct sb_contract *out)
{
	int rc = SB_EMISSING;

	if (!out)
		return SB_EINVAL;
	/* the values sb_contract_format() writes and sb_contract_parse_tag()
	 * reads back */
	if (min_runtime >= 0 && min_runtime <= SB_DURATION_MAX) {
		out->min_runtime = min_runtime;
		out->resumable = resumable;
		out->allocated = min_runtime > 0;
		rc = SB_OK;
	}
	return as_run(rc, requeue_ok, out);
}

bool sb_contract_job_allocated(const char *tag)
{
	return sb_contract_tag_allocated(tag) == 1;
}

bool sb_run_allocated(const char *tag, int64_t run_start, int64_t cutover)
{
	int a = sb_contract_tag_allocated(tag);

	if (a >= 0)
		return a == 1;
	return cutover > 0 && run_start > 0 && run_start < cutover;
}

uint64_t sb_held_tres(const struct sb_hold *h)
{
	uint64_t whole, rest;
	uint32_t others;

	if (!h)
		return 0;
	if (!h->whole_nodes)
		return h->tres;
	/* named_tres + (nodes - named) x other_min, saturating */
	others = h->nodes > h->named ? h->nodes - h->named : 0;
	if (others && h->other_min > UINT64_MAX / others)
		rest = UINT64_MAX;
	else
		rest = (uint64_t)others * h->other_min;
	whole = h->named_tres > UINT64_MAX - rest ? UINT64_MAX :
						    h->named_tres + rest;
	return whole > h->tres ? whole : h->tres;
}

double sb_committed_rest(const struct sb_preempt_job *job, int64_t now)
{
	int64_t until;

	if (!job || !job->contract.allocated || job->start > now ||
	    !job->tres)
		return 0;
	until = sb_preempt_protected_until(job);
	if (until <= now)
		return 0;
	return (double)job->tres * ((double)until - (double)now);
}

int sb_view_init(struct sb_view *v, const struct sb_tree *tree)
{
	uint32_t n;

	if (!v)
		return SB_EINVAL;
	memset(v, 0, sizeof(*v));
	if (!tree || !sb_tree_finalized(tree) ||
	    sb_tree_max_depth(tree) >= SB_VIEW_MAX_DEPTH)
		return SB_EINVAL;
	n = sb_tree_count(tree);
	v->charged = calloc(n ? n : 1, sizeof(*v->charged));
	v->committed = calloc(n ? n : 1, sizeof(*v->committed));
	if (!v->charged || !v->committed) {
		sb_view_free(v);
		return SB_ENOMEM;
	}
	v->tree = tree;
	v->n = n;
	return SB_OK;
}

void sb_view_free(struct sb_view *v)
{
	if (!v)
		return;
	free(v->charged);
	free(v->committed);
	memset(v, 0, sizeof(*v));
}

int sb_view_set_charged(struct sb_view *v, const double *usage)
{
	uint32_t i;

	if (!v || !usage || (v->n && !v->charged))
		return SB_EINVAL;
	for (i = 0; i < v->n; i++)
		if (!(usage[i] >= 0) || !isfinite(usage[i]))
			return SB_EINVAL;
	memcpy(v->charged, usage, v->n * sizeof(*usage));
	return SB_OK;
}

void sb_view_clear_committed(struct sb_view *v)
{
	if (v && v->committed)
		memset(v->committed, 0, v->n * sizeof(*v->committed));
}

int sb_view_commit(struct sb_view *v, uint32_t index,
		   const struct sb_preempt_job *job, int64_t now)
{
	double rest;
	uint32_t i;

	if (!v || !v->tree || index >= v->n || !job)
		return SB_EINVAL;
	rest = sb_committed_rest(job, now);
	if (rest <= 0)
		return SB_OK;
	for (i = index; i != SB_NONE; i = sb_tree_node(v->tree, i)->parent)
		v->committed[i] += rest;
	return SB_OK;
}

double sb_view_usage(const struct sb_view *v, uint32_t index)
{
	if (!v || index >= v->n)
		return 0;
	return v->charged[index] + v->committed[index];
}

int sb_view_usage_all(const struct sb_view *v, double *out)
{
	uint32_t i;

	if (!v || !out)
		return SB_EINVAL;
	for (i = 0; i < v->n; i++)
		out[i] = v->charged[i] + v->committed[i];
	return SB_OK;
}

bool sb_tree_diverge(const struct sb_tree *tree, uint32_t a, uint32_t b,
		     uint32_t *pa, uint32_t *pb)
{
	uint32_t n = sb_tree_count(tree);
	const struct sb_tree_node *x, *y;

	if (!tree || a >= n || b >= n || a == b)
		return false;
	x = sb_tree_node(tree, a);
	y = sb_tree_node(tree, b);
	/* climb the deeper one to the other's depth, then both until their
	 * parents agree (the top level's parent is SB_NONE for all) */
	while (x->depth > y->depth) {
		a = x->parent;
		x = sb_tree_node(tree, a);
	}
	while (y->depth > x->depth) {
		b = y->parent;
		y = sb_tree_node(tree, b);
	}
	if (a == b)
		return false;	/* one is the other's ancestor */
	while (x->parent != y->parent) {
		a = x->parent;
		b = y->parent;
		x = sb_tree_node(tree, a);
		y = sb_tree_node(tree, b);
	}
	if (pa)
		*pa = a;
	if (pb)
		*pb = b;
	return true;
}

/* The defaults, for a NULL policy. */
static const struct sb_preempt_policy *policy_or_default(
	const struct sb_preempt_policy *pol, struct sb_preempt_policy *buf)
{
	if (pol)
		return pol;
	sb_preempt_policy_init(buf);
	return buf;
}

/* factor x min runtime, saturating at INT64_MAX; 0 for min runtime <= 0. */
static int64_t interval_of(const struct sb_preempt_policy *pol,
			   const struct sb_contract *c)
{
	int64_t mr = c->allocated ? c->min_runtime : 0;
	uint32_t f = pol->interval_factor;

	if (mr <= 0 || f == 0)
		return 0;
	if (mr > INT64_MAX / f)
		return INT64_MAX;
	return mr * (int64_t)f;
}

int64_t sb_preempt_hold_until(const struct sb_preempt_policy *pol,
			      const struct sb_preempt_party *victim)
{
	struct sb_preempt_policy buf;
	int64_t until, iv, held;

	if (!victim)
		return INT64_MIN;
	pol = policy_or_default(pol, &buf);
	until = sb_preempt_protected_until(&victim->job);
	if (!victim->preempted || !victim->job.contract.allocated)
		return until;
	iv = interval_of(pol, &victim->job.contract);
	if (victim->preempted_at > 0 && iv > INT64_MAX - victim->preempted_at)
		held = INT64_MAX;
	else
		held = victim->preempted_at + iv;
	if (!victim->job.contract.resumable)	/* rule 3: restarted once */
		return INT64_MAX;
	return held > until ? held : until;
}

int64_t sb_preempt_min_gap(const struct sb_preempt_policy *pol,
			   const struct sb_contract *c, uint32_t k)
{
	struct sb_preempt_policy buf;
	enum sb_preempt_action act;
	int64_t mr, iv, d;

	if (!c || k == 0)
		return 0;
	pol = policy_or_default(pol, &buf);
	act = sb_preempt_action(pol, c);
	if (!c->allocated)
		return act == SB_ACTION_CANCEL || act == SB_ACTION_NONE
			       ? INT64_MAX
			       : sb_restart_delay(pol, c, k);
	if (act != SB_ACTION_REQUEUE)
		return INT64_MAX;
	mr = c->min_runtime > 0 ? c->min_runtime : 0;
	d = pol->requeue_delay > 0 ? pol->requeue_delay : 0;
	iv = interval_of(pol, c);
	if (mr > INT64_MAX - d)
		return INT64_MAX;
	return iv > mr + d ? iv : mr + d;
}

double sb_preempt_cost(const struct sb_preempt_policy *pol,
		       const struct sb_preempt_job *victim, int64_t now)
{
	struct sb_preempt_policy buf;
	enum sb_preempt_action act;
	double secs, lost = 0;

	if (!victim || !victim->tres)
		return 0;
	pol = policy_or_default(pol, &buf);
	act = sb_preempt_action(pol, &victim->contract);
	/* what this victim really gets: a grace time only if it has a
	 * checkpoint to write, a requeue delay only if it is requeued, and
	 * it loses its run unless it resumes */
	secs = (double)sb_preempt_grace(pol, &victim->contract);
	if ((act == SB_ACTION_REQUEUE || act == SB_ACTION_RESTART) &&
	    pol->requeue_delay > 0)
		secs += (double)pol->requeue_delay;
	if (act != SB_ACTION_REQUEUE) {
		double run = (double)sb_run_seconds(victim, now);
		double cap = (double)interval_of(pol, &victim->contract);

		lost = run < cap ? run : cap;
	}
	return (double)victim->tres * (secs + lost);
}

static void say(char *why, size_t len, const char *text)
{
	if (why && len)
		snprintf(why, len, "%s", text);
}

/*
 * One function of about 110 lines on purpose: the rules are tried in the
 * order include/sb/view.h numbers them, each returning its verdict with
 * its own sentence, and the order is the rule; most of the length is the
 * sentences (written only when @why is given).
 */
/* SB_PREEMPT_LOSS_WAIT, with its figures in @why (may be NULL). */
static enum sb_preempt_verdict loss_wait(const struct sb_preempt_policy *pol,
					 const struct sb_preempt_party *p,
					 const struct sb_preempt_party *v,
					 int64_t now, char *why, size_t len)
{
	if (why && len)
		snprintf(why, len, "%s: waited %lld s x %llu, its run would "
			 "lose %lld s x %llu; waits until %lld at the latest",
			 sb_preempt_verdict_str(SB_PREEMPT_LOSS_WAIT),
			 (long long)(now > p->job.eligible ?
				     now - p->job.eligible : 0),
			 (unsigned long long)p->job.tres,
			 (long long)sb_run_seconds(&v->job, now),
			 (unsigned long long)v->job.tres,
			 (long long)sb_preempt_loss_wait_until(pol, &p->job));
	return SB_PREEMPT_LOSS_WAIT;
}

enum sb_preempt_verdict sb_preempt_decide(const struct sb_preempt_policy *pol,
					  const struct sb_view *v,
					  const struct sb_preempt_party *preemptor,
					  const struct sb_preempt_party *victim,
					  int64_t now, char *why, size_t len)
{
	enum sb_preempt_verdict vd;
	uint32_t p, q;
	double sp, sv, up, uv, delta, cost;

	if (!preemptor || !victim || !preemptor->job.contract.allocated) {
		say(why, len, sb_preempt_verdict_str(SB_PREEMPT_UNALLOCATED));
		return SB_PREEMPT_UNALLOCATED;
	}
	if (victim->in_grace) {
		say(why, len, "already being preempted (in its grace time)");
		return SB_PREEMPT_YES;
	}
	vd = sb_preempt_check(pol, &preemptor->job, &victim->job, now);
	if (vd == SB_PREEMPT_ENDS_SOONER) {
		if (why && len)
			snprintf(why, len, "%s: its time limit ends it in %lld "
				 "s, a preemption would throw away its %lld s "
				 "run", sb_preempt_verdict_str(vd),
				 (long long)(sb_run_ends_by(&victim->job) -
					     now),
				 (long long)sb_run_seconds(&victim->job, now));
		return vd;
	}
	if (vd != SB_PREEMPT_YES || !victim->job.contract.allocated) {
		if (why && len)	/* the text only when asked: a hot path */
			say(why, len, vd == SB_PREEMPT_YES ? "unallocated: "
				      "preemptable at any time" :
				      sb_preempt_verdict_str(vd));
		return vd;
	}
	if (now < sb_preempt_hold_until(pol, victim)) {
		if (why && len && sb_preempt_hold_until(pol, victim) ==
				      INT64_MAX)
			snprintf(why, len, "not resumable and restarted from "
				 "its beginning by a preemption at %lld: runs "
				 "to its end (one lost run at most)",
				 (long long)victim->preempted_at);
		else if (why && len)
			snprintf(why, len, "%s (preempted at %lld, held until "
				 "%lld)",
				 sb_preempt_verdict_str(SB_PREEMPT_INTERVAL),
				 (long long)victim->preempted_at,
				 (long long)sb_preempt_hold_until(pol, victim));
		return SB_PREEMPT_INTERVAL;
	}
	if (v && sb_lane_preemptor(pol, preemptor)) {
		struct sb_priority_parts pp = { 0 }, pv = { 0 };

		(void)sb_priority_decode(preemptor->job.priority, &pp);
		(void)sb_priority_decode(victim->job.priority, &pv);
		if (preemptor->index != SB_NONE &&
		    preemptor->index == victim->index &&
		    pv.in_team >= pp.in_team) {
			say(why, len, "the same budget: within it the debug "
				      "lane does not apply, and the victim's "
				      "in-team priority is at least the "
				      "preemptor's");
			return SB_PREEMPT_OUTRANKED;
		}
		say(why, len, "the preemptor is in the debug lane, the victim "
			      "past its minimum runtime (the lane does not ask "
			      "the reclaim rule)");
		return SB_PREEMPT_YES;
	}
	if (!v) {
		say(why, len, sb_preempt_verdict_str(SB_PREEMPT_NOVIEW));
		return SB_PREEMPT_NOVIEW;
	}
	if (!sb_tree_diverge(v->tree, preemptor->index, victim->index, &p,
			     &q)) {
		if (sb_preempt_loss_waits(pol, &preemptor->job, &victim->job,
					  now))
			return loss_wait(pol, preemptor, victim, now, why, len);
		say(why, len, "past its minimum runtime, and outranked within "
			      "the same budget");
		return SB_PREEMPT_YES;
	}
	sp = sb_tree_node(v->tree, p)->shares_norm;
	sv = sb_tree_node(v->tree, q)->shares_norm;
	up = sb_view_usage(v, p);
	uv = sb_view_usage(v, q);
	delta = (double)preemptor->job.tres *
		(double)preemptor->job.contract.min_runtime;
	if (!sb_preempt_reclaim_ok(sp, up, delta, sv, uv)) {
		if (why && len)
			snprintf(why, len, "reclaim rule: '%s' would be more "
				 "over-used than '%s' after the transfer "
				 "(S %.4f / U %.0f+%.0f < S %.4f / U %.0f)",
				 sb_tree_node(v->tree, p)->name,
				 sb_tree_node(v->tree, q)->name, sp, up, delta,
				 sv, uv);
		return SB_PREEMPT_RECLAIM;
	}
	cost = sb_preempt_cost(pol, &victim->job, now);
	if (!sb_preempt_reclaim_ok(sp, up, delta + cost, sv, uv)) {
		if (why && len)
			snprintf(why, len, "preemption cost: '%s' is below "
				 "'%s' but not by the cost of the preemption "
				 "(S %.4f / U %.0f+%.0f+%.0f < S %.4f / U %.0f)",
				 sb_tree_node(v->tree, p)->name,
				 sb_tree_node(v->tree, q)->name, sp, up, delta,
				 cost, sv, uv);
		return SB_PREEMPT_COSTLY;
	}
	if (sb_preempt_loss_waits(pol, &preemptor->job, &victim->job, now))
		return loss_wait(pol, preemptor, victim, now, why, len);
	if (why && len)
		snprintf(why, len, "past its minimum runtime and outranked; "
			 "reclaim rule holds with the preemption's cost (S %.4f "
			 "/ U %.0f+%.0f+%.0f >= S %.4f / U %.0f)", sp, up, delta,
			 cost, sv, uv);
	return SB_PREEMPT_YES;
}

static const char preempted_note[] = "budget:preempted_by=";

const char *sb_preempted_note(const char *system_comment, size_t *len)
{
	const char *p = system_comment, *last = NULL;
	size_t n = 0;

	/* the last note: an administrator may have added text around it */
	for (; p && (p = strstr(p, preempted_note)); p++)
		last = p;
	while (last && last[n] && last[n] != ' ' && last[n] != ';')
		n++;
	if (len)
		*len = n;
	return last;
}

bool sb_preempted_note_at(const char *system_comment, int64_t *at)
{
	const char *last, *p;
	int64_t v = 0;

	if (at)
		*at = 0;
	if (!at || !(last = sb_preempted_note(system_comment, NULL)))
		return false;
	/* ",at=" within the note (up to white space or ';') */
	for (p = last + sizeof(preempted_note) - 1;
	     *p && *p != ' ' && *p != ';'; p++)
		if (!strncmp(p, ",at=", 4))
			break;
	if (strncmp(p, ",at=", 4))
		return false;
	for (p += 4; *p >= '0' && *p <= '9'; p++) {
		if (v > ((int64_t)1 << 40))
			return false;	/* not a time */
		v = v * 10 + (*p - '0');
	}
	if (*p && *p != ',' && *p != ' ' && *p != ';')
		return false;
	*at = v;
	return true;
}

static const char repair_note[] = "budget:released_for_repair=";

size_t sb__stop_note_word(const char *s)
{
	if (!s)
		return 0;
	if (!strncmp(s, preempted_note, sizeof(preempted_note) - 1))
		return sizeof(preempted_note) - 1;
	if (!strncmp(s, repair_note, sizeof(repair_note) - 1))
		return sizeof(repair_note) - 1;
	return 0;
}

/* Where a note word may start: the start, after white space or ';'. */
static bool word_start(const char *s, const char *p)
{
	return p == s || isspace((unsigned char)p[-1]) || p[-1] == ';';
}

/* The end of the word at @p: white space, ';' or the end. */
static const char *word_end(const char *p)
{
	while (*p && !isspace((unsigned char)*p) && *p != ';')
		p++;
	return p;
}

/* A decimal number of @len bytes at @val, at most @max. */
static int note_u64(const char *val, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (len == 0 || len > 20)
		return -1;
	for (i = 0; i < len; i++) {
		if (val[i] < '0' || val[i] > '9')
			return -1;
		if (v > (max - (uint64_t)(val[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(val[i] - '0');
	}
	*out = v;
	return 0;
}

int sb_stop_note_parse(const char *s, struct sb_stop_note *out)
{
	const char *p, *last = NULL, *end;
	struct sb_stop_note n;

	if (out)
		memset(out, 0, sizeof(*out));
	if (!s || !out)
		return 0;
	for (p = s; *p; p++)
		if (word_start(s, p) && sb__stop_note_word(p))
			last = p;
	if (!last)
		return 0;
	memset(&n, 0, sizeof(n));
	p = last + strlen("budget:");
	end = word_end(p);
	while (p < end) {
		const char *e = p, *eq;
		size_t len, klen;
		uint64_t v;

		while (e < end && *e != ',')
			e++;
		len = (size_t)(e - p);
		eq = memchr(p, '=', len);
		if (!eq)
			return -1;
		klen = (size_t)(eq - p);
		eq++;
#define KEY(k) (klen == sizeof(k) - 1 && !strncmp(p, k, klen))
		if (KEY("preempted_by")) {
			if (note_u64(eq, (size_t)(e - eq), UINT32_MAX, &v) ||
			    v == 0)
				return -1;
			n.preempted = true;
			n.by_job = (uint32_t)v;
		} else if (KEY("at")) {
			if (note_u64(eq, (size_t)(e - eq), (uint64_t)1 << 40,
				     &v))
				return -1;
			n.at = (int64_t)v;
		} else if (KEY("preemptor_priority")) {
			if (note_u64(eq, (size_t)(e - eq), UINT32_MAX, &v))
				return -1;
			n.preemptor_priority = (uint32_t)v;
		} else if (KEY("victim_priority")) {
			if (note_u64(eq, (size_t)(e - eq), UINT32_MAX, &v))
				return -1;
			n.victim_priority = (uint32_t)v;
		} else if (KEY("released_for_repair")) {
			size_t nl = (size_t)(e - eq);

			if (nl == 0 || nl >= sizeof(n.node))
				return -1;
			memcpy(n.node, eq, nl);
			n.node[nl] = '\0';
			n.repair = true;
		}	/* other keys: a newer plugin's, ignored */
#undef KEY
		p = e;
		if (p < end)
			p++;	/* the ',' */
	}
	if (n.preempted == n.repair)	/* both in one word: not ours */
		return -1;
	*out = n;
	return 1;
}

bool sb_stop_note_of_run(const struct sb_stop_note *n, int64_t start,
			 int64_t end)
{
	if (!n || (!n->preempted && !n->repair) || n->at <= 0 || start <= 0)
		return false;
	return n->at >= start && (end <= 0 || n->at <= end);
}

/* snprintf-like appending: counts all, writes what fits. */
struct merge_out {
	char *buf;
	size_t len, off;
};

static void put(struct merge_out *o, const char *s, size_t n)
{
	if (o->off < o->len) {
		size_t room = o->len - 1 - o->off;

		memcpy(o->buf + o->off, s, n < room ? n : room);
	}
	o->off += n;
}

size_t sb_note_merge(const char *text, const char *from, char *buf,
		     size_t len)
{
	struct merge_out o = { buf, len, 0 };
	const char *p, *ws, *e;

	text = text ? text : "";
	from = from ? from : "";
	/* @text: each word with the white space in front of it, but for
	 * stop-note words (the white space after a first one goes too) */
	for (p = text; *p;) {
		ws = p;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;	/* trailing white space: dropped */
		e = p;
		/* a word here ends at white space only: "a;b" is one */
		while (*e && !isspace((unsigned char)*e))
			e++;
		if (!sb__stop_note_word(p))
			put(&o, o.off ? ws : p, (size_t)(e - (o.off ? ws : p)));
		p = e;
	}
	for (p = from; *p; p++) {
		if (!word_start(from, p) || !sb__stop_note_word(p))
			continue;
		e = word_end(p);
		if (o.off)
			put(&o, " ", 1);
		put(&o, p, (size_t)(e - p));
		p = e - 1;
	}
	if (len)
		buf[o.off < len ? o.off : len - 1] = '\0';
	return o.off;
}
