/*
 * test_rank.c - the order of a report's targets (rank.h) as a table: each
 * row a few targets' keys (verdict, exhaustion time, slope, footprint,
 * name) given in some order, and the names in the order the report must
 * show them, worst first. Then the order must not depend on the input's
 * order (every rotation and the reversal of each row give the same
 * names), and rank_key_of() must read the right findings.
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
#include "rank.h"

#define MiB (1024.0 * 1024.0)
#define H 3600.0
#define MAXT 8

#define G VERDICT_GROWING
#define P VERDICT_PLATEAU
#define I VERDICT_INCONCLUSIVE
#define S VERDICT_STABLE

/* name, verdict, exhaustion (s; NAN none), slope (B/h; NAN none),
 * last footprint (B; NAN none). */
#define K(n, v, eta, slope, fp) \
	{.name = (n), .verdict = (v), .eta_s = (eta), .slope_bph = (slope), \
	 .footprint = (fp)}
/* ... with the slope of concern (B/h) and whether the growth was found
 * immaterial (docs/verdicts.md, "Materiality"). */
#define KC(n, v, eta, slope, fp, concern, imm) \
	{.name = (n), .verdict = (v), .eta_s = (eta), .slope_bph = (slope), \
	 .footprint = (fp), .concern_bph = (concern), .immaterial = (imm)}
#define KiB 1024.0
#define D (24 * H)

