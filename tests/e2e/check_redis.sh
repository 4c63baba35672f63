# `memtrend check` on Redis, the real server, started by check itself on a
# loopback port: the load SETs unique keys with 1000-byte values (ten
# batches of 2,000 through redis-cli --pipe), the work counter is the SET
# calls from INFO commandstats (--work-cmd; the INFO calls are not SETs).
# Expected: ~1,130 B per SET (tests/e2e/work_redis.sh measured it: value,
# key, dict entry, robj and sds headers, jemalloc size class), so a budget
# of 4 KiB per request passes and one of 256 B fails, each by a factor of
# 3 or more.
. "$E2E_LIB"
need redis-server redis-cli
cat > "$T/load.sh" <<'SH'
#!/bin/sh
# load.sh PORT: wait for Redis, then 10 paced batches of 2,000 unique SETs.
port=$1
i=0
until redis-cli -p "$port" ping > /dev/null 2>&1; do
	i=$((i + 1)); [ $i -gt 100 ] && exit 1
	sleep 0.1
done
for b in 0 1 2 3 4 5 6 7 8 9; do
	"$PY" - "$b" <<'PYEOF' | redis-cli -p "$port" --pipe > /dev/null || exit 1
import sys
b = int(sys.argv[1]); v = "x" * 1000; out = []
for i in range(b * 2000, (b + 1) * 2000):
    k = "key:%d" % i
    out.append("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
sys.stdout.write("".join(out))
PYEOF
	sleep 0.3
done
SH
chmod +x "$T/load.sh"
run() {
	local port; port=$(free_port)
	redis_server "$port"
	PY=$PY timeout 60 "$MEMTREND" check -q --json --interval 100ms \
		--work-cmd "$(redis_set_calls "$port")" --work-timeout 1s \
		--load "$T/load.sh $port" "$@" -- "${REDIS_SERVER[@]}"
}
run --max-per-request 4KiB > "$T/pass.json" 2> "$T/pass.err"
rc=$?
[ $rc = 0 ] || fail "redis, 4 KiB/req budget: exit $rc: $(cat "$T/pass.json" "$T/pass.err")"
est=$(jget "$T/pass.json" 'd["targets"][0]["estimate"]')
reqs=$(jget "$T/pass.json" 'd["targets"][0]["requests"]')
echo "pass: $(jget "$T/pass.json" 'd["targets"][0]["message"]')"
within "$est" 900 1500 || fail "per SET $est B, expected about 1130"
within "$reqs" 15000 20000 || fail "SETs judged: $reqs"
run --max-per-request 256 > "$T/fail.json" 2> "$T/fail.err"
rc=$?
echo "fail: $(jget "$T/fail.json" 'd["targets"][0]["message"]')"
[ $rc = 1 ] || fail "redis, 256 B/req budget: exit $rc: $(cat "$T/fail.err")"
[ "$(jget "$T/fail.json" 'd["targets"][0]["outcome"]')" = fail ] || fail "not a fail"
ok "redis: $est B per SET over $reqs SETs passes 4 KiB/req and fails 256 B/req"
