# `report --html`, checked in a real browser (headless Chromium): the page
# a person sees, after its scripts ran.
#  1. A recording of a real process that restarts, with a work counter and
#     a gauge, whose command line carries XSS payloads (a <script> tag and
#     an attribute breakout into <img onerror>), whose comm holds HTML
#     characters and whose arguments hold invalid UTF-8 and an escape
#     sequence; --cap with a name in HTML. The DOM must hold the payloads
#     as text only (no element of theirs, no mark from their onerror), the
#     plots and their parts, and no script error or CSP violation.
#  2. The idle-windows CSV (requests, connections), copied under a file
#     name with HTML in it and given a gauge column named in HTML: shaded
#     idle windows as many as --json lists, work panels, per-request plot.
#  3. Controls that the detectors work: the payload pasted raw into a
#     report must be stopped by the page's CSP (violation recorded, no
#     mark); without the CSP the same paste leaves the mark.
#  4. Output rules: --html - (stdout), --html - with --json (usage error),
#     an unwritable path (run-time error, nothing left behind).
#  5. Size: 10^6 samples (bench_synth) render under 2 MB, each line within
#     its pixel bound, in bounded time.
# Screenshots (1280x2000) are kept in BUILD/meson-logs/report_html/.
. "$E2E_LIB"
CHROME=""
for c in chromium chromium-browser; do
	if command -v "$c" >/dev/null 2>&1; then CHROME=$(command -v "$c"); break; fi
done
[ -n "$CHROME" ] || { echo "skip: chromium not installed (scripts/install-deps.sh installs it)"; exit 77; }
HERE=$(cd "$(dirname "$E2E_LIB")" && pwd)
CHECK="$HERE/../helpers/html_check.py"
BUILD=$(cd "$(dirname "$MEMTREND")" && pwd)
ART="$BUILD/meson-logs/report_html"
mkdir -p "$ART" 2>/dev/null || ART="$T"

# browser NAME ARGS...: one headless run with a fresh profile, bounded.
browser() {
	local name=$1; shift
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update \
		--disable-sync --disable-default-apps --disable-extensions \
		--mute-audio --hide-scrollbars --user-data-dir="$T/profile-$name" \
		"$@" 2>>"$T/chromium.log"
}
# dom NAME PAGE: the DOM after load, and its facts (NAME.json).
dom() {
	browser "$1" --dump-dom "file://$2" > "$T/$1.dom" \
		|| { tail -5 "$T/chromium.log"; fail "$1: chromium --dump-dom exited"; }
	"$PY" "$CHECK" "$T/$1.dom" > "$T/$1.json" || fail "$1: cannot read its DOM"
}
# shot NAME PAGE: a 1280x2000 screenshot, kept.
shot() {
	browser "$1-shot" --window-size=1280,2000 --screenshot="$T/$1.png" \
		"file://$2" >/dev/null 2>&1 || fail "$1: chromium --screenshot exited"
	[ -s "$T/$1.png" ] || fail "$1: no screenshot"
	cp "$T/$1.png" "$ART/$1.png"
	echo "screenshot: $ART/$1.png"
}
# q NAME EXPR: a python expression on NAME's facts (d).
q() { jget "$T/$1.json" "$2"; }
# page_ok NAME: scripts ran to the end, no error, nothing blocked or pwned.
page_ok() {
	local a
	a=$(q "$1" 'd["html_attrs"]')
	[ "$(q "$1" 'd["html_attrs"].get("data-js-ready")')" = 1 ] || fail "$1: script did not finish: $a"
	[ "$(q "$1" 'd["html_attrs"].get("data-js-errors")')" = 0 ] || fail "$1: script errors: $a"
	[ "$(q "$1" '"data-csp-violations" in d["html_attrs"]')" = False ] || fail "$1: CSP violations: $a"
	[ "$(q "$1" '"data-pwned" in d["html_attrs"]')" = False ] || fail "$1: the XSS payload ran: $a"
	[ "$(q "$1" 'd["tags"].get("script", 0)')" = 2 ] || fail "$1: scripts other than the page's two"
	[ "$(q "$1" 'd["tags"].get("img", 0)')" = 0 ] || fail "$1: an <img> element: injected markup"
	# Every line within its bound: 4 points per pixel column (876 columns).
	[ "$(q "$1" 'max([p["points"] for p in d["polylines"]] or [0]) <= 4 * 877')" = True ] \
		|| fail "$1: a polyline over its pixel bound"
}

