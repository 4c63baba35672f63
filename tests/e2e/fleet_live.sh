# report --prometheus on live data: prometheus-process-exporter (Debian)
# on loopback watches a growing helper and a steady one (two copies of the
# grower under different names), Prometheus scrapes it every second; after
# about 35 s report --prometheus ranks the grower first, growing, and does
# not call the steady one growing.
. "$E2E_LIB"
need prometheus prometheus-process-exporter
cp "$GROWER" "$T/fleetgrow"; cp "$GROWER" "$T/fleetsteady"
bg "$T/fleetgrow" --base 8 --grow 256 --every 100 --ready "$T/r1" --exit-after 80
bg "$T/fleetsteady" --base 8 --grow 0 --every 100 --ready "$T/r2" --exit-after 80
wait_for "$T/r1" 10; wait_for "$T/r2" 10
EPORT=$(free_port)
bg prometheus-process-exporter -procnames fleetgrow,fleetsteady \
	-web.listen-address "127.0.0.1:$EPORT"
wait_port "$EPORT" 10
PPORT=$(free_port)
cat > "$T/prometheus.yml" <<YML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: process
    static_configs:
      - targets: ['127.0.0.1:$EPORT']
YML
bg prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$PPORT" --log.level=error
wait_port "$PPORT" 30
START=$(date +%s)
sleep 35
"$MEMTREND" report --prometheus "http://127.0.0.1:$PPORT" \
	--query 'namedprocess_namegroup_memory_bytes{memtype="resident"}' \
	--start "$START" --end "$(date +%s)" --step 1s --limit 64GiB --json \
	> "$T/live.json" 2> "$T/live.err" || fail "report: $(cat "$T/live.err")"
got=$(jget "$T/live.json" '[(t["labels"]["groupname"], t["verdict"]) for t in d["targets"]]')
first=$(jget "$T/live.json" 'd["targets"][0]["labels"]["groupname"], d["targets"][0]["verdict"]')
[ "$first" = "fleetgrow growing" ] || fail "first: $got"
steady=$(jget "$T/live.json" '[t["verdict"] for t in d["targets"] if t["labels"]["groupname"] == "fleetsteady"][0]')
[ "$steady" != growing ] || fail "steady called growing: $got"
ok "live: the grower ranks first, growing; the steady one is $steady"
