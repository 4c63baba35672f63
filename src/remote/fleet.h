/*
 * fleet.h - the memory series a Prometheus (or Thanos, Mimir,
 * VictoriaMetrics, Cortex) already holds, read into a dataset of targets
 * with their findings: the pipeline of `memtrend report --prometheus URL
 * --query PROMQL` (docs/fleet.md), a reader as store_read() and the CSV
 * reader are, except that its targets come analysed (their points are
 * dropped as they are analysed, to bound memory whatever the number of
 * series).
 *
 * What it does not do: parse options (src/cmd/cli_fleet.c fills struct
 * fleet_options), print a report (the caller renders what it returns) or
 * decide an exit code (it says which kind of failure it met). Warnings
 * and notes go to stderr (common.h) as it runs.
 *
 * The parts: fleet.c (the run: the grid, the listing, the batches, the
 * workers started and joined, the dataset assembled), fleet_run.c (a
 * worker), fleet_step.c (the step), over the client (prometheus.h) and
 * its pure helpers (prom_labels.h, prom_plan.h, prom_group.h,
 * prom_fetch.h, prom_auth.h).
 */
#ifndef MEMTREND_REMOTE_FLEET_H
#define MEMTREND_REMOTE_FLEET_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "series.h"

#define FLEET_PARALLEL_DEFAULT 2
#define FLEET_PARALLEL_MAX 8         /* --parallel's bound: workers */

/* What to read; the caller owns every pointer (by included). */
struct fleet_options {
	const char *url;           /* --prometheus; NULL: not a fleet report */
	const char *query, *work_query;
	double range_s, start, end, step_s; /* NAN when not given */
	char **by;                 /* --by, split at commas; owned */
	size_t n_by;
	const char *auth_file;
	double timeout_s;          /* NAN: the default */
	double max_response;       /* bytes; NAN: the default */
	long parallel;             /* 0: the default; at most
				      FLEET_PARALLEL_MAX */
	size_t max_series;         /* 0: the default */
};

enum fleet_status {
	FLEET_OK = 0,
	FLEET_BAD_INPUT = -2,      /* the options, the query or what it
				      selects (the command's exit 2) */
	FLEET_FAILED = -3,         /* the server, the network, a thread
				      (the command's exit 3) */
};

/* Read fo->query's series over the range, as targets analysed with ao.
 * fo->url and fo->query are set, and at most two of range, start and end
 * are given (the caller checks). keep: how many targets keep their
 * points (the worst, for a page's plots); 0: none keeps any.
 *
 * On FLEET_OK, *d is a dataset (dataset_init()'s: the caller releases
 * it) whose targets are sorted by name, and *f an owned array of
 * d->n_targets findings, (*f)[i] of d->targets[i] (the caller
 * analysis_release()s each and frees the array). Otherwise a message was
 * printed, *d is empty (zeroed) and *f NULL.
 *
 * Bounds: memory is bounded by the batches (64 MiB of points each, one
 * per worker), --max-series and --max-response, not by the range. */
enum fleet_status fleet_read(const struct fleet_options *fo,
			     const struct analysis_options *ao, size_t keep,
			     struct dataset *d, struct target_findings **f);

#endif
