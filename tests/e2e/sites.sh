# record --sites (docs/sites.md): a service of known allocation sites
# (tests/helpers/sites_prog.c: 4 KiB kept per request at leak_keep, a
# cache at its cap, a realloc'd buffer that stops at 256 KiB, churn),
# recorded with the shim preloaded. The leak site must be ranked first,
# named, with 4 KiB per request inside its interval and its live bytes
# the truth within the sampling's error; the others not called growing;
# nothing dropped; the region's file gone; --sites refused where it
# cannot work. About 9 s (its edges: e2e_sites_edges).
. "$E2E_LIB"
: "${SITES_PROG:?}"
shm_before=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
# 1 KiB between samples on average: a 4 KiB block is sampled with
# probability 1 - exp(-4) = 0.98 and stands for 4,171 B, so the leak's
# estimate is the truth within 0.15 % (one standard deviation of the
# sampling; the weights themselves are test_sites_region's); the small
# blocks (the churn, 16 B-8 KiB) are still sampled, about one in six.
# Through a wrapper that execs it (the shell loads the shim first and
# claims the region; the program, the same pid, takes it over).
timeout 60 "$MEMTREND" record -q -o "$T/run.db" -i 100ms --sites \
	--sites-rate 1KiB --work-log "$T/work.log" --match req \
	-- sh -c 'exec "$0" "$@"' "$SITES_PROG" 8 "$T/work.log" 1000 \
	> "$T/out" 2> "$T/err"
rc=$?
[ $rc = 0 ] || fail "record --sites: exit $rc: $(cat "$T/err")"
requests=$(grep -c req "$T/work.log")
# a site's frames are read through an index (a scan per site took 2.9 s
# at 4,096 sites)
sql "$T/run.db" "EXPLAIN QUERY PLAN SELECT depth FROM site_frame WHERE site_id = 1 ORDER BY depth" |
	grep -q "USING .*INDEX site_frame_by_site" || fail "site_frame read without its index"


[ "$requests" -ge 1000 ] || fail "only $requests requests"
"$MEMTREND" report --json "$T/run.db" > "$T/r.json" 2> "$T/rerr" ||
	fail "report: $(cat "$T/rerr")"
S="d['targets'][0]['sites']"
[ "$(jget "$T/r.json" "$S['dropped']")" = 0 ] ||
	fail "dropped: $(jget "$T/r.json" "$S['dropped']")"
first=$(jget "$T/r.json" "$S['ranked'][0]['frames'][0]['function']")
[ "$first" = leak_keep ] || fail "first site is '$first', not leak_keep"
[ "$(jget "$T/r.json" "$S['ranked'][0]['trend']")" = growing ] ||
	fail "leak site not growing"
lo=$(jget "$T/r.json" "$S['ranked'][0]['per_request']['ci95_low']")
hi=$(jget "$T/r.json" "$S['ranked'][0]['per_request']['ci95_high']")
# A 95 % interval misses the truth in one run of twenty by its
# definition (measured: 1 of 15 here, 2026-12-05): checked against the
# interval widened to three times its width about its middle (about 6
# standard errors: a miss once in 10^8 runs when the interval is
# honest), which a slope off by 1 % still fails (the interval is +-15 B).
wlo=$("$PY" -c "import sys; l,h=map(float,sys.argv[1:]); print(l-(h-l))" "$lo" "$hi")
whi=$("$PY" -c "import sys; l,h=map(float,sys.argv[1:]); print(h+(h-l))" "$lo" "$hi")
within_widened 4096 "$lo" "$hi" ||
	fail "4096 B/req outside the leak site's interval [$lo, $hi] (x3: [$wlo, $whi])"
# the estimate of its live bytes against the truth, 4,096 x requests
# (15 %: the last sample may miss the last batches; the sampling's error
# is 0.15 %)
last=$(jget "$T/r.json" "$S['ranked'][0]['last_bytes']")
truth=$((4096 * requests))
within "$last" "$((truth * 85 / 100))" "$((truth * 115 / 100))" ||
	fail "leak site estimate $last B, truth $truth B"
# the cache, the buffer and the churn are not growing
bad=$(jget "$T/r.json" "[r['frames'][0]['function'] for r in $S['ranked'] if r['trend'] == 'growing' and r['frames'][0]['function'] in ('cache_put', 'buffer_grow', 'churn')]")
[ "$bad" = "[]" ] || fail "called growing: $bad"
# no site starts in the shim itself (its frames are skipped: before,
# at -O0, realloc's path left the shim's realloc as the first frame)
bad=$(jget "$T/r.json" "[r['frames'][0] for r in $S['ranked'] if r['frames'] and 'memtrend-sites' in str(r['frames'][0])]")
[ "$bad" = "[]" ] || fail "sites that start in the shim: $bad"
[ "$(jget "$T/r.json" "$S['split']")" = leak ] ||
	fail "split $(jget "$T/r.json" "$S['split']"), expected leak"
