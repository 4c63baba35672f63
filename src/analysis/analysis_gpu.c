/*
 * analysis_gpu.c - device-local GPU memory as a component of the
 * footprint (analysis_gpu_compute, analysis.h).
 *
 * The footprint already holds the GPU memory (the recorder adds it); this
 * says how much of it, and of its growth, sits on the device, with the
 * GPU component's own slope. That is the question of the first field
 * report: 229.5 G of a 230.7 G footprint was GPU memory, and the host heap
 * everyone looked at was 13 MiB.
 *
 * No I/O. Work: one pass over the analysed incarnation plus one
 * stats_trend_compute (which buckets a long series itself); one copy of the
 * points that have a GPU figure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "common.h"

#define GPU_MIN_TREND_POINTS 3

void analysis_gpu_compute(const struct series *s, size_t lo, size_t hi,
			  struct gpu_finding *out)
{
	memset(out, 0, sizeof(*out));
	out->first = out->last = out->max = out->share_last = NAN;
	out->growth = out->footprint_growth = NAN;
	out->slope = SLOPE_NONE;
	const double *g = s->comp[COMP_GPU];
	if (!g)
		return;
	out->recorded = true;
	double *x = xmalloc((hi > lo ? hi - lo : 1) * sizeof(double));
	double *y = xmalloc((hi > lo ? hi - lo : 1) * sizeof(double));
	size_t m = 0;
	double fp_first = NAN, fp_last = NAN;
	for (size_t i = lo; i < hi; i++) {
		if (isnan(g[i]) || isnan(s->footprint[i]))
			continue;
		if (!m) {
			out->first = out->max = g[i];
			fp_first = s->footprint[i];
		}
		out->last = g[i];
		out->max = fmax(out->max, g[i]);
		fp_last = s->footprint[i];
		x[m] = s->t[i];
		y[m] = g[i];
		m++;
	}
	out->samples = m;
	if (m) {
		out->growth = out->last - out->first;
		out->footprint_growth = fp_last - fp_first;
		out->share_last = fp_last > 0 ? out->last / fp_last : NAN;
	}
	struct trend_result tr;
	if (m >= GPU_MIN_TREND_POINTS && x[m - 1] > x[0] &&
	    stats_trend_compute(x, y, m, &tr) == 0) {
		out->has_trend = true;
		out->significant = stats_trend_per_hour(&tr, &out->slope.estimate,
						  &out->slope.low,
						  &out->slope.high,
						  &out->slope.p);
	}
	free(x);
	free(y);
}
