# shellcheck shell=bash
# t-page.sh - the budget page (`sbudget page`) made from the live
# cluster and loaded in a real browser: headless Chromium (Debian's
# package) dumps the DOM after the page's scripts ran, and logs the console.
# The DOM must hold one panel per budget, time axes labelled with UTC dates
# inside the span, the tree with show budget's figures cell for cell, the
# pending jobs in the scheduler's order with show job's WaitsFor, a job
# preempt/budget preempted with show job's PreemptedBy and PreemptReason, and the
# marker the page's last script writes only when no script failed; the
# console must be silent.  A page with a script error must fail the same
# check (the check can fail).  A screenshot goes to the test log directory.

PAGE_SBUDGET=${SBUDGET:-${SB_BUILD_DIR:-$SB_REPO/_build}/src/sbudget/sbudget}
PAGE_LOGDIR=$SB_CLUSTER_DIR/test-logs

# chromium_run OUT ERR ARGS... URL - headless Chromium with a fresh profile,
# no network of its own (no QUIC, no background or component fetches, no
# sync); stdout into OUT, stderr (with the console log) into ERR.
chromium_run() {
	local out=$1 err=$2 prof rc=0; shift 2
	prof=$(mktemp -d)
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$prof" --enable-logging=stderr --v=0 \
		"$@" >"$out" 2>"$err" || rc=$?
	rm -rf "$prof"
	return "$rc"
}

# page_browser_check FILE.html DOM - load the page, dump its DOM into DOM;
# fail when a script failed (no data-sb-ok="yes" marker) or the console
# printed anything (Chromium logs every console message as ":CONSOLE").
page_browser_check() {
	local page=$1 dom=$2 err
	err=$dom.stderr
	chromium_run "$dom" "$err" --dump-dom "file://$page" ||
		{ say "chromium failed on $page: $(tail -n 3 "$err")"; return 1; }
	if grep -q ':CONSOLE' "$err"; then
		say "console messages of $page:"
		say "$(grep ':CONSOLE' "$err" | head -n 5)"
		return 1
	fi
	grep -q '<html[^>]* data-sb-ok="yes"' "$dom" ||
		{ say "$page: no data-sb-ok=\"yes\" marker (a script failed or did not run)"; return 1; }
}

