/*
 * analysis_pools.c - the pools a target's footprint sits in, each with its
 * own limit, and which one runs out first (issue 28; analysis.h).
 *
 * The footprint is anon + swap + shmem + device-local GPU memory, but no
 * single limit bounds that sum: host memory runs out at the cgroup limit
 * or MemTotal, a GPU's memory at that GPU's total less what the other
 * processes hold. A service with 98 % of its footprint and all its growth
 * on a GPU was said to reach "the MemTotal (126 GiB) in 17 min" when the
 * device fills first -- on a 24 GiB GPU beside 512 GiB of RAM that answer
 * would be off 20 times. So:
 *
 *   - the host pool is the footprint less its GPU memory, against the
 *     cgroup limit, else MemTotal (--limit bounds the footprint as a
 *     whole, as it always did: then the pool is "the footprint");
 *   - each NVML device the target has memory on (series component
 *     COMP_GPU0 + d) is a pool against the device's total less what the
 *     others hold at the latest device reading (used less the target's
 *     own);
 *   - each pool gets its own slope over the slope's window, and a time to
 *     its limit when the target grows (the footprint's slope is
 *     significant and positive, as before) and the pool's own slope is;
 *     the earliest is the target's exhaustion;
 *   - the slope of concern follows the pool that grows: when a GPU grew
 *     more than the host pool over the analysed incarnation, the concern is
 *     the slope that fills that GPU's room in 30 days.
 *
 * A target without GPU figures per device has one pool, whose slope is the
 * footprint's own (f->slope): its figures are those of before issue 28.
 * DRM devices have no pool of their own: their totals are not read (their
 * memory stays in the footprint and so in no pool's figure but the whole).
 *
 * No I/O; work: one pass over the analysed incarnation per pool plus one
 * stats_trend_compute per pool that has figures (bucketed as stats.h does).
 */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common.h"

#define POOL_MIN_TREND_POINTS 3
/* A GPU's growth the concern may follow: NVML counts a process's memory
 * in whole MiB at best, so less than this is a reading's rounding. */
#define POOL_CONCERN_MIN_GROWTH (1024.0 * 1024.0)

/* The last GPU figure of the whole series (0 when none): what the host
 * limit does not bound, as analysis.c's known_limit() takes it. */
static double gpu_last_whole(const struct series *s)
{
	const double *g = s->comp[COMP_GPU];
	for (size_t i = s->n; g && i-- > 0;)
		if (isfinite(g[i]))
			return g[i];
	return 0;
}

/* The pool's figure at point i of s: NAN when it has none there. */
static double pool_value(const struct series *s, const struct pool_finding *p,
			 size_t i)
{
	if (p->kind == POOL_GPU)
		return s->comp[COMP_GPU0 + p->device][i];
	double fp = s->footprint[i];
	if (p->kind == POOL_FOOTPRINT || !s->comp[COMP_GPU] ||
	    isnan(s->comp[COMP_GPU][i]))
		return fp;
	return fp - s->comp[COMP_GPU][i];
}

static void pool_clear(struct pool_finding *p)
{
	memset(p, 0, sizeof(*p));
	p->limit_bytes = p->device_total = NAN;
	p->first = p->last = NAN;
	p->slope = SLOPE_NONE;
	p->eta_s = p->eta_low_s = p->eta_high_s = NAN;
}

static void first_last(const struct series *s, struct pool_finding *p,
		       size_t lo, size_t hi)
{
	for (size_t i = lo; i < hi; i++) {
		double v = pool_value(s, p, i);
		if (isnan(v))
			continue;
		if (isnan(p->first))
			p->first = v;
		p->last = v;
	}
}

