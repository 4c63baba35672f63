/*
 * sites_bpf.h - what the kernel half of record --sites -p
 * (sites_bpf.bpf.c) and the recorder (sampler_sites_bpf.c) share: the
 * maps' values and the counts' slots. Types of <linux/types.h> only, so
 * that the BPF target and the host compile it alike.
 */
#ifndef MEMTREND_SITES_BPF_H
#define MEMTREND_SITES_BPF_H

#include <linux/types.h>

/* Capacities: as the shim's (sites_region.h), but for the stack tables.
 * A stack map is a hash that refuses a stack whose bucket holds another
 * (-EEXIST) rather than chain it: with n stacks in b buckets some two
 * collide with probability about n^2 / 2b (Redis's ~40 stacks: 10 % at
 * 8,192). A stack refused by the first table goes to a second of twice
 * its buckets (another bucket for the same hash), and its id is the
 * second's plus SITES_BPF_DEFAULT_STACKS: refused by both about n^4 /
 * 8 b^3 of the time. */
#define SITES_BPF_DEFAULT_SITES 4096
#define SITES_BPF_DEFAULT_STACKS 8192
#define SITES_BPF_SECOND_STACKS (2 * SITES_BPF_DEFAULT_STACKS)
#define SITES_BPF_STACK_IDS (SITES_BPF_DEFAULT_STACKS + SITES_BPF_SECOND_STACKS)
#define SITES_BPF_DEFAULT_LIVE 131072
#define SITES_BPF_DEFAULT_DEPTH 8

/* A sampled live block. */
struct sites_bpf_block {
	__u64 weight;   /* bytes it stands for */
	__u64 var;      /* its sampling variance, in 2^var_shift bytes^2
			   (sites_bpf_var_shift): weight (weight - size),
			   as the shim's sites_sample_variance() */
	__u32 stackid;  /* its site */
	__u32 pad;
};

/* A site: the live bytes' estimate (the sum of its live blocks'
 * weights), its sampling variance (the sum of their var, bytes^2) and
 * its sampled allocations. */
struct sites_bpf_site {
	__s64 live;
	__u64 allocs;
	__s64 var;      /* in 2^var_shift bytes^2 */
};

/* The shift for a rate (<= 2^32): a block's variance is below rate^2 <=
 * 2^(2 bits(rate)), a site holds at most 2^20 live blocks, so 2
 * bits(rate) - shift <= 42 keeps the sum below 2^62. */
static inline __u32 sites_bpf_var_shift(__u64 rate)
{
	__u32 bits = 0;
	while (bits < 64 && (rate >> bits))
		bits++;
	return 2 * bits > 42 ? 2 * bits - 42 : 0;
}

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
