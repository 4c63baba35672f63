# Bad input gets a clear error and the right exit code; a target that
# exits mid-recording ends the recording cleanly; unreadable smaps_rollup
# is a note, not a failure.
. "$E2E_LIB"
# Unknown PID: exit 2, clear message.
"$MEMTREND" record -q -o "$T/x.db" -p 2147483646 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "unknown pid: exit $rc"
grep -q "no process with PID 2147483646" "$T/err" || fail "message: $(cat "$T/err")"
# report --folded on data without allocation sites (a CSV): exit 2, and
# the message says how to get them.
printf 'time,footprint\n1700000000,100\n1700000060,200\n1700000120,300\n' > "$T/nosites.csv"
"$MEMTREND" report --folded hour "$T/nosites.csv" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--folded without sites: exit $rc"
grep -q "record it with --sites" "$T/err" || fail "--folded without sites: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "--folded without sites printed: $(cat "$T/out")"
# and --pprof: exit 2, no file left
"$MEMTREND" report --pprof "$T/p.pb" "$T/nosites.csv" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--pprof without sites: exit $rc"
grep -q "record it with --sites" "$T/err" || fail "--pprof without sites: $(cat "$T/err")"
[ -z "$(ls "$T" | grep '^p\.pb')" ] || fail "--pprof without sites left $(ls "$T" | grep '^p\.pb')"
# Usage errors.
"$MEMTREND" record -p 1 2> /dev/null; [ $? = 2 ] || fail "missing -o not exit 2"
"$MEMTREND" record -o "$T/y.db" -p 1 --interval fast 2> "$T/err"; [ $? = 2 ] || fail "bad interval not exit 2"
grep -q "cannot read 'fast' as a duration" "$T/err" || fail "interval message: $(cat "$T/err")"
# --retain: a positive duration, at least the interval (record and watch
# share the option); nothing is created.
for v in 0 -1 abc; do
	for verb in record watch; do
		"$MEMTREND" $verb -q -o "$T/r.db" -p 1 --retain "$v" 2> "$T/err"; rc=$?
		[ $rc = 2 ] || fail "$verb --retain $v: exit $rc"
		grep -q -- "--retain: '$v'\|--retain: cannot read '$v'" "$T/err" ||
			fail "$verb --retain $v: message $(cat "$T/err")"
	done
