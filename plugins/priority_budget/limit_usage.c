/*
 * limit_usage.c - the usage counters of Slurm's time limits, kept as
 * priority/multifactor keeps them; see limit_usage.h for what and why.
 *
 * Per job and period [from, to) (sb_limit_run_delta()):
 *   run      = seconds run in the period
 *   release  = run-seconds to take off grp_used_tres_run_secs (bounded by
 *              the time limit; at the end, all that is left)
 *   uf       = the job QOS's UsageFactor (1 when unset)
 *   per TRES i with count c_i:
 *     grp_used_tres_run_secs[i] -= floor(release x uf) x c_i
 *     usage_tres_raw[i]         += run x d^run x uf x c_i
 *   grp_used_wall += run x d^run x uf
 * where d is the per-second decay (sb_limit_decay_factor()), 1 (no decay)
 * for a QOS with NoDecay.  Done for the job's QOS, its partition's QOS
 * when another, and every association from the job's up to root.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/acct_policy.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "budget_job.h"
#include "limit_usage.h"
#include "slurm_compat.h"
#include "sb/error.h"
#include "sb/limit_usage.h"

#define LOG_PREFIX "priority/budget: limits"

/*
 * lu_lock guards everything below; taken innermost (after slurmctld and
 * assoc_mgr locks), held for a few assignments or one pass.
 */
static pthread_mutex_t lu_lock = PTHREAD_MUTEX_INITIALIZER;
static char *lu_dir;		/* StateSaveLocation */
static time_t last_tick;	/* usage applied up to here; 0 = never */
static time_t last_reset;	/* last PriorityUsageResetPeriod reset */
static time_t next_reset;	/* 0: to compute */
static bool corrected;		/* restart correction done since Slurm last
				 * counted whole time limits again */
static bool reset_now_done;	/* PriorityUsageResetPeriod=NOW: once */

/* Slurm's reset period in the core's terms. */
static enum sb_reset_period reset_period(uint16_t p)
{
	switch (p) {
	case PRIORITY_RESET_NOW:	return SB_RESET_NOW;
	case PRIORITY_RESET_DAILY:	return SB_RESET_DAILY;
	case PRIORITY_RESET_WEEKLY:	return SB_RESET_WEEKLY;
	case PRIORITY_RESET_MONTHLY:	return SB_RESET_MONTHLY;
	case PRIORITY_RESET_QUARTERLY:	return SB_RESET_QUARTERLY;
	case PRIORITY_RESET_YEARLY:	return SB_RESET_YEARLY;
	default:			return SB_RESET_NONE;
	}
}

static char *state_path(void)
{
	return xstrdup_printf("%s/%s", lu_dir, LIMIT_USAGE_FILE);
}

/* Parse "last_tick=N last_reset=N"; false if malformed. */
static bool parse_state(const char *text, time_t *tick, time_t *reset)
{
	static const char k1[] = "last_tick=", k2[] = " last_reset=";
	const char *p = text;
	char *end;
	long long a, b;

	if (strncmp(p, k1, sizeof(k1) - 1))
		return false;
	p += sizeof(k1) - 1;
	errno = 0;
	a = strtoll(p, &end, 10);
	if (errno || end == p || a < 0 || strncmp(end, k2, sizeof(k2) - 1))
		return false;
	p = end + sizeof(k2) - 1;
	b = strtoll(p, &end, 10);
	if (errno || end == p || b < 0 || (*end && strcmp(end, "\n")))
		return false;
	*tick = (time_t)a;
	*reset = (time_t)b;
	return true;
}

void limit_usage_init(const char *state_dir)
{
	char *path, buf[128];
	time_t tick = 0, reset = 0;
	ssize_t n = 0;
	int fd;

	slurm_mutex_lock(&lu_lock);
	xfree(lu_dir);
	lu_dir = xstrdup(state_dir);
	path = state_path();
	slurm_mutex_unlock(&lu_lock);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		if (!parse_state(buf, &tick, &reset)) {
			error("%s: %s is malformed ('%s'): taken as no tick "
			      "yet, so the first tick counts each running job "
			      "from its start", LOG_PREFIX, path, buf);
			tick = reset = 0;
		}
	} else if (errno != ENOENT) {
		error("%s: cannot read %s: %m; taken as no tick yet",
		      LOG_PREFIX, path);
	}
	if (tick > time(NULL) + 60) {
		error("%s: %s says the last tick was at %ld, in the future: "
		      "taken as no tick yet", LOG_PREFIX, path, (long)tick);
		tick = reset = 0;
	}
	info("%s: last tick %ld, last reset %ld (from %s)", LOG_PREFIX,
	     (long)tick, (long)reset, path);
	xfree(path);

	slurm_mutex_lock(&lu_lock);
	last_tick = tick;
	last_reset = reset;
	next_reset = 0;
	corrected = false;
	reset_now_done = false;
	slurm_mutex_unlock(&lu_lock);
}

