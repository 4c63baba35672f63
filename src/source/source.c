/*
 * source.c - work counters and gauges from commands, metrics endpoints and
 * logs, read in a thread of their own (source.h).
 *
 * Threading contract: the recorder's thread owns the source set and calls
 * request/collect; the reading thread only runs source_read() on the
 * sources and writes results under the mutex. Nothing else is shared: the
 * probe, the store and stderr stay with the recorder's thread (state
 * changes come back as events for it to print and store).
 *
 * States of the one request slot: IDLE -> PENDING (request) -> RUNNING
 * (thread took it) -> DONE (results ready) -> IDLE (collected). A request
 * while PENDING/RUNNING/DONE is refused: the caller records a gap, and a
 * source that hangs costs gaps, never memory samples.
 */
#include "source.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "http.h"
#include "openmetrics.h"
#include "source_command.h"
#include "source_log.h"

enum source_kind_id { KIND_COMMAND, KIND_METRIC, KIND_LOG };

struct source {
	enum source_role role;
	enum source_kind_id kind;
	char *name;
	char *spec;
	/* KIND_COMMAND */
	char *command;
	/* KIND_METRIC */
	char *url;
	struct openmetrics_selector *selector;
	struct http_client *http;  /* made lazily, in the reading thread */
	bool fresh_connections;    /* no keep-alive */
	/* KIND_LOG */
	struct source_log *log;
};

static struct source *source_alloc(enum source_role role,
				   enum source_kind_id kind, const char *name,
				   const char *spec)
{
	struct source *s = xcalloc(1, sizeof(*s));
	s->role = role;
	s->kind = kind;
	s->name = xstrdup(name ? name : "requests");
	s->spec = xstrdup(spec);
	return s;
}

struct source *source_new_command(enum source_role role, const char *name,
				  const char *cmd)
{
	struct source *s = source_alloc(role, KIND_COMMAND, name, cmd);
	s->command = xstrdup(cmd);
	return s;
}

static bool is_http_url(const char *s)
{
	return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0;
}

struct source *source_new_metric(enum source_role role, const char *name,
				 const char *url_metric)
{
	/* The first '#' splits: a URL's fragment is never sent, and a metric
	 * name cannot hold '#' (a label value after it may). */
	const char *hash = strchr(url_metric, '#');
	if (!is_http_url(url_metric) || !hash || !hash[1]) {
		error("bad metric source '%s': expected http(s)://HOST:PORT/"
		      "PATH#METRIC or ...#METRIC{label=\"value\"}", url_metric);
		return NULL;
	}
	char err[256];
	struct openmetrics_selector *sel;
	if (openmetrics_selector_parse(hash + 1, &sel, err, sizeof(err))) {
		error("bad metric selector '%s': %s", hash + 1, err);
		return NULL;
	}
	struct source *s = source_alloc(role, KIND_METRIC, name, url_metric);
	s->url = xmalloc((size_t)(hash - url_metric) + 1);
	memcpy(s->url, url_metric, (size_t)(hash - url_metric));
	s->url[hash - url_metric] = '\0';
	s->selector = sel;
	return s;
}

struct source *source_new_log(enum source_role role, const char *name,
			      const char *path, const char *regex)
{
	struct source_log *log = source_log_open(path, regex);
	if (!log)
		return NULL;
	char spec[4096];
	snprintf(spec, sizeof(spec), "%s =~ %s", path, regex);
	struct source *s = source_alloc(role, KIND_LOG, name, spec);
	s->log = log;
	return s;
}

static bool gauge_name_ok(const char *name, size_t len)
{
	if (len == 0 || len > 64 || !(isalpha((unsigned char)name[0]) ||
				      name[0] == '_'))
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!isalnum(c) && c != '_' && c != '.' && c != ':' &&
		    c != '-')
			return false;
	}
	return true;
}

struct source *source_new_gauge(const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || !gauge_name_ok(arg, (size_t)(eq - arg)) || !eq[1]) {
		error("bad --gauge '%s': expected NAME=COMMAND or "
		      "NAME=URL#METRIC (NAME: letters, digits, _ . : -)", arg);
		return NULL;
	}
	char name[65];
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = '\0';
	if (strcmp(name, "requests") == 0 || strcmp(name, "footprint") == 0 ||
	    strcmp(name, "connections") == 0) {
		error("bad --gauge '%s': '%s' names a figure memtrend records "
		      "itself", arg, name);
		return NULL;
	}
	if (is_http_url(eq + 1))
		return source_new_metric(SOURCE_GAUGE, name, eq + 1);
	return source_new_command(SOURCE_GAUGE, name, eq + 1);
}

