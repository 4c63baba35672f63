# A stepped wall clock (NTP, a hand that sets it wrong and then right),
# through the test clock seam ($MEMTREND_TEST_WALL_SHIFT: seconds added to
# the wall clock, read at every call): an hour back, back to right, an hour
# forward, back to right again, while `record` samples every 100 ms.
# Stamps are the wall clock at the start plus the elapsed time
# (src/record/stamp_clock.c): strictly ordered, every interval right (no
# jump at all: no step is followed), the last stamp on the real wall clock
# (before issue 31 a step forward was followed and the step back that
# undid it was not: the rest stamped an hour ahead), nothing lost (also
# with --retain 1h, whose cut follows the stamps: cut from the wall clock,
# the hour forward emptied the window), each step noted once, and the
# report reads it.
. "$E2E_LIB"
bg "$GROWER" --base 4 --grow 0 --ready "$T/ready" --exit-after 60
G=$LAST_BG
wait_for "$T/ready" 10
echo 0 > "$T/shift"
t0=$(date +%s.%N)
MEMTREND_TEST_WALL_SHIFT="$T/shift" bg "$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 100ms --retain 1h
REC=$LAST_BG
# Each step is held until the recorder has noted it (a loaded machine may
# not run a tick for a while), so each is seen and none is skipped.
notes() { sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%wall clock was stepped%'" 2>/dev/null || echo 0; }
wait_notes() {
	local i
	for i in $(seq 200); do
		[ "$(notes)" -ge "$1" ] && return 0
		sleep 0.1
	done
	fail "step $1 was not noted"
}
sleep 1
n=0
for shift in -3600 0 3600 0; do
	echo "$shift" > "$T/shift.tmp" && mv "$T/shift.tmp" "$T/shift"
	n=$((n + 1))
	wait_notes "$n"
	sleep 0.5
done
kill -TERM "$REC"; wait "$REC" || fail "record exit $?"
now=$(date +%s.%N)
# How long it really ran (a loaded machine stretches the sleeps above).
elapsed=$("$PY" -c "import sys,time; print(time.time() - float(sys.argv[1]))" "$t0")
"$PY" - "$T/run.db" "$elapsed" "$now" <<'PYEOF' || fail "stamps"
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
# no step is followed: no jump (a tick late by a second on a loaded
# machine would be one; an hour's would be 3600)
assert not [x for x in big if x > 60], "jumps: %s" % big
# the wall clock is right again at the end: so is the last stamp
ahead = t[-1] - float(sys.argv[3])
assert -5 < ahead <= 0.5, "the last stamp is %.1f s off the wall clock" % ahead
# Nothing lost: about one sample per 100 ms of the time it ran (the
# start-up takes some of it).
ran = float(sys.argv[2])
assert 0.7 * ran / 0.1 <= n <= ran / 0.1 + 2, \
    "%d samples in %.2f s at 100 ms" % (n, ran)
print("samples %d, median interval %.3f s, jumps %s" % (n, med, big))
PYEOF
[ "$(sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%stepped back%'")" = 2 ] || fail "the steps back were not noted once each"
[ "$(sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%stepped forward%'")" = 2 ] || fail "the steps forward were not noted once each"
[ "$(sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%agrees with the sample times again%'")" = 2 ] || fail "the returns were not said"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exit $?"
ok "a wall clock stepped back, right, forward, right: stamps ordered, no jump, right at the end, each step noted"
