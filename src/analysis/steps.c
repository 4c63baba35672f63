/*
 * steps.c - step changes of one incarnation's footprint (definition,
 * method and contract in steps.h).
 *
 * What it does: drops missing points, buckets, and at each time scale
 * segments the bucket medians into lines by binary segmentation, keeps the
 * boundaries where the two neighbouring lines are apart (a jump, not a
 * kink), places each step on the raw points, and merges the scales. What
 * it does not do: look across incarnations, judge what a step means (a
 * session that kept its memory, a cache tier filling up), or any I/O.
 *
 * Numerics: segment sums are taken about the segment's own mean time and
 * level, so a 200 GiB footprint with 50 MiB of noise, or Unix-second
 * times, lose no precision to cancellation.
 */
#include "steps.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"

/* First point of bucket b when n points go into nb buckets, as
 * stats_bucket_medians() cuts them. */
static size_t bucket_start(size_t b, size_t n, size_t nb)
{
	if (n <= nb)
		return b;
	return b * (n / nb) + b * (n % nb) / nb;
}

/* Robust noise of y (steps.h, 2). scratch holds m doubles. */
static double noise_sigma(const double *y, size_t m, double *scratch)
{
	if (m < 3)
		return 0;
	size_t k = m - 1;
	for (size_t i = 0; i < k; i++)
		scratch[i] = y[i + 1] - y[i];
	/* (what follows is blind to the order of -0 and +0: fabs) */
	stats_sort_doubles(scratch, k);
	double med = k % 2 ? scratch[k / 2] :
			     (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
	double mean_abs = 0;
	for (size_t i = 0; i < k; i++) {
		scratch[i] = fabs(scratch[i] - med);
		mean_abs += scratch[i];
	}
	mean_abs /= (double)k;
	double mad = stats_median_inplace(scratch, k);
	if (mad > 0)
		return 1.4826 * mad / sqrt(2.0);
	return 1.2533 * mean_abs / sqrt(2.0);
}

/* Least-squares line through points [a, b) of (x, y), about its means. */
struct line {
	double xm, ym;     /* means */
	double slope;      /* 0 when all x are equal */
	double sxx;        /* sum of (x - xm)^2 */
	double sse;        /* residual sum of squares */
	size_t n;
};

static void fit_line(const double *x, const double *y, size_t a, size_t b,
		     struct line *l)
{
	size_t n = b - a;
	double xm = 0, ym = 0;
	for (size_t i = a; i < b; i++) {
		xm += x[i];
		ym += y[i];
	}
	xm /= (double)n;
	ym /= (double)n;
	double sxx = 0, sxy = 0, syy = 0;
	for (size_t i = a; i < b; i++) {
		double dx = x[i] - xm, dy = y[i] - ym;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	l->xm = xm;
	l->ym = ym;
	l->n = n;
	l->sxx = sxx;
	l->slope = sxx > 0 ? sxy / sxx : 0;
	l->sse = sxx > 0 ? fmax(syy - sxy * sxy / sxx, 0) : syy;
}

static double line_at(const struct line *l, double x)
{
	return l->ym + l->slope * (x - l->xm);
}

/* Variance factor of the fitted line's value at x (times sigma^2). */
static double line_var(const struct line *l, double x)
{
	double v = 1.0 / (double)l->n;
	if (l->sxx > 0)
		v += (x - l->xm) * (x - l->xm) / l->sxx;
	return v;
}

/* Running sums about a fixed centre, for the residual sum of squares of a
 * line fitted to the points added so far. */
struct sums {
	double n, sx, sxx, sy, sxy, syy;
};

static double sums_sse(const struct sums *s)
{
	if (s->n < 1)
		return 0;
	double cxx = s->sxx - s->sx * s->sx / s->n;
	double cxy = s->sxy - s->sx * s->sy / s->n;
	double cyy = s->syy - s->sy * s->sy / s->n;
	double sse = cxx > 0 ? cyy - cxy * cxy / cxx : cyy;
	return sse > 0 ? sse : 0;
}

/* sums_sse() of two sets of sums at once, in the two lanes of a vector
 * (element-wise IEEE operations: each lane's arithmetic is that of
 * sums_sse() on its own; the divisions, which bound best_split(), go two
 * at a time). */
typedef double sse_vec __attribute__((vector_size(2 * sizeof(double))));

static void sums_sse2(const struct sums *l, const struct sums *r,
		      double *sse_l, double *sse_r)
{
	sse_vec n = {l->n, r->n}, sx = {l->sx, r->sx}, sxx = {l->sxx, r->sxx};
	sse_vec sy = {l->sy, r->sy}, sxy = {l->sxy, r->sxy};
	sse_vec syy = {l->syy, r->syy};
	sse_vec cxx = sxx - sx * sx / n;
	sse_vec cxy = sxy - sx * sy / n;
	sse_vec cyy = syy - sy * sy / n;
	sse_vec q = cxy * cxy / cxx;
	double out[2];
	for (int k = 0; k < 2; k++) {
		if (n[k] < 1) {
			out[k] = 0;
			continue;
		}
		double sse = cxx[k] > 0 ? cyy[k] - q[k] : cyy[k];
		out[k] = sse > 0 ? sse : 0;
	}
	*sse_l = out[0];
	*sse_r = out[1];
}

struct segment {
	size_t a, b;       /* points [a, b) */
	size_t split;      /* best split point; 0 when none possible */
	double gain;       /* SSE(one line) - SSE(two lines) at split */
};

/* The best split of [a, b) into two lines, each >= STEPS_MIN_SEG points:
 * O(b - a). */
static void best_split(const double *x, const double *y, struct segment *g)
{
	size_t a = g->a, b = g->b, n = b - a;
	g->split = 0;
	g->gain = -INFINITY;
	if (n < 2 * STEPS_MIN_SEG)
		return;
	double xc = (x[a] + x[b - 1]) / 2, yc = 0;
	for (size_t i = a; i < b; i++)
		yc += y[i];
	yc /= (double)n;
	struct sums tot = {0}, left = {0};
	for (size_t i = a; i < b; i++) {
		double dx = x[i] - xc, dy = y[i] - yc;
		tot.n += 1;
		tot.sx += dx;
		tot.sxx += dx * dx;
		tot.sy += dy;
		tot.sxy += dx * dy;
		tot.syy += dy * dy;
	}
	double sse_all = sums_sse(&tot);
	for (size_t k = a; k + STEPS_MIN_SEG <= b; k++) {
		double dx = x[k] - xc, dy = y[k] - yc;
		if (k - a >= STEPS_MIN_SEG) {
			struct sums right = {
				tot.n - left.n, tot.sx - left.sx,
				tot.sxx - left.sxx, tot.sy - left.sy,
				tot.sxy - left.sxy, tot.syy - left.syy,
			};
			double sse_l, sse_r;
			sums_sse2(&left, &right, &sse_l, &sse_r);
			double gain = sse_all - sse_l - sse_r;
			if (gain > g->gain) {
				g->gain = gain;
				g->split = k;
			}
		}
		left.n += 1;
		left.sx += dx;
		left.sxx += dx * dx;
		left.sy += dy;
		left.sxy += dx * dy;
		left.syy += dy * dy;
	}
}

/* Binary segmentation of (x, y) (m points): fills starts[] with the first
 * point of each segment in order and returns the number of segments. */
static size_t segment_lines(const double *x, const double *y, size_t m,
			    double penalty, size_t *starts)
{
	struct segment segs[STEPS_MAX_SEGMENTS];
	size_t ns = 1;
	segs[0] = (struct segment){.a = 0, .b = m};
	best_split(x, y, &segs[0]);
	while (ns < STEPS_MAX_SEGMENTS) {
		size_t best = 0;
		for (size_t i = 1; i < ns; i++)
			if (segs[i].gain > segs[best].gain)
				best = i;
		if (!segs[best].split || !(segs[best].gain > penalty))
			break;
		struct segment *g = &segs[best];
		segs[ns] = (struct segment){.a = g->split, .b = g->b};
		g->b = g->split;
		best_split(x, y, g);
		best_split(x, y, &segs[ns]);
		ns++;
	}
	/* In order of position. */
	for (size_t i = 0; i < ns; i++)
		starts[i] = segs[i].a;
	for (size_t i = 1; i < ns; i++)
		for (size_t j = i; j > 0 && starts[j - 1] > starts[j]; j--) {
			size_t tmp = starts[j];
			starts[j] = starts[j - 1];
			starts[j - 1] = tmp;
		}
	return ns;
}

/* The point in (w0, w1) that best splits y[w0..w1) into two constant
 * levels: the first point of the second level. */
static size_t place_step(const double *y, size_t w0, size_t w1)
{
	if (w1 - w0 < 3)
		return w0 + 1;
	double yc = 0;
	for (size_t i = w0; i < w1; i++)
		yc += y[i];
	yc /= (double)(w1 - w0);
	double tot = 0;
	for (size_t i = w0; i < w1; i++)
		tot += y[i] - yc;
	double left = 0, best_gain = -1;
	size_t best = w0 + 1;
	double n = (double)(w1 - w0);
	for (size_t r = w0 + 1; r < w1; r++) {
		left += y[r - 1] - yc;
		double nl = (double)(r - w0), nr = n - nl;
		double ml = left / nl, mr = (tot - left) / nr;
		double gain = nl * nr / n * (ml - mr) * (ml - mr);
		if (gain > best_gain) {
			best_gain = gain;
			best = r;
		}
	}
	return best;
}

static int cmp_step_size(const void *a, const void *b)
{
	double x = fabs(((const struct step *)a)->change);
	double y = fabs(((const struct step *)b)->change);
	return (x < y) - (x > y);   /* largest first */
}

static int cmp_step_index(const void *a, const void *b)
{
	size_t x = ((const struct step *)a)->index;
	size_t y = ((const struct step *)b)->index;
	return (x > y) - (x < y);
}

struct scale {
	double *x, *y;     /* bucket medians, m of them */
	size_t *raw;       /* raw[b] = first known point of bucket b;
			      raw[m] = number of known points */
	size_t m;
};

struct cand {
	struct step s;
	bool dropped;      /* replaced by a coarser scale's step */
};

struct found {
	struct cand *v;
	size_t n, cap;
};

/* Median of y[a, b) (b > a). scratch holds b - a doubles. */
static double median_of(const double *y, size_t a, size_t b,
			double *scratch)
{
	memcpy(scratch, y + a, (b - a) * sizeof(*scratch));
	return stats_median_inplace(scratch, b - a);
}

/* Residual scale of a fitted line, at least sigma. */
static double line_scale(const struct line *l, double sigma)
{
	if (l->n <= 2)
		return sigma;
	return fmax(sigma, sqrt(l->sse / (double)(l->n - 2)));
}

/* The noise of one difference between neighbours about med_d: 1.4826
 * MAD; when most differences are equal (coarse readings: MAD 0), the mean
 * absolute deviation of all but the largest tenth, so that the steps
 * themselves do not pass for noise. scratch holds m doubles. */
static double jump_noise(const double *y, size_t m, double med_d,
			 double *scratch)
{
	size_t k = m - 1;
	for (size_t i = 0; i < k; i++)
		scratch[i] = fabs(y[i + 1] - y[i] - med_d);
	stats_sort_doubles(scratch, k);
	double mad = k % 2 ? scratch[k / 2] :
			     (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
	if (mad > 0)
		return 1.4826 * mad;
	size_t keep = k - (k / 10 > 0 ? k / 10 : 1);
	double sum = 0;
	for (size_t i = 0; i < keep; i++)
		sum += scratch[i];
	return keep ? 1.2533 * sum / (double)keep : 0;
}

/* The jump at boundary k (first point of the new level), beyond the
 * typical difference between neighbours (med_d: a steady ramp's own
 * rise): the largest there, a bucket that straddles the step splitting
 * it over two differences (then each pair is taken together, scaled to
 * one difference's noise). */
static double boundary_jump(const double *y, size_t m, size_t k,
			    double med_d)
{
	double best = fabs(y[k] - y[k - 1] - med_d);
	if (k >= 2)
		best = fmax(best, fabs(y[k] - y[k - 2] - 2 * med_d) / sqrt(2.0));
	if (k + 1 < m)
		best = fmax(best, fabs(y[k + 1] - y[k - 1] - 2 * med_d) /
				  sqrt(2.0));
	return best;
}

/* Difference of the medians of the w points from j and the w before it.
 * scratch holds w doubles. */
static double window_jump(const double *y, size_t j, size_t w,
			  double *scratch)
{
	return median_of(y, j, j + w, scratch) -
	       median_of(y, j - w, j, scratch);
}

/* Does the level after boundary k hold (steps.h, 5, the last test)? Over
 * w = STEPS_HOLD points on either side (fewer by the series' ends, not
 * under STEPS_MIN_SEG), the difference of the medians has the change's
 * sign and at least STEPS_LOCAL_FRACTION of its size: a jump that decays
 * within w points (a heavy-tailed innovation of autocorrelated noise, a
 * burst of samples) is no step. And it stands out among the same
 * differences taken at the positions around it (within STEPS_HOLD_REACH
 * windows, those whose windows leave k out): their median and 1.4826 MAD
 * give the local null, so a series whose noise changes its scale (load,
 * regimes) or its timing (gaps, bursts of samples) is judged by its own
 * movement there, not by one global noise figure. The bound is Student's
 * t at STEPS_FALSE_RATE / 2 over the windows of every scale (Bonferroni),
 * with the 0.37 n degrees of freedom of a MAD over n independent windows
 * (n: the positions / w). scratch holds m doubles. */
static bool level_holds(const double *y, size_t m, size_t k, double change,
			double *scratch)
{
	size_t w = STEPS_HOLD;
	if (w > k)
		w = k;
	if (w > m - k)
		w = m - k;
	if (w < STEPS_MIN_SEG)
		return true;   /* the earlier local test stands alone */
	double d = window_jump(y, k, w, scratch);
	if (!(d * change > 0) ||
	    !(fabs(d) >= STEPS_LOCAL_FRACTION * fabs(change)))
		return false;
	size_t reach = STEPS_HOLD_REACH * w;
	size_t lo = k > reach ? k - reach : 0;
	size_t hi = k + reach < m ? k + reach : m;
	if (lo < w)
		lo = w;
	if (hi + w > m)
		hi = m - w;
	assert(k >= w && k + w <= m);
	/* Each side's own scale, the larger judging: a step where quiet
	 * noise turns wild (idle to busy) is no step. */
	double *null = xmalloc((reach + 1) * sizeof(*null));
	double med = 0, s = 0, windows = 0;
	bool judged = false;
	for (int side = 0; side < 2; side++) {
		size_t a = side ? k + w : lo, b = side ? hi : k - w;
		size_t nn = 0;
		for (size_t j = a; j <= b && a <= b; j++)
			null[nn++] = window_jump(y, j, w, scratch);
		if (nn < STEPS_HOLD_MIN_WINDOWS * w)
			continue;
		double side_med = stats_median_inplace(null, nn);
		for (size_t i = 0; i < nn; i++)
			null[i] = fabs(null[i] - side_med);
		double side_s = 1.4826 * stats_median_inplace(null, nn);
		if (!judged || side_s > s) {
			s = side_s;
			med = side_med;
			windows = (double)nn / (double)w;
		}
		judged = true;
	}
	free(null);
	if (!judged)
		return true;
	double n_tests = 4.0 / 3.0 * (double)m / (double)w;
	double bound = s * stats_t_quantile(1 - STEPS_FALSE_RATE / 2 /
					    n_tests, fmax(0.37 * windows, 1));
	return fabs(d - med) >= bound;
}

/* Look for steps at one scale and merge them with the finer scales'
 * (steps.h, 5 and 6). kx, ky: the known points; map: their indices in
 * the caller's arrays (NULL: the same). */
static void scan_scale(const struct scale *sc, const double *kx,
		       const double *ky, const size_t *map,
		       double resolution, bool finest, struct found *f,
		       struct step_findings *out)
{
	size_t m = sc->m;
	if (m < 2 * STEPS_MIN_SEG)
		return;
	size_t n_finer = f->n;
	double *scratch = xmalloc(m * sizeof(*scratch));
	double sigma = noise_sigma(sc->y, m, scratch);
	double level = median_of(sc->y, 0, m, scratch);
	double min_change = fmax(STEPS_MIN_SIGMAS * sigma,
				 STEPS_MIN_FRACTION * fabs(level));
	if (isfinite(resolution) && resolution > 0)
		min_change = fmax(min_change, 2 * resolution);
	if (finest) {
		out->sigma = sigma;
		out->min_change = min_change;
	}
	/* The largest difference between neighbouring points that noise
	 * alone gives in STEPS_FALSE_RATE of series: Bonferroni over every
	 * difference of every scale (about 4/3 of the finest scale's m),
	 * with Student's t for a noise level that is itself estimated (a
	 * MAD has the precision of 0.37 m points). */
	for (size_t i = 0; i + 1 < m; i++)
		scratch[i] = sc->y[i + 1] - sc->y[i];
	double med_d = stats_median_inplace(scratch, m - 1);
	double sigma_d = jump_noise(sc->y, m, med_d, scratch);
	double n_tests = 4.0 / 3.0 * (double)(finest ? m : m * STEPS_SCALE_FACTOR);
	double quantile = stats_t_quantile(1 - STEPS_FALSE_RATE / 2 / n_tests,
					   0.37 * (double)(m - 1));
	double jump_min = fmax(sigma_d * quantile,
			       min_change * STEPS_LOCAL_FRACTION);
	/* A noise-free series still needs a penalty above rounding. */
	double sig_pen = fmax(sigma, 1e-6 * min_change);
	double penalty = STEPS_PENALTY * sig_pen * sig_pen * log((double)m);
	size_t starts[STEPS_MAX_SEGMENTS];
	size_t ns = min_change > 0 ?
		    segment_lines(sc->x, sc->y, m, penalty, starts) : 1;
	for (size_t i = 1; i < ns; i++) {
		size_t p = starts[i - 1], k = starts[i];
		size_t q = i + 1 < ns ? starts[i + 1] : m;
		/* The lines leave out the bucket on each side of the
		 * boundary (when 3 points remain): a bucket that straddles
		 * the step has a median anywhere between the levels. */
		struct line la, lb;
		fit_line(sc->x, sc->y, p, k - p > 3 ? k - 1 : k, &la);
		fit_line(sc->x, sc->y, q - k > 3 ? k + 1 : k, q, &lb);
		double xb = (sc->x[k - 1] + sc->x[k]) / 2;
		double before = line_at(&la, xb), after = line_at(&lb, xb);
		double change = after - before;
		double sa = line_scale(&la, sigma), sb = line_scale(&lb, sigma);
		double se = sqrt(sa * sa * line_var(&la, xb) +
				 sb * sb * line_var(&lb, xb));
		if (!(fabs(change) >= min_change) ||
		    !(fabs(change) >= STEPS_Z * se))
			continue;
		/* Abrupt beyond what the wander does: the jump between
		 * neighbouring points there is an outlier among all the
		 * scale's point-to-point differences (steps.h, 5). Under
		 * autocorrelated noise the level wanders far more than one
		 * difference, so the lines' residuals alone would take every
		 * turn of the wander for a step. */
		if (!(boundary_jump(sc->y, m, k, med_d) >= jump_min))
			continue;
		/* The points themselves must jump there, the same way. */
		size_t w = STEPS_MIN_SEG;
		double local = median_of(sc->y, k, k + w, scratch) -
			       median_of(sc->y, k - w, k, scratch);
		if (!(local * change > 0) ||
		    !(fabs(local) >= STEPS_LOCAL_FRACTION * fabs(change)))
			continue;
		/* The new level holds, beyond how the series moves over as
		 * long elsewhere near it (steps.h, 5). */
		if (!level_holds(sc->y, m, k, change, scratch))
			continue;
		/* Place it on the known points of buckets k - 1 and k. */
		size_t r = place_step(ky, sc->raw[k - 1], sc->raw[k + 1]);
		struct step st = {
			.time = kx[r], .index = map ? map[r] : r,
			.before = before, .after = after, .change = change,
			.scale = (sc->raw[m] + m - 1) / m,
		};
		/* Finer steps within two buckets of it describe the same
		 * change: they stand unless they miss most of it (a rise
		 * too gradual for their scale). */
		size_t lo = sc->raw[k >= 2 ? k - 2 : 0];
		size_t hi = sc->raw[k + 2 <= m ? k + 2 : m];
		size_t ilo = map ? map[lo] : lo;
		size_t ihi = hi < sc->raw[m] ? (map ? map[hi] : hi) : SIZE_MAX;
		double finer = 0;
		bool near = false;
		for (size_t j = 0; j < n_finer; j++) {
			const struct cand *c = &f->v[j];
			if (c->dropped || c->s.index < ilo || c->s.index >= ihi)
				continue;
			near = true;
			if (c->s.change * change > 0)
				finer += fabs(c->s.change);
		}
		if (near && !(fabs(change) > STEPS_GRADUAL_RATIO * finer))
			continue;
		for (size_t j = 0; near && j < n_finer; j++)
			if (f->v[j].s.index >= ilo && f->v[j].s.index < ihi)
				f->v[j].dropped = true;
		xgrow((void **)&f->v, &f->cap, f->n + 1, sizeof(*f->v));
		f->v[f->n++] = (struct cand){.s = st};
	}
	free(scratch);
}

void steps_find(const double *t, const double *y, size_t n,
		double resolution, struct step_findings *out)
{
	memset(out, 0, sizeof(*out));
	out->sigma = out->min_change = NAN;
	size_t nk = 0;
	for (size_t i = 0; i < n; i++)
		nk += isfinite(t[i]) && isfinite(y[i]);
	if (nk < 2 * STEPS_MIN_SEG)
		return;
	const double *kx = t, *ky = y;
	double *bx = NULL, *by = NULL;
	size_t *map = NULL;
	if (nk < n) {
		bx = xmalloc(nk * sizeof(*bx));
		by = xmalloc(nk * sizeof(*by));
		map = xmalloc(nk * sizeof(*map));
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			if (isfinite(t[i]) && isfinite(y[i])) {
				bx[k] = t[i];
				by[k] = y[i];
				map[k++] = i;
			}
		kx = bx;
		ky = by;
	}

	struct found f = {0};
	struct scale sc, prev = {0};
	bool finest = true;
	for (;;) {
		size_t m;
		if (finest)
			m = nk < STEPS_BUCKETS ? nk : STEPS_BUCKETS;
		else
			m = prev.m / STEPS_SCALE_FACTOR;
		if (!finest && m < STEPS_MIN_SCALE_POINTS)
			break;
		sc.x = xmalloc(m * sizeof(double));
		sc.y = xmalloc(m * sizeof(double));
		sc.raw = xmalloc((m + 1) * sizeof(size_t));
		if (finest) {
			sc.m = stats_bucket_medians(kx, ky, nk, sc.x, sc.y, m);
			for (size_t b = 0; b <= sc.m; b++)
				sc.raw[b] = bucket_start(b, nk, sc.m);
		} else {
			sc.m = stats_bucket_medians(prev.x, prev.y, prev.m,
						    sc.x, sc.y, m);
			for (size_t b = 0; b <= sc.m; b++)
				sc.raw[b] = prev.raw[bucket_start(b, prev.m,
								  sc.m)];
		}
		scan_scale(&sc, kx, ky, map, resolution, finest, &f, out);
		free(prev.x);
		free(prev.y);
		free(prev.raw);
		prev = sc;
		finest = false;
	}
	free(prev.x);
	free(prev.y);
	free(prev.raw);
	free(bx);
	free(by);
	free(map);

	/* The steps that stand, the largest STEPS_MAX in time order. */
	struct step *v = NULL;
	size_t nv = 0;
	if (f.n)
		v = xmalloc(f.n * sizeof(*v));
	for (size_t j = 0; j < f.n; j++)
		if (!f.v[j].dropped)
			v[nv++] = f.v[j].s;
	free(f.v);
	out->n_found = nv;
	if (nv > STEPS_MAX) {
		qsort(v, nv, sizeof(*v), cmp_step_size);
		nv = STEPS_MAX;
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp_step_index);
	if (nv == 0) {
		free(v);
		v = NULL;
	}
	out->steps = v;
	out->n = nv;
}

void step_findings_release(struct step_findings *f)
{
	free(f->steps);
	memset(f, 0, sizeof(*f));
}
