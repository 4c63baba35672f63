/*
 * test_live.c - live.c, the bounded, thinned series `watch` analyses:
 * every sample kept until the bound, then one in stride (a power of two)
 * evenly over the whole, the newest always on top; readings attached to
 * the first kept point at or after their stamp (moved forward when their
 * point is thinned away, waiting when newer than every kept point); the
 * unthinned recent footprints; and a snapshot that analysis_run() takes
 * and that gives, below the bound, what the full series gives.
 *
 * And live_table.c, the many series of `watch --all`: samples go to
 * their target by id, targets are analysed in turn (a gap between two
 * analyses of one target, at least one per call), ranked in the
 * report's order (rank.h, the same order rank_targets() gives on the
 * full series), ended ones left out.
 *
 * What it does not test: the recorder's hook or the view (e2e watch.sh,
 * watch_all.sh).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "live.h"
#include "live_table.h"
#include "rank.h"

#define T0 1.7e9

static struct live_sample sample(size_t i)
{
	struct live_sample x = {.t = T0 + (double)i,
				.footprint = 1e9 + 4096.0 * (double)(i % 7) +
					     1000.0 * (double)i};
	for (int c = 0; c < COMP_COUNT; c++)
		x.comp[c] = NAN;
	x.comp[COMP_ANON] = x.footprint;
	x.comp[COMP_FILE] = 5e6;
	return x;
}

static struct live_series *fed(size_t n, size_t max)
{
	struct live_series *l = live_new("t", max);
	live_incarnation(l, 42, 1000, T0, "grower", "grower --grow");
	for (size_t i = 0; i < n; i++) {
		struct live_sample x = sample(i);
		live_append(l, &x);
	}
	return l;
}

/* Below the bound: the snapshot is every sample, and its analysis is the
 * full series' analysis. */
static void test_below_bound(void **state)
{
	(void)state;
	struct live_series *l = fed(500, 1024);
	assert_int_equal(live_count(l), 500);
	assert_int_equal(live_kept(l), 500);
	assert_int_equal(live_stride(l), 1);
	struct series a;
	live_snapshot(l, &a);
	assert_int_equal(a.n, 500);
	assert_int_equal(a.n_incs, 1);
	assert_string_equal(a.incs[0].comm, "grower");
	assert_non_null(a.comp[COMP_FILE]);
	assert_null(a.comp[COMP_SWAP]);
	assert_null(a.requests);

	struct series full;
	series_init(&full, "t");
	series_add_incarnation(&full, 42, 1000, T0, "grower", "grower --grow");
	for (size_t i = 0; i < 500; i++) {
		struct live_sample x = sample(i);
		size_t k = series_append(&full, x.t, x.footprint, 0);
		series_set_component(&full, COMP_ANON, k, x.comp[COMP_ANON]);
		series_set_component(&full, COMP_FILE, k, x.comp[COMP_FILE]);
		assert_true(a.t[i] == x.t);
		assert_true(a.footprint[i] == x.footprint);
	}
	struct target_findings fa, ff;
	analysis_run(&a, NULL, &fa);
	analysis_run(&full, NULL, &ff);
	assert_int_equal(fa.verdict, ff.verdict);
	assert_true(fa.slope.estimate == ff.slope.estimate);
	assert_true(fa.slope.low == ff.slope.low);
	analysis_release(&fa);
	analysis_release(&ff);
	series_release(&full);
	series_release(&a);
	live_free(l);
}

/* Past the bound: at most max points, one in stride evenly, the newest
 * on top; memory does not grow. */
static void test_thinning(void **state)
{
	(void)state;
	const size_t max = 64, n = 1000;
	struct live_series *l = fed(n, max);
	assert_int_equal(live_count(l), n);
	uint64_t stride = live_stride(l);
	assert_true(stride >= 16 && (stride & (stride - 1)) == 0);
	assert_true(live_kept(l) <= max);
	struct series a;
	live_snapshot(l, &a);
	/* kept: samples 0, stride, 2 stride, ...; then the newest */
	size_t kept = live_kept(l);
	for (size_t j = 0; j < kept; j++)
		assert_true(a.t[j] == T0 + (double)(j * stride));
	assert_true(kept * stride > n - 1);  /* none missing at the end */
	assert_int_equal(a.n, kept + 1);
	assert_true(a.t[a.n - 1] == T0 + (double)(n - 1));
	assert_true(a.comp[COMP_ANON][a.n - 1] == sample(n - 1).footprint);
	struct target_findings f;
	analysis_run(&a, NULL, &f);
	assert_true(f.fp_last == sample(n - 1).footprint);
	assert_true(f.an_span_s == (double)(n - 1));
	analysis_release(&f);
	series_release(&a);
	/* the newest sample kept itself: no extra point */
	l = (live_free(l), fed((size_t)stride * 40 + 1, max));
	live_snapshot(l, &a);
	assert_int_equal(a.n, live_kept(l));
	series_release(&a);
	live_free(l);
}

