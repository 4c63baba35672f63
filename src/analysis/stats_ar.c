/*
 * stats_ar.c - mean models fitted under an Ornstein-Uhlenbeck error model
 * (stats_ar.h): the likelihood profiled over the model's coefficients and
 * maximised over a grid of correlations, for the plateau's model choice;
 * and Student's t distribution.
 *
 * What it does not do: the slope's interval (stats_lowfreq.c), bucket long
 * series (the callers do, before), or decide anything.
 *
 * Numerics. Everything runs on scaled copies: times in median steps from
 * the first point, x and y centred and divided by their spread, so sums
 * stay near 1 whatever the units (Unix seconds, bytes). The model's
 * covariance is written with the innovation variance sigma^2 as scale,
 * Sigma = sigma^2 S, S_ij = phi^|d_ij| / (1 - phi^2); its inverse square
 * root is the Prais-Winsten transform, one pass per grid value:
 *
 *   z_0 = sqrt(1 - phi^2) v_0,
 *   z_i = (v_i - rho_i v_{i-1}) / sqrt(r_i),  rho_i = phi^d_i,
 *   r_i = (1 - rho_i^2) / (1 - phi^2)   (the innovation's share of step i)
 *
 * As phi -> 1 (a random walk within the window) 1 - phi^2 -> 0 and S
 * blows up along the constant, which the intercept absorbs: every place
 * where that cancels is written so that it cancels algebraically, not in
 * floating point (expm1 for 1 - rho and r; the determinant of the
 * transformed design taken relative to 1 - phi^2).
 */
#include "stats_ar.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"

/* The grid of a = -ln(phi) per median step runs from a correlation time
 * of AR_WINDOWS_MAX windows (a = 1 / (AR_WINDOWS_MAX * steps)) to
 * AR_A_MAX (phi = 0.007), log-spaced, plus phi = 0 itself. */
#define AR_WINDOWS_MAX 10.0
#define AR_A_MAX 5.0
/* Points closer in time than this many median steps count as this far
 * apart: two readings with one time stamp (a CSV's duplicate second) are
 * two readings, not one reading twice (the model would weigh their
 * difference as a near-impossible jump). */
#define AR_MIN_STEP 0.1

/* ------------------------------------------------------------------ */
/* Student t                                                           */
/* ------------------------------------------------------------------ */

