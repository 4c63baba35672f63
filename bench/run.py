#!/usr/bin/env python3
"""bench/run.py - the measuring behind bench/run.sh (start it through run.sh).

Every figure in the final table is measured in this one run. CPU is taken
from each child's own rusage (os.wait4: user + system), wall time around
the child, peak RSS from ru_maxrss. See bench/README.md for what each row
means and how to read it."""
import json
import math
import os
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time

ROOT = os.environ.get("BENCH_ROOT") or os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BENCH_BUILD") or os.path.join(ROOT, "build")
PEERS = os.environ.get("BENCH_PEERS") or os.path.join(ROOT, "..", "shared",
                                                      "peers")
OUT = os.environ.get("BENCH_OUT") or os.path.join(ROOT, "bench", "out")
MEMTREND = os.path.join(BUILD, "memtrend")
FLOOR = os.path.join(BUILD, "bench", "bench_floor")
CALIBRATE = os.path.join(BUILD, "tests", "calibrate")
SYNTH = os.path.join(BUILD, "bench", "bench_synth")
TICK = os.path.join(BUILD, "bench", "bench_tick")
WATCH = os.path.join(BUILD, "bench", "bench_watch")
ANALYSIS = os.path.join(BUILD, "bench", "bench_analysis")
PY = sys.executable or "/usr/bin/python3"
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")


def knob(name, full, quick):
    v = os.environ.get(name)
    if v is None:
        return quick if QUICK else full
    return type(full)(v)


SAMPLES = knob("BENCH_SAMPLES", 2000, 150)          # a: 10 ms rows
INTERVAL_MS = knob("BENCH_INTERVAL_MS", 10, 10)
TIGHT = knob("BENCH_TIGHT", 20000, 2000)            # a: tight floor iters
TIGHT_REPS = knob("BENCH_TIGHT_REPS", 3, 1)         # a: least of
BIG_MIB = knob("BENCH_BIG_MIB", 1024, 256)          # a: large target
BIG_SAMPLES = knob("BENCH_BIG_SAMPLES", 300, 30)    # a: smaps on it
PIDSTAT_N = knob("BENCH_PIDSTAT_SAMPLES", 10, 3)    # a: 1 s rows
SOAK = knob("BENCH_SOAK_SAMPLES", 100000, 4000)     # b
SOAK_MS = knob("BENCH_SOAK_INTERVAL_MS", 1, 1)      # b
SIZES = [int(float(x)) for x in knob(
    "BENCH_SYNTH_SIZES", "1e6 1e7", "1e5 1e6").split()]  # c
SCIPY_N = knob("BENCH_SCIPY_N", 10000, 2000)        # d
REPEAT = knob("BENCH_REPEAT", 2, 1)                 # c, d: best of
SERIAL = knob("BENCH_SERIAL", 0, 0)                 # a: one at a time
WORK_N = knob("BENCH_WORK_SAMPLES", 60, 5)          # e: 1 s samples
GPU_N = knob("BENCH_GPU_SAMPLES", 1000, 50)          # f: 10 ms samples
GPU_FDS = knob("BENCH_GPU_FDS", 1000, 100)           # f: target's fds
HOST_PROCS = knob("BENCH_HOST_PROCS", 1000, 100)     # h: extra processes
HOST_S = knob("BENCH_HOST_SECONDS", 60, 10)          # h: 1 s samples
# The recorder reads the machine's files (meminfo, PSI, cgroup) at most once
# a second and the process's own files every tick; the floor and bench_tick
# follow the same schedule (-k: system files every K-th iteration).
SYSTEM_EVERY = max(1, round(1000 / INTERVAL_MS))

CPU_TARGET = 1.3          # memtrend <= 1.3 x the tight floor
REPORT_TARGET_S = 3.0     # report on 10^7 samples, end to end
WATCH_TARGET_S = 0.05     # one watch refresh at 10^6 samples
HOST_CPU_TARGET = 3.0     # record --all, 1,000 processes at 1 s: % of a core
HOST_CPU_GOAL = 1.0       # ... and the goal of issue 29 (the floor: ~0.7 %)
HOST_RSS_TARGET = 32 << 20  # its own peak RSS
SLOPE_TOL = 1e-3          # memtrend vs scipy Theil-Sen, relative
ANALYSIS_TARGET_MS = 10.0  # analysis_run() on one series of 10^4 points
SCIPY_SPEEDUP_TARGET = 500.0  # theilslopes() alone / that analysis

started = []              # every process we started, to end on exit


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def die(msg):
    log("run.py: " + msg)
    cleanup()
    sys.exit(1)


class Child:
    """A child whose CPU, wall time and peak RSS we take from wait4."""

    def __init__(self, name, argv):
        self.name = name
        self.argv = [str(a) for a in argv]
        base = os.path.join(OUT, "log", re.sub(r"[^\w.-]", "_", name))
        self.out_path, self.err_path = base + ".out", base + ".err"
        self.t0 = time.perf_counter()
        with open(self.out_path, "w") as o, open(self.err_path, "w") as e:
            self.p = subprocess.Popen(self.argv, stdout=o, stderr=e,
                                      stdin=subprocess.DEVNULL)
        self.pid = self.p.pid
        started.append(self.p)
        self.done = False

    def wait(self, ok=(0,)):
        _, status, ru = os.wait4(self.pid, 0)
        self.wall = time.perf_counter() - self.t0
        self.rc = os.waitstatus_to_exitcode(status)
        self.p.returncode = self.rc  # so Popen never waits for it again
        self.cpu = ru.ru_utime + ru.ru_stime
        self.user, self.sys = ru.ru_utime, ru.ru_stime
        self.maxrss = ru.ru_maxrss * 1024
        self.done = True
        with open(self.out_path) as f:
            self.out = f.read()
        with open(self.err_path) as f:
            self.err = f.read()
        if ok is not None and self.rc not in ok:
            die("%s failed (exit %s): %s\n%s" % (
                self.name, self.rc, " ".join(self.argv), self.err[-2000:]))
        return self


def run(name, argv, ok=(0,)):
    return Child(name, argv).wait(ok)


def cleanup():
    for p in started:
        if p.returncode is None:
            try:
                p.kill()
                p.wait()
            except OSError:
                pass


def rm(path):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except FileNotFoundError:
            pass


def db_query(path, sql):
    # Read-write, though it only reads: the last connection to close a WAL
    # database removes its -wal and -shm files, a read-only one cannot.
    con = sqlite3.connect(path)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def kv(text, key):
    m = re.search(r"\b%s=([-+0-9.eE]+|inf|nan)" % re.escape(key), text)
    return float(m.group(1)) if m else float("nan")


# ---- formatting ----------------------------------------------------------

def us(v):
    return "—" if v is None or not math.isfinite(v) else (
        "%.1f µs" % v if v < 1000 else "%.2f ms" % (v / 1000))


def mib(v):
    return "—" if v is None or not math.isfinite(v) else "%.1f MiB" % (
        v / 1048576)


def secs(v):
    return "—" if v is None or not math.isfinite(v) else (
        "%.3f s" % v if v < 10 else "%.1f s" % v)


def ratio(a, b):
    if a is None or b is None or not (b > 0) or not math.isfinite(a):
        return float("nan")
    return a / b


def rx(v):
    return "—" if not math.isfinite(v) else (
        "%.2f×" % v if v >= 0.1 else "%.4f×" % v)


rows = []      # (measure, memtrend, peer, ratio, target, result)
details = []   # free-form lines printed under the table


def row(measure, memtrend, peer, r, target="info", result=None):
    if result is None:
        result = "—"
    rows.append((measure, memtrend, peer, rx(r) if isinstance(
        r, float) else r, target, result))


def detail(line):
    details.append(line)
    log("  " + line)


def passmiss(ok):
    return "PASS" if ok else "MISS"


# ---- a: recorder CPU per process-sample --------------------------------

def record_argv(db, pid, interval, duration, smaps=False, extra=()):
    argv = [MEMTREND, "record", "-q", "-o", db, "-p", pid,
            "-i", interval, "-d", duration]
    if smaps:
        argv += ["--smaps", "--smaps-interval", smaps]
    return argv + list(extra)


def samples_in(db):
    # A row may stand for a run of equal samples (schema 3: repeats).
    n, n_smaps = db_query(db, "SELECT coalesce(sum(coalesce(repeats, 1)), "
                          "0), count(pss) FROM sample")[0]
    return n, n_smaps


def start_recorder(tag, pid, interval_s, n, smaps):
    db = os.path.join(OUT, "a-%s.db" % tag)
    rm(db)
    # --smaps-interval below the interval: smaps_rollup at every tick
    # (an interval equal to it would skip ticks that wake a hair early).
    sm = "%gms" % (interval_s * 500) if smaps else False
    c = Child("memtrend-" + tag, record_argv(
        db, pid, "%gms" % (interval_s * 1000),
        "%gms" % (interval_s * 1000 * n), sm))
    c.db = db
    return c


def finish_recorder(c, short):
    """Per-sample CPU of a finished recorder: whole process, and steady
    state (its startup and shutdown, measured by a 2-sample run, taken
    out)."""
    c.wait()
    c.samples, c.smaps_samples = samples_in(c.db)
    c.per_sample = c.cpu / c.samples * 1e6
    if short is not None and c.samples > short.samples:
        c.steady = (c.cpu - short.cpu) / (c.samples - short.samples) * 1e6
    else:
        c.steady = float("nan")
    return c


def short_recorder(tag, pid, smaps):
    """A 2-sample recording: what startup + shutdown cost."""
    db = os.path.join(OUT, "a-%s-short.db" % tag)
    rm(db)
    c = run("memtrend-%s-short" % tag, record_argv(
        db, pid, "10ms", "10ms", "5ms" if smaps else False))
    c.samples, _ = samples_in(db)
    return c


def tight_pair(tag, mode, pid, iters, tick_db):
    """The tight floor and bench_tick's tight loop, alternated TIGHT_REPS
    times; the least CPU per iteration of each (noise only adds). Also
    bench_tick -u: every sample different, so none is folded into a run
    of equal samples (the store's worst case)."""
    fl, tk, tu = [], [], []
    for i in range(TIGHT_REPS):
        fl.append(kv(run("floor-%s-tight-%d" % (tag, i), [
            FLOOR, "-m", mode, "-n", iters, "-t", iters, "-i", 0,
            "-k", SYSTEM_EVERY, pid]).out, "cpu_us"))
        tk.append(kv(run("tick-%s-tight-%d" % (tag, i), [
            TICK, "-m", mode, "-n", iters, "-t", iters, "-i", 0,
            "-k", SYSTEM_EVERY, "-o", tick_db, pid]).out, "cpu_us"))
        tu.append(kv(run("tick-u-%s-tight-%d" % (tag, i), [
            TICK, "-u", "-m", mode, "-n", iters, "-t", iters, "-i", 0,
            "-k", SYSTEM_EVERY, "-o", tick_db, pid]).out, "cpu_us"))
    return min(fl), min(tk), fl, tk, min(tu)


