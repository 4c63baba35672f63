/*
 * periodic.c - cycles in a memory series and their floors (periodic.h).
 *
 * Contracts: no I/O; inputs read-only; the floors are the only memory
 * kept (periodic_finding_release). Bounds: O(n) over the raw points, plus
 * O(m^2 / 2) with m <= PERIODIC_POINTS for the autocorrelation.
 */
#include "periodic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"

void periodic_finding_release(struct periodic_finding *p)
{
	free(p->floor_t);
	free(p->floor_y);
	p->floor_t = p->floor_y = NULL;
	p->n_floors = 0;
}

/* Autocorrelation of the detrended bucket medians and its best peak after
 * the first dip; 0 when there is none. *r_peak gets its value. */
static double acf_peak_lag(const double *bx, const double *by, size_t m,
			   double slope, double *r_peak)
{
	double *e = xmalloc(m * sizeof(double));
	double mean = 0;
	for (size_t i = 0; i < m; i++) {
		e[i] = by[i] - slope * (bx[i] - bx[0]);
		mean += e[i];
	}
	mean /= (double)m;
	double c0 = 0;
	for (size_t i = 0; i < m; i++) {
		e[i] -= mean;
		c0 += e[i] * e[i];
	}
	size_t max_lag = m / 2;
	double *r = xcalloc(max_lag + 2, sizeof(double));
	size_t k_end = max_lag + 1 < m - 1 ? max_lag + 1 : m - 1; /* last lag */
	size_t lk = 1;
	/* four lags at a time, in the lanes of two SSE2 vectors: each lane
	 * adds its lag's terms in the order the plain loop below does
	 * (element-wise IEEE operations), the chains of additions overlap */
	typedef double acf_vec __attribute__((vector_size(2 * sizeof(double))));
	for (; c0 > 0 && lk + 3 <= k_end; lk += 4) {
		acf_vec c01 = {0, 0}, c23 = {0, 0};
		size_t common = m - lk - 3; /* terms every lane has */
		for (size_t i = 0; i < common; i++) {
			acf_vec a = {e[i], e[i]};
			acf_vec b01 = {e[i + lk], e[i + lk + 1]};
			acf_vec b23 = {e[i + lk + 2], e[i + lk + 3]};
			c01 += a * b01;
			c23 += a * b23;
		}
		double ck[4] = {c01[0], c01[1], c23[0], c23[1]};
		/* lane j's last 3 - j terms */
		for (size_t j = 0; j < 3; j++)
			for (size_t i = common; i + lk + j < m; i++)
				ck[j] += e[i] * e[i + lk + j];
		for (size_t j = 0; j < 4; j++)
			r[lk + j] = ck[j] / c0;
	}
	for (; lk <= max_lag + 1 && lk < m && c0 > 0; lk++) {
		double ck = 0;
		for (size_t i = 0; i + lk < m; i++)
			ck += e[i] * e[i + lk];
		r[lk] = ck / c0;
	}
	free(e);
	*r_peak = 0;
	if (!(c0 > 0)) {
		free(r);
		return 0;
	}
	/* the first dip below -PERIODIC_DIP */
	size_t k = 1;
	while (k <= max_lag && r[k] > -PERIODIC_DIP)
		k++;
	double best = -1;
	size_t best_k = 0;
	for (; k <= max_lag; k++)
		if (r[k] > best && r[k] >= r[k - 1] &&
		    (k + 1 >= max_lag + 2 || r[k] >= r[k + 1])) {
			best = r[k];
			best_k = k;
		}
	double lag = 0;
	if (best_k && best >= PERIODIC_PEAK) {
		lag = (double)best_k;
		if (best_k + 1 <= max_lag + 1 && best_k >= 1) {
			/* parabola through the peak and its neighbours */
			double a = r[best_k - 1], b = r[best_k], c = r[best_k + 1];
			double den = a - 2 * b + c;
			if (den < 0) {
				double off = 0.5 * (a - c) / den;
				if (fabs(off) < 1)
					lag += off;
			}
		}
		*r_peak = best;
	}
	free(r);
	return lag;
}

/* Floors of the cycles [bound[k], bound[k+1]) of t: the lowest reading
 * of each and its time, and the median swing. */
static void floors_take(const double *t, const double *y, size_t n,
			double slope, const double *bound, size_t n_cycles,
			struct periodic_finding *out)
{
	out->floor_t = xmalloc((n_cycles ? n_cycles : 1) * sizeof(double));
	out->floor_y = xmalloc((n_cycles ? n_cycles : 1) * sizeof(double));
	double *amp = xmalloc(2 * (n_cycles ? n_cycles : 1) * sizeof(double));
	double *fall = amp + (n_cycles ? n_cycles : 1);
	size_t i = 0, nf = 0;
	while (i < n && n_cycles && t[i] < bound[0])
		i++;
	for (size_t k = 0; k < n_cycles; k++) {
		double lo = INFINITY, hi = -INFINITY, lo_t = NAN, down = 0;
		double dlo = INFINITY, dhi = -INFINITY;
		for (; i < n && t[i] < bound[k + 1]; i++) {
			if (y[i] < lo) {
				lo = y[i];
				lo_t = t[i];
			}
			hi = fmax(hi, y[i]);
			down = fmax(down, hi - y[i]); /* fall from a peak */
			double d = y[i] - slope * (t[i] - t[0]);
			dlo = fmin(dlo, d);
			dhi = fmax(dhi, d);
		}
		if (isfinite(lo)) {
			out->floor_t[nf] = lo_t;
			out->floor_y[nf] = lo;
			amp[nf] = dhi - dlo; /* the swing around the trend */
			fall[nf] = down;
			nf++;
		}
	}
	out->n_floors = nf;
	out->amplitude = nf ? stats_median_inplace(amp, nf) : NAN;
	out->fall = nf ? stats_median_inplace(fall, nf) : NAN;
	free(amp);
}

