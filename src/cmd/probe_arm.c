/*
 * probe_arm.c - one arm of `memtrend probe` in its own process
 * (probe_arm.h). Runs as `memtrend probe --arm-child KIND ...`, exec'd by
 * cmd_probe.c with the arm's environment.
 *
 * Every worker thread does the same rounds as tests/helpers/allocprobe.c
 * does in one thread: PROBE_ARM_PER_ROUND buffers, PROBE_ARM_LIVE alive at
 * once (a new one makes them LIVE + 1: one chosen at random finishes), the
 * rest freed at the round's end, and one small block kept per buffer. The
 * threads meet at a barrier after each round; the main thread (which
 * allocates nothing in the rounds) then trims (trim arm) and reports the
 * round to the parent, and waits for its byte. So between rounds nothing
 * is live but the small blocks: the footprint then is what the allocator
 * kept. After the last round the threads stay (a service's threads do)
 * and nothing allocates for idle_s seconds.
 *
 * The capped arm's pool is shared by the threads (one mutex) and keeps
 * freed buffers while its total stays <= cap; it pins glibc's mmap
 * threshold at min_size (mallopt), so what the pool lets go is unmapped
 * and the cap alone sets the level, as a framework's device-buffer cache
 * does. Deterministic for a seed, except for how threads interleave.
 *
 * With a preloaded allocator (config.preload), the arm first checks that
 * it is the one in use (probe_alloc_check_loaded()) and otherwise sends
 * REFUSED with the reason instead of START: the loader only warns when it
 * cannot preload, and the rounds would measure glibc's malloc.
 */
#include "probe_arm.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "probe_alloc.h"

const char *probe_arm_kind_name(enum probe_arm_kind k)
{
	switch (k) {
	case PROBE_ARM_VARYING: return "varying";
	case PROBE_ARM_FIXED: return "fixed";
	case PROBE_ARM_CAPPED: return "capped";
	case PROBE_ARM_TRIM: return "trim";
	}
	return "?";
}

int probe_arm_kind_parse(const char *s)
{
	for (int k = PROBE_ARM_VARYING; k <= PROBE_ARM_TRIM; k++)
		if (!strcmp(s, probe_arm_kind_name(k)))
			return k;
	return -1;
}

/* splitmix64: the same sizes whatever the libc's rand(). */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static size_t rng_range(uint64_t *state, size_t lo, size_t hi)
{
	return lo + (size_t)(rng_next(state) % (uint64_t)(hi - lo + 1));
}

