/*
 * test_openmetrics.c - openmetrics.c: selectors (good ones, bad ones and
 * their messages), inline expositions as a table (body, selector ->
 * status, sum, series, part of the message), the realistic fixtures in
 * $FIXTURES/openmetrics (vLLM, TGI, llama.cpp as they write /metrics, and
 * an OpenMetrics 1.0 body), edge cases of size (long lines, many labels,
 * a large body), and a seeded mutation fuzzer.
 *
 * Every body is handed over in a heap buffer of exactly its length, with
 * no NUL after it, so the sanitizer build catches any read past len.
 */
#include <locale.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "openmetrics.h"

#define OK OPENMETRICS_OK
#define NOT_FOUND OPENMETRICS_NOT_FOUND
#define PARSE_ERROR OPENMETRICS_PARSE_ERROR

static void assert_contains(const char *text, const char *part)
{
	if (!strstr(text, part)) {
		print_error("expected '%s' in: '%s'\n", part, text);
		fail();
	}
}

static struct openmetrics_selector *selector(const char *text)
{
	struct openmetrics_selector *sel = NULL;
	char err[256];
	if (openmetrics_selector_parse(text, &sel, err, sizeof(err)) != 0) {
		print_error("selector '%s': %s\n", text, err);
		fail();
	}
	return sel;
}

static void *must_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

/* A copy of [p, p + n) on the heap with nothing after it. */
static char *exact_copy(const void *p, size_t n)
{
	char *b = must_malloc(n);
	if (n)
		memcpy(b, p, n);
	return b;
}

/* openmetrics_sum on an exact heap copy; checks the err contract. */
static int sum_exact(const struct openmetrics_selector *sel, const char *body,
		     size_t len, double *sum, size_t *matched, char *err,
		     size_t errlen)
{
	char *copy = exact_copy(body, len);
	int rc = openmetrics_sum(sel, copy, len, sum, matched, err, errlen);
	free(copy);
	assert_non_null(memchr(err, '\0', errlen));
	if (rc == OK)
		assert_string_equal(err, "");
	else
		assert_true(err[0] != '\0');
	if (rc == PARSE_ERROR)
		assert_true(strncmp(err, "line ", 5) == 0);
	return rc;
}

static const char *status_name(int rc)
{
	return rc == OK ? "OK" : rc == NOT_FOUND ? "NOT_FOUND"
		: rc == PARSE_ERROR ? "PARSE_ERROR" : "?";
}

/* sum equal, including infinities; relative 1e-12 for float noise. */
static bool same_sum(double got, double want)
{
	if (isinf(want) || isinf(got))
		return got == want;
	return fabs(got - want) <= fabs(want) * 1e-12;
}

struct sum_case {
	const char *what;
	const char *body;
	size_t len;              /* 0: strlen(body) */
	const char *selector;
	int status;
	double sum;              /* when OK */
	size_t matched;          /* when OK */
	const char *err_part;    /* part of the message, when not OK */
};

static void check_case(const struct sum_case *c, const char *body,
		       size_t len)
{
	struct openmetrics_selector *sel = selector(c->selector);
	double sum = -12345;
	size_t matched = 12345;
	char err[512];
	memset(err, 'X', sizeof(err));
	int rc = sum_exact(sel, body, len, &sum, &matched, err, sizeof(err));
	openmetrics_selector_free(sel);
	if (rc != c->status) {
		print_error("%s: %s on '%s': got %s (%s), want %s\n", c->what,
			    c->selector, body, status_name(rc), err,
			    status_name(c->status));
		fail();
	}
	if (rc == OK) {
		if (!same_sum(sum, c->sum) || matched != c->matched) {
			print_error("%s: sum %.17g over %zu series, want %.17g over %zu\n",
				    c->what, sum, matched, c->sum, c->matched);
			fail();
		}
		assert_false(isnan(sum));
	} else {
		assert_true(sum == -12345 && matched == 12345);
		if (c->err_part)
			assert_contains(err, c->err_part);
	}
}

#define X_BODY "x{code=\"200\"} 1\nx{code=\"500\"} 2\nx{code=\"200\",model=\"b\"} 4\n"
#define ESC_BODY "x{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\",t=\"\\t\"} 9\n"

