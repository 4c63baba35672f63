/*
 * test_prom_group.c - series into targets for report --prometheus
 * (remote/prom_group.c): with --by, the series with the same values of
 * its labels are adjacent and form one group; without, each series is
 * its own; a group's name is the labels its series share (__name__ only
 * when asked), an incarnation's the labels it does not share.
 *
 * The series (by index), written out by hand:
 *   0  __name__=m app=a pod=a-1
 *   1  __name__=m app=b pod=b-1
 *   2  __name__=m app=a pod=a-2
 *   3  __name__=m app=b pod=b-2 zone=z
 *   4  __name__=m pod=x          (no app: its value is "")
 *   5  __name__=m app=a pod=a-3
 * --by app: groups "" {4}, a {0,2,5}, b {1,3}, in that order ("" sorts
 * first). --by app,zone: ("","") {4}, (a,"") {0,2,5}, (b,"") {1},
 * (b,z) {3}. The order inside a group is qsort's (not stable), so the
 * tests compare each group's members sorted.
 *
 * test_unshare: labels every target of a fleet has are left out of the
 * names and said once (a table: targets' labels, keep __name__, the
 * shared labels expected, each name expected; worked out by hand).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prom_group.h"
#include "series.h"

#define N 6
static struct prom_lset store[N];
static const struct prom_lset *sets[N];

static int setup(void **state)
{
	(void)state;
	static const char *rows[N][8] = {
		{"__name__", "m", "app", "a", "pod", "a-1", NULL},
		{"__name__", "m", "app", "b", "pod", "b-1", NULL},
		{"__name__", "m", "app", "a", "pod", "a-2", NULL},
		{"__name__", "m", "app", "b", "pod", "b-2", "zone", "z"},
		{"__name__", "m", "pod", "x", NULL},
		{"__name__", "m", "app", "a", "pod", "a-3", NULL},
	};
	for (size_t i = 0; i < N; i++) {
		struct prom_label l[4];
		size_t nl = 0;
		for (size_t k = 0; k < 8 && rows[i][k]; k += 2, nl++) {
			l[nl].name = rows[i][k];
			l[nl].value = rows[i][k + 1];
		}
		prom_lset_copy(&store[i], l, nl);
		sets[i] = &store[i];
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < N; i++)
		prom_lset_release(&store[i]);
	return 0;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

/* The groups of idx (all N series) as text: "4|0,2,5|1,3". */
static void groups_of(const char *const *by, size_t n_by, char *out,
		      size_t len)
{
	size_t idx[N];
	for (size_t i = 0; i < N; i++)
		idx[i] = i;
	prom_group_sort(idx, N, sets, by, n_by);
	out[0] = '\0';
	for (size_t i = 0; i < N;) {
		size_t j = i + prom_group_len(idx + i, N - i, sets, by, n_by);
		assert_true(j > i && j <= N);
		size_t m[N];
		memcpy(m, idx + i, (j - i) * sizeof(*m));
		qsort(m, j - i, sizeof(*m), cmp_size);
		if (i)
			strncat(out, "|", len - strlen(out) - 1);
		for (size_t k = 0; k < j - i; k++) {
			char b[24];
			snprintf(b, sizeof(b), k ? ",%zu" : "%zu", m[k]);
			strncat(out, b, len - strlen(out) - 1);
		}
		i = j;
	}
}

static void test_groups(void **state)
{
	(void)state;
	char g[128];
	const char *app[] = {"app"};
	groups_of(app, 1, g, sizeof(g));
	assert_string_equal(g, "4|0,2,5|1,3");
	const char *app_zone[] = {"app", "zone"};
	groups_of(app_zone, 2, g, sizeof(g));
	assert_string_equal(g, "4|0,2,5|1|3");
	/* Without --by: each series its own group, order untouched. */
	groups_of(NULL, 0, g, sizeof(g));
	assert_string_equal(g, "0|1|2|3|4|5");
	/* A label no series has: one group of all. */
	const char *none[] = {"nothing"};
	groups_of(none, 1, g, sizeof(g));
	assert_string_equal(g, "0,1,2,3,4,5");
}

