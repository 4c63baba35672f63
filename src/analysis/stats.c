/*
 * stats.c - the trend statistics behind every verdict (contract in
 * stats.h; methods, bounds and proofs in docs/statistics.md).
 *
 * What it does: Theil-Sen slope, Sen's textbook 95 % interval (exactly as
 * scipy.stats.theilslopes 1.10 computes it; reference only), the interval
 * and test verdicts use (from stats_lowfreq.c), Mann-Kendall S and its
 * tie-corrected variance, medians, order statistics, bucketing and the
 * resolution of a series. The k-th pairwise slope of longer series comes
 * from slope selection (stats_slope.c).
 *
 * What it does not do: I/O, diagnostics, or any interpretation of the
 * numbers (verdicts live in analysis.c and verdict.c). It never drops
 * points: the caller removes missing ones, and NaN or infinite input is a
 * programming error (asserted; rejected with -1 where asserts are off).
 *
 * Exactness: the slope is the median of the exact pairwise slopes (all
 * of them sorted, or slope selection), and Sen's interval indices round
 * as scipy's do; this needs IEEE double arithmetic without excess
 * precision or contracted multiply-adds (stats_internal.h).
 */
#include "stats_internal.h"

#include "stats.h"
#include "stats_lowfreq.h"

#include "common.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SQRT2 1.41421356237309504880
#define LOG_SQRT_2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */

/* ------------------------------------------------------------------ */
/* Order statistics                                                    */
/* ------------------------------------------------------------------ */

int stats_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * stats_select_kth (stats_internal.h): quickselect (Hoare/Wirth
 * partition, median-of-three pivot); when the partitions keep coming out
 * lopsided it sorts the rest, so the worst case is O(n log n) rather than
 * O(n^2).
 */
double stats_select_kth(double *v, size_t n, size_t k)
{
	assert(k < n);
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	int budget = 16;
	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (l < r) {
		if (budget-- == 0) {
			qsort(v + l, (size_t)(r - l + 1), sizeof(*v), stats_cmp_double);
			break;
		}
		double a = v[l], b = v[l + (r - l) / 2], c = v[r];
		/* median of three: an element of the range, so both scans
		 * below stop inside it */
		double piv = a < b ? (b < c ? b : (a < c ? c : a))
				   : (a < c ? a : (b < c ? c : b));
		ptrdiff_t i = l, j = r;
		do {
			while (v[i] < piv)
				i++;
			while (piv < v[j])
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		/* now v[l..j] <= piv, v[i..r] >= piv, v[j+1..i-1] == piv */
		if (j < kk)
			l = i;
		if (kk < i)
			r = j;
	}
	return v[k];
}

double stats_median_inplace(double *v, size_t n)
{
	assert(v != NULL && n >= 1);
	size_t k = n / 2;
	double hi = stats_select_kth(v, n, k);
	if (n % 2)
		return hi;
	double lo = v[0];
	for (size_t i = 1; i < k; i++)
		if (v[i] > lo)
			lo = v[i];
	/* (a + b) / 2 as numpy.median computes the mean of the middle two */
	return (lo + hi) / 2;
}

double stats_brown_forsythe(const double *v, size_t n, size_t groups)
{
	assert(v != NULL);
	if (groups < 2 || n < 2 * groups)
		return NAN;
	double *z = xmalloc(n * sizeof(*z));
	double *zbar = xmalloc(groups * sizeof(*zbar));
	double total = 0, within = 0;
	for (size_t k = 0; k < groups; k++) {
		size_t lo = k * n / groups, hi = (k + 1) * n / groups;
		memcpy(z + lo, v + lo, (hi - lo) * sizeof(*z));
		double med = stats_median_inplace(z + lo, hi - lo);
		double sum = 0;
		for (size_t i = lo; i < hi; i++) {
			z[i] = fabs(v[i] - med);
			sum += z[i];
		}
		zbar[k] = sum / (double)(hi - lo);
		total += sum;
		for (size_t i = lo; i < hi; i++)
			within += (z[i] - zbar[k]) * (z[i] - zbar[k]);
	}
	double zall = total / (double)n, between = 0;
	for (size_t k = 0; k < groups; k++) {
		size_t cnt = (k + 1) * n / groups - k * n / groups;
		between += (double)cnt * (zbar[k] - zall) * (zbar[k] - zall);
	}
	free(z);
	free(zbar);
	if (!(within > 0))
		return NAN;
	return (between / (double)(groups - 1)) /
	       (within / (double)(n - groups));
}

/* ------------------------------------------------------------------ */
/* Normal distribution                                                 */
/* ------------------------------------------------------------------ */

double stats_norm_cdf(double z)
{
	/* erfc keeps the lower tail accurate where 1 - erf would cancel */
	return 0.5 * erfc(-z / SQRT2);
}

/* Lower half (p <= 0.5) of the inverse: Acklam's rational approximation
 * (relative error < 1.2e-9), then in norm_ppf_lower() one Halley step on
 * erfc, which brings it to within a few ulps. */
static double norm_ppf_approx(double p)
{
	static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
				   -2.759285104469687e+02, 1.383577518672690e+02,
				   -3.066479806614716e+01, 2.506628277459239e+00};
	static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
				   -1.556989798598866e+02, 6.680131188771972e+01,
				   -1.328068155288572e+01};
	static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
				   -2.400758277161838e+00, -2.549732539343734e+00,
				   4.374664141464968e+00, 2.938163982698783e+00};
	static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
				   2.445134137142996e+00, 3.754408661907416e+00};
	double x;
	if (p < 0.02425) {
		double q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
		    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
	} else {
		double q = p - 0.5, r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
		    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
	}
	return x;
}