def cpu_rows(tag, label, mode, pid, n, peer_argv, peer_label, tight_n,
             concurrent=True, wakeup=False):
    """One mode on one target. Alone: the tight floor and memtrend's tick
    work in a tight loop (bench_tick). Then side by side (one after the
    other unless concurrent): the recorder, the sleeping floor, the
    sleeping tick loop and the psutil peer; with wakeup, also a floor that
    reads nothing (the wakeups alone)."""
    log("a) %s: %d samples at %d ms" % (label, n, INTERVAL_MS))
    smaps = mode == "smaps"
    iv = INTERVAL_MS / 1000.0
    tick_db = os.path.join(OUT, "a-%s-tick.db" % tag)
    tight, tick_tight, fl_all, tk_all, tick_unequal = tight_pair(
        tag, mode, pid, tight_n, tick_db)
    short = short_recorder(tag, pid, smaps)
    starts = [
        lambda: start_recorder(tag, pid, iv, n, smaps),
        lambda: Child("floor-%s-sleep" % tag, [
            FLOOR, "-m", mode, "-n", n, "-t", 0, "-i", iv,
            "-k", SYSTEM_EVERY, pid]),
        lambda: Child("psutil-%s" % tag, [PY, os.path.join(
            PEERS, "psutil_sampler.py"), pid, "--interval", iv,
            "--count", n] + peer_argv),
        lambda: Child("tick-%s-sleep" % tag, [
            TICK, "-m", mode, "-n", n, "-t", 0, "-i", iv,
            "-k", SYSTEM_EVERY, "-o", tick_db, pid]),
    ]
    if wakeup:
        starts.append(lambda: Child("floor-wakeup", [
            FLOOR, "-m", "none", "-n", n, "-t", 0, "-i", iv, pid]))
    if concurrent:
        # Started a fraction of the interval apart, so that their wakeups
        # (absolute deadlines from their own start) do not coincide.
        procs = []
        for f in starts:
            procs.append(f())
            time.sleep(iv / len(starts))
        rec, fl, ps, tk, *wk = procs
        finish_recorder(rec, short)
        for c in [fl, ps, tk] + wk:
            c.wait()
    else:
        rec = finish_recorder(starts[0](), short)
        fl, ps, tk, *wk = [f().wait() for f in starts[1:]]
    sleep_us = kv(fl.out, "cpu_us")
    tick_sleep = kv(tk.out, "cpu_us")
    ps_us = kv(ps.out, "us_per_sample")
    ps_n = kv(ps.out, "samples")
    ps_whole = ps.cpu / ps_n * 1e6 if ps_n > 0 else float("nan")
    detail("%s: memtrend %d samples (%d with smaps_rollup) in %.1f s: "
           "CPU %.3f s = %s/sample whole process, %s/sample steady "
           "(2-sample run: %.1f ms CPU)" % (
               label, rec.samples, rec.smaps_samples, rec.wall, rec.cpu,
               us(rec.per_sample), us(rec.steady), short.cpu * 1e3))
    detail("%s: tight, least of %d alternated runs of %d iterations: floor "
           "%s (runs, µs: %s), memtrend's tick work %s (runs, µs: %s)" % (
               label, TIGHT_REPS, tight_n, us(tight),
               ", ".join("%.1f" % v for v in fl_all), us(tick_tight),
               ", ".join("%.1f" % v for v in tk_all)))
    wake = (", nothing but the wakeups %s" % us(kv(wk[0].out, "cpu_us"))
            if wk else "")
    detail("%s: sleeping %d ms: floor %s, tick work %s%s; psutil %s %s/sample "
           "in its loop, %s/sample whole process (interpreter start "
           "included)" % (label, INTERVAL_MS, us(sleep_us), us(tick_sleep),
                          wake, peer_label, us(ps_us), us(ps_whole)))
    if smaps and rec.smaps_samples < rec.samples:
        detail("%s: note: only %d of %d samples read smaps_rollup" % (
            label, rec.smaps_samples, rec.samples))
    r = ratio(rec.steady, tight)
    row("%s recorder vs floor, tight" % label, us(rec.steady), us(tight),
        r, "≤ %.1f×" % CPU_TARGET, passmiss(r <= CPU_TARGET))
    r = ratio(tick_tight, tight)
    row("%s tick work only vs floor, tight" % label,
        us(tick_tight), us(tight), r, "≤ %.1f×" % CPU_TARGET,
        passmiss(r <= CPU_TARGET))
    row("%s tick work, every sample different, vs floor, tight" % label,
        us(tick_unequal), us(tight), ratio(tick_unequal, tight))
    r = ratio(rec.steady, sleep_us)
    row("%s recorder vs floor, sleeping %d ms" % (label, INTERVAL_MS),
        us(rec.steady), us(sleep_us), r, "≤ %.1f×" % CPU_TARGET,
        passmiss(r <= CPU_TARGET))
    row("%s recorder vs psutil %s" % (label, peer_label),
        us(rec.steady), us(ps_us), ratio(rec.steady, ps_us))
    row("%s recorder, whole process, vs psutil" % label,
        us(rec.per_sample), us(ps_whole), ratio(rec.per_sample, ps_whole))
    return rec


def pidstat_rows(pid):
    if not shutil.which("pidstat"):
        row("status@1s recorder vs pidstat -r", "—", "not installed",
            "—", "info", "skipped")
        detail("pidstat not found (Debian package sysstat): row skipped")
        return
    log("a) pidstat -r vs memtrend at 1 s, %d samples each" % PIDSTAT_N)
    db = os.path.join(OUT, "a-pidstat-memtrend.db")
    rm(db)
    rec = Child("memtrend-1s", record_argv(db, pid, "1s",
                                           "%ds" % PIDSTAT_N))
    ps = Child("pidstat", ["pidstat", "-r", "-p", pid, "1", PIDSTAT_N])
    rec.wait()
    ps.wait()
    n, _ = samples_in(db)
    m = rec.cpu / n * 1e6
    p = ps.cpu / PIDSTAT_N * 1e6
    detail("1 s rows: memtrend %d samples, CPU %.1f ms; pidstat -r %d "
           "reports, CPU %.1f ms (both whole process, startup included: "
           "pidstat cannot sample faster than 1 s)" % (
               n, rec.cpu * 1e3, PIDSTAT_N, ps.cpu * 1e3))
    row("status@1s recorder vs pidstat -r (%d samples, whole process)"
        % PIDSTAT_N, us(m), us(p), ratio(m, p))


# ---- b: the recorder's own RSS -----------------------------------------

def soak_start(pid):
    db = os.path.join(OUT, "b-soak.db")
    watch = os.path.join(OUT, "b-soak-watch.db")
    rm(db)
    rm(watch)
    dur_ms = SOAK * SOAK_MS
    log("b) recorder RSS: %d samples at %d ms (%.0f s), watched every 0.5 s"
        % (SOAK, SOAK_MS, dur_ms / 1000))
    soak = Child("soak-recorder", record_argv(db, pid, "%dms" % SOAK_MS,
                                              "%dms" % dur_ms))
    soak.db = db
    w = Child("soak-watcher", [MEMTREND, "record", "-q", "-o", watch,
                               "-p", soak.pid, "-i", "0.5s"])
    w.db = watch
    return soak, w


