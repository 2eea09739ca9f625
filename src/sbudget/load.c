/*
 * load.c - what sbudget learns from Slurm, loaded on demand: budget.conf,
 * the cluster's name, the slurmdbd connection, the association tree, the
 * shares sshare shows, the live jobs and the capacity; a live job's
 * contract, TRES and party for the preemption verdict; the account= and
 * user= filters; small formatting helpers.  See sbudget.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <slurm/slurm_errno.h>

#include "sb/error.h"
#include "sb/job.h"
#include "sb/standing.h"
#include "sbudget.h"

void sbu_error(const char *fmt, ...)
{
	va_list ap;

	fputs("sbudget: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------- budget.conf */

static void conf_path(char *buf, size_t len)
{
	const char *c = getenv("SLURM_CONF");
	const char *slash;

	if (!c || !*c)
		c = "/etc/slurm/slurm.conf";
	slash = strrchr(c, '/');
	if (slash)
		snprintf(buf, len, "%.*s/budget.conf", (int)(slash - c), c);
	else
		snprintf(buf, len, "budget.conf");
}

/*
 * budget.conf: the window and ChargeTRES; missing = the defaults.  A bad
 * file does not stop sbudget, as it does not stop slurmctld: one warning,
 * and the last valid copy slurmctld keeps (or the defaults, said so).
 */
int sbu_load_budget_conf(struct sbu_ctx *c)
{
	char path[4096], last_valid[4096 + 32], warn[SBC_MSG_MAX * 8];
	char desc[1024];
	enum sbc_conf_source from;

	conf_path(path, sizeof(path));
	if (c->state_save[0])
		snprintf(last_valid, sizeof(last_valid),
			 "%s/budget.conf.last-valid", c->state_save);
	from = sbc_budget_conf_read(path, c->state_save[0] ? last_valid :
				    NULL, &c->cfg, warn, sizeof(warn));
	if (warn[0])
		fprintf(stderr, "sbudget: warning: %s\n", warn);
	if (c->cmd->verbose) {
		sb_config_describe(&c->cfg, desc, sizeof(desc));
		switch (from) {
		case SBC_CONF_FILE:
			fprintf(stderr, "sbudget: read %s: %s\n", path, desc);
			break;
		case SBC_CONF_MISSING:
			fprintf(stderr, "sbudget: %s not found, using the "
				"defaults: %s\n", path, desc);
			break;
		case SBC_CONF_LAST_VALID:
			fprintf(stderr, "sbudget: read %s: %s\n", last_valid,
				desc);
			break;
		case SBC_CONF_DEFAULTS:
			fprintf(stderr, "sbudget: using the defaults: %s\n",
				desc);
			break;
		}
	}
	/* what preempt/budget's cost counts (sb/view.h, sb_preempt_cost()) */
	c->cfg.preempt.requeue_delay = c->requeue_delay;
	return 0;
}

/* ----------------------------------------------------------- Slurm */

int sbu_load_cluster(struct sbu_ctx *c)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		sbu_error("cannot reach slurmctld: %s", slurm_strerror(errno));
		return -1;
	}
	snprintf(c->cluster, sizeof(c->cluster), "%s",
		 conf->cluster_name ? conf->cluster_name : "");
	snprintf(c->state_save, sizeof(c->state_save), "%s",
		 conf->state_save_location ? conf->state_save_location : "");
	c->requeue_delay = sb_requeue_delay_of_authinfo(conf->authinfo);
	sb_free_ctl_conf(conf);
	return 0;
}

void sbu_db_error(const char *what)
{
	sbu_error("accounting is unreachable: slurmdbd did not return %s (%s); "
		  "nothing is printed, as figures without slurmdbd's records "
		  "would be wrong", what, slurm_strerror(errno));
}

int sbu_open_db(struct sbu_ctx *c)
{
	uint16_t flags = 0;

	if (c->db)
		return 0;
	if (!(c->db = slurmdb_connection_get(&flags))) {
		sbu_db_error("a connection");
		return -1;
	}
	return 0;
}

/* The id of root's own association (0 when absent). */
static uint32_t root_id_of(List assocs)
{
	ListIterator it = slurm_list_iterator_create(assocs);
	slurmdb_assoc_rec_t *a;
	uint32_t id = 0;

	while ((a = slurm_list_next(it)))
		if (!a->user && a->acct && !strcmp(a->acct, "root") &&
		    (!a->parent_id || a->parent_id == NO_VAL))
			id = a->id;
	slurm_list_iterator_destroy(it);
	return id;
}

