/*
 * fuzz_prometheus.c - libFuzzer harness: a Prometheus API response
 * (query_range or series) fed to the streaming parser in chunks whose
 * sizes come from the input itself, as libcurl would cut the body: the
 * first bytes pick the chunk sizes, the rest is the body. Each series
 * handed on is checked for what the contract promises (labels are
 * strings, points finite, strictly increasing, and with a range query's
 * grid (half the runs, prom_parser_expect) inside it and no more than
 * its steps), and every third run stops at the first series.
 */
#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "prometheus.h"

/* The grid of the runs with one: 1700000000 to +600 s, 60 s steps. */
#define G_START 1700000000.0
#define G_END 1700000600.0
#define G_STEP 60.0

struct tally {
	size_t series, stop_at;
	bool grid;
};

static int on_series(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct tally *ty = arg;
	size_t labels = 0;
	for (size_t i = 0; i < nl; i++) {
		assert(l[i].name && l[i].value);
		labels += strlen(l[i].name) + strlen(l[i].value) + 2;
	}
	assert(labels <= PROM_LABELS_MAX);
	for (size_t i = 0; i < n; i++) {
		assert(isfinite(t[i]) && isfinite(v[i]));
		assert(i == 0 || t[i] > t[i - 1]);
		assert(!ty->grid || (t[i] >= G_START - 0.01 &&
				     t[i] <= G_END + 0.01));
	}
	assert(!ty->grid || n <= 11);
	return ++ty->series == ty->stop_at;
}

static void on_warning(void *arg, const char *text)
{
	(void)arg;
	assert(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	if (size < 4)
		return 0;
	/* 4 bytes of chunk sizes (1..256), used in turn. */
	uint8_t sizes[4];
	memcpy(sizes, data, 4);
	data += 4;
	size -= 4;
	struct tally ty = {.stop_at = sizes[0] % 3 == 0 ? 1 : 0,
			   .grid = sizes[1] & 1};
	struct prom_parser *p = prom_parser_new("fuzz", on_series, &ty,
						on_warning, NULL);
	if (ty.grid)
		prom_parser_expect(p, G_START, G_END, G_STEP);
	int rc = 0;
	size_t off = 0;
	for (int k = 0; off < size && !rc; k++) {
		size_t n = (size_t)sizes[k % 4] + 1;
		if (n > size - off)
			n = size - off;
		/* Each chunk in a buffer of its own length: ASan sees a
		 * read past it. */
		char *chunk = malloc(n);
		if (!chunk)
			break;
		memcpy(chunk, data + off, n);
		rc = prom_parser_feed(p, chunk, n);
		free(chunk);
		off += n;
	}
	if (!rc)
		rc = prom_parser_finish(p);
	assert(rc == PROM_OK || rc == PROM_FAILED || rc == PROM_BAD_QUERY ||
	       rc == PROM_STOPPED);
	assert(rc != PROM_STOPPED || ty.stop_at);
	prom_parser_free(p);
	return 0;
}
