/*
 * test_gate.c - `memtrend check`'s judgement (src/analysis/gate.c) as a
 * table: evidence in, outcome and advice out. The advice figures come
 * from the model of docs/check.md computed independently with scipy
 * (scipy.stats.norm.cdf, scipy.optimize.brentq to 1e-15): the smallest
 * k >= 1 with P(k) = Phi((d - h)/v) + Phi((-d - h)/v) >= 0.7, where
 * s = side / 1.959963984540054, s_k = s k^-1.5, h = max(1.96 s_k, q / k),
 * v = sqrt(s^2 + s_k^2), d = |estimate - budget|, q = resolution /
 * amount; needed = amount x k. Then gate_measure() on series
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
	 /* side 512, distance 512, q = 4096/1000: k = 1.29080271386 */
	 1290.8027138632563, 2.9080271386325625},
	/* estimate below the budget, upper end above: side = high - est =
	 * 700, distance = 1024 - 400 = 624; 419.77 more at 100 requests/s */
	{"below, interval reaches budget", GATE_PER_REQUEST, 50, true, 1000,
	 1000, 100, 4096, true, 400, -300, 1100, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 1419.7670876503855, 4.197670876503855},
	/* estimate above, lower end below: side = est - low = 3000,
	 * distance 2048 - 1024 = 1024, q = 4096/2000; 3047.44 more
	 * requests at 50/s */
	{"above, interval reaches budget", GATE_PER_REQUEST, 50, true, 2000,
	 2000, 50, 4096, true, 2048, -952, 5000, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 5047.442472924499, 60.94884945848999},
	/* the resolution dominates: side 1.5, distance 1 B/req, but 4 KiB
	 * pages over k x 1000 requests are a half-width of 4.096/k B/req,
	 * which alone needs k > 4.096; with the chance 6460.9 */
	{"resolution floor", GATE_PER_REQUEST, 50, true, 1000, 1000, 100,
	 4096, true, 1023, 1022, 1024.5, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 6460.9087484313795, 54.6090874843138},
	/* the estimate on the budget: the truth is not known to be there,
	 * a rerun of 2.92 x decides with chance 0.7 (side 124 below) */
	{"at budget", GATE_PER_REQUEST, 50, true, 1000, 1000, 100, 4096, true,
	 1024, 900, 1200, 1024, GATE_INCONCLUSIVE, GATE_WHY_INTERVAL,
	 2919.0702030257567, 19.190702030257565},
	/* no width on the budget's side (estimate = low = budget): no
	 * advice can be planned */
	{"no width at budget", GATE_PER_REQUEST, 50, true, 1000, 1000, 100,
	 4096, true, 1024, 1024, 1200, 1024, GATE_INCONCLUSIVE,
	 GATE_WHY_AT_BUDGET, INFINITY, INFINITY},
	/* the counter never moved: no work, whatever the memory did */
	{"no work", GATE_PER_REQUEST, 50, true, 0, NAN, 0, 4096, false,
	 NAN, NAN, NAN, 1024, GATE_INCONCLUSIVE, GATE_WHY_NO_WORK, NAN, NAN},
	/* a counter with no readings after the warm-up: too few readings
	 * (it cannot say that no work was done) */
	{"no readings", GATE_PER_REQUEST, 50, true, NAN, NAN, NAN, 4096,
	 false, NAN, NAN, NAN, 1024, GATE_INCONCLUSIVE, GATE_WHY_TOO_FEW, NAN,
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
	/* per hour, inconclusive: side 12 MiB/h, distance 5 MiB/h, q =
	 * 4096 x 3600 / 600 B/h: 1415.02 s in all, 815.02 s more */
	{"time, straddles", GATE_PER_HOUR, 100, false, NAN, 600, NAN, 4096,
	 true, 5 * MiB, -1 * MiB, 17 * MiB, 10 * MiB, GATE_INCONCLUSIVE,
	 GATE_WHY_INTERVAL, 1415.0193011281872, 815.0193011281872},
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
			/* every reading read the counter, unless it has
			 * none (requests NAN) */
			.work_readings = w->work_recorded &&
					 isfinite(w->requests) ? w->points : 0,
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
	/* a warm-up of requests that never came: too few, not a pass; the
	 * advice is about the warm-up that took every reading, not the
	 * interval */
	gate_measure(&s, work, GATE_PER_REQUEST, &w, &e);
	assert_int_equal(e.points, 0);
	assert_int_equal(e.points_before, 100);
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_INCONCLUSIVE);
	render_gate_sentence(line, sizeof(line), &e, &r);
	assert_non_null(strstr(line, "left out 100 of the run's 100 readings"));
	assert_non_null(strstr(line, "(--warmup)"));
	assert_null(strstr(line, "--interval"));
	free(work);
	series_release(&s);

	/* a moving counter read only once (the other readings failed: NAN):
	 * too few readings of the counter, not "no work" */
	fill(&s, true);
	for (size_t i = 0; i < s.n; i++)
		if (i != 50)
			s.requests[i] = NAN;
	work = malloc(s.n * sizeof(double));
	idle_work_increase(s.requests, s.n, work);
	gate_measure(&s, work, GATE_PER_REQUEST, &none, &e);
	assert_int_equal(e.points, 100);
	assert_int_equal(e.work_readings, 1);
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_INCONCLUSIVE);
	assert_int_equal(r.why, GATE_WHY_TOO_FEW);
	render_gate_sentence(line, sizeof(line), &e, &r);
	assert_non_null(strstr(line, "100 of memory, 1 of the work counter"));
	assert_int_equal(e.points_before, 0);
	assert_null(strstr(line, "no work"));
	free(work);
	series_release(&s);

	/* the work column is a gauge: requests in flight 0..9, going down
	 * at every tenth reading (i % 10 == 0 after 9: 9 of the 99 compared
	 * readings, 9.1 %, counted by hand): per request cannot be judged,
	 * whatever the footprint does; the time basis still judges */
	fill(&s, true);
	for (size_t i = 0; i < s.n; i++)
		s.requests[i] = (double)(i % 10);
	work = malloc(s.n * sizeof(double));
	idle_work_increase(s.requests, s.n, work);
	gate_measure(&s, work, GATE_PER_REQUEST, &none, &e);
	assert_true(e.work_not_counter);
	assert_int_equal(e.work_decreases, 9);
	assert_int_equal(e.work_compared, 99);
	assert_false(e.found);
	gate_judge(&e, 1024, &r);
	assert_int_equal(r.outcome, GATE_INCONCLUSIVE);
	assert_int_equal(r.why, GATE_WHY_NOT_COUNTER);
	render_gate_sentence(line, sizeof(line), &e, &r);
	assert_non_null(strstr(line, "not a counter: it went down in 9 of 99 "
				     "readings (9.1 %)"));
	assert_non_null(strstr(line, "--max-growth"));
	gate_measure(&s, NULL, GATE_PER_HOUR, &tw, &e);
	assert_false(e.work_not_counter);
	assert_true(e.found);
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
