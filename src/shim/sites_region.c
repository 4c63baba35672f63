/*
 * sites_region.c - the allocation-site table in shared memory
 * (sites_region.h): its layout, and the shim's operations on it.
 *
 * Runs inside the target, called from malloc and free: it never
 * allocates (of libc it calls memcpy, memset, sched_yield while it waits
 * for the lock, and libm's log and expm1, none of which allocate), and
 * bounds every loop by a table's size. What it does not
 * do: sample, capture stacks, or read the region for the recorder
 * (sampler_sites.c reads the header and sites directly).
 */
#include "sites_region.h"

#include <assert.h>
#include <math.h>
#include <sched.h>
#include <string.h>

#define LOAD(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

/* A double the reader loads atomically (one aligned 64-bit word);
 * written only under the lock. */
static void store_double(double *p, double v)
{
	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

static size_t site_bytes(uint32_t depth)
{
	return sizeof(struct sites_site) + (size_t)depth * sizeof(uint64_t);
}

static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 16;
	while (p < n && p < (1u << 30))
		p <<= 1;
	return p;
}

static size_t align64(size_t n)
{
	return (n + 63) & ~(size_t)63;
}

size_t sites_region_size(uint32_t depth, uint32_t max_sites,
			 uint32_t live_slots)
{
	if (depth < 1 || depth > SITES_MAX_DEPTH || max_sites < 1 ||
	    max_sites > (1u << 24) || live_slots < 16 ||
	    (live_slots & (live_slots - 1)) || live_slots > (1u << 28))
		return 0;
	uint32_t site_slots = pow2_at_least(2 * max_sites);
	return align64(sizeof(struct sites_header)) +
	       align64((size_t)max_sites * site_bytes(depth)) +
	       align64((size_t)site_slots * sizeof(uint32_t)) +
	       SITES_FILTER_SLOTS +
	       (size_t)live_slots * sizeof(struct sites_live);
}

int sites_region_format(void *mem, size_t size, uint32_t depth,
			uint64_t rate, uint32_t max_sites,
			uint32_t live_slots)
{
	size_t need = sites_region_size(depth, max_sites, live_slots);
	if (!need || size < need || rate < 1)
		return -1;
	struct sites_header *h = mem;
	memset(h, 0, sizeof(*h));
	h->magic = SITES_REGION_MAGIC;
	h->version = SITES_REGION_VERSION;
	h->depth = depth;
	h->rate = rate;
	h->size = need;
	h->max_sites = max_sites;
	h->live_slots = live_slots;
	h->site_slots = pow2_at_least(2 * max_sites);
	h->off_sites = align64(sizeof(*h));
	h->off_site_index = h->off_sites +
			    align64((size_t)max_sites * site_bytes(depth));
	h->off_filter = h->off_site_index +
			align64((size_t)h->site_slots * sizeof(uint32_t));
	h->off_live = h->off_filter + SITES_FILTER_SLOTS;
	return 0;
}

bool sites_region_valid(const void *mem, size_t size)
{
	const struct sites_header *h = mem;
	if (size < sizeof(*h) || h->magic != SITES_REGION_MAGIC ||
	    h->version != SITES_REGION_VERSION)
		return false;
	size_t need = sites_region_size(h->depth, h->max_sites,
					h->live_slots);
	return need && need == h->size && need <= size &&
	       h->site_slots == pow2_at_least(2 * h->max_sites) &&
	       h->off_sites == align64(sizeof(*h)) &&
	       h->off_site_index == h->off_sites +
		       align64((size_t)h->max_sites * site_bytes(h->depth)) &&
	       h->off_filter == h->off_site_index +
		       align64((size_t)h->site_slots * sizeof(uint32_t)) &&
	       h->off_live == h->off_filter + SITES_FILTER_SLOTS;
}

