/*
 * prom_fetch.h - a range query's series gathered whole for report
 * --prometheus (docs/fleet.md): the query is asked in time chunks of at
 * most chunk_points per series (under Prometheus' 11,000), and each
 * series' chunks are appended to one record, found again by its label
 * set. A point at or before the series' last one (a chunk's edge seen
 * twice) is left out.
 *
 * What it does not do: decide the grid or the chunk size (the caller
 * bounds the response), or turn series into targets (prom_group.h).
 *
 * Memory: every point of every series of the query, 16 bytes each
 * (t, v), until prom_fetch_release() or the caller frees a series'
 * points (prom_raw_drop_points) once copied.
 */
#ifndef MEMTREND_PROM_FETCH_H
#define MEMTREND_PROM_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "prom_labels.h"
#include "strmap.h"

/* One series as fetched, its chunks appended. */
struct prom_raw {
	struct prom_lset ls;
	double *t, *v;             /* owned; n points in time order */
	size_t n, cap;
	bool fractional;           /* a value with a fraction */
};

struct prom_fetch {
	const atomic_bool *stop;   /* set: stop at the next series; NULL */
	struct strmap map;         /* label set -> index in raw */
	struct prom_raw *raw;      /* owned */
	size_t n_raw, cap_raw;
};

/* The grid of a fleet report: points times start, start + step, ... */
struct prom_grid {
	double start, step;
	size_t points;
};

/* query over the whole grid into fx (zeroed by the caller, stop set or
 * NULL), chunk_points (>= 1) per series per request. A prometheus.h
 * result: 0, or the failing request's (PROM_STOPPED when *stop). */
int prom_fetch_range(struct prom_client *pc, const char *query,
		     const struct prom_grid *g, size_t chunk_points,
		     struct prom_fetch *fx);

/* Free r's points (its labels stay). */
void prom_raw_drop_points(struct prom_raw *r);
void prom_fetch_release(struct prom_fetch *fx);

#endif
