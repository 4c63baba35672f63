/*
 * sites_region.h - the allocation-site table that the preloaded shim
 * (shim.c, libmemtrend-sites.so) keeps inside the target and the
 * recorder (record/sampler_sites.c) reads at every tick: one file both
 * map MAP_SHARED, laid out here (docs/sites.md).
 *
 * Three parts, all fixed in size when the recorder creates the file
 * (bounded: nothing grows inside the target):
 *   - a header: who owns it (the one process that claimed it), the
 *     sampling rate and depth, a spin lock, the counts of what was
 *     sampled and of what was dropped because a table was full (never
 *     silently: the recorder reports them);
 *   - the sites: a stack prefix (return addresses, up to depth) -> the
 *     estimate of its live bytes and its sampled allocations, in
 *     insertion order (a site's index never changes, so the recorder
 *     keeps its ids by index), found by a hash index of their own;
 *   - the sampled live set: address -> (site, weight), an open-addressed
 *     table (linear probing, backward-shift deletion), so that a free of
 *     a sampled block subtracts its weight from its site;
 *   - a filter in front of it: 16 Ki one-byte counts of the live set's
 *     addresses by a hash of their own (a counting Bloom filter of one
 *     hash), 16 KiB that stay in a core's first-level cache, so that the
 *     common free (of a block that was not sampled) reads one byte, not
 *     a random slot of a table of megabytes (bench section j: 64 KiB
 *     and none measured worse). With n sampled blocks live, a free asks
 *     the live set about n / 16,384 of the time.
 *
 * Concurrency: every change is made under the header's spin lock (only
 * sampled allocations and frees of sampled blocks take it). The common
 * free, of a block that was not sampled, takes no lock:
 * sites_region_maybe_sampled() reads the filter (a count of 0: not
 * sampled; a block's count is raised before malloc returns it and
 * lowered after its key is gone), then probes the live set with atomic loads
 * under a sequence counter that every deletion bumps (a deletion moves
 * keys backwards; a probe that saw it is retried under the lock). An
 * insertion moves no key, and a block is inserted before malloc returns
 * it, so a free of it (ordered after by the program's own
 * synchronisation) finds it. The recorder reads the sites without the
 * lock: n_sites is published with release after a site's frames are
 * written, each figure is one aligned 64-bit word read atomically.
 *
 * What it does not do: allocate (the shim calls this from inside
 * malloc: no libc call here allocates), capture stacks, decide what to
 * sample (shim.c), or name frames (the recorder's, sites_symbols.c).
 * libc only: this file is compiled into the shim as well as the
 * recorder's layer.
 */
#ifndef MEMTREND_SITES_REGION_H
#define MEMTREND_SITES_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The variable that names the region for the shim: FD:DEV:INO, the
 * descriptor the recorder passed to the command (which keeps it open
 * across exec, so that the program a wrapper execs, `sh -c 'exec
 * ./server'`, the same pid, finds the region) and the identity fstat
 * must find there. SITES_REGION_ENV (a path, no longer made) is only
 * removed from the command's environment. */
#define SITES_REGION_ENV "MEMTREND_SITES"
#define SITES_REGION_FD_ENV "MEMTREND_SITES_FD"
#define SITES_REGION_MAGIC 0x534554495354454dULL /* "MEMTSITE" */
#define SITES_REGION_VERSION 2u
/* The deepest stack prefix a site may keep (--sites-depth). */
#define SITES_MAX_DEPTH 32u
#define SITES_DEFAULT_DEPTH 8u
#define SITES_DEFAULT_RATE (512u * 1024u)
/* Default capacities: 4,096 sites, 131,072 sampled live blocks (kept at
 * most 3/4 full): about 3.6 MiB of file at depth 8 (the shim's own
 * memory: it is the target's shmem, touched as used, never more). At
 * the default rate a live heap of ~48 GiB fills the live set. */
#define SITES_DEFAULT_MAX_SITES 4096u
#define SITES_FILTER_SLOTS 16384u
#define SITES_DEFAULT_LIVE_SLOTS (1u << 17)

