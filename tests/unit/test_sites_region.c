/*
 * test_sites_region.c - the allocation-site table of record --sites
 * (src/shim/sites_region.c): its layout, a site's live bytes as blocks
 * come and go, what a full table drops (counted, never silent), the live
 * set's deletions (keys moved back stay findable), and the sampling's
 * weights: the mean estimate of live bytes over many independent runs
 * against the truth.
 *
 * Where the expected numbers come from: the live bytes are sums written
 * in each test; for the weights, a block of s bytes is sampled with
 * probability p(s) = 1 - exp(-s/rate), independently of the others (the
 * countdown is a Poisson process on the allocated bytes: disjoint
 * stretches are independent), and stands for s/p(s), so an estimate's
 * mean is the truth and its variance is the sum of s^2 (1 - p)/p
 * (tcmalloc docs/sampling.md; a Bernoulli's variance scaled by the
 * weight squared).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sites_region.h"

static struct sites_header *region_new(uint32_t depth, uint32_t max_sites,
				       uint32_t slots, double rate)
{
	size_t size = sites_region_size(depth, max_sites, slots);
	assert_true(size > 0);
	void *mem = calloc(1, size);
	assert_non_null(mem);
	assert_int_equal(sites_region_format(mem, size, depth, (uint64_t)rate,
					     max_sites, slots), 0);
	assert_true(sites_region_valid(mem, size));
	return mem;
}

static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(sites_region_size(0, 16, 64), 0);
	assert_int_equal(sites_region_size(SITES_MAX_DEPTH + 1, 16, 64), 0);
	assert_int_equal(sites_region_size(8, 16, 100), 0); /* not 2^k */
	struct sites_header *h = region_new(8, 16, 64, 1024);
	size_t size = h->size;
	/* a region a target scribbled on is refused */
	h->off_live += 64;
	assert_false(sites_region_valid(h, size));
	h->off_live -= 64;
	assert_false(sites_region_valid(h, size - 1));
	h->magic ^= 1;
	assert_false(sites_region_valid(h, size));
	free(h);
}

static void test_add_remove(void **state)
{
	(void)state;
	struct sites_header *h = region_new(4, 16, 64, 1024);
	const uint64_t a[] = {0x1000, 0x2000, 0x3000};
	const uint64_t b[] = {0x1000, 0x2000, 0x4000};
	assert_true(sites_region_add(h, 0xa0, 100, 500, a, 3));
	assert_true(sites_region_add(h, 0xb0, 200, 700, a, 3));
	assert_true(sites_region_add(h, 0xc0, 300, 300, b, 3));
	assert_int_equal(h->n_sites, 2);
	struct sites_site *sa = sites_region_site(h, 0);
	struct sites_site *sb = sites_region_site(h, 1);
	assert_int_equal(sa->live, 1200); /* 500 + 700 */
	/* w (w - s): 500 x 400 + 700 x 500 */
	assert_float_equal(sa->var, 550000.0, 0);
	assert_float_equal(sb->var, 0, 0); /* w = s: always sampled */
	assert_int_equal(sa->allocs, 2);
	assert_int_equal(sb->live, 300);
	assert_int_equal(sa->n_frames, 3);
	assert_int_equal(sa->frames[2], 0x3000);
	/* a deeper stack is cut to the region's depth, and the same site
	 * as its prefix */
	const uint64_t deep[] = {0x1000, 0x2000, 0x3000, 0x5000, 0x6000};
	assert_true(sites_region_add(h, 0xd0, 10, 10, deep, 5));
	assert_int_equal(h->n_sites, 3); /* 4 frames: not a's 3 */
	assert_int_equal(h->dropped_depth, 1);
	assert_true(sites_region_maybe_sampled(h, 0xb0));
	assert_false(sites_region_maybe_sampled(h, 0xe0));
	assert_true(sites_region_remove(h, 0xb0));
	assert_int_equal(sa->live, 500);
	assert_float_equal(sa->var, 200000.0, 0);
	assert_int_equal(sa->frees, 1);
	assert_false(sites_region_remove(h, 0xb0)); /* not twice */
	assert_false(sites_region_remove(h, 0xe0)); /* never sampled */
	assert_int_equal(sa->live, 500);
	assert_int_equal(h->n_live, 3);
	assert_int_equal(h->sampled, 4);
	assert_int_equal(h->sampled_frees, 1);
	/* an address given again without its free seen: the old weight
	 * leaves its site, the new one counts */
	assert_true(sites_region_add(h, 0xa0, 900, 900, b, 3));
	assert_int_equal(sa->live, 0);
	assert_float_equal(sa->var, 0, 0);
	assert_int_equal(sb->live, 1200);
	assert_int_equal(h->n_live, 3);
	/* the owner execs: a new image, an empty table, a new generation;
	 * what the old image had is forgotten, not freed into the new */
	h->lock = 1; /* a thread of the old image died holding it */
	sites_region_reset(h);
	assert_int_equal(h->generation, 1);
	assert_int_equal(h->n_sites, 0);
	assert_int_equal(h->n_live, 0);
	assert_false(sites_region_maybe_sampled(h, 0xa0));
	assert_false(sites_region_remove(h, 0xa0));
	assert_true(sites_region_add(h, 0xa0, 64, 64, b, 3));
	assert_int_equal(h->n_sites, 1);
	assert_int_equal(sites_region_site(h, 0)->live, 64);
	assert_int_equal(sites_region_site(h, 0)->allocs, 1);
	free(h);
}

