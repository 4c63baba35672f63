# record --all --group-by, --cgroup: processes of one name are also one
# target of kind "group" whose footprint is the sum of its members at each
# sample, a group whose members all ended and came back has a second
# incarnation (a restart), the report lists the groups; --cgroup keeps the
# processes of the test's own memory cgroup only; bad values and
# combinations exit 2.
. "$E2E_LIB"
# Two names of our own (comm is the name of the file executed, a link's
# own name): unlikely to be any other process's on the machine.
A=mtga$$; B=mtgb$$; C=mtgc$$
ln -s "$GROWER" "$T/$A"; ln -s "$GROWER" "$T/$B"; cp "$GROWER" "$T/$C"
bg "$T/$A" --base 4 --grow 64 --every 100 --ready "$T/a1" --exit-after 30
A1=$LAST_BG
bg "$T/$A" --base 8 --ready "$T/a2" --exit-after 30
A2=$LAST_BG
bg "$T/$A" --base 2 --ready "$T/a3" --exit-after 30
A3=$LAST_BG
bg "$T/$B" --base 6 --ready "$T/b1" --exit-after 30
B1=$LAST_BG
bg "$T/$B" --base 3 --ready "$T/b2" --exit-after 30
B2=$LAST_BG
# C's only member is stopped once recorded; a new one comes later: the
# group restarts. Driven by what the file shows, not by sleeps.
bg "$T/$C" --base 2 --ready "$T/c1"
C1=$LAST_BG
for f in a1 a2 a3 b1 b2 c1; do wait_for "$T/$f" 10; done
"$MEMTREND" record -q -o "$T/g.db" --all --user "$(id -u)" --group-by name \
	-i 200ms -d 60s --rescan 300ms --commit-interval 200ms 2> "$T/err" &
REC=$!
# until_sql SECONDS WHAT QUERY [DB]: poll the recording (g.db) until QUERY
# prints 1 (read-only: sqlite3 must not create the file before memtrend).
until_sql() {
	local i=0
	until [ "$(sqlite3 "file:$T/${4:-g.db}?mode=ro" "$3" 2>/dev/null)" = 1 ]; do
		i=$((i + 1)); [ $i -gt $(( $1 * 10 )) ] && fail "timed out waiting for $2"
		kill -0 $REC 2>/dev/null || fail "record ended early: $(cat "$T/err")"
		sleep 0.1
	done
}
inc_of() { echo "SELECT count(*) >= $2 FROM incarnation i JOIN target t ON t.id = i.target_id WHERE t.spec = 'name=$C' AND $1"; }
until_sql 20 "group $C to start" "$(inc_of "i.pid = $C1" 1)"
sleep 1  # a few samples of it
kill "$C1"; wait "$C1" 2>/dev/null
until_sql 20 "group $C to end" "$(inc_of "i.end_reason = 'exited'" 1)"
bg "$T/$C" --base 2 --ready "$T/c2"
C2=$LAST_BG
until_sql 20 "group $C to restart" "$(inc_of "i.end_reason IS NULL" 1)"
sleep 3  # the sums below want at least 10 samples of every member
kill -INT $REC
wait $REC || fail "record --group-by name exited $?: $(cat "$T/err")"

# One group per name, kind "group", besides each process's own target.
for n in $A $B $C; do
	k=$(sql "$T/g.db" "SELECT count(*) FROM target WHERE kind = 'group' AND spec = 'name=$n' AND name = 'name=$n'")
	[ "$k" = 1 ] || fail "group name=$n: $k targets"
done
for p in $A1 $A2 $A3 $B1 $B2 $C1 $C2; do
	k=$(sql "$T/g.db" "SELECT count(*) FROM incarnation i JOIN target t ON t.id = i.target_id WHERE i.pid = $p AND t.kind = 'process'")
	[ "$k" = 1 ] || fail "pid $p: $k process incarnations"
