# record --all --listen: a real Prometheus (Debian's) scrapes memtrend at
# 1 s on loopback; after a few scrapes its HTTP API says the growing
# helper's verdict is growing and the steady one's is not; the exposition
# passes promtool check metrics; a port in use, a bad address and watch
# --listen exit 2.
. "$E2E_LIB"
command -v prometheus > /dev/null && command -v promtool > /dev/null || {
	echo "SKIP: prometheus/promtool not installed (Debian prometheus)"; exit 77; }
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# The exporter re-analyses its targets in turn within 2 % of a core: with
# every process of a busy user (root, in CI, under ASan) a round can take
# minutes. As root the helpers run as nobody and memtrend records --all
# --user nobody: two targets, whatever else runs.
as=() user=$(id -u)
if [ "$user" = 0 ] && command -v setpriv > /dev/null; then
	as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	user=65534
	chmod 777 "$T"
fi
bg "${as[@]}" "$GROWER" --base 8 --grow 256 --every 100 --ready "$T/r1" --exit-after 60
GROW=$LAST_BG
bg "${as[@]}" "$GROWER" --base 8 --grow 0 --every 100 --ready "$T/r2" --exit-after 60
STEADY=$LAST_BG
wait_for "$T/r1" 10; wait_for "$T/r2" 10
# --listen-processes all: the helpers are seconds old, and by default only
# processes alive for 5 minutes have series of their own.
bg "$MEMTREND" record -o "$T/host.db" --all --user "$user" -i 200ms -d 45s \
	--listen 127.0.0.1:0 --listen-processes all 2> "$T/rec.err"
REC=$LAST_BG
URL=$(listen_url "$T/rec.err") || exit 1
ADDR=${URL#http://}; ADDR=${ADDR%/metrics}
# The listener is up before the first tick: wait for the first figures.
i=0
until curl -sf "$URL" > "$T/m.txt" && grep -q "^memtrend_footprint_bytes{" "$T/m.txt"; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no footprint in the exposition: $(head -c 500 "$T/m.txt")"
	sleep 0.1
done
promtool check metrics < "$T/m.txt" > "$T/promtool.txt" 2>&1 ||
	fail "promtool check metrics: $(cat "$T/promtool.txt")"
[ ! -s "$T/promtool.txt" ] || fail "promtool says: $(cat "$T/promtool.txt")"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "$URL" > "$T/om.txt" ||
	fail "cannot scrape OpenMetrics"
tail -1 "$T/om.txt" | grep -qx "# EOF" || fail "OpenMetrics without # EOF"
ok "exposition at $URL passes promtool check metrics"
# The shipped scrape configuration and alert rules (contrib/prometheus).
ROOT=$(cd "$(dirname "$E2E_LIB")/../.." && pwd)
promtool check rules "$ROOT/contrib/prometheus/memtrend.rules.yml" > "$T/rules.txt" 2>&1 ||
	fail "promtool check rules: $(cat "$T/rules.txt")"
(cd "$ROOT/contrib/prometheus" && promtool check config prometheus.yml) > "$T/config.txt" 2>&1 ||
	fail "promtool check config: $(cat "$T/config.txt")"
grep -q "SUCCESS: 3 rules found" "$T/rules.txt" || fail "rules: $(cat "$T/rules.txt")"

PPORT=$(free_port)
cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: memtrend
    static_configs:
      - targets: ['$ADDR']
YML
bg prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=warn
PROM=$LAST_BG
query() { # PromQL -> the first value, or empty
	curl -sf --get "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1" |
		"$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
grow="" steady=""
for i in $(seq 1 60); do
	grow=$(query "memtrend_verdict{verdict=\"growing\",pid=\"$GROW\"}" 2>/dev/null)
	steady=$(query "memtrend_verdict{verdict=\"growing\",pid=\"$STEADY\"}" 2>/dev/null)
	[ "$grow" = 1 ] && [ "$steady" = 0 ] && break
	sleep 0.5
done
[ "$grow" = 1 ] || fail "Prometheus: growing helper's memtrend_verdict{verdict=\"growing\"} = '$grow'"
[ "$steady" = 0 ] || fail "Prometheus: steady helper's memtrend_verdict{verdict=\"growing\"} = '$steady'"
up=$(query "up{job=\"memtrend\"}")
[ "$up" = 1 ] || fail "Prometheus: up = '$up'"
ok "Prometheus (127.0.0.1:$PPORT) sees the growing helper growing, the steady one not"

# Bad input: the port Prometheus holds, a bad address, watch --listen.
"$MEMTREND" record -q -o "$T/b1.db" -p $$ -d 1s --listen "127.0.0.1:$PPORT" 2> "$T/e1"; rc=$?
[ $rc = 2 ] || fail "port in use: exit $rc"
grep -q "cannot listen on 127.0.0.1:$PPORT: Address already in use" "$T/e1" || fail "port in use: $(cat "$T/e1")"
[ ! -e "$T/b1.db" ] || fail "port in use: a recording was created"
"$MEMTREND" record -q -o "$T/b2.db" -p $$ -d 1s --listen nowhere:80 2> "$T/e2"; rc=$?
[ $rc = 2 ] || fail "bad address: exit $rc"
"$MEMTREND" watch -o "$T/b3.db" -p $$ -d 1s --listen 9184 2> "$T/e3"; rc=$?
[ $rc = 2 ] || fail "watch --listen: exit $rc"
kill -TERM $REC; wait $REC 2>/dev/null
ok "port in use, bad address, watch --listen: exit 2"
