/*
 * src/sbudget/sbudget.h - what sbudget's command files share: the context of
 * one invocation (what it learnt from Slurm, loaded on demand), the loaders,
 * the run segments behind the figures, and small helpers.
 *
 * Data only through Slurm's APIs: slurmdbd (slurmdb_associations_get,
 * slurmdb_associations_modify, slurmdb_jobs_get, slurmdb_tres_get),
 * slurmctld (slurm_load_jobs, slurm_load_job, slurm_load_node,
 * slurm_load_ctl_conf, and sshare's share request in shares.c).  Every rule
 * and figure is the core's (sb/view.h, sb/figures.h, sb/preempt.h,
 * sb/priority.h); the grammar, the span and the output formats are in
 * cli.c, values.c, span.c and output.c (no Slurm, unit-tested).  See sbudget(1).
 *
 * The files, one seam each:
 *   main.c         usage, dispatch, the exit status;
 *   load.c         connections; budget.conf, the association tree, shares,
 *                  jobs, capacity; a job's contract, party and TRES;
 *                  account filters; formatting helpers;
 *   runs.c         run segments of a span from slurmdbd, and the figures
 *                  over them (sb_figures);
 *   show_budget.c  show budget;
 *   modify.c       modify budget;
 *   show_job.c     show job (contract, protection, priority), its
 *                  private header show_job.h;
 *   job_why.c      what a pending job waits for, who preempted a job;
 *   job_records.c  show job's rows of a job's runs from slurmdbd;
 *   all_teams.c    the figures over the lookback window, and the
 *                  all-teams figures (show budget, report, metrics);
 *   report.c       report (and its SVG plot);
 *   page_cmd.c     page: the budget page (its HTML writer, page.c, has
 *                  no Slurm);
 *   metrics.c      metrics (Prometheus text).
 *
 * Naming: sbu_ for what these files share; static functions plain.  The
 * functions that fail print the reason (sbu_error()) and return -1.
 */
#ifndef SBUDGET_SBUDGET_H
#define SBUDGET_SBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

#define SB_COMPAT_CLIENT	/* list types only (compat/slurm_compat.h) */
#include "slurm_compat.h"

#include "cli.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/figures.h"
#include "sb/tree.h"
#include "sb/view.h"
#include "shares.h"

/* Job states (slurm.h has the bits, the IS_JOB_* macros are internal). */
#define SBU_JOB_BASE(j) ((j)->job_state & JOB_STATE_BASE)
#define SBU_PENDING(j) (SBU_JOB_BASE(j) == JOB_PENDING)
#define SBU_RUNNING(j) (SBU_JOB_BASE(j) == JOB_RUNNING)
#define SBU_SUSPENDED(j) (SBU_JOB_BASE(j) == JOB_SUSPENDED)

/* Everything one invocation learns from Slurm, loaded on demand by the
 * sbu_load_* functions (each loads once; a second call is a no-op). */
struct sbu_ctx {
	const struct sbc_cmd *cmd;
	int64_t now;		/* the moment of the command, read once */
	struct sb_config cfg;	/* budget.conf beside slurm.conf */
	char cluster[256];
	char state_save[4096];	/* slurmctld's StateSaveLocation */
	int64_t requeue_delay;	/* Slurm's, seconds (AuthInfo) */
	void *db;		/* slurmdbd connection */
	List assocs;		/* slurmdb_assoc_rec_t of the cluster */
	struct sb_tree *tree;	/* the budget tree (root excluded) */
	const slurmdb_assoc_rec_t **by_index;	/* tree index -> record */
	struct sbs_share *shares;
	size_t nshares;
	job_info_msg_t *jobs;	/* live jobs (slurmctld) */
	double capacity;	/* ChargeTRES in the cluster's nodes */
	bool capacity_loaded;
	double *node_tres;	/* ChargeTRES of each node, node table
				 * order (node_inx); loaded with the jobs
				 * when one pending job takes whole nodes */
	bool *node_off;		/* node takes no jobs: down, drained (or
				 * draining), failed, not responding, future */
	double capacity_off;	/* ChargeTRES of those nodes */
	uint32_t nnodes;
	partition_info_msg_t *parts;	/* likewise: the partitions */
};

/* sbu_error - "sbudget: error: <text>" on stderr. */
void sbu_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* sbu_db_error - slurmdbd (or its database) did not answer a request for
 * @what ("the associations"): say accounting is unreachable, with errno's
 * reason, and that nothing is printed.  The command then exits 1. */
void sbu_db_error(const char *what);

/* ------------------------------------------------------------ load.c */

/* The cluster's name, StateSaveLocation and requeue delay (slurmctld's
 * configuration).  First: budget.conf's reader needs StateSaveLocation. */
