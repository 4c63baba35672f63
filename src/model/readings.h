/*
 * readings.h - a work or gauge source's readings, kept as they come and
 * attached to a target's series by one rule, so that a recording read back
 * from its file (store_read.c) and one kept in memory (record/
 * sink_dataset.c: what `check` judges) give the same series.
 *
 * Readings carry the stamp of the tick they were asked for, the same stamp
 * as that tick's memory samples. A reading is attached to the first series
 * point at or after it (within a microsecond) and only if no later point
 * came first, so a reading lands on its own tick and a gap in the source
 * stays a gap (NAN) in the series.
 *
 * They do not all come in stamp order: a reading still in flight at the
 * next tick (a slow scrape, a loaded machine) comes after the gaps of the
 * ticks that found the source busy (record/sampler_sources.c). Such a
 * reading is put back in its place; dropping it lost, before a counter
 * reset, the increase up to it. A known reading behind an earlier known
 * one is something else -- a wall clock stepped back -- and is dropped, as
 * memory samples out of order are; so is a gap behind the latest stamp.
 *
 * Ownership: a struct readings owns its name and arrays
 * (readings_release()). Bounds: O(1) amortised a reading; the one sort,
 * O(n log n), only for a source that had a late reading.
 */
#ifndef MEMTREND_READINGS_H
#define MEMTREND_READINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"

struct readings {
	char role[16];             /* "work", "gauge", "connections" */
	char *name;                /* owned; the gauge's name */
	double *t, *v;             /* v NAN: a gap */
	size_t n, cap;
	double t_known;            /* stamp of the latest known reading */
	bool unordered;            /* some kept reading is behind the last */
};

/* role and name are copied (name NULL: "?"). */
void readings_init(struct readings *r, const char *role, const char *name);
void readings_release(struct readings *r);

/* Keep a reading (v NAN: a gap) by the rules above. */
void readings_add(struct readings *r, double t, double v);

/* Attach them to se as its requests, connections or the gauge of r's
 * name, by the rule above; a role this memtrend does not know attaches
 * nothing. Puts the readings in stamp order first (once). */
void readings_attach(struct readings *r, struct series *se);

#endif
