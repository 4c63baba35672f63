/*
 * test_diagnosis.c - restarts.c, steps.c and attribution.c: synthetic
 * series built in code with a known ground truth, and restarts plus
 * attribution end to end on a CSV fixture read through csv.c.
 *
 * Noise is Gaussian from a fixed-seed generator (splitmix64 + Box-Muller),
 * so every run sees the same numbers; the tests that could be lucky with
 * one draw (no step in noise, none in a ramp) run over several seeds.
 * Times are offsets from T0 = 2026-05-01T02:00:00Z in seconds, 15 s
 * sampling unless said otherwise (context.md report 1 sampled every 15 s).
 *
 * The fixture csv/diag-restart.csv (15 s sampling from
 * 2026-05-01T08:00:00Z) was written by this Python 3 script,
 * `python3 gen.py > diag-restart.csv`:
 *
 *   from datetime import datetime, timezone, timedelta
 *   T1 = datetime(2026, 5, 1, 8, 0, 0, tzinfo=timezone.utc)
 *   def iso(s): return (T1 + timedelta(seconds=s)).strftime(
 *       '%Y-%m-%dT%H:%M:%SZ')
 *   print('time,pid,footprint,requests,connections,prompt_cache,'
 *         'prompt_states')
 *   for r in range(20):                   # pid 4242: the old build
 *       fp = '244.51 GiB' if r == 19 else '%.2f GiB' % (240 + 0.2 * r)
 *       print(iso(15 * r), 4242, fp, 500 + 2 * r, 3, '5.36 GiB', 39,
 *             sep=',')
 *   for r in range(80):                   # pid 5151, 45 s after the last
 *       off = 330 + 15 * r
 *       if r < 4:
 *           fp, req, conn, cache, st = '%d GiB' % (50 * (r + 1)), 0, 0, \
 *               '0 MiB', 0
 *       elif r < 10:
 *           fp, req, conn, cache, st = '202.05 GiB', r - 3, 2, '564 MiB', 4
 *       elif r < 30:
 *           fp, req, conn, cache, st = '202.22 GiB', 6, 0, '564 MiB', 4
 *       elif r < 70:
 *           f = (r - 29) / 40
 *           fp = '%.2f GiB' % (202.22 + (230.63 - 202.22) * f)
 *           req, conn = 6 + (r - 29), 3
 *           cache = '%d MiB' % round(564 + (5.64 * 1024 - 564) * f)
 *           st = 4 + (r - 29) * 37 // 40
 *       else:
 *           fp, req, conn, cache, st = '230.63 GiB', 6 + (r - 29), 3, \
 *               '5.64 GiB', 41
 *       if r in (40, 41):
 *           cache = ''
 *       print(iso(off), 5151, fp, req, conn, cache, st, sep=',')
 *
 * What it holds (the figures of context.md report 1): the old process
 * (rows 0..19, series points 0..19) ends at 244.51 GiB; the new one (series
 * points 20..99, r = point - 20) loads for 4 samples, works at 202.05 GiB
 * (r 4..9), idles at 202.22 GiB for 5 min (r 10..29: no request, no
 * connection), then grows to 230.63 GiB while its prompt cache grows from
 * 564 MiB to 5.64 GiB (r 30..69; two cache cells blank), and stays there
 * (r 70..79). prompt_states counts states (4 -> 41), not bytes.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "analysis.h"
#include "attribution.h"
#include "csv.h"
#include "fixture.h"
#include "idle.h"
#include "restarts.h"
#include "series.h"
#include "said.h"
#include "steps.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define T0 1777600800.0   /* 2026-05-01T02:00:00Z */
#define DT 15.0

static void assert_close(double got, double want, const char *what)
{
	if (!(fabs(got - want) <= fabs(want) * 1e-12 + 1e-6)) {
		print_error("%s: got %.17g, want %.17g\n", what, got, want);
		fail();
	}
}

static void assert_within(double got, double want, double tol,
			  const char *what)
{
	if (!(fabs(got - want) <= tol)) {
		print_error("%s: got %.17g, want %.17g +- %g\n", what, got,
			    want, tol);
		fail();
	}
}

/* ---- deterministic noise ------------------------------------------ */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
	rng_state = seed;
}

