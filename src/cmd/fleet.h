/*
 * fleet.h - what the two files of report --prometheus share
 * (docs/fleet.md): cli_fleet.c (the options, and the run: listing,
 * batches, workers started, the report) and fleet_run.c (a worker: a
 * batch fetched, its series into targets, analysed; --work-query).
 * Internal to src/cmd/.
 *
 * The pure parts live below: label sets (probe/prom_labels.h), the
 * batches (probe/prom_plan.h), --by groups (probe/prom_group.h), the
 * gathering of time chunks (probe/prom_fetch.h), --auth-file
 * (probe/prom_auth.h).
 */
#ifndef MEMTREND_CMD_FLEET_H
#define MEMTREND_CMD_FLEET_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cmd.h"
#include "prom_fetch.h"
#include "prom_labels.h"
#include "prometheus.h"
#include "strmap.h"

#define FLEET_MAX_POINTS 11000       /* per series per query (Prometheus) */
#define FLEET_BYTES_PER_POINT 32     /* `[1700000000.5,"12345678901"],` */
#define FLEET_POINT_BYTES 24         /* t, v while fetched; t, fp, inc */
#define FLEET_WHOLE_MAX (768.0 * 1048576)

struct batch {
	char *query;               /* owned: the selector of this batch */
	size_t chunk_points;       /* points per series per request */
};

struct work_series {
	struct prom_lset ls;
	double *v;                 /* points values at the grid; NAN */
};

struct fleet {
	const struct fleet_options *fo;
	const struct analysis_options *ao;
	struct prom_config pc;
	double start, end, step;
	size_t points;             /* per series over the whole range */
	bool names_differ;         /* several metric names: keep __name__ */
	struct batch *batches;
	size_t n_batches;
	struct work_series *work;
	size_t n_work;

	pthread_mutex_t mu;        /* guards everything below */
	size_t next_batch;
	atomic_bool stop;
	int fail;                  /* a prometheus.h result, 0 */
	struct series **targets;   /* owned, each on its own (they must not
				      move while findings point at them) */
	struct target_findings **findings;
	size_t n_targets, cap_targets;
	size_t keep;               /* targets whose points are kept */
	size_t *kept;
	size_t n_kept;
	struct strmap warned;      /* warnings and metric names said once */
	size_t work_ambiguous, overlap_targets;
};

/* A warning from the API or ours, said once (cli_fleet.c). */
void fleet_say_once(struct fleet *fl, const char *key, const char *text);

/* fleet_run.c: */
/* How many series an expression gives (a cheap query, a few points per
 * series), and the points per request that keep a response bounded;
 * refused (PROM_BAD_QUERY, a message naming opt) when the whole would
 * exceed FLEET_WHOLE_MAX, or, with check_by, when a --by label is on
 * none of its series. */
int fleet_size_whole(struct fleet *fl, struct prom_client *pc,
		     const char *opt, const char *query, bool check_by,
		     size_t *chunk);
/* --work-query: every work series, values on the grid of the range. */
int fleet_fetch_work(struct fleet *fl, struct prom_client *pc);
/* A worker thread (arg: the fleet): batches taken in turn until none is
 * left or fl->stop; a failure is left in fl->fail. */
void *fleet_worker(void *arg);

#endif
