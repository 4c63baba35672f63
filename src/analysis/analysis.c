/*
 * analysis.c - findings for one target (analysis.h): which incarnation to
 * analyse, resolution, Theil-Sen slope with its interval and trend test,
 * the detectable slope, the slope of concern, the minimum observation
 * ("the division": resolution / slope), a basic plateau rule, and
 * exhaustion time.
 *
 * Contracts: no I/O; the series is read-only; scratch arrays are freed
 * before return. Work is O(n) plus the bounded statistics of stats.c; the
 * plateau search runs on at most PLATEAU_POINTS bucket medians so it stays
 * cheap on 10^7 samples.
 *
 * A slope never spans two incarnations (a restart would look like a huge
 * drop): the slope is taken from the latest incarnation that has enough
 * points, after its warm-up (warmup.h: found in the readings, or
 * --warmup). Each incarnation's own slope after its warm-up is pooled
 * with the others' (pooled.h) for the verdict's rules 6a/6b.
 */
#include "analysis.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats_lowfreq.h"

#define MIN_TREND_POINTS 3

const char *verdict_name(enum verdict v)
{
	switch (v) {
	case VERDICT_INCONCLUSIVE: return "inconclusive";
	case VERDICT_STABLE: return "stable";
	case VERDICT_GROWING: return "growing";
	case VERDICT_PLATEAU: return "plateau";
	}
	return "?";
}

void analysis_options_init(struct analysis_options *o)
{
	memset(o, 0, sizeof(*o));
	o->resolution = o->limit = NAN;
	o->idle_min_s = o->warmup_s = NAN;
}

/* Device-local GPU memory at the last sample that has it; 0 when none.
 * The host's limits (cgroup, MemTotal) bound host memory only: the
 * footprint's GPU part sits beside them, not under them. */
static double gpu_last(const struct series *s)
{
	const double *g = s->comp[COMP_GPU];
	for (size_t i = s->n; g && i-- > 0;)
		if (isfinite(g[i]))
			return g[i];
	return 0;
}

/* The limit memory can grow to, most specific first. *not_counted: the
 * part of the footprint the limit does not bound (the GPU memory, for a
 * host limit; 0 for --limit, which bounds the footprint as a whole). */
static double known_limit(const struct series *s,
			  const struct analysis_options *o,
			  const char **source, double *not_counted)
{
	*not_counted = 0;
	if (o && isfinite(o->limit) && o->limit > 0) {
		*source = "--limit";
		return o->limit;
	}
	if (isfinite(s->cgroup_limit) && s->cgroup_limit > 0) {
		*source = "cgroup limit";
		*not_counted = gpu_last(s);
		return s->cgroup_limit;
	}
	if (isfinite(s->mem_total) && s->mem_total > 0) {
		*source = "MemTotal";
		*not_counted = gpu_last(s);
		return s->mem_total;
	}
	*source = NULL;
	return NAN;
}

double analysis_concern_bph(const struct series *s,
			    const struct analysis_options *o, double fp_last,
			    double fp_max, bool decimal, char *source,
			    size_t source_len, double *limit_out)
{
	char sz[32];
	*limit_out = NAN;
	if (o && o->has_suspect && o->suspect.basis == RATE_PER_HOUR &&
	    o->suspect.bytes > 0) {
		snprintf(source, source_len, "--suspect");
		return o->suspect.bytes;
	}
	const char *lsrc;
	double beside;
	double limit = known_limit(s, o, &lsrc, &beside);
	double horizon_h = ANALYSIS_CONCERN_HORIZON_S / 3600.0;
	if (isfinite(limit)) {
		/* The slope that uses up the headroom left within 30 days;
		 * with no headroom left, any growth matters: take 1 % of the
		 * limit per 30 days. */
		double headroom = limit - (isfinite(fp_last) ?
					   fp_last - beside : 0);
		if (headroom < 0.01 * limit)
			headroom = 0.01 * limit;
		*limit_out = limit;
		snprintf(source, source_len, "reaches the %s (%s) in 30 days",
			 lsrc, units_format_size_in(sz, sizeof(sz), limit, decimal));
		return headroom / horizon_h;
	}
	if (isfinite(fp_max) && fp_max > 0) {
		snprintf(source, source_len,
			 "doubles the largest reading (%s) in 30 days",
			 units_format_size_in(sz, sizeof(sz), fp_max,
					      decimal));
		return fp_max / horizon_h;
	}
	snprintf(source, source_len, "unknown");
	return NAN;
}

/* Never finer than the evidence: readings that never change show no
 * step to infer a resolution from, and the place of a text's last digit
 * ("21000000000": 1 B) says nothing about what the source could show. A
 * recording knows its unit (a page); otherwise take what the readings
 * share (trailing zeros, pages), and with nothing shared the resolution
 * is unknown: the verdict says so and names --resolution. */
