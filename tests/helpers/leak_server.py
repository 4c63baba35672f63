#!/usr/bin/python3
"""leak_server.py - an HTTP service with a known leak, for the end-to-end
tests of `memtrend check` (standard library only).

Usage:
    leak_server.py --port PORT [--leak BYTES] [--cache-cap N --cache-item BYTES]
                   [--noise BYTES] [--seed N]

GET / is one request: it keeps --leak BYTES for good (a bytes object
filled with data, so its pages are touched and resident), and with
--cache-cap N it also stores --cache-item BYTES under key (count mod N):
the cache fills during the first N requests, then each request replaces an
entry of the same size (memory holds at the cap). --noise BYTES is
allocator noise without a leak: each request replaces one of 4 slots
(seeded random choice, --seed, default 17) with a touched buffer of a
random size up to BYTES, so the footprint wanders by several times BYTES
and comes back; one seed gives the same noise per request in every run. GET /metrics is the work
counter in Prometheus text format: `leak_requests_total COUNT`, the
requests to / so far (scrapes do not count). HTTP/1.1 with keep-alive, a
thread per connection (a scraper's kept-alive connection must not block the
load's). SIGTERM exits 0.
"""
import argparse
import random
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--leak", type=int, default=0)
ap.add_argument("--cache-cap", type=int, default=0)
ap.add_argument("--cache-item", type=int, default=0)
ap.add_argument("--noise", type=int, default=0)
ap.add_argument("--seed", type=int, default=17)
args = ap.parse_args()

kept = []
cache = {}
count = 0
noise = [b""] * 4
rng = random.Random(args.seed)
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes

    def log_message(self, *a):
        pass

    def reply(self, body, ctype="text/plain"):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global count
        if self.path == "/metrics":
            self.reply(("# TYPE leak_requests_total counter\n"
                        "leak_requests_total %d\n" % count).encode(),
                       "text/plain; version=0.0.4")
            return
        if self.path != "/":
            self.send_error(404)
            return
        with lock:
            if args.leak:
                kept.append(b"\x5a" * args.leak)
            if args.cache_cap:
                cache[count % args.cache_cap] = b"\xa5" * args.cache_item
            if args.noise:
                noise[rng.randrange(4)] = b"\x3c" * rng.randrange(args.noise)
            count += 1
        self.reply(b"ok\n")


signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
