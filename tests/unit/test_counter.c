/*
 * test_counter.c - counter.c (is the work series a counter?) and what the
 * analysis makes of the answer: a gauge set aside unless
 * --work-is-counter, a restart without pids split into incarnations.
 *
 * Series are built in code, one point every DT seconds from T0; every
 * expected figure is a hand count, noted per test.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis.h"
#include "counter.h"
#include "csv.h"
#include "series.h"

#define MiB (1024.0 * 1024.0)
#define GiB (1024.0 * MiB)
#define T0 1777600800.0
#define DT 15.0

/* A requests-in-flight gauge 0..15 as a triangle wave of period 30:
 * v(i) = 15 - |15 - i mod 30|. Over i = 1..300 (ten periods) it goes down
 * where i mod 30 is 16..29 (14 readings) or 0 (1 -> 0): 15 a period, 150
 * of the 300 compared readings, a share of 0.5. Memory follows it:
 * base + per * v. */
static void gauge_series(struct series *s, double base, double per)
{
	series_init(s, "gauge");
	uint32_t inc = series_add_incarnation(s, -1, 0, NAN, NULL, NULL);
	for (size_t i = 0; i <= 300; i++) {
		double v = 15 - fabs(15 - (double)(i % 30));
		size_t k = series_append(s, T0 + DT * (double)i,
					 base + per * v, inc);
		series_set_requests(s, k, v);
	}
}

static bool has_reason(const struct target_findings *f, enum reason_code c,
		       const struct reason **out)
{
	for (size_t i = 0; i < f->reasons.n; i++)
		if (f->reasons.r[i].code == c) {
			if (out)
				*out = &f->reasons.r[i];
			return true;
		}
	return false;
}

static void test_gauge_flagged(void **state)
{
	(void)state;
	struct series s;
	gauge_series(&s, 1 * GiB, 4 * MiB);
	struct counter_check c;
	counter_check_run(&s, &c, NULL);
	assert_true(c.recorded);
	assert_false(c.is_counter);
	assert_int_equal(c.readings, 300);
	assert_int_equal(c.decreases, 150);
	assert_int_equal(c.resets, 0);
	assert_true(c.decreasing_share == 0.5);
	series_release(&s);
}

/* The same gauge with memory that follows it closely (10 MiB + 100 MiB a
 * request): each 1 -> 0 drop takes the footprint from 110 to 10 MiB and
 * looks like a restart (10 of 300 readings: rare enough), but the other
 * 140 decreases make it a gauge, and a gauge's drops are no restarts:
 * all 150 count, none is a reset, nothing is split. */
static void test_gauge_drops_with_memory(void **state)
{
	(void)state;
	struct series s;
	gauge_series(&s, 10 * MiB, 100 * MiB);
	struct counter_check c;
	counter_check_run(&s, &c, NULL);
	assert_false(c.is_counter);
	assert_int_equal(c.decreases, 150);
	assert_int_equal(c.resets, 0);
	assert_int_equal(counter_split_restarts(&s), 0);
	assert_int_equal(s.n_incs, 1);
	series_release(&s);
}

/* The analysis sets the gauge aside: no per-request slope, no idle
 * windows, the reason names 150 of 300 (0.5); --work-is-counter reads it
 * as a counter all the same, and the reason says so. */
static void test_gauge_analysis(void **state)
{
	(void)state;
	struct series s;
	gauge_series(&s, 1 * GiB, 4 * MiB);
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_true(f.work_set_aside);
	assert_false(f.per_request.recorded);
	assert_false(f.per_request.found);
	assert_false(f.idle.work_known);
	assert_int_equal(f.idle.n, 0);
	const struct reason *r = NULL;
	assert_true(has_reason(&f, REASON_WORK_NOT_COUNTER, &r));
	assert_int_equal(r->u.work.decreases, 150);
	assert_int_equal(r->u.work.readings, 300);
	assert_true(r->u.work.share == 0.5);
	assert_false(r->u.work.used);
	assert_false(has_reason(&f, REASON_PER_REQUEST, NULL));
	analysis_release(&f);

	o.work_is_counter = true;
	analysis_run(&s, &o, &f);
	assert_false(f.work_set_aside);
	assert_true(f.per_request.recorded);
	assert_true(f.per_request.known);
	assert_true(f.per_request.requests > 0);
	assert_true(f.idle.work_known);
	assert_true(has_reason(&f, REASON_WORK_NOT_COUNTER, &r));
	assert_true(r->u.work.used);
	analysis_release(&f);
	series_release(&s);
}

