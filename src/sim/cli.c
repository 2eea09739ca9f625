/*
 * cli.c - sbudget-sim's command line: the help text, the options and
 * their checks (plain decimal numbers in range, names from a fixed list),
 * and the output files the commands write.  See cli.h.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "sb_config.h"

#include "sb/error.h"
#include "sb/ledger.h"
#include "sb/priority.h"
#include "sim_cli.h"

const char cli_usage[] =
"usage: sbudget-sim [run] --jobs FILE --tree FILE [options]\n"
"       sbudget-sim convert --jobs FILE --tree FILE [options] [--out FILE]\n"
"       sbudget-sim metrics --segments FILE --tree FILE --gpus N [options]\n"
"       sbudget-sim tree --tree FILE\n"
"\n"
"run: simulate a job table on a GPU cluster with the policy core of the\n"
"slurm-budget plugins (tree, ledger, standing, priority, contract,\n"
"preemption) and report queue waits, owed vs delivered GPU time per team,\n"
"occupancy and preemptions.\n"
"  --jobs FILE          job table: CSV with a header naming submit_time_s,\n"
"                       duration_s,gpus,team[,user,min_runtime_s,resumable,\n"
"                       priority,time_limit_s], or SWF (*.swf, or ';'\n"
"                       header lines)\n"
"  --tree FILE          budget tree: lines 'path shares', or the output of\n"
"                       `sacctmgr -P show assoc format=account,user,\n"
"                       parentname,fairshare`, or `sacctmgr dump CLUSTER`,\n"
"                       or Helios per-VC GPU counts\n"
"  --conf FILE          budget.conf (the plugins' keys: CalcPeriod,\n"
"                       LookbackWindow, BucketWidth, MaxMinRuntime,\n"
"                       PreemptGraceTime, PreemptNonResumable, ...)\n"
"  --policy P           budget (default) or baseline (static LOW/NORMAL/HIGH,\n"
"                       per-team cap of non-preemptible GPUs)\n"
"  --nodes N            nodes (default 128)\n"
"  --gpus-per-node G    GPUs per node, 1..64 (default 8)\n"
"  --seed N             seed of every assignment (default 1)\n"
"  --assign-teams       ignore the trace's team column: assign each job a\n"
"                       budget with shares > 0, seeded, chance proportional\n"
"                       to its entitled share\n"
"  --from S --span S    keep jobs submitted in [S, S+span) of the trace's\n"
"                       time; their times become (t - S) x --time-scale\n"
"  --max-jobs N         keep the first N jobs (by submit time)\n"
"  --time-scale F       multiply every time by F (> 0)\n"
"  --max-gpus N         clamp jobs to N GPUs\n"
"  --requeue-delay S    a requeued job waits S s before it is eligible\n"
"                       (default 121: Slurm's cred_expire + 1); an\n"
"                       unallocated job S x 2^(k-1)\n"
"                       before its k-th restart, at most budget.conf's\n"
"                       UnallocatedRestartBackoffMax\n"
"  --requeue-work W     resume (default: a requeued resumable job keeps\n"
"                       what it ran) or restart (it runs its whole duration\n"
"                       again); a job that is not resumable always restarts\n"
"  --no-requeue F       the fraction 0..1 of jobs that cannot be requeued\n"
"                       (--no-requeue, salloc/srun; seeded draw, default 0):\n"
"                       cancelled when preempted, as by preempt/budget\n"
"  --time-limit-factor F\n"
"                       a job whose trace gives no time limit (CSV column\n"
"                       time_limit_s, SWF field 9) asks for F x its\n"
"                       duration, rounded up to whole minutes (the\n"
"                       f-model; 1..1000, default 2); backfill plans with\n"
"                       limits, and a non-resumable job is not preempted\n"
"                       once its run is longer than what its limit leaves\n"
"  --resubmit-delay D   a job cancelled by preemption is submitted again by\n"
"                       its user D later (Slurm time syntax: 5:00 is five\n"
"                       minutes, the default), as a new job with its whole\n"
"                       duration; its demand counts from the cancel on;\n"
"                       at most " SIM_STR(SIM_RESUBMIT_MAX) " times per job (then it is given up);\n"
"                       none: never resubmitted\n"
"  --backfill B         reserve[:N] (default, N 1: as Slurm's backfill, the\n"
"                       first N jobs of a pass that cannot start get a\n"
"                       reservation, the earliest time enough GPUs free\n"
"                       up, and a lower job starts only if it does not\n"
"                       delay it), greedy (a lower job starts whenever it\n"
"                       fits) or none (a pass stops at the first job that\n"
"                       cannot start)\n"
"  --placement P        first-fit (default: the lowest node with room) or\n"
"                       best-fit (the node with the fewest free GPUs that\n"
"                       are enough)\n"
"  --leftovers L        next-pass (default: GPUs a preemption frees beyond\n"
"                       the preemptor's need are usable after the pass, as\n"
"                       in Slurm, where victims complete after the cycle\n"
"                       that chose them) or at-once\n"
"  --until S            stop the simulation at S seconds\n"
"  --window A:B         report over [A, B) (default: first submit to the\n"
"                       end of the simulation)\n"
"  --budgets            the text report also lists every budget's quota,\n"
"                       owed, delivered, capped and unallocated GPU-seconds\n"
"                       (subtree sums; the JSON always has them)\n"
"  --json FILE          the report as JSON ('-' = stdout)\n"
"  --svg-gpus FILE      per-GPU chart, of --svg-range A:B (default the\n"
"                       first 24 h of the window)\n"
"  --svg-teams FILE     per-team delivered vs quota chart\n"
"  --segments FILE      write the run segments in the format `metrics`\n"
"                       reads (with the eligible_s column)\n"
"  --quiet              no text summary on stdout\n"
"  --stats              wall time, events/s and peak RSS on stderr\n"
"\n"
"convert: read a trace (as run, same slicing and assignment options, plus\n"
"--gpus-per-node G to round multi-node jobs up to whole nodes) and write\n"
"the canonical CSV (the eight columns contrib/replay.sh reads: no\n"
"time_limit_s) to --out (default stdout); what was assigned goes to\n"
"stderr.\n"
"\n"
"metrics: the report of run from observed run segments: a CSV with the\n"
"header job,team,gpus,min_runtime_s,submit_s,start_s,end_s,preempted\n"
"[,eligible_s], one line per run (start_s empty for a job that never\n"
"started, end_s then empty or when it left the queue; min_runtime_s empty\n"
"= no contract: unallocated; preempted 0 = no, 1 = preempted and its work\n"
"lost, 2 = preempted and resumed later; eligible_s when the run's job\n"
"began to ask, default submit_s, or the previous run's end).\n"
"  --tree FILE --gpus N (the cluster's GPUs: the capacity owed is shared\n"
"  from), --window A:B (default: first submit to the last end), --now S\n"
"  (open pending spans end there; default B), --budgets, --json FILE,\n"
"  --svg-teams FILE, --quiet, --waits FILE (why jobs waited, lines\n"
"  JOB|REASON: the verdict names them with it; contrib/replay.sh writes it\n"
"  from `sbudget show job`).\n"
"\n"
"tree: print the budget tree as 'path shares' lines (RawShares as read;\n"
"a Helios table gives one top-level team per column), the format --tree\n"
"reads and contrib/replay.sh turns into accounts.\n"
"\n"
"-h, --help prints this text; -V, --version the version.\n"
"Exit status: 0 on success, 2 for cli_bad arguments or input.\n";


int cli_bad(const char *fmt, ...)
{
	va_list ap;

	fputs("sbudget-sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

/* Whether @v is written as a plain decimal number: digits (a '-' first is
 * left to the range check), and for a real number '.' and an exponent;
 * strtoll/strtod alone would skip blanks, take '+' and hexadecimal. */
