/*
 * stats_slope.c - slope selection: the k-th smallest pairwise slope
 * (y_j-y_i)/(x_j-x_i) over pairs with x_i < x_j, for Theil-Sen and Sen's
 * interval (stats.c) and stats_kth_pairwise_slope() (stats.h). Methods,
 * bounds and proofs: docs/statistics.md.
 *
 * How: bisection on the slope value with pair counting by merge-sort
 * inversion counting, O(m log m) per step, from pivots placed by a
 * deterministic sample of pairs; then exact enumeration once the bracket
 * holds few pairs. O(m log m log(range/eps)) overall, O(m) memory. Series
 * with at most STATS_BRUTE_MAX_PAIRS pairs have their slopes enumerated
 * outright.
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
 * (stats_internal.h) and values well inside 1e+-150.
 *
 * What it does not do: I/O, or anything with the slopes beyond ranking
 * them; no state outlives a selection. Input is checked by the callers
 * (finite, x non-decreasing).
 */
#include "stats_internal.h"

#include "stats.h"

#include "common.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Pairs drawn at random to place the first pivots of slope selection. */
#define SAMPLE_PAIRS 16384u

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
	uint32_t *order;       /* the points in key order at t (NULL: the
				  probe at 0, whose count came from Kendall's,
				  until final_unguarded() needs its order) */
};

/* value -> count, open addressing */
struct slope_map {
	uint64_t *keys, *counts;
	size_t cap, used;
};

struct stats_slope_sel {
	const double *x, *y;
	size_t n;
	uint64_t npairs;
	uint64_t limit;        /* pairs a bracket may hold to be enumerated */
	uint32_t *seq;         /* points by (x, y, index): the x order */
	uint32_t *xpos;        /* inverse of seq: each point's x position */
	uint32_t *grp;         /* x group of each point */
	double *xh, *xl;       /* Dekker halves of x */
	struct key_rec *rec, *tmp;
	struct stats_key_idx *kbuf, *ktmp; /* radix sort of the keys */
	uint32_t *fen;         /* Fenwick tree over words of x positions */
	uint64_t *bits;        /* a bit per x position, n / 64 + 1 words */
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
	bool memo_guarded;     /* by final_stage() (else final_unguarded()) */
	double memo_lo, memo_hi;
	uint64_t memo_base;    /* pairs below the enumerated set */
	uint64_t memo_w;       /* pairs in it */
	double *memo_v;        /* its slopes; or, with memo_cum, its
				  distinct slopes ascending */
	uint64_t *memo_cum;    /* pairs up to and including memo_v[i] */
	size_t memo_n;
	size_t memo_last;      /* rank last selected in memo_v (SIZE_MAX:
				  none): the array is partitioned there */
};

/* The exponent of the lowest set bit of a finite, non-zero double: from
 * its bits (what frexp and ldexp of the significand would give, without
 * the calls). Subnormals have no implicit bit and exponent -1074. */
static inline int low_bit(double v)
{
	uint64_t b;
	memcpy(&b, &v, sizeof(b));
	int e = (int)((b >> 52) & 0x7ff);
	uint64_t mant = b & ((1ull << 52) - 1);
	if (e == 0)
		return -1074 + __builtin_ctzll(mant);
	return e - 1075 + __builtin_ctzll(mant | (1ull << 52));
}

/* Every pairwise difference of v is a double (no rounding): all values
 * are multiples of 2^low and below 2^(low+52) in magnitude. */
static bool diffs_exact(const double *v, size_t n)
{
	int low = INT_MAX;
	double amax = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i] == 0)
			continue;
		int lb = low_bit(v[i]);
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
static void build_keys(struct stats_slope_sel *sel, double t, double t2)
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

/*
 * Sorts sel->rec (built by build_keys, in x order) by rec_less and returns
 * its inversions, as sort_count() does, faster. The keys' high parts are
 * mapped to integers in their order (stats_sort_key) and cut to their top
 * 22 bits above the smallest: a monotone key, so a radix sort on it (two
 * passes of 11 bits) leaves the records in order but for runs of equal cut keys,
 * which are then put in rec_less order (a total order: positions differ,
 * so the result is the one sort_count() gives). Then the inversions of
 * the x positions in that order, by a Fenwick tree.
 */
