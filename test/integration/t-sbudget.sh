# shellcheck shell=bash
# t-sbudget.sh - the sbudget command on the local cluster:
# the tree, figures agreeing with sshare and the plugin's ledger (and with
# each other: capped, delivered/owed), changing a share through slurmdbd
# (coordinator rights), refusals that change nothing, show job (contract, a
# job without a tag, priority parts, what it waits for and the core's
# verdict on each running job, its preemptor).  The figures over a span
# (report with a plot, show budget and report on the same span, Prometheus
# metrics, the all-teams figures, lost GPU time) are in t-sbudget-report.sh.

# shares_of ACCOUNT - RawShares of the account association (sacctmgr).
shares_of() {
	sacctmgr -n -P show assoc where cluster=sbcluster account="$1" format=user,fairshare |
		awk -F'|' '$1 == "" { print $2; exit }'
}

# ledger_sums - "assoc_id allocated unallocated" per association from the
# plugin's saved ledger (TRES-seconds the association itself was charged).
# The saved ledger's sums per association over the buckets that have
# started (RawUsage is the window up to now; a bucket can start later:
# when the bucket width shrinks, an hour's bucket is split evenly over its
# minutes, later ones included).
ledger_sums() {
	python3 - "$SB_CLUSTER_DIR/state/budget_ledger.json" <<'PY'
import json, sys, time
doc = json.load(open(sys.argv[1]))
now = time.time()
for a in doc["associations"]:
    bs = [b for b in a["buckets"] if b[0] <= now]
    print(a["id"], round(sum(b[1] for b in bs)), round(sum(b[2] for b in bs)))
PY
}

test_sbudget_help_version() {
	local out
	out=$(sb --help)
	expect_in "$out" "modify budget where account=A"
	out=$(sb --version)
	expect_in "$out" "sbudget "
	expect_in "$out" "built for Slurm $(sinfo -V | awk '{print $2}')"
	# the README's commands run as written after eval "$(cluster.sh env)":
	# sbudget and sbudget-sim of the cluster's build are on PATH
	out=$(eval "$("$SB_REPO/contrib/cluster.sh" env)" && command -v sbudget && command -v sbudget-sim)
	expect_in "$out" "$SB_BUILD_DIR/src/sbudget/sbudget"
	expect_in "$out" "$SB_BUILD_DIR/src/sim/sbudget-sim"
}

# The tree: RawShares and normalised shares as sshare shows them; % of the
# cluster is the product along the path (physics 3 of 3:1:0, phys-a 2 of 2:1).
test_sbudget_show_budget_tree() {
	local out acct user raw ppct s_raw s_norm
	out=$(sb -P -n show budget format=Account,User,RawShares,ParentPct,ClusterPct)
	say "$out"
	expect_in "$out" "physics||3|75.00|75.00"
	expect_in "$out" "phys-a||2|66.67|50.00"
	expect_in "$out" "phys-b|sb-dave|1|50.00|12.50"
	expect_in "$out" "nobudget||0|0.00|0.00"
	# every association agrees with sshare's RawShares and NormShares
	while IFS='|' read -r acct user raw ppct _; do
		IFS='|' read -r s_raw s_norm < <(sshare -n -P -A "$acct" ${user:+-u "$user"} \
			-o Account,User,RawShares,NormShares | awk -F'|' -v u="$user" \
			'{ gsub(/ /, "", $1) } $2 == u { print $3 "|" $4; exit }')
		[ "$raw" = "$s_raw" ] || { say "$acct/$user: RawShares $raw, sshare $s_raw"; return 1; }
		awk -v a="$ppct" -v b="$s_norm" 'BEGIN { exit !(a / 100 - b < 0.00006 && b - a / 100 < 0.00006) }' ||
			{ say "$acct/$user: ParentPct $ppct, sshare NormShares $s_norm"; return 1; }
	done <<<"$out"
	# where account= selects; the table style indents by depth
	out=$(sb show budget where account=phys-a format=Account,User)
	grep -Eq '^  phys-a +sb-alice *$' <<<"$out" || { say "no indented phys-a/sb-alice row in: $out"; return 1; }
	[[ "$out" != *bio* ]] || { say "account filter leaked: $out"; return 1; }
	out=$(sb --json show budget account=bio format=Account,RawShares,ClusterPct)
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])["budgets"]; assert d[0]=={"Account":"bio","RawShares":1,"ClusterPct":25.0}, d' "$out"
}

