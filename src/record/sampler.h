/*
 * sampler.h - a memory source read per process beside /proc/PID/status:
 * one interface for every such reader, as htop's platforms or
 * node_exporter's collectors. The GPU readers (DRM fdinfo and NVML,
 * recorder_gpu.c: gpu_sampler()) are its first implementation; a new
 * memory source (allocation sites, an eBPF map) is one new file that
 * fills these operations, and a line where the recorder lists its
 * samplers (recorder.c, samplers_open()).
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
 * Contract: never fail a recording (what cannot be read is a note,
 * once, and no figure); must not block (it costs the tick); any
 * operation but read may be NULL.
 */
#ifndef MEMTREND_SAMPLER_H
#define MEMTREND_SAMPLER_H

#include <stdint.h>
#include <sys/types.h>

#include "sample.h"

struct sink_set;

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
	void (*free)(void *ctx);
};

struct sampler {
	const struct sampler_ops *ops;
	void *ctx;
};

/* The GPU readers as a sampler (recorder_gpu.c); enabled false
 * (--no-gpu): one that reads nothing and says "off (--no-gpu)". */
struct sampler gpu_sampler(const char *proc_root, bool enabled);

#endif
