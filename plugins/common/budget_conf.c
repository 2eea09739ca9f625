/* budget_conf.c - read budget.conf through the policy core's grammar. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "src/common/assoc_mgr.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

#include "budget_conf.h"

/* A budget.conf is a few hundred bytes; this only stops a wrong file. */
#define BUDGET_CONF_MAX (16 * 1024 * 1024)

/*
 * The whole regular file @path as a NUL-terminated xmalloc'd string, or NULL
 * with the error logged.  @st is its stat.
 */
static char *read_text(const char *path, const struct stat *st,
		       const char *who)
{
	char *text = NULL;
	size_t len = 0, cap;
	ssize_t r;
	int fd;

	if (st->st_size > BUDGET_CONF_MAX) {
		error("%s: %s is %lld bytes: budget.conf takes at most %d; is it "
		      "the right file?", who, path, (long long)st->st_size,
		      BUDGET_CONF_MAX);
		return NULL;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		error("%s: cannot read %s: %m", who, path);
		return NULL;
	}
	/* the size may change under us: read to EOF, growing within the limit */
	cap = (size_t)st->st_size + 4096;
	text = xmalloc(cap + 1);
	while ((r = read(fd, text + len, cap - len)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			error("%s: cannot read %s: %m", who, path);
			goto fail;
		}
		len += (size_t)r;
		if (len == cap) {
			if (cap >= BUDGET_CONF_MAX) {
				error("%s: %s grew past %d bytes while being "
				      "read", who, path, BUDGET_CONF_MAX);
				goto fail;
			}
			cap *= 2;
			xrealloc(text, cap + 1);
		}
	}
	close(fd);
	text[len] = '\0';
	return text;
fail:
	xfree(text);
	close(fd);
	return NULL;
}

/* What was read: info in slurmctld, debug in clients (sshare and sprio load
 * priority/budget; 24.11's sshare shows info lines on its stderr). */
#define log_read(...)                          \
	do {                                    \
		if (running_in_slurmctld())     \
			info(__VA_ARGS__);      \
		else                            \
			debug(__VA_ARGS__);     \
	} while (0)

/*
 * Read budget.conf at @path into @cfg (the same contract as
 * budget_conf_load()); *@missing tells whether there was no file.
 */
static int load_from(const char *path, struct sb_config *cfg, const char *who,
		     bool *missing)
{
	struct sb_config next;
	char *text = NULL;
	char msg[1024], desc[512];
	struct stat st;
	int rc = SLURM_ERROR;

	sb_config_init(&next);
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			error("%s: cannot read %s: %m", who, path);
			goto out;
		}
		log_read("%s: %s not found, using defaults: %s", who, path,
			 sb_config_describe(&next, desc, sizeof(desc)));
		*missing = true;
		*cfg = next;
		rc = SLURM_SUCCESS;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error("%s: %s is not a regular file: make it one (see "
		      "budget.conf(5)) or remove it to use the defaults", who,
		      path);
		goto out;
	}
	if (!(text = read_text(path, &st, who)))
		goto out;
	/* the grammar, each value and the cross-key checks: the core's, as
	 * in sbudget and sbudget-sim */
	if (sb_config_parse(&next, text, path, msg, sizeof(msg)) != 0) {
		error("%s: %s", who, msg);
		goto out;
	}
	*cfg = next;
	log_read("%s: read %s: %s", who, path,
		 sb_config_describe(cfg, desc, sizeof(desc)));
	rc = SLURM_SUCCESS;
out:
	xfree(text);
	return rc;
}

/* Where slurmctld keeps a copy of the last budget.conf that was valid. */
static char *last_valid_path(void)
{
	return xstrdup_printf("%s/budget.conf.last-valid",
			      slurm_conf.state_save_location);
}