# Figures agree with sshare and with the plugin's ledger at the same moment:
# RawUsage is sshare's; DeliveredRaw and UnallocatedRaw are computed by
# sbudget from slurmdbd's job records; the ledger is the plugin's own file.
test_sbudget_figures_agree_with_sshare_and_ledger() {
	local ids=() id out acct user rawu deliv unal aid s_raw l_alloc l_unal n=0
	local before d0 r0
	# DeliveredRaw is compared with RawUsage as what the jobs below added
	# to each: the window's history may hold runs the two count apart
	# (priority/budget rebuilt from slurmdbd drops the runs of a deleted
	# association, which its live ledger and sbudget keep with the account)
	wait_idle
	before=$(sb -P -n show budget format=AssocId,DeliveredRaw,RawUsage)
	ids+=("$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 4')")
	ids+=("$(submit sb-dave --min-runtime=0:05 -N 2 --gpus-per-node=4 --wrap 'sleep 3')")
	ids+=("$(submit sb-bob --min-runtime=0:05 -G 2 --wrap 'sleep 5')")
	ids+=("$(submit sb-carol --min-runtime=0 -G 6 --wrap 'sleep 4')")
	for id in "${ids[@]}"; do wait_state "$id" COMPLETED 120; done
	wait_idle
	out=$(sb -P -n show budget format=Account,User,RawUsage,DeliveredRaw,UnallocatedRaw,AssocId)
	local ledger sshare_out
	ledger=$(ledger_sums)
	sshare_out=$(sshare -a -n -P -o Account,User,RawUsage)
	while IFS='|' read -r acct user rawu deliv unal aid; do
		s_raw=$(awk -F'|' -v a="$acct" -v u="$user" '{ gsub(/ /, "", $1) } $1 == a && $2 == u { print $3; exit }' <<<"$sshare_out")
		[ "$rawu" = "$s_raw" ] || { say "$acct/$user: sbudget RawUsage $rawu, sshare $s_raw"; return 1; }
		# the slurmdbd-derived figure: what the jobs added, within 1
		# GPU-second per job of what the ledger added (sacct and
		# slurmctld round start/end alike, but a job's charged end may
		# differ by a second from its record)
		read -r d0 r0 < <(awk -F'|' -v i="$aid" '$1 == i { print $2, $3 }' <<<"$before") || true
		awk -v a="$((deliv - ${d0:-0}))" -v b="$((rawu - ${r0:-0}))" \
			'BEGIN { d = a - b; exit !(d <= 8 && d >= -8) }' ||
			{ say "$acct/$user: DeliveredRaw $d0 -> $deliv, RawUsage $r0 -> $rawu"; return 1; }
		[ -n "$user" ] || continue
		read -r l_alloc l_unal < <(awk -v i="$aid" '$1 == i { print $2, $3 }' <<<"$ledger") || true
		l_alloc=${l_alloc:-0} l_unal=${l_unal:-0}
		# equal but for rounding (a split bucket holds fractions)
		awk -v a="$rawu" -v b="$l_alloc" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' ||
			{ say "$acct/$user: RawUsage $rawu, ledger $l_alloc"; return 1; }
		awk -v a="$unal" -v b="$l_unal" 'BEGIN { d = a - b; exit !(d <= 8 && d >= -8) }' ||
			{ say "$acct/$user: UnallocatedRaw $unal, ledger unallocated $l_unal"; return 1; }
		n=$((n + 1))
	done <<<"$out"
	say "compared $n user associations; phys-a/sb-alice: $(grep '^phys-a|sb-alice' <<<"$out")"
	[ "$n" -ge 5 ]
	# the jobs just run are in it: alice's 8 GPUs x ~4 s at least
	[ "$(awk -F'|' '$1 == "phys-a" && $2 == "sb-alice" { print $4 }' <<<"$out")" -ge 24 ]
	[ "$(awk -F'|' '$1 == "nobudget" && $2 == "sb-carol" { print $5 }' <<<"$out")" -ge 18 ]
	# sb/figures.h on every row: capped <= delivered and <= owed (1
	# GPU-second of rounding), DelivOwed = capped / owed, 1 when nothing
	# is owed
	out=$(sb -P -n show budget format=Account,User,OwedRaw,DeliveredRaw,CappedRaw,Owed,Capped,DelivOwed)
	say "$(grep -E '^(physics|phys-a|nobudget)\|\|' <<<"$out")"
	awk -F'|' '
		$5 > $4 + 1 || $5 > $3 + 1 { print "capped above delivered or owed: " $0; bad = 1 }
		$3 == 0 && $8 != "1.000" { print "nothing owed, DelivOwed not 1: " $0; bad = 1 }
		$3 > 0 { r = $5 / $3; d = r - $8; if (d > 0.0006 || d < -0.0006) { print "DelivOwed not capped/owed: " $0; bad = 1 } }
		END { if (NR < 5) { print "only " NR " rows checked"; bad = 1 } exit bad }' <<<"$out" >&2
}

