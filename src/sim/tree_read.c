/*
 * tree_read.c - the readers of sbudget-sim's budget tree formats (sim.h):
 * our "path shares" lines, `sacctmgr -P show assoc`, Helios per-VC GPU
 * counts, and an association dump (`sacctmgr dump`), each into the list
 * tree.c builds (tree_list.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "input.h"
#include "tree_list.h"

/* Our format: "path shares". */
int sim__tree_ours(const char *name, char *text, struct tlist *l,
		   char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;

	while ((s = sim__next_line(&cur))) {
		char *hash;
		uint64_t shares;
		int n;

		line++;
		if ((hash = strchr(s, '#')))
			*hash = '\0';
		s = sim__trim(s);
		if (!*s)
			continue;
		n = sim__split_ws(s, f);
		if (n != 2) {
			sim__fail(msg, msglen, name, line,
			     "expected 'path shares' (two fields, e.g. "
			     "'physics/phys-a 2'), found %d", n < 0 ? MAX_FIELDS : n);
			return -1;
		}
		if (sim__parse_shares(f[1], &shares)) {
			sim__fail(msg, msglen, name, line,
			     "shares '%s' of '%s' is not accepted: give "
			     SB_SHARES_ACCEPTED, f[1], f[0]);
			return -1;
		}
		if (f[0][0] == '/' || f[0][strlen(f[0]) - 1] == '/' ||
		    strstr(f[0], "//")) {
			sim__fail(msg, msglen, name, line,
			     "path '%s' is not accepted: names separated by "
			     "single '/', e.g. 'physics/phys-a'", f[0]);
			return -1;
		}
		if (sim__tlist_find(l, f[0]) >= 0) {
			sim__fail(msg, msglen, name, line,
			     "'%s' is defined twice", f[0]);
			return -1;
		}
		if (sim__tlist_add_path(l, f[0], shares, line)) {
			sim__fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
	}
	return 0;
}

/*
 * The full path of account @i of @acc (name -> parent name, as sacctmgr
 * lists them): the chain of its parents, "top/.../name", into @path (@len
 * bytes).  Return 0, or -1 with @msg: a parent not listed, a cycle (the
 * chain is bounded by the number of accounts), a path too long.
 */
static int account_path(const struct tlist *acc, size_t i, char *path,
			size_t len, const char *name, char *msg, size_t msglen)
{
	const char *p = acc->v[i].parent;
	size_t depth = 0;
	char tmp[1024];
	int n;

	snprintf(path, len, "%s", acc->v[i].path);
	while (p) {
		ssize_t k = sim__tlist_find(acc, p);

		if (k < 0) {
			sim__fail(msg, msglen, name, acc->v[i].line,
				  "account '%s': parent '%s' is not listed",
				  acc->v[i].path, p);
			return -1;
		}
		if (++depth > acc->n) {
			sim__fail(msg, msglen, name, acc->v[i].line,
				  "account '%s' is its own ancestor",
				  acc->v[i].path);
			return -1;
		}
		n = snprintf(tmp, sizeof(tmp), "%s/%s", p, path);
		if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(tmp)) {
			sim__fail(msg, msglen, name, acc->v[i].line,
				  "account '%s': path too long",
				  acc->v[i].path);
			return -1;
		}
		memcpy(path, tmp, (size_t)n + 1);
		p = acc->v[k].parent;
	}
	return 0;
}

/*
 * `sacctmgr -P show assoc format=account,user,parentname,fairshare`.
 * About 150 lines: one pass over the lines, each refused by line number
 * with the field it names, then the accounts' paths and the users' paths
 * resolved (account_path()); the checks are the bulk, and they read the
 * fields the pass has just split.
 */
