/*
 * sites_prog.c - a service with allocation sites of known behaviour, for
 * record --sites (tests/e2e/sites.sh, docs/sites.md).
 *
 * Two worker threads serve "requests" (a batch, then a short sleep);
 * each request
 *   - keeps 4 KiB at leak_keep() (never freed: the leak, 4,096 bytes
 *     per request),
 *   - puts 2 KiB in a ring of 512 entries at cache_put() (grows to
 *     1 MiB, then each new entry frees the oldest: a cache at its cap),
 *   - grows one buffer by realloc at buffer_grow() up to 256 KiB (then
 *     no more: growth that stops),
 * and appends one line to the work log (argv[2]), so that memtrend
 * counts the requests with --work-log. A third thread churns: blocks of
 * 16 B to 8 KiB allocated and freed at churn() (no growth).
 *
 * With MODE "mmap" (a fourth argument), each request also maps 8 KiB
 * of anonymous memory itself at mmap_keep() and keeps it (a leak
 * outside malloc, 8,192 bytes per request), maps and unmaps 16 KiB at
 * mmap_churn() (none), and allocates and frees 64 MiB at big_churn(),
 * which glibc's malloc maps itself (above its largest threshold): a
 * mapping that is the allocator's, not the program's.
 *
 * Usage: sites_prog SECONDS LOG [REQUESTS_PER_SECOND [MODE]]. Built without
 * sanitizers (the shim runs in it) and with its symbols, so that the
 * sites are named; the functions are never inlined, so each is a frame.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LEAK_BYTES 4096
#define CACHE_ENTRIES 512
#define CACHE_BYTES 2048
#define BUFFER_MAX (256 * 1024)

static int log_fd = -1;
static volatile int stop;
static double per_batch_sleep_s;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void **kept;
static size_t n_kept, cap_kept;
static char *cache[CACHE_ENTRIES];
static size_t cache_next;
static char *buffer;
static size_t buffer_len;

static __attribute__((noinline)) void leak_keep(void)
{
	char *p = malloc(LEAK_BYTES);
	memset(p, 1, LEAK_BYTES);
	pthread_mutex_lock(&lock);
	if (n_kept == cap_kept) {
		cap_kept = cap_kept ? 2 * cap_kept : 1024;
		/* the list itself is a realloc'd array: a site of its own,
		 * 8 bytes per request (0.2 % of the leak) */
		kept = realloc(kept, cap_kept * sizeof(*kept));
	}
	kept[n_kept++] = p;
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void cache_put(void)
{
	char *p = malloc(CACHE_BYTES);
	memset(p, 2, CACHE_BYTES);
	pthread_mutex_lock(&lock);
	free(cache[cache_next]);
	cache[cache_next] = p;
	cache_next = (cache_next + 1) % CACHE_ENTRIES;
	pthread_mutex_unlock(&lock);
}

static __attribute__((noinline)) void buffer_grow(void)
{
	pthread_mutex_lock(&lock);
	if (buffer_len < BUFFER_MAX) {
		buffer_len += 1024;
		buffer = realloc(buffer, buffer_len);
		memset(buffer + buffer_len - 1024, 3, 1024);
	}
	pthread_mutex_unlock(&lock);
}

static int with_mmap;

static __attribute__((noinline)) void mmap_keep(void)
{
	char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	memset(p, 5, 8192);
	/* kept: never unmapped */
}

static __attribute__((noinline)) void mmap_churn(void)
{
	char *p = mmap(NULL, 16384, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		abort();
	memset(p, 6, 16384);
	munmap(p, 16384);
}

static __attribute__((noinline)) void big_churn(void)
{
	char *p = malloc(64 << 20);
	if (!p)
		abort();
	p[0] = 7; /* one page touched */
	free(p);
}

static __attribute__((noinline)) void handle_request(void)
{
	leak_keep();
	cache_put();
	buffer_grow();
	if (with_mmap) {
		mmap_keep();
		mmap_churn();
		big_churn();
	}
	if (write(log_fd, "req\n", 4) != 4)
		abort();
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	while (!stop) {
		for (int i = 0; i < 25; i++)
			handle_request();
		sleep_s(per_batch_sleep_s);
	}
	return NULL;
}

static __attribute__((noinline)) void churn(unsigned *seed)
{
	void *p[64];
	for (int i = 0; i < 64; i++) {
		size_t n = 16 + (size_t)(rand_r(seed) % 8192);
		p[i] = malloc(n);
		memset(p[i], 4, n);
	}
	for (int i = 0; i < 64; i++)
		free(p[i]);
}

static void *churner(void *arg)
{
	(void)arg;
	unsigned seed = 1;
	while (!stop) {
		churn(&seed);
		sleep_s(0.002);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sites_prog SECONDS LOG [REQ_PER_S]\n");
		return 2;
	}
	double seconds = atof(argv[1]);
	double rate = argc > 3 ? atof(argv[3]) : 1000;
	with_mmap = argc > 4 && !strcmp(argv[4], "mmap");
	/* two workers, 25 requests a batch */
	per_batch_sleep_s = 2 * 25 / rate;
	log_fd = open(argv[2], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		      0644);
	if (log_fd < 0) {
		perror(argv[2]);
		return 2;
	}
	pthread_t w[2], c;
	for (int i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, worker, NULL);
	pthread_create(&c, NULL, churner, NULL);
	sleep_s(seconds);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	pthread_join(c, NULL);
	printf("requests %zu\n", n_kept);
	return 0;
}