# Through slurmdbd: the coordinator of physics changes phys-b, is refused on
# bio with slurmdbd's reason; a plain user is refused; nothing else changes.
test_sbudget_modify_coordinator_rights() {
	local out before_b before_bio before_a
	before_b=$(shares_of phys-b); before_bio=$(shares_of bio); before_a=$(shares_of phys-a)
	cleanup_push 'sacctmgr -i modify account where name=phys-b cluster=sbcluster set fairshare='"$before_b"' >/dev/null'
	out=$(as sb-dave "$SBUDGET" -i modify budget where account=phys-b set share=7)
	say "$out"
	expect_in "$out" "A = phys-b"
	[ "$(shares_of phys-b)" = 7 ] || { say "phys-b shares $(shares_of phys-b), expected 7"; return 1; }
	out=$(sb -P -n show budget account=phys-b format=Account,User,RawShares | head -n 1)
	expect_in "$out" "phys-b||7"
	# the coordinator of physics may not touch bio
	expect_fail out as sb-dave "$SBUDGET" -i modify budget where account=bio set share=9
	say "$out"
	expect_in "$out" "doesn't have privilege"
	expect_in "$out" "refused by slurmdbd: Access/permission denied"
	[ "$(shares_of bio)" = "$before_bio" ] || { say "bio changed to $(shares_of bio)"; return 1; }
	# a plain user may not change even their own account's budget
	expect_fail out as sb-alice "$SBUDGET" -i modify budget where account=phys-a set share=9
	expect_in "$out" "Access/permission denied"
	[ "$(shares_of phys-a)" = "$before_a" ]
	# without -i it asks; anything but y discards
	out=$(echo n | sb modify budget where account=phys-b set share=2) && { say "discard exited 0"; return 1; }
	expect_in "$out" "Changes Discarded"
	[ "$(shares_of phys-b)" = 7 ] || { say "discarded change applied: $(shares_of phys-b)"; return 1; }
	out=$(echo y | sb modify budget where account=phys-b set share=2)
	[ "$(shares_of phys-b)" = 2 ] || { say "confirmed change not applied: $(shares_of phys-b)"; return 1; }
	# restore now (the pushed cleanup is the safety net)
	sb -i -Q modify budget where account=phys-b set share="$before_b"
	[ "$(shares_of phys-b)" = "$before_b" ]
}