static const struct sum_case sum_cases[] = {
	/* Metadata, comments, blanks. */
	{ "help, type, comments", "# HELP foo Some help, with \\n and \\\\.\n"
	  "# TYPE foo counter\n# a comment\n#no space\n\n  \nfoo 42\n",
	  0, "foo", OK, 42, 1, NULL },
	{ "no metadata", "foo 1\nbar 2\n", 0, "foo", OK, 1, 1, NULL },
	{ "blanks and tabs", "  \tfoo \t 7 \t\n", 0, "foo", OK, 7, 1, NULL },
	{ "bare # HELP is a comment", "# HELP\n# TYPE\nfoo 1\n", 0, "foo", OK,
	  1, 1, NULL },
	{ "# UNIT", "# TYPE foo_seconds gauge\n# UNIT foo_seconds seconds\n"
	  "foo_seconds 2.5\n", 0, "foo_seconds", OK, 2.5, 1, NULL },
	/* Values. */
	{ "exponent", "foo 1.5e+06\n", 0, "foo", OK, 1.5e6, 1, NULL },
	{ "negative exponent", "foo -2.5E-3\n", 0, "foo", OK, -2.5e-3, 1, NULL },
	{ "three-digit exponent", "foo 8.3924590592e+010\n", 0, "foo", OK,
	  8.3924590592e10, 1, NULL },
	{ "leading dot", "a .5\nb 5.\n", 0, "a", OK, 0.5, 1, NULL },
	{ "trailing dot", "a .5\nb 5.\n", 0, "b", OK, 5, 1, NULL },
	{ "plus sign", "a +3\n", 0, "a", OK, 3, 1, NULL },
	{ "+Inf", "foo +Inf\n", 0, "foo", OK, INFINITY, 1, NULL },
	{ "inf lower case", "foo inf\n", 0, "foo", OK, INFINITY, 1, NULL },
	{ "-Infinity", "foo -Infinity\n", 0, "foo", OK, -INFINITY, 1, NULL },
	{ "Inf plus a number", "foo{a=\"1\"} 3\nfoo{a=\"2\"} +Inf\n", 0, "foo",
	  OK, INFINITY, 2, NULL },
	{ "NaN selected", "# TYPE foo counter\nfoo NaN\n", 0, "foo",
	  PARSE_ERROR, 0, 0, "line 2: value of a selected series of 'foo' is NaN" },
	{ "nan selected, any case", "foo 1\nfoo{a=\"b\"} nAn\n", 0, "foo",
	  PARSE_ERROR, 0, 0, "line 2: " },
	{ "NaN in another metric", "foo 1\nbar nan\nbar NAN\n", 0, "foo", OK,
	  1, 1, NULL },
	{ "NaN in a series not selected", "foo{a=\"x\"} NaN\nfoo{a=\"y\"} 2\n",
	  0, "foo{a=\"y\"}", OK, 2, 1, NULL },
	{ "NaN only in the unused _total", "# TYPE foo counter\nfoo 2\n"
	  "foo_total NaN\n", 0, "foo", OK, 2, 1, NULL },
	{ "+Inf and -Inf", "foo{a=\"1\"} +Inf\nfoo{a=\"2\"} 1\nfoo{a=\"3\"} -Inf\n",
	  0, "foo", PARSE_ERROR, 0, 0, "line 3: value of a selected series of 'foo' is infinite" },
	{ "+NaN", "foo +NaN\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "line 1: cannot read '+NaN' as the value at column 5" },
	{ "Infinit", "foo Infinit\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "cannot read 'Infinit' as the value" },
	{ "hex float", "x 1\nfoo 0x1p3\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "line 2: cannot read '0x1p3' as the value" },
	{ "underscore", "foo 1_000\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "line 1: cannot read '1_000'" },
	{ "out of range", "foo 1e400\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "line 1: the value '1e400' is out of range" },
	{ "tiny is zero", "foo 1e-400\n", 0, "foo", OK, 0, 1, NULL },
	{ "bare exponent", "foo 1e\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "cannot read '1e'" },
	{ "bad number", "x 1\ny 12,5\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 2: cannot read '12,5' as the value at column 3" },
	/* Timestamps. */
	{ "timestamp in ms", "foo 3 1746065040000\n", 0, "foo", OK, 3, 1, NULL },
	{ "negative timestamp", "foo 3 -1000\n", 0, "foo", OK, 3, 1, NULL },
	{ "timestamp in float seconds", "foo 3 1746065040.250\n", 0, "foo", OK,
	  3, 1, NULL },
	{ "timestamp with exponent", "foo 3 1.7e9\n", 0, "foo", OK, 3, 1, NULL },
	{ "bad timestamp", "foo 3 12ab\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "line 1: cannot read '12ab' as the timestamp at column 7" },
	{ "infinite timestamp", "foo 3 +Inf\n", 0, "foo", PARSE_ERROR, 0, 0,
	  "as the timestamp" },
	{ "text after the timestamp", "foo 3 100 200\n", 0, "foo", PARSE_ERROR,
	  0, 0, "line 1: unexpected '200' after the timestamp" },
	/* Exemplars. */
	{ "exemplar", "# TYPE foo counter\nfoo_total 5 # {trace_id=\"abc\"} 1.0 1.6e9\n",
	  0, "foo", OK, 5, 1, NULL },
	{ "exemplar after a timestamp", "foo_total 5 1746065040.5 # {a=\"b\"} 2\n",
	  0, "foo_total", OK, 5, 1, NULL },
	{ "exemplar with empty labels", "foo 5 #{} 2\n", 0, "foo", OK, 5, 1,
	  NULL },
	{ "exemplar without labels", "foo 5 # trace\n", 0, "foo", PARSE_ERROR,
	  0, 0, "line 1: expected '{' to open an exemplar's labels" },
	{ "exemplar without value", "foo 5 # {a=\"b\"}\n", 0, "foo",
	  PARSE_ERROR, 0, 0, "missing the exemplar's value" },
	{ "exemplar with a bad value", "foo 5 # {a=\"b\"} x\n", 0, "foo",
	  PARSE_ERROR, 0, 0, "cannot read 'x' as the exemplar's value" },
	{ "exemplar with extra text", "foo 5 # {a=\"b\"} 1 2 3\n", 0, "foo",
	  PARSE_ERROR, 0, 0, "unexpected '3' after the exemplar" },
	/* The name rule. */
	{ "OpenMetrics counter family", "# TYPE foo counter\n"
	  "foo_total{a=\"x\"} 5\nfoo_created{a=\"x\"} 1.7e9\n", 0, "foo", OK,
	  5, 1, NULL },
	{ "family named with _total", "# TYPE foo_total counter\nfoo_total 5\n"
	  "# TYPE foo_created gauge\nfoo_created 1.7e9\n", 0, "foo", OK, 5, 1,
	  NULL },
	{ "_total by its full name", "# TYPE foo_total counter\nfoo_total 5\n"
	  "# TYPE foo_created gauge\nfoo_created 1.7e9\n", 0, "foo_total", OK,
	  5, 1, NULL },
	{ "OpenMetrics _total by its full name", "# TYPE foo counter\n"
	  "foo_total 5\nfoo_created 1.7e9\n# EOF\n", 0, "foo_total", OK, 5, 1,
	  NULL },
	{ "undeclared _total is not guessed", "foo_total 5\n", 0, "foo",
	  NOT_FOUND, 0, 0, "no sample named 'foo'; there are 1 series of 'foo_total'" },
	{ "_total of a gauge family", "# TYPE foo gauge\nfoo_total 5\n", 0,
	  "foo", NOT_FOUND, 0, 0, "select 'foo_total'" },
	{ "exact name wins over _total", "# TYPE foo counter\nfoo 2\nfoo_total 5\n",
	  0, "foo", OK, 2, 1, NULL },
	{ "_created never counts", "# TYPE foo counter\nfoo_created 1.7e9\n", 0,
	  "foo", NOT_FOUND, 0, 0, "no sample named 'foo' or 'foo_total'" },
	{ "_created by its full name", "# TYPE foo counter\nfoo_total 1\n"
	  "foo_created 1.7e9\n", 0, "foo_created", OK, 1.7e9, 1, NULL },
	{ "other suffixes never count", "# TYPE foo histogram\nfoo_bucket{le=\"+Inf\"} 3\n"
	  "foo_count 3\nfoo_sum 1.5\n", 0, "foo", NOT_FOUND, 0, 0,
	  "no sample named 'foo'" },
	{ "prefix is not a match", "foobar 1\nfo 2\n", 0, "foo", NOT_FOUND, 0, 0,
	  "no sample named 'foo'" },
	/* Labels. */
	{ "all series summed", X_BODY, 0, "x", OK, 7, 3, NULL },
	{ "equal, extra labels", X_BODY, 0, "x{code=\"200\"}", OK, 5, 2, NULL },
	{ "two matchers", X_BODY, 0, "x{code=\"200\",model=\"b\"}", OK, 4, 1, NULL },
	{ "not equal", X_BODY, 0, "x{code!=\"200\"}", OK, 2, 1, NULL },
	{ "regex", X_BODY, 0, "x{code=~\"2..\"}", OK, 5, 2, NULL },
	{ "regex is anchored at the end", X_BODY, 0, "x{code=~\"2\"}",
	  NOT_FOUND, 0, 0, "3 series of 'x', none with labels matching {code=~\"2\"}" },
	{ "regex is anchored at the start", X_BODY, 0, "x{code=~\"0+\"}",
	  NOT_FOUND, 0, 0, "3 series of 'x'" },
	{ "regex alternation, anchored", X_BODY, 0, "x{code=~\"20|200|5\"}", OK,
	  5, 2, NULL },
	{ "negative regex", X_BODY, 0, "x{code!~\"5.*\"}", OK, 5, 2, NULL },
	{ "negative regex, anchored", X_BODY, 0, "x{code!~\"5\"}", OK, 7, 3, NULL },
	{ "empty matcher selects the missing label", X_BODY, 0,
	  "x{model=\"\"}", OK, 3, 2, NULL },
	{ "not empty", X_BODY, 0, "x{model!=\"\"}", OK, 4, 1, NULL },
	{ ".* selects every series", X_BODY, 0, "x{model=~\".*\"}", OK, 7, 3,
	  NULL },
	{ ".+ needs the label", X_BODY, 0, "x{model=~\".+\"}", OK, 4, 1, NULL },
	{ "missing label is not equal to a value", X_BODY, 0,
	  "x{model!=\"b\"}", OK, 3, 2, NULL },
	{ "matchers on one label", X_BODY, 0,
	  "x{code=~\"[0-9]+\",code!=\"500\"}", OK, 5, 2, NULL },
	{ "empty value is a missing label", "x{a=\"\"} 1\nx 2\nx{a=\"z\"} 4\n", 0,
	  "x{a=\"\"}", OK, 3, 2, NULL },
	{ "label names are case-sensitive", X_BODY, 0, "x{Code=\"200\"}",
	  NOT_FOUND, 0, 0, "none with labels" },
	{ "escaped backslash", ESC_BODY, 0, "x{path=\"C:\\\\dir\"}", OK, 9, 1,
	  NULL },
	{ "escaped quotes", ESC_BODY, 0, "x{q=\"say \\\"hi\\\"\"}", OK, 9, 1,
	  NULL },
	{ "escaped newline", ESC_BODY, 0, "x{nl=\"a\\nb\"}", OK, 9, 1, NULL },
	{ "other escapes stay as written", ESC_BODY, 0, "x{t=\"\\\\t\"}", OK, 9,
	  1, NULL },
	{ "escaped value is not the raw text", ESC_BODY, 0, "x{nl=\"a\\\\nb\"}",
	  NOT_FOUND, 0, 0, "none with labels" },
	{ "regex on an escaped value", ESC_BODY, 0,
	  "x{q=~\"say .hi.\",path=~\"C:.dir\",nl=~\"a.b\"}", OK, 9, 1, NULL },
	{ "regex on an escaped value, not matching", ESC_BODY, 0,
	  "x{q=~\"say hi\"}", NOT_FOUND, 0, 0, NULL },
	{ "single-quoted selector value", X_BODY, 0, "x{code='500'}", OK, 2, 1,
	  NULL },
	{ "blanks in the label set, trailing comma",
	  "x { a = \"1\" , b=\"2\", } 5\n", 0, "x{b=\"2\"}", OK, 5, 1, NULL },
	{ "empty label set", "x{} 5\n", 0, "x", OK, 5, 1, NULL },
	{ "no blank after '}'", "x{a=\"1\"}5\n", 0, "x", OK, 5, 1, NULL },
	{ "'}', ',' and '#' in values", "x{a=\"}\",b=\",\",c=\"# 1\"} 5\n", 0,
	  "x{a=\"}\",b=\",\",c=\"# 1\"}", OK, 5, 1, NULL },
	{ "colons in the metric name", "vllm:x_total{a=\"1\"} 5\n", 0,
	  "vllm:x_total", OK, 5, 1, NULL },
	/* Line ends and # EOF. */
	{ "CRLF", "# HELP x h\r\n# TYPE x counter\r\nx{a=\"1\"} 5\r\nx{a=\"2\"} 6\r\n",
	  0, "x", OK, 11, 2, NULL },
	{ "CRLF error line number", "x 1\r\n\r\nx{a=\"2} 6\r\n", 0, "x",
	  PARSE_ERROR, 0, 0, "line 3: unterminated value of label 'a' at column 5" },
	{ "no final newline", "x 5", 0, "x", OK, 5, 1, NULL },
	{ "# EOF", "# TYPE x counter\nx_total 5\n# EOF\n", 0, "x", OK, 5, 1,
	  NULL },
	{ "# EOF without newline", "x 5\n# EOF", 0, "x", OK, 5, 1, NULL },
	{ "blank lines after # EOF", "x 5\n# EOF\n\n\r\n", 0, "x", OK, 5, 1,
	  NULL },
	{ "text after # EOF", "x 5\n# EOF\nx 6\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 3: text after '# EOF' at column 1" },
	{ "# EOFX is a comment", "x 5\n# EOFX\nx{a=\"b\"} 6\n", 0, "x", OK, 11,
	  2, NULL },
	/* Not found. */
	{ "missing metric", "y 5\n", 0, "x", NOT_FOUND, 0, 0,
	  "no sample named 'x'" },
	{ "labels did not match", "x{a=\"1\"} 5\n", 0, "x{a=\"2\"}", NOT_FOUND,
	  0, 0, "1 series of 'x', none with labels matching {a=\"2\"}" },
	{ "empty body", "", 0, "x", NOT_FOUND, 0, 0, "no sample named 'x'" },
	{ "only comments", "# HELP x h\n# TYPE x counter\n", 0, "x", NOT_FOUND,
	  0, 0, "no sample named 'x' or 'x_total'" },
	/* Malformed lines: the whole scrape fails. */
	{ "unterminated label value", "x 1\nx{a=\"1} 5\n", 0, "x", PARSE_ERROR,
	  0, 0, "line 2: unterminated value of label 'a' at column 5" },
	{ "newline inside a label value", "x{a=\"1\n\"} 5\n", 0, "x",
	  PARSE_ERROR, 0, 0, "line 1: unterminated value of label 'a'" },
	{ "backslash before the end", "x 1\nx{a=\"1\\", 0, "x", PARSE_ERROR, 0,
	  0, "line 2: unterminated value of label 'a'" },
	{ "missing value after labels", "x 1\n\ny{a=\"b\"}\n", 0, "x",
	  PARSE_ERROR, 0, 0, "line 3: missing the value at column 9" },
	{ "missing value after name", "x 1\ny\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 2: missing the value at column 2" },
	{ "duplicate label", "x{a=\"1\",a=\"2\"} 5\n", 0, "x", PARSE_ERROR, 0,
	  0, "line 1: duplicate label 'a' at column 9" },
	{ "duplicate label in another metric", "x 1\ny{b=\"1\",c=\"\",b=\"1\"} 5\n",
	  0, "x", PARSE_ERROR, 0, 0, "line 2: duplicate label 'b'" },
	{ "garbage", "<html>oops</html>\n{{{", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: expected a metric name, found '<' at column 1" },
	{ "bad character in a name", "x-y 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: unexpected '-' in metric name at column 2" },
	{ "name starting with a digit", "x 1\n1x 1\n", 0, "x", PARSE_ERROR, 0,
	  0, "line 2: expected a metric name, found '1'" },
	{ "label name starting with a digit", "x{1a=\"b\"} 1\n", 0, "x",
	  PARSE_ERROR, 0, 0, "line 1: expected a label name, found '1' at column 3" },
	{ "colon in a label name", "x{a:b=\"c\"} 1\n", 0, "x", PARSE_ERROR, 0,
	  0, "expected '=' after label name 'a', found ':'" },
	{ "no '='", "x{a \"b\"} 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: expected '=' after label name 'a', found '\"' at column 5" },
	{ "unquoted label value", "x{a=b} 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "expected '\"' to open the value of label 'a', found 'b'" },
	{ "missing comma", "x{a=\"1\" b=\"2\"} 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "expected ',' or '}' after the value of label 'a', found 'b' at column 9" },
	{ "double comma", "x{a=\"1\",,} 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "expected a label name, found ','" },
	{ "label set not closed", "x{a=\"1\"\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: label set not closed with '}' at column 2" },
	{ "unknown type", "# TYPE x countr\nx 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: unknown metric type 'countr' at column 10" },
	{ "type in capitals", "# TYPE x COUNTER\nx 1\n", 0, "x", PARSE_ERROR,
	  0, 0, "unknown metric type 'COUNTER'" },
	{ "type missing", "# TYPE x\nx 1\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: missing the type after '# TYPE' 'x'" },
	{ "text after the type", "# TYPE x counter extra\n", 0, "x",
	  PARSE_ERROR, 0, 0, "unexpected 'extra' after the type" },
	{ "bad name in # HELP", "# HELP 1x help\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: bad metric name in '# HELP': found '1' at column 8" },
	{ "bad name in # TYPE", "# TYPE x.y counter\n", 0, "x", PARSE_ERROR, 0,
	  0, "bad metric name in '# TYPE': found '.'" },
	{ "a bad line after the metric", "x 5\ny{ 1\n", 0, "x", PARSE_ERROR, 0,
	  0, "line 2: expected a label name, found '1'" },
	{ "NUL byte", "x 5\n\0\n", 6, "x", PARSE_ERROR, 0, 0,
	  "line 2: expected a metric name, found byte 0x00 at column 1" },
	{ "NUL in a label value", "x{a=\"\0\"} 5\n", 11, "x", OK, 5, 1, NULL },
	{ "NUL inside a value a regex sees", "x{a=\"a\0b\"} 5\n", 13,
	  "x{a!~\"a\"}", OK, 5, 1, NULL },
	{ "NUL in a comment", "# \0\nx 5\n", 8, "x", OK, 5, 1, NULL },
	{ "stray CR", "x 5\r\r\n", 0, "x", PARSE_ERROR, 0, 0,
	  "line 1: cannot read '5\\x0d' as the value" },
};

static void test_sum_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sum_cases) / sizeof(sum_cases[0]); i++) {
		const struct sum_case *c = &sum_cases[i];
		size_t len = c->len ? c->len : strlen(c->body);
		check_case(c, c->body, len);
	}
}

/* ---- fixtures ---- */

static char *read_fixture(const char *name, size_t *len)
{
	char path[4096];
	const char *dir = getenv("FIXTURES");
	snprintf(path, sizeof(path), "%s/openmetrics/%s",
		 dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	if (!f) {
		print_error("cannot open %s\n", path);
		fail();
	}
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	char *buf = must_malloc((size_t)n);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

struct fixture_case {
	const char *file;
	const char *selector;
	int status;
	double sum;
	size_t matched;
	const char *err_part;
};

static const struct fixture_case fixture_cases[] = {
	/* vLLM (prometheus_client, text 0.0.4: family named with _total). */
	{ "vllm.prom", "vllm:request_success_total", OK, 4509, 3, NULL },
	{ "vllm.prom", "vllm:request_success", OK, 4509, 3, NULL },
	{ "vllm.prom", "vllm:request_success_total{finished_reason=\"stop\"}", OK,
	  4120, 1, NULL },
	{ "vllm.prom", "vllm:request_success_total{finished_reason!=\"abort\"}",
	  OK, 4497, 2, NULL },
	{ "vllm.prom", "vllm:request_success{finished_reason=~\"stop|length\","
	  "model_name=~\"meta-llama/.*\",engine=\"0\"}", OK, 4497, 2, NULL },
	{ "vllm.prom", "vllm:request_success_total{model_name=\"other\"}",
	  NOT_FOUND, 0, 0, "3 series of 'vllm:request_success_total'" },
	{ "vllm.prom", "vllm:request_success_created", OK,
	  1.7460650612117e+09 + 1.7460651022394e+09 + 1.7460652330001e+09, 3,
	  NULL },
	{ "vllm.prom", "vllm:prompt_tokens_total", OK, 1.9231e6, 1, NULL },
	{ "vllm.prom", "vllm:generation_tokens", OK, 503422, 1, NULL },
	{ "vllm.prom", "vllm:e2e_request_latency_seconds_count", OK, 4509, 1,
	  NULL },
	{ "vllm.prom", "vllm:e2e_request_latency_seconds", NOT_FOUND, 0, 0,
	  "no sample named 'vllm:e2e_request_latency_seconds'" },
	{ "vllm.prom", "process_virtual_memory_bytes", OK, 8.3924590592e10, 1,
	  NULL },
	{ "vllm.prom", "python_gc_objects_collected", OK, 15432, 3, NULL },
	{ "vllm.prom", "vllm:num_requests_running", OK, 3, 1, NULL },
	/* TGI (metrics-exporter-prometheus: no _total, blank lines). */
	{ "tgi.prom", "tgi_request_count", OK, 2718, 1, NULL },
	{ "tgi.prom", "tgi_request_failure", OK, 28, 2, NULL },
	{ "tgi.prom", "tgi_request_failure{err=\"validation\"}", OK, 21, 1, NULL },
	{ "tgi.prom", "tgi_request_count_total", NOT_FOUND, 0, 0,
	  "no sample named 'tgi_request_count_total'" },
	{ "tgi.prom", "tgi_request_duration_count", OK, 2690, 1, NULL },
	{ "tgi.prom", "tgi_request_duration{quantile=\"0.5\"}", OK,
	  1.6012393542735285, 1, NULL },
	/* llama.cpp server. */
	{ "llamacpp.prom", "llamacpp:tokens_predicted_total", OK, 129407, 1,
	  NULL },
	{ "llamacpp.prom", "llamacpp:tokens_predicted", OK, 129407, 1, NULL },
	{ "llamacpp.prom", "llamacpp:prompt_tokens_total", OK, 73811, 1, NULL },
	{ "llamacpp.prom", "llamacpp:kv_cache_usage_ratio", OK, 0.0771484, 1,
	  NULL },
	{ "llamacpp.prom", "llamacpp:requests_processing", OK, 1, 1, NULL },
	/* OpenMetrics 1.0. */
	{ "openmetrics.om", "test_requests", OK, 333, 3, NULL },
	{ "openmetrics.om", "test_requests_total", OK, 333, 3, NULL },
	{ "openmetrics.om", "test_requests_total{model=\"a\"}", OK, 33, 2, NULL },
	{ "openmetrics.om", "test_requests{code=\"200\"}", OK, 330, 2, NULL },
	{ "openmetrics.om", "test_requests_created", OK, 3 * 1.7460650405e+09, 3,
	  NULL },
	{ "openmetrics.om",
	  "test_info{path=\"C:\\\\srv\\\\\\\"test\\\"\\nnext\"}", OK, 1, 1,
	  NULL },
	{ "openmetrics.om", "test_latency_seconds_count", OK, 333, 1, NULL },
	{ "openmetrics.om", "test_latency_seconds", NOT_FOUND, 0, 0, NULL },
	{ "openmetrics.om", "test_temperature{sensor=\"gpu\"}", OK, INFINITY, 1,
	  NULL },
	{ "openmetrics.om", "test_temperature{sensor=\"inlet\"}", OK, -INFINITY,
	  1, NULL },
	{ "openmetrics.om", "test_temperature{sensor=\"outlet\"}", PARSE_ERROR,
	  0, 0, "line 26: value of a selected series of 'test_temperature' is NaN" },
	{ "openmetrics.om", "test_temperature{sensor=~\"inlet|gpu\"}",
	  PARSE_ERROR, 0, 0, "line 27: " },
};

static void test_fixtures(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixture_cases) / sizeof(fixture_cases[0]);
	     i++) {
		const struct fixture_case *f = &fixture_cases[i];
		size_t len;
		char *body = read_fixture(f->file, &len);
		struct sum_case c = { f->file, NULL, len, f->selector,
				      f->status, f->sum, f->matched,
				      f->err_part };
		check_case(&c, body, len);
		free(body);
	}
}

/* The fixtures with CRLF line ends read the same. */
static void test_fixtures_crlf(void **state)
{
	(void)state;
	size_t len;
	char *body = read_fixture("vllm.prom", &len);
	char *crlf = must_malloc(2 * len);
	size_t n = 0;
	for (size_t i = 0; i < len; i++) {
		if (body[i] == '\n')
			crlf[n++] = '\r';
		crlf[n++] = body[i];
	}
	struct sum_case c = { "vllm CRLF", NULL, n,
			      "vllm:request_success{finished_reason!=\"abort\"}",
			      OK, 4497, 2, NULL };
	check_case(&c, crlf, n);
	free(crlf);
	free(body);
}

/* ---- selectors ---- */

struct selector_good {
	const char *text;
	const char *metric;
};

static const struct selector_good selector_goods[] = {
	{ "foo", "foo" },
	{ "  foo  ", "foo" },
	{ "vllm:request_success_total{finished_reason=\"stop\"}",
	  "vllm:request_success_total" },
	{ "_x:y_1{}", "_x:y_1" },
	{ "foo{a=\"1\",}", "foo" },
	{ "foo { a = \"1\" , b != '2' }", "foo" },
	{ "foo{a='x',b!=\"y\",c=~\"a.*\",d!~\"b\"}", "foo" },
	{ "foo{a=\"\\\\\\\"\\n\\t\\r\\'\"}", "foo" },
	{ "foo{a=\"it's\",b='say \"hi\"'}", "foo" },
	{ "foo{a=~\"\"}", "foo" },
	{ "foo{a=~\"x\\\\\\\\1\"}", "foo" },  /* regex x\\1: no back-reference */
	{ "foo{a=~\"[\\\\1]\"}", "foo" },  /* [\1]: a bracket, no back-reference */
	{ "foo{a=~\"((a{10}){10}){10}\"}", "foo" },  /* 1000 copies */
	{ "foo{a=~\"(a+)*b?|c{2,}d{,3}[]*+]x\\\\*+\"}", "foo" },
};

static void test_selector_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(selector_goods) / sizeof(selector_goods[0]);
	     i++) {
		struct openmetrics_selector *sel = NULL;
		char err[256];
		memset(err, 'X', sizeof(err));
		int rc = openmetrics_selector_parse(selector_goods[i].text, &sel,
						    err, sizeof(err));
		if (rc != 0) {
			print_error("'%s': %s\n", selector_goods[i].text, err);
			fail();
		}
		assert_string_equal(err, "");
		assert_string_equal(openmetrics_selector_metric(sel),
				    selector_goods[i].metric);
		openmetrics_selector_free(sel);
	}
	openmetrics_selector_free(NULL);
}

struct selector_bad {
	const char *text;
	const char *message;     /* the whole message */
};

static const struct selector_bad selector_bads[] = {
	{ "", "expected a metric name, found the end at column 1" },
	{ "   ", "expected a metric name, found the end at column 4" },
	{ "1foo", "expected a metric name, found '1' at column 1" },
	{ "{a=\"1\"}", "expected a metric name, found '{' at column 1" },
	{ "foo{a=1}", "expected a quoted value after 'a=' at column 7" },
	{ "foo{a \"1\"}",
	  "expected '=', '!=', '=~' or '!~' after label name 'a' at column 7" },
	{ "foo{model_name~\"x\"}",
	  "expected '=', '!=', '=~' or '!~' after label name 'model_name' at column 15" },
	{ "foo{a=\"1\"", "'{' without a closing '}' at column 4" },
	{ "foo{a=\"1}", "unterminated value of label 'a' (no closing \") at column 7" },
	{ "foo{a=\"1\" b=\"2\"}",
	  "expected ',' or '}' after the value of label 'a', found 'b' at column 11" },
	{ "foo{a=\"1\",,}", "expected a label name, found ',' at column 11" },
	{ "foo{,}", "expected a label name, found ',' at column 5" },
	{ "foo{a=\"1\"}}", "unexpected '}' after the selector at column 11" },
	{ "foo bar", "unexpected 'b' after the selector at column 5" },
	{ "foo.bar", "unexpected '.' after the selector at column 4" },
	{ "foo{__name__=\"x\"}",
	  "name the metric before '{' instead of matching __name__ at column 5" },
	{ "foo{a=\"\\d\"}",
	  "unknown escape '\\' followed by 'd' in the value of label 'a' (write \\\\ for a backslash) at column 8" },
	{ "foo{a=~\"(x)\\\\1\"}",
	  "back-references are not supported in the regex of label 'a' at column 8" },
	{ "foo{a=~\"a**\"}",
	  "a repetition operator follows another in the regex of label 'a' at column 8" },
	{ "foo{a=~\"x+{2}\"}",
	  "a repetition operator follows another in the regex of label 'a' at column 8" },
	{ "foo{a=~\"((a{10}){10}){11}\"}",
	  "nested repetitions make more than 1000 copies in the regex of label 'a' at column 8" },
	{ "foo{b=\"\",a=~\"x{1001}\"}",
	  "nested repetitions make more than 1000 copies in the regex of label 'a' at column 13" },
	{ "foo{a=~\"(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((x)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))\"}",
	  "groups are nested too deeply in the regex of label 'a' at column 8" },
	{ "foo{a=~\"(\"}", NULL },  /* regerror's words: checked below */
};

static void test_selector_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(selector_bads) / sizeof(selector_bads[0]);
	     i++) {
		struct openmetrics_selector *sel = (void *)&sel;  /* untouched */
		char err[256];
		memset(err, 'X', sizeof(err));
		int rc = openmetrics_selector_parse(selector_bads[i].text, &sel,
						    err, sizeof(err));
		if (rc != -1) {
			print_error("'%s' parsed\n", selector_bads[i].text);
			fail();
		}
		assert_true(sel == (void *)&sel);
		assert_non_null(memchr(err, '\0', sizeof(err)));
		if (selector_bads[i].message)
			assert_string_equal(err, selector_bads[i].message);
		else
			assert_contains(err, "invalid regex for label 'a': ");
	}
	/* A short buffer still gets a terminated message; none is fine. */
	struct openmetrics_selector *sel = NULL;
	char err[8];
	assert_int_equal(openmetrics_selector_parse("1", &sel, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "expecte");
	assert_int_equal(openmetrics_selector_parse("1", &sel, NULL, 0), -1);
	assert_int_equal(openmetrics_selector_parse(NULL, &sel, err, sizeof(err)),
			 -1);
	assert_null(sel);
}

/* ---- sizes ---- */

/* A 16 MiB label value: equality works on it in place, a regex refuses
 * it (it would need a copy) rather than guess. */
static void test_long_lines(void **state)
{
	(void)state;
	const size_t big = 16u << 20;
	char *body = must_malloc(big + 64);
	size_t n = 0;
	n += (size_t)sprintf(body, "x{a=\"");
	memset(body + n, 'v', big);
	n += big;
	static const char tail[] = "\"} 1\nx{a=\"w\"} 2\n";
	memcpy(body + n, tail, sizeof(tail) - 1);
	n += sizeof(tail) - 1;
	char err[256];
	double sum;
	size_t matched;
	struct openmetrics_selector *sel = selector("x{a!=\"w\"}");
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), OK);
	assert_true(sum == 1 && matched == 1);
	openmetrics_selector_free(sel);

	sel = selector("x{a=~\"v*\"}");
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), PARSE_ERROR);
	assert_contains(err, "line 1: value of label 'a' is longer than 65536 bytes");
	openmetrics_selector_free(sel);

	/* Not selected by name: never reaches the regex. */
	sel = selector("y{a=~\"v*\"}");
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), NOT_FOUND);
	openmetrics_selector_free(sel);

	/* The same length of garbage with no line end at all. */
	memset(body, 'A', n);
	sel = selector("x");
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), PARSE_ERROR);
	char want[128];
	snprintf(want, sizeof(want), "line 1: missing the value at column %zu",
		 n + 1);
	assert_string_equal(err, want);
	memset(body, '\xff', n);
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), PARSE_ERROR);
	assert_string_equal(err,
			    "line 1: expected a metric name, found byte 0xff at column 1");
	openmetrics_selector_free(sel);
	free(body);
}

