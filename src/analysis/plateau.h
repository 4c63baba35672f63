/*
 * plateau.h - growth that stopped: is the series better described as
 * rising and then holding a level than as one line or no change at all?
 * And growth that slows toward a level it has not reached.
 *
 * A plateau is a model choice on the whole window, not a first cut that
 * happens to look flat. Three mean models are fitted by maximum
 * likelihood under the autocorrelated noise of stats_ar.h (each with the
 * correlation that suits it best, so wander is not taken for shape):
 *
 *   flat             y = a
 *   line             y = a + b t
 *   grow then hold   y = a + b min(t, tau)     (tau searched)
 *
 * "Grow then hold" must beat the line by PLATEAU_GAIN_LINE and no change
 * by PLATEAU_GAIN_FLAT in log-likelihood, at its best tau: one decision
 * over the whole search, its thresholds set by the calibration table
 * (docs/statistics.md) so that leaks, drift-free noise and cycles are
 * called plateaus in at most 5 % of windows. The rise must matter: at
 * least twice the resolution and 1 % of the level (a page or two on a
 * quiet series fits the model perfectly and is nothing). Then the level
 * must hold:
 *  - the late part (from tau) is long enough to exclude the slope of
 *    concern: its 95 % interval's upper end lies below it;
 *  - it neither rises nor falls beyond doubt by a tenth of that slope or
 *    more (PLATEAU_NEGLIGIBLE: a drift that small is the level holding,
 *    one that large is growth that slowed);
 *  - memory stays up: no late reading is back below the midpoint between
 *    the start and the level (memory that returns was given back);
 *  - growth slowed beyond doubt under noise of unknown dependence: the
 *    change of slope at the late start (late Theil-Sen slope less the
 *    early one) has a low-frequency interval (stats_lowfreq.h) below
 *    zero. The likelihood contest above assumes one Ornstein-Uhlenbeck
 *    process; quasi-cycles of hours or a slower wander make it read a
 *    trough after a crest as a bend, and a leak under the slope of
 *    concern then passes every other check.
 * The analysis adds one more with a work counter: the late part must have
 * taken requests without growing per request (analysis.c). A candidate
 * that fails one of these says which (plateau_finding.rejected).
 *
 * No I/O. Work: O(n) bucketing to PLATEAU_POINTS medians, then
 * (2 + PLATEAU_TAUS + m / 16) fits of O(m * STATS_AR_FIT_GRID) each (the
 * best bend on a grid, then at every point near it).
 */
#ifndef MEMTREND_PLATEAU_H
#define MEMTREND_PLATEAU_H

#include <stdbool.h>
#include <stddef.h>

#include "slope.h"

#define PLATEAU_POINTS 512
#define PLATEAU_TAUS 37        /* tau at 5 %, 7.5 %, ..., 95 % */
#define PLATEAU_MIN_PART 6
#define PLATEAU_GAIN_LINE 8.0
#define PLATEAU_GAIN_FLAT 12.0
#define PLATEAU_CAP_NEAR 0.05  /* "at cap": within 5 % below it */
#define PLATEAU_NEGLIGIBLE 0.1 /* a late slope below a tenth of the
				  slope of concern counts as holding */
#define PLATEAU_SAT_TAUS 12    /* saturating time constants searched, */
#define PLATEAU_SAT_MIN 0.005  /* log-spaced from 0.5 % */
#define PLATEAU_SAT_MAX 0.25   /* to 25 % of the window */
#define PLATEAU_SAT_REACHED 0.01 /* the level is reached when the curve
				    is within 1 % of the rise of it */
#define PLATEAU_FLAT_RUN 10    /* readings in a run that bounds a slope */

struct analysis_cap {
	const char *name;          /* "cap", or the NAME of --cap NAME=SIZE */
	double bytes;
};

/* Caps known from the source, beside --cap: the cgroup limit and MemTotal
 * (NAN when unknown). They bound host memory: not_counted is the part of
 * the footprint they do not bound (its device-local GPU memory; 0 when
 * none), taken off a level before it is compared with them. */
struct analysis_limits {
	double cgroup_limit, mem_total;
	double not_counted;
};

enum plateau_reject {
	PLATEAU_OK,
	PLATEAU_NO_MODEL,      /* grow-then-hold did not win */
	PLATEAU_SHORT,         /* late part cannot exclude the concern */
	PLATEAU_RISING,        /* late part still rises */
	PLATEAU_FALLING,       /* late part gives memory back */
	PLATEAU_RETURNED,      /* memory went back toward the start */
	PLATEAU_IDLE,          /* flat only while no requests ran */
	PLATEAU_PER_REQUEST,   /* late part still grows per request */
	PLATEAU_NO_BEND,       /* growth did not slow beyond the wander */
};

/* What showed that the level held (plateau_finding.held_by). */
enum plateau_held {
	PLATEAU_HELD_TIME,     /* the late part's interval per hour */
	PLATEAU_HELD_FLAT,     /* readings that did not move at all */
	PLATEAU_HELD_REQUESTS, /* no growth per request (analysis.c) */
};

struct plateau_params {
	double resolution;
	double concern_bph;        /* slope of concern; NAN when unknown */
	const struct analysis_cap *caps;
	size_t n_caps;
	const struct analysis_limits *limits;
};

struct plateau_finding {
	bool found;
	/* the grow-then-hold fit, whenever it won (found or rejected) */
	bool candidate;
	enum plateau_reject rejected;
	double gain_line, gain_flat; /* log-likelihood over line, flat */
	double level;              /* median of the late part, bytes */
	double since;              /* Unix seconds the level was reached */
	bool saturating;           /* the rise is the saturating curve */
	double tau;                /* Unix seconds the fitted rise reached
				      its level: the hinge's bend, or where
				      the saturating curve came within
				      PLATEAU_SAT_REACHED of it */
	double early_slope_bph;    /* the rise over its time, to tau */
	struct slope late;         /* after tau, per hour; p unused (NAN);
				      with held_by FLAT the run's bound */
	enum plateau_held held_by;
	size_t flat_readings;      /* HELD_FLAT: the run's readings */
	double flat_span_s;        /* ... and its span */
	struct slope late_per_req; /* HELD_REQUESTS: bytes per request */
	double late_requests;      /* ... over this many requests */
	double concern_per_req;    /* ... against this concern */
	double cap_bytes;          /* NAN unless at a cap */
	const char *cap_name;      /* NULL unless at a cap */
	/* Growth that slows down but has not stopped: the level it heads
	 * for, estimated from the thirds of the series (found is false);
	 * never below the latest level. */
	bool approaching;
	double approach_level;     /* bytes; NAN unless approaching */
	double approach_early_bph, approach_late_bph;
};

const char *plateau_reject_text(enum plateau_reject r);

void plateau_find(const double *t, const double *y, size_t n,
		  const struct plateau_params *pp,
		  struct plateau_finding *out);
/* Is level at one of the caps (most specific first)? Sets cap_bytes and
 * cap_name of p. */
void plateau_match_cap(struct plateau_finding *p,
		       const struct plateau_params *pp);

#endif