# add budget: a new account budget under a parent through slurmdbd, with the
# rights sacctmgr has (the coordinator of physics under physics only, a
# plain user nowhere); an existing budget and an unknown parent refused;
# without -i it asks.  priority/budget's tree has it at once.
test_sbudget_add_budget() {
	local out
	cleanup_push 'sacctmgr -i delete account name=sb-new-a,sb-new-b,sb-new-c,sb-new-d >/dev/null 2>&1 || true'
	out=$(sb -i add budget account=sb-new-a parent=physics share=3 description=new-a)
	say "$out"
	expect_in "$out" "A = sb-new-a"
	out=$(sacctmgr -n -P show assoc where cluster=sbcluster account=sb-new-a format=user,parentname,fairshare)
	[ "$out" = "|physics|3" ] || { say "association: '$out', expected '|physics|3'"; return 1; }
	out=$(sacctmgr -n -P show account sb-new-a format=descr,org)
	[ "$out" = "new-a|physics" ] || { say "account: '$out', expected 'new-a|physics'"; return 1; }
	# the priority plugin's tree: sbudget reads sshare's columns from it
	wait_eq 30 "sshare's row of sb-new-a" "sb-new-a|3" sshare -n -P -A sb-new-a -o Account,RawShares
	out=$(sb -P -n show budget account=sb-new-a format=Account,User,RawShares)
	expect_in "$out" "sb-new-a||3"
	# again: it exists; an unknown parent
	expect_fail out sb -i add budget account=sb-new-a parent=bio share=1
	expect_in "$out" "account 'sb-new-a' already has a budget on cluster sbcluster (under 'physics')"
	expect_fail out sb -i add budget account=sb-new-b parent=nosuch share=1
	expect_in "$out" "parent 'nosuch': no such account"
	# coordinators: under their account only; plain users: nowhere
	out=$(as sb-dave "$SBUDGET" -i add budget account=sb-new-b parent=physics share=1)
	expect_in "$out" "A = sb-new-b"
	[ "$(shares_of sb-new-b)" = 1 ] || { say "sb-new-b shares '$(shares_of sb-new-b)'"; return 1; }
	expect_fail out as sb-dave "$SBUDGET" -i add budget account=sb-new-c parent=bio share=1
	expect_in "$out" "add budget account=sb-new-c parent=bio refused by slurmdbd: Access/permission denied; nothing was added"
	expect_fail out as sb-alice "$SBUDGET" -i add budget account=sb-new-c parent=phys-a share=1
	expect_in "$out" "Access/permission denied"
	[ -z "$(shares_of sb-new-c)" ] || { say "sb-new-c was added"; return 1; }
	# an account slurmdbd has without an association on this cluster: the
	# association is added, its description and organization are kept
	sacctmgr -i add account sb-new-d description=keepme organization=org-d cluster=sbcluster >/dev/null
	sacctmgr -i delete account name=sb-new-d cluster=sbcluster >/dev/null
	[ "$(sacctmgr -n -P show account sb-new-d format=descr,org)" = "keepme|org-d" ] ||
		{ say "set-up: sb-new-d is $(sacctmgr -n -P show account sb-new-d format=descr,org)"; return 1; }
	out=$(sb -i add budget account=sb-new-d parent=physics share=2)
	expect_in "$out" "A = sb-new-d (account exists in slurmdbd: its description and organization are kept)"
	[ "$(shares_of sb-new-d)" = 2 ] || { say "sb-new-d shares '$(shares_of sb-new-d)'"; return 1; }
	out=$(sacctmgr -n -P show account sb-new-d format=descr,org)
	[ "$out" = "keepme|org-d" ] || { say "sb-new-d's account became '$out'"; return 1; }
	# without -i it asks; anything but y discards
	out=$(echo n | sb add budget account=sb-new-c share=1) && { say "discard exited 0"; return 1; }
	expect_in "$out" "Changes Discarded"
	[ -z "$(shares_of sb-new-c)" ] || { say "discarded add applied"; return 1; }
	sacctmgr -i delete account name=sb-new-a,sb-new-b,sb-new-d >/dev/null
}