void sites_region_reset(struct sites_header *h)
{
	/* the sites first unpublished, so the recorder reads none of the
	 * old image's after it sees the new generation */
	__atomic_store_n(&h->n_sites, 0, __ATOMIC_RELEASE);
	memset((char *)h + h->off_site_index, 0,
	       (size_t)h->site_slots * sizeof(uint32_t));
	memset((char *)h + h->off_filter, 0, SITES_FILTER_SLOTS);
	memset((char *)h + h->off_live, 0,
	       (size_t)h->live_slots * sizeof(struct sites_live));
	memset((char *)h + h->off_sites, 0,
	       (size_t)h->max_sites * site_bytes(h->depth));
	h->n_live = h->sampled = h->sampled_frees = 0;
	h->seq = 0;
	h->lock = 0;
	__atomic_fetch_add(&h->generation, 1, __ATOMIC_RELEASE);
}

struct sites_site *sites_region_site(struct sites_header *h, uint32_t i)
{
	assert(i < h->max_sites);
	return (struct sites_site *)((char *)h + h->off_sites +
				     (size_t)i * site_bytes(h->depth));
}

void sites_reader_init(struct sites_reader *r, struct sites_header *h,
		       size_t size)
{
	assert(sites_region_valid(h, size));
	r->h = h;
	r->size = (size_t)h->size; /* <= size */
	r->depth = h->depth;
	r->max_sites = h->max_sites;
	r->off_sites = (size_t)h->off_sites;
	r->site_bytes = site_bytes(h->depth);
	r->corrupt = false;
	assert(r->off_sites + (size_t)r->max_sites * r->site_bytes <= size);
}

/* Site i from the reader's own layout: inside the mapping whatever the
 * header says. */
static const struct sites_site *reader_site(const struct sites_reader *r,
					    uint32_t i)
{
	assert(i < r->max_sites);
	return (const struct sites_site *)((const char *)r->h + r->off_sites +
					   (size_t)i * r->site_bytes);
}

uint32_t sites_reader_count(struct sites_reader *r)
{
	uint64_t n = __atomic_load_n(&r->h->n_sites, __ATOMIC_ACQUIRE);
	if (n > r->max_sites) {
		r->corrupt = true;
		return r->max_sites;
	}
	return (uint32_t)n;
}

uint32_t sites_reader_frames(struct sites_reader *r, uint32_t i,
			     uint64_t *out)
{
	const struct sites_site *s = reader_site(r, i);
	uint32_t n = LOAD(&s->n_frames);
	if (n > r->depth) {
		r->corrupt = true;
		n = r->depth;
	}
	for (uint32_t k = 0; k < n; k++)
		out[k] = LOAD(&s->frames[k]);
	return n;
}

void sites_reader_values(struct sites_reader *r, uint32_t i, int64_t *live,
			 double *var, uint64_t *allocs)
{
	const struct sites_site *s = reader_site(r, i);
	*live = LOAD(&s->live);
	__atomic_load(&s->var, var, __ATOMIC_RELAXED);
	*allocs = LOAD(&s->allocs);
	if (*live < 0 || !isfinite(*var)) {
		/* the shim subtracts only what it added */
		r->corrupt = true;
		*live = *live < 0 ? 0 : *live;
		*var = 0;
	}
	/* a little below 0: the rounding of adding and taking away */
	if (*var < 0)
		*var = 0;
}

bool sites_reader_check(struct sites_reader *r)
{
	const struct sites_header *h = r->h;
	if (LOAD(&h->magic) != SITES_REGION_MAGIC ||
	    LOAD(&h->version) != SITES_REGION_VERSION ||
	    LOAD(&h->depth) != r->depth ||
	    LOAD(&h->max_sites) != r->max_sites ||
	    LOAD(&h->size) != r->size || LOAD(&h->off_sites) != r->off_sites)
		r->corrupt = true;
	return !r->corrupt;
}

static uint32_t *site_index(struct sites_header *h)
{
	return (uint32_t *)((char *)h + h->off_site_index);
}

static uint8_t *filter(struct sites_header *h)
{
	return (uint8_t *)h + h->off_filter;
}


/* Under the lock. A count that reached 255 stays there (the filter then
 * only says "maybe" for its slot). */
static void filter_add(struct sites_header *h, uint64_t addr)
{
	uint8_t *c = &filter(h)[sites_filter_slot(addr)];
	uint8_t v = LOAD(c);
	if (v < 255)
		__atomic_store_n(c, (uint8_t)(v + 1), __ATOMIC_RELEASE);
}