static void resolution_when_flat(const struct series *s, const double *y,
				 size_t n, struct target_findings *f)
{
	f->resolution_basis = RESOLUTION_STEPS;
	for (size_t i = 1; i < n; i++)
		if (y[i] != y[i - 1])
			return;
	if (s->quantum_exact) {
		f->resolution_basis = RESOLUTION_SOURCE;
		return;
	}
	double shared = stats_resolution_shared(y, n);
	if (shared > f->resolution) {
		f->resolution = shared;
		f->resolution_basis = RESOLUTION_SHARED;
	} else if (!(f->resolution > 1)) {
		f->resolution_basis = RESOLUTION_UNKNOWN;
	} else {
		f->resolution_basis = RESOLUTION_SOURCE;
	}
}

/* Readings in whole decimal units (a tool printing "21 GB", "5408 MB")
 * rather than pages: a multiple of 1000 that is not one of 1024. */
static bool is_decimal_quantum(double q)
{
	return q >= 1000 && fmod(q, 1000) == 0 && fmod(q, 1024) != 0;
}

/* The incarnation to analyse: the latest one with enough points, else
 * the one with the most. */
static size_t pick_incarnation(const struct series *s, size_t *counts)
{
	size_t best = 0;
	for (size_t i = 0; i < s->n_incs; i++)
		if (counts[i] > counts[best])
			best = i;
	for (size_t i = s->n_incs; i-- > 0;)
		if (counts[i] >= MIN_TREND_POINTS * 4 ||
		    (counts[i] >= MIN_TREND_POINTS &&
		     counts[i] * 2 >= counts[best]))
			return i;
	return best;
}

/* The first point of [lo, hi) after the incarnation's start-up: the end
 * of its warm-up when one was found or given (warmup.h, the upper end of
 * its interval), else by the idle windows' rule (idle.h): the first
 * increase of the work counter but at most IDLE_DEFAULT_WARMUP_S; without
 * work, IDLE_DEFAULT_WARMUP_S. When that leaves fewer than
 * MIN_AFTER_WARMUP points, lo: a short recording is all there is. */
#define MIN_AFTER_WARMUP 6
static size_t warmup_end_index(const struct series *s, const double *work,
			       size_t lo, size_t hi,
			       const struct warmup_finding *wu)
{
	if (lo >= hi)
		return lo;
	double t0 = s->t[lo];
	double end = t0 + IDLE_DEFAULT_WARMUP_S;
	if (wu && wu->source != WARMUP_NONE) {
		end = wu->end_high;
	} else if (work) {
		double prev = NAN;
		for (size_t i = lo; i < hi && s->t[i] < end; i++) {
			if (isnan(work[i]))
				continue;
			if (work[i] > prev) {  /* false while prev is NAN */
				end = s->t[i];
				break;
			}
			prev = work[i];
		}
	}
	size_t k = lo;
	while (k < hi && s->t[k] < end)
		k++;
	return hi - k >= MIN_AFTER_WARMUP ? k : lo;
}

/* The end (exclusive) of the incarnation's run that starts at lo:
 * incarnations are contiguous runs of the series. */
static size_t inc_run_end(const struct series *s, size_t lo)
{
	if (!s->n_incs)
		return s->n;
	size_t hi = lo + 1;
	while (hi < s->n && s->inc[hi] == s->inc[lo])
		hi++;
	return hi;
}

/* Each incarnation's warm-up (warmup.h), or --warmup's end when given,
 * into f->warmups and f->warmup_ends (the idle windows' rule
 * when none: NAN). O(n) copies plus warmup_find()'s bounded fits per
 * incarnation. */
static void warmups_find(const struct series *s,
			 const struct analysis_options *o,
			 struct target_findings *f)
{
	size_t n_incs = s->n_incs ? s->n_incs : 1;
	f->warmup_ends = xmalloc(n_incs * sizeof(double));
	f->warmups = xcalloc(n_incs, sizeof(*f->warmups));
	for (size_t i = 0; i < n_incs; i++)
		f->warmup_ends[i] = NAN;
	double *x = xmalloc((s->n ? s->n : 1) * sizeof(double));
	double *y = xmalloc((s->n ? s->n : 1) * sizeof(double));
	double given = o ? o->warmup_s : NAN;
	for (size_t lo = 0, hi; lo < s->n; lo = hi) {
		hi = inc_run_end(s, lo);
		size_t idx = s->n_incs ? s->inc[lo] : 0;
		size_t m = 0;
		for (size_t i = lo; i < hi; i++)
			if (!isnan(s->footprint[i])) {
				x[m] = s->t[i];
				y[m++] = s->footprint[i];
			}
		struct warmup_finding *wu = &f->warmups[idx];
		warmup_find(x, y, m, f->resolution, wu);
		if (isfinite(given) && m) {
			/* --warmup overrides what was found */
			double start = wu->start;
			memset(wu, 0, sizeof(*wu));
			wu->source = WARMUP_GIVEN;
			wu->start = start;
			wu->end = wu->end_low = wu->end_high =
				start + fmax(given, 0);
			wu->level = wu->rise = wu->gain = wu->late_bph = NAN;
		}
		if (wu->source != WARMUP_NONE)
			f->warmup_ends[idx] = wu->end_high;
	}
	free(x);
	free(y);
}

