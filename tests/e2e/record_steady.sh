# A steady process (32 MiB touched, nothing more) is "stable" once the
# window can see the slope of concern; with a much smaller --suspect slope
# the same window is honestly "inconclusive" and says how long to watch.
. "$E2E_LIB"
bg "$GROWER" --base 32 --ready "$T/ready" --exit-after 30
G=$LAST_BG
wait_for "$T/ready" 10
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 0.1s -d 4s || fail "record exited $?"
"$MEMTREND" report "$T/run.db" --json --limit 16GiB > "$T/r.json" || fail "report exited $?"
v=$(jget "$T/r.json" 'd["targets"][0]["verdict"]')
det=$(jget "$T/r.json" 'd["targets"][0]["detectable_bytes_per_hour"]')
con=$(jget "$T/r.json" 'd["targets"][0]["concern_bytes_per_hour"]')
echo "verdict=$v detectable=$det concern=$con"
[ "$v" = stable ] || fail "verdict $v, expected stable"
"$MEMTREND" report "$T/run.db" --json --suspect 100KiB/h > "$T/s.json" || fail "report exited $?"
v=$(jget "$T/s.json" 'd["targets"][0]["verdict"]')
settle=$(jget "$T/s.json" 'd["targets"][0]["settle"]')
echo "with --suspect 100KiB/h: verdict=$v settle=$settle"
[ "$v" = inconclusive ] || fail "verdict $v with --suspect 100KiB/h, expected inconclusive"
case "$settle" in *watch*) ;; *) fail "no advice on how long to watch: $settle" ;; esac
# Minimum observation for the suspect slope: 4 KiB / 100 KiB/h = 0.04 h = 144 s.
need=$(jget "$T/s.json" 'd["targets"][0]["needed_observation_s"]')
"$PY" -c "import sys; sys.exit(0 if abs(float(sys.argv[1])-144)<1 else 1)" "$need" || fail "needed observation $need, expected 144 s"
ok "steady: stable; with a 100 KiB/h suspect: inconclusive, watch >= 144 s"
