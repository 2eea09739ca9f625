"""soak_lib/common.py - the fixed settings of contrib/soak.py."""

FAULT_KINDS = ["failover", "takeover", "slurmdbd", "mariadb", "node",
               "slurmd", "reconf", "badconf", "share"]
JOB_KINDS = ["allocated-resumable", "allocated-nonresumable", "unallocated",
             "array", "interactive", "no-requeue", "nice", "exclusive"]
NODES = ["gpu01", "gpu02", "gpu03", "gpu04"]
GPUS_PER_NODE = 8
MAX_PENDING = 12
POLL_SECS = 2.0
# Drain reasons Slurm itself sets after the faults the soak injects; a node
# drained for one of these is resumed.  Any other drain is left alone and
# reported.
SLURM_FAULT_DRAINS = ("Duplicate jobid", "Kill task failed")
