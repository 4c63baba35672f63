/*
 * store.h - the recording file: one SQLite database in WAL mode.
 *
 * The only module that talks to SQLite (only src/store/store*.c include
 * sqlite3.h, through store_internal.h): store_schema.c creates and
 * migrates the file, store_write.c writes it, store_read.c reads it.
 * Writing: samples are buffered into one open transaction and committed by
 * store_commit() (the recorder calls it every few seconds); a crash loses
 * at most the open batch, never a committed one, and WAL keeps the file
 * consistent after kill -9. Reading: store_read_dataset() turns a file --
 * also one that a recorder is still writing -- into a dataset (series.h).
 * Retention: store_retain() (store_retain.c) deletes rows older than a
 * cut, a bounded batch per call (record --retain).
 * Schema: docs/schema.md; STORE_SCHEMA_VERSION is kept in meta.
 */
#ifndef MEMTREND_STORE_H
#define MEMTREND_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "machine.h"
#include "sample.h"
#include "series.h"

#define STORE_SCHEMA_VERSION 3

struct store;

/* Create path (fails if it exists and append is false; with append, the
 * file must be a memtrend recording of a compatible schema). NULL after
 * printing an error. */
struct store *store_create(const char *path, bool append);
/* Commit what is pending and close. Returns 0, or -1 if the final commit
 * failed (the file stays consistent: the open batch is lost). */
int store_close(struct store *st);

int store_meta_set(struct store *st, const char *key, const char *value);

/* kind: "pid", "name", "command", "process" (--all), "child", "tree"
 * (sum of a process and its descendants) or "group" (sum of the processes
 * of one name, cgroup or unit: --all --group-by). parent_id: the target this one belongs to, or 0.
 * Appending to a file with data, a target of the same kind, spec, name
 * and parent is the same target (its id is returned), and a process
 * already recorded under it -- the same (pid, start time) -- continues its
 * incarnation instead of starting a second one. */
int64_t store_target_add(struct store *st, const char *kind,
			 const char *spec, const char *name,
			 int64_t parent_id);
int64_t store_cgroup_add(struct store *st, const char *key);
/* An incarnation seen first at first_seen; cgroup_id 0 when none. */
int64_t store_incarnation_add(struct store *st, int64_t target_id,
			      const struct proc_identity *id,
			      int64_t cgroup_id, double first_seen);
int store_incarnation_end(struct store *st, int64_t inc_id, double last_seen,
			  const char *reason);

struct store_sample {
	int64_t incarnation_id;
	double t;                  /* Unix seconds UTC */
	struct proc_mem mem;
	const struct proc_smaps *smaps; /* NULL when not read this time */
};
int store_sample_add(struct store *st, const struct store_sample *s);
int store_system_add(struct store *st, double t, const struct sys_mem *m);
int store_cgroup_sample_add(struct store *st, int64_t cgroup_id, double t,
			    const struct cgroup_mem *m);
int store_note_add(struct store *st, double t, int64_t inc_id,
		   const char *text);
/* A figure from outside /proc. role: "work", "connections" or "gauge";
 * name: "requests", "connections" or the gauge's NAME; method: "command",
 * "metric", "log" or "tcp"; spec: the argument as given. target_id 0: it
 * applies to every target of the recording. Returns its id or -1. */
int64_t store_source_add(struct store *st, const char *role,
			 const char *name, const char *method,
			 const char *spec, int64_t target_id);
/* One reading; value NAN records a gap (the source failed). */
int store_source_sample_add(struct store *st, int64_t source_id, double t,
			    double value);
/* One region family of a snapshot (record --regions): all bytes, NAN for
 * absent; top is the family's largest mapping (process-controlled). */
int store_region_add(struct store *st, int64_t inc_id, double t,
		     const struct series_region_row *r);
/* GPU memory (schema 3). One region of one process at t: source "drm"
 * (a DRM fdinfo region, summed over the process's clients) or "nvml"
 * (region "device": NVML's used memory, summed over devices); kind
 * "device", "host" or "other" (probe_gpu.h). Figures in bytes, NAN
 * absent. */
struct store_gpu_row {
	const char *source, *region, *kind;
	double total, resident, shared, purgeable;
};
int store_gpu_add(struct store *st, int64_t inc_id, double t,
		  const struct store_gpu_row *r);
/* One device's memory (NVML's total and used, all processes). */
int store_gpu_device_add(struct store *st, double t, const char *source,
			 unsigned device, double total, double used);
/* Allocation sites (record --sites, docs/sites.md): a site of
 * incarnation inc_id with its frames (its id, or -1); its value at t
 * (written when it changes: it holds until the next); the shim's counts
 * of the incarnation. */
int64_t store_site_add(struct store *st, int64_t inc_id, double t,
		       const struct sample_site *x);
/* var: the sampling variance of live, bytes^2 (NAN: NULL) */
int store_site_sample_add(struct store *st, int64_t site_id, double t,
			  double live, double var, double allocs);
int store_site_stats_add(struct store *st, int64_t inc_id, double t,
			 const struct sample_site_stats *x);
/* Commit the open batch. On failure (disk full, I/O error) the batch is
 * rolled back -- the file keeps every earlier commit -- and -1 is
 * returned without a message (store_last_error() says why); the caller
 * decides whether to report it and go on. */
int store_commit(struct store *st);
const char *store_last_error(const struct store *st);
/* Rows added since the last commit. */
uint64_t store_pending(const struct store *st);

/* Retention (record --retain DUR): delete rows older than before_t
 * (Unix seconds; the recorder passes now - DUR), inside the open batch,
 * so they go with the next store_commit() (a failed commit keeps them).
 * Bounded work: each time-stamped table looks at no more than max_rows
 * of its oldest rows (by rowid, which follows time) and deletes those
 * older than before_t, so a call costs O(max_rows) per table whatever
 * the file's size; a caller that deletes at least as many rows per call
 * as it adds keeps up. Which rows go:
 *  - sample: rows whose last sample is older than before_t; a folded run
 *    that straddles the cut is kept whole (it spans at most a commit
 *    interval, since runs are written at every commit);
 *  - system_sample, cgroup_sample, note, source_sample, gpu_device: t <
 *    before_t;
 *  - gpu_sample: a region's row goes only once a newer row of the same
 *    region is older than before_t (the row in force at the cut stays);
 *  - target, incarnation, cgroup, source, region_snapshot, meta: kept.
 * The file's free pages are reused by later inserts; a file created by
 * this memtrend (auto_vacuum=INCREMENTAL) also gives back a few hundred
 * pages per call when more than max(1024, an eighth of its pages) are
 * free. Returns the rows deleted (>= 0), or -1 with store_last_error()
 * set and no message (the batch may then be rolled back at commit). */
int64_t store_retain(struct store *st, double before_t, uint64_t max_rows);

/* Remove a recording with its WAL side files (-wal, -shm), whichever
 * exist. */
void store_remove(const char *path);

/* True when path starts with the SQLite header. */
bool store_is_recording(const char *path);

struct store_read_options {
	bool components;           /* load rss/anon/... arrays too */
	bool components_with_sites; /* ... and when the recording has
				      allocation sites (their section names
				      growth outside the heap: shmem, GPU,
				      file-backed) */
};
/* Read a recording into *out (initialised here). One series per target
 * (targets of kind "child" are named "NAME (child)"). Returns 0 or -1
 * after printing an error (then *out is released). */
int store_read_dataset(const char *path, const struct store_read_options *o,
		       struct dataset *out);

/* Open an existing file and run PRAGMA integrity_check; 0 when "ok". */
int store_check_integrity(const char *path);

#endif