/* A real counter, +10 a reading, that restarts at reading 120: back to 5
 * (<= 10 % of 1,190) as the footprint falls from 1 GiB + 119 MiB to
 * 300 MiB (>= 20 %). No pids. */
static void restarting_counter(struct series *s)
{
	series_init(s, "svc");
	uint32_t inc = series_add_incarnation(s, -1, 0, NAN, "svc", NULL);
	double req = 0;
	for (size_t i = 0; i < 200; i++) {
		double fp;
		if (i < 120) {
			req = 10 * (double)i;
			fp = 1 * GiB + MiB * (double)i;
		} else {
			req = i == 120 ? 5 : req + 10;
			fp = 300 * MiB + MiB * (double)(i - 120);
		}
		size_t k = series_append(s, T0 + DT * (double)i, fp, inc);
		series_set_requests(s, k, req);
	}
}

static void test_counter_reset_split(void **state)
{
	(void)state;
	struct series s;
	restarting_counter(&s);
	struct counter_check c;
	bool reset_at[200];
	counter_check_run(&s, &c, reset_at);
	assert_true(c.is_counter);
	assert_int_equal(c.readings, 199);
	assert_int_equal(c.decreases, 0);
	assert_int_equal(c.resets, 1);
	assert_true(c.decreasing_share == 0);
	for (size_t i = 0; i < 200; i++)
		assert_int_equal(reset_at[i], i == 120);

	assert_int_equal(counter_split_restarts(&s), 1);
	assert_int_equal(s.n_incs, 2);
	assert_int_equal(s.inc[119], 0);
	assert_int_equal(s.inc[120], 1);
	assert_int_equal(s.inc[199], 1);
	assert_true(s.incs[1].pid == -1);
	assert_true(s.incs[1].start_time == T0 + DT * 120);
	assert_string_equal(s.incs[1].comm, "svc");

	/* split: the analysed incarnation is the last, 80 points; its
	 * requests 5 -> 5 + 79 * 10 = 795: 790; the restart is no decrease */
	struct analysis_options o;
	analysis_options_init(&o);
	struct target_findings f;
	analysis_run(&s, &o, &f);
	assert_int_equal(f.n_incarnations, 2);
	assert_int_equal(f.analysed_inc, 1);
	assert_int_equal(f.analysed_samples, 80);
	assert_true(f.work.is_counter);
	assert_int_equal(f.work.decreases, 0);
	assert_false(f.work_set_aside);
	assert_true(f.per_request.recorded);
	assert_true(f.per_request.requests == 790);
	assert_false(has_reason(&f, REASON_WORK_NOT_COUNTER, NULL));
	analysis_release(&f);
	series_release(&s);
}

/* With a pid, the pid decides: a reset inside one pid's life is counted
 * as a reset (no gauge evidence) but splits nothing. */
static void test_pid_not_split(void **state)
{
	(void)state;
	struct series s;
	restarting_counter(&s);
	s.incs[0].pid = 42;
	assert_int_equal(counter_split_restarts(&s), 0);
	assert_int_equal(s.n_incs, 1);
	struct counter_check c;
	counter_check_run(&s, &c, NULL);
	assert_true(c.is_counter);
	assert_int_equal(c.resets, 1);
	series_release(&s);
}

/* A counter, +10 a reading over n readings, that goes down by 1 (no
 * footprint change) at `glitches` evenly spread readings. */
