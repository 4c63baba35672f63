#!/bin/sh
# Run a command (make test) with the machine's cores kept busy by
# stress-ng, so that the tests are seen to hold on a loaded machine:
# `make test-loaded` (issue 27: "every e2e test passes with the machine's
# cores busy"). Usage: test-loaded.sh WORKERS COMMAND [ARGS...]: WORKERS
# CPU hogs (stress-ng --cpu, each spinning on one core at nice 0) for the
# command's whole run; stopped, by their pid, when it ends. Exits with
# the command's status; 2 when stress-ng is missing (scripts/install-deps.sh
# installs it).
#
# What it does not do: load memory, disks or the network, or pin anything
# to a core; the tests' own timeouts stay as they are.
set -u
workers=${1:?usage: test-loaded.sh WORKERS COMMAND [ARGS...]}
shift
command -v stress-ng >/dev/null 2>&1 || {
	echo "test-loaded: stress-ng is not installed (scripts/install-deps.sh)" >&2
	exit 2
}
# --timeout bounds the hogs even if this script is killed outright.
stress-ng --cpu "$workers" --timeout 4h --quiet &
hog=$!
trap 'kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
echo "test-loaded: stress-ng --cpu $workers (pid $hog) while: $*"
"$@"
rc=$?
echo "test-loaded: '$*' exited $rc with $workers CPU hogs running"
exit $rc