static void test_names(void **state)
{
	(void)state;
	/* app=a: 0, 2, 5 share __name__ and app; pods differ. */
	size_t a[] = {2, 0, 5};
	struct prom_group ga = {sets, a, 3};
	assert_true(prom_group_common(&ga, "app"));
	assert_true(prom_group_common(&ga, "__name__"));
	assert_false(prom_group_common(&ga, "pod"));
	char *s = prom_group_name(&ga, false);
	assert_string_equal(s, "{app=\"a\"}");
	free(s);
	s = prom_group_name(&ga, true);  /* several metric names */
	assert_string_equal(s, "{__name__=\"m\",app=\"a\"}");
	free(s);
	s = prom_group_member_name(&ga, 0);  /* members[0] = series 2 */
	assert_string_equal(s, "{pod=\"a-2\"}");
	free(s);
	/* app=b: zone only in 3, so not shared: 3's incarnation is named
	 * by pod and zone; the target by app alone. The name does not
	 * depend on which member comes first. */
	size_t b1[] = {1, 3}, b2[] = {3, 1};
	struct prom_group gb1 = {sets, b1, 2}, gb2 = {sets, b2, 2};
	assert_false(prom_group_common(&gb1, "zone"));
	assert_false(prom_group_common(&gb2, "zone"));
	s = prom_group_name(&gb1, false);
	assert_string_equal(s, "{app=\"b\"}");
	free(s);
	s = prom_group_name(&gb2, false);
	assert_string_equal(s, "{app=\"b\"}");
	free(s);
	s = prom_group_member_name(&gb1, 1);
	assert_string_equal(s, "{pod=\"b-2\",zone=\"z\"}");
	free(s);
	s = prom_group_member_name(&gb1, 0);
	assert_string_equal(s, "{pod=\"b-1\"}");
	free(s);
	/* One series: every label shared; its incarnation name empty. */
	size_t x[] = {4};
	struct prom_group gx = {sets, x, 1};
	s = prom_group_name(&gx, false);
	assert_string_equal(s, "{pod=\"x\"}");
	free(s);
	s = prom_group_member_name(&gx, 0);
	assert_string_equal(s, "{}");
	free(s);
}

#define UNSHARE_MAX 4
static const struct unshare_case {
	const char *labels[UNSHARE_MAX]; /* "a=x b=y", NULL ends */
	bool keep_name;
	const char *shared;              /* NULL: none, names untouched */
	const char *names[UNSHARE_MAX];
} unshare_cases[] = {
	/* namespace and job repeat; container tells them apart */
	{{"job=k namespace=llm container=a", "job=k namespace=llm container=b",
	  NULL}, false, "{job=\"k\",namespace=\"llm\"}",
	 {"{container=\"a\"}", "{container=\"b\"}"}},
	/* __name__ is never among the shared; kept only when asked */
	{{"__name__=m i=1 j=x", "__name__=m i=2 j=x", NULL}, false,
	 "{j=\"x\"}", {"{i=\"1\"}", "{i=\"2\"}"}},
	{{"__name__=m i=1 j=x", "__name__=n i=2 j=x", NULL}, true,
	 "{j=\"x\"}", {"{__name__=\"m\",i=\"1\"}",
			 "{__name__=\"n\",i=\"2\"}"}},
	/* the same label with different values is not shared */
	{{"i=1 j=x", "i=2 j=y", NULL}, false, NULL,
	 {"{i=\"1\",j=\"x\"}", "{i=\"2\",j=\"y\"}"}},
	/* a label one target lacks is not shared */
	{{"i=1 j=x", "i=2", "i=3 j=x", NULL}, false, NULL,
	 {"{i=\"1\",j=\"x\"}", "{i=\"2\"}", "{i=\"3\",j=\"x\"}"}},
	/* a target whose labels are all shared: the full names stay */
	{{"j=x", "i=2 j=x", NULL}, false, NULL,
	 {"{j=\"x\"}", "{i=\"2\",j=\"x\"}"}},
	/* one target: nothing to compare with */
	{{"i=1 j=x", NULL}, false, NULL, {"{i=\"1\",j=\"x\"}"}},
	/* values escaped as in the names */
	{{"q=a\"b i=1", "q=a\"b i=2", NULL}, false, "{q=\"a\\\"b\"}",
	 {"{i=\"1\"}", "{i=\"2\"}"}},
};

/* A target as fleet_run.c builds it: labels added, named in full. */
static struct series *unshare_target(const char *spec)
{
	struct series *t = calloc(1, sizeof(*t));
	assert_non_null(t);
	series_init(t, "");
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", spec);
	struct prom_label l[8];
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
		char *eq = strchr(tok, '=');
		assert_non_null(eq);
		*eq = 0;
		assert_true(t->n_labels < 8);
		series_add_label(t, tok, eq + 1);
	}
	for (size_t k = 0; k < t->n_labels; k++)
		l[k] = (struct prom_label){t->labels[k].name,
					   t->labels[k].value};
	free(t->name);
	t->name = prom_labels_format(l, t->n_labels, NULL, NULL);
	return t;
}

static void test_unshare(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(unshare_cases) / sizeof(*unshare_cases);
	     c++) {
		const struct unshare_case *uc = &unshare_cases[c];
		struct series *t[UNSHARE_MAX];
		size_t n = 0;
		while (n < UNSHARE_MAX && uc->labels[n]) {
			t[n] = unshare_target(uc->labels[n]);
			n++;
		}
		char *shared = prom_targets_unshare(t, n, uc->keep_name);
		if (uc->shared) {
			assert_non_null(shared);
			assert_string_equal(shared, uc->shared);
		} else {
			assert_null(shared);
		}
		free(shared);
		for (size_t i = 0; i < n; i++) {
			assert_string_equal(t[i]->name, uc->names[i]);
			series_release(t[i]);
			free(t[i]);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_unshare),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
