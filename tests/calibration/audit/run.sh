#!/bin/sh
# tests/calibration/audit/run.sh MEMTREND DATADIR SEED_FIRST SEED_END [FAMILY...]
# An audit on families the method was never tuned on (README.md): generate
# each seed's CSV and truth (gen.py), then `memtrend report --json` on each,
# two at a time. Then: /usr/bin/python3 evaluate.py DATADIR [SEEDS].
set -e
m=$1; d=$2; s0=$3; s1=$4; shift 4
here=$(dirname "$0")
/usr/bin/python3 "$here/gen.py" "$d" "$s0" "$s1" "$@"
find "$d" -name '*.csv' | sort | while read -r f; do [ -e "$f.json" ] || echo "$f"; done |
  M="$m" xargs -P 2 -I{} sh -c '"$M" report "{}" --json > "{}.json" 2> "{}.err"; echo $? > "{}.rc"'