int sbu_load_tree(struct sbu_ctx *c)
{
	slurmdb_assoc_cond_t cond;
	slurmdb_assoc_rec_t *a;
	ListIterator it;
	uint32_t root_id, n, i;
	int rc = SB_OK;

	if (c->tree)
		return 0;
	if (sbu_open_db(c))
		return -1;
	memset(&cond, 0, sizeof(cond));
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	c->assocs = slurmdb_associations_get(c->db, &cond);
	slurm_list_destroy(cond.cluster_list);
	if (!c->assocs) {
		sbu_db_error("the associations");
		return -1;
	}
	root_id = root_id_of(c->assocs);
	c->tree = sb_tree_new();
	it = slurm_list_iterator_create(c->assocs);
	while (c->tree && rc == SB_OK && (a = slurm_list_next(it))) {
		char name[512];

		if (a->id == root_id || (a->partition && *a->partition))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", a->acct,
			 a->user ? "/" : "", a->user ? a->user : "");
		rc = sb_tree_add(c->tree, a->id,
				 a->parent_id == root_id ? 0 : a->parent_id,
				 a->shares_raw == NO_VAL ? 1 : a->shares_raw,
				 name);
	}
	slurm_list_iterator_destroy(it);
	if (!c->tree || rc != SB_OK || (rc = sb_tree_finalize(c->tree))) {
		sbu_error("cannot build the budget tree: %s",
			  c->tree ? sb_strerror(rc) : "out of memory");
		return -1;
	}
	n = sb_tree_count(c->tree);
	c->by_index = calloc(n ? n : 1, sizeof(*c->by_index));
	if (!c->by_index) {
		sbu_error("out of memory");
		return -1;
	}
	it = slurm_list_iterator_create(c->assocs);
	while ((a = slurm_list_next(it)))
		if (sb_tree_index(c->tree, a->id, &i) == SB_OK)
			c->by_index[i] = a;
	slurm_list_iterator_destroy(it);
	return 0;
}

int sbu_load_shares(struct sbu_ctx *c)
{
	if (c->shares)
		return 0;
	if (sbs_get_shares(&c->shares, &c->nshares)) {
		sbu_error("slurmctld did not return the shares (as sshare "
			  "asks): %s", slurm_strerror(errno));
		return -1;
	}
	return 0;
}

const struct sbs_share *sbu_share_of(const struct sbu_ctx *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->nshares; i++)
		if (c->shares[i].assoc_id == id)
			return &c->shares[i];
	return NULL;
}

/* Whether a node in @state takes no new job: down, future, or flagged
 * drain (drained or draining), fail(ing) or not responding.  Powered-down
 * nodes are resumed for a job, and reservations are the scheduler's
 * business: both count as taking jobs. */
static bool node_takes_no_jobs(uint32_t state)
{
	uint32_t base = state & NODE_STATE_BASE;

	return base == NODE_STATE_DOWN || base == NODE_STATE_FUTURE ||
	       (state & (NODE_STATE_DRAIN | NODE_STATE_FAIL |
			 NODE_STATE_NO_RESPOND));
}

/* Each node's ChargeTRES (c->node_tres) and their sum (c->capacity), which
 * nodes take no jobs (c->node_off) and their ChargeTRES (c->capacity_off). */
static int load_nodes(struct sbu_ctx *c)
{
	node_info_msg_t *nodes = NULL;
	uint32_t i;

	if (c->capacity_loaded)
		return 0;
	if (slurm_load_node((time_t)0, &nodes, SHOW_ALL)) {
		sbu_error("slurmctld did not return the nodes: %s",
			  slurm_strerror(errno));
		return -1;
	}
	c->capacity = c->capacity_off = 0;
	c->nnodes = nodes->record_count;
	c->node_tres = calloc(c->nnodes ? c->nnodes : 1, sizeof(double));
	c->node_off = calloc(c->nnodes ? c->nnodes : 1, sizeof(bool));
	if (!c->node_tres || !c->node_off) {
		slurm_free_node_info_msg(nodes);
		sbu_error("out of memory");
		return -1;
	}
	for (i = 0; i < nodes->record_count; i++) {
		double v = nodes->node_array[i].name ?
			sbc_tres_count(nodes->node_array[i].tres_fmt_str,
				       c->cfg.charge_tres) : 0;

		if (v > 0) {
			c->capacity += v;
			c->node_tres[i] = v;
		}
		c->node_off[i] = node_takes_no_jobs(
			nodes->node_array[i].node_state);
		if (c->node_off[i])
			c->capacity_off += c->node_tres[i];
	}
	slurm_free_node_info_msg(nodes);
	c->capacity_loaded = true;
	return 0;
}

