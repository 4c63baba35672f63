# watch: the live view under a real terminal (tmux on a private server
# socket, 80x24, no status line). Checks what a person sees -- the
# footprint line, the sparkline, the slope, the progress bar, nothing
# wider than the terminal --, that a resize is followed, that Ctrl-C,
# SIGTERM and 'q' end the recording cleanly (exit 0, the normal screen
# back, the database intact), that the recorder's warnings go to the
# view's log line and to stderr afterwards, that a command named with an
# escape sequence shows escaped, the ASCII fallback, and the plain lines
# when stdout is not a terminal. Every wait is bounded.
. "$E2E_LIB"
command -v tmux >/dev/null 2>&1 || { echo "skip: tmux not installed"; exit 77; }
need sqlite3
export LANG=C.UTF-8
unset LC_ALL LC_CTYPE
SOCK="memtrend-test-$$"
cat > "$T/tmux.conf" <<'EOF'
set -g default-shell /bin/bash
set -g status off
set -g remain-on-exit on
EOF
tmx() { tmux -u -L "$SOCK" -f "$T/tmux.conf" "$@"; }
watch_cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	cleanup
}
trap watch_cleanup EXIT
WAIT=20
[ -n "${SANITIZED:-}" ] && WAIT=40

# until SECONDS CMD...: retry CMD every 0.1 s; false after SECONDS.
until_ok() {
	local limit=$(( $1 * 10 )) i=0
	shift
	until "$@"; do
		i=$((i + 1))
		[ $i -gt $limit ] && return 1
		sleep 0.1
	done
}
cap() { tmx capture-pane -p -t "$1"; }
alt_on() { tmx display -p -t "$1" '#{alternate_on}'; }
# The widest line of stdin, in characters (UTF-8).
widest() {
	"$PY" -c 'import sys; t=sys.stdin.buffer.read().decode("utf-8","replace"); print(max([len(l) for l in t.split("\n")] or [0]))'
}
shows() { cap "$1" | grep -qE -- "$2"; }
# The file holds the 5 samples db_ok wants: the view is fed live, ahead
# of the file's commits, so a slope can show before they are saved.
enough() { [ "$(nsamples "$1" 2>/dev/null || echo 0)" -ge 5 ]; }
# A script for a pane: runs the command line given, then writes its exit
# status and a marker, and keeps the pane open. The command's pid goes to
# NAME.pid (exec keeps it in the foreground process group).
pane_script() {
	local name=$1
	shift
	{
		echo "cd $(printf %q "$T")"
		printf 'sh -c '"'"'echo $$ > %q; exec "$@"'"'"' sh' "$T/$name.pid"
		printf ' %q' "$@"
		echo
		echo "echo \$? > $(printf %q "$T/$name.rc")"
		echo "echo WATCH-ENDED"
		echo "exec sleep 600"
	} > "$T/$name.sh"
}
db_ok() {
	[ "$(sql "$1" 'PRAGMA integrity_check')" = ok ] || fail "$1: integrity check failed"
	local n
	n=$(nsamples "$1")
	[ "$n" -ge 5 ] || fail "$1: only $n samples"
	timeout 60 "$MEMTREND" report "$1" > "$T/report.txt" || fail "report of $1 failed"
	echo "$n"
}

bg "$GROWER" --base 20 --grow 64 --every 100 --ready "$T/g1.ready"
G1=$LAST_BG
wait_for "$T/g1.ready" 10

# --- 1. the screen at 80x24, a resize, Ctrl-C -----------------------------
pane_script a "$MEMTREND" watch -o "$T/a.db" -p "$G1" -i 200ms
tmx new-session -d -s a -x 80 -y 24 "bash $T/a.sh"
until_ok $WAIT shows a '^progress +\[' || { cap a; fail "no progress line"; }
until_ok $WAIT shows a '^slope +[+-]?[0-9]' || { cap a; fail "no slope"; }
cap a > "$T/a1.txt"
grep -qE '^footprint +[0-9.]+ [KMG]iB = anon [0-9.]+ [KMG]iB \+ swap .* \+ shmem .*; +file ' "$T/a1.txt" ||
	fail "footprint line: $(grep footprint "$T/a1.txt")"