/* The whole file (at most 1 MiB), xmalloc'ed, or NULL. */
static char *slurp(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || st.st_size > (1 << 20)) {
		close(fd);
		return NULL;
	}
	buf = xmalloc(st.st_size + 1);
	n = read(fd, buf, st.st_size);
	close(fd);
	if (n != st.st_size) {
		xfree(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/*
 * Keep a copy of @path, just read and valid, as the last valid budget.conf
 * (unchanged copies are not rewritten; temp file + rename, so a reader sees
 * the old or the new one).
 */
static void save_last_valid(const char *path, const char *who)
{
	char *dst = last_valid_path(), *tmp = NULL, *text, *old;
	size_t len = 0, old_len = 0;
	int fd;

	if (!(text = slurp(path, &len)))
		goto out;
	old = slurp(dst, &old_len);
	if (old && old_len == len && !memcmp(old, text, len)) {
		xfree(old);
		goto out;
	}
	xfree(old);
	tmp = xstrdup_printf("%s.%d.%s", dst, (int)getpid(),
			     strchr(who, '/') ? strchr(who, '/') + 1 : who);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len || fsync(fd) < 0 ||
	    close(fd) < 0 || rename(tmp, dst) < 0) {
		error("%s: cannot keep a copy of the valid budget.conf as %s: %m",
		      who, dst);
		if (fd >= 0)
			(void)close(fd);
		(void)unlink(tmp);
	}
out:
	xfree(text);
	xfree(tmp);
	xfree(dst);
}

int budget_conf_load(struct sb_config *cfg, const char *who)
{
	char *path = get_extra_conf_path("budget.conf"), *last;
	bool missing = false, dummy = false;
	int rc = load_from(path, cfg, who, &missing);

	if (!running_in_slurmctld()) {
		/* clients (sshare, sprio load priority/budget) neither keep
		 * nor read slurmctld's copy */
	} else if (rc == SLURM_SUCCESS && !missing) {
		save_last_valid(path, who);
	} else if (rc != SLURM_SUCCESS) {
		/* A restart (on Slurm 24.11 every `scontrol reconfigure` is
		 * one) must not fall back to the defaults: the last valid
		 * file holds the settings in force before the bad edit. */
		last = last_valid_path();
		if (access(last, R_OK) == 0 &&
		    load_from(last, cfg, who, &dummy) == SLURM_SUCCESS) {
			error("%s: %s is not valid: keeping the previous "
			      "settings, from the last valid budget.conf kept "
			      "in %s, until it is fixed", who, path, last);
			rc = SLURM_SUCCESS;
		}
		xfree(last);
	}
	xfree(path);
	return rc;
}

/* The file's identity now; zeroes when it is missing. */
static void file_state(struct budget_conf_seen *now)
{
	char *path = get_extra_conf_path("budget.conf");
	struct stat st;

	memset(now, 0, sizeof(*now));
	now->conf_update = slurm_conf.last_update;
	if (stat(path, &st) == 0) {
		now->mtime = st.st_mtim;
		now->ino = st.st_ino;
		now->size = st.st_size;
	}
	xfree(path);
}

void budget_conf_mark(struct budget_conf_seen *seen)
{
	file_state(seen);
}

void budget_conf_refresh(struct sb_config *cfg, struct budget_conf_seen *seen,
			 const char *who)
{
	struct budget_conf_seen now;
	bool file_changed;

	file_state(&now);
	file_changed = now.mtime.tv_sec != seen->mtime.tv_sec ||
		       now.mtime.tv_nsec != seen->mtime.tv_nsec ||
		       now.ino != seen->ino || now.size != seen->size;
	/* Re-read on a reconfigure; or on an edit followed (in the same
	 * second) by a reconfigure we could not tell from the previous one. */
	if (now.conf_update == seen->conf_update &&
	    !(file_changed && now.conf_update >= now.mtime.tv_sec))
		return;
	*seen = now;
	if (budget_conf_load(cfg, who) != SLURM_SUCCESS)
		error("%s: keeping the previous settings until budget.conf is "
		      "fixed", who);
}

int budget_tres_pos(const char *charge_tres)
{
	slurmdb_tres_rec_t rec;
	char *type, *slash;
	int pos;

	memset(&rec, 0, sizeof(rec));
	type = xstrdup(charge_tres);
	if ((slash = strchr(type, '/'))) {
		*slash = '\0';
		rec.name = slash + 1;
	}
	rec.type = type;
	pos = assoc_mgr_find_tres_pos(&rec, false);
	xfree(type);
	return pos;
}
