# A run too short to decide: `memtrend check` says inconclusive (exit 1,
# never a pass), with how many requests would decide, and that advice is
# not short by more than a factor of 2: a run of twice the advised requests
# decides (the leak fails its budget). A run of half of them is made and
# shown (see below why it is not asserted).
# The service (tests/helpers/leak_server.py) keeps 16 KiB per request and
# adds allocator noise: each request replaces one of 4 buffers with one of a
# random size up to 2 MB (seeded), so the footprint wanders by megabytes.
# The noise buffers are mmapped (MALLOC_MMAP_THRESHOLD_ fixed below their
# sizes), so each is given back when replaced: noise that comes and goes,
# not glibc's heap holding freed buffers (which the threshold's dynamic
# raise would bring, a retention of its own: alloc_retention.sh).
# Budget 8 KiB/req, half the leak. The warm-up (40 requests) leaves out the
# buffers' first fill. Measured by hand on the 2-core machine: 180 requests
# after the warm-up gave intervals 45-70 KiB/req wide on either side and
# advice of 390-640 requests; runs of 280 and 360 requests stayed
# inconclusive, 570 and 780 failed.
. "$E2E_LIB"
H=$(cd "$(dirname "$E2E_LIB")/../helpers" && pwd)
# short_run NAME LOAD-REQUESTS CHECK-ARGS...: $T/NAME.json, $T/NAME.rc
short_run() {
	local name=$1 n=$2; shift 2
	local port; port=$(free_port)
	timeout 90 "$MEMTREND" check -q --json --interval 100ms --warmup 40 \
		--max-per-request 8KiB \
		--work "http://127.0.0.1:$port/metrics#leak_requests_total" \
		--load "$PY $H/load_client.py --port $port --requests $n --rate 200" \
		"$@" -- env MALLOC_MMAP_THRESHOLD_=65536 \
		"$PY" "$H/leak_server.py" --port "$port" --leak 16384 \
		--noise 2000000 > "$T/$name.json" 2> "$T/$name.err"
	echo $? > "$T/$name.rc"
}
field() { jget "$T/$1.json" "d['targets'][0]['$2']"; }

# The advice is computed at the short run's estimate, which the run knows
# only to its interval (here +-50 KiB/req around a 16 KiB/req truth). An
# estimate that lands near the budget by chance makes the advice long
# (it divides by the distance), one on the other side of the budget makes
# it short for a leak the long run will see: the claim "twice the advice
# decides" is the model's when the estimate is on the leak's side, so the
# short run is repeated (4 tries at most) until its estimate is above the
# budget and its advice at most 3,000 requests (a long run the test can
# afford: 6,000 requests at 200/s).
for try in 1 2 3 4; do
	short_run short 150
	[ "$(cat "$T/short.rc")" = 1 ] || fail "a short run: exit $(cat "$T/short.rc"): $(cat "$T/short.json" "$T/short.err")"
	[ "$(field short outcome)" = inconclusive ] || fail "a short run: $(field short outcome): $(field short message)"
	[ "$(field short why)" = interval ] || fail "why: $(field short why)"
	seen=$(field short requests)
	need=$(field short needed)
	more=$(field short more)
	est=$(field short estimate)
	echo "short run $try: $(field short message)"
	within "$more" 1 1e9 || fail "no advice: more=$more"
	within "$est" 8192 1e12 && within "$need" 1 3000 && break
	[ "$try" = 4 ] && fail "4 short runs, none with its estimate above the budget and advice within 3,000 requests"
done
msg=$(field short message)
case "$msg" in *"more requests"*"would decide at this noise"*) ;; *) fail "advice not said: $msg" ;; esac

# Twice the advice decides; half of it does not.
twice=$("$PY" -c "import math,sys; print(math.ceil(2 * float(sys.argv[1])))" "$need")
half=$("$PY" -c "import math,sys; print(math.ceil(float(sys.argv[1]) / 2))" "$need")
short_run long $((twice + 400)) --requests "$twice"
echo "advised $need in all after $seen; twice ($twice): $(field long outcome): $(field long message)"
[ "$(field long outcome)" = fail ] || fail "twice the advised requests did not decide: $(field long message)"
[ "$(cat "$T/long.rc")" = 1 ] || fail "fail: exit $(cat "$T/long.rc")"
halfrun="(not run: at most what the short run saw)"
if ! within "$half" 0 "$seen"; then
	short_run half $((half + 400)) --requests "$half"
	echo "half ($half): $(field half outcome): $(field half message)"
	# Not asserted: the advice is computed at the short run's estimate,
	# which it knows only to its interval; when that estimate lies near
	# the budget by chance the advice comes out long (6 runs by hand: twice
	# the advice decided in 6, half of it had not yet in 4). Too long
	# costs time; too short would cost a rerun: the test holds the side
	# that matters.
	halfrun="$(field half outcome)"
fi
ok "short run inconclusive after $seen requests, advised $need; $twice decided, $half $halfrun"