static double norm_ppf_lower(double p)
{
	double x = norm_ppf_approx(p);
	/* Halley on Phi(x) = p: u = (Phi(x) - p) / phi(x), written as
	 * (Phi(x)/p - 1) * p/phi(x) so that neither the difference (which
	 * would be subnormal for tiny p) nor exp(x*x/2) (which overflows
	 * below x = -37.6) loses the correction. */
	double rel = 0.5 * erfc(-x / SQRT2) / p - 1;
	double u = rel * exp(log(p) + x * x / 2 + LOG_SQRT_2PI);
	return x - u / (1 + x * u / 2);
}

double stats_norm_ppf_coarse(double p)
{
	assert(p > 0 && p < 1);
	return p <= 0.5 ? norm_ppf_approx(p) : -norm_ppf_approx(1 - p);
}

double stats_norm_ppf(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	/* 1 - p is exact for p in [0.5, 1], so the upper half loses nothing */
	return p < 0.5 ? norm_ppf_lower(p) : -norm_ppf_lower(1 - p);
}

/* ------------------------------------------------------------------ */
/* Ranks, ties, Mann-Kendall                                           */
/* ------------------------------------------------------------------ */

int stats_cmp_val_idx(const void *a, const void *b)
{
	const struct val_idx *p = a, *q = b;
	if (p->v != q->v)
		return p->v < q->v ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/*
 * stats_radix_sort (stats_internal.h): LSD radix sort, 11 bits a pass;
 * passes in which every key has the same digit are skipped (values of one
 * magnitude share their high bits, page-sized readings their low ones).
 * Stable: equal keys keep the order they came in. O(n) per pass.
 */
#define RADIX_BITS 11
#define RADIX_PASSES 6 /* 6 x 11 >= 64 */
void stats_radix_sort(struct stats_key_idx *a, struct stats_key_idx *tmp,
		      size_t n, int key_bits)
{
	if (n < 2)
		return;
	assert(n <= UINT32_MAX);
	assert(key_bits >= 1 && key_bits <= 64);
	int passes = (key_bits + RADIX_BITS - 1) / RADIX_BITS;
	uint32_t hist[RADIX_PASSES][1u << RADIX_BITS];
	const uint64_t mask = (1u << RADIX_BITS) - 1;
	memset(hist, 0, (size_t)passes * sizeof(hist[0]));
	for (size_t i = 0; i < n; i++) {
		uint64_t k = a[i].k;
		for (int d = 0; d < passes; d++)
			hist[d][(k >> (RADIX_BITS * d)) & mask]++;
	}
	struct stats_key_idx *src = a, *dst = tmp;
	for (int d = 0; d < passes; d++) {
		uint32_t *h = hist[d];
		int sh = RADIX_BITS * d;
		if (h[(src[0].k >> sh) & mask] == n)
			continue; /* one digit for all: order unchanged */
		uint32_t pos = 0;
		for (size_t b = 0; b <= mask; b++) {
			uint32_t c = h[b];
			h[b] = pos;
			pos += c;
		}
		for (size_t i = 0; i < n; i++)
			dst[h[(src[i].k >> sh) & mask]++] = src[i];
		struct stats_key_idx *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
}

static void radix_sort_keys(struct stats_key_idx *a, size_t n)
{
	struct stats_key_idx *tmp = xmalloc((n ? n : 1) * sizeof(*tmp));
	stats_radix_sort(a, tmp, n, 64);
	free(tmp);
}

void stats_sort_doubles(double *v, size_t n)
{
	if (n < 2)
		return;
	if (n <= 32) {
		for (size_t i = 1; i < n; i++) {
			double x = v[i];
			size_t j = i;
			for (; j > 0 && x < v[j - 1]; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	assert(n < UINT32_MAX);
	struct stats_key_idx *a = xmalloc(n * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		a[i] = (struct stats_key_idx){stats_sort_key(v[i]), (uint32_t)i};
	radix_sort_keys(a, n);
	double *w = xmalloc(n * sizeof(*w));
	for (size_t i = 0; i < n; i++)
		w[i] = v[a[i].i];
	memcpy(v, w, n * sizeof(*v));
	free(w);
	free(a);
}

/* Sorted (value, index) pairs of v: by value, then by index, the order
 * stats_cmp_val_idx gives (a total order, so any sort gives this one;
 * the radix sort is stable and starts in index order). */
static struct val_idx *sorted_with_index(const double *v, size_t n)
{
	assert(n < UINT32_MAX);
	struct stats_key_idx *a = xmalloc((n ? n : 1) * sizeof(*a));
	for (size_t i = 0; i < n; i++)
		a[i] = (struct stats_key_idx){stats_sort_key(v[i]), (uint32_t)i};
	radix_sort_keys(a, n);
	struct val_idx *s = xmalloc((n ? n : 1) * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i] = (struct val_idx){v[a[i].i], a[i].i};
	free(a);
	return s;
}

/* Sums over groups of t equal values: t(t-1)/2, t(t-1)(t-2), t(t-1)(2t+5).
 * Doubles: exact while the sums stay below 2^53 (every n <= 65536). */
struct tie_sums {
	double pairs, cube, mk;
};

static void add_tie_group(struct tie_sums *ts, double t)
{
	ts->pairs += t * (t - 1) / 2;
	ts->cube += t * (t - 1) * (t - 2);
	ts->mk += t * (t - 1) * (2 * t + 5);
}

/* Tie sums of v, which must be sorted (non-decreasing). */
static struct tie_sums tie_sums_sorted(const double *v, size_t n)
{
	struct tie_sums ts = {0, 0, 0};
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && v[j] == v[i])
			j++;
		if (j - i > 1)
			add_tie_group(&ts, (double)(j - i));
		i = j;
	}
	return ts;
}

static struct tie_sums tie_sums_any(const double *v, size_t n)
{
	double *s = xmalloc((n ? n : 1) * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	stats_sort_doubles(s, n);
	struct tie_sums ts = tie_sums_sorted(s, n);
	free(s);
	return ts;
}

/*
 * Concordant and discordant pairs of y against x: pairs i < j with
 * x_i < x_j (x non-decreasing; x == NULL means index order, all distinct)
 * and y_j > y_i (concordant) or y_j < y_i (discordant). Pairs tied in x or
 * in y are neither. Fenwick tree over the dense ranks of y; each group of
 * equal x is queried in full before it is inserted, so its own pairs are
 * never counted. O(n log n).
 */
static void kendall_counts_ties(const double *x, const double *y, size_t n,
				uint64_t *con, uint64_t *dis,
				struct tie_sums *ty)
{
	*con = *dis = 0;
	if (ty)
		*ty = (struct tie_sums){0, 0, 0};
	if (n < 2)
		return;
	struct val_idx *s = sorted_with_index(y, n);
	uint32_t *rank = xmalloc(n * sizeof(*rank));
	uint32_t nr = 0;
	size_t run = 0; /* start of the current group of equal y */
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || s[i].v != s[i - 1].v) {
			/* y's tie groups in ascending order, as
			 * tie_sums_sorted() visits them */
			if (ty && i - run > 1)
				add_tie_group(ty, (double)(i - run));
			run = i;
			nr++;
		}
		rank[s[i].i] = nr; /* 1-based dense rank */
	}
	if (ty && n - run > 1)
		add_tie_group(ty, (double)(n - run));
	free(s);
	uint64_t *fen = xcalloc((size_t)nr + 1, sizeof(*fen));
	uint64_t inserted = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		if (x)
			while (j < n && x[j] == x[i])
				j++;
		for (size_t g = i; g < j; g++) {
			uint64_t less = 0, leq = 0;
			for (uint32_t r = rank[g] - 1; r > 0; r &= r - 1)
				less += fen[r];
			for (uint32_t r = rank[g]; r > 0; r &= r - 1)
				leq += fen[r];
			*con += less;
			*dis += inserted - leq;
		}
		for (size_t g = i; g < j; g++) {
			for (uint32_t r = rank[g]; r <= nr; r += r & -r)
				fen[r]++;
			inserted++;
		}
		i = j;
	}
	free(fen);
	free(rank);
}

void stats_kendall_counts(const double *x, const double *y, size_t n,
			  uint64_t *con, uint64_t *dis)
{
	kendall_counts_ties(x, y, n, con, dis, NULL);
}

double stats_mann_kendall_s(const double *y, size_t n)
{
	uint64_t con, dis;
	stats_kendall_counts(NULL, y, n, &con, &dis);
	return (double)con - (double)dis;
}

double stats_mann_kendall_var(const double *y, size_t n)
{
	if (n < 2)
		return 0;
	struct tie_sums ty = tie_sums_any(y, n);
	double dn = (double)n;
	return (dn * (dn - 1) * (2 * dn + 5) - ty.mk) / 18;
}

uint64_t stats_pair_count(const double *x, size_t n)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && x[j] == x[i])
			j++;
		assert(j == n || x[j] > x[i]); /* x non-decreasing */
		/* every earlier point has a smaller x */
		total += (uint64_t)(j - i) * (uint64_t)i;
		i = j;
	}
	return total;
}

