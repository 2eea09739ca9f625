/*
 * limits.c - preempt/budget: releasing unallocated jobs that fill a Slurm
 * limit an allocated job pends behind.
 */
#include "preempt_internal.h"

/*
 * Slurm limits (doc/design.md, "Slurm limits"): association and QOS
 * limits count unallocated jobs, and Slurm's preemption never looks at
 * limits, so an allocated job pending behind a limit that unallocated jobs
 * fill would wait for them to end.  The tick gathers, for each such job,
 * the limits it is short of and the running jobs that count against them;
 * the core (sb_limit_release(), sb/limits.h) says which unallocated jobs
 * to release; the write pass preempts them as Slurm would (requeue or
 * cancel, PreemptGraceTime) for the blocked job.  Counted: GrpTRES (every
 * TRES but node, whose use is a node bitmap, not a sum) and GrpJobs of
 * the job's association and each ancestor, of its QOS and of its
 * partition's QOS, and those QOSes' MaxTRES/MaxJobs PerUser and
 * PerAccount.  Time limits (GrpTRESMins, GrpTRESRunMins, GrpWall) and an
 * association's own MaxJobs are not handled.
 */

/* Allocated jobs pending behind a limit looked at per tick: a window of
 * the list sorted by priority that moves on by this much every tick, so
 * every blocked job is looked at within ceil(n / LIMIT_JOBS_MAX) ticks
 * even when the first ones can never be helped (the control case). */
#define LIMIT_JOBS_MAX 16
/* Guarded by pe_state_lock.  Where the next tick's window of limit-blocked
 * jobs starts (pe_limits_tick()). */
static size_t limit_window;
/* Blocked jobs that jobs were last released for, and when (a ring): a job that
 * got its room but did not start (its nodes are held by protected work)
 * gets no second release within LIMIT_BACKOFF seconds, so released jobs
 * that start again on other nodes are not requeued over and over. */
#define LIMIT_HELPED_MAX 64
#define LIMIT_BACKOFF 60
static struct { uint32_t job_id; time_t at; } limit_helped[LIMIT_HELPED_MAX];
static size_t limit_helped_next;

/* Association levels walked up (the tree is never this deep). */
#define LIMIT_DEPTH_MAX 64

/* Where one limit of a blocked job is set and what it counts. */
enum limit_scope {
	SCOPE_GRP,	/* Grp*: every job of the association subtree / QOS */
	SCOPE_USER,	/* QOS MaxTRESPerUser, MaxJobsPerUser: @uid's jobs */
	SCOPE_ACCT,	/* QOS MaxTRESPerAccount, MaxJobsPerAccount: @acct's */
};
struct limit_src {
	slurmdb_assoc_rec_t *assoc;	/* on this association, or */
	slurmdb_qos_rec_t *qos;		/* on this QOS */
	int pos;			/* TRES position; -1: jobs */
	enum limit_scope scope;		/* SCOPE_GRP for an association */
	uint32_t uid;			/* SCOPE_USER */
	const char *acct;		/* SCOPE_ACCT (assoc_mgr's string) */
};

/* The gathered limits of one blocked job. */
struct limit_set {
	struct limit_src src[SB_LIMIT_MAX];
	struct sb_limit lim[SB_LIMIT_MAX];
	size_t n;
};

static bool starts_with(const char *s, const char *prefix)
{
	return s && !strncmp(s, prefix, strlen(prefix));
}

/* Whether a pending job's reason is an association or QOS Grp limit, or
 * a QOS Max limit (AssocGrpGRES, QOSGrpJobsLimit, QOSMaxGRESPerUser, ...;
 * limits_of() then finds which, if any, it handles). */
bool pe_limit_reason(uint32_t reason)
{
	const char *r = sb_job_reason_string(reason);

	return starts_with(r, "AssocGrp") || starts_with(r, "QOSGrp") ||
	       starts_with(r, "QOSMax");
}

/* Add the limits of one kind (@at: where and for whom) that @job_ptr is
 * short of (or exceeds alone): @caps/@used per TRES, @max_jobs/@used_jobs.
 * assoc_mgr assoc, qos and tres read locks held. */
