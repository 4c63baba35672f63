/*
 * test_idle.c - idle.c: the counter increase as a table of raw -> expected
 * cumulative work; idle windows and the growth split on synthetic series
 * built in code with a known ground truth; and the same on a CSV fixture
 * read through csv.c.
 *
 * The synthetic series (build()) sample every dt seconds from T0 and are
 * made of segments: STARTUP (no request completes, no connection, the
 * footprint climbs 64 MiB a sample: loading), ACTIVE (one request completes
 * per sample, 2 connections, +1 MiB a sample) and IDLE (no request, no
 * connection, -4 KiB a sample). Times below are offsets from T0 in
 * seconds; point i sits at offset dt * i. An idle stretch [S, E) of the
 * ground truth shows as the window [S, E - dt]: its first point is the
 * first idle sample (the last active one still has connections) and its
 * last point the sample before work resumes, so both ends are within one
 * sample of the truth. Expected figures are hand computations, noted per
 * test.
 *
 * The fixture csv/idle-windows.csv (15 s sampling, 2 h from
 * 2026-05-01T02:00:00Z = 1777600800, `date -u -d 2026-05-01T02:00:00Z +%s`)
 * was written by this Python 3 script, `python3 gen.py > idle-windows.csv`:
 *
 *   T, KiB, MiB = 1777600800, 1024, 1 << 20   # 2026-05-01T02:00:00Z
 *   def kind(off):
 *       if off < 300: return 'startup'
 *       if any(a <= off < b for a, b in ((1800, 2700), (3600, 3645),
 *                                        (5400, 7201))): return 'idle'
 *       return 'active'
 *   fp, req = 512 * MiB, 0
 *   print('time,footprint,requests,connections')
 *   for i in range(481):
 *       off = 15 * i; k = kind(off)
 *       if i:
 *           fp += {'startup': 16 * MiB, 'active': 256 * KiB,
 *                  'idle': -4 * KiB}[k]
 *           if k == 'active': req = 1 if off == 3000 else req + 2
 *       conn = 1 if off == 2250 else (3 if k == 'active' else 0)
 *       cell = '%dMiB' % (fp // MiB) if fp % MiB == 0 else str(fp)
 *       print(T + off, '' if i == 360 else cell, '' if i == 80 else req,
 *             '' if 420 <= i < 426 else conn, sep=',')
 *
 * Its known idle windows (row i at offset 15 i):
 *  - rows 0..19 (0..285 s): startup, no request: warm-up (the first
 *    request is seen at row 20, 300 s), so not a window;
 *  - rows 120..179, [1800, 2685]: 885 s, with a stray connection at row
 *    150 (59 of 60 points without: 98.3 %); decline 59 * 4 KiB = 236 KiB;
 *  - rows 240..242, [3600, 3630]: 30 s, too short;
 *  - rows 360..480, [5400, 7200]: 1800 s up to the end; the footprint cell
 *    of row 360 is blank, so the window's start footprint is row 361's
 *    (927985664): decline 119 * 4 KiB = 476 KiB; connections blank in rows
 *    420..425 (unknown, not connected).
 * The requests counter resets at row 200 (240 -> 1) and is blank at row 80
 * (inside activity): work total = 2 * 277 active rows - 1 = 553.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"
#include "fixture.h"
#include "idle.h"
#include "series.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define T0 1777600800.0   /* 2026-05-01T02:00:00Z */

static void assert_close(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= fabs(want) * 1e-12 + 1e-6)) {
		print_error("%s: got %.17g, want %.17g\n", what, got, want);
		fail();
	}
}

/* ---- idle_work_increase ---------------------------------------- */

#define MAXN 8

struct increase_case {
	const char *name;
	size_t n;
	double raw[MAXN];
	double want[MAXN];
	double total;
};

static const struct increase_case increase_cases[] = {
	{"plain", 5, {0, 1, 3, 3, 10}, {0, 1, 3, 3, 10}, 10},
	{"starts above zero", 3, {100, 101, 105}, {0, 1, 5}, 5},
	/* 8 -> 2: a reset, the 2 counts as the increase since it */
	{"reset", 4, {5, 8, 2, 4}, {0, 3, 5, 7}, 7},
	{"reset to zero", 4, {5, 8, 0, 1}, {0, 3, 3, 4}, 4},
	{"two resets", 6, {10, 20, 5, 6, 1, 3}, {0, 10, 15, 16, 17, 19}, 19},
	/* a 32-bit wrap is a reset like any other: counts 5, not 6 */
	{"wrap", 4, {4294967290.0, 4294967295.0, 5, 10}, {0, 5, 10, 15}, 15},
	/* the increase across a gap: between 1 and 4 */
	{"gap", 5, {1, NAN, NAN, 4, 5}, {0, NAN, NAN, 3, 4}, 4},
	{"reset inside a gap", 3, {10, NAN, 3}, {0, NAN, 3}, 3},
	{"leading gaps", 4, {NAN, NAN, 7, 9}, {NAN, NAN, 0, 2}, 2},
	{"trailing gap", 3, {1, 2, NAN}, {0, 1, NAN}, 1},
	{"infinite is missing", 3, {1, INFINITY, 2}, {0, NAN, 1}, 1},
	{"all missing", 3, {NAN, NAN, NAN}, {NAN, NAN, NAN}, 0},
	{"one point", 1, {42}, {0}, 0},
	{"flat", 4, {7, 7, 7, 7}, {0, 0, 0, 0}, 0},
	{"empty", 0, {0}, {0}, 0},
};

