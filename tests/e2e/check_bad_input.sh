# `memtrend check` when the run cannot be judged, or its input is wrong,
# and the time basis (--max-growth) without a work counter.
# Exit codes (docs/check.md): 2 for usage and bad input, 3 for a run that
# failed (the load command failed, the service died), 1 for inconclusive.
# Services here are tests/helpers/grower.c: --grow 256 --every 100 maps
# and touches exactly 256 KiB every 100 ms, 9,000 MiB/h; --base alone
# holds still.
. "$E2E_LIB"
XSD=$(cd "$(dirname "$E2E_LIB")/../fixtures/junit" && pwd)/junit.xsd
chk() { timeout 60 "$MEMTREND" check -q --interval 100ms "$@"; }

# A --name that matches nothing: check waits at most 30 s for it, then
# exits 3 saying so (a gate must end, not hang until the CI's timeout).
# In the background, while the rest runs; collected at the end.
NOMATCH="memtrend-no-such-servic[e]-$$"   # [e]: matches no command line holding it
( chk --max-growth 1MiB/h --load 'sleep 1' --name "$NOMATCH" --junit "$T/nomatch.xml" \
	> "$T/nomatch.out" 2> "$T/nomatch.err"; echo $? > "$T/nomatch.rc" ) &
NOMATCH_PID=$!

# Bad input: exit 2, nothing started.
for args in "--max-per-request lots --work-cmd true" \
	    "--max-per-request 1KiB/h --work-cmd true" \
	    "--max-growth 1KiB/req" "--max-growth fast" \
	    "--max-per-request 1KiB" "--max-growth 1MiB/h --warmup 100" \
	    "--max-growth 1MiB/h --max-per-request 1KiB --work-cmd true" \
	    "--warmup soon --max-growth 1MiB/h" \
	    "--max-growth 1MiB/h --allow" "--max-growth 1MiB/h --all"; do
	# shellcheck disable=SC2086
	chk $args --load true -- "$GROWER" --base 1 > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc = 2 ] || fail "check $args: exit $rc, expected 2: $(cat "$T/err")"
	grep -q "error" "$T/err" || fail "check $args: no message"
done
echo "a bad budget: $(chk --max-per-request lots --work-cmd true --load true -- true 2>&1)"
# Options are not abbreviated: --all is not --allow-inconclusive.
chk --max-growth 1MiB/h --all --load true -- true > /dev/null 2> "$T/err"
grep -q "unknown option or missing value: '--all'" "$T/err" || fail "--all: $(cat "$T/err")"
chk --max-growth 1MiB/h -- "$GROWER" --base 1 > /dev/null 2> "$T/err"
rc=$?; [ $rc = 2 ] || fail "no --load: exit $rc"
grep -q -- "--load" "$T/err" || fail "no --load: $(cat "$T/err")"

# A load command that fails: exit 3, its status shown.
chk --max-growth 1MiB/h --load 'exit 7' -- "$GROWER" --base 1 > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "a failing load: exit $rc: $(cat "$T/err")"
grep -q "the load command failed (exit status 7)" "$T/err" || fail "load status not shown: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "a failed run printed a judgement: $(cat "$T/out")"
echo "failing load: $(cat "$T/err")"

# A service that dies while the load runs: exit 3.
chk --max-growth 1MiB/h --load 'sleep 20' -- "$GROWER" --base 1 \
	--exit-after 1 --exit-code 5 > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "a dying service: exit $rc: $(cat "$T/err")"
grep -q "the service exited (exit status 5) before the load finished" "$T/err" || fail "$(cat "$T/err")"
echo "dying service: $(cat "$T/err")"
# The same with --json and --junit: a CI job still gets its reports,
# an "error" outcome and a JUnit <error> naming the service (grower).
chk --max-growth 1MiB/h --load 'sleep 20' --json --junit "$T/died.xml" \
	-- "$GROWER" --base 1 --exit-after 1 --exit-code 5 > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ] || fail "a dying service, --json: exit $rc: $(cat "$T/err")"
python3 - "$T/out" <<'PY' || fail "JSON of a failed run: $(cat "$T/out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["outcome"] == "error", d
assert d["message"] == "the service exited (exit status 5) before the load finished", d
assert d["targets"] == [], d
PY
grep -q '<testcase classname="memtrend.check" name="grower" ' "$T/died.xml" &&
	grep -q '<error type="run" message="the service exited (exit status 5) before the load finished">' "$T/died.xml" &&
	grep -q 'tests="1" failures="0" errors="1" skipped="0"' "$T/died.xml" ||
	fail "JUnit of a failed run: $(cat "$T/died.xml")"

