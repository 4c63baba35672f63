# `memtrend check` ends everything it started, on every way out (issue 31,
# point 4): the service (-- SERVICE) and the load, with whatever they
# started -- here each leaves a child in a session of its own (setsid) --
# when the run ends, when check is sent SIGINT, SIGTERM or SIGHUP alone
# (not its process group), and when check is killed with kill -9. Their
# processes carry a mark in their environment (MEMTREND_TEST_MARK), so
# that a leftover is found wherever it went. Before: the setsid children
# outlived every run; after kill -9 the load and the service kept running;
# SIGINT to check's pid left the service running and check took 10 s.
. "$E2E_LIB"
MARKED="$(dirname "$E2E_LIB")/../helpers/marked.py"
marked() { "$PY" "$MARKED" "$@"; }
trap 'marked "$M" --kill; cleanup' EXIT
M="check-cleanup-$$-$RANDOM"
SVC='setsid sleep 300 & exec sleep 300'
# check with a 1 GiB/h budget on the sleeping service (the load added)
CHECK=(check -q --max-growth 1GiB/h --allow-inconclusive -i 100ms)
none_left() {
	marked "$2" --until-eq 0 --within 0 >/dev/null ||
		fail "$1: processes outlived check: $(marked "$2" --until-eq 0 --within 0 2>&1)"
}

# 1. A normal end: the load (one second) leaves a setsid sleeper.
MEMTREND_TEST_MARK=$M.n timeout 60 "$MEMTREND" "${CHECK[@]}" \
	--load 'setsid sleep 300 & sleep 1' -- sh -c "$SVC" > "$T/n.out" 2> "$T/n.err"; rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "a load that ends: exit $rc: $(cat "$T/n.err")"
none_left "a load that ends" "$M.n"
ok "a run that ends: the service, the load and both setsid children are gone (exit $rc)"

# 2. kill -9 of check while the load runs.
MEMTREND_TEST_MARK=$M.k "$MEMTREND" "${CHECK[@]}" \
	--load 'setsid sleep 300 & sleep 300' -- sh -c "$SVC" > "$T/k.out" 2> "$T/k.err" &
CHK=$!; BG_PIDS="$BG_PIDS $CHK"
marked "$M.k" --name sleep --until-ge 4 >/dev/null || fail "kill -9: the service and load did not start: $(cat "$T/k.err")"
{ kill -KILL "$CHK"; wait "$CHK"; } 2>/dev/null
took=$(marked "$M.k" --until-eq 0 --within 10) ||
	fail "kill -9 of check: $(marked "$M.k" --until-eq 0 --within 0 2>&1)"
ok "kill -9 of check: the service, the load and their children gone ($took)"

# 3. A signal to check's pid alone: the run ends at once, nothing left.
now() { "$PY" -c 'import time; print(time.monotonic())'; }
for sig in INT TERM HUP; do
	MEMTREND_TEST_MARK=$M.$sig "$MEMTREND" "${CHECK[@]}" --load 'setsid sleep 300 & sleep 300' \
		-- sh -c "$SVC" > "$T/$sig.out" 2> "$T/$sig.err" &
	CHK=$!; BG_PIDS="$BG_PIDS $CHK"
	marked "$M.$sig" --name sleep --until-ge 4 >/dev/null ||
		fail "SIG$sig: the service and load did not start: $(cat "$T/$sig.err")"
	t0=$(now)
	kill -"$sig" "$CHK"
	wait "$CHK"; rc=$?
	d=$("$PY" -c "import time,sys; print(round(time.monotonic() - float(sys.argv[1]), 2))" "$t0")
	[ $rc = 3 ] || fail "SIG$sig: exit $rc, expected 3 (interrupted): $(cat "$T/$sig.err")"
	grep -q "interrupted by signal" "$T/$sig.err" || fail "SIG$sig: $(cat "$T/$sig.err")"
	within "$d" 0 2 || fail "SIG$sig to check: out after $d s (the service's stop waited)"
	none_left "SIG$sig" "$M.$sig"
	echo "SIG$sig: out in $d s"
done
ok "SIGINT, SIGTERM, SIGHUP to check's pid alone: out within 2 s, nothing left"

# 4. The load's reaper is a copy of check, whose command line holds the
# --name pattern: it is never taken for the service when the service
# goes and is looked for again (it was, as a restart, once the load ran
# under a reaper).
MEMTREND_TEST_MARK=$M.r bg bash -c "exec -a '$M-svc' sleep 300"
SVCPID=$LAST_BG
MEMTREND_TEST_MARK=$M.r "$MEMTREND" check -q --max-growth 1GiB/h -i 100ms \
	-o "$T/r.db" --name "$M-svc" --load 'sleep 300' > "$T/r.out" 2> "$T/r.err" &
CHK=$!; BG_PIDS="$BG_PIDS $CHK"
marked "$M.r" --name sleep --until-ge 2 >/dev/null || fail "--name: the load did not start: $(cat "$T/r.err")"
kill "$SVCPID"
# its end committed, then two more seconds of system samples: rescans
# (every tick while nothing matches) have had their chance
q() { sqlite3 -readonly "$T/r.db" "$1" 2>/dev/null; }
i=0
until [ "$(q 'SELECT count(*) FROM incarnation WHERE end_reason IS NOT NULL')" = 1 ] 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 200 ] && fail "--name: the service's end not recorded in 10 s"
	sleep 0.05
done
n0=$(q 'SELECT count(*) FROM system_sample')
until [ "$(q 'SELECT count(*) FROM system_sample')" -ge $((n0 + 2)) ] 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 400 ] && fail "--name: no system samples"
	sleep 0.05
done
kill -TERM "$CHK"; wait "$CHK"
inc=$(sqlite3 "$T/r.db" "SELECT group_concat(comm) FROM incarnation")
[ "$inc" = sleep ] || fail "--name: incarnations '$inc': the load's reaper was taken for the service"
ok "--name: the load's reaper is never taken for the service"
