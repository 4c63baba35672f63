/*
 * test_probe_compare.c - `memtrend probe`'s findings and advice
 * (probe_compare.h) as tables: each row an arm's readings (MiB) and the
 * verdict, kept bytes and slope per round worked out by hand from the
 * rules in probe_compare.h; then sets of arms and the advice they give,
 * and the advice's words (render_probe.h) for one of them.
 *
 * Every arm here has baseline 1 MiB and a working set of 80 MiB (4
 * threads x 8 live buffers x 2.5 MiB, the defaults), so "gives back" is
 * kept <= 0.25 x 80 + 2 = 22 MiB.
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

#include "common.h"
#include "probe_compare.h"
#include "render_probe.h"

#define MiB (1024.0 * 1024.0)
#define MAXR 6

static const struct arm_row {
	const char *what;
	enum probe_role role;
	bool ran;
	size_t n;
	double rounds[MAXR];       /* MiB */
	double idle, cap;          /* MiB; cap NAN when none */
	enum probe_verdict verdict;
	double kept, slope;        /* MiB, MiB per round */
} arm_rows[] = {
	/* Slope over rounds 2..5: 20 per round; grew 80 > max(0.2 x 19,
	 * 2); kept 99 > 22. */
	{"varying, growing", PROBE_ROLE_VARYING, true, 5,
	 {20, 40, 60, 80, 100}, 100, NAN, PROBE_VERDICT_GROWS, 99, 20},
	/* Grew 1 <= max(0.2 x 49, 2): flat at one working set. */
	{"fixed, flat", PROBE_ROLE_FIXED, true, 5, {50, 51, 51, 51, 51}, 51,
	 NAN, PROBE_VERDICT_FLAT, 50, 0},
	/* Kept 64 in [0.5 x 64, 1.15 x 64 + 2]. Slope: the pairwise slopes
	 * of 60, 65, 65, 65 are 5, 2.5, 5/3, 0, 0, 0: median 5/6. */
	{"capped at its cap", PROBE_ROLE_CAPPED, true, 5,
	 {40, 60, 65, 65, 65}, 65, 64, PROBE_VERDICT_AT_CAP, 64, 5.0 / 6},
	/* Kept 9 < 32: not at the cap, and <= 22: gives back. */
	{"capped, never filled", PROBE_ROLE_CAPPED, true, 3, {10, 10, 10},
	 10, 64, PROBE_VERDICT_GIVES_BACK, 9, 0},
	/* Kept 90 > 75.6: above its cap (the cap did not hold). */
	{"capped, over the cap", PROBE_ROLE_CAPPED, true, 3, {91, 91, 91},
	 91, 64, PROBE_VERDICT_FLAT, 90, 0},
	{"trimmed", PROBE_ROLE_TRIM, true, 3, {3, 3, 3}, 2, NAN,
	 PROBE_VERDICT_GIVES_BACK, 1, 0},
	/* The boundary: kept exactly 22 still gives back. */
	{"gives back, at the bound", PROBE_ROLE_ALLOCATOR, true, 3,
	 {40, 40, 40}, 23, NAN, PROBE_VERDICT_GIVES_BACK, 22, 0},
	/* One round: no slope, no growth. */
	{"one round", PROBE_ROLE_VARYING, true, 1, {30}, 30, NAN,
	 PROBE_VERDICT_FLAT, 29, 0},
	/* Two rounds: the slope over both (round 1 kept). */
	{"two rounds", PROBE_ROLE_VARYING, true, 2, {10, 30}, 30, NAN,
	 PROBE_VERDICT_GROWS, 29, 20},
	/* Theil-Sen: the median of the pairwise slopes; one wild round
	 * (rounds 2..6: 40, 41, 80, 43, 44) does not move it: 1 per round.
	 * Grew 6 <= 0.2 x 37: flat. */
	{"one wild round", PROBE_ROLE_VARYING, true, 6,
	 {38, 40, 41, 80, 43, 44}, 44, NAN, PROBE_VERDICT_FLAT, 43, 1},
};

