# Issue 28: each GPU is a pool with its own limit. A process (a fixture
# proc tree) holds memory on two GPUs of the fake NVML
# (tests/helpers/fake_nvml.c): on GPU 0 it grows at exactly 64 MiB/s, on
# GPU 1 it holds. The report and /metrics must say GPU 0 fills first,
# against GPU 0's total less what the others hold -- not MemTotal with
# the footprint's slope -- one figure per device, and the HTML plot's
# title must say it includes GPU memory.
#
# Expected figures, by hand: GPU 0 has 80 GiB; 10 GiB used at the start,
# 4 GiB of it the process's, so the others hold 6 GiB and the pool's limit
# is 74 GiB (used and the process's memory grow together: the others'
# share stays 6 GiB). The slope is 64 MiB/s = 225 GiB/h. GPU 1: 80 GiB,
# 2 GiB used, 1 GiB the process's: limit 79 GiB, flat, no exhaustion.
. "$E2E_LIB"
: "${FAKE_NVML_LIB:?}"
command -v curl > /dev/null || { echo "SKIP: curl not installed"; exit 77; }
F="$FIXTURES"
P="$T/proc"
cp -r "$F/proc-v1" "$P"
mkdir -p "$P/1234/fdinfo"   # no DRM client: NVML alone
GiB=1073741824 MiB=1048576
NV="$T/nvml.txt"
cat > "$NV" <<EOF
devices 2
name 0 Fake H200
name 1 Fake H200 $(printf '\033')[2J
mem 0 $((80 * GiB)) $((10 * GiB))
mem 1 $((80 * GiB)) $((2 * GiB))
proc 0 compute 1234 $((4 * GiB))
proc 1 compute 1234 $((1 * GiB))
grow 0 1234 $((64 * MiB))
EOF
export MEMTREND_NVML_LIB="$FAKE_NVML_LIB" FAKE_NVML_SCRIPT="$NV"

bg timeout 30 "$MEMTREND" record -o "$T/p.db" --proc-root "$P" \
	--sys-root "$F/sys-v1" -p 1234 -i 0.1s -d 20s \
	--listen 127.0.0.1:0 2> "$T/rec.err"
REC=$LAST_BG
URL=$(listen_url "$T/rec.err") || exit 1
# /metrics: the exporter analyses the target as samples come; wait (10 s
# at most) for GPU 0's exhaustion line.
i=0
until curl -sf "$URL" > "$T/m.txt" && grep -q 'pool="gpu0"' "$T/m.txt"; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "no pool=\"gpu0\" line: $(grep exhaustion "$T/m.txt")"
	sleep 0.1
done
line=$(grep '^memtrend_exhaustion_seconds{' "$T/m.txt")
echo "$line"
case "$line" in
*'target="python3",kind="pid",pid="1234",pool="gpu0"} '[0-9]*) ;;
*) fail "exhaustion line: $line" ;;
esac
[ "$(grep -c '^memtrend_exhaustion_seconds{' "$T/m.txt")" = 1 ] ||
	fail "only GPU 0 runs out (host and GPU 1 hold): $line"