# Every bad argument: a clear message, a non-zero exit, nothing changed.
test_sbudget_bad_arguments_change_nothing() {
	local out before=() after=() a
	for a in physics phys-a phys-b bio nobudget; do before+=("$(shares_of "$a")"); done
	local -a cases=(
		"show qos|unknown entity 'qos'"
		"frob budget|unknown command 'frob'"
		"show budget format=Colour|unknown field 'Colour'"
		"--frobnicate show budget|unknown option '--frobnicate'"
		"show budget account=nosuch|unknown account 'nosuch'"
		"show budget account=bio user=sb-alice|no association of user 'sb-alice'"
		"modify budget where account=nosuch set share=3|unknown account 'nosuch'"
		"modify budget where account=root set share=3|account 'root': the root of the tree"
		"modify budget where account=bio set share=abc|share 'abc': not a whole number"
		"modify budget where account=bio set share=-2|share '-2': negative"
		"modify budget where account=bio set share=99999999999|too large"
		"modify budget where account=bio set colour=3|only share=N can be set"
		"modify budget where account=bio|needs 'set share=N'"
		"add budget account=bio share=2|account 'bio' already has a budget"
		"add budget account=sb-x parent=nosuch share=2|parent 'nosuch': no such account"
		"add budget account=sb-x share=2 user=sb-alice|sacctmgr add user"
		"show job 999999|job 999999: no such job"
		"show job abc|job id 'abc': not a number"
		"show job 0|job ids start at 1"
		"show budget window=forever|window 'forever': not a duration"
		"report window=0|must be longer than 0"
		"report step=1:00:00 window=0:30:00|step is longer than the window"
		"report plot=out.png|must end in .svg"
		"show budget end=now+1hour|after now"
		"show budget start=now end=now-1hour|start must be before end"
		"report start=now-1hour end=now window=1|give at most two"
		"show budget start=yesterday|start 'yesterday': not a point in time"
		"show budget end=1700000000|write uts1700000000"
		"show job 1 start=now|does not apply"
		"report window=7-0 step=0:01|into 604800 steps, more than 10080: give step=0:01:00 or longer"
	)
	local c args want
	for c in "${cases[@]}"; do
		args=${c%%|*} want=${c#*|}
		# shellcheck disable=SC2086
		expect_fail out sb -i $args
		expect_in "$out" "$want"
		expect_in "$out" "sbudget: error:"
	done
	for a in physics phys-a phys-b bio nobudget; do after+=("$(shares_of "$a")"); done
	[ "${before[*]}" = "${after[*]}" ] || { say "shares changed: ${before[*]} -> ${after[*]}"; return 1; }
}

# sbudget reads budget.conf as the plugins do (sb_config_file_read): a file with
# a NUL byte, larger than 1 MiB, a directory, a FIFO or a device is not
# read, with the plugins' message, at once; and as slurmctld, sbudget goes
# on with the last valid copy slurmctld keeps (one warning, exit 0).
# Before, sbudget read the text up to the NUL byte, the big file and a
# directory (as empty: the defaults) while slurmctld refused them, and
# waited for ever on a FIFO or /dev/zero.
test_sbudget_reads_budget_conf_as_plugins() {
	local tmp out c want
	tmp=$(mktemp -d)
	cp "$SLURM_CONF" "$tmp/slurm.conf"
	for c in nul big dir fifo zero; do
		rm -rf "$tmp/budget.conf"
		case $c in
		nul) printf 'CalcPeriod=5\n\0LookbackWindow=1\n' >"$tmp/budget.conf"
		     want="budget.conf contains a NUL byte at offset 13: budget.conf is a text file" ;;
		big) head -c 1048577 /dev/zero | tr '\0' '#' >"$tmp/budget.conf"
		     want="budget.conf is 1048577 bytes: budget.conf takes at most 1048576" ;;
		dir) mkdir "$tmp/budget.conf"
		     want="budget.conf is not a regular file" ;;
		fifo) mkfifo "$tmp/budget.conf"
		     want="budget.conf is not a regular file" ;;
		zero) ln -s /dev/zero "$tmp/budget.conf"
		     want="budget.conf is not a regular file" ;;
		esac
		if ! out=$(SLURM_CONF=$tmp/slurm.conf timeout 10 "$SBUDGET" -v show budget 2>&1); then
			say "$c: failed: $out"; rm -rf "$tmp"; return 1
		fi
		expect_in "$out" "sbudget: warning: $tmp/$want" || { rm -rf "$tmp"; return 1; }
		expect_in "$out" "sbudget uses the last valid budget.conf" || { rm -rf "$tmp"; return 1; }
	done
	rm -rf "$tmp"
}

