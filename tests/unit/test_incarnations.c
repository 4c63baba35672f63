/*
 * test_incarnations.c - issue 27: warm-ups found per incarnation
 * (warmup.c), incarnations pooled (pooled.c), and what the analysis and
 * the verdict make of them, on series with a known truth.
 *
 * Expected numbers and where they came from:
 *  - the meta-analysis: computed with numpy and scipy 1.10.1 (the
 *    formulas of pooled.h written out; scipy.stats.t for the quantile and
 *    the p-value), the script in the test's comment;
 *  - the t quantiles: scipy.stats.t.ppf;
 *  - the field report's restart: csv/field-restart.csv, written by the
 *    Python script in test_field_restart's comment; the truth by
 *    construction (245.00 GiB before, settled at 202.7 GiB: 42.3 GiB).
 * Noise is Gaussian from a fixed-seed generator (splitmix64 + Box-Muller),
 * so every run sees the same numbers.
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

#include <cmocka.h>

#include "analysis.h"
#include "csv.h"
#include "fixture.h"
#include "pooled.h"
#include "series.h"
#include "said.h"
#include "stats_ar.h"
#include "warmup.h"

#define KiB 1024.0
#define MiB (1024.0 * KiB)
#define GiB (1024.0 * MiB)
#define T0 1777600800.0   /* 2026-05-01T02:00:00Z */
#define DT 15.0

static void assert_within(double got, double want, double tol,
			  const char *what)
{
	if (!(fabs(got - want) <= tol)) {
		print_error("%s: got %.17g, want %.17g +- %g\n", what, got,
			    want, tol);
		fail();
	}
}

static uint64_t rng_state;

