# record --listen serves groups and trees (issue 28, items 7-9), on
# loopback with real processes:
# - --all --group-by name: a kind="group" series per group, without a pid,
#   whose footprint and RSS are the sums of its members' in the same
#   scrape;
# - --listen-processes long=3s: the members alive for 3 s are served one
#   by one; a process that lived 2 s, recorded (it is in the file) and
#   counted in its group while it lived, never has a series of its own;
# - --listen-processes none: no series with a pid at all, the group still;
# - --children: a kind="tree" series whose footprint is the tree's sum,
#   equal to what the report says of the tree ("... (with children)").
# The helpers touch nothing after their setup: sums are compared to the
# byte. Each wait is for a condition, bounded (10 s).
. "$E2E_LIB"
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
A=mtla$$
ln -s "$GROWER" "$T/$A"
# As root (CI) the group's processes run as nobody and --all records
# --user nobody: a few targets, whatever else runs as root.
as=() user=$(id -u)
if [ "$user" = 0 ] && command -v setpriv > /dev/null; then
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	user=65534
	chmod 777 "$T"
fi
bg "${as[@]}" "$T/$A" --base 4 --ready "$T/a1" --exit-after 40
A1=$LAST_BG
bg "${as[@]}" "$T/$A" --base 6 --ready "$T/a2" --exit-after 40
A2=$LAST_BG
wait_for "$T/a1" 10; wait_for "$T/a2" 10
common=(--all --user "$user" --group-by name -i 200ms --rescan 300ms
	--commit-interval 200ms -d 40s --listen 127.0.0.1:0)
bg "$MEMTREND" record -o "$T/long.db" "${common[@]}" \
	--listen-processes long=3s 2> "$T/long.err"
RL=$LAST_BG
bg "$MEMTREND" record -o "$T/none.db" "${common[@]}" \
	--listen-processes none 2> "$T/none.err"
RN=$LAST_BG
# The tree: a command with two children (each holds its own copy of the
# 3 MiB touched before the fork: copy-on-write pages count in each).
bg "$MEMTREND" record -o "$T/tree.db" -i 200ms --commit-interval 200ms \
	--children --listen 127.0.0.1:0 -- \
	"$GROWER" --base 3 --children 2 --ready "$T/t1" --exit-after 40 2> "$T/tree.err"
RT=$LAST_BG
UL=$(listen_url "$T/long.err") || exit 1
UN=$(listen_url "$T/none.err") || exit 1
UT=$(listen_url "$T/tree.err") || exit 1
# A short-lived member of the group, started once the recorders listen.
bg "${as[@]}" "$T/$A" --base 1 --exit-after 2
S=$LAST_BG

# value FILE SELECTOR: the value of the one sample whose name and labels
# contain every comma-separated part of SELECTOR; empty when none.
value() {
	"$PY" - "$1" "$2" <<'PY'
import sys
parts = sys.argv[2].split(",")
for line in open(sys.argv[1]):
    if line.startswith("#"):
        continue
    name, _, v = line.rpartition(" ")
    if all(p in name for p in parts):
        print(v.strip()); break
PY
}
fp() { value "$1" "memtrend_footprint_bytes{,$2,component=\"total\""; }
rss() { value "$1" "memtrend_resident_bytes{,$2,component=\"total\""; }
G="target=\"name=$A\",kind=\"group\""

# long: scrape every 0.1 s until the short-lived process has ended and the
# recorder has seen it end, and the group is the sum of the two others.
: > "$T/all-long.txt"
i=0 done=""
while :; do
	curl -sf "$UL" > "$T/m.txt" || fail "cannot scrape $UL"
	cat "$T/m.txt" >> "$T/all-long.txt"
	gone=$(sqlite3 "file:$T/long.db?mode=ro" "SELECT count(*) FROM incarnation WHERE pid = $S AND end_reason IS NOT NULL" 2>/dev/null)
	g=$(fp "$T/m.txt" "$G") a1=$(fp "$T/m.txt" "pid=\"$A1\"") a2=$(fp "$T/m.txt" "pid=\"$A2\"")
	if [ "$gone" = 1 ] && [ -n "$g" ] && [ -n "$a1" ] && [ -n "$a2" ] &&
	   [ "$g" = $((a1 + a2)) ]; then
		done=1; break
	fi
	i=$((i + 1)); [ $i -gt 100 ] && break
	sleep 0.1
