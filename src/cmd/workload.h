/*
 * workload.h - the demo's three built-in services: one that keeps memory
 * per simulated request (a leak), one that fills a cache up to a cap and
 * then only replaces entries (a plateau at a cap), one that allocates and
 * frees the same sizes (steady). Each runs in its own process, forked by
 * the demo, until killed. Not part of recording or analysis.
 */
#ifndef MEMTREND_WORKLOAD_H
#define MEMTREND_WORKLOAD_H

enum workload_kind { WORKLOAD_LEAK, WORKLOAD_CACHE, WORKLOAD_STEADY };

#define WORKLOAD_CACHE_CAP (32.0 * 1024 * 1024)  /* the cache's cap */
#define WORKLOAD_LEAK_PER_REQUEST (16 * 1024)    /* kept per request */

/* How long the cache takes to fill at full speed (its entries, one per
 * request, times the pause between requests): slower on a busy machine,
 * hence the signal on full_fd. */
#define WORKLOAD_CACHE_FILL_S 12.8

const char *workload_name(enum workload_kind k);
/* Set up, write one byte to ready_fd (then close it), serve simulated
 * requests forever, appending one line per request served to log_fd
 * when it is >= 0 (the demo's work counter, read as --work-log reads a
 * service's access log). The cache writes one byte to full_fd (then
 * closes it) when it first reaches its cap: its steady state, said by a
 * signal rather than assumed after a time; -1: no such signal. Returns
 * only on setup failure. */
int workload_run(enum workload_kind k, int ready_fd, int full_fd,
		 int log_fd);

#endif