static void test_readings(void **state)
{
	(void)state;
	struct live_series *l = live_new("t", 16);
	live_incarnation(l, 1, 1, T0, "p", NULL);
	live_record_figure(l, LIVE_REQUESTS);
	int g = live_add_gauge(l, "cache");
	/* 16 samples kept (stride 1), reading at sample 3's stamp */
	for (size_t i = 0; i < 16; i++) {
		struct live_sample x = sample(i);
		live_append(l, &x);
	}
	live_reading(l, LIVE_REQUESTS, T0 + 3, 300);
	live_reading(l, g, T0 + 5, 7);
	live_reading(l, LIVE_REQUESTS, T0 + 5, NAN);  /* a gap: nothing */
	/* sample 16 halves the store: kept 0, 2, ..., 14, 16; 3 and 5
	 * are dropped, their readings move to 4 and 6 */
	struct live_sample x = sample(16);
	live_append(l, &x);
	assert_int_equal(live_stride(l), 2);
	struct series a;
	live_snapshot(l, &a);
	assert_int_equal(a.n, 9);
	assert_non_null(a.requests);
	assert_int_equal(a.n_gauges, 1);
	assert_true(isnan(a.requests[1]));    /* sample 2 */
	assert_true(a.requests[2] == 300);    /* sample 4 */
	assert_true(a.gauges[0].v[3] == 7);   /* sample 6 */
	series_release(&a);
	/* sample 17 is not kept: a reading of its stamp waits, shows on it
	 * as the newest, and lands on sample 18 when that is kept */
	x = sample(17);
	live_append(l, &x);
	live_reading(l, LIVE_REQUESTS, T0 + 17, 1700);
	live_snapshot(l, &a);
	assert_int_equal(a.n, 10);
	assert_true(a.requests[9] == 1700);
	series_release(&a);
	x = sample(18);
	live_append(l, &x);
	live_snapshot(l, &a);
	assert_int_equal(a.n, 10);
	assert_true(a.t[9] == T0 + 18);
	assert_true(a.requests[9] == 1700);
	series_release(&a);
	live_free(l);
}

/* A figure recorded without a reading yet: "recorded, all gaps". */
static void test_recorded_no_readings(void **state)
{
	(void)state;
	struct live_series *l = live_new("t", 16);
	live_record_figure(l, LIVE_CONNECTIONS);
	struct series a;
	live_snapshot(l, &a);
	assert_int_equal(a.n, 0);
	series_release(&a);
	live_incarnation(l, 1, 1, T0, "p", NULL);
	struct live_sample x = sample(0);
	live_append(l, &x);
	live_snapshot(l, &a);
	assert_int_equal(a.n, 1);
	assert_non_null(a.connections);
	assert_true(isnan(a.connections[0]));
	series_release(&a);
	live_free(l);
}

static void test_recent_order_incarnations(void **state)
{
	(void)state;
	struct live_series *l = fed(LIVE_RECENT + 10, 64);
	size_t n;
	const double *r = live_recent(l, &n);
	assert_int_equal(n, LIVE_RECENT);
	for (size_t i = 0; i < n; i++)
		assert_true(r[i] == sample(10 + i).footprint);
	/* out of time order: skipped */
	struct live_sample x = sample(3);
	live_append(l, &x);
	assert_int_equal(live_count(l), LIVE_RECENT + 10);
	assert_true(live_last_incarnation_is(l, 42, 1000));
	assert_false(live_last_incarnation_is(l, 42, 1001));
	live_incarnation(l, 43, 2000, T0 + 2000, "grower", NULL);
	x = sample(LIVE_RECENT + 10);
	live_append(l, &x);
	struct series a;
	live_snapshot(l, &a);
	assert_int_equal(a.n_incs, 2);
	assert_int_equal(a.inc[a.n - 1], 1);
	assert_int_equal(a.inc[0], 0);
	series_release(&a);
	live_free(l);
}

#define MiB 1048576.0

/* Target id's sample i of 60 at 1 s: "grower" +1 MiB a sample, "steady"
 * flat at 10 MiB, "big" flat at 300 MiB. */
static double table_fp(int64_t id, size_t i)
{
	return id == 3 ? 20 * MiB + MiB * (double)i :
	       id == 7 ? 10 * MiB : 300 * MiB;
}

static const char *table_name(int64_t id)
{
	return id == 3 ? "grower" : id == 7 ? "steady" : "big";
}

