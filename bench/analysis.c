/*
 * analysis.c - the time of analysis_run() on one series of N points, as
 * `report --prometheus` pays it per series (issue 16: <= 10 ms at 10^4):
 * t_i = i * 60 s (a 1-minute step), footprint = 1 GiB + slope * t + AR(1)
 * noise (phi 0.9, sd 4 MiB) rounded to 4 KiB, the shape bench_synth
 * writes. Prints the median of REPS runs per size. The heap is kept as
 * report keeps it (mallopt, cmd_report.c).
 *
 *   bench_analysis [N ...]        (default 1000 10000 100000)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__ /* defined by the headers above */
#include <malloc.h>
#endif

#include "analysis.h"
#include "common.h"
#include "series.h"

static uint64_t rng = 88172645463325252ULL;

static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return ((double)(rng >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double time_one(size_t n, double slope_bph, int reps)
{
	struct series s;
	series_init(&s, "bench");
	series_add_incarnation(&s, 1, 1, 1.7e9, "bench", "bench");
	series_reserve(&s, n);
	double e = 0;
	for (size_t i = 0; i < n; i++) {
		double t = 1.7e9 + 60.0 * (double)i;
		e = 0.9 * e + sqrt(1 - 0.81) * 4194304.0 * normal();
		double y = 1073741824.0 + slope_bph * (t - 1.7e9) / 3600 + e;
		series_append(&s, t, round(y / 4096) * 4096, 0);
	}
	s.quantum = 4096;
	s.quantum_exact = true;
	struct analysis_options o;
	analysis_options_init(&o);
	double *took = xcalloc((size_t)reps, sizeof(*took));
	for (int r = 0; r < reps; r++) {
		struct target_findings f;
		double t0 = now_monotonic();
		analysis_run(&s, &o, &f);
		took[r] = now_monotonic() - t0;
		analysis_release(&f);
	}
	qsort(took, (size_t)reps, sizeof(*took), cmp);
	double med = took[reps / 2];
	free(took);
	series_release(&s);
	return med;
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
	/* the heap as `report` keeps it (cmd_report.c): scratch is reused
	 * from one analysis to the next, not faulted in again */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
	size_t sizes[16] = {1000, 10000, 100000};
	size_t k = 3;
	if (argc > 1) {
		k = 0;
		for (int i = 1; i < argc && k < 16; i++)
			sizes[k++] = (size_t)atol(argv[i]);
	}
	for (size_t i = 0; i < k; i++) {
		int reps = sizes[i] <= 10000 ? 21 : 5;
		double flat = time_one(sizes[i], 0, reps);
		double grow = time_one(sizes[i], 10485760, reps);
		printf("analysis of one series, %zu points: median %.2f ms "
		       "(flat), %.2f ms (growing 10 MiB/h)\n", sizes[i],
		       flat * 1e3, grow * 1e3);
	}
	return 0;
}
