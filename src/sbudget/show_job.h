/*
 * show_job.h - what the files of `sbudget show job` share: show_job.c (the
 * command and a live job's row), job_why.c (why a job waits, why it was
 * stopped) and job_records.c (a job's runs from slurmdbd).
 */
#ifndef SBUDGET_SHOW_JOB_H
#define SBUDGET_SHOW_JOB_H

#include "sbudget.h"

/* show_job.c: the name of user @uid into @buf (the number when the
 * password database has none); returns @buf. */
const char *sbu_user_name(uint32_t uid, char *buf, size_t len);

/* job_why.c: what pending job @j waits for (WaitsFor) into @buf, the core's
 * verdict on each running job (MayPreempt) into @list and the count of
 * pending jobs ahead of it into *@ahead_out; the jobs, shares, capacity
 * and tree loaded.  -1 when the budget view cannot be built. */
int sbu_explain_wait(const struct sbu_ctx *c, const slurm_job_info_t *j,
		     char *buf, size_t len, char *list, size_t llen,
		     int64_t *ahead_out);

/* job_why.c: PreemptReason of stop note @note (parsed:
 * sb_stop_note_parse() said 1) into @buf, never past @len. */
void sbu_stop_reason(const struct sbu_ctx *c, const struct sb_stop_note *note,
		     char *buf, size_t len);

/* job_records.c: one row per run of job cmd->job_id from slurmdbd's
 * records, oldest first, printed from table @t (initialised by the
 * caller).  Return: 0, or 1 with a message. */
int sbu_show_job_records(struct sbu_ctx *c, struct sbc_table *t);

#endif /* SBUDGET_SHOW_JOB_H */
