/*
 * sampler_sources.c - the work counter and gauges (source/) as a sampler
 * (sampler.h): the source thread reads them (source.c: a hung endpoint
 * never delays a memory sample), this file declares them to the sinks,
 * asks the thread for a reading at each tick, and hands on each reading
 * it finished, stamped when it was asked for, into the frame being
 * built (sampler_reading()), with the thread's news (a source failed,
 * works again) as notes.
 *
 * What it does not do: read a process (no open, read, close), count
 * connections (the recorder's, from /proc: it asks busy() first, so as
 * not to count memtrend's own scrape), or choose when to stop.
 *
 * Ownership: the sources given to sources_sampler() are the sampler's
 * from then on: the source set's once started, freed by free() when the
 * run never started. Bounds: one reading in flight at most (a tick whose
 * request finds the last still in flight records gaps); nothing grows
 * with the length of the run.
 */
#include <assert.h>
#include <math.h>
#include <stdlib.h>

#include "common.h"
#include "sampler.h"
#include "source.h"

struct sources_sampler {
	struct source **sources;   /* owned until started; the array too */
	size_t n;
	size_t *roots;             /* owned copy: whose each is, or NULL */
	size_t n_pids;
	double timeout_s;
	struct source_set *set;    /* NULL before start */
	int64_t *ids;              /* the recorder's source ids */
	double *values;            /* one collected reading, scratch */
	struct source_event *events;
};

/* Print the thread's events[0..n) and keep them as the recording's
 * notes, stamped t. */
static void events_say(struct recorder *rec, double t,
		       const struct source_event *events, size_t n)
{
	for (size_t e = 0; e < n; e++)
		sampler_say(rec, t, !events[e].note, events[e].text);
}

/* Declare each source (its target: -p's root when it has one, else 0:
 * every target) and start the thread. */
static int ss_start(void *ctx, struct recorder *rec)
{
	struct sources_sampler *s = ctx;
	assert(!s->set && s->sources);
	for (size_t i = 0; i < s->n; i++) {
		const struct source *src = s->sources[i];
		int64_t target = 0;
		if (s->roots && s->roots[i] < s->n_pids)
			target = sampler_root_target(rec, s->roots[i]);
		s->ids[i] = sampler_source_declare(rec,
			source_role(src) == SOURCE_WORK ? "work" : "gauge",
			source_name(src), source_kind(src), source_spec(src),
			target);
	}
	/* the set owns the sources from here, even when it fails */
	s->set = source_set_new(s->sources, s->n, s->timeout_s);
	free(s->sources);
	s->sources = NULL;
	if (!s->set)
		return -1;
	/* A service started here needs a moment before it answers on its
	 * metrics port or to its CLI: not a failure to warn about. */
	if (sampler_command_running(rec))
		source_set_startup_grace(s->set, now_wall() +
					 SAMPLER_STARTUP_GRACE_S);
	return 0;
}

static void ss_collect(void *ctx, struct recorder *rec, bool wait)
{
	struct sources_sampler *s = ctx;
	double t;
	size_t n_events;
	if (!s->set || !source_set_collect(s->set, wait, &t, s->values,
					   s->events, &n_events))
		return;
	for (size_t i = 0; i < s->n; i++)
		sampler_reading(rec, s->ids[i], t, s->values[i]);
	events_say(rec, t, s->events, n_events);
}

/* Ask for tick t's readings; while the thread is still busy with an
 * earlier one (a hung endpoint), this tick gets gaps. */
static void ss_request(void *ctx, struct recorder *rec, double t)
{
	struct sources_sampler *s = ctx;
	if (!s->set || source_set_request(s->set, t))
		return;
	for (size_t i = 0; i < s->n; i++)
		sampler_reading(rec, s->ids[i], t, NAN);
}

static bool ss_busy(void *ctx)
{
	struct sources_sampler *s = ctx;
	return s->set && source_set_busy(s->set);
}

static void ss_cancel(void *ctx)
{
	struct sources_sampler *s = ctx;
	if (s->set)
		source_set_cancel(s->set);
}

/* Stopping: never wait out a hung scrape or a slow command (systemd
 * would SIGKILL us); the reading in flight is a gap. What never answered
 * is said, so that a wrong URL is not silent. */
static void ss_finish(void *ctx, struct recorder *rec, double t)
{
	struct sources_sampler *s = ctx;
	if (!s->set)
		return;
	source_set_cancel(s->set);
	ss_collect(s, rec, true);
	events_say(rec, t, s->events,
		   source_set_never_answered(s->set, s->events));
	source_set_free(s->set);
	s->set = NULL;
}

static void ss_free(void *ctx)
{
	struct sources_sampler *s = ctx;
	if (s->set)
		source_set_free(s->set);
	for (size_t i = 0; s->sources && i < s->n; i++)
		source_free(s->sources[i]);
	free(s->sources);
	free(s->roots);
	free(s->ids);
	free(s->values);
	free(s->events);
	free(s);
}

static const struct sampler_ops sources_sampler_ops = {
	.name = "sources",
	.start = ss_start,
	.collect = ss_collect,
	.request = ss_request,
	.busy = ss_busy,
	.cancel = ss_cancel,
	.finish = ss_finish,
	.free = ss_free,
};

struct sampler sources_sampler(struct source **sources, size_t n,
			       const size_t *roots, size_t n_pids,
			       double timeout_s)
{
	assert(n && sources);
	struct sources_sampler *s = xcalloc(1, sizeof(*s));
	s->sources = xcalloc(n, sizeof(*s->sources));
	for (size_t i = 0; i < n; i++)
		s->sources[i] = sources[i];
	s->n = n;
	if (roots) {
		s->roots = xcalloc(n, sizeof(*s->roots));
		for (size_t i = 0; i < n; i++)
			s->roots[i] = roots[i];
	}
	s->n_pids = n_pids;
	s->timeout_s = timeout_s;
	s->ids = xcalloc(n, sizeof(*s->ids));
	s->values = xcalloc(n, sizeof(*s->values));
	s->events = xcalloc(n, sizeof(*s->events));
	return (struct sampler){&sources_sampler_ops, s};
}
