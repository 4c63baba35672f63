/*
 * fuzz_exporter.c - libFuzzer harness: raw bytes from a client to the
 * exporter of `record --listen`, over a real loopback connection: the
 * request handling of listener.c (on libmicrohttpd: its parser, our
 * answer callback, the connection table and its deadlines) and the
 * answer of exporter.c. One exporter, started at the first input on an
 * ephemeral port and fed a few targets (one named with a quote, a
 * newline, ESC and U+202E), serves the whole run.
 *
 * Each input goes over a new connection. Its first byte picks the size
 * of each write (1..128 bytes) and whether the write side is shut right
 * after the input; the rest is sent as it is, followed by a request with
 * `Connection: close` that ends the exchange when the input left the
 * request stream whole. Everything answered is read until the server
 * closes; without the early shut, the write side is shut after 1 s of
 * silence (a request the input left open).
 *
 * Checks: the server closes the connection once the client's side is
 * shut (within 10 s, or the harness aborts: a hang is a finding), and
 * whatever it sends starts with an HTTP/1.x status line.
 */
#include <arpa/inet.h>
#include <assert.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "exporter.h"
#include "fuzz_common.h"

static struct exporter *ex;
static struct sockaddr_in addr;

static void start(void)
{
	struct exporter_options o = {
		.listen = "127.0.0.1:0",
		.analyse_every_s = 0.5,
		.mem_total = 16e9,
	};
	analysis_options_init(&o.analysis);
	char bound[80];
	int rc;
	ex = exporter_start(&o, &rc, bound, sizeof(bound));
	assert(ex);
	const char *colon = strrchr(bound, ':');
	assert(colon);
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)atoi(colon + 1));
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	static const struct {
		const char *name, *kind;
		long pid;
		double grow;
	} targets[] = {
		{"api", "process", 4242, 1e6},
		{"we\"ird\\\nname\x1b\xe2\x80\xae", "name", 7, 0},
		{"group of two", "group", -1, -2e3},
	};
	for (int64_t i = 0; i < 3; i++)
		for (int k = 0; k < 40; k++) {
			double f = 1e8 + targets[i].grow * k;
			struct exporter_sample s = {
				.target_id = i + 1,
				.name = targets[i].name,
				.kind = targets[i].kind,
				.role = targets[i].pid < 0 ? EXPORTER_SUM :
					EXPORTER_NAMED,
				.pid = targets[i].pid,
				.start_ticks = 100,
				.start_time = 1.7e9,
				.comm = "comm",
				.cmdline = "cmd --line",
				.t = 1.7e9 + 10 * k,
				.footprint = f,
				.anon = f,
				.swap = 0,
				.shmem = 0,
				.gpu = NAN,
				.rss = f + 4096,
				.file = 4096,
			};
			exporter_sample(ex, &s);
		}
}

/* Read until the server closes, for at most limit_s; false on the limit.
 * The first bytes read go to head (NUL-terminated). */
static bool drain(int fd, double limit_s, char *head, size_t head_len,
		  size_t *got)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	char buf[65536];
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		double left = limit_s - (double)(t.tv_sec - t0.tv_sec) -
			      (double)(t.tv_nsec - t0.tv_nsec) * 1e-9;
		if (left <= 0)
			return false;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, (int)ceil(left * 1e3)) <= 0)
			continue;
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return true;  /* closed (or reset) */
		if (*got + 1 < head_len) {
			size_t k = head_len - 1 - *got;
			if (k > (size_t)n)
				k = (size_t)n;
			memcpy(head + *got, buf, k);
			head[*got + k] = '\0';
		}
		*got += (size_t)n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (!ex)
		start();
	if (size < 1)
		return 0;
	size_t chunk = (size_t)(data[0] & 0x7f) + 1;
	bool shut_early = data[0] & 0x80;
	data++;
	size--;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (connect(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		close(fd);  /* ports in TIME_WAIT: not the server's fault */
		return 0;
	}
	static const char end[] = "GET /end HTTP/1.1\r\nHost: fuzz\r\n"
				  "Connection: close\r\n\r\n";
	for (size_t off = 0; off < size; off += chunk) {
		size_t n = size - off < chunk ? size - off : chunk;
		if (send(fd, data + off, n, MSG_NOSIGNAL) < 0)
			break;  /* the server closed: what it said is read */
	}
	send(fd, end, sizeof(end) - 1, MSG_NOSIGNAL);
	char head[16] = "";
	size_t got = 0;
	bool closed = false;
	if (!shut_early)
		closed = drain(fd, 1.0, head, sizeof(head), &got);
	if (!closed) {
		shutdown(fd, SHUT_WR);
		closed = drain(fd, 10.0, head, sizeof(head), &got);
	}
	close(fd);
	/* A client that has shut its side is answered and closed at once,
	 * or closed: never kept. */
	assert(closed);
	assert(got == 0 || !strncmp(head, "HTTP/1.", got < 7 ? got : 7));
	return 0;
}
