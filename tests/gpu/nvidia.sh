#!/bin/bash
# tests/gpu/nvidia.sh - issue 28's GPU check, for a machine with an NVIDIA
# GPU, nvidia-smi and PyTorch (CUDA). NOT part of `make test`: CI has no GPU.
#
# Runs the issue's PyTorch workloads on one GPU, each under its own
# `memtrend record`, and checks what memtrend says against nvidia-smi:
#   leak    keeps 64 MiB of device memory every 0.5 s: growing, about
#           +450 GiB/h on GPU N, and the exhaustion is GPU N's pool (its
#           total less what the others hold, as nvidia-smi gives them),
#           not MemTotal;
#   cache   fills a 3 GiB cache, then holds: plateau, no exhaustion;
#   steady  holds 2.9 GiB: not growing, no exhaustion; its per-device figure
#           equals nvidia-smi --query-compute-apps to the MiB;
#   server  a small HTTP server keeping an 8 MiB device tensor per request,
#           its request counter on /metrics (--work): growing, about
#           +10 MiB per request (PyTorch's caching allocator puts two 8 MiB
#           tensors in each 20 MiB segment).
# Without a GPU, nvidia-smi or PyTorch with CUDA it exits 77 (skipped) and
# says why. Exit 0: every check held; 1: one failed (each failure is
# printed, the rest still run).
#
#   ninja -C build && MEMTREND=build/memtrend tests/gpu/nvidia.sh
#
# Environment: MEMTREND (default build/memtrend), PYTHON (python3),
# GPU_INDEX (nvidia-smi's index, default 0), GPU_CHECK_SECONDS (each
# recording, default 90; the whole run takes about that plus CUDA's
# start-up).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MEMTREND=${MEMTREND:-$ROOT/build/memtrend}
PY=${PYTHON:-python3}
GPU=${GPU_INDEX:-0}
DUR=${GPU_CHECK_SECONDS:-90}
MiB=1048576

skip() { echo "SKIP: $*"; exit 77; }
command -v nvidia-smi > /dev/null || skip "nvidia-smi not found: not an NVIDIA machine"
nvidia-smi -i "$GPU" -L > /dev/null 2>&1 || skip "nvidia-smi finds no GPU $GPU"
"$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' \
	> /dev/null 2>&1 || skip "no PyTorch with CUDA in $PY"
command -v curl > /dev/null || skip "curl not found (the server's load)"
[ -x "$MEMTREND" ] || { echo "FAIL: $MEMTREND is not built (ninja -C build)"; exit 1; }

T=$(mktemp -d /tmp/memtrend-gpu.XXXXXX)
declare -A PID=()   # workload -> its pid
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	for p in "${PID[@]}"; do kill -CONT "$p" 2> /dev/null; kill "$p" 2> /dev/null; done
	wait 2> /dev/null
	rm -rf "$T"
}
trap cleanup EXIT
FAILED=0 SECTION_FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; SECTION_FAILED=1; }
# ok: said only when no check of its section failed
ok() { [ $SECTION_FAILED = 0 ] && echo "ok: $*"; SECTION_FAILED=0; }
# a field that is not there prints nothing (its check then fails)
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2> /dev/null; }
within() { "$PY" -c "import sys; v,l,h=map(float,sys.argv[1:]); sys.exit(0 if l<=v<=h else 1)" "$1" "$2" "$3" 2> /dev/null; }

# The machine, for the record (docs: machine, driver, date).
echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
nvidia-smi -i "$GPU" --query-gpu=index,name,driver_version,memory.total \
	--format=csv,noheader | sed 's/^/gpu: /'
"$PY" -c 'import torch; print("torch:", torch.__version__, "CUDA", torch.version.cuda)'
"$MEMTREND" --version 2> /dev/null | head -1

# CUDA's index is nvidia-smi's (PCI order), so cuda:0 below is GPU $GPU.
export CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=$GPU
cat > "$T/work.py" <<'PY'
import sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import torch
mode, ready = sys.argv[1], sys.argv[2]
MiB = 1 << 20
dev = torch.device("cuda:0")
torch.zeros(1, device=dev)              # the context first
torch.cuda.synchronize()
keep = []
def block(mib):
    keep.append(torch.ones(mib * MiB, dtype=torch.uint8, device=dev))
    torch.cuda.synchronize()
def mark():
    open(ready, "w").close()