/* Write the tick times: temp file, rename.  No lock held. */
static void save_state(const char *dir, time_t tick, time_t reset)
{
	char *path, *tmp, text[64];
	int fd, len;

	if (!dir)
		return;
	path = xstrdup_printf("%s/%s", dir, LIMIT_USAGE_FILE);
	tmp = xstrdup_printf("%s.new", path);
	len = snprintf(text, sizeof(text), "last_tick=%lld last_reset=%lld\n",
		       (long long)tick, (long long)reset);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		/* the descriptor is closed whatever the write did */
		bool ok = write(fd, text, len) == len && fsync(fd) == 0;

		if (close(fd) < 0)
			ok = false;
		if (ok && rename(tmp, path) == 0) {
			xfree(tmp);
			xfree(path);
			return;
		}
		unlink(tmp);
	}
	error("%s: cannot save %s: %m (a restart would count the "
	      "running jobs' run-minutes from an older tick)",
	      LOG_PREFIX, path);
	xfree(tmp);
	xfree(path);
}

/* Take @delta off *@counter, logging an underflow as Slurm does. */
static void release(uint64_t *counter, uint64_t delta, const char *what,
		    const char *name, int tres, uint32_t job_id)
{
	if (delta > *counter) {
		debug("%s: JobId=%u: %s %s TRES %s: releasing %" PRIu64
		      " run-seconds when %" PRIu64 " were counted",
		      LOG_PREFIX, job_id, what, name,
		      assoc_mgr_tres_name_array[tres], delta, *counter);
		*counter = 0;
	} else {
		*counter -= delta;
	}
}

/* What one job adds and releases in one period, per TRES. */
struct job_share {
	uint32_t job_id;
	const char *acct;
	uint32_t uid;
	uint64_t *tres_cnt;	/* the job's tres_alloc_cnt */
	uint64_t release;	/* run-seconds x UsageFactor, per TRES unit */
	double run;		/* seconds x UsageFactor, not decayed */
	double run_decayed;	/* seconds x d^seconds x UsageFactor */
	double billable;	/* the job's billable TRES, 0 if not known */
	bool usage;		/* add usage (false: release only) */
};

/* Whether TRES @i of the job counts (Slurm skips energy: counted after
 * the fact, never added at the start). */
static bool tres_counts(const struct job_share *s, int i)
{
	return i != TRES_ARRAY_ENERGY && s->tres_cnt[i] &&
	       s->tres_cnt[i] != NO_CONSUME_VAL64;
}

/* Apply @s to @qos.  assoc_mgr QOS write lock held. */
static void apply_qos(slurmdb_qos_rec_t *qos, const struct job_share *s)
{
	slurmdb_used_limits_t *ua = NULL, *uu = NULL;
	double run;
	int i;

	if (!qos || !qos->usage)
		return;
	run = (qos->flags & QOS_FLAG_NO_DECAY) ? s->run : s->run_decayed;
	if (s->usage) {
		qos->usage->grp_used_wall += run;
		qos->usage->usage_raw += (long double)(run * s->billable);
	}
	if (SB_QOS_USED_LIMITS_RUN_SECS && s->acct) {
		ua = acct_policy_get_acct_used_limits(
			&qos->usage->acct_limit_list, (char *)s->acct);
		uu = acct_policy_get_user_used_limits(
			&qos->usage->user_limit_list, s->uid);
	}
	for (i = 0; i < (int)g_tres_count; i++) {
		uint64_t d;

		if (!tres_counts(s, i))
			continue;
		if (s->usage)
			qos->usage->usage_tres_raw[i] +=
				(long double)run * s->tres_cnt[i];
		d = s->release * s->tres_cnt[i];
		release(&qos->usage->grp_used_tres_run_secs[i], d, "QOS",
			qos->name, i, s->job_id);
		if (ua && SB_USED_LIMITS_RUN_SECS(ua))
			release(&SB_USED_LIMITS_RUN_SECS(ua)[i], d,
				"QOS per-account", qos->name, i, s->job_id);
		if (uu && SB_USED_LIMITS_RUN_SECS(uu))
			release(&SB_USED_LIMITS_RUN_SECS(uu)[i], d,
				"QOS per-user", qos->name, i, s->job_id);
	}
}

