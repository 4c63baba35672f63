# record --retain: a rolling window. Ten series (a grower, its eight
# children, their sum) sampled every 10 ms for 20 s with --retain 5s: the
# file holds about the last 5 s, and its size stops growing once the
# window is full. Without retention the recording would hold 20 s of rows,
# four times the window.
#
# Bounds (measured on the project's 2-core machines, with slack):
# - span: the newest sample minus the oldest stays under 5 s + 2.5 s.
#   Rows are deleted at each commit (1 s) and a run of equal samples that
#   straddles the cut is kept whole (it spans at most a commit interval).
# - plateau: the database's pages (PRAGMA page_count, what a reader sees
#   with the WAL: the logical size) at 20 s are at most 1.3 x those at
#   10 s, when the window is full (without retention: about 2 x). The WAL
#   is bounded separately by SQLite's autocheckpoint (1000 pages).
# - the report reads the retained file, its window starting at the cut,
#   and says so in a note.
. "$E2E_LIB"
bg "$GROWER" --base 4 --grow 4 --every 10 --children 8 --ready "$T/ready" --exit-after 60
G=$LAST_BG
wait_for "$T/ready" 10
sleep 0.3
timeout 60 "$MEMTREND" record -q -o "$T/run.db" -p "$G" --children -i 10ms \
	--retain 5s -d 20s &
R=$!
BG_PIDS="$BG_PIDS $R"
pages=()
spans=()
for s in $(seq 1 19); do
	sleep 1
	p=$(sql "$T/run.db" "PRAGMA page_count" 2>/dev/null) || p=0
	sp=$(sql "$T/run.db" "SELECT max(coalesce(t_last, t)) - min(t) FROM sample" 2>/dev/null) || sp=0
	pages+=("${p:-0}")
	spans+=("${sp:-0}")
done
wait $R || fail "record exited $?"
echo "pages by second: ${pages[*]}"
echo "span by second: ${spans[*]}"
for sp in "${spans[@]}"; do
	within "${sp:-0}" 0 7.5 || fail "newest - oldest = $sp s, over 5 s + 2.5 s"
done
p10=${pages[9]} p19=${pages[18]}
[ "$p10" -gt 0 ] || fail "no pages at 10 s"
within "$p19" 0 "$((p10 * 13 / 10))" || fail "pages at 19 s $p19 > 1.3 x pages at 10 s $p10: not bounded"
# After the recorder ended (the WAL folded back): the same window.
span=$(sql "$T/run.db" "SELECT max(coalesce(t_last, t)) - min(t) FROM sample")
within "$span" 4 7.5 || fail "final span $span s"
n=$(nsamples "$T/run.db")
bytes=$(stat -c %s "$T/run.db")
[ "$(sql "$T/run.db" "PRAGMA auto_vacuum")" = 2 ] || fail "new file not auto_vacuum=INCREMENTAL"
[ "$(sql "$T/run.db" "SELECT value FROM meta WHERE key = 'retain_s'")" = 5 ] || fail "meta.retain_s"
# Every incarnation stays, with samples or not.
inc=$(sql "$T/run.db" "SELECT count(*) FROM incarnation")
[ "$inc" -ge 10 ] || fail "$inc incarnations, expected 10"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
first=$(jget "$T/r.json" 'd["targets"][0]["samples"]')
[ "$first" -ge 100 ] || fail "report: $first samples in the window"
grep -q "recorded with --retain 5 s" "$T/r.json" || fail "report: no note of the window"
ok "--retain 5s over 20 s at 10 ms: span <= 7.5 s throughout, pages $p10 at 10 s -> $p19 at 19 s, final $bytes bytes, $n samples"
