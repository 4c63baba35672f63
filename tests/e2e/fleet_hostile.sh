# report --prometheus against a server that does not do what was asked
# (issue 31, point 1): a fake API (python3 on loopback; the first path
# segment picks the behaviour) that ignores the batch's label matcher, lists
# 200,000 series, sends points out of time order, twice, or far outside the
# asked range, a label value of 8 MB, and gzip bombs. What must hold: memory
# bounded by the documented limits whatever the server sends (series not
# asked for ignored and counted in one warning; beyond --max-series refused
# with the count and advice; a series longer than memtrend holds refused
# before anything is fetched; a string over 16 KiB refused, in time linear
# in the body), disorder and out-of-range points counted and said, and
# every --query-timeout honoured within a second.
. "$E2E_LIB"
PORT=$(free_port)
cat > "$T/fake.py" <<'PYEOF'
import json, struct, sys, time, urllib.parse, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
port, log = int(sys.argv[1]), sys.argv[2]
INST = ["i%02d" % k for k in range(24)]
MANY = json.dumps({"status": "success", "data": [
    {"__name__": "m_bytes", "instance": "i%06d" % k} for k in range(200000)]}).encode()
def listing(insts, **extra):
    return {"status": "success", "data": [dict({"__name__": "m_bytes", "instance": i}, **extra)
                                          for i in insts]}
def matrix(result):
    return {"status": "success", "data": {"resultType": "matrix", "result": result}}
def grid(form):
    start, end, step = (float(form[k][0]) for k in ("start", "end", "step"))
    n = int((end - start) / step + 1e-9) + 1
    return [start + step * k for k in range(n)]
def values(ts):  # growing by 50 kB a point
    return [[t, str(100000000 + int(t - 1700000000) * 1000)] for t in ts]
def one(inst, vals):
    return {"metric": {"__name__": "m_bytes", "instance": inst}, "values": vals}
def gz_bomb(head, fill, n, tail):
    # head, n bytes of fill (whole MiB), tail, gzip-encoded in a few MB
    # without compressing n bytes: after a full flush a 1 MiB block's
    # deflate output repeats byte for byte; the CRC is over the whole.
    z = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = fill * (1 << 20)
    h = z.compress(head) + z.flush(zlib.Z_FULL_FLUSH)
    x = z.compress(block) + z.flush(zlib.Z_FULL_FLUSH)
    e = z.compress(tail) + z.flush(zlib.Z_FINISH)
    crc = zlib.crc32(head)
    for _ in range(n >> 20):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + (n >> 20 << 20) + len(tail)
    return (b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff" + h + x * (n >> 20) + e +
            struct.pack("<II", crc, size & 0xffffffff))
# A label value of 256 MiB; 3 GiB of whitespace in valid JSON.
BOMBS = {"bomb": gz_bomb(b'{"status":"success","data":[{"__name__":"', b"A", 256 << 20, b'"}]}'),
         "wsbomb": gz_bomb(b'{"status":"success",', b" ", 3 << 30, b'"data":[]}')}
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a): pass
    def reply(self, obj=None, raw=None, gzip=False):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if gzip:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass  # the client gave up (a bound, a timeout)
    def do_POST(self):
        form = urllib.parse.parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode())
        mode = self.path.split("/")[1]
        series = self.path.endswith("/series")
        with open(log, "a") as f:
            f.write("%s %s %.3f %s\n" % (mode, "series" if series else "range", time.time(),
                                         form.get("query", form.get("match[]", [""]))[0]))
        if mode == "ignore":  # every series, whatever the matcher
            if series:
                return self.reply(listing(INST))
            return self.reply(matrix([one(i, values(grid(form))) for i in INST]))
        if mode == "many":
            if series:
                return self.reply(raw=MANY)
            return self.reply(matrix([]))
        if mode == "disorder":  # a: reversed; b: each point twice
            if series:
                return self.reply(listing(["a", "b"]))
            v = values(grid(form))
            return self.reply(matrix([one("a", v[::-1]),
                                      one("b", [p for p in v for _ in (0, 1)])]))
        if mode == "outside":  # 50 points far outside the asked range
            if series:
                return self.reply(listing(["a"]))
            ts = grid(form)
            far = [1000000000 + 60 * k for k in range(25)] + [ts[-1] + 86400 + 60 * k for k in range(25)]
            return self.reply(matrix([one("a", values(ts[:100]) + values(far) + values(ts[100:]))]))
        if mode == "longstr":  # one label value of 8 MB
            return self.reply(listing(["a"], pod="x" * (8 << 20)))
        if mode in ("bomb", "wsbomb"):
            # gzip bombs (asked for gzip: not a loopback name): a label
            # value of 256 MiB, or 3 GiB of whitespace in valid JSON.
            return self.reply(raw=BOMBS[mode], gzip=True)