done
grep -q "cannot read 'abc' as a duration" "$T/err" || fail "--retain abc: $(cat "$T/err")"
"$MEMTREND" record -q -o "$T/r.db" -p 1 --retain 0 2> "$T/err"
grep -q "must be longer than 0" "$T/err" || fail "--retain 0: $(cat "$T/err")"
"$MEMTREND" record -q -o "$T/r.db" -p 1 --retain -1 2> "$T/err"
grep -q "must be a positive duration" "$T/err" || fail "--retain -1: $(cat "$T/err")"
"$MEMTREND" record -q -o "$T/r.db" -p 1 -i 10s --retain 5s 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--retain shorter than the interval: exit $rc"
grep -q "shorter than the interval" "$T/err" || fail "--retain < interval: $(cat "$T/err")"
[ ! -e "$T/r.db" ] || fail "a refused --retain created the file"
"$MEMTREND" frobnicate 2> /dev/null; [ $? = 2 ] || fail "unknown command not exit 2"
"$MEMTREND" report "$T/nope.csv" 2> /dev/null; [ $? = 2 ] || fail "missing file not exit 2"
"$MEMTREND" report --help | grep -q "usage: memtrend report" || fail "report --help"
"$MEMTREND" record --help | grep -q "usage: memtrend record" || fail "record --help"
"$MEMTREND" --version | grep -q "^memtrend [0-9]" || fail "--version"
# An existing output file is not overwritten.
: > "$T/exists.db"; echo x > "$T/exists.db"
"$MEMTREND" record -q -o "$T/exists.db" -p $$ -d 1 2> "$T/err"; [ $? = 2 ] || fail "existing output not refused"
grep -q "already exists" "$T/err" || fail "existing message"
# A bad CSV row: line and column named, exit 2, nothing printed as a result.
printf 'time,footprint\n1000,10MB\n1060,11MB\n1120,abc\n1180,12MB\n' > "$T/bad.csv"
"$MEMTREND" report "$T/bad.csv" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "bad csv: exit $rc"
grep -q ":4" "$T/err" && grep -q "footprint" "$T/err" || fail "bad csv message: $(cat "$T/err")"
[ ! -s "$T/out" ] || fail "bad csv: a report was printed: $(cat "$T/out")"
# Hostile and absurd input (issue "Never finer than the evidence"): each a
# clear error naming the line (and column), exit 2, nothing reported.
bad_report() {  # WHAT EXPECTED-MESSAGE FILE [report options]
	what=$1 msg=$2 file=$3
	shift 3
	timeout 20 "$MEMTREND" report "$file" "$@" > "$T/out" 2> "$T/err"; rc=$?
	[ $rc = 2 ] || fail "$what: exit $rc, $(head -c 300 "$T/err")"
	grep -qF "$msg" "$T/err" || fail "$what: message $(head -c 300 "$T/err")"
	[ ! -s "$T/out" ] || fail "$what: a report was printed"
}
# An empty name before '=', an empty work command: refused, not taken
# as a cap named "" or a counter that never answers.
printf 't,footprint\n1,1000\n2,1000\n' > "$T/ok.csv"
bad_report "--cap =SIZE" "has no name before '='" "$T/ok.csv" --cap =1MiB
"$MEMTREND" record -q -o "$T/w.db" --work-cmd '' -d 1s -- true 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q -- "--work-cmd: an empty command" "$T/err" || fail "--work-cmd '': exit $rc, $(cat "$T/err")"
[ ! -e "$T/w.db" ] || fail "--work-cmd '': a file was created"
head -c 20000000 /dev/zero > "$T/zeros.csv"
bad_report "NUL bytes, no line break" "zeros.csv:1: a row longer than 16 MiB" "$T/zeros.csv"
printf 'time,footprint\n1000,1e308\n' > "$T/huge.csv"
bad_report "size over 1 EiB" "huge.csv:2: column 'footprint': size '1e308' is over 1 EiB" "$T/huge.csv"
printf 'time,footprint\n1e300,5 GB\n' > "$T/far.csv"
bad_report "time 1e300" "far.csv:2: column 'time': time '1e300' is outside" "$T/far.csv"
printf 'time,footprint\n0000-01-01T00:00:00Z,5 GB\n' > "$T/year0.csv"
bad_report "year 0000" "is outside 1970-9999" "$T/year0.csv"
"$PY" -c "
import sys
cols = ['time', 'footprint'] + ['g%d' % i for i in range(100000)]
open(sys.argv[1], 'w').write(','.join(cols) + '\n' + ','.join(['1000', '5'] + ['1'] * 100000) + '\n')" "$T/wide.csv"
bad_report "100,000 columns" "100002 columns in the header; at most 1024" "$T/wide.csv"
printf 'time,footprint\n1000,5 XB\n' > "$T/unit.csv"
bad_report "unknown unit" "unit.csv:2: column 'footprint': cannot read '5 XB' as a size" "$T/unit.csv"
grep -qF "K, M, G, T (powers of 1024)" "$T/err" || fail "unit list: $(cat "$T/err")"
VM="$FIXTURES/vmmap/vmmap-summary.txt"
bad_report "--html of a vmmap summary" "is a vmmap --summary output" "$VM" --html "$T/v.html"
[ ! -e "$T/v.html" ] || fail "--html of vmmap wrote a page"
# The sizes vmmap and top print, now read in a CSV: 214.20G = 214.2 GiB.
printf 'time,footprint\n1000,214.20G\n1060,214.20G\n1120,214.21G\n' > "$T/g.csv"
"$MEMTREND" report "$T/g.csv" --json > "$T/g.json" || fail "214.20G refused"
[ "$(jget "$T/g.json" 'd["targets"][0]["footprint"]["first_bytes"]')" = "$("$PY" -c 'print(round(214.20 * 2**30))')" ] ||
	fail "214.20G read as $(jget "$T/g.json" 'd["targets"][0]["footprint"]["first_bytes"]')"