"$MEMTREND" report "$T/run.db" > "$T/r.txt" 2>&1
grep -q "leak_keep (sites_prog.c:[0-9]*) in sites_prog" "$T/r.txt" ||
	fail "text report: $(sed -n '/where it grows/,$p' "$T/r.txt")"
"$MEMTREND" report "$T/run.db" --html "$T/r.html" > /dev/null 2>&1 ||
	fail "report --html"
grep -q "<h3>Where it grows</h3>" "$T/r.html" &&
	grep -q "leak_keep (sites_prog.c:[0-9]*) in sites_prog" "$T/r.html" ||
	fail "the HTML report has no sites"
# the icicle graph of growth by stack, its widest leaf the leak (its box
# 90 % of the picture or more: the leak is 98 % of the footprint's
# slope, checked above through the JSON), and the sites plotted
"$PY" - "$T/r.html" <<'PY' || fail "the HTML report's flame graph"
import re, sys
page = open(sys.argv[1]).read()
fig = re.search(r'<figure class="fig-flame">.*?</figure>', page, re.S)
assert fig, "no fig-flame"
boxes = re.findall(r'<title>([^<]*?): [^<]*</title><rect x="[0-9.]+" y="[0-9.]+" width="([0-9.]+)"', fig.group(0))
leaves = [(float(w), n) for n, w in boxes if n.startswith("leak_keep (sites_prog.c:")]
assert leaves and max(leaves)[0] >= 0.9 * 959, boxes
assert '<figure class="fig-sites">' in page and 'data-k="1. leak_keep' in page, "no sites plot"
PY
# --folded: folded stacks (flamegraph.pl, speedscope): the target, the
# frames outermost first, the leak's leaf with its line; per request its
# value inside the interval checked above (x3); every line "stack INT"
"$MEMTREND" report --folded request "$T/run.db" > "$T/folded" 2> "$T/ferr" ||
	fail "report --folded request: $(cat "$T/ferr")"
"$PY" - "$T/folded" "$wlo" "$whi" "$(jget "$T/r.json" "d['targets'][0]['name']")" <<'PY' || fail "--folded request: $(cat "$T/folded")"
import re, sys
lines = open(sys.argv[1], "rb").read().decode().splitlines()
assert lines, "no line"
for l in lines:
    assert re.fullmatch(r"[^\x00-\x1f;]+(;[^\x00-\x1f;]+)+ [0-9]+", l), l
top = [l for l in lines if re.search(r";worker;handle_request;leak_keep \(sites_prog\.c:[0-9]+\) [0-9]+$", l)]
assert top and top[0].startswith(sys.argv[4] + ";"), (sys.argv[4], lines)
v = int(top[0].rsplit(" ", 1)[1])
assert float(sys.argv[2]) <= v <= float(sys.argv[3]), v
PY
"$MEMTREND" report --folded live "$T/run.db" | grep -q ";cache_put (sites_prog.c:[0-9]*) [0-9]*$" ||
	fail "--folded live: no cache_put"
"$MEMTREND" report --folded hour --json "$T/run.db" > /dev/null 2>&1
[ $? = 2 ] || fail "--folded with --json: not a usage error"
# --pprof: the profile read by the format's own schema (pprof's
# proto/profile.proto, Debian's golang-github-google-pprof-dev, compiled
# by protoc for python3-protobuf: nothing of memtrend's): the leak's
# sample has leak_keep at its leaf with its file and line (the report's),
# its per-request
# value inside the interval (x3), the default type growth_per_hour.
"$MEMTREND" report --pprof "$T/run.pb" "$T/run.db" > /dev/null 2> "$T/perr" ||
	fail "report --pprof: $(cat "$T/perr")"
[ -s "$T/run.pb" ] || fail "--pprof wrote nothing"
PPROF_PROTO=/usr/share/gocode/src/github.com/google/pprof/proto
if [ -e "$PPROF_PROTO/profile.proto" ] && command -v protoc > /dev/null &&
	"$PY" -c "import google.protobuf" 2> /dev/null; then
	mkdir -p "$T/pb"
	protoc --python_out="$T/pb" -I "$PPROF_PROTO" profile.proto ||
		fail "protoc on pprof's profile.proto"
	leak_line=$(jget "$T/r.json" "$S['ranked'][0]['frames'][0]['line']")
	PYTHONPATH="$T/pb" "$PY" - "$T/run.pb" "$wlo" "$whi" "$leak_line" <<'PY' || fail "--pprof: the profile"
