/*
 * plateau.c - grow-then-hold as a model choice, the checks a level must
 * pass, known caps, and growth that slows toward a level (plateau.h).
 *
 * Contracts: no I/O; inputs read-only; scratch freed before return.
 */
#include "plateau.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"

const char *plateau_reject_text(enum plateau_reject r)
{
	switch (r) {
	case PLATEAU_OK: return "";
	case PLATEAU_NO_MODEL: return "no level fits better than a line";
	case PLATEAU_SHORT:
		return "the level has not held long enough to rule out the "
		       "slope of concern";
	case PLATEAU_RISING: return "the late part still rises";
	case PLATEAU_FALLING: return "the late part gives memory back";
	case PLATEAU_RETURNED:
		return "memory went back toward its starting level";
	case PLATEAU_IDLE:
		return "it flattened only while no requests ran";
	case PLATEAU_PER_REQUEST:
		return "the late part still grows per request";
	}
	return "";
}

static bool near_cap(double level, double cap)
{
	return isfinite(cap) && cap > 0 && level <= cap * 1.01 &&
	       level >= cap * (1 - PLATEAU_CAP_NEAR);
}

void plateau_match_cap(struct plateau_finding *p,
		       const struct plateau_params *pp)
{
	p->cap_bytes = NAN;
	p->cap_name = NULL;
	for (size_t c = 0; c < pp->n_caps; c++)
		if (near_cap(p->level, pp->caps[c].bytes)) {
			p->cap_bytes = pp->caps[c].bytes;
			p->cap_name = pp->caps[c].name;
			return;
		}
	const struct analysis_limits *lim = pp->limits;
	if (!lim)
		return;
	double host = p->level - lim->not_counted;
	if (near_cap(host, lim->cgroup_limit)) {
		p->cap_bytes = lim->cgroup_limit;
		p->cap_name = "cgroup limit";
	} else if (near_cap(host, lim->mem_total)) {
		p->cap_bytes = lim->mem_total;
		p->cap_name = "MemTotal";
	}
}

/* Growth that slows down toward a level it has not reached: the medians
 * of the three thirds of the (bucketed) series, y0 < y1 < y2 with the
 * second rise smaller than the first, extrapolated by Aitken's delta-
 * squared: L = y2 + (y2 - y1)^2 / ((y1 - y0) - (y2 - y1)), exact for an
 * exponential approach y = L - c * q^t sampled at equal steps. Only when
 * the late third still grows (its slope significant), its rise is under
 * 0.8 of the first's and its slope's interval lies below the first's, and
 * the estimate lies above every reading of the last third: a decelerating
 * leak must not be promised a ceiling it has already passed. */
static void approach_find(const double *bx, const double *by, size_t m,
			  double resolution, struct plateau_finding *out)
{
	out->approach_level = NAN;
	if (m < 3 * PLATEAU_MIN_PART)
		return;
	size_t third = m / 3;
	double med[3];
	double *tmp = xmalloc(third * sizeof(double) + sizeof(double));
	for (int k = 0; k < 3; k++) {
		memcpy(tmp, by + (size_t)k * third, third * sizeof(double));
		med[k] = stats_median_inplace(tmp, third);
	}
	free(tmp);
	/* The conditions cheapest first: the medians, then the late
	 * third's trend, and only then the first third's. */
	double d1 = med[1] - med[0], d2 = med[2] - med[1];
	if (!(d1 > 2 * resolution && d2 > 0 && d2 < 0.8 * d1))
		return;
	struct trend_result first, last;
	if (stats_trend_compute(bx + 2 * third, by + 2 * third, m - 2 * third,
				&last) ||
	    !(last.p_value < 0.05 && last.ci_low > 0))
		return;
	if (stats_trend_compute(bx, by, third, &first) ||
	    !(last.ci_high < first.ci_low))
		return;
	double level = med[2] + d2 * d2 / (d1 - d2);
	double late_max = -INFINITY;
	for (size_t i = 2 * third; i < m; i++)
		late_max = fmax(late_max, by[i]);
	if (!isfinite(level) || level <= late_max)
		return;
	out->approaching = true;
	out->approach_level = level;
	out->approach_early_bph = first.slope * 3600;
	out->approach_late_bph = last.slope * 3600;
}