/* ------------------------------------------------------------------ */
/* Bucketing and resolution                                            */
/* ------------------------------------------------------------------ */

size_t stats_bucket_medians(const double *x, const double *y, size_t n,
			    double *xo, double *yo, size_t max_out)
{
	if (n == 0)
		return 0;
	assert(max_out >= 1 && max_out <= UINT32_MAX);
	if (n <= max_out) {
		memcpy(xo, x, n * sizeof(*xo));
		memcpy(yo, y, n * sizeof(*yo));
		return n;
	}
	size_t nb = max_out, q = n / nb, rem = n % nb;
	double *scratch = xmalloc((q + 1) * sizeof(*scratch));
	for (size_t b = 0; b < nb; b++) {
		/* bucket b = [b*n/nb, (b+1)*n/nb): q or q+1 points */
		size_t start = b * q + b * rem / nb;
		size_t end = (b + 1) * q + (b + 1) * rem / nb;
		size_t len = end - start;
		bool sorted = true;
		for (size_t i = start + 1; i < end && sorted; i++)
			sorted = x[i] >= x[i - 1];
		if (sorted) { /* the usual case (time order): no selection */
			const double *v = x + start;
			xo[b] = len % 2 ? v[len / 2] : (v[len / 2 - 1] + v[len / 2]) / 2;
		} else {
			memcpy(scratch, x + start, len * sizeof(*scratch));
			xo[b] = stats_median_inplace(scratch, len);
		}
		memcpy(scratch, y + start, len * sizeof(*scratch));
		yo[b] = stats_median_inplace(scratch, len);
	}
	free(scratch);
	return nb;
}

