#!/bin/sh
# scripts/analyze.sh - gcc's static analyser (-fanalyzer) over every source
# file of memtrend, as the build compiles them; exits 1 on any warning.
# `make analyze` runs it, and CI. One gcc per core at a time.
set -u
cd "$(dirname "$0")/.."
flags="-std=c17 -D_GNU_SOURCE -DMEMTREND_VERSION=\"analyze\" -O1 -fanalyzer"
# Every layer's headers (the build gives each layer fewer; see meson.build).
for d in src/*/; do flags="$flags -I$d"; done
flags="$flags $(pkg-config --cflags libcurl jansson sqlite3 2>/dev/null)"
# record --sites' names through libdw, where it is installed (as the build).
pkg-config --exists libdw 2>/dev/null &&
	flags="$flags -DMEMTREND_HAVE_LIBDW=1 -DMEMTREND_HAVE_CXA_DEMANGLE=1"
# The HTML report's assets as the build embeds them (src/render/meson.build).
gen=$(mktemp -d)
python3 scripts/embed_assets.py --c "$gen/render_html_assets.c" \
	--h "$gen/render_html_assets.h" src/render/assets/report.css \
	src/render/assets/report_head.js src/render/assets/report.js || exit 1
flags="$flags -I$gen"
out=$(mktemp)
# One gcc per file, as many at once as there are cores (the analyser is
# the slow part of CI's pass after the tests).
export flags
for f in src/*/*.c "$gen/render_html_assets.c"; do printf '%s\n' "$f"; done |
	xargs -P "$(nproc)" -n 1 sh -c '
		# shellcheck disable=SC2086
		gcc $flags -c "$1" -o /dev/null 2>&1' sh > "$out"
rm -rf "$gen"
n=$(grep -c "warning:\|error:" "$out")
if [ "$n" != 0 ]; then
	cat "$out"
	echo "analyze: $n finding(s) from gcc -fanalyzer" >&2
	rm -f "$out"
	exit 1
fi
rm -f "$out"
echo "analyze: gcc -fanalyzer: no findings in $(ls src/*/*.c | wc -l) files"
