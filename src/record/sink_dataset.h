/*
 * sink_dataset.h - a recording kept in memory as a dataset (series.h), as
 * one of the recorder's sinks (sink.h): what `check` judges, with no file
 * written and read back.
 *
 * It builds what store_read_dataset() builds from the file, for the
 * figures a judgement uses: one series per target in the order the
 * targets appeared, named as the reader names them ("NAME (child)",
 * "NAME (with children)", "NAME (group)"); the footprint in whole bytes,
 * as the store keeps it, by incarnation; the work counter, connection
 * counts and gauges attached to the samples as the reader attaches them
 * (a reading to the first sample at or after its stamp, the later
 * winning; a source of a target applies to it and to the targets under
 * it; one of no target to every target); the page size as each series'
 * exact quantum; the interval. Components, regions, GPU rows and the
 * machine's figures are left out (a report reads the file for those).
 *
 * Bounds: every sample is kept (a judgement needs the whole series), so
 * memory grows with the run: 8 bytes a sample and 16 a reading, plus the
 * series' own arrays; meant for bounded runs (`check` has a duration or
 * a request count), not for `record --all`.
 */
#ifndef MEMTREND_SINK_DATASET_H
#define MEMTREND_SINK_DATASET_H

#include "series.h"
#include "sink.h"

struct sink_dataset;

/* source: the dataset's source name (e.g. "check"). */
struct sink_dataset *sink_dataset_new(const char *source);
struct sink sink_dataset_sink(struct sink_dataset *s);
/* Move what was recorded into *out (initialised here; dataset_release()
 * frees it), readings attached. Once, after the run. */
void sink_dataset_take(struct sink_dataset *s, struct dataset *out);
void sink_dataset_free(struct sink_dataset *s);

#endif
