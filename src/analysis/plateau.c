/*
 * plateau.c - grow-then-hold as a model choice, the checks a level must
 * pass, known caps, and growth that slows toward a level (plateau.h).
 *
 * Contracts: no I/O; inputs read-only; scratch freed before return.
 */
#include "plateau.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"
#include "stats_lowfreq.h"

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
	case PLATEAU_NO_BEND:
		return "the growth did not slow by more than the readings' "
		       "slow wander explains";
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

/* The medians of `parts` equal parts of by[0..m) (m / parts points each,
 * the last m % parts left out), into med. */
static void part_medians(const double *by, size_t m, size_t parts,
			 double *med)
{
	size_t len = m / parts;
	assert(len > 0);
	double *tmp = xmalloc(len * sizeof(double));
	for (size_t k = 0; k < parts; k++) {
		memcpy(tmp, by + k * len, len * sizeof(double));
		med[k] = stats_median_inplace(tmp, len);
	}
	free(tmp);
}

/* Aitken's delta-squared from three levels at equal steps: y2 + (y2 -
 * y1)^2 / ((y1 - y0) - (y2 - y1)), the level of y = L - c q^t. */
static double aitken_level(double y0, double y1, double y2)
{
	double d1 = y1 - y0, d2 = y2 - y1;
	return y2 + d2 * d2 / (d1 - d2);
}

/* Does the growth slow the way an exponential approach does? Aitken's
 * level from the first three quarters' medians and from the last three
 * must agree: for y = L - c q^t both are L, while growth that slows
 * without a level -- sqrt(t), log(t) -- puts the later estimate higher
 * (sqrt(t): by 0.63 of the rise the window shows; log(1 + 10 t): by
 * 0.30). They agree when they differ by at most a quarter of that rise;
 * otherwise no level is promised (issue 26's audit: "levels off near
 * ~2.6 GiB" said of sqrt growth still rising 8.7 MiB/h at 48 h). */
