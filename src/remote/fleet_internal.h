/*
 * fleet_internal.h - what the files of the fleet pipeline share
 * (fleet.h, docs/fleet.md): fleet.c (the run: listing, batches, workers
 * started, the dataset assembled) and fleet_run.c (a worker: a batch
 * fetched, its series into targets, analysed; --work-query), fleet_step.c
 * (the step). Internal to src/remote/.
 *
 * The pure parts are beside them: label sets (prom_labels.h), the
 * batches (prom_plan.h), --by groups (prom_group.h), the gathering of
 * time chunks (prom_fetch.h), --auth-file (prom_auth.h).
 */
#ifndef MEMTREND_REMOTE_FLEET_INTERNAL_H
#define MEMTREND_REMOTE_FLEET_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "fleet.h"
#include "prom_fetch.h"
#include "prom_labels.h"
#include "prometheus.h"
#include "strmap.h"

#define FLEET_MAX_POINTS 11000       /* per series per query (Prometheus) */
#define FLEET_BYTES_PER_POINT 32     /* `[1700000000.5,"12345678901"],` */
#define FLEET_POINT_BYTES 24         /* t, v while fetched; t, fp, inc */
#define FLEET_WHOLE_MAX (768.0 * 1048576)
#define FLEET_BATCH_MEMORY (64.0 * 1048576) /* a batch's points, 24 B each */
/* One series' points at most: a batch of one series within its bound. */
#define FLEET_SERIES_POINTS_MAX \
	((size_t)(FLEET_BATCH_MEMORY / FLEET_POINT_BYTES))
#define FLEET_MAX_SERIES_DEFAULT 10000
#define FLEET_API_WARNINGS_MAX 16    /* distinct ones said; then counted */
#define FLEET_STEP_DEFAULT 60.0      /* when the data's interval is unknown */
/* Fewer analysed readings than this, inconclusive: the step may have
 * starved the analysis (the "short window" bound of docs/verdicts.md). */
#define FLEET_STARVED_SAMPLES 20

struct batch {
	char *query;               /* owned: the selector of this batch */
	size_t chunk_points;       /* points per series per request */
	size_t *members;           /* owned: indexes in fleet.listed of the
				      series it asks for; NULL: an
				      expression, any series */
	size_t n_members;
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
	double data_step;          /* the data's own interval (fleet_step.c);
				      NAN: not read */
	size_t points;             /* per series over the whole range */
	bool names_differ;         /* several metric names: keep __name__ */
	size_t max_series;         /* --max-series or its default */
	const struct prom_lset *listed; /* the listing (a selector); NULL */
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
	size_t api_warnings;       /* distinct API warnings said */
	size_t api_warnings_more;  /* and those left unsaid */
	size_t work_ambiguous, overlap_targets;
	/* What the server sent that was not asked for (prom_fetch.h,
	 * prometheus.h), said once each at the end. */
	size_t foreign;
	struct prom_tally tally;
};

/* A warning from the API or ours, said once (fleet.c). */
void fleet_say_once(struct fleet *fl, const char *key, const char *text);

/* fleet_step.c: */
/* The interval of the series ls (its sample times, read by one query
 * of timestamp() over at most 10 minutes of [start, end]); NAN when it
 * cannot be read (fewer than 3 samples there, or the query failed: said
 * by the client). */
double fleet_data_step(struct prom_client *pc, const struct prom_lset *ls,
		       double start, double end);
/* The step when --step is not given: the data's interval, but no finer
 * than [start, end] in FLEET_MAX_POINTS points; FLEET_STEP_DEFAULT when
 * the interval is unknown. */
double fleet_default_step(double data_step, double start, double end);
/* Inconclusive on fewer than FLEET_STARVED_SAMPLES readings, with
 * advice to watch longer. */
bool fleet_starved(const struct target_findings *f);
/* For such a target read at step, coarser than the data's interval
 * (or that interval unknown): the advice becomes --step (SETTLE_STEP). */
void fleet_step_advice(struct target_findings *f, double step,
		       double data_step);

/* fleet_run.c: */
/* How many series an expression gives (a cheap query, a few points per
 * series), and the points per request that keep a response bounded;
 * refused (PROM_BAD_QUERY, a message naming opt) when they are more
 * than --max-series, when the whole would exceed FLEET_WHOLE_MAX, or,
 * with check_by, when a --by label is on none of its series. The fetch
 * itself is bounded again (FLEET_WHOLE_MAX, --max-series: the series
 * may differ from those counted). */
int fleet_size_whole(struct fleet *fl, struct prom_client *pc,
		     const char *opt, const char *query, bool check_by,
		     size_t *chunk);
/* The error (with advice) when opt's query has n series, more than
 * --max-series; what: "the selector matches". The caller exits 2. */
void fleet_too_many_series(const struct fleet *fl, const char *opt,
			   const char *what, size_t n);
/* Count what a fetch saw but was not asked for into fl, and a
 * client's tally (once, as it is freed: it sums every call); either may
 * be NULL. Takes fl->mu. */
void fleet_count(struct fleet *fl, const struct prom_fetch *fx,
		 const struct prom_client *pc);
/* --work-query: every work series, values on the grid of the range. */
int fleet_fetch_work(struct fleet *fl, struct prom_client *pc);
/* A worker thread (arg: the fleet): batches taken in turn until none is
 * left or fl->stop; a failure is left in fl->fail. */
void *fleet_worker(void *arg);

#endif