/* Apply @s to @assoc and its parents up to root.  assoc_mgr assoc write
 * lock held. */
static void apply_assocs(slurmdb_assoc_rec_t *assoc,
			 const struct job_share *s)
{
	for (; assoc && assoc->usage;
	     assoc = assoc->usage->parent_assoc_ptr) {
		int i;

		if (s->usage)
			assoc->usage->grp_used_wall += s->run_decayed;
		for (i = 0; i < (int)g_tres_count; i++) {
			if (!tres_counts(s, i))
				continue;
			if (s->usage)
				assoc->usage->usage_tres_raw[i] +=
					(long double)s->run_decayed *
					s->tres_cnt[i];
			release(&assoc->usage->grp_used_tres_run_secs[i],
				s->release * s->tres_cnt[i], "association",
				assoc->acct, i, s->job_id);
		}
	}
}

/* Apply @s to the job's QOS, its partition's QOS when another, and its
 * associations.  Job read lock, assoc_mgr assoc and QOS write locks held. */
static void apply_job(const job_record_t *job_ptr, const struct job_share *s)
{
	apply_qos(job_ptr->qos_ptr, s);
	if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr != job_ptr->qos_ptr)
		apply_qos(job_ptr->part_ptr->qos_ptr, s);
	apply_assocs(job_ptr->assoc_ptr, s);
}

/* Fill @s for @job_ptr's period [@from, @to) with decay factor @d.
 * Return false when the job has nothing to do with the counters. */
static bool job_share(const job_record_t *job_ptr, time_t from, time_t to,
		      bool at_end, double d, struct job_share *s)
{
	struct sb_run run = {
		.start = job_ptr->start_time,
		.limit_min = job_ptr->time_limit,
		.end_exp = job_ptr->end_time_exp,
		.end = job_ptr->end_time,
		.ended = at_end || IS_JOB_FINISHED(job_ptr) ||
			 IS_JOB_COMPLETING(job_ptr) ||
			 IS_JOB_RESIZING(job_ptr),
	};
	struct sb_run_delta delta;
	double uf = budget_job_usage_factor(job_ptr), f = uf < 0 ? 1 : uf;

	if (!job_ptr->start_time || !job_ptr->assoc_ptr ||
	    !job_ptr->tres_alloc_cnt ||
	    job_ptr->end_time_exp == (time_t)NO_VAL)
		return false;
	if (sb_limit_run_delta(&run, from, to, at_end, &delta) != SB_OK)
		return false;
	memset(s, 0, sizeof(*s));
	s->job_id = job_ptr->job_id;
	s->acct = job_ptr->assoc_ptr->acct;
	s->uid = job_ptr->user_id;
	s->tres_cnt = job_ptr->tres_alloc_cnt;
	s->release = sb_limit_scale(delta.release, uf);
	s->run = delta.run * f;
	s->run_decayed = delta.run * sb_limit_decay(d, delta.run) * f;
	if (job_ptr->billable_tres > 0 &&
	    job_ptr->billable_tres != (double)NO_VAL)
		s->billable = job_ptr->billable_tres;
	s->usage = true;
	return true;
}

/* One job of correct_restart() (list_for_each_ro(), as tick_one()): the
 * tick, and the count of jobs corrected. */
struct restart_walk {
	time_t tick;
	int n;
};

