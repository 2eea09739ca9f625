/* config_file.c - budget.conf's bytes, read and kept (sb/config_file.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sb/config.h"
#include "sb/config_file.h"

int sb_config_file_read_fd(int fd, const struct stat *st, const char *path,
			   char **text, size_t *len, char *msg, size_t msglen)
{
	size_t want, got = 0;
	char *buf = NULL;
	ssize_t r;
	int rv = -1;

	if (!S_ISREG(st->st_mode)) {
		snprintf(msg, msglen, "%s is not a regular file: make it one "
			 "(see budget.conf(5)) or remove it to use the "
			 "defaults", path);
		goto out;
	}
	if (st->st_size < 0 || st->st_size > SB_CONFIG_MAX_BYTES) {
		snprintf(msg, msglen, "%s is %lld bytes: budget.conf takes at "
			 "most %d; is it the right file?", path,
			 (long long)st->st_size, SB_CONFIG_MAX_BYTES);
		goto out;
	}
	want = (size_t)st->st_size;
	/* one byte more than expected: a file that grew is seen to */
	if (!(buf = malloc(want + 2))) {
		snprintf(msg, msglen, "%s: out of memory", path);
		goto out;
	}
	while (got < want + 1) {
		r = read(fd, buf + got, want + 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			snprintf(msg, msglen, "cannot read %s: %s", path,
				 strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != want) {
		/* a short read is an error, never a truncated text */
		snprintf(msg, msglen, "%s changed while it was read (%zu bytes "
			 "when opened, %s %zu): write it elsewhere and rename it "
			 "into place", path, want,
			 got < want ? "only" : "more than", got < want ? got : want);
		goto out;
	}
	buf[got] = '\0';
	if (memchr(buf, '\0', got)) {
		snprintf(msg, msglen, "%s contains a NUL byte at offset %zu: "
			 "budget.conf is a text file", path,
			 (size_t)((char *)memchr(buf, '\0', got) - buf));
		goto out;
	}
	*text = buf;
	*len = got;
	buf = NULL;
	rv = 0;
out:
	free(buf);
	return rv;
}

int sb_config_file_read(const char *path, char **text, size_t *len, char *msg,
			size_t msglen)
{
	struct stat st;
	int fd, rv;

	/* O_NONBLOCK: opening a FIFO must not wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		snprintf(msg, msglen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		snprintf(msg, msglen, "cannot read %s: %s", path,
			 strerror(errno));
		rv = -1;
	} else {
		rv = sb_config_file_read_fd(fd, &st, path, text, len, msg, msglen);
	}
	close(fd);
	return rv;
}

/* Write all of @text to @fd. */
static int write_all(int fd, const char *text, size_t len)
{
	size_t off = 0;
	ssize_t w;

	while (off < len) {
		w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int sb_config_file_keep(const char *dst, const char *text, size_t len,
			const char *tag, mode_t mode, char *msg, size_t msglen)
{
	char *old = NULL, *tmp = NULL, ignore[256];
	size_t old_len = 0, n;
	int fd = -1, rv = -1;

	if (sb_config_file_read(dst, &old, &old_len, ignore, sizeof(ignore)) == 0 &&
	    old_len == len && !memcmp(old, text, len)) {
		struct stat st;

		/* a copy kept before with other permission bits */
		if (stat(dst, &st) == 0 && (st.st_mode & 07777) != mode &&
		    chmod(dst, mode) < 0) {
			snprintf(msg, msglen, "cannot chmod %s: %s", dst,
				 strerror(errno));
			goto out;
		}
		rv = 0;
		goto out;
	}
	n = strlen(dst) + strlen(tag) + 32;
	if (!(tmp = malloc(n))) {
		snprintf(msg, msglen, "%s: out of memory", dst);
		goto out;
	}
	snprintf(tmp, n, "%s.%ld.%s", dst, (long)getpid(), tag);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	/* fchmod: the bits asked for, whatever the umask */
	if (fd < 0 || fchmod(fd, mode) < 0 || write_all(fd, text, len) < 0 ||
	    fsync(fd) < 0) {
		snprintf(msg, msglen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto fail;
	}
	if (close(fd) < 0) {
		fd = -1;
		snprintf(msg, msglen, "cannot write %s: %s", tmp,
			 strerror(errno));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, dst) < 0) {
		snprintf(msg, msglen, "cannot rename %s to %s: %s", tmp, dst,
			 strerror(errno));
		goto fail;
	}
	rv = 1;
	goto out;
fail:
	if (fd >= 0)
		(void)close(fd);
	(void)unlink(tmp);
out:
	free(old);
	free(tmp);
	return rv;
}
