/*
 * listener.c - the exporter's HTTP server (listener.h) on libmicrohttpd
 * in its external epoll mode: a thread of ours waits on libmicrohttpd's
 * epoll fd and a wake pipe, runs libmicrohttpd's round (MHD_run()), then
 * holds every connection to listener.h's limits. GET and HEAD only.
 *
 * Why a loop of our own: libmicrohttpd 0.9.75 (Debian 12's) has an idle
 * timeout, which each byte received restarts (a client sending one byte
 * every 2 s keeps its connection for ever: 40 of them held every slot
 * and scrapes timed out), and a connection limit at which it stops
 * accepting. Neither bounds the time a request takes to arrive. The
 * deadlines and the closing of a connection to make room run between
 * libmicrohttpd's rounds in the same thread, so the connection table
 * needs no lock and no connection is closed under libmicrohttpd's feet:
 * a connection is cut by shutdown() of its socket (never close(): the fd
 * stays libmicrohttpd's), which libmicrohttpd reads as the peer's end and
 * closes in its next round. The per-address limit is libmicrohttpd's
 * own (a connection over it is closed as it is accepted).
 *
 * epoll, not select(): a recorder of every process holds a kept fd per
 * process, so accepted sockets are numbered past FD_SETSIZE (1,024) on a
 * busy host, and select() would drop them (a scrape reset at 1,000
 * processes before libmicrohttpd was told to poll()).
 *
 * The listening socket is ours (socket, bind, listen), so that "address
 * in use" is said with its errno, then given to libmicrohttpd.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <microhttpd.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "listener.h"

/* One open connection, libmicrohttpd's socket context (allocated when it
 * opens, freed when libmicrohttpd closes it). */
struct conn {
	struct conn *prev, *next;  /* the listener's list */
	int fd;                    /* libmicrohttpd's: shutdown() only */
	bool answering;            /* an answer queued, not yet sent */
	bool kept;                 /* answered before: keep-alive */
	bool cut;                  /* shut down, libmicrohttpd to close it */
	double since;              /* monotonic: opened, last answer sent,
				      or this answer queued */
};

struct listener {
	struct MHD_Daemon *mhd;
	int fd;                    /* the listening socket (ours) */
	int epoll_fd;              /* libmicrohttpd's */
	int wake[2];               /* listener_stop() -> the thread */
	pthread_t thread;
	bool have_thread;
	listener_get_fn get;
	void *ctx;
	/* Touched only in the listener's thread (libmicrohttpd's callbacks
	 * run in its rounds), and by listener_stop() after the join. */
	struct conn *head, *tail;
	size_t n, n_cut;           /* open; of which cut */
	uint64_t closed;           /* connections closed, ever */
};

/* When c must be done with what it is doing. */
static double conn_deadline(const struct conn *c)
{
	return c->since + (c->answering ? LISTENER_ANSWER_S :
			   c->kept ? LISTENER_KEEPALIVE_S :
				     LISTENER_REQUEST_S);
}

static void conn_cut(struct listener *l, struct conn *c)
{
	if (c->cut)
		return;
	/* Read and write ends both: a reader that stalled an answer gets
	 * EPIPE, libmicrohttpd reads the end of the stream; either way it
	 * closes the connection in its next round. */
	if (c->fd >= 0)
		shutdown(c->fd, SHUT_RDWR);
	c->cut = true;
	l->n_cut++;
}

/* libmicrohttpd's socket context of c, or NULL. */
static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(
		c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return i ? i->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *mc,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode what)
{
	struct listener *l = cls;
	if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
		struct conn *c = *socket_context;
		if (!c)
			return;
		*(c->prev ? &c->prev->next : &l->head) = c->next;
		*(c->next ? &c->next->prev : &l->tail) = c->prev;
		assert(l->n > 0 && (!c->cut || l->n_cut > 0));
		l->n--;
		l->n_cut -= c->cut;
		l->closed++;
		free(c);
		*socket_context = NULL;
		return;
	}
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(
		mc, MHD_CONNECTION_INFO_CONNECTION_FD);
	assert(i);  /* the socket is libmicrohttpd's since accept() */
	struct conn *c = xcalloc(1, sizeof(*c));
	c->fd = i ? i->connect_fd : -1;
	c->since = now_monotonic();
	c->prev = l->tail;
	*(l->tail ? &l->tail->next : &l->head) = c;
	l->tail = c;
	l->n++;
	*socket_context = c;
}

/* The request is over (answered, or failed): the connection waits for
 * the next one (keep-alive) or is closing. */
static void on_completed(void *cls, struct MHD_Connection *mc, void **req,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls;
	(void)req;
	(void)toe;
	struct conn *c = conn_of(mc);
	if (c) {
		c->answering = false;
		c->kept = true;
		c->since = now_monotonic();
	}
}

