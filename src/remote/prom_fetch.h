/*
 * prom_fetch.h - a range query's series gathered whole for report
 * --prometheus (docs/fleet.md): the query is asked in time chunks of at
 * most chunk_points per series (under Prometheus' 11,000), and each
 * series' chunks are appended to one record, found again by its label
 * set.
 *
 * What was not asked for is left out and counted, never kept (a server
 * or proxy that ignores the batch's matchers, or sends a series twice):
 * a series whose label set is not among `allowed` (the batch's listed
 * series), or a new one beyond max_series; a point at a time the record
 * already has (the first read kept). A point that comes before the
 * record's last one is merged into place and counted. (Within one
 * response, prometheus.c has already left out the points outside the
 * chunk's range, sorted each series and counted what it did.)
 *
 * What it does not do: decide the grid or the chunk size (the caller
 * bounds the response), or turn series into targets (prom_group.h).
 *
 * Memory: every point of every series kept, 16 bytes each (t, v), until
 * prom_fetch_release() or the caller frees a series' points
 * (prom_raw_drop_points) once copied. Bounded whatever the server
 * sends: a series holds at most the grid's points (more distinct times
 * are refused), series are the allowed ones or at most max_series, and
 * max_points (when set) bounds the points of all series together.
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
	double *t, *v;             /* owned; n points, strictly increasing
				      times */
	size_t n, cap;
	bool fractional;           /* a value with a fraction */
};

struct prom_fetch {
	/* Set by the caller (zero the rest): */
	const atomic_bool *stop;   /* set: stop at the next series; NULL */
	const struct strmap *allowed; /* the label sets asked for, as
				      prom_fetch_key() gives them; NULL: any */
	size_t max_series;         /* series kept at most; 0: no bound */
	size_t max_points;         /* points kept at most, all series
				      together; 0: no bound (beyond it the
				      fetch is refused, said) */

	struct strmap map;         /* label set -> index in raw */
	struct prom_raw *raw;      /* owned */
	size_t n_raw, cap_raw;
	size_t points;             /* kept, all series */
	size_t foreign;            /* series answered but not asked for
				      (each time one came): left out */
	struct prom_tally tally;   /* the merges' repeats and disorder */
	bool refused;              /* a bound was passed (said) */
};

/* The grid of a fleet report: points times start, start + step, ... */
struct prom_grid {
	double start, step;
	size_t points;
};

/* The key of a label set (labels sorted by name, whatever their order):
 * what `allowed` holds. Owned. */
char *prom_fetch_key(const struct prom_label *l, size_t n);

/* query over the whole grid into fx (set up as above), chunk_points
 * (>= 1) per series per request. A prometheus.h result: 0, or the
 * failing request's (PROM_STOPPED when *stop; PROM_FAILED, said, when
 * a series would hold more than the grid's points or the fetch more
 * than max_points). What the client's parser counted is in
 * prom_client_tally(pc), the merges' in fx->tally. */
int prom_fetch_range(struct prom_client *pc, const char *query,
		     const struct prom_grid *g, size_t chunk_points,
		     struct prom_fetch *fx);

/* Free r's points (its labels stay). */
void prom_raw_drop_points(struct prom_raw *r);
void prom_fetch_release(struct prom_fetch *fx);

#endif