static uint64_t splitmix64(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform01(void)   /* (0, 1) */
{
	return ((double)(splitmix64() >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform01())) * cos(2 * M_PI * uniform01());
}

/* ================================================================== */
/* Restarts                                                           */
/* ================================================================== */

/*
 * Three incarnations, 15 s sampling (offsets in s from T0):
 *  - pid 100, points 0..39 (0..585 s): working (a request and one
 *    connection every sample), footprint 240 GiB + 0.1 GiB * i, the last
 *    (point 39) 244.51 GiB;
 *  - pid 200, 30 s later: points 40..119, r = point - 40, at 615 + 15 r:
 *      r 0..3   loading 50, 100, 150, 200 GiB, no request;
 *      r 4..11  working at 201 GiB (a request and a connection each);
 *      r 12..51 idle (no request, no connection) from 202.22 GiB, giving
 *               back 4 KiB a sample: 202.22 GiB - 4 KiB * (r - 12);
 *      r 52..79 working, 210 GiB + 0.25 GiB * (r - 52); the footprint of
 *               r 79 (at 1800 s) is missing, so its last known one is r 78:
 *               210 + 26 * 0.25 = 216.5 GiB at 1785 s;
 *  - pid 300, 60 s after r 79 (1860 s): three points, 100, 180, 190 GiB,
 *    no request: lives 30 s.
 */
static void build_restarts(struct series *s)
{
	series_init(s, "restarts");
	s->quantum = 4096;
	s->quantum_exact = true; /* a recording: pages */
	uint32_t inc = series_add_incarnation(s, 100, 1, NAN, "svc", NULL);
	for (int i = 0; i < 40; i++) {
		double fp = i == 39 ? 244.51 * GiB : 240 * GiB + 0.1 * GiB * i;
		size_t p = series_append(s, T0 + DT * i, fp, inc);
		series_set_requests(s, p, 1000 + i);
		series_set_connections(s, p, 1);
	}
	inc = series_add_incarnation(s, 200, 2, NAN, "svc", NULL);
	double req = 0;
	for (int r = 0; r < 80; r++) {
		double fp, conn;
		if (r < 4) {
			fp = 50 * GiB * (r + 1);
			conn = 0;
		} else if (r < 12) {
			fp = 201 * GiB;
			req++;
			conn = 1;
		} else if (r < 52) {
			fp = 202.22 * GiB - 4 * KiB * (r - 12);
			conn = 0;
		} else {
			fp = 210 * GiB + 0.25 * GiB * (r - 52);
			req++;
			conn = 1;
		}
		if (r == 79)
			fp = NAN;
		size_t p = series_append(s, T0 + 615 + DT * r, fp, inc);
		series_set_requests(s, p, req);
		series_set_connections(s, p, conn);
	}
	inc = series_add_incarnation(s, 300, 3, NAN, "svc", NULL);
	for (int r = 0; r < 3; r++) {
		static const double fp[] = {100, 180, 190};
		size_t p = series_append(s, T0 + 1860 + DT * r, fp[r] * GiB,
					 inc);
		series_set_requests(s, p, 0);
		series_set_connections(s, p, 0);
	}
}

static void idle_of(const struct series *s, struct idle_findings *f)
{
	double *work = malloc(s->n * sizeof(double));
	assert_non_null(work);
	idle_work_increase(s->requests, s->n, work);
	idle_findings_compute(s, work, NULL, f);
	free(work);
}

/* What every run of the three-incarnation series shares. */
static void check_restart_frame(const struct restart_findings *f)
{
	assert_int_equal(f->n, 2);
	const struct restart *a = &f->r[0], *b = &f->r[1];
	assert_true(a->time == T0 + 615 && a->index == 40);
	assert_true(a->gap_s == 30);           /* 615 - 585 */
	assert_true(a->old_pid == 100 && a->new_pid == 200);
	assert_true(a->old_inc == 0 && a->new_inc == 1);
	assert_true(a->before == 244.51 * GiB);
	assert_true(a->before_time == T0 + 585);
	assert_true(b->time == T0 + 1860 && b->index == 120);
	assert_true(b->gap_s == 60);           /* 1860 - 1800 */
	assert_true(b->old_pid == 200 && b->new_pid == 300);
	/* the last known footprint, r 78, not the missing r 79 */
	assert_true(b->before == 216.5 * GiB);
	assert_true(b->before_time == T0 + 1785);
	/* pid 300 lives 30 s: no idle window, no point 120 s in, none
	 * after its first 60 s: the median of its three, 180 GiB */
	assert_true(b->floor == RESTART_FLOOR_MEDIAN);
	assert_string_equal(b->floor_rule, "median");
	assert_true(b->after == 180 * GiB);
	assert_true(b->recovered == 36.5 * GiB);   /* 216.5 - 180 */
}

/* Rule 1: pid 200's first idle window (idle.c: its warm-up ends at its
 * first request, r 4; r 11 still has a connection, so the window starts
 * at r 12, 795 s) starts at 202.22 GiB. 244.51 - 202.22 = 42.29 GiB: the
 * "42.3 GiB back" of context.md. */
static void test_restart_floor_idle(void **state)
{
	(void)state;
	struct series s;
	build_restarts(&s);
	struct idle_findings idle;
	idle_of(&s, &idle);
	assert_true(idle.n >= 1);
	assert_int_equal(idle.windows[0].first, 52);   /* r 12 */
	struct restart_findings f;
	restarts_find(&s, &idle, NAN, &f);
	check_restart_frame(&f);
	const struct restart *a = &f.r[0];
	assert_true(a->floor == RESTART_FLOOR_IDLE);
	assert_string_equal(a->floor_rule, "first idle window");
	assert_true(a->after == 202.22 * GiB);
	assert_true(a->after_time == T0 + 795);
	assert_close(a->recovered, 244.51 * GiB - 202.22 * GiB, "recovered");
	assert_close(a->recovered, 42.29 * GiB, "42.29 GiB");
	assert_close(f.recovered_total, 42.29 * GiB + 36.5 * GiB, "total");
	restart_findings_release(&f);
	assert_null(f.r);
	idle_findings_release(&idle);
	series_release(&s);
}

/* Rule 2: --warmup 120 s: pid 200's first point at or after 615 + 120 =
 * 735 s is r 8 (735 s), at 201 GiB: 244.51 - 201 = 43.51 GiB. pid 300
 * ends before its 120 s are over: it falls through to rule 3. */
static void test_restart_floor_warmup(void **state)
{
	(void)state;
	struct series s;
	build_restarts(&s);
	struct restart_findings f;
	restarts_find(&s, NULL, 120, &f);
	check_restart_frame(&f);
	const struct restart *a = &f.r[0];
	assert_true(a->floor == RESTART_FLOOR_WARMUP);
	assert_string_equal(a->floor_rule, "--warmup");
	assert_true(a->after == 201 * GiB);
	assert_true(a->after_time == T0 + 735);
	assert_close(a->recovered, 43.51 * GiB, "recovered");
	assert_close(f.recovered_total, 43.51 * GiB + 36.5 * GiB, "total");
	restart_findings_release(&f);
	series_release(&s);
}

/* Rule 3: no idle findings, no --warmup. Pid 200 loads 50 -> 200 GiB in
 * r 0..3, then holds 201 GiB (r 4..11): the first reading from which the
 * next 60 s (four samples) stay within 1 % is r 3 (200 GiB; 201 is within
 * 2 GiB of it), 150 GiB above the first reading: the growth flattened
 * there. Level = median of r 3..7 = {200, 201, 201, 201, 201} = 201 GiB,
 * so the restart gave back 244.51 - 201 = 43.51 GiB. */
static void test_restart_floor_settled(void **state)
{
	(void)state;
	struct series s;
	build_restarts(&s);
	struct restart_findings f;
	restarts_find(&s, NULL, NAN, &f);
	check_restart_frame(&f);
	const struct restart *a = &f.r[0];
	assert_true(a->floor == RESTART_FLOOR_SETTLED);
	assert_string_equal(a->floor_rule, "level where the growth flattened");
	assert_true(a->after == 201 * GiB);
	assert_true(a->after_time == T0 + 615 + 3 * DT);
	assert_close(a->recovered, 43.51 * GiB, "recovered");
	restart_findings_release(&f);
	series_release(&s);
}

/* A warm-up longer than --warmup, without requests (the case):
 * pid 2 loads 1 -> 3 GiB over 30 min (15 s samples), then holds 3 GiB for
 * an hour; its counter never moves. With --warmup 10 min the first idle
 * window starts at 10 min, mid-ramp (about 1.67 GiB): taken as the
 * settled floor, the restart "released" 1.3 GiB that the new process
 * was still loading. The floor is where the growth flattened: 3 GiB, so
 * the restart gave back 0 (pid 1 sat at 3 GiB too), and the rising idle
 * window is named for what it is. */
static void test_restart_long_warmup(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "svc");
	s.quantum = 4096;
	s.quantum_exact = true; /* a recording: pages */
	uint32_t a = series_add_incarnation(&s, 1, 1, NAN, "svc", NULL);
	double t = T0, req = 0;
	for (int i = 0; i < 240; i++, t += DT) {   /* 1 h at 3 GiB, busy */
		size_t p = series_append(&s, t, 3 * GiB, a);
		series_set_requests(&s, p, req += 1);
	}
	uint32_t b = series_add_incarnation(&s, 2, 2, NAN, "svc", NULL);
	for (int i = 0; i < 360; i++, t += DT) {   /* 30 min ramp, 1 h flat */
		double fp = i < 120 ? 1 * GiB + 2 * GiB * i / 120.0 : 3 * GiB;
		size_t p = series_append(&s, t, 4096 * round(fp / 4096), b);
		series_set_requests(&s, p, 0);
	}
	struct analysis_options o;
	analysis_options_init(&o);
	o.warmup_s = 600;
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.restarts.n, 1);
	const struct restart *r = &f.restarts.r[0];
	assert_string_equal(r->floor_rule, "level where the growth flattened");
	assert_within(r->after, 3 * GiB, 0.01 * GiB, "settled at 3 GiB");
	assert_within(r->recovered, 0, 0.01 * GiB, "nothing given back");
	bool rose = said(&f, "in 1 idle window, without requests");
	if (!rose)
		print_reasons(&f);
	assert_true(rose);
	analysis_release(&f);
	series_release(&s);
}

