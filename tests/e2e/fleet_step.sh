# report --prometheus's step (issue 28, item 10), against a fake API
# (python3 on loopback; the first path segment picks the behaviour) that
# holds one series scraped every 5 s, with a `pid` label: without --step
# the step is the data's own interval, read from its sample times (one
# timestamp() query at 1 s steps); a --step 60s that leaves a few readings
# gets advice naming --step 5s, not "watch longer"; when the interval
# cannot be read, advice for a finer --step; the pid shown is the label's,
# not "(no pid)". Before: a 60 s default (5 readings over 5 minutes), "watch
# >= ..." advice, "(no pid)". About 2 s.
. "$E2E_LIB"
PORT=$(free_port)
cat > "$T/fake.py" <<'PYEOF'
import json, sys, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, log = int(sys.argv[1]), sys.argv[2]
SCRAPE = 5
RAW = list(range(1699999000, 1700000600, SCRAPE))   # sample times
LABELS = {"__name__": "m_bytes", "instance": "a", "pid": "4242"}
def value(t):  # flat at 100 MiB, a page or two of jitter
    return 104857600 + 4096 * ((t // SCRAPE * 7) % 3)
def latest(t):  # the sample an evaluation at t sees (5 min lookback)
    ts = [r for r in RAW if r <= t and t - r < 300]
    return ts[-1] if ts else None
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_POST(self):
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        mode = self.path.split("/")[1]
        if self.path.endswith("/series"):
            return self.reply({"status": "success", "data": [LABELS]})
        q = form["query"][0]
        start, end, step = (float(form[k][0]) for k in ("start", "end", "step"))
        with open(log, "a") as f:
            f.write("%s %s %g\n" % (mode, q, step))
        grid = [start + step * k for k in range(int((end - start) / step + 1e-9) + 1)]
        vals = []
        for t in grid:
            s = latest(t)
            if s is None:
                continue
            if q.startswith("timestamp("):
                if mode == "nots":  # a server that cannot say
                    continue
                vals.append([t, str(s)])
            else:
                vals.append([t, str(value(s))])
        res = [{"metric": LABELS, "values": vals}] if vals else []
        return self.reply({"status": "success", "data": {"resultType": "matrix", "result": res}})
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
bg "$PY" "$T/fake.py" "$PORT" "$T/requests.log" 2> "$T/fake.err"
wait_port "$PORT" 20
B="http://127.0.0.1:$PORT"
FR=("$MEMTREND" report --query m_bytes --start 1700000000 --end 1700000300 --no-color)

# --- 1. no --step: the data's own interval --------------------------------
timeout 30 "${FR[@]}" --prometheus "$B/ok" > "$T/a.txt" 2> "$T/a.err" ||
	fail "no --step: exit $?: $(cat "$T/a.err")"
grep -q "step 5s (the data's own interval, 5s, read from its sample times)" "$T/a.txt" ||
	fail "the step is not the data's interval: $(grep -i step "$T/a.txt")"
grep -q "61 samples" "$T/a.txt" || fail "not 61 readings at 5 s: $(grep samples "$T/a.txt")"
grep -q '^ok timestamp({__name__="m_bytes",instance="a",pid="4242"}) 1$' "$T/requests.log" ||
	fail "no timestamp() query at 1 s steps: $(cat "$T/requests.log")"
[ "$(grep -c timestamp "$T/requests.log")" = 1 ] || fail "the interval read more than once: $(cat "$T/requests.log")"
grep -q 'pid 4242' "$T/a.txt" || fail "the pid label is not shown: $(grep -n 'no pid\|pid' "$T/a.txt")"
grep -q '(no pid)' "$T/a.txt" && fail "(no pid) though the series has one"
ok "no --step: step 5s from the data (one timestamp() query), 61 samples, pid 4242"

# --- 2. --step 60s: starved, the advice names --step 5s ---------------------
: > "$T/requests.log"
timeout 30 "${FR[@]}" --prometheus "$B/ok" --step 60s > "$T/b.txt" 2> "$T/b.err" ||
	fail "--step 60s: exit $?: $(cat "$T/b.err")"
grep -q 'inconclusive' "$T/b.txt" || fail "not inconclusive at 60 s: $(cat "$T/b.txt")"
grep -q "=> to settle it: use --step 5s, the data's own interval (at --step 60s: 5 samples over 4 min)" "$T/b.txt" ||
	fail "the advice does not name --step 5s: $(grep -A1 'settle' "$T/b.txt")"
grep -q 'watch >=' "$T/b.txt" && fail "still 'watch >=' advice: $(grep 'watch >=' "$T/b.txt")"
grep -q "step 60s (--step; the data's own interval is 5s: about 1 reading in 12 of it; --step 5s reads every one)" "$T/b.txt" ||
	fail "the note does not explain the step: $(grep -i 'step' "$T/b.txt")"
timeout 30 "${FR[@]}" --prometheus "$B/ok" --step 60s --json > "$T/b.json" 2>/dev/null || fail "--json"
jget "$T/b.json" 'd["targets"][0]["settle"]' | grep -q '^use --step 5s' || fail "JSON settle: $(jget "$T/b.json" 'd["targets"][0]["settle"]')"
ok "--step 60s: 5 readings, advice 'use --step 5s', the note says 1 in 12"

# --- 3. the interval cannot be read: a finer --step --------------------------------
timeout 30 "${FR[@]}" --prometheus "$B/nots" --step 60s > "$T/c.txt" 2> "$T/c.err" ||
	fail "nots: exit $?: $(cat "$T/c.err")"
grep -q "=> to settle it: use a finer --step, down to the data's scrape interval (at --step 60s: 5 samples over 4 min), or a longer --range" "$T/c.txt" ||
	fail "unknown interval: $(grep -A1 settle "$T/c.txt")"
timeout 30 "${FR[@]}" --prometheus "$B/nots" > "$T/d.txt" 2> "$T/d.err" || fail "nots, no --step: exit $?"
grep -q "step 60s (the default: the data's own interval could not be read)" "$T/d.txt" ||
	fail "default step note: $(grep -i step "$T/d.txt")"
ok "interval unknown: the 60 s default, said; advice for a finer --step"
