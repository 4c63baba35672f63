/*
 * prometheus.h - a client of the Prometheus HTTP API (also served by
 * Thanos, Mimir, Cortex and VictoriaMetrics): the series that match a
 * selector (/api/v1/series) and range queries (/api/v1/query_range), for
 * `report --prometheus` (docs/fleet.md).
 *
 * What it does: POSTs the request through http.c (auth header, timeout,
 * a bound on the response's size), retries what may pass (a transport
 * failure, a timeout, a 5xx) with back-off, reads the server's error
 * message on a 4xx, and parses the response as it streams in (yajl's
 * event parser, fed libcurl's chunks) without building a tree: each
 * series is handed to a callback with its labels and its points, then
 * forgotten. What it does not do: split a query into pieces (the caller
 * sizes each request to what the server and the bound allow), keep any
 * series, or decide what a series means.
 *
 * Bounds, whatever the server sends: the response is never held; memory
 * is one series' labels (at most PROM_LABELS_MAX bytes) and points (with
 * prom_parser_expect, as range queries set it: at most twice the steps
 * asked) at a time, plus the token cut by a chunk's end, held back until
 * it ends (a string or number is at most PROM_TOKEN_MAX bytes), and 8
 * bytes per series handed on, for retries. A longer string, a longer
 * number cut by a chunk's edge (inside one chunk yajl reads it in linear
 * time, holding nothing, and a point's number() refuses it), or longer
 * labels make the response refused (PROM_FAILED, said).
 * body_max bounds the bytes one response may bring, counted after gzip
 * decoding; the timeout bounds each try, checked as each piece of the
 * body is delivered too (decoding and parsing happen there, http.h).
 * Time is linear in the body (yajl is handed whole tokens; see
 * prometheus.c). Integer byte counts and timestamps take a fast path,
 * anything else strtod() (the same doubles).
 *
 * Points of a range query (prom_query_range, prom_parser_expect): a
 * point outside the asked [start, end] is left out and counted; a
 * series' points are handed on sorted by time, each time once (the first
 * read kept), those that came after a later one and the repeats counted
 * (struct prom_tally); a series with more distinct times than the steps
 * asked (times off the step) is refused.
 *
 * Values: NaN and infinite values are gaps (left out). Stale markers
 * never reach a query's result (Prometheus drops them; one that did
 * would be a NaN, a gap).
 *
 * Thread use: a client belongs to one thread at a time; several clients
 * may run at once (one per thread). http_global_init() must have run.
 */
#ifndef MEMTREND_PROMETHEUS_H
#define MEMTREND_PROMETHEUS_H

#include <stddef.h>

#define PROM_TOKEN_MAX (16u << 10)   /* a JSON string or number: a label
					value, a warning, an error message */
#define PROM_LABELS_MAX (32u << 10)  /* one series' label names and values */

/* What a call returns besides 0. */
enum prom_result {
	PROM_OK = 0,
	PROM_BAD_QUERY = -2,   /* the server refused the request (4xx): a
				  PromQL error, a bad parameter; its message
				  was printed */
	PROM_FAILED = -3,      /* down, hung, 5xx after the retries, a
				  response that is not the API's */
	PROM_TOO_LARGE = -4,   /* the response exceeded body_max */
	PROM_STOPPED = -5,     /* the callback returned non-zero */
};

struct prom_config {
	const char *url;           /* base URL: http(s)://host:port[/prefix] */
	const char *authorization; /* Authorization header value; NULL */
	double timeout_s;          /* per request, the server's evaluation
				      included (> 0) */
	size_t body_max;           /* the bound on one response (bytes) */
	int retries;               /* retries after the first try */
	/* Called with each warning the API returns (partial data, ...),
	 * from the client's thread; NULL: warning() each. */
	void (*on_warning)(void *arg, const char *text);
	void *warning_arg;
};

struct prom_label {
	const char *name, *value;
};

/* What a server sent that was not what was asked, counted over the
 * series handed on (each series once, also across retries). */