/* Rule 4: the same, but pid 200 starts at its level (r 0..3 at 201 GiB,
 * no rise): no warm-up to see the end of, so the median of its points in
 * [615 + 60, 615 + 660) s = r 4..43: eight at 201 GiB and 32 idle ones,
 * 202.22 GiB - 4 KiB * j for j = 0..31. Sorted, the 20th and 21st of the
 * 40 are the 12th and 13th smallest idle values, j = 20 and 19: the median
 * is 202.22 GiB - 19.5 * 4 KiB = 202.22 GiB - 78 KiB, and the restart gave
 * back 42.29 GiB + 78 KiB. */
static void test_restart_floor_early_median(void **state)
{
	(void)state;
	struct series s;
	build_restarts(&s);
	for (size_t i = 40; i < 44; i++)   /* pid 200's r 0..3 */
		s.footprint[i] = 201 * GiB;
	struct restart_findings f;
	restarts_find(&s, NULL, NAN, &f);
	check_restart_frame(&f);
	const struct restart *a = &f.r[0];
	assert_true(a->floor == RESTART_FLOOR_EARLY_MEDIAN);
	assert_string_equal(a->floor_rule, "early median");
	assert_true(a->after == 202.22 * GiB - 78 * KiB);
	assert_true(a->after_time == T0 + 675);   /* r 4 */
	assert_close(a->recovered, 42.29 * GiB + 78 * KiB, "recovered");
	restart_findings_release(&f);
	series_release(&s);
}

/* No restart in one incarnation; a new incarnation without a known
 * footprint has no floor ("none"), and its NAN stays out of the total;
 * an old one without any has no "before". */
static void test_restart_edges(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "one");
	uint32_t inc = series_add_incarnation(&s, 1, 1, NAN, NULL, NULL);
	for (int i = 0; i < 10; i++)
		series_append(&s, T0 + DT * i, GiB, inc);
	struct restart_findings f;
	restarts_find(&s, NULL, NAN, &f);
	assert_int_equal(f.n, 0);
	assert_null(f.r);
	assert_true(f.recovered_total == 0);
	restart_findings_release(&f);

	/* pid 2: no footprint at all; pid 3: 3 GiB; then pid 4 at 1 GiB */
	inc = series_add_incarnation(&s, 2, 2, NAN, NULL, NULL);
	series_append(&s, T0 + 1000, NAN, inc);
	series_append(&s, T0 + 1015, NAN, inc);
	inc = series_add_incarnation(&s, 3, 3, NAN, NULL, NULL);
	series_append(&s, T0 + 2000, 3 * GiB, inc);
	inc = series_add_incarnation(&s, 4, 4, NAN, NULL, NULL);
	series_append(&s, T0 + 3000, 1 * GiB, inc);
	restarts_find(&s, NULL, NAN, &f);
	assert_int_equal(f.n, 3);
	assert_true(f.r[0].before == GiB && isnan(f.r[0].after));
	assert_true(f.r[0].floor == RESTART_FLOOR_NONE);
	assert_string_equal(f.r[0].floor_rule, "none");
	assert_true(isnan(f.r[0].recovered));
	assert_true(isnan(f.r[1].before) && f.r[1].after == 3 * GiB);
	assert_true(isnan(f.r[1].recovered));
	/* 3 GiB -> 1 GiB (median of its one point): 2 GiB back */
	assert_true(f.r[2].recovered == 2 * GiB);
	assert_true(f.r[2].old_pid == 3 && f.r[2].new_pid == 4);
	assert_true(f.recovered_total == 2 * GiB);
	restart_findings_release(&f);
	series_release(&s);
}

/* ================================================================== */
/* Steps                                                              */
/* ================================================================== */

struct stair {
	size_t at;       /* first point of the level */
	double level;    /* bytes */
};

/* y[i] = the level of the last stair with at <= i, plus noise. */
static void make_stairs(double *t, double *y, size_t n,
			const struct stair *st, size_t ns, double sigma,
			uint64_t seed)
{
	rng_seed(seed);
	size_t j = 0;
	for (size_t i = 0; i < n; i++) {
		while (j + 1 < ns && st[j + 1].at <= i)
			j++;
		t[i] = T0 + DT * (double)i;
		y[i] = st[j].level + sigma * gauss();
	}
}

/* Each found step against the truth: index within idx_tol points; level
 * before and after and the change within tol. */
static void check_stairs(const struct step_findings *f,
			 const struct stair *st, size_t ns, size_t idx_tol,
			 double tol)
{
	if (f->n != ns - 1) {
		print_error("%zu steps, want %zu\n", f->n, ns - 1);
		for (size_t i = 0; i < f->n; i++)
			print_error("  at %zu: %.4f -> %.4f GiB\n",
				    f->steps[i].index,
				    f->steps[i].before / GiB,
				    f->steps[i].after / GiB);
		fail();
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct step *p = &f->steps[i];
		size_t want = st[i + 1].at;
		size_t d = p->index > want ? p->index - want : want - p->index;
		if (d > idx_tol) {
			print_error("step %zu at %zu, want %zu\n", i, p->index,
				    want);
			fail();
		}
		assert_true(p->time == T0 + DT * (double)p->index);
		assert_within(p->before, st[i].level, tol, "before");
		assert_within(p->after, st[i + 1].level, tol, "after");
		assert_within(p->change, st[i + 1].level - st[i].level, tol,
			      "change");
		assert_close(p->change, p->after - p->before, "after-before");
	}
}

