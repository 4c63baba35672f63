"""scrape_flood.py - many clients scraping `record --listen` as fast as
they can, each a new connection per scrape (Connection: close), from one
or several loopback addresses (127.0.0.1, .2, ...): what the listener's
per-address limit and its room for new connections (docs/openmetrics.md,
"Connections") cost well-behaved clients under load.

  python3 bench/scrape_flood.py PORT [CLIENTS=500] [SECONDS=10] [ADDRESSES=1]

Prints the scrapes answered, those that failed by kind (ConnectionResetError
or "empty": closed without an answer, e.g. over the per-address limit;
TimeoutError: no answer in 10 s), and the latency of the answered ones.
Not run by run.sh. Not a test.
"""
import socket
import sys
import threading
import time

PORT = int(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 else 500
SECS = float(sys.argv[3]) if len(sys.argv) > 3 else 10
NADDR = int(sys.argv[4]) if len(sys.argv) > 4 else 1
REQ = b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
lock = threading.Lock()
answered, failed, lat = [0], {}, []


def client(i):
    end = time.monotonic() + SECS
    src = "127.0.0.%d" % (1 + i % NADDR)
    while time.monotonic() < end:
        t = time.monotonic()
        kind = None
        try:
            s = socket.socket()
            s.bind((src, 0))
            s.settimeout(10)
            s.connect(("127.0.0.1", PORT))
            s.sendall(REQ)
            d = b""
            while True:
                x = s.recv(65536)
                if not x:
                    break
                d += x
            s.close()
            if not d.startswith(b"HTTP/1.1 200"):
                kind = "empty" if not d else "not 200"
        except OSError as e:
            kind = type(e).__name__
        with lock:
            if kind:
                failed[kind] = failed.get(kind, 0) + 1
            else:
                answered[0] += 1
                lat.append(time.monotonic() - t)


threads = [threading.Thread(target=client, args=(i,)) for i in range(N)]
for th in threads:
    th.start()
for th in threads:
    th.join()
lat.sort()
q = (lambda p: lat[min(len(lat) - 1, int(len(lat) * p))]) if lat else (lambda p: float("nan"))
print("clients=%d addresses=%d seconds=%g answered=%d failed=%s "
      "latency median=%.3f p99=%.3f max=%.3f" %
      (N, NADDR, SECS, answered[0], failed or "{}", q(0.5), q(0.99), q(1.0)))
