#!/bin/sh
# tests/golden/check.sh MEMTREND - the golden test: the reports of the
# golden inputs (tests/golden/run.sh) are byte for byte those in
# tests/golden/expected. A difference prints the diff and fails; when the
# change is meant, regenerate expected with run.sh and review the diff.
set -u
M=$1
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
"$(dirname "$0")/run.sh" "$M" "$OUT"
if diff -r -u "$(dirname "$0")/expected" "$OUT" > "$OUT.diff" 2>&1; then
	rm -f "$OUT.diff"
	echo "golden: $(ls "$OUT" | wc -l) outputs equal"
	exit 0
fi
head -c 20000 "$OUT.diff"
rm -f "$OUT.diff"
echo "golden: outputs differ from tests/golden/expected (see diff above)" >&2
exit 1