# ---- 1. a real process with payloads in its command line -----------------
XSS1='<script>alert(1)</script>'
XSS2="\"><img src=x onerror=document.documentElement.setAttribute('data-pwned','1')>"
BAD=$'bad\xff\x1b[31m'
LINK="$T/<i>g&\"'x"   # comm: <i>g&"'x
ln -s "$GROWER" "$LINK"
TAG="e2e-html-$$"
timeout 30 "$MEMTREND" record -q -o "$T/run.db" --name "$TAG" -i 0.1s -d 6s \
	--work-cmd 'date +%s' --gauge 'cache=echo 7' &
REC=$!; BG_PIDS="$BG_PIDS $REC"
sleep 0.5
bg "$LINK" --base 4 --grow 64 --every 100 --tag "$TAG" --tag "$XSS1" --tag "$XSS2" \
	--tag "$BAD" --ready "$T/r1" --exit-after 2
P1=$LAST_BG
wait_for "$T/r1" 10
wait "$P1" 2>/dev/null
bg "$LINK" --base 8 --grow 64 --every 100 --tag "$TAG" --tag "$XSS1" --tag "$XSS2" \
	--ready "$T/r2" --exit-after 30
wait_for "$T/r2" 10
wait "$REC" || fail "record exited $?"
"$MEMTREND" report "$T/run.db" --cap 'pool<b>=64MiB' --html "$T/rec.html" > "$T/rec.txt" \
	|| fail "report --html exited $?"
grep -q "verdict" "$T/rec.txt" || fail "--html should leave the text report on stdout"
dom rec "$T/rec.html"
page_ok rec
[ "$(q rec 'd["classes"].get("svg.plot")')" = 5 ] || fail "rec: plots: $(q rec 'd["classes"]')"
for k in fig-footprint fig-work fig-per-request fig-components fig-gauges; do
	[ "$(q rec "d['classes'].get('figure.$k', 0)")" = 1 ] || fail "rec: no $k"
done
[ "$(q rec 'd["classes"].get("line.restart", 0) >= 1')" = True ] || fail "rec: no restart marked"
[ "$(q rec 'd["classes"].get("polygon.band", 0) >= 1 and d["classes"].get("line.slope", 0) >= 1')" = True ] \
	|| fail "rec: no slope line and band"
[ "$(q rec 'd["classes"].get("table.restarts", 0)')" = 1 ] || fail "rec: no restarts table"
[ "$(q rec 'sorted(set(p["k"] for p in d["polylines"]))')" = "['cache', 'footprint', 'requests', 'total']" ] \
	|| fail "rec: series drawn: $(q rec 'sorted(set(p["k"] for p in d["polylines"]))')"
# The payloads are text, exactly as the process wrote them.
"$PY" - "$T/rec.json" "$XSS1" "$XSS2" <<'PYEOF' || fail "rec: payloads not shown as text"
import json, sys
d = json.load(open(sys.argv[1]))
cmd = d["texts"].get("code.cmdline", [])
assert len(cmd) == 2, cmd
for c in cmd:
    assert sys.argv[2] in c and sys.argv[3] in c, c
assert "bad\ufffd\\x1b[31m" in cmd[0], cmd[0]          # invalid UTF-8, ESC
assert d["texts"]["code.comm"] == ['<i>g&"\'x'] * 2, d["texts"]["code.comm"]
assert any("pool<b> 64 MiB" in t for t in d["texts"].get("text.lbl", [])), \
    d["texts"].get("text.lbl")
assert "b" not in d["tags"] and "i" not in d["tags"], d["tags"]
PYEOF
shot rec "$T/rec.html"
ok "recording: 5 plots, restart, slope band, payloads inert and shown as text"

