/*
 * restarts.h - what each restart of a target gave back: the old
 * incarnation's last footprint, the new one's settled floor, and the
 * difference ("the restart released 42.3 GiB": 244.51 GiB before, 202.22
 * GiB warm idle after, context.md report 1).
 *
 * A restart is a point i whose incarnation differs from point i - 1's
 * (incarnations are contiguous runs of the series, in time order, so every
 * change of s->inc[] is one restart; a series with n_incs <= 1 has none).
 * For each:
 *  - time     = t of the new incarnation's first sample;
 *  - gap_s    = that time - t of the old incarnation's last sample (the
 *               process was down, or not sampled, in between);
 *  - before   = the old incarnation's last known footprint (NAN if it has
 *               none);
 *  - after    = the new incarnation's settled floor: its footprint once
 *               warm, found by the first rule that applies:
 *      1. "first idle window": fp_start of the first idle window (idle.h)
 *         of the new incarnation with a known fp_start in which memory
 *         did not rise by more than 1 % (at least two pages): a window
 *         that rises is a start-up still running without requests. Idle windows begin
 *         after the warm-up, so this is the footprint of the warm, idle
 *         process. The window may lie long after the restart when the
 *         service got busy at once; it is still the first time it was
 *         seen warm and idle.
 *      2. "--warmup" (warmup_s given, not NAN; < 0 counts as 0): the
 *         footprint at the incarnation's first known point with t >= first
 *         time + warmup_s, unless rule 3 finds the growth flattening
 *         only later (a warm-up longer than --warmup): then rule 3. An
 *         incarnation that ends before warmup_s falls through to rule 3.
 *      2b. "end of its warm-up" (issue 27): without --warmup, when the
 *         new incarnation's warm-up was found (warmup.h), the level its
 *         model reached at the warm-up's end; after_time = that end.
 *      3. "level where the growth flattened": the first reading from
 *         which the next RESTARTS_SKIP_S stay within 1 % of it, when it
 *         lies more than 1 % above the incarnation's first reading; the
 *         level is the median of that stretch (a warm-up longer than
 *         the default start-up or --warmup).
 *      4. "early median": the median of the known footprints with t in
 *         [first + RESTARTS_SKIP_S, first + RESTARTS_SKIP_S +
 *         RESTARTS_EARLY_S) (skip the load, then 10 minutes; a shorter
 *         incarnation uses what it has of that stretch). An incarnation
 *         with no known point there (it lived at most 60 s) uses the median
 *         of all its known footprints: "median".
 *      No known footprint at all: after = NAN, rule "none".
 *  - recovered = before - after: > 0 the restart gave memory back; < 0 the
 *               new process settled higher; NAN when either is unknown.
 * recovered_total sums the known recovered figures (NAN-free; 0 with no
 * restart).
 *
 * Contracts: no I/O; the series and idle findings are read-only. O(n +
 * windows) time; scratch memory for one incarnation's points at a time.
 */
#ifndef MEMTREND_RESTARTS_H
#define MEMTREND_RESTARTS_H

#include <stddef.h>
#include <stdint.h>

#include "idle.h"
#include "series.h"
#include "warmup.h"

#define RESTARTS_SKIP_S 60.0    /* load time skipped by the early median */
#define RESTARTS_EARLY_S 600.0  /* then the median over this long */

enum restart_floor {
	RESTART_FLOOR_IDLE,         /* "first idle window" */
	RESTART_FLOOR_WARMUP,       /* "--warmup" */
	RESTART_FLOOR_FOUND,        /* "end of its warm-up" (rule 2b) */
	RESTART_FLOOR_SETTLED,      /* "level where the growth flattened" */
	RESTART_FLOOR_EARLY_MEDIAN, /* "early median" */
	RESTART_FLOOR_MEDIAN,       /* "median" (short incarnation) */
	RESTART_FLOOR_NONE,         /* "none": no known footprint */
};
/* The rule's name as shown to people ("first idle window", ...). */
const char *restart_floor_name(enum restart_floor f);

struct restart {
	double time;               /* first sample of the new incarnation */
	double gap_s;              /* time - last sample of the old one */
	int64_t old_pid, new_pid;  /* -1 when unknown */
	uint32_t old_inc, new_inc; /* incarnation indices */
	size_t index;              /* point index of the first new sample */
	double before;             /* bytes: old incarnation's last known */
	double before_time;        /* when it was read; NAN with before */
	double after;              /* bytes: the new one's settled floor */
	double after_time;         /* where the floor was read (rules 1, 2:
				      that point; 3: the stretch's first
				      point); NAN with after */
	double recovered;          /* before - after; NAN if either unknown */
	enum restart_floor floor;
	const char *floor_rule;    /* restart_floor_name(floor) */
};

struct restart_findings {
	struct restart *r;         /* owned, time order */
	size_t n;
	double recovered_total;    /* sum of the known recovered figures */
};

/* Fill *out (zeroed first). idle may be NULL (rule 1 never applies);
 * warmup_s NAN = not given. */
void restarts_find(const struct series *s, const struct idle_findings *idle,
		   double warmup_s, struct restart_findings *out);
/* The same with each incarnation's warm-up (warm: s->n_incs of them, by
 * incarnation index; NULL: none found, rule 2b never applies). */
void restarts_find_warm(const struct series *s,
			const struct idle_findings *idle, double warmup_s,
			const struct warmup_finding *warm,
			struct restart_findings *out);
/* Free the restarts; *f is zeroed. */
void restart_findings_release(struct restart_findings *f);

#endif
