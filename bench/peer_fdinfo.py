#!/usr/bin/python3
"""peer_fdinfo.py - the peer for bench section f: what a tool that reads a
process's GPU memory from DRM fdinfo does per refresh when it keeps nothing
between refreshes: list /proc/PID/fdinfo, read every entry, keep the drm-*
lines of DRM clients (each client once), sum resident bytes per region.

    peer_fdinfo.py FDINFO_DIR [--interval S] [--count N]

Prints one line: us_per_sample=X samples=N clients=C (CPU per sample of its
sampling loop, user + system, from getrusage).
"""
import argparse
import os
import resource
import time


def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def bytes_of(v):
    parts = v.split()
    mult = {"KiB": 1024, "MiB": 1024 * 1024}.get(parts[1], 1) \
        if len(parts) > 1 else 1
    return int(parts[0]) * mult


def sample(d):
    seen, regions = set(), {}
    for name in os.listdir(d):
        try:
            with open(os.path.join(d, name)) as f:
                text = f.read()
        except OSError:
            continue
        kv = dict(line.split(":", 1) for line in text.splitlines()
                  if ":" in line and line.startswith("drm-"))
        if "drm-driver" not in kv:
            continue
        key = (kv["drm-driver"].strip(), kv.get("drm-pdev", "").strip(),
               kv.get("drm-client-id", name).strip())
        if key in seen:
            continue
        seen.add(key)
        for k, v in kv.items():
            if k.startswith("drm-resident-"):
                r = k[len("drm-resident-"):]
                regions[r] = regions.get(r, 0) + bytes_of(v.strip())
    return len(seen), regions


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fdinfo_dir")
    ap.add_argument("--interval", type=float, default=0.01)
    ap.add_argument("--count", type=int, default=100)
    a = ap.parse_args()
    sample(a.fdinfo_dir)  # warm
    c0 = cpu()
    deadline = time.monotonic()
    clients = 0
    for _ in range(a.count):
        clients, _ = sample(a.fdinfo_dir)
        deadline += a.interval
        time.sleep(max(0.0, deadline - time.monotonic()))
    print("us_per_sample=%.1f samples=%d clients=%d" % (
        (cpu() - c0) / a.count * 1e6, a.count, clients))


if __name__ == "__main__":
    main()
