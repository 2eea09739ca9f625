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

int budget_conf_load(struct sb_config *cfg, const char *who)
{
	struct sb_config next;
	char *path = get_extra_conf_path("budget.conf");
	char *text = NULL;
	char msg[1024], desc[256];
	struct stat st;
	int rc = SLURM_ERROR;

	sb_config_init(&next);
	if (stat(path, &st) < 0) {
		if (errno != ENOENT) {
			error("%s: cannot read %s: %m", who, path);
			goto out;
		}
		info("%s: %s not found, using defaults: %s", who, path,
		     sb_config_describe(&next, desc, sizeof(desc)));
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
	info("%s: read %s: %s", who, path,
	     sb_config_describe(cfg, desc, sizeof(desc)));
	rc = SLURM_SUCCESS;
out:
	xfree(text);
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
