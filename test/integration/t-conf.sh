# shellcheck shell=bash
# t-conf.sh - budget.conf: ONE grammar for every reader.
#
# The case table test/unit/conf-cases.h (config-test checks the core against
# it) is written out by conf-cases, with the core's verdict on each text:
# its settings (sb_config_describe) or its message.  Each text is then read
#   - by sbudget-sim (--conf FILE),
#   - by sbudget (-v; budget.conf beside the slurm.conf SLURM_CONF names),
#   - by slurmctld's priority/budget and preempt/budget plugins after
#     `scontrol reconfigure` (the log lines written after it),
# and each must accept exactly what the core accepts, with the same
# settings, and refuse the rest with the core's message (naming the line).
# Slurm's own parse_config (conf-slurm-probe, as the plugins read the file
# before) must agree too, except where the table says it accepts on purpose;
# and on 2000 random texts (test_conf_random_texts_read_as_slurm_reads_them).

# conf_field TSV_LINE N - field N of a cases.tsv line.
conf_field() { printf '%s\n' "$1" | cut -f"$2"; }

# conf_ctld_line LOG OFFSET PLUGIN CONF - the first line PLUGIN logged after
# OFFSET about CONF (its settings or its error), waiting up to 30 s.
conf_ctld_line() {
	local log=$1 off=$2 plugin=$3 conf=$4 line i
	for ((i = 0; i < 120; i++)); do
		line=$(tail -c +$((off + 1)) "$log" | grep -F "$plugin: " |
			grep -F "$conf" | head -n 1 || true)
		[ -n "$line" ] && { printf '%s\n' "$line"; return 0; }
		sleep 0.25
	done
	return 1
}

