# Shared helpers for the end-to-end tests (sourced). Each test runs real
# processes in its own temporary directory, bounded in time, and cleans up
# every process it started, whatever happens.
set -u
: "${MEMTREND:?}" "${GROWER:?}"
T=$(mktemp -d /tmp/memtrend-e2e.XXXXXX)
chmod 755 "$T"
BG_PIDS=""
cleanup() {
	# TERM first: a grower with --children stops its children on TERM
	# (orphans would keep the test's output pipe open); then KILL.
	for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
	sleep 0.2
	for p in $BG_PIDS; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
# The python used to read JSON: Debian's, not a pyenv shim.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
bg() { "$@" & BG_PIDS="$BG_PIDS $!"; LAST_BG=$!; }
# wait_for FILE SECONDS
wait_for() {
	local i=0
	while [ ! -e "$1" ]; do
		i=$((i + 1)); [ $i -gt $(( $2 * 20 )) ] && fail "timed out waiting for $1"
		sleep 0.05
	done
}
# jq-like: jget FILE 'python expression on d'
jget() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# sql FILE 'query'
sql() { sqlite3 "$1" "$2"; }
# nsamples FILE: process samples in a recording (a row of equal samples
# folded into a run counts its repeats).
nsamples() { sqlite3 "$1" "SELECT coalesce(sum(coalesce(repeats, 1)), 0) FROM sample"; }
# A free TCP port on 127.0.0.1 (the kernel's choice; closed again at once).
free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
# wait_port PORT SECONDS: until something accepts on 127.0.0.1:PORT.
wait_port() {
	local i=0
	until "$PY" -c 'import socket,sys; socket.create_connection(("127.0.0.1",int(sys.argv[1])),0.2).close()' "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(( $2 * 10 )) ] && fail "nothing listens on port $1 after $2 s"
		sleep 0.1
	done
}
# need PROGRAM...: skip (exit 77) when a server the test drives is missing.
need() {
	for p in "$@"; do
		command -v "$p" >/dev/null 2>&1 || { echo "skip: $p not installed"; exit 77; }
	done
}
# within VALUE LOW HIGH: LOW <= VALUE <= HIGH (floats).
within() {
	"$PY" -c "import sys; v,l,h=map(float,sys.argv[1:]); sys.exit(0 if l<=v<=h else 1)" "$1" "$2" "$3"
}
# within_widened V LO HI: V inside the interval [LO, HI] widened to three
# times its width about its middle. A 95 % interval misses the truth in
# one run of twenty by definition; widened so (about 6 standard errors)
# an honest one misses once in 10^8 runs, while a slope off by more than
# the interval's width still fails (e2e_sites, the sites' tests).
within_widened() {
	"$PY" -c "import sys; v,l,h=map(float,sys.argv[1:]); sys.exit(0 if l-(h-l)<=v<=h+(h-l) else 1)" "$1" "$2" "$3"
}
# listen_url ERRFILE: wait (10 s at most) for `record --listen`'s note in
# ERRFILE and print the /metrics URL it names (fails, in its subshell:
# call it as URL=$(listen_url F) || exit 1).
listen_url() {
	local i=0
	until grep -q "serving the figures at" "$1"; do
		i=$((i + 1)); [ $i -gt 100 ] && fail "no listener: $(cat "$1")"
		sleep 0.1
	done
	sed -n 's/.*serving the figures at \(http[^ ]*\).*/\1/p' "$1"
}
# redis_server PORT: REDIS_SERVER=(argv of a throwaway redis-server on
# 127.0.0.1:PORT: no persistence, its files in $T). redis_set_calls PORT:
# a shell command printing the server's SET calls so far (a work counter).
redis_server() {
	REDIS_SERVER=(redis-server --port "$1" --bind 127.0.0.1 --save '' \
		--appendonly no --dir "$T" --logfile "$T/redis.log")
}
redis_set_calls() {
	echo "redis-cli -p $1 info commandstats | sed -n 's/^cmdstat_set:calls=\([0-9]*\).*/\1/p' | grep . || echo 0"
}
