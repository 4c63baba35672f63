# Allocator retention against the real glibc malloc: the Linux face of the
# allocator probe in context.md (report 2: "varying sizes grow a cache 25x
# more; idle returns nothing; a cap holds") and of docs/design.md's glibc note.
#
# Three tests/helpers/allocprobe processes run at once, recorded by one
# recorder (-p x3, every 100 ms): 1 s baseline, 120 rounds of 100 ms (each
# round: 32 buffers, 8 alive at once (a 9th arrives, then one of the 9
# finishes), every page touched and read back, all freed by the round's
# end, plus one small block kept per buffer), then 20 s idle (no allocation
# at all). Between rounds nothing is
# live but ~0.6 MiB of small blocks: the footprint then is what the
# allocator kept.
#   varying  sizes uniform in 512 KiB-2 MiB, plain glibc malloc/free
#   fixed    the same work at 1.25 MiB, plain glibc malloc/free
#   capped   varying sizes through a caching pool that keeps freed buffers
#            up to a 64 MiB cap (a framework's device-buffer cache)
# The sizes are half the report's 1-4 MB so that the test stays light (a
# varying round costs ~14 ms of CPU; 1-4 MB rounds cost ~65 ms on a VM,
# most of it page faults in memory that glibc trims and takes back).
#
# glibc's decisions depend only on the sequence of calls, so with --seed 1
# every run keeps the same bytes; what varies from run to run is when
# memtrend's samples fall. Measured by hand (RssAnon after each round, from
# the probe's --log; glibc 2.36, Debian 12; MiB):
#   after round   1     2     5    10    20    30    60   120  idle  max
#   varying     9.9   6.6  11.3  11.3  11.3  22.0  23.7  23.7  23.7  23.9
#   fixed      11.4  12.6  12.6  12.6  12.6  12.6  12.6  12.6  12.6  12.6
#   capped     25.5  32.7  45.8  55.7  61.2  63.7  64.3  64.1  64.1  64.8
# ("max": the highest level between rounds.) Inside a round the live
# buffers come on top (varying up to 29.1, capped up to 70.5): a sample can
# catch that, so levels are taken between rounds and at idle. Round 1 is
# special: glibc's mmap threshold starts at 128 KiB, so the first buffers
# are mmapped, and their first frees raise it (dynamic threshold): from
# round 2 on the buffers live in the heap. Seeds 1-10 (same arms): varying
# keeps 18.9-25.7 at idle (84-100 % of its highest level between rounds),
# fixed 10.3 or 12.6, capped 63.4-64.6; idle level minus the lowest level
# after rounds 2-20: varying 7.5-23.8 (seed 1: 17.1), fixed 0.0.
#
# So glibc does not keep 25x more with varying sizes (that was the report's
# size-bucketed GPU cache, which the capped arm models): it keeps about 2x
# what the same work keeps at one size. The fixed arm's holes are exact
# fits: it keeps one working set (8 x 1.25 MiB, plus the heap's tail) from
# round 2 on and never grows again. The varying arm's holes fit the next
# sizes only in part, the small blocks settle in the leftovers, new buffers
# are carved above them: it climbs from ~7-11 MiB to ~24 MiB over the
# first 30-60 rounds, then stays, since free() gives back only the top of
# the heap, and idle gives back nothing. The capped pool fills to its cap
# within ~30 rounds and holds there (what it lets go is munmapped).
#
# Assertions (bounds well inside the measured spread):
#   - memtrend reads what the process reads (idle median = the probe's own
#     RssAnon within 1 %: 23.672 = 23.672 MiB); idle returns nothing (last
#     idle sample >= 99 % of the first; identical bytes measured), all arms.
#   - growth over the rounds = idle level - lowest reading from the end of
#     round 2 to the end of round 20 (at least 1.5 s): varying >= 5 MiB
#     (11.1-17.1 measured in 20 runs: it depends on which moments the
#     samples catch), fixed <= 1 MiB (0.02 every time): >= 5x. Varying
#     keeps >= 1.5x what fixed keeps (23.7 / 12.6 = 1.88).
#   - varying: verdict "plateau", at no cap. That is the honest reading: the
#     climb ends by round ~60 of 120 and the idle holds it, so memtrend says
#     it grew, then flattened, "not given back" (and not "growing": the last
#     ~18 s are flat). Its idle level is >= 90 % of its highest level
#     between rounds (99 % measured). The idle phase was 7 s until
#     2026-12-05: on a loaded machine the climb can stretch to ~7 s, and
#     the 13 s after it then left the bend test (plateau.c bend_high)
#     unsure that growth slowed at all -- "inconclusive" in 1 of 4 runs
#     under load; 12 s of idle: 0 of 8, then 1 of 1 in a loaded suite
#     (the warm-up took the whole climb: read with --warmup 0, below);
#     with --warmup 0, 12 s of idle left the bend test unsure in 2 of 6
#     loaded runs; 20 s: plateau in 18 of 18, the whole test 6 of 6.
#   - fixed: "stable" or "plateau" reached within 2 s of round 1 (memtrend
#     says plateau: the 0.1 -> 12.6 MiB step of round 1, then flat), at
#     <= 16 MiB (12.6 measured).
#   - capped: "plateau" at 80-130 % of cap + baseline (64.1 MiB measured for
#     64 + 0.1 MiB); the idle level <= cap + 1 MiB (the cap holds) and
#     >= 90 % of it; with --cap capped=65MiB (the pool's cap plus ~1 MiB the
#     process holds besides: its small blocks, libc's own) the plateau is
#     reported at that cap (it must sit within 5 % below it: 1.4 % below).
# Timing: ~35 s (34 s of recording; the reports take well under a second,
# with ASan too).
. "$E2E_LIB"
: "${ALLOCPROBE:?}"
CAP=64
ARMS="varying fixed capped"
pids=""
for arm in $ARMS; do
	# glibc's defaults, whatever the test runner sets (meson sets
	# MALLOC_PERTURB_, which makes free() write every freed byte).
	bg env -u MALLOC_PERTURB_ -u MALLOC_CHECK_ -u MALLOC_TOP_PAD_ \
		-u MALLOC_TRIM_THRESHOLD_ -u MALLOC_MMAP_THRESHOLD_ \
		-u MALLOC_MMAP_MAX_ -u MALLOC_ARENA_MAX -u MALLOC_ARENA_TEST \
		-u GLIBC_TUNABLES -u LD_PRELOAD \
		"$ALLOCPROBE" --arm "$arm" --seed 1 --min-kib 512 --max-kib 2048 \
		--cap-mib "$CAP" --rounds 120 --round-ms 100 --idle-s 20 \
		--delay-s 1 --hold-s 60 --ready "$T/$arm.ready" --log "$T/$arm.log"
	pids="$pids -p $LAST_BG"
