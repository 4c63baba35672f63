/*
 * exposition.c - the time of render_openmetrics() alone for N targets
 * (default 1,000) with every family present, as a scrape of record --all
 * --listen writes them: median of 50 expositions into memory, each into
 * a fresh buffer as the exporter hands one to the HTTP answer. It isolates
 * the formatting from HTTP and the client, which bench/run.py section h
 * measures end to end.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"
#include "render_openmetrics.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000;
	struct om_target *t = xcalloc(n, sizeof(*t));
	char (*names)[32] = xcalloc(n, sizeof(*names));
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "worker-%zu", i);
		t[i] = (struct om_target){
			.target = names[i], .kind = "process",
			.pid = 1000 + (long)i,
			.footprint = 4096.0 * (1000 + i * 37),
			.anon = 4096.0 * (900 + i * 37), .swap = 0,
			.shmem = 4096.0 * 100, .gpu = NAN,
			.requests = NAN, .connections = NAN,
			.samples = 3600 + i, .analysed = true,
			.verdict = VERDICT_STABLE,
			.slope = {.estimate = 1234.5678 * (double)i,
				  .low = -99.25 - (double)i,
				  .high = 2345.125 * (double)i, .p = 0.3},
			.detectable_bph = 1.5e6 / 7, .exhaustion_s = NAN,
		};
	}
	enum { REPS = 50 };
	double took[REPS];
	size_t bytes = 0;
	for (int r = 0; r < REPS; r++) {
		size_t len;
		double t0 = now_monotonic();
		char *buf = render_openmetrics_buffer(OM_OPENMETRICS, t, n,
						      &len);
		took[r] = now_monotonic() - t0;
		bytes = len;
		free(buf);
	}
	qsort(took, REPS, sizeof(*took), cmp);
	printf("exposition of %zu targets (%zu bytes): median %.2f ms, "
	       "best %.2f ms\n", n, bytes, took[REPS / 2] * 1e3,
	       took[0] * 1e3);
	free(names);
	free(t);
	return 0;
}
