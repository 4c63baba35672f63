#!/usr/bin/env bash
# bench/faults.sh - the recorder under injected faults, measured (not a
# test: the figures go to docs/reliability.md). Needs a build in $BUILD
# (default build). Prints one line per fault.
#   kill -9 at N random moments (FAULT_KILLS, default 50) of a 10 ms
#     recorder: the file's integrity, and how much before the kill the last
#     kept sample lies (the batch open at the kill is lost: <= ~1 s);
#   stop latency: SIGTERM with a hung --work scrape and a sleeping
#     --work-cmd (timeouts 30 s and 60 s);
#   restarts: a process killed and started again R times (FAULT_RESTARTS,
#     default 20) under --name: incarnations counted.
set -eu
cd "$(dirname "$0")/.."
B=${BUILD:-build}
M="$B/memtrend"
G="$B/tests/grower"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
KILLS=${FAULT_KILLS:-50}
RESTARTS=${FAULT_RESTARTS:-20}

"$G" --base 4 --grow 4 --every 3 --ready "$T/ready" --exit-after 3600 &
GP=$!
while [ ! -e "$T/ready" ]; do sleep 0.05; done
ok=0 maxloss=0
for i in $(seq "$KILLS"); do
	db="$T/k$i.db"
	ts=$("$PY" -c 'import time; print(time.time())')
	"$M" record -q -o "$db" -p "$GP" -i 10ms &
	R=$!
	d=$("$PY" -c "import random; print(round(random.uniform(0.3, 3.0), 3))")
	sleep "$d"
	tk=$("$PY" -c 'import time; print(time.time())')
	kill -KILL $R; wait $R 2>/dev/null || true
	integ=$(sqlite3 "$db" "PRAGMA integrity_check" 2>&1)
	last=$(sqlite3 "$db" "SELECT max(coalesce(t_last, t)) FROM sample" 2>/dev/null)
	[ "$integ" = ok ] && ok=$((ok + 1))
	# before the first commit (1 s) nothing is kept: the loss is then
	# the time since the start
	loss=$("$PY" -c "import sys; print(round(float(sys.argv[1]) - max(float(sys.argv[2] or 0), float(sys.argv[3])), 3))" "$tk" "${last:-0}" "$ts")
	maxloss=$("$PY" -c "import sys; print(max(float(sys.argv[1]), float(sys.argv[2])))" "$maxloss" "$loss")
	rm -f "$db" "$db-wal" "$db-shm"
done
kill $GP 2>/dev/null || true
echo "kill -9 x$KILLS at random moments of a 10 ms recorder: $ok/$KILLS files intact; samples lost at most $maxloss s before the kill"

"$PY" tests/helpers/metrics_server.py --port-file "$T/port" --mode-file "$T/mode" &
while [ ! -e "$T/port" ]; do sleep 0.05; done
echo hang > "$T/mode"
"$G" --base 4 --ready "$T/ready2" --exit-after 600 &
GP=$!
while [ ! -e "$T/ready2" ]; do sleep 0.05; done
for kind in scrape cmd; do
	if [ $kind = scrape ]; then
		"$M" record -q -o "$T/s.db" -p "$GP" -i 5s --work-timeout 30s \
			--work "http://127.0.0.1:$(cat "$T/port")/metrics#test_requests_total" &
	else
		rm -f "$T/s.db"*
		"$M" record -q -o "$T/s.db" -p "$GP" -i 5s --work-timeout 60s \
			--work-cmd "sleep 300" &
	fi
	R=$!
	sleep 2
	t0=$("$PY" -c 'import time; print(time.monotonic())')
	kill -TERM $R; wait $R || true
	dt=$("$PY" -c "import time,sys; print(round(time.monotonic() - float(sys.argv[1]), 3))" "$t0")
	echo "SIGTERM with a hung --work $kind in flight: stopped in $dt s"
	rm -f "$T/s.db"*
done

"$M" record -q -o "$T/r.db" --name 'memtrend-fault-restart' -i 50ms &
R=$!
for i in $(seq "$RESTARTS"); do
	(exec -a memtrend-fault-restart "$G" --base 4 --ready "$T/rr$i" --exit-after 0.6) &
	while [ ! -e "$T/rr$i" ]; do sleep 0.02; done
	wait $! 2>/dev/null || true
	sleep 0.3
done
sleep 0.5
kill -TERM $R; wait $R || true
n=$(sqlite3 "$T/r.db" "SELECT count(*) FROM incarnation")
echo "$RESTARTS restarts under --name: $n incarnations recorded"
