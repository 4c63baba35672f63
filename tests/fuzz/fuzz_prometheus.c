/*
 * fuzz_prometheus.c - libFuzzer harness: a Prometheus API response
 * (query_range or series) fed to the streaming parser in chunks whose
 * sizes come from the input itself, as libcurl would cut the body: the
 * first bytes pick the chunk sizes, the rest is the body. Each series
 * handed on is checked for what the contract promises (labels are
 * strings, points finite and counted), and every third run stops at the
 * first series.
 */
#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "prometheus.h"

struct tally {
	size_t series, stop_at;
};

static int on_series(void *arg, const struct prom_label *l, size_t nl,
		     const double *t, const double *v, size_t n)
{
	struct tally *ty = arg;
	for (size_t i = 0; i < nl; i++)
		assert(l[i].name && l[i].value && strlen(l[i].name) < (1u << 30));
	for (size_t i = 0; i < n; i++)
		assert(isfinite(t[i]) && isfinite(v[i]));
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
	struct tally ty = {.stop_at = sizes[0] % 3 == 0 ? 1 : 0};
	struct prom_parser *p = prom_parser_new("fuzz", on_series, &ty,
						on_warning, NULL);
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
