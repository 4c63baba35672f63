/*
 * fuzz_openmetrics.c - libFuzzer harness: a Prometheus/OpenMetrics page as
 * a scrape returns it, summed for a few selectors (plain, with label
 * matchers, regex matchers, an OpenMetrics counter name); and the input's
 * first line as a selector of its own (--work URL#SELECTOR is user text).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "openmetrics.h"

static const char *const selectors[] = {
	"requests_total", "http_requests_total{code=\"200\"}",
	"vllm:request_success_total{model=~\"a.*\",finished_reason!=\"abort\"}",
	"foo", "x{a!~\"b|c\"}",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	char *body = malloc(size + 1);
	if (!body)
		return 0;
	memcpy(body, data, size);
	body[size] = '\0';
	char err[256];
	for (size_t i = 0; i < sizeof(selectors) / sizeof(selectors[0]); i++) {
		struct openmetrics_selector *sel = NULL;
		if (openmetrics_selector_parse(selectors[i], &sel, err,
					       sizeof(err)) != 0)
			continue;
		double v;
		size_t matched;
		openmetrics_sum(sel, body, size, &v, &matched, err,
				sizeof(err));
		openmetrics_selector_free(sel);
	}
	char *nl = memchr(body, '\n', size);
	if (nl)
		*nl = '\0';
	struct openmetrics_selector *sel = NULL;
	if (openmetrics_selector_parse(body, &sel, err, sizeof(err)) == 0)
		openmetrics_selector_free(sel);
	free(body);
	return 0;
}
