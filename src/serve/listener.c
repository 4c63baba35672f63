/*
 * listener.c - the exporter's HTTP server (listener.h) on libmicrohttpd:
 * its internal thread with poll(), at most 32 connections, 10 s idle timeout,
 * GET and HEAD only. The listening socket is ours (socket, bind, listen),
 * so that "address in use" is said with its errno, then given to
 * libmicrohttpd.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "listener.h"

struct listener {
	struct MHD_Daemon *mhd;
	int fd;
	listener_get_fn get;
	void *ctx;
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_len, void **con_cls)
{
	(void)version;
	(void)upload;
	(void)upload_len;
	(void)con_cls;
	struct listener *l = cls;
	struct MHD_Response *r;
	int status;
	if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		static const char msg[] = "only GET\n";
		r = MHD_create_response_from_buffer(sizeof(msg) - 1,
						    (void *)msg,
						    MHD_RESPMEM_PERSISTENT);
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		MHD_add_response_header(r, "Allow", "GET, HEAD");
	} else {
		const char *accept = MHD_lookup_connection_value(
			c, MHD_HEADER_KIND, "Accept");
		char *body = NULL;
		size_t len = 0;
		const char *type = "text/plain; charset=utf-8";
		status = l->get(l->ctx, url, accept, &body, &len, &type);
		r = MHD_create_response_from_buffer(len, body,
						    MHD_RESPMEM_MUST_FREE);
		MHD_add_response_header(r, "Content-Type", type);
	}
	if (!r)
		return MHD_NO;
	enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
	MHD_destroy_response(r);
	return ok;
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
	l->get = get;
	l->ctx = ctx;
	/* poll(), not select(): a recorder of every process holds a kept
	 * fd per process, so accepted sockets are numbered past
	 * FD_SETSIZE (1,024) on a busy host, and select() would drop
	 * them (a scrape reset at 1,000 processes before this). */
	l->mhd = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ITC,
				  0, NULL,
				  NULL, answer, l,
				  MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
				  MHD_OPTION_CONNECTION_LIMIT, 32u,
				  MHD_OPTION_CONNECTION_TIMEOUT, 10u,
				  MHD_OPTION_END);
	if (!l->mhd) {
		close(fd);
		free(l);
		*exit_code = EXIT_RUNTIME;
		error("cannot start the HTTP server on %s:%s", host, port);
		return NULL;
	}
	*exit_code = EXIT_OK;
	return l;
}

void listener_stop(struct listener *l)
{
	if (!l)
		return;
	/* Quiesced first, the socket is ours to close (a stopped daemon
	 * would close it itself otherwise). */
	MHD_socket fd = MHD_quiesce_daemon(l->mhd);
	MHD_stop_daemon(l->mhd);
	if (fd != MHD_INVALID_SOCKET)
		close(fd);
	free(l);
}
