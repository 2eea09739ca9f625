/*
 * tree.c - budget trees for sbudget-sim (sim_tree_load(), formats in
 * sim.h): our "path shares" lines, `sacctmgr -P show assoc`, an
 * association dump (`sacctmgr dump`), and Helios per-VC GPU counts.  Every
 * format is read into a list of (path, parent path, shares, line) and
 * built into an sb_tree in one place (tlist_build()), so every refusal
 * names the file and line.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "input.h"

void sim_tree_free(struct sim_tree *t)
{
	uint32_t i;

	if (!t)
		return;
	for (i = 0; t->path && i < t->n; i++)
		free(t->path[i]);
	free(t->path);
	free(t->by_path);
	free(t->by_last);
	free(t->last_many);
	sb_tree_free(t->tree);
	memset(t, 0, sizeof(*t));
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The last component of node @i's path, NULL for a top-level node. */
static const char *last_of(const struct sim_tree *t, uint32_t i)
{
	const char *slash = strrchr(t->path[i], '/');

	return slash ? slash + 1 : NULL;
}

/* The slot of @key in @tab (keys: @last ? last components : paths): its
 * entry, or the empty slot where it would go. */
static uint32_t slot_of(const struct sim_tree *t, const uint32_t *tab,
			bool last, const char *key)
{
	uint32_t k = name_hash(key) & (t->cap - 1);

	while (tab[k]) {
		if (!strcmp(last ? last_of(t, tab[k] - 1) : t->path[tab[k] - 1],
			    key))
			return k;
		k = (k + 1) & (t->cap - 1);
	}
	return k;
}

/* Index the paths and last components for sim_tree_find(); on failure
 * (memory) it scans instead. */
static void tree_index(struct sim_tree *t)
{
	uint32_t i, cap = 16;

	while (cap < 2 * t->n + 2)
		cap *= 2;
	t->cap = cap;
	t->by_path = calloc(cap, sizeof(*t->by_path));
	t->by_last = calloc(cap, sizeof(*t->by_last));
	t->last_many = calloc(cap, sizeof(*t->last_many));
	if (!t->by_path || !t->by_last || !t->last_many) {
		free(t->by_path);
		free(t->by_last);
		free(t->last_many);
		t->by_path = t->by_last = NULL;
		t->last_many = NULL;
		return;
	}
	for (i = 0; i < t->n; i++) {
		uint32_t k = slot_of(t, t->by_path, false, t->path[i]);
		const char *lc = last_of(t, i);

		if (!t->by_path[k])	/* the first node of a path */
			t->by_path[k] = i + 1;
		if (!lc)
			continue;
		k = slot_of(t, t->by_last, true, lc);
		if (t->by_last[k])
			t->last_many[k] = true;
		else
			t->by_last[k] = i + 1;
	}
}

uint32_t sim_tree_find(const struct sim_tree *t, const char *path)
{
	uint32_t i, found = SB_NONE, nfound = 0;

	if (t->by_path) {
		uint32_t k = slot_of(t, t->by_path, false, path);

		if (t->by_path[k])
			return t->by_path[k] - 1;
		k = slot_of(t, t->by_last, true, path);
		return t->by_last[k] && !t->last_many[k] ? t->by_last[k] - 1 :
		       SB_NONE;
	}
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
	/* path -> index + 1 of its first node (0: empty), open addressing;
	 * NULL (small lists, or no memory): tlist_find() scans */
	uint32_t *h;
	size_t hcap;
};

/* Put node @i in @l's index (its first node keeps a path). */
static void tlist_put(struct tlist *l, size_t i)
{
	size_t k = name_hash(l->v[i].path) & (l->hcap - 1);

	while (l->h[k]) {
		if (!strcmp(l->v[l->h[k] - 1].path, l->v[i].path))
			return;
		k = (k + 1) & (l->hcap - 1);
	}
	l->h[k] = (uint32_t)i + 1;
}

/* (Re)build @l's index; after paths were changed in place too.  Without
 * memory there is none (tlist_find() scans). */
static void tlist_reindex(struct tlist *l)
{
	size_t cap = 256, i;

	free(l->h);
	l->h = NULL;
	if (l->n < 64 || l->n >= UINT32_MAX / 4)
		return;
	while (cap < 2 * l->n)
		cap *= 2;
	if (!(l->h = calloc(cap, sizeof(*l->h))))
		return;
	l->hcap = cap;
	for (i = 0; i < l->n; i++)
		tlist_put(l, i);
}

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
	if (!l->h || 2 * l->n > l->hcap)
		tlist_reindex(l);
	else
		tlist_put(l, l->n - 1);
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
	free(l->h);
}

static ssize_t tlist_find(const struct tlist *l, const char *path)
{
	size_t i;

	if (l->h) {
		size_t k = name_hash(path) & (l->hcap - 1);

		while (l->h[k]) {
			if (!strcmp(l->v[l->h[k] - 1].path, path))
				return (ssize_t)l->h[k] - 1;
			k = (k + 1) & (l->hcap - 1);
		}
		return -1;
	}
	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].path, path))
			return (ssize_t)i;
	return -1;
}

