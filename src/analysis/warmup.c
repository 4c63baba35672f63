/*
 * warmup.c - an incarnation's warm-up found as a change in slope (rules,
 * bounds and contract in warmup.h).
 *
 * What it does: buckets one incarnation's readings, fits the line and the
 * two warm-up shapes with late slope under the autocorrelated noise of
 * stats_ar.h (one fitter, the constant and the time fixed, the warm-up's
 * column free: the fitting plateau.c does, reused), keeps the best, and
 * reads the end's interval off the profile likelihood; then looks again
 * after that end for a further stage (at most WARMUP_STAGES). What it does not
 * do: decide which incarnation to analyse, apply --warmup (analysis.c
 * does), or any I/O.
 */
#include "warmup.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"

/* One fitted warm-up shape. */
struct shape_fit {
	bool curve;
	double tau;       /* scaled time: the bend, or the time constant */
	double end;       /* scaled time the warm-up ends */
	double loglik;
	double b, c;      /* late slope, warm-up coefficient (scaled t) */
};

static double shape_value(bool curve, double tau, double tc)
{
	return curve ? -expm1(-tc / tau) : fmin(tc, tau);
}

/* Where the curve comes within WARMUP_REACHED of its rise c (at least two
 * resolutions), scaled time. */
static double curve_end(double tau, double c, double resolution)
{
	double tol = fmax(WARMUP_REACHED * c, 2 * resolution);
	return c > tol ? tau * log(c / tol) : 0;
}