static void host_pool(const struct series *s, const struct analysis_options *o,
		      struct pool_finding *p)
{
	pool_clear(p);
	if (o && isfinite(o->limit) && o->limit > 0) {
		p->kind = POOL_FOOTPRINT;
		snprintf(p->id, sizeof(p->id), "limit");
		snprintf(p->name, sizeof(p->name), "the footprint");
		p->limit_bytes = o->limit;
		p->limit_source = "--limit";
		return;
	}
	p->kind = POOL_HOST;
	snprintf(p->id, sizeof(p->id), "host");
	snprintf(p->name, sizeof(p->name), "host memory");
	if (isfinite(s->cgroup_limit) && s->cgroup_limit > 0) {
		p->limit_bytes = s->cgroup_limit;
		p->limit_source = "cgroup limit";
	} else if (isfinite(s->mem_total) && s->mem_total > 0) {
		p->limit_bytes = s->mem_total;
		p->limit_source = "MemTotal";
	}
}

static void gpu_pool(const struct series *s, unsigned d,
		     struct pool_finding *p)
{
	pool_clear(p);
	p->kind = POOL_GPU;
	p->device = d;
	snprintf(p->id, sizeof(p->id), "gpu%u", d);
	static const struct series_gpu_limit none = {NAN, NAN, ""};
	const struct series_gpu_limit *g = s->gpu_limits ? &s->gpu_limits[d] :
				       &none;
	p->device_total = g->total;
	char sz[32];
	if (isfinite(g->total) && g->name[0])
		snprintf(p->name, sizeof(p->name), "GPU %u (%s, %s)", d,
			 g->name, units_format_size(sz, sizeof(sz), g->total));
	else if (isfinite(g->total))
		snprintf(p->name, sizeof(p->name), "GPU %u (%s)", d,
			 units_format_size(sz, sizeof(sz), g->total));
	else
		snprintf(p->name, sizeof(p->name), "GPU %u", d);
}

void pools_find(const struct series *s, const struct analysis_options *o,
		size_t lo, size_t hi, struct target_findings *f)
{
	assert(lo <= hi && hi <= s->n);
	f->n_pools = 0;
	f->concern_pool = -1;
	size_t want = 1;
	for (unsigned d = 0; d < SERIES_GPU_DEVICES; d++)
		want += s->comp[COMP_GPU0 + d] != NULL;
	free(f->pools);
	f->pools = xcalloc(want, sizeof(*f->pools));
	struct pool_finding *h = &f->pools[f->n_pools++];
	host_pool(s, o, h);
	first_last(s, h, lo, hi);
	double best = h->last - h->first;
	for (unsigned d = 0; d < SERIES_GPU_DEVICES; d++) {
		if (!s->comp[COMP_GPU0 + d])
			continue;
		struct pool_finding *p = &f->pools[f->n_pools];
		gpu_pool(s, d, p);
		first_last(s, p, lo, hi);
		if (isnan(p->last))
			continue;  /* not on this device in the analysed one */
		f->n_pools++;
		/* Room: the device's total less what the others hold, both
		 * at its latest reading (used counts this target too). */
		const struct series_gpu_limit *g = s->gpu_limits ?
						   &s->gpu_limits[d] : NULL;
		if (g && isfinite(g->total) && isfinite(g->used) &&
		    g->total > 0) {
			p->limit_bytes = g->total - (g->used - p->last);
			p->limit_source = "GPU memory less what others hold";
		}
		double growth = p->last - p->first;
		if (isfinite(p->limit_bytes) &&
		    growth >= POOL_CONCERN_MIN_GROWTH && !(growth <= best)) {
			best = growth;
			f->concern_pool = (int)(f->n_pools - 1);
		}
	}
	assert(f->n_pools <= want && want <= ANALYSIS_POOLS_MAX);
}

const struct pool_finding *pools_exhaustion_gpu(
	const struct target_findings *f)
{
	const struct exhaustion_finding *e = &f->exhaustion;
	if (!e->found || e->pool < 0 || (size_t)e->pool >= f->n_pools ||
	    f->pools[e->pool].kind != POOL_GPU)
		return NULL;
	return &f->pools[e->pool];
}