void source_free(struct source *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->spec);
	free(s->command);
	free(s->url);
	if (s->selector)
		openmetrics_selector_free(s->selector);
	http_client_free(s->http);
	if (s->log)
		source_log_free(s->log);
	free(s);
}

void source_set_fresh_connections(struct source *s)
{
	s->fresh_connections = true;
}

enum source_role source_role(const struct source *s) { return s->role; }
const char *source_name(const struct source *s) { return s->name; }
const char *source_spec(const struct source *s) { return s->spec; }

const char *source_kind(const struct source *s)
{
	switch (s->kind) {
	case KIND_COMMAND: return "command";
	case KIND_METRIC: return "metric";
	case KIND_LOG: return "log";
	}
	return "?";
}

static int metric_read(struct source *s, double timeout_s,
		       const atomic_bool *cancel, double *value, char *err,
		       size_t errlen)
{
	if (!s->http) {
		/* Connecting gets at most half the time: a refused or
		 * unroutable endpoint should fail fast and clearly. */
		s->http = http_client_new(fmax(timeout_s / 2, 0.05),
					  timeout_s, !s->fresh_connections);
		if (!s->http) {
			snprintf(err, errlen, "cannot create an HTTP client");
			return -1;
		}
	}
	http_client_set_cancel(s->http, cancel);
	const char *body;
	size_t len;
	int hr = http_get(s->http, s->url, &body, &len, err, errlen);
	if (hr)
		return hr == HTTP_UNREACHABLE ? SOURCE_DOWN : -1;
	size_t matched;
	int rc = openmetrics_sum(s->selector, body, len, value, &matched, err,
				 errlen);
	return rc == OPENMETRICS_OK ? 0 : -1;
}

int source_read(struct source *s, double timeout_s, const atomic_bool *cancel,
		double *value, char *err, size_t errlen)
{
	*value = NAN;
	err[0] = '\0';
	switch (s->kind) {
	case KIND_COMMAND: {
		int rc = source_command_run(s->command, timeout_s, cancel,
					    value, err, errlen);
		return rc == SOURCE_COMMAND_DOWN ? SOURCE_DOWN : rc ? -1 : 0;
	}
	case KIND_METRIC:
		return metric_read(s, timeout_s, cancel, value, err, errlen);
	case KIND_LOG: {
		int rc = source_log_read(s->log, value, err, errlen);
		return rc == SOURCE_LOG_MISSING ? SOURCE_DOWN : rc ? -1 : 0;
	}
	}
	return -1;
}

/* ---- the reading thread ---- */

enum slot_state { SLOT_IDLE, SLOT_PENDING, SLOT_RUNNING, SLOT_DONE };

struct source_set {
	struct source **sources;
	size_t n;
	double timeout_s;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cond;
	bool stop;
	atomic_bool cancel;        /* set by source_set_free(): the reading
				      in flight ends within 100 ms */
	enum slot_state state;
	double t;                  /* stamp of the request in the slot */
	double *values;            /* results of the request in the slot */
	char (*errs)[256];
	bool *down;                /* the failure was SOURCE_DOWN */
	/* The recorder thread's view, for events. */
	bool *failing;
	unsigned long long *gaps;  /* failed readings in the current (or
				      last) spell of failure */
	bool *answered;            /* has read well at least once */
	unsigned long long *startup_gaps; /* quiet failures before that */
	char (*startup_errs)[256]; /* the last quiet failure's reason */
	double grace_until;        /* stamp; -INFINITY: no grace */
};

