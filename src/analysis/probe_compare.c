/*
 * probe_compare.c - the findings and the advice of `memtrend probe` from
 * its arms' readings (probe_compare.h). No I/O, no words.
 */
#include "probe_compare.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "common.h"
#include "stats.h"

const char *probe_verdict_name(enum probe_verdict v)
{
	switch (v) {
	case PROBE_VERDICT_NONE: return "skipped";
	case PROBE_VERDICT_GIVES_BACK: return "gives back";
	case PROBE_VERDICT_AT_CAP: return "at cap";
	case PROBE_VERDICT_GROWS: return "grows, kept";
	case PROBE_VERDICT_FLAT: return "flat";
	case PROBE_VERDICT_FAILED: return "failed";
	}
	return "?";
}

const char *probe_role_name(enum probe_role r)
{
	switch (r) {
	case PROBE_ROLE_VARYING: return "varying";
	case PROBE_ROLE_FIXED: return "fixed";
	case PROBE_ROLE_CAPPED: return "capped";
	case PROBE_ROLE_TRIM: return "trim";
	case PROBE_ROLE_ARENA_MAX: return "arena_max";
	case PROBE_ROLE_ALLOCATOR: return "allocator";
	}
	return "?";
}

/* Theil-Sen slope of y over its index (bytes per round). */
static double slope_per_round(const double *y, size_t n)
{
	if (n < 2)
		return 0;
	double *x = xmalloc(n * sizeof(*x));
	for (size_t i = 0; i < n; i++)
		x[i] = (double)i;
	uint64_t pairs = stats_pair_count(x, n);
	double s = stats_kth_pairwise_slope(x, y, n, (pairs - 1) / 2);
	if (pairs % 2 == 0)
		s = (s + stats_kth_pairwise_slope(x, y, n, pairs / 2)) / 2;
	free(x);
	return s;
}

void probe_arm_compare(const struct probe_arm_readings *a,
		       struct probe_arm_finding *out)
{
	*out = (struct probe_arm_finding){NAN, NAN, NAN, NAN, NAN, NAN,
					  PROBE_VERDICT_NONE};
	if (a->failed)
		out->verdict = PROBE_VERDICT_FAILED;
	if (!a->ran || a->n_rounds == 0)
		return;
	out->first = a->rounds[0];
	out->all = a->rounds[a->n_rounds - 1];
	out->idle = a->idle;
	out->peak = a->rounds[0];
	for (size_t i = 1; i < a->n_rounds; i++)
		out->peak = fmax(out->peak, a->rounds[i]);
	out->kept = a->idle - a->baseline;
	/* Round 1 is special under glibc (its first buffers are mmapped
	 * until the first frees raise the mmap threshold): the slope starts
	 * at round 2 when there are enough rounds after it. */
	size_t skip = a->n_rounds >= 3 ? 1 : 0;
	out->slope_per_round = slope_per_round(a->rounds + skip,
					       a->n_rounds - skip);
	if (a->role == PROBE_ROLE_CAPPED && isfinite(a->cap) &&
	    out->kept >= PROBE_CAP_LOW * a->cap &&
	    out->kept <= PROBE_CAP_HIGH * a->cap + PROBE_SLACK)
		out->verdict = PROBE_VERDICT_AT_CAP;
	else if (out->kept <= PROBE_GIVE_BACK_SHARE * a->work + PROBE_SLACK)
		out->verdict = PROBE_VERDICT_GIVES_BACK;
	else if (out->all - out->first >
		 fmax(PROBE_GROW_SHARE * (out->first - a->baseline),
		      PROBE_SLACK))
		out->verdict = PROBE_VERDICT_GROWS;
	else
		out->verdict = PROBE_VERDICT_FLAT;
}

void probe_compare(const struct probe_arm_readings *arms, size_t n,
		   struct probe_arm_finding *out, struct probe_advice *advice)
{
	*advice = (struct probe_advice){PROBE_ADVICE_NONE, n, n, n, n, NAN};
	for (size_t i = 0; i < n; i++) {
		probe_arm_compare(&arms[i], &out[i]);
		if (!arms[i].ran)
			continue;
		if (arms[i].role == PROBE_ROLE_VARYING && advice->varying == n)
			advice->varying = i;
		if (arms[i].role == PROBE_ROLE_FIXED && advice->fixed == n)
			advice->fixed = i;
	}
	if (advice->varying == n)
		return;
	const struct probe_arm_finding *v = &out[advice->varying];
	const struct probe_arm_finding *f = advice->fixed < n ?
					    &out[advice->fixed] : NULL;
	/* Growth over the rounds that one size does not show is the
	 * allocator's (nothing leaks in the arms); so is keeping well more
	 * than one size keeps. */
	bool allocator = false;
	if (v->verdict == PROBE_VERDICT_GROWS)
		allocator = !f || f->verdict != PROBE_VERDICT_GROWS ||
			    v->kept > PROBE_FIXED_FACTOR * f->kept +
				      PROBE_SLACK;
	else if (v->verdict != PROBE_VERDICT_GIVES_BACK && f)
		allocator = v->kept > PROBE_FIXED_FACTOR * f->kept +
				      PROBE_SLACK;
	if (!allocator) {
		advice->kind = PROBE_ADVICE_NOT_ALLOCATOR;
		return;
	}
	advice->kind = PROBE_ADVICE_ALLOCATOR;
	for (size_t i = 0; i < n; i++) {
		enum probe_role r = arms[i].role;
		if (!arms[i].ran || (r != PROBE_ROLE_TRIM &&
				     r != PROBE_ROLE_ARENA_MAX &&
				     r != PROBE_ROLE_ALLOCATOR))
			continue;
		if (advice->best == n || out[i].kept < out[advice->best].kept)
			advice->best = i;
		if (r != PROBE_ROLE_TRIM &&
		    out[i].kept < PROBE_SETTING_GAIN * v->kept &&
		    (advice->best_setting == n ||
		     out[i].kept < out[advice->best_setting].kept))
			advice->best_setting = i;
	}
	if (advice->best < n && out[advice->best].kept > 0)
		advice->kept_ratio = v->kept / out[advice->best].kept;
}