/* The staircase of context.md report 1: 202 -> 208 -> 217 -> 239 GiB,
 * 500 samples per level (about 2 h at 15 s), noise sigma 0.05 GiB. Each
 * step must be found at its first sample exactly (tolerance one sample);
 * levels and changes within 0.05 GiB: each level is a line fitted to 500
 * points, whose value at the segment's end has a standard error of about
 * 2 sigma / sqrt(500) = 0.0045 GiB, so 0.05 GiB is ten of those. */
static void test_steps_staircase(void **state)
{
	(void)state;
	static const struct stair st[] = {
		{0, 202 * GiB}, {500, 208 * GiB}, {1000, 217 * GiB},
		{1500, 239 * GiB},
	};
	size_t n = 2000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	for (uint64_t seed = 1; seed <= 5; seed++) {
		make_stairs(t, y, n, st, 4, 0.05 * GiB, seed);
		struct step_findings f;
		steps_find(t, y, n, 4096, &f);
		check_stairs(&f, st, 4, 1, 0.05 * GiB);
		assert_int_equal(f.n_found, 3);
		assert_int_equal(f.steps[0].scale, 1);  /* raw points */
		/* sigma estimated from the differences: 0.05 GiB +- 10 % */
		assert_within(f.sigma, 0.05 * GiB, 0.005 * GiB, "sigma");
		step_findings_release(&f);
		assert_null(f.steps);
	}
	free(t);
	free(y);
}

/* Jumps that do not hold are no steps (steps.h, 5, the hold test), on
 * 2000 points of 2 GiB with sigma 4 MiB, seeds 1..5:
 *  - a 400 MiB jump that decays by 0.85 a point (a heavy-tailed
 *    innovation of autocorrelated noise; 0.85^20 = 0.04, so the median of
 *    the 20 points after it is 0.85^10 x 400 = 79 MiB above the level,
 *    under half the jump): no step, where the 5-point local test alone
 *    saw one (0.85^2 x 400 = 289 MiB, over half);
 *  - quiet noise that turns wild at point 1000 (AR(1) 0.95 with sd
 *    40 MiB after it, a busy service's wander): no step, though the
 *    wander moves the level by many quiet sigmas;
 *  - the same 400 MiB jump held: one step at point 800, of 400 MiB
 *    within 10 MiB (20 sigma / sqrt(n) for lines of 800-1200 points). */
static void test_steps_transients(void **state)
{
	(void)state;
	size_t n = 2000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	for (uint64_t seed = 1; seed <= 5; seed++) {
		for (int kind = 0; kind < 3; kind++) {
			rng_seed(seed);
			double ar = 0;
			for (size_t i = 0; i < n; i++) {
				t[i] = T0 + DT * (double)i;
				y[i] = 2 * GiB + 4 * MiB * gauss();
				if (kind == 0 && i >= 800)
					y[i] += 400 * MiB *
						pow(0.85, (double)(i - 800));
				if (kind == 1 && i >= 1000) {
					ar = 0.95 * ar + 40 * MiB *
						sqrt(1 - 0.95 * 0.95) * gauss();
					y[i] += ar;
				}
				if (kind == 2 && i >= 800)
					y[i] += 400 * MiB;
			}
			struct step_findings f;
			steps_find(t, y, n, 4096, &f);
			if (kind < 2) {
				if (f.n)
					print_error("seed %d kind %d: step at "
						    "%zu of %.1f MiB\n",
						    (int)seed, kind,
						    f.steps[0].index,
						    f.steps[0].change / MiB);
				assert_int_equal(f.n, 0);
			} else {
				assert_int_equal(f.n, 1);
				assert_true(f.steps[0].index >= 799 &&
					    f.steps[0].index <= 801);
				assert_within(f.steps[0].change, 400 * MiB,
					      10 * MiB, "change");
			}
			step_findings_release(&f);
		}
	}
	free(t);
	free(y);
}

static double seconds_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The same staircase over 10^6 points (bucketed into 4096 medians of
 * 244 points), steps at points that are not bucket boundaries, noise 0.2
 * GiB: the place of each step is refined on the raw points (within one
 * point of the truth), levels within 0.05 GiB (a level's line fits 1000
 * bucket medians, each with noise 1.25 * 0.2 / sqrt(244) = 0.016 GiB).
 * It runs in well under a second (the bound is 1 s, with sanitizers). */
static void test_steps_large(void **state)
{
	(void)state;
	static const struct stair st[] = {
		{0, 202 * GiB}, {250123, 208 * GiB}, {500321, 217 * GiB},
		{750999, 239 * GiB},
	};
	size_t n = 1000000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	make_stairs(t, y, n, st, 4, 0.2 * GiB, 42);
	struct step_findings f;
	double t0 = seconds_now();
	steps_find(t, y, n, 4096, &f);
	double took = seconds_now() - t0;
	check_stairs(&f, st, 4, 1, 0.05 * GiB);
	assert_true(f.steps[0].scale == 245);   /* ceil(10^6 / 4096) */
	if (!(took < 1.0)) {
		print_error("10^6 points took %.3f s\n", took);
		fail();
	}
	step_findings_release(&f);
	free(t);
	free(y);
}

/* A flat series with noise has no step, whatever the draw (20 seeds;
 * 5000 points of 202 GiB, sigma 0.05 GiB). */
static void test_steps_flat_noise(void **state)
{
	(void)state;
	size_t n = 5000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	static const struct stair flat[] = {{0, 202 * GiB}};
	for (uint64_t seed = 1; seed <= 20; seed++) {
		make_stairs(t, y, n, flat, 1, 0.05 * GiB, seed);
		struct step_findings f;
		steps_find(t, y, n, 4096, &f);
		if (f.n) {
			print_error("seed %llu: %zu steps, first %.4f GiB\n",
				    (unsigned long long)seed, f.n,
				    f.steps[0].change / GiB);
			fail();
		}
		step_findings_release(&f);
	}
	free(t);
	free(y);
}

/* A linear ramp is growth, not a staircase (steps.h: a step is a
 * discontinuity; a ramp has none): 202 -> 239 GiB over 5000 points, with
 * noise (20 seeds) and without; and the slow leak of context.md report 2
 * (1.6 -> 22 GB at 0.235 GB/h, 3.6 days at 60 s) read in whole GB, which
 * looks like a staircase of 1 GB stairs every 4.3 h: with resolution 1 GB,
 * one reading quantum is no step. None of them gives any step. */
