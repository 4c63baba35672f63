/*
 * test_prom_labels.c - label sets of report --prometheus
 * (remote/prom_labels.c) and the string tools under them (base/strmap.c):
 * a copy sorted by name, a value looked up ("" when absent, as in
 * PromQL), the `{a="x"}` form with PromQL's string escapes (a target's
 * name and the key that finds a series again), a filter on names, and
 * whether a work series' labels hold in a memory series'.
 *
 * Expected strings are written out by hand: prom_quote() escapes \ as
 * \\, " as \" and a newline as \n, and leaves everything else (tabs,
 * UTF-8) as it is.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "prom_labels.h"
#include "strmap.h"

static void test_copy_sorted(void **state)
{
	(void)state;
	/* Given out of order: the copy is sorted by name. */
	struct prom_label l[] = {{"pod", "p-1"}, {"__name__", "m_bytes"},
				 {"app", "a"}};
	struct prom_lset s;
	prom_lset_copy(&s, l, 3);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.l[0].name, "__name__");
	assert_string_equal(s.l[1].name, "app");
	assert_string_equal(s.l[2].name, "pod");
	assert_string_equal(prom_lset_get(&s, "pod"), "p-1");
	assert_string_equal(prom_lset_get(&s, "app"), "a");
	assert_string_equal(prom_lset_get(&s, "__name__"), "m_bytes");
	assert_string_equal(prom_lset_get(&s, "zone"), "");
	assert_string_equal(prom_lset_get(&s, "aaa"), "");
	/* The copy owns its strings. */
	assert_true(s.l[1].value != l[2].value);
	char *f = prom_labels_format(s.l, s.n, NULL, NULL);
	assert_string_equal(f, "{__name__=\"m_bytes\",app=\"a\",pod=\"p-1\"}");
	free(f);
	prom_lset_release(&s);
	assert_int_equal(s.n, 0);
	/* An empty set. */
	prom_lset_copy(&s, NULL, 0);
	assert_string_equal(prom_lset_get(&s, "x"), "");
	f = prom_labels_format(s.l, s.n, NULL, NULL);
	assert_string_equal(f, "{}");
	free(f);
	prom_lset_release(&s);
}

static void test_format_escapes(void **state)
{
	(void)state;
	/* A quote, a backslash, a newline; a tab and UTF-8 stay as they
	 * are. Label order is the caller's (here not sorted). */
	struct prom_label l[] = {
		{"q", "say \"hi\""},
		{"b", "C:\\dir\\"},
		{"n", "two\nlines"},
		{"t", "tab\there"},
		{"u", "caf\xc3\xa9"},
		{"e", ""},
	};
	char *f = prom_labels_format(l, 6, NULL, NULL);
	assert_string_equal(f,
		"{q=\"say \\\"hi\\\"\",b=\"C:\\\\dir\\\\\",n=\"two\\nlines\","
		"t=\"tab\there\",u=\"caf\xc3\xa9\",e=\"\"}");
	free(f);
}

static bool not_name(const char *name, const void *arg)
{
	(void)arg;
	return strcmp(name, "__name__") != 0;
}

static bool only(const char *name, const void *arg)
{
	return !strcmp(name, arg);
}

static void test_format_filter(void **state)
{
	(void)state;
	struct prom_label l[] = {{"__name__", "m_bytes"}, {"app", "a"},
				 {"pod", "p"}};
	char *f = prom_labels_format(l, 3, not_name, NULL);
	assert_string_equal(f, "{app=\"a\",pod=\"p\"}");
	free(f);
	/* The first kept label gets no comma before it. */
	f = prom_labels_format(l, 3, only, "pod");
	assert_string_equal(f, "{pod=\"p\"}");
	free(f);
	f = prom_labels_format(l, 3, only, "none");
	assert_string_equal(f, "{}");
	free(f);
}

static void test_holds(void **state)
{
	(void)state;
	struct prom_label ml[] = {{"__name__", "mem_bytes"}, {"pod", "p1"},
				  {"container", "c"}};
	struct prom_label w1[] = {{"pod", "p1"}};
	struct prom_label w2[] = {{"__name__", "reqs"}, {"pod", "p1"}};
	struct prom_label w3[] = {{"pod", "p2"}};
	struct prom_label w4[] = {{"pod", "p1"}, {"zone", "z"}};
	struct prom_label w5[] = {{"pod", "p1"}, {"zone", ""}};
	struct prom_lset m, a, b, c, d, e, none;
	prom_lset_copy(&m, ml, 3);
	prom_lset_copy(&a, w1, 1);
	prom_lset_copy(&b, w2, 2);
	prom_lset_copy(&c, w3, 1);
	prom_lset_copy(&d, w4, 2);
	prom_lset_copy(&e, w5, 2);
	prom_lset_copy(&none, NULL, 0);
	assert_true(prom_lset_holds(&m, &a));     /* a subset */
	assert_true(prom_lset_holds(&m, &b));     /* __name__ ignored */
	assert_false(prom_lset_holds(&m, &c));    /* another value */
	assert_false(prom_lset_holds(&m, &d));    /* zone absent in m */
	assert_true(prom_lset_holds(&m, &e));     /* absent = "" */
	assert_true(prom_lset_holds(&m, &none));  /* nothing to hold */
	struct prom_lset *all[] = {&m, &a, &b, &c, &d, &e, &none};
	for (size_t i = 0; i < 7; i++)
		prom_lset_release(all[i]);
}

static void test_strmap(void **state)
{
	(void)state;
	struct strmap m = {0};
	assert_int_equal(strmap_get(&m, "x"), SIZE_MAX);
	/* Past the first growth (64 slots, half used at most). */
	char key[32];
	for (size_t i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "{k=\"%zu\"}", i);
		strmap_put(&m, key, i * 7);
	}
	assert_int_equal(m.n, 1000);
	assert_true(m.cap >= 2000);
	for (size_t i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "{k=\"%zu\"}", i);
		assert_int_equal(strmap_get(&m, key), i * 7);
	}
	assert_int_equal(strmap_get(&m, "{k=\"1000\"}"), SIZE_MAX);
	assert_int_equal(strmap_get(&m, ""), SIZE_MAX);
	strmap_release(&m);
	assert_int_equal(m.cap, 0);

	struct strbuf b = {0};
	strbuf_str(&b, "");
	assert_string_equal(b.s, "");
	strbuf_str(&b, "ab");
	strbuf_add(&b, "cdef", 2);
	assert_string_equal(b.s, "abcd");
	assert_int_equal(b.len, 4);
	free(b.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_sorted),
		cmocka_unit_test(test_format_escapes),
		cmocka_unit_test(test_format_filter),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_strmap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