static bool approach_consistent(const double *by, size_t m)
{
	double med[4];
	part_medians(by, m, 4, med);
	double da = med[1] - med[0], db = med[2] - med[1];
	double dc = med[3] - med[2];
	if (!(da > db && db > dc && dc > 0))
		return false;
	double early = aitken_level(med[0], med[1], med[2]);
	double late = aitken_level(med[1], med[2], med[3]);
	return fabs(late - early) <= 0.25 * (med[3] - med[0]);
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
	part_medians(by, m, 3, med);
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
	double level = aitken_level(med[0], med[1], med[2]);
	if (!approach_consistent(by, m))
		return;
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

/* The rise of the winning model: the hinge min(t, tau), or the
 * saturating approach 1 - exp(-t / tau), on time scaled to [0, 1]. */
struct rise_model {
	bool saturating;
	double tau;        /* scaled: the bend, or the time constant */
	double b;          /* the rise's coefficient, bytes */
	double loglik;
};

static double rise_shape(const struct rise_model *r, double tc)
{
	return r->saturating ? -expm1(-tc / r->tau) : fmin(tc, r->tau);
}

/* Fits one rise shape (col filled by the caller) and keeps it in *best
 * when it is the most likely so far with a positive rise. */
static void rise_try(struct stats_ar_fitter *fit, const double *const *c2,
		     bool saturating, double tau, struct rise_model *best)
{
	struct stats_ar_fit f2;
	if (stats_ar_fitter_fit(fit, c2, 2, &f2))
		return;
	if (f2.beta[1] > 0 && f2.loglik > best->loglik) {
		best->saturating = saturating;
		best->tau = tau;
		best->b = f2.beta[1];
		best->loglik = f2.loglik;
	}
}

/* The models on m bucket medians; time scaled to [0, 1]. */
static bool models_fit(const double *bx, const double *by, size_t m,
		       struct plateau_finding *out, struct rise_model *best)
{
	double *ones = xmalloc(3 * m * sizeof(double));
	double *tc = ones + m, *col = ones + 2 * m;
	double span = bx[m - 1] - bx[0];
	for (size_t i = 0; i < m; i++) {
		ones[i] = 1;
		tc[i] = (bx[i] - bx[0]) / span;
	}
	struct stats_ar_fit f0, f1;
	const double *c0[] = {ones}, *c1[] = {ones, tc}, *c2[] = {ones, col};
	/* one fitter for the ~70-100 fits of this series: the constant and
	 * the time are fixed columns, the rise is the free one */
	const double *fixed[] = {ones, tc};
	struct stats_ar_fitter *fit = stats_ar_fitter_new(bx, by, m, fixed, 2);
	if (stats_ar_fitter_fit(fit, c0, 1, &f0) ||
	    stats_ar_fitter_fit(fit, c1, 2, &f1)) {
		stats_ar_fitter_free(fit);
		free(ones);
		return false;
	}
	*best = (struct rise_model){false, NAN, NAN, -INFINITY};
	/* The hinge: a coarse grid of bends, then every point's time within
	 * one grid step of the best (a bend between grid values leaves a bit
	 * of the ramp in the "flat" part, which its interval then cannot
	 * ignore) */
	double grid_step = 0.9 / (PLATEAU_TAUS - 1);
	for (int pass = 0; pass < 2; pass++) {
		double centre = best->tau;
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
				col[i] = fmin(tc[i], tau);
				after += tc[i] >= tau;
			}
			if (after < PLATEAU_MIN_PART ||
			    m - after < PLATEAU_MIN_PART)
				continue;
			rise_try(fit, c2, false, tau, best);
		}
	}
	/* The saturating approach (a cache filling toward its size, LRU):
	 * time constants from PLATEAU_SAT_MIN to PLATEAU_SAT_MAX of the
	 * window, log-spaced, then four between the best one's neighbours
	 * (a longer one has not reached its level within the window: that
	 * is approach_find()'s "levels off near") */
	double ratio = pow(PLATEAU_SAT_MAX / PLATEAU_SAT_MIN,
			   1.0 / (PLATEAU_SAT_TAUS - 1));
	double sat_best = NAN;
	for (int pass = 0; pass < 2; pass++) {
		size_t count = pass == 0 ? PLATEAU_SAT_TAUS : 4;
		for (size_t j = 0; j < count; j++) {
			double tau = pass == 0 ?
				PLATEAU_SAT_MIN * pow(ratio, (double)j) :
				sat_best * pow(ratio, ((double)j - 1.5) / 2.5);
			/* as for the hinge, the rise must be seen in at least
			 * PLATEAU_MIN_PART points before the level is reached
			 * (within PLATEAU_SAT_REACHED of it): a jump within
			 * the first reading or two is a start-up step, not a
			 * fill (the demo's steady service under ASan) */
			double reached = -log(PLATEAU_SAT_REACHED) * tau;
			size_t rising = 0;
			for (size_t i = 0; i < m; i++) {
				col[i] = -expm1(-tc[i] / tau);
				rising += tc[i] < reached;
			}
			if (rising < PLATEAU_MIN_PART)
				continue;
			rise_try(fit, c2, true, tau, best);
		}
		if (!best->saturating)
			break;
		sat_best = best->tau;
	}
	stats_ar_fitter_free(fit);
	free(ones);
	if (!isfinite(best->loglik))
		return false;
	out->gain_line = best->loglik - f1.loglik;
	out->gain_flat = best->loglik - f0.loglik;
	return true;
}

/* The first point of the late part: after the hinge's bend (the point at
 * the bend is the corner, where the last of the rise may still show), or
 * for the saturating curve where the level is reached: the curve within
 * max(PLATEAU_SAT_REACHED of the rise, two resolutions) of it. 0 when
 * fewer than PLATEAU_MIN_PART points are left after it: no level was
 * reached. */
static size_t late_start(const double *bx, size_t m, double resolution,
			 const struct rise_model *r, double *reach)
{
	double span = bx[m - 1] - bx[0];
	double tr = r->tau;
	if (r->saturating) {
		double tol = fmax(PLATEAU_SAT_REACHED * r->b, 2 * resolution);
		tr = r->b > tol ? r->tau * log(r->b / tol) : 0;
	}
	*reach = bx[0] + tr * span;
	size_t k = 0;
	while (k < m && bx[k] <= *reach)
		k++;
	return m - k >= PLATEAU_MIN_PART ? k : 0;
}

/* The longest run of readings at the end within one resolution of each
 * other: over a span S, k readings that never moved by more than w = max
 * - min rule out a steady slope above (w + r) / S -- it would have moved
 * them by more (noise could only hide it by cancelling it exactly). Only
 * runs of at least PLATEAU_FLAT_RUN readings; returns the bound in
 * bytes/s (NAN when none) and the run's first index. */