done
for arm in $ARMS; do wait_for "$T/$arm.ready" 10; done
# shellcheck disable=SC2086
bg "$MEMTREND" record -q -o "$T/run.db" $pids -i 100ms -d 70s
REC=$LAST_BG
# Record until every probe's idle phase is over (~33 s; bounded by -d).
i=0
for arm in $ARMS; do
	until grep -q '^done ' "$T/$arm.log" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 1200 ] && fail "the probes did not finish in 60 s"
		sleep 0.05
	done
done
kill -INT "$REC"
wait "$REC" || fail "record exited $?"
# --suspect 2GiB/h: the question this test asks is the shape (did it
# level off?); in 18 s of flat readings with rounds of +-5 MiB on top, the
# default slope of concern (30 days to MemTotal, tens of MiB/h) could not
# be ruled out, and memtrend rightly would not call that a plateau.
# The varying arm's verdict is read with --warmup 0: its climb over the
# rounds is what this test asks about, not a start-up to leave out. Found
# by default, the warm-up may take the whole climb (8.6 s in a loaded
# run, 2026-12-05), and the flat readings after it are then "too short to
# call stable": inconclusive, an honest answer to another question. The
# fixed arm's one step at round 1 is a start-up: read by default (with
# --warmup 0 it was "too short to call stable" in 2 of 6 loaded runs).
"$MEMTREND" report "$T/run.db" --json --suspect 2GiB/h > "$T/r.json" || fail "report exited $?"
"$MEMTREND" report "$T/run.db" --json --suspect 2GiB/h --warmup 0 > "$T/w.json" || fail "report --warmup 0 exited $?"
"$MEMTREND" report "$T/run.db" --json --suspect 2GiB/h --cap "capped=$((CAP + 1))MiB" \
	> "$T/c.json" || fail "report --cap exited $?"
