# --children: each descendant recorded, and their sum.
. "$E2E_LIB"
bg "$GROWER" --base 8 --children 2 --ready "$T/ready" --exit-after 30
G=$LAST_BG
wait_for "$T/ready" 10
sleep 0.3
timeout 30 "$MEMTREND" record -q -o "$T/run.db" -p "$G" --children -i 0.2s -d 2s || fail "record exit $?"
kids=$(sql "$T/run.db" "SELECT count(*) FROM target WHERE kind='child'")
[ "$kids" = 2 ] || fail "$kids child targets, expected 2"
# The sum at the last tick equals the root plus its children at that tick
# (a row may stand for a run of equal samples ending at t_last).
q="SELECT (SELECT footprint FROM sample s JOIN incarnation i ON s.incarnation_id=i.id JOIN target t ON i.target_id=t.id WHERE t.kind='tree' ORDER BY s.rowid DESC LIMIT 1),
          (SELECT sum(footprint) FROM sample s JOIN incarnation i ON s.incarnation_id=i.id JOIN target t ON i.target_id=t.id
           WHERE t.kind IN ('pid','child') AND coalesce(s.t_last, s.t) = (SELECT max(coalesce(t_last, t)) FROM sample))"
sum=$(sql "$T/run.db" "$q")
tree=${sum%%|*}; parts=${sum##*|}
echo "tree=$tree parts=$parts"
[ -n "$tree" ] && [ "$tree" = "$parts" ] || fail "sum $tree != parts $parts"
# Each of the three processes holds its 8 MiB base.
[ "$tree" -ge $((3 * 8 * 1024 * 1024)) ] || fail "tree footprint $tree < 24 MiB"
"$MEMTREND" report "$T/run.db" --json > "$T/r.json" || fail "report"
n=$(jget "$T/r.json" 'len(d["targets"])')
[ "$n" = 4 ] || fail "$n targets in the report, expected 4 (root, sum, 2 children)"
ok "children: 2 recorded, sum $tree = parts"
