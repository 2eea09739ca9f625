# shellcheck shell=bash
# t-conf.sh - budget.conf: ONE grammar for every reader (issue 10).
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
# before) must agree too, except where the table says it accepts on purpose.

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
	local n=0 bad=0 nprobe=0 nctld=0

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

		# sbudget: budget.conf beside the slurm.conf SLURM_CONF names
		cp "$file" "$tmp/sb/budget.conf"
		out=$(SLURM_CONF=$tmp/sb/slurm.conf "$sbudget" -v show budget 2>&1 >/dev/null || true)
		if [ "$verdict" = ok ]; then
			grep -qxF "sbudget: read $tmp/sb/budget.conf: $want" <<<"$out" ||
				mismatch sbudget "not read as the core reads it: $(head -n 1 <<<"$out")"
		else
			grep -qxF "sbudget: error: $tmp/sb/budget.conf: budget.conf$want" <<<"$out" ||
				mismatch sbudget "message differs: $(head -n 1 <<<"$out")"
		fi

		# Slurm's parse_config, as the plugins read budget.conf before
		if [ -x "$probe" ]; then
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
		fi

		# slurmctld: both controller plugins re-read it on reconfigure
		off=$(stat -c %s "$log")
		cp "$file" "$conf"
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
	done <"$cases/cases.tsv"

	ctld_alive
	say "$n budget.conf texts; readers: core, sbudget-sim, sbudget," \
		"slurmctld ($nctld), Slurm's parse_config ($nprobe); $bad disagreements"
	rm -rf "$tmp"
	[ "$n" -ge 50 ] && [ "$bad" -eq 0 ]
}
