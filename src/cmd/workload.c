/*
 * workload.c - the demo's simulated services (workload.h).
 *
 * Every allocation is touched (memset) so it is resident and shows in
 * RssAnon. Requests arrive every REQUEST_INTERVAL_US at most (fewer when
 * the machine is busy: nothing here depends on the rate; the cache says
 * when it is full). Cache entries are
 * mapped and unmapped directly, so an evicted entry's memory goes back to
 * the kernel whatever the allocator (glibc, or a sanitizer's with its
 * quarantine) and the footprint stays at the cap.
 */
#include "workload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define REQUEST_INTERVAL_US 50000         /* 20 requests per second */
/* The cache fills in entries of 64 KiB, two per request (12.8 s to the
 * 32 MiB cap at full speed: WORKLOAD_CACHE_FILL_S): steps fine enough that the rest of a 40 s demo can rule
 * out a slope of concern on the flat part (resolution / time held). */
#define CACHE_ENTRY (64 * 1024)
#define CACHE_FILL_PER_REQUEST 2
#define STEADY_BASE (16 * 1024 * 1024)
#define SCRATCH (64 * 1024)
#define WORKLOAD_STEADY_WARMUP 64     /* requests served before ready */

const char *workload_name(enum workload_kind k)
{
	switch (k) {
	case WORKLOAD_LEAK: return "demo-leak";
	case WORKLOAD_CACHE: return "demo-cache";
	case WORKLOAD_STEADY: return "demo-steady";
	}
	return "demo";
}

/* Scratch work every request does. The steady workload allocates and
 * frees it each time (same size: the allocator reuses the block); the
 * others use a fixed buffer so that their footprint is the leak or the
 * cache alone, whatever the allocator's own overhead. */
static void serve_one_request(enum workload_kind k)
{
	static char fixed[SCRATCH];
	if (k != WORKLOAD_STEADY) {
		memset(fixed, 0x5a, SCRATCH);
		return;
	}
	char *scratch = malloc(SCRATCH);
	if (scratch) {
		memset(scratch, 0x5a, SCRATCH);
		free(scratch);
	}
}

static void pause_between_requests(void)
{
	struct timespec ts = {0, REQUEST_INTERVAL_US * 1000L};
	nanosleep(&ts, NULL);
}

struct node {
	struct node *next;
};

int workload_run(enum workload_kind k, int ready_fd, int full_fd,
		 int log_fd)
{
	prctl(PR_SET_NAME, workload_name(k), 0, 0, 0);
	void *base = NULL;
	if (k == WORKLOAD_STEADY) {
		base = malloc(STEADY_BASE);
		if (!base)
			return -1;
		memset(base, 1, STEADY_BASE);
	}
	enum { CACHE_SLOTS = (int)(WORKLOAD_CACHE_CAP / CACHE_ENTRY) };
	void *cache[CACHE_SLOTS] = {0};
	size_t cache_next = 0;
	struct node *kept = NULL;
	/* Ready means steady: the steady service's first requests still
	 * grow its allocator's own structures (about 1 MiB over 15
	 * requests under ASan), which a recording starting at once took
	 * for a rise and a plateau. Serve a batch before saying so. */
	if (k == WORKLOAD_STEADY)
		for (int i = 0; i < WORKLOAD_STEADY_WARMUP; i++)
			serve_one_request(k);
	char one = 1;
	if (write(ready_fd, &one, 1) != 1) {
		free(base);
		return -1;
	}
	close(ready_fd);
	for (uint64_t req = 0;; req++) {
		serve_one_request(k);
		if (k == WORKLOAD_LEAK) {
			/* The bug: each request leaves a record behind. */
			struct node *n = malloc(WORKLOAD_LEAK_PER_REQUEST);
			if (n) {
				memset(n, 0x11, WORKLOAD_LEAK_PER_REQUEST);
				n->next = kept;
				kept = n;
			}
		} else if (k == WORKLOAD_CACHE) {
			/* Insert entries; once full, evict the oldest. */
			for (int j = 0; j < CACHE_FILL_PER_REQUEST; j++) {
				if (cache[cache_next])
					munmap(cache[cache_next], CACHE_ENTRY);
				void *e = mmap(NULL, CACHE_ENTRY,
					       PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				cache[cache_next] = e == MAP_FAILED ? NULL : e;
				if (cache[cache_next])
					memset(cache[cache_next], 0x22,
					       CACHE_ENTRY);
				cache_next = (cache_next + 1) % CACHE_SLOTS;
				if (cache_next == 0 && full_fd >= 0) {
					/* full: the plateau starts here */
					if (write(full_fd, &one, 1) != 1)
						{ /* the demo is gone */ }
					close(full_fd);
					full_fd = -1;
				}
			}
		}
		/* One line, one write: O_APPEND keeps lines whole. */
		if (log_fd >= 0 && write(log_fd, "request\n", 8) != 8)
			log_fd = -1;   /* a full disk: the demo goes on */
		pause_between_requests();
	}
	free(base);
	return 0;
}