static void filter_remove(struct sites_header *h, uint64_t addr)
{
	uint8_t *c = &filter(h)[sites_filter_slot(addr)];
	uint8_t v = LOAD(c);
	if (v > 0 && v < 255)
		__atomic_store_n(c, (uint8_t)(v - 1), __ATOMIC_RELEASE);
}

static struct sites_live *live_set(struct sites_header *h)
{
	return (struct sites_live *)((char *)h + h->off_live);
}

/* splitmix64's finaliser: addresses differ in their low bits by the
 * allocator's alignment, so they are mixed before masking. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t sites_stack_hash(const uint64_t *frames, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
	for (uint32_t i = 0; i < n; i++)
		h = mix64(h ^ frames[i]);
	return h ? h : 1;
}

static void lock(struct sites_header *h)
{
	for (unsigned spins = 0;
	     __atomic_exchange_n(&h->lock, 1u, __ATOMIC_ACQUIRE); spins++)
		if (spins >= 64)
			sched_yield();
}

static void unlock(struct sites_header *h)
{
	__atomic_store_n(&h->lock, 0u, __ATOMIC_RELEASE);
}

/* The site of frames[0..n), added when new; UINT32_MAX when the table is
 * full. Under the lock. */
static uint32_t site_find_or_add(struct sites_header *h,
				 const uint64_t *frames, uint32_t n)
{
	uint64_t hash = sites_stack_hash(frames, n);
	uint32_t *idx = site_index(h);
	uint32_t mask = h->site_slots - 1;
	uint32_t n_sites = (uint32_t)h->n_sites;
	for (uint32_t k = 0, i = (uint32_t)hash & mask; k <= mask;
	     k++, i = (i + 1) & mask) {
		uint32_t e = idx[i];
		if (e == 0) {
			if (n_sites >= h->max_sites)
				return UINT32_MAX;
			struct sites_site *s = sites_region_site(h, n_sites);
			s->hash = hash;
			s->n_frames = n;
			memcpy(s->frames, frames, n * sizeof(uint64_t));
			idx[i] = n_sites + 1;
			/* the frames before the count that names them */
			__atomic_store_n(&h->n_sites, (uint64_t)n_sites + 1,
					 __ATOMIC_RELEASE);
			return n_sites;
		}
		struct sites_site *s = sites_region_site(h, e - 1);
		if (s->hash == hash && s->n_frames == n &&
		    !memcmp(s->frames, frames, n * sizeof(uint64_t)))
			return e - 1;
	}
	return UINT32_MAX; /* unreachable: slots >= 2 x max_sites */
}

bool sites_region_add(struct sites_header *h, uint64_t addr,
		      uint64_t size, uint64_t weight, const uint64_t *frames,
		      uint32_t n)
{
	assert(addr != 0);
	if (n > h->depth) {
		n = h->depth;
		__atomic_fetch_add(&h->dropped_depth, 1, __ATOMIC_RELAXED);
	}
	lock(h);
	bool kept = false;
	/* the live set at most 3/4 full: probes stay short */
	if (h->n_live >= (uint64_t)h->live_slots / 4 * 3) {
		STORE(&h->dropped_live, h->dropped_live + 1);
		goto out;
	}
	uint32_t site = site_find_or_add(h, frames, n);
	if (site == UINT32_MAX) {
		STORE(&h->dropped_sites, h->dropped_sites + 1);
		goto out;
	}
	struct sites_live *set = live_set(h);
	uint32_t mask = h->live_slots - 1;
	uint32_t i = (uint32_t)mix64(addr) & mask;
	while (set[i].key != 0 && set[i].key != addr)
		i = (i + 1) & mask;
	if (set[i].key == addr) {
		/* the allocator gave back a block we never saw freed (a
		 * free behind our back, e.g. from before the shim ran):
		 * the old weight leaves its site */
		struct sites_site *old = sites_region_site(h, set[i].site);
		STORE(&old->live, old->live - (int64_t)set[i].weight);
		store_double(&old->var, old->var - set[i].var);
		STORE(&old->frees, old->frees + 1);
		STORE(&h->n_live, h->n_live - 1);
	} else {
		filter_add(h, addr); /* before malloc returns the block */
	}
	set[i].weight = weight;
	set[i].site = site;
	set[i].var = (float)sites_sample_variance(size, weight);
	STORE(&set[i].key, addr);
	STORE(&h->n_live, h->n_live + 1);
	struct sites_site *s = sites_region_site(h, site);
	STORE(&s->live, s->live + (int64_t)weight);
	store_double(&s->var, s->var + set[i].var);
	STORE(&s->allocs, s->allocs + 1);
	STORE(&h->sampled, h->sampled + 1);
	kept = true;
out:
	unlock(h);
	return kept;
}

