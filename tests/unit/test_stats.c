/*
 * test_stats.c - stats.c and stats_slope.c against values from three
 * independent sources:
 *
 *  - hand computation (the 5-point series, bucketing, resolution, pair
 *    counts): worked out in the comments next to the numbers;
 *  - scipy 1.10.1 / numpy 1.24.2 as Debian ships them (/usr/bin/python3;
 *    not a pyenv python): scipy.stats.theilslopes(y, x, 0.95,
 *    method='joint'), scipy.stats.kendalltau, scipy.stats.norm, and
 *    REFERENCE_LF below: dense-matrix numpy/scipy code of the interval
 *    verdicts use (stats_lowfreq.h), written apart from the C's O(n)
 *    recursions; printed with repr() and pasted here;
 *  - brute force in this file: every pairwise slope sorted, S by the
 *    O(n^2) double loop, tie sums by explicit grouping.
 *
 * Slope selection must return exactly the double a brute-force sort holds
 * at each rank, so those comparisons use ==. Values recorded from Python
 * are compared to 1e-12 (1e-9 where the summation order of the rank
 * autocorrelation differs between numpy and C).
 *
 * lcg_series (the test series, identical in C and Python):
 *
 *   def lcg_series(n, seed, phi, trend, sd):
 *       s = seed; e = 0.0; x = []; y = []
 *       for t in range(n):
 *           acc = 0.0
 *           for _ in range(12):
 *               s = (s * 6364136223846793005 + 1442695040888963407) % 2**64
 *               acc += (s >> 11) * 2.0**-53
 *           e = phi * e + (acc - 6.0)
 *           x.append(float(t)); y.append(1000.0 + trend * t + sd * e)
 *       return np.array(x), np.array(y)
 *
 * REFERENCE_LF is tests/unit/reference_lf.py (stats_lowfreq.h; Debian's
 * /usr/bin/python3 with numpy and scipy's t.cdf and brentq;
 * `interval(t, x, y, slope, work)` returns ci_low, ci_high, p of
 * stats_lf_slope_interval). It builds every covariance as a dense n x n
 * matrix (exp(-|dt|/s), min(t_i, t_j), the identity) where the C runs
 * O(n) recursions and suffix sums; run, it prints every number below.
 *
 * Agreement to 1e-9 with dense matrices checks the algebra, not just the
 * arithmetic.
 */
#include <math.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"
#include "stats_lowfreq.h"

/* ------------------------------------------------------------------ */
/* helpers                                                             */
/* ------------------------------------------------------------------ */

#define check_close(got, want, rel) check_close_at((got), (want), (rel), #got, __LINE__)

static void check_close_at(double got, double want, double rel, const char *what,
			   int line)
{
	double tol = fabs(want) * rel;
	if (!(fabs(got - want) <= tol) && !(got == want)) {
		print_error("line %d: %s: got %.17g, want %.17g (rel %g)\n", line, what,
			    got, want, rel);
		fail();
	}
}

