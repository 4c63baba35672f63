# watch --all: a live table of every process (this user's), ranked as a
# report ranks them, refreshed as samples come: when stdout is a pipe, a
# block per refresh and a final one; on a terminal (tmux, 100x24) a
# screen cut to --top rows and to the terminal's width; names escaped.
# Also record --all's status line (on a pty: script(1)) says what its
# figures are about, and --top is refused where it means nothing.
# Before (issue 28): "0 samples / waiting for samples" for the whole run,
# and the status line showed PID 1's footprint, unlabelled. Every wait is
# bounded; about 8 s on an idle machine.
. "$E2E_LIB"
need tmux script
export LANG=C.UTF-8
unset LC_ALL LC_CTYPE
SOCK="memtrend-wa-$$"
tmx() { tmux -u -L "$SOCK" -f /dev/null "$@"; }
wa_cleanup() {
	tmux -L "$SOCK" kill-server 2>/dev/null
	cleanup
}
trap wa_cleanup EXIT
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
# rows FILE FROM: the table rows of FILE from line FROM on, as
# "pid samples verdict name" (python's reading of the fixed columns).
rows() {
	"$PY" - "$1" "${2:-1}" <<'EOF'
import re, sys
row = re.compile(r"^\s*(\d+)\s+(\d+|-)\s+(\S+)\s+(-|\S+ \S+)\s+(-|\S+ \S+)\s+(\d+)  (.*)$")
lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
for l in lines[int(sys.argv[2]) - 1:]:
	m = row.match(l)
	if m:
		print(m.group(2), m.group(6), m.group(3), m.group(7))
EOF
}

bg "$GROWER" --base 8 --grow 256 --every 100 --ready "$T/g.ready" --exit-after 60
G=$LAST_BG
ln -s "$GROWER" "$T/$(printf 'evil\033[2Jname')"
bg "$T/$(printf 'evil\033[2Jname')" --base 4 --grow 0 --every 100 --ready "$T/e.ready" --exit-after 60
E=$LAST_BG
wait_for "$T/g.ready" 10
wait_for "$T/e.ready" 10

# --- 1. not a terminal: a block per refresh, the final one -----------------
timeout 60 "$MEMTREND" watch --all --user "$(id -u)" -o "$T/a.db" -i 200ms \
	-d 3s --top 10000 2> "$T/a.err" | cat > "$T/a.out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || fail "watch --all: exit $rc: $(cat "$T/a.err")"
grep -q 'waiting for samples\|no samples yet' "$T/a.out" && fail "still waiting: $(head "$T/a.out")"
blocks=$(grep -c '^[0-9]*:[0-9][0-9]:[0-9][0-9]  \(recording\|stopping\|ended\)  [0-9]* targets\?  ' "$T/a.out")
[ "$blocks" -ge 2 ] || fail "$blocks blocks: $(cat "$T/a.out")"
last=$(grep -n '  ended  ' "$T/a.out" | tail -n 1 | cut -d: -f1)
[ -n "$last" ] || fail "no final block: $(tail "$T/a.out")"
head_line=$(sed -n "${last}p" "$T/a.out")
n=$(echo "$head_line" | sed -n 's/.*  ended  \([0-9]*\) targets\?  .*/\1/p')
[ "${n:-0}" -ge 2 ] || fail "final block: $head_line"
rows "$T/a.out" "$last" > "$T/a.rows"
[ "$(wc -l < "$T/a.rows")" = "$n" ] || fail "$n targets but $(wc -l < "$T/a.rows") rows: $(sed -n "$last,\$p" "$T/a.out")"
# Every row has samples; ours are there with theirs.
awk '$2 == 0 { exit 1 }' "$T/a.rows" || fail "a row with 0 samples: $(awk '$2 == 0' "$T/a.rows")"
gs=$(awk -v p="$G" '$1 == p { print $2 }' "$T/a.rows")
[ "${gs:-0}" -ge 5 ] || fail "the grower (pid $G): '${gs:-}' samples: $(cat "$T/a.rows")"
# The names are escaped; nothing raw reaches the pipe.
grep -qF 'evil\x1b[2Jname' "$T/a.out" || fail "the name is not escaped: $(grep -a evil "$T/a.out")"
grep -q "$(printf '\033')" "$T/a.out" && fail "an escape sequence on stdout"
# The file holds what the table counted for the grower (the view is fed
# by the recorder, not the file: the same samples).
fs=$(sql "$T/a.db" "SELECT coalesce(sum(coalesce(s.repeats, 1)), 0) FROM sample s JOIN incarnation i ON i.id = s.incarnation_id WHERE i.pid = $G")
[ "$fs" = "$gs" ] || fail "the table says $gs samples for the grower, the file $fs"
ok "plain: $blocks blocks, $n targets in the final one, the grower's $gs samples as in the file"

