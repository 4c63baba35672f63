#!/usr/bin/env python3
"""Memory series with a known truth, for `report --prometheus` (the test
tests/e2e/fleet_prometheus.sh and the bench's fleet rows).

Writes an OpenMetrics text that `promtool tsdb create-blocks-from
openmetrics` backfills, and optionally the same series as CSV files (one
per target, the columns report reads), so that the two reports can be
compared. Series i has the shape SHAPES[i % 4]:

  grow     base + slope * t + noise      (slope 20 MiB/h + i KiB/h)
  steady   base + noise
  plateau  rises for the first third, then flat + noise
  restart  grows, restarts halfway (a second pod, back to base), grows
           again: two series of one `app` (for --by app)

Values are whole bytes; noise is seeded (random.Random(i)), so every run
writes the same text. Timestamps: every STEP seconds, the last at END.
"""
import argparse
import os
import random
import sys

MIB = 1 << 20
SHAPES = ("grow", "steady", "plateau", "restart")


def series(i, points, step, end):
    """[(labels, [(t, v), ...]), ...] of target i (two for a restart)."""
    rnd = random.Random(i)
    shape = SHAPES[i % 4]
    t0 = end - (points - 1) * step
    base = 200 * MIB + i * 4096
    slope = (20 * MIB + i * 1024) / 3600.0  # bytes per second
    out = []
    pts = []
    pod = 1
    for k in range(points):
        t = t0 + k * step
        noise = rnd.randint(-64, 64) * 4096
        if shape == "grow":
            v = base + slope * (k * step) + noise
        elif shape == "steady":
            v = base + noise
        elif shape == "plateau":
            v = base + slope * min(k, points // 3) * step + noise
        else:
            half = points // 2
            if k == half:
                out.append(({"app": "app%d" % i, "pod": "app%d-%d" % (i, pod)}, pts))
                pts = []
                pod += 1
            v = base + slope * ((k if k < half else k - half) * step) + noise
        pts.append((t, int(v)))
    if shape == "restart":
        out.append(({"app": "app%d" % i, "pod": "app%d-%d" % (i, pod)}, pts))
    else:
        out.append(({"instance": "host%d" % i, "shape": shape}, pts))
    return out


def csv_name(parts):
    """The name of target i's CSV (without .csv): its instance, or for a
    restart its app (the label --by merges its pods on)."""
    labels0 = parts[0][0]
    return labels0.get("instance") or labels0["app"]


def write_csv(path, parts):
    """One target's series as the CSV report reads; a restart's pods are
    pids 1 and 2 (its incarnations)."""
    with open(path, "w") as f:
        f.write("time,footprint,pid\n")
        for n, (_, pts) in enumerate(parts):
            f.write("".join("%d,%d,%d\n" % (t, v, n + 1) for t, v in pts))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", type=int, required=True)
    ap.add_argument("--points", type=int, required=True)
    ap.add_argument("--step", type=int, default=60)
    ap.add_argument("--end", type=int, required=True)
    ap.add_argument("--metric", default="fleet_memory_bytes")
    ap.add_argument("--openmetrics", required=True)
    ap.add_argument("--csv-dir")
    a = ap.parse_args()
    with open(a.openmetrics, "w") as om:
        om.write("# TYPE %s gauge\n" % a.metric)
        for i in range(a.targets):
            parts = series(i, a.points, a.step, a.end)
            for labels, pts in parts:
                lab = ",".join('%s="%s"' % kv for kv in sorted(labels.items()))
                prefix = "%s{%s} " % (a.metric, lab)
                om.write("".join("%s%d %d\n" % (prefix, v, t) for t, v in pts))
            if a.csv_dir:
                write_csv(os.path.join(a.csv_dir, csv_name(parts) + ".csv"), parts)
        om.write("# EOF\n")


if __name__ == "__main__":
    sys.exit(main())
