/*
 * tree_list.h - a budget tree while it is read (tree.c), shared by the
 * readers of each format (tree_read.c): a list of (path, parent path,
 * shares, line) that tree.c builds into an sb_tree in one place.  Internal
 * to the simulator's tree.
 */
#ifndef SIM_TREE_LIST_H
#define SIM_TREE_LIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
	 * NULL (small lists, or no memory): sim__tlist_find() scans */
	uint32_t *h;
	size_t hcap;
};

/* Add @path (whose parent is @parent, NULL at the top) with @shares, read
 * at @line; the strings are copied.  Return 0, or -1 out of memory. */
int sim__tlist_add(struct tlist *l, const char *path, const char *parent,
		   uint64_t shares, size_t line);
/* sim__tlist_add() of @path with its parent = everything before its last
 * '/'.  Return 0, or -1 out of memory. */
int sim__tlist_add_path(struct tlist *l, const char *path, uint64_t shares,
			size_t line);
/* The index of @path's first node in @l, or -1. */
ssize_t sim__tlist_find(const struct tlist *l, const char *path);
/* (Re)build @l's path index, after paths were changed in place too. */
void sim__tlist_reindex(struct tlist *l);
/* Free what @l holds (not @l). */
void sim__tlist_free(struct tlist *l);
/* RawShares @s by sb_shares_parse() (sb/contract.h) into @out; 0, or -1
 * for anything it refuses. */
int sim__parse_shares(const char *s, uint64_t *out);

/*
 * The readers of each format (sim.h, sim_tree_load()): @text (the file
 * @name, modified in place) into @l.  Return 0, or -1 with @msg
 * "name:line: reason".
 */
int sim__tree_ours(const char *name, char *text, struct tlist *l, char *msg,
		   size_t msglen);
int sim__tree_sacctmgr(const char *name, char *text, struct tlist *l,
		       char *msg, size_t msglen);
int sim__tree_helios(const char *name, char *text, struct tlist *l,
		     char *msg, size_t msglen);
int sim__tree_dump(const char *name, char *text, struct tlist *l, char *msg,
		   size_t msglen);

#endif /* SIM_TREE_LIST_H */