static void test_full_tables(void **state)
{
	(void)state;
	/* two sites at most: the third stack is dropped, counted */
	struct sites_header *h = region_new(2, 2, 64, 1024);
	uint64_t st[3][2] = {{1, 2}, {3, 4}, {5, 6}};
	assert_true(sites_region_add(h, 0x10, 100, 100, st[0], 2));
	assert_true(sites_region_add(h, 0x20, 100, 100, st[1], 2));
	assert_false(sites_region_add(h, 0x30, 100, 100, st[2], 2));
	assert_int_equal(h->dropped_sites, 1);
	assert_int_equal(h->n_sites, 2);
	assert_false(sites_region_maybe_sampled(h, 0x30));
	/* a known site still takes blocks */
	assert_true(sites_region_add(h, 0x40, 100, 100, st[0], 2));
	free(h);
	/* 16 slots, kept at most 3/4 full: the 13th block is dropped */
	h = region_new(2, 4, 16, 1024);
	for (uint64_t i = 1; i <= 12; i++)
		assert_true(sites_region_add(h, i * 16, 10, 10, st[0], 2));
	assert_false(sites_region_add(h, 13 * 16, 10, 10, st[0], 2));
	assert_int_equal(h->dropped_live, 1);
	assert_int_equal(sites_region_site(h, 0)->live, 120);
	/* room again once one is freed */
	assert_true(sites_region_remove(h, 5 * 16));
	assert_true(sites_region_add(h, 13 * 16, 10, 10, st[0], 2));
	free(h);
}

/* Many blocks in a small set (long probe chains, wrapping): every
 * deletion moves keys back, and each block left is still found, once. */
static void test_deletions_keep_keys(void **state)
{
	(void)state;
	struct sites_header *h = region_new(1, 4, 1024, 1024);
	const uint64_t st[] = {7};
	enum { N = 760 };
	uint64_t addr[N];
	for (int i = 0; i < N; i++) {
		addr[i] = 0x7f0000000000ULL + (uint64_t)i * 48;
		assert_true(sites_region_add(h, addr[i], 1, 1, st, 1));
	}
	unsigned seed = 12345;
	bool gone[N] = {false};
	for (int k = 0; k < N / 2; k++) {
		int i = (int)(rand_r(&seed) % N);
		assert_int_equal(sites_region_remove(h, addr[i]), !gone[i]);
		gone[i] = true;
	}
	int left = 0;
	for (int i = 0; i < N; i++) {
		assert_int_equal(sites_region_maybe_sampled(h, addr[i]),
				 !gone[i]);
		left += !gone[i];
	}
	assert_int_equal(h->n_live, left);
	assert_int_equal(sites_region_site(h, 0)->live, left);
	for (int i = 0; i < N; i++)
		assert_int_equal(sites_region_remove(h, addr[i]), !gone[i]);
	assert_int_equal(h->n_live, 0);
	assert_int_equal(sites_region_site(h, 0)->live, 0);
	assert_int_equal(h->seq % 2, 0);
	free(h);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return ((double)((x * 0x2545f4914f6cdd1dULL) >> 11) + 1.0) *
	       0x1.0p-53;
}

/* The estimate of live bytes through the shim's countdown and weights:
 * 4,000 live blocks of mixed sizes (16 B to 1 MiB) at the default rate,
 * 2,000 runs. The mean estimate is within 4 standard errors of the
 * truth, and its spread is the one the weights imply (within 10 %); the
 * variance the sampled blocks say of themselves (sites_sample_variance
 * summed, what the sites' intervals use) is that spread on average
 * (within 5 %: its own run-to-run spread is ~25 % here, / sqrt(2,000)). */
