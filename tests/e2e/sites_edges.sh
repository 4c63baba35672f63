# record --sites at its edges (docs/sites.md): the shim never touches a
# descriptor of the program's own; kill -9 of memtrend leaves no region
# file; the sites a command adds after the last sample are declared at
# its end; a wrapper's exec of a static program drops the wrapper's
# sites; --children says that children have no sites. About 6 s.
. "$E2E_LIB"
: "${SITES_PROG:?}" "${SITES_STATIC:?}"
# The shim never touches a descriptor of the program's own: the command's
# fd 3, its own, is read whole (before: the shim took 3 for the region's
# number, closed it, and wc said "No such file").
printf 'twelve bytes' > "$T/three"
timeout 30 "$MEMTREND" record -q -o "$T/fd.db" --sites -- \
	sh -c 'wc -c /dev/fd/3 3<"$0"' "$T/three" > "$T/out" 2> "$T/err" ||
	fail "record --sites, fd 3: $(cat "$T/err")"
[ "$(cat "$T/out")" = "12 /dev/fd/3" ] ||
	fail "the command's fd 3: '$(cat "$T/out")', expected '12 /dev/fd/3'"
ok "the command's own fd 3 left alone"
# kill -9 of memtrend leaves no region file: it has no name from the
# start (before: it stayed in /dev/shm until the first sample after the
# shim claimed it, and a static command never claims it).
shm_before=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
bg "$MEMTREND" record -q -o "$T/k.db" --sites -- \
	"$SITES_STATIC" "$T/started" 60
wait_for "$T/started" 30
kill -9 "$LAST_BG"
wait "$LAST_BG" 2> /dev/null
shm_after=$(ls /dev/shm 2>/dev/null | grep -c '^memtrend-sites-')
[ "$shm_after" -le "$shm_before" ] ||
	fail "kill -9 left $((shm_after - shm_before)) region file(s) in /dev/shm"
ok "kill -9 of memtrend leaves nothing in /dev/shm"
# The sites a command adds after the last sample are declared when it
# ends, not dropped: at -i 1h there is no sample after the first, and the
# program's four sites (leak, cache, buffer, churn) are all in the
# recording (before: 1, from the only read).
timeout 30 "$MEMTREND" record -q -o "$T/end.db" -i 1h --sites \
	--sites-rate 1KiB -- "$SITES_PROG" 1 "$T/end.log" 200 \
	> /dev/null 2> "$T/err" || fail "record --sites -i 1h: $(cat "$T/err")"
n=$(sql "$T/end.db" "SELECT count(*) FROM site")
[ "$n" -ge 4 ] || fail "$n sites recorded at the end, expected 4 or more"
ok "$n sites declared at the command's end"
# A wrapper that execs a program the shim cannot load (static): the
# wrapper's sites fall to 0 (its heap is gone) and a warning says so
# (before: they stayed live at their last value, 2.5 MB here).
timeout 30 "$MEMTREND" record -q -o "$T/ex.db" -i 100ms --sites \
	--sites-rate 4KiB -- bash -c 'x=$(seq 1 200000); y="$x$x"; sleep 1;
	exec "$0" "$1" 1' "$SITES_STATIC" "$T/ex.started" 2> "$T/err" ||
	fail "record --sites, exec of a static program: $(cat "$T/err")"
"$MEMTREND" report --json "$T/ex.db" > "$T/ex.json" 2> /dev/null ||
	fail "report of the exec"
live=$(jget "$T/ex.json" "sum(r['last_bytes'] for r in d['targets'][0]['sites']['ranked'])")
[ "$live" = 0 ] || fail "the wrapper's sites hold $live B after its exec"
"$MEMTREND" report "$T/ex.db" > "$T/ex.txt" 2>&1
grep -q "exec'd a program the shim cannot load" "$T/ex.txt" ||
	fail "no word of the exec: $(cat "$T/ex.txt")"
ok "exec of a static program: the wrapper's sites at 0, said"
# --children: a child target gets no sites, and the report says so
# (before: nothing said). The child lives 2 s: 20 ticks at -i 100ms.
timeout 30 "$MEMTREND" record -q -o "$T/ch.db" -i 100ms --children \
	--sites -- sh -c '"$0" "$1" 2; true' "$SITES_STATIC" "$T/ch.started" \
	2> "$T/err" || fail "record --sites --children: $(cat "$T/err")"
"$MEMTREND" report "$T/ch.db" > "$T/ch.txt" 2>&1
grep -q "only the command itself is sampled, not its children" \
	"$T/ch.txt" || fail "no note of children without sites: $(cat "$T/ch.txt")"
ok "--children: the note that children have no sites"