static void test_arms(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(arm_rows); i++) {
		const struct arm_row *r = &arm_rows[i];
		double rounds[MAXR];
		for (size_t k = 0; k < r->n; k++)
			rounds[k] = r->rounds[k] * MiB;
		struct probe_arm_readings a = {
			.name = r->what, .role = r->role, .ran = r->ran,
			.baseline = 1 * MiB, .rounds = rounds,
			.n_rounds = r->n, .idle = r->idle * MiB,
			.cap = r->cap * MiB, .work = 80 * MiB,
		};
		struct probe_arm_finding f;
		probe_arm_compare(&a, &f);
		print_message("%s: %s kept %.3f slope %.3f\n", r->what,
			      probe_verdict_name(f.verdict), f.kept / MiB,
			      f.slope_per_round / MiB);
		assert_int_equal(f.verdict, r->verdict);
		assert_true(fabs(f.kept / MiB - r->kept) < 1e-9);
		assert_true(fabs(f.slope_per_round / MiB - r->slope) < 1e-9);
		assert_true(f.first == rounds[0]);
		assert_true(f.all == rounds[r->n - 1]);
	}
	/* Skipped: nothing but NAN. */
	struct probe_arm_readings s = {.name = "jemalloc varying",
				       .role = PROBE_ROLE_ALLOCATOR};
	struct probe_arm_finding f;
	probe_arm_compare(&s, &f);
	assert_int_equal(f.verdict, PROBE_VERDICT_NONE);
	assert_true(isnan(f.kept) && isnan(f.first) && isnan(f.idle));
}

/* A set of arms: role, ran, kept (MiB) and growth (MiB): two rounds, at
 * kept + 1 - growth and kept + 1, idle at kept + 1 (baseline 1). */
#define MAXA 7
struct set_arm {
	enum probe_role role;
	bool ran;
	double kept, growth;
};
static const struct set_row {
	const char *what;
	size_t n;
	struct set_arm arms[MAXA];
	enum probe_advice_kind kind;
	size_t varying, fixed, best, best_setting; /* indices; n: none */
	double ratio;                /* NAN for none */
} set_rows[] = {
	/* 99 > 1.5 x 50 + 2: the allocator; least: trim (1), 99x; with no
	 * code change: jemalloc (20). */
	{"glibc keeps, trim least", 6,
	 {{PROBE_ROLE_VARYING, true, 99, 0}, {PROBE_ROLE_FIXED, true, 50, 0},
	  {PROBE_ROLE_CAPPED, true, 64, 0}, {PROBE_ROLE_TRIM, true, 1, 0},
	  {PROBE_ROLE_ARENA_MAX, true, 40, 0},
	  {PROBE_ROLE_ALLOCATOR, true, 20, 0}},
	 PROBE_ADVICE_ALLOCATOR, 0, 1, 3, 5, 99},
	/* What this machine shows (docs/probe.md): varying keeps only
	 * 1.3x what one size keeps, but it grew over the rounds (+60,
	 * more than 0.2 x 58) while one size stayed flat: the allocator.
	 * A remedy that kept more than varying is no setting to suggest. */
	{"varying grows, fixed flat", 4,
	 {{PROBE_ROLE_VARYING, true, 118, 60}, {PROBE_ROLE_FIXED, true, 92, 1},
	  {PROBE_ROLE_ALLOCATOR, true, 156, 20}, {PROBE_ROLE_TRIM, true, 4, 0}},
	 PROBE_ADVICE_ALLOCATOR, 0, 1, 3, 4, 118.0 / 4},
	/* Both grow: only keeping well more than one size counts. */
	{"both grow alike", 2,
	 {{PROBE_ROLE_VARYING, true, 100, 60}, {PROBE_ROLE_FIXED, true, 90, 60}},
	 PROBE_ADVICE_NOT_ALLOCATOR, 0, 1, 2, 2, NAN},
	/* A skipped remedy is never the best. */
	{"skipped arm ignored", 4,
	 {{PROBE_ROLE_VARYING, true, 99, 0}, {PROBE_ROLE_FIXED, true, 50, 0},
	  {PROBE_ROLE_ALLOCATOR, false, 0, 0},
	  {PROBE_ROLE_ARENA_MAX, true, 33, 0}},
	 PROBE_ADVICE_ALLOCATOR, 0, 1, 3, 3, 3},
	/* 60 <= 1.5 x 50 + 2, no growth: no more than one size keeps. */
	{"about what one size keeps", 3,
	 {{PROBE_ROLE_VARYING, true, 60, 0}, {PROBE_ROLE_FIXED, true, 50, 0},
	  {PROBE_ROLE_TRIM, true, 1, 0}},
	 PROBE_ADVICE_NOT_ALLOCATOR, 0, 1, 3, 3, NAN},
	/* Varying gives back (kept 5 <= 22): not the allocator. */
	{"varying gives back", 2,
	 {{PROBE_ROLE_FIXED, true, 1, 0}, {PROBE_ROLE_VARYING, true, 5, 0}},
	 PROBE_ADVICE_NOT_ALLOCATOR, 1, 0, 2, 2, NAN},
	/* No fixed arm: varying's own growth decides. */
	{"no fixed arm, grows", 1, {{PROBE_ROLE_VARYING, true, 99, 40}},
	 PROBE_ADVICE_ALLOCATOR, 0, 1, 1, 1, NAN},
	{"no fixed arm, flat", 1, {{PROBE_ROLE_VARYING, true, 99, 0}},
	 PROBE_ADVICE_NOT_ALLOCATOR, 0, 1, 1, 1, NAN},
	{"varying skipped", 2,
	 {{PROBE_ROLE_VARYING, false, 0, 0}, {PROBE_ROLE_FIXED, true, 50, 0}},
	 PROBE_ADVICE_NONE, 2, 1, 2, 2, NAN},
};

