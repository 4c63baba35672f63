/*
 * counter.h - is a series' work column (s->requests) a counter? A counter
 * only ever rises within one process life; it goes down at a restart,
 * when it starts again from near zero while the footprint drops with it.
 * A work series that goes down more than rarely otherwise is a gauge
 * (requests in flight, a queue length): its increase is no count of work,
 * and a slope per "request" or an idle window read from it means nothing.
 *
 * The check (docs/verdicts.md, "Counters checked"), over every reading of
 * the work series that has a known reading before it in the same
 * incarnation (a "compared" reading; gaps are skipped, never bridged
 * across incarnations):
 *  - a decrease: the reading is lower than the one before;
 *  - a reset: a decrease to at most COUNTER_RESET_NEAR_ZERO of the
 *    reading before while the footprint fell by at least
 *    COUNTER_RESET_FP_DROP between the same two points -- a restart, not
 *    gauge evidence -- provided resets are rare (at most one per
 *    COUNTER_RESET_MIN_READINGS compared readings: a "restart" every few
 *    readings is a gauge's own rhythm with memory following it);
 *  - the series is no counter when its decreases, resets apart, are more
 *    than COUNTER_GAUGE_SHARE of the compared readings and at least
 *    COUNTER_GAUGE_MIN. Then nothing is read as a reset: every decrease
 *    counts, and the share is of all of them.
 *
 * counter_split_restarts() turns the resets of incarnations whose pid is
 * unknown (a CSV without a pid column, a Prometheus series) into
 * incarnation boundaries: a restart splits the series even without pids.
 *
 * Contracts: no I/O; O(n) time, no allocation in the check (the split
 * allocates the new incarnations only).
 */
#ifndef MEMTREND_COUNTER_H
#define MEMTREND_COUNTER_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"

#define COUNTER_RESET_NEAR_ZERO 0.1  /* back to <= 10 % of the reading */
#define COUNTER_RESET_FP_DROP 0.2    /* as the footprint fell >= 20 % */
#define COUNTER_RESET_MIN_READINGS 10 /* at most one reset per 10 */
#define COUNTER_GAUGE_SHARE 0.01     /* > 1 % of readings decrease ... */
#define COUNTER_GAUGE_MIN 3          /* ... and at least 3: a gauge */

struct counter_check {
	bool recorded;             /* the series has a work column */
	size_t readings;           /* compared readings (see above) */
	size_t decreases;          /* of them, lower than the one before,
				      resets apart (all, for a gauge) */
	size_t resets;             /* decreases read as restarts */
	double decreasing_share;   /* decreases / readings; NAN when no
				      reading was compared */
	bool is_counter;           /* true without a work column, or with
				      too few decreases to say otherwise */
};

/* Check s->requests over the whole series. reset_at: NULL, or an array
 * of s->n flags set true at the first reading after each reset (all false
 * when none is read as one). */
void counter_check_run(const struct series *s, struct counter_check *out,
		       bool *reset_at);

/* Split every incarnation whose pid is unknown (< 0) at the resets of a
 * work series that is a counter: the points from a reset on belong to a
 * new incarnation (pid -1, the old one's names, started at the reset's
 * time). Incarnations with a pid are left alone: the pid says where the
 * process changed. Returns the number of splits made. */
size_t counter_split_restarts(struct series *s);

#endif
