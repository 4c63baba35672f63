# GPU memory end to end, on a fixture proc tree (DRM fdinfo) and the fake
# NVML library (tests/helpers/fake_nvml.c) loaded through
# $MEMTREND_NVML_LIB: figures per region in gpu_sample, device-local
# memory added to the footprint (host GTT regions not: they are already
# in RssAnon/RssShmem), the GPU family of --regions, the report's GPU
# component in text and JSON, NVML processes appearing and leaving, an
# NVML failure noted once, and --no-gpu.
. "$E2E_LIB"
: "${FAKE_NVML_LIB:?}"
F="$FIXTURES"
P="$T/proc"
cp -r "$F/proc-v1" "$P"
mkdir -p "$P/1234/fdinfo"
# Host part of the footprint, from the fixture's status (kB * 1024).
status="$P/1234/status"
host=$(awk '/^(RssAnon|RssShmem|VmSwap):/ {s += $2} END {print s * 1024}' "$status")
GiB=1073741824

# fd 0: not DRM; fds 3 and 4: one amdgpu client (same client id: counted
# once); vram is device memory, gtt host memory.
printf 'pos:\t0\nflags:\t02\nmnt_id:\t25\n' > "$P/1234/fdinfo/0"
drm() { # drm VRAM_KIB -> the client's fdinfo
	printf 'pos:\t0\nflags:\t02100002\ndrm-driver:\tamdgpu\ndrm-client-id:\t7\n'
	printf 'drm-pdev:\t0000:03:00.0\ndrm-total-vram:\t%s KiB\ndrm-resident-vram:\t%s KiB\n' "$1" "$1"
	printf 'drm-total-gtt:\t200 MiB\ndrm-resident-gtt:\t200 MiB\n'
}
set_vram() { # atomically, as the kernel would present it
	drm "$1" > "$T/fd.tmp" && cp "$T/fd.tmp" "$T/fd4.tmp" &&
	mv "$T/fd.tmp" "$P/1234/fdinfo/3" && mv "$T/fd4.tmp" "$P/1234/fdinfo/4"
}
set_vram 1048576                          # 1 GiB
# One mapping of the render node in smaps (for --regions' GPU family).
cat > "$P/1234/smaps" <<'SMAPS'
7f0000000000-7f0000100000 rw-s 00000000 00:05 1096 /dev/dri/renderD128
Size:               1024 kB
Rss:                 512 kB
Pss:                 512 kB
Shared_Clean:          0 kB
Shared_Dirty:          0 kB
Private_Clean:         0 kB
Private_Dirty:       512 kB
Anonymous:             0 kB
Swap:                  0 kB
SMAPS

# NVML: one device, pid 1234 using 512 MiB on it.
NV="$T/nvml.txt"
printf 'devices 1\nmem 0 85899345920 4294967296\nproc 0 compute 1234 536870912\n' > "$NV"

export MEMTREND_NVML_LIB="$FAKE_NVML_LIB" FAKE_NVML_SCRIPT="$NV"
bg timeout 30 "$MEMTREND" record -q -o "$T/gpu.db" --proc-root "$P" \
	--sys-root "$F/sys-v1" -p 1234 -i 0.1s -d 3s --regions
rec=$LAST_BG
sleep 1
set_vram 2097152                          # 2 GiB: growth on the device
sleep 0.7
# The process leaves NVML's lists, then NVML fails.
printf 'devices 1\nmem 0 85899345920 0\n' > "$NV"
sleep 0.6
printf 'devices 1\nmem 0 85899345920 0\nfail processes\n' > "$NV"
wait "$rec" || fail "record exit $?"

meta=$(sql "$T/gpu.db" "SELECT value FROM meta WHERE key = 'gpu_sources'")
[ "$meta" = "DRM fdinfo; NVML: 1 device" ] || fail "gpu_sources: $meta"
# Every sample: footprint = host + gpu, gpu = DRM vram (+ NVML while the
# process was listed). gtt (200 MiB) never counts.
bad=$(sql "$T/gpu.db" "SELECT count(*) FROM sample WHERE footprint != $host + gpu")
[ "$bad" = 0 ] || fail "$bad samples whose footprint is not host + gpu"
vals=$(sql "$T/gpu.db" "SELECT DISTINCT gpu FROM sample ORDER BY rowid" | tr '\n' ' ')
echo "gpu values: $vals"
[ "$vals" = "$((GiB + GiB / 2)) $((2 * GiB + GiB / 2)) $((2 * GiB)) " ] || fail "gpu sequence: $vals"
regions=$(sql "$T/gpu.db" "SELECT DISTINCT source || ':' || region || ':' || kind FROM gpu_sample ORDER BY 1" | tr '\n' ' ')
[ "$regions" = "drm:gtt:host drm:vram:device nvml:device0:device " ] || fail "gpu regions: $regions"
# A region's row is written when its figures change: vram twice (1 GiB,
# then 2 GiB), gtt once, NVML's once and once more (NULLs) when the
# process left its lists.
rows=$(sql "$T/gpu.db" "SELECT group_concat(n, ' ') FROM (SELECT count(*) AS n FROM gpu_sample GROUP BY source, region ORDER BY source, region)")
[ "$rows" = "1 2 2" ] || fail "gpu_sample rows per region (gtt vram nvml): $rows"
gone=$(sql "$T/gpu.db" "SELECT count(*) FROM gpu_sample WHERE source = 'nvml' AND resident IS NULL")
[ "$gone" = 1 ] || fail "NVML region gone: $gone NULL rows"
gtt=$(sql "$T/gpu.db" "SELECT DISTINCT resident FROM gpu_sample WHERE region = 'gtt'")
[ "$gtt" = "$((200 * 1048576))" ] || fail "gtt resident $gtt"
dev=$(sql "$T/gpu.db" "SELECT total || '|' || used FROM gpu_device LIMIT 1")
[ "$dev" = "85899345920|4294967296" ] || fail "gpu_device row: $dev"
notes=$(sql "$T/gpu.db" "SELECT count(*) FROM note WHERE text LIKE 'NVML:%'")
[ "$notes" = 1 ] || fail "NVML failure should be noted once, got $notes"
# --regions: the GPU family holds the mapping (512 KiB) plus the
# device-local memory at the snapshot; first snapshot at 1.5 GiB.
fam=$(sql "$T/gpu.db" "SELECT footprint FROM region_snapshot WHERE family = 'gpu' ORDER BY rowid LIMIT 1")
[ "$fam" = "$((512 * 1024 + GiB + GiB / 2))" ] || fail "GPU family footprint $fam"
ok "recording: per-region rows, footprint = host + device-local, gtt not counted, NVML appear/leave/fail"

