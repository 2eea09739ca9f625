/*
 * bench-submit.c - submit N small pending jobs straight through libslurm,
 * for measuring the plugins inside slurmctld (contrib/bench-lib.sh).
 *
 * Usage: bench-submit N PARTITION ACCOUNT[,ACCOUNT...]
 * Jobs: 1 GPU, min runtime 0:10 (allocated), a trivial script, spread
 * round-robin over the accounts, into PARTITION (make it State=DOWN so the
 * jobs stay pending).  Runs as root, with SLURM_CONF pointing at the
 * cluster.  Prints the submission rate.  Not a test: a load generator.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	char *env[] = { "SB_MIN_RUNTIME=0:10", NULL };
	char **accounts, *list, *tok, *save = NULL, *end;
	struct timespec t0, t1;
	long n, i, failed = 0;
	int nacc = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: %s N PARTITION ACCOUNT[,ACCOUNT...]\n",
			argv[0]);
		return 2;
	}
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || *end || n <= 0 || n > 1000000) {
		fprintf(stderr, "bench-submit: N '%s' is not a count from 1 to "
			"1000000\n", argv[1]);
		return 2;
	}
	list = strdup(argv[3]);
	/* at most one account per character of the list */
	accounts = calloc(strlen(argv[3]) + 1, sizeof(*accounts));
	if (!list || !accounts) {
		fprintf(stderr, "bench-submit: out of memory\n");
		return 1;
	}
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		accounts[nacc++] = tok;
	if (!nacc) {
		fprintf(stderr, "bench-submit: no account given\n");
		return 2;
	}
	slurm_init(NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		job_desc_msg_t d;
		submit_response_msg_t *resp = NULL;

		slurm_init_job_desc_msg(&d);
		d.name = "bench";
		d.script = "#!/bin/sh\ntrue\n";
		d.partition = argv[2];
		d.account = accounts[i % nacc];
		d.user_id = getuid();
		d.group_id = getgid();
		d.min_nodes = 1;
		d.tres_per_node = "gres:gpu:1";
		d.work_dir = "/tmp";
		d.std_out = "/dev/null";
		d.spank_job_env = env;
		d.spank_job_env_size = 1;
		d.environment = env;
		d.env_size = 1;
		if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
			if (failed++ < 5)
				fprintf(stderr, "bench-submit: job %ld: %s\n", i,
					slurm_strerror(errno));
		}
		slurm_free_submit_response_response_msg(resp);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("submitted %ld jobs (%ld failed) in %.1f s: %.0f jobs/s\n",
	       n - failed, failed,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       (n - failed) / ((t1.tv_sec - t0.tv_sec) +
			       (t1.tv_nsec - t0.tv_nsec) / 1e9));
	free(accounts);
	free(list);
	slurm_fini();
	return failed ? 1 : 0;
}