static void table_feed(struct live_table *t, int64_t id, size_t from,
		       size_t to)
{
	for (size_t i = from; i < to; i++) {
		struct live_sample x = {.t = T0 + (double)i,
					.footprint = table_fp(id, i)};
		for (int c = 0; c < COMP_COUNT; c++)
			x.comp[c] = NAN;
		live_table_sample(t, id, table_name(id), 100 + id, 5, T0,
				  table_name(id), &x);
	}
}

static void test_table(void **state)
{
	(void)state;
	struct live_table *t = live_table_new(128, 4096);
	live_table_set_machine(t, 8192 * MiB, 0, 0, 4096 * MiB);
	/* Interleaved as the recorder sends them: every target each tick. */
	for (size_t i = 0; i < 60; i++) {
		table_feed(t, 7, i, i + 1);
		table_feed(t, 3, i, i + 1);
	}
	assert_int_equal(live_table_count(t), 2);
	assert_int_equal(live_table_samples(t), 120);
	/* Nothing analysed yet: the largest first, "new". */
	struct live_table_row rows[4];
	assert_int_equal(live_table_ranked(t, rows, 4), 2);
	assert_false(rows[0].analysed);
	assert_string_equal(rows[0].name, "grower");
	assert_true(rows[0].footprint == 79 * MiB);

	/* Both due; a budget of 0 still analyses one, the next call the
	 * other, a third none (nothing new). */
	struct analysis_options ao;
	analysis_options_init(&ao);
	assert_int_equal(live_table_analyse(t, &ao, 100, 0), 1);
	assert_int_equal(live_table_analyse(t, &ao, 100, 0), 1);
	assert_int_equal(live_table_analyse(t, &ao, 100, 10), 0);
	/* New samples, but within the gap of 100 s: none due. */
	table_feed(t, 3, 60, 61);
	assert_int_equal(live_table_analyse(t, &ao, 100, 10), 0);

	/* A target seen after the analyses: last, as "new", however
	 * large. */
	table_feed(t, 9, 0, 1);
	assert_int_equal(live_table_ranked(t, rows, 4), 3);
	assert_string_equal(rows[0].name, "grower");
	assert_true(rows[0].analysed && rows[0].has_trend);
	assert_int_equal(rows[0].verdict, VERDICT_GROWING);
	assert_int_equal(rows[0].pid, 103);
	assert_int_equal(rows[0].samples, 61);
	assert_int_equal(rows[0].analysed_at, 60);
	/* +1 MiB a second, exactly: 3600 MiB/h */
	assert_true(fabs(rows[0].slope_bph - 3600 * MiB) < 1);
	assert_true(rows[0].eta_s > 0);
	assert_string_equal(rows[1].name, "steady");
	assert_true(rows[1].analysed);
	assert_int_not_equal(rows[1].verdict, VERDICT_GROWING);
	assert_true(rows[1].slope_bph == 0);
	assert_int_equal(rows[1].samples, 60);
	assert_string_equal(rows[2].name, "big");
	assert_false(rows[2].analysed);
	assert_int_equal(rows[2].samples, 1);
	/* --top: the worst only. */
	assert_int_equal(live_table_ranked(t, rows, 1), 1);
	assert_string_equal(rows[0].name, "grower");

	/* The same order as a report's of the same samples (rank.h). */
	struct series full[2];
	struct target_findings f[2];
	const int64_t ids[2] = {7, 3};
	for (size_t k = 0; k < 2; k++) {
		series_init(&full[k], table_name(ids[k]));
		series_add_incarnation(&full[k], 100 + ids[k], 5, T0,
				       table_name(ids[k]), NULL);
		for (size_t i = 0; i < 60; i++)
			series_append(&full[k], T0 + (double)i,
				      table_fp(ids[k], i), 0);
		full[k].mem_total = 8192 * MiB;
		full[k].quantum = 4096;
		full[k].quantum_exact = true;
		analysis_run(&full[k], &ao, &f[k]);
	}
	size_t order[2];
	rank_targets(f, 2, order);
	assert_string_equal(f[order[0]].series->name, "grower");
	assert_string_equal(f[order[1]].series->name, "steady");
	assert_int_equal(f[order[0]].verdict, VERDICT_GROWING);
	assert_int_equal(f[order[1]].verdict, rows[1].verdict);
	for (size_t k = 0; k < 2; k++) {
		analysis_release(&f[k]);
		series_release(&full[k]);
	}

	/* An ended target leaves the table; its samples stay counted. */
	live_table_end(t, 3);
	live_table_end(t, 12345);  /* unknown: ignored */
	assert_int_equal(live_table_count(t), 2);
	assert_int_equal(live_table_samples(t), 122);
	assert_int_equal(live_table_ranked(t, rows, 4), 2);
	assert_string_equal(rows[0].name, "steady");
	live_table_free(t);
}

/* --group-by in the live table (issue 28, item 4): a group that is one
 * process (its pid and last footprint those of a process row) is not
 * listed beside it; a group of two is, without a pid. */
