"""listen_clients.py - the clients of tests/e2e/record_listen_clients.sh:
well-behaved ones (pipelining, keep-alive) and hostile ones (slow-loris)
against `memtrend record --listen` on 127.0.0.1:PORT. Every wait is bounded;
each mode prints what it measured and exits 1 with a reason on a failure.

  listen_clients.py PORT ready       until /metrics has a footprint (10 s)
  listen_clients.py PORT keepalive   two requests in one send, then three
                                     more on the same connection
  listen_clients.py PORT peraddress  40 slow-loris connections from one
                                     address: 16 kept (the per-address
                                     limit), each cut at the header deadline
  listen_clients.py PORT loris       100 slow-loris connections from ten
                                     addresses, reconnecting when cut, while
                                     a scraper from another address scrapes
  listen_clients.py PORT silent      300 silent connections from twenty
                                     addresses, then one scrape

The listener's limits (src/serve/listener.h) that the numbers below follow:
16 connections per address, a request whole within 5 s of the connection.
"""
import select
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
MODE = sys.argv[2]
PER_ADDRESS = 16
REQUEST_S = 5.0


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def connect(src="127.0.0.1", timeout=5.0):
    s = socket.socket()
    s.bind((src, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", PORT))
    return s


class Reader:
    """HTTP/1.1 answers read off one socket, one at a time."""

    def __init__(self, s):
        self.s, self.buf = s, b""

    def _more(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer in time")
        self.s.settimeout(left)
        d = self.s.recv(65536)
        if not d:
            raise EOFError("connection closed; had %r" % self.buf[:200])
        self.buf += d

    def answer(self, timeout=10.0):
        """(status, headers as a lower-cased dict, body)"""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in self.buf:
            self._more(deadline)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        n = int(headers.get("content-length", "0"))
        while len(self.buf) < n:
            self._more(deadline)
        body, self.buf = self.buf[:n], self.buf[n:]
        return status, headers, body


def request(accept=None):
    r = b"GET /metrics HTTP/1.1\r\nHost: memtrend\r\n"
    if accept:
        r += b"Accept: " + accept + b"\r\n"
    return r + b"\r\n"


def scrape(src="127.0.0.1", timeout=10.0):
    """One scrape on a new connection: (status, body)."""
    s = connect(src, timeout)
    try:
        s.sendall(request())
        status, _, body = Reader(s).answer(timeout)
        return status, body
    finally:
        s.close()


def ready():
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            status, body = scrape()
            if status == 200 and b"\nmemtrend_footprint_bytes{" in body:
                return
        except OSError:
            pass
        time.sleep(0.1)
    fail("no footprint in the exposition after 10 s")


def keepalive():
    s = connect()
    rd = Reader(s)
    om = b"application/openmetrics-text; version=1.0.0"
    # Two requests in one send: both answered, in order (the first asks
    # for OpenMetrics, the second for the text format).
    s.sendall(request(om) + request())
    types = []
    for i in range(2):
        try:
            status, h, body = rd.answer()
        except (OSError, EOFError) as e:
            fail("pipelined request %d of 2 not answered: %s" % (i + 1, e))
        if status != 200 or b"memtrend_footprint_bytes{" not in body:
            fail("pipelined request %d: status %d" % (i + 1, status))
        if h.get("connection", "").lower() == "close":
            fail("pipelined request %d: Connection: close" % (i + 1))
        types.append(h.get("content-type", ""))
    if not (types[0].startswith("application/openmetrics-text") and
            types[1].startswith("text/plain")):
        fail("pipelined answers out of order: %s" % types)
    # Prometheus's reuse: the next scrapes on the same connection.
    for i in range(3):
        time.sleep(0.2)
        try:
            s.sendall(request())
            status, h, body = rd.answer()
        except (OSError, EOFError) as e:
            fail("scrape %d on the kept connection: %s" % (i + 3, e))
        if status != 200 or b"memtrend_footprint_bytes{" not in body:
            fail("scrape %d on the kept connection: status %d" % (i + 3, status))
    s.close()
    print("keepalive: 2 pipelined requests answered in order, "
          "5 answers on one connection")


PAYLOAD = b"GET /metrics HTTP/1.1\r\nHost: memtrend\r\nX-Slow: " + b"a" * 4000


def trickle(s, t0, every, stop, closed):
    """Send one byte every `every` s until `stop` (monotonic); then wait
    for the server's close until `stop` + 10 s. closed[0] = seconds from
    t0 to the close, or None."""
    i = 0
    while True:
        now = time.monotonic()
        if now >= stop + 10:
            return
        r, _, _ = select.select([s], [], [], every)
        if r:
            try:
                d = s.recv(4096)
            except OSError:
                d = b""
            if not d:
                closed[0] = time.monotonic() - t0
                return
        if time.monotonic() < stop:
            try:
                s.send(PAYLOAD[i % len(PAYLOAD):i % len(PAYLOAD) + 1])
                i += 1
            except OSError:
                closed[0] = time.monotonic() - t0
                return


def peraddress():
    n = 40
    socks, threads, closed = [], [], []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.settimeout(5)
        try:
            s.connect(("127.0.0.1", PORT))
        except OSError as e:
            fail("connect: %s" % e)
        socks.append((s, time.monotonic()))
    stop = time.monotonic() + 12  # trickle for at most 12 s
    for s, t0 in socks:
        c = [None]
        closed.append(c)
        th = threading.Thread(target=trickle, args=(s, t0, 0.5, stop, c))
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    for s, _ in socks:
        s.close()
    times = [c[0] for c in closed]
    # Closed before REQUEST_S after connecting: not the header deadline
    # (which counts from the server's accept, after the connect), so
    # the per-address limit.
    early = [t for t in times if t is not None and t < REQUEST_S - 0.1]
    cut = sorted(t for t in times if t is not None and t >= REQUEST_S - 0.1)
    still = sum(1 for t in times if t is None)
    print("peraddress: %d of %d closed at once (max %.2f s), %d cut after "
          "%.2f-%.2f s of one byte every 0.5 s, %d never closed" %
          (len(early), n, max(early) if early else 0, len(cut),
           cut[0] if cut else 0, cut[-1] if cut else 0, still))
    if len(early) != n - PER_ADDRESS:
        fail("%d connections from one address refused, expected %d" %
             (len(early), n - PER_ADDRESS))
    if still or len(cut) != PER_ADDRESS:
        fail("%d slow connections never cut by the server" % still)
    if cut[-1] > REQUEST_S + 8:
        fail("a slow connection lived %.2f s (deadline %.0f s)" %
             (cut[-1], REQUEST_S))


def loris_worker(src, stop, stats, lock):
    """Keep one slow-loris connection from src open until stop, opening
    a new one whenever the server cuts it."""
    while time.monotonic() < stop:
        s = socket.socket()
        s.bind((src, 0))
        s.settimeout(1)
        try:
            s.connect(("127.0.0.1", PORT))
        except OSError:
            s.close()
            with lock:
                stats["refused"] += 1
            continue
        t0 = time.monotonic()
        c = [None]
        i = 0
        while time.monotonic() < stop:
            r, _, _ = select.select([s], [], [], 0.5)
            if r:
                try:
                    d = s.recv(4096)
                except OSError:
                    d = b""
                if not d:
                    c[0] = time.monotonic() - t0
                    break
            try:
                s.send(PAYLOAD[i:i + 1])
                i += 1
            except OSError:
                c[0] = time.monotonic() - t0
                break
        s.close()
        with lock:
            stats["opened"] += 1
            if c[0] is not None:
                stats["cut"] += 1


def loris():
    stop = time.monotonic() + 5.5
    stats = {"opened": 0, "cut": 0, "refused": 0}
    lock = threading.Lock()
    threads = []
    for k in range(100):
        src = "127.0.0.%d" % (2 + k % 10)
        th = threading.Thread(target=loris_worker,
                              args=(src, stop, stats, lock))
        th.start()
        threads.append(th)
    time.sleep(0.5)  # let them fill the slots
    lat = []
    while time.monotonic() < stop - 0.5:
        t = time.monotonic()
        try:
            status, body = scrape("127.0.0.12", timeout=5.0)
        except (OSError, EOFError) as e:
            for th in threads:
                th.join()
            fail("a scrape with 100 slow-loris connections open: %s after "
                 "%.2f s (%d answered before)" % (e, time.monotonic() - t,
                                                  len(lat)))
        if status != 200 or b"memtrend_footprint_bytes{" not in body:
            fail("a scrape with the slow-loris connections open: status %d"
                 % status)
        lat.append(time.monotonic() - t)
        time.sleep(0.3)
    for th in threads:
        th.join()
    lat.sort()
    print("loris: %d scrapes answered with 100 slow-loris connections "
          "(%d opened, %d cut by the server), latency median %.3f s, "
          "max %.3f s" % (len(lat), stats["opened"], stats["cut"],
                          lat[len(lat) // 2], lat[-1]))
    if len(lat) < 3:
        fail("only %d scrapes" % len(lat))


def silent():
    """300 connections from twenty addresses (15 each, under the
    per-address limit) that send nothing fill every slot (256); a scrape
    from another address is answered once the oldest of them have waited
    a second (LISTENER_GRACE_S) and make room."""
    held = []
    for k in range(300):
        s = socket.socket()
        s.bind(("127.0.0.%d" % (2 + k % 20), 0))
        s.setblocking(False)
        try:
            s.connect(("127.0.0.1", PORT))
        except BlockingIOError:
            pass
        held.append(s)
    time.sleep(0.2)
    t = time.monotonic()
    try:
        status, body = scrape("127.0.0.30", timeout=3.0)
    except (OSError, EOFError) as e:
        fail("a scrape behind 300 silent connections: %s after %.2f s" %
             (e, time.monotonic() - t))
    took = time.monotonic() - t
    for s in held:
        s.close()
    if status != 200 or b"memtrend_footprint_bytes{" not in body:
        fail("a scrape behind 300 silent connections: status %d" % status)
    print("silent: a scrape behind 300 silent connections answered in "
          "%.3f s" % took)


{"ready": ready, "keepalive": keepalive, "peraddress": peraddress,
 "loris": loris, "silent": silent}[MODE]()