static void limits_add(struct limit_set *ls, const job_record_t *job_ptr,
		       const struct limit_src *at,
		       const uint64_t *caps, const uint64_t *used,
		       uint32_t grp_jobs, uint32_t used_jobs)
{
	uint32_t pos;

	for (pos = 0; caps && job_ptr->tres_req_cnt && pos < g_tres_count;
	     pos++) {
		uint64_t cap = caps[pos], want = job_ptr->tres_req_cnt[pos];
		uint64_t u = used ? used[pos] : 0;

		if (pos == TRES_ARRAY_NODE || cap == INFINITE64 ||
		    cap == NO_VAL64 || !want || want == NO_CONSUME_VAL64 ||
		    want == INFINITE64 || (want <= cap && u <= cap - want))
			continue;
		if (ls->n == SB_LIMIT_MAX)
			return;
		ls->src[ls->n] = *at;
		ls->src[ls->n].pos = (int)pos;
		ls->lim[ls->n++] = (struct sb_limit){ cap, u, want };
	}
	if (grp_jobs != INFINITE && grp_jobs != NO_VAL &&
	    used_jobs >= grp_jobs && ls->n < SB_LIMIT_MAX) {
		ls->src[ls->n] = *at;
		ls->src[ls->n].pos = -1;
		ls->lim[ls->n++] = (struct sb_limit){ grp_jobs, used_jobs, 1 };
	}
}

/* The QOSes whose limits count @job_ptr: its own and its partition's
 * (the same one once). */
static void job_qoses(const job_record_t *job_ptr, slurmdb_qos_rec_t *q[2])
{
	q[0] = job_ptr->qos_ptr;
	q[1] = job_ptr->part_ptr ? job_ptr->part_ptr->qos_ptr : NULL;
	if (q[1] == q[0])
		q[1] = NULL;
}

static int find_uid(void *x, void *key)
{
	return ((slurmdb_used_limits_t *)x)->uid == *(uint32_t *)key;
}

static int find_acct(void *x, void *key)
{
	return !xstrcmp(((slurmdb_used_limits_t *)x)->acct, (char *)key);
}

/* Every limit @job_ptr is short of: Grp limits of its association and
 * each parent, Grp and per-user / per-account limits of its QOS and its
 * partition's QOS.  assoc_mgr locks held. */
static void limits_of(const job_record_t *job_ptr, struct limit_set *ls)
{
	slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr;
	slurmdb_used_limits_t *ul;
	slurmdb_qos_rec_t *q[2];
	struct limit_src at;
	uint32_t uid = job_ptr->user_id;
	int depth, i;

	ls->n = 0;
	for (depth = 0; a && a->usage && depth < LIMIT_DEPTH_MAX; depth++) {
		at = (struct limit_src){ .assoc = a, .scope = SCOPE_GRP };
		limits_add(ls, job_ptr, &at, a->grp_tres_ctld,
			   a->usage->grp_used_tres, a->grp_jobs,
			   a->usage->used_jobs);
		a = a->usage->parent_assoc_ptr;
	}
	job_qoses(job_ptr, q);
	for (i = 0; i < 2; i++) {
		if (!q[i] || !q[i]->usage)
			continue;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_GRP };
		limits_add(ls, job_ptr, &at, q[i]->grp_tres_ctld,
			   q[i]->usage->grp_used_tres, q[i]->grp_jobs,
			   q[i]->usage->grp_used_jobs);
		ul = q[i]->usage->user_limit_list ?
			list_find_first(q[i]->usage->user_limit_list,
					find_uid, &uid) : NULL;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_USER,
					 .uid = uid };
		limits_add(ls, job_ptr, &at, q[i]->max_tres_pu_ctld,
			   ul ? ul->tres : NULL, q[i]->max_jobs_pu,
			   ul ? ul->jobs : 0);
		if (!job_ptr->assoc_ptr || !job_ptr->assoc_ptr->acct)
			continue;
		ul = q[i]->usage->acct_limit_list ?
			list_find_first(q[i]->usage->acct_limit_list,
					find_acct, job_ptr->assoc_ptr->acct) :
			NULL;
		at = (struct limit_src){ .qos = q[i], .scope = SCOPE_ACCT,
					 .acct = job_ptr->assoc_ptr->acct };
		limits_add(ls, job_ptr, &at, q[i]->max_tres_pa_ctld,
			   ul ? ul->tres : NULL, q[i]->max_jobs_pa,
			   ul ? ul->jobs : 0);
	}
}

/* What running @job_ptr holds against limit @src (0: it does not count
 * there).  assoc_mgr locks held. */