ok "hostile CSV: NUL bytes, 1e308, 1e300, year 0000, 100,000 columns, unknown unit, vmmap --html; 214.20G read"
# Flat readings written in bytes are not 1-B precise (the field report's
# trap): three unchanged 21000000000 over 320 s are whole GB, inconclusive.
printf 'time,footprint\n1000,21000000000\n1160,21000000000\n1320,21000000000\n' > "$T/flat.csv"
"$MEMTREND" report "$T/flat.csv" --json > "$T/flat.json" || fail "flat csv exit $?"
[ "$(jget "$T/flat.json" 'd["targets"][0]["verdict"]')" = inconclusive ] || fail "three flat 21000000000: $(jget "$T/flat.json" 'd["targets"][0]["verdict"]')"
[ "$(jget "$T/flat.json" 'd["targets"][0]["resolution_bytes"]')" = 1000000000.0 ] || fail "flat resolution"
[ "$(jget "$T/flat.json" 'd["targets"][0]["resolution_basis"]')" = shared ] || fail "flat basis"
printf 'time,footprint\n1000,21474836481\n1160,21474836481\n1320,21474836481\n' > "$T/odd.csv"
"$MEMTREND" report "$T/odd.csv" --json > "$T/odd.json" || fail "odd csv exit $?"
[ "$(jget "$T/odd.json" 'd["targets"][0]["verdict"]')" = inconclusive ] || fail "odd flat verdict"
jget "$T/odd.json" 'd["targets"][0]["settle"]' | grep -q -- "--resolution" || fail "odd flat: no --resolution advice"
ok "flat readings: resolution 1 GB from shared zeros; nothing shared: inconclusive, names --resolution"
# -o never follows a link: neither to a file that does not exist yet (it
# was created at the link's target, e.g. a root-owned /etc/x.db), nor with
# --append, nor a link another user planted in a sticky directory.
ln -s "$T/elsewhere.db" "$T/link.db"
"$MEMTREND" record -q -o "$T/link.db" -p $$ -d 1 2> "$T/err"; rc=$?
[ $rc != 0 ] || fail "-o through a dangling link: exit 0"
[ ! -e "$T/elsewhere.db" ] || fail "-o created the link's target"
grep -q "already exists" "$T/err" || fail "link message: $(cat "$T/err")"
"$MEMTREND" record -q -o "$T/link.db" --append -p $$ -d 1 2> "$T/err"; rc=$?
[ $rc != 0 ] || fail "--append through a link: exit 0"
[ ! -e "$T/elsewhere.db" ] || fail "--append created the link's target"
grep -q "symbolic link" "$T/err" || fail "--append link message: $(cat "$T/err")"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkdir -m 1777 "$T/sticky"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		ln -s "$T/victim.db" "$T/sticky/run.db" || fail "planting the link"
	"$MEMTREND" record -q -o "$T/sticky/run.db" -p $$ -d 1 2> "$T/err"; rc=$?
	[ $rc != 0 ] && [ ! -e "$T/victim.db" ] || fail "followed a planted link"
fi
ok "-o refuses links: dangling, with --append, planted in a sticky directory"
# A permission error says why, not only "unable to open database file".
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	mkdir -m 555 "$T/ro"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$MEMTREND" record -q -o "$T/ro/x.db" -p $$ -d 1 2> "$T/err"
	grep -q "Permission denied" "$T/err" || fail "permission message: $(cat "$T/err")"
