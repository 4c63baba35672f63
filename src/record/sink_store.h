/*
 * sink_store.h - the recording file as a sink (sink.h): what the recorder
 * samples, written to the store (store.h) in batched transactions.
 *
 * It maps the recorder's ids (sample.h) to the store's rows: a target, an
 * incarnation, a cgroup, a source each get the store's id when they are
 * declared, and a sample is written under its incarnation's. It commits
 * the open batch every commit_interval_s (at the frame that finds the
 * batch that old), first right after the run's set-up, so that a reader
 * sees the targets at once; with retain_s it deletes the rows older than
 * retain_s before each commit (store_retain(), record --retain). A batch
 * that cannot be saved (a full disk) is said once, and once when saving
 * works again; the recording goes on and end() then fails.
 *
 * What it does not do: sample, decide when to tick, or read the file.
 * Bounds: the id maps hold what is alive (a process's incarnation until it
 * ends, its target until the recorder drops it), cgroups and sources
 * whatever was declared (bounded by the machine and the options).
 */
#ifndef MEMTREND_SINK_STORE_H
#define MEMTREND_SINK_STORE_H

#include <stdbool.h>

#include "sink.h"

struct sink_store;

/* Create path (or, with append, add to the recording there: store.h).
 * NULL after a message. commit_interval_s > 0; retain_s 0 or NAN: keep
 * everything. */
struct sink_store *sink_store_new(const char *path, bool append,
				  double commit_interval_s, double retain_s);
/* The sink, valid until sink_store_free(). */
struct sink sink_store_sink(struct sink_store *s);
/* Closes the file if end() did not (a run that never started). NULL is
 * fine. */
void sink_store_free(struct sink_store *s);

#endif