/* An escaped value just within and just past the regex scratch buffer. */
static void test_long_escaped_value(void **state)
{
	(void)state;
	size_t cap = OPENMETRICS_MAX_DECODED;
	char *body = must_malloc(2 * cap + 64);
	struct openmetrics_selector *sel = selector("x{a=~\"q*\\\"\"}");
	for (int extra = 0; extra <= 1; extra++) {
		size_t n = (size_t)sprintf(body, "x{a=\"");
		size_t qs = cap - 1 + (size_t)extra;  /* decoded: qs + 1 */
		memset(body + n, 'q', qs);
		n += qs;
		memcpy(body + n, "\\\"\"} 3\n", 7);
		n += 7;
		char err[256];
		double sum = 0;
		size_t matched = 0;
		int rc = sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err));
		if (extra == 0) {
			assert_int_equal(rc, OK);
			assert_true(sum == 3 && matched == 1);
		} else {
			assert_int_equal(rc, PARSE_ERROR);
			assert_contains(err, "longer than 65536 bytes");
		}
	}
	openmetrics_selector_free(sel);
	free(body);
}

static void test_many_labels(void **state)
{
	(void)state;
	char *body = must_malloc(64 * 1024);
	struct openmetrics_selector *sel = selector("x{l255=\"v\"}");
	for (int count = 256; count <= 257; count++) {
		size_t n = (size_t)sprintf(body, "x{");
		for (int i = 0; i < count; i++)
			n += (size_t)sprintf(body + n, "l%d=\"v\",", i);
		n += (size_t)sprintf(body + n, "} 4\n");
		char err[256];
		double sum = 0;
		size_t matched = 0;
		int rc = sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err));
		if (count == 256) {
			assert_int_equal(rc, OK);
			assert_true(sum == 4 && matched == 1);
		} else {
			assert_int_equal(rc, PARSE_ERROR);
			assert_contains(err, "line 1: more than 256 labels at column");
		}
	}
	openmetrics_selector_free(sel);
	free(body);
}