static void test_work_counter_increase(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(increase_cases) /
			       sizeof(increase_cases[0]); c++) {
		const struct increase_case *k = &increase_cases[c];
		double out[MAXN];
		for (size_t i = 0; i < MAXN; i++)
			out[i] = -1;
		double total = idle_work_increase(k->raw, k->n, out);
		for (size_t i = 0; i < k->n; i++) {
			bool ok = isnan(k->want[i]) ? isnan(out[i]) :
						      out[i] == k->want[i];
			if (!ok) {
				print_error("%s: out[%zu] = %g, want %g\n",
					    k->name, i, out[i], k->want[i]);
				fail();
			}
		}
		for (size_t i = k->n; i < MAXN; i++)
			assert_true(out[i] == -1);   /* nothing past n */
		if (total != k->total) {
			print_error("%s: total %g, want %g\n", k->name, total,
				    k->total);
			fail();
		}
	}
	/* raw NULL: every point a gap */
	double out[3];
	assert_true(idle_work_increase(NULL, 3, out) == 0);
	for (size_t i = 0; i < 3; i++)
		assert_true(isnan(out[i]));
}

/* ---- synthetic series --------------------------------------------- */

enum kind { STARTUP, ACTIVE, IDLE };

struct seg {
	double from;               /* offset it starts at; runs to the next */
	enum kind kind;
};

struct scenario {
	double dt, end;            /* sampling and last offset, s */
	double base;               /* footprint of the first point */
	const struct seg *segs;
	size_t n_segs;
	double restart_at;         /* offset of a restart; NAN = none. The
				      restarted process starts at 1 GiB
				      with its counter at 0. */
	bool no_connections;
};

static enum kind kind_at(const struct scenario *sc, double off)
{
	enum kind k = sc->segs[0].kind;
	for (size_t j = 0; j < sc->n_segs; j++)
		if (sc->segs[j].from <= off)
			k = sc->segs[j].kind;
	return k;
}

static void build(const struct scenario *sc, struct series *s)
{
	series_init(s, "idle");
	s->quantum = 4096;
	s->quantum_exact = true; /* a recording: pages */
	uint32_t inc = series_add_incarnation(s, 100, 1, NAN, "svc", NULL);
	size_t n = (size_t)(sc->end / sc->dt) + 1;
	double fp = sc->base, req = 1000;
	for (size_t i = 0; i < n; i++) {
		double off = sc->dt * (double)i;
		enum kind k = kind_at(sc, off);
		if (off == sc->restart_at) {
			inc = series_add_incarnation(s, 200, 2, NAN, "svc",
						     NULL);
			fp = 1 * GiB;
			req = 0;
		} else if (i > 0) {
			fp += k == STARTUP ? 64 * MiB :
			      k == ACTIVE ? 1 * MiB : -4 * KiB;
			req += k == ACTIVE;
		}
		size_t p = series_append(s, T0 + off, fp, inc);
		series_set_requests(s, p, req);
		if (!sc->no_connections)
			series_set_connections(s, p, k == ACTIVE ? 2 : 0);
	}
}

static size_t at(const struct scenario *sc, double off)
{
	return (size_t)(off / sc->dt);
}

static struct idle_options opts(double warmup_s, double min_s)
{
	struct idle_options o;
	idle_options_default(&o);
	o.warmup_s = warmup_s;
	o.min_s = min_s;
	o.resolution = 4096;
	return o;
}

/* Windows of s with its requests turned into work (or no work). */
static void compute(const struct series *s, const struct idle_options *o,
		    bool with_work, struct idle_findings *f)
{
	double *work = NULL;
	if (with_work && s->requests) {
		work = malloc(s->n * sizeof(double));
		assert_non_null(work);
		idle_work_increase(s->requests, s->n, work);
	}
	idle_findings_compute(s, work, o, f);
	free(work);
}

struct span {
	double start, end;         /* offsets from T0 */
};

/* The windows are exactly want (in order), and the findings hang
 * together: indices match times, one incarnation each, time order, no
 * overlap, declines and summary figures agree with the windows, and the
 * growth split adds up. */
