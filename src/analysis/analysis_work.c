/*
 * analysis_work.c - findings that need the work counter: the slope per
 * request (Theil-Sen of footprint against cumulative work, the estimator
 * of the time slope with work in place of time), the detectable
 * per-request slope, how many requests would settle the question, and
 * the idle windows with growth accounting (idle.c).
 *
 * Contracts: no I/O; s and work are read-only; scratch is freed before
 * return. O(n) plus the bounded statistics of stats.c. Like the time
 * slope, the per-request slope is taken within the analysed incarnation
 * only (a restart resets both memory and the counter) and after its
 * warm-up when one was cut (f->slope_start).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common.h"

#define MIN_WORK_POINTS 3

/* The per-request slope that matters: --suspect SIZE/req when given,
 * else the time slope of concern spread over the observed request rate
 * (at the rate the service ran, that many bytes per request reach the
 * time slope of concern). */
static void per_request_concern(const struct analysis_options *o,
				struct target_findings *f)
{
	struct per_request_finding *pr = &f->per_request;
	pr->concern = NAN;
	if (o && o->has_suspect && o->suspect.basis == RATE_PER_REQUEST &&
	    o->suspect.bytes > 0) {
		pr->concern = o->suspect.bytes;
		pr->concern_is_suspect = true;
	} else if (isfinite(f->concern_bph) && f->concern_bph > 0 &&
		   pr->rate_per_h > 0) {
		pr->concern = f->concern_bph / pr->rate_per_h;
	}
}

/* The points of [lo, hi) the per-request slope is taken from, into
 * idx[] (room for hi - lo): one per step of the counter, from time
 * `from` on. *requests: the work done there (NAN: no readings). */
static size_t work_points(const struct series *s, const double *work,
			  size_t lo, size_t hi, double from, size_t *idx,
			  double *requests)
{
	/* One point per step of the counter: the footprint when the work
	 * was done. While the counter stands still (idle) the footprint may
	 * drift or be given back -- the idle windows report that -- but no
	 * work explains it: those points would only add ties in x. */
	size_t m = 0;
	double first = NAN, last = NAN;
	for (size_t i = lo; i < hi; i++) {
		if (s->t[i] < from || !isfinite(work[i]) ||
		    !isfinite(s->footprint[i]))
			continue;
		if (isnan(first))
			first = work[i];
		last = work[i];
		if (m && !(work[i] > work[idx[m - 1]]))
			continue;
		idx[m++] = i;
	}
	*requests = isnan(first) ? NAN : last - first;
	return m;
}

int analysis_work_trend(const struct series *s, const double *work,
			size_t lo, size_t hi, double from,
			struct trend_result *tr, double *requests)
{
	size_t cap = hi > lo ? hi - lo : 1;
	size_t *idx = xmalloc(cap * sizeof(size_t));
	size_t m = work_points(s, work, lo, hi, from, idx, requests);
	double *t = xmalloc(3 * cap * sizeof(double));
	double *x = t + cap, *y = t + 2 * cap;
	/* The noise is ordered by the points' times, not their work:
	 * readings close in time are alike whatever work lies between. */
	for (size_t k = 0; k < m; k++) {
		t[k] = s->t[idx[k]];
		x[k] = work[idx[k]];
		y[k] = s->footprint[idx[k]];
	}
	free(idx);
	int rc = -1;
	/* Cumulative work never decreases (idle_work_increase()), so x
	 * is already in the order stats_trend_compute_at() wants. */
	if (m >= MIN_WORK_POINTS && *requests > 0)
		rc = stats_trend_compute_at(t, x, y, m, tr);
	free(t);
	return rc;
}

/* The work done in the analysed incarnation: its last reading less its
 * first (NAN without readings). */
static double work_done(const struct series *s, const double *work,
			size_t lo, size_t hi)
{
	double first = NAN, last = NAN;
	for (size_t i = lo; i < hi; i++) {
		if (!isfinite(work[i]) || !isfinite(s->footprint[i]))
			continue;
		if (isnan(first))
			first = work[i];
		last = work[i];
	}
	return last - first;
}

/* As walk_sd_per_hour() (analysis.c) for the per-request slope: the
 * standard deviation, bytes per request, that s->walk_var gives it over
 * the points analysis_work_trend() takes; 0 without, NAN unknown. */
static double walk_sd_per_request(const struct series *s, const double *work,
				  size_t lo, size_t hi, double from)
{
	if (!s->walk_var || hi <= lo)
		return 0;
	size_t *idx = xmalloc((hi - lo) * sizeof(size_t));
	double requests;
	size_t m = work_points(s, work, lo, hi, from, idx, &requests);
	double *x = xmalloc(2 * (m ? m : 1) * sizeof(double));
	double *v = x + (m ? m : 1);
	for (size_t k = 0; k < m; k++) {
		x[k] = work[idx[k]];
		v[k] = s->walk_var[idx[k]];
	}
	double var = stats_walk_slope_variance(x, v, m);
	free(idx);
	free(x);
	return sqrt(var);
}