/* 100,000 series in 6 MB: the sum and count come out right. */
static void test_large_body(void **state)
{
	(void)state;
	const int series = 100000;
	size_t cap = (size_t)series * 64 + 128;
	char *body = must_malloc(cap);
	size_t n = (size_t)sprintf(body, "# HELP big_requests Many series.\n"
				   "# TYPE big_requests counter\n");
	double want = 0;
	for (int i = 0; i < series; i++) {
		n += (size_t)sprintf(body + n,
				     "big_requests_total{shard=\"%d\",odd=\"%d\"} %d\n",
				     i, i % 2, i);
		if (i % 2)
			want += i;
	}
	n += (size_t)sprintf(body + n, "# EOF\n");
	assert_true(n <= cap);
	struct openmetrics_selector *sel = selector("big_requests{odd=~\"1\"}");
	char err[256];
	double sum = 0;
	size_t matched = 0;
	assert_int_equal(sum_exact(sel, body, n, &sum, &matched, err,
				   sizeof(err)), OK);
	assert_true(sum == want);
	assert_int_equal(matched, series / 2);
	openmetrics_selector_free(sel);
	free(body);
}

/* A program that sets a locale with a decimal comma still reads "1.5". */
static void test_locale(void **state)
{
	(void)state;
	static const char *const names[] = { "de_DE.UTF-8", "de_DE.utf8",
					      "fr_FR.UTF-8", "fr_FR.utf8" };
	const char *set = NULL;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !set; i++)
		set = setlocale(LC_NUMERIC, names[i]);
	if (!set)
		skip();  /* no such locale installed here */
	struct openmetrics_selector *sel = selector("x");
	char err[256];
	double sum = 0;
	size_t matched = 0;
	int rc = sum_exact(sel, "x 1.5e3\n", 8, &sum, &matched, err,
			   sizeof(err));
	setlocale(LC_NUMERIC, "C");
	openmetrics_selector_free(sel);
	assert_int_equal(rc, OK);
	assert_true(sum == 1500);
}