grep -qE '^recent +[▁▂▃▄▅▆▇█]{3,}  [0-9.]+ [KMG]iB \.\. [0-9.]+ [KMG]iB' "$T/a1.txt" ||
	fail "sparkline: $(grep recent "$T/a1.txt")"
grep -qE '^slope +\+[0-9.]+ [KMG]iB/h  \(95 % interval ' "$T/a1.txt" ||
	fail "slope line: $(grep slope "$T/a1.txt")"
grep -qE '^verdict +(growing|inconclusive|stable|plateau)' "$T/a1.txt" || fail "verdict line"
grep -qE '^target +grower: pid [0-9]+ ' "$T/a1.txt" || fail "target line"
grep -qE '^progress +\[[█░]+\] ' "$T/a1.txt" || fail "progress line: $(grep progress "$T/a1.txt")"
grep -q '⣀\|⠉\|⠒\|⠤' "$T/a1.txt" || fail "no braille plot"
grep -qE '^refresh +every ' "$T/a1.txt" || fail "refresh line"
[ "$(sed -n 24p "$T/a1.txt" | cut -c1-7)" = refresh ] || fail "refresh is not on row 24"
w=$(widest < "$T/a1.txt")
[ "$w" -le 80 ] || fail "a line of $w columns in an 80-column terminal"
[ "$(alt_on a)" = 1 ] || fail "not on the alternate screen"
ok "80x24: footprint, sparkline, slope, progress, plot; widest line $w"

tmx resize-window -t a -x 100 -y 30
until_ok $WAIT sh -c "[ \"\$(tmux -u -L $SOCK capture-pane -p -t a | sed -n 30p | cut -c1-7)\" = refresh ]" ||
	{ cap a; fail "the layout did not follow the resize to 100x30"; }
cap a > "$T/a2.txt"
w=$(widest < "$T/a2.txt")
[ "$w" -gt 80 ] && [ "$w" -le 100 ] || fail "after the resize the widest line is $w (want 81..100)"
ok "resized to 100x30: widest line $w, refresh on row 30"

until_ok $WAIT enough "$T/a.db" || { cap a; fail "5 samples never saved (a)"; }
tmx send-keys -t a C-c
until_ok $WAIT test -s "$T/a.rc" || { cap a; fail "Ctrl-C did not end watch"; }
[ "$(cat "$T/a.rc")" = 0 ] || fail "exit status $(cat "$T/a.rc") after Ctrl-C"
until_ok 5 shows a WATCH-ENDED || fail "no marker after the end"
[ "$(alt_on a)" = 0 ] || fail "alternate screen still on after Ctrl-C"
cap a > "$T/a3.txt"
grep -q '^progress' "$T/a3.txt" && fail "the view is still on the screen after the end"
grep -q '(ended; evidence: memtrend report ' "$T/a3.txt" || fail "no final line: $(cat "$T/a3.txt")"
n=$(db_ok "$T/a.db")
ok "Ctrl-C: exit 0, normal screen back, database intact ($n samples)"

# --- 2. SIGTERM, ASCII, an escape sequence in the name, a warning ---------
ln -s "$GROWER" "$T/$(printf 'evil\033[2Jname')"
pane_script b env LC_ALL=C "$MEMTREND" watch -o "$T/b.db" -i 200ms \
	--work-cmd 'echo not-a-number' -- "$T/$(printf 'evil\033[2Jname')" --base 10
