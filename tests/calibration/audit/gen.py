#!/usr/bin/python3
"""Audit families for memtrend (independent of tests/calibration/calibrate.c).

usage: /usr/bin/python3 gen.py OUTDIR SEED_FIRST SEED_END [FAMILY ...]

Writes OUTDIR/<family>/<seed>.csv (columns time, footprint[, requests]) and
OUTDIR/<family>/<seed>.truth.json with the known truth, plus
OUTDIR/<family>/<seed>.mu.npy (noise-free mean at the sample times) where the
truth depends on the window memtrend analyses.

Every family is seeded with numpy.random.default_rng([family_index, seed]).
"""
import json
import math
import os
import sys

import numpy as np
from scipy.signal import lfilter

KiB = 1024.0
MiB = 1024.0 ** 2
GiB = 1024.0 ** 3
H = 3600.0


def ar1(rng, n, phi, sd):
    """Stationary AR(1) per sample, marginal sd `sd` (scalar or per-sample array)."""
    sd = np.broadcast_to(np.asarray(sd, dtype=float), (n,))
    e = rng.normal(size=n) * sd * math.sqrt(1.0 - phi * phi)
    x0 = rng.normal() * sd[0]
    x, _ = lfilter([1.0], [1.0, -phi], e, zi=[phi * x0])
    return x


def regular(rng, hours, step):
    t0 = float(int(1.70e9 + rng.uniform(0, 3.0e7)))
    n = int(round(hours * H / step))
    return t0, t0 + np.arange(n) * step


def pages(y, unit=4096.0):
    return np.round(y / unit) * unit


def sawtooth(rng, t, median_s, sigma):
    """Fraction (0..1) through the current cycle at each time; cycle lengths lognormal."""
    span = t[-1] - t[0]
    need = int(span / (median_s * 0.3)) + 20
    d = median_s * np.exp(sigma * rng.normal(size=need))
    start = t[0] - rng.uniform(0, d[0])
    bounds = start + np.concatenate([[0.0], np.cumsum(d)])
    assert bounds[-1] > t[-1]
    k = np.searchsorted(bounds, t, side='right') - 1
    return (t - bounds[k]) / (bounds[k + 1] - bounds[k])


FAMILIES = []


def family(name, desc):
    def deco(fn):
        FAMILIES.append((name, desc, fn))
        return fn
    return deco


# ---------------------------------------------------------------- F1
@family('bizhours-leak 72h',
        '4 GiB service, leaks 40 MiB/h only 09-18h UTC (long-run 15 MiB/h), diurnal working set '
        '150 MiB peak 16h, AR(0.95) 12 MiB, 72 h at 60 s')
def f_bizhours(rng):
    t0, t = regular(rng, 72, 60)
    day = np.floor(t / 86400.0)
    hod = (t - day * 86400.0) / H
    cum = 40 * MiB * (9.0 * day + np.clip(hod - 9.0, 0, 9.0))
    cum -= cum[0]
    ws = 150 * MiB * 0.5 * (1 - np.cos(2 * np.pi * (hod - 4.0) / 24.0))
    mu = 4 * GiB + cum + ws
    y = mu + ar1(rng, len(t), 0.95, 12 * MiB)
    x = (t - t[0]) / H
    ols = np.polyfit(x, mu, 1)[0]
    return dict(t=t, y=pages(y), mu=mu,
                truth=dict(time_slope=15 * MiB, time_slope_alt={'ols_of_mean': ols},
                           kind='leak', rate_for_stable=15 * MiB))


# ---------------------------------------------------------------- F2/F3
def jvm(rng, leak):
    t0, t = regular(rng, 12, 15)
    frac = sawtooth(rng, t, 100.0, 0.4)          # young GC every ~100 s (lognormal)
    eden = 512 * MiB * frac
    old = 3 * GiB + leak * (t - t[0]) / H
    y = old + eden + ar1(rng, len(t), 0.9, 4 * MiB)
    return t, pages(y)


@family('jvm fast young-gen flat 12h',
        '3 GiB old gen, eden sawtooth 0-512 MiB every ~100 s (lognormal sigma 0.4) seen at 15 s '
        '(aliased), AR(0.9) 4 MiB, no leak')
def f_jvm_flat(rng):
    t, y = jvm(rng, 0.0)
    return dict(t=t, y=y, truth=dict(time_slope=0.0, kind='flat'))


