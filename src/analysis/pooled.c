/*
 * pooled.c - the random-effects meta-analysis of per-incarnation slopes
 * (Hartung-Knapp-Sidik-Jonkman on DerSimonian-Laird weights; pooled.h
 * has the formulas and their sources; the t quantile is stats_ar.h's).
 *
 * What it does: arithmetic over k estimates. What it does not do: compute
 * the per-incarnation slopes (analysis.c does, after each warm-up), judge
 * the verdict (verdict.c), or any I/O. O(k) plus one t quantile.
 */
#include "pooled.h"

#include <assert.h>
#include <math.h>

#include "stats_ar.h"

int stats_meta_hksj(const double *est, const double *se, size_t k,
		    double level, struct meta_result *out)
{
	*out = (struct meta_result){k, NAN, NAN, NAN, NAN, NAN, NAN, NAN,
				    NAN};
	if (k < 2 || !(level > 0 && level < 1))
		return -1;
	double sw = 0, sw2 = 0, swb = 0;
	for (size_t i = 0; i < k; i++) {
		if (!(se[i] > 0) || !isfinite(se[i]) || !isfinite(est[i]))
			return -1;
		double w = 1 / (se[i] * se[i]);
		sw += w;
		sw2 += w * w;
		swb += w * est[i];
	}
	double mu_fe = swb / sw, q = 0;
	for (size_t i = 0; i < k; i++) {
		double d = est[i] - mu_fe;
		q += d * d / (se[i] * se[i]);
	}
	double df = (double)(k - 1);
	double tau2 = fmax(0, (q - df) / (sw - sw2 / sw));
	double sws = 0, swsb = 0;
	for (size_t i = 0; i < k; i++) {
		double w = 1 / (se[i] * se[i] + tau2);
		sws += w;
		swsb += w * est[i];
	}
	double mu = swsb / sws, qs = 0;
	for (size_t i = 0; i < k; i++) {
		double d = est[i] - mu;
		qs += d * d / (se[i] * se[i] + tau2);
	}
	double v = fmax(1, qs / df) / sws;
	double s = sqrt(v);
	double tq = stats_t_quantile(0.5 + level / 2, df);
	out->estimate = mu;
	out->se = s;
	out->low = mu - tq * s;
	out->high = mu + tq * s;
	out->p = s > 0 ? 2 * (1 - stats_t_cdf(fabs(mu) / s, df)) : NAN;
	out->q = q;
	out->tau2 = tau2;
	out->mu_fixed = mu_fe;
	assert(out->low <= out->estimate && out->estimate <= out->high);
	return 0;
}