/* A slope per hour from a trend, its interval never narrower than the
 * resolution over the span leaves open: the verdict's slope
 * (trend_set()) and each incarnation's settled one. */
static struct slope slope_widened(const struct trend_result *tr,
				  double resolution, double span_s)
{
	struct slope sl;
	stats_trend_per_hour(tr, &sl.estimate, &sl.low, &sl.high, &sl.p);
	double q = span_s > 0 ? resolution / span_s * 3600 : 0;
	sl.low = fmin(sl.low, sl.estimate - q);
	sl.high = fmax(sl.high, sl.estimate + q);
	return sl;
}

/* Each incarnation on its own: figures, a slope over all of it (when it
 * has enough points and a span) and one after its warm-up (the settled
 * slope the incarnations are pooled by). O(n) plus two bounded trends per
 * incarnation. f->per_inc is allocated, its warm-ups found. */
static void incarnations_summarise(const struct series *s,
				   struct target_findings *f)
{
	size_t n_incs = s->n_incs ? s->n_incs : 1;
	assert(f->per_inc);
	/* Copies only for the other incarnations (the analysed one, often
	 * all of a 10^7-point series, is summarised in place). */
	size_t cap = n_incs > 1 ? s->n : 1;
	double *x = xmalloc(cap * sizeof(double));
	double *y = xmalloc(cap * sizeof(double));
	for (size_t lo = 0, hi; lo < s->n; lo = hi) {
		hi = inc_run_end(s, lo);
		size_t idx = s->n_incs ? s->inc[lo] : 0;
		struct incarnation_summary *is = &f->per_inc[idx];
		size_t m = 0;
		bool copy = idx != f->analysed_inc;
		for (size_t i = lo; i < hi; i++) {
			if (isnan(s->footprint[i]))
				continue;
			if (copy) {
				x[m] = s->t[i];
				y[m] = s->footprint[i];
			}
			double ti = s->t[i], yi = s->footprint[i];
			if (!m) {
				is->start = ti;
				is->fp_first = is->fp_min = is->fp_max = yi;
			}
			is->end = ti;
			is->fp_last = yi;
			is->fp_min = fmin(is->fp_min, yi);
			is->fp_max = fmax(is->fp_max, yi);
			m++;
		}
		is->samples = m;
		is->settled_start = NAN;
		struct trend_result tr;
		if (!copy) {
			/* Already computed: the verdict's own slope, after
			 * the warm-up. */
			is->has_slope = is->has_settled_slope = f->has_trend;
			is->slope = is->settled_slope = f->slope;
			is->settled_points = f->has_trend ? f->trend.n_raw : 0;
			is->settled_start = f->slope_start;
			continue;
		}
		bool have = m >= MIN_TREND_POINTS && is->end > is->start &&
			    stats_trend_compute(x, y, m, &tr) == 0;
		if (have) {
			is->has_slope = true;
			stats_trend_per_hour(&tr, &is->slope.estimate, &is->slope.low,
				       &is->slope.high, &is->slope.p);
		}
		/* after the warm-up: from the first point at or after the
		 * upper end of its interval (none: the whole incarnation,
		 * whose trend tr already is) */
		size_t k = 0;
		const struct warmup_finding *wu = &f->warmups[idx];
		if (wu->source != WARMUP_NONE)
			while (k < m && x[k] < wu->end_high)
				k++;
		if (k > 0)
			have = m - k >= MIN_TREND_POINTS && x[m - 1] > x[k] &&
			       stats_trend_compute(x + k, y + k, m - k,
						   &tr) == 0;
		if (have) {
			is->has_settled_slope = true;
			is->settled_points = m - k;
			is->settled_start = x[k];
			is->settled_slope = slope_widened(&tr, f->resolution,
							  x[m - 1] - x[k]);
		}
	}
	free(x);
	free(y);
}

