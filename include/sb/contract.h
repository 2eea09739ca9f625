/*
 * sb/contract.h - the scheduling contract a job declares at submit time.
 *
 * A job declares a minimum runtime (its protected, charged slice) and whether
 * it is resumable.  Minimum runtime 0 means *unallocated*: the job is charged
 * to nobody and may be preempted by any allocated job at any time.  See
 * doc/design.md, "The contract".
 */
#ifndef SB_CONTRACT_H
#define SB_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Site maximum of the minimum runtime when budget.conf does not set one. */
#define SB_DEFAULT_MAX_MIN_RUNTIME ((int64_t)8 * 3600)

/* The accepted contract of one job. */
struct sb_contract {
	int64_t min_runtime;	/* seconds; 0 = unallocated */
	bool resumable;		/* resumes its work when requeued (it
				 * checkpoints); needs requeueable */
	bool allocated;		/* min_runtime > 0: charged to the budget */
	bool requeueable;	/* the resource manager can requeue the job:
				 * in Slurm a batch job whose requeue flag is
				 * set (not --no-requeue); false for salloc
				 * and srun allocations.  Not in the tag:
				 * sb_contract_of_job() fills it from the job,
				 * sb_contract_check() from the request */
};

/* The site's rules for contracts (from budget.conf, see sb/config.h). */
struct sb_contract_policy {
	int64_t max_min_runtime;	/* seconds, >= 0 */
	int64_t default_min_runtime;	/* seconds; < 0 = none: must be given */
	bool submit_note;		/* SubmitNote: tell the user at
					 * submission when the job may lose
					 * its work (sb_contract_advice(),
					 * sb/preempt.h) */
};

/* The request as it reached the controller; NULL = not given. */
struct sb_contract_request {
	const char *min_runtime;	/* text in Slurm time syntax */
	const char *resumable;		/* "yes"/"no" (see sb_bool_parse) */
	bool has_budget;		/* the association has RawShares > 0 on
					 * its whole path (sb_path_has_budget) */
	int64_t time_limit;		/* the job's effective time limit,
					 * seconds (sb_time_limit_effective);
					 * <= 0 = none known (unlimited) */
	const char *limit_from;		/* where time_limit comes from, for
					 * the message (e.g. "partition
					 * 'debug' DefaultTime"); NULL = the
					 * job's own --time */
	int64_t time_cap;		/* the longest time limit the job can
					 * be given at all, seconds
					 * (sb_time_cap): no --time raises it;
					 * <= 0 = none */
	const char *cap_from;		/* where time_cap comes from (e.g.
					 * "QOS 'normal' MaxWall") */
	bool interactive;		/* not a batch job (salloc, srun
					 * without sbatch): it can never be
					 * requeued, so resumable is refused */
	bool no_requeue;		/* the user asked never to be
					 * requeued (--no-requeue): resumable
					 * is refused */
};

/* Where a job's effective time limit comes from (sb_time_limit_effective). */
enum sb_limit_from {
	SB_LIMIT_NONE = 0,	/* no limit at all */
	SB_LIMIT_GIVEN,		/* the job's own --time */
	SB_LIMIT_TIME_MIN,	/* --time-min: backfill may cut the job to it */
	SB_LIMIT_PART_DEFAULT,	/* no --time: the partition's DefaultTime */
	SB_LIMIT_PART_MAX,	/* no --time, no DefaultTime: MaxTime */
	SB_LIMIT_MAX_WALL,	/* the QOS's or association's MaxWall, below
				 * what the job would get otherwise */
};

