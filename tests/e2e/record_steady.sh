# A steady process (32 MiB touched, nothing more), 4 s at 100 ms:
#  - its work not recorded, the window is too short to call "stable"
#    (docs/verdicts.md, rule 7: under 10 min without the work known): it is
#    "inconclusive", "no growth in this window", with advice to watch
#    >= 10 min or record its work;
#  - with a work counter that counts while it records (a file the test
#    bumps, read by --work-cmd), the same 4 s are "stable": the window saw
#    the work, and could see the slope of concern; the stable names its
#    window, samples and requests;
#  - with a much smaller --suspect slope the same window is honestly
#    "inconclusive" and says how long to watch.
. "$E2E_LIB"
bg "$GROWER" --base 32 --ready "$T/ready" --exit-after 30
G=$LAST_BG
wait_for "$T/ready" 10
timeout 30 "$MEMTREND" record -q -o "$T/idle.db" -p "$G" -i 0.1s -d 4s || fail "record exited $?"
"$MEMTREND" report "$T/idle.db" --json --limit 16GiB > "$T/i.json" || fail "report exited $?"
v=$(jget "$T/i.json" 'd["targets"][0]["verdict"]')
why=$(jget "$T/i.json" 'd["targets"][0]["reasons"][0]')
settle=$(jget "$T/i.json" 'd["targets"][0]["settle"]')
echo "work not recorded: verdict=$v; $why; $settle"
[ "$v" = inconclusive ] || fail "verdict $v without the work, expected inconclusive"
case "$why" in "no growth in this window ("*"samples; its work was not recorded): too short to call stable"*) ;;
	*) fail "reason: $why" ;; esac
case "$settle" in "watch >= 10 min in all"*"--work"*) ;; *) fail "settle: $settle" ;; esac

# The work: a counter the test bumps every 50 ms while recording.
echo 0 > "$T/count"
( n=0; while :; do n=$((n + 1)); echo "$n" > "$T/count.tmp"; mv "$T/count.tmp" "$T/count"; sleep 0.05; done ) &
BUMP=$!
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 0.1s -d 4s \
	--work-cmd "cat $T/count" || { kill $BUMP; fail "record exited $?"; }
kill $BUMP; wait $BUMP 2>/dev/null
"$MEMTREND" report "$T/run.db" --json --limit 16GiB > "$T/r.json" || fail "report exited $?"
v=$(jget "$T/r.json" 'd["targets"][0]["verdict"]')
det=$(jget "$T/r.json" 'd["targets"][0]["detectable_bytes_per_hour"]')
con=$(jget "$T/r.json" 'd["targets"][0]["concern_bytes_per_hour"]')
reasons=$(jget "$T/r.json" '"|".join(d["targets"][0]["reasons"])')
echo "verdict=$v detectable=$det concern=$con"
[ "$v" = stable ] || fail "verdict $v, expected stable: $reasons"
case "$reasons" in *"over 4 s ("*" samples, "*" requests) the window could have seen a slope of"*) ;;
	*) fail "the stable does not name its window: $reasons" ;; esac
"$MEMTREND" report "$T/run.db" --json --suspect 100KiB/h > "$T/s.json" || fail "report exited $?"
v=$(jget "$T/s.json" 'd["targets"][0]["verdict"]')
settle=$(jget "$T/s.json" 'd["targets"][0]["settle"]')
echo "with --suspect 100KiB/h: verdict=$v settle=$settle"
[ "$v" = inconclusive ] || fail "verdict $v with --suspect 100KiB/h, expected inconclusive"
case "$settle" in *watch*) ;; *) fail "no advice on how long to watch: $settle" ;; esac
# Minimum observation for the suspect slope: 4 KiB / 100 KiB/h = 0.04 h = 144 s.
need=$(jget "$T/s.json" 'd["targets"][0]["needed_observation_s"]')
"$PY" -c "import sys; sys.exit(0 if abs(float(sys.argv[1])-144)<1 else 1)" "$need" || fail "needed observation $need, expected 144 s"
ok "steady: 4 s without work inconclusive (too short); with work stable; with a 100 KiB/h suspect: inconclusive, watch >= 144 s"