static uint64_t limit_held(const job_record_t *job_ptr,
			   const struct limit_src *src)
{
	bool counts = false;

	if (src->assoc) {
		slurmdb_assoc_rec_t *a = job_ptr->assoc_ptr;
		int depth;

		for (depth = 0; a && !counts && depth < LIMIT_DEPTH_MAX;
		     depth++) {
			counts = a == src->assoc;
			a = a->usage ? a->usage->parent_assoc_ptr : NULL;
		}
	} else {
		slurmdb_qos_rec_t *q[2];

		job_qoses(job_ptr, q);
		counts = src->qos && (q[0] == src->qos || q[1] == src->qos);
		if (src->scope == SCOPE_USER)
			counts = counts && job_ptr->user_id == src->uid;
		else if (src->scope == SCOPE_ACCT)
			counts = counts && job_ptr->assoc_ptr &&
				 !xstrcmp(job_ptr->assoc_ptr->acct, src->acct);
	}
	if (!counts)
		return 0;
	if (src->pos < 0)
		return 1;
	if (!job_ptr->tres_alloc_cnt ||
	    job_ptr->tres_alloc_cnt[src->pos] == NO_CONSUME_VAL64 ||
	    job_ptr->tres_alloc_cnt[src->pos] == INFINITE64)
		return 0;
	return job_ptr->tres_alloc_cnt[src->pos];
}

/* "association phys-a GrpTRES gres/gpu=8 (8 in use, the job wants 8)".
 * assoc_mgr locks held. */
static void limit_describe(const struct limit_src *src,
			   const struct sb_limit *l, char *buf, size_t len)
{
	const char *tres = src->pos < 0 ? NULL :
		(assoc_mgr_tres_name_array && assoc_mgr_tres_name_array[src->pos]) ?
		assoc_mgr_tres_name_array[src->pos] : "?";
	static const char *const kind[][2] = {
		[SCOPE_GRP] = { "GrpTRES", "GrpJobs" },
		[SCOPE_USER] = { "MaxTRESPerUser", "MaxJobsPerUser" },
		[SCOPE_ACCT] = { "MaxTRESPerAccount", "MaxJobsPerAccount" },
	};
	char who[96];

	if (src->assoc)
		snprintf(who, sizeof(who), "association %s%s%s",
			 src->assoc->acct ? src->assoc->acct : "?",
			 src->assoc->user ? "/" : "",
			 src->assoc->user ? src->assoc->user : "");
	else
		snprintf(who, sizeof(who), "QOS %s",
			 src->qos && src->qos->name ? src->qos->name : "?");
	if (tres)
		snprintf(buf, len, "%s %s %s=%llu (%llu in use, the job "
			 "wants %llu)", who, kind[src->scope][0], tres,
			 (unsigned long long)l->cap,
			 (unsigned long long)l->used,
			 (unsigned long long)l->want);
	else
		snprintf(buf, len, "%s %s=%llu (%llu running)", who,
			 kind[src->scope][1], (unsigned long long)l->cap,
			 (unsigned long long)l->used);
}

/* Highest priority first. */
static int blocked_cmp(const void *a, const void *b)
{
	const job_record_t *x = *(job_record_t *const *)a;
	const job_record_t *y = *(job_record_t *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->job_id < y->job_id ? -1 : x->job_id > y->job_id;
}

/* Whether jobs were released for blocked job @job_id less than
 * LIMIT_BACKOFF seconds before @now. */
static bool limit_recently_helped(uint32_t job_id, time_t now)
{
	bool recent = false;
	size_t i;

	slurm_mutex_lock(&pe_state_lock);
	for (i = 0; i < LIMIT_HELPED_MAX && !recent; i++)
		recent = limit_helped[i].job_id == job_id &&
			 now - limit_helped[i].at < LIMIT_BACKOFF;
	slurm_mutex_unlock(&pe_state_lock);
	if (recent)
		debug("%s: JobId=%u still pends behind a limit less than %d s "
		      "after jobs were released for it: not again yet",
		      plugin_type, job_id, LIMIT_BACKOFF);
	return recent;
}

/* Whether @id is in @ids (@n entries). */
static bool id_in(const uint32_t *ids, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

struct running {
	job_record_t **run;
	size_t n, cap;
};

static int running_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct running *r = arg;

	if (!IS_JOB_RUNNING(job_ptr) || IS_JOB_COMPLETING(job_ptr))
		return 0;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		xrecalloc(r->run, r->cap, sizeof(*r->run));
	}
	r->run[r->n++] = job_ptr;
	return 0;
}

/* The running jobs (not completing), @n of them, to free with xfree(); NULL
 * when there are none.  Job read lock held (job_list's own lock shared with
 * the other readers: list_for_each_ro(), as tick_walk()). */
static job_record_t **running_jobs(size_t *n)
{
	struct running r = { 0 };

	(void)list_for_each_ro(job_list, running_one, &r);
	*n = r.n;
	return r.run;
}

