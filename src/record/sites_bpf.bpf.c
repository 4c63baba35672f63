/*
 * sites_bpf.bpf.c - the kernel half of record --sites -p PID (eBPF mode,
 * docs/sites.md): uprobes on a running process's allocator that keep the
 * same table as the preloaded shim (src/shim/shim.c) -- per call site,
 * an unbiased estimate of the live bytes and the sampled allocations --
 * in BPF maps the recorder reads at each tick
 * (src/record/sampler_sites_bpf.c, which loads this program through the
 * skeleton bpftool generates at build time and attaches it to one pid).
 *
 * Sampling: each allocation of size s is sampled on its own, with
 * probability min(1, s / rate), and then stands for rate bytes (s when
 * s >= rate): the Horvitz-Thompson weight 1/p, so the sum of the live
 * samples' weights is an unbiased estimate of the live bytes, as the
 * shim's byte-Poisson sampling is (the two agree for s much smaller
 * than the rate; this one needs one random number per call and no
 * floating point, which a BPF program has not). The decision is made
 * at the call's entry, in the kernel: an allocation not sampled costs
 * the trap and a few instructions, no map write.
 *
 * A sampled allocation's stack is taken at the return (uretprobe), where
 * the first frame is the caller's return address and the rest follow
 * the frame pointers (bpf_get_stackid, BPF_F_USER_STACK): a program
 * built without them keeps its first frame right and may lose the rest.
 *
 * Bounds: every map has a fixed size (the recorder sets the stack depth
 * and the capacities before loading); what does not fit is counted
 * (COUNT_DROPPED_SITES, COUNT_DROPPED_LIVE), never silently lost.
 *
 * Anonymous memory the program maps itself (mmap, mremap, munmap in
 * the C library) is sampled as the shim samples it, by length; a
 * mapping asked for from the C library's or the allocator's own code
 * (glibc's malloc maps through the same function; a jemalloc maps its
 * heap) is not: the return address is looked up in the ranges the
 * recorder puts in `skip` (their code), so no byte counts twice.
 *
 * What it does not do: decide which process: the recorder attaches
 * every probe to one pid (the kernel filters by the process's memory).
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sites_bpf.h"

#ifndef EEXIST
#define EEXIST 17 /* asm-generic/errno-base.h: a stack map's collision */
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Mean bytes between samples; set by the recorder before loading. */
const volatile __u64 sample_rate = 512 * 1024;
/* A block's variance is kept in units of 2^var_shift bytes^2, so that a
 * site's sum of up to 2^20 blocks stays below 2^63 at any rate (the
 * recorder's sites_bpf_var_shift(); 0 up to a rate of 1 MiB, where the
 * rounding it would bring matters). */
const volatile __u32 var_shift = 0;

/* A sampled call between its entry and its return, per thread. Probed
 * calls nest (glibc's malloc maps a large block through mmap, probed
 * too): a return is this call's when the stack pointer is where the
 * entry's return pops it to. */
struct pending {
	__u64 weight;
	__u64 var;    /* weight (weight - size): the block's sampling
			 variance (sites_bpf.h) */
	__u64 memptr; /* posix_memalign's void **, else 0 */
	__u64 sp;     /* the stack pointer after the return */
};

/* What a return pops: the return address on x86 (the call pushed it),
 * nothing where it is in a register (arm64, riscv). */
#if defined(__TARGET_ARCH_x86)
#define RETURN_POPS 8
#else
#define RETURN_POPS 0
#endif

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* pid_tgid */
	__type(value, struct pending);
} pending SEC(".maps");

/* The sampled live set: address -> (weight, stack id). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SITES_BPF_DEFAULT_LIVE);
	__type(key, __u64);
	__type(value, struct sites_bpf_block);
} live SEC(".maps");

/* Per stack id: the live bytes' estimate and the sampled allocations. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SITES_BPF_DEFAULT_SITES);
	__type(key, __u32);
	__type(value, struct sites_bpf_site);
} sites SEC(".maps");

/* value_size (the depth: 8 bytes a frame) set before loading */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, SITES_BPF_DEFAULT_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SITES_BPF_DEFAULT_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* Where a stack the first table refused goes (sites_bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, SITES_BPF_SECOND_STACKS);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SITES_BPF_DEFAULT_DEPTH * sizeof(__u64));
} stacks_second SEC(".maps");