# A counter that never moves: inconclusive, "no work", exit 1; allowed:
# exit 0 with a warning, and a skipped testcase in JUnit.
chk --max-per-request 1KiB --work-cmd 'echo 5' --load 'sleep 2' \
	--junit "$T/nowork.xml" -- "$GROWER" --base 4 > "$T/out" 2> "$T/err"
rc=$?
cat "$T/out"
[ $rc = 1 ] || fail "no work: exit $rc: $(cat "$T/err")"
grep -q "^INCONCLUSIVE .*no work: the work counter did not move" "$T/out" || fail "no work: $(cat "$T/out")"
grep -q '<failure type="inconclusive"' "$T/nowork.xml" || fail "JUnit: $(cat "$T/nowork.xml")"
# A counter that cannot be read: too few readings of it, not "no work".
chk --max-per-request 1KiB --work-cmd 'exit 1' --load 'sleep 2' \
	-- "$GROWER" --base 4 > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 1 ] || fail "an unreadable counter: exit $rc: $(cat "$T/err")"
grep -q "^INCONCLUSIVE .*too few readings after the warm-up: [0-9]* of memory, 0 of the work counter" "$T/out" ||
	fail "an unreadable counter: $(cat "$T/out")"
chk --max-per-request 1KiB --work-cmd 'echo 5' --load 'sleep 2' \
	--allow-inconclusive --junit "$T/allowed.xml" -- "$GROWER" --base 4 \
	> "$T/out" 2> "$T/err"
rc=$?
[ $rc = 0 ] || fail "--allow-inconclusive: exit $rc"
grep -q "warning: check: inconclusive, allowed by --allow-inconclusive" "$T/err" || fail "no warning: $(cat "$T/err")"
grep -q '<skipped message=".*no work' "$T/allowed.xml" || fail "JUnit: $(cat "$T/allowed.xml")"
if command -v xmllint > /dev/null; then
	xmllint --noout --schema "$XSD" "$T/nowork.xml" "$T/allowed.xml" \
		"$T/died.xml" || fail "JUnit not valid"
fi

# The time basis: 9,000 MiB/h of growth fails a 1 GiB/h budget and passes
# a 64 GiB/h one; a process holding still passes 1 GiB/h. --duration ends
# the run (the load, a sleep, is then stopped: not a failure).
chk --max-growth 1GiB/h --duration 3s --load 'sleep 30' -- "$GROWER" \
	--base 4 --grow 256 --every 100 > "$T/out" 2> "$T/err"
rc=$?; cat "$T/out"
[ $rc = 1 ] || fail "growth over a time budget: exit $rc: $(cat "$T/err")"
grep -q "^FAIL .*GiB/h \[.*\] over .*, budget 1 GiB/h" "$T/out" || fail "$(cat "$T/out")"
chk --max-growth 64GiB/h --duration 3s --load 'sleep 30' -- "$GROWER" \
	--base 4 --grow 256 --every 100 > "$T/out" 2> "$T/err"
rc=$?; cat "$T/out"
[ $rc = 0 ] || fail "growth under a time budget: exit $rc: $(cat "$T/out" "$T/err")"
chk --max-growth 1GiB/h --warmup 1s --load 'sleep 4' -- "$GROWER" --base 4 \
	> "$T/out" 2> "$T/err"
rc=$?; cat "$T/out"
[ $rc = 0 ] || fail "no growth under a time budget: exit $rc: $(cat "$T/out" "$T/err")"
wait "$NOMATCH_PID"
[ "$(cat "$T/nomatch.rc")" = 3 ] || fail "--name matching nothing: exit $(cat "$T/nomatch.rc"): $(cat "$T/nomatch.err")"
grep -qF "no process matched --name '$NOMATCH' within 30 s" "$T/nomatch.err" ||
	fail "--name matching nothing: $(cat "$T/nomatch.err")"
grep -q '<error type="run"' "$T/nomatch.xml" || fail "--name matching nothing: JUnit $(cat "$T/nomatch.xml")"
ok "a --name that matches nothing ends after 30 s with exit 3"
ok "bad budgets exit 2; a failing load and a dying service exit 3; no work is inconclusive; the time basis judges"
