/*
 * allocprobe - allocator retention against the real glibc malloc.
 *
 *   allocprobe --arm varying|fixed|capped [--rounds N] [--round-ms MS]
 *              [--idle-s S] [--cap-mib M] [--per-round N] [--live N]
 *              [--min-kib K] [--max-kib K] [--delay-s S] [--ready FILE]
 *              [--log FILE] [--seed N] [--hold-s S] [--verbose]
 *
 * The Linux face of the allocator probe in context.md (report 2): N rounds
 * of "allocate buffers, touch every page, compute something trivial over
 * them, free them", then --idle-s seconds with no allocation at all, then
 * hold (until SIGTERM/SIGINT, or --hold-s seconds). Between rounds nothing
 * is live but a few small blocks: what the footprint shows then is what
 * the allocator kept.
 *
 * A round handles --per-round buffers (default 32) like a service handles
 * requests, --live (default 8) alive at once: when a new one makes them
 * --live + 1, one of them chosen at random (the new one too) finishes and
 * is freed, so lifetimes overlap and interleave; the rest are freed at
 * the end of the round. Every buffer is memset (every
 * page touched) and read back page by page before it is freed. With each
 * buffer comes one small long-lived block (32-256 bytes: a log record, a
 * cache key; kept to the end), the only thing that outlives a round.
 *
 * Arms (sizes are drawn in every arm, so the arms share the random free
 * order and the small blocks; only what a buffer's size is differs):
 *   varying  buffer sizes uniform in [--min-kib, --max-kib] (1-4 MiB).
 *            glibc's mmap threshold is dynamic: the first free of an
 *            mmapped buffer raises it (up to 32 MiB), so from the first
 *            rounds on the buffers come from the heap. There a freed
 *            buffer's hole fits the next, different size only in part,
 *            the small blocks settle into the leftovers, new buffers are
 *            carved above them, and free() gives back only what ends up
 *            at the top (malloc_trim is never called): the footprint
 *            between rounds climbs over the first rounds, then stays,
 *            idle included. Not without bound: glibc's best fit settles
 *            at about twice what the fixed arm keeps (512 KiB-2 MiB, seed
 *            1, glibc 2.36: ~7-11 MiB after rounds 2-20, 23.7 MiB from
 *            round ~60 on, fixed 12.6 MiB; see tests/e2e/alloc_retention.sh).
 *   fixed    the same work with one size, the mean of the range: every
 *            hole is an exact fit for the next buffer; the footprint
 *            between rounds reaches one working set (--live buffers) in
 *            the first rounds and stays flat.
 *   capped   varying sizes through a caching pool, like a framework's
 *            allocator for device buffers: an allocation is served from
 *            the cache by the smallest cached buffer that is big enough
 *            and at most 1/8 bigger (bounded waste, as size-class caches
 *            do), else by malloc; a freed buffer is kept while the cache
 *            total stays <= --cap-mib, else free()d. The device memory
 *            under such a pool goes back at once when released, so this
 *            arm pins glibc's mmap threshold at --min-kib (mallopt): what
 *            the pool lets go is munmapped, and the cap alone sets the
 *            level.
 *
 * The process names itself "probe-ARM" (prctl PR_SET_NAME: the comm, which
 * memtrend reports as the target's name). --ready FILE is created once
 * started; --delay-s waits before the first round (a recorder sees the
 * baseline). --log FILE gets one line per event, "EVENT N TIME RSSANON":
 * start, round N (after the round's last free), idle (rounds done; N: the
 * capped pool's total in KiB), done (idle over; N: a checksum of what was
 * read); TIME is the wall clock (Unix seconds, as memtrend stores), RSSANON
 * in KiB from /proc/self/status. --verbose prints the same to stderr.
 * Deterministic for a given --seed: sizes, order, and so glibc's decisions.
 */
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sleep until the monotonic time t (or a signal asks us to stop). */
static void sleep_until(double t)
{
	for (;;) {
		double d = t - now();
		if (d <= 0 || stop)
			return;
		if (d > 0.05)
			d = 0.05;
		usleep((useconds_t)(d * 1e6));
	}
}

