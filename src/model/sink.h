/*
 * sink.h - where the recorder's samples go: one interface for every
 * consumer of a recording in progress (the store writer, the exporter of
 * `record --listen`, `watch --all`'s live table, `check`'s run kept in
 * memory, the status line), as atop's output table or a collector's
 * registry.
 *
 * The recorder (record/recorder.h) calls each sink in turn, in its own
 * thread: begin() once, then event() as targets, incarnations, sources,
 * notes and GPU rows appear, frame() once per tick with everything that
 * tick read (sample.h: struct sample_frame), target_end() when a target
 * is no longer followed, end() once. Every operation may be NULL.
 *
 * Contract for a sink: it must not block (it costs the tick: a live view
 * hands the frame to its own thread), and it copies what it keeps: the
 * pointers it is given are valid during the call only. A sink never
 * stops the recording: what it cannot keep it says once, as the store
 * says a full disk, and goes on. Only begin() and end() may fail.
 *
 * What it does not do: decide when to sample, read anything, or own the
 * recorder's ids (sample.h says whose they are).
 */
#ifndef MEMTREND_SINK_H
#define MEMTREND_SINK_H

#include <stdbool.h>
#include <stdint.h>

#include "sample.h"

/* What a sink hears of the run at its start. */
struct sink_run {
	double interval_s;         /* between ticks */
	bool all;                  /* record --all */
	const char *invocation;    /* memtrend's command line, or NULL */
	const char *gpu_sources;   /* what GPU memory can be read, for the
				      record (gpu_recorder_sources()) */
};

struct sink_ops {
	/* 0, or -1 after a message: the run does not start (end() is
	 * still called, with recorded false). */
	int (*begin)(void *ctx, const struct sink_run *run);
	void (*event)(void *ctx, const struct sample_event *e);
	void (*frame)(void *ctx, const struct sample_frame *f);
	/* The target is no longer followed: --all's process ended (final:
	 * its id is never used again), a group's last member ended (not
	 * final: a later member starts a new incarnation of it). */
	void (*target_end)(void *ctx, int64_t target, double t, bool final);
	/* recorded false: the run failed to start, nothing was sampled (a
	 * new file may be removed). 0, or -1 when what the sink keeps is
	 * incomplete (a batch that could not be saved): the run then ends
	 * with EXIT_RUNTIME. */
	int (*end)(void *ctx, double t, bool recorded);
};

struct sink {
	const struct sink_ops *ops;
	void *ctx;
};

#endif
