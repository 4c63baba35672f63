# `report` with several targets: ranked worst first (growing by earliest
# exhaustion, plateau, inconclusive, stable), an overview in the text and
# the HTML page, --top N, and every target in the JSON with its rank.
#  1. The golden demo recording (tests/golden/demo.db: demo-leak growing,
#     demo-cache plateau, demo-steady stable): the order, the counts per
#     verdict, --top 1 in text, HTML and JSON (which keeps all three), the
#     overview's links to the sections, bad --top values, and a single
#     target (a CSV) that gets no overview.
#  2. Three real processes: one growing 256 KiB every 100 ms, one 32 KiB
#     every 100 ms (both reach the --limit, the first one sooner) and a
#     steady one whose name (comm) holds HTML and an escape byte. The
#     fast one must rank first, the steady one last; its name escaped in
#     the text and the page.
. "$E2E_LIB"
DEMO="$FIXTURES/../golden/demo.db"
[ -r "$DEMO" ] || fail "no $DEMO"
R() { "$MEMTREND" report "$@" --limit 64GiB --no-color; }

# html_facts PAGE: the overview's rows (rank, href, name, verdict, has a
# sparkline), the sections' ids and names in page order, and whether a
# sparkline carries the readout's data-xk, as JSON.
html_facts() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.rows=[]; s.sections=[]; s.row=None; s.cell=0
        s.in_a=False; s.in_h2=None; s.spark_xk=False; s.overview=False
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "section" and a.get("class") == "overview": s.overview = True
        if tag == "section" and a.get("class") == "target":
            s.sections.append({"id": a.get("id"), "name": ""}); s.in_h2 = False
        if tag == "h2" and s.in_h2 is False: s.in_h2 = True
        if tag == "span" and s.in_h2: s.in_h2 = None
        if tag == "tr" and "data-verdict" in a:
            s.row = {"verdict": a["data-verdict"], "rank": "", "href": None,
                     "name": "", "spark": False}; s.cell = 0
        if s.row is not None and tag == "td": s.cell += 1
        if s.row is not None and tag == "a": s.row["href"] = a.get("href"); s.in_a = True
        if tag == "svg" and a.get("class") == "spark":
            if s.row is not None: s.row["spark"] = True
            if "data-xk" in a: s.spark_xk = True
    def handle_endtag(s, tag):
        if tag == "a": s.in_a = False
        if tag == "tr" and s.row is not None: s.rows.append(s.row); s.row = None
        if tag == "h2" and s.in_h2: s.in_h2 = None
    def handle_data(s, d):
        if s.row is not None and s.cell == 1: s.row["rank"] += d
        if s.row is not None and s.in_a: s.row["name"] += d
        if s.in_h2: s.sections[-1]["name"] += d
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
print(json.dumps({"overview": p.overview, "rows": p.rows,
                  "sections": [{"id": x["id"], "name": x["name"].strip()} for x in p.sections],
                  "spark_xk": p.spark_xk}))
PYEOF
}

# ---- 1. the demo recording ---------------------------------------------
R "$DEMO" > "$T/demo.txt" || fail "demo text: exit $?"
grep -qx "verdicts    1 growing, 1 plateau, 0 inconclusive, 1 stable" "$T/demo.txt" \
	|| { cat "$T/demo.txt"; fail "demo: verdict counts"; }
# The overview's rows: rank, verdict, ..., name last.
rows=$(awk '/^rank  verdict/ {on=1; next} on && /^ +[0-9]+  / {print $1, $2, $NF} on && /^$/ {exit}' "$T/demo.txt" | tr '\n' ';')
[ "$rows" = "1 growing demo-leak;2 plateau demo-cache;3 stable demo-steady;" ] \
	|| { cat "$T/demo.txt"; fail "demo overview rows: $rows"; }