static double gcd_integral(double a, double b)
{
	/* Euclid on integral doubles: fmod is exact, so no overflow and no
	 * rounding for any magnitude */
	while (b > 0) {
		double t = fmod(a, b);
		a = b;
		b = t;
	}
	return a;
}

/* GCD of two whole numbers of quanta. Integer Euclid: this runs once per
 * step of the raw series (10^7 times on a large recording), where a
 * double fmod loop cost a third of a report. */
static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Trailing decimal zeros of u (at most 18). */
static int decimal_zeros(uint64_t u)
{
	int z = 0;
	while (z < 18 && u % 10 == 0) {
		u /= 10;
		z++;
	}
	return z;
}

/* The power of ten of the SI prefix a tool would print u in: the largest
 * 10^(3k) not above u (21000000000: 10^9, "21 GB"). */
static int si_prefix_digits(uint64_t u)
{
	int d = 0;
	while (u >= 10) {
		u /= 10;
		d++;
	}
	return d / 3 * 3;
}

double stats_resolution_shared(const double *y, size_t n)
{
	int tz = 18;            /* trailing decimal zeros common to all */
	int p2 = 30;            /* powers of two common to all (2^30 max) */
	uint64_t first = 0, least = 0;
	bool distinct = false;  /* two different non-zero readings */
	for (size_t i = 0; i < n; i++) {
		double v = fabs(y[i]);
		if (!(v < 9007199254740992.0) || v != floor(v))
			return 0;  /* not whole bytes: nothing shared */
		if (v == 0)
			continue;
		uint64_t u = (uint64_t)v;
		if (!first)
			first = least = u;
		distinct |= u != first;
		if (u < least)
			least = u;
		int z = decimal_zeros(u);
		if (z < tz)
			tz = z;
		int b = 0;
		while (b < p2 && ((u >> b) & 1) == 0)
			b++;
		p2 = b;
	}
	if (!first)
		return 0;  /* only zeros: they share every unit, so none */
	/* Decimal: a tool printing kB, MB, GB (with or without decimals)
	 * leaves at least three zeros, never more than the prefix the least
	 * reading is printed in ("20 GB" is whole GB, not tens of GB). A
	 * page count ends in three zeros by chance once in 125. */
	int dz = tz < si_prefix_digits(least) ? tz : si_prefix_digits(least);
	double dec = tz >= 3 ? pow(10, dz) : 0;
	/* Binary: whole 4 KiB pages. Beyond the page, the zero bits one
	 * value has (1073741824: 2^30) say what that value is, not what the
	 * source can show; only different values that share them do. */
	double bin = p2 < 12 ? 0 : distinct ? ldexp(1, p2) : 4096;
	return fmax(dec, bin);
}