bool sites_region_maybe_sampled(struct sites_header *h, uint64_t addr)
{
	if (addr == 0)
		return false;
	const struct sites_live *set = live_set(h);
	uint32_t mask = h->live_slots - 1;
	/* one byte, in cache: the common answer */
	if (sites_filter_clear(h, addr))
		return false;
	uint64_t s1 = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE);
	if (s1 & 1)
		return true; /* a deletion moves keys: ask under the lock */
	uint32_t i = (uint32_t)mix64(addr) & mask;
	for (uint32_t k = 0; k <= mask; k++, i = (i + 1) & mask) {
		uint64_t key = LOAD(&set[i].key);
		if (key == addr)
			return true;
		if (key == 0)
			break;
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return LOAD(&h->seq) != s1;
}

bool sites_region_remove(struct sites_header *h, uint64_t addr)
{
	if (addr == 0)
		return false;
	lock(h);
	struct sites_live *set = live_set(h);
	uint32_t mask = h->live_slots - 1;
	uint32_t i = (uint32_t)mix64(addr) & mask;
	bool found = false;
	for (uint32_t k = 0; k <= mask; k++, i = (i + 1) & mask) {
		if (set[i].key == addr) {
			found = true;
			break;
		}
		if (set[i].key == 0)
			break;
	}
	if (found) {
		struct sites_site *s = sites_region_site(h, set[i].site);
		STORE(&s->live, s->live - (int64_t)set[i].weight);
		store_double(&s->var, s->var - set[i].var);
		STORE(&s->frees, s->frees + 1);
		STORE(&h->sampled_frees, h->sampled_frees + 1);
		/* backward-shift deletion: lock-free probes that overlap
		 * it see seq change and retry under the lock */
		__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		uint32_t hole = i;
		for (uint32_t j = (hole + 1) & mask; set[j].key != 0;
		     j = (j + 1) & mask) {
			uint32_t home = (uint32_t)mix64(set[j].key) & mask;
			/* j's key may move into the hole when its home is
			 * not in (hole, j] cyclically */
			bool stays = hole <= j ? (home > hole && home <= j) :
				     (home > hole || home <= j);
			if (stays)
				continue;
			set[hole].weight = set[j].weight;
			set[hole].site = set[j].site;
			set[hole].var = set[j].var;
			STORE(&set[hole].key, set[j].key);
			hole = j;
		}
		STORE(&set[hole].key, 0);
		STORE(&h->n_live, h->n_live - 1);
		filter_remove(h, addr);
		__atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
	}
	unlock(h);
	return found;
}

int64_t sites_countdown(double u, double rate)
{
	double d = -log(u > 0 ? u : 0x1.0p-53) * rate;
	return d > 4e18 ? (int64_t)4e18 : (int64_t)d + 1;
}

double sites_sample_variance(uint64_t size, uint64_t weight)
{
	if (weight <= size)
		return 0;
	/* below 2^128: a float holds it (the live entry's) */
	return (double)weight * (double)(weight - size);
}

uint64_t sites_sample_weight(uint64_t size, double rate)
{
	double s = (double)(size ? size : 1);
	double p = -expm1(-s / rate); /* exact for s far below rate */
	double w = p > 0 ? s / p : rate;
	return w > 1.8e19 ? UINT64_MAX : (uint64_t)(w + 0.5);
}