/* Code whose mmap calls are not the program's: [lo, hi) pairs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SITES_BPF_SKIP_RANGES);
	__type(key, __u32);
	__type(value, struct sites_bpf_range);
} skip SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SITES_BPF_COUNTS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void count_add(__u32 which, __s64 n)
{
	__u64 *c = bpf_map_lookup_elem(&counts, &which);
	if (c)
		__sync_fetch_and_add(c, n);
}

/* At a call's entry: sampled? Then its weight waits for the return. */
static __always_inline int enter(struct pt_regs *ctx, __u64 size,
				 __u64 memptr)
{
	count_add(COUNT_ALLOC_CALLS, 1);
	__u64 rate = sample_rate;
	__u64 weight, var = 0;
	if (size == 0)
		return 0;
	if (size >= rate) {
		weight = size; /* always sampled: no error */
	} else {
		/* p = size / rate in 32-bit fixed point; rate <= 2^32
		 * (the recorder's bound), size < rate: p32 < 2^32 */
		__u64 p32 = (size << 32) / rate;
		if ((__u64)bpf_get_prandom_u32() >= p32)
			return 0;
		weight = rate;
		/* p = size / rate: the error rate B - size has the
		 * variance size (rate - size), estimated unbiasedly by
		 * rate (rate - size) when sampled; < 2^64 as rate <= 2^32
		 * and size >= 1 */
		var = (rate * (rate - size)) >> var_shift;
	}
	__u64 id = bpf_get_current_pid_tgid();
	struct pending p = {weight, var, memptr,
			    PT_REGS_SP(ctx) + RETURN_POPS};
	bpf_map_update_elem(&pending, &id, &p, BPF_ANY);
	return 0;
}

/* At a sampled call's return: the block at addr joins its site. */
static __always_inline int leave(struct pt_regs *ctx, __u64 addr)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct pending *p = bpf_map_lookup_elem(&pending, &id);
	if (!p || p->sp != PT_REGS_SP(ctx))
		return 0; /* none, or a call nested in the sampled one */
	__u64 weight = p->weight;
	__u64 var = p->var;
	__u64 memptr = p->memptr;
	bpf_map_delete_elem(&pending, &id);
	/* no user address has its top bit set: MAP_FAILED, an error */
	if (addr >> 63)
		return 0;
	if (memptr) {
		/* posix_memalign: addr is its return code; the block is
		 * where memptr points */
		if (addr != 0)
			return 0;
		if (bpf_probe_read_user(&addr, sizeof(addr),
					(void *)memptr))
			return 0;
	}
	if (!addr)
		return 0;
	count_add(COUNT_SAMPLED, 1);
	long stackid = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
	if (stackid == -EEXIST) {
		/* its bucket holds another stack: the second table */
		stackid = bpf_get_stackid(ctx, &stacks_second,
					  BPF_F_USER_STACK);
		if (stackid >= 0)
			stackid += SITES_BPF_DEFAULT_STACKS;
	}
	if (stackid < 0) {
		count_add(COUNT_DROPPED_SITES, 1);
		return 0;
	}
	__u32 key = (__u32)stackid;
	struct sites_bpf_site *site = bpf_map_lookup_elem(&sites, &key);
	if (!site) {
		struct sites_bpf_site zero = {0, 0, 0};
		bpf_map_update_elem(&sites, &key, &zero, BPF_NOEXIST);
		site = bpf_map_lookup_elem(&sites, &key);
		if (!site) {
			count_add(COUNT_DROPPED_SITES, 1);
			return 0;
		}
	}
	struct sites_bpf_block b = {weight, var, key, 0};
	if (bpf_map_update_elem(&live, &addr, &b, BPF_ANY)) {
		count_add(COUNT_DROPPED_LIVE, 1);
		return 0;
	}
	count_add(COUNT_LIVE_BLOCKS, 1);
	__sync_fetch_and_add(&site->live, (__s64)weight);
	__sync_fetch_and_add(&site->var, (__s64)var);
	__sync_fetch_and_add(&site->allocs, 1);
	return 0;
}

/* A block freed (or moved by realloc): if sampled, its weight leaves its
 * site. The deletion decides, so a block is subtracted once. */
