/*
 * sbudget.c - budgets the sacctmgr way, and "why is my job where it is".
 *
 * Data only through Slurm's APIs: slurmdbd (slurmdb_associations_get,
 * slurmdb_associations_modify, slurmdb_jobs_get, slurmdb_tres_get),
 * slurmctld (slurm_load_jobs, slurm_load_job, slurm_load_node,
 * slurm_load_ctl_conf, and sshare's share request in shares.c).  The
 * grammar, figures and formats are in cli.c, figures.c and output.c (no
 * Slurm, unit-tested).  See sbudget(1).
 *
 * Exit status: 0 success; 1 bad arguments, refused or failed requests.
 */
#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/slurmdb.h>

#define SB_COMPAT_CLIENT	/* list types only (plugins/common) */
#include "slurm_compat.h"

#include "cli.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"
#include "sb/preempt.h"
#include "sb/priority.h"
#include "sb/standing.h"
#include "sb/tree.h"
#include "sb_config.h"
#include "shares.h"

static const char prog[] = "sbudget";

/* Job states (slurm.h has the bits, the IS_JOB_* macros are internal). */
#define JOB_BASE(j) ((j)->job_state & JOB_STATE_BASE)
#define IS_JOB_PENDING(j) (JOB_BASE(j) == JOB_PENDING)
#define IS_JOB_RUNNING(j) (JOB_BASE(j) == JOB_RUNNING)
#define IS_JOB_SUSPENDED(j) (JOB_BASE(j) == JOB_SUSPENDED)

/* Everything one invocation learns from Slurm, loaded on demand. */
struct ctx {
	const struct sbc_cmd *cmd;
	int64_t now;
	struct sb_config cfg;	/* budget.conf beside slurm.conf */
	char cluster[256];
	void *db;		/* slurmdbd connection */
	List assocs;		/* slurmdb_assoc_rec_t of the cluster */
	struct sb_tree *tree;	/* the budget tree (root excluded) */
	const slurmdb_assoc_rec_t **by_index;	/* tree index -> record */
	struct sbs_share *shares;
	size_t nshares;
	job_info_msg_t *jobs;	/* live jobs (slurmctld) */
	double capacity;	/* ChargeTRES in the cluster's nodes */
};

static void die_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void die_msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------ loading */

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

/* budget.conf: the window and ChargeTRES; missing = the defaults. */
static int load_budget_conf(struct ctx *c)
{
	char path[4096], msg[SBC_MSG_MAX], *text = NULL;
	FILE *f;
	size_t cap = 0, len = 0, r;

	sb_config_init(&c->cfg);
	conf_path(path, sizeof(path));
	if (!(f = fopen(path, "r"))) {
		if (errno == ENOENT) {
			if (c->cmd->verbose)
				fprintf(stderr, "%s: %s not found, using the "
					"defaults: %s\n", prog, path,
					sb_config_describe(&c->cfg, msg,
							   sizeof(msg)));
			return 0;
		}
		die_msg("cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	do {
		if (len + 4096 + 1 > cap) {
			char *t = realloc(text, cap = cap ? 2 * cap : 8192);

			if (!t) {
				free(text);
				fclose(f);
				die_msg("out of memory");
				return -1;
			}
			text = t;
		}
		r = fread(text + len, 1, 4096, f);
		len += r;
	} while (r > 0);
	fclose(f);
	text[len] = '\0';
	if (sbc_budget_conf_parse(text, &c->cfg, msg, sizeof(msg))) {
		free(text);
		die_msg("%s: %s", path, msg);
		return -1;
	}
	free(text);
	if (c->cmd->verbose)
		fprintf(stderr, "%s: read %s: %s\n", prog, path,
			sb_config_describe(&c->cfg, msg, sizeof(msg)));
	return 0;
}

static int load_cluster(struct ctx *c)
{
	slurm_conf_t *conf = NULL;

	if (slurm_load_ctl_conf((time_t)0, &conf) != SLURM_SUCCESS) {
		die_msg("cannot reach slurmctld: %s", slurm_strerror(errno));
		return -1;
	}
	snprintf(c->cluster, sizeof(c->cluster), "%s",
		 conf->cluster_name ? conf->cluster_name : "");
	slurm_free_ctl_conf(conf);
	return 0;
}

static int open_db(struct ctx *c)
{
	uint16_t flags = 0;

	if (c->db)
		return 0;
	if (!(c->db = slurmdb_connection_get(&flags))) {
		die_msg("cannot reach slurmdbd: %s", slurm_strerror(errno));
		return -1;
	}
	return 0;
}

/* The association tree from slurmdbd; root's own association left out,
 * its children at the top level (as priority/budget builds it). */
static int load_tree(struct ctx *c)
{
	slurmdb_assoc_cond_t cond;
	slurmdb_assoc_rec_t *a;
	ListIterator it;
	uint32_t root_id = 0, n, i;
	int rc = SB_OK;

	if (c->tree)
		return 0;
	if (open_db(c))
		return -1;
	memset(&cond, 0, sizeof(cond));
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	c->assocs = slurmdb_associations_get(c->db, &cond);
	slurm_list_destroy(cond.cluster_list);
	if (!c->assocs) {
		die_msg("slurmdbd did not return the associations: %s",
			slurm_strerror(errno));
		return -1;
	}
	it = slurm_list_iterator_create(c->assocs);
	while ((a = slurm_list_next(it)))
		if (!a->user && a->acct && !strcmp(a->acct, "root") &&
		    (!a->parent_id || a->parent_id == NO_VAL))
			root_id = a->id;
	slurm_list_iterator_reset(it);
	c->tree = sb_tree_new();
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
		die_msg("cannot build the budget tree: %s", sb_strerror(rc));
		return -1;
	}
	n = sb_tree_count(c->tree);
	c->by_index = calloc(n ? n : 1, sizeof(*c->by_index));
	if (!c->by_index) {
		die_msg("out of memory");
		return -1;
	}
	it = slurm_list_iterator_create(c->assocs);
	while ((a = slurm_list_next(it)))
		if (sb_tree_index(c->tree, a->id, &i) == SB_OK)
			c->by_index[i] = a;
	slurm_list_iterator_destroy(it);
	return 0;
}

static int load_shares(struct ctx *c)
{
	if (c->shares)
		return 0;
	if (sbs_get_shares(&c->shares, &c->nshares)) {
		die_msg("slurmctld did not return the shares (as sshare asks): "
			"%s", slurm_strerror(errno));
		return -1;
	}
	return 0;
}

static const struct sbs_share *share_of(const struct ctx *c, uint32_t id)
{
	size_t i;

	for (i = 0; i < c->nshares; i++)
		if (c->shares[i].assoc_id == id)
			return &c->shares[i];
	return NULL;
}

static int load_jobs(struct ctx *c)
{
	if (c->jobs)
		return 0;
	if (slurm_load_jobs((time_t)0, &c->jobs, SHOW_ALL | SHOW_DETAIL)) {
		die_msg("slurmctld did not return the jobs: %s",
			slurm_strerror(errno));
		return -1;
	}
	return 0;
}

