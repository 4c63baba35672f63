# record --sites at its edges (docs/sites.md): the shim never touches a
# descriptor of the program's own; kill -9 of memtrend leaves no region
# file; the sites a command adds after the last sample are declared at
# its end; a wrapper's exec of a static program drops the wrapper's
# sites; --children says that children have no sites; anonymous mmap is
# sampled, a preloaded allocator's own mappings are not; a JIT's frame is
# named from its perf map; C++ names demangled; growth in shared memory
# named outside the heap; the allocator's retention (a flat live heap
# under a growing footprint) not taken for a leak. About 32 s.
. "$E2E_LIB"
: "${SITES_PROG:?}" "${SITES_STATIC:?}" "${RETAIN_PROG:?}"
# The shim never touches a descriptor of the program's own: the command's
# fd 3, its own, is read whole (before: the shim took 3 for the region's
# number, closed it, and wc said "No such file").
printf 'twelve bytes' > "$T/three"
timeout 30 "$MEMTREND" record -q -o "$T/fd.db" --sites -- \
	sh -c 'wc -c /dev/fd/3 3<"$0"' "$T/three" > "$T/out" 2> "$T/err" ||
	fail "record --sites, fd 3: $(cat "$T/err")"
[ "$(cat "$T/out")" = "12 /dev/fd/3" ] ||
	fail "the command's fd 3: '$(cat "$T/out")', expected '12 /dev/fd/3'"
ok "the command's own fd 3 left alone"
# kill -9 of memtrend leaves no region file: it has no name from the
# start (before: it stayed in /dev/shm until the first sample after the
# shim claimed it, and a static command never claims it).
shm_before=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
bg "$MEMTREND" record -q -o "$T/k.db" --sites -- \
	"$SITES_STATIC" "$T/started" 60
wait_for "$T/started" 30
kill -9 "$LAST_BG"
wait "$LAST_BG" 2> /dev/null
shm_after=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
[ "$shm_after" -le "$shm_before" ] ||
	fail "kill -9 left $((shm_after - shm_before)) region file(s) in /dev/shm"
ok "kill -9 of memtrend leaves nothing in /dev/shm"
# The sites a command adds after the last sample are declared when it
# ends, not dropped: at -i 1h there is no sample after the first, and the
# program's four sites (leak, cache, buffer, churn) are all in the
# recording (before: 1, from the only read).
timeout 30 "$MEMTREND" record -q -o "$T/end.db" -i 1h --sites \
	--sites-rate 1KiB -- "$SITES_PROG" 1 "$T/end.log" 200 \
	> /dev/null 2> "$T/err" || fail "record --sites -i 1h: $(cat "$T/err")"
n=$(sql "$T/end.db" "SELECT count(*) FROM site")
[ "$n" -ge 4 ] || fail "$n sites recorded at the end, expected 4 or more"
ok "$n sites declared at the command's end"
# A wrapper that execs a program the shim cannot load (static): the
# wrapper's sites fall to 0 (its heap is gone) and a warning says so
# (before: they stayed live at their last value, 2.5 MB here).
timeout 30 "$MEMTREND" record -q -o "$T/ex.db" -i 100ms --sites \
	--sites-rate 4KiB -- bash -c 'x=$(seq 1 200000); y="$x$x"; sleep 1;
	exec "$0" "$1" 1' "$SITES_STATIC" "$T/ex.started" 2> "$T/err" ||
	fail "record --sites, exec of a static program: $(cat "$T/err")"
"$MEMTREND" report --json "$T/ex.db" > "$T/ex.json" 2> /dev/null ||
	fail "report of the exec"
live=$(jget "$T/ex.json" "sum(r['last_bytes'] for r in d['targets'][0]['sites']['ranked'])")
[ "$live" = 0 ] || fail "the wrapper's sites hold $live B after its exec"
"$MEMTREND" report "$T/ex.db" > "$T/ex.txt" 2>&1
grep -q "exec'd a program the shim cannot load" "$T/ex.txt" ||
	fail "no word of the exec: $(cat "$T/ex.txt")"
ok "exec of a static program: the wrapper's sites at 0, said"
# --children: a child target gets no sites, and the report says so
# (before: nothing said). The child lives 2 s: 20 ticks at -i 100ms.
timeout 30 "$MEMTREND" record -q -o "$T/ch.db" -i 100ms --children \
	--sites -- sh -c '"$0" "$1" 2; true' "$SITES_STATIC" "$T/ch.started" \
	2> "$T/err" || fail "record --sites --children: $(cat "$T/err")"
"$MEMTREND" report "$T/ch.db" > "$T/ch.txt" 2>&1
grep -q "only the command itself is sampled, not its children" \
	"$T/ch.txt" || fail "no note of children without sites: $(cat "$T/ch.txt")"
ok "--children: the note that children have no sites"

