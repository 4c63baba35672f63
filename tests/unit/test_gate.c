/*
 * test_gate.c - `memtrend check`'s judgement (src/analysis/gate.c) as a
 * table: evidence in, outcome and advice out. The advice figures are hand
 * computations from the model of docs/check.md: the side of the interval
 * that must clear the budget shrinks as 1/amount, so the amount needed is
 * amount x side / |estimate - budget|, never less than what was seen nor
 * than resolution / |estimate - budget|. Then gate_measure() on series
 * built by hand: an exact line per request after a warm-up that is left
 * out, a counter that never moves, and the time basis.
 *
 * Does not run the recorder or render words (e2e_check_* do).
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

#include "gate.h"
#include "idle.h"
#include "render.h"
#include "series.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)

struct row {
	const char *what;
	enum gate_basis basis;
	size_t points;
	bool work_recorded;
	double requests;           /* per request: work after the warm-up */
	double amount, rate_per_s, resolution;
	bool found;
	double est, low, high;
	double budget;
	enum gate_outcome outcome;
	enum gate_why why;
	double needed, more_s;     /* NAN: not checked (must be NAN) */
};

static const struct row rows[] = {
	/* the interval below the budget: pass */
	{"below", GATE_PER_REQUEST, 50, true, 20000, 20000, 1000, 4096, true,
	 10, -30, 50, 1024, GATE_PASS, GATE_WHY_NONE, NAN, NAN},
	/* wholly above: fail ("+3.9 KiB/req [3.7, 4.1], budget 1 KiB") */
	{"above", GATE_PER_REQUEST, 50, true, 20000, 20000, 1000, 4096, true,
	 3.9 * KiB, 3.7 * KiB, 4.1 * KiB, 1 * KiB, GATE_FAIL, GATE_WHY_NONE,
	 NAN, NAN},
	/* the upper end on the budget exactly is not below it */
	{"upper end at budget", GATE_PER_REQUEST, 50, true, 1000, 1000, 100,
	 4096, true, 512, 0, 1024, 1024, GATE_INCONCLUSIVE, GATE_WHY_INTERVAL,
	 /* side 512, distance 512: 1000 x 1 = 1000 = what was seen */
	 1000, 0},
	/* estimate below the budget, upper end above: side = high - est =
	 * 700, distance = 1024 - 400 = 624 -> 1000 x 700/624 = 1121.79...;
	 * the 121.79... more at 100 requests/s */
	{"below, interval reaches budget", GATE_PER_REQUEST, 50, true, 1000,
	 1000, 100, 4096, true, 400, -300, 1100, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 1000.0 * 700 / 624, 121.79487179487181 / 100},
	/* estimate above, lower end below: side = est - low = 3000,
	 * distance 2048 - 1024 = 1024 -> 2000 x 3000/1024 = 5859.375; more
	 * 3859.375 requests at 50/s = 77.1875 s */
	{"above, interval reaches budget", GATE_PER_REQUEST, 50, true, 2000,
	 2000, 50, 4096, true, 2048, -952, 5000, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 5859.375, 77.1875},
	/* resolution floor: 4 KiB pages over a distance of 1 B/req need
	 * 4096 requests even where the interval says 1500 */
	{"resolution floor", GATE_PER_REQUEST, 50, true, 1000, 1000, 100,
	 4096, true, 1023, 1022, 1024.5, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 4096, 30.96},
	/* the estimate on the budget: nothing decides */
	{"at budget", GATE_PER_REQUEST, 50, true, 1000, 1000, 100, 4096, true,
	 1024, 900, 1200, 1024, GATE_INCONCLUSIVE, GATE_WHY_AT_BUDGET,
	 INFINITY, INFINITY},
	/* the counter never moved: no work, whatever the memory did */
	{"no work", GATE_PER_REQUEST, 50, true, 0, NAN, 0, 4096, false,
	 NAN, NAN, NAN, 1024, GATE_INCONCLUSIVE, GATE_WHY_NO_WORK, NAN, NAN},
	/* a counter with no readings after the warm-up: no work either */
	{"no readings", GATE_PER_REQUEST, 50, true, NAN, NAN, NAN, 4096,
	 false, NAN, NAN, NAN, 1024, GATE_INCONCLUSIVE, GATE_WHY_NO_WORK, NAN,
	 NAN},
	/* two readings: too few, never a pass */
	{"too few", GATE_PER_REQUEST, 2, true, 100, 100, 10, 4096, true, 0,
	 -1, 1, 1024, GATE_INCONCLUSIVE, GATE_WHY_TOO_FEW, NAN, NAN},
	/* no slope (e.g. no distinct work): too few */
	{"no slope", GATE_PER_REQUEST, 50, true, 100, NAN, 10, 4096, false,
	 NAN, NAN, NAN, 1024, GATE_INCONCLUSIVE, GATE_WHY_TOO_FEW, NAN, NAN},
	/* per hour: pass below 10 MiB/h */
	{"time, below", GATE_PER_HOUR, 100, false, NAN, 600, NAN, 4096, true,
	 1 * MiB, -2 * MiB, 4 * MiB, 10 * MiB, GATE_PASS, GATE_WHY_NONE, NAN,
	 NAN},
	/* per hour, inconclusive: side 12 MiB/h, distance 5 MiB/h: 600 s x
	 * 12/5 = 1440 s, 840 s more */
	{"time, straddles", GATE_PER_HOUR, 100, false, NAN, 600, NAN, 4096,
	 true, 5 * MiB, -1 * MiB, 17 * MiB, 10 * MiB, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 1440, 840},
	/* per hour: a series without work is judged on time alone */
	{"time, fail", GATE_PER_HOUR, 100, false, NAN, 600, NAN, 4096, true,
	 40 * MiB, 30 * MiB, 50 * MiB, 10 * MiB, GATE_FAIL, GATE_WHY_NONE,
	 NAN, NAN},
};

