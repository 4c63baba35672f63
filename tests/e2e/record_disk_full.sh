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
# A start that fails on a full disk leaves nothing behind: the retry (on a
# disk with room again) is not refused with "already exists". Fill the
# tmpfs to the last byte, try, free it, retry.
rm -f "$T/small/run.db" "$T/small/run.db-wal" "$T/small/run.db-shm"
dd if=/dev/zero of="$T/small/fill" bs=4k 2> /dev/null
timeout 30 "$MEMTREND" record -q -o "$T/small/again.db" -p $LAST_BG -d 1s 2> "$T/err2"; rc=$?
cat "$T/err2"
[ $rc != 0 ] || fail "a start on a full disk succeeded?"
[ ! -e "$T/small/again.db" ] || fail "a failed start left $(stat -c %s "$T/small/again.db")-byte again.db behind"
rm -f "$T/small/fill"
timeout 30 "$MEMTREND" record -q -o "$T/small/again.db" -p $LAST_BG -d 1s 2> "$T/err3" ||
	{ cat "$T/err3"; fail "the retry after freeing the disk: exit $?"; }
ok "a failed start on a full disk leaves no file; the retry works"
