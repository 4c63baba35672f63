#!/bin/sh
# Print one closing line for the test runs of the given meson build dirs:
# "tests: N passed, N failed, N skipped" (meson's own summary is split per
# build). Counts meson tests (each a cmocka program or an e2e script).
pass=0 fail=0 skip=0
for d in "$@"; do
	log="$d/meson-logs/testlog.json"
	[ -f "$log" ] || continue
	p=$(grep -o '"result": "OK"' "$log" | wc -l)
	s=$(grep -o '"result": "SKIP"' "$log" | wc -l)
	t=$(grep -o '"result": "[A-Z]*"' "$log" | wc -l)
	pass=$((pass + p)); skip=$((skip + s)); fail=$((fail + t - p - s))
done
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
