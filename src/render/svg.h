/*
 * svg.h - the drawing pieces of the HTML report (render_html_figures.c):
 * linear scales, readable axis ticks and series reduced to what a pixel
 * column can show.
 *
 *  - Ticks: 1-2-5 steps for counts; for bytes, 1-2-5 steps of a binary
 *    unit (KiB, MiB, GiB, TiB) or, for readings in decimal units, of a
 *    decimal one (kB ... TB), all ticks labelled in one unit; for time,
 *    steps from 100 ms to days that fall on UTC boundaries (10 s, 15 min,
 *    6 h, 1 d ...), labelled HH:MM[:SS] with the date where it changes.
 *  - Lines: svg_line takes the points of a series in x order and writes
 *    <polyline> elements holding, per pixel column (one unit of the
 *    scale's pixel range), at most four points: the column's first, its
 *    minimum and maximum (in the order they occurred) and its last. A
 *    peak of one sample among 10^6 is drawn; a line holds at most about
 *    4 x width points whatever n is. A missing value (NAN) or a break
 *    (restart, recording gap) ends the line unless the next point falls
 *    in the same or the next column (then nothing is hidden by joining).
 *
 * Contracts: formatting only; no process-controlled text passes through
 * here (attributes given to svg_line_begin() are the caller's constant
 * markup). Coordinates are written with one decimal. O(n) time per series,
 * O(width) memory.
 */
#ifndef MEMTREND_SVG_H
#define MEMTREND_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Data value d0..d1 onto pixel p0..p1 (p1 < p0 for a y axis). */
struct svg_scale {
	double d0, d1, p0, p1;
};

void svg_scale_set(struct svg_scale *s, double d0, double d1, double p0,
		   double p1);
/* Pixel of v (d0 == d1 maps everything to the middle). */
double svg_map(const struct svg_scale *s, double v);

enum svg_axis_kind {
	SVG_AXIS_BYTES,          /* binary units */
	SVG_AXIS_BYTES_DECIMAL,  /* decimal units */
	SVG_AXIS_COUNT,          /* integers: steps >= 1 */
	SVG_AXIS_NUMBER,         /* any number (gauges) */
	SVG_AXIS_TIME,           /* Unix seconds, UTC */
};

#define SVG_MAX_TICKS 24

struct svg_ticks {
	size_t n;
	double step;
	double v[SVG_MAX_TICKS];
	char label[SVG_MAX_TICKS][48];
	/* Time: the date (YYYY-MM-DD) under the first tick and where the day
	 * changes; else empty. */
	char label2[SVG_MAX_TICKS][40];
};

/* Ticks inside [lo, hi] with about `target` steps (never more than
 * SVG_MAX_TICKS ticks). lo == hi gives one tick. */
void svg_ticks_make(struct svg_ticks *t, enum svg_axis_kind kind, double lo,
		    double hi, int target);

/* Human value for a readout or a label, as the axis of that kind would
 * print it but with 3 significant digits ("1.23 GiB", "12,345"). */
char *svg_format_value(char *buf, size_t n, enum svg_axis_kind kind,
		       double v);

/* The 1-2-5 step at or above raw (> 0). */
double svg_nice_step(double raw);

struct svg_line {
	FILE *out;
	const struct svg_scale *sx, *sy;
	const char *attrs;
	/* The current column's summary. */
	bool have_col;
	long col;
	double fx, fy, lx, ly;         /* first and last point */
	double mnx, mny, mxx, mxy;     /* minimum and maximum */
	size_t mn_at, mx_at, count;    /* order of the extremes */
	/* The current polyline's points (pixels), written on close. */
	double *px, *py;
	size_t np, cap;
	long last_col;                 /* column of the last point kept */
	bool pending_break;
	/* Totals, for tests and bounds. */
	size_t points_written, polylines_written;
};

/* Start a series. attrs: constant markup placed in every <polyline>
 * (e.g. `class="fp" data-k="footprint"`); not escaped. */
void svg_line_begin(struct svg_line *l, FILE *out,
		    const struct svg_scale *sx, const struct svg_scale *sy,
		    const char *attrs);
/* Add a point in data units; x non-decreasing. y NAN is a gap. */
void svg_line_add(struct svg_line *l, double x, double y);
/* The line must not join the previous point to the next one. */
void svg_line_break(struct svg_line *l);
/* Write what is left and free the buffers. */
void svg_line_end(struct svg_line *l);

#endif
