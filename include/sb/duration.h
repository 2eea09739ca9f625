/*
 * sb/duration.h - durations in Slurm's time syntax, and quoting user input.
 */
#ifndef SB_DURATION_H
#define SB_DURATION_H

#include <stddef.h>
#include <stdint.h>

/* Largest duration sb_duration_parse() accepts: 365 days, in seconds. */
#define SB_DURATION_MAX ((int64_t)365 * 24 * 3600)

/*
 * sb_duration_parse - parse a duration written as for `sbatch --time`.
 *
 * Accepted (the grammar of Slurm's time_str2mins, src/common/parse_time.c):
 *   "M"  "M:S"  "H:M:S"  "D-H"  "D-H:M"  "D-H:M:S"
 * where every field is ASCII decimal digits and M, S < 60 wherever they follow
 * another field, H < 24 after "D-".  A lone "M" may be any size ("90" is
 * 90 minutes).  Stricter than Slurm: no spaces, signs, units, or the words
 * INFINITE/UNLIMITED, and at most SB_DURATION_MAX seconds.
 *
 * @s:    NUL-terminated text, not modified; NULL gives SB_EMISSING.
 * @secs: out, the duration in seconds (only written on success).
 * Return: SB_OK; SB_EMISSING (NULL), SB_ESYNTAX (empty or not in the grammar),
 *         SB_ENEGATIVE (starts with '-'), SB_ERANGE (above SB_DURATION_MAX).
 */
int sb_duration_parse(const char *s, int64_t *secs);

/*
 * sb_duration_format - write @secs (>= 0) as "H:MM:SS" or "D-HH:MM:SS", the
 * form Slurm prints.  Always NUL-terminates a non-empty @buf; returns @buf.
 */
char *sb_duration_format(int64_t secs, char *buf, size_t len);

/*
 * sb_quote - copy user-supplied @s into @buf for an error message: control and
 * non-ASCII bytes become \xNN and text beyond 48 bytes is cut and marked
 * "...", so a message never carries terminal escapes or megabytes of input.
 * NULL prints as "(null)".  Always NUL-terminates a non-empty @buf; returns @buf.
 */
char *sb_quote(const char *s, char *buf, size_t len);

/*
 * sb_quote_path - sb_quote() for a file name: the name is cut only where @buf
 * (of @len bytes) ends, so a deep path is named whole in a message.
 */
char *sb_quote_path(const char *s, char *buf, size_t len);

/*
 * sb_time_parse_iso - a point in time written YYYY-MM-DD[THH:MM[:SS][Z]]
 * into seconds since the epoch: in UTC with the Z, else in local time (as
 * Slurm's own commands read dates; the time zone is the process's, TZ).
 * A local time that occurs twice (the hour a clock is set back) is one of
 * the two, as mktime() picks.  No clock is read.
 * Return: 0 and *@out set; -1 when NULL, malformed or out of range (before
 * the epoch, month 13, February 30, hour 24, ...); -2 when the local time
 * does not exist (a daylight-saving gap).
 */
int sb_time_parse_iso(const char *s, int64_t *out);

/*
 * sb_time_format_iso - @t (seconds since the epoch) as local
 * "YYYY-MM-DDTHH:MM:SS", the form sb_time_parse_iso() reads.  Always
 * NUL-terminates a non-empty @buf; returns @buf.
 */
char *sb_time_format_iso(int64_t t, char *buf, size_t len);

#endif /* SB_DURATION_H */
