/*
 * fuzz_prom_peer.c - libFuzzer harness: report --prometheus's reader fed
 * by a hostile HTTP peer. A server thread in this process, on loopback,
 * answers every request with the input's bytes as the raw HTTP response
 * (status line, headers, chunked or gzip encoding, a body cut short: the
 * peer closes after writing), written to the socket in pieces whose
 * sizes the input picks; the real client reads it (http.c's libcurl
 * transfer and write function, prometheus.c's scanner and yajl parser,
 * prom_fetch.c's merging of a series across time chunks), as a fleet
 * worker does: a grid of up to 24 steps asked in up to 3 chunks, a batch
 * that asks for two listed series or an expression of at most a few.
 *
 * What it checks whatever the peer sends: the call returns one of
 * prometheus.h's results; what was kept is what prom_fetch.h promises
 * (series allowed or within max_series, points strictly increasing,
 * finite, on the asked range, no more than the grid's, counted right).
 * The URL names 0.0.0.0 (this machine, but not a loopback name), so
 * that gzip is asked for and decoded as from a remote server.
 *
 * Input: byte 0 the grid (chunk points 1..8, points up to 3 chunks),
 * byte 1 the batch (bit 0: two allowed label sets; else at most 1..4
 * series), byte 2 the write size (1..256 bytes, 0: all at once), then
 * the response.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "http.h"
#include "prom_fetch.h"
#include "prometheus.h"

#define GRID_START 1000.0
#define GRID_STEP 10.0

/* What the peer sends, set by each run before its requests. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *response;
static size_t response_len, write_size;
static int port;

/* Read a request whole (headers, then Content-Length bytes), so that
 * closing after the answer is not a reset while the client still
 * writes. */
static void read_request(int fd)
{
	char buf[8192];
	size_t got = 0;
	char *end = NULL;
	while (!end && got < sizeof(buf) - 1) {
		ssize_t n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n <= 0)
			return;
		got += (size_t)n;
		buf[got] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (!end)
		return;
	const char *cl = strcasestr(buf, "content-length:");
	size_t want = cl ? strtoul(cl + 15, NULL, 10) : 0;
	size_t have = got - (size_t)(end + 4 - buf);
	while (have < want) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n <= 0)
			return;
		have += (size_t)n;
	}
}

static void *serve(void *arg)
{
	int ls = *(int *)arg;
	for (;;) {
		int fd = accept(ls, NULL, NULL);
		if (fd < 0)
			continue;
		struct timeval tv = {1, 0};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		read_request(fd);
		pthread_mutex_lock(&mu);
		size_t off = 0, step = write_size ? write_size : response_len;
		while (off < response_len) {
			size_t n = response_len - off < step ? response_len - off
							     : step;
			ssize_t w = send(fd, response + off, n, MSG_NOSIGNAL);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		pthread_mutex_unlock(&mu);
		shutdown(fd, SHUT_WR);
		close(fd);
	}
	return NULL;
}

static void start_peer(void)
{
	static int ls;
	ls = socket(AF_INET, SOCK_STREAM, 0);
	assert(ls >= 0);
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int rc = bind(ls, (struct sockaddr *)&a, sizeof(a));
	assert(rc == 0);
	socklen_t al = sizeof(a);
	getsockname(ls, (struct sockaddr *)&a, &al);
	port = ntohs(a.sin_port);
	rc = listen(ls, 16);
	assert(rc == 0);
	pthread_t th;
	rc = pthread_create(&th, NULL, serve, &ls);
	assert(rc == 0);
	(void)rc;
	rc = http_global_init();
	assert(rc == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool started;
	fuzz_quiet();
	if (!started) {
		start_peer();
		started = true;
	}
	if (size < 3)
		return 0;
	size_t chunk = 1 + data[0] % 8;
	struct prom_grid g = {GRID_START, GRID_STEP,
			      1 + (size_t)(data[0] >> 3) % (3 * chunk)};
	bool two = data[1] & 1;
	size_t max_series = 1 + (size_t)(data[1] >> 1) % 4;
	pthread_mutex_lock(&mu);
	response = malloc(size - 3 ? size - 3 : 1);
	memcpy(response, data + 3, size - 3);
	response_len = size - 3;
	write_size = data[2];
	pthread_mutex_unlock(&mu);

	char url[64];
	snprintf(url, sizeof(url), "http://0.0.0.0:%d", port);
	struct prom_config cfg = {.url = url, .timeout_s = 2,
				  .body_max = 1 << 20, .retries = 0};
	struct prom_client *pc = prom_client_new(&cfg);
	assert(pc);
	/* The batch: two listed series, or an expression. */
	struct strmap allowed = {0};
	static const struct prom_label l1[] = {{"__name__", "m"}, {"a", "1"}};
	static const struct prom_label l2[] = {{"a", "2"}};
	struct prom_fetch fx = {0};
	if (two) {
		char *k1 = prom_fetch_key(l1, 2), *k2 = prom_fetch_key(l2, 1);
		strmap_put(&allowed, k1, 0);
		strmap_put(&allowed, k2, 1);
		free(k1);
		free(k2);
		fx.allowed = &allowed;
	} else {
		fx.max_series = max_series;
		fx.max_points = 2 * g.points;
	}
	int rc = prom_fetch_range(pc, "m", &g, chunk, &fx);
	assert(rc == PROM_OK || rc == PROM_FAILED || rc == PROM_BAD_QUERY ||
	       rc == PROM_TOO_LARGE);
	size_t points = 0;
	assert(fx.n_raw <= (two ? 2 : max_series));
	for (size_t i = 0; i < fx.n_raw; i++) {
		const struct prom_raw *r = &fx.raw[i];
		if (two) {
			char *k = prom_fetch_key(r->ls.l, r->ls.n);
			assert(strmap_get(&allowed, k) != SIZE_MAX);
			free(k);
		}
		/* Within the grid (the form's times are to the
		 * millisecond), strictly increasing; no more points than
		 * its steps, or the fetch was refused at the response that
		 * brought more (at most a chunk's steps more). */
		assert(r->n <= g.points || (rc == PROM_FAILED &&
					    r->n <= g.points + chunk));
		for (size_t k = 0; k < r->n; k++) {
			assert(isfinite(r->t[k]) && isfinite(r->v[k]));
			assert(r->t[k] >= GRID_START - 0.01 &&
			       r->t[k] <= GRID_START + GRID_STEP *
			       (double)(g.points - 1) + 0.01);
			assert(k == 0 || r->t[k] > r->t[k - 1]);
		}
		points += r->n;
	}
	assert(points == fx.points || rc != PROM_OK);
	assert(fx.max_points == 0 || rc != PROM_OK || points <= fx.max_points);
	prom_fetch_release(&fx);
	strmap_release(&allowed);
	prom_client_free(pc);
	pthread_mutex_lock(&mu);
	free(response);
	response = NULL;
	response_len = 0;
	pthread_mutex_unlock(&mu);
	return 0;
}