/* ChargeTRES in the cluster: the sum over nodes of their configured TRES. */
static int load_capacity(struct ctx *c)
{
	node_info_msg_t *nodes = NULL;
	uint32_t i;

	if (slurm_load_node((time_t)0, &nodes, SHOW_ALL)) {
		die_msg("slurmctld did not return the nodes: %s",
			slurm_strerror(errno));
		return -1;
	}
	c->capacity = 0;
	for (i = 0; i < nodes->record_count; i++) {
		double v = sbc_tres_count(nodes->node_array[i].tres_fmt_str,
					  c->cfg.charge_tres);

		if (v > 0)
			c->capacity += v;
	}
	slurm_free_node_info_msg(nodes);
	return 0;
}

/* The contract tag at the start of a job's AdminComment. */
static int contract_of(const char *admin_comment, struct sb_contract *out)
{
	return sb_contract_parse_tag(admin_comment, out);
}

static const slurm_job_info_t *live_job(const struct ctx *c, uint32_t id)
{
	uint32_t i;

	for (i = 0; c->jobs && i < c->jobs->record_count; i++)
		if (c->jobs->job_array[i].job_id == id)
			return &c->jobs->job_array[i];
	return NULL;
}

/* Run segments of the window from slurmdbd's job records (requeued runs
 * included), with the contract from the record or the live job. */
static int load_segments(struct ctx *c, int64_t from, int64_t to,
			 struct sbc_seg **out, size_t *nout)
{
	slurmdb_job_cond_t cond;
	slurmdb_tres_cond_t tcond;
	slurmdb_job_rec_t *j;
	slurmdb_tres_rec_t *t;
	List jobs, tres;
	ListIterator it;
	char tres_id[32] = "";
	struct sbc_seg *segs;
	size_t n = 0, cap;

	*out = NULL;
	*nout = 0;
	if (open_db(c) || load_jobs(c))
		return -1;
	slurmdb_init_tres_cond(&tcond, 0);
	if (!(tres = slurmdb_tres_get(c->db, &tcond))) {
		die_msg("slurmdbd did not return the TRES list: %s",
			slurm_strerror(errno));
		return -1;
	}
	it = slurm_list_iterator_create(tres);
	while ((t = slurm_list_next(it))) {
		char name[256];

		snprintf(name, sizeof(name), "%s%s%s", t->type ? t->type : "",
			 t->name && *t->name ? "/" : "",
			 t->name ? t->name : "");
		if (!strcasecmp(name, c->cfg.charge_tres))
			snprintf(tres_id, sizeof(tres_id), "%u", t->id);
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(tres);
	if (!tres_id[0])
		return 0;	/* nothing in accounting charges that TRES */

	memset(&cond, 0, sizeof(cond));
	cond.usage_start = from;
	cond.usage_end = to;
	cond.flags = JOBCOND_FLAG_DUP | JOBCOND_FLAG_NO_STEP |
		     JOBCOND_FLAG_NO_TRUNC;
	cond.db_flags = SLURMDB_JOB_FLAG_NOTSET;
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	jobs = slurmdb_jobs_get(c->db, &cond);
	slurm_list_destroy(cond.cluster_list);
	if (!jobs) {
		die_msg("slurmdbd did not return the job records: %s",
			slurm_strerror(errno));
		return -1;
	}
	cap = slurm_list_count(jobs) + 1;
	if (!(segs = calloc(cap, sizeof(*segs)))) {
		slurm_list_destroy(jobs);
		die_msg("out of memory");
		return -1;
	}
	it = slurm_list_iterator_create(jobs);
	while ((j = slurm_list_next(it)) && n < cap) {
		const slurm_job_info_t *live = live_job(c, j->jobid);
		struct sb_contract ct;
		struct sbc_seg *s = &segs[n];
		const char *ts = j->start ? j->tres_alloc_str : j->tres_req_str;
		double cnt;

		if (contract_of(j->admin_comment, &ct) != SB_OK &&
		    (!live || contract_of(live->admin_comment, &ct) != SB_OK))
			ct.allocated = false;	/* no contract: unallocated */
		cnt = sbc_tres_count(ts, tres_id);
		if (cnt <= 0 && !j->start && live)	/* requested, by name */
			cnt = sbc_tres_count(live->tres_req_str,
					     c->cfg.charge_tres);
		if (cnt <= 0)
			continue;
		s->assoc_id = j->associd;
		s->job_id = j->jobid;
		s->eligible = j->eligible > 0 && j->eligible <= c->now ?
			      j->eligible : 0;
		s->start = j->start > 0 ? j->start : 0;
		s->end = j->end > 0 ? j->end : 0;
		s->tres = cnt;
		s->allocated = ct.allocated;
		n++;
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(jobs);
	*out = segs;
	*nout = n;
	return 0;
}

/* ----------------------------------------------------- account filter */

static bool wanted(const struct sbc_cmd *cmd, const slurmdb_assoc_rec_t *a)
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

/* Every account= and user= names an existing association. */
static int check_names(const struct ctx *c)
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
			die_msg("unknown account '%s' on cluster %s; see "
				"'sbudget show budget' for the budgets",
				cmd->accounts[k], c->cluster);
			return -1;
		}
	}
	for (k = 0; k < cmd->nusers; k++) {
		for (i = 0; i < n; i++) {
			const slurmdb_assoc_rec_t *a = c->by_index[i];
			size_t m;
			bool acct_ok = !cmd->naccounts;

			for (m = 0; !acct_ok && m < cmd->naccounts; m++)
				acct_ok = a && a->acct &&
					  !strcasecmp(a->acct, cmd->accounts[m]);
			if (a && a->user && !strcmp(a->user, cmd->users[k]) &&
			    acct_ok)
				break;
		}
		if (i == n) {
			die_msg("no association of user '%s'%s%s on cluster "
				"%s", cmd->users[k],
				cmd->naccounts ? " in account " : "",
				cmd->naccounts ? cmd->accounts[0] : "",
				c->cluster);
			return -1;
		}
	}
	return 0;
}

/* ------------------------------------------------------- show budget */

static const struct sbc_fielddef budget_fields[] = {
	{ "Account", 0, false },	{ "User", 0, false },
	{ "RawShares", 0, true },	{ "ParentPct", 0, true },
	{ "ClusterPct", 0, true },	{ "Owed", 0, true },
	{ "Delivered", 0, true },	{ "Unallocated", 0, true },
	{ "DelivOwed", 0, true },	{ "Standing", 0, true },
	{ "Status", 0, false },		{ "LevelFS", 0, true },
	{ "RawUsage", 0, true },	{ "DeliveredRaw", 0, true },
	{ "OwedRaw", 0, true },		{ "UnallocatedRaw", 0, true },
	{ "Demand", 0, true },
	{ "Quota", 0, true },		{ "AssocId", 0, true },
};
static const char *const budget_defaults[] = {
	"Account", "User", "RawShares", "ParentPct", "ClusterPct", "Owed",
	"Delivered", "Unallocated", "DelivOwed", "Standing", "Status", NULL,
};

/*
 * In words: the budget's share of the cluster's charged usage in the window
 * (sshare's NormUsage, as priority/budget publishes it) against its
 * entitled fraction of the cluster; within 1% is "on target".
 */