static enum MHD_Result queue(struct MHD_Connection *mc, int status,
			     struct MHD_Response *r)
{
	if (!r)
		return MHD_NO;
	struct conn *c = conn_of(mc);
	if (c) {
		c->answering = true;
		c->since = now_monotonic();
	}
	enum MHD_Result ok = MHD_queue_response(mc, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result refuse(struct MHD_Connection *mc, int status,
			      const char *msg)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
		strlen(msg), (void *)msg, MHD_RESPMEM_PERSISTENT);
	if (r && status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	return queue(mc, status, r);
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **req)
{
	(void)version;
	(void)upload;
	static char seen;  /* *req after the first call: the header is in */
	struct listener *l = cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		/* Answered at once: libmicrohttpd then reads no body and
		 * closes the connection after the answer. */
		return refuse(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n");
	if (!*req) {
		/* A body is refused before it is read. */
		const char *len = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (MHD_lookup_connection_value(
			    c, MHD_HEADER_KIND,
			    MHD_HTTP_HEADER_TRANSFER_ENCODING) ||
		    (len && strcmp(len, "0")))
			return refuse(c, MHD_HTTP_BAD_REQUEST,
				      "a GET has no body\n");
		/* Not answered yet: an answer queued before the request is
		 * whole makes libmicrohttpd close the connection after it
		 * (0.9.75, MHD_queue_response(): "queued early"), and what a
		 * client pipelined behind this request would be lost. The
		 * next call says the request is whole. */
		*req = &seen;
		return MHD_YES;
	}
	if (*upload_len)
		return MHD_NO;  /* a body after all: close */
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
							 "Accept");
	char *body = NULL;
	size_t len = 0;
	const char *type = "text/plain; charset=utf-8";
	int status = l->get(l->ctx, url, accept, &body, &len, &type);
	struct MHD_Response *r = MHD_create_response_from_buffer(
		len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	return queue(c, status, r);
}

/* Cut the connections past their deadline, and make room; the seconds
 * until the next deadline (INFINITY: none). */
static double sweep(struct listener *l, double now)
{
	double next = INFINITY;
	for (struct conn *c = l->head; c; c = c->next) {
		if (c->cut)
			continue;
		double d = conn_deadline(c);
		if (d <= now)
			conn_cut(l, c);
		else if (d - now < next)
			next = d - now;
	}
	/* Room for the next ones: libmicrohttpd stops accepting at
	 * LISTENER_CONNECTIONS, so past LISTENER_CONNECTIONS -
	 * LISTENER_FREE the connections that have waited longest for a
	 * request (slow clients, or a scraper's kept connection between
	 * scrapes, which it opens again) make way. Not one being answered
	 * (its deadline is LISTENER_ANSWER_S), nor one younger than
	 * LISTENER_GRACE_S: a connection accepted in this round has its
	 * request read in the next, and 500 clients scraping as fast as
	 * they could lost 2-7 % of their scrapes when those were cut
	 * (now: they wait in the listen queue, as without the room). */
	while (l->n - l->n_cut > LISTENER_CONNECTIONS - LISTENER_FREE) {
		struct conn *old = NULL;
		for (struct conn *k = l->head; k; k = k->next)
			if (!k->cut && !k->answering &&
			    (!old || k->since < old->since))
				old = k;
		if (!old)
			break;
		double ripe = old->since + LISTENER_GRACE_S - now;
		if (ripe > 0) {  /* look again when it is old enough */
			next = fmin(next, ripe);
			break;
		}
		conn_cut(l, old);
	}
	return next;
}

static void *serve_main(void *arg)
{
	struct listener *l = arg;
	struct pollfd p[2] = {
		{.fd = l->epoll_fd, .events = POLLIN},
		{.fd = l->wake[0], .events = POLLIN},
	};
	for (;;) {
		uint64_t closed = l->closed;
		MHD_run(l->mhd);
		/* A connection cut here is readable at once (its end of
		 * stream): the poll below returns for libmicrohttpd to
		 * close it. */
		double wait_s = sweep(l, now_monotonic());
		/* Slots freed in that round: at its limit libmicrohttpd
		 * took the listening socket out of its epoll set, and puts
		 * it back only in its next round; until then nothing would
		 * wake us for a waiting connection (a scrape waited 4.8 s
		 * behind 80 silent connections so). */
		if (l->closed != closed)
			wait_s = 0;
		MHD_UNSIGNED_LONG_LONG ms;
		if (MHD_get_timeout(l->mhd, &ms) == MHD_YES &&
		    (double)ms / 1e3 < wait_s)
			wait_s = (double)ms / 1e3;
		/* Rounded up: a deadline is never polled for too early,
		 * which would spin. */
		int timeout = isinf(wait_s) ? -1 :
			      (int)ceil(fmin(wait_s, 3600.0) * 1e3);
		int rc = poll(p, 2, timeout);
		if (rc < 0 && errno != EINTR && errno != ENOMEM) {
			warning("the exporter stops answering: poll: %s",
				strerror(errno));
			break;
		}
		if (rc > 0 && p[1].revents)
			break;
	}
	return NULL;
}

/* Split "[ADDR:]PORT" into host (default 127.0.0.1) and port. */
static int parse_spec(const char *spec, char *host, size_t host_len,
		      char *port, size_t port_len)
{
	const char *colon = strrchr(spec, ':');
	const char *h = "127.0.0.1", *p = spec;
	size_t hl = strlen(h);
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':')
			return -1;
		h = spec + 1;
		hl = (size_t)(end - spec - 1);
		p = end + 2;
	} else if (colon) {
		if (strchr(spec, ':') != colon)  /* bare IPv6: brackets */
			return -1;
		h = spec;
		hl = (size_t)(colon - spec);
		p = colon + 1;
	}
	if (!hl || hl >= host_len || !*p || strlen(p) >= port_len ||
	    strspn(p, "0123456789") != strlen(p) || atol(p) > 65535)
		return -1;
	memcpy(host, h, hl);
	host[hl] = '\0';
	snprintf(port, port_len, "%s", p);
	return 0;
}

