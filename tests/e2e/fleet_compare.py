#!/usr/bin/env python3
"""The fleet report against the CSV report of the same series (issue 16:
"the verdicts and slopes equal memtrend's own analysis of the same series
read from CSV, slopes within 1 %"): used by tests/e2e/fleet_prometheus.sh
(1 and 50 series) and by the bench's fleet rows (bench/run.py, section i,
up to 10,000 series).

For each target of a `report --prometheus --json` output, the CSV of the
same series (named by the value of label KEY: `instance` for a series of
its own, `app` for a restart's pods merged with --by app) is reported
with `memtrend report FILE.csv --json [REPORT_ARGS]`, and the two must
give
  - the same verdict,
  - slopes within 1 %: |fleet - csv| <= 1 % of max(|csv|, 1 KiB/h) (the
    floor keeps a steady series' slope near 0 from making any difference
    relative), both null counting as equal,
  - the same number of samples.
The CSVs come from --csv-dir (written beforehand by tests/e2e/fleet_gen.py
--csv-dir), or with --generate POINTS STEP END are written by fleet_gen's
own functions into --tmp-dir one target at a time and deleted once
reported (10,000 CSVs of 10,080 points are 2.5 GB; this keeps --jobs of
them at a time). --every K compares every K-th target (by fleet_gen's
index: the 1st, the K+1-th, ...
of the targets sorted by it), a deterministic sample.

Prints one line per difference (the first 20), then `compared N targets`;
--summary FILE writes the counts as JSON. Exit 1 when any differs.
"""
import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fleet_gen  # noqa: E402

SLOPE_TOL = 0.01
SLOPE_FLOOR = 1024.0   # bytes per hour


def slope_of(t):
    s = t.get("slope")
    return None if s is None else s["bytes_per_hour"]


def compare_one(job):
    """(name, fleet target's figures, csv path or generation) -> result."""
    name, fleet, csv, gen, memtrend, args = job
    made = False
    if csv is None:
        points, step, end, tmp = gen
        i = int(re.search(r"(\d+)$", name).group(1))
        csv = os.path.join(tmp, name + ".csv")
        fleet_gen.write_csv(csv, fleet_gen.series(i, points, step, end))
        made = True
    try:
        out = subprocess.run([memtrend, "report", csv, "--json"] + args,
                             capture_output=True, check=True).stdout
    finally:
        if made:
            os.unlink(csv)
    c = json.loads(out)["targets"][0]
    a, b = fleet["slope"], slope_of(c)
    if a is None or b is None:
        rel = 0.0 if a is None and b is None else float("inf")
    else:
        rel = abs(a - b) / max(abs(b), SLOPE_FLOOR)
    return {"name": name, "verdict": fleet["verdict"],
            "csv_verdict": c["verdict"], "slope": a, "csv_slope": b,
            "rel": rel, "samples": fleet["samples"],
            "csv_samples": c["samples"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fleet", required=True, help="report --prometheus --json output")
    ap.add_argument("--key", required=True, help="the label naming a target's CSV")
    ap.add_argument("--memtrend", required=True)
    ap.add_argument("--csv-dir")
    ap.add_argument("--generate", nargs=3, type=int, metavar=("POINTS", "STEP", "END"))
    ap.add_argument("--tmp-dir")
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--summary")
    ap.add_argument("report_args", nargs="*")
    a = ap.parse_args()
    if bool(a.csv_dir) == bool(a.generate) or (a.generate and not a.tmp_dir):
        ap.error("--csv-dir, or --generate with --tmp-dir")
    with open(a.fleet) as f:
        targets = json.load(f)["targets"]
    gen = tuple(a.generate) + (a.tmp_dir,) if a.generate else None
    jobs = []
    index = lambda t: int(re.search(r"(\d+)$", t["labels"][a.key]).group(1))
    for pos, t in enumerate(sorted(targets, key=index)):
        if pos % a.every:
            continue
        name = t["labels"][a.key]
        fig = {"verdict": t["verdict"], "slope": slope_of(t),
               "samples": t["samples"]}
        csv = os.path.join(a.csv_dir, name + ".csv") if a.csv_dir else None
        jobs.append((name, fig, csv, gen, a.memtrend, a.report_args))
    if a.jobs > 1:
        with multiprocessing.Pool(a.jobs) as pool:
            res = pool.map(compare_one, jobs, chunksize=16)
    else:
        res = [compare_one(j) for j in jobs]
    said = 0
    for r in res:
        diff = []
        if r["verdict"] != r["csv_verdict"]:
            diff.append("verdict %s, CSV %s" % (r["verdict"], r["csv_verdict"]))
        if r["rel"] > SLOPE_TOL:
            diff.append("slope %s, CSV %s" % (r["slope"], r["csv_slope"]))
        if r["samples"] != r["csv_samples"]:
            diff.append("%d samples, CSV %d" % (r["samples"], r["csv_samples"]))
        if diff and said < 20:
            print("%s: %s" % (r["name"], "; ".join(diff)))
            said += 1
    n = len(res)
    s = {"targets": len(targets), "compared": n,
         "verdicts_equal": sum(r["verdict"] == r["csv_verdict"] for r in res),
         "slopes_within": sum(r["rel"] <= SLOPE_TOL for r in res),
         "samples_equal": sum(r["samples"] == r["csv_samples"] for r in res),
         "worst_rel": max((r["rel"] for r in res), default=0.0),
         "worst_name": max(res, key=lambda r: r["rel"])["name"] if res else None}
    s["all_agree"] = n > 0 and s["verdicts_equal"] == s["slopes_within"] == \
        s["samples_equal"] == n
    if a.summary:
        with open(a.summary, "w") as f:
            json.dump(s, f)
    print("compared %d targets" % n)
    return 0 if s["all_agree"] else 1


if __name__ == "__main__":
    sys.exit(main())
