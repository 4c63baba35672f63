# A full disk: the recorder says so once (not at every sample), keeps
# going, exits 3 at the end, and the file is intact with every batch that
# was committed before the disk filled.
. "$E2E_LIB"
mkdir "$T/small"
if ! mount -t tmpfs -o size=256k tmpfs "$T/small" 2> /dev/null; then
	echo "skip: cannot mount a small tmpfs here (needs root)"
	exit 77
fi
trap 'umount "$T/small" 2>/dev/null; cleanup' EXIT
# Growing at every tick: each sample its own row (equal samples would be
# folded into runs and take a long time to fill the disk).
bg "$GROWER" --base 4 --grow 4 --every 5 --ready "$T/ready" --exit-after 60
wait_for "$T/ready" 10
timeout 30 "$MEMTREND" record -q -o "$T/small/run.db" -p $LAST_BG -i 5ms -d 6s 2> "$T/err"; rc=$?
cat "$T/err"
[ $rc = 3 ] || fail "disk full: exit $rc, expected 3"
n=$(grep -c "cannot save samples" "$T/err")
[ "$n" = 1 ] || fail "the full disk was reported $n times, expected once"
[ "$(sql "$T/small/run.db" "PRAGMA integrity_check")" = ok ] || fail "integrity after a full disk"
s=$(nsamples "$T/small/run.db")
[ "$s" -ge 50 ] || fail "only $s samples kept"
"$MEMTREND" report "$T/small/run.db" --json > "$T/r.json" || fail "report of the full-disk recording"
ok "full disk: reported once, exit 3, $s samples intact"
