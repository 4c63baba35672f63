/*
 * sites_bpf.h - what the kernel half of record --sites -p
 * (sites_bpf.bpf.c) and the recorder (sampler_sites_bpf.c) share: the
 * maps' values and the counts' slots. Types of <linux/types.h> only, so
 * that the BPF target and the host compile it alike.
 */
#ifndef MEMTREND_SITES_BPF_H
#define MEMTREND_SITES_BPF_H

#include <linux/types.h>

/* Capacities: as the shim's (sites_region.h), but for the stack table,
 * twice the sites, since a stack map is a hash that refuses a
 * colliding stack rather than chain it. */
#define SITES_BPF_DEFAULT_SITES 4096
#define SITES_BPF_DEFAULT_STACKS 8192
#define SITES_BPF_DEFAULT_LIVE 131072
#define SITES_BPF_DEFAULT_DEPTH 8

/* A sampled live block. */
struct sites_bpf_block {
	__u64 weight;   /* bytes it stands for */
	__u32 stackid;  /* its site */
	__u32 pad;
};

/* A site: the live bytes' estimate (the sum of its live blocks'
 * weights) and its sampled allocations. */
struct sites_bpf_site {
	__s64 live;
	__u64 allocs;
};

/* Code whose mmap calls are not the program's (the C library's, the
 * allocator's): the return address in [lo, hi) is skipped. */
struct sites_bpf_range {
	__u64 lo, hi;
};
#define SITES_BPF_SKIP_RANGES 4

/* Slots of the counts array. */
enum {
	COUNT_ALLOC_CALLS,   /* allocation calls trapped (entry, return) */
	COUNT_FREE_CALLS,    /* free calls trapped (entry) */
	COUNT_SAMPLED,       /* allocations sampled */
	COUNT_DROPPED_SITES, /* sampled, not kept: no stack or site slot */
	COUNT_DROPPED_LIVE,  /* sampled, not kept: the live set was full */
	COUNT_LIVE_BLOCKS,   /* sampled blocks live now */
	SITES_BPF_COUNTS
};

#endif
