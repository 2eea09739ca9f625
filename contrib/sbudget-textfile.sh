#!/usr/bin/env bash
# contrib/sbudget-textfile.sh - write `sbudget metrics` for node_exporter's
# textfile collector, atomically (a scrape never sees half a file).
#
# Usage: contrib/sbudget-textfile.sh [DIR]
#   DIR  node_exporter's --collector.textfile.directory
#        (default /var/lib/prometheus/node-exporter)
# Run it every minute from cron or a systemd timer on any node that can run
# sshare, e.g.:  * * * * * root /usr/local/share/slurm-budget/sbudget-textfile.sh
# Dashboard: contrib/grafana/sbudget-dashboard.json.
set -euo pipefail
dir=${1:-/var/lib/prometheus/node-exporter}
sbudget=${SBUDGET:-sbudget}
tmp=$(mktemp "$dir/.sbudget.prom.XXXXXX")
trap 'rm -f "$tmp"' EXIT
"$sbudget" metrics > "$tmp"
chmod 0644 "$tmp"
mv -f "$tmp" "$dir/sbudget.prom"
trap - EXIT