# (74 GiB - what it holds) / 64 MiB/s: at most 1184 s, and it held 4 GiB
# and more, so at most (74 - 4) GiB / 64 MiB/s = 1120 s
eta=${line##* }
within "$eta" 900 1130 || fail "GPU 0 full in $eta s, expected about 1100"
ok "/metrics: memtrend_exhaustion_seconds{pool=\"gpu0\"} $eta, no host or gpu1 line"
kill -TERM "$REC"
wait "$REC"
rc=$?
[ "$rc" = 0 ] || [ "$rc" = 143 ] || fail "record exit $rc: $(cat "$T/rec.err")"

rows=$(sql "$T/p.db" "SELECT DISTINCT region FROM gpu_sample WHERE source = 'nvml' ORDER BY 1" | tr '\n' ' ')
[ "$rows" = "device0 device1 " ] || fail "NVML rows per device: $rows"
name=$(sql "$T/p.db" "SELECT value FROM meta WHERE key = 'gpu_name_0'")
[ "$name" = "Fake H200" ] || fail "meta gpu_name_0: $name"

"$MEMTREND" report "$T/p.db" --json > "$T/p.json" || fail "report --json"
ids=$(jget "$T/p.json" '" ".join(p["id"] for p in d["targets"][0]["pools"])')
[ "$ids" = "host gpu0 gpu1" ] || fail "pools: $ids"
[ "$(jget "$T/p.json" 'd["targets"][0]["exhaustion"]["pool"]')" = gpu0 ] ||
	fail "exhaustion pool: $(jget "$T/p.json" 'd["targets"][0]["exhaustion"]')"
[ "$(jget "$T/p.json" 'd["targets"][0]["exhaustion"]["limit_source"]')" = "GPU memory less what others hold" ] ||
	fail "limit source"
g0() { jget "$T/p.json" "[p for p in d['targets'][0]['pools'] if p['id'] == 'gpu0'][0]$1"; }
g1() { jget "$T/p.json" "[p for p in d['targets'][0]['pools'] if p['id'] == 'gpu1'][0]$1"; }
[ "$(g0 '["name"]')" = "GPU 0 (Fake H200, 80 GiB)" ] || fail "name: $(g0 '["name"]')"
[ "$(g0 '["device_total_bytes"]')" = $((80 * GiB)) ] || fail "GPU 0 total"
# The limit: 80 GiB less the others' 6 GiB, the device read up to a
# second before the last sample (the process's growth in between is
# counted as its own): 74 GiB, plus at most 1 s of growth.
lim=$(g0 '["limit_bytes"]')
within "$lim" $((74 * GiB)) $((74 * GiB + 70 * MiB)) || fail "GPU 0 limit $lim"
slope=$(g0 '["slope"]["bytes_per_hour"]')
within "$slope" $((225 * GiB * 99 / 100)) $((225 * GiB * 101 / 100)) ||
	fail "GPU 0 slope $slope, expected 225 GiB/h"
[ "$(g1 '["limit_bytes"]')" = $((79 * GiB)) ] || fail "GPU 1 limit $(g1 '["limit_bytes"]')"
[ "$(g1 '["last_bytes"]')" = $((1 * GiB)) ] || fail "GPU 1 holds $(g1 '["last_bytes"]')"
[ "$(g1 '["eta_s"]')" = None ] || fail "GPU 1 does not fill"
hl=$(jget "$T/p.json" 'd["targets"][0]["pools"][0]["limit_source"]')
[ "$hl" = "cgroup limit" ] || fail "host pool limit: $hl (the fixture's cgroup has one)"
[ "$(jget "$T/p.json" 'd["targets"][0]["pools"][0]["eta_s"]')" = None ] || fail "host pool does not fill"
[ "$(jget "$T/p.json" 'd["gpu_devices"][0]["name"]')" = "Fake H200" ] || fail "gpu_devices name"
ok "JSON: pools host, gpu0 (74 GiB, 225 GiB/h, first), gpu1 (79 GiB, flat)"

"$MEMTREND" report "$T/p.db" > "$T/p.txt" || fail "report"
grep -q "at this rate GPU 0 (Fake H200, 80 GiB) fills in " "$T/p.txt" ||
	{ cat "$T/p.txt" >&2; fail "text: GPU 0 fills"; }
grep -q "MemTotal (.*) in" "$T/p.txt" && fail "text still says MemTotal runs out"
grep -q "^  exhaustion  GPU 0 (Fake H200, 80 GiB): GPU memory less what others hold (74" "$T/p.txt" || fail "text exhaustion line"
# GPU 1's name holds an escape sequence (the driver's or a recording's
# word): printed escaped, never raw
grep -qF 'GPU 1 (Fake H200 \x1b[2J, 80 GiB): 1 GiB of 79 GiB (GPU memory less what others hold), 0 B/h' "$T/p.txt" || fail "text GPU 1 pool: $(grep 'GPU 1' "$T/p.txt")"
! grep -q "$(printf '\033')" "$T/p.txt" || fail "a raw ESC in the text report"
grep -q "slope of concern .*fills GPU 0 (Fake H200, 80 GiB) in 30 days" "$T/p.txt" ||
	grep -q "fills GPU 0 (Fake H200, 80 GiB) in 30 days" "$T/p.txt" || fail "concern follows GPU 0"
ok "text: GPU 0 fills first, each pool, the concern follows GPU 0"

"$MEMTREND" report "$T/p.db" --html "$T/p.html" > /dev/null || fail "report --html"
grep -q "Footprint over time (anon + swap + shmem + device-local GPU memory)" "$T/p.html" ||
	fail "HTML plot title"
grep -q "<h3>Pools</h3>" "$T/p.html" || fail "HTML pools table"
ok "HTML: the plot says it includes GPU memory; a pools table"

# A file written before issue 28 has one NVML row per process, region
# "device", the sum over devices: with one NVML device it is device 0.
cp "$T/p.db" "$T/old.db"
sql "$T/old.db" "DELETE FROM gpu_sample WHERE region = 'device1'; DELETE FROM gpu_device WHERE device = 1; UPDATE gpu_sample SET region = 'device' WHERE region = 'device0'; DELETE FROM meta WHERE key LIKE 'gpu_name_%'"
"$MEMTREND" report "$T/old.db" --json > "$T/old.json" || fail "report of the older file"
ids=$(jget "$T/old.json" '" ".join(p["id"] for p in d["targets"][0]["pools"])')
[ "$ids" = "host gpu0" ] || fail "older file's pools: $ids"
[ "$(jget "$T/old.json" '[p for p in d["targets"][0]["pools"] if p["id"] == "gpu0"][0]["name"]')" = "GPU 0 (80 GiB)" ] ||
	fail "older file's GPU 0 name"
ok "a file from before issue 28 (region device, one NVML device): GPU 0's pool"
