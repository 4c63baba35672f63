# record --regions: a smaps snapshot by region family at the start and the
# end. The grower maps and touches 512 KiB of anonymous memory every
# 100 ms (5 MiB/s, by construction of the helper), so between the two
# snapshots of a 3 s recording the anonymous family grows by about
# 15 MiB (allow for the start-up and stop timing: 10-22 MiB), and the
# heap, stack and file families stay put.
. "$E2E_LIB"
bg "$GROWER" --base 16 --grow 512 --every 100 --ready "$T/ready" --exit-after 30
G=$LAST_BG
wait_for "$T/ready" 10
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G" -i 200ms -d 3s --regions \
	|| fail "record exited $?"
n=$(sql "$T/run.db" "SELECT count(DISTINCT t) FROM region_snapshot")
[ "$n" = 2 ] || fail "$n snapshots, expected 2 (start and end)"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report exited $?"
anon=$(jget "$T/r.json" '[f for f in d["targets"][0]["regions"]["families"] if f["family"]=="anon"][0]["growth_footprint_bytes"]')
file=$(jget "$T/r.json" '[f for f in d["targets"][0]["regions"]["families"] if f["family"]=="file"][0]["growth_footprint_bytes"]')
echo "anon growth $anon, file growth $file"
within "$anon" $((10 * 1048576)) $((22 * 1048576)) || fail "anon growth $anon, expected ~15 MiB"
within "$file" -65536 65536 || fail "file-backed growth $file, expected ~0"
"$MEMTREND" report "$T/run.db" > "$T/r.txt" || fail "text report exited $?"
grep -q "regions     footprint by family" "$T/r.txt" || { cat "$T/r.txt"; fail "no regions block"; }
grep -Eq "anon .*\(\+1[0-9](\.[0-9]+)? MiB\)" "$T/r.txt" || { cat "$T/r.txt"; fail "anon growth not shown"; }
ok "regions: anonymous family grew $anon B between the snapshots"
