/*
 * source.h - the figures recorded alongside memory that come from outside
 * /proc: the work counter (--work-cmd, --work URL#METRIC, --work-log) and
 * gauges (--gauge NAME=CMD, --gauge NAME=URL#METRIC).
 *
 * A source turns one command-line argument into one number per reading.
 * A source set reads all of them in a thread of its own, so a hung
 * endpoint or a slow command can never hold up memory sampling: the
 * recorder asks for a reading at each tick and collects it at a later one;
 * a tick whose request finds the thread still busy gets a gap.
 *
 * What it does not do: store anything (the recorder writes what it
 * collects), interpret counters (resets are handled by the analysis), or
 * count connections (the probe does, in the recorder's thread).
 */
#ifndef MEMTREND_SOURCE_H
#define MEMTREND_SOURCE_H

#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>

enum source_role { SOURCE_WORK, SOURCE_GAUGE };

struct source;

/* --work-cmd CMD */
struct source *source_new_command(enum source_role role, const char *name,
				  const char *cmd);
/* --work URL#METRIC{labels}; NULL after printing an error (bad URL or
 * selector). */
struct source *source_new_metric(enum source_role role, const char *name,
				 const char *url_metric);
/* --work-log FILE --match REGEX; NULL after printing an error. */
struct source *source_new_log(enum source_role role, const char *name,
			      const char *path, const char *regex);
/* --gauge NAME=CMD or NAME=URL#METRIC; NULL after printing an error. */
struct source *source_new_gauge(const char *arg);
void source_free(struct source *s);
/* Close a metrics endpoint's connection after each scrape instead of
 * keeping it alive: set when connections are counted (--conn-port), so
 * memtrend's own scrape is never one of the service's connections. */
void source_set_fresh_connections(struct source *s);

enum source_role source_role(const struct source *s);
/* "requests" for work, the NAME of a gauge. */
const char *source_name(const struct source *s);
/* "command", "metric" or "log". */
const char *source_kind(const struct source *s);
/* The argument as given (command, URL#METRIC, FILE). */
const char *source_spec(const struct source *s);

/* One reading, in the calling thread. 0 with *value, or -1 with a
 * one-line reason in err, or SOURCE_DOWN with one when the service looks
 * not up yet (nothing listens on the URL; the log file does not exist
 * yet; the command printed nothing or exited non-zero): the startup grace
 * applies to those alone. Bounded by timeout_s (log reads are bounded by
 * size instead), and ended within about 100 ms once *cancel is set
 * (cancel may be NULL). */
#define SOURCE_DOWN (-2)
int source_read(struct source *s, double timeout_s, const atomic_bool *cancel,
		double *value, char *err, size_t errlen);

/* A change of state of one source, for the recorder to print and store:
 * it failed (with the reason) or it works again; note: news, not a
 * problem (a service that was starting answers now). */
struct source_event {
	size_t index;
	bool failed;
	bool note;
	char text[320];
};

struct source_set;

/* Takes ownership of sources[0..n-1] (the array itself stays the
 * caller's) and starts the reading thread. NULL after printing an error. */
struct source_set *source_set_new(struct source **sources, size_t n,
				  double timeout_s);
size_t source_set_count(const struct source_set *ss);
const struct source *source_set_get(const struct source_set *ss, size_t i);

/* Ask for one reading of every source, stamped t. False when the previous
 * request is still being read (the caller records gaps for t). */
bool source_set_request(struct source_set *ss, double t);
/* True while a reading is in flight (a work command or a scrape may hold a
 * connection to the service right now). */
bool source_set_busy(struct source_set *ss);

/* A service the recorder started is not answering yet: until the stamp
 * until, a source that has never read well fails quietly (gaps, no
 * event); its first good reading is then a note saying how many readings
 * were gaps. Still failing at until: the usual failure event. Without a
 * call, every failure is an event. */
void source_set_startup_grace(struct source_set *ss, double until);
/* At the end of a recording shorter than the grace: an event (into
 * events, at most n) for each source that failed quietly and never read
 * well, so that a wrong URL is not silent. Returns how many. */
size_t source_set_never_answered(struct source_set *ss,
				 struct source_event *events);

/* Take a finished reading, if there is one: *t its stamp, values[0..n-1]
 * the figures (NAN = failed), events[0..*n_events-1] the state changes
 * (at most n). With wait, block until the request in flight (if any) is
 * done. Returns true when a reading was taken. */
bool source_set_collect(struct source_set *ss, bool wait, double *t,
			double *values, struct source_event *events,
			size_t *n_events);

/* Stop the thread (waiting for a read in flight, at most the timeout) and
 * free everything. */
/* End the reading in flight within about 100 ms (it becomes a gap, with
 * no warning) and every later one: for a recorder that is stopping. */
void source_set_cancel(struct source_set *ss);
void source_set_free(struct source_set *ss);

#endif