#define check_exact(got, want) check_close_at((got), (want), 0, #got, __LINE__)

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 64-bit LCG (Knuth's MMIX constants), the same in the Python reference */
struct lcg {
	uint64_t s;
};

static double lcg_u01(struct lcg *g)
{
	g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(g->s >> 11) * 0x1p-53;
}

static uint64_t lcg_below(struct lcg *g, uint64_t n)
{
	return (uint64_t)(lcg_u01(g) * (double)n);
}

/* y_t = 1000 + trend t + sd e_t, e_t = phi e_{t-1} + (sum of 12 U - 6):
 * the reference's lcg_series, operation for operation. */
static void lcg_series(size_t n, uint64_t seed, double phi, double trend,
		       double sd, double *x, double *y)
{
	struct lcg g = {seed};
	double e = 0;
	for (size_t t = 0; t < n; t++) {
		double acc = 0;
		for (int j = 0; j < 12; j++)
			acc += lcg_u01(&g);
		e = phi * e + (acc - 6.0);
		x[t] = (double)t;
		y[t] = 1000.0 + trend * (double)t + sd * e;
	}
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Every slope over pairs with x_i < x_j, sorted: the brute force. */
static double *brute_slopes(const double *x, const double *y, size_t n,
			    uint64_t *count)
{
	size_t cap = n * (n - 1) / 2 + 1, m = 0;
	double *s = xmalloc(cap * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			if (x[i] < x[j])
				s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
	qsort(s, m, sizeof(*s), cmp_dbl);
	*count = m;
	return s;
}

static double brute_s(const double *y, size_t n)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	return s;
}

/* ------------------------------------------------------------------ */
/* normal distribution                                                 */
/* ------------------------------------------------------------------ */

static void test_norm(void **state)
{
	(void)state;
	/* scipy.stats.norm.ppf(p) / .cdf(z), repr() */
	static const struct {
		double p, z;
	} ppf[] = {
		{1e-300, -37.0470962993612},   {1e-10, -6.361340902404056},
		{0.001, -3.090232306167813},   {0.025, -1.9599639845400545},
		{0.3, -0.5244005127080409},    {0.975, 1.959963984540054},
		{0.999999, 4.753424308817087},
	};
	for (size_t i = 0; i < ARRAY_SIZE(ppf); i++)
		check_close(stats_norm_ppf(ppf[i].p), ppf[i].z, 4e-15);
	check_exact(stats_norm_ppf(0.5), 0.0);
	assert_true(isinf(stats_norm_ppf(0)) && stats_norm_ppf(0) < 0);
	assert_true(isinf(stats_norm_ppf(1)) && stats_norm_ppf(1) > 0);
	assert_true(isnan(stats_norm_ppf(-0.1)) && isnan(stats_norm_ppf(NAN)));

	static const struct {
		double z, p;
	} cdf[] = {
		{-1.96, 0.024997895148220435},
		{0, 0.5},		     {0.5, 0.6914624612740131},
		{3, 0.9986501019683699},     {8, 0.9999999999999993},
	};
	for (size_t i = 0; i < ARRAY_SIZE(cdf); i++)
		check_close(stats_norm_cdf(cdf[i].z), cdf[i].p, 1e-14);
	/* Deep tail. scipy gives 7.61985302416047e-24 and 0.0; the true
	 * values, from Laplace's continued fraction
	 * Q(x) = phi(x) / (x + 1/(x + 2/(x + 3/(x + ...)))) evaluated with
	 * Python's decimal module at 50 digits (2000 terms), are
	 * 7.6198530241605260659733e-24 and 2.8854283600687843e-316. The
	 * rounding of the erfc argument is amplified 2x^2 = 200 times at
	 * x = 10, so scipy and erfc() both sit ~8e-15 from the truth; at
	 * -38 the result is subnormal (few significant bits). */
	check_close(stats_norm_cdf(-10), 7.6198530241605260659733e-24, 2e-14);
	check_close(stats_norm_cdf(-38), 2.8854283600687843e-316, 1e-7);
	/* round trip across the range */
	for (double p = 1e-12; p < 1; p *= 3.7)
		check_close(stats_norm_cdf(stats_norm_ppf(p)), p, 1e-13);
}

/* ------------------------------------------------------------------ */
/* medians, pair counts                                                */
/* ------------------------------------------------------------------ */

static void test_median(void **state)
{
	(void)state;
	double a[] = {5, 1, 4};
	check_exact(stats_median_inplace(a, 3), 4.0);
	double b[] = {7, 1, 3, 5}; /* middle two 3, 5 */
	check_exact(stats_median_inplace(b, 4), 4.0);
	double c[] = {2};
	check_exact(stats_median_inplace(c, 1), 2.0);
	double d[] = {3, 3, 3, 1, 3, 9}; /* sorted 1 3 3 3 3 9 */
	check_exact(stats_median_inplace(d, 6), 3.0);

	/* against a sorted copy: random, sorted, reversed, few values, and
	 * organ-pipe input (a classic quickselect worst case) */
	struct lcg g = {99};
	size_t n = 100001;
	double *v = xmalloc(n * sizeof(*v)), *s = xmalloc(n * sizeof(*s));
	for (int kind = 0; kind < 5; kind++) {
		for (size_t i = 0; i < n; i++) {
			switch (kind) {
			case 0: v[i] = lcg_u01(&g); break;
			case 1: v[i] = (double)i; break;
			case 2: v[i] = (double)(n - i); break;
			case 3: v[i] = (double)lcg_below(&g, 3); break;
			default: v[i] = (double)(i < n / 2 ? i : n - i); break;
			}
		}
		memcpy(s, v, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_dbl);
		check_exact(stats_median_inplace(v, n), s[n / 2]);
		/* even length: mean of the two middle values */
		memcpy(v, s, (n - 1) * sizeof(*v));
		for (size_t i = 0; i + 1 < n - 1; i += 2) { /* shuffle pairs */
			double t = v[i];
			v[i] = v[n - 2 - i];
			v[n - 2 - i] = t;
		}
		check_exact(stats_median_inplace(v, n - 1),
			    (s[(n - 1) / 2 - 1] + s[(n - 1) / 2]) / 2);
	}
	free(v);
	free(s);
}

static void test_pair_count(void **state)
{
	(void)state;
	/* 6 points: C(6,2) = 15 pairs, minus ties {1,1}: 1 and {3,3,3}: 3 */
	double x[] = {1, 1, 2, 3, 3, 3};
	assert_int_equal(stats_pair_count(x, 6), 11);
	double y[] = {4, 4, 4};
	assert_int_equal(stats_pair_count(y, 3), 0);
	assert_int_equal(stats_pair_count(y, 1), 0);
	double z[] = {0, 1, 2, 3, 4};
	assert_int_equal(stats_pair_count(z, 5), 10);
}

/* ------------------------------------------------------------------ */
/* a hand-computed trend                                               */
/* ------------------------------------------------------------------ */

/*
 * x = 1..5, y = 2 4 3 8 6. By hand:
 *  slopes (i,j): (1,2) 2  (1,3) 1/2  (1,4) 2  (1,5) 1  (2,3) -1
 *                (2,4) 2  (2,5) 2/3  (3,4) 5  (3,5) 3/2  (4,5) -2
 *  sorted: -2 -1 1/2 2/3 1 3/2 2 2 2 5; N = 10, median (1 + 3/2)/2 = 1.25
 *  residuals y - 1.25 x: 0.75 1.5 -0.75 3 -0.25 -> median 0.75
 *  S: 8 increasing pairs - 2 decreasing ((2,3), (4,5)) = 6
 *  Var(S) = 5*4*15/18 = 50/3 (no ties)
 *  Hamed-Rao: residual ranks 3 4 1 5 2, centred 0 1 -2 2 -1, sum sq 10;
 *  r1 = (0 - 2 - 4 - 2)/10 = -0.8, r2 = 0.4, r3 = -0.1, r4 = 0; band
 *  1.96/sqrt(5) = 0.877: none significant, factor 1
 *  z = (6 - 1)/sqrt(50/3) = sqrt(1.5); p = erfc(sqrt(1.5)/sqrt(2))
 *  Sen: sigma = sqrt(50/3) = 4.0825; Ru = round((10 + 1.96*4.0825)/2)
 *  = round(9.0008) = 9 -> 5; Rl = round((10 - 8.0015)/2) - 1 = 0 -> -2
 * scipy.stats.theilslopes(y, x, method='joint') agrees: (1.25, 0.75, -2, 5).
 */
static void test_trend_hand(void **state)
{
	(void)state;
	double x[] = {1, 2, 3, 4, 5}, y[] = {2, 4, 3, 8, 6};
	static const double sorted[] = {-2, -1, 0.5, 2.0 / 3, 1, 1.5, 2, 2, 2, 5};
	for (uint64_t k = 0; k < 10; k++)
		check_exact(stats_kth_pairwise_slope(x, y, 5, k), sorted[k]);
	assert_int_equal(stats_pair_count(x, 5), 10);
	check_exact(stats_mann_kendall_s(y, 5), 6.0);
	check_close(stats_mann_kendall_var(y, 5), 50.0 / 3, 1e-15);
	struct trend_result r;
	assert_int_equal(stats_trend_compute_sen(x, y, 5, &r), 0);
	assert_int_equal(r.n_raw, 5);
	assert_int_equal(r.n, 5);
	assert_false(r.bucketed);
	assert_int_equal(r.n_pairs, 10);
	check_exact(r.slope, 1.25);
	check_exact(r.intercept, 0.75);
	/* Sen's textbook interval, as scipy's theilslopes */
	check_exact(r.sen_low, -2.0);
	check_exact(r.sen_high, 5.0);
	check_exact(r.mk_s, 6.0);
	check_close(r.mk_var_s, 50.0 / 3, 1e-15);
	/* the interval verdicts use: REFERENCE_LF interval(x, x, y, 1.25)
	 * -> (-1.9844413076900809, 4.202231213328262, 0.27414781573110614)
	 * (three projections: t with 3 degrees of freedom) */
	check_close(r.ci_low, -1.9844413076900809, 1e-9);
	check_close(r.ci_high, 4.202231213328262, 1e-9);
	check_close(r.p_value, 0.27414781573110614, 1e-9);
	/* z = (S - 1) / sqrt(Var(S) * inflation), unwidened sqrt(1.5) */
	check_close(r.mk_z, 5 / sqrt(50.0 / 3 * r.variance_inflation), 1e-14);
}

/* ------------------------------------------------------------------ */
/* scipy's theilslopes on a noisy series with ties                     */
/* ------------------------------------------------------------------ */

/* numpy.random.default_rng(2): x = sort(integers(0, 22, 30)),
 * y = 3 x + integers(-12, 13, 30); 13 tied x, 9 tied y values. */
static const double tie_x[30] = {1,  2,  2,  3,  4,  4,  5,  5,  6,  6,
				 6,  7,  9,  9,  9,  9,  12, 12, 13, 14,
				 14, 14, 16, 16, 17, 17, 18, 19, 20, 21};
static const double tie_y[30] = {-4, 9,  17, 21, 21, 17, 12, 12, 6,  10,
				 14, 17, 29, 27, 32, 37, 45, 43, 51, 37,
				 52, 53, 41, 47, 53, 56, 59, 47, 59, 53};

static void test_trend_scipy_ties(void **state)
{
	(void)state;
	struct trend_result r;
	assert_int_equal(stats_trend_compute_sen(tie_x, tie_y, 30, &r), 0);
	/* scipy.stats.theilslopes(y, x, 0.95, method='joint')
	 * -> 2.8461538461538463 3.3461538461538454 2.3157894736842106 3.4 */
	check_exact(r.slope, 2.8461538461538463);
	check_exact(r.intercept, 3.3461538461538454);
	check_exact(r.sen_low, 2.3157894736842106);
	check_exact(r.sen_high, 3.4);
	/* REFERENCE_LF interval(x, x, y, slope), tied times as they are
	 * (16 distinct times: 14 projections left beside 1 and x)
	 * -> (0.4706263960715774, 5.106158490125893, 0.030419195270338886);
	 * integer readings: the steps between neighbours are heavy-tailed
	 * and the residuals' normal scores are taken (Acklam's inverse in
	 * the C, relative error < 1.2e-9, scipy's exact one in the
	 * reference: to 1e-8) */
	check_close(r.ci_low, 0.4706263960715774, 1e-8);
	check_close(r.ci_high, 5.106158490125893, 1e-8);
	assert_int_equal(r.n_pairs, 417); /* reference n_pairs */
	/* S over pairs with x_i < x_j and Kendall's variance with ties in
	 * both: reference S = 311, var = 3107.7904761904765, equal to what
	 * scipy.stats.kendalltau's p (2.422956286527539e-08) implies */
	check_exact(r.mk_s, 311.0);
	check_close(r.mk_var_s, 3107.7904761904765, 1e-14);
	check_close(r.p_value, 0.030419195270338886, 1e-8);
	check_close(erfc(fabs(r.mk_s) / sqrt(r.mk_var_s) / sqrt(2.0)),
		    2.422956286527539e-08, 1e-12);
	/* the brute force S with x ties excluded */
	double s = 0;
	for (size_t i = 0; i < 30; i++)
		for (size_t j = i + 1; j < 30; j++)
			if (tie_x[i] < tie_x[j])
				s += (tie_y[j] > tie_y[i]) - (tie_y[j] < tie_y[i]);
	check_exact(r.mk_s, s);
}

/* ------------------------------------------------------------------ */
/* The autocorrelation-aware interval against a dense reference        */
/* ------------------------------------------------------------------ */

static void test_lf_interval_reference(void **state)
{
	(void)state;
	/* x, y = lcg_series(200, seed, phi, tr, 3.0); the slope is
	 * scipy.stats.theilslopes(y, x)[0]; the interval and p
	 * REFERENCE_LF interval(x, x, y, slope): what stats_trend_compute()
	 * gives the verdicts */
	static const struct {
		uint64_t seed;
		double phi, tr;
		double slope, ci_low, ci_high, p;
	} cases[] = {
		/* phi 0.8 with a trend of 0.5/step: scipy's uncorrected
		 * interval [0.4833, 0.5047] is far too narrow */
		{1, 0.8, 0.5, 0.49397516507630096, 0.45227169573951076,
		 0.5607520218513621, 6.891387437747646e-07},
		/* phi 0.8, no trend: the uncorrected p would be 1.4e-5 */
		{7, 0.8, 0.0, 0.02660296780743393, -0.017916104345310022,
		 0.08078049995118872, 0.15983625523507997},
		/* phi -0.6 */
		{42, -0.6, 0.05, 0.05063895662977622, 0.044867843682025677,
		 0.06076903624466481, 4.5638033809616625e-05},
		/* phi 0.98: a correlation time of a quarter of the window;
		 * a plausible model's own interval is held (LF_PLAUSIBLE_WEIGHT:
		 * the mixture's alone was [-0.167, 0.444], p 0.385) */
		{3, 0.98, 0.02, 0.017357923092206365, -0.3009768097799961,
		 0.5900506118430157, 0.5095132489109548},
	};
	double x[200], y[200];
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		lcg_series(200, cases[c].seed, cases[c].phi, cases[c].tr, 3.0, x, y);
		struct trend_result r;
		assert_int_equal(stats_trend_compute(x, y, 200, &r), 0);
		check_exact(r.slope, cases[c].slope);
		check_close(r.ci_low, cases[c].ci_low, 1e-9);
		check_close(r.ci_high, cases[c].ci_high, 1e-9);
		check_close(r.p_value, cases[c].p, 1e-8);
		/* the building block directly: the same numbers */
		struct stats_lf_result lf;
		assert_int_equal(stats_lf_slope_interval(x, x, y, 200, r.slope,
							 0.95, NULL, &lf), 0);
		check_exact(lf.ci_low, r.ci_low);
		check_exact(lf.ci_high, r.ci_high);
	}
	/* the per-request slope: x is cumulative work (REFERENCE_LF's
	 * run_more: work steps of 0 or 1 + 4u, footprint + 0.7 per unit of
	 * work), t the times; a random walk in the work among the models:
	 * interval(t, w, y, slope, work=True) */
	{
		double t[200], w[200], acc = 0;
		lcg_series(200, 11, 0.9, 0.0, 3.0, t, y);
		struct lcg g = {12345};
		for (size_t i = 0; i < 200; i++) {
			double u = lcg_u01(&g);
			acc += u < 0.2 ? 0.0 : 1.0 + 4.0 * u;
			w[i] = acc;
			y[i] += 0.7 * w[i];
		}
		struct trend_result r;
		assert_int_equal(stats_trend_compute_at(t, w, y, 200, &r), 0);
		check_close(r.slope, 0.7120281265782622, 1e-12);
		check_close(r.ci_low, 0.6452987134910004, 1e-9);
		check_close(r.ci_high, 0.7674292043250523, 1e-9);
		/* a p this small: the tail to 1e-3 of itself (summed from
		 * two mixtures' lower tails, scipy's t.cdf in the reference) */
		check_close(r.p_value, 3.74220140657007e-12, 1e-3);
	}
	/* Clipping and normal scores (stats_lowfreq.c: LF_CLIP and
	 * LF_CLIP_SHARE = 10 %; LF_SCORES_FAR and LF_SCORES_SHARE = 5 %),
	 * REFERENCE_LF: x, y = lcg_series(200, 5, 0.5, 0.1, 1.0).
	 * One reading 1000 up (0.5 % of them): the residuals' normal scores,
	 * -> [0.0921, 0.1091]; clipped to 5 robust sd instead it was
	 * [0.0927, 0.1082]; untouched the spike would own the projections
	 * (reference with CLIP=1e30, no scores: [-0.178, 0.379]).
	 * The first 60 readings 50 down (30 %, a fill): beyond 5 robust sd
	 * for 30 % of the readings the MAD describes the quiet majority,
	 * nothing is clipped -> [-0.422, 0.642] (clipped, the fill would
	 * have shrunk to [-0.318, 0.568]). */
	{
		double ys[200];
		lcg_series(200, 5, 0.5, 0.1, 1.0, x, y);
		memcpy(ys, y, sizeof(ys));
		ys[100] += 1000.0;
		struct trend_result r;
		assert_int_equal(stats_trend_compute(x, ys, 200, &r), 0);
		check_close(r.slope, 0.09983688588650413, 1e-12);
		check_close(r.ci_low, 0.0921210265343955, 1e-9);
		check_close(r.ci_high, 0.10906016370378849, 1e-9);
		check_close(r.p_value, 2.6472433757310963e-06, 1e-6);
		memcpy(ys, y, sizeof(ys));
		for (size_t i = 0; i < 60; i++)
			ys[i] -= 50.0;
		assert_int_equal(stats_trend_compute(x, ys, 200, &r), 0);
		check_close(r.slope, 0.17797173096487018, 1e-12);
		check_close(r.ci_low, -0.42215022357944487, 1e-9);
		check_close(r.ci_high, 0.6419223820587908, 1e-9);
		check_close(r.p_value, 0.6737065812280567, 1e-9);
	}
	/* Heavy tails: lcg_series(200, 9, 0.5, 0.1, 1.0), every 25th reading
	 * (4 %) 8 up or down in turn. Normal scores: REFERENCE_LF
	 * interval(x, x, yh, slope) -> (0.08872484671951623,
	 * 0.1093972566233511, 4.575366551438342e-06); the residuals as they
	 * are (scores=False) gave [0.0872, 0.1103], 11 % wider. */
	{
		double yh[200];
		lcg_series(200, 9, 0.5, 0.1, 1.0, x, y);
		memcpy(yh, y, sizeof(yh));
		for (size_t i = 0; i < 200; i += 25)
			yh[i] += (i / 25) % 2 ? -8.0 : 8.0;
		struct trend_result r;
		assert_int_equal(stats_trend_compute(x, yh, 200, &r), 0);
		check_close(r.slope, 0.09847857539138677, 1e-12);
		check_close(r.ci_low, 0.08872484671951623, 1e-8);
		check_close(r.ci_high, 0.1093972566233511, 1e-8);
		check_close(r.p_value, 4.575366551438342e-06, 1e-6);
		assert_true(r.ci_high - r.ci_low <
			    0.11027588365664745 - 0.08723631132560558);
	}
	/* A spread that changes in time (heteroskedastic_scale()): AR(0.5)
	 * noise 8x as wide in the middle third of 600 points. REFERENCE_LF
	 * interval(x, x, yh, slope) -> (0.04939723752334036,
	 * 0.05165357295260231, 5.0866320196154895e-18); with the spread
	 * fixed (the models before, spread_fixed=True) (0.044197916230138565,
	 * 0.0564964219594882, 4.520838305564417e-06), 5.5x as wide: the
	 * stationary models read the loud third as slow wander. */
	{
		double xh[600], yl[600], yh[600];
		lcg_series(600, 21, 0.5, 0.05, 1.0, xh, yl);
		for (size_t i = 0; i < 600; i++) {
			double g = xh[i] >= 200 && xh[i] < 400 ? 8.0 : 1.0;
			yh[i] = 1000.0 + 0.05 * xh[i] +
				(yl[i] - 1000.0 - 0.05 * xh[i]) * g;
		}
		struct trend_result r;
		assert_int_equal(stats_trend_compute(xh, yh, 600, &r), 0);
		check_close(r.slope, 0.0500792404726388, 1e-12);
		check_close(r.ci_low, 0.04939723752334036, 1e-8);
		check_close(r.ci_high, 0.05165357295260231, 1e-8);
		struct stats_lf_options fixed = {NULL, 0, false, true};
		struct stats_lf_result lf;
		assert_int_equal(stats_lf_slope_interval(xh, xh, yh, 600,
							 r.slope, 0.95, &fixed,
							 &lf), 0);
		check_close(lf.ci_low, 0.044197916230138565, 1e-8);
		check_close(lf.ci_high, 0.0564964219594882, 1e-8);
	}
	/* stronger correlation, wider interval: phi 0.98 > phi 0.8 */
	assert_true(cases[3].ci_high - cases[3].ci_low >
		    cases[1].ci_high - cases[1].ci_low);
	/* a perfect line: nothing left open */
	for (size_t i = 0; i < 200; i++)
		y[i] = 5 + 0.25 * x[i];
	struct stats_lf_result lf;
	assert_int_equal(stats_lf_slope_interval(x, x, y, 200, 0.25, 0.95, NULL,
						 &lf), 0);
	check_exact(lf.ci_low, 0.25);
	check_exact(lf.ci_high, 0.25);
	check_exact(lf.p_value, 0.0);
	assert_int_equal(stats_lf_slope_interval(x, x, y, 2, 0.25, 0.95, NULL,
						 &lf), -1);
	assert_true(isnan(lf.ci_low));
}

/* Student's t against scipy.stats.t.cdf (exact below 400 degrees of
 * freedom, the corrected normal above). */
/* stats_ar_fitter_fit() must give stats_ar_fit()'s doubles exactly (it
 * reuses running sums instead of recomputing them): the constant and line
 * models, hinges bent at many points (the free column equals the time up
 * to the bend), a column equal to no fixed one, and irregular, tied times. */
static void test_ar_fitter_same_bits(void **state)
{
	(void)state;
	enum { N = 300 };
	double t[N], y[N], ones[N], tc[N], hinge[N], other[N];
	for (int c = 0; c < 3; c++) {
		struct lcg g = {(uint64_t)(31 + c)};
		lcg_series(N, (uint64_t)(7 + c), c == 2 ? 0.99 : 0.8, 0.01, 2.0,
			   t, y);
		double tv = 1.7e9;
		for (size_t i = 0; i < N; i++) {
			/* c 1: irregular steps, some ties in time */
			if (c == 1)
				tv += lcg_u01(&g) < 0.1 ? 0 : 15 * (0.5 + lcg_u01(&g));
			else
				tv += 15;
			t[i] = tv;
			y[i] = 1e9 + 4096.0 * round(y[i] * 100);
			ones[i] = 1;
			other[i] = lcg_u01(&g);
		}
		for (size_t i = 0; i < N; i++)
			tc[i] = (t[i] - t[0]) / (t[N - 1] - t[0]);
		const double *fixed[] = {ones, tc};
		struct stats_ar_fitter *f = stats_ar_fitter_new(t, y, N, fixed, 2);
		const double *c0[] = {ones}, *c1[] = {ones, tc},
			     *c2[] = {ones, hinge}, *c3[] = {other, ones},
			     *c4[] = {tc, ones, other};
		const double *const *models[] = {c0, c1, c2, c3, c4};
		size_t ps[] = {1, 2, 2, 2, 3};
		for (int tau_i = 0; tau_i <= 40; tau_i++) {
			double tau = tau_i / 40.0;
			for (size_t i = 0; i < N; i++)
				hinge[i] = fmin(tc[i], tau);
			for (size_t mi = 0; mi < 5; mi++) {
				if (tau_i > 0 && mi != 2)
					continue;
				struct stats_ar_fit a, b;
				int ra = stats_ar_fit(t, models[mi], ps[mi], y, N, &a);
				int rb = stats_ar_fitter_fit(f, models[mi], ps[mi], &b);
				assert_int_equal(ra, rb);
				assert_memory_equal(&a.loglik, &b.loglik, sizeof(double));
				assert_memory_equal(&a.phi, &b.phi, sizeof(double));
				assert_memory_equal(a.beta, b.beta, sizeof(a.beta));
			}
		}
		stats_ar_fitter_free(f);
	}
}

static void test_t_cdf(void **state)
{
	(void)state;
	/* scipy.stats.t.cdf(t, nu) */
	check_close(stats_t_cdf(1.0, 1), 0.75, 1e-13);
	check_close(stats_t_cdf(-2.0, 3), 0.06966298427942155, 1e-12);
	check_close(stats_t_cdf(2.5, 10), 0.9842765778816956, 1e-12);
	check_close(stats_t_cdf(-4.0, 198), 4.471190277940765e-05, 1e-10);
	check_close(stats_t_cdf(1.96, 1000), 0.9748634075221256, 1e-6);
	check_exact(stats_t_cdf(0.0, 5), 0.5);
}

/* ------------------------------------------------------------------ */
/* Mann-Kendall S and Var(S)                                           */
/* ------------------------------------------------------------------ */

static void test_mann_kendall_brute(void **state)
{
	(void)state;
	struct lcg g = {5};
	size_t n = 3000;
	double *y = xmalloc(n * sizeof(*y)), *s = xmalloc(n * sizeof(*s));
	for (int kind = 0; kind < 3; kind++) {
		for (size_t i = 0; i < n; i++) {
			if (kind == 0) /* heavy ties, slight trend */
				y[i] = (double)lcg_below(&g, 40) + (double)(i / 500);
			else if (kind == 1) /* continuous, decreasing */
				y[i] = lcg_u01(&g) - 1e-4 * (double)i;
			else /* constant */
				y[i] = 7;
		}
		check_exact(stats_mann_kendall_s(y, n), brute_s(y, n));
		/* Var(S) with tie groups counted by hand from a sorted copy */
		memcpy(s, y, n * sizeof(*s));
		qsort(s, n, sizeof(*s), cmp_dbl);
		double ties = 0, dn = (double)n;
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i; j < n && s[j] == s[i]; j++)
				;
			double t = (double)(j - i);
			ties += t * (t - 1) * (2 * t + 5);
		}
		check_close(stats_mann_kendall_var(y, n),
			    (dn * (dn - 1) * (2 * dn + 5) - ties) / 18, 1e-15);
	}
	check_exact(stats_mann_kendall_var(y, n), 0.0); /* all tied */
	check_exact(stats_mann_kendall_s(y, 1), 0.0);
	check_exact(stats_mann_kendall_var(y, 1), 0.0);
	free(y);
	free(s);
}