static const char *status_of(const struct sbs_share *s, double entitled)
{
	double r;

	if (!s)
		return "unknown";
	if (!(entitled > 0))
		return "no budget";
	if (s->usage_raw == 0)
		return "idle";
	r = s->usage_norm / entitled;
	if (r < 0.99)
		return "under-served";
	if (r > 1.01)
		return "over-served";
	return "on target";
}

static double hours(double secs) { return secs / 3600.0; }

/* The window shown: window= or LookbackWindow. */
static int64_t window_of(const struct ctx *c)
{
	return c->cmd->window ? c->cmd->window : c->cfg.lookback_window;
}

/* Figures of every association over the window, hourly owed slots. */
static int compute(struct ctx *c, int64_t from, int64_t to, int64_t slot,
		   struct sbc_fig **total, struct sbc_fig **series)
{
	struct sbc_seg *segs = NULL;
	size_t nsegs = 0, ns = sbc_nslots(from, to, slot);
	uint32_t n = sb_tree_count(c->tree);
	int rc;

	if (load_segments(c, from, to, &segs, &nsegs) || load_capacity(c))
		return -1;
	*total = calloc(n ? n : 1, sizeof(**total));
	if (series)
		*series = calloc((n ? n : 1) * ns, sizeof(**series));
	if (!*total || (series && !*series)) {
		free(segs);
		die_msg("out of memory");
		return -1;
	}
	rc = sbc_figures(c->tree, segs, nsegs, from, to, slot, c->now,
			 c->capacity, *total, series ? *series : NULL, NULL);
	free(segs);
	if (rc)
		die_msg("cannot compute the figures");
	return rc;
}

static int cmd_show_budget(struct ctx *c)
{
	struct sbc_table t;
	struct sbc_fig *fig = NULL;
	char msg[SBC_MSG_MAX * 4];
	uint32_t n, i;
	int64_t w;
	int rc = 1;

	if (sbc_table_init(&t, budget_fields,
			   sizeof(budget_fields) / sizeof(budget_fields[0]),
			   budget_defaults, c->cmd, msg, sizeof(msg))) {
		die_msg("%s", msg);
		return 1;
	}
	if (load_tree(c) || check_names(c) || load_shares(c))
		goto out;
	w = window_of(c);
	if (compute(c, c->now - w, c->now, 3600, &fig, NULL))
		goto out;
	n = sb_tree_count(c->tree);
	for (i = 0; i < n; i++) {
		const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
		const slurmdb_assoc_rec_t *a = c->by_index[i];
		const struct sbs_share *s;
		char acct[512], raw[32];

		if (!a || !wanted(c->cmd, a))
			continue;
		s = share_of(c, a->id);
		if (sbc_table_row(&t))
			goto out;
		snprintf(acct, sizeof(acct), "%*s%s",
			 c->cmd->style == SBC_STYLE_TABLE ? (int)nd->depth : 0,
			 "", a->acct);
		sbc_table_text(&t, "Account", acct);
		sbc_table_text(&t, "User", a->user ? a->user : "");
		if (nd->raw_shares == SB_SHARES_USE_PARENT)
			sbc_table_text(&t, "RawShares", "parent");
		else
			sbc_table_int(&t, "RawShares", (int64_t)nd->raw_shares);
		sbc_table_num(&t, "ParentPct", 100 * nd->shares_norm, 2);
		sbc_table_num(&t, "ClusterPct", 100 * nd->entitled, 2);
		sbc_table_num(&t, "Owed", hours(fig[i].owed), 3);
		sbc_table_num(&t, "Delivered", hours(fig[i].delivered), 3);
		sbc_table_num(&t, "Unallocated", hours(fig[i].unallocated), 3);
		if (fig[i].owed > 0)
			sbc_table_num(&t, "DelivOwed",
				      fig[i].delivered / fig[i].owed, 3);
		sbc_table_int(&t, "DeliveredRaw",
			      (int64_t)llround(fig[i].delivered));
		sbc_table_int(&t, "OwedRaw", (int64_t)llround(fig[i].owed));
		sbc_table_int(&t, "UnallocatedRaw",
			      (int64_t)llround(fig[i].unallocated));
		sbc_table_num(&t, "Demand", hours(fig[i].demand), 3);
		sbc_table_num(&t, "Quota", hours(fig[i].quota), 3);
		sbc_table_int(&t, "AssocId", a->id);
		if (s) {
			sbc_table_num(&t, "Standing", s->fs_factor, 6);
			if (s->level_fs < DBL_MAX / 2 && isfinite(s->level_fs))
				sbc_table_num(&t, "LevelFS", s->level_fs, 6);
			else
				sbc_table_text(&t, "LevelFS", "inf");
			sbc_table_int(&t, "RawUsage", (int64_t)s->usage_raw);
		}
		snprintf(raw, sizeof(raw), "%s", status_of(s, nd->entitled));
		sbc_table_text(&t, "Status", raw);
	}
	sbc_table_print(&t, stdout, c->cmd->style, c->cmd->noheader, false,
			"budgets");
	rc = 0;
out:
	free(fig);
	sbc_table_free(&t);
	return rc;
}

/* ----------------------------------------------------- modify budget */

/* Ask as sacctmgr does: 30 seconds, N unless y/Y. */
static bool confirm(void)
{
	struct timeval tv = { .tv_sec = 30 };
	fd_set rfds;
	char line[64];

	printf("Would you like to commit changes? (You have 30 seconds to "
	       "decide)\n(N/y): ");
	fflush(stdout);
	FD_ZERO(&rfds);
	FD_SET(STDIN_FILENO, &rfds);
	if (select(STDIN_FILENO + 1, &rfds, NULL, NULL, &tv) <= 0)
		return false;
	if (!fgets(line, sizeof(line), stdin))
		return false;
	return line[0] == 'y' || line[0] == 'Y';
}

