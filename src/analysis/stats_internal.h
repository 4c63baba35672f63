/*
 * stats_internal.h - what stats.c and stats_slope.c share; no other
 * module includes it (their contract is stats.h).
 *
 * Contracts: both files need IEEE double arithmetic without excess
 * precision and without contracted multiply-adds: results are meant to
 * be scipy's to the bit, and the error-free transformations
 * of slope selection (two_sum, Dekker's split and product) break if a
 * compiler fuses a*b+c into one rounding. ISO modes (-std=c17) already
 * forbid that; GNU modes with FMA hardware would not, hence the pragmas,
 * which apply to the file that includes this header first.
 */
#ifndef MEMTREND_STATS_INTERNAL_H
#define MEMTREND_STATS_INTERNAL_H

#include <float.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if FLT_EVAL_METHOD != 0
#error "stats.c, stats_slope.c need double arithmetic without excess precision"
#endif

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* The inversion count of slope selection takes a popcount per point; on
 * x86-64 without -mpopcnt that is a call into libgcc (a byte table). A
 * clone of the counting function built for the POPCNT instruction is
 * chosen at load time where the CPU has it (GCC/clang target_clones, an
 * ifunc); the arithmetic is the same in both. */
#if defined(__x86_64__) && defined(__has_attribute)
/* not under ASan or TSan: their instrumented resolver would run before
 * the sanitizer's runtime starts (a crash at load) */
#if __has_attribute(target_clones) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__)
#define STATS_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#endif
#endif
#ifndef STATS_POPCNT_CLONES
#define STATS_POPCNT_CLONES
#endif

/* Series with at most this many pairs get their slopes enumerated and
 * sorted outright; slope selection takes over above it. Kept small so
 * that the selection code is what runs (and is tested) on mid-size
 * series. */
#define STATS_BRUTE_MAX_PAIRS 32768u

/* ---- stats.c: order statistics, pair counts ----------------------------- */

/* A value and its index in its array. */
struct val_idx {
	double v;
	size_t i;
};

/* qsort comparison of doubles (no NaN): -1, 0, 1. */
int stats_cmp_double(const void *a, const void *b);
/* qsort comparison of struct val_idx: by value, then by index. */
int stats_cmp_val_idx(const void *a, const void *b);
/* A double's sort key: unsigned integers in the order of the values,
 * -0 and +0 one key (they compare equal). */
static inline uint64_t stats_sort_key(double v)
{
	uint64_t u;
	if (v == 0)
		v = 0.0;
	memcpy(&u, &v, sizeof(u));
	return u >> 63 ? ~u : u | (1ull << 63);
}

/* A sort key and the index of what it sorts. */
struct stats_key_idx {
	uint64_t k;
	uint32_t i;
};

/* Sorts a by key, stably (equal keys keep their order); tmp: n records
 * of scratch; every key below 2^key_bits. Radix sort, O(n) per 11 bits. */
void stats_radix_sort(struct stats_key_idx *a, struct stats_key_idx *tmp,
		      size_t n, int key_bits);

/* Rearranges v so that v[k] holds the k-th smallest value (0-based),
 * smaller or equal ones before it and larger or equal ones after it;
 * returns v[k]. k < n. */
double stats_select_kth(double *v, size_t n, size_t k);
/* Pairs i < j with x_i < x_j (x == NULL: index order) that are
 * concordant (y_j > y_i) and discordant (y_j < y_i). O(n log n). */
void stats_kendall_counts(const double *x, const double *y, size_t n,
			  uint64_t *con, uint64_t *dis);

/* ---- stats_slope.c: slope selection ------------------------------------- */

/* The pairwise slopes (y_j-y_i)/(x_j-x_i), x_i < x_j, of x non-decreasing
 * and y, ready for rank queries: each is the exact double the brute force
 * would hold at that rank. x and y must outlive it. Ranks asked of one
 * selection reuse what the earlier ones narrowed. */
struct stats_slope_sel;
/* npairs: stats_pair_count(x, n), more than 0; con, dis: Kendall's counts
 * of (x, y) (stats_kendall_counts), which the caller has computed. */
struct stats_slope_sel *stats_slope_sel_new(const double *x, const double *y,
					    size_t n, uint64_t npairs,
					    uint64_t con, uint64_t dis);
/* The k-th smallest slope (0-based), k < npairs. */
double stats_slope_sel_rank(struct stats_slope_sel *sel, uint64_t k);
void stats_slope_sel_free(struct stats_slope_sel *sel);

#endif /* MEMTREND_STATS_INTERNAL_H */