/* ------------------------------------------------------------------ */
/* slope selection against brute force                                 */
/* ------------------------------------------------------------------ */

/* Checks ranks spread over the whole range, both ends, and a dense run
 * around the median against the sorted brute-force slopes, with ==. */
static void check_selection(const double *x, const double *y, size_t n,
			    const char *what)
{
	uint64_t np;
	double *s = brute_slopes(x, y, n, &np);
	assert_int_equal(stats_pair_count(x, n), np);
	int bad = 0, checked = 0;
	for (int i = 0; i < 160; i++) {
		uint64_t k;
		if (i < 100)
			k = (uint64_t)((double)np * i / 100.0);
		else if (i < 140)
			k = np / 2 - 20 + (uint64_t)(i - 100);
		else if (i < 150)
			k = (uint64_t)(i - 140);
		else
			k = np - 1 - (uint64_t)(i - 150);
		double v = stats_kth_pairwise_slope(x, y, n, k);
		checked++;
		if (v != s[k]) {
			if (bad++ < 5)
				print_error("%s: k=%llu got %.17g want %.17g\n", what,
					    (unsigned long long)k, v, s[k]);
		}
	}
	free(s);
	if (bad) {
		print_error("%s: %d of %d ranks wrong\n", what, bad, checked);
		fail();
	}
}

