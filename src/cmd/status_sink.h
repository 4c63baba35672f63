/*
 * status_sink.h - the status line of `record` and the demo as one of the
 * recorder's sinks (sink.h): after every frame, the time elapsed, the
 * process samples taken, and the first target's footprint with its slope
 * (render_status_line()), or with --all the processes sampled, the sum
 * of their footprints and the largest (render_status_line_all()).
 *
 * The slope is that of the live series (live.h) the sink keeps of the
 * first target (its --children tree's sum when there is one): a
 * Theil-Sen line over its kept points (at most STATUS_POINTS, thinned
 * evenly), recomputed at most every 2 s. So the recorder computes no
 * slope of its own: what it samples flows one way, into the sinks.
 *
 * What it does not do: decide whether there is a terminal (the caller
 * does), or print anything but the line. Bounds: memory O(STATUS_POINTS)
 * whatever the length of the recording; a frame O(its entries); a slope
 * O(STATUS_POINTS log STATUS_POINTS), every 2 s.
 */
#ifndef MEMTREND_STATUS_SINK_H
#define MEMTREND_STATUS_SINK_H

#include <stdio.h>

#include "sink.h"

#define STATUS_POINTS 1024

struct status_sink;

/* Draws on out (a terminal). */
struct status_sink *status_sink_new(FILE *out);
/* The sink, valid until status_sink_free(). */
struct sink status_sink_sink(struct status_sink *s);
/* Ends the line (render_status_end()) if one was drawn. NULL is fine. */
void status_sink_free(struct status_sink *s);

#endif
