# record --listen without -o (issue 29): the figures are served, no file
# is written (the store is one of the recorder's sinks, the exporter
# another); -o stays required otherwise, and --append needs it.
. "$E2E_LIB"
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
bg "$GROWER" --base 8 --grow 0 --every 100 --ready "$T/ready" --exit-after 30
P=$LAST_BG
wait_for "$T/ready" 10
mkdir "$T/cwd"
cd "$T/cwd" || fail "cd"
bg "$MEMTREND" record -p "$P" -i 100ms --listen 127.0.0.1:0 2> "$T/rec.err"
REC=$LAST_BG
URL=$(listen_url "$T/rec.err") || exit 1
i=0
until curl -sf "$URL" > "$T/m.txt" && grep -q "^memtrend_footprint_bytes{.*pid=\"$P\"" "$T/m.txt"; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no footprint of pid $P served: $(head -c 500 "$T/m.txt") $(cat "$T/rec.err")"
	kill -0 "$REC" 2> /dev/null || fail "record ended: $(cat "$T/rec.err")"
	sleep 0.1
done
fp=$(sed -n "s/^memtrend_footprint_bytes{.*pid=\"$P\".*} \([0-9.e+]*\).*/\1/p" "$T/m.txt" | head -1)
echo "served footprint of pid $P: $fp"
within "$fp" $((8 * 1048576)) $((64 * 1048576)) || fail "footprint $fp is not the helper's 8 MiB and more"
kill -INT "$REC"
wait "$REC"; rc=$?
[ "$rc" = 0 ] || fail "record --listen without -o exit $rc: $(cat "$T/rec.err")"
left=$(ls -A "$T/cwd")
[ -z "$left" ] || fail "files written without -o: $left"
grep -qi "error\|warning" "$T/rec.err" && fail "messages: $(cat "$T/rec.err")"
ok "record --listen without -o: served pid $P's footprint, wrote no file, exit 0"

"$MEMTREND" record -p "$P" -d 1s 2> "$T/e1"; rc=$?
[ "$rc" = 2 ] && grep -q -- "-o FILE is required (or --listen" "$T/e1" || fail "no -o, no --listen: exit $rc, $(cat "$T/e1")"
"$MEMTREND" record -p "$P" -d 1s --append --listen 127.0.0.1:0 2> "$T/e2"; rc=$?
[ "$rc" = 2 ] && grep -q -- "--append needs -o" "$T/e2" || fail "--append without -o: exit $rc, $(cat "$T/e2")"
for opt in "--retain 1h" "--smaps" "--regions"; do
	# shellcheck disable=SC2086 # the option and its value as two words
	"$MEMTREND" record -p "$P" -d 1s $opt --listen 127.0.0.1:0 2> "$T/e3"; rc=$?
	[ "$rc" = 2 ] && grep -q -- "need.* -o FILE" "$T/e3" || fail "$opt without -o: exit $rc, $(cat "$T/e3")"
done
ok "-o still required without --listen; --append, --retain, --smaps, --regions need it"
