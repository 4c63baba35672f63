#!/bin/sh
# Install the Debian packages memtrend needs to build and test, if missing.
# Uses sudo when not root. --quiet prints nothing when all are present;
# --build-only installs only what building needs (`make demo`): no test
# servers, browsers, fuzzing compiler or npm packages.
set -e
# Building: the compiler, Meson (and its python3), the libraries.
# libdw-dev: record --sites names its frames (without it: module+offset).
# libbpf-dev, clang, bpftool: record --sites -p's eBPF mode (its kernel
# half compiled for the BPF target, its skeleton generated; without them
# the mode says so and records without sites).
BUILD_PKGS="gcc meson ninja-build pkg-config python3 libsqlite3-dev libjansson-dev libcurl4-openssl-dev libmicrohttpd-dev libyajl-dev libdw-dev libbpf-dev clang bpftool"
# Testing, fuzzing, benchmarks: cmocka, the real servers of the end-to-end
# tests, Chromium for the HTML checks, clang for libFuzzer, the peers,
# prometheus for promtool (test_openmetrics_render checks the exposition
# with it; on a machine with systemd the package also starts a Prometheus
# server: `systemctl disable --now prometheus` if it is not wanted), jemalloc
# and mimalloc for the preloaded arms of `memtrend probe` (tests/e2e/probe.sh),
# stress-ng for `make test-loaded` (the suites with the cores busy),
# bpftrace for the eBPF mode's peer in the benchmarks (bench/README.md, j).
TEST_PKGS="libcmocka-dev sqlite3 python3-psutil python3-scipy sysstat atop procps tmux
      clang libclang-rt-dev
      chromium fonts-dejavu-core redis-server redis-tools memcached nginx-light wrk
      prometheus curl libjemalloc2 libmimalloc2.0
      prometheus-process-exporter libxml2-utils stress-ng bpftrace"
case " $* " in
*" --build-only "*) PKGS=$BUILD_PKGS ;;
*) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
esac
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
# The inference runtime of the LLM end-to-end test (tests/e2e/
# llm_server.sh): llama.cpp's prebuilt CPU build through node-llama-cpp,
# pinned in tests/helpers/llm/package.json and package-lock.json, from the npm registry,
# with no install scripts (no downloads, no builds) and no optional
# packages (the CUDA/Vulkan variants). Needs Node.js 20 or later; where it
# or npm is missing or unreachable the test is skipped, with a message.
npm_deps() {
	case " $* " in *" --build-only "*) return 0 ;; esac
	here=$(cd "$(dirname "$0")/.." && pwd)/tests/helpers/llm
	[ -d "$here/node_modules/node-llama-cpp" ] && return 0
	command -v npm >/dev/null 2>&1 || {
		echo "install-deps: npm not found: the LLM end-to-end test will be skipped"
		return 0
	}
	echo "install-deps: installing node-llama-cpp (npm) for the LLM end-to-end test"
	# npm install, not npm ci: the lock holds only this platform's optional
	# packages, which npm ci refuses; versions still come from the lock.
	(cd "$here" && timeout 600 npm install --ignore-scripts --omit=optional \
		--no-audit --no-fund --loglevel=error) ||
		echo "install-deps: npm install failed: the LLM end-to-end test will be skipped"
}
if [ -z "$missing" ]; then
	npm_deps "$@"
	[ "${1:-}" = "--quiet" ] || echo "install-deps: all build and test dependencies present"
	exit 0
fi
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
npm_deps "$@"
