/*
 * probe_arm.h - one arm of `memtrend probe` (cmd_probe.c): the allocator
 * experiment of the second field report (docs/probe.md), run inside a
 * child that memtrend exec'd afresh (/proc/self/exe) with the arm's
 * environment (MALLOC_ARENA_MAX, LD_PRELOAD) already in place, since glibc
 * reads its tunables at start and a preloaded allocator must be there
 * from exec.
 *
 * Threads allocate and free buffers in parallel, round after round, so
 * that glibc hands them several arenas (as it does a service's worker
 * threads); after the rounds the process idles. It marks each phase to
 * its parent on event_fd and waits for one byte on ack_fd before going
 * on, so the parent reads the footprint at exact moments, with nothing
 * live but the small blocks every arm keeps.
 *
 * What it does not do: read its own memory, record, or print anything
 * but an error. Not part of recording or analysis.
 */
#ifndef MEMTREND_PROBE_ARM_H
#define MEMTREND_PROBE_ARM_H

#include <stddef.h>
#include <stdint.h>

enum probe_arm_kind {
	PROBE_ARM_VARYING,         /* sizes uniform in [min, max] */
	PROBE_ARM_FIXED,           /* one size, the middle of the range */
	PROBE_ARM_CAPPED,          /* varying sizes through a pool that
				      keeps freed buffers up to cap */
	PROBE_ARM_TRIM,            /* varying, malloc_trim(0) after each
				      round */
};

/* Events on event_fd: 8 bytes each, (what, n) as two uint32_t in host
 * order; the child then waits for one byte on ack_fd. */
enum probe_arm_event {
	PROBE_EV_START = 1,        /* threads made, nothing allocated yet */
	PROBE_EV_ROUND = 2,        /* round n (1-based) over: every buffer
				      freed (trimmed in the trim arm) */
	PROBE_EV_IDLE = 3,         /* the idle period is over */
	PROBE_EV_REFUSED = 4,      /* instead of START: the preloaded library
				      is not in use (probe_alloc_check_loaded);
				      n bytes of text follow, the reason
				      (PROBE_ARM_WHY_MAX at most, one write);
				      no acknowledgement, the child ends */
};

/* The longest reason a REFUSED event carries: event and text in one
 * write below PIPE_BUF, so it arrives whole. */
#define PROBE_ARM_WHY_MAX 1024

struct probe_arm_config {
	enum probe_arm_kind kind;
	int threads;               /* >= 1 */
	long rounds;               /* >= 1 */
	size_t min_size, max_size; /* bytes, 1 <= min <= max */
	double idle_s;             /* >= 0 */
	size_t cap;                /* capped arm: the pool's cap, bytes */
	uint64_t seed;
	int event_fd, ack_fd;
	const char *preload;       /* the library the parent preloaded (the
				      path in LD_PRELOAD), to check before
				      START; NULL for none */
};

/* Each thread, each round: PROBE_ARM_PER_ROUND buffers, at most
 * PROBE_ARM_LIVE alive at once, every page written and read back; one
 * small block (32-256 bytes) kept per buffer to the end (a log record, a
 * cache key: what settles in the holes). */
#define PROBE_ARM_PER_ROUND 32
#define PROBE_ARM_LIVE 8

const char *probe_arm_kind_name(enum probe_arm_kind k);
/* "varying" ... -> kind; -1 when unknown. */
int probe_arm_kind_parse(const char *s);
/* Run the arm. Returns 0 after the last acknowledgement, -1 after a
 * message (the parent went away, a thread could not start), or -1 after
 * a REFUSED event (the preloaded library is not in use: the parent says
 * so). */
int probe_arm_run(const struct probe_arm_config *c);

#endif
