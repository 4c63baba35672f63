/*
 * watch_all.h - the side of `memtrend watch --all` that keeps every
 * process's live series (cmd_watch.c keeps the terminal, the signals and
 * the recorder thread): the recorder's hooks, called in its thread, copy
 * each sample into a buffer under a mutex; the view thread swaps the
 * buffer out, feeds a live table (analysis/live_table.h), analyses the
 * targets in turn within a budget and fills the frame's view.
 *
 * Ownership: the hooks take struct watch_all * as ctx; it must outlive
 * the recorder thread. Bounds: the buffer holds what arrived since the
 * last refresh (one entry per process sample: at 1,000 processes and 1 s,
 * 2,000 entries between refreshes); the table O(targets x
 * WATCH_ALL_POINTS); the rows O(top).
 */
#ifndef MEMTREND_WATCH_ALL_H
#define MEMTREND_WATCH_ALL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "recorder.h"
#include "render.h"

#define WATCH_ALL_POINTS 128      /* kept points per target, as the
				     exporter keeps (EXPORTER_POINTS) */

struct watch_all;

/* A live sample at t from a process's (or a sum's) memory figures: the
 * footprint in whole bytes, as the store keeps it, and the components
 * both watch views show (RSS, anon, file, shmem, swap, GPU); the others
 * NAN, for the caller to add. */
void watch_sample_of_mem(struct live_sample *x, double t,
			 const struct proc_mem *m);

struct watch_all *watch_all_new(void);
/* After the recorder thread has been joined. */
void watch_all_free(struct watch_all *wa);

/* The recorder's sink (sink.h) for every target's samples and ends but
 * --children's descendants, and the machine's figures; it never blocks
 * on the view (a mutex held for a copy). */
struct sink watch_all_sink(struct watch_all *wa);

/* The view thread: take what the recorder sent into the table, then
 * analyse targets due (live_table_analyse(): min_gap_s between two of
 * one target's, budget_s for the call). Returns the samples taken. */
uint64_t watch_all_refresh(struct watch_all *wa,
			   const struct analysis_options *o, double min_gap_s,
			   double budget_s);
/* Targets analysed at the last refresh. */
size_t watch_all_analysed(const struct watch_all *wa);
/* The table's part of v (n_targets, samples, rows: the worst top of
 * them, 0 for all); v->rows stays valid until the next refresh. */
void watch_all_fill(struct watch_all *wa, struct watch_table_view *v,
		    size_t top);

#endif
