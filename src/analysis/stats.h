/*
 * stats.h - the trend statistics behind every verdict: Theil-Sen slope, its
 * 95 % interval and test under autocorrelated noise (stats_lowfreq.h), Sen's
 * textbook interval for reference, Mann-Kendall S with tie correction,
 * medians and order statistics.
 *
 * No I/O, no allocation visible to callers (scratch memory is allocated and
 * freed inside each call). Bounds on work:
 *  - series of n <= STATS_EXACT_MAX points are used as they are;
 *  - longer series are reduced to STATS_BUCKETS_MAX bucket medians first
 *    (consecutive equal-count buckets; x and y medians per bucket), O(n);
 *  - the k-th pairwise slope is found by slope selection: bisection on the
 *    slope value with pair counting by merge-sort inversion counting
 *    (O(m log m) per step), then exact enumeration once the bracket holds
 *    few pairs; O(m log m log(range/eps)) overall, O(m) memory;
 *  - Mann-Kendall S by Fenwick tree over ranks, O(m log m);
 *  - the interval and test: O(m) bucket means, then O(1,024 q^2) and
 *    O(models q^3) (stats_lowfreq.h).
 */
#ifndef MEMTREND_STATS_H
#define MEMTREND_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STATS_EXACT_MAX 65536
#define STATS_BUCKETS_MAX 65536

struct trend_result {
	size_t n_raw;              /* points given */
	size_t n;                  /* points used (after bucketing) */
	bool bucketed;             /* true when n < n_raw */
	double slope;              /* Theil-Sen: median pairwise slope, y per x */
	double intercept;          /* median of y - slope * x */
	double ci_low, ci_high;    /* 95 % interval under autocorrelated
				      noise (stats_lowfreq.h); NAN with < 3 points */
	double p_value;            /* two-sided test of slope 0, the same
				      model; 1 when it cannot be computed */
	double variance_inflation; /* (interval / iid interval)^2 */
	double ar_phi;             /* lag-one correlation per median step */
	double corr_time;          /* correlation time, units of t */
	double se_iid;             /* OLS standard error, independent points */
	double sen_low, sen_high;  /* Sen's textbook interval, only from
				      stats_trend_compute_sen() (independent
				      points; scipy's theilslopes) */
	double mk_s;               /* Mann-Kendall S */
	double mk_var_s;           /* tie-corrected Var(S), uncorrected for ACF */
	double mk_z;               /* continuity-corrected z, Var(S) widened
				      by variance_inflation */
	uint64_t n_pairs;          /* pairs with x_i < x_j */
};

/* Trend of y against x. x must be non-decreasing; no NaN in x or y (the
 * caller drops missing points). n >= 2 with at least two distinct x,
 * else returns -1 and leaves *out zeroed with slope NAN. Returns 0. */
/* The significance level of every test the verdicts use. */
#define TREND_ALPHA 0.05

/* A trend's slope, interval and p in bytes per hour; returns whether it
 * is significant (p < TREND_ALPHA and the interval excludes 0). */
bool stats_trend_per_hour(const struct trend_result *tr, double *slope_bph,
		    double *ci_low_bph, double *ci_high_bph, double *p_value);

/* The variance of the least-squares slope of readings at x[0..n) (non-
 * decreasing, not all equal) from an error they carry besides their own
 * noise, one that persists: the error made up to point i stays in every
 * later reading (a random walk of independent steps), v[i] its variance
 * at point i. A sampled estimate of a sum is such an error (a site's
 * live bytes, docs/sites.md, "How sure"): a block sampled or not counts
 * or not from then on. With c_i the least-squares weights, (x_i - mean)
 * / Sxx, the slope's error is sum_k u_k C_k, u_k the step at k and C_k
 * = sum_{i >= k} c_i, so its variance is sum_k (v_k - v_{k-1}) C_k^2
 * (C_0 = 0: an error made before the first point moves every reading
 * alike). A fall of v (blocks freed: their errors leave the readings
 * after them) is taken as no step, not as a negative one: what the
 * freed blocks' errors did to the readings between is then counted as
 * if it stayed (an over-, never an under-statement of a fall's share).
 * 6 / (5 n) sigma^2 for n points evenly spaced with steps of sigma^2.
 * NAN when a v[i] is not finite or x does not vary; O(n). */
double stats_walk_slope_variance(const double *x, const double *v, size_t n);
/* An estimate's 95 % interval [*low, *high] and its test's two-sided p
 * widened by an error of its own, independent of the one they count,
 * normal with standard deviation sd: each side's half-width summed in
 * quadrature with 1.96 sd, and p the one of the z the test's p stands
 * for, over sqrt(se^2 + sd^2) (se = |estimate| / that z). sd 0 or NAN:
 * unchanged. */
void stats_interval_add_error(double estimate, double sd, double *low,
			      double *high, double *p);

int stats_trend_compute(const double *x, const double *y, size_t n,
		  struct trend_result *out);
/* The noise figures of a trend as a report may state them: marks
 * variance_inflation, corr_time and ar_phi absent (NAN) where they mean
 * nothing. Readings that never change, or that lie on the line exactly
 * (a zero-width interval, stats_lowfreq.h), have no noise that could wander
 * together; an inflation below 1 (an interval narrower than for
 * independent readings, which negatively correlated noise allows) is no
 * widening to state, and a correlation time that is not >= 0 comes from a
 * fit with nothing to fit. stats_trend_compute() applies it to what it
 * returns. y: the n readings the trend was taken from. */
