/*
 * sb/tree.h - the budget tree: associations, their shares, and each one's
 * entitled fraction of the cluster.
 *
 * The tree is Slurm's association tree (account -> sub-account -> user) and
 * a budget's weight is the association's RawShares (`sacctmgr ... set
 * fairshare=N`).  Shares are normalised among *all* siblings, idle ones too,
 * so an association's entitled fraction of the cluster is the product of the
 * normalised shares on its path from the top.
 *
 * Life cycle: sb_tree_new(), sb_tree_add() for every association in any
 * order, sb_tree_finalize() once, then read-only queries (safe from several
 * threads at once), sb_tree_free().  A changed association set is a new tree
 * (see sb_ledger_rebind() to carry usage over).
 *
 * Indices: finalize numbers the associations 0..n-1 in depth-first pre-order
 * (siblings by ascending id), so a parent's index is below its children's
 * and a subtree is the contiguous range [index, subtree_end).  Indices are
 * stable for the life of a finalized tree; ids are Slurm's association ids.
 */
#ifndef SB_TREE_H
#define SB_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "No index": the parent of a top-level association. */
#define SB_NONE UINT32_MAX

/* Largest RawShares accepted (Slurm's are 32-bit; we allow 2^40). */
#define SB_SHARES_MAX (UINT64_C(1) << 40)

/* Most associations in one tree; keeps every sum of shares below 2^62. */
#define SB_TREE_MAX_NODES (UINT32_C(1) << 22)

/*
 * One association of a finalized tree.  All fields are read-only.
 *
 * Normalisation (Slurm's assoc_mgr shares_norm):
 *   shares_norm = level_shares / level_sum, where level_shares is RawShares
 *   divided by the greatest common divisor of the RawShares of the
 *   association and its siblings, and level_sum is the sum of the siblings'
 *   level_shares (the association's own included).  Dividing by the gcd
 *   makes every result depend only on the ratios of shares: siblings with
 *   shares 2^40:2^40 behave exactly, bit for bit, as 1:1.
 *   entitled = shares_norm * parent's entitled (1 above the top level).
 *
 * RawShares 0 means "no budget": shares_norm and entitled are 0, and so is
 * the entitlement of everything below.
 *
 * RawShares SB_SHARES_USE_PARENT (sb/contract.h, Slurm's
 * SLURMDB_FS_USE_PARENT) makes the association transparent: it is left out
 * of its siblings' level_sum, its shares_norm is 1 and its entitled fraction
 * is its parent's (it spends its parent's budget), and the standing ranks it
 * first among its siblings (as Slurm's Fair Tree does for users marked
 * "parent").  A raw value equal to the sentinel always means "use parent".
 */
struct sb_tree_node {
	uint32_t id;		/* association id (> 0) */
	uint32_t parent;	/* parent's index, SB_NONE at the top level */
	uint32_t depth;		/* 0 at the top level */
	uint32_t nchildren;
	const uint32_t *children;	/* indices, ascending id; NULL if none */
	uint32_t subtree_end;	/* one past the last index of the subtree */
	uint64_t raw_shares;	/* as given to sb_tree_add() */
	uint64_t level_shares;	/* gcd-reduced shares; 0 for none/use-parent */
	uint64_t level_sum;	/* sum of level_shares over the siblings */
	double shares_norm;	/* fraction of the parent's budget, [0,1] */
	double entitled;	/* fraction of the whole cluster, [0,1] */
	const char *name;	/* never NULL; "" when none was given */
};

struct sb_tree;

/*
 * sb_tree_new - an empty, unfinalized tree.
 * Return: the tree (caller frees with sb_tree_free()), or NULL when out of
 * memory.
 */
struct sb_tree *sb_tree_new(void);

/*
 * sb_tree_add - add one association, in any order (a parent may be added
 * after its children; parents are resolved by sb_tree_finalize()).
 *
 * @id:         association id, > 0 and unique in the tree.
 * @parent_id:  the parent's association id, 0 for a top-level association.
 * @raw_shares: RawShares, 0..SB_SHARES_MAX, or SB_SHARES_USE_PARENT.
 * @name:       copied; may be NULL (stored as "").  For messages only.
 * Return: SB_OK; SB_EINVAL (NULL tree, id 0, tree already finalized),
 *         SB_ERANGE (raw_shares above SB_SHARES_MAX, or the tree already
 *         holds SB_TREE_MAX_NODES associations), SB_ENOMEM.  Duplicate ids
 *         are reported by sb_tree_finalize().
 */
int sb_tree_add(struct sb_tree *tree, uint32_t id, uint32_t parent_id,
		uint64_t raw_shares, const char *name);

/*
 * sb_tree_finalize - resolve parents, check the shape, number the nodes
 * (see "Indices" above) and compute shares_norm and entitled.  O(n log n).
 *
 * Return: SB_OK; SB_EINVAL (NULL or already finalized); SB_EDUPLICATE (an id
 * added twice), SB_ENOPARENT (a parent id that was never added),
 * SB_ECYCLE (associations that are their own ancestors), SB_ENOMEM.  On
 * error the tree stays unfinalized and unchanged: fix it with more
 * sb_tree_add() calls and finalize again, or free it; sb_tree_bad_id()
 * names the offending association.  An empty tree finalizes.
 */
int sb_tree_finalize(struct sb_tree *tree);

/*
 * sb_tree_bad_id - the association id that made the last sb_tree_finalize()
 * fail (for SB_EDUPLICATE the duplicated id, for SB_ENOPARENT the child whose
 * parent is missing, for SB_ECYCLE one member of the cycle); 0 if none.
 */
uint32_t sb_tree_bad_id(const struct sb_tree *tree);

/* sb_tree_finalized - whether sb_tree_finalize() succeeded (false for NULL). */
bool sb_tree_finalized(const struct sb_tree *tree);

/* sb_tree_count - the number of associations (0 if not finalized). */
uint32_t sb_tree_count(const struct sb_tree *tree);

/* sb_tree_nleaves - associations without children (0 if not finalized). */
uint32_t sb_tree_nleaves(const struct sb_tree *tree);

/* sb_tree_max_depth - the largest depth of a node (0 if empty). */
uint32_t sb_tree_max_depth(const struct sb_tree *tree);

/*
 * sb_tree_top - the top-level associations (parent id 0), ascending id.
 * @n: out, their number.  Return: their indices, owned by the tree; NULL
 * (and *n = 0) if the tree is empty or not finalized.
 */
const uint32_t *sb_tree_top(const struct sb_tree *tree, uint32_t *n);

/*
 * sb_tree_index - the index of association @id, O(log n).
 * Return: SB_OK with *index set; SB_ENOTFOUND; SB_EINVAL (NULL arguments
 * or the tree is not finalized).
 */
int sb_tree_index(const struct sb_tree *tree, uint32_t id, uint32_t *index);

/*
 * sb_tree_node - the association at @index.  Return: a pointer owned by the
 * tree, valid until sb_tree_free(); NULL if @index is out of range or the
 * tree is not finalized.
 */
const struct sb_tree_node *sb_tree_node(const struct sb_tree *tree,
					uint32_t index);

/* sb_tree_free - free the tree and everything it owns; NULL is a no-op. */
void sb_tree_free(struct sb_tree *tree);

#endif /* SB_TREE_H */