int sbu_load_cluster(struct sbu_ctx *c);
/* budget.conf beside slurm.conf ($SLURM_CONF's directory), through
 * sbc_budget_conf_read(): missing = the defaults; a bad file = one warning
 * on stderr and the last valid copy slurmctld keeps (or the defaults).
 * Never fails (returns 0). */
int sbu_load_budget_conf(struct sbu_ctx *c);
/* The slurmdbd connection. */
int sbu_open_db(struct sbu_ctx *c);
/* The association tree from slurmdbd, as priority/budget builds it: root's
 * own association left out, its children at the top level; partition
 * associations left out.  Fills tree and by_index. */
int sbu_load_tree(struct sbu_ctx *c);
/* What sshare shows, as priority/budget published it. */
int sbu_load_shares(struct sbu_ctx *c);
/* The live jobs (slurmctld, SHOW_ALL | SHOW_DETAIL); with the nodes'
 * ChargeTRES and the partitions when a pending job takes whole nodes. */
int sbu_load_jobs(struct sbu_ctx *c);
/* Capacity: ChargeTRES summed over the nodes' configured TRES, now. */
int sbu_load_capacity(struct sbu_ctx *c);

/* The share record of association @id; NULL when sshare has none. */
const struct sbs_share *sbu_share_of(const struct sbu_ctx *c, uint32_t id);
/* The live job @id; NULL when slurmctld has none (or jobs not loaded). */
const slurm_job_info_t *sbu_live_job(const struct sbu_ctx *c, uint32_t id);
/*
 * sbu_job_tres - ChargeTRES a job holds (running: its allocation, which
 * for a whole-node job holds its nodes' GPUs) or will hold (pending: what
 * it asks for, or for a job taking whole nodes, shared == 0, what those
 * nodes hold at least: sb_held_tres(), as preempt/budget judges it); >= 0.
 */
double sbu_job_tres(const struct sbu_ctx *c, const slurm_job_info_t *j);
/*
 * sbu_job_contract - the contract a live job runs under
 * (sb_contract_of_job: no valid tag = unallocated; resumable only when it
 * can be requeued, a batch job with its requeue flag set).  Returns
 * sb_contract_of_job()'s SB_OK or SB_EMISSING.
 */
int sbu_job_contract(const slurm_job_info_t *j, struct sb_contract *out);
/* sbu_job_party - a live job as a side of sb_preempt_decide(): contract,
 * start, current priority, TRES, tree index (SB_NONE when unknown), and
 * whether its grace time runs (preempt_time set).  Needs the tree. */
void sbu_job_party(const struct sbu_ctx *c, const slurm_job_info_t *j,
		   struct sb_preempt_party *out);

/* Whether association @a is selected by account=/user=. */
bool sbu_wanted(const struct sbc_cmd *cmd, const slurmdb_assoc_rec_t *a);
/* Whether tree index @i is shown: sbu_wanted() of its association; for
 * `page`, account=X selects X's whole sub-tree. */
bool sbu_wanted_in(const struct sbu_ctx *c, uint32_t i);
/* Every account= and user= names an existing association; -1 with a
 * message otherwise.  Needs the tree. */
int sbu_check_names(const struct sbu_ctx *c);

/* "YYYY-MM-DDTHH:MM:SS" in local time, "none" for t <= 0. */
void sbu_fmt_time(int64_t t, char *buf, size_t len);
/* Seconds to hours. */
double sbu_hours(double secs);
/* The Status word of show budget and show job (sbudget(1)). */
const char *sbu_status_of(const struct sbs_share *s, double entitled);

/* ------------------------------------------------------------ runs.c */

/*
 * sbu_figures - the figures (sb_figures) of every association over [@from,
 * @to) in slots of @slot seconds, from slurmdbd's run segments of the span
 * (sbu_load_segments).  @total: out, sb_tree_count() entries; @series: out,
 * may be NULL, count x sb_fig_nslots() entries.  Both freed by the caller.
 * Needs the tree; loads the jobs and the capacity.
 */
int sbu_figures(struct sbu_ctx *c, int64_t from, int64_t to, int64_t slot,
		struct sb_fig **total, struct sb_fig **series);

/*
 * sbu_fig_cells - the figure cells of the current row of @t (show budget
 * and report): Owed, Delivered, Unallocated, Capped, Demand, Quota in
 * hours; DelivOwed (sb_fig_ratio); DeliveredRaw, OwedRaw, UnallocatedRaw,
 * CappedRaw, DemandRaw, QuotaRaw in TRES-seconds, rounded.  @t must define all these fields.
 */
void sbu_fig_cells(struct sbc_table *t, const struct sb_fig *f);

/* sbu_step_fig - the figures of one step: the sum of @per slots of @row
 * from slot @k0 (report.c). */
struct sb_fig sbu_step_fig(const struct sb_fig *row, size_t k0, size_t per,
			   size_t nslots);

/* ------------------------------------------------------- all_teams.c */

