/*
 * fuzz_csv.c - libFuzzer harness: csv.c on arbitrary bytes, then the
 * analysis of whatever it accepted (a CSV is outside input all the way
 * to the verdict). Must not crash, leak or trip a sanitizer; a rejected
 * input is fine. Messages go to /dev/null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "analysis.h"
#include "csv.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_quiet();
	FILE *f = fmemopen((void *)data, size ? size : 1, "r");
	if (!f)
		return 0;
	if (!size)
		fgetc(f);
	struct dataset d;
	if (csv_read_stream(f, "fuzz.csv", &d) == 0) {
		for (size_t i = 0; i < d.n_targets; i++) {
			struct analysis_options o;
			analysis_options_init(&o);
			struct target_findings tf;
			analysis_run(&d.targets[i], &o, &tf);
			analysis_release(&tf);
		}
		dataset_release(&d);
	}
	fclose(f);
	return 0;
}