grep -q "^   1  growing .* in 2.5 d .*demo-leak$" "$T/demo.txt" || fail "demo: exhaustion in the overview"
secs=$(grep -E '^demo-' "$T/demo.txt" | tr '\n' ' ')
[ "$secs" = "demo-leak demo-cache demo-steady " ] || fail "demo sections: $secs"
# --top 1: one row, one section, and says so.
R "$DEMO" --top 1 > "$T/top1.txt" || fail "top 1: exit $?"
grep -q "^shown       1 of 3 targets" "$T/top1.txt" || { cat "$T/top1.txt"; fail "top 1: 'shown'"; }
grep -q "^  \.\.\. 2 more$" "$T/top1.txt" || fail "top 1: '... 2 more'"
secs=$(grep -E '^demo-' "$T/top1.txt" | tr '\n' ' ')
[ "$secs" = "demo-leak " ] || fail "top 1 sections: $secs"
[ "$(grep -c '^ *[0-9]  [a-z]* ' "$T/top1.txt")" = 1 ] || fail "top 1: overview rows"
# --top larger than the targets: all, no 'shown' line.
R "$DEMO" --top 10 > "$T/top10.txt" || fail "top 10: exit $?"
cmp -s "$T/demo.txt" "$T/top10.txt" || fail "--top 10 differs from no --top"
# JSON: every target whatever --top, in rank order, with rank and counts.
R "$DEMO" --json --top 1 > "$T/demo.json" || fail "demo json: exit $?"
got=$(jget "$T/demo.json" '";".join("%d %s %s" % (t["rank"], t["name"], t["verdict"]) for t in d["targets"])')
[ "$got" = "1 demo-leak growing;2 demo-cache plateau;3 demo-steady stable" ] || fail "demo json: $got"
got=$(jget "$T/demo.json" 'sorted(d["verdict_counts"].items())')
[ "$got" = "[('growing', 1), ('inconclusive', 0), ('plateau', 1), ('stable', 1)]" ] || fail "verdict_counts: $got"
# HTML: the overview links to each section, in rank order; sparklines
# without the readout's attributes.
R "$DEMO" --html "$T/demo.html" > /dev/null || fail "demo html: exit $?"
html_facts "$T/demo.html" > "$T/demo-html.json" || fail "cannot read the page"
got=$(jget "$T/demo-html.json" '";".join("%s %s %s %s %s" % (r["rank"], r["href"], r["name"], r["verdict"], r["spark"]) for r in d["rows"])')
[ "$got" = "1 #t0 demo-leak growing True;2 #t1 demo-cache plateau True;3 #t2 demo-steady stable True" ] \
	|| fail "html overview: $got"
got=$(jget "$T/demo-html.json" '";".join("%s %s" % (s["id"], s["name"]) for s in d["sections"])')
[ "$got" = "t0 demo-leak;t1 demo-cache;t2 demo-steady" ] || fail "html sections: $got"
[ "$(jget "$T/demo-html.json" 'd["spark_xk"]')" = False ] || fail "a sparkline has data-xk"
grep -q "<a href=\"#t2\">demo-steady</a>" "$T/demo.html" || fail "html: link to #t2"
R "$DEMO" --top 2 --html "$T/top2.html" > /dev/null || fail "top 2 html: exit $?"
html_facts "$T/top2.html" > "$T/top2-html.json"
got=$(jget "$T/top2-html.json" '"%d rows, sections %s" % (len(d["rows"]), [s["name"] for s in d["sections"]])')
[ "$got" = "2 rows, sections ['demo-leak', 'demo-cache']" ] || fail "top 2 html: $got"
grep -q "The worst 2 of 3 targets are shown" "$T/top2.html" || fail "top 2 html: says so"
# Bad values: usage errors.
for v in 0 -1 x 3x ""; do
	"$MEMTREND" report "$DEMO" --top "$v" > /dev/null 2>"$T/err"
	rc=$?
	[ $rc = 2 ] || fail "--top '$v': exit $rc, expected 2"
