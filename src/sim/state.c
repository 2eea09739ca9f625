/*
 * state.c - the simulation state's arrays (struct sim, engine.h):
 * allocating and freeing them, and recording the first error.  The
 * backfill arrays are backfill.c's (sim__bf_init()).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sb/error.h"
#include "engine.h"


void sim__oom(struct sim *s)
{
	if (!s->err)
		snprintf(s->msg, s->msglen, "out of memory");
	s->err = -1;
}

void sim__core_fail(struct sim *s, const char *what, int rc)
{
	if (!s->err)
		snprintf(s->msg, s->msglen, "%s: %s (a bug)", what,
			 sb_strerror(rc));
	s->err = -1;
}

int sim__state_alloc(struct sim *s)
{
	size_t n = s->w->njobs ? s->w->njobs : 1, ng, i;
	uint32_t na = s->t->n;

	s->r->jobs = calloc(n, sizeof(*s->r->jobs));
	s->r->njobs = s->w->njobs;
	s->job_state = calloc(n, sizeof(*s->job_state));
	s->ngroups = sim__is_budget(s) ? 2 * na + s->lane_on : 3;
	s->queues = calloc(s->ngroups, sizeof(*s->queues));
	s->pass_order = calloc(2 * na + 3, sizeof(*s->pass_order));
	s->pass_rank = calloc(2 * na + 3, sizeof(*s->pass_rank));
	s->running = calloc(n, sizeof(*s->running));
	s->run_info = calloc(n, sizeof(*s->run_info));
	s->candidates = calloc(n, sizeof(*s->candidates));
	s->cand_spare = calloc(n, sizeof(*s->cand_spare));
	s->victims = calloc(n, sizeof(*s->victims));
	s->placed_nodes = calloc(s->p->nodes, sizeof(*s->placed_nodes));
	s->team_cap = calloc(na + 1, sizeof(*s->team_cap));
	s->team_used = calloc(na + 1, sizeof(*s->team_used));
	if (!sim__is_budget(s) && na < UINT16_MAX)
		s->team_thr = calloc(na + 1, sizeof(*s->team_thr));
	s->old_alloc_gpus = calloc(na + 1, sizeof(double));
	s->old_unalloc_gpus = calloc(na + 1, sizeof(double));
	s->usage = calloc(na + 1, sizeof(double));
	s->standing_level = calloc(na + 1, sizeof(*s->standing_level));
	s->order_changed_at = calloc(na + 1, sizeof(*s->order_changed_at));
	s->prev_order = malloc((na + 1) * sizeof(*s->prev_order));
	s->order_count = calloc(na + 1, sizeof(*s->order_count));
	s->node_room_seq = calloc(s->p->nodes ? s->p->nodes : 1,
				  sizeof(*s->node_room_seq));
	s->node_min_rank = calloc(s->p->nodes ? s->p->nodes : 1,
				  sizeof(*s->node_min_rank));
	s->node_rank_ok = calloc(s->p->nodes ? s->p->nodes : 1,
				 sizeof(*s->node_rank_ok));
	ng = (size_t)s->p->nodes * s->p->gpus_per_node + 1;
	s->gpu_job = malloc(ng * sizeof(*s->gpu_job));
	s->gpu_first_run = malloc(ng * sizeof(*s->gpu_first_run));
	s->gpu_first_n = calloc(ng, sizeof(*s->gpu_first_n));
	s->gpu_take_from = malloc(ng * sizeof(*s->gpu_take_from));
	s->node_take_sorted = malloc(ng * sizeof(*s->node_take_sorted));
	s->room_log = calloc(SIM_CHLOG, sizeof(*s->room_log));
	s->fail_view_nodes = calloc(n * SIM_VIEW_NODES,
				    sizeof(*s->fail_view_nodes));
	if (s->lane_on) {
		s->lane_pending = calloc(na + 1, sizeof(*s->lane_pending));
		s->lane_sum = calloc(na + 1, sizeof(*s->lane_sum));
		if (!s->lane_pending || !s->lane_sum) {
			sim__oom(s);
			return -1;
		}
	}
	if (!s->node_room_seq || !s->node_min_rank || !s->node_rank_ok ||
	    !s->gpu_job || !s->gpu_take_from ||
	    !s->gpu_first_run || !s->gpu_first_n ||
	    !s->node_take_sorted || !s->room_log || !s->fail_view_nodes) {
		sim__oom(s);
		return -1;
	}
	for (i = 0; i < ng; i++) {
		s->gpu_job[i] = UINT32_MAX;	/* none */
		s->gpu_take_from[i] = s->node_take_sorted[i] = INT64_MAX;
	}
	s->room_seq = 1;	/* a failed try's fail_room_seq is never 0 */
	s->rank_epoch = 1;	/* node_rank_ok 0: not known */
	s->fits_version = UINT64_MAX;	/* nothing known to fit */
	s->fit_max_version = UINT64_MAX;
	if (!s->r->jobs || !s->job_state || !s->queues || !s->pass_order ||
	    !s->pass_rank || !s->running || !s->run_info || !s->candidates ||
	    !s->cand_spare ||
	    !s->victims || !s->placed_nodes || !s->team_cap || !s->team_used ||
	    !s->old_alloc_gpus || !s->old_unalloc_gpus || !s->usage ||
	    !s->standing_level || !s->order_changed_at || !s->prev_order ||
	    !s->order_count ||
	    (!sim__is_budget(s) && na < UINT16_MAX && !s->team_thr)) {
		sim__oom(s);
		return -1;
	}
	return 0;
}

void sim__state_free(struct sim *s)
{
	uint32_t g;

	for (g = 0; s->queues && g < s->ngroups; g++)
		free(s->queues[g].entries), free(s->queues[g].gpus_byte),
			free(s->queues[g].rem_bits), free(s->queues[g].team_w),
			free(s->queues[g].by_gpus);
	free(s->queues);
	free(s->job_state);
	free(s->events);
	free(s->pass_order);
	free(s->pass_rank);
	free(s->running);
	free(s->run_info);
	free(s->candidates);
	free(s->cand_spare);
	free(s->victims);
	free(s->holds);
	free(s->arrivals);
	free(s->prot_ends);
	free(s->placed_nodes);
	free(s->team_cap);
	free(s->team_used);
	free(s->team_thr);
	free(s->old_alloc_gpus);
	free(s->old_unalloc_gpus);
	free(s->usage);
	free(s->standing_level);
	free(s->order_changed_at);
	free(s->prev_order);
	free(s->order_count);
	free(s->node_room_seq);
	free(s->gpu_job);
	free(s->node_min_rank);
	free(s->node_rank_ok);
	free(s->gpu_first_run);
	free(s->gpu_first_n);
	free(s->gpu_take_from);
	free(s->node_take_sorted);
	free(s->room_log);
	free(s->fail_view_nodes);
	free(s->fresh_runs);
	free(s->lane_pending);
	free(s->lane_sum);
	free(s->lane_running);
	free(s->lane_waiting);
	sim_cluster_free(&s->cluster);
	sim_cluster_free(&s->scratch_cluster);
	sb_ledger_free(s->ledger);
	sb_standing_free(s->standing);
	sb_view_free(&s->view);
}
