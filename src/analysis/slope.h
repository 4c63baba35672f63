/*
 * slope.h - a slope as the findings carry it: the estimate, its 95 %
 * interval and the trend test's p-value, in one value.
 *
 * A plain data type; the unit (bytes per hour, bytes per request) is the
 * one the field that holds it names. No computation lives here: the
 * estimates come from stats.h (trend_result), converted by the analyses.
 */
#ifndef MEMTREND_SLOPE_H
#define MEMTREND_SLOPE_H

struct slope {
	double estimate;           /* NAN when unknown */
	double low, high;          /* the 95 % interval */
	double p;                  /* trend test; NAN when not tested */
};

/* Every field NAN: no slope. */
#define SLOPE_NONE ((struct slope){NAN, NAN, NAN, NAN})

#endif
