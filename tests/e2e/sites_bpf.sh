# record --sites -p PID, the eBPF mode (docs/sites.md): the service of
# known allocation sites (tests/helpers/sites_prog.c, built with frame
# pointers), started on its own and then probed by memtrend. The leak
# site ranked first, named with its callers, 4 KiB per request inside its
# interval, its live bytes the truth within the sampling's error; the
# others not growing; the traps counted and their cost said; anonymous
# mmap sampled, the C library's own mappings not. Then what
# stops the mode: no permission (as nobody: said, the rest recorded), a
# statically linked program (its own malloc probed), a process that
# exits mid-recording; --name across a restart. Needs root (CI's) and a
# memtrend built with libbpf; skips otherwise. About 35 s.
. "$E2E_LIB"
: "${SITES_PROG:?}" "${SITES_STATIC:?}"
[ "$(id -u)" = 0 ] || { echo "skip: the eBPF mode needs root"; exit 77; }

bg "$SITES_PROG" 14 "$T/work.log" 1000
P=$LAST_BG
wait_for "$T/work.log" 5
# 1 KiB between samples on average: a 4 KiB block is always sampled (a
# block of at least the rate stands for itself), the churn's 16 B-8 KiB
# about one in eight.
timeout 60 "$MEMTREND" record -q -o "$T/run.db" -i 100ms -d 8s --sites \
	--sites-rate 1KiB -p "$P" --work-log "$T/work.log" --match req \
	> "$T/out" 2> "$T/err"
rc=$?
if grep -q "built without eBPF" "$T/err"; then
	echo "skip: $(cat "$T/err")"; exit 77
fi
if grep -q "cannot load the eBPF program" "$T/err"; then
	echo "skip: this kernel: $(cat "$T/err")"; exit 77
fi
[ $rc = 0 ] || fail "record --sites -p: exit $rc: $(cat "$T/err")"
meta=$(sql "$T/run.db" "SELECT value FROM meta WHERE key = 'sites'")
case "$meta" in
"eBPF uprobes on "*libc.so*", every 1024 B on average, 8 frames"*"names: "*) ;;
*) fail "meta sites: '$meta'" ;;
esac
# The calls counted, and what they cost measured on memtrend's own calls
# of the same libc (not under ASan: its malloc is not libc's)
sql "$T/run.db" "SELECT text FROM note" > "$T/notes"
cost="allocation calls and [0-9]* frees trapped, about [0-9.]* and [0-9.]* us each (measured at start)"
[ -n "$SANITIZED" ] && cost="allocation calls and [0-9]* frees trapped"
grep -q "$cost" "$T/notes" || fail "the probes' cost not said: $(cat "$T/notes")"
"$MEMTREND" report --json "$T/run.db" > "$T/r.json" 2> "$T/rerr" ||
	fail "report: $(cat "$T/rerr")"
S="d['targets'][0]['sites']"
[ "$(jget "$T/r.json" "$S['dropped']")" = 0 ] ||
	fail "dropped: $(jget "$T/r.json" "$S['dropped']")"
first=$(jget "$T/r.json" "[f['function'] for f in $S['ranked'][0]['frames']]")
# the stack past the first frame, through the frame pointers
[ "$first" = "['leak_keep', 'handle_request', 'worker', 'start_thread']" ] ||
	[ "$first" = "['leak_keep', 'handle_request', 'worker', 'start_thread', 'clone3']" ] ||
	fail "first site's stack: $first"
[ "$(jget "$T/r.json" "$S['ranked'][0]['trend']")" = growing ] ||
	fail "leak site not growing"
lo=$(jget "$T/r.json" "$S['ranked'][0]['per_request']['ci95_low']")
hi=$(jget "$T/r.json" "$S['ranked'][0]['per_request']['ci95_high']")
within_widened 4096 "$lo" "$hi" || fail "4096 B/req outside the leak site's interval [$lo, $hi] (x3)"
# its live bytes against the truth: 4,096 per request served while the
# probes were in (the work counter's rise over the recording: what was
# allocated before the probes is not seen; 15 %
# for the batches at either end, the sampling adds no error: a 4 KiB
# block is always sampled)
last=$(jget "$T/r.json" "$S['ranked'][0]['last_bytes']")
served=$(sql "$T/run.db" "SELECT CAST(max(value) - min(value) AS INTEGER) FROM source_sample")
truth=$((4096 * served))
within "$last" "$((truth * 85 / 100))" "$((truth * 115 / 100))" ||
	fail "leak site estimate $last B, truth $truth B ($served requests)"
bad=$(jget "$T/r.json" "[r['frames'][0]['function'] for r in $S['ranked'] if r['trend'] == 'growing' and r['frames'][0]['function'] in ('cache_put', 'buffer_grow', 'churn')]")
[ "$bad" = "[]" ] || fail "called growing: $bad"
ok "eBPF: leak_keep first with its callers, 4096 B/req in [$lo, $hi], $last B live of $truth"
wait "$P" 2> /dev/null

