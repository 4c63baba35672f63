# record --listen against its clients (issue 31): two requests in one send
# are both answered and a connection serves several scrapes (keep-alive, as
# Prometheus reuses one); 40 slow-loris connections from one address are
# held to 16 (the per-address limit), each cut at the header deadline
# although it sends a byte every 0.5 s; 100 from ten addresses, reconnecting
# when cut, never keep a scrape from being answered, nor do 300 that send
# nothing; and sampling goes on at its rate throughout. The clients are
# tests/e2e/listen_clients.py.
. "$E2E_LIB"
CLIENTS="$(dirname "$E2E_LIB")/listen_clients.py"
bg "$GROWER" --base 4 --grow 64 --every 50 --ready "$T/r" --exit-after 60
G=$LAST_BG
wait_for "$T/r" 10
bg "$MEMTREND" record -o "$T/a.db" -p "$G" -i 100ms -d 60s \
	--listen 127.0.0.1:0 2> "$T/rec.err"
REC=$LAST_BG
URL=$(listen_url "$T/rec.err") || exit 1
PORT=${URL##*:}; PORT=${PORT%%/*}
"$PY" "$CLIENTS" "$PORT" ready || exit 1
t0=$("$PY" -c 'import time; print(time.time())')

"$PY" "$CLIENTS" "$PORT" keepalive || exit 1
ok "pipelined requests answered, one connection reused for scrapes"
"$PY" "$CLIENTS" "$PORT" peraddress || exit 1
ok "one address held to 16 connections, slow ones cut at the deadline"
"$PY" "$CLIENTS" "$PORT" loris || exit 1
ok "scrapes answered with 100 slow-loris connections"
"$PY" "$CLIENTS" "$PORT" silent || exit 1
ok "a scrape answered behind 300 connections that send nothing"

# Sampling never waited for the listener: no gap between two samples
# (one row's last stamp and the next row's first) over a second at 100 ms
# while the clients above ran.
kill -TERM "$REC"; wait "$REC"; rc=$?
[ $rc = 0 ] || fail "record exit $rc: $(cat "$T/rec.err")"
gap=$(sql "$T/a.db" "SELECT max(t - prev) FROM (SELECT t, lag(coalesce(t_last, t)) OVER (ORDER BY t) AS prev FROM sample WHERE t >= $t0)")
n=$(sql "$T/a.db" "SELECT sum(coalesce(repeats, 1)) FROM sample WHERE t >= $t0")
[ -n "$gap" ] && within "$gap" 0 1.0 || fail "a gap of $gap s between samples at 100 ms"
ok "sampling went on: $n samples, largest gap $gap s"
