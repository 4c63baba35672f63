#!/bin/sh
# bench/host_soak.sh - the host exporter's soak (issue 15's "own RSS
# <= 32 MiB and flat over a 1-hour soak"): 1,000 sleeping processes,
# `memtrend record --all --listen` at 1 s over them, a scrape of
# /metrics every 15 s (as Prometheus would), and a second memtrend
# recording the first at 10 s. At the end: the first's peak RSS, its
# RSS at the start and at the end, the scrapes answered, and the
# second memtrend's verdict on the first.
#
#   bench/host_soak.sh [SECONDS]     (default 3600)
#   unshare --pid --fork --mount-proc bench/host_soak.sh   (as root: only
#       its own processes are recorded, whatever else the machine runs)
#
# memtrend from $MEMTREND, or else ${BUILD:-build}; files under
# bench/out/soak/. Takes SECONDS + ~20 s; ~2 % of one core. Not a
# test: a benchmark row.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
mt=${MEMTREND:-"$root/$BUILD/memtrend"}
secs=${1:-3600}
out="$root/bench/out/soak"
mkdir -p "$out"
rm -f "$out"/host.db* "$out"/self.db*
pids=""
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null || true; }
trap cleanup EXIT INT TERM
i=0
while [ $i -lt 1000 ]; do sleep 100000 & pids="$pids $!"; i=$((i + 1)); done
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# --listen-processes all: the 1,000 sleepers are seconds old; every one
# served, as measured before the option
"$mt" record -q -o "$out/host.db" --all -i 1s -d "${secs}s" \
	--listen "127.0.0.1:$port" --listen-processes all &
rec=$!
sleep 2
"$mt" record -q -o "$out/self.db" -p "$rec" -i 10s &
self=$!
ok=0 failed=0 t=0
rss0=$(awk '/VmRSS/ {print $2}' "/proc/$rec/status")
while kill -0 "$rec" 2>/dev/null; do
	sleep 15
	t=$((t + 15))
	if curl -sf -o /dev/null "http://127.0.0.1:$port/metrics"; then
		ok=$((ok + 1))
	elif kill -0 "$rec" 2>/dev/null; then
		failed=$((failed + 1))
	fi
	[ -r "/proc/$rec/status" ] &&
		rss1=$(awk '/VmRSS/ {print $2}' "/proc/$rec/status") &&
		hwm=$(awk '/VmHWM/ {print $2}' "/proc/$rec/status") || true
done
wait "$rec" || true
kill -INT "$self" 2>/dev/null || true  # it ends with its target
wait "$self" || true
echo "host soak: ${secs} s, 1,000 extra processes, scrapes every 15 s"
echo "  scrapes answered: $ok (failed: $failed)"
echo "  RSS after 2 s: $((rss0 / 1024)) MiB; at the end: $((rss1 / 1024)) MiB; peak: $((hwm / 1024)) MiB (target <= 32 MiB)"
echo "  memtrend's verdict on itself:"
"$mt" report "$out/self.db" | sed -n '1,12p' | sed 's/^/    /'