static void build(const struct set_row *r, struct probe_arm_readings *a,
		  double (*rounds)[2])
{
	static const char *const names[] = {
		[PROBE_ROLE_VARYING] = "glibc varying",
		[PROBE_ROLE_FIXED] = "glibc fixed",
		[PROBE_ROLE_CAPPED] = "glibc capped",
		[PROBE_ROLE_TRIM] = "glibc trim",
		[PROBE_ROLE_ARENA_MAX] = "glibc arena_max=2",
		[PROBE_ROLE_ALLOCATOR] = "jemalloc varying",
	};
	for (size_t i = 0; i < r->n; i++) {
		const struct set_arm *s = &r->arms[i];
		rounds[i][0] = (s->kept + 1 - s->growth) * MiB;
		rounds[i][1] = (s->kept + 1) * MiB;
		a[i] = (struct probe_arm_readings){
			.name = names[s->role], .role = s->role,
			.preload = s->role == PROBE_ROLE_ALLOCATOR ?
				   "/usr/lib/libjemalloc.so.2" : NULL,
			.ran = s->ran, .skipped = s->ran ? NULL : "absent",
			.baseline = 1 * MiB, .rounds = rounds[i],
			.n_rounds = s->ran ? 2 : 0, .idle = (s->kept + 1) * MiB,
			.cap = s->role == PROBE_ROLE_CAPPED ? 64 * MiB : NAN,
			.work = 80 * MiB,
		};
	}
}

static void test_advice(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(set_rows); i++) {
		const struct set_row *r = &set_rows[i];
		struct probe_arm_readings a[MAXA];
		double rounds[MAXA][2];
		struct probe_arm_finding f[MAXA];
		struct probe_advice ad;
		build(r, a, rounds);
		probe_compare(a, r->n, f, &ad);
		print_message("%s: kind %d best %zu ratio %g\n", r->what,
			      ad.kind, ad.best, ad.kept_ratio);
		assert_int_equal(ad.kind, r->kind);
		assert_int_equal(ad.varying, r->varying);
		assert_int_equal(ad.fixed, r->fixed);
		if (r->kind == PROBE_ADVICE_ALLOCATOR) {
			assert_int_equal(ad.best, r->best);
			assert_int_equal(ad.best_setting, r->best_setting);
		}
		if (isnan(r->ratio))
			assert_true(isnan(ad.kept_ratio));
		else
			assert_true(fabs(ad.kept_ratio - r->ratio) < 1e-9);
	}
}

/* The words of the first set: every remedy with what it kept, the least
 * and how to apply it. */
static void test_advice_words(void **state)
{
	(void)state;
	struct probe_arm_readings a[MAXA];
	double rounds[MAXA][2];
	struct probe_arm_finding f[MAXA];
	struct probe_advice ad;
	build(&set_rows[0], a, rounds);
	probe_compare(a, set_rows[0].n, f, &ad);
	struct probe_report rep = {.arms = a, .findings = f,
				   .n = set_rows[0].n, .advice = &ad};
	char *s = render_probe_advice(&rep);
	print_message("%s\n", s);
	assert_string_equal(s,
		"glibc kept 99.0 MiB of freed varying-size buffers (one "
		"size: 50.0 MiB); malloc_trim(0) after each round kept "
		"1.0 MiB; MALLOC_ARENA_MAX=2 kept 40.0 MiB; jemalloc kept "
		"20.0 MiB. Least: malloc_trim(0) after each round (99.0x "
		"less): call malloc_trim(0) after bursts of work; without a "
		"code change: start the service with "
		"LD_PRELOAD=/usr/lib/libjemalloc.so.2 (kept 20.0 MiB); then "
		"record the service again.");
	free(s);
	build(&set_rows[4], a, rounds);
	probe_compare(a, set_rows[4].n, f, &ad);
	rep.n = set_rows[4].n;
	s = render_probe_advice(&rep);
	assert_non_null(strstr(s, "glibc kept 60.0 MiB of freed varying-size "
			       "buffers, about what one size keeps (50.0 "
			       "MiB)"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arms),
		cmocka_unit_test(test_advice),
		cmocka_unit_test(test_advice_words),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
