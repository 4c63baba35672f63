/*
 * periodic.h - memory that cycles: a garbage collector's sawtooth (the
 * heap climbs, a collection drops it back), or memory that follows a
 * daily load (in-flight buffers that come and go with the traffic).
 *
 * Such a series rises most of the time inside each cycle, so a slope over
 * the raw readings is biased by the pairs within a cycle, and a window
 * that ends at a different phase than it started shows a trend that is
 * only the phase. What persists across cycles is the floor: the lowest
 * reading of each cycle. A sawtooth whose floor is flat is not growing;
 * one whose floor rises grows at the floor's slope.
 *
 * Detection: the autocorrelation of the detrended series (at most
 * PERIODIC_POINTS bucket medians) must dip below -PERIODIC_DIP and then
 * peak again at or above PERIODIC_PEAK, at a lag of at most half the
 * window (two cycles seen), and memory must come back down in the
 * typical cycle (fall from a peak by a quarter of its swing: a leak that grows in
 * chunks is periodic around its line but never gives back). The period
 * is that lag (refined by a parabola through the peak). Without such a
 * peak, a collector's drops can still mark the cycles: at least
 * PERIODIC_MIN_CYCLES + 1 falls far beyond the noise of neighbouring
 * differences, alike in size, at gaps within half their median. Floors: the minimum of each whole period-long window
 * from the first reading, with its time; the partial window at the end is
 * left out. Fewer than PERIODIC_MIN_CYCLES whole cycles cannot tell a
 * trend from the cycle: the verdict says how long to watch.
 *
 * No I/O. Work: O(n) for the floors (and the bucket medians) plus
 * O(m^2 / 2) for the autocorrelation, m <= PERIODIC_POINTS; drops on at
 * most PERIODIC_DROP_POINTS bucket medians.
 */
#ifndef MEMTREND_PERIODIC_H
#define MEMTREND_PERIODIC_H

#include <stdbool.h>
#include <stddef.h>

#define PERIODIC_POINTS 1024
#define PERIODIC_DROP_POINTS 65536 /* drops looked for on at most these */
#define PERIODIC_PEAK 0.5
#define PERIODIC_DIP 0.25
#define PERIODIC_MIN_CYCLES 3

struct periodic_finding {
	bool found;
	double period_s;
	double cycles;             /* span / period */
	double acf_peak;           /* autocorrelation at the period */
	size_t n_floors;           /* whole cycles */
	double *floor_t, *floor_y; /* owned; n_floors each */
	double amplitude;          /* median over cycles of max - min around
				      the trend line */
	double fall;               /* median over cycles of the largest fall
				      from a peak */
};

/* Look for a cycle in the n points (t ascending, no NAN) around the line
 * of slope `slope` (per second). Fills *out (found false when none). */
void periodic_find(const double *t, const double *y, size_t n, double slope,
		   struct periodic_finding *out);
void periodic_finding_release(struct periodic_finding *p);

#endif
