#!/bin/sh
# bench/run.sh - memtrend's benchmark suite: one command, one table.
#
#   bench/run.sh                 full run (~4-5 minutes)
#   BENCH_QUICK=1 bench/run.sh   smoke run (< 1 minute), numbers not meaningful
#
# Finds memtrend and the bench programs in ${BUILD:-build} (as `make bench`
# leaves them); when they are not there it makes a release build in
# build-bench. Peers come from ${PEERS:-<repo>/../shared/peers}. The
# measuring is done by bench/run.py under Debian's /usr/bin/python3 (where
# python3-psutil and python3-scipy live); everything it writes goes to
# bench/out/ (git-ignored), the final table also to bench/out/results.txt.
# Knobs (environment): see bench/README.md.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"

build() {
	out=$(ninja -C "$1" memtrend bench/bench_floor bench/bench_synth \
		bench/bench_tick bench/bench_watch bench/bench_analysis \
		bench/bench_exposition 2>&1) || {
		printf '%s\n' "$out" >&2
		echo "run.sh: the build in '$1' failed" >&2
		exit 1
	}
}

have_bins() {
	[ -x "$1/memtrend" ] && [ -x "$1/bench/bench_floor" ] &&
		[ -x "$1/bench/bench_synth" ] && [ -x "$1/bench/bench_tick" ] &&
		[ -x "$1/bench/bench_watch" ] && [ -x "$1/bench/bench_analysis" ]
}

BUILD=${BUILD:-build}
[ -f "$BUILD/build.ninja" ] && build "$BUILD"
if ! have_bins "$BUILD"; then
	echo "run.sh: no memtrend build in '$BUILD'; building a release build in build-bench" >&2
	BUILD=build-bench
	[ -f "$BUILD/build.ninja" ] ||
		meson setup "$BUILD" --buildtype=release >/dev/null
	build "$BUILD"
fi
have_bins "$BUILD" || { echo "run.sh: build failed" >&2; exit 1; }

PEERS=${PEERS:-"$root/../shared/peers"}
PYTHON=${PYTHON:-/usr/bin/python3}
[ -x "$PYTHON" ] || PYTHON=python3

BENCH_BUILD=$(cd "$BUILD" && pwd) BENCH_PEERS=$PEERS BENCH_ROOT=$root \
	exec "$PYTHON" "$here/run.py" "$@"
