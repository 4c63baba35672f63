/*
 * common.h - what every memtrend module shares: exit codes, diagnostics,
 * allocation helpers and the version string.
 *
 * Diagnostics go to stderr (never stdout: only renderers write there).
 * Lower layers report a problem with `return error("cannot open '%s'", p);`
 * (error() prints and returns -1); only main.c and cmd_*.c decide to exit.
 * The x*alloc helpers abort on out-of-memory: memtrend has no sensible way
 * to continue a recording or a report without the memory it asked for.
 */
#ifndef MEMTREND_COMMON_H
#define MEMTREND_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef MEMTREND_VERSION
#define MEMTREND_VERSION "0.1.0"
#endif

/* Named exit codes (docs/design.md, "Errors and exit codes"). */
enum memtrend_exit {
	EXIT_OK = 0,           /* success */
	EXIT_GATE_FAILED = 1,  /* a check (gate) failed */
	EXIT_USAGE = 2,        /* usage error or bad input */
	EXIT_RUNTIME = 3,      /* run-time failure */
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define PRINTF_LIKE(f, a) __attribute__((format(printf, f, a)))
#else
#define PRINTF_LIKE(f, a)
#endif

/* Print "memtrend: error: ..." to stderr; returns -1 so callers can
 * `return error(...)`. */
int error(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Print "memtrend: warning: ..." to stderr. */
void warning(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Print "memtrend: note: ..." to stderr (unless notes are silenced). */
void note(const char *fmt, ...) PRINTF_LIKE(1, 2);
/* Silence note() (used by tests and by --quiet). */
void diag_set_quiet(bool quiet);

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Grow *p (an array of elem-size items with capacity *cap) to hold at
 * least need items; doubles the capacity. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem);

/* Wall-clock UTC and monotonic seconds. */
double now_wall(void);
double now_monotonic(void);
/* CLOCK_BOOTTIME: the monotonic clock plus the time spent suspended. */
double now_boottime(void);

#endif