"$MEMTREND" report "$T/gpu.db" --json > "$T/gpu.json" || fail "report --json"
last=$(jget "$T/gpu.json" 'd["targets"][0]["gpu"]["device_local_last_bytes"]')
first=$(jget "$T/gpu.json" 'd["targets"][0]["gpu"]["device_local_first_bytes"]')
[ "$first" = "$((GiB + GiB / 2))" ] && [ "$last" = "$((2 * GiB))" ] || fail "JSON gpu first/last $first $last"
kinds=$(jget "$T/gpu.json" '" ".join(r["source"]+":"+r["region"]+":"+r["kind"] for r in d["targets"][0]["gpu"]["regions"])')
[ "$kinds" = "drm:vram:device drm:gtt:host nvml:device0:device" ] || fail "JSON regions $kinds"
src=$(jget "$T/gpu.json" 'd["gpu_sources"]')
[ "$src" = "DRM fdinfo; NVML: 1 device" ] || fail "JSON gpu_sources $src"
tot=$(jget "$T/gpu.json" 'd["gpu_devices"][0]["total_bytes"]')
[ "$tot" = 85899345920 ] || fail "JSON device total $tot"
fam=$(jget "$T/gpu.json" '[f for f in d["targets"][0]["regions"]["families"] if f["family"]=="gpu"][0]["footprint_bytes"]')
[ "$fam" = "$((512 * 1024 + 2 * GiB))" ] || fail "JSON GPU family (last snapshot) $fam"
"$MEMTREND" report "$T/gpu.db" > "$T/gpu.txt" || fail "report"
grep -q "^  GPU         device-local last 2 GiB (87 % of the footprint)" "$T/gpu.txt" || { cat "$T/gpu.txt" >&2; fail "text GPU line"; }
grep -q "drm gtt: 200 MiB \[host: host RAM, already in anon/shmem\]" "$T/gpu.txt" || fail "text gtt line"
grep -q "GPU memory (device-local) is 2 GiB, 87 % of the footprint" "$T/gpu.txt" || fail "GPU reason"
"$MEMTREND" report "$T/gpu.db" --html "$T/gpu.html" > /dev/null || fail "report --html"
grep -q "<h3>GPU memory</h3>" "$T/gpu.html" || fail "HTML GPU table"
grep -q "GPU memory (device-local)" "$T/gpu.html" || fail "HTML GPU layer"
ok "report: GPU component in text, JSON and HTML"

# --no-gpu: nothing read, footprint from /proc alone.
timeout 20 "$MEMTREND" record -q -o "$T/off.db" --proc-root "$P" --sys-root "$F/sys-v1" \
	-p 1234 -i 0.1s -d 0.5s --no-gpu || fail "--no-gpu record"
row=$(sql "$T/off.db" "SELECT count(gpu), min(footprint), max(footprint) FROM sample")
[ "$row" = "0|$host|$host" ] || fail "--no-gpu samples: $row"
[ "$(sql "$T/off.db" "SELECT count(*) FROM gpu_sample")" = 0 ] || fail "--no-gpu wrote GPU rows"
# No NVML library: said in meta, DRM still read.
MEMTREND_NVML_LIB="$T/none.so" timeout 20 "$MEMTREND" record -q -o "$T/nolib.db" --proc-root "$P" \
	--sys-root "$F/sys-v1" -p 1234 -i 0.1s -d 0.5s || fail "no-NVML record"
meta=$(sql "$T/nolib.db" "SELECT value FROM meta WHERE key = 'gpu_sources'")
case "$meta" in "DRM fdinfo; NVML: not loaded ("*) ;; *) fail "no-NVML meta: $meta" ;; esac
g=$(sql "$T/nolib.db" "SELECT DISTINCT gpu FROM sample")
[ "$g" = "$((2 * GiB))" ] || fail "DRM without NVML: $g"
"$MEMTREND" report --json "$T/off.db" > "$T/off.json" || fail "report off"
[ "$(jget "$T/off.json" 'd["targets"][0]["gpu"]')" = None ] || fail "gpu should be null without GPU figures"
ok "--no-gpu and a missing NVML library"