static double flat_run_bound(const double *t, const double *y, size_t n,
			     double resolution, size_t *first)
{
	if (!(resolution > 0) || n < PLATEAU_FLAT_RUN)
		return NAN;
	double lo = y[n - 1], hi = y[n - 1];
	size_t i = n - 1;
	while (i > 0) {
		double l = fmin(lo, y[i - 1]), h = fmax(hi, y[i - 1]);
		if (h - l > resolution * (1 + 1e-9))
			break;
		lo = l;
		hi = h;
		i--;
	}
	if (n - i < PLATEAU_FLAT_RUN || !(t[n - 1] > t[i]))
		return NAN;
	*first = i;
	return (hi - lo + resolution) / (t[n - 1] - t[i]);
}

/* The late part's Theil-Sen slope per hour and its interval, no
 * narrower than the resolution over the late span leaves open. */
static struct slope late_slope(const double *x, const double *y, size_t n,
			       double resolution, double span)
{
	struct slope s = SLOPE_NONE;
	struct trend_result tr;
	if (stats_trend_compute(x, y, n, &tr) != 0)
		return s;
	double q = resolution > 0 && span > 0 ? resolution / span : 0;
	s.estimate = tr.slope * 3600;
	s.low = fmin(tr.ci_low, tr.slope - q) * 3600;
	s.high = fmax(tr.ci_high, tr.slope + q) * 3600;
	return s;
}

/* Did growth slow down at all, once the noise's slow wander is allowed
 * for? The rise-then-hold model won its likelihood contest under one
 * Ornstein-Uhlenbeck process (stats_ar.h); where the noise has a
 * spectral peak -- quasi-cycles of hours -- or a wander slower than one
 * process, that contest credits a trough after a crest as a bend, and a
 * steady leak under the concern passes every check of the late part. So
 * the bend itself is tested as the slope is (stats_lowfreq.h): the
 * change of slope at the late start, the late Theil-Sen slope less the
 * early one, on the line plus a hinge (t - t_k)+; a plateau needs the
 * change's interval below zero. Returns its upper end, bytes/s. */
static double bend_high(const double *bx, const double *by, size_t m,
			size_t k)
{
	assert(k < m);
	if (k < 3 || m - k < 3)
		return NAN;
	double early = stats_theil_sen_slope(bx, by, k);
	double late = stats_theil_sen_slope(bx + k, by + k, m - k);
	double *x = xmalloc(2 * m * sizeof(double));
	double *t = x + m;
	for (size_t i = 0; i < m; i++) {
		t[i] = bx[i] - bx[0];
		x[i] = i >= k ? bx[i] - bx[k] : 0;
	}
	const double *nuis[] = {t};
	struct stats_lf_options opt = {nuis, 1, false, true};
	struct stats_lf_result lf;
	int rc = stats_lf_slope_interval(bx, x, by, m, late - early, 0.95,
					 &opt, &lf);
	free(x);
	return rc == 0 ? lf.ci_high : NAN;
}

/* Did the level hold? The late slope against the limit (the slope of
 * concern), then whether memory went back: a late reading below the
 * midpoint between the start of the rise and the level. */
static enum plateau_reject late_judge(const struct slope *late, double limit,
				      double late_min, double start,
				      double level)
{
	if (!isfinite(late->high))
		return PLATEAU_SHORT;
	if (late->low > 0 && late->high >= limit)
		return PLATEAU_RISING;
	if (late->high >= limit)
		return PLATEAU_SHORT;
	if (late->low > PLATEAU_NEGLIGIBLE * limit)
		return PLATEAU_RISING;
	if (late->high < -PLATEAU_NEGLIGIBLE * limit)
		return PLATEAU_FALLING;
	if (late_min < start + 0.5 * (level - start))
		return PLATEAU_RETURNED;
	return PLATEAU_OK;
}

static double median_of(const double *v, size_t n)
{
	double *tmp = xmalloc((n ? n : 1) * sizeof(double));
	memcpy(tmp, v, n * sizeof(double));
	double med = stats_median_inplace(tmp, n);
	free(tmp);
	return med;
}