void stats_trend_noise_figures(struct trend_result *tr, const double *y,
			       size_t n);
/* The same with the regressor x apart from the times t that order the
 * noise (the per-request slope: x is cumulative work). t non-decreasing;
 * t == NULL or t == x: x is the time. */
int stats_trend_compute_at(const double *t, const double *x, const double *y,
		     size_t n, struct trend_result *out);
/* The slope between steps: the levels between the given points are free
 * (a release of memory, a spike's rise and fall), the slope common to
 * every segment. starts: the first point of each later segment,
 * increasing, in (0, n); ns <= LF_NUISANCE_MAX (stats_lowfreq.h) and n
 * <= STATS_EXACT_MAX, else -1. The segments' own Theil-Sen slopes, pooled
 * with least squares' weights (each segment's sum of (x - mean)^2), give
 * the slope at which each segment's median level (of y - slope x) is
 * taken out; the result is Theil-Sen's trend of that levelled series,
 * its interval and test the low-frequency ones with one indicator column
 * per step in the mean model (what the levels could be costs its
 * projections), its Mann-Kendall figures the levelled series'. ns == 0:
 * stats_trend_compute(). */
int stats_trend_compute_steps(const double *x, const double *y, size_t n,
			      const size_t *starts, size_t ns,
			      struct trend_result *out);
/* stats_trend_compute() plus Sen's textbook interval (sen_low/sen_high,
 * NAN from the others): for the tests against scipy.stats.theilslopes;
 * it costs two more slope selections and no verdict uses it. */
int stats_trend_compute_sen(const double *x, const double *y, size_t n,
			    struct trend_result *out);

/* Building blocks, exposed for tests. */

/* Number of pairs i<j with x_i < x_j (x non-decreasing). */
uint64_t stats_pair_count(const double *x, size_t n);
/* The k-th smallest (0-based) of the slopes (y_j-y_i)/(x_j-x_i) over pairs
 * with x_i < x_j. k < stats_pair_count(). */
double stats_kth_pairwise_slope(const double *x, const double *y, size_t n,
				uint64_t k);
/* The Theil-Sen slope alone (the median pairwise slope, as
 * stats_trend_compute() takes it), without the interval and tests; NAN
 * when no two x differ. x non-decreasing, no NaN. */
double stats_theil_sen_slope(const double *x, const double *y, size_t n);
/* Mann-Kendall S of y in index order (ties count 0), O(n log n). */
double stats_mann_kendall_s(const double *y, size_t n);
/* Tie-corrected Var(S): n(n-1)(2n+5)/18 - sum t(t-1)(2t+5)/18. */
double stats_mann_kendall_var(const double *y, size_t n);
/* Median of v (n >= 1); reorders v. */
double stats_median_inplace(double *v, size_t n);
/* Brown-Forsythe's test of equal spread (Levene's with the median as
 * centre: scipy.stats.levene(..., center='median')) over v cut into
 * `groups` consecutive runs, run k being [k n / groups, (k + 1) n /
 * groups): the F statistic, with groups - 1 and n - groups degrees of
 * freedom. NAN when a run is empty or nothing varies. Reorders nothing. */
double stats_brown_forsythe(const double *v, size_t n, size_t groups);
/* Sorts v ascending (-0 and +0, which compare equal, in either order).
 * Radix sort: O(n), no callbacks; for sorts that qsort() did. */
void stats_sort_doubles(double *v, size_t n);
/* scipy.stats.norm.ppf(0.975) as scipy 1.10 returns it (1.959963984540054):
 * hard-coded so that the interval indices round exactly as scipy's do. */
#define STATS_Z975 1.959963984540054

/* Standard normal CDF and its inverse. */
double stats_norm_cdf(double z);
/* Acklam's rational approximation alone (relative error < 1.2e-9), for
 * 0 < p < 1: for scores, where stats_norm_ppf's last few ulps cost more
 * than they give. */
double stats_norm_ppf_coarse(double p);
double stats_norm_ppf(double p);

/* Reduce (x, y) of n points to at most max_out bucket medians, written to
 * xo/yo (capacity max_out). Returns the number of buckets. Buckets are
 * consecutive runs of ceil(n/max_out) or floor(n/max_out) points. */
size_t stats_bucket_medians(const double *x, const double *y, size_t n,
			    double *xo, double *yo, size_t max_out);

/* Resolution: the smallest step the readings can show. quantum_hint is the
 * text precision known from the source (0 when unknown). Returns the larger
 * of quantum_hint and the GCD of the non-zero absolute steps, the GCD taken
 * on steps rounded to multiples of quantum_hint (or of 1 byte when the hint
 * is 0). With no non-zero step, returns quantum_hint (or 1 when 0). */
double stats_resolution(const double *y, size_t n, double quantum_hint);
/* For readings that never change: the unit they share, the larger of a
 * decimal and a binary one. Decimal: 10^(trailing zeros common to all)
 * when there are at least 3 (a tool printing kB, MB, GB), at most the SI
 * prefix the least reading would be printed in, so that "21000000000"
 * three times reads as whole GB and "20000000000" too (not tens of GB).
 * Binary: 4 KiB when all are whole pages; a larger power of two (at most
 * 2^30) only when different readings share it, since the zero bits of one
 * repeated value ("1073741824": 1 GiB) say what it is, not what the source
 * can show. 0 when they share nothing, are all 0, or are not whole
 * bytes. */
double stats_resolution_shared(const double *y, size_t n);

#endif
