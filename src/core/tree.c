/* tree.c - the budget tree: shape checks, numbering, normalised shares. */
#include <stdlib.h>
#include <string.h>

#include "sb/contract.h"
#include "sb/error.h"
#include "sb/tree.h"

/* An association as added, before finalize. */
struct pending {
	uint32_t id;
	uint32_t parent_id;
	uint64_t raw;
	char *name;
};

/* id -> index, sorted by id for bsearch. */
struct id_ref {
	uint32_t id;
	uint32_t ref;
};

struct sb_tree {
	struct pending *pend;	/* as added; owns the names */
	uint32_t npend, cap;
	bool finalized;
	uint32_t bad_id;

	/* valid once finalized */
	uint32_t n, nleaves, max_depth, ntop;
	struct sb_tree_node *nodes;	/* by index */
	uint32_t *child;		/* children of all nodes, CSR */
	uint32_t *top;			/* indices of top-level nodes */
	struct id_ref *byid;		/* id -> index */
};

struct sb_tree *sb_tree_new(void)
{
	return calloc(1, sizeof(struct sb_tree));
}

static char *copy_str(const char *s)
{
	size_t len = s ? strlen(s) : 0;
	char *d = malloc(len + 1);

	if (!d)
		return NULL;
	if (len)
		memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

int sb_tree_add(struct sb_tree *tree, uint32_t id, uint32_t parent_id,
		uint64_t raw_shares, const char *name)
{
	struct pending *p;

	if (!tree || id == 0 || tree->finalized)
		return SB_EINVAL;
	if (raw_shares > SB_SHARES_MAX || tree->npend >= SB_TREE_MAX_NODES)
		return SB_ERANGE;
	if (tree->npend == tree->cap) {
		uint32_t cap = tree->cap ? tree->cap * 2 : 64;

		p = realloc(tree->pend, (size_t)cap * sizeof(*p));
		if (!p)
			return SB_ENOMEM;
		tree->pend = p;
		tree->cap = cap;
	}
	p = &tree->pend[tree->npend];
	if (!(p->name = copy_str(name)))
		return SB_ENOMEM;
	p->id = id;
	p->parent_id = parent_id;
	p->raw = raw_shares;
	tree->npend++;
	return SB_OK;
}

static int cmp_id_ref(const void *a, const void *b)
{
	const struct id_ref *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

static uint32_t find_ref(const struct id_ref *v, uint32_t n, uint32_t id)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo < n && v[lo].id == id) ? v[lo].ref : SB_NONE;
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * Normalise one sibling group @sib[0..n) (indices into @nodes):
 *   level_shares = raw / gcd(raws), level_sum = sum of level_shares,
 *   shares_norm = level_shares / level_sum.
 * Zero and use-parent shares take no part in the gcd or the sum.  Sums stay
 * below 2^62: at most 2^22 siblings of at most 2^40 each.
 */
static void normalise_group(struct sb_tree_node *nodes, const uint32_t *sib,
			    uint32_t n)
{
	uint64_t g = 0, sum = 0;
	uint32_t i;

	for (i = 0; i < n; i++) {
		uint64_t raw = nodes[sib[i]].raw_shares;

		if (raw != SB_SHARES_USE_PARENT)
			g = gcd64(g, raw);
	}
	for (i = 0; i < n; i++) {
		struct sb_tree_node *nd = &nodes[sib[i]];

		nd->level_shares = (g && nd->raw_shares != SB_SHARES_USE_PARENT)
				   ? nd->raw_shares / g : 0;
		sum += nd->level_shares;
	}
	for (i = 0; i < n; i++) {
		struct sb_tree_node *nd = &nodes[sib[i]];

		nd->level_sum = sum;
		if (nd->raw_shares == SB_SHARES_USE_PARENT)
			nd->shares_norm = 1.0;
		else if (sum)
			nd->shares_norm = (double)((long double)nd->level_shares /
						   (long double)sum);
		else
			nd->shares_norm = 0.0;
	}
}

/*
 * One function of six numbered steps, longer than 100 lines on purpose:
 * the steps share eleven scratch arrays allocated once at the top and
 * freed once at the end (every error path is one goto); split, each step
 * would take most of them as parameters.
 */
int sb_tree_finalize(struct sb_tree *tree)
{
	struct id_ref *byid = NULL;
	uint32_t *ppar = NULL, *ccount = NULL, *cstart = NULL, *cpend = NULL;
	uint32_t *stack = NULL, *newidx = NULL, *order = NULL;
	uint32_t *child = NULL, *top = NULL;
	struct sb_tree_node *nodes = NULL;
	long double *ent = NULL;
	uint32_t n, i, ntop = 0, sp = 0, visited = 0, nleaves = 0, maxd = 0;
	int rv = SB_ENOMEM;

	if (!tree || tree->finalized)
		return SB_EINVAL;
	tree->bad_id = 0;
	n = tree->npend;
	if (n == 0) {
		tree->finalized = true;
		return SB_OK;
	}

	byid = malloc((size_t)n * sizeof(*byid));
	ppar = malloc((size_t)n * sizeof(*ppar));	/* parent, pending idx */
	ccount = calloc((size_t)n + 1, sizeof(*ccount));
	cstart = malloc(((size_t)n + 1) * sizeof(*cstart));
	cpend = malloc((size_t)n * sizeof(*cpend));	/* children, pending */
	stack = malloc((size_t)n * sizeof(*stack));
	newidx = malloc((size_t)n * sizeof(*newidx));
	order = malloc((size_t)n * sizeof(*order));	/* new idx -> pending */
	child = malloc((size_t)n * sizeof(*child));
	top = malloc((size_t)n * sizeof(*top));
	nodes = calloc((size_t)n, sizeof(*nodes));
	ent = malloc((size_t)n * sizeof(*ent));
	if (!byid || !ppar || !ccount || !cstart || !cpend || !stack ||
	    !newidx || !order || !child || !top || !nodes || !ent)
		goto out;

	/* 1. ids: sorted, unique */
	for (i = 0; i < n; i++) {
		byid[i].id = tree->pend[i].id;
		byid[i].ref = i;
	}
	qsort(byid, n, sizeof(*byid), cmp_id_ref);
	for (i = 1; i < n; i++) {
		if (byid[i].id == byid[i - 1].id) {
			tree->bad_id = byid[i].id;
			rv = SB_EDUPLICATE;
			goto out;
		}
	}

	/* 2. parents; children lists in ascending id (byid order) */
	for (i = 0; i < n; i++) {
		uint32_t pid = tree->pend[i].parent_id;

		if (pid == 0) {
			ppar[i] = SB_NONE;
			continue;
		}
		ppar[i] = find_ref(byid, n, pid);
		if (ppar[i] == SB_NONE) {
			tree->bad_id = tree->pend[i].id;
			rv = SB_ENOPARENT;
			goto out;
		}
		ccount[ppar[i]]++;
	}
	cstart[0] = 0;
	for (i = 0; i < n; i++)
		cstart[i + 1] = cstart[i] + ccount[i];
	memset(ccount, 0, ((size_t)n + 1) * sizeof(*ccount));
	for (i = 0; i < n; i++) {
		uint32_t j = byid[i].ref;

		if (ppar[j] == SB_NONE)
			stack[ntop++] = j;	/* top level, ascending id */
		else
			cpend[cstart[ppar[j]] + ccount[ppar[j]]++] = j;
	}

	/* 3. depth-first pre-order from the top level; unreached = cycle */
	for (i = ntop; i-- > 0;)
		order[sp++] = stack[i];	/* reversed: pop smallest first */
	memcpy(stack, order, (size_t)sp * sizeof(*stack));
	while (sp) {
		uint32_t j = stack[--sp], k;

		newidx[j] = visited;
		order[visited++] = j;
		for (k = cstart[j + 1]; k-- > cstart[j];)
			stack[sp++] = cpend[k];
	}
	if (visited < n) {
		/* Every node not reached lies on or below a cycle; walking up
		 * n parents from one of them lands on the cycle. */
		uint32_t j = SB_NONE, k;

		memset(ccount, 0, ((size_t)n + 1) * sizeof(*ccount));
		for (k = 0; k < visited; k++)
			ccount[order[k]] = 1;
		for (k = 0; k < n && j == SB_NONE; k++)
			if (!ccount[byid[k].ref])
				j = byid[k].ref;
		for (k = 0; k < n; k++)
			j = ppar[j];
		tree->bad_id = tree->pend[j].id;
		rv = SB_ECYCLE;
		goto out;
	}

	/* 4. nodes in the new numbering */
	for (i = 0; i < n; i++) {
		const struct pending *p = &tree->pend[order[i]];
		struct sb_tree_node *nd = &nodes[i];
		uint32_t j = order[i], k;

		nd->id = p->id;
		nd->parent = ppar[j] == SB_NONE ? SB_NONE : newidx[ppar[j]];
		nd->depth = nd->parent == SB_NONE ? 0 : nodes[nd->parent].depth + 1;
		nd->raw_shares = p->raw;
		nd->name = p->name;
		nd->nchildren = cstart[j + 1] - cstart[j];
		/* children keep ascending id, so their new indices ascend */
		for (k = 0; k < nd->nchildren; k++)
			child[cstart[j] + k] = newidx[cpend[cstart[j] + k]];
		nd->children = nd->nchildren ? &child[cstart[j]] : NULL;
		if (!nd->nchildren)
			nleaves++;
		if (nd->depth > maxd)
			maxd = nd->depth;
	}
	for (i = n; i-- > 0;) {
		struct sb_tree_node *nd = &nodes[i];

		nd->subtree_end = nd->nchildren ?
			nodes[nd->children[nd->nchildren - 1]].subtree_end : i + 1;
	}
	/* top level in index order, which is ascending id */
	for (i = 0, ntop = 0; i < n; i++)
		if (nodes[i].parent == SB_NONE)
			top[ntop++] = i;

	/* 5. shares: normalise each sibling group, then entitlement down */
	normalise_group(nodes, top, ntop);
	for (i = 0; i < n; i++)
		if (nodes[i].nchildren)
			normalise_group(nodes, nodes[i].children,
					nodes[i].nchildren);
	for (i = 0; i < n; i++) {
		struct sb_tree_node *nd = &nodes[i];
		long double up = nd->parent == SB_NONE ? 1.0L : ent[nd->parent];

		ent[i] = nd->raw_shares == SB_SHARES_USE_PARENT ? up :
			 up * ((long double)nd->level_shares /
			       (nd->level_sum ? (long double)nd->level_sum : 1.0L));
		nd->entitled = (double)ent[i];
	}

	/* 6. commit: id -> new index */
	for (i = 0; i < n; i++)
		byid[i].ref = newidx[byid[i].ref];
	tree->n = n;
	tree->nleaves = nleaves;
	tree->max_depth = maxd;
	tree->ntop = ntop;
	tree->nodes = nodes;
	tree->child = child;
	tree->top = top;
	tree->byid = byid;
	tree->finalized = true;
	nodes = NULL;
	child = NULL;
	top = NULL;
	byid = NULL;
	rv = SB_OK;
out:
	free(byid);
	free(ppar);
	free(ccount);
	free(cstart);
	free(cpend);
	free(stack);
	free(newidx);
	free(order);
	free(child);
	free(top);
	free(nodes);
	free(ent);
	return rv;
}

uint32_t sb_tree_bad_id(const struct sb_tree *tree)
{
	return tree ? tree->bad_id : 0;
}

bool sb_tree_finalized(const struct sb_tree *tree)
{
	return tree && tree->finalized;
}

uint32_t sb_tree_count(const struct sb_tree *tree)
{
	return tree && tree->finalized ? tree->n : 0;
}

uint32_t sb_tree_nleaves(const struct sb_tree *tree)
{
	return tree && tree->finalized ? tree->nleaves : 0;
}

uint32_t sb_tree_max_depth(const struct sb_tree *tree)
{
	return tree && tree->finalized ? tree->max_depth : 0;
}

const uint32_t *sb_tree_top(const struct sb_tree *tree, uint32_t *n)
{
	if (n)
		*n = 0;
	if (!tree || !tree->finalized || !tree->ntop)
		return NULL;
	if (n)
		*n = tree->ntop;
	return tree->top;
}

int sb_tree_index(const struct sb_tree *tree, uint32_t id, uint32_t *index)
{
	uint32_t ix;

	if (!tree || !index || !tree->finalized)
		return SB_EINVAL;
	ix = find_ref(tree->byid, tree->n, id);
	if (ix == SB_NONE)
		return SB_ENOTFOUND;
	*index = ix;
	return SB_OK;
}

const struct sb_tree_node *sb_tree_node(const struct sb_tree *tree,
					uint32_t index)
{
	if (!tree || !tree->finalized || index >= tree->n)
		return NULL;
	return &tree->nodes[index];
}

void sb_tree_free(struct sb_tree *tree)
{
	uint32_t i;

	if (!tree)
		return;
	for (i = 0; i < tree->npend; i++)
		free(tree->pend[i].name);
	free(tree->pend);
	free(tree->nodes);
	free(tree->child);
	free(tree->top);
	free(tree->byid);
	free(tree);
}