# A bad budget.conf stops neither slurmctld nor sbudget:
# with a key given twice, slurmctld keeps its settings (the last valid
# copy in StateSaveLocation) and sbudget, for root and for a user, warns
# once naming the file, the line and the error, and shows the same figures
# as with the good file.  A user who cannot read that copy gets the
# defaults, said so: here a 7-day window instead of the cluster's 1 day.
test_sbudget_survives_bad_budget_conf() {
	local conf=$SB_CLUSTER_DIR/budget.conf lv=$SB_CLUSTER_DIR/state/budget.conf.last-valid
	local f=Account,User,RawShares,QuotaRaw,DeliveredRaw,OwedRaw
	local good bad err n warn
	# the figures compared below grow while a job runs, and change until
	# slurmdbd has every record of the jobs an earlier test cancelled (a
	# job cancelled while pending may reach it after the queue is empty)
	wait_idle
	wait_for 30 "sbudget's figures to stand still" _sb_figures_still "$f"
	keep_budget_conf
	cleanup_push "chmod 644 '$lv'; rm -f '$WORK/err.$$'"
	good=$(sb -P -n show budget format=$f)
	[ -n "$good" ] || { say "show budget printed nothing"; return 1; }
	n=$(grep -c '' "$conf")
	set_budget_conf "$(cat "$conf")
CalcPeriod=0" || return 1
	warn="sbudget: warning: $conf line $((n + 1)): CalcPeriod='0' gives the key again (first on line $(grep -n '^CalcPeriod=' "$conf" | head -n 1 | cut -d: -f1)): give each key once; sbudget uses the last valid budget.conf, $lv, as slurmctld does until the file is fixed"
	bad=$(sb -P -n show budget format=$f 2>"$WORK/err.$$") || { say "exit $?: $(cat "$WORK/err.$$")"; return 1; }
	err=$(cat "$WORK/err.$$")
	say "$err"
	[ "$err" = "$warn" ] || { say "expected: $warn"; return 1; }
	[ "$bad" = "$good" ] || { say "figures with the good file: $good"; say "with the bad one: $bad"; return 1; }
	# a user, the same
	bad=$(as sb-alice "$SBUDGET" -P -n show budget format=$f 2>"$WORK/err.$$") || { say "sb-alice: exit $?"; return 1; }
	[ "$(cat "$WORK/err.$$")" = "$warn" ] || { say "sb-alice: $(cat "$WORK/err.$$")"; return 1; }
	[ "$bad" = "$good" ] || { say "sb-alice's figures differ: $bad"; return 1; }
	# a user who cannot read the copy: the defaults, said so
	chmod 600 "$lv"
	bad=$(as sb-alice "$SBUDGET" -P -n show budget format=Account,User,QuotaRaw 2>"$WORK/err.$$") || { say "sb-alice: exit $?"; return 1; }
	err=$(cat "$WORK/err.$$")
	rm -f "$WORK/err.$$"
	chmod 644 "$lv"
	say "$err"
	[ "$(grep -c '' <<<"$err")" = 1 ] || { say "more than one line on stderr"; return 1; }
	expect_in "$err" "sbudget: warning: $conf line $((n + 1)): CalcPeriod='0' gives the key again"
	expect_in "$err" "sbudget cannot use the last valid budget.conf slurmctld keeps (cannot read $lv: Permission denied), so it uses the defaults: its figures may differ from slurmctld's until the file is fixed"
	# QuotaRaw covers the window: the defaults' 7 days, not the file's 1
	[ "$(awk -F'|' '$1 == "bio" && $2 == "" { print $3 }' <<<"$bad")" = \
		"$(( $(awk -F'|' '$1 == "bio" && $2 == "" { print $4 }' <<<"$good") * 7 ))" ] ||
		{ say "bio's QuotaRaw with the defaults: $(grep '^bio||' <<<"$bad"); with the file: $(grep '^bio||' <<<"$good")"; return 1; }
	# slurmctld went on too: it keeps its settings, logged
	ctld_alive
}

# _sb_figures_still FORMAT - show budget prints the same twice, 2 s apart.
_sb_figures_still() {
	local a b
	a=$(sb -P -n show budget format="$1")
	sleep 2
	b=$(sb -P -n show budget format="$1")
	[ -n "$a" ] || { echo "show budget printed nothing"; return 1; }
	[ "$a" = "$b" ] || { diff <(echo "$a") <(echo "$b") | head -n 4; return 1; }
}

# Output that cannot be written (a full disk) is an error: sbudget exited 0
# having written nothing.
test_sbudget_write_error_is_an_error() {
	local out args
	[ -w /dev/full ] || { say "no /dev/full"; return 1; }
	for args in "show budget" "--json show budget" "-P report" "metrics"; do
		# shellcheck disable=SC2086
		if out=$(sb $args 2>&1 >/dev/full); then
			say "$args >/dev/full: exit 0"; return 1
		fi
		expect_in "$out" "sbudget: error: standard output: write error" || return 1
	done
}