static void test_steps_ramp(void **state)
{
	(void)state;
	size_t n = 5000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	for (uint64_t seed = 0; seed <= 20; seed++) {
		rng_seed(seed);
		double sigma = seed ? 0.05 * GiB : 0;  /* seed 0: clean */
		for (size_t i = 0; i < n; i++) {
			t[i] = T0 + DT * (double)i;
			double frac = (double)i / (double)(n - 1);
			y[i] = 202 * GiB + 37 * GiB * frac + sigma * gauss();
		}
		struct step_findings f;
		steps_find(t, y, n, 4096, &f);
		if (f.n) {
			print_error("seed %llu: %zu steps, first %.4f GiB at "
				    "%zu\n", (unsigned long long)seed, f.n,
				    f.steps[0].change / GiB, f.steps[0].index);
			fail();
		}
		step_findings_release(&f);
	}
	free(t);
	free(y);

	/* whole-GB readings of a 0.235 GB/h leak: 5200 samples a minute */
	n = 5200;
	t = malloc(n * sizeof(double));
	y = malloc(n * sizeof(double));
	assert_true(t && y);
	for (size_t i = 0; i < n; i++) {
		t[i] = T0 + 60.0 * (double)i;
		y[i] = 1e9 * round(1.6 + 0.235 * (double)i / 60.0);
	}
	struct step_findings f;
	steps_find(t, y, n, 1e9, &f);
	assert_int_equal(f.n, 0);
	assert_true(f.min_change >= 2e9);   /* twice the resolution */
	step_findings_release(&f);
	free(t);
	free(y);
}

/* A cache filling up to its cap (context.md report 2: 4.9 GB -> 57.9 GB
 * over two days, then flat): a smooth curve, no step. */
static void test_steps_saturating(void **state)
{
	(void)state;
	size_t n = 4 * 24 * 60;   /* 4 days a minute */
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	rng_seed(7);
	for (size_t i = 0; i < n; i++) {
		double h = (double)i / 60.0;
		t[i] = T0 + 60.0 * (double)i;
		y[i] = 4.9e9 + 53e9 * (1 - exp(-h / 10.0)) + 0.05e9 * gauss();
	}
	struct step_findings f;
	steps_find(t, y, n, 4096, &f);
	assert_int_equal(f.n, 0);
	step_findings_release(&f);
	free(t);
	free(y);
}

/* A jump on top of a ramp is a step of the jump's size: 1 GiB/h growth
 * (15 s samples) with a 5 GiB jump at point 3000 of 6000; before and after
 * are the two lines at the jump, so the change is 5 GiB, not 5 GiB plus
 * the ramp's rise (tolerance 0.1 GiB: noise 0.05 GiB, lines over 3000
 * points). */
static void test_steps_jump_on_ramp(void **state)
{
	(void)state;
	size_t n = 6000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	rng_seed(11);
	for (size_t i = 0; i < n; i++) {
		t[i] = T0 + DT * (double)i;
		y[i] = 100 * GiB + GiB * DT * (double)i / 3600 +
		       (i >= 3000 ? 5 * GiB : 0) + 0.05 * GiB * gauss();
	}
	struct step_findings f;
	steps_find(t, y, n, 4096, &f);
	assert_int_equal(f.n, 1);
	assert_true(f.steps[0].index >= 2999 && f.steps[0].index <= 3001);
	assert_within(f.steps[0].change, 5 * GiB, 0.1 * GiB, "change");
	/* the ramp's level there: 100 GiB + 12.5 h * 1 GiB/h */
	assert_within(f.steps[0].before, 112.5 * GiB, 0.1 * GiB, "before");
	step_findings_release(&f);
	free(t);
	free(y);
}

/* Rises that take a while between long plateaus (an hour of work between
 * idle stretches, as in context.md report 1): 202 -> 208 -> 217 -> 239
 * GiB, 2000 samples (8.3 h) per level, the first 40 (10 min) of each new
 * level a ramp up from the old one. Too gradual at the finest scale
 * (40 points), abrupt at a coarser one: found there, placed within the
 * rise (the 40 points after each level's end, tolerance 40 points), levels
 * within 0.2 GiB (a coarse bucket next to the rise holds some of it). */
static void test_steps_gradual_rise(void **state)
{
	(void)state;
	static const double lv[] = {202, 208, 217, 239};
	size_t per = 2000, rise = 40, n = 4 * per;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	rng_seed(5);
	for (size_t i = 0; i < n; i++) {
		size_t k = i / per, r = i % per;
		double v = lv[k];
		if (k > 0 && r < rise)   /* the rise into level k */
			v = lv[k - 1] + (lv[k] - lv[k - 1]) * (double)(r + 1) /
						 (double)rise;
		t[i] = T0 + DT * (double)i;
		y[i] = v * GiB + 0.05 * GiB * gauss();
	}
	struct step_findings f;
	steps_find(t, y, n, 4096, &f);
	assert_int_equal(f.n, 3);
	for (size_t j = 0; j < 3; j++) {
		const struct step *p = &f.steps[j];
		size_t start = (j + 1) * per;
		if (p->index + rise < start || p->index > start + rise) {
			print_error("step %zu at %zu, rise %zu..%zu\n", j,
				    p->index, start, start + rise);
			fail();
		}
		assert_true(p->scale > 1);
		assert_within(p->before, lv[j] * GiB, 0.2 * GiB, "before");
		assert_within(p->after, lv[j + 1] * GiB, 0.2 * GiB, "after");
	}
	step_findings_release(&f);
	free(t);
	free(y);
}

/* Missing points are skipped and index still counts every point: the
 * staircase with every 7th footprint NAN, steps at their first sample
 * (one sample of tolerance). */
static void test_steps_missing(void **state)
{
	(void)state;
	static const struct stair st[] = {
		{0, 202 * GiB}, {500, 208 * GiB}, {1000, 217 * GiB},
		{1500, 239 * GiB},
	};
	size_t n = 2000;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	make_stairs(t, y, n, st, 4, 0.05 * GiB, 3);
	for (size_t i = 3; i < n; i += 7)
		y[i] = NAN;
	y[1000] = NAN;   /* the first point of a level itself */
	struct step_findings f;
	steps_find(t, y, n, 4096, &f);
	assert_int_equal(f.n, 3);
	assert_true(f.steps[0].index >= 499 && f.steps[0].index <= 501);
	/* point 1000 is missing: the step's first known point is 1001 */
	assert_true(f.steps[1].index == 1001);
	assert_true(f.steps[2].index >= 1499 && f.steps[2].index <= 1501);
	step_findings_release(&f);
	free(t);
	free(y);
}

