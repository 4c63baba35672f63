/*
 * test_prom_plan.c - the batches of report --prometheus
 * (remote/prom_plan.c): tables of listed series (label sets) and a batch
 * size -> the batches expected, each its matchers (what is added to the
 * query's braces) and the series it holds, in order.
 *
 * Every expected batch below is worked out by hand from the rule in
 * prom_plan.h, step by step in each case's comment: while a set exceeds
 * the batch, take the allowed label with the most distinct values, sort
 * by it, pack whole values into `label=~"v1|v2"` while they fit, and cut
 * a value whose series alone exceed the batch by `label="v"` and another
 * label. The cases avoid ties between labels (broken by a hash's slot
 * order, which a test should not fix).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prom_plan.h"

#define MAX_LABELS 4
#define MAX_SERIES 8
#define MAX_BATCHES 6
#define END SIZE_MAX

/* A series: name, value, name, value, ..., NULL. */
struct row {
	const char *l[2 * MAX_LABELS + 1];
};

struct want {
	const char *matchers;
	size_t members[MAX_SERIES + 1];  /* ascending, END-terminated */
};

struct plan_case {
	const char *what;
	struct row series[MAX_SERIES];
	size_t n;
	size_t max_series;
	const char *by[2];
	size_t n_by;
	size_t matcher_max;
	struct want batches[MAX_BATCHES];
	size_t n_batches;
};

