# report --prometheus against a real Prometheus (Debian's) on loopback,
# reading a TSDB backfilled with series of a known truth
# (tests/e2e/fleet_gen.py: growing at 20 MiB/h, steady, plateau, and a
# restart as two pods of one app); the same series written as CSV are
# reported too, and the two must agree: the same verdicts, slopes within
# 1 % (they are the same points, so in fact equal). With 1 target and
# with 50; --by app merges the restart's two pods into one target with
# two incarnations, as a CSV with two pids; --top, --json's labels and
# rank, the HTML overview; a label all targets share leaves the names; a
# step finer than the scrape interval is no more confident; a query that
# matches nothing, and a --by label no series has, exit 2.
. "$E2E_LIB"
need prometheus promtool
HERE=$(cd "$(dirname "$E2E_LIB")" && pwd)
STEP=60
POINTS=720   # 12 h at 1 min
# Backfilled blocks must lie in the past (older than the head's 3 h).
END=$(( $(date +%s) / STEP * STEP - 6 * 3600 ))
START=$(( END - (POINTS - 1) * STEP ))

PPORT=$(free_port)
printf 'global:\n  scrape_interval: 1m\n' > "$T/prometheus.yml"
mkdir -p "$T/csv1" "$T/csv50"
"$PY" "$HERE/fleet_gen.py" --targets 1 --points $POINTS --step $STEP --end $END \
	--metric one_memory_bytes --openmetrics "$T/one.om" --csv-dir "$T/csv1" ||
	fail "fleet_gen.py (1)"
"$PY" "$HERE/fleet_gen.py" --targets 50 --points $POINTS --step $STEP --end $END \
	--openmetrics "$T/fifty.om" --csv-dir "$T/csv50" || fail "fleet_gen.py (50)"
for f in one fifty; do
	promtool tsdb create-blocks-from openmetrics "$T/$f.om" "$T/prom" \
		> "$T/backfill-$f.txt" 2>&1 || fail "backfill $f: $(tail -5 "$T/backfill-$f.txt")"
done
bg prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
	--storage.tsdb.retention.time=3650d --web.listen-address="127.0.0.1:$PPORT" \
	--log.level=error
wait_port "$PPORT" 30
URL="http://127.0.0.1:$PPORT"
# Ready when the backfilled series answer.
i=0
until curl -sf "$URL/api/v1/series" --data-urlencode 'match[]=one_memory_bytes' \
	--data-urlencode "start=$START" --data-urlencode "end=$END" | grep -q host0; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "Prometheus does not serve the backfill"
	sleep 0.2
done
FR() { "$MEMTREND" report --prometheus "$URL" --start $START --end $END --step ${STEP}s \
	--limit 64GiB --no-color "$@"; }

# compare FLEET.json CSVDIR KEYLABEL: each fleet target against the CSV
# report of the same series (named by its KEYLABEL value): the same
# verdict and samples, slopes within 1 % (tests/e2e/fleet_compare.py,
# which the bench's fleet rows use at 10,000 series).
compare() {
	"$PY" "$HERE/fleet_compare.py" --fleet "$1" --csv-dir "$2" --key "$3" \
		--memtrend "$MEMTREND" -- --limit 64GiB || fail "fleet and CSV differ ($1)"
}

FR --query one_memory_bytes --json > "$T/one.json" 2> "$T/one.err" ||
	fail "report --prometheus (1 series): $(cat "$T/one.err")"
[ "$(jget "$T/one.json" 'len(d["targets"])')" = 1 ] || fail "1 series: $(head -c 300 "$T/one.json")"
[ "$(jget "$T/one.json" 'd["targets"][0]["verdict"]')" = growing ] || fail "1 series: not growing"
compare "$T/one.json" "$T/csv1" instance
ok "1 series: as its CSV (growing)"

# 50 targets, the restarts' pods each a target of their own: compare the
# 38 that are one series each (instance label); --parallel 3 and a small
# --max-response so that the listing is cut into several batches.
FR --query 'fleet_memory_bytes{instance!=""}' --json --parallel 3 --max-response 2MiB \
	> "$T/fifty.json" 2> "$T/fifty.err" || fail "50 series: $(cat "$T/fifty.err")"
