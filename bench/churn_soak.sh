#!/bin/sh
# bench/churn_soak.sh - issue 31's soak of the new surfaces: `memtrend
# record --all --listen` at 1 s for SECONDS, under 200 clients scraping
# /metrics (each once a second on a kept-alive connection, as Prometheus
# does; a new connection when the exporter closes one) and a churn of
# short-lived processes (about 10 a second, each living 0.2-1.9 s). A second
# memtrend records the first at 10 s. At the end: the first's RSS at the
# start, the end and its peak, the second's verdict on it, the scrapes
# answered and failed, and the samples of a marker process that lives the
# whole run against the ticks the run had (none lost: equal, give or take
# the first and last tick).
#
#   bench/churn_soak.sh [SECONDS]     (default 3600)
#
# memtrend from $MEMTREND, or else ${BUILD:-build}; files under
# bench/out/churn/. Not a test: a benchmark row (docs/reliability.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
mt=${MEMTREND:-"$root/$BUILD/memtrend"}
secs=${1:-3600}
out="$root/bench/out/churn"
mkdir -p "$out"
rm -f "$out"/host.db* "$out"/self.db* "$out"/clients.txt
pids=""
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null || true; }
trap cleanup EXIT INT TERM
sleep 100000 &
marker=$!
pids="$pids $marker"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# --listen-processes all: every process served, the churn's too (the
# soak's load, as measured before the option)
"$mt" record -q -o "$out/host.db" --all -i 1s -d "${secs}s" \
	--listen "127.0.0.1:$port" --listen-processes all &
rec=$!
pids="$pids $rec"
sleep 2
"$mt" record -q -o "$out/self.db" -p "$rec" -i 10s &
self=$!
rss0=$(awk '/VmRSS/ {print $2}' "/proc/$rec/status")
# the churn: ~10 short-lived processes a second
( while kill -0 "$rec" 2>/dev/null; do
	i=0
	while [ $i -lt 10 ]; do
		sleep "0.$((2 + (i * 7) % 18))" &
		i=$((i + 1))
	done
	sleep 1
  done ) &
churn=$!
pids="$pids $churn"
# the clients (until 5 s before the recorder stops): 200 threads, each a
# scrape a second on one connection,
# each from its own loopback address (127.0.0.2 ...), as 200 scrapers on
# as many hosts: the exporter allows 16 connections an address
/usr/bin/python3 - "$port" "$((secs - 5))" > "$out/clients.txt" 2>&1 <<'PYEOF' &
import http.client, sys, threading, time
port, secs = int(sys.argv[1]), float(sys.argv[2])
end = time.monotonic() + secs
lock = threading.Lock()
ok, failed, conns = [0], [0], [0]
def client(i):
    time.sleep(i / 200)
    c = None
    while time.monotonic() < end:
        t = time.monotonic()
        try:
            if c is None:
                c = http.client.HTTPConnection(
                    "127.0.0.1", port, timeout=10,
                    source_address=("127.0.0.%d" % (2 + i), 0))
                with lock:
                    conns[0] += 1
            c.request("GET", "/metrics")
            r = c.getresponse()
            body = r.read()
            good = r.status == 200 and body.startswith(b"#")
            if r.getheader("Connection", "").lower() == "close":
                c.close(); c = None
        except Exception:
            good = False
            if c is not None:
                c.close()
            c = None
        with lock:
            (ok if good else failed)[0] += 1
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t)))
ts = [threading.Thread(target=client, args=(i,)) for i in range(200)]
for t in ts: t.start()
for t in ts: t.join()
print("scrapes answered %d, failed %d, connections %d" % (ok[0], failed[0], conns[0]))
PYEOF
clients=$!
rss1=$rss0 hwm=$rss0
while kill -0 "$rec" 2>/dev/null; do
	sleep 10
	[ -r "/proc/$rec/status" ] &&
		rss1=$(awk '/VmRSS/ {print $2}' "/proc/$rec/status") &&
		hwm=$(awk '/VmHWM/ {print $2}' "/proc/$rec/status") || true
done
wait "$rec" || true
wait "$clients" || true
kill -INT "$self" 2>/dev/null || true
wait "$self" || true
samples=$(sqlite3 "$out/host.db" "SELECT count(*) FROM sample_expanded s JOIN incarnation i ON s.incarnation_id = i.id JOIN target g ON i.target_id = g.id WHERE i.pid = $marker AND g.parent_id IS NULL" 2>/dev/null || echo "?")
span=$(sqlite3 "$out/host.db" "SELECT printf('%.0f', max(t) - min(t)) FROM sample_expanded" 2>/dev/null || echo "?")
targets=$(sqlite3 "$out/host.db" "SELECT count(*) FROM incarnation" 2>/dev/null || echo "?")
echo "churn soak: ${secs} s, record --all --listen at 1 s, 200 clients scraping each second, ~10 processes started a second"
echo "  $(cat "$out/clients.txt")"
echo "  marker process: $samples samples over a recording of $span s (1 s ticks: none lost when equal +-1)"
echo "  incarnations recorded: $targets"
echo "  RSS after 2 s: $((rss0 / 1024)) MiB; at the end: $((rss1 / 1024)) MiB; peak: $((hwm / 1024)) MiB"
echo "  memtrend's verdict on itself:"
"$mt" report "$out/self.db" | sed -n '1,12p' | sed 's/^/    /'
