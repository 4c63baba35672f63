# memtrend probe --allocator against libraries that are not what they seem
# (tests/helpers/probe_libs.c, built by tests/meson.build), and the time
# limit of an arm (issue 31, point 6). Before: a PIE, a 32-bit library and
# a bare relative name were accepted, the loader then refused them ("...
# cannot be preloaded ...: ignored") and the arm ran on glibc's malloc
# under the library's name, exit 0; a library that is no allocator was
# reported as one; a library printing on stdout broke --json (exit 0); a
# constructor that never returns hung probe forever.
#
# Now: what can be seen of the file is refused at once (exit 2); what only
# the loader can tell is checked in the arm's process (the library among
# the loaded objects, malloc and free resolving into it), and the arm's
# row says "failed" and why, exit 3; each arm has --arm-timeout; an arm's
# stdout is memtrend's stderr.
#
# Tiny settings (1 thread, 1 round of 64-128 KiB, no idle): an arm takes
# ~0.2 s, a whole probe ~2 s. Under ASan (SANITIZED=1) no allocator can be
# preloaded (those arms are skipped): the checks up front and the time
# limit are tested there, the in-arm checks in a normal build.
. "$E2E_LIB"
SAN=${SANITIZED:-}
Q="--threads 1 --rounds 1 --size-range 64KiB-128KiB --idle 0"

# ---- refused up front: exit 2, a message, nothing run ---------------------
expect2() {
	"$MEMTREND" probe $Q "$@" > "$T/bad.out" 2> "$T/bad.err"
	rc=$?
	[ $rc -eq 2 ] || fail "probe $* exited $rc, expected 2: $(cat "$T/bad.err")"
	[ ! -s "$T/bad.out" ] || fail "probe $*: printed on stdout"
	! grep -q "arms," "$T/bad.err" || fail "probe $*: arms ran: $(cat "$T/bad.err")"
}
expect2 --allocator "$PROBE_PIE"
grep -q "is a program (a position-independent executable), not a library" \
	"$T/bad.err" || fail "PIE: $(cat "$T/bad.err")"
# An ELF32 shared object's header (ld.so: "wrong ELF class: ELFCLASS32").
printf '\177ELF\001\001\001\000\000\000\000\000\000\000\000\000\003\000\003\000\001\000\000\000' > "$T/lib32.so"
head -c 64 /dev/zero >> "$T/lib32.so"
expect2 --allocator "$T/lib32.so"
grep -q "is a 32-bit library; this machine runs 64-bit ones" "$T/bad.err" ||
	fail "32-bit: $(cat "$T/bad.err")"
# A bare name that is not in the current folder: the loader would search
# its own folders instead; no guessing.
(cd "$T" && expect2 --allocator libprobe_shim.so) || exit 1
grep -q "libprobe_shim.so': No such file or directory (give its path" \
	"$T/bad.err" || fail "bare name: $(cat "$T/bad.err")"
# A path LD_PRELOAD would split in two.
mkdir "$T/a b"
cp "$PROBE_SHIM" "$T/a b/"
expect2 --allocator "$T/a b/libprobe_shim.so"
grep -q "LD_PRELOAD splits its value at spaces and colons" "$T/bad.err" ||
	fail "space: $(cat "$T/bad.err")"
expect2 --arm-timeout 0
expect2 --arm-timeout x
ok "refused up front: a PIE, a 32-bit library, a bare name, a space; bad --arm-timeout"

# ---- checked in the arm: the library in use, or the row says why ----------
if [ -z "$SAN" ]; then
	# Copied away from the library it needs: a good file, but the arm's
	# process cannot start.
	cp "$PROBE_NEEDS" "$T/libprobe_needs.so"
	# The shim with an OS ABI the loader does not know (byte 7 of
	# e_ident): ld.so says "cannot be preloaded (ELF file OS ABI
	# invalid): ignored." and the process goes on with glibc's malloc.
	# Left to the check in the arm, which catches what the loader alone
	# can tell.
	cp "$PROBE_SHIM" "$T/libprobe_osabi.so"
	printf '\141' | dd of="$T/libprobe_osabi.so" bs=1 seek=7 conv=notrunc 2>/dev/null
	shim_dir=$(dirname "$PROBE_SHIM")
	# (meson test puts its build folders in LD_LIBRARY_PATH: not here.)
	(cd "$shim_dir" && exec env -u LD_LIBRARY_PATH "$MEMTREND" probe $Q --json \
		--allocator libprobe_shim.so --allocator "$PROBE_NOMALLOC" \
		--allocator "$T/libprobe_needs.so" \
		--allocator "$T/libprobe_osabi.so") > "$T/a.json" 2> "$T/a.err"
	rc=$?
	[ $rc -eq 3 ] || fail "probe exited $rc, expected 3: $(cat "$T/a.err")"
	"$PY" - "$T/a.json" "$shim_dir/libprobe_shim.so" "$PROBE_NOMALLOC" \
		"$T/libprobe_needs.so" "$T/libprobe_osabi.so" <<'PYEOF' || fail "the rows: $(cat "$T/a.err")"
