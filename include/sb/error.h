/*
 * sb/error.h - error codes of the slurm-budget policy core.
 *
 * Every core function that can fail returns 0 (SB_OK) or one of the negative
 * codes below; sb_strerror() turns a code into a short English phrase.  The
 * functions that refuse user input also write a full sentence, naming the
 * value and saying what is accepted, into a caller-supplied buffer.
 */
#ifndef SB_ERROR_H
#define SB_ERROR_H

enum sb_error {
	SB_OK = 0,
	SB_EMISSING = -1,	/* a required value was not given */
	SB_ESYNTAX = -2,	/* not in the accepted syntax */
	SB_ENEGATIVE = -3,	/* a negative value where none is allowed */
	SB_ERANGE = -4,		/* a number too large to represent */
	SB_EABOVEMAX = -5,	/* above a configured maximum */
	SB_ENOBUDGET = -6,	/* an allocation asked for without a budget */
	SB_EUNKNOWNKEY = -7,	/* configuration key not known */
	SB_EINVAL = -8,		/* invalid argument from the caller (a bug) */
	SB_ENOMEM = -9,		/* out of memory */
	SB_EDUPLICATE = -10,	/* the same association or job id twice */
	SB_ENOPARENT = -11,	/* an association's parent is not in the tree */
	SB_ECYCLE = -12,	/* associations form a cycle, not a tree */
	SB_ENOTFOUND = -13,	/* no such association id */
	SB_ECORRUPT = -14,	/* a saved document is malformed or inconsistent */
	SB_EVERSION = -15,	/* a saved document of an unknown format version */
	SB_ENOTBATCH = -16,	/* resumable asked for a job that cannot be
				 * requeued (not a batch job, or
				 * --no-requeue) */
};

/*
 * sb_strerror - a static, never NULL, description of an sb_error code.
 * Unknown codes give "unknown error".
 */
const char *sb_strerror(int err);

#endif /* SB_ERROR_H */
