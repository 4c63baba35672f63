/*
 * exporter.h - live figures of every recorded target for Prometheus
 * (`record --listen`): the latest footprint and its components, the
 * samples counted, and an analysis "so far" per target -- slope and
 * interval, detectable slope, verdict, time to exhaustion -- served as
 * OpenMetrics or Prometheus text (render_openmetrics.h, docs/openmetrics.md).
 *
 * Fed as one of the recorder's sinks (exporter_sink(), sink.h: each
 * frame's targets through exporter_sample() in the recorder's thread:
 * O(log targets) each under a mutex, never waits for an analysis or a
 * scrape). The analysis is updated incrementally: each target keeps a
 * bounded, thinned series (live.h, EXPORTER_POINTS points) and one
 * analysis thread re-analyses targets in turn, each at most every
 * analyse_every_s, so a scrape only formats figures already computed.
 * The thread rests after each analysis so that it uses at most
 * EXPORTER_CPU_SHARE of a core: with many targets a target's figures are
 * refreshed less often (at ~5 ms an analysis, 1,000 targets take about
 * 4 minutes a round), never at the recorder's cost.
 *
 * What is served (docs/openmetrics.md, "Groups, trees and cardinality"):
 * every target the user named (-p, --name, a command) and its --children
 * tree (the sum) with the root's pid; every --group-by group (the sum)
 * without one, so that a group's series lives as long as the group,
 * whatever its members' pids; and --all's
 * processes one by one as --listen-processes says: all, none, or only
 * the long-lived ones (alive at least long_s by their own start time), so
 * that short-lived processes do not each leave a series behind in the
 * scraper. A process not served is not analysed either; with "none" it is
 * not kept at all.
 *
 * Bounds: memory O(targets x EXPORTER_POINTS); a scrape O(targets); the
 * analysis thread one target at a time (tens of ms at EXPORTER_POINTS).
 */
#ifndef MEMTREND_EXPORTER_H
#define MEMTREND_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis.h"
#include "render_openmetrics.h"
#include "sink.h"

#define EXPORTER_POINTS 128       /* kept points per target */
#define EXPORTER_CPU_SHARE 0.02   /* of one core, for the analyses */

/* --listen-processes: which of --all's processes have series of their
 * own (0, options zeroed: all, as before the option). */
enum exporter_processes {
	EXPORTER_PROCESSES_ALL,
	EXPORTER_PROCESSES_LONG,   /* those alive at least long_s */
	EXPORTER_PROCESSES_NONE,
};
/* "long" unless given: 5 minutes (docs/openmetrics.md says why). */
#define EXPORTER_LONG_S 300.0

/* What a target is to the exposition. */
enum exporter_role {
	EXPORTER_NAMED,            /* -p, --name, a command and their
				      --children trees: always served, with
				      the (root's) pid */
	EXPORTER_PROCESS,          /* one of --all's: as --listen-processes
				      says, with its pid */
	EXPORTER_SUM,              /* a --group-by group: always served, no
				      pid label */
};

struct exporter_options {
	const char *listen;        /* "[ADDR:]PORT" */
	enum exporter_processes processes;
	double long_s;             /* > 0 with EXPORTER_PROCESSES_LONG */
	struct analysis_options analysis;
	double analyse_every_s;    /* a target at most this often (> 0) */
	double mem_total;          /* bytes, for exhaustion; NAN unknown */
};

/* One sample of a target (the recorder's, converted). For a group pid,
 * start_ticks and start_time are those of the process its incarnation
 * started with, for a tree its root's: a change is a new incarnation (a
 * group whose members all ended and came back, a tree whose root
 * restarted). */
struct exporter_sample {
	int64_t target_id;
	const char *name;          /* copied on first sight */
	const char *kind;          /* a static string */
	enum exporter_role role;
	long pid;
	unsigned long long start_ticks;
	double start_time;         /* Unix s; NAN unknown */
	const char *comm, *cmdline;
	double t;
	double footprint, anon, swap, shmem, gpu;
	/* Issue 28: the part of gpu on each NVML device, and each device's
	 * total and used memory (all processes); SERIES_GPU_DEVICES each,
	 * NAN where none; NULL: no GPU figures by device. */
	const double *gpu_dev, *gpu_total, *gpu_used;
	double rss, file;          /* VmRSS, RssFile; NAN not read */
};

struct exporter;

/* Listen and start the analysis thread. NULL after a message, with
 * *exit_code as listener_start() gives it. *bound: the address bound. */
struct exporter *exporter_start(const struct exporter_options *o,
				int *exit_code, char *bound, size_t bound_len);
/* Stop listening, stop the thread, free. NULL is fine. */
void exporter_stop(struct exporter *e);

void exporter_sample(struct exporter *e, const struct exporter_sample *s);
/* The target is no longer followed: its figures leave the exposition. */
void exporter_target_end(struct exporter *e, int64_t target_id);

/* The exporter as a recorder's sink, valid until exporter_stop(): each
 * frame's targets but --children's descendants (their tree is served)
 * go to exporter_sample() with the role their kind gives them (a
 * "process" of --all: EXPORTER_PROCESS; a "group": EXPORTER_SUM; the
 * rest EXPORTER_NAMED), a target's end to exporter_target_end(). */
struct sink exporter_sink(struct exporter *e);

#endif