/*
 * For allocated jobs in @blocked (@nb) pending behind a limit (highest
 * priority first, at most LIMIT_JOBS_MAX from limit_window on),
 * ask the core which unallocated jobs to release, and queue ACT_LIMIT for
 * each.  A job chosen for one blocked job counts as leaving for the next
 * ones.  The running jobs are collected once (running_jobs(): one walk of
 * job_list) and offered to each blocked job.  Conf, job and node read
 * locks held; takes the assoc_mgr read locks.
 */
void pe_limits_tick(job_record_t **blocked, size_t nb,
		    const struct sb_preempt_policy *pol, time_t now,
		    struct tick_work *w)
{
	assoc_mgr_lock_t locks = { .assoc = READ_LOCK, .qos = READ_LOCK,
				   .tres = READ_LOCK };
	struct limit_set ls;
	struct sb_limit_holder *h = NULL;
	uint64_t *holds = NULL;
	uint32_t *ids = NULL, taken[64];
	size_t *chosen = NULL, cap = 0, nh, nchosen, ntaken = 0, b, i, k;
	size_t nrun, r, first, looked;
	job_record_t *job_ptr, **run;
	int pos;

	qsort(blocked, nb, sizeof(*blocked), blocked_cmp);
	looked = nb > LIMIT_JOBS_MAX ? LIMIT_JOBS_MAX : nb;
	slurm_mutex_lock(&pe_state_lock);
	pos = pe_tres_pos;
	first = nb > LIMIT_JOBS_MAX ? limit_window % nb : 0;
	limit_window = first + looked;
	slurm_mutex_unlock(&pe_state_lock);
	run = running_jobs(&nrun);
	assoc_mgr_lock(&locks);
	for (k = 0; k < looked; k++) {
		struct sb_preempt_party bp;
		char why[256], what[192];
		int v;

		b = (first + k) % nb;
		if (limit_recently_helped(blocked[b]->job_id, now))
			continue;
		limits_of(blocked[b], &ls);
		if (!ls.n)
			continue;	/* a limit this tick does not count */
		budget_job_party(blocked[b], pos, &bp);
		nh = 0;
		for (r = 0; r < nrun; r++) {
			bool any = false;

			job_ptr = run[r];
			if (nh == cap) {
				cap = cap ? 2 * cap : 64;
				xrecalloc(h, cap, sizeof(*h));
				xrecalloc(holds, cap * SB_LIMIT_MAX,
					  sizeof(*holds));
				xrecalloc(ids, cap, sizeof(*ids));
				xrecalloc(chosen, cap, sizeof(*chosen));
			}
			for (i = 0; i < ls.n; i++) {
				holds[nh * SB_LIMIT_MAX + i] =
					limit_held(job_ptr, &ls.src[i]);
				any = any || holds[nh * SB_LIMIT_MAX + i];
			}
			if (!any)
				continue;
			budget_job_party(job_ptr, pos, &h[nh].party);
			if (id_in(taken, ntaken, job_ptr->job_id))
				h[nh].party.in_grace = true;
			ids[nh++] = job_ptr->job_id;
		}
		for (i = 0; i < nh; i++)	/* xrecalloc may have moved it */
			h[i].holds = &holds[i * SB_LIMIT_MAX];
		v = sb_limit_release(pol, &bp.job, ls.lim, ls.n, h, nh, now,
				     chosen, &nchosen, why, sizeof(why));
		limit_describe(&ls.src[0], &ls.lim[0], what, sizeof(what));
		if (v != SB_LIMIT_RELEASE) {
			debug("%s: %pJ pends behind %s: %s", plugin_type,
			      blocked[b], what, why);
			continue;
		}
		for (i = 0; i < nchosen; i++) {
			struct tick_action *a = pe_work_add(w, ids[chosen[i]],
							 ACT_LIMIT, -1);

			a->by = blocked[b]->job_id;
			snprintf(a->why, sizeof(a->why), "%s", what);
			if (ntaken < sizeof(taken) / sizeof(taken[0]))
				taken[ntaken++] = ids[chosen[i]];
		}
		w->wake++;	/* the blocked job may start once they left */
		slurm_mutex_lock(&pe_state_lock);
		limit_helped[limit_helped_next].job_id = blocked[b]->job_id;
		limit_helped[limit_helped_next].at = now;
		limit_helped_next = (limit_helped_next + 1) % LIMIT_HELPED_MAX;
		slurm_mutex_unlock(&pe_state_lock);
	}
	assoc_mgr_unlock(&locks);
	xfree(h);
	xfree(holds);
	xfree(ids);
	xfree(chosen);
	xfree(run);
}