static bool plain(const char *v, bool real)
{
	const char *p;

	if (!v || !(isdigit((unsigned char)v[0]) || v[0] == '-' ||
		    (real && v[0] == '.')))
		return false;
	for (p = v + 1; *p; p++)
		if (!isdigit((unsigned char)*p) &&
		    !(real && strchr(".eE+-", *p)))
			return false;
	return true;
}

/* A plain decimal number @v, not negative, finite, in [@lo, @hi], into
 * *@out; false (nothing stored) otherwise. */
static bool real_in(const char *v, double lo, double hi, double *out)
{
	char *end;
	double d;

	if (!plain(v, true) || v[0] == '-')
		return false;
	errno = 0;
	d = strtod(v, &end);
	if (errno || *end || !isfinite(d) || d < lo || d > hi)
		return false;
	*out = d;
	return true;
}

static int num(const char *opt, const char *v, int64_t lo, int64_t hi,
	       int64_t *out)
{
	char *end;
	long long x = 0;
	bool ok = plain(v, false);

	if (ok) {
		errno = 0;
		x = strtoll(v, &end, 10);
		ok = !errno && !*end && x >= lo && x <= hi;
	}
	if (!ok)
		return cli_bad(
			"%s '%s' is not accepted: a whole number %" PRId64
			"..%" PRId64,
			opt, v ? v : "", lo, hi);
	*out = x;
	return 0;
}

