# Recording from fixture proc/sys trees (--proc-root/--sys-root): the
# figures of odd kernels and cgroup layouts end up in the file as they
# should, absent ones as NULL, never as a failure.
. "$E2E_LIB"
F="$FIXTURES"
# A cgroup v1 process (fixture 1234): footprint = RssAnon + VmSwap + RssShmem.
timeout 20 "$MEMTREND" record -q -o "$T/v1.db" --proc-root "$F/proc-v1" --sys-root "$F/sys-v1" \
	-p 1234 -i 0.1s -d 0.5s || fail "v1 record exit $?"
row=$(sql "$T/v1.db" "SELECT footprint, anon, shmem, swap FROM sample LIMIT 1")
echo "v1 sample: $row"
anon=$((300000 * 1024)); shmem=$((12340 * 1024))
swap=$(awk '/^VmSwap:/ {print $2 * 1024}' "$F/proc-v1/1234/status")
[ "$row" = "$((anon + shmem + swap))|$anon|$shmem|$swap" ] || fail "v1 figures: $row"
lim=$(sql "$T/v1.db" "SELECT max FROM cgroup_sample LIMIT 1")
[ "$lim" = "$(cat "$F/sys-v1/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes")" ] || fail "v1 cgroup limit: $lim"
key=$(sql "$T/v1.db" "SELECT key FROM cgroup")
[ "$key" = "v1:/process_api/abc" ] || fail "cgroup key $key"
# A fixture never changes: its samples are one run of equal samples,
# folded into a row per commit (one a second), given back one by one.
rows=$(sql "$T/v1.db" "SELECT count(*) FROM sample")
n=$(nsamples "$T/v1.db")
exp=$(sql "$T/v1.db" "SELECT count(*) FROM sample_expanded")
echo "fixture: $n samples in $rows rows"
[ "$n" -ge 4 ] && [ "$rows" -le 2 ] || fail "runs not folded: $n samples in $rows rows"
[ "$exp" = "$n" ] || fail "sample_expanded has $exp rows for $n samples"
steps=$(sql "$T/v1.db" "SELECT count(DISTINCT round((t - lag) * 1e5)) FROM (SELECT t, lag(t) OVER (ORDER BY t) AS lag FROM sample_expanded) WHERE lag IS NOT NULL")
[ "$steps" = 1 ] || fail "expanded stamps are not 0.1 s apart ($steps distinct steps)"
# The report uses the recorded cgroup limit for the slope of concern.
"$MEMTREND" report "$T/v1.db" --json > "$T/v1.json" || fail "report"
src=$(jget "$T/v1.json" 'd["targets"][0]["concern_source"]')
[ "$(jget "$T/v1.json" 'd["targets"][0]["samples"]')" = "$n" ] || fail "report counts other than $n samples"
case "$src" in *"cgroup limit"*) ;; *) fail "concern source: $src" ;; esac
# An old kernel without RssAnon, MemAvailable or PSI: footprint absent
# (NULL), everything readable still recorded, no failure.
timeout 20 "$MEMTREND" record -q -o "$T/old.db" --proc-root "$F/proc-old-kernel" --sys-root "$F/sys-old-kernel" \
	-p 4001 -i 0.1s -d 0.5s || fail "old-kernel record exit $?"
row=$(sql "$T/old.db" "SELECT count(*), count(footprint), count(rss) FROM sample")
echo "old kernel: samples|footprint|rss = $row"
case "$row" in *"|0|"*) ;; *) fail "old kernel footprint should be NULL: $row" ;; esac
sys=$(sql "$T/old.db" "SELECT count(mem_total), count(mem_available), count(psi_some_avg10) FROM system_sample")
case "$sys" in [1-9]*"|0|0") ;; *) fail "old kernel system figures: $sys" ;; esac
"$MEMTREND" report "$T/old.db" > "$T/old.txt" || fail "report of absent footprints"
grep -q "verdict     inconclusive" "$T/old.txt" || fail "old kernel verdict"
ok "fixture trees: v1 figures exact, old kernel degrades to NULLs"