static int correct_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	struct restart_walk *r = arg;
	struct job_share s;
	uint64_t used;

	if (!IS_JOB_RUNNING(job_ptr) && !IS_JOB_SUSPENDED(job_ptr))
		return 0;
	if (!job_ptr->start_time || !job_ptr->assoc_ptr ||
	    !job_ptr->tres_alloc_cnt ||
	    job_ptr->end_time_exp == (time_t)NO_VAL)
		return 0;
	used = sb_limit_restart_used(job_ptr->start_time, job_ptr->time_limit,
				     r->tick);
	if (!used)
		return 0;
	memset(&s, 0, sizeof(s));
	s.job_id = job_ptr->job_id;
	s.acct = job_ptr->assoc_ptr->acct;
	s.uid = job_ptr->user_id;
	s.tres_cnt = job_ptr->tres_alloc_cnt;
	s.release = sb_limit_scale(used, budget_job_usage_factor(job_ptr));
	apply_job(job_ptr, &s);	/* release only */
	r->n++;
	return 0;
}

/*
 * Take off what running jobs had released by @tick: Slurm counted their
 * whole time limit again (restart, 22.05 reconfigure).  Job read lock,
 * assoc_mgr write locks held.
 */
static void correct_restart(time_t tick)
{
	struct restart_walk r = { .tick = tick };
	int n;

	(void)list_for_each_ro(job_list, correct_one, &r);
	n = r.n;
	info("%s: run-minutes already used by %d running jobs up to the last "
	     "tick (%ld) taken off again", LOG_PREFIX, n, (long)tick);
}

/* Decay (or clear, @factor 0) the used counters of every association and
 * of every QOS without NoDecay (@clear: all, as Slurm's reset).
 * assoc_mgr assoc and QOS write locks held. */
static void scale_used(double factor, bool clear)
{
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;
	list_itr_t *it;
	int i;

	if (assoc_mgr_assoc_list) {
		it = list_iterator_create(assoc_mgr_assoc_list);
		while ((a = list_next(it))) {
			if (!a->usage)
				continue;
			for (i = 0; i < (int)g_tres_count; i++)
				a->usage->usage_tres_raw[i] *= factor;
			a->usage->grp_used_wall *= factor;
			if (a->leaf_usage && a->leaf_usage != a->usage) {
				for (i = 0; i < (int)g_tres_count; i++)
					a->leaf_usage->usage_tres_raw[i] *=
						factor;
				a->leaf_usage->grp_used_wall *= factor;
			}
		}
		list_iterator_destroy(it);
	}
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((q = list_next(it))) {
			if (!q->usage ||
			    (!clear && (q->flags & QOS_FLAG_NO_DECAY)))
				continue;
			q->usage->usage_raw *= factor;
			for (i = 0; i < (int)g_tres_count; i++)
				q->usage->usage_tres_raw[i] *= factor;
			q->usage->grp_used_wall *= factor;
		}
		list_iterator_destroy(it);
	}
}

/* Whether PriorityUsageResetPeriod @p says to clear now (and note it).
 * lu_lock held. */
static bool reset_due(uint16_t p, time_t now)
{
	enum sb_reset_period rp = reset_period(p);

	if (rp == SB_RESET_NONE)
		return false;
	if (rp == SB_RESET_NOW) {
		if (reset_now_done)
			return false;
		reset_now_done = true;
		last_reset = now;
		return true;
	}
	if (!last_reset)
		last_reset = now;
	if (!next_reset)
		next_reset = sb_limit_next_reset(rp, last_reset, now);
	if (!next_reset || now < next_reset)
		return false;
	last_reset = next_reset;
	next_reset = sb_limit_next_reset(rp, last_reset, now);
	return true;
}

/* list_for_each_ro() callback of limit_usage_tick(): a running job's share
 * of the period from @from to @now.  job_list's own lock is shared with
 * the other readers (slurmctld's state save packs every job under it): an
 * iterator's list_next() takes it for writing and would wait for them,
 * with the assoc_mgr write locks held.  0. */
struct tick_walk {
	time_t from, now;
	double decay;
};

static int tick_one(void *x, void *arg)
{
	job_record_t *job_ptr = x;
	const struct tick_walk *tw = arg;
	struct job_share s;

	if (IS_JOB_PENDING(job_ptr) || IS_JOB_FINISHED(job_ptr) ||
	    IS_JOB_COMPLETING(job_ptr) || IS_JOB_POWER_UP_NODE(job_ptr))
		return 0;
	if (!job_share(job_ptr, tw->from, tw->now, false, tw->decay, &s))
		return 0;
	/*
	 * No valid tick (first start, a missing or bad file, a switch from
	 * multifactor): the run-seconds go from each job's start, but the
	 * usage before now is already in Slurm's saved association usage; as
	 * multifactor's first period, add none.
	 */
	if (!tw->from)
		s.usage = false;
	apply_job(job_ptr, &s);
	return 0;
}

