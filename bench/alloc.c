/*
 * alloc.c - an allocation-heavy program for bench section j (record
 * --sites' cost, bench/README.md): THREADS threads each replace blocks
 * of mixed sizes in a ring of 4,096 for SECONDS (80 % 16-128 B, 18 %
 * 128 B-1 KiB, 2 % 1-16 KiB: 330 B on average; the first byte of each
 * written), then it
 * prints "ops N ops_per_s R ops_per_cpu_s C" (one op: a free and a
 * malloc; C: per second of the process's own CPU time).
 *
 * Usage: bench_alloc THREADS SECONDS [SPIN [WAIT]]: SPIN rounds of
 * xorshift after each op stand for the work a program does between
 * allocations (0: none, malloc and free back to back, the worst case for
 * a shim); WAIT seconds asleep first, not measured, in which a tracer of
 * a running process (record --sites -p, bpftrace) attaches: it prints
 * "pid P" at once and starts when the wait is over.
 * Not sanitized: the shim runs in it.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define RING 4096

static volatile int stop;
static uint64_t ops[64];
static int spin;                  /* work per op: xorshift rounds */
static volatile uint64_t sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	size_t id = (size_t)arg;
	uint64_t x = 0x9e3779b97f4a7c15ULL * (id + 1), n = 0;
	char **ring = calloc(RING, sizeof(*ring));
	while (!stop) {
		for (int k = 0; k < 1024; k++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			unsigned r = (unsigned)(x % 100);
			size_t size = r < 80 ? 16 + (x >> 8) % 112 :
				      r < 98 ? 128 + (x >> 8) % 896 :
				      1024 + (x >> 8) % 15360;
			size_t i = (x >> 32) % RING;
			free(ring[i]);
			ring[i] = malloc(size);
			ring[i][0] = (char)k;
			for (int w = 0; w < spin; w++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
			}
		}
		n += 1024;
	}
	for (size_t i = 0; i < RING; i++)
		free(ring[i]);
	free(ring);
	ops[id] = n;
	sink = x;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	double seconds = argc > 2 ? atof(argv[2]) : 5;
	spin = argc > 3 ? atoi(argv[3]) : 0;
	double wait = argc > 4 ? atof(argv[4]) : 0;
	if (threads < 1 || threads > 64)
		return 2;
	if (wait > 0) {
		printf("pid %d\n", (int)getpid());
		fflush(stdout);
		struct timespec w = {(time_t)wait,
				     (long)((wait - (time_t)wait) * 1e9)};
		nanosleep(&w, NULL);
	}
	struct rusage ru0;
	getrusage(RUSAGE_SELF, &ru0);
	pthread_t t[64];
	double t0 = now();
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(size_t)i);
	struct timespec ts = {(time_t)seconds,
			      (long)((seconds - (time_t)seconds) * 1e9)};
	nanosleep(&ts, NULL);
	stop = 1;
	uint64_t total = 0;
	for (int i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		total += ops[i];
	}
	double dt = now() - t0;
	/* per CPU second too: on a shared machine the wall clock counts
	 * the other work, the process's own CPU time does not */
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = ru.ru_utime.tv_sec - ru0.ru_utime.tv_sec +
		     (ru.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
		     ru.ru_stime.tv_sec - ru0.ru_stime.tv_sec +
		     (ru.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
	printf("ops %llu ops_per_s %.0f ops_per_cpu_s %.0f\n",
	       (unsigned long long)total, total / dt, total / cpu);
	return 0;
}