static const struct plan_case cases[] = {
	{
		/* Fits: one batch, the query as it is (""), every series. */
		"fits in one batch",
		{{{"instance", "h0", NULL}}, {{"instance", "h1", NULL}}},
		2, 2, {NULL}, 0, 16384,
		{{"", {0, 1, END}}},
		1,
	},
	{
		/* One label with many values: instance has 5, job and
		 * __name__ one each (never chosen: a cut needs more than
		 * one value). Sorted h0..h4, packs of 2: h0|h1, h2|h3, h4. */
		"one label with many values; labels with one value",
		{{{"__name__", "m", "instance", "h0", "job", "j", NULL}},
		 {{"__name__", "m", "instance", "h1", "job", "j", NULL}},
		 {{"__name__", "m", "instance", "h2", "job", "j", NULL}},
		 {{"__name__", "m", "instance", "h3", "job", "j", NULL}},
		 {{"__name__", "m", "instance", "h4", "job", "j", NULL}}},
		5, 2, {NULL}, 0, 16384,
		{{"instance=~\"h0|h1\"", {0, 1, END}},
		 {"instance=~\"h2|h3\"", {2, 3, END}},
		 {"instance=~\"h4\"", {4, END}}},
		3,
	},
	{
		/* A value whose series exceed a batch: node has 4 values
		 * (a, b, c, d), pod 3 (p1, p2, p3): node cuts. Sorted: a
		 * (s3) starts a pack; b has 3 series > 2, so it is cut at
		 * once by `node="b"` and then by pod (the only label left
		 * with more than one value): p1|p2 (s0, s1), p3 (s2); the
		 * pack goes on with c (s4): a|c holds 2; d (s5) would
		 * make 3 > 2: a|c is a batch, then d alone. */
		"a value whose series exceed a batch",
		{{{"node", "b", "pod", "p1", NULL}},
		 {{"node", "b", "pod", "p2", NULL}},
		 {{"node", "b", "pod", "p3", NULL}},
		 {{"node", "a", "pod", "p1", NULL}},
		 {{"node", "c", "pod", "p1", NULL}},
		 {{"node", "d", "pod", "p1", NULL}}},
		6, 2, {NULL}, 0, 16384,
		{{"node=\"b\", pod=~\"p1|p2\"", {0, 1, END}},
		 {"node=\"b\", pod=~\"p3\"", {2, END}},
		 {"node=~\"a|c\"", {3, 4, END}},
		 {"node=~\"d\"", {5, END}}},
		4,
	},
	{
		/* Escaping, batch of 1: path has 4 values, each a batch,
		 * in strcmp order a"b < c\d < e<LF>f < g.h. In =~ a value
		 * is RE2-escaped (\ -> \\, . -> \.; " and LF are not RE2
		 * specials), then quoted as a PromQL string (\ -> \\,
		 * " -> \", LF -> \n):
		 *   a"b  -> a"b   -> a\"b
		 *   c\d  -> c\\d  -> c\\\\d
		 *   e<LF>f -> e<LF>f -> e\nf
		 *   g.h  -> g\.h  -> g\\.h */
		"escaping in =~",
		{{{"path", "a\"b", NULL}}, {{"path", "c\\d", NULL}},
		 {{"path", "e\nf", NULL}}, {{"path", "g.h", NULL}}},
		4, 1, {NULL}, 0, 16384,
		{{"path=~\"a\\\"b\"", {0, END}},
		 {"path=~\"c\\\\\\\\d\"", {1, END}},
		 {"path=~\"e\\nf\"", {2, END}},
		 {"path=~\"g\\\\.h\"", {3, END}}},
		4,
	},
	{
		/* Escaping in = (quoted only, no RE2 escape): path has 3
		 * values (w, x"y, z), other 2: path cuts. w (s3) starts a
		 * pack; x"y has 2 series > 1: `path="x\"y"`, then cut by
		 * other: 1 (s0), 2 (s1); z (s2) would make the pack 2 > 1:
		 * w is a batch, then z. */
		"escaping in =",
		{{{"other", "1", "path", "x\"y", NULL}},
		 {{"other", "2", "path", "x\"y", NULL}},
		 {{"other", "1", "path", "z", NULL}},
		 {{"other", "1", "path", "w", NULL}}},
		4, 1, {NULL}, 0, 16384,
		{{"path=\"x\\\"y\", other=~\"1\"", {0, END}},
		 {"path=\"x\\\"y\", other=~\"2\"", {1, END}},
		 {"path=~\"w\"", {3, END}},
		 {"path=~\"z\"", {2, END}}},
		4,
	},
	{
		/* A series without the label has the value "" (as in
		 * PromQL), selected by the empty alternative: pod takes
		 * "", p1, p2 (3 values), job "x", "" (2). "" sorts first. */
		"a series that lacks the label",
		{{{"pod", "p1", NULL}}, {{"pod", "p2", NULL}},
		 {{"job", "x", NULL}}},
		3, 1, {NULL}, 0, 16384,
		{{"pod=~\"\"", {2, END}},
		 {"pod=~\"p1\"", {0, END}},
		 {"pod=~\"p2\"", {1, END}}},
		3,
	},
	{
		/* The alternation's bound: 4 instances, batches of 3, at
		 * most 6 bytes of alternation: "h0" (2) + "|h1" (3) = 5;
		 * adding "|h2" would make 8 > 6, so h0|h1 is a batch
		 * though a third series would fit; then h2|h3. */
		"the matcher's length bound",
		{{{"instance", "h0", NULL}}, {{"instance", "h1", NULL}},
		 {{"instance", "h2", NULL}}, {{"instance", "h3", NULL}}},
		4, 3, {NULL}, 0, 6,
		{{"instance=~\"h0|h1\"", {0, 1, END}},
		 {"instance=~\"h2|h3\"", {2, 3, END}}},
		2,
	},
	{
		/* Labels excluded from batching (--by app): pod has 5
		 * values but only app may cut, so that an app's series
		 * stay in one batch: a (2 series) fills a batch of 2, b
		 * (1) cannot join c (2): a, b, c. */
		"--by: only its labels cut",
		{{{"app", "a", "pod", "a1", NULL}},
		 {{"app", "a", "pod", "a2", NULL}},
		 {{"app", "b", "pod", "b1", NULL}},
		 {{"app", "c", "pod", "c1", NULL}},
		 {{"app", "c", "pod", "c2", NULL}}},
		5, 2, {"app"}, 1, 16384,
		{{"app=~\"a\"", {0, 1, END}},
		 {"app=~\"b\"", {2, END}},
		 {"app=~\"c\"", {3, 4, END}}},
		3,
	},
	{
		/* The same series without --by: pod (5 values) cuts,
		 * sorted a1, a2, b1, c1, c2 in packs of 2 (an app's
		 * series may part). */
		"without --by: the label with most values cuts",
		{{{"app", "a", "pod", "a1", NULL}},
		 {{"app", "a", "pod", "a2", NULL}},
		 {{"app", "b", "pod", "b1", NULL}},
		 {{"app", "c", "pod", "c1", NULL}},
		 {{"app", "c", "pod", "c2", NULL}}},
		5, 2, {NULL}, 0, 16384,
		{{"pod=~\"a1|a2\"", {0, 1, END}},
		 {"pod=~\"b1|c1\"", {2, 3, END}},
		 {"pod=~\"c2\"", {4, END}}},
		3,
	},
	{
		/* One --by group larger than a batch: app has one value,
		 * pod may not cut: one batch of 3 > 2, the query as it
		 * is (a target's incarnations are fetched together). */
		"a --by group larger than a batch",
		{{{"app", "a", "pod", "a1", NULL}},
		 {{"app", "a", "pod", "a2", NULL}},
		 {{"app", "a", "pod", "a3", NULL}}},
		3, 2, {"app"}, 1, 16384,
		{{"", {0, 1, 2, END}}},
		1,
	},
};

