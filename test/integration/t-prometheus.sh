# shellcheck shell=bash
# t-prometheus.sh - live metrics through a real Prometheus:
# contrib/sbudget-textfile.sh writes `sbudget metrics` into a textfile
# directory, node_exporter's textfile collector serves it and Prometheus
# scrapes it (Debian's packages prometheus and prometheus-node-exporter,
# started here as plain processes on loopback with their own config and
# data directory, never as system services).  Every expression of
# contrib/grafana/sbudget-dashboard.json (panel targets and template
# variable queries), with Grafana's variables substituted, is evaluated
# through Prometheus's HTTP API and must return series for the test
# cluster's budgets, also with every series twice (two writers); the
# figures must be `sbudget show budget`'s; and a
# rewritten file must reach Prometheus (a new job's use and the file's
# mtime show up).
# Missing packages fail the test, saying to run contrib/setup.sh.

PROM_SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}
PROM_LOGDIR=$SB_CLUSTER_DIR/test-logs
# Ports on 127.0.0.1, moved with the cluster's SB_PORT_OFFSET (multiples of
# 50 between clusters on one machine, so 10 apart never collide).
PROM_PORT=$((${SB_PROM_PORT:-19090} + ${SB_PORT_OFFSET:-0}))
PROM_EXPORTER_PORT=$((${SB_NODE_EXPORTER_PORT:-19100} + ${SB_PORT_OFFSET:-0}))
PROM_URL=http://127.0.0.1:$PROM_PORT

# prom_port_free PORT - nothing listens on PORT (else say what does).
prom_port_free() {
	local l
	l=$(ss -Hltnp "sport = :$1" 2>/dev/null) || true
	[ -z "$l" ] || { say "port $1 is taken: $l (set SB_PROM_PORT / SB_NODE_EXPORTER_PORT)"; return 1; }
}

# prom_start DIR - node_exporter (textfile collector only, DIR/textfile)
# and Prometheus (1 s scrapes of it, data in DIR/data; both directories
# exist) in the background.  Prometheus scrapes it twice, as jobs sbudget
# and sbudget-second-writer: every series comes twice, as when a site runs
# the cron job on two nodes, and the dashboard must cope (for one series,
# select job="sbudget").  Their pids in DIR/*.pid, their logs in DIR/*.log;
# prom_stop DIR ends them.
prom_start() {
	local d=$1
	prom_port_free "$PROM_PORT" && prom_port_free "$PROM_EXPORTER_PORT" || return 1
	cat >"$d/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: sbudget
    static_configs:
      - targets: ['127.0.0.1:$PROM_EXPORTER_PORT']
  - job_name: sbudget-second-writer
    static_configs:
      - targets: ['127.0.0.1:$PROM_EXPORTER_PORT']
EOF
	prometheus-node-exporter --web.listen-address="127.0.0.1:$PROM_EXPORTER_PORT" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$d/textfile" >"$d/node-exporter.log" 2>&1 &
	echo $! >"$d/node-exporter.pid"
	prometheus --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--storage.tsdb.retention.time=1h --web.listen-address="127.0.0.1:$PROM_PORT" \
		>"$d/prometheus.log" 2>&1 &
	echo $! >"$d/prometheus.pid"
}