void plateau_find(const double *t, const double *y, size_t n,
		  const struct plateau_params *pp,
		  struct plateau_finding *out)
{
	memset(out, 0, sizeof(*out));
	out->cap_bytes = out->approach_level = NAN;
	out->level = out->since = out->tau = NAN;
	out->late = out->late_per_req = SLOPE_NONE;
	out->early_slope_bph = out->flat_span_s = NAN;
	out->late_requests = out->concern_per_req = NAN;
	out->rejected = PLATEAU_NO_MODEL;
	if (n < 2 * PLATEAU_MIN_PART || !(t[n - 1] > t[0]))
		return;
	size_t m_cap = n < PLATEAU_POINTS ? n : PLATEAU_POINTS;
	double *bx = xmalloc(m_cap * sizeof(double));
	double *by = xmalloc(2 * m_cap * sizeof(double));
	double *held = by + m_cap;
	size_t m = stats_bucket_medians(t, y, n, bx, by, m_cap);
	struct rise_model rm;
	size_t k = 0;
	double reach = NAN, span = bx[m - 1] - bx[0];
	double start = NAN;
	if (models_fit(bx, by, m, out, &rm)) {
		/* the readings less the model's rise: the start of the rise
		 * (the model's value at the first point), robust to spikes */
		for (size_t i = 0; i < m; i++)
			held[i] = by[i] - rm.b *
				  rise_shape(&rm, (bx[i] - bx[0]) / span);
		start = median_of(held, m);
		k = late_start(bx, m, pp->resolution, &rm, &reach);
	}
	if (k && out->gain_line >= PLATEAU_GAIN_LINE &&
	    out->gain_flat >= PLATEAU_GAIN_FLAT) {
		out->candidate = true;
		out->saturating = rm.saturating;
		out->tau = reach;
		/* the late part less the model's rise still to come */
		double top = rm.saturating ? rm.b : rm.b * rm.tau;
		for (size_t i = k; i < m; i++)
			held[i] = by[i] + top - rm.b *
				  rise_shape(&rm, (bx[i] - bx[0]) / span);
		double late_min = INFINITY;
		for (size_t i = k; i < m; i++)
			late_min = fmin(late_min, by[i]);
		out->level = median_of(by + k, m - k);
		out->early_slope_bph = (out->level - start) /
				       (reach - bx[0]) * 3600;
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
		/* The late part as read, and for the saturating curve also
		 * less what the curve says is still to come (under
		 * PLATEAU_SAT_REACHED of the rise): a level held if either
		 * holds. Reasons are those of the readings as read. */
		double late_span = bx[m - 1] - bx[k];
		out->late = late_slope(bx + k, by + k, m - k, pp->resolution,
				       late_span);
		out->rejected = late_judge(&out->late, limit, late_min, start,
					   out->level);
		if (out->rejected != PLATEAU_OK && rm.saturating) {
			struct slope d = late_slope(bx + k, held + k, m - k,
						    pp->resolution, late_span);
			if (late_judge(&d, limit, late_min, start,
				       out->level) == PLATEAU_OK) {
				out->late = d;
				out->rejected = PLATEAU_OK;
			}
		}
		/* Readings that have not moved at all lately say more than
		 * the late part's interval: over their span they rule out
		 * any slope above flat_run_bound(). Only at the level, and
		 * only for "not held long enough". */
		size_t run = 0;
		double bound = flat_run_bound(t, y, n, pp->resolution, &run);
		if (out->rejected == PLATEAU_SHORT && isfinite(bound) &&
		    bound * 3600 < limit &&
		    fabs(y[n - 1] - out->level) <= fmax(2 * pp->resolution,
							0.01 * out->level)) {
			out->rejected = PLATEAU_OK;
			out->held_by = PLATEAU_HELD_FLAT;
			out->flat_readings = n - run;
			out->flat_span_s = t[n - 1] - t[run];
			out->late.estimate = 0;
			out->late.low = -bound * 3600;
			out->late.high = bound * 3600;
		}
		/* Since: when the level was first (nearly) reached. */
		double tol = fmax(2 * pp->resolution, 0.01 * fabs(out->level));
		out->since = out->tau;
		for (size_t i = 0; i < m; i++)
			if (by[i] >= out->level - tol) {
				out->since = bx[i];
				break;
			}
		if (out->rejected == PLATEAU_OK) {
			double bh = bend_high(bx, by, m, k);
			if (isfinite(bh) && bh >= 0)
				out->rejected = PLATEAU_NO_BEND;
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