done
# The group's footprint is the sum of its members' at each sample (the
# same readings: equal to the byte, a page allowed).
check_sum() {  # NAME PIDS MEMBERS
	local q
	q="WITH g AS (SELECT s.t, s.footprint FROM sample_expanded s JOIN incarnation i ON i.id = s.incarnation_id JOIN target t ON t.id = i.target_id WHERE t.spec = 'name=$1'),
	m AS (SELECT round(s.t, 3) AS t, sum(s.footprint) AS fp, count(*) AS n FROM sample_expanded s JOIN incarnation i ON i.id = s.incarnation_id JOIN target t ON t.id = i.target_id WHERE t.kind = 'process' AND i.pid IN ($2) GROUP BY round(s.t, 3))
	SELECT count(*), coalesce(sum(abs(g.footprint - m.fp) > 4096), -1) FROM g JOIN m ON m.t = round(g.t, 3) WHERE m.n = $3"
	local r; r=$(sql "$T/g.db" "$q")
	local rows=${r%|*} bad=${r#*|}
	[ "$rows" -ge 10 ] || fail "group $1: $rows samples with all $3 members (want >= 10)"
	[ "$bad" = 0 ] || fail "group $1: $bad of $rows samples differ from the members' sum"
	echo "$rows"
}
na=$(check_sum "$A" "$A1,$A2,$A3" 3)
nb=$(check_sum "$B" "$B1,$B2" 2)
# And it is the sum of something: A's members hold at least 14 MiB.
fa=$(sql "$T/g.db" "SELECT max(s.footprint) FROM sample s JOIN incarnation i ON i.id = s.incarnation_id JOIN target t ON t.id = i.target_id WHERE t.spec = 'name=$A'")
[ "$fa" -ge $((14 * 1048576)) ] || fail "group $A: footprint $fa"
ok "--group-by name: group = sum of members ($na and $nb samples checked)"

# C: one incarnation per span with members; the first ended as exited,
# with the identity of the member that opened it.
incs=$(sql "$T/g.db" "SELECT group_concat(i.pid || ':' || coalesce(i.end_reason, ''), ' ') FROM incarnation i JOIN target t ON t.id = i.target_id WHERE t.spec = 'name=$C' ORDER BY i.id")
[ "$incs" = "$C1:exited $C2:recording ended" ] || fail "group $C incarnations: '$incs'"
ok "a group whose members all ended starts a new incarnation: $incs"

# The report lists the groups (and their restart).
"$MEMTREND" report "$T/g.db" --json > "$T/r.json" || fail "report exited $?"
for n in $A $B $C; do
	k=$(jget "$T/r.json" "sum(1 for t in d['targets'] if t['name'] == 'name=$n (group)')")
	[ "$k" = 1 ] || fail "report: group name=$n listed $k times"
done
k=$(jget "$T/r.json" "[len(t['restarts']) for t in d['targets'] if t['name'] == 'name=$C (group)'][0]")
[ "$k" = 1 ] || fail "report: group $C has $k restarts"
"$MEMTREND" report "$T/g.db" > "$T/r.txt" || fail "text report exited $?"
grep -q "name=$A (group)" "$T/r.txt" || fail "text report lacks the group name=$A"
ok "report lists the groups"

# --cgroup: the test's own memory cgroup (the line memtrend reads: v1's
# memory controller, else the unified one). Our processes are in it;
# every process recorded is in it or below.
CG=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*://p' /proc/self/cgroup | head -1)
[ -n "$CG" ] || CG=$(sed -n 's/^0:://p' /proc/self/cgroup | head -1)
[ -n "$CG" ] || fail "no cgroup in /proc/self/cgroup"
"$MEMTREND" record -q -o "$T/cg.db" --all --cgroup "$CG" --group-by cgroup \
	-i 200ms -d 1s 2> "$T/err" || fail "record --cgroup exited $?: $(cat "$T/err")"
for p in $A1 $B1 $C2; do
	k=$(sql "$T/cg.db" "SELECT count(*) FROM incarnation i JOIN target t ON t.id = i.target_id WHERE i.pid = $p AND t.kind = 'process'")
	[ "$k" = 1 ] || fail "--cgroup $CG: pid $p recorded $k times"
done
out=0
for p in $(sql "$T/cg.db" "SELECT i.pid FROM incarnation i JOIN target t ON t.id = i.target_id WHERE t.kind = 'process'"); do
	pcg=$(sed -n 's/^[0-9]*:[^:]*\bmemory\b[^:]*://p' "/proc/$p/cgroup" 2>/dev/null | head -1)
	[ -n "$pcg" ] || pcg=$(sed -n 's/^0:://p' "/proc/$p/cgroup" 2>/dev/null | head -1)
	[ -z "$pcg" ] && continue  # ended since
	case "$CG" in
	/) ;;
	*) case "$pcg" in "$CG"|"$CG"/*) ;; *) out=$((out + 1)) ;; esac ;;
	esac
done
[ $out = 0 ] || fail "--cgroup $CG recorded $out processes of other cgroups"
k=$(sql "$T/cg.db" "SELECT count(*) FROM target WHERE kind = 'group' AND spec = 'cgroup=$CG'")
[ "$k" = 1 ] || fail "--group-by cgroup: no group cgroup=$CG"
if [ "$CG" != / ] && [ "$(cat /proc/1/cgroup)" != "$(cat /proc/self/cgroup)" ]; then
	k=$(sql "$T/cg.db" "SELECT count(*) FROM incarnation WHERE pid = 1")
	[ "$k" = 0 ] || fail "--cgroup $CG recorded pid 1, of another cgroup"
fi
# A name without '/' is one of the path's components: the last one here.
if [ "$CG" != / ]; then
	"$MEMTREND" record -q -o "$T/cg2.db" --all --cgroup "${CG##*/}" -i 200ms \
		-d 1s 2> "$T/err" || fail "record --cgroup ${CG##*/} exited $?: $(cat "$T/err")"
	k=$(sql "$T/cg2.db" "SELECT count(*) FROM incarnation WHERE pid = $A2")
	[ "$k" = 1 ] || fail "--cgroup ${CG##*/}: pid $A2 recorded $k times"
fi
# A cgroup nobody is in: no process.
"$MEMTREND" record -q -o "$T/none.db" --all --cgroup /no/such/cgroup.$$ \
	-i 200ms -d 1s 2> "$T/err" || fail "record --cgroup (none) exited $?"
k=$(sql "$T/none.db" "SELECT count(*) FROM target")
[ "$k" = 0 ] || fail "--cgroup /no/such/cgroup: $k targets"
ok "--cgroup $CG: only its processes; by unit name too; none elsewhere"

# --group-by unit: every group is a unit, named by its path's last unit.
"$MEMTREND" record -q -o "$T/u.db" --all --group-by unit -i 200ms -d 1s \
	2> "$T/err" || fail "record --group-by unit exited $?: $(cat "$T/err")"
k=$(sql "$T/u.db" "SELECT count(*) FROM target WHERE kind = 'group' AND NOT (spec GLOB 'unit=*.service' OR spec GLOB 'unit=*.scope' OR spec GLOB 'unit=*.slice' OR spec GLOB 'unit=*.socket' OR spec GLOB 'unit=*.mount' OR spec GLOB 'unit=*.swap')")
[ "$k" = 0 ] || fail "--group-by unit: $k groups that are no unit"
ok "--group-by unit: $(sql "$T/u.db" "SELECT count(*) FROM target WHERE kind = 'group'") unit groups"

# Fixture trees: the rules on known cgroup paths. proc-v2: 2001 in
# /system.slice/llama.service, 2002 in /user.slice/user-1000.slice/
# session-3.scope, 2003 in /, 2004 in /../../other.slice/x.scope (outside
# the namespace, shown as it is); proc-hybrid: 3101's v1 memory line and
# 3102's unified line.
F="$FIXTURES"
fx() {  # OUT PROC SYS ARGS...
	local out=$1 proc=$2 sys=$3; shift 3
	timeout 20 "$MEMTREND" record -q -o "$T/$out.db" --proc-root "$F/$proc" \
		--sys-root "$F/$sys" --all -i 100ms -d 0.3s "$@" ||
		fail "fixture record $* exited $?"
}
specs() { sql "$T/$1.db" "SELECT group_concat(kind || ':' || spec, ' ') FROM (SELECT kind, spec FROM target ORDER BY kind, spec)"; }
fx unit proc-v2 sys-v2 --group-by unit
got=$(specs unit)
[ "$got" = "group:unit=llama.service group:unit=session-3.scope group:unit=x.scope process:2001 process:2002 process:2003 process:2004" ] ||
	fail "--group-by unit on proc-v2: $got"
# A group of one is its member, sample for sample.
d=$(sql "$T/unit.db" "SELECT count(*) FROM sample_expanded g JOIN incarnation gi ON gi.id = g.incarnation_id JOIN target gt ON gt.id = gi.target_id JOIN incarnation mi ON mi.pid = 2001 JOIN target mt ON mt.id = mi.target_id AND mt.kind = 'process' JOIN sample_expanded m ON m.incarnation_id = mi.id AND round(m.t, 3) = round(g.t, 3) WHERE gt.spec = 'unit=llama.service' AND g.footprint = m.footprint")
[ "$d" -ge 2 ] || fail "group unit=llama.service: $d samples equal to its member's"
# ... so the report lists and ranks it once, as its process (issue 28:
# every one-process group beside its process, --top 10 showed 5).
"$MEMTREND" report "$T/unit.db" --json > "$T/unit.json" || fail "report of unit.db exited $?"
got=$(jget "$T/unit.json" "' '.join(sorted(t['name'] for t in d['targets']))")
[ "$got" = "bash llama-server outsider systemd" ] ||
	fail "report of --group-by unit on proc-v2: $got (a group of one beside its process)"
"$MEMTREND" report "$T/unit.db" --top 2 > "$T/unit.txt" || fail "report --top 2 exited $?"
got=$(sed -n 's/^ *[0-9][0-9]*  [a-z]* .* \([a-z-]*\)$/\1/p' "$T/unit.txt" | tr '\n' ' ')
[ "$got" = "llama-server systemd " ] || fail "report --top 2: '$got'"
fx fcg proc-v2 sys-v2 --cgroup llama.service --group-by cgroup
got=$(specs fcg)
[ "$got" = "group:cgroup=/system.slice/llama.service process:2001" ] ||
	fail "--cgroup llama.service --group-by cgroup: $got"
fx fcg2 proc-v2 sys-v2 --cgroup /user.slice/
[ "$(specs fcg2)" = "process:2002" ] || fail "--cgroup /user.slice/: $(specs fcg2)"
fx fcg3 proc-v2 sys-v2 --cgroup /system
[ "$(specs fcg3)" = "" ] || fail "--cgroup /system (a prefix, not a cgroup): $(specs fcg3)"
fx hy proc-hybrid sys-hybrid --group-by cgroup
got=$(specs hy)
[ "$got" = "group:cgroup=/system.slice/postgresql.service group:cgroup=/system.slice/redis.service process:3101 process:3102" ] ||
	fail "--group-by cgroup on proc-hybrid: $got"
ok "fixture trees: units, --cgroup paths and names, v1 and v2 lines; a group of one reported once"

# Unreadable processes (hidepid, another namespace, an LSM): skipped, one
# note, the others recorded. Root reads everything, so the recorder runs
# as nobody (setpriv) on a copy of proc-v2 whose 2003 it may not enter.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkdir "$T/unread"
	cp -r "$F/proc-v2" "$T/unread/proc"
	chmod 000 "$T/unread/proc/2003"
	chmod 777 "$T/unread"
	timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MEMTREND" record -o "$T/unread/u.db" \
		--proc-root "$T/unread/proc" --sys-root "$F/sys-v2" --all \
		-i 100ms -d 0.3s 2> "$T/unread/err" ||
		fail "record --all as nobody exited $?: $(cat "$T/unread/err")"
	got=$(specs unread/u)
	[ "$got" = "process:2001 process:2002 process:2004" ] ||
		fail "unreadable 2003: recorded $got"
	n=$(grep -c "cannot be read (pid 2003" "$T/unread/err" || true)
	[ "$n" = 1 ] || fail "unreadable 2003: $n notes on stderr: $(cat "$T/unread/err")"
	k=$(sql "$T/unread/u.db" "SELECT count(*) FROM note WHERE text LIKE 'some processes cannot be read (pid 2003%'")
	[ "$k" = 1 ] || fail "unreadable 2003: $k notes in the recording"
	ok "an unreadable process: skipped, one note (stderr and recording)"
else
	ok "an unreadable process: skipped (needs root and setpriv to drop to nobody)"
fi

# --max-targets bounds the groups too. In a copy of proc-v2 with room
# for two processes (2001, 2002; 2 is a kernel thread), 2001 ends: 2003
# takes its place, and its name would be a third group.
cp -r "$F/proc-v2" "$T/proc"
"$MEMTREND" record -o "$T/gmax.db" --proc-root "$T/proc" --sys-root "$F/sys-v2" \
	--all --group-by name --max-targets 2 -i 100ms --rescan 100ms -d 60s \
	--commit-interval 100ms 2> "$T/err4" &
REC=$!
until_sql 20 "2001 and 2002 followed" "SELECT count(*) = 2 FROM target WHERE kind = 'group'" gmax.db
# Gone: its kept status file says zombie, then its directory goes.
st=$(sed 's/^State:.*/State:	Z (zombie)/' "$T/proc/2001/status")
printf '%s\n' "$st" > "$T/proc/2001/status"
rm -rf "$T/proc/2001"
until_sql 20 "2003 followed" "SELECT count(*) = 1 FROM incarnation WHERE pid = 2003" gmax.db
sleep 0.5
kill -INT $REC
wait $REC || fail "record --max-targets 2 --group-by exited $?: $(cat "$T/err4")"
got=$(specs gmax)
[ "$got" = "group:name=bash group:name=llama-server process:2001 process:2002 process:2003" ] ||
	fail "--max-targets 2 --group-by name: $got"
k=$(sql "$T/gmax.db" "SELECT count(*) FROM note WHERE text LIKE '%groups%--max-targets%'")
[ "$k" = 1 ] || fail "$k notes about groups beyond --max-targets"
grep -q "more than 2 groups" "$T/err4" || fail "no note about groups: $(cat "$T/err4")"
ok "--max-targets bounds the groups, one note"

# Bad values and combinations: exit 2, nothing created.
for args in "--all --group-by foo" "--all --group-by" "--cgroup /x -p $$" \
	"--group-by name -p $$" "--all --cgroup ''" "--cgroup /x"; do
	eval "set -- $args"
	"$MEMTREND" record -q -o "$T/bad.db" "$@" -d 1s 2> "$T/err3"; rc=$?
	[ $rc = 2 ] || fail "'$args': exit $rc"
	[ -s "$T/err3" ] || fail "'$args': no message"
	[ ! -e "$T/bad.db" ] || fail "'$args' created the file"
done
ok "bad --group-by and --cgroup exit 2"
