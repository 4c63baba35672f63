/*
 * sites.c - each allocation site's live bytes analysed as the target's
 * footprint is (sites.h, docs/sites.md).
 *
 * A site's series is made of the target's analysed incarnation: its
 * times and work counter, and at each point the site's estimate as
 * recorded (series_site_live_at: the row at or before it, 0 before the
 * first, nothing sampled there yet). analysis_run() then gives its
 * slopes, intervals and verdict by the target's own rules, and the same
 * for the live heap, the sum of every site. The sampling's own error
 * goes with each series (series.walk_var: the variance the recorder
 * read beside each estimate, summed over the sites for the heap), so
 * the slopes' intervals and tests count it as analysis_run() counts any
 * such error (docs/sites.md, "How sure"). Nothing here computes a
 * statistic.
 */
#include "sites.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common.h"

const char *site_trend_name(enum site_trend t)
{
	switch (t) {
	case SITE_GROWING: return "growing";
	case SITE_PLATEAU: return "plateau";
	case SITE_STABLE: return "stable";
	case SITE_INCONCLUSIVE: break;
	}
	return "inconclusive";
}

const char *sites_split_name(enum sites_split s)
{
	switch (s) {
	case SITES_SPLIT_LEAK: return "leak";
	case SITES_SPLIT_PARTLY: return "partly";
	case SITES_SPLIT_RETENTION: return "retention";
	case SITES_SPLIT_OUTSIDE: return "outside";
	case SITES_SPLIT_NONE: break;
	}
	return "none";
}

/* v[0..n) = site's estimate at times t[0..n) (ascending), var[0..n) its
 * sampling variance (NAN where the recording has none): one pass over
 * its rows and the points together. */
static void site_fill(const struct series_site *site, const double *t,
		      size_t n, double *v, double *var)
{
	size_t j = 0;
	double cur = 0, cur_var = 0; /* before its first row: nothing
					sampled there */
	for (size_t i = 0; i < n; i++) {
		while (j < site->n && site->t[j] <= t[i]) {
			cur_var = site->var[j];
			cur = site->live[j++];
		}
		v[i] = cur;
		var[i] = cur_var;
	}
}

/* Whether every row of site has its sampling variance (a recording of
 * an earlier memtrend has none). */
static bool site_var_known(const struct series_site *site)
{
	for (size_t j = 0; j < site->n; j++)
		if (!isfinite(site->var[j]))
			return false;
	return true;
}

/* heap[0..n) += site's estimate at times t[0..n), heap_var[0..n) its
 * variance: its rows' changes added where they start (delta[k]: at
 * point k), summed once by the caller. O(rows x log n), not O(n) per
 * site: a recording of a day at 1 s with thousands of sites stays a
 * fraction of a second. */
static void site_steps(const struct series_site *site, const double *t,
		       size_t n, double *delta, double *delta_var)
{
	double prev = 0, prev_var = 0;
	for (size_t j = 0; j < site->n; j++) {
		double d = site->live[j] - prev;
		double dv = site->var[j] - prev_var;
		prev = site->live[j];
		prev_var = site->var[j];
		if ((d == 0 || !isfinite(d)) && (dv == 0 || !isfinite(dv)))
			continue;
		/* the first point at or after the row */
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (t[mid] < site->t[j])
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n) {
			if (isfinite(d))
				delta[lo] += d;
			if (isfinite(dv))
				delta_var[lo] += dv;
		}
	}
}

/* The analysed incarnation's points [lo, hi) of s. */
static void window(const struct series *s, uint32_t inc, size_t *lo,
		   size_t *hi)
{
	*lo = *hi = 0;
	size_t i = 0;
	while (i < s->n && s->n_incs && s->inc[i] != inc)
		i++;
	*lo = i;
	while (i < s->n && (!s->n_incs || s->inc[i] == inc))
		i++;
	*hi = i;
}

/* A series of s's points [lo, hi) with v(point) as its footprint and
 * var(point) as the error it carries on (NULL: none known): the target's
 * times and work, one incarnation. */
static void derived(const struct series *s, size_t lo, size_t hi,
		    const double *v, const double *var, struct series *out)
{
	series_init(out, s->name);
	const struct incarnation *ic = s->n_incs ? &s->incs[s->inc[lo]] :
				       NULL;
	series_add_incarnation(out, ic ? ic->pid : -1,
			       ic ? ic->start_ticks : 0,
			       ic ? ic->start_time : NAN, NULL, NULL);
	series_reserve(out, hi - lo);
	for (size_t i = lo; i < hi; i++) {
		if (isnan(s->footprint[i]))
			continue;
		size_t k = series_append(out, s->t[i], v[i - lo], 0);
		if (s->requests)
			series_set_requests(out, k, s->requests[i]);
		if (var)
			series_set_walk_var(out, k, var[i - lo]);
	}
	/* the target's limits: a site that grows is judged against what
	 * the target can reach, as the target is (the slope of concern) */
	out->mem_total = s->mem_total;
	out->cgroup_limit = s->cgroup_limit;
	out->swap_total = s->swap_total;
	out->swap_free_last = s->swap_free_last;
	out->mem_available_last = s->mem_available_last;
	/* an estimate moves by a sample's weight, at least the rate: its
	 * resolution, as a page is the footprint's */
	out->quantum = s->site_stats.recorded && s->site_stats.rate >= 1 ?
		       s->site_stats.rate : 512 * 1024;
	out->quantum_exact = true;
}