fi
# The target exits mid-recording: clean end, exit 0, samples kept.
bg "$GROWER" --base 4 --ready "$T/ready" --exit-after 1.5
wait_for "$T/ready" 10
timeout 20 "$MEMTREND" record -q -o "$T/gone.db" -p $LAST_BG -i 0.1s; rc=$?
[ $rc = 0 ] || fail "target exit: record exit $rc"
n=$(nsamples "$T/gone.db")
[ "$n" -ge 8 ] || fail "target exit: $n samples"
[ "$(sql "$T/gone.db" "SELECT end_reason FROM incarnation")" = exited ] || fail "end_reason"
# smaps_rollup unreadable (no ptrace access: an unprivileged recorder watching
# a root process): a note, and the other figures still recorded.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	bg "$GROWER" --base 4 --ready "$T/ready2" --exit-after 30
	wait_for "$T/ready2" 10
	mkdir -m 777 "$T/nobody"
	# The build tree may sit where nobody cannot reach (a 0700 home):
	# run a copy of the binary from the test's own directory.
	cp "$MEMTREND" "$T/nobody/memtrend"; chmod 755 "$T/nobody/memtrend"
	timeout 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$T/nobody/memtrend" record -o "$T/nobody/s.db" -p $LAST_BG --smaps -i 0.1s -d 1s 2> "$T/err"; rc=$?
	[ $rc = 0 ] || fail "smaps denied: exit $rc: $(cat "$T/err")"
	grep -q "smaps_rollup of pid $LAST_BG is not readable" "$T/err" || fail "no note: $(cat "$T/err")"
	r=$(sql "$T/nobody/s.db" "SELECT sum(coalesce(repeats, 1)), count(footprint), count(pss) FROM sample")
	echo "smaps denied: samples|footprint|pss = $r"
	case "$r" in *"|0") ;; *) fail "pss recorded although denied: $r" ;; esac
	[ "${r%%|*}" -ge 5 ] || fail "too few samples without smaps: $r"
	n=$(sql "$T/nobody/s.db" "SELECT count(*) FROM note WHERE text LIKE '%smaps_rollup%'")
	[ "$n" = 1 ] || fail "note not stored once: $n"
else
	echo "skip: smaps-denied case needs root and setpriv"
fi
# Work sources: bad arguments are usage errors (exit 2) before anything
# is recorded, each with a message naming what is wrong.
bg "$GROWER" --base 4 --ready "$T/ready3" --exit-after 30
wait_for "$T/ready3" 10
W=$LAST_BG
bad_work() {
	want="$1"; shift
	timeout 10 "$MEMTREND" record -q -o "$T/w.db" -p $W -d 1s "$@" 2> "$T/err"; rc=$?
	[ $rc = 2 ] || fail "record $*: exit $rc, expected 2"
	grep -q "$want" "$T/err" || fail "record $*: message lacks '$want': $(cat "$T/err")"
	[ ! -e "$T/w.db" ] || fail "record $*: a file was created"
}
bad_work "bad metric source" --work 'ftp://127.0.0.1/x#m'
bad_work "bad metric source" --work 'http://127.0.0.1:9/metrics'
bad_work "bad metric selector" --work 'http://127.0.0.1:9/metrics#m{a="b"'
bad_work "bad --gauge" --gauge 'no_equals_sign'
bad_work "names a figure" --gauge 'requests=echo 1'
bad_work "given twice" --gauge 'a=echo 1' --gauge 'a=echo 2'
bad_work "go together" --work-log /dev/null
bad_work "one work counter" --work-cmd 'echo 1' --work-log /dev/null --match x
bad_work "not a TCP port" --conn-port 70000
bad_work "bad regular expression" --work-log /dev/null --match '('
# A work command that prints garbage, and an endpoint nobody listens on:
# gaps and one warning each, memory recorded, exit 0.
DEAD=$(free_port)
timeout 20 "$MEMTREND" record -o "$T/gaps.db" -p $W -i 0.2s -d 2s \
	--work-cmd 'echo not-a-number' --gauge "g=http://127.0.0.1:$DEAD/metrics#m" 2> "$T/err"; rc=$?