[ "$(jget "$T/fifty.json" 'len(d["targets"])')" = 38 ] || fail "50: $(jget "$T/fifty.json" 'len(d["targets"])') targets"
compare "$T/fifty.json" "$T/csv50" instance
# The 13 shaped to grow at 20 MiB/h are growing (steady noise may show
# a slope too; the CSV said the same, above).
grown=$(jget "$T/fifty.json" 'sorted(set(t["verdict"] for t in d["targets"] if t["labels"]["shape"] == "grow"))')
[ "$grown" = "['growing']" ] || fail "50: the growing shapes are $grown"
counts=$(jget "$T/fifty.json" '"%(growing)d growing, %(plateau)d plateau, %(inconclusive)d inconclusive, %(stable)d stable" % d["verdict_counts"]')
# Worst first: growing ones first, and each carries its labels.
first=$(jget "$T/fifty.json" 'd["targets"][0]["verdict"], d["targets"][0]["rank"], d["targets"][0]["labels"]["__name__"]')
[ "$first" = "growing 1 fleet_memory_bytes" ] || fail "50: first target $first"
ok "38 series in batches: verdicts and slopes as their CSVs; ranked; labels in --json"

# An expression, not a selector: fetched whole, in time chunks.
FR --query 'max by (instance) (fleet_memory_bytes{instance!=""})' --json \
	> "$T/expr.json" 2> "$T/expr.err" || fail "expression: $(cat "$T/expr.err")"
[ "$(jget "$T/expr.json" 'len(d["targets"])')" = 38 ] || fail "expression: targets"
compare "$T/expr.json" "$T/csv50" instance
ok "an expression (max by (instance)): the same verdicts and slopes"

# --by app: the restart's two pods are one target with two incarnations.
FR --query 'fleet_memory_bytes{app!=""}' --by app --json > "$T/by.json" 2> "$T/by.err" ||
	fail "--by: $(cat "$T/by.err")"
[ "$(jget "$T/by.json" 'len(d["targets"])')" = 12 ] || fail "--by: $(jget "$T/by.json" 'len(d["targets"])') targets"
[ "$(jget "$T/by.json" 'set(len(t["incarnations"]) for t in d["targets"])')" = "{2}" ] ||
	fail "--by: incarnations $(jget "$T/by.json" '[len(t["incarnations"]) for t in d["targets"]]')"
compare "$T/by.json" "$T/csv50" app
# Series have no pids: restarts name the pods (their comm), never "pid -1".
[ "$(jget "$T/by.json" 'sorted(set((r["old_pid"], r["new_pid"], d["targets"][0]["incarnations"][r["new_incarnation"]]["comm"] is not None) for t in d["targets"][:1] for r in t["restarts"]))')" = "[(None, None, True)]" ] ||
	fail "--by: restart pids in --json: $(jget "$T/by.json" 'd["targets"][0]["restarts"]')"
FR --query 'fleet_memory_bytes{app!=""}' --by app --top 1 --html "$T/by.html" > "$T/by.txt" 2>&1 ||
	fail "--by (text): $(cat "$T/by.txt")"
! grep -q "pid -1" "$T/by.txt" "$T/by.html" || fail "--by: 'pid -1': $(grep "pid -1" "$T/by.txt" | head -3)"
grep -q "Footprint over time (the query&#39;s value)\|Footprint over time (the query's value)" "$T/by.html" ||
	fail "--by: the plot does not say what the footprint is"
grep -q '{pod="app[0-9]*-1"} -> {pod="app[0-9]*-2"}' "$T/by.txt" ||
	fail "--by: the restart does not name the pods: $(grep -i restart "$T/by.txt" | head -3)"
ok "--by app: each app one target, its two pods incarnations, as a CSV with two pids; restarts name the pods"

# Text with --top, and the HTML overview.
FR --query 'fleet_memory_bytes{instance!=""}' --top 3 > "$T/top.txt" 2>&1 || fail "--top: $(cat "$T/top.txt")"
grep -q "$counts" "$T/top.txt" || fail "--top: $(head -5 "$T/top.txt")"
FR --query 'fleet_memory_bytes{instance!=""}' --top 5 --html "$T/f.html" > /dev/null 2> "$T/html.err" ||
	fail "--html: $(cat "$T/html.err")"
