/*
 * render_probe.h - `memtrend probe`'s table and advice, as text and JSON
 * (docs/probe.md). Formats what probe_compare.c decided; computes nothing
 * a verdict depends on. Arm names may hold a library's file name: escaped
 * for the terminal, made valid UTF-8 for JSON.
 */
#ifndef MEMTREND_RENDER_PROBE_H
#define MEMTREND_RENDER_PROBE_H

#include <stdbool.h>
#include <stdio.h>

#include "probe_compare.h"

struct probe_report {
	int threads;
	long rounds;
	double min_size, max_size; /* bytes */
	double idle_s;
	double cap;                /* the capped arm's cap, bytes */
	const char *like;          /* "PID 1234: jemalloc, 12 threads", or
				      NULL; may hold a path: escaped */
	const char *recording;     /* the recording kept (-o), or NULL */
	double elapsed_s;          /* the whole probe */
	const char *allocator_note;/* what the arms' allocator really is
				      when not glibc's (a sanitizer's), or
				      NULL */
	const struct probe_arm_readings *arms;
	const struct probe_arm_finding *findings;
	size_t n;
	const struct probe_advice *advice;
};

/* The advice as one sentence (malloc'd; unescaped: it may name a
 * library's path). */
char *render_probe_advice(const struct probe_report *r);
/* The table, then the advice. 0, or -1 on a write error. */
int render_probe_text(FILE *out, const struct probe_report *r);
/* One JSON document (docs/probe.md lists its fields). 0 or -1. */
int render_probe_json(FILE *out, const struct probe_report *r);

#endif