def soak_finish(soak, w):
    soak.wait()
    w.wait()
    n, _ = samples_in(soak.db)
    t0, t1 = db_query(soak.db, "SELECT min(t), max(coalesce(t_last, t)) "
                      "FROM sample")[0]
    rows = db_query(soak.db, "SELECT count(*) FROM sample")[0][0]
    rss = [r[0] for r in db_query(
        w.db, "SELECT rss FROM sample_expanded WHERE rss IS NOT NULL "
        "ORDER BY t")]
    fp = [r[0] for r in db_query(
        w.db, "SELECT footprint FROM sample_expanded WHERE footprint IS NOT "
        "NULL ORDER BY t")]
    if not rss:
        die("the watcher recorded nothing")
    rep = run("report-soak", [MEMTREND, "report", w.db, "--json"])
    try:
        t = json.loads(rep.out)["targets"][0]
        verdict = t.get("verdict")
        slope = (t.get("slope") or {}).get("bytes_per_hour")
    except (ValueError, KeyError, IndexError):
        verdict, slope = "unreadable", None
    tenth = rss[len(rss) // 10]
    detail("recorder over %d samples in %d rows (a target that changes "
           "every ms: few runs to fold) (%.0f s at %d ms, CPU %.2f s = "
           "%s/sample incl. startup): RSS first %s, at 10%% %s, last %s, max %s; footprint "
           "first %s, last %s, max %s; %d watcher samples" % (
               n, rows, t1 - t0, SOAK_MS, soak.cpu, us(soak.cpu / max(n, 1) * 1e6),
               mib(rss[0]), mib(tenth), mib(rss[-1]), mib(max(rss)),
               mib(fp[0] if fp else float("nan")),
               mib(fp[-1] if fp else float("nan")),
               mib(max(fp) if fp else float("nan")), len(rss)))
    detail("memtrend's verdict on its own recorder: %s (slope %s B/h)" % (
        verdict, "—" if slope is None else "%.4g" % slope))
    row("recorder RSS over %s samples: first → last (max)" % "{:,}".format(
        n), "%s → %s (max %s)" % (mib(rss[0]).replace(" MiB", ""),
                                  mib(rss[-1]), mib(max(rss))),
        "—", "last ÷ at 10%%: %.2f×" % (rss[-1] / tenth), "info")
    row("memtrend's verdict on its own recorder", str(verdict),
        "—", "—", "not growing", passmiss(verdict not in (
            "growing", "unreadable", None)))


# ---- c: report at scale ------------------------------------------------

def synth_db(n):
    db = os.path.join(OUT, "c-synth-%d.db" % n)
    c = run("synth-%d" % n, [SYNTH, "-n", n, "-o", db])
    detail("bench_synth %d rows: %.1f s (%s rows/s)" % (
        n, c.wall, "%.0f" % kv(c.out, "rows_per_s")))
    return db


def report_rows(n, db):
    best = None
    walls = []
    for i in range(REPEAT):
        c = run("report-%d-%d" % (n, i), [MEMTREND, "report", db, "--json"])
        walls.append(c.wall)
        if best is None or c.wall < best.wall:
            best = c
    try:
        t = json.loads(best.out)["targets"][0]
        verdict = t.get("verdict")
        slope = (t.get("slope") or {}).get("bytes_per_hour")
    except (ValueError, KeyError, IndexError):
        verdict, slope = "unreadable", None
    detail("report on %d samples: wall %s (runs: %s), CPU %.2f s, peak RSS "
           "%s; verdict %s, slope %s B/h (true 10 MiB/h = 10485760)" % (
               n, secs(best.wall), ", ".join("%.3f" % w for w in walls),
               best.cpu, mib(best.maxrss), verdict,
               "—" if slope is None else "%.6g" % slope))
    target = "≤ %g s" % REPORT_TARGET_S if n >= 10_000_000 else "info"
    result = passmiss(best.wall <= REPORT_TARGET_S) if n >= 10_000_000 \
        else None
    row("report, %s samples: wall, end to end" % fmt_n(n),
        secs(best.wall), "—", "—", target, result)
    row("report, %s samples: peak RSS" % fmt_n(n), mib(best.maxrss), "—",
        "%.0f B/sample" % (best.maxrss / n), "info")


def watch_rows(n, db):
    """One refresh of `watch` at n samples: the old way (read the whole
    file + analysis_run) against the live series (snapshot of at most
    4096 thinned points + analysis_run), best of max(3, REPEAT) each
    (bench_watch)."""
    c = run("watch-%d" % n, [WATCH, "-r", max(3, REPEAT), db])
    old, new = kv(c.out, "old_s"), kv(c.out, "new_s")
    detail("watch refresh at %d samples: old read %s + analysis %s; new "
           "snapshot %s + analysis %s on %d kept points; feeding the live "
           "series %.0f ns/sample; verdict old %s / new %s" % (
               n, secs(kv(c.out, "old_read_s")),
               secs(kv(c.out, "old_analysis_s")),
               secs(kv(c.out, "new_snapshot_s")),
               secs(kv(c.out, "new_analysis_s")), kv(c.out, "kept"),
               kv(c.out, "feed_ns_per_sample"),
               re.search(r"old_verdict=(\S+)", c.out).group(1),
               re.search(r"new_verdict=(\S+)", c.out).group(1)))
    target = "≤ %g ms" % (WATCH_TARGET_S * 1e3)
    row("watch refresh, %s samples: live series vs file re-read + "
        "analysis" % fmt_n(n), secs(new), secs(old), ratio(new, old),
        target if n == 1_000_000 else "info",
        passmiss(new <= WATCH_TARGET_S) if n == 1_000_000 else None)


def fmt_n(n):
    e = math.log10(n)
    return "10^%d" % round(e) if abs(e - round(e)) < 1e-9 else "{:,}".format(n)


# ---- d: Theil-Sen against scipy ----------------------------------------

def scipy_rows():
    log("d) Theil-Sen at n=%d: scipy.stats.theilslopes vs memtrend report"
        % SCIPY_N)
    csv = os.path.join(OUT, "d-synth-%d.csv" % SCIPY_N)
    plain = os.path.join(OUT, "d-synth-%d-plain.csv" % SCIPY_N)
    run("synth-csv", [SYNTH, "-n", SCIPY_N, "--csv", csv,
                      "--csv-plain", plain])
    sp = mt = None
    for i in range(REPEAT):
        c = run("scipy-%d" % i, [PY, os.path.join(PEERS, "scipy_trend.py"),
                                 plain])
        if sp is None or c.wall < sp.wall:
            sp = c
        c = run("report-csv-%d" % i, [MEMTREND, "report", csv, "--json"])
        if mt is None or c.wall < mt.wall:
            mt = c
    sp_slope = kv(sp.out, "theil_sen_bytes_per_hour")
    sp_ts = kv(sp.out, "theilslopes_s")
    try:
        t = json.loads(mt.out)["targets"][0]
        mt_slope = (t.get("slope") or {}).get("bytes_per_hour")
        mt_slope = float("nan") if mt_slope is None else float(mt_slope)
        ci = (t["slope"]["ci95_low"], t["slope"]["ci95_high"])
    except (ValueError, KeyError, IndexError, TypeError):
        mt_slope, ci = float("nan"), (None, None)
    m = re.search(r"ci95=\[([^,]+), ([^\]]+)\]", sp.out)
    detail("scipy_trend.py: %s wall end to end (theilslopes alone %s, peak "
           "RSS %s): %s" % (secs(sp.wall), secs(sp_ts), mib(sp.maxrss),
                            sp.out.strip().replace("\n", "; ")))
    detail("memtrend report CSV: %s wall end to end, peak RSS %s, slope "
           "%.6g B/h, ci95 [%s, %s]%s" % (
               secs(mt.wall), mib(mt.maxrss), mt_slope,
               ci[0], ci[1], "" if not m else
               " (scipy's uncorrected ci95 [%s, %s])" % m.groups()))
    row("Theil–Sen n=%s: wall end to end vs scipy_trend.py" % "{:,}".format(
        SCIPY_N), secs(mt.wall), secs(sp.wall), ratio(mt.wall, sp.wall))
    row("  same, vs scipy's theilslopes() alone", secs(mt.wall),
        secs(sp_ts), ratio(mt.wall, sp_ts))
    rel = abs(mt_slope - sp_slope) / abs(sp_slope) if sp_slope else \
        float("nan")
    row("Theil–Sen slope (B/h) vs scipy", "%.6g" % mt_slope,
        "%.6g" % sp_slope, "%.6f×" % ratio(mt_slope, sp_slope)
        if math.isfinite(ratio(mt_slope, sp_slope)) else "—",
        "|Δ| ≤ %g%%" % (SLOPE_TOL * 100), passmiss(rel <= SLOPE_TOL))
    return sp_ts


def analysis_rows(sp_ts):
    """analysis_run() on one series (bench/analysis.c: AR(1) noise, a
    1-minute step), the median of 21 runs (5 at 10^5), flat and growing;
    what `report --prometheus` pays per series. Issue 16: <= 10 ms at
    10^4, and >= 500x faster than scipy's theilslopes() alone on as many
    points (the slope itself is compared above)."""
    sizes = sorted({1000, 10000, 100000, SCIPY_N})
    log("d) analysis of one series at %s points" % ", ".join(
        fmt_n(n) for n in sizes))
    c = run("analysis", [ANALYSIS] + [str(n) for n in sizes])
    took = {}
    for line in c.out.splitlines():
        m = re.match(r"analysis of one series, (\d+) points: median "
                     r"([0-9.]+) ms \(flat\), ([0-9.]+) ms", line)
        if m:
            took[int(m.group(1))] = (float(m.group(2)), float(m.group(3)))
    for n in sizes:
        flat, grow = took.get(n, (float("nan"), float("nan")))
        worst = max(flat, grow)
        detail("analysis of one series, %s points: %s flat, %s growing "
               "(median)" % (fmt_n(n), us(flat * 1e3), us(grow * 1e3)))
        if n == 10000:
            row("analysis of one series, 10^4 points (median, worse "
                "of flat/growing)", us(worst * 1e3), "—", "—",
                "≤ %g ms" % ANALYSIS_TARGET_MS,
                passmiss(worst <= ANALYSIS_TARGET_MS))
        elif n in (1000, 100000):
            row("analysis of one series, %s points" % fmt_n(n),
                us(worst * 1e3), "—", "—")
    worst = max(took.get(SCIPY_N, (float("nan"),) * 2))
    if sp_ts is not None and math.isfinite(worst) and worst > 0:
        speedup = sp_ts / (worst / 1e3)
        row("  scipy theilslopes() alone ÷ analysis of one series, "
            "n=%s" % "{:,}".format(SCIPY_N), us(worst * 1e3), secs(sp_ts),
            "%.0f× faster" % speedup, "≥ %g× faster" % SCIPY_SPEEDUP_TARGET,
            passmiss(speedup >= SCIPY_SPEEDUP_TARGET))


# ---- main ----------------------------------------------------------------

# ---- e: the work counter, scraped from a metrics endpoint --------------

def work_rows(pid):
    """memtrend at 1 s with --work URL#METRIC, beside the same recorder
    without it and the Python peer doing both (psutil + urllib), all three
    at once against tests/helpers/metrics_server.py."""
    server = os.path.join(ROOT, "tests", "helpers", "metrics_server.py")
    port_file = os.path.join(OUT, "e-port")
    mode_file = os.path.join(OUT, "e-mode")
    rm(port_file)
    with open(mode_file, "w") as f:
        f.write("ok\n")
    srv = subprocess.Popen([PY, server, "--port-file", port_file,
                            "--mode-file", mode_file])
    started.append(srv)
    for _ in range(100):
        if os.path.exists(port_file):
            break
        time.sleep(0.05)
    with open(port_file) as f:
        port = int(f.read())
    url = "http://127.0.0.1:%d/metrics" % port
    log("e) --work scrape at 1 s: %d samples, with and without, and the "
        "peer" % WORK_N)
    db_w = os.path.join(OUT, "e-work.db")
    db_p = os.path.join(OUT, "e-plain.db")
    rm(db_w)
    rm(db_p)
    dur = "%ds" % WORK_N
    work = Child("memtrend-work", record_argv(
        db_w, pid, "1s", dur,
        extra=["--work", url + '#test_requests_total{model="a"}']))
    plain = Child("memtrend-plain", record_argv(db_p, pid, "1s", dur))
    peer = Child("peer-scrape", [PY, os.path.join(ROOT, "bench",
                                                  "peer_scrape.py"),
                                 pid, url, "test_requests_total", "model=a",
                                 "--interval", "1", "--count", str(WORK_N)])
    work.wait()
    plain.wait()
    peer.wait()
    # Start-up and shutdown (libcurl and TLS initialisation, the source
    # thread) measured by 2-sample runs and taken out: steady state.
    short = {}
    for tag, extra in (("work", ["--work", url +
                                 '#test_requests_total{model="a"}']),
                       ("plain", [])):
        db = os.path.join(OUT, "e-%s-short.db" % tag)
        rm(db)
        c = run("memtrend-%s-short" % tag,
                record_argv(db, pid, "1s", "1s", extra=extra))
        c.samples, _ = samples_in(db)
        short[tag] = c
    srv.terminate()
    srv.wait()
    n_w, _ = samples_in(db_w)
    n_p, _ = samples_in(db_p)
    steady_w = (work.cpu - short["work"].cpu) / max(
        n_w - short["work"].samples, 1) * 1e6
    steady_p = (plain.cpu - short["plain"].cpu) / max(
        n_p - short["plain"].samples, 1) * 1e6
    # The reading in flight when recording stops is cancelled and stored
    # as a gap by design (docs/reliability.md: stop within 1 s whatever
    # the sources do): only gaps before the last tick count.
    readings, gaps = db_query(db_w, "SELECT count(value), count(*) - "
                              "count(value) - (SELECT count(*) FROM "
                              "source_sample WHERE value IS NULL AND t = "
                              "(SELECT max(t) FROM source_sample)) FROM "
                              "source_sample")[0]
    w = work.cpu / max(n_w, 1) * 1e6
    p = plain.cpu / max(n_p, 1) * 1e6
    peer_us = float(kv(peer.out, "us_per_sample"))
    detail("e: memtrend with --work: %d samples, %d work readings, %d gaps, "
           "CPU %.1f ms; without: %d samples, CPU %.1f ms; peer (psutil + "
           "urllib): %s" % (n_w, readings, gaps, work.cpu * 1e3, n_p,
                            plain.cpu * 1e3, peer.out.strip()))
    detail("e: steady state (2-sample runs taken out): with --work %s, "
           "without %s per sample; start-up + shutdown with --work %.1f ms "
           "CPU, without %.1f ms" % (us(steady_w), us(steady_p),
                                     short["work"].cpu * 1e3,
                                     short["plain"].cpu * 1e3))
    row("work@1s: recorder + --work scrape vs peer psutil+urllib "
        "(steady, per sample)", us(steady_w), us(peer_us),
        ratio(steady_w, peer_us))
    row("work@1s: the same, whole process (start-up included)", us(w),
        us(peer_us), ratio(w, peer_us))
    row("work@1s: the scrape's own cost (steady, with - without --work)",
        us(steady_w - steady_p), "—", "—")
    row("work@1s: readings without a gap (the one in flight at the stop "
        "left out)", "%d/%d" % (readings, n_w), "—", "—", "all",
        passmiss(gaps == 0 and readings >= n_w - 1))


# ---- f: GPU memory from DRM fdinfo -------------------------------------

def calibration_rows():
    """g) the verdicts' calibration table (tests/calibration): every
    family, 400 seeds (the quick subset on a smoke run). Not a speed row:
    the rates are the product, so they are reported with the bench."""
    if not os.access(CALIBRATE, os.X_OK):
        detail("g) calibration: %s not built, skipped" % CALIBRATE)
        return
    argv = [CALIBRATE, "--csv"] + (["--quick"] if QUICK else
                                   ["--seeds", "400"])
    log("g) calibration: %s" % " ".join(argv[1:]))
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    wall = time.perf_counter() - t0
    lines = [l for l in p.stdout.splitlines()[1:] if l]
    miss = [l.split('"')[1] for l in lines if l.endswith("MISS")]
    with open(os.path.join(OUT, "calibration.csv"), "w") as f:
        f.write(p.stdout)
    for l in p.stdout.splitlines():
        detail("g) " + l)
    row("calibration: %d families (%s)" % (
        len(lines), "quick subset" if QUICK else "400 seeds each"),
        "%d MISS" % len(miss), "—", "—", "all targets",
        passmiss(p.returncode == 0))
    detail("g) calibration took %.0f s; table also in bench/out/"
           "calibration.csv%s" % (wall, "; MISS: " + ", ".join(miss)
                                  if miss else ""))


# ---- h: every process on a host -------------------------------------------

def host_rows():
    """h) `record --all` over HOST_PROCS extra processes (sleeping, small)
    plus whatever runs, at 1 s for HOST_S s, side by side with `pidstat -r
    -p ALL 1` and `atop -w FILE 1` (its raw file) on the same processes,
    all three at once. CPU from wait4 (whole process, start-up included),
    as % of one core over the run; storage per hour from the file's
    size."""
    log("h) %d extra processes; record --all, pidstat -r -p ALL, atop -w "
        "at 1 s for %d s, side by side" % (HOST_PROCS, HOST_S))
    procs = []
    try:
        for _ in range(HOST_PROCS):
            p = subprocess.Popen(["sleep", "100000"])
            started.append(p)
            procs.append(p)
        n_all = sum(1 for d in os.listdir("/proc") if d.isdigit())
        db = os.path.join(OUT, "h-host.db")
        rm(db)
        rec = Child("memtrend-all", [MEMTREND, "record", "-q", "-o", db,
                                     "--all", "-i", "1s", "-d",
                                     "%ds" % HOST_S])
        # The floor (issue 29): the same processes' status files read
        # once a second through kept fds, nothing else (bench_floor -m
        # all); CPU from wait4 like the others, start-up included.
        floor = Child("floor-all", [FLOOR, "-m", "all", "-n", HOST_S,
                                    "-t", "0", "-i", "1"])
        # ... and statm's (the recorder reads statm every tick, status
        # only when statm moved or every 8 ticks: probe_proc_read()).
        floor_statm = Child("floor-all-statm", [
            FLOOR, "-m", "all-statm", "-n", HOST_S, "-t", "0", "-i", "1"])
        peers = []
        if shutil.which("pidstat"):
            peers.append(("pidstat -r -p ALL 1", Child(
                "pidstat-all", ["pidstat", "-r", "-p", "ALL", "1",
                                HOST_S])))
        else:
            detail("h) pidstat not found (Debian sysstat): row skipped")
        if shutil.which("atop"):
            raw = os.path.join(OUT, "h-atop.raw")
            rm(raw)
            peers.append(("atop -w FILE 1", Child(
                "atop", ["atop", "-w", raw, "1", HOST_S])))
        else:
            detail("h) atop not found (Debian atop): row skipped")
        rec.wait()
        floor.wait()
        floor_statm.wait()
        for _, c in peers:
            c.wait(ok=None)
        targets = db_query(db, "SELECT count(*) FROM target")[0][0]
        n, _ = samples_in(db)
        size = sum(os.path.getsize(db + x) for x in ("", "-wal")
                   if os.path.exists(db + x))
        pct = rec.cpu / HOST_S * 100
        detail("h) %d processes on the machine at the start; record --all "
               "followed %d targets, %d samples, CPU %.2f s over %d s, peak "
               "RSS %.1f MiB, file %.1f MiB" % (
                   n_all, targets, n, rec.cpu, HOST_S, rec.maxrss / 2**20,
                   size / 2**20))
        row("record --all, %d processes at 1 s: CPU %% of one core"
            % n_all, "%.2f %%" % pct, "—", "—",
            "< %.0f %%" % HOST_CPU_TARGET, passmiss(pct < HOST_CPU_TARGET))
        fpct = floor.cpu / HOST_S * 100
        detail("h) floor (bench_floor -m all: %d status files and meminfo "
               "once a second): CPU %.2f s over %d s" % (
                   kv(floor.out, "files") - 1, floor.cpu, HOST_S))
        row("record --all vs the floor (its status files read, nothing "
            "else)", "%.2f %%" % pct, "%.2f %%" % fpct, ratio(pct, fpct),
            "<= %.0f %% of a core" % HOST_CPU_GOAL,
            passmiss(pct <= HOST_CPU_GOAL))
        spct = floor_statm.cpu / HOST_S * 100
        detail("h) statm floor (bench_floor -m all-statm): CPU %.2f s over "
               "%d s" % (floor_statm.cpu, HOST_S))
        row("record --all vs its statm floor (statm read, status when it "
            "moved)", "%.2f %%" % pct, "%.2f %%" % spct, ratio(pct, spct),
            "info", "—")
        for label, c in peers:
            ppct = c.cpu / HOST_S * 100
            detail("h) %s: CPU %.2f s, exit %s" % (label, c.cpu, c.rc))
            row("record --all vs %s (same processes, same run)" % label,
                "%.2f %%" % pct, "%.2f %%" % ppct, ratio(pct, ppct),
                "below", passmiss(pct < ppct))
        row("record --all: own peak RSS", mib(rec.maxrss), "—", "—",
            "<= 32 MiB", passmiss(rec.maxrss <= HOST_RSS_TARGET))
        row("record --all: storage per hour (%d targets, 1 s)" % targets,
            "%.0f MiB" % (size / HOST_S * 3600 / 2**20), "—", "—")
        listen_rows()
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.wait()


def free_port():
    import socket
    with socket.socket() as so:
        so.bind(("127.0.0.1", 0))
        return so.getsockname()[1]


def listen_rows():
    """h) the same host with --listen: the exporter's cost (its analysis
    thread included), its RSS, and the time of a scrape of every target
    (urllib from this process, median and worst of 20, half-way through)."""
    import urllib.request
    port = free_port()
    db = os.path.join(OUT, "h-listen.db")
    rm(db)
    log("h) record --all --listen for %d s; 20 scrapes" % HOST_S)
    rec = Child("memtrend-listen", [MEMTREND, "record", "-q", "-o", db,
                                    "--all", "-i", "1s", "-d",
                                    "%ds" % HOST_S, "--listen",
                                    "127.0.0.1:%d" % port,
                                    # every process served, as measured
                                    # before --listen-processes
                                    "--listen-processes", "all"])
    time.sleep(HOST_S / 2)
    times, body = [], b""
    url = "http://127.0.0.1:%d/metrics" % port
    for _ in range(20):
        t0 = time.perf_counter()
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                body = r.read()
        except OSError as e:
            detail("h) scrape failed: %s" % e)
            break
        times.append(time.perf_counter() - t0)
        time.sleep(0.1)
    rec.wait()
    n_targets = body.count(b'component="total"')
    verdicts = body.count(b'memtrend_verdict{') // 4
    if times:
        times.sort()
        med = times[len(times) // 2]
        detail("h) scrape of %d targets (%d analysed so far, %d bytes): "
               "median %.1f ms, worst %.1f ms" % (
                   n_targets, verdicts, len(body), med * 1e3,
                   times[-1] * 1e3))
        row("--listen: one scrape, %d targets" % n_targets,
            "%.1f ms" % (med * 1e3), "—", "—", "<= 10 ms",
            passmiss(med <= 0.010))
    pct = rec.cpu / HOST_S * 100
    row("record --all --listen: CPU % of one core (analyses included)",
        "%.2f %%" % pct, "—", "—", "info")
    row("record --all --listen: own peak RSS", mib(rec.maxrss), "—", "—",
        "<= 32 MiB", passmiss(rec.maxrss <= HOST_RSS_TARGET))


def gpu_tree():
    """A proc tree (tests/fixtures/proc-v1's process 1234) whose process has
    GPU_FDS fds, two of them one amdgpu client (vram and gtt), the rest
    plain files: the case the recorder's DRM watch is built for."""
    tree = os.path.join(OUT, "f-proc")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, "tests", "fixtures", "proc-v1"), tree)
    fdinfo = os.path.join(tree, "1234", "fdinfo")
    os.makedirs(fdinfo)
    drm = ("pos:\t0\nflags:\t02100002\nmnt_id:\t26\nino:\t1096\n"
           "drm-driver:\tamdgpu\ndrm-client-id:\t7\n"
           "drm-pdev:\t0000:03:00.0\ndrm-total-vram:\t1048576 KiB\n"
           "drm-resident-vram:\t786432 KiB\ndrm-total-gtt:\t64 MiB\n"
           "drm-resident-gtt:\t64 MiB\n")
    for fd in range(GPU_FDS):
        with open(os.path.join(fdinfo, str(fd)), "w") as f:
            f.write(drm if fd in (3, 4) else
                    "pos:\t0\nflags:\t0100002\nmnt_id:\t25\nino:\t7\n")
    return tree