# page_dom_check DOM BUDGET_ROWS PENDING_ROWS PREEMPTED_ROWS - the DOM
# against what sbudget prints: BUDGET_ROWS is `sbudget -P -n show budget`
# of the same moment, PENDING_ROWS "jobid|WaitsFor" lines in the
# scheduler's order, PREEMPTED_ROWS "jobid|PreemptedBy|PreemptReason" lines
# of jobs that must be listed as preempted.
page_dom_check() {
	python3 - "$1" "$2" "$3" "$4" <<'PY'
import re, sys
from html.parser import HTMLParser
from datetime import datetime, timezone

dom, budget_rows, pending_rows, preempted_rows = sys.argv[1:5]

class Dom(HTMLParser):
    """Enough of the DOM: elements with attributes, their text, nesting."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.all = [], []
    def handle_starttag(self, tag, attrs):
        el = {"tag": tag, "attrs": dict(attrs), "text": "", "children": [],
              "parent": self.stack[-1] if self.stack else None}
        if self.stack:
            self.stack[-1]["children"].append(el)
        self.all.append(el)
        if tag not in ("meta", "br", "input", "line", "path", "link"):
            self.stack.append(el)
    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i]["tag"] == tag:
                del self.stack[i:]
                break
    def handle_data(self, data):
        for el in self.stack:
            el["text"] += data

def fail(msg):
    print(msg)
    sys.exit(1)

def find(root, pred):
    out = []
    def walk(e):
        if pred(e):
            out.append(e)
        for c in e["children"]:
            walk(c)
    walk(root)
    return out

d = Dom()
d.feed(open(dom, encoding="utf-8").read())
body = next(e for e in d.all if e["tag"] == "body")
span = [datetime.strptime(body["attrs"]["data-" + k], "%Y-%m-%dT%H:%MZ")
        .replace(tzinfo=timezone.utc) for k in ("from", "to")]

# the tree: show budget's rows, cell for cell
want = budget_lines = [l for l in open(budget_rows).read().splitlines() if l]
table = next(e for e in d.all if e["tag"] == "table" and e["attrs"].get("id") == "budgets")
got = ["|".join(td["text"].strip() for td in tr["children"] if td["tag"] == "td")
       for tr in find(table, lambda e: e["tag"] == "tr")[1:]]
if got != want:
    fail("tree differs from show budget:\n page: %s\n show budget: %s" % (got, want))

# one panel per budget (account associations: the rows without a user)
accounts = [l.split("|")[0] for l in want if l.split("|")[1] == ""]
panels = [e for e in d.all if e["tag"] == "figure" and "panel" in e["attrs"].get("class", "")]
names = [p["attrs"]["data-account"] for p in panels]
if sorted(names) != sorted(accounts):
    fail("panels %s, budgets %s" % (names, accounts))
fields = {l.split("|")[0]: l.split("|") for l in want if l.split("|")[1] == ""}
for p in panels:
    row = fields[p["attrs"]["data-account"]]
    # default columns: Account User RawShares ParentPct ClusterPct Owed
    # Delivered Unallocated DelivOwed Standing Status
    for attr, col in (("data-owed", 5), ("data-delivered", 6),
                      ("data-unallocated", 7), ("data-standing", 9)):
        if p["attrs"][attr] != row[col]:
            fail("panel %s: %s=%s, show budget %s" % (row[0], attr, p["attrs"][attr], row[col]))
    if "standing " + row[9] not in p["text"] or "delivered/owed " + row[8] not in p["text"]:
        fail("panel %s caption lacks standing %s or delivered/owed %s: %r" % (row[0], row[9], row[8], p["text"]))
    # a time axis of UTC dates inside the span, the date written out
    ticks = find(p, lambda e: e["tag"] == "text" and "xlab" in e["attrs"].get("class", ""))
    if len(ticks) < 2:
        fail("panel %s: %d time ticks" % (row[0], len(ticks)))
    dates = 0
    for t in ticks:
        at = datetime.strptime(t["attrs"]["data-utc"], "%Y-%m-%dT%H:%MZ").replace(tzinfo=timezone.utc)
        if not span[0] <= at <= span[1]:
            fail("panel %s: tick %s outside the span %s" % (row[0], at, span))
        label = t["text"].strip()
        if not label.startswith(at.strftime("%H:%M")) and not label.startswith(at.strftime("%Y-%m-%d")):
            fail("panel %s: tick %s labelled %r" % (row[0], at, label))
        if at.strftime("%Y-%m-%d") in label:
            dates += 1
    if dates == 0:
        fail("panel %s: no tick label shows a date" % row[0])
    if not find(p, lambda e: e["tag"] == "path" and "deliv" in e["attrs"].get("class", "")):
        fail("panel %s: no delivered line" % row[0])

# pending jobs: order and show job's WaitsFor
want = [l.split("|", 1) for l in open(pending_rows).read().splitlines() if l]
rows = find(d.all[0], lambda e: e["tag"] == "tr" and "data-job" in e["attrs"]
            and e["parent"] is not None and e["parent"]["tag"] == "tbody"
            and e["parent"]["parent"]["attrs"].get("id") == "pending")
got = [[r["attrs"]["data-job"], r["children"][-1]["text"].strip()] for r in rows]
if got != want:
    fail("pending jobs differ:\n page: %s\n show job: %s" % (got, want))
npending = len(got)

# preemptions: who and why, as show job says
rows = find(d.all[0], lambda e: e["tag"] == "tr" and "data-job" in e["attrs"]
            and e["parent"] is not None and e["parent"]["tag"] == "tbody"
            and e["parent"]["parent"]["attrs"].get("id") == "preempted")
listed = {r["attrs"]["data-job"]: [c["text"].strip() for c in r["children"] if c["tag"] == "td"] for r in rows}
want = [l.split("|", 2) for l in open(preempted_rows).read().splitlines() if l]
for job, by, why in want:
    if job not in listed:
        fail("preempted job %s not listed; listed: %s" % (job, sorted(listed)))
    cells = listed[job]
    if cells[5] != by or cells[6] != why:
        fail("preempted job %s: page says by %r why %r; show job: by %r why %r" % (job, cells[5], cells[6], by, why))
print("ok: %d panels, %d tree rows, %d pending jobs, %d preemptions" % (len(panels), len(budget_lines), npending, len(want)))
PY
}

# page_pending_rows - "jobid|WaitsFor" of every pending job, highest
# priority first, then by job id (the order the page promises), from
# squeue and show job.
page_pending_rows() {
	local id
	squeue -h -t PD -o '%Q %i' | sort -k1,1nr -k2,2n | while read -r _ id; do
		printf '%s|%s\n' "$id" "$("$PAGE_SBUDGET" -P -n show job "$id" format=WaitsFor)"
	done
}

# page_pending_prioritised JOBID - the job pends with a priority above 0.
page_pending_prioritised() {
	local st
	st=$(squeue -h -j "$1" -o '%T %Q')
	if [ "${st%% *}" != PENDING ] || [ "${st#* }" -le 0 ]; then
		echo "$st"
		return 1
	fi
}

test_page_in_browser() {
	local page=$WORK/page-test.html dom=$PAGE_LOGDIR/page.dom ids=() id
	local before after pend bad out victim pre
	command -v chromium >/dev/null || { say "chromium is not installed (contrib/setup.sh installs it)"; return 1; }
	mkdir -p "$PAGE_LOGDIR"
	# use to draw: jobs of three budgets and one unallocated
	wait_idle
	ids+=("$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 4')")
	ids+=("$(submit sb-bob --min-runtime=0:05 -G 4 --wrap 'sleep 3')")
	ids+=("$(submit sb-dave --min-runtime=0:05 -G 2 --wrap 'sleep 3')")
	ids+=("$(submit sb-carol --min-runtime=0 -G 4 --wrap 'sleep 3')")
	for id in "${ids[@]}"; do wait_state "$id" COMPLETED 120; done
	# a preemption: an allocated job takes the GPUs of an unallocated one
	# (requeued; then cancelled, so that it stays out of the queue: slurmctld
	# keeps it, with preempt/budget's note, for MinJobAge)
	victim=$(submit sb-carol --min-runtime=0 -N 4 --gpus-per-node=8 --wrap 'sleep 300')
	cleanup_push "scancel $victim 2>/dev/null || true"
	wait_state "$victim" RUNNING 60
	pre=$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 2')
	wait_eq 60 "job $victim preempted by job $pre" "$pre" \
		"$PAGE_SBUDGET" -P -n show job "$victim" format=PreemptedBy
	scancel "$victim"
	wait_state "$victim" CANCELLED 60
	wait_state "$pre" COMPLETED 120
	wait_idle
	# pending jobs that stay pending (begin in an hour), of different
	# budgets and tiers, and one whose name needs escaping
	ids=()
	ids+=("$(submit sb-alice --begin=now+1hour --min-runtime=0:05 -G 8 -J '<b>x&"y'"'"'</b>' --wrap 'sleep 1')")
	ids+=("$(submit sb-bob --begin=now+1hour --min-runtime=0:05 -G 2 --wrap 'sleep 1')")
	ids+=("$(submit sb-carol --begin=now+1hour --min-runtime=0 -G 1 --wrap 'sleep 1')")
	ids+=("$(submit sb-dave --begin=now+1hour --min-runtime=0:05 -G 4 --wrap 'sleep 1')")
	cleanup_push "scancel ${ids[*]} 2>/dev/null || true"
	for id in "${ids[@]}"; do
		wait_for 30 "job $id pending with a priority" page_pending_prioritised "$id"
	done
	# the page between two identical show budget and queue readings
	for ((i = 0; i < 5; i++)); do
		before=$("$PAGE_SBUDGET" -P -n show budget; page_pending_rows)
		"$PAGE_SBUDGET" page "$page"
		after=$("$PAGE_SBUDGET" -P -n show budget; page_pending_rows)
		[ -n "$after" ] && [ "$before" = "$after" ] && break
	done
	[ -n "$after" ] || { say "show budget and the queue read nothing"; return 1; }
	[ "$before" = "$after" ] || { say "figures kept changing"; return 1; }
	"$PAGE_SBUDGET" -P -n show budget >"$PAGE_LOGDIR/page.budgets"
	page_pending_rows >"$PAGE_LOGDIR/page.pending"
	printf '%s|%s\n' "$victim" "$("$PAGE_SBUDGET" -P -n show job "$victim" format=PreemptedBy,PreemptReason)" \
		>"$PAGE_LOGDIR/page.preempted"
	pend=$(wc -l <"$PAGE_LOGDIR/page.pending")
	[ "$pend" -ge 4 ] || { say "only $pend pending jobs"; return 1; }
	say "page: $(stat -c %s "$page") bytes"
	# the name is escaped in the file (the DOM shows it as text)
	grep -q '&lt;b&gt;x&amp;&quot;y&#39;&lt;/b&gt;' "$page" ||
		{ say "job name not escaped in $page"; return 1; }
	page_browser_check "$page" "$dom"
	out=$(page_dom_check "$dom" "$PAGE_LOGDIR/page.budgets" "$PAGE_LOGDIR/page.pending" \
		"$PAGE_LOGDIR/page.preempted") ||
		{ say "$out"; return 1; }
	say "$out"
	# ... and that check fails when a figure differs (one Owed changed)
	awk -F'|' -v OFS='|' 'NR == 2 { $6 = $6 + 1 } 1' "$PAGE_LOGDIR/page.budgets" >"$PAGE_LOGDIR/page.budgets.bad"
	if page_dom_check "$dom" "$PAGE_LOGDIR/page.budgets.bad" "$PAGE_LOGDIR/page.pending" \
		"$PAGE_LOGDIR/page.preempted" >/dev/null; then
		say "the DOM check passed with a wrong figure"; return 1
	fi
	# a screenshot to look at
	rm -f "$PAGE_LOGDIR/page.png"
	chromium_run /dev/null "$PAGE_LOGDIR/page.png.stderr" --window-size=1400,2600 \
		--hide-scrollbars --screenshot="$PAGE_LOGDIR/page.png" "file://$page"
	[ "$(head -c 8 "$PAGE_LOGDIR/page.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		{ say "no PNG screenshot at $PAGE_LOGDIR/page.png"; return 1; }
	say "screenshot: $PAGE_LOGDIR/page.png ($(stat -c %s "$PAGE_LOGDIR/page.png") bytes)"

	# the check can fail: a script error before the marker script, and
	# one in the marker script itself, and a console message
	bad=$WORK/page-bad.html
	sed 's|<script>(function(){var f|<script>noSuchFunction();</script>&|' "$page" >"$bad"
	grep -q noSuchFunction "$bad" || { say "could not break the page"; return 1; }
	if page_browser_check "$bad" "$dom.bad" 2>/dev/null; then
		say "a page with a script error passed the browser check"; return 1
	fi
	grep -q 'data-sb-ok="no"' "$dom.bad" || { say "the marker did not say no"; return 1; }
	sed 's|document.documentElement.setAttribute|noSuchObject.x();&|' "$page" >"$bad"
	if page_browser_check "$bad" "$dom.bad" 2>/dev/null; then
		say "a page whose last script fails passed the browser check"; return 1
	fi
	sed 's|<script>(function(){var f|<script>console.log("x");</script>&|' "$page" >"$bad"
	if page_browser_check "$bad" "$dom.bad" 2>/dev/null; then
		say "a page that logs to the console passed the browser check"; return 1
	fi
	scancel "${ids[@]}"
}

# account=X: X's sub-tree only (a budget owner's view); refusals.
test_page_subtree_and_refusals() {
	local page=$WORK/page-physics.html out names
	"$PAGE_SBUDGET" page "$page" where account=physics
	names=$(grep -o '<figure class="panel" data-account="[^"]*"' "$page" | sed 's/.*data-account="//; s/"$//' | sort | tr '\n' ' ')
	[ "$names" = "phys-a phys-b physics " ] || { say "panels of physics' sub-tree: '$names'"; return 1; }
	# the tree: exactly show budget's rows of the sub-tree (physics and
	# everything below; show budget's account= takes exact accounts)
	out=$(grep -c '<tr data-depth=' "$page") || { say "no tree rows on physics' page"; return 1; }
	[ "$out" = "$("$PAGE_SBUDGET" -P -n show budget account=physics,phys-a,phys-b | wc -l)" ] ||
		{ say "$out tree rows for physics' sub-tree"; return 1; }
	! grep -q 'data-account="bio"' "$page" || { say "bio on physics' page"; return 1; }
	expect_in "$(grep -o '<h1>.*</h1>' "$page")" "the sub-tree of physics"
	# refusals name the value and what is accepted, and write nothing
	expect_fail out "$PAGE_SBUDGET" page "$WORK/page.txt"
	expect_in "$out" "page '$WORK/page.txt': the file name must end in .html or .htm"
	expect_fail out "$PAGE_SBUDGET" page "$WORK/p2.html" account=nosuch
	expect_in "$out" "unknown account 'nosuch'"
	expect_fail out "$PAGE_SBUDGET" page "$WORK/p2.html" window=1-0 step=1
	expect_in "$out" "page: step '0:01:00' cuts the span into 1440 steps, more than a chart shows (720): give step=0:02:00 or longer"
	[ ! -e "$WORK/p2.html" ] || { say "a refused page was written"; return 1; }
	expect_fail out "$PAGE_SBUDGET" page "/nonexistent-dir/p.html"
	expect_in "$out" "page '/nonexistent-dir/p.html': cannot write"
	# standard output
	out=$("$PAGE_SBUDGET" page - account=bio)
	expect_in "$out" '<figure class="panel" data-account="bio"'
	expect_in "$out" '</html>'
}