static void test_table_groups(void **state)
{
	(void)state;
	struct live_table *t = live_table_new(128, 4096);
	struct live_sample x = {.t = T0};
	for (int c = 0; c < COMP_COUNT; c++)
		x.comp[c] = NAN;
	/* processes 1 (pid 101, 10 MiB) and 2 (pid 102, 20 MiB) */
	x.footprint = 10 * MiB;
	live_table_sample(t, 1, "a", 101, 5, T0, "a", &x);
	x.footprint = 20 * MiB;
	live_table_sample(t, 2, "b", 102, 5, T0, "b", &x);
	/* group 11 is process 1 alone; group 12 is 1 and 2 (started with
	 * 101: its identity's pid) */
	x.footprint = 10 * MiB;
	live_table_sample(t, 11, "name=a", 101, 5, T0, "a", &x);
	live_table_mark_group(t, 11);
	x.footprint = 30 * MiB;
	live_table_sample(t, 12, "name=ab", 101, 5, T0, "a", &x);
	live_table_mark_group(t, 12);
	live_table_mark_group(t, 999);  /* unknown: ignored */
	struct live_table_row rows[8];
	size_t n = live_table_ranked(t, rows, 8);
	assert_int_equal(n, 3);
	bool seen_ab = false;
	for (size_t i = 0; i < n; i++) {
		assert_string_not_equal(rows[i].name, "name=a");
		if (strcmp(rows[i].name, "name=ab") == 0) {
			seen_ab = true;
			assert_int_equal(rows[i].pid, -1);
		}
	}
	assert_true(seen_ab);
	live_table_free(t);
}

/* GPU pools in the live table (issue 28, item 1; the review found watch
 * --all judging a GPU process against MemTotal): a target whose memory
 * grows +1 MiB a second on GPU 0 (80 MiB now, on a device of 1 GiB that
 * holds nothing else), 20 MiB flat in host memory, MemTotal 8 GiB. GPU 0
 * fills in (1024 - 80) MiB / 1 MiB/s = 944 s, less a second or two for
 * the last samples' position; against MemTotal the footprint would take
 * (8192 - 100) s. */
static void test_table_gpu_pool(void **state)
{
	(void)state;
	struct live_table *t = live_table_new(128, 4096);
	live_table_set_machine(t, 8192 * MiB, 0, 0, 4096 * MiB);
	struct analysis_options ao;
	analysis_options_init(&ao);
	for (size_t i = 0; i <= 60; i++) {
		double gpu = 20 * MiB + MiB * (double)i;
		struct live_sample x = {.t = T0 + (double)i,
					.footprint = 20 * MiB + gpu};
		for (int c = 0; c < COMP_COUNT; c++)
			x.comp[c] = NAN;
		x.comp[COMP_GPU] = gpu;
		x.comp[COMP_GPU0] = gpu;
		live_table_sample(t, 1, "llm", 101, 5, T0, "llm", &x);
		live_table_gpu_limit(t, 1, 0, 1024 * MiB, gpu);
	}
	live_table_gpu_limit(t, 99, 0, 1, 1);  /* unknown: ignored */
	assert_int_equal(live_table_analyse(t, &ao, 0, 10), 1);
	struct live_table_row row;
	assert_int_equal(live_table_ranked(t, &row, 1), 1);
	assert_int_equal(row.verdict, VERDICT_GROWING);
	assert_true(row.eta_s > 900 && row.eta_s < 960);
	live_table_free(t);
}

/* One call with room in its budget analyses every target due, whatever
 * the cursor (it once skipped one target in two after the first). */
static void test_table_round(void **state)
{
	(void)state;
	struct live_table *t = live_table_new(128, 4096);
	struct analysis_options ao;
	analysis_options_init(&ao);
	for (int64_t id = 1; id <= 5; id++)
		table_feed(t, id, 0, 10);
	assert_int_equal(live_table_analyse(t, &ao, 0, 0), 1);
	for (int64_t id = 1; id <= 5; id++)
		table_feed(t, id, 10, 11);
	assert_int_equal(live_table_analyse(t, &ao, 0, 60), 5);
	assert_int_equal(live_table_analyse(t, &ao, 0, 60), 0);
	struct live_table_row rows[5];
	assert_int_equal(live_table_ranked(t, rows, 5), 5);
	for (size_t i = 0; i < 5; i++) {
		assert_true(rows[i].analysed);
		assert_int_equal(rows[i].analysed_at, 11);
	}
	live_table_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_below_bound),
		cmocka_unit_test(test_thinning),
		cmocka_unit_test(test_readings),
		cmocka_unit_test(test_recorded_no_readings),
		cmocka_unit_test(test_recent_order_incarnations),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_table_round),
		cmocka_unit_test(test_table_groups),
		cmocka_unit_test(test_table_gpu_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
