/*
 * cluster.c - the simulated cluster's GPUs and where a job goes: first fit
 * (or best fit) on one node for a job of at most a node's GPUs, whole free
 * nodes for a bigger one (sim.h, "placement").  A node's GPUs are a bit
 * mask, so taking and releasing are a few instructions.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

int sim_cluster_init(struct sim_cluster *c, uint32_t nodes, uint32_t gpn)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	if (!nodes || !gpn || gpn > 64)
		return -1;
	c->free = malloc(nodes * sizeof(*c->free));
	c->nfree = malloc(nodes * sizeof(*c->nfree));
	if (!c->free || !c->nfree) {
		sim_cluster_free(c);
		return -1;
	}
	c->nodes = nodes;
	c->gpn = gpn;
	for (i = 0; i < nodes; i++) {
		c->free[i] = gpn == 64 ? UINT64_MAX : (UINT64_C(1) << gpn) - 1;
		c->nfree[i] = gpn;
	}
	c->total_free = (uint64_t)nodes * gpn;
	c->nofit = UINT32_MAX;
	return 0;
}

void sim_cluster_free(struct sim_cluster *c)
{
	free(c->free);
	free(c->nfree);
	memset(c, 0, sizeof(*c));
}

static uint64_t full_mask(uint32_t gpn)
{
	return gpn == 64 ? UINT64_MAX : (UINT64_C(1) << gpn) - 1;
}

/* Whether a job of @gpus fits, without the hint. */
static bool fits(const struct sim_cluster *c, uint32_t gpus)
{
	uint32_t i, need, got = 0;

	if (gpus > c->total_free)
		return false;
	if (gpus <= c->gpn) {
		for (i = 0; i < c->nodes; i++)
			if (c->nfree[i] >= gpus)
				return true;
		return false;
	}
	need = sim_nodes_needed(c->gpn, gpus);
	for (i = 0; i < c->nodes && got < need; i++)
		if (c->nfree[i] == c->gpn)
			got++;
	return got == need;
}

/* Fitting is monotone in @gpus (a bigger job needs a node with more free
 * GPUs, or more whole nodes), and taking GPUs never makes a job fit: so
 * once a job of g GPUs does not fit, none of g or more does until GPUs
 * are freed. */
bool sim_fits(struct sim_cluster *c, uint32_t gpus)
{
	if (gpus >= c->nofit)
		return false;
	if (fits(c, gpus))
		return true;
	c->nofit = gpus;
	return false;
}

uint32_t sim_place(struct sim_cluster *c, uint32_t gpus, uint32_t *nodes,
		   uint64_t *mask)
{
	uint32_t i, need, got = 0;

	if (!gpus || !sim_fits(c, gpus))
		return 0;
	if (gpus <= c->gpn) {
		uint32_t best = UINT32_MAX;

		for (i = 0; i < c->nodes; i++)
			if (c->nfree[i] >= gpus) {
				if (!c->best_fit) {
					best = i;
					break;
				}
				if (best == UINT32_MAX ||
				    c->nfree[i] < c->nfree[best])
					best = i;
			}
		i = best;
		{
			uint64_t m = 0, f = c->free[i];
			uint32_t k;

			for (k = 0; k < gpus; k++) {
				uint64_t low = f & -f;	/* lowest free GPU */

				m |= low;
				f &= ~low;
			}
			c->free[i] &= ~m;
			c->nfree[i] -= gpus;
			c->total_free -= gpus;
			nodes[0] = i;
			*mask = m;
			return 1;
		}
	}
	need = sim_nodes_needed(c->gpn, gpus);
	for (i = 0; i < c->nodes && got < need; i++)
		if (c->nfree[i] == c->gpn) {
			nodes[got++] = i;
			c->free[i] = 0;
			c->nfree[i] = 0;
		}
	c->total_free -= (uint64_t)need * c->gpn;
	*mask = full_mask(c->gpn);
	return need;
}

void sim_release(struct sim_cluster *c, const uint32_t *nodes, uint32_t n,
		 uint64_t mask)
{
	uint32_t i;
	uint32_t k = (uint32_t)__builtin_popcountll(mask);

	c->nofit = UINT32_MAX;
	for (i = 0; i < n; i++) {
		c->free[nodes[i]] |= mask;
		c->nfree[nodes[i]] += k;
		c->total_free += k;
	}
}
