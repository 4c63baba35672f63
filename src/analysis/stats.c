/*
 * stats.c - the trend statistics behind every verdict (contract in
 * stats.h; methods, bounds and proofs in docs/statistics.md).
 *
 * What it does: Theil-Sen slope, Sen's textbook 95 % interval (exactly as
 * scipy.stats.theilslopes 1.10 computes it; reference only), the interval
 * and test verdicts use (from stats_ar.c), Mann-Kendall S and its
 * tie-corrected variance, medians, order statistics, bucketing and the
 * resolution of a series.
 *
 * What it does not do: I/O, diagnostics, or any interpretation of the
 * numbers (verdicts live in analysis.c and verdict.c). It never drops
 * points: the caller removes missing ones, and NaN or infinite input is a
 * programming error (asserted; rejected with -1 where asserts are off).
 *
 * Exactness: the k-th pairwise slope returned by slope selection is the
 * very double a brute-force sort of all (y_j-y_i)/(x_j-x_i) would hold at
 * index k, not an approximation. Pair counting uses keys y - t*x kept as
 * double-doubles (error-free transformations), and the last step enumerates
 * a guarded bracket whose width follows from rounding-error bounds, so the
 * few slopes that rounding could misplace are always recomputed exactly as
 * the brute force computes them. (One exception, see final_stage(): more
 * than 2^27 nearly equal slopes from data whose differences are not exact
 * in double; the result is then within a few ulps.) This needs IEEE
 * double arithmetic without excess precision or contracted multiply-adds
 * (see the pragmas below) and values well inside 1e+-150.
 */
#include "stats.h"
#include "stats_ar.h"

#include "common.h"

#include <assert.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if FLT_EVAL_METHOD != 0
#error "stats.c needs double arithmetic without excess precision"
#endif

/* The error-free transformations below (two_sum, Dekker's split and
 * product) break if a compiler fuses a*b+c into one rounding. ISO modes
 * (-std=c17) already forbid that; GNU modes with FMA hardware would not. */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* scipy.stats.norm.ppf(0.975) as scipy 1.10 returns it (1.959963984540054):
 * hard-coded so that the interval indices round exactly as scipy's do. */
#define Z975 1.959963984540054

#define SQRT2 1.41421356237309504880
#define LOG_SQRT_2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */

/* Series with at most this many pairs get their slopes enumerated and
 * sorted outright; slope selection takes over above it. Kept small so
 * that the selection code is what runs (and is tested) on mid-size
 * series. */
#define BRUTE_MAX_PAIRS 32768u

/* Pairs drawn at random to place the first pivots of slope selection. */
#define SAMPLE_PAIRS 16384u

/* ------------------------------------------------------------------ */
/* Order statistics                                                    */
/* ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Rearranges v so that v[k] holds the k-th smallest value, smaller or
 * equal ones before it and larger or equal ones after it; returns v[k].
 * Quickselect (Hoare/Wirth partition, median-of-three pivot); when the
 * partitions keep coming out lopsided it sorts the rest, so the worst
 * case is O(n log n) rather than O(n^2).
 */