static void find_once(const double *t, const double *y, size_t n,
		      double resolution, struct warmup_finding *out)
{
	memset(out, 0, sizeof(*out));
	out->source = WARMUP_NONE;
	out->start = out->end = out->end_low = out->end_high = n ? t[0] : NAN;
	out->level = out->rise = out->gain = out->late_bph = NAN;
	if (!(resolution > 0))
		resolution = 0;
	if (n < 2 + WARMUP_MIN_AFTER || !(t[n - 1] > t[0]))
		return;
	size_t cap = n < WARMUP_POINTS ? n : WARMUP_POINTS;
	double *buf = xmalloc(5 * cap * sizeof(double));
	double *bx = buf, *by = buf + cap, *ones = buf + 2 * cap,
	       *tc = buf + 3 * cap, *col = buf + 4 * cap;
	size_t m = stats_bucket_medians(t, y, n, bx, by, cap);
	assert(m <= cap);
	double span = bx[m - 1] - bx[0];
	if (m < 2 + WARMUP_MIN_AFTER || !(span > 0)) {
		free(buf);
		return;
	}
	for (size_t i = 0; i < m; i++) {
		ones[i] = 1;
		tc[i] = (bx[i] - bx[0]) / span;
	}
	const double *fixed[] = {ones, tc};
	const double *c1[] = {ones, tc}, *c3[] = {ones, tc, col};
	struct stats_ar_fitter *fit = stats_ar_fitter_new(bx, by, m, fixed, 2);
	struct stats_ar_fit line, f3;
	if (stats_ar_fitter_fit(fit, c1, 2, &line)) {
		stats_ar_fitter_free(fit);
		free(buf);
		return;
	}
	/* every fit tried, for the profile: at most m hinges + curves */
	size_t n_try = 0, try_cap = m + 2 * WARMUP_CURVES;
	struct shape_fit *tries = xmalloc(try_cap * sizeof(*tries));
	/* the hinge: a bend at a bucket of the first WARMUP_MAX_SHARE, at
	 * least one point before it, WARMUP_MIN_AFTER after -- on a grid of
	 * about WARMUP_HINGE_GRID bends, then at every bucket within one
	 * grid step of the best (as plateau.c searches its bend: the
	 * likelihood is smooth in the bend, and every bucket costs a fit) */
	size_t j_end = 1;
	while (j_end + WARMUP_MIN_AFTER < m && tc[j_end] <= WARMUP_MAX_SHARE)
		j_end++;
	size_t step = j_end > 1 + WARMUP_HINGE_GRID ?
		      (j_end - 1) / WARMUP_HINGE_GRID : 1;
	size_t best_j = 0;
	double best_ll = -INFINITY;
	for (int pass = 0; pass < 2; pass++) {
		size_t lo = 1, hi = j_end;
		if (pass == 1) {
			if (step == 1 || !best_j)
				break;
			lo = best_j > step ? best_j - step + 1 : 1;
			hi = best_j + step < j_end ? best_j + step : j_end;
		}
		for (size_t j = lo; j < hi; j++) {
			bool on_grid = (j - 1) % step == 0;
			if (pass == 0 ? !on_grid : on_grid)
				continue;
			for (size_t i = 0; i < m; i++)
				col[i] = fmin(tc[i], tc[j]);
			if (stats_ar_fitter_fit(fit, c3, 3, &f3) ||
			    !(f3.beta[2] > 0))
				continue;
			assert(n_try < try_cap);
			tries[n_try++] = (struct shape_fit){false, tc[j], tc[j],
				f3.loglik, f3.beta[1], f3.beta[2]};
			if (f3.loglik > best_ll) {
				best_ll = f3.loglik;
				best_j = j;
			}
		}
	}
	/* the saturating curve: time constants log-spaced from a tenth of
	 * the first step to where the curve would end at WARMUP_MAX_SHARE */
	double ts_lo = 0.1 * tc[1];
	double ts_hi = WARMUP_MAX_SHARE / -log(WARMUP_REACHED);
	double ratio = ts_hi > ts_lo ?
		pow(ts_hi / ts_lo, 1.0 / (WARMUP_CURVES - 1)) : 1;
	for (size_t j = 0; ts_hi > ts_lo && j < WARMUP_CURVES; j++) {
		double ts = ts_lo * pow(ratio, (double)j);
		for (size_t i = 0; i < m; i++)
			col[i] = -expm1(-tc[i] / ts);
		if (stats_ar_fitter_fit(fit, c3, 3, &f3) || !(f3.beta[2] > 0))
			continue;
		double end = curve_end(ts, f3.beta[2], resolution);
		size_t after = 0, before = 0;
		for (size_t i = 0; i < m; i++) {
			after += tc[i] > end;
			before += tc[i] < end;
		}
		if (after < WARMUP_MIN_AFTER || before < 1 ||
		    end > WARMUP_MAX_SHARE)
			continue;
		assert(n_try < try_cap);
		tries[n_try++] = (struct shape_fit){true, ts, end, f3.loglik,
			f3.beta[1], f3.beta[2]};
	}
	stats_ar_fitter_free(fit);

	const struct shape_fit *best = NULL;
	for (size_t k = 0; k < n_try; k++)
		if (!best || tries[k].loglik > best->loglik)
			best = &tries[k];
	if (!best || !(best->loglik - line.loglik >= WARMUP_GAIN))
		goto done;
	/* the model's value at the end (its intercept the median of the
	 * readings less the fitted shape), for the rise's test */
	for (size_t i = 0; i < m; i++)
		col[i] = by[i] - best->b * tc[i] -
			 best->c * shape_value(best->curve, best->tau, tc[i]);
	double a = stats_median_inplace(col, m);
	double level = a + best->b * best->end +
		       best->c * shape_value(best->curve, best->tau, best->end);
	double rise = best->curve ? best->c : best->c * best->tau;
	if (!(rise >= fmax(2 * resolution, WARMUP_MIN_SHARE * fabs(level))))
		goto done;
	/* a start-up's memory stays: a reading after the end back below the
	 * midpoint of the rise means the rise was a cycle's (a daily load),
	 * not a warm-up (plateau.h's "memory went back" rule) */
	for (size_t i = 0; i < m; i++)
		if (tc[i] > best->end && by[i] < level - 0.5 * rise)
			goto done;
	double lo = best->end, hi = best->end;
	for (size_t k = 0; k < n_try; k++)
		if (tries[k].loglik >= best->loglik - WARMUP_PROFILE) {
			lo = fmin(lo, tries[k].end);
			hi = fmax(hi, tries[k].end);
		}
	/* the settled level as read: the median of the first
	 * WARMUP_MIN_AFTER readings from the end's upper bound (a model
	 * whose late line is fitted over hours of later work can miss the
	 * floor it started from) */
	size_t k = 0;
	while (k < m && tc[k] < hi)
		k++;
	size_t take = m - k < WARMUP_MIN_AFTER ? m - k : WARMUP_MIN_AFTER;
	if (take) {
		memcpy(col, by + k, take * sizeof(double));
		level = stats_median_inplace(col, take);
	}
	out->source = WARMUP_FOUND;
	out->curve = best->curve;
	out->end = bx[0] + best->end * span;
	out->end_low = bx[0] + lo * span;
	out->end_high = bx[0] + hi * span;
	out->level = level;
	out->rise = rise;
	out->gain = best->loglik - line.loglik;
	out->late_bph = best->b / span * 3600;
	assert(out->end_low <= out->end && out->end <= out->end_high);
done:
	free(tries);
	free(buf);
}

void warmup_find(const double *t, const double *y, size_t n,
		 double resolution, struct warmup_finding *out)
{
	find_once(t, y, n, resolution, out);
	/* A warm-up in stages (weights loaded fast, then caches filled more
	 * slowly): look again after the end found, the same rules on the
	 * rest, while a stage is found and still ends in the first
	 * WARMUP_MAX_SHARE of the whole incarnation. */
	double limit = n ? t[0] + WARMUP_MAX_SHARE * (t[n - 1] - t[0]) : NAN;
	for (int stage = 1; stage < WARMUP_STAGES &&
	     out->source == WARMUP_FOUND; stage++) {
		size_t k = 0;
		while (k < n && t[k] < out->end_high)
			k++;
		struct warmup_finding next;
		find_once(t + k, y + k, n - k, resolution, &next);
		if (next.source != WARMUP_FOUND || next.end_high > limit)
			break;
		double rise = out->rise;
		double start = out->start;
		*out = next;
		out->start = start;
		out->rise = rise + next.rise;
	}
}
