#!/usr/bin/python3
"""metrics_server.py - a small metrics endpoint for the end-to-end tests of
`memtrend record --work URL#METRIC` (standard library only).

Usage:
    metrics_server.py --port-file FILE --mode-file FILE [--step N]
                      [--hang-seconds S] [--verbose]

It listens on 127.0.0.1 on a port the kernel picks, writes that port number
(and a newline) to --port-file once it is listening (written to a temporary
name in the same directory, then renamed, so a reader never sees half of
it), and serves until SIGTERM or SIGINT, then exits 0. Each request runs in
its own thread, so a request held by the `hang` mode does not block others.

GET /metrics reads --mode-file (one word; a missing or empty file means
`ok`) on every request:

  ok           200, Prometheus text format 0.0.4 (text/plain; version=0.0.4).
               The counter test_requests_total has three series,
               {model="a",code="200"} = 10*k, {model="a",code="500"} = k,
               {model="b",code="200"} = 100*k, where k counts the OK scrapes
               (1 on the first); so {model="a"} sums to 11*k and
               {code="200"} to 110*k. Also test_requests_created samples
               (a gauge family, as prometheus_client writes them) and a few
               unrelated gauges.
  openmetrics  the same figures in OpenMetrics 1.0 (application/openmetrics-
               text; version=1.0.0): `# TYPE test_requests counter`, samples
               test_requests_total and test_requests_created, `# EOF`.
               Counts as an OK scrape.
  reset        the service restarted: the next OK scrape (this one, or a
               later one if the file says something else by then) has k = 1
               again, and new _created times. A reset happens once each time
               the file is (re)written with `reset` (its inode, modification
               time or size changes); the file is polled every 10 ms, so a
               `reset` that stays there for only a moment between two
               scrapes is not missed. While the file keeps saying `reset`,
               the server behaves as `ok`.
  500          HTTP 500 with a short text body.
  hang         waits --hang-seconds (default 30) before answering 504 (the
               client's timeout should fire first). Does not count.
  garbage      200, text/plain, a body that is not an exposition.
  (other)      HTTP 500 naming the unknown mode.

--step N makes k advance by N per OK scrape instead of 1 (values stay 10*k,
k, 100*k). Other paths answer 404. With --verbose, one line per request
goes to stderr; otherwise the server prints nothing but errors.

By hand:
    echo ok > /tmp/mode
    ./metrics_server.py --port-file /tmp/port --mode-file /tmp/mode &
    curl -s http://127.0.0.1:$(cat /tmp/port)/metrics
"""

import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PROM_TYPE = "text/plain; version=0.0.4; charset=utf-8"
OM_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8"
GARBAGE = b"<html>oops</html>\n{{{ not: a metric} 12 ,\n"

SERIES = (  # (model, code, value per k)
    ("a", "200", 10),
    ("a", "500", 1),
    ("b", "200", 100),
)


def number(v):
    """A value as prometheus_client writes it: 30.0, 1.5e+06."""
    return repr(float(v))


class State:
    """The scrape counter and the mode file's last seen signature."""

    def __init__(self, mode_file, step):
        self.mode_file = mode_file
        self.step = step
        self.k = 0
        self.started = time.time()
        self.created = self.started
        self.last_signature = None
        self.pending_reset = False
        self.lock = threading.Lock()

    def read_mode(self):
        """The mode word; notes a freshly written `reset` for the next OK
        scrape."""
        try:
            with open(self.mode_file, "rb") as f:
                st = os.fstat(f.fileno())
                word = f.read(64).decode("ascii", "replace").strip()
            signature = (word, st.st_ino, st.st_mtime_ns, st.st_size)
        except FileNotFoundError:
            word, signature = "", None
        except OSError as e:
            sys.stderr.write("metrics_server: %s: %s\n" % (self.mode_file, e))
            word, signature = "", None
        with self.lock:
            if word == "reset" and signature != self.last_signature:
                self.pending_reset = True
            self.last_signature = signature
        return word or "ok"

    def watch(self):
        """Poll the mode file, so that a `reset` written for a moment
        between two scrapes is not missed."""
        while True:
            self.read_mode()
            time.sleep(0.01)

    def next_scrape(self):
        """k for this OK scrape (restarting from 0 after a reset)."""
        with self.lock:
            if self.pending_reset:
                self.pending_reset = False
                self.k = 0
                self.created = time.time()
            self.k += self.step
            return self.k, self.created