static void *reading_thread(void *arg)
{
	struct source_set *ss = arg;
	double *values = xcalloc(ss->n, sizeof(*values));
	char (*errs)[256] = xcalloc(ss->n, sizeof(*errs));
	bool *down = xcalloc(ss->n, sizeof(*down));
	pthread_mutex_lock(&ss->mu);
	for (;;) {
		while (!ss->stop && ss->state != SLOT_PENDING)
			pthread_cond_wait(&ss->cond, &ss->mu);
		if (ss->stop)
			break;
		ss->state = SLOT_RUNNING;
		pthread_mutex_unlock(&ss->mu);
		for (size_t i = 0; i < ss->n; i++) {
			errs[i][0] = '\0';
			int rc = source_read(ss->sources[i], ss->timeout_s,
					     &ss->cancel, &values[i], errs[i],
					     sizeof(errs[i]));
			down[i] = rc == SOURCE_DOWN;
			if (rc)
				values[i] = NAN;
			else if (!isfinite(values[i])) {
				snprintf(errs[i], sizeof(errs[i]),
					 "not a finite number");
				values[i] = NAN;
			}
		}
		pthread_mutex_lock(&ss->mu);
		memcpy(ss->values, values, ss->n * sizeof(*values));
		memcpy(ss->errs, errs, ss->n * sizeof(*errs));
		memcpy(ss->down, down, ss->n * sizeof(*down));
		ss->state = SLOT_DONE;
		pthread_cond_broadcast(&ss->cond);
	}
	pthread_mutex_unlock(&ss->mu);
	free(values);
	free(errs);
	free(down);
	return NULL;
}

/* The sources and the arrays; the thread is gone (or never started). */
static void source_set_free_parts(struct source_set *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		source_free(ss->sources[i]);
	free(ss->sources);
	free(ss->values);
	free(ss->errs);
	free(ss->down);
	free(ss->failing);
	free(ss->gaps);
	free(ss->answered);
	free(ss->startup_gaps);
	free(ss->startup_errs);
	free(ss);
}

struct source_set *source_set_new(struct source **sources, size_t n,
				  double timeout_s)
{
	assert(n > 0 && timeout_s > 0);
	struct source_set *ss = xcalloc(1, sizeof(*ss));
	ss->sources = xcalloc(n, sizeof(*ss->sources));
	memcpy(ss->sources, sources, n * sizeof(*sources));
	ss->n = n;
	ss->timeout_s = timeout_s;
	ss->values = xcalloc(n, sizeof(*ss->values));
	ss->errs = xcalloc(n, sizeof(*ss->errs));
	ss->down = xcalloc(n, sizeof(*ss->down));
	ss->failing = xcalloc(n, sizeof(*ss->failing));
	ss->gaps = xcalloc(n, sizeof(*ss->gaps));
	ss->answered = xcalloc(n, sizeof(*ss->answered));
	ss->startup_gaps = xcalloc(n, sizeof(*ss->startup_gaps));
	ss->startup_errs = xcalloc(n, sizeof(*ss->startup_errs));
	ss->grace_until = -INFINITY;
	pthread_mutex_init(&ss->mu, NULL);
	pthread_cond_init(&ss->cond, NULL);
	int rc = pthread_create(&ss->thread, NULL, reading_thread, ss);
	if (rc) {
		error("cannot start the source thread: %s", strerror(rc));
		pthread_mutex_destroy(&ss->mu);
		pthread_cond_destroy(&ss->cond);
		source_set_free_parts(ss);
		return NULL;
	}
	return ss;
}

size_t source_set_count(const struct source_set *ss) { return ss->n; }

const struct source *source_set_get(const struct source_set *ss, size_t i)
{
	assert(i < ss->n);
	return ss->sources[i];
}

bool source_set_request(struct source_set *ss, double t)
{
	pthread_mutex_lock(&ss->mu);
	bool ok = ss->state == SLOT_IDLE;
	if (ok) {
		ss->t = t;
		ss->state = SLOT_PENDING;
		pthread_cond_broadcast(&ss->cond);
	}
	pthread_mutex_unlock(&ss->mu);
	return ok;
}

bool source_set_busy(struct source_set *ss)
{
	pthread_mutex_lock(&ss->mu);
	bool busy = ss->state == SLOT_PENDING || ss->state == SLOT_RUNNING;
	pthread_mutex_unlock(&ss->mu);
	return busy;
}

static const char *role_text(const struct source *s)
{
	return s->role == SOURCE_WORK ? "work counter" : "gauge";
}

void source_set_startup_grace(struct source_set *ss, double until)
{
	pthread_mutex_lock(&ss->mu);
	ss->grace_until = until;
	pthread_mutex_unlock(&ss->mu);
}