done
grep -q "not a positive count" "$T/err" || fail "--top error message"
# One target: no overview; its JSON still has rank 1.
printf 'time,footprint\n1000,100MiB\n1010,101MiB\n1020,102MiB\n1030,103MiB\n' > "$T/one.csv"
R "$T/one.csv" > "$T/one.txt" || fail "one: exit $?"
grep -q "^rank  verdict\|^verdicts " "$T/one.txt" && fail "one target: an overview"
R "$T/one.csv" --html "$T/one.html" > /dev/null || fail "one html: exit $?"
grep -q 'class="overview"' "$T/one.html" && fail "one target: an HTML overview"
R "$T/one.csv" --json > "$T/one.json"
[ "$(jget "$T/one.json" 'd["targets"][0]["rank"]')" = 1 ] || fail "one: rank"
ok "demo recording: ranked, --top, JSON ranks and counts, HTML overview links"

# ---- 2. three real processes -------------------------------------------
# A copy of grower whose comm holds HTML and an escape byte.
ODD="$T/<b>&"$'\033'"x"
cp "$GROWER" "$ODD" || fail "cannot copy grower"
bg "$GROWER" --base 8 --grow 256 --every 100 --ready "$T/r1" --exit-after 40
FAST=$LAST_BG
bg "$GROWER" --base 8 --grow 32 --every 100 --ready "$T/r2" --exit-after 40
SLOW=$LAST_BG
bg "$ODD" --base 8 --ready "$T/r3" --exit-after 40
STEADY=$LAST_BG
wait_for "$T/r1" 10; wait_for "$T/r2" 10; wait_for "$T/r3" 10
# Given steady first: the order must come from the ranking.
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$STEADY" -p "$SLOW" -p "$FAST" \
	--interval 0.2s --duration 6s || fail "record exited $?"
R "$T/run.db" --json > "$T/run.json" || fail "run json: exit $?"
got=$(jget "$T/run.json" '" ".join("%s:%s" % (t["pids"][0], t["verdict"]) for t in d["targets"])')
echo "ranked: $got (fast $FAST, slow $SLOW, steady $STEADY)"
set -- $got
[ "$1" = "$FAST:growing" ] || fail "rank 1: $1, expected $FAST:growing"
[ "$2" = "$SLOW:growing" ] || fail "rank 2: $2, expected $SLOW:growing"
case $3 in "$STEADY:growing") fail "rank 3: steady is growing";; "$STEADY:"*) ;; *) fail "rank 3: $3";; esac
got=$(jget "$T/run.json" 'd["targets"][0]["exhaustion"]["eta_s"] < d["targets"][1]["exhaustion"]["eta_s"]')
[ "$got" = True ] || fail "the first runs out later than the second"
R "$T/run.db" > "$T/run.txt" || fail "run text: exit $?"
grep -q $'\033' "$T/run.txt" && fail "text: a raw escape byte"
grep -q '^   3  .*  <b>&\\x1bx$' "$T/run.txt" || { cat "$T/run.txt"; fail "text: the odd name escaped, last"; }
# Two targets named "grower": the overview tells them apart by pid.
grep -q "^   1  growing .* in [0-9.]* [a-z]* *grower \[pid $FAST\]$" "$T/run.txt" || { cat "$T/run.txt"; fail "text: row 1"; }
grep -q "^   2  growing .* grower \[pid $SLOW\]$" "$T/run.txt" || fail "text: row 2 without its pid"
R "$T/run.db" --html "$T/run.html" > /dev/null || fail "run html: exit $?"
grep -q '<b>&' "$T/run.html" && fail "html: the odd name unescaped"
grep -q '&lt;b&gt;&amp;' "$T/run.html" || fail "html: the odd name escaped"
html_facts "$T/run.html" > "$T/run-html.json"
got=$(jget "$T/run-html.json" '[r["href"] for r in d["rows"]] == ["#" + s["id"] for s in d["sections"]]')
[ "$got" = True ] || fail "html: overview links in section order"
ok "real processes ranked: fast $FAST, slow $SLOW, steady $STEADY last; names escaped"