static void test_weights_unbiased(void **state)
{
	(void)state;
	const double rate = SITES_DEFAULT_RATE;
	const uint64_t sizes[] = {16, 100, 4096, 70000, 1 << 20};
	enum { BLOCKS = 4000, RUNS = 2000 };
	double truth = 0, var = 0;
	for (int i = 0; i < BLOCKS; i++) {
		double s = (double)sizes[i % 5];
		double p = -expm1(-s / rate);
		truth += s;
		var += s * s * (1 - p) / p;
	}
	double sum = 0, sum2 = 0, said = 0;
	for (int r = 0; r < RUNS; r++) {
		int64_t left = sites_countdown(uniform(), rate);
		double est = 0;
		for (int i = 0; i < BLOCKS; i++) {
			uint64_t s = sizes[i % 5];
			if (sites_countdown_hit(&left, s)) {
				uint64_t w = sites_sample_weight(s, rate);
				est += (double)w;
				said += (double)(float)sites_sample_variance(s,
									     w);
				left = sites_countdown(uniform(), rate);
			}
		}
		sum += est;
		sum2 += est * est;
	}
	if (fabs(said / RUNS / var - 1) > 0.05)
		fail_msg("variance said %.4g, true %.4g", said / RUNS, var);
	/* by hand: a block of 100 B counted as 500 B */
	assert_float_equal(sites_sample_variance(100, 500), 200000.0, 0);
	assert_float_equal(sites_sample_variance(500, 500), 0, 0);
	double mean = sum / RUNS;
	double sd_runs = sqrt((sum2 - sum * sum / RUNS) / (RUNS - 1));
	double se = sqrt(var / RUNS);
	if (fabs(mean - truth) > 4 * se)
		fail_msg("mean estimate %.0f, truth %.0f (4 SE = %.0f)", mean,
			 truth, 4 * se);
	if (fabs(sd_runs / sqrt(var) - 1) > 0.1)
		fail_msg("spread %.0f, expected %.0f", sd_runs, sqrt(var));
	/* a block of at least 20 x the rate is always sampled, at its size */
	assert_int_equal(sites_sample_weight(20 * SITES_DEFAULT_RATE, rate),
			 20 * SITES_DEFAULT_RATE);
	/* a tiny one stands for about the rate: s / (1 - exp(-s/R)) ~ R +
	 * s/2 */
	assert_true(llabs((long long)sites_sample_weight(16, rate) -
			  (long long)(rate + 8)) <= 1);
}

/* The recorder's reader against a target that writes anything into the
 * region (every field of the header, a site's count of frames, huge and
 * negative counts): never a read outside the region (ASan: the region
 * is a heap block of exactly its size), counts clamped to the layout
 * the recorder made, the damage marked corrupt. */
static void test_reader_hostile(void **state)
{
	(void)state;
	const uint32_t depth = 4, max_sites = 16;
	struct sites_header *h = region_new(depth, max_sites, 64, 1024);
	size_t size = (size_t)h->size;
	struct sites_reader r;
	sites_reader_init(&r, h, size);
	uint64_t a[] = {1, 2, 3}, out[SITES_MAX_DEPTH];
	assert_true(sites_region_add(h, 0xa0, 500, 500, a, 3));
	assert_int_equal(sites_reader_count(&r), 1);
	assert_int_equal(sites_reader_frames(&r, 0, out), 3);
	assert_int_equal(out[2], 3);
	int64_t live;
	double var;
	uint64_t allocs;
	sites_reader_values(&r, 0, &live, &var, &allocs);
	assert_int_equal(live, 500);
	assert_float_equal(var, 0, 0);
	assert_true(sites_reader_check(&r));
	assert_false(r.corrupt);
	/* counts past the tables: clamped */
	static const uint64_t counts[] = {17, 1u << 26, UINT32_MAX,
					  (uint64_t)UINT32_MAX + 2, UINT64_MAX,
					  (uint64_t)-1 << 31};
	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++) {
		h->n_sites = counts[c];
		uint32_t n = sites_reader_count(&r);
		assert_int_equal(n, max_sites);
		for (uint32_t i = 0; i < n; i++) {
			struct sites_site *s = sites_region_site(h, i);
			s->n_frames = counts[c] > UINT32_MAX ? UINT32_MAX :
				      (uint32_t)counts[c];
			assert_int_equal(sites_reader_frames(&r, i, out),
					 depth);
			s->live = -(int64_t)counts[c] | INT64_MIN;
			memcpy(&s->var, &counts[c], sizeof(s->var));
			sites_reader_values(&r, i, &live, &var, &allocs);
			assert_int_equal(live, 0);
			/* a variance the target wrote: finite, >= 0 */
			assert_true(isfinite(var) && var >= 0);
		}
		assert_true(r.corrupt);
		r.corrupt = false;
	}
	/* every field of the header scribbled on, one at a time and all
	 * at once: the layout the reader uses does not move */
	uint64_t *words = (uint64_t *)h;
	for (size_t w = 0; w <= sizeof(*h) / 8; w++) {
		struct sites_header saved = *h;
		if (w < sizeof(*h) / 8)
			words[w] = 0xffffffffffffffffULL;
		else
			memset(h, 0xff, sizeof(*h));
		/* the words the reader's layout is checked against */
		size_t at = w * 8;
		bool layout = w == sizeof(*h) / 8 ||
			      at == offsetof(struct sites_header, magic) ||
			      at == offsetof(struct sites_header, version) ||
			      at == offsetof(struct sites_header, size) ||
			      at == offsetof(struct sites_header, max_sites) ||
			      at == offsetof(struct sites_header, off_sites);
		assert_true(!layout || !sites_reader_check(&r));
		uint32_t n = sites_reader_count(&r);
		assert_true(n <= max_sites);
		for (uint32_t i = 0; i < n; i++)
			assert_true(sites_reader_frames(&r, i, out) <= depth);
		assert_int_equal(r.depth, depth);
		assert_int_equal(r.max_sites, max_sites);
		*h = saved;
		r.corrupt = false;
	}
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_full_tables),
		cmocka_unit_test(test_deletions_keep_keys),
		cmocka_unit_test(test_weights_unbiased),
		cmocka_unit_test(test_reader_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