# Anonymous memory the program maps itself (sites_prog's mmap mode: 8 KiB
# mapped and kept per request at mmap_keep, 16 KiB mapped and unmapped at
# mmap_churn): a site of its own, 8,192 B per request inside its
# interval (x3 about its middle, as e2e_sites says why), the churn not
# growing (munmap takes its samples back).
timeout 60 "$MEMTREND" record -q -o "$T/mm.db" -i 100ms --sites \
	--sites-rate 4KiB --work-log "$T/mm.log" --match req \
	-- "$SITES_PROG" 3 "$T/mm.log" 1000 mmap > /dev/null 2> "$T/err" ||
	fail "record --sites, mmap: $(cat "$T/err")"
"$MEMTREND" report --json "$T/mm.db" > "$T/mm.json" || fail "report mmap"
"$PY" - "$T/mm.json" > "$T/mm.out" <<'PY' || fail "mmap sites: $(cat "$T/mm.json" | head -c 3000)"
import json, sys
s = json.load(open(sys.argv[1]))["targets"][0]["sites"]
by = {}
for r in s["ranked"]:
    by.setdefault(r["frames"][0]["function"], r)
k = by["mmap_keep"]
assert k["trend"] == "growing", k["trend"]
c = by.get("mmap_churn")
assert c is None or c["trend"] != "growing", c["trend"]
print(k["per_request"]["ci95_low"], k["per_request"]["ci95_high"], c and c["trend"])
PY
read -r lo hi churn < "$T/mm.out"
within_widened 8192 "$lo" "$hi" ||
	fail "mmap_keep: 8192 B/req outside [$lo, $hi]"
ok "mmap_keep $lo..$hi B/req, mmap_churn $churn"
# A preloaded allocator maps its own heap: those mappings are its
# allocations, already sampled, never counted again (no site in the
# allocator's code, the live heap not over the footprint).
JEMALLOC=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -e "$JEMALLOC" ]; then
	# (preloaded into the command alone, after the shim, through a
	# shell that execs it: not into memtrend, which may be ASan's)
	timeout 60 "$MEMTREND" record -q -o "$T/je.db" -i 100ms --sites \
		--sites-rate 4KiB -- sh -c 'LD_PRELOAD="$LD_PRELOAD:$0" exec "$@"' \
		"$JEMALLOC" "$SITES_PROG" 3 "$T/je.log" 1000 > /dev/null 2> "$T/err" ||
		fail "record --sites under jemalloc: $(cat "$T/err")"
	n=$(sql "$T/je.db" "SELECT count(*) FROM site_frame WHERE depth = 0 AND module LIKE '%jemalloc%'")
	[ "$n" = 0 ] || fail "jemalloc's own mappings sampled: $n sites"
	"$MEMTREND" report --json "$T/je.db" > "$T/je.json" || fail "report je"
	share=$(jget "$T/je.json" "d['targets'][0]['sites']['live_heap']['share_of_footprint_slope']")
	within "$share" 0.5 1.3 || fail "under jemalloc the live heap is $share of the footprint's slope"
	ok "jemalloc's own mappings not sampled; live heap $share of the footprint's slope"
fi

# JIT code (tests/helpers/jit_prog.c: machine code in anonymous memory,
# named in /tmp/perf-PID.map as a JIT writes it, calling malloc(4096) and
# keeping the block): the growing site's frame is named from the map.
: "${JIT_PROG:?}"
timeout 60 "$MEMTREND" record -q -o "$T/jit.db" -i 100ms --sites \
	--sites-rate 1KiB --work-log "$T/jit.log" --match req \
	-- "$JIT_PROG" 2 "$T/jit.log" > "$T/jit.out" 2> "$T/err"; rc=$?
if grep -q "^skip" "$T/jit.out"; then
	echo "$(cat "$T/jit.out")"
else
	[ $rc = 0 ] || fail "record --sites, JIT: exit $rc: $(cat "$T/err")"
	"$MEMTREND" report --json "$T/jit.db" > "$T/jit.json" || fail "report JIT"
	first=$(jget "$T/jit.json" "d['targets'][0]['sites']['ranked'][0]['frames'][0]['function']")
	module=$(jget "$T/jit.json" "d['targets'][0]['sites']['ranked'][0]['frames'][0]['module']")
	[ "$first" = jit_leak_4k ] || fail "the JIT's frame named '$first' ($module)"
	case "$module" in /tmp/perf-*.map) ;; *) fail "the JIT frame's module: $module" ;; esac
	ok "a JIT's frame named from its perf map: $first in $module"
	# A full site table: 5,000 JIT stubs, each its own site, against a
	# table of 4,096: the drop counted, warned about once while
	# recording, said by the report; nothing fails.
	timeout 60 "$MEMTREND" record -q -o "$T/full.db" -i 100ms --sites \
		--sites-rate 1KiB -- "$JIT_PROG" 1 "$T/full.log" 5000 0.2 \
		> /dev/null 2> "$T/full.err" ||
		fail "record --sites, a full table: exit $?: $(cat "$T/full.err")"
	grep -q "warning: --sites: a table of the shim is full: [0-9]* sampled allocations not kept (site table of 4096: [0-9]*; live set: 0)" \
		"$T/full.err" || fail "a full table not said: $(cat "$T/full.err")"
	[ "$(sql "$T/full.db" "SELECT count(*) FROM site")" = 4096 ] ||
		fail "a full table: $(sql "$T/full.db" "SELECT count(*) FROM site") sites"
	"$MEMTREND" report "$T/full.db" 2>&1 | grep -q "DROPPED: a table was full" ||
		fail "the report does not say the table was full"
	ok "a full site table: counted, warned, reported"