static void check_windows(const char *what, const struct series *s,
			  const struct idle_findings *f,
			  const struct span *want, size_t n_want)
{
	if (f->n != n_want) {
		print_error("%s: %zu windows, want %zu\n", what, f->n, n_want);
		for (size_t k = 0; k < f->n; k++)
			print_error("  [%g, %g]\n", f->windows[k].start - T0,
				    f->windows[k].end - T0);
		fail();
	}
	double longest = 0, idle = 0;
	for (size_t k = 0; k < f->n; k++) {
		const struct idle_window *w = &f->windows[k];
		if (w->start != T0 + want[k].start ||
		    w->end != T0 + want[k].end) {
			print_error("%s: window %zu is [%g, %g], want "
				    "[%g, %g]\n", what, k, w->start - T0,
				    w->end - T0, want[k].start, want[k].end);
			fail();
		}
		assert_true(w->first < w->last && w->last < s->n);
		assert_true(s->t[w->first] == w->start);
		assert_true(s->t[w->last] == w->end);
		assert_int_equal(s->inc[w->first], w->inc);
		assert_int_equal(s->inc[w->last], w->inc);
		if (k > 0)
			assert_true(f->windows[k - 1].last < w->first);
		if (!isnan(w->decline))
			assert_true(w->decline == w->fp_start - w->fp_end);
		longest = fmax(longest, w->end - w->start);
		idle += w->end - w->start;
	}
	assert_true(f->longest_s == longest);
	assert_close(f->idle_s, idle, "idle_s");
	assert_close(f->growth_warmup + f->growth_idle + f->growth_active,
		     f->growth_net, "warmup + idle + active = net");
	if (f->n == 0) {
		assert_true(f->largest_decline_index == SIZE_MAX);
		assert_true(isnan(f->largest_decline));
	}
}

/* No window holds a point where requests completed or connections were
 * open (only meaningful with connections recorded). */
static void check_no_active_inside(const struct scenario *sc,
				   const struct idle_findings *f)
{
	for (size_t k = 0; k < f->n; k++)
		for (size_t i = f->windows[k].first; i <= f->windows[k].last;
		     i++)
			assert_true(kind_at(sc, sc->dt * (double)i) != ACTIVE);
}

/*
 * Four hours at 10 s with traffic bursts. Ground truth (offsets, s):
 *   [0, 180)        startup: loading, no request yet (warm-up)
 *   [180, 3600)     active
 *   [3600, 3900)    idle 5 min    -> window [3600, 3890]
 *   [3900, 7200)    active
 *   [7200, 7230)    idle 0.5 min  -> too short (20 s between its points)
 *   [7230, 9000)    active
 *   [9000, 10200)   idle 20 min   -> window [9000, 10190]
 *   [10200, 14400]  active
 */
static const struct seg bursts_segs[] = {
	{0, STARTUP}, {180, ACTIVE}, {3600, IDLE}, {3900, ACTIVE},
	{7200, IDLE}, {7230, ACTIVE}, {9000, IDLE}, {10200, ACTIVE},
};
static const struct scenario bursts = {
	10, 14400, 1 * GiB, bursts_segs, 8, NAN, false,
};

