/*
 * rank.h - the order in which a report shows its targets, worst first:
 * growing (the earliest exhaustion first), then plateau, then
 * inconclusive, then stable. A pure function of the findings: it computes
 * nothing a verdict depends on and does no I/O. The renderers (text, JSON,
 * HTML) each call it, so the three agree.
 *
 * Within a verdict, in turn:
 *   1. growth that could matter before growth found immaterial
 *      (target_findings.immaterial, docs/verdicts.md "Materiality"): an
 *      inconclusive target whose rise is below anything that matters
 *      comes after every inconclusive one that could still be a leak;
 *   2. growing only: the exhaustion time at the measured slope (the
 *      earliest pool's), soonest first; a growing target without one
 *      (no limit known) after those that have one;
 *   3. the growth relative to the slope of concern (slope / concern),
 *      the largest first; none (no slope, no concern) last: a 40 MiB/h
 *      slope against a 34 MiB/h concern outranks 100 MiB/h against
 *      4 GiB/h;
 *   4. the slope (bytes per hour), the steepest first; none (NAN) last;
 *   5. the last footprint, the largest first; none (NAN) last;
 *   6. the name, by bytes (strcmp); a NULL name as "";
 *   7. the position in the input.
 * So the order is total and the same on every run, whatever the sort.
 */
#ifndef MEMTREND_RANK_H
#define MEMTREND_RANK_H

#include <stddef.h>

#include "analysis.h"

/* The few facts the order rests on (set by rank_key_of(), or by hand in
 * tests). */
struct rank_key {
	enum verdict verdict;
	double eta_s;              /* exhaustion at the measured slope; NAN
				      when none was found */
	double slope_bph;          /* NAN when none */
	double concern_bph;        /* the slope of concern; NAN, 0: none */
	bool immaterial;           /* growth below anything that matters */
	double footprint;          /* last footprint; NAN when none */
	const char *name;          /* borrowed; may be NULL */
	size_t index;              /* position in the input */
};

void rank_key_of(const struct target_findings *f, size_t index,
		 struct rank_key *out);
/* Worse first: < 0 when a comes before b, 0 only for equal keys. */
int rank_compare(const struct rank_key *a, const struct rank_key *b);
/* The class of a verdict in the order: growing 0, plateau 1,
 * inconclusive 2, stable 3. */
int rank_verdict_class(enum verdict v);
/* order[0..n): indices into keys, worst first. O(n log n); order is the
 * caller's, n entries. */
void rank_keys(const struct rank_key *keys, size_t n, size_t *order);
/* The same over findings f[0..n). */
void rank_targets(const struct target_findings *f, size_t n, size_t *order);

/* Which targets share their name with another (two `sleep`s, two
 * processes started through the same wrapper): *out[i] true for each, so
 * that a listing can add the pid. Allocated (n flags); free() it.
 * O(n log n). */
bool *rank_shared_names(const struct target_findings *f, size_t n);

/* The pid of a target's latest incarnation, or -1 (a CSV without pids, a
 * group). */
long rank_target_pid(const struct target_findings *f);

#endif