static int cmd_modify_budget(struct ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	slurmdb_assoc_cond_t cond;
	slurmdb_assoc_rec_t rec;
	List ret;
	char *s;
	ListIterator it;
	size_t k;
	int rc = 1;

	if (load_tree(c) || check_names(c))
		return 1;
	for (k = 0; k < cmd->naccounts; k++) {
		if (!strcmp(cmd->accounts[k], "root")) {
			die_msg("account 'root': the root of the tree has no "
				"budget to change; change its children's "
				"shares");
			return 1;
		}
	}
	memset(&cond, 0, sizeof(cond));
	cond.cluster_list = slurm_list_create(NULL);
	slurm_list_append(cond.cluster_list, c->cluster);
	cond.acct_list = slurm_list_create(NULL);
	for (k = 0; k < cmd->naccounts; k++)
		slurm_list_append(cond.acct_list, (void *)cmd->accounts[k]);
	if (cmd->nusers) {	/* no user list: the account associations */
		cond.user_list = slurm_list_create(NULL);
		for (k = 0; k < cmd->nusers; k++)
			slurm_list_append(cond.user_list,
					  (void *)cmd->users[k]);
	}
	slurmdb_init_assoc_rec(&rec, 0);
	rec.shares_raw = cmd->share;

	errno = 0;
	ret = slurmdb_associations_modify(c->db, &cond, &rec);
	if (!ret) {
		/* slurmdbd's reason (for example "Your user doesn't have
		 * privilege to perform this action") is printed by libslurm
		 * as it arrives; errno is its code. */
		die_msg("modify budget refused by slurmdbd: %s; nothing was "
			"changed", slurm_strerror(errno ? errno :
						  SLURM_ERROR));
		goto out;	/* nothing to roll back */
	}
	if (!slurm_list_count(ret)) {
		die_msg("nothing modified: no association matched");
		slurmdb_connection_commit(c->db, 0);
		goto out;
	}
	if (!cmd->quiet) {
		printf(" Modified budget associations (share=");
		if (cmd->share == SB_SHARES_USE_PARENT)
			printf("parent)...\n");
		else
			printf("%u)...\n", cmd->share);
		it = slurm_list_iterator_create(ret);
		while ((s = slurm_list_next(it)))
			printf("  %s\n", s);
		slurm_list_iterator_destroy(it);
	}
	if (cmd->immediate || confirm()) {
		if (slurmdb_connection_commit(c->db, 1) != SLURM_SUCCESS) {
			die_msg("slurmdbd did not commit: %s",
				slurm_strerror(errno));
			goto out;
		}
		rc = 0;
	} else {
		slurmdb_connection_commit(c->db, 0);
		printf(" Changes Discarded\n");
		rc = 1;
	}
out:
	if (ret)
		slurm_list_destroy(ret);
	slurm_list_destroy(cond.cluster_list);
	slurm_list_destroy(cond.acct_list);
	if (cond.user_list)
		slurm_list_destroy(cond.user_list);
	return rc;
}

/* ---------------------------------------------------------- show job */

static const struct sbc_fielddef job_fields[] = {
	{ "JobId", 0, false },		{ "JobName", 0, false },
	{ "User", 0, false },		{ "Account", 0, false },
	{ "State", 0, false },		{ "Reason", 0, false },
	{ "Stopping", 0, false },	{ "Contract", 0, false },	{ "MinRuntime", 0, false },
	{ "Resumable", 0, false },	{ "Allocated", 0, false },
	{ "GPUs", 0, false },		{ "StartTime", 0, false },
	{ "RunTime", 0, false },	{ "ProtectedLeft", 0, false },
	{ "ProtectedUntil", 0, false },	{ "Priority", 0, false },
	{ "PrioTier", 0, false },	{ "PrioLevel", 0, false },
	{ "PrioInTeam", 0, false },	{ "PrioResumed", 0, false },
	{ "BudgetStanding", 0, false },	{ "BudgetStatus", 0, false },
	{ "BudgetLevelFS", 0, false },	{ "JobsAhead", 0, false },
	{ "WaitsFor", 0, false },	{ "PreemptedBy", 0, false },
	{ "PreemptedAt", 0, false },	{ "PreemptReason", 0, false },
	{ "Restarts", 0, false },
};
static const char *const job_defaults[] = {
	"JobId", "JobName", "User", "Account", "State", "Reason", "Stopping",
	"Contract",
	"MinRuntime", "Resumable", "Allocated", "GPUs", "StartTime", "RunTime",
	"ProtectedLeft", "ProtectedUntil", "Priority", "PrioTier", "PrioLevel",
	"PrioInTeam", "PrioResumed", "BudgetStanding", "BudgetStatus",
	"JobsAhead", "WaitsFor", "PreemptedBy", "PreemptedAt",
	"PreemptReason", "Restarts", NULL,
};

static void fmt_time(int64_t t, char *buf, size_t len)
{
	struct tm tm;
	time_t tt = (time_t)t;

	if (t <= 0 || !localtime_r(&tt, &tm)) {
		snprintf(buf, len, "none");
		return;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
}

static const char *user_name(uint32_t uid, char *buf, size_t len)
{
	struct passwd pw, *res = NULL;
	char tmp[4096];

	if (getpwuid_r((uid_t)uid, &pw, tmp, sizeof(tmp), &res) == 0 && res)
		snprintf(buf, len, "%s", res->pw_name);
	else
		snprintf(buf, len, "%u", uid);
	return buf;
}

/* The account association of a job: user's association in the account. */
static const struct sbs_share *job_share(const struct ctx *c,
					 const slurm_job_info_t *j,
					 const char *user)
{
	size_t i;

	for (i = 0; i < c->nshares; i++) {
		const struct sbs_share *s = &c->shares[i];

		if (s->user && j->account && s->account &&
		    !strcasecmp(s->account, j->account) && !strcmp(s->user, user))
			return s;
	}
	for (i = 0; i < c->nshares; i++)	/* no user association */
		if (!c->shares[i].user && j->account && c->shares[i].account &&
		    !strcasecmp(c->shares[i].account, j->account))
			return &c->shares[i];
	return NULL;
}

/* Entitled fraction of the cluster of association @id; 0 if unknown. */
static double entitled_of(const struct ctx *c, uint32_t id)
{
	uint32_t i;

	if (!c->tree || sb_tree_index(c->tree, id, &i) != SB_OK)
		return 0;
	return sb_tree_node(c->tree, i)->entitled;
}

static double job_tres(const struct ctx *c, const slurm_job_info_t *j)
{
	const char *s = IS_JOB_PENDING(j) ? j->tres_req_str : j->tres_alloc_str;
	double v = sbc_tres_count(s, c->cfg.charge_tres);

	if (v <= 0 && !IS_JOB_PENDING(j))
		v = sbc_tres_count(j->tres_req_str, c->cfg.charge_tres);
	return v > 0 ? v : 0;
}

static void job_preempt_view(const struct ctx *c, const slurm_job_info_t *j,
			     struct sb_preempt_job *out)
{
	memset(out, 0, sizeof(*out));
	if (contract_of(j->admin_comment, &out->contract) != SB_OK)
		memset(&out->contract, 0, sizeof(out->contract));
	out->start = j->start_time;
	out->priority = j->priority;
	out->tres = (uint64_t)job_tres(c, j);
}

/*
 * Committed usage per tree index, subtree sums: the uncharged rest of
 * running allocated jobs' minimum runtimes, which priority/budget adds to
 * the charged usage it publishes when it judges standing and reclaim.
 * NULL when out of memory.
 */
static double *committed_usage(const struct ctx *c)
{
	uint32_t n = sb_tree_count(c->tree), i, idx;
	double *u = calloc(n ? n : 1, sizeof(*u));

	for (i = 0; u && i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];
		struct sb_contract ct;
		int64_t left;

		if (!IS_JOB_RUNNING(o) ||
		    contract_of(o->admin_comment, &ct) != SB_OK ||
		    !ct.allocated ||
		    sb_tree_index(c->tree, o->assoc_id, &idx) != SB_OK)
			continue;
		left = (int64_t)o->start_time + ct.min_runtime - c->now;
		if (left > 0)
			sb_usage_commit(c->tree, u, idx,
					(double)left * job_tres(c, o));
	}
	return u;
}

/*
 * The reclaim rule as preempt/budget applies it (sb_preempt_reclaim_ok):
 * where the two jobs' paths diverge, the preemptor's side must stay no
 * more over-used than the victim's after taking @delta.  Fills @who with
 * the two sides when it refuses.
 */
