# record --all under a flood of 10,000 short-lived processes, beside 1,100
# that live on (so memtrend holds more than FD_SETSIZE kept fds: its
# listener's sockets are numbered past 1,024), with Prometheus-style
# scrapes every 50 ms through it: every scrape answers, the long-lived
# process loses no sample (its samples stay regular), memtrend's own
# memory stays bounded (ended processes are dropped from its tables), and
# scrapes never hold up sampling.
. "$E2E_LIB"
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
bg "$GROWER" --base 8 --grow 64 --every 100 --ready "$T/r1" --exit-after 120
LONG=$LAST_BG
wait_for "$T/r1" 10
# 1,100 sleepers that outlive the test's recording (one process group).
bg "$PY" -c '
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
ps = [subprocess.Popen(["sleep", "90"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL) for _ in range(1100)]
open(sys.argv[1], "w").close()
try:
    time.sleep(90)
finally:
    for p in ps:
        p.kill()
    for p in ps:
        p.wait()
' "$T/sleepers"
wait_for "$T/sleepers" 60
bg "$MEMTREND" record -o "$T/host.db" --all --user "$(id -u)" -i 100ms \
	--rescan 100ms --commit-interval 200ms --listen 127.0.0.1:0 \
	--listen-processes all 2> "$T/rec.err"  # the flood served too
REC=$LAST_BG
URL=$(listen_url "$T/rec.err") || exit 1
# Scrapes every 50 ms while the flood runs.
( while [ ! -e "$T/stop" ]; do
	if curl -sf -o /dev/null "$URL"; then echo ok; else echo failed; fi
	sleep 0.05
  done > "$T/scrapes" ) &
SCRAPER=$!
BG_PIDS="$BG_PIDS $SCRAPER"
# 10,000 processes of a few ms each, 100 at a time.
start=$(date +%s)
"$PY" - <<'PYEOF'
import subprocess
for _ in range(100):
    ps = [subprocess.Popen(["sleep", "0.01"]) for _ in range(100)]
    for p in ps:
        p.wait()
PYEOF
flood_s=$(( $(date +%s) - start ))
sleep 1
hwm=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$REC/status")
: > "$T/stop"
wait $SCRAPER 2>/dev/null
kill -TERM $REC; wait $REC 2>/dev/null
kill -TERM "$(echo $BG_PIDS | awk '{print $2}')" 2>/dev/null  # the sleepers
targets=$(sql "$T/host.db" "SELECT count(*) FROM target")
good=$(grep -c '^ok' "$T/scrapes"); bad=$(grep -c '^failed' "$T/scrapes")
echo "scrapes: $good answered, $bad failed"
[ "$bad" = 0 ] || fail "$bad of $((good + bad)) scrapes failed"
[ "$good" -ge 5 ] || fail "only $good scrapes"
echo "flood of 10000 processes in ${flood_s} s; $targets targets recorded; memtrend peak RSS ${hwm} kB"
# Bounded: ended processes leave memtrend's tables. Not under ASan, whose
# quarantine keeps every freed block for a while (431 MB seen): there the
# figure says nothing about memtrend.
if [ -z "${SANITIZED:-}" ]; then
	[ "$hwm" -lt $((192 * 1024)) ] || fail "memtrend's peak RSS ${hwm} kB under the flood"
fi
# The long-lived one: sampled at every tick the recorder made while the
# flood and the scrapes ran -- as many samples as a sleeper that lived
# through the whole recording (one fewer at most: the stop may fall
# between the two reads). A tick may come late on a loaded machine, for
# every process alike; what must not happen is a tick that skips this
# one. The gap bound only catches a hang (50 intervals): a scrape holding
# up sampling would show as one.
gap=$(sql "$T/host.db" "SELECT max(t2 - t1) FROM (SELECT coalesce(s.t_last, s.t) AS t1, lead(s.t) OVER (ORDER BY s.t) AS t2 FROM sample s JOIN incarnation i ON i.id = s.incarnation_id WHERE i.pid = $LONG)")
n=$(sql "$T/host.db" "SELECT coalesce(sum(coalesce(s.repeats, 1)), 0) FROM sample s JOIN incarnation i ON i.id = s.incarnation_id WHERE i.pid = $LONG")
ref=$(sql "$T/host.db" "SELECT max(c) FROM (SELECT sum(coalesce(s.repeats, 1)) AS c FROM sample s JOIN incarnation i ON i.id = s.incarnation_id JOIN target g ON g.id = i.target_id WHERE g.kind = 'process' AND i.comm = 'sleep' GROUP BY i.id)")
echo "long-lived: $n samples, a sleeper of the whole recording $ref, largest gap $gap s"
[ "$n" -ge $(( ref - 1 )) ] ||
	fail "the long-lived process has $n samples where a sleeper has $ref"
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 5.0 else 1)" "$gap" ||
	fail "the long-lived process's samples have a gap of $gap s"
ok "flood: $targets targets, peak RSS ${hwm} kB, long-lived sampled at every tick ($n, gap $gap s)"