# prom_stop DIR - end what prom_start started (by pid), wait for it.
prom_stop() {
	local p pid i
	for p in prometheus node-exporter; do
		pid=$(cat "$1/$p.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || continue
		for ((i = 0; i < 40; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
		kill -9 "$pid" 2>/dev/null || true
	done
}

# prom_target_up - Prometheus's two targets have been scraped and are up.
prom_target_up() {
	curl -fsS "$PROM_URL/api/v1/targets" 2>&1 |
		jq -e -r '.data.activeTargets | (length == 2 and all(.health == "up")) or
			error("targets: \(map("\(.scrapePool) \(.health) \(.lastError)"))")' 2>&1
}

# prom_value QUERY - the value of the single series QUERY returns now.
prom_value() {
	curl -fsS --get --data-urlencode "query=$1" "$PROM_URL/api/v1/query" |
		jq -e -r '.data.result | if length == 1 then .[0].value[1] else error("\(length) series") end'
}

# prom_check_dashboard DASHBOARD CLUSTER BUDGETS - evaluate every
# expression of DASHBOARD through Prometheus and check it against BUDGETS
# (prom_budget_rows: show budget of the moment the metrics were written).
prom_check_dashboard() {
	python3 - "$PROM_URL" "$@" <<'PY'
import json, re, sys, time, urllib.error, urllib.parse, urllib.request

url, dashboard, cluster, budgets = sys.argv[1:5]
fails = []

def fail(msg):
    fails.append(msg)
    print("FAIL " + msg)

class PromError(Exception):
    pass

def api(path, **params):
    """The data of a successful answer; PromError with Prometheus's
    message (a bad expression answers 400 or 422) otherwise."""
    q = urllib.parse.urlencode(params, doseq=True)
    try:
        with urllib.request.urlopen("%s/api/v1/%s?%s" % (url, path, q), timeout=10) as r:
            doc = json.load(r)
    except urllib.error.HTTPError as e:
        doc = json.load(e)
    if doc.get("status") != "success":
        raise PromError("%s: %s" % (doc.get("errorType"), doc.get("error")))
    return doc["data"]

# show budget's rows: the account associations (User empty) and users
rows = [l.split("|") for l in open(budgets).read().splitlines() if l]
accounts = {r[0]: r for r in rows if r[1] == ""}
# the budgets: account associations with shares, below root
funded = sorted(a for a, r in accounts.items() if a != "root" and float(r[2]) > 0)
for want in ("physics", "phys-a", "phys-b", "bio"):
    if want not in funded:
        fail("show budget lacks the budget %s: %s" % (want, sorted(accounts)))

# Grafana's variables: $cluster the test cluster, $account the dashboard's
# All value (its allValue) and then a multi-value selection, as Grafana
# writes one into a regex matcher: (a|b).
doc = json.load(open(dashboard))
variables = {v["name"]: v for v in doc.get("templating", {}).get("list", [])}
all_value = variables.get("account", {}).get("allValue", ".*")
builtin = {"__rate_interval": "1m", "__interval": "15s", "__range": "5m"}

def substitute(expr, values):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name in values:
            return values[name]
        if name in builtin:
            return builtin[name]
        raise KeyError(name)
    return re.sub(r"\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)", one, expr)

def targets(panels):
    for p in panels:
        yield from targets(p.get("panels", []))
        for t in p.get("targets", []):
            if "expr" in t:
                yield p, t

selections = [("All", {"cluster": cluster, "account": all_value}, None),
              ("phys-a,bio", {"cluster": cluster, "account": "(phys-a|bio)"}, {"phys-a", "bio"})]
count = 0
now = time.time()
for panel, t in targets(doc.get("panels", [])):
    where = "panel %d %r, %s" % (panel["id"], panel["title"], t["refId"])
    for label, values, only in selections:
        if only and "$account" not in t["expr"] and "${account" not in t["expr"]:
            continue
        try:
            expr = substitute(t["expr"], values)
        except KeyError as e:
            fail("%s: unknown variable $%s in %s" % (where, e.args[0], t["expr"]))
            continue
        count += 1
        # a table's instant query, a time series panel's range query
        try:
            if t.get("instant"):
                series = api("query", query=expr)["result"]
            else:
                series = [s for s in api("query_range", query=expr, start=now - 30,
                                         end=now, step=1)["result"] if s["values"]]
        except PromError as e:
            fail("%s [%s]: Prometheus refuses %s: %s" % (where, label, expr, e))
            continue
        if not series:
            fail("%s [%s]: no series for %s" % (where, label, expr))
            continue
        # (an aggregation such as max by (account, user) drops the label)
        got_clusters = {s["metric"].get("cluster", cluster) for s in series}
        if got_clusters != {cluster}:
            fail("%s [%s]: clusters %s, want %s" % (where, label, got_clusters, cluster))
        got = {s["metric"]["account"] for s in series
               if "account" in s["metric"] and s["metric"].get("user", "") == ""}
        if "account" in expr:
            want = only if only else set(funded)
            if not want <= got:
                fail("%s [%s]: series for %s, not for %s: %s" % (where, label, sorted(got), sorted(want - got), expr))
            if only and not got <= only:
                fail("%s [%s]: series for %s beyond the selection %s" % (where, label, sorted(got - only), sorted(only)))
        print("ok %s [%s]: %d series" % (where, label, len(series)))

# template variable queries: label_values(SELECTOR, LABEL)
for name, v in variables.items():
    q = v.get("query")
    if v.get("type") != "query":
        continue
    q = q.get("query", "") if isinstance(q, dict) else q
    m = re.fullmatch(r"\s*label_values\((.*),\s*(\w+)\)\s*", q)
    if not m:
        fail("variable %s: query %r is not label_values(SELECTOR, LABEL)" % (name, q))
        continue
    count += 1
    selector = substitute(m.group(1), {"cluster": cluster})
    got = set(api("label/%s/values" % m.group(2), **{"match[]": selector}))
    want = {cluster} if m.group(2) == "cluster" else set(funded)
    if not want <= got:
        fail("variable %s: %s gives %s, lacks %s" % (name, q, sorted(got), sorted(want - got)))
    else:
        print("ok variable %s: %s" % (name, sorted(got)))

# the figures are show budget's: share of the cluster (ClusterPct, %, as
# printed), delivered and owed (GPU-seconds), charged usage (RawUsage)
def value(metric, account):
    r = api("query", query='%s{job="sbudget",cluster="%s",account="%s",user=""}' % (metric, cluster, account))["result"]
    return float(r[0]["value"][1]) if len(r) == 1 else None

def close(a, b, tol):
    return a is not None and abs(a - b) <= tol

for a in funded:
    r = accounts[a]
    pct, delivered, owed, raw = float(r[2]), float(r[3]), float(r[4]), float(r[5])
    decimals = len(r[2].split(".")[1]) if "." in r[2] else 0
    checks = (("sbudget_share_of_cluster", 100, pct, 0.5 * 10 ** -decimals + 1e-9),
              ("sbudget_delivered_gpu_hours", 3600, delivered, 1e-6 * max(1, delivered)),
              ("sbudget_owed_gpu_hours", 3600, owed, 1e-6 * max(1, owed)),
              ("sbudget_usage_charged_gpu_seconds", 1, raw, 1e-6 * max(1, raw)))
    for metric, scale, want, tol in checks:
        got = value(metric, a)
        if not close(None if got is None else got * scale, want, tol):
            fail("%s{account=%s}: Prometheus %s (x %g), show budget %s" % (metric, a, got, scale, want))
    count += 1
# the quota the dashboard computes (share x capacity x window) is show
# budget's QuotaRaw
quota = [t["expr"] for _, t in targets(doc.get("panels", []))
         if "sbudget_window_seconds" in t["expr"]]
if len(quota) != 1:
    fail("%d dashboard expressions use sbudget_window_seconds, want the quota's" % len(quota))
else:
    try:
        result = api("query", query=substitute(quota[0], {"cluster": cluster, "account": all_value}))["result"]
    except PromError as e:
        fail("the dashboard's quota: Prometheus refuses %s: %s" % (quota[0], e))
        result = []
    got = {s["metric"]["account"]: float(s["value"][1]) * 3600 for s in result
           if s["metric"].get("user", "") == "" and s["metric"]["job"] == "sbudget"}
    for a in funded:
        want = float(accounts[a][6])
        if not close(got.get(a), want, 1e-6 * max(1, want)):
            fail("quota of %s: the dashboard's %s GPU-s, show budget's QuotaRaw %s" % (a, got.get(a), want))
    count += 1
if not any(float(accounts[a][3]) > 0 for a in funded):
    fail("no budget has delivered use: the comparison proves nothing")
print("%d checks, %d failed; budgets %s" % (count, len(fails), ",".join(funded)))
sys.exit(1 if fails else 0)
PY
}

# prom_budget_rows - show budget's figures the Prometheus check compares.
prom_budget_rows() {
	"$PROM_SBUDGET" -P -n show budget format=Account,User,ClusterPct,DeliveredRaw,OwedRaw,RawUsage,QuotaRaw
}

# prom_write_metrics DIR OUT - write the textfile (contrib/sbudget-textfile.sh)
# between two identical readings of show budget, saved into OUT.
prom_write_metrics() {
	local before after i
	for ((i = 0; i < 5; i++)); do
		before=$(prom_budget_rows)
		SBUDGET=$PROM_SBUDGET "$SB_REPO/contrib/sbudget-textfile.sh" "$1/textfile" ||
			{ say "contrib/sbudget-textfile.sh $1/textfile failed"; return 1; }
		after=$(prom_budget_rows)
		[ -n "$after" ] && [ "$before" = "$after" ] && break
	done
	[ -n "$after" ] || { say "show budget read nothing"; return 1; }
	[ "$before" = "$after" ] || { say "figures kept changing"; return 1; }
	printf '%s\n' "$after" >"$2"
}

test_prometheus_scrapes_dashboard() {
	local d=$WORK/prometheus ids=() id cluster out bio want pending
	local p
	for p in prometheus prometheus-node-exporter; do
		command -v "$p" >/dev/null ||
			{ say "$p is not installed: run contrib/setup.sh (it installs Debian's prometheus and prometheus-node-exporter)"; return 1; }
	done
	for p in curl jq python3 ss; do
		command -v "$p" >/dev/null || { say "$p is not installed: run contrib/setup.sh"; return 1; }
	done
	mkdir -p "$PROM_LOGDIR"
	rm -rf "$d"
	mkdir -p "$d/textfile" "$d/data"
	cluster=$(scontrol show config | sed -n 's/^ClusterName *= *//p')
	# use for the figures: jobs of three budgets and one unallocated
	wait_idle
	ids+=("$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 3')")
	ids+=("$(submit sb-bob --min-runtime=0:05 -G 4 --wrap 'sleep 3')")
	ids+=("$(submit sb-dave --min-runtime=0:05 -G 2 --wrap 'sleep 3')")
	ids+=("$(submit sb-carol --min-runtime=0 -G 4 --wrap 'sleep 3')")
	for id in "${ids[@]}"; do wait_state "$id" COMPLETED 120; done
	wait_idle
	# one pending job (begins in an hour) for the job gauges
	pending=$(submit sb-alice --begin=now+1hour --min-runtime=0:05 -G 2 --wrap 'sleep 1')
	cleanup_push "prom_stop '$d'; scancel $pending 2>/dev/null || true"
	prom_write_metrics "$d" "$d/budgets" || return 1
	cp "$d/textfile/sbudget.prom" "$PROM_LOGDIR/prometheus.sbudget.prom"
	prom_start "$d" || return 1
	wait_for 60 "Prometheus ($PROM_URL) to scrape node_exporter (127.0.0.1:$PROM_EXPORTER_PORT) up" prom_target_up ||
		{ say "prometheus.log: $(tail -n 5 "$d/prometheus.log")"; say "node-exporter.log: $(tail -n 5 "$d/node-exporter.log")"; return 1; }
	wait_eq 30 "the textfile scraped without error" 0 prom_value 'node_textfile_scrape_error{job="sbudget"}'
	# the file's capacity (the cluster's 32 GPUs), through Prometheus
	want=$(awk '/^sbudget_capacity_gpus[{ ]/ { print $2 }' "$d/textfile/sbudget.prom")
	[ "$want" = 32 ] || { say "sbudget_capacity_gpus in the file: '$want', the cluster has 32 GPUs"; return 1; }
	wait_eq 30 "sbudget_capacity_gpus in Prometheus" "$want" \
		prom_value "sbudget_capacity_gpus{job=\"sbudget\",cluster=\"$cluster\"}"
	wait_eq 30 "one pending allocated job in Prometheus" 1 \
		prom_value "sbudget_jobs{job=\"sbudget\",cluster=\"$cluster\",state=\"pending\",tier=\"allocated\"}"
	# a few scrapes, so that the range queries have points
	wait_for 30 "5 samples of sbudget_window_seconds" _prom_samples 5
	out=$(prom_check_dashboard "$SB_REPO/contrib/grafana/sbudget-dashboard.json" "$cluster" "$d/budgets") ||
		{ say "$out"; return 1; }
	printf '%s\n' "$out" >"$PROM_LOGDIR/prometheus.dashboard"
	say "$(tail -n 1 <<<"$out")"
	# ... and the check can fail: a dashboard with an expression that
	# returns nothing (a misspelt metric)
	sed 's/sbudget_standing{/sbudget_standings{/' "$SB_REPO/contrib/grafana/sbudget-dashboard.json" >"$d/bad.json"
	if out=$(prom_check_dashboard "$d/bad.json" "$cluster" "$d/budgets"); then
		say "a dashboard with sbudget_standings passed"; return 1
	fi
	expect_in "$out" "no series for sbudget_standings"
	# ... and one whose quota matches capacity on(cluster) without max by
	# (cluster): refused when two writers give every series twice
	# shellcheck disable=SC2016  # $cluster is the dashboard's variable
	sed 's/group_left max by (cluster) (\(sbudget_[a-z_]*{cluster=\\"$cluster\\"}\))/group_left \1/g' \
		"$SB_REPO/contrib/grafana/sbudget-dashboard.json" >"$d/bad.json"
	! cmp -s "$d/bad.json" "$SB_REPO/contrib/grafana/sbudget-dashboard.json" ||
		{ say "could not take max by (cluster) out of the quota expression"; return 1; }
	if out=$(prom_check_dashboard "$d/bad.json" "$cluster" "$d/budgets"); then
		say "a quota expression without max by (cluster) passed"; return 1
	fi
	expect_in "$out" "many-to-many matching not allowed"
	# live: a new job of bio, the file rewritten, Prometheus follows
	scancel "$pending"
	wait_state "$pending" CANCELLED 60
	id=$(submit sb-bob --min-runtime=0:05 -G 2 --wrap 'sleep 2')
	wait_state "$id" COMPLETED 120
	wait_idle
	prom_write_metrics "$d" "$d/budgets2" || return 1
	bio=$(awk -F'|' '$1 == "bio" && $2 == "" { print $4 }' "$d/budgets")
	want=$(awk -F'|' '$1 == "bio" && $2 == "" { print $4 }' "$d/budgets2")
	[ "$bio" != "$want" ] || { say "bio's DeliveredRaw did not change ($bio)"; return 1; }
	wait_eq 30 "bio's new delivered GPU-seconds ($bio before) in Prometheus" "$want" \
		_prom_seconds "sbudget_delivered_gpu_hours{job=\"sbudget\",cluster=\"$cluster\",account=\"bio\",user=\"\"}"
	# ... and the file's age (the dashboard's last panel) is the new file's
	wait_eq 30 "node_textfile_mtime_seconds of the new file" "$(stat -c %Y "$d/textfile/sbudget.prom")" \
		prom_value "node_textfile_mtime_seconds{job=\"sbudget\",file=\"$d/textfile/sbudget.prom\"}"
}

# _prom_samples N - sbudget_window_seconds has N samples or more in Prometheus.
_prom_samples() {
	local n
	n=$(prom_value 'count_over_time(sbudget_window_seconds{job="sbudget"}[1m])') || { echo "none"; return 1; }
	[ "$n" -ge "$1" ] || { echo "$n samples"; return 1; }
}

# _prom_seconds QUERY - the value of QUERY times 3600, rounded: GPU-hours
# as the GPU-seconds show budget prints.
_prom_seconds() {
	prom_value "$1" | awk '{ printf "%.0f\n", $1 * 3600 }'
}
