# memtrend books on real processes: two growers of known size (64 and
# 96 MiB) are listed with footprints within 5 % of that; --cap binds by
# PID, by name (comm) and to every given process; the sums add up; a
# plateau from a recording (--from) becomes a cap, also for a restarted
# process of the same name; bad input exits 2.
. "$E2E_LIB"
TAG="books-e2e-$$"
bg "$GROWER" --base 64 --ready "$T/ready1" --exit-after 120 --tag "$TAG"
G1=$LAST_BG
bg "$GROWER" --base 96 --ready "$T/ready2" --exit-after 120 --tag "$TAG"
G2=$LAST_BG
wait_for "$T/ready1" 10
wait_for "$T/ready2" 10
MIB=1048576

# Both listed, largest first, footprints within 5 % of their size.
"$MEMTREND" books "$G1" "$G2" --json > "$T/b.json" || fail "books exited $?"
n=$(jget "$T/b.json" 'len(d["processes"])')
[ "$n" = 2 ] || fail "$n processes listed, expected 2"
first=$(jget "$T/b.json" 'd["processes"][0]["pid"]')
[ "$first" = "$G2" ] || fail "largest first: got pid $first, expected $G2"
f1=$(jget "$T/b.json" "[p for p in d['processes'] if p['pid']==$G1][0]['footprint_bytes']")
f2=$(jget "$T/b.json" "[p for p in d['processes'] if p['pid']==$G2][0]['footprint_bytes']")
within "$f1" $((64 * MIB * 95 / 100)) $((64 * MIB * 105 / 100)) || fail "footprint of the 64 MiB grower: $f1"
within "$f2" $((96 * MIB * 95 / 100)) $((96 * MIB * 105 / 100)) || fail "footprint of the 96 MiB grower: $f2"
# Without caps each counts with its footprint; the sums add up.
src=$(jget "$T/b.json" 'sorted(set(p["cap_source"] for p in d["processes"]))')
[ "$src" = "['footprint']" ] || fail "cap sources without --cap: $src"
"$PY" - "$T/b.json" <<'PYEOF' || fail "sums or fields"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["processes"]
s = d["sums"]
assert s["processes"] == 2, s
assert s["footprint_bytes"] == sum(x["footprint_bytes"] for x in p), s
assert s["books_bytes"] == sum(x["books_bytes"] for x in p), s
assert d["mem_total_bytes"] > 0 and d["mem_available_bytes"] > 0
assert abs(s["books_ratio"] - s["books_bytes"] / d["mem_total_bytes"]) < 1e-6
for k in ("pid", "name", "cmdline", "footprint_bytes", "swap_bytes",
          "rss_bytes", "cap_bytes", "cap_source", "cap_from", "books_bytes",
          "over_cap"):
    assert all(k in x for x in p), k
for k in ("swap_total_bytes", "swap_used_bytes", "swap_used_share",
          "mem_available_share", "listed", "skipped"):
    assert k in d, k
assert all(x["name"] == "grower" for x in p)
assert d["all_processes"] is False and d["listed"] == 2
PYEOF
ok "two growers listed at $f1 and $f2 bytes"

# --cap by PID beats --cap by name; the name binds the other one.
"$MEMTREND" books "$G1" "$G2" --cap "$G1=1GiB" --cap grower=2GiB --json > "$T/c.json" \
	|| fail "books --cap exited $?"
c1=$(jget "$T/c.json" "[(p['cap_bytes'],p['cap_source']) for p in d['processes'] if p['pid']==$G1][0]")
c2=$(jget "$T/c.json" "[(p['cap_bytes'],p['cap_source'],p['cap_from']) for p in d['processes'] if p['pid']==$G2][0]")
[ "$c1" = "(1073741824, 'pid')" ] || fail "cap of $G1: $c1"
[ "$c2" = "(2147483648, 'name', 'grower')" ] || fail "cap of $G2: $c2"
books=$(jget "$T/c.json" 'd["sums"]["books_bytes"]')
[ "$books" = $((3 * 1024 * MIB)) ] || fail "books sum $books, expected 3 GiB"
ok "caps bound by PID and by name: 3 GiB on the books"

# A bare --cap applies to every given process; one above its cap counts
# with its footprint.
"$MEMTREND" books "$G1" "$G2" --cap 80MiB --json > "$T/d.json" || fail "bare --cap exited $?"
o1=$(jget "$T/d.json" "[(p['books_bytes'],p['over_cap'],p['cap_source']) for p in d['processes'] if p['pid']==$G1][0]")
o2=$(jget "$T/d.json" "[(p['books_bytes']==p['footprint_bytes'],p['over_cap']) for p in d['processes'] if p['pid']==$G2][0]")
[ "$o1" = "($((80 * MIB)), False, 'all')" ] || fail "64 MiB grower under an 80 MiB cap: $o1"
[ "$o2" = "(True, True)" ] || fail "96 MiB grower over an 80 MiB cap: $o2"
ok "bare --cap binds to both; over-cap counted at its footprint"

# The text: both PIDs, the books line against MemTotal, swap beside
# MemAvailable.
"$MEMTREND" books "$G1" "$G2" --cap grower=60.8GiB > "$T/b.txt" || fail "text exited $?"
grep -q "^  $G1 " "$T/b.txt" && grep -q "^  $G2 " "$T/b.txt" || { cat "$T/b.txt"; fail "pids in text"; }
grep -Eq "caps on the books: 121\.6 GiB of [0-9.]+ [GT]iB, [0-9.]+x" "$T/b.txt" \
	|| { cat "$T/b.txt"; fail "books line"; }
