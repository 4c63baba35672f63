# Reports from CSV, with the field reports' figures (../shared/context.md).
. "$E2E_LIB"
# "Three flat samples, so no leak": three equal whole-GB readings over
# 5 min 20 s. The window could not have seen a slope below 1 GB / 320 s.
printf 'time,footprint\n2026-01-10T10:00:00Z,21 GB\n2026-01-10T10:02:40Z,21 GB\n2026-01-10T10:05:20Z,21 GB\n' > "$T/flat.csv"
"$MEMTREND" report "$T/flat.csv" --json > "$T/flat.json" || fail "flat: exit $?"
v=$(jget "$T/flat.json" 'd["targets"][0]["verdict"]')
det=$(jget "$T/flat.json" 'd["targets"][0]["detectable_bytes_per_hour"]')
res=$(jget "$T/flat.json" 'd["targets"][0]["resolution_bytes"]')
echo "flat: verdict=$v resolution=$res detectable=$det"
[ "$v" = inconclusive ] || fail "flat: $v"
# 1e9 B / 320 s * 3600 s/h = 1.125e10 B/h (hand computation)
"$PY" -c "import sys; sys.exit(0 if abs(float(sys.argv[1])-1.125e10)<1e6 else 1)" "$det" || fail "detectable $det"
"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1])==1e9 else 1)" "$res" || fail "resolution $res"
"$MEMTREND" report "$T/flat.csv" > "$T/flat.txt"
grep -q "could not have seen a slope below about 1 GB per 320 s" "$T/flat.txt" || { cat "$T/flat.txt"; fail "flat text"; }
# The embedding service: 1.6 GB -> 22 GB, ~0.24 GB/h. Hourly readings over
# 3.5 days, whole-GB resolution: growing.
"$PY" - "$T/emb.csv" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("time,footprint\n")
    for h in range(85):
        gb = 1.6 + 0.24 * h + (0.3 if h % 7 == 3 else 0.0)
        f.write("%d,%d GB\n" % (1700000000 + 3600 * h, round(gb)))
PYEOF
"$MEMTREND" report "$T/emb.csv" --json > "$T/emb.json" || fail "emb: exit $?"
v=$(jget "$T/emb.json" 'd["targets"][0]["verdict"]')
s=$(jget "$T/emb.json" 'd["targets"][0]["slope"]["bytes_per_hour"]')
echo "embedding: verdict=$v slope=$s"
[ "$v" = growing ] || fail "embedding: $v"
"$PY" -c "import sys; s=float(sys.argv[1]); sys.exit(0 if 0.2e9 < s < 0.28e9 else 1)" "$s" || fail "embedding slope $s"
# Tab-separated, epoch times, a pid change (restart).
printf 'time\tfootprint\tpid\n1000\t100MiB\t10\n1010\t101MiB\t10\n1020\t102MiB\t10\n1030\t50MiB\t11\n1040\t51MiB\t11\n1050\t52MiB\t11\n1060\t53MiB\t11\n' > "$T/restart.tsv"
"$MEMTREND" report "$T/restart.tsv" --json > "$T/rs.json" || fail "tsv exit $?"
pids=$(jget "$T/rs.json" 'd["targets"][0]["pids"]')
[ "$pids" = "[10, 11]" ] || fail "pids $pids"
ipid=$(jget "$T/rs.json" 'd["targets"][0]["slope"]["incarnation_pid"]')
[ "$ipid" = 11 ] || fail "slope should come from the latest incarnation, got $ipid"
ok "CSV reports: flat inconclusive, embedding growing, restart split"