int sbu_load_jobs(struct sbu_ctx *c)
{
	uint32_t i;
	bool whole = false;

	if (c->jobs)
		return 0;
	if (slurm_load_jobs((time_t)0, &c->jobs, SHOW_ALL | SHOW_DETAIL)) {
		sbu_error("slurmctld did not return the jobs: %s",
			  slurm_strerror(errno));
		return -1;
	}
	for (i = 0; i < c->jobs->record_count; i++)
		if (SBU_PENDING(&c->jobs->job_array[i]) &&
		    c->jobs->job_array[i].shared == 0)
			whole = true;
	if (!whole)
		return 0;
	if (load_nodes(c))
		return -1;
	if (slurm_load_partitions((time_t)0, &c->parts, SHOW_ALL)) {
		c->parts = NULL;
		sbu_error("slurmctld did not return the partitions: %s",
			  slurm_strerror(errno));
		return -1;
	}
	return 0;
}

int sbu_load_capacity(struct sbu_ctx *c)
{
	return load_nodes(c);
}

/* ------------------------------------------------------------- jobs */

const slurm_job_info_t *sbu_live_job(const struct sbu_ctx *c, uint32_t id)
{
	uint32_t i;

	for (i = 0; c->jobs && i < c->jobs->record_count; i++)
		if (c->jobs->job_array[i].job_id == id)
			return &c->jobs->job_array[i];
	return NULL;
}

/* Whether node @i is in the index pairs @inx (start, end, ..., -1). */
static bool in_pairs(const int32_t *inx, uint32_t i)
{
	size_t k;

	for (k = 0; inx && inx[k] >= 0 && inx[k + 1] >= 0; k += 2)
		if ((int64_t)i >= inx[k] && (int64_t)i <= inx[k + 1])
			return true;
	return false;
}

/* The node index pairs of the job's (first) partition; NULL if unknown. */
static const int32_t *part_nodes(const struct sbu_ctx *c,
				 const slurm_job_info_t *j)
{
	size_t len;
	uint32_t i;

	if (!c->parts || !j->partition)
		return NULL;
	len = strcspn(j->partition, ",");
	for (i = 0; i < c->parts->record_count; i++) {
		const partition_info_t *p = &c->parts->partition_array[i];

		if (p->name && strlen(p->name) == len &&
		    !strncmp(p->name, j->partition, len))
			return p->node_inx;
	}
	return NULL;
}

/* What node_of() reads: the context and the job. */
struct node_arg {
	const struct sbu_ctx *c;
	const slurm_job_info_t *j;
	const int32_t *part;	/* part_nodes() of the job */
};

/* Node @i of the node table as the pending job of @arg sees it. */
static void node_of(const void *arg, uint32_t i, struct sb_job_node *out)
{
	const struct node_arg *a = arg;

	out->tres = (uint64_t)a->c->node_tres[i];
	out->required = in_pairs(a->j->req_node_inx, i);
	out->eligible = !a->part || in_pairs(a->part, i);
}

/* The facts sb_job_tres() reads, the node table through @na.  A job that
 * has run counts its allocation, or its request when libslurm reports no
 * allocation of ChargeTRES. */
static void tres_facts(const struct sbu_ctx *c, const slurm_job_info_t *j,
		       struct node_arg *na, struct sb_job_facts *f)
{
	double req = sbc_tres_count(j->tres_req_str, c->cfg.charge_tres);
	double alloc = sbc_tres_count(j->tres_alloc_str, c->cfg.charge_tres);

	f->has_run = sb_job_has_run(SBU_PENDING(j),
				    j->job_state & (JOB_REQUEUE | JOB_COMPLETING));
	f->tres_req = req > 0 ? (uint64_t)req : 0;
	f->tres_alloc = alloc > 0 ? (uint64_t)alloc : f->tres_req;
	f->whole_node = j->shared == 0;
	if (!c->node_tres)
		return;
	f->min_nodes = j->num_nodes;
	f->nnodes = c->nnodes;
	na->c = c;
	na->j = j;
	na->part = part_nodes(c, j);
	f->node = node_of;
	f->node_arg = na;
}

double sbu_job_tres(const struct sbu_ctx *c, const slurm_job_info_t *j)
{
	struct sb_job_facts f = { 0 };
	struct node_arg na;

	tres_facts(c, j, &na, &f);
	return (double)sb_job_tres(&f);
}

/* The job's facts for the core (sb/job.h); the TRES and suspended time are
 * left to sbu_job_party(), which needs the context (tres_facts()). */
static void job_facts(const slurm_job_info_t *j, struct sb_job_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->admin_comment = j->admin_comment;
	f->system_comment = j->system_comment;
	f->requeue_ok = j->batch_flag && j->requeue;
	f->phase = SBU_PENDING(j)   ? SB_JOB_PENDING :
		   SBU_RUNNING(j)   ? SB_JOB_RUNNING :
		   SBU_SUSPENDED(j) ? SB_JOB_SUSPENDED :
				      SB_JOB_ENDED;
	f->start = j->start_time;
	f->preempt_time = j->preempt_time;
	f->priority = j->priority;
	f->time_limit = sb_limit_secs(j->time_limit);
	f->eligible = j->eligible_time;
}