# Anonymous memory the program maps itself (sites_prog's mmap mode):
# mmap_keep at 8,192 B per request (x3 interval), and nothing the C
# library maps for malloc (the same mmap, called from its own code)
# counted as a site of its own.
bg "$SITES_PROG" 8 "$T/mm.log" 1000 mmap
M=$LAST_BG
wait_for "$T/mm.log" 5
timeout 60 "$MEMTREND" record -q -o "$T/mm.db" -i 100ms -d 4s --sites \
	--sites-rate 4KiB -p "$M" --work-log "$T/mm.log" --match req \
	2> "$T/mm.err" || fail "record --sites -p, mmap: $(cat "$T/mm.err")"
"$MEMTREND" report --json "$T/mm.db" > "$T/mm.json" || fail "report mmap"
"$PY" - "$T/mm.json" <<'PY' || fail "eBPF mmap sites"
import json, sys
s = json.load(open(sys.argv[1]))["targets"][0]["sites"]
by = {}
for r in s["ranked"]:
    by.setdefault(r["frames"][0]["function"], r)
k = by["mmap_keep"]
lo, hi = k["per_request"]["ci95_low"], k["per_request"]["ci95_high"]
assert k["trend"] == "growing" and lo - (hi - lo) <= 8192 <= hi + (hi - lo), (k["trend"], lo, hi)
libc = [r["frames"][0]["function"] for r in s["ranked"]
        if "libc.so" in (r["frames"][0]["module"] or "")]
assert not libc, libc
print("ok: eBPF mmap_keep %.0f..%.0f B/req, no site in libc's own code" % (lo, hi))
PY
wait "$M" 2> /dev/null

# JIT code named from its perf map (tests/helpers/jit_prog.c), probed
# while it runs.
if [ -n "${JIT_PROG:-}" ]; then
	bg "$JIT_PROG" 6 "$T/jit.log"
	J=$LAST_BG
	wait_for "$T/jit.log" 5
	timeout 60 "$MEMTREND" record -q -o "$T/jit.db" -i 100ms -d 2s --sites \
		--sites-rate 1KiB -p "$J" 2> "$T/jit.err" ||
		fail "record --sites -p, JIT: $(cat "$T/jit.err")"
	"$MEMTREND" report --json "$T/jit.db" > "$T/jit.json" || fail "report JIT"
	first=$(jget "$T/jit.json" "d['targets'][0]['sites']['ranked'][0]['frames'][0]['function']")
	[ "$first" = jit_leak_4k ] || fail "eBPF: the JIT's frame named '$first'"
	ok "eBPF: a JIT's frame named from its perf map"
	kill "$J" 2> /dev/null
	# A full table: 5,000 JIT stubs called 4 s into the program's run,
	# after the probes are in (loading and attaching them takes under a
	# second here, more on a loaded machine): more sites than the eBPF
	# program's 4,096, counted and warned.
	bg "$JIT_PROG" 8 "$T/full.log" 5000 4
	F=$LAST_BG
	wait_for "$T/full.log" 5
	timeout 60 "$MEMTREND" record -q -o "$T/full.db" -i 100ms -d 5.5s \
		--sites --sites-rate 1KiB -p "$F" 2> "$T/full.err" ||
		fail "eBPF, a full table: exit $?: $(cat "$T/full.err")"
	grep -q "warning: --sites -p: a table of the eBPF program is full: [0-9]* sampled allocations not kept (stacks and sites: [0-9]*; live set: 0)" \
		"$T/full.err" || fail "eBPF, a full table not said: $(cat "$T/full.err")"
	ok "eBPF: a full table counted and warned"
	kill "$F" 2> /dev/null
fi

# A process that sees another file at its C library's path (a
# container's): the probes go on the file it maps, through
# /proc/PID/root, not on the file of that name here. A private mount
# namespace with a copy of libc bound over the path plays the container.
LIBC=$(sed -n 's|.* \(/[^ ]*/libc\.so\.6\)$|\1|p' /proc/self/maps | head -n 1)
if [ -n "$LIBC" ] && command -v unshare > /dev/null && cp "$LIBC" "$T/libc-copy.so.6" &&
	unshare -m true 2> /dev/null; then
	unshare -m sh -c 'mount --bind "$0" "$1" && exec "$2" 6 "$3" 1000' \
		"$T/libc-copy.so.6" "$LIBC" "$SITES_PROG" "$T/ns.log" > /dev/null &
	N=$!
	BG_PIDS="$BG_PIDS $N"
	wait_for "$T/ns.log" 5
	timeout 60 "$MEMTREND" record -q -o "$T/ns.db" -i 100ms -d 2s --sites \
		--sites-rate 4KiB -p "$N" 2> "$T/ns.err" ||
		fail "record --sites -p, a container's libc: $(cat "$T/ns.err")"
	calls=$(sql "$T/ns.db" "SELECT text FROM note" | sed -n 's/.*: \([0-9]*\) allocation calls.*/\1/p')
	[ -n "$calls" ] && [ "$calls" -gt 1000 ] ||
		fail "a container's libc: the probes saw '$calls' calls ($(sql "$T/ns.db" "SELECT text FROM note"))"
	grep -q . "$T/ns.log" || fail "no requests"
	n=$(sql "$T/ns.db" "SELECT count(*) FROM site_frame WHERE depth = 0 AND function = 'leak_keep'")
	[ "$n" -ge 1 ] || fail "a container's libc: no leak_keep site"
	ok "a container's libc: probed through /proc/PID/root ($calls calls)"
	kill "$N" 2> /dev/null