static int range(const char *opt, const char *v, int64_t *a, int64_t *b)
{
	const char *colon = v ? strchr(v, ':') : NULL;
	char left[64];

	if (!colon || (size_t)(colon - v) >= sizeof(left))
		return cli_bad(
			"%s '%s' is not accepted: give FROM:TO in seconds, "
			"FROM < TO",
			opt, v ? v : "");
	memcpy(left, v, (size_t)(colon - v));
	left[colon - v] = '\0';
	if (num(opt, left, 0, SB_TIME_MAX, a) ||
	    num(opt, colon + 1, 0, SB_TIME_MAX, b))
		return 2;
	if (*a >= *b)
		return cli_bad("%s '%s' is not accepted: FROM must be below TO",
			   opt, v);
	return 0;
}

/* One of the options that pick among words.  Return 0 (set), 2 (refused,
 * said), -1 (not one of them). */
static int choice(const char *a, const char *v, struct opts *o)
{
	static const struct {
		const char *opt, *yes, *no;	/* yes: the flag set */
	} tab[] = {
		{ "--policy", "baseline", "budget" },
		{ "--requeue-work", "restart", "resume" },
		{ "--placement", "best-fit", "first-fit" },
		{ "--leftovers", "next-pass", "at-once" },
	};
	size_t k;
	bool yes;

	for (k = 0; k < sizeof(tab) / sizeof(tab[0]); k++)
		if (!strcmp(a, tab[k].opt))
			break;
	if (k == sizeof(tab) / sizeof(tab[0]))
		return -1;
	if (strcmp(v, tab[k].yes) && strcmp(v, tab[k].no))
		return cli_bad("%s '%s' is not accepted: %s or %s", a, v,
			   tab[k].no, tab[k].yes);
	yes = !strcmp(v, tab[k].yes);
	switch (k) {
	case 0:
		o->p.policy = yes ? SIM_POLICY_BASELINE : SIM_POLICY_BUDGET;
		break;
	case 1:
		o->p.restart = yes;
		break;
	case 2:
		o->p.best_fit = yes;
		break;
	default:
		o->p.hold_leftovers = yes;
		break;
	}
	return 0;
}

/* --backfill @v: reserve, reserve:N (1..1000), greedy or none.  Return 0
 * (set) or 2 (refused, said). */
