/*
 * restarts.c - what each restart gave back (rules and contract in
 * restarts.h).
 *
 * What it does: walks the series once, finds each change of incarnation,
 * reads the old incarnation's last known footprint and the new one's
 * settled floor by the first rule that applies, and sums the recovered
 * memory. What it does not do: decide whether a restart was a crash or a
 * deploy, look at work or connections itself (the idle windows it is
 * given already did), or any I/O.
 *
 * Work: O(n) over the points (each incarnation's run is scanned a bounded
 * number of times) plus one pass over the idle windows, which are in time
 * order like the restarts. The early median copies one incarnation's
 * points at most into a scratch array, freed before the next.
 */
#include "restarts.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "stats.h"

const char *restart_floor_name(enum restart_floor f)
{
	switch (f) {
	case RESTART_FLOOR_IDLE: return "first idle window";
	case RESTART_FLOOR_SETTLED: return "level where the growth flattened";
	case RESTART_FLOOR_WARMUP: return "--warmup";
	case RESTART_FLOOR_FOUND: return "end of its warm-up";
	case RESTART_FLOOR_EARLY_MEDIAN: return "early median";
	case RESTART_FLOOR_MEDIAN: return "median";
	case RESTART_FLOOR_NONE: return "none";
	}
	return "?";
}

static int64_t pid_of(const struct series *s, uint32_t inc)
{
	return inc < s->n_incs ? s->incs[inc].pid : -1;
}

/* Median of the known footprints of points [a, b) with t in [from, to);
 * NAN when there is none. *first_t: t of the first one used. */
static double median_between(const struct series *s, size_t a, size_t b,
			     double from, double to, double *scratch,
			     double *first_t)
{
	size_t k = 0;
	*first_t = NAN;
	for (size_t i = a; i < b; i++) {
		double v = s->footprint[i];
		if (!isfinite(v) || s->t[i] < from || s->t[i] >= to)
			continue;
		if (k == 0)
			*first_t = s->t[i];
		scratch[k++] = v;
	}
	return k ? stats_median_inplace(scratch, k) : NAN;
}

/* How far apart two readings of a settled process may be: 1 % of the
 * level, at least two pages. */
static double settle_tolerance(double level)
{
	return fmax(0.01 * fabs(level), 8192);
}

/* Rule 3 of restarts.h: the first stretch of RESTARTS_SKIP_S whose
 * readings all lie within settle_tolerance() of its first, when the
 * incarnation rose by more than that from its first reading before it. O(b - a) with
 * a running window (min and max rescanned only when the window moves past
 * them: bounded by the stretch's length per point, in practice short). */
static bool settled_stretch(const struct series *s, size_t a, size_t b,
			    struct restart *r)
{
	double first = NAN;
	for (size_t i = a; i < b; i++) {
		double v = s->footprint[i];
		if (!isfinite(v))
			continue;
		if (isnan(first)) {
			first = v;
			continue;
		}

		/* does [t_i, t_i + SKIP] stay within the tolerance of v? */
		double tol = settle_tolerance(v), end = s->t[i] + RESTARTS_SKIP_S;
		size_t j = i + 1;
		bool flat = true;
		for (; j < b && s->t[j] <= end; j++)
			if (isfinite(s->footprint[j]) &&
			    fabs(s->footprint[j] - v) > tol) {
				flat = false;
				break;
			}
		if (flat && j < b) {
			/* the first flattening: a warm-up's end only if the
			 * incarnation rose before it (one that starts at its
			 * level is for the early median) */
			if (!(v - first > settle_tolerance(first)))
				return false;
			/* the level: the median of that stretch */
			double *tmp = xmalloc((j - i) * sizeof(double));
			size_t m = 0;
			for (size_t k = i; k < j; k++)
				if (isfinite(s->footprint[k]))
					tmp[m++] = s->footprint[k];
			r->after = stats_median_inplace(tmp, m);
			free(tmp);
			r->after_time = s->t[i];
			r->floor = RESTART_FLOOR_SETTLED;
			return true;
		}
	}
	return false;
}

/* The settled floor of the incarnation whose points are [a, b). *w is the
 * caller's cursor into the idle windows (time order), advanced past the
 * windows of earlier incarnations. */
static void settled_floor(const struct series *s, size_t a, size_t b,
			  const struct idle_findings *idle, size_t *w,
			  double warmup_s, const struct warmup_finding *wu,
			  struct restart *r)
{
	uint32_t inc = s->inc[a];
	double first = s->t[a];

