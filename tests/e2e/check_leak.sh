# `memtrend check` against a real HTTP service (tests/helpers/leak_server.py)
# that keeps a known amount per request, under a real load
# (tests/helpers/load_client.py), the work counter scraped from its
# /metrics with --work. Expected numbers: the server keeps a 16,384-byte
# bytes object per request plus its list slot and object header (~16.5 KiB
# measured by hand: 16.1 KiB/req with a [16.1, 16.2] interval over 3,000
# requests), so a 64 KiB budget passes and a 4 KiB one fails, each by far.
# A server that keeps nothing passes a 1 KiB budget; one whose cache fills
# to 1,000 entries of 16 KiB passes once the first 1,500 requests are left
# out as warm-up, and cannot pass without (the fill is growth). The JUnit
# report is validated against tests/fixtures/junit/junit.xsd with xmllint.
. "$E2E_LIB"
need xmllint
H=$(cd "$(dirname "$E2E_LIB")/../helpers" && pwd)
XSD=$(cd "$(dirname "$E2E_LIB")/../fixtures/junit" && pwd)/junit.xsd
# check_run NAME SERVER-ARGS REQUESTS CHECK-ARGS...: writes $T/NAME.json
# and $T/NAME.err; the exit status in $T/NAME.rc.
check_run() {
	local name=$1 server=$2 n=$3; shift 3
	local port; port=$(free_port)
	# shellcheck disable=SC2086
	timeout 60 "$MEMTREND" check -q --interval 100ms \
		--work "http://127.0.0.1:$port/metrics#leak_requests_total" \
		--load "$PY $H/load_client.py --port $port --requests $n --rate 1000" \
		"$@" -- "$PY" "$H/leak_server.py" --port "$port" $server \
		> "$T/$name.out" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
}
field() { jget "$T/$1.json" "d['targets'][0]['$2']"; }

# A leak of 16 KiB/req against a budget of 64 KiB/req: pass, as JSON.
check_run pass "--leak 16384" 3000 --max-per-request 64KiB --json \
	--junit "$T/pass.xml" -o "$T/pass.db"
cp "$T/pass.out" "$T/pass.json"
[ "$(cat "$T/pass.rc")" = 0 ] || fail "leak under a larger budget: exit $(cat "$T/pass.rc"): $(cat "$T/pass.out" "$T/pass.err")"
[ "$(field pass outcome)" = pass ] || fail "outcome $(field pass outcome)"
est=$(field pass estimate); hi=$(field pass ci95_high); reqs=$(field pass requests)
echo "leak 16 KiB/req: $est B/req (high $hi) over $reqs requests"
within "$est" 15000 20000 || fail "estimate $est, expected about 16.5 KiB"
within "$hi" "$est" 65535 || fail "upper end $hi"
within "$reqs" 2000 3000 || fail "requests $reqs"
xmllint --noout --schema "$XSD" "$T/pass.xml" || fail "JUnit output is not valid: $(cat "$T/pass.xml")"
grep -q '<testcase classname="memtrend.check" name="' "$T/pass.xml" || fail "no testcase"
grep -q '<failure' "$T/pass.xml" && fail "a pass has a failure element"
# -o kept the recording: report reads it, and --fail-on gates on it.
[ -s "$T/pass.db" ] || fail "-o did not keep the recording"
"$MEMTREND" report "$T/pass.db" --json > "$T/pass.report.json" || fail "report of the kept recording"
v=$(jget "$T/pass.report.json" 'd["targets"][0]["verdict"]')
[ "$v" = growing ] || fail "report calls the leak $v"
# The service is stopped after the last reading of its counter, not
# before: the last note is not a failure of the counter (one while the
# service starts is fine). Before, every run ended with a "fails".
jget "$T/pass.report.json" '"\n".join(d["notes"])' > "$T/pass.notes"
tail -n 1 "$T/pass.notes" | grep -qv "fails:" || [ ! -s "$T/pass.notes" ] ||
	fail "the counter failed at the end of the run: $(cat "$T/pass.notes")"
"$MEMTREND" report "$T/pass.db" --fail-on growing,plateau > /dev/null 2>&1
rc=$?; [ $rc = 1 ] || fail "report --fail-on growing on a leak: exit $rc"
"$MEMTREND" report "$T/pass.db" --fail-on plateau > /dev/null 2>&1
rc=$?; [ $rc = 0 ] || fail "report --fail-on plateau on a leak: exit $rc"

# The same leak against 4 KiB/req: fail, exit 1, the figures in the text
# and in the JUnit failure message.
check_run fail "--leak 16384" 3000 --max-per-request 4KiB --junit "$T/fail.xml"
cat "$T/fail.out"
[ "$(cat "$T/fail.rc")" = 1 ] || fail "leak over the budget: exit $(cat "$T/fail.rc"): $(cat "$T/fail.err")"
grep -q '^FAIL .*KiB/req \[.*KiB/req, .*KiB/req\] over .* requests, budget 4 KiB/req' "$T/fail.out" || fail "text: $(cat "$T/fail.out")"
xmllint --noout --schema "$XSD" "$T/fail.xml" || fail "JUnit output is not valid: $(cat "$T/fail.xml")"
grep -q '<failure type="leak" message=".*budget 4 KiB/req' "$T/fail.xml" || fail "JUnit: $(cat "$T/fail.xml")"
grep -q 'failures="1"' "$T/fail.xml" || fail "JUnit counts"

# No leak, the same load: pass a 1 KiB/req budget.
check_run none "--leak 0" 3000 --max-per-request 1KiB --json
cp "$T/none.out" "$T/none.json"
[ "$(cat "$T/none.rc")" = 0 ] || fail "no leak: exit $(cat "$T/none.rc"): $(cat "$T/none.out" "$T/none.err")"
echo "no leak: $(field none message)"

# A cache filling to 1,000 x 16 KiB in the first 1,000 requests: left out
# as warm-up (1,500 requests), it passes 1 KiB/req; kept, it cannot pass.
check_run cache "--cache-cap 1000 --cache-item 16384" 3500 \
	--max-per-request 1KiB --warmup 1500 --json
cp "$T/cache.out" "$T/cache.json"
[ "$(cat "$T/cache.rc")" = 0 ] || fail "cache after warm-up: exit $(cat "$T/cache.rc"): $(cat "$T/cache.out" "$T/cache.err")"
echo "cache after warm-up: $(field cache message)"
check_run cache0 "--cache-cap 1000 --cache-item 16384" 3500 \
	--max-per-request 1KiB --json
cp "$T/cache0.out" "$T/cache0.json"
[ "$(cat "$T/cache0.rc")" = 1 ] || fail "cache with its fill judged: exit $(cat "$T/cache0.rc")"
[ "$(field cache0 outcome)" != pass ] || fail "the fill passed"
echo "cache with its fill: $(field cache0 outcome): $(field cache0 message)"
ok "check: leak passes 64 KiB/req and fails 4 KiB/req ($est B/req); no leak and a cache after warm-up pass 1 KiB/req; JUnit valid"
