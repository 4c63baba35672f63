#!/usr/bin/python3
"""reference_lf.py - REFERENCE_LF of tests/unit/test_stats.c: dense-matrix
numpy/scipy code of the interval the verdicts use (stats_lowfreq.h),
written apart from the C's O(n) recursions, and the test series it is run
on. `/usr/bin/python3 tests/unit/reference_lf.py` prints every number
test_stats.c compares with (Debian's numpy 1.24 and scipy 1.10)."""
import math
import numpy as np
from scipy import stats, optimize

Q = 24; CLIP = 5.0; CLIP_SHARE = 0.10; SMAX = 8.0; MASS = [1, 1, 0.3, 1]
PLAUSIBLE = 0.05   # LF_PLAUSIBLE_WEIGHT: its interval is held
SCORES_FAR = 3.0; SCORES_SHARE = 0.05; SCORES_KURT = 1.5  # LF_SCORES_*
HET_BLOCKS = 16; HET_MIN = 256; HET_F = 2.646; HET_TRIM = 0.10; HET_FLOOR = 0.05


def het_scale(r):
    """stats_lowfreq.c heteroskedastic_scale(): the noise's scale at each
    point (mean 1) where Brown-Forsythe's test (scipy's levene with the
    median) rejects equal spread of an AR(2) fit's innovations over 16
    runs; else ones."""
    m = len(r); sig = np.ones(m)
    if m < HET_MIN:
        return sig, False
    X = np.column_stack([r[1:-1], r[:-2]]); yv = r[2:]
    a = np.linalg.solve(X.T @ X, X.T @ yv)
    e = yv - X @ a; n = len(e)
    runs = [(k * n // HET_BLOCKS, (k + 1) * n // HET_BLOCKS) for k in range(HET_BLOCKS)]
    F = stats.levene(*[e[lo:hi] for lo, hi in runs], center='median').statistic
    if not F > HET_F:
        return sig, False
    scale = []; centre = []
    for lo, hi in runs:
        a_ = np.sort(np.abs(e[lo:hi])); keep = (hi - lo) - int((hi - lo) * HET_TRIM)
        scale.append(math.sqrt(np.mean(a_[:keep] ** 2))); centre.append(2 + (lo + hi - 1) / 2)
    scale = np.maximum(scale, HET_FLOOR * max(scale))
    sig = np.interp(np.arange(m, dtype=float), centre, scale)
    return sig / sig.mean(), True


def interval(t, x, y, slope, work=False, level=0.95, clip=CLIP,
             clip_share=CLIP_SHARE, scores=True, spread_fixed=False):
    t = np.asarray(t, float); x = np.asarray(x, float); y = np.asarray(y, float)
    n = len(y); r = y - slope * x; med = np.median(r)
    mad = np.median(np.abs(r - med)) * 1.482602218505602; lim = clip * mad
    if np.sum(np.abs(r - med) > lim) > clip_share * n:
        lim = 0.0
    d = np.clip(r - med, -lim, lim) if lim > 0 else r - med
    # normal scores (stats_lowfreq.c normal_scores()): of the residuals
    # less their mean, scaled by their MAD, while at most SCORES_SHARE lie
    # beyond SCORES_FAR robust sd and the steps between neighbours are
    # heavy-tailed (variance over SCORES_KURT x the MAD's Gaussian figure);
    # ties by mid-rank
    e = r - r.mean(); em = np.median(e)
    emad = np.median(np.abs(e - em)) * 1.482602218505602
    de = np.diff(e); dmad = np.median(np.abs(de - np.median(de))) * 1.482602218505602
    heavy = dmad > 0 and np.mean(de * de) > SCORES_KURT * dmad * dmad
    if scores and emad > 0 and heavy and \
            np.sum(np.abs(e - em) > SCORES_FAR * emad) <= SCORES_SHARE * n:
        d = stats.norm.ppf((stats.rankdata(e) - 0.5) / n) * emad
    tau = (t - t[0]) / (t[-1] - t[0]); xm = x.mean(); xs = np.max(np.abs(x - xm))
    rs = np.max(np.abs(d)) or 1.0; xp = (x - xm) / xs; rp = d / rs

    def ortho(B, v):            # Gram-Schmidt twice against B's columns
        for _ in range(2):
            for u in B:
                v = v - (u @ v) * u
        return v
    B = [np.ones(n) / math.sqrt(n)]
    v = ortho(B, xp); xnorm = np.linalg.norm(v); B.append(v / xnorm)
    qmax = min(Q, n - 2); j = 0; cols = []
    while len(cols) < qmax and j < 4 * Q:
        j += 1; c = np.cos(math.pi * j * tau); v = ortho(B, c)
        if np.linalg.norm(v) > 1e-6 * np.linalg.norm(c):
            B.append(v / np.linalg.norm(v)); cols.append(B[-1])
    q = len(cols); A = np.column_stack(B[1:])
    Z = A[:, 1:].T @ rp; zz = Z @ Z
    scales = []; s = SMAX
    while s >= 2.0 / n:
        scales.append(s); s /= 2
    scales = scales[::-1]
    D = np.abs(np.subtract.outer(tau, tau))

    # a spread that changes in time: each model as sig_t v_t (D K D)
    sig = het_scale(rp)[0] if not spread_fixed else np.ones(n)

    def fin(K):
        K = sig[:, None] * K * sig[None, :]
        Om = A.T @ K @ A
        return Om / np.trace(Om[1:, 1:])
    comps = {'white': fin(np.eye(n)), 'walk': fin(np.minimum.outer(tau, tau))}
    if work:
        comps['work'] = fin(np.minimum.outer(xp, xp))
    for k, s in enumerate(scales):
        comps[k] = fin(np.exp(-D / s))
    models = []  # (weights dict, family, workshare)
    models.append(({'white': 1.0}, 0, 0.0))
    for k in list(range(len(scales))) + ['walk']:
        for nu in [0, 0.3, 0.6, 0.9]:
            w = {k: 1 - nu}
            if nu > 0:
                w['white'] = nu
            models.append((w, 2 if nu > 0 else 1, 0.0))
    for de in [0.05, 0.15, 0.25, 0.35, 0.45]:
        for cut in [0.25, 1, SMAX]:
            for nu in [0, 0.5]:
                w = {k: s ** (2 * de - 1) for k, s in enumerate(scales)
                     if s <= cut * 1.0001}
                if not w:
                    continue
                tot = sum(w.values()); w = {k: v * (1 - nu) / tot for k, v in w.items()}
                if nu > 0:
                    w['white'] = nu
                models.append((w, 3, 0.0))
    cnt = [sum(1 for m in models if m[1] == f) for f in range(4)]
    prior = [MASS[m[1]] / cnt[m[1]] for m in models]
    base = len(models)
    if work:
        # as much mass with the work's walk as without, evenly over the
        # shares 1/4, 1/2, 3/4 and alone; each share's copies as their
        # models are weighted without it
        mass = sum(prior); per = 1 / 4
        for ws in [0.25, 0.5, 0.75]:
            for k in range(base):
                w = {c: v * (1 - ws) for c, v in models[k][0].items()}; w['work'] = ws
                models.append((w, models[k][1], ws)); prior.append(prior[k] * per)
        models.append(({'work': 1.0}, 0, 1.0)); prior.append(mass * per)
    zscale = math.sqrt(zz / q); Zs = Z / zscale
    ll = []; ce = []; se = []
    for w, _, _ in models:
        S = sum(v * comps[c] for c, v in w.items())
        L = np.linalg.cholesky(S[1:, 1:] + 1e-12 * np.eye(q))
        a = np.linalg.solve(L, Zs); b = np.linalg.solve(L, S[1:, 0])
        quad = a @ a
        ll.append(-np.sum(np.log(np.diag(L))) - 0.5 * q * math.log(quad))
        ce.append(a @ b); se.append(math.sqrt(max(S[0, 0] - b @ b, 0) * quad / q))
    ll = np.array(ll); w = np.array(prior) * np.exp(ll - ll.max()); w /= w.sum()
    unit = rs / xs / xnorm
    ce = slope - np.array(ce) * zscale * unit; se = np.array(se) * zscale * unit
    cdf = lambda v: float(np.sum(w * stats.t.cdf((v - ce) / se, q)))
    lo = (ce - 50 * se).min(); hi = (ce + 50 * se).max()
    br = lambda p: optimize.brentq(lambda v: cdf(v) - p, lo, hi, xtol=1e-15, rtol=1e-15)
    F0 = cdf(0.0)
    low, high, p = br((1 - level) / 2), br((1 + level) / 2), 2 * min(F0, 1 - F0)
    # every plausible model's own interval held, its p too
    tq = stats.t.ppf((1 + level) / 2, q)
    for k in np.nonzero(w >= PLAUSIBLE)[0]:
        low = min(low, ce[k] - tq * se[k]); high = max(high, ce[k] + tq * se[k])
        z = ce[k] / se[k]
        p = max(p, 2 * min(stats.t.cdf(-z, q), stats.t.cdf(z, q)))
    return low, high, p


def lcg_series(n, seed, phi, trend, sd):
    s = seed; e = 0.0; x = []; y = []
    for t in range(n):
        acc = 0.0
        for _ in range(12):
            s = (s * 6364136223846793005 + 1442695040888963407) % 2**64
            acc += (s >> 11) * 2.0**-53
        e = phi * e + (acc - 6.0)
        x.append(float(t)); y.append(1000.0 + trend * t + sd * e)
    return np.array(x), np.array(y)


class Lcg:
    def __init__(self, s):
        self.s = s

    def u01(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % 2**64
        return (self.s >> 11) * 2.0**-53


def main():
    x = [1, 2, 3, 4, 5]; y = [2, 4, 3, 8, 6]
    print("hand", interval(x, x, y, 1.25))
    tie_x = [1, 2, 2, 3, 4, 4, 5, 5, 6, 6, 6, 7, 9, 9, 9, 9, 12, 12, 13, 14,
             14, 14, 16, 16, 17, 17, 18, 19, 20, 21]
    tie_y = [-4, 9, 17, 21, 21, 17, 12, 12, 6, 10, 14, 17, 29, 27, 32, 37, 45,
             43, 51, 37, 52, 53, 41, 47, 53, 56, 59, 47, 59, 53]
    sl = stats.theilslopes(tie_y, tie_x, 0.95, method='joint')[0]
    print("ties", sl, interval(tie_x, tie_x, tie_y, sl))
    for seed, phi, tr in [(1, 0.8, 0.5), (7, 0.8, 0.0), (42, -0.6, 0.05),
                          (3, 0.98, 0.02)]:
        x, y = lcg_series(200, seed, phi, tr, 3.0)
        sl = stats.theilslopes(y, x)[0]
        print("lcg", seed, repr(sl), interval(x, x, y, sl))
    # the per-request series
    t, y = lcg_series(200, 11, 0.9, 0.0, 3.0)
    g = Lcg(12345); acc = 0.0; w = []
    for i in range(200):
        u = g.u01()
        acc += 0.0 if u < 0.2 else 1.0 + 4.0 * u
        w.append(acc)
    w = np.array(w); y = y + 0.7 * w
    sl = stats.theilslopes(y, w)[0]
    print("work", repr(sl), interval(t, w, y, sl, work=True))
    # clipping
    x, y = lcg_series(200, 5, 0.5, 0.1, 1.0)
    ys = y.copy(); ys[100] += 1000.0
    sl = stats.theilslopes(ys, x)[0]
    print("clip spike", repr(sl), interval(x, x, ys, sl),
          "unclipped", interval(x, x, ys, sl, clip=1e30, scores=False),
          "clipped, no scores", interval(x, x, ys, sl, scores=False))
    ys = y.copy(); ys[:60] -= 50.0
    sl = stats.theilslopes(ys, x)[0]
    print("clip fill", repr(sl), interval(x, x, ys, sl))
    print("  fill if clipped", interval(x, x, ys, sl, clip_share=1.0))
    # heavy tails: every 25th reading (4 %) 8 up or down in turn
    x, y = lcg_series(200, 9, 0.5, 0.1, 1.0)
    yh = y.copy(); yh[::25] += 8.0 * np.array([1, -1] * 4)
    sl = stats.theilslopes(yh, x)[0]
    print("heavy", repr(sl), interval(x, x, yh, sl),
          "without scores", interval(x, x, yh, sl, scores=False))
    # a spread that changes in time: AR(0.5) noise 8x as wide in the
    # middle third, 600 points (heteroskedastic_scale() needs 256)
    x, y = lcg_series(600, 21, 0.5, 0.05, 1.0)
    g = np.where((x >= 200) & (x < 400), 8.0, 1.0)
    yh = 1000.0 + 0.05 * x + (y - 1000.0 - 0.05 * x) * g
    sl = stats.theilslopes(yh, x)[0]
    print("hetero", repr(sl), het_scale((yh - sl * x) / 1.0)[1],
          interval(x, x, yh, sl),
          "spread fixed", interval(x, x, yh, sl, spread_fixed=True))


if __name__ == '__main__':
    main()