static void test_selection_vs_brute(void **state)
{
	(void)state;
	struct lcg g = {2024};
	size_t n = 3000;
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));

	/* integer x with ~40 % ties, y in 4 KiB pages with ties, a trend */
	double xv = 0;
	for (size_t i = 0; i < n; i++) {
		if (lcg_u01(&g) < 0.6)
			xv += 1 + (double)lcg_below(&g, 3);
		x[i] = xv;
		y[i] = 4096.0 * (double)lcg_below(&g, 50) + 1000.0 * (double)i;
	}
	check_selection(x, y, n, "pages with ties");

	/* Unix-time x with fractions (1.7e9 + ...), large y: the case where
	 * y - t*x in plain doubles would lose the slope's low digits */
	xv = 1.7e9;
	for (size_t i = 0; i < n; i++) {
		if (lcg_u01(&g) < 0.8)
			xv += lcg_u01(&g) * 3;
		x[i] = xv;
		y[i] = 2.5e11 + lcg_u01(&g) * 1e6 + 0.37 * (double)i;
	}
	check_selection(x, y, n, "unix time");

	/* decimal GiB readings (not exact in binary), tiny and large steps
	 * in x: differences of these doubles round */
	xv = 0;
	for (size_t i = 0; i < 2000; i++) {
		xv += lcg_u01(&g) < 0.5 ? 1e-6 : 3;
		x[i] = xv;
		y[i] = 230.63 * 1073741824.0 +
		       (double)lcg_below(&g, 100) * 0.01 * 1073741824.0;
	}
	check_selection(x, y, 2000, "decimal GiB");

	/* two levels (a step) and heavy x ties: most slopes exactly 0 */
	xv = 0;
	for (size_t i = 0; i < 2500; i++) {
		if (lcg_u01(&g) < 0.3)
			xv += 0.5;
		x[i] = xv;
		y[i] = lcg_u01(&g) < 0.5 ? 1e9 : 2e9;
	}
	check_selection(x, y, 2500, "two levels");
	free(x);
	free(y);
}

