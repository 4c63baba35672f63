# memcached, the real server, with -m 32 (a 32 MiB item cache): 64 MB of
# unique 1000-byte items in 16 paced batches. The footprint must climb and
# stop near the cap (measured by hand on memcached 1.6.18: RssAnon levels
# at ~34.1 MiB: 32 MiB of slabs plus hash table and baseline), and the
# verdict must be plateau, not growing. Work: cmd_set from "stats" (read
# with bash's /dev/tcp) via --work-cmd; connections via --conn-port.
. "$E2E_LIB"
need memcached bash
PORT=$(free_port)
MC_USER=""
[ "$(id -u)" = 0 ] && MC_USER="-u nobody"  # memcached refuses root without -u
bg memcached -l 127.0.0.1 -p "$PORT" -m 32 -U 0 -c 64 $MC_USER
M=$LAST_BG
wait_port "$PORT" 10
WORK="bash -c 'exec 3<>/dev/tcp/127.0.0.1/$PORT; printf \"stats\\r\\nquit\\r\\n\" >&3; sed -n \"s/^STAT cmd_set \\([0-9]*\\).*/\\1/p\" <&3'"
bg "$MEMTREND" record -q -o "$T/run.db" -p "$M" -i 200ms \
	--work-cmd "$WORK" --work-timeout 1s --conn-port "$PORT"
REC=$LAST_BG
sleep 1.5
"$PY" - "$PORT" <<'PYEOF' || fail "loading memcached failed"
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
v = b"x" * 1000
for b in range(16):
    s.sendall(b"".join(b"set k%d 0 0 %d noreply\r\n%s\r\n" % (i, len(v), v)
                       for i in range(b * 4000, (b + 1) * 4000)))
    time.sleep(0.45)
s.sendall(b"stats\r\n")
d = b""
while b"END\r\n" not in d:
    d += s.recv(65536)
sets = [l for l in d.decode().split("\r\n") if l.startswith("STAT cmd_set ")]
assert sets == ["STAT cmd_set 64000"], sets
PYEOF
sleep 4          # the flat tail: the cache stays at its cap
# Stopped by a signal once the scenario is over (not by --duration: on a
# loaded machine the scenario takes longer than planned); exit 0 on TERM.
kill -TERM "$REC"; wait "$REC" || fail "record exited $?"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
"$MEMTREND" report "$T/run.db" > "$T/r.txt" || fail "text report exited $?"
cat "$T/r.txt"
verdict=$(jget "$T/r.json" 'd["targets"][0]["verdict"]')
level=$(jget "$T/r.json" 'd["targets"][0]["plateau"]["level_bytes"] if d["targets"][0]["plateau"] else 0')
reqs=$(jget "$T/r.json" 'd["targets"][0]["per_request"]["requests"] if d["targets"][0]["per_request"] else 0')
echo "verdict=$verdict level=$level requests=$reqs"
[ "$verdict" = plateau ] || fail "verdict $verdict, expected plateau"
within "$level" $((32 * 1048576)) $((37 * 1048576)) || fail "plateau level $level, expected near the 32 MiB cap"
within "$reqs" 64000 64000 || fail "work $reqs, expected 64000 sets"
maxc=$(sql "$T/run.db" "SELECT max(value) FROM source_sample JOIN source ON source.id = source_id WHERE role = 'connections'")
[ "${maxc%.0}" = 1 ] || fail "max connections $maxc, expected the loader's 1"
ok "memcached -m 32: plateau at $level B after $reqs sets"