	/* 1. The first idle window of this incarnation with a footprint. */
	if (idle) {
		while (*w < idle->n && idle->windows[*w].last < a)
			(*w)++;
		for (size_t j = *w; j < idle->n && idle->windows[j].first < b;
		     j++) {
			const struct idle_window *win = &idle->windows[j];
			if (win->inc != inc || !isfinite(win->fp_start))
				continue;
			/* memory that rises while idle is still warming up
			 * (a long start-up without requests): not settled */
			if (isfinite(win->fp_end) &&
			    win->fp_end - win->fp_start >
			    settle_tolerance(win->fp_start))
				continue;
			r->after = win->fp_start;
			r->after_time = win->start;
			r->floor = RESTART_FLOOR_IDLE;
			return;
		}
	}

	/* 2b. The warm-up found in the readings (without --warmup). */
	if (isnan(warmup_s) && wu && wu->source == WARMUP_FOUND &&
	    isfinite(wu->level)) {
		r->after = wu->level;
		r->after_time = wu->end;
		r->floor = RESTART_FLOOR_FOUND;
		return;
	}

	/* 3 (looked for first: it also overrides 2). Where the growth
	 * flattened: the first RESTARTS_SKIP_S-long stretch whose readings
	 * stay within the tolerance, if the incarnation rose before it. */
	struct restart settled = *r;
	bool has_settled = settled_stretch(s, a, b, &settled);

	/* 2. --warmup: the first known footprint once it is over -- unless
	 * memory was still rising then (a warm-up longer than --warmup): the
	 * level where it flattened, later, is the settled one. */
	if (!isnan(warmup_s)) {
		double end = first + (warmup_s > 0 ? warmup_s : 0);
		for (size_t i = a; i < b; i++)
			if (s->t[i] >= end && isfinite(s->footprint[i])) {
				if (has_settled && settled.after_time > s->t[i]) {
					*r = settled;
					return;
				}
				r->after = s->footprint[i];
				r->after_time = s->t[i];
				r->floor = RESTART_FLOOR_WARMUP;
				return;
			}
	}
	if (has_settled) {
		*r = settled;
		return;
	}

	/* 4. The median of the first 10 minutes after the first minute,
	 * else of the whole incarnation. */
	double t0;
	double *scratch = xmalloc((b - a) * sizeof(*scratch));
	double m = median_between(s, a, b, first + RESTARTS_SKIP_S,
				  first + RESTARTS_SKIP_S + RESTARTS_EARLY_S,
				  scratch, &t0);
	if (!isnan(m)) {
		r->after = m;
		r->after_time = t0;
		r->floor = RESTART_FLOOR_EARLY_MEDIAN;
	} else {
		m = median_between(s, a, b, -INFINITY, INFINITY, scratch,
				   &t0);
		r->after = m;
		r->after_time = t0;
		r->floor = isnan(m) ? RESTART_FLOOR_NONE :
				      RESTART_FLOOR_MEDIAN;
	}
	free(scratch);
}

void restarts_find(const struct series *s, const struct idle_findings *idle,
		   double warmup_s, struct restart_findings *out)
{
	restarts_find_warm(s, idle, warmup_s, NULL, out);
}

void restarts_find_warm(const struct series *s,
			const struct idle_findings *idle, double warmup_s,
			const struct warmup_finding *warm,
			struct restart_findings *out)
{
	memset(out, 0, sizeof(*out));
	if (!s->inc || s->n_incs <= 1 || s->n < 2)
		return;
	size_t n_restarts = 0;
	for (size_t i = 1; i < s->n; i++)
		n_restarts += s->inc[i] != s->inc[i - 1];
	if (n_restarts == 0)
		return;
	out->r = xcalloc(n_restarts, sizeof(*out->r));
	size_t w = 0;
	size_t old_a = 0;  /* first point of the old incarnation's run */
	for (size_t a = 1; a < s->n; a++) {
		if (s->inc[a] == s->inc[a - 1])
			continue;
		size_t b = a + 1;   /* the new run is [a, b) */
		while (b < s->n && s->inc[b] == s->inc[a])
			b++;
		struct restart *r = &out->r[out->n++];
		r->index = a;
		r->time = s->t[a];
		r->gap_s = s->t[a] - s->t[a - 1];
		r->old_inc = s->inc[a - 1];
		r->new_inc = s->inc[a];
		r->old_pid = pid_of(s, r->old_inc);
		r->new_pid = pid_of(s, r->new_inc);
		r->before = r->before_time = NAN;
		for (size_t i = a; i-- > old_a;)
			if (isfinite(s->footprint[i])) {
				r->before = s->footprint[i];
				r->before_time = s->t[i];
				break;
			}
		settled_floor(s, a, b, idle, &w, warmup_s,
			      warm ? &warm[r->new_inc] : NULL, r);
		r->floor_rule = restart_floor_name(r->floor);
		r->recovered = r->before - r->after;  /* NAN propagates */
		if (isfinite(r->recovered))
			out->recovered_total += r->recovered;
		old_a = a;
		a = b - 1;  /* the loop's a++ lands on b */
	}
}

void restart_findings_release(struct restart_findings *f)
{
	free(f->r);
	memset(f, 0, sizeof(*f));
}