/* At most STEPS_MAX steps, the largest kept, in time order: 30 steps of
 * 10, 11, ..., 39 GiB (level j held 100 samples) -> n_found 30, the 20
 * kept are those of 20..39 GiB, steps 10..29. */
static void test_steps_cap(void **state)
{
	(void)state;
	struct stair st[31];
	double level = 100 * GiB;
	for (size_t j = 0; j <= 30; j++) {
		if (j)
			level += (double)(9 + j) * GiB;
		st[j] = (struct stair){j * 100, level};
	}
	size_t n = 3100;
	double *t = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_true(t && y);
	make_stairs(t, y, n, st, 31, 0.01 * GiB, 9);
	struct step_findings f;
	steps_find(t, y, n, 4096, &f);
	assert_int_equal(f.n_found, 30);
	assert_int_equal(f.n, STEPS_MAX);
	for (size_t i = 0; i < f.n; i++) {
		assert_int_equal(f.steps[i].index, (i + 11) * 100);
		assert_within(f.steps[i].change, (double)(20 + i) * GiB,
			      0.05 * GiB, "change");
	}
	step_findings_release(&f);
	free(t);
	free(y);
}

/* Too few points: nothing, sigma unknown. */
static void test_steps_few(void **state)
{
	(void)state;
	double t[9], y[9];
	for (int i = 0; i < 9; i++) {
		t[i] = T0 + i;
		y[i] = i < 5 ? GiB : 2 * GiB;
	}
	struct step_findings f;
	steps_find(t, y, 9, 4096, &f);
	assert_int_equal(f.n, 0);
	assert_true(isnan(f.sigma));
	step_findings_release(&f);
	/* ten clean points, one 1 GiB jump in the middle: a step */
	double t2[10], y2[10];
	for (int i = 0; i < 10; i++) {
		t2[i] = T0 + i;
		y2[i] = i < 5 ? GiB : 2 * GiB;
	}
	steps_find(t2, y2, 10, 4096, &f);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.steps[0].index, 5);
	assert_true(f.steps[0].change == GiB);
	step_findings_release(&f);
}

/* ================================================================== */
/* Attribution                                                        */
/* ================================================================== */

/* The name rule. */
static void test_attribution_names(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		bool bytes;
	} cases[] = {
		{"prompt_cache", true}, {"kv_cache_bytes", true},
		{"prompt_cache_bytes", true}, {"heap", true},
		{"prompt_states", false}, {"cache_entries", false},
		{"tokens_total", false}, {"Requests", false},
		{"gpu_util_percent", false}, {"hit_ratio", false},
		{"uptime_seconds", false}, {"count", false},
		{"states_bytes", true}, {"", true},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (attribution_gauge_is_bytes(cases[i].name) !=
		    cases[i].bytes) {
			print_error("'%s': want %d\n", cases[i].name,
				    cases[i].bytes);
			fail();
		}
	assert_false(attribution_gauge_is_bytes(NULL));
}

/*
 * context.md report 1: 02:04 -> 08:41 at 15 s (1589 points), footprint
 * 202.05 -> 230.63 GiB, prompt cache 564 MiB -> 5.64 GiB, 4 -> 41 states.
 * The first and last 100 points hold the end values (the middle ramps
 * between them, with noise), and point 0 is a stray 202.30 GiB reading.
 * e = ceil(0.05 * 1589) = 80 points per end, all inside the flat 100 (the
 * stray one is outvoted): growth = 230.63 - 202.05 = 28.58 GiB, explained
 * = 5.64 GiB - 564 MiB = 5.0892 GiB ("about 5.1 GiB"), unattributed =
 * 23.4908 GiB ("about 23.5 GiB"). prompt_states is not bytes: listed with
 * its +37, not counted.
 */
static void build_prompt_cache(struct series *s, size_t *n_out)
{
	series_init(s, "llm");
	uint32_t inc = series_add_incarnation(s, 4242, 1, NAN, NULL, NULL);
	size_t n = 1589;
	rng_seed(99);
	for (size_t i = 0; i < n; i++) {
		double f = i < 100 ? 0 : i >= n - 100 ? 1 :
			   (double)(i - 99) / (double)(n - 199);
		double fp = f == 0 ? 202.05 * GiB : 230.63 * GiB;
		double cache = f == 0 ? 564 * MiB : 5.64 * GiB;
		if (f > 0 && f < 1) {
			fp = 202.05 * GiB + (230.63 - 202.05) * GiB * f +
			     0.1 * GiB * gauss();
			cache = 564 * MiB + (5.64 * GiB - 564 * MiB) * f +
				10 * MiB * gauss();
		}
		if (i == 0)
			fp = 202.30 * GiB;
		size_t p = series_append(s, T0 + 240 + DT * (double)i, fp,
					 inc);
		series_set_gauge(s, "prompt_cache", p, cache);
		series_set_gauge(s, "prompt_states",
				 p, round(4 + 37 * f));
	}
	*n_out = n;
}

static void test_attribution_prompt_cache(void **state)
{
	(void)state;
	struct series s;
	size_t n;
	build_prompt_cache(&s, &n);
	struct attribution_finding f;
	attribution_find(&s, 0, n, &f);
	assert_true(f.found);
	assert_int_equal(f.points, n);
	assert_true(f.start_level == 202.05 * GiB);
	assert_true(f.end_level == 230.63 * GiB);
	assert_true(f.start == T0 + 240);                 /* 02:04 */
	assert_true(f.end == T0 + 240 + DT * 1588);       /* 08:41 */
	assert_close(f.growth, 28.58 * GiB, "growth");
	assert_int_equal(f.n, 2);
	assert_int_equal(f.n_counted, 1);
	const struct attribution_item *pc = &f.items[0], *ps = &f.items[1];
	assert_string_equal(pc->name, "prompt_cache");
	assert_true(pc->counted && pc->why_not == NULL);
	assert_int_equal(pc->points, n);
	assert_close(pc->explained, 5.64 * GiB - 564 * MiB, "explained");
	assert_within(pc->explained, 5.1 * GiB, 0.05 * GiB, "about 5.1");
	assert_close(f.explained_total, pc->explained, "explained total");
	assert_close(f.unattributed, 28.58 * GiB - 5.64 * GiB + 564 * MiB,
		     "unattributed");
	assert_within(f.unattributed, 23.5 * GiB, 0.05 * GiB, "about 23.5");
	assert_string_equal(ps->name, "prompt_states");
	assert_false(ps->counted);
	assert_string_equal(ps->why_not, "not bytes by its name");
	assert_true(ps->explained == 37);   /* shown, not summed */
	attribution_finding_release(&f);
	assert_null(f.items);

	/* A caller may choose instead: count nothing -> found = false. */
	bool use[2] = {false, false};
	attribution_find_selected(&s, 0, n, use, &f);
	assert_false(f.found);
	assert_close(f.growth, 28.58 * GiB, "growth, nothing counted");
	assert_true(isnan(f.unattributed));
	assert_string_equal(f.items[0].why_not, "not selected");
	attribution_finding_release(&f);
	series_release(&s);
}

