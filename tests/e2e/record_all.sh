# record --all: every process of this user, each its own target; a process
# started during the recording is picked up by the rescan, one that ends
# has its incarnation closed, memtrend itself and kernel threads are left
# out (and zombies), --max-targets bounds the count with one note; bad combinations
# exit 2.
. "$E2E_LIB"
bg "$GROWER" --base 8 --grow 256 --every 100 --ready "$T/r1" --exit-after 30
GROW=$LAST_BG
bg "$GROWER" --base 8 --grow 0 --every 100 --ready "$T/r2" --exit-after 30
STEADY=$LAST_BG
# A zombie: a child its parent (an exec'd sleep) never reaps.
bg sh -c 'sleep 0.1 & echo $! > "$1"; exec sleep 30' sh "$T/zombie"
wait_for "$T/r1" 10; wait_for "$T/r2" 10; wait_for "$T/zombie" 10
sleep 0.3
ZOMBIE=$(cat "$T/zombie")
grep -q "^State:.*Z" "/proc/$ZOMBIE/status" || fail "no zombie made"
"$MEMTREND" record -q -o "$T/all.db" --all --user "$(id -u)" -i 200ms -d 8s \
	--rescan 500ms 2> "$T/err" &
REC=$!
wait_for "$T/all.db" 10
# Started while recording (so a loaded machine cannot make them miss it):
# one that ends after 2 s, one that lives on. Each is picked up by a
# rescan (every 500 ms).
sleep 1
bg "$GROWER" --base 4 --grow 0 --every 100 --ready "$T/r3" --exit-after 2
SHORT=$LAST_BG
bg "$GROWER" --base 4 --grow 0 --every 100 --ready "$T/r4" --exit-after 30
LATE=$LAST_BG
wait $REC || fail "record --all exited $?: $(cat "$T/err")"
# Every one of ours is a target of kind "process", memtrend is not.
for p in $GROW $STEADY $SHORT $LATE; do
	n=$(sql "$T/all.db" "SELECT count(*) FROM incarnation i JOIN target t ON t.id = i.target_id WHERE i.pid = $p AND t.kind = 'process'")
	[ "$n" = 1 ] || fail "pid $p: $n incarnations, expected 1"
done
self=$(sql "$T/all.db" "SELECT count(*) FROM incarnation WHERE pid = $REC")
[ "$self" = 0 ] || fail "memtrend recorded itself"
kern=$(sql "$T/all.db" "SELECT count(*) FROM incarnation WHERE pid IN (2, $ZOMBIE) OR cmdline = '' OR cmdline IS NULL")
[ "$kern" = 0 ] || fail "$kern kernel threads or zombies recorded: $(sql "$T/all.db" "SELECT pid, comm FROM incarnation WHERE pid IN (2, $ZOMBIE) OR cmdline = '' OR cmdline IS NULL")"
# The one that ended was closed as exited; the late one has samples.
why=$(sql "$T/all.db" "SELECT end_reason FROM incarnation WHERE pid = $SHORT")
[ "$why" = exited ] || fail "ended process closed as '$why'"
late=$(sql "$T/all.db" "SELECT coalesce(sum(coalesce(s.repeats, 1)), 0) FROM sample s JOIN incarnation i ON i.id = s.incarnation_id WHERE i.pid = $LATE")
[ "$late" -ge 5 ] || fail "the late process has $late samples"
# The report ranks them; the growing one is growing, the steady one not.
"$MEMTREND" report "$T/all.db" --json > "$T/r.json" || fail "report exited $?"
verdict_of() { jget "$T/r.json" "[t['verdict'] for t in d['targets'] if $1 in t['pids']][0]"; }
[ "$(verdict_of $GROW)" = growing ] || fail "growing process: $(verdict_of $GROW)"
[ "$(verdict_of $STEADY)" != growing ] || fail "steady process called growing"
ok "--all: $(sql "$T/all.db" "SELECT count(*) FROM target") targets, late one picked up, ended one closed"

# --max-targets: at most N followed at once, said once.
"$MEMTREND" record -o "$T/max.db" --all --max-targets 2 -i 200ms -d 1s 2> "$T/err2" ||
	fail "record --max-targets exited $?"