/* The incarnations pooled (pooled.h): the settled slopes of those with
 * POOLED_MIN_POINTS or more settled points. When most incarnations had a
 * warm-up, one whose warm-up could not be found (too short to show it)
 * may still hold it in its slope: it is left out. Then what more would
 * decide: incarnations, the interval's half-width shrinking about as
 * 1 / sqrt(k), to the distance analysis_needed() asks for. */
static void incarnations_pool(const struct series *s,
			      struct target_findings *f)
{
	struct pooled_finding *p = &f->pooled;
	memset(p, 0, sizeof(*p));
	p->slope = SLOPE_NONE;
	p->tau_bph = p->life_s = p->more_incarnations = NAN;
	p->given_back_bph = NAN;
	size_t n_incs = f->n_incarnations;
	if (n_incs < POOLED_MIN_INCS)
		return;
	size_t cand = 0, warm = 0;
	for (size_t i = 0; i < n_incs; i++) {
		const struct incarnation_summary *is = &f->per_inc[i];
		if (!is->has_settled_slope ||
		    is->settled_points < POOLED_MIN_POINTS)
			continue;
		cand++;
		warm += f->warmups[i].source != WARMUP_NONE;
	}
	bool need_warm = 2 * warm >= cand && warm > 0;
	double *est = xmalloc(3 * n_incs * sizeof(double));
	double *se = est + n_incs, *life = est + 2 * n_incs;
	size_t k = 0;
	for (size_t i = 0; i < n_incs; i++) {
		const struct incarnation_summary *is = &f->per_inc[i];
		if (!is->has_settled_slope ||
		    is->settled_points < POOLED_MIN_POINTS ||
		    (need_warm && f->warmups[i].source == WARMUP_NONE))
			continue;
		double half = (is->settled_slope.high - is->settled_slope.low) / 2;
		if (!(half > 0) || !isfinite(is->settled_slope.estimate))
			continue;
		est[k] = is->settled_slope.estimate;
		se[k] = half / 1.959964;
		life[k] = is->end - is->start;
		k++;
	}
	struct meta_result mr;
	if (k >= POOLED_MIN_INCS &&
	    stats_meta_hksj(est, se, k, 1 - ANALYSIS_ALPHA, &mr) == 0) {
		p->found = true;
		p->incarnations = k;
		p->slope = (struct slope){mr.estimate, mr.low, mr.high, mr.p};
		p->tau_bph = sqrt(mr.tau2);
		p->significant = mr.p < ANALYSIS_ALPHA &&
				 (mr.low > 0 || mr.high < 0);
		p->life_s = stats_median_inplace(life, k);
		double half = (mr.high - mr.low) / 2, c = f->concern_bph;
		if (isfinite(c) && c > 0) {
			double target = mr.estimate < c ?
					c - fmax(mr.estimate, 0) : mr.estimate;
			if (target > 0 && half > target)
				p->more_incarnations = fmax(1, ceil(
					(double)k * (half / target) *
					(half / target) - (double)k));
		}
	}
	free(est);
	/* the restarts' evidence: what they gave back per hour of the old
	 * incarnations' settled lives */
	double back = 0, hours = 0;
	for (size_t r = 0; r < f->restarts.n; r++) {
		const struct restart *rs = &f->restarts.r[r];
		const struct incarnation_summary *is = &f->per_inc[rs->old_inc];
		double from = isfinite(is->settled_start) ? is->settled_start :
			      is->start;
		if (!isfinite(rs->recovered) || !(is->end > from))
			continue;
		back += rs->recovered;
		hours += (is->end - from) / 3600;
	}
	if (hours > 0 && s->n_incs)
		p->given_back_bph = back / hours;
}

/* The steps of the whole analysed incarnation (reduced to
 * STATS_BUCKETS_MAX bucket medians when longer, as the trend is). */
static void steps_whole(const double *x, const double *y, size_t n,
			double resolution, struct step_findings *out)
{
	if (n <= STATS_BUCKETS_MAX) {
		steps_find(x, y, n, resolution, out);
		return;
	}
	double *bx = xmalloc(2 * STATS_BUCKETS_MAX * sizeof(double));
	double *by = bx + STATS_BUCKETS_MAX;
	size_t m = stats_bucket_medians(x, y, n, bx, by, STATS_BUCKETS_MAX);
	steps_find(bx, by, m, resolution, out);
	free(bx);
}

/* Steps that give back at least this share of what the steps take are
 * no growth of their own: a release, a spike's rise and fall. */
#define STEPS_GIVEN_BACK_SHARE 0.5

/* The trend between the steps, when the steps give back what they take
 * (docs/statistics.md, "Steps in the slope"). A release of memory in a
 * window that leaks before and after is one event, not wander: read as
 * wander it widens the interval until nothing can be said, and it pulls
 * the slope down. Steps that climb and keep (a staircase, a leak the
 * allocator shows in chunks) are the growth itself and stay in the trend.
 * The trend on the cycles' floors is left as it is. */
