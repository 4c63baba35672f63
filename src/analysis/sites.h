/*
 * sites.h - where a target's memory grows (record --sites, docs/sites.md):
 * each allocation site's estimate of live bytes analysed as a series of
 * its own, with the target's own analysis (analysis_run(): the same time
 * slope, per-request slope and intervals, the same verdict rules), the
 * sites ranked, and the split that says whose growth it is: the live
 * heap (the sum of the sites) grows -> a leak at these sites; the live
 * heap flat while the footprint grows -> the allocator keeps it.
 *
 * No statistics of its own: a site's series is the target's points
 * (times, work) with the site's estimate in place of the footprint.
 * Bounded: at most SITES_ANALYSED sites are analysed, those that grew
 * most between the analysed incarnation's first and last point.
 *
 * What it does not do: name frames (the recorder did), read anything,
 * or print (render/).
 */
#ifndef MEMTREND_SITES_H
#define MEMTREND_SITES_H

#include <stdbool.h>
#include <stddef.h>

#include "series.h"
#include "slope.h"

/* Sites analysed at most per target: each is a run of the analysis. */
#define SITES_ANALYSED 16

enum site_trend {
	SITE_GROWING,              /* the analysis says growing */
	SITE_PLATEAU,              /* grew, then flattened */
	SITE_STABLE,
	SITE_INCONCLUSIVE,
};
const char *site_trend_name(enum site_trend t);

struct site_finding {
	size_t site;               /* index into the series' sites */
	double first, last;        /* bytes, at the window's first and last
				      point */
	enum site_trend trend;
	struct slope slope;        /* bytes per hour (SLOPE_NONE: none) */
	bool significant;
	struct slope per_request;  /* bytes per request (SLOPE_NONE) */
	bool per_request_significant;
	/* Its slope over the footprint's (the footprint's own interval
	 * left out: the site's interval over the footprint's estimate);
	 * NAN when the footprint has no positive slope. */
	double share, share_low, share_high;
};

enum sites_split {
	SITES_SPLIT_NONE,          /* the footprint does not grow */
	SITES_SPLIT_LEAK,          /* the live heap grows, at least half
				      of the footprint's slope */
	SITES_SPLIT_PARTLY,        /* the live heap grows, less than half */
	SITES_SPLIT_RETENTION,     /* the footprint grows, the live heap
				      does not: the allocator keeps it */
	SITES_SPLIT_OUTSIDE,       /* the footprint grows, the live heap
				      does not, shared memory or the GPU's
				      grow at least half as fast: the
				      growth is outside the heap */
};
const char *sites_split_name(enum sites_split s);

/* Memory outside the heap the sites cannot see, analysed as the sites
 * are (the target's rules on that component's series): shared memory
 * and device-local GPU memory (both in the footprint) and file-backed
 * resident pages (not in it: named for the reader, never in the split).
 * Only components the recording has readings of. */
#define SITES_OUTSIDE_MAX 3
struct site_outside {
	const char *pool;          /* "shmem", "gpu", "file" (static) */
	bool in_footprint;
	double first, last;        /* bytes at the window's ends */
	struct slope slope;        /* per hour (SLOPE_NONE) */
	bool significant;
	enum site_trend trend;
	double share;              /* slope / footprint's slope; NAN */
};

/* A pool outside the heap that grows: significantly, upwards (what the
 * report names, and what may explain the footprint's growth). */
bool site_outside_grows(const struct site_outside *y);

struct sites_finding {
	bool recorded;             /* the target has sites */
	size_t n_sites;            /* of the analysed incarnation */
	struct site_finding *ranked; /* owned; n_ranked: growing first, by
					slope, then the rest by last */
	size_t n_ranked;
	size_t n_growing;
	/* The live heap as sampled: the sum of every site. */
	double heap_first, heap_last;
	struct slope heap_slope;   /* per hour */
	bool heap_significant;
	struct slope heap_per_request;
	bool heap_per_request_significant;
	double heap_share;         /* heap slope / footprint slope; NAN */
	enum sites_split split;
	bool sampling_counted;     /* the intervals and tests count the
				      sampling's own error (false: a
				      recording of an earlier memtrend, no
				      variance kept: they do not) */
	/* The shim's figures (series_site_stats). */
	double rate, sampled, dropped;
	struct site_outside outside[SITES_OUTSIDE_MAX];
	size_t n_outside;
};

struct target_findings;
struct analysis_options;

/* f's sites (f->series's), after f's own analysis (its slope and
 * verdict). Fills f->sites; sites_finding_release() frees it. */
void sites_analyse(const struct analysis_options *o,
		   struct target_findings *f);
void sites_finding_release(struct sites_finding *x);

#endif