static bool reclaim_ok(const struct ctx *c, const double *committed,
		       uint32_t pre_assoc, uint32_t vic_assoc, double delta,
		       char *who, size_t len)
{
	uint32_t pp[64], vp[64], ip, iv, p, v;
	const struct sbs_share *sp, *sv;
	size_t np = 0, nv = 0;
	double up, uv;

	if (pre_assoc == vic_assoc || !committed ||
	    sb_tree_index(c->tree, pre_assoc, &ip) != SB_OK ||
	    sb_tree_index(c->tree, vic_assoc, &iv) != SB_OK)
		return true;
	for (p = ip; p != SB_NONE && np < 64; p = sb_tree_node(c->tree, p)->parent)
		pp[np++] = p;
	for (v = iv; v != SB_NONE && nv < 64; v = sb_tree_node(c->tree, v)->parent)
		vp[nv++] = v;
	/* from the top down while the paths agree */
	while (np && nv && pp[np - 1] == vp[nv - 1]) {
		np--;
		nv--;
	}
	if (!np || !nv)
		return true;	/* one is the other's ancestor */
	p = pp[np - 1];
	v = vp[nv - 1];
	sp = share_of(c, sb_tree_node(c->tree, p)->id);
	sv = share_of(c, sb_tree_node(c->tree, v)->id);
	up = (sp ? (double)sp->usage_raw : 0) + committed[p];
	uv = (sv ? (double)sv->usage_raw : 0) + committed[v];
	if (sb_preempt_reclaim_ok(sb_tree_node(c->tree, p)->shares_norm, up,
				  delta, sb_tree_node(c->tree, v)->shares_norm,
				  uv))
		return true;
	snprintf(who, len, "%s would be more over-used than %s",
		 sb_tree_node(c->tree, p)->name, sb_tree_node(c->tree, v)->name);
	return false;
}

/* Why a pending job waits: jobs ahead, free GPUs, what it may preempt. */
static void explain_wait(const struct ctx *c, const slurm_job_info_t *j,
			 char *buf, size_t len, int64_t *ahead_out)
{
	struct sb_preempt_job me, v;
	double busy = 0, now_free, preemptable = 0, kept = 0;
	double want = job_tres(c, j), *committed = committed_usage(c);
	int64_t ahead = 0, next_at = INT64_MAX;
	uint32_t next_job = 0, first_ahead = 0, i, first_prio = 0;
	size_t off = 0;
	char when[64], who[600] = "";

	job_preempt_view(c, j, &me);
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *o = &c->jobs->job_array[i];

		if (o->job_id == j->job_id)
			continue;
		if (IS_JOB_PENDING(o) && o->priority > j->priority &&
		    (!j->partition || !o->partition ||
		     !strcmp(j->partition, o->partition))) {
			ahead++;
			if (o->priority > first_prio) {
				first_prio = o->priority;
				first_ahead = o->job_id;
			}
		}
		if (IS_JOB_RUNNING(o) || IS_JOB_SUSPENDED(o)) {
			double g = job_tres(c, o);
			enum sb_preempt_verdict vd;

			busy += g;
			job_preempt_view(c, o, &v);
			/* as preempt/budget: a victim in its grace time is on
			 * its way out for any allocated job */
			vd = o->preempt_time ? (me.contract.allocated ?
				SB_PREEMPT_YES : SB_PREEMPT_UNALLOCATED) :
				sb_preempt_check(&c->cfg.preempt, &me, &v, c->now);
			if (vd == SB_PREEMPT_YES && v.contract.allocated &&
			    !o->preempt_time &&
			    !reclaim_ok(c, committed, j->assoc_id, o->assoc_id,
					want * (double)me.contract.min_runtime,
					who, sizeof(who))) {
				kept += g;
			} else if (vd == SB_PREEMPT_YES) {
				preemptable += g;
			} else if (me.contract.allocated && v.contract.allocated &&
				   v.priority < me.priority &&
				   sb_preempt_protected_until(&v) < next_at) {
				next_at = sb_preempt_protected_until(&v);
				next_job = o->job_id;
			}
		}
	}
	free(committed);
	now_free = c->capacity - busy;
	if (now_free < 0)
		now_free = 0;
	*ahead_out = ahead;
	off += (size_t)snprintf(buf + off, len - off, "%s: ",
				sbs_job_reason(j->state_reason));
	if (ahead && off < len)
		off += (size_t)snprintf(buf + off, len - off,
			"%lld pending job(s) of higher priority first (top: "
			"job %u); ", (long long)ahead, first_ahead);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off,
			"needs %.0f %s, %.0f idle, %.0f preemptable by it now",
			want, c->cfg.charge_tres, now_free, preemptable);
	if (!me.contract.allocated && off < len)
		off += (size_t)snprintf(buf + off, len - off,
			" (unallocated jobs never preempt)");
	if (kept > 0 && off < len)
		off += (size_t)snprintf(buf + off, len - off,
			"; %.0f more held back by the reclaim rule (taking "
			"them, %s)", kept, who);
	if (next_job && off < len) {
		fmt_time(next_at, when, sizeof(when));
		off += (size_t)snprintf(buf + off, len - off,
			"; next protected slice of a lower-priority job ends "
			"%s (job %u)", when, next_job);
	}
	if (j->state_reason == WAIT_TIME || j->eligible_time > c->now) {
		fmt_time(j->eligible_time, when, sizeof(when));
		if (off < len)
			snprintf(buf + off, len - off, "; eligible at %s", when);
	}
}

