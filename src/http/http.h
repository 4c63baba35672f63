/*
 * http.h - fetching a metrics page over HTTP(S): the one module that talks
 * to libcurl (only http.c includes curl.h).
 *
 * One client holds one reused curl handle, so a scrape every second keeps
 * its connection alive instead of reconnecting. It does not parse what it
 * fetches (openmetrics.c does) and does not retry: a failed fetch is the
 * caller's gap. Bounds: each fetch ends within the total timeout (also
 * while a body that arrived at once is decoded and parsed: the write
 * function looks at the clock), and a body larger than HTTP_BODY_MAX
 * (after gzip decoding) is refused rather than buffered. An API
 * client (prometheus.c) takes the body as it streams in instead
 * (http_request_stream()), never buffered here.
 *
 * Thread use: a client belongs to one thread at a time; http_global_init()
 * must run once in the main thread before any client is made.
 */
#ifndef MEMTREND_HTTP_H
#define MEMTREND_HTTP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#define HTTP_BODY_MAX (16u << 20)
#define HTTP_CANCEL_MS 100  /* a cancel is seen within this */

struct http_client;

/* Once per process, before threads start. 0 or -1 (message printed). */
int http_global_init(void);

/* Timeouts in seconds (> 0). keep_alive: reuse the connection between
 * fetches; false closes it after each (a scraper must not be counted
 * among the service's own connections). NULL after printing an error. */
struct http_client *http_client_new(double connect_timeout_s,
				    double total_timeout_s, bool keep_alive);
void http_client_free(struct http_client *c);
/* A flag another thread may set to end the fetch in flight (and any
 * later one) within HTTP_CANCEL_MS: it then fails with "cancelled". */
void http_client_set_cancel(struct http_client *c, const atomic_bool *cancel);

/* GET url. Returns 0 with the body in *body (owned by the client, valid
 * until the next fetch or free; NUL-terminated; *len bytes), or -1 with a
 * one-line reason in err ("timed out after 2 s", "HTTP 500", "body larger
 * than 16 MiB"), or HTTP_UNREACHABLE (-2) with one when no connection
 * could be made ("cannot connect: ..."): nothing listens there (yet).
 * Only http and https. */
#define HTTP_UNREACHABLE (-2)
/* url as it may be printed: the password of a userinfo part
 * ("http://user:secret@host/" -> "http://user:***@host/") replaced, the
 * rest as given, into buf (n bytes; cut to fit). Returns buf. Sets
 * *had_password (when not NULL) to whether there was one. */
char *http_url_redacted(char *buf, size_t n, const char *url,
			bool *had_password);

int http_get(struct http_client *c, const char *url, const char **body,
	     size_t *len, char *err, size_t errlen);

/* A request beyond a plain GET, for an API client (prometheus.c). */
struct http_request {
	const char *url;
	const char *form;          /* POST this form body (already encoded,
				      http_escape()); NULL: GET */
	const char *authorization; /* the Authorization header's value
				      ("Bearer ...", "Basic ..."); NULL:
				      none. Never logged. */
	size_t body_max;           /* refuse a larger body; 0: HTTP_BODY_MAX */
	bool no_compression;       /* do not ask for gzip (a server on
				      loopback spends more compressing than
				      the transfer saves) */
};

/* Receives a response's body as it arrives, in chunks of any size (a
 * token may be cut anywhere): status is the HTTP status, known before the
 * first byte. Return 0 to go on, non-zero to end the transfer. Not
 * called at all for an empty body. */
typedef int (*http_chunk_fn)(void *arg, long status, const char *data,
			     size_t len);

/* Perform r, handing the body to fn as it comes: nothing of it is kept,
 * so memory does not grow with the response. Returns 0 when the whole
 * response came back, whatever its status (*status), -1 on a transport
 * failure (refused, timed out, TLS; fn may have seen part of the body),
 * -2 when the body grew past r->body_max bytes (counted as delivered,
 * after any gzip decoding; the transfer ends there) or -3 when fn asked
 * to stop; each but -3 with a one-line reason in err. */
int http_request_stream(struct http_client *c, const struct http_request *r,
			http_chunk_fn fn, void *arg, long *status, char *err,
			size_t errlen);

/* s URL-encoded for a query string or form body; owned by the caller. */
char *http_escape(const char *s);

#endif