done
[ -n "$done" ] || fail "long: after 10 s: short-lived pid $S ended in the file: '$gone'; group '$g', members '$a1' + '$a2'; $(grep "$A" "$T/m.txt" | head -5)"
grep -q "pid=\"$A1\"" "$T/m.txt" || fail "long: $A1 not served"
grep "$G" "$T/m.txt" | grep -q 'pid=' && fail "long: the group has a pid label"
gr=$(rss "$T/m.txt" "$G") r1=$(rss "$T/m.txt" "pid=\"$A1\"") r2=$(rss "$T/m.txt" "pid=\"$A2\"")
[ -n "$gr" ] && [ "$gr" = $((r1 + r2)) ] || fail "long: group RSS '$gr' is not $r1 + $r2"
# The short-lived one was recorded and in its group while alive ...
n=$(sql "$T/long.db" "SELECT count(*) FROM incarnation i JOIN target t ON t.id = i.target_id WHERE i.pid = $S AND t.kind = 'process'")
[ "$n" = 1 ] || fail "long: the short-lived pid $S was not recorded ($n)"
# ... but never had a series of its own.
scrapes=$(grep -c '^# HELP memtrend_footprint_bytes' "$T/all-long.txt")
! grep -q "pid=\"$S\"" "$T/all-long.txt" || fail "long: short-lived pid $S served"
# Exhaustion lines, where any: each names its pool and a time ahead. With
# processes left out, rows were packed but their pools copied by the
# unpacked index: pool="" and 0 s on every row after a skipped one.
bad=$(grep '^memtrend_exhaustion_seconds' "$T/all-long.txt" | grep -c -e 'pool=""' -e ' 0$')
[ "$bad" = 0 ] || fail "long: $bad exhaustion lines without a pool or at 0 s: $(grep '^memtrend_exhaustion_seconds' "$T/all-long.txt" | head -3)"
ok "long=3s: group $g = $a1 + $a2 (RSS $gr), pid $S (2 s) in none of $scrapes scrapes"

# none: the group, and no series with a pid.
i=0
until curl -sf "$UN" > "$T/n.txt" && [ "$(fp "$T/n.txt" "$G")" = $((a1 + a2)) ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "none: group '$(fp "$T/n.txt" "$G")', want $((a1 + a2))"
	sleep 0.1
done
! grep -q 'pid="' "$T/n.txt" || fail "none: per-process series: $(grep -m3 'pid="' "$T/n.txt")"
grep -q "kind=\"group\"" "$T/n.txt" || fail "none: no group"
ok "none: group $(fp "$T/n.txt" "$G"), no series with a pid ($(grep -c '^memtrend' "$T/n.txt") samples)"

# The tree: served with its root's pid once both children are in it (its sum
# then over 2.5 times the parent's: each child holds the parent's 3 MiB,
# a few pages less), then equal to the report's.
wait_for "$T/t1" 10
i=0
while :; do
	curl -sf "$UT" > "$T/t.txt" || fail "cannot scrape $UT"
	tr=$(fp "$T/t.txt" 'kind="tree"') par=$(fp "$T/t.txt" 'kind="command"')
	[ -n "$tr" ] && [ -n "$par" ] && [ $((2 * tr)) -ge $((5 * par)) ] && break
	i=$((i + 1)); [ $i -gt 100 ] && fail "tree: '$tr' for a parent of '$par': $(grep footprint "$T/t.txt")"
	sleep 0.1
done
root=$(sql "$T/tree.db" "SELECT pid FROM incarnation i JOIN target t ON t.id = i.target_id WHERE t.kind = 'command'")
[ -n "$(fp "$T/t.txt" "kind=\"tree\",pid=\"$root\"")" ] || fail "tree: not with its root's pid $root"
kill -INT $RT
wait $RT; rc=$?
[ $rc = 0 ] || [ $rc = 130 ] || fail "record --children exited $rc: $(cat "$T/tree.err")"
"$MEMTREND" report --json "$T/tree.db" > "$T/tree.json" || fail "report of the tree"
rep=$(jget "$T/tree.json" '[t["footprint"]["last_bytes"] for t in d["targets"] if t["name"].endswith("(with children)")][0]')
[ "$rep" = "$tr" ] || fail "tree: /metrics $tr, the report $rep"
ok "tree: /metrics $tr = the report's $rep (the parent alone: $par)"
kill -INT $RL $RN
wait $RL; wait $RN

# Bad values and combinations: exit 2, one line, no recording.
bad() { # WHAT ARGS...
	local what=$1; shift
	"$MEMTREND" record -q -o "$T/bad.db" -d 1s "$@" 2> "$T/bad.err"; local rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc: $(cat "$T/bad.err")"
	[ "$(wc -l < "$T/bad.err")" = 1 ] || fail "$what: $(cat "$T/bad.err")"
	[ ! -e "$T/bad.db" ] || fail "$what: a recording was made"
}
bad "an unknown value" --all --listen 127.0.0.1:0 --listen-processes some
bad "a bad duration" --all --listen 127.0.0.1:0 --listen-processes long=soon
bad "a zero duration" --all --listen 127.0.0.1:0 --listen-processes long=0
grep -q "must be above 0" "$T/bad.err" || fail "long=0: $(cat "$T/bad.err")"
bad "without --all" -p $$ --listen 127.0.0.1:0 --listen-processes all
bad "without --listen" --all --listen-processes all
bad "none without --group-by" --all --listen 127.0.0.1:0 --listen-processes none
ok "--listen-processes: bad values and combinations exit 2"
