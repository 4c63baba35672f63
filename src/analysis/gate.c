/*
 * gate.c - `memtrend check`'s judgement (gate.h): the slope after the
 * warm-up against a budget, and the advice when the interval cannot
 * decide.
 *
 * The statistics are report's: the per-request slope is
 * analysis_work_trend() (one point per step of the counter, noise ordered
 * by time), the time slope stats_trend_compute(), both widened by the
 * readings' resolution over the amount, as analysis.c and analysis_work.c
 * widen them. No I/O; scratch is freed before return; O(n) plus the
 * bounded statistics of stats.h.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "analysis.h"
#include "common.h"
#include "counter.h"
#include "gate.h"
#include "stats.h"

const char *gate_outcome_name(enum gate_outcome o)
{
	switch (o) {
	case GATE_PASS: return "pass";
	case GATE_FAIL: return "fail";
	case GATE_INCONCLUSIVE: return "inconclusive";
	}
	return "?";
}

/* Where the warm-up ends in points [lo, hi): a time (Unix s). INFINITY
 * when the warm-up's work was never done. */
static double warmup_end(const struct series *s, const double *work,
			 size_t lo, size_t hi, const struct gate_window *w)
{
	double from = s->t[lo];
	if (w && w->warmup_s > 0)
		from = s->t[lo] + w->warmup_s;
	if (w && w->warmup_requests > 0) {
		if (!work)
			return INFINITY;
		double w0 = NAN, at = INFINITY;
		for (size_t i = lo; i < hi; i++) {
			if (!isfinite(work[i]))
				continue;
			if (isnan(w0))
				w0 = work[i];
			if (work[i] - w0 >= w->warmup_requests) {
				at = s->t[i];
				break;
			}
		}
		from = fmax(from, at);
	}
	return from;
}

void gate_measure(const struct series *s, const double *work,
		  enum gate_basis basis, const struct gate_window *w,
		  struct gate_evidence *e)
{
	*e = (struct gate_evidence){
		.basis = basis,
		.work_recorded = s->requests != NULL,
		.requests = NAN, .span_s = 0, .from = NAN, .resolution = NAN,
		.slope = SLOPE_NONE, .amount = NAN, .rate_per_s = NAN,
	};
	if (!s->n)
		return;
	/* A gauge (requests in flight) read as a count of work gives a
	 * per-request slope that means nothing (issue 27: significant in
	 * most windows of a service with no leak). */
	if (basis == GATE_PER_REQUEST && s->requests) {
		struct counter_check cc;
		counter_check_run(s, &cc, NULL);
		e->work_decreases = cc.decreases;
		e->work_compared = cc.readings;
		if (!cc.is_counter) {
			e->work_not_counter = true;
			return;
		}
	}
	/* The latest incarnation: a restart resets memory and counter. */
	size_t hi = s->n, lo = hi - 1;
	while (lo > 0 && s->inc[lo - 1] == s->inc[hi - 1])
		lo--;
	e->from = warmup_end(s, work, lo, hi, w);

	double *t = xmalloc(2 * (hi - lo) * sizeof(double));
	double *y = t + (hi - lo);
	size_t m = 0;
	double w_first = NAN, w_last = NAN;
	for (size_t i = lo; i < hi; i++) {
		if (!isfinite(s->footprint[i]))
			continue;
		if (s->t[i] < e->from) {
			e->points_before++;
			continue;
		}
		t[m] = s->t[i];
		y[m] = s->footprint[i];
		m++;
		if (work && isfinite(work[i])) {
			if (isnan(w_first))
				w_first = work[i];
			w_last = work[i];
			e->work_readings++;
		}
	}
	e->points = m;
	if (m)
		e->span_s = t[m - 1] - t[0];
	e->requests = w_last - w_first;
	if (e->span_s > 0 && e->requests >= 0)
		e->rate_per_s = e->requests / e->span_s;
	e->resolution = m ? stats_resolution(y, m, s->quantum) : NAN;

	struct trend_result tr;
	if (basis == GATE_PER_REQUEST && work) {
		double requests;
		if (m >= 3 && analysis_work_trend(s, work, lo, hi, e->from, &tr,
						  &requests) == 0) {
			e->found = true;
			e->amount = requests;
			double q = e->resolution / requests;
			e->slope = (struct slope){tr.slope,
				fmin(tr.ci_low, tr.slope - q),
				fmax(tr.ci_high, tr.slope + q), tr.p_value};
		}
	} else if (basis == GATE_PER_HOUR && m >= 3 && e->span_s > 0) {
		double t0 = t[0];
		for (size_t i = 0; i < m; i++)
			t[i] -= t0;
		if (stats_trend_compute(t, y, m, &tr) == 0) {
			e->found = true;
			e->amount = e->span_s;
			double q = e->resolution / e->span_s;
			e->slope = (struct slope){tr.slope * 3600,
				fmin(tr.ci_low, tr.slope - q) * 3600,
				fmax(tr.ci_high, tr.slope + q) * 3600,
				tr.p_value};
		}
	}
	free(t);
}