static int backfill_opt(const char *v, struct opts *o)
{
	if (!strcmp(v, "greedy")) {
		o->p.backfill = SIM_BACKFILL_GREEDY;
	} else if (!strcmp(v, "none")) {
		o->p.backfill = SIM_BACKFILL_NONE;
	} else if (!strcmp(v, "reserve")) {
		o->p.backfill = SIM_BACKFILL_RESERVE;
		o->p.reserve = 1;
	} else if (!strncmp(v, "reserve:", 8)) {
		char *end;
		long n;

		errno = 0;
		n = isdigit((unsigned char)v[8]) ?
		    strtol(v + 8, &end, 10) : 0;
		if (!isdigit((unsigned char)v[8]) || errno || *end ||
		    n < 1 || n > 1000)
			return cli_bad("--backfill '%s' is not accepted: "
				       "reserve:N takes N 1..1000", v);
		o->p.backfill = SIM_BACKFILL_RESERVE;
		o->p.reserve = (uint32_t)n;
	} else {
		return cli_bad("--backfill '%s' is not accepted: reserve, "
			       "reserve:N (1..1000), greedy or none", v);
	}
	return 0;
}

/* One of the options that take a number or a range.  Return 0 (set), 2
 * (refused, said), -1 (not one of them). */
static int number(const char *a, const char *v, struct opts *o)
{
	int64_t x;

	if (!strcmp(a, "--backfill")) {
		if (backfill_opt(v, o))
			return 2;
	} else if (!strcmp(a, "--nodes")) {
		if (num(a, v, 1, 1000000, &x))
			return 2;
		o->p.nodes = (uint32_t)x;
	} else if (!strcmp(a, "--gpus-per-node")) {
		if (num(a, v, 1, 64, &x))
			return 2;
		o->p.gpus_per_node = (uint32_t)x;
		o->gpn_given = true;
	} else if (!strcmp(a, "--gpus")) {
		if (num(a, v, 1, 100000000, &x))
			return 2;
		o->gpus = (uint64_t)x;
	} else if (!strcmp(a, "--seed")) {
		if (num(a, v, 0, INT64_MAX, &x))
			return 2;
		o->ro.seed = (uint64_t)x;
	} else if (!strcmp(a, "--from")) {
		return num(a, v, 0, SB_TIME_MAX, &o->ro.from) ? 2 : 0;
	} else if (!strcmp(a, "--span")) {
		return num(a, v, 1, SB_TIME_MAX, &o->ro.span) ? 2 : 0;
	} else if (!strcmp(a, "--max-jobs")) {
		if (num(a, v, 1, 100000000, &x))
			return 2;
		o->ro.max_jobs = (size_t)x;
	} else if (!strcmp(a, "--max-gpus")) {
		if (num(a, v, 1, 1000000, &x))
			return 2;
		o->ro.max_gpus = (uint32_t)x;
	} else if (!strcmp(a, "--requeue-delay")) {
		return num(a, v, 0, 86400 * 365, &o->p.requeue_delay) ? 2 : 0;
	} else if (!strcmp(a, "--resubmit-delay")) {
		char msg[SIM_MSG];

		if (sim_resubmit_parse(v, &o->p.resubmit_delay, msg,
				       sizeof(msg)))
			return cli_bad("%s", msg);
	} else if (!strcmp(a, "--now")) {
		if (num(a, v, 0, SB_TIME_MAX, &o->now))
			return 2;
		o->has_now = true;
	} else if (!strcmp(a, "--until")) {
		return num(a, v, 0, SB_TIME_MAX, &o->p.until) ? 2 : 0;
	} else if (!strcmp(a, "--time-scale")) {
		char *end;
		double d;

		errno = 0;
		d = plain(v, true) && v[0] != '-' ? strtod(v, &end) : 0;
		if (!plain(v, true) || v[0] == '-' || errno || *end ||
		    !isfinite(d) || !(d > 0) || d > 1e6)
			return cli_bad("--time-scale '%s' is not accepted: a "
				   "number > 0 and <= 1e6", v);
		o->ro.time_scale = d;
	} else if (!strcmp(a, "--no-requeue")) {
		if (!real_in(v, 0, 1, &o->ro.no_requeue))
			return cli_bad("--no-requeue '%s' is not accepted: a "
				   "fraction from 0 to 1", v);
	} else if (!strcmp(a, "--time-limit-factor")) {
		if (!real_in(v, 1, SIM_TIME_LIMIT_FACTOR_MAX,
			     &o->ro.time_limit_factor))
			return cli_bad("--time-limit-factor '%s' is not "
				   "accepted: a number from 1 to %g", v,
				   SIM_TIME_LIMIT_FACTOR_MAX);
	} else if (!strcmp(a, "--window")) {
		if (range(a, v, &o->win_a, &o->win_b))
			return 2;
		o->has_window = true;
	} else if (!strcmp(a, "--svg-range")) {
		if (range(a, v, &o->svg_a, &o->svg_b))
			return 2;
		o->has_svg_range = true;
	} else {
		return -1;
	}
	return 0;
}

