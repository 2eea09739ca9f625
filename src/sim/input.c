/*
 * input.c - job tables, budget trees and budget.conf for sbudget-sim.
 *
 * Every refusal names the file and line and says what is accepted.
 * Numbers are read with strtoll/strtod and an end-pointer check.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sim.h"

#define MAX_FIELDS 64

static void fail(char *msg, size_t msglen, const char *name, size_t line,
		 const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void fail(char *msg, size_t msglen, const char *name, size_t line,
		 const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!msg || !msglen)
		return;
	n = line ? snprintf(msg, msglen, "%s:%zu: ", name, line)
		 : snprintf(msg, msglen, "%s: ", name);
	if (n < 0 || (size_t)n >= msglen)
		return;
	va_start(ap, fmt);
	vsnprintf(msg + n, msglen - (size_t)n, fmt, ap);
	va_end(ap);
}

char *sim_slurp(const char *file, char *msg, size_t msglen)
{
	FILE *f = fopen(file, "rb");
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, got;

	if (!f) {
		fail(msg, msglen, file, 0, "cannot open: %s", strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				fail(msg, msglen, file, 0, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fail(msg, msglen, file, 0, "read error");
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		fail(msg, msglen, file, 0, "contains a NUL byte: not a text file");
		free(buf);
		return NULL;
	}
	return buf;
}

/* Next line of *cur (NUL-terminated in place, CR stripped), or NULL. */
static char *next_line(char **cur)
{
	char *s = *cur, *nl;
	size_t n;

	if (!s || !*s)
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*cur = nl + 1;
	} else {
		*cur = s + strlen(s);
	}
	n = strlen(s);
	if (n && s[n - 1] == '\r')
		s[n - 1] = '\0';
	return s;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	return s;
}

/* Split @s on @sep into at most MAX_FIELDS trimmed fields; -1 if more. */
static int split(char *s, char sep, char **f)
{
	int n = 0;

	for (;;) {
		char *e = strchr(s, sep);

		if (n == MAX_FIELDS)
			return -1;
		if (e)
			*e = '\0';
		f[n++] = trim(s);
		if (!e)
			return n;
		s = e + 1;
	}
}

/* Split on runs of blanks (SWF). */
static int split_ws(char *s, char **f)
{
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == MAX_FIELDS)
			return -1;
		f[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* A decimal integer, the whole field.  0 or -1. */
static int parse_i64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* A finite decimal number, the whole field.  0 or -1. */
static int parse_num(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

/* -------------------------------------------------------------- seeding */

static uint64_t splitmix(uint64_t x)
{
	x += UINT64_C(0x9E3779B97F4A7C15);
	x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

double sim_rand(uint64_t seed, uint64_t a, uint64_t b)
{
	uint64_t h = splitmix(splitmix(splitmix(seed) ^ a) ^ (b * 0x100000001B3));

	return (double)(h >> 11) * 0x1.0p-53;
}

/* ------------------------------------------------------------------ tree */

void sim_tree_free(struct sim_tree *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; t->path && i < t->n; i++)
		free(t->path[i]);
	free(t->path);
	sb_tree_free(t->tree);
	memset(t, 0, sizeof(*t));
}

uint32_t sim_tree_find(const struct sim_tree *t, const char *path)
{
	uint32_t i, found = SB_NONE, nfound = 0;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->path[i], path))
			return i;
	for (i = 0; i < t->n; i++) {
		const char *slash = strrchr(t->path[i], '/');

		if (slash && !strcmp(slash + 1, path)) {
			found = i;
			nfound++;
		}
	}
	return nfound == 1 ? found : SB_NONE;
}

/* Pending nodes while a tree is read: id = position + 1. */
struct tnode {
	char *path;
	char *parent;		/* path of the parent, NULL at the top */
	uint64_t shares;
	size_t line;
};

struct tlist {
	struct tnode *v;
	size_t n, cap;
};

static int tlist_add(struct tlist *l, const char *path, const char *parent,
		     uint64_t shares, size_t line)
{
	struct tnode *nv;

	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 32;
		nv = realloc(l->v, l->cap * sizeof(*nv));
		if (!nv)
			return -1;
		l->v = nv;
	}
	l->v[l->n].path = strdup(path);
	l->v[l->n].parent = parent ? strdup(parent) : NULL;
	l->v[l->n].shares = shares;
	l->v[l->n].line = line;
	if (!l->v[l->n].path || (parent && !l->v[l->n].parent))
		return -1;
	l->n++;
	return 0;
}

/* Add @path with its parent = everything before the last '/'. */
static int add_path(struct tlist *l, const char *path, uint64_t shares,
		    size_t line)
{
	const char *slash = strrchr(path, '/');
	char *parent = NULL;
	int rc;

	if (slash && !(parent = strndup(path, (size_t)(slash - path))))
		return -1;
	rc = tlist_add(l, path, parent, shares, line);
	free(parent);
	return rc;
}

static void tlist_free(struct tlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].parent);
	}
	free(l->v);
}

static ssize_t tlist_find(const struct tlist *l, const char *path)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path))
			return (ssize_t)i;
	return -1;
}

