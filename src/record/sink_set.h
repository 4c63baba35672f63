/*
 * sink_set.h - the recorder's sinks as one: each call goes to every sink
 * (sink.h) in the order the caller gave them, skipping an operation a
 * sink leaves NULL. Shared by the recorder's files (recorder.c,
 * recorder_gpu.c), so that what they emit reaches every consumer the
 * same way.
 *
 * What it does not do: own the sinks (the caller of recorder_run() does)
 * or copy anything: an event or a frame is handed on as it is.
 */
#ifndef MEMTREND_SINK_SET_H
#define MEMTREND_SINK_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sink.h"

struct sink_set {
	const struct sink *s;
	size_t n;
};

/* 0, or -1 when a sink refused to begin (its message printed). */
int sink_set_begin(const struct sink_set *ss, const struct sink_run *run);
void sink_set_event(const struct sink_set *ss, const struct sample_event *e);
/* A note (already printed to stderr) for the recording, stamped t,
 * about incarnation inc (0: the recording's). */
void sink_set_note(const struct sink_set *ss, double t, int64_t inc,
		   const char *text);
void sink_set_frame(const struct sink_set *ss, const struct sample_frame *f);
void sink_set_target_end(const struct sink_set *ss, int64_t target, double t,
			 bool final);
/* Every sink's end(), even after one fails; 0 or -1 when any did. */
int sink_set_end(const struct sink_set *ss, double t, bool recorded);

#endif
