#!/bin/sh
# scripts/fuzz.sh - build the libFuzzer harnesses (clang, ASan+UBSan) in
# build-fuzz and run each for FUZZ_SECONDS (default 60) on a copy of its
# committed seed corpus (tests/fuzz/corpus/NAME). Prints per harness the
# executions, executions per second and coverage (edges) libFuzzer
# reports; exits 1 on any crash, leak or sanitizer report (the reproducer
# is left in build-fuzz/crashes/); FUZZ_HARNESSES names some of them.
# `make fuzz` runs it; CI runs a short pass (FUZZ_SECONDS=18: 8
# harnesses and their build under 3 minutes).
set -eu
cd "$(dirname "$0")/.."
SECS=${FUZZ_SECONDS:-60}
HARNESSES=${FUZZ_HARNESSES:-"csv units openmetrics vmmap proc prometheus prom_peer exporter"}
B=build-fuzz
if [ ! -f "$B/build.ninja" ]; then
	CC=clang meson setup "$B" -Dfuzz=true -Db_sanitize=address,undefined \
		-Db_lundef=false --buildtype=debugoptimized > "$B.setup.log" 2>&1 ||
		{ cat "$B.setup.log"; echo "fuzz: setup failed (is clang installed?)" >&2; exit 3; }
	rm -f "$B.setup.log"
fi
ninja -C "$B" $(for f in $HARNESSES; do printf 'tests/fuzz/fuzz_%s ' $f; done) > /dev/null
mkdir -p "$B/crashes"
status=0
printf '%-12s %10s %10s %8s  %s\n' harness executions exec/s edges result
for f in $HARNESSES; do
	work="$B/corpus/$f"
	rm -rf "$work"
	mkdir -p "$work"
	cp tests/fuzz/corpus/$f/* "$work/" 2>/dev/null || true
	log="$B/fuzz_$f.log"
	set +e
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	ASAN_OPTIONS=detect_leaks=1 \
		"$B/tests/fuzz/fuzz_$f" -max_total_time="$SECS" -max_len=65536 \
		-rss_limit_mb=2048 -timeout=10 -print_final_stats=1 -close_fd_mask=2 \
		-artifact_prefix="$B/crashes/$f-" "$work" > "$log" 2>&1
	rc=$?
	set -e
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ $rc = 0 ]; then res=ok; else res="FAILED (see $log)"; status=1; fi
	printf '%-12s %10s %10s %8s  %s\n' "$f" "${execs:-?}" "${speed:-?}" "${cov:-?}" "$res"
done
exit $status