import sys, profile_pb2
p = profile_pb2.Profile()
p.ParseFromString(open(sys.argv[1], "rb").read())
S = p.string_table
assert S[0] == "", S[:3]
types = [(S[t.type], S[t.unit]) for t in p.sample_type]
assert types == [("growth_per_hour", "bytes"), ("growth_per_request", "bytes"),
                 ("live", "bytes")], types
assert S[p.default_sample_type] == "growth_per_hour"
loc = {l.id: l for l in p.location}
fn = {f.id: f for f in p.function}
maps = {m.id: m for m in p.mapping}
def leaf(s):
    l = loc[s.location_id[0]]
    return fn[l.line[0].function_id], l
leaks = [s for s in p.sample if S[leaf(s)[0].name] == "leak_keep"
         and leaf(s)[1].line[0].line == int(sys.argv[4])]
assert len(leaks) == 1, [S[leaf(s)[0].name] for s in p.sample]
s = leaks[0]
f, l = leaf(s)
assert S[f.filename].endswith("sites_prog.c"), S[f.filename]
assert S[maps[l.mapping_id].filename].endswith("sites_prog"), S[maps[l.mapping_id].filename]
assert float(sys.argv[2]) <= s.value[1] <= float(sys.argv[3]), s.value
labels = {S[x.key]: S[x.str] for x in s.label}
assert labels["trend"] == "growing", labels
callers = [S[fn[loc[i].line[0].function_id].name] for i in s.location_id[1:3]]
assert callers == ["handle_request", "worker"], callers
print("pprof: leak_keep at sites_prog.c:%s, %d B/req, %d B/h" % (sys.argv[4], s.value[1], s.value[0]))
PY
else
	echo "note: pprof's profile.proto, protoc or python3-protobuf missing: the profile not decoded"
fi
ok "leak_keep first, $lo..$hi B/req, $last B against $truth B, $requests requests"
shm_after=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
[ "$shm_after" -le "$shm_before" ] || fail "the region's file was left in /dev/shm"
# A stripped copy, with a debuginfod server that accepts and never
# answers named where libdw would ask it (DEBUGINFOD_URLS, set by default
# on several distributions): frames are named locally only, so sampling
# goes on -- it stalled on the first query (libdebuginfod waits 90 s),
# and the target's build ids went over the network.
dport=$(free_port)
bg "$PY" -c 'import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(64); held = []
while True: held.append(s.accept()[0])' "$dport"
wait_port "$dport" 10
strip -o "$T/stripped" "$SITES_PROG" || fail "strip"
DEBUGINFOD_URLS="http://127.0.0.1:$dport" timeout 20 "$MEMTREND" record -q \
	-o "$T/s.db" -i 100ms --sites --sites-rate 1KiB -- "$T/stripped" 2 \
	"$T/s.log" 1000 > /dev/null 2> "$T/err" || fail "stripped: $(cat "$T/err")"
n=$(nsamples "$T/s.db")
[ "$n" -ge 12 ] || fail "$n samples in 2 s at 100 ms: the sampling stalled"
ok "a stripped target, debuginfod named but stalled: $n samples"
# where neither mode works (several processes): a clear message, exit 2,
# nothing started (the eBPF mode, -p: e2e_sites_bpf)
"$MEMTREND" record -q -o "$T/p.db" --sites -p $$ --name sites_prog 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--sites -p --name: exit $rc"
grep -q "sites samples one process" "$T/err" || fail "--sites -p --name: $(cat "$T/err")"
[ ! -e "$T/p.db" ] || fail "--sites -p --name left a file"
"$MEMTREND" record -q -o "$T/p.db" --sites --all 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--sites --all: exit $rc"
"$MEMTREND" record -q -o "$T/q.db" --sites-rate 1KiB -- true 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--sites-rate without --sites: exit $rc"
"$MEMTREND" check --sites --max-growth 1MiB/h --load true -- true 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q "needs -o FILE" "$T/err" || fail "check --sites without -o: exit $rc: $(cat "$T/err")"
ok "--sites with -p and --name, with --all, --sites-rate alone, check --sites without -o refused"
# check --sites names the sites behind a failure: the leak (4 KiB/req,
# leak_keep) against a budget of 1 KiB/req fails, and the text, the
# JSON and the JUnit message name leak_keep with its per-request slope
# (the interval x3 about its middle holds 4,096 B, as above).
timeout 60 "$MEMTREND" check -q -i 100ms --max-per-request 1KiB \
	--work-log "$T/c.log" --match req -o "$T/c.db" --sites \
	--sites-rate 8KiB --load "sleep 4" --json --junit "$T/c.xml" \
	-- "$SITES_PROG" 60 "$T/c.log" 1000 > "$T/c.json" 2> "$T/cerr"; rc=$?