double stats_resolution(const double *y, size_t n, double quantum_hint)
{
	double hint = quantum_hint > 0 ? quantum_hint : 0;
	double unit = hint > 0 ? hint : 1.0;
	uint64_t g = 0;
	double gd = 0; /* for steps beyond 2^63 quanta (never in practice) */
	for (size_t i = 1; i < n; i++) {
		double step = fabs(y[i] - y[i - 1]);
		if (!(step > 0))
			continue;
		/* steps in whole quanta; a step below half a quantum is
		 * text noise, not a step */
		double k = rint(step / unit);
		if (!(k >= 1))
			continue;
		if (k >= 9.2e18) {
			gd = gd == 0 ? k : gcd_integral(gd, k);
			continue;
		}
		uint64_t ki = (uint64_t)k;
		if (g == 0)
			g = ki;
		else if (ki % g != 0)
			g = gcd_u64(g, ki);
		if (g == 1)
			break;  /* cannot get any finer */
	}
	double gg = g ? (double)g : 0;
	if (gd > 0)
		gg = gg > 0 ? gcd_integral(gg, gd) : gd;
	if (gg == 0)
		return hint > 0 ? hint : 1.0;
	double res = gg * unit;
	return res > hint ? res : hint;
}


/* ------------------------------------------------------------------ */
/* Trend                                                               */
/* ------------------------------------------------------------------ */

static bool input_ok(const double *x, const double *y, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert(isfinite(x[i]) && isfinite(y[i]));
		assert(i == 0 || x[i] >= x[i - 1]);
		if (!isfinite(x[i]) || !isfinite(y[i]) || (i > 0 && !(x[i] >= x[i - 1])))
			return false;
	}
	return true;
}

static int trend_compute(const double *t, const double *x, const double *y,
			 size_t n, bool with_sen,
			 const struct stats_lf_options *nuisance,
			 struct trend_result *out);

int stats_trend_compute(const double *x, const double *y, size_t n,
		  struct trend_result *out)
{
	return trend_compute(x, x, y, n, false, NULL, out);
}

int stats_trend_compute_at(const double *t, const double *x, const double *y,
		     size_t n, struct trend_result *out)
{
	return trend_compute(t, x, y, n, false, NULL, out);
}

int stats_trend_compute_sen(const double *x, const double *y, size_t n,
			    struct trend_result *out)
{
	return trend_compute(x, x, y, n, true, NULL, out);
}

/* Each point's offset: the median of y - slope x over its segment
 * against the first segment's (starts: the first point of each later
 * segment, increasing). scratch holds n doubles. */
static void segment_offsets(const double *x, const double *y, size_t n,
			    double slope, const size_t *starts, size_t ns,
			    double *offset, double *scratch)
{
	double first = 0;
	for (size_t s = 0; s <= ns; s++) {
		size_t a = s ? starts[s - 1] : 0, b = s < ns ? starts[s] : n;
		assert(a < b && b <= n);
		for (size_t i = a; i < b; i++)
			scratch[i - a] = y[i] - slope * x[i];
		double level = stats_median_inplace(scratch, b - a);
		if (s == 0)
			first = level;
		for (size_t i = a; i < b; i++)
			offset[i] = level - first;
	}
}