/* A cycle comes back down: in the typical cycle memory falls from a peak
 * by at least half its swing. A staircase (a leak that grows in chunks)
 * has a periodic pattern around its line too, but never gives back. */
static bool cycles_return(const struct periodic_finding *p)
{
	return p->n_floors > 0 && p->fall >= 0.5 * p->amplitude &&
	       p->fall > 0;
}

/* A collector's drops: differences between neighbours far below the
 * typical one (Bonferroni over all of them, as steps.c), at least
 * PERIODIC_MIN_CYCLES + 1 of them, each at least a third of the median
 * drop, at gaps that vary by less than half their median. Such cycles
 * need not have one period (a collection runs when the heap fills), which
 * the autocorrelation would blur. Writes the cycle bounds (drop times)
 * to *bounds (owned by the caller); returns their number, 0 when none. */
static size_t drops_find(const double *t, const double *y, size_t n,
			 double **bounds)
{
	*bounds = NULL;
	if (n < 24)
		return 0;
	double *d = xmalloc((n - 1) * sizeof(double));
	for (size_t i = 0; i + 1 < n; i++)
		d[i] = y[i + 1] - y[i];
	double *tmp = xmalloc((n - 1) * sizeof(double));
	memcpy(tmp, d, (n - 1) * sizeof(double));
	double med = stats_median_inplace(tmp, n - 1);
	for (size_t i = 0; i + 1 < n; i++)
		tmp[i] = fabs(d[i] - med);
	double sd = 1.4826 * stats_median_inplace(tmp, n - 1);
	double z = -stats_norm_ppf(0.01 / (double)(n - 1));
	size_t nd = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if (d[i] - med < -z * sd && d[i] < 0)
			tmp[nd++] = (double)i;
	size_t ok = 0;
	if (nd >= PERIODIC_MIN_CYCLES + 1 && sd > 0) {
		double *size = xmalloc(nd * sizeof(double));
		double *gap = xmalloc(nd * sizeof(double));
		for (size_t k = 0; k < nd; k++)
			size[k] = -d[(size_t)tmp[k]];
		double med_size = stats_median_inplace(size, nd);
		bool alike = true;
		for (size_t k = 0; k < nd; k++)
			alike = alike && -d[(size_t)tmp[k]] >= med_size / 3;
		for (size_t k = 0; k + 1 < nd; k++)
			gap[k] = t[(size_t)tmp[k + 1] + 1] - t[(size_t)tmp[k] + 1];
		memcpy(size, gap, (nd - 1) * sizeof(double));
		double med_gap = stats_median_inplace(size, nd - 1);
		for (size_t k = 0; k + 1 < nd; k++)
			alike = alike && fabs(gap[k] - med_gap) <= 0.5 * med_gap;
		if (alike && med > 0) {
			*bounds = xmalloc(nd * sizeof(double));
			for (size_t k = 0; k < nd; k++)
				(*bounds)[k] = t[(size_t)tmp[k] + 1];
			ok = nd;
		}
		free(size);
		free(gap);
	}
	free(tmp);
	free(d);
	return ok;
}

void periodic_find(const double *t, const double *y, size_t n, double slope,
		   struct periodic_finding *out)
{
	memset(out, 0, sizeof(*out));
	if (n < 24 || !isfinite(slope) || !(t[n - 1] > t[0]))
		return;
	size_t mcap = n < PERIODIC_POINTS ? n : PERIODIC_POINTS;
	double *bx = xmalloc(mcap * sizeof(double));
	double *by = xmalloc(mcap * sizeof(double));
	size_t m = stats_bucket_medians(t, y, n, bx, by, mcap);
	double r_peak;
	double lag = acf_peak_lag(bx, by, m, slope, &r_peak);
	double step = (bx[m - 1] - bx[0]) / (double)(m - 1);
	free(bx);
	free(by);
	double span = t[n - 1] - t[0];
	if (lag > 0) {
		double period = lag * step;
		out->found = true;
		out->period_s = period;
		out->cycles = span / period;
		out->acf_peak = r_peak;
		/* floors of the whole period-long windows from the start */
		size_t k_max = (size_t)floor(out->cycles);
		double *bound = xmalloc((k_max + 1) * sizeof(double));
		for (size_t k = 0; k <= k_max; k++)
			bound[k] = t[0] + (double)k * period;
		floors_take(t, y, n, slope, bound, k_max, out);
		free(bound);
		if (cycles_return(out))
			return;
		periodic_finding_release(out);
		memset(out, 0, sizeof(*out));
	}
	/* drops on at most PERIODIC_DROP_POINTS bucket medians: a 10^7
	 * series would cost two copies of itself and two selections */
	double *bound;
	size_t nb;
	if (n > PERIODIC_DROP_POINTS) {
		double *dx = xmalloc(2 * PERIODIC_DROP_POINTS * sizeof(double));
		double *dy = dx + PERIODIC_DROP_POINTS;
		size_t md = stats_bucket_medians(t, y, n, dx, dy,
						 PERIODIC_DROP_POINTS);
		nb = drops_find(dx, dy, md, &bound);
		free(dx);
	} else {
		nb = drops_find(t, y, n, &bound);
	}
	if (!nb)
		return;
	out->found = true;
	out->period_s = (bound[nb - 1] - bound[0]) / (double)(nb - 1);
	out->cycles = span / out->period_s;
	out->acf_peak = NAN;
	/* the whole cycles: from one drop to the next */
	floors_take(t, y, n, slope, bound, nb - 1, out);
	free(bound);
}
