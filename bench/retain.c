/*
 * retain.c - the recording of many processes, with and without
 * `record --retain`, written through the store (src/store/store.h) as the
 * recorder writes it, at simulated times (no sleeping): what a row costs
 * on disk, what a tick costs when old rows are deleted in it, and whether
 * the file stops growing.
 *
 *   bench_retain [-n PROCS] [-i INTERVAL_S] [-d DURATION_S] [-r RETAIN_S]
 *                [-a -s START_S] [-o FILE.db]
 *
 * Defaults: 1,000 processes, 15 s interval, 1 h, no retention,
 * bench_retain.db (replaced; with -a appended to, as record --append
 * does, the ticks starting START_S after the first run's). Each tick adds one sample per process and
 * one system row; a process's figures move every tick (a random walk of
 * whole pages: anon around 20-500 MiB, file pages 10-100 MiB, page tables
 * 0.1-2 MiB, no swap, shmem 0-4 MiB), so no run of equal samples folds:
 * the worst case for size. The batch is committed once a simulated second,
 * as record does by default (at intervals >= 1 s: every tick); with -r,
 * store_retain(now - RETAIN, max(4096, 2 x rows added)) runs just before
 * the commit, as in the recorder (recorder.c, retain_old()).
 * Tick time: wall time of the tick's inserts + retention + commit.
 *
 * Prints, every tenth of the run, the file's size (main file + WAL) and
 * the last tick's time, then one line:
 *   retain procs=N interval_s=I retain_s=R ticks=T rows_written=W bytes=B
 *          bytes_per_row_written=X
 *          tick_ms_median=M tick_ms_p99=P tick_ms_max=W
 *          cpu_ms_median=... cpu_ms_p99=... cpu_ms_max=...
 * bytes is the main file after the final checkpoint (WAL folded in);
 * tick_ms is wall time (a busy machine's preemption included), cpu_ms
 * the thread's CPU time in the same tick; ticks over 50 ms are listed on
 * stderr.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "store.h"

#define T0 1.7e9
#define MIB 1048576.0
#define PAGE 4096.0
#define RETAIN_MIN_ROWS 4096   /* as recorder.c */

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_u64(void)
{
	/* splitmix64: enough for figures that only need to differ */
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * (double)(next_u64() >> 11) * 0x1p-53;
}