def prometheus_body(k, created, started):
    lines = [
        "# HELP test_requests_total Requests served, by model and status code.",
        "# TYPE test_requests_total counter",
    ]
    for model, code, per_k in SERIES:
        lines.append('test_requests_total{model="%s",code="%s"} %s'
                     % (model, code, number(per_k * k)))
    lines += [
        "# HELP test_requests_created Requests served, by model and status code.",
        "# TYPE test_requests_created gauge",
    ]
    for model, code, _ in SERIES:
        lines.append('test_requests_created{model="%s",code="%s"} %s'
                     % (model, code, number(created)))
    lines += gauges(k, started)
    return ("\n".join(lines) + "\n").encode()


def openmetrics_body(k, created, started):
    lines = [
        "# TYPE test_requests counter",
        "# HELP test_requests Requests served, by model and status code.",
    ]
    for model, code, per_k in SERIES:
        lines.append('test_requests_total{model="%s",code="%s"} %s'
                     % (model, code, number(per_k * k)))
        lines.append('test_requests_created{model="%s",code="%s"} %s'
                     % (model, code, number(created)))
    lines += gauges(k, started)
    lines.append("# EOF")
    return ("\n".join(lines) + "\n").encode()


def gauges(k, started):
    """Unrelated figures a real server exports alongside."""
    return [
        "# HELP test_inflight_requests Requests being served now.",
        "# TYPE test_inflight_requests gauge",
        "test_inflight_requests %s" % number(k % 4),
        "# HELP test_cache_bytes Bytes held by each cache.",
        "# TYPE test_cache_bytes gauge",
        'test_cache_bytes{cache="prompt"} %s' % number(1048576 * (1 + k % 3)),
        'test_cache_bytes{cache="kv",note="a \\"quoted\\" \\\\ value"} %s'
        % number(2.5e6),
        "# HELP process_start_time_seconds Start time of the process.",
        "# TYPE process_start_time_seconds gauge",
        "process_start_time_seconds %s" % number(round(started, 2)),
    ]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "memtrend-test-metrics/1"

    def log_message(self, fmt, *args):
        if self.server.verbose:
            sys.stderr.write("metrics_server: %s %s\n"
                             % (self.address_string(), fmt % args))

    def answer(self, status, content_type, body):
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout in `hang` mode)

    def do_GET(self):
        if self.path.split("?", 1)[0] != "/metrics":
            self.answer(404, "text/plain", b"not found: try /metrics\n")
            return
        state = self.server.state
        mode = state.read_mode()
        if mode in ("ok", "reset"):
            k, created = state.next_scrape()
            self.answer(200, PROM_TYPE,
                        prometheus_body(k, created, state.started))
        elif mode == "openmetrics":
            k, created = state.next_scrape()
            self.answer(200, OM_TYPE,
                        openmetrics_body(k, created, state.started))
        elif mode == "500":
            self.answer(500, "text/plain", b"internal server error\n")
        elif mode == "hang":
            time.sleep(self.server.hang_seconds)
            self.answer(504, "text/plain", b"hung\n")
        elif mode == "garbage":
            self.answer(200, "text/plain", GARBAGE)
        else:
            self.answer(500, "text/plain",
                        ("unknown mode %r\n" % mode).encode())


class Server(ThreadingHTTPServer):
    daemon_threads = True    # a hanging request never holds up the exit
    block_on_close = False


def write_port_file(path, port):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".port.", dir=directory)
    with os.fdopen(fd, "w") as f:
        f.write("%d\n" % port)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(
        description="A metrics endpoint for memtrend's end-to-end tests.")
    ap.add_argument("--port-file", required=True,
                    help="where to write the port once listening")
    ap.add_argument("--mode-file", required=True,
                    help="one word, read on every request (missing: ok)")
    ap.add_argument("--step", type=int, default=1,
                    help="how far k advances per OK scrape (default 1)")
    ap.add_argument("--hang-seconds", type=float, default=30.0,
                    help="how long `hang` waits (default 30)")
    ap.add_argument("--verbose", action="store_true",
                    help="one line per request on stderr")
    args = ap.parse_args()
    if args.step < 1:
        ap.error("--step must be at least 1")

    server = Server(("127.0.0.1", 0), Handler)
    server.state = State(args.mode_file, args.step)
    server.verbose = args.verbose
    server.hang_seconds = args.hang_seconds

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.state.read_mode()  # a `reset` already there is no news
    server.state.pending_reset = False
    threading.Thread(target=server.state.watch, daemon=True).start()
    write_port_file(args.port_file, server.server_address[1])
    if args.verbose:
        sys.stderr.write("metrics_server: listening on 127.0.0.1:%d\n"
                         % server.server_address[1])
    try:
        server.serve_forever(poll_interval=0.1)
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
