/*
 * attribution.h - how much of a target's footprint growth its own gauges
 * (the server's figures recorded alongside, e.g. prompt-cache bytes)
 * account for, and how much nothing recorded explains ("the prompt cache
 * explains 5.1 GiB of +28.6 GiB: 23.5 GiB unattributed", context.md
 * report 1).
 *
 * The span is the points [lo, hi) of one incarnation (the caller passes
 * the analysed one; a span across a restart would count the restart's drop
 * as negative growth). To leave a start-up load out of the growth, start lo
 * after the warm-up.
 *
 * Levels, not end points: a figure's level at each end of the span is the
 * median of its first (last) e known readings in [lo, hi), where k is the
 * number of known readings and e = max(ATTRIBUTION_EDGE_MIN,
 * ceil(ATTRIBUTION_EDGE_FRACTION * k)), at most floor(k / 2) (so the two
 * ends never share a reading; k = 2 or 3 gives e = 1: plain end points).
 * Growth = end level - start level; it needs k >= 2. One noisy reading at
 * either end moves nothing; a start-up ramp shorter than e / 2 readings
 * does not either.
 *  - footprint growth: from the footprint's known readings (the span's
 *    start and end times are those of its first and last known reading);
 *  - a gauge's explained growth: the same on the gauge's own known
 *    readings in the span. A gauge with gaps is measured between the
 *    readings it has (a gauge that starts late explains only the growth it
 *    saw). The sign is kept: a gauge that shrank explains negative growth
 *    and so leaves more unattributed; nothing is clamped at zero;
 *  - explained_total = the sum over counted gauges; unattributed = growth -
 *    explained_total (negative when the gauges grew more than the
 *    footprint: they overlap, or are not part of it).
 *
 * Which gauges count: only figures in bytes can be summed with bytes, and
 * a series does not carry units. Rule: a gauge counts unless its name says
 * it counts something else: its last '_'-separated word (or the whole
 * name), compared case-insensitively, is one of count, total, states,
 * entries, items, requests, tokens, seconds, ratio, percent, pct
 * ("prompt_states", "cache_entries", "tokens_total" do not count;
 * "prompt_cache", "kv_cache_bytes" do). attribution_find_selected() lets a
 * caller choose instead. Every gauge is listed in the items, counted or
 * not, with the reason when not.
 *
 * found = the footprint growth is known (k >= 2) and at least one gauge
 * counted. No gauges (or none counted): found = false, growth still filled
 * in when known.
 *
 * Contracts: no I/O; the series is read-only; item names point into the
 * series (valid while it lives). O((hi - lo) * (gauges + 1)) time; scratch
 * of O(hi - lo) doubles.
 */
#ifndef MEMTREND_ATTRIBUTION_H
#define MEMTREND_ATTRIBUTION_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"

#define ATTRIBUTION_EDGE_FRACTION 0.05  /* share of readings per end */
#define ATTRIBUTION_EDGE_MIN 3          /* readings per end, at least */

struct attribution_item {
	const char *name;          /* the gauge's name (points into s) */
	size_t gauge;              /* index into s->gauges */
	bool counted;              /* part of explained_total */
	const char *why_not;       /* NULL when counted; else "not bytes by
				      its name", "not selected", "fewer than
				      2 readings in the span" */
	size_t points;             /* known readings in the span */
	double start_level, end_level; /* bytes; NAN under 2 readings */
	double start, end;         /* times of its first and last reading in
				      the span; NAN with none */
	double explained;          /* end_level - start_level; NAN when not
				      known (also when not counted but known:
				      then it is filled in, just not summed) */
};

struct attribution_finding {
	bool found;
	double growth;             /* footprint end level - start level;
				      NAN under 2 known footprints */
	double start_level, end_level;
	double start, end;         /* first and last known footprint times */
	size_t points;             /* known footprints in the span */
	struct attribution_item *items; /* owned; one per gauge, in order */
	size_t n;
	size_t n_counted;
	double explained_total;    /* sum of counted items' explained */
	double unattributed;       /* growth - explained_total; NAN unless
				      found */
};

/* Does the name rule above take this gauge for bytes? */
bool attribution_gauge_is_bytes(const char *name);

/* Fill *out (zeroed first) for points [lo, hi) of s (hi clamped to s->n),
 * counting the gauges the name rule takes for bytes. */
void attribution_find(const struct series *s, size_t lo, size_t hi,
		      struct attribution_finding *out);
/* The same, counting gauge g when use[g] (use has s->n_gauges entries);
 * use NULL = the name rule. */
void attribution_find_selected(const struct series *s, size_t lo, size_t hi,
			       const bool *use,
			       struct attribution_finding *out);
/* Free the items; *f is zeroed. */
void attribution_finding_release(struct attribution_finding *f);

#endif
