/*
 * stats_lowfreq.c - the slope's interval and test from the residuals'
 * low-frequency projections under a family of noise models (contract and
 * method in stats_lowfreq.h; why in docs/statistics.md).
 *
 * What it does not do: estimate the slope (the caller's Theil-Sen is the
 * centre), find steps (the caller names them as nuisance columns), or
 * decide anything.
 *
 * Numerics. Times are taken in windows (0 at the first point, 1 at the
 * last), x and the residuals centred and divided by their largest
 * deviation, so every sum stays near 1 whatever the units. The basis is
 * made orthonormal by modified Gram-Schmidt, twice (one pass loses
 * orthogonality when a cosine is nearly a combination of the columns
 * before it; such a cosine is dropped). A model's covariance of the
 * projections is a weighted sum of one small matrix per noise component,
 * each computed once per series:
 *
 *   Ornstein-Uhlenbeck at scale s:  A' K A, K_ij = exp(-|t_i - t_j| / s),
 *       K A by one forward and one backward recursion (O(m) a column);
 *   a random walk in t (or in x):   K_ij = min(t_i, t_j); A' K A =
 *       sum_l (t_l - t_{l-1}) S_l S_l', S_l the suffix sums of A's rows
 *       (the constant part of min() is orthogonal to A, which is
 *       orthogonal to the constant);
 *   white noise:                    A' diag(1 / bucket size) A.
 *
 * Each component is scaled to a unit trace of its projections' block, so
 * a model's weights are shares of the low-frequency variance.
 */
#include "stats_lowfreq.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"
#include "stats_ar.h"
#include "stats_internal.h"

/* Residuals further than this many robust standard deviations (1.4826 x
 * MAD) from their median are pulled back to it before the projection:
 * a spike moves the Theil-Sen slope by one rank at most, and should not
 * move its spread by its square. Normal noise reaches 5 sd once in 1.7
 * million readings. Only while such readings are few: where more than
 * LF_CLIP_SHARE of them lie beyond, the MAD describes a quiet majority,
 * not the noise (a cache's fill, 28 % of a run, before a flat hold:
 * clipped, the whole fill vanished from the projections and `check`
 * passed a fill of 16 KiB per request at +-50 B/req), and nothing is
 * clipped. Batch spikes held for minutes every few hours are about 5 %
 * of the readings (at 2.5 % they were not clipped, and a 20 MiB/h leak
 * under them was "growing" in 24 % of 12 h windows instead of 99.6 %). */
#define LF_CLIP 5.0
#define LF_CLIP_SHARE 0.10
/* Normal scores (normal_scores()) while at most LF_SCORES_SHARE of the
 * residuals lie beyond LF_SCORES_FAR robust standard deviations: Gaussian
 * noise has 0.27 % there, a t with 3 degrees of freedom 4 %, a fill left
 * in the residuals far more. Set before any measurement, not tuned. */
#define LF_SCORES_FAR 3.0
#define LF_SCORES_SHARE 0.05
#define LF_SCORES_KURT 1.5
/* Ornstein-Uhlenbeck scales, in windows: from LF_SCALE_MIN_SPACINGS
 * bucket spacings (anything faster is white noise at the buckets) up to
 * LF_SCALE_MAX windows (beyond that the random walk component), a factor
 * of two apart. */
#define LF_SCALE_MIN_SPACINGS 2.0
#define LF_SCALE_MAX 8.0
#define LF_SCALES_MAX 24
/* components: white, random walk in t, random walk in x, the scales */
enum { COMP_WHITE, COMP_WALK, COMP_WORK, COMP_OU };
#define LF_COMPONENTS (COMP_OU + LF_SCALES_MAX)
#define LF_COLS (LF_BASIS_MAX + 1)
/* Prior mass of each family of noise models, shared evenly among its
 * members: white noise; one time scale (an Ornstein-Uhlenbeck process or
 * the random walk); one time scale beside white noise; power laws. The
 * mixtures of a slow scale with white noise get less: with q projections
 * a small share of slow wander hides behind white noise, every one of
 * them fits white data as well as white noise does, and at full mass
 * their number alone (4 shares x 14 scales) widened intervals on
 * independent readings by half (tuned on the tuned group only:
 * docs/statistics.md). */
static const double lf_family_mass[4] = {1, 1, 0.3, 1};
/* Noise whose spread changes in time (issue 26): the innovations of an
 * AR(2) fit to the bucket means are cut into LF_HET_BLOCKS runs, and
 * where Brown-Forsythe's F over them exceeds LF_HET_F_CRIT -- its 0.999
 * quantile with 15 and 238 degrees of freedom, scipy.stats.f.ppf(0.999,
 * 15, 238) = 2.646, the fewest points it is asked with (LF_HET_POINTS_MIN
 * bucket means, two taken by the fit); more points lower the quantile
 * (2.544 at 1,022), so the test is at p <= 0.001 -- the noise models
 * carry that spread (heteroskedastic_scale()). */
#define LF_HET_BLOCKS 16
#define LF_HET_POINTS_MIN 256
#define LF_HET_F_CRIT 2.646
#define LF_HET_TRIM 0.10   /* a block's scale: RMS of all but its largest
			      tenth of innovations (a spike is not a spread) */
#define LF_HET_FLOOR 0.05  /* no block's scale below this share of the
			      largest: a quiet block is not a silent one */
/* A model whose posterior weight is at least this is plausible, and its
 * own interval is held inside the reported one (the mixture's). Why: the
 * q projections start at a half cosine over the window, the slope's own
 * direction lies below it, and how the noise behaves there is what sets
 * the slope's spread. Models that fit Z alike (a random walk, an
 * Ornstein-Uhlenbeck process whose scale is a fraction of the window)
 * can disagree on it by a factor of five, and which of them Z favours is
 * chance: the average bet on the narrower ones and covered a random walk
 * in 86.2-87.8 % of 500 seeds. The interval must hold under each model the data
 * leave plausible, not only on average over them. The price is power
 * where a walk cannot be ruled out (a staircase of four steps: growing in
 * 55 % of 500 seeds instead of 100 %). 2 %, 5 %, 10 % and 20 % compared on
 * the tuned group: 5 % the largest at which its walk is covered
 * (docs/statistics.md). */
