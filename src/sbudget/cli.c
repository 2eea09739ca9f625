/*
 * cli.c - sbudget's command grammar and value parsers (no Slurm); points in
 * time and the span are in span.c.
 *
 *   sbudget [OPTIONS] show|list budget [where] [account=A[,B]] [user=U[,V]]
 *                  [start=WHEN] [end=WHEN] [window=TIME] [format=F[%W],...]
 *   sbudget [OPTIONS] modify budget where account=A [user=U] set share=N
 *   sbudget [OPTIONS] add budget account=A[,B] [parent=P] share=N
 *                  [description=TEXT] [organization=TEXT]
 *   sbudget [OPTIONS] show|list job JOBID [-D] [format=...]
 *   sbudget [OPTIONS] report [account=...] [start=WHEN] [end=WHEN]
 *                  [window=TIME] [step=TIME] [plot=FILE.svg] [format=...]
 *   sbudget [OPTIONS] metrics [window=TIME]
 *   sbudget [OPTIONS] page FILE.html|- [account=A[,B]] [start=WHEN]
 *                  [end=WHEN] [window=TIME] [step=TIME]
 *   OPTIONS: -p -P -n -i -Q -D --parsable --parsable2 --noheader --immediate
 *            --quiet --json -h --help -V --version (anywhere, as sacctmgr)
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "sb/config.h"
#include "sb/contract.h"
#include "sb/duration.h"
#include "sb/error.h"

int sbc__fail(char *msg, size_t msglen, const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* Whether @word is one of the NULL-terminated @names (case-insensitive). */
static bool is_one_of(const char *word, const char *const *names)
{
	for (; *names; names++)
		if (!strcasecmp(word, *names))
			return true;
	return false;
}

static const char *const w_show[] = { "show", "list", NULL };
static const char *const w_modify[] = { "modify", "update", NULL };
static const char *const w_add[] = { "add", "create", NULL };
static const char *const w_budget[] = { "budget", "budgets", NULL };
static const char *const w_job[] = { "job", "jobs", NULL };
static const char *const k_account[] = { "account", "accounts", "acct",
					  "name", "names", NULL };
static const char *const k_user[] = { "user", "users", NULL };
static const char *const k_share[] = { "share", "shares", "fairshare",
					"rawshares", NULL };
static const char *const k_start[] = { "start", "starttime", "from", NULL };
static const char *const k_end[] = { "end", "endtime", "to", NULL };

int sbc_parse_share(const char *s, uint32_t *out, char *msg, size_t msglen)
{
	char q[80];
	int rc = sb_shares_parse(s, out);

	if (rc == SB_OK)
		return 0;
	if (rc == SB_EMISSING)
		return sbc__fail(msg, msglen, "share '': empty; accepted: "
			    SB_SHARES_ACCEPTED);
	sb_quote(s, q, sizeof(q));
	return sbc__fail(msg, msglen, "share '%s': %s; accepted: "
		    SB_SHARES_ACCEPTED, q,
		    rc == SB_ERANGE ? "too large" :
		    *s == '-' ? "negative" : "not a whole number");
}

int sbc_parse_window(const char *what, const char *s, int64_t *out, char *msg,
		     size_t msglen)
{
	char q[80];
	int64_t v;
	int rc;

	sb_quote(s, q, sizeof(q));
	rc = sb_duration_parse(s, &v);
	if (rc == SB_ERANGE || (rc == SB_OK && v > SB_DURATION_MAX))
		return sbc__fail(msg, msglen, "%s '%s': too long; accepted: up to "
			    "365 days", what, q);
	if (rc != SB_OK)
		return sbc__fail(msg, msglen, "%s '%s': %s; accepted: Slurm's time "
			    "syntax, as --time (M, M:S, H:M:S, D-H, D-H:M, "
			    "D-H:M:S), for example 7-0 or 12:00:00", what, q,
			    rc == SB_ENEGATIVE ? "negative" :
			    "not a duration");
	if (v <= 0)
		return sbc__fail(msg, msglen, "%s '%s': must be longer than 0",
			    what, q);
	*out = v;
	return 0;
}