size_t source_set_never_answered(struct source_set *ss,
				 struct source_event *events)
{
	size_t k = 0;
	pthread_mutex_lock(&ss->mu);
	for (size_t i = 0; i < ss->n; i++) {
		if (ss->answered[i] || ss->failing[i] || !ss->startup_gaps[i])
			continue;
		const struct source *s = ss->sources[i];
		struct source_event *e = &events[k++];
		e->index = i;
		e->failed = true;
		e->note = false;
		snprintf(e->text, sizeof(e->text), "%s '%s' (%s %s) never "
			 "answered: %llu reading%s, all gaps (the last: %s)",
			 role_text(s), s->name, source_kind(s), s->spec,
			 ss->startup_gaps[i],
			 ss->startup_gaps[i] == 1 ? "" : "s",
			 ss->startup_errs[i][0] ? ss->startup_errs[i] :
			 "no reason given");
	}
	pthread_mutex_unlock(&ss->mu);
	return k;
}

bool source_set_collect(struct source_set *ss, bool wait, double *t,
			double *values, struct source_event *events,
			size_t *n_events)
{
	*n_events = 0;
	pthread_mutex_lock(&ss->mu);
	while (wait && (ss->state == SLOT_PENDING ||
			ss->state == SLOT_RUNNING))
		pthread_cond_wait(&ss->cond, &ss->mu);
	if (ss->state != SLOT_DONE) {
		pthread_mutex_unlock(&ss->mu);
		return false;
	}
	*t = ss->t;
	memcpy(values, ss->values, ss->n * sizeof(*values));
	for (size_t i = 0; i < ss->n; i++) {
		const struct source *s = ss->sources[i];
		bool failed = isnan(values[i]);
		if (failed && ss->down[i] && !ss->answered[i] &&
		    !ss->failing[i] && *t < ss->grace_until) {
			/* still starting: expected (a reading cut short by
			 * the stop says nothing about why) */
			ss->startup_gaps[i]++;
			if (!atomic_load(&ss->cancel))
				memcpy(ss->startup_errs[i], ss->errs[i],
				       sizeof(ss->startup_errs[i]));
			continue;
		}
		if (!failed && !ss->answered[i]) {
			ss->answered[i] = true;
			if (ss->startup_gaps[i] && !ss->failing[i]) {
				struct source_event *e =
					&events[(*n_events)++];
				e->index = i;
				e->failed = false;
				e->note = true;
				snprintf(e->text, sizeof(e->text),
					 "%s '%s' answers (its first %llu "
					 "reading%s were gaps while the "
					 "service started)", role_text(s),
					 s->name, ss->startup_gaps[i],
					 ss->startup_gaps[i] == 1 ? "" : "s");
				continue;
			}
		}
		if (failed && !ss->failing[i])
			ss->gaps[i] = 0;  /* count this spell's gaps */
		if (failed)
			ss->gaps[i]++;
		if (failed == ss->failing[i])
			continue;
		/* a reading cut short by the stop is a gap, not news */
		if (failed && atomic_load(&ss->cancel))
			continue;
		struct source_event *e = &events[(*n_events)++];
		e->index = i;
		e->failed = failed;
		e->note = false;
		if (failed)
			snprintf(e->text, sizeof(e->text),
				 "%s '%s' (%s %s) fails: %s; gaps are "
				 "recorded, memory sampling goes on",
				 role_text(s), s->name, source_kind(s),
				 s->spec, ss->errs[i]);
		else
			snprintf(e->text, sizeof(e->text),
				 "%s '%s' works again (after %llu failed "
				 "reading%s)",
				 role_text(s), s->name, ss->gaps[i],
				 ss->gaps[i] == 1 ? "" : "s");
		ss->failing[i] = failed;
	}
	ss->state = SLOT_IDLE;
	pthread_mutex_unlock(&ss->mu);
	return true;
}

void source_set_cancel(struct source_set *ss)
{
	if (ss)
		atomic_store(&ss->cancel, true);
}

void source_set_free(struct source_set *ss)
{
	if (!ss)
		return;
	atomic_store(&ss->cancel, true);
	pthread_mutex_lock(&ss->mu);
	ss->stop = true;
	pthread_cond_broadcast(&ss->cond);
	pthread_mutex_unlock(&ss->mu);
	pthread_join(ss->thread, NULL);
	pthread_mutex_destroy(&ss->mu);
	pthread_cond_destroy(&ss->cond);
	source_set_free_parts(ss);
}