[ "$(grep -c '<section class="target"' "$T/f.html")" = 5 ] || fail "--html: not 5 sections"
grep -q 'class="overview"' "$T/f.html" || fail "--html: no overview"
[ "$(grep -c '<svg' "$T/f.html")" -ge 10 ] || fail "--html: no plots"
ok "--top 3 in text; --html --top 5: an overview and 5 sections with plots"

# A label every target has (shape="grow" here) names none of them: it
# leaves the names, a note says which, and --json keeps it.
FR --query 'fleet_memory_bytes{shape="grow"}' > "$T/grow.txt" 2>&1 || fail "shared: $(cat "$T/grow.txt")"
grep -q 'every target has the labels {shape="grow"}: left out of the names' "$T/grow.txt" ||
	fail "shared: no note: $(head -8 "$T/grow.txt")"
grep -q 'instance="host[0-9]*"' "$T/grow.txt" || fail "shared: no instance in the names"
! grep -q 'instance="host[0-9]*",shape=' "$T/grow.txt" || fail "shared: shape still in the names"
FR --query 'fleet_memory_bytes{shape="grow"}' --json > "$T/grow.json" 2>/dev/null || fail "shared --json"
[ "$(jget "$T/grow.json" 'set(t["labels"]["shape"] for t in d["targets"])')" = "{'grow'}" ] ||
	fail "shared: --json lost the label"
ok "a label every target has: left out of the names, noted, kept in --json"

# A step finer than the scrape interval (15 s on 1-minute data) repeats
# every reading 4 times. Those are not new evidence: were they taken as
# independent, every interval would halve (4x the points); the
# correlation time absorbs the repeats instead, so no interval may
# shrink below 3/4 of its width at 60 s (measured here: 0.87 to 1.42),
# the growing ones still cover their true slope (fleet_gen.py: 20 MiB/h
# + i KiB/h), and no new target is called growing.
"$MEMTREND" report --prometheus "$URL" --start $START --end $END --step 15s --limit 64GiB \
	--query 'fleet_memory_bytes{instance!=""}' --json > "$T/fine.json" 2> "$T/fine.err" ||
	fail "--step 15s: $(cat "$T/fine.err")"
"$PY" - "$T/fifty.json" "$T/fine.json" <<'PYEOF' || fail "--step 15s: more confident than at the scrape interval"
import json, re, sys
a, b = ({t["name"]: t for t in json.load(open(p))["targets"]} for p in sys.argv[1:3])
assert a.keys() == b.keys(), (sorted(a), sorted(b))
def width(t):
    return t["slope"]["ci95_high"] - t["slope"]["ci95_low"]
bad = []
for name, t in a.items():
    u = b[name]
    if u["samples"] < 4 * t["samples"] - 4:
        bad.append("%s: %d readings at 15 s, %d at 60 s" % (name, u["samples"], t["samples"]))
    if width(u) < 0.75 * width(t):
        bad.append("%s: interval %.3fx as wide" % (name, width(u) / width(t)))
    if 'shape="grow"' in name:
        truth = 20 * 2**20 + int(re.search(r"host(\d+)", name).group(1)) * 1024
        if not u["slope"]["ci95_low"] <= truth <= u["slope"]["ci95_high"]:
            bad.append("%s: [%g, %g] misses %d B/h" % (name, u["slope"]["ci95_low"], u["slope"]["ci95_high"], truth))
    if u["verdict"] == "growing" and t["verdict"] != "growing":
        bad.append("%s: growing at 15 s, %s at 60 s" % (name, t["verdict"]))
print("\n".join(bad), file=sys.stderr)
sys.exit(len(bad) > 0)
PYEOF
ok "--step 15s on 1-minute data: readings repeat, no interval below 3/4, no new alarm"