/* Decimal digits of @s[0..@n) into *@out; a number above @max gives
 * @max + 1 (@max * 10 + 9 must fit in 64 bits).  -1 if any is not a
 * digit. */
static int decimal(const char *s, size_t n, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		if (v <= max)	/* beyond @max it stays max + 1: no wrap */
			v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > max)
			v = max + 1;
	}
	*out = v;
	return 0;
}

int sbc_parse_jobid(const char *s, uint32_t *out, uint32_t *task, char *msg,
		    size_t msglen)
{
	static const char form[] = "give the number squeue shows, or "
				   "ARRAYID_TASKID for an array task (116_3)";
	char q[80];
	uint64_t v = 0, t = 0;
	const char *us;
	size_t n;

	sb_quote(s, q, sizeof(q));
	if (!s || !*s)
		return sbc__fail(msg, msglen, "job id '': empty; %s", form);
	/* 12+1: digits on both sides */
	if (strchr(s, '+') && isdigit((unsigned char)s[0]) &&
	    isdigit((unsigned char)s[strcspn(s, "+") + 1]))
		return sbc__fail(msg, msglen, "job id '%s': heterogeneous "
			    "components are not supported; give the "
			    "component's own job id (squeue -o %%A)", q);
	us = strchr(s, '_');
	n = us ? (size_t)(us - s) : strlen(s);
	if (us && n == 0)
		return sbc__fail(msg, msglen, "job id '%s': no array job id "
			    "before '_'; write ARRAYID_TASKID, e.g. 116_3", q);
	if (decimal(s, n, UINT32_MAX, &v))
		return sbc__fail(msg, msglen, "job id '%s': not a number; %s",
			    q, form);
	if (v > UINT32_C(0xFFFFFFFD))
		return sbc__fail(msg, msglen, "job id '%s': too large; Slurm "
			    "job ids are below 4294967294", q);
	if (v == 0)
		return sbc__fail(msg, msglen, "job id '%s': job ids start at 1",
			    q);
	*task = SBC_NO_TASK;
	if (us) {
		us++;
		if (!*us)
			return sbc__fail(msg, msglen, "job id '%s': no task id "
				    "after '_'; write ARRAYID_TASKID, e.g. "
				    "116_3", q);
		if (strchr(us, '_'))
			return sbc__fail(msg, msglen, "job id '%s': one '_' at "
				    "most; write ARRAYID_TASKID, e.g. 116_3", q);
		if (*us == '[' || strpbrk(us, "-,"))
			return sbc__fail(msg, msglen, "job id '%s': one array "
				    "task at a time, e.g. 116_3", q);
		if (decimal(us, strlen(us), UINT32_MAX, &t))
			return sbc__fail(msg, msglen, "job id '%s': task id "
				    "after '_' is not a number; write "
				    "ARRAYID_TASKID, e.g. 116_3", q);
		/* Slurm's MaxArraySize is at most 4000001: ids 0..4000000 */
		if (t > 4000000)
			return sbc__fail(msg, msglen, "job id '%s': task id "
				    "too large; array task ids are below "
				    "MaxArraySize, which is at most 4000001", q);
		*task = (uint32_t)t;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A comma-separated list of names into @dst; lower-cased if @lower. */
static int parse_names(const char *key, const char *val, size_t *n,
		       char (*dst)[SBC_NAME_MAX], bool lower, char *msg,
		       size_t msglen)
{
	char q[80];
	const char *p = val, *e;

	sb_quote(val, q, sizeof(q));
	if (*n)
		return sbc__fail(msg, msglen, "%s given twice; give one list, "
			    "comma-separated", key);
	if (!*val)
		return sbc__fail(msg, msglen, "%s '': empty; give one or more "
			    "names, comma-separated", key);
	while (*p) {
		size_t len, i;

		e = strchr(p, ',');
		len = e ? (size_t)(e - p) : strlen(p);
		if (len == 0)
			return sbc__fail(msg, msglen, "%s '%s': empty name in the "
				    "list", key, q);
		if (len >= SBC_NAME_MAX)
			return sbc__fail(msg, msglen, "%s '%s': a name is longer "
				    "than %d characters", key, q,
				    SBC_NAME_MAX - 1);
		if (*n >= SBC_MAX_NAMES)
			return sbc__fail(msg, msglen, "%s '%s': more than %d names",
				    key, q, SBC_MAX_NAMES);
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)p[i];

			if (!isgraph(c) || c == '=' || c == '\'' || c == '"')
				return sbc__fail(msg, msglen, "%s '%s': names may "
					    "not contain spaces, quotes, '=' "
					    "or control characters", key, q);
			dst[*n][i] = lower ? (char)tolower(c) : (char)c;
		}
		dst[*n][len] = '\0';
		(*n)++;
		p += len;
		if (*p == ',')
			p++;
		if (e && !*p)
			return sbc__fail(msg, msglen, "%s '%s': empty name in the "
				    "list", key, q);
	}
	return 0;
}

