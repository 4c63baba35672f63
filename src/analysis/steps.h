/*
 * steps.h - step changes in one incarnation's footprint: the staircase of
 * a service that climbs in jumps and holds each level ("202 -> 208 -> 217
 * -> 239 GiB across sessions", context.md report 1), as a list of steps
 * with their time, the level before and after, and the change.
 *
 * What a step is. A step is a discontinuity in the level: just before it
 * the series runs along one line, just after it along another, and the two
 * lines are apart at the boundary by the step's change. Growth spread out
 * evenly (a leak's ramp, a cache filling towards its cap) is continuous at
 * every point, so it yields no step however much it grows: a linear ramp,
 * read finely or in whole-GB readings, gives none (the trend and plateau
 * analyses describe it). A jump on top of a ramp is still a step, of the
 * jump's size. A rise that takes a while counts as a step at the scale
 * where it looks abrupt: the series is examined at several time scales
 * (below), and a rise is seen as a step at a scale where it takes no more
 * than a bucket or two while the levels around it hold for at least
 * STEPS_MIN_SEG buckets each. A steady ramp is never such a thing; a rise
 * during an hour of work between long idle plateaus is.
 *
 * Method, at each scale:
 *  1. The points, missing ones dropped, are reduced to m <= STEPS_BUCKETS
 *     bucket medians (stats_bucket_medians); coarser scales take the
 *     previous scale's medians in groups of STEPS_SCALE_FACTOR, while at
 *     least STEPS_MIN_SCALE_POINTS remain.
 *  2. Noise: sigma = 1.4826 * MAD(first differences) / sqrt(2), robust to
 *     the steps themselves and to any constant slope (the MAD is taken
 *     about the median difference). When more than half the differences
 *     are equal (MAD 0: coarse readings), the mean absolute deviation
 *     stands in (times 1.2533).
 *  3. Smallest change that can count: min_change = max(STEPS_MIN_SIGMAS *
 *     sigma, 2 * resolution, STEPS_MIN_FRACTION * |median level|). Twice
 *     the resolution keeps one reading quantum (whole-GB readings of a
 *     slow ramp are a staircase of 1 GB stairs) from counting; 1 % of the
 *     level keeps page-sized wobbles of a large process out.
 *  4. Binary segmentation into lines: split the segment where one line
 *     fits worst against two separate lines (largest drop in the sum of
 *     squared residuals), as long as the drop exceeds the BIC-like penalty
 *     STEPS_PENALTY * sigma^2 * ln(m) (three parameters per split: where,
 *     and the second line's level and slope), every segment keeps at least
 *     STEPS_MIN_SEG points and there are at most STEPS_MAX_SEGMENTS.
 *  5. Each boundary between neighbouring segments A and B: least-squares
 *     lines on each, leaving out the one point next to the boundary on
 *     either side (while 3 remain: a bucket that straddles a step has a
 *     median anywhere between the two levels), both evaluated midway
 *     between A's last and B's first point: before = A's line there,
 *     after = B's, change = after - before. It is a step when
 *       - |change| >= min_change,
 *       - |change| >= STEPS_Z * its standard error, from the two fits with
 *         each line's residual scale (at least sigma: a line that fits a
 *         curve badly earns no confidence),
 *       - the points themselves jump there the same way: the median of
 *         the STEPS_MIN_SEG points after the boundary minus that of the
 *         STEPS_MIN_SEG before has the change's sign and at least
 *         STEPS_LOCAL_FRACTION of its size (so two lines that merely
 *         extrapolate apart across a bend are no step),
 *       - the new level holds: over STEPS_HOLD points on either side
 *         the medians still differ by at least STEPS_LOCAL_FRACTION of
 *         the change, the same way, and that difference stands out
 *         among the same differences taken at the positions around it
 *         (STEPS_HOLD_REACH windows each way, each side on its own, the
 *         more restless side judging): beyond its median by Student's t
 *         at STEPS_FALSE_RATE / 2 over every scale's windows, with the
 *         MAD's 0.37 x windows degrees of freedom. A jump that decays
 *         (a heavy-tailed innovation of autocorrelated noise), quiet
 *         noise that turns wild (idle to busy), the level across a gap
 *         or between bursts of samples: each is judged against the
 *         series' own movement there, not one global noise figure.
 *         A side with fewer than STEPS_HOLD_MIN_WINDOWS windows (the
 *         series' ends) does not judge.
 *     Boundaries that fail are bends (a change of slope), not steps.
 *  6. Where the step lies: among the known raw points of the two buckets
 *     around the boundary, the split that best separates two constant
 *     levels (largest between-level sum of squares); index is the first
 *     point of the new level. At the finest scale this is within one
 *     point of an abrupt step, bucketed or not.
 * Scales merge from fine to coarse: a coarser step with finer ones within
 * two of its buckets is the same change seen again and is dropped, unless
 * its |change| exceeds STEPS_GRADUAL_RATIO times the sum of theirs in its
 * direction (they saw only part of a rise too gradual for their scale):
 * then it replaces them. At most STEPS_MAX steps are kept (the largest
 * |change|), listed in time order; n_found says how many there were.
 *
 * Contracts: no I/O; t and y are read-only; t non-decreasing (where y is
 * known); points with a non-finite t or y are skipped, and index counts
 * every point given (an index into t and y). The caller passes one
 * incarnation: across a restart the drop would be a step.
 * Bounds on work: O(n) to drop missing points and bucket; then per scale
 * O(m * STEPS_MAX_SEGMENTS) for the segmentation and O(n / m) per step for
 * its place; the scales' sizes shrink geometrically. O(n) memory only
 * when points must be dropped (else O(m)). Measured at -O2: 10^6 points
 * in about 0.06 s, 10^7 in about 0.6 s (the bucket medians dominate).
 */