static enum site_trend trend_of(enum verdict v)
{
	switch (v) {
	case VERDICT_GROWING: return SITE_GROWING;
	case VERDICT_PLATEAU: return SITE_PLATEAU;
	case VERDICT_STABLE: return SITE_STABLE;
	case VERDICT_INCONCLUSIVE: break;
	}
	return SITE_INCONCLUSIVE;
}

/* Analyse v over the window: its findings, released by the caller. */
static void analyse(const struct series *s, size_t lo, size_t hi,
		    const double *v, const double *var,
		    const struct analysis_options *o,
		    struct target_findings *g, struct series *keep)
{
	derived(s, lo, hi, v, var, keep);
	/* the target's options but its caps (a cache's known size is the
	 * target's, not a site's) */
	struct analysis_options so = *o;
	so.caps = NULL;
	so.resolution = NAN; /* --resolution is the footprint's readings' */
	so.n_caps = 0;
	so.has_suspect = false;
	analysis_run(keep, &so, g);
}

static int by_rank(const void *a, const void *b)
{
	const struct site_finding *x = a, *y = b;
	bool gx = x->trend == SITE_GROWING, gy = y->trend == SITE_GROWING;
	if (gx != gy)
		return gx ? -1 : 1;
	double kx = gx ? x->slope.estimate : x->last;
	double ky = gy ? y->slope.estimate : y->last;
	if (isnan(kx) != isnan(ky))
		return isnan(kx) ? 1 : -1;
	return kx > ky ? -1 : kx < ky ? 1 : (x->site > y->site) -
					     (x->site < y->site);
}

struct growth {
	size_t site;
	double grew;
	bool var_known;            /* site_var_known() */
};

/* The components outside the heap, in the order they are reported. */
static const struct {
	enum series_component comp;
	const char *pool;
	bool in_footprint;
} outside_pools[SITES_OUTSIDE_MAX] = {
	{COMP_SHMEM, "shmem", true},
	{COMP_GPU, "gpu", true},
	{COMP_FILE, "file", false},
};

/* x->outside: each component of s with readings over [lo, hi) analysed
 * as a site is; v: scratch of hi - lo. */
static void outside_analyse(const struct series *s, size_t lo, size_t hi,
			    const struct analysis_options *o,
			    const struct target_findings *f, double *v,
			    struct sites_finding *x)
{
	for (size_t k = 0; k < SITES_OUTSIDE_MAX; k++) {
		const double *c = s->comp[outside_pools[k].comp];
		if (!c)
			continue;
		size_t known = 0;
		for (size_t i = lo; i < hi; i++) {
			v[i - lo] = c[i];
			known += isfinite(c[i]) && isfinite(s->footprint[i]);
		}
		if (known < 2)
			continue;
		struct series keep;
		struct target_findings cf;
		analyse(s, lo, hi, v, NULL, o, &cf, &keep);
		struct site_outside *y = &x->outside[x->n_outside++];
		*y = (struct site_outside){
			.pool = outside_pools[k].pool,
			.in_footprint = outside_pools[k].in_footprint,
			.first = cf.fp_first, .last = cf.fp_last,
			.slope = cf.has_trend ? cf.slope : SLOPE_NONE,
			.significant = cf.significant,
			.trend = trend_of(cf.verdict), .share = NAN};
		if (f->has_trend && f->slope.estimate > 0 && cf.has_trend)
			y->share = y->slope.estimate / f->slope.estimate;
		analysis_release(&cf);
		series_release(&keep);
	}
}

bool site_outside_grows(const struct site_outside *y)
{
	return y->significant && y->slope.estimate > 0;
}

/* Shared memory or the GPU's growing at least half as fast as the
 * footprint: the growth the heap does not have is there. */
static bool outside_explains(const struct sites_finding *x)
{
	for (size_t k = 0; k < x->n_outside; k++) {
		const struct site_outside *y = &x->outside[k];
		if (y->in_footprint && site_outside_grows(y) &&
		    isfinite(y->share) && y->share >= 0.5)
			return true;
	}
	return false;
}

static int by_growth(const void *a, const void *b)
{
	const struct growth *x = a, *y = b;
	return x->grew > y->grew ? -1 : x->grew < y->grew ? 1 :
	       (x->site > y->site) - (x->site < y->site);
}

