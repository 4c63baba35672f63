/*
 * live.h - one target's series as a live view keeps it: fed sample by
 * sample (appends, in time order), bounded in memory, and turned on
 * demand into a series that analysis_run() can take ("so far").
 *
 * Thinning: at most max_points points are kept. Every sample is kept
 * while there is room; when the store is full every other point is
 * dropped and from then on one sample in `stride` (the stride doubles
 * each time), the scheme recorder.c uses for its slope buffer. So the
 * kept points are evenly spaced over the whole recording (sample k is
 * kept when k % stride == 0), and the newest sample is always added on
 * top of them in a snapshot: the latest figures are never stale.
 *
 * Readings of figures sampled apart from the memory (the work counter,
 * gauges, connection counts) are attached as store.c attaches them to a
 * full series: to the first point at or after the reading's stamp, the
 * later reading winning. Here that is the first *kept* point at or after
 * it (a reading whose own point was thinned away moves to the next kept
 * one, which is what that point would have shown had it been read with
 * the figure); a reading newer than every kept point waits for the next
 * one and shows on the newest sample in a snapshot.
 *
 * Every incarnation is listed in a snapshot, but one that lasted less
 * than a stride may have no point left in it (as a report of a
 * recording thinned the same way would show): the analysis then sees the
 * restart only through the incarnation list.
 *
 * What it does not do: read files, keep every sample (the caller does
 * not get the full series back: a report reads the file for that), or
 * decide when to analyse. Not thread-safe: one thread feeds and reads.
 *
 * Bounds: memory O(max_points + recent) whatever the number of
 * samples; an append is O(1) amortised (a halving, O(max_points), once
 * every max_points / 2 kept points); a reading O(log max_points); a
 * snapshot O(max_points) copies.
 */
#ifndef MEMTREND_LIVE_H
#define MEMTREND_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "series.h"

#define LIVE_RECENT 1024          /* newest footprints kept unthinned */
#define LIVE_POINTS 4096          /* watch's bound on kept points: its
				     analysis takes 20-40 ms at this size
				     (bench_watch) */

/* One sample: footprint and components (NAN when not read). */
struct live_sample {
	double t;                  /* Unix seconds UTC, non-decreasing */
	double footprint;
	double comp[COMP_COUNT];
};

/* A figure given by live_reading(): the work counter, the connection
 * count, or gauge number g (from live_add_gauge()) as g itself. */
#define LIVE_REQUESTS (-1)
#define LIVE_CONNECTIONS (-2)

struct live_series;

/* A new, empty series named name (copied). max_points: the bound on
 * kept points, rounded up to an even number of at least 16; the newest
 * LIVE_RECENT footprints are kept too (live_recent()). */
struct live_series *live_new(const char *name, size_t max_points);
/* The same with recent newest footprints kept (0: none, live_recent()
 * gives none): for many series at once (the exporter), where LIVE_RECENT
 * doubles each would be most of the memory. */
struct live_series *live_new_sized(const char *name, size_t max_points,
				   size_t recent);
void live_free(struct live_series *l);

/* Samples appended from now on belong to a new incarnation (a process
 * lifetime); strings are copied, may be NULL. */
void live_incarnation(struct live_series *l, int64_t pid,
		      unsigned long long start_ticks, double start_time,
		      const char *comm, const char *cmdline);
/* Append one sample of the current incarnation (one must have been
 * given). A sample older than the newest is dropped (as store.c skips
 * samples out of time order). */
void live_append(struct live_series *l, const struct live_sample *s);
/* The latest incarnation is the process (pid, start_ticks): a recording
 * appended to continues it (store.h) rather than start another. */
bool live_last_incarnation_is(const struct live_series *l, int64_t pid,
			      unsigned long long start_ticks);

/* The figure is recorded (so an analysis sees "recorded, no readings
 * yet" rather than "not recorded"). Gauges: live_add_gauge() returns its
 * number. */
void live_record_figure(struct live_series *l, int figure);
int live_add_gauge(struct live_series *l, const char *name);
/* A reading of figure taken for the tick stamped t; NAN is a gap (it
 * leaves the point without a value). Readings of one figure come in
 * stamp order. */
void live_reading(struct live_series *l, int figure, double t, double v);

/* What is known of the machine and the target's limits (NAN: unknown);
 * the snapshot carries the latest values. */
void live_set_limits(struct live_series *l, double cgroup_limit,
		     double mem_total, double swap_total, double swap_free,
		     double mem_available);
void live_set_cgroup_limit(struct live_series *l, double cgroup_limit);
/* GPU d's total and used memory (all processes), the limit of the
 * target's memory on it (series_set_gpu_limit). */
void live_set_gpu_limit(struct live_series *l, unsigned d, double total,
			double used);
void live_set_machine(struct live_series *l, double mem_total,
		      double swap_total, double swap_free,
		      double mem_available);
/* The readings' precision (a recording's page size: exact). */
void live_set_quantum(struct live_series *l, double quantum, bool exact);

/* Samples appended so far (all, not the kept ones). */
uint64_t live_count(const struct live_series *l);
/* Points kept now, and one kept sample in how many. */
size_t live_kept(const struct live_series *l);
uint64_t live_stride(const struct live_series *l);
/* The newest footprints, unthinned, oldest first: up to the series'
 * recent bound (NULL, *n 0, when it keeps none); *n is set. The pointer
 * is valid until the next append. */
const double *live_recent(struct live_series *l, size_t *n);

/* The series so far into *out (initialised here; series_release() frees
 * it): the kept points, then the newest sample when it is not one of
 * them, with the readings attached as above. */
void live_snapshot(const struct live_series *l, struct series *out);

#endif