/* err may be short or absent. */
static void test_short_err(void **state)
{
	(void)state;
	struct openmetrics_selector *sel = selector("x");
	double sum = 0;
	size_t matched = 0;
	char err[5];
	assert_int_equal(openmetrics_sum(sel, "y 1", 3, &sum, &matched, err,
					 sizeof(err)), NOT_FOUND);
	assert_string_equal(err, "no s");
	assert_int_equal(openmetrics_sum(sel, "x{", 2, &sum, &matched, NULL, 0),
			 PARSE_ERROR);
	assert_int_equal(openmetrics_sum(sel, NULL, 0, &sum, &matched, err,
					 sizeof(err)), NOT_FOUND);
	assert_int_equal(openmetrics_sum(sel, "x 2", 3, &sum, &matched, err,
					 sizeof(err)), OK);
	assert_string_equal(err, "");
	assert_true(sum == 2 && matched == 1);
	openmetrics_selector_free(sel);
}

/* ---- fuzzing ---- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static size_t rng_below(size_t n)
{
	return n ? (size_t)(rng() % n) : 0;
}

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Bytes the grammar cares about, to reach deeper than uniform noise. */
static const char interesting[] = "\"\\{}=,#  \t\n\r\0eE.+-NnIiaf0123456789_:~!";

static char pick_byte(void)
{
	if (rng() % 3)
		return interesting[rng_below(sizeof(interesting) - 1)];
	return (char)rng();
}