# ---- 2. the idle-windows CSV under a file name with HTML in it -------------
CSV="$T/idle<b>&'.csv"
"$PY" - "$FIXTURES/csv/idle-windows.csv" "$CSV" <<'PYEOF'
import sys
rows = open(sys.argv[1]).read().splitlines()
with open(sys.argv[2], "w") as f:
    f.write(rows[0] + ',"cache<b>&""x"\n')
    for i, r in enumerate(rows[1:]):
        f.write("%s,%d\n" % (r, 1000 + 3 * i))
PYEOF
"$MEMTREND" report "$CSV" --json > "$T/idle.rep.json" || fail "csv --json exited $?"
windows=$(jget "$T/idle.rep.json" 'len(d["targets"][0]["idle_windows"])')
[ "$windows" -ge 1 ] || fail "the fixture should have idle windows"
"$MEMTREND" report "$CSV" --json --html "$T/idle.html" > "$T/idle.rep2.json" \
	|| fail "csv --html exited $?"
cmp -s "$T/idle.rep.json" "$T/idle.rep2.json" || fail "--html changed the JSON on stdout"
dom idle "$T/idle.html"
page_ok idle
[ "$(q idle 'd["classes"].get("svg.plot")')" = 4 ] || fail "idle: plots: $(q idle 'd["classes"]')"
[ "$(q idle 'd["idle_rects"][0]')" = "$windows" ] \
	|| fail "idle: $(q idle 'd["idle_rects"]') shaded windows, --json lists $windows"
[ "$(q idle 'd["idle_rects"][1]')" -ge "$windows" ] || fail "idle: the work panel is not shaded"
[ "$(q idle 'sorted(set(p["k"] for p in d["polylines"]))')" = "['cache<b>&\"x', 'connections', 'footprint', 'requests']" ] \
	|| fail "idle: series drawn: $(q idle 'sorted(set(p["k"] for p in d["polylines"]))')"
"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["texts"]["code.source"] == [sys.argv[2]], d["texts"]["code.source"]
assert d["texts"]["title"][0] == "memtrend report: " + sys.argv[2], d["texts"]["title"]
assert "b" not in d["tags"], d["tags"]' "$T/idle.json" "$CSV" \
	|| fail "idle: the source file name is not shown as text"
[ "$(q idle 'd["classes"].get("table.idle-windows", 0)')" = 1 ] || fail "idle: no idle-window table"
# Readable ticks: the fixture's 512-885 MiB over 02:00-04:00 UTC gives
# 50 MiB and 15 min steps.
"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
ticks = set(d["texts"]["text.tick"])
want = {"%d MiB" % m for m in range(500, 901, 50)} | {"02:00", "02:15", "02:30", "03:00", "04:00"}
assert want <= ticks, sorted(want - ticks)' "$T/idle.json" || fail "idle: axis ticks"
[ "$(q idle 'd["classes"].get("polygon.band", 0) >= 2')" = True ] || fail "idle: slope bands (time, per request)"
shot idle "$T/idle.html"
ok "CSV: $windows idle windows shaded, work panels, per-request plot, name escaped"

# ---- 3. controls: the detectors see a payload that does run -------------
# Pasted raw (no escaping) into the page: the CSP must stop it ...
sed "s|</main>|$XSS2</main>|" "$T/rec.html" > "$T/raw.html"
grep -q '<img src=x' "$T/raw.html" || fail "control: paste failed"
dom raw "$T/raw.html"
[ "$(q raw '"data-pwned" in d["html_attrs"]')" = False ] || fail "control: the CSP let an injected handler run"
[ "$(q raw 'int(d["html_attrs"].get("data-csp-violations", 0)) >= 1')" = True ] \
	|| fail "control: no CSP violation recorded for the injected tag: $(q raw 'd["html_attrs"]')"
# ... and without the CSP the same paste runs: the mark is a live detector.
grep -v 'Content-Security-Policy' "$T/raw.html" > "$T/nocsp.html"
dom nocsp "$T/nocsp.html"
[ "$(q nocsp 'd["html_attrs"].get("data-pwned")')" = 1 ] || fail "control: the mark does not show a payload that ran"
ok "controls: an injected handler is blocked by the CSP (and would be seen)"