static const struct row {
	const char *what;
	size_t n;
	struct rank_key in[MAXT];
	const char *want[MAXT];
} rows[] = {
	{"verdict classes: growing, plateau, inconclusive, stable", 4,
	 {K("s", S, NAN, 0, 10 * MiB), K("i", I, NAN, 1 * MiB, 10 * MiB),
	  K("p", P, NAN, 5 * MiB, 10 * MiB), K("g", G, 30 * H, 1 * MiB,
					       10 * MiB)},
	 {"g", "p", "i", "s"}},
	{"a steep stable or inconclusive never outranks a plateau", 3,
	 {K("i", I, NAN, 900 * MiB, 1e9), K("s", S, NAN, 800 * MiB, 1e9),
	  K("p", P, NAN, 0, 1)},
	 {"p", "i", "s"}},
	{"growing: the earliest exhaustion first, not the steepest", 3,
	 {K("fast-late", G, 40 * H, 100 * MiB, 1e9),
	  K("slow-soon", G, 2 * H, 1 * MiB, 60e9),
	  K("mid", G, 10 * H, 50 * MiB, 5e9)},
	 {"slow-soon", "mid", "fast-late"}},
	{"growing without exhaustion (no limit) after those with one", 3,
	 {K("nolimit", G, NAN, 900 * MiB, 1e9),
	  K("late", G, 1000 * H, 1 * MiB, 1e9),
	  K("soon", G, 1 * H, 1 * MiB, 1e9)},
	 {"soon", "late", "nolimit"}},
	{"growing, equal exhaustion: the steeper first", 2,
	 {K("b", G, 5 * H, 1 * MiB, 1e9), K("a", G, 5 * H, 2 * MiB, 1e9)},
	 {"a", "b"}},
	{"growing, both without exhaustion: by slope", 2,
	 {K("slow", G, NAN, 1 * MiB, 1e9), K("fast", G, NAN, 3 * MiB, 1e9)},
	 {"fast", "slow"}},
	{"plateau: exhaustion ignored, the steeper first", 2,
	 {K("flat", P, 1 * H, 0, 1e9), K("rising", P, NAN, 2 * MiB, 1e9)},
	 {"rising", "flat"}},
	{"inconclusive: steeper first; no slope last", 3,
	 {K("none", I, NAN, NAN, 1e9), K("neg", I, NAN, -5 * MiB, 1e9),
	  K("pos", I, NAN, 5 * MiB, 1e9)},
	 {"pos", "neg", "none"}},
	{"stable: equal slopes, the larger footprint first", 3,
	 {K("small", S, NAN, 0, 1 * MiB), K("big", S, NAN, 0, 9 * MiB),
	  K("nofp", S, NAN, 0, NAN)},
	 {"big", "small", "nofp"}},
	{"all else equal: by name (bytes), NULL as empty", 4,
	 {K("b", S, NAN, 0, 1), K("B", S, NAN, 0, 1), K(NULL, S, NAN, 0, 1),
	  K("a", S, NAN, 0, 1)},
	 {NULL, "B", "a", "b"}},
	{"one target", 1, {K("only", I, NAN, NAN, NAN)}, {"only"}},
	/* Issue 28. */
	{"inconclusive: growth that could matter before immaterial growth, "
	 "however steep the latter", 3,
	 {KC("trivial", I, NAN, 900 * KiB, 10.8 * MiB, 34 * MiB, true),
	  KC("unseen", I, NAN, 0, 1 * MiB, 34 * MiB, false),
	  KC("cron", I, NAN, NAN, 1 * MiB, NAN, false)},
	 {"unseen", "cron", "trivial"}},
	{"growing, no exhaustion: by growth relative to the concern, not by "
	 "bytes per hour", 3,
	 {KC("big-box", G, NAN, 100 * MiB, 8e9, 4096 * MiB, false),
	  KC("near-concern", G, NAN, 40 * MiB, 1e9, 34 * MiB, false),
	  KC("half", G, NAN, 30 * MiB, 1e9, 60 * MiB, false)},
	 {"near-concern", "half", "big-box"}},
	{"growing: exhaustion first, then relative growth", 3,
	 {KC("soon-slow", G, 2 * H, 1 * MiB, 1e9, 34 * MiB, false),
	  KC("steep-no-limit", G, NAN, 900 * MiB, 1e9, 34 * MiB, false),
	  KC("later", G, 5 * D, 50 * MiB, 1e9, 34 * MiB, false)},
	 {"soon-slow", "later", "steep-no-limit"}},
	{"inconclusive: equal relative growth, the steeper slope first", 2,
	 {KC("a", I, NAN, 1 * MiB, 1e9, 10 * MiB, false),
	  KC("b", I, NAN, 2 * MiB, 1e9, 20 * MiB, false)},
	 {"b", "a"}},
	/* The H200 of issue 28 after the verdicts of materiality: bash's
	 * 320 -> 328 KiB is stable (immaterial), below the inference
	 * server (growing, the device fills in 16 min), the cache
	 * (plateau at 3 GiB) and the 2.9 GiB steady one; the VM's
	 * 80-second targets growing under 1 MiB/h are inconclusive
	 * (too short to call stable) and immaterial: after an
	 * inconclusive one that could still be a leak. */
	{"issue 28's hosts", 8,
	 {KC("bash", S, NAN, 0, 328 * KiB, 179 * MiB, true),
	  KC("vm-a", I, NAN, 847 * KiB, 10.8 * MiB, 34.1 * MiB, true),
	  KC("infer", G, 16 * 60, 7.2e4 * MiB, 60e9, 8 * 1024 * MiB, false),
	  KC("steady", S, NAN, 0, 2.9 * 1024 * MiB, 179 * MiB, false),
	  KC("vm-b", I, NAN, 600 * KiB, 30 * MiB, 34.1 * MiB, true),
	  KC("cache", P, NAN, 0, 3 * 1024 * MiB, 179 * MiB, false),
	  KC("new", I, NAN, 0, 2 * MiB, 34.1 * MiB, false),
	  KC("grower", G, NAN, 7.7e3 * MiB, 3e9, 179 * MiB, false)},
	 {"infer", "grower", "cache", "new", "vm-a", "vm-b", "steady",
	  "bash"}},
	{"a mixed host", 6,
	 {K("sshd", S, NAN, 0, 2 * MiB), K("cache", P, NAN, 0, 800 * MiB),
	  K("api", G, 72 * H, 20 * MiB, 2e9), K("db", I, NAN, 3 * MiB, 4e9),
	  K("worker", G, 6 * H, 200 * MiB, 3e9),
	  K("cron", I, NAN, NAN, 1 * MiB)},
	 {"worker", "api", "cache", "db", "cron", "sshd"}},
};

