# Redis, the real server, on a loopback port: unique-key SETs of 1000-byte
# values in ten paced batches, an idle stretch, FLUSHALL, idle again.
# Work: SET calls from INFO commandstats via --work-cmd (the INFO calls
# themselves are not SETs, so sampling does not count as work);
# connections via --conn-port.
# Expected, measured by hand on Redis 7.0 / jemalloc: RssAnon grows
# ~1,130 bytes per SET (value 1000 B + key, dict entry, robj, sds headers,
# jemalloc size class); FLUSHALL gives ~20 MiB back at once.
. "$E2E_LIB"
need redis-server redis-cli
PORT=$(free_port)
redis_server "$PORT"
bg "${REDIS_SERVER[@]}"
R=$LAST_BG
wait_port "$PORT" 10
WORK=$(redis_set_calls "$PORT")
bg "$MEMTREND" record -q -o "$T/run.db" -p "$R" -i 200ms \
	--work-cmd "$WORK" --work-timeout 1s --conn-port "$PORT"
REC=$LAST_BG
sleep 2
# A keep-alive client holds a connection while the batches run, as an
# application's connection pool would.
"$PY" -c 'import socket,sys,time; s=socket.create_connection(("127.0.0.1",int(sys.argv[1]))); time.sleep(float(sys.argv[2]))' "$PORT" 7 &
HOLD=$!
# Ten batches of 2,000 unique keys, one every 0.6 s, over one connection
# each (redis-cli --pipe).
for b in $(seq 0 9); do
	"$PY" - "$b" <<'PYEOF' | redis-cli -p "$PORT" --pipe >/dev/null || exit 1
import sys
b = int(sys.argv[1]); v = "x" * 1000; out = []
for i in range(b * 2000, (b + 1) * 2000):
    k = "key:%d" % i
    out.append("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
sys.stdout.write("".join(out))
PYEOF
	sleep 0.6
done
wait "$HOLD"
sleep 6          # idle: no SETs, no client connections
redis-cli -p "$PORT" flushall >/dev/null
sleep 6          # idle again, after the release
# Stopped by a signal once the scenario is over (not by --duration: on a
# loaded machine the scenario takes longer than planned); exit 0 on TERM.
kill -TERM "$REC"; wait "$REC" || fail "record exited $?"
calls=$(redis-cli -p "$PORT" info commandstats | sed -n 's/^cmdstat_set:calls=\([0-9]*\).*/\1/p')
[ "$calls" = 20000 ] || fail "redis counted $calls SETs"
"$MEMTREND" report "$T/run.db" --json --idle-min 4s > "$T/r.json" || fail "report exited $?"
"$MEMTREND" report "$T/run.db" --idle-min 4s > "$T/r.txt" || fail "text report exited $?"
cat "$T/r.txt"
reqs=$(jget "$T/r.json" 'd["targets"][0]["per_request"]["requests"]')
bpr=$(jget "$T/r.json" 'd["targets"][0]["per_request"]["bytes_per_request"]')
lo=$(jget "$T/r.json" 'd["targets"][0]["per_request"]["ci95_low"]')
hi=$(jget "$T/r.json" 'd["targets"][0]["per_request"]["ci95_high"]')
echo "requests=$reqs bytes/request=$bpr ($lo .. $hi)"
within "$reqs" 20000 20000 || fail "requests $reqs, expected 20000"
within "$bpr" 1000 1400 || fail "per-request growth $bpr, expected about 1130 B"
# The interval counts what each request keeps and how the allocator's
# chunks and rehashes make the footprint step (the work's random walk
# among the noise models, stats_lowfreq.h), where the OU mixture's +-8 B
# counted neither. How wide depends on where the samples catch those
# steps: in 18 runs on 2026-12-05 (normal build, quiet machine) +-3 % in
# 12, +-20-27 % in 4 (828 .. 1,413 B/req), +-41 % in 2 (569 .. 1,503:
# the work's random walk fitted); 853 .. 1,444 in an ASan run under load.
# It must hold the estimate and stay informative: below 1,600 above it,
# above 450 below it (0.4 of the ~1,130 B a SET keeps: far from zero).
within "$lo" 450 "$bpr" || fail "interval low $lo"
within "$hi" "$bpr" 1600 || fail "interval high $hi"
# The idle stretches: found, and the one holding FLUSHALL released memory.
n=$(jget "$T/r.json" 'len(d["targets"][0]["idle_windows"])')
[ "$n" -ge 1 ] || fail "no idle window found"
maxdecl=$(jget "$T/r.json" 'max(w["decline_bytes"] for w in d["targets"][0]["idle_windows"])')
if within "$maxdecl" $((15 * 1048576)) $((40 * 1048576)); then
	rel=$(jget "$T/r.json" 'd["targets"][0]["idle"]["released"]')
	[ "$rel" = True ] || fail "released=$rel"
	where="in an idle window"
else
	# FLUSHALL comes over a connection of its own; when the once-a-second
	# connection count catches it, that point is not idle and (in these
	# short windows: 1 of ~12 counted points) splits the idle stretch in
	# two (docs/verdicts.md). The release is then the step between the
	# two windows: check that instead.
	split=$(jget "$T/r.json" '[s["change_bytes"] for s in d["targets"][0]["steps"] if any(a["end"] <= s["time"] <= b["start"] or a["end"][:19] <= s["time"][:19] <= b["start"][:19] for a, b in zip(d["targets"][0]["idle_windows"], d["targets"][0]["idle_windows"][1:]))]')
	echo "largest idle decline $maxdecl; steps between idle windows: $split"
	drop=$("$PY" -c "import sys; v=eval(sys.argv[1]); print(-min(v) if v else 0)" "$split")
	within "$drop" $((15 * 1048576)) $((40 * 1048576)) || fail "largest idle decline $maxdecl and no ~20 MiB drop between idle windows (FLUSHALL): $split"
	maxdecl=$drop
	where="between two idle windows (split by FLUSHALL's connection)"
fi
# Connections: recorded; zero while idle, non-zero during some batch.
maxc=$(sql "$T/run.db" "SELECT max(value) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'connections'")
lastc=$(sql "$T/run.db" "SELECT value FROM source_sample JOIN source ON source.id = source_id WHERE role = 'connections' ORDER BY t DESC LIMIT 1")
echo "connections: max $maxc, last $lastc"
within "$maxc" 1 3 || fail "max connections $maxc"
[ "$lastc" = 0.0 ] || [ "$lastc" = 0 ] || fail "connections at the end: $lastc"
grep -q "per request" "$T/r.txt" || fail "text report lacks the per-request slope"
grep -q "idle " "$T/r.txt" || fail "text report lacks the idle windows"
ok "redis: $bpr B per SET over $reqs SETs; FLUSHALL released $maxdecl B $where"
