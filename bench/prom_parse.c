/*
 * prom_parse.c - the speed and peak memory of reading a Prometheus
 * query_range response (remote/prometheus.c, yajl's event parser), as
 * `report --prometheus` pays them per response. Generate a response with
 * bench/prom_gen.py (1,000 series x 10,080 points is about 250 MB).
 *
 *   bench_prom_parse FILE [memory|stream] [CHUNK]
 *
 * memory: the file read whole first, then parsed from memory in CHUNK
 * pieces (default 16 KiB, libcurl's write size): the parse's speed
 * alone. stream: read() CHUNK at a time into the parser, as a transfer
 * is: the peak RSS is then the parser's, not the response's. Prints the
 * series, points, a checksum of the values (to compare runs), MB/s and
 * the peak RSS (getrusage; the process's whole life).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "prometheus.h"

struct tally {
	size_t series, points;
	double sum;
};

static int on_series(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	(void)l, (void)nl;
	struct tally *ty = arg;
	ty->series++;
	ty->points += n;
	for (size_t i = 0; i < n; i++)
		ty->sum += v[i] * 1e-9 + t[i] * 1e-12;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_prom_parse FILE [memory|stream] "
			"[CHUNK]\n");
		return 2;
	}
	const char *mode = argc > 2 ? argv[2] : "memory";
	size_t chunk = argc > 3 ? strtoul(argv[3], NULL, 10) : 16384;
	if (chunk == 0)
		chunk = 16384;
	int fd = open(argv[1], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st)) {
		perror(argv[1]);
		return 2;
	}
	size_t size = (size_t)st.st_size;
	struct tally ty = {0};
	struct prom_parser *ps = prom_parser_new("bench", on_series, &ty,
						 NULL, NULL);
	int rc = 0;
	double t0;
	if (!strcmp(mode, "stream")) {
		char *b = xmalloc(chunk);
		t0 = now();
		ssize_t k;
		while (!rc && (k = read(fd, b, chunk)) > 0)
			rc = prom_parser_feed(ps, b, (size_t)k);
		free(b);
	} else {
		char *body = xmalloc(size + 1);
		size_t got = 0;
		ssize_t k;
		while (got < size && (k = read(fd, body + got, size - got)) > 0)
			got += (size_t)k;
		t0 = now();
		for (size_t off = 0; !rc && off < got; off += chunk)
			rc = prom_parser_feed(ps, body + off, got - off < chunk ?
					      got - off : chunk);
		free(body);
	}
	if (!rc)
		rc = prom_parser_finish(ps);
	double secs = now() - t0;
	prom_parser_free(ps);
	close(fd);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("mode=%s chunk=%zu rc=%d series=%zu points=%zu sum=%.6f "
	       "bytes=%zu seconds=%.3f mb_per_s=%.1f peak_rss_mib=%.1f\n",
	       mode, chunk, rc, ty.series, ty.points, ty.sum, size, secs,
	       (double)size / 1e6 / secs, (double)ru.ru_maxrss / 1024.0);
	return rc ? 1 : 0;
}
