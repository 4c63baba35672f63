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
/* The cache holds CACHE_SLOTS entries of different sizes, one inserted
 * per request: 128 KiB on average, 32 pages give or take up to 3
 * (cache_entry_size), so the cap is exactly 32 MiB and the fill takes
 * 12.8 s at full speed (WORKLOAD_CACHE_FILL_S). Why sizes that differ:
 * the report infers the readings' resolution from the steps between them
 * (stats_resolution), and entries of one size make every step a multiple
 * of what a tick's requests add -- 640 KiB when a busy machine serves
 * five requests in every tick, too coarse for the flat part of a 30 s
 * demo to rule out the slope of concern (resolution / time held). Real
 * caches keep entries of many sizes; a tick's steps then differ by
 * single pages. Once full, an entry is replaced by one of the same size,
 * so the level holds to the page. */
#define CACHE_PAGE 4096
#define CACHE_SLOTS 256
#define CACHE_ENTRY_PAGES 32
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

/* Entry i's size: CACHE_ENTRY_PAGES pages plus a wobble that sums to zero
 * over every 8 slots, so CACHE_SLOTS entries make the cap exactly. */
static size_t cache_entry_size(size_t slot)
{
	static const int wobble[8] = {+1, -1, +2, -2, +3, -3, +1, -1};
	return (size_t)(CACHE_ENTRY_PAGES + wobble[slot % 8]) * CACHE_PAGE;
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
	_Static_assert(CACHE_SLOTS % 8 == 0 && (double)CACHE_SLOTS *
		       CACHE_ENTRY_PAGES * CACHE_PAGE == WORKLOAD_CACHE_CAP,
		       "the entries add up to the cap");
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
			/* Insert an entry; once full, evict the oldest
			 * (the slot's next entry has its size). */
			size_t size = cache_entry_size(cache_next);
			if (cache[cache_next])
				munmap(cache[cache_next], size);
			void *e = mmap(NULL, size, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			cache[cache_next] = e == MAP_FAILED ? NULL : e;
			if (cache[cache_next])
				memset(cache[cache_next], 0x22, size);
			cache_next = (cache_next + 1) % CACHE_SLOTS;
			if (cache_next == 0 && full_fd >= 0) {
				/* full: the plateau starts here */
				if (write(full_fd, &one, 1) != 1)
					{ /* the demo is gone */ }
				close(full_fd);
				full_fd = -1;
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
