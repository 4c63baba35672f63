/*
 * stats_ar.h - how sure a slope is when the readings are autocorrelated.
 *
 * Memory readings a few seconds apart are mostly the reading before: the
 * level wanders (caches fill and drain, the allocator holds and gives
 * back) on a time scale that can be as long as the window itself. A
 * slope's interval that treats n such readings as independent, or that
 * estimates the autocorrelation from lags that are too noisy to read, is
 * too narrow (docs/statistics.md, "Calibration"). This module computes the
 * interval and test of a given slope estimate under a model that carries
 * that wander:
 *
 *   y_i = a + b x_i + u_i,   u an Ornstein-Uhlenbeck (continuous-time
 *   AR(1)) process in time t: corr(u_i, u_j) = phi^(|t_i - t_j| / step),
 *
 * step the median time step. phi is not fixed at one estimate: its
 * restricted (REML) likelihood is evaluated on a grid from phi = 0 up to a
 * correlation time of ten windows (where the wander is a random walk as
 * far as the window can tell), and the slope's distribution is the mixture
 * over that grid, each grid value weighted by its likelihood and a
 * Jeffreys-type prior, of a Student t centred on the given estimate with
 * the standard error an ordinary least-squares slope has under that phi.
 * The interval is the mixture's 2.5 % and 97.5 % quantiles; the p-value of
 * "no slope" is the mixture's two-sided tail at 0. Coverage is measured,
 * not assumed: tests/calibration.
 *
 * x is the regressor (time, or cumulative work for the per-request slope);
 * t is the time of each point, which orders the noise. No I/O. Work:
 * O(n * STATS_AR_GRID) with O(1) extra memory; n is bounded by the
 * caller's bucketing (stats.h).
 */
#ifndef MEMTREND_STATS_AR_H
#define MEMTREND_STATS_AR_H

#include <stddef.h>

#define STATS_AR_GRID 40      /* grid values of phi, besides phi = 0 */
#define STATS_AR_FIT_GRID 16  /* the same for model fits (stats_ar_fit) */

struct stats_ar_result {
	double ci_low, ci_high;   /* the slope's interval at the level asked */
	double p_value;           /* two-sided, slope = 0 */
	double se_iid;            /* the slope's standard error were the
				     points independent */
	double inflation;         /* (half-width / iid half-width)^2: how
				     much the autocorrelation widened it */
	double phi;               /* posterior median lag-one correlation
				     per median time step */
	double corr_time;         /* posterior median correlation time, in
				     the units of t (INFINITY: random walk
				     within the window) */
	double step;              /* the median time step */
};

/* Interval and test of the slope estimate `slope` of y on x, the noise
 * ordered by t (non-decreasing; may be the same array as x). level is
 * the interval's coverage (0.95). n >= 3 and x not constant, else -1 and
 * NAN bounds. A perfect fit (no residual) gives a zero-width interval at
 * the slope: the caller adds what the readings' resolution leaves open. */
int stats_ar_slope_interval(const double *t, const double *x,
			    const double *y, size_t n, double slope,
			    double level, struct stats_ar_result *out);

/* Maximum likelihood of a mean model under the same noise: y = sum_j
 * beta_j col_j + u, u the Ornstein-Uhlenbeck process of the grid above
 * (stationary from the first point), the likelihood profiled over beta and
 * sigma and maximised over the grid of phi. For comparing mean models on
 * one series (flat, line, grow-then-flat): each is fitted with the
 * correlation that suits it best, so a model is not preferred for what
 * the wander already explains. cols[j] are n values each, p <= 4; the
 * model should hold a constant column. */
#define STATS_AR_MAX_COLS 4
struct stats_ar_fit {
	double loglik;            /* -INFINITY when the fit failed */
	double phi;               /* at the maximum, per median step */
	double beta[STATS_AR_MAX_COLS]; /* for y less its mean */
};
int stats_ar_fit(const double *t, const double *const *cols, size_t p,
		 const double *y, size_t n, struct stats_ar_fit *out);

/* Many fits of one series (plateau.c's model search): what stats_ar_fit()
 * would recompute on each call is computed once, for y and the `fixed`
 * columns (at most STATS_AR_MAX_COLS - 1, e.g. a constant and the time),
 * which must stay unchanged, with t and y, while the fitter lives.
 * stats_ar_fitter_fit() gives exactly (to the bit) what stats_ar_fit(t,
 * cols, p, y, n, out) gives; cols are the fixed columns themselves (same
 * pointers) and at most one other column, which costs O(n) per grid value
 * from the first point where it differs from a fixed one (more than one
 * other column: stats_ar_fit() itself). Memory: O(n x grid x (nfixed+1)),
 * and O(n x grid) more for each pair of columns a free one starts as. */
struct stats_ar_fitter;
struct stats_ar_fitter *stats_ar_fitter_new(const double *t, const double *y,
					    size_t n,
					    const double *const *fixed,
					    size_t nfixed);
int stats_ar_fitter_fit(struct stats_ar_fitter *f,
			const double *const *cols, size_t p,
			struct stats_ar_fit *out);
void stats_ar_fitter_free(struct stats_ar_fitter *f);

/* Student t distribution function with nu degrees of freedom. */
double stats_t_cdf(double t, double nu);

#endif