int stats_trend_compute_steps(const double *x, const double *y, size_t n,
			      const size_t *starts, size_t ns,
			      struct trend_result *out)
{
	if (ns == 0)
		return stats_trend_compute(x, y, n, out);
	memset(out, 0, sizeof(*out));
	out->slope = NAN;
	out->ci_low = out->ci_high = out->sen_low = out->sen_high = NAN;
	if (ns > LF_NUISANCE_MAX || n > STATS_EXACT_MAX || n < 2)
		return -1;
	for (size_t k = 0; k < ns; k++)
		if (!(starts[k] > (k ? starts[k - 1] : 0) && starts[k] < n))
			return -1;
	double *cols = xmalloc(ns * n * sizeof(*cols));
	const double *colp[LF_NUISANCE_MAX];
	for (size_t k = 0; k < ns; k++) {
		for (size_t i = 0; i < n; i++)
			cols[k * n + i] = i >= starts[k] ? 1 : 0;
		colp[k] = cols + k * n;
	}
	struct stats_lf_options opt = {colp, ns, false, false};
	double *offset = xmalloc(n * sizeof(*offset));
	double *scratch = xmalloc(n * sizeof(*scratch));
	double *adj = xmalloc(n * sizeof(*adj));
	/* The slope the levels are taken out at: each segment's Theil-Sen
	 * slope, pooled with the weights least squares gives a segment's
	 * slope (its sum of (x - mean)^2). Levels taken out at any other
	 * slope leave a step of (that slope - the truth) x the distance
	 * between the segments' middles, which Theil-Sen would read back. */
	struct trend_result r;
	double num = 0, den = 0;
	int rc = -1;
	for (size_t s = 0; s <= ns; s++) {
		size_t a = s ? starts[s - 1] : 0, b = s < ns ? starts[s] : n;
		if (b - a < 3 || x[a] == x[b - 1])
			continue;
		/* the slope alone: a segment's interval is not needed */
		double slope = stats_theil_sen_slope(x + a, y + a, b - a);
		double xm = 0, sxx = 0;
		for (size_t i = a; i < b; i++)
			xm += x[i];
		xm /= (double)(b - a);
		for (size_t i = a; i < b; i++)
			sxx += (x[i] - xm) * (x[i] - xm);
		num += sxx * slope;
		den += sxx;
	}
	if (den > 0) {
		segment_offsets(x, y, n, num / den, starts, ns, offset,
				scratch);
		for (size_t i = 0; i < n; i++)
			adj[i] = y[i] - offset[i];
		rc = trend_compute(x, x, adj, n, false, &opt, &r);
	}
	free(cols);
	free(offset);
	free(scratch);
	free(adj);
	if (rc == 0)
		*out = r;
	return rc;
}

/* with_sen: also Sen's textbook interval, two more ranks of the pairwise
 * slopes far from the median (about half the selection's work at 10^4
 * points), which no verdict uses. nuisance: the mean model's extra
 * columns for the interval (NULL: none). */
static int trend_compute(const double *t, const double *x, const double *y,
			 size_t n, bool with_sen,
			 const struct stats_lf_options *nuisance,
			 struct trend_result *out)
{
	memset(out, 0, sizeof(*out));
	out->slope = NAN;
	out->ci_low = out->ci_high = out->sen_low = out->sen_high = NAN;
	if (!t)
		t = x;
	if (!x || !y || n < 2 || !input_ok(x, y, n) || x[0] == x[n - 1])
		return -1;
	for (size_t i = 1; i < n; i++)
		if (!(t[i] >= t[i - 1]))
			return -1;

	const double *xs = x, *ys = y, *ts = t;
	double *xb = NULL, *yb = NULL, *tb = NULL;
	size_t m = n;
	if (n > STATS_EXACT_MAX) {
		xb = xmalloc(STATS_BUCKETS_MAX * sizeof(*xb));
		yb = xmalloc(STATS_BUCKETS_MAX * sizeof(*yb));
		m = stats_bucket_medians(x, y, n, xb, yb, STATS_BUCKETS_MAX);
		xs = xb;
		ys = yb;
		ts = xb;
		if (t != x) { /* the same buckets: times of the same points */
			double *dummy = xmalloc(STATS_BUCKETS_MAX * sizeof(*yb));
			tb = xmalloc(STATS_BUCKETS_MAX * sizeof(*tb));
			stats_bucket_medians(t, y, n, tb, dummy,
					     STATS_BUCKETS_MAX);
			free(dummy);
			ts = tb;
		}
	}
	uint64_t np = stats_pair_count(xs, m);
	if (np == 0) { /* only when bucketing merged every distinct x */
		free(xb);
		free(yb);
		free(tb);
		return -1;
	}