/* The capped arm's pool, shared by the threads. */
struct pooled {
	void *p;
	size_t cap;
};
static struct {
	pthread_mutex_t lock;
	struct pooled *v;
	size_t n, max, bytes, limit;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A buffer of at least n bytes from the pool (the smallest cached one
 * that is big enough and at most 1/8 bigger: bounded waste, as size-class
 * caches have), else from malloc. *capacity: its real size. */
static void *pool_get(size_t n, size_t *capacity)
{
	pthread_mutex_lock(&pool.lock);
	size_t best = pool.n;
	for (size_t i = 0; i < pool.n; i++)
		if (pool.v[i].cap >= n && pool.v[i].cap - n <= n / 8 &&
		    (best == pool.n || pool.v[i].cap < pool.v[best].cap))
			best = i;
	if (best < pool.n) {
		void *p = pool.v[best].p;
		*capacity = pool.v[best].cap;
		pool.bytes -= pool.v[best].cap;
		pool.v[best] = pool.v[--pool.n];
		pthread_mutex_unlock(&pool.lock);
		return p;
	}
	pthread_mutex_unlock(&pool.lock);
	*capacity = n;
	return xmalloc(n);
}

static void pool_put(void *p, size_t capacity)
{
	pthread_mutex_lock(&pool.lock);
	if (pool.bytes + capacity > pool.limit) {
		pthread_mutex_unlock(&pool.lock);
		free(p);
		return;
	}
	xgrow((void **)&pool.v, &pool.max, pool.n + 1, sizeof(*pool.v));
	pool.v[pool.n++] = (struct pooled){p, capacity};
	pool.bytes += capacity;
	pthread_mutex_unlock(&pool.lock);
}

struct live {
	unsigned char *p;
	size_t len, cap;
};

struct worker {
	const struct probe_arm_config *c;
	pthread_t thread;
	uint64_t rng;
	char **pins;               /* rounds * PER_ROUND small blocks */
	size_t n_pins;
	uint64_t checksum;
};

static volatile uint64_t probe_arm_sink;
static pthread_barrier_t round_start, round_end;
static volatile bool rounds_over;  /* set before the last round_start */

/* Read the buffer back (the request's result), then release it. */
static void finish(struct worker *w, struct live *b)
{
	for (size_t o = 0; o < b->len; o += 4096)
		w->checksum = w->checksum * 31 + b->p[o];
	if (w->c->kind == PROBE_ARM_CAPPED)
		pool_put(b->p, b->cap);
	else
		free(b->p);
}

static void worker_round(struct worker *w, long r)
{
	const struct probe_arm_config *c = w->c;
	struct live q[PROBE_ARM_LIVE + 1];
	int nq = 0;
	const size_t mean = c->min_size + (c->max_size - c->min_size) / 2;
	for (int i = 0; i < PROBE_ARM_PER_ROUND; i++) {
		/* Drawn in every arm: the arms share the free order. */
		size_t n = rng_range(&w->rng, c->min_size, c->max_size);
		if (c->kind == PROBE_ARM_FIXED)
			n = mean;
		struct live *b = &q[nq++];
		b->len = n;
		if (c->kind == PROBE_ARM_CAPPED)
			b->p = pool_get(n, &b->cap);
		else
			b->p = xmalloc(n), b->cap = n;
		memset(b->p, (int)(r + i) & 0xff, n);
		size_t small = rng_range(&w->rng, 32, 256);
		char *pin = xmalloc(small);
		memset(pin, (int)r & 0xff, small);
		w->pins[w->n_pins++] = pin;
		if (nq > PROBE_ARM_LIVE) {
			int j = (int)(rng_next(&w->rng) % (uint64_t)nq);
			finish(w, &q[j]);
			q[j] = q[--nq];
		}
	}
	while (nq > 0) {
		int j = (int)(rng_next(&w->rng) % (uint64_t)nq);
		finish(w, &q[j]);
		q[j] = q[--nq];
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	for (long r = 0;; r++) {
		pthread_barrier_wait(&round_start);
		if (rounds_over)
			break;
		worker_round(w, r);
		pthread_barrier_wait(&round_end);
	}
	return NULL;
}

/* Tell the parent, wait for its byte. */
static int mark(const struct probe_arm_config *c, uint32_t what, uint32_t n)
{
	uint32_t ev[2] = {what, n};
	ssize_t k;
	do
		k = write(c->event_fd, ev, sizeof(ev));
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(ev))
		return error("probe arm: the parent is gone");
	char ack;
	do
		k = read(c->ack_fd, &ack, 1);
	while (k < 0 && errno == EINTR);
	if (k != 1)
		return error("probe arm: the parent is gone");
	return 0;
}

_Static_assert(2 * sizeof(uint32_t) + PROBE_ARM_WHY_MAX <= PIPE_BUF,
	       "a REFUSED event must fit one atomic pipe write");

/* The preloaded library is not in use: say why to the parent, in one
 * write (below PIPE_BUF: it arrives whole), and end. */
static int refuse(const struct probe_arm_config *c, const char *why)
{
	struct {
		uint32_t ev[2];
		char text[PROBE_ARM_WHY_MAX];
	} m;
	size_t len = strnlen(why, sizeof(m.text));
	m.ev[0] = PROBE_EV_REFUSED;
	m.ev[1] = (uint32_t)len;
	memcpy(m.text, why, len);
	size_t total = sizeof(m.ev) + len;
	ssize_t k;
	do
		k = write(c->event_fd, &m, total);
	while (k < 0 && errno == EINTR);
	return -1;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int probe_arm_run(const struct probe_arm_config *c)
{
	assert(c->threads >= 1 && c->rounds >= 1);
	assert(c->min_size >= 1 && c->min_size <= c->max_size);
	/* Never outlive memtrend, whatever ends it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() == 1)
		return error("probe arm: the parent is gone");
	char comm[16];
	snprintf(comm, sizeof(comm), "probe-%s", probe_arm_kind_name(c->kind));
	prctl(PR_SET_NAME, comm, 0, 0, 0);
	/* The loader only warns when it cannot preload a library, and the
	 * process goes on with glibc's malloc: the arm would measure glibc
	 * under the library's name. */
	if (c->preload) {
		char why[PROBE_ARM_WHY_MAX];
		if (probe_alloc_check_loaded(c->preload, why, sizeof(why)))
			return refuse(c, why);
	}
	if (c->kind == PROBE_ARM_CAPPED) {
		pool.limit = c->cap;
		mallopt(M_MMAP_THRESHOLD, (int)(c->min_size < (1u << 30) ?
						 c->min_size : 1u << 30));
	}
	size_t nt = (size_t)c->threads;
	struct worker *w = xcalloc(nt, sizeof(*w));
	pthread_barrier_init(&round_start, NULL, (unsigned)nt + 1);
	pthread_barrier_init(&round_end, NULL, (unsigned)nt + 1);
	size_t started = 0;
	int rc = 0;
	for (size_t i = 0; i < nt; i++) {
		w[i].c = c;
		w[i].rng = c->seed + 0x1000193 * (uint64_t)i;
		/* Everything that lives to the end comes before round 1. */
		w[i].pins = xmalloc((size_t)c->rounds * PROBE_ARM_PER_ROUND *
				    sizeof(char *));
	}
	for (size_t i = 0; i < nt; i++) {
		int e = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (e) {
			rc = error("probe arm: cannot start a thread: %s",
				   strerror(e));
			break;
		}
		started++;
	}
	if (rc == 0 && started == nt)
		rc = mark(c, PROBE_EV_START, 0);
	for (long r = 0; rc == 0 && r < c->rounds; r++) {
		pthread_barrier_wait(&round_start);
		pthread_barrier_wait(&round_end);
		if (c->kind == PROBE_ARM_TRIM)
			malloc_trim(0);
		rc = mark(c, PROBE_EV_ROUND, (uint32_t)(r + 1));
	}
	if (rc == 0) {
		sleep_s(c->idle_s);
		rc = mark(c, PROBE_EV_IDLE, 0);
	}
	if (started < nt || rc) {
		/* Threads stuck at a barrier: the process ends with them. */
		return -1;
	}
	rounds_over = true;
	pthread_barrier_wait(&round_start);
	uint64_t sum = 0;
	for (size_t i = 0; i < nt; i++) {
		pthread_join(w[i].thread, NULL);
		sum += w[i].checksum;
		for (size_t j = 0; j < w[i].n_pins; j++)
			free(w[i].pins[j]);
		free(w[i].pins);
	}
	for (size_t i = 0; i < pool.n; i++)
		free(pool.v[i].p);
	free(pool.v);
	free(w);
	/* The work's result, so no compiler drops the reads. */
	probe_arm_sink = sum;
	return 0;
}