/*
 * A gauge with gaps is measured on the readings it has. 400 points,
 * footprint 10 GiB + 0.01 GiB * i (a clean ramp); the gauge is unknown
 * before point 100 and at every 3rd point, and reads 1 GiB + 0.005 GiB *
 * i where known. Known gauge points: 100..399 less multiples of 3 = 300 -
 * 100 = 200 (102, 105, ..., 399 are 100 of them); e = max(3, ceil(10)) =
 * 10 per end. Its first ten known: 100, 101, 103, 104, 106, 107, 109, 110,
 * 112, 113 -> median (106 + 107) / 2 = 106.5; last ten: 386, 388, 389,
 * 391, 392, 394, 395, 397, 398 and 385 -> 385, 386, 388, 389, 391 | 392,
 * 394, 395, 397, 398 -> (391 + 392) / 2 = 391.5: explained = 0.005 GiB *
 * 285 = 1.425 GiB. Footprint: e = 20; medians at i = 9.5 and 389.5:
 * growth = 0.01 GiB * 380 = 3.8 GiB; unattributed 2.375 GiB.
 */
static void test_attribution_gaps(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "gaps");
	uint32_t inc = series_add_incarnation(&s, 1, 1, NAN, NULL, NULL);
	for (size_t i = 0; i < 400; i++) {
		size_t p = series_append(&s, T0 + DT * (double)i,
					 10 * GiB + 0.01 * GiB * (double)i,
					 inc);
		bool known = i >= 100 && i % 3 != 0;
		series_set_gauge(&s, "cache", p,
				 known ? GiB + 0.005 * GiB * (double)i : NAN);
	}
	struct attribution_finding f;
	attribution_find(&s, 0, s.n, &f);
	assert_true(f.found);
	assert_close(f.growth, 3.8 * GiB, "growth");
	assert_int_equal(f.items[0].points, 200);
	assert_true(f.items[0].start == T0 + DT * 100);
	assert_true(f.items[0].end == T0 + DT * 398);
	assert_close(f.items[0].start_level, GiB + 0.005 * GiB * 106.5,
		     "start level");
	assert_close(f.items[0].end_level, GiB + 0.005 * GiB * 391.5,
		     "end level");
	assert_close(f.items[0].explained, 1.425 * GiB, "explained");
	assert_close(f.unattributed, 2.375 * GiB, "unattributed");
	attribution_finding_release(&f);

	/* A gauge never known in the span is listed, not counted. */
	attribution_find(&s, 0, 100, &f);
	assert_false(f.found);
	assert_int_equal(f.items[0].points, 0);
	assert_string_equal(f.items[0].why_not,
			    "fewer than 2 readings in the span");
	assert_true(isnan(f.items[0].explained));
	attribution_finding_release(&f);
	series_release(&s);
}

/*
 * Two byte gauges and a shrinking one over 100 points; every figure steps
 * once at point 50, so the levels are the values themselves (e = 5):
 * footprint 100 -> 130 GiB (+30), prompt_cache 1 -> 6 GiB (+5),
 * kv_cache_bytes 10 -> 20 GiB (+10), staging 4 -> 2 GiB (-2: it gave
 * memory back, which the footprint did not show: its -2 leaves 2 GiB more
 * unattributed). explained = 5 + 10 - 2 = 13, unattributed = 17 GiB.
 * Restricted to the span [50, 100): no growth at all, everything 0.
 */
static void test_attribution_two_gauges(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "two");
	uint32_t inc = series_add_incarnation(&s, 1, 1, NAN, NULL, NULL);
	for (size_t i = 0; i < 100; i++) {
		bool late = i >= 50;
		size_t p = series_append(&s, T0 + DT * (double)i,
					 (late ? 130 : 100) * GiB, inc);
		series_set_gauge(&s, "prompt_cache", p, (late ? 6 : 1) * GiB);
		series_set_gauge(&s, "kv_cache_bytes", p,
				 (late ? 20 : 10) * GiB);
		series_set_gauge(&s, "staging", p, (late ? 2 : 4) * GiB);
	}
	struct attribution_finding f;
	attribution_find(&s, 0, 100, &f);
	assert_true(f.found);
	assert_int_equal(f.n_counted, 3);
	assert_true(f.growth == 30 * GiB);
	assert_true(f.items[0].explained == 5 * GiB);
	assert_true(f.items[1].explained == 10 * GiB);
	assert_true(f.items[2].explained == -2 * GiB);
	assert_true(f.explained_total == 13 * GiB);
	assert_true(f.unattributed == 17 * GiB);
	attribution_finding_release(&f);

	/* hi past the end is clamped; [50, 100) has no growth */
	attribution_find(&s, 50, 1000, &f);
	assert_true(f.found);
	assert_true(f.growth == 0 && f.explained_total == 0);
	assert_true(f.unattributed == 0);
	attribution_finding_release(&f);

	/* only kv_cache_bytes, by the caller's choice */
	bool use[3] = {false, true, false};
	attribution_find_selected(&s, 0, 100, use, &f);
	assert_true(f.found && f.n_counted == 1);
	assert_true(f.unattributed == 20 * GiB);
	attribution_finding_release(&f);
	series_release(&s);
}

/* No gauges: found = false, the growth still measured. Small spans: seven
 * points 10, 11, 12, 13, 14, 15, 100 -> e = min(3, 7 / 2) = 3, levels
 * median(10, 11, 12) = 11 and median(14, 15, 100) = 15: growth 4, the
 * stray last reading outvoted; two points -> e = 1: plain end points; one
 * point or an empty span -> growth unknown. */