@family('jvm fast young-gen leak 25MiB/h 12h',
        'as above, old gen leaks 25 MiB/h')
def f_jvm_leak(rng):
    t, y = jvm(rng, 25 * MiB)
    return dict(t=t, y=y, truth=dict(time_slope=25 * MiB, kind='leak', rate_for_stable=25 * MiB))


# ---------------------------------------------------------------- F4
@family('traffic ramp, no per-request leak 24h',
        '6 GiB + 8 MiB per req/s in flight; rate ramps 20->60 req/s over 24 h (x lognormal AR(0.98) '
        'sd 0.1), requests counter; AR(0.9) 12 MiB; 30 s. Time slope 13.4 MiB/h; per-request not linear')
def f_ramp(rng):
    t0, t = regular(rng, 24, 30)
    n = len(t)
    a = ar1(rng, n, 0.98, 0.1)
    r = (20.0 + 40.0 * (t - t[0]) / (24 * H)) * np.exp(a)
    cnt = rng.poisson(r * 30.0)
    req = np.cumsum(cnt) + 1000
    y = 6 * GiB + 8 * MiB * r + ar1(rng, n, 0.9, 12 * MiB)
    truth = 8 * MiB * (40.0 / 24.0) * math.exp(0.1 ** 2 / 2)
    return dict(t=t, y=pages(y), req=req,
                truth=dict(time_slope=truth, kind='leak', rate_for_stable=truth,
                           note='per-request slope undefined (memory follows the rate, not the count)'))


# ---------------------------------------------------------------- F5
@family('on/off bursts, Pareto per-request leak 24h',
        '2 GiB; on (exp 15 min) 40 req/s / off (exp 30 min) 0.5 req/s; 1 request in 20 leaks '
        'Pareto(alpha 2.2) mean 20 KiB (=1 KiB/req); in-flight 5 MiB per req/s; AR(0.9) 8 MiB; 15 s')
def f_onoff(rng, inflight=5 * MiB):
    t0, t = regular(rng, 24, 15)
    n = len(t)
    secs = n * 15
    state = np.zeros(secs, dtype=bool)
    pos = 0
    on = rng.uniform() < 1 / 3
    while pos < secs:
        d = int(rng.exponential(15 * 60 if on else 30 * 60)) + 1
        state[pos:pos + d] = on
        pos += d
        on = not on
    on_s = state.reshape(n, 15).sum(axis=1)
    lam = 40.0 * on_s + 0.5 * (15 - on_s)
    cnt = rng.poisson(lam)
    nleak = rng.binomial(cnt, 1 / 20)
    alpha = 2.2
    xm = 20 * KiB * (alpha - 1) / alpha
    tot = int(nleak.sum())
    amounts = xm * (1.0 + rng.pareto(alpha, size=tot))
    idx = np.repeat(np.arange(n), nleak)
    per = np.bincount(idx, weights=amounts, minlength=n)
    cum = np.cumsum(per)
    req = np.cumsum(cnt) + 5000
    y = 2 * GiB + cum + inflight * (cnt / 15.0) + ar1(rng, n, 0.9, 8 * MiB)
    rate = 40.0 / 3 + 0.5 * 2 / 3
    return dict(t=t, y=pages(y), req=req, mu=2 * GiB + cum,
                truth=dict(time_slope=1024.0 * rate * H, pr_slope=1024.0, kind='leak',
                           rate_for_stable=1024.0 * rate * H,
                           realized_pr=float(cum[-1] / max(1, req[-1] - req[0]))))


# ---------------------------------------------------------------- F6
@family('sqrt fragmentation 48h',
        '1.5 GiB + 120 MiB*sqrt(t/1h) (still +8.7 MiB/h at 48 h, never holds), AR(0.95) 10 MiB, 30 s')
def f_sqrt(rng):
    t0, t = regular(rng, 48, 30)
    x = (t - t[0]) / H
    y = 1.5 * GiB + 120 * MiB * np.sqrt(x) + ar1(rng, len(t), 0.95, 10 * MiB)
    return dict(t=t, y=pages(y), truth=dict(time_slope=None, kind='decelerating',
                                            rate_for_stable=120 * MiB / (2 * math.sqrt(48.0))))


# ---------------------------------------------------------------- F7
@family('cache fill then creep 18MiB/h 24h',
        '3 GiB + 2 GiB*(1-exp(-t/20min)) LRU fill + 18 MiB/h creep (entries grow), AR(0.9) 16 MiB, 20 s; '
        'truth = LS slope of the noise-free mean over the window memtrend analyses')