STATS_POPCNT_CLONES
static uint64_t sort_count_fast(struct stats_slope_sel *sel, bool ties_below)
{
	size_t n = sel->n;
	struct key_rec *rec = sel->rec, *out = sel->tmp;
	struct stats_key_idx *ki = sel->kbuf;
	uint64_t kmin = UINT64_MAX, kmax = 0;
	for (size_t p = 0; p < n; p++) {
		uint64_t k = stats_sort_key(rec[p].hi);
		ki[p] = (struct stats_key_idx){k, (uint32_t)p};
		kmin = k < kmin ? k : kmin;
		kmax = k > kmax ? k : kmax;
	}
	uint64_t range = kmax - kmin;
	int bits = range ? 64 - __builtin_clzll(range) : 0;
	int shift = bits > 22 ? bits - 22 : 0;
	for (size_t p = 0; p < n; p++)
		ki[p].k = (ki[p].k - kmin) >> shift;
	stats_radix_sort(ki, sel->ktmp, n, 22);
	for (size_t j = 0; j < n; j++)
		out[j] = rec[ki[j].i];
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		while (j < n && ki[j].k == ki[i].k)
			j++;
		if (j - i > RUN) {
			sort_count(out + i, rec, j - i, ties_below);
		} else {
			for (size_t a = i + 1; a < j; a++) {
				struct key_rec v = out[a];
				size_t b = a;
				for (; b > i && rec_less(&v, &out[b - 1], ties_below); b--)
					out[b] = out[b - 1];
				out[b] = v;
			}
		}
		i = j;
	}
	sel->rec = out;
	sel->tmp = rec;
	/* inversions: for each point, the earlier ones in key order that
	 * come later in x order. Two levels: a bit per x position in words
	 * of 64 (the earlier points of the same word by a popcount), and a
	 * Fenwick tree over the words (a 64th of the height of one over
	 * the points; measured 16 % faster than that, and faster than a
	 * merge count) */
	size_t nw = n / 64 + 1;
	uint32_t *fen = sel->fen;
	uint64_t *pbits = sel->bits;
	memset(fen, 0, (nw + 1) * sizeof(*fen));
	memset(pbits, 0, nw * sizeof(*pbits));
	uint64_t inv = 0;
	for (size_t j = 0; j < n; j++) {
		uint32_t p = out[j].pos, w = p >> 6;
		uint32_t less = (uint32_t)__builtin_popcountll(
			pbits[w] & ((1ull << (p & 63)) - 1));
		for (uint32_t r = w; r > 0; r &= r - 1)
			less += fen[r];
		inv += j - less;
		pbits[w] |= 1ull << (p & 63);
		for (size_t u = (size_t)w + 1; u <= nw; u += u & (~u + 1))
			fen[u]++;
	}
	return inv;
}

static struct probe *nearest_ordered(struct stats_slope_sel *sel, double t);
static double sample_between(const struct stats_slope_sel *sel, double a,
			     double b);

/*
 * The same as sort_count_fast(), from the key order of a probe at a
 * nearby t: sel->rec put in that order, then sorted by insertion, each
 * move of a record past its neighbour changing the inversions by one
 * (+1 when the pair was in x order, -1 when it was not); so the count is
 * exact whatever the rounding of either set of keys. O(n + moves), the
 * moves being the pairs whose order differs between the two (about the
 * pairs with slopes in between). Gives up (false, sel->rec untouched)
 * after `budget` moves.
 */
static bool sort_count_from(struct stats_slope_sel *sel,
			    const struct probe *from, bool ties_below,
			    uint64_t budget, uint64_t *count)
{
	size_t n = sel->n;
	struct key_rec *rec = sel->rec, *out = sel->tmp;
	for (size_t j = 0; j < n; j++)
		out[j] = rec[sel->xpos[from->order[j]]];
	int64_t delta = 0;
	uint64_t moves = 0;
	for (size_t i = 1; i < n; i++) {
		struct key_rec v = out[i];
		size_t j = i;
		while (j > 0 && rec_less(&v, &out[j - 1], ties_below)) {
			delta += out[j - 1].pos < v.pos ? 1 : -1;
			out[j] = out[j - 1];
			j--;
			moves++;
		}
		out[j] = v;
		if (moves > budget)
			return false;
	}
	assert((int64_t)from->c + delta >= 0);
	sel->rec = out;
	sel->tmp = rec;
	*count = (uint64_t)((int64_t)from->c + delta);
	return true;
}

/* Pairs the keys put at or below t (ties_below) or strictly below it,
 * i.e. inversions of the x order under the key order at t. From the
 * nearest probe's order when few pairs lie between (by the sample),
 * else by a radix sort. */