static void sets_of(const struct plan_case *c, struct prom_lset *sets)
{
	for (size_t i = 0; i < c->n; i++) {
		struct prom_label l[MAX_LABELS];
		size_t nl = 0;
		for (const char *const *p = c->series[i].l; *p; p += 2) {
			assert_true(nl < MAX_LABELS);
			l[nl].name = p[0];
			l[nl].value = p[1];
			nl++;
		}
		prom_lset_copy(&sets[i], l, nl);
	}
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t ci = 0; ci < sizeof(cases) / sizeof(cases[0]); ci++) {
		const struct plan_case *c = &cases[ci];
		struct prom_lset sets[MAX_SERIES];
		sets_of(c, sets);
		struct prom_plan p = {0};
		prom_plan_make(&p, sets, c->n, c->max_series, c->by, c->n_by,
			       c->matcher_max);
		print_message("case: %s\n", c->what);
		for (size_t b = 0; b < p.n; b++)
			print_message("  got [%s] %zu series\n",
				      p.b[b].matchers, p.b[b].n);
		assert_int_equal(p.n, c->n_batches);
		size_t seen[MAX_SERIES] = {0};
		for (size_t b = 0; b < p.n; b++) {
			const struct want *w = &c->batches[b];
			assert_string_equal(p.b[b].matchers, w->matchers);
			size_t k = 0;
			for (; w->members[k] != END; k++) {
				assert_true(k < p.b[b].n);
				assert_int_equal(p.b[b].members[k],
						 w->members[k]);
				seen[w->members[k]]++;
			}
			assert_int_equal(p.b[b].n, k);
		}
		/* Every series in exactly one batch. */
		for (size_t i = 0; i < c->n; i++)
			assert_int_equal(seen[i], 1);
		prom_plan_release(&p);
		for (size_t i = 0; i < c->n; i++)
			prom_lset_release(&sets[i]);
	}
}

/* 1,000 series of 100 apps x 10 pods in batches of 64, --by app: every
 * series in one batch, every batch within 64, an app never split, and
 * the same plan twice (a pure function of the listing). */
static void test_many(void **state)
{
	(void)state;
	enum { N = 1000 };
	struct prom_lset *sets = calloc(N, sizeof(*sets));
	assert_non_null(sets);
	for (size_t i = 0; i < N; i++) {
		char app[16], pod[16];
		snprintf(app, sizeof(app), "app%zu", i / 10);
		snprintf(pod, sizeof(pod), "pod%zu", i);
		struct prom_label l[2] = {{"app", app}, {"pod", pod}};
		prom_lset_copy(&sets[i], l, 2);
	}
	const char *by[] = {"app"};
	struct prom_plan p = {0}, q = {0};
	prom_plan_make(&p, sets, N, 64, by, 1, 16384);
	prom_plan_make(&q, sets, N, 64, by, 1, 16384);
	static size_t batch_of[N];
	for (size_t i = 0; i < N; i++)
		batch_of[i] = SIZE_MAX;
	assert_int_equal(p.n, q.n);
	for (size_t b = 0; b < p.n; b++) {
		assert_true(p.b[b].n <= 64);
		assert_string_equal(p.b[b].matchers, q.b[b].matchers);
		for (size_t k = 0; k < p.b[b].n; k++) {
			assert_int_equal(batch_of[p.b[b].members[k]],
					 SIZE_MAX);
			batch_of[p.b[b].members[k]] = b;
		}
	}
	for (size_t i = 0; i < N; i++) {
		assert_int_not_equal(batch_of[i], SIZE_MAX);
		assert_int_equal(batch_of[i], batch_of[i / 10 * 10]);
	}
	/* 6 apps (60 series) fit 64, a seventh would not: ceil(100 / 6)
	 * = 17 batches. */
	assert_int_equal(p.n, 17);
	prom_plan_release(&p);
	prom_plan_release(&q);
	for (size_t i = 0; i < N; i++)
		prom_lset_release(&sets[i]);
	free(sets);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_many),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