/*
 * x = 0.1 i, y = 0.7 i (n = 300): neither the x nor the y differences are
 * exact in double, so computed slopes scatter over a few ulps around 7 and
 * are not monotone in the real quotient. Without the guard around the
 * final bracket (found by setting it to 0), ranks 9424-9446 and
 * 40457-40473 came out one ulp off; they are checked here, with every
 * 450th rank, against the brute force.
 */
static void test_selection_guard(void **state)
{
	(void)state;
	size_t n = 300;
	double x[300], y[300];
	for (size_t i = 0; i < n; i++) {
		x[i] = (double)i * 0.1;
		y[i] = (double)i * 0.7;
	}
	uint64_t np;
	double *s = brute_slopes(x, y, n, &np);
	int bad = 0;
	for (uint64_t k = 0; k < np; k++) {
		bool near = (k >= 9380 && k < 9480) || (k >= 40420 && k < 40500);
		if (!near && k % 450)
			continue;
		double v = stats_kth_pairwise_slope(x, y, n, k);
		if (v != s[k] && bad++ < 5)
			print_error("k=%llu got %.17g want %.17g\n", (unsigned long long)k,
				    v, s[k]);
	}
	free(s);
	assert_int_equal(bad, 0);
}

/* Many equal slopes: the bracket cannot shrink below one value, which
 * must neither loop forever nor list every pair. */
static void test_selection_degenerate(void **state)
{
	(void)state;
	size_t n = 2500;
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));
	double t0 = mono_now();

	for (size_t i = 0; i < n; i++) { /* flat: every slope 0 */
		x[i] = (double)i;
		y[i] = 5e9;
	}
	check_selection(x, y, n, "flat");
	for (size_t i = 0; i < n; i++) { /* exactly linear, x ties */
		x[i] = (double)(i / 2);
		y[i] = 4096.0 * x[i] + 7;
	}
	check_selection(x, y, n, "linear 4096");
	for (size_t i = 0; i < n; i++) { /* slope 7/3, not a double */
		x[i] = 3.0 * (double)i;
		y[i] = 7.0 * (double)i;
	}
	check_selection(x, y, n, "linear 7/3");
	/* 0.1 i + 0.3: rounded values, differences not exact, so no
	 * certificate applies and the near-equal slopes are listed (n kept
	 * small: ~N/2 pairs per rank) */
	for (size_t i = 0; i < 1200; i++) {
		x[i] = (double)i;
		y[i] = 0.1 * (double)i + 0.3;
	}
	check_selection(x, y, 1200, "linear 0.1");
	for (size_t i = 0; i < n; i++) { /* a flat run, then a step */
		x[i] = (double)i;
		y[i] = i < n / 2 ? 1e9 : 1e9 + (double)(i % 2) * 4096;
	}
	check_selection(x, y, n, "flat then step");
	printf("degenerate selections: %.2f s\n", mono_now() - t0);

	/* stats_trend_compute on the same shapes */
	struct trend_result r;
	for (size_t i = 0; i < n; i++) {
		x[i] = 1.7e9 + (double)i;
		y[i] = 5e9;
	}
	assert_int_equal(stats_trend_compute(x, y, n, &r), 0);
	check_exact(r.slope, 0.0);
	check_exact(r.ci_low, 0.0);
	check_exact(r.ci_high, 0.0);
	check_exact(r.mk_s, 0.0);
	check_exact(r.p_value, 1.0);
	check_exact(r.mk_z, 0.0);
	/* no residual: nothing widened, the figure is absent */
	assert_true(isnan(r.variance_inflation));
	for (size_t i = 0; i < n; i++)
		y[i] = 4096.0 * (double)i + 7;
	assert_int_equal(stats_trend_compute(x, y, n, &r), 0);
	check_exact(r.slope, 4096.0);
	check_exact(r.ci_low, 4096.0);
	check_exact(r.ci_high, 4096.0);
	/* no residual: nothing widened, the figure is absent */
	assert_true(isnan(r.variance_inflation));
	check_exact(r.mk_s, (double)n * (double)(n - 1) / 2);
	free(x);
	free(y);
}

/* stats_trend_compute on a mid-size series (slope selection path) against an
 * independent brute force: sorted slopes, scipy's index formulas. */
static void test_trend_mid_vs_brute(void **state)
{
	(void)state;
	size_t n = 3000;
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));
	lcg_series(n, 11, 0.9, 0.02, 5.0, x, y);
	for (size_t i = 0; i < n; i++) /* quantise: ties in y */
		y[i] = floor(y[i] * 4) / 4;
	struct trend_result r, plain;
	assert_int_equal(stats_trend_compute_sen(x, y, n, &r), 0);
	/* without Sen's interval: the same figures, bit for bit, and NAN
	 * where Sen's would be */
	assert_int_equal(stats_trend_compute(x, y, n, &plain), 0);
	check_exact(plain.slope, r.slope);
	check_exact(plain.ci_low, r.ci_low);
	check_exact(plain.ci_high, r.ci_high);
	check_exact(plain.p_value, r.p_value);
	assert_true(isnan(plain.sen_low) && isnan(plain.sen_high));
	uint64_t np;
	double *s = brute_slopes(x, y, n, &np);
	assert_int_equal(r.n_pairs, np);
	check_exact(r.slope, np % 2 ? s[np / 2] : (s[np / 2 - 1] + s[np / 2]) / 2);
	double *res = xmalloc(n * sizeof(*res));
	for (size_t i = 0; i < n; i++)
		res[i] = y[i] - r.slope * x[i];
	qsort(res, n, sizeof(*res), cmp_dbl);
	check_exact(r.intercept, n % 2 ? res[n / 2] : (res[n / 2 - 1] + res[n / 2]) / 2);
	/* scipy 1.10: sigsq = 1/18 (n(n-1)(2n+5) - x ties - y ties); x has
	 * no ties */
	double yt = 0, dn = (double)n;
	memcpy(res, y, n * sizeof(*res));
	qsort(res, n, sizeof(*res), cmp_dbl);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && res[j] == res[i]; j++)
			;
		double t = (double)(j - i);
		yt += t * (t - 1) * (2 * t + 5);
	}
	assert_true(yt > 0);
	double sigsq = 1.0 / 18.0 * (dn * (dn - 1) * (2 * dn + 5) - yt);
	double sigma = sqrt(sigsq), z = -1.959963984540054, nt = (double)np;
	double ru = fmin(rint((nt - z * sigma) / 2), nt - 1);
	double rl = fmax(rint((nt + z * sigma) / 2) - 1, 0);
	check_exact(r.sen_low, s[(uint64_t)rl]);
	check_exact(r.sen_high, s[(uint64_t)ru]);
	check_exact(r.mk_s, brute_s(y, n));
	check_close(r.mk_var_s, (dn * (dn - 1) * (2 * dn + 5) - yt) / 18, 1e-15);
	/* phi = 0.9: strongly autocorrelated, so the interval must widen */
	assert_true(r.variance_inflation > 2);
	free(res);
	free(s);
	free(x);
	free(y);
}