static bool same_name(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

static void check(const struct row *r, const struct rank_key *in,
		  const char *how)
{
	size_t order[MAXT];
	rank_keys(in, r->n, order);
	for (size_t i = 0; i < r->n; i++) {
		const char *got = in[order[i]].name;
		if (!same_name(got, r->want[i]))
			fail_msg("%s (%s): rank %zu is %s, expected %s", r->what,
				 how, i + 1, got ? got : "(null)",
				 r->want[i] ? r->want[i] : "(null)");
	}
}

static void test_table(void **state)
{
	(void)state;
	for (size_t ri = 0; ri < sizeof(rows) / sizeof(rows[0]); ri++) {
		const struct row *r = &rows[ri];
		struct rank_key in[MAXT];
		check(r, r->in, "as given");
		/* Whatever the input order: every rotation, reversed too. */
		for (size_t rot = 1; rot < r->n; rot++) {
			for (size_t i = 0; i < r->n; i++)
				in[i] = r->in[(i + rot) % r->n];
			check(r, in, "rotated");
		}
		for (size_t i = 0; i < r->n; i++)
			in[i] = r->in[r->n - 1 - i];
		check(r, in, "reversed");
	}
}

/* The comparator is a total order: antisymmetric, 0 only for a key and
 * itself (the index breaks the last tie). */
static void test_compare_total(void **state)
{
	(void)state;
	const struct row *r = &rows[sizeof(rows) / sizeof(rows[0]) - 1];
	struct rank_key k[MAXT];
	for (size_t i = 0; i < r->n; i++) {
		k[i] = r->in[i];
		k[i].index = i;
	}
	struct rank_key twin = k[0];
	twin.index = 99;
	assert_true(rank_compare(&k[0], &twin) < 0);
	assert_true(rank_compare(&twin, &k[0]) > 0);
	for (size_t i = 0; i < r->n; i++)
		for (size_t j = 0; j < r->n; j++) {
			int a = rank_compare(&k[i], &k[j]);
			int b = rank_compare(&k[j], &k[i]);
			assert_int_equal(a, -b);
			assert_true((a == 0) == (i == j));
		}
	assert_int_equal(rank_verdict_class(VERDICT_GROWING), 0);
	assert_int_equal(rank_verdict_class(VERDICT_PLATEAU), 1);
	assert_int_equal(rank_verdict_class(VERDICT_INCONCLUSIVE), 2);
	assert_int_equal(rank_verdict_class(VERDICT_STABLE), 3);
}

/* rank_key_of() reads the verdict, the exhaustion time only when found,
 * the slope only with a trend, the last footprint and the series' name;
 * rank_targets() orders findings as rank_keys() orders their keys. */
static void test_from_findings(void **state)
{
	(void)state;
	struct series s[3] = {0};
	s[0].name = (char *)"steady";
	s[1].name = (char *)"leak";
	s[2].name = (char *)"cache";
	struct target_findings f[3] = {0};
	for (int i = 0; i < 3; i++) {
		f[i].series = &s[i];
		f[i].slope = SLOPE_NONE;
		f[i].fp_last = 10 * MiB;
		f[i].exhaustion.eta_s = 5 * H;  /* ignored unless found */
	}
	f[0].verdict = VERDICT_STABLE;
	f[0].has_trend = true;
	f[0].slope.estimate = 0;
	f[1].verdict = VERDICT_GROWING;
	f[1].has_trend = true;
	f[1].slope.estimate = 50 * MiB;
	f[1].exhaustion.found = true;
	f[2].verdict = VERDICT_PLATEAU;
	f[2].slope.estimate = 7 * MiB;  /* no trend: not read */

	struct rank_key k;
	rank_key_of(&f[1], 1, &k);
	assert_int_equal(k.verdict, VERDICT_GROWING);
	assert_true(k.eta_s == 5 * H);
	assert_true(k.slope_bph == 50 * MiB);
	assert_true(k.footprint == 10 * MiB);
	assert_string_equal(k.name, "leak");
	assert_int_equal(k.index, 1);
	assert_false(k.immaterial);
	rank_key_of(&f[2], 2, &k);
	assert_true(isnan(k.eta_s));
	assert_true(isnan(k.slope_bph));
	f[0].immaterial = true;
	f[0].concern_bph = 34 * MiB;
	rank_key_of(&f[0], 0, &k);
	assert_true(k.immaterial);
	assert_true(k.concern_bph == 34 * MiB);

	size_t order[3];
	rank_targets(f, 3, order);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[1], 2);
	assert_int_equal(order[2], 0);
	rank_targets(f, 0, order);  /* nothing to order: nothing written */
}

/* Names shared by two targets are flagged (both of them, not a third
 * with another name); the pid is the latest incarnation's. By hand. */
static void test_shared_names(void **state)
{
	(void)state;
	struct series s[4];
	const char *names[] = {"sleep", "api", "sleep", "worker"};
	struct target_findings f[4];
	memset(f, 0, sizeof(f));
	for (int i = 0; i < 4; i++) {
		series_init(&s[i], names[i]);
		f[i].series = &s[i];
	}
	series_add_incarnation(&s[0], 100, 1, 0, "sleep", "sleep 30");
	series_add_incarnation(&s[0], 200, 2, 0, "sleep", "sleep 30");
	series_add_incarnation(&s[2], 300, 3, 0, "sleep", "sleep 30");
	bool *shared = rank_shared_names(f, 4);
	assert_true(shared[0]);
	assert_false(shared[1]);
	assert_true(shared[2]);
	assert_false(shared[3]);
	free(shared);
	assert_int_equal(rank_target_pid(&f[0]), 200);
	assert_int_equal(rank_target_pid(&f[2]), 300);
	assert_int_equal(rank_target_pid(&f[1]), -1);  /* no incarnation */
	shared = rank_shared_names(f, 0);
	free(shared);
	for (int i = 0; i < 4; i++)
		series_release(&s[i]);
}

