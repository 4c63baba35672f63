# A requests column that is not a counter (issue 27, points 3 and 4): a
# requests-in-flight gauge is said to be one, with the share of readings
# that went down, and no per-request slope, idle windows or request count
# come from it unless --work-is-counter; a restart without a pid column
# (the counter back to zero as the footprint drops) splits the series.
. "$E2E_LIB"
# 2 h at 15 s (481 rows): requests in flight as a triangle wave 0..15 of
# period 30 rows, v(i) = 15 - |15 - i mod 30|; memory 800 MiB + 4 MiB per
# request in flight + 2 MiB/h. Hand count: over rows 1..480 (16 periods)
# it goes down where i mod 30 is 16..29 or 0: 15 a period, 240 of 480.
"$PY" - "$T/gauge.csv" <<'PYEOF'
import sys
MiB = 1 << 20
with open(sys.argv[1], "w") as f:
    f.write("time,footprint,requests\n")
    for i in range(481):
        v = 15 - abs(15 - i % 30)
        fp = 800 * MiB + 4 * MiB * v + 2 * MiB * (15 * i) / 3600
        f.write("%d,%d,%d\n" % (1777600800 + 15 * i, fp, v))
PYEOF
"$MEMTREND" report "$T/gauge.csv" --json > "$T/g.json" || fail "gauge: exit $?"
w=$(jget "$T/g.json" 'd["targets"][0]["work"]')
echo "gauge: work=$w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["is_counter"]')" = False ] || fail "is_counter: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["used"]')" = False ] || fail "used: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["readings"]')" = 480 ] || fail "readings: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["decreases"]')" = 240 ] || fail "decreases: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["resets"]')" = 0 ] || fail "resets: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["work"]["decreasing_share"]')" = 0.5 ] || fail "share: $w"
[ "$(jget "$T/g.json" 'd["targets"][0]["per_request"]')" = None ] || fail "a per-request slope from a gauge"
[ "$(jget "$T/g.json" 'd["targets"][0]["idle"]')" = None ] || fail "idle windows from a gauge"
[ "$(jget "$T/g.json" 'len(d["targets"][0]["idle_windows"])')" = 0 ] || fail "idle windows listed"
jget "$T/g.json" '"\n".join(d["targets"][0]["reasons"])' | grep -q "not a counter: it went down in 240 of 480 readings (50.0 %)" ||
	fail "the reason: $(jget "$T/g.json" 'd["targets"][0]["reasons"]')"
# beside the sentence, its code and figures (docs/json.md, "Reason codes")
[ "$(jget "$T/g.json" '[(r["code"], r["figures"]["decreases"], r["figures"]["readings"], r["figures"]["used"]) for r in d["targets"][0]["reasons_detail"] if r["code"] == "work_not_counter"]')" = "[('work_not_counter', 240, 480, False)]" ] ||
	fail "the reason's code: $(jget "$T/g.json" 'd["targets"][0]["reasons_detail"]')"
"$MEMTREND" report "$T/gauge.csv" --no-plot > "$T/g.txt" || fail "gauge text: exit $?"
cat "$T/g.txt"
# the same words in the text and on the page (the findings view)
grep -q "work        went down in 240 of 480 readings (50.0 %) outside restarts: not a counter; set aside (--work-is-counter reads it as one)" "$T/g.txt" || fail "text: no work line"
! grep -q "per request" "$T/g.txt" || fail "text: a per-request slope from a gauge"
! grep -Eq "requests +[0-9]" "$T/g.txt" || fail "text: a request count from a gauge"
! grep -Eq "^  idle |idle windows? \(|idle window \(>=" "$T/g.txt" || fail "text: idle windows from a gauge"
"$MEMTREND" report "$T/gauge.csv" --html "$T/g.html" > /dev/null || fail "html: exit $?"
grep -q "went down in 240 of 480 readings (50.0 %) outside restarts: not a counter; set aside" "$T/g.html" || fail "html: no work row"
! grep -q "fig-per-request" "$T/g.html" || fail "html: footprint against requests of a gauge"
# --work-is-counter: read as a counter all the same, and said so.
"$MEMTREND" report "$T/gauge.csv" --work-is-counter --json > "$T/gc.json" || fail "forced: exit $?"
[ "$(jget "$T/gc.json" 'd["targets"][0]["work"]["used"]')" = True ] || fail "forced: not used"
[ "$(jget "$T/gc.json" 'd["targets"][0]["per_request"] is not None')" = True ] || fail "forced: no per-request slope"
# A restart without a pid: the counter from 1,190 back to 5 as the
# footprint falls from 1.1 GiB to 300 MiB. Two incarnations; the slope and
# the per-request figures come from the second (80 rows, 790 requests).
"$PY" - "$T/restart.csv" <<'PYEOF'
import sys
MiB = 1 << 20
with open(sys.argv[1], "w") as f:
    f.write("time,footprint,requests\n")
    for i in range(200):
        if i < 120:
            req, fp = 10 * i, 1024 * MiB + MiB * i
        else:
            req, fp = 5 + 10 * (i - 120), 300 * MiB + MiB * (i - 120)
        f.write("%d,%d,%d\n" % (1777600800 + 15 * i, fp, req))
PYEOF
"$MEMTREND" report "$T/restart.csv" --json > "$T/r.json" || fail "restart: exit $?"
n=$(jget "$T/r.json" 'len(d["targets"][0]["incarnations"])')
req=$(jget "$T/r.json" '"%g" % d["targets"][0]["per_request"]["requests"]')
pts=$(jget "$T/r.json" 'd["targets"][0]["slope"]["points"]')
echo "restart: incarnations=$n requests=$req points=$pts"
[ "$n" = 2 ] || fail "restart without a pid: $n incarnations"
[ "$req" = 790 ] || fail "restart: $req requests in the analysed incarnation"
[ "$pts" = 80 ] || fail "restart: slope over $pts points"
[ "$(jget "$T/r.json" 'd["targets"][0]["work"]["is_counter"]')" = True ] || fail "restart: not a counter"
ok "a gauge is set aside and said to be one; a pid-less restart splits"
