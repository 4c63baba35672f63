# kill -9 of the recorder mid-run: the file opens, passes integrity_check
# and holds every sample up to the last committed batch. SIGTERM: flush,
# exit 0.
. "$E2E_LIB"
bg "$GROWER" --base 4 --grow 16 --every 50 --ready "$T/ready" --exit-after 60
G=$LAST_BG
wait_for "$T/ready" 10
"$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 0.05s --commit-interval 0.25s &
REC=$!; BG_PIDS="$BG_PIDS $REC"
sleep 3
kill -9 $REC; wait $REC 2>/dev/null
# 3 s at 50 ms is ~60 samples; commits every 0.25 s lose at most ~5 + start-up.
[ "$(sql "$T/run.db" "PRAGMA integrity_check")" = ok ] || fail "integrity_check after kill -9"
n=$(nsamples "$T/run.db")
echo "samples after kill -9: $n"
[ "$n" -ge 40 ] || fail "only $n samples survived"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report after kill -9"
# SIGTERM: clean stop, exit 0, every sample there.
"$MEMTREND" record -q -o "$T/term.db" -p "$G" -i 0.05s &
REC=$!; BG_PIDS="$BG_PIDS $REC"
sleep 1.5
kill -TERM $REC; wait $REC; rc=$?
[ $rc = 0 ] || fail "SIGTERM: exit $rc"
[ "$(sql "$T/term.db" "PRAGMA integrity_check")" = ok ] || fail "integrity after SIGTERM"
n2=$(nsamples "$T/term.db")
[ "$n2" -ge 20 ] || fail "SIGTERM: only $n2 samples"
# report reads a file that is still being written.
"$MEMTREND" record -q -o "$T/live.db" -p "$G" -i 0.05s -d 4s &
REC=$!; BG_PIDS="$BG_PIDS $REC"
sleep 2
"$MEMTREND" report "$T/live.db" --json > "$T/live.json" || fail "report of a live recording"
s=$(jget "$T/live.json" 'd["targets"][0]["samples"]')
[ "$s" -ge 10 ] || fail "live report saw $s samples"
wait $REC || fail "live recorder exit $?"
ok "kill -9: $n samples intact; SIGTERM: $n2 samples, exit 0; live report saw $s"
# --append after a kill -9 goes on with the same process: one target, one
# incarnation (it used to become a second target, with a verdict of its
# own), its samples from both runs.
"$MEMTREND" record -q -o "$T/ap.db" -p "$G" -i 0.1s &
REC=$!
sleep 1.5
kill -KILL $REC; wait $REC 2>/dev/null
n1=$(nsamples "$T/ap.db")
"$MEMTREND" record -q -o "$T/ap.db" --append -p "$G" -i 0.1s -d 1.5s || fail "--append exit $?"
[ "$(sql "$T/ap.db" "SELECT count(*) FROM target")" = 1 ] || fail "--append: $(sql "$T/ap.db" "SELECT count(*) FROM target") targets"
[ "$(sql "$T/ap.db" "SELECT count(*) FROM incarnation")" = 1 ] || fail "--append: a second incarnation"
"$MEMTREND" report "$T/ap.db" --json > "$T/ap.json" || fail "report after --append"
[ "$(jget "$T/ap.json" 'len(d["targets"])')" = 1 ] || fail "--append: the report has several targets"
s=$(jget "$T/ap.json" 'd["targets"][0]["samples"]')
[ "$s" -gt "$n1" ] || fail "--append: $s samples, no more than the $n1 before"
ok "--append after kill -9: one target, one incarnation, $n1 + more = $s samples"