static int parse_shares(const char *s, uint64_t *out)
{
	int64_t v;

	if (!strcasecmp(s, "parent")) {
		*out = SB_SHARES_USE_PARENT;
		return 0;
	}
	if (parse_i64(s, &v) || v < 0 || (uint64_t)v > SB_SHARES_MAX)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* Build the sb_tree from @l; paths become the node names. */
static int tlist_build(const struct tlist *l, const char *name,
		       struct sim_tree *out, char *msg, size_t msglen)
{
	struct sb_tree *tr = sb_tree_new();
	size_t i;
	int rc;

	if (!tr) {
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < l->n; i++) {
		uint32_t pid = 0;

		if (l->v[i].parent) {
			ssize_t p = tlist_find(l, l->v[i].parent);

			if (p < 0) {
				fail(msg, msglen, name, l->v[i].line,
				     "'%s': its parent '%s' is not defined; "
				     "define every budget's parent too",
				     l->v[i].path, l->v[i].parent);
				sb_tree_free(tr);
				return -1;
			}
			pid = (uint32_t)p + 1;
		}
		rc = sb_tree_add(tr, (uint32_t)i + 1, pid, l->v[i].shares,
				 l->v[i].path);
		if (rc != SB_OK) {
			fail(msg, msglen, name, l->v[i].line, "'%s': %s",
			     l->v[i].path, sb_strerror(rc));
			sb_tree_free(tr);
			return -1;
		}
	}
	rc = sb_tree_finalize(tr);
	if (rc != SB_OK) {
		uint32_t bad = sb_tree_bad_id(tr);

		fail(msg, msglen, name, bad ? l->v[bad - 1].line : 0,
		     "budget tree: %s", sb_strerror(rc));
		sb_tree_free(tr);
		return -1;
	}
	out->tree = tr;
	out->n = sb_tree_count(tr);
	out->path = calloc(out->n ? out->n : 1, sizeof(char *));
	if (!out->path) {
		sim_tree_free(out);
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < out->n; i++) {
		out->path[i] = strdup(sb_tree_node(tr, (uint32_t)i)->name);
		if (!out->path[i]) {
			sim_tree_free(out);
			fail(msg, msglen, name, 0, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* Our format: "path shares". */
static int tree_ours(const char *name, char *text, struct tlist *l,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;

	while ((s = next_line(&cur))) {
		char *hash;
		uint64_t shares;
		int n;

		line++;
		if ((hash = strchr(s, '#')))
			*hash = '\0';
		s = trim(s);
		if (!*s)
			continue;
		n = split_ws(s, f);
		if (n != 2) {
			fail(msg, msglen, name, line,
			     "expected 'path shares' (two fields, e.g. "
			     "'physics/phys-a 2'), found %d", n < 0 ? MAX_FIELDS : n);
			return -1;
		}
		if (parse_shares(f[1], &shares)) {
			fail(msg, msglen, name, line,
			     "shares '%s' of '%s' is not accepted: give a whole "
			     "number 0..%" PRIu64 " or 'parent'", f[1], f[0],
			     (uint64_t)SB_SHARES_MAX);
			return -1;
		}
		if (f[0][0] == '/' || f[0][strlen(f[0]) - 1] == '/' ||
		    strstr(f[0], "//")) {
			fail(msg, msglen, name, line,
			     "path '%s' is not accepted: names separated by "
			     "single '/', e.g. 'physics/phys-a'", f[0]);
			return -1;
		}
		if (tlist_find(l, f[0]) >= 0) {
			fail(msg, msglen, name, line,
			     "'%s' is defined twice", f[0]);
			return -1;
		}
		if (add_path(l, f[0], shares, line)) {
			fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* Find a header column by any of the names; -1 if absent. */
static int column(char **f, int n, const char *a, const char *b)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcasecmp(f[i], a) || (b && !strcasecmp(f[i], b)))
			return i;
	return -1;
}

/* sacctmgr -P show assoc format=account,user,parentname,fairshare */
static int tree_sacctmgr(const char *name, char *text, struct tlist *l,
			 char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0, i;
	int ca = -1, cu = -1, cp = -1, cs = -1, n, nh = 0;
	struct tlist acc = { 0 };	/* account -> parent account */
	int rc = -1;

	while ((s = next_line(&cur))) {
		line++;
		if (!*trim(s))
			continue;
		n = split(s, '|', f);
		if (ca < 0) {
			nh = n;
			ca = column(f, n, "Account", NULL);
			cu = column(f, n, "User", NULL);
			cp = column(f, n, "Par Name", "ParentName");
			cs = column(f, n, "Share", "Fairshare");
			if (ca < 0 || cp < 0 || cs < 0) {
				fail(msg, msglen, name, line,
				     "not a `sacctmgr -P show assoc format="
				     "account,user,parentname,fairshare` header: "
				     "it needs Account, Par Name and Share");
				goto out;
			}
			continue;
		}
		if (n < nh) {
			fail(msg, msglen, name, line,
			     "%d fields, the header has %d", n, nh);
			goto out;
		}
		if (!*f[ca]) {
			fail(msg, msglen, name, line, "empty Account");
			goto out;
		}
		if (cu >= 0 && *f[cu]) {
			uint64_t sh;
			char path[512];

			if (parse_shares(f[cs], &sh)) {
				fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: a whole "
				     "number or 'parent'", f[cs]);
				goto out;
			}
			snprintf(path, sizeof(path), "%s\x1f%s", f[ca], f[cu]);
			if (tlist_add(l, path, f[ca], sh, line))
				goto oom;
		} else if (strcmp(f[ca], "root")) {
			uint64_t sh;
			const char *par = f[cp];

			if (parse_shares(f[cs], &sh)) {
				fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: a whole "
				     "number or 'parent'", f[cs]);
				goto out;
			}
			if (!*par || !strcmp(par, "root"))
				par = NULL;
			if (tlist_find(&acc, f[ca]) >= 0) {
				fail(msg, msglen, name, line,
				     "account '%s' listed twice", f[ca]);
				goto out;
			}
			if (tlist_add(&acc, f[ca], par, sh, line))
				goto oom;
		}
	}
	if (ca < 0) {
		fail(msg, msglen, name, 0, "empty: no header");
		goto out;
	}
	/* Accounts: path = chain of parents (bounded: a cycle is refused). */
	for (i = 0; i < acc.n; i++) {
		char path[1024], tmp[1024];
		const char *p = acc.v[i].parent;
		size_t depth = 0;

		snprintf(path, sizeof(path), "%s", acc.v[i].path);
		while (p) {
			ssize_t k = tlist_find(&acc, p);

			if (k < 0) {
				fail(msg, msglen, name, acc.v[i].line,
				     "account '%s': parent '%s' is not listed",
				     acc.v[i].path, p);
				goto out;
			}
			if (++depth > acc.n) {
				fail(msg, msglen, name, acc.v[i].line,
				     "account '%s' is its own ancestor",
				     acc.v[i].path);
				goto out;
			}
			if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", p,
					     path) >= sizeof(path)) {
				fail(msg, msglen, name, acc.v[i].line,
				     "account '%s': path too long",
				     acc.v[i].path);
				goto out;
			}
			memcpy(path, tmp, sizeof(path));
			p = acc.v[k].parent;
		}
		free(acc.v[i].path);
		acc.v[i].path = strdup(path);
		if (!acc.v[i].path)
			goto oom;
	}
	/* Users first recorded with their account name: resolve paths. */
	for (i = 0; i < l->n; i++) {
		char *sep = strchr(l->v[i].path, '\x1f');
		char path[1024];
		size_t k;

		for (k = 0; k < acc.n; k++) {
			const char *last = strrchr(acc.v[k].path, '/');

			last = last ? last + 1 : acc.v[k].path;
			if (!strcmp(last, l->v[i].parent))
				break;
		}
		if (k == acc.n) {
			fail(msg, msglen, name, l->v[i].line,
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
	for (i = 0; i < acc.n; i++)
		if (add_path(l, acc.v[i].path, acc.v[i].shares, acc.v[i].line))
			goto oom;
	rc = 0;
	goto out;
oom:
	fail(msg, msglen, name, line, "out of memory");
out:
	tlist_free(&acc);
	return rc;
}

/* Helios: date,<vc...>,total; shares = column sums. */
static int tree_helios(const char *name, char *text, struct tlist *l,
		       char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	char *hdr[MAX_FIELDS];
	uint64_t sum[MAX_FIELDS] = { 0 };
	size_t line = 0;
	int n, nh = 0, i, tot = -1;

	while ((s = next_line(&cur))) {
		line++;
		if (!*trim(s))
			continue;
		n = split(s, ',', f);
		if (!nh) {
			if (n < 2) {
				fail(msg, msglen, name, line,
				     "Helios header needs date and VC columns");
				return -1;
			}
			nh = n;
			for (i = 0; i < n; i++)
				hdr[i] = f[i];
			tot = column(f, n, "total", NULL);
			continue;
		}
		if (n != nh) {
			fail(msg, msglen, name, line,
			     "%d fields, the header has %d", n, nh);
			return -1;
		}
		for (i = 1; i < n; i++) {
			int64_t v;

			if (i == tot)
				continue;
			if (parse_i64(f[i], &v) || v < 0 || v > 1000000000) {
				fail(msg, msglen, name, line,
				     "'%s' for %s is not a GPU count (a whole "
				     "number 0..1e9)", f[i], hdr[i]);
				return -1;
			}
			sum[i] += (uint64_t)v;
		}
	}
	for (i = 1; i < nh; i++)
		if (i != tot && tlist_add(l, hdr[i], NULL, sum[i], 1)) {
			fail(msg, msglen, name, 0, "out of memory");
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
 * `sacctmgr dump CLUSTER` flat file: "Parent - 'ACCOUNT'" sets where the
 * following "Account - 'NAME':...:Fairshare=N" and "User - 'NAME':...:
 * Fairshare=N" lines go (Fairshare absent = 1, Slurm's default; "parent"
 * allowed).  Accounts under 'root' are top-level; users are leaves
 * "account path/user".
 */
static int tree_dump(const char *name, char *text, struct tlist *l,
		     char *msg, size_t msglen)
{
	char *cur = text, *s;
	char parent[256] = "", nm[256], fs[64], path[1024];
	size_t line = 0;
	struct tlist acc = { 0 };	/* account name -> parent name */
	struct tlist usr = { 0 };	/* user "parent\x1fname" */
	size_t i;
	int rc = -1;

	while ((s = next_line(&cur))) {
		uint64_t sh = 1;
		bool is_acct, is_user;

		line++;
		s = trim(s);
		if (!*s || *s == '#' || !strncmp(s, "Cluster - ", 10))
			continue;
		if (!strncmp(s, "Parent - ", 9)) {
			if (!dump_name(s, parent, sizeof(parent))) {
				fail(msg, msglen, name, line, "expected "
				     "Parent - 'ACCOUNT'");
				goto out;
			}
			continue;
		}
		is_acct = !strncmp(s, "Account - ", 10);
		is_user = !strncmp(s, "User - ", 7);
		if (!is_acct && !is_user) {
			fail(msg, msglen, name, line, "not a line of "
			     "`sacctmgr dump`: expected Cluster, Parent, "
			     "Account or User - 'NAME'");
			goto out;
		}
		if (!*parent) {
			fail(msg, msglen, name, line, "%s before any Parent "
			     "line", is_acct ? "Account" : "User");
			goto out;
		}
		if (!dump_name(s, nm, sizeof(nm))) {
			fail(msg, msglen, name, line, "expected %s - 'NAME'",
			     is_acct ? "Account" : "User");
			goto out;
		}
		if (dump_field(s, "Fairshare", fs, sizeof(fs)) &&
		    parse_shares(fs, &sh)) {
			fail(msg, msglen, name, line, "Fairshare '%s' is not "
			     "accepted: a whole number or 'parent'", fs);
			goto out;
		}
		if (is_acct) {
			if (tlist_find(&acc, nm) >= 0) {
				fail(msg, msglen, name, line,
				     "account '%s' listed twice", nm);
				goto out;
			}
			if (tlist_add(&acc, nm, strcmp(parent, "root") ?
				      parent : NULL, sh, line))
				goto oom;
		} else {
			snprintf(path, sizeof(path), "%s\x1f%s", parent, nm);
			if (tlist_add(&usr, path, parent, sh, line))
				goto oom;
		}
	}
	/* account paths: chains of parents */
	for (i = 0; i < acc.n; i++) {
		char tmp[1024];
		const char *p = acc.v[i].parent;
		size_t depth = 0;

		snprintf(path, sizeof(path), "%s", acc.v[i].path);
		while (p) {
			ssize_t k = tlist_find(&acc, p);

			if (k < 0) {
				fail(msg, msglen, name, acc.v[i].line,
				     "account '%s': parent '%s' is not listed",
				     acc.v[i].path, p);
				goto out;
			}
			if (++depth > acc.n ||
			    (size_t)snprintf(tmp, sizeof(tmp), "%s/%s", p,
					     path) >= sizeof(path)) {
				fail(msg, msglen, name, acc.v[i].line,
				     "account '%s': a cycle or a path too "
				     "long", acc.v[i].path);
				goto out;
			}
			memcpy(path, tmp, sizeof(path));
			p = acc.v[k].parent;
		}
		if (add_path(l, path, acc.v[i].shares, acc.v[i].line))
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
				fail(msg, msglen, name, usr.v[i].line,
				     "user '%s' under account '%s', which is "
				     "not listed", u, par);
				goto out;
			}
			snprintf(path, sizeof(path), "%s/%s", l->v[k].path, u);
		}
		if (tlist_find(l, path) >= 0) {
			fail(msg, msglen, name, usr.v[i].line,
			     "'%s' is listed twice", path);
			goto out;
		}
		if (add_path(l, path, usr.v[i].shares, usr.v[i].line))
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	fail(msg, msglen, name, line, "out of memory");
out:
	tlist_free(&acc);
	tlist_free(&usr);
	return rc;
}

int sim_tree_parse(const char *name, const char *text, struct sim_tree *out,
		   char *msg, size_t msglen)
{
	char *copy = strdup(text), *first, *p;
	struct tlist l = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!copy) {
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	first = copy;
	while (*first == '\n' || *first == '\r' || *first == ' ')
		first++;
	p = strchr(first, '\n');
	{	/* a dump may start with comments */
		char *q = first;

		while (*q == '#') {
			q = strchr(q, '\n');
			if (!q)
				break;
			while (*q == '\n' || *q == '\r' || *q == ' ' ||
			       *q == '\t')
				q++;
		}
		if (q && (!strncmp(q, "Cluster - ", 10) ||
			  !strncmp(q, "Parent - ", 9))) {
			snprintf(out->source, sizeof(out->source), "dump");
			rc = tree_dump(name, copy, &l, msg, msglen);
			goto built;
		}
	}
	if (!strncmp(first, "date,", 5)) {
		snprintf(out->source, sizeof(out->source), "helios");
		rc = tree_helios(name, copy, &l, msg, msglen);
	} else if (memchr(first, '|', p ? (size_t)(p - first) : strlen(first))) {
		snprintf(out->source, sizeof(out->source), "sacctmgr");
		rc = tree_sacctmgr(name, copy, &l, msg, msglen);
	} else {
		snprintf(out->source, sizeof(out->source), "tree");
		rc = tree_ours(name, copy, &l, msg, msglen);
	}
built:
	if (!rc && !l.n) {
		fail(msg, msglen, name, 0, "no budgets defined");
		rc = -1;
	}
	if (!rc) {
		char src[64];

		memcpy(src, out->source, sizeof(src));
		rc = tlist_build(&l, name, out, msg, msglen);
		memcpy(out->source, src, sizeof(src));
	}
	tlist_free(&l);
	free(copy);
	return rc;
}

int sim_tree_load(const char *file, struct sim_tree *out, char *msg,
		  size_t msglen)
{
	char *text = sim_slurp(file, msg, msglen);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!text)
		return -1;
	rc = sim_tree_parse(file, text, out, msg, msglen);
	free(text);
	return rc;
}

/* ---------------------------------------------------------- budget.conf */

int sim_config_parse(const char *name, const char *text, struct sb_config *cfg,
		     char *msg, size_t msglen)
{
	/* the one grammar of budget.conf, shared with the plugins and sbudget */
	return sb_config_parse(cfg, text, name, msg, msglen) == SB_OK ? 0 : -1;
}

int sim_config_load(const char *file, struct sb_config *cfg, char *msg,
		    size_t msglen)
{
	char *text = sim_slurp(file, msg, msglen);
	int rc;

	if (!text)
		return -1;
	rc = sim_config_parse(file, text, cfg, msg, msglen);
	free(text);
	return rc;
}

/* -------------------------------------------------------------- workload */

void sim_read_opts_init(struct sim_read_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->span = -1;
	o->time_scale = 1.0;
	o->max_min_runtime = SB_DEFAULT_MAX_MIN_RUNTIME;
}

void sim_workload_init(struct sim_workload *w)
{
	memset(w, 0, sizeof(*w));
}

void sim_workload_free(struct sim_workload *w)
{
	uint32_t i;

	for (i = 0; i < w->nnames; i++)
		free(w->names[i]);
	free(w->names);
	free(w->hash);
	free(w->jobs);
	memset(w, 0, sizeof(*w));
}

static uint32_t strhash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int rehash(struct sim_workload *w, uint32_t cap)
{
	uint32_t *h = calloc(cap, sizeof(*h)), i;

	if (!h)
		return -1;
	for (i = 0; i < w->nnames; i++) {
		uint32_t k = strhash(w->names[i]) & (cap - 1);

		while (h[k])
			k = (k + 1) & (cap - 1);
		h[k] = i + 1;
	}
	free(w->hash);
	w->hash = h;
	w->hash_cap = cap;
	return 0;
}

uint32_t sim_intern(struct sim_workload *w, const char *s)
{
	uint32_t k;

	if (!w->nnames) {	/* index 0 is "" */
		w->names = malloc(16 * sizeof(char *));
		if (!w->names || !(w->names[0] = strdup("")))
			return UINT32_MAX;
		w->names_cap = 16;
		w->nnames = 1;
		if (rehash(w, 64))
			return UINT32_MAX;
	}
	if (!*s)
		return 0;
	k = strhash(s) & (w->hash_cap - 1);
	while (w->hash[k]) {
		if (!strcmp(w->names[w->hash[k] - 1], s))
			return w->hash[k] - 1;
		k = (k + 1) & (w->hash_cap - 1);
	}
	if (w->nnames == w->names_cap) {
		char **nn = realloc(w->names, 2 * w->names_cap * sizeof(char *));

		if (!nn)
			return UINT32_MAX;
		w->names = nn;
		w->names_cap *= 2;
	}
	w->names[w->nnames] = strdup(s);
	if (!w->names[w->nnames])
		return UINT32_MAX;
	w->hash[k] = w->nnames + 1;
	w->nnames++;
	if (2 * w->nnames > w->hash_cap && rehash(w, 2 * w->hash_cap))
		return UINT32_MAX;
	return w->nnames - 1;
}

static struct sim_job *add_job(struct sim_workload *w)
{
	if (w->njobs == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 1024;
		struct sim_job *nj = realloc(w->jobs, cap * sizeof(*nj));

		if (!nj)
			return NULL;
		w->jobs = nj;
		w->cap = cap;
	}
	memset(&w->jobs[w->njobs], 0, sizeof(w->jobs[0]));
	return &w->jobs[w->njobs++];
}

/* Scaled time, or -1 when out of range; a positive time stays >= 1 s. */
static int64_t scale(const struct sim_read_opts *o, int64_t t)
{
	double v = (double)t * o->time_scale;

	if (!(v >= 0) || v > (double)SB_TIME_MAX / 4)
		return -1;
	if (t > 0 && v < 1)
		return 1;
	return (int64_t)llround(v);
}

/* Keep a job submitted at @submit (trace time, before --time-scale)?
 * Counts the rest. */
static bool in_slice(struct sim_workload *w, const struct sim_read_opts *o,
		     int64_t submit)
{
	if (submit < o->from || (o->span >= 0 && submit >= o->from + o->span)) {
		w->notes.skipped_slice++;
		return false;
	}
	return true;
}

/* "yes"/"no"/... through the core's own boolean parser. */
static int parse_bool(const char *s, bool *out)
{
	return sb_bool_parse(s, out) == SB_OK ? 0 : -1;
}

static int parse_prio(const char *s, uint32_t *out)
{
	int64_t v;

	if (!strcasecmp(s, "LOW"))
		*out = SIM_PRIO_LOW;
	else if (!strcasecmp(s, "NORMAL"))
		*out = SIM_PRIO_NORMAL;
	else if (!strcasecmp(s, "HIGH"))
		*out = SIM_PRIO_HIGH;
	else if (!parse_i64(s, &v) && v >= 0 && v <= 1023)
		*out = (uint32_t)v;
	else
		return -1;
	return 0;
}

/* A name (team or user) as a CSV field may hold: printable, no comma. */
static bool name_ok(const char *s)
{
	for (; *s; s++)
		if (!isgraph((unsigned char)*s) || *s == ',' || *s == '|')
			return false;
	return true;
}

static int parse_csv(const char *name, char *text,
		     const struct sim_read_opts *o, struct sim_workload *w,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;
	int ci[8], nh = 0, n, k;
	static const char *const cols[8] = {
		"submit_time_s", "duration_s", "gpus", "team", "user",
		"min_runtime_s", "resumable", "priority",
	};
	bool header = false;

	snprintf(w->notes.format, sizeof(w->notes.format), "csv");
	while ((s = next_line(&cur))) {
		struct sim_job *j;
		int64_t sub, dur, gpus, mr;

		line++;
		if (!*trim(s) || s[0] == '#')
			continue;
		n = split(s, ',', f);
		if (n < 0) {
			fail(msg, msglen, name, line, "more than %d fields",
			     MAX_FIELDS);
			return -1;
		}
		if (!header) {
			header = true;
			nh = n;
			for (k = 0; k < 8; k++)
				ci[k] = column(f, n, cols[k], NULL);
			for (k = 0; k < 4; k++)
				if (ci[k] < 0) {
					fail(msg, msglen, name, line,
					     "the header lacks column '%s': the "
					     "first line must name the columns "
					     "submit_time_s,duration_s,gpus,team"
					     "[,user,min_runtime_s,resumable,"
					     "priority]", cols[k]);
					return -1;
				}
			w->has_user = ci[4] >= 0;
			w->has_mr = ci[5] >= 0;
			w->has_res = ci[6] >= 0;
			w->has_prio = ci[7] >= 0;
			continue;
		}
		w->notes.lines++;
		if (n != nh) {
			fail(msg, msglen, name, line,
			     "%d fields, the header has %d", n, nh);
			return -1;
		}
		if (parse_i64(f[ci[0]], &sub) || sub < 0) {
			fail(msg, msglen, name, line,
			     "submit_time_s '%s' is not accepted: a whole "
			     "number of seconds >= 0", f[ci[0]]);
			return -1;
		}
		if (parse_i64(f[ci[1]], &dur) || dur < -1) {
			fail(msg, msglen, name, line,
			     "duration_s '%s' is not accepted: a whole number "
			     "of seconds >= 0 (-1 = never ran: skipped)",
			     f[ci[1]]);
			return -1;
		}
		if (parse_i64(f[ci[2]], &gpus) || gpus < -1 || gpus > 1000000) {
			fail(msg, msglen, name, line,
			     "gpus '%s' is not accepted: a whole number "
			     "0..1000000 (0 = CPU only and -1 = unknown: "
			     "skipped)", f[ci[2]]);
			return -1;
		}
		if (!*f[ci[3]] || !name_ok(f[ci[3]])) {
			fail(msg, msglen, name, line,
			     "team '%s' is not accepted: a non-empty name of "
			     "printable characters without blanks, ',' or '|'",
			     f[ci[3]]);
			return -1;
		}
		if (ci[4] >= 0 && !name_ok(f[ci[4]])) {
			fail(msg, msglen, name, line,
			     "user '%s' is not accepted: printable characters "
			     "without blanks, ',' or '|' (may be empty)",
			     f[ci[4]]);
			return -1;
		}
		mr = 0;
		if (ci[5] >= 0 && (parse_i64(f[ci[5]], &mr) || mr < 0 ||
				   mr > SB_DURATION_MAX)) {
			fail(msg, msglen, name, line,
			     "min_runtime_s '%s' is not accepted: a whole "
			     "number of seconds 0..%" PRId64 " (0 = "
			     "unallocated)", f[ci[5]], (int64_t)SB_DURATION_MAX);
			return -1;
		}
		j = NULL;
		if (dur == -1 || gpus == -1) {
			w->notes.skipped_unknown++;
			continue;
		}
		if (gpus == 0) {
			w->notes.skipped_nogpu++;
			continue;
		}
		if (!in_slice(w, o, sub))
			continue;
		sub = scale(o, sub - o->from);
		dur = scale(o, dur);
		mr = scale(o, mr);
		if (sub < 0 || dur < 0 || mr < 0) {
			fail(msg, msglen, name, line,
			     "times out of range after --time-scale %g",
			     o->time_scale);
			return -1;
		}
		j = add_job(w);
		if (!j) {
			fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
		j->submit = sub;
		j->duration = dur;
		j->gpus = (uint32_t)gpus;
		j->min_runtime = mr;
		j->line = (uint32_t)line;
		j->prio = SB_PRIO_TEAM_DEFAULT;
		if (ci[6] >= 0 && parse_bool(f[ci[6]], &j->resumable)) {
			fail(msg, msglen, name, line,
			     "resumable '%s' is not accepted: yes/no, true/"
			     "false, 1/0 or on/off", f[ci[6]]);
			w->njobs--;
			return -1;
		}
		if (ci[7] >= 0 && parse_prio(f[ci[7]], &j->prio)) {
			fail(msg, msglen, name, line,
			     "priority '%s' is not accepted: LOW, NORMAL, HIGH "
			     "or an in-team priority 0..1023", f[ci[7]]);
			w->njobs--;
			return -1;
		}
		j->team = sim_intern(w, f[ci[3]]);
		j->user = ci[4] >= 0 && strcmp(f[ci[4]], "NA") ?
			sim_intern(w, f[ci[4]]) : 0;
		if (j->team == UINT32_MAX || j->user == UINT32_MAX) {
			fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
	}
	if (!header) {
		fail(msg, msglen, name, 0, "empty: no header line");
		return -1;
	}
	return 0;
}

/*
 * SWF 2.2: 18 fields; 2 submit, 4 run time, 5 allocated processors
 * (8 requested, used when 5 is -1), 12 user, 13 group.  GPUs = processors.
 * Team = "g<group>", user = "u<user>".  No contract fields: assigned.
 */
static int parse_swf(const char *name, char *text,
		     const struct sim_read_opts *o, struct sim_workload *w,
		     char *msg, size_t msglen)
{
	char *cur = text, *s, *f[MAX_FIELDS];
	size_t line = 0;

	snprintf(w->notes.format, sizeof(w->notes.format), "swf");
	w->has_user = true;
	while ((s = next_line(&cur))) {
		int64_t v[18];
		struct sim_job *j;
		char buf[32];
		int n, k;

		line++;
		s = trim(s);
		if (!*s || *s == ';')
			continue;
		n = split_ws(s, f);
		if (n != 18) {
			fail(msg, msglen, name, line,
			     "%d fields: an SWF job line has 18 whitespace-"
			     "separated numbers", n < 0 ? MAX_FIELDS : n);
			return -1;
		}
		for (k = 0; k < 18; k++) {
			double d;

			/* fields 6 (average CPU) and 7 (memory) may be real */
			if (parse_i64(f[k], &v[k])) {
				if ((k == 5 || k == 6) && !parse_num(f[k], &d)) {
					v[k] = 0;
					continue;
				}
				fail(msg, msglen, name, line,
				     "field %d '%s' is not a whole number", k + 1,
				     f[k]);
				return -1;
			}
		}
		w->notes.lines++;
		if (v[1] < 0) {
			fail(msg, msglen, name, line,
			     "submit time '%s' is negative", f[1]);
			return -1;
		}
		if (v[4] <= 0)
			v[4] = v[7];
		if (v[3] < 0 || v[4] < 0) {
			w->notes.skipped_unknown++;
			continue;
		}
		if (v[4] == 0) {
			w->notes.skipped_nogpu++;
			continue;
		}
		if (!in_slice(w, o, v[1]))
			continue;
		v[1] = scale(o, v[1] - o->from);
		v[3] = scale(o, v[3]);
		if (v[1] < 0 || v[3] < 0) {
			fail(msg, msglen, name, line,
			     "times out of range after --time-scale %g",
			     o->time_scale);
			return -1;
		}
		j = add_job(w);
		if (!j) {
			fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
		j->submit = v[1];
		j->duration = v[3];
		j->gpus = v[4] > 1000000 ? 1000000 : (uint32_t)v[4];
		j->line = (uint32_t)line;
		j->prio = SB_PRIO_TEAM_DEFAULT;
		snprintf(buf, sizeof(buf), "g%" PRId64, v[12]);
		j->team = sim_intern(w, buf);
		snprintf(buf, sizeof(buf), "u%" PRId64, v[11]);
		j->user = sim_intern(w, buf);
		if (j->team == UINT32_MAX || j->user == UINT32_MAX) {
			fail(msg, msglen, name, line, "out of memory");
			return -1;
		}
	}
	return 0;
}

int sim_workload_parse(const char *name, const char *text,
		       const struct sim_read_opts *o, struct sim_workload *w,
		       char *msg, size_t msglen)
{
	char *copy = strdup(text), *p;
	size_t nl = strlen(name);
	int rc;

	if (!copy) {
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	if (sim_intern(w, "") == UINT32_MAX) {
		free(copy);
		fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	w->notes.seed = o->seed;
	p = copy;
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if ((nl > 4 && !strcasecmp(name + nl - 4, ".swf")) || *p == ';')
		rc = parse_swf(name, copy, o, w, msg, msglen);
	else
		rc = parse_csv(name, copy, o, w, msg, msglen);
	free(copy);
	return rc;
}

int sim_workload_read(const char *file, const struct sim_read_opts *o,
		      struct sim_workload *w, char *msg, size_t msglen)
{
	char *text = sim_slurp(file, msg, msglen);
	int rc;

	if (!text)
		return -1;
	rc = sim_workload_parse(file, text, o, w, msg, msglen);
	free(text);
	return rc;
}

static int cmp_submit(const void *a, const void *b)
{
	const struct sim_job *x = a, *y = b;

	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Seeded assignment (stream b of sim_rand(seed, line, b)); line numbers
 * key the draws, so a job's draw does not depend on the others:
 *   team        b=1: a leaf with entitled > 0, chance proportional to it;
 *   min runtime b=2: 20% unallocated (0); else b=3 picks 15 min, 1 h, 4 h
 *               or 8 h (equally likely) times --time-scale, capped by the
 *               duration and by MaxMinRuntime (a duration of 0 gives 0:
 *               unallocated);
 *   resumable   b=4: 50%;
 *   priority    b=5: LOW 20%, NORMAL 50%, HIGH 30%.
 */
static uint32_t pick_leaf(const struct sim_tree *t, double u)
{
	double total = 0, acc = 0;
	uint32_t i, last = SB_NONE;

	for (i = 0; i < t->n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t->tree, i);

		if (!nd->nchildren && nd->entitled > 0)
			total += nd->entitled;
	}
	for (i = 0; i < t->n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(t->tree, i);

		if (nd->nchildren || !(nd->entitled > 0))
			continue;
		last = i;
		acc += nd->entitled;
		if (u * total < acc)
			return i;
	}
	return last;
}

int sim_workload_bind(struct sim_workload *w, const struct sim_tree *t,
		      const struct sim_read_opts *o, uint32_t gpus_per_node,
		      uint32_t cluster_gpus, char *msg, size_t msglen)
{
	static const int64_t mrs[4] = { 900, 3600, 4 * 3600, 8 * 3600 };
	size_t i, out = 0;

	if (!w->nnames && sim_intern(w, "") == UINT32_MAX) {
		fail(msg, msglen, "workload", 0, "out of memory");
		return -1;
	}
	qsort(w->jobs, w->njobs, sizeof(*w->jobs), cmp_submit);
	if (o->max_jobs && w->njobs > o->max_jobs) {
		w->notes.skipped_slice += w->njobs - o->max_jobs;
		w->njobs = o->max_jobs;
	}
	for (i = 0; i < w->njobs; i++) {
		struct sim_job j = w->jobs[i];
		uint32_t node;

		if (o->max_gpus && j.gpus > o->max_gpus) {
			j.gpus = o->max_gpus;
			w->notes.clamped++;
		}
		if (gpus_per_node && j.gpus > gpus_per_node &&
		    j.gpus % gpus_per_node) {
			j.gpus += gpus_per_node - j.gpus % gpus_per_node;
			w->notes.rounded++;
		}
		if (cluster_gpus && j.gpus > cluster_gpus) {
			w->notes.skipped_toobig++;
			continue;
		}
		if (o->assign_teams) {
			node = pick_leaf(t, sim_rand(o->seed, j.line, 1));
			if (node == SB_NONE) {
				fail(msg, msglen, "tree", 0,
				     "no budget with shares > 0 to assign "
				     "teams to");
				return -1;
			}
			j.team = sim_intern(w, t->path[node]);
			if (j.team == UINT32_MAX) {
				fail(msg, msglen, "workload", 0,
				     "out of memory");
				return -1;
			}
			j.user = 0;
			w->notes.teams_assigned++;
		} else {
			node = sim_tree_find(t, w->names[j.team]);
			if (node == SB_NONE) {
				fail(msg, msglen, "job table", j.line,
				     "team '%s' is not a budget of the tree "
				     "(give its path or a unique name, or "
				     "--assign-teams to assign teams)",
				     w->names[j.team]);
				return -1;
			}
		}
		j.team_node = node;
		j.assoc = node;
		if (j.user) {
			char path[1024];
			uint32_t u;

			snprintf(path, sizeof(path), "%s/%s", t->path[node],
				 w->names[j.user]);
			for (u = 0; u < t->n; u++)
				if (!strcmp(t->path[u], path)) {
					j.assoc = u;
					break;
				}
		}
		if (!w->has_mr) {
			if (sim_rand(o->seed, j.line, 2) < 0.2) {
				j.min_runtime = 0;
			} else {
				int k = (int)(sim_rand(o->seed, j.line, 3) * 4);

				j.min_runtime = scale(o, mrs[k > 3 ? 3 : k]);
				if (j.min_runtime > j.duration)
					j.min_runtime = j.duration;
				if (j.min_runtime > o->max_min_runtime)
					j.min_runtime = o->max_min_runtime;
			}
			w->notes.contracts_assigned++;
		}
		if (!w->has_res) {
			j.resumable = sim_rand(o->seed, j.line, 4) < 0.5;
			w->notes.resumable_assigned++;
		}
		if (!w->has_prio) {
			double u = sim_rand(o->seed, j.line, 5);

			j.prio = u < 0.2 ? SIM_PRIO_LOW :
				 u < 0.7 ? SIM_PRIO_NORMAL : SIM_PRIO_HIGH;
			w->notes.prio_assigned++;
		}
		if (j.min_runtime > 0 &&
		    !(sb_tree_node(t->tree, j.assoc)->entitled > 0)) {
			/* job_submit/budget would refuse it; the simulator
			 * runs it unallocated and says so */
			j.min_runtime = 0;
			w->notes.unbudgeted++;
		}
		w->jobs[out++] = j;
	}
	w->njobs = out;
	w->has_mr = w->has_res = w->has_prio = true;
	return 0;
}

int sim_workload_write_csv(const struct sim_workload *w,
			   const struct sim_tree *t, FILE *f)
{
	size_t i;

	fprintf(f, "submit_time_s,duration_s,gpus,team,user,min_runtime_s,"
		"resumable,priority\n");
	for (i = 0; i < w->njobs; i++) {
		const struct sim_job *j = &w->jobs[i];

		fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRIu32 ",%s,%s,%" PRId64
			",%s,%" PRIu32 "\n", j->submit, j->duration, j->gpus,
			t->path[j->team_node], w->names[j->user],
			j->min_runtime, j->resumable ? "yes" : "no", j->prio);
	}
	return ferror(f) ? -1 : 0;
}

void sim_notes_print(const struct sim_notes *n, FILE *f)
{
	fprintf(f, "input: %s, %zu data lines, seed %" PRIu64 "\n", n->format,
		n->lines, n->seed);
	if (n->skipped_unknown)
		fprintf(f, "input: %zu jobs skipped: duration or GPUs unknown "
			"(-1)\n", n->skipped_unknown);
	if (n->skipped_nogpu)
		fprintf(f, "input: %zu jobs skipped: 0 GPUs (CPU only)\n",
			n->skipped_nogpu);
	if (n->skipped_slice)
		fprintf(f, "input: %zu jobs outside the selected slice\n",
			n->skipped_slice);
	if (n->skipped_toobig)
		fprintf(f, "input: %zu jobs skipped: more GPUs than the "
			"cluster\n", n->skipped_toobig);
	if (n->clamped)
		fprintf(f, "input: %zu jobs clamped to --max-gpus\n",
			n->clamped);
	if (n->rounded)
		fprintf(f, "input: %zu multi-node jobs rounded up to whole "
			"nodes\n", n->rounded);
	if (n->teams_assigned)
		fprintf(f, "assigned: team of %zu jobs (seeded, chance "
			"proportional to the budget's entitled share)\n",
			n->teams_assigned);
	if (n->contracts_assigned)
		fprintf(f, "assigned: min runtime of %zu jobs (seeded: 20%% "
			"unallocated, else 15m/1h/4h/8h capped by duration)\n",
			n->contracts_assigned);
	if (n->resumable_assigned)
		fprintf(f, "assigned: resumable of %zu jobs (seeded, 50%%)\n",
			n->resumable_assigned);
	if (n->prio_assigned)
		fprintf(f, "assigned: priority of %zu jobs (seeded: LOW 20%%, "
			"NORMAL 50%%, HIGH 30%%)\n", n->prio_assigned);
	if (n->unbudgeted)
		fprintf(f, "input: %zu allocated jobs on a budget of 0 shares "
			"run unallocated\n", n->unbudgeted);
}

/* ------------------------------------------------- observed run segments */

int sim_segments_parse(const char *name, const char *text,
		       const struct sim_tree *t, struct sim_mjob **jobs,
		       size_t *njobs, uint32_t **job_node,
		       struct sim_mseg **segs, size_t *nsegs, char *msg,
		       size_t msglen)
{
	static const char *const cols[8] = {
		"job", "team", "gpus", "min_runtime_s", "submit_s", "start_s",
		"end_s", "preempted",
	};
	struct sim_workload ids;	/* job id -> index, by interning */
	char *copy = strdup(text), *cur, *s, *f[MAX_FIELDS];
	struct sim_mjob *mj = NULL;
	struct sim_mseg *ms = NULL;
	uint32_t *jn = NULL;
	size_t line = 0, nj = 0, ns = 0, capj = 0, caps = 0;
	bool header = false;
	int rc = -1, n, k;

	sim_workload_init(&ids);
	if (!copy || sim_intern(&ids, "") == UINT32_MAX) {
		fail(msg, msglen, name, 0, "out of memory");
		goto out;
	}
	cur = copy;
	while ((s = next_line(&cur))) {
		int64_t v[8];
		uint32_t id, node;
		bool started;

		line++;
		if (!*trim(s) || *s == '#')
			continue;
		n = split(s, ',', f);
		if (!header) {
			header = true;
			for (k = 0; k < 8; k++)
				if (n != 8 || strcmp(f[k], cols[k])) {
					fail(msg, msglen, name, line,
					     "the header must be exactly job,"
					     "team,gpus,min_runtime_s,submit_s,"
					     "start_s,end_s,preempted");
					goto out;
				}
			continue;
		}
		if (n != 8) {
			fail(msg, msglen, name, line, "%d fields, expected 8",
			     n < 0 ? MAX_FIELDS : n);
			goto out;
		}
		if (!*f[0] || !name_ok(f[0])) {
			fail(msg, msglen, name, line, "job '%s' is not "
			     "accepted: a non-empty id without blanks or ','",
			     f[0]);
			goto out;
		}
		node = sim_tree_find(t, f[1]);
		if (node == SB_NONE) {
			fail(msg, msglen, name, line, "team '%s' is not a "
			     "budget of the tree", f[1]);
			goto out;
		}
		for (k = 2; k < 8; k++) {
			v[k] = -1;
			if ((k == 5 || k == 6) && !*f[k])
				continue;
			if (parse_i64(f[k], &v[k]) || v[k] < 0 ||
			    v[k] > SB_TIME_MAX || (k == 2 && v[k] == 0) ||
			    (k == 7 && v[k] > 2)) {
				fail(msg, msglen, name, line,
				     "%s '%s' is not accepted: %s", cols[k],
				     f[k], k == 2 ? "a whole number >= 1" :
				     k == 7 ? "0 (no), 1 (preempted, work "
				     "lost) or 2 (preempted, resumed)" : k >= 5 ?
				     "seconds >= 0, or empty if it never ran" :
				     "a whole number of seconds >= 0");
				goto out;
			}
		}
		started = v[5] >= 0;
		if (started != (v[6] >= 0) || (started && v[6] < v[5]) ||
		    (started && v[5] < v[4]) || (!started && v[7])) {
			fail(msg, msglen, name, line,
			     "start_s '%s' and end_s '%s' are not accepted: "
			     "submit_s <= start_s <= end_s, or both empty (never "
			     "started, preempted 0)", f[5], f[6]);
			goto out;
		}
		id = sim_intern(&ids, f[0]);
		if (id == UINT32_MAX) {
			fail(msg, msglen, name, line, "out of memory");
			goto out;
		}
		if (id - 1 == nj) {	/* a new job */
			if (nj == capj) {
				capj = capj ? 2 * capj : 256;
				void *a = realloc(mj, capj * sizeof(*mj));
				void *b = a ? realloc(jn, capj * sizeof(*jn)) : NULL;

				if (a)
					mj = a;
				if (!a || !b) {
					fail(msg, msglen, name, line,
					     "out of memory");
					goto out;
				}
				jn = b;
			}
			mj[nj] = (struct sim_mjob){ .team = 0,
				.gpus = (uint32_t)v[2], .min_runtime = v[3],
				.submit = v[4], .first_start = SIM_NEVER,
				.end = SIM_NEVER };
			jn[nj] = node;
			nj++;
		} else if (mj[id - 1].gpus != v[2] ||
			   mj[id - 1].min_runtime != v[3] ||
			   mj[id - 1].submit != v[4] || jn[id - 1] != node) {
			fail(msg, msglen, name, line,
			     "job '%s' was listed before with another team, "
			     "gpus, min_runtime_s or submit_s", f[0]);
			goto out;
		}
		if (!started)
			continue;
		if (ns == caps) {
			void *a;

			caps = caps ? 2 * caps : 256;
			a = realloc(ms, caps * sizeof(*ms));
			if (!a) {
				fail(msg, msglen, name, line, "out of memory");
				goto out;
			}
			ms = a;
		}
		ms[ns++] = (struct sim_mseg){ id - 1, v[5], v[6], v[7] > 0,
					      v[7] == 1 };
		if (mj[id - 1].first_start == SIM_NEVER ||
		    v[5] < mj[id - 1].first_start)
			mj[id - 1].first_start = v[5];
		if (mj[id - 1].end == SIM_NEVER || v[6] > mj[id - 1].end)
			mj[id - 1].end = v[6];
	}
	if (!header) {
		fail(msg, msglen, name, 0, "empty: no header line");
		goto out;
	}
	*jobs = mj;
	*njobs = nj;
	*job_node = jn;
	*segs = ms;
	*nsegs = ns;
	mj = NULL;
	ms = NULL;
	jn = NULL;
	rc = 0;
out:
	free(mj);
	free(ms);
	free(jn);
	free(copy);
	sim_workload_free(&ids);
	return rc;
}