/* A file option: where its value goes, NULL if @a is not one. */
static const char **file_opt(const char *a, struct opts *o)
{
	static const char *const names[] = {
		"--jobs", "--tree", "--conf", "--json", "--svg-gpus",
		"--svg-teams", "--segments", "--out", "--waits",
	};
	const char **dst[] = {
		&o->jobs, &o->tree, &o->conf, &o->json, &o->svg_gpus,
		&o->svg_teams, &o->segments, &o->out, &o->waits,
	};
	size_t k;

	for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
		if (!strcmp(a, names[k]))
			return dst[k];
	return NULL;
}

int cli_parse(int argc, char **argv, int i, struct opts *o,
		      const char *cmd)
{
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		const char **file;
		int rc;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(cli_usage, stdout);
			exit(0);
		} else if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("sbudget-sim %s\n", PACKAGE_VERSION);
			exit(0);
		} else if (!strcmp(a, "--assign-teams")) {
			o->ro.assign_teams = true;
			continue;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = true;
			continue;
		} else if (!strcmp(a, "--stats")) {
			o->stats = true;
			continue;
		} else if (!strcmp(a, "--budgets")) {
			o->budgets = true;
			continue;
		} else if (!v) {
			return cli_bad(
				"%s: '%s' needs a value, or is not an option "
				"(see --help)",
				cmd, a);
		}
		i++;
		if ((file = file_opt(a, o))) {
			*file = v;
			continue;
		}
		rc = choice(a, v, o);
		if (rc < 0)
			rc = number(a, v, o);
		if (rc < 0)
			return cli_bad("%s: unknown option '%s' (see --help)",
				       cmd, a);
		if (rc)
			return rc;
	}
	return 0;
}

int cli_write_json(const char *file, struct json_object *o)
{
	const char *s = json_object_to_json_string_ext(o,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = strcmp(file, "-") ? fopen(file, "w") : stdout;

	if (!f)
		return cli_bad("--json '%s': cannot open: %s", file,
			   strerror(errno));
	fprintf(f, "%s\n", s);
	/* a failed write may leave nothing for fclose() to report */
	if (f != stdout && (ferror(f) | fclose(f)))
		return cli_bad("--json '%s': write error", file);
	return 0;
}

FILE *cli_open_out(const char *opt, const char *file)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "w") : stdout;

	if (!f)
		cli_bad("%s '%s': cannot open: %s", opt, file, strerror(errno));
	return f;
}

int cli_close_out(const char *opt, const char *file, FILE *f)
{
	if (f == stdout)
		return fflush(f) ? cli_bad("%s: write error", opt) : 0;
	if (ferror(f) | fclose(f))
		return cli_bad("%s '%s': write error", opt, file);
	return 0;
}
