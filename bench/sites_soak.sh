#!/bin/sh
# bench/sites_soak.sh - issue 30's soak of the shim: `memtrend record
# --sites` of bench_alloc (one thread replacing blocks of 16 B-16 KiB in a
# ring of 4,096, a few million times a second) for SECONDS at 10 s, at
# --sites-rate 1KiB, so that about a thousand sampled blocks are live and
# replaced all the time (every slot of the live set in use over the hour,
# not only the few of the default rate). A second memtrend records the
# first at 10 s. At the end: the target's shmem (the shim's region: its
# pages as the target touched them) and anon (the shim allocates nothing
# on the heap) at the start, the end and their peak; the recorder's RSS
# likewise and memtrend's verdict on it; the sampled and dropped counts.
#
#   bench/sites_soak.sh [SECONDS]     (default 3600)
#
# memtrend from $MEMTREND, or else ${BUILD:-build}; files under
# bench/out/sites_soak/. Run under nice: not a test, a benchmark row
# (docs/sites.md, "Cost").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
BUILD=${BUILD:-build}
mt=${MEMTREND:-"$root/$BUILD/memtrend"}
alloc="$root/$BUILD/bench/bench_alloc"
secs=${1:-3600}
out="$root/bench/out/sites_soak"
mkdir -p "$out"
rm -f "$out"/sites.db* "$out"/self.db*
pids=""
cleanup() { [ -n "$pids" ] && kill $pids 2>/dev/null || true; }
trap cleanup EXIT INT TERM
nice -n 19 "$mt" record -q -o "$out/sites.db" -i 10s --sites \
	--sites-rate 1KiB -- "$alloc" 1 "$secs" 200 > "$out/alloc.out" &
rec=$!
pids="$pids $rec"
sleep 2
"$mt" record -q -o "$out/self.db" -p "$rec" -i 10s &
self=$!
pids="$pids $self"
wait "$rec" || true
sleep 11
kill -INT "$self" 2>/dev/null || true
wait "$self" 2>/dev/null || true
pids=""
q() { sqlite3 "$1" "$2"; }
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }
first_last_max() { # DB COLUMN: first last max of the column over samples
	echo "$(q "$1" "SELECT $2 FROM sample WHERE $2 IS NOT NULL ORDER BY t LIMIT 1") $(q "$1" "SELECT $2 FROM sample WHERE $2 IS NOT NULL ORDER BY t DESC LIMIT 1") $(q "$1" "SELECT max($2) FROM sample")"
}
set -- $(first_last_max "$out/sites.db" shmem)
echo "target shmem (the region): first $(mib "$1"), last $(mib "$2"), peak $(mib "$3") (bound 16 MiB)"
set -- $(first_last_max "$out/sites.db" anon)
echo "target anon: first $(mib "$1"), last $(mib "$2"), peak $(mib "$3")"
set -- $(first_last_max "$out/self.db" rss)
echo "recorder RSS: first $(mib "$1"), last $(mib "$2"), peak $(mib "$3")"
echo "site table: $(q "$out/sites.db" "SELECT 'sampled ' || sampled || ', dropped ' || (dropped_sites + dropped_live) || ', live blocks ' || live_blocks FROM site_stats ORDER BY rowid DESC LIMIT 1")"
echo "target: $(cat "$out/alloc.out")"
"$mt" report "$out/self.db" | grep -E "verdict|growing|stable|plateau" | head -3
"$mt" report "$out/sites.db" | sed -n '/where it grows/,/not growing/p' | head -8