tmx new-session -d -s b -x 80 -y 24 "bash $T/b.sh"
until_ok $WAIT shows b '^log +memtrend: warning: ' || { cap b; fail "the recorder's warning is not on the log line"; }
until_ok $WAIT shows b '^slope +[+-]?[0-9]' || { cap b; fail "no slope (b)"; }
cap b > "$T/b1.txt"
grep -qF 'evil\x1b[2Jname' "$T/b1.txt" || fail "the name is not escaped: $(grep target "$T/b1.txt")"
LC_ALL=C grep -q '[^ -~]' "$T/b1.txt" && fail "non-ASCII on an ASCII terminal: $(LC_ALL=C grep '[^ -~]' "$T/b1.txt")"
grep -qE '^recent +[_.:=+*#-]{3,}  ' "$T/b1.txt" || fail "ASCII sparkline: $(grep recent "$T/b1.txt")"
grep -qE '^ *[0-9.]+ [KMG]iB \+' "$T/b1.txt" || fail "ASCII plot axis"
[ "$(widest < "$T/b1.txt")" -le 80 ] || fail "too wide (b)"
until_ok $WAIT enough "$T/b.db" || { cap b; fail "5 samples never saved (b)"; }
pid=$(cat "$T/b.pid")
kill -TERM "$pid"
until_ok $WAIT test -s "$T/b.rc" || { cap b; fail "SIGTERM did not end watch"; }
[ "$(cat "$T/b.rc")" = 0 ] || fail "exit status $(cat "$T/b.rc") after SIGTERM (the command exits 0 on TERM)"
until_ok 5 shows b WATCH-ENDED || fail "no marker after SIGTERM"
[ "$(alt_on b)" = 0 ] || fail "alternate screen still on after SIGTERM"
cap b > "$T/b2.txt"
grep -q 'memtrend: warning: .*not-a-number\|memtrend: warning: ' "$T/b2.txt" ||
	fail "the warning was not copied to stderr after the view: $(cat "$T/b2.txt")"
grep -qF 'evil\x1b[2Jname' "$T/b2.txt" || fail "final line: the name is not escaped"
n=$(db_ok "$T/b.db")
sql "$T/b.db" "SELECT name FROM target" | grep -q "$(printf '\033')" || fail "the raw name was not recorded"
ok "SIGTERM: exit 0, screen restored, ASCII view, name escaped, warning kept ($n samples)"

# --- 3. 'q' -------------------------------------------------------------------
pane_script c "$MEMTREND" watch -o "$T/c.db" -p "$G1" -i 200ms
tmx new-session -d -s c -x 80 -y 24 "bash $T/c.sh"
until_ok $WAIT shows c '^slope +[+-]?[0-9]' || { cap c; fail "no slope (c)"; }
until_ok $WAIT enough "$T/c.db" || { cap c; fail "5 samples never saved (c)"; }
tmx send-keys -t c q
until_ok $WAIT test -s "$T/c.rc" || { cap c; fail "'q' did not end watch"; }
[ "$(cat "$T/c.rc")" = 0 ] || fail "exit status $(cat "$T/c.rc") after 'q'"
[ "$(alt_on c)" = 0 ] || fail "alternate screen still on after 'q'"
db_ok "$T/c.db" > /dev/null
ok "'q' stops: exit 0, screen restored"

# --- 4. not a terminal: plain lines ------------------------------------------
timeout 60 "$MEMTREND" watch -o "$T/d.db" -p "$G1" -i 200ms -d 3s 2> "$T/d.err" | cat > "$T/d.out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "plain mode: exit $rc: $(cat "$T/d.err")"
lines=$(wc -l < "$T/d.out")
[ "$lines" -ge 2 ] || fail "plain mode: $lines lines: $(cat "$T/d.out")"
grep -q "$(printf '\033')" "$T/d.out" && fail "plain mode wrote escape sequences"
grep -vqE '^[0-9]+:[0-9]{2}:[0-9]{2}  grower  samples [0-9]+  footprint [0-9.]+ [KMG]iB' "$T/d.out" &&
	fail "plain line format: $(cat "$T/d.out")"
tail -n 1 "$T/d.out" | grep -q '(ended; evidence: memtrend report ' || fail "no final plain line"
db_ok "$T/d.db" > /dev/null
ok "plain lines when stdout is a pipe ($lines lines)"

# --- 5. exit codes as record: the command's status, and usage errors ---------
timeout 60 "$MEMTREND" watch -o "$T/e.db" -i 100ms -- "$GROWER" --exit-after 1 --exit-code 7 > /dev/null
rc=$?
[ "$rc" = 7 ] || fail "watch -- COMMAND: exit $rc, expected the command's 7"
timeout 10 "$MEMTREND" watch -o "$T/f.db" -p 999999999 > /dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || fail "watch -p of no process: exit $rc, expected 2"
ok "exit codes: the command's status, 2 for usage"
