/*
 * listener.h - a small HTTP server for the exporter: one listening socket
 * (created here, so a port in use is said plainly) handed to
 * libmicrohttpd, which answers GET requests from its own thread by asking
 * a callback for the body. Only listener.c includes microhttpd.h.
 *
 * What it does not do: know what it serves (the callback does), TLS, or
 * authentication: it binds to the loopback unless an address is named.
 */
#ifndef MEMTREND_LISTENER_H
#define MEMTREND_LISTENER_H

#include <stddef.h>

/* The body of a GET of path: *body (malloc'd, the listener frees it),
 * *len and *content_type (static); returns the HTTP status (200, 404).
 * accept: the request's Accept header, or NULL. Called from the
 * listener's thread. */
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
/* Stop answering and free. NULL is fine. */
void listener_stop(struct listener *l);

#endif