import json, sys
# Fails before: probe_nomalloc's line came first on stdout.
d = json.load(open(sys.argv[1]))
shim, nomalloc, needs, osabi = sys.argv[2:6]
arms = {a["name"]: a for a in d["arms"]}
for n in ("glibc varying", "glibc fixed", "glibc capped", "glibc trim",
          "glibc arena_max=2"):
    assert arms[n]["ran"] and arms[n]["failed"] is None, arms[n]
a = arms["probe_shim varying"]
# The bare name, made absolute: the very file checked is preloaded.
assert a["ran"] and a["failed"] is None and a["preload"] == shim, a
assert a["verdict"] != "failed" and len(a["rounds_bytes"]) == 1, a
a = arms["probe_nomalloc varying"]
assert not a["ran"] and a["verdict"] == "failed" and a["skipped"] is None, a
assert a["failed"] == (nomalloc + " not in use: it was loaded, but malloc "
                       "is still /lib/x86_64-linux-gnu/libc.so.6's: not an "
                       "allocator") or ("not an allocator" in a["failed"]
                                        and "libc.so.6" in a["failed"]), a
assert "rounds_bytes" not in a, a
a = arms["probe_needs varying"]
assert not a["ran"] and a["verdict"] == "failed", a
assert a["failed"] == ("its process did not start with LD_PRELOAD=" + needs +
                       " (exit 127)"), a
a = arms["probe_osabi varying"]
assert not a["ran"] and a["verdict"] == "failed", a
assert a["failed"] == (osabi + " not in use: the loader did not load it "
                       "(its message, if any, is above)"), a
# None is compared: the advice is glibc's against the arms that ran.
assert d["advice"]["best"] not in ("probe_nomalloc varying",
                                   "probe_needs varying",
                                   "probe_osabi varying"), d["advice"]
PYEOF
	# What the libraries' constructors print is on stderr: the shim's
	# (written at once), and the other's (stdio, flushed as its arm's
	# process ends by itself).
	grep -qx "probe_shim: loaded" "$T/a.err" || fail "the shim's line: $(cat "$T/a.err")"
	grep -qx "probe_nomalloc: loaded" "$T/a.err" || fail "nomalloc's line: $(cat "$T/a.err")"
	grep -q "libprobe_osabi.so' from LD_PRELOAD cannot be preloaded (ELF file OS ABI invalid): ignored" \
		"$T/a.err" || fail "the loader's own message: $(cat "$T/a.err")"
	grep -q "error: probe: 3 arms failed (their rows say why)" "$T/a.err" ||
		fail "no final error: $(cat "$T/a.err")"
	ok "in the arm: a bare name loaded by its path; no allocator, a missing dependency, a library the loader ignored: failed; JSON intact"

	# A constructor that never returns: killed at --arm-timeout, the
	# others run.
	timeout 60 "$MEMTREND" probe $Q --json --arm-timeout 1s \
		--allocator "$PROBE_BLOCK" > "$T/b.json" 2> "$T/b.err"
	rc=$?
	[ $rc -eq 3 ] || fail "blocking constructor: exit $rc, expected 3: $(cat "$T/b.err")"
	"$PY" - "$T/b.json" <<'PYEOF' > "$T/b.out" || fail "blocking constructor: $(cat "$T/b.err")"
import json, sys
d = json.load(open(sys.argv[1]))
arms = {a["name"]: a for a in d["arms"]}
a = arms["probe_block varying"]
assert not a["ran"] and a["verdict"] == "failed", a
assert a["failed"].startswith("timed out after 1 s (--arm-timeout) before it "
                              "started"), a
# Killed within the limit and a generous bound (a loaded 2-core machine).
assert 1.0 <= a["elapsed_s"] <= 6.0, a
assert arms["glibc varying"]["ran"], arms["glibc varying"]
print("%.2f" % a["elapsed_s"])
PYEOF
	ok "a blocking constructor: killed after $(cat "$T/b.out") s (limit 1 s)"
fi

# ---- the time limit in any arm (also under ASan: no preload needed) --------
"$MEMTREND" probe --json --threads 1 --rounds 100000 --size-range 1MiB-1MiB \
	--idle 0 --arm-timeout 300ms > "$T/t.json" 2> "$T/t.err"
rc=$?
[ $rc -eq 3 ] || fail "--arm-timeout 300ms: exit $rc, expected 3: $(cat "$T/t.err")"
"$PY" - "$T/t.json" <<'PYEOF' > "$T/t.out" || fail "--arm-timeout: $(cat "$T/t.err")"
import json, sys
d = json.load(open(sys.argv[1]))
worst, n, in_round = 0, 0, 0
for a in d["arms"]:
    if a["skipped"]:
        continue
    n += 1
    assert not a["ran"] and a["verdict"] == "failed", a
    # Where it was: in a round, unless a busy machine kept it from
    # starting within 0.3 s.
    why = a["failed"]
    assert why.startswith("timed out after 0.3 s (--arm-timeout) "), a
    assert why.endswith(": killed"), a
    assert " in round " in why or " before it started " in why, a
    in_round += " in round " in why
    assert 0.3 <= a["elapsed_s"] <= 5.3, a
    worst = max(worst, a["elapsed_s"])
assert n >= 5, n
assert d["advice"]["kind"] == "none", d["advice"]
print("%d arms (%d killed in a round), the slowest after %.2f s" %
      (n, in_round, worst))
PYEOF
ok "--arm-timeout 300ms: $(cat "$T/t.out")"