def f_fillcreep(rng):
    t0, t = regular(rng, 24, 20)
    x = (t - t[0]) / H
    mu = 3 * GiB + 2 * GiB * (1 - np.exp(-x / (20 / 60))) + 18 * MiB * x
    y = mu + ar1(rng, len(t), 0.9, 16 * MiB)
    return dict(t=t, y=pages(y), mu=mu,
                truth=dict(time_slope='window', time_slope_alt={'creep': 18 * MiB}, kind='leak',
                           rate_for_stable=18 * MiB))


# ---------------------------------------------------------------- F8/F9
def coarse(rng, leak):
    t0, t = regular(rng, 24, 60)
    y = 40 * GiB + leak * (t - t[0]) / H + ar1(rng, len(t), 0.8, 24 * MiB)
    return t, np.round(y / (64 * MiB)) * 64 * MiB


@family('coarse 64MiB 1min flat 24h',
        '40 GiB LLM server, AR(0.8) 24 MiB, readings rounded to 64 MiB, 60 s, no leak')
def f_coarse_flat(rng):
    t, y = coarse(rng, 0.0)
    return dict(t=t, y=y, truth=dict(time_slope=0.0, kind='flat'))


@family('coarse 64MiB 1min leak 80MiB/h 24h',
        'as above, leak 80 MiB/h (above the ~57 MiB/h concern)')
def f_coarse_leak(rng):
    t, y = coarse(rng, 80 * MiB)
    return dict(t=t, y=y, truth=dict(time_slope=80 * MiB, kind='leak', rate_for_stable=80 * MiB))


# ---------------------------------------------------------------- F10
@family('hourly cron spikes + leak 12MiB/h 24h',
        '1 GiB daemon; every hour at :00 + U(0,60) s a job holds +400 MiB (+-10 %) for U(3,6) min; '
        'leak 12 MiB/h; AR(0.9) 6 MiB; 15 s')
def f_cron(rng):
    t0, t = regular(rng, 24, 15)
    spikes = np.zeros(len(t))
    h0 = math.floor(t[0] / H) * H
    for hs in np.arange(h0, t[-1] + H, H):
        s = hs + rng.uniform(0, 60)
        d = rng.uniform(180, 360)
        spikes[(t >= s) & (t < s + d)] += 400 * MiB * rng.uniform(0.9, 1.1)
    y = 1 * GiB + 12 * MiB * (t - t[0]) / H + spikes + ar1(rng, len(t), 0.9, 6 * MiB)
    return dict(t=t, y=pages(y), truth=dict(time_slope=12 * MiB, kind='leak', rate_for_stable=12 * MiB))


# ---------------------------------------------------------------- F11
@family('aging jitter sd 4->60MiB flat 24h',
        '8 GiB; AR(0.97) whose sd ramps linearly 4 -> 60 MiB over the window (heap ageing), 30 s, no leak')
def f_aging(rng):
    t0, t = regular(rng, 24, 30)
    sd = np.linspace(4, 60, len(t)) * MiB
    y = 8 * GiB + ar1(rng, len(t), 0.97, sd)
    return dict(t=t, y=pages(y), truth=dict(time_slope=0.0, kind='flat'))


# ---------------------------------------------------------------- F12
@family('per-request 512B/req, counter resets w/o restart 12h',
        '2 GiB; Poisson 25 req/s x lognormal AR(0.99) sd 0.3; 1 request in 8 keeps 4 KiB; the '
        'requests counter (an exporter) resets to 0 twice while the process runs on; AR(0.9) 8 MiB; 15 s')
def f_resets(rng, wander=0.3, nresets=2):
    t0, t = regular(rng, 12, 15)
    n = len(t)
    a = ar1(rng, n, 0.99, wander) if wander > 0 else np.zeros(n)
    cnt = rng.poisson(25.0 * np.exp(a) * 15.0)
    leak = 4 * KiB * np.cumsum(rng.binomial(cnt, 1 / 8))
    cum = np.cumsum(cnt) + 20000
    resets = np.sort(rng.integers(int(0.1 * n), int(0.9 * n), size=nresets))
    req = cum.copy()
    for k in resets:
        req[k:] = cum[k:] - cum[k - 1]          # exporter restarted: counts since then
    y = 2 * GiB + leak + ar1(rng, n, 0.9, 8 * MiB)
    ts = 512.0 * 25.0 * math.exp(wander ** 2 / 2) * H
    return dict(t=t, y=pages(y), req=req, mu=2 * GiB + leak,
                truth=dict(time_slope=ts, pr_slope=512.0, kind='leak', rate_for_stable=ts,
                           resets=[float(t[k]) for k in resets]))


