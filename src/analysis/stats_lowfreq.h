/*
 * stats_lowfreq.h - how sure a slope is when nobody knows how the noise
 * depends on itself: inference from the series' low-frequency variation.
 *
 * A slope's uncertainty is set by how far the noise wanders on the scale
 * of the window: its slowest variation, not the jitter between
 * neighbouring readings. The earlier method (stats_ar.h) fitted one
 * Ornstein-Uhlenbeck process to every lag; where fast jitter sits on a slow
 * wander the jitter owns the short lags, the fit picks a short
 * correlation time and the interval comes out 3-7x too narrow (issue
 * "Honest on shapes nobody tuned for"). This module looks only where the
 * slope's uncertainty comes from (Mueller & Watson's low-frequency
 * econometrics; Mueller 2014, "HAC corrections for strongly
 * autocorrelated time series"):
 *
 *  1. The residuals of the given slope are projected on q <= LF_BASIS_MAX
 *     cosines cos(pi j t / T), j = 1..q, made orthonormal over the points
 *     and orthogonal to the regressors (constant, x, nuisance columns such
 *     as a named step): q numbers Z that hold the noise's variation at
 *     periods of 2T/q and longer, and nothing of the mean model.
 *  2. Their joint distribution with the slope's error, e0 = c'u, is
 *     computed exactly at the sample times for each of a family of noise
 *     models: white noise, Ornstein-Uhlenbeck processes at time scales
 *     from two sample spacings to eight windows, a random walk, mixtures
 *     of each with white noise (jitter on wander), and power-law mixtures
 *     of those scales (long memory, f ~ omega^-2d, d 0.05-0.45, cut at
 *     several scales). For the per-request slope also a random walk in
 *     the work: what each request keeps varies from request to request.
 *  3. Each model is weighted by the scale-free likelihood of Z (the
 *     variance integrated out); under it the slope's error is Student t
 *     with q degrees of freedom, scale sqrt(Var e0 * Z'W^-1 Z / q). The
 *     interval is the mixture's 2.5 % and 97.5 % quantiles around the
 *     given (Theil-Sen) slope, the p-value its two-sided tail at 0.
 *
 * Noise whose spread changes in time (a daily load, busy and idle
 * regimes) is none of these stationary models; where Brown-Forsythe's
 * test rejects equal spread of an AR(2) fit's innovations (p <= 0.001)
 * each model is scaled by the spread read from them (sigma_t v_t: the
 * covariance D K D), unless the caller keeps it fixed (spread_fixed).
 *
 * High-frequency behaviour (jitter, aliasing of a fast collector,
 * quantisation, heavy tails of single readings) cannot narrow the
 * interval: it never reaches Z beyond its share of the lowest frequencies.
 * The price is a t with q degrees of freedom under independent noise
 * (t_24's 2.06 against 1.96: intervals about 5 % wider than needed
 * there). Where few residuals lie far out (heavy tails, spikes) they are
 * replaced by their normal scores -- their ranks mapped onto a Gaussian
 * of the noise's robust scale -- before the projection: Theil-Sen's error
 * is linear in ranks, not in the residuals, and is that much steadier
 * than a contrast of them (stats_lowfreq.c, normal_scores()). Otherwise
 * residuals beyond LF_CLIP robust standard deviations are clipped: the
 * Theil-Sen centre ignores a spike, and so does its spread.
 *
 * No I/O. Work: O(n) bucket means to at most LF_POINTS_MAX points, then
 * O(m q (scales + q)) for the models' building blocks and O(models q^3).
 * Coverage is measured, not assumed: tests/calibration (both groups).
 */
#ifndef MEMTREND_STATS_LOWFREQ_H
#define MEMTREND_STATS_LOWFREQ_H

#include <stdbool.h>
#include <stddef.h>

#define LF_BASIS_MAX 24       /* q: cosines the residuals are seen through */
#define LF_POINTS_MAX 1024    /* bucket means the models are computed on */
#define LF_NUISANCE_MAX 8     /* extra regressors (named steps) */

struct stats_lf_options {
	/* Extra columns of the mean model (n values each), e.g. a step's
	 * indicator: the slope is the one beside them. */
	const double *const *nuisance;
	size_t n_nuisance;
	/* The regressor x is cumulative work: add a random walk in x to
	 * the noise models (the per-request leak varies per request). */
	bool work_walk;
	/* Keep the noise's spread fixed in time: no test for a spread that
	 * changes, no models scaled by it (stats_lowfreq.c,
	 * heteroskedastic_scale()). For a model's residuals that may still
	 * hold its misfit (a hinge's bend, a curve's knee), whose local
	 * burst the test would read as a changing spread. */
	bool spread_fixed;
};

struct stats_lf_result {
	double ci_low, ci_high;   /* the slope's interval at the level asked */
	double p_value;           /* two-sided, slope = 0 */
	double se_iid;            /* the least-squares slope's standard error
				     were the points independent */
	double inflation;         /* (half-width / iid half-width)^2; NAN
				     when there is no residual */
	double corr_time;         /* posterior median of the noise's longest
				     time scale, units of t (INFINITY: a
				     random walk within the window; 0:
				     independent; NAN: no residual) */
	double dof;               /* q: the projections used */
	double work_share;        /* per request: posterior mean share of
				     the work's random walk (NAN otherwise) */
};

/* Interval and test of the slope estimate `slope` of y on x, the noise
 * ordered by t (non-decreasing; may be x itself). opt may be NULL. level
 * is the interval's coverage (0.95). Needs n >= 3, x not constant and at
 * least one projection left beside the regressors, else -1 with NAN
 * bounds. A perfect fit (no residual) gives a zero-width interval at the
 * slope: the caller adds what the readings' resolution leaves open. */
int stats_lf_slope_interval(const double *t, const double *x,
			    const double *y, size_t n, double slope,
			    double level, const struct stats_lf_options *opt,
			    struct stats_lf_result *out);

#endif
