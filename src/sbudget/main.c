/*
 * main.c - sbudget: budgets the sacctmgr way, and "why is my job where it
 * is".  Parses the command line (cli.c), reads budget.conf and the cluster's
 * name, and hands over to the command's file (see sbudget.h for the map).
 *
 * Exit status: 0 success; 1 bad arguments, refused or failed requests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <slurm/slurm_version.h>

#include "sb_config.h"
#include "sbudget.h"

static void usage(FILE *o)
{
	fprintf(o,
"Usage: sbudget [OPTIONS] COMMAND\n"
"Budgets the sacctmgr way, and why a job is where it is.\n"
"\n"
"Commands:\n"
"  show budget [where] [account=A[,B]] [user=U[,V]] [SPAN] [format=F,...]\n"
"      the budget tree: RawShares, %% of parent and cluster, owed, delivered\n"
"      and unallocated GPU-hours in the span, delivered/owed, standing;\n"
"      then all teams (leaf associations): their capped over their owed,\n"
"      hour by hour and over the lookback window, and the worst team\n"
"  modify budget where account=A [user=U] set share=N|parent\n"
"      change RawShares through slurmdbd (coordinators: their sub-tree only)\n"
"  add budget account=A[,B] [parent=P] share=N|parent [description=TEXT]\n"
"      [organization=TEXT]\n"
"      new account budgets under P (default root), through slurmdbd\n"
"  show job JOBID|ARRAYID_TASKID [format=F,...]\n"
"      the contract, protected time left, the priority in parts, the\n"
"      budget's standing, what a pending job waits for and may preempt,\n"
"      who preempted it; a job slurmctld no longer has (or any job with -D,\n"
"      --duplicates): each run's slurmdbd record, who stopped that run\n"
"  report [account=A,...] [SPAN] [step=TIME] [plot=FILE.svg] [format=F,...]\n"
"      use against quota per budget over time (and an SVG plot); then\n"
"      all teams, as show budget\n"
"  metrics [window=TIME]\n"
"      the same figures in Prometheus text format, all teams too\n"
"  page FILE.html|- [account=A,...] [SPAN] [step=TIME]\n"
"      one self-contained HTML page: the tree with standings, use against\n"
"      quota per budget over time (UTC dates), the pending jobs in the\n"
"      scheduler's order with why, the preemptions; account=A: A's sub-tree\n"
"  'list' is a synonym of 'show'; keywords are case-insensitive.\n"
"\n"
"SPAN: at most two of start=WHEN end=WHEN window=TIME; the figures cover\n"
"  [start, end); by default [now - window, now).  WHEN: YYYY-MM-DD[THH:MM[:SS]],\n"
"  now[-COUNT[seconds|minutes|hours|days|weeks]] or uts<Unix time>;\n"
"  from=/to= are synonyms of start=/end=.\n"
"\n"
"Options (anywhere on the line):\n"
"  -p, --parsable     '|' after each field     -P, --parsable2  '|' between fields\n"
"  -n, --noheader     no header line           --json           JSON output\n"
"  (all teams: two lines after the table, none with -n, -p or -P; with\n"
"  --json the keys all_teams and all_teams_window)\n"
"  -i, --immediate    commit without asking    -Q, --quiet      less output\n"
"  -h, --help         this text                -V, --version    the version\n"
"  -v, --verbose      budget.conf's path and settings on stderr\n"
"\n"
"Fields (format=Name[%%WIDTH],...):\n"
"  show budget: Account User RawShares ParentPct ClusterPct Owed Delivered\n"
"    Unallocated Capped DelivOwed Standing Status LevelFS RawUsage\n"
"    DeliveredRaw OwedRaw UnallocatedRaw CappedRaw Demand Quota DemandRaw\n"
"    QuotaRaw AssocId Start End Lost LostRaw OwedWindow CappedWindow\n"
"    DelivOwedWindow OwedWindowRaw CappedWindowRaw\n"
"  show job: JobId ArrayTask JobName User Account State Reason Stopping\n"
"    Contract MinRuntime Resumable Allocated GPUs StartTime RunTime\n"
"    ProtectedLeft ProtectedUntil HeldUntil Priority PrioTier PrioLevel\n"
"    PrioInTeam PrioResumed BudgetStanding BudgetStatus BudgetLevelFS\n"
"    JobsAhead WaitsFor MayPreempt PreemptedBy PreemptedAt PreemptReason\n"
"    Restarts Lane\n"
"  report: Account User Start End Delivered Quota Owed Demand Unallocated UsePct\n"
"    Capped DelivOwed DeliveredRaw OwedRaw UnallocatedRaw CappedRaw DemandRaw\n"
"    QuotaRaw Lost LostRaw\n"
"  (*Raw: GPU-seconds, rounded; the others GPU-hours; DelivOwed = Capped/Owed)\n"
"\n"
"TIME is Slurm's time syntax (as --time): M, M:S, H:M:S, D-H, D-H:M, D-H:M:S.\n"
"The window defaults to budget.conf's LookbackWindow.  See sbudget(1).\n");
}

static void version(void)
{
	printf("sbudget %s (built for Slurm %d.%02d.%d)\n", PACKAGE_VERSION,
	       (int)SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
	       (int)SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
	       (int)SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

/* Free what the commands loaded. */
static void ctx_free(struct sbu_ctx *c)
{
	if (c->jobs)
		slurm_free_job_info_msg(c->jobs);
	if (c->parts)
		slurm_free_partition_info_msg(c->parts);
	free(c->node_tres);
	free(c->node_off);
	sbs_free_shares(c->shares, c->nshares);
	free(c->by_index);
	sb_tree_free(c->tree);
	if (c->assocs)
		slurm_list_destroy(c->assocs);
	if (c->db)
		slurmdb_connection_close(&c->db);
}

int main(int argc, char **argv)
{
	struct sbc_cmd cmd;
	struct sbu_ctx c;
	char msg[SBC_MSG_MAX];
	int rc = 1;

	if (sbc_parse_args(argc, argv, &cmd, msg, sizeof(msg))) {
		sbu_error("%s", msg);
		return 1;
	}
	if (cmd.verb == SBC_HELP) {
		usage(stdout);
		return 0;
	}
	if (cmd.verb == SBC_VERSION) {
		version();
		return 0;
	}
	memset(&c, 0, sizeof(c));
	c.cmd = &cmd;
	c.now = (int64_t)time(NULL);
	slurm_init(NULL);
	if (sbu_load_cluster(&c) || sbu_load_budget_conf(&c))
		goto out;
	switch (cmd.verb) {
	case SBC_SHOW_BUDGET: rc = sbu_cmd_show_budget(&c); break;
	case SBC_MODIFY_BUDGET: rc = sbu_cmd_modify_budget(&c); break;
	case SBC_ADD_BUDGET: rc = sbu_cmd_add_budget(&c); break;
	case SBC_SHOW_JOB: rc = sbu_cmd_show_job(&c); break;
	case SBC_REPORT: rc = sbu_cmd_report(&c); break;
	case SBC_METRICS: rc = sbu_cmd_metrics(&c); break;
	case SBC_PAGE: rc = sbu_cmd_page(&c); break;
	default: rc = 1; break;
	}
out:
	ctx_free(&c);
	slurm_fini();
	/* the tables and JSON went to standard output: a full disk is an
	 * error, not a silent exit 0 */
	if (fflush(stdout) | ferror(stdout)) {
		sbu_error("standard output: write error");
		rc = 1;
	}
	return rc;
}
