# --name follows a service across a restart: two incarnations, two pids,
# recorded under one target; it waits for the service to appear.
. "$E2E_LIB"
TAG="e2e-restart-$$"
timeout 30 "$MEMTREND" record -q -o "$T/run.db" --name "$TAG" -i 0.1s -d 7s &
REC=$!; BG_PIDS="$BG_PIDS $REC"
sleep 1   # the recorder waits: nothing matches yet
bg "$GROWER" --base 4 --tag "$TAG" --ready "$T/r1" --exit-after 2.5
P1=$LAST_BG
wait_for "$T/r1" 10
wait "$P1" 2>/dev/null
bg "$GROWER" --base 8 --tag "$TAG" --ready "$T/r2" --exit-after 30
P2=$LAST_BG
wait_for "$T/r2" 10
wait "$REC"; rc=$?
[ $rc = 0 ] || fail "record exited $rc"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
pids=$(jget "$T/r.json" '" ".join(str(p) for p in d["targets"][0]["pids"])')
echo "pids=$pids (expected $P1 $P2)"
[ "$pids" = "$P1 $P2" ] || fail "incarnations: '$pids', expected '$P1 $P2'"
n=$(sql "$T/run.db" "SELECT count(*) FROM incarnation")
[ "$n" = 2 ] || fail "$n incarnation rows"
ended=$(sql "$T/run.db" "SELECT end_reason FROM incarnation WHERE pid=$P1")
[ "$ended" = exited ] || fail "first incarnation end_reason '$ended'"
ok "two incarnations ($P1, $P2) under one --name target"