/* The chance that a rerun of k times the amount decides, for a run whose
 * estimate lies d from the budget with side = the half-width of the
 * interval on the budget's side and q = the resolution's widening over
 * the amount seen. The truth is taken as the interval says: normal about
 * the estimate with sd s = side / z; the rerun's estimate scatters about
 * the truth with sd s_k = s k^-GATE_SHRINK, independently, so about the
 * estimate with sd sqrt(s^2 + s_k^2); it decides when it lies farther
 * from the budget than its own half-width, max(z s_k, q / k). */
static double rerun_decides(double d, double side, double q, double k)
{
	double s = side / STATS_Z975;
	double sk = s * pow(k, -GATE_SHRINK);
	double h = fmax(STATS_Z975 * sk, q / k);
	double v = sqrt(s * s + sk * sk);
	return stats_norm_cdf((d - h) / v) + stats_norm_cdf((-d - h) / v);
}

double gate_rerun_factor(double d, double side, double q)
{
	assert(d >= 0 && side > 0 && q >= 0);
	/* rerun_decides() grows with k (its derivative in s_k is
	 * (z s^2 - d s_k) / v^3 > 0 while d < z s, i.e. inconclusive, and
	 * q / k falls), from below 1/2 at k = 1 towards 1: bisect on log k.
	 * 200 halvings of [0, log 1e12] leave k to a relative 1e-15. */
	if (rerun_decides(d, side, q, 1) >= GATE_ASSURANCE)
		return 1;
	double lo = 0, hi = log(1e12);
	if (rerun_decides(d, side, q, exp(hi)) < GATE_ASSURANCE)
		return INFINITY;
	for (int i = 0; i < 200 && hi - lo > 1e-15; i++) {
		double mid = (lo + hi) / 2;
		if (rerun_decides(d, side, q, exp(mid)) >= GATE_ASSURANCE)
			hi = mid;
		else
			lo = mid;
	}
	return exp(hi);
}

void gate_judge(const struct gate_evidence *e, double budget,
		struct gate_result *r)
{
	assert(budget > 0);
	*r = (struct gate_result){
		.outcome = GATE_INCONCLUSIVE, .why = GATE_WHY_TOO_FEW,
		.budget = budget, .needed = NAN, .more = NAN, .more_s = NAN,
	};
	/* A counter read fewer than twice after the warm-up (a fast load
	 * against a slow interval, an endpoint failing) cannot say whether
	 * work was done: too few readings, not "no work". */
	if (e->basis == GATE_PER_REQUEST && e->work_not_counter) {
		r->why = GATE_WHY_NOT_COUNTER;
		return;
	}
	if (e->basis == GATE_PER_REQUEST && e->work_recorded &&
	    e->points >= 3 && e->work_readings < 2)
		return;
	/* No work after the warm-up: memory that grows per request cannot
	 * show, whatever the time slope says (verdicts.md, rule 2). */
	if (e->basis == GATE_PER_REQUEST && e->work_recorded &&
	    e->points >= 3 && !(e->requests > 0)) {
		r->why = GATE_WHY_NO_WORK;
		return;
	}
	if (!e->found || e->points < 3 || !(e->amount > 0) ||
	    !isfinite(e->slope.low) || !isfinite(e->slope.high))
		return;
	const struct slope *sl = &e->slope;
	if (sl->high < budget) {
		r->outcome = GATE_PASS;
		r->why = GATE_WHY_NONE;
		return;
	}
	if (sl->low > budget) {
		r->outcome = GATE_FAIL;
		r->why = GATE_WHY_NONE;
		return;
	}
	/* The budget lies inside the interval: plan a rerun on the interval,
	 * not on the estimate (docs/check.md, "The advice"). */
	r->why = GATE_WHY_INTERVAL;
	double d = fabs(budget - sl->estimate);
	double side = sl->estimate < budget ? sl->high - sl->estimate :
					      sl->estimate - sl->low;
	if (!(side > 0)) {
		r->why = GATE_WHY_AT_BUDGET;
		r->needed = r->more = r->more_s = INFINITY;
		return;
	}
	double res = e->basis == GATE_PER_HOUR ? e->resolution * 3600 :
						 e->resolution;
	double k = gate_rerun_factor(d, side, isfinite(res) && res > 0 ?
				     res / e->amount : 0);
	if (!isfinite(k)) { /* not within 10^12 times: nothing to plan */
		r->why = GATE_WHY_AT_BUDGET;
		r->needed = r->more = r->more_s = INFINITY;
		return;
	}
	r->needed = e->amount * k;
	r->more = r->needed - e->amount;
	if (e->basis == GATE_PER_HOUR)
		r->more_s = r->more;
	else if (e->rate_per_s > 0)
		r->more_s = r->more / e->rate_per_s;
}