ThreadingHTTPServer(("127.0.0.1", port), H).serve_forever()
PYEOF
# (its tracebacks, when memtrend hangs up on a bomb, to a file)
bg "$PY" "$T/fake.py" "$PORT" "$T/requests.log" 2> "$T/fake.err"
wait_port "$PORT" 20
B="http://127.0.0.1:$PORT"
# 1000 points a series, 1 min apart.
FR=("$MEMTREND" report --start 1700000040 --end 1700059980 --step 60s --no-color)
# RUN SECONDS OUT ERR CMD...: CMD bounded in time, its exit in $rc, its
# wall time in $wall, its peak RSS in $rss_kib.
RUN() {
	local limit=$1 out=$2 err=$3
	shift 3
	/usr/bin/time -f '%e %M' -o "$T/time" timeout "$limit" "$@" > "$out" 2> "$err"
	rc=$?
	read -r wall rss_kib < <(tail -1 "$T/time")
	[ "$rc" = 124 ] && fail "$* ran past $limit s: $(head -c 600 "$err")"
	return 0
}
expect() { # CODE TEXT FILE WHAT
	[ "$rc" = "$1" ] || fail "$4: exit $rc, not $1: $(head -c 600 "$3")"
	grep -q -- "$2" "$3" || fail "$4: no '$2' in: $(head -c 600 "$3")"
}

# The matcher ignored: 24 series listed, batches of 16 (--max-response
# 1MiB: half of it at 32 bytes a point, 1000 points) and 8, and each
# batch's answer holds all 24. Before: every series of every batch kept,
# 48 targets (23.9 GB at a real fleet's size).
RUN 20 "$T/ig.json" "$T/e" "${FR[@]}" --prometheus "$B/ignore" --query m_bytes --max-response 1MiB --json
expect 0 "24 series not asked for" "$T/e" "matcher ignored"
got=$(jget "$T/ig.json" 'len(d["targets"]), sorted(set(t["samples"] for t in d["targets"])), len(set(t["labels"]["instance"] for t in d["targets"]))')
[ "$got" = "24 [1000] 24" ] || fail "matcher ignored: targets, samples, instances: $got"
[ "$(grep -c "^ignore range" "$T/requests.log")" = 2 ] || fail "matcher ignored: not 2 batches"
[ "$(grep -c "not asked for" "$T/e")" = 1 ] || fail "matcher ignored: not one warning: $(cat "$T/e")"
ok "a server that ignores the batch's matcher: 24 targets of 1000 points, 24 series ignored, one warning ($wall s, $rss_kib KiB)"

# More series than --max-series: refused at the listing, with the count
# and advice, and only --max-series label sets held (before: 200,000
# kept, then fetched: 56 MB peak and 4.4 s here; 1,000,000 took 5.6 GB).
RUN 20 /dev/null "$T/e" "${FR[@]}" --prometheus "$B/many" --query m_bytes
expect 2 "200000 series" "$T/e" "200,000 series"
grep -q -- "--max-series 10000" "$T/e" || fail "200,000 series: no advice: $(cat "$T/e")"
[ "$(grep -c "^many range" "$T/requests.log")" = 0 ] || fail "200,000 series: fetched"
# (15 MiB here, 37 MiB under ASan: its shadow and quarantine)
limit=40960; [ -n "${SANITIZED:-}" ] && limit=81920
[ "$rss_kib" -lt $limit ] || fail "200,000 series listed: $rss_kib KiB peak RSS"
ok "200,000 series over --max-series 10000: exit 2 with the count and advice ($wall s, $rss_kib KiB peak)"
RUN 20 "$T/ms.json" "$T/e" "${FR[@]}" --prometheus "$B/ignore" --query m_bytes --max-series 23
expect 2 "24 series" "$T/e" "--max-series 23"
RUN 20 "$T/ms.json" "$T/e" "${FR[@]}" --prometheus "$B/ignore" --query 'max by (instance) (m_bytes)' --max-series 23
expect 2 "24 series" "$T/e" "--max-series 23, an expression"
RUN 20 "$T/ms.json" "$T/e" "${FR[@]}" --prometheus "$B/ignore" --query m_bytes --max-series 24 --json
[ "$rc" = 0 ] || fail "--max-series 24: exit $rc: $(cat "$T/e")"
ok "--max-series: a selector and an expression over it refused, at it accepted"