fi

# C++ (tests/helpers/sites_cxx.cpp): operator new is sampled through
# malloc, its caller named demangled: the leak is operator new under
# shop::Store::keep(unsigned long), 4,096 B a request (x3 interval); the
# churn under shop::Scratch::churn() does not grow.
if [ -n "${SITES_CXX:-}" ]; then
	timeout 60 "$MEMTREND" record -q -o "$T/cxx.db" -i 100ms --sites \
		--sites-rate 1KiB --work-log "$T/cxx.log" --match req \
		-- "$SITES_CXX" 2 "$T/cxx.log" > /dev/null 2> "$T/err" ||
		fail "record --sites, C++: $(cat "$T/err")"
	"$MEMTREND" report --json "$T/cxx.db" > "$T/cxx.json" || fail "report C++"
	"$PY" - "$T/cxx.json" > "$T/cxx.out" <<'PY' || fail "C++ sites"
import json, sys
s = json.load(open(sys.argv[1]))["targets"][0]["sites"]
r = s["ranked"][0]
names = [f["function"] for f in r["frames"]]
# at -O0 the standard library's allocator frames stand between them
assert names[0] == "operator new(unsigned long)", names
assert "shop::Store::keep(unsigned long)" in names, names
churn = [x["trend"] for x in s["ranked"]
         if any(f["function"] == "shop::Scratch::churn()" for f in x["frames"])]
assert churn and "growing" not in churn, churn
print(r["per_request"]["ci95_low"], r["per_request"]["ci95_high"])
PY
	read -r lo hi < "$T/cxx.out"
	within_widened 4096 "$lo" "$hi" ||
		fail "C++: 4096 B/req outside [$lo, $hi]"
	ok "C++: operator new under shop::Store::keep, $lo..$hi B/req"
else
	echo "note: no C++ compiler at build time: the C++ case not run"
fi
# Growth outside the heap (docs/sites.md, "The report"): a program that
# touches 1 MiB of anonymous shared memory every 100 ms (shmem, in the
# footprint) while its heap holds still is named for what it is, not
# the allocator's retention: split "outside", shared memory growing.
cat > "$T/shm_grow.py" <<'PY'
import mmap, sys, time
m = mmap.mmap(-1, 128 << 20)  # MAP_SHARED | MAP_ANONYMOUS: shmem
for i in range(int(sys.argv[1])):
    for k in range(0, 1 << 20, 4096):
        m[(i << 20) + k] = 1
    time.sleep(0.1)
PY
timeout 60 "$MEMTREND" record -q -o "$T/shm.db" -i 100ms --sites \
	--sites-rate 64KiB -- "$PY" "$T/shm_grow.py" 50 > /dev/null 2> "$T/err" ||
	fail "record --sites, shared memory: $(cat "$T/err")"
"$MEMTREND" report --json "$T/shm.db" > "$T/shm.json" ||
	fail "report of the shared-memory run"
"$PY" - "$T/shm.json" <<'PY' || fail "shared memory: $(cat "$T/shm.json" | head -c 600)"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
s = t["sites"]
assert t["verdict"] == "growing", t["verdict"]
assert s["split"] == "outside", s["split"]
sh = [x for x in s["outside_heap"] if x["pool"] == "shmem"][0]
assert sh["significant"] and sh["slope"]["bytes_per_hour"] > 0, sh
assert 0.5 <= sh["share_of_footprint_slope"] <= 1.5, sh
PY
ok "shared memory growing outside the heap: split outside, named"
# The allocator's retention (tests/helpers/retain_prog.c): bursts of
# 64 KiB blocks freed each round under a 16-byte pin, so glibc keeps 64
# KiB more a round while nothing stays live. At the default rate: the
# footprint grows, the live heap does not, the split says retention and
# no site is called growing.
timeout 60 "$MEMTREND" record -q -o "$T/ret.db" -i 100ms --sites -- \
	"$RETAIN_PROG" 60 100 > /dev/null 2> "$T/err" ||
	fail "record --sites, retention: $(cat "$T/err")"
"$MEMTREND" report --json "$T/ret.db" > "$T/ret.json" ||
	fail "report of the retention run"
"$PY" - "$T/ret.json" <<'PY' || fail "retention: $(head -c 800 "$T/ret.json")"
import json, sys
t = json.load(open(sys.argv[1]))["targets"][0]
s = t["sites"]
assert t["verdict"] == "growing", t["verdict"]
assert s["split"] == "retention", s["split"]
assert not s["live_heap"]["significant"], s["live_heap"]
assert all(r["trend"] != "growing" for r in s["ranked"]), s["ranked"]
PY
ok "the allocator's retention: footprint growing, live heap flat, split retention"