static int cmd_show_job(struct ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	job_info_msg_t *msg = NULL;
	const slurm_job_info_t *j;
	struct sbc_table t;
	struct sb_contract ct;
	struct sb_priority_parts pp;
	struct sbc_preempt_note note;
	char m[SBC_MSG_MAX * 4], buf[1024], uname[1100];
	int crc, nrc, rc = 1;
	bool running;

	if (sbc_table_init(&t, job_fields,
			   sizeof(job_fields) / sizeof(job_fields[0]),
			   job_defaults, cmd, m, sizeof(m))) {
		die_msg("%s", m);
		return 1;
	}
	if (slurm_load_job(&msg, cmd->job_id, SHOW_DETAIL) != SLURM_SUCCESS) {
		int e = errno;

		if (e == ESLURM_INVALID_JOB_ID)
			die_msg("job %u: no such job in slurmctld (a finished "
				"job stays there for MinJobAge; see 'sacct -j "
				"%u')", cmd->job_id, cmd->job_id);
		else
			die_msg("job %u: %s", cmd->job_id, slurm_strerror(e));
		goto out;
	}
	if (!msg->record_count) {
		die_msg("job %u: no such job in slurmctld", cmd->job_id);
		goto out;
	}
	j = &msg->job_array[0];
	if (load_jobs(c) || load_shares(c) || load_capacity(c) || load_tree(c))
		goto out;
	snprintf(uname, sizeof(uname), "%s", j->user_name ? j->user_name :
		 user_name(j->user_id, buf, sizeof(buf)));
	running = IS_JOB_RUNNING(j) || IS_JOB_SUSPENDED(j);
	if (sbc_table_row(&t))
		goto out;
	sbc_table_int(&t, "JobId", j->job_id);
	sbc_table_text(&t, "JobName", j->name ? j->name : "");
	sbc_table_text(&t, "User", uname);
	sbc_table_text(&t, "Account", j->account ? j->account : "");
	if (running && j->preempt_time > 0) {
		char when[64];

		fmt_time(j->preempt_time, when, sizeof(when));
		snprintf(buf, sizeof(buf), "being preempted since %s: SIGTERM "
			 "sent, %s after the grace time", when,
			 contract_of(j->admin_comment, &ct) == SB_OK &&
			 ct.resumable ? "requeued" : "stopped");
		sbc_table_text(&t, "Stopping", buf);
	}
	sbc_table_text(&t, "State", sbs_job_state(j->job_state));
	sbc_table_text(&t, "Reason", sbs_job_reason(j->state_reason));
	sbc_table_int(&t, "Restarts", j->restart_cnt);
	snprintf(buf, sizeof(buf), "%.0f", job_tres(c, j));
	sbc_table_text(&t, "GPUs", buf);

	crc = contract_of(j->admin_comment, &ct);
	if (crc == SB_OK) {
		sbc_table_text(&t, "Contract", ct.allocated ?
			       "allocated: charged to the budget, protected "
			       "for its minimum runtime" :
			       "unallocated: charged to nobody, preemptable "
			       "at any time");
		sb_duration_format(ct.min_runtime, buf, sizeof(buf));
		sbc_table_text(&t, "MinRuntime", buf);
		sbc_table_text(&t, "Resumable", ct.resumable ? "yes" : "no");
		sbc_table_text(&t, "Allocated", ct.allocated ? "yes" : "no");
	} else {
		sbc_table_text(&t, "Contract", crc == SB_ESYNTAX ?
			       "damaged tag in AdminComment" :
			       "none (submitted before job_submit/budget)");
	}
	if (running) {
		fmt_time(j->start_time, buf, sizeof(buf));
		sbc_table_text(&t, "StartTime", buf);
		sb_duration_format(c->now - j->start_time, buf, sizeof(buf));
		sbc_table_text(&t, "RunTime", buf);
		if (crc == SB_OK) {
			struct sb_preempt_job pj;
			int64_t until, left;

			job_preempt_view(c, j, &pj);
			until = sb_preempt_protected_until(&pj);
			left = until - c->now;
			fmt_time(until, buf, sizeof(buf));
			sbc_table_text(&t, "ProtectedUntil", buf);
			if (left > 0) {
				sb_duration_format(left, buf, sizeof(buf));
			} else {
				snprintf(buf, sizeof(buf), "0:00:00 (%s)",
					 ct.allocated ? "preemptable by a job "
					 "of higher priority" :
					 "unallocated: preemptable");
			}
			sbc_table_text(&t, "ProtectedLeft", buf);
		}
	}
	sbc_table_int(&t, "Priority", j->priority);
	if (sb_priority_decode(j->priority, &pp) == SB_OK) {
		sbc_table_text(&t, "PrioTier", pp.allocated ?
			       "allocated (1<<31)" : "unallocated (0)");
		snprintf(buf, sizeof(buf), "%u (budget standing, <<11)",
			 pp.level);
		sbc_table_text(&t, "PrioLevel", buf);
		snprintf(buf, sizeof(buf), "%u (512 - nice, <<1)", pp.in_team);
		sbc_table_text(&t, "PrioInTeam", buf);
		sbc_table_text(&t, "PrioResumed", pp.resumed ? "1 (requeued)" :
			       "0");
	} else {
		sbc_table_text(&t, "PrioTier", j->priority == 0 ?
			       "held (priority 0)" : "set by an administrator");
	}
	{
		const struct sbs_share *s = job_share(c, j, uname);

		if (s) {
			snprintf(buf, sizeof(buf), "%.6f", s->fs_factor);
			sbc_table_text(&t, "BudgetStanding", buf);
			if (s->level_fs < DBL_MAX / 2)
				snprintf(buf, sizeof(buf), "%.6f", s->level_fs);
			else
				snprintf(buf, sizeof(buf), "inf");
			sbc_table_text(&t, "BudgetLevelFS", buf);
			sbc_table_text(&t, "BudgetStatus",
				       status_of(s, entitled_of(c, s->assoc_id)));
		}
	}
	if (IS_JOB_PENDING(j)) {
		int64_t ahead = 0;

		explain_wait(c, j, buf, sizeof(buf), &ahead);
		sbc_table_text(&t, "WaitsFor", buf);
		sbc_table_int(&t, "JobsAhead", ahead);
	}
	nrc = sbc_parse_system_comment(j->system_comment, &note);
	if (nrc < 0) {
		sbc_table_text(&t, "PreemptReason",
			       "damaged budget: note in SystemComment");
	} else if (nrc > 0 && note.preempted) {
		struct sb_priority_parts a, b;
		const slurm_job_info_t *p = live_job(c, note.by_job);

		sbc_table_int(&t, "PreemptedBy", note.by_job);
		fmt_time(note.at, buf, sizeof(buf));
		sbc_table_text(&t, "PreemptedAt", buf);
		if (sb_priority_decode(note.preemptor_priority, &a) == SB_OK &&
		    sb_priority_decode(note.victim_priority, &b) == SB_OK)
			snprintf(buf, sizeof(buf), "job %u%s%s%s had priority "
				 "%u (%s, level %u) above this job's %u (%s, "
				 "level %u)%s", note.by_job,
				 p && p->account ? " (account " : "",
				 p && p->account ? p->account : "",
				 p && p->account ? ")" : "",
				 note.preemptor_priority,
				 a.allocated ? "allocated" : "unallocated",
				 a.level, note.victim_priority,
				 b.allocated ? "allocated" : "unallocated",
				 b.level,
				 !b.allocated ? "; unallocated jobs are "
				 "preemptable at any time" :
				 a.level > b.level ? "; this job had run its "
				 "minimum runtime (no longer protected) and the "
				 "preemptor's budget stood better" :
				 "; this job had run its minimum runtime (no "
				 "longer protected)");
		else
			snprintf(buf, sizeof(buf), "job %u had priority %u, "
				 "this job %u", note.by_job,
				 note.preemptor_priority, note.victim_priority);
		sbc_table_text(&t, "PreemptReason", buf);
	} else if (nrc > 0 && note.repair) {
		fmt_time(note.at, buf, sizeof(buf));
		sbc_table_text(&t, "PreemptedAt", buf);
		snprintf(buf, sizeof(buf), "released for repair of node %s "
			 "after its minimum runtime", note.node);
		sbc_table_text(&t, "PreemptReason", buf);
	}
	sbc_table_print(&t, stdout, cmd->style, cmd->noheader,
			cmd->style == SBC_STYLE_TABLE, "jobs");
	rc = 0;
out:
	if (msg)
		slurm_free_job_info_msg(msg);
	sbc_table_free(&t);
	return rc;
}

/* ------------------------------------------------------------ report */

