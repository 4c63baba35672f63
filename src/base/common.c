/*
 * common.c - diagnostics and allocation helpers (see common.h).
 * Does not exit except on out-of-memory, which it treats as fatal.
 */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static bool diag_quiet;

void diag_set_quiet(bool quiet) { diag_quiet = quiet; }

static void vdiag(const char *kind, const char *fmt, va_list ap)
{
	char buf[2048];
	vsnprintf(buf, sizeof(buf), fmt, ap);
	fprintf(stderr, "memtrend: %s: %s\n", kind, buf);
}

int error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag("error", fmt, ap);
	va_end(ap);
	return -1;
}

void warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vdiag("warning", fmt, ap);
	va_end(ap);
}

void note(const char *fmt, ...)
{
	if (diag_quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vdiag("note", fmt, ap);
	va_end(ap);
}

static void oom(size_t n)
{
	fprintf(stderr, "memtrend: fatal: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(n);
	return q;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		oom(strlen(s));
	return d;
}

void xgrow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return;
	size_t c = *cap ? *cap : 16;
	while (c < need)
		c *= 2;
	*p = xrealloc(*p, c * elem);
	*cap = c;
}

/* The clock seam of the tests: with $MEMTREND_TEST_WALL_SHIFT naming a
 * file, the number in it (seconds) is added to the wall clock, read at
 * every call -- so a test can step the wall clock as NTP or a resume from
 * suspend would, without being root. The variable is looked up once per
 * process (the tests set it before starting memtrend): a getenv() walks
 * the whole environment, which after the recorder's sleep is cold, and
 * that cost a few microseconds per tick for nothing. */
static double wall_shift(void)
{
	/* 0: not looked up yet, 1: unset or empty, 2: shift_path set. A
	 * race between threads only looks it up twice, with one answer. */
	static atomic_int state;
	static const char *_Atomic shift_path;
	int st = atomic_load_explicit(&state, memory_order_acquire);
	if (st == 0) {
		const char *env = getenv("MEMTREND_TEST_WALL_SHIFT");
		atomic_store_explicit(&shift_path, env, memory_order_relaxed);
		st = env && *env ? 2 : 1;
		atomic_store_explicit(&state, st, memory_order_release);
	}
	if (st == 1)
		return 0;
	const char *path = atomic_load_explicit(&shift_path,
						memory_order_relaxed);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	double v = 0;
	if (fscanf(f, "%lf", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

double now_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9 + wall_shift();
}

double now_boottime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double now_monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