/* The three models on m bucket medians; time scaled to [0, 1]. */
static void models_fit(const double *bx, const double *by, size_t m,
		       struct plateau_finding *out, size_t *k_tau)
{
	double *ones = xmalloc(3 * m * sizeof(double));
	double *tc = ones + m, *hinge = ones + 2 * m;
	double span = bx[m - 1] - bx[0];
	for (size_t i = 0; i < m; i++) {
		ones[i] = 1;
		tc[i] = (bx[i] - bx[0]) / span;
	}
	struct stats_ar_fit f0, f1, f2;
	const double *c0[] = {ones}, *c1[] = {ones, tc}, *c2[] = {ones, hinge};
	*k_tau = 0;
	/* one fitter for the ~40-70 fits of this series: the constant and
	 * the time are fixed columns, the hinge is the time up to its bend */
	const double *fixed[] = {ones, tc};
	struct stats_ar_fitter *fit = stats_ar_fitter_new(bx, by, m, fixed, 2);
	if (stats_ar_fitter_fit(fit, c0, 1, &f0) ||
	    stats_ar_fitter_fit(fit, c1, 2, &f1)) {
		stats_ar_fitter_free(fit);
		free(ones);
		return;
	}
	double best = -INFINITY, best_tau = NAN, best_b = NAN;
	/* a coarse grid of bends, then every point's time within one grid
	 * step of the best (a bend between grid values leaves a bit of the
	 * ramp in the "flat" part, which its interval then cannot ignore) */
	double grid_step = 0.9 / (PLATEAU_TAUS - 1);
	for (int pass = 0; pass < 2; pass++) {
		double centre = best_tau;
		size_t count = pass == 0 ? PLATEAU_TAUS : m;
		for (size_t j = 0; j < count; j++) {
			double tau;
			if (pass == 0) {
				tau = 0.05 + grid_step * (double)j;
			} else {
				if (!isfinite(centre) ||
				    fabs(tc[j] - centre) >= grid_step ||
				    tc[j] == centre)
					continue;
				tau = tc[j];
			}
			size_t after = 0;
			for (size_t i = 0; i < m; i++) {
				hinge[i] = fmin(tc[i], tau);
				after += tc[i] >= tau;
			}
			if (after < PLATEAU_MIN_PART ||
			    m - after < PLATEAU_MIN_PART)
				continue;
			if (stats_ar_fitter_fit(fit, c2, 2, &f2))
				continue;
			if (f2.beta[1] > 0 && f2.loglik > best) {
				best = f2.loglik;
				best_tau = tau;
				best_b = f2.beta[1];
			}
		}
	}
	stats_ar_fitter_free(fit);
	free(ones);
	if (!isfinite(best))
		return;
	out->gain_line = best - f1.loglik;
	out->gain_flat = best - f0.loglik;
	out->tau = bx[0] + best_tau * span;
	out->early_slope_bph = best_b / span * 3600;
	/* the late part: the points after the bend (the point at the bend
	 * is the corner, where the last of the rise may still show) */
	size_t k = 0;
	while (k < m && bx[k] <= out->tau)
		k++;
	*k_tau = m - k >= PLATEAU_MIN_PART ? k : 0;
}

void plateau_find(const double *t, const double *y, size_t n,
		  const struct plateau_params *pp,
		  struct plateau_finding *out)
{
	memset(out, 0, sizeof(*out));
	out->cap_bytes = out->approach_level = NAN;
	out->level = out->since = out->tau = NAN;
	out->late = SLOPE_NONE;
	out->early_slope_bph = NAN;
	out->rejected = PLATEAU_NO_MODEL;
	if (n < 2 * PLATEAU_MIN_PART || !(t[n - 1] > t[0]))
		return;
	size_t m_cap = n < PLATEAU_POINTS ? n : PLATEAU_POINTS;
	double *bx = xmalloc(m_cap * sizeof(double));
	double *by = xmalloc(m_cap * sizeof(double));
	size_t m = stats_bucket_medians(t, y, n, bx, by, m_cap);
	size_t k = 0;
	models_fit(bx, by, m, out, &k);
	if (k && out->gain_line >= PLATEAU_GAIN_LINE &&
	    out->gain_flat >= PLATEAU_GAIN_FLAT) {
		out->candidate = true;
		struct trend_result late;
		double *tmp = xmalloc((m - k) * sizeof(double));
		memcpy(tmp, by + k, (m - k) * sizeof(double));
		out->level = stats_median_inplace(tmp, m - k);
		free(tmp);
		if (stats_trend_compute(bx + k, by + k, m - k, &late) == 0) {
			/* no narrower than the resolution leaves open */
			double q = pp->resolution > 0 ?
				pp->resolution / (bx[m - 1] - bx[k]) : 0;
			out->late.estimate = late.slope * 3600;
			out->late.low = fmin(late.ci_low,
						    late.slope - q) * 3600;
			out->late.high = fmax(late.ci_high,
						     late.slope + q) * 3600;
		}
		/* where it started: the median of the first 5 % (>= 3) */
		size_t head = m / 20 < 3 ? 3 : m / 20;
		tmp = xmalloc(head * sizeof(double));
		memcpy(tmp, by, head * sizeof(double));
		double start = stats_median_inplace(tmp, head);
		free(tmp);
		double late_min = INFINITY;
		for (size_t i = k; i < m; i++)
			late_min = fmin(late_min, by[i]);
		/* a rise of a page or two on a quiet series fits "rising
		 * then holding" perfectly, and is no plateau: it must be at
		 * least twice the resolution and 1 % of the level */
		if (!(out->level - start >= fmax(2 * pp->resolution,
						 0.01 * fabs(out->level)))) {
			out->candidate = false;
			out->rejected = PLATEAU_NO_MODEL;
			goto done;
		}
		double limit = isfinite(pp->concern_bph) && pp->concern_bph > 0 ?
			pp->concern_bph : out->early_slope_bph / 2;
		if (!isfinite(out->late.high))
			out->rejected = PLATEAU_SHORT;
		else if (out->late.low > 0 &&
			 out->late.high >= limit)
			out->rejected = PLATEAU_RISING;
		else if (out->late.high >= limit)
			out->rejected = PLATEAU_SHORT;
		else if (out->late.low > PLATEAU_NEGLIGIBLE * limit)
			out->rejected = PLATEAU_RISING;
		else if (out->late.high < -PLATEAU_NEGLIGIBLE * limit)
			out->rejected = PLATEAU_FALLING;
		else if (late_min < start + 0.5 * (out->level - start))
			out->rejected = PLATEAU_RETURNED;
		else
			out->rejected = PLATEAU_OK;
		/* Since: when the level was first (nearly) reached. */
		double tol = fmax(2 * pp->resolution, 0.01 * fabs(out->level));
		out->since = out->tau;
		for (size_t i = 0; i < m; i++)
			if (by[i] >= out->level - tol) {
				out->since = bx[i];
				break;
			}
		out->found = out->rejected == PLATEAU_OK;
	}
done:
	if (!out->found)
		approach_find(bx, by, m, pp->resolution, out);
	free(bx);
	free(by);
	if (out->found)
		plateau_match_cap(out, pp);
}