static void close_to(double got, double want, const char *what)
{
	if (isnan(want)) {
		if (!isnan(got))
			fail_msg("%s: got %g, want NAN", what, got);
		return;
	}
	if (isinf(want)) {
		if (got != want)
			fail_msg("%s: got %g, want %g", what, got, want);
		return;
	}
	if (!(fabs(got - want) <= 1e-9 * fmax(1, fabs(want))))
		fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

static void test_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *w = &rows[i];
		struct gate_evidence e = {
			.basis = w->basis, .points = w->points,
			.work_recorded = w->work_recorded,
			.requests = w->requests, .span_s = 600, .from = 0,
			.resolution = w->resolution, .found = w->found,
			.slope = {w->est, w->low, w->high, 0.01},
			.amount = w->amount, .rate_per_s = w->rate_per_s,
		};
		struct gate_result r;
		gate_judge(&e, w->budget, &r);
		if (r.outcome != w->outcome || r.why != w->why)
			fail_msg("%s: outcome %s why %d, want %s why %d",
				 w->what, gate_outcome_name(r.outcome), r.why,
				 gate_outcome_name(w->outcome), w->why);
		char what[128];
		snprintf(what, sizeof(what), "%s: needed", w->what);
		close_to(r.needed, w->needed, what);
		snprintf(what, sizeof(what), "%s: more_s", w->what);
		close_to(r.more_s, w->more_s, what);
		if (isfinite(r.needed))
			close_to(r.more, r.needed - w->amount, what);
		assert_true(r.budget == w->budget);
	}
}

/* A series: 100 readings 1 s apart, the counter up 100 a second; the
 * footprint flat at 100 MiB for the first 20 s (warm-up: a cache filling
 * would be here; flat keeps the arithmetic plain), then exactly 4 KiB
 * per 10 requests (409.6 B/req) -- whole pages, as /proc gives them. */
static void fill(struct series *s, bool moving_counter)
{
	series_init(s, "svc");
	uint32_t inc = series_add_incarnation(s, 42, 1, 1000, "svc", NULL);
	for (int i = 0; i < 100; i++) {
		double req = moving_counter ? 100.0 * i : 7;
		double fp = 100 * MiB + (i >= 20 ? 4096.0 * 10 * (i - 20) : 0);
		size_t k = series_append(s, 1000 + i, fp, inc);
		series_set_requests(s, k, req);
	}
	s->quantum = 4096;
}

static void test_measure(void **state)
{
	(void)state;
	struct series s;
	fill(&s, true);
	double *work = malloc(s.n * sizeof(double));
	idle_work_increase(s.requests, s.n, work);
	struct gate_window w = {.warmup_requests = 2000};
	struct gate_evidence e;
	gate_measure(&s, work, GATE_PER_REQUEST, &w, &e);
	/* the warm-up ends at the reading where 2000 requests were done:
	 * t = 1020; 80 readings from there, 7900 requests */
	assert_true(e.found);
	assert_int_equal(e.points, 80);
	close_to(e.from, 1020, "from");
	close_to(e.requests, 7900, "requests");
	close_to(e.amount, 7900, "amount");
	/* 40960 B per 100 requests, an exact line */
	close_to(e.slope.estimate, 409.6, "slope");
	assert_true(e.slope.low <= 409.6 && e.slope.high >= 409.6);
	/* no interval narrower than a page over the work */
	assert_true(e.slope.high - e.slope.estimate >= 4096.0 / 7900 - 1e-9);
	struct gate_result r;
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_PASS);
	gate_judge(&e, 100, &r);
	assert_int_equal(r.outcome, GATE_FAIL);
	char line[512];
	render_gate_sentence(line, sizeof(line), &e, &r);
	assert_non_null(strstr(line, "+410 B/req"));
	assert_non_null(strstr(line, "over 7,900 requests, budget 100 B/req"));

	/* without the warm-up left out: 100 readings; Theil-Sen (a median
	 * of pairwise slopes, most of them on the line) is not pulled below
	 * the line by the flat fifth at the start, but the interval widens */
	struct gate_window none = {0};
	gate_measure(&s, work, GATE_PER_REQUEST, &none, &e);
	assert_int_equal(e.points, 100);
	assert_true(e.slope.estimate > 0 && e.slope.estimate <= 409.6 + 1e-9);

	/* the time basis: 40960 B per second after the warm-up, per hour */
	struct gate_window tw = {.warmup_s = 20};
	gate_measure(&s, NULL, GATE_PER_HOUR, &tw, &e);
	assert_true(e.found);
	close_to(e.slope.estimate, 40960.0 * 3600, "per hour");
	close_to(e.span_s, 79, "span");
	free(work);
	series_release(&s);

	/* a counter that never moves: no work */
	fill(&s, false);
	work = malloc(s.n * sizeof(double));
	idle_work_increase(s.requests, s.n, work);
	gate_measure(&s, work, GATE_PER_REQUEST, &none, &e);
	close_to(e.requests, 0, "flat counter");
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_INCONCLUSIVE);
	assert_int_equal(r.why, GATE_WHY_NO_WORK);
	render_gate_sentence(line, sizeof(line), &e, &r);
	assert_non_null(strstr(line, "no work"));
	/* a warm-up of requests that never came: too few, not a pass */
	gate_measure(&s, work, GATE_PER_REQUEST, &w, &e);
	assert_int_equal(e.points, 0);
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_INCONCLUSIVE);
	free(work);
	series_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_measure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