/*
 * sb_time_limit_effective - the shortest time limit a job can really be
 * given, which its minimum runtime must not exceed.  All in seconds, <= 0
 * meaning "not set / unlimited":
 * @given:        the job's --time;
 * @time_min:     its --time-min (Slurm's backfill may set the limit to any
 *                value from time_min up, so only time_min is certain);
 * @part_default: the partition's DefaultTime, used when --time is not set;
 * @part_max:     its MaxTime, used when neither --time nor DefaultTime is;
 * @max_wall:     the MaxWall (MaxWallDurationPerJob) Slurm's accounting
 *                enforces on the job: its QOS's, else its association's;
 *                a job never runs longer (without --time Slurm gives it
 *                this limit; above it the job is refused or never starts).
 * This is the order Slurm 22.05 to 26.05 apply (job_mgr.c,
 * _part_access_check/_valid_job_part: time_limit = DefaultTime when
 * unset, else MaxTime is the bound; acct_policy_validate: MaxWall caps it;
 * backfill's time_min).  For a job that may run in several partitions the
 * caller takes the least over them.
 * @from: out, may be NULL: which of the inputs decided.
 * Return: the limit, or -1 for none.
 */
int64_t sb_time_limit_effective(int64_t given, int64_t time_min,
				int64_t part_default, int64_t part_max,
				int64_t max_wall, enum sb_limit_from *from);

/* Which MaxWall Slurm's accounting enforces on a job (sb_max_wall). */
enum sb_wall_from {
	SB_WALL_NONE = 0,	/* none set, or not known */
	SB_WALL_PART_QOS,	/* its partition's QOS */
	SB_WALL_JOB_QOS,	/* its own QOS */
	SB_WALL_ASSOC,		/* its association or a parent */
};

/* The MaxWall values that may apply, seconds (<= 0 = not set). */
struct sb_wall_limits {
	int64_t part_qos;	/* the partition's QOS */
	int64_t job_qos;	/* the job's QOS */
	int64_t assoc;		/* the first set on the association path */
	bool over_part_qos;	/* the job's QOS has OverPartQOS */
	bool job_qos_unknown;	/* the job asked for a list of QOSes: which
				 * one it gets is not known at submit */
};

/*
 * sb_max_wall - the MaxWall Slurm's accounting enforces on a job (seconds,
 * -1 none): the first set of its partition's QOS and its own QOS (its own
 * first when it has OverPartQOS), then its association path's.  This is
 * acct_policy_validate's order (acct_policy_set_qos_order; a QOS's
 * MaxWall makes Slurm skip the association's, _validate_time_limit), the
 * same in Slurm 22.05 to 26.05.  With @w->job_qos_unknown only the
 * partition's QOS is judged (the job's QOS might set one, which would
 * hide the association's).  @from (may be NULL) says which applies.
 */
int64_t sb_max_wall(const struct sb_wall_limits *w, enum sb_wall_from *from);

/*
 * sb_time_cap - the longest time limit a job can be given whatever its
 * --time: the least of the partition's MaxTime and the enforced MaxWall
 * (seconds, <= 0 = not set).  @from (may be NULL) gets SB_LIMIT_PART_MAX,
 * SB_LIMIT_MAX_WALL or SB_LIMIT_NONE.  Return: the cap, or -1 for none.
 */
int64_t sb_time_cap(int64_t part_max, int64_t max_wall,
		    enum sb_limit_from *from);

/*
 * sb_contract_check - validate a job's request against the site policy.
 *
 * Refuses, in this order: a missing min runtime when the site has no
 * default; a malformed, negative or out-of-range one; one above
 * @pol->max_min_runtime; one above the longest limit the job can be given
 * (@req->time_cap: lower the minimum runtime, naming @req->cap_from); one
 * above the job's effective time limit (the protected slice could never be
 * served; the message names where the limit comes from, @req->limit_from); a malformed resumable flag;
 * resumable on an interactive job (it can never be requeued) or with
 * @req->no_requeue; min
 * runtime > 0 on an association without budget.
 *
 * @out:  the accepted contract, written only on success (requeueable =
 *        not interactive: the job's requeue flag is the resource manager's).
 * @msg:  on failure, a sentence for the user naming the value and saying what
 *        is accepted or what to do (at most @msglen bytes, NUL-terminated).
 *        On success it is set to "" (may be NULL if @msglen is 0).
 * Return: SB_OK or SB_EMISSING, SB_ESYNTAX, SB_ENEGATIVE, SB_ERANGE,
 *         SB_EABOVEMAX, SB_ENOTBATCH, SB_ENOBUDGET; SB_EINVAL for NULL
 *         @pol/@req/@out.
 */
