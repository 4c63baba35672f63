#!/usr/bin/env python3
"""check_power.py - how many requests `memtrend check`'s statistics need to
fail a leak, against a fixed-threshold gate (first vs last reading, the
rule of pytest-memray's limit_leaks-style gates) at the same false-failure
rate on a service that does not leak. Not a test: a table.

    bench/check_power.py [--memtrend build/memtrend] [--seeds 40] [--quick]

The series are simulated, seeded (Python's random, no numpy): 200 readings
of a service that takes N requests at a steady rate (N/200 between two
readings), footprint = 1 GiB + leak x requests + noise, the noise "50 MiB of
allocator noise" in two families: iid (Gaussian, sigma 50 MiB) and ar1
(the same sigma, wandering: lag-one correlation 0.9 per reading), rounded
to 4 KiB pages as /proc gives them. Each series is written as a CSV (time,
footprint, requests) and judged by `memtrend report --json`: its
per-request slope and 95 % interval are exactly what `check` holds against
its budget (gate.c: the same estimator, interval and resolution widening).

The gates, both asked "does this service grow?":
  check  fail when the interval's lower end is above the budget, 1 B/req
         (any growth; false failures on a service that does not leak are
         then the interval's 2.5 % one-sided tail, measured below);
  fixed  fail when last - first reading > T, T the 97.5th percentile of
         last - first over 20,000 simulated non-leaking series of the same
         family (2.5 % false failures by construction).

Printed per family and N: how often each gate fails a 1 KiB/req leak and a
service that does not leak; then the smallest N (of the grid) at which a
gate fails the leak in at least 90 % of seeds, and the ratio fixed/check.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile

MIB = 1024 * 1024
READINGS = 200
SIGMA = 50 * MIB
LEAK = 1024.0
BUDGET = 1  # B/req: any growth
PAGE = 4096


def series(n_req, leak, family, rng):
    """(t, footprint, requests) rows of one simulated run."""
    rows = []
    u = rng.gauss(0, SIGMA)
    phi = 0.9 if family == "ar1" else 0.0
    for i in range(READINGS):
        if i:
            u = phi * u + math.sqrt(1 - phi * phi) * rng.gauss(0, SIGMA)
        req = n_req * i / (READINGS - 1)
        fp = 1024 * MIB + leak * req + u
        rows.append((1_700_000_000 + i, round(fp / PAGE) * PAGE, round(req)))
    return rows


def check_fails(memtrend, rows, tmp):
    path = os.path.join(tmp, "s.csv")
    with open(path, "w") as f:
        f.write("time,footprint,requests\n")
        for t, fp, req in rows:
            f.write("%d,%d,%d\n" % (t, fp, req))
    out = subprocess.run([memtrend, "report", path, "--json"],
                         capture_output=True, text=True, check=True).stdout
    pr = json.loads(out)["targets"][0]["per_request"]
    low = pr.get("ci95_low")
    return low is not None and low > BUDGET


def fixed_threshold(family, rng, n=20000):
    """97.5th percentile of last - first on non-leaking series (only the
    two end readings matter, so they are drawn alone)."""
    phi = 0.9 if family == "ar1" else 0.0
    rho = phi ** (READINGS - 1)
    d = []
    for _ in range(n):
        a = rng.gauss(0, SIGMA)
        b = rho * a + math.sqrt(1 - rho * rho) * rng.gauss(0, SIGMA)
        d.append(round(b / PAGE) * PAGE - round(a / PAGE) * PAGE)
    d.sort()
    return d[int(0.975 * n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memtrend", default=os.environ.get(
        "MEMTREND", "build/memtrend"))
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--quick", action="store_true",
                    help="8 seeds, a coarse grid: checks that it runs")
    args = ap.parse_args()
    seeds = 8 if args.quick else args.seeds
    grid = [4000 * 2 ** k for k in range(0, 9, 2 if args.quick else 1)]
    print("check vs a fixed-threshold gate: fail a 1 KiB/req leak, "
          "noise sigma 50 MiB, %d readings, %d seeds" % (READINGS, seeds))
    print("%-6s %9s | %11s %11s | %11s %11s" % (
        "noise", "requests", "check leak", "check none", "fixed leak",
        "fixed none"))
    summary = []
    with tempfile.TemporaryDirectory() as tmp:
        for family in ("iid", "ar1"):
            thr = fixed_threshold(family, random.Random(1))
            need = {"check": None, "fixed": None}
            for n in grid:
                hits = {"cl": 0, "cn": 0, "fl": 0, "fn": 0}
                for seed in range(seeds):
                    for leak, key in ((LEAK, "l"), (0.0, "n")):
                        rng = random.Random("%s-%d-%d-%s" % (family, n, seed, key))
                        rows = series(n, leak, family, rng)
                        hits["c" + key] += check_fails(args.memtrend, rows,
                                                       tmp)
                        hits["f" + key] += rows[-1][1] - rows[0][1] > thr
                pct = {k: 100.0 * v / seeds for k, v in hits.items()}
                print("%-6s %9d | %10.0f%% %10.0f%% | %10.0f%% %10.0f%%" % (
                    family, n, pct["cl"], pct["cn"], pct["fl"], pct["fn"]))
                sys.stdout.flush()
                if need["check"] is None and pct["cl"] >= 90:
                    need["check"] = n
                if need["fixed"] is None and pct["fl"] >= 90:
                    need["fixed"] = n
            summary.append((family, thr, need))
    print()
    print("requests to fail the leak in >= 90 %% of seeds (grid: x%d)" %
          (4 if args.quick else 2))
    for family, thr, need in summary:
        c, f = need["check"], need["fixed"]
        ratio = ("%.1fx" % (f / c)) if c and f else (
            "> %.1fx" % (grid[-1] * 2 / c) if c else "n/a")
        print("%-6s check %9s   fixed (T = %.0f MiB) %9s   fixed/check %s" % (
            family, c or "> %d" % grid[-1], thr / MIB,
            f or "> %d" % grid[-1], ratio))


if __name__ == "__main__":
    main()
