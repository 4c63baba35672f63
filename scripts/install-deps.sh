#!/bin/sh
# Install the Debian packages memtrend needs to build and test, if missing.
# Uses sudo when not root. --quiet prints nothing when all are present.
set -e
PKGS="gcc meson ninja-build pkg-config libsqlite3-dev libjansson-dev libcmocka-dev libcurl4-openssl-dev
      sqlite3 python3 python3-psutil python3-scipy sysstat procps tmux
      chromium fonts-dejavu-core redis-server redis-tools memcached nginx-light wrk"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
	[ "$1" = "--quiet" ] || echo "install-deps: all build and test dependencies present"
	exit 0
fi
echo "install-deps: installing:$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
