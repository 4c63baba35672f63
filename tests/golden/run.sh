#!/bin/sh
# tests/golden/run.sh MEMTREND OUTDIR - write the report of every golden
# input (the demo recording tests/golden/demo.db, the CSV fixtures, the
# vmmap fixture) as text, JSON and HTML into OUTDIR, one file per input and
# format. --limit is fixed so that the output does not depend on the
# machine's memory. tests/golden/check.sh compares OUTDIR with
# tests/golden/expected; after a change that is meant to alter the output,
# `tests/golden/run.sh build/memtrend tests/golden/expected` updates it (and
# the diff is reviewed in the commit).
set -u
M=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mkdir -p "$2"
OUT=$(cd "$2" && pwd)
# Relative input paths, so that the output names them the same anywhere.
cd "$(dirname "$0")/.."
HERE=golden
FIX=fixtures
export TZ=UTC LC_ALL=C
one() { # name input [report options...]
	name=$1 in=$2
	shift 2
	"$M" report "$in" --limit 64GiB --no-color "$@" > "$OUT/$name.txt" 2>&1
	echo "exit $?" >> "$OUT/$name.txt"
	"$M" report "$in" --limit 64GiB --json "$@" > "$OUT/$name.json" 2>&1
	echo "exit $?" >> "$OUT/$name.json"
	"$M" report "$in" --limit 64GiB --html - "$@" > "$OUT/$name.html" 2>&1
	echo "exit $?" >> "$OUT/$name.html"
}
one demo "$HERE/demo.db"
for f in diag-restart field-restart gauges idle-windows quoting restart \
	three_flat; do
	one "csv-$f" "$FIX/csv/$f.csv"
done
one csv-epoch_blanks "$FIX/csv/epoch_blanks.tsv"
one csv-three_flat-res "$FIX/csv/three_flat.csv" --resolution 1GB
one vmmap "$FIX/vmmap/vmmap-summary.txt"
for f in bad_backwards bad_cells bad_footprint bad_no_footprint bad_no_zone; do
	"$M" report "$FIX/csv/$f.csv" > "$OUT/csv-$f.txt" 2>&1
	echo "exit $?" >> "$OUT/csv-$f.txt"
done
exit 0