struct sites_header {
	uint64_t magic;
	uint32_t version;
	uint32_t depth;            /* frames kept per site, <= MAX_DEPTH */
	uint64_t rate;             /* mean bytes between samples */
	uint64_t size;             /* the file's size */
	uint32_t max_sites;        /* capacity of the site table */
	uint32_t live_slots;       /* slots of the live set (power of 2) */
	uint32_t site_slots;       /* slots of the site index (power of 2) */
	uint32_t pad0;
	uint64_t off_sites, off_site_index, off_filter, off_live;
	/* written by the shim */
	int32_t owner;             /* the pid that claimed it; 0: none yet */
	uint32_t lock;             /* spin lock: 0 free, 1 held */
	uint64_t generation;       /* raised when the owner execs: a new
				      image, the table emptied
				      (sites_region_reset) */
	uint64_t seq;              /* deletions from the live set: odd
				      while one moves keys */
	uint64_t n_sites;          /* published sites */
	uint64_t n_live;           /* blocks in the live set */
	uint64_t sampled;          /* sampled allocations kept */
	uint64_t sampled_frees;    /* frees of sampled blocks */
	uint64_t dropped_sites;    /* sampled, not kept: the site table
				      was full */
	uint64_t dropped_live;     /* sampled, not kept: the live set was
				      full */
	uint64_t dropped_depth;    /* stacks cut to depth (not a loss:
				      counted for the record) */
	uint64_t backtrace_ns;     /* time spent capturing stacks */
};

struct sites_site {
	uint64_t hash;
	uint32_t n_frames;
	uint32_t pad;
	int64_t live;              /* estimated live bytes (weights) */
	uint64_t allocs;           /* sampled allocations */
	uint64_t frees;            /* ... of which freed */
	double var;                /* the sampling variance of live, bytes^2:
				      the sum over its live samples of
				      sites_sample_variance() as each block
				      keeps it (a double: a rate of a GiB
				      makes a block's 10^18; the rounding
				      of adding and taking away is 10^-16
				      of it) */
	uint64_t frames[];         /* [depth] return addresses */
};

struct sites_live {
	uint64_t key;              /* the block's address; 0: empty */
	uint64_t weight;           /* bytes it stands for */
	uint32_t site;
	float var;                 /* its share of its site's var (a float:
				      7 digits are plenty for a variance,
				      and the entry stays 24 bytes) */
};

/* Bytes a region of these capacities takes (0 when they are invalid:
 * depth 1..SITES_MAX_DEPTH, live_slots a power of 2 >= 16). */
size_t sites_region_size(uint32_t depth, uint32_t max_sites,
			 uint32_t live_slots);
/* Lay out an empty region in mem (size bytes, zeroed by the caller, e.g.
 * a new file's pages). -1 when size is too small. */
int sites_region_format(void *mem, size_t size, uint32_t depth,
			uint64_t rate, uint32_t max_sites,
			uint32_t live_slots);
/* mem is a region of at most size bytes laid out by sites_region_format
 * (a file a target could have scribbled on is checked before use). */
bool sites_region_valid(const void *mem, size_t size);

/* The owner exec'd: its old image's heap is gone. Empty the table
 * (sites, live set, filter, counts; the lock too: a thread of the old
 * image may have died holding it) and raise generation. Only in the
 * owner, before any thread of the new image allocates. */
void sites_region_reset(struct sites_header *h);

/* Site i (< header n_sites) of region h: the shim's, from the header's
 * own layout (the recorder uses sites_reader_*). */
struct sites_site *sites_region_site(struct sites_header *h, uint32_t i);

/* The recorder's side: a reader that trusts nothing in the region but
 * what it laid out itself. The target maps the same pages read-write
 * and can write anything into them (a bug, or on purpose): the reader
 * keeps its own copy of the layout (depth, max_sites, size, the sites'
 * offset) taken when it formatted the region, before any other process
 * could see it, computes every address from that copy, and clamps
 * every count it reads (n_sites, a site's n_frames) to it. A value out
 * of bounds marks the region corrupt (`corrupt`, for the caller to say
 * once); no read ever leaves [mem, mem + size). */
struct sites_reader {
	struct sites_header *h;
	size_t size;               /* the region's bytes (<= those mapped) */
	uint32_t depth, max_sites;
	size_t off_sites, site_bytes;
	bool corrupt;              /* a value out of bounds was seen */
};
/* h: a region sites_region_format() has just laid out in size bytes, in
 * memory no other process has seen yet. */