if mode == "leak":                      # 64 MiB every 0.5 s, up to a cap
    cap = int(sys.argv[3])
    mark()
    while True:
        if (len(keep) + 1) * 64 * MiB <= cap:
            block(64)
        time.sleep(0.5)
elif mode == "cache":                   # 3 GiB filled, then held
    mark()
    time.sleep(float(sys.argv[3]))      # a few samples before it fills
    for _ in range(12):
        block(256)
        time.sleep(0.25)
    while True:
        time.sleep(60)
elif mode == "steady":                  # 2.9 GiB held
    block(2970)
    mark()
    while True:
        time.sleep(60)
elif mode == "server":                  # a device tensor per request
    lock, count = threading.Lock(), [0]
    class H(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/metrics":
                body = ("# TYPE requests counter\n"
                        "requests_total %d\n" % count[0]).encode()
            else:
                with lock:
                    block(8)
                    count[0] += 1
                body = b"ok\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        def log_message(self, *a):
            pass
    srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
    with open(ready + ".port", "w") as f:
        f.write(str(srv.server_address[1]))
    mark()
    srv.serve_forever()
PY

# wait_ready FILE: CUDA's start-up can take many seconds: 120 at most.
wait_ready() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1))
		[ $i -gt 1200 ] && { echo "FAIL: a workload never got ready ($1)"; exit 1; }
		sleep 0.1
	done
}
# The leak's cap: 64 MiB every 0.5 s for the whole recording, or half of
# what is free on the GPU, whichever is less (it must not fill it).
free_mib=$(nvidia-smi -i "$GPU" --query-gpu=memory.free --format=csv,noheader,nounits | tr -d ' ')
cap=$(( DUR * 128 * MiB ))
[ $(( free_mib * MiB / 2 )) -lt "$cap" ] && cap=$(( free_mib * MiB / 2 ))
"$PY" "$T/work.py" leak "$T/leak.ready" "$cap" & PID[leak]=$!
"$PY" "$T/work.py" cache "$T/cache.ready" 10 & PID[cache]=$!
"$PY" "$T/work.py" steady "$T/steady.ready" & PID[steady]=$!
"$PY" "$T/work.py" server "$T/server.ready" & PID[server]=$!
for w in leak cache steady server; do wait_ready "$T/$w.ready"; done
PORT=$(cat "$T/server.ready.port")

RECS=()
for w in leak cache steady server; do
	extra=()
	[ "$w" = server ] && extra=(--work "http://127.0.0.1:$PORT/metrics#requests_total")
	timeout $(( DUR + 60 )) "$MEMTREND" record -q -o "$T/$w.db" -p "${PID[$w]}" \
		-i 0.5s -d "${DUR}s" "${extra[@]}" 2> "$T/$w.err" & RECS+=($!)
done
# The server's load: 4 requests a second while it is recorded, stopping
# 15 s before the end (an idle stretch, as the issue's run had).
end=$(( SECONDS + DUR - 15 ))
while [ $SECONDS -lt $end ]; do
	curl -sf "http://127.0.0.1:$PORT/req" > /dev/null || { fail "the server did not answer"; break; }
	sleep 0.25
done
for r in "${RECS[@]}"; do
	wait "$r" || fail "memtrend record exited $?"
done
ok "recordings"
# Freeze the workloads: nvidia-smi then reads what the recordings last saw
# (the leak grows on: its pool's limit, total less the others', does not
# change with it).
for p in "${PID[@]}"; do kill -STOP "$p"; done
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits \
	-i "$GPU" > "$T/apps.csv"
read -r total used < <(nvidia-smi -i "$GPU" --query-gpu=memory.total,memory.used \
	--format=csv,noheader,nounits | tr -d ',')
echo "nvidia-smi: GPU $GPU total $total MiB, used $used MiB; processes:"
sed 's/^/  /' "$T/apps.csv"
own_mib() { awk -F', *' -v p="$1" '$1 == p {print $2}' "$T/apps.csv"; }
# NVML names processes by the host's pids: in a container without the
# host's PID namespace it lists none of ours, and no tool can tell which
# process holds what (memtrend included). That is no failure of memtrend.
[ -n "$(own_mib "${PID[steady]}")" ] ||
	skip "nvidia-smi lists none of the workloads' pids (a container without the host's PID namespace?): per-process GPU memory cannot be read here"