static const struct sbc_fielddef report_fields[] = {
	{ "Account", 0, false },	{ "User", 0, false },
	{ "Start", 0, false },		{ "End", 0, false },
	{ "Delivered", 0, true },	{ "Quota", 0, true },
	{ "Owed", 0, true },		{ "Demand", 0, true },
	{ "Unallocated", 0, true },	{ "UsePct", 0, true },
};
static const char *const report_defaults[] = {
	"Account", "User", "Start", "Delivered", "Quota", "Owed", "Demand",
	"Unallocated", "UsePct", NULL,
};

/* Accounts shown by report and plotted: account associations (not users)
 * unless account=/user= choose. */
static bool report_wanted(const struct ctx *c, const slurmdb_assoc_rec_t *a)
{
	if (c->cmd->nusers)
		return wanted(c->cmd, a);
	return !a->user && wanted(c->cmd, a);
}

static int cmd_report(struct ctx *c)
{
	const struct sbc_cmd *cmd = c->cmd;
	struct sbc_table t;
	struct sbc_fig *tot = NULL, *ser = NULL;
	struct sbc_plot_series *ps = NULL;
	char m[SBC_MSG_MAX * 4], b0[64], b1[64];
	int64_t w = window_of(c), step, from;
	size_t ns, k, np = 0;
	uint32_t n, i;
	int rc = 1;

	step = cmd->step ? cmd->step : (w >= 24 ? w / 24 : 1);
	from = c->now - w;
	ns = sbc_nslots(from, c->now, step);
	if (sbc_table_init(&t, report_fields,
			   sizeof(report_fields) / sizeof(report_fields[0]),
			   report_defaults, cmd, m, sizeof(m))) {
		die_msg("%s", m);
		return 1;
	}
	if (load_tree(c) || check_names(c))
		goto out;
	if (compute(c, from, c->now, step, &tot, &ser))
		goto out;
	n = sb_tree_count(c->tree);
	ps = calloc(n ? n : 1, sizeof(*ps));
	if (!ps)
		goto out;
	for (i = 0; i < n; i++) {
		const slurmdb_assoc_rec_t *a = c->by_index[i];
		const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
		double *vals;

		if (!a || !report_wanted(c, a))
			continue;
		for (k = 0; k < ns; k++) {
			const struct sbc_fig *f = &ser[(size_t)i * ns + k];
			int64_t s0 = from + (int64_t)k * step;
			int64_t s1 = s0 + step < c->now ? s0 + step : c->now;

			if (sbc_table_row(&t))
				goto out;
			sbc_table_text(&t, "Account", a->acct);
			sbc_table_text(&t, "User", a->user ? a->user : "");
			fmt_time(s0, b0, sizeof(b0));
			fmt_time(s1, b1, sizeof(b1));
			sbc_table_text(&t, "Start", b0);
			sbc_table_text(&t, "End", b1);
			sbc_table_num(&t, "Delivered", hours(f->delivered), 3);
			sbc_table_num(&t, "Quota", hours(f->quota), 3);
			sbc_table_num(&t, "Owed", hours(f->owed), 3);
			sbc_table_num(&t, "Demand", hours(f->demand), 3);
			sbc_table_num(&t, "Unallocated",
				      hours(f->unallocated), 3);
			if (f->quota > 0)
				sbc_table_num(&t, "UsePct",
					      100 * f->delivered / f->quota, 1);
		}
		if (!(vals = calloc(ns, sizeof(*vals))))
			goto out;
		for (k = 0; k < ns; k++)
			vals[k] = hours(ser[(size_t)i * ns + k].delivered);
		ps[np].name = nd->name;
		ps[np].values = vals;
		ps[np].quota = hours(nd->entitled * c->capacity * (double)step);
		np++;
	}
	if (cmd->plot[0]) {
		FILE *f = fopen(cmd->plot, "w");
		char title[512];

		if (!f) {
			die_msg("plot '%s': cannot write: %s", cmd->plot,
				strerror(errno));
			goto out;
		}
		snprintf(title, sizeof(title), "Use against quota per budget, "
			 "cluster %s (%.0f %s)", c->cluster, c->capacity,
			 c->cfg.charge_tres);
		if (sbc_svg_plot(f, title, from, step, ns, ps, np) ||
		    fclose(f)) {
			die_msg("plot '%s': cannot write", cmd->plot);
			goto out;
		}
	}
	sbc_table_print(&t, stdout, cmd->style, cmd->noheader, false,
			"report");
	rc = 0;
out:
	for (k = 0; ps && k < np; k++)
		free((void *)ps[k].values);
	free(ps);
	free(tot);
	free(ser);
	sbc_table_free(&t);
	return rc;
}

/* ----------------------------------------------------------- metrics */

static void prom_labels(FILE *o, const slurmdb_assoc_rec_t *a,
			const char *cluster)
{
	fputs("{cluster=\"", o);
	sbc_prom_label(o, cluster);
	fputs("\",account=\"", o);
	sbc_prom_label(o, a->acct);
	fputs("\",user=\"", o);
	sbc_prom_label(o, a->user ? a->user : "");
	fputs("\"}", o);
}