struct prom_tally {
	size_t out_of_range;       /* points outside [start, end]: left out */
	size_t disordered;         /* points that came after a later point of
				      their series: sorted into place */
	size_t duplicates;         /* points at a time the series already
				      had: left out (the first read kept) */
};

/* a += b */
void prom_tally_add(struct prom_tally *a, const struct prom_tally *b);

/* One series of a response: labels in the order the server sent them
 * (Prometheus sorts them by name), points in strictly increasing time
 * order (t in Unix seconds; in a range query's [start, end]); all
 * borrowed for the call's duration. Return 0 to go on, non-zero to stop
 * (the call then returns PROM_STOPPED). */
typedef int (*prom_series_fn)(void *arg, const struct prom_label *labels,
			      size_t n_labels, const double *t,
			      const double *v, size_t n);

struct prom_client;

/* NULL after a message. The config's strings are copied. */
struct prom_client *prom_client_new(const struct prom_config *cfg);
void prom_client_free(struct prom_client *c);

/* What the client's responses brought that was not asked for, over
 * all its calls so far. */
const struct prom_tally *prom_client_tally(const struct prom_client *c);

/* The series matching selector with samples in [start, end]: fn with
 * n = 0 for each. */
int prom_series(struct prom_client *c, const char *selector, double start,
		double end, prom_series_fn fn, void *arg);

/* query evaluated at start, start + step, ... <= end: fn for each series
 * of the result (a matrix). The caller keeps (end - start) / step under
 * the server's 11,000 points per series. */
int prom_query_range(struct prom_client *c, const char *query, double start,
		     double end, double step, prom_series_fn fn, void *arg);

/* A streaming parser of one query_range or series response (what the
 * calls above use, and tests, fuzzing and benchmarks): feed it the body
 * in chunks cut anywhere; fn is called for each series as its object
 * closes. what names the request in messages (borrowed; it must outlive
 * the parser). */
struct prom_parser;
struct prom_parser *prom_parser_new(const char *what, prom_series_fn fn,
				    void *arg,
				    void (*on_warning)(void *, const char *),
				    void *warning_arg);
/* A range query's grid: points outside [start, end] are left out, a
 * series' points sorted, and more distinct times than the steps refused
 * (the bounds above). Call before the first byte. */
void prom_parser_expect(struct prom_parser *p, double start, double end,
			double step);
/* What the series handed on so far brought that was not asked for. */
const struct prom_tally *prom_parser_tally(const struct prom_parser *p);
/* The next len bytes: 0 to go on, else PROM_FAILED (not the API's JSON,
 * a message printed) or PROM_STOPPED; then feed no more. */
int prom_parser_feed(struct prom_parser *p, const void *data, size_t len);
/* The body's end: PROM_OK, PROM_BAD_QUERY (the API's "status":"error";
 * its message printed), PROM_FAILED (truncated or not the API's JSON,
 * a message printed) or PROM_STOPPED. */
int prom_parser_finish(struct prom_parser *p);
void prom_parser_free(struct prom_parser *p);

/* The parser above on body[0..len) in one chunk. */
int prom_parse_response(const char *body, size_t len, const char *what,
			prom_series_fn fn, void *arg,
			void (*on_warning)(void *, const char *),
			void *warning_arg);

/* Whether query is a plain selector (METRIC, METRIC{...} or {...}, no
 * function, operator, range or modifier): /api/v1/series accepts only
 * those, and only those can be narrowed by adding a matcher. */
int prom_is_selector(const char *query);

/* query with the matchers `extra` (e.g. `pod=~"a|b"`) added inside its
 * braces; query must be a selector. Owned by the caller. */
char *prom_selector_add(const char *query, const char *extra);

/* s written as the body of a PromQL double-quoted string (\\ and \"
 * and control characters escaped) into an owned string. */
char *prom_quote(const char *s);
/* s with RE2's special characters escaped (so that =~ matches it
 * literally); owned. */
char *prom_regex_escape(const char *s);

#endif
