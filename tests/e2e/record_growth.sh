# A process that maps and touches exactly 256 KiB every 100 ms grows
# 2.5 MiB/s = 9 GiB/h (by construction of the helper). The recorded slope
# must be within 5 % of that, and the verdict "growing".
. "$E2E_LIB"
bg "$GROWER" --base 8 --grow 256 --every 100 --ready "$T/ready" --exit-after 30
G=$LAST_BG
wait_for "$T/ready" 10
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G" --interval 0.2s --duration 6s \
	|| fail "record exited $?"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
expected=$((256 * 1024 * 10 * 3600))
slope=$(jget "$T/r.json" 'd["targets"][0]["slope"]["bytes_per_hour"]')
verdict=$(jget "$T/r.json" 'd["targets"][0]["verdict"]')
samples=$(jget "$T/r.json" 'd["targets"][0]["samples"]')
echo "slope=$slope expected=$expected verdict=$verdict samples=$samples"
"$PY" -c "import sys; s,e=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(s-e)/e<0.05 else 1)" "$slope" "$expected" \
	|| fail "slope $slope not within 5% of $expected"
[ "$verdict" = growing ] || fail "verdict $verdict, expected growing"
[ "$samples" -ge 25 ] || fail "only $samples samples"
# The text report says the same, readably.
"$MEMTREND" report "$T/run.db" > "$T/r.txt" || fail "text report exited $?"
grep -q "verdict     growing" "$T/r.txt" || { cat "$T/r.txt"; fail "text verdict"; }
# Stored figures: footprint = anon + swap + shmem on every row.
bad=$(sql "$T/run.db" "SELECT count(*) FROM sample WHERE footprint != anon + coalesce(swap,0) + coalesce(shmem,0)")
[ "$bad" = 0 ] || fail "$bad rows where footprint != anon+swap+shmem"
# The machine's figures: with the samples, at most once a second (6 s).
sys=$(sql "$T/run.db" "SELECT count(*) FROM system_sample WHERE mem_total > 0")
[ "$sys" -ge 5 ] && [ "$sys" -le 8 ] || fail "system samples: $sys, expected one a second"
ok "growth recorded at $slope B/h (expected $expected), verdict growing"