double pools_concern_bph(const struct target_findings *f, char *source,
			 size_t source_len, double *limit_out)
{
	*limit_out = NAN;
	if (f->concern_pool < 0)
		return NAN;
	const struct pool_finding *p = &f->pools[f->concern_pool];
	/* As analysis_concern_bph for a host limit: the slope that uses the
	 * room left within 30 days; with none left, 1 % of it. */
	double headroom = p->limit_bytes - p->last;
	if (headroom < 0.01 * p->limit_bytes)
		headroom = 0.01 * p->limit_bytes;
	*limit_out = p->limit_bytes;
	snprintf(source, source_len, "fills %s in 30 days", p->name);
	return headroom / (ANALYSIS_CONCERN_HORIZON_S / 3600.0);
}

/* The pool's slope over the slope's window: points of [lo, hi) at or
 * after f->slope_start that have its figure. */
static void pool_trend(const struct series *s, size_t lo, size_t hi,
		       const struct target_findings *f,
		       struct pool_finding *p)
{
	size_t cap = hi > lo ? hi - lo : 1, m = 0;
	double *x = xmalloc(cap * sizeof(double));
	double *y = xmalloc(cap * sizeof(double));
	for (size_t i = lo; i < hi; i++) {
		double v = pool_value(s, p, i);
		if (isnan(v) || !(s->t[i] >= f->slope_start))
			continue;
		x[m] = s->t[i];
		y[m] = v;
		m++;
	}
	struct trend_result tr;
	if (m >= POOL_MIN_TREND_POINTS && x[m - 1] > x[0] &&
	    stats_trend_compute(x, y, m, &tr) == 0) {
		p->has_trend = true;
		p->significant = stats_trend_per_hour(&tr, &p->slope.estimate,
						      &p->slope.low,
						      &p->slope.high,
						      &p->slope.p);
	}
	free(x);
	free(y);
}

/* Time until the pool's limit at its slope, from `used` in it now. */
static void pool_eta(struct pool_finding *p, double used)
{
	double headroom = p->limit_bytes - used;
	p->exhausts = true;
	if (headroom <= 0) {
		p->eta_s = p->eta_low_s = p->eta_high_s = 0;
		return;
	}
	p->eta_s = headroom / p->slope.estimate * 3600;
	p->eta_low_s = p->slope.high > 0 ? headroom / p->slope.high * 3600 :
					   INFINITY;
	p->eta_high_s = p->slope.low > 0 ? headroom / p->slope.low * 3600 :
					   INFINITY;
}

void pools_exhaustion(const struct series *s, size_t lo, size_t hi,
		      struct target_findings *f)
{
	struct exhaustion_finding *e = &f->exhaustion;
	e->pool = -1;
	bool per_pool = f->n_pools > 1;
	/* A plateau does not run out, nor does a target that does not grow
	 * (the footprint's own slope decides, as before the pools). */
	bool grows = f->has_trend && !f->plateau.found && f->significant &&
		     f->slope.estimate > 0;
	for (size_t k = 0; k < f->n_pools; k++) {
		struct pool_finding *p = &f->pools[k];
		if (!per_pool) {
			/* the footprint's own figures: nothing else in it */
			p->has_trend = f->has_trend;
			p->slope = f->has_trend ? f->slope : SLOPE_NONE;
			p->significant = f->significant;
		} else {
			pool_trend(s, lo, hi, f, p);
		}
		if (!grows || !p->significant || !(p->slope.estimate > 0) ||
		    !isfinite(p->limit_bytes))
			continue;
		/* The host pool's use as the limit sees it: the target's
		 * latest footprint less its latest GPU memory (analysis.c's
		 * known_limit); a device's: the target's latest on it. */
		double used = p->kind == POOL_GPU ? p->last :
			      p->kind == POOL_HOST ?
			      f->fp_last - gpu_last_whole(s) : f->fp_last;
		pool_eta(p, used);
		if (e->pool < 0 || p->eta_s < f->pools[e->pool].eta_s)
			e->pool = (int)k;
	}
	if (e->pool < 0)
		return;
	const struct pool_finding *p = &f->pools[e->pool];
	e->found = true;
	e->limit_bytes = p->limit_bytes;
	e->limit_source = p->limit_source;
	e->eta_s = p->eta_s;
	e->eta_low_s = p->eta_low_s;
	e->eta_high_s = p->eta_high_s;
}
