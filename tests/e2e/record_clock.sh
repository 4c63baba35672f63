# A stepped wall clock (NTP, or a laptop that resumed from suspend), through
# the test clock seam ($MEMTREND_TEST_WALL_SHIFT: seconds added to the wall
# clock, read at every call): an hour back, then two hours forward, while
# `record` samples every 100 ms. Sample times must stay strictly ordered,
# the intervals right (0.1 s, except the one forward jump), nothing lost,
# the step back noted once, and the report must read it.
. "$E2E_LIB"
bg "$GROWER" --base 4 --grow 0 --ready "$T/ready" --exit-after 60
G=$LAST_BG
wait_for "$T/ready" 10
echo 0 > "$T/shift"
t0=$(date +%s.%N)
MEMTREND_TEST_WALL_SHIFT="$T/shift" bg "$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 100ms
REC=$LAST_BG
sleep 1.5
echo -3600 > "$T/shift.tmp" && mv "$T/shift.tmp" "$T/shift"
sleep 1.5
echo 3600 > "$T/shift.tmp" && mv "$T/shift.tmp" "$T/shift"
sleep 1.5
kill -TERM "$REC"; wait "$REC" || fail "record exit $?"
# How long it really ran (a loaded machine stretches the sleeps above).
elapsed=$("$PY" -c "import sys,time; print(time.time() - float(sys.argv[1]))" "$t0")
"$PY" - "$T/run.db" "$elapsed" <<'PYEOF' || fail "stamps"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
t = [r[0] for r in db.execute("SELECT t FROM sample_expanded ORDER BY rowid, t")]
n = len(t)
back = [b - a for a, b in zip(t, t[1:]) if b <= a]
assert not back, "stamps went backwards or repeated: %s" % back[:5]
d = sorted(b - a for a, b in zip(t, t[1:]))
med = d[len(d) // 2]
assert abs(med - 0.1) < 0.01, "median interval %.4f" % med
big = [x for x in d if x > 1]
# the step back is not followed: the one jump forward is +1 h minus
# nothing (the +3600 brings the wall clock back to where the stamps are)
assert len(big) <= 1, "jumps: %s" % big
# Nothing lost: about one sample per 100 ms of the time it ran (the
# start-up takes some of it).
ran = float(sys.argv[2])
assert 0.7 * ran / 0.1 <= n <= ran / 0.1 + 2, \
    "%d samples in %.2f s at 100 ms" % (n, ran)
print("samples %d, median interval %.3f s, jumps %s" % (n, med, big))
PYEOF
[ "$(sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%stepped back%'")" = 1 ] || fail "the step back was not noted once"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exit $?"
ok "a wall clock stepped back 1 h and forward 1 h: stamps ordered, intervals right, nothing lost, noted once"