struct listener *listener_start(const char *spec, listener_get_fn get,
				void *ctx, int *exit_code, char *bound,
				size_t bound_len)
{
	char host[64], port[8];
	*exit_code = EXIT_USAGE;
	if (parse_spec(spec, host, sizeof(host), port, sizeof(port))) {
		error("--listen: '%s' is not [ADDR:]PORT (e.g. 9184, "
		      "127.0.0.1:9184, [::1]:9184)", spec);
		return NULL;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
				 .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV |
					     AI_PASSIVE};
	struct addrinfo *ai;
	int gai = getaddrinfo(host, port, &hints, &ai);
	if (gai) {
		error("--listen: '%s' is not an IP address: %s", host,
		      gai_strerror(gai));
		return NULL;
	}
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
			ai->ai_protocol);
	int one = 1;
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		int e = errno;
		freeaddrinfo(ai);
		if (fd >= 0)
			close(fd);
		if (e != EADDRINUSE && e != EACCES && e != EADDRNOTAVAIL)
			*exit_code = EXIT_RUNTIME;
		error("cannot listen on %s:%s: %s", host, port, strerror(e));
		return NULL;
	}
	freeaddrinfo(ai);
	if (bound) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		char a[INET6_ADDRSTRLEN] = "?";
		unsigned p = 0;
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
			if (ss.ss_family == AF_INET6) {
				struct sockaddr_in6 *s6 = (void *)&ss;
				inet_ntop(AF_INET6, &s6->sin6_addr, a,
					  sizeof(a));
				p = ntohs(s6->sin6_port);
			} else {
				struct sockaddr_in *s4 = (void *)&ss;
				inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
				p = ntohs(s4->sin_port);
			}
		}
		snprintf(bound, bound_len, ss.ss_family == AF_INET6 ?
			 "[%s]:%u" : "%s:%u", a, p);
	}
	struct listener *l = xcalloc(1, sizeof(*l));
	l->fd = fd;
	l->wake[0] = l->wake[1] = -1;
	l->get = get;
	l->ctx = ctx;
	/* libmicrohttpd's own limits: the hard cap on connections (ours
	 * keep LISTENER_FREE of them free), per address, a request's
	 * bytes, and an idle timeout no shorter than our deadlines, which
	 * do the rest. */
	l->mhd = MHD_start_daemon(
		MHD_USE_EPOLL, 0, NULL, NULL, answer, l,
		MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned)LISTENER_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned)LISTENER_PER_ADDRESS,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)LISTENER_REQUEST_BYTES,
		MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)ceil(LISTENER_KEEPALIVE_S),
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, l,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, l,
		MHD_OPTION_END);
	const union MHD_DaemonInfo *info = l->mhd ?
		MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	int rc = 0;
	if (info && pipe2(l->wake, O_CLOEXEC | O_NONBLOCK) == 0) {
		l->epoll_fd = info->epoll_fd;
		rc = pthread_create(&l->thread, NULL, serve_main, l);
		l->have_thread = rc == 0;
	}
	if (!l->have_thread) {
		if (rc)
			error("cannot start the HTTP server's thread: %s",
			      strerror(rc));
		else
			error("cannot start the HTTP server on %s:%s", host,
			      port);
		*exit_code = EXIT_RUNTIME;
		listener_stop(l);
		return NULL;
	}
	*exit_code = EXIT_OK;
	return l;
}

void listener_stop(struct listener *l)
{
	if (!l)
		return;
	if (l->have_thread) {
		/* A full pipe already says stop. */
		ssize_t w = write(l->wake[1], "", 1);
		(void)w;
		pthread_join(l->thread, NULL);
	}
	/* Quiesced first, the socket is ours to close (a stopped daemon
	 * would close it itself otherwise); stopping closes every
	 * connection, whose contexts on_connection() frees. */
	bool ours = true;
	if (l->mhd) {
		ours = MHD_quiesce_daemon(l->mhd) != MHD_INVALID_SOCKET;
		MHD_stop_daemon(l->mhd);
	}
	assert(l->n == 0 && !l->head);
	if (ours)
		close(l->fd);
	for (int i = 0; i < 2; i++)
		if (l->wake[i] >= 0)
			close(l->wake[i]);
	free(l);
}