void sites_reader_init(struct sites_reader *r, struct sites_header *h,
		       size_t size);
/* The published sites, at most max_sites. */
uint32_t sites_reader_count(struct sites_reader *r);
/* Site i's (< max_sites) frames into out[SITES_MAX_DEPTH]: how many, at
 * most depth. */
uint32_t sites_reader_frames(struct sites_reader *r, uint32_t i,
			     uint64_t *out);
/* Site i's live-bytes estimate, its sampling variance (bytes^2) and its
 * sampled allocations. */
void sites_reader_values(struct sites_reader *r, uint32_t i, int64_t *live,
			 double *var, uint64_t *allocs);
/* Whether the header's layout is still the one laid out (false: marked
 * corrupt; the reader goes on with its own copy). */
bool sites_reader_check(struct sites_reader *r);

/* The shim's operations; each but maybe_sampled takes the lock. */
/* A sampled block at addr of size bytes standing for weight bytes,
 * allocated from the stack frames[0..n) (cut to depth): kept in its
 * site, with its sampling variance (sites_sample_variance). false when a
 * table is full (counted in dropped_sites or dropped_live). */
bool sites_region_add(struct sites_header *h, uint64_t addr,
		      uint64_t size, uint64_t weight, const uint64_t *frames,
		      uint32_t n);
/* Might addr be a sampled block? No lock; false means certainly not.
 * sites_filter_clear() first, inline: the common answer. */
bool sites_region_maybe_sampled(struct sites_header *h, uint64_t addr);
static inline uint32_t sites_filter_slot(uint64_t addr)
{
	/* a multiplicative hash of its own (the live set's is dearer, and
	 * the two must not agree) */
	return (uint32_t)(((addr >> 4) * 0x9e3779b97f4a7c15ULL) >> 50);
}
static inline bool sites_filter_clear(const struct sites_header *h,
				      uint64_t addr)
{
	const uint8_t *f = (const uint8_t *)h + h->off_filter;
	return __atomic_load_n(&f[sites_filter_slot(addr)],
			       __ATOMIC_ACQUIRE) == 0;
}
/* addr is freed (or moved by realloc): if it was sampled, its weight
 * leaves its site. Returns whether it was. */
bool sites_region_remove(struct sites_header *h, uint64_t addr);

/* Sampling by bytes (shim.c; docs/sites.md, "What is sampled"): each
 * thread counts down a number of bytes drawn from an exponential of mean
 * rate, from u uniform in (0, 1] (-ln(u) x rate, at least 1); the
 * allocation that takes it to 0 or below is sampled and a new count is
 * drawn. An allocation of s bytes is thus sampled with probability
 * p(s) = 1 - exp(-s/rate) whatever came before (the exponential is
 * memoryless), and stands for s / p(s) bytes: the sum of the sampled
 * weights is an unbiased estimate of the bytes allocated (tcmalloc's
 * weighting, docs/sampling.md there). */
int64_t sites_countdown(double u, double rate);
/* Count size down from *left; true: sampled (the caller draws anew). */
static inline bool sites_countdown_hit(int64_t *left, uint64_t size)
{
	*left -= size > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)size;
	return *left <= 0;
}
uint64_t sites_sample_weight(uint64_t size, double rate);
/* What a sampled block of size bytes and weight w adds to the variance
 * of its site's estimate: w (w - size), bytes^2. A block is kept with
 * probability p = size / w and then counts w, else 0: the error w B -
 * size (B ~ Bernoulli(p)) has the variance size^2 (1 - p) / p = size (w
 * - size), of which w (w - size), counted only when sampled (p of the
 * time), is an unbiased estimate. The blocks' draws are independent
 * (the countdown is memoryless), so a site's variance is the sum over
 * its live samples: the error its estimate carries now (docs/sites.md,
 * "How sure"). 0 when w <= size (a block always sampled). */
double sites_sample_variance(uint64_t size, uint64_t weight);

/* The hash of a stack prefix, never 0. */
uint64_t sites_stack_hash(const uint64_t *frames, uint32_t n);

#endif