# Nothing matches: exit 2, "no series".
FR --query 'no_such_metric_bytes' > /dev/null 2> "$T/none.err"; rc=$?
[ $rc = 2 ] || fail "no series: exit $rc"
grep -q "no series match" "$T/none.err" || fail "no series: $(cat "$T/none.err")"
# A PromQL error: Prometheus' message, exit 2.
FR --query 'rate(fleet_memory_bytes[' > /dev/null 2> "$T/bad.err"; rc=$?
[ $rc = 2 ] || fail "bad PromQL: exit $rc"
grep -q "Prometheus says (HTTP 400)" "$T/bad.err" || fail "bad PromQL: $(cat "$T/bad.err")"
# A --by label no series has (a typo) would merge the fleet into one
# target: exit 2, naming the labels there are.
FR --query 'fleet_memory_bytes' --by instanse > /dev/null 2> "$T/by.err"; rc=$?
[ $rc = 2 ] || fail "--by typo: exit $rc"
grep -q "no series of 'fleet_memory_bytes' has the label 'instanse' (its labels: .*instance" "$T/by.err" ||
	fail "--by typo: $(cat "$T/by.err")"
# The same for an expression, whose labels are what it keeps.
FR --query 'max by (instance) (fleet_memory_bytes)' --by app > /dev/null 2> "$T/byx.err"; rc=$?
[ $rc = 2 ] || fail "--by on an expression without the label: exit $rc: $(cat "$T/byx.err")"
grep -q "no series of 'max by (instance) (fleet_memory_bytes)' has the label 'app'" "$T/byx.err" ||
	fail "--by on an expression: $(cat "$T/byx.err")"
# A --work-query that matches nothing: asked for work, it gets none.
FR --query one_memory_bytes --work-query 'no_such_requests_total' > /dev/null 2> "$T/work.err"; rc=$?
[ $rc = 2 ] || fail "--work-query matching nothing: exit $rc: $(cat "$T/work.err")"
grep -q "work-query: no series match 'no_such_requests_total'" "$T/work.err" ||
	fail "--work-query matching nothing: $(cat "$T/work.err")"
ok "no series, a PromQL error, a --by typo (selector, expression), a --work-query matching nothing: exit 2 with a message"

# A password in the URL (issue 31, point 7) is never printed: not in the
# text heading, the JSON source, the HTML page nor a 404's error; a
# warning points at --auth-file. (Prometheus here has no auth: the
# userinfo is accepted and ignored.)
SECRET_URL=$(echo "$URL" | sed 's#://#://alice:s3cret-pw@#')
"$MEMTREND" report --prometheus "$SECRET_URL" --start $START --end $END --step ${STEP}s \
	--limit 64GiB --no-color --query one_memory_bytes > "$T/sec.txt" 2> "$T/sec.err" ||
	fail "a URL with userinfo: $(cat "$T/sec.err")"
"$MEMTREND" report --prometheus "$SECRET_URL" --start $START --end $END --step ${STEP}s \
	--limit 64GiB --query one_memory_bytes --json > "$T/sec.json" 2>> "$T/sec.err" ||
	fail "a URL with userinfo, JSON: $(cat "$T/sec.err")"
"$MEMTREND" report --prometheus "$SECRET_URL" --start $START --end $END --step ${STEP}s \
	--limit 64GiB --query one_memory_bytes --html "$T/sec.html" > /dev/null 2>> "$T/sec.err" ||
	fail "a URL with userinfo, HTML: $(cat "$T/sec.err")"
"$MEMTREND" report --prometheus "$SECRET_URL/nothing-here" --start $START --end $END \
	--step ${STEP}s --query one_memory_bytes > /dev/null 2>> "$T/sec.err"
if grep -l "s3cret-pw" "$T/sec.txt" "$T/sec.json" "$T/sec.html" "$T/sec.err"; then
	fail "the URL's password was printed"
fi
grep -q "alice:\*\*\*@" "$T/sec.txt" || fail "the heading does not show the redacted URL: $(head -2 "$T/sec.txt")"
grep -q "HTTP 404 from .*alice:\*\*\*@" "$T/sec.err" || fail "the 404: $(cat "$T/sec.err")"
grep -q "auth-file" "$T/sec.err" || fail "no word of --auth-file: $(cat "$T/sec.err")"
ok "a password in the --prometheus URL: never printed (text, JSON, HTML, a 404), --auth-file advised"
