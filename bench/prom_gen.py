#!/usr/bin/env python3
# prom_gen.py SERIES POINTS FILE - a Prometheus query_range response of
# SERIES series x POINTS points (1-minute steps, values quoted as the API
# quotes them, every 4th timestamp with milliseconds), for bench_prom_parse.
import sys, random
n_series, n_points = int(sys.argv[1]), int(sys.argv[2])
out = open(sys.argv[3], "w")
random.seed(1)
out.write('{"status":"success","data":{"resultType":"matrix","result":[')
t0 = 1700000000
for s in range(n_series):
    if s: out.write(',')
    out.write('{"metric":{"__name__":"container_memory_working_set_bytes","container":"app%d","instance":"10.0.%d.%d:8080","job":"kubelet","namespace":"ns%d","pod":"app%d-7f9c8d-x%d"},"values":[' % (s, s // 250, s % 250, s % 17, s, s))
    base = 100000000 + s * 1000
    parts = []
    for k in range(n_points):
        t = t0 + 60 * k
        ts = "%d" % t if k % 4 else "%d.%03d" % (t, k % 1000)
        parts.append('[%s,"%d"]' % (ts, base + 4096 * k + random.randrange(65536)))
    out.write(",".join(parts))
    out.write(']}')
out.write(']}}')