# what each arm's verdict rests on, for a failure to be read (an arm read
# "inconclusive" under load, 2026-12-05, and nothing said why)
jget "$T/r.json" '"\n".join(t["name"]+" "+t["verdict"]+": "+"; ".join(t["reasons"]) for t in d["targets"] if t["name"] != "probe-varying")' >&2
jget "$T/w.json" '"\n".join(t["name"]+" (--warmup 0) "+t["verdict"]+": "+"; ".join(t["reasons"]) for t in d["targets"] if t["name"] == "probe-varying")' >&2

# The figures, per arm (MiB): from the report, the recorded samples and the
# probe's own log (wall-clock times of its rounds and idle phase).
"$PY" - "$T" $ARMS > "$T/figures" <<'EOF' || fail "figures"
import json, sqlite3, statistics, sys, datetime
T, arms = sys.argv[1], sys.argv[2:]
MiB = 1024.0 * 1024
rep = {t["name"]: t for t in json.load(open(T + "/r.json"))["targets"]}
# the varying arm as read with --warmup 0 (above)
rep["probe-varying"] = {t["name"]: t for t in json.load(
    open(T + "/w.json"))["targets"]}["probe-varying"]
cap = {t["name"]: t for t in json.load(open(T + "/c.json"))["targets"]}
db = sqlite3.connect(T + "/run.db")
def iso(s):
    return datetime.datetime.strptime(s, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()
for arm in arms:
    name = "probe-" + arm
    t, c = rep[name], cap[name]
    ev = {}
    rounds = {}
    for line in open(T + "/" + arm + ".log"):
        what, n, when, kib = line.split()
        if what == "round":
            rounds[int(n)] = (float(when), int(kib) / 1024.0)
        else:
            ev[what] = (float(when), int(kib) / 1024.0)
    # sample_expanded: one row per sample (runs of equal samples given
    # back their times).
    s = db.execute("SELECT s.t, s.footprint FROM sample_expanded s JOIN"
                   " incarnation i ON s.incarnation_id = i.id WHERE i.comm"
                   " = ? AND s.footprint IS NOT NULL ORDER BY s.t",
                   (name,)).fetchall()
    # From the end of round 2 to the end of round 20, and at least 1.5 s
    # (a slow round is followed by a quick catch-up): a wider window can
    # only lower the minimum.
    e0 = rounds[2][0]
    e1 = max(rounds[20][0], e0 + 1.5)
    early = [f for (u, f) in s if e0 <= u <= e1]
    idle = [f for (u, f) in s if ev["idle"][0] + 0.3 <= u <= ev["done"][0]]
    p = t["plateau"] or {}
    out = {
        "verdict": t["verdict"],
        "samples": t["samples"],
        "first": t["footprint"]["first_bytes"] / MiB,
        "max": t["footprint"]["max_bytes"] / MiB,
        "level": (p.get("level_bytes") or 0) / MiB,
        "since": iso(p["since"]) - rounds[1][0] if p.get("since") else -1,
        "capname": (c["plateau"] or {}).get("cap_name") or "none",
        "nearly": len(early),
        "early": min(early) / MiB if early else -1,
        "nidle": len(idle),
        "idle": statistics.median(idle) / MiB if idle else -1,
        "idle_first": idle[0] / MiB if idle else -1,
        "idle_last": idle[-1] / MiB if idle else -1,
        "log_idle": ev["idle"][1],
        "log_peak": max(k for (_, k) in rounds.values()),
        "rounds_s": ev["idle"][0] - ev["start"][0],
    }
    for k, v in out.items():
        print("%s_%s=%s" % (arm, k, ("%.3f" % v) if isinstance(v, float) else v))
EOF
. "$T/figures"
cat "$T/figures"

# f EXPR: evaluate a float comparison (python), true or false.
f() { "$PY" -c "import sys; sys.exit(0 if ($1) else 1)"; }
for arm in $ARMS; do
	eval "n=\$${arm}_samples ni=\$${arm}_nidle ne=\$${arm}_nearly"
	eval "idle=\$${arm}_idle log=\$${arm}_log_idle"
	eval "i0=\$${arm}_idle_first i1=\$${arm}_idle_last rs=\$${arm}_rounds_s"
	[ "$n" -ge 150 ] || fail "$arm: only $n samples"
	[ "$ni" -ge 40 ] && [ "$ne" -ge 5 ] \
		|| fail "$arm: $ne samples after rounds 2-20, $ni in the idle phase (rounds took $rs s)"
	f "abs($idle - $log) <= 0.01 * $log + 0.0625" \
		|| fail "$arm: memtrend reads $idle MiB at idle, the process $log MiB"
	f "$i1 >= 0.99 * $i0" || fail "$arm: idle gave back memory ($i0 -> $i1 MiB)"
done
ok "memtrend reads the probes' RssAnon; idle returns nothing"

grow_v=$("$PY" -c "print('%.2f' % ($varying_idle - $varying_early))")
grow_f=$("$PY" -c "print('%.2f' % ($fixed_idle - $fixed_early))")
echo "growth after round 2: varying $grow_v MiB, fixed $grow_f MiB"
f "$grow_f <= 1" || fail "fixed grew $grow_f MiB after round 2 (expected flat)"
f "$grow_v >= 5 and $grow_v >= 5 * $grow_f" \
	|| fail "varying grew $grow_v MiB after round 2, fixed $grow_f MiB (expected >= 5 MiB and >= 5x)"
f "$varying_idle >= 1.5 * $fixed_idle" \
	|| fail "varying keeps $varying_idle MiB, fixed $fixed_idle MiB (expected >= 1.5x)"
ok "varying sizes: +$grow_v MiB over the rounds, fixed +$grow_f MiB"

# Varying: grew, stopped, kept: plateau, at no cap.
[ "$varying_verdict" = plateau ] || fail "varying: verdict $varying_verdict, expected plateau"
[ "$varying_capname" = none ] || fail "varying: plateau at the $varying_capname"
f "abs($varying_level - $varying_idle) <= 0.05 * $varying_idle" \
	|| fail "varying: plateau $varying_level MiB, idle $varying_idle MiB"
f "$varying_idle >= 0.9 * $varying_log_peak" \
	|| fail "varying: $varying_idle MiB at idle, $varying_log_peak MiB between rounds"
ok "varying: plateau at $varying_level MiB, kept through idle"

# Fixed: flat from the first rounds, at about one working set.
case "$fixed_verdict" in
stable) ;;
plateau) f "$fixed_since <= 2" || fail "fixed: plateau reached $fixed_since s after round 1" ;;
*) fail "fixed: verdict $fixed_verdict, expected stable or plateau" ;;
esac
f "$fixed_idle <= 16" || fail "fixed: $fixed_idle MiB at idle (expected <= 16)"
ok "fixed: $fixed_verdict at $fixed_idle MiB"

# Capped: stops at the cap, and memtrend says so given the cap.
[ "$capped_verdict" = plateau ] || fail "capped: verdict $capped_verdict, expected plateau"
f "0.8 * ($CAP + $capped_first) <= $capped_level <= 1.3 * ($CAP + $capped_first)" \
	|| fail "capped: plateau $capped_level MiB, cap $CAP MiB"
f "0.9 * $CAP <= $capped_idle <= $CAP + 1" \
	|| fail "capped: $capped_idle MiB at idle, cap $CAP MiB"
[ "$capped_capname" = capped ] || fail "capped: plateau not at the given cap ($capped_capname)"
ok "capped: plateau at $capped_level MiB, at the cap"
