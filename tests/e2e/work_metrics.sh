# --work URL#METRIC against a real HTTP server (tests/helpers/
# metrics_server.py) that misbehaves on cue: good scrapes, a counter
# reset, HTTP 500, a hang past the timeout, garbage, OpenMetrics format.
# Memory sampling must go on throughout; each failure is a gap with one
# warning, each recovery one more; the counter reset is taken as
# Prometheus' increase() takes it. A second recorder reads the same
# endpoint beside a gauge command slower than its interval: each of its
# readings is still in flight at the next tick and is stored after that
# tick's gap row; its increase must not depend on that.
. "$E2E_LIB"
SERVER="$(dirname "$E2E_LIB")/../helpers/metrics_server.py"
bg "$PY" "$SERVER" --port-file "$T/port" --mode-file "$T/mode"
wait_for "$T/port" 10
PORT=$(cat "$T/port")
bg "$GROWER" --base 4 --grow 0 --every 100 --ready "$T/ready" --exit-after 40
G=$LAST_BG
wait_for "$T/ready" 10
mode() { echo "$1" > "$T/mode.tmp" && mv "$T/mode.tmp" "$T/mode"; sleep "$2"; }
mode ok 0
t0=$(date +%s.%N)
bg "$MEMTREND" record -o "$T/run.db" -p "$G" -i 200ms \
	--work "http://127.0.0.1:$PORT/metrics#test_requests_total{model=\"a\"}" \
	--gauge 'b_requests=http://127.0.0.1:'"$PORT"'/metrics#test_requests_total{model="b",code="200"}' \
	--work-timeout 500ms 2> "$T/stderr"
REC=$LAST_BG
bg "$MEMTREND" record -o "$T/slow.db" -p "$G" -i 200ms \
	--work "http://127.0.0.1:$PORT/metrics#test_requests_total{model=\"a\"}" \
	--gauge 'slow=sleep 0.3; echo 1' --work-timeout 500ms 2> "$T/slow.stderr"
SLOW=$LAST_BG
mode ok 2; mode reset 0.1; mode ok 1.5
mode 500 1.5; mode ok 1.5
mode hang 2; mode ok 1.5
mode garbage 1; mode openmetrics 1.5
# Stopped by a signal once the scenario is over (not by --duration: on a
# loaded machine the scenario takes longer than planned); exit 0 on TERM.
kill -TERM "$REC" "$SLOW"
wait "$REC" || { cat "$T/stderr"; fail "record exited $?"; }
wait "$SLOW" || { cat "$T/slow.stderr"; fail "the second record exited $?"; }
ticks=$("$PY" -c "import sys,time; print(int((time.time() - float(sys.argv[1])) / 0.2))" "$t0")
cat "$T/stderr"
# Sampling went on: one sample per 200 ms tick of the run (start-up and a
# loaded machine's skipped ticks allowed for: 85 %).
samples=$(nsamples "$T/run.db")
[ "$samples" -ge $((ticks * 85 / 100)) ] || fail "only $samples memory samples in $ticks ticks: sampling was held up"
# Every tick has a work reading or a gap.
work_rows=$(sql "$T/run.db" "SELECT count(*) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'work'")
gaps=$(sql "$T/run.db" "SELECT count(*) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'work' AND value IS NULL")
echo "memory samples $samples, work rows $work_rows, gaps $gaps"
[ "$work_rows" -ge $((ticks * 85 / 100)) ] || fail "only $work_rows work rows in $ticks ticks"
[ "$gaps" -ge 10 ] && [ "$gaps" -le 35 ] || fail "$gaps gaps, expected those of 500, hang and garbage"
# One warning per failure, one per recovery, naming the reason.
grep -q "fails: HTTP 500" "$T/stderr" || fail "no warning for HTTP 500"
grep -q "fails: timed out" "$T/stderr" || fail "no warning for the hang"
grep -q "fails: line" "$T/stderr" || fail "no warning for the garbage"
recov=$(grep -c "works again" "$T/stderr")
[ "$recov" -ge 3 ] || fail "$recov recovery messages, expected one per failure"
fails=$(grep -c "work counter 'requests'.*fails" "$T/stderr")
[ "$fails" = 3 ] || fail "$fails failure warnings for the work counter, expected 3"
# Label matching: model="a" sums a/200 (10 per scrape) and a/500 (1 per
# scrape), so every reading is a multiple of 11; the gauge (b/200 only)
# reads 100 per scrape.
bad=$(sql "$T/run.db" "SELECT count(*) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'work' AND value IS NOT NULL AND CAST(value AS INTEGER) % 11 != 0")
[ "$bad" = 0 ] || fail "$bad work readings are not sums over model=a"
badg=$(sql "$T/run.db" "SELECT count(*) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'gauge' AND value IS NOT NULL AND CAST(value AS INTEGER) % 100 != 0")
[ "$badg" = 0 ] || fail "$badg gauge readings are not b/200"
# The reset: memtrend's increase equals Prometheus' increase() computed
# here from every stored reading in the order of its stamp (the tick it
# was asked for: a reading that came back late is stored after later
# ticks' rows, and still counts where it was taken), and is larger than
# the last reading.
increase() {
	sql "$1" "SELECT value FROM source_sample JOIN source ON source.id = source_id WHERE role = 'work' AND value IS NOT NULL ORDER BY t" > "$T/work.txt"
	"$PY" -c '
import sys
v = [float(x) for x in open(sys.argv[1])]
inc = sum((b - a) if b >= a else b for a, b in zip(v, v[1:]))
print(int(inc))' "$T/work.txt"
}
expect=$(increase "$T/run.db")
last=$(tail -1 "$T/work.txt")
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
got=$(jget "$T/r.json" 'int(d["targets"][0]["per_request"]["requests"])')
echo "increase: memtrend $got, by hand $expect, last reading $last"
[ "$got" = "$expect" ] || fail "increase $got, expected $expect"
within "$got" "$last" 1e9 || fail "the reset was not handled: increase $got < last $last"
# The slow recorder: its readings came back a tick late (stored out of
# stamp order), and all of them count (before: every one was dropped as
# a clock stepped back, and the increase was unknown).
late=$(sql "$T/slow.db" "SELECT count(*) FROM source_sample a JOIN source ON source.id = a.source_id WHERE role = 'work' AND a.value IS NOT NULL AND EXISTS (SELECT 1 FROM source_sample b WHERE b.source_id = a.source_id AND b.rowid < a.rowid AND b.t > a.t)")
[ "$late" -ge 5 ] || fail "only $late late readings in the slow recording: the gauge did not hold them up"
slow_expect=$(increase "$T/slow.db")
"$MEMTREND" report "$T/slow.db" --json > "$T/slow.json" || fail "report of the slow recording exited $?"
slow_got=$(jget "$T/slow.json" '"unknown" if (r := (d["targets"][0]["per_request"] or {}).get("requests")) is None else int(r)')
echo "slow recorder: $late late readings, increase: memtrend $slow_got, by hand $slow_expect"
[ "$slow_got" = "$slow_expect" ] || fail "slow recording: increase $slow_got, expected $slow_expect"
# The failures are in the recording's notes too.
notes=$(sql "$T/run.db" "SELECT count(*) FROM note WHERE text LIKE '%fails:%'")
[ "$notes" -ge 3 ] || fail "$notes failure notes stored"
ok "metrics endpoint: $gaps gaps over 500/hang/garbage, sampling went on ($samples samples), increase $got across a reset, $late late readings kept"