static void test_attribution_no_gauges(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "none");
	uint32_t inc = series_add_incarnation(&s, 1, 1, NAN, NULL, NULL);
	static const double v[] = {10, 11, 12, 13, 14, 15, 100};
	for (size_t i = 0; i < 7; i++)
		series_append(&s, T0 + DT * (double)i, v[i] * GiB, inc);
	struct attribution_finding f;
	attribution_find(&s, 0, 7, &f);
	assert_false(f.found);
	assert_int_equal(f.n, 0);
	assert_null(f.items);
	assert_true(f.growth == 4 * GiB);
	assert_true(isnan(f.unattributed));
	attribution_finding_release(&f);
	attribution_find(&s, 5, 7, &f);
	assert_true(f.growth == 85 * GiB);   /* 100 - 15 */
	attribution_finding_release(&f);
	attribution_find(&s, 6, 7, &f);
	assert_true(isnan(f.growth) && f.points == 1);
	attribution_finding_release(&f);
	attribution_find(&s, 7, 7, &f);
	assert_true(isnan(f.growth) && f.points == 0);
	attribution_finding_release(&f);
	series_release(&s);
}

/* ================================================================== */
/* End to end on the CSV fixture (see the top of this file)           */
/* ================================================================== */

/*
 * Restart: pid 4242's last footprint 244.51 GiB (08:04:45); pid 5151
 * starts at 08:05:30 (gap 45 s). idle.c finds its first window at r 10
 * (08:08:00: warm-up ended at its first request, r 4; r 9 still had
 * connections), at 202.22 GiB: 244.51 - 202.22 = 42.29 GiB recovered
 * (context.md: "244.51 GiB -> 202.22 GiB warm idle: about 42.3 GiB back").
 *
 * Attribution over pid 5151 after its load, points 24..99 (r 4..79): 76
 * footprints, e = max(3, ceil(3.8)) = 4: the first four are 202.05 GiB,
 * the last four 230.63 GiB: growth 28.58 GiB. prompt_cache: 74 readings
 * (two blank), e = 4: 564 MiB at the start, 5.64 GiB at the end:
 * explained 5.64 GiB - 564 MiB = 5.0892 GiB, unattributed 23.4908 GiB
 * (context.md: "explains about 5.1 GiB of +28.6 GiB"). prompt_states is
 * counted as states by its name, so it stays out.
 */
static void test_fixture_csv(void **state)
{
	(void)state;
	struct dataset d;
	assert_int_equal(csv_read_file(fixture("diag-restart.csv"), &d), 0);
	assert_int_equal(d.n_targets, 1);
	const struct series *s = &d.targets[0];
	assert_int_equal(s->n, 100);
	assert_int_equal(s->n_incs, 2);
	assert_int_equal(s->n_gauges, 2);

	struct idle_findings idle;
	idle_of(s, &idle);
	assert_true(idle.n >= 1);
	assert_int_equal(idle.windows[0].first, 30);   /* r 10 */
	assert_int_equal(idle.windows[0].last, 49);    /* r 29 */

	double t_new = 1777622400.0 + 330;   /* 2026-05-01T08:05:30Z */
	struct restart_findings rf;
	restarts_find(s, &idle, NAN, &rf);
	assert_int_equal(rf.n, 1);
	const struct restart *r = &rf.r[0];
	assert_true(r->time == t_new);
	assert_true(r->gap_s == 45);
	assert_true(r->old_pid == 4242 && r->new_pid == 5151);
	assert_string_equal(r->floor_rule, "first idle window");
	assert_true(r->before == 244.51 * GiB);
	assert_true(r->after == 202.22 * GiB);
	assert_true(r->after_time == t_new + 150);
	assert_close(r->recovered, 42.29 * GiB, "recovered");
	assert_within(rf.recovered_total, 42.3 * GiB, 0.05 * GiB,
		      "about 42.3 GiB");
	restart_findings_release(&rf);

	/* The other rules on the same data: --warmup 90 s lands on r 6
	 * (202.05 GiB); without it, the growth flattened at r 4: from there
	 * the next 60 s (r 4..8) stay within 1 % of 202.05 GiB (r 3, 200 GiB,
	 * is 2.05 GiB below: more than 1 %), and their median is 202.05. */
	restarts_find(s, NULL, 90, &rf);
	assert_true(rf.r[0].after == 202.05 * GiB);
	assert_close(rf.r[0].recovered, 42.46 * GiB, "warmup recovered");
	restart_findings_release(&rf);
	restarts_find(s, NULL, NAN, &rf);
	assert_string_equal(rf.r[0].floor_rule,
			    "level where the growth flattened");
	assert_true(rf.r[0].after == 202.05 * GiB);
	restart_findings_release(&rf);
	idle_findings_release(&idle);

	struct attribution_finding af;
	attribution_find(s, 24, 100, &af);
	assert_true(af.found);
	assert_int_equal(af.points, 76);
	assert_true(af.start_level == 202.05 * GiB);
	assert_true(af.end_level == 230.63 * GiB);
	assert_close(af.growth, 28.58 * GiB, "growth");
	assert_int_equal(af.n_counted, 1);
	const struct attribution_item *pc = &af.items[0];
	assert_string_equal(pc->name, "prompt_cache");
	assert_int_equal(pc->points, 74);
	assert_true(pc->start_level == 564 * MiB);
	assert_true(pc->end_level == 5.64 * GiB);
	assert_close(af.explained_total, 5.64 * GiB - 564 * MiB, "explained");
	assert_close(af.unattributed, 28.58 * GiB - 5.64 * GiB + 564 * MiB,
		     "unattributed");
	assert_within(af.unattributed, 23.49 * GiB, 0.005 * GiB, "23.49");
	assert_false(af.items[1].counted);
	assert_true(af.items[1].explained == 37);    /* 4 -> 41 states */
	attribution_finding_release(&af);
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restart_floor_idle),
		cmocka_unit_test(test_restart_floor_warmup),
		cmocka_unit_test(test_restart_floor_settled),
		cmocka_unit_test(test_restart_long_warmup),
		cmocka_unit_test(test_restart_floor_early_median),
		cmocka_unit_test(test_restart_edges),
		cmocka_unit_test(test_steps_staircase),
		cmocka_unit_test(test_steps_large),
		cmocka_unit_test(test_steps_flat_noise),
		cmocka_unit_test(test_steps_ramp),
		cmocka_unit_test(test_steps_saturating),
		cmocka_unit_test(test_steps_jump_on_ramp),
		cmocka_unit_test(test_steps_gradual_rise),
		cmocka_unit_test(test_steps_missing),
		cmocka_unit_test(test_steps_cap),
		cmocka_unit_test(test_steps_few),
		cmocka_unit_test(test_steps_transients),
		cmocka_unit_test(test_attribution_names),
		cmocka_unit_test(test_attribution_prompt_cache),
		cmocka_unit_test(test_attribution_gaps),
		cmocka_unit_test(test_attribution_two_gauges),
		cmocka_unit_test(test_attribution_no_gauges),
		cmocka_unit_test(test_fixture_csv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
