# record -- COMMAND ends the whole tree memtrend started, and nothing else
# (issue 31, point 5). The command's processes carry a mark in their
# environment (MEMTREND_TEST_MARK, inherited by all they start), so that a
# leftover is found whatever it is called and wherever it went: a
# subshell's orphan, a child that left the group and session (setsid), a
# plain background job. Before: `record -d` and a stop ended only the
# direct child, so every one of them kept running under PID 1 (2-3 per
# case below), and so did the whole tree after kill -9 of record.
. "$E2E_LIB"
MARKED="$(dirname "$E2E_LIB")/../helpers/marked.py"
marked() { "$PY" "$MARKED" "$@"; }
trap 'marked "$M" --kill; cleanup' EXIT
M="record-tree-$$-$RANDOM"
TREE='(sleep 300 &) ; setsid sleep 300 & sleep 300 & wait'
# none_left CASE MARK: nothing of the run is left the moment record is out.
none_left() {
	marked "$2" --until-eq 0 --within 0 >/dev/null ||
		fail "$1: processes outlived record: $(marked "$2" --until-eq 0 --within 0 2>&1)"
}

# 1. -d: the command is sent SIGTERM; what it started goes with it.
MEMTREND_TEST_MARK=$M.d bg "$MEMTREND" record -q --children -o "$T/d.db" \
	-i 200ms -d 3s -- sh -c "$TREE"
REC=$LAST_BG
marked "$M.d" --name sleep --until-ge 3 >/dev/null || fail "-d: the command's three sleeps did not start"
wait "$REC"; rc=$?
[ $rc = 0 ] || fail "-d: exit $rc"
none_left "-d 3s" "$M.d"
ok "-d 3s: the subshell's orphan, the setsid child and the background job end with the command"

# 2. The command's own exit: its leftovers are ended, its status passed on.
MEMTREND_TEST_MARK=$M.x timeout 30 "$MEMTREND" record -q -o "$T/x.db" -i 200ms \
	-- sh -c 'setsid sleep 300 & sleep 300 & exit 3'; rc=$?
[ $rc = 3 ] || fail "a command that exits 3 leaving children: exit $rc"
none_left "the command's exit" "$M.x"
ok "the command exits 3: exit 3, its children left behind are ended"

# 3. SIGTERM to record: forwarded to the command, the rest ended.
MEMTREND_TEST_MARK=$M.t bg "$MEMTREND" record -q -o "$T/t.db" -i 200ms \
	-- sh -c "$TREE"
REC=$LAST_BG
marked "$M.t" --name sleep --until-ge 3 >/dev/null || fail "SIGTERM: the sleeps did not start"
kill -TERM "$REC"
wait "$REC"; rc=$?
[ $rc = 143 ] || fail "SIGTERM: exit $rc, expected the command's 143"
none_left "SIGTERM" "$M.t"
ok "SIGTERM to record: the command ends on it (exit 143), nothing left"

# 3b. SIGINT to record's pid alone (not from a terminal) is passed on too
# (it used to be taken for a terminal's Ctrl-C, which reaches the command
# by itself: record waited 10 s and left the command running).
MEMTREND_TEST_MARK=$M.i bg "$MEMTREND" record -q -o "$T/i.db" -i 200ms \
	-- sh -c "$TREE"
REC=$LAST_BG
marked "$M.i" --name sleep --until-ge 3 >/dev/null || fail "SIGINT: the sleeps did not start"
t0=$("$PY" -c 'import time; print(time.monotonic())')
kill -INT "$REC"
wait "$REC"; rc=$?
d=$("$PY" -c "import time,sys; print(round(time.monotonic() - float(sys.argv[1]), 2))" "$t0")
[ $rc = 130 ] || fail "SIGINT: exit $rc, expected the command's 130"
within "$d" 0 2 || fail "SIGINT to record: out after $d s"
none_left "SIGINT" "$M.i"
ok "SIGINT to record's pid: passed on (exit 130 in $d s), nothing left"

# 4. kill -9 of record: the reaper's parent-death signal ends the tree.
MEMTREND_TEST_MARK=$M.k bg "$MEMTREND" record -q --children -o "$T/k.db" \
	-i 200ms -- sh -c "$TREE"
REC=$LAST_BG
marked "$M.k" --name sleep --until-ge 3 >/dev/null || fail "kill -9: the sleeps did not start"
kill -KILL "$REC"
wait "$REC" 2>/dev/null
took=$(marked "$M.k" --until-eq 0 --within 10) ||
	fail "kill -9 of record: $(marked "$M.k" --until-eq 0 --within 0 2>&1)"
ok "kill -9 of record: the command's whole tree gone ($took)"

# 5. What memtrend did not start is never ended: -p and --name, with
# --children, -d and a stop.
MEMTREND_TEST_MARK=$M.p bg setsid bash -c "sleep 300 & exec -a '$M-svc' sleep 300"
SVC=$LAST_BG
marked "$M.p" --name sleep --until-ge 2 >/dev/null || fail "-p: the service did not start"
"$MEMTREND" record -q --children -o "$T/p.db" -i 200ms -d 1s -p "$SVC" || fail "-p: exit $?"
bg "$MEMTREND" record -q --children -o "$T/n.db" -i 200ms --name "^$M-svc"
REC=$LAST_BG
wait_for "$T/n.db" 10
i=0
until [ "$(sqlite3 -readonly "$T/n.db" 'SELECT count(*) FROM sample' 2>/dev/null)" -gt 0 ] 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 200 ] && fail "--name: no sample in 10 s"
	sleep 0.05
done
kill -TERM "$REC"
wait "$REC"; rc=$?
[ $rc = 0 ] || fail "--name: exit $rc"
n=$(marked "$M.p" --name sleep)
[ "$n" = 2 ] || fail "-p/--name: $n of the service's 2 processes left"
kill "$SVC"
ok "-p and --name: the service and its child are left running"

# 6. A terminal's Ctrl-C reaches the command by itself (it runs in
# memtrend's foreground process group): it is not sent a second time.
cat > "$T/ints.py" <<'PYEOF'
import signal, sys, time
n = 0
def on_int(sig, frame):
    global n
    n += 1
    open(sys.argv[1], "w").write(str(n))
    signal.alarm(1)          # a second SIGINT would land within this
signal.signal(signal.SIGINT, on_int)
signal.signal(signal.SIGALRM, lambda s, f: sys.exit(0))
open(sys.argv[1], "w").write("0")
while True:
    time.sleep(0.05)
PYEOF
cat > "$T/ctrl_c.py" <<'PYEOF'
import os, pty, sys, time
count = sys.argv[1]
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
for _ in range(400):
    if os.path.exists(count):
        break
    time.sleep(0.05)
os.write(fd, b"\x03")
while True:
    try:
        if not os.read(fd, 1024):
            break
    except OSError:
        break
_, st = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(st), open(count).read())
PYEOF
r=$(MEMTREND_TEST_MARK=$M.c timeout 30 "$PY" "$T/ctrl_c.py" "$T/ints" "$MEMTREND" record -q \
	-o "$T/c.db" -i 200ms -- "$PY" "$T/ints.py" "$T/ints")
[ "$r" = "0 1" ] || fail "Ctrl-C on a terminal: exit and SIGINTs seen by the command '$r', expected '0 1'"
none_left "Ctrl-C" "$M.c"
ok "Ctrl-C on a terminal: the command sees it once, exits 0, nothing left"