static void trend_between_steps(const double *x, const double *y, size_t n,
				const struct step_findings *st,
				struct target_findings *f)
{
	if (f->trend_on_floors || st->n == 0 || st->n != st->n_found ||
	    st->n > LF_NUISANCE_MAX)
		return;
	double up = 0, down = 0;
	size_t starts[LF_NUISANCE_MAX];
	for (size_t i = 0; i < st->n; i++) {
		if (st->steps[i].change > 0)
			up += st->steps[i].change;
		else
			down -= st->steps[i].change;
		starts[i] = st->steps[i].index;
	}
	if (!(down > 0) || !(down >= STEPS_GIVEN_BACK_SHARE * up))
		return;
	struct trend_result tr;
	if (stats_trend_compute_steps(x, y, n, starts, st->n, &tr) != 0)
		return;
	tr.n_raw = f->trend.n_raw;
	tr.bucketed = f->trend.bucketed;
	f->trend = tr;
	f->trend_between_steps = true;
}

/* The standard deviation, in bytes per hour, that the error the readings
 * carry into later ones (s->walk_var: a sampled estimate's) gives the
 * time slope over points [lo, hi) of s from time `from` on; 0 when s
 * carries none, NAN when it is not known at every such point. */
static double walk_sd_per_hour(const struct series *s, size_t lo, size_t hi,
			       double from)
{
	if (!s->walk_var || hi <= lo)
		return 0;
	double *x = xmalloc(2 * (hi - lo) * sizeof(double));
	double *v = x + (hi - lo);
	size_t m = 0;
	for (size_t i = lo; i < hi; i++) {
		if (isnan(s->footprint[i]) || s->t[i] < from)
			continue;
		x[m] = s->t[i];
		v[m++] = s->walk_var[i];
	}
	double var = stats_walk_slope_variance(x, v, m);
	free(x);
	return sqrt(var) * 3600;
}

/* The figures of the trend the verdict rests on, in bytes per hour; the
 * interval is never narrower than the readings' resolution over the span
 * leaves open (two readings a quantum apart could hide that much), and
 * counts the error the readings carry into later ones (walk_sd_bph, its
 * standard deviation in the slope: stats_interval_add_error()), the test
 * too, so that significance and verdict see it. */
static void trend_set(struct target_findings *f, const struct trend_result *tr,
		      double walk_sd_bph)
{
	f->slope = slope_widened(tr, f->resolution, f->slope_span_s);
	stats_interval_add_error(f->slope.estimate, walk_sd_bph, &f->slope.low,
				 &f->slope.high, &f->slope.p);
	double q = f->resolution / f->slope_span_s * 3600;
	f->significant = f->slope.p < ANALYSIS_ALPHA &&
			 (f->slope.low > 0 || f->slope.high < 0);
	double half = (f->slope.high - f->slope.low) / 2;
	f->detectable_bph = fmax(q, half);
}

/* The division and the window still needed. */
static void trend_advice(const struct analysis_options *o,
			 struct target_findings *f)
{
	double half = (f->slope.high - f->slope.low) / 2;
	/* The division, for --suspect when given (the slope the user asks
	 * about), else for the measured slope. */
	f->concern_is_suspect = o && o->has_suspect &&
				o->suspect.basis == RATE_PER_HOUR;
	if (f->concern_is_suspect)
		f->min_observation_s = f->resolution / o->suspect.bytes * 3600;
	else if (f->slope.estimate != 0)
		f->min_observation_s =
			f->resolution / fabs(f->slope.estimate) * 3600;
	/* in all: the warm-up before the slope's window, then the window */
	if (isfinite(f->concern_bph) && f->concern_bph > 0)
		f->needed_span_s = (f->slope_start - f->an_start) +
			analysis_needed(f->slope_span_s, half,
					f->slope.estimate, f->concern_bph,
					f->resolution / f->concern_bph * 3600);
}

double analysis_needed(double span, double half, double slope,
		       double concern, double division)
{
	double target = slope < concern ? concern - fmax(slope, 0) : slope;
	double need = division;
	if (target > 0 && half > target)
		need = fmax(need, span * pow(half / target, 2.0 / 3));
	return need;
}

/* A plateau with a work counter: the level must have held while requests
 * ran, and not by growing per request. Memory that stops growing when the
 * work stops has not plateaued. And the requests are evidence of their
 * own: a level too short-lived to rule out the slope of concern per hour
 * held if it took enough requests to rule it out per request -- the
 * late part's per-request interval (widened by the resolution over its
 * requests) lies below the per-request concern. */