/* Continued fraction of the regularised incomplete beta (modified Lentz),
 * valid for x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double beta_inc(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) +
		     b * log1p(-x);
	double bt = exp(lbt);
	if (x < (a + 1) / (a + b + 2))
		return bt * beta_cf(a, b, x) / a;
	return 1 - bt * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double nu)
{
	if (isnan(t) || !(nu > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	if (nu > 1e7) /* the normal, to double precision */
		return 0.5 * erfc(-t / sqrt(2.0));
	if (nu > 400) {
		/* Many degrees of freedom: the normal at a corrected z,
		 * z = t (1 - 1/(4 nu)) / sqrt(1 + t^2/(2 nu)); against
		 * scipy's t.sf at nu = 401 the tail is off by 2e-5 of itself
		 * at t = 1.96 and 0.4 % at t = 5: far below what matters for
		 * a 95 % interval, and far cheaper than the fraction. */
		double z = t * (1 - 1 / (4 * nu)) / sqrt(1 + t * t / (2 * nu));
		return 0.5 * erfc(-z / sqrt(2.0));
	}
	/* P(|T| > |t|) = I_{nu/(nu+t^2)}(nu/2, 1/2); written with t^2/nu
	 * to keep the argument accurate for small t */
	double tail = beta_inc(nu / 2, 0.5, nu / (nu + t * t)) / 2;
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double nu)
{
	if (!(p > 0 && p < 1) || !(nu > 0))
		return NAN;
	if (p == 0.5)
		return 0;
	if (p < 0.5)
		return -stats_t_quantile(1 - p, nu);
	/* bisection on the monotone cdf; the quantile of p <= 1 - 1e-12 at
	 * nu >= 1 is below 3.2e11 */
	double lo = 0, hi = 1;
	while (stats_t_cdf(hi, nu) < p && hi < 1e12)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (stats_t_cdf(mid, nu) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* The median time step of n >= 2 points (the mean step when most steps
 * are ties); 0 or NAN when the points span no time. */
static double median_step(const double *t, size_t n)
{
	double *tmp = xmalloc((n - 1) * sizeof(double));
	for (size_t i = 1; i < n; i++)
		tmp[i - 1] = t[i] - t[i - 1];
	double step = stats_median_inplace(tmp, n - 1);
	free(tmp);
	if (!(step > 0))
		step = (t[n - 1] - t[0]) / (double)(n - 1);
	return step;
}

/* ------------------------------------------------------------------ */
/* Model fits                                                          */
/* ------------------------------------------------------------------ */

/* Cholesky solve of the p x p system a beta = b (a positive definite,
 * row-major, overwritten). Returns -1 when a is not. */
static int chol_solve(double *a, double *b, size_t p)
{
	for (size_t j = 0; j < p; j++) {
		double d = a[j * p + j];
		for (size_t k = 0; k < j; k++)
			d -= a[j * p + k] * a[j * p + k];
		if (!(d > 0))
			return -1;
		d = sqrt(d);
		a[j * p + j] = d;
		for (size_t i = j + 1; i < p; i++) {
			double v = a[i * p + j];
			for (size_t k = 0; k < j; k++)
				v -= a[i * p + k] * a[j * p + k];
			a[i * p + j] = v / d;
		}
	}
	for (size_t i = 0; i < p; i++) {
		double v = b[i];
		for (size_t k = 0; k < i; k++)
			v -= a[i * p + k] * b[k];
		b[i] = v / a[i * p + i];
	}
	for (size_t i = p; i-- > 0;) {
		double v = b[i];
		for (size_t k = i + 1; k < p; k++)
			v -= a[k * p + i] * b[k];
		b[i] = v / a[i * p + i];
	}
	return 0;
}

/* The transformed residuals' sum of squares of a fit, summed point by
 * point (stats_ar_fit: for near-perfect fits). */
/* The AR(1) transform's factors for a step of d intervals (clamped to
 * AR_MIN_STEP): rho = exp(-a d), the scale s = 1 / sqrt(r) and ln r,
 * r = (1 - exp(-2 a d)) / (1 - exp(-2 a)). Recomputed only when d changes
 * (a regular series computes them once); left as they are for white
 * noise (rho 0, s 1). Shared by stats_ar_fit() and the fitter, so both
 * give the same bits. */
/* y's scaling for the fits: centred, unit spread (*ym its mean, *ys its
 * largest distance from it, 1 when none). The likelihood is compared
 * across models of the same y only, so the scale is a constant; shared by
 * stats_ar_fit() and the fitter so both scale alike. */
static void y_scale(const double *y, size_t n, double *ym, double *ys)
{
	double m = 0, sp = 0;
	for (size_t i = 0; i < n; i++)
		m += y[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		sp = fmax(sp, fabs(y[i] - m));
	*ym = m;
	*ys = sp > 0 ? sp : 1;
}

static inline void ar_step(double d, double a, double em2a, bool white,
			   double *d_prev, double *rho, double *s, double *ln_r)
{
	if (d < AR_MIN_STEP)
		d = AR_MIN_STEP;
	if (d != *d_prev && !white) {
		double om = -expm1(-a * d);
		*rho = 1 - om;
		double r = expm1(-2 * a * d) / em2a;
		*s = 1 / sqrt(r);
		*ln_r = log(r);
		*d_prev = d;
	}
}

static double ar_fit_rss(const double *t, const double *const *cols,
			 size_t p, const double *y, size_t n, const double *b,
			 double ym, double ys, double step, double a,
			 double lead, double em2a)
{
	bool white = isinf(a);
	double rss = 0, d_prev = -1, rho = 0, s = 1, r_prev = 0;
	for (size_t i = 0; i < n; i++) {
		double fit = 0;
		for (size_t j = 0; j < p; j++)
			fit += b[j] * cols[j][i];
		double r = (y[i] - ym) / ys - fit;
		double z;
		if (i == 0) {
			z = lead * r;
		} else {
			double d = (t[i] - t[i - 1]) / step;
			if (d < AR_MIN_STEP)
				d = AR_MIN_STEP;
			if (d != d_prev && !white) {
				rho = exp(-a * d);
				s = 1 / sqrt(expm1(-2 * a * d) / em2a);
				d_prev = d;
			}
			z = (r - rho * r_prev) * s;
		}
		rss += z * z;
		r_prev = r;
	}
	return rss;
}

/* What one cell's fit needs besides X'X: the series (for the exact
 * second pass of ar_fit_rss) and the cell's AR parameters. */
struct cell_ctx {
	const double *t;
	const double *const *cols;
	const double *y;
	size_t n;
	double ym, ys, step, a, lead, em2a;
};

/* One cell's model from its accumulated X'X (q = p + 1 columns, y
 * last, lower triangle filled): beta = (X'X)^-1 X'y, RSS = y'y -
 * beta'X'y, the log-likelihood; out keeps the best cell so far. Shared
 * by stats_ar_fit() and the fitter, so both give the same bits. */
static void cell_fit(const double *xtx, size_t p, const struct cell_ctx *c,
		     double logdet, bool white, struct stats_ar_fit *out)
{
	size_t q = p + 1;
	double a_m[STATS_AR_MAX_COLS * STATS_AR_MAX_COLS], b[STATS_AR_MAX_COLS];
	for (size_t j = 0; j < p; j++) {
		for (size_t l = 0; l < p; l++)
			a_m[j * p + l] = l <= j ? xtx[j * q + l] :
						  xtx[l * q + j];
		b[j] = xtx[p * q + j];
	}
	if (chol_solve(a_m, b, p) != 0)
		return;
	/* y'y - beta'X'y; on a near-perfect fit that cancels to rounding,
	 * and models that differ by one reading must not tie there: then a
	 * second pass sums the residuals */
	double rss = xtx[p * q + p];
	for (size_t j = 0; j < p; j++)
		rss -= b[j] * xtx[p * q + j];
	if (!(rss > 1e-6 * xtx[p * q + p]))
		rss = ar_fit_rss(c->t, c->cols, p, c->y, c->n, b, c->ym, c->ys,
				 c->step, c->a, c->lead, c->em2a);
	/* below 1e-28 of y'y a residual is rounding, not noise */
	if (!(rss > 1e-28 * xtx[p * q + p]))
		rss = 1e-28 * xtx[p * q + p];
	if (!(rss > 0))
		return;
	double ll = -0.5 * (double)c->n * log(rss / (double)c->n) -
		    0.5 * logdet;
	if (ll > out->loglik) {
		out->loglik = ll;
		out->phi = white ? 0 : exp(-c->a);
		for (size_t j = 0; j < p; j++)
			out->beta[j] = b[j] * c->ys;
	}
}

int stats_ar_fit(const double *t, const double *const *cols, size_t p,
		 const double *y, size_t n, struct stats_ar_fit *out)
{
	memset(out, 0, sizeof(*out));
	out->loglik = -INFINITY;
	out->phi = NAN;
	if (p < 1 || p > STATS_AR_MAX_COLS || n < p + 2)
		return -1;
	double step = median_step(t, n);
	if (!(step > 0))
		return -1;
	double ym, ys;
	y_scale(y, n, &ym, &ys);
	double steps = (t[n - 1] - t[0]) / step;
	double a_min = 1 / (AR_WINDOWS_MAX * (steps > 1 ? steps : 1));
	if (a_min > AR_A_MAX / 10)
		a_min = AR_A_MAX / 10;
	double lmin = log(a_min), lmax = log(AR_A_MAX);
	size_t q = p + 1; /* columns and y */
	/* a coarser grid than the interval's: the maximum over phi moves
	 * little between neighbouring values, and model searches fit many
	 * models */
	double v_prev[STATS_AR_MAX_COLS + 1], v[STATS_AR_MAX_COLS + 1];
	for (size_t k = 0; k <= STATS_AR_FIT_GRID; k++) {
		double a = k < STATS_AR_FIT_GRID ?
			exp(lmin + (lmax - lmin) * (double)k /
				   (STATS_AR_FIT_GRID - 1)) : INFINITY;
		bool white = isinf(a);
		double one_m_phi2 = white ? 1 : -expm1(-2 * a);
		double em2a = white ? -1 : expm1(-2 * a);
		double lead = sqrt(one_m_phi2);
		double xtx[(STATS_AR_MAX_COLS + 1) * (STATS_AR_MAX_COLS + 1)];
		memset(xtx, 0, sizeof(xtx));
		for (size_t j = 0; j < p; j++)
			v_prev[j] = cols[j][0];
		v_prev[p] = (y[0] - ym) / ys;
		for (size_t j = 0; j < q; j++)
			for (size_t l = 0; l <= j; l++)
				xtx[j * q + l] += lead * lead * v_prev[j] *
						  v_prev[l];
		double logdet = -log(one_m_phi2);
		double d_prev = -1, rho = 0, s = 1, ln_r = 0;
		for (size_t i = 1; i < n; i++) {
			ar_step((t[i] - t[i - 1]) / step, a, em2a, white,
				&d_prev, &rho, &s, &ln_r);
			for (size_t j = 0; j < p; j++)
				v[j] = cols[j][i];
			v[p] = (y[i] - ym) / ys;
			double z[STATS_AR_MAX_COLS + 1];
			for (size_t j = 0; j < q; j++) {
				z[j] = (v[j] - rho * v_prev[j]) * s;
				v_prev[j] = v[j];
			}
			for (size_t j = 0; j < q; j++)
				for (size_t l = 0; l <= j; l++)
					xtx[j * q + l] += z[j] * z[l];
			logdet += ln_r;
		}
		struct cell_ctx c = {t, cols, y, n, ym, ys, step, a, lead,
				     em2a};
		cell_fit(xtx, p, &c, logdet, white, out);
	}
	return isfinite(out->loglik) ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* Many fits of one series                                             */
/* ------------------------------------------------------------------ */

/*
 * What stats_ar_fit() recomputes on every call but depends only on the
 * series, the grid value and the fixed columns is kept here: per grid
 * value the transform's rho_i and s_i, the log-determinant, each fixed
 * column's (and y's) transformed values z, and every ordered pair of them
 * as sums of z_j z_l (entries of X'X). A fit then reads those sums, and a
 * free column (one per fit) that equals a fixed one on its first K points
 * starts from the fixed one's running sum at K - 1 (the entry after each
 * point, kept for the pairs that need it, made on first use): the same
 * additions in the same order, so the same doubles (the hinge of
 * plateau.c is the time itself before its bend).
 */
struct stats_ar_fitter {
	const double *t, *y;
	size_t n, nfix;        /* columns: fixed ones, then y (id nfix) */
	const double *fix[STATS_AR_MAX_COLS];
	double *vy;            /* (y - ym) / ys */
	double ym, ys, step;
	bool ok;
	struct {
		double a, one_m_phi2, em2a, lead, logdet;
		bool white;
	} cell[STATS_AR_FIT_GRID + 1];
	double *rho, *s;       /* [cell][i] */
	double *z;             /* [cell][column][i] */
	double *fin;           /* [cell][column j][column l]: the sums */
	double *run[STATS_AR_MAX_COLS][STATS_AR_MAX_COLS];
			       /* [j][l] -> [cell][i]: the running sums,
				  NULL until a fit needs them */
};

static inline const double *fitter_col(const struct stats_ar_fitter *f,
				       size_t id)
{
	return id < f->nfix ? f->fix[id] : f->vy;
}

/* The running sums of pair (j, l) over every grid value: the entry of
 * X'X after each point, the first point entering as lead^2 v_j v_l. */
static const double *fitter_run(struct stats_ar_fitter *f, size_t j, size_t l)
{
	if (f->run[j][l])
		return f->run[j][l];
	size_t n = f->n, q = f->nfix + 1;
	double *r = xmalloc((STATS_AR_FIT_GRID + 1) * n * sizeof(double));
	const double *vj = fitter_col(f, j), *vl = fitter_col(f, l);
	for (size_t k = 0; k <= STATS_AR_FIT_GRID; k++) {
		double lead = f->cell[k].lead;
		const double *zj = f->z + (k * q + j) * n;
		const double *zl = f->z + (k * q + l) * n;
		double *rk = r + k * n;
		double acc = 0;
		acc += lead * lead * vj[0] * vl[0];
		rk[0] = acc;
		for (size_t i = 1; i < n; i++) {
			acc += zj[i] * zl[i];
			rk[i] = acc;
		}
	}
	f->run[j][l] = r;
	return r;
}


struct stats_ar_fitter *stats_ar_fitter_new(const double *t, const double *y,
					    size_t n,
					    const double *const *fixed,
					    size_t nfixed)
{
	assert(nfixed < STATS_AR_MAX_COLS);
	struct stats_ar_fitter *f = xcalloc(1, sizeof(*f));
	f->t = t;
	f->y = y;
	f->n = n;
	f->nfix = nfixed;
	for (size_t j = 0; j < nfixed; j++)
		f->fix[j] = fixed[j];
	if (n < 3)
		return f;
	/* as stats_ar_fit() */
	double step = median_step(t, n);
	if (!(step > 0))
		return f;
	y_scale(y, n, &f->ym, &f->ys);
	f->step = step;
	f->vy = xmalloc(n * sizeof(double));
	for (size_t i = 0; i < n; i++)
		f->vy[i] = (y[i] - f->ym) / f->ys;
	double steps = (t[n - 1] - t[0]) / step;
	double a_min = 1 / (AR_WINDOWS_MAX * (steps > 1 ? steps : 1));
	if (a_min > AR_A_MAX / 10)
		a_min = AR_A_MAX / 10;
	double lmin = log(a_min), lmax = log(AR_A_MAX);
	size_t nc = STATS_AR_FIT_GRID + 1, q = nfixed + 1;
	f->rho = xmalloc(nc * n * sizeof(double));
	f->s = xmalloc(nc * n * sizeof(double));
	f->z = xmalloc(nc * q * n * sizeof(double));
	f->fin = xmalloc(nc * q * q * sizeof(double));
	for (size_t k = 0; k < nc; k++) {
		double a = k < STATS_AR_FIT_GRID ?
			exp(lmin + (lmax - lmin) * (double)k /
				   (STATS_AR_FIT_GRID - 1)) : INFINITY;
		bool white = isinf(a);
		double one_m_phi2 = white ? 1 : -expm1(-2 * a);
		double em2a = white ? -1 : expm1(-2 * a);
		double lead = sqrt(one_m_phi2);
		double logdet = -log(one_m_phi2);
		double *rho_k = f->rho + k * n, *s_k = f->s + k * n;
		double d_prev = -1, rho = 0, s = 1, ln_r = 0;
		rho_k[0] = 0;
		s_k[0] = 1;
		for (size_t i = 1; i < n; i++) {
			ar_step((t[i] - t[i - 1]) / step, a, em2a, white,
				&d_prev, &rho, &s, &ln_r);
			rho_k[i] = rho;
			s_k[i] = s;
			logdet += ln_r;
		}
		f->cell[k].a = a;
		f->cell[k].white = white;
		f->cell[k].one_m_phi2 = one_m_phi2;
		f->cell[k].em2a = em2a;
		f->cell[k].lead = lead;
		f->cell[k].logdet = logdet;
		for (size_t c = 0; c < q; c++) {
			const double *v = fitter_col(f, c);
			double *z = f->z + (k * q + c) * n;
			z[0] = 0; /* unused: the first point enters as lead^2 v v */
			for (size_t i = 1; i < n; i++)
				z[i] = (v[i] - rho_k[i] * v[i - 1]) * s_k[i];
		}
		for (size_t j = 0; j < q; j++)
			for (size_t l = 0; l < q; l++) {
				/* as fitter_run() adds them */
				const double *vj = fitter_col(f, j), *vl = fitter_col(f, l);
				const double *zj = f->z + (k * q + j) * n;
				const double *zl = f->z + (k * q + l) * n;
				double acc = 0;
				acc += lead * lead * vj[0] * vl[0];
				for (size_t i = 1; i < n; i++)
					acc += zj[i] * zl[i];
				f->fin[(k * q + j) * q + l] = acc;
			}
	}
	f->ok = true;
	return f;
}

void stats_ar_fitter_free(struct stats_ar_fitter *f)
{
	if (!f)
		return;
	free(f->vy);
	free(f->rho);
	free(f->s);
	free(f->z);
	free(f->fin);
	for (size_t j = 0; j < STATS_AR_MAX_COLS; j++)
		for (size_t l = 0; l < STATS_AR_MAX_COLS; l++)
			free(f->run[j][l]);
	free(f);
}

int stats_ar_fitter_fit(struct stats_ar_fitter *f,
			const double *const *cols, size_t p,
			struct stats_ar_fit *out)
{
	size_t n = f->n;
	memset(out, 0, sizeof(*out));
	out->loglik = -INFINITY;
	out->phi = NAN;
	if (p < 1 || p > STATS_AR_MAX_COLS || n < p + 2)
		return -1;
	if (!f->ok)
		return -1;
	size_t q = p + 1, qf = f->nfix + 1;
	/* each column's id among the fitter's (the free one: FREE and the
	 * fixed column it starts as, for its first kfree points) */
	enum { FREE = STATS_AR_MAX_COLS + 1 };
	size_t id[STATS_AR_MAX_COLS + 1], nfree = 0;
	const double *vfree = NULL;
	for (size_t j = 0; j < p; j++) {
		id[j] = FREE;
		for (size_t c = 0; c < f->nfix; c++)
			if (cols[j] == f->fix[c])
				id[j] = c;
		if (id[j] == FREE) {
			nfree++;
			vfree = cols[j];
		}
	}
	id[p] = f->nfix; /* y */
	if (nfree > 1)
		return stats_ar_fit(f->t, cols, p, f->y, n, out);
	size_t base = 0, kfree = 0;
	if (nfree) {
		for (size_t c = 0; c < f->nfix; c++) {
			size_t k = 0;
			while (k < n && memcmp(&vfree[k], &f->fix[c][k],
					       sizeof(double)) == 0)
				k++;
			if (k > kfree) {
				kfree = k;
				base = c;
			}
		}
	}
	for (size_t k = 0; k <= STATS_AR_FIT_GRID; k++) {
		const double *rho = f->rho + k * n, *s = f->s + k * n;
		double lead = f->cell[k].lead;
		double xtx[(STATS_AR_MAX_COLS + 1) * (STATS_AR_MAX_COLS + 1)];
		memset(xtx, 0, sizeof(xtx));
		/* the entries with the free column: their shared start, then
		 * the rest in one loop (each sum still adds its terms in point
		 * order; the free column's transformed value z is computed
		 * once per point). other[e]: the other column's z, NULL for
		 * the free column with itself. */
		size_t ne = 0, slot[STATS_AR_MAX_COLS + 1];
		const double *other[STATS_AR_MAX_COLS + 1];
		double acc[STATS_AR_MAX_COLS + 1];
		size_t i0 = kfree >= 1 ? kfree : 1;
		for (size_t j = 0; j < q; j++)
			for (size_t l = 0; l <= j; l++) {
				bool fj = id[j] == FREE, fl = id[l] == FREE;
				size_t bj = fj ? base : id[j], bl = fl ? base : id[l];
				if (!fj && !fl) {
					xtx[j * q + l] = f->fin[(k * qf + bj) * qf + bl];
					continue;
				}
				/* fj or fl: a free column exists (nfree == 1) */
				assert(vfree != NULL);
				const double *vj = fj ? vfree : fitter_col(f, bj);
				const double *vl = fl ? vfree : fitter_col(f, bl);
				if (kfree >= 1) {
					acc[ne] = fitter_run(f, bj, bl)[k * n + kfree - 1];
				} else {
					acc[ne] = 0;
					acc[ne] += lead * lead * vj[0] * vl[0];
				}
				other[ne] = fj && fl ? NULL :
					    f->z + (k * qf + (fj ? bl : bj)) * n;
				slot[ne++] = j * q + l;
			}
		if (ne == 3 && !other[1] && other[0] && other[2]) {
			/* the usual model (constant, free column; y) */
			double a0 = acc[0], a1 = acc[1], a2 = acc[2];
			const double *o0 = other[0], *o2 = other[2];
			for (size_t i = i0; i < n; i++) {
				double z = (vfree[i] - rho[i] * vfree[i - 1]) * s[i];
				a0 += z * o0[i];
				a1 += z * z;
				a2 += z * o2[i];
			}
			acc[0] = a0;
			acc[1] = a1;
			acc[2] = a2;
		} else {
			for (size_t i = i0; ne && i < n; i++) {
				double z = (vfree[i] - rho[i] * vfree[i - 1]) * s[i];
				for (size_t e = 0; e < ne; e++)
					acc[e] += z * (other[e] ? other[e][i] : z);
			}
		}
		for (size_t e = 0; e < ne; e++)
			xtx[slot[e]] = acc[e];
		double a = f->cell[k].a;
		bool white = f->cell[k].white;
		double logdet = f->cell[k].logdet;
		struct cell_ctx c = {f->t, cols, f->y, n, f->ym, f->ys, f->step,
				     a, lead, f->cell[k].em2a};
		cell_fit(xtx, p, &c, logdet, white, out);
	}
	return isfinite(out->loglik) ? 0 : -1;
}