/* RawShares @s by sb_shares_parse(); -1 for anything it refuses. */
static int parse_shares(const char *s, uint64_t *out)
{
	uint32_t v;

	if (sb_shares_parse(s, &v) != SB_OK)
		return -1;
	*out = v;
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
		sim__fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < l->n; i++) {
		uint32_t pid = 0;

		if (l->v[i].parent) {
			ssize_t p = tlist_find(l, l->v[i].parent);

			if (p < 0) {
				sim__fail(msg, msglen, name, l->v[i].line,
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
			sim__fail(msg, msglen, name, l->v[i].line, "'%s': %s",
			     l->v[i].path, sb_strerror(rc));
			sb_tree_free(tr);
			return -1;
		}
	}
	rc = sb_tree_finalize(tr);
	if (rc != SB_OK) {
		uint32_t bad = sb_tree_bad_id(tr);

		sim__fail(msg, msglen, name, bad ? l->v[bad - 1].line : 0,
		     "budget tree: %s", sb_strerror(rc));
		sb_tree_free(tr);
		return -1;
	}
	out->tree = tr;
	out->n = sb_tree_count(tr);
	out->path = calloc(out->n ? out->n : 1, sizeof(char *));
	if (!out->path) {
		sim_tree_free(out);
		sim__fail(msg, msglen, name, 0, "out of memory");
		return -1;
	}
	for (i = 0; i < out->n; i++) {
		out->path[i] = strdup(sb_tree_node(tr, (uint32_t)i)->name);
		if (!out->path[i]) {
			sim_tree_free(out);
			sim__fail(msg, msglen, name, 0, "out of memory");
			return -1;
		}
	}
	tree_index(out);
	return 0;
}

/* Our format: "path shares". */
static int tree_ours(const char *name, char *text, struct tlist *l,
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
		if (parse_shares(f[1], &shares)) {
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
		if (tlist_find(l, f[0]) >= 0) {
			sim__fail(msg, msglen, name, line,
			     "'%s' is defined twice", f[0]);
			return -1;
		}
		if (add_path(l, f[0], shares, line)) {
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
		ssize_t k = tlist_find(acc, p);

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

/* sacctmgr -P show assoc format=account,user,parentname,fairshare */
static int tree_sacctmgr(const char *name, char *text, struct tlist *l,
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

			if (parse_shares(f[cs], &sh)) {
				sim__fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: "
				     SB_SHARES_ACCEPTED, f[cs]);
				goto out;
			}
			snprintf(path, sizeof(path), "%s\x1f%s", f[ca], f[cu]);
			if (tlist_add(l, path, f[ca], sh, line))
				goto oom;
		} else if (strcmp(f[ca], "root")) {
			uint64_t sh;
			const char *par = f[cp];

			if (parse_shares(f[cs], &sh)) {
				sim__fail(msg, msglen, name, line,
				     "Share '%s' is not accepted: "
				     SB_SHARES_ACCEPTED, f[cs]);
				goto out;
			}
			if (!*par || !strcmp(par, "root"))
				par = NULL;
			if (tlist_find(&acc, f[ca]) >= 0) {
				sim__fail(msg, msglen, name, line,
				     "account '%s' listed twice", f[ca]);
				goto out;
			}
			if (tlist_add(&acc, f[ca], par, sh, line))
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
	tlist_reindex(&acc);
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
	tlist_reindex(l);	/* the users' paths changed */
	for (i = 0; i < acc.n; i++)
		if (add_path(l, acc.v[i].path, acc.v[i].shares, acc.v[i].line))
			goto oom;
	rc = 0;
	goto out;
oom:
	sim__fail(msg, msglen, name, line, "out of memory");
out:
	for (i = 0; full && i < acc.n; i++)
		free(full[i]);
	free(full);
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
		if (i != tot && tlist_add(l, hdr[i], NULL, sum[i], 1)) {
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
		    parse_shares(fs, &sh)) {
			sim__fail(msg, msglen, name, line, "Fairshare '%s' is not "
			     "accepted: " SB_SHARES_ACCEPTED, fs);
			goto out;
		}
		if (is_acct) {
			if (tlist_find(&acc, nm) >= 0) {
				sim__fail(msg, msglen, name, line,
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
		if (account_path(&acc, i, path, sizeof(path), name, msg,
				 msglen))
			goto out;
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
				sim__fail(msg, msglen, name, usr.v[i].line,
				     "user '%s' under account '%s', which is "
				     "not listed", u, par);
				goto out;
			}
			snprintf(path, sizeof(path), "%s/%s", l->v[k].path, u);
		}
		if (tlist_find(l, path) >= 0) {
			sim__fail(msg, msglen, name, usr.v[i].line,
			     "'%s' is listed twice", path);
			goto out;
		}
		if (add_path(l, path, usr.v[i].shares, usr.v[i].line))
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	sim__fail(msg, msglen, name, line, "out of memory");
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
		sim__fail(msg, msglen, name, 0, "out of memory");
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
		/* Slurm 26.05's dump starts with its QOS lines */
		if (q && (!strncmp(q, "Cluster - ", 10) ||
			  !strncmp(q, "QOS - ", 6) ||
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
		sim__fail(msg, msglen, name, 0, "no budgets defined");
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