static void plateau_check_work(const struct series *s, const double *work,
			       size_t lo, size_t hi,
			       const struct plateau_params *pp,
			       struct target_findings *f)
{
	const struct per_request_finding *pr = &f->per_request;
	struct plateau_finding *p = &f->plateau;
	if (!pr->known || !(pr->requests > 0))
		return;
	struct trend_result late;
	double late_requests = 0;
	int rc = analysis_work_trend(s, work, lo, hi, p->tau, &late,
				   &late_requests);
	/* checked on every candidate, whatever else it failed: "flat only
	 * while idle" is the reason that explains the shape */
	if (!(late_requests >= 0.1 * pr->requests)) {
		p->found = false;
		p->rejected = PLATEAU_IDLE;
		return;
	}
	if (rc != 0)
		return;
	if (late.p_value < ANALYSIS_ALPHA && late.ci_low > 0) {
		if (p->found) {
			p->found = false;
			p->rejected = PLATEAU_PER_REQUEST;
		}
		return;
	}
	double q = f->resolution / late_requests;
	struct slope per_req = {late.slope, fmin(late.ci_low, late.slope - q),
				fmax(late.ci_high, late.slope + q), NAN};
	if (!p->found && p->rejected == PLATEAU_SHORT &&
	    isfinite(pr->concern) && pr->concern > 0 &&
	    per_req.high < pr->concern &&
	    per_req.low > -pr->concern) {
		p->found = true;
		p->rejected = PLATEAU_OK;
		p->held_by = PLATEAU_HELD_REQUESTS;
		p->late_per_req = per_req;
		p->late_requests = late_requests;
		p->concern_per_req = pr->concern;
		plateau_match_cap(p, pp);
	}
}

void analysis_run(const struct series *s, const struct analysis_options *o,
		  struct target_findings *f)
{
	memset(f, 0, sizeof(*f));
	f->series = s;
	f->n_incarnations = s->n_incs ? s->n_incs : 1;
	f->start = f->end = f->an_start = f->an_end = NAN;
	f->fp_first = f->fp_last = f->fp_min = f->fp_max = NAN;
	f->slope = SLOPE_NONE;
	f->detectable_bph = NAN;
	f->min_observation_s = f->needed_span_s = NAN;
	f->concern_limit = NAN;
	f->plateau.cap_bytes = NAN;
	f->slope_start = NAN;

	size_t n_incs = s->n_incs ? s->n_incs : 1;
	size_t *counts = xcalloc(n_incs, sizeof(size_t));
	for (size_t i = 0; i < s->n; i++) {
		double v = s->footprint[i];
		if (isnan(v))
			continue;
		if (f->samples == 0) {
			f->fp_first = f->fp_min = f->fp_max = v;
			f->start = s->t[i];
		}
		f->fp_last = v;
		f->fp_min = fmin(f->fp_min, v);
		f->fp_max = fmax(f->fp_max, v);
		f->end = s->t[i];
		f->samples++;
		counts[s->n_incs ? s->inc[i] : 0]++;
	}
	f->span_s = f->samples ? f->end - f->start : 0;
	f->per_inc = xcalloc(n_incs, sizeof(*f->per_inc));
	size_t inc = pick_incarnation(s, counts);
	f->analysed_inc = inc;
	f->analysed_samples = counts[inc];
	free(counts);

	/* The analysed incarnation's points. Incarnations never interleave,
	 * so they are one contiguous run of the series; without missing
	 * footprints the statistics read the series in place (no copy of
	 * 10^7 points). Times stay absolute: stats.c keeps full precision
	 * with Unix-time x. */
	size_t lo = 0, hi = s->n;
	if (s->n_incs) {
		while (lo < s->n && s->inc[lo] != inc)
			lo++;
		hi = lo;
		while (hi < s->n && s->inc[hi] == inc)
			hi++;
	}
	size_t n = f->analysed_samples;
	const double *x = s->t + lo, *y = s->footprint + lo;
	double *xbuf = NULL, *ybuf = NULL;
	if (n != hi - lo) {
		xbuf = xmalloc((n ? n : 1) * sizeof(double));
		ybuf = xmalloc((n ? n : 1) * sizeof(double));
		size_t k = 0;
		for (size_t i = lo; i < hi; i++)
			if (!isnan(s->footprint[i])) {
				xbuf[k] = s->t[i];
				ybuf[k] = s->footprint[i];
				k++;
			}
		assert(k == n);
		x = xbuf;
		y = ybuf;
	}
	if (n) {
		f->an_start = x[0];
		f->an_end = x[n - 1];
	}
	f->an_span_s = n ? f->an_end - f->an_start : 0;

	if (o && isfinite(o->resolution) && o->resolution > 0) {
		f->resolution = o->resolution;
		f->resolution_given = true;
		f->resolution_basis = RESOLUTION_GIVEN;
	} else {
		f->resolution = stats_resolution(y, n, s->quantum);
		resolution_when_flat(s, y, n, f);
	}