void limit_usage_tick(time_t now)
{
	slurmctld_lock_t job_read = {
		.conf = READ_LOCK, .job = READ_LOCK, .part = READ_LOCK };
	assoc_mgr_lock_t locks = {
		.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK };
	struct tick_walk tw;
	double d;
	time_t tick, reset;
	bool clear;
	char *dir;

	lock_slurmctld(job_read);
	assoc_mgr_lock(&locks);
	slurm_mutex_lock(&lu_lock);
	/* as multifactor: the configured half-life, read at each tick */
	d = sb_limit_decay_factor((double)slurm_conf.priority_decay_hl);
	if (!corrected) {
		correct_restart(last_tick);
		corrected = true;
	}
	clear = reset_due(slurm_conf.priority_reset_period, now);
	if (clear) {
		info("%s: PriorityUsageResetPeriod: used counters cleared",
		     LOG_PREFIX);
		scale_used(0, true);
	} else if (last_tick && now > last_tick) {
		scale_used(sb_limit_decay(d, (double)(now - last_tick)), false);
	}
	tw.from = last_tick;
	tw.now = now;
	tw.decay = d;
	(void)list_for_each_ro(job_list, tick_one, &tw);
	/* still under the job lock: an end after this counts from now */
	if (now > last_tick)
		last_tick = now;
	tick = last_tick;
	reset = last_reset;
	dir = xstrdup(lu_dir);
	slurm_mutex_unlock(&lu_lock);
	assoc_mgr_unlock(&locks);
	unlock_slurmctld(job_read);
	save_state(dir, tick, reset);
	xfree(dir);
}

void limit_usage_job_end(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = {
		.assoc = WRITE_LOCK, .qos = WRITE_LOCK, .tres = READ_LOCK };
	time_t now = time(NULL);
	struct job_share s;
	double d = sb_limit_decay_factor((double)slurm_conf.priority_decay_hl);

	assoc_mgr_lock(&locks);
	slurm_mutex_lock(&lu_lock);
	if (job_share(job_ptr, last_tick, now, true, d, &s)) {
		if (!last_tick)	/* no valid tick: see limit_usage_tick() */
			s.usage = false;
		/*
		 * Not corrected yet (ended while slurmctld read its state,
		 * before the first tick): Slurm counted the whole time limit
		 * again, so all of it goes; the usage up to the last tick
		 * was counted before the restart.
		 */
		if (!corrected && job_ptr->start_time <= last_tick) {
			struct sb_run run = {
				.start = job_ptr->start_time,
				.limit_min = job_ptr->time_limit,
				.ended = true,
			};
			struct sb_run_delta all;

			if (sb_limit_run_delta(&run, 0, now, true, &all) ==
			    SB_OK)
				s.release = sb_limit_scale(all.release,
					budget_job_usage_factor(job_ptr));
		}
		apply_job(job_ptr, &s);
	}
	/* once: as multifactor, the end is marked done whatever it held,
	 * so that acct_policy_job_fini() never runs twice for the job */
	job_ptr->end_time_exp = (time_t)NO_VAL;
	slurm_mutex_unlock(&lu_lock);
	assoc_mgr_unlock(&locks);
}

void limit_usage_reconfig(bool assoc_clear)
{
	if (!assoc_clear)
		return;
	slurm_mutex_lock(&lu_lock);
	corrected = false;
	slurm_mutex_unlock(&lu_lock);
}

void limit_usage_fini(void)
{
	time_t tick, reset;
	char *dir;

	slurm_mutex_lock(&lu_lock);
	tick = last_tick;
	reset = last_reset;
	dir = lu_dir;
	lu_dir = NULL;
	last_tick = last_reset = next_reset = 0;
	corrected = reset_now_done = false;
	slurm_mutex_unlock(&lu_lock);
	if (tick)
		save_state(dir, tick, reset);
	xfree(dir);
}