static int parse_format(struct sbc_cmd *cmd, const char *val, char *msg,
			size_t msglen)
{
	char q[80];
	const char *p = val;

	sb_quote(val, q, sizeof(q));
	if (cmd->nfields)
		return sbc__fail(msg, msglen, "format given twice; give one list, "
			    "comma-separated");
	if (!*val)
		return sbc__fail(msg, msglen, "format '': empty; give field names, "
			    "comma-separated (see --help)");
	while (*p) {
		const char *e = strchr(p, ','), *pct;
		size_t len = e ? (size_t)(e - p) : strlen(p), nlen;
		struct sbc_field_req *f;

		if (len == 0 || (e && !e[1]))
			return sbc__fail(msg, msglen, "format '%s': empty field "
				    "name in the list", q);
		if (cmd->nfields >= SBC_MAX_FIELDS)
			return sbc__fail(msg, msglen, "format '%s': more than %d "
				    "fields", q, SBC_MAX_FIELDS);
		f = &cmd->fields[cmd->nfields];
		pct = memchr(p, '%', len);
		nlen = pct ? (size_t)(pct - p) : len;
		if (nlen == 0 || nlen >= SBC_NAME_MAX)
			return sbc__fail(msg, msglen, "format '%s': a field name is "
				    "empty or too long", q);
		memcpy(f->name, p, nlen);
		f->name[nlen] = '\0';
		f->width = 0;
		if (pct) {
			const char *d = pct + 1;
			long w = 0;

			if (d >= p + len)
				return sbc__fail(msg, msglen, "format '%s': '%%' "
					    "must be followed by a width", q);
			for (; d < p + len; d++) {
				if (!isdigit((unsigned char)*d))
					return sbc__fail(msg, msglen, "format '%s': "
						    "width after '%%' must be "
						    "a number", q);
				w = w * 10 + (*d - '0');
				if (w > 1000)
					return sbc__fail(msg, msglen, "format '%s':"
						    " width above 1000", q);
			}
			if (w == 0)
				return sbc__fail(msg, msglen, "format '%s': width "
					    "must be at least 1", q);
			f->width = (int)w;
		}
		cmd->nfields++;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Which keys each verb takes, and in which clause. */
enum clause { C_ANY, C_WHERE, C_SET };

/* add budget's own keys: parent=P, description=TEXT, organization=TEXT. */
static int apply_add_kv(struct sbc_cmd *cmd, const char *key, const char *val,
			const char *q, char *msg, size_t msglen)
{
	char (*dst)[SBC_NAME_MAX];
	char names[SBC_MAX_NAMES][SBC_NAME_MAX], qv[80];
	const char *what;
	size_t n = 0, i;

	if (!strcasecmp(key, "parent")) {
		sb_quote(val, qv, sizeof(qv));
		if (cmd->parent[0])
			return sbc__fail(msg, msglen, "parent given twice ('%s' "
				    "and '%s'); give one", cmd->parent, qv);
		if (parse_names("parent", val, &n, names, true, msg, msglen))
			return -1;
		if (n != 1)
			return sbc__fail(msg, msglen, "parent '%s': give one "
				    "account (the budget the new ones go under)",
				    qv);
		memcpy(cmd->parent, names[0], sizeof(cmd->parent));
		return 0;
	}
	if (!strcasecmp(key, "description")) {
		dst = &cmd->description;
		what = "description";
	} else if (!strcasecmp(key, "organization")) {
		dst = &cmd->organization;
		what = "organization";
	} else {
		return sbc__fail(msg, msglen, "'%s': unknown key '%s' for add "
			    "budget; accepted: account=, parent=, share=, "
			    "description=, organization=", q, key);
	}
	if ((*dst)[0])
		return sbc__fail(msg, msglen, "%s given twice", what);
	if (!*val || strlen(val) >= SBC_NAME_MAX)
		return sbc__fail(msg, msglen, "'%s': the %s must be 1 to %d "
			    "characters", q, what, SBC_NAME_MAX - 1);
	for (i = 0; val[i]; i++)
		if (iscntrl((unsigned char)val[i]) || val[i] == '\'' ||
		    val[i] == '"' || val[i] == '\\')
			return sbc__fail(msg, msglen, "'%s': the %s may not "
				    "contain quotes, backslashes or control "
				    "characters", q, what);
	memcpy(*dst, val, strlen(val) + 1);
	return 0;
}

static int apply_kv(struct sbc_cmd *cmd, enum clause cl, const char *word,
		    char *msg, size_t msglen)
{
	char key[64], q[80];
	const char *eq = strchr(word, '='), *val;
	size_t klen;
	enum sbc_verb v = cmd->verb;

	sb_quote(word, q, sizeof(q));
	if (!eq)
		return sbc__fail(msg, msglen, "'%s': expected KEY=VALUE here", q);
	klen = (size_t)(eq - word);
	if (klen == 0 || klen >= sizeof(key))
		return sbc__fail(msg, msglen, "'%s': expected KEY=VALUE here", q);
	memcpy(key, word, klen);
	key[klen] = '\0';
	val = eq + 1;

	if (is_one_of(key, k_share)) {
		if ((v != SBC_MODIFY_BUDGET || cl != C_SET) &&
		    v != SBC_ADD_BUDGET)
			return sbc__fail(msg, msglen, "'%s': share is set only by "
				    "'modify budget where ... set share=N' and "
				    "'add budget ... share=N'", q);
		if (cmd->has_share)
			return sbc__fail(msg, msglen, "share given twice");
		if (sbc_parse_share(val, &cmd->share, msg, msglen))
			return -1;
		cmd->has_share = true;
		return 0;
	}
	if (cl == C_SET)
		return sbc__fail(msg, msglen, "'%s': only share=N can be set", q);
	if (is_one_of(key, k_account)) {
		if (v == SBC_SHOW_JOB || v == SBC_METRICS)
			goto not_here;
		return parse_names("account", val, &cmd->naccounts,
				   cmd->accounts, true, msg, msglen);
	}
	if (is_one_of(key, k_user)) {
		if (v == SBC_ADD_BUDGET)
			return sbc__fail(msg, msglen, "'%s': add budget adds "
				    "account budgets; add a user to one with "
				    "'sacctmgr add user U account=A fairshare=N', "
				    "then 'sbudget modify budget' changes it", q);
		if (v != SBC_SHOW_BUDGET && v != SBC_MODIFY_BUDGET)
			goto not_here;
		return parse_names("user", val, &cmd->nusers, cmd->users,
				   false, msg, msglen);
	}
	if (v == SBC_ADD_BUDGET)
		return apply_add_kv(cmd, key, val, q, msg, msglen);
	if (v == SBC_MODIFY_BUDGET)
		goto not_here;
	if (!strcasecmp(key, "format")) {
		if (v == SBC_METRICS || v == SBC_PAGE)
			goto not_here;
		return parse_format(cmd, val, msg, msglen);
	}
	if (!strcasecmp(key, "window")) {
		if (v == SBC_SHOW_JOB)
			goto not_here;
		if (cmd->window)
			return sbc__fail(msg, msglen, "window given twice");
		return sbc_parse_window("window", val, &cmd->window, msg,
					msglen);
	}
	if (is_one_of(key, k_start) || is_one_of(key, k_end)) {
		bool start = is_one_of(key, k_start);
		struct sbc_time *t = start ? &cmd->start : &cmd->end;

		if (v != SBC_SHOW_BUDGET && v != SBC_REPORT && v != SBC_PAGE)
			goto not_here;
		if (t->set)
			return sbc__fail(msg, msglen, "%s given twice",
				    start ? "start" : "end");
		return sbc_parse_time(start ? "start" : "end", val, t, msg,
				      msglen);
	}
	if (!strcasecmp(key, "step")) {
		if (v != SBC_REPORT && v != SBC_PAGE)
			goto not_here;
		if (cmd->step)
			return sbc__fail(msg, msglen, "step given twice");
		return sbc_parse_window("step", val, &cmd->step, msg, msglen);
	}
	if (!strcasecmp(key, "plot")) {
		char qf[SBC_FILE_QUOTE_MAX];

		if (v != SBC_REPORT)
			goto not_here;
		if (cmd->plot[0])
			return sbc__fail(msg, msglen, "plot given twice");
		sb_quote_path(val, qf, sizeof(qf));
		if (!*val || strlen(val) >= sizeof(cmd->plot))
			return sbc__fail(msg, msglen, "plot '%s': give a file name "
				    "ending in .svg", qf);
		if (strlen(val) < 5 ||
		    strcasecmp(val + strlen(val) - 4, ".svg"))
			return sbc__fail(msg, msglen, "plot '%s': the file name "
				    "must end in .svg (the plot is SVG)", qf);
		memcpy(cmd->plot, val, strlen(val) + 1);	/* fits: checked */
		return 0;
	}
	if (!strcasecmp(key, "jobid") || !strcasecmp(key, "job")) {
		if (v != SBC_SHOW_JOB)
			goto not_here;
		if (cmd->job_id)
			return sbc__fail(msg, msglen, "job id given twice");
		return sbc_parse_jobid(val, &cmd->job_id, &cmd->task_id, msg,
				       msglen);
	}
	return sbc__fail(msg, msglen, "'%s': unknown key '%s'; see sbudget --help "
		    "for the keys of each command", q, key);
not_here:
	return sbc__fail(msg, msglen, "'%s': key '%s' does not apply to this "
		    "command; see sbudget --help", q, key);
}

/* page's file: FILE.html or FILE.htm, or "-" (standard output). */
static int parse_page_file(struct sbc_cmd *cmd, const char *w, char *msg,
			   size_t msglen)
{
	char q[SBC_FILE_QUOTE_MAX];
	size_t len = strlen(w);

	sb_quote_path(w, q, sizeof(q));
	if (cmd->page[0])
		return sbc__fail(msg, msglen, "'%s': page writes one file; it is "
			    "already '%s'", q, cmd->page);
	if (len >= sizeof(cmd->page))
		return sbc__fail(msg, msglen, "page '%s': file name too long", q);
	if (strcmp(w, "-") &&
	    !(len > 5 && !strcasecmp(w + len - 5, ".html")) &&
	    !(len > 4 && !strcasecmp(w + len - 4, ".htm")))
		return sbc__fail(msg, msglen, "page '%s': the file name must end "
			    "in .html or .htm (the page is HTML), or be '-' for "
			    "standard output", q);
	memcpy(cmd->page, w, len + 1);	/* fits: checked */
	return 0;
}

/* Options: return 1 when @arg is an option (and applied), 0 when it is a
 * word, -1 on error. */
static int apply_option(struct sbc_cmd *cmd, const char *arg, bool *help,
			bool *version, char *msg, size_t msglen)
{
	static const struct { const char *name; char c; } longs[] = {
		{ "--parsable", 'p' }, { "--parsable2", 'P' },
		{ "--noheader", 'n' }, { "--immediate", 'i' },
		{ "--quiet", 'Q' }, { "--json", 'j' }, { "--help", 'h' },
		{ "--version", 'V' }, { "--usage", 'h' },
		{ "--verbose", 'v' }, { "--duplicates", 'D' },
	};
	char q[80], shorts[64];
	size_t i;
	const char *p;

	if (arg[0] != '-' || !arg[1])
		return 0;
	sb_quote(arg, q, sizeof(q));
	if (arg[1] == '-') {
		for (i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
			if (!strcmp(arg, longs[i].name))
				break;
		if (i == sizeof(longs) / sizeof(longs[0]))
			return sbc__fail(msg, msglen, "unknown option '%s'; see "
				    "sbudget --help", q);
		shorts[0] = longs[i].c;
		shorts[1] = '\0';
		p = shorts;
	} else {
		p = arg + 1;
	}
	for (; *p; p++) {
		switch (*p) {
		case 'p': cmd->style = SBC_STYLE_PARSABLE; break;
		case 'P': cmd->style = SBC_STYLE_PARSABLE2; break;
		case 'j': cmd->style = SBC_STYLE_JSON; break;
		case 'n': cmd->noheader = true; break;
		case 'i': cmd->immediate = true; break;
		case 'Q': cmd->quiet = true; break;
		case 'v': cmd->verbose = true; break;
		case 'D': cmd->duplicates = true; break;
		case 'h': *help = true; break;
		case 'V': *version = true; break;
		default:
			return sbc__fail(msg, msglen, "unknown option '-%c' in '%s';"
				    " see sbudget --help", *p, q);
		}
	}
	return 1;
}

int sbc_parse_args(int argc, char **argv, struct sbc_cmd *cmd, char *msg,
		   size_t msglen)
{
	const char *words[256];
	size_t nwords = 0, i = 0, k;
	bool help = false, version = false, opts_done = false;
	enum clause cl = C_ANY;
	int a, rc;
	char q[80];

	memset(cmd, 0, sizeof(*cmd));
	cmd->task_id = SBC_NO_TASK;
	if (msg && msglen)
		msg[0] = '\0';
	for (a = 1; a < argc; a++) {
		if (!opts_done && !strcmp(argv[a], "--")) {
			opts_done = true;
			continue;
		}
		rc = opts_done ? 0 : apply_option(cmd, argv[a], &help,
						  &version, msg, msglen);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			if (nwords >= sizeof(words) / sizeof(words[0]))
				return sbc__fail(msg, msglen, "too many words");
			words[nwords++] = argv[a];
		}
	}
	if (help) {
		cmd->verb = SBC_HELP;
		return 0;
	}
	if (version) {
		cmd->verb = SBC_VERSION;
		return 0;
	}
	if (nwords == 0)
		return sbc__fail(msg, msglen, "no command given; try 'sbudget show "
			    "budget' or see sbudget --help");
	sb_quote(words[0], q, sizeof(q));
	if (is_one_of(words[0], w_show) || is_one_of(words[0], w_modify)) {
		bool modify = is_one_of(words[0], w_modify);

		if (nwords < 2)
			return sbc__fail(msg, msglen, "'%s' needs an entity: budget "
				    "or job (for example 'sbudget %s budget')",
				    q, modify ? "modify" : "show");
		sb_quote(words[1], q, sizeof(q));
		if (is_one_of(words[1], w_budget)) {
			cmd->verb = modify ? SBC_MODIFY_BUDGET :
					     SBC_SHOW_BUDGET;
		} else if (is_one_of(words[1], w_job) && !modify) {
			cmd->verb = SBC_SHOW_JOB;
		} else if (is_one_of(words[1], w_job)) {
			return sbc__fail(msg, msglen, "jobs cannot be modified "
				    "here; use scontrol update job");
		} else {
			return sbc__fail(msg, msglen, "unknown entity '%s'; "
				    "accepted: budget%s", q,
				    modify ? "" : ", job");
		}
		i = 2;
	} else if (is_one_of(words[0], w_add)) {
		if (nwords < 2 || !is_one_of(words[1], w_budget)) {
			if (nwords >= 2)
				sb_quote(words[1], q, sizeof(q));
			return sbc__fail(msg, msglen, "%s%s%s: write 'sbudget add "
				    "budget account=A parent=P share=N'",
				    nwords < 2 ? "'add' needs an entity" :
				    "'add ", nwords < 2 ? "" : q,
				    nwords < 2 ? "" : "': only budgets can be "
				    "added");
		}
		cmd->verb = SBC_ADD_BUDGET;
		i = 2;
	} else if (!strcasecmp(words[0], "report")) {
		cmd->verb = SBC_REPORT;
		i = 1;
	} else if (!strcasecmp(words[0], "metrics")) {
		cmd->verb = SBC_METRICS;
		i = 1;
	} else if (!strcasecmp(words[0], "page")) {
		cmd->verb = SBC_PAGE;
		i = 1;
	} else if (!strcasecmp(words[0], "help")) {
		cmd->verb = SBC_HELP;
		return 0;
	} else if (!strcasecmp(words[0], "version")) {
		cmd->verb = SBC_VERSION;
		return 0;
	} else {
		return sbc__fail(msg, msglen, "unknown command '%s'; accepted: "
			    "show, list, modify, add, report, metrics, page, "
			    "help, version", q);
	}

	for (; i < nwords; i++) {
		const char *w = words[i];

		sb_quote(w, q, sizeof(q));
		if (!strcasecmp(w, "where")) {
			if (cmd->verb != SBC_SHOW_BUDGET &&
			    cmd->verb != SBC_MODIFY_BUDGET &&
			    cmd->verb != SBC_REPORT && cmd->verb != SBC_PAGE)
				return sbc__fail(msg, msglen, "'where' does not "
					    "apply to this command");
			if (cl == C_SET && cmd->verb == SBC_MODIFY_BUDGET)
				return sbc__fail(msg, msglen, "'where' after 'set':"
					    " write 'where ... set ...'");
			cl = C_WHERE;
			continue;
		}
		if (!strcasecmp(w, "set")) {
			if (cmd->verb != SBC_MODIFY_BUDGET)
				return sbc__fail(msg, msglen, "'set' applies only "
					    "to 'modify budget'");
			cl = C_SET;
			continue;
		}
		if (cmd->verb == SBC_SHOW_JOB && !strchr(w, '=')) {
			if (cmd->job_id)
				return sbc__fail(msg, msglen, "'%s': one job id at a"
					    " time", q);
			if (sbc_parse_jobid(w, &cmd->job_id, &cmd->task_id,
					    msg, msglen))
				return -1;
			continue;
		}
		if (cmd->verb == SBC_PAGE && !strchr(w, '=')) {
			if (parse_page_file(cmd, w, msg, msglen))
				return -1;
			continue;
		}
		if (cmd->verb == SBC_MODIFY_BUDGET && cl == C_ANY)
			return sbc__fail(msg, msglen, "'%s': write 'modify budget "
				    "where account=A set share=N'", q);
		if (apply_kv(cmd, cl, w, msg, msglen))
			return -1;
	}

	if (cmd->duplicates && cmd->verb != SBC_SHOW_JOB)
		return sbc__fail(msg, msglen, "-D (--duplicates) applies only "
			    "to 'show job'");
	if (cmd->duplicates && cmd->task_id != SBC_NO_TASK)
		return sbc__fail(msg, msglen, "-D (--duplicates) takes a job "
			    "id, not an array task");
	if (cmd->verb == SBC_SHOW_JOB && !cmd->job_id)
		return sbc__fail(msg, msglen, "show job needs a job id, for example "
			    "'sbudget show job 42'");
	if (cmd->verb == SBC_PAGE && !cmd->page[0])
		return sbc__fail(msg, msglen, "page needs a file to write, for "
			    "example 'sbudget page budgets.html' ('-': standard "
			    "output)");
	if (cmd->verb == SBC_PAGE && cmd->step && cmd->window &&
	    cmd->step > cmd->window)
		return sbc__fail(msg, msglen, "step is longer than the window; give"
			    " a step at most as long as window=");
	if (cmd->verb == SBC_MODIFY_BUDGET) {
		if (!cmd->naccounts)
			return sbc__fail(msg, msglen, "modify budget needs 'where "
				    "account=A' (the budget to change)");
		if (!cmd->has_share)
			return sbc__fail(msg, msglen, "modify budget needs 'set "
				    "share=N' (the new RawShares)");
	}
	if (cmd->verb == SBC_ADD_BUDGET) {
		if (!cmd->naccounts)
			return sbc__fail(msg, msglen, "add budget needs "
				    "'account=A' (the new budget's account)");
		if (!cmd->has_share)
			return sbc__fail(msg, msglen, "add budget needs 'share=N'"
				    " (its RawShares among its siblings) or "
				    "'share=parent'");
		for (k = 0; k < cmd->naccounts; k++)
			if (!strcmp(cmd->accounts[k], "root") ||
			    (cmd->parent[0] &&
			     !strcmp(cmd->accounts[k], cmd->parent)))
				return sbc__fail(msg, msglen, "account '%s': "
					    "cannot be added %s", cmd->accounts[k],
					    strcmp(cmd->accounts[k], "root") ?
					    "under itself" : "(the root exists)");
	}
	if (cmd->verb == SBC_REPORT && cmd->step && cmd->window &&
	    cmd->step > cmd->window)
		return sbc__fail(msg, msglen, "step is longer than the window; give"
			    " a step at most as long as window=");
	if (cmd->start.set && cmd->end.set && cmd->window)
		return sbc__fail(msg, msglen, "start=, end= and window= given: give "
			    "at most two of them (window= is end - start)");
	return 0;
}

/* ------------------------------------------------------------- parsers */

double sbc_tres_count(const char *s, const char *key)
{
	size_t klen;
	const char *p = s;

	if (!s || !key)
		return 0;
	klen = strlen(key);
	while (*p) {
		const char *e = strchr(p, ','), *eq;
		size_t len = e ? (size_t)(e - p) : strlen(p);

		eq = memchr(p, '=', len);
		if (eq && (size_t)(eq - p) == klen && !strncmp(p, key, klen)) {
			char buf[64], *end;
			size_t vlen = len - klen - 1;
			double v, mul = 1;

			if (vlen == 0 || vlen >= sizeof(buf))
				return -1;
			memcpy(buf, eq + 1, vlen);
			buf[vlen] = '\0';
			errno = 0;
			v = strtod(buf, &end);
			if (end == buf || errno || v < 0)
				return -1;
			switch (*end) {
			case '\0': break;
			case 'K': mul = 1024.0; end++; break;
			case 'M': mul = 1024.0 * 1024; end++; break;
			case 'G': mul = 1024.0 * 1024 * 1024; end++; break;
			case 'T': mul = 1024.0 * 1024 * 1024 * 1024; end++;
				break;
			case 'P': mul = 1024.0 * 1024 * 1024 * 1024 * 1024;
				end++; break;
			default: return -1;
			}
			if (*end)
				return -1;
			return v * mul;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

int sbc_budget_conf_parse(const char *text, struct sb_config *cfg, char *msg,
			  size_t msglen)
{
	/* the one grammar of budget.conf, shared with the plugins and the
	 * simulator */
	return sb_config_parse(cfg, text, "budget.conf", msg, msglen) == SB_OK ?
	       0 : -1;
}