/* splitmix64: deterministic, independent of the libc's rand(). */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi]. */
static size_t rng_range(size_t lo, size_t hi)
{
	return lo + (size_t)(rng_next() % (uint64_t)(hi - lo + 1));
}

/* RssAnon of this process in KiB, read without allocating (so that
 * reading it does not change what the heap looks like). */
static long rss_anon_kib(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p = strstr(buf, "\nRssAnon:");
	return p ? atol(p + 9) : -1;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "allocprobe: out of memory (%zu bytes)\n", n);
		exit(3);
	}
	return p;
}

/* Events to --log (opened once, before the rounds, so that its buffer is
 * allocated before them) and, with --verbose, to stderr. */
static FILE *log_file;
static int verbose;
static char comm[16];

static void event(const char *what, long n)
{
	double t = wall();
	long kib = rss_anon_kib();
	if (log_file) {
		fprintf(log_file, "%s %ld %.3f %ld\n", what, n, t, kib);
		fflush(log_file);
	}
	if (verbose)
		fprintf(stderr, "%s: %s %ld RssAnon %ld KiB\n", comm, what, n,
			kib);
}

/* The caching pool of the capped arm. */
struct cached {
	void *p;
	size_t cap;
};
static struct cached *pool;
static size_t pool_n, pool_max, pool_bytes, pool_limit;

/* A buffer of at least n bytes; *capacity is its real size. */
static void *pool_get(size_t n, size_t *capacity)
{
	size_t best = pool_n;
	for (size_t i = 0; i < pool_n; i++)
		if (pool[i].cap >= n && pool[i].cap - n <= n / 8 &&
		    (best == pool_n || pool[i].cap < pool[best].cap))
			best = i;
	if (best < pool_n) {
		void *p = pool[best].p;
		*capacity = pool[best].cap;
		pool_bytes -= pool[best].cap;
		pool[best] = pool[--pool_n];
		return p;
	}
	*capacity = n;
	return xmalloc(n);
}

static void pool_put(void *p, size_t capacity)
{
	if (pool_bytes + capacity > pool_limit) {
		free(p);
		return;
	}
	if (pool_n == pool_max) {
		pool_max = pool_max ? 2 * pool_max : 64;
		pool = realloc(pool, pool_max * sizeof(*pool));
		if (!pool) {
			fprintf(stderr, "allocprobe: out of memory\n");
			exit(3);
		}
	}
	pool[pool_n].p = p;
	pool[pool_n].cap = capacity;
	pool_n++;
	pool_bytes += capacity;
}

enum arm { ARM_VARYING, ARM_FIXED, ARM_CAPPED };

struct live {
	unsigned char *p;
	size_t len, cap;
};

static uint64_t checksum;

/* Read the buffer back (the request's "result"), then release it. */
static void finish(enum arm arm, struct live *b)
{
	for (size_t o = 0; o < b->len; o += 4096)
		checksum = checksum * 31 + b->p[o];
	if (arm == ARM_CAPPED)
		pool_put(b->p, b->cap);
	else
		free(b->p);
}

