# report --prometheus when Prometheus misbehaves, against a fake API
# (python3 http.server on loopback; the first path segment picks the
# behaviour): down (nothing listens: retried, exit 3), hung (the
# --query-timeout, exit 3), a PromQL error as 400 (Prometheus' message,
# exit 2, no retry), 503 (retried, then exit 3, every try counted), a
# response over --max-response (exit 3, "larger than"), no series (exit
# 2), a metric not in bytes (a warning naming it), the API's warnings
# (shown), NaN values (gaps), an --auth-file's bearer token sent, and
# responses cut off mid-body after their first series (retried; each
# series counted once).
. "$E2E_LIB"
PORT=$(free_port)
cat > "$T/fake.py" <<'PYEOF'
import json, sys, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, log = int(sys.argv[1]), sys.argv[2]
tries = {}
def matrix(name, form, nan=False):
    # At the steps asked, as Prometheus answers (points off them, or
    # outside the range, are refused or left out): FR's grid is 200
    # points, k = 0..199 from 1700000040.
    start, end, step = (float(form[k][0]) for k in ("start", "end", "step"))
    ts = [start + step * j for j in range(int((end - start) / step + 1e-9) + 1)]
    vals = [[t, "NaN" if nan and k % 10 == 0 else str(100000000 + 50000 * k)]
            for t, k in ((t, int(t - 1700000040) // 60) for t in ts)]
    return {"metric": {"__name__": name, "instance": "a"}, "values": vals}
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def reply(self, code, obj, raw=None, cut=None):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        # cut: the first try of each request ends inside the second
        # series (the first one whole), the connection closed.
        if cut:
            k = tries[self.path] = tries.get(self.path, 0) + 1
            if k == 1:
                self.wfile.write(body[:body.index(cut) + len(cut) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
        self.wfile.write(body)
    def do_POST(self):
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        mode = self.path.split("/")[1]
        with open(log, "a") as f:
            f.write("%s %s %s\n" % (mode, self.path, self.headers.get("Authorization")))
        series = self.path.endswith("/series")
        if mode == "hang":
            time.sleep(30); return
        if mode == "bad":
            return self.reply(400, {"status": "error", "errorType": "bad_data",
                "error": "1:9: parse error: unexpected end of input"})
        if mode == "graph":  # a page of the UI, not the API: plain text
            return self.reply(404, None, raw=b"404 page not found\n")
        if mode == "err5":
            return self.reply(503, {"status": "error", "errorType": "unavailable", "error": "overloaded"})
        if mode == "empty":
            return self.reply(200, {"status": "success", "data": [] if series else
                {"resultType": "matrix", "result": []}})
        if mode == "big":
            if series:
                return self.reply(200, {"status": "success", "data": [{"__name__": "m_bytes", "instance": "a"}]})
            return self.reply(200, None, raw=b'{"status":"success","data":{"resultType":"matrix","result":[' +
                b' ' * (3 << 20) + b']}}')
        if mode in ("cut", "cutchange"):
            # cutchange: the retry answers other series first.
            names = "cb" if mode == "cutchange" and tries.get(self.path) else "ab"
            mark = b'"instance": "b"'
            if series:
                return self.reply(200, {"status": "success", "data": [
                    {"__name__": "m_bytes", "instance": i} for i in names]}, cut=mark)
            r = {"status": "success", "data": {"resultType": "matrix", "result": [
                dict(matrix("m_bytes", form), metric={"__name__": "m_bytes", "instance": i})
                for i in names]}}
            return self.reply(200, r, cut=mark)
        name = "cpu_seconds_total" if mode == "notbytes" else "m_bytes"
        if series:
            return self.reply(200, {"status": "success", "data": [{"__name__": name, "instance": "a"}]})
        r = {"status": "success", "data": {"resultType": "matrix",
             "result": [matrix(name, form, nan=(mode == "ok"))]}}
        if mode == "ok":
            r["warnings"] = ["some data is partial (a store was down)"]
        return self.reply(200, r)
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
bg "$PY" "$T/fake.py" "$PORT" "$T/requests.log"
wait_port "$PORT" 10
B="http://127.0.0.1:$PORT"
FR() { "$MEMTREND" report --start 1700000040 --end 1700011980 --step 60s --no-color "$@"; }
expect() { # CODE TEXT FILE WHAT
	[ "$rc" = "$1" ] || fail "$4: exit $rc, not $1: $(cat "$3")"
	grep -q -- "$2" "$3" || fail "$4: no '$2' in: $(cat "$3")"
	ok "$4: exit $1, '$2'"
}

DOWN=$(free_port)
FR --prometheus "http://127.0.0.1:$DOWN" --query 'm_bytes' > /dev/null 2> "$T/e"; rc=$?
expect 3 "4 tries" "$T/e" "down"

FR --prometheus "$B/hang" --query 'm_bytes' --query-timeout 1s > /dev/null 2> "$T/e"; rc=$?
expect 3 "timed out" "$T/e" "hung"

FR --prometheus "$B/bad" --query 'rate(m_bytes[' > /dev/null 2> "$T/e"; rc=$?
expect 2 "parse error: unexpected end of input" "$T/e" "PromQL error"
[ "$(grep -c '^bad ' "$T/requests.log")" = 1 ] || fail "a 400 was retried"

FR --prometheus "$B/graph" --query 'm_bytes' > /dev/null 2> "$T/e"; rc=$?
expect 2 "base URL of a Prometheus server" "$T/e" "not the API (404)"
grep -q "$B/graph/api/v1/series" "$T/e" || fail "404: the URL tried not shown: $(cat "$T/e")"

FR --prometheus "$B/err5" --query 'm_bytes' > /dev/null 2> "$T/e"; rc=$?
expect 3 "HTTP 503: overloaded" "$T/e" "503"
[ "$(grep -c '^err5 ' "$T/requests.log")" = 4 ] || fail "503: not 4 tries: $(grep -c '^err5 ' "$T/requests.log")"

FR --prometheus "$B/big" --query 'm_bytes' --max-response 1MiB > /dev/null 2> "$T/e"; rc=$?
expect 3 "larger than 1 MiB" "$T/e" "over the bound"

FR --prometheus "$B/empty" --query 'm_bytes' > /dev/null 2> "$T/e"; rc=$?
expect 2 "no series" "$T/e" "no series (selector)"
FR --prometheus "$B/empty" --query 'sum(m_bytes)' > /dev/null 2> "$T/e"; rc=$?
expect 2 "no series" "$T/e" "no series (expression)"

FR --prometheus "$B/notbytes" --query 'cpu_seconds_total' --json > "$T/nb.json" 2> "$T/e"; rc=$?
expect 0 "'cpu_seconds_total' does not end in _bytes" "$T/e" "not bytes"

umask 077
printf 'bearer s3cret-token\n' > "$T/auth"
FR --prometheus "$B/ok" --query 'm_bytes' --auth-file "$T/auth" --json > "$T/ok.json" 2> "$T/e"; rc=$?
expect 0 "Prometheus: some data is partial" "$T/e" "API warnings"
grep -q "^ok .* Bearer s3cret-token$" "$T/requests.log" || fail "no bearer token sent"
grep -q "s3cret" "$T/e" "$T/ok.json" && fail "the token was printed"
# 200 points, every 10th NaN: 180 readings, growing.
[ "$(jget "$T/ok.json" 'd["targets"][0]["samples"], d["targets"][0]["verdict"]')" = "180 growing" ] ||
	fail "NaN gaps: $(jget "$T/ok.json" 'd["targets"][0]["samples"], d["targets"][0]["verdict"]')"
ok "the bearer token sent, never shown; NaN values are gaps"
printf 'basic user:pa:ss\n' > "$T/auth"
FR --prometheus "$B/ok" --query 'm_bytes' --auth-file "$T/auth" > /dev/null 2>&1 || fail "basic auth"
grep -q "^ok .* Basic dXNlcjpwYTpzcw==$" "$T/requests.log" || fail "basic: $(tail -1 "$T/requests.log")"
ok "basic auth from the file"
# --auth-file that is no file of credentials (issue 31, point 7): a FIFO
# with no writer (waited on forever before), a directory (two
# contradictory messages before), a first line over 4,095 bytes (cut
# silently before): each one message, exit 2, at once.
mkfifo "$T/fifo"
for bad in "$T/fifo" "$T"; do
	timeout 10 "$MEMTREND" report --prometheus "$B/ok" --query 'm_bytes' \
		--auth-file "$bad" > /dev/null 2> "$T/e"; rc=$?
	[ $rc = 2 ] || fail "--auth-file $bad: exit $rc: $(cat "$T/e")"
	[ "$(grep -c . "$T/e")" = 1 ] || fail "--auth-file $bad: $(cat "$T/e")"
	grep -q "is not a regular file" "$T/e" || fail "--auth-file $bad: $(cat "$T/e")"
done
head -c 5000 /dev/zero | tr '\0' 'a' > "$T/long"
FR --prometheus "$B/ok" --query 'm_bytes' --auth-file "$T/long" > /dev/null 2> "$T/e"; rc=$?
[ $rc = 2 ] || fail "--auth-file, a 5,000-byte line: exit $rc: $(cat "$T/e")"
grep -q "longer than 4095 bytes" "$T/e" || fail "a 5,000-byte line: $(cat "$T/e")"
ok "--auth-file: a FIFO, a directory, a line too long: one message each, exit 2"

# Cut off after the first series: retried, each series once. (The
# series already handed on are skipped on the retry; the commands' own
# callbacks would absorb a repeat, so cutchange below is what shows the
# skip: a retry whose first series differs is refused.)
for q in m_bytes 'max by (instance) (m_bytes)'; do
	FR --prometheus "$B/cut" --query "$q" --json > "$T/cut.json" 2> "$T/e"; rc=$?
	[ $rc = 0 ] || fail "cut ($q): exit $rc: $(cat "$T/e")"
	got=$(jget "$T/cut.json" 'sorted((t["labels"]["instance"], t["samples"]) for t in d["targets"])')
	[ "$got" = "[('a', 200), ('b', 200)]" ] || fail "cut ($q): $got"
done
[ "$(grep -c '^cut ' "$T/requests.log")" -ge 6 ] || fail "cut: not retried: $(grep -c '^cut ' "$T/requests.log")"
ok "a response cut off mid-body: retried, each series once"
FR --prometheus "$B/cutchange" --query m_bytes > /dev/null 2> "$T/e"; rc=$?
expect 3 "the response changed between tries" "$T/e" "cut off, then other series"

# Usage errors.
"$MEMTREND" report --query m_bytes > /dev/null 2> "$T/e"; rc=$?
expect 2 "needs --prometheus" "$T/e" "--query alone"
"$MEMTREND" report --prometheus "$B/ok" --query m_bytes x.csv > /dev/null 2> "$T/e"; rc=$?
expect 2 "not both" "$T/e" "a FILE too"
"$MEMTREND" report --prometheus "$B/ok" --query m_bytes --start 1 --end 2 --range 1h > /dev/null 2> "$T/e"; rc=$?
expect 2 "two of the three" "$T/e" "--range --start --end"