# One series longer than memtrend holds: refused before any request,
# with advice, as an expression's is (before: fetched whole, +37 MB/s,
# then abort).
: > "$T/requests.log"
for q in m_bytes 'max by (instance) (m_bytes)'; do
	RUN 20 /dev/null "$T/e" "$MEMTREND" report --prometheus "$B/ignore" --query "$q" \
		--range 3650d --step 1s --end 1700000000
	expect 2 "a larger --step or a shorter --range" "$T/e" "3650d at 1s ($q)"
	grep -q "315360001 points per series" "$T/e" || fail "3650d at 1s: $(cat "$T/e")"
done
[ -s "$T/requests.log" ] && fail "3650d at 1s: requests made: $(head -3 "$T/requests.log")"
ok "--range 3650d --step 1s: refused at once, no request ($wall s, $rss_kib KiB)"

# Points out of time order and twice: sorted and kept once, counted and
# said (before: a reversed series kept 1 point of 1000, silently).
RUN 20 "$T/do.json" "$T/e" "${FR[@]}" --prometheus "$B/disorder" --query m_bytes --json
expect 0 "999 points out of time order" "$T/e" "disorder"
grep -q "1000 points at a time already read" "$T/e" || fail "duplicates not said: $(cat "$T/e")"
got=$(jget "$T/do.json" 'sorted((t["labels"]["instance"], t["samples"], t["verdict"]) for t in d["targets"])')
[ "$got" = "[('a', 1000, 'growing'), ('b', 1000, 'growing')]" ] || fail "disorder: $got"
ok "a reversed series and one with every point twice: 1000 points each, growing, both said"

# Points far outside the asked range: left out, counted and said (before:
# kept, 1050 samples spanning 24 years).
RUN 20 "$T/out.json" "$T/e" "${FR[@]}" --prometheus "$B/outside" --query m_bytes --json
expect 0 "50 points outside the asked range" "$T/e" "out of range"
got=$(jget "$T/out.json" '[(t["samples"], t["verdict"]) for t in d["targets"]]')
[ "$got" = "[(1000, 'growing')]" ] || fail "out of range: $got"
ok "50 points far outside the range: left out and said"

# A label value of 8 MB: refused at 16 KiB, at once (before: read, 1 s of
# CPU for 8 MB, 36 s for 48 MB: quadratic in its length).
RUN 20 /dev/null "$T/e" "${FR[@]}" --prometheus "$B/longstr" --query m_bytes
expect 3 "longer than 16 KiB" "$T/e" "an 8 MB label value"
within "$wall" 0 2 || fail "an 8 MB label value: $wall s"
ok "a label value of 8 MB: refused in $wall s"

# gzip bombs (0.0.0.0 is this machine but not a loopback name, so gzip is
# asked for). A label value of 256 MiB: refused at 16 KiB, at once
# (before: quadratic, past the 2 s --query-timeout by minutes). 3 GiB of
# whitespace: each try ends within the timeout and a second, 4 tries.
BZ="http://0.0.0.0:$PORT"
RUN 20 /dev/null "$T/e" "${FR[@]}" --prometheus "$BZ/bomb" --query m_bytes --max-response 1GiB --query-timeout 2s
expect 3 "longer than 16 KiB" "$T/e" "a gzip bomb (a string)"
within "$wall" 0 3 || fail "a gzip bomb (a string): $wall s"
ok "a gzip bomb of one string: refused in $wall s"
: > "$T/requests.log"
RUN 20 /dev/null "$T/e" "${FR[@]}" --prometheus "$BZ/wsbomb" --query m_bytes --max-response 4GiB --query-timeout 1s
expect 3 "timed out" "$T/e" "a gzip bomb (whitespace)"
"$PY" - "$T/requests.log" "$wall" <<'EOF' || fail "a gzip bomb (whitespace): tries past the timeout: $(cat "$T/requests.log")"
import sys
t = [float(l.split()[2]) for l in open(sys.argv[1])]
# tries start at 0, then after 1 + 0.5, 1 + 1, 1 + 2 s of timeout and back-off
gaps = [b - a for a, b in zip(t, t[1:])]
back = [0.5, 1, 2]
print("tries", len(t), "gaps", ["%.2f" % g for g in gaps], "total", sys.argv[2])
sys.exit(0 if len(t) == 4 and all(g - b <= 2.0 for g, b in zip(gaps, back)) else 1)
EOF
ok "a gzip bomb of whitespace, --query-timeout 1s: each try within a second of it ($wall s in all)"