int sb_contract_check(const struct sb_contract_policy *pol,
		      const struct sb_contract_request *req,
		      struct sb_contract *out, char *msg, size_t msglen);

/*
 * sb_contract_format - the contract as the tag stored in the job's
 * AdminComment, e.g. "budget:min_runtime=3600,resumable=yes,allocated=yes".
 * Returns the number of bytes that the full tag needs (as snprintf).
 */
int sb_contract_format(const struct sb_contract *c, char *buf, size_t len);

/*
 * sb_contract_parse_tag - read back a tag written by sb_contract_format().
 * @s may continue after the tag with a space and other text (an admin's own
 * comment).  The tag does not say whether the job can be requeued:
 * out->requeueable is false (sb_contract_of_job() sets it from the job).
 * The other text may end with preempt/budget's stop notes (sb/view.h,
 * sb_note_merge()); an AdminComment that starts with one has no tag.
 * Return: SB_OK, SB_EMISSING (no tag at the start of @s, or NULL, or a
 * stop note there), SB_ESYNTAX (a damaged tag).
 */
int sb_contract_parse_tag(const char *s, struct sb_contract *out);

/*
 * sb_contract_tag_allocated - only the allocated flag of the tag at the
 * start of @s, for hot paths (Slurm's queue sort compares jobs pairwise,
 * millions of times per pass for a long queue): a tag as
 * sb_contract_format() writes it is decided from its min_runtime field in
 * a few comparisons; anything else goes through sb_contract_parse_tag().
 * Return: 1 allocated, 0 unallocated, -1 no valid tag (missing or
 * damaged): always what sb_contract_parse_tag() decides (fuzzed:
 * test/fuzz/fuzz-contract-tag.c).
 */
int sb_contract_tag_allocated(const char *s);

/*
 * sb_bool_parse - "yes/no/true/false/1/0/on/off" (any case) into @out.
 * Return: SB_OK, SB_EMISSING (NULL), SB_ESYNTAX (anything else: invalid is
 * its own answer, never a silent "no").
 */
int sb_bool_parse(const char *s, bool *out);

/* RawShares meaning "use the parent's" (Slurm's SLURMDB_FS_USE_PARENT). */
#define SB_SHARES_USE_PARENT UINT32_C(0x7FFFFFFF)
/* The largest RawShares given as a number: one below SB_SHARES_USE_PARENT. */
#define SB_SHARES_RAW_MAX UINT32_C(2147483646)
/* What sb_shares_parse() accepts, for messages. */
#define SB_SHARES_ACCEPTED "a whole number 0..2147483646, or 'parent'"

/*
 * sb_shares_parse - RawShares (Slurm's Fairshare of an association) as
 * every reader of a budget tree takes it: "parent" in any case
 * (SB_SHARES_USE_PARENT), or decimal digits only, 0..SB_SHARES_RAW_MAX
 * (leading zeros allowed).  Stricter than sacctmgr, which reads a number
 * with strtol() (sign, leading blanks) and takes a negative one as "back
 * to the default": a tree file or `sbudget set share=` states a value.
 * @out is written only on SB_OK.
 * Return: SB_OK, SB_EMISSING (NULL or empty), SB_ESYNTAX (anything but
 * digits: a sign, blanks, a fraction, hex), SB_ERANGE (digits above
 * SB_SHARES_RAW_MAX).
 */
int sb_shares_parse(const char *s, uint32_t *out);

/*
 * sb_path_has_budget - whether an association can hold allocated jobs.
 * @raw_shares: RawShares of the association and each ancestor below the
 * root (any order), @n entries.  A budget exists when every entry is > 0
 * (SB_SHARES_USE_PARENT counts as its parent's); the leaf's entitled
 * fraction of the cluster is the product of normalised shares on the path
 * (sb/tree.h), so one zero anywhere makes it zero.
 * n == 0 (no association known) is "no budget".
 */
bool sb_path_has_budget(const uint32_t *raw_shares, size_t n);

#endif /* SB_CONTRACT_H */
