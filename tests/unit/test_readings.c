/*
 * test_readings.c - model/readings.c: a source's readings kept by the
 * file reader's rules and attached to a series (readings.h), as tables of
 * readings in -> requests per series point out. Every expected value is
 * a hand count from the rules: a reading lands on the first point at or
 * after its stamp unless a later point came first; a late known reading
 * is put back in its place; a gap behind the latest stamp, and a known
 * reading behind the latest known one, are dropped.
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

#include "readings.h"
#include "series.h"

#define N_POINTS 5

struct reading_in {
	double t, v;
};

struct readings_case {
	const char *what;
	struct reading_in in[8];
	size_t n;
	double want[N_POINTS];    /* requests at t = 10, 20, ... 50; NAN */
};

static const struct readings_case cases[] = {
	{"in order, one a tick", {{10, 1}, {20, 2}, {30, 3}, {40, 4},
				  {50, 5}}, 5, {1, 2, 3, 4, 5}},
	{"a gap stays a gap", {{10, 1}, {20, NAN}, {30, 3}}, 3,
	 {1, NAN, 3, NAN, NAN}},
	/* the reading of tick 20 came after tick 30's gap: put back */
	{"a late reading put back", {{10, 1}, {30, NAN}, {20, 2}, {40, 4}},
	 4, {1, 2, NAN, 4, NAN}},
	/* a gap behind the latest stamp adds nothing */
	{"a gap behind dropped", {{10, 1}, {30, 3}, {20, NAN}}, 3,
	 {1, NAN, 3, NAN, NAN}},
	/* known 3 at 30, then known at 20: a clock stepped back, dropped */
	{"a known reading behind a known one dropped",
	 {{10, 1}, {30, 3}, {20, 2}}, 3, {1, NAN, 3, NAN, NAN}},
	/* stamped 15: lands on the point at 20 (first at or after it) */
	{"between ticks: the next point", {{15, 7}}, 1,
	 {NAN, 7, NAN, NAN, NAN}},
	/* two readings before one point: the later wins */
	{"two before a point: the later", {{11, 1}, {19, 2}}, 2,
	 {NAN, 2, NAN, NAN, NAN}},
};

static void test_attach_table(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct readings_case *k = &cases[c];
		struct series s;
		series_init(&s, "t");
		uint32_t inc = series_add_incarnation(&s, 1, 1, 0, "x", "x");
		for (size_t i = 0; i < N_POINTS; i++)
			series_append(&s, 10.0 * (double)(i + 1), 1e6, inc);
		struct readings r;
		readings_init(&r, "work", "requests");
		for (size_t i = 0; i < k->n; i++)
			readings_add(&r, k->in[i].t, k->in[i].v);
		readings_attach(&r, &s);
		assert_non_null(s.requests);
		for (size_t i = 0; i < N_POINTS; i++) {
			double got = s.requests[i], want = k->want[i];
			if (!(isnan(got) && isnan(want)) && got != want) {
				fprintf(stderr, "%s: point %zu: %g, want %g\n",
					k->what, i, got, want);
				fail();
			}
		}
		readings_release(&r);
		series_release(&s);
	}
}

/* "recorded, all gaps" is not "not recorded"; a role from a newer
 * memtrend attaches nothing; a gauge goes by its name. */
static void test_roles(void **state)
{
	(void)state;
	struct series s;
	series_init(&s, "t");
	uint32_t inc = series_add_incarnation(&s, 1, 1, 0, "x", "x");
	series_append(&s, 10, 1e6, inc);
	struct readings gaps, later, gauge;
	readings_init(&gaps, "work", NULL);
	readings_add(&gaps, 10, NAN);
	readings_attach(&gaps, &s);
	assert_non_null(s.requests);
	assert_true(isnan(s.requests[0]));
	readings_init(&later, "heat", "t");
	readings_add(&later, 10, 3);
	readings_attach(&later, &s);
	readings_init(&gauge, "gauge", "queue");
	readings_add(&gauge, 10, 42);
	readings_attach(&gauge, &s);
	assert_int_equal(s.n_gauges, 1);
	assert_string_equal(s.gauges[0].name, "queue");
	assert_true(s.gauges[0].v[0] == 42);
	readings_release(&gaps);
	readings_release(&later);
	readings_release(&gauge);
	series_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_attach_table),
		cmocka_unit_test(test_roles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