int sim__tree_sacctmgr(const char *name, char *text, struct tlist *l,
		       char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0, i;
	int ca = -1, cu = -1, cp = -1, cs = -1, n, nh = 0;
	struct tlist acc = { 0 };	/* account -> parent account */
	char **full = NULL;		/* each account's path */
	int rc = -1;

	while ((s = sim__next_line(&cur))) {
		line++;
		if (!*sim__trim(s))
			continue;
		n = sim__split(s, '|', f);
		if (ca < 0) {
			nh = n;
			ca = sim__column(f, n, "Account", NULL);
			cu = sim__column(f, n, "User", NULL);
			cp = sim__column(f, n, "Par Name", "ParentName");
			cs = sim__column(f, n, "Share", "Fairshare");
			if (ca < 0 || cp < 0 || cs < 0) {
				sim__fail(msg, msglen, name, line,
				     "not a `sacctmgr -P show assoc format="
				     "account,user,parentname,fairshare` header: "
				     "it needs Account, Par Name and Share");
				goto out;
			}
			continue;
		}
		if (n < nh) {
			sim__fail(msg, msglen, name, line,
			     "%d fields, the header has %d", n, nh);
			goto out;
		}
		if (!*f[ca]) {
			sim__fail(msg, msglen, name, line, "empty Account");
			goto out;
		}
		if (cu >= 0 && *f[cu]) {
			uint64_t sh;
			char path[512];

			if (sim__parse_shares(f[cs], &sh)) {
				sim__fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: "
				     SB_SHARES_ACCEPTED, f[cs]);
				goto out;
			}
			snprintf(path, sizeof(path), "%s\x1f%s", f[ca], f[cu]);
			if (sim__tlist_add(l, path, f[ca], sh, line))
				goto oom;
		} else if (strcmp(f[ca], "root")) {
			uint64_t sh;
			const char *par = f[cp];

			if (sim__parse_shares(f[cs], &sh)) {
				sim__fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: "
				     SB_SHARES_ACCEPTED, f[cs]);
				goto out;
			}
			if (!*par || !strcmp(par, "root"))
				par = NULL;
			if (sim__tlist_find(&acc, f[ca]) >= 0) {
				sim__fail(msg, msglen, name, line,
				     "account '%s' listed twice", f[ca]);
				goto out;
			}
			if (sim__tlist_add(&acc, f[ca], par, sh, line))
				goto oom;
		}
	}
	if (ca < 0) {
		sim__fail(msg, msglen, name, 0, "empty: no header");
		goto out;
	}
	/* Accounts: path = chain of parents, looked up by their names: every
	 * path is made before any name is replaced by its path. */
	if (!(full = calloc(acc.n + 1, sizeof(*full))))
		goto oom;
	for (i = 0; i < acc.n; i++) {
		char path[1024];

		if (account_path(&acc, i, path, sizeof(path), name, msg,
				 msglen))
			goto out;
		if (!(full[i] = strdup(path)))
			goto oom;
	}
	for (i = 0; i < acc.n; i++) {
		free(acc.v[i].path);
		acc.v[i].path = full[i];
		full[i] = NULL;
	}
	sim__tlist_reindex(&acc);
	/* Users first recorded with their account name: resolve paths.  A
	 * user association of the root account (root's own, "root|root||0")
	 * is a top-level node, as in a dump. */
	for (i = 0; i < l->n; i++) {
		char *sep = strchr(l->v[i].path, '\x1f');
		char path[1024];
		size_t k;

		if (!strcmp(l->v[i].parent, "root")) {
			char *user = strdup(sep + 1);

			if (!user)
				goto oom;
			free(l->v[i].path);
			free(l->v[i].parent);
			l->v[i].path = user;
			l->v[i].parent = NULL;
			continue;
		}
		for (k = 0; k < acc.n; k++) {
			const char *last = strrchr(acc.v[k].path, '/');

			last = last ? last + 1 : acc.v[k].path;
			if (!strcmp(last, l->v[i].parent))
				break;
		}
		if (k == acc.n) {
			sim__fail(msg, msglen, name, l->v[i].line,
			     "user association under account '%s', which is "
			     "not listed", l->v[i].parent);
			goto out;
		}
		snprintf(path, sizeof(path), "%s/%s", acc.v[k].path, sep + 1);
		free(l->v[i].path);
		free(l->v[i].parent);
		l->v[i].path = strdup(path);
		l->v[i].parent = strdup(acc.v[k].path);
		if (!l->v[i].path || !l->v[i].parent)
			goto oom;
	}
	sim__tlist_reindex(l);	/* the users' paths changed */
	for (i = 0; i < acc.n; i++)
		if (sim__tlist_add_path(l, acc.v[i].path, acc.v[i].shares, acc.v[i].line))
			goto oom;
	rc = 0;
	goto out;