# --- 2. a terminal: the screen, --top --------------------------------------
tmx new-session -d -s a -x 100 -y 24 "$MEMTREND watch --all --user $(id -u) -o $T/b.db -i 200ms -d 30s --top 3; sleep 600"
shows_rows() {
	tmx capture-pane -p -t a > "$T/b.txt" 2>/dev/null || return 1
	rows "$T/b.txt" > "$T/b.rows"
	[ "$(wc -l < "$T/b.rows")" = 3 ] && awk '$2 == 0 { exit 1 }' "$T/b.rows" &&
		grep -q '^   \.\.\. [0-9]* more (memtrend report ' "$T/b.txt"
}
until_ok $WAIT shows_rows || { cat "$T/b.txt"; fail "the screen never showed 3 rows with samples"; }
grep -qE '^memtrend watch  .*/b\.db  recording every 200 ms  [0-9:]+  [0-9]+ targets' "$T/b.txt" ||
	fail "title: $(head -n 1 "$T/b.txt")"
grep -qE '^ +# +PID +VERDICT SO FAR +SLOPE +FOOTPRINT +SAMPLES +TARGET' "$T/b.txt" || fail "column heads"
w=$("$PY" -c 'import sys; print(max(len(l) for l in open(sys.argv[1], encoding="utf-8").read().split("\n")))' "$T/b.txt")
[ "$w" -le 100 ] || fail "a line of $w columns in a 100-column terminal"
tmx send-keys -t a q
until_ok $WAIT sh -c "! tmux -L $SOCK capture-pane -p -t a | grep -q '^refresh '" || fail "'q' did not end watch --all"
ok "screen: 3 rows (--top 3) with samples, the rest counted, widest line $w"

# --- 3. record --all's status line, on a pty ---------------------------------
timeout 60 script -qfec "$MEMTREND record --all --user $(id -u) -o $T/c.db -i 200ms -d 2s" /dev/null > "$T/c.out" 2>&1 ||
	fail "record --all under script: $(cat "$T/c.out")"
tr '\r' '\n' < "$T/c.out" | grep -aE 'recording [0-9.]+ [a-z]+  [0-9]+ samples  [0-9]+ process(es)? \(sum [0-9.]+ [KMG]iB, largest .+ [0-9.]+ [KMG]iB\)' > "$T/c.lines" ||
	fail "no labelled status line: $(tr '\r' '\n' < "$T/c.out" | tail -n 3)"
tr '\r' '\n' < "$T/c.out" | grep -a 'footprint .* slope ' && fail "the first process's figures, unlabelled"
ok "record --all: $(tail -n 1 "$T/c.lines" | sed 's/^.*recording/recording/')"

# --- 4. --top where it means nothing ---------------------------------------------
timeout 10 "$MEMTREND" record --all -o "$T/d.db" --top 3 -d 1s 2> "$T/d.err"
[ $? = 2 ] || fail "record --top: not a usage error"
grep -q "watch --all" "$T/d.err" || fail "record --top: $(cat "$T/d.err")"
timeout 10 "$MEMTREND" watch -p "$G" -o "$T/e.db" --top 3 -d 1s > /dev/null 2> "$T/e.err"
[ $? = 2 ] || fail "watch -p --top: not a usage error"
ok "--top refused without watch --all"