# show job: the contract, the protected time left, the priority in parts
# (which add up, and agree with sprio for a pending job), what it waits for.
test_sbudget_show_job_running_and_pending() {
	local run pend out prio tier level team resumed sp sp_prio sp_tier sp_fs sp_site i
	run=$(submit sb-alice --min-runtime=2:00 --resumable -N 4 --gpus-per-node=8 --wrap 'sleep 60')
	wait_state "$run" RUNNING 30
	pend=$(submit sb-bob --min-runtime=0:30 -G 8 --nice=10 --wrap 'sleep 1')
	# the scheduler has tried it (what it waits for), with a priority
	# from this cycle
	wait_eq 30 "job $pend to wait for Resources" Resources job_field "$pend" Reason
	wait_recalc_after "$(date +%s)"
	out=$(sb show job "$run")
	say "$out"
	expect_in "$out" "MinRuntime: 0:02:00"
	expect_in "$out" "Resumable: yes"
	expect_in "$out" "Allocated: yes"
	expect_in "$out" "GPUs: 32"
	local left
	left=$(sb -P -n show job "$run" format=ProtectedLeft)
	[[ "$left" =~ ^0:0[01]:[0-5][0-9]$ ]] || { say "ProtectedLeft '$left'"; scancel "$run" "$pend"; return 1; }
	out=$(sb show job "$pend")
	say "$out"
	expect_in "$out" "State: PENDING"
	expect_in "$out" "WaitsFor: Resources"
	expect_in "$out" "needs 8 gres/gpu, 0 idle, 0 preemptable by it now"
	# the core's verdict (sb_preempt_decide) on the one running job
	expect_in "$out" "MayPreempt: job $run (phys-a, 32 gres/gpu): no: inside its minimum runtime"
	# alice's job is protected for 2 minutes: if bob's job outranks it, the
	# end of that protected slice is what it waits for
	if [ "$(prio "$pend")" -gt "$(job_field "$run" Priority)" ]; then
		expect_in "$out" "next protected slice of a lower-priority job ends"
		expect_in "$out" "(job $run)"
	fi
	IFS='|' read -r prio tier level team resumed < <(sb -P -n show job "$pend" \
		format=Priority,PrioTier,PrioLevel,PrioInTeam,PrioResumed)
	sp=$(sprio -h -j "$pend" -o '%Y %B %F %S')
	scancel "$run" "$pend"
	say "priority $prio = $tier + $level + $team + $resumed; sprio: $sp"
	[[ "$tier" == allocated* ]]
	[ "${team%% *}" = 502 ]	# 512 - nice 10
	[ $(( (1 << 31) + (${level%% *} << 11) + (${team%% *} << 1) + ${resumed%% *} )) -eq "$prio" ]
	# sprio: PRIORITY, ASSOC (tier), FAIRSHARE (level << 11), SITE (in-team << 1)
	read -r sp_prio sp_tier sp_fs sp_site <<<"$sp"
	[ "$sp_prio" -eq "$prio" ] && [ "$sp_fs" -eq $(( ${level%% *} << 11 )) ] &&
		[ "$sp_site" -eq $(( ${team%% *} << 1 )) ] && [ "$sp_tier" -eq $((1 << 31)) ]
}

# WaitsFor counts as idle only GPUs on nodes that take jobs: a drained
# node's GPUs are said apart, not offered as free.
test_sbudget_waits_for_without_drained_gpus() {
	local a b pend out
	clear_cluster
	cleanup_push 'scontrol update nodename=gpu[03-04] state=resume 2>/dev/null || true
		scancel -u sb-alice 2>/dev/null || true; scancel -u sb-bob 2>/dev/null || true'
	scontrol update nodename=gpu[03-04] state=drain reason="sbudget test: drained"
	a=$(submit sb-alice --min-runtime=2:00 -G 8 --wrap 'sleep 120')
	b=$(submit sb-alice --min-runtime=2:00 -G 4 --wrap 'sleep 120')
	wait_state "$a" RUNNING 30
	wait_state "$b" RUNNING 30
	pend=$(submit sb-bob --min-runtime=0:30 -G 8 --wrap 'sleep 1')
	wait_eq 30 "job $pend to wait for Resources" Resources job_field "$pend" Reason
	out=$(sb -P -n show job "$pend" format=WaitsFor)
	say "$out"
	expect_in "$out" "needs 8 gres/gpu, 4 idle, 0 preemptable by it now (16 more on nodes down or drained)"
	# back in service: the same GPUs are idle (or the job starts on them)
	scontrol update nodename=gpu[03-04] state=resume
	wait_for 30 "WaitsFor without drained GPUs, or job $pend started" _undrained "$pend"
}
_undrained() {
	local out
	out=$(sb -P -n show job "$1" format=State,WaitsFor)
	echo "$out"
	[[ "$out" != PENDING* ]] || [[ "$out" == *", 20 idle,"* && "$out" != *"down or drained"* ]]
}

# The contract as the job runs (sb_contract_of_job): an administrator who
# clears a job's requeue flag makes it not resumable whatever its tag says.
# (A job without a valid tag cannot be made here: job_submit/budget keeps
# the tag at the start of AdminComment; the core's contract-test covers
# that case: unallocated.)
test_sbudget_show_job_contract_as_run() {
	local id out
	id=$(submit sb-alice --min-runtime=1:00 --resumable -G 1 --wrap 'sleep 60')
	cleanup_push "scancel $id 2>/dev/null"
	wait_state "$id" RUNNING 30
	out=$(sb show job "$id")
	expect_in "$out" "Resumable: yes"
	scontrol update jobid="$id" Requeue=0
	out=$(sb show job "$id")
	say "$(grep -E 'Contract|Resumable|Allocated' <<<"$out")"
	expect_in "$out" "Resumable: no (the tag says yes, but the job cannot be requeued"
	expect_in "$out" "Allocated: yes"
	expect_in "$out" "MinRuntime: 0:01:00"
}

