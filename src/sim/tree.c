/*
 * tree.c - budget trees for sbudget-sim (sim_tree_load(), formats in
 * sim.h): the format of a text picked, its reader (tree_read.c) filling a
 * list of (path, parent path, shares, line) (tree_list.h), built into an
 * sb_tree in one place (tlist_build()), so every refusal names the file
 * and line; and the tree's queries (sim_tree_find()).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "input.h"
#include "tree_list.h"

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
 * memory there is none (sim__tlist_find() scans). */
void sim__tlist_reindex(struct tlist *l)
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

int sim__tlist_add(struct tlist *l, const char *path, const char *parent,
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
		sim__tlist_reindex(l);
	else
		tlist_put(l, l->n - 1);
	return 0;
}

/* Add @path with its parent = everything before the last '/'. */
int sim__tlist_add_path(struct tlist *l, const char *path, uint64_t shares,
			size_t line)
{
	const char *slash = strrchr(path, '/');
	char *parent = NULL;
	int rc;

	if (slash && !(parent = strndup(path, (size_t)(slash - path))))
		return -1;
	rc = sim__tlist_add(l, path, parent, shares, line);
	free(parent);
	return rc;
}

void sim__tlist_free(struct tlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].parent);
	}
	free(l->v);
	free(l->h);
}

ssize_t sim__tlist_find(const struct tlist *l, const char *path)
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
int sim__parse_shares(const char *s, uint64_t *out)
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
			ssize_t p = sim__tlist_find(l, l->v[i].parent);

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
			rc = sim__tree_dump(name, copy, &l, msg, msglen);
			goto built;
		}
	}
	if (!strncmp(first, "date,", 5)) {
		snprintf(out->source, sizeof(out->source), "helios");
		rc = sim__tree_helios(name, copy, &l, msg, msglen);
	} else if (memchr(first, '|', p ? (size_t)(p - first) : strlen(first))) {
		snprintf(out->source, sizeof(out->source), "sacctmgr");
		rc = sim__tree_sacctmgr(name, copy, &l, msg, msglen);
	} else {
		snprintf(out->source, sizeof(out->source), "tree");
		rc = sim__tree_ours(name, copy, &l, msg, msglen);
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
	sim__tlist_free(&l);
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