test_conf_one_grammar_every_reader() {
	local build=${SB_BUILD_DIR:-$SB_REPO/_build}
	local sim=$build/src/sim/sbudget-sim sbudget=$build/src/sbudget/sbudget
	local probe=$build/test/integration/conf-slurm-probe
	local data=$SB_REPO/test/unit/data
	local log=$SB_CLUSTER_DIR/log/slurmctld.log conf=$SB_CLUSTER_DIR/budget.conf
	local tmp cases row name verdict slurm want file out rc off got plugin
	local n=0 bad=0 nprobe=0 nctld=0 read_at=

	[ -x "$probe" ] || { say "no $probe (built with --with-slurm-source)"; return 1; }
	tmp=$(mktemp -d)
	cases=$tmp/cases
	mkdir -p "$cases" "$tmp/sb"
	"$build/test/integration/conf-cases" "$cases"
	cp "$SLURM_CONF" "$tmp/sb/slurm.conf"
	keep_budget_conf

	# mismatch READER MSG - record a disagreement (keeps going: every case
	# and reader is reported, the test fails at the end).
	mismatch() { say "$name: $1: $2"; bad=$((bad + 1)); }

	while IFS= read -r row; do
		name=$(conf_field "$row" 1)
		verdict=$(conf_field "$row" 2)
		slurm=$(conf_field "$row" 3)
		want=$(conf_field "$row" 4)
		file=$cases/$name.conf
		n=$((n + 1))

		# sbudget-sim
		rc=0
		out=$("$sim" --jobs "$data/sim-small.csv" --tree "$data/sim-small.tree" \
			--assign-teams --nodes 2 --gpus-per-node 8 --conf "$file" 2>&1) || rc=$?
		if [ "$verdict" = ok ]; then
			[ "$rc" = 0 ] || mismatch sbudget-sim "refused (rc $rc): $out"
			grep -qxF "budget.conf: $want" <<<"$out" ||
				mismatch sbudget-sim "settings differ: $(grep '^budget.conf: ' <<<"$out" || echo none)"
		else
			[ "$rc" = 2 ] || mismatch sbudget-sim "accepted (rc $rc)"
			grep -qxF "sbudget-sim: $file$want" <<<"$out" ||
				mismatch sbudget-sim "message differs: $out"
		fi

		# sbudget: budget.conf beside the slurm.conf SLURM_CONF names;
		# a refused text is the core's message in one warning, and
		# sbudget goes on (exit 0) with the last valid copy slurmctld
		# keeps, as slurmctld does
		cp "$file" "$tmp/sb/budget.conf"
		rc=0
		out=$(SLURM_CONF=$tmp/sb/slurm.conf "$sbudget" -v show budget 2>&1 >/dev/null) || rc=$?
		[ "$rc" = 0 ] || mismatch sbudget "exit $rc: $(head -n 1 <<<"$out")"
		if [ "$verdict" = ok ]; then
			grep -qxF "sbudget: read $tmp/sb/budget.conf: $want" <<<"$out" ||
				mismatch sbudget "not read as the core reads it: $(head -n 1 <<<"$out")"
		else
			grep -qxF "sbudget: warning: $tmp/sb/budget.conf$want; sbudget uses the last valid budget.conf, $SB_CLUSTER_DIR/state/budget.conf.last-valid, as slurmctld does until the file is fixed" <<<"$out" ||
				mismatch sbudget "message differs: $(head -n 1 <<<"$out")"
		fi

		# Slurm's parse_config, as the plugins read budget.conf before
		nprobe=$((nprobe + 1))
		got=$("$probe" "$file" 2>/dev/null | cut -f2-)
		if [ "$slurm" = accepts ]; then
			[[ "$verdict" = refused && "$got" = ok* ]] ||
				mismatch parse_config "the table says Slurm accepts and we refuse; Slurm: $got"
		elif [ "$verdict" = ok ]; then
			[ "$got" = "ok	$want" ] || mismatch parse_config "Slurm reads: $got"
		else
			[[ "$got" = refused* ]] || mismatch parse_config "Slurm accepts: $got"
		fi

		# slurmctld: both controller plugins re-read it on reconfigure.
		# Written in a later second than the previous case's reads: a
		# file changed in the second of the last reconfigure (a
		# slurmctld start on 24.11) is re-read at once, before this
		# case's reconfigure, and read again by it; that second line
		# could then fall after the next case's offset, and be taken
		# for the next case's.
		[ -z "$read_at" ] || wait_until $((read_at + 1)) "a second after the previous case was read"
		off=$(stat -c %s "$log")
		# renamed into place, never rewritten: preempt/budget re-reads
		# a file changed in the second of the previous case's
		# reconfigure, and a cp caught half-way reads as an empty file
		# (the defaults).
		cp "$file" "$conf.new"
		mv -f "$conf.new" "$conf"
		scontrol reconfigure
		nctld=$((nctld + 1))
		for plugin in priority/budget preempt/budget; do
			if ! got=$(conf_ctld_line "$log" "$off" "$plugin" "$conf"); then
				mismatch "$plugin" "nothing logged about $conf within 30 s"
				continue
			fi
			if [ "$verdict" = ok ]; then
				[[ "$got" = *"] $plugin: read $conf: $want" ]] ||
					mismatch "$plugin" "$got"
			else
				[[ "$got" = *"] error: $plugin: $conf$want" ]] ||
					mismatch "$plugin" "$got"
			fi
		done
		read_at=$(date +%s)
	done <"$cases/cases.tsv"

	ctld_alive
	# The texts changed LookbackWindow and BucketWidth on the live
	# cluster, and a shorter window rightly dropped older usage from the
	# ledger.  Leave the cluster as later tests expect it: the site's file
	# back, and the window rebuilt from slurmdbd (the documented recovery
	# of a lost ledger), so the live ledger again holds the whole window.
	mv -f "$SB_CLUSTER_DIR/budget.conf.keep" "$conf"
	cleanup_drop
	# No job ran during this test, so the saved job state is current (and
	# Slurm 24.11 saves it only when something changed: no waiting for a
	# save here); a kill -9 loses nothing.
	off=$(log_mark)
	"$SB_REPO/contrib/cluster.sh" kill-ctld
	rm -f "$SB_CLUSTER_DIR/state/budget_ledger.json"
	"$SB_REPO/contrib/cluster.sh" up >/dev/null
	wait_log "$off" "rebuilt the window from [0-9][0-9]* finished job records" 60
	say "$n budget.conf texts; readers: core, sbudget-sim, sbudget," \
		"slurmctld ($nctld), Slurm's parse_config ($nprobe); $bad disagreements"
	rm -rf "$tmp"
	[ "$n" -ge 50 ] && [ "$bad" -eq 0 ]
}