oom:
	sim__fail(msg, msglen, name, line, "out of memory");
out:
	for (i = 0; full && i < acc.n; i++)
		free(full[i]);
	free(full);
	sim__tlist_free(&acc);
	return rc;
}

/* Helios: date,<vc...>,total; shares = column sums. */
int sim__tree_helios(const char *name, char *text, struct tlist *l,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	char *hdr[MAX_FIELDS];
	uint64_t sum[MAX_FIELDS] = { 0 };
	size_t line = 0;
	int n, nh = 0, i, tot = -1;

	while ((s = sim__next_line(&cur))) {
		line++;
		if (!*sim__trim(s))
			continue;
		n = sim__split(s, ',', f);
		if (!nh) {
			if (n < 2) {
				sim__fail(msg, msglen, name, line,
				     "Helios header needs date and VC columns");
				return -1;
			}
			nh = n;
			for (i = 0; i < n; i++)
				hdr[i] = f[i];
			tot = sim__column(f, n, "total", NULL);
			continue;
		}
		if (n != nh) {
			sim__fail(msg, msglen, name, line,
			     "%d fields, the header has %d", n, nh);
			return -1;
		}
		for (i = 1; i < n; i++) {
			int64_t v;

			if (i == tot)
				continue;
			if (sim__parse_i64(f[i], &v) || v < 0 || v > 1000000000) {
				sim__fail(msg, msglen, name, line,
				     "'%s' for %s is not a GPU count (a whole "
				     "number 0..1e9)", f[i], hdr[i]);
				return -1;
			}
			sum[i] += (uint64_t)v;
		}
	}
	for (i = 1; i < nh; i++)
		if (i != tot && sim__tlist_add(l, hdr[i], NULL, sum[i], 1)) {
			sim__fail(msg, msglen, name, 0, "out of memory");
			return -1;
		}
	return 0;
}

/* The value of 'Key=' in a dump line ("Fairshare=3" or "Fairshare='3'"),
 * copied to @out; false if absent. */
static bool dump_field(const char *line, const char *key, char *out,
		       size_t len)
{
	const char *p = line;
	size_t kl = strlen(key), n = 0;

	while ((p = strstr(p, key))) {
		if ((p == line || p[-1] == ':') && p[kl] == '=') {
			p += kl + 1;
			if (*p == '\'')
				p++;
			while (*p && *p != '\'' && *p != ':' && n + 1 < len)
				out[n++] = *p++;
			out[n] = '\0';
			return true;
		}
		p += kl;
	}
	return false;
}

/* The quoted name after "Kind - '": copied to @out; false if malformed. */
static bool dump_name(const char *line, char *out, size_t len)
{
	const char *q = strstr(line, " - '"), *e;

	if (!q)
		return false;
	q += 4;
	e = strchr(q, '\'');
	if (!e || e == q || (size_t)(e - q) >= len)
		return false;
	memcpy(out, q, (size_t)(e - q));
	out[e - q] = '\0';
	return true;
}

/*
 * `sacctmgr dump CLUSTER` flat file ("Cluster - " and, from Slurm 26.05 on,
 * "QOS - " lines skipped): "Parent - 'ACCOUNT'" sets where the
 * following "Account - 'NAME':...:Fairshare=N" and "User - 'NAME':...:
 * Fairshare=N" lines go (Fairshare absent = 1, Slurm's default; "parent"
 * allowed).  Accounts under 'root' are top-level; users are leaves
 * "account path/user".  About 120 lines: one pass, a case per kind of
 * line, each refused by line number with what is accepted, then the
 * paths resolved (account_path()).
 */