	f->decimal_units = is_decimal_quantum(f->resolution);
	/* Issue 28: the slope of concern follows the pool that grows; a
	 * GPU's when one grew more than host memory (analysis_pools.c). */
	pools_find(s, o, lo, hi, f);
	f->concern_bph = pools_concern_bph(f, f->concern_source,
					   sizeof(f->concern_source),
					   &f->concern_limit);
	if (isnan(f->concern_bph))
		f->concern_bph = analysis_concern_bph(s, o, f->fp_last,
						      f->fp_max,
						      f->decimal_units,
						      f->concern_source,
						      sizeof(f->concern_source),
						      &f->concern_limit);

	/* Each incarnation's warm-up (issue 27: found, not assumed). The
	 * slope, the cycles and the steps are read after the analysed
	 * incarnation's (from the upper end of its interval), when at least
	 * MIN_AFTER_WARMUP points are left; the plateau looks at all of it
	 * (a rise and a level held is a plateau, warm-up or not). */
	warmups_find(s, o, f);
	/* Memory that cycles over the whole incarnation (a daily load): its
	 * first rise is a cycle's, not a start-up, and cutting it would
	 * leave fewer whole cycles. One more trend and periodic_find() over
	 * the whole incarnation when a warm-up was found (as before issue
	 * 27: the whole incarnation's slope to detrend). */
	struct trend_result whole;
	if (f->warmups[inc].source == WARMUP_FOUND && n >= MIN_TREND_POINTS &&
	    stats_trend_compute(x, y, n, &whole) == 0) {
		struct periodic_finding pf;
		periodic_find(x, y, n, whole.slope, &pf);
		if (pf.found) {
			double start = f->warmups[inc].start;
			warmup_find(NULL, NULL, 0, 0, &f->warmups[inc]);
			f->warmups[inc].start = start;
			f->warmup_ends[inc] = NAN;
		}
		periodic_finding_release(&pf);
	}
	size_t k0 = 0;
	const struct warmup_finding *wu = &f->warmups[inc];
	if (wu->source != WARMUP_NONE) {
		while (k0 < n && x[k0] < wu->end_high)
			k0++;
		if (n - k0 < MIN_AFTER_WARMUP)
			k0 = 0;
	}
	const double *wx = x + k0, *wy = y + k0;
	size_t wn = n - k0;
	f->slope_start = wn ? wx[0] : NAN;
	f->slope_span_s = wn ? wx[wn - 1] - wx[0] : 0;

	/* A long series is reduced to STATS_BUCKETS_MAX bucket medians once,
	 * here, for the trend, the plateau and the steps alike (each would
	 * otherwise take its own O(n) pass over 10^7 points). The trend is
	 * the same either way: stats_trend_compute() reduces with the same buckets
	 * (stats.h). */
	const double *sx = wx, *sy = wy;
	size_t sn = wn;
	double *bx = NULL, *by = NULL;
	if (wn > STATS_BUCKETS_MAX) {
		bx = xmalloc(STATS_BUCKETS_MAX * sizeof(double));
		by = xmalloc(STATS_BUCKETS_MAX * sizeof(double));
		sn = stats_bucket_medians(wx, wy, wn, bx, by, STATS_BUCKETS_MAX);
		sx = bx;
		sy = by;
	}
	if (wn >= MIN_TREND_POINTS && f->slope_span_s > 0 &&
	    stats_trend_compute(sx, sy, sn, &f->trend) == 0) {
		if (sn < wn) {
			f->trend.n_raw = wn;
			f->trend.bucketed = true;
		}
		f->has_trend = true;
		/* Memory that cycles (GC, daily load): the trend is the one
		 * of the cycles' floors, when there are enough of them. */
		periodic_find(wx, wy, wn, f->trend.slope, &f->periodic);
		if (f->periodic.found &&
		    f->periodic.n_floors >= PERIODIC_MIN_CYCLES) {
			struct trend_result ft;
			if (stats_trend_compute(f->periodic.floor_t,
					  f->periodic.floor_y,
					  f->periodic.n_floors, &ft) == 0) {
				f->trend = ft;
				f->trend_on_floors = true;
			}
		}
		/* Steps within the analysed incarnation only (a restart is
		 * not a step; restarts_find() reports it), and not in a cycle
		 * (each collection would be one): those after the warm-up
		 * for the trend between them; those of the whole
		 * incarnation for the report (a level reached in steps, the
		 * staircase of a service that climbs, may lie in what was
		 * read as its warm-up). */
		struct step_findings after;
		memset(&after, 0, sizeof(after));
		if (!f->periodic.found)
			steps_find(sx, sy, sn, f->resolution, &after);
		trend_between_steps(sx, sy, sn, &after, f);
		if (k0 == 0) {
			f->steps = after;
		} else {
			step_findings_release(&after);
			if (!f->periodic.found)
				steps_whole(x, y, n, f->resolution, &f->steps);
		}
		trend_set(f, &f->trend,
			  walk_sd_per_hour(s, lo, hi, f->slope_start));
		trend_advice(o, f);
	}
	/* Work: the counter's resets taken out once for the whole series
	 * (the idle windows look at every incarnation). A work series that
	 * is no counter (a gauge: counter.h) counts no work: it is set
	 * aside as if not recorded, unless --work-is-counter. */
	counter_check_run(s, &f->work, NULL);
	f->work_set_aside = f->work.recorded && !f->work.is_counter &&
			    !(o && o->work_is_counter);
	double *work = NULL;
	if (s->requests && !f->work_set_aside) {
		work = xmalloc((s->n ? s->n : 1) * sizeof(double));
		idle_work_increase(s->requests, s->n, work);
	}
	analysis_work_run(s, work, lo, hi, o, f);