static int cmd_metrics(struct ctx *c)
{
	static const struct {
		const char *name, *help;
	} m[] = {
		{ "sbudget_raw_shares", "RawShares of the budget" },
		{ "sbudget_share_of_parent", "Normalised share of the "
		  "parent's budget, 0..1" },
		{ "sbudget_share_of_cluster", "Entitled fraction of the "
		  "cluster, 0..1" },
		{ "sbudget_owed_gpu_hours", "Owed in the window: quota "
		  "capped by demand hour by hour" },
		{ "sbudget_delivered_gpu_hours", "Allocated occupancy in the "
		  "window" },
		{ "sbudget_unallocated_gpu_hours", "Unallocated occupancy in "
		  "the window" },
		{ "sbudget_demand_gpu_hours", "Allocated demand (pending or "
		  "running) in the window" },
		{ "sbudget_delivered_owed_ratio", "Delivered over owed (absent"
		  " when nothing is owed)" },
		{ "sbudget_standing", "Standing factor of priority/budget, "
		  "1 = best" },
		{ "sbudget_usage_charged_gpu_seconds", "Charged usage in the "
		  "window, as sshare RawUsage" },
	};
	struct sbc_fig *fig = NULL;
	uint32_t n, i, k, jr[2][2] = { { 0 } };
	double jg[2][2] = { { 0 } };
	int64_t w;
	FILE *o = stdout;

	if (load_tree(c) || load_shares(c) || load_jobs(c))
		return 1;
	w = window_of(c);
	if (compute(c, c->now - w, c->now, 3600, &fig, NULL))
		return 1;
	n = sb_tree_count(c->tree);
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		fprintf(o, "# HELP %s %s\n# TYPE %s gauge\n", m[k].name,
			m[k].help, m[k].name);
		for (i = 0; i < n; i++) {
			const slurmdb_assoc_rec_t *a = c->by_index[i];
			const struct sb_tree_node *nd = sb_tree_node(c->tree, i);
			const struct sbs_share *s = a ? share_of(c, a->id) : NULL;
			double v;

			if (!a)
				continue;
			switch (k) {
			case 0: v = nd->raw_shares == SB_SHARES_USE_PARENT ?
				    NAN : (double)nd->raw_shares; break;
			case 1: v = nd->shares_norm; break;
			case 2: v = nd->entitled; break;
			case 3: v = hours(fig[i].owed); break;
			case 4: v = hours(fig[i].delivered); break;
			case 5: v = hours(fig[i].unallocated); break;
			case 6: v = hours(fig[i].demand); break;
			case 7: v = fig[i].owed > 0 ?
				    fig[i].delivered / fig[i].owed : NAN; break;
			case 8: v = s ? s->fs_factor : NAN; break;
			default: v = s ? (double)s->usage_raw : NAN; break;
			}
			if (isnan(v))
				continue;
			fputs(m[k].name, o);
			prom_labels(o, a, c->cluster);
			fprintf(o, " %.9g\n", v);
		}
	}
	for (i = 0; i < c->jobs->record_count; i++) {
		const slurm_job_info_t *j = &c->jobs->job_array[i];
		struct sb_contract ct;
		int st = IS_JOB_PENDING(j) ? 0 : IS_JOB_RUNNING(j) ? 1 : -1;
		int tier;

		if (st < 0)
			continue;
		tier = contract_of(j->admin_comment, &ct) == SB_OK &&
		       ct.allocated;
		jr[st][tier]++;
		jg[st][tier] += job_tres(c, j);
	}
	fprintf(o, "# HELP sbudget_jobs Jobs by state and tier\n"
		"# TYPE sbudget_jobs gauge\n");
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			fprintf(o, "sbudget_jobs{cluster=\"%s\",state=\"%s\","
				"tier=\"%s\"} %u\n", c->cluster,
				i ? "running" : "pending",
				k ? "allocated" : "unallocated", jr[i][k]);
	fprintf(o, "# HELP sbudget_job_gpus GPUs held (running) or asked "
		"for (pending) by state and tier\n# TYPE sbudget_job_gpus "
		"gauge\n");
	for (i = 0; i < 2; i++)
		for (k = 0; k < 2; k++)
			fprintf(o, "sbudget_job_gpus{cluster=\"%s\",state=\"%s\","
				"tier=\"%s\"} %.0f\n", c->cluster,
				i ? "running" : "pending",
				k ? "allocated" : "unallocated", jg[i][k]);
	fprintf(o, "# HELP sbudget_capacity_gpus ChargeTRES configured on the "
		"cluster's nodes\n# TYPE sbudget_capacity_gpus gauge\n"
		"sbudget_capacity_gpus{cluster=\"%s\"} %.0f\n", c->cluster,
		c->capacity);
	fprintf(o, "# HELP sbudget_window_seconds The window of the figures\n"
		"# TYPE sbudget_window_seconds gauge\n"
		"sbudget_window_seconds{cluster=\"%s\"} %lld\n", c->cluster,
		(long long)w);
	free(fig);
	return ferror(o) ? 1 : 0;
}

/* -------------------------------------------------------------- main */

static void usage(FILE *o)
{
	fprintf(o,
"Usage: sbudget [OPTIONS] COMMAND\n"
"Budgets the sacctmgr way, and why a job is where it is.\n"
"\n"
"Commands:\n"
"  show budget [where] [account=A[,B]] [user=U[,V]] [window=TIME] [format=F,...]\n"
"      the budget tree: RawShares, %% of parent and cluster, owed, delivered\n"
"      and unallocated GPU-hours in the window, delivered/owed, standing\n"
"  modify budget where account=A [user=U] set share=N|parent\n"
"      change RawShares through slurmdbd (coordinators: their sub-tree only)\n"
"  show job JOBID [format=F,...]\n"
"      the contract, protected time left, the priority in parts, the\n"
"      budget's standing, what a pending job waits for, who preempted it\n"
"  report [account=A,...] [window=TIME] [step=TIME] [plot=FILE.svg]\n"
"      use against quota per budget over time (and an SVG plot)\n"
"  metrics [window=TIME]\n"
"      the same figures in Prometheus text format\n"
"  'list' is a synonym of 'show'; keywords are case-insensitive.\n"
"\n"
"Options (anywhere on the line):\n"
"  -p, --parsable     '|' after each field     -P, --parsable2  '|' between fields\n"
"  -n, --noheader     no header line           --json           JSON output\n"
"  -i, --immediate    commit without asking    -Q, --quiet      less output\n"
"  -h, --help         this text                -V, --version    the version\n"
"  -v, --verbose      budget.conf's path and settings on stderr\n"
"\n"
"Fields (format=Name[%%WIDTH],...):\n"
"  show budget: Account User RawShares ParentPct ClusterPct Owed Delivered\n"
"    Unallocated DelivOwed Standing Status LevelFS RawUsage DeliveredRaw\n"
"    OwedRaw UnallocatedRaw Demand Quota AssocId\n"
"  show job: JobId JobName User Account State Reason Stopping Contract MinRuntime\n"
"    Resumable Allocated GPUs StartTime RunTime ProtectedLeft ProtectedUntil\n"
"    Priority PrioTier PrioLevel PrioInTeam PrioResumed BudgetStanding\n"
"    BudgetStatus BudgetLevelFS JobsAhead WaitsFor PreemptedBy PreemptedAt\n"
"    PreemptReason Restarts\n"
"  report: Account User Start End Delivered Quota Owed Demand Unallocated UsePct\n"
"\n"
"TIME is Slurm's time syntax (as --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.\n"
"The window defaults to budget.conf's LookbackWindow.  See sbudget(1).\n");
}

int main(int argc, char **argv)
{
	struct sbc_cmd cmd;
	struct ctx c;
	char msg[SBC_MSG_MAX];
	int rc = 1;

	if (sbc_parse_args(argc, argv, &cmd, msg, sizeof(msg))) {
		die_msg("%s", msg);
		return 1;
	}
	if (cmd.verb == SBC_HELP) {
		usage(stdout);
		return 0;
	}
	if (cmd.verb == SBC_VERSION) {
		printf("%s %s (built for Slurm %d.%02d.%d)\n", prog,
		       PACKAGE_VERSION,
		       (int)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
		       (int)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		       (int)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.cmd = &cmd;
	c.now = (int64_t)time(NULL);
	slurm_init(NULL);
	if (load_budget_conf(&c) || load_cluster(&c))
		goto out;
	switch (cmd.verb) {
	case SBC_SHOW_BUDGET: rc = cmd_show_budget(&c); break;
	case SBC_MODIFY_BUDGET: rc = cmd_modify_budget(&c); break;
	case SBC_SHOW_JOB: rc = cmd_show_job(&c); break;
	case SBC_REPORT: rc = cmd_report(&c); break;
	case SBC_METRICS: rc = cmd_metrics(&c); break;
	default: rc = 1; break;
	}
out:
	if (c.jobs)
		slurm_free_job_info_msg(c.jobs);
	sbs_free_shares(c.shares, c.nshares);
	free(c.by_index);
	sb_tree_free(c.tree);
	if (c.assocs)
		slurm_list_destroy(c.assocs);
	if (c.db)
		slurmdb_connection_close(&c.db);
	slurm_fini();
	return rc;
}