/*
 * sbu_window_fits - whether the figures over the lookback window of
 * [@from, @to) in slots of @slot seconds fit the memory they may take
 * (every slot of every association: at most 512 MiB); when not, why
 * (with the longest span that fits) into @why.  Needs the tree.
 */
bool sbu_window_fits(const struct sbu_ctx *c, int64_t from, int64_t to,
		     int64_t slot, char *why, size_t len);
/*
 * sbu_window_figures - owed and capped over the lookback window of every
 * association from sb_figures()' @series over [@from, @to) in slots of
 * @slot seconds: the span cut into windows of LookbackWindow (rounded up
 * to whole slots) from @from (sb_fig_window()).  Return: the figures
 * (sb_tree_count() entries, to free()), or NULL after saying why.
 */
struct sb_fig *sbu_window_figures(const struct sbu_ctx *c,
				  const struct sb_fig *series, int64_t from,
				  int64_t to, int64_t slot);
/*
 * sbu_teams - the teams of the all-teams figures, in tree order: the
 * leaves of the association tree (a job runs under a user association,
 * a leaf: the associations that hold jobs, as sbudget-sim's teams are
 * the associations of its jobs) that are shown, or under an association
 * shown: @shown[i] for tree index i (NULL: every leaf).  *@teams: tree
 * indices, freed by the caller.  Needs the tree.
 */
int sbu_teams(const struct sbu_ctx *c, const bool *shown, uint32_t **teams,
	      uint32_t *nteams);
/*
 * sbu_all_teams - @out's figures (sb_fig_all_teams()) of @fig (by tree
 * index) over the @nteams @teams (sbu_teams()), and the worst team's
 * association (names borrowed from the tree's records); @out's json_key,
 * title and suffix are the caller's.
 */
int sbu_all_teams(const struct sbu_ctx *c, const uint32_t *teams,
		  uint32_t nteams, const struct sb_fig *fig,
		  struct sbc_all_teams *out);
/*
 * sbu_all_teams_pair - the two all-teams figures of show budget and
 * report: @all[0] ("all_teams") of @fig, @all[1] ("all_teams_window") of
 * @win, over the teams among the associations @shown (sbu_teams()); with
 * @win NULL, @all[1] is not computed and says @why.
 */
int sbu_all_teams_pair(const struct sbu_ctx *c, const bool *shown,
		       const struct sb_fig *fig, const struct sb_fig *win,
		       const char *why, struct sbc_all_teams *all);

/* ------------------------------------------------ shared by the commands */

/* show_budget.c: show budget's table (sbu_budget_table_init: its fields,
 * format= of @cmd), and its rows over [@from, @to): the associations
 * sbu_wanted_in() selects, in tree order; Account indented by depth when
 * @indent; each row's depth into *@depths (freed by the caller) when
 * @depths is not NULL. */
int sbu_budget_table_init(struct sbc_table *t, const struct sbc_cmd *cmd);
int sbu_budget_rows(struct sbu_ctx *c, struct sbc_table *t, int64_t from,
		    int64_t to, bool indent, uint32_t **depths);
/* show_budget.c: sbu_budget_rows(), and when @all is not NULL the
 * all-teams figures of the rows shown: @all[0] hour by hour, @all[1] over
 * the lookback window (missing when the span is too long for it). */
int sbu_budget_rows_all(struct sbu_ctx *c, struct sbc_table *t, int64_t from,
			int64_t to, bool indent, uint32_t **depths,
			struct sbc_all_teams *all);

/* job_why.c: what pending job @j waits for (show job's WaitsFor) and the
 * count of pending jobs ahead of it; the jobs, shares, capacity and tree
 * loaded.  -1 when the budget view cannot be built. */
int sbu_waits_for(const struct sbu_ctx *c, const slurm_job_info_t *j,
		  char *buf, size_t len, int64_t *ahead);
/* job_why.c: preempt/budget's last note on @j (sb_stop_note_parse's
 * 1, 0 or -1) and, when 1, show job's PreemptReason into @buf. */
int sbu_preempt_reason(const struct sbu_ctx *c, const slurm_job_info_t *j,
		       struct sb_stop_note *note, char *buf, size_t len);

/* ----------------------------------------------------- the commands */

int sbu_cmd_show_budget(struct sbu_ctx *c);	/* show_budget.c */
int sbu_cmd_modify_budget(struct sbu_ctx *c);	/* modify.c */
int sbu_cmd_add_budget(struct sbu_ctx *c);	/* modify.c */
int sbu_cmd_show_job(struct sbu_ctx *c);	/* show_job.c */
int sbu_cmd_report(struct sbu_ctx *c);		/* report.c */
int sbu_cmd_metrics(struct sbu_ctx *c);		/* metrics.c */
int sbu_cmd_page(struct sbu_ctx *c);		/* page_cmd.c */

#endif /* SBUDGET_SBUDGET_H */