	if (f->has_trend && !f->periodic.found) {
		struct analysis_limits lim = {s->cgroup_limit,
					      s->mem_total, gpu_last(s)};
		struct plateau_params pp = {
			.resolution = f->resolution,
			.concern_bph = f->concern_bph,
			.caps = o ? o->caps : NULL,
			.n_caps = o ? o->n_caps : 0,
			.limits = &lim,
		};
		if (k0 == 0)
			plateau_find(sx, sy, sn, &pp, &f->plateau);
		else   /* the whole incarnation; plateau_find() buckets */
			plateau_find(x, y, n, &pp, &f->plateau);
		if (f->plateau.candidate && work)
			plateau_check_work(s, work, lo, hi, &pp, f);
	}
	/* Each pool's slope, and the earliest to run out (a plateau does
	 * not: exhaustion only for growth that has not flattened). */
	pools_exhaustion(s, lo, hi, f);
	analysis_work_exhaustion(f);
	if (n && !f->has_trend && !f->periodic.found)
		steps_whole(x, y, n, f->resolution, &f->steps);
	free(bx);
	free(by);
	free(xbuf);
	free(ybuf);

	/* Restarts need the idle windows (a new incarnation's settled floor
	 * is its first idle window when it has one). */
	double warmup = o ? o->warmup_s : NAN;
	restarts_find_warm(s, &f->idle, warmup, f->warmups, &f->restarts);
	/* Attribution over the analysed incarnation after its start-up (a
	 * model being loaded is no growth to attribute). */
	if (s->n_gauges)  /* nothing to attribute to, no O(n) copy */
		attribution_find(s, warmup_end_index(s, work, lo, hi,
						     &f->warmups[inc]),
				 hi, &f->attribution);
	free(work);
	analysis_gpu_compute(s, lo, hi, &f->gpu);
	incarnations_summarise(s, f);
	incarnations_pool(s, f);
	verdict_decide(f);
	/* Growth found immaterial is not growth to run out by (docs/
	 * verdicts.md, "Materiality"): no exhaustion in any output, so no
	 * exhaustion series for the exporter either. */
	if (f->immaterial) {
		f->exhaustion.found = false;
		for (size_t k = 0; k < f->n_pools; k++)
			f->pools[k].exhausts = false;
	}
	/* where it grows: each allocation site by the rules above */
	sites_analyse(o, f);
}

void analysis_release(struct target_findings *f)
{
	free(f->per_inc);
	f->per_inc = NULL;
	free(f->warmup_ends);
	f->warmup_ends = NULL;
	free(f->warmups);
	f->warmups = NULL;
	idle_findings_release(&f->idle);
	free(f->pools);
	f->pools = NULL;
	f->n_pools = 0;
	restart_findings_release(&f->restarts);
	step_findings_release(&f->steps);
	periodic_finding_release(&f->periodic);
	attribution_finding_release(&f->attribution);
	reason_list_release(&f->reasons);
	sites_finding_release(&f->sites);
}

const char *analysis_resolution_basis_text(const struct target_findings *f)
{
	switch (f->resolution_basis) {
	case RESOLUTION_GIVEN: return "--resolution";
	case RESOLUTION_STEPS: return "inferred from the readings' steps";
	case RESOLUTION_SOURCE: return "the source's unit; the readings "
				       "never changed";
	case RESOLUTION_SHARED: return "inferred from what the readings "
				       "share; they never changed";
	case RESOLUTION_UNKNOWN: return "unknown: the readings never "
					"changed; give --resolution";
	}
	return "inferred from the readings";
}