static void per_request_find(const struct series *s, const double *work,
			     size_t lo, size_t hi,
			     const struct analysis_options *o,
			     struct target_findings *f)
{
	struct per_request_finding *pr = &f->per_request;
	pr->recorded = true;
	double requests = work_done(s, work, lo, hi);
	if (isfinite(requests)) {
		pr->known = true;
		pr->requests = requests;
		if (f->an_span_s > 0)
			pr->rate_per_h = pr->requests / f->an_span_s * 3600;
	}
	/* The slope in the time slope's window (after the warm-up, when
	 * one was cut): the requests that filled a cache during its
	 * warm-up are no more evidence of growth per request than the
	 * warm-up's rise is of growth per hour. */
	pr->after_warmup = isfinite(f->slope_start) &&
			   f->slope_start > f->an_start;
	int rc = analysis_work_trend(s, work, lo, hi,
				     pr->after_warmup ? f->slope_start :
							-INFINITY,
				     &pr->trend, &pr->slope_requests);
	per_request_concern(o, f);
	if (rc == 0) {
		pr->found = true;
		pr->slope.estimate = pr->trend.slope;
		pr->slope.low = pr->trend.ci_low;
		pr->slope.high = pr->trend.ci_high;
		/* the readings' resolution over the work done: no interval
		 * is narrower than that leaves open */
		double q = f->resolution / pr->slope_requests;
		pr->slope.low = fmin(pr->slope.low, pr->slope.estimate - q);
		pr->slope.high = fmax(pr->slope.high, pr->slope.estimate + q);
		pr->slope.p = pr->trend.p_value;
		/* a sampled estimate's error (the sites' series) */
		stats_interval_add_error(pr->slope.estimate,
					 walk_sd_per_request(s, work, lo, hi,
							     pr->after_warmup ?
							     f->slope_start :
							     -INFINITY),
					 &pr->slope.low, &pr->slope.high,
					 &pr->slope.p);
		pr->significant = pr->slope.p < ANALYSIS_ALPHA &&
				  (pr->slope.low > 0 || pr->slope.high < 0);
		double half = (pr->slope.high - pr->slope.low) / 2;
		pr->detectable = fmax(q, half);
		/* as for time (analysis_needed()), in requests */
		if (isfinite(pr->concern) && pr->concern > 0)
			pr->needed_requests = analysis_needed(
				pr->slope_requests, half,
				pr->slope.estimate,
				pr->concern, f->resolution / pr->concern);
	} else if (isfinite(pr->concern) && pr->concern > 0) {
		pr->needed_requests = f->resolution / pr->concern;
	}
}

/* "At 48 MiB per request, about 3,100 more requests": the headroom left
 * under the exhaustion limit over the per-request slope. */
void analysis_work_exhaustion(struct target_findings *f)
{
	struct exhaustion_finding *e = &f->exhaustion;
	const struct per_request_finding *pr = &f->per_request;
	e->requests_left = e->requests_left_low = e->requests_left_high = NAN;
	if (!e->found || !pr->found || !pr->significant ||
	    !(pr->slope.estimate > 0))
		return;
	double headroom = fmax(e->limit_bytes - f->fp_last, 0);
	e->requests_left = headroom / pr->slope.estimate;
	e->requests_left_low = pr->slope.high > 0 ? headroom / pr->slope.high :
						 INFINITY;
	e->requests_left_high = pr->slope.low > 0 ? headroom / pr->slope.low :
						 INFINITY;
}

void analysis_work_run(const struct series *s, const double *work,
		       size_t lo, size_t hi, const struct analysis_options *o,
		       struct target_findings *f)
{
	struct per_request_finding *pr = &f->per_request;
	memset(pr, 0, sizeof(*pr));
	pr->slope = SLOPE_NONE;
	pr->detectable = pr->concern = pr->needed_requests = NAN;
	if (work)
		per_request_find(s, work, lo, hi, o, f);

	struct idle_options io = {
		.min_s = o && isfinite(o->idle_min_s) ? o->idle_min_s :
			 IDLE_DEFAULT_MIN_S,
		.warmup_s = o ? o->warmup_s : NAN,
		.resolution = f->resolution,
		.warmup_ends = f->warmup_ends,
	};
	f->idle_min_s = io.min_s;
	idle_findings_compute(s, work, &io, &f->idle);
}
