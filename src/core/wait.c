/*
 * wait.c - why a pending job waits, in the words of `sbudget show job`
 * (sb/wait.h).
 */
#include <stdarg.h>
#include <stdio.h>

#include "sb/wait.h"

static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off += (size_t)n < len - *off ? (size_t)n : len - *off - 1;
}

size_t sb_wait_format(const struct sb_wait_facts *f, char *buf, size_t len)
{
	size_t off = 0;

	if (!buf || !len)
		return 0;
	buf[0] = '\0';
	if (!f)
		return 0;
	add(buf, len, &off, "%s: ", f->reason ? f->reason : "?");
	if (f->ahead > 0)
		add(buf, len, &off, "%lld pending job(s) of higher priority "
		    "first (top: job %llu); ", (long long)f->ahead,
		    (unsigned long long)f->top);
	add(buf, len, &off, "needs %.0f %s, %.0f idle, %.0f preemptable by it "
	    "now", f->needs, f->tres ? f->tres : "?", f->idle,
	    f->preemptable);
	if (f->unusable > 0)
		add(buf, len, &off, " (%.0f more on nodes down or drained)",
		    f->unusable);
	if (!f->allocated)
		add(buf, len, &off, " (unallocated jobs never preempt)");
	if (f->kept > 0)
		add(buf, len, &off, "; %.0f more held back by the reclaim rule "
		    "or its cost (job %llu: %s)", f->kept,
		    (unsigned long long)f->kept_job,
		    f->kept_why ? f->kept_why : "?");
	if (f->loss_wait > 0)
		add(buf, len, &off, "; %.0f more from runs that would lose "
		    "their work, once it has waited PreemptLossWait (%s at "
		    "the latest)",
		    f->loss_wait, f->loss_wait_at ? f->loss_wait_at : "?");
	if (f->next_job)
		add(buf, len, &off, "; next protected slice of a "
		    "lower-priority job ends %s (job %llu)",
		    f->next_at ? f->next_at : "?",
		    (unsigned long long)f->next_job);
	if (f->eligible_at)
		add(buf, len, &off, "; eligible at %s", f->eligible_at);
	if (f->note)
		add(buf, len, &off, "; %s", f->note);
	return off;
}
