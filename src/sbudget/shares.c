/* shares.c - sshare's data, through libslurm (see shares.h). */
#include "src/common/slurm_xlator.h"	/* first: maps names to libslurm's */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/list.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/slurm_protocol_defs.h"

#define SB_COMPAT_CLIENT	/* no controller headers */
#define SB_COMPAT_PROTOCOL	/* the protocol's names */
#include "slurm_compat.h"

#include "shares.h"

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

int sbs_get_shares(struct sbs_share **out, size_t *n)
{
	shares_request_msg_t req;
	slurm_msg_t req_msg, resp_msg;
	shares_response_msg_t *resp = NULL;
	assoc_shares_object_t *o;
	struct sbs_share *s = NULL;
	ListIterator it;
	size_t cnt = 0, i = 0;
	int rc = -1;

	*out = NULL;
	*n = 0;
	memset(&req, 0, sizeof(req));	/* no filter: every association */
	slurm_msg_t_init(&req_msg);
	slurm_msg_t_init(&resp_msg);
	req_msg.msg_type = REQUEST_SHARE_INFO;
	req_msg.data = &req;
	if (slurm_send_recv_controller_msg(&req_msg, &resp_msg, NULL) < 0)
		return -1;
	switch (resp_msg.msg_type) {
	case RESPONSE_SHARE_INFO:
		resp = resp_msg.data;
		break;
	case RESPONSE_SLURM_RC:
		errno = ((return_code_msg_t *)resp_msg.data)->return_code;
		slurm_free_return_code_msg(resp_msg.data);
		return -1;
	default:
		errno = SLURM_UNEXPECTED_MSG_ERROR;
		return -1;
	}
	if (resp->assoc_shares_list)
		cnt = list_count(resp->assoc_shares_list);
	if (cnt && !(s = calloc(cnt, sizeof(*s)))) {
		errno = ENOMEM;
		goto out;
	}
	if (cnt) {
		it = list_iterator_create(resp->assoc_shares_list);
		while ((o = list_next(it)) && i < cnt) {
			struct sbs_share *x = &s[i++];

			x->assoc_id = o->assoc_id;
			/* a user record's name is the user, its parent the
			 * account; an account record's name is the account */
			x->account = dup_or_null(o->user ? o->parent : o->name);
			x->user = o->user ? dup_or_null(o->name) : NULL;
			x->shares_raw = o->shares_raw;
			x->shares_norm = o->shares_norm;
			x->usage_raw = o->usage_raw;
			x->usage_norm = o->usage_norm;
			x->fs_factor = o->fs_factor;
			x->level_fs = o->level_fs;
		}
		list_iterator_destroy(it);
	}
	*out = s;
	*n = i;
	rc = 0;
out:
	slurm_free_shares_response_msg(resp);
	return rc;
}

void sbs_free_shares(struct sbs_share *s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++) {
		free(s[i].account);
		free(s[i].user);
	}
	free(s);
}

const char *sbs_job_state(uint32_t state)
{
	return job_state_string(state);
}

const char *sbs_job_reason(uint32_t reason)
{
	return sb_job_reason_string((enum job_state_reason)reason);
}
