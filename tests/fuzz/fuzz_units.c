/*
 * fuzz_units.c - libFuzzer harness: every parser of units.c (sizes,
 * durations, rates, times) on one NUL-terminated copy of the input, and
 * the formatters on what they return (a parsed value must print).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	char buf[64];
	double v, q;
	if (units_parse_size(s, &v, &q) == 0)
		units_format_size(buf, sizeof(buf), v);
	if (units_parse_duration(s, &v) == 0)
		units_format_duration(buf, sizeof(buf), v);
	struct rate r;
	if (units_parse_rate(s, &r) == 0)
		units_format_slope(buf, sizeof(buf), r.bytes, false);
	if (units_parse_time(s, &v) == 0)
		units_format_time(buf, sizeof(buf), v);
	free(s);
	return 0;
}
