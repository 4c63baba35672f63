/*
 * warmup.h - where an incarnation's start-up growth ends, found in its
 * readings rather than assumed (issue 27): a change in slope at the start
 * of a process's life, with its uncertainty.
 *
 * A warm-up is memory that rises fast after a start (a model loaded, caches
 * primed) and then goes on at a slower pace -- flat, or a leak of its own.
 * It is found by a model choice over one incarnation, fitted by maximum
 * likelihood under the autocorrelated noise of stats_ar.h (the same fitter
 * plateau.h uses, so wander is not taken for shape):
 *
 *   line            y = a + b t
 *   warm-up, hinge  y = a + b t + c min(t, tau)          (c > 0)
 *   warm-up, curve  y = a + b t + c (1 - exp(-t / tau))  (c > 0)
 *
 * Unlike plateau.h's "grow then hold" the late slope b is free: a service
 * that warms up and then leaks still has a warm-up. The warm-up model must
 * beat the line by WARMUP_GAIN in log-likelihood (plateau.h's threshold
 * for a bend: PLATEAU_GAIN_LINE), its extra rise c * tau (the hinge) or c
 * (the curve) must be at least max(2 x resolution, WARMUP_MIN_SHARE of the
 * level it reaches) -- a warm-up is a large part of what a process holds,
 * not a wobble -- and it must end in the first WARMUP_MAX_SHARE of the
 * incarnation (a later bend is a plateau's, plateau.h), and memory must stay
 * up after it: a reading back below the midpoint of the rise means the rise
 * was a cycle's (a daily load), not a start-up. The end is the
 * hinge's bend, or where the curve came within WARMUP_REACHED of its rise.
 *
 * A warm-up may come in stages (weights loaded fast, then caches filled
 * more slowly): after the end found, the same search runs on the rest of
 * the incarnation, and a stage found there that passes the same tests and
 * still ends in the first WARMUP_MAX_SHARE of the whole incarnation
 * extends the warm-up (at most WARMUP_STAGES stages). The end, its
 * interval and the level are the last stage's; the rise is the sum.
 *
 * Uncertainty: the profile likelihood over the bend. Every tau whose fit
 * lies within 1.92 (chi-square(1) 95 % / 2) of the best gives an end; the
 * interval [end_low, end_high] spans them (approximate: the noise model is
 * fitted, not known). The settled part of the incarnation is taken from
 * end_high on, so that no residue of the rise is read as the slope.
 *
 * The level: the settled floor the process reached once warm, as read --
 * the median of the first WARMUP_MIN_AFTER (bucketed) readings from
 * end_high on (the model's late line, fitted over hours of later work, can
 * miss where it started). The rise's test uses the model's own value.
 *
 * No I/O; inputs read-only; scratch freed before return. Work: O(n) to
 * bucket to at most WARMUP_POINTS medians, then about WARMUP_HINGE_GRID
 * hinge fits on a grid and 2 x (WARMUP_POINTS x WARMUP_MAX_SHARE /
 * WARMUP_HINGE_GRID) near the best, and WARMUP_CURVES curve fits, each
 * O(m x STATS_AR_FIT_GRID), per stage.
 */
#ifndef MEMTREND_WARMUP_H
#define MEMTREND_WARMUP_H

#include <stdbool.h>
#include <stddef.h>

#define WARMUP_POINTS 512       /* bucket medians the fits run on */
#define WARMUP_GAIN 8.0         /* = PLATEAU_GAIN_LINE */
#define WARMUP_MIN_SHARE 0.05   /* rise >= 5 % of the level reached */
#define WARMUP_MAX_SHARE 0.5    /* ends in the first half of the life */
#define WARMUP_MIN_AFTER 6      /* points after the end */
#define WARMUP_CURVES 16        /* saturating time constants searched */
#define WARMUP_HINGE_GRID 32    /* bends tried first, then near the best */
#define WARMUP_REACHED 0.01     /* the curve's end: within 1 % of rise */
#define WARMUP_PROFILE 1.92     /* chi-square(1) 95 % / 2 */
#define WARMUP_STAGES 4         /* stages of one warm-up looked for */

enum warmup_source {
	WARMUP_NONE,     /* none found, none given */
	WARMUP_FOUND,    /* a change in slope (this file) */
	WARMUP_GIVEN,    /* --warmup */
};

struct warmup_finding {
	enum warmup_source source;
	bool curve;          /* FOUND: the saturating curve won */
	double start;        /* Unix s: the incarnation's first reading */
	double end;          /* Unix s: where start-up growth ends */
	double end_low, end_high; /* FOUND: its ~95 % interval; GIVEN: end */
	double level;        /* FOUND: bytes, the model at end; else NAN */
	double rise;         /* FOUND: bytes, the warm-up's own rise */
	double gain;         /* FOUND: log-likelihood over the line */
	double late_bph;     /* FOUND: the slope after it, per hour */
};

/* Look for a warm-up in the known readings (t, y) of one incarnation, n
 * points in time order (t[0] its first reading). resolution: bytes (<= 0
 * or NAN: none). Fills *out; out->source is WARMUP_NONE when none is
 * found, with end = end_low = end_high = t[0] (or NAN when n == 0). */
void warmup_find(const double *t, const double *y, size_t n,
		 double resolution, struct warmup_finding *out);

#endif