# Random texts (seeded): the core and Slurm's parse_config give the same
# verdict and, when both accept, the same settings.  The generator leaves out
# three of the four behaviours refused on purpose (no key twice in a file,
# no operators, no Include: parse_config would wait 60 s for a missing
# included file); the fourth, a quote cut by a comment or an inserted
# character, is the only difference allowed, and only as "must quote".
test_conf_random_texts_read_as_slurm_reads_them() {
	local build=${SB_BUILD_DIR:-$SB_REPO/_build}
	local probe=$build/test/integration/conf-slurm-probe
	local tmp n

	[ -x "$probe" ] || { say "no $probe (built with --with-slurm-source)"; return 1; }
	tmp=$(mktemp -d)
	python3 - "$tmp" <<'PY'
import random, sys
random.seed(20261130)
vals = {
    'CalcPeriod': ['30', '5', '0', 'x', '"60"'],
    'LookbackWindow': ['1-0', '2-0', '7d', '"1-0"'],
    'BucketWidth': ['1:00:00', '0:30:00', '11', '1'],
    'ChargeTRES': ['cpu', 'gres/gpu', 'GPU', '""'],
    'RepairReason': ['fix*', '"a b"', '""', '"a#b"', 'a\\#b', 'a\\\\b', 'none', '"x=y"'],
    'PreemptNonResumable': ['keep', 'KEEP', '"keep"', 'maybe', 'requeue', 'cancel'],
    'PreemptGraceTime': ['0', '10', '4000'],
    'MaxMinRuntime': ['4:00:00', '1:00:00', '8h'],
    'DefaultMinRuntime': ['15', 'none', '2:00:00'],
    'Foo': ['1'], 'Calc.Period': ['1'],
}
ws = ['', ' ', '  ', '\t', ' \t']
junk = ['\\', '#', ' ', '=', '\r', 'x', '\x80', '\\\n', '\n']
def case(k):
    return random.choice([k, k.lower(), k.upper()])
def line(k):
    l = (random.choice(ws) + case(k) + random.choice(ws) + '=' +
         random.choice(ws) + random.choice(vals[k]))
    r = random.random()
    if r < 0.15:
        l += random.choice(ws) + '#' + random.choice(['', ' c', 'x=1', '"'])
    elif r < 0.22:
        l += ' ' + random.choice(['CalcPeriod=1', 'junk', 'x'])
    elif r < 0.40:
        i = random.randint(0, len(l))
        l = l[:i] + random.choice(junk) + l[i:]
    elif r < 0.45:
        l += random.choice(ws) + '\\' + random.choice(ws)
    return l
for i in range(2000):
    keys = random.sample(sorted(vals), random.randint(0, 5))
    parts = [line(k) if random.random() > 0.15 else
             random.choice(['', '#c', '  ', '\t#x', '\v']) for k in keys]
    end = random.choice(['\n', '\r\n', '\n'])
    text = end.join(parts) + (end if random.random() < 0.7 else '')
    with open('%s/r%04d.conf' % (sys.argv[1], i), 'w', encoding='latin-1') as f:
        f.write(text)
PY
	"$build/test/integration/conf-cases" --read "$tmp"/r*.conf | cut -f1-3 >"$tmp/core"
	"$probe" "$tmp"/r*.conf 2>/dev/null | sed 's/^\([^\t]*\)\trefused\t.*/\1\trefused/' >"$tmp/slurm"
	n=$(wc -l <"$tmp/core")
	python3 - "$tmp/core" "$tmp/slurm" <<'PY'
import sys
core = [l.rstrip('\n').split('\t') for l in open(sys.argv[1])]
slurm = {l.split('\t')[0]: l.rstrip('\n').split('\t') for l in open(sys.argv[2])}
agree = quote = bad = oks = 0
for f, verdict, what in core:
    s = slurm.get(f, [f, 'missing'])
    oks += verdict == 'ok'
    if verdict == s[1] and (verdict != 'ok' or what == s[2]):
        agree += 1
    elif verdict == 'refused' and s[1] == 'ok' and 'must quote' in what:
        quote += 1
    else:
        bad += 1
        print('    %s: core %s %s; parse_config %s' % (f, verdict, what, ' '.join(s[1:])), file=sys.stderr)
print('    %d texts (%d accepted by the core): %d read alike, %d stray quotes '
      '(refused on purpose), %d differ' % (len(core), oks, agree, quote, bad), file=sys.stderr)
sys.exit(1 if bad or len(core) < 2000 or oks < 200 else 0)
PY
	rm -rf "$tmp"
}

# The ledger's memory bound at the site's association count: 800 more
# accounts and a day of 1-second buckets (1.4 MB an association) would take
# over 1 GiB; priority/budget says so and keeps a shape that fits (its
# ledger's on 22.05, which reconfigures in the process; wider buckets on
# 24.11 and later, which start a new process), and goes on recalculating.
# With the shape restored nothing is said.
test_conf_ledger_memory_bound() {
	local accts mark
	accts=$(seq -f 'sbm%03g' 1 800 | paste -sd,)
	keep_budget_conf
	cleanup_push "sacctmgr -i delete account name=$accts >/dev/null 2>&1 || true"
	sacctmgr -i add account "$accts" parent=root fairshare=0 >/dev/null
	wait_for 30 "slurmctld to know sbm800" bash -c "sshare -n -P -A sbm800 -o Account | grep -qx sbm800"
	mark=$(log_mark)
	set_budget_conf "$(sed 's/^BucketWidth=.*/BucketWidth=0:01/' "$SB_CLUSTER_DIR/budget.conf.keep")"
	wait_log "$mark" "priority/budget: LookbackWindow=1-00:00:00 BucketWidth=0:00:01: the ledger of [0-9]+ associations would need [0-9]+ MiB, above its 1024 MiB bound: using LookbackWindow=1-00:00:00 BucketWidth=(0:00:02|0:01:00) \([0-9]+ MiB\)" 30 >/dev/null
	wait_recalc_after "$(date +%s)"
	ctld_alive
	# the shape restored: no word about the bound
	mark=$(log_mark)
	set_budget_conf "$(cat "$SB_CLUSTER_DIR/budget.conf.keep")"
	wait_recalc_after "$(date +%s)"
	no_log "$mark" "above its 1024 MiB bound"
	sacctmgr -i delete account name="$accts" >/dev/null
}