int sim__tree_dump(const char *name, char *text, struct tlist *l,
		   char *msg, size_t msglen)
{
	char *cur = text, *s;
	char parent[256] = "", nm[256], fs[64], path[1024];
	size_t line = 0;
	struct tlist acc = { 0 };	/* account name -> parent name */
	struct tlist usr = { 0 };	/* user "parent\x1fname" */
	size_t i;
	int rc = -1;

	while ((s = sim__next_line(&cur))) {
		uint64_t sh = 1;
		bool is_acct, is_user;

		line++;
		s = sim__trim(s);
		/* QOS definitions (Slurm 26.05's dump) say nothing of the
		 * tree */
		if (!*s || *s == '#' || !strncmp(s, "Cluster - ", 10) ||
		    !strncmp(s, "QOS - ", 6))
			continue;
		if (!strncmp(s, "Parent - ", 9)) {
			if (!dump_name(s, parent, sizeof(parent))) {
				sim__fail(msg, msglen, name, line, "expected "
				     "Parent - 'ACCOUNT'");
				goto out;
			}
			continue;
		}
		is_acct = !strncmp(s, "Account - ", 10);
		is_user = !strncmp(s, "User - ", 7);
		if (!is_acct && !is_user) {
			sim__fail(msg, msglen, name, line, "not a line of "
			     "`sacctmgr dump`: expected Cluster, QOS, Parent, "
			     "Account or User - 'NAME'");
			goto out;
		}
		if (!*parent) {
			sim__fail(msg, msglen, name, line, "%s before any Parent "
			     "line", is_acct ? "Account" : "User");
			goto out;
		}
		if (!dump_name(s, nm, sizeof(nm))) {
			sim__fail(msg, msglen, name, line, "expected %s - 'NAME'",
			     is_acct ? "Account" : "User");
			goto out;
		}
		if (dump_field(s, "Fairshare", fs, sizeof(fs)) &&
		    sim__parse_shares(fs, &sh)) {
			sim__fail(msg, msglen, name, line, "Fairshare '%s' is not "
			     "accepted: " SB_SHARES_ACCEPTED, fs);
			goto out;
		}
		if (is_acct) {
			if (sim__tlist_find(&acc, nm) >= 0) {
				sim__fail(msg, msglen, name, line,
				     "account '%s' listed twice", nm);
				goto out;
			}
			if (sim__tlist_add(&acc, nm, strcmp(parent, "root") ?
				      parent : NULL, sh, line))
				goto oom;
		} else {
			snprintf(path, sizeof(path), "%s\x1f%s", parent, nm);
			if (sim__tlist_add(&usr, path, parent, sh, line))
				goto oom;
		}
	}
	/* account paths: chains of parents */
	for (i = 0; i < acc.n; i++) {
		if (account_path(&acc, i, path, sizeof(path), name, msg,
				 msglen))
			goto out;
		if (sim__tlist_add_path(l, path, acc.v[i].shares, acc.v[i].line))
			goto oom;
	}
	for (i = 0; i < usr.n; i++) {
		const char *u = strchr(usr.v[i].path, '\x1f') + 1;
		const char *par = usr.v[i].parent;

		if (!strcmp(par, "root")) {
			snprintf(path, sizeof(path), "%s", u);
		} else {
			size_t k;

			for (k = 0; k < l->n; k++) {
				const char *last = strrchr(l->v[k].path, '/');

				if (!strcmp(last ? last + 1 : l->v[k].path, par))
					break;
			}
			if (k == l->n) {
				sim__fail(msg, msglen, name, usr.v[i].line,
				     "user '%s' under account '%s', which is "
				     "not listed", u, par);
				goto out;
			}
			snprintf(path, sizeof(path), "%s/%s", l->v[k].path, u);
		}
		if (sim__tlist_find(l, path) >= 0) {
			sim__fail(msg, msglen, name, usr.v[i].line,
			     "'%s' is listed twice", path);
			goto out;
		}
		if (sim__tlist_add_path(l, path, usr.v[i].shares, usr.v[i].line))
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	sim__fail(msg, msglen, name, line, "out of memory");
out:
	sim__tlist_free(&acc);
	sim__tlist_free(&usr);
	return rc;
}