enum { FUZZ_MAX = 8192 };

/* One mutated body into out (FUZZ_MAX bytes), mostly from seed k;
 * returns its length. */
static size_t fuzz_body(char *out, char *const *seeds, const size_t *seed_len,
			size_t n_seeds, size_t k)
{
	size_t n = 0;
	unsigned mode = (unsigned)rng_below(16);
	if (mode == 0) {  /* noise */
		n = rng_below(512);
		bool biased = rng() & 1;
		for (size_t i = 0; i < n; i++)
			out[i] = biased ? pick_byte() : (char)rng();
		return n;
	}
	/* A window of whole lines of the seed (all of it, or a slice),
	 * sometimes with a slice of another seed spliced in. */
	for (int part = 0; part < (mode == 1 ? 2 : 1); part++) {
		if (part)
			k = rng_below(n_seeds);
		size_t len = seed_len[k];
		size_t from = rng() % 2 ? rng_below(len) : 0;
		while (from > 0 && seeds[k][from - 1] != '\n')
			from--;
		size_t to = rng() % 2 ? from + rng_below(len - from + 1) : len;
		if (rng() % 2)  /* end at a line end */
			while (to < len && seeds[k][to - (to > 0)] != '\n')
				to++;
		if (to - from > FUZZ_MAX / 2)
			to = from + FUZZ_MAX / 2;
		memcpy(out + n, seeds[k] + from, to - from);
		n += to - from;
	}
	/* Few edits, so that many bodies still parse and sum. */
	int edits = rng() % 4 ? (int)rng_below(3) : 1 + (int)rng_below(8);
	for (int i = 0; i < edits; i++) {
		size_t at = rng_below(n + 1);
		switch (rng_below(5)) {
		case 0:  /* overwrite */
			if (at < n)
				out[at] = pick_byte();
			break;
		case 1:  /* insert */
			if (n < FUZZ_MAX) {
				memmove(out + at + 1, out + at, n - at);
				out[at] = pick_byte();
				n++;
			}
			break;
		case 2: {  /* delete a run */
			size_t d = rng_below(16);
			if (at + d > n)
				d = n - at;
			memmove(out + at, out + at + d, n - at - d);
			n -= d;
			break;
		}
		case 3: {  /* duplicate a run */
			size_t d = rng_below(64);
			if (at + d > n)
				d = n - at;
			if (n + d <= FUZZ_MAX) {
				memmove(out + at + d, out + at, n - at);
				n += d;
			}
			break;
		}
		default:  /* flip a bit */
			if (at < n)
				out[at] ^= (char)(1u << rng_below(8));
			break;
		}
	}
	return n;
}