def gpu_rows():
    """The recorder at 10 ms on the tree above, with GPU reading (the
    default) and with --no-gpu, at once; the difference per sample is the
    GPU read's cost. The peer scans the same fdinfo directory per sample as
    a tool without memtrend's watch would."""
    tree = gpu_tree()
    log("f) GPU via DRM fdinfo: %d samples at 10 ms, a process with %d fds"
        % (GPU_N, GPU_FDS))
    sys_root = os.path.join(ROOT, "tests", "fixtures", "sys-v1")
    dur = "%gs" % (GPU_N / 100.0)

    def argv(db, extra, duration):
        rm(db)
        return [MEMTREND, "record", "-q", "-o", db, "--proc-root", tree,
                "--sys-root", sys_root, "-p", "1234", "-i", "10ms", "-d",
                duration] + extra
    db_g = os.path.join(OUT, "f-gpu.db")
    db_n = os.path.join(OUT, "f-nogpu.db")
    # The fake NVML is not loaded here: NVML_LIB points at nothing, so
    # only DRM is measured (a real NVML's cost is its own).
    os.environ["MEMTREND_NVML_LIB"] = os.path.join(OUT, "no-nvml.so")
    # The tree is a plain directory: memtrend would open its DRM fdinfo
    # files at every read; on /proc it keeps them open. Keep them here too
    # (the tree is not rewritten during the run), so this is /proc's path.
    os.environ["MEMTREND_GPU_KEEP_FDS"] = "1"
    # The two recorders side by side; the peer after them (it needs a
    # whole CPU per sample and would crowd them).
    g = Child("memtrend-gpu", argv(db_g, [], dur))
    n = Child("memtrend-nogpu", argv(db_n, ["--no-gpu"], dur))
    g.wait()
    n.wait()
    peer = Child("peer-fdinfo", [PY, os.path.join(ROOT, "bench",
                                                  "peer_fdinfo.py"),
                                 os.path.join(tree, "1234", "fdinfo"),
                                 "--interval", "0.01", "--count",
                                 str(max(GPU_N // 10, 20))]).wait()
    short = {}
    for tag, extra in (("gpu", []), ("nogpu", ["--no-gpu"])):
        db = os.path.join(OUT, "f-%s-short.db" % tag)
        c = run("memtrend-%s-short" % tag, argv(db, extra, "15ms"))
        c.samples, _ = samples_in(db)
        short[tag] = c
    del os.environ["MEMTREND_NVML_LIB"]
    del os.environ["MEMTREND_GPU_KEEP_FDS"]
    n_g, _ = samples_in(db_g)
    n_n, _ = samples_in(db_n)
    steady_g = (g.cpu - short["gpu"].cpu) / max(
        n_g - short["gpu"].samples, 1) * 1e6
    steady_n = (n.cpu - short["nogpu"].cpu) / max(
        n_n - short["nogpu"].samples, 1) * 1e6
    vram = db_query(db_g, "SELECT coalesce(sum(coalesce(repeats, 1)), 0), "
                    "max(gpu) FROM sample WHERE gpu IS NOT NULL")[0]
    peer_us = float(kv(peer.out, "us_per_sample"))
    detail("f: memtrend with GPU: %d samples (%d with a GPU figure, max %s "
           "B), CPU %.1f ms; --no-gpu: %d samples, CPU %.1f ms; steady "
           "%s vs %s per sample; peer: %s" % (
               n_g, vram[0], vram[1], g.cpu * 1e3, n_n, n.cpu * 1e3,
               us(steady_g), us(steady_n), peer.out.strip()))
    cost = steady_g - steady_n
    row("gpu@10ms: DRM read per sample, %d fds (1 client on 2): recorder "
        "with - without, vs peer full fdinfo scan" % GPU_FDS,
        us(cost), us(peer_us), ratio(max(cost, 0.0), peer_us))
    row("gpu@10ms: samples with the client's VRAM (768 MiB) counted",
        "%d/%d" % (vram[0], n_g), "—", "—", "all",
        passmiss(vram[0] == n_g and vram[1] == 805306368))


FLEET_TARGETS = knob("BENCH_FLEET_TARGETS", 10000, 200)   # i: series
FLEET_POINTS = knob("BENCH_FLEET_POINTS", 10080, 1440)    # i: 1 min each
FLEET_TARGET_S = 60.0     # report --prometheus, 10^4 x 10,080, end to end
FLEET_CMP_EVERY = knob("BENCH_FLEET_CMP_EVERY", 1, 1)     # i: vs CSV, every K-th
FLEET_CMP_BY_EVERY = knob("BENCH_FLEET_CMP_BY_EVERY", 5, 1)  # i: --by app; 0 none
FLEET_CMP_JOBS = knob("BENCH_FLEET_CMP_JOBS", 2, 2)       # i: CSV reports at once
FLEET_RSS_TARGET = 1 << 30
FLEET_REPEAT = knob("BENCH_FLEET_REPEAT", 3, 1)  # i: headline runs (median)


def fleet_rows():
    """i) report --prometheus: FLEET_TARGETS series x FLEET_POINTS points
    (tests/e2e/fleet_gen.py, 1 min apart) backfilled with promtool into a
    TSDB that Debian's prometheus serves on loopback; report end to end
    (wall, peak RSS), and PromQL deriv() against memtrend's slope on the
    clean growing series (both least-squares-free of noise only on those:
    the agreement is the ratio of the medians). The full size takes minutes
    to generate and backfill; BENCH_FLEET_TARGETS/POINTS shrink it."""
    import json
    import shutil
    import urllib.parse
    import urllib.request
    if not (shutil.which("prometheus") and shutil.which("promtool")):
        detail("i) skipped: prometheus/promtool not installed")
        return
    # The backfilled TSDB is kept (bench/out/fleet-TxP/): at full size
    # generating and backfilling 10^8 points takes ~20 minutes, the
    # report itself a minute. BENCH_FLEET_FRESH=1 rebuilds it.
    d = os.path.join(OUT, "fleet-%dx%d" % (FLEET_TARGETS, FLEET_POINTS))
    meta = os.path.join(d, "range.json")
    step = 60
    if os.environ.get("BENCH_FLEET_FRESH") or not os.path.exists(meta):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        end = (int(time.time()) // step) * step - 6 * 3600
        start = end - (FLEET_POINTS - 1) * step
        om = os.path.join(d, "fleet.om")
        log("i) generating %d x %d points" % (FLEET_TARGETS, FLEET_POINTS))
        gen = run("fleet-gen", [PY, os.path.join(ROOT, "tests", "e2e",
                                                 "fleet_gen.py"),
                                "--targets", FLEET_TARGETS, "--points",
                                FLEET_POINTS, "--end", end,
                                "--openmetrics", om])
        bf = run("fleet-backfill", ["promtool", "tsdb", "create-blocks-from",
                                    "openmetrics", om,
                                    os.path.join(d, "tsdb")])
        rm(om)
        detail("i) generating %s points: %.0f s; promtool backfill: %.0f s"
               % (fmt_n(FLEET_TARGETS * FLEET_POINTS), gen.wall, bf.wall))
        with open(meta, "w") as f:
            json.dump({"start": start, "end": end}, f)
    else:
        with open(meta) as f:
            r = json.load(f)
        start, end = r["start"], r["end"]
        detail("i) the backfilled TSDB of an earlier run, %s" % d)
    if os.environ.get("BENCH_FLEET_PREPARE"):
        return
    port = free_port()
    with open(os.path.join(d, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1m\n")
    prom = Child("fleet-prometheus", [
        "prometheus", "--config.file=" + os.path.join(d, "prometheus.yml"),
        "--storage.tsdb.path=" + os.path.join(d, "tsdb"),
        "--storage.tsdb.retention.time=3650d", "--log.level=error",
        "--web.listen-address=127.0.0.1:%d" % port])
    url = "http://127.0.0.1:%d" % port
    for _ in range(600):
        try:
            urllib.request.urlopen(url + "/-/ready", timeout=1).read()
            break
        except OSError:
            time.sleep(0.2)
    # The size: every target, FLEET_TARGETS x FLEET_POINTS. The
    # restarting targets are two half-length pods of one app each, merged
    # into one target of two incarnations by --by (instance for the
    # others, app for these): FLEET_TARGETS targets of FLEET_POINTS points,
    # from 1.25 x FLEET_TARGETS Prometheus series.
    # This 2-core VM's speed varies from run to run (user CPU of the same
    # report 80-100 s): the median of FLEET_REPEAT runs is the row.
    fulls = []
    for i in range(FLEET_REPEAT):
        fulls.append(run("fleet-report-all-%d" % i, [
            MEMTREND, "report", "--prometheus", url, "--query",
            "fleet_memory_bytes", "--by", "instance,app", "--start", start,
            "--end", end, "--step", "60s", "--json",
            # 12,500 series at full size, over the default 10,000
            "--max-series", "20000"]))
    full = sorted(fulls, key=lambda c: c.wall)[len(fulls) // 2]
    detail("i) %d runs of the 10^4 report: %s (the median is the row)" % (
        len(fulls), ", ".join("%.1f s (CPU %.1f s)" % (c.wall, c.cpu)
                              for c in fulls)))
    fj = json.loads(full.out)["targets"]
    n = len(fj)
    pts = sum(t["samples"] for t in fj)
    row("report --prometheus: %s targets x %s points (%s series), end to "
        "end, median of %d" % (fmt_n(n), fmt_n(FLEET_POINTS),
                               fmt_n(n + n // 4), len(fulls)),
        secs(full.wall), "—", "—", "<= 60 s at 10^4 x 10,080",
        passmiss(full.wall <= FLEET_TARGET_S)
        if FLEET_TARGETS >= 10000 else "info (smaller size)")
    peak = max(c.maxrss for c in fulls)
    row("report --prometheus: peak RSS", mib(peak), "—", "—",
        "<= 1 GiB", passmiss(peak <= FLEET_RSS_TARGET))
    detail("i) %s points in %.1f s (%.2f us a point; CPU %.1f s)" % (
        fmt_n(pts), full.wall, full.wall / max(pts, 1) * 1e6, full.cpu))
    # The targets without a restart alone, with their labels (shape), for
    # deriv() and the comparison with CSV.
    query = "fleet_memory_bytes{instance!=\"\"}"
    rep = run("fleet-report", [MEMTREND, "report", "--prometheus", url,
                               "--query", query, "--start", start, "--end",
                               end, "--step", "60s", "--json"])
    n = len(json.loads(rep.out)["targets"])
    row("report --prometheus: %s series x %s points, no restarts" % (
        fmt_n(n), fmt_n(FLEET_POINTS)), secs(rep.wall), "—", "—", "info",
        "info")
    detail("i) %s series in %.1f s (CPU %.1f s), peak RSS %s" % (
        fmt_n(n), rep.wall, rep.cpu, mib(rep.maxrss)))
    # deriv() over the clean growing series against memtrend's slopes.
    mt = {t["labels"]["instance"]: t["slope"]["bytes_per_hour"]
          for t in json.loads(rep.out)["targets"]
          if t["labels"].get("shape") == "grow"}
    form = urllib.parse.urlencode({
        "query": "deriv(fleet_memory_bytes{shape=\"grow\"}[%ds])" % (
            (FLEET_POINTS - 1) * step + step), "time": end}).encode()
    body = json.loads(urllib.request.urlopen(url + "/api/v1/query", form,
                                             timeout=600).read())
    ratios = sorted(float(r["value"][1]) * 3600 / mt[r["metric"]["instance"]]
                    for r in body["data"]["result"]
                    if mt.get(r["metric"]["instance"]))
    # The hard shapes: what deriv() says over the whole week against
    # memtrend's verdicts (the single-series report for steady and
    # plateau, the --by instance,app report for the restarting apps,
    # deriv() per pod).
    form = urllib.parse.urlencode({
        "query": "deriv(fleet_memory_bytes[%ds])" % (
            (FLEET_POINTS - 1) * step + step), "time": end}).encode()
    body = json.loads(urllib.request.urlopen(url + "/api/v1/query", form,
                                             timeout=600).read())
    deriv_of = {}
    for r in body["data"]["result"]:
        shape = r["metric"].get("shape") or (
            "restart" if r["metric"].get("app") else "?")
        deriv_of.setdefault(shape, []).append(float(r["value"][1]) * 3600)
    verdicts_of = {}
    for t in json.loads(rep.out)["targets"]:
        verdicts_of.setdefault(t["labels"].get("shape", "?"), []).append(
            t["verdict"])
    verdicts_of["restart"] = [t["verdict"] for t in fj
                              if t["labels"].get("app")]
    hard = []
    for shape, what in (("steady", "steady (noise only)"),
                        ("plateau", "plateau (rises for a third of the "
                                    "range, then flat)"),
                        ("restart", "restart (halfway; deriv() per pod, "
                                    "memtrend --by app)")):
        d = sorted(deriv_of.get(shape, []))
        v = verdicts_of.get(shape, [])
        if not d or not v:
            continue
        counts = ", ".join("%s %d" % (k, v.count(k)) for k in
                           sorted(set(v), key=lambda k: -v.count(k)))
        hard.append((what, len(v), d, counts))
    # The restarting targets (two half-length pods of one app each),
    # merged with --by app, for the comparison with CSV below.
    by = None
    if FLEET_CMP_BY_EVERY:
        by = run("fleet-report-by", [MEMTREND, "report", "--prometheus", url,
                                     "--query", "fleet_memory_bytes{app!=\"\"}",
                                     "--by", "app", "--start", start, "--end",
                                     end, "--step", "60s", "--json"])
        detail("i) --by app report (%d targets): %.1f s" % (
            len(json.loads(by.out)["targets"]), by.wall))
    prom.p.kill()
    prom.wait(ok=None)
    if ratios:
        med = ratios[len(ratios) // 2]
        row("PromQL deriv() / memtrend slope, %d growing series" % len(
            ratios), "%.4f×" % med, "—", "—", "within 1 %",
            passmiss(abs(med - 1) <= 0.01))
        detail("i) deriv()/slope: min %.4f, median %.4f, max %.4f" % (
            ratios[0], med, ratios[-1]))
    for what, n, d, counts in hard:
        row("  %s, %d: deriv() vs memtrend" % (what, n),
            counts, "deriv() median %+.1f MiB/h" % (d[len(d) // 2] / 1048576.0),
            "—", "info", "info")
        detail("i) %s: deriv() min %+.2f, median %+.2f, max %+.2f MiB/h; "
               "memtrend: %s" % (what, d[0] / 1048576.0, d[len(d) // 2] / 1048576.0,
                                 d[-1] / 1048576.0, counts))
    fleet_csv_rows(rep, "instance", FLEET_CMP_EVERY, end, step)
    if by is not None:
        fleet_csv_rows(by, "app", FLEET_CMP_BY_EVERY, end, step)


def fleet_csv_rows(rep, key, every, end, step):
    """i) the fleet report against memtrend's report of the same series
    read from CSV (issue 16: equal verdicts, slopes within 1 %), through
    tests/e2e/fleet_compare.py, as tests/e2e/fleet_prometheus.sh does at 1
    and 50 series: each target's CSV written by fleet_gen's own functions
    (deterministic per index) into a temporary folder, reported, deleted."""
    tmp = os.path.join(OUT, "fleet-csv-tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    summary = os.path.join(OUT, "fleet-csv-%s.json" % key)
    try:
        cmp = run("fleet-csv-" + key, [
            PY, os.path.join(ROOT, "tests", "e2e", "fleet_compare.py"),
            "--fleet", rep.out_path, "--key", key, "--memtrend", MEMTREND,
            "--generate", FLEET_POINTS, step, end, "--tmp-dir", tmp,
            "--every", every, "--jobs", FLEET_CMP_JOBS, "--summary",
            summary], ok=(0, 1))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(summary) as f:
        r = json.load(f)
    n = r["compared"]
    what = "{:,}".format(n)
    if n < r["targets"]:
        what += " of {:,} (every {}-th)".format(r["targets"], every)
    what += " series" if key == "instance" else " restarts, --by app"
    row("vs CSV report, %s: verdicts equal; slopes within 1 %% (worst)"
        % what, "%d/%d; %d/%d (%.2g %%)" % (
            r["verdicts_equal"], n, r["slopes_within"], n,
            r["worst_rel"] * 100), "—", "—", "all agree",
        passmiss(r["all_agree"]))
    detail("i) vs CSV (%s): %d/%d sample counts equal; worst slope "
           "difference %s (%.3g %% of max(|slope|, 1 KiB/h)); %.0f s, CPU "
           "%.0f s (CSVs written and reported %d at a time)%s" % (
               key, r["samples_equal"], n, r["worst_name"],
               r["worst_rel"] * 100, cmp.wall, cmp.cpu, FLEET_CMP_JOBS,
               "" if r["all_agree"] else "; differences: " +
               cmp.out.strip().replace("\n", " / ")[:400]))


def table():
    head = ("measure", "memtrend", "peer", "ratio", "target", "result")
    w = [max(len(r[i]) for r in rows + [head]) for i in range(6)]
    line = lambda r: " | ".join(c.ljust(w[i]) for i, c in enumerate(r))
    sep = "-+-".join("-" * x for x in w)
    return "\n".join([line(head), sep] + [line(r) for r in rows])


def machine():
    try:
        with open("/proc/cpuinfo") as f:
            model = re.search(r"model name\s*:\s*(.*)", f.read()).group(1)
    except (OSError, AttributeError):
        model = "?"
    ver = subprocess.run([MEMTREND, "--version"], capture_output=True,
                         text=True).stdout.strip()
    return "%s; %d CPUs (%s); kernel %s; build %s" % (
        ver or "memtrend", os.cpu_count(), model, os.uname().release, BUILD)


def stat_busy():
    """Machine-wide user + nice + system seconds, from /proc/stat (irq and
    softirq left out: they are charged to no one in particular)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return (v[0] + v[1] + v[2]) / os.sysconf("SC_CLK_TCK")


def own_cpu():
    """This bench's CPU: itself and every child it has reaped (their
    reaped children included)."""
    a = resource.getrusage(resource.RUSAGE_SELF)
    b = resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


class OtherLoad(threading.Thread):
    """What else ran on the machine meanwhile: machine-wide busy time less
    this bench's own CPU, with kernel threads (writeback of the bench's own
    files, mostly) apart. Kernel threads are found by a scan every 2 s."""

    PF_KTHREAD = 0x00200000

    def __init__(self):
        super().__init__(daemon=True)
        self.hz = os.sysconf("SC_CLK_TCK")
        self.first, self.last = {}, {}
        self.lock = threading.Lock()
        self.stop_ev = threading.Event()
        self.initial = True
        self.scan()
        self.t0 = self.t_mark = time.perf_counter()
        self.mark0 = self.at_mark = self._point()
        self.sections = []    # (name, other CPUs on average)

    def scan(self):
        with self.lock:
            for d in os.listdir("/proc"):
                if not d.isdigit():
                    continue
                try:
                    with open("/proc/%s/stat" % d) as f:
                        st = f.read()
                except OSError:
                    continue
                f = st[st.rindex(")") + 2:].split()
                # fields from 3 (state) on: flags f[6], utime f[11],
                # stime f[12], starttime f[19]
                if not int(f[6]) & self.PF_KTHREAD:
                    continue
                key = (int(d), int(f[19]))
                cpu = int(f[11]) + int(f[12])
                # A kernel thread first seen after the start counts whole.
                self.first.setdefault(key, cpu if self.initial else 0)
                self.last[key] = cpu
            self.initial = False

    def _point(self):
        self.scan()
        with self.lock:
            kern = sum(v - self.first[k] for k, v in self.last.items())
        return stat_busy(), own_cpu(), kern / self.hz

    def run(self):
        while not self.stop_ev.wait(2.0):
            self.scan()

    @staticmethod
    def _other(p0, p1):
        return max((p1[0] - p0[0]) - (p1[1] - p0[1]) - (p1[2] - p0[2]), 0.0)

    def mark(self, name):
        """Close a section: other processes' CPUs on average during it.
        Call it when every child started in it has been reaped."""
        p, t = self._point(), time.perf_counter()
        self.sections.append((name, self._other(self.at_mark, p) /
                              max(t - self.t_mark, 1e-9)))
        self.at_mark, self.t_mark = p, t

    def finish(self):
        """(other processes' CPU seconds, kernel threads' CPU seconds)"""
        self.stop_ev.set()
        self.join()
        p = self._point()
        return self._other(self.mark0, p), p[2] - self.mark0[2]


# ---- j: record --sites, the shim's cost ----------------------------------

ALLOC = os.path.join(BUILD, "bench", "bench_alloc")


def sites_rows():
    """bench_alloc bare and under `record --sites` (the default rate),
    alternated, BENCH_SITES_RUNS (5) each: the median ops per second of
    the program's own CPU time, which the other work on a shared machine
    does not inflate; then the shim's memory (the region's pages in the
    target's shmem) and what it sampled."""
    runs = knob("BENCH_SITES_RUNS", 5, 1)
    secs = knob("BENCH_SITES_SECONDS", 3, 1)
    for label, threads, spin in (
            ("malloc/free back to back, 1 thread", 1, 0),
            ("~10^7 malloc/free per second, 2 threads", 2, 60)):
        bare, shim, stats, shmem = [], [], None, 0
        for k in range(runs):
            c = run("alloc-bare", [ALLOC, threads, secs, spin])
            bare.append(kv(c.out.replace(" ", "="), "ops_per_cpu_s"))
            db = os.path.join(OUT, "sites.db")
            rm(db)
            c = run("alloc-sites", [MEMTREND, "record", "-q", "-o", db,
                                    "-i", "1s", "--sites", "--", ALLOC,
                                    threads, secs, spin])
            shim.append(kv(c.out.replace(" ", "="), "ops_per_cpu_s"))
            stats = db_query(db, "SELECT sampled, dropped_sites + "
                             "dropped_live, backtrace_s FROM site_stats "
                             "ORDER BY rowid DESC LIMIT 1")[0]
            shmem = max(shmem, db_query(db, "SELECT max(shmem) FROM "
                                        "sample")[0][0] or 0)
        b, s = sorted(bare)[runs // 2], sorted(shim)[runs // 2]
        loss = 1 - s / b
        row("j. %s: ops per CPU s" % label, "%.3g" % s, "%.3g bare" % b,
            s / b, "loss <= 5 %", "%s (%.1f %%)" % (passmiss(loss <= 0.05),
                                                    100 * loss))
        detail("j. %s: %d samples, %d dropped, %.3f s in backtrace(); "
               "added %.2f ns per op" % (label, stats[0], stats[1],
                                         stats[2], 1e9 / s - 1e9 / b))
    row("j. the shim's own memory (its region in the target's shmem)",
        mib(shmem), "—", "—", "<= 16 MiB", passmiss(shmem <= 16 << 20))
    heaptrack_rows()
    sites_bpf_rows()
    redis_rows()
    sites_accuracy_rows()


SITES_PROG = os.path.join(BUILD, "tests", "sites_prog")


def sites_accuracy_rows():
    """Accuracy against the truth by sampling rate, so a user can choose
    one: sites_prog (tests/helpers/sites_prog.c: 4 KiB kept per request
    at leak_keep, a 1 MiB cache of 2 KiB entries, churn of 16 B-8 KiB)
    for BENCH_SITES_ACC_SECONDS (4) at 1,000 requests a second under
    record --sites at each rate, BENCH_SITES_ACC_RUNS (3) runs each: the
    leak's per-request slope against 4,096 B (the median error, and the
    median half-width of its 95 % interval, in % of the truth), the
    cache's live bytes against 1 MiB at the end, and the samples a
    second, and in how many runs the leak's interval held 4,096. Not a
    target: a table."""
    runs = knob("BENCH_SITES_ACC_RUNS", 3, 1)
    secs = knob("BENCH_SITES_ACC_SECONDS", 4, 3)
    for rate in ("4KiB", "64KiB", "512KiB", "4MiB"):
        err, half, cache, sps, covered = [], [], [], [], 0
        for k in range(runs):
            db = os.path.join(OUT, "acc.db")
            logf = os.path.join(OUT, "acc.log")
            rm(db)
            if os.path.exists(logf):
                os.unlink(logf)
            run("sites-acc", [MEMTREND, "record", "-q", "-o", db, "-i",
                              "100ms", "--sites", "--sites-rate", rate,
                              "--work-log", logf, "--match", "req", "--",
                              SITES_PROG, secs, logf, 1000])
            rep = run("sites-acc-report", [MEMTREND, "report", "--json",
                                           db])
            x = json.loads(rep.out)["targets"][0]["sites"]
            by = {}
            for r in x["ranked"]:
                by.setdefault(r["frames"][0]["function"], r)
            leak = by.get("leak_keep")
            pr = leak["per_request"] if leak else {}
            est = pr.get("bytes_per_request")
            if est is None:
                est = pr.get("estimate")
            if est is not None and pr.get("ci95_low") is not None:
                err.append(abs(est - 4096) / 4096)
                half.append((pr["ci95_high"] - pr["ci95_low"]) / 2 / 4096)
                covered += pr["ci95_low"] <= 4096 <= pr["ci95_high"]
            c = by.get("cache_put")
            if c and c.get("last_bytes") is not None:
                cache.append(abs(c["last_bytes"] - (1 << 20)) / (1 << 20))
            sps.append((x.get("samples") or 0) / secs)
        med = lambda v: sorted(v)[len(v) // 2] if v else float("nan")
        row("j. accuracy at --sites-rate %s: leak's B/req error, its "
            "interval's half-width; cache's error" % rate,
            "%.1f %%, ±%.1f %%" % (100 * med(err), 100 * med(half)),
            "cache %.0f %%" % (100 * med(cache)), "—", "table",
            "%.0f samples/s; truth in %d of %d" % (med(sps), covered,
                                                   len(err)))


def heaptrack_rows():
    """The preload mode against heaptrack (which records every
    allocation) on the 2-thread load, alternated, BENCH_SITES_RUNS each:
    the program's ops per CPU second under each, heaptrack's trace file's
    size."""
    heaptrack = shutil.which("heaptrack")
    if not heaptrack:
        row("j. --sites against heaptrack", "—", "— (heaptrack not "
            "installed)", "—")
        return
    runs = knob("BENCH_SITES_RUNS", 5, 1)
    secs = knob("BENCH_SITES_SECONDS", 3, 1)
    shim, peer, trace = [], [], 0
    for k in range(runs):
        db = os.path.join(OUT, "sites_ht.db")
        rm(db)
        c = run("alloc-sites-ht", [MEMTREND, "record", "-q", "-o", db,
                                   "-i", "1s", "--sites", "--", ALLOC, 2,
                                   secs, 60])
        shim.append(kv(c.out.replace(" ", "="), "ops_per_cpu_s"))
        out = os.path.join(OUT, "heaptrack")
        for f in os.listdir(OUT):
            if f.startswith("heaptrack."):
                os.unlink(os.path.join(OUT, f))
        c = run("alloc-heaptrack", [heaptrack, "-o", out, ALLOC, 2, secs,
                                    60])
        line = next((l for l in c.out.splitlines()
                     if l.startswith("ops ")), "")
        peer.append(kv(line.replace(" ", "="), "ops_per_cpu_s"))
        trace = max([trace] + [os.path.getsize(os.path.join(OUT, f))
                               for f in os.listdir(OUT)
                               if f.startswith("heaptrack.")])
    s_, h = sorted(shim)[runs // 2], sorted(peer)[runs // 2]
    row("j. --sites (preload) against heaptrack, 2 threads ~10^7/s: ops "
        "per CPU s", "%.3g" % s_, "%.3g heaptrack" % h, s_ / h,
        "above the peer", passmiss(s_ > h))
    detail("j. heaptrack's trace: %s for %d s of the load (memtrend's "
           "sites: a fixed table)" % (mib(trace), secs))


# What memleak does, in bpftrace: every allocation traced with its stack,
# every free looked up (bcc's memleak-bpfcc compiles its programs against
# the running kernel's headers, which a kernel without them -- this VM's
# -- does not have; bpftrace reads BTF).
MEMLEAK_BT = """
uprobe:%(libc)s:malloc { @size[tid] = arg0; }
uretprobe:%(libc)s:malloc /@size[tid]/ {
    @bytes[retval] = @size[tid]; @stack[retval] = ustack(8);
    delete(@size[tid]);
}
uprobe:%(libc)s:free { delete(@bytes[arg0]); delete(@stack[arg0]); }
"""


def traced_alloc(name, threads, secs, spin, tracer, wait):
    """bench_alloc started asleep for `wait` s (not measured), tracer(pid)
    attached meanwhile (a Child, or None: bare); its ops per CPU second
    over the measured part, which includes the traps (kernel time in the
    process)."""
    c = Child(name, [ALLOC, threads, secs, spin, wait])
    pid = None
    for _ in range(200):
        with open(c.out_path) as f:
            first = f.readline()
        if first.startswith("pid "):
            pid = int(first.split()[1])
            break
        time.sleep(0.01)
    t = tracer(pid) if tracer and pid else None
    c.wait()
    if t is not None and not t.done:
        t.p.send_signal(signal.SIGINT)
        t.wait(ok=None)
    return kv(c.out.replace(" ", "="), "ops_per_cpu_s"), t


def redis_pid(port):
    """The pid redis-server on port says it has (INFO server), or None."""
    try:
        out = subprocess.run(["redis-cli", "-p", str(port), "INFO",
                              "server"], capture_output=True, text=True,
                             timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"process_id:(\d+)", out)
    return int(m.group(1)) if m else None


def redis_up(port, seconds=20):
    for _ in range(int(seconds * 20)):
        pid = redis_pid(port)
        if pid:
            return pid
        time.sleep(0.05)
    return None


def rss_of(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            m = re.search(r"VmRSS:\s+(\d+) kB", f.read())
        return int(m.group(1)) * 1024 if m else float("nan")
    except OSError:
        return float("nan")


def redis_once(mode, n):
    """One redis-server under `mode` on a free loopback port, filled by
    redis-benchmark (SET of 64 B values over 10^6 random keys, 20
    clients, pipelines of 8, n requests): its requests per second and
    the server's RSS at the end, or (None, why)."""
    port = free_port()
    server = ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
              "--save", "", "--appendonly", "no", "--dir", OUT,
              "--logfile", os.path.join(OUT, "log", "redis.log")]
    db = os.path.join(OUT, "redis_sites.db")
    rm(db)
    tracer = None
    if mode == "preload":
        wrapper = Child("redis-preload", [MEMTREND, "record", "-q", "-o",
                                          db, "-i", "1s", "--sites", "--"]
                        + server)
    elif mode == "heaptrack":
        for f in os.listdir(OUT):
            if f.startswith("heaptrack.redis"):
                os.unlink(os.path.join(OUT, f))
        wrapper = Child("redis-heaptrack", ["heaptrack", "-o",
                                            os.path.join(OUT,
                                                         "heaptrack.redis")]
                        + server)
    else:
        wrapper = Child("redis-" + mode, server)
    pid = redis_up(port)
    if not pid:
        return None, "%s: redis-server did not start" % mode
    if mode == "ebpf":
        tracer = Child("redis-ebpf-rec", [MEMTREND, "record", "-q", "-o",
                                          db, "-i", "1s", "--sites", "-p",
                                          pid])
        time.sleep(3)  # the probes attached (their cost measured first)
    b = run("redis-benchmark-" + mode, ["redis-benchmark", "-p", port, "-t",
                                        "set", "-n", n, "-r", 1000000,
                                        "-d", 64, "-c", 20, "-P", 8, "-q",
                                        "--csv"], ok=None)
    rss = rss_of(pid)
    m = re.search(r'"SET","([0-9.]+)"', b.out)
    for t in (tracer,):
        if t is not None and not t.done:
            t.p.send_signal(signal.SIGINT)
            t.wait(ok=None)
    subprocess.run(["redis-cli", "-p", str(port), "SHUTDOWN", "NOSAVE"],
                   capture_output=True, timeout=10)
    wrapper.wait(ok=None)
    if not m:
        return None, "%s: no SET figure from redis-benchmark: %s" % (
            mode, (b.out + b.err)[-200:])
    return (float(m.group(1)), rss), ""


def redis_rows():
    """redis-benchmark against Debian's redis-server (jemalloc): bare,
    under record --sites (preload: memtrend starts it), under record
    --sites -p (eBPF), under heaptrack;
    alternated, BENCH_SITES_RUNS each; the median requests per second
    and the server's RSS at the end."""
    if not (shutil.which("redis-server") and shutil.which("redis-benchmark")):
        row("j. redis-benchmark", "—", "— (redis-server, redis-tools not "
            "installed)", "—")
        return
    runs = knob("BENCH_SITES_RUNS", 5, 1)
    n = knob("BENCH_REDIS_REQUESTS", 400000, 50000)
    # memleak-bpfcc is not among them: it probes the C library's malloc,
    # which Debian's redis-server (jemalloc) does not call, so it sees
    # none of its allocations; pointed at jemalloc (-O) it stops: "could
    # not determine address of symbol mmap" (bench/README.md, j)
    modes = ["bare", "preload"]
    if os.geteuid() == 0:
        modes.append("ebpf")
    if shutil.which("heaptrack"):
        modes.append("heaptrack")
    got = {m: [] for m in modes}
    notes = []
    for k in range(runs):
        for mode in modes:
            r, why = redis_once(mode, n)
            if r:
                got[mode].append(r)
            elif why not in notes:
                notes.append(why)

    def med(mode, i):
        v = sorted(x[i] for x in got.get(mode, []))
        return v[len(v) // 2] if v else float("nan")

    bare = med("bare", 0)
    pre = med("preload", 0)
    row("j. redis-benchmark SET, --sites (preload): requests/s",
        "%.3g" % pre, "%.3g bare" % bare, pre / bare, "loss <= 5 %",
        "%s (%.1f %%)" % (passmiss(pre >= 0.95 * bare), 100 * (1 - pre / bare)))
    if "ebpf" in got:
        e = med("ebpf", 0)
        row("j. redis-benchmark SET, --sites -p (eBPF): requests/s",
            "%.3g" % e, "%.3g bare" % bare, e / bare, "info")
    if "heaptrack" in got and got["heaptrack"]:
        h = med("heaptrack", 0)
        row("j. redis-benchmark SET, --sites (preload) against heaptrack: "
            "requests/s", "%.3g" % pre, "%.3g heaptrack" % h, pre / h,
            "above the peer", passmiss(pre > h))
    detail("j. redis-benchmark (%d SET, 64 B, 10^6 keys, 20 clients, -P 8; "
           "median of %d): server RSS at the end %s" % (n, runs, "; ".join(
               "%s %s" % (m, mib(med(m, 1))) for m in modes)))
    detail("j. redis-benchmark requests/s, every run: %s" % "; ".join(
        "%s %s" % (m, " ".join("%.3g" % x[0] for x in got[m]))
        for m in modes))
    for why in notes:
        detail("j. redis-benchmark: " + why)


def sites_bpf_rows():
    """The eBPF mode (record --sites -p) and its peers on the 2-thread
    load, alternated, BENCH_SITES_RUNS each: bare, memtrend attached,
    bcc's memleak-bpfcc (bpfcc-tools: every allocation traced, its
    outstanding table printed each second) attached, and bpftrace doing
    memleak's work attached. Root only (uprobes). memleak-bpfcc compiles
    its program against kernel headers: where the running kernel has
    none (a cloud kernel), bench/README.md says how Debian's serve."""
    if os.geteuid() != 0:
        row("j. --sites -p (eBPF)", "—", "—", "—", "info", "not run: needs root")
        return
    runs = knob("BENCH_SITES_RUNS", 5, 1)
    secs = knob("BENCH_SITES_SECONDS", 3, 1)
    libc = next((l.split()[-1] for l in open("/proc/self/maps")
                 if re.search(r"/libc[.-][^/]*$", l.strip())), None)
    bpftrace = shutil.which("bpftrace")
    memleak = shutil.which("memleak-bpfcc")
    bare, ebpf, peer, note, calls = [], [], [], "", ""
    bcc, bcc_note = [], ""
    for k in range(runs):
        bare.append(traced_alloc("alloc-bare-w", 2, secs, 60, None, 2)[0])
        db = os.path.join(OUT, "sites_bpf.db")
        rm(db)
        v, t = traced_alloc("alloc-ebpf", 2, secs, 60, lambda pid: Child(
            "sites-bpf", [MEMTREND, "record", "-q", "-o", db, "-i", "1s",
                          "--sites", "-p", pid]), 2)
        ebpf.append(v)
        calls = next((r[0] for r in db_query(
            db, "SELECT text FROM note WHERE text LIKE '%trapped%'")), "")
        if bpftrace and libc:
            # bpftrace compiles for a second or two before it attaches:
            # the program sleeps 6 s first
            v, t = traced_alloc("alloc-bpftrace", 2, secs, 60,
                                lambda pid: Child("bpftrace", [
                                    bpftrace, "-p", pid, "-e",
                                    MEMLEAK_BT % {"libc": libc}]), 6)
            if "Attaching" in t.out + t.err:
                peer.append(v)
            else:
                note = "bpftrace did not attach: " + (t.err or t.out)[-200:]
        if memleak:
            # it compiles with clang for a few seconds before it attaches
            v, t = traced_alloc("alloc-memleak", 2, secs, 60,
                                lambda pid: Child("memleak-bpfcc", [
                                    memleak, "-p", pid, "1"]), 10)
            if "Top 10 stacks" in t.out:
                bcc.append(v)
            else:
                bcc_note = "memleak-bpfcc did not run: " + " ".join(
                    (t.err or t.out).split())[-160:]
    b, e = sorted(bare)[runs // 2], sorted(ebpf)[runs // 2]
    if bcc and len(bcc) == runs:
        mv = sorted(bcc)[runs // 2]
        row("j. --sites -p (eBPF), 2 threads ~10^7/s: ops per CPU s",
            "%.3g" % e, "%.3g memleak-bpfcc" % mv, e / mv,
            "above memleak", passmiss(e > mv))
    else:
        row("j. --sites -p (eBPF) against memleak-bpfcc", "%.3g" % e,
            "— (%s)" % (bcc_note or "memleak-bpfcc not installed: "
                        "bpfcc-tools"), "—")
    if peer:
        pv = sorted(peer)[runs // 2]
        row("j. --sites -p (eBPF), 2 threads ~10^7/s: ops per CPU s",
            "%.3g" % e, "%.3g memleak-like bpftrace" % pv, e / pv,
            "above the peer", passmiss(e > pv))
    else:
        row("j. --sites -p (eBPF), 2 threads ~10^7/s: ops per CPU s",
            "%.3g" % e, "— (%s)" % (note or "bpftrace not installed"), "—")
    detail("j. eBPF: bare %.3g ops per CPU s, %.1f %% of it kept; %s"
           % (b, 100 * e / b, calls))
    detail("j. eBPF runs (ops per CPU s): memtrend %s; memleak-bpfcc %s; "
           "bpftrace %s" % tuple(" ".join("%.3g" % x for x in v)
                                 for v in (ebpf, bcc, peer)))


def main():
    os.makedirs(os.path.join(OUT, "log"), exist_ok=True)
    if sys.argv[1:] == ["sites"]:
        # Section j alone (`bench/run.py sites`): record --sites' cost.
        try:
            sites_rows()
        finally:
            cleanup()
        print(table())
        print("\n".join(details))
        return
    if sys.argv[1:] == ["sites-redis"]:
        # The redis-benchmark rows of j alone (`bench/run.py sites-redis`).
        try:
            redis_rows()
        finally:
            cleanup()
        print(table())
        print("\n".join(details))
        return
    if sys.argv[1:] == ["sites-bpf"]:
        # The eBPF rows of j alone (`bench/run.py sites-bpf`, root).
        try:
            sites_bpf_rows()
        finally:
            cleanup()
        print(table())
        print("\n".join(details))
        return
    if sys.argv[1:] == ["host"]:
        # Section h alone (`bench/run.py host`): record --all at 1,000
        # processes beside the floor and the peers, then --listen.
        try:
            host_rows()
        finally:
            cleanup()
        print(table())
        print("\n".join(details))
        return
    if sys.argv[1:] == ["fleet"]:
        # The fleet rows alone (i): `bench/run.py fleet`.
        try:
            fleet_rows()
        finally:
            cleanup()
        print(table())
        print("\n".join(details))
        return
    for p in (MEMTREND, FLOOR, SYNTH, TICK, WATCH, ANALYSIS, ALLOC):
        if not os.access(p, os.X_OK):
            die("missing %s (build first: run bench/run.sh)" % p)
    for p in ("psutil_sampler.py", "scipy_trend.py"):
        if not os.path.exists(os.path.join(PEERS, p)):
            die("missing peer %s (set PEERS)" % os.path.join(PEERS, p))
    t_start = time.perf_counter()
    monitor = OtherLoad()
    monitor.start()
    load0 = os.getloadavg()[0]
    if load0 > 0.5:
        log("warning: load average %.2f before the bench: other work on "
            "this machine will inflate the CPU figures" % load0)
    log("memtrend benchmarks%s; output in %s" % (
        " (BENCH_QUICK: smoke run, numbers not meaningful)" if QUICK else "",
        OUT))

    idle = subprocess.Popen(["sleep", "100000"])
    started.append(idle)
    big = subprocess.Popen([FLOOR, "--hold", str(BIG_MIB)],
                           stdout=subprocess.PIPE, text=True)
    started.append(big)
    if big.stdout.readline().strip() != "ready":
        die("the %d MiB target did not start" % BIG_MIB)

    # a) CPU per process-sample.
    conc = not SERIAL
    cpu_rows("status", "status/idle", "status", idle.pid, SAMPLES,
             [], "memory_info", TIGHT, concurrent=conc, wakeup=True)
    cpu_rows("smaps", "smaps/idle", "smaps", idle.pid, SAMPLES,
             ["--full"], "memory_full_info", TIGHT, concurrent=conc)
    cpu_rows("smaps-big", "smaps/%s" % (
        "%d GiB" % (BIG_MIB // 1024) if BIG_MIB % 1024 == 0 else
        "%d MiB" % BIG_MIB), "smaps", big.pid, BIG_SAMPLES, ["--full"],
        "memory_full_info", BIG_SAMPLES, concurrent=False)
    pidstat_rows(idle.pid)
    big.kill()
    big.wait()
    monitor.mark("a")

    # b) the recorder's own RSS; the synthetic data for c is written
    # meanwhile (RSS is not disturbed by it; nothing else is timed then).
    # The soak's target changes every millisecond, so (nearly) every
    # sample is a row of its own: the store's worst case, not its best.
    churn = subprocess.Popen([FLOOR, "--hold", "4", "--churn", "1"],
                             stdout=subprocess.PIPE, text=True)
    started.append(churn)
    if churn.stdout.readline().strip() != "ready":
        die("the churning target did not start")
    soak = soak_start(churn.pid)
    log("c) synthetic recordings: %s samples" % ", ".join(
        fmt_n(n) for n in SIZES))
    dbs = [(n, synth_db(n)) for n in SIZES]
    log("b) waiting for the recorder soak to end")
    soak_finish(*soak)
    churn.kill()
    churn.wait()
    monitor.mark("b")

    for n, db in dbs:
        log("c) report on %s samples" % fmt_n(n))
        report_rows(n, db)
    for n, db in dbs:
        if n == 1_000_000:
            log("c) one watch refresh at %s samples" % fmt_n(n))
            watch_rows(n, db)
    monitor.mark("c")
    analysis_rows(scipy_rows())
    monitor.mark("d")
    work_rows(str(idle.pid))
    monitor.mark("e")
    gpu_rows()
    monitor.mark("f")
    calibration_rows()
    monitor.mark("g")
    host_rows()
    monitor.mark("h")
    fleet_rows()
    monitor.mark("i")
    sites_rows()
    monitor.mark("j")

    idle.kill()
    idle.wait()
    wall = time.perf_counter() - t_start
    other, kern = monitor.finish()
    load = ("machine during the run: other processes used %.2f CPUs on "
            "average (by section: %s; kernel threads, e.g. writeback of the "
            "bench's own files: %.2f); load average %.2f before, %.2f "
            "after" % (other / wall, ", ".join(
                "%s %.2f" % x for x in monitor.sections), kern / wall, load0,
                os.getloadavg()[0]))
    busy = [n for n, o in monitor.sections if o > 0.1]
    if busy:
        load += (" -- NOT QUIET during %s: those rows are inflated, run "
                 "again" % ", ".join(busy))
    text = ["memtrend benchmarks — %s" % time.strftime("%Y-%m-%d %H:%M:%S"),
            machine(),
            "ratio = memtrend ÷ peer (below 1×: memtrend is cheaper or "
            "faster). CPU = user + system, from wait4/getrusage.",
            "a rows: CPU per process-sample. 'recorder' = `memtrend record`, "
            "steady state (a 2-sample run's CPU subtracted; 'whole process' "
            "keeps it);",
            "'tick work only' = the recorder's per-tick library calls in a "
            "tight loop (bench_tick); 'floor' = the same preads, nothing "
            "else (bench_floor).", "",
            table(), "", "details:"] + ["  " + d for d in details] + [
            "", load, "total bench time %.0f s%s" % (
                wall,
                " (BENCH_QUICK smoke run)" if QUICK else "")]
    out = "\n".join(text) + "\n"
    print(out, end="")
    with open(os.path.join(OUT, "results.txt"), "w") as f:
        f.write(out)


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: (cleanup(), sys.exit(143)))
    try:
        main()
    except KeyboardInterrupt:
        cleanup()
        sys.exit(130)
    finally:
        cleanup()