#ifndef MEMTREND_STEPS_H
#define MEMTREND_STEPS_H

#include <stddef.h>

#define STEPS_BUCKETS 4096         /* points at the finest scale, at most */
#define STEPS_SCALE_FACTOR 4       /* buckets merged per coarser scale */
#define STEPS_MIN_SCALE_POINTS 64  /* coarser scales stop below this */
#define STEPS_MIN_SEG 5            /* points per segment, every scale */
#define STEPS_MAX_SEGMENTS 64      /* per scale */
#define STEPS_PENALTY 3.0          /* x sigma^2 ln m per split */
#define STEPS_Z 5.0                /* change against its standard error */
#define STEPS_MIN_SIGMAS 4.0       /* change against the point noise */
#define STEPS_MIN_FRACTION 0.01    /* change against the median level */
#define STEPS_LOCAL_FRACTION 0.5   /* local jump against the change */
#define STEPS_HOLD 20              /* points the new level must hold */
#define STEPS_HOLD_REACH 10        /* x STEPS_HOLD: the local null's reach */
#define STEPS_HOLD_MIN_WINDOWS 4   /* a side of the null needs as many */
#define STEPS_GRADUAL_RATIO 1.5    /* coarse change that replaces finer */
#define STEPS_MAX 20               /* steps reported, at most */
#define STEPS_FALSE_RATE 0.02      /* noise-only series with a jump:
				      the tests below keep the total
				      under 5 % (calibration table) */

struct step {
	double time;               /* t[index] */
	size_t index;              /* first point of the new level */
	double before, after;      /* levels just before and after, y units */
	double change;             /* after - before */
	size_t scale;              /* points per bucket at the scale where
				      it was found (1: raw points) */
};

struct step_findings {
	struct step *steps;        /* owned, time order */
	size_t n;
	size_t n_found;            /* before the STEPS_MAX cap */
	double sigma;              /* noise at the finest scale; NAN when
				      too few points */
	double min_change;         /* smallest change counted there; NAN */
};

/* Steps of y against t (n points). resolution: the smallest step the
 * readings show (NAN or <= 0: none). Fewer than 2 * STEPS_MIN_SEG known
 * points: no steps. */
void steps_find(const double *t, const double *y, size_t n,
		double resolution, struct step_findings *out);
/* Free the steps; *f is zeroed. */
void step_findings_release(struct step_findings *f);

#endif