int sbu_job_contract(const slurm_job_info_t *j, struct sb_contract *out)
{
	struct sb_job_facts f;

	job_facts(j, &f);
	return sb_job_contract(&f, out);
}

void sbu_job_party(const struct sbu_ctx *c, const slurm_job_info_t *j,
		   struct sb_preempt_party *out)
{
	struct sb_job_facts f;
	struct node_arg na;

	job_facts(j, &f);
	tres_facts(c, j, &na, &f);
	/* suspended so far: what did not run of start..now (the job record
	 * gives pre_sus_time, the run before the last suspension, and
	 * suspend_time, the last suspension or resumption) */
	if (j->start_time && j->suspend_time) {
		int64_t ran = j->pre_sus_time;

		if (SBU_RUNNING(j) && c->now > j->suspend_time)
			ran += c->now - j->suspend_time;
		if (c->now - (int64_t)j->start_time > ran)
			f.suspended = c->now - j->start_time - ran;
	}
	sb_job_party(&f, out);
	if (!c->tree || sb_tree_index(c->tree, j->assoc_id, &out->index) !=
	    SB_OK)
		out->index = SB_NONE;
}

/* --------------------------------------------------- account filter */

bool sbu_wanted(const struct sbc_cmd *cmd, const slurmdb_assoc_rec_t *a)
{
	size_t i;
	bool ok = !cmd->naccounts;

	for (i = 0; !ok && i < cmd->naccounts; i++)
		ok = a->acct && !strcasecmp(a->acct, cmd->accounts[i]);
	if (!ok)
		return false;
	if (!cmd->nusers)
		return true;
	for (i = 0; i < cmd->nusers; i++)
		if (a->user && !strcmp(a->user, cmd->users[i]))
			return true;
	return false;
}

bool sbu_wanted_in(const struct sbu_ctx *c, uint32_t i)
{
	const struct sbc_cmd *cmd = c->cmd;
	uint32_t j;
	size_t m;

	if (cmd->verb != SBC_PAGE)
		return c->by_index[i] && sbu_wanted(cmd, c->by_index[i]);
	if (!cmd->naccounts)
		return true;
	/* the page: account=X is X's sub-tree, X's account association and
	 * everything below it */
	for (j = i; j != SB_NONE; j = sb_tree_node(c->tree, j)->parent) {
		const slurmdb_assoc_rec_t *a = c->by_index[j];

		if (!a || a->user || !a->acct)
			continue;
		for (m = 0; m < cmd->naccounts; m++)
			if (!strcasecmp(a->acct, cmd->accounts[m]))
				return true;
	}
	return false;
}

/* Whether association @a is of one of the account= accounts (any when
 * none was given). */
static bool in_accounts(const struct sbc_cmd *cmd,
			const slurmdb_assoc_rec_t *a)
{
	size_t m;

	if (!cmd->naccounts)
		return true;
	for (m = 0; m < cmd->naccounts; m++)
		if (a && a->acct && !strcasecmp(a->acct, cmd->accounts[m]))
			return true;
	return false;
}

int sbu_check_names(const struct sbu_ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	uint32_t n = sb_tree_count(c->tree), i;
	size_t k;

	for (k = 0; k < cmd->naccounts; k++) {
		for (i = 0; i < n; i++)
			if (c->by_index[i] && c->by_index[i]->acct &&
			    !strcasecmp(c->by_index[i]->acct, cmd->accounts[k]))
				break;
		if (i == n) {
			sbu_error("unknown account '%s' on cluster %s; see "
				  "'sbudget show budget' for the budgets",
				  cmd->accounts[k], c->cluster);
			return -1;
		}
	}
	for (k = 0; k < cmd->nusers; k++) {
		for (i = 0; i < n; i++) {
			const slurmdb_assoc_rec_t *a = c->by_index[i];

			if (a && a->user && !strcmp(a->user, cmd->users[k]) &&
			    in_accounts(cmd, a))
				break;
		}
		if (i == n) {
			sbu_error("no association of user '%s'%s%s on cluster "
				  "%s", cmd->users[k],
				  cmd->naccounts ? " in account " : "",
				  cmd->naccounts ? cmd->accounts[0] : "",
				  c->cluster);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------ formatting */

void sbu_fmt_time(int64_t t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (t <= 0 || !localtime_r(&tt, &tm)) {
		snprintf(buf, len, "none");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

double sbu_hours(double secs)
{
	return secs / 3600.0;
}

/*
 * In words: the budget's share of the cluster's charged usage in the window
 * (sshare's NormUsage, as priority/budget publishes it) against its
 * entitled fraction of the cluster: the core's sb_served() (sb/standing.h).
 */
const char *sbu_status_of(const struct sbs_share *s, double entitled)
{
	if (!s)
		return "unknown";
	return sb_served_str(sb_served(s->usage_norm, entitled, s->usage_raw));
}
