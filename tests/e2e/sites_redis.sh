# Allocation sites of a real third-party server (issue 30): Redis,
# Debian's build (jemalloc, linked; its functions exported, so that
# stripped, its frames still have names), filled with unique keys. Its
# growth must be attributed to the code that keeps keys, named: the
# first growing site's stack runs through Redis's SET path (dbAdd,
# setKey, dictAddRaw, createStringObject, sdsnewlen...; in eBPF mode,
# without Redis's frame pointers, its first frame: Redis's allocation
# wrapper), and the live heap grows with the footprint. Once with the shim (record
# --sites -- redis-server: the shim goes first, jemalloc's malloc is the
# one it calls), once, as root, with eBPF on the running server (record
# --sites -p: its allocator found in its maps, libjemalloc). About 30 s.
. "$E2E_LIB"
need redis-server redis-cli
# The functions on Redis's path from a SET to the allocator: one of
# them must be on the first growing site's stack.
KEEPERS="dbAdd setKey setGenericCommand setCommand dictAddRaw dictAdd \
createStringObject createRawStringObject createEmbeddedStringObject \
sdsnewlen sdsdup tryObjectEncoding dbAddInternal"
fill() { # PORT FIRST COUNT: COUNT unique keys of 500-byte values
	"$PY" - "$2" "$3" <<'PYEOF' | redis-cli -p "$1" --pipe > /dev/null
import sys
a, n = int(sys.argv[1]), int(sys.argv[2]); v = "y" * 500; out = []
for i in range(a, a + n):
    k = "key:%d" % i
    out.append("*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n" % (len(k), k, len(v), v))
sys.stdout.write("".join(out))
PYEOF
}
check_sites() { # DB LABEL [FUNCTIONS: one must be on the stack]
	"$MEMTREND" report --json "$1" > "$T/$2.json" 2> "$T/$2.rerr" ||
		fail "$2: report: $(cat "$T/$2.rerr")"
	S="d['targets'][0]['sites']"
	[ "$(jget "$T/$2.json" "$S['dropped']")" = 0 ] || fail "$2: dropped"
	frames=$(jget "$T/$2.json" "' '.join(f['function'] or '?' for f in $S['ranked'][0]['frames'])")
	trend=$(jget "$T/$2.json" "$S['ranked'][0]['trend']")
	[ "$trend" = growing ] || fail "$2: first site $trend: $frames"
	hit=""
	for k in ${3:-$KEEPERS}; do
		case " $frames " in *" $k "*) hit=$k ;; esac
	done
	[ -n "$hit" ] || fail "$2: the first growing site is not on the SET path: $frames"
	# the keys are kept: the live heap grows with the footprint (at
	# least half as fast: the split "leak", docs/sites.md)
	split=$(jget "$T/$2.json" "$S['split']")
	share=$(jget "$T/$2.json" "$S['live_heap']['share_of_footprint_slope']")
	[ "$split" = leak ] || fail "$2: split '$split' (live heap $share of the footprint's slope)"
	ok "$2: first growing site through $hit ($frames); live heap $share of the footprint's slope"
}

# 1. Preload: Redis started by memtrend, 10 batches of 5,000 keys.
PORT=$(free_port)
redis_server "$PORT"
bg "$MEMTREND" record -q -o "$T/pre.db" -i 200ms --sites -- "${REDIS_SERVER[@]}"
REC=$LAST_BG
wait_port "$PORT" 20
for b in $(seq 0 9); do
	fill "$PORT" $((b * 5000)) 5000 || fail "fill $b"
	sleep 0.4
done
sleep 1
redis-cli -p "$PORT" shutdown nosave > /dev/null 2>&1
wait "$REC" || fail "record --sites -- redis-server exited $?"
check_sites "$T/pre.db" preload

# 2. eBPF: a Redis already running, probed by pid (root only).
if [ "$(id -u)" != 0 ]; then
	echo "skip: eBPF on the running server needs root"
	exit 0
fi
PORT=$(free_port)
redis_server "$PORT"
bg "${REDIS_SERVER[@]}"
R=$LAST_BG
wait_port "$PORT" 10
fill "$PORT" 0 5000 || fail "fill before"
bg "$MEMTREND" record -q -o "$T/bpf.db" -i 200ms --sites -p "$R"
REC=$LAST_BG
sleep 1.5
for b in $(seq 1 10); do
	fill "$PORT" $((b * 5000)) 5000 || fail "fill $b"
	sleep 0.4
done
sleep 1
kill -TERM "$REC"; wait "$REC" 2> /dev/null
if sql "$T/bpf.db" "SELECT text FROM note" | grep -q "built without eBPF"; then
	echo "skip: built without eBPF"; exit 0
fi
meta=$(sql "$T/bpf.db" "SELECT value FROM meta WHERE key = 'sites'")
case "$meta" in
"eBPF uprobes on "*libjemalloc*) ;;
*) fail "eBPF: the allocator probed: '$meta'" ;;
esac
# Debian builds Redis without frame pointers, which the kernel's stack
# walk follows past the first frame (docs/sites.md): the first frame,
# exact, is Redis's allocation wrapper, named; the callers are cut.
check_sites "$T/bpf.db" eBPF "$KEEPERS zmalloc zmalloc_usable ztrymalloc_usable \
ztrymalloc_usable_internal zcalloc zrealloc zmalloc_size"
redis-cli -p "$PORT" shutdown nosave > /dev/null 2>&1