static void test_bursts(void **state)
{
	(void)state;
	struct series s;
	build(&bursts, &s);
	assert_int_equal(s.n, 1441);
	struct idle_options o = opts(NAN, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	compute(&s, &o, true, &f);
	static const struct span want[] = {{3600, 3890}, {9000, 10190}};
	check_windows("bursts", &s, &f, want, 2);
	check_no_active_inside(&bursts, &f);
	/* Within one sample of the truth. */
	static const struct span truth[] = {{3600, 3900}, {9000, 10200}};
	for (size_t k = 0; k < 2; k++) {
		assert_true(fabs(f.windows[k].start - T0 - truth[k].start) <=
			    bursts.dt);
		assert_true(fabs(f.windows[k].end - T0 - truth[k].end) <=
			    bursts.dt);
	}
	assert_true(f.work_known);
	/* Declines: 29 and 119 idle steps of 4 KiB inside the windows. */
	assert_true(f.windows[0].decline == 29 * 4 * KiB);
	assert_true(f.windows[1].decline == 119 * 4 * KiB);
	assert_true(f.windows[0].fp_start == s.footprint[at(&bursts, 3600)]);
	assert_true(f.windows[1].fp_end == s.footprint[at(&bursts, 10190)]);
	assert_true(f.longest_s == 1190);
	assert_true(f.largest_decline == 476 * KiB);
	assert_int_equal(f.largest_decline_index, 1);
	/* 476 KiB < 1 % of ~3.4 GiB: nothing given back. */
	assert_false(f.released);
	/*
	 * Growth by hand. Points: 17 startup steps (+64 MiB), 1270 active
	 * points (+1 MiB each; the first, at 180 s, is the warm-up end),
	 * 153 idle points (-4 KiB): 30 + 3 + 120.
	 *   net    = 17*64 MiB + 1270 MiB - 153*4 KiB = 2358 MiB - 612 KiB
	 *   warmup = fp(180) - fp(0) = 1088 MiB + 1 MiB = 1089 MiB
	 *   idle   = -(29 + 119)*4 KiB = -592 KiB
	 *   active = 1269 MiB - 5*4 KiB (the first idle step of each
	 *            5-min and 20-min stretch, and the 3 of the short one)
	 * Time: warm-up 180 s, idle 290 + 1190 = 1480 s, active 14400 - 180
	 * - 1480 = 12740 s. Work: 1270 requests, 1269 after the warm-up.
	 */
	assert_close(f.growth_net, 2358 * MiB - 612 * KiB, "net");
	assert_close(f.growth_warmup, 1089 * MiB, "warmup");
	assert_close(f.growth_idle, -592 * KiB, "idle");
	assert_close(f.growth_active, 1269 * MiB - 20 * KiB, "active");
	assert_close(f.warmup_s, 180, "warmup_s");
	assert_close(f.idle_s, 1480, "idle_s");
	assert_close(f.active_s, 12740, "active_s");
	assert_close(f.work_total, 1270, "work_total");
	assert_close(f.work_active, 1269, "work_active");
	idle_findings_release(&f);
	assert_null(f.windows);
	assert_int_equal(f.n, 0);
	series_release(&s);
}

/* The same series under other warm-ups and minimum durations. */
struct option_case {
	const char *name;
	double warmup_s, min_s;
	size_t n;
	struct span want[3];
};

static const struct option_case option_cases[] = {
	{"default", NAN, 60, 2, {{3600, 3890}, {9000, 10190}}},
	/* no warm-up: the startup [0, 170] is as idle as any */
	{"warmup 0", 0, 60, 3, {{0, 170}, {3600, 3890}, {9000, 10190}}},
	{"warmup 100 s", 100, 60, 3, {{100, 170}, {3600, 3890},
				      {9000, 10190}}},
	/* [120, 170] is only 50 s */
	{"warmup 120 s", 120, 60, 2, {{3600, 3890}, {9000, 10190}}},
	/* a warm-up ending inside an idle stretch cuts the window */
	{"warmup 3700 s", 3700, 60, 2, {{3700, 3890}, {9000, 10190}}},
	{"min 20 s", NAN, 20, 3, {{3600, 3890}, {7200, 7220},
				  {9000, 10190}}},
	{"min 1190 s", NAN, 1190, 1, {{9000, 10190}}},
	{"min 1191 s", NAN, 1191, 0, {{0, 0}}},
};

static void test_bursts_options(void **state)
{
	(void)state;
	struct series s;
	build(&bursts, &s);
	for (size_t c = 0; c < sizeof(option_cases) /
			       sizeof(option_cases[0]); c++) {
		const struct option_case *k = &option_cases[c];
		struct idle_options o = opts(k->warmup_s, k->min_s);
		struct idle_findings f;
		compute(&s, &o, true, &f);
		check_windows(k->name, &s, &f, k->want, k->n);
		check_no_active_inside(&bursts, &f);
		idle_findings_release(&f);
	}
	series_release(&s);
}

/*
 * The default warm-up is capped at 10 minutes: the first request comes
 * at 900 s, so the warm-up ends at 600 s and the rest of the startup
 * stretch, [600, 890], is a window (its footprint still climbs: loading
 * shows up as idle growth, which is why warm-up is excluded at all).
 *   [0, 900) startup, [900, 1800) active, [1800, 2400) idle, [2400, 3000]
 * Growth: 89 startup steps (+64 MiB), 151 active (+1 MiB), 60 idle
 * (-4 KiB): net = 89*64 MiB + 151 MiB - 240 KiB; warmup = fp(600) -
 * fp(0) = 60*64 MiB; idle = 29*64 MiB (window 1) - 59*4 KiB (window 2);
 * active = 151 MiB - 4 KiB (the first idle step at 1800 s).
 */
static void test_default_warmup_cap(void **state)
{
	(void)state;
	static const struct seg segs[] = {
		{0, STARTUP}, {900, ACTIVE}, {1800, IDLE}, {2400, ACTIVE},
	};
	static const struct scenario sc = {10, 3000, 1 * GiB, segs, 4, NAN,
					   false};
	struct series s;
	build(&sc, &s);
	struct idle_options o = opts(NAN, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	compute(&s, &o, true, &f);
	static const struct span want[] = {{600, 890}, {1800, 2390}};
	check_windows("warm-up cap", &s, &f, want, 2);
	assert_true(f.windows[0].decline == -29 * 64 * MiB);
	assert_close(f.growth_net, 89 * 64 * MiB + 151 * MiB - 240 * KiB,
		     "net");
	assert_close(f.growth_warmup, 60 * 64 * MiB, "warmup");
	assert_close(f.growth_idle, 29 * 64 * MiB - 236 * KiB, "idle");
	assert_close(f.growth_active, 151 * MiB - 4 * KiB, "active");
	assert_close(f.warmup_s, 600, "warmup_s");
	assert_int_equal(f.largest_decline_index, 1);   /* 236 KiB */
	idle_findings_release(&f);

	/* An explicit warm-up up to the first request drops the window. */
	o = opts(900, IDLE_DEFAULT_MIN_S);
	compute(&s, &o, true, &f);
	check_windows("warm-up 900 s", &s, &f, want + 1, 1);
	idle_findings_release(&f);
	series_release(&s);
}

/* No work counter: no windows; growth splits into the default 10-min
 * warm-up and the rest. fp(600) - fp(0) = 17*64 MiB + 43 MiB (active
 * points 180..600 s) = 1131 MiB; net as in test_bursts. */
static void test_no_work(void **state)
{
	(void)state;
	struct series s;
	build(&bursts, &s);
	struct idle_options o = opts(NAN, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	compute(&s, &o, false, &f);
	assert_false(f.work_known);
	check_windows("no work", &s, &f, NULL, 0);
	assert_null(f.windows);
	assert_true(f.longest_s == 0);
	assert_false(f.released);
	assert_close(f.growth_net, 2358 * MiB - 612 * KiB, "net");
	assert_close(f.growth_warmup, 1131 * MiB, "warmup");
	assert_true(f.growth_idle == 0);
	assert_close(f.growth_active, 1227 * MiB - 612 * KiB, "active");
	assert_close(f.warmup_s, 600, "warmup_s");
	assert_close(f.active_s, 13800, "active_s");
	assert_true(f.work_total == 0 && f.work_active == 0);
	idle_findings_release(&f);

	/* A counter that was never read (all missing) is the same. */
	for (size_t i = 0; i < s.n; i++)
		s.requests[i] = NAN;
	compute(&s, &o, true, &f);
	assert_false(f.work_known);
	check_windows("requests all missing", &s, &f, NULL, 0);
	assert_close(f.growth_warmup, 1131 * MiB, "warmup");
	idle_findings_release(&f);
	series_release(&s);
}

/*
 * Connections and the 98 % tolerance, 10 s sampling, no warm-up:
 *   [0, 600) active
 *   [600, 3000) idle 40 min: one stray connected sample at 1500 and
 *       unknown connections at 2000..2090: not split (229 of 230 known
 *       points without: 99.6 %)          -> [600, 2990]
 *   [3000, 3600) active
 *   [3600, 5400) idle 30 min with a sustained 2-min connection run at
 *       4200..4310 (12 samples): split   -> [3600, 4190], [4320, 5390]
 *   [5400, 6000) active
 *   [6000, 16800) idle 3 h with
 *     - stray samples at 6020 and 6050: the two short pieces in front
 *       fail the fraction together (4 of 5) but join once the long piece
 *       behind them is merged (298 of 300);
 *     - a 70 s connection run at 9000..9070 (8 samples): the whole
 *       stretch would still have 1067 of 1080 points without (98.8 %),
 *       but a run of IDLE_BRIDGE_MAX_S or more is a session: split;
 *     - a 20 s run at 12000..12020 (3 samples): bridged (769 of 772)
 *                                        -> [6000, 8990], [9080, 16790]
 *   [16800, 17400] active
 */
static const struct seg conn_segs[] = {
	{0, ACTIVE}, {600, IDLE}, {3000, ACTIVE}, {3600, IDLE},
	{5400, ACTIVE}, {6000, IDLE}, {16800, ACTIVE},
};

static void set_conn(struct series *s, const struct scenario *sc,
		     double from, double to, double v)
{
	for (size_t i = at(sc, from); i <= at(sc, to); i++)
		s->connections[i] = v;
}

static void test_connections(void **state)
{
	(void)state;
	static const struct scenario sc = {10, 17400, 1 * GiB, conn_segs, 7,
					   NAN, false};
	struct series s;
	build(&sc, &s);
	set_conn(&s, &sc, 1500, 1500, 1);
	set_conn(&s, &sc, 2000, 2090, NAN);
	set_conn(&s, &sc, 4200, 4310, 1);
	set_conn(&s, &sc, 6020, 6020, 3);
	set_conn(&s, &sc, 6050, 6050, 1);
	set_conn(&s, &sc, 9000, 9070, 1);
	set_conn(&s, &sc, 12000, 12020, 1);
	struct idle_options o = opts(0, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	compute(&s, &o, true, &f);
	static const struct span want[] = {
		{600, 2990}, {3600, 4190}, {4320, 5390}, {6000, 8990},
		{9080, 16790},
	};
	check_windows("connections", &s, &f, want, 5);
	check_no_active_inside(&sc, &f);
	idle_findings_release(&f);

	/* Without connections the work rule alone decides: each window
	 * starts at the last sample whose count rose. */
	static const struct scenario bare = {10, 17400, 1 * GiB, conn_segs, 7,
					     NAN, true};
	struct series b;
	build(&bare, &b);
	assert_null(b.connections);
	compute(&b, &o, true, &f);
	static const struct span want_bare[] = {
		{590, 2990}, {3590, 5390}, {5990, 16790},
	};
	check_windows("no connections", &b, &f, want_bare, 3);
	idle_findings_release(&f);

	/* Connections recorded but all unknown: the same. */
	for (size_t i = 0; i < s.n; i++)
		s.connections[i] = NAN;
	compute(&s, &o, true, &f);
	check_windows("connections unknown", &s, &f, want_bare, 3);
	idle_findings_release(&f);
	series_release(&b);
	series_release(&s);
}

/* 98 % exactly: an idle stretch of 50 points with one connected sample
 * keeps 49/50 = 98 % and stays whole; of 49 points, 48/49 = 97.96 %
 * splits it in two. */
static void test_fraction_boundary(void **state)
{
	(void)state;
	for (int len = 49; len <= 50; len++) {
		double idle_end = 300 + 10.0 * len;
		const struct seg segs[] = {
			{0, ACTIVE}, {300, IDLE}, {idle_end, ACTIVE},
		};
		const struct scenario sc = {10, idle_end + 300, 1 * GiB, segs,
					    3, NAN, false};
		struct series s;
		build(&sc, &s);
		set_conn(&s, &sc, 540, 540, 1);
		struct idle_options o = opts(0, IDLE_DEFAULT_MIN_S);
		struct idle_findings f;
		compute(&s, &o, true, &f);
		if (len == 50) {
			static const struct span want[] = {{300, 790}};
			check_windows("49 of 50", &s, &f, want, 1);
		} else {
			static const struct span want[] = {{300, 530},
							   {550, 780}};
			check_windows("48 of 49", &s, &f, want, 2);
		}
		idle_findings_release(&f);
		series_release(&s);
	}
}

/*
 * Two incarnations, restart at 1800 s (the counter restarts at 0, which
 * the increase counts as 0: the work array is flat across the restart, so
 * only the incarnation boundary keeps the windows apart).
 *   inc 0: [0, 1200) active from 2 GiB, [1200, 1790] idle
 *   inc 1: 1 GiB at 1800, [1800, 2100) startup, [2100, 2700) active,
 *          [2700, 3000) idle, [3000, 3600] active
 * Default warm-ups: inc 0 until 10 s (its first increase), inc 1 until
 * 2100 s. By hand, per incarnation:
 *   inc 0: net = 119 MiB - 60*4 KiB; warmup 1 MiB; idle -59*4 KiB;
 *          active 118 MiB - 4 KiB
 *   inc 1: net = 29*64 MiB + 121 MiB - 30*4 KiB; warmup 29*64 MiB +
 *          1 MiB; idle -29*4 KiB; active 120 MiB - 4 KiB
 *   sums:  net 2096 MiB - 360 KiB, warmup 1858 MiB, idle -352 KiB,
 *          active 238 MiB - 8 KiB. The 1 GiB+ drop at the restart is in
 *          none of them.
 * Time: warm-up 10 + 300, idle 590 + 290, active (1790 - 10 - 590) +
 * (3600 - 2100 - 290) = 1190 + 1210. Work: 119 + 0 (reset) + 121 = 240;
 * active 118 + 120.
 */
static void test_two_incarnations(void **state)
{
	(void)state;
	static const struct seg segs[] = {
		{0, ACTIVE}, {1200, IDLE}, {1800, STARTUP}, {2100, ACTIVE},
		{2700, IDLE}, {3000, ACTIVE},
	};
	static const struct scenario sc = {10, 3600, 2 * GiB, segs, 6, 1800,
					   false};
	struct series s;
	build(&sc, &s);
	assert_int_equal(s.n_incs, 2);
	struct idle_options o = opts(NAN, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	compute(&s, &o, true, &f);
	static const struct span want[] = {{1200, 1790}, {2700, 2990}};
	check_windows("two incarnations", &s, &f, want, 2);
	assert_int_equal(f.windows[0].inc, 0);
	assert_int_equal(f.windows[1].inc, 1);
	assert_close(f.growth_net, 2096 * MiB - 360 * KiB, "net");
	assert_true(f.growth_net != s.footprint[s.n - 1] - s.footprint[0]);
	assert_close(f.growth_warmup, 1858 * MiB, "warmup");
	assert_close(f.growth_idle, -352 * KiB, "idle");
	assert_close(f.growth_active, 238 * MiB - 8 * KiB, "active");
	assert_close(f.warmup_s, 310, "warmup_s");
	assert_close(f.idle_s, 880, "idle_s");
	assert_close(f.active_s, 2400, "active_s");
	assert_close(f.work_total, 240, "work_total");
	assert_close(f.work_active, 238, "work_active");
	idle_findings_release(&f);

	/* No warm-up: inc 1's startup is a window of its own, starting at
	 * the restart, never joined to inc 0's idle end. Its +29*64 MiB now
	 * counts as idle growth. */
	o = opts(0, IDLE_DEFAULT_MIN_S);
	compute(&s, &o, true, &f);
	static const struct span want0[] = {
		{1200, 1790}, {1800, 2090}, {2700, 2990},
	};
	check_windows("two incarnations, no warm-up", &s, &f, want0, 3);
	assert_int_equal(f.windows[0].inc, 0);
	assert_int_equal(f.windows[1].inc, 1);
	assert_true(f.growth_warmup == 0);
	assert_close(f.growth_idle, 1856 * MiB - 352 * KiB, "idle");
	assert_close(f.growth_active, 240 * MiB - 8 * KiB, "active");
	assert_close(f.idle_s, 1170, "idle_s");
	assert_close(f.active_s, 2420, "active_s");
	idle_findings_release(&f);
	series_release(&s);
}

/*
 * Missing values, no warm-up: [0, 300) active, [300, 1500) idle, [1500,
 * 1800] active. The requests are missing at 900..920 (unknown is not
 * idle: two windows), the footprint at 300 and 1490 (the windows' own
 * ends: the nearest known inside is used).
 *   window [300, 890]: fp(310) - fp(890) = (60 - 2)*4 KiB = 232 KiB
 *   window [930, 1490]: fp(930) - fp(1480) = (119 - 64)*4 KiB = 220 KiB
 * Growth: net = 29 MiB - 120*4 KiB + 31 MiB = 60 MiB - 480 KiB; idle
 * -452 KiB; active 60 MiB - 28 KiB.
 */
static void test_gaps(void **state)
{
	(void)state;
	static const struct seg segs[] = {
		{0, ACTIVE}, {300, IDLE}, {1500, ACTIVE},
	};
	static const struct scenario sc = {10, 1800, 1 * GiB, segs, 3, NAN,
					   false};
	struct series s;
	build(&sc, &s);
	for (size_t i = at(&sc, 900); i <= at(&sc, 920); i++)
		s.requests[i] = NAN;
	s.footprint[at(&sc, 300)] = NAN;
	s.footprint[at(&sc, 1490)] = NAN;
	struct idle_options o = opts(0, IDLE_DEFAULT_MIN_S);
	struct idle_findings f;
	/* A gap between two equal readings of the cumulative counter: no
	 * work can have been done across it, so it does not split the
	 * window (a slow scrape in an idle stretch must not break it). */
	compute(&s, &o, true, &f);
	static const struct span whole[] = {{300, 1490}};
	check_windows("gap between equal readings", &s, &f, whole, 1);
	assert_true(f.windows[0].fp_start == s.footprint[at(&sc, 310)]);
	assert_true(f.windows[0].fp_end == s.footprint[at(&sc, 1480)]);
	idle_findings_release(&f);
	/* The counter moved across the gap (work was done in it): the gap
	 * splits the stretch, unknown is not idle. */
	for (size_t i = at(&sc, 930); i < s.n; i++)
		s.requests[i] += 1;
	compute(&s, &o, true, &f);
	static const struct span want[] = {{300, 890}, {930, 1490}};
	check_windows("gaps", &s, &f, want, 2);
	assert_true(f.windows[0].fp_start == s.footprint[at(&sc, 310)]);
	assert_true(f.windows[1].fp_end == s.footprint[at(&sc, 1480)]);
	assert_true(f.windows[0].decline == 232 * KiB);
	assert_true(f.windows[1].decline == 220 * KiB);
	assert_int_equal(f.largest_decline_index, 0);
	assert_close(f.growth_net, 60 * MiB - 480 * KiB, "net");
	assert_close(f.growth_idle, -452 * KiB, "idle");
	assert_close(f.growth_active, 60 * MiB - 28 * KiB, "active");
	assert_close(f.work_total, 61, "work_total");
	assert_close(f.idle_s, 590 + 560, "idle_s");
	assert_close(f.active_s, 1800 - 1150, "active_s");
	idle_findings_release(&f);

	/* No footprint at all inside the windows: still idle time, but no
	 * decline to report or to count as idle growth. */
	for (size_t i = at(&sc, 300); i < at(&sc, 1500); i++)
		s.footprint[i] = NAN;
	compute(&s, &o, true, &f);
	check_windows("gaps, no footprint", &s, &f, want, 2);
	for (size_t k = 0; k < 2; k++) {
		assert_true(isnan(f.windows[k].fp_start));
		assert_true(isnan(f.windows[k].fp_end));
		assert_true(isnan(f.windows[k].decline));
	}
	assert_true(isnan(f.largest_decline));
	assert_true(f.largest_decline_index == SIZE_MAX);
	assert_false(f.released);
	assert_true(f.growth_idle == 0);
	assert_close(f.growth_active, f.growth_net, "active = net");
	idle_findings_release(&f);
	series_release(&s);
}

/* `released`: a decline beyond max(2 * resolution, 1 % of the start
 * footprint). One window [300, 890] whose footprint falls linearly by
 * `decline` from `start`. */
struct released_case {
	const char *name;
	double start, decline, resolution;
	bool released;
};

static const struct released_case released_cases[] = {
	/* 1 % of 1 GiB = 10.24 MiB */
	{"20 MiB of 1 GiB", 1 * GiB, 20 * MiB, 4096, true},
	{"10 MiB of 1 GiB", 1 * GiB, 10 * MiB, 4096, false},
	/* whole-GB readings: 2 GB needed */
	{"20 MiB at 1 GB resolution", 1 * GiB, 20 * MiB, 1e9, false},
	{"2.5 GB of 100 GB at 1 GB resolution", 100e9, 2.5e9, 1e9, true},
	{"2 GB of 100 GB at 1 GB resolution", 100e9, 2e9, 1e9, false},
	{"grew 20 MiB", 1 * GiB, -20 * MiB, 4096, false},
	{"no resolution given", 1 * GiB, 20 * MiB, NAN, true},
};

static void test_released(void **state)
{
	(void)state;
	static const struct seg segs[] = {
		{0, ACTIVE}, {300, IDLE}, {900, ACTIVE},
	};
	static const struct scenario sc = {10, 1200, 1 * GiB, segs, 3, NAN,
					   false};
	for (size_t c = 0; c < sizeof(released_cases) /
			       sizeof(released_cases[0]); c++) {
		const struct released_case *k = &released_cases[c];
		struct series s;
		build(&sc, &s);
		for (size_t i = 30; i <= 89; i++)
			s.footprint[i] = k->start -
					 k->decline * (double)(i - 30) / 59;
		struct idle_options o = opts(0, IDLE_DEFAULT_MIN_S);
		o.resolution = k->resolution;
		struct idle_findings f;
		compute(&s, &o, true, &f);
		static const struct span want[] = {{300, 890}};
		check_windows(k->name, &s, &f, want, 1);
		assert_true(f.windows[0].decline == k->decline);
		assert_true(f.largest_decline == k->decline);
		assert_int_equal(f.largest_decline_index, 0);
		if (f.released != k->released) {
			print_error("%s: released %d\n", k->name, f.released);
			fail();
		}
		idle_findings_release(&f);
		series_release(&s);
	}
}

/* Degenerate series: nothing found, nothing breaks. */
static void test_small(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "empty");
	struct idle_findings f;
	idle_findings_compute(&s, NULL, NULL, &f);
	assert_int_equal(f.n, 0);
	assert_false(f.work_known);
	assert_true(f.growth_net == 0 && f.active_s == 0);
	assert_true(f.largest_decline_index == SIZE_MAX);
	idle_findings_release(&f);

	series_add_incarnation(&s, 1, 1, NAN, NULL, NULL);
	series_append(&s, T0, 1 * GiB, 0);
	series_set_requests(&s, 0, 5);
	double work[1];
	idle_work_increase(s.requests, 1, work);
	idle_findings_compute(&s, work, NULL, &f);   /* NULL: defaults */
	assert_true(f.work_known);
	assert_int_equal(f.n, 0);
	assert_true(f.growth_net == 0 && f.work_total == 0);
	idle_findings_release(&f);
	series_release(&s);
}

/* ---- the CSV fixture (see the top of this file) ------------------- */

/*
 * Growth by hand: 19 startup steps (+16 MiB), 277 active rows (+256 KiB),
 * 184 idle rows (-4 KiB): 60 + 3 + 121.
 *   net    = 304 MiB + 277*256 KiB - 184*4 KiB
 *   warmup = fp(300 s) - fp(0) = 304 MiB + 256 KiB
 *   idle   = -(59 + 119)*4 KiB = -712 KiB
 *   active = 276*256 KiB - 6*4 KiB (rows 120, 240..242, 360 and 361)
 * Time: warm-up 300 s, idle 885 + 1800, active 7200 - 300 - 2685 = 4215.
 */
static void test_fixture_csv(void **state)
{
	(void)state;
	struct dataset d;
	assert_int_equal(csv_read_file(fixture("idle-windows.csv"), &d), 0);
	assert_int_equal(d.n_targets, 1);
	const struct series *s = &d.targets[0];
	assert_int_equal(s->n, 481);
	assert_non_null(s->requests);
	assert_non_null(s->connections);
	double *work = malloc(s->n * sizeof(double));
	assert_non_null(work);
	assert_true(idle_work_increase(s->requests, s->n, work) == 553);
	struct idle_options o;
	idle_options_default(&o);
	o.resolution = s->quantum;
	struct idle_findings f;
	idle_findings_compute(s, work, &o, &f);
	free(work);
	static const struct span want[] = {{1800, 2685}, {5400, 7200}};
	check_windows("idle-windows.csv", s, &f, want, 2);
	assert_int_equal(f.windows[0].first, 120);
	assert_int_equal(f.windows[0].last, 179);
	assert_int_equal(f.windows[1].first, 360);
	assert_int_equal(f.windows[1].last, 480);
	assert_true(f.windows[0].decline == 236 * KiB);
	assert_true(f.windows[1].fp_start == 927985664.0);
	assert_true(f.windows[1].decline == 476 * KiB);
	assert_true(f.longest_s == 1800);
	assert_int_equal(f.largest_decline_index, 1);
	assert_false(f.released);
	assert_close(f.growth_net, 304 * MiB + 277 * 256 * KiB - 184 * 4 * KiB,
		     "net");
	assert_close(f.growth_warmup, 304 * MiB + 256 * KiB, "warmup");
	assert_close(f.growth_idle, -712 * KiB, "idle");
	assert_close(f.growth_active, 276 * 256 * KiB - 24 * KiB, "active");
	assert_close(f.warmup_s, 300, "warmup_s");
	assert_close(f.idle_s, 2685, "idle_s");
	assert_close(f.active_s, 4215, "active_s");
	assert_close(f.work_total, 553, "work_total");
	assert_close(f.work_active, 551, "work_active");
	idle_findings_release(&f);
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_work_counter_increase),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_bursts_options),
		cmocka_unit_test(test_default_warmup_cap),
		cmocka_unit_test(test_no_work),
		cmocka_unit_test(test_connections),
		cmocka_unit_test(test_fraction_boundary),
		cmocka_unit_test(test_two_incarnations),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_released),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_fixture_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