n=$(sql "$T/max.db" "SELECT count(*) FROM target")
[ "$n" = 2 ] || fail "--max-targets 2: $n targets"
grep -q "max-targets" "$T/err2" || fail "no note about --max-targets: $(cat "$T/err2")"
notes=$(sql "$T/max.db" "SELECT count(*) FROM note WHERE text LIKE '%--max-targets%'")
[ "$notes" = 1 ] || fail "$notes notes about --max-targets"
ok "--max-targets bounds the targets, one note"

# Bad combinations and values: exit 2, nothing created.
for args in "--all -p $$" "--all --children" "--all --conn-port 80" \
	"--all --user no-such-user-xyz" "--all --max-targets 0" \
	"--all --max-targets -3" "--all --rescan fast" "--user root -p $$"; do
	# shellcheck disable=SC2086
	"$MEMTREND" record -q -o "$T/bad.db" $args -d 1s 2> "$T/err3"; rc=$?
	[ $rc = 2 ] || fail "'$args': exit $rc"
	[ -s "$T/err3" ] || fail "'$args': no message"
	[ ! -e "$T/bad.db" ] || fail "'$args' created the file"
done
ok "bad --all combinations exit 2"

# A machine without a DRM device (no /dev/dri, no /sys/class/drm): no
# process can hold a DRM client, so the recorder does not rescan every
# process's fds for one (issue 29: ~1.5 ms a second at 1,000 processes),
# and the recording says so. Where the device exists, it reads them.
src=$(sql "$T/max.db" "SELECT value FROM meta WHERE key = 'gpu_sources'")
if [ ! -e /dev/dri ] && [ ! -e /sys/class/drm ]; then
	case "$src" in "DRM: no device; NVML"*) ;; *) fail "gpu_sources without a DRM device: $src" ;; esac
else
	case "$src" in "DRM fdinfo; NVML"*) ;; *) fail "gpu_sources with a DRM device: $src" ;; esac
fi
ok "gpu_sources: $src"

# The open-file limit (three files are kept open per process): a soft
# limit below what --all needs is raised to the hard one, silently; a hard
# limit too low is said once, not once per process, and the recording goes
# on with the processes it could open. 60 sleeping processes need ~180.
sleepers=""
for i in $(seq 60); do bg sleep 30; sleepers="$sleepers $LAST_BG"; done
n=skipped
if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 4096 ]; then
	( ulimit -Sn 64 &&
	  exec "$MEMTREND" record -o "$T/soft.db" --all --user "$(id -u)" -i 200ms -d 1s ) \
		2> "$T/err4" || fail "record under a soft limit of 64 exited $?: $(cat "$T/err4")"
	! grep -q "open-file limit" "$T/err4" || fail "soft limit: $(cat "$T/err4")"
	n=$(sql "$T/soft.db" "SELECT count(DISTINCT i.pid) FROM incarnation i JOIN sample s ON s.incarnation_id = i.id")
	[ "$n" -ge 60 ] || fail "soft limit 64 (hard $(ulimit -Hn)): $n processes sampled"
fi
( ulimit -n 128 &&
  exec "$MEMTREND" record -o "$T/hard.db" --all --user "$(id -u)" -i 200ms -d 1s ) \
	2> "$T/err5" || fail "record under a hard limit of 128 exited $?: $(cat "$T/err5")"
lines=$(grep -c . "$T/err5")
[ "$lines" = 1 ] && grep -q "the open-file limit (128) is reached" "$T/err5" \
	|| fail "hard limit 128: $lines lines: $(head -5 "$T/err5")"
m=$(sql "$T/hard.db" "SELECT count(DISTINCT i.pid) FROM incarnation i JOIN sample s ON s.incarnation_id = i.id")
[ "$m" -ge 5 ] && [ "$m" -lt 60 ] || fail "hard limit 128: $m processes sampled"
# shellcheck disable=SC2086
kill $sleepers 2>/dev/null
ok "open-file limit: soft raised ($n sampled), hard said once ($m sampled)"