	struct trend_result r;
	memset(&r, 0, sizeof(r));
	r.n_raw = n;
	r.n = m;
	r.bucketed = m < n;
	r.n_pairs = np;

	/* Mann-Kendall over pairs with x_i < x_j (Kendall's S against x;
	 * the plain index-order S when x has no ties) */
	uint64_t con, dis;
	struct tie_sums ty; /* from the same sort of y */
	kendall_counts_ties(xs, ys, m, &con, &dis, &ty);
	r.mk_s = (double)con - (double)dis;
	struct tie_sums tx = tie_sums_sorted(xs, m);
	double dn = (double)m, nn1 = dn * (dn - 1);
	/* Kendall's variance of S with ties in both (as scipy.stats.kendalltau);
	 * with distinct x it is (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18 */
	r.mk_var_s = (nn1 * (2 * dn + 5) - tx.mk - ty.mk) / 18 +
		     2 * tx.pairs * ty.pairs / nn1 +
		     (m > 2 ? tx.cube * ty.cube / (9 * nn1 * (dn - 2)) : 0);

	/* the slope: median of the pairwise slopes */
	struct stats_slope_sel *sel = NULL;
	bool brute = np <= STATS_BRUTE_MAX_PAIRS, brute_select = false;
	double *all = NULL;
	if (brute) {
		all = xmalloc((size_t)np * sizeof(*all));
		size_t c = 0;
		bool neg_zero = false;
		for (size_t i = 0; i < m; i++)
			for (size_t j = i + 1; j < m; j++)
				if (xs[i] < xs[j]) {
					double sl = (ys[j] - ys[i]) / (xs[j] - xs[i]);
					neg_zero |= sl == 0 && signbit(sl);
					all[c++] = sl;
				}
		/* Only four ranks are asked: selection finds the very values
		 * a sort puts there. Values that compare equal are then one
		 * double, except -0 and +0, whose order a sort would decide
		 * (and a median could come out as -0): with a -0 among the
		 * slopes (never, in practice), sort as before. */
		if (neg_zero)
			qsort(all, c, sizeof(*all), stats_cmp_double);
		else
			brute_select = true;
	} else {
		sel = stats_slope_sel_new(xs, ys, m, np, con, dis);
	}
#define KTH(k) (brute ? (brute_select ? stats_select_kth(all, (size_t)np, (k)) \
				      : all[(k)]) \
		      : stats_slope_sel_rank(sel, (k)))
	if (np % 2) {
		r.slope = KTH(np / 2);
	} else {
		double lo = KTH(np / 2 - 1), hi = KTH(np / 2);
		r.slope = (lo + hi) / 2;
	}

	double *res = xmalloc(m * sizeof(*res));
	for (size_t i = 0; i < m; i++)
		res[i] = ys[i] - r.slope * xs[i];
	r.intercept = stats_median_inplace(res, m);
	free(res);

	/* Sen's textbook interval, index for index as
	 * scipy.stats.theilslopes 1.10: sigsq = 1/18 * (n(n-1)(2n+5) - x
	 * ties - y ties); np.round is round-half-even, as rint is. It
	 * assumes independent points: kept for reference, not for verdicts. */
	double sigsq = (1.0 / 18.0) * (nn1 * (2 * dn + 5) - tx.mk - ty.mk);
	if (!with_sen) {
		r.sen_low = r.sen_high = NAN;
	} else if (sigsq >= 0) {
		double sigma = sqrt(sigsq), z = -STATS_Z975, nt = (double)np;
		double ru = rint((nt - z * sigma) / 2.0);
		double rl = rint((nt + z * sigma) / 2.0) - 1;
		uint64_t iu = ru > nt - 1 ? np - 1 : (uint64_t)ru;
		uint64_t il = rl < 0 ? 0 : (uint64_t)rl;
		r.sen_low = KTH(il);
		r.sen_high = KTH(iu);
	} else {
		/* scipy: sqrt of a negative variance -> NaN indices -> NaN */
		r.sen_low = r.sen_high = NAN;
	}
