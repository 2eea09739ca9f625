/*
 * cli.c - sbudget's command grammar (no Slurm): verbs, entities, options
 * and key=value clauses into a struct sbc_cmd.  The values it takes are
 * parsed in values.c; points in time and the span are in span.c.
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "sb/duration.h"

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

/* start= (@start) or end= of a span, once each.  Return: 0, or -1 with
 * @msg. */
static int parse_bound(struct sbc_cmd *cmd, bool start, const char *val,
		       char *msg, size_t msglen)
{
	struct sbc_time *t = start ? &cmd->start : &cmd->end;

	if (t->set)
		return sbc__fail(msg, msglen, "%s given twice",
			    start ? "start" : "end");
	return sbc_parse_time(start ? "start" : "end", val, t, msg, msglen);
}

/* report's plot=FILE (once; a name ending in .svg that fits).
 * Return: 0, or -1 with @msg. */
static int parse_plot(struct sbc_cmd *cmd, const char *val, char *msg,
		      size_t msglen)
{
	char qf[SBC_FILE_QUOTE_MAX];

	if (cmd->plot[0])
		return sbc__fail(msg, msglen, "plot given twice");
	sb_quote_path(val, qf, sizeof(qf));
	if (!*val || strlen(val) >= sizeof(cmd->plot))
		return sbc__fail(msg, msglen, "plot '%s': give a file name "
			    "ending in .svg", qf);
	if (strlen(val) < 5 || strcasecmp(val + strlen(val) - 4, ".svg"))
		return sbc__fail(msg, msglen, "plot '%s': the file name must end "
			    "in .svg (the plot is SVG)", qf);
	memcpy(cmd->plot, val, strlen(val) + 1);	/* fits: checked */
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
		if (v != SBC_SHOW_BUDGET && v != SBC_REPORT && v != SBC_PAGE)
			goto not_here;
		return parse_bound(cmd, is_one_of(key, k_start), val, msg,
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
		if (v != SBC_REPORT)
			goto not_here;
		return parse_plot(cmd, val, msg, msglen);
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

/*
 * The command of @words (show/modify budget|job, add budget, report,
 * metrics, page, help, version) into @cmd->verb; @next: the first word
 * after it.  Return: 0; 1 for help and version (nothing more to read);
 * -1 with @msg.
 */
static int parse_verb(struct sbc_cmd *cmd, const char *const *words,
		      size_t nwords, size_t *next, char *msg, size_t msglen)
{
	char q[80];

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
		*next = 2;
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
		*next = 2;
	} else if (!strcasecmp(words[0], "report")) {
		cmd->verb = SBC_REPORT;
		*next = 1;
	} else if (!strcasecmp(words[0], "metrics")) {
		cmd->verb = SBC_METRICS;
		*next = 1;
	} else if (!strcasecmp(words[0], "page")) {
		cmd->verb = SBC_PAGE;
		*next = 1;
	} else if (!strcasecmp(words[0], "help")) {
		cmd->verb = SBC_HELP;
		return 1;
	} else if (!strcasecmp(words[0], "version")) {
		cmd->verb = SBC_VERSION;
		return 1;
	} else {
		return sbc__fail(msg, msglen, "unknown command '%s'; accepted: "
			    "show, list, modify, add, report, metrics, page, "
			    "help, version", q);
	}
	return 0;
}

/* The words after the command (@words[@i..@nwords)): where/set clauses,
 * key=value pairs, a job id or a page file.  Return: 0, or -1 with @msg. */
static int parse_clauses(struct sbc_cmd *cmd, const char *const *words,
			 size_t nwords, size_t i, char *msg, size_t msglen)
{
	enum clause cl = C_ANY;
	char q[80];

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
	return 0;
}

/* What a whole command needs or refuses, once every word is read.
 * Return: 0, or -1 with @msg. */
static int check_command(const struct sbc_cmd *cmd, char *msg, size_t msglen)
{
	size_t k;

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

int sbc_parse_args(int argc, char **argv, struct sbc_cmd *cmd, char *msg,
		   size_t msglen)
{
	const char *words[256];
	size_t nwords = 0, i = 0;
	bool help = false, version = false, opts_done = false;
	int a, rc;

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
	rc = parse_verb(cmd, words, nwords, &i, msg, msglen);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (parse_clauses(cmd, words, nwords, i, msg, msglen))
		return -1;
	return check_command(cmd, msg, msglen);
}