/* ------------------------------------------------------------------ */
/* bucketing                                                           */
/* ------------------------------------------------------------------ */

static void test_bucket_medians(void **state)
{
	(void)state;
	/* n = 10 into 3: buckets [0,3) [3,6) [6,10), sizes 3 3 4.
	 * x medians 1, 4, (7+8)/2; y medians of {5,1,3} {9,7,8} {2,6,4,0}:
	 * 3, 8, (2+4)/2 */
	double x[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
	double y[10] = {5, 1, 3, 9, 7, 8, 2, 6, 4, 0};
	double xo[3], yo[3];
	assert_int_equal(stats_bucket_medians(x, y, 10, xo, yo, 3), 3);
	check_exact(xo[0], 1.0);
	check_exact(xo[1], 4.0);
	check_exact(xo[2], 7.5);
	check_exact(yo[0], 3.0);
	check_exact(yo[1], 8.0);
	check_exact(yo[2], 3.0);
	/* n <= max_out: copied */
	double xc[10], yc[10];
	assert_int_equal(stats_bucket_medians(x, y, 10, xc, yc, 10), 10);
	assert_memory_equal(xc, x, sizeof(x));
	assert_memory_equal(yc, y, sizeof(y));
	assert_int_equal(stats_bucket_medians(x, y, 0, xc, yc, 10), 0);

	/* n = 1,000,003 into 65536: 15 or 16 points each (16963 of 16);
	 * with y = x = i a bucket's medians are the middle of its run */
	size_t n = 1000003, nb = STATS_BUCKETS_MAX;
	double *bx = xmalloc(n * sizeof(*bx)), *by = xmalloc(n * sizeof(*by));
	double *ox = xmalloc(nb * sizeof(*ox)), *oy = xmalloc(nb * sizeof(*oy));
	for (size_t i = 0; i < n; i++)
		bx[i] = by[i] = (double)i;
	for (size_t i = 0; i < n; i += 2) /* disorder y inside buckets */
		if (i + 1 < n && (i / 16) % 2) {
			double t = by[i];
			by[i] = by[i + 1];
			by[i + 1] = t;
		}
	assert_int_equal(stats_bucket_medians(bx, by, n, ox, oy, nb), nb);
	size_t sixteen = 0;
	for (size_t b = 0; b < nb; b++) {
		uint64_t start = (uint64_t)b * n / nb, end = (uint64_t)(b + 1) * n / nb;
		uint64_t len = end - start;
		assert_true(len == 15 || len == 16);
		sixteen += len == 16;
		double mid = len % 2 ? (double)(start + len / 2)
				     : ((double)(start + len / 2 - 1) + (double)(start + len / 2)) / 2;
		if (ox[b] != mid || oy[b] != mid) {
			print_error("bucket %zu: %g %g, want %g\n", b, ox[b], oy[b], mid);
			fail();
		}
	}
	assert_int_equal(sixteen, n % nb);
	free(bx);
	free(by);
	free(ox);
	free(oy);
}

/* ------------------------------------------------------------------ */
/* resolution                                                          */
/* ------------------------------------------------------------------ */

static void test_resolution(void **state)
{
	(void)state;
	/* /proc-like: pages; steps 8192 and 12288, GCD 4096 */
	double pages[] = {4096 * 1000.0, 4096 * 1002.0, 4096 * 1005.0, 4096 * 1005.0,
			  4096 * 1003.0};
	check_exact(stats_resolution(pages, 5, 0), 4096.0);
	/* whole GB with steps 2 GB and 3 GB: 1e9, with or without the hint */
	double gb[] = {21e9, 23e9, 26e9, 26e9, 24e9};
	check_exact(stats_resolution(gb, 5, 0), 1e9);
	check_exact(stats_resolution(gb, 5, 1e9), 1e9);
	/* three equal readings, hint 1e9 -> 1e9 */
	double eq[] = {5e9, 5e9, 5e9};
	check_exact(stats_resolution(eq, 3, 1e9), 1e9);
	/* no hint, no steps -> 1 byte; one point -> 1 */
	check_exact(stats_resolution(eq, 3, 0), 1.0);
	check_exact(stats_resolution(eq, 1, 0), 1.0);
	/* steps smaller than the hint: the hint stands */
	double fine[] = {1000, 1001, 1003};
	check_exact(stats_resolution(fine, 3, 0), 1.0);
	check_exact(stats_resolution(fine, 3, 4096), 4096.0);
	/* 0.01 GiB text: steps 0.05 and 0.03 GiB (rounded through decimal
	 * text) -> GCD 1 quantum */
	double q = 0.01 * 1073741824.0;
	double gib[] = {230.63 * 1073741824.0, 230.68 * 1073741824.0,
			230.71 * 1073741824.0};
	check_close(stats_resolution(gib, 3, q), q, 1e-15);
	/* bytes with a common 1 MB step, hint 0: GCD of 3 MB and 5 MB */
	double mb[] = {100e6, 103e6, 108e6};
	check_exact(stats_resolution(mb, 3, 0), 1e6);
}

/* Readings that never change: what unit they honestly share. */
#define SHARED(want, ...) do { \
	const double v_[] = {__VA_ARGS__}; \
	check_exact(stats_resolution_shared(v_, ARRAY_SIZE(v_)), (want)); \
} while (0)

static void test_resolution_shared(void **state)
{
	(void)state;
	double gib = 1073741824.0;
	/* the field report: "21000000000" three times is whole GB */
	SHARED(1e9, 21e9, 21e9, 21e9);
	/* "20 GB" is whole GB, not tens of GB: never above the prefix the
	 * reading is printed in; 100 GB the same */
	SHARED(1e9, 20e9, 20e9, 20e9);
	SHARED(1e9, 100e9, 100e9);
	/* decimals of a prefix: 21.5 GB, 5408 MB */
	SHARED(1e8, 21.5e9, 21.5e9, 21.5e9);
	SHARED(1e6, 5408e6, 5408e6);
	/* issue 26: exactly 1 GiB repeated (4 KiB pages, e.g. a memcached
	 * cap) is one value's zero bits, not a 1 GiB unit: the page */
	SHARED(4096, gib, gib, gib);
	SHARED(4096, 20 * gib, 20 * gib, 20 * gib);
	SHARED(4096, 4096 * 1001.0, 4096 * 1001.0, 4096 * 1001.0);
	/* different readings sharing the zero bits: that is a unit */
	SHARED(gib, gib, 2 * gib, 3 * gib);
	SHARED(gib, 0, gib, 2 * gib);
	SHARED(65536, 65536 * 3.0, 65536 * 5.0);
	/* a page count with six decimal zeros (500,000 pages): whole MB */
	SHARED(1e6, 2048e6, 2048e6);
	/* 512000 is 125 pages: the page beats 1 kB */
	SHARED(4096, 512000, 512000);
	/* one or two decimal zeros are no printed unit; not pages either */
	SHARED(0, 1230, 1230, 1230);
	SHARED(0, 21474836480.0 + 10, 21474836480.0 + 10);
	/* nothing shared, not whole bytes, only zeros: nothing */
	SHARED(0, 21474836481.0, 21474836481.0, 21474836481.0);
	SHARED(0, 1.3 * gib, 1.3 * gib);
	SHARED(0, 0, 0, 0);
	check_exact(stats_resolution_shared(NULL, 0), 0.0);
	/* the sign does not matter */
	SHARED(1e9, -21e9, -21e9);
}
#undef SHARED