#undef KTH
	free(all);
	stats_slope_sel_free(sel);

	/* The interval and test that verdicts use: from the residuals'
	 * low-frequency variation under a family of noise models
	 * (stats_lowfreq.h), centred on the Theil-Sen slope. With x apart
	 * from t, x is cumulative work: what each request keeps may vary. */
	struct stats_lf_options lo = {NULL, 0, ts != xs, false};
	if (nuisance) {
		assert(ts == xs && m == n);
		lo = *nuisance;
	}
	struct stats_lf_result lf;
	r.ci_low = r.ci_high = NAN;
	r.p_value = 1;
	r.variance_inflation = 1;
	r.ar_phi = r.corr_time = r.se_iid = NAN;
	if (stats_lf_slope_interval(ts, xs, ys, m, r.slope, 0.95, &lo,
				    &lf) == 0) {
		r.ci_low = lf.ci_low;
		r.ci_high = lf.ci_high;
		r.p_value = lf.p_value;
		r.variance_inflation = lf.inflation;
		r.corr_time = lf.corr_time;
		r.se_iid = lf.se_iid;
	}
	/* Mann-Kendall's z, its variance widened as much as the interval */
	if (r.mk_var_s > 0) {
		double s = r.mk_s, cc = s > 0 ? 1 : (s < 0 ? -1 : 0);
		double vi = isfinite(r.variance_inflation) &&
			    r.variance_inflation > 1 ? r.variance_inflation : 1;
		r.mk_z = (s - cc) / sqrt(r.mk_var_s * vi);
	}
	/* the noise figures as any caller may state them */
	stats_trend_noise_figures(&r, ys, m);
	free(xb);
	free(yb);
	free(tb);
	*out = r;
	return 0;
}

void stats_trend_noise_figures(struct trend_result *tr, const double *y,
			       size_t n)
{
	bool flat = true;
	for (size_t i = 1; i < n && flat; i++)
		flat = y[i] == y[0];
	bool exact = isfinite(tr->ci_low) && tr->ci_low == tr->ci_high;
	/* NAN fails both comparisons; an infinite correlation time (longer
	 * than the window) is a finding */
	bool inflation_ok = tr->variance_inflation >= 1;
	bool corr_ok = tr->corr_time >= 0;
	if (flat || exact || !inflation_ok || !corr_ok)
		tr->variance_inflation = tr->corr_time = tr->ar_phi = NAN;
}

double stats_walk_slope_variance(const double *x, const double *v, size_t n)
{
	if (n < 2)
		return NAN;
	double mean = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]) || !isfinite(x[i]))
			return NAN;
		mean += x[i];
	}
	mean /= (double)n;
	double sxx = 0;
	for (size_t i = 0; i < n; i++)
		sxx += (x[i] - mean) * (x[i] - mean);
	if (!(sxx > 0))
		return NAN;
	/* C_k from the end: one pass */
	double tail = 0, var = 0;
	for (size_t k = n; k-- > 1;) {
		tail += (x[k] - mean) / sxx;
		double step = v[k] - v[k - 1];
		if (step > 0)
			var += step * tail * tail;
	}
	return var;
}

void stats_interval_add_error(double estimate, double sd, double *low,
			      double *high, double *p)
{
	if (!(sd > 0) || !isfinite(estimate))
		return;
	double q = STATS_Z975 * sd;
	double lo = estimate - *low, hi = *high - estimate;
	*low = estimate - sqrt(lo * lo + q * q);
	*high = estimate + sqrt(hi * hi + q * q);
	if (!(*p < 1)) /* 1, or NAN: nothing to move */
		return;
	double z = -stats_norm_ppf(*p / 2); /* +inf for p = 0 */
	double se = z > 0 ? fabs(estimate) / z : INFINITY;
	double z2 = fabs(estimate) / sqrt(se * se + sd * sd);
	double p2 = 2 * stats_norm_cdf(-z2);
	*p = fmax(*p, fmin(1, p2));
}

/* Used by analysis.c and analysis_gpu.c alike, so it lives below both. */
bool stats_trend_per_hour(const struct trend_result *tr, double *slope_bph,
		    double *ci_low_bph, double *ci_high_bph, double *p_value)
{
	*slope_bph = tr->slope * 3600;
	*ci_low_bph = tr->ci_low * 3600;
	*ci_high_bph = tr->ci_high * 3600;
	*p_value = tr->p_value;
	return tr->p_value < TREND_ALPHA &&
	       (*ci_low_bph > 0 || *ci_high_bph < 0);
}
