# RSS and file pages beside the footprint (issue 28, item 9): a process
# holding 8 MiB of anonymous memory and 16 MiB of a mapped file is
# recorded; the report's JSON `resident` and its text `rss` line give what
# /proc/PID/status says (VmRSS, RssAnon, RssFile, RssShmem) at the same
# moment, and the footprint leaves the file pages out.
#
# Tolerance: the helper touches nothing after its setup, so its figures do
# not move; /proc/PID/status is read just before and just after the
# recording stops, and both readings must agree with each other (else the
# process moved and the test says so) and with the JSON within 16 pages
# (64 KiB): the kernel counts a process's pages in per-CPU counters that
# /proc reads without summing exactly, and the last sample is up to one
# interval older than the stop. A unit error (KiB for bytes), a figure from
# the wrong field or the wrong process is off by megabytes.
. "$E2E_LIB"
head -c $((16 * 1048576)) /dev/urandom > "$T/data"
bg "$GROWER" --base 8 --map "$T/data" --ready "$T/ready" --exit-after 30
P=$LAST_BG
wait_for "$T/ready" 10
bg "$MEMTREND" record -q -o "$T/r.db" -p "$P" -i 100ms --commit-interval 100ms 2> "$T/err"
REC=$LAST_BG
i=0
# read-only: sqlite3 must not create the file before memtrend does
until [ "$(sqlite3 "file:$T/r.db?mode=ro" "SELECT coalesce(sum(coalesce(repeats, 1)), 0) >= 10 FROM sample" 2>/dev/null)" = 1 ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no samples after 10 s: $(cat "$T/err")"
	kill -0 $REC 2>/dev/null || fail "record ended early: $(cat "$T/err")"
	sleep 0.1
done
status() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' "/proc/$P/status"; }
before="$(status VmRSS) $(status RssAnon) $(status RssFile) $(status RssShmem)"
kill -INT $REC
wait $REC || fail "record exited $?: $(cat "$T/err")"
after="$(status VmRSS) $(status RssAnon) $(status RssFile) $(status RssShmem)"
"$MEMTREND" report --json "$T/r.db" > "$T/r.json" || fail "report --json"
"$MEMTREND" report "$T/r.db" > "$T/r.txt" || fail "report"
"$PY" - "$T/r.json" "$before" "$after" <<'PY' || fail "resident figures: see above"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
r = t["resident"]
names = ["rss_bytes", "anon_bytes", "file_bytes", "shmem_bytes"]
before = [int(x) for x in sys.argv[2].split()]
after = [int(x) for x in sys.argv[3].split()]
tol = 16 * 4096
bad = False
for n, b, a in zip(names, before, after):
    if abs(b - a) > tol:
        print(f"the helper moved: {n} {b} then {a}"); bad = True
    if abs(r[n] - a) > tol:
        print(f"{n}: JSON {r[n]}, /proc/PID/status {a}"); bad = True
    print(f"{n}: JSON {r[n]}, /proc {a} (diff {r[n] - a})")
# rss = anon + file + shmem, as the kernel adds them
if r["rss_bytes"] != r["anon_bytes"] + r["file_bytes"] + r["shmem_bytes"]:
    print("rss is not anon + file + shmem"); bad = True
# the 16 MiB mapped file is in the RSS, not in the footprint
if r["file_bytes"] < 16 * 1048576:
    print(f"file pages {r['file_bytes']} < the 16 MiB mapped"); bad = True
fp = t["footprint"]["last_bytes"]
if not (8 * 1048576 <= fp < 12 * 1048576):
    print(f"footprint {fp}: not the 8 MiB of anon (file pages in it?)"); bad = True
if r["time"] != t["end"]:
    print(f"resident time {r['time']} is not the last sample's {t['end']}"); bad = True
sys.exit(1 if bad else 0)
PY
grep -Eq '^  rss  +[0-9.]+ MiB = anon [0-9.]+ MiB \+ file [0-9.]+ MiB \+ shmem ' "$T/r.txt" ||
	fail "text report without the rss line: $(grep -A2 footprint "$T/r.txt")"
ok "JSON resident = /proc/$P/status ($after), text report has the rss line"