for w in leak cache steady server; do
	"$MEMTREND" report "$T/$w.db" --json > "$T/$w.json" 2> "$T/$w.rep.err" ||
		{ fail "report $w: $(cat "$T/$w.err" "$T/$w.rep.err")"; continue; }
	"$MEMTREND" report "$T/$w.db" > "$T/$w.txt" 2>&1
	echo "--- $w"; sed -n '3,8p' "$T/$w.txt"
done
verdict() { jget "$T/$1.json" 'd["targets"][0]["verdict"]'; }
pool() { jget "$T/$1.json" "[p for p in d['targets'][0]['pools'] if p['id'] == 'gpu$GPU'][0]$2"; }

# leak: growing on GPU N, its exhaustion GPU N's.
[ "$(verdict leak)" = growing ] || fail "leak: $(verdict leak), expected growing"
slope=$(pool leak '["slope"]["bytes_per_hour"]')
# 64 MiB per 0.5 s is 450 GiB/h; each step also waits for its fill
within "$slope" $(( 360 * 1024 * MiB )) $(( 460 * 1024 * MiB )) ||
	fail "leak: GPU $GPU slope $slope B/h, expected about 450 GiB/h"
epool=$(jget "$T/leak.json" 'd["targets"][0]["exhaustion"]["pool"]')
[ "$epool" = "gpu$GPU" ] || fail "leak: exhaustion pool $epool, expected gpu$GPU"
lim=$(pool leak '["limit_bytes"]')
own=$(own_mib "${PID[leak]}")
want=$(( (total - (used - own)) * MiB ))
within "$lim" $(( want - 66 * MiB )) $(( want + 66 * MiB )) ||
	fail "leak: GPU $GPU limit $lim, nvidia-smi: total - (used - own) = $want"
eta=$(jget "$T/leak.json" 'd["targets"][0]["exhaustion"]["eta_s"]')
last=$(pool leak '["last_bytes"]')
want_eta=$("$PY" -c "print(($lim - $last) / $slope * 3600)" 2> /dev/null)
within "$eta" "$("$PY" -c "print($want_eta * 0.99)" 2> /dev/null)" \
	"$("$PY" -c "print($want_eta * 1.01)" 2> /dev/null)" 2> /dev/null ||
	fail "leak: exhaustion in $eta s, its room over its slope is $want_eta s"
grep -q "at this rate GPU $GPU (.*) fills in" "$T/leak.txt" || fail "leak: no 'GPU $GPU ... fills in'"
grep -q "at this rate it reaches the MemTotal" "$T/leak.txt" && fail "leak: still says MemTotal"
ok "leak: growing, GPU $GPU pool: $slope B/h, limit $lim B (nvidia-smi $want B), full in $eta s"

# cache: filled, then held.
[ "$(verdict cache)" = plateau ] || fail "cache: $(verdict cache), expected plateau"
[ "$(jget "$T/cache.json" 'd["targets"][0]["exhaustion"]')" = None ] || fail "cache: an exhaustion"
ok "cache: $(verdict cache)"

# steady: not growing, and its figure is nvidia-smi's to the MiB.
v=$(verdict steady)
case "$v" in stable|inconclusive) ;; *) fail "steady: $v, expected stable (or inconclusive: a short window)" ;; esac
[ "$(jget "$T/steady.json" 'd["targets"][0]["exhaustion"]')" = None ] || fail "steady: an exhaustion"
for w in steady cache; do
	got=$(pool "$w" '["last_bytes"]')
	smi=$(( $(own_mib "${PID[$w]}") * MiB ))
	within "$got" $(( smi - MiB )) $(( smi + MiB )) ||
		fail "$w: GPU $GPU figure $got B, nvidia-smi $smi B"
done
ok "steady: $v; steady's and cache's GPU $GPU figures equal nvidia-smi's to the MiB"

# server: growing, about 10 MiB per request.
[ "$(verdict server)" = growing ] || fail "server: $(verdict server), expected growing"
pr=$(jget "$T/server.json" 'd["targets"][0]["per_request"]["bytes_per_request"]')
within "$pr" $(( 9 * MiB )) $(( 11 * MiB )) || fail "server: $pr B/request, expected about 10 MiB"
[ "$(jget "$T/server.json" 'd["targets"][0]["exhaustion"]["pool"]')" = "gpu$GPU" ] ||
	fail "server: exhaustion pool is not gpu$GPU"
ok "server: growing, $pr B per request"

if [ $FAILED = 0 ]; then echo "PASS: tests/gpu/nvidia.sh"; else echo "FAILED: tests/gpu/nvidia.sh"; fi
exit $FAILED