#define LF_PLAUSIBLE_WEIGHT 0.05

/* ------------------------------------------------------------------ */
/* Student t with a whole number of degrees of freedom                */
/* ------------------------------------------------------------------ */

/* The closed form for integer nu (Abramowitz & Stegun 26.7.3/26.7.4): with
 * theta = atan(t / sqrt(nu)), a finite series in cos^2 theta. O(nu), exact
 * to rounding; the mixture quantiles evaluate it thousands of times. */
static double t_cdf_int(double t, unsigned nu)
{
	if (isinf(t))
		return t > 0 ? 1 : 0;
	double th = atan(t / sqrt((double)nu));
	double s = sin(th), c2 = cos(th) * cos(th);
	double a;
	if (nu % 2 == 0) {
		double term = 1, sum = 1;
		for (unsigned k = 2; k < nu; k += 2) {
			term *= c2 * (double)(k - 1) / (double)k;
			sum += term;
		}
		a = s * sum;
	} else {
		double sum = 0;
		if (nu > 1) {
			double term = 1;
			sum = 1;
			for (unsigned k = 3; k < nu; k += 2) {
				term *= c2 * (double)(k - 1) / (double)k;
				sum += term;
			}
		}
		a = (2 / M_PI) * (th + s * cos(th) * sum);
	}
	double p = 0.5 + 0.5 * a;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

static double t_quantile_int(double p, unsigned nu)
{
	double lo = -1e3, hi = 1e3;
	for (int it = 0; it < 200 && hi - lo > 1e-12; it++) {
		double mid = (lo + hi) / 2;
		if (t_cdf_int(mid, nu) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* ------------------------------------------------------------------ */
/* The points: bucket means of time, x, clipped residuals, nuisance    */
/* ------------------------------------------------------------------ */

struct lf_points {
	size_t m;
	double *tau;    /* windows, non-decreasing */
	double *x;      /* scaled */
	double *r;      /* clipped residuals, scaled */
	double *white;  /* 1 / points in the bucket */
	double *nuis[LF_NUISANCE_MAX];
	size_t n_nuis;
};

static void points_release(struct lf_points *p)
{
	free(p->tau);
	memset(p, 0, sizeof(*p));
}

/* The robust sd of v[0..n) (1.4826 x the MAD, a Gaussian's sd) and, in
 * *median, its median; v is left as it was. */
static double robust_sd(const double *v, size_t n, double *median)
{
	assert(n > 0);
	double *tmp = xmalloc(n * sizeof(double));
	memcpy(tmp, v, n * sizeof(double));
	double med = stats_median_inplace(tmp, n);
	for (size_t i = 0; i < n; i++)
		tmp[i] = fabs(v[i] - med);
	double sd = stats_median_inplace(tmp, n) * 1.482602218505602;
	free(tmp);
	*median = med;
	return sd;
}

static double norm(const double *v, size_t m);
static double orthogonalise(const double *U, size_t k, size_t m, double *v);

/* Are the noise's steps heavy-tailed? The differences between
 * neighbouring residuals: their variance against their MAD's Gaussian
 * figure, beyond LF_SCORES_KURT. Judged on the steps, not the levels: a
 * wander's or a misfit's large excursions are slow (their steps are
 * ordinary) and ranks must not shrink them; spikes and heavy-tailed
 * innovations jump. Gaussian steps give a ratio of 1 (its sampling sd
 * about 2.5 / sqrt(n)); a t with 3 degrees of freedom 2.3. */
static bool heavy_steps(const double *e, size_t n)
{
	if (n < 3)
		return false;
	double *d = xmalloc((n - 1) * sizeof(double));
	double ss = 0, dm;
	for (size_t i = 1; i < n; i++) {
		d[i - 1] = e[i] - e[i - 1];
		ss += d[i - 1] * d[i - 1];
	}
	double mad = robust_sd(d, n - 1, &dm);
	free(d);
	return mad > 0 && ss / (double)(n - 1) > LF_SCORES_KURT * mad * mad;
}

/* The residuals' normal scores, in place: each residual (less the least-
 * squares fit of the constant and the nuisance columns, which the
 * projections leave out anyway) replaced by mad x Phi^-1((rank - 1/2) /
 * n), ties by their mid-rank, mad the robust sd of what is left. Why: the interval is that of a linear
 * contrast of the residuals, and the Theil-Sen slope it is centred on
 * is not linear -- under heavy-tailed or spiky noise it is far steadier
 * than the contrast (1.9 x the efficiency for t with 3 degrees of
 * freedom). Rank scores are what Theil-Sen's error is linear in (it is
 * Kendall's tau inverted); scaled to the noise's Gaussian core (the MAD)
 * they leave Gaussian noise as it was and take a heavy tail's share of
 * the variance out. Only while few residuals lie far out -- at most
 * LF_SCORES_SHARE beyond LF_SCORES_FAR robust sd: many far residuals are
 * a structure the mean model missed (a cache's fill before a hold), not
 * a tail, and ranks would shrink it to nothing; and only where the
 * noise's steps are heavy-tailed (heavy_steps()). Returns whether it
 * did. */
static bool normal_scores(double *res, size_t n,
			  const struct stats_lf_options *opt, size_t nn)
{
	/* the constant and the nuisance, orthonormalised (modified
	 * Gram-Schmidt), projected out of a copy */
	size_t k = 0;
	double *U = xmalloc((nn + 1) * n * sizeof(double));
	double *e = xmalloc(n * sizeof(double));
	for (size_t j = 0; j <= nn; j++) {
		double *u = U + k * n;
		for (size_t i = 0; i < n; i++)
			u[i] = j ? opt->nuisance[j - 1][i] : 1;
		double before = norm(u, n), after = orthogonalise(U, k, n, u);
		if (!(after > 1e-9 * before))
			continue;
		for (size_t i = 0; i < n; i++)
			u[i] /= after;
		k++;
	}
	memcpy(e, res, n * sizeof(double));
	orthogonalise(U, k, n, e);
	free(U);
	/* the noise's Gaussian scale: the MAD of what is left (the caller's
	 * is of residuals that may still hold the nuisance's shape) */
	double med, mad = robust_sd(e, n, &med);
	size_t far = 0;
	for (size_t i = 0; i < n; i++)
		far += fabs(e[i] - med) > LF_SCORES_FAR * mad;
	if (!(mad > 0) || (double)far > LF_SCORES_SHARE * (double)n ||
	    !heavy_steps(e, n)) {
		free(e);
		return false;
	}
	struct stats_key_idx *ki = xmalloc(2 * n * sizeof(*ki));
	for (size_t i = 0; i < n; i++) {
		ki[i].k = stats_sort_key(e[i]);
		ki[i].i = (uint32_t)i;
	}
	free(e);
	stats_radix_sort(ki, ki + n, n, 64);
	for (size_t r0 = 0; r0 < n;) {
		size_t r1 = r0;
		while (r1 + 1 < n && ki[r1 + 1].k == ki[r0].k)
			r1++;
		/* mid-rank (r0 + r1) / 2 + 1, less one half, over n */
		double z = stats_norm_ppf_coarse(((double)(r0 + r1) / 2 + 0.5) /
						 (double)n) * mad;
		for (size_t j = r0; j <= r1; j++)
			res[ki[j].i] = z;
		r0 = r1 + 1;
	}
	free(ki);
	return true;
}

static void points_build(const double *t, const double *x, const double *y,
			size_t n, double slope,
			const struct stats_lf_options *opt,
			struct lf_points *p, double *x_scale, double *r_scale,
			bool *perfect)
{
	memset(p, 0, sizeof(*p));
	size_t nn = opt ? opt->n_nuisance : 0;
	if (nn > LF_NUISANCE_MAX)
		nn = LF_NUISANCE_MAX;
	size_t m = n < LF_POINTS_MAX ? n : LF_POINTS_MAX;
	p->m = m;
	p->n_nuis = nn;
	double *buf = xmalloc((4 + nn) * m * sizeof(double));
	p->tau = buf;
	p->x = buf + m;
	p->r = buf + 2 * m;
	p->white = buf + 3 * m;
	for (size_t k = 0; k < nn; k++)
		p->nuis[k] = buf + (4 + k) * m;

	/* residuals, their median and MAD over every point */
	double *res = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		res[i] = y[i] - slope * x[i];
	double med, mad = robust_sd(res, n, &med);
	double lim = LF_CLIP * mad;
	size_t beyond = 0;
	for (size_t i = 0; i < n; i++)
		beyond += fabs(res[i] - med) > lim;
	if ((double)beyond > LF_CLIP_SHARE * (double)n)
		lim = 0;

	/* Heavy tails: the residuals' normal scores (stats_lowfreq.h) */
	if (normal_scores(res, n, opt, nn)) {
		lim = 0;  /* nothing left beyond LF_CLIP */
		med = 0;  /* the scores are centred */
	}
	double t0 = t[0], span = t[n - 1] - t[0];
	bool by_index = !(span > 0);
	double xm = 0;
	for (size_t i = 0; i < n; i++)
		xm += x[i];
	xm /= (double)n;
	double xs = 0, rs = 0, ys = 0;
	for (size_t i = 0; i < n; i++) {
		xs = fmax(xs, fabs(x[i] - xm));
		ys = fmax(ys, fabs(y[i] - y[0]));
		double d = res[i] - med;
		if (lim > 0)
			d = d > lim ? lim : d < -lim ? -lim : d;
		res[i] = d;
		rs = fmax(rs, fabs(d));
	}
	/* Residuals at the rounding level of y are a perfect fit: the
	 * caller gets a zero-width interval (stats_lowfreq.h). */
	*perfect = !(rs > 1e-12 * ys);
	if (!(rs > 0))
		rs = 1;
	*x_scale = xs;
	*r_scale = rs;
	for (size_t b = 0; b < m; b++) {
		size_t lo = b * n / m, hi = (b + 1) * n / m;
		double st = 0, sx = 0, sr = 0, sn[LF_NUISANCE_MAX] = {0};
		for (size_t i = lo; i < hi; i++) {
			st += by_index ? (double)i / (double)(n - 1)
				       : (t[i] - t0) / span;
			sx += (x[i] - xm) / xs;
			sr += res[i] / rs;
			for (size_t k = 0; k < nn; k++)
				sn[k] += opt->nuisance[k][i];
		}
		double cnt = (double)(hi - lo);
		p->tau[b] = st / cnt;
		p->x[b] = sx / cnt;
		p->r[b] = sr / cnt;
		p->white[b] = 1 / cnt;
		for (size_t k = 0; k < nn; k++)
			p->nuis[k][b] = sn[k] / cnt;
	}
	free(res);
}

/* ------------------------------------------------------------------ */
/* The basis                                                           */
/* ------------------------------------------------------------------ */

static double norm(const double *v, size_t m)
{
	double s = 0;
	for (size_t i = 0; i < m; i++)
		s += v[i] * v[i];
	return sqrt(s);
}

/* Orthogonalise v (m values) against the k unit columns of U (column j at
 * U + j * m), twice; returns the norm left. */
static double orthogonalise(const double *U, size_t k, size_t m, double *v)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < k; j++) {
			const double *u = U + j * m;
			double d = 0;
			for (size_t i = 0; i < m; i++)
				d += u[i] * v[i];
			for (size_t i = 0; i < m; i++)
				v[i] -= d * u[i];
		}
	return norm(v, m);
}

/* A (m rows of cols values, row-major): column 0 the slope's direction
 * (x orthogonal to the constant and the nuisance, unit norm; its norm
 * before that in *xnorm), columns 1..q the projections. Returns q, or 0
 * when x is not free of the other columns. */
static size_t basis_build(const struct lf_points *p, double *A, double *xnorm)
{
	size_t m = p->m, nfix = 1 + p->n_nuis;
	size_t cap = nfix + 1 + LF_BASIS_MAX;
	double *U = xmalloc(cap * m * sizeof(double));
	size_t k = 0;
	double *v = U;
	for (size_t i = 0; i < m; i++)
		v[i] = 1 / sqrt((double)m);
	k = 1;
	for (size_t j = 0; j < p->n_nuis; j++) {
		v = U + k * m;
		memcpy(v, p->nuis[j], m * sizeof(double));
		double before = norm(v, m);
		double after = orthogonalise(U, k, m, v);
		if (!(after > 1e-9 * before))
			continue; /* a step at the window's edge: no column */
		for (size_t i = 0; i < m; i++)
			v[i] /= after;
		k++;
	}
	v = U + k * m;
	memcpy(v, p->x, m * sizeof(double));
	double before = norm(v, m);
	double after = orthogonalise(U, k, m, v);
	if (!(after > 1e-9 * before)) {
		free(U);
		return 0;
	}
	for (size_t i = 0; i < m; i++)
		v[i] /= after;
	*xnorm = after;
	size_t kx = k++;
	size_t q = 0, qmax = m > k ? m - k : 0;
	if (qmax > LF_BASIS_MAX)
		qmax = LF_BASIS_MAX;
	double *c1 = xmalloc(m * sizeof(double));
	for (size_t i = 0; i < m; i++)
		c1[i] = cos(M_PI * p->tau[i]);
	double *prev = xmalloc(2 * m * sizeof(double));
	double *pm1 = prev, *pm2 = prev + m;
	for (size_t i = 0; i < m; i++) {
		pm2[i] = 1;
		pm1[i] = c1[i];
	}
	for (size_t j = 1; q < qmax && j <= 4 * LF_BASIS_MAX; j++) {
		if (j > 1)
			for (size_t i = 0; i < m; i++) {
				double c = 2 * c1[i] * pm1[i] - pm2[i];
				pm2[i] = pm1[i];
				pm1[i] = c;
			}
		v = U + k * m;
		memcpy(v, pm1, m * sizeof(double));
		before = norm(v, m);
		after = orthogonalise(U, k, m, v);
		if (!(after > 1e-6 * before))
			continue;
		for (size_t i = 0; i < m; i++)
			v[i] /= after;
		k++;
		q++;
	}
	size_t cols = q + 1;
	for (size_t i = 0; i < m; i++) {
		A[i * cols] = U[kx * m + i];
		for (size_t j = 0; j < q; j++)
			A[i * cols + 1 + j] = U[(kx + 1 + j) * m + i];
	}
	free(prev);
	free(c1);
	free(U);
	return q;
}

/* ------------------------------------------------------------------ */
/* Components                                                          */
/* ------------------------------------------------------------------ */

/* A' K A for the Ornstein-Uhlenbeck kernel at scale s (windows); f is
 * scratch of m * cols. */
static void comp_ou(const double *A, const double *tau, size_t m,
		    size_t cols, double s, double *f, double *om)
{
	memcpy(f, A, cols * sizeof(double));
	for (size_t i = 1; i < m; i++) {
		double rho = exp(-(tau[i] - tau[i - 1]) / s);
		for (size_t k = 0; k < cols; k++)
			f[i * cols + k] = A[i * cols + k] +
					  rho * f[(i - 1) * cols + k];
	}
	double g[LF_COLS];
	memset(om, 0, cols * cols * sizeof(double));
	for (size_t ii = m; ii-- > 0;) {
		double rho = ii + 1 < m ? exp(-(tau[ii + 1] - tau[ii]) / s) : 0;
		double ka[LF_COLS];
		for (size_t k = 0; k < cols; k++) {
			double a = A[ii * cols + k];
			g[k] = a + (ii + 1 < m ? rho * g[k] : 0);
			ka[k] = f[ii * cols + k] + g[k] - a;
		}
		const double *a = A + ii * cols;
		for (size_t j = 0; j < cols; j++)
			for (size_t k = j; k < cols; k++)
				om[j * cols + k] += a[j] * ka[k];
	}
}

/* A' min(v_i, v_j) A for non-decreasing v: sum_l (v_l - v_{l-1}) S_l S_l'
 * with S_l the sum of rows l..m-1 (S_0 is zero: A is orthogonal to the
 * constant). */
static void comp_walk(const double *A, const double *v, size_t m,
		      size_t cols, double *om)
{
	double S[LF_COLS] = {0};
	memset(om, 0, cols * cols * sizeof(double));
	for (size_t l = m; l-- > 1;) {
		for (size_t k = 0; k < cols; k++)
			S[k] += A[l * cols + k];
		double d = v[l] - v[l - 1];
		if (!(d > 0))
			continue;
		for (size_t j = 0; j < cols; j++)
			for (size_t k = j; k < cols; k++)
				om[j * cols + k] += d * S[j] * S[k];
	}
}

static void comp_white(const double *A, const double *w, size_t m,
		       size_t cols, double *om)
{
	memset(om, 0, cols * cols * sizeof(double));
	for (size_t i = 0; i < m; i++) {
		const double *a = A + i * cols;
		for (size_t j = 0; j < cols; j++)
			for (size_t k = j; k < cols; k++)
				om[j * cols + k] += w[i] * a[j] * a[k];
	}
}

/* Fill the lower triangle and scale to a unit trace of the projections'
 * block; false when the component leaves the projections no variance. */
static bool comp_finish(double *om, size_t cols)
{
	double tr = 0;
	for (size_t j = 1; j < cols; j++)
		tr += om[j * cols + j];
	if (!(tr > 0) || !isfinite(tr))
		return false;
	for (size_t j = 0; j < cols; j++)
		for (size_t k = j; k < cols; k++) {
			om[j * cols + k] /= tr;
			om[k * cols + j] = om[j * cols + k];
		}
	return true;
}

/* ------------------------------------------------------------------ */
/* Models                                                              */
/* ------------------------------------------------------------------ */

struct lf_model {
	double w[LF_COMPONENTS];
	double scale;       /* its longest time scale, windows (INFINITY:
			       random walk; 0: white) */
	double work;        /* share of the work's random walk */
	double prior;
	int family;         /* 0 white, 1 one scale, 2 scale + white, 3 power law */
	/* results */
	double loglik, centre, se, weight;
};

/* Evaluate one model: its covariance of (e0, Z), the scale-free
 * likelihood of Z, and the slope's error under it. */
static void model_eval(struct lf_model *md, double om[][LF_COLS * LF_COLS],
		       const bool *usable, size_t n_comp, size_t q,
		       const double *Z)
{
	size_t cols = q + 1;
	double S[LF_COLS * LF_COLS];
	memset(S, 0, cols * cols * sizeof(double));
	double tot = 0;
	for (size_t c = 0; c < n_comp; c++) {
		if (md->w[c] == 0)
			continue;
		if (!usable[c]) {
			md->loglik = -INFINITY;
			return;
		}
		tot += md->w[c];
		for (size_t i = 0; i < cols * cols; i++)
			S[i] += md->w[c] * om[c][i];
	}
	if (!(tot > 0)) {
		md->loglik = -INFINITY;
		return;
	}
	/* Cholesky of the projections' block, in place (rows 1..q) */
	double L[LF_BASIS_MAX * LF_BASIS_MAX];
	for (size_t i = 0; i < q; i++)
		for (size_t j = 0; j < q; j++)
			L[i * q + j] = S[(i + 1) * cols + (j + 1)];
	double ridge = 1e-12;
	for (size_t i = 0; i < q; i++)
		L[i * q + i] += ridge;
	double logdet = 0;
	for (size_t j = 0; j < q; j++) {
		double d = L[j * q + j];
		for (size_t k = 0; k < j; k++)
			d -= L[j * q + k] * L[j * q + k];
		if (!(d > 0)) {
			md->loglik = -INFINITY;
			return;
		}
		d = sqrt(d);
		L[j * q + j] = d;
		logdet += 2 * log(d);
		for (size_t i = j + 1; i < q; i++) {
			double s = L[i * q + j];
			for (size_t k = 0; k < j; k++)
				s -= L[i * q + k] * L[j * q + k];
			L[i * q + j] = s / d;
		}
	}
	/* forward solves: L a = Z, L b = omega_0Z */
	double a[LF_BASIS_MAX], b[LF_BASIS_MAX];
	double quad = 0, bb = 0, ab = 0;
	for (size_t i = 0; i < q; i++) {
		double sa = Z[i], sb = S[i + 1];
		for (size_t k = 0; k < i; k++) {
			sa -= L[i * q + k] * a[k];
			sb -= L[i * q + k] * b[k];
		}
		a[i] = sa / L[i * q + i];
		b[i] = sb / L[i * q + i];
		quad += a[i] * a[i];
		bb += b[i] * b[i];
		ab += a[i] * b[i];
	}
	if (!(quad > 0)) {
		md->loglik = -INFINITY;
		return;
	}
	md->loglik = -0.5 * logdet - 0.5 * (double)q * log(quad);
	/* The slope's error e0 given Z: mean ab, variance (omega_00 - bb)
	 * sigma^2, sigma^2 estimated by quad / q (t with q degrees of
	 * freedom). */
	double v = S[0] - bb;
	if (v < 0)
		v = 0;
	md->centre = ab;
	md->se = sqrt(v * quad / (double)q);
}

static double mix_cdf(const struct lf_model *md, size_t nm, unsigned nu,
		      double b)
{
	double p = 0;
	for (size_t k = 0; k < nm; k++) {
		if (!(md[k].weight > 0))
			continue;
		double d = b - md[k].centre;
		p += md[k].weight * (md[k].se > 0 ? t_cdf_int(d / md[k].se, nu)
						  : (d >= 0 ? 1.0 : 0.0));
	}
	return p;
}

static double mix_quantile(const struct lf_model *md, size_t nm,
			   unsigned nu, double p, double tq)
{
	/* the mixture's quantile lies between its models' own */
	double lo = INFINITY, hi = -INFINITY, se_max = 0;
	for (size_t k = 0; k < nm; k++) {
		if (!(md[k].weight > 0))
			continue;
		lo = fmin(lo, md[k].centre - tq * md[k].se);
		hi = fmax(hi, md[k].centre + tq * md[k].se);
		se_max = fmax(se_max, md[k].se);
	}
	lo -= 1e-9 * se_max;
	hi += 1e-9 * se_max;
	for (int it = 0; it < 100 && hi - lo > 1e-10 * se_max; it++) {
		double mid = (lo + hi) / 2;
		if (mix_cdf(md, nm, nu, mid) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* The grids of the family of noise models (stats_lowfreq.h): white noise
 * beside one scale, the power laws' exponents d, their cut-offs (windows)
 * and white noise beside them, and the work's random walk beside any. */
static const double nugget[] = {0, 0.3, 0.6, 0.9};
static const double dexp[] = {0.05, 0.15, 0.25, 0.35, 0.45};
static const double cut[] = {0.25, 1, LF_SCALE_MAX};
static const double pl_nugget[] = {0, 0.5};
static const double work_share[] = {0.25, 0.5, 0.75};
#define N_OF(a) (sizeof(a) / sizeof(*(a)))
/* models without the work's walk, at most; and with it */
#define LF_MODELS_BASE (1 + (LF_SCALES_MAX + 1) * N_OF(nugget) + \
			N_OF(dexp) * N_OF(cut) * N_OF(pl_nugget))
#define LF_MODELS_MAX (LF_MODELS_BASE * (1 + N_OF(work_share)) + 1)

/* The family of noise models over the components that exist. Returns
 * the count, at most LF_MODELS_MAX. */
static size_t models_build(struct lf_model *md, size_t cap,
			   const double *scales, size_t n_scales,
			   bool work)
{
	size_t n = 0;
#define NEW() (assert(n < cap), memset(&md[n], 0, sizeof(md[n])), &md[n++])
	struct lf_model *m = NEW();
	m->w[COMP_WHITE] = 1;
	m->scale = 0;
	m->family = 0;
	/* one scale (or the walk), with white noise beside it */
	for (size_t s = 0; s <= n_scales; s++)
		for (size_t k = 0; k < N_OF(nugget); k++) {
			m = NEW();
			size_t c = s < n_scales ? COMP_OU + s : COMP_WALK;
			m->w[c] = 1 - nugget[k];
			m->w[COMP_WHITE] = nugget[k];
			m->scale = s < n_scales ? scales[s] : INFINITY;
			m->family = nugget[k] > 0 ? 2 : 1;
		}
	/* power laws over the scales: variance per octave ~ s^(2d - 1),
	 * spectral density ~ omega^(-2d) between the cut-offs */
	for (size_t di = 0; di < N_OF(dexp); di++)
		for (size_t ci = 0; ci < N_OF(cut); ci++)
			for (size_t k = 0; k < 2; k++) {
				m = NEW();
				double tot = 0, top = 0;
				for (size_t s = 0; s < n_scales; s++)
					if (scales[s] <= cut[ci] * 1.0001) {
						m->w[COMP_OU + s] = pow(scales[s],
							2 * dexp[di] - 1);
						tot += m->w[COMP_OU + s];
						top = scales[s];
					}
				if (!(tot > 0)) {
					n--;
					continue;
				}
				for (size_t s = 0; s < n_scales; s++)
					m->w[COMP_OU + s] *= (1 - pl_nugget[k]) / tot;
				m->w[COMP_WHITE] = pl_nugget[k];
				m->scale = top;
				m->family = 3;
			}
	size_t base = n;
	size_t fam_n[4] = {0};
	for (size_t k = 0; k < base; k++)
		fam_n[md[k].family]++;
	for (size_t k = 0; k < base; k++)
		md[k].prior = lf_family_mass[md[k].family] /
			      (double)fam_n[md[k].family];
	if (work) {
		/* each of the above with a random walk in the work beside
		 * it, and that walk alone. As much prior mass for "with the
		 * work's walk" as without, split evenly over its shares
		 * (1/4, 1/2, 3/4 and alone), each share's copies weighted as
		 * their models are without it: a uniform prior per copy
		 * gave the 60 scale-beside-white-noise copies the mass the
		 * families deny them, and spread it so thin over ~330
		 * copies that no one model reached LF_PLAUSIBLE_WEIGHT --
		 * the walk's own interval was then never held (one request
		 * in 256 keeping 1 MiB: per-request coverage 88.6 %). */
		double mass = 0;
		for (size_t k = 0; k < base; k++)
			mass += md[k].prior;
		double per_share = 1.0 / (double)(N_OF(work_share) + 1);
		for (size_t j = 0; j < N_OF(work_share); j++)
			for (size_t k = 0; k < base; k++) {
				m = NEW();
				*m = md[k];
				for (size_t c = 0; c < LF_COMPONENTS; c++)
					m->w[c] *= 1 - work_share[j];
				m->w[COMP_WORK] = work_share[j];
				m->work = work_share[j];
				m->prior = md[k].prior * per_share;
			}
		m = NEW();
		m->w[COMP_WORK] = 1;
		m->work = 1;
		m->scale = 0;
		m->prior = mass * per_share;
	}
#undef NEW
	return n;
}

/* ------------------------------------------------------------------ */
/* The interval                                                        */
/* ------------------------------------------------------------------ */

/* Does the noise's spread change in time, and how? Fills sig[0..m) with
 * the noise's scale at each bucket (mean 1) and returns true when it does
 * beyond chance; else sig is all ones and false.
 *
 * Why: every model of the family is stationary. Noise whose variance
 * follows a daily load, or switches between busy and idle regimes, puts
 * unequal variance on the projections, which stationary models explain
 * only as slow wander -- intervals about twice the width the slope's
 * spread needs (hetero, regime, busy/idle: 99.6-100 % coverage). The
 * remedy keeps the estimator and the projections and corrects their
 * model: noise u_t = sig_t v_t with v from the family has the covariance
 * D K D (D = diag sig), so each component is computed on the basis rows
 * scaled by sig. Residuals divided by their local scale instead would be
 * a weighted fit's interval, which Theil-Sen is not (88-94 %, tried).
 *
 * The scale is read from the innovations of a least-squares AR(2) fit,
 * not from the residuals or their differences: a smooth process's
 * differences swing with its phase (quasi-cycles looked heteroskedastic,
 * F ~ 18, on their differences; ~ 5 on the innovations, which an AR(2)
 * at the buckets' uneven spacing still leaves) and a wander's level is
 * not a spread. The test guards the method: with a scale read from the
 * data and used without need, the models overfit it (a random walk: 93
 * -> 84 % coverage; requests that keep different amounts 94 -> 80 %),
 * so it is used only where equal spread is rejected at p <= 0.001. */
static bool heteroskedastic_scale(const double *r, size_t m, double *sig)
{
	for (size_t i = 0; i < m; i++)
		sig[i] = 1;
	if (m < LF_HET_POINTS_MIN)
		return false;
	double s11 = 0, s12 = 0, s22 = 0, s01 = 0, s02 = 0;
	for (size_t i = 2; i < m; i++) {
		s11 += r[i - 1] * r[i - 1];
		s12 += r[i - 1] * r[i - 2];
		s22 += r[i - 2] * r[i - 2];
		s01 += r[i] * r[i - 1];
		s02 += r[i] * r[i - 2];
	}
	double det = s11 * s22 - s12 * s12, a1 = 0, a2 = 0;
	if (det > 0) {
		a1 = (s01 * s22 - s02 * s12) / det;
		a2 = (s02 * s11 - s01 * s12) / det;
	}
	size_t n = m - 2;
	double *e = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		e[i] = r[i + 2] - a1 * r[i + 1] - a2 * r[i];
	double f = stats_brown_forsythe(e, n, LF_HET_BLOCKS);
	if (!(f > LF_HET_F_CRIT)) {
		free(e);
		return false;
	}
	/* each block's scale at its centre (in bucket index), interpolated */
	double scale[LF_HET_BLOCKS], centre[LF_HET_BLOCKS], top = 0;
	for (size_t k = 0; k < LF_HET_BLOCKS; k++) {
		size_t lo = k * n / LF_HET_BLOCKS;
		size_t hi = (k + 1) * n / LF_HET_BLOCKS;
		for (size_t i = lo; i < hi; i++)
			e[i] = fabs(e[i]);
		qsort(e + lo, hi - lo, sizeof(double), stats_cmp_double);
		size_t keep = (hi - lo) - (size_t)((double)(hi - lo) *
						   LF_HET_TRIM);
		double ss = 0;
		for (size_t i = lo; i < lo + keep; i++)
			ss += e[i] * e[i];
		scale[k] = keep ? sqrt(ss / (double)keep) : 0;
		centre[k] = 2 + ((double)lo + (double)hi - 1) / 2;
		top = fmax(top, scale[k]);
	}
	free(e);
	if (!(top > 0))
		return false;
	for (size_t k = 0; k < LF_HET_BLOCKS; k++)
		scale[k] = fmax(scale[k], LF_HET_FLOOR * top);
	double mean = 0;
	size_t k = 0;
	for (size_t i = 0; i < m; i++) {
		double x = (double)i, v;
		while (k + 1 < LF_HET_BLOCKS && x > centre[k + 1])
			k++;
		if (x <= centre[0])
			v = scale[0];
		else if (k + 1 >= LF_HET_BLOCKS)
			v = scale[LF_HET_BLOCKS - 1];
		else
			v = scale[k] + (x - centre[k]) /
				(centre[k + 1] - centre[k]) *
				(scale[k + 1] - scale[k]);
		sig[i] = v;
		mean += v;
	}
	mean /= (double)m;
	for (size_t i = 0; i < m; i++)
		sig[i] /= mean;
	return true;
}

static int cmp_scale(const void *a, const void *b)
{
	double x = ((const struct lf_model *)a)->scale;
	double y = ((const struct lf_model *)b)->scale;
	return (x > y) - (x < y);
}

int stats_lf_slope_interval(const double *t, const double *x,
			    const double *y, size_t n, double slope,
			    double level, const struct stats_lf_options *opt,
			    struct stats_lf_result *out)
{
	memset(out, 0, sizeof(*out));
	out->ci_low = out->ci_high = out->p_value = NAN;
	out->se_iid = out->inflation = out->corr_time = NAN;
	out->dof = out->work_share = NAN;
	if (n < 3 || !isfinite(slope) || !(level > 0 && level < 1))
		return -1;

	struct lf_points p;
	double xs, rs;
	bool perfect;
	points_build(t, x, y, n, slope, opt, &p, &xs, &rs, &perfect);
	if (!(xs > 0)) {
		points_release(&p);
		return -1;
	}
	size_t m = p.m;
	double *A = xmalloc(m * LF_COLS * sizeof(double));
	double xnorm = 0;
	size_t q = basis_build(&p, A, &xnorm);
	if (q == 0) {
		free(A);
		points_release(&p);
		return -1;
	}
	size_t cols = q + 1;
	double Z[LF_BASIS_MAX];
	double zz = 0;
	for (size_t j = 0; j < q; j++) {
		double s = 0;
		for (size_t i = 0; i < m; i++)
			s += A[i * cols + 1 + j] * p.r[i];
		Z[j] = s;
		zz += s * s;
	}
	/* the least-squares slope's standard error for independent points,
	 * over the points given (the figure the widening is measured
	 * against) */
	{
		double mx = 0, my = 0;
		for (size_t i = 0; i < n; i++) {
			mx += x[i];
			my += y[i];
		}
		mx /= (double)n;
		my /= (double)n;
		double sxx = 0, sxy = 0;
		for (size_t i = 0; i < n; i++) {
			sxx += (x[i] - mx) * (x[i] - mx);
			sxy += (x[i] - mx) * (y[i] - my);
		}
		double bo = sxy / sxx, rss = 0;
		for (size_t i = 0; i < n; i++) {
			double e = (y[i] - my) - bo * (x[i] - mx);
			rss += e * e;
		}
		out->se_iid = sqrt(rss / (double)(n - 2) / sxx);
	}
	out->dof = (double)q;
	if (perfect || !(zz > 1e-26 * (double)q)) {
		/* nothing left to be uncertain about at low frequencies: a
		 * perfect line, or readings that never change */
		free(A);
		points_release(&p);
		out->ci_low = out->ci_high = slope;
		out->p_value = slope == 0 ? 1 : 0;
		return 0;
	}

	/* the components */
	double (*omp)[LF_COLS * LF_COLS] =
		xmalloc(LF_COMPONENTS * sizeof(*omp));
	bool usable[LF_COMPONENTS] = {false};
	/* LF_SCALE_MAX halved while at least two bucket spacings, in
	 * ascending order */
	double scales[LF_SCALES_MAX];
	size_t n_scales = 0;
	double s_min = LF_SCALE_MIN_SPACINGS / (double)m;
	for (double s = LF_SCALE_MAX; s >= s_min && n_scales < LF_SCALES_MAX;
	     s /= 2)
		n_scales++;
	for (size_t k = 0; k < n_scales; k++)
		scales[k] = LF_SCALE_MAX / (double)(1u << (n_scales - 1 - k));
	/* noise whose spread changes in time: every model scaled by it
	 * (heteroskedastic_scale()): Cov(A'u) = A' D K D A, so each
	 * component is computed on A's rows scaled by sig (the white
	 * noise's bucket variances included: (DA)' W (DA)). Z was taken
	 * with A as it was. */
	double sig[LF_POINTS_MAX];
	if (!(opt && opt->spread_fixed) &&
	    heteroskedastic_scale(p.r, m, sig))
		for (size_t i = 0; i < m; i++)
			for (size_t k = 0; k < cols; k++)
				A[i * cols + k] *= sig[i];
	comp_white(A, p.white, m, cols, omp[COMP_WHITE]);
	usable[COMP_WHITE] = comp_finish(omp[COMP_WHITE], cols);
	comp_walk(A, p.tau, m, cols, omp[COMP_WALK]);
	usable[COMP_WALK] = comp_finish(omp[COMP_WALK], cols);
	bool work = opt && opt->work_walk;
	if (work) {
		comp_walk(A, p.x, m, cols, omp[COMP_WORK]);
		usable[COMP_WORK] = comp_finish(omp[COMP_WORK], cols);
	}
	double *f = xmalloc(m * cols * sizeof(double));
	for (size_t s = 0; s < n_scales; s++) {
		comp_ou(A, p.tau, m, cols, scales[s], f, omp[COMP_OU + s]);
		usable[COMP_OU + s] = comp_finish(omp[COMP_OU + s], cols);
	}
	free(f);
	free(A);

	/* the models */
	struct lf_model *md = xmalloc(LF_MODELS_MAX * sizeof(*md));
	size_t nm = models_build(md, LF_MODELS_MAX, scales, n_scales, work &&
				 usable[COMP_WORK]);
	/* Z in units where it is O(1) */
	double zscale = sqrt(zz / (double)q);
	double Zs[LF_BASIS_MAX];
	for (size_t j = 0; j < q; j++)
		Zs[j] = Z[j] / zscale;
	double best = -INFINITY;
	for (size_t k = 0; k < nm; k++) {
		model_eval(&md[k], omp, usable, COMP_OU + n_scales, q, Zs);
		best = fmax(best, md[k].loglik);
	}
	free(omp);
	double wsum = 0;
	for (size_t k = 0; k < nm; k++) {
		md[k].weight = isfinite(md[k].loglik) ?
			md[k].prior * exp(md[k].loglik - best) : 0;
		wsum += md[k].weight;
	}
	assert(wsum > 0);
	/* Centre: the given slope less the error the model expects from Z.
	 * The error is in units of Zs; zscale takes it back to the scaled
	 * residuals, where the slope's error is e0 / xnorm (residuals per
	 * x), and rs / xs to y per x. */
	double unit = zscale * rs / xs / xnorm;
	double work_share = 0;
	for (size_t k = 0; k < nm; k++) {
		md[k].weight /= wsum;
		md[k].centre = slope - md[k].centre * unit;
		md[k].se *= unit;
		work_share += md[k].weight * md[k].work;
	}
	if (work)
		out->work_share = work_share;
	unsigned nu = (unsigned)q;
	double alpha = 1 - level;
	double tq = t_quantile_int(1 - alpha / 2, nu);
	double lo = mix_quantile(md, nm, nu, alpha / 2, tq);
	double hi = mix_quantile(md, nm, nu, 1 - alpha / 2, tq);
	for (size_t k = 0; k < nm; k++)
		if (md[k].weight >= LF_PLAUSIBLE_WEIGHT) {
			lo = fmin(lo, md[k].centre - tq * md[k].se);
			hi = fmax(hi, md[k].centre + tq * md[k].se);
		}
	out->ci_low = lo;
	out->ci_high = hi;
	/* the p-value: each side's tail as a lower tail (the closed form
	 * above cancels in 1 - F far out; stats_t_cdf does not); the
	 * mixture's, or a plausible model's when larger, so that "p < 0.05"
	 * and "the interval excludes 0" stay one statement */
	double below = 0, above = 0, pv_model = 0;
	for (size_t k = 0; k < nm; k++) {
		if (!(md[k].weight > 0))
			continue;
		if (!(md[k].se > 0)) {
			below += md[k].weight * (md[k].centre <= 0);
			above += md[k].weight * (md[k].centre >= 0);
			continue;
		}
		double z = md[k].centre / md[k].se;
		double bk = stats_t_cdf(-z, (double)nu);
		double ak = stats_t_cdf(z, (double)nu);
		below += md[k].weight * bk;
		above += md[k].weight * ak;
		if (md[k].weight >= LF_PLAUSIBLE_WEIGHT)
			pv_model = fmax(pv_model, 2 * fmin(bk, ak));
	}
	double pv = fmax(2 * fmin(below, above), pv_model);
	out->p_value = pv > 1 ? 1 : pv;
	if (out->se_iid > 0) {
		double tq_iid = t_quantile_int(1 - alpha / 2,
					       (unsigned)(n - 2 < 1000 ? n - 2
								      : 1000));
		out->inflation = pow((hi - lo) / 2 / (tq_iid * out->se_iid), 2);
	}

	/* the posterior median of the longest time scale */
	qsort(md, nm, sizeof(*md), cmp_scale);
	double acc = 0, span = t[n - 1] - t[0];
	for (size_t k = 0; k < nm; k++) {
		acc += md[k].weight;
		if (acc >= 0.5) {
			out->corr_time = isinf(md[k].scale) ? INFINITY
							    : md[k].scale * span;
			break;
		}
	}
	free(md);
	points_release(&p);
	return 0;
}