static double uniform(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return ((double)(z >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

/*
 * scipy 1.10.1 / numpy, the formulas of pooled.h:
 *   est = [1.0, 2.0, 3.5, 0.5, 2.5]; se = [0.5, 0.8, 1.0, 0.6, 0.7]
 *   w = 1/se**2; mufe = sum(w*est)/sum(w); Q = sum(w*(est-mufe)**2)
 *   tau2 = max(0, (Q-(k-1))/(sum(w)-sum(w**2)/sum(w)))
 *   ws = 1/(se**2+tau2); mu = sum(ws*est)/sum(ws)
 *   qs = sum(ws*(est-mu)**2)/(k-1); s = sqrt(max(1, qs)/sum(ws))
 *   t = scipy.stats.t.ppf(0.975, k-1); mu -/+ t*s;
 *   p = 2*scipy.stats.t.sf(abs(mu)/s, k-1)
 */
static void test_meta_hksj(void **state)
{
	(void)state;
	const double est[] = {1.0, 2.0, 3.5, 0.5, 2.5};
	const double se[] = {0.5, 0.8, 1.0, 0.6, 0.7};
	struct meta_result m;
	assert_int_equal(stats_meta_hksj(est, se, 5, 0.95, &m), 0);
	assert_within(m.mu_fixed, 1.5038914139841852, 1e-12, "mu fixed");
	assert_within(m.q, 10.209046759230434, 1e-10, "Q");
	assert_within(m.tau2, 0.7195597649462873, 1e-10, "tau2");
	assert_within(m.estimate, 1.723234177027925, 1e-10, "mu");
	assert_within(m.se, 0.5129400785068146, 1e-10, "se");
	assert_within(m.low, 0.29908420679790493, 1e-8, "low");
	assert_within(m.high, 3.147384147257945, 1e-8, "high");
	assert_within(m.p, 0.028317361855083743, 1e-7, "p");

	/* Homogeneous estimates: Q = 0.08 < k - 1, tau2 = 0, and q* < 1:
	 * the max(1, q*) keeps the interval at the inverse-variance one,
	 * se = sqrt(1 / (3 x 4)) = 0.28867513459481287, t(2) = 4.3027. */
	const double est2[] = {1.0, 1.1, 0.9}, se2[] = {0.5, 0.5, 0.5};
	assert_int_equal(stats_meta_hksj(est2, se2, 3, 0.95, &m), 0);
	assert_within(m.q, 0.08, 1e-12, "Q2");
	assert_true(m.tau2 == 0);
	assert_within(m.estimate, 1.0, 1e-12, "mu2");
	assert_within(m.se, 0.28867513459481287, 1e-12, "se2");
	assert_within(m.high - m.estimate, 4.302652729911275 *
		      0.28867513459481287, 1e-8, "half2");

	/* too few, or a standard error that is not > 0 */
	assert_int_equal(stats_meta_hksj(est, se, 1, 0.95, &m), -1);
	const double bad[] = {0.5, 0};
	assert_int_equal(stats_meta_hksj(est, bad, 2, 0.95, &m), -1);
}

static void test_t_quantile(void **state)
{
	(void)state;
	/* scipy.stats.t.ppf */
	assert_within(stats_t_quantile(0.975, 1), 12.706204736432095, 1e-8,
		      "t(1)");
	assert_within(stats_t_quantile(0.975, 4), 2.7764451051977987, 1e-9,
		      "t(4)");
	assert_within(stats_t_quantile(0.975, 30), 2.0422724563012373, 1e-9,
		      "t(30)");
	assert_within(stats_t_quantile(0.05, 7), -1.8945786050613054, 1e-9,
		      "t(7) 5 %");
}

/* One incarnation of the service: 1.2 -> 1.6 GiB in 60 s (a line),
 * then leak_bph, AR(1) 0.9 noise of sd 8 MiB, 15 s sampling, for life_s. */
static size_t one_life(double *t, double *y, double t0, double life_s,
		       double leak_bph)
{
	size_t n = 0;
	double u = 8 * MiB * gauss();
	for (double a = 0; a <= life_s; a += DT) {
		u = 0.9 * u + 8 * MiB * sqrt(1 - 0.81) * gauss();
		t[n] = t0 + a;
		y[n] = 1.2 * GiB + 0.4 * GiB * fmin(a / 60, 1) +
		       leak_bph * a / 3600 + u;
		n++;
	}
	return n;
}

/* The warm-up's end is found within a sample or two of 60 s over many
 * seeds, with its interval around it, and the level at its end near
 * 1.6 GiB; a line with the same noise has none. */
static void test_warmup_found(void **state)
{
	(void)state;
	double t[400], y[400];
	size_t found = 0, none = 0;
	for (int seed = 1; seed <= 20; seed++) {
		rng_state = (uint64_t)seed * 7919;
		size_t n = one_life(t, y, T0, 2700, 120 * MiB);
		struct warmup_finding w;
		warmup_find(t, y, n, 4096, &w);
		if (w.source != WARMUP_FOUND)
			continue;
		found++;
		assert_within(w.end - T0, 60, 30, "end");
		assert_true(w.end_low <= w.end && w.end <= w.end_high);
		assert_within(w.level, 1.6 * GiB, 40 * MiB, "level");
		assert_within(w.late_bph, 120 * MiB, 120 * MiB, "late slope");
		/* no warm-up in a leak alone */
		for (size_t i = 0; i < n; i++)
			y[i] = 1.6 * GiB + 120 * MiB * (t[i] - T0) / 3600 +
			       8 * MiB * gauss();
		warmup_find(t, y, n, 4096, &w);
		none += w.source == WARMUP_NONE;
	}
	assert_int_equal(found, 20);
	assert_true(none >= 19);
}

/* A series of incarnations with pids, leak_bph each from its start. */
static void restarting(struct series *s, size_t lives, double leak_bph,
		       uint64_t seed)
{
	rng_state = seed;
	series_init(s, "svc");
	s->quantum = 4096;
	s->mem_total = 64 * GiB;
	double t[400], y[400], t0 = T0;
	for (size_t k = 0; k < lives; k++) {
		double life = 1800 + 1800 * uniform();
		size_t n = one_life(t, y, t0, life, leak_bph);
		uint32_t inc = series_add_incarnation(s, 100 + (int64_t)k, 1,
						      t0, "svc", "svc");
		for (size_t i = 0; i < n; i++)
			series_append(s, t[i], round(y[i] / 4096) * 4096, inc);
		t0 += life + DT;
	}
}

/* Issue 27's case at 120 MiB/h (above the 88.7 MiB/h concern at 1.6 GiB of
 * 64 GiB): 30 incarnations of 30-60 min, the leak found by the pooled
 * incarnations, said as "each incarnation grows", and the warm-up found
 * in every incarnation. */
static void test_pooled_leak(void **state)
{
	(void)state;
	struct series s;
	restarting(&s, 30, 120 * MiB, 27);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.n_incarnations, 30);
	size_t warm = 0;
	for (size_t i = 0; i < 30; i++)
		warm += f.warmups[i].source == WARMUP_FOUND;
	assert_int_equal(warm, 30);
	assert_true(f.pooled.found);
	assert_true(f.pooled.incarnations >= 29);
	assert_true(f.pooled.significant);
	assert_true(f.pooled.slope.low <= 120 * MiB &&
		    120 * MiB <= f.pooled.slope.high);
	assert_int_equal(f.verdict, VERDICT_GROWING);
	assert_true(reason_says(&f, SIZE_MAX, "each incarnation grows +"));
	assert_true(reason_says(&f, SIZE_MAX, "over 30 incarnations"));
	/* the restarts gave back about the leak over each settled life */
	assert_within(f.pooled.given_back_bph, 120 * MiB, 60 * MiB,
		      "given back");
	analysis_release(&f);
	series_release(&s);
}

/* The same service without the leak: the warm-up's jump is no longer in
 * the slope (it was 136 MiB/h at 6d09953), and the pooled slope rules the
 * concern out. */
static void test_pooled_flat(void **state)
{
	(void)state;
	struct series s;
	restarting(&s, 30, 0, 28);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_true(f.pooled.found);
	assert_true(f.pooled.slope.low <= 0 && 0 <= f.pooled.slope.high);
	assert_true(f.pooled.slope.high < f.concern_bph);
	assert_true(f.verdict != VERDICT_GROWING);
	analysis_release(&f);
	series_release(&s);
}

/* Two short incarnations cannot decide: the advice asks for restarts, not
 * for a window longer than an incarnation lives. */
static void test_advice_restarts(void **state)
{
	(void)state;
	struct series s;
	rng_state = 3;
	series_init(&s, "svc");
	s.quantum = 4096;
	s.mem_total = 64 * GiB;
	/* noisy (sd 64 MiB, AR 0.99): 3 lives of 20 min say little */
	double t0 = T0;
	for (int k = 0; k < 3; k++) {
		uint32_t inc = series_add_incarnation(&s, 100 + k, 1, t0,
						      "svc", "svc");
		double u = 0;
		for (double a = 0; a <= 1200; a += DT) {
			u = 0.99 * u + 64 * MiB * sqrt(1 - 0.98) * gauss();
			series_append(&s, t0 + a, round((1.2 * GiB +
				0.4 * GiB * fmin(a / 60, 1) + u) / 4096) *
				4096, inc);
		}
		t0 += 1200 + DT;
	}
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.verdict, VERDICT_INCONCLUSIVE);
	assert_int_equal(f.settle.code, SETTLE_RESTARTS);
	assert_within(f.settle.life_s, 1200, 1, "life");
	assert_true(f.settle.need_s > f.settle.life_s);
	assert_true(f.settle.restarts >= 1);
	char *text = render_settle_string(&f);
	assert_non_null(strstr(text, "incarnations live about 20 min"));
	free(text);
	analysis_release(&f);
	series_release(&s);
}

/*
 * The field report's restart (context.md report 1 and issue 27's first
 * point): csv/field-restart.csv, written by
 *
 *   import random
 *   from datetime import datetime, timezone, timedelta
 *   random.seed(27)
 *   T1 = datetime(2026, 5, 2, 13, 0, 0, tzinfo=timezone.utc)
 *   def iso(s): return (T1 + timedelta(seconds=s)).strftime(
 *       '%Y-%m-%dT%H:%M:%SZ')
 *   print('time,pid,footprint,requests,connections')
 *   req = 9000
 *   for r in range(120):                # pid 4242: 30 min, 240 -> 245
 *       fp = 245.0 if r == 119 else 240 + 5 * r / 119 + \
 *           random.gauss(0, 0.03)
 *       req += 2
 *       print(iso(15 * r), 4242, '%.2f GiB' % fp, req, 3, sep=',')
 *   req = 0
 *   for r in range(960):                # pid 5151: 4 h from 45 s after
 *       a = 15 * r
 *       if a < 120: fp, conn = 120 + 45 * a / 120, 0       # loading
 *       elif a < 960: fp, conn = 165 + 37.7 * (a - 120) / 840, 0
 *       elif a < 2160: fp, conn = 202.7, 0                 # idle 20 min
 *       elif a < 5760:                                     # active 1 h
 *           fp, conn = 202.7 + 6 * (a - 2160) / 3600, 2; req += 1
 *       elif a < 7560: fp, conn = 208.7, 0                 # idle 30 min
 *       elif a < 11160:                                    # active 1 h
 *           fp, conn = 208.7 + 6 * (a - 7560) / 3600, 2; req += 1
 *       else: fp, conn = 214.7, 0
 *       fp += random.gauss(0, 0.03)
 *       print(iso(1830 + a), 5151, '%.2f GiB' % fp, req, conn, sep=',')
 *
 * The new incarnation loads (120 -> 165 GiB in 2 min), warms up for 16 min
 * to 202.7 GiB in two stages, idles, then grows while requests run. The
 * restart gave back 245.00 - 202.7 = 42.3 GiB; with the old default
 * (a 10 min warm-up) the idle window began mid-ramp and it said 36.2 GiB.
 */
static void test_field_restart(void **state)
{
	(void)state;
	struct dataset d;
	assert_int_equal(csv_read_file(fixture("field-restart.csv"), &d), 0);
	const struct series *s = &d.targets[0];
	assert_int_equal(s->n_incs, 2);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(s, &o, &f);
	assert_int_equal(f.restarts.n, 1);
	assert_within(f.restarts.r[0].recovered, 42.3 * GiB, 0.5 * GiB,
		      "recovered, default options");
	const struct warmup_finding *w = &f.warmups[1];
	assert_int_equal(w->source, WARMUP_FOUND);
	assert_within(w->end - w->start, 960, 30, "warm-up 16 min");
	assert_within(w->level, 202.7 * GiB, 0.5 * GiB, "level");
	/* the slope is read after it */
	assert_true(f.slope_start >= w->end_high);
	assert_true(reason_says(&f, SIZE_MAX, "warmed up for 16 min"));
	/* no idle window rises through the warm-up any more */
	assert_false(reason_says(&f, SIZE_MAX, "memory rose by up to"));
	analysis_release(&f);

	/* --warmup stays an override: 20 min lands in the idle level */
	o.warmup_s = 1200;
	analysis_run(s, &o, &f);
	assert_int_equal(f.warmups[1].source, WARMUP_GIVEN);
	assert_within(f.restarts.r[0].recovered, 42.3 * GiB, 0.5 * GiB,
		      "recovered, --warmup 20min");
	analysis_release(&f);
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_hksj),
		cmocka_unit_test(test_t_quantile),
		cmocka_unit_test(test_warmup_found),
		cmocka_unit_test(test_pooled_leak),
		cmocka_unit_test(test_pooled_flat),
		cmocka_unit_test(test_advice_restarts),
		cmocka_unit_test(test_field_restart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