int main(int argc, char **argv)
{
	const char *arm_name = NULL, *ready = NULL, *log_path = NULL;
	long rounds = 120, per_round = 32, live = 8;
	long min_kib = 1024, max_kib = 4096;
	double round_ms = 100, idle_s = 15, cap_mib = 128, delay_s = 0;
	double hold_s = -1;
	unsigned long long seed = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
		if (!strcmp(a, "--arm")) arm_name = v, i++;
		else if (!strcmp(a, "--rounds")) rounds = atol(v), i++;
		else if (!strcmp(a, "--round-ms")) round_ms = atof(v), i++;
		else if (!strcmp(a, "--idle-s")) idle_s = atof(v), i++;
		else if (!strcmp(a, "--cap-mib")) cap_mib = atof(v), i++;
		else if (!strcmp(a, "--per-round")) per_round = atol(v), i++;
		else if (!strcmp(a, "--live")) live = atol(v), i++;
		else if (!strcmp(a, "--min-kib")) min_kib = atol(v), i++;
		else if (!strcmp(a, "--max-kib")) max_kib = atol(v), i++;
		else if (!strcmp(a, "--delay-s")) delay_s = atof(v), i++;
		else if (!strcmp(a, "--ready")) ready = v, i++;
		else if (!strcmp(a, "--log")) log_path = v, i++;
		else if (!strcmp(a, "--seed")) seed = strtoull(v, NULL, 0), i++;
		else if (!strcmp(a, "--hold-s")) hold_s = atof(v), i++;
		else if (!strcmp(a, "--verbose")) verbose = 1;
		else {
			fprintf(stderr, "allocprobe: unknown option %s\n", a);
			return 2;
		}
	}
	enum arm arm;
	if (arm_name && !strcmp(arm_name, "varying"))
		arm = ARM_VARYING;
	else if (arm_name && !strcmp(arm_name, "fixed"))
		arm = ARM_FIXED;
	else if (arm_name && !strcmp(arm_name, "capped"))
		arm = ARM_CAPPED;
	else {
		fprintf(stderr, "allocprobe: --arm varying|fixed|capped\n");
		return 2;
	}
	if (rounds < 0 || per_round < 1 || live < 1 || live > 4096 ||
	    min_kib < 1 || max_kib < min_kib || max_kib > 1024 * 1024 ||
	    round_ms < 0 || idle_s < 0 || cap_mib < 0 || delay_s < 0) {
		fprintf(stderr, "allocprobe: bad option value\n");
		return 2;
	}
	snprintf(comm, sizeof(comm), "probe-%s", arm_name);
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	rng_state = seed;
	if (arm == ARM_CAPPED) {
		pool_limit = (size_t)(cap_mib * 1024 * 1024);
		mallopt(M_MMAP_THRESHOLD, (int)(min_kib * 1024));
	}
	if (log_path && !(log_file = fopen(log_path, "w"))) {
		perror("allocprobe: --log");
		return 3;
	}

	/* Everything that lives to the end is allocated up front. */
	struct live *q = xmalloc((size_t)(live + 1) * sizeof(*q));
	size_t pins_max = (size_t)(rounds * per_round), pins_n = 0;
	char **pins = xmalloc((pins_max ? pins_max : 1) * sizeof(char *));
	const size_t lo = (size_t)min_kib * 1024, hi = (size_t)max_kib * 1024;
	const size_t mean = lo + (hi - lo) / 2;

	event("start", 0);
	if (ready) {
		FILE *f = fopen(ready, "w");
		if (f)
			fclose(f);
	}
	sleep_until(now() + delay_s);
	double next = now();
	for (long r = 0; r < rounds && !stop; r++) {
		long nq = 0;
		for (long i = 0; i < per_round; i++) {
			size_t n = rng_range(lo, hi);
			if (arm == ARM_FIXED)
				n = mean;
			struct live *b = &q[nq++];
			b->len = n;
			if (arm == ARM_CAPPED)
				b->p = pool_get(n, &b->cap);
			else
				b->p = xmalloc(n), b->cap = n;
			memset(b->p, (int)(r + i) & 0xff, n);
			size_t small = rng_range(32, 256);
			char *pin = xmalloc(small);
			memset(pin, (int)r & 0xff, small);
			pins[pins_n++] = pin;
			if (nq > live) {
				long j = (long)(rng_next() % (uint64_t)nq);
				finish(arm, &q[j]);
				q[j] = q[--nq];
			}
		}
		while (nq > 0) {
			long j = (long)(rng_next() % (uint64_t)nq);
			finish(arm, &q[j]);
			q[j] = q[--nq];
		}
		event("round", r + 1);
		next += round_ms / 1000.0;
		sleep_until(next);
	}
	event("idle", arm == ARM_CAPPED ? (long)(pool_bytes / 1024) : 0);
	sleep_until(now() + idle_s);
	event("done", (long)(checksum & 0xffff));
	double hold_end = hold_s >= 0 ? now() + hold_s : -1;
	while (!stop && (hold_end < 0 || now() < hold_end))
		usleep(20000);
	/* The blocks stay reachable to here (no leak for a checker). */
	for (size_t i = 0; i < pins_n; i++)
		free(pins[i]);
	for (size_t i = 0; i < pool_n; i++)
		free(pool[i].p);
	free(pool);
	free(pins);
	free(q);
	if (log_file)
		fclose(log_file);
	return 0;
}