/* A trend's noise figures are absent where they mean nothing. */
static void test_trend_noise_figures(void **state)
{
	(void)state;
	enum { N = 300 };
	double x[N], y[N];
	struct trend_result r;
	/* issue 26: 1.3 GiB (not whole bytes) never changing once; the
	 * report said "wander together over about 9.7 h, which widens the
	 * interval x1.8e-09" */
	for (size_t i = 0; i < N; i++) {
		x[i] = 1.7e9 + 15.0 * (double)i;
		y[i] = 1.3 * 1073741824.0;
	}
	assert_int_equal(stats_trend_compute(x, y, N, &r), 0);
	stats_trend_noise_figures(&r, y, N);
	assert_true(isnan(r.variance_inflation));
	assert_true(isnan(r.corr_time));
	assert_true(isnan(r.ar_phi));
	check_exact(r.slope, 0.0);  /* the slope and interval stand */
	assert_true(isfinite(r.ci_low) && isfinite(r.ci_high));
	/* whole bytes never changing; a perfect line of tied readings */
	for (size_t i = 0; i < N; i++)
		y[i] = 1073741824.0;
	assert_int_equal(stats_trend_compute(x, y, N, &r), 0);
	stats_trend_noise_figures(&r, y, N);
	assert_true(isnan(r.variance_inflation) && isnan(r.corr_time));
	for (size_t i = 0; i < N; i++)
		y[i] = 1073741824.0 + 4096.0 * (double)i;
	assert_int_equal(stats_trend_compute(x, y, N, &r), 0);
	stats_trend_noise_figures(&r, y, N);
	assert_true(isnan(r.variance_inflation) && isnan(r.corr_time));
	/* real noise: the figures stay, inflation >= 1 */
	lcg_series(N, 7, 0.9, 0.5, 10, x, y);
	assert_int_equal(stats_trend_compute(x, y, N, &r), 0);
	double vi = r.variance_inflation, ct = r.corr_time;
	stats_trend_noise_figures(&r, y, N);
	check_exact(r.variance_inflation, vi);
	check_exact(r.corr_time, ct);
	assert_true(r.variance_inflation >= 1 && r.corr_time > 0);
	/* figures from a degenerate fit, on readings that do vary: an
	 * inflation below 1 (the 3.5e-18) or a correlation time
	 * that is not a number are absent; INFINITY (longer than the
	 * window) and 0 (independent) are findings */
	struct trend_result base = r;
	r = base;
	r.variance_inflation = 3.5e-18;
	stats_trend_noise_figures(&r, y, N);
	assert_true(isnan(r.variance_inflation) && isnan(r.corr_time) &&
		    isnan(r.ar_phi));
	r = base;
	r.corr_time = NAN;
	stats_trend_noise_figures(&r, y, N);
	assert_true(isnan(r.variance_inflation));
	r = base;
	r.variance_inflation = 1;
	r.corr_time = INFINITY;
	stats_trend_noise_figures(&r, y, N);
	check_exact(r.variance_inflation, 1.0);
	assert_true(isinf(r.corr_time));
	r = base;
	r.corr_time = 0;
	stats_trend_noise_figures(&r, y, N);
	check_exact(r.corr_time, 0.0);
	check_exact(r.variance_inflation, vi);
}

/* ------------------------------------------------------------------ */
/* contract edges                                                      */
/* ------------------------------------------------------------------ */

/* The slope between steps (stats_trend_compute_steps): 12 h at 15 s
 * (2881 points) leaking 15 MiB/h, a release of 1 GiB at point 1440.
 * Truth by construction: 15 MiB/h. Noise-free, every segment's line is
 * exact: the slope to 1e-9 and a zero-width interval (a perfect fit).
 * With a deterministic jitter of 4 MiB x sin(2.4 i) (fast: it cannot
 * move a Theil-Sen slope of 2881 points by more than a few KiB/h), the
 * slope within 0.2 MiB/h of the truth, an interval that covers it and
 * is narrower than 2 MiB/h; the plain trend, the release read as part of
 * the slope, is below 0 (1 GiB given back in 12 h outweighs 180 MiB
 * kept). Bad breaks: -1. */
static void test_trend_steps(void **state)
{
	(void)state;
	const double mib = 1048576.0, gib = 1073741824.0;
	size_t n = 2881;
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	assert_non_null(x);
	assert_non_null(y);
	double truth = 15 * mib / 3600;
	for (int noisy = 0; noisy < 2; noisy++) {
		for (size_t i = 0; i < n; i++) {
			x[i] = 1.7e9 + 15.0 * (double)i;
			y[i] = 2 * gib + truth * 15.0 * (double)i -
			       (i >= 1440 ? gib : 0) +
			       (noisy ? 4 * mib * sin(2.4 * (double)i) : 0);
		}
		size_t starts[] = {1440};
		struct trend_result tr, plain;
		assert_int_equal(stats_trend_compute_steps(x, y, n, starts, 1,
							   &tr), 0);
		assert_int_equal(stats_trend_compute(x, y, n, &plain), 0);
		assert_true(plain.slope < 0);
		/* the slope alone is the trend's slope, to the bit: 2881
		 * points give an even count of pairs (the mean of the
		 * middle two), 2879 an odd one (the middle one) */
		assert_true(stats_theil_sen_slope(x, y, n) == plain.slope);
		struct trend_result odd;
		assert_int_equal(stats_trend_compute(x, y, n - 2, &odd), 0);
		assert_true(stats_theil_sen_slope(x, y, n - 2) == odd.slope);
		if (!noisy) {
			assert_true(fabs(tr.slope / truth - 1) < 1e-9);
			assert_true(tr.ci_low == tr.ci_high);
		} else {
			assert_true(fabs(tr.slope - truth) * 3600 < 0.2 * mib);
			assert_true(tr.ci_low <= truth && truth <= tr.ci_high);
			assert_true((tr.ci_high - tr.ci_low) * 3600 < 2 * mib);
			assert_true(tr.p_value < 1e-6);
		}
	}
	size_t bad[] = {0};
	struct trend_result tr;
	assert_int_equal(stats_trend_compute_steps(x, y, n, bad, 1, &tr), -1);
	size_t unordered[] = {2000, 1000};
	assert_int_equal(stats_trend_compute_steps(x, y, n, unordered, 2, &tr),
			 -1);
	free(x);
	free(y);
}

static void test_trend_invalid(void **state)
{
	(void)state;
	struct trend_result r;
	double x[] = {3, 3, 3}, y[] = {1, 2, 3};
	memset(&r, 0x55, sizeof(r));
	assert_int_equal(stats_trend_compute(x, y, 3, &r), -1); /* one distinct x */
	assert_true(isnan(r.slope));
	assert_int_equal(r.n, 0);
	assert_int_equal(r.n_pairs, 0);
	assert_true(isnan(r.ci_low) && isnan(r.ci_high));
	check_exact(r.p_value, 0.0);
	assert_int_equal(stats_trend_compute(x, y, 1, &r), -1);
	assert_true(isnan(r.slope));
	assert_int_equal(stats_trend_compute(x, y, 0, &r), -1);
	/* two points: one slope */
	double x2[] = {0, 10}, y2[] = {100, 150};
	assert_int_equal(stats_trend_compute_sen(x2, y2, 2, &r), 0);
	check_exact(r.slope, 5.0);
	check_exact(r.intercept, 100.0); /* residuals 100 - 0, 150 - 50 */
	check_exact(r.sen_low, 5.0);
	check_exact(r.sen_high, 5.0);
	/* no interval from two points: nothing is left to judge noise by */
	assert_true(isnan(r.ci_low) && isnan(r.ci_high));
	check_exact(r.mk_s, 1.0);
	check_exact(r.mk_var_s, 1.0); /* 2*1*9/18 */
	check_exact(r.mk_z, 0.0);     /* (1 - 1)/1 */
	check_exact(r.p_value, 1.0);
	assert_int_equal(r.n_pairs, 1);
}

/* ------------------------------------------------------------------ */
/* large series and timing                                             */
/* ------------------------------------------------------------------ */

/* linear trend (100 B per 5 s step) plus deterministic noise in pages */
static void make_large(size_t n, double *x, double *y)
{
	struct lcg g = {77};
	for (size_t i = 0; i < n; i++) {
		x[i] = 1.7e9 + 5.0 * (double)i;
		y[i] = 1e9 + 100.0 * (double)i + 4096.0 * (double)lcg_below(&g, 256);
	}
}

