# Stopping never waits for a reading in flight, and leaves nothing behind.
# SIGTERM while a --work scrape hangs (a 30 s timeout) or a --work-cmd
# sleeps (a 60 s timeout): `record` exits within a second (it used to wait
# for the timeout: 12-27 s, up to the interval; systemd's 90 s stop timeout
# then kills it). A command's children that left its process group (setsid)
# are ended when record stops, and also when record is killed with kill -9
# (the reaper's parent-death signal): they used to outlive it.
. "$E2E_LIB"
SERVER="$(dirname "$E2E_LIB")/../helpers/metrics_server.py"
bg "$GROWER" --base 4 --ready "$T/ready" --exit-after 120
G=$LAST_BG
wait_for "$T/ready" 10
now() { "$PY" -c 'import time; print(time.monotonic())'; }
elapsed_ok() {  # WHAT START: the stop took < 1.5 s (1 s target, slack for a loaded machine)
	d=$("$PY" -c "import time,sys; print(round(time.monotonic() - float(sys.argv[1]), 3))" "$2")
	within "$d" 0 1.5 || fail "$1: stopping took $d s"
	echo "$1: stopped in $d s"
}

# 1. A hung scrape.
bg "$PY" "$SERVER" --port-file "$T/port" --mode-file "$T/mode"
wait_for "$T/port" 10
echo hang > "$T/mode"
bg "$MEMTREND" record -q -o "$T/a.db" -p "$G" -i 5s --work-timeout 30s \
	--work "http://127.0.0.1:$(cat "$T/port")/metrics#test_requests_total"
REC=$LAST_BG
sleep 1.5
t0=$(now)
kill -TERM "$REC"
wait "$REC"; rc=$?
[ $rc = 0 ] || fail "hung scrape: exit $rc"
elapsed_ok "hung scrape" "$t0"

# 2. A command that sleeps, with a child that left its group.
MARK="memtrend-stop-$$"
marked() { pgrep -f "$MARK" | grep -v "^$$\$" | wc -l; }
bg "$MEMTREND" record -q -o "$T/b.db" -p "$G" -i 5s --work-timeout 60s \
	--work-cmd "setsid sh -c 'exec -a $MARK sleep 300' </dev/null >/dev/null 2>&1 & sleep 300"
REC=$LAST_BG
sleep 1.5
[ "$(marked)" -ge 1 ] || fail "the command's escaped child did not start"
t0=$(now)
kill -TERM "$REC"
wait "$REC"; rc=$?
[ $rc = 0 ] || fail "sleeping command: exit $rc"
elapsed_ok "sleeping command" "$t0"
sleep 0.2
[ "$(marked)" = 0 ] || fail "$(marked) of the command's processes outlived record"
ok "SIGTERM: out within a second of a hung scrape and of a sleeping command; nothing left behind"

# 3. kill -9 of the recorder mid-reading.
bg "$MEMTREND" record -q -o "$T/c.db" -p "$G" -i 5s --work-timeout 60s \
	--work-cmd "setsid sh -c 'exec -a $MARK sleep 300' </dev/null >/dev/null 2>&1 & sleep 300"
REC=$LAST_BG
sleep 1.5
[ "$(marked)" -ge 1 ] || fail "the command's escaped child did not start (kill -9 case)"
kill -KILL "$REC"
wait "$REC" 2>/dev/null
i=0
while [ "$(marked)" != 0 ]; do
	i=$((i + 1)); [ $i -gt 40 ] && fail "$(marked) processes outlived kill -9 of record by 2 s"
	sleep 0.05
done
ok "kill -9 of record: the work command's processes, escaped ones too, end within $((i * 50)) ms"