[ $rc = 0 ] || fail "failing sources: exit $rc: $(cat "$T/err")"
grep -q "fails: printed no number" "$T/err" || fail "no warning for garbage output: $(cat "$T/err")"
grep -q "gauge 'g'.*fails: cannot connect" "$T/err" || fail "no warning for a refused endpoint: $(cat "$T/err")"
[ "$(grep -c fails "$T/err")" = 2 ] || fail "warned more than once per source: $(cat "$T/err")"
r=$(sql "$T/gaps.db" "SELECT (SELECT sum(coalesce(repeats, 1)) FROM sample), (SELECT count(value) FROM source_sample), (SELECT count(*) FROM source_sample)")
echo "failing sources: samples|readings|rows = $r"
case "$r" in *"|0|"*) ;; *) fail "readings recorded from failing sources: $r" ;; esac
[ "${r%%|*}" -ge 9 ] || fail "memory sampling held up: $r"
ok "bad input handled"
# From a new user's trial: nothing a slip can destroy, errors that name
# the command.
GOLD=$(cd "$(dirname "$E2E_LIB")/.." && pwd)/golden/demo.db
cp "$GOLD" "$T/keep.db"; cp "$GOLD" "$T/other.db"
"$MEMTREND" report "$T/keep.db" --html "$T/keep.db" 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--html onto the input: exit $rc"
cmp -s "$GOLD" "$T/keep.db" || fail "--html overwrote the recording"
"$MEMTREND" report "$T/keep.db" --html "$T/other.db" 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--html onto another recording: exit $rc"
cmp -s "$GOLD" "$T/other.db" || fail "--html overwrote another recording"
"$MEMTREND" demo -o "$T/keep.db" 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "demo -o existing: exit $rc"
grep -q "already exists" "$T/err" || fail "demo -o existing: $(cat "$T/err")"
"$MEMTREND" record -q -o "$FIXTURES/csv/restart.csv" --append -p $$ -d 1s 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "--append to a CSV: exit $rc"
"$MEMTREND" record -q -o "$T/nm.db" --name 'zz-no-such-process-zz' -d 1s 2> "$T/err"
grep -q "no process matched 'zz-no-such-process-zz'" "$T/err" || fail "--name without a match: $(cat "$T/err")"
"$MEMTREND" record --bogus 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "unknown option: exit $rc"
grep -q "record: unknown option or missing value: '--bogus'" "$T/err" || fail "unknown option: $(cat "$T/err")"
ok "no slip destroys a recording; errors name the command"
# A recording is input too (issue 31, point 3): a sample time the recorder
# never writes (inf: an edited or damaged file) aborted `report` on an
# assertion (exit 134). It is refused with its row, exit 2 -- read
# serially (the demo's three targets) and by the parallel reader (one
# target of 200,000 samples, store_read.c's PARALLEL_MIN_ROWS).
cp "$GOLD" "$T/inf.db"
sql "$T/inf.db" "UPDATE sample SET t = 9e999 WHERE rowid = 51"
"$MEMTREND" report "$T/inf.db" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "a time of inf: exit $rc: $(cat "$T/err")"
grep -q "sample row 51 has the time inf" "$T/err" || fail "a time of inf: $(cat "$T/err")"
cp "$GOLD" "$T/big.db"
sql "$T/big.db" "
DELETE FROM sample WHERE incarnation_id <> (SELECT min(id) FROM incarnation);
DELETE FROM incarnation WHERE id <> (SELECT min(id) FROM incarnation);
DELETE FROM source_sample WHERE source_id IN (SELECT id FROM source WHERE target_id NOT IN (SELECT target_id FROM incarnation));
DELETE FROM source WHERE target_id NOT IN (SELECT target_id FROM incarnation);
DELETE FROM target WHERE id NOT IN (SELECT target_id FROM incarnation);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO sample(incarnation_id, t, footprint)
SELECT (SELECT min(id) FROM incarnation), 1.8e9 + i, 1000000 FROM n;
UPDATE sample SET t = -9e999 WHERE rowid = (SELECT max(rowid) - 5 FROM sample);"
bigrow=$(sql "$T/big.db" "SELECT max(rowid) - 5 FROM sample")
"$MEMTREND" report "$T/big.db" > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] || fail "a time of -inf, parallel reader: exit $rc: $(cat "$T/err")"
grep -q "sample row $bigrow has the time -inf" "$T/err" || fail "a time of -inf: $(cat "$T/err")"
ok "a recording with a time of inf or -inf: refused with its row, exit 2"