static void glitchy(struct series *s, size_t n, size_t glitches)
{
	series_init(s, "g");
	uint32_t inc = series_add_incarnation(s, -1, 0, NAN, NULL, NULL);
	for (size_t i = 0; i < n; i++) {
		double v = 10 * (double)i;
		if (glitches && i % (n / glitches) == n / glitches / 2)
			v -= 11;  /* lower than the reading before */
		size_t k = series_append(s, T0 + DT * (double)i, 1 * GiB, inc);
		series_set_requests(s, k, v);
	}
}

/* The thresholds: a gauge needs > 1 % of the readings and at least 3. */
static void test_thresholds(void **state)
{
	(void)state;
	static const struct {
		size_t n, glitches;
		bool counter;
	} cases[] = {
		{1001, 2, true},   /* 2 of 1000: fewer than 3 */
		{101, 2, true},    /* 2 of 100 (2 %): fewer than 3 */
		{101, 3, false},   /* 3 of 100: 3 % and 3 */
		{1001, 3, true},   /* 3 of 1000: 0.3 % */
		{1001, 10, true},  /* 10 of 1000: 1 %, not more */
		{1001, 11, false}, /* 11 of 1000: 1.1 % */
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct series s;
		glitchy(&s, cases[k].n, cases[k].glitches);
		struct counter_check c;
		counter_check_run(&s, &c, NULL);
		if (c.decreases != cases[k].glitches ||
		    c.is_counter != cases[k].counter) {
			print_error("case %zu: %zu decreases, counter %d\n", k,
				    c.decreases, c.is_counter);
			fail();
		}
		series_release(&s);
	}
}

/* "Restarts" every 5 readings (back to 0 as memory halves) are too
 * frequent to be restarts: 20 of 99 readings, a gauge. */
static void test_resets_too_frequent(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "r");
	uint32_t inc = series_add_incarnation(&s, -1, 0, NAN, NULL, NULL);
	for (size_t i = 0; i < 100; i++) {
		double v = (double)(i % 5);
		size_t k = series_append(&s, T0 + DT * (double)i,
					 100 * MiB * (1 + v), inc);
		series_set_requests(&s, k, v);
	}
	struct counter_check c;
	counter_check_run(&s, &c, NULL);
	assert_int_equal(c.readings, 99);
	assert_int_equal(c.decreases, 19);  /* i = 5, 10, ..., 95 */
	assert_int_equal(c.resets, 0);
	assert_false(c.is_counter);
	assert_int_equal(counter_split_restarts(&s), 0);
	series_release(&s);
}

/* Through the CSV reader: no pid column, the restart splits; readings
 * compared only within an incarnation. */
static void test_csv_split(void **state)
{
	(void)state;
	static const char csv[] =
		"time,footprint,requests\n"
		"1000,1GiB,100\n1015,1GiB,110\n1030,1GiB,120\n"
		"1045,1GiB,130\n1060,1GiB,140\n1075,1GiB,150\n"
		"1090,1GiB,160\n1105,1GiB,170\n1120,1GiB,180\n"
		"1135,1GiB,190\n1150,1GiB,200\n"
		"1165,200MiB,3\n1180,201MiB,13\n1195,202MiB,23\n";
	FILE *f = fmemopen((void *)csv, sizeof(csv) - 1, "r");
	assert_non_null(f);
	struct dataset d;
	assert_int_equal(csv_read_stream(f, "x.csv", &d), 0);
	fclose(f);
	const struct series *s = &d.targets[0];
	assert_int_equal(s->n_incs, 2);
	assert_int_equal(s->inc[10], 0);
	assert_int_equal(s->inc[11], 1);
	struct counter_check c;
	counter_check_run(s, &c, NULL);
	assert_int_equal(c.readings, 12);  /* 10 + 2 */
	assert_int_equal(c.resets, 0);     /* now a boundary */
	assert_true(c.is_counter);
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gauge_flagged),
		cmocka_unit_test(test_gauge_drops_with_memory),
		cmocka_unit_test(test_gauge_analysis),
		cmocka_unit_test(test_counter_reset_split),
		cmocka_unit_test(test_pid_not_split),
		cmocka_unit_test(test_thresholds),
		cmocka_unit_test(test_resets_too_frequent),
		cmocka_unit_test(test_csv_split),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
