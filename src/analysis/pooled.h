/*
 * pooled.h - incarnations pooled (issue 27): when a service restarts too
 * often for any one incarnation to decide, the slope each incarnation has
 * after its warm-up (warmup.h), combined over all of them.
 *
 * Each incarnation i gives a slope b_i with its 95 % low-frequency interval
 * (stats_trend_compute(): Theil-Sen and stats_lowfreq.h), read as a
 * standard error s_i = half-width / 1.96 (the interval's own quantile is a
 * t-like mixture wider than 1.96, so s_i errs large: the weights are then
 * a little flatter, the spread below still decides). They are combined by
 * a random-effects meta-analysis, the incarnations being blocks whose
 * slopes may differ (load, uptime):
 *
 *   w_i = 1 / s_i^2, mu_FE = sum w b / sum w,
 *   Q = sum w_i (b_i - mu_FE)^2,
 *   tau^2 = max(0, (Q - (k - 1)) / (sum w - sum w^2 / sum w))
 *                                   (DerSimonian & Laird 1986),
 *   w*_i = 1 / (s_i^2 + tau^2), mu = sum w* b / sum w*,
 *   V = max(1, q*) / sum w*, q* = sum w*_i (b_i - mu)^2 / (k - 1)
 *   interval mu -/+ t(k - 1, 0.975) sqrt(V), test t = mu / sqrt(V) on
 *   k - 1 degrees of freedom
 *
 * the Hartung-Knapp-Sidik-Jonkman interval (Hartung & Knapp 2001; IntHout
 * et al. 2014), with the max(1, q*) of Knapp & Hartung (2003) / Roever et
 * al. (2015) so it is never narrower than the DerSimonian-Laird one. Its
 * t test is the trend test blocked by incarnation: every comparison stays
 * within one incarnation, the restarts' drops never enter, and the
 * between-incarnation spread widens it. Few incarnations give few degrees
 * of freedom (t(1, 0.975) = 12.7): honest, not tuned.
 *
 * Memory given back at each restart is evidence too: before - after (the
 * old incarnation's last reading less the new one's settled floor,
 * restarts.h) over the old incarnation's settled time estimates the same
 * slope when the floors agree. It is reported beside the pooled slope
 * (given_back_bph), not added to it: it is read from the same readings.
 *
 * No I/O. O(k) given the per-incarnation slopes.
 */
#ifndef MEMTREND_POOLED_H
#define MEMTREND_POOLED_H

#include <stdbool.h>
#include <stddef.h>

#include "slope.h"

#define POOLED_MIN_POINTS 12   /* settled points an incarnation needs */
#define POOLED_MIN_INCS 2      /* incarnations with a slope, to pool */

/* The random-effects estimate of k estimates est[i] with standard errors
 * se[i] (> 0). Returns -1 (and *out NAN) when k < 2 or an se is not > 0.
 * level: the interval's coverage (0.95). */
struct meta_result {
	size_t k;
	double estimate;     /* mu */
	double se;           /* sqrt(V) */
	double low, high;    /* mu -/+ t(k - 1, (1 + level) / 2) se */
	double p;            /* two-sided, t on k - 1 df */
	double q;            /* Cochran's Q */
	double tau2;         /* DerSimonian-Laird between-estimate variance */
	double mu_fixed;     /* the fixed-effect (inverse-variance) mean */
};
int stats_meta_hksj(const double *est, const double *se, size_t k,
		    double level, struct meta_result *out);

struct pooled_finding {
	bool found;            /* >= POOLED_MIN_INCS slopes to pool */
	size_t incarnations;   /* k: incarnations pooled */
	struct slope slope;    /* per hour: mu, its interval, p */
	double tau_bph;        /* between-incarnation sd, per hour */
	bool significant;      /* p < alpha and the interval excludes 0 */
	double life_s;         /* median settled life of the pooled ones */
	double more_incarnations; /* more needed to decide; NAN: none */
	double given_back_bph; /* restarts' recovered / settled time; NAN */
};

#endif