grep -Eq "^  (swap [0-9<]+ % used .* while [0-9<]+ % is free|no swap; [0-9<]+ % is free)" "$T/b.txt" \
	|| { cat "$T/b.txt"; fail "swap line"; }
grep -q "sums over 2 processes" "$T/b.txt" || { cat "$T/b.txt"; fail "sums line"; }
ok "text: $(grep 'caps on the books' "$T/b.txt" | sed 's/^ *//')"

# --name finds both (not memtrend itself, whose command line holds the
# pattern too).
"$MEMTREND" books --name "$TAG" --json > "$T/n.json" || fail "--name exited $?"
pids=$(jget "$T/n.json" 'sorted(p["pid"] for p in d["processes"])')
[ "$pids" = "$(printf '[%s, %s]' $(printf '%s\n' "$G1" "$G2" | sort -n))" ] || fail "--name found $pids"
# --top 1 lists the largest, the sums still count both.
"$MEMTREND" books --name "$TAG" --top 1 --json > "$T/t.json" || fail "--top exited $?"
[ "$(jget "$T/t.json" 'len(d["processes"])')" = 1 ] || fail "--top 1 listed more"
[ "$(jget "$T/t.json" 'd["sums"]["processes"]')" = 2 ] || fail "--top 1: sums not over both"
# Every readable process by default: ours among them.
"$MEMTREND" books --all --json > "$T/a.json" || fail "books (all) exited $?"
jget "$T/a.json" "[p['pid'] for p in d['processes']]" | grep -q "\b$G2\b" || fail "all: $G2 missing"
[ "$(jget "$T/a.json" 'd["all_processes"]')" = True ] || fail "all_processes"
ok "--name, --top and the default (all processes)"

# A plateau from a recording is the cap of the same incarnation, and of a
# restarted process of the same name.
# Steps of 12 KiB: the readings then resolve 12 KiB, and 4 s at that
# resolution rule out the slope of concern (12 KiB / 4 s = 10.5 MiB/h,
# below the 30-day slope to MemTotal on any machine of 8 GiB or more).
# Steps of 1 MiB could hide 780 MiB/h in 4 s: no plateau could be told.
bg "$GROWER" --base 8 --grow 12 --every 100 --steps 20 --ready "$T/ready3" --exit-after 60
G3=$LAST_BG
wait_for "$T/ready3" 10
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G3" --interval 0.1s --duration 6s \
	|| fail "record exited $?"
"$MEMTREND" books "$G3" --from "$T/run.db" --json > "$T/p.json" || fail "--from exited $?"
ps=$(jget "$T/p.json" 'd["processes"][0]["cap_source"]')
[ "$ps" = plateau ] || { "$MEMTREND" report "$T/run.db"; fail "cap source $ps, expected plateau"; }
cap=$(jget "$T/p.json" 'd["processes"][0]["cap_bytes"]')
fp=$(jget "$T/p.json" 'd["processes"][0]["footprint_bytes"]')
within "$cap" $((fp * 95 / 100)) $((fp * 105 / 100)) || fail "plateau cap $cap vs footprint $fp"
# --cap still wins over the plateau.
"$MEMTREND" books "$G3" --from "$T/run.db" --cap "$G3=1GiB" --json > "$T/q.json" || fail "exit $?"
[ "$(jget "$T/q.json" 'd["processes"][0]["cap_source"]')" = pid ] || fail "--cap did not win"
# By name: the 64 MiB grower is a "grower" too (another incarnation).
"$MEMTREND" books "$G1" --from "$T/run.db" --json > "$T/r.json" || fail "exit $?"
[ "$(jget "$T/r.json" 'd["processes"][0]["cap_source"]')" = plateau ] || fail "plateau not bound by name"
ok "plateau from --from: cap $cap for footprint $fp, bound by PID and by name"

# Bad input: exit 2 with a clear message.
"$MEMTREND" books 2147483646 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "unknown pid: exit $rc"
grep -q "no process with PID 2147483646" "$T/err" || fail "message: $(cat "$T/err")"
"$MEMTREND" books nginx 2> "$T/err"; [ $? = 2 ] || fail "a name as PID: not exit 2"
grep -q -- "--name" "$T/err" || fail "name-as-PID message: $(cat "$T/err")"
"$MEMTREND" books --name "no-such-process-$$-xyz" 2> "$T/err"; [ $? = 2 ] || fail "--name nothing: not exit 2"
"$MEMTREND" books --cap 60GiB 2> "$T/err"; [ $? = 2 ] || fail "bare --cap without processes: not exit 2"
"$MEMTREND" books "$G1" --cap "$G1=lots" 2> "$T/err"; [ $? = 2 ] || fail "bad cap size: not exit 2"
grep -q "cannot read 'lots' as a size" "$T/err" || fail "cap message: $(cat "$T/err")"
"$MEMTREND" books "$G1" --from "$T/nope.db" 2> /dev/null; [ $? = 2 ] || fail "missing --from: not exit 2"
"$MEMTREND" books --top 0 2> /dev/null; [ $? = 2 ] || fail "--top 0: not exit 2"
"$MEMTREND" books --help | grep -q "usage: memtrend books" || fail "--help"
"$MEMTREND" --help | grep -q "books" || fail "books missing from memtrend --help"
ok "bad input exits 2"
