/* grace_list.c - victims in their grace time until settled (grace_list.h). */
#include <stdlib.h>
#include <string.h>

#include "grace_list.h"

int grace_list_add(struct grace_list *l, uint32_t job_id)
{
	struct grace_entry *e;
	size_t i, cap;

	for (i = 0; i < l->n; i++)
		if (l->e[i].job_id == job_id)
			return 0;
	if (l->n == l->cap) {
		cap = l->cap ? 2 * l->cap : 16;
		if (!(e = realloc(l->e, cap * sizeof(*e))))
			return -1;
		l->e = e;
		l->cap = cap;
	}
	l->e[l->n++] = (struct grace_entry){ .job_id = job_id, .tries = 0 };
	return 0;
}

void grace_list_scan(struct grace_list *l,
		     enum grace_state (*state)(uint32_t job_id, void *arg),
		     void (*owe)(uint32_t job_id, void *arg), void *arg)
{
	size_t i, keep = 0;

	for (i = 0; i < l->n; i++) {
		switch (state(l->e[i].job_id, arg)) {
		case GRACE_SETTLED:
			continue;
		case GRACE_EXITED:
			/* kept until grace_list_tried(): the write pass that
			 * requeues it may not run this tick */
			owe(l->e[i].job_id, arg);
			break;
		case GRACE_RUNNING:
			break;
		}
		l->e[keep++] = l->e[i];
	}
	l->n = keep;
}

bool grace_list_tried(struct grace_list *l, uint32_t job_id, bool ok)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->e[i].job_id != job_id)
			continue;
		if (!ok && ++l->e[i].tries < GRACE_TRIES_MAX)
			return false;
		memmove(&l->e[i], &l->e[i + 1], (l->n - i - 1) * sizeof(*l->e));
		l->n--;
		return !ok;
	}
	return false;
}

void grace_list_free(struct grace_list *l)
{
	free(l->e);
	l->e = NULL;
	l->n = l->cap = 0;
}
