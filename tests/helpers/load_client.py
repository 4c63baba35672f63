#!/usr/bin/python3
"""load_client.py - the load of the `memtrend check` tests: N GET / requests
to 127.0.0.1:PORT over one keep-alive connection, paced at --rate per
second at most (standard library only).

Usage:
    load_client.py --port PORT --requests N [--rate R] [--path /]

Waits up to 15 s for the port to accept (the service may still be
starting). Exits 0 when every request got a 200, 1 otherwise (the status
or error on stderr).
"""
import argparse
import http.client
import socket
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--rate", type=float, default=0)
ap.add_argument("--path", default="/")
args = ap.parse_args()

deadline = time.monotonic() + 15
while True:
    try:
        socket.create_connection(("127.0.0.1", args.port), 0.5).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("load_client: nothing listens on port %d" % args.port)
        time.sleep(0.05)

conn = http.client.HTTPConnection("127.0.0.1", args.port, timeout=10)
start = time.monotonic()
for i in range(args.requests):
    if args.rate > 0:
        ahead = start + i / args.rate - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
    try:
        conn.request("GET", args.path)
        r = conn.getresponse()
        r.read()
    except (OSError, http.client.HTTPException) as e:
        sys.exit("load_client: request %d: %s" % (i, e))
    if r.status != 200:
        sys.exit("load_client: request %d: HTTP %d" % (i, r.status))