static double select_kth(double *v, size_t n, size_t k)
{
	assert(k < n);
	ptrdiff_t l = 0, r = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
	int budget = 16;
	for (size_t m = n; m > 1; m >>= 1)
		budget += 2;
	while (l < r) {
		if (budget-- == 0) {
			qsort(v + l, (size_t)(r - l + 1), sizeof(*v), cmp_double);
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
	double hi = select_kth(v, n, k);
	if (n % 2)
		return hi;
	double lo = v[0];
	for (size_t i = 1; i < k; i++)
		if (v[i] > lo)
			lo = v[i];
	/* (a + b) / 2 as numpy.median computes the mean of the middle two */
	return (lo + hi) / 2;
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
 * (relative error < 1.2e-9) and one Halley step on erfc, which brings it
 * to within a few ulps. */
static double norm_ppf_lower(double p)
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
	/* Halley on Phi(x) = p: u = (Phi(x) - p) / phi(x), written as
	 * (Phi(x)/p - 1) * p/phi(x) so that neither the difference (which
	 * would be subnormal for tiny p) nor exp(x*x/2) (which overflows
	 * below x = -37.6) loses the correction. */
	double rel = 0.5 * erfc(-x / SQRT2) / p - 1;
	double u = rel * exp(log(p) + x * x / 2 + LOG_SQRT_2PI);
	return x - u / (1 + x * u / 2);
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

struct val_idx {
	double v;
	size_t i;
};

static int cmp_val_idx(const void *a, const void *b)
{
	const struct val_idx *p = a, *q = b;
	if (p->v != q->v)
		return p->v < q->v ? -1 : 1;
	return (p->i > q->i) - (p->i < q->i);
}

/* Sorted (value, index) pairs of v. */
static struct val_idx *sorted_with_index(const double *v, size_t n)
{
	struct val_idx *s = xmalloc(n * sizeof(*s));
	for (size_t i = 0; i < n; i++)
		s[i] = (struct val_idx){v[i], i};
	qsort(s, n, sizeof(*s), cmp_val_idx);
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
	qsort(s, n, sizeof(*s), cmp_double);
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
static void kendall_counts(const double *x, const double *y, size_t n,
			   uint64_t *con, uint64_t *dis)
{
	*con = *dis = 0;
	if (n < 2)
		return;
	struct val_idx *s = sorted_with_index(y, n);
	uint32_t *rank = xmalloc(n * sizeof(*rank));
	uint32_t nr = 0;
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || s[i].v != s[i - 1].v)
			nr++;
		rank[s[i].i] = nr; /* 1-based dense rank */
	}
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

double stats_mann_kendall_s(const double *y, size_t n)
{
	uint64_t con, dis;
	kendall_counts(NULL, y, n, &con, &dis);
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

double stats_resolution_shared(const double *y, size_t n)
{
	if (n == 0)
		return 0;
	int tz = 30;            /* trailing decimal zeros common to all */
	int p2 = 30;            /* powers of two common to all (2^30 max) */
	for (size_t i = 0; i < n && (tz > 0 || p2 > 0); i++) {
		double v = fabs(y[i]);
		if (!(v < 9007199254740992.0) || v != floor(v))
			return 0;  /* not whole bytes: nothing shared */
		if (v == 0)
			continue;
		uint64_t u = (uint64_t)v;
		int z = 0;
		while (z < tz && u % 10 == 0) {
			u /= 10;
			z++;
		}
		tz = z;
		int b = 0;
		u = (uint64_t)v;
		while (b < p2 && (u & 1) == 0) {
			u >>= 1;
			b++;
		}
		p2 = b;
	}
	double dec = tz > 0 ? pow(10, tz) : 0;
	double bin = p2 >= 12 ? ldexp(1, p2) : 0;   /* 4 KiB pages or more */
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
/* Slope selection                                                     */
/* ------------------------------------------------------------------ */

/* Error-free transformations (Knuth, Dekker). */
static inline void two_sum(double a, double b, double *s, double *e)
{
	double x = a + b, bb = x - a;
	*s = x;
	*e = (a - (x - bb)) + (b - bb);
}

static inline void split(double a, double *hi, double *lo)
{
	double c = 134217729.0 * a; /* 2^27 + 1 */
	double big = c - a;
	*hi = c - big;
	*lo = a - *hi;
}

/* Key record of one point for one threshold t: the double-double
 * (hi, lo) of y - t*x, its x group (for ties) and its x-order position. */
struct key_rec {
	double hi, lo;
	uint32_t grp, pos;
};

/* Point record for the enumeration of the bracket. */
struct pt_rec {
	uint32_t rank, pt;
};

struct probe {
	double t;
	uint64_t c;
};

/* value -> count, open addressing */
struct slope_map {
	uint64_t *keys, *counts;
	size_t cap, used;
};

struct slope_sel {
	const double *x, *y;
	size_t n;
	uint64_t npairs;
	uint64_t limit;        /* pairs a bracket may hold to be enumerated */
	uint32_t *seq;         /* points by (x, y, index): the x order */
	uint32_t *grp;         /* x group of each point */
	double *xh, *xl;       /* Dekker halves of x */
	struct key_rec *rec, *tmp;
	double xmax, ymax;     /* largest |x|, |y| */
	double dx_min;         /* smallest positive step of x (lower bound) */
	double lo0, hi0;       /* all slopes lie strictly inside */
	bool exact_diffs;      /* every y_j-y_i and x_j-x_i exact in double */
	bool range_ok;         /* magnitudes safe for Dekker's product */
	bool zero_exact;       /* n_lt0 / n_le0 are exact for the doubles */
	uint64_t n_lt0, n_le0; /* slopes < 0 and <= 0 */
	struct probe *probes;
	size_t nprobes, probes_cap;
	double *sample;
	size_t nsample;
	/* last enumerated bracket, reused for ranks landing in it */
	bool have_memo;
	double memo_lo, memo_hi;
	uint64_t memo_base;    /* pairs below the enumerated set */
	uint64_t memo_w;       /* pairs in it */
	double *memo_v;        /* its slopes; or, with memo_cum, its
				  distinct slopes ascending */
	uint64_t *memo_cum;    /* pairs up to and including memo_v[i] */
	size_t memo_n;
};

/* Every pairwise difference of v is a double (no rounding): all values
 * are multiples of 2^low and below 2^(low+52) in magnitude. */
static bool diffs_exact(const double *v, size_t n)
{
	int low = INT_MAX;
	double amax = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == 0)
			continue;
		int e;
		double f = frexp(fabs(v[i]), &e);
		uint64_t mant = (uint64_t)ldexp(f, 53);
		int lb = e - 53 + __builtin_ctzll(mant);
		if (lb < low)
			low = lb;
		if (fabs(v[i]) > amax)
			amax = fabs(v[i]);
	}
	if (low == INT_MAX)
		return true;
	if (low > 900)
		return false;
	return 2 * amax < ldexp(1.0, low + 53);
}

static inline bool rec_less(const struct key_rec *a, const struct key_rec *b,
			    bool ties_below)
{
	if (a->hi != b->hi)
		return a->hi < b->hi;
	if (a->lo != b->lo)
		return a->lo < b->lo;
	/* equal keys: a pair (x_p < x_q) with slope exactly t. Counted as
	 * "below t" when the larger x sorts first. Equal x never inverts:
	 * the x order sorts those by y, as the keys do. */
	if (a->grp != b->grp)
		return ties_below ? a->grp > b->grp : a->grp < b->grp;
	return a->pos < b->pos;
}

#define RUN 32

/* Sorts a (by rec_less) and returns its number of inversions: the pairs
 * p before q in the x order with q before p by key. Bottom-up merge sort
 * on runs sorted by insertion; O(n log n). */
static uint64_t sort_count(struct key_rec *a, struct key_rec *tmp, size_t n,
			   bool ties_below)
{
	uint64_t inv = 0;
	for (size_t s = 0; s < n; s += RUN) {
		size_t e = s + RUN < n ? s + RUN : n;
		for (size_t i = s + 1; i < e; i++) {
			struct key_rec v = a[i];
			size_t j = i;
			while (j > s && rec_less(&v, &a[j - 1], ties_below)) {
				a[j] = a[j - 1];
				j--;
			}
			inv += i - j;
			a[j] = v;
		}
	}
	struct key_rec *src = a, *dst = tmp;
	for (size_t w = RUN; w < n; w *= 2) {
		for (size_t s = 0; s < n; s += 2 * w) {
			size_t m = s + w < n ? s + w : n;
			size_t e = s + 2 * w < n ? s + 2 * w : n;
			size_t i = s, j = m, o = s;
			while (i < m && j < e) {
				if (rec_less(&src[j], &src[i], ties_below)) {
					inv += m - i;
					dst[o++] = src[j++];
				} else {
					dst[o++] = src[i++];
				}
			}
			while (i < m)
				dst[o++] = src[i++];
			while (j < e)
				dst[o++] = src[j++];
		}
		struct key_rec *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	return inv;
}

/*
 * Fills sel->rec with the keys y - (t + t2)*x of the points in x order
 * (t2 is 0 or below an ulp of t). The key is the double-double sum of
 * y - P - e - t2*x where P + e == t*x exactly (Dekker) and y - P is split
 * exactly (two_sum); what rounding is left, in (s - e) - t2*x, is of order
 * eps^2 * (|y| + |t x|): see miscl() below.
 */
static void build_keys(struct slope_sel *sel, double t, double t2)
{
	double th, tl;
	split(t, &th, &tl);
	for (size_t p = 0; p < sel->n; p++) {
		uint32_t i = sel->seq[p];
		double xi = sel->x[i], xh = sel->xh[i], xl = sel->xl[i];
		double P = t * xi;
		double e = ((th * xh - P) + th * xl + tl * xh) + tl * xl;
		double S, s;
		two_sum(sel->y[i], -P, &S, &s);
		double r = (s - e) - t2 * xi;
		double kh, kl;
		two_sum(S, r, &kh, &kl);
		sel->rec[p] = (struct key_rec){kh, kl, sel->grp[i], (uint32_t)p};
	}
}

/* Pairs the keys put at or below t (ties_below) or strictly below it,
 * i.e. inversions of the x order under the key order at t. */
static uint64_t count_at2(struct slope_sel *sel, double t, double t2,
			  bool ties_below)
{
	build_keys(sel, t, t2);
	return sort_count(sel->rec, sel->tmp, sel->n, ties_below);
}

static uint64_t count_at(struct slope_sel *sel, double t, bool ties_below)
{
	return count_at2(sel, t, 0, ties_below);
}

/*
 * Error bounds (docs/statistics.md). A key at |t| <= T is off by at most
 * kerr(T) = 4 eps^2 (ymax + T xmax) + tiny, so a pair (dx >= dx_min) can be
 * put on the wrong side of t only if its real slope is within
 * miscl(T) = 2 kerr(T) / dx_min of t. tiny covers underflow in the error
 * terms (inputs are assumed well inside 1e+-150).
 */
#define TINY 1e-290

static double miscl(const struct slope_sel *sel, double T)
{
	const double eps = DBL_EPSILON;
	double kerr = 4 * eps * eps * (sel->ymax + T * sel->xmax) + TINY;
	return 2 * kerr / sel->dx_min + TINY;
}

static void add_probe(struct slope_sel *sel, double t, uint64_t c)
{
	xgrow((void **)&sel->probes, &sel->probes_cap, sel->nprobes + 1,
	      sizeof(*sel->probes));
	sel->probes[sel->nprobes++] = (struct probe){t, c};
}

static uint64_t rng_next(uint64_t *st)
{
	/* splitmix64: deterministic, so results never depend on a clock */
	uint64_t z = (*st += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static inline double pair_slope(const double *x, const double *y, uint32_t a,
				uint32_t b)
{
	/* exactly the brute force's expression, lower x first */
	assert(x[a] != x[b]);
	if (x[a] > x[b]) {
		uint32_t t = a;
		a = b;
		b = t;
	}
	return (y[b] - y[a]) / (x[b] - x[a]);
}

static void sel_init(struct slope_sel *sel, const double *x, const double *y,
		     size_t n, uint64_t npairs)
{
	memset(sel, 0, sizeof(*sel));
	assert(n < UINT32_MAX);
	sel->x = x;
	sel->y = y;
	sel->n = n;
	sel->npairs = npairs;
	sel->limit = 2 * (uint64_t)n > 32768 ? 2 * (uint64_t)n : 32768;
	sel->seq = xmalloc(n * sizeof(*sel->seq));
	sel->grp = xmalloc(n * sizeof(*sel->grp));
	sel->xh = xmalloc(n * sizeof(*sel->xh));
	sel->xl = xmalloc(n * sizeof(*sel->xl));
	sel->rec = xmalloc(n * sizeof(*sel->rec));
	sel->tmp = xmalloc(n * sizeof(*sel->tmp));

	uint32_t g = 0;
	double ymin = y[0], ymax = y[0], dx_min = INFINITY;
	double amin = INFINITY; /* smallest non-zero magnitude */
	for (size_t i = 0; i < n; i++) {
		sel->seq[i] = (uint32_t)i;
		if (i > 0 && x[i] != x[i - 1]) {
			g++;
			double dx = x[i] - x[i - 1];
			if (dx < dx_min)
				dx_min = dx;
		}
		sel->grp[i] = g;
		split(x[i], &sel->xh[i], &sel->xl[i]);
		if (fabs(x[i]) > sel->xmax)
			sel->xmax = fabs(x[i]);
		if (fabs(y[i]) > sel->ymax)
			sel->ymax = fabs(y[i]);
		if (y[i] < ymin)
			ymin = y[i];
		if (y[i] > ymax)
			ymax = y[i];
		if (x[i] != 0 && fabs(x[i]) < amin)
			amin = fabs(x[i]);
		if (y[i] != 0 && fabs(y[i]) < amin)
			amin = fabs(y[i]);
	}
	/* x order: by x, then y, then index (equal-x runs sorted by y) */
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && x[j] == x[i])
			j++;
		if (j - i > 1) {
			struct val_idx *run = xmalloc((j - i) * sizeof(*run));
			for (size_t g2 = i; g2 < j; g2++)
				run[g2 - i] = (struct val_idx){y[g2], g2};
			qsort(run, j - i, sizeof(*run), cmp_val_idx);
			for (size_t g2 = i; g2 < j; g2++)
				sel->seq[g2] = (uint32_t)run[g2 - i].i;
			free(run);
		}
		i = j;
	}
	/* one rounding may have shortened the smallest step */
	sel->dx_min = dx_min * (1 - 2 * DBL_EPSILON);
	double smax = (ymax - ymin) / sel->dx_min;
	sel->hi0 = smax * (1 + 1e-9) + 1e-290;
	sel->lo0 = -sel->hi0;
	sel->range_ok = sel->xmax < 1e150 && sel->ymax < 1e150 && amin > 1e-150;

	bool xd = diffs_exact(x, n) ||
		  (x[0] > 0 && x[n - 1] <= 2 * x[0]) || /* Sterbenz */
		  (x[n - 1] < 0 && x[0] >= 2 * x[n - 1]);
	sel->exact_diffs = xd && diffs_exact(y, n);

	/* Signs of slopes are those of y_j - y_i unless a quotient
	 * underflows to zero: impossible when the smallest non-zero |dy|
	 * (a multiple of the lowest bit of any y) over the span is normal. */
	uint64_t con, dis;
	kendall_counts(x, y, n, &con, &dis);
	sel->n_lt0 = dis;
	sel->n_le0 = npairs - con;
	double span = (x[n - 1] - x[0]) * (1 + 2 * DBL_EPSILON);
	double ylow = INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (y[i] == 0)
			continue;
		int e;
		double f = frexp(fabs(y[i]), &e);
		double lb = ldexp(1.0, e - 53 + __builtin_ctzll((uint64_t)ldexp(f, 53)));
		if (lb < ylow)
			ylow = lb;
	}
	sel->zero_exact = ylow == INFINITY || ylow / span > 4 * DBL_MIN;
	/* keys at t = 0 are y itself, so this is also the count a probe
	 * at 0 would return */
	add_probe(sel, 0.0, sel->n_le0);

	/* random pairs, for pivots placed by the distribution of slopes */
	if (npairs > sel->limit) {
		uint64_t st = 0x6d656d7472656e64ull; /* fixed seed */
		sel->sample = xmalloc(SAMPLE_PAIRS * sizeof(*sel->sample));
		for (size_t tries = 0; tries < 8 * (size_t)SAMPLE_PAIRS &&
				       sel->nsample < SAMPLE_PAIRS; tries++) {
			uint32_t a = (uint32_t)(rng_next(&st) % n);
			uint32_t b = (uint32_t)(rng_next(&st) % n);
			if (x[a] == x[b])
				continue;
			sel->sample[sel->nsample++] = pair_slope(x, y, a, b);
		}
		qsort(sel->sample, sel->nsample, sizeof(*sel->sample), cmp_double);
	}
}

static void sel_free(struct slope_sel *sel)
{
	free(sel->seq);
	free(sel->grp);
	free(sel->xh);
	free(sel->xl);
	free(sel->rec);
	free(sel->tmp);
	free(sel->probes);
	free(sel->sample);
	free(sel->memo_v);
	free(sel->memo_cum);
}

/* --- the bracket: lo < slope_k <= hi, clo <= k < chi (counts by keys) --- */

struct bracket {
	double lo, hi;
	uint64_t clo, chi;
};

static void narrow(struct slope_sel *sel, struct bracket *br, double t,
		   uint64_t k)
{
	if (!(t > br->lo && t < br->hi))
		return;
	uint64_t c = count_at(sel, t, true);
	add_probe(sel, t, c);
	if (c <= k) {
		br->lo = t;
		br->clo = c;
	} else {
		br->hi = t;
		br->chi = c;
	}
}

static int64_t ord_of(double d)
{
	int64_t b;
	memcpy(&b, &d, sizeof(b));
	return b < 0 ? -(b & INT64_MAX) : b;
}

static double of_ord(int64_t o)
{
	int64_t b = o < 0 ? (-o) | INT64_MIN : o;
	double d;
	memcpy(&d, &b, sizeof(d));
	return d;
}

/*
 * Next pivot inside (lo, hi): 0 when the bracket straddles it (so a
 * cluster of zero slopes is met head-on, not approached forever); the
 * arithmetic midpoint when lo and hi are within a factor 2; otherwise the
 * midpoint of the doubles' ordered bit patterns, which halves the
 * exponent range. Hence at most ~1 + 11 + 53 steps for any bracket.
 */
static double pivot(double lo, double hi)
{
	if (lo < 0 && hi > 0)
		return 0.0;
	bool near = lo > 0 ? hi <= 2 * lo : (hi < 0 && lo >= 2 * hi);
	if (near)
		return lo + (hi - lo) / 2;
	int64_t a = ord_of(lo), b = ord_of(hi);
	return of_ord(a + (b - a) / 2);
}

static void map_init(struct slope_map *m, size_t expect)
{
	size_t cap = 64;
	while (cap < 2 * expect)
		cap *= 2;
	m->cap = cap;
	m->used = 0;
	m->keys = xmalloc(cap * sizeof(*m->keys));
	m->counts = xcalloc(cap, sizeof(*m->counts));
}

static inline size_t map_slot(const struct slope_map *m, uint64_t key)
{
	size_t mask = m->cap - 1;
	size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 17) & mask;
	while (m->counts[h] && m->keys[h] != key)
		h = (h + 1) & mask;
	return h;
}

static void map_add_count(struct slope_map *m, uint64_t key, uint64_t count)
{
	size_t h = map_slot(m, key);
	if (m->counts[h]) {
		m->counts[h] += count;
		return;
	}
	m->keys[h] = key;
	m->counts[h] = count;
	if (++m->used * 2 > m->cap) { /* keep probes short: rehash at 1/2 */
		struct slope_map old = *m;
		map_init(m, old.cap);
		for (size_t i = 0; i < old.cap; i++)
			if (old.counts[i])
				map_add_count(m, old.keys[i], old.counts[i]);
		free(old.keys);
		free(old.counts);
	}
}

static void map_add(struct slope_map *m, double v)
{
	if (v == 0)
		v = 0.0; /* -0 and +0 are one value, as in a sort */
	uint64_t key;
	memcpy(&key, &v, sizeof(key));
	map_add_count(m, key, 1);
}

struct vc {
	double v;
	uint64_t c;
};

static int cmp_vc(const void *a, const void *b)
{
	return cmp_double(&((const struct vc *)a)->v, &((const struct vc *)b)->v);
}

/* Where enumerated slopes go: an array (the usual, bounded case) or,
 * for a bracket swamped by a cluster of equal slopes, a value -> count map
 * whose size is the number of distinct values. */
struct slope_sink {
	double *v;
	size_t n;
	struct slope_map *map;
};

static inline void sink_add(struct slope_sink *sk, double s)
{
	if (sk->map)
		map_add(sk->map, s);
	else
		sk->v[sk->n++] = s;
}

/*
 * Lists every pair whose relative order differs between the key orders at
 * A and at B (the pairs the keys put in (A, B]), as inversions of
 * rank-at-A taken in order-at-B; O(n log n + pairs listed). Each pair's
 * slope is recomputed as the brute force computes it and counted in m.
 */
static void enumerate_between(struct slope_sel *sel, const uint32_t *rank_a,
			      const struct key_rec *order_b, struct slope_sink *m)
{
	size_t n = sel->n;
	struct pt_rec *a = xmalloc(n * sizeof(*a)), *t = xmalloc(n * sizeof(*t));
	for (size_t j = 0; j < n; j++) {
		uint32_t pt = sel->seq[order_b[j].pos];
		a[j] = (struct pt_rec){rank_a[pt], pt};
	}
	for (size_t s = 0; s < n; s += RUN) {
		size_t e = s + RUN < n ? s + RUN : n;
		for (size_t i = s + 1; i < e; i++) {
			struct pt_rec v = a[i];
			size_t j = i;
			while (j > s && v.rank < a[j - 1].rank) {
				sink_add(m, pair_slope(sel->x, sel->y, a[j - 1].pt, v.pt));
				a[j] = a[j - 1];
				j--;
			}
			a[j] = v;
		}
	}
	struct pt_rec *src = a, *dst = t;
	for (size_t w = RUN; w < n; w *= 2) {
		for (size_t s = 0; s < n; s += 2 * w) {
			size_t mid = s + w < n ? s + w : n;
			size_t e = s + 2 * w < n ? s + 2 * w : n;
			size_t i = s, j = mid, o = s;
			while (i < mid && j < e) {
				if (src[j].rank < src[i].rank) {
					for (size_t l = i; l < mid; l++)
						sink_add(m, pair_slope(sel->x, sel->y,
								       src[l].pt, src[j].pt));
					dst[o++] = src[j++];
				} else {
					dst[o++] = src[i++];
				}
			}
			while (i < mid)
				dst[o++] = src[i++];
			while (j < e)
				dst[o++] = src[j++];
		}
		struct pt_rec *tt = src;
		src = dst;
		dst = tt;
	}
	free(a);
	free(t);
}

/* Fallback for data beyond the error analysis (x spanning more than
 * ~1e30 times its smallest step): every slope, then selection. */
static double brute_kth(const struct slope_sel *sel, uint64_t k)
{
	double *s = xmalloc((size_t)sel->npairs * sizeof(*s));
	size_t m = 0;
	for (size_t i = 0; i < sel->n; i++)
		for (size_t j = i + 1; j < sel->n; j++)
			if (sel->x[i] < sel->x[j])
				s[m++] = (sel->y[j] - sel->y[i]) / (sel->x[j] - sel->x[i]);
	double v = select_kth(s, m, (size_t)k);
	free(s);
	return v;
}

/* Enumerating more pairs than this (only ever a bracket swamped by a
 * cluster of nearly equal slopes that no certificate could settle) would
 * take over a second; see final_stage(). */
#define STREAM_MAX_PAIRS (1ull << 27)

/*
 * Exact k-th slope from a bracket (lo, hi] the keys say holds it. The keys
 * carry a rounding error and a computed slope differs from the real
 * quotient by a few ulps, so the set enumerated is (A, B] with a guard G
 * on each side, large enough that everything the keys put below A has a
 * computed slope below any that could be the answer and everything above B
 * one above it (proof in docs/statistics.md). Then slope_k is the
 * (k - count(A))-th smallest computed slope in (A, B]. A bound at exactly
 * 0 needs no guard when the sign of every slope is that of y_j - y_i.
 */
static double final_stage(struct slope_sel *sel, const struct bracket *br,
			  uint64_t k)
{
	if (!(sel->have_memo && sel->memo_lo == br->lo && sel->memo_hi == br->hi)) {
		/* mu(T) = miscl(T) + 2 eps T + TINY bounds how far a slope
		 * the keys place can be from where they place it; it is
		 * affine in T, a + b T. G >= 2 mu(T0 + G), solved for G with
		 * 10 % to spare. */
		double a = miscl(sel, 0) + TINY;
		double b = miscl(sel, 1) - miscl(sel, 0) + 2 * DBL_EPSILON;
		if (!(b < 0.25)) /* x spans > 1e30 of its smallest step */
			return brute_kth(sel, k);
		double t0 = fmax(fabs(br->lo), fabs(br->hi));
		double g = 2.2 * (a + b * t0) / (1 - 2 * b) + TINY;
		double A = nextafter(br->lo - g, -INFINITY);
		double B = nextafter(br->hi + g, INFINITY);
		bool ties_b = true;
		if (br->lo == 0 && sel->zero_exact) {
			A = 0; /* below A: exactly the slopes <= 0 */
		} else if (br->hi == 0 && sel->zero_exact) {
			B = 0; /* below B: exactly the slopes < 0 */
			ties_b = false;
		}
		size_t n = sel->n;
		uint32_t *rank_a = xmalloc(n * sizeof(*rank_a));
		uint64_t c_a = count_at(sel, A, true);
		for (size_t j = 0; j < n; j++)
			rank_a[sel->seq[sel->rec[j].pos]] = (uint32_t)j;
		uint64_t c_b = count_at(sel, B, ties_b);
		/* a pair the keys put below A is below B too (B - A exceeds
		 * twice the misclassification width), so (A, B] holds
		 * exactly c_b - c_a pairs */
		assert(c_b >= c_a);
		uint64_t w = c_b - c_a;
		if (w > STREAM_MAX_PAIRS) {
			/* Only near-collinear data whose differences are not
			 * exact in double (no certificate applies) gets here.
			 * Listing the cluster would cost O(w); settle for the
			 * unguarded bracket, exact unless a slope within a few
			 * ulps of lo or hi is misplaced, and else for hi, which
			 * is then within a few ulps of slope_k. */
			free(rank_a);
			uint64_t c_lo = count_at(sel, br->lo, true);
			uint64_t c_hi = count_at(sel, br->hi, true);
			if (!(c_lo <= k && k < c_hi && c_hi - c_lo <= 4 * sel->limit))
				return br->hi;
			rank_a = xmalloc(n * sizeof(*rank_a));
			count_at(sel, br->lo, true);
			for (size_t j = 0; j < n; j++)
				rank_a[sel->seq[sel->rec[j].pos]] = (uint32_t)j;
			count_at(sel, br->hi, true);
			c_a = c_lo;
			w = c_hi - c_lo;
		}
		struct slope_map map = {0};
		struct slope_sink sink = {NULL, 0, NULL};
		if (w <= 4 * sel->limit) {
			sink.v = xmalloc((size_t)(w ? w : 1) * sizeof(*sink.v));
		} else {
			map_init(&map, (size_t)sel->limit);
			sink.map = &map;
		}
		enumerate_between(sel, rank_a, sel->rec, &sink);
		free(rank_a);

		free(sel->memo_v);
		free(sel->memo_cum);
		sel->memo_v = NULL;
		sel->memo_cum = NULL;
		if (sink.map) {
			struct vc *v = xmalloc((map.used ? map.used : 1) * sizeof(*v));
			size_t nv = 0;
			for (size_t i = 0; i < map.cap; i++)
				if (map.counts[i]) {
					memcpy(&v[nv].v, &map.keys[i], sizeof(double));
					v[nv++].c = map.counts[i];
				}
			free(map.keys);
			free(map.counts);
			qsort(v, nv, sizeof(*v), cmp_vc);
			sel->memo_v = xmalloc((nv ? nv : 1) * sizeof(*sel->memo_v));
			sel->memo_cum = xmalloc((nv ? nv : 1) * sizeof(*sel->memo_cum));
			uint64_t cum = 0;
			for (size_t i = 0; i < nv; i++) {
				cum += v[i].c;
				sel->memo_v[i] = v[i].v;
				sel->memo_cum[i] = cum;
			}
			free(v);
			sel->memo_n = nv;
		} else {
			assert(sink.n == w);
			sel->memo_v = sink.v; /* plain slopes, no counts */
			sel->memo_n = sink.n;
		}
		sel->memo_w = w;
		sel->memo_base = c_a;
		sel->memo_lo = br->lo;
		sel->memo_hi = br->hi;
		sel->have_memo = true;
	}
	if (!(k >= sel->memo_base && k - sel->memo_base < sel->memo_w)) {
		/* the guard puts the rank inside the enumerated set */
		assert(!"slope selection: rank outside the guarded bracket");
		return br->hi;
	}
	uint64_t r = k - sel->memo_base;
	if (!sel->memo_cum)
		return select_kth(sel->memo_v, sel->memo_n, (size_t)r);
	size_t lo = 0, hi = sel->memo_n - 1; /* first i with cum[i] > r */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sel->memo_cum[mid] > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return sel->memo_v[lo];
}

/*
 * A bracket that cannot shrink (lo, hi adjacent doubles) yet holds many
 * pairs is a cluster of (nearly) equal slopes: collinear points. When every
 * difference of the data is exact in double, a computed slope is the
 * correctly rounded real quotient, so it equals v exactly when the real
 * slope lies strictly between the rounding boundaries of v,
 * beta- = v - ulp-/2 and beta+ = v + ulp+/2. Counting with thresholds just
 * inside those boundaries (by more than the misclassification width)
 * gives lt >= #(slope < v) and le <= #(slope <= v); lt <= k < le proves
 * slope_k == v without listing the cluster.
 */
static bool cluster_certificate(struct slope_sel *sel, double v, uint64_t k,
				double *out)
{
	if (v == 0 || !sel->exact_diffs || !sel->range_ok ||
	    !(fabs(v) > 1e-150 && fabs(v) < 1e150))
		return false;
	double up = nextafter(v, INFINITY) - v;  /* exact: a power of 2 */
	double dn = v - nextafter(v, -INFINITY);
	double m = miscl(sel, fabs(v) * 1.01);
	if (!(m < up / 8 && m < dn / 8))
		return false;
	double th = up / 2 - fmax(4 * m, up * 0x1p-30);
	double tl = -(dn / 2 - fmax(4 * m, dn * 0x1p-30));
	uint64_t le = count_at2(sel, v, th, true);
	if (le <= k)
		return false;
	uint64_t lt = count_at2(sel, v, tl, true);
	if (lt > k)
		return false;
	*out = v;
	return true;
}

static double select_rank(struct slope_sel *sel, uint64_t k)
{
	assert(k < sel->npairs);
	if (sel->zero_exact && sel->n_lt0 <= k && k < sel->n_le0)
		return 0.0;
	/* Start from the probes of earlier ranks. hi first, then lo below
	 * it: counts by keys are monotone in t except within the
	 * misclassification width, which near t = 0 can exceed an ulp. */
	struct bracket br = {sel->lo0, sel->hi0, 0, sel->npairs};
	for (size_t i = 0; i < sel->nprobes; i++) {
		const struct probe *p = &sel->probes[i];
		if (p->c > k && p->t < br.hi) {
			br.hi = p->t;
			br.chi = p->c;
		}
	}
	for (size_t i = 0; i < sel->nprobes; i++) {
		const struct probe *p = &sel->probes[i];
		if (p->c <= k && p->t > br.lo && p->t < br.hi) {
			br.lo = p->t;
			br.clo = p->c;
		}
	}
	if (br.chi - br.clo > sel->limit && sel->nsample > 0) {
		/* sample quantiles ~3 standard errors either side of k/N */
		double S = (double)sel->nsample;
		double q = ((double)k + 0.5) / (double)sel->npairs;
		double c = q * S, d = 3 * sqrt(S * q * (1 - q)) + 2;
		double ia = floor(c - d), ib = ceil(c + d);
		double va = ia >= 0 ? sel->sample[(size_t)ia] : NAN;
		double vb = ib < S ? sel->sample[(size_t)ib] : NAN;
		if (!isnan(va))
			narrow(sel, &br, va, k);
		if (!isnan(vb))
			narrow(sel, &br, vb, k);
		/* A value the sample holds several times is a cluster of
		 * equal slopes (pages and a regular sampling interval make
		 * them common). Bisection would close in on it over ~50
		 * steps; probing it and the double below pins it in two. */
		double mode = NAN;
		size_t best = 1;
		for (size_t i = 0, j; i < sel->nsample; i = j) {
			for (j = i + 1; j < sel->nsample && sel->sample[j] == sel->sample[i]; j++)
				;
			if (j - i > best && sel->sample[i] > br.lo && sel->sample[i] <= br.hi) {
				best = j - i;
				mode = sel->sample[i];
			}
		}
		if (best >= 3) {
			narrow(sel, &br, mode, k);
			if (br.hi == mode)
				narrow(sel, &br, nextafter(mode, -INFINITY), k);
		}
	}
	/* Interpolation: near slope_k the count grows almost linearly in t,
	 * so two probes around the interpolated point usually leave a
	 * bracket of ~limit/2 pairs. A miss still narrows the bracket and
	 * widens the next try; after four tries bisection (bounded number of
	 * steps, see pivot()) finishes the job. */
	for (unsigned tries = 0; tries < 4 && br.chi - br.clo > sel->limit; tries++) {
		double width = br.hi - br.lo;
		if (!isfinite(width))
			break;
		double pairs = (double)(br.chi - br.clo);
		double frac = ((double)(k - br.clo) + 0.5) / pairs;
		double hw = 0.25 * (double)sel->limit / pairs * (double)(1u << tries);
		double lo = br.lo;
		if (frac - hw > 0)
			narrow(sel, &br, lo + (frac - hw) * width, k);
		if (frac + hw < 1)
			narrow(sel, &br, lo + (frac + hw) * width, k);
	}
	while (br.chi - br.clo > sel->limit) {
		double t = pivot(br.lo, br.hi);
		if (!(t > br.lo && t < br.hi))
			break; /* adjacent doubles: hi cannot shrink further */
		narrow(sel, &br, t, k);
	}
	double v;
	if (br.chi - br.clo > sel->limit && cluster_certificate(sel, br.hi, k, &v))
		return v;
	return final_stage(sel, &br, k);
}

/* The ks-th pairwise slopes (0-based) of (x, y), for nk ranks. */
static void kth_slopes(const double *x, const double *y, size_t n,
		       uint64_t npairs, const uint64_t *ks, double *out, size_t nk)
{
	if (npairs <= BRUTE_MAX_PAIRS) {
		double *s = xmalloc((size_t)(npairs ? npairs : 1) * sizeof(*s));
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (x[i] < x[j])
					s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
		assert(m == npairs);
		for (size_t i = 0; i < nk; i++)
			out[i] = select_kth(s, m, (size_t)ks[i]);
		free(s);
		return;
	}
	struct slope_sel sel;
	sel_init(&sel, x, y, n, npairs);
	for (size_t i = 0; i < nk; i++)
		out[i] = select_rank(&sel, ks[i]);
	sel_free(&sel);
}

double stats_kth_pairwise_slope(const double *x, const double *y, size_t n,
				uint64_t k)
{
	uint64_t np = stats_pair_count(x, n);
	assert(k < np);
	if (k >= np)
		return NAN;
	double v;
	kth_slopes(x, y, n, np, &k, &v, 1);
	return v;
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

int trend_compute(const double *x, const double *y, size_t n,
		  struct trend_result *out)
{
	return trend_compute_at(x, x, y, n, out);
}

int trend_compute_at(const double *t, const double *x, const double *y,
		     size_t n, struct trend_result *out)
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
	kendall_counts(xs, ys, m, &con, &dis);
	r.mk_s = (double)con - (double)dis;
	struct tie_sums tx = tie_sums_sorted(xs, m);
	struct tie_sums ty = tie_sums_any(ys, m);
	double dn = (double)m, nn1 = dn * (dn - 1);
	/* Kendall's variance of S with ties in both (as scipy.stats.kendalltau);
	 * with distinct x it is (n(n-1)(2n+5) - sum t(t-1)(2t+5)) / 18 */
	r.mk_var_s = (nn1 * (2 * dn + 5) - tx.mk - ty.mk) / 18 +
		     2 * tx.pairs * ty.pairs / nn1 +
		     (m > 2 ? tx.cube * ty.cube / (9 * nn1 * (dn - 2)) : 0);

	/* the slope: median of the pairwise slopes */
	struct slope_sel sel;
	bool brute = np <= BRUTE_MAX_PAIRS;
	double *all = NULL;
	if (brute) {
		all = xmalloc((size_t)np * sizeof(*all));
		size_t c = 0;
		for (size_t i = 0; i < m; i++)
			for (size_t j = i + 1; j < m; j++)
				if (xs[i] < xs[j])
					all[c++] = (ys[j] - ys[i]) / (xs[j] - xs[i]);
		qsort(all, c, sizeof(*all), cmp_double);
	} else {
		sel_init(&sel, xs, ys, m, np);
	}
#define KTH(k) (brute ? all[(k)] : select_rank(&sel, (k)))
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
	if (sigsq >= 0) {
		double sigma = sqrt(sigsq), z = -Z975, nt = (double)np;
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
	if (brute)
		free(all);
	else
		sel_free(&sel);

	/* The interval and test that verdicts use: autocorrelation-aware
	 * (stats_ar.h), centred on the Theil-Sen slope. */
	struct stats_ar_result ar;
	r.ci_low = r.ci_high = NAN;
	r.p_value = 1;
	r.variance_inflation = 1;
	r.ar_phi = r.corr_time = r.se_iid = NAN;
	if (stats_ar_slope_interval(ts, xs, ys, m, r.slope, 0.95, &ar) == 0) {
		r.ci_low = ar.ci_low;
		r.ci_high = ar.ci_high;
		r.p_value = ar.p_value;
		r.variance_inflation = ar.inflation;
		r.ar_phi = ar.phi;
		r.corr_time = ar.corr_time;
		r.se_iid = ar.se_iid;
	}
	/* Mann-Kendall's z, its variance widened as much as the interval */
	if (r.mk_var_s > 0) {
		double s = r.mk_s, cc = s > 0 ? 1 : (s < 0 ? -1 : 0);
		r.mk_z = (s - cc) / sqrt(r.mk_var_s * r.variance_inflation);
	}
	free(xb);
	free(yb);
	free(tb);
	*out = r;
	return 0;
}

/* Used by analysis.c and analysis_gpu.c alike, so it lives below both. */
bool trend_per_hour(const struct trend_result *tr, double *slope_bph,
		    double *ci_low_bph, double *ci_high_bph, double *p_value)
{
	*slope_bph = tr->slope * 3600;
	*ci_low_bph = tr->ci_low * 3600;
	*ci_high_bph = tr->ci_high * 3600;
	*p_value = tr->p_value;
	return tr->p_value < TREND_ALPHA &&
	       (*ci_low_bph > 0 || *ci_high_bph < 0);
}