static void test_perf_65536_exact(void **state)
{
	(void)state;
	size_t n = STATS_EXACT_MAX;
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));
	make_large(n, x, y);
	struct trend_result r;
	double t0 = mono_now();
	assert_int_equal(stats_trend_compute(x, y, n, &r), 0);
	double dt = mono_now() - t0;
	printf("stats_trend_compute n=%zu (exact): %.3f s, slope %.6f [%.6f, %.6f] f=%.3f\n",
	       n, dt, r.slope, r.ci_low, r.ci_high, r.variance_inflation);
	assert_false(r.bucketed);
	assert_int_equal(r.n, n);
	assert_int_equal(r.n_pairs, (uint64_t)n * (n - 1) / 2);
	assert_true(r.ci_low <= 20.0 && 20.0 <= r.ci_high); /* true slope 20/s */
	assert_true(r.ci_low <= r.slope && r.slope <= r.ci_high);
	assert_true(r.ci_low < r.ci_high);
	/* a mixture of t with 24 degrees of freedom: its tail at ~10^3 se */
	assert_true(r.p_value < 1e-30);
	/* the median against selection of the same ranks one at a time */
	uint64_t np = r.n_pairs;
	double lo = stats_kth_pairwise_slope(x, y, n, np / 2 - 1);
	double hi = stats_kth_pairwise_slope(x, y, n, np / 2);
	check_exact(r.slope, (lo + hi) / 2);
	/* requirement: < 1 s at -O2; sanitizer builds get slack */
	assert_true(dt < 3.0);
	free(x);
	free(y);
}

static void test_perf_10m_bucketed(void **state)
{
	(void)state;
	size_t n = 10 * 1000 * 1000;
	double *x = xmalloc(n * sizeof(*x)), *y = xmalloc(n * sizeof(*y));
	make_large(n, x, y);
	struct trend_result r;
	double t0 = mono_now();
	assert_int_equal(stats_trend_compute(x, y, n, &r), 0);
	double dt = mono_now() - t0;
	printf("stats_trend_compute n=%zu (bucketed to %zu): %.3f s, slope %.6f [%.6f, %.6f] f=%.3f\n",
	       n, r.n, dt, r.slope, r.ci_low, r.ci_high, r.variance_inflation);
	assert_true(r.bucketed);
	assert_int_equal(r.n_raw, n);
	assert_int_equal(r.n, STATS_BUCKETS_MAX);
	assert_true(fabs(r.slope - 20.0) < 0.01);
	assert_true(r.ci_low <= 20.0 && 20.0 <= r.ci_high);
	/* requirement: < 2 s at -O2 on 2 cores; generous for sanitizers */
	assert_true(dt < 6.0);

	/* a collinear series whose slope is not a double, bucketed */
	for (size_t i = 0; i < n; i++) {
		x[i] = 3.0 * (double)i;
		y[i] = 7.0 * (double)i;
	}
	t0 = mono_now();
	assert_int_equal(stats_trend_compute(x, y, n, &r), 0);
	printf("collinear 7/3, n=%zu: %.3f s\n", n, mono_now() - t0);
	check_exact(r.slope, 7.0 / 3.0);
	check_exact(r.ci_low, 7.0 / 3.0);
	check_exact(r.ci_high, 7.0 / 3.0);
	free(x);
	free(y);
}

/* Brown-Forsythe's F (stats_brown_forsythe): the expected values are
 * scipy 1.10.1's scipy.stats.levene(*groups, center='median').statistic
 * over the same consecutive runs ([k n / g, (k + 1) n / g)). */
/* The slope's variance from an error that persists (a sampled sum's):
 * by hand on three points, the continuum's 6 / (5 n) on many, and a
 * fall taken as no step. */
static void test_walk_slope_variance(void **state)
{
	(void)state;
	/* x = 0, 1, 2: slope = (e2 - e0) / 2 = (u1 + u2) / 2, var 2 / 4 */
	const double x3[] = {0, 1, 2}, v3[] = {0, 1, 2};
	assert_float_equal(stats_walk_slope_variance(x3, v3, 3), 0.5, 1e-15);
	/* v falls at the last point: the step is 0, u1 alone: 1 / 4 */
	const double f3[] = {0, 1, 0.5};
	assert_float_equal(stats_walk_slope_variance(x3, f3, 3), 0.25, 1e-15);
	/* an offset before the first point moves nothing */
	const double o3[] = {7, 8, 9};
	assert_float_equal(stats_walk_slope_variance(x3, o3, 3), 0.5, 1e-15);
	/* n evenly spaced unit steps: 6 / (5 n) sigma^2 as n grows (the
	 * continuum, int_0^1 (6 k (1 - k))^2 dk = 6 / 5); exactly
	 * sum C_k^2 with C_k = 6 k (n - k) / (n (n^2 - 1)) */
	enum { N = 10000 };
	double *x = malloc(N * sizeof(*x)), *v = malloc(N * sizeof(*v));
	double exact = 0;
	for (size_t i = 0; i < N; i++) {
		x[i] = (double)i;
		v[i] = (double)i;
		double c = 6.0 * (double)i * (double)(N - i) /
			   ((double)N * ((double)N * N - 1));
		exact += c * c;
	}
	double w = stats_walk_slope_variance(x, v, N);
	assert_float_equal(w, exact, exact * 1e-9);
	assert_float_equal(w, 6.0 / (5.0 * N), 6.0 / (5.0 * N) * 1e-3);
	v[5] = NAN;
	assert_true(isnan(stats_walk_slope_variance(x, v, N)));
	free(x);
	free(v);
	/* widened: halves 2 and 2 (q = 1.96 sd = 2): sqrt(8) each side;
	 * p of z = 5 (5.733e-7) becomes that of 10 / sqrt(2^2 + sd^2)
	 * (scipy: 2 norm.sf(10 / sqrt(4 + sd^2)) = 8.4367e-06) */
	double lo = 8, hi = 12, p = 5.733031437583866e-07;
	stats_interval_add_error(10, 2 / STATS_Z975, &lo, &hi, &p);
	assert_float_equal(lo, 10 - sqrt(8), 1e-12);
	assert_float_equal(hi, 10 + sqrt(8), 1e-12);
	assert_float_equal(p, 8.436666093445504e-06, 1e-12);
	/* sd 0: nothing moves */
	lo = 8, hi = 12, p = 0.01;
	stats_interval_add_error(10, 0, &lo, &hi, &p);
	assert_true(lo == 8 && hi == 12 && p == 0.01);
}

static void test_brown_forsythe(void **state)
{
	(void)state;
	const double v[] = {3.1,  -2.0, 0.5,  1.7,  -0.4, 2.2,  -1.1, 0.9,
			    10.5, -8.0, 4.4,  -6.1, 7.7,  -3.3, 9.0,  -12.0,
			    0.3,  -0.2, 0.1,  0.05, -0.4, 0.25, -0.15, 0.6};
	assert_float_equal(stats_brown_forsythe(v, 24, 3), 39.62969121914635,
			   1e-12);
	/* unequal runs: [1..5] and [6..11] */
	const double w[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
	assert_float_equal(stats_brown_forsythe(w, 11, 2), 0.3248663101604279,
			   1e-12);
	/* too few points for the groups; nothing varies */
	assert_true(isnan(stats_brown_forsythe(w, 3, 2)));
	const double c[] = {5, 5, 5, 5, 5, 5};
	assert_true(isnan(stats_brown_forsythe(c, 6, 3)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_norm),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_pair_count),
		cmocka_unit_test(test_trend_hand),
		cmocka_unit_test(test_trend_scipy_ties),
		cmocka_unit_test(test_lf_interval_reference),
		cmocka_unit_test(test_ar_fitter_same_bits),
		cmocka_unit_test(test_t_cdf),
		cmocka_unit_test(test_mann_kendall_brute),
		cmocka_unit_test(test_selection_vs_brute),
		cmocka_unit_test(test_selection_guard),
		cmocka_unit_test(test_selection_degenerate),
		cmocka_unit_test(test_trend_mid_vs_brute),
		cmocka_unit_test(test_bucket_medians),
		cmocka_unit_test(test_resolution),
		cmocka_unit_test(test_resolution_shared),
		cmocka_unit_test(test_trend_noise_figures),
		cmocka_unit_test(test_trend_steps),
		cmocka_unit_test(test_trend_invalid),
		cmocka_unit_test(test_brown_forsythe),
		cmocka_unit_test(test_walk_slope_variance),
		cmocka_unit_test(test_perf_65536_exact),
		cmocka_unit_test(test_perf_10m_bucketed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