static uint64_t count_at2(struct stats_slope_sel *sel, double t, double t2,
			  bool ties_below)
{
	build_keys(sel, t, t2);
	struct probe *near = nearest_ordered(sel, t);
	uint64_t budget = 6 * (uint64_t)sel->n + 1024, c;
	if (near && sample_between(sel, near->t, t) <= (double)budget / 2 &&
	    sort_count_from(sel, near, ties_below, budget, &c))
		return c;
	return sort_count_fast(sel, ties_below);
}

static uint64_t count_at(struct stats_slope_sel *sel, double t, bool ties_below)
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

static double miscl(const struct stats_slope_sel *sel, double T)
{
	const double eps = DBL_EPSILON;
	double kerr = 4 * eps * eps * (sel->ymax + T * sel->xmax) + TINY;
	return 2 * kerr / sel->dx_min + TINY;
}

/* The probe nearest t that has a key order, or NULL. */
static struct probe *nearest_ordered(struct stats_slope_sel *sel, double t)
{
	struct probe *best = NULL;
	double bd = INFINITY;
	for (size_t i = 0; i < sel->nprobes; i++) {
		struct probe *p = &sel->probes[i];
		double d = fabs(p->t - t);
		if (p->order && d < bd) {
			bd = d;
			best = p;
		}
	}
	return best;
}

/* About how many pairs have slopes between a and b, by the sample
 * (INFINITY without one). */
static double sample_between(const struct stats_slope_sel *sel, double a,
			     double b)
{
	if (!sel->nsample)
		return INFINITY;
	if (a > b) {
		double t = a;
		a = b;
		b = t;
	}
	/* first index with sample > a, and with sample > b */
	size_t lo = 0, hi = sel->nsample;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sel->sample[mid] > a)
			hi = mid;
		else
			lo = mid + 1;
	}
	size_t ia = lo;
	lo = ia;
	hi = sel->nsample;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sel->sample[mid] > b)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* one more than seen: a sample can miss a few pairs */
	return (double)(lo - ia + 1) * (double)sel->npairs /
	       (double)sel->nsample;
}

/* The points in the key order count_at() just left in sel->rec. */
static uint32_t *order_now(const struct stats_slope_sel *sel)
{
	uint32_t *o = xmalloc(sel->n * sizeof(*o));
	for (size_t j = 0; j < sel->n; j++)
		o[j] = sel->seq[sel->rec[j].pos];
	return o;
}

/* order: NULL, or the key order at t (owned by the selection from now). */
static void add_probe(struct stats_slope_sel *sel, double t, uint64_t c,
		      uint32_t *order)
{
	xgrow((void **)&sel->probes, &sel->probes_cap, sel->nprobes + 1,
	      sizeof(*sel->probes));
	sel->probes[sel->nprobes++] = (struct probe){t, c, order};
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

/* kc: Kendall's concordant and discordant counts of (x, y), when the
 * caller has them (stats_kendall_counts), else NULL. */
static void sel_init(struct stats_slope_sel *sel, const double *x,
		     const double *y, size_t n, uint64_t npairs,
		     const uint64_t *kc)
{
	memset(sel, 0, sizeof(*sel));
	assert(n < UINT32_MAX);
	sel->x = x;
	sel->y = y;
	sel->n = n;
	sel->npairs = npairs;
	sel->limit = 2 * (uint64_t)n > 32768 ? 2 * (uint64_t)n : 32768;
	sel->seq = xmalloc(n * sizeof(*sel->seq));
	sel->xpos = xmalloc(n * sizeof(*sel->xpos));
	sel->grp = xmalloc(n * sizeof(*sel->grp));
	sel->xh = xmalloc(n * sizeof(*sel->xh));
	sel->xl = xmalloc(n * sizeof(*sel->xl));
	sel->rec = xmalloc(n * sizeof(*sel->rec));
	sel->tmp = xmalloc(n * sizeof(*sel->tmp));
	sel->kbuf = xmalloc(n * sizeof(*sel->kbuf));
	sel->ktmp = xmalloc(n * sizeof(*sel->ktmp));
	sel->fen = xmalloc((n / 64 + 2) * sizeof(*sel->fen));
	sel->bits = xmalloc((n / 64 + 1) * sizeof(*sel->bits));

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
			qsort(run, j - i, sizeof(*run), stats_cmp_val_idx);
			for (size_t g2 = i; g2 < j; g2++)
				sel->seq[g2] = (uint32_t)run[g2 - i].i;
			free(run);
		}
		i = j;
	}
	for (size_t p = 0; p < n; p++)
		sel->xpos[sel->seq[p]] = (uint32_t)p;
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
	if (kc) {
		con = kc[0];
		dis = kc[1];
	} else {
		stats_kendall_counts(x, y, n, &con, &dis);
	}
	sel->n_lt0 = dis;
	sel->n_le0 = npairs - con;
	double span = (x[n - 1] - x[0]) * (1 + 2 * DBL_EPSILON);
	int ylow_e = INT_MAX;
	for (size_t i = 0; i < n; i++)
		if (y[i] != 0 && low_bit(y[i]) < ylow_e)
			ylow_e = low_bit(y[i]);
	/* the smallest of the powers of two is the one of the least
	 * exponent, exact in double */
	double ylow = ylow_e == INT_MAX ? INFINITY : ldexp(1.0, ylow_e);
	sel->zero_exact = ylow == INFINITY || ylow / span > 4 * DBL_MIN;
	/* keys at t = 0 are y itself, so this is also the count a probe
	 * at 0 would return */
	add_probe(sel, 0.0, sel->n_le0, NULL);

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
		stats_sort_doubles(sel->sample, sel->nsample);
	}
}