static __always_inline void release(__u64 addr)
{
	if (!addr)
		return;
	struct sites_bpf_block *b = bpf_map_lookup_elem(&live, &addr);
	if (!b)
		return;
	__u64 weight = b->weight;
	__u64 var = b->var;
	__u32 key = b->stackid;
	if (bpf_map_delete_elem(&live, &addr))
		return;
	count_add(COUNT_LIVE_BLOCKS, -1);
	struct sites_bpf_site *site = bpf_map_lookup_elem(&sites, &key);
	if (site) {
		__sync_fetch_and_add(&site->live, -(__s64)weight);
		__sync_fetch_and_add(&site->var, -(__s64)var);
	}
}

SEC("uprobe")
int BPF_KPROBE(malloc_enter, __u64 size)
{
	return enter(ctx, size, 0);
}

SEC("uprobe")
int BPF_KPROBE(calloc_enter, __u64 n, __u64 size)
{
	/* An overflowing product fails in calloc: nothing to sample. In
	 * 32-bit halves: the BPF target has no 128-bit product (which
	 * clang makes of a division-based test). */
	__u64 a = n > size ? n : size, b = n > size ? size : n;
	if (b >> 32)
		return 0;
	__u64 high = (a >> 32) * b, low = (a & 0xffffffffULL) * b;
	if (high >> 32 || (high << 32) > ~0ULL - low)
		return 0;
	return enter(ctx, (high << 32) + low, 0);
}

SEC("uprobe")
int BPF_KPROBE(realloc_enter, __u64 addr, __u64 size)
{
	release(addr);
	return enter(ctx, size, 0);
}

/* aligned_alloc(alignment, size), memalign(alignment, size) */
SEC("uprobe")
int BPF_KPROBE(memalign_enter, __u64 alignment, __u64 size)
{
	(void)alignment;
	return enter(ctx, size, 0);
}

SEC("uprobe")
int BPF_KPROBE(posix_memalign_enter, __u64 memptr, __u64 alignment,
	       __u64 size)
{
	(void)alignment;
	return enter(ctx, size, memptr);
}

/* Every allocation's return is trapped (a uretprobe cannot be skipped
 * for the calls not sampled) and looked up. */
SEC("uretprobe")
int BPF_KRETPROBE(alloc_return, __u64 ret)
{
	return leave(ctx, ret);
}

SEC("uprobe")
int BPF_KPROBE(free_enter, __u64 addr)
{
	count_add(COUNT_FREE_CALLS, 1);
	release(addr);
	return 0;
}

/* Whether the mapping call at ctx came from code in `skip` (the C
 * library's, the allocator's): its return address, on the stack at
 * the entry. Unreadable: taken as the program's. */
static __always_inline bool from_skipped(struct pt_regs *ctx)
{
	__u64 ret = 0;
	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(ctx)))
		return false;
	for (__u32 i = 0; i < SITES_BPF_SKIP_RANGES; i++) {
		struct sites_bpf_range *r = bpf_map_lookup_elem(&skip, &i);
		if (r && ret >= r->lo && ret < r->hi)
			return true;
	}
	return false;
}

#define SITES_MAP_ANONYMOUS 0x20 /* <sys/mman.h>, the same on every arch */

SEC("uprobe")
int BPF_KPROBE(mmap_enter, __u64 addr, __u64 len, __u64 prot, __u64 flags)
{
	(void)addr;
	if (!(flags & SITES_MAP_ANONYMOUS) || prot == 0 /* PROT_NONE */ ||
	    from_skipped(ctx)) {
		count_add(COUNT_ALLOC_CALLS, 1); /* trapped all the same */
		return 0;
	}
	return enter(ctx, len, 0);
}

SEC("uprobe")
int BPF_KPROBE(munmap_enter, __u64 addr)
{
	count_add(COUNT_FREE_CALLS, 1);
	release(addr);
	return 0;
}

/* mremap(old, old_len, new_len, flags...): as realloc */
SEC("uprobe")
int BPF_KPROBE(mremap_enter, __u64 old, __u64 old_len, __u64 new_len)
{
	(void)old_len;
	release(old);
	if (from_skipped(ctx)) {
		count_add(COUNT_ALLOC_CALLS, 1);
		return 0;
	}
	return enter(ctx, new_len, 0);
}
