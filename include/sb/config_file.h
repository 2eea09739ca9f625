/*
 * sb/config_file.h - budget.conf's bytes, read and kept: the file half of
 * budget.conf, beside its grammar (sb/config.h).  The controller plugins
 * read and keep (plugins/common/budget_conf.c; priority/budget also its
 * saved ledger); sbudget (src/sbudget/conf.c) and sbudget-sim
 * (src/sim/input.c) read.  Errors come back as text for the caller to log
 * (the plugins through Slurm's log).
 *
 * One limit for every read: SB_CONFIG_MAX_BYTES (sb/config.h).
 */
#ifndef SB_CONFIG_FILE_H
#define SB_CONFIG_FILE_H

#include <stddef.h>
#include <sys/stat.h>

/*
 * sb_config_file_read - the whole regular file @path as a NUL-terminated
 * string.
 * Opened without blocking (a FIFO or device is refused, never waited on);
 * then sb_config_file_read_fd().
 * Return: 0 with *@text (malloc'd; the caller frees it) and *@len set;
 * 1 when @path does not exist (nothing set); -1 with @msg ("PATH: why")
 * for anything else.
 */
int sb_config_file_read(const char *path, char **text, size_t *len, char *msg,
			size_t msglen);

/*
 * sb_config_file_read_fd - read the open file @fd, whose fstat is @st, to
 * its end.  Refused (-1, @msg naming @path, what was found and what is
 * accepted): not a regular file; larger than SB_CONFIG_MAX_BYTES; a size
 * read that differs from @st's (the file was rewritten while it was read:
 * a short read is an error, never a truncated text); a NUL byte (the
 * parser would silently stop there).  Return: 0 with *@text (malloc'd,
 * NUL-terminated) and *@len, or -1.  @fd is left open.
 */
int sb_config_file_read_fd(int fd, const struct stat *st, const char *path,
			   char **text, size_t *len, char *msg, size_t msglen);

/*
 * sb_config_file_keep - make @dst hold exactly @len bytes of @text (the
 * text a reader parsed, not a second read of its file).  An identical @dst
 * is not rewritten; otherwise the bytes go to "@dst.PID.@tag", are fsync'ed and
 * renamed over @dst, so a reader sees the old copy or the new one.  @dst
 * gets the permission bits @mode (whatever the umask; an unchanged copy is
 * chmod'ed if its bits differ).
 * Return: 0 unchanged, 1 written, -1 with @msg (no temporary file left).
 */
int sb_config_file_keep(const char *dst, const char *text, size_t len,
			const char *tag, mode_t mode, char *msg, size_t msglen);

#endif /* SB_CONFIG_FILE_H */