# ---- 4. output rules -------------------------------------------------------
"$MEMTREND" report "$CSV" --html - > "$T/stdout.html" || fail "--html - exited $?"
head -c 15 "$T/stdout.html" | grep -q '<!DOCTYPE html>' || fail "--html - should write the page to stdout"
"$MEMTREND" report "$CSV" --html - --json > /dev/null 2>&1; rc=$?
[ $rc = 2 ] || fail "--html - --json exited $rc, expected 2"
mkdir "$T/ro"; chmod 555 "$T/ro"
if [ ! -w "$T/ro" ]; then   # root writes anywhere: then this check says nothing
	"$MEMTREND" report "$CSV" --html "$T/ro/x.html" > /dev/null 2>&1; rc=$?
	[ $rc = 3 ] || fail "unwritable --html exited $rc, expected 3"
fi
"$MEMTREND" report "$CSV" --html "$T/nodir/x.html" > /dev/null 2>&1; rc=$?
[ $rc = 3 ] || fail "--html into a missing directory exited $rc, expected 3"
[ -z "$(ls "$T" | grep '\.tmp\.')" ] || fail "a temporary file was left behind: $(ls "$T")"
# A source name with a control byte, invalid UTF-8 and a noncharacter:
# shown as \x01, U+FFFD, U+FFFD; the page stays valid UTF-8.
ODD="$T/odd"$'\x01\xff\xef\xbf\xbe'".csv"
cp "$FIXTURES/csv/three_flat.csv" "$ODD"
"$MEMTREND" report "$ODD" --html - > "$T/odd.html" || fail "odd name: exit $?"
"$PY" -c 'import sys
b = open(sys.argv[1], "rb").read()
t = b.decode("utf-8")                       # strict: raises on bad bytes
assert "odd\\x01\ufffd\ufffd.csv" in t, [l for l in t.splitlines() if "odd" in l][:2]' "$T/odd.html" \
	|| fail "odd name: not escaped to valid UTF-8"
ok "output rules: stdout, --json conflict, unwritable path"

# ---- 5. size and time at 10^6 samples -------------------------------------
SYNTH="$BUILD/bench/bench_synth"
if [ -x "$SYNTH" ]; then
	"$SYNTH" -n 1000000 -o "$T/big.db" > /dev/null || fail "bench_synth exited $?"
	BIG="$T/big.db"
else
	echo "note: $SYNTH not built; a CSV of 10^6 samples instead"
	"$PY" -c 'import sys
with open(sys.argv[1], "w") as f:
    f.write("time,footprint\n")
    for i in range(1000000):
        f.write("%d,%d\n" % (1700000000 + i, 1073741824 + 3 * i + (i * 7919) % 65536))' "$T/big.csv"
	BIG="$T/big.csv"
fi
t0=$(date +%s.%N)
"$MEMTREND" report "$BIG" --html "$T/big.html" > /dev/null || fail "10^6: report --html exited $?"
t1=$(date +%s.%N)
secs=$("$PY" -c 'import sys; print("%.2f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$t0" "$t1")
size=$(stat -c %s "$T/big.html")
echo "10^6 samples: $size bytes in $secs s"
[ "$size" -lt 2000000 ] || fail "10^6 samples: $size bytes, over 2 MB"
limit=60; [ -n "${SANITIZED:-}" ] && limit=150
within "$secs" 0 "$limit" || fail "10^6 samples: $secs s, over $limit s"
# The file as written (a browser run more would only repeat part 1's).
"$PY" "$CHECK" "$T/big.html" > "$T/big.json" || fail "10^6: cannot parse the page"
[ "$(q big 'd["classes"].get("svg.plot", 0) >= 1')" = True ] || fail "10^6: plots: $(q big 'd["classes"]')"
[ "$(q big 'max(p["points"] for p in d["polylines"]) <= 4 * 877')" = True ] \
	|| fail "10^6: a polyline over its pixel bound"
[ "$(q big 'sum(p["points"] for p in d["polylines"] if p["k"] == "footprint") <= 4 * 877')" = True ] \
	|| fail "10^6: footprint line over its bound"
ok "10^6 samples: $size bytes (< 2 MB) in $secs s"