# show job ARRAYID_TASKID: the record that holds the task,
# as scontrol picks it: while held, the array's one record of pending
# tasks; once released, the task's own job; and either way which task.
test_sbudget_show_job_array_task() {
	local id own out
	id=$(submit sb-alice --array=0-3 --hold --min-runtime=0:05 -G 1 --wrap 'sleep 30')
	cleanup_push "scancel $id 2>/dev/null"
	out=$(sb show job "${id}_2")
	say "$(grep -E 'JobId|ArrayTask|User|State' <<<"$out")"
	grep -Eq "^ *JobId: $id\$" <<<"$out" || { say "not job $id"; return 1; }
	expect_in "$out" "ArrayTask: ${id}_2 (pending in one record with the array's tasks 0-3, job $id, until it starts)"
	expect_in "$out" "User: sb-alice"
	expect_in "$out" "State: PENDING"
	# the array's own id: its record of pending tasks
	out=$(sb -P -n show job "$id" format=JobId,ArrayTask)
	[ "$out" = "$id|${id}_[0-3] (pending tasks, one record until each starts)" ] ||
		{ say "show job $id: $out"; return 1; }
	# no such task; not an array
	expect_fail out sb show job "${id}_7"
	expect_in "$out" "sbudget: error: job ${id}_7: array job $id has no task 7 in slurmctld"
	# a task released is split off with its own job id
	scontrol release "${id}_1"
	wait_for 30 "task ${id}_1 to get its own job id" \
		bash -c "[ \"\$(squeue -h -r -j ${id}_1 -o %A)\" != $id ]" || return 1
	own=$(squeue -h -r -j "${id}_1" -o %A)
	out=$(sb -P -n show job "${id}_1" format=JobId,ArrayTask,User)
	[ "$out" = "$own|${id}_1|sb-alice" ] || { say "show job ${id}_1: $out (task's job $own)"; return 1; }
	out=$(sb -P -n show job "$own" format=JobId,ArrayTask)
	[ "$out" = "$own|${id}_1" ] || { say "show job $own: $out"; return 1; }
	# the held ones are still one record, without task 1
	out=$(sb -P -n show job "${id}_3" format=JobId,ArrayTask)
	[ "$out" = "$id|${id}_3 (pending in one record with the array's tasks 0,2-3, job $id, until it starts)" ] ||
		{ say "show job ${id}_3: $out"; return 1; }
	expect_fail out sb show job "${own}_1"
	expect_in "$out" "job ${own}_1: job $own is array task ${id}_1, not an array; give 'sbudget show job $own'"
}

# A requeued job names its preemptor and why.
test_sbudget_show_job_names_preemptor() {
	local victim pre out by res i
	[ -f "$SB_REPO/plugins/preempt_budget/preempt_budget.c" ] || { say "no preempt/budget"; return 1; }
	victim=$(submit sb-carol --min-runtime=0 --resumable -N 4 --gpus-per-node=8 --wrap 'sleep 120')
	wait_state "$victim" RUNNING 30
	pre=$(submit sb-alice --min-runtime=0:05 -G 8 --wrap 'sleep 5')
	for ((i = 0; i < 120; i++)); do
		# requeued, and re-prioritised by priority/budget (resumed bit)
		IFS='|' read -r by res < <(sb -P -n show job "$victim" format=PreemptedBy,PrioResumed)
		[ -n "$by" ] && [ "$(job_field "$victim" Restarts)" -ge 1 ] &&
			[[ "$res" == 1* ]] && break
		sleep 0.5
	done
	out=$(sb show job "$victim")
	say "$out"
	scancel "$victim" "$pre" || true
	[ "$by" = "$pre" ] || { say "PreemptedBy '$by', expected $pre"; return 1; }
	expect_in "$out" "Restarts: 1"
	expect_in "$out" "PrioResumed: 1 (requeued)"
	expect_in "$out" "PreemptReason: job $pre (account phys-a) had priority"
	expect_in "$out" "unallocated jobs are preemptable at any time"
	# the same in JSON
	out=$(sb --json show job "$victim" format=JobId,PreemptedBy)
	python3 -c 'import json,sys; d=json.loads(sys.argv[1])["jobs"][0]; assert d["PreemptedBy"]==int(sys.argv[2]), d' "$out" "$pre"
}
