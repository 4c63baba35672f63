/*
 * fuzz_vmmap.c - libFuzzer harness: a macOS `vmmap --summary` output.
 */
#include <stdint.h>

#include "fuzz_common.h"
#include "vmmap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	struct vmmap_summary s;
	if (vmmap_parse((const char *)data, size, &s) == 0)
		vmmap_release(&s);
	return 0;
}
