/*
 * test_stamp_clock.c - the samples' stamps (src/record/stamp_clock.c) on
 * clock readings written by hand: what each stamp must be is the wall
 * clock at the first tick plus the time elapsed, worked out in each test's
 * comment.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "stamp_clock.h"

#define WALL0 1.8e9  /* the wall clock at the first tick */

/* cmocka 1.1 (Debian 12) has no assert_double_equal */
#define assert_time(got, want) do { \
		double g_ = (got), w_ = (want); \
		if (!(fabs(g_ - w_) <= 1e-6)) \
			fail_msg("%s = %.6f, want %.6f", #got, g_, w_); \
	} while (0)

struct clocks {
	double mono, boot, shift;  /* shift: the wall clock's steps so far */
};

static double stamp(struct stamp_clock *c, const struct clocks *k,
		    char *msg, bool *noted)
{
	/* the wall clock runs with the boot-time clock, plus its steps */
	return stamp_clock_stamp(c, k->mono, k->mono, k->boot,
				 WALL0 + (k->boot - 50) + k->shift, msg, 200,
				 noted);
}

/* The case: a step forward by an hour, then the step back that
 * undoes it. Every stamp is WALL0 + the elapsed time (1 s a tick), with
 * no jump; two notes, the second saying the clocks agree again. */
static void test_forward_then_back(void **state)
{
	(void)state;
	struct stamp_clock c;
	stamp_clock_init(&c);
	struct clocks k = {.mono = 10, .boot = 50};
	char msg[200];
	bool noted;
	int notes = 0;
	for (int i = 0; i < 30; i++) {
		if (i == 10)
			k.shift = 3600;
		if (i == 20)
			k.shift = 0;
		double t = stamp(&c, &k, msg, &noted);
		assert_time(t, WALL0 + i);
		if (noted) {
			notes++;
			if (i == 10)
				assert_non_null(strstr(msg, "stepped forward by "
						       "3.6e+03 s; sample times "
						       "go on from the elapsed "
						       "time and are 3.6e+03 s "
						       "behind"));
			else
				assert_non_null(strstr(msg, "stepped back by "
						       "3.6e+03 s and agrees"));
		}
		k.mono += 1;
		k.boot += 1;
	}
	assert_int_equal(notes, 2);
}

/* A suspend of 600 s: the boot-time clock counts it, the monotonic one
 * does not, and the wall clock moved with the boot-time clock. The stamp
 * after it is the real time (WALL0 + 1 + 600 + 1), not a step, and not
 * noted. */
static void test_suspend_is_real_time(void **state)
{
	(void)state;
	struct stamp_clock c;
	stamp_clock_init(&c);
	struct clocks k = {.mono = 10, .boot = 50};
	char msg[200];
	bool noted;
	assert_time(stamp(&c, &k, msg, &noted), WALL0);
	k.mono += 1, k.boot += 1;
	assert_time(stamp(&c, &k, msg, &noted), WALL0 + 1);
	k.boot += 600;  /* suspended */
	k.mono += 1, k.boot += 1;
	assert_time(stamp(&c, &k, msg, &noted), WALL0 + 602);
	assert_false(noted);
	assert_string_equal(msg, "");
	/* the offset stays: an on-time deadline 1 s on is stamped exactly
	 * 1 s later */
	k.mono += 1, k.boot += 1;
	assert_time(stamp_clock_stamp(&c, k.mono - 0.004, k.mono,
					      k.boot, WALL0 + k.boot - 50, msg,
					      sizeof(msg), &noted),
			    WALL0 + 603 - 0.004);
}

/* Steps under a second (a slew's leftovers, a small NTP step) are neither
 * followed nor noted; a step back is noted as "ahead of"; a clock stepped
 * over and over is noted STAMP_CLOCK_MAX_NOTES times, the last saying so. */
static void test_small_steps_and_note_bound(void **state)
{
	(void)state;
	struct stamp_clock c;
	stamp_clock_init(&c);
	struct clocks k = {.mono = 0, .boot = 50};
	char msg[200];
	bool noted;
	stamp(&c, &k, msg, &noted);
	k.shift = -0.5;
	k.mono += 1, k.boot += 1;
	assert_time(stamp(&c, &k, msg, &noted), WALL0 + 1);
	assert_false(noted);
	k.shift = -120;
	k.mono += 1, k.boot += 1;
	assert_time(stamp(&c, &k, msg, &noted), WALL0 + 2);
	assert_true(noted);
	assert_non_null(strstr(msg, "stepped back by 120 s; sample times go "
			       "on from the elapsed time and are 120 s ahead "
			       "of the wall clock"));
	int notes = 1;
	for (int i = 0; i < 40; i++) {
		k.shift = (i % 2) ? -120 : 120;
		k.mono += 1, k.boot += 1;
		assert_time(stamp(&c, &k, msg, &noted), WALL0 + 3 + i);
		if (noted) {
			notes++;
			if (notes == STAMP_CLOCK_MAX_NOTES)
				assert_non_null(strstr(msg, "later steps are "
						       "not noted"));
		}
	}
	assert_int_equal(notes, STAMP_CLOCK_MAX_NOTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_then_back),
		cmocka_unit_test(test_suspend_is_real_time),
		cmocka_unit_test(test_small_steps_and_note_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