[ $rc = 1 ] || fail "check --sites on a leak: exit $rc: $(cat "$T/cerr")"
"$PY" - "$T/c.json" <<'PY' || fail "check --sites JSON: $(cat "$T/c.json")"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
assert t["outcome"] == "fail", t["outcome"]
s = t["sites"][0]
assert s["function"] == "leak_keep" and s["label"].startswith("leak_keep (sites_prog.c:"), s
lo, hi = s["ci95_low"], s["ci95_high"]
assert lo - (hi - lo) <= 4096 <= hi + (hi - lo), s
PY
grep -q 'growing at leak_keep (sites_prog.c:[0-9]*)' "$T/c.xml" ||
	fail "the JUnit message names no site: $(cat "$T/c.xml")"
"$MEMTREND" report "$T/c.db" > /dev/null 2>&1 || fail "report of check's file"
ok "check --sites names leak_keep: $(jget "$T/c.json" "d['targets'][0]['sites'][0]['label']")"

# --listen serves the largest sites' live bytes (memtrend_site_live_bytes,
# docs/openmetrics.md): the leak's line is there, named as the report
# names it, and rises between two scrapes; promtool reads the exposition.
# (-d 40s bounds it; stopped with TERM once checked)
"$MEMTREND" record -o "$T/l.db" -i 100ms -d 40s --sites --sites-rate 4KiB \
	--listen 127.0.0.1:0 -- "$SITES_PROG" 40 "$T/l.log" 1000 > /dev/null \
	2> "$T/lerr" &
L=$!
BG_PIDS="$BG_PIDS $L"
URL=$(listen_url "$T/lerr") || exit 1
leak_line() {
	curl -sf "$URL" | grep '^memtrend_site_live_bytes{.*site="leak_keep (sites_prog.c:[0-9]*)"}' |
		head -n 1 | sed 's/.* //'
}
i=0
until v1=$(leak_line) && [ -n "$v1" ] && [ "$v1" -gt 0 ]; do
	i=$((i + 1)); [ $i -gt 50 ] && fail "no leak_keep line: $(curl -s "$URL" | grep site_live)"
	sleep 0.1
done
sleep 1
v2=$(leak_line)
[ -n "$v2" ] && [ "$v2" -gt "$v1" ] || fail "leak_keep's live bytes did not rise: $v1 then $v2"
if command -v promtool > /dev/null; then
	curl -sf "$URL" > "$T/l.prom"
	promtool check metrics < "$T/l.prom" > "$T/l.check" 2>&1 ||
		fail "promtool: $(cat "$T/l.check")"
fi
# stopped once checked: the command ends on TERM, and record passes its
# status on (143: killed by TERM) or ends as planned (0)
kill -TERM $L
wait $L; rc=$?
[ $rc = 0 ] || [ $rc = 143 ] || fail "record --sites --listen exited $rc: $(cat "$T/lerr")"
ok "--listen: leak_keep's live bytes served, $v1 then $v2"

# --retain with --sites: the sites' rows older than the window go, but
# each site's row in force at the cut stays (docs/schema.md,
# "Retention"), so the report still reads every site, the leak first,
# its per-request slope inside its interval (x3) over the window.
timeout 60 "$MEMTREND" record -q -o "$T/ret.db" -i 100ms --retain 3s \
	--sites --sites-rate 4KiB --work-log "$T/ret.log" --match req \
	-- "$SITES_PROG" 8 "$T/ret.log" 1000 > /dev/null 2> "$T/err" ||
	fail "record --sites --retain: $(cat "$T/err")"
old=$(sql "$T/ret.db" "SELECT count(*) FROM site_sample s WHERE t < (SELECT max(t) FROM sample) - 4 AND EXISTS (SELECT 1 FROM site_sample l WHERE l.site_id = s.site_id AND l.t > s.t AND l.t < (SELECT max(t) FROM sample) - 4)")
[ "$old" = 0 ] || fail "--retain left $old superseded site rows before the window"
"$MEMTREND" report --json "$T/ret.db" > "$T/ret.json" || fail "report of --retain --sites"
R="d['targets'][0]['sites']['ranked'][0]"
[ "$(jget "$T/ret.json" "$R['frames'][0]['function']")" = leak_keep ] ||
	fail "--retain --sites: the first site is $(jget "$T/ret.json" "$R['frames'][0]['function']")"
lo=$(jget "$T/ret.json" "$R['per_request']['ci95_low']")
hi=$(jget "$T/ret.json" "$R['per_request']['ci95_high']")
# the window's requests: 3 s of 1,000 a second
within_widened 4096 "$lo" "$hi" ||
	fail "--retain --sites: 4096 B/req outside [$lo, $hi]"
ok "--retain --sites: superseded site rows trimmed, the leak still first"

