#!/usr/bin/python3
"""Tabulate memtrend's JSON against the truth written by gen.py.

usage: /usr/bin/python3 evaluate.py DATADIR [SEED_END]   (seeds 0..SEED_END-1; default all)

Uses targets[0].slope.{ci95_low,ci95_high} (the interval verdicts use) and
targets[0].per_request.{ci95_low,ci95_high}.
"""
import datetime
import glob
import json
import math
import os
import sys

import numpy as np

MiB = 1024.0 ** 2


def wilson(k, n, z=1.959963984540054):
    if n == 0:
        return (float('nan'),) * 3
    p = k / n
    den = 1 + z * z / n
    c = (p + z * z / (2 * n)) / den
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return c, c - h, c + h


def iso(s):
    return datetime.datetime.strptime(s, '%Y-%m-%dT%H:%M:%SZ').replace(
        tzinfo=datetime.timezone.utc).timestamp()


def judge_cover(k, n):
    c, lo, hi = wilson(k, n)
    ok = hi >= 0.92 and lo <= 0.98 and c >= 0.90
    return ok


def main():
    dd = sys.argv[1]
    send = int(sys.argv[2]) if len(sys.argv) > 2 else 10 ** 9
    rows = []
    details = {}
    for fd in sorted(glob.glob(os.path.join(dd, '*/'))):
        fam = json.load(open(os.path.join(fd, 'family.json')))
        recs = []
        for tj in sorted(glob.glob(os.path.join(fd, '*.truth.json'))):
            seed = int(os.path.basename(tj)[:4])
            if seed >= send:
                continue
            jf = tj.replace('.truth.json', '.csv.json')
            if not os.path.exists(jf):
                continue
            truth = json.load(open(tj))
            tg = json.load(open(jf))['targets'][0]
            s = tg['slope']
            pr = tg['per_request']
            r = dict(seed=seed, verdict=tg['verdict'], immaterial=tg['immaterial'],
                     concern=tg['concern_bytes_per_hour'], reasons=tg['reasons'])
            ts = truth.get('time_slope')
            if ts == 'window':
                mu = np.load(tj.replace('.truth.json', '.mu.npy'))
                w0 = iso(s['window_start'])
                m = mu[0] >= w0 - 0.5
                ts = float(np.polyfit((mu[0][m] - mu[0][0]) / 3600.0, mu[1][m], 1)[0])
                r['truth_used'] = ts
            if ts is not None and s is not None:
                r['tcov'] = s['ci95_low'] <= ts <= s['ci95_high']
                r['slope'] = (s['bytes_per_hour'], s['ci95_low'], s['ci95_high'], s['on_cycle_floors'],
                              s['between_steps'], s['window_start'])
                r['truth_t'] = ts
                mf = tj.replace('.truth.json', '.mu.npy')
                if truth.get('time_slope') != 'window' and os.path.exists(mf):
                    mu = np.load(mf)
                    m = mu[0] >= iso(s['window_start']) - 0.5
                    v = float(np.polyfit((mu[0][m] - mu[0][0]) / 3600.0, mu[1][m], 1)[0])
                    r['tcov_mean_path_in_window'] = s['ci95_low'] <= v <= s['ci95_high']
                    r['truth_path'] = v
                for k, v in (truth.get('time_slope_alt') or {}).items():
                    r['tcov_' + k] = s['ci95_low'] <= v <= s['ci95_high']
            elif ts is not None:
                r['tcov'] = False
            if truth.get('pr_slope') is not None:
                if pr is None:
                    r['pcov'] = False
                else:
                    r['pcov'] = pr['ci95_low'] <= truth['pr_slope'] <= pr['ci95_high']
                    r['pr'] = (pr['bytes_per_request'], pr['ci95_low'], pr['ci95_high'],
                               pr['concern_bytes_per_request'])
            if pr is not None:
                r['pr_any'] = (pr['bytes_per_request'], pr['ci95_low'], pr['ci95_high'])
            if truth.get('kind') == 'plateau' and tg['plateau']:
                late = tg['plateau']['late']
                r['late_cov'] = late['ci95_low'] <= truth['late_slope'] <= late['ci95_high']
            # stable on growth above the concern
            above = False
            rs = truth.get('rate_for_stable')
            if rs is not None and tg['concern_bytes_per_hour'] is not None and rs > tg['concern_bytes_per_hour']:
                above = True
            if truth.get('pr_slope') is not None and pr is not None and pr['concern_bytes_per_request'] \
                    and truth['pr_slope'] > pr['concern_bytes_per_request']:
                above = True
            r['above'] = above
            r['kind'] = truth['kind']
            recs.append(r)
        n = len(recs)
        if n == 0:
            continue
        cnt = {v: sum(1 for r in recs if r['verdict'] == v) for v in ('growing', 'plateau', 'stable', 'inconclusive')}
        kind = recs[0]['kind']
        row = dict(name=fam['name'], desc=fam['desc'], n=n, cnt=cnt, kind=kind, targets=[])
        tc = [r['tcov'] for r in recs if 'tcov' in r]
        if tc:
            k = sum(tc)
            row['tcov'] = (k, len(tc))
            row['targets'].append('cover ' + ('PASS' if judge_cover(k, len(tc)) else 'MISS'))
            alts = sorted({key for r in recs for key in r if key.startswith('tcov_')})
            row['alt'] = {a: sum(r.get(a, False) for r in recs) for a in alts}
        pc = [r['pcov'] for r in recs if 'pcov' in r]
        if pc:
            k = sum(pc)
            row['pcov'] = (k, len(pc))
            row['targets'].append('prcover ' + ('PASS' if judge_cover(k, len(pc)) else 'MISS'))
        lc = [r['late_cov'] for r in recs if 'late_cov' in r]
        if lc:
            row['late'] = (sum(lc), len(lc))
        if kind == 'flat':
            c, lo, hi = wilson(cnt['growing'], n)
            row['targets'].append('grow ' + ('PASS' if lo <= 0.05 else 'MISS'))
            c, lo, hi = wilson(cnt['plateau'], n)
            row['targets'].append('plat ' + ('PASS' if lo <= 0.05 else 'MISS'))
        if kind in ('leak', 'decelerating'):
            c, lo, hi = wilson(cnt['plateau'], n)
            row['targets'].append('plat ' + ('PASS' if lo <= 0.05 else 'MISS'))
            st = sum(1 for r in recs if r['above'] and r['verdict'] == 'stable')
            na = sum(1 for r in recs if r['above'])
            row['stable_above'] = (st, na)
            if na:
                row['targets'].append('stable ' + ('PASS' if st == 0 else 'MISS'))
        if kind == 'plateau':
            c, lo, hi = wilson(cnt['plateau'], n)
            row['targets'].append('plat-found ' + ('PASS' if hi >= 0.90 else 'MISS'))
        rows.append(row)
        details[fam['name']] = recs

    def pct(k, n):
        return '%.1f' % (100.0 * k / n) if n else '-'

    print('| family | seeds | time cover % [Wilson] | per-req cover % | growing % | plateau % | stable % | inconcl % | stable on leak>concern | targets |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for row in rows:
        n = row['n']
        if 'tcov' in row:
            k, m = row['tcov']
            c, lo, hi = wilson(k, m)
            tcs = '%s [%.1f-%.1f]' % (pct(k, m), 100 * lo, 100 * hi)
            if row.get('alt'):
                tcs += ' (' + ', '.join('%s %s' % (a[5:], pct(v, m)) for a, v in row['alt'].items()) + ')'
        else:
            tcs = 'n/a'
        if 'pcov' in row:
            k, m = row['pcov']
            c, lo, hi = wilson(k, m)
            pcs = '%s [%.1f-%.1f]' % (pct(k, m), 100 * lo, 100 * hi)
        else:
            pcs = 'n/a'
        sa = row.get('stable_above')
        sas = '%d of %d' % sa if sa and sa[1] else 'n/a'
        cn = row['cnt']
        extra = ''
        if 'late' in row:
            extra = ' (late-slope interval covers 0: %d/%d)' % row['late']
        print('| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s%s |' % (
            row['name'], n, tcs, pcs, pct(cn['growing'], n), pct(cn['plateau'], n), pct(cn['stable'], n),
            pct(cn['inconclusive'], n), sas, ', '.join(row['targets']), extra))
    with open(os.path.join(dd, 'details.json'), 'w') as f:
        json.dump(details, f, indent=0, default=str)


if __name__ == '__main__':
    main()
