/*
 * listener.h - a small HTTP server for the exporter: one listening socket
 * (created here, so a port in use is said plainly) handed to
 * libmicrohttpd, which parses the requests, and a thread of its own that
 * runs libmicrohttpd's event loop and holds every client to the limits
 * below, so that clients that are slow or hostile, from one address or
 * many, cannot keep a scrape from being answered. Only listener.c
 * includes microhttpd.h.
 *
 * What it does not do: know what it serves (the callback does), TLS, or
 * authentication: it binds to the loopback unless an address is named.
 * It never blocks its caller: the recorder feeds the exporter, the
 * listener only reads what is there (exporter.h).
 */
#ifndef MEMTREND_LISTENER_H
#define MEMTREND_LISTENER_H

#include <stddef.h>

/* The limits (docs/openmetrics.md, "Connections"). A connection is
 * either waiting for a request (from its opening, or from the end of its
 * previous answer: HTTP/1.1 keep-alive) or being answered. */
#define LISTENER_CONNECTIONS 256    /* open at once, at most: with
				       keep-alive each scraper holds one
				       (200 scraping every second were
				       served; at 64, 136 of them never
				       were), at most 32 KiB each */
#define LISTENER_FREE 32            /* kept free for new connections:
				       beyond 256 - 32, the connections that
				       have waited longest for a request,
				       and at least LISTENER_GRACE_S, are
				       closed */
#define LISTENER_GRACE_S 1.0
#define LISTENER_PER_ADDRESS 16     /* open at once from one address */
#define LISTENER_REQUEST_S 5.0      /* a new connection's request whole */
#define LISTENER_KEEPALIVE_S 30.0   /* the next request whole, after an
				       answer (a scrape interval of 15 s
				       reuses the connection) */
#define LISTENER_ANSWER_S 10.0      /* an answer sent whole */
#define LISTENER_REQUEST_BYTES 32768 /* a request's line and headers;
					more is answered 431 */

/* The body of a GET of path: *body (malloc'd, the listener frees it),
 * *len and *content_type (static); returns the HTTP status (200, 404).
 * accept: the request's Accept header, or NULL. Called from the
 * listener's thread, one request at a time. */
typedef int (*listener_get_fn)(void *ctx, const char *path,
			       const char *accept, char **body, size_t *len,
			       const char **content_type);

struct listener;

/* Listen on spec "[ADDR:]PORT" (ADDR an IPv4 or IPv6 literal, IPv6 in
 * brackets; no ADDR: 127.0.0.1). Returns NULL after a message, with
 * *exit_code EXIT_USAGE for a bad spec, a port in use or not allowed,
 * EXIT_RUNTIME otherwise. *bound (may be NULL) gets "ADDR:PORT" as bound
 * (the real port when PORT was 0), at most 80 bytes. */
struct listener *listener_start(const char *spec, listener_get_fn get,
				void *ctx, int *exit_code, char *bound,
				size_t bound_len);
/* Stop answering (the listener's thread is told through a pipe and
 * joined: no wait for a timeout), close every connection and free. NULL
 * is fine. */
void listener_stop(struct listener *l);

#endif
