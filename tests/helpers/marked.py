#!/usr/bin/env python3
"""marked.py - count (and wait for) a test's own processes, found by a mark
in their environment: MEMTREND_TEST_MARK=MARK, set on the memtrend a test
starts and so inherited by all it starts in turn, whatever they are called,
whichever group or session they moved to, wherever they were reparented.

  marked.py MARK [--name COMM] [--until-ge N | --until-eq N] [--within S]
  marked.py MARK --kill

Prints how many live processes carry the mark -- MARK itself or MARK.SUB
-- (named COMM, when given; zombies have no environment and are not
counted) and, with --until-*, how long the wait took ("3 after 0.12 s").
Exits 1 when the count is not there within S seconds (default 10),
listing the processes it sees. It never counts itself; its readings are a
poll every 20 ms, not a sleep-and-hope. --kill sends SIGKILL to every one
(a test's cleanup, so that what a failed run left does not outlive it).
"""
import argparse
import os
import signal
import sys
import time


def scan(mark, name):
    want = b"MEMTREND_TEST_MARK=" + mark.encode()
    found = []

    def marked(env):
        return any(v == want or v.startswith(want + b".") for v in env)
    me = os.getpid()
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            with open(f"/proc/{p}/environ", "rb") as f:
                if not marked(f.read().split(b"\0")):
                    continue
            with open(f"/proc/{p}/comm") as f:
                comm = f.read().strip()
            if name and comm != name:
                continue
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            found.append((int(p), comm, cmd.strip()))
        except OSError:
            pass  # gone meanwhile, or not ours to read
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mark")
    ap.add_argument("--name")
    ap.add_argument("--until-ge", type=int)
    ap.add_argument("--until-eq", type=int)
    ap.add_argument("--within", type=float, default=10.0)
    ap.add_argument("--kill", action="store_true")
    a = ap.parse_args()
    if a.kill:
        for pid, _, _ in scan(a.mark, None):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        return 0
    t0 = time.monotonic()
    while True:
        found = scan(a.mark, a.name)
        n = len(found)
        if a.until_ge is None and a.until_eq is None:
            print(n)
            return 0
        if (a.until_ge is not None and n >= a.until_ge) or \
           (a.until_eq is not None and n == a.until_eq):
            print(f"{n} after {time.monotonic() - t0:.2f} s")
            return 0
        if time.monotonic() - t0 > a.within:
            print(f"{n} after {a.within} s:", file=sys.stderr)
            for pid, comm, cmd in found:
                print(f"  pid {pid} ({comm}): {cmd}", file=sys.stderr)
            return 1
        time.sleep(0.02)


if __name__ == "__main__":
    sys.exit(main())
