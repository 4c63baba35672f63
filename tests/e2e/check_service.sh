# `memtrend check` on the README's Python example (issue 27, point 6): a
# real `python3 -m http.server` on loopback, started through `sh -c 'exec
# ... 2>access.log'`, the work counter its access log (--work-log), a
# real load (tests/helpers/load_client.py, N requests). What must hold,
# whatever the machine's speed or load:
#  - the target, its JSON and its JUnit testcase are named after the
#    service the shell execs (python3), not the shell;
#  - every request of the load is counted: the count runs from a reading
#    taken before the load to one taken after it (exactly N);
#  - the log, created only when the service starts (here after a pause,
#    as a slow service would), is no warning within the start-up grace;
#  - a warm-up longer than the whole run says to change --warmup, not
#    --interval;
#  - a shell that execs nothing is warned about (the shell is measured).
. "$E2E_LIB"
need xmllint
H=$(cd "$(dirname "$E2E_LIB")/../helpers" && pwd)
XSD=$(cd "$(dirname "$E2E_LIB")/../fixtures/junit" && pwd)/junit.xsd
N=400
cd "$T" || fail "cd $T"
# svc NAME EXEC CHECK-ARGS...: check the http.server on a free port,
# EXEC "exec" or ""; $T/NAME.json, $T/NAME.err, $T/NAME.rc.
svc() {
	local name=$1 exec=$2; shift 2
	local port; port=$(free_port)
	rm -f "$T/access.log"
	timeout 120 "$MEMTREND" check --json --interval 250ms \
		--max-per-request 64KiB \
		--work-log "$T/access.log" --match '"GET /' \
		--load "$PY $H/load_client.py --port $port --requests $N" \
		"$@" -- sh -c "sleep 0.5; $exec $PY -m http.server $port \
			--bind 127.0.0.1 2>'$T/access.log'" \
		> "$T/$name.json" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
}
field() { jget "$T/$1.json" "d['targets'][0]['$2']"; }

svc run exec --junit "$T/run.xml"
rc=$(cat "$T/run.rc")
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "exit $rc: $(cat "$T/run.json" "$T/run.err")"
echo "$(field run name): $(field run message)"
[ "$(field run name)" = python3 ] || fail "the target is named $(field run name), not python3"
grep -q '<testcase classname="memtrend.check" name="python3"' "$T/run.xml" ||
	fail "JUnit testcase: $(cat "$T/run.xml")"
xmllint --noout --schema "$XSD" "$T/run.xml" || fail "JUnit output is not valid"
done_n=$(grep -c '"GET /' "$T/access.log")
[ "$done_n" = "$N" ] || fail "the log holds $done_n requests, the load made $N"
req=$(field run requests)
within "$req" "$N" "$N" || fail "counted $req of the load's $N requests"
! grep -q "cannot open" "$T/run.err" || fail "the log was warned about while the service started: $(cat "$T/run.err")"
! grep -q "execs nothing" "$T/run.err" || fail "a shell that execs the service was warned about"

# The warm-up outlasts the run: the advice is --warmup.
svc warm exec --warmup 1h
[ "$(cat "$T/warm.rc")" = 1 ] || fail "a warm-up past the run: exit $(cat "$T/warm.rc"): $(cat "$T/warm.err")"
msg=$(field warm message)
echo "warm-up of 1 h: $msg"
case "$msg" in *"(--warmup)"*) ;; *) fail "the advice does not name --warmup: $msg" ;; esac
case "$msg" in *"--interval"*) fail "the advice names --interval: $msg" ;; esac

# No exec: the shell stays and is what is measured; said so.
svc noexec "" --allow-inconclusive
grep -q "warning: check: the service is a shell script that execs nothing" "$T/noexec.err" ||
	fail "no warning for a shell that execs nothing: $(cat "$T/noexec.err")"
[ "$(field noexec name)" = sh ] || fail "a shell that execs nothing is named $(field noexec name)"
ok "check names python3, counts $req of $N requests, no log warning while starting; a long warm-up points at --warmup; a shell without exec is warned about"
