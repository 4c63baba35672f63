/*
 * test_fleet.c - the contract of fleet_read() (remote/fleet.h), the
 * reader behind report --prometheus, where it refuses before any request:
 * what it hands back on a refusal (an empty dataset, no findings) and
 * which kind of failure it says (bad input: the command's exit 2). The
 * runs against a server are the e2e tests (tests/e2e/fleet_*.sh, a fake
 * Prometheus on loopback).
 *
 * The URL names a port nothing listens on: a request would fail as
 * FLEET_FAILED, so FLEET_BAD_INPUT also shows that none was made.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fleet.h"

static void options(struct fleet_options *fo)
{
	memset(fo, 0, sizeof(*fo));
	fo->url = "http://127.0.0.1:1";
	fo->query = "mem";
	fo->range_s = fo->start = fo->end = fo->step_s = NAN;
	fo->timeout_s = fo->max_response = NAN;
}

/* A dataset and findings poisoned, to see that a refusal clears them. */
static void refused(const struct fleet_options *fo)
{
	struct analysis_options ao;
	analysis_options_init(&ao);
	struct dataset d;
	memset(&d, 0xa5, sizeof(d));
	struct target_findings *f = (void *)&d;
	assert_int_equal(fleet_read(fo, &ao, 0, &d, &f), FLEET_BAD_INPUT);
	assert_null(f);
	assert_int_equal(d.n_targets, 0);
	assert_null(d.targets);
	assert_null(d.source);
	dataset_release(&d);
}

/* --start after --end: refused before the client exists. */
static void test_end_before_start(void **state)
{
	(void)state;
	struct fleet_options fo;
	options(&fo);
	fo.start = 2000000000;
	fo.end = 1999999000;
	refused(&fo);
}

/* A --step that leaves 2 points in the range: 100 s at a 60 s step,
 * from a whole step, holds the points at 0 and 60 s; a slope needs 3. */
static void test_too_few_points(void **state)
{
	(void)state;
	struct fleet_options fo;
	options(&fo);
	fo.start = 1800000000;         /* a multiple of 60 */
	fo.end = 1800000100;
	fo.step_s = 60;
	refused(&fo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_end_before_start),
		cmocka_unit_test(test_too_few_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