# ---------------------------------------------------------------- F13
@family('go heap warm then hold, GC sawtooth 16h',
        'live heap 0.8 -> 2.4 GiB, saturating tau 45 min from start, then holds; GC sawtooth '
        '+25 % of live over lognormal ~6 min cycles; AR(0.9) 5 MiB; 15 s. Plateau from ~3 h')
def f_goplat(rng, swing=0.25, delay=0.0):
    t0, t = regular(rng, 16, 15)
    x = (t - t[0]) / H
    xd = np.clip(x - delay, 0, None)
    live = 0.8 * GiB + 1.6 * GiB * (1 - np.exp(-xd / 0.75))
    frac = sawtooth(rng, t, 360.0, 0.3)
    y = live * (1 + swing * frac) + ar1(rng, len(t), 0.9, 5 * MiB)
    return dict(t=t, y=pages(y), truth=dict(time_slope=None, kind='plateau', late_slope=0.0))


# ---------------------------------------------------------------- F14
@family("heaps-law cache to cap 24h",
        '1.5 GiB idle 1.5 h, then a cache of distinct keys grows as 3 GiB*((t-1.5h)/6h)^0.6 '
        '(Heaps law) to its 3 GiB cap at 7.5 h, holds 16.5 h; AR(0.95) 10 MiB; 30 s')
def f_heaps(rng):
    t0, t = regular(rng, 24, 30)
    x = (t - t[0]) / H
    c = 3 * GiB * np.clip((x - 1.5) / 6.0, 0, 1) ** 0.6
    y = 1.5 * GiB + c + ar1(rng, len(t), 0.95, 10 * MiB)
    return dict(t=t, y=pages(y), truth=dict(time_slope=None, kind='plateau', late_slope=0.0))


# ---------------------------------------------------------------- variants (diagnostics, not in the main table)
family('variant: go warm/hold, swing 10 %', 'F13 with the GC sawtooth at 10 % of live')(
    lambda rng: f_goplat(rng, swing=0.10))
family('variant: go warm/hold, swing 25 %, rise after 1.5 h idle', 'F13 with the rise starting at 1.5 h')(
    lambda rng: f_goplat(rng, delay=1.5))
family('variant: on/off Pareto, no in-flight memory', 'F5 without the 5 MiB per req/s working set')(
    lambda rng: f_onoff(rng, inflight=0.0))
family('variant: 512B/req, rate wanders, no counter resets', 'F12 without the exporter resets')(
    lambda rng: f_resets(rng, nresets=0))
family('variant: 512B/req, steady Poisson rate, 2 counter resets', 'F12 with a constant 25 req/s')(
    lambda rng: f_resets(rng, wander=0.0))


def slug(name):
    return ''.join(ch if ch.isalnum() else '_' for ch in name).strip('_')


def main():
    out, s0, s1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    want = set(sys.argv[4:])
    for fi, (name, desc, fn) in enumerate(FAMILIES):
        sl = slug(name)
        if want and sl not in want and name not in want:
            continue
        d = os.path.join(out, sl)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, 'family.json'), 'w') as f:
            json.dump({'name': name, 'desc': desc, 'index': fi}, f)
        for seed in range(s0, s1):
            rng = np.random.default_rng([fi, seed])
            r = fn(rng)
            t, y = r['t'], r['y']
            req = r.get('req')
            base = os.path.join(d, '%04d' % seed)
            with open(base + '.csv', 'w') as f:
                if req is None:
                    f.write('time,footprint\n')
                    f.write(''.join('%.0f,%.0f\n' % (a, b) for a, b in zip(t, y)))
                else:
                    f.write('time,footprint,requests\n')
                    f.write(''.join('%.0f,%.0f,%d\n' % (a, b, c) for a, b, c in zip(t, y, req)))
            if 'mu' in r:
                np.save(base + '.mu.npy', np.vstack([t, r['mu']]))
            with open(base + '.truth.json', 'w') as f:
                json.dump(r['truth'], f)


if __name__ == '__main__':
    main()
