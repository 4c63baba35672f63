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