static void test_fuzz(void **state)
{
	(void)state;
	static const char *const files[] = { "vllm.prom", "tgi.prom",
					     "llamacpp.prom", "openmetrics.om" };
	enum { N_FILES = sizeof(files) / sizeof(files[0]) };
	char *seeds[N_FILES + 3];
	size_t seed_len[N_FILES + 3];
	size_t n_seeds = 0;
	for (size_t i = 0; i < N_FILES; i++, n_seeds++)
		seeds[n_seeds] = read_fixture(files[i], &seed_len[n_seeds]);
	static const char *const inline_seeds[] = { X_BODY, ESC_BODY,
		("# TYPE foo counter\nfoo_total{a=\"1\"} 5 1.6e9 # {t=\"x\"} 1 2\n"
		 "foo_created{a=\"1\"} 1.7e9\n# EOF\n") };
	for (size_t i = 0; i < 3; i++, n_seeds++) {
		seed_len[n_seeds] = strlen(inline_seeds[i]);
		seeds[n_seeds] = exact_copy(inline_seeds[i], seed_len[n_seeds]);
	}
	/* Selectors with the seed they read (index into seeds). */
	static const struct {
		size_t seed;
		const char *text;
	} sel_texts[] = {
		{ 0, "vllm:request_success" },
		{ 0, "vllm:request_success_total{finished_reason=~\"s.*\"}" },
		{ 0, "vllm:e2e_request_latency_seconds_bucket{le!=\"+Inf\"}" },
		{ 1, "tgi_request_failure{err!=\"x\"}" },
		{ 1, "tgi_request_count" },
		{ 2, "llamacpp:tokens_predicted" },
		{ 3, "test_requests{code=~\"2..\",model!~\"b\"}" },
		{ 3, "test_info{path=~\".*\"}" },
		{ 4, "x{code=\"200\"}" },
		{ 4, "x{model=\"\"}" },
		{ 5, "x{q=~\"say .*\",path!=\"\"}" },
		{ 6, "foo" },
	};
	enum { N_SELS = sizeof(sel_texts) / sizeof(sel_texts[0]) };
	struct openmetrics_selector *sels[N_SELS];
	for (size_t i = 0; i < N_SELS; i++)
		sels[i] = selector(sel_texts[i].text);

	rng_state = 0x6d656d7472656e64ull;  /* "memtrend" */
	char *work = must_malloc(FUZZ_MAX);
	const double deadline = monotonic() + 2.0;
	size_t counts[3] = { 0, 0, 0 };
	long iter;
	for (iter = 0; iter < 200000; iter++) {
		if ((iter & 255) == 0 && monotonic() > deadline)
			break;
		size_t which = rng_below(N_SELS);
		size_t n = fuzz_body(work, seeds, seed_len, n_seeds,
				     sel_texts[which].seed);
		char *body = exact_copy(work, n);
		const struct openmetrics_selector *sel = sels[which];
		char err[300];
		size_t errlen = rng() % 8 ? sizeof(err) : rng_below(12);
		memset(err, 'X', sizeof(err));
		double sum = -1;
		size_t matched = 0;
		int rc = openmetrics_sum(sel, body, n, &sum, &matched,
					 errlen ? err : NULL, errlen);
		free(body);
		if (rc != OK && rc != NOT_FOUND && rc != PARSE_ERROR) {
			print_error("iteration %ld: status %d\n", iter, rc);
			fail();
		}
		if (errlen)
			assert_non_null(memchr(err, '\0', errlen));
		assert_true(errlen == sizeof(err) || err[errlen] == 'X');
		if (rc == OK)
			assert_true(!isnan(sum) && matched >= 1);
		counts[rc == OK ? 0 : rc == NOT_FOUND ? 1 : 2]++;
	}
	print_message("fuzz: %ld iterations: %zu OK, %zu NOT_FOUND, %zu PARSE_ERROR\n",
		      iter, counts[0], counts[1], counts[2]);
	/* The mutations must reach all three outcomes. */
	assert_true(iter >= 10000);
	assert_true(counts[0] > 0 && counts[1] > 0 && counts[2] > 0);
	free(work);
	for (size_t i = 0; i < N_SELS; i++)
		openmetrics_selector_free(sels[i]);
	for (size_t i = 0; i < n_seeds; i++)
		free(seeds[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_selector_good),
		cmocka_unit_test(test_selector_bad),
		cmocka_unit_test(test_sum_table),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_fixtures_crlf),
		cmocka_unit_test(test_long_lines),
		cmocka_unit_test(test_long_escaped_value),
		cmocka_unit_test(test_many_labels),
		cmocka_unit_test(test_large_body),
		cmocka_unit_test(test_locale),
		cmocka_unit_test(test_short_err),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