void sites_analyse(const struct analysis_options *o,
		   struct target_findings *f)
{
	const struct series *s = f->series;
	struct sites_finding *x = &f->sites;
	memset(x, 0, sizeof(*x));
	x->heap_slope = x->heap_per_request = SLOPE_NONE;
	x->heap_first = x->heap_last = x->heap_share = NAN;
	x->rate = x->sampled = x->dropped = NAN;
	/* recorded with --sites: sites, or the shim's figures alone when
	 * nothing was sampled (said so, not left out as if never asked) */
	if ((!s->n_sites && !s->site_stats.recorded) || !s->n)
		return;
	uint32_t inc = s->n_incs ? (uint32_t)f->analysed_inc : 0;
	size_t lo, hi;
	window(s, inc, &lo, &hi);
	if (hi - lo < 2)
		return;
	x->recorded = true;
	if (s->site_stats.recorded && s->site_stats.inc == inc) {
		x->rate = s->site_stats.rate;
		x->sampled = s->site_stats.sampled;
		x->dropped = s->site_stats.dropped_sites +
			     s->site_stats.dropped_live;
	}
	if (!s->n_sites)
		return;
	size_t n = hi - lo;
	double *v = xcalloc(4 * n, sizeof(*v));
	double *var = v + n, *heap = v + 2 * n, *heap_var = v + 3 * n;
	x->sampling_counted = true;
	struct growth *g = xcalloc(s->n_sites, sizeof(*g));
	size_t n_g = 0;
	for (size_t k = 0; k < s->n_sites; k++) {
		const struct series_site *site = &s->sites[k];
		if (site->inc != inc)
			continue;
		x->n_sites++;
		double first = series_site_live_at(site, s->t[lo]);
		double last = series_site_live_at(site, s->t[hi - 1]);
		site_steps(site, s->t + lo, n, heap, heap_var);
		bool known = site_var_known(site);
		x->sampling_counted &= known;
		g[n_g++] = (struct growth){k, last - first, known};
	}
	for (size_t i = 1; i < n; i++) {
		heap[i] += heap[i - 1];
		heap_var[i] += heap_var[i - 1];
	}
	qsort(g, n_g, sizeof(*g), by_growth);
	size_t n_an = n_g < SITES_ANALYSED ? n_g : SITES_ANALYSED;
	x->ranked = xcalloc(n_an ? n_an : 1, sizeof(*x->ranked));
	bool fp_grows = f->has_trend && f->slope.estimate > 0;
	for (size_t r = 0; r < n_an; r++) {
		const struct series_site *site = &s->sites[g[r].site];
		site_fill(site, s->t + lo, n, v, var);
		struct series keep;
		struct target_findings sf;
		analyse(s, lo, hi, v, g[r].var_known ? var : NULL, o, &sf,
			&keep);
		struct site_finding *y = &x->ranked[x->n_ranked++];
		*y = (struct site_finding){
			.site = g[r].site, .first = v[0], .last = v[n - 1],
			.trend = trend_of(sf.verdict),
			.slope = sf.has_trend ? sf.slope : SLOPE_NONE,
			.significant = sf.significant,
			.per_request = sf.per_request.found ?
				       sf.per_request.slope : SLOPE_NONE,
			.per_request_significant =
				sf.per_request.found &&
				sf.per_request.significant,
			.share = NAN, .share_low = NAN, .share_high = NAN,
		};
		if (fp_grows && sf.has_trend) {
			y->share = y->slope.estimate / f->slope.estimate;
			y->share_low = y->slope.low / f->slope.estimate;
			y->share_high = y->slope.high / f->slope.estimate;
		}
		x->n_growing += y->trend == SITE_GROWING;
		analysis_release(&sf);
		series_release(&keep);
	}
	qsort(x->ranked, x->n_ranked, sizeof(*x->ranked), by_rank);

	/* the live heap: every site's estimate summed */
	struct series keep;
	struct target_findings hf;
	analyse(s, lo, hi, heap, x->sampling_counted ? heap_var : NULL, o,
		&hf, &keep);
	x->heap_first = heap[0];
	x->heap_last = heap[n - 1];
	if (hf.has_trend) {
		x->heap_slope = hf.slope;
		x->heap_significant = hf.significant;
	}
	if (hf.per_request.found) {
		x->heap_per_request = hf.per_request.slope;
		x->heap_per_request_significant = hf.per_request.significant;
	}
	bool heap_grows = hf.verdict == VERDICT_GROWING ||
			  (hf.significant && hf.slope.estimate > 0);
	if (fp_grows)
		x->heap_share = x->heap_slope.estimate / f->slope.estimate;
	outside_analyse(s, lo, hi, o, f, v, x);
	if (f->verdict != VERDICT_GROWING && !(f->significant && fp_grows))
		x->split = SITES_SPLIT_NONE;
	else if (!heap_grows)
		x->split = outside_explains(x) ? SITES_SPLIT_OUTSIDE :
			   SITES_SPLIT_RETENTION;
	else if (isfinite(x->heap_share) && x->heap_share >= 0.5)
		x->split = SITES_SPLIT_LEAK;
	else
		x->split = SITES_SPLIT_PARTLY;
	analysis_release(&hf);
	series_release(&keep);
	free(g);
	free(v);
}

void sites_finding_release(struct sites_finding *x)
{
	free(x->ranked);
	x->ranked = NULL;
	x->n_ranked = 0;
}