static double pages(double bytes) { return floor(bytes / PAGE) * PAGE; }

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long long file_bytes(const char *path)
{
	struct stat sb;
	long long n = stat(path, &sb) == 0 ? (long long)sb.st_size : 0;
	char wal[4096];
	snprintf(wal, sizeof(wal), "%s-wal", path);
	if (stat(wal, &sb) == 0)
		n += (long long)sb.st_size;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	long procs = 1000;
	double interval = 15, duration = 3600, retain = 0;
	const char *db = "bench_retain.db";
	double start = 0;
	bool append = false;
	int c;
	while ((c = getopt(argc, argv, "n:i:d:r:o:as:")) != -1) {
		switch (c) {
		case 'a': append = true; break;
		case 's': start = atof(optarg); break;
		case 'n': procs = atol(optarg); break;
		case 'i': interval = atof(optarg); break;
		case 'd': duration = atof(optarg); break;
		case 'r': retain = atof(optarg); break;
		case 'o': db = optarg; break;
		default:
			fprintf(stderr, "usage: bench_retain [-n PROCS] [-i "
				"INTERVAL_S] [-d DURATION_S] [-r RETAIN_S] "
				"[-a -s START_S] [-o FILE.db]\n");
			return 2;
		}
	}
	if (procs < 1 || !(interval > 0) || !(duration > 0))
		return 2;
	if (!append)
		store_remove(db);
	struct store *st = store_create(db, append);
	if (!st)
		return 3;
	int64_t target = store_target_add(st, "pid", "bench", "bench", 0);
	int64_t *inc = calloc((size_t)procs, sizeof(*inc));
	struct proc_mem *m = calloc((size_t)procs, sizeof(*m));
	for (long p = 0; p < procs; p++) {
		char cmdline[32];
		snprintf(cmdline, sizeof(cmdline), "proc%ld", p);
		struct proc_identity id = {.pid = (pid_t)(1000 + p),
					   .start_ticks = 100 + (unsigned)p,
					   .start_time = T0,
					   .cmdline = cmdline};
		snprintf(id.comm, sizeof(id.comm), "%s", cmdline);
		inc[p] = store_incarnation_add(st, target, &id, 0, T0);
		m[p] = (struct proc_mem){.anon = pages(uniform(20, 500) * MIB),
			.file = pages(uniform(10, 100) * MIB),
			.shmem = pages(uniform(0, 4) * MIB), .swap = 0,
			.pagetables = pages(uniform(0.1, 2) * MIB),
			.gpu = NAN};
	}
	store_commit(st);
	long ticks = (long)(duration / interval);
	double *tick_ms = calloc((size_t)ticks, sizeof(*tick_ms));
	double *cpu_ms = calloc((size_t)ticks, sizeof(*cpu_ms));
	double last_commit = -INFINITY;
	uint64_t rows = 0;
	struct sys_mem sys = {.mem_total = 64 * 1024 * MIB,
			      .swap_total = 0, .swap_free = 0,
			      .psi_some_avg10 = 0.1, .psi_full_avg10 = 0,
			      .psi_some_total = 1e6, .psi_full_total = 1e5};
	for (long k = 0; k < ticks; k++) {
		double t = T0 + start + (double)k * interval;
		double w0 = now_s(), c0 = cpu_s();
		for (long p = 0; p < procs; p++) {
			struct proc_mem *x = &m[p];
			x->anon = fmax(PAGE, x->anon + PAGE *
				       floor(uniform(-64, 65)));
			x->rss = x->anon + x->file + x->shmem;
			x->footprint = x->anon + x->swap + x->shmem;
			struct store_sample s = {inc[p], t, *x, NULL};
			store_sample_add(st, &s);
		}
		sys.mem_available = pages(uniform(20, 40) * 1024 * MIB);
		store_system_add(st, t, &sys);
		rows += (uint64_t)procs;
		if (t - last_commit >= 1.0) {
			if (retain > 0) {
				uint64_t budget = 2 * store_pending(st);
				if (budget < RETAIN_MIN_ROWS)
					budget = RETAIN_MIN_ROWS;
				store_retain(st, t - retain, budget);
			}
			if (store_commit(st)) {
				fprintf(stderr, "commit: %s\n",
					store_last_error(st));
				return 3;
			}
			last_commit = t;
		}
		tick_ms[k] = (now_s() - w0) * 1e3;
		cpu_ms[k] = (cpu_s() - c0) * 1e3;
		if (tick_ms[k] > 50)
			fprintf(stderr, "  slow tick %ld at %.0f s: %.1f ms "
				"(cpu %.1f ms)\n", k, (double)k * interval,
				tick_ms[k], cpu_ms[k]);
		if (ticks >= 10 && (k + 1) % (ticks / 10) == 0)
			printf("  at %.0f s: %lld bytes (file + WAL), %.3f "
			       "ms this tick\n", (double)(k + 1) * interval,
			       file_bytes(db), tick_ms[k]);
	}
	if (store_close(st))
		return 3;
	long long bytes = file_bytes(db);
	double max = 0, cmax = 0;
	for (long k = 0; k < ticks; k++) {
		max = fmax(max, tick_ms[k]);
		cmax = fmax(cmax, cpu_ms[k]);
	}
	qsort(tick_ms, (size_t)ticks, sizeof(*tick_ms), cmp_double);
	qsort(cpu_ms, (size_t)ticks, sizeof(*cpu_ms), cmp_double);
	/* rows: every row written; with -r the file holds only the window */
	printf("retain procs=%ld interval_s=%g retain_s=%g ticks=%ld "
	       "rows_written=%llu bytes=%lld bytes_per_row_written=%.1f "
	       "tick_ms_median=%.3f tick_ms_p99=%.3f tick_ms_max=%.3f "
	       "cpu_ms_median=%.3f cpu_ms_p99=%.3f cpu_ms_max=%.3f\n",
	       procs, interval, retain, ticks, (unsigned long long)rows,
	       bytes, (double)bytes / (double)rows, tick_ms[ticks / 2],
	       tick_ms[(size_t)((double)ticks * 0.99)], max,
	       cpu_ms[ticks / 2], cpu_ms[(size_t)((double)ticks * 0.99)],
	       cmax);
	free(cpu_ms);
	free(tick_ms);
	free(inc);
	free(m);
	return 0;
}
