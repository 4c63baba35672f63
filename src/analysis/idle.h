/*
 * idle.h - idle windows of one target and where its growth happened: the
 * stretches in which the service did no work, how much memory it gave back
 * in each, and the split of the net footprint change into warm-up, idle
 * and active time ("all net growth happened while requests ran; idle
 * windows released at most 0.2 GiB", context.md report 1).
 *
 * An idle window is a maximal run of consecutive points [a, b] of one
 * incarnation, after that incarnation's warm-up, such that:
 *  - the work array (idle_work_increase() of the requests counter) is
 *    known at every point and the same at a and b (no increase between
 *    any two consecutive points; a missing work point breaks the run:
 *    unknown is not idle -- except a gap between two equal readings of
 *    one incarnation: the counter is cumulative, so no work was done
 *    across it, and a slow scrape in an idle stretch does not split it);
 *  - connections are 0 in >= IDLE_CONN_FRACTION of the points of [a, b]
 *    where they are known (no connections array, or none known in the
 *    window: the work rule alone decides). The run is split at points with
 *    connections > 0; the pieces are merged again, greedily, while the
 *    merged window keeps the fraction, but a run of connected points
 *    lasting IDLE_BRIDGE_MAX_S or longer (first to last connected point)
 *    is never bridged: a connection held that long is a session, not a
 *    stray probe. A window starts and ends at a point with no connection;
 *  - it has at least two points and t[b] - t[a] >= min_s.
 * Warm-up: points with t < warmup_end of their incarnation are never in a
 * window. warmup_end = first time + warmup_s when warmup_s is given, else
 * the warm-up's end as found in the readings (warmup_ends, issue 27), else
 * min(first time + IDLE_DEFAULT_WARMUP_S, time of the incarnation's first
 * work increase), "first time" being the incarnation's first sample. The
 * warm-up end point w of an incarnation is its first point with t >=
 * warmup_end (none: the whole incarnation is warm-up).
 *
 * Growth accounting, per incarnation, from its known footprints: net =
 * last - first; warm-up = footprint at w (first known at or after w) -
 * first; idle = sum over its windows of fp_end - fp_start; active = net -
 * warm-up - idle. The same split is made of time (warm-up: first sample to
 * w; idle: window durations; active: the rest up to the last sample) and of
 * work (work_active: the increase from w to the incarnation's last point).
 * The sums run over incarnations: the step between the last point of one
 * incarnation and the first of the next (a restart) is counted nowhere.
 *
 * Contracts: no I/O; the series is read-only; windows never span a
 * restart. O(n) time; O(n) memory at worst (the windows and, per run of
 * zero work, its pieces), typically far less.
 */
#ifndef MEMTREND_IDLE_H
#define MEMTREND_IDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "series.h"

#define IDLE_CONN_FRACTION 0.98      /* share of points with no connection */
#define IDLE_DEFAULT_MIN_S 60.0      /* --idle-min */
#define IDLE_DEFAULT_WARMUP_S 600.0  /* default warm-up cap (10 min) */
#define IDLE_BRIDGE_MAX_S 60.0       /* connected runs this long split */

struct idle_options {
	double min_s;        /* shortest window, s (--idle-min); < 0 = 0 */
	double warmup_s;     /* --warmup: fixed warm-up from an incarnation's
				first sample, s (< 0 = 0); NAN = default rule */
	double resolution;   /* bytes; the smallest step the readings show
				(for `released`); NAN or <= 0 = none */
	const double *warmup_ends; /* per incarnation index, Unix s: its
				warm-up as found (warmup.h), used when
				warmup_s is NAN; NULL, or NAN for one, = the
				default rule */
};

/* min_s = IDLE_DEFAULT_MIN_S, warmup_s = NAN, resolution = 0,
 * warmup_ends = NULL. */
void idle_options_default(struct idle_options *o);

struct idle_window {
	size_t first, last;  /* point indices a and b */
	uint32_t inc;        /* incarnation */
	double start, end;   /* t[a], t[b] */
	double fp_start;     /* footprint[a], else the first known in [a, b] */
	double fp_end;       /* footprint[b], else the last known in [a, b] */
	double decline;      /* fp_start - fp_end: > 0 = released while idle.
				All three NAN when no footprint is known in
				the window (render as null). */
};

struct idle_findings {
	bool work_known;     /* a work array with a known point was given:
				windows could be looked for */
	struct idle_window *windows; /* owned, time order */
	size_t n;
	double longest_s;    /* 0 when n == 0 */
	double largest_decline;      /* largest known decline (may be < 0);
					NAN when no window has one */
	size_t largest_decline_index; /* into windows; SIZE_MAX with NAN */
	bool released;       /* some window's decline > max(2 * resolution,
				1 % of its fp_start) */
	/* Bytes, summed over incarnations: net = warmup + idle + active. */
	double growth_net, growth_active, growth_idle, growth_warmup;
	/* Seconds spent in each, summed over incarnations. */
	double idle_s, active_s, warmup_s;
	double work_total;   /* increase of the work array over the series
				(last known - first known); 0 without work */
	double work_active;  /* of it, in active time (see above) */
};

/* out[i] = cumulative increase of the raw counter up to point i, handling
 * resets as Prometheus' increase() does (without its extrapolation to the
 * range's edges): a drop counts the new value as the increase since the
 * reset (so a wrap counts from 0, like any reset; a negative new value
 * counts 0). Missing points (NAN or infinite) are gaps: out[i] = NAN there,
 * and the increase across a gap is taken between the last known value
 * before it and the next after it. out[first known] = 0; out is
 * non-decreasing over its known points. raw may be NULL (all gaps).
 * Returns the total increase (0 when fewer than two points are known).
 * O(n). */
double idle_work_increase(const double *raw, size_t n, double *out);

/* Fills *out (zeroed first). work: the output of idle_work_increase()
 * for s->requests (length s->n), or NULL when the series has no work
 * counter (then work_known = false, no windows, and the growth accounting
 * still splits growth_net into warm-up (default rule: the first
 * IDLE_DEFAULT_WARMUP_S of each incarnation) and active). o may be NULL
 * (defaults). O(n) time and memory. */
void idle_findings_compute(const struct series *s, const double *work,
			   const struct idle_options *o,
			   struct idle_findings *out);
/* Free the windows; *f is zeroed. */
void idle_findings_release(struct idle_findings *f);

#endif
