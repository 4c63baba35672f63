# -- COMMAND: memtrend starts it, records it until it exits, and passes its
# exit status on.
. "$E2E_LIB"
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -i 0.1s -- "$GROWER" --grow 64 --every 50 --exit-after 2 --exit-code 7
rc=$?
[ $rc = 7 ] || fail "exit status $rc, expected the command's 7"
n=$(nsamples "$T/run.db")
[ "$n" -ge 10 ] || fail "only $n samples"
kind=$(sql "$T/run.db" "SELECT kind FROM target")
[ "$kind" = command ] || fail "target kind $kind"
# A command that cannot be started is a usage error, not a hang.
timeout 10 "$MEMTREND" record -q -o "$T/bad.db" -- /nonexistent/cmd 2> "$T/err"
rc=$?
[ $rc = 2 ] || fail "missing command: exit $rc, expected 2"
grep -q "cannot run '/nonexistent/cmd'" "$T/err" || fail "message: $(cat "$T/err")"
ok "command recorded ($n samples), exit status 7 passed on"
# --duration ends a command memtrend started: SIGTERM, recorded to its
# exit, memtrend exits 0 (the recording ended by plan), nothing left behind.
start=$(date +%s.%N)
"$MEMTREND" record -q -o "$T/dur.db" -i 200ms -d 2s -- sleep 30; rc=$?
took=$("$PY" -c "import sys,time; print(time.time() - float(sys.argv[1]))" "$start")
[ $rc = 0 ] || fail "-d with a command: exit $rc"
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) < 8 else 1)" "$took" || fail "-d 2s took $took s"
why=$(sql "$T/dur.db" "SELECT end_reason FROM incarnation")
[ "$why" = exited ] || fail "-d: the command's incarnation ended as '$why'"
pgrep -f "^sleep 30$" > /dev/null && pgrep -f "^sleep 30$" | while read -r p; do
	[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = 1 ] && fail "-d left 'sleep 30' running (pid $p)"
done
# A start that fails leaves no file, so the retry is not refused.
"$MEMTREND" record -q -o "$T/nofile.db" -d 1s -- /nonexistent/command 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "missing command: exit $rc"
[ ! -e "$T/nofile.db" ] || fail "a failed start left $T/nofile.db"
"$MEMTREND" record -q -o "$T/nofile.db" -d 1s -p 2147483646 2> /dev/null; rc=$?
[ $rc = 2 ] || fail "missing pid: exit $rc"
[ ! -e "$T/nofile.db" ] || fail "a failed start (no such pid) left $T/nofile.db"
ok "-d ends the command; a failed start leaves no file"
# The work counter of a service memtrend starts may not answer at once:
# those first gaps are expected (a note when it answers, no warning); a
# counter that never answers is still warned about, at the end.
"$MEMTREND" record -o "$T/late.db" -i 200ms -d 3s --work-cmd "cat '$T/count'" \
	-- sh -c "sleep 1; echo 5 > '$T/count'; exec sleep 30" 2> "$T/late.err"; rc=$?
[ $rc = 0 ] || fail "a counter answering late: exit $rc: $(cat "$T/late.err")"
! grep -q "warning" "$T/late.err" || fail "a starting service's counter was warned about: $(cat "$T/late.err")"
grep -q "work counter 'requests' answers (its first [0-9]* readings were gaps while the service started)" \
	"$T/late.err" || fail "no note when the counter answered: $(cat "$T/late.err")"
r=$(sql "$T/late.db" "SELECT count(*) - count(value), count(value) FROM source_sample")
case "$r" in 0\|*|*\|0) fail "gaps|readings = $r: expected both" ;; esac
"$MEMTREND" record -o "$T/never.db" -i 200ms -d 2s --work-cmd "cat '$T/none'" \
	-- sleep 30 2> "$T/never.err"; rc=$?
[ $rc = 0 ] || fail "a counter never answering: exit $rc: $(cat "$T/never.err")"
grep -q "warning: work counter 'requests' (command .*) never answered: [0-9]* readings, all gaps (the last: " \
	"$T/never.err" || fail "a counter that never answered was not warned about: $(cat "$T/never.err")"
[ "$(sql "$T/never.db" "SELECT count(*) FROM note WHERE text LIKE '%never answered%'")" = 1 ] ||
	fail "the warning is not in the recording's notes"
ok "a starting service's counter: gaps and a note; one never answering: a warning ($r gaps|readings)"