/* A group of one process all its life is that process, listed once
 * (dataset_fold_lone_groups, issue 28); groups of two, a group whose
 * member was replaced, one that differs by a reading, stay. */
static void add_points(struct series *s, uint32_t inc, double t0, size_t n,
		       double fp, double bump_at)
{
	for (size_t i = 0; i < n; i++)
		series_append(s, t0 + (double)i, fp + (t0 + (double)i ==
						       bump_at ? 4096 : 0),
			      inc);
}

static void test_lone_groups(void **state)
{
	(void)state;
	struct dataset d;
	dataset_init(&d, "x.db");
	struct series *s;
	/* 0: sshd; 1: its unit, sshd alone */
	s = dataset_add_target(&d, "sshd");
	series_add_incarnation(s, 700, 70, 0, "sshd", NULL);
	add_points(s, 0, 100, 20, 5 * MiB, NAN);
	s = dataset_add_target(&d, "unit=ssh.service (group)");
	s->group = true;
	series_add_incarnation(s, 700, 70, 0, "sshd", NULL);
	add_points(s, 0, 100, 20, 5 * MiB, NAN);
	/* 2, 3: two workers; 4: their unit, the sum */
	s = dataset_add_target(&d, "worker");
	series_add_incarnation(s, 801, 81, 0, "worker", NULL);
	add_points(s, 0, 100, 20, 1 * MiB, NAN);
	s = dataset_add_target(&d, "worker");
	series_add_incarnation(s, 802, 82, 0, "worker", NULL);
	add_points(s, 0, 100, 20, 1 * MiB, NAN);
	s = dataset_add_target(&d, "unit=api.service (group)");
	s->group = true;
	series_add_incarnation(s, 801, 81, 0, "worker", NULL);
	add_points(s, 0, 100, 20, 2 * MiB, NAN);
	/* 5: cron's unit, a member that ended and a new one (two
	 * incarnations), each its own process target (6, 7) */
	s = dataset_add_target(&d, "unit=cron.service (group)");
	s->group = true;
	series_add_incarnation(s, 900, 90, 0, "cron", NULL);
	series_add_incarnation(s, 901, 91, 0, "cron", NULL);
	add_points(s, 0, 100, 10, 1 * MiB, NAN);
	add_points(s, 1, 110, 10, 1 * MiB, NAN);
	s = dataset_add_target(&d, "cron");
	series_add_incarnation(s, 900, 90, 0, "cron", NULL);
	add_points(s, 0, 100, 10, 1 * MiB, NAN);
	s = dataset_add_target(&d, "cron");
	series_add_incarnation(s, 901, 91, 0, "cron", NULL);
	add_points(s, 0, 110, 10, 1 * MiB, NAN);
	/* 8: a group that read one page more once than its one process
	 * (9): not the same readings, kept */
	s = dataset_add_target(&d, "unit=odd.service (group)");
	s->group = true;
	series_add_incarnation(s, 950, 95, 0, "odd", NULL);
	add_points(s, 0, 100, 20, 3 * MiB, 110);
	s = dataset_add_target(&d, "odd");
	series_add_incarnation(s, 950, 95, 0, "odd", NULL);
	add_points(s, 0, 100, 20, 3 * MiB, NAN);

	assert_int_equal(dataset_fold_lone_groups(&d), 1);
	static const char *const want[] = {
		"sshd", "worker", "worker", "unit=api.service (group)",
		"unit=cron.service (group)", "cron", "cron",
		"unit=odd.service (group)", "odd"};
	assert_int_equal(d.n_targets, 9);
	for (size_t i = 0; i < d.n_targets; i++)
		assert_string_equal(d.targets[i].name, want[i]);
	assert_int_equal(dataset_fold_lone_groups(&d), 0);  /* idempotent */
	dataset_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_compare_total),
		cmocka_unit_test(test_from_findings),
		cmocka_unit_test(test_shared_names),
		cmocka_unit_test(test_lone_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