fi

# No permission: as nobody, the load is refused; said, and the rest
# (the footprint) recorded; exit 0.
if id nobody > /dev/null 2>&1; then
	mkdir -m 777 "$T/nobody"
	setpriv --reuid nobody --regid nogroup --clear-groups \
		"$SITES_PROG" 6 "$T/nobody/w.log" 100 &
	N=$!
	BG_PIDS="$BG_PIDS $N"
	wait_for "$T/nobody/w.log" 5
	setpriv --reuid nobody --regid nogroup --clear-groups \
		"$MEMTREND" record -q -o "$T/nobody/n.db" -i 100ms -d 2s --sites \
		-p "$N" 2> "$T/nobody/err"; rc=$?
	[ $rc = 0 ] || fail "as nobody: exit $rc: $(cat "$T/nobody/err")"
	grep -q "needs root, or CAP_BPF and CAP_PERFMON; recording without allocation sites" \
		"$T/nobody/err" || fail "as nobody: $(cat "$T/nobody/err")"
	n=$(nsamples "$T/nobody/n.db")
	[ "$n" -ge 10 ] || fail "as nobody: $n samples"
	[ "$(sql "$T/nobody/n.db" "SELECT count(*) FROM site")" = 0 ] ||
		fail "as nobody: sites recorded"
	ok "no permission: said, $n samples without sites"
	kill "$N" 2> /dev/null; wait "$N" 2> /dev/null
fi

# A statically linked program: its own malloc is the one probed.
bg "$SITES_STATIC" "$T/static.ready" 5
S_PID=$LAST_BG
wait_for "$T/static.ready" 5
"$MEMTREND" record -q -o "$T/static.db" -i 100ms -d 1s --sites -p "$S_PID" \
	2> "$T/static.err" || fail "static: exit $?: $(cat "$T/static.err")"
meta=$(sql "$T/static.db" "SELECT value FROM meta WHERE key = 'sites'")
case "$meta" in
"eBPF uprobes on $SITES_STATIC,"*) ;;
*) fail "static: meta sites: '$meta' ($(cat "$T/static.err"))" ;;
esac
ok "a static program: its own malloc probed"
kill "$S_PID" 2> /dev/null

# A process that exits mid-recording: the sites it had are kept, the
# recording ends with it.
bg "$SITES_PROG" 3 "$T/exit.log" 1000
E=$LAST_BG
wait_for "$T/exit.log" 5
timeout 30 "$MEMTREND" record -q -o "$T/exit.db" -i 100ms -d 20s --sites \
	--sites-rate 1KiB -p "$E" 2> "$T/exit.err" ||
	fail "exits mid-recording: exit $?: $(cat "$T/exit.err")"
leak=$(sql "$T/exit.db" "SELECT count(*) FROM site_frame WHERE depth = 0 AND function = 'leak_keep'")
[ "$leak" -ge 1 ] || fail "exits mid-recording: no leak_keep site"
ok "the process exits mid-recording: its sites kept"

# --name: the oldest process of that name probed, and after it restarts
# the new one, afresh (its own incarnation, its own sites): a program
# that runs 3 s, started again 1 s after it ended.
cp "$SITES_PROG" "$T/bpfname_prog"
bg "$T/bpfname_prog" 3 "$T/n1.log" 1000
wait_for "$T/n1.log" 5
bg timeout 30 "$MEMTREND" record -q -o "$T/name.db" -i 100ms -d 8s --sites \
	--sites-rate 1KiB --name '^bpfname_prog$'
R=$LAST_BG
i=0
until [ -z "$(pgrep -f "$T/bpfname_prog 3 $T/n1.log")" ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "--name: the first run never ended"
	sleep 0.1
done
sleep 1
"$T/bpfname_prog" 3 "$T/n2.log" 1000 > /dev/null 2>&1
wait "$R" || fail "--sites --name: exit $?"
incs=$(sql "$T/name.db" "SELECT count(DISTINCT s.incarnation_id) FROM site s JOIN site_frame f ON f.site_id = s.id WHERE f.depth = 0 AND f.function = 'leak_keep'")
[ "$incs" = 2 ] || fail "--sites --name: leak_keep in $incs incarnations, not 2: $(sql "$T/name.db" "SELECT text FROM note")"
"$MEMTREND" report --json "$T/name.db" > "$T/name.json" ||
	fail "--sites --name: report"
first=$(jget "$T/name.json" "d['targets'][0]['sites']['ranked'][0]['frames'][0]['function']")
[ "$first" = leak_keep ] || fail "--sites --name: first site '$first'"
ok "--sites --name: both runs probed, leak_keep in each"
