/*
 * stats_ar.h - mean models of a memory series fitted under autocorrelated
 * noise, and Student's t distribution.
 *
 * Memory readings a few seconds apart are mostly the reading before: the
 * level wanders (caches fill and drain, the allocator holds and gives
 * back). Comparing mean models (flat, line, rise then hold) by least
 * squares would prefer a shape for what the wander already explains; here
 * each model is fitted by maximum likelihood with
 *
 *   y_i = sum_j beta_j col_j(i) + u_i,   u an Ornstein-Uhlenbeck
 *   (continuous-time AR(1)) process in time t: corr(u_i, u_j) =
 *   phi^(|t_i - t_j| / step),
 *
 * step the median time step, phi the best of a grid from phi = 0 up to a
 * correlation time of ten windows. The slope's interval and test are not
 * here: one OU process fitted to every lag lets fast jitter decide the
 * correlation time (stats_lowfreq.h says why, and what replaced it).
 *
 * No I/O. Work: O(n * STATS_AR_FIT_GRID) per fit; n is bounded by the
 * caller's bucketing.
 */
#ifndef MEMTREND_STATS_AR_H
#define MEMTREND_STATS_AR_H

#include <stddef.h>

#define STATS_AR_FIT_GRID 16  /* grid values of phi for model fits */

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
/* Student t quantile: the x with stats_t_cdf(x, nu) = p, 0 < p < 1
 * (NAN otherwise); bisection to 1e-12 relative. */
double stats_t_quantile(double p, double nu);

#endif
