#!/usr/bin/python3
"""bench/peer_scrape.py - the peer for memtrend's work-scrape cost: what a
psrecord-style sampler does to record memory and a Prometheus counter
together, in Python: psutil memory_info() and one urllib GET of the
metrics page per sample, summing the matching counter lines.

  peer_scrape.py PID URL METRIC LABEL=VALUE --interval 1 --count 60

Prints: samples=N cpu_s=X us_per_sample=Y (its own user+system CPU, the
interpreter's start-up excluded, like psutil_sampler.py)."""
import argparse
import re
import resource
import time
import urllib.request

import psutil

ap = argparse.ArgumentParser()
ap.add_argument("pid", type=int)
ap.add_argument("url")
ap.add_argument("metric")
ap.add_argument("label")
ap.add_argument("--interval", type=float, default=1.0)
ap.add_argument("--count", type=int, default=60)
a = ap.parse_args()
name, value = a.label.split("=", 1)
line_re = re.compile(r"^%s\{([^}]*)\}\s+(\S+)" % re.escape(a.metric))
want = '%s="%s"' % (name, value)
p = psutil.Process(a.pid)
r0 = resource.getrusage(resource.RUSAGE_SELF)
n = 0
for n in range(1, a.count + 1):
    deadline = time.monotonic() + a.interval
    m = p.memory_info()
    total = 0.0
    with urllib.request.urlopen(a.url, timeout=a.interval) as r:
        for line in r.read().decode().splitlines():
            mo = line_re.match(line)
            if mo and want in mo.group(1).split(","):
                total += float(mo.group(2))
    time.sleep(max(0.0, deadline - time.monotonic()))
r1 = resource.getrusage(resource.RUSAGE_SELF)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print("samples=%d cpu_s=%.4f us_per_sample=%.2f" % (n, cpu, cpu / max(n, 1) * 1e6))
