/*
 * stats_ar_cells.h - the body of stats_ar.c's grid evaluation, included
 * there once per vector width (a template: AR_CELLS_G lanes of type
 * AR_CELLS_VEC, function AR_CELLS_FN with attributes AR_CELLS_ATTR).
 * Not a header for other files; no include guard on purpose.
 *
 * Each lane evaluates one grid value with exactly the arithmetic it
 * would have alone: vector extensions do element-wise IEEE operations,
 * and ISO C mode (-std=c17) forbids contracting them into fused
 * multiply-adds, whatever the instruction set.
 */

/* Grid values g[0..ng) (ng <= AR_CELLS_G): restricted
 * log-likelihood and the slope's standard error of each, on scaled data
 * (tau: times in steps; c, v: centred x and y). */
AR_CELLS_ATTR static void AR_CELLS_FN(const double *tau, const double *c,
				       const double *v, size_t n, double cc,
				       struct ar_cell *g, size_t ng)
{
	enum { G = AR_CELLS_G };
	assert(ng >= 1 && ng <= G);
	double a[G], one_m_phi2[G], em2a[G];
	bool white[G];
	AR_CELLS_VEC s11, s12, s22, s1y, s2y, syy, s11_rel, log_r, f, h, k_sum;
	/* the step's figures (white noise: om 1, rho 0, s 1, ln r 0),
	 * recomputed only when the step changes (most steps of a recording
	 * are one interval); w1 = om s and its two squared terms with them */
	AR_CELLS_VEC rho, om, sv, ln_r, w1, t11, t11r;
	for (size_t k = 0; k < G; k++) {
		/* the lanes past ng repeat the last value, and are dropped */
		const struct ar_cell *cell = &g[k < ng ? k : ng - 1];
		a[k] = cell->a;
		white[k] = isinf(a[k]);
		one_m_phi2[k] = white[k] ? 1 : -expm1(-2 * a[k]);
		double lead = sqrt(one_m_phi2[k]);
		/* sums of the transformed columns: 1, c, v */
		s11[k] = one_m_phi2[k];
		s12[k] = lead * lead * c[0];
		s22[k] = lead * lead * c[0] * c[0];
		s1y[k] = lead * lead * v[0];
		s2y[k] = lead * lead * c[0] * v[0];
		syy[k] = lead * lead * v[0] * v[0];
		s11_rel[k] = 1;  /* s11 / (1 - phi^2) */
		log_r[k] = 0;    /* sum of ln r_i */
		f[k] = h[k] = k_sum[k] = 0; /* OLS variance recursion */
		rho[k] = 0;
		om[k] = 1;
		sv[k] = 1;
		ln_r[k] = 0;
		w1[k] = om[k] * sv[k];
		t11[k] = w1[k] * w1[k];
		t11r[k] = w1[k] * w1[k] / one_m_phi2[k];
		em2a[k] = white[k] ? -1 : expm1(-2 * a[k]);
	}
	/* The figures of the last AR_STEP_CACHE distinct steps: bucket
	 * medians of a long series alternate between a few steps, each of
	 * which would otherwise cost two expm1, a sqrt and a log per lane at
	 * every point. The figures are functions of (a, d) alone, so a
	 * cached one is the very double a recomputation gives. */
	enum { AR_STEP_CACHE = 4 };
	struct {
		double d;
		AR_CELLS_VEC rho, om, sv, ln_r, w1, t11, t11r;
	} sc[AR_STEP_CACHE];
	size_t nsc = 0, sc_next = 0;
	double d_prev = -1;
	for (size_t i = 1; i < n; i++) {
		double d = tau[i] - tau[i - 1];
		if (d < AR_MIN_STEP)
			d = AR_MIN_STEP;
		if (d != d_prev) {
			size_t hit = nsc;
			for (size_t q = 0; q < nsc; q++)
				if (sc[q].d == d)
					hit = q;
			if (hit < nsc) {
				rho = sc[hit].rho;
				om = sc[hit].om;
				sv = sc[hit].sv;
				ln_r = sc[hit].ln_r;
				w1 = sc[hit].w1;
				t11 = sc[hit].t11;
				t11r = sc[hit].t11r;
			} else {
				for (size_t k = 0; k < G; k++) {
					if (white[k])
						continue;
					om[k] = -expm1(-a[k] * d);
					rho[k] = 1 - om[k];
					double r = expm1(-2 * a[k] * d) / em2a[k];
					sv[k] = 1 / sqrt(r);
					ln_r[k] = log(r);
					w1[k] = om[k] * sv[k];
					t11[k] = w1[k] * w1[k];
					t11r[k] = w1[k] * w1[k] / one_m_phi2[k];
				}
				size_t q = nsc < AR_STEP_CACHE ? nsc++ : sc_next++ % AR_STEP_CACHE;
				sc[q].d = d;
				sc[q].rho = rho;
				sc[q].om = om;
				sc[q].sv = sv;
				sc[q].ln_r = ln_r;
				sc[q].w1 = w1;
				sc[q].t11 = t11;
				sc[q].t11r = t11r;
			}
			d_prev = d;
		}
		double ci = c[i], cp = c[i - 1];
		AR_CELLS_VEC w2 = (ci - rho * cp) * sv;
		AR_CELLS_VEC z = (v[i] - rho * v[i - 1]) * sv;
		s11 += t11;
		s11_rel += t11r;
		s12 += w1 * w2;
		s22 += w2 * w2;
		s1y += w1 * z;
		s2y += w2 * z;
		syy += z * z;
		log_r += ln_r;
		/* H_i = sum_{j<i} c_j (1 - phi^(tau_i - tau_j)), F_i = sum_{j<i}
		 * c_j phi^(tau_i - tau_j): K = sum_i c_i H_i */
		AR_CELLS_VEC fc = f + cp;
		h += om * fc;
		f = rho * fc;
		k_sum += ci * h;
	}
	for (size_t k = 0; k < ng; k++) {
		struct ar_cell *cell = &g[k];
		double s22_perp = s22[k] - s12[k] * s12[k] / s11[k];
		double b2 = s2y[k] - s12[k] * s1y[k] / s11[k];
		double rss = syy[k] - s1y[k] * s1y[k] / s11[k] - b2 * b2 / s22_perp;
		if (!(rss > 0))
			rss = 0;
		double dof = (double)n - 2;
		cell->loglik = rss > 0 ?
			-0.5 * (dof * log(rss) + log(s11_rel[k]) + log(s22_perp) +
				log_r[k]) :
			-INFINITY;
		/* c' S c = -2K / (1 - phi^2) (c sums to 0); c'c for white
		 * noise */
		double csc = white[k] ? cc : -2 * k_sum[k] / one_m_phi2[k];
		if (!(csc > cc))
			csc = cc; /* never narrower than independent points */
		cell->se = sqrt(rss / dof * csc) / cc / AR_TS_EFFICIENCY_SQRT;
	}
}


#undef AR_CELLS_G
#undef AR_CELLS_VEC
#undef AR_CELLS_FN
#undef AR_CELLS_ATTR