static void sel_free(struct stats_slope_sel *sel)
{
	free(sel->seq);
	free(sel->xpos);
	free(sel->grp);
	free(sel->xh);
	free(sel->xl);
	free(sel->rec);
	free(sel->tmp);
	free(sel->kbuf);
	free(sel->ktmp);
	free(sel->fen);
	free(sel->bits);
	for (size_t i = 0; i < sel->nprobes; i++)
		free(sel->probes[i].order);
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

static void narrow(struct stats_slope_sel *sel, struct bracket *br, double t,
		   uint64_t k)
{
	if (!(t > br->lo && t < br->hi))
		return;
	uint64_t c = count_at(sel, t, true);
	add_probe(sel, t, c, order_now(sel));
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
	return stats_cmp_double(&((const struct vc *)a)->v,
				&((const struct vc *)b)->v);
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
 * Lists every pair whose relative order differs between two key orders
 * (at A and at B: the pairs the keys put in (A, B]), as the inversions of
 * rank-at-A taken in order-at-B: an insertion sort, one move per pair
 * listed, so O(n + pairs listed). Each pair's slope is recomputed as the
 * brute force computes it and added to the sink. Stops after `cap` pairs
 * and returns how many it listed (more than cap: it stopped).
 */
static uint64_t list_between(const struct stats_slope_sel *sel,
			     const uint32_t *rank_a, const uint32_t *order_b,
			     struct slope_sink *m, uint64_t cap)
{
	size_t n = sel->n;
	struct pt_rec *a = xmalloc(n * sizeof(*a));
	for (size_t j = 0; j < n; j++)
		a[j] = (struct pt_rec){rank_a[order_b[j]], order_b[j]};
	uint64_t listed = 0;
	for (size_t i = 1; i < n && listed <= cap; i++) {
		struct pt_rec v = a[i];
		size_t j = i;
		while (j > 0 && v.rank < a[j - 1].rank) {
			if (++listed > cap)
				break;
			sink_add(m, pair_slope(sel->x, sel->y, a[j - 1].pt, v.pt));
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
	free(a);
	return listed;
}

/* Fallback for data beyond the error analysis (x spanning more than
 * ~1e30 times its smallest step): every slope, then selection. */
static double brute_kth(const struct stats_slope_sel *sel, uint64_t k)
{
	double *s = xmalloc((size_t)sel->npairs * sizeof(*s));
	size_t m = 0;
	for (size_t i = 0; i < sel->n; i++)
		for (size_t j = i + 1; j < sel->n; j++)
			if (sel->x[i] < sel->x[j])
				s[m++] = (sel->y[j] - sel->y[i]) / (sel->x[j] - sel->x[i]);
	double v = stats_select_kth(s, m, (size_t)k);
	free(s);
	return v;
}

/* The r-th smallest of the memo's plain slopes. After a selection at q
 * the array holds the q-th there, the ones at or below it before it and
 * the ones at or above it after it; so rank q + 1 (the median's upper
 * half after its lower) is the smallest after q, one scan. */
static double memo_select(struct stats_slope_sel *sel, size_t r)
{
	double *v = sel->memo_v;
	if (sel->memo_last != SIZE_MAX && r == sel->memo_last + 1 &&
	    r < sel->memo_n) {
		size_t at = r;
		for (size_t i = r + 1; i < sel->memo_n; i++)
			if (v[i] < v[at])
				at = i;
		double t = v[r];
		v[r] = v[at];
		v[at] = t;
		sel->memo_last = r;
		return v[r];
	}
	double x = stats_select_kth(v, sel->memo_n, r);
	sel->memo_last = r;
	return x;
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
static double final_stage(struct stats_slope_sel *sel, const struct bracket *br,
			  uint64_t k)
{
	if (!(sel->have_memo && sel->memo_guarded && sel->memo_lo == br->lo &&
	      sel->memo_hi == br->hi)) {
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
		uint32_t *order_b = order_now(sel);
		uint64_t listed = list_between(sel, rank_a, order_b, &sink,
					       UINT64_MAX);
		(void)listed;
		assert(listed == w);
		free(order_b);
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
			sel->memo_last = SIZE_MAX;
		}
		sel->memo_w = w;
		sel->memo_base = c_a;
		sel->memo_lo = br->lo;
		sel->memo_hi = br->hi;
		sel->have_memo = true;
		sel->memo_guarded = true;
	}
	if (!(k >= sel->memo_base && k - sel->memo_base < sel->memo_w)) {
		/* the guard puts the rank inside the enumerated set */
		assert(!"slope selection: rank outside the guarded bracket");
		return br->hi;
	}
	uint64_t r = k - sel->memo_base;
	if (!sel->memo_cum)
		return memo_select(sel, (size_t)r);
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

/* The probe at t with count c, or NULL. */
static struct probe *probe_at(struct stats_slope_sel *sel, double t, uint64_t c)
{
	for (size_t i = 0; i < sel->nprobes; i++)
		if (sel->probes[i].t == t && sel->probes[i].c == c)
			return &sel->probes[i];
	return NULL;
}

/*
 * The k-th slope from a bracket (lo, hi] whose ends are probes, with no
 * further counting: the pairs listed are those between the probes' own
 * key orders (unguarded), and the answer is accepted only where the
 * rounding bounds prove it (docs/statistics.md, "Exact answer"): every
 * pair the keys put at or below lo has a computed slope <= lo + mu, every
 * pair above hi one > hi - mu; so when the (k - clo)-th smallest listed
 * slope v has lo + mu < v < hi - mu, the listed set holds everything that
 * can sit at rank k and v is slope_k. An end at 0 needs no margin when the
 * signs of slopes are those of the differences in y (zero_exact). The
 * listing must also hold exactly chi - clo pairs: a pair the keys put
 * below lo but above hi (possible only within the misclassification
 * width) would be listed without being counted. Returns false when any
 * of that fails: final_stage() then counts with guards.
 */
static bool final_unguarded(struct stats_slope_sel *sel,
			    const struct bracket *br, uint64_t k, double *out)
{
	double a = miscl(sel, 0) + TINY;
	double b = miscl(sel, 1) - miscl(sel, 0) + 2 * DBL_EPSILON;
	if (!(b < 0.25))
		return false;
	bool memo = sel->have_memo && !sel->memo_guarded &&
		    sel->memo_lo == br->lo && sel->memo_hi == br->hi;
	if (!memo) {
		uint64_t w = br->chi - br->clo;
		if (w > sel->limit)
			return false;
		struct probe *plo = probe_at(sel, br->lo, br->clo);
		struct probe *phi = probe_at(sel, br->hi, br->chi);
		if (!plo || !phi)
			return false;
		struct probe *pz = !plo->order ? plo : (!phi->order ? phi : NULL);
		if (pz) {
			/* the probe at 0: its key order (keys are y itself) */
			if (pz->t != 0 || count_at(sel, 0.0, true) != pz->c)
				return false;
			pz->order = order_now(sel);
		}
		size_t n = sel->n;
		uint32_t *rank_a = xmalloc(n * sizeof(*rank_a));
		for (size_t j = 0; j < n; j++)
			rank_a[plo->order[j]] = (uint32_t)j;
		struct slope_sink sink = {NULL, 0, NULL};
		sink.v = xmalloc((size_t)(w ? w : 1) * sizeof(*sink.v));
		uint64_t listed = list_between(sel, rank_a, phi->order, &sink, w);
		free(rank_a);
		if (listed != w) {
			free(sink.v);
			return false;
		}
		free(sel->memo_v);
		free(sel->memo_cum);
		sel->memo_v = sink.v;
		sel->memo_cum = NULL;
		sel->memo_n = sink.n;
		sel->memo_last = SIZE_MAX;
		sel->memo_w = w;
		sel->memo_base = br->clo;
		sel->memo_lo = br->lo;
		sel->memo_hi = br->hi;
		sel->have_memo = true;
		sel->memo_guarded = false;
	}
	if (!(k >= sel->memo_base && k - sel->memo_base < sel->memo_w))
		return false;
	double v = memo_select(sel, (size_t)(k - sel->memo_base));
	/* mu(T0) with a quarter to spare, and the sums rounded outwards */
	double t0 = fmax(fabs(br->lo), fabs(br->hi));
	double mu = 1.25 * (a + b * t0) + TINY;
	bool lo_ok = (br->lo == 0 && sel->zero_exact) ||
		     v > nextafter(br->lo + mu, INFINITY);
	bool hi_ok = (br->hi == 0 && sel->zero_exact) ||
		     v < nextafter(br->hi - mu, -INFINITY);
	if (!(lo_ok && hi_ok))
		return false;
	*out = v;
	return true;
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
static bool cluster_certificate(struct stats_slope_sel *sel, double v,
				uint64_t k, double *out)
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

static double select_rank(struct stats_slope_sel *sel, uint64_t k)
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
	 * bracket of ~limit/32 pairs (a tight one: listing the bracket,
	 * selecting in it and the insertion pass of the second probe cost
	 * in proportion; the interpolation is typically off by a few dozen
	 * pairs). A miss still narrows the
	 * bracket and widens the next try; after four tries bisection (bounded number of
	 * steps, see pivot()) finishes the job. */
	for (unsigned tries = 0; tries < 4 && br.chi - br.clo > sel->limit; tries++) {
		double width = br.hi - br.lo;
		if (!isfinite(width))
			break;
		double pairs = (double)(br.chi - br.clo);
		double frac = ((double)(k - br.clo) + 0.5) / pairs;
		double hw = 0.015625 * (double)sel->limit / pairs * (double)(1u << tries);
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
	if (final_unguarded(sel, &br, k, &v))
		return v;
	return final_stage(sel, &br, k);
}

/* The ks-th pairwise slopes (0-based) of (x, y), for nk ranks. */
static void kth_slopes(const double *x, const double *y, size_t n,
		       uint64_t npairs, const uint64_t *ks, double *out, size_t nk)
{
	if (npairs <= STATS_BRUTE_MAX_PAIRS) {
		double *s = xmalloc((size_t)(npairs ? npairs : 1) * sizeof(*s));
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t j = i + 1; j < n; j++)
				if (x[i] < x[j])
					s[m++] = (y[j] - y[i]) / (x[j] - x[i]);
		assert(m == npairs);
		for (size_t i = 0; i < nk; i++)
			out[i] = stats_select_kth(s, m, (size_t)ks[i]);
		free(s);
		return;
	}
	struct stats_slope_sel sel;
	sel_init(&sel, x, y, n, npairs, NULL);
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

double stats_theil_sen_slope(const double *x, const double *y, size_t n)
{
	uint64_t np = stats_pair_count(x, n);
	if (np == 0)
		return NAN;
	/* the median: the middle rank, or the mean of the middle two */
	uint64_t ks[2] = {np / 2, 0};
	size_t nk = 1;
	if (np % 2 == 0) {
		ks[0] = np / 2 - 1;
		ks[1] = np / 2;
		nk = 2;
	}
	double v[2];
	kth_slopes(x, y, n, np, ks, v, nk);
	return nk == 2 ? (v[0] + v[1]) / 2 : v[0];
}

struct stats_slope_sel *stats_slope_sel_new(const double *x, const double *y,
					    size_t n, uint64_t npairs,
					    uint64_t con, uint64_t dis)
{
	struct stats_slope_sel *sel = xmalloc(sizeof(*sel));
	uint64_t kc[2] = {con, dis};
	sel_init(sel, x, y, n, npairs, kc);
	return sel;
}

double stats_slope_sel_rank(struct stats_slope_sel *sel, uint64_t k)
{
	return select_rank(sel, k);
}

void stats_slope_sel_free(struct stats_slope_sel *sel)
{
	if (!sel)
		return;
	sel_free(sel);
	free(sel);
}
