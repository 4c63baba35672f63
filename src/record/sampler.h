/*
 * sampler.h - what the recorder reads beside /proc/PID/status: one
 * interface for every such reader, as htop's platforms or
 * node_exporter's collectors. Two kinds fill it: a memory source read
 * per process (open, read, close, a tick for machine-wide readings),
 * the GPU readers (DRM fdinfo and NVML, recorder_gpu.c: gpu_sampler());
 * and a reader of figures apart from any process (start, collect,
 * request, busy, cancel, finish), the work counter and gauges
 * (sampler_sources.c: sources_sampler(), over the source thread). A new
 * memory source (allocation sites, an eBPF map) is one new file that
 * fills these operations, and a line where the recorder lists its
 * samplers (recorder.c, recorder_run()).
 *
 * The recorder calls a sampler in its own thread: open() when it starts
 * following a process incarnation, read() at every sample of it (after
 * the status figures, which read() may add to: the footprint counts
 * device memory), close() when the incarnation ends; tick() with the
 * machine's figures, at most once a second, for what is read per
 * machine (a device's totals). What a sampler learns besides the figures
 * (a region's row, a note) it pushes to the sinks as events (sample.h),
 * between frames.
 *
 * A reader apart from processes: start() once the targets are declared
 * (it declares its sources, sampler_source_declare(), and may start a
 * thread of its own, which reads between ticks); at every tick, after
 * the processes, collect() hands on the readings finished since the
 * last (sampler_reading(): into this tick's frame, each with its own
 * stamp), then request() asks for the next; cancel() when the run
 * stops (what is in flight becomes a gap, a failure from then on is no
 * news); finish() once at the end, when started (the last readings, in
 * the closing frame). busy(): a reading is in flight (it may hold a
 * connection of memtrend's own to the service: the recorder counts
 * connections later).
 *
 * Contract: never fail a recording once it runs (what cannot be read is
 * a note, once, and no figure; only start() may fail it); must not block
 * (it costs the tick; collect() with wait, at a stop, is bounded by the
 * source timeout); every operation may be NULL.
 */
#ifndef MEMTREND_SAMPLER_H
#define MEMTREND_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "sample.h"

struct sink_set;
struct source;
struct recorder_options;
/* The recorder, as its samplers see it: the calls below (recorder.c). */
struct recorder;

/* A service the recorder starts may take this long to answer its work
 * counter or gauges before a failure is warned about (source.h). */
#define SAMPLER_STARTUP_GRACE_S 30.0

struct sampler_ops {
	const char *name;
	/* What it can read on this machine, for the recording
	 * (meta.gpu_sources for the GPU's). */
	const char *(*describe)(void *ctx);
	/* Per incarnation state; NULL: nothing to read for it (read and
	 * close are then not called). */
	void *(*open)(void *ctx, pid_t pid);
	/* At t (mono: CLOCK_MONOTONIC, for rescan rates), into m; events
	 * under the recorder's incarnation inc. */
	void (*read)(void *ctx, void *proc, const struct sink_set *out,
		     int64_t inc, double t, double mono, struct proc_mem *m);
	void (*close)(void *ctx, void *proc);
	void (*tick)(void *ctx, const struct sink_set *out, double t);
	/* Apart from processes. start: 0, or -1 after a message (the run
	 * does not start). */
	int (*start)(void *ctx, struct recorder *rec);
	void (*collect)(void *ctx, struct recorder *rec, bool wait);
	void (*request)(void *ctx, struct recorder *rec, double t);
	bool (*busy)(void *ctx);
	void (*cancel)(void *ctx);
	void (*finish)(void *ctx, struct recorder *rec, double t);
	/* Everything it holds, started or not. */
	void (*free)(void *ctx);
};

struct sampler {
	const struct sampler_ops *ops;
	void *ctx;
};

/* The GPU readers as a sampler (recorder_gpu.c); enabled false
 * (--no-gpu): one that reads nothing and says "off (--no-gpu)". */
struct sampler gpu_sampler(const char *proc_root, bool enabled);

/* The work counter and gauges as a sampler (sampler_sources.c): owns
 * sources[0..n) from this call (the array stays the caller's), freed
 * even when it never starts; roots[i] (copied; NULL: none) indexes the
 * recorder's -p roots (0..n_pids): whose source i is, else every
 * target's. */
struct sampler sources_sampler(struct source **sources, size_t n,
			       const size_t *roots, size_t n_pids,
			       double timeout_s);

/* What a sampler may ask of the recorder (recorder.c), in its thread. */
/* A source declared to the sinks (SAMPLE_SOURCE): its id. */
int64_t sampler_source_declare(struct recorder *rec, const char *role,
			       const char *name, const char *method,
			       const char *spec, int64_t target);
/* A reading of source (stamped t, NAN a gap) in this tick's frame. */
void sampler_reading(struct recorder *rec, int64_t source, double t,
		     double value);
/* The target id of the recorder's root i (-p's come first, in order). */
int64_t sampler_root_target(const struct recorder *rec, size_t i);
/* A -- COMMAND the recorder started is running. */
bool sampler_command_running(const struct recorder *rec);
/* A note (or a warning) printed and kept in the recording, stamped t. */
void sampler_say(struct recorder *rec, double t, bool warn,
		 const char *text);
/* An allocation site's id, new (its SAMPLE_SITE is the caller's to
 * send); and its value in this tick's frame. */
int64_t sampler_site_new(struct recorder *rec);
void sampler_site_value(struct recorder *rec, int64_t site, double live,
			double allocs);

/* Allocation sites (sampler_sites.c, docs/sites.md): the region the
 * preloaded shim fills, made for the -- COMMAND, and *env the command's
 * environment with the shim preloaded (the sampler's, until it is
 * freed); read at every sample of the process that claimed it. ctx NULL
 * when it cannot be made (said why; the run does not start). */
struct sampler sites_sampler(const struct recorder_options *o,
			     char *const **env);

#endif
